/// `convertKeys`: renames members of the selected objects (and below, when `deep`) exactly as
/// Foundation's `convertFromSnakeCase` (`to: "camelCase"`) or `convertToSnakeCase`
/// (`to: "snake_case"`) would.
struct ConvertKeys: PathOperation {
    static let name = "convertKeys"

    enum Case: String, CaseIterable {
        case camelCase
        case snakeCase = "snake_case"
    }

    let to: Case
    let path: JSONPath
    let deep: Bool

    init(_ params: inout RuleParams) throws(ReshapeError) {
        to = try params.choice("to", default: Case.camelCase)
        path = try params.path("path", default: "$")
        deep = try params.bool("deep", default: true)
    }

    /// Looks at the members of the selected objects, and at everything below them when deep.
    var rawAccess: RawAccess { deep ? .anyDepth : .matches(of: path) }

    /// A member's new name, or nil when it stays.
    var newName: @Sendable (KeyBytes) -> [UInt8]? {
        switch to {
        case .camelCase: { KeyCaseConversion.camelCase($0) }
        case .snakeCase: { KeyCaseConversion.snakeCase($0) }
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


extension ConvertKeys {
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
