#if !os(WASI)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ResponseDecoder {
    /// Decodes the body of an HTTP response as `type`, checking the response first as
    /// ``decode(_:from:statusCode:)`` does for an endpoint.
    ///
    /// In order: a status outside `200..<300` is ``ResponseError/httpStatus(_:body:)`` (body kept,
    /// since APIs explain errors there); an empty or white-space body is ``ResponseError/emptyBody``;
    /// then the body decodes as ``decode(_:from:)-(_,Data)``. A response that is not an
    /// `HTTPURLResponse` (a `file:` URL) or no response at all has no status to check.
    ///
    /// ```swift
    /// let (data, response) = try await URLSession.shared.data(from: url)
    /// let users = try decoder.decode([User].self, from: data, response: response)
    /// ```
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The body.
    ///   - response: The response the body came with, or nil.
    /// - Returns: The decoded value.
    /// - Throws: ``ResponseError``.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data, response: URLResponse?) throws(ResponseError) -> T {
        if let statusCode = (response as? HTTPURLResponse)?.statusCode, !(200..<300).contains(statusCode) {
            throw .httpStatus(statusCode, body: data)
        }
        guard data.contains(where: { !Self.isWhiteSpace($0) }) else { throw .emptyBody }
        return try decode(type, from: data)
    }

    /// Decodes the response of an endpoint: ``decode(_:from:statusCode:)`` with the status of
    /// `response` when it is an `HTTPURLResponse`.
    /// - Parameters:
    ///   - endpoint: The endpoint the response came from.
    ///   - data: The body, or nil when there was none.
    ///   - response: The response, or nil.
    /// - Returns: The endpoint's content.
    /// - Throws: ``ResponseError``.
    public func decode<E: Endpoint>(_ endpoint: E, from data: Data?, response: URLResponse?) throws(ResponseError) -> E.Content {
        try decode(endpoint, from: data, statusCode: (response as? HTTPURLResponse)?.statusCode)
    }
}
#endif
