#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReshapeCore

/// The `Decoder` ``ResponseDecoder`` decodes with: it reads the engine's output in place, through a
/// ``JSONIndex``, instead of handing the bytes to `JSONDecoder` to parse again.
///
/// It follows `JSONDecoder` (Foundation's implementation) in what it accepts and in the errors it
/// throws — the same `DecodingError` cases, coding paths and descriptions — and honours the same
/// strategies for keys, dates, data and non-conforming floats. Where it differs, on purpose:
/// a number that does not fit the requested type is `dataCorrupted` at the number's own coding path
/// (`JSONDecoder` reports "The given data was not valid JSON." at the root), a date that is not
/// ISO 8601 is reported at its own path (`JSONDecoder` gives the path of the object holding it),
/// and an integer is read exactly (`1.0000000000000001` is not the `Int` 1).
///
/// One decoder serves a whole decoding, as `JSONDecoder`'s does: decoding a nested value sets
/// ``current`` and appends to ``path`` for the time it takes, then puts them back.
final class IndexDecoder: Decoder {
    let index: JSONIndex
    let options: DecodingOptions
    let userInfo: [CodingUserInfoKey: Any]
    /// The entry of the value this decoder stands for, or -1 for a `null` that is not in the
    /// document (a `superDecoder` for a missing key).
    var current: Int
    /// The coding path of `current`.
    var path: [any CodingKey]
    /// Per container depth, the object looked into last and the name entry after the member found
    /// there: members are usually asked for in the order they stand, so the next lookup starts
    /// there.
    var hints: [(object: Int, name: Int)] = []
    /// Keys a path-independent key strategy made of member names, by name.
    var convertedKeys: [String: String] = [:]

    init(index: JSONIndex, options: DecodingOptions, userInfo: [CodingUserInfoKey: Any], current: Int, path: [any CodingKey]) {
        self.index = index
        self.options = options
        self.userInfo = userInfo
        self.current = current
        self.path = path
    }

    var codingPath: [any CodingKey] { path }

    /// Decodes the whole document as `type`.
    static func decode<T: Decodable>(
        _ type: T.Type, from index: JSONIndex, options: DecodingOptions, userInfo: [CodingUserInfoKey: Any]
    ) throws -> T {
        let decoder = IndexDecoder(index: index, options: options, userInfo: userInfo, current: 0, path: [])
        return try decoder.unwrap(0, as: type, at: Location(depth: 0), key: nil)
    }

    // MARK: - Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let location = Location(depth: path.count)
        switch kind(current) {
        case .object:
            return KeyedDecodingContainer(try IndexKeyedContainer<Key>(decoder: self, object: current, location: location))
        case .null:
            throw DecodingError.valueNotFound([String: Any].self, DecodingError.Context(
                codingPath: path, debugDescription: "Cannot get keyed decoding container -- found null value instead"))
        default:
            throw DecodingError.typeMismatch([String: Any].self, DecodingError.Context(
                codingPath: path,
                debugDescription: "Expected to decode \([String: Any].self) but found \(described(current)) instead."))
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try unkeyedContainer(of: current, at: Location(depth: path.count), codingPath: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        self
    }

    func unkeyedContainer(of entry: Int, at location: Location, codingPath: @autoclosure () -> [any CodingKey]) throws -> IndexUnkeyedContainer {
        switch kind(entry) {
        case .array:
            return IndexUnkeyedContainer(decoder: self, array: entry, location: location)
        case .null:
            throw DecodingError.valueNotFound([Any].self, DecodingError.Context(
                codingPath: codingPath(), debugDescription: "Cannot get unkeyed decoding container -- found null value instead"))
        default:
            throw DecodingError.typeMismatch([Any].self, DecodingError.Context(
                codingPath: codingPath(),
                debugDescription: "Expected to decode \([Any].self) but found \(described(entry)) instead."))
        }
    }

    // MARK: - Where a container stands

    /// Where a container stands in the coding path: the first `depth` keys of ``path`` and then
    /// `extra` (the keys of `nestedContainer` calls, which push nothing).
    struct Location {
        var depth: Int
        var extra: [any CodingKey] = []

        /// The slot of ``hints`` this container uses.
        var slot: Int { depth + extra.count }
    }

    /// The coding path of a container at `location`, followed by `key` when there is one.
    func codingPath(_ location: Location, _ key: (any CodingKey)?) -> [any CodingKey] {
        var result = Array(path.prefix(location.depth))
        result.append(contentsOf: location.extra)
        if let key { result.append(key) }
        return result
    }

    /// Runs `body` with this decoder standing for `entry`, at the path of `location` and `key`.
    func with<T>(_ entry: Int, at location: Location, key: (any CodingKey)?, _ body: () throws -> T) rethrows -> T {
        let savedCurrent = current
        // Only a container used out of order (kept past the decoding of its own value) finds more
        // keys than its depth; they are put back afterwards.
        var removed: [any CodingKey] = []
        if path.count > location.depth {
            removed = Array(path[location.depth...])
            path.removeSubrange(location.depth...)
        }
        path.append(contentsOf: location.extra)
        if let key { path.append(key) }
        current = entry
        defer {
            current = savedCurrent
            if path.count > location.depth { path.removeSubrange(location.depth...) }
            path.append(contentsOf: removed)
        }
        return try body()
    }

    // MARK: - Values

    func kind(_ entry: Int) -> JSONIndex.Kind {
        entry >= 0 && entry < index.entries.count ? index.entries[entry].kind : .null
    }

    /// A kind as `JSONDecoder`'s messages name it.
    func described(_ entry: Int) -> String {
        switch kind(entry) {
        case .string: "a string"
        case .number: "number"
        case .true, .false: "bool"
        case .null: "null"
        case .object: "a dictionary"
        case .array: "an array"
        }
    }

    /// Decodes the value at `entry` as `type`: Foundation's own types as `JSONDecoder` does, with
    /// its strategies, and any other type through its `init(from:)`.
    func unwrap<T: Decodable>(_ entry: Int, as type: T.Type, at location: Location, key: (any CodingKey)?) throws -> T {
        if type == Date.self {
            return try cast(try date(entry, at: location, key: key), location, key)
        }
        if type == Data.self {
            return try cast(try data(entry, at: location, key: key), location, key)
        }
        if type == URL.self {
            return try cast(try url(entry, at: location, key: key), location, key)
        }
        if type == Decimal.self {
            return try cast(try decimal(entry, at: location, key: key), location, key)
        }
        if !options.defaultKeys, let dictionary = type as? any StringKeyedDictionary.Type {
            return try cast(try dictionary.decodeMembers(entry, decoder: self, at: location, key: key), location, key)
        }
        return try with(entry, at: location, key: key) { try T(from: self) }
    }

    private func cast<T>(_ value: Any, _ location: Location, _ key: (any CodingKey)?) throws -> T {
        guard let value = value as? T else {
            throw DecodingMessage.corrupted("expected \(T.self), decoded \(Swift.type(of: value))", at: codingPath(location, key))
        }
        return value
    }

    func null(_ type: Any.Type, _ location: Location, _ key: (any CodingKey)?) -> DecodingError {
        .valueNotFound(type, DecodingError.Context(
            codingPath: codingPath(location, key), debugDescription: "Cannot get value of type \(type) -- found null value instead"))
    }

    func mismatch(_ type: Any.Type, _ entry: Int, _ location: Location, _ key: (any CodingKey)?) -> DecodingError {
        .typeMismatch(type, DecodingError.Context(
            codingPath: codingPath(location, key), debugDescription: "Expected to decode \(type) but found \(described(entry)) instead."))
    }

    /// A number `type` cannot hold exactly (out of its range, or a fraction for an integer type):
    /// the message never says which number.
    func notRepresentable(_ type: Any.Type, _ location: Location, _ key: (any CodingKey)?) -> DecodingError {
        DecodingMessage.corrupted("expected \(type), found a number it cannot represent", at: codingPath(location, key))
    }

    /// Decodes the value at `entry` with a `JSONDecoder` configured as the template: for settings
    /// this decoder does not know. Errors keep the coding path of the value.
    func decodedByTemplate<T: Decodable>(_ entry: Int, as type: T.Type, at location: Location, key: (any CodingKey)?) throws -> T {
        let text = Data(index.valueText(at: entry))
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = options.dates
        decoder.dataDecodingStrategy = options.data
        decoder.nonConformingFloatDecodingStrategy = options.floats
        decoder.keyDecodingStrategy = options.keys
        decoder.userInfo = options.template.userInfo
        do {
            return try decoder.decode(T.self, from: text)
        } catch let error as DecodingError {
            throw error.rebased(onto: codingPath(location, key))
        }
    }
}

extension DecodingError {
    /// The same error with `prefix` in front of its coding path.
    func rebased(onto prefix: [any CodingKey]) -> DecodingError {
        func moved(_ context: Context) -> Context {
            Context(codingPath: prefix + context.codingPath, debugDescription: context.debugDescription, underlyingError: context.underlyingError)
        }
        switch self {
        case .typeMismatch(let type, let context): return .typeMismatch(type, moved(context))
        case .valueNotFound(let type, let context): return .valueNotFound(type, moved(context))
        case .keyNotFound(let key, let context): return .keyNotFound(key, moved(context))
        case .dataCorrupted(let context): return .dataCorrupted(moved(context))
        @unknown default: return self
        }
    }
}
