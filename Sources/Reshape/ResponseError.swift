#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReshapeCore

/// Why a response could not be decoded (or a body encoded): the one error type of the `Reshape`
/// module.
///
/// Each case says where: the HTTP status and body, the engine's ``ReshapeCore/ReshapeError`` (code,
/// rule, op, normalized path, line and column), or the normalized path into the reshaped document
/// of the value that failed to decode.
///
/// ```swift
/// do {
///     let users = try decoder.decode([User].self, from: data)
/// } catch .decoding(let path, let message, _) {
///     print("at \(path): \(message)")      // at $[3]['email']: expected String, found null
/// } catch {
///     print(error)
/// }
/// ```
public enum ResponseError: Error, CustomStringConvertible {
    /// The HTTP status is outside `200..<300`; the body is kept, since APIs explain errors there.
    case httpStatus(Int, body: Data)
    /// There was no data at all (`nil`).
    case noData
    /// The body is empty or only white space.
    case emptyBody
    /// The engine could not reshape the body: invalid JSON, invalid rules or a rule that failed,
    /// with its code, rule, op, path and position. Rules are numbered in the order they ran:
    /// the decoder's, then the endpoint's, then the type's.
    case reshape(ReshapeError)
    /// A ``PayloadTransformable/transform`` threw, or returned a value JSON cannot hold.
    /// - `type`: the type whose transform failed.
    case transform(type: String, underlying: any Error)
    /// The reshaped document does not decode as the type.
    /// - `path`: the RFC 9535 normalized path, into the reshaped document, of the value that
    ///   failed (`$['objects'][3]['status']`); for a missing member, of the object that lacks it.
    ///   Member names are the JSON's own, even with a key decoding strategy, wherever the
    ///   document shows which member a key came from.
    /// - `message`: what went wrong, in one line (`expected String, found null`).
    /// - `underlying`: the error thrown, usually a `DecodingError`.
    case decoding(path: String, message: String, underlying: any Error)
    /// An ``Endpoint``'s `content(from:)` threw.
    /// - `type`: the endpoint's type.
    case content(type: String, underlying: any Error)
    /// ``ResponseEncoder`` could not encode a value: `JSONEncoder` threw.
    /// - `path`: the normalized path of the value in the document being written
    ///   (`$[2]['score']`), as the encoder reported it.
    /// - `message`: what went wrong, in one line.
    /// - `underlying`: the error thrown, usually an `EncodingError`.
    case encoding(path: String, message: String, underlying: any Error)

    /// The HTTP status, for ``httpStatus(_:body:)``.
    public var statusCode: Int? {
        if case .httpStatus(let code, _) = self { return code }
        return nil
    }

    /// The normalized path of the failing value, for ``reshape(_:)`` (when the engine gave one),
    /// ``decoding(path:message:underlying:)`` and ``encoding(path:message:underlying:)``.
    public var path: String? {
        switch self {
        case .reshape(let error): error.path.isEmpty ? nil : error.path
        case .decoding(let path, _, _), .encoding(let path, _, _): path
        default: nil
        }
    }

    /// For ``reshape(_:)`` when a rule failed: where the failing value was in the body before the
    /// rules before it moved or renamed it (``ReshapeCore/ReshapeError/source``). A
    /// ``decoding(path:message:underlying:)`` error names it at the end of its message, traced
    /// through the rules (its cases keep their shape, so this is nil for it:
    /// `rules.source(of: path, in: body)` gives it as a value).
    public var source: ValueSource? {
        if case .reshape(let error) = self { return error.source }
        return nil
    }

    /// The error in one line:
    /// `decoding failed at $['objects'][3]['status']: expected String, found null`.
    ///
    /// Safe to print and log, as the engine's messages are: control, line-separator and bidi
    /// characters (from a response body, a key, an underlying error) are escaped, and a long path is
    /// shortened with `…` (``path`` keeps it whole).
    public var description: String {
        MessageText.line(unescapedDescription)
    }

    private var unescapedDescription: String {
        switch self {
        case .httpStatus(let code, let body):
            let text = String(decoding: body.prefix(200), as: UTF8.self)
            return body.isEmpty ? "HTTP status \(code), empty body" : "HTTP status \(code): \(text)\(body.count > 200 ? "…" : "")"
        case .noData:
            return "no data"
        case .emptyBody:
            return "empty body"
        case .reshape(let error):
            return "reshape failed: \(error)"
        case .transform(let type, let underlying):
            return "transform of \(type) failed: \(underlying)"
        case .decoding(let path, let message, _):
            return path.isEmpty ? "decoding failed: \(message)" : "decoding failed at \(MessageText.path(path)): \(message)"
        case .content(let type, let underlying):
            return "content(from:) of \(type) failed: \(underlying)"
        case .encoding(let path, let message, _):
            return "encoding failed at \(MessageText.path(path)): \(message)"
        }
    }
}

extension ResponseError: LocalizedError {
    /// The one-line ``description``, so that `error.localizedDescription` (what most apps print
    /// or show) says what went wrong instead of "The operation could not be completed".
    public var errorDescription: String? { description }
}
