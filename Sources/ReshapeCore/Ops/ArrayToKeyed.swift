/// `arrayToKeyed`: the inverse of `keyedToArray`, for writing back: each selected array of
/// records `[{idKey: k, ...}]` becomes `{k: {...}}`.
///
/// The id must be a string or an integer (written as its decimal text); a missing, duplicate or
/// other id is an error. Without `keepId` the id member is dropped from each record.
struct ArrayToKeyed: PathOperation {
    static let name = "arrayToKeyed"
    let path: JSONPath
    let idKey: String
    let keepId: Bool

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path", default: "$")
        idKey = try params.string("idKey", default: "id")
        keepId = try params.bool("keepId", default: false)
    }

    /// Looks into the arrays and into their records (to take the id out).
    var rawAccess: RawAccess {
        guard let depth = path.fixedDepth else { return .anyDepth }
        return .below(depth + 2)
    }

    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        for match in try selection.editOrder() {
            let array = selection.node(match)
            guard array.isArray else {
                throw ReshapeError(.ruleFailed, "expected an array, found \(array.kind.described)", path: selection.path(of: match))
            }
            let object = try Make.object()
            do throws(ReshapeError) {
                for index in 0..<array.arrayCount {
                    guard let element = try array.element(index) else { continue }
                    try add(element, at: index, to: object, match: match, selection: selection)
                }
            } catch {
                Make.release(object)
                throw error
            }
            try selection.replace(match, with: object)
        }
    }

    private func add(_ element: Node, at index: Int, to object: Node, match: Int32, selection: Selection) throws(ReshapeError) {
        guard element.isObject else {
            throw ReshapeError(
                .ruleFailed, "expected an object, found \(element.kind.described)", path: selection.path(of: match, .index(index)))
        }
        guard let id = try idKey.withUTF8Bytes({ (bytes) throws(ReshapeError) in try element.member(bytes) }) else {
            throw ReshapeError(.ruleFailed, "missing \(quoted(idKey))", path: selection.path(of: match, .index(index)))
        }
        try selection.document.charge(1)
        var name = ByteBuffer()
        switch id.kind {
        case .string:
            name.append(id.stringBytes)
        case .integer:
            NumberText.append(id.integerValue, to: &name)
        case .rawNumber where !id.rawText.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }):
            name.append(id.rawText)
        default:
            let found = id.kind == .real || id.kind == .rawNumber ? "a number with a fraction or exponent" : id.kind.described
            throw ReshapeError(
                .ruleFailed, "the id must be a string or an integer, found \(found)",
                path: selection.path(of: match, .index(index), .key(idKey)))
        }
        // The id becomes a member name: at most its text and a colon more.
        try selection.document.grow(by: name.count + 3)
        let record = Make.retain(element)
        if !keepId {
            // The array is being replaced, so its records can be edited in place.
            _ = try idKey.withUTF8Bytes { (bytes) throws(ReshapeError) in Make.removeMember(record, bytes) }
        }
        guard try Make.set(object, name.bytes, record) else {
            throw ReshapeError(
                .ruleFailed, "duplicate id \(quoted(String(jsonBytes: name.bytes)))",
                path: selection.path(of: match, .index(index), .key(idKey)))
        }
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFastPath`)

extension ArrayToKeyed {
    /// Per record inside records; keying the collection itself needs every record's field.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        step.along(path) { _, reach in
            reach.selectsAbove || reach.selectsCollection
                ? .wholeDocument("keys the collection by a field, which must be unique across records") : .perRecord
        }
    }

    /// Records take the tree.
    func addToFastPath(_ builder: inout RecordFastPath.Builder, collection before: RecordPlan.Kind, after: RecordPlan.Kind) -> Bool {
        false
    }

    /// A record needs its tree: an element's id may come after members that go before it.
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker { .needsTree }
}
