import ReshapeCore

/// A value of the document a ``CodingPathResolver`` walks: a `JSONValue`, or an entry of the
/// ``JSONIndex`` the decoder read, so that resolving a path after a decoding never parses the
/// document again.
enum ResolverNode {
    case value(JSONValue)
    case entry(IndexedDocument, Int)

    var isNull: Bool {
        switch self {
        case .value(let value): if case .null = value { return true } else { return false }
        case .entry(let document, let entry): return document.index.entries[entry].kind == .null
        }
    }

    var isArray: Bool {
        switch self {
        case .value(let value): if case .array = value { return true } else { return false }
        case .entry(let document, let entry): return document.index.entries[entry].kind == .array
        }
    }

    var isObject: Bool {
        switch self {
        case .value(let value): if case .object = value { return true } else { return false }
        case .entry(let document, let entry): return document.index.entries[entry].kind == .object
        }
    }

    /// The element at `position` of an array.
    func element(at position: Int) -> ResolverNode? {
        switch self {
        case .value(let value):
            guard case .array(let elements) = value, elements.indices.contains(position) else { return nil }
            return .value(elements[position])
        case .entry(let document, let entry):
            guard let elements = document.elements(of: entry), elements.indices.contains(position) else { return nil }
            return .entry(document, elements[position])
        }
    }

    /// The member names of an object, in order.
    var memberNames: [String] {
        switch self {
        case .value(let value):
            guard case .object(let object) = value else { return [] }
            return object.keys
        case .entry(let document, let entry):
            let index = document.index
            guard index.entries[entry].kind == .object else { return [] }
            var names: [String] = []
            var name = entry + 1
            while name < index.entries[entry].end {
                names.append(Self.string(index, name))
                name = index.next(after: name + 1)
            }
            return names
        }
    }

    /// The value of the member `name` of an object.
    func member(_ name: String) -> ResolverNode? {
        switch self {
        case .value(let value):
            guard case .object(let object) = value, let member = object[name] else { return nil }
            return .value(member)
        case .entry(let document, let entry):
            let index = document.index
            guard index.entries[entry].kind == .object else { return nil }
            var member = entry + 1
            while member < index.entries[entry].end {
                if Self.string(index, member) == name { return .entry(document, member + 1) }
                member = index.next(after: member + 1)
            }
            return nil
        }
    }

    /// The value as messages name it, in the engine's words (`a string`, `a number`, `an object`,
    /// `null`): the kind, never the value itself, since response bodies carry personal data and
    /// messages end up in logs.
    var described: String {
        switch self {
        case .value(let value):
            switch value {
            case .null: return "null"
            case .bool: return "a boolean"
            case .integer, .double, .number: return "a number"
            case .string: return "a string"
            case .array: return "an array"
            case .object: return "an object"
            }
        case .entry(let document, let entry):
            switch document.index.entries[entry].kind {
            case .null: return "null"
            case .true, .false: return "a boolean"
            case .number: return "a number"
            case .string: return "a string"
            case .array: return "an array"
            case .object: return "an object"
            }
        }
    }

    private static func string(_ index: JSONIndex, _ entry: Int) -> String {
        let item = index.entries[entry]
        let text = index.text(of: item)
        return item.isEscaped ? IndexDecoder.unescaped(text) : String(decoding: text, as: UTF8.self)
    }
}

/// The index a decoding read, with the element positions of the arrays a resolver has looked
/// into, so that resolving many paths into one large array (a `LossyArray`'s drops) stays linear.
final class IndexedDocument {
    let index: JSONIndex
    private var positions: [Int: [Int]] = [:]

    init(_ index: JSONIndex) {
        self.index = index
    }

    /// The entries of the elements of the array at `entry`, or nil when it is not an array.
    func elements(of entry: Int) -> [Int]? {
        guard index.entries[entry].kind == .array else { return nil }
        if let known = positions[entry] { return known }
        var elements: [Int] = []
        elements.reserveCapacity(index.entries[entry].count)
        var element = entry + 1
        while element < index.entries[entry].end {
            elements.append(element)
            element = index.next(after: element)
        }
        positions[entry] = elements
        return elements
    }
}
