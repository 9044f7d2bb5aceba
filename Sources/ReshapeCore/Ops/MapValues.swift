/// `mapValues`: each selected value equal to a case's `from` becomes that case's `to` (`0` or
/// `false` meaning null, status codes to names). Equality is JSON's: numbers by exact value (`1`,
/// `1.0` and `1e0` are one number), strings by their bytes, arrays in order, objects whatever the
/// order of their members. The first case that matches wins; `onOther` says what a value no case
/// matches becomes.
struct MapValues: PathOperation {
    static let name = "mapValues"
    let path: JSONPath
    /// Each case, in order.
    let cases: [Case]
    let onOther: OnOther
    /// Some `from` is an object or an array: containers must be compared too.
    let mapsContainers: Bool

    struct Case: Sendable {
        /// The canonical key of `from` (see `ValueKey`), which a container is compared by.
        let key: [UInt8]
        /// `from` when it is a scalar: the kind and bytes a scalar is compared with.
        let scalar: Scalar?
        let to: CanonicalJSON
    }

    /// A scalar `from`: a string's bytes, a number's text (compared by exact value).
    enum Scalar: Sendable {
        case null, bool(Bool), string([UInt8]), number([UInt8])
    }

    enum OnOther: String, CaseIterable {
        case keep, null, error
    }

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path")
        var cases: [Case] = []
        var mapsContainers = false
        for (from, to) in try params.valuePairs("cases") {
            let node = try from.makeNode()
            defer { Make.release(node) }
            mapsContainers = mapsContainers || node.isObject || node.isArray
            var key: [UInt8] = []
            try ValueKey.append(node, to: &key, charging: nil)
            let scalar: Scalar?
            switch node.kind {
            case .null: scalar = .null
            case .bool: scalar = .bool(node.isTrue)
            case .string: scalar = .string(Array(node.stringBytes))
            case .integer: scalar = .number(Array(String(node.integerValue).utf8))
            case .real: scalar = .number(Array(NumberText.text(of: node.realValue).utf8))
            case .rawNumber: scalar = .number(Array(node.rawText))
            default: scalar = nil
            }
            cases.append(Case(key: key, scalar: scalar, to: to))
        }
        self.cases = cases
        self.mapsContainers = mapsContainers
        onOther = try params.choice("onOther", default: .keep)
    }

    /// Looks at the selected values, and inside them when a case is a container.
    var rawAccess: RawAccess { .anyDepth }

    /// What a selected value becomes, on either route (see `ValueEdit`): `.made(n)` for case
    /// `n`'s `to`.
    static func edit<Values: FilterValues>(
        _ value: Values.Value, in values: Values, cases: [Case], onOther: OnOther, mapsContainers: Bool
    ) throws(ReshapeError) -> ValueEdit<Values.Value> {
        var found: Int? = nil
        switch values.kind(of: value) {
        case .object, .array:
            if mapsContainers {
                var key: [UInt8] = []
                try values.appendKey(of: value, to: &key)
                found = cases.firstIndex { $0.key == key }
            }
        case .null:
            found = cases.firstIndex { if case .null = $0.scalar { true } else { false } }
        case .bool(let flag):
            found = cases.firstIndex { if case .bool(flag) = $0.scalar { true } else { false } }
        case .string:
            let bytes = values.stringBytes(of: value)
            found = cases.firstIndex { if case .string(let from) = $0.scalar { from.elementsEqual(bytes) } else { false } }
        case .number:
            // The number's text once (a tree's number is written out for it), compared with each.
            _ = values.withNumberText(of: value) { text in
                found = cases.firstIndex { item in
                    guard case .number(let from) = item.scalar else { return false }
                    return from.withUnsafeBytes { NumberLiteral.compareExactly($0, text) == 0 }
                }
                return true
            }
        }
        if let found { return .made(found) }
        switch onOther {
        case .keep: return .keep
        case .null: return .null
        case .error: return .fail("no case for \(values.describedWithValue(value))")
        }
    }

    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        let values = TreeFilterValues(root: nil, document: document)
        // Deepest first: a container is compared once what the rule maps inside it is mapped.
        for match in try selection.editOrder() {
            let node = selection.node(match)
            // A scalar's comparison counts as its key's (see `ValueKey`); a container's, its key.
            if node.kind == .string {
                try document.charge(1 + node.stringBytes.count / 16)
            } else if !(node.isObject || node.isArray) {
                try document.charge(1)
            }
            let edit = try Self.edit(node, in: values, cases: cases, onOther: onOther, mapsContainers: mapsContainers)
            try edit.apply(at: match, in: selection) { (index) throws(ReshapeError) in
                let to = cases[index].to
                try document.charge(to.values)
                try document.grow(to.growth)
                return try to.makeNode()
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

    /// On a record's tokens: each selected value is held until it ends (a container compared
    /// by its key, once what the rule maps inside it is mapped) and passed on as `edit` says. A
    /// value no case matches with `onOther: "error"` takes the record's tree, which names it.
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker {
        guard let matcher = PathMatcher(path, filters: true), let parent = context.recordParent(matcher) else { return .needsTree }
        let cases = self.cases
        let onOther = self.onOther
        let mapsContainers = self.mapsContainers
        // `$..status`: a container in those states goes by as text, those members' scalar values
        // mapped by the pass that copies it (`ContainerPass.edit(named:_:)`).
        let editsBelow = EditsBelow(matcher, textEdit)
        return RecordFilterContext.along(matcher, parent: parent) { cursor, next, arena in
            // The `to` values' tokens, made once per thread, their bytes kept by the filter.
            let kept = TokenArena()
            var targets: [[RecordToken]] = []
            for item in cases {
                guard let tokens = item.to.text.withUnsafeBytes({ RecordFilterChain.tokens(of: $0, keptIn: kept) }) else { return GivingUp() }
                targets.append(tokens)
            }
            let made = { (index: Int) -> ArraySlice<RecordToken> in
                _ = kept  // The targets' bytes live as long as the filter.
                let to = cases[index].to
                arena.grow(to.growth)
                return targets[index][...]
            }
            return ValueHolding(cursor: cursor, next: next, arena: arena, editsBelow: editsBelow, made: made) { (tokens, values) throws(ReshapeError) in
                try Self.edit(tokens.startIndex..<tokens.endIndex, in: values, cases: cases, onOther: onOther, mapsContainers: mapsContainers)
            }
        }
    }

    /// `edit` on a scalar's token, as a container copied from the text maps it: nil where the
    /// tree must decide (no case with `onOther: "error"`, a case whose `to` is a container).
    var textEdit: TextValueEdit {
        let cases = self.cases
        let onOther = self.onOther
        let mapsContainers = self.mapsContainers
        return { token in
            let one = [token]
            let values = TokenFilterValues(tokens: one[...], arena: nil)
            guard let edit = try? Self.edit(0..<1, in: values, cases: cases, onOther: onOther, mapsContainers: mapsContainers)
            else { return nil }
            switch edit {
            case .keep: return (.keep, 0)
            case .null: return (.null, 0)
            case .made(let index):
                let to = cases[index].to
                guard let first = to.text.first, first != UInt8(ascii: "{"), first != UInt8(ascii: "[") else { return nil }
                return (.canonical(to.text), to.growth.bound)
            default: return nil
            }
        }
    }

    /// A record's member goes past the filters as `RecordFilterContext.pathNeeds` says; one whose
    /// value holds the selected members at any depth goes past as text, mapped on it.
    func recordMemberNeeds(_ context: RecordFilterContext) -> MemberNeeds? {
        PathMatcher(path, filters: true).flatMap { context.pathNeeds($0, editingBelow: textEdit) }
    }
}
