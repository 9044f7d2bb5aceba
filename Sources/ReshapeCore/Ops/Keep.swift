/// `keep`: each selected object keeps only the members named in `members`, in their order in the
/// object (for APIs that send sixty members where six are used). A selected `null` stays `null`;
/// any other value that is not an object is an error.
struct Keep: PathOperation {
    static let name = "keep"
    let path: JSONPath
    /// The listed names, each with its `RecordNames.hash`.
    let members: [(hash: UInt64, bytes: [UInt8])]

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path", default: "$")
        members = try params.nameList("members").map { name in (name.withUnsafeBytes { RecordNames.hash($0) }, name) }
    }

    /// Looks at the selected values; their members are only removed.
    var rawAccess: RawAccess { .matches(of: path) }

    /// It keeps members of objects; `null` stays `null`, any other selected value is an error.
    static var selects: SelectedKinds { .objectsOrNull }

    /// Whether the member named `name` (whose `RecordNames.hash` is `hash`) stays: the one
    /// decision the op makes, on the tree and on a record's tokens.
    static func keeps(_ name: UnsafeRawBufferPointer, hash: UInt64, listed: [(hash: UInt64, bytes: [UInt8])]) -> Bool {
        listed.contains { $0.hash == hash && $0.bytes.elementsEqual(name) }
    }

    func apply(to document: Document) throws(ReshapeError) {
        let members = self.members
        // A step per listed name a member is compared with.
        try MemberDropping.apply(path, kinds: Self.selects, to: document, cost: { _ in max(1, members.count) }) { name in
            !Self.keeps(name, hash: RecordNames.hash(name), listed: members)
        }
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFilter`)

extension Keep {
    /// Per record when it keeps members of records or of values inside them.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        insideRecords(&step, "keeps members of the collection or its envelope")
    }

    /// On a record's tokens: in a selected object, a member not listed is not passed on (its name
    /// and its value). A selected value that is not an object needs the tree (which names it).
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker {
        guard let matcher = PathMatcher(path, filters: true), let parent = context.recordParent(matcher) else { return .needsTree }
        let members = self.members
        return RecordFilterContext.along(matcher, parent: parent) { cursor, next, _ in
            MemberDropping(
                cursor: cursor, kinds: Keep.selects, next: next,
                dropsByName: { !Keep.keeps($0, hash: RecordNames.hash($0), listed: members) }
            ) { token in
                !Keep.keeps(token.bytes, hash: token.hash, listed: members)
            }
        }
    }

    /// In a selected record, a member not listed is dropped, name and value, unless the path
    /// selects it or selects in it: a record's member it selects or selects in is seen.
    func recordMemberNeeds(_ context: RecordFilterContext) -> MemberNeeds? {
        guard let matcher = PathMatcher(path, filters: true), let record = context.recordStates(matcher) else { return nil }
        let selectsRecord = record & matcher.selected != 0
        let listed = members
        let watched = WatchedNames(matcher)
        return { name in
            var use = MemberUse()
            let states = matcher.child(record, name: name.bytes, hash: name.hash)
            if !selectsRecord, let watchedUse = watched?.use(states) {
                use = watchedUse  // `$..profile`: watched for the names.
            } else if states != 0 {
                // Selected, or in a selected record, any value; selected in, a container (a
                // scalar holds nothing).
                use.tokens = states & matcher.selected != 0 || selectsRecord ? .all : .containers
                use.keepsMember = !selectsRecord
            } else if selectsRecord && !Keep.keeps(name.bytes, hash: name.hash, listed: listed) {
                use.drops = true
            }
            return use
        }
    }
}
