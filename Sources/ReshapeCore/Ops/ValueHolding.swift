/// The record filter of ops that replace each selected value by something made from the whole of
/// it (`hoist`, `pluck`, `flatten`, `mapValues`): the tokens of a selected value are held until the
/// value ends, then `transform` gives the tokens that take its place (a slice of the held ones,
/// or of its own), or nil when the record must
/// take its tree (which names the error). A selected value inside a held one is replaced first,
/// when it ends, as the tree edits deepest first.
final class ValueHolding: RecordFilter {
    @exclusivity(unchecked) var cursor: PathCursor
    let next: any RecordFilter
    let transform: (ArraySlice<RecordToken>) -> ArraySlice<RecordToken>?
    let renames: Bool
    /// The selected values open, innermost last: the tokens of each so far, and how deep in it the
    /// next token lies.
    @exclusivity(unchecked) private var held: [(tokens: [RecordToken], depth: Int)] = []
    /// Buffers of values already passed on, kept for the next ones: no allocation per value.
    @exclusivity(unchecked) private var spare: [[RecordToken]] = []
    /// A selected scalar, as the one token of a value.
    @exclusivity(unchecked) private var scalar: [RecordToken] = [.null]

    /// - Parameter renames: the tokens made may hold names the object had not (the writer
    ///   compares them).
    init(
        cursor: PathCursor, renames: Bool = false, next: any RecordFilter,
        transform: @escaping (ArraySlice<RecordToken>) -> ArraySlice<RecordToken>?
    ) {
        self.cursor = cursor
        self.renames = renames
        self.next = next
        self.transform = transform
    }

    var renamesMembers: Bool { renames }

    func start(key: UnsafeRawBufferPointer?) -> Bool {
        cursor.start(key: key)
        held.empty()
        return next.start(key: key)
    }

    func ignores(_ token: RecordToken) -> Bool { cursor.peek() == 0 && held.isEmpty }

    func skip(_ token: RecordToken) { cursor.skip() }

    func take(_ token: RecordToken) -> Bool {
        let states = cursor.take(token)
        if token.startsValue && cursor.selects(states) {
            if token.opens {
                var buffer = spare.popLast() ?? []
                buffer.removeAll(keepingCapacity: true)
                buffer.append(token)
                held.append((buffer, 1))
                return true
            }
            scalar[0] = token
            return put(transform(scalar[...]))
        }
        guard !held.isEmpty else { return next.take(token) }
        let top = held.count - 1
        held[top].tokens.append(token)
        if token.opens {
            held[top].depth += 1
        } else if token.closes {
            held[top].depth -= 1
            if held[top].depth == 0 {
                let finished = held.removeLast().tokens
                defer { spare.append(finished) }
                return put(transform(finished[...]))
            }
        }
        return true
    }

    /// Passes a finished value on: to the value held around it, or to the next filter.
    private func put(_ tokens: ArraySlice<RecordToken>?) -> Bool {
        guard let tokens else { return false }
        guard !held.isEmpty else {
            for token in tokens { guard next.take(token) else { return false } }
            return true
        }
        held[held.count - 1].tokens += tokens
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

    /// `null` as the one token of a value.
    static let null: ArraySlice<RecordToken> = [RecordToken.null][...]

    /// Whether a name token is `name` (with `hash`, its `RecordNames.hash`).
    static func isName(_ token: RecordToken, _ name: [UInt8], hash: UInt64) -> Bool {
        token.kind == .name && token.hash == hash && token.bytes.elementsEqual(name)
    }
}

/// Tokens an op makes, in a buffer one thread's filter reuses from value to value.
final class TokenBuffer {
    @exclusivity(unchecked) var tokens: [RecordToken] = []
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

    /// The range of this member's value in the held object `object` (it starts with `{`), if it
    /// has the member.
    func value(in object: ArraySlice<RecordToken>) -> Range<Int>? {
        for member in ValueHolding.members(of: object) where names(object[member.name]) { return member.value }
        return nil
    }
}
