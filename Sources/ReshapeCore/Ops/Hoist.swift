/// `hoist`: each selected object becomes the value of its member `member` (WordPress's
/// `"title": {"rendered": "x"}` → `"title": "x"`). `onMissing` says what an object without the
/// member becomes; a selected `null` stays `null`; any other value is an error.
struct Hoist: PathOperation {
    static let name = "hoist"
    let path: JSONPath
    let member: String
    let onMissing: OnMissing

    enum OnMissing: String, CaseIterable {
        case error, null, keep
    }

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path")
        member = try params.string("member")
        onMissing = try params.choice("onMissing", default: .error)
    }

    /// Looks at the selected values and takes their member out.
    var rawAccess: RawAccess { .matches(of: path) }

    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        // Deepest first: an object inside the member is hoisted before the member is taken out.
        for match in try selection.editOrder() {
            let node = selection.node(match)
            if node.isNull { continue }
            guard node.isObject else {
                throw ReshapeError(.ruleFailed, "expected an object, found \(node.kind.described)", path: selection.path(of: match))
            }
            try document.charge(1)
            let value = try member.withUTF8Bytes { (bytes) throws(ReshapeError) in node.storedMember(bytes) }
            if let value {
                // Retained before the object that holds it is released in its place.
                try selection.replace(match, with: Make.retain(value))
                continue
            }
            switch onMissing {
            case .error:
                throw ReshapeError(.ruleFailed, "no member \(quoted(member)) to hoist", path: selection.path(of: match))
            case .null:
                try selection.replace(match, with: Make.null())
            case .keep:
                continue
            }
        }
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFilter`)

extension Hoist {
    /// Per record when it hoists records or values inside them; the collection and the objects
    /// above it would change what holds the records.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        insideRecords(&step, "replaces the collection or its envelope")
    }

    /// On a record's tokens: a selected object is held until its end (the member may come after
    /// the others), then its member's value is passed on instead.
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker {
        guard let matcher = PathMatcher(path, filters: true), let parent = context.recordParent(matcher) else { return .needsTree }
        let member = TokenName(self.member)
        let onMissing = self.onMissing
        return RecordFilterContext.along(matcher, parent: parent) { cursor, next, _ in
            ValueHolding(cursor: cursor, next: next) { tokens in
                let first = tokens[tokens.startIndex]
                if first.kind == .null { return tokens }
                guard first.kind == .objectStart else { return nil }
                if let value = member.value(in: tokens) { return tokens[value] }
                switch onMissing {
                case .error: return nil
                case .null: return ValueHolding.null
                case .keep: return tokens
                }
            }
        }
    }
}
