/// What each rule of a list did on one input, for people debugging a rules document
/// (`reshape explain`): how many values it selected and changed, a few changes with their paths
/// in the input and the output and the values before and after, whether it runs per record on
/// this input and why, and its share of the time.
public struct Explanation: Sendable, CustomStringConvertible {
    /// One change a rule made.
    public struct Change: Sendable, Equatable {
        /// `replaced`, `added`, `rebuilt`, `member name` (a value made from a member name),
        /// `renamed`, `moved` or `removed`.
        public let kind: String
        /// Where the change is in the document the rule made (for `removed`: where the value was
        /// in the document the rule met).
        public let path: String
        /// The input's normalized path of the value the change is about; "" for `added`.
        public let inputPath: String
        /// The value before, as JSON text shortened to 60 characters and `…` (for `renamed` and
        /// `member name`: the name; for `moved`: the path it had); "" for `added`.
        public let before: String
        /// The value after, shortened the same way; "" for `removed`.
        public let after: String

        /// `renamed at $[0]['firstName'] (input: $['-Nx1']['first_name']): "first_name" → "firstName"`.
        public var description: String {
            let input = inputPath.isEmpty ? "" : " (input: \(inputPath))"
            switch kind {
            case "added": return "added at \(path): \(after)"
            case "removed": return "removed from \(path)\(input): \(before)"
            case "moved": return "moved to \(path)\(input) from \(before): \(after)"
            default: return "\(kind) at \(path)\(input): \(before) → \(after)"
            }
        }

        var json: JSONValue {
            ["change": .string(kind), "path": .string(path), "input": .string(inputPath), "before": .string(before), "after": .string(after)]
        }
    }

    /// What one rule did.
    public struct Step: Sendable {
        /// The rule's 1-based position.
        public let rule: Int
        /// The op and what it selects, as `reshape check` names the rule.
        public let summary: String
        /// The rule's op.
        public let op: String
        /// How many values its path selected in the document it met (each location once).
        public let selected: Int
        /// How many of those it changed, or changed something in.
        public let changed: Int
        /// How many changes it made in all (a record it rebuilt and the id it gave it are two).
        public let changes: Int
        /// The first changes, at most three, in document order by kind.
        public let examples: [Change]
        /// True when the rule runs per record on this input; false when it needs (or runs on) the
        /// whole document, which `reason` explains.
        public let perRecord: Bool
        /// Why the rule runs on the whole document ("" when it runs per record), as
        /// `reshape check` says it.
        public let reason: String
        /// Its time in seconds, on the whole tree this explanation was made on.
        public let seconds: Double
        /// Its share of all the rules' time, from 0 to 1.
        public let share: Double

        /// The rule's line, then one indented line per example.
        public var description: String {
            let runs = perRecord ? "per record" : "whole document: \(reason)"
            var lines = ["rule \(rule) (\(summary)): selected \(selected), changed \(changed) (\(changes) change\(changes == 1 ? "" : "s")); \(runs); \(Self.percent(share)) of the time"]
            lines += examples.map { "  " + $0.description }
            if changes > examples.count { lines.append("  … and \(changes - examples.count) more") }
            return lines.joined(separator: "\n")
        }

        static func percent(_ share: Double) -> String {
            let value = Int((share * 100).rounded())
            return share > 0 && value == 0 ? "<1%" : "\(value)%"
        }

        var json: JSONValue {
            [
                "rule": .integer(Int64(rule)), "op": .string(op), "summary": .string(summary), "selected": .integer(Int64(selected)),
                "changed": .integer(Int64(changed)), "changes": .integer(Int64(changes)), "perRecord": .bool(perRecord),
                "reason": .string(reason), "seconds": .double(seconds), "share": .double(share), "examples": .array(examples.map(\.json)),
            ]
        }
    }

    /// The rules that ran, in order.
    public let rules: [Step]
    /// The error of the rule that failed, if one did; the rules after it did not run.
    public let failure: ReshapeError?
    /// The summaries of the rules that did not run.
    let notRun: [String]

    /// One block per rule; a failing rule's error; the rules after it, not run.
    public var description: String {
        var lines = rules.map(\.description)
        if let failure { lines.append("rule \(failure.rule) failed: \(failure.description)") }
        for (offset, summary) in notRun.enumerated() {
            lines.append("rule \(rules.count + 2 + offset) (\(summary)): not run")
        }
        return lines.joined(separator: "\n")
    }

    /// `{"rules": [...], "failure": null or {"code", "message", "rule", "op", "path"}, "notRun":
    /// [...], "description": "..."}`, the description being the text above.
    public var json: JSONValue {
        let failed: JSONValue = failure.map {
            ["code": .string($0.code.rawValue), "message": .string($0.description), "rule": .integer(Int64($0.rule)), "op": .string($0.op), "path": .string($0.path)]
        } ?? .null
        return [
            "rules": .array(rules.map(\.json)), "failure": failed, "notRun": .array(notRun.map { .string($0) }),
            "description": .string(description),
        ]
    }
}

extension Rules {
    /// What each rule does on `input` (`reshape explain`): the input is reshaped once as a whole
    /// tree, every value followed through each rule as ``source(of:in:options:)`` does, and each
    /// rule's changes recorded. A rule that fails ends the explanation with its error (the
    /// explanation of the rules before it is still given); invalid JSON and limits are errors.
    /// - Parameters:
    ///   - input: One JSON document.
    ///   - options: `allowDuplicateKeys`; JSON Lines are `invalid_argument`.
    /// - Returns: One ``Explanation/Step`` per rule that ran.
    /// - Throws: `ReshapeError`: `invalid_json`, `limit_exceeded` (the walks count against the work
    ///   limit), `invalid_argument`.
    public func explain(_ input: [UInt8], options: ApplyOptions = []) throws(ReshapeError) -> Explanation {
        try input.withUnsafeBytesTyped { (bytes) throws(ReshapeError) in try explain(bytes, options: options) }
    }

    /// ``explain(_:options:)`` on bytes the caller holds for the call (the C API's input, not copied).
    package func explain(_ input: UnsafeRawBufferPointer, options: ApplyOptions = []) throws(ReshapeError) -> Explanation {
        try options.validate()
        guard !options.contains(.inputLines) else {
            throw ReshapeError(.invalidArgument, "explaining takes one JSON document, not JSON Lines")
        }
        let explained = TraceThread.run {
            Result { () throws(ReshapeError) -> Explanation in try explanation(of: input, options: options) }
        }
        guard let explained else { throw ReshapeError(.outOfMemory, "no thread to explain on") }
        return try explained.get()
    }

    private func explanation(of input: UnsafeRawBufferPointer, options: ApplyOptions) throws(ReshapeError) -> Explanation {
        let tracer = try SourceTracer(rules: self, input: input, options: options, recordingChanges: true)
        // How the stream would run each rule on this input: by the kind of its collection.
        var collection: Node? = tracer.document.root
        for name in plan.inputChain { collection = name.withUnsafeBytes { collection?.storedMember($0) } }
        let route = collection.flatMap { $0.isObject ? plan.forObject : $0.isArray ? plan.forArray : nil }
        var ran: [(rule: Int, summary: String, op: String, selected: Int, changed: Int, changes: Int, examples: [TraceChange], seconds: Double)] = []
        var failure: ReshapeError? = nil
        for offset in operations.indices {
            do throws(ReshapeError) {
                try tracer.run(rules: 1)
            } catch where error.code == .ruleFailed {
                // With where its value was in the input, as `reshape` says it.
                failure = traced(error, in: input, options: options)
                break
            }
            ran.append((
                offset + 1, operations[offset].summary, type(of: operations[offset]).name, tracer.selectedCount, tracer.changedSelected,
                tracer.changeCount, tracer.changeExamples, tracer.lastRuleSeconds
            ))
        }
        let total = ran.reduce(0) { $0 + $1.seconds }
        let rules = ran.map { step -> Explanation.Step in
            let offset = step.rule - 1
            let perRecord: Bool
            let reason: String
            if let route {
                perRecord = offset < route.streamed
                if perRecord {
                    reason = ""
                } else if offset == route.streamed {
                    reason = route.reason ?? ""
                } else {
                    reason = "runs after rule \(route.streamed + 1), which needs it"
                }
            } else {
                perRecord = false
                var at = NormalizedPath()
                for name in plan.inputChain { at.append(key: String(decoding: name, as: UTF8.self)) }
                reason = "the input has no collection of records at \(at.text) (neither an object nor an array)"
            }
            return Explanation.Step(
                rule: step.rule, summary: step.summary, op: step.op, selected: step.selected, changed: step.changed, changes: step.changes,
                examples: step.examples.map {
                    Explanation.Change(kind: $0.kind.rawValue, path: $0.outputPath, inputPath: $0.inputPath, before: $0.before, after: $0.after)
                },
                perRecord: perRecord, reason: reason, seconds: step.seconds, share: total > 0 ? step.seconds / total : 0)
        }
        let notRun = failure == nil ? [] : operations[(ran.count + 1)...].map(\.summary)
        return Explanation(rules: rules, failure: failure, notRun: Array(notRun))
    }
}
