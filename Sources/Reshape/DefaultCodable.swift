import ReshapeCore

/// A property that takes a default instead of failing when its member is missing, `null` or does
/// not decode, and says so: each time, a ``DecodingDiagnostic`` of kind
/// ``DecodingDiagnostic/Kind-swift.struct/usedDefault``, in ``diagnostic`` and in
/// ``ResponseDecoder/decodeWithDiagnostics(_:from:)``'s list.
///
/// The default comes from a ``DefaultValueProvider``; ``DefaultFalse``, ``DefaultTrue``,
/// ``DefaultZero``, ``DefaultEmptyArray`` and ``DefaultEmptyDictionary`` are the common ones:
///
/// ```swift
/// struct Settings: Decodable {
///     @DefaultFalse var beta: Bool          // missing, null or "yes" → false
///     @DefaultEmptyArray var tags: [String] // missing, null or not an array of strings → []
/// }
/// ```
///
/// The value as a whole is replaced: for an array whose elements should be dropped one by one, use
/// ``LossyArray``. Works with any `Decoder`; outside ``ResponseDecoder`` the diagnostic is still
/// kept in ``diagnostic``, with paths as the decoder named them.
@propertyWrapper
public struct DefaultCodable<Provider: DefaultValueProvider>: Decodable {
    /// The decoded value, or the provider's default.
    public var wrappedValue: Provider.Value
    /// Why the default was used, or nil when the value decoded.
    public private(set) var diagnostic: DecodingDiagnostic?

    /// The wrapper itself, for its ``diagnostic``: `settings.$beta.diagnostic`.
    public var projectedValue: DefaultCodable<Provider> { self }

    /// Creates a property holding `wrappedValue`, with nothing replaced.
    /// - Parameter wrappedValue: The value.
    public init(wrappedValue: Provider.Value) {
        self.wrappedValue = wrappedValue
        self.diagnostic = nil
    }

    /// Decodes the value, or takes the default when it is `null` or does not decode.
    /// - Parameter decoder: The decoder to read from.
    public init(from decoder: any Decoder) {
        do {
            let container = try decoder.singleValueContainer()
            guard !container.decodeNil() else {
                let error = DecodingError.valueNotFound(Provider.Value.self, DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "Cannot get value of type \(Provider.Value.self) -- found null value instead"))
                self.init(defaultFor: DroppedElement(kind: .usedDefault, codingPath: decoder.codingPath, error: error), in: decoder, found: .null)
                return
            }
            self.init(wrappedValue: try container.decode(Provider.Value.self))
        } catch {
            let found = try? decoder.singleValueContainer().decode(JSONValue.self)
            self.init(defaultFor: DroppedElement(kind: .usedDefault, codingPath: decoder.codingPath, error: error), in: decoder, found: found)
        }
    }

    private init(defaultFor event: DroppedElement, in decoder: any Decoder, found: JSONValue?) {
        self.wrappedValue = Provider.defaultValue
        self.diagnostic = event.record(in: decoder, found: found)
    }

    /// The default for a member that is missing, recorded against `decoder` (one for the member).
    init(missing key: any CodingKey, in decoder: any Decoder, containerPath: [any CodingKey]) {
        let error = DecodingError.keyNotFound(key, DecodingError.Context(
            codingPath: containerPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        self.init(defaultFor: DroppedElement(kind: .usedDefault, codingPath: containerPath + [key], error: error), in: decoder, found: nil)
    }
}

extension KeyedDecodingContainer {
    /// Decodes a ``DefaultCodable`` property: a missing member takes the default too (synthesized
    /// `init(from:)` calls this overload for `@DefaultFalse var beta: Bool` and its kin).
    /// - Parameters:
    ///   - type: The wrapper type.
    ///   - key: The member's key.
    /// - Returns: The wrapper, holding the value or the default.
    /// - Throws: Only what `superDecoder(forKey:)` throws for a missing member.
    public func decode<Provider>(_ type: DefaultCodable<Provider>.Type, forKey key: Key) throws -> DefaultCodable<Provider> {
        if contains(key) {
            return DefaultCodable(from: try superDecoder(forKey: key))
        }
        return DefaultCodable(missing: key, in: try superDecoder(forKey: key), containerPath: codingPath)
    }
}

extension DefaultCodable: Encodable where Provider.Value: Encodable {
    /// Encodes the value (the default, when it was used).
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What encoding the value throws.
    public func encode(to encoder: any Encoder) throws {
        try wrappedValue.encode(to: encoder)
    }
}

extension DefaultCodable: Sendable where Provider.Value: Sendable {}

/// Equal when the values are: the ``DefaultCodable/diagnostic`` belongs to one decoding, not to
/// the value, so a struct holding one can synthesize `==`.
extension DefaultCodable: Equatable where Provider.Value: Equatable {
    /// Whether the two values are equal.
    /// - Parameters:
    ///   - lhs: A value.
    ///   - rhs: Another value.
    /// - Returns: `lhs.wrappedValue == rhs.wrappedValue`.
    public static func == (lhs: DefaultCodable<Provider>, rhs: DefaultCodable<Provider>) -> Bool {
        lhs.wrappedValue == rhs.wrappedValue
    }
}

/// Hashes the value, as ``DefaultCodable/==(_:_:)`` compares it.
extension DefaultCodable: Hashable where Provider.Value: Hashable {
    /// Feeds the value to `hasher`.
    /// - Parameter hasher: The hasher to use.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(wrappedValue)
    }
}
