/// `emptyArrayToNull`: each selected `[]` becomes `null` (PHP APIs that send `[]` for an empty
/// object or a missing list). Arrays that only become empty through this rule stay as they are.
/// What it does is `EmptyContainerToNull`'s, for arrays.
struct EmptyArrayToNull: EmptyContainerToNull {
    static let name = "emptyArrayToNull"
    static let container = RecordPlan.Kind.array
    let path: JSONPath

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path", default: "$..*")
    }
}
