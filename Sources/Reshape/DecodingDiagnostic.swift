/// A note about something decoding let through instead of failing: an element a ``LossyArray``
/// dropped, where it was, and why.
public struct DecodingDiagnostic: Sendable, CustomStringConvertible {
    /// The normalized path of the dropped element: `$['objects'][3]`.
    public let path: String
    /// The position of the dropped element in its array (in the JSON, before any drop).
    public let index: Int
    /// The normalized path of the value that failed to decode, inside the element or the element
    /// itself: `$['objects'][3]['status']`.
    public let errorPath: String
    /// Why the element failed, in one line: `expected String, found null`.
    public let reason: String
    /// The error that decoding the element threw.
    public let error: any Error

    /// Creates a diagnostic.
    /// - Parameters:
    ///   - path: The normalized path of the dropped element.
    ///   - index: Its position in its array.
    ///   - errorPath: The normalized path of the value that failed to decode.
    ///   - reason: Why, in one line.
    ///   - error: The error decoding threw.
    public init(path: String, index: Int, errorPath: String, reason: String, error: any Error) {
        self.path = path
        self.index = index
        self.errorPath = errorPath
        self.reason = reason
        self.error = error
    }

    /// `dropped $['objects'][3]: at $['objects'][3]['status']: expected String, found null`.
    public var description: String {
        "dropped \(path): at \(errorPath): \(reason)"
    }
}

/// One dropped element as it happened, before its location is resolved against the document.
struct DroppedElement: Sendable {
    /// The coding path of the element itself (the array's path and the element's index key).
    let codingPath: [any CodingKey]
    let index: Int
    let error: any Error

    /// The diagnostic, with locations resolved by `resolver`.
    func diagnostic(_ resolver: CodingPathResolver) -> DecodingDiagnostic {
        let path = resolver.resolve(codingPath).path
        let (errorPath, reason): (String, String)
        if let decodingError = error as? DecodingError {
            (errorPath, reason) = resolver.report(decodingError)
        } else {
            (errorPath, reason) = (path, "\(error)")
        }
        return DecodingDiagnostic(path: path, index: index, errorPath: errorPath, reason: reason, error: error)
    }
}

/// Collects the dropped elements of one decoding; ``ResponseDecoder`` puts one in the `userInfo` of
/// the `JSONDecoder` it makes for each call.
///
/// `@unchecked Sendable`: it is created for one `decode` call, reachable only through the
/// `JSONDecoder` made for that call, and `JSONDecoder.decode` runs every `init(from:)` on the
/// calling thread; `userInfo` merely requires `Sendable` values.
final class DiagnosticSink: @unchecked Sendable {
    private(set) var dropped: [DroppedElement] = []

    func record(_ element: DroppedElement) {
        dropped.append(element)
    }
}
