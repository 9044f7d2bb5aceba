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

    /// It flattens objects; a selected `null` stays `null`, any other value is an error.
    static var selects: SelectedKinds { .objectsOrNull }
    /// The member: an object is taken apart into the selected object; one it leaves (`null`) is
    /// removed with its name; any other value is an error at the member.
    static var memberKinds: SelectedKinds { .objectsOrNull }

    /// The name a member of the flattened object takes in its parent: the prefix, then its own.
    static func movedName<Name: Sequence<UInt8>>(_ name: Name, prefix: [UInt8]) -> [UInt8] { prefix + name }

    /// What moving `count` members adds to the output: the prefix, once per name.
    static func growth(moving count: Int, prefix: [UInt8]) -> OutputGrowth { .text(prefix.count.multipliedClamped(by: count)) }

    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        let memberBytes = Array(member.utf8)
        let prefixBytes = Array(prefix.utf8)
        // Deepest first: an object inside the member is flattened before the member is taken apart.
        for match in try selection.editOrder() {
            let object = selection.node(match)
            guard try Self.selects.edits(object, at: match, in: selection) else { continue }
            try document.charge(1)
            guard let inner = try member.withUTF8Bytes({ (bytes) throws(ReshapeError) in try object.member(bytes) }) else {
                continue
            }
            guard try Self.memberKinds.edits(inner, at: match, in: selection, .key(member)) else {
                try document.charge(2)
                _ = memberBytes.withUnsafeBytes { Tree.removeMember(of: object, named: $0) }
                continue
            }
            // Rebuilding an object: as `Document.charge` counts it, 16 and 4 per member.
            try document.charge((object.objectCount + inner.objectCount).multipliedClamped(by: 4).addingClamped(16))
            try document.grow(Self.growth(moving: inner.objectCount, prefix: prefixBytes))
            // Every name the inner members take, checked against the object's others first.
            var problem: ReshapeError? = nil
            inner.forEachStoredMember { key, _ in
                guard problem == nil else { return }
                let name = Self.movedName(key, prefix: prefixBytes)
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
                        let name = Self.movedName(innerKey, prefix: prefixBytes)
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
}

// MARK: Streaming (see `RecordPlan`, `RecordFilter`)

extension Flatten {
    /// Per record when it flattens records or values inside them; the collection and the objects
    /// above it would change what holds the records.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        insideRecords(&step, "changes the collection or its envelope")
    }

    /// On a record's tokens: in a selected object, the member's name is not passed on, nor its
    /// value's braces, and the names of its members go on prefixed; nothing is held. A name taken
    /// twice makes the writer give up (the tree names it); so does a member that is neither an
    /// object nor `null`, and a selected object inside the member (the tree flattens it first).
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker {
        guard let matcher = PathMatcher(path, filters: true), let parent = context.recordParent(matcher) else { return .needsTree }
        let member = TokenName(self.member)
        let prefix = Array(self.prefix.utf8)
        return RecordFilterContext.along(matcher, parent: parent) { cursor, next, arena in
            Filter(cursor: cursor, member: member, prefix: prefix, next: next, arena: arena)
        }
    }

    private final class Filter: RecordFilter {
        @exclusivity(unchecked) var cursor: PathCursor
        let member: TokenName
        let prefix: [UInt8]
        let next: any RecordFilter
        @exclusivity(unchecked) var aside = AsideFlag()
        let arena: TokenArena
        /// Per container open among the tokens taken (the member's object aside): whether it is a
        /// selected object.
        @exclusivity(unchecked) var selected: [Bool] = []
        /// The member's name was taken: its value comes next.
        @exclusivity(unchecked) var atMember = false
        /// How deep inside the member's object the next token lies; 0 outside it.
        @exclusivity(unchecked) var inMember = 0
        /// The names moved before, with the prefix (records repeat the same few): 1 + their index
        /// in `movedNames`, their bytes kept by `moved`.
        let moved = KnownNames()
        @exclusivity(unchecked) var movedNames: [RecordToken] = []

        init(cursor: PathCursor, member: TokenName, prefix: [UInt8], next: any RecordFilter, arena: TokenArena) {
            self.cursor = cursor
            self.member = member
            self.prefix = prefix
            self.next = next
            self.arena = arena
        }

        /// `token`'s name with the prefix (`Flatten.movedName`), made once per name.
        private func prefixed(_ token: RecordToken) -> RecordToken {
            if let known = moved.find(token) { return movedNames[Int(known) - 1] }
            let name = Flatten.movedName(token.bytes, prefix: prefix).withUnsafeBytes { bytes in
                RecordToken(name: moved.isFull ? arena.keep(bytes) : moved.kept.keep(bytes), hash: RecordNames.hash(bytes), plain: JSONText.isPlain(bytes))
            }
            if !moved.isFull {
                movedNames.append(name)
                moved.add(token, Int32(movedNames.count))
            }
            return name
        }

        /// Moved names may meet the object's own: the writer compares them.
        var renamesMembers: Bool { true }
        /// A filter after it may drop names: it compares the names of the objects it flattens.
        @exclusivity(unchecked) var comparesNames = false
        @exclusivity(unchecked) var names = DistinctNames()

        func namesMayBeDropped() { comparesNames = true }

        /// A member of a record it flattens went by without its tokens: its name counts too.
        func memberWentBy(named hash: UInt64) -> Bool {
            guard selected.count == 1, selected[0] else { return true }
            return names.insert(hash, at: 1)
        }

        func start(key: UnsafeRawBufferPointer?) -> Bool {
            cursor.start(key: key)
            selected.empty()
            names.reset()
            atMember = false
            inMember = 0
            return next.start(key: key)
        }

        func ignores(_ token: RecordToken) -> Bool { cursor.peek() == 0 && !atMember }

        /// A container it ignores, or in which its path selects only members of some names at any
        /// depth (`$..name`), watched for them (`PathCursor.watches`).
        func passes(_ token: RecordToken, into pass: inout ContainerPass) -> Bool {
            guard !atMember else { return false }
            let states = cursor.peek()
            return states == 0 || cursor.watches(states, into: &pass)
        }

        func skip(_ token: RecordToken) { cursor.skip() }

        func take(_ token: RecordToken) -> Bool {
            if aside.isSet { return next.take(token) }
            let states = cursor.take(token)
            if atMember {
                atMember = false
                switch Flatten.memberKinds.verdict(token) {
                case .leaves: return true  // Removed, with its name.
                case .edits:
                    guard !cursor.selects(states) else { return false }
                    inMember = 1
                    return true
                case .fails: return false
                }
            }
            if inMember > 0 {
                if token.startsValue && cursor.selects(states) { return false }
                if token.opens {
                    inMember += 1
                } else if token.closes {
                    inMember -= 1
                    if inMember == 0 { return true }  // The member's closing brace.
                }
                guard inMember == 1, token.kind == .name else { return next.take(token) }
                // A member of the flattened object's, now at its depth.
                let moved: RecordToken
                if prefix.isEmpty {
                    moved = token
                } else {
                    moved = prefixed(token)
                    arena.grow(Flatten.growth(moving: 1, prefix: prefix))
                }
                if comparesNames { guard names.insert(moved.hash, at: cursor.depth - 1) else { return false } }
                return next.take(moved)
            }
            switch token.kind {
            case .name:
                if selected.last == true {
                    if member.names(token) {
                        atMember = true
                        return true
                    }
                    if comparesNames { guard names.insert(token.hash, at: cursor.depth) else { return false } }
                }
            case .objectEnd, .arrayEnd:
                if selected.removeLast() && comparesNames { names.close(cursor.depth + 1) }
            default:
                let verdict = cursor.selects(states) ? Flatten.selects.verdict(token) : .leaves
                guard verdict != .fails else { return false }
                if token.opens { selected.append(verdict == .edits) }
            }
            return next.take(token)
        }
    }
}

extension Flatten {
    /// A record's members that the path selects or selects in; in a selected record, `member`.
    func recordMemberNeeds(_ context: RecordFilterContext) -> MemberNeeds? {
        guard let matcher = PathMatcher(path, filters: true) else { return nil }
        let member = TokenName(self.member)
        return context.pathNeeds(matcher) { name in member.names(name) ? .all : [] }
    }
}
