/// `convertKeys`: renames members of the selected objects (and below, when `deep`) exactly as
/// Foundation's `convertFromSnakeCase` (`to: "camelCase"`) or `convertToSnakeCase`
/// (`to: "snake_case"`) would. How it renames and streams is every renaming op's
/// (`RenamingOperation`, `MemberRenaming.swift`); this file says what the new names are.
struct ConvertKeys: RenamingOperation {
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
}
