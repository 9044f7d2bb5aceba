/// `hoist`: each selected object becomes the value of its member `member` (WordPress's
/// `"title": {"rendered": "x"}` → `"title": "x"`). `onMissing` says what an object without the
/// member becomes; a selected `null` stays `null`; any other value is an error.
struct Hoist: PathOperation {
    static let name = "hoist"
    let path: JSONPath
    let member: String
    let onMissing: OnMissing

    enum OnMissing: String, CaseIterable {
        case error, null, keep
    }

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path")
        member = try params.string("member")
        onMissing = try params.choice("onMissing", default: .error)
    }

    /// Looks at the selected values and takes their member out.
    var rawAccess: RawAccess { .matches(of: path) }

    /// It takes the member out of objects; `null` stays.
    static var selects: SelectedKinds { .objectsOrNull }

    /// What a selected value becomes, on either route (see `ValueEdit`).
    static func edit<Values: FilterValues>(_ value: Values.Value, in values: Values, member: TokenName, onMissing: OnMissing)
        throws(ReshapeError) -> ValueEdit<Values.Value>
    {
        if let edit = selects.edit(value, in: values) { return edit }
        if let found = try member.bytes.withUnsafeBytesTyped({ (name) throws(ReshapeError) in try values.member(name, hash: member.hash, of: value) }) {
            return .value(found)
        }
        switch onMissing {
        case .error: return .fail("no member \(quoted(String(decoding: member.bytes, as: UTF8.self))) to hoist")
        case .null: return .null
        case .keep: return .keep
        }
    }

    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        let values = TreeFilterValues(root: nil, document: document)
        let member = TokenName(self.member)
        // Deepest first: an object inside the member is hoisted before the member is taken out.
        for match in try selection.editOrder() {
            let node = selection.node(match)
            if node.isObject { try document.charge(1) }
            try Self.edit(node, in: values, member: member, onMissing: onMissing).apply(at: match, in: selection)
        }
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFilter`)

extension Hoist {
    /// Per record when it hoists records or values inside them; the collection and the objects
    /// above it would change what holds the records.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        insideRecords(&step, "replaces the collection or its envelope")
    }

    /// A record's members that the path selects or selects in; a selected object member goes by as
    /// text with the member taken out (`ContainerPass.takeMember(_:)`), as one inside it does.
    func recordMemberNeeds(_ context: RecordFilterContext) -> MemberNeeds? {
        guard let matcher = PathMatcher(path, filters: true) else { return nil }
        let step = ContainerPass.taking(taken)
        return context.pathNeeds(matcher, selected: SelectedContainerStep(kind: .object) { $0.takeMember { step } })
    }

    /// On a record's tokens: a selected object is held until its end (the member may come after
    /// the others), then passed on as `edit` says. A selected object inside a record that has
    /// the member goes by as text, hoisted on it (`ContainerPass.takeMember(_:)`); one without
    /// it, or empty, takes its tokens.
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker {
        guard let matcher = PathMatcher(path, filters: true), let parent = context.recordParent(matcher) else { return .needsTree }
        let taking = taken
        let edit = holdingEdit
        return RecordFilterContext.along(matcher, parent: parent) { cursor, next, arena in
            ValueHolding(cursor: cursor, next: next, arena: arena, taking: taking, edit: edit)
        }
    }

    /// What the filter makes of a selected value's tokens: the op's `edit`.
    private var holdingEdit: @Sendable (ArraySlice<RecordToken>, TokenFilterValues) throws(ReshapeError) -> ValueEdit<Range<Int>> {
        let member = TokenName(self.member)
        let onMissing = self.onMissing
        return { (tokens, values) throws(ReshapeError) in
            try Self.edit(tokens.startIndex..<tokens.endIndex, in: values, member: member, onMissing: onMissing)
        }
    }

    /// The member taken out on the text, and what the op makes of an empty object.
    private var taken: ContainerPass.TakenMember {
        ContainerPass.TakenMember(name: Array(member.utf8), fromElements: false, empty: .made(by: holdingEdit, ofEmpty: .object))
    }
}
