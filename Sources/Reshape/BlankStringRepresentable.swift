/// A `String`-backed enum (or other `RawRepresentable` type) whose absence an API may send as `""`
/// instead of `null`: an optional property of this type decodes `""` as nil (seed 003's `Genre`).
///
/// ```swift
/// enum Genre: String, Decodable, BlankStringRepresentable { case thriller, history }
/// struct Book: Decodable { var genre: Genre; var subgenre: Genre? }
/// // {"genre": "thriller", "subgenre": ""}  →  subgenre == nil
/// ```
///
/// Only exactly `""` means nil. Any other string that is not a raw value (`"bogus"`, `" "`) still
/// fails with `DecodingError.dataCorrupted`: an unknown value is news, not absence. A non-optional
/// property still fails on `""`. For white space, arrays, or responses you do not want to annotate,
/// use the rule ``Rule/blankStringToNull(path:trim:)``.
public protocol BlankStringRepresentable: RawRepresentable, Decodable where RawValue == String {}

extension KeyedDecodingContainer {
    /// Decodes an optional ``BlankStringRepresentable`` value: nil when the member is missing,
    /// `null` or `""`; otherwise the value, or the error decoding it throws.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - key: The member's key.
    /// - Returns: The value, or nil.
    /// - Throws: `DecodingError` when the member is neither absent nor a valid value.
    public func decodeIfPresent<T: BlankStringRepresentable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let text = try? decode(String.self, forKey: key), text.isEmpty { return nil }
        return try decode(T.self, forKey: key)
    }
}
