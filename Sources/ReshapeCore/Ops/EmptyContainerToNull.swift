/// What `emptyObjectToNull` and `emptyArrayToNull` share: each selected empty container of one
/// kind becomes `null`; containers that only become empty through the rule stay as they are.
protocol EmptyContainerToNull: PathOperation {
    /// The kind of container the op replaces when empty.
    static var container: RecordPlan.Kind { get }
}

extension EmptyContainerToNull {
    /// Looks at the selected values.
    var rawAccess: RawAccess { .matches(of: path) }

    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        let values = TreeFilterValues(root: nil, document: document)
        // Replacing a value in place moves nothing else, so any order is safe.
        for match in selection.matches {
            try Self.edit(selection.node(match), in: values).apply(at: match, in: selection)
        }
    }

    /// What a selected value becomes, on either route (see `ValueEdit`): an empty container of
    /// the op's kind, `null`.
    static func edit<Values: FilterValues>(_ value: Values.Value, in values: Values) -> ValueEdit<Values.Value> {
        switch values.kind(of: value) {
        case .object where container == .object, .array where container == .array:
            return (try? values.count(of: value)) == 0 ? .null : .keep
        default:
            return .keep
        }
    }

    /// Per record: the objects above the collection hold it, and the collection holds a record,
    /// unless a rule before removed records.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        step.along(path) { step, reach in
            reach.selectsCollection && step.kind == Self.container && step.mayDropRecords
                ? .wholeDocument("may see the collection empty only once every record is removed") : .perRecord
        }
    }

    /// On a record's tokens: a selected opener followed by its closer is passed on as `null`.
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker {
        guard let matcher = PathMatcher(path, filters: true), let parent = context.recordParent(matcher) else { return .needsTree }
        let opener: RecordToken = Self.container == .object ? .objectStart : .arrayStart
        return RecordFilterContext.along(matcher, parent: parent) { cursor, next, _ in
            EmptyToNullFilter(cursor: cursor, opener: opener, next: next) { Self.edit($0, in: $1) }
        }
    }

    /// A record's members whose values are containers, when the path selects them or selects in
    /// them (nothing else holds an empty container); when it selects the value and everything in
    /// it (`$..*`), that is done on the text; when it selects the value and nothing in it, the
    /// value, empty, becomes what the op's edit makes of it (`null`), on the text too.
    func recordMemberNeeds(_ context: RecordFilterContext) -> MemberNeeds? {
        guard let matcher = PathMatcher(path, filters: true), let record = context.recordStates(matcher) else { return nil }
        let objects = Self.container == .object
        let empty: [RecordToken] = objects ? [.objectStart, .objectEnd] : [.arrayStart, .arrayEnd]
        let nullsEmpty: Bool
        if case .null = Self.edit(0..<2, in: TokenFilterValues(tokens: empty[...], arena: nil)) { nullsEmpty = true } else { nullsEmpty = false }
        let watched = WatchedNames(matcher)
        return { name in
            let states = matcher.child(record, name: name.bytes, hash: name.hash)
            guard states != 0 else { return MemberUse() }
            if let watchedUse = watched?.use(states) { return watchedUse }
            if nullsEmpty && states & matcher.selected != 0 && states & ~matcher.selected == 0 {
                var use = MemberUse(keepsMember: true)
                use.emptyToNull = objects ? .object : .array
                return use
            }
            guard states & matcher.selected != 0 && matcher.selectsEverythingBelow(states) else {
                return MemberUse(tokens: .containers, keepsMember: true)  // It edits values only.
            }
            var use = MemberUse()
            if objects { use.pass.nullEmptyObjects = true } else { use.pass.nullEmptyArrays = true }
            return use
        }
    }
}

/// On a record's tokens: a selected opener is held; followed at once by its closer, the empty
/// container is what the op's `edit` decides on (`null`); otherwise it is not empty, and stays.
private final class EmptyToNullFilter: RecordFilter {
    /// It adds or changes values, and drops no name.
    var passesEveryName: Bool { true }

    /// It fails on nothing.
    func letsRemovedRecordGo(_ record: UnsafeRawBufferPointer) -> Bool { true }

    @exclusivity(unchecked) var cursor: PathCursor
    let opener: RecordToken
    let closer: RecordToken.Kind
    let next: any RecordFilter
    @exclusivity(unchecked) var aside = AsideFlag()
    let edit: (Range<Int>, TokenFilterValues) -> ValueEdit<Range<Int>>
    /// A selected opener was taken and not passed on yet.
    @exclusivity(unchecked) var held = false
    /// The empty container's two tokens.
    private let empty: [RecordToken]

    init(
        cursor: PathCursor, opener: RecordToken, next: any RecordFilter,
        edit: @escaping (Range<Int>, TokenFilterValues) -> ValueEdit<Range<Int>>
    ) {
        self.cursor = cursor
        self.opener = opener
        closer = opener.kind == .objectStart ? .objectEnd : .arrayEnd
        self.next = next
        self.edit = edit
        empty = [opener, opener.kind == .objectStart ? .objectEnd : .arrayEnd]
    }

    func start(key: UnsafeRawBufferPointer?) -> Bool {
        cursor.start(key: key)
        held = false
        return next.start(key: key)
    }

    func ignores(_ token: RecordToken) -> Bool { cursor.peek() == 0 && !held }

    /// Everything below the container is selected (`$..*`): each empty container of the kind
    /// in it becomes `null` on the text. Only members of some names at any depth (`$..name`):
    /// it goes by watched for them (`PathCursor.watches`).
    func passes(_ token: RecordToken, into pass: inout ContainerPass) -> Bool {
        guard !held else { return false }
        let states = cursor.peek()
        if states == 0 { return true }
        guard cursor.matcher.selectsEverythingBelow(states) else { return cursor.watches(states, into: &pass) }
        if opener.kind == .objectStart { pass.nullEmptyObjects = true } else { pass.nullEmptyArrays = true }
        return true
    }

    /// It edits containers inside the record as its member needs say (the record itself,
    /// empty, is never copied member by member).
    func passesMembers(_ token: RecordToken) -> Bool { !held }

    func skip(_ token: RecordToken) { cursor.skip() }

    func take(_ token: RecordToken) -> Bool {
        if aside.isSet { return next.take(token) }
        if held {
            held = false
            if token.kind == closer {
                _ = cursor.take(token)
                guard case .null = edit(0..<2, TokenFilterValues(tokens: empty[...], arena: nil)) else {
                    return next.take(opener) && next.take(token)
                }
                return next.take(.null)
            }
            guard next.take(opener) else { return false }
        }
        let states = cursor.take(token)
        if token.kind == opener.kind && cursor.selects(states) {
            held = true
            return true
        }
        return next.take(token)
    }
}
