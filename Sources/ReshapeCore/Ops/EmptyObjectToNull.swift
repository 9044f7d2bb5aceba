/// `emptyObjectToNull`: each selected `{}` becomes `null` (APIs that send `{}` for a missing
/// optional object). Objects that only become empty through this rule stay as they are.
struct EmptyObjectToNull: Operation {
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
