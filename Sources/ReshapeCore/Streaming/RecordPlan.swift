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

    /// True when some rule runs per record for one kind of collection or the other.
    var streamsAnything: Bool { forObject.streamed > 0 || forArray.streamed > 0 }

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
    /// starts with, followed back through the `unwrap`s and `wrap`s before it, and the root.
    private static func candidateChains(for operations: [any Operation]) -> [[[UInt8]]] {
        var chains: [[[UInt8]]] = []
        var base: [[UInt8]] = []  // Where the current document's root lies in the input...
        var wraps: [[UInt8]] = []  // ...under these keys that `wrap` added.
        func addCandidates(_ path: JSONPath) {
            let names = path.leadingNames
            guard names.starts(with: wraps) else { return }
            let inside = names.dropFirst(wraps.count)
            for length in 0...inside.count { chains.append(base + inside.prefix(length)) }
        }
        scan: for operation in operations {
            switch operation {
            case let unwrap as Unwrap:
                let names = unwrap.path.leadingNames
                guard unwrap.path.isSingular, names.count == unwrap.path.segments.count else { break scan }
                addCandidates(unwrap.path)
                if names.starts(with: wraps) {
                    base += names.dropFirst(wraps.count)
                    wraps = []
                } else if wraps.starts(with: names) {
                    wraps.removeFirst(names.count)
                } else {
                    break scan
                }
            case let wrap as Wrap:
                wraps.insert(Array(wrap.key.utf8), at: 0)
            default:
                if let path = operation.streamingPath { addCandidates(path) }
            }
        }
        chains.append([])
        var seen: Set<[[UInt8]]> = []
        return chains.sorted { $0.count > $1.count }.filter { seen.insert($0).inserted }
    }

    /// Follows the collection through `operations` for one kind of collection.
    static func follow(_ operations: [any Operation], chain start: [[UInt8]], kind kindAtStart: Kind) -> Route {
        var chain = start
        var kind = kindAtStart
        var mayDrop = false
        for (offset, operation) in operations.enumerated() {
            switch step(operation, chain: &chain, kind: &kind, mayDropRecords: &mayDrop) {
            case .perRecord:
                continue
            case .wholeDocument(let reason):
                return Route(streamed: offset, reason: reason, outputChain: chain, outputKind: kind)
            }
        }
        return Route(streamed: operations.count, reason: nil, outputChain: chain, outputKind: kind)
    }

    /// Where the collection lies, and what it is, just before the rule at `index` (0-based) runs,
    /// for a collection of `kind` at `inputChain`; and whether a rule before may have removed
    /// records. Only for rules that run per record.
    func collection(beforeRule index: Int, in operations: [any Operation], kind kindAtStart: Kind) -> (
        chain: [[UInt8]], kind: Kind, mayDropRecords: Bool
    ) {
        var chain = inputChain
        var kind = kindAtStart
        var mayDrop = false
        for operation in operations.prefix(index) {
            guard case .perRecord = Self.step(operation, chain: &chain, kind: &kind, mayDropRecords: &mayDrop) else { break }
        }
        return (chain, kind, mayDrop)
    }

    enum Verdict {
        case perRecord
        case wholeDocument(String)
    }

    /// Whether `operation` runs per record on a collection at `chain` of `kind`; if so, where the
    /// collection lies after it.
    /// `mayDropRecords` says whether an earlier rule can remove records, leaving a record's
    /// collection empty where the whole document's is not.
    static func step(
        _ operation: any Operation, chain: inout [[UInt8]], kind: inout Kind, mayDropRecords: inout Bool
    ) -> Verdict {
        let depth = chain.count
        if let path = operation.streamingPath {
            let reach = PathOnChain(path, chain: chain)
            if kind == .array && reach.indexesRecords {
                return .wholeDocument(reach.indexesRecordsFromEnd ? "negative index into the collection" : "index into the collection")
            }
            let selectsAbove = reach.selectedDepths.contains { $0 < depth }
            let selectsCollection = reach.selectedDepths.contains(depth)
            switch operation {
            case let keyed as KeyedToArray:
                if selectsAbove { return .wholeDocument("makes records of the collection's ancestor") }
                if selectsCollection {
                    guard kind == .object else {
                        return .wholeDocument("keyedToArray on an array numbers the records by position")
                    }
                    kind = .array
                    if keyed.nonObject == .skip { mayDropRecords = true }
                    if let wrapIn = keyed.wrapIn { chain.append(Array(wrapIn.utf8)) }
                }
            case is ArrayToKeyed:
                if selectsAbove || selectsCollection {
                    return .wholeDocument("keys the collection by a field, which must be unique across records")
                }
            case is Remove:
                if selectsAbove || selectsCollection { return .wholeDocument("removes the collection or its envelope") }
                if reach.selectsRecords { mayDropRecords = true }
            case is Coerce:
                if selectsAbove || selectsCollection { return .wholeDocument("coerces the collection or its envelope") }
            case is Default:
                if selectsCollection && kind == .object {
                    return .wholeDocument("adds a member to the collection of records")
                }
            case let convert as ConvertKeys:
                if let verdict = rename(
                    reach, deep: convert.deep, chain: &chain, kind: kind, newName: convert.newName) {
                    return verdict
                }
            case let rename as RenameKeys:
                if let verdict = Self.rename(
                    reach, deep: rename.deep, chain: &chain, kind: kind, newName: rename.newName) {
                    return verdict
                }
            case is EmptyObjectToNull:
                // The objects above the collection hold it, and the collection holds a record,
                // unless a rule before removed records.
                if selectsCollection && kind == .object && mayDropRecords {
                    return .wholeDocument("may see the collection empty only once every record is removed")
                }
            default:
                // blankStringToNull never changes the collection or the objects above it.
                break
            }
            return .perRecord
        }
        switch operation {
        case let unwrap as Unwrap:
            let names = unwrap.path.leadingNames
            guard unwrap.path.isSingular else {
                return .wholeDocument("unwrap with a wildcard or '..' collects values across records")
            }
            guard names.count <= depth, chain.starts(with: names) else {
                return .wholeDocument("unwraps a value that is not the collection or its envelope")
            }
            guard names.count == unwrap.path.segments.count else {
                // An index after the names: into the collection itself, or into its envelope.
                return .wholeDocument(
                    names.count == depth ? "index into the collection" : "unwraps a value that is not the collection or its envelope")
            }
            chain.removeFirst(names.count)
            return .perRecord
        case let wrap as Wrap:
            chain.insert(Array(wrap.key.utf8), at: 0)
            return .perRecord
        default:
            return .wholeDocument("is not known to the streaming plan")
        }
    }

    /// The verdict for a renaming; renames the chain's names as the rule will.
    private static func rename(
        _ reach: PathOnChain, deep: Bool, chain: inout [[UInt8]], kind: Kind, newName: (KeyBytes) -> [UInt8]?
    ) -> Verdict? {
        let depth = chain.count
        guard let shallowest = reach.selectedDepths.min() else { return nil }
        let renamesRecordKeys = deep || reach.selectedDepths.contains(depth)
        if kind == .object && renamesRecordKeys {
            return .wholeDocument("renames the records' ids, which must stay unique across records")
        }
        // The members on the chain below each selected object (all of them below, when deep).
        var renamed = chain
        for level in 0..<depth {
            let selected = deep ? level >= shallowest : reach.selectedDepths.contains(level)
            guard selected else { continue }
            if let name = chain[level].withUnsafeBytes({ newName($0) }) { renamed[level] = name }
        }
        chain = renamed
        return nil
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

extension Operation {
    /// The path the rule selects with, for the plan; nil for `unwrap` and `wrap`, which move the
    /// document's root and are planned on their own.
    var streamingPath: JSONPath? {
        switch self {
        case let rule as KeyedToArray: rule.path
        case let rule as ArrayToKeyed: rule.path
        case let rule as EmptyObjectToNull: rule.path
        case let rule as BlankStringToNull: rule.path
        case let rule as ConvertKeys: rule.path
        case let rule as RenameKeys: rule.path
        case let rule as Remove: rule.path
        case let rule as Default: rule.path
        case let rule as Coerce: rule.path
        default: nil
        }
    }
}
