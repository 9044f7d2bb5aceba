/// The params of one rule object, read by type with exact messages for whatever is wrong.
///
/// Each op's initializer asks for every param it knows; `finish()` then rejects the rest, with a
/// suggestion for a typo.
struct RuleParams {
    /// The 1-based index of the rule in the document.
    let index: Int
    let op: String
    private let members: [(name: String, node: Node)]
    private var known: [String] = ["op"]

    /// - Parameter object: the rule object (borrowed; only read during compilation).
    init(index: Int, op: String, object: Node) {
        self.index = index
        self.op = op
        var members: [(name: String, node: Node)] = []
        object.forEachStoredMember { key, value in members.append((String(jsonBytes: key), value)) }
        self.members = members
    }

    func failure(_ message: String) -> ReshapeError {
        ReshapeError(.invalidRules, message, rule: index, op: op)
    }

    private mutating func lookup(_ name: String) -> Node? {
        known.append(name)
        // By bytes: String's == would take "é" and "e\u{301}" for the same name.
        return members.first(where: { $0.name.utf8.elementsEqual(name.utf8) })?.node
    }

    /// A string param; required when `defaultValue` is nil.
    mutating func string(_ name: String, default defaultValue: String? = nil) throws(ReshapeError) -> String {
        guard let node = lookup(name) else {
            guard let defaultValue else { throw failure("missing required param \(quoted(name))") }
            return defaultValue
        }
        return try stringValue(node, name)
    }

    /// A string param with no default: nil when absent.
    mutating func optionalString(_ name: String) throws(ReshapeError) -> String? {
        guard let node = lookup(name) else { return nil }
        return try stringValue(node, name)
    }

    mutating func bool(_ name: String, default defaultValue: Bool) throws(ReshapeError) -> Bool {
        guard let node = lookup(name) else { return defaultValue }
        guard node.kind == .bool else { throw wrongType(name, "a boolean", node) }
        return node.isTrue
    }

    /// A param that takes one of a fixed set of strings.
    mutating func choice<Choice: RawRepresentable & CaseIterable>(
        _ name: String, default defaultValue: Choice
    ) throws(ReshapeError) -> Choice where Choice.RawValue == String {
        guard let node = lookup(name) else { return defaultValue }
        let text = try stringValue(node, name)
        if let choice = Choice(rawValue: text) { return choice }
        let allowed = Choice.allCases.map(\.rawValue)
        throw failure(
            "param \(quoted(name)) must be one of \(allowed.map { quoted($0) }.joined(separator: ", ")), "
                + "found \(quoted(text))\(Suggestion.hint(for: text, among: allowed))")
    }

    /// A JSONPath param; required when `defaultValue` is nil.
    mutating func path(_ name: String, default defaultValue: String? = nil) throws(ReshapeError) -> JSONPath {
        let text = try string(name, default: defaultValue)
        switch JSONPathParser.parse(text) {
        case .success(let path):
            return path
        case .failure(let problem):
            throw failure(
                "param \(quoted(name)): invalid path \(quoted(text)): \(problem.message) (at character \(problem.character))")
        }
    }

    /// Any JSON value; required. Kept as its canonical JSON text, so compiled rules can be shared
    /// by threads and freed without walking a tree; each use parses fresh nodes from it.
    mutating func value(_ name: String) throws(ReshapeError) -> CanonicalJSON {
        guard let node = lookup(name) else { throw failure("missing required param \(quoted(name))") }
        return try canonical(node)
    }

    /// An object whose members map names to names; required. Member order is kept.
    /// Names are bytes, compared as bytes.
    mutating func nameMap(_ name: String) throws(ReshapeError) -> [(from: [UInt8], to: [UInt8])] {
        guard let node = lookup(name) else { throw failure("missing required param \(quoted(name))") }
        guard node.isObject else { throw wrongType(name, "an object of names", node) }
        var pairs: [(from: [UInt8], to: [UInt8])] = []
        var problem: ReshapeError? = nil
        node.forEachStoredMember { key, value in
            let from = String(jsonBytes: key)
            guard value.kind == .string else {
                if problem == nil {
                    problem = failure("param \(quoted(name)): the new name for \(quoted(from)) must be a string, found \(value.kind.described)")
                }
                return
            }
            pairs.append((Array(key), Array(value.stringBytes)))
        }
        if let problem { throw problem }
        return pairs
    }

    /// An I-Regexp (RFC 9485); nil when absent.
    mutating func regexp(_ name: String) throws(ReshapeError) -> IRegexp? {
        guard let text = try optionalString(name) else { return nil }
        switch IRegexp.compile(text) {
        case .success(let regexp):
            return regexp
        case .failure(let problem):
            throw failure(
                "param \(quoted(name)): invalid I-Regexp \(quoted(text)): \(problem.message) (at character \(problem.character))")
        }
    }

    /// An array of JSONPaths; empty when absent.
    mutating func pathList(_ name: String) throws(ReshapeError) -> [JSONPath] {
        guard let node = lookup(name) else { return [] }
        guard node.isArray else { throw wrongType(name, "an array of paths", node) }
        var paths: [JSONPath] = []
        for index in 0..<node.arrayCount {
            guard let element = node.storedElement(index), element.kind == .string else {
                let found = node.storedElement(index)?.kind.described ?? "nothing"
                throw failure("param \(quoted(name)): element \(index) must be a path (a string), found \(found)")
            }
            let text = String(jsonBytes: element.stringBytes)
            switch JSONPathParser.parse(text) {
            case .success(let path):
                paths.append(path)
            case .failure(let problem):
                throw failure(
                    "param \(quoted(name)): element \(index): invalid path \(quoted(text)): \(problem.message) (at character \(problem.character))")
            }
        }
        return paths
    }

    /// An array of member names; required. Names are bytes, compared as bytes; order is kept.
    mutating func nameList(_ name: String) throws(ReshapeError) -> [[UInt8]] {
        guard let node = lookup(name) else { throw failure("missing required param \(quoted(name))") }
        guard node.isArray else { throw wrongType(name, "an array of names", node) }
        var names: [[UInt8]] = []
        for index in 0..<node.arrayCount {
            guard let element = node.storedElement(index), element.kind == .string else {
                let found = node.storedElement(index)?.kind.described ?? "nothing"
                throw failure("param \(quoted(name)): element \(index) must be a name (a string), found \(found)")
            }
            names.append(Array(element.stringBytes))
        }
        return names
    }

    /// An array of pairs `[from, to]` of any JSON values; required. Order is kept.
    mutating func valuePairs(_ name: String) throws(ReshapeError) -> [(CanonicalJSON, CanonicalJSON)] {
        guard let node = lookup(name) else { throw failure("missing required param \(quoted(name))") }
        guard node.isArray else { throw wrongType(name, "an array of [from, to] pairs", node) }
        var pairs: [(CanonicalJSON, CanonicalJSON)] = []
        for index in 0..<node.arrayCount {
            guard let pair = node.storedElement(index), pair.isArray, pair.arrayCount == 2,
                let from = pair.storedElement(0), let to = pair.storedElement(1)
            else {
                let found = node.storedElement(index).map { $0.isArray ? "an array of \($0.arrayCount)" : $0.kind.described } ?? "nothing"
                throw failure("param \(quoted(name)): element \(index) must be a pair [from, to], found \(found)")
            }
            pairs.append((try canonical(from), try canonical(to)))
        }
        return pairs
    }

    private func canonical(_ node: Node) throws(ReshapeError) -> CanonicalJSON {
        let text = try JSONWriter(pretty: false, maxDepth: .max).write(node).toArray()
        return CanonicalJSON(text: text, values: Tree.count(node))
    }

    /// Rejects params the op did not ask for.
    func finish() throws(ReshapeError) {
        for member in members where !known.contains(where: { $0.utf8.elementsEqual(member.name.utf8) }) {
            let others = known.dropFirst().map { quoted($0) }.joined(separator: ", ")
            let hint = Suggestion.hint(for: member.name, among: Array(known.dropFirst()))
            let help = hint.isEmpty ? (others.isEmpty ? "; \(op) takes no params" : "; \(op) takes \(others)") : hint
            throw failure("unknown param \(quoted(member.name))\(help)")
        }
    }

    private func stringValue(_ node: Node, _ name: String) throws(ReshapeError) -> String {
        guard node.kind == .string else { throw wrongType(name, "a string", node) }
        return String(jsonBytes: node.stringBytes)
    }

    private func wrongType(_ name: String, _ expected: String, _ node: Node) -> ReshapeError {
        failure("param \(quoted(name)) must be \(expected), found \(node.kind.described)")
    }
}
