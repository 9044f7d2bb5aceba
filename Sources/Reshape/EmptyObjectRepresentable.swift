/// A `Decodable` type whose absence an API may send as `{}` instead of `null`: an optional
/// property of this type decodes `{}` as nil (seed 003's `BookCover`).
///
/// ```swift
/// struct BookCover: Decodable, EmptyObjectRepresentable { var text: String; var image: String? }
/// struct Book: Decodable { var title: String; var frontCover: BookCover? }
/// // {"title": "Blah", "frontCover": {}}  →  frontCover == nil
/// ```
///
/// It works for synthesized `init(from:)`, through the `decodeIfPresent` overload below, so only
/// optional properties are affected: a non-optional `BookCover` property still fails on `{}`, as
/// does a `{}` that is an element of an array. For those, and for responses you do not want to
/// annotate, use the rule ``Rule/emptyObjectToNull``.
public protocol EmptyObjectRepresentable: Decodable {}

extension KeyedDecodingContainer {
    /// Decodes an optional ``EmptyObjectRepresentable`` value: nil when the member is missing,
    /// `null` or `{}`; otherwise the value, or the error decoding it throws.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - key: The member's key.
    /// - Returns: The value, or nil.
    /// - Throws: `DecodingError` when the member is neither absent nor a valid value.
    public func decodeIfPresent<T: EmptyObjectRepresentable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let members = try? nestedContainer(keyedBy: AnyCodingKey.self, forKey: key), members.allKeys.isEmpty {
            return nil
        }
        return try decode(T.self, forKey: key)
    }

    /// Decodes an optional value that is both ``EmptyObjectRepresentable`` and
    /// ``BlankStringRepresentable``: nil when the member is missing, `null`, `{}` or `""`.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - key: The member's key.
    /// - Returns: The value, or nil.
    /// - Throws: `DecodingError` when the member is neither absent nor a valid value.
    public func decodeIfPresent<T: EmptyObjectRepresentable & BlankStringRepresentable>(
        _ type: T.Type, forKey key: Key
    ) throws -> T? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let members = try? nestedContainer(keyedBy: AnyCodingKey.self, forKey: key), members.allKeys.isEmpty {
            return nil
        }
        if let text = try? decode(String.self, forKey: key), text.isEmpty { return nil }
        return try decode(T.self, forKey: key)
    }
}
