#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReshapeCore

/// The members of an object, for ``IndexDecoder``.
///
/// With the default key strategy a key is found by comparing its UTF-8 with the member names in
/// the text, starting after the member found last, so that no name is ever made a `String`. With
/// another strategy the converted names are made once, when the container is, and the first member
/// whose name converts to the key wins, as in `JSONDecoder`.
struct IndexKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: IndexDecoder
    let object: Int
    let location: IndexDecoder.Location
    /// With a key strategy: the converted name and the value entry of each member, in order.
    private let converted: [(key: String, value: Int)]?

    init(decoder: IndexDecoder, object: Int, location: IndexDecoder.Location) throws {
        self.decoder = decoder
        self.object = object
        self.location = location
        converted = decoder.options.defaultKeys ? nil : Self.convertedKeys(decoder, object, location)
    }

    var codingPath: [any CodingKey] { decoder.codingPath(location, nil) }

    var allKeys: [Key] {
        if let converted {
            var seen = Set<String>()
            return converted.compactMap { seen.insert($0.key).inserted ? Key(stringValue: $0.key) : nil }
        }
        var keys: [Key] = []
        let end = decoder.index.entries[object].end
        var name = object + 1
        while name < end {
            if let key = Key(stringValue: decoder.stringValue(name)) { keys.append(key) }
            name = decoder.index.next(after: name + 1)
        }
        return keys
    }

    func contains(_ key: Key) -> Bool {
        value(for: key) != nil
    }

    // MARK: - Finding members

    /// The value entry of the member `key` stands for, or nil.
    private func value(for key: Key) -> Int? {
        value(named: key.stringValue)
    }

    /// The value entry of the member whose (converted) name is `wanted`, or nil.
    private func value(named wanted: String) -> Int? {
        var wanted = wanted
        if let converted {
            return converted.first { $0.key == wanted }?.value
        }
        let entries = decoder.index.entries
        let container = entries[object]
        let members = container.count
        guard members > 0 else { return nil }
        let slot = location.slot
        if decoder.hints.count <= slot {
            decoder.hints.append(contentsOf: repeatElement((object: -1, name: 0), count: slot + 1 - decoder.hints.count))
        }
        // A hint left by this object (not by another container at the same depth).
        let hint = decoder.hints[slot]
        var name = hint.object == object && hint.name < container.end ? hint.name : object + 1
        let text = decoder.index.bytes.buffer
        return wanted.withUTF8 { wanted -> Int? in
            for _ in 0..<members {
                if name >= container.end { name = object + 1 }
                let entry = entries[name]
                let after = nextName(after: name, entries)
                let matches: Bool
                if entry.isEscaped {
                    matches = decoder.stringValue(name).utf8.elementsEqual(UnsafeRawBufferPointer(wanted))
                } else {
                    matches = Self.equal(text, entry.start, entry.end, wanted)
                }
                if matches {
                    decoder.hints[slot] = (object, after)
                    return name + 1
                }
                name = after
            }
            return nil
        }
    }

    /// Whether `text[start..<end]` holds the bytes of `wanted`.
    private static func equal(_ text: UnsafeRawBufferPointer, _ start: Int, _ end: Int, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        guard end - start == wanted.count, end <= text.count else { return false }
        var at = start
        for byte in wanted {
            guard text[at] == byte else { return false }
            at += 1
        }
        return true
    }

    private func nextName(after name: Int, _ entries: ContiguousArray<JSONIndex.Entry>) -> Int {
        let value = entries[name + 1]
        switch value.kind {
        case .object, .array: return value.end
        default: return name + 2
        }
    }

    private static func convertedKeys(
        _ decoder: IndexDecoder, _ object: Int, _ location: IndexDecoder.Location
    ) -> [(key: String, value: Int)] {
        var result: [(key: String, value: Int)] = []
        let end = decoder.index.entries[object].end
        var name = object + 1
        while name < end {
            let member = decoder.stringValue(name)
            let key: String
            switch decoder.options.keys {
            case .custom(let convert):
                key = convert(decoder.codingPath(location, AnyCodingKey(stringValue: member))).stringValue
            default:
                if let known = decoder.convertedKeys[member] {
                    key = known
                } else {
                    key = KeyConversion.key(for: member, decoder.options.keys) ?? member
                    decoder.convertedKeys[member] = key
                }
            }
            result.append((key, name + 1))
            name = decoder.index.next(after: name + 1)
        }
        return result
    }

    private func entry(for key: Key) throws -> Int {
        guard let entry = value(for: key) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return entry
    }

    /// The value entry of `key` when the member is there and not `null`.
    private func presentEntry(for key: Key) -> Int? {
        guard let entry = value(for: key), decoder.kind(entry) != .null else { return nil }
        return entry
    }

    // MARK: - Decoding

    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.kind(try entry(for: key)) == .null
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try decoder.bool(try entry(for: key), at: location, key: key)
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try decoder.string(try entry(for: key), at: location, key: key)
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try decoder.floatingPoint(try entry(for: key), as: type, at: location, key: key)
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try decoder.floatingPoint(try entry(for: key), as: type, at: location, key: key)
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

    private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
        try decoder.integer(try entry(for: key), as: type, at: location, key: key)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.unwrap(try entry(for: key), as: type, at: location, key: key)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try presentEntry(for: key).map { try decoder.bool($0, at: location, key: key) }
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try presentEntry(for: key).map { try decoder.string($0, at: location, key: key) }
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try presentEntry(for: key).map { try decoder.floatingPoint($0, as: type, at: location, key: key) }
    }

    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try presentEntry(for: key).map { try decoder.floatingPoint($0, as: type, at: location, key: key) }
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try integerIfPresent(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try integerIfPresent(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try integerIfPresent(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try integerIfPresent(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try integerIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try integerIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try integerIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try integerIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try integerIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try integerIfPresent(type, key) }

    private func integerIfPresent<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T? {
        try presentEntry(for: key).map { try decoder.integer($0, as: type, at: location, key: key) }
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try presentEntry(for: key).map { try decoder.unwrap($0, as: type, at: location, key: key) }
    }

    // MARK: - Nesting

    /// Where a container nested under `key` stands: `nestedContainer` pushes nothing on the
    /// decoder's path, so the key travels with the container.
    private func nestedLocation(_ key: Key) -> IndexDecoder.Location {
        var nested = location
        nested.extra.append(key)
        return nested
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try entry(for: key)
        switch decoder.kind(value) {
        case .object:
            return KeyedDecodingContainer(try IndexKeyedContainer<NestedKey>(decoder: decoder, object: value, location: nestedLocation(key)))
        case .null:
            throw DecodingError.valueNotFound([String: Any].self, DecodingError.Context(
                codingPath: decoder.codingPath(location, key), debugDescription: "Cannot get keyed decoding container -- found null value instead"))
        default:
            throw DecodingError.typeMismatch([String: Any].self, DecodingError.Context(
                codingPath: decoder.codingPath(location, key),
                debugDescription: "Expected to decode \([String: Any].self) but found \(decoder.described(value)) instead."))
        }
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let value = try entry(for: key)
        return try decoder.unkeyedContainer(of: value, at: nestedLocation(key), codingPath: decoder.codingPath(location, key))
    }

    func superDecoder() throws -> any Decoder {
        subDecoder(AnyCodingKey(stringValue: "super"), value(named: "super"))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        subDecoder(key, value(for: key))
    }

    /// A decoder of its own for a member; a missing member reads as `null`, as in `JSONDecoder`.
    private func subDecoder(_ key: any CodingKey, _ value: Int?) -> IndexDecoder {
        IndexDecoder(
            index: decoder.index, options: decoder.options, userInfo: decoder.userInfo, current: value ?? -1,
            path: decoder.codingPath(location, key))
    }
}
