/// How a list of rules runs record by record: the compiled plan behind the streaming engine.
///
/// Most documents are one collection of independent records: a Firebase object of push ids, a
/// `data` array in an envelope, a top-level array. The plan names where the collection lies in the
/// input (a chain of member names from the root) and, for each kind the collection may turn out to
/// be (object or array), how many rules from the first can run on one record at a time with the
/// same result as on the whole document, and why the next one cannot.
///
/// A rule runs per record when what it selects and does inside one record depends on that record
/// alone, and what it does above the records (on the envelope and the collection) is the same
/// whatever the records are: `unwrap` of the envelope, `wrap`, `keyedToArray` at the collection,
/// renaming and `$..*` clean-ups that only pass over the envelope. The rules are run per record on
/// a small document made of the envelope's chain and that one record (`RecordRunner`), so every op
/// keeps its one implementation.
struct RecordPlan: Sendable {
    /// What the collection of records is.
    enum Kind: Sendable {
        case object
        case array
    }

    /// The plan for one kind of collection.
    struct Route: Sendable {
        /// The rules `0..<streamed` run per record; the rest run on the whole document.
        let streamed: Int
        /// Why rule `streamed` (0-based) needs the whole document, when there is one.
        let reason: String?
        /// Where the collection lies after the streamed rules, and what it is then.
        let outputChain: [[UInt8]]
        let outputKind: Kind
    }

    /// Where the collection lies in the input: the member names from the root.
    let inputChain: [[UInt8]]
    let forObject: Route
    let forArray: Route

    func route(for kind: Kind) -> Route {
        kind == .object ? forObject : forArray
    }

    /// Whether a collection of `kind` is reshaped record by record: some rule runs per record, or
    /// every rule does, which includes no rule at all (the records are then copied one by one,
    /// rather than read whole into a tree and written again).
    func streams(_ kind: Kind) -> Bool {
        let route = route(for: kind)
        return route.streamed > 0 || route.reason == nil
    }

    /// True when a collection of one kind or the other is reshaped record by record.
    var streamsAnything: Bool { streams(.object) || streams(.array) }

    /// The plan for `operations`: the collection location that lets the most rules run per record.
    static func make(for operations: [any Operation]) -> RecordPlan {
        var best: RecordPlan? = nil
        for chain in candidateChains(for: operations) {
            let plan = RecordPlan(
                inputChain: chain,
                forObject: follow(operations, chain: chain, kind: .object),
                forArray: follow(operations, chain: chain, kind: .array))
            let streamed = max(plan.forObject.streamed, plan.forArray.streamed)
            // Ties go to the deeper chain: the narrower the records, the less each one holds.
            if best.map({ streamed > max($0.forObject.streamed, $0.forArray.streamed) }) ?? true { best = plan }
            if streamed == operations.count, !chain.isEmpty { break }
        }
        return best ?? RecordPlan(
            inputChain: [],
            forObject: follow(operations, chain: [], kind: .object),
            forArray: follow(operations, chain: [], kind: .array))
    }

    /// Where the collection may lie in the input, deepest first: the member names each rule's path
    /// starts with, followed back through the `unwrap`s and `wrap`s before it (each op says what it
    /// suggests: `Operation.suggestChains`), and the root.
    private static func candidateChains(for operations: [any Operation]) -> [[[UInt8]]] {
        var candidates = Candidates()
        for operation in operations {
            guard operation.suggestChains(&candidates) else { break }
        }
        var chains = candidates.chains
        chains.append([])
        var seen: Set<[[UInt8]]> = []
        return chains.sorted { $0.count > $1.count }.filter { seen.insert($0).inserted }
    }

    /// Follows the collection through `operations` for one kind of collection.
    static func follow(_ operations: [any Operation], chain start: [[UInt8]], kind kindAtStart: Kind) -> Route {
        var step = Step(chain: start, kind: kindAtStart)
        for (offset, operation) in operations.enumerated() {
            switch operation.planStep(&step) {
            case .perRecord:
                continue
            case .wholeDocument(let reason):
                return Route(streamed: offset, reason: reason, outputChain: step.chain, outputKind: step.kind)
            }
        }
        return Route(streamed: operations.count, reason: nil, outputChain: step.chain, outputKind: step.kind)
    }

    /// Where the collection lies, and what it is, just before the rule at `index` (0-based) runs,
    /// for a collection of `kind` at `inputChain`; and whether a rule before may have removed
    /// records. Only for rules that run per record.
    func collection(beforeRule index: Int, in operations: [any Operation], kind kindAtStart: Kind) -> (
        chain: [[UInt8]], kind: Kind, mayDropRecords: Bool
    ) {
        var step = Step(chain: inputChain, kind: kindAtStart)
        for operation in operations.prefix(index) {
            guard case .perRecord = operation.planStep(&step) else { break }
        }
        return (step.chain, step.kind, step.mayDropRecords)
    }

    /// Whether a rule runs per record, or why it needs the whole document.
    enum Verdict {
        case perRecord
        case wholeDocument(String)
    }

    /// The collection as the plan follows it through the rules, one rule at a time: each op's
    /// `Operation.planStep` (in its file under `Ops/`) says whether it runs per record on it, and
    /// moves it as the rule will.
    struct Step {
        /// Where the collection lies: the member names from the root.
        var chain: [[UInt8]]
        /// What it is.
        var kind: Kind
        /// A rule before may have removed records, leaving a record's collection empty where the
        /// whole document's is not.
        var mayDropRecords = false

        init(chain: [[UInt8]], kind: Kind) {
            self.chain = chain
            self.kind = kind
        }

        /// The verdict for a rule that selects with `path`: an index into an array collection picks
        /// a record by the records around it (whole document); else `decide`'s, which gets what
        /// the path selects on the chain and may move the collection.
        mutating func along(_ path: JSONPath, _ decide: (inout Step, PathReach) -> Verdict) -> Verdict {
            if path.readsRoot { return .wholeDocument("a filter reads $: what it selects in a record depends on the others") }
            let reach = PathReach(PathOnChain(path, chain: chain), depth: chain.count)
            if reach.onChain.filtersChain {
                return .wholeDocument("a filter tests the collection or its envelope: what it selects depends on every record")
            }
            if kind == .array && reach.onChain.indexesRecords {
                return .wholeDocument(
                    reach.onChain.indexesRecordsFromEnd ? "negative index into the collection" : "index into the collection")
            }
            return decide(&self, reach)
        }
    }

    /// What a rule's path selects on the chain to the collection.
    struct PathReach {
        let onChain: PathOnChain
        /// It selects an object above the collection (the envelope, or the root).
        let selectsAbove: Bool
        /// It selects the collection itself.
        let selectsCollection: Bool
        /// It selects records themselves (`$[*]`), not only values inside them.
        var selectsRecords: Bool { onChain.selectsRecords }

        init(_ onChain: PathOnChain, depth: Int) {
            self.onChain = onChain
            selectsAbove = onChain.selectedDepths.contains { $0 < depth }
            selectsCollection = onChain.selectedDepths.contains(depth)
        }
    }

    /// The collection locations the rules suggest, as `candidateChains` gathers them.
    struct Candidates {
        private(set) var chains: [[[UInt8]]] = []
        /// Where the current document's root lies in the input...
        var base: [[UInt8]] = []
        /// ...under these keys that `wrap` added.
        var wraps: [[UInt8]] = []

        /// Every prefix of the member names `path` starts with, below the keys `wrap` added, as a
        /// chain in the input.
        mutating func add(_ path: JSONPath) {
            let names = path.leadingNames
            guard names.starts(with: wraps) else { return }
            let inside = names.dropFirst(wraps.count)
            for length in 0...inside.count { chains.append(base + inside.prefix(length)) }
        }
    }
}

extension JSONPath {
    /// The member names this path starts with (`$.data.items[*]` → data, items).
    var leadingNames: [[UInt8]] {
        var names: [[UInt8]] = []
        for segment in segments {
            guard case .child(.name(let name)) = segment else { break }
            names.append(Array(name.bytes))
        }
        return names
    }
}
