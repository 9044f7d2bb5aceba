/// A coding key for any member name, for looking into objects whose members are not known.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        nil
    }
}

/// A value that decodes from anything without reading it: skips one element of an unkeyed container.
struct SkippedValue: Decodable {
    init(from decoder: any Decoder) throws {}
}
