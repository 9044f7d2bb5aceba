#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReshapeCore

/// Turns a coding path into a normalized path into the document the decoder read, and a
/// `DecodingError` into a location and a readable message.
///
/// With the document it walks the actual values: an index only where there is an array, and for a
/// member the JSON name whose decoded key is the coding key (so that with `.convertFromSnakeCase`
/// the path says `['book_list']`, not `['bookList']`). Without a document it falls back to
/// ``Swift/Array/normalizedPath``.
struct CodingPathResolver {
    /// The document the decoder read, or nil when it is not at hand (or not strict JSON).
    let document: ResolverNode?
    /// The decoder's key strategy, or nil for `.useDefaultKeys`.
    let keyStrategy: JSONDecoder.KeyDecodingStrategy?
    /// How many keys of a coding path lead to `document` (written as the decoder reported them):
    /// 0 when `document` is the whole document, more when it is one value inside it.
    var depth = 0

    /// A resolver over a value (or none): names as the decoder reported them where it is nil.
    init(document: JSONValue?, keyStrategy: JSONDecoder.KeyDecodingStrategy?, depth: Int = 0) {
        self.document = document.map { .value($0) }
        self.keyStrategy = keyStrategy
        self.depth = depth
    }

    /// A resolver over the index the decoder read: no second reading of the document.
    init(index: JSONIndex, keyStrategy: JSONDecoder.KeyDecodingStrategy?) {
        self.document = index.entries.isEmpty ? nil : .entry(IndexedDocument(index), 0)
        self.keyStrategy = keyStrategy
    }

    /// The location of `codingPath` and the value found there, when the document has it.
    func resolve(_ codingPath: [any CodingKey]) -> (path: String, value: ResolverNode?) {
        var path = NormalizedPath()
        var node = codingPath.count >= depth ? document : nil
        for (position, key) in codingPath.enumerated() {
            if position < depth {
                key.appendNaively(to: &path)
                continue
            }
            if let current = node, current.isArray {
                if let index = key.intValue {
                    path.append(index: index)
                    node = current.element(at: index)
                } else {
                    key.appendNaively(to: &path)
                    node = nil
                }
            } else if let current = node, current.isObject {
                if let name = memberName(for: key.stringValue, in: current) {
                    path.append(key: name)
                    node = current.member(name)
                } else {
                    path.append(key: key.stringValue)
                    node = nil
                }
            } else {
                key.appendNaively(to: &path)
                node = nil
            }
        }
        return (path.text, node)
    }

    /// Where a decoding error happened and what went wrong, in one line, worded from the error's
    /// case, its type and the kind of value found (`expected Int, found a string`): never from
    /// the error's own text, which may quote the value (Swift's enums do), and never with a value
    /// of the document, since bodies carry personal data.
    func report(_ error: DecodingError) -> (path: String, message: String) {
        switch error {
        case .typeMismatch(let type, let context):
            let (path, value) = resolve(context.codingPath)
            guard let value else { return (path, "expected \(typeName(type))") }
            return (path, "expected \(typeName(type)), found \(value.described)")
        case .valueNotFound(let type, let context):
            let (path, value) = resolve(context.codingPath)
            return (path, "expected \(typeName(type)), found \(value?.isNull == true ? "null" : "no value")")
        case .keyNotFound(let key, let context):
            var codingPath = context.codingPath
            if let last = codingPath.last, last.stringValue == key.stringValue, last.intValue == key.intValue {
                codingPath.removeLast()
            }
            let (path, value) = resolve(codingPath)
            if value?.isArray == true, let index = key.intValue {
                return (path, "no element [\(index)]")
            }
            let name = quote(key.stringValue)
            return (path, keyStrategy == nil ? "no member \(name)" : "no member decoding as the key \(name)")
        case .dataCorrupted(let context):
            let (path, value) = resolve(context.codingPath)
            if let message = context.underlyingError as? DecodingMessage { return (path, message.text) }
            return (path, Self.corruption(context.debugDescription, found: value?.described))
        @unknown default:
            return ("$", "the value does not decode")
        }
    }

    /// `JSONDecoder`'s fixed texts for Foundation's types, as the index decoder words them.
    static let foundationTexts = [
        "Invalid URL string.": "expected URL, found a string that is not a URL",
        "Expected date string to be ISO8601-formatted.": "expected an ISO 8601 date, found a string that is not one",
        "Encountered Data is not valid Base64.": "expected Base64 data, found a string that is not Base64",
    ]

    /// A `dataCorrupted` error from elsewhere (`JSONDecoder`, a synthesized `init(from:)`),
    /// worded again: the type it names, never the text around it. `found` is the kind of value.
    static func corruption(_ text: String, found: String?) -> String {
        // Swift's enums: "Cannot initialize Role from invalid String value <the value>".
        if text.hasPrefix("Cannot initialize "), let type = text.between("Cannot initialize ", and: " from invalid ") {
            return "expected \(type), found \(found ?? "a value") that is none of its raw values"
        }
        // JSONDecoder: "Parsed JSON number <the number> does not fit in Int8."
        if text.hasPrefix("Parsed JSON number "), let type = text.between(" does not fit in ", and: ".") {
            return "expected \(type), found a number it cannot represent"
        }
        if let worded = foundationTexts[text] { return worded }
        if text == "The given data was not valid JSON." {
            // Valid to Reshape's parser, refused by JSONDecoder: nesting past its 512 levels.
            return found.map { "\($0) that JSONDecoder refuses (it reads at most 512 levels of nesting)" } ?? "not valid JSON"
        }
        return found.map { "\($0) that does not decode here" } ?? "the value does not decode here"
    }

    /// The name of the member of `object` that the decoder reports as `key`.
    private func memberName(for key: String, in object: ResolverNode) -> String? {
        // A member with exactly the key's name comes first: dictionary keys are never converted.
        let names = object.memberNames
        if names.contains(key) { return key }
        guard let keyStrategy else { return nil }
        return names.first { decodedKey($0, keyStrategy) == key }
    }

    /// The key a `JSONDecoder` with `strategy` reports for the member `name`.
    private func decodedKey(_ name: String, _ strategy: JSONDecoder.KeyDecodingStrategy) -> String? {
        KeyConversion.key(for: name, strategy)
    }

    /// The expected type as messages name it: a Swift type by its name (`String`, `Int`), but the
    /// containers `JSONDecoder` reports as `[String: Any]` and `[Any]` as the engine names them.
    private func typeName(_ type: Any.Type) -> String {
        if type == [String: Any].self { return "an object" }
        if type == [Any].self { return "an array" }
        return String(describing: type)
    }

    private func quote(_ text: String) -> String {
        JSONValue.string(text).description
    }
}

extension String {
    /// The text between the first `start` and the `end` after it, when it is a type's name (no
    /// white space, at most 200 characters); nil otherwise.
    fileprivate func between(_ start: String, and end: String) -> String? {
        guard let from = range(of: start)?.upperBound, let to = self[from...].range(of: end)?.lowerBound else { return nil }
        let name = self[from..<to]
        guard !name.isEmpty, name.count <= 200, !name.contains(where: { $0.isWhitespace }) else { return nil }
        return String(name)
    }
}
