/// `emptyObjectToNull`: each selected `{}` becomes `null` (APIs that send `{}` for a missing
/// optional object). Objects that only become empty through this rule stay as they are.
/// What it does is `EmptyContainerToNull`'s, for objects, and on the fused text pass below.
struct EmptyObjectToNull: EmptyContainerToNull {
    static let name = "emptyObjectToNull"
    static let container = RecordPlan.Kind.object
    let path: JSONPath

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path", default: "$..*")
    }

    /// On the text over `$..*`: each `{}` is written `null`.
    func addToFastPath(_ builder: inout RecordFastPath.Builder, collection before: RecordPlan.Kind, after: RecordPlan.Kind) -> Bool {
        guard path.isEveryDescendant else { return false }
        builder.nullEmptyObjectsEverywhere()
        return true
    }
}
