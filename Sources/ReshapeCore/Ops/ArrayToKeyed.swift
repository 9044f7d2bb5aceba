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

    /// It keys arrays; any other selected value is an error.
    static var selects: SelectedKinds { .arrays }
    /// Each element is a record: an object; anything else is an error at the element.
    static var elementKinds: SelectedKinds { .objects }

    /// Whether a record's id of kind `kind` (`real`: a number with a fraction or an exponent)
    /// names it: a string, or an integer (as its decimal text). Anything else is an error.
    @inline(__always)
    static func namesRecord(_ kind: ValueKinds, real: Bool) -> Bool { kind == .string || (kind == .number && !real) }

    /// What a record's id adds to the output as its member name: at most its text (`idText`
    /// bytes, a string's content or a number's digits) and a colon more.
    static func growth(idText: Int) -> OutputGrowth { .text(idText + 3) }

    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        for match in try selection.editOrder() {
            let array = selection.node(match)
            guard try Self.selects.edits(array, at: match, in: selection) else { continue }
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
        guard try Self.elementKinds.edits(element, at: match, in: selection, .index(index)) else { return }
        guard let id = try idKey.withUTF8Bytes({ (bytes) throws(ReshapeError) in try element.member(bytes) }) else {
            throw ReshapeError(.ruleFailed, "missing \(quoted(idKey))", path: selection.path(of: match, .index(index)))
        }
        try selection.document.charge(1)
        let real = id.kind == .real
            || (id.kind == .rawNumber && id.rawText.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }))
        guard Self.namesRecord(ValueKinds(id.kind), real: real) else {
            let found = real ? "a number with a fraction or exponent" : id.kind.described
            throw ReshapeError(
                .ruleFailed, "the id must be a string or an integer, found \(found)",
                path: selection.path(of: match, .index(index), .key(idKey)))
        }
        var name = ByteBuffer()
        switch id.kind {
        case .string: name.append(id.stringBytes)
        case .integer: NumberText.append(id.integerValue, to: &name)
        default: name.append(id.rawText)  // An integer beyond 64 bits, as written.
        }
        try selection.document.grow(Self.growth(idText: name.count))
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

    /// On a record's tokens: a selected array becomes `{`, each element `"id":` and the element
    /// (without its id member unless `keepId`), and `}`. An element's id may come after members
    /// that go before it, so each element's tokens are held until its end. A selected value that
    /// is not an array, an element that is not an object or has no id of a string or an integer,
    /// and a selection inside an element need the tree; two elements with one id make the writer
    /// give up (the tree names the duplicate).
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker {
        guard let matcher = PathMatcher(path, filters: true), let parent = context.recordParent(matcher) else { return .needsTree }
        let idKey = Array(self.idKey.utf8)
        let keepId = self.keepId
        return RecordFilterContext.along(matcher, parent: parent) { cursor, next, arena in
            Filter(cursor: cursor, idKey: idKey, keepId: keepId, next: next, arena: arena)
        }
    }

    private final class Filter: RecordFilter {
        @exclusivity(unchecked) var cursor: PathCursor
        let next: any RecordFilter
        @exclusivity(unchecked) var aside = AsideFlag()
        let arena: TokenArena
        let idName: RecordToken
        let keepId: Bool
        /// Holds `idName`'s bytes.
        let kept: TokenArena
        /// A selected array is open: its elements come.
        @exclusivity(unchecked) var inArray = false
        /// The tokens of the element being read, and how deep in it the next one lies.
        @exclusivity(unchecked) var held: [RecordToken] = []
        @exclusivity(unchecked) var inElement = 0
        /// The element's id, once read; `atId`: the id member's value comes next.
        @exclusivity(unchecked) var id: RecordToken? = nil
        @exclusivity(unchecked) var atId = false

        init(cursor: PathCursor, idKey: [UInt8], keepId: Bool, next: any RecordFilter, arena: TokenArena) {
            self.cursor = cursor
            self.next = next
            self.arena = arena
            self.keepId = keepId
            let kept = TokenArena()
            idName = RecordToken(.name, idKey.withUnsafeBytes { kept.keep($0) }, flag: false)
            self.kept = kept
        }

        func start(key: UnsafeRawBufferPointer?) -> Bool {
            cursor.start(key: key)
            inArray = false
            held.removeAll(keepingCapacity: true)
            inElement = 0
            id = nil
            atId = false
            return next.start(key: key)
        }

        func ignores(_ token: RecordToken) -> Bool { cursor.peek() == 0 && !inArray }

        /// A container it ignores, or in which its path selects only members of some names at any
        /// depth (`$..name`), watched for them (`PathCursor.watches`).
        func passes(_ token: RecordToken, into pass: inout ContainerPass) -> Bool {
            guard !inArray else { return false }
            let states = cursor.peek()
            return states == 0 || cursor.watches(states, into: &pass)
        }

        func skip(_ token: RecordToken) { cursor.skip() }

        /// Two ids may meet: the writer compares the names of the objects made.
        var renamesMembers: Bool { true }
        /// A filter after it may drop names: it compares the ids of the object it makes.
        @exclusivity(unchecked) var comparesNames = false
        @exclusivity(unchecked) var ids = DistinctNames()

        func namesMayBeDropped() { comparesNames = true }

        func take(_ token: RecordToken) -> Bool {
            if aside.isSet { return next.take(token) }
            let states = cursor.take(token)
            if inArray {
                if inElement == 0 {
                    // An element starts, or the array ends.
                    if token.kind == .arrayEnd {
                        inArray = false
                        return next.take(.objectEnd)
                    }
                    guard ArrayToKeyed.elementKinds.verdict(token) == .edits, !cursor.selects(states) else { return false }
                    held.removeAll(keepingCapacity: true)
                    held.append(token)
                    inElement = 1
                    id = nil
                    return true
                }
                if token.startsValue && cursor.selects(states) { return false }
                if atId {
                    atId = false
                    guard ArrayToKeyed.namesRecord(ValueKinds(token.kind), real: token.kind == .number && token.flag) else { return false }
                    id = RecordToken(name: token.bytes, hash: RecordNames.hash(token.bytes), plain: token.kind == .number || token.flag)
                    arena.grow(ArrayToKeyed.growth(idText: token.bytes.count))
                    if !keepId { return true }
                    held.append(token)
                    return true
                }
                if inElement == 1 && token.isName(idName) {
                    guard id == nil else { return false }
                    atId = true
                    if !keepId { return true }
                }
                held.append(token)
                if token.opens {
                    inElement += 1
                } else if token.closes {
                    inElement -= 1
                    if inElement == 0 {
                        // The element ends: its id, then the element.
                        guard let id else { return false }
                        if comparesNames { guard ids.insert(id.hash, at: 0) else { return false } }
                        guard next.take(id) else { return false }
                        for held in held { guard next.take(held) else { return false } }
                    }
                }
                return true
            }
            guard token.startsValue, cursor.selects(states) else { return next.take(token) }
            // A value it leaves would pass on here; `.arrays` leaves none.
            guard ArrayToKeyed.selects.verdict(token) == .edits else { return false }
            inArray = true
            ids.reset()
            return next.take(.objectStart)
        }
    }
}
