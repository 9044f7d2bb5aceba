internal import CJansson

/// The locations a path selects, found on the document as it stands before a rule edits it.
///
/// Every value visited on the way is recorded with its parent and step, so that the normalized
/// path of any match is known without building path strings for the values that never fail.
/// Evaluation is in `Selection+Evaluation.swift`, the order of edits in `Selection+Order.swift`.
///
/// One selection lives for one rule. Its record buffer is the document's, reused from rule to rule
/// (`recycle()`), so that a long list of rules does not pay for fresh memory on every rule.
struct Selection {
    /// What the matches are.
    enum Mode {
        /// RFC 9535's nodelist, in its order and with its duplicates (`unwrap`).
        case nodelist
        /// Each selected location once (every rule that edits: edits touch each location once).
        case locations
    }

    /// One visited value. 40 bytes: a selection may hold millions.
    struct Record {
        var node: Node
        let parent: Int32
        let depth: Int32
        /// A member name's first byte (in the tree or in the compiled path), or nil for an element.
        let keyStart: UnsafeRawPointer?
        /// A member name's length, or an element's index.
        let keyCountOrIndex: Int
        /// The position among the parent's members or elements, or -1 where it was not counted
        /// (a member found by name).
        var ordinal: Int32

        var key: KeyBytes? {
            keyStart.map { KeyBytes(start: $0, count: keyCountOrIndex) }
        }
    }

    var records: [Record] = []
    let document: Document
    let mode: Mode
    /// The selected records: in RFC 9535 order for a nodelist; each location once otherwise.
    var matches: [Int32] = []

    /// Evaluates `path` on the document (RFC 9535 semantics: a selector that does not apply to a
    /// value, such as a name on an array, selects nothing there).
    ///
    /// Raw values (see `RawValue`) met on the way are made trees in place before being looked
    /// into, and so are the matches unless `rawMatches` says the rule only moves or removes them.
    /// - Throws: `limit_exceeded` when the path visits more values than `Limits.maxSelected` allows
    ///   or the work limit is reached.
    init(_ path: JSONPath, in document: Document, mode: Mode = .locations, rawMatches: Bool = false) throws(ReshapeError) {
        self.document = document
        self.mode = mode
        swap(&records, &document.recordBuffer)
        records.removeAll(keepingCapacity: true)
        records.append(Record(node: document.root, parent: -1, depth: 0, keyStart: nil, keyCountOrIndex: 0, ordinal: 0))
        try evaluate(path)
        if !rawMatches {
            for match in matches { try materialize(match) }
        }
    }

    /// Gives the record buffer back to the document for the next rule's selection.
    func recycle() {
        document.recordBuffer = records
    }

    /// The node at a match (borrowed).
    func node(_ match: Int32) -> Node { records[Int(match)].node }

    /// The normalized path of a match, followed by `steps` inside it.
    func path(of match: Int32, _ steps: PathStep...) -> String {
        path(of: match, steps: steps)
    }

    /// The normalized path of a match, followed by `steps` inside it.
    func path(of match: Int32, steps: [PathStep]) -> String {
        var chain: [Int32] = []
        var current = match
        while current > 0 {
            chain.append(current)
            current = records[Int(current)].parent
        }
        var path = NormalizedPath()
        for record in chain.reversed() {
            let step = records[Int(record)]
            if let key = step.key { path.append(key: key) } else { path.append(index: step.keyCountOrIndex) }
        }
        for step in steps { path.append(step) }
        return path.text
    }

    // MARK: - Editing

    /// Makes the node of a record a tree if it is a raw object or array, in place in the document:
    /// the path layer's counterpart of the reading accessors (`Node+Children.swift`). A selection
    /// records children as stored and makes each a tree when it looks into it or selects it.
    ///
    /// The raw value it replaces is freed, so no other record may hold it: two records of one
    /// location only come from `..` segments, and raw values only exist when no rule has a `..`
    /// path (`RawAccess`).
    mutating func materialize(_ record: Int32) throws(ReshapeError) {
        let node = records[Int(record)].node
        guard node.kind.isRawContainer else { return }
        let tree = try RawValue.tree(of: node)
        try place(tree, at: record)
        records[Int(record)].node = tree
    }

    /// Puts `node` (stolen) where the match is; the value there is released. An edit costs about
    /// two steps of work (an allocation and a lookup).
    func replace(_ match: Int32, with node: Node) throws(ReshapeError) {
        do throws(ReshapeError) {
            try document.charge(2)
        } catch {
            Make.release(node)
            throw error
        }
        try place(node, at: match)
    }

    /// Puts `node` (stolen) at a record's location.
    private func place(_ node: Node, at match: Int32) throws(ReshapeError) {
        let record = records[Int(match)]
        guard record.parent >= 0 else {
            document.replaceRoot(with: node)
            return
        }
        let parent = records[Int(record.parent)].node
        if let key = record.key {
            try Tree.set(parent, key, node)
        } else {
            try Tree.replaceElement(of: parent, at: record.keyCountOrIndex, with: node)
        }
    }

    /// Removes the member or element at the match. The root cannot be removed.
    func remove(_ match: Int32) throws(ReshapeError) {
        try document.charge(2)
        let record = records[Int(match)]
        guard record.parent >= 0 else { throw ReshapeError(.internal, "the document itself cannot be removed") }
        let parent = records[Int(record.parent)].node
        if let key = record.key {
            guard Tree.removeMember(of: parent, named: key) else {
                throw ReshapeError(.internal, "member to remove was not found")
            }
        } else {
            guard Tree.removeElement(of: parent, at: record.keyCountOrIndex) else {
                throw ReshapeError(.internal, "element to remove was not found")
            }
        }
    }
}
