#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReshapeCore

/// The elements of an array, in order, for ``IndexDecoder``.
struct IndexUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: IndexDecoder
    let location: IndexDecoder.Location
    let count: Int?
    private(set) var currentIndex = 0
    /// The entry of the element at `currentIndex`.
    private var element: Int

    init(decoder: IndexDecoder, array: Int, location: IndexDecoder.Location) {
        self.decoder = decoder
        self.location = location
        self.count = decoder.index.entries[array].count
        self.element = array + 1
    }

    var codingPath: [any CodingKey] { decoder.codingPath(location, nil) }

    var isAtEnd: Bool { currentIndex >= (count ?? 0) }

    private var key: ElementKey { ElementKey(index: currentIndex) }

    /// The entry of the next element, or `valueNotFound` at the end.
    private func next(_ type: Any.Type, _ message: String = "Unkeyed container is at end.") throws -> Int {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(codingPath: decoder.codingPath(location, key), debugDescription: message))
        }
        return element
    }

    private mutating func advance() {
        element = decoder.index.next(after: element)
        currentIndex += 1
    }

    /// Decodes the next element with `read` and moves past it.
    private mutating func take<T>(_ type: Any.Type, _ read: (IndexDecoder, Int, IndexDecoder.Location, ElementKey) throws -> T) throws -> T {
        let value = try read(decoder, try next(type), location, key)
        advance()
        return value
    }

    /// Decodes the next element with `read` unless it is `null` or there is none, and moves past it.
    private mutating func takeIfPresent<T>(_ read: (IndexDecoder, Int, IndexDecoder.Location, ElementKey) throws -> T) throws -> T? {
        guard !isAtEnd else { return nil }
        if decoder.kind(element) == .null {
            advance()
            return nil
        }
        let value = try read(decoder, element, location, key)
        advance()
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard decoder.kind(try next(Never.self)) == .null else { return false }
        advance()
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        try take(type) { try $0.bool($1, at: $2, key: $3) }
    }

    mutating func decode(_ type: String.Type) throws -> String {
        try take(type) { try $0.string($1, at: $2, key: $3) }
    }

    mutating func decode(_ type: Double.Type) throws -> Double {
        try take(type) { try $0.floatingPoint($1, as: type, at: $2, key: $3) }
    }

    mutating func decode(_ type: Float.Type) throws -> Float {
        try take(type) { try $0.floatingPoint($1, as: type, at: $2, key: $3) }
    }

    mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    private mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        try take(type) { try $0.integer($1, as: type, at: $2, key: $3) }
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try take(type) { try $0.unwrap($1, as: type, at: $2, key: $3) }
    }

    mutating func decodeIfPresent(_ type: Bool.Type) throws -> Bool? {
        try takeIfPresent { try $0.bool($1, at: $2, key: $3) }
    }

    mutating func decodeIfPresent(_ type: String.Type) throws -> String? {
        try takeIfPresent { try $0.string($1, at: $2, key: $3) }
    }

    mutating func decodeIfPresent(_ type: Double.Type) throws -> Double? {
        try takeIfPresent { try $0.floatingPoint($1, as: type, at: $2, key: $3) }
    }

    mutating func decodeIfPresent(_ type: Float.Type) throws -> Float? {
        try takeIfPresent { try $0.floatingPoint($1, as: type, at: $2, key: $3) }
    }

    mutating func decodeIfPresent(_ type: Int.Type) throws -> Int? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int8.Type) throws -> Int8? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int16.Type) throws -> Int16? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int32.Type) throws -> Int32? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: Int64.Type) throws -> Int64? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt.Type) throws -> UInt? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt8.Type) throws -> UInt8? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt16.Type) throws -> UInt16? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt32.Type) throws -> UInt32? { try integerIfPresent(type) }
    mutating func decodeIfPresent(_ type: UInt64.Type) throws -> UInt64? { try integerIfPresent(type) }

    private mutating func integerIfPresent<T: FixedWidthInteger>(_ type: T.Type) throws -> T? {
        try takeIfPresent { try $0.integer($1, as: type, at: $2, key: $3) }
    }

    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        try takeIfPresent { try $0.unwrap($1, as: type, at: $2, key: $3) }
    }

    // MARK: - Nesting

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try next(KeyedDecodingContainer<NestedKey>.self)
        var nested = location
        nested.extra.append(key)
        let container: KeyedDecodingContainer<NestedKey>
        switch decoder.kind(value) {
        case .object:
            container = KeyedDecodingContainer(try IndexKeyedContainer<NestedKey>(decoder: decoder, object: value, location: nested))
        case .null:
            throw DecodingError.valueNotFound([String: Any].self, DecodingError.Context(
                codingPath: decoder.codingPath(location, key), debugDescription: "Cannot get keyed decoding container -- found null value instead"))
        default:
            throw DecodingError.typeMismatch([String: Any].self, DecodingError.Context(
                codingPath: decoder.codingPath(location, key),
                debugDescription: "Expected to decode \([String: Any].self) but found \(decoder.described(value)) instead."))
        }
        advance()
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let value = try next(IndexUnkeyedContainer.self, "Cannot get nested unkeyed container -- unkeyed container is at end.")
        var nested = location
        nested.extra.append(key)
        let container = try decoder.unkeyedContainer(of: value, at: nested, codingPath: decoder.codingPath(location, key))
        advance()
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let value = try next((any Decoder).self, "Cannot get superDecoder() -- unkeyed container is at end.")
        let sub = IndexDecoder(
            index: decoder.index, options: decoder.options, userInfo: decoder.userInfo, current: value,
            path: decoder.codingPath(location, key))
        advance()
        return sub
    }
}
