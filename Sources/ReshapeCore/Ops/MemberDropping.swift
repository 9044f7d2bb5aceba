/// How the ops that drop some members of the objects they select (`keep`, and `remove` with
/// `matching`) do it, on the tree (`apply`) and on a record's tokens (the filter): in a selected
/// object, a member whose name the op's `drops` says so goes, its name and its value. What a
/// selected value of another kind does is the op's `SelectedKinds`. The op says only those two
/// things, and what looking at a name costs.
final class MemberDropping: RecordFilter {
    /// On the tree: from each object `path` selects (deepest and latest first, as every edit:
    /// the error reported is the same on any route), the members `drops` names. `cost` is the
    /// work of looking at one member's name; each member removed costs two steps more.
    static func apply(
        _ path: JSONPath, kinds: SelectedKinds, to document: Document, cost: (KeyBytes) -> Int, drops: (KeyBytes) -> Bool
    ) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        var dropped: [[UInt8]] = []
        for match in try selection.editOrder() {
            let object = selection.node(match)
            guard try kinds.edits(object, at: match, in: selection) else { continue }
            dropped.removeAll(keepingCapacity: true)
            var looked = 0
            object.forEachStoredMember { name, _ in
                looked = looked.addingClamped(cost(name))
                if drops(name) { dropped.append(Array(name)) }
            }
            try document.charge(looked)
            for name in dropped {
                try document.charge(2)
                guard name.withUnsafeBytes({ Tree.removeMember(of: object, named: $0) }) else {
                    throw ReshapeError(.internal, "member to remove was not found")
                }
            }
        }
    }

    @exclusivity(unchecked) var cursor: PathCursor
    /// A selected value the op fails at makes the record take its tree (which names the error),
    /// also inside a member dropped (the tree looks at every selected value before it drops any).
    let kinds: SelectedKinds
    let drops: (RecordToken) -> Bool
    let next: any RecordFilter
    @exclusivity(unchecked) var aside = AsideFlag()
    @exclusivity(unchecked) var skipper = ValueSkipper()
    /// The member whose name was dropped: its value goes too.
    @exclusivity(unchecked) var dropsValue = false
    /// The value of the member whose name was dropped goes too, but the path reaches into it:
    /// its tokens are followed for a selected value that fails, and not passed on; `checking`
    /// counts the containers open in it.
    @exclusivity(unchecked) var checksValue = false
    @exclusivity(unchecked) var checking = 0
    /// Per container open among the tokens taken: whether it is a selected object.
    @exclusivity(unchecked) var selected: [Bool] = []
    /// For an op that never fails on what it selects: what `drops` says, on a name's bytes. A
    /// container the path selects with every value below it (`$..*`,
    /// `PathMatcher.selectsItselfAndEverythingBelow`) goes by as text, the members dropped at
    /// every depth by the pass that copies it (`ContainerPass.drop(where:)`).
    let dropsEverywhere: (@Sendable (KeyBytes) -> Bool)?
    /// What `drops` says, on a name's bytes, as a pass's step: an object inside the record that
    /// the path selects, and nothing below it, goes by as text with those of its own members
    /// dropped, while it holds no container (`ContainerPass.dropOwnMembers(_:)`).
    let ownDropStep: ContainerPass.NameStep?

    /// - Parameter dropsByName: what `drops` says, on a name's bytes, for the text passes.
    init(
        cursor: PathCursor, kinds: SelectedKinds, next: any RecordFilter, dropsByName: (@Sendable (KeyBytes) -> Bool)? = nil,
        drops: @escaping (RecordToken) -> Bool
    ) {
        self.cursor = cursor
        self.kinds = kinds
        self.drops = drops
        self.next = next
        dropsEverywhere = kinds.failsSome ? nil : dropsByName
        ownDropStep = dropsByName.map { drops in ContainerPass.NameStep(rename: { drops($0) ? ContainerPass.dropped : nil }) }
    }

    func start(key: UnsafeRawBufferPointer?) -> Bool {
        cursor.start(key: key)
        skipper = ValueSkipper()
        dropsValue = false
        checksValue = false
        checking = 0
        selected.empty()
        return next.start(key: key)
    }

    func ignores(_ token: RecordToken) -> Bool { cursor.peek() == 0 && !dropsValue && !skipper.active && !checksValue && checking == 0 }

    /// A container selected with every value below it (see `dropsEverywhere`) goes by as text;
    /// so does an object inside the record selected with nothing below it (see `ownDropStep`),
    /// and one in which the path selects only members of some names at any depth (`$..name`),
    /// watched for them (`PathCursor.watches`).
    func passes(_ token: RecordToken, into pass: inout ContainerPass) -> Bool {
        guard !dropsValue && !skipper.active && !checksValue && checking == 0 else { return false }
        let states = cursor.peek()
        if states == 0 { return true }
        if states == cursor.matcher.selected && token.kind == .objectStart && cursor.depth > 0 && ownDropStep != nil {
            // Not bound to a name: a copy of the step costs a retain of each of its parts.
            pass.dropOwnMembers { self.ownDropStep ?? ContainerPass.nothingStep }
            return true
        }
        guard let dropsEverywhere, cursor.matcher.selectsItselfAndEverythingBelow(states) else {
            return cursor.watches(states, into: &pass)
        }
        pass.drop(where: dropsEverywhere)
        return true
    }

    /// It drops members of the record, or inside them, as its member needs say.
    func passesMembers(_ token: RecordToken) -> Bool { !dropsValue && !skipper.active && !checksValue && checking == 0 }

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
        let states = cursor.take(token)
        if checksValue || checking > 0 {
            // Not passed on; a selected value here that the op fails at needs the tree.
            if token.startsValue && cursor.selects(states) && kinds.verdict(token) == .fails { return false }
            if checksValue {
                checksValue = false
                if token.opens { checking = 1 }
            } else if token.opens {
                checking += 1
            } else if token.closes {
                checking -= 1
            }
            return true
        }
        switch token.kind {
        case .name:
            if selected.last == true && drops(token) {
                if kinds.failsSome && cursor.memberStates != 0 {
                    checksValue = true
                } else {
                    dropsValue = true
                }
                return true
            }
        case .objectEnd, .arrayEnd:
            selected.removeLast()
        default:
            let verdict = cursor.selects(states) ? kinds.verdict(token) : .leaves
            guard verdict != .fails else { return false }
            if token.opens { selected.append(verdict == .edits) }
        }
        return next.take(token)
    }
}
