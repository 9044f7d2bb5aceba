#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The verdicts of a path's filter selectors on the child a `PathCursor` steps to next, given by
/// the `FilterGate` before the rule's filter, read by both their cursors. One per thread's chain.
final class FilterVerdicts {
    /// Bit `k`: the filters of segment `k` hold for the child whose first token comes next.
    @exclusivity(unchecked) var current: PathMatcher.Verdicts = 0
}

/// Stands before the filter of a rule whose path has filter selectors (`$[*].tags[?@ != '']`):
/// a child that a filter tests (a member, name and value, or an element) is held until it ends;
/// the filters are evaluated on its tokens (`FilterEvaluator`, the same one the tree uses); then
/// its tokens go on, the rule's cursor stepping to it with the verdicts. Children inside it that
/// filters test are decided on the held tokens as they go by.
///
/// The steps the filters take count as the tree counts them (`TokenArena.work`, added to the
/// record's work), and finding where each held child ends a step per token. Gives up (the record
/// takes its tree, which decides exactly and counts its own work) where a filter would compare
/// containers, meets a repeated member name, or past `budget` steps in a record.
final class FilterGate: RecordFilter {
    @exclusivity(unchecked) private var cursor: PathCursor
    private let verdicts: FilterVerdicts
    /// The rule's filter: it is not in the chain's list, so what the chain asks of filters
    /// (`passes`, `skip`) is passed on to it.
    private let next: any RecordFilter
    /// The filters of each segment, by offset.
    private let filters: [[FilterExpression]]
    /// The child being held: its tokens so far, how many containers in it are open, and whether
    /// its value has begun (a member's name comes first).
    @exclusivity(unchecked) private var held: [RecordToken] = []
    @exclusivity(unchecked) private var heldDepth = 0
    @exclusivity(unchecked) private var heldValue = false
    /// A filter tests the records: each is held whole, and the filters after the gate start it
    /// once the verdict is known, with `key`.
    private let filtersRecords: Bool
    @exclusivity(unchecked) private var holdsRecord = false
    @exclusivity(unchecked) private var key: UnsafeRawBufferPointer? = nil
    /// Counts the steps of work (`TokenArena.work`).
    private let arena: TokenArena
    /// For each segment whose filters read only some members of the objects they test
    /// (`@.plan == 'free'`): their names, which `peek` finds ahead in a record's text; with the
    /// reader of their values and the object they make, reused.
    private let namesRead: [[[UInt8]]?]
    private let reader: RecordFilterChain.TokenReader
    /// The tokens the gate takes are the text's, which it may read ahead (see `peek`), but for
    /// these members of the record (nil: the filters before it may change anything). Looked up
    /// at the first record (the chain lists them once its filters are made).
    @exclusivity(unchecked) private var changedByOthers: [[UInt8]]? = nil
    @exclusivity(unchecked) private var lookedUp = false
    @exclusivity(unchecked) private var peeked: [RecordToken] = []
    /// The most steps of work the filters of one record take on its tokens.
    static let budget = 1 << 20

    init(cursor: PathCursor, verdicts: FilterVerdicts, arena: TokenArena, next: any RecordFilter) {
        self.cursor = cursor
        self.verdicts = verdicts
        self.arena = arena
        self.next = next
        filtersRecords = cursor.filtersRecords
        let filters = (0..<63).map { cursor.matcher.filtering & (1 << PathMatcher.States($0)) != 0 ? cursor.matcher.filters(at: $0) : [] }
        self.filters = filters
        namesRead = filters.map { expressions in
            var names: [[UInt8]] = []
            for expression in expressions {
                guard let read = expression.memberNamesRead(limit: RecordPeek.maxNames) else { return nil }
                for name in read where !names.contains(name) { names.append(name) }
            }
            return names.count <= RecordPeek.maxNames ? names : nil
        }
        reader = RecordFilterChain.TokenReader(keepingIn: arena)
    }

    var renamesMembers: Bool { next.renamesMembers }

    func start(key: UnsafeRawBufferPointer?) -> Bool {
        if !lookedUp {
            lookedUp = true
            changedByOthers = arena.takesText.first { $0.filter == ObjectIdentifier(self) }?.except
        }
        held.empty()
        heldDepth = 0
        heldValue = false
        guard !filtersRecords else {
            if let found = peek() {
                verdicts.current = found
                cursor.start(key: key)
                return next.start(key: key)
            }
            // Its bytes stay valid for the whole record.
            self.key = key
            holdsRecord = true
            arena.holdsRecord = true
            return true
        }
        cursor.start(key: key)
        return next.start(key: key)
    }

    func ignores(_ token: RecordToken) -> Bool { held.isEmpty && !holdsRecord && !cursor.stepFilters && next.ignores(token) }

    func passes(_ token: RecordToken, into pass: inout ContainerPass) -> Bool {
        held.isEmpty && !holdsRecord && !cursor.stepFilters && next.passes(token, into: &pass)
    }

    func skip(_ token: RecordToken) {
        cursor.skip()
        next.skip(token)
    }

    func take(_ token: RecordToken) -> Bool {
        if held.isEmpty && !holdsRecord {
            guard cursor.filterStep(to: token) != nil else {
                _ = cursor.take(token)
                return next.take(token)
            }
            heldDepth = 0
            heldValue = false
        }
        held.append(token)
        guard holdingEnds(token) else { return true }
        defer { held.empty() }
        if holdsRecord && !startRecord() { return false }
        return replay(held[...])
    }

    /// Whether the held child ends with `token`, just added.
    private func holdingEnds(_ token: RecordToken) -> Bool {
        if token.kind == .name { return false }
        if token.startsValue { heldValue = true }
        if token.opens {
            heldDepth += 1
        } else if token.closes {
            heldDepth -= 1
        }
        return heldValue && heldDepth == 0
    }

    /// The held record is whole: the filters that test it decide, and the record starts for the
    /// cursors and the filters after the gate.
    private func startRecord() -> Bool {
        holdsRecord = false
        guard let found = decide(cursor.parentStates, on: held[...], at: held.startIndex) else { return false }
        verdicts.current = found
        cursor.start(key: key)
        return next.start(key: key)
    }

    /// The verdicts of the filters that test the record, decided on the members they read,
    /// found ahead in its text (`RecordPeek`), so that the record need not be held (the filters
    /// see an object of those members alone, which is the same to them). Nil when the record
    /// must be held: the filters before the gate may change what they read, the filters read
    /// more than members by name, or the text is not an object in which the scan finds them (a
    /// name with an escape, a value that is not one). The scan counts a step per 8 bytes of text
    /// it reads (`TokenArena.work`).
    ///
    /// Only records: an object inside one is small, and holding its tokens costs less than the
    /// scan (measured on the groups payload: 485 → 519 million instructions for
    /// `$[*].groups[?@.role == 'member']`).
    private func peek() -> PathMatcher.Verdicts? {
        let states = cursor.parentStates
        let live = states & ~cursor.matcher.selected & cursor.matcher.filtering
        guard let changed = changedByOthers, live != 0, live & (live - 1) == 0, let names = namesRead[live.trailingZeroBitCount],
            !names.contains(where: { changed.contains($0) }), let found = RecordPeek.members(names, in: arena.record)
        else { return nil }
        arena.work = arena.work.addingClamped(found.scanned / 8 + 1)
        peeked.removeAll(keepingCapacity: true)
        peeked.append(.objectStart)
        for member in found.members {
            let bytes = names[member.name].withUnsafeBytes { arena.keep($0) }
            peeked.append(RecordToken(name: bytes, hash: RecordNames.hash(bytes), plain: true))
            guard reader.read(UnsafeRawBufferPointer(rebasing: arena.record[member.value]), appendingTo: &peeked) else { return nil }
        }
        peeked.append(.objectEnd)
        guard let verdicts = decide(states, on: peeked[...], at: peeked.startIndex) else { return nil }
        arena.readAhead += 1
        return verdicts
    }

    /// Passes on the tokens of a held child, whole, each child a filter tests given its verdicts
    /// first.
    private func replay(_ tokens: ArraySlice<RecordToken>) -> Bool {
        var index = tokens.startIndex
        while index < tokens.endIndex {
            let token = tokens[index]
            if let states = cursor.filterStep(to: token) {
                let start = token.kind == .name ? index + 1 : index
                guard start < tokens.endIndex, let found = decide(states, on: tokens, at: start) else { return false }
                verdicts.current = found
            }
            _ = cursor.take(token)
            guard next.take(token) else { return false }
            index += 1
        }
        return true
    }

    /// The verdicts of the filters that a step from a node in `states` takes, on the value that
    /// starts at `start` in `tokens`; nil when the tree must decide.
    private func decide(_ states: PathMatcher.States, on tokens: ArraySlice<RecordToken>, at start: Int) -> PathMatcher.Verdicts? {
        let value = start..<ValueHolding.end(ofValueAt: start, in: tokens)
        let values = TokenFilterValues(tokens: tokens, arena: arena)
        guard (try? values.charge(value.count)) != nil else { return nil }
        let evaluator = FilterEvaluator(values: values)
        var found: PathMatcher.Verdicts = 0
        var live = states & ~cursor.matcher.selected & cursor.matcher.filtering
        while live != 0 {
            let offset = live.trailingZeroBitCount
            live &= live - 1
            for expression in filters[offset] {
                guard let holds = try? evaluator.holds(expression, on: value) else { return nil }
                if holds {
                    found |= 1 << PathMatcher.States(offset)
                    break
                }
            }
        }
        return found
    }
}

/// Finds members of a record ahead of reading it: a scan of its text that steps over values
/// (strings to their closing quote, containers to their closing bracket) without reading them.
/// The text is read strictly afterwards; the scan only has to stop within it.
enum RecordPeek {
    /// At most this many names are looked for: each member the scan passes is compared with
    /// each of them, work the scan does not count (a filter reading more holds the record, and
    /// its evaluation counts its steps).
    static let maxNames = 16

    /// The members named `names` (an index into it, and their value's range in `text`) of the
    /// object `text` starts with, in the text's order, and how many bytes were scanned to find
    /// them; nil when `text` does not start with an object, a name has an escape (it could
    /// spell one of `names`), or the text ends first.
    static func members(_ names: [[UInt8]], in text: UnsafeRawBufferPointer) -> (members: [(name: Int, value: Range<Int>)], scanned: Int)? {
        var members: [(name: Int, value: Range<Int>)] = []
        var index = 0
        let count = text.count
        func skipSpace() {
            while index < count, text[index] == 0x20 || text[index] == 0x0A || text[index] == 0x0D || text[index] == 0x09 { index += 1 }
        }
        /// Moves past the string whose opening quote is at `index`; false when it has no end, or
        /// (with `plain`) holds an escape.
        func skipString(plain: Bool) -> Bool {
            index += 1
            if !plain, let base = text.baseAddress {
                // To each quote, until one no backslash escapes.
                while index < count {
                    guard let quote = memchr(base + index, Int32(UInt8(ascii: "\"")), count - index) else { return false }
                    let end = base.distance(to: UnsafeRawPointer(quote))
                    var backslashes = 0
                    while end - backslashes - 1 >= index && text[end - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
                    index = end + 1
                    if backslashes % 2 == 0 { return true }
                }
                return false
            }
            while index < count {
                let byte = text[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return true
                }
                if byte == UInt8(ascii: "\\") {
                    if plain { return false }
                    index += 1
                }
                index += 1
            }
            return false
        }
        /// Moves past the value that starts at `index` (brackets counted, not matched).
        func skipValue() -> Bool {
            guard index < count else { return false }
            switch text[index] {
            case UInt8(ascii: "\""):
                return skipString(plain: false)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while index < count {
                    switch text[index] {
                    case UInt8(ascii: "\""):
                        guard skipString(plain: false) else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            index += 1
                            return true
                        }
                    default:
                        break
                    }
                    index += 1
                }
                return false
            default:
                let start = index
                while index < count {
                    switch text[index] {
                    case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09: return index > start
                    default: index += 1
                    }
                }
                return false
            }
        }
        skipSpace()
        guard index < count, text[index] == UInt8(ascii: "{") else { return nil }
        index += 1
        skipSpace()
        if index < count, text[index] == UInt8(ascii: "}") { return (members, index + 1) }
        while members.count < names.count {
            skipSpace()
            guard index < count, text[index] == UInt8(ascii: "\"") else { return nil }
            let nameStart = index + 1
            guard skipString(plain: true) else { return nil }
            let name = UnsafeRawBufferPointer(rebasing: text[nameStart..<index - 1])
            skipSpace()
            guard index < count, text[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            skipSpace()
            let valueStart = index
            guard skipValue() else { return nil }
            if let position = names.firstIndex(where: { $0.elementsEqual(name) }), !members.contains(where: { $0.name == position }) {
                members.append((position, valueStart..<index))
            }
            skipSpace()
            guard index < count else { return nil }
            if text[index] == UInt8(ascii: "}") { break }
            guard text[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
        return (members, index)
    }
}

/// A filter's view of held tokens: a value is the range of its tokens. Gives up (throws, and the
/// record takes its tree) where the tree's answer could differ or cost more than the budget: a
/// member name the object repeats, containers compared, a query from the root.
struct TokenFilterValues: FilterValues {
    let tokens: ArraySlice<RecordToken>
    /// Counts the steps (`TokenArena.work`), at most `FilterGate.budget` in a record; nil for
    /// an op's look at a value it holds (`ValueEdit`), whose cost its text already counts.
    let arena: TokenArena?

    var root: Range<Int>? { nil }

    private static var givesUp: ReshapeError { ReshapeError(.internal, "the record's tree decides this filter") }

    func charge(_ steps: Int) throws(ReshapeError) {
        guard let arena else { return }
        arena.work = arena.work.addingClamped(max(steps, 0))
        if arena.work > FilterGate.budget { throw Self.givesUp }
    }

    func kind(of value: Range<Int>) -> FilterValueKind {
        let token = tokens[value.lowerBound]
        switch token.kind {
        case .string: return .string
        case .number: return .number
        case .bool: return .bool(token.flag)
        case .objectStart: return .object
        case .arrayStart: return .array
        default: return .null
        }
    }

    func stringBytes(of value: Range<Int>) -> UnsafeRawBufferPointer { tokens[value.lowerBound].bytes }

    func withNumberText(of value: Range<Int>, _ body: (UnsafeRawBufferPointer) -> Bool) -> Bool { body(tokens[value.lowerBound].bytes) }

    func count(of value: Range<Int>) throws(ReshapeError) -> Int {
        try charge(value.count)
        var count = 0
        for _ in ValueHolding.elements(of: tokens[value]) { count += 1 }
        return tokens[value.lowerBound].kind == .objectStart ? count / 2 : count
    }

    func member(_ name: KeyBytes, hash: UInt64, of value: Range<Int>) throws(ReshapeError) -> Range<Int>? {
        try charge(value.count)
        let hash = hash != 0 ? hash : RecordNames.hash(name)
        var found: Range<Int>? = nil
        var index = value.lowerBound + 1
        while index < value.upperBound - 1 {
            let start = index + 1
            let end = tokens[start].opens ? ValueHolding.end(ofValueAt: start, in: tokens) : start + 1
            let token = tokens[index]
            if token.hash == hash && token.bytes.sameBytes(as: name) {
                guard found == nil else { throw Self.givesUp }
                found = start..<end
            }
            index = end
        }
        return found
    }

    func element(_ index: Int, of value: Range<Int>) throws(ReshapeError) -> Range<Int>? {
        try charge(value.count)
        var seen = 0
        for element in ValueHolding.elements(of: tokens[value]) {
            if seen == index { return element }
            seen += 1
        }
        return nil
    }

    func forEachElement(of value: Range<Int>, _ body: (Range<Int>) throws(ReshapeError) -> Bool) throws(ReshapeError) {
        try charge(value.count)
        for element in ValueHolding.elements(of: tokens[value]) {
            guard try body(element) else { return }
        }
    }

    func children(of value: Range<Int>) throws(ReshapeError) -> [Range<Int>] {
        try charge(value.count)
        if tokens[value.lowerBound].kind == .objectStart {
            var hashes: [UInt64] = []
            var children: [Range<Int>] = []
            for member in ValueHolding.members(of: tokens[value]) {
                hashes.append(tokens[member.name].hash)
                children.append(member.value)
            }
            // A name twice (or two names of one hash, rarer still): the tree decides.
            hashes.sort()
            for index in hashes.indices.dropFirst() where hashes[index] == hashes[index - 1] { throw Self.givesUp }
            return children
        }
        return Array(ValueHolding.elements(of: tokens[value]))
    }

    func appendKey(of value: Range<Int>, to key: inout [UInt8]) throws(ReshapeError) { throw Self.givesUp }
}
