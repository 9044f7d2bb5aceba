/// `mapValues`: each selected value equal to a case's `from` becomes that case's `to` (`0` or
/// `false` meaning null, status codes to names). Equality is JSON's: numbers by exact value (`1`,
/// `1.0` and `1e0` are one number), strings by their bytes, arrays in order, objects whatever the
/// order of their members. The first case that matches wins; `onOther` says what a value no case
/// matches becomes.
struct MapValues: PathOperation {
    static let name = "mapValues"
    let path: JSONPath
    /// The canonical key (see `ValueKey`) of each case's `from`, its text, and its `to`, in order.
    let cases: [(from: [UInt8], fromText: [UInt8], to: CanonicalJSON)]
    let onOther: OnOther
    /// Some `from` is an object or an array: containers must be compared too.
    let mapsContainers: Bool

    enum OnOther: String, CaseIterable {
        case keep, null, error
    }

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path")
        var cases: [(from: [UInt8], fromText: [UInt8], to: CanonicalJSON)] = []
        var mapsContainers = false
        for (from, to) in try params.valuePairs("cases") {
            let node = try from.makeNode()
            defer { Make.release(node) }
            mapsContainers = mapsContainers || node.isObject || node.isArray
            var key: [UInt8] = []
            try ValueKey.append(node, to: &key, charging: nil)
            cases.append((key, from.text, to))
        }
        self.cases = cases
        self.mapsContainers = mapsContainers
        onOther = try params.choice("onOther", default: .keep)
    }

    /// The first of `cases` (position, its `from` as one token) whose scalar equals `token`.
    private static func match(_ token: RecordToken, among cases: [(Int, RecordToken)]) -> Int? {
        for (position, from) in cases where from.kind == token.kind {
            switch token.kind {
            case .null: return position
            case .bool where from.flag == token.flag: return position
            case .string where from.bytes.elementsEqual(token.bytes): return position
            case .number where NumberLiteral.compareExactly(from.bytes, token.bytes) == 0: return position
            default: continue
            }
        }
        return nil
    }

    /// Looks at the selected values, and inside them when a case is a container.
    var rawAccess: RawAccess { .anyDepth }

    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        var key: [UInt8] = []
        // Deepest first: a container is compared once what the rule maps inside it is mapped.
        for match in try selection.editOrder() {
            let node = selection.node(match)
            var found: CanonicalJSON? = nil
            if mapsContainers || !(node.isObject || node.isArray) {
                key.removeAll(keepingCapacity: true)
                try ValueKey.append(node, to: &key, charging: document)
                found = cases.first(where: { $0.from == key })?.to
            }
            if let found {
                try document.charge(found.values)
                try document.grow(values: found.values, bytes: found.text.count)
                try selection.replace(match, with: try found.makeNode())
                continue
            }
            switch onOther {
            case .keep:
                continue
            case .null:
                try selection.replace(match, with: Make.null())
            case .error:
                throw ReshapeError(.ruleFailed, "no case for \(node.describedWithValue)", path: selection.path(of: match))
            }
        }
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFilter`)

extension MapValues {
    /// Per record when it maps values inside records.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        insideRecords(&step, "maps the collection or its envelope")
    }

    /// On a record's tokens, when no case is a container: a selected scalar equal to a case's
    /// `from` (strings by their bytes, numbers by exact value, as `ValueKey` compares them for the
    /// tree) is passed on as that case's `to`; a selected
    /// container is held, and passed on as it is (`onOther: "keep"`) or as `null`. A value no case
    /// matches with `onOther: "error"` takes the record's tree, which names it.
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker {
        guard !mapsContainers, let matcher = PathMatcher(path, filters: true), let parent = context.recordParent(matcher) else {
            return .needsTree
        }
        let cases = self.cases
        let onOther = self.onOther
        return RecordFilterContext.along(matcher, parent: parent) { cursor, next, arena in
            // The `to` values' tokens, made once per thread, their bytes kept by the filter.
            let kept = TokenArena()
            var targets: [[RecordToken]] = []
            // Each case's `from`, one scalar token, with its case's position.
            var scalarCases: [(Int, RecordToken)] = []
            for (position, item) in cases.enumerated() {
                guard let tokens = item.to.text.withUnsafeBytes({ RecordFilterChain.tokens(of: $0, keptIn: kept) }),
                    let from = item.fromText.withUnsafeBytes({ RecordFilterChain.tokens(of: $0, keptIn: kept) })
                else { return GivingUp() }
                targets.append(tokens)
                if from.count == 1 { scalarCases.append((position, from[0])) }
            }
            return ValueHolding(cursor: cursor, next: next) { tokens in
                _ = kept  // The targets' bytes live as long as the filter.
                let first = tokens[tokens.startIndex]
                if !first.opens, let found = Self.match(first, among: scalarCases) {
                    let target = targets[found]
                    arena.growth = arena.growth.addingClamped(
                        max(cases[found].to.text.count, cases[found].to.values.multipliedClamped(by: Tree.minimumValueBytes)))
                    return target[...]
                }
                switch onOther {
                case .keep: return tokens
                case .null: return ValueHolding.null
                case .error: return nil
                }
            }
        }
    }
}
