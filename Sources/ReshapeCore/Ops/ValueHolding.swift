/// The record filter of ops that replace each selected value by something made from the whole of
/// it (`hoist`, `pluck`, `mapValues`): the tokens of a selected value are held until the value
/// ends, then the op's `ValueEdit` of it (decided as on the tree, on the held tokens seen through
/// `TokenFilterValues`) gives the tokens that take its place; an edit that fails (or a look at
/// the value that gives up) makes the record take its tree, which names the error. A selected
/// value inside a held one is replaced first, when it ends, as the tree edits deepest first.
final class ValueHolding: RecordFilter {
    typealias Edit = (_ tokens: ArraySlice<RecordToken>, _ values: TokenFilterValues) throws(ReshapeError) -> ValueEdit<Range<Int>>
    @exclusivity(unchecked) var cursor: PathCursor
    let next: any RecordFilter
    @exclusivity(unchecked) var aside = AsideFlag()
    let edit: Edit
    /// The tokens of the op's own value number `index` (see `ValueEdit.made`).
    let made: (_ index: Int) -> ArraySlice<RecordToken>
    let arena: TokenArena
    let renames: Bool
    /// The tokens of the selected values open, one after another (a value inside another follows
    /// what was read of that one): one buffer, kept from value to value.
    @exclusivity(unchecked) private var tokens: [RecordToken] = []
    /// The selected values open, innermost last: where each starts in `tokens`, and how deep in it
    /// the next token lies.
    @exclusivity(unchecked) private var held: [(start: Int, depth: Int)] = []
    /// A value's replacement inside another, copied out of `tokens` before its tokens go.
    @exclusivity(unchecked) private var finished: [RecordToken] = []
    /// A selected scalar, as the one token of a value.
    @exclusivity(unchecked) private var scalar: [RecordToken] = [.null]
    /// The tokens of a value made anew (`ValueEdit.array`, `.scalar`).
    @exclusivity(unchecked) private var making: [RecordToken] = []
    /// `null`, the tokens of a value edited to it.
    private let nullTokens = ValueHolding.null
    /// For an op that edits on the text the scalars its path selects by name at any depth.
    let editsBelow: EditsBelow?
    /// For an op that takes a member out of a selected container on the text (`pluck`, `hoist`):
    /// the pass's step for it (`ContainerPass.takeMember(_:)`), and the kind of container's
    /// first token it takes it out of.
    let takingStep: ContainerPass.NameStep?
    let takesFrom: RecordToken.Kind

    /// - Parameter renames: the tokens made may hold names the object had not (the writer
    ///   compares them).
    init(
        cursor: PathCursor, renames: Bool = false, next: any RecordFilter, arena: TokenArena,
        editsBelow: EditsBelow? = nil, taking: ContainerPass.TakenMember? = nil,
        made: @escaping (_ index: Int) -> ArraySlice<RecordToken> = { _ in ValueHolding.null }, edit: @escaping Edit
    ) {
        self.cursor = cursor
        self.renames = renames
        self.next = next
        self.arena = arena
        self.editsBelow = editsBelow
        takingStep = taking.map { ContainerPass.taking($0) }
        takesFrom = taking?.fromElements == true ? .arrayStart : .objectStart
        self.made = made
        self.edit = edit
    }

    /// The tokens that take the place of the held value `tokens`, as the op's edit says; nil when
    /// the record must take its tree.
    private func transform(_ tokens: ArraySlice<RecordToken>) -> ArraySlice<RecordToken>? {
        let made: ValueEdit<Range<Int>>
        do {
            made = try edit(tokens, TokenFilterValues(tokens: tokens, arena: nil))
        } catch {
            return nil
        }
        switch made {
        case .keep:
            return tokens
        case .null:
            return nullTokens
        case .value(let range):
            return tokens[range]
        case .array(let elements):
            making.removeAll(keepingCapacity: true)
            making.append(.arrayStart)
            for element in elements {
                if let element { making += tokens[element] } else { making.append(.null) }
            }
            making.append(.arrayEnd)
            return making[...]
        case .scalar(let scalar):
            making.removeAll(keepingCapacity: true)
            making.append(scalar.token(keptIn: arena))
            return making[...]
        case .made(let index):
            return self.made(index)
        case .fail:
            return nil
        }
    }

    var renamesMembers: Bool { renames }

    func start(key: UnsafeRawBufferPointer?) -> Bool {
        cursor.start(key: key)
        held.empty()
        tokens.empty()
        return next.start(key: key)
    }

    func ignores(_ token: RecordToken) -> Bool { cursor.peek() == 0 && held.isEmpty }

    /// A container in `editsBelow`'s states goes by as text, the selected scalars edited on it;
    /// so does a selected container inside the record, with nothing below it selected, that
    /// `takingStep` takes a member out of.
    func passes(_ token: RecordToken, into pass: inout ContainerPass) -> Bool {
        guard held.isEmpty else { return false }
        let states = cursor.peek()
        if states == 0 { return true }
        if takingStep != nil && token.kind == takesFrom && cursor.selects(states) && states & ~cursor.matcher.selected == 0
            && cursor.depth > 0
        {
            // Not bound to a name: a copy of the step costs a retain of each of its parts.
            pass.takeMember { self.takingStep ?? ContainerPass.nothingStep }
            return true
        }
        // Elsewhere, watched for the names its path selects at any depth (`PathCursor.watches`).
        return editsBelow?.passes(states, into: &pass) ?? cursor.watches(states, into: &pass)
    }

    /// It replaces values in the record as its member needs say (a record it selects needs
    /// every member).
    func passesMembers(_ token: RecordToken) -> Bool { held.isEmpty }

    func skip(_ token: RecordToken) { cursor.skip() }

    func take(_ token: RecordToken) -> Bool {
        if aside.isSet { return next.take(token) }
        let states = cursor.take(token)
        if token.startsValue && cursor.selects(states) {
            if token.opens {
                held.append((tokens.count, 1))
                tokens.append(token)
                return true
            }
            scalar[0] = token
            return put(transform(scalar[...]))
        }
        guard !held.isEmpty else { return next.take(token) }
        tokens.append(token)
        let top = held.count - 1
        if token.opens {
            held[top].depth += 1
        } else if token.closes {
            held[top].depth -= 1
            if held[top].depth == 0 {
                let start = held.removeLast().start
                if held.isEmpty {
                    // Passed on before the buffer is emptied (the replacement may lie in it).
                    let passed = put(transform(tokens[start...]))
                    tokens.removeAll(keepingCapacity: true)
                    return passed
                }
                guard copy(transform(tokens[start...])) else { return false }
                tokens.removeSubrange(start...)
                tokens += finished
            }
        }
        return true
    }

    /// Passes a finished value's replacement on: to the value held around it, or to the next
    /// filter; false (nil) when the record must take its tree.
    private func put(_ replacement: ArraySlice<RecordToken>?) -> Bool {
        guard let replacement else { return false }
        guard !held.isEmpty else {
            for token in replacement { guard next.take(token) else { return false } }
            return true
        }
        tokens += replacement
        return true
    }

    /// Copies a replacement into `finished`; false (nil) when the record must take its tree.
    private func copy(_ replacement: ArraySlice<RecordToken>?) -> Bool {
        guard let replacement else { return false }
        finished.removeAll(keepingCapacity: true)
        finished += replacement
        return true
    }

    // MARK: Reading held values

    /// The index just past the value that starts at `start`.
    static func end(ofValueAt start: Int, in tokens: ArraySlice<RecordToken>) -> Int {
        guard tokens[start].opens else { return start + 1 }
        var depth = 0
        var index = start
        repeat {
            if tokens[index].opens { depth += 1 } else if tokens[index].closes { depth -= 1 }
            index += 1
        } while depth > 0 && index < tokens.endIndex
        return index
    }

    /// The members of the object `tokens` holds (it starts with `{`): each name's index and its
    /// value's range, found as they are asked for.
    static func members(of tokens: ArraySlice<RecordToken>) -> Members { Members(tokens: tokens) }

    /// The elements of the array `tokens` holds (it starts with `[`), found as they are asked for.
    static func elements(of tokens: ArraySlice<RecordToken>) -> Elements { Elements(tokens: tokens) }

    /// See `members(of:)`: an object's tokens inside its braces alternate a name (one token) and
    /// a value, which `Elements` steps over alike.
    struct Members: Sequence, IteratorProtocol {
        let tokens: ArraySlice<RecordToken>
        private var steps: Elements

        init(tokens: ArraySlice<RecordToken>) {
            self.tokens = tokens
            steps = Elements(tokens: tokens)
        }

        mutating func next() -> (name: Int, value: Range<Int>)? {
            guard let name = steps.next(), tokens[name.lowerBound].kind == .name, let value = steps.next() else { return nil }
            return (name.lowerBound, value)
        }
    }

    /// See `elements(of:)`.
    struct Elements: Sequence, IteratorProtocol {
        let tokens: ArraySlice<RecordToken>
        private var index: Int

        init(tokens: ArraySlice<RecordToken>) {
            self.tokens = tokens
            index = tokens.startIndex + 1
        }

        mutating func next() -> Range<Int>? {
            guard index < tokens.endIndex - 1 else { return nil }
            let start = index
            index = ValueHolding.end(ofValueAt: start, in: tokens)
            return start..<index
        }
    }

    /// `null` as the one token of a value (made where used: see `RecordToken.objectStart`).
    static var null: ArraySlice<RecordToken> { [RecordToken.null][...] }

    /// Whether a name token is `name` (with `hash`, its `RecordNames.hash`).
    static func isName(_ token: RecordToken, _ name: [UInt8], hash: UInt64) -> Bool {
        token.kind == .name && token.hash == hash && token.bytes.elementsEqual(name)
    }
}

extension MadeScalar {
    /// Writes the scalar as the writer writes its token (see `token(keptIn:)`).
    func write(to out: inout ByteBuffer) {
        switch self {
        case .number(let literal): literal.appendCanonical(to: &out)
        case .integer(let value):
            var digits: [UInt8] = []
            NumberLiteral.appendDecimal(Int(value), to: &digits)
            digits.withUnsafeBytes { out.append($0) }
        case .string(let bytes): bytes.withUnsafeBytes { JSONText.appendQuoted($0, to: &out) }
        case .bool(let flag): out.append(flag ? "true" as StaticString : "false")
        }
    }

    /// The token of the scalar, its bytes kept in `arena` (or, for a number read out of a
    /// string, in the string's).
    func token(keptIn arena: TokenArena) -> RecordToken {
        switch self {
        case .number(let literal): return RecordToken(.number, literal.text, flag: literal.isReal)
        case .integer(let value): return RecordToken(.number, arena.keep(String(value)), flag: false)
        case .string(let bytes):
            let kept = bytes.withUnsafeBytes { arena.keep($0) }
            return RecordToken(.string, kept, flag: JSONText.isPlain(kept))
        case .bool(let flag): return RecordToken(.bool, flag: flag)
        }
    }
}

/// A member name an op looks for among a record's tokens: its bytes and `RecordNames.hash`.
struct TokenName: Sendable {
    let bytes: [UInt8]
    let hash: UInt64

    init(_ name: String) {
        bytes = Array(name.utf8)
        hash = bytes.withUnsafeBytes { RecordNames.hash($0) }
    }

    /// Whether `token` is a name token for this name.
    func names(_ token: RecordToken) -> Bool {
        ValueHolding.isName(token, bytes, hash: hash)
    }
}
