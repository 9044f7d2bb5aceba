/// Ops that replace each selected container by what they take out of it, the member `member`
/// (`hoist`: of an object; `pluck`: of each element of an array). Each op's file says its
/// params and its `edit`, which decides what a selected value becomes on either route (see
/// `ValueEdit`); the rest is theirs alike, and written here once: the walk of the tree, the
/// verdict per record, and what the op does on a record's tokens and text.
protocol MemberTaking: PathOperation {
    /// What a container without the member gives: each op's own choices.
    associatedtype OnMissing: Sendable
    var member: String { get }
    var onMissing: OnMissing { get }

    /// The kind of container the op takes the member out of: `.object` (`hoist`, out of it) or
    /// `.array` (`pluck`, out of each of its elements).
    static var takesFrom: ValueKinds { get }

    /// What a selected value becomes, on either route (see `ValueEdit`).
    static func edit<Values: FilterValues>(_ value: Values.Value, in values: Values, member: TokenName, onMissing: OnMissing)
        throws(ReshapeError) -> ValueEdit<Values.Value>
}

extension MemberTaking {
    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        let values = TreeFilterValues(root: nil, document: document)
        let member = TokenName(self.member)
        // Deepest first: a container inside the member is taken from before the member is taken out.
        for match in try selection.editOrder() {
            let node = selection.node(match)
            // A step per object it takes the member out of, and per array and element.
            let steps = Self.takesFrom == .array ? (node.isArray ? node.arrayCount.addingClamped(1) : 0) : (node.isObject ? 1 : 0)
            if steps > 0 { try document.charge(steps) }
            try Self.edit(node, in: values, member: member, onMissing: onMissing).apply(at: match, in: selection)
        }
    }

    // MARK: Streaming (see `RecordPlan`, `RecordFilter`)

    /// Per record when it takes from records or values inside them; the collection and the
    /// objects above it would change what holds the records.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        insideRecords(&step, "replaces the collection or its envelope")
    }

    /// A record's members that the path selects or selects in; a selected member that is a
    /// container of the kind it takes from goes by as text with the member taken out
    /// (`ContainerPass.takeMember(_:)`), as one inside it does.
    func recordMemberNeeds(_ context: RecordFilterContext) -> MemberNeeds? {
        guard let matcher = PathMatcher(path, filters: true) else { return nil }
        let step = ContainerPass.taking(taken)
        return context.pathNeeds(matcher, selected: SelectedContainerStep(kind: Self.takesFrom) { $0.takeMember { step } })
    }

    /// On a record's tokens: a selected container is held until its end (the member may come
    /// after the others), then passed on as `edit` says. A selected container inside a record
    /// whose member can be taken on the text (objects that have it) goes by as text, taken
    /// from on it (`ContainerPass.takeMember(_:)`); any other takes its tokens.
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

    /// The member taken out on the text, and what the op makes of an empty container.
    private var taken: ContainerPass.TakenMember {
        ContainerPass.TakenMember(
            name: Array(member.utf8), fromElements: Self.takesFrom == .array, empty: .made(by: holdingEdit, ofEmpty: Self.takesFrom))
    }
}
