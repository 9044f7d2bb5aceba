/// The record filter of the ops that drop some members of the objects they select (`keep`, and
/// `remove` with `matching`): in a selected object, a member whose name `drops` says so is not
/// passed on, its name nor its value.
final class MemberDropping: RecordFilter {
    @exclusivity(unchecked) var cursor: PathCursor
    /// A selected value that is neither an object nor `null` makes the record take its tree
    /// (which names the error), rather than passing on as it is; so does a member dropped whose
    /// value the path selects or selects in.
    let nonObjectsNeedTheTree: Bool
    let drops: (RecordToken) -> Bool
    let next: any RecordFilter
    @exclusivity(unchecked) var skipper = ValueSkipper()
    /// The member whose name was dropped: its value goes too.
    @exclusivity(unchecked) var dropsValue = false
    /// Per container open among the tokens taken: whether it is a selected object.
    @exclusivity(unchecked) var selected: [Bool] = []

    init(cursor: PathCursor, nonObjectsNeedTheTree: Bool, next: any RecordFilter, drops: @escaping (RecordToken) -> Bool) {
        self.cursor = cursor
        self.nonObjectsNeedTheTree = nonObjectsNeedTheTree
        self.drops = drops
        self.next = next
    }

    func start(key: UnsafeRawBufferPointer?) -> Bool {
        cursor.start(key: key)
        skipper = ValueSkipper()
        dropsValue = false
        selected.empty()
        return next.start(key: key)
    }

    func ignores(_ token: RecordToken) -> Bool { cursor.peek() == 0 && !dropsValue && !skipper.active }

    func skip(_ token: RecordToken) { cursor.skip() }

    func take(_ token: RecordToken) -> Bool {
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
        switch token.kind {
        case .name:
            if selected.last == true && drops(token) {
                // The path may select inside the value dropped, a value that fails (the tree
                // looks at every selected value before it drops any).
                guard !(nonObjectsNeedTheTree && cursor.memberStates != 0) else { return false }
                dropsValue = true
                return true
            }
        case .objectStart:
            selected.append(cursor.selects(states))
        case .arrayStart:
            guard !(nonObjectsNeedTheTree && cursor.selects(states)) else { return false }
            selected.append(false)
        case .objectEnd, .arrayEnd:
            selected.removeLast()
        default:
            // A selected null stays as it is.
            guard !(nonObjectsNeedTheTree && token.kind != .null && cursor.selects(states)) else { return false }
        }
        return next.take(token)
    }
}
