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

    /// Where a decoding error happened and what went wrong, in one line.
    func report(_ error: DecodingError) -> (path: String, message: String) {
        switch error {
        case .typeMismatch(let type, let context):
            let (path, value) = resolve(context.codingPath)
            guard let value else { return (path, context.debugDescription) }
            return (path, "expected \(typeName(type)), found \(value.described)")
        case .valueNotFound(let type, let context):
            let (path, value) = resolve(context.codingPath)
            if value?.isNull == true { return (path, "expected \(typeName(type)), found null") }
            return (path, context.debugDescription)
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
            let (path, _) = resolve(context.codingPath)
            var message = context.debugDescription
            if let underlying = context.underlyingError { message += " (\(underlying))" }
            return (path, message)
        @unknown default:
            return ("$", "\(error)")
        }
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
