/// `remove`: removes the selected members or elements; with `matching` (an I-Regexp), the members
/// of the selected objects whose whole names match it. Selecting nothing removes nothing, so a
/// rule can clean up members that only some responses have.
struct Remove: PathOperation {
    static let name = "remove"
    let path: JSONPath
    /// With it, `path` selects objects, and their members whose names match are removed.
    let matching: IRegexp?

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path")
        matching = try params.regexp("matching")
        if path.isRoot && matching == nil {
            throw params.failure("param \"path\" selects the document itself, which cannot be removed")
        }
    }

    /// Looks at the parents of the matches; the matches themselves are only removed. With
    /// `matching`, at the names of the members of the matches.
    var rawAccess: RawAccess {
        guard let depth = path.fixedDepth else { return .anyDepth }
        return .below(matching == nil ? depth : depth + 1)
    }

    func apply(to document: Document) throws(ReshapeError) {
        if let matching { return try removeMembers(matching: matching, from: document) }
        let selection = try Selection(path, in: document, rawMatches: true)
        defer { selection.recycle() }
        // Deepest and latest first: removing an element never shifts one still to be removed.
        for match in try selection.editOrder() {
            try selection.remove(match)
        }
    }

    /// With `matching`: it removes members of objects; other selected values stay as they are.
    static var selectsWithMatching: SelectedKinds { .objectsLeavingOthers }

    /// Removes, from each selected object, the members whose names match; other values are left.
    private func removeMembers(matching: IRegexp, from document: Document) throws(ReshapeError) {
        // Matching costs a step per scalar and instruction, counted by the byte, and a step.
        let perByte = matching.size / 16 + 1
        try MemberDropping.apply(
            path, kinds: Self.selectsWithMatching, to: document, cost: { $0.count.multipliedClamped(by: perByte).addingClamped(1) }
        ) { name in Self.matches(matching, name) }
    }

    /// Whether a member name (UTF-8, as stored) matches as a whole.
    static func matches(_ regexp: IRegexp, _ name: UnsafeRawBufferPointer) -> Bool {
        regexp.matches(utf8: name)
    }

    var summary: String {
        matching.map { "\(Self.name) \(path.text) matching \(quoted($0.pattern))" } ?? "\(Self.name) \(path.text)"
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFastPath`)

extension Remove {
    /// Per record when it removes records or values inside them (removing records leaves some
    /// records' collections empty, which rules after it must not mistake for the document's).
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        step.along(path) { step, reach in
            if matching != nil {
                // Members of the selected objects go: records only when the collection is selected.
                return reach.selectsAbove || reach.selectsCollection
                    ? .wholeDocument("removes members of the collection or its envelope") : .perRecord
            }
            if reach.selectsAbove || reach.selectsCollection { return .wholeDocument("removes the collection or its envelope") }
            if reach.selectsRecords { step.mayDropRecords = true }
            return .perRecord
        }
    }

    /// On a record's tokens: a selected member (its name and value) or element is not passed on;
    /// a selected record is read to its end and dropped whole (`TokenArena.droppedBy`).
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker {
        guard let matcher = PathMatcher(path, filters: true), let parent = context.recordParent(matcher) else { return .needsTree }
        if let matching {
            let everywhere = { @Sendable (name: KeyBytes) in Self.matches(matching, name) }
            return RecordFilterContext.along(matcher, parent: parent) { cursor, next, _ in
                let verdicts = KnownNames()
                return MemberDropping(
                    cursor: cursor, kinds: Remove.selectsWithMatching, next: next, dropsByName: everywhere
                ) { token in
                    verdicts.holds(for: token) { Self.matches(matching, $0.bytes) }
                }
            }
        }
        let rule = context.rule
        let dropsBelow = matcher.namesSelectedAtAnyDepth
        return RecordFilterContext.along(matcher, parent: parent) { cursor, next, arena in
            Filter(cursor: cursor, rule: rule, dropsBelow: dropsBelow, arena: arena, next: next)
        }
    }

    /// A record's member the path selects is dropped, name and value; one it selects in is
    /// seen. With `matching`, in a selected record, a member whose name matches is dropped.
    /// A path that tests records and selects nothing in them (`$[?@.deleted == true]`) needs
    /// no member: a selected record is dropped at its first token.
    func recordMemberNeeds(_ context: RecordFilterContext) -> MemberNeeds? {
        guard let matcher = PathMatcher(path, filters: true) else { return nil }
        if matching == nil, let parent = context.recordParent(matcher), matcher.filters(parent),
            matcher.child(parent, index: 0) & ~matcher.selected == 0
        {
            return { _ in MemberUse() }
        }
        guard let record = context.recordStates(matcher) else { return nil }
        let selectsRecord = record & matcher.selected != 0
        let matching = self.matching
        // `$..name`: a container in those states goes by as text, those members dropped by the
        // pass that copies it (`ContainerPass.drop(named:)`).
        let dropsBelow = matching == nil ? matcher.namesSelectedAtAnyDepth : nil
        // An object whose own members of some names go: dropped on its text, as the filter drops
        // those of one inside the record (see `Filter.passes`).
        let ownDrops = matching == nil ? matcher.namesSelectedAsMembers.map { ($0.states, ContainerPass.dropping($0.names)) } : nil
        // `$..groups[?...]`: a container in those states goes by as text, watched for `groups`.
        let watched = WatchedNames(matcher)
        return { name in
            var use = MemberUse()
            if let matching {
                if selectsRecord && Self.matches(matching, name.bytes) {
                    use.drops = true
                    return use
                }
            } else if selectsRecord {
                return MemberUse(tokens: .all)  // The record itself is removed: its tree decides.
            }
            let states = matcher.child(record, name: name.bytes, hash: name.hash)
            if matching == nil && states & matcher.selected != 0 {
                use.drops = true
            } else if let matching, matcher.selectsItselfAndEverythingBelow(states) {
                // `$..* matching`: a container goes past with the members that match dropped
                // on its text, at every depth.
                use.pass.drop { Self.matches(matching, $0) }
            } else if states & matcher.selected != 0 {
                use.tokens = .all  // `matching`: it drops members of this one.
                use.keepsMember = true
            } else if let dropsBelow, states == dropsBelow.states {
                // `$..name`: a container goes past with those members dropped on its text.
                use.pass.drop(named: dropsBelow.names)
            } else if let (ownStates, step) = ownDrops, states == ownStates {
                // An array's members are the filter's.
                use = MemberUse.passing(.object) { $0.dropOwnMembers { step } }
            } else if let watchedUse = watched?.use(states) {
                use = watchedUse
            } else if states != 0 {
                // The path goes on below the member: nothing in a scalar is selected.
                use.tokens = .containers
                use.keepsMember = true
            }
            return use
        }
    }

    private final class Filter: RecordFilter {
        @exclusivity(unchecked) var cursor: PathCursor
        /// The rule's 1-based number, which a removed record is dropped by.
        let rule: Int
        /// See `PathMatcher.namesSelectedAtAnyDepth`: the states (0: none), and the names.
        let dropStates: PathMatcher.States
        let dropNames: [[UInt8]]
        let arena: TokenArena
        let next: any RecordFilter
        @exclusivity(unchecked) var aside = AsideFlag()
        @exclusivity(unchecked) var skipper = ValueSkipper()
        /// The member whose name was dropped: its value goes too.
        @exclusivity(unchecked) var dropsValue = false
        /// See `PathMatcher.namesSelectedAsMembers`: the states of an object whose own members
        /// of some names the path selects (0: none), and the step that drops them on its text.
        let ownDropStates: PathMatcher.States
        let ownDropStep: ContainerPass.NameStep?

        init(cursor: PathCursor, rule: Int, dropsBelow: (states: PathMatcher.States, names: [[UInt8]])?, arena: TokenArena, next: any RecordFilter) {
            self.cursor = cursor
            self.rule = rule
            dropStates = dropsBelow?.states ?? 0
            dropNames = dropsBelow?.names ?? []
            let own = cursor.matcher.namesSelectedAsMembers
            ownDropStates = own?.states ?? 0
            ownDropStep = own.map { ContainerPass.dropping($0.names) }
            self.arena = arena
            self.next = next
        }

        func start(key: UnsafeRawBufferPointer?) -> Bool {
            cursor.start(key: key)
            skipper = ValueSkipper()
            dropsValue = false
            return next.start(key: key)
        }

        func ignores(_ token: RecordToken) -> Bool { cursor.peek() == 0 && !dropsValue && !skipper.active }

        /// A container in which the path selects only members of some names, at any depth
        /// (`$..name`), goes by as text with them dropped.
        func passes(_ token: RecordToken, into pass: inout ContainerPass) -> Bool {
            let states = cursor.peek()
            guard !dropsValue && !skipper.active else { return false }
            if states == 0 { return true }
            if dropStates != 0 && states == dropStates {
                pass.drop(named: dropNames)
                return true
            }
            // An object inside the record whose own members of some names are removed: dropped
            // on the text while it holds no container (`ContainerPass.dropOwnMembers(_:)`). (A
            // record's own members are routed one by one.)
            if states == ownDropStates && token.kind == .objectStart && cursor.depth > 0 && ownDropStep != nil {
                // Not bound to a name: a copy of the step costs a retain of each of its parts.
                pass.dropOwnMembers { self.ownDropStep ?? ContainerPass.nothingStep }
                return true
            }
            // Elsewhere, watched for the names its path goes on through (`PathCursor.watches`).
            return cursor.watches(states, into: &pass)
        }

        /// It removes members of the record, or inside them, as its member needs say (a record
        /// it removes whole needs every member).
        func passesMembers(_ token: RecordToken) -> Bool { !dropsValue && !skipper.active }

        /// A removal never fails.
        func letsRemovedRecordGo(_ record: UnsafeRawBufferPointer) -> Bool { true }

        func skip(_ token: RecordToken) { cursor.skip() }

        func take(_ token: RecordToken) -> Bool {
            if aside.isSet { return next.take(token) }
            if skipper.active {
                skipper.take(token)
                return true
            }
            if dropsValue {
                dropsValue = false
                skipper.begin(token)
                return true
            }
            let atRecord = cursor.depth == 0
            let states = cursor.take(token)
            if token.kind == .name {
                if cursor.selects(cursor.memberStates) {
                    dropsValue = true
                    return true
                }
            } else if token.startsValue && cursor.selects(states) {
                if atRecord {
                    // The record itself: its tokens are still read (as strictly), and go nowhere.
                    guard rule > 0 else { return false }
                    arena.droppedBy = rule
                }
                cursor.drop(token)
                skipper.begin(token)
                return true
            }
            return next.take(token)
        }
    }
}
