/// `flatten`: in each selected object, the member `member` (an object) is replaced, in its place,
/// by its own members, each name prefixed with `prefix` (JSON:API's `data[*].attributes`). A
/// `null` member is removed; a missing one changes nothing; a name already in the object is an
/// error at the member that would take it. A selected `null` stays `null`; any other value that is
/// not an object, and a member that is not an object, are errors.
struct Flatten: PathOperation {
    static let name = "flatten"
    let path: JSONPath
    let member: String
    let prefix: String

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path")
        member = try params.string("member")
        prefix = try params.string("prefix", default: "")
    }

    /// Looks into the member of the selected objects.
    var rawAccess: RawAccess { path.fixedDepth.map { .below($0 + 2) } ?? .anyDepth }

    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        let memberBytes = Array(member.utf8)
        let prefixBytes = Array(prefix.utf8)
        // Deepest first: an object inside the member is flattened before the member is taken apart.
        for match in try selection.editOrder() {
            let object = selection.node(match)
            if object.isNull { continue }
            guard object.isObject else {
                throw ReshapeError(.ruleFailed, "expected an object, found \(object.kind.described)", path: selection.path(of: match))
            }
            try document.charge(1)
            guard let inner = try member.withUTF8Bytes({ (bytes) throws(ReshapeError) in try object.member(bytes) }) else {
                continue
            }
            if inner.isNull {
                try document.charge(2)
                _ = memberBytes.withUnsafeBytes { Tree.removeMember(of: object, named: $0) }
                continue
            }
            guard inner.isObject else {
                throw ReshapeError(
                    .ruleFailed, "expected an object, found \(inner.kind.described)", path: selection.path(of: match, .key(member)))
            }
            // Rebuilding an object: as `Document.charge` counts it, 16 and 4 per member.
            try document.charge((object.objectCount + inner.objectCount).multipliedClamped(by: 4).addingClamped(16))
            try document.grow(by: prefixBytes.count.multipliedClamped(by: inner.objectCount))
            // Every name the inner members take, checked against the object's others first.
            var problem: ReshapeError? = nil
            inner.forEachStoredMember { key, _ in
                guard problem == nil else { return }
                let name = prefixBytes + key
                let taken = name.withUnsafeBytes { new in !new.elementsEqual(memberBytes) && object.storedMember(new) != nil }
                if taken {
                    problem = ReshapeError(
                        .ruleFailed, "the name \(quoted(String(decoding: name, as: UTF8.self))) is already a member of the object",
                        path: selection.path(of: match, .key(member), .name(key)))
                }
            }
            if let problem { throw problem }
            let rebuilt = try Make.object()
            do throws(ReshapeError) {
                try object.forEachStoredMember { (key, value) throws(ReshapeError) in
                    guard key.elementsEqual(memberBytes) else {
                        try Make.set(rebuilt, key, Make.retain(value))
                        return
                    }
                    try inner.forEachStoredMember { (innerKey, innerValue) throws(ReshapeError) in
                        let name = prefixBytes + innerKey
                        try name.withUnsafeBytesTyped { (new) throws(ReshapeError) in _ = try Make.set(rebuilt, new, Make.retain(innerValue)) }
                    }
                }
            } catch {
                Make.release(rebuilt)
                throw error
            }
            try selection.replace(match, with: rebuilt)
        }
    }

    var summary: String { "\(Self.name) \(path.text)" }
}

// MARK: Streaming (see `RecordPlan`, `RecordFilter`)

extension Flatten {
    /// Per record when it flattens records or values inside them; the collection and the objects
    /// above it would change what holds the records.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        step.along(path) { step, reach in
            reach.selectsAbove || reach.selectsCollection ? .wholeDocument("changes the collection or its envelope") : .perRecord
        }
    }

    /// Records take the tree.
    func addToFastPath(_ builder: inout RecordFastPath.Builder, collection before: RecordPlan.Kind, after: RecordPlan.Kind) -> Bool {
        false
    }

    /// A record's tree: names must be checked against members that come later.
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker { .needsTree }
}
