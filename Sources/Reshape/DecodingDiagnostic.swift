import ReshapeCore

/// A note about something decoding let through instead of failing: a value a lenient type dropped
/// or replaced (``LossyArray``, ``LossyDictionary``, ``LossyOptional``, ``DefaultCodable`` and its
/// aliases, ``UnknownCaseRepresentable``), where it was, and why.
public struct DecodingDiagnostic: Sendable, CustomStringConvertible {
    /// What a lenient type did with a value.
    ///
    /// A struct rather than an enum, so that a later lenient type can add a kind without breaking
    /// a `switch`: compare with `==` (`diagnostic.kind == .usedDefault`).
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The kind's name: `"droppedElement"`.
        public let rawValue: String

        /// Creates a kind from its name.
        /// - Parameter rawValue: The name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// A ``LossyArray`` dropped an element that failed to decode.
        public static let droppedElement = Kind(rawValue: "droppedElement")
        /// A ``LossyDictionary`` dropped an entry whose key or value failed to decode.
        public static let droppedEntry = Kind(rawValue: "droppedEntry")
        /// A ``LossyOptional`` is nil because its value failed to decode.
        public static let droppedValue = Kind(rawValue: "droppedValue")
        /// A ``DefaultCodable`` property (``DefaultFalse``, ``DefaultEmptyArray``...) took its default
        /// because its member was missing, `null` or failed to decode.
        public static let usedDefault = Kind(rawValue: "usedDefault")
        /// An ``UnknownCaseRepresentable`` enum met a raw value that is none of its cases and
        /// decoded as its ``UnknownCaseRepresentable/unknownCase``.
        public static let unknownCase = Kind(rawValue: "unknownCase")

        /// The kind's name.
        public var description: String { rawValue }
    }

    /// What was done with the value.
    public let kind: Kind
    /// The normalized path of the value dropped or replaced: `$['objects'][3]`. For a missing
    /// member, the path it would have had.
    public let path: String
    /// For ``Kind-swift.struct/droppedElement``, the position of the element in its array (in the
    /// JSON, before any drop); -1 for the other kinds, whose ``path`` says where the value was.
    public let index: Int
    /// For ``Kind-swift.struct/droppedEntry``, the member name of the entry; nil otherwise.
    public let key: String?
    /// The normalized path of the value that failed to decode, inside the dropped or replaced value
    /// or that value itself: `$['objects'][3]['status']`. For a missing member, the object that
    /// lacks it.
    public let errorPath: String
    /// Why, in one line: `expected String, found null`, `no member "tags"`.
    public let reason: String
    /// The error decoding threw, or would have thrown (for a missing member, `null` or an unknown
    /// case, the `DecodingError` a strict type gets).
    public let error: any Error
    /// Where the value at ``errorPath`` was in the body, before the rules moved or renamed it (see
    /// docs/trace.md): set on the diagnostics ``ResponseDecoder/decodeWithDiagnostics(_:from:)``
    /// lists when rules ran (and no transform), nil otherwise. ``description`` ends with it when
    /// it is not at ``errorPath`` already.
    public internal(set) var source: ValueSource? = nil

    /// Creates a diagnostic of an element a ``LossyArray`` dropped.
    /// - Parameters:
    ///   - path: The normalized path of the dropped element.
    ///   - index: Its position in its array.
    ///   - errorPath: The normalized path of the value that failed to decode.
    ///   - reason: Why, in one line.
    ///   - error: The error decoding threw.
    public init(path: String, index: Int, errorPath: String, reason: String, error: any Error) {
        self.init(kind: .droppedElement, path: path, index: index, key: nil, errorPath: errorPath, reason: reason, error: error)
    }

    /// Creates a diagnostic of any kind.
    /// - Parameters:
    ///   - kind: What was done with the value.
    ///   - path: The normalized path of the value.
    ///   - index: For a dropped element, its position in its array; otherwise -1.
    ///   - key: For a dropped dictionary entry, its member name; otherwise nil.
    ///   - errorPath: The normalized path of the value that failed to decode.
    ///   - reason: Why, in one line.
    ///   - error: The error decoding threw or would have thrown.
    public init(kind: Kind, path: String, index: Int = -1, key: String? = nil, errorPath: String, reason: String, error: any Error) {
        self.kind = kind
        self.path = path
        self.index = index
        self.key = key
        self.errorPath = errorPath
        self.reason = reason
        self.error = error
    }

    /// One line: `dropped $['objects'][3]: at $['objects'][3]['status']: expected String, found null`.
    ///
    /// The verb says the kind: `dropped` (an element or an entry), `nil for` (a ``LossyOptional``),
    /// `default for` (a ``DefaultCodable``), `unknown case for` (an ``UnknownCaseRepresentable``).
    public var description: String {
        let verb: String
        switch kind {
        case .droppedValue: verb = "nil for"
        case .usedDefault: verb = "default for"
        case .unknownCase: verb = "unknown case for"
        default: verb = "dropped"
        }
        return "\(verb) \(path): at \(errorPath): \(reason)\(source?.suffix(after: errorPath) ?? "")"
    }
}

/// One value a lenient type let through, as it happened, before its location is resolved against
/// the document.
struct DroppedElement: Sendable {
    let kind: DecodingDiagnostic.Kind
    /// The coding path of the value itself (for an element, the array's path and its index key).
    let codingPath: [any CodingKey]
    let index: Int
    let key: String?
    let error: any Error

    init(kind: DecodingDiagnostic.Kind = .droppedElement, codingPath: [any CodingKey], index: Int = -1, key: String? = nil, error: any Error) {
        self.kind = kind
        self.codingPath = codingPath
        self.index = index
        self.key = key
        self.error = error
    }

    /// The diagnostic, with locations resolved by `resolver`.
    func diagnostic(_ resolver: CodingPathResolver) -> DecodingDiagnostic {
        let path = resolver.resolve(codingPath).path
        let (errorPath, reason): (String, String)
        if let decodingError = error as? DecodingError {
            (errorPath, reason) = resolver.report(decodingError)
        } else {
            (errorPath, reason) = (path, "\(error)")
        }
        return DecodingDiagnostic(kind: kind, path: path, index: index, key: key, errorPath: errorPath, reason: reason, error: error)
    }

    /// Records this in the decoding's sink (when there is one) and returns the diagnostic the
    /// lenient value keeps, resolved against `found`, the value as it stood (read back from the
    /// decoder when it could be), whose coding path is `codingPath`.
    func record(in decoder: any Decoder, found: JSONValue?) -> DecodingDiagnostic {
        (decoder.userInfo[.decodingDiagnostics] as? DiagnosticSink)?.record(self)
        return diagnostic(CodingPathResolver(document: found, keyStrategy: nil, depth: codingPath.count))
    }
}

/// Collects the values lenient types let through in one decoding; ``ResponseDecoder`` puts one in
/// the `userInfo` of each decoding.
///
/// `@unchecked Sendable`: it is created for one `decode` call, reachable only through that call's
/// decoder, and decoding runs every `init(from:)` on the calling thread; `userInfo` merely
/// requires `Sendable` values.
final class DiagnosticSink: @unchecked Sendable {
    private(set) var dropped: [DroppedElement] = []

    func record(_ element: DroppedElement) {
        dropped.append(element)
    }
}
