/// `default`: sets `key` to `value` on each selected object where the member is missing (added at
/// the end) or `null` (replaced in place).
struct Default: PathOperation {
    static let name = "default"
    let path: JSONPath
    let key: String
    let value: CanonicalJSON

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path", default: "$")
        key = try params.string("key")
        value = try params.value("value")
    }

    /// Looks at the selected values.
    var rawAccess: RawAccess { .matches(of: path) }

    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        for match in try selection.editOrder() {
            let object = selection.node(match)
            guard object.isObject else {
                throw ReshapeError(.ruleFailed, "expected an object, found \(object.kind.described)", path: selection.path(of: match))
            }
            // Present and not null is all that is asked: the value is not looked into.
            let current = try key.withUTF8Bytes { (bytes) throws(ReshapeError) in object.storedMember(bytes) }
            if let current, !current.isNull { continue }
            // One insertion adds `"key":value,` and the value's nodes.
            try document.charge(value.values)
            try document.grow(values: value.values, bytes: key.utf8.count + 4 + value.text.count)
            try Make.set(object, key, try value.makeNode())
        }
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFastPath`)

extension Default {
    /// Per record, unless it adds a member to an object collection (a record of its own, which no
    /// record's document may add alone).
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        step.along(path) { step, reach in
            reach.selectsCollection && step.kind == .object
                ? .wholeDocument("adds a member to the collection of records") : .perRecord
        }
    }

    /// Records take the tree.
    func addToFastPath(_ builder: inout RecordFastPath.Builder, collection before: RecordPlan.Kind, after: RecordPlan.Kind) -> Bool {
        false
    }
}
