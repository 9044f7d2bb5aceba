/// `renameKeys`: renames the listed members of the selected objects (and below, when `deep`),
/// keeping their positions. How it renames and streams is every renaming op's
/// (`RenamingOperation`, `MemberRenaming.swift`); this file says what the new names are.
struct RenameKeys: RenamingOperation {
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
}
