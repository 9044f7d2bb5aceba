import ReshapeCore

/// An optional that is nil when its value does not decode, and says so: a ``DecodingDiagnostic``
/// of kind ``DecodingDiagnostic/Kind-swift.struct/droppedValue``, in ``diagnostic`` and in
/// ``ResponseDecoder/decodeWithDiagnostics(_:from:)``'s list.
///
/// A missing member and `null` are nil as for any optional, with no diagnostic: that is absence,
/// not a value lost.
///
/// ```swift
/// struct Profile: Decodable {
///     @LossyOptional var avatar: URL?     // "not a url" → nil, recorded
/// }
/// ```
@propertyWrapper
public struct LossyOptional<Value: Decodable>: Decodable {
    /// The decoded value, or nil.
    public var wrappedValue: Value?
    /// Why the value was dropped, or nil when it decoded or was absent.
    public private(set) var diagnostic: DecodingDiagnostic?

    /// The wrapper itself, for its ``diagnostic``: `profile.$avatar.diagnostic`.
    public var projectedValue: LossyOptional<Value> { self }

    /// Creates a property holding `wrappedValue`.
    /// - Parameter wrappedValue: The value, or nil.
    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
        self.diagnostic = nil
    }

    /// Decodes the value; `null` or a value that does not decode gives nil.
    /// - Parameter decoder: The decoder to read from.
    public init(from decoder: any Decoder) {
        self.init(wrappedValue: nil)
        do {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { return }
            wrappedValue = try container.decode(Value.self)
        } catch {
            let found = try? decoder.singleValueContainer().decode(JSONValue.self)
            diagnostic = DroppedElement(kind: .droppedValue, codingPath: decoder.codingPath, error: error).record(in: decoder, found: found)
        }
    }
}

extension KeyedDecodingContainer {
    /// Decodes a ``LossyOptional`` property: a missing member is nil, as for an optional
    /// (synthesized `init(from:)` calls this overload for `@LossyOptional var avatar: URL?`).
    /// - Parameters:
    ///   - type: The wrapper type.
    ///   - key: The member's key.
    /// - Returns: The wrapper.
    /// - Throws: Only what `superDecoder(forKey:)` throws.
    public func decode<Value>(_ type: LossyOptional<Value>.Type, forKey key: Key) throws -> LossyOptional<Value> {
        guard contains(key) else { return LossyOptional(wrappedValue: nil) }
        return LossyOptional(from: try superDecoder(forKey: key))
    }
}

extension LossyOptional: Encodable where Value: Encodable {
    /// Encodes the value, or `null`.
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What encoding the value throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension LossyOptional: Sendable where Value: Sendable {}

/// Equal when the values are (the diagnostic is not part of the value).
extension LossyOptional: Equatable where Value: Equatable {
    /// Whether the two values are equal.
    /// - Parameters:
    ///   - lhs: A value.
    ///   - rhs: Another value.
    /// - Returns: `lhs.wrappedValue == rhs.wrappedValue`.
    public static func == (lhs: LossyOptional<Value>, rhs: LossyOptional<Value>) -> Bool {
        lhs.wrappedValue == rhs.wrappedValue
    }
}

/// Hashes the value, as ``LossyOptional/==(_:_:)`` compares it.
extension LossyOptional: Hashable where Value: Hashable {
    /// Feeds the value to `hasher`.
    /// - Parameter hasher: The hasher to use.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(wrappedValue)
    }
}
