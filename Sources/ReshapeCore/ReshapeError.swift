/// The one error type of Reshape: a stable code, a message, and where it happened.
///
/// Every failure carries enough to act on: the 1-based index and op of the rule that failed,
/// the RFC 9535 normalized path of the value it failed on (`$['users']['-Nx1'][0]`), and for JSON
/// text that cannot be read, the line, column and byte position of the problem; for a read or a
/// write that failed, the system's `errno` and which file it was.
public struct ReshapeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is. The raw values are stable and shared by every binding.
    public enum Code: String, Sendable, CaseIterable {
        /// The input is not valid JSON (syntax, encoding, or a duplicate member name).
        case invalidJSON = "invalid_json"
        /// The rules document is not valid JSON or breaks the rules contract.
        case invalidRules = "invalid_rules"
        /// A rule met a value it cannot reshape.
        case ruleFailed = "rule_failed"
        /// The input goes beyond a documented limit, such as the nesting depth.
        case limitExceeded = "limit_exceeded"
        /// The caller passed an argument the API does not accept.
        case invalidArgument = "invalid_argument"
        /// Memory ran out.
        case outOfMemory = "out_of_memory"
        /// A bug in Reshape. Please report it.
        case `internal` = "internal"
        /// The caller's progress callback asked to stop.
        case cancelled = "cancelled"
        /// A read or a write failed: a file that cannot be opened, read or written (`ENOENT`,
        /// `EACCES`, `EISDIR`, `ENOSPC`, `EIO`, `EFBIG`...), or an input file that changed while
        /// it was read. ``ReshapeError/systemErrno`` and ``ReshapeError/ioFile`` say more.
        case ioError = "io_error"

        /// The status number of this code in the C API (`reshape_status`); never renumbered.
        public var status: Int32 {
            switch self {
            case .invalidJSON: 1
            case .invalidRules: 2
            case .ruleFailed: 3
            case .limitExceeded: 4
            case .invalidArgument: 5
            case .outOfMemory: 6
            case .internal: 7
            case .cancelled: 8
            case .ioError: 10  // 9 is RESHAPE_BUFFER_TOO_SMALL, the C API's own
            }
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong, in one line, without the location (see ``description`` for both).
    public var message: String
    /// The 1-based index of the rule that failed, or 0 when no rule is involved.
    public var rule: Int
    /// The op of the rule that failed (`"keyedToArray"`), or `""` when no rule is involved.
    public var op: String
    /// The RFC 9535 normalized path of the failing value, or `""` when there is none.
    public var path: String
    /// The 1-based line of a problem in JSON text, or 0.
    public var line: Int
    /// The 1-based column (in Unicode scalars) of a problem in JSON text, or 0.
    public var column: Int
    /// The 0-based byte offset of a problem in JSON text, or 0 when `line` is 0.
    public var position: Int
    /// For ``Code/ioError``: the system's `errno` for the read or write that failed (`ENOENT`,
    /// `ENOSPC`...), or 0 when the failure has none (an input file that changed while it was
    /// read). 0 for every other code.
    public var systemErrno: Int32
    /// For ``Code/ioError``: which file failed. ``IOFile/none`` for every other code.
    public var ioFile: IOFile
    /// For ``Code/ruleFailed``: where the failing value was in the input, before the rules
    /// before the failing one moved or renamed it (see ``ValueSource``), with its line, column
    /// and byte position; ``description`` ends with it (`(input: $['-NxA3kq0']['age'], line 1,
    /// column 2211)`) when it is not at ``path`` already. A stream traces its failing record, and
    /// JSON Lines the failing line; a whole tree is traced from the input in memory, a pipe or a
    /// regular file (over 64 MiB, a value of the input only, without its renamings). Nil when not
    /// known (a value a rule made in a document over 64 MiB, tracing past the work limit). Not
    /// compared by `==`: the same failure with or without it is equal.
    public var source: ValueSource? {
        get { sourceBox?.value }
        set { sourceBox = newValue.map(SourceBox.init) }
    }

    /// Whether the failure was traced already, with or without a source found: a stream traces
    /// its failing record, and the input is then not traced again as a whole tree (which would
    /// hold it whole: a stream holds records).
    var wasTraced: Bool { sourceBox != nil }

    /// Sets the source found by tracing the failure, nil when none was, and marks it traced.
    mutating func setTraced(_ found: ValueSource?) {
        sourceBox = SourceBox(found)
    }

    /// The source, boxed: errors are thrown through every frame of the engine, which each make
    /// room for one, so an error stays a few words however much its source holds (a 64 KiB
    /// thread's stack is measured in frames).
    private var sourceBox: SourceBox? = nil

    private final class SourceBox: Sendable {
        let value: ValueSource?
        init(_ value: ValueSource?) { self.value = value }
    }

    /// The file a failed read or write was about (`reshape_error.io_file` in C).
    public enum IOFile: Int32, Sendable, CaseIterable {
        /// Not a failed read or write, or neither file (the rules document, for instance).
        case none = 0
        /// The input: the file or descriptor the document is read from.
        case input = 1
        /// The output: the file or descriptor written, or the temporary file that replaces it.
        case output = 2
    }

    /// Creates an error. Prefer the engine's own errors; this exists for layers above it.
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - message: One line saying what went wrong.
    ///   - rule: The 1-based index of the failing rule, or 0.
    ///   - op: The op of the failing rule, or `""`.
    ///   - path: The normalized path of the failing value, or `""`.
    ///   - line: The 1-based line in JSON text, or 0.
    ///   - column: The 1-based column in JSON text, or 0.
    ///   - position: The 0-based byte offset in JSON text.
    ///   - systemErrno: For `ioError`, the system's `errno`, or 0.
    ///   - ioFile: For `ioError`, which file failed.
    public init(
        _ code: Code, _ message: String, rule: Int = 0, op: String = "", path: String = "",
        line: Int = 0, column: Int = 0, position: Int = 0, systemErrno: Int32 = 0, ioFile: IOFile = .none
    ) {
        self.code = code
        self.message = message
        self.rule = rule
        self.op = op
        self.path = path
        self.line = line
        self.column = column
        self.position = position
        self.systemErrno = systemErrno
        self.ioFile = ioFile
    }

    /// The error as one line: code, rule, path, line and column, then the message.
    ///
    /// `rule_failed: rule 2 (keyedToArray) at $['users']['u1']: expected an object, found a string`.
    /// The CLI prints exactly this after `reshape: `; the C and Python bindings carry it as their message.
    ///
    /// Safe to print or log: no control or bidirectional formatting characters (they are escaped),
    /// an op that is not a known one is quoted, and long names and paths are shortened with `…`
    /// (``path`` keeps the whole path).
    public var description: String {
        var location = ""
        if rule > 0 {
            // An op the rules document made up is shown as it is only when that is safe and short.
            let plain = op.unicodeScalars.count <= 40 && !op.unicodeScalars.contains(where: MessageText.isUnsafe)
            let shownOp = plain ? op : quoted(op, limit: 40)
            location = "rule \(rule) (\(shownOp))"
        }
        if !path.isEmpty {
            let shownPath = MessageText.path(path)
            location += location.isEmpty ? "at \(shownPath)" : " at \(shownPath)"
        }
        if line > 0 {
            // A JSON Lines error outside the text of its line names the line alone.
            location += (location.isEmpty ? "" : ", ") + (column > 0 ? "line \(line), column \(column)" : "line \(line)")
        }
        let text = MessageText.line(message) + (source?.suffix(after: path) ?? "")
        return location.isEmpty ? "\(code.rawValue): \(text)" : "\(code.rawValue): \(location): \(text)"
    }

    /// Equal when every field but ``source`` is.
    public static func == (lhs: ReshapeError, rhs: ReshapeError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.rule == rhs.rule && lhs.op == rhs.op && lhs.path == rhs.path
            && lhs.line == rhs.line && lhs.column == rhs.column && lhs.position == rhs.position
            && lhs.systemErrno == rhs.systemErrno && lhs.ioFile == rhs.ioFile
    }
}

extension ReshapeError {
    static func outOfMemory() -> ReshapeError {
        ReshapeError(.outOfMemory, "out of memory")
    }

    /// The same error, attributed to a rule; the work and output limits, which count the whole
    /// document, are no one rule's (see `Limits`).
    func inRule(_ index: Int, _ op: String) -> ReshapeError {
        var copy = self
        if copy.rule == 0 && !isDocumentLimit {
            copy.rule = index
            copy.op = op
        }
        return copy
    }
}
