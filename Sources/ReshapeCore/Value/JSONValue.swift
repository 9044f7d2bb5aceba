/// An untyped JSON value that keeps what JSON text says: member order, and numbers exactly.
///
/// Read one from JSON text with ``init(json:allowDuplicateKeys:)-([UInt8],_)`` and write it with
/// ``json(pretty:)``; both go through the engine, so they keep member order and every number.
/// (Decoding it with a `Decoder` also works, but `JSONDecoder` does not report member order.)
///
/// Equality is exact: strings and member names compare scalar by scalar (not by Swift's canonical
/// equivalence), numbers by value within their case (`.integer(1)` is not `.double(1.0)`).
///
/// Reading, writing, comparing, hashing and releasing never recurse on depth, so a value as deep as
/// JSON allows is safe on any thread.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent that fits in 64 bits.
    case integer(Int64)
    /// A number written with a fraction or exponent that a double holds.
    case double(Double)
    /// A number neither `Int64` nor `Double` holds exactly, as its JSON text (`"1e400"`).
    case number(String)
    case string(String)
    /// An array; build one from an array literal or with ``array(_:)-(_)`` from a Swift array.
    case array(JSONArray)
    case object(JSONObject)

    /// An array of `elements`.
    public static func array(_ elements: [JSONValue]) -> JSONValue {
        .array(JSONArray(elements))
    }
}

extension JSONValue {
    /// The member `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The element at `index` of an array, or nil when out of range.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The object, if this is one.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements.elements }
        return nil
    }

    /// True for `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// `null`.
    public init(nilLiteral: ()) { self = .null }
    /// A boolean.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A real.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A string.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array.
    public init(arrayLiteral elements: JSONValue...) { self = .array(JSONArray(elements)) }
    /// An object with the members in the order written.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var object = JSONObject()
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}

extension JSONValue: CustomStringConvertible {
    /// The value as compact JSON text.
    public var description: String {
        (try? json()).map { String(decoding: $0, as: UTF8.self) } ?? "<not representable as JSON>"
    }
}
