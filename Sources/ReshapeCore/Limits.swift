/// The engine's work limits. Going beyond one is an error (`limit_exceeded`, or `invalid_rules` for
/// the rules document), never a crash, an abort or unbounded work: hostile input and hostile rules
/// cost bounded time and memory. docs/limits.md explains each one.
///
/// The defaults are generous for real API responses. Three of them grow with the input, so that a
/// large export needs no tuning: `nil` means "the default for this input". Any limit can be raised
/// (or lowered) per compiled `Rules`.
public struct Limits: Sendable, Hashable {
    /// The deepest nesting of arrays and objects in the input, in the rules document and in the
    /// output: `[[1]]` has depth 2. Default 1000.
    public var maxDepth: Int
    /// The largest rules document, in bytes. Default 1 MiB.
    public var maxRulesBytes: Int
    /// How many values the path of one rule may visit, counting a value once for each way the path
    /// reaches it (RFC 9535 keeps duplicates: `$..*..*` reaches a value once per ancestor). nil: 4
    /// million, or one per byte of input when that is more.
    public var maxSelected: Int?
    /// The largest output, in bytes (indentation included). While rules run, the engine keeps an
    /// upper bound of the output's size (the input's size plus what rules add, each added value
    /// counted as at least 64 bytes) and stops as soon as it passes the limit. nil: 64 MiB, or 16
    /// bytes per byte of input when that is more.
    public var maxOutputBytes: Int?
    /// How much work the rules may do on one document, in steps: one step per value a path visits,
    /// a deep renaming looks at, a member renamed or moved, a value copied or created. nil: 100
    /// million steps, or 100 per byte of input when that is more.
    public var maxWork: Int?

    /// Limits with the given values; each one left out is the default.
    public init(
        maxDepth: Int = Limits.defaultMaxDepth, maxRulesBytes: Int = Limits.defaultMaxRulesBytes,
        maxSelected: Int? = nil, maxOutputBytes: Int? = nil, maxWork: Int? = nil
    ) {
        self.maxDepth = maxDepth
        self.maxRulesBytes = maxRulesBytes
        self.maxSelected = maxSelected
        self.maxOutputBytes = maxOutputBytes
        self.maxWork = maxWork
    }

    /// The default limits.
    public static let `default` = Limits()

    /// The default nesting limit, 1000.
    public static let defaultMaxDepth = 1000
    /// The default rules document limit, 1 MiB.
    public static let defaultMaxRulesBytes = 1 << 20

    /// The limits for one input of `inputBytes` bytes, every nil replaced by its default.
    func resolved(inputBytes: Int) -> ResolvedLimits {
        ResolvedLimits(
            maxDepth: max(1, maxDepth),
            // Records are numbered with 32 bits.
            maxSelected: min(maxSelected ?? max(4_000_000, inputBytes), Int(Int32.max) - 1),
            maxOutputBytes: maxOutputBytes ?? max(64 << 20, inputBytes.multipliedClamped(by: 16)),
            maxWork: maxWork ?? max(100_000_000, inputBytes.multipliedClamped(by: 100)))
    }
}

/// The limits in force for one document.
struct ResolvedLimits {
    let maxDepth: Int
    let maxSelected: Int
    let maxOutputBytes: Int
    let maxWork: Int

    /// The defaults for a document of unknown size (values built in Swift, JSON written from them).
    static let unsized = Limits.default.resolved(inputBytes: 0)
}

extension Int {
    /// `self × factor`, or `Int.max` when that overflows.
    func multipliedClamped(by factor: Int) -> Int {
        let (product, overflow) = multipliedReportingOverflow(by: factor)
        return overflow ? .max : product
    }

    /// `self + other`, or `Int.max` when that overflows.
    func addingClamped(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}

extension ReshapeError {
    /// Nesting beyond `maxDepth`: `limit_exceeded`, or `invalid_rules` in a rules document.
    static func depthLimit(_ maxDepth: Int, output: Bool = false, code: Code = .limitExceeded) -> ReshapeError {
        let what = output ? "the output would nest" : "nesting"
        return ReshapeError(code, "\(what) deeper than \(maxDepth) levels (the depth limit)")
    }

    /// Output beyond `maxOutputBytes`.
    static func outputLimit(_ maxBytes: Int) -> ReshapeError {
        ReshapeError(.limitExceeded, "the output would be larger than \(maxBytes) bytes (the output limit)")
    }

    /// Work beyond `maxWork`.
    static func workLimit(_ maxWork: Int) -> ReshapeError {
        ReshapeError(.limitExceeded, "the rules need more than \(maxWork) steps of work on this document (the work limit)")
    }

    /// A work or output limit: a count over the whole document and all its rules, so no one
    /// rule's error (when rules run record by record, every rule runs on a record before the next
    /// record, and none of them alone reaches the limit).
    package var isDocumentLimit: Bool {
        code == .limitExceeded && (message.hasSuffix("(the work limit)") || message.hasSuffix("(the output limit)"))
    }
}
