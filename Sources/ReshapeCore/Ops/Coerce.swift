/// `coerce`: converts the selected values to one JSON type: `"12.50"` to 12.5, `"3"` to 3,
/// `"true"`/`"false"` to booleans, numbers to their text.
///
/// `null` stays `null` for every target (an absent value is not a failure). A value that cannot
/// be converted is an error, or becomes `null` (`onFail: "null"`), or stays as it is (`"keep"`).
struct Coerce: PathOperation {
    static let name = "coerce"

    enum Target: String, CaseIterable {
        /// A JSON number: integer text becomes an integer, other number text a real, and numbers
        /// beyond a double's range keep their exact text.
        case number
        /// A whole number that fits in 64 bits, from an integer, a whole real, or such text.
        case integer
        /// Text: numbers as they would be written, booleans as `true`/`false`.
        case string
        /// `true` or `false`, from booleans or exactly the strings `"true"` and `"false"`.
        case boolean
    }

    enum OnFail: String, CaseIterable {
        case error
        case null
        case keep
    }

    let path: JSONPath
    let to: Target
    let onFail: OnFail

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path")
        to = try params.choice("to", default: Target.number)
        onFail = try params.choice("onFail", default: OnFail.error)
    }

    /// Looks at the selected values.
    var rawAccess: RawAccess { .matches(of: path) }

    /// What a selected value becomes, on either route (see `ValueEdit`).
    static func edit<Values: FilterValues>(_ value: Values.Value, in values: Values, to: Target, onFail: OnFail) -> ValueEdit<Values.Value> {
        let kind = values.kind(of: value)
        if case .null = kind { return .keep }
        var converted = true
        let edit = convert(value, of: kind, in: values, to: to, converted: &converted)
        if converted { return edit }
        switch onFail {
        case .error: return .fail("cannot coerce \(values.describedWithValue(value)) to \(to == .integer ? "an" : "a") \(to.rawValue)")
        case .null: return .null
        case .keep: return .keep
        }
    }

    /// A boolean as text, made once (not for every value coerced).
    private static let trueText = Array("true".utf8)
    private static let falseText = Array("false".utf8)

    /// What `edit` adds to the output: a value made text gains its quotes (a number or a boolean
    /// written as text is never longer than that).
    static func growth<Value>(of edit: ValueEdit<Value>, to: Target) -> OutputGrowth {
        if to == .string, case .scalar = edit { return .text(2) }
        return OutputGrowth()
    }

    /// The value converted (`.keep` when it already has the type); `converted` false when it
    /// cannot be. (Not an optional edit: with one, valgrind reported a branch on uninitialised
    /// bytes for every `.scalar(.string)` edit.)
    private static func convert<Values: FilterValues>(
        _ value: Values.Value, of kind: FilterValueKind, in values: Values, to: Target, converted: inout Bool
    ) -> ValueEdit<Values.Value> {
        switch (to, kind) {
        case (.number, .number), (.string, .string), (.boolean, .bool):
            return .keep
        case (.number, .string):
            if let literal = NumberLiteral.exact(values.stringBytes(of: value)) { return .scalar(.number(literal)) }
        case (.integer, .number):
            var edit: ValueEdit<Values.Value> = .keep
            let read = values.withNumberText(of: value) { text in
                guard let literal = NumberLiteral.exact(text) else { return false }
                if case .integer = literal.held { return true }
                guard let integral = literal.integralValue else { return false }
                edit = .scalar(.integer(integral))
                return true
            }
            if read { return edit }
        case (.integer, .string):
            if let integral = NumberLiteral.exact(values.stringBytes(of: value))?.integralValue { return .scalar(.integer(integral)) }
        case (.string, .number):
            // The number as the writer writes it: digits, sign, point and exponent only (an
            // integer as it is read).
            var bytes: [UInt8] = []
            _ = values.withNumberText(of: value) { text in
                guard let literal = NumberLiteral.exact(text) else { return false }
                if literal.isReal {
                    var canonical = ByteBuffer(capacity: 32)
                    literal.appendCanonical(to: &canonical)
                    bytes = canonical.withBytes { Array($0) }
                } else {
                    bytes = Array(text)
                }
                return true
            }
            return .scalar(.string(bytes))
        case (.string, .bool(let flag)):
            return .scalar(.string(flag ? Self.trueText : Self.falseText))
        case (.boolean, .string):
            let bytes = values.stringBytes(of: value)
            if bytes.elementsEqual("true".utf8) { return .scalar(.bool(true)) }
            if bytes.elementsEqual("false".utf8) { return .scalar(.bool(false)) }
        default:
            break
        }
        converted = false
        return .keep
    }

    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        let values = TreeFilterValues(root: nil, document: document)
        // Deepest first: replacing a container that fails (onFail "null") frees what is inside it,
        // so everything inside must have been handled already.
        for match in try selection.editOrder() {
            let node = selection.node(match)
            // Reading a number out of text, or writing one as text, is linear in its length.
            if node.kind == .string { try document.charge(node.stringBytes.count / 16) }
            if node.kind == .rawNumber { try document.charge(node.rawText.count / 16) }
            let edit = Self.edit(node, in: values, to: to, onFail: onFail)
            try document.grow(Self.growth(of: edit, to: to))
            try edit.apply(at: match, in: selection)
        }
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFastPath`)

extension Coerce {
    /// Per record when it coerces values inside records.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        insideRecords(&step, "coerces the collection or its envelope")
    }

    /// On a record's tokens: each selected value is converted as `edit` says (a container is
    /// never converted: with `onFail` "null" it is dropped). A value that cannot be converted
    /// needs the tree with `onFail` "error" (which names it).
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker {
        guard let matcher = PathMatcher(path, filters: true), let parent = context.recordParent(matcher) else { return .needsTree }
        let to = self.to
        let onFail = self.onFail
        // `$..followers`: a container in those states goes by as text, those members' scalar
        // values converted by the pass that copies it (`ContainerPass.edit(named:_:)`).
        let editsBelow = EditsBelow(matcher, textEdit)
        return RecordFilterContext.along(matcher, parent: parent) { cursor, next, arena in
            Filter(cursor: cursor, to: to, onFail: onFail, editsBelow: editsBelow, next: next, arena: arena)
        }
    }

    /// `edit` on a scalar's token, as a container copied from the text converts it: nil where
    /// the tree must name the value it cannot convert.
    var textEdit: TextValueEdit {
        let to = self.to
        let onFail = self.onFail
        return { token in
            let one = [token]
            let edit = Coerce.edit(0..<1, in: TokenFilterValues(tokens: one[...], arena: nil), to: to, onFail: onFail)
            let growth = Coerce.growth(of: edit, to: to).bound
            switch edit {
            case .keep: return (.keep, growth)
            case .null: return (.null, growth)
            case .scalar(let scalar): return (.scalar(scalar), growth)
            default: return nil
            }
        }
    }

    /// A record's member goes past the filters as `RecordFilterContext.pathNeeds` says; one whose
    /// value holds the selected members at any depth goes past as text, converted on it.
    func recordMemberNeeds(_ context: RecordFilterContext) -> MemberNeeds? {
        PathMatcher(path, filters: true).flatMap { context.pathNeeds($0, editingBelow: textEdit) }
    }

    private final class Filter: RecordFilter {
        /// It changes scalars; a container it cannot convert fails or stays, but with
        /// `onFail: "null"` becomes `null`, names and all.
        var passesEveryName: Bool { onFail != .null }

        @exclusivity(unchecked) var cursor: PathCursor
        let to: Target
        let onFail: OnFail
        let next: any RecordFilter
        @exclusivity(unchecked) var aside = AsideFlag()
        let arena: TokenArena
        @exclusivity(unchecked) var skipper = ValueSkipper()
        /// The selected value, as the one token of a value.
        @exclusivity(unchecked) var one: [RecordToken] = [.null]
        let editsBelow: EditsBelow?

        init(
            cursor: PathCursor, to: Target, onFail: OnFail, editsBelow: EditsBelow?,
            next: any RecordFilter, arena: TokenArena
        ) {
            self.cursor = cursor
            self.to = to
            self.onFail = onFail
            self.editsBelow = editsBelow
            self.next = next
            self.arena = arena
        }

        func start(key: UnsafeRawBufferPointer?) -> Bool {
            cursor.start(key: key)
            skipper = ValueSkipper()
            return next.start(key: key)
        }

        func ignores(_ token: RecordToken) -> Bool { cursor.peek() == 0 && !skipper.active }

        /// A container in which the path selects only members of some names, at any depth
        /// (`$..followers`), goes by as text with their values converted.
        func passes(_ token: RecordToken, into pass: inout ContainerPass) -> Bool {
            guard !skipper.active else { return false }
            let states = cursor.peek()
            if states == 0 { return true }
            // Elsewhere, watched for the names its path selects at any depth (`PathCursor.watches`).
            return editsBelow?.passes(states, into: &pass) ?? cursor.watches(states, into: &pass)
        }

        /// It converts values in the record as its member needs say (a record it selects
        /// needs every member).
        func passesMembers(_ token: RecordToken) -> Bool { !skipper.active }

        func skip(_ token: RecordToken) { cursor.skip() }

        func take(_ token: RecordToken) -> Bool {
            if aside.isSet { return next.take(token) }
            if skipper.active {
                skipper.take(token)
                return true
            }
            let states = cursor.take(token)
            guard token.startsValue, cursor.selects(states) else { return next.take(token) }
            one[0] = token
            let edit = Coerce.edit(0..<1, in: TokenFilterValues(tokens: one[...], arena: nil), to: to, onFail: onFail)
            switch edit {
            case .scalar(let scalar):
                arena.grow(Coerce.growth(of: edit, to: to))
                return next.take(scalar.token(keptIn: arena))
            case .keep:
                return next.take(token)
            case .null:
                // The tree converts (and counts) what the path selects inside a container before
                // it drops the container: that needs the tree.
                if token.opens && states & ~cursor.matcher.selected != 0 { return false }
                cursor.drop(token)
                skipper.begin(token)
                return next.take(.null)
            default:
                return false  // The tree names the value it cannot convert.
            }
        }
    }
}
