/// `keyedToArray`: each selected object `{k: {...}}` becomes `[{idKey: k, ...}]`.
///
/// The id comes first and member order is kept. Firebase's quirks are handled: `null` (an empty
/// collection) becomes `[]`, and an array (what Firebase sends when the keys are small integers)
/// becomes records whose id is the index as a string, skipping `null` holes.
struct KeyedToArray: PathOperation {
    static let name = "keyedToArray"

    enum OnConflict: String, CaseIterable {
        /// A member that already has `idKey` is an error.
        case error
        /// The collection's key wins.
        case overwrite
        /// The member's own field wins.
        case keep
    }

    enum NonObject: String, CaseIterable {
        /// A member that is not an object is an error.
        case error
        /// It is dropped.
        case skip
        /// It becomes `{idKey: k, valueKey: v}`.
        case wrap
    }

    let path: JSONPath
    let idKey: String
    let wrapIn: String?
    let onConflict: OnConflict
    let nonObject: NonObject
    let valueKey: String

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path", default: "$")
        idKey = try params.string("idKey", default: "id")
        wrapIn = try params.optionalString("wrapIn")
        onConflict = try params.choice("onConflict", default: OnConflict.error)
        nonObject = try params.choice("nonObject", default: NonObject.error)
        valueKey = try params.string("valueKey", default: "value")
        if nonObject == .wrap && valueKey == idKey {
            throw params.failure("\"valueKey\" and \"idKey\" must differ when \"nonObject\" is \"wrap\"")
        }
    }

    /// Looks into the collections; records may stay raw (their text gets the id put in front).
    var rawAccess: RawAccess {
        guard let depth = path.fixedDepth else { return .anyDepth }
        return .below(depth + 1)
    }

    /// It makes records of objects, of arrays (Firebase's numbered records) and of `null` (no
    /// records); any other selected value is an error.
    static var selects: SelectedKinds {
        SelectedKinds(edits: [.object, .array, .null], leaves: [], expected: "an object (or null, or an array)")
    }

    /// What a member of a collection becomes, by the kind of its value.
    enum RecordShape {
        /// A record: the object with its id put first.
        case record
        /// Nothing (`nonObject: skip`).
        case skipped
        /// `{idKey: k, valueKey: v}` (`nonObject: wrap`).
        case wrapped
        /// The rule fails there (`nonObject: error`).
        case fails
    }

    /// What each record gains in the output, its id: `{"idKey":"id",`, for an id key of
    /// `idKeyBytes` bytes and an id of `idBytes` (counted by the tree, the filters and the fused
    /// pass alike).
    static func recordGrowth(idKeyBytes: Int, idBytes: Int) -> OutputGrowth {
        OutputGrowth(values: 1, bytes: idKeyBytes + idBytes + 6)
    }

    /// What a member whose value is of kind `kind` becomes: the one decision about records, on
    /// the tree and on a record's tokens (whose filters take only `.record` and leave the rest
    /// to the tree).
    func shape(of kind: ValueKinds) -> RecordShape {
        if kind == .object { return .record }
        switch nonObject {
        case .error: return .fails
        case .skip: return .skipped
        case .wrap: return .wrapped
        }
    }

    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        for match in try selection.editOrder() {
            if let wrapIn { try document.grow(.wrapping(nameBytes: wrapIn.utf8.count)) }
            let records = try array(from: selection.node(match), at: match, in: selection)
            try selection.replace(match, with: try wrapped(records))
        }
    }

    /// The id member holds the name its record had in the collection.
    func addsParentNameAsMember(_ name: KeyBytes) -> Bool { name.elementsEqual(idKey.utf8) }

    /// `records` (stolen), or a new object holding it under `wrapIn`.
    private func wrapped(_ records: Node) throws(ReshapeError) -> Node {
        guard let wrapIn else { return records }
        let wrapper: Node
        do throws(ReshapeError) {
            wrapper = try Make.object()
        } catch {
            Make.release(records)
            throw error
        }
        do throws(ReshapeError) {
            try Make.set(wrapper, wrapIn, records)  // Steals records, also on failure.
        } catch {
            Make.release(wrapper)
            throw error
        }
        return wrapper
    }

    /// The record for a raw object, made on its text: `{"idKey":"id",` then the object's own
    /// members, exactly the bytes the tree would be written as. Nil when the object already has
    /// `idKey` and `onConflict` wants one of the two kept (the tree path does that).
    private func rawRecord(
        id: KeyBytes, value: Node, at match: Int32, _ step: PathStep, in selection: Selection
    ) throws(ReshapeError) -> Node? {
        var name = ByteBuffer()
        JSONText.appendQuoted(idKey, to: &name)
        let text = value.rawText
        // The record's text is read for the id and copied: a step per 64 bytes.
        try selection.document.charge(text.count / 64)
        if RawValue.object(text, hasMemberQuoted: name.bytes) {
            guard onConflict == .error else { return nil }
            throw conflict(at: match, step, in: selection)
        }
        var record = ByteBuffer(capacity: text.count + name.count + id.count + 8)
        RawValue.startContainer(in: &record)
        record.append(UInt8(ascii: "{"))
        record.append(name.bytes)
        record.append(UInt8(ascii: ":"))
        JSONText.appendQuoted(id, to: &record)
        if text.count > 2 {
            record.append(UInt8(ascii: ","))
            record.append(UnsafeRawBufferPointer(rebasing: text[1...]))
        } else {
            record.append(UInt8(ascii: "}"))
        }
        return try RawValue.container(from: record)
    }

    private func conflict(at match: Int32, _ step: PathStep, in selection: Selection) -> ReshapeError {
        ReshapeError(
            .ruleFailed, "the record already has \(quoted(idKey)); set \"onConflict\" to \"overwrite\" or \"keep\"",
            path: selection.path(of: match, step, .key(idKey)))
    }

    /// A new array of records for the collection `node` (borrowed).
    private func array(from node: Node, at match: Int32, in selection: Selection) throws(ReshapeError) -> Node {
        _ = try Self.selects.edits(node, at: match, in: selection)
        let array = try Make.array()
        do throws(ReshapeError) {
            switch node.kind {
            case .null:
                break
            case .object:
                // Records move as they are: a raw record's text gets its id on the text.
                try node.forEachStoredMember { (key, value) throws(ReshapeError) in
                    guard let record = try record(id: key, value: value, at: match, .name(key), in: selection) else { return }
                    try Make.append(array, record)
                }
            case .array:
                for index in 0..<node.arrayCount {
                    guard let value = node.storedElement(index), !value.isNull else { continue }
                    let id = String(index)
                    let record = try id.withUTF8Bytes { (key) throws(ReshapeError) in
                        try self.record(id: key, value: value, at: match, .index(index), in: selection)
                    }
                    if let record { try Make.append(array, record) }
                }
            default:
                break  // `selects` failed above.
            }
        } catch {
            Make.release(array)
            throw error
        }
        return array
    }

    /// A new record `{idKey: id, ...value's members}`, or nil when a non-object is skipped.
    private func record(
        id: KeyBytes, value: Node, at match: Int32, _ step: PathStep, in selection: Selection
    ) throws(ReshapeError) -> Node? {
        // Each record gains its id: {"idKey":"id",
        try selection.document.charge(1)
        try selection.document.grow(Self.recordGrowth(idKeyBytes: idKey.utf8.count, idBytes: id.count))
        if value.kind == .rawObject {
            if let record = try rawRecord(id: id, value: value, at: match, step, in: selection) { return record }
            // The record has the id already and a tree decides which one stays.
            let tree = try RawValue.tree(of: value)
            defer { Make.release(tree) }
            return try record(id: id, value: tree, at: match, step, in: selection)
        }
        let record = try Make.object()
        do throws(ReshapeError) {
            try Make.set(record, idKey, try Make.string(id))
            switch shape(of: ValueKinds(value.kind)) {
            case .record:
                break
            case .fails:
                throw ReshapeError(.ruleFailed, SelectedKinds.objects.failure(found: value.kind.described), path: selection.path(of: match, step))
            case .skipped:
                Make.release(record)
                return nil
            case .wrapped:
                try selection.document.grow(.text(valueKey.utf8.count + 4))
                try Make.set(record, valueKey, Make.retain(value))
                return record
            }
            try selection.document.charge(value.objectCount)
            try value.forEachStoredMember { (key, member) throws(ReshapeError) in
                if key.elementsEqual(idKey.utf8) {
                    switch onConflict {
                    case .error:
                        throw conflict(at: match, step, in: selection)
                    case .overwrite:
                        return
                    case .keep:
                        break  // Replaces the id in place: it stays first.
                    }
                }
                try Make.set(record, key, Make.retain(member))
            }
        } catch {
            Make.release(record)
            throw error
        }
        return record
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFastPath`)

extension KeyedToArray {
    /// Per record when it makes records of the object collection itself (the collection becomes an
    /// array, under `wrapIn` when given), or works inside records.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        step.along(path) { step, reach in
            if reach.selectsAbove { return .wholeDocument("makes records of the collection's ancestor") }
            if reach.selectsCollection {
                guard step.kind == .object else {
                    return .wholeDocument("keyedToArray on an array numbers the records by position")
                }
                step.kind = .array
                if nonObject == .skip { step.mayDropRecords = true }
                if let wrapIn { step.chain.append(Array(wrapIn.utf8)) }
            }
            return .perRecord
        }
    }

    /// On the text, when it makes the records of the collection: the id goes in front of each
    /// record (a record that is not an object, or has the id member already, takes the tree).
    func addToFastPath(_ builder: inout RecordFastPath.Builder, collection before: RecordPlan.Kind, after: RecordPlan.Kind) -> Bool {
        // Without '..', a path that selects the collection selects nothing inside records.
        before == .object && after == .array && path.descendantSegmentCount == 0 && builder.makeRecords(idKey: idKey)
    }

    /// On a record's tokens. Making the collection's records: `{"idKey":"name",` in front of the
    /// record's members (a record that is not an object, or already has `idKey`, takes its
    /// tree). Inside records: each selected object or array becomes `[`, each member's value or
    /// element what `shape(of:)` says (a record `{"idKey":"name",` and its members), and `]`
    /// (in an object under `wrapIn` when given), `null` becomes `[]` (see `Inside`).
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker {
        let idKey = Array(self.idKey.utf8)
        guard let matcher = PathMatcher(path, filters: true), let parent = context.recordParent(matcher) else { return .needsTree }
        if context.kind == .object && context.selectsCollection(path) {
            // The records are made; a path that also selects inside them (`$..*` from above the
            // collection) makes records there too, which the tree does.
            guard parent & ~matcher.selected == 0 else { return .needsTree }
            let shape = self.shape
            return .filter { next, arena in RecordMaker(idKey: idKey, shape: shape, next: next, arena: arena) }
        }
        let wrapIn = self.wrapIn.map { Array($0.utf8) }
        let valueKey = Array(self.valueKey.utf8)
        let overwrites = onConflict == .overwrite
        let shape = self.shape
        return RecordFilterContext.along(matcher, parent: parent) { cursor, next, arena in
            Inside(
                cursor: cursor, idKey: idKey, valueKey: valueKey, wrapIn: wrapIn, overwrites: overwrites, shape: shape,
                next: next, arena: arena)
        }
    }

    /// Making the records: a member named as the id (the record takes its tree). Inside records:
    /// the members the path selects or selects in.
    func recordMemberNeeds(_ context: RecordFilterContext) -> MemberNeeds? {
        guard let matcher = PathMatcher(path, filters: true) else { return nil }
        if context.kind == .object && context.selectsCollection(path) {
            let id = TokenName(idKey)
            return { name in MemberUse(tokens: id.names(name) ? .all : []) }
        }
        return context.pathNeeds(matcher)
    }

    /// Puts the record's name in front of its members.
    private final class RecordMaker: RecordFilter {
        let next: any RecordFilter
        @exclusivity(unchecked) var aside = AsideFlag()
        let arena: TokenArena
        /// The op's `shape(of:)`: what is not a `.record` is the tree's.
        let shape: (ValueKinds) -> RecordShape
        let idName: RecordToken
        /// Holds `idName`'s bytes.
        let kept: TokenArena
        @exclusivity(unchecked) var key = UnsafeRawBufferPointer(start: nil, count: 0)
        @exclusivity(unchecked) var depth = 0
        /// The id's name, as `RecordPeek` looks for it, and what it finds (reused).
        let idNames: [[UInt8]]
        @exclusivity(unchecked) var found: [(name: Int, value: Range<Int>)] = []

        init(idKey: [UInt8], shape: @escaping (ValueKinds) -> RecordShape, next: any RecordFilter, arena: TokenArena) {
            self.next = next
            self.arena = arena
            self.shape = shape
            let kept = TokenArena()
            idName = RecordToken(.name, idKey.withUnsafeBytes { kept.keep($0) }, flag: idKey.withUnsafeBytes { JSONText.isPlain($0) })
            self.kept = kept
            idNames = [idKey]
        }

        func start(key: UnsafeRawBufferPointer?) -> Bool {
            guard let key else { return false }
            self.key = key
            depth = 0
            // The records are elements from here on.
            return next.start(key: nil)
        }

        func ignores(_ token: RecordToken) -> Bool { depth > 0 }

        func skip(_ token: RecordToken) {}

        /// It adds the id member; every other token goes on as it came.
        var recordMembersMade: [[UInt8]]? { [Array(idName.bytes)] }

        /// A record the filters after it all let go by is copied with its id put first by the
        /// copy, which gives the record back to the filters where this would not make it (a
        /// member named as the id).
        var recordIdKey: [UInt8]? { Array(idName.bytes) }

        /// The id member it adds, a value of at least `Tree.minimumValueBytes`.
        func recordGrowth(idBytes: Int) -> Int { KeyedToArray.recordGrowth(idKeyBytes: idName.bytes.count, idBytes: idBytes).bound }

        /// Unless the record has a member named as the id (the tree decides: an error, or the
        /// member overwritten or kept), found ahead in its text.
        func letsRemovedRecordGo(_ record: UnsafeRawBufferPointer) -> Bool {
            guard RecordPeek.members(idNames, in: record, into: &found) != nil else { return false }
            return found.isEmpty
        }

        /// The record was opened past the filters, its id written and counted with the members
        /// before (`RecordFilterChain.handOver`): the id is not added again.
        func takeResumed(_ token: RecordToken) -> Bool {
            guard depth == 0, token.kind == .objectStart, shape(.object) == .record else { return false }
            depth = 1
            return next.take(token)
        }

        func take(_ token: RecordToken) -> Bool {
            if aside.isSet { return next.take(token) }
            if depth == 0 {
                guard shape(ValueKinds(token.kind)) == .record else { return false }
                depth = 1
                arena.growth = arena.growth.addingClamped(recordGrowth(idBytes: key.count))
                return next.take(token) && next.take(idName) && next.take(RecordToken(.string, key, flag: false))
            }
            if token.opens {
                depth += 1
            } else if token.closes {
                depth -= 1
            } else if depth == 1 && token.isName(idName) {
                return false
            }
            return next.take(token)
        }
    }

    /// Makes records of selected collections inside a record: the members of an object, or the
    /// elements of an array (Firebase's numbered records, `null` holes skipped), each made a
    /// record, skipped or wrapped as `shape(of:)` says. A record that has `idKey` already loses
    /// that member with `onConflict: overwrite`; otherwise the tree decides (the error, or the
    /// record's own id kept first). A selection inside a selected collection, and a name
    /// written with escapes where it may be `idKey`, need the tree too.
    private final class Inside: RecordFilter {
        @exclusivity(unchecked) var cursor: PathCursor
        let idName: RecordToken
        let valueName: RecordToken
        let wrapIn: RecordToken?
        /// `onConflict` is `overwrite`.
        let overwrites: Bool
        /// The op's `shape(of:)`: `.fails` is the tree's.
        let shape: (ValueKinds) -> RecordShape
        let next: any RecordFilter
        @exclusivity(unchecked) var aside = AsideFlag()
        let arena: TokenArena
        /// Holds the bytes of `idName`, `valueName` and `wrapIn`.
        let kept: TokenArena
        /// The selected collection open, if any.
        @exclusivity(unchecked) var collection = Collection.none
        /// In an object collection: the name of the member whose value comes next.
        @exclusivity(unchecked) var name: RecordToken? = nil
        /// In an array collection: the index of the element that comes next.
        @exclusivity(unchecked) var index = 0
        /// How deep the tokens of the current member's value are: 1 at its own members.
        @exclusivity(unchecked) var inValue = 0
        /// What that value becomes.
        @exclusivity(unchecked) var valueShape = RecordShape.record
        /// In a record, the value of its own `idKey` member is being dropped (`overwrite`).
        @exclusivity(unchecked) var droppingId = false

        enum Collection { case none, object, array }

        init(
            cursor: PathCursor, idKey: [UInt8], valueKey: [UInt8], wrapIn: [UInt8]?, overwrites: Bool,
            shape: @escaping (ValueKinds) -> RecordShape, next: any RecordFilter, arena: TokenArena
        ) {
            self.cursor = cursor
            self.shape = shape
            self.overwrites = overwrites
            let kept = TokenArena()
            func name(_ bytes: [UInt8]) -> RecordToken {
                RecordToken(.name, bytes.withUnsafeBytes { kept.keep($0) }, flag: bytes.withUnsafeBytes { JSONText.isPlain($0) })
            }
            idName = name(idKey)
            valueName = name(valueKey)
            self.wrapIn = wrapIn.map(name)
            self.kept = kept
            self.next = next
            self.arena = arena
        }

        func start(key: UnsafeRawBufferPointer?) -> Bool {
            cursor.start(key: key)
            collection = .none
            name = nil
            index = 0
            inValue = 0
            droppingId = false
            return next.start(key: key)
        }

        func ignores(_ token: RecordToken) -> Bool { cursor.peek() == 0 && collection == .none }

        /// A container it ignores, or in which its path selects only members of some names at any
        /// depth (`$..name`), watched for them (`PathCursor.watches`).
        func passes(_ token: RecordToken, into pass: inout ContainerPass) -> Bool {
            guard collection == .none else { return false }
            let states = cursor.peek()
            return states == 0 || cursor.watches(states, into: &pass)
        }

        func skip(_ token: RecordToken) { cursor.skip() }

        func take(_ token: RecordToken) -> Bool {
            if aside.isSet { return next.take(token) }
            let states = cursor.take(token)
            if collection == .none {
                guard token.startsValue, cursor.selects(states) else { return next.take(token) }
                return open(token)
            }
            if inValue > 0 {
                // Below a member's value: a selection there is the tree's (it edits first).
                if token.startsValue && cursor.selects(states) { return false }
                return takeInValue(token)
            }
            switch token.kind {
            case .name:
                name = token
                return true
            case .objectEnd, .arrayEnd:
                // The selected collection's end.
                collection = .none
                guard next.take(.arrayEnd) else { return false }
                return wrapIn == nil || next.take(.objectEnd)
            default:
                guard !cursor.selects(states) else { return false }
                let id: RecordToken
                if collection == .array {
                    defer { index += 1 }
                    if token.kind == .null { return true }  // A hole.
                    id = RecordToken(.string, arena.keep(String(index)), flag: true)
                } else {
                    guard let member = name else { return false }
                    name = nil
                    id = RecordToken(.string, member.bytes, flag: member.flag)
                }
                return begin(token, id: id)
            }
        }

        /// A selected value: an object or an array opens a collection, `null` becomes `[]`.
        private func open(_ token: RecordToken) -> Bool {
            // Another kind's error is the tree's.
            guard KeyedToArray.selects.verdict(token) == .edits else { return false }
            if let wrapIn {
                arena.grow(.wrapping(nameBytes: wrapIn.bytes.count))
                guard next.take(.objectStart), next.take(wrapIn) else { return false }
            }
            switch token.kind {
            case .objectStart, .arrayStart:
                collection = token.kind == .objectStart ? .object : .array
                index = 0
                return next.take(.arrayStart)
            case .null:
                guard next.take(.arrayStart), next.take(.arrayEnd) else { return false }
                return wrapIn == nil || next.take(.objectEnd)
            default:
                return false
            }
        }

        /// The first token of a member's value (or an element's) whose id is `id`.
        private func begin(_ token: RecordToken, id: RecordToken) -> Bool {
            let shape = self.shape(ValueKinds(token.kind))
            // Counted for every member, as the tree counts it (a skipped one too).
            arena.grow(KeyedToArray.recordGrowth(idKeyBytes: idName.bytes.count, idBytes: id.bytes.count))
            switch shape {
            case .fails:
                return false
            case .record:
                guard next.take(token), next.take(idName), next.take(id) else { return false }
            case .skipped:
                break
            case .wrapped:
                arena.grow(.text(valueName.bytes.count + 4))
                guard next.take(.objectStart), next.take(idName), next.take(id), next.take(valueName), next.take(token) else {
                    return false
                }
                if !token.opens { return next.take(.objectEnd) }
            }
            if token.opens {
                inValue = 1
                valueShape = shape
                droppingId = false
            }
            return true
        }

        /// A token inside a member's value that is a container.
        private func takeInValue(_ token: RecordToken) -> Bool {
            let depth = inValue
            if token.opens {
                inValue += 1
            } else if token.closes {
                inValue -= 1
            }
            switch valueShape {
            case .skipped:
                return true
            case .wrapped:
                guard next.take(token) else { return false }
                return inValue > 0 || next.take(.objectEnd)
            case .record, .fails:
                if droppingId {
                    // Until the value is whole: a scalar, or its container closed.
                    if inValue <= 1 { droppingId = false }
                    return true
                }
                if depth == 1 && token.kind == .name {
                    if token.isName(idName) {
                        guard overwrites else { return false }
                        droppingId = true
                        return true
                    }
                    // Escapes may spell `idKey`: the tree compares the names.
                    if !token.flag && overwrites { return false }
                }
                return next.take(token)
            }
        }
    }
}
