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
    /// While the gate asks the rule's filter whether a child may go by as text (see
    /// `FilterGate.passes`): `current` holds for that child, and the cursor's `peek` uses it.
    @exclusivity(unchecked) var decided = false
}

/// Stands before the filter of a rule whose path has filter selectors (`$[*].tags[?@ != '']`):
/// a child that a filter tests (a member, name and value, or an element) is held until it ends;
/// the filters are evaluated on its tokens (`FilterEvaluator`, the same one the tree uses); then
/// its tokens go on, the rule's cursor stepping to it with the verdicts. Children inside it that
/// filters test are decided on the held tokens as they go by. A record, or an object in an array,
/// that a filter tests through named members only is decided ahead of its first token instead,
/// from those members found in the record's text (`RecordPeek`), and is not held.
///
/// The steps the filters take count as the tree counts them (`TokenArena.work`, added to the
/// record's work), and finding where each held child ends a step per token. Gives up (the record
/// takes its tree, which decides exactly and counts its own work) where a filter meets a
/// repeated member name, or past `budget` steps in a record. Containers a filter compares are
/// compared by their keys (`ValueKey.append(_:_:to:)`).
final class FilterGate: RecordFilter {
    @exclusivity(unchecked) private var cursor: PathCursor
    private let verdicts: FilterVerdicts
    /// The rule's filter: it is not in the chain's list, so what the chain asks of filters
    /// (`passes`, `skip`) is passed on to it.
    private let next: any RecordFilter
    /// See `RecordFilter.aside`; the filter it wraps is set aside with it.
    @exclusivity(unchecked) var aside = AsideFlag() { didSet { next.aside = aside } }
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
    @exclusivity(unchecked) private var found: [(name: Int, value: Range<Int>)] = []
    /// For each segment of `namesRead`: those names as tokens, their bytes kept by `kept`; and
    /// its filters as member comparisons (joined by `&&`, `||` and `!`) with the index of their
    /// member's name, when they all are (decided on the text without tokens).
    private let nameTokens: [[RecordToken]]
    private let kept = TokenArena()
    private let comparisons: [MemberTests?]
    /// The name of the record's member the gate's tokens are in (their text is the record's
    /// unless a filter before the gate makes that member).
    @exclusivity(unchecked) private var recordMember: RecordToken? = nil
    /// Inside a container below which no step can need a verdict (its states have nothing live),
    /// how many containers are open: their tokens go on without the cursor following them.
    @exclusivity(unchecked) private var through = 0
    /// The element last looked at ahead (its bracket in the text) and what was found.
    @exclusivity(unchecked) private var peekedAt: UnsafeRawPointer? = nil
    @exclusivity(unchecked) private var peekedVerdicts: PathMatcher.Verdicts? = nil
    /// What `MemberTests` writes as it decides.
    private let scratch = MemberTests.Scratch()
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
        let kept = kept
        nameTokens = namesRead.map { names in
            (names ?? []).map { name in
                let bytes = name.withUnsafeBytes { kept.keep($0) }
                return RecordToken(name: bytes, hash: RecordNames.hash(bytes), plain: true)
            }
        }
        comparisons = zip(filters, namesRead).map { expressions, names in
            guard let names, !expressions.isEmpty else { return nil }
            return MemberTests(expressions, names: names)
        }
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
        recordMember = nil
        through = 0
        peekedAt = nil
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

    /// An element that is an object and that the filters test goes by as text when its verdicts
    /// are found ahead in the text (see `peek(_:element:)`) and, given them, the rule's filter
    /// lets it go by (the path selects nothing in it).
    func passes(_ token: RecordToken, into pass: inout ContainerPass) -> Bool {
        guard held.isEmpty && !holdsRecord else { return false }
        guard cursor.stepFilters else { return next.passes(token, into: &pass) }
        guard token.kind == .objectStart, let states = cursor.filterStep(to: token), let found = peekOnce(states, element: token) else {
            return false
        }
        verdicts.current = found
        verdicts.decided = true
        defer { verdicts.decided = false }
        return next.passes(token, into: &pass)
    }

    /// A record that no filter tests, nor its members, goes by member by member as the rule's
    /// filter lets it: the gate sees the members its rule's member needs say (those its path
    /// goes on in), handed over to the filters (`RecordFilterChain.handOver`).
    func passesMembers(_ token: RecordToken) -> Bool {
        !filtersRecords && held.isEmpty && !cursor.stepFilters && next.passesMembers(token)
    }

    /// `peek(_:element:)`, once per element: the chain asks `passes` before it hands the
    /// element's first token to `take` (when some filter must see its tokens), and the work of
    /// one look is counted once.
    private func peekOnce(_ states: PathMatcher.States, element token: RecordToken) -> PathMatcher.Verdicts? {
        if let at = peekedAt, at == token.bytes.baseAddress { return peekedVerdicts }
        peekedAt = token.bytes.baseAddress
        peekedVerdicts = peek(states, element: token)
        return peekedVerdicts
    }

    var passesEveryName: Bool { next.passesEveryName }

    /// Its filters decide nothing that fails: as the rule's filter says.
    func letsRemovedRecordGo(_ record: UnsafeRawBufferPointer) -> Bool { next.letsRemovedRecordGo(record) }

    func namesMayBeDropped() { next.namesMayBeDropped() }

    func memberWentBy(named hash: UInt64) -> Bool { next.memberWentBy(named: hash) }

    func skip(_ token: RecordToken) {
        if peekedAt != nil && peekedAt == token.bytes.baseAddress { arena.passedAhead += 1 }
        cursor.skip()
        next.skip(token)
    }

    func take(_ token: RecordToken) -> Bool {
        if aside.isSet { return next.take(token) }
        if through > 0 {
            if token.opens {
                through += 1
            } else if token.closes {
                through -= 1
                if through == 0 { _ = cursor.take(token) }
            }
            return next.take(token)
        }
        if held.isEmpty && !holdsRecord {
            if token.kind == .name && cursor.depth == 1 { recordMember = token }
            guard let states = cursor.filterStep(to: token) else {
                let states = cursor.take(token)
                if token.opens && states & ~cursor.matcher.selected == 0 { through = 1 }
                return next.take(token)
            }
            if token.kind == .objectStart, let found = peekOnce(states, element: token) {
                verdicts.current = found
                if cursor.take(token) & ~cursor.matcher.selected == 0 { through = 1 }
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
    /// it reads (`TokenArena.work`). Objects in arrays inside records are read ahead the same way
    /// (`peek(_:element:)`).
    private func peek() -> PathMatcher.Verdicts? {
        guard let changed = changedByOthers else { return nil }
        let states = cursor.parentStates
        let live = states & ~cursor.matcher.selected & cursor.matcher.filtering
        guard live != 0, live & (live - 1) == 0, let names = namesRead[live.trailingZeroBitCount],
            !names.contains(where: { changed.contains($0) })
        else { return nil }
        return peek(live.trailingZeroBitCount, names, states, in: arena.record)
    }

    /// The verdicts of the filters that test an element that is an object, `token` its first,
    /// decided on the members they read, found ahead in the text as for a record (see `peek()`),
    /// so that the element need not be held; nil when it must be: where the record's text is not
    /// what the gate takes (`token` was made by a filter before it, or lies in a record member
    /// such a filter makes), and as for a record.
    private func peek(_ states: PathMatcher.States, element token: RecordToken) -> PathMatcher.Verdicts? {
        guard let changed = changedByOthers, let start = token.bytes.baseAddress, let base = arena.record.baseAddress,
            start >= base, start < base + arena.record.count
        else { return nil }
        if !changed.isEmpty {
            guard let member = recordMember, !changed.contains(where: { name in name.withUnsafeBytes { member.bytes.sameBytes(as: $0) } }) else { return nil }
        }
        let live = states & ~cursor.matcher.selected & cursor.matcher.filtering
        guard live != 0, live & (live - 1) == 0, let names = namesRead[live.trailingZeroBitCount] else { return nil }
        return peek(live.trailingZeroBitCount, names, states, in: UnsafeRawBufferPointer(rebasing: arena.record[(start - base)...]))
    }

    /// The verdicts of the filters a step from `states` takes (those of segment `offset`), on the
    /// object `text` starts with, found from its members `names` alone.
    private func peek(_ offset: Int, _ names: [[UInt8]], _ states: PathMatcher.States, in text: UnsafeRawBufferPointer) -> PathMatcher.Verdicts? {
        guard let scanned = RecordPeek.members(names, in: text, into: &found) else { return nil }
        arena.work = arena.work.addingClamped(scanned / 8 + 1)
        if let comparisons = comparisons[offset], let holds = compare(comparisons, in: text) {
            guard arena.work <= FilterGate.budget else { return nil }
            arena.readAhead += 1
            arena.comparedAhead += 1
            return holds ? 1 << PathMatcher.States(offset) : 0
        }
        peeked.removeAll(keepingCapacity: true)
        peeked.append(.objectStart)
        for member in found {
            peeked.append(nameTokens[offset][member.name])
            guard reader.read(UnsafeRawBufferPointer(rebasing: text[member.value]), appendingTo: &peeked) else { return nil }
        }
        peeked.append(.objectEnd)
        guard let verdicts = decide(states, on: peeked[...], at: peeked.startIndex) else { return nil }
        arena.readAhead += 1
        return verdicts
    }

    /// Whether one of `comparisons` holds on the members `found` in `text` (see
    /// `MemberTests.holds(on:in:scratch:)`), its steps added to the record's work; nil when only the
    /// evaluator can tell.
    private func compare(_ comparisons: MemberTests, in text: UnsafeRawBufferPointer) -> Bool? {
        guard let (holds, work) = comparisons.holds(on: found, in: text, scratch: scratch) else { return nil }
        arena.work = arena.work.addingClamped(work)
        return holds
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

/// The filters of a step, when each is a member comparison, or such comparisons joined by `&&`,
/// `||` and `!`: decided on the members' text (see `FilterGate.compare`). Plain comparisons, the
/// common case, are kept flat.
enum MemberTests {
    case plain([(index: Int, comparison: MemberComparison)])
    case joined([MemberTest])

    /// `expressions` (one per filter selector of the step), their members among `names`; nil when
    /// one of them is not such a test.
    init?(_ expressions: [FilterExpression], names: [[UInt8]]) {
        var plain: [(index: Int, comparison: MemberComparison)] = []
        var joined: [MemberTest] = []
        for expression in expressions {
            guard let test = MemberTest(expression, names: names) else { return nil }
            if case .comparison(let index, let comparison) = test { plain.append((index, comparison)) }
            joined.append(test)
        }
        self = plain.count == joined.count ? .plain(plain) : .joined(joined)
    }

    /// Where deciding writes, made once per gate: a count's digits while it is compared (one
    /// comparison at a time), and the tokens of each member read.
    final class Scratch {
        let digits = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 20)
        let tokens = UnsafeMutableBufferPointer<Int>.allocate(capacity: RecordPeek.maxNames)

        deinit {
            digits.deallocate()
            tokens.deallocate()
        }
    }

    /// What deciding on the text has cost so far: the evaluator's steps, and the bytes read
    /// again inside members.
    struct Spent {
        var work: Int
        var scanned: Int
    }

    /// Whether one of the tests holds on the object of the members `found` in `text` (a name's
    /// index among the names read, and its value's range, as `RecordPeek.members` gives them),
    /// each member read from its text; and the steps the evaluator takes on that object's tokens:
    /// their count, and for each comparison made the object's tokens again (the look-up of its
    /// member), then those of each object it goes through below (`@.profile.city`), and what its
    /// function costs (`&&` and `||` stop at the first operand that decides, as the evaluator's
    /// do); a container's length is its count of children, its tokens charged. Nil when only the
    /// evaluator can tell: a string with an escape, a name inside a member with one or twice
    /// (see `RecordPeek.member(_:in:)`), a count of an object's children, text the scan cannot
    /// count. `scratch` is the caller's, reused from one decision to the next.
    func holds(on found: [(name: Int, value: Range<Int>)], in text: UnsafeRawBufferPointer, scratch: Scratch) -> (holds: Bool, work: Int)? {
        // At most `RecordPeek.maxNames` members are found, one per name.
        guard found.count <= scratch.tokens.count else { return nil }
        let digits = scratch.digits
        let memberTokens = scratch.tokens
        var count = 2
        for position in found.indices {
            // A name, and a scalar or a container's tokens (kept for the comparisons).
            let value = found[position].value
            let first = text[value.lowerBound]
            if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
                guard let inside = RecordPeek.tokens(in: UnsafeRawBufferPointer(rebasing: text[value])) else { return nil }
                memberTokens[position] = inside
            } else {
                memberTokens[position] = 1
            }
            count = count.addingClamped(1 + memberTokens[position])
        }
        // A constant, so that `value` reads it without a box.
        let tokens = count
        // The objects the comparisons go through are read again for each (their tokens counted,
        // the name found): past a few times the text's size, the evaluator reads their tokens
        // once instead.
        let scanLimit = text.count.multipliedClamped(by: 4).addingClamped(1 << 16)
        var spent = Spent(work: tokens, scanned: 0)
        /// Whether `comparison` holds for member `index` of the names read, adding what its
        /// look-up and its function cost to `spent`; nil when the evaluator must tell.
        func decide(_ index: Int, _ comparison: MemberComparison, _ spent: inout Spent) -> Bool? {
            spent.work = spent.work.addingClamped(tokens)
            // The member once: were it there twice, the text is read strictly later.
            var at = -1
            for position in found.indices where found[position].name == index { at = position }
            var range = at >= 0 ? found[at].value : nil
            // The tokens of the value at `range`, when known (the member read's, counted above).
            var rangeTokens = at >= 0 ? memberTokens[at] : nil
            for name in comparison.below {
                guard let outer = range else { break }
                let current = UnsafeRawBufferPointer(rebasing: text[outer])
                // Only an object has members.
                guard current.first == UInt8(ascii: "{") else {
                    range = nil
                    break
                }
                spent.scanned = spent.scanned.addingClamped(current.count.multipliedClamped(by: 2))
                guard spent.scanned <= scanLimit, let count = rangeTokens ?? RecordPeek.tokens(in: current) else { return nil }
                spent.work = spent.work.addingClamped(count)
                rangeTokens = nil
                switch RecordPeek.member(name, in: current) {
                case .found(let inner): range = outer.lowerBound + inner.lowerBound..<outer.lowerBound + inner.upperBound
                case .missing: range = nil
                case .unknown: return nil
                }
            }
            let node = range.map { UnsafeRawBufferPointer(rebasing: text[$0]) }
            let container = node?.first == UInt8(ascii: "{") || node?.first == UInt8(ascii: "[")
            if let counted = comparison.counted {
                var nodes = 0
                if let node {
                    switch counted {
                    case .member:
                        nodes = 1
                    case .children where node.first == UInt8(ascii: "["):
                        // The evaluator counts the array's tokens twice (its count, then its
                        // children) and a step per element.
                        spent.scanned = spent.scanned.addingClamped(node.count.multipliedClamped(by: 2))
                        guard spent.scanned <= scanLimit, let count = rangeTokens ?? RecordPeek.tokens(in: node),
                            let elements = RecordPeek.children(in: node)
                        else { return nil }
                        spent.work = spent.work.addingClamped(count.multipliedClamped(by: 2)).addingClamped(elements)
                        nodes = elements
                    case .children:
                        // An object's children: the evaluator looks at their names.
                        if container { return nil }
                    }
                }
                return comparison.holds(.number(FilterScalar.decimal(nodes, in: digits)), work: &spent.work)
            }
            if let node, container, comparison.measuresLength {
                // The evaluator counts the container's tokens, counting its children.
                spent.scanned = spent.scanned.addingClamped(node.count.multipliedClamped(by: 2))
                guard spent.scanned <= scanLimit, let count = rangeTokens ?? RecordPeek.tokens(in: node),
                    let children = RecordPeek.children(in: node)
                else { return nil }
                spent.work = spent.work.addingClamped(count)
                return comparison.holds(containerLength: children, digits: digits)
            }
            // A string with an escape: the evaluator decides.
            guard let scalar = node.map(Self.scalar) ?? .nothing else { return nil }
            return comparison.holds(scalar, work: &spent.work)
        }
        switch self {
        case .plain(let comparisons):
            for index in comparisons.indices {
                guard let held = decide(comparisons[index].index, comparisons[index].comparison, &spent) else { return nil }
                if held { return (true, spent.work) }
            }
        case .joined(let tests):
            for test in tests {
                guard let held = test.holds(decide, spent: &spent) else { return nil }
                if held { return (true, spent.work) }
            }
        }
        return (false, spent.work)
    }

    /// The scalar whose text, and nothing more, is `text`: a string without an escape, a
    /// number, a literal, or a container; nil for anything else.
    private static func scalar(_ bytes: UnsafeRawBufferPointer) -> FilterScalar? {
        guard let first = bytes.first else { return nil }
        switch first {
        case UInt8(ascii: "\""):
            guard bytes.count >= 2 else { return nil }
            let inner = UnsafeRawBufferPointer(rebasing: bytes[1..<bytes.count - 1])
            guard !inner.contains(UInt8(ascii: "\\")) else { return nil }
            return .string(inner)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            guard case .success(let (literal, end)) = NumberLiteral.scan(bytes, from: 0), end == bytes.count else { return nil }
            return .number(literal.text)
        case UInt8(ascii: "t"): return bytes.elementsEqual("true".utf8) ? .bool(true) : nil
        case UInt8(ascii: "f"): return bytes.elementsEqual("false".utf8) ? .bool(false) : nil
        case UInt8(ascii: "n"): return bytes.elementsEqual("null".utf8) ? .null : nil
        case UInt8(ascii: "{"), UInt8(ascii: "["): return .container
        default: return nil
        }
    }
}

/// A filter made of member comparisons (`MemberComparison`) joined by `&&`, `||` and `!`
/// (`@.role == 'member' && @.id != 'g3'`), decided on the members' scalars read from the text.
indirect enum MemberTest {
    /// A comparison of the member whose name is number `index` of the names read.
    case comparison(index: Int, MemberComparison)
    case and([MemberTest])
    case or([MemberTest])
    case not(MemberTest)

    /// `expression` as such a test, its members among `names`; nil when it is not one.
    init?(_ expression: FilterExpression, names: [[UInt8]]) {
        func all(_ items: [FilterExpression]) -> [MemberTest]? {
            var tests: [MemberTest] = []
            for item in items {
                guard let test = MemberTest(item, names: names) else { return nil }
                tests.append(test)
            }
            return tests
        }
        switch expression {
        case .and(let items):
            guard let tests = all(items) else { return nil }
            self = .and(tests)
        case .or(let items):
            guard let tests = all(items) else { return nil }
            self = .or(tests)
        case .not(let inner):
            guard let test = MemberTest(inner, names: names) else { return nil }
            self = .not(test)
        default:
            guard let comparison = MemberComparison(expression), let index = names.firstIndex(of: comparison.name) else { return nil }
            self = .comparison(index: index, comparison)
        }
    }

    /// Whether the test holds, given whether each comparison does (`decide`, which adds what
    /// it cost to `spent`; nil: only the evaluator can tell); nil when only the evaluator can
    /// tell. `&&` and `||` stop at the first operand that decides, as the evaluator's.
    func holds(_ decide: (Int, MemberComparison, inout MemberTests.Spent) -> Bool?, spent: inout MemberTests.Spent) -> Bool? {
        switch self {
        case .comparison(let index, let comparison):
            return decide(index, comparison, &spent)
        case .and(let tests):
            for test in tests {
                guard let held = test.holds(decide, spent: &spent) else { return nil }
                if !held { return false }
            }
            return true
        case .or(let tests):
            for test in tests {
                guard let held = test.holds(decide, spent: &spent) else { return nil }
                if held { return true }
            }
            return false
        case .not(let test):
            return test.holds(decide, spent: &spent).map { !$0 }
        }
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

    /// Finds the members named `names` (an index into it, and their value's range in `text`) of
    /// the object `text` starts with, in the text's order, into `members`; returns how many bytes
    /// were scanned to find them, nil when `text` does not start with an object, a name has an
    /// escape (it could spell one of `names`), or the text ends first.
    static func members(_ names: [[UInt8]], in text: UnsafeRawBufferPointer, into members: inout [(name: Int, value: Range<Int>)]) -> Int? {
        members.removeAll(keepingCapacity: true)
        guard let (bytes, count, start) = opened(text, by: UInt8(ascii: "{")) else { return nil }
        var index = start
        if index < count, bytes[index] == UInt8(ascii: "}") { return index + 1 }
        while members.count < names.count {
            index = skipSpace(bytes, from: index, count: count)
            guard index < count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            // A name with an escape could spell one of `names`: not looked at here.
            let nameEnd = quoteOrBackslash(bytes, from: index + 1, count: count)
            guard nameEnd >= 0, bytes[nameEnd] == UInt8(ascii: "\"") else { return nil }
            let name = UnsafeRawBufferPointer(start: bytes + index + 1, count: nameEnd - index - 1)
            index = skipSpace(bytes, from: nameEnd + 1, count: count)
            guard index < count, bytes[index] == UInt8(ascii: ":") else { return nil }
            let valueStart = skipSpace(bytes, from: index + 1, count: count)
            if valueStart < count && bytes[valueStart] == UInt8(ascii: "\"") {
                // Most values are strings: stepped over here, without a call.
                let end = stringEnd(bytes, from: valueStart + 1, count: count)
                guard end >= 0 else { return nil }
                index = end + 1
            } else {
                index = valueEnd(bytes, from: valueStart, count: count)
                guard index >= 0 else { return nil }
            }
            for position in names.indices where names[position].count == name.count {
                guard names[position].withUnsafeBytes({ $0.sameBytes(as: name) }) else { continue }
                if !members.contains(where: { $0.name == position }) { members.append((position, valueStart..<index)) }
                break
            }
            index = skipSpace(bytes, from: index, count: count)
            guard index < count else { return nil }
            if bytes[index] == UInt8(ascii: "}") { break }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
        return index
    }

    /// What `member(_:in:)` finds.
    enum Lookup: Equatable {
        /// The member's value, its range in the text.
        case found(Range<Int>)
        case missing
        /// The scan cannot tell: a name with an escape (it could spell the name), the name twice
        /// (the evaluator gives up there too), or text it cannot step over.
        case unknown
    }

    /// The member `name` of the object `text` holds, the whole of it read (text that is not one
    /// object is `unknown`).
    static func member(_ name: [UInt8], in text: UnsafeRawBufferPointer) -> Lookup {
        guard let (bytes, count, start) = opened(text, by: UInt8(ascii: "{")) else { return .unknown }
        var index = start
        if index < count, bytes[index] == UInt8(ascii: "}") { return skipSpace(bytes, from: index + 1, count: count) == count ? .missing : .unknown }
        var found: Range<Int>? = nil
        while true {
            guard index < count, bytes[index] == UInt8(ascii: "\"") else { return .unknown }
            let nameEnd = quoteOrBackslash(bytes, from: index + 1, count: count)
            guard nameEnd >= 0, bytes[nameEnd] == UInt8(ascii: "\"") else { return .unknown }
            let isName = nameEnd - index - 1 == name.count
                && name.withUnsafeBytes { $0.sameBytes(as: UnsafeRawBufferPointer(start: bytes + index + 1, count: name.count)) }
            index = skipSpace(bytes, from: nameEnd + 1, count: count)
            guard index < count, bytes[index] == UInt8(ascii: ":") else { return .unknown }
            let valueStart = skipSpace(bytes, from: index + 1, count: count)
            index = valueEnd(bytes, from: valueStart, count: count)
            guard index >= 0 else { return .unknown }
            if isName {
                guard found == nil else { return .unknown }
                found = valueStart..<index
            }
            index = skipSpace(bytes, from: index, count: count)
            guard index < count else { return .unknown }
            if bytes[index] == UInt8(ascii: "}") { break }
            guard bytes[index] == UInt8(ascii: ",") else { return .unknown }
            index = skipSpace(bytes, from: index + 1, count: count)
        }
        guard skipSpace(bytes, from: index + 1, count: count) == count else { return .unknown }
        return found.map { .found($0) } ?? .missing
    }

    /// How many elements the array, or members the object, `text` holds (names not compared:
    /// a name twice counts twice, as a container's count on tokens does); nil when it is not one
    /// the scan steps over.
    static func children(in text: UnsafeRawBufferPointer) -> Int? {
        let object: Bool
        let opening: (bytes: UnsafePointer<UInt8>, count: Int, start: Int)
        if let found = opened(text, by: UInt8(ascii: "{")) {
            (object, opening) = (true, found)
        } else if let found = opened(text, by: UInt8(ascii: "[")) {
            (object, opening) = (false, found)
        } else {
            return nil
        }
        let (bytes, count) = (opening.bytes, opening.count)
        var index = opening.start
        guard index < count else { return nil }
        if bytes[index] == (object ? UInt8(ascii: "}") : UInt8(ascii: "]")) { return 0 }
        var children = 0
        while true {
            if object {
                // A name and its colon first.
                guard index < count, bytes[index] == UInt8(ascii: "\"") else { return nil }
                let end = stringEnd(bytes, from: index + 1, count: count)
                guard end >= 0 else { return nil }
                index = skipSpace(bytes, from: end + 1, count: count)
                guard index < count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index = skipSpace(bytes, from: index + 1, count: count)
            }
            index = valueEnd(bytes, from: index, count: count)
            guard index >= 0 else { return nil }
            children += 1
            index = skipSpace(bytes, from: index, count: count)
            guard index < count else { return nil }
            if bytes[index] == (object ? UInt8(ascii: "}") : UInt8(ascii: "]")) { return children }
            guard bytes[index] == UInt8(ascii: ",") else { return nil }
            index = skipSpace(bytes, from: index + 1, count: count)
        }
    }

    /// How many tokens (`RecordToken`) the value `text` holds reads into: each name, string and
    /// other scalar one, each container two; nil when the text does not step over as JSON's
    /// does (a string with no end, a bracket where a value should be, brackets unmatched in
    /// number). Text that is not JSON is found when the record is read.
    static func tokens(in text: UnsafeRawBufferPointer) -> Int? {
        guard let base = text.baseAddress else { return nil }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        let count = text.count
        var tokens = 0
        var depth = 0
        var index = 0
        while index < count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                let end = stringEnd(bytes, from: index + 1, count: count)
                guard end >= 0 else { return nil }
                tokens += 1
                index = end + 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                tokens += 1
                depth += 1
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard depth > 0 else { return nil }
                tokens += 1
                depth -= 1
                index += 1
            case UInt8(ascii: ","), UInt8(ascii: ":"), 0x20, 0x0A, 0x0D, 0x09:
                index += 1
            default:
                // A number or a literal: up to what ends it.
                tokens += 1
                index += 1
                scalar: while index < count {
                    switch bytes[index] {
                    case UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "["),
                        UInt8(ascii: "\""), 0x20, 0x0A, 0x0D, 0x09:
                        break scalar
                    default:
                        index += 1
                    }
                }
            }
        }
        return depth == 0 && tokens > 0 ? tokens : nil
    }

    /// The bytes of `text`, their count, and the first place past `opener` and white space,
    /// when the text starts (after white space) with `opener`.
    @inline(__always)
    private static func opened(_ text: UnsafeRawBufferPointer, by opener: UInt8) -> (UnsafePointer<UInt8>, Int, Int)? {
        guard let base = text.baseAddress else { return nil }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        let count = text.count
        let index = skipSpace(bytes, from: 0, count: count)
        guard index < count, bytes[index] == opener else { return nil }
        return (bytes, count, skipSpace(bytes, from: index + 1, count: count))
    }

    /// The first place at or after `start` that is not white space (`count` at the end).
    @inline(__always)
    private static func skipSpace(_ bytes: UnsafePointer<UInt8>, from start: Int, count: Int) -> Int {
        var index = start
        while index < count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return index
            }
        }
        return index
    }

    /// The place of the first quote or backslash at or after `start`, -1 when there is none:
    /// eight bytes at a time (a string's content is most of a record's text).
    @inline(__always)
    private static func quoteOrBackslash(_ bytes: UnsafePointer<UInt8>, from start: Int, count: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        var index = start
        while index + 8 <= count {
            let word = UInt64(littleEndian: UnsafeRawPointer(bytes + index).loadUnaligned(as: UInt64.self))
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            // The lowest high bit set is the first byte that is either (see `specialBytes`).
            let found = ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash) & (ones &* 0x80)
            if found != 0 { return index + found.trailingZeroBitCount >> 3 }
            index += 8
        }
        while index < count {
            if bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "\\") { return index }
            index += 1
        }
        return -1
    }

    /// The place of the closing quote of the string whose content starts at `start` (the first
    /// quote no backslash escapes), -1 when the text ends first.
    @inline(__always)
    private static func stringEnd(_ bytes: UnsafePointer<UInt8>, from start: Int, count: Int) -> Int {
        var index = start
        while true {
            let found = quoteOrBackslash(bytes, from: index, count: count)
            guard found >= 0 else { return -1 }
            if bytes[found] == UInt8(ascii: "\"") { return found }
            index = found + 2  // A backslash and the byte it escapes.
        }
    }

    /// The place past the value that starts at `start` (brackets counted, not matched; a scalar
    /// up to the next delimiter), -1 when there is none or the text ends first.
    private static func valueEnd(_ bytes: UnsafePointer<UInt8>, from start: Int, count: Int) -> Int {
        guard start < count else { return -1 }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            let end = stringEnd(bytes, from: start + 1, count: count)
            return end < 0 ? -1 : end + 1
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    let end = stringEnd(bytes, from: index + 1, count: count)
                    guard end >= 0 else { return -1 }
                    index = end
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default:
                    break
                }
                index += 1
            }
            return -1
        default:
            var index = start
            while index < count {
                switch bytes[index] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09:
                    return index > start ? index : -1
                default:
                    index += 1
                }
            }
            return -1
        }
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

    func appendKey(of value: Range<Int>, to key: inout [UInt8]) throws(ReshapeError) {
        try charge(value.count)
        guard ValueKey.append(tokens, value, to: &key) else { throw Self.givesUp }
    }
}
