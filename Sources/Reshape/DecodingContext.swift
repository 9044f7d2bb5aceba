#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What is being decoded, for types and transforms whose shape depends on the endpoint or the
/// API version: a response type name and free-form values.
///
/// ``ResponseDecoder`` hands it to ``PayloadTransformable/rules(for:)`` and to
/// ``PayloadTransformable/transform`` and puts it in the decoder's `userInfo`, where
/// `init(from:)` reads it as `decoder.decodingContext`. With a plain `JSONDecoder`, use
/// `JSONDecoder(context:)`.
///
/// ```swift
/// let decoder = ResponseDecoder(context: DecodingContext(responseType: "v1.book"))
/// ```
public struct DecodingContext: Sendable {
    /// The kind of response being decoded (`"v1.book"`, `"search"`...). ``ResponseDecoder`` uses
    /// the decoded type's name when no context is given.
    public var responseType: String
    /// Free-form values: API version, locale, feature flags...
    ///
    /// The type is `[String: any Sendable]`, so a value comes back as `any Sendable`: cast it to
    /// read it, with ``value(_:as:)`` (`context.value("locale", as: String.self)`) or `as?`
    /// (`context.values["locale"] as? String`).
    public var values: [String: any Sendable]

    /// Creates a context.
    /// - Parameters:
    ///   - responseType: The kind of response being decoded.
    ///   - values: Free-form values for the types and transforms that look at them.
    public init(responseType: String, values: [String: any Sendable] = [:]) {
        self.responseType = responseType
        self.values = values
    }

    /// The value stored under `key` when it has type `T`, or nil.
    /// - Parameters:
    ///   - key: The name of the value.
    ///   - type: The type to read it as.
    /// - Returns: The value, or nil when it is missing or has another type.
    public func value<T>(_ key: String, as type: T.Type = T.self) -> T? {
        values[key] as? T
    }
}

extension CodingUserInfoKey {
    /// Where a ``DecodingContext`` travels in a decoder's `userInfo`.
    // `init(rawValue:)` is failable in signature only: it accepts every string, and this one is a
    // constant, so no input can reach the unwrap.
    public static let decodingContext = CodingUserInfoKey(rawValue: "reshape.decodingContext")!

    /// Where ``ResponseDecoder`` puts the sink that collects dropped elements of ``LossyArray``s.
    static let decodingDiagnostics = CodingUserInfoKey(rawValue: "reshape.decodingDiagnostics")!
}

extension Decoder {
    /// The ``DecodingContext`` of this decoding, if the decoder was given one.
    public var decodingContext: DecodingContext? {
        userInfo[.decodingContext] as? DecodingContext
    }
}

extension JSONDecoder {
    /// Creates a decoder that carries `context` to every `init(from:)`
    /// (as ``Swift/Decoder/decodingContext``).
    /// - Parameter context: What is being decoded.
    public convenience init(context: DecodingContext) {
        self.init()
        userInfo[.decodingContext] = context
    }
}
