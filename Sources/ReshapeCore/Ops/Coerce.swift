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

    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        // Deepest first: replacing a container that fails (onFail "null") frees what is inside it,
        // so everything inside must have been handled already.
        for match in try selection.editOrder() {
            let node = selection.node(match)
            if node.isNull { continue }
            if let converted = try convert(node, in: document) {
                // Text gains its quotes; a number or boolean becoming text is never longer than that.
                if to == .string { try document.grow(by: 2) }
                try selection.replace(match, with: converted)
                continue
            }
            switch onFail {
            case .error:
                throw ReshapeError(
                    .ruleFailed, "cannot coerce \(node.describedWithValue) to \(to == .integer ? "an" : "a") \(to.rawValue)",
                    path: selection.path(of: match))
            case .null:
                try selection.replace(match, with: Make.null())
            case .keep:
                continue
            }
        }
    }

    /// A new node for the converted value; the node itself (retained) when it already has the
    /// type; nil when it cannot be converted.
    private func convert(_ node: Node, in document: Document) throws(ReshapeError) -> Node? {
        let kind = node.kind
        // Reading a number out of text, or writing one as text, is linear in its length.
        if kind == .string { try document.charge(node.stringBytes.count / 16) }
        if kind == .rawNumber { try document.charge(node.rawText.count / 16) }
        switch to {
        case .number:
            switch kind {
            case .integer, .real, .rawNumber: return Make.retain(node)
            case .string:
                guard let literal = NumberLiteral.exact(node.stringBytes) else { return nil }
                return try literal.makeNode()
            default: return nil
            }
        case .integer:
            switch kind {
            case .integer:
                return Make.retain(node)
            case .real:
                guard let value = Int64(exactly: node.realValue) else { return nil }
                return try Make.integer(value)
            case .rawNumber:
                guard let value = NumberLiteral.exact(node.rawText)?.integralValue else { return nil }
                return try Make.integer(value)
            case .string:
                guard let value = NumberLiteral.exact(node.stringBytes)?.integralValue else { return nil }
                return try Make.integer(value)
            default:
                return nil
            }
        case .string:
            switch kind {
            case .string: return Make.retain(node)
            case .integer: return try Make.string(NumberText.text(of: node.integerValue))
            case .real: return try Make.string(NumberText.text(of: node.realValue))
            case .rawNumber: return try Make.string(node.rawText)
            case .bool: return try Make.string(node.isTrue ? "true" : "false")
            default: return nil
            }
        case .boolean:
            switch kind {
            case .bool: return Make.retain(node)
            case .string:
                let bytes = node.stringBytes
                if bytes.elementsEqual("true".utf8) { return Make.bool(true) }
                if bytes.elementsEqual("false".utf8) { return Make.bool(false) }
                return nil
            default: return nil
            }
        }
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFastPath`)

extension Coerce {
    /// Per record when it coerces values inside records.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        insideRecords(&step, "coerces the collection or its envelope")
    }

    /// On a record's tokens: each selected value is converted as `convert` converts its node. A
    /// value that cannot be converted needs the tree with `onFail` "error" (which names it).
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker {
        guard let matcher = PathMatcher(path, filters: true), let parent = context.recordParent(matcher) else { return .needsTree }
        let to = self.to
        let onFail = self.onFail
        return RecordFilterContext.along(matcher, parent: parent) { cursor, next, arena in
            Filter(cursor: cursor, to: to, onFail: onFail, next: next, arena: arena)
        }
    }

    private final class Filter: RecordFilter {
        @exclusivity(unchecked) var cursor: PathCursor
        let to: Target
        let onFail: OnFail
        let next: any RecordFilter
        let arena: TokenArena
        @exclusivity(unchecked) var skipper = ValueSkipper()

        init(cursor: PathCursor, to: Target, onFail: OnFail, next: any RecordFilter, arena: TokenArena) {
            self.cursor = cursor
            self.to = to
            self.onFail = onFail
            self.next = next
            self.arena = arena
        }

        func start(key: UnsafeRawBufferPointer?) -> Bool {
            cursor.start(key: key)
            skipper = ValueSkipper()
            return next.start(key: key)
        }

        func ignores(_ token: RecordToken) -> Bool { cursor.peek() == 0 && !skipper.active }

        func skip(_ token: RecordToken) { cursor.skip() }

        func take(_ token: RecordToken) -> Bool {
            if skipper.active {
                skipper.take(token)
                return true
            }
            let states = cursor.take(token)
            guard token.startsValue, token.kind != .null, cursor.selects(states) else { return next.take(token) }
            if let converted = convert(token) {
                // As the tree counts it: text gains its quotes.
                if to == .string { arena.growth = arena.growth.addingClamped(2) }
                return next.take(converted)
            }
            switch onFail {
            case .error:
                return false
            case .null:
                // The tree converts (and counts) what the path selects inside a container before
                // it drops the container: that needs the tree.
                if token.opens && states & ~cursor.matcher.selected != 0 { return false }
                cursor.drop(token)
                skipper.begin(token)
                return next.take(.null)
            case .keep:
                return next.take(token)
            }
        }

        /// The token of the converted value, as `Coerce.convert` makes its node; nil when it
        /// cannot be converted.
        private func convert(_ token: RecordToken) -> RecordToken? {
            switch to {
            case .number:
                switch token.kind {
                case .number: return token
                case .string:
                    guard let literal = NumberLiteral.exact(token.bytes) else { return nil }
                    return RecordToken(.number, literal.text, flag: literal.isReal)
                default: return nil
                }
            case .integer:
                let value: Int64?
                switch token.kind {
                case .number:
                    let literal = token.number
                    switch literal.held {
                    case .integer: return token
                    case .real(let real): value = Int64(exactly: real)
                    case .text: value = literal.integralValue
                    }
                case .string:
                    value = NumberLiteral.exact(token.bytes)?.integralValue
                default:
                    return nil
                }
                return value.map { RecordToken(.number, arena.keep(String($0)), flag: false) }
            case .string:
                switch token.kind {
                case .string:
                    return token
                case .number:
                    // The number as the writer writes it: digits, sign, point and exponent only.
                    var text = ByteBuffer(capacity: token.bytes.count + 8)
                    token.number.appendCanonical(to: &text)
                    return RecordToken(.string, text.withBytes { arena.keep($0) }, flag: true)
                case .bool:
                    return RecordToken(.string, arena.keep(token.flag ? "true" : "false"), flag: true)
                default:
                    return nil
                }
            case .boolean:
                switch token.kind {
                case .bool: return token
                case .string:
                    if token.bytes.elementsEqual("true".utf8) { return RecordToken(.bool, flag: true) }
                    if token.bytes.elementsEqual("false".utf8) { return RecordToken(.bool, flag: false) }
                    return nil
                default: return nil
                }
            }
        }
    }
}
