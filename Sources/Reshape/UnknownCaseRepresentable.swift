import ReshapeCore

/// An enum that decodes a raw value it does not know as a fallback case instead of failing, and
/// says so: a ``DecodingDiagnostic`` of kind ``DecodingDiagnostic/Kind-swift.struct/unknownCase`` in
/// ``ResponseDecoder/decodeWithDiagnostics(_:from:)``'s list.
///
/// APIs add cases; an app built against last year's list should not lose the whole response:
///
/// ```swift
/// enum Plan: String, Codable, UnknownCaseRepresentable {
///     case free, pro, unknown
///     static let unknownCase = Plan.unknown
/// }
/// ```
///
/// Only a raw value that is none of the cases falls back: a value of the wrong type (a number
/// for a `String` enum) or `null` for a non-optional property still fails, since that is not a
/// case the API added.
public protocol UnknownCaseRepresentable: RawRepresentable, Decodable where RawValue: Decodable {
    /// The case for raw values that are none of the others.
    static var unknownCase: Self { get }
}

extension UnknownCaseRepresentable {
    /// Decodes the raw value, falling back to ``unknownCase`` when it is none of the cases.
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` when the value is not a `RawValue` at all.
    public init(from decoder: any Decoder) throws {
        self = try Self.decodingUnknown(from: decoder)
    }
}

// The standard library gives `RawRepresentable` enums with these raw types their own
// `init(from:)`; these say that the fallback is the one to use.
extension UnknownCaseRepresentable where RawValue == String {
    /// Decodes the raw value, falling back to ``UnknownCaseRepresentable/unknownCase``.
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` when the value is not a string.
    public init(from decoder: any Decoder) throws {
        self = try Self.decodingUnknown(from: decoder)
    }
}

extension UnknownCaseRepresentable where RawValue == Int {
    /// Decodes the raw value, falling back to ``UnknownCaseRepresentable/unknownCase``.
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` when the value is not an integer.
    public init(from decoder: any Decoder) throws {
        self = try Self.decodingUnknown(from: decoder)
    }
}

extension UnknownCaseRepresentable {
    fileprivate static func decodingUnknown(from decoder: any Decoder) throws -> Self {
        let raw = try decoder.singleValueContainer().decode(RawValue.self)
        if let known = Self(rawValue: raw) { return known }
        let found = RawValue.self == String.self ? "a string" : "a number"
        let error = DecodingMessage.corrupted("expected \(Self.self), found \(found) that is none of its raw values", at: decoder.codingPath)
        _ = DroppedElement(kind: .unknownCase, codingPath: decoder.codingPath, error: error).record(in: decoder, found: nil)
        return unknownCase
    }
}
