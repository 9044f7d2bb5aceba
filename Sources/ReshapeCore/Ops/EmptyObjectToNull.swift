/// `emptyObjectToNull`: each selected `{}` becomes `null` (APIs that send `{}` for a missing
/// optional object). Objects that only become empty through this rule stay as they are.
struct EmptyObjectToNull: PathOperation {
    static let name = "emptyObjectToNull"
    let path: JSONPath

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path", default: "$..*")
    }

    /// Looks at the selected values.
    var rawAccess: RawAccess { .matches(of: path) }

    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        // Replacing a value in place moves nothing else, so any order is safe.
        for match in selection.matches {
            let node = selection.node(match)
            if node.isObject && node.objectCount == 0 {
                try selection.replace(match, with: Make.null())
            }
        }
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFastPath`)

extension EmptyObjectToNull {
    /// Per record: the objects above the collection hold it, and the collection holds a record,
    /// unless a rule before removed records.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        step.along(path) { step, reach in
            reach.selectsCollection && step.kind == .object && step.mayDropRecords
                ? .wholeDocument("may see the collection empty only once every record is removed") : .perRecord
        }
    }

    /// On the text over `$..*`: each `{}` is written `null`.
    func addToFastPath(_ builder: inout RecordFastPath.Builder, collection before: RecordPlan.Kind, after: RecordPlan.Kind) -> Bool {
        guard path.isEveryDescendant else { return false }
        builder.nullEmptyObjectsEverywhere()
        return true
    }

    /// On a record's tokens: a selected `{` followed by `}` is passed on as `null`.
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker {
        guard let matcher = PathMatcher(path), let parent = context.recordParent(matcher) else { return .needsTree }
        return .filter { next, _ in Filter(cursor: PathCursor(matcher, parent: parent), next: next) }
    }

    private final class Filter: RecordFilter {
        @exclusivity(unchecked) var cursor: PathCursor
        let next: any RecordFilter
        /// A selected `{` was taken and not passed on yet.
        @exclusivity(unchecked) var held = false

        init(cursor: PathCursor, next: any RecordFilter) {
            self.cursor = cursor
            self.next = next
        }

        func start(key: UnsafeRawBufferPointer?) -> Bool {
            cursor.start(key: key)
            held = false
            return next.start(key: key)
        }

        func ignores(_ token: RecordToken) -> Bool { cursor.peek() == 0 && !held }

        func skip(_ token: RecordToken) { cursor.skip() }

        func take(_ token: RecordToken) -> Bool {
            if held {
                held = false
                if token.kind == .objectEnd {
                    _ = cursor.take(token)
                    return next.take(.null)
                }
                guard next.take(.objectStart) else { return false }
            }
            let states = cursor.take(token)
            if token.kind == .objectStart && cursor.selects(states) {
                held = true
                return true
            }
            return next.take(token)
        }
    }
}
