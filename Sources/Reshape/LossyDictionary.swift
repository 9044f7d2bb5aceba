import ReshapeCore

/// A dictionary that drops the entries that fail to decode, and says which and why: each a
/// ``DecodingDiagnostic`` of kind ``DecodingDiagnostic/Kind-swift.struct/droppedEntry`` (its member
/// name in ``DecodingDiagnostic/key``), in ``drops`` and in
/// ``ResponseDecoder/decodeWithDiagnostics(_:from:)``'s list.
///
/// ```swift
/// struct Rates: Decodable {
///     @LossyDictionary var perCurrency: [String: Double]   // {"EUR": 1.1, "XXX": "n/a"} → ["EUR": 1.1]
/// }
/// ```
///
/// Keys are member names as they are in the JSON, never converted by a key strategy (as
/// `JSONDecoder` treats `[String: V]`). For `Int` keys (or any `LosslessStringConvertible` key), a
/// name that is not one drops its entry too. Only the entries are lenient: a missing member,
/// `null` or a value that is not an object still fails decoding.
@propertyWrapper
public struct LossyDictionary<Key: Hashable & LosslessStringConvertible, Value: Decodable>: Decodable {
    /// The entries that decoded.
    public var wrappedValue: [Key: Value]
    /// The entries that were dropped, ordered by member name.
    public private(set) var drops: [DecodingDiagnostic]

    /// The wrapper itself, for its ``drops``: `rates.$perCurrency.drops`.
    public var projectedValue: LossyDictionary<Key, Value> { self }

    /// Creates a dictionary with nothing dropped.
    /// - Parameter wrappedValue: The entries.
    public init(wrappedValue: [Key: Value]) {
        self.wrappedValue = wrappedValue
        self.drops = []
    }

    /// Decodes an object, dropping the entries that fail to decode.
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` when the value is not an object (or is `null` or missing).
    public init(from decoder: any Decoder) throws {
        // As `[String: Entry]`: decoders never convert the keys of a `[String: V]`.
        let entries = try decoder.singleValueContainer().decode([String: Entry].self)
        var values: [Key: Value] = [:]
        var drops: [DecodingDiagnostic] = []
        for name in entries.keys.sorted() {
            guard let entry = entries[name] else { continue }
            let memberPath = decoder.codingPath + [AnyCodingKey(stringValue: name)]
            switch entry.result {
            case .success(let value):
                if let key = Key(name) {
                    values[key] = value
                } else {
                    let error = DecodingMessage.corrupted("expected a member name that is a key of type \(Key.self), found another name", at: memberPath)
                    drops.append(DroppedElement(kind: .droppedEntry, codingPath: memberPath, key: name, error: error)
                        .record(in: decoder, found: nil))
                }
            case .failure(let error):
                drops.append(DroppedElement(kind: .droppedEntry, codingPath: memberPath, key: name, error: error)
                    .record(in: decoder, found: entry.found))
            }
        }
        self.wrappedValue = values
        self.drops = drops
    }

    /// One entry's value, or why it did not decode and what stood there.
    private struct Entry: Decodable {
        let result: Result<Value, any Error>
        let found: JSONValue?

        init(from decoder: any Decoder) {
            do {
                result = .success(try decoder.singleValueContainer().decode(Value.self))
                found = nil
            } catch {
                result = .failure(error)
                found = try? decoder.singleValueContainer().decode(JSONValue.self)
            }
        }
    }
}

extension LossyDictionary: Encodable where Key: Encodable, Value: Encodable {
    /// Encodes the entries that decoded (drops are not encoded).
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What encoding an entry throws.
    public func encode(to encoder: any Encoder) throws {
        try wrappedValue.encode(to: encoder)
    }
}

extension LossyDictionary: Sendable where Key: Sendable, Value: Sendable {}

/// Equal when the entries are (``LossyDictionary/drops`` are not part of the value).
extension LossyDictionary: Equatable where Value: Equatable {
    /// Whether the two dictionaries have equal entries.
    /// - Parameters:
    ///   - lhs: A dictionary.
    ///   - rhs: Another dictionary.
    /// - Returns: `lhs.wrappedValue == rhs.wrappedValue`.
    public static func == (lhs: LossyDictionary<Key, Value>, rhs: LossyDictionary<Key, Value>) -> Bool {
        lhs.wrappedValue == rhs.wrappedValue
    }
}

/// Hashes the entries, as ``LossyDictionary/==(_:_:)`` compares them.
extension LossyDictionary: Hashable where Value: Hashable {
    /// Feeds the entries to `hasher`.
    /// - Parameter hasher: The hasher to use.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(wrappedValue)
    }
}
