/// `renameKeys`: renames the listed members of the selected objects (and below, when `deep`),
/// keeping their positions.
struct RenameKeys: PathOperation {
    static let name = "renameKeys"
    /// Old name → new name, by bytes (never by canonical equivalence: "é" and "e\u{301}" differ).
    let map: [[UInt8]: [UInt8]]
    let path: JSONPath
    let deep: Bool

    init(_ params: inout RuleParams) throws(ReshapeError) {
        var map: [[UInt8]: [UInt8]] = [:]
        for pair in try params.nameMap("map") { map[pair.from] = pair.to }
        self.map = map
        path = try params.path("path", default: "$")
        deep = try params.bool("deep", default: false)
    }

    /// Looks at the members of the selected objects, and at everything below them when deep.
    var rawAccess: RawAccess { deep ? .anyDepth : .matches(of: path) }

    /// A member's new name, or nil when it stays.
    var newName: @Sendable (KeyBytes) -> [UInt8]? {
        let map = self.map
        return { key in
            guard let to = map[Array(key)] else { return nil }
            return to.elementsEqual(key) ? nil : to
        }
    }

    func apply(to document: Document) throws(ReshapeError) {
        let renaming = MemberRenaming(newName: newName, deep: deep)
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        // A deep renaming covers everything below a match, so only the outermost matches are
        // visited; each object is renamed once.
        for match in deep ? try selection.outermostMatches() : try selection.editOrder() {
            try renaming.apply(to: selection.node(match), at: match, in: selection, document: document)
        }
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFastPath`)


extension RenameKeys {
    /// Per record unless it renames the records' names in an object collection; the names on the
    /// chain to the collection are renamed as the rule renames them.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        step.along(path) { step, reach in MemberRenaming.planStep(&step, reach: reach, deep: deep, newName: newName) }
    }

    /// On the text when deep from `$`: every member is renamed.
    func addToFastPath(_ builder: inout RecordFastPath.Builder, before: RecordPlan.Step, after: RecordPlan.Step) -> Bool {
        guard deep, path.isRoot else { return false }
        builder.renameEverywhere(newName)
        return true
    }
}
