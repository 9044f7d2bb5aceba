/// `default`: sets `key` to `value` on each selected object where the member is missing (added at
/// the end) or `null` (replaced in place).
struct Default: PathOperation {
    static let name = "default"
    let path: JSONPath
    let key: String
    let value: CanonicalJSON

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path", default: "$")
        key = try params.string("key")
        value = try params.value("value")
    }

    /// Looks at the selected values.
    var rawAccess: RawAccess { .matches(of: path) }

    /// It sets a member of objects; any other selected value is an error.
    static var selects: SelectedKinds { .objects }

    /// Whether the member `key`, holding a value of kind `current` (nil when missing), takes
    /// `value`: the one decision the op makes, on the tree and on a record's tokens. The value is
    /// not looked into: present and not `null` is all that is asked.
    @inline(__always)
    static func fills(_ current: ValueKinds?) -> Bool { current == nil || current == .null }

    /// What filling one object adds to the output: `"key":value,`.
    var added: OutputGrowth { .member(nameBytes: key.utf8.count, value.growth) }

    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        for match in try selection.editOrder() {
            let object = selection.node(match)
            guard try Self.selects.edits(object, at: match, in: selection) else { continue }
            let current = try key.withUTF8Bytes { (bytes) throws(ReshapeError) in object.storedMember(bytes) }
            guard Self.fills(current.map { ValueKinds($0.kind) }) else { continue }
            // One insertion adds `"key":value,` and the value's nodes.
            try document.charge(value.values)
            try document.grow(added)
            try Make.set(object, key, try value.makeNode())
        }
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFastPath`)

extension Default {
    /// Per record, unless it adds a member to an object collection (a record of its own, which no
    /// record's document may add alone).
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        step.along(path) { step, reach in
            reach.selectsCollection && step.kind == .object
                ? .wholeDocument("adds a member to the collection of records") : .perRecord
        }
    }

    /// On a record's tokens: in each selected object, a `null` member `key` is passed on as
    /// `value`, and a missing one is added before the object's end. A selected value that is not
    /// an object needs the tree (which names it).
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker {
        guard let matcher = PathMatcher(path, filters: true), let parent = context.recordParent(matcher) else { return .needsTree }
        let key = Array(self.key.utf8)
        let value = self.value
        let added = self.added
        let fill = fillStep
        return RecordFilterContext.along(matcher, parent: parent) { cursor, next, arena in
            // The value's tokens, made once per thread, their bytes kept by the filter.
            let kept = TokenArena()
            let tokens = value.text.withUnsafeBytes { RecordFilterChain.tokens(of: $0, keptIn: kept) }
            guard let tokens else { return GivingUp() }
            return Filter(
                cursor: cursor, key: key, value: tokens, kept: kept, added: added, fill: fill, next: next,
                arena: arena)
        }
    }

    /// A record's members that the path selects or selects in; in a selected record, `key`. A
    /// selected object member, with a scalar value to add, goes by as text with the member added
    /// (`fillStep`), as one inside it does.
    func recordMemberNeeds(_ context: RecordFilterContext) -> MemberNeeds? {
        guard let matcher = PathMatcher(path, filters: true) else { return nil }
        let key = TokenName(self.key)
        let selected = fillStep.map { (step) in SelectedContainerStep(kind: .object) { $0.fillOwnMembers { step } } }
        return context.pathNeeds(matcher, selectedRecord: { name in key.names(name) ? .all : [] }, selected: selected)
    }

    /// For a scalar value: the step that adds the member on the text of a selected object that
    /// goes by as text (`ContainerPass.fillOwnMembers(_:)`); nil for a container value.
    private var fillStep: ContainerPass.NameStep? {
        let opens = value.text.first == UInt8(ascii: "{") || value.text.first == UInt8(ascii: "[")
        return opens ? nil : ContainerPass.filling(ContainerPass.Fill(name: Array(key.utf8), value: value.text, growth: added.bound))
    }

    private final class Filter: RecordFilter {
        /// It adds or changes values, and drops no name.
        var passesEveryName: Bool { true }

        @exclusivity(unchecked) var cursor: PathCursor
        let key: [UInt8]
        /// `key` as a member name, and `value`'s tokens; `kept` holds their bytes.
        let name: RecordToken
        let value: [RecordToken]
        let kept: TokenArena
        let added: OutputGrowth
        /// For a scalar value: the step that adds the member on the text of a selected object
        /// that goes by as text (`ContainerPass.fillOwnMembers(_:)`).
        let fill: ContainerPass.NameStep?
        let next: any RecordFilter
        @exclusivity(unchecked) var aside = AsideFlag()
        let arena: TokenArena
        /// The selected objects open: their depth, and whether `key` was among their members.
        @exclusivity(unchecked) var objects: [(depth: Int, seen: Bool)] = []
        /// The member `key` of a selected object was taken: its value comes next.
        @exclusivity(unchecked) var atKey = false

        init(
            cursor: PathCursor, key: [UInt8], value: [RecordToken], kept: TokenArena, added: OutputGrowth,
            fill: ContainerPass.NameStep?, next: any RecordFilter, arena: TokenArena
        ) {
            self.cursor = cursor
            self.key = key
            name = RecordToken(.name, key.withUnsafeBytes { kept.keep($0) }, flag: key.withUnsafeBytes { JSONText.isPlain($0) })
            self.value = value
            self.kept = kept
            self.added = added
            self.fill = fill
            self.next = next
            self.arena = arena
        }

        func start(key: UnsafeRawBufferPointer?) -> Bool {
            cursor.start(key: key)
            objects.empty()
            atKey = false
            return next.start(key: key)
        }

        func ignores(_ token: RecordToken) -> Bool { cursor.peek() == 0 && !atKey }

        /// A container it ignores, or in which its path selects only members of some names at any
        /// depth (`$..name`), watched for them (`PathCursor.watches`). A selected object inside
        /// the record, with a scalar value to add, goes by as text with the member added at its
        /// end where it lacks it; one with the member, or holding a container, is given back and
        /// takes its tokens (`ContainerPass.fillOwnMembers(_:)`). (A record's own members are
        /// routed one by one.)
        func passes(_ token: RecordToken, into pass: inout ContainerPass) -> Bool {
            guard !atKey else { return false }
            let states = cursor.peek()
            if states == 0 { return true }
            // Selected, with nothing below it (a selected member would be the tree's error).
            if fill != nil && token.kind == .objectStart && cursor.selects(states) && states & ~cursor.matcher.selected == 0
                && cursor.depth > 0
            {
                // Not bound to a name: a copy of the step costs a retain of each of its parts.
                pass.fillOwnMembers { self.fill ?? ContainerPass.nothingStep }
                return true
            }
            return cursor.watches(states, into: &pass)
        }

        /// Unless it selects the record, which may lack its member: its work is inside the
        /// record's members, as its member needs say.
        func passesMembers(_ token: RecordToken) -> Bool { !atKey && !cursor.selects(cursor.peek()) }

        func skip(_ token: RecordToken) { cursor.skip() }

        func take(_ token: RecordToken) -> Bool {
            if aside.isSet { return next.take(token) }
            let depth = cursor.depth
            let states = cursor.take(token)
            switch token.kind {
            case .name:
                if let top = objects.last, top.depth == depth, token.isName(name) {
                    objects[objects.count - 1].seen = true
                    atKey = true
                }
                return next.take(token)
            case .objectEnd:
                if let top = objects.last, top.depth == depth {
                    objects.removeLast()
                    if !top.seen && Default.fills(nil) {
                        guard next.take(name), passValue() else { return false }
                    }
                }
                return next.take(token)
            case .arrayEnd:
                return next.take(token)
            default:
                let verdict = cursor.selects(states) ? Default.selects.verdict(token) : .leaves
                if verdict == .fails { return false }  // The tree names it.
                if atKey {
                    atKey = false
                    if Default.fills(ValueKinds(token.kind)) { return passValue() }
                }
                if verdict == .edits { objects.append((cursor.depth, false)) }
                return next.take(token)
            }
        }

        /// Passes `value` on, and counts it as the tree does.
        private func passValue() -> Bool {
            arena.grow(added)
            for token in value { guard next.take(token) else { return false } }
            return true
        }
    }
}
