internal import CJansson

/// Turns a rules document into compiled operations, or says exactly what is wrong with it.
///
/// The document is a JSON array of rule objects, or an object `{"rules": [...]}`. Each rule is
/// `{"op": NAME, ...params}`.
enum RulesCompiler {
    /// - Throws: `invalid_rules`, also for a document beyond `limits.maxRulesBytes` or
    ///   `limits.maxDepth`.
    static func compile(_ text: UnsafeRawBufferPointer, limits: Limits) throws(ReshapeError) -> [any Operation] {
        guard text.count <= limits.maxRulesBytes else {
            throw ReshapeError(
                .invalidRules,
                "the rules document has \(text.count) bytes, more than \(limits.maxRulesBytes) (the rules size limit)")
        }
        let root = try JSONParser.parse(text, errorCode: .invalidRules, maxDepth: max(1, limits.maxDepth))
        defer { Tree.release(root) }
        let list = try ruleList(in: root)
        var operations: [any Operation] = []
        operations.reserveCapacity(list.arrayCount)
        for position in 0..<list.arrayCount {
            guard let rule = list.storedElement(position) else { continue }
            operations.append(try compileRule(rule, index: position + 1))
        }
        return operations
    }

    private static func ruleList(in root: Node) throws(ReshapeError) -> Node {
        if root.isArray { return root }
        guard root.isObject else {
            throw ReshapeError(
                .invalidRules,
                "the rules document must be an array of rules or an object with \"rules\", found \(root.kind.described)")
        }
        var list: Node? = nil
        var unknown: String? = nil
        root.forEachStoredMember { key, value in
            if key.elementsEqual("rules".utf8) { list = value } else if unknown == nil { unknown = String(jsonBytes: key) }
        }
        if let unknown {
            throw ReshapeError(
                .invalidRules,
                "unknown member \(quoted(unknown)) in the rules document\(Suggestion.hint(for: unknown, among: ["rules"]))")
        }
        guard let list else { throw ReshapeError(.invalidRules, "missing \"rules\" in the rules document") }
        guard list.isArray else {
            throw ReshapeError(.invalidRules, "\"rules\" must be an array, found \(list.kind.described)")
        }
        return list
    }

    private static func compileRule(_ rule: Node, index: Int) throws(ReshapeError) -> any Operation {
        guard rule.isObject else {
            throw ReshapeError(.invalidRules, "a rule must be an object, found \(rule.kind.described)", rule: index)
        }
        var opNode: Node? = nil
        rule.forEachStoredMember { key, value in
            if key.elementsEqual("op".utf8) { opNode = value }
        }
        guard let opNode else {
            throw ReshapeError(.invalidRules, "missing \"op\"; ops are \(Operations.names.joined(separator: ", "))", rule: index)
        }
        guard opNode.kind == .string else {
            throw ReshapeError(.invalidRules, "\"op\" must be a string, found \(opNode.kind.described)", rule: index)
        }
        let name = String(jsonBytes: opNode.stringBytes)
        guard let type = Operations.type(named: name) else {
            let hint = Suggestion.hint(for: name, among: Operations.names)
            let help = hint.isEmpty ? "; ops are \(Operations.names.joined(separator: ", "))" : hint
            throw ReshapeError(.invalidRules, "unknown op \(quoted(name))\(help)", rule: index, op: name)
        }
        var params = RuleParams(index: index, op: name, object: rule)
        let operation = try type.init(&params)
        try params.finish()
        return operation
    }
}
