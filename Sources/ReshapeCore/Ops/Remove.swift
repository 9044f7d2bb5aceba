/// `remove`: removes the selected members or elements. Selecting nothing removes nothing, so a
/// rule can clean up members that only some responses have.
struct Remove: PathOperation {
    static let name = "remove"
    let path: JSONPath

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path")
        if path.isRoot {
            throw params.failure("param \"path\" selects the document itself, which cannot be removed")
        }
    }

    /// Looks at the parents of the matches; the matches themselves are only removed.
    var rawAccess: RawAccess { path.fixedDepth.map { .below($0) } ?? .anyDepth }

    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document, rawMatches: true)
        defer { selection.recycle() }
        // Deepest and latest first: removing an element never shifts one still to be removed.
        for match in try selection.editOrder() {
            try selection.remove(match)
        }
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFastPath`)

extension Remove {
    /// Per record when it removes records or values inside them (removing records leaves some
    /// records' collections empty, which rules after it must not mistake for the document's).
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        step.along(path) { step, reach in
            if reach.selectsAbove || reach.selectsCollection { return .wholeDocument("removes the collection or its envelope") }
            if reach.selectsRecords { step.mayDropRecords = true }
            return .perRecord
        }
    }

    /// Records take the tree.
    func addToFastPath(_ builder: inout RecordFastPath.Builder, collection before: RecordPlan.Kind, after: RecordPlan.Kind) -> Bool {
        false
    }

    /// On a record's tokens: a selected member (its name and value) or element is not passed on.
    /// Removing the record itself needs its tree.
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker {
        guard let matcher = PathMatcher(path), let parent = context.recordParent(matcher) else { return .needsTree }
        return .filter { next, _ in Filter(cursor: PathCursor(matcher, parent: parent), next: next) }
    }

    private final class Filter: RecordFilter {
        @exclusivity(unchecked) var cursor: PathCursor
        let next: any RecordFilter
        @exclusivity(unchecked) var skipper = ValueSkipper()
        /// The member whose name was dropped: its value goes too.
        @exclusivity(unchecked) var dropsValue = false

        init(cursor: PathCursor, next: any RecordFilter) {
            self.cursor = cursor
            self.next = next
        }

        func start(key: UnsafeRawBufferPointer?) -> Bool {
            cursor.start(key: key)
            skipper = ValueSkipper()
            dropsValue = false
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
            let atRecord = cursor.depth == 0
            let states = cursor.take(token)
            if token.kind == .name {
                if cursor.selects(cursor.memberStates) {
                    dropsValue = true
                    return true
                }
            } else if token.startsValue && cursor.selects(states) {
                guard !atRecord else { return false }
                cursor.drop(token)
                skipper.begin(token)
                return true
            }
            return next.take(token)
        }
    }
}
