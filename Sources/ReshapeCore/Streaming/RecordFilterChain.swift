/// The filters of the streamed rules for one kind of collection (see `RecordFilter`): made once
/// for a stream, shared by its threads; each thread makes its own `RecordFilterChain`.
struct RecordFilterPlan: Sendable {
    private let makers: [@Sendable (any RecordFilter, TokenArena) -> any RecordFilter]
    /// The 1-based number of each filter's rule.
    private let rules: [Int]
    /// What each filter needs to see of a record's members; nil when some filter must see all.
    private let needs: [MemberNeeds]?

    /// At most this many filters: each token passes through every one of them, one call inside
    /// the other.
    static let maxFilters = 32

    /// The plan for the rules `0..<route.streamed` on a collection of `kind` at `chain`, or nil
    /// when some rule needs a record's tree, or the records are written with their names (a
    /// keyed collection that stays one).
    static func make(for operations: [any Operation], route: RecordPlan.Route, kind: RecordPlan.Kind, chain: [[UInt8]])
        -> RecordFilterPlan?
    {
        var step = RecordPlan.Step(chain: chain, kind: kind)
        var plan = Gathered()
        for (offset, operation) in operations[0..<route.streamed].enumerated() {
            // Asked before the rule moves the collection, so that the chain is not copied for
            // each rule (thousands of `wrap`s make a chain as long).
            var context = RecordFilterContext(chain: step.chain, kind: step.kind)
            context.rule = offset + 1
            let made = operation.recordFilter(context)
            _ = operation.planStep(&step)
            switch made {
            case .unchanged: continue
            case .filter(let make): guard plan.add(make, of: operation, in: context) else { return nil }
            case .needsTree: return nil
            }
        }
        // Records of an array, or of an object that stays one (the runner writes their names).
        guard step.kind == .array || kind == .object else { return nil }
        return plan.made
    }

    /// The plan for a document that is one record, every rule on it (a JSON Lines line): each
    /// rule's paths start at the record (see `RecordFilterContext.lone`). Nil when some rule
    /// needs the tree, or moves the document rather than editing what its path selects (`wrap`,
    /// `unwrap`: their filters leave the records as they are).
    static func makeForLoneRecords(_ operations: [any Operation]) -> RecordFilterPlan? {
        var plan = Gathered()
        for (offset, operation) in operations.enumerated() {
            var context = RecordFilterContext(chain: [], kind: .array)
            context.rule = offset + 1
            context.lone = true
            guard case .filter(let make) = operation.recordFilter(context), plan.add(make, of: operation, in: context) else { return nil }
        }
        return plan.made
    }

    /// The filters gathered so far, in the rules' order.
    private struct Gathered {
        var makers: [@Sendable (any RecordFilter, TokenArena) -> any RecordFilter] = []
        var rules: [Int] = []
        var needs: [MemberNeeds]? = []

        /// Adds the filter `make` of `operation`, made in `context`; false past `maxFilters`.
        mutating func add(
            _ make: @escaping @Sendable (any RecordFilter, TokenArena) -> any RecordFilter, of operation: any Operation,
            in context: RecordFilterContext
        ) -> Bool {
            makers.append(make)
            rules.append(context.rule)
            if needs != nil, let need = operation.recordMemberNeeds(context) { needs?.append(need) } else { needs = nil }
            return makers.count <= maxFilters
        }

        /// The plan, or nil when no rule has a filter.
        var made: RecordFilterPlan? {
            makers.isEmpty ? nil : RecordFilterPlan(makers: makers, rules: rules, needs: needs)
        }
    }

    /// A chain for one thread.
    func makeChain() -> RecordFilterChain {
        RecordFilterChain(makers, rules: rules, needs: needs)
    }
}

/// One thread's filters, from the record's text to the output's: the text is read into tokens
/// as strictly as the parser reads it, passed through each rule's filter in order, and written as
/// the writer writes a tree.
final class RecordFilterChain {
    private let first: any RecordFilter
    /// The rules' filters, in order (without the writer), and the 1-based number of each one's
    /// rule.
    private let filters: [any RecordFilter]
    private let rules: [Int]
    private let writer: RecordTextWriter
    /// While above 0: the tokens of a container every filter ignores go to the writer alone, and
    /// this counts the containers open in it.
    @exclusivity(unchecked) private var bypass = 0
    /// The value that comes next goes to the writer alone (no filter needs its member), with
    /// this pass (an index into `passes`) when it is a container; -1: it goes to the filters.
    @exclusivity(unchecked) private var direct = -1
    /// The member whose name was read last was dropped, value and all (see `MemberUse.drops`).
    @exclusivity(unchecked) private var dropped = false
    /// A record's member that went to the writer alone with a container value (see `direct`):
    /// where its name starts in the text, where the writer stood before it, the renaming filters
    /// to tell of it (a range of `wentBy`) and what its renaming adds to the output bound, all
    /// settled once its value is copied. A copy that gives back (`JSONParser.NameScratch.givesBack`)
    /// takes the member back, and the filters then see it (`unroute`).
    @exclusivity(unchecked) private var routedMember: (nameStart: Int, mark: RecordTextWriter.Mark, renamed: Range<Int>, growth: Int)? =
        nil
    /// For a container that goes to the writer alone (see `direct`): the kinds that, empty,
    /// become `null` (`MemberRoute.emptyToNull`).
    @exclusivity(unchecked) private var directEmptyToNull: ValueKinds = []
    /// For a scalar that goes to the writer alone (see `direct`): what a filter makes of it, as
    /// an index into `edits`; -1 for nothing.
    @exclusivity(unchecked) private var directEdit = -1
    /// The edits of the routes (see `MemberRoute.edit`), and how many of them kept routes use
    /// (those of a route not kept go with it, as its `wentBy` do).
    @exclusivity(unchecked) private var edits: [TextValueEdit] = []
    @exclusivity(unchecked) private var keptEdits = 0
    /// For a record copied member by member (`routeRecord`): the names the renaming filters gave
    /// its members so far (see `noteRenamed`).
    @exclusivity(unchecked) private var routedHashes: [(filter: Int, hash: UInt64)] = []
    /// The route of the id member (see `idRoute`), once made.
    @exclusivity(unchecked) private var keptIdRoute: MemberRoute? = nil
    /// Records copied member by member past the filters (for tests: see
    /// `StreamSettings.outcome`).
    private(set) var recordsRouted = 0
    /// Records whose first members went past the filters, the rest through them (`handOver`;
    /// for tests: see `StreamSettings.outcome`).
    private(set) var recordsHandedOver = 0
    /// The routed record was handed over to the filters (`handOver`): `read` reads on.
    @exclusivity(unchecked) private var handedOver = false
    /// How deep the record may nest (see `run`).
    @exclusivity(unchecked) private var depthLeft = 0
    /// Where dropped containers are written, to be read as strictly as the others.
    @exclusivity(unchecked) private var discarded = ByteBuffer()
    /// What each filter does to a record's members (see `MemberNeeds`); nil: they see them all.
    private let needs: [MemberNeeds]?
    /// `needs` is not nil. (Read for every member: reading `needs` itself would retain an array
    /// every thread's chain shares, and its count would bounce between the cores.)
    private let routesMembers: Bool
    /// The routes of the record members met so far, by name: the index of each in `routes`.
    private let knownRoutes = KnownNames()
    @exclusivity(unchecked) private var routes: [MemberRoute] = []
    /// The slot of `routes` for a route not kept (see `makeRoute`); -1 until one is needed.
    @exclusivity(unchecked) private var spareRoute = -1
    /// The route the record's next member likely takes: the one after the last member's.
    @exclusivity(unchecked) private var nextRoute = 0
    /// Members of records that went to the writer alone (for tests: see
    /// `StreamSettings.outcome`).
    private(set) var membersPast = 0
    /// The filters set aside (a bit each, by index: see `RecordFilter.aside`): those that do
    /// nothing to the record's member being read, which others must see. 0 at a record's start
    /// and end, and between members the filters see all of.
    @exclusivity(unchecked) private var aside: UInt64 = 0
    /// A bit for each filter, by index.
    private let allFilters: UInt64
    /// Each filter's flag (`RecordFilter.aside`), by index.
    private let asideFlags: UnsafeMutablePointer<Bool>
    /// Members of records that some filters were set aside for (for tests: see
    /// `StreamSettings.outcome`).
    private(set) var membersNarrowed = 0
    let arena: TokenArena
    /// Per open container of the text: is it an object, where its names start in `names`.
    @exclusivity(unchecked) private var frames: [(isObject: Bool, firstName: Int)] = []
    /// The hashes (`RecordNames.hash`) of the names of the open objects, for duplicates.
    @exclusivity(unchecked) private var names: [UInt64] = []
    /// The passes met so far, the first doing nothing; each the chain's own (one that threads
    /// shared would have its reference count bumped by each of them at every copy).
    @exclusivity(unchecked) private var passes = [CopyPass(key: 0, RecordFastPath(ContainerPass()), cacheCapacity: 1)]
    /// At most this many passes are kept; a container that would need another takes its tokens.
    private static let maxPasses = 16
    /// Containers copied from the text with something done to them (for tests: see
    /// `StreamSettings.outcome`).
    private(set) var containersPassed = 0
    /// Copies from the text given back at a member's value the filters must see
    /// (`JSONParser.NameScratch.givesBack`): their containers took their tokens after all (for
    /// tests: see `StreamSettings.outcome`).
    private(set) var copiesGivenBack = 0
    /// A bit per filter that renames members and has a filter after it that may drop names: told
    /// of the record's members that go by it without their names (see
    /// `RecordFilter.memberWentBy`).
    private let renamersAsked: UInt64
    /// See `MemberRoute.renamed`.
    @exclusivity(unchecked) private var wentBy: [(filter: Int, hash: UInt64)] = []
    /// The first filter makes the records with this id member (`RecordFilter.recordIdKey`): a
    /// record the others let go by is copied whole, its id put first by the copy.
    private let recordIdKey: [UInt8]?
    /// The record's member name in an object collection (see `run`).
    @exclusivity(unchecked) private var recordKey: UnsafeRawBufferPointer? = nil
    /// Records in a row that the filters did not all let go by (`copyRecord`). Past
    /// `recordMissLimit`, records are not asked again until `recordMissPause` more have gone:
    /// a list whose path reaches into every record never agrees. (Which way a record goes
    /// changes neither its bytes nor its work: only the time.)
    @exclusivity(unchecked) private var recordMisses = 0
    private static let recordMissLimit = 16
    private static let recordMissPause = 4096
    /// How much of `wentBy` the routes kept in `routes` use.
    @exclusivity(unchecked) private var keptWentBy = 0

    fileprivate init(_ makers: [@Sendable (any RecordFilter, TokenArena) -> any RecordFilter], rules: [Int], needs: [MemberNeeds]?) {
        self.needs = needs
        self.rules = rules
        routesMembers = needs != nil
        arena = TokenArena()
        writer = RecordTextWriter()
        var next: any RecordFilter = writer
        var filters: [any RecordFilter] = []
        for make in makers.reversed() {
            next = make(next, arena)
            filters.append(next)
        }
        first = next
        self.filters = filters.reversed()
        // A bit each: `RecordFilterPlan` makes at most `maxFilters` (32). The shift is 64 for none.
        allFilters = UInt64.max >> UInt64(64 - min(filters.count, 64))
        asideFlags = .allocate(capacity: max(1, filters.count))
        asideFlags.initialize(repeating: false, count: max(1, filters.count))
        for index in self.filters.indices { self.filters[index].aside = AsideFlag(asideFlags + index) }
        var except: [[UInt8]] = []
        for filter in self.filters {
            arena.takesText.append((ObjectIdentifier(filter), except))
            guard let made = filter.recordMembersMade else { break }
            except += made
        }
        // Names the reader found distinct stay so unless a filter renames them.
        writer.comparesNames = filters.contains { $0.renamesMembers }
        var renamers: UInt64 = 0
        var dropsAfter = false
        for index in self.filters.indices.reversed() {
            if dropsAfter && self.filters[index].renamesMembers {
                renamers |= 1 << UInt64(index)
                self.filters[index].namesMayBeDropped()
            }
            if !self.filters[index].passesEveryName { dropsAfter = true }
        }
        renamersAsked = renamers
        recordIdKey = self.filters.first?.recordIdKey
    }

    /// Writes the reshaped record to `out`, or nothing when a rule removed it whole
    /// (`arena.droppedBy` says which). False, with bytes possibly written, when the tree must
    /// decide: the caller drops what was written.
    /// - Parameters:
    ///   - key: the record's member name in an object collection; nil for an element.
    ///   - depthLeft: how deep the record may nest, in the input and in the output.
    ///   - outputLimit: the most `out` may hold.
    ///   - growth: gets what the rules add to the whole tree's output bound (`Document.grow`).
    func run(
        _ parser: inout JSONParser, key: UnsafeRawBufferPointer?, depthLeft: Int, into out: inout ByteBuffer,
        outputLimit: Int, growth: inout Int, work: inout Int
    ) -> Bool {
        arena.reset()
        arena.growth = 0
        arena.work = 0
        arena.droppedBy = 0
        arena.holdsRecord = false
        let start = parser.region == nil ? min(parser.index, parser.text.count) : parser.text.count
        arena.record = UnsafeRawBufferPointer(rebasing: parser.text[start...])
        defer { arena.record = UnsafeRawBufferPointer(start: nil, count: 0) }
        frames.empty()
        names.empty()
        bypass = 0
        direct = -1
        dropped = false
        routedMember = nil
        directEdit = -1
        directEmptyToNull = []
        nextRoute = 0
        handedOver = false
        // A record that failed may have left filters aside.
        if aside != 0 { setAside(0) }
        recordKey = key
        self.depthLeft = depthLeft
        swap(&out, &writer.out)
        defer { swap(&out, &writer.out) }
        writer.begin(depthLeft: depthLeft, outputLimit: outputLimit)
        guard first.start(key: key), read(&parser, depthLeft: depthLeft), writer.finished || arena.droppedBy > 0 else { return false }
        growth = growth.addingClamped(arena.growth)
        work = work.addingClamped(arena.work)
        return true
    }

    /// The tokens of one JSON value, `text`, their bytes kept in `arena`; nil if `text` is not
    /// one value (or nests deeper than a record may).
    static func tokens(of text: UnsafeRawBufferPointer, keptIn arena: TokenArena) -> [RecordToken]? {
        let collector = Collector(arena)
        let chain = RecordFilterChain(first: collector)
        var parser = JSONParser(
            text: text, allowDuplicateKeys: false, errorCode: .invalidJSON, rawDepth: nil, maxDepth: Limits.defaultMaxDepth)
        guard chain.read(&parser, depthLeft: Limits.defaultMaxDepth) else { return nil }
        return collector.tokens
    }

    /// Reads JSON values into tokens as `tokens(of:keptIn:)` does, one after another, with no
    /// allocation once warm: for a filter that reads values of a record ahead of its tokens.
    final class TokenReader {
        private let collector: Collector
        private let chain: RecordFilterChain
        private var parser = JSONParser(
            text: UnsafeRawBufferPointer(start: nil, count: 0), allowDuplicateKeys: false, errorCode: .invalidJSON,
            rawDepth: nil, maxDepth: Limits.defaultMaxDepth)

        /// - Parameter arena: keeps the tokens' bytes (until its `reset`).
        init(keepingIn arena: TokenArena) {
            collector = Collector(arena)
            chain = RecordFilterChain(first: collector)
        }

        /// Appends the tokens of the one JSON value `text` holds to `tokens`; false (and
        /// `tokens` as it was) when `text` is not one value or nests deeper than a record may.
        func read(_ text: UnsafeRawBufferPointer, appendingTo tokens: inout [RecordToken]) -> Bool {
            swap(&tokens, &collector.tokens)
            defer { swap(&tokens, &collector.tokens) }
            let count = collector.tokens.count
            chain.frames.empty()
            chain.names.empty()
            chain.bypass = 0
            chain.direct = -1
            chain.dropped = false
            parser.restart(with: text)
            guard chain.read(&parser, depthLeft: Limits.defaultMaxDepth) else {
                collector.tokens.removeSubrange(count...)
                return false
            }
            return true
        }
    }

    private init(first: any RecordFilter) {
        needs = nil
        routesMembers = false
        arena = TokenArena()
        writer = RecordTextWriter()
        self.first = first
        filters = []
        rules = []
        renamersAsked = 0
        recordIdKey = nil
        allFilters = 0
        asideFlags = .allocate(capacity: 1)
        asideFlags.initialize(to: false)
    }

    deinit {
        asideFlags.deallocate()
    }

    /// Gathers tokens, their bytes kept in an arena.
    private final class Collector: RecordFilter {
        let arena: TokenArena
        @exclusivity(unchecked) var tokens: [RecordToken] = []

        init(_ arena: TokenArena) {
            self.arena = arena
        }

        func start(key: UnsafeRawBufferPointer?) -> Bool { true }

        func ignores(_ token: RecordToken) -> Bool { false }

        var aside: AsideFlag {
            get { AsideFlag() }
            set {}
        }

        func skip(_ token: RecordToken) {}

        func take(_ token: RecordToken) -> Bool {
            // A bracket's bytes are its place in the text, not kept.
            let bytes = token.bytes.isEmpty || token.opens ? UnsafeRawBufferPointer(start: nil, count: 0) : arena.keep(token.bytes)
            tokens.append(
                token.kind == .name
                    ? RecordToken(name: bytes, hash: token.hash, plain: token.flag) : RecordToken(token.kind, bytes, flag: token.flag))
            return true
        }
    }

    /// The pass every filter agrees on for the container `token` opens, as an index into
    /// `passes` (0: each ignores it); nil when some filter must see its tokens.
    private func agreedPass(_ token: RecordToken) -> Int? { agreedPass(token, from: 0) }

    /// `agreedPass` of the filters from number `first` on (a record the first filter makes:
    /// see `copyRecord`). Inlined, so that the containers' `agreedPass` counts from a constant.
    @inline(__always)
    private func agreedPass(_ token: RecordToken, from first: Int) -> Int? {
        guard !filters.isEmpty else { return nil }
        var pass = ContainerPass()
        var key: UInt64 = 0
        var watchKey: UInt64 = 0
        var asked = seeing(from: first)
        while asked != 0 {
            let index = asked.trailingZeroBitCount
            asked &= asked - 1
            let counts = pass.counts
            guard filters[index].passes(token, into: &pass) else { return nil }
            // A filter adds one renaming at most: in one state always the same one, and
            // elsewhere perhaps a watch (`ContainerPass.watch(_:)`), which has a bit of its own.
            if pass.counts != counts {
                key |= 1 << UInt64(8 + index)
                // The kind of the renaming, when it is not one for every member at every depth.
                if pass.watchCount != (counts >> 16) & 0xFFFF { watchKey |= 1 << UInt64(index) }
                if pass.ownMembersCount != counts >> 32 { watchKey |= 1 << UInt64(32 + index) }
            }
        }
        key |= pass.nullingKey
        for index in passes.indices where passes[index].key == key && passes[index].watchKey == watchKey { return index }
        // A pass not met before: asked again, its renamings gathered this time.
        var gathered = ContainerPass(gathering: true)
        asked = seeing(from: first)
        while asked != 0 {
            _ = filters[asked.trailingZeroBitCount].passes(token, into: &gathered)
            asked &= asked - 1
        }
        return passIndex(gathered, key: key, watchKey: watchKey)
    }

    /// A pass the filters agreed on, with the scratch (and the cache of renamed names) of its
    /// copies. A class: its scratch is used in place.
    private final class CopyPass {
        /// Which filters rename (a bit each from bit 8) and what becomes `null` (bits 0-3).
        let key: UInt64
        /// A bit per filter that watches names in it (see `ContainerPass.watch(_:)`), and from
        /// bit 32 one per filter that renames or drops its own members only
        /// (`renameOwnMembers(_:)`, `dropOwnMembers(_:)`).
        let watchKey: UInt64
        let fast: RecordFastPath
        /// What the filters make of an empty object, or array: as the pass copies it (`.kept`:
        /// no member added to it or taken out of it), `null`, or what they decide.
        let emptyObjects: ContainerPass.EmptyTaken
        let emptyArrays: ContainerPass.EmptyTaken
        @exclusivity(unchecked) var scratch: JSONParser.NameScratch
        /// `fast` for a whole record the first filter makes (`RecordFastPath(records:idKey:)`),
        /// made at its first use; `.some(nil)` when this pass cannot copy one.
        @exclusivity(unchecked) var forRecords: RecordFastPath?? = nil

        init(key: UInt64, watchKey: UInt64 = 0, _ fast: RecordFastPath, cacheCapacity: Int) {
            self.key = key
            self.watchKey = watchKey
            self.fast = fast
            switch fast.taking {
            case .nothing:
                emptyArrays = .kept
                if case .nothing = fast.filled { emptyObjects = .kept } else { emptyObjects = .givesBack }
            case .member(let taken):
                // No fill with a member taken (`RecordFastPath.taking`).
                emptyArrays = taken.fromElements ? taken.empty : .kept
                emptyObjects = taken.fromElements ? .kept : taken.empty
            case .givesBack:
                (emptyArrays, emptyObjects) = (.givesBack, .givesBack)
            }
            scratch = JSONParser.NameScratch(cacheCapacity: cacheCapacity)
        }
    }

    /// Hands `token` to the first filter; or, for a container every filter ignores, to the
    /// writer, with the tokens in it. `asked`: the filters were asked about this container.
    @inline(__always)
    private func emit(_ token: RecordToken, asked: Bool = false) -> Bool {
        if bypass > 0 {
            if token.opens {
                bypass += 1
            } else if token.closes {
                bypass -= 1
            }
            return writer.take(token)
        }
        if direct >= 0 {
            direct = -1
            if token.opens { bypass = 1 }
            return writer.take(token)
        }
        // Containers only: for a scalar, asking every filter costs more than passing it through
        // them (measured: MIXED1 1.08x with scalars too).
        if token.opens && !asked && agreedPass(token) == 0 {
            skipped(token)
            bypass = 1
            return writer.take(token)
        }
        return first.take(token)
    }

    /// Reads the record's text into tokens for the first filter.
    private func read(_ parser: inout JSONParser, depthLeft: Int) -> Bool {
        while true {
            if dropped {
                // The member's value was read and dropped with its name (see `readName`).
                dropped = false
            } else {
                parser.skipWhitespace()
                guard parser.index < parser.text.count else { return false }
                let byte = parser.text[parser.index]
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    let isObject = byte == UInt8(ascii: "{")
                    guard frames.count + 1 < depthLeft else { return false }
                    let open = parser.index
                    parser.index += 1
                    parser.skipWhitespace()
                    guard parser.index < parser.text.count else { return false }
                    // Its bytes are its bracket in the text: where a filter may read it ahead (`FilterGate`).
                    let token = RecordToken(isObject ? .objectStart : .arrayStart, UnsafeRawBufferPointer(rebasing: parser.text[open..<open + 1]))
                    if parser.text[parser.index] == UInt8(ascii: isObject ? "}" : "]") {
                        parser.index += 1
                        let empty = direct >= 0 && routedMember != nil ? (isObject ? passes[direct].emptyObjects : passes[direct].emptyArrays) : .kept
                        if case .givesBack = empty {
                            // A step that adds to it, or takes out of it, leaves it to the filters.
                            guard unroute(&parser) else { return false }
                            continue
                        }
                        let nulls = empty == .null || directEmptyToNull.contains(isObject ? .object : .array)
                        directEmptyToNull = []
                        if direct >= 0 && (nulls || (isObject ? passes[direct].fast.nullEmptyObjects : passes[direct].fast.nullEmptyArrays)) {
                            direct = -1
                            guard writer.take(.null) else { return false }
                        } else {
                            guard emit(token), emit(isObject ? .objectEnd : .arrayEnd) else { return false }
                        }
                        guard settleRoutedMember() else { return false }
                    } else if direct >= 0 {
                        // A member no filter needs: copied with what the filters do to it.
                        let index = direct
                        let copying = passes[index]
                        direct = -1
                        directEmptyToNull = []
                        parser.index = open
                        // As `copy`: a pass on a container's own members stops at a container in it.
                        let ownMembersOnly = copying.fast.ownMembersOnly
                        let depthLeft = ownMembersOnly ? min(2, depthLeft - frames.count) : depthLeft - frames.count
                        guard writer.copy(&parser, copying.fast, depthLeft: depthLeft, scratch: &copying.scratch) else {
                            copying.scratch.growth = 0
                            let givesBack = copying.scratch.givesBack || ownMembersOnly
                            copying.scratch.givesBack = false
                            guard givesBack, routedMember != nil else { return false }
                            copiesGivenBack += 1
                            guard unroute(&parser) else { return false }
                            continue
                        }
                        if index != 0 { containersPassed += 1 }
                        arena.growth = arena.growth.addingClamped(copying.scratch.growth)
                        copying.scratch.growth = 0
                        guard settleRoutedMember() else { return false }
                    } else if bypass == 0,
                        let copied = frames.isEmpty
                            ? (recordIdKey != nil
                                ? copyRecord(token, at: open, &parser, depthLeft: depthLeft)
                                : copyElementRecord(token, at: open, &parser, depthLeft: depthLeft))
                            : copyAgreed(token, at: open, &parser, depthLeft: depthLeft)
                    {
                        // No rule needs its tokens: the writer copied it from the text, as the fused
                        // pass copies a record, doing what the rules agreed on, without a token for
                        // each value in it.
                        guard copied else { return false }
                        if handedOver {
                            // A record whose first members went past the filters: the filters
                            // see the rest, from the value of the member they must see.
                            handedOver = false
                            continue
                        }
                    } else {
                        guard emit(token, asked: bypass == 0) else { return false }
                        if frames.isEmpty && arena.droppedBy > 0 && lettingGo(UnsafeRawBufferPointer(rebasing: parser.text[open...])) {
                            // A rule removed the record at its first token, and the rules before it
                            // cannot fail on the rest: it is read as strictly, and goes nowhere.
                            parser.index = open
                            guard drop(&parser) else { return false }
                            parser.skipWhitespace()
                            return parser.index == parser.text.count
                        }
                        frames.append((isObject, names.count))
                        if isObject { guard readName(&parser) else { return false } }
                        continue
                    }
                default:
                    guard let token = readScalar(&parser, byte) else { return false }
                    if directEdit >= 0 {
                        guard let done = editDirect(token, &parser) else { continue }
                        guard done else { return false }
                    } else {
                        guard emit(token) else { return false }
                    }
                }
            }
            // The value is complete: the next member or element, or the end of containers.
            while let top = frames.last {
                parser.skipWhitespace()
                guard parser.index < parser.text.count else { return false }
                let next = parser.text[parser.index]
                if next == UInt8(ascii: ",") {
                    parser.index += 1
                    if top.isObject { guard readName(&parser) else { return false } }
                    break
                }
                guard next == UInt8(ascii: top.isObject ? "}" : "]") else { return false }
                parser.index += 1
                if top.isObject { names.removeSubrange(top.firstName...) }
                frames.removeLast()
                if frames.isEmpty && aside != 0 { setAside(0) }
                guard emit(top.isObject ? .objectEnd : .arrayEnd) else { return false }
            }
            if frames.isEmpty {
                parser.skipWhitespace()
                return parser.index == parser.text.count
            }
        }
    }

    /// Copies the container `token` opens, at `open` in the text, from the text when every
    /// filter agrees on a pass for it (see `agreedPass`): true when copied, false when the
    /// record must take its tree. Nil when its tokens must come: no pass agreed, or the copy was
    /// given back (`JSONParser.NameScratch.givesBack`: a member a filter watches, a value the
    /// pass cannot edit; or, for a pass on a container's own members, any stop), and then
    /// nothing of it was written, and the parser is back where it was.
    @inline(__always)
    private func copyAgreed(_ token: RecordToken, at open: Int, _ parser: inout JSONParser, depthLeft: Int) -> Bool? {
        guard let agreed = agreedPass(token) else { return nil }
        return copy(token, at: open, &parser, depthLeft: depthLeft, agreed: agreed, passes[agreed].fast, id: nil)
    }

    /// `copyAgreed` for a record the first filter makes (`RecordFilter.recordIdKey`): the other
    /// filters decide, and the copy puts the id first. Any stop gives the record back (a member
    /// named as the id, an empty record): the filters then make it.
    @inline(never)
    private func copyRecord(_ token: RecordToken, at open: Int, _ parser: inout JSONParser, depthLeft: Int) -> Bool? {
        guard !pausesRecords() else { return nil }
        guard token.kind == .objectStart, let key = recordKey, let idKey = recordIdKey else {
            recordMisses += 1
            return nil
        }
        if let agreed = agreedPass(token, from: 1) {
            let copying = passes[agreed]
            if copying.forRecords == nil { copying.forRecords = .some(RecordFastPath(records: copying.fast, idKey: idKey)) }
            if let fast = copying.forRecords ?? nil {
                recordMisses = 0
                return copy(token, at: open, &parser, depthLeft: depthLeft, agreed: agreed, fast, id: key)
            }
        }
        // No pass copies the record whole (one drops, edits or watches, or works on some members
        // only): its members go by one by one, each as its route says.
        let routed = passesMembers(token, from: 1) ? routeRecord(token, at: open, &parser, depthLeft: depthLeft, id: key) : nil
        recordMisses = routed == nil ? recordMisses + 1 : 0
        return routed
    }

    /// Whether records are not asked about now, after `recordMissLimit` misses in a row: true
    /// for the next `recordMissPause` records (see `recordMisses`).
    @inline(__always)
    private func pausesRecords() -> Bool {
        guard recordMisses >= Self.recordMissLimit else { return false }
        recordMisses += 1
        guard recordMisses > Self.recordMissLimit + Self.recordMissPause else { return true }
        recordMisses = 0
        return false
    }

    /// Whether every filter from number `first` on lets the record `token` opens go by member by
    /// member (`RecordFilter.passesMembers`), and their member needs route each.
    private func passesMembers(_ token: RecordToken, from first: Int) -> Bool {
        guard routesMembers, token.kind == .objectStart else { return false }
        var asked = seeing(from: first)
        while asked != 0 {
            guard filters[asked.trailingZeroBitCount].passesMembers(token) else { return false }
            asked &= asked - 1
        }
        return true
    }

    /// `copyAgreed` for a record of an array collection: one without a pass, or whose pass
    /// watches members the filters may need (and would give the copy back at each), goes by
    /// member by member, each as its route says (`routeRecord`), while that holds (see
    /// `recordMisses`).
    @inline(__always)
    private func copyElementRecord(_ token: RecordToken, at open: Int, _ parser: inout JSONParser, depthLeft: Int) -> Bool? {
        let agreed = agreedPass(token)
        if let agreed {
            let fast = passes[agreed].fast
            guard token.kind == .objectStart && routesMembers && (fast.watches != 0 || !fast.watchedHashes.isEmpty) else {
                return copy(token, at: open, &parser, depthLeft: depthLeft, agreed: agreed, fast, id: nil)
            }
        }
        guard !pausesRecords() else { return nil }
        // A filter that must see the record is a miss too.
        let routed = agreed != nil || passesMembers(token, from: 0) ? routeRecord(token, at: open, &parser, depthLeft: depthLeft, id: nil) : nil
        recordMisses = routed == nil ? recordMisses + 1 : 0
        return routed
    }

    /// Copies the record, the object that `token` opens at `open`, past the filters, member by
    /// member, each as its route says (`MemberRoute`, as `readName` routes them): renamed or
    /// dropped, its value copied with its pass or edited. Asked when every filter lets the
    /// record go by member by member (`passesMembers`), or as text but for members it watches
    /// (`agreedPass`), which their routes settle: the filters never see the record. `id`: its
    /// name in a keyed collection, written
    /// first as the first filter makes it (`recordIdKey`), as the others route that member.
    /// True when copied; false when the record must take its tree; nil when some member must go
    /// to the filters, or a copy gave back (nothing written, the parser back where it was).
    @inline(never)
    private func routeRecord(_ token: RecordToken, at open: Int, _ parser: inout JSONParser, depthLeft: Int, id: KeyBytes?) -> Bool? {
        guard routesMembers, !arena.holdsRecord else { return nil }
        let resume = parser.index
        let mark = writer.mark
        let growth = arena.growth
        let past = membersPast
        let firstName = names.count
        defer { if !handedOver && names.count > firstName { names.removeSubrange(firstName...) } }
        guard let copied = routeMembers(token, at: open, &parser, depthLeft: depthLeft, id: id) else {
            writer.rollBack(to: mark)
            arena.growth = growth
            membersPast = past
            parser.index = resume
            return nil
        }
        guard copied else { return false }
        // Handed over: the filters took the record's start.
        guard !handedOver else { return true }
        skipped(token)
        recordsRouted += 1
        return true
    }

    /// See `routeRecord`.
    private func routeMembers(_ token: RecordToken, at open: Int, _ parser: inout JSONParser, depthLeft: Int, id: KeyBytes?) -> Bool? {
        parser.index = open + 1
        guard writer.take(token) else { return false }
        routedHashes.removeAll(keepingCapacity: true)
        if let id {
            guard let idKey = recordIdKey, let route = idRoute(idKey) else { return nil }
            guard route.tokens.isDisjoint(with: .string), noteRenamed(route.renamed) else { return nil }
            // As the first filter counts the id it adds, and the renamings after it its name.
            arena.growth = arena.growth.addingClamped(first.recordGrowth(idBytes: id.count)).addingClamped(route.growth)
            if !route.drops {
                guard writer.take(route.name, written: route.written) else { return false }
                let idToken = RecordToken(.string, id, flag: JSONText.isPlain(id))
                guard let written = writeRouted(idToken, edit: route.edit) else { return nil }
                guard written else { return false }
            }
        }
        var expectsMember = true
        nextRoute = 0
        let firstName = names.count
        let pastBefore = membersPast
        while true {
            parser.skipWhitespace()
            guard parser.index < parser.text.count else { return false }
            if expectsMember {
                // An empty record is the filters' (it may become null before it is a record).
                guard parser.text[parser.index] == UInt8(ascii: "\"") else { return nil }
                let nameStart = parser.index
                let route = routeName(&parser)
                guard route >= 0 else { return route == -1 ? false : nil }
                parser.skipWhitespace()
                guard parser.index < parser.text.count else { return false }
                let byte = parser.text[parser.index]
                let kind = ValueKinds(firstByte: byte)
                guard routes[route].tokens.isDisjoint(with: kind) else {
                    // Some filter must see this member: the members before it stay past the
                    // filters, unless there are none (the filters then take the record whole).
                    return membersPast > pastBefore ? handOver(token, memberAt: nameStart, route: route, &parser, firstName: firstName) : nil
                }
                guard noteRenamed(routes[route].renamed) else { return false }
                membersPast += 1
                arena.growth = arena.growth.addingClamped(routes[route].growth)
                if routes[route].drops {
                    // Dropped, name and value: the value is still read as strictly as the rest.
                    guard drop(&parser, pass: routes[route].pass) else { return false }
                } else {
                    guard writer.take(routes[route].name, written: routes[route].written) else { return false }
                    switch byte {
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        guard let copied = copyRouted(routes[route].pass, &parser, depthLeft: depthLeft - 1, emptyToNull: routes[route].emptyToNull) else {
                            return nil
                        }
                        guard copied else { return false }
                    default:
                        guard let value = readScalar(&parser, byte) else { return false }
                        guard let written = writeRouted(value, edit: routes[route].edit) else { return nil }
                        guard written else { return false }
                    }
                }
                expectsMember = false
                continue
            }
            let next = parser.text[parser.index]
            parser.index += 1
            if next == UInt8(ascii: ",") {
                expectsMember = true
                continue
            }
            guard next == UInt8(ascii: "}") else { return false }
            return writer.take(.objectEnd)
        }
    }

    /// The scalar at `parser.index`, whose first byte is `byte`, read as strictly as the parser
    /// reads (a string's escapes decoded into the arena), the parser moved past it; nil when the
    /// text there is not a scalar.
    @inline(__always)
    private func readScalar(_ parser: inout JSONParser, _ byte: UInt8) -> RecordToken? {
        switch byte {
        case UInt8(ascii: "\""):
            guard let span = try? parser.scanString() else { return nil }
            return RecordToken(.string, content(of: span, in: parser.text), flag: !span.hasEscapes)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            guard case .success(let (literal, end)) = NumberLiteral.scan(parser.text, from: parser.index) else { return nil }
            parser.index = end
            return RecordToken(.number, literal.text, flag: literal.isReal)
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            guard parser.skipLiteral() != nil else { return nil }
            return byte == UInt8(ascii: "n") ? RecordToken.null : RecordToken(.bool, flag: byte == UInt8(ascii: "t"))
        default:
            return nil
        }
    }

    /// Reads a record member's `"name" :`, as `readName` does, and gives its route, an index
    /// into `routes`: -1 on a duplicate, text that is not a name, and objects too large to
    /// compare names one by one (the record takes its tree); -2 when no more routes are kept.
    @inline(__always)
    private func routeName(_ parser: inout JSONParser) -> Int {
        let expected = nextRoute < routes.count && routes[nextRoute].isNext(in: parser) ? nextRoute : -1
        guard let token = readMemberName(&parser, expected: expected, first: 0) else { return -1 }
        if expected >= 0 {
            nextRoute = expected + 1
            return expected
        }
        if let known = knownRoutes.find(token, guess: nextRoute) {
            nextRoute = Int(known) + 1
            return Int(known)
        }
        guard !knownRoutes.isFull else { return -2 }
        return makeRoute(token)
    }

    /// Hands the routed record that `token` opened over to the filters at its member whose name
    /// starts at `nameStart` in the text, read already (its route `route`), which some filter
    /// must see: the members before it went past the filters, and the record goes on as `read`
    /// reads one whose members the filters see, as if those members had gone past one by one
    /// (see `readName`). The filters take the record's start (`RecordFilter.takeResumed`: the
    /// writer wrote it, and the id, already), are told of the names the renamings gave those
    /// members (`renamedWentBy`), and take the member's name. `firstName`: where the record's
    /// names start in `names`. False when the record must take its tree.
    @inline(never)
    private func handOver(
        _ token: RecordToken, memberAt nameStart: Int, route: Int, _ parser: inout JSONParser, firstName: Int
    ) -> Bool {
        // The name as `readMemberName` read it, the parser left where it was.
        let resume = parser.index
        parser.index = nameStart
        guard let span = try? parser.scanString() else { return false }
        parser.index = resume
        let name = content(of: span, in: parser.text)
        let member = RecordToken(name: name, hash: RecordNames.hash(name), plain: !span.hasEscapes)
        writer.resumes = true
        guard first.takeResumed(token) else { return false }
        frames.append((true, firstName))
        handedOver = true
        recordsHandedOver += 1
        if writer.resumes {
            // A filter holds the record's start until its next token (`emptyObjectToNull` on
            // the records): every filter sees the member's name, which lets the start go, as
            // `readName` lets such a record's first name through; then the names before.
            guard emit(member), !writer.resumes else { return false }
            return renamedWentBy()
        }
        return renamedWentBy() && seen(member, route: route)
    }

    /// Tells the renaming filters the names they gave the members of the record that went past
    /// them before it was handed over (see `noteRenamed`), as `readName` tells them of each
    /// member that goes past: false when one of them gives two members one name.
    private func renamedWentBy() -> Bool {
        for given in routedHashes {
            guard filters[given.filter].memberWentBy(named: given.hash) else { return false }
        }
        return true
    }

    /// Reads `"name" :` at `parser.index`, a member of the object whose names start at `first` in
    /// `names`: taken from the route `expected` (an index into `routes`; -1: none) when the text
    /// spells the name as that route read it, quotes and all, and scanned otherwise. Nil on text
    /// that is not a name, a duplicate, and objects too large to compare names one by one.
    @inline(__always)
    private func readMemberName(_ parser: inout JSONParser, expected: Int, first: Int) -> RecordToken? {
        let name: UnsafeRawBufferPointer
        let plain: Bool
        let hash: UInt64
        if expected >= 0 {
            let quoted = routes[expected].quoted.count
            name = UnsafeRawBufferPointer(rebasing: parser.text[parser.index + 1..<parser.index + quoted - 1])
            plain = true
            hash = routes[expected].readHash
            parser.index += quoted
        } else {
            guard parser.index < parser.text.count, parser.text[parser.index] == UInt8(ascii: "\""),
                let span = try? parser.scanString()
            else { return nil }
            name = content(of: span, in: parser.text)
            plain = !span.hasEscapes
            hash = RecordNames.hash(name)
        }
        parser.skipWhitespace()
        guard parser.index < parser.text.count, parser.text[parser.index] == UInt8(ascii: ":") else { return nil }
        parser.index += 1
        guard names.count - first < JSONParser.rawCaptureMemberLimit else { return nil }
        for position in first..<names.count where names[position] == hash { return nil }
        names.append(hash)
        return RecordToken(name: name, hash: hash, plain: plain)
    }

    /// A route made for the record member `token` names, whose name has none kept; kept in
    /// `routes` when there is room, and otherwise in its last slot, kept for such routes (see
    /// `spareRoute`). Returns its index in `routes`.
    private func makeRoute(_ token: RecordToken) -> Int {
        // Those of a route not kept (no room for more) go with it.
        if wentBy.count > keptWentBy { wentBy.removeSubrange(keptWentBy...) }
        if edits.count > keptEdits { edits.removeSubrange(keptEdits...) }
        let route = MemberRoute(
            token, needs ?? [], keptIn: knownRoutes.isFull ? arena : knownRoutes.kept, renamers: renamersAsked,
            wentBy: &wentBy, rendersName: !knownRoutes.isFull, passes: { self.passIndex($0, key: $1, watchKey: $2) },
            edits: { self.edits.append($0); return self.edits.count - 1 })
        if !knownRoutes.isFull {
            knownRoutes.add(token, Int32(routes.count))
            routes.append(route)
            keptWentBy = wentBy.count
            keptEdits = edits.count
            nextRoute = routes.count
            return routes.count - 1
        }
        // Not found by name, nor by its text (it keeps no `quoted`): used for this member only.
        if spareRoute < 0 {
            spareRoute = routes.count
            routes.append(route)
        } else {
            routes[spareRoute] = route
        }
        return spareRoute
    }

    /// The route of the id member the first filter adds to each record (`recordIdKey`), through
    /// the other filters; made at its first use. (Not among `routes`, whose order is the
    /// members' in the records: see `nextRoute`.)
    private func idRoute(_ idKey: [UInt8]) -> MemberRoute? {
        if let keptIdRoute { return keptIdRoute }
        guard !knownRoutes.isFull else { return nil }
        let bytes = idKey.withUnsafeBytes { knownRoutes.kept.keep($0) }
        let token = RecordToken(name: bytes, hash: RecordNames.hash(bytes), plain: JSONText.isPlain(bytes))
        if wentBy.count > keptWentBy { wentBy.removeSubrange(keptWentBy...) }
        if edits.count > keptEdits { edits.removeSubrange(keptEdits...) }
        var route = MemberRoute(
            token, needs ?? [], from: 1, keptIn: knownRoutes.kept, renamers: renamersAsked, wentBy: &wentBy, rendersName: true,
            passes: { self.passIndex($0, key: $1, watchKey: $2) }, edits: { self.edits.append($0); return self.edits.count - 1 })
        // Never found by its text (`isNext`): a member of the record named so takes another route.
        route.quoted = UnsafeRawBufferPointer(start: nil, count: 0)
        keptIdRoute = route
        keptWentBy = wentBy.count
        keptEdits = edits.count
        return route
    }

    /// Notes the names the renaming filters give a routed record's member (`MemberRoute.renamed`),
    /// as each would (`RecordFilter.memberWentBy`): false when one of them gives two members of
    /// the record one name, which the tree fails at.
    @inline(__always)
    private func noteRenamed(_ renamed: Range<Int>) -> Bool {
        for index in renamed {
            let given = wentBy[index]
            for earlier in routedHashes where earlier.filter == given.filter && earlier.hash == given.hash { return false }
            routedHashes.append(given)
        }
        return true
    }

    /// Copies the routed member's container value at `parser.index` with the pass `index`, as
    /// `read` copies one past the filters. Nil when the copy gives back.
    @inline(__always)
    private func copyRouted(_ index: Int, _ parser: inout JSONParser, depthLeft: Int, emptyToNull: ValueKinds) -> Bool? {
        let copying = passes[index]
        let open = parser.index
        let isObject = parser.text[open] == UInt8(ascii: "{")
        guard depthLeft > 1 else { return false }
        parser.index += 1
        parser.skipWhitespace()
        guard parser.index < parser.text.count else { return false }
        if parser.text[parser.index] == UInt8(ascii: isObject ? "}" : "]") {
            parser.index += 1
            let empty = isObject ? copying.emptyObjects : copying.emptyArrays
            guard empty != .givesBack else { return nil }
            if empty == .null || emptyToNull.contains(isObject ? .object : .array) || (isObject ? copying.fast.nullEmptyObjects : copying.fast.nullEmptyArrays) {
                return writer.take(.null)
            }
            return writer.take(isObject ? .objectStart : .arrayStart) && writer.take(isObject ? .objectEnd : .arrayEnd)
        }
        parser.index = open
        let ownMembersOnly = copying.fast.ownMembersOnly
        guard writer.copy(&parser, copying.fast, depthLeft: ownMembersOnly ? min(2, depthLeft) : depthLeft, scratch: &copying.scratch) else {
            copying.scratch.growth = 0
            let givesBack = copying.scratch.givesBack || ownMembersOnly
            copying.scratch.givesBack = false
            return givesBack ? nil : false
        }
        if index != 0 { containersPassed += 1 }
        arena.growth = arena.growth.addingClamped(copying.scratch.growth)
        copying.scratch.growth = 0
        return true
    }

    /// Writes the routed member's scalar `token`, or what its edit (an index into `edits`; -1:
    /// none) makes of it. Nil when the edit cannot be made on the text.
    @inline(__always)
    private func writeRouted(_ token: RecordToken, edit: Int) -> Bool? {
        guard edit >= 0 else { return writer.take(token) }
        guard let (made, growth) = edits[edit](token) else { return nil }
        arena.growth = arena.growth.addingClamped(growth)
        return writeEdited(made, token)
    }

    /// Writes what a scalar edit made of `token`.
    private func writeEdited(_ made: ScalarEdit, _ token: RecordToken) -> Bool {
        switch made {
        case .keep: return writer.take(token)
        case .null: return writer.take(.null)
        case .scalar(let scalar): return writer.take(scalar.token(keptIn: arena))
        case .canonical(let text): return text.withUnsafeBytes { writer.take(canonical: $0) }
        }
    }

    /// Copies the container at `open` with `fast`, the pass `agreed` (or its record form, with
    /// the record's `id`): see `copyAgreed`.
    @inline(__always)
    private func copy(
        _ token: RecordToken, at open: Int, _ parser: inout JSONParser, depthLeft: Int, agreed: Int, _ fast: RecordFastPath,
        id: KeyBytes?
    ) -> Bool? {
        let resume = parser.index
        parser.index = open
        let copying = passes[agreed]
        let mark = writer.mark
        // A pass that renames a container's own members copies it only while it holds no
        // container: one more level of nesting stops the copy, which is given back (as any
        // copy of it that stops: the filters then decide). So does a record's copy.
        let ownMembersOnly = fast.ownMembersOnly
        guard
            writer.copy(
                &parser, fast, id: id, depthLeft: ownMembersOnly ? min(2, depthLeft - frames.count) : depthLeft - frames.count,
                scratch: &copying.scratch)
        else {
            copying.scratch.growth = 0
            let givesBack = copying.scratch.givesBack || ownMembersOnly || id != nil
            copying.scratch.givesBack = false
            guard givesBack else { return false }
            copiesGivenBack += 1
            writer.rollBack(to: mark)
            parser.index = resume
            return nil
        }
        skipped(token)
        arena.growth = arena.growth.addingClamped(copying.scratch.growth)
        copying.scratch.growth = 0
        // A record is copied with its id put first: something done to it.
        if agreed != 0 || id != nil { containersPassed += 1 }
        return true
    }

    /// Whether every filter before the one whose rule removed the record (`arena.droppedBy`) at
    /// its first token lets it go without its other tokens, given its text (see
    /// `RecordFilter.letsRemovedRecordGo`); otherwise they still come, and the removing filter
    /// drops them.
    private func lettingGo(_ record: UnsafeRawBufferPointer) -> Bool {
        for index in filters.indices where rules[index] < arena.droppedBy {
            guard filters[index].letsRemovedRecordGo(record) else { return false }
        }
        return true
    }

    /// Reads `"name" :` and hands the name on. Gives up on a duplicate, and on objects too large
    /// to compare names one by one.
    /// `routing` false: the member goes to the filters, not past them (its copy gave back: see
    /// `unroute`).
    private func readName(_ parser: inout JSONParser, routing: Bool = true) -> Bool {
        parser.skipWhitespace()
        let nameStart = parser.index
        // A member of the record: past the filters when none needs it with this kind of value,
        // and the record is open in the writer (a filter may hold its start until the next token:
        // `emptyObjectToNull` on the records; that first name then goes through the filters).
        let routed = routing && routesMembers && frames.count == 1 && bypass == 0 && !arena.holdsRecord && writer.openContainers == 1
        // The member the last one's route expects next, when the text has its name as that route
        // read it: the same bytes scan as they did then, so they are not scanned again.
        let expected = routed && nextRoute < routes.count && routes[nextRoute].isNext(in: parser) ? nextRoute : -1
        guard let token = readMemberName(&parser, expected: expected, first: frames[frames.count - 1].firstName) else { return false }
        if routed {
            // An index, not a copy of the route (which is large).
            let route: Int
            if expected >= 0 {
                route = expected
                nextRoute = expected + 1
            } else if let known = knownRoutes.find(token, guess: nextRoute) {
                route = Int(known)
                nextRoute = Int(known) + 1
            } else {
                route = makeRoute(token)
            }
            parser.skipWhitespace()
            guard parser.index < parser.text.count else { return false }
            let kind = ValueKinds(firstByte: parser.text[parser.index])
            if routes[route].tokens.isDisjoint(with: kind) {
                let isContainer = kind == .object || kind == .array
                if isContainer ? routes[route].givesBack : routes[route].edit >= 0 {
                    // Settled once the value is copied or edited, which may give it back to the
                    // filters.
                    routedMember = (nameStart, writer.mark, routes[route].renamed, routes[route].growth)
                    direct = routes[route].pass
                    if isContainer { directEmptyToNull = routes[route].emptyToNull } else { directEdit = routes[route].edit }
                    membersPast += 1
                    return writer.take(routes[route].name, written: routes[route].written)
                }
                if !routes[route].renamed.isEmpty {
                    for index in routes[route].renamed {
                        guard filters[wentBy[index].filter].memberWentBy(named: wentBy[index].hash) else { return false }
                    }
                }
                if routes[route].drops {
                    // Dropped, name and value: the value is still read as strictly as the rest.
                    membersPast += 1
                    dropped = true
                    arena.growth = arena.growth.addingClamped(routes[route].growth)
                    return drop(&parser, pass: routes[route].pass)
                }
                direct = routes[route].pass
                directEmptyToNull = routes[route].emptyToNull
                membersPast += 1
                arena.growth = arena.growth.addingClamped(routes[route].growth)
                return writer.take(routes[route].name, written: routes[route].written)
            }
            return seen(token, route: route)
        } else if aside != 0 && frames.count == 1 {
            setAside(0)
        }
        return emit(token)
    }

    /// Hands the record's member name `token`, whose route (`route`) says some filter must see
    /// it, to the filters: those that do nothing to it are set aside.
    @inline(__always)
    private func seen(_ token: RecordToken, route: Int) -> Bool {
        if routes[route].aside != aside { setAside(routes[route].aside) }
        if routes[route].aside != 0 {
            membersNarrowed += 1
            for index in routes[route].renamed where routes[route].aside & (1 << UInt64(wentBy[index].filter)) != 0 {
                guard filters[wentBy[index].filter].memberWentBy(named: wentBy[index].hash) else { return false }
            }
        }
        return emit(token)
    }

    /// For the scalar `token` of a member a filter edits past the filters (`directEdit`): writes
    /// what the edit makes of it. Nil when the edit cannot be made on the text: the member was
    /// taken back (`unroute`), and its name read again for the filters.
    @inline(never)
    private func editDirect(_ token: RecordToken, _ parser: inout JSONParser) -> Bool? {
        let edit = edits[directEdit]
        directEdit = -1
        direct = -1
        guard let (made, growth) = edit(token) else { return unroute(&parser) ? nil : false }
        guard settleRoutedMember() else { return false }
        arena.growth = arena.growth.addingClamped(growth)
        return writeEdited(made, token)
    }

    /// The record's member whose container value was just copied past the filters
    /// (`routedMember`) is settled: the renaming filters are told of it, and its renaming counts.
    @inline(__always)
    private func settleRoutedMember() -> Bool {
        guard let member = routedMember else { return true }
        routedMember = nil
        for index in member.renamed {
            guard filters[wentBy[index].filter].memberWentBy(named: wentBy[index].hash) else { return false }
        }
        arena.growth = arena.growth.addingClamped(member.growth)
        return true
    }

    /// The copy of the record's member that went past the filters (`routedMember`) gave back:
    /// what was written of it goes, and its name is read again, for the filters, which then see
    /// its value. False when there is no such member (the record then takes its tree).
    @inline(never)
    private func unroute(_ parser: inout JSONParser) -> Bool {
        guard let member = routedMember else { return false }
        routedMember = nil
        direct = -1
        directEdit = -1
        directEmptyToNull = []
        membersPast -= 1
        writer.rollBack(to: member.mark)
        names.removeLast()
        parser.index = member.nameStart
        return readName(&parser, routing: false)
    }

    /// The filters from number `first` on that are not set aside, a bit each.
    @inline(__always)
    private func seeing(from first: Int) -> UInt64 { allFilters & ~aside & (UInt64.max << UInt64(first)) }

    /// Sets aside the filters of `bits` (a bit each, by index), and no other.
    @inline(never)
    private func setAside(_ bits: UInt64) {
        var changed = aside ^ bits
        while changed != 0 {
            let index = changed.trailingZeroBitCount
            asideFlags[index] = bits & (1 << UInt64(index)) != 0
            changed &= changed - 1
        }
        aside = bits
    }

    /// The container `token` opens went by as text: the filters not set aside are told.
    @inline(__always)
    private func skipped(_ token: RecordToken) {
        var told = seeing(from: 0)
        while told != 0 {
            filters[told.trailingZeroBitCount].skip(token)
            told &= told - 1
        }
    }

    /// Reads the member value at `parser.index` as strictly as `read` does, writing nothing; a
    /// container with what `pass` (an index into `passes`) does in it, so that a renaming before
    /// the filter that drops it fails on a name it would make twice there, as on the tree.
    private func drop(_ parser: inout JSONParser, pass: Int = 0) -> Bool {
        let byte = parser.text[parser.index]
        switch byte {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            // Nesting counted as `read` counts it, empty or not.
            guard frames.count + 1 < depthLeft else { return false }
            let open = parser.index
            parser.index += 1
            parser.skipWhitespace()
            guard parser.index < parser.text.count else { return false }
            if parser.text[parser.index] == UInt8(ascii: byte == UInt8(ascii: "{") ? "}" : "]") {
                parser.index += 1
                return true
            }
            parser.index = open
            discarded.removeAll()
            // A large value's copy is not kept for the next.
            defer { if discarded.capacity > 1 << 20 { discarded = ByteBuffer() } }
            // Depth as `read` counts it: the record's frames and this value's.
            let copying = passes[pass]
            defer { copying.scratch.growth = 0 }
            return parser.transformRecord(
                copying.fast, id: nil, depthLeft: depthLeft - frames.count, into: &discarded, scratch: &copying.scratch,
                outputLimit: Int.max, wholeText: false)
        case UInt8(ascii: "\""):
            return (try? parser.scanString()) != nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            guard case .success(let (_, end)) = NumberLiteral.scan(parser.text, from: parser.index) else { return false }
            parser.index = end
            return true
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            return parser.skipLiteral() != nil
        default:
            return false
        }
    }

    /// How a record's member goes past the filters, when none needs to see it: what the filters
    /// together do to it, each seeing the name the ones before it gave the member.
    private struct MemberRoute {
        /// The kinds of value for which some filter must see the member.
        var tokens: ValueKinds = []
        /// A filter drops the member, name and value, whatever its value.
        var drops = false
        /// The name written, and its text as written: quoted, with its colon (empty for a route
        /// used once, which writes the name itself).
        var name: RecordToken
        var written = UnsafeRawBufferPointer(start: nil, count: 0)
        /// The name as read: its text in the record, quotes and all, when it has no escapes and
        /// the route is kept (empty otherwise); the hash of its content.
        var quoted = UnsafeRawBufferPointer(start: nil, count: 0)
        let readHash: UInt64
        /// What renaming it added to the output bound, as the filters would count it.
        var growth = 0
        /// For a container value: the pass (an index into `passes`).
        var pass = 0
        /// The pass's copy may give the value back to the filters (see `routedMember`): it has a
        /// step other than a renaming everywhere.
        var givesBack = false
        /// For a scalar value: what a filter makes of it (`MemberUse.edit`), as an index into the
        /// chain's `edits`; -1 when none edits it. (An index, not the function: a route is
        /// copied out of `routes` for every member, and a function in it would be retained.)
        var edit = -1
        /// For a container value of these kinds: when empty, it becomes `null`
        /// (`MemberUse.emptyToNull`).
        var emptyToNull: ValueKinds = []
        /// The renaming filters it goes by that are told so (see `RecordFilter.memberWentBy`),
        /// with the hash of the name each gives it: a range of the chain's `wentBy`.
        var renamed = 0..<0
        /// When some filter must see the member: the filters (a bit each) that do nothing to it
        /// (`MemberUse.doesNothing`), set aside while it is read.
        var aside: UInt64 = 0

        /// - Parameters:
        ///   - renamers: a bit per filter that is told of the members that go by it.
        ///   - wentBy: gets those filters, and the hash of the name each gives the member.
        ///   - rendersName: the route is kept for the names to come: it keeps the name's text.
        init(
            _ token: RecordToken, _ needs: [MemberNeeds], from first: Int = 0, keptIn kept: TokenArena, renamers: UInt64,
            wentBy: inout [(filter: Int, hash: UInt64)], rendersName: Bool, passes: (ContainerPass, UInt64, UInt64) -> Int?,
            edits: (@escaping TextValueEdit) -> Int
        ) {
            let firstRenamed = wentBy.count
            defer { renamed = firstRenamed..<wentBy.count }
            readHash = token.hash
            if rendersName && token.flag {
                var text = ByteBuffer(capacity: token.bytes.count + 2)
                text.append(UInt8(ascii: "\""))
                text.append(token.bytes)
                text.append(UInt8(ascii: "\""))
                quoted = text.withBytes { kept.keep($0) }
            }
            // The name's bytes (in the record's text, or decoded into the record's arena) last as
            // long as the route.
            name = RecordToken(name: kept.keep(token.bytes), hash: token.hash, plain: token.flag)
            var pass = ContainerPass(gathering: true)
            // As `agreedPass` keys a pass: a bit per filter that adds a step, and per filter whose
            // step watches, or works on the container's own members.
            var key: UInt64 = 0
            var watchKey: UInt64 = 0
            var edit: TextValueEdit? = nil
            // No filter before may have made other members out of it (`MemberUse.keepsMember`).
            var narrows = true
            for index in needs.indices where index >= first {
                let use = needs[index](name)
                if narrows && use.doesNothing { aside |= 1 << UInt64(index) }
                if !use.tokens.isEmpty && !use.keepsMember { narrows = false }
                tokens.formUnion(use.tokens)
                if use.drops {
                    // The filters after it never see the member. A value dropped is read with the
                    // steps before, at every depth, which those of a selected container are not;
                    // and an edit that fails fails before the drop.
                    drops = true
                    if pass.ownMembersCount > 0 || pass.renames?.contains(where: { $0.taken != nil }) == true || edit != nil { tokens = .all }
                    break
                }
                if edit != nil && !use.tokens.isDisjoint(with: .scalars) {
                    // A filter after the edit sees scalars: perhaps the kind the edit makes.
                    edit = nil
                    tokens.formUnion(.scalars)
                }
                if let made = use.edit {
                    // One edit on the text; two, in rule order, are the filters'.
                    if edit == nil && tokens.isDisjoint(with: .scalars) {
                        edit = made
                    } else {
                        edit = nil
                        tokens.formUnion(.scalars)
                    }
                }
                emptyToNull.formUnion(use.emptyToNull)
                pass.merge(use.pass)
                if use.pass.renameCount > 0 { key |= 1 << UInt64(8 + index) }
                if use.pass.watchCount > 0 { watchKey |= 1 << UInt64(index) }
                if use.pass.ownMembersCount > 0 { watchKey |= 1 << UInt64(32 + index) }
                if let newName = use.newName {
                    growth = growth.addingClamped(OutputGrowth.renamed(from: name.bytes.count, to: newName.count).bound)
                    let bytes = newName.withUnsafeBytes { kept.keep($0) }
                    name = RecordToken(name: bytes, hash: RecordNames.hash(bytes), plain: JSONText.isPlain(bytes))
                }
                if renamers & (1 << UInt64(index)) != 0 && !use.leavesRecordNames { wentBy.append((index, name.hash)) }
            }
            if rendersName {
                var text = ByteBuffer(capacity: name.bytes.count + 3)
                JSONText.appendQuoted(name.bytes, to: &text)
                text.append(UInt8(ascii: ":"))
                written = text.withBytes { kept.keep($0) }
            }
            key |= pass.nullingKey
            if let edit { self.edit = edits(edit) }
            if !emptyToNull.isEmpty && (pass.ownMembersCount > 0 || pass.renames?.contains(where: { $0.taken != nil }) == true) {
                // A step that adds to a container, or takes out of it, and `null` for an empty
                // one: in rule order, the filters'.
                tokens.formUnion(emptyToNull)
                emptyToNull = []
            }
            givesBack = !drops && (pass.ownMembersCount > 0 || pass.renames?.contains(where: { !$0.onlyRenames }) == true)
            if let found = passes(pass, key, watchKey) {
                self.pass = found
            } else {
                tokens.formUnion(.containers)  // No room for another pass: the filters see them.
            }
        }

        /// Whether the text at `parser.index` is this route's name as read (`quoted`).
        @inline(__always)
        func isNext(in parser: borrowing JSONParser) -> Bool {
            guard !quoted.isEmpty, parser.text.count - parser.index >= quoted.count else { return false }
            return UnsafeRawBufferPointer(rebasing: parser.text[parser.index..<parser.index + quoted.count]).sameBytes(as: quoted)
        }
    }

    /// The index in `passes` of the pass with `key` and `watchKey` (see `agreedPass`), made
    /// from `pass` when new; nil when there is no room for another.
    private func passIndex(_ pass: ContainerPass, key: UInt64, watchKey: UInt64 = 0) -> Int? {
        // Dropping members may leave an object empty, which a `{}` to `null` after the drop would
        // see and a pass, which decides on the text, would not: the filters see those.
        if pass.dropsMembers && pass.nullEmptyObjects { return nil }
        // A pass marks at most 64 edits or watches; and a value edit and blank strings to `null`
        // both change strings, in rule order, which a pass does not keep (a watch changes nothing).
        if pass.editsValues && pass.renameCount > 64 { return nil }
        if pass.nullBlankStrings && pass.renames?.contains(where: { $0.edit != nil && !$0.watches }) == true { return nil }
        for index in passes.indices where passes[index].key == key && passes[index].watchKey == watchKey { return index }
        guard passes.count < Self.maxPasses else { return nil }
        passes.append(
            CopyPass(
                key: key, watchKey: watchKey, RecordFastPath(pass),
                // A pass that only watches renames nothing (see `RecordFastPath.watchedHashes`).
                cacheCapacity: pass.renameCount == pass.watchCount ? 1 : JSONParser.RenameCache.defaultCapacity))
        return passes.count - 1
    }

    /// A string's content: in the text, or decoded from its escapes into the arena.
    private func content(of span: JSONParser.StringSpan, in text: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        guard span.hasEscapes else { return UnsafeRawBufferPointer(rebasing: text[span.start..<span.end]) }
        var decoded = ByteBuffer(capacity: span.end - span.start)
        JSONParser.decodeEscapes(text, span, into: &decoded)
        return decoded.withBytes { arena.keep($0) }
    }
}

/// The last filter: writes the tokens as the writer writes a tree (compact), into `out`. Gives
/// up on two members of an object with one name, nesting past the depth left, and output past
/// the limit.
final class RecordTextWriter: RecordFilter {
    @exclusivity(unchecked) var out = ByteBuffer()
    /// Compare the names of each object: some filter renames members.
    @exclusivity(unchecked) var comparesNames = true
    /// How many containers are open; the innermost's kind, children so far and where its names
    /// start in `names` (apart from `outer`: every name and value reads and counts them); and the
    /// same of the others, outermost first.
    @exclusivity(unchecked) private var depth = 0
    @exclusivity(unchecked) private var topIsObject = false
    @exclusivity(unchecked) private var topCount = 0
    @exclusivity(unchecked) private var topFirstName = 0
    @exclusivity(unchecked) private var outer: [(isObject: Bool, count: Int, firstName: Int)] = []
    /// The hashes of the names written in the open objects.
    @exclusivity(unchecked) private var names: [UInt64] = []
    @exclusivity(unchecked) private var depthLeft = 0
    @exclusivity(unchecked) private var outputLimit = 0
    @exclusivity(unchecked) private var values = 0
    /// The record's start, written already, comes again: it is not written twice (see
    /// `RecordFilterChain.handOver`).
    @exclusivity(unchecked) var resumes = false

    func begin(depthLeft: Int, outputLimit: Int) {
        depth = 0
        outer.empty()
        names.empty()
        self.depthLeft = depthLeft
        self.outputLimit = outputLimit
        values = 0
        resumes = false
    }

    /// One whole value was written.
    var finished: Bool { depth == 0 && values == 1 }

    /// How many objects and arrays are open in what was written.
    var openContainers: Int { depth }

    func start(key: UnsafeRawBufferPointer?) -> Bool { true }

    func ignores(_ token: RecordToken) -> Bool { true }

    var aside: AsideFlag {
        get { AsideFlag() }
        set {}
    }

    func skip(_ token: RecordToken) {}

    /// Takes the name `token` whose text as written (quoted, with its colon) is `written`, or
    /// is made from the token when `written` is empty.
    func take(_ token: RecordToken, written: UnsafeRawBufferPointer) -> Bool {
        guard !written.isEmpty else { return take(token) }
        guard beginName(token) else { return false }
        out.append(written)
        return out.count <= outputLimit
    }

    /// Before a name: the comma before it, and (when names are compared) whether its object has
    /// it already.
    @inline(__always)
    private func beginName(_ token: RecordToken) -> Bool {
        guard depth > 0, topIsObject else { return false }
        let count = topCount
        if count > 0 { out.append(UInt8(ascii: ",")) }
        topCount = count + 1
        if comparesNames {
            guard count < JSONParser.rawCaptureMemberLimit else { return false }
            let hash = token.hash
            for position in topFirstName..<names.count where names[position] == hash { return false }
            names.append(hash)
        }
        return true
    }

    func take(_ token: RecordToken) -> Bool {
        switch token.kind {
        case .name:
            guard beginName(token) else { return false }
            appendString(token)
            out.append(UInt8(ascii: ":"))
            return out.count <= outputLimit
        case .objectEnd, .arrayEnd:
            guard depth > 0, topIsObject == (token.kind == .objectEnd) else { return false }
            out.append(UInt8(ascii: topIsObject ? "}" : "]"))
            if topIsObject && comparesNames { names.removeSubrange(topFirstName...) }
            depth -= 1
            if depth > 0 { (topIsObject, topCount, topFirstName) = outer.removeLast() }
            return true
        case .objectStart, .arrayStart:
            if resumes {
                resumes = false
                return token.kind == .objectStart && depth == 1 && topIsObject
            }
            guard beginValue() else { return false }
            guard depth + 1 < depthLeft else { return false }
            let isObject = token.kind == .objectStart
            out.append(UInt8(ascii: isObject ? "{" : "["))
            if depth > 0 { outer.append((topIsObject, topCount, topFirstName)) }
            (topIsObject, topCount, topFirstName) = (isObject, 0, names.count)
            depth += 1
            return out.count <= outputLimit
        default:
            guard beginValue() else { return false }
            switch token.kind {
            case .string:
                appendString(token)
            case .number:
                token.number.appendCanonical(to: &out)
            case .bool:
                out.append(token.flag ? "true" as StaticString : "false")
            default:
                out.append("null" as StaticString)
            }
            return out.count <= outputLimit
        }
    }

    /// Where the output stands before a value or a member (see `rollBack(to:)`): its length,
    /// the values written outside containers, the containers open, the children of the
    /// innermost and the names compared.
    struct Mark {
        let count: Int
        let values: Int
        let frames: Int
        let children: Int
        let names: Int
    }

    var mark: Mark { Mark(count: out.count, values: values, frames: depth, children: depth > 0 ? topCount : 0, names: names.count) }

    /// Takes back what was written since `mark` (a copy that gave up, a member or a record
    /// taken back): the comma before it, the containers it opened and the names it gave.
    func rollBack(to mark: Mark) {
        out.truncate(to: mark.count)
        values = mark.values
        if depth > mark.frames {
            // The container that was innermost at the mark is again: it is in `outer`.
            if mark.frames > 0 { (topIsObject, topCount, topFirstName) = outer[mark.frames - 1] }
            outer.removeSubrange(max(0, mark.frames - 1)...)
            depth = mark.frames
        }
        if names.count > mark.names { names.removeSubrange(mark.names...) }
        if depth > 0 { topCount = mark.children }
    }

    /// Takes a scalar written as `text`, its canonical JSON.
    func take(canonical text: UnsafeRawBufferPointer) -> Bool {
        guard beginValue() else { return false }
        out.append(text)
        return out.count <= outputLimit
    }

    /// Copies the non-empty object or array at `parser.index` from the text, written as the
    /// tokens would be after `fast` (see `JSONParser.transformRecord`), and moves past it. False
    /// when the tree must decide (a duplicate or colliding name, invalid text, nesting past
    /// `depthLeft` in the input or past the depth left in the output, output past the limit).
    func copy(
        _ parser: inout JSONParser, _ fast: RecordFastPath, id: KeyBytes? = nil, depthLeft: Int, scratch: inout JSONParser.NameScratch
    ) -> Bool {
        guard beginValue() else { return false }
        return parser.transformRecord(
            fast, id: id, depthLeft: min(depthLeft, self.depthLeft - depth), into: &out, scratch: &scratch,
            outputLimit: outputLimit, wholeText: false)
    }

    /// Before a value: the comma before an element, and at most one value outside containers.
    @inline(__always)
    private func beginValue() -> Bool {
        if depth > 0 {
            if !topIsObject {
                if topCount > 0 { out.append(UInt8(ascii: ",")) }
                topCount += 1
            }
            return true
        }
        values += 1
        return values == 1
    }

    private func appendString(_ token: RecordToken) {
        if token.flag {
            // Checked when read: no quote, backslash or control character, so already as written.
            out.append(UInt8(ascii: "\""))
            out.append(token.bytes)
            out.append(UInt8(ascii: "\""))
        } else {
            JSONText.appendQuoted(token.bytes, to: &out)
        }
    }
}

/// A filter that gives every record up to the tree: where a rule's filter cannot be made.
final class GivingUp: RecordFilter {
    func start(key: UnsafeRawBufferPointer?) -> Bool { false }
    func take(_ token: RecordToken) -> Bool { false }
    var aside = AsideFlag()
    func ignores(_ token: RecordToken) -> Bool { false }
    func skip(_ token: RecordToken) {}
}
