#if !os(WASI)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetch and decode in one call. On Linux these come with FoundationNetworking, as `URLSession` does.
///
/// Errors: a transport failure is the `URLError` `URLSession` threw, unchanged (so that
/// `.notConnectedToInternet`, `.timedOut` and cancellation can be told apart as usual); everything
/// after the response arrived is a ``ResponseError``: the status, an empty body, the engine, the
/// decoding. The calls are `async` and cancellable as `URLSession.data(for:)` is.
extension URLSession {
    /// Fetches `url` and decodes the response as `type`.
    ///
    /// ```swift
    /// let decoder = try ResponseDecoder(rules: [.keyedToArray(idKey: "id")])
    /// let users = try await URLSession.shared.decode([User].self, from: url, using: decoder)
    /// ```
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - url: What to fetch, with a `GET`.
    ///   - decoder: The decoder to use.
    /// - Returns: The decoded value.
    /// - Throws: `URLError` when the request fails; ``ResponseError`` (see
    ///   ``ResponseDecoder/decode(_:from:response:)``) when the response does not decode.
    public func decode<T: Decodable>(
        _ type: T.Type, from url: URL, using decoder: ResponseDecoder = ResponseDecoder()
    ) async throws -> T {
        try await decode(type, for: URLRequest(url: url), using: decoder)
    }

    /// Sends `request` and decodes the response as `type`.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - request: The request, sent as it is.
    ///   - decoder: The decoder to use.
    /// - Returns: The decoded value.
    /// - Throws: `URLError` when the request fails; ``ResponseError`` when the response does not
    ///   decode.
    public func decode<T: Decodable>(
        _ type: T.Type, for request: URLRequest, using decoder: ResponseDecoder = ResponseDecoder()
    ) async throws -> T {
        let (data, response) = try await data(for: request)
        return try decoder.decode(type, from: data, response: response)
    }

    /// Sends `request` and decodes the response as `endpoint`'s content.
    ///
    /// ```swift
    /// let books = try await URLSession.shared.decode(BookListEndpoint(), for: URLRequest(url: url))
    /// ```
    /// - Parameters:
    ///   - endpoint: The endpoint: its rules, root type and content.
    ///   - request: The request, sent as it is.
    ///   - decoder: The decoder to use.
    /// - Returns: The endpoint's content.
    /// - Throws: `URLError` when the request fails; ``ResponseError`` when the response does not
    ///   decode.
    public func decode<E: Endpoint>(
        _ endpoint: E, for request: URLRequest, using decoder: ResponseDecoder = ResponseDecoder()
    ) async throws -> E.Content {
        let (data, response) = try await data(for: request)
        return try decoder.decode(endpoint, from: data, response: response)
    }
}
#endif
