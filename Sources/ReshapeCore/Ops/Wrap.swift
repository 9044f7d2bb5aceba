/// `wrap`: the document becomes `{key: document}`.
struct Wrap: Operation {
    static let name = "wrap"
    let key: String

    init(_ params: inout RuleParams) throws(ReshapeError) {
        key = try params.string("key")
    }

    /// Takes the whole document.
    var selects: JSONPath { JSONPath(text: "$", segments: []) }

    /// Looks at nothing; the document goes one level down.
    var rawAccess: RawAccess { .below(0, rootShift: -1) }

    func apply(to document: Document) throws(ReshapeError) {
        try document.charge(1)
        try document.grow(.wrapping(nameBytes: key.utf8.count))
        let object = try Make.object()
        do throws(ReshapeError) {
            try Make.set(object, key, Make.retain(document.root))
        } catch {
            Make.release(object)
            throw error
        }
        document.replaceRoot(with: object)
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFastPath`)

extension Wrap {
    /// Per record: the collection lies one member further from the root.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        step.chain.insert(Array(key.utf8), at: 0)
        return .perRecord
    }

    /// The rules after it see the input under `key`.
    func suggestChains(_ candidates: inout RecordPlan.Candidates) -> Bool {
        candidates.wraps.insert(Array(key.utf8), at: 0)
        return true
    }

    /// Nothing on a record's text: records are moved whole.
    func addToFastPath(_ builder: inout RecordFastPath.Builder, collection before: RecordPlan.Kind, after: RecordPlan.Kind) -> Bool {
        true
    }

    var summary: String { "\(Self.name) \(quoted(key))" }

    /// Nothing on a record's tokens: records are moved whole.
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker { .unchanged }
}
