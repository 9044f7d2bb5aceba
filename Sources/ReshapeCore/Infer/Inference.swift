/// What `reshape infer` is asked for: how names are written, where keys go, and which places to
/// decide by hand.
public struct InferenceOptions: Sendable, Equatable {
    /// How member names of the output are written.
    public enum Keys: String, Sendable, CaseIterable {
        /// `displayName`, as Foundation's `convertFromSnakeCase` makes it.
        case camelCase
        /// `display_name`, as Foundation's `convertToSnakeCase` makes it.
        case snakeCase = "snake_case"
        /// `display-name`.
        case kebabCase = "kebab-case"
        /// As the API sends them: no `convertKeys`.
        case keep

        var conversion: ((KeyBytes) -> [UInt8]?)? {
            switch self {
            case .camelCase: { KeyCaseConversion.camelCase($0) }
            case .snakeCase: { KeyCaseConversion.snakeCase($0) }
            case .kebabCase: { KeyCaseConversion.kebabCase($0) }
            case .keep: nil
            }
        }
    }

    /// The naming convention of the output (`camelCase` by default).
    public var keys: Keys
    /// The member that receives each record's key (`keyedToArray`'s `idKey`); `"id"` by default.
    /// When records already have it, `_id`, `key` or `_key` is used, and the reason says so.
    public var idKey: String
    /// The member a keyed collection at the root is put under (`wrapIn`); `"items"` by default.
    /// The CLI passes the first sample's file name (`users.json` → `users`).
    public var name: String
    /// Paths (names, indices and wildcards, as the input writes them) of places that are keyed
    /// collections, whatever their score.
    public var maps: [String]
    /// Paths of places that are objects with fields, whatever their score.
    public var objects: [String]
    /// Propose `unwrap` for an envelope (`data`, `result`, `items`...); by default envelopes are
    /// kept and typed.
    public var unwrap: Bool

    /// Options with every default.
    public init(
        keys: Keys = .camelCase, idKey: String = "id", name: String = "items", maps: [String] = [], objects: [String] = [],
        unwrap: Bool = false
    ) {
        self.keys = keys
        self.idKey = idKey
        self.name = name
        self.maps = maps
        self.objects = objects
        self.unwrap = unwrap
    }
}

/// Rules and types proposed from sample responses: the rules document that turns the samples
/// into clean, regular JSON, why each rule is there, and the types of what the rules make.
///
/// Made by ``infer(_:options:)``; docs/infer.md describes what is found and the score that tells
/// a keyed collection from an object.
public struct Inference: Sendable {
    /// Why one rule was proposed.
    public struct Reason: Sendable, Equatable, CustomStringConvertible {
        /// The rule's 1-based position in ``Inference/rules``.
        public let rule: Int
        /// The rule's op.
        public let op: String
        /// What was found in the samples, with counts.
        public let text: String

        /// `rule 2 (keyedToArray): $ is a keyed collection: ...`.
        public var description: String { "rule \(rule) (\(op)): \(text)" }

        /// `{"rule": 2, "op": "keyedToArray", "reason": "..."}`.
        public var json: JSONValue {
            var object = JSONObject()
            object["rule"] = .integer(Int64(rule))
            object["op"] = .string(op)
            object["reason"] = .string(text)
            return .object(object)
        }
    }

    /// The rules document: a JSON array of rules, in the order they run.
    public let rules: JSONValue
    /// One reason per rule, in the same order.
    public let reasons: [Reason]
    /// The type of the reshaped samples.
    let type: InferredType

    /// Proposes rules and types from samples of one API's responses.
    /// - Parameters:
    ///   - samples: Responses of the same endpoint (at least one).
    ///   - options: Naming, overrides and envelopes.
    /// - Returns: The rules, their reasons and the types.
    /// - Throws: `ReshapeError`: `invalid_argument` for no sample, an override path that is not
    ///   one or selects nothing, or an `idKey` or `name` that is empty; the error of the proposed
    ///   rules on a sample if they fail on one (names that would collide once converted, say).
    public static func infer(_ samples: [JSONValue], options: InferenceOptions = InferenceOptions()) throws(ReshapeError) -> Inference {
        guard !samples.isEmpty else { throw ReshapeError(.invalidArgument, "infer needs at least one sample") }
        guard !options.idKey.isEmpty, !options.name.isEmpty else {
            throw ReshapeError(.invalidArgument, "the id key and the name of a root collection must not be empty")
        }
        var rules: [JSONValue] = []
        var reasons: [Reason] = []
        func add(_ op: String, _ params: [(String, JSONValue)], _ reason: String) {
            var rule = JSONObject()
            rule["op"] = .string(op)
            for (key, value) in params { rule[key] = value }
            rules.append(.object(rule))
            reasons.append(Reason(rule: rules.count, op: op, text: reason))
        }

        var payloads = samples
        if options.unwrap, let (name, reason) = envelope(samples) {
            add("unwrap", [("path", .string(PathPattern.root.appending(.name(name)).text))], reason)
            payloads = samples.map { $0[name] ?? .null }  // every sample has it (`envelope`)
        }
        let analysis = try SampleAnalysis(options: options)
        guard let type = TraceThread.run({ analysis.analyze(analysis.roots(payloads), input: .root, output: .root, depth: 0) }) else {
            throw ReshapeError(.outOfMemory, "no thread to look at the samples on")
        }
        let overrides = options.maps + options.objects
        if let unused = overrides.indices.first(where: { !analysis.usedOverrides.contains($0) }) {
            let flag = unused < options.maps.count ? "--map" : "--object"
            throw ReshapeError(.invalidArgument, "\(flag) \(quoted(overrides[unused])) selects no object or array in the samples")
        }

        for finding in analysis.keyed { add(finding.op, finding.params, finding.reason) }
        for findings in [analysis.blanks, analysis.empties, analysis.emptyArrays, analysis.coercions] {
            for group in grouped(findings) {
                add(group.op, [("path", .string(group.path))] + group.params, group.reason)
            }
        }
        if let conversion = options.keys.conversion {
            var changed: [String] = []
            for name in analysis.fieldNames {
                let bytes = Array(name.utf8)
                if let converted = bytes.withUnsafeBytes({ conversion($0) }) {
                    changed.append("\(name) → \(String(decoding: converted, as: UTF8.self))")
                }
            }
            if !changed.isEmpty {
                var params: [(String, JSONValue)] = [("to", .string(options.keys.rawValue))]
                let excluded = analysis.dictionaries.map(\.text)
                if !excluded.isEmpty { params.append(("exclude", .array(excluded.map { .string($0) }))) }
                let examples = changed.prefix(3).joined(separator: ", ") + (changed.count > 3 ? ", ..." : "")
                var reason = "\(changed.count) of \(analysis.fieldNames.count) member names are not \(options.keys.rawValue) (\(examples))"
                if !excluded.isEmpty { reason += "; the names of \(excluded.joined(separator: ", ")) are data and keep theirs" }
                add("convertKeys", params, reason)
            }
        }
        let inference = Inference(rules: .array(rules), reasons: reasons, type: type)
        try inference.check(on: samples)
        return inference
    }

    /// Member names that hold a response's payload, beside pagination and status.
    static let envelopeNames: Set<String> = ["data", "result", "results", "items", "records", "response", "payload", "content", "entries", "list", "hits", "children"]

    /// The member every sample wraps its payload in, if there is one: an envelope name
    /// (or one ending in `_list`/`List`) holding an object or an array in every sample.
    private static func envelope(_ samples: [JSONValue]) -> (String, String)? {
        guard let first = samples[0].objectValue else { return nil }
        for member in first.members {
            let name = member.key
            guard envelopeNames.contains(name.lowercased()) || name.hasSuffix("_list") || name.hasSuffix("List") else { continue }
            let holdsPayload = samples.allSatisfy { sample in
                switch sample[name] {
                case .object?, .array?: true
                default: false
                }
            }
            guard holdsPayload else { continue }
            let others = first.count - 1
            return (name, "every sample's payload is under \(quoted(name)) (an envelope), beside \(others) other member\(others == 1 ? "" : "s"); --unwrap keeps the payload alone")
        }
        return nil
    }

    private struct Group {
        let op: String
        let path: String
        let params: [(String, JSONValue)]
        let reason: String
    }

    /// Findings of one op at members of the same objects, as one rule whose path is a union.
    private static func grouped(_ findings: [SampleAnalysis.Finding]) -> [Group] {
        var order: [String] = []
        var groups: [String: [SampleAnalysis.Finding]] = [:]
        for finding in findings {
            let params = finding.params.map { "\($0.0)=\($0.1)" }.joined(separator: ",")
            let key = finding.pattern.lastName == nil ? "\(finding.pattern.text)|\(params)|alone" : "\(finding.pattern.parent.text)|\(params)"
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(finding)
        }
        return order.compactMap { key in
            let members = groups[key] ?? []
            guard let first = members.first else { return nil }
            let path = first.pattern.lastName == nil ? first.pattern.text : first.pattern.parent.text(members: members.map { $0.pattern.lastName ?? "" })
            return Group(op: first.op, path: path, params: first.params, reason: members.map(\.reason).joined(separator: "; "))
        }
    }

    /// Runs the rules on every sample: proposed rules that fail on a sample are an error here,
    /// not in the user's client.
    private func check(on samples: [JSONValue]) throws(ReshapeError) {
        let compiled = try Rules(json: try rules.json())
        for (index, sample) in samples.enumerated() {
            do {
                _ = try compiled.apply(to: sample)
            } catch {
                throw ReshapeError(
                    error.code, "the proposed rules fail on sample \(index + 1): \(error.message)", rule: error.rule, op: error.op,
                    path: error.path)
            }
        }
    }
}
