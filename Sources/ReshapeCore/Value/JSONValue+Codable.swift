/// `Codable`, so a `JSONValue` can sit in a `Codable` type for the parts of a response that have no
/// fixed shape. Member order is whatever the coder reports (`JSONDecoder` does not keep it).
///
/// A coder goes one level down per call, so encoding and decoding recurse once per level of
/// nesting, as every `Codable` type does (`JSONDecoder` itself refuses input nested deeper than 512
/// levels). `init(json:)` and `json()` read and write without recursion, at any depth.
extension JSONValue: Codable {
    private struct MemberKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes any JSON value.
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: MemberKey.self) {
            var object = JSONObject()
            for key in container.allKeys {
                object[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
            }
            self = .object(object)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !container.isAtEnd { elements.append(try container.decode(JSONValue.self)) }
            self = .array(elements)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let real = try? container.decode(Double.self) {
            self = .double(real)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    /// Encodes the value; `.number` text is encoded as a `Double` (the nearest one), since `Encoder`
    /// has no way to write number text.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let object):
            var container = encoder.container(keyedBy: MemberKey.self)
            for member in object { try container.encode(member.value, forKey: MemberKey(stringValue: member.key)) }
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .integer(let integer):
            var container = encoder.singleValueContainer()
            try container.encode(integer)
        case .double(let real):
            var container = encoder.singleValueContainer()
            try container.encode(real)
        case .number(let text):
            var container = encoder.singleValueContainer()
            try container.encode(Double(text) ?? .nan)
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        }
    }
}
