/// `pluck`: each selected array of objects becomes the array of their members `member`, in order
/// (GitHub's `"labels": [{"name": "bug", ...}]` → `"labels": ["bug"]`). `onMissing` says what an
/// element without the member (or `null`) gives; a selected `null` stays `null`; a selected value
/// that is not an array, or an element that is neither an object nor `null`, is an error.
struct Pluck: PathOperation {
    static let name = "pluck"
    let path: JSONPath
    let member: String
    let onMissing: OnMissing

    enum OnMissing: String, CaseIterable {
        case error, skip, null
    }

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path")
        member = try params.string("member")
        onMissing = try params.choice("onMissing", default: .error)
    }

    /// Looks into the elements of the selected arrays.
    var rawAccess: RawAccess { path.fixedDepth.map { .below($0 + 2) } ?? .anyDepth }

    /// It plucks from arrays, `null` staying; each element an object, or `null` as one without
    /// the member.
    static var selects: SelectedKinds { .arraysOrNull }
    static var elements: SelectedKinds { .objectsOrNull }

    /// What a selected value becomes, on either route (see `ValueEdit`).
    static func edit<Values: FilterValues>(_ value: Values.Value, in values: Values, member: TokenName, onMissing: OnMissing)
        throws(ReshapeError) -> ValueEdit<Values.Value>
    {
        if let edit = selects.edit(value, in: values) { return edit }
        var plucked: [Values.Value?] = []
        var index = 0
        var failure: (message: String, index: Int)? = nil
        try values.forEachElement(of: value) { (element) throws(ReshapeError) in
            defer { index += 1 }
            switch elements.verdict(of: ValueKinds(values.kind(of: element))) {
            case .edits:
                let found = try member.bytes.withUnsafeBytesTyped { (name) throws(ReshapeError) in
                    try values.member(name, hash: member.hash, of: element)
                }
                if let found {
                    plucked.append(found)
                    return true
                }
            case .leaves:
                break  // `null`: as if the member were missing.
            case .fails:
                failure = (elements.failure(found: values.described(element)), index)
                return false
            }
            switch onMissing {
            case .error: failure = ("no member \(quoted(String(decoding: member.bytes, as: UTF8.self))) to pluck", index)
            case .skip: break
            case .null: plucked.append(nil)
            }
            return failure == nil
        }
        if let failure { return .fail(failure.message, index: failure.index) }
        return .array(plucked)
    }

    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        let values = TreeFilterValues(root: nil, document: document)
        let member = TokenName(self.member)
        // Deepest first: an array inside an element is plucked before the element is taken apart.
        for match in try selection.editOrder() {
            let node = selection.node(match)
            if node.isArray { try document.charge(node.arrayCount.addingClamped(1)) }
            try Self.edit(node, in: values, member: member, onMissing: onMissing).apply(at: match, in: selection)
        }
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFilter`)

extension Pluck {
    /// Per record when it plucks arrays inside records; the collection and the objects above it
    /// would change what holds the records.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        insideRecords(&step, "replaces the collection or its envelope")
    }

    /// A record's members that the path selects or selects in; a selected array member goes by as
    /// text with the member taken out (`ContainerPass.takeMember(_:)`), as one inside it does.
    func recordMemberNeeds(_ context: RecordFilterContext) -> MemberNeeds? {
        guard let matcher = PathMatcher(path, filters: true) else { return nil }
        let step = ContainerPass.taking(taken)
        return context.pathNeeds(matcher, selected: SelectedContainerStep(kind: .array) { $0.takeMember { step } })
    }

    /// On a record's tokens: a selected array is held until its end, then passed on as `edit`
    /// says. A selected array inside a record whose elements are objects with the member goes
    /// by as text, plucked on it (`ContainerPass.takeMember(_:)`); one with another element
    /// takes its tokens.
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

    /// The member taken out on the text, and what the op makes of an empty array.
    private var taken: ContainerPass.TakenMember {
        ContainerPass.TakenMember(name: Array(member.utf8), fromElements: true, empty: .made(by: holdingEdit, ofEmpty: .array))
    }
}
