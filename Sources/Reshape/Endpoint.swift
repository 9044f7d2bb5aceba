#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An endpoint of an API: what its responses decode as (`Root`), how they are reshaped first
/// (``rules``), and what the caller gets (`Content`, derived by ``content(from:)``).
///
/// Seed 004's `JsonEndpoint` (`Root` and `content(from:)`) and seed 002's `result()`, with the
/// envelope handled by rules where one fits:
///
/// ```swift
/// struct BookListEndpoint: Endpoint {
///     typealias Content = [Book]
///     var rules: [Rule] { [.unwrap("$.book_list")] }
/// }
/// let books = try ResponseDecoder().decode(BookListEndpoint(), from: data, statusCode: 200)
/// ```
public protocol Endpoint {
    /// What the caller gets.
    associatedtype Content
    /// What the reshaped response decodes as; `Content` by default.
    associatedtype Root: Decodable = Content

    /// The rules to apply to every response of this endpoint, before those of `Root` (when it is
    /// ``PayloadTransformable``); none by default.
    var rules: [Rule] { get }

    /// The context to decode this endpoint's responses in, or nil (the default) for the decoder's.
    var context: DecodingContext? { get }

    /// The content of a decoded response; the root itself by default when `Root` is `Content`.
    /// - Parameter root: The decoded response.
    /// - Returns: What the caller gets.
    /// - Throws: Anything; ``ResponseDecoder`` reports it as ``ResponseError/content(type:underlying:)``.
    func content(from root: Root) throws -> Content
}

extension Endpoint {
    /// No rules.
    public var rules: [Rule] { [] }

    /// No context of its own.
    public var context: DecodingContext? { nil }

    /// Decodes a response of this endpoint: checks the status and the body, reshapes, decodes
    /// `Root` and returns its content.
    /// - Parameters:
    ///   - data: The body, or nil when there was none.
    ///   - statusCode: The HTTP status, or nil when there is none to check.
    ///   - decoder: The decoder to use.
    /// - Returns: The content.
    /// - Throws: ``ResponseError``.
    public func decode(
        _ data: Data?, statusCode: Int?, using decoder: ResponseDecoder = ResponseDecoder()
    ) throws(ResponseError) -> Content {
        try decoder.decode(self, from: data, statusCode: statusCode)
    }
}

extension Endpoint where Root == Content {
    /// The root itself.
    /// - Parameter root: The decoded response.
    /// - Returns: `root`.
    public func content(from root: Root) -> Content { root }
}
