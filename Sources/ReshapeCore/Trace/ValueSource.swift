/// Where a value of a rule list's output came from (not named `SourceLocation`, which Swift Testing
/// declares: a test file importing both would have to qualify it).
/// Where a value of a rule list's output was in the input, or what made it.
///
/// A value the rules moved (or left alone) has the normalized path it had in the input and the
/// line, column and byte position where it starts there. A value a rule put in place of another
/// (`coerce`, `mapValues`, `emptyObjectToNull`...) has the place of the value it replaced, and the
/// rule. A value a rule added (`default`, a container `wrap` or `pluck` makes) has no place in the
/// input, only the rule; the id `keyedToArray` adds is the member name of its record, whose place
/// it has. The member names the value was renamed from on the way are listed too.
public struct ValueSource: Sendable, Equatable, CustomStringConvertible {
    /// How the value came to be where it is.
    public enum Origin: String, Sendable, CaseIterable {
        /// The input's value, moved or not.
        case input
        /// A rule's value in place of the input's value at ``ValueSource/path``.
        case replaced
        /// A rule's value with no counterpart in the input.
        case added
        /// The member name of the input's value at ``ValueSource/path``, made a value by a rule.
        case memberName
        /// A rule's new object or array holding the members or elements of the input's value at
        /// ``ValueSource/path`` (a record `keyedToArray` makes, with the id in front).
        case rebuilt
    }

    /// One renaming of the member holding the value.
    public struct Rename: Sendable, Equatable {
        /// The 1-based rule that renamed it.
        public var rule: Int
        /// That rule's op (`"convertKeys"`).
        public var op: String
        /// The name before it.
        public var from: String
        /// The name after it.
        public var to: String

        /// Creates a renaming.
        public init(rule: Int, op: String, from: String, to: String) {
            self.rule = rule
            self.op = op
            self.from = from
            self.to = to
        }
    }

    /// How the value came to be where it is.
    public var origin: Origin
    /// The RFC 9535 normalized path in the input of the value (of the value replaced, of the
    /// value whose member name it is); `""` for ``Origin/added``.
    public var path: String
    /// 1-based line in the input where that value (or member name) starts; 0 for ``Origin/added``.
    public var line: Int
    /// 1-based column, in Unicode scalars; 0 for ``Origin/added``.
    public var column: Int
    /// 0-based byte offset; 0 for ``Origin/added``.
    public var position: Int
    /// The 1-based rule that made the value, for every origin but ``Origin/input``; else 0.
    public var rule: Int
    /// That rule's op, or `""`.
    public var op: String
    /// The renamings of the member holding the value, in the order the rules made them.
    public var renames: [Rename]

    /// Creates a location.
    public init(
        origin: Origin, path: String, line: Int, column: Int, position: Int, rule: Int = 0, op: String = "", renames: [Rename] = []
    ) {
        self.origin = origin
        self.path = path
        self.line = line
        self.column = column
        self.position = position
        self.rule = rule
        self.op = op
        self.renames = renames
    }

    /// One line: `$['-NxA3kq0']['age'], line 1, column 2211`, `added by rule 3 (default)`,
    /// `the member name of $['-NxA3kq0'], line 1, column 2, by rule 1 (keyedToArray)`, then
    /// `, renamed by rule 2 (convertKeys) from "created_at"` for each renaming. Paths and names are
    /// escaped as every message is.
    public var description: String {
        var text: String
        let place = "\(MessageText.path(path)), line \(line), column \(column)"
        switch origin {
        case .input: text = place
        case .replaced: text = "\(place), replaced by rule \(rule) (\(op))"
        case .added: text = "added by rule \(rule) (\(op))"
        case .memberName: text = "the member name of \(place), by rule \(rule) (\(op))"
        case .rebuilt: text = "\(place), rebuilt by rule \(rule) (\(op))"
        }
        for rename in renames {
            text += ", renamed by rule \(rename.rule) (\(rename.op)) from \(quoted(rename.from))"
        }
        return text
    }

    /// What error messages end with: `(input: $['-NxA3kq0']['age'], line 1, column 2211)`.
    public var suffix: String { "(input: \(description))" }

    /// What a message naming the value at `path` (after the rules) ends with: `" " + suffix`
    /// when the rules moved, renamed or made the value, and `""` when it is the input's value at
    /// that very path.
    public func suffix(after path: String) -> String {
        origin == .input && self.path == path && renames.isEmpty ? "" : " \(suffix)"
    }
}

extension Rules {
    /// Where the value at `path` (a singular path, normally a normalized path) of these rules'
    /// output for `input` was in `input`, or what made it. Reshapes `input` once more as a whole
    /// tree, following every value (see ``ValueSource``); costs a walk of the document per rule,
    /// counted against the work limit.
    /// - Throws: the error reshaping `input` gives; `invalid_argument` when `path` is not a
    ///   singular path or selects nothing in the output.
    public func source(of path: String, in input: [UInt8], options: ApplyOptions = []) throws(ReshapeError) -> ValueSource {
        try sources(of: [path], in: input, options: options)[0]
    }

    /// The sources of several values of the output, in the order of `paths`, from one trace.
    /// See ``source(of:in:options:)``.
    public func sources(of paths: [String], in input: [UInt8], options: ApplyOptions = []) throws(ReshapeError) -> [ValueSource] {
        try options.validate()
        guard !options.contains(.inputLines) else {
            throw ReshapeError(.invalidArgument, "tracing takes one JSON document, not JSON Lines")
        }
        let traced = TraceThread.run {
            input.withUnsafeBytes { bytes in
                Result { () throws(ReshapeError) -> [ValueSource] in
                    let tracer = try SourceTracer(rules: self, input: bytes, options: options)
                    try tracer.run(rules: operations.count)
                    var found: [ValueSource] = []
                    for path in paths { found.append(try tracer.source(of: path)) }
                    return found
                }
            }
        }
        guard let traced else { throw ReshapeError(.outOfMemory, "no thread to trace on") }
        return try traced.get()
    }

    /// `error`, a failure of these rules on `input`; a rule's failure with the source of its
    /// value (``ReshapeError/source``), traced only then.
    @inline(never)  // Out of the way of the reshaping it follows, whose frames a small stack counts.
    func traced(_ error: ReshapeError, in input: UnsafeRawBufferPointer, options: ApplyOptions) -> ReshapeError {
        guard error.code == .ruleFailed, !error.wasTraced else { return error }
        var traced = error
        traced.setTraced(sourceOfFailure(error, in: input, options: options))
        return traced
    }

    /// The source of the value a rule failed on, for an error of these rules on `input`: nil for
    /// other errors, or when the trace cannot be made within the limits. Input over
    /// `wholeTraceLimit` bytes is traced by `PositionTracer` (the input's values only, without
    /// their renamings), which takes far less memory than following every value.
    @inline(never)
    func sourceOfFailure(
        _ error: ReshapeError, in input: UnsafeRawBufferPointer, options: ApplyOptions, wholeTraceLimit: Int = Rules.traceFileLimit
    ) -> ValueSource? {
        guard error.code == .ruleFailed, error.rule > 0, !error.path.isEmpty, !options.contains(.inputLines) else { return nil }
        if input.count > wholeTraceLimit { return PositionTracer.source(of: error, rules: self, input: input, options: options) }
        return TraceThread.run { () -> ValueSource? in
            guard let tracer = try? SourceTracer(rules: self, input: input, options: options),
                (try? tracer.run(rules: error.rule - 1)) != nil
            else { return nil }
            return try? tracer.source(of: error.path)
        } ?? nil
    }
}

extension ValueSource {
    /// The location as a JSON object, members in this order: `origin`, `path`, `line`, `column`,
    /// `position`, `rule`, `op`, `renames` (objects of `rule`, `op`, `from`, `to`), `description`.
    public var json: JSONValue {
        [
            "origin": .string(origin.rawValue), "path": .string(path), "line": .integer(Int64(line)),
            "column": .integer(Int64(column)), "position": .integer(Int64(position)), "rule": .integer(Int64(rule)),
            "op": .string(op),
            "renames": .array(renames.map {
                ["rule": .integer(Int64($0.rule)), "op": .string($0.op), "from": .string($0.from), "to": .string($0.to)]
            }),
            "description": .string(description),
        ]
    }
}
