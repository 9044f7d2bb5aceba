/// How deep a rule looks into the document it is given, so that the parser knows which objects and
/// arrays are worth keeping as raw text (see `RawValue`) for a whole list of rules.
///
/// This decides speed, not results: whatever looks inside a raw value makes it a tree first, so a
/// wrong depth only costs time (the tests force every depth and compare with the full tree).
struct RawAccess {
    /// Objects and arrays at this depth or deeper (the document the rule is given has its root at
    /// depth 0) may be raw values; nil when the rule may look at any depth.
    let safeDepth: Int?
    /// How much deeper in the input the rule's resulting root lies than the root it was given:
    /// `unwrap` goes down, `wrap` goes up.
    let rootShift: Int

    /// A rule that may look anywhere: `..` paths, deep renaming.
    static let anyDepth = RawAccess(safeDepth: nil, rootShift: 0)

    /// A rule that looks at nothing from `depth` on.
    static func below(_ depth: Int, rootShift: Int = 0) -> RawAccess {
        RawAccess(safeDepth: depth, rootShift: rootShift)
    }

    /// A rule that looks at the nodes its path selects (and at those on the way to them).
    static func matches(of path: JSONPath) -> RawAccess {
        guard let depth = path.fixedDepth else { return .anyDepth }
        return .below(depth + 1)
    }

    /// The shallowest depth of the input from which every rule in order leaves objects and arrays
    /// alone, or nil when some rule may look at any depth. Never less than 1: the root is a tree.
    ///
    /// A node at depth d of the document a rule is given lies at most d + shift deep in the input,
    /// where shift adds up the rules' root shifts; so a rule safe from depth s is safe for raw
    /// values from input depth s + shift on.
    static func rawDepth(for operations: [any Operation]) -> Int? {
        var shift = 0
        var depth = 1
        for operation in operations {
            let access = operation.rawAccess
            guard let safe = access.safeDepth else { return nil }
            depth = max(depth, safe + shift)
            shift += access.rootShift
        }
        return depth
    }
}

extension JSONPath {
    /// The depth of every node this path selects, or nil when it has `..` and can select at any
    /// depth, or a filter, which looks below the nodes it selects.
    var fixedDepth: Int? {
        descendantSegmentCount == 0 && !segments.contains(where: { $0.selector.hasFilter }) ? segments.count : nil
    }
}
