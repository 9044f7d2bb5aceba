/// `convertKeys`: renames members of the selected objects (and below, when `deep`) exactly as
/// Foundation's `convertFromSnakeCase` (`to: "camelCase"`) or `convertToSnakeCase`
/// (`to: "snake_case"`) would, reading `-` as `_`; `to: "kebab-case"` is snake_case written with
/// `-`. How it renames and streams is every renaming op's
/// (`RenamingOperation`, `MemberRenaming.swift`); this file says what the new names are.
struct ConvertKeys: RenamingOperation {
    static let name = "convertKeys"

    enum Case: String, CaseIterable {
        case camelCase
        case snakeCase = "snake_case"
        case kebabCase = "kebab-case"
    }

    let to: Case
    let path: JSONPath
    let deep: Bool
    /// Objects at or below these paths keep their names (user data: Stripe's `metadata`).
    let exclude: [JSONPath]

    init(_ params: inout RuleParams) throws(ReshapeError) {
        to = try params.choice("to", default: Case.camelCase)
        path = try params.path("path", default: "$")
        deep = try params.bool("deep", default: true)
        exclude = try params.pathList("exclude")
    }

    /// Looks at the members of the selected objects, and at everything below them when deep.
    var rawAccess: RawAccess { deep ? .anyDepth : .matches(of: path) }

    /// A member's new name, or nil when it stays.
    var newName: @Sendable (KeyBytes) -> [UInt8]? {
        switch to {
        case .camelCase: { KeyCaseConversion.camelCase($0) }
        case .snakeCase: { KeyCaseConversion.snakeCase($0) }
        case .kebabCase: { KeyCaseConversion.kebabCase($0) }
        }
    }
}
