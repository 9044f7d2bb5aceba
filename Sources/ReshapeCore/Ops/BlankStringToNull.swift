/// `blankStringToNull`: each selected `""` becomes `null` (APIs that send `""` for a missing
/// optional string or enum); with `trim`, strings of only white space (Unicode White_Space) too.
struct BlankStringToNull: PathOperation {
    static let name = "blankStringToNull"
    let path: JSONPath
    let trim: Bool

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path", default: "$..*")
        trim = try params.bool("trim", default: false)
    }

    /// Looks at the selected values.
    var rawAccess: RawAccess { .matches(of: path) }

    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        let values = TreeFilterValues(root: nil, document: document)
        // Replacing a value in place moves nothing else, so any order is safe.
        for match in selection.matches {
            let node = selection.node(match)
            guard node.kind == .string else { continue }
            let bytes = node.stringBytes
            // With `trim`, a string is read whole: ASCII bytes by bytes (a step per 16), others
            // through Unicode properties (a step per byte).
            if trim { try document.charge(bytes.allSatisfy { $0 < 0x80 } ? bytes.count / 16 : bytes.count) }
            try Self.edit(node, in: values, trim: trim).apply(at: match, in: selection)
        }
    }

    /// What a selected value becomes, on either route (see `ValueEdit`).
    static func edit<Values: FilterValues>(_ value: Values.Value, in values: Values, trim: Bool) -> ValueEdit<Values.Value> {
        guard case .string = values.kind(of: value), isBlank(values.stringBytes(of: value), trim: trim) else { return .keep }
        return .null
    }

    /// `""`, or with `trim` a string of only white space. Shared with the streaming fast path.
    static func isBlank(_ bytes: UnsafeRawBufferPointer, trim: Bool) -> Bool {
        if bytes.isEmpty { return true }
        guard trim else { return false }
        if bytes.allSatisfy({ $0 < 0x80 }) {
            return bytes.allSatisfy { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) }
        }
        return String(jsonBytes: bytes).unicodeScalars.allSatisfy(\.properties.isWhitespace)
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFastPath`)

extension BlankStringToNull {
    /// Per record: it never changes the collection or the objects above it.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        step.along(path) { _, _ in .perRecord }
    }

    /// On the text over `$..*`: each blank string is written `null`.
    func addToFastPath(_ builder: inout RecordFastPath.Builder, collection before: RecordPlan.Kind, after: RecordPlan.Kind) -> Bool {
        guard path.isEveryDescendant else { return false }
        builder.nullBlankStringsEverywhere(trim: trim)
        return true
    }

    /// On a record's tokens: a selected blank string is passed on as `null`.
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker {
        guard let matcher = PathMatcher(path, filters: true), let parent = context.recordParent(matcher) else { return .needsTree }
        let trim = self.trim
        // `$..status`: a container in those states goes by as text, those members' blank strings
        // made `null` by the pass that copies it (`ContainerPass.edit(named:_:)`).
        let editsBelow = EditsBelow(matcher, textEdit)
        return RecordFilterContext.along(matcher, parent: parent) { cursor, next, _ in
            Filter(cursor: cursor, trim: trim, editsBelow: editsBelow, next: next)
        }
    }

    /// `edit` on a scalar's token, as a container copied from the text edits it.
    var textEdit: TextValueEdit {
        let trim = self.trim
        return { token in
            let one = [token]
            guard case .null = Self.edit(0..<1, in: TokenFilterValues(tokens: one[...], arena: nil), trim: trim) else { return (.keep, 0) }
            return (.null, 0)
        }
    }

    /// A record's members whose values are strings or containers, when the path selects them or
    /// selects in them (nothing else holds a string); in a container whose every value the path
    /// selects (`$..*`), or where it selects only members of some names at any depth
    /// (`$..status`), that is done on the text.
    func recordMemberNeeds(_ context: RecordFilterContext) -> MemberNeeds? {
        guard let matcher = PathMatcher(path, filters: true), let record = context.recordStates(matcher) else { return nil }
        let trim = self.trim
        let below = EditsBelow(matcher, textEdit)
        let watched = WatchedNames(matcher)
        return { name in
            let states = matcher.child(record, name: name.bytes, hash: name.hash)
            guard states != 0 else { return MemberUse() }
            var edited = MemberUse()
            if below?.passes(states, into: &edited.pass) == true { return edited }
            if let watchedUse = watched?.use(states) { return watchedUse }
            guard matcher.selectsEverythingBelow(states) else {
                // A string when selected; a container, which may hold selected strings.
                return MemberUse(tokens: states & matcher.selected != 0 ? [.string, .object, .array] : .containers, keepsMember: true)
            }
            var use = MemberUse(tokens: .string, keepsMember: true)
            use.pass.nullBlankStrings = true
            use.pass.trim = trim
            return use
        }
    }

    private final class Filter: RecordFilter {
        /// It adds or changes values, and drops no name.
        var passesEveryName: Bool { true }

        /// It fails on nothing.
        func letsRemovedRecordGo(_ record: UnsafeRawBufferPointer) -> Bool { true }

        @exclusivity(unchecked) var cursor: PathCursor
        let trim: Bool
        let editsBelow: EditsBelow?
        let next: any RecordFilter
        @exclusivity(unchecked) var aside = AsideFlag()

        init(cursor: PathCursor, trim: Bool, editsBelow: EditsBelow?, next: any RecordFilter) {
            self.cursor = cursor
            self.trim = trim
            self.editsBelow = editsBelow
            self.next = next
        }

        func start(key: UnsafeRawBufferPointer?) -> Bool {
            cursor.start(key: key)
            return next.start(key: key)
        }

        func ignores(_ token: RecordToken) -> Bool { cursor.peek() == 0 }

        /// Everything below the container is selected (`$..*`): each blank string in it becomes
        /// `null` on the text; or only members of some names at any depth (`$..status`): theirs.
        func passes(_ token: RecordToken, into pass: inout ContainerPass) -> Bool {
            let states = cursor.peek()
            if states == 0 { return true }
            if editsBelow?.passes(states, into: &pass) == true { return true }
            guard cursor.matcher.selectsEverythingBelow(states) else { return cursor.watches(states, into: &pass) }
            pass.nullBlankStrings = true
            pass.trim = pass.trim || trim
            return true
        }

        /// It edits strings inside the record as its member needs say (a record is no string).
        func passesMembers(_ token: RecordToken) -> Bool { true }

        func skip(_ token: RecordToken) { cursor.skip() }

        /// A selected string, as the one token of a value.
        @exclusivity(unchecked) var one: [RecordToken] = [.null]

        func take(_ token: RecordToken) -> Bool {
            if aside.isSet { return next.take(token) }
            let states = cursor.take(token)
            guard token.kind == .string && cursor.selects(states) else { return next.take(token) }
            one[0] = token
            guard case .null = BlankStringToNull.edit(0..<1, in: TokenFilterValues(tokens: one[...], arena: nil), trim: trim) else {
                return next.take(token)
            }
            return next.take(.null)
        }
    }
}
