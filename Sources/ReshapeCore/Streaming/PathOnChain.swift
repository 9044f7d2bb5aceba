/// What a path can select on the chain of member names that leads from the root to the collection
/// of records (`$['data']` → the chain `["data"]`), decided from the path alone, for `RecordPlan`.
///
/// The chain's nodes are objects (the envelope) down to the collection, which is an object or an
/// array. Anything the path selects below the collection lies inside one record.
struct PathOnChain {
    /// The depths on the chain (0 is the root, `chain.count` the collection) the path can select.
    let selectedDepths: [Int]
    /// The path can apply an index selector to the collection's children (`$[0]`, `$..[-1]`):
    /// which record that picks depends on the records around it.
    let indexesRecords: Bool
    /// Some index selector applied to the collection's children counts from the end (`$[-1]`).
    let indexesRecordsFromEnd: Bool
    /// The path can apply a name selector to the collection's children (`$['u1']`).
    let namesRecords: Bool
    /// The path can select records themselves (`$[*]`, `$..*`), not only values inside them.
    let selectsRecords: Bool
    /// A filter selector of the path tests a member of the envelope or the collection itself
    /// (`$[?@.a]` when the collection is `$['id']`): what it selects depends on every record.
    let filtersChain: Bool

    init(_ path: JSONPath, chain: [[UInt8]]) {
        let segments = path.segments
        // The positions in `segments` reached at the current depth (an NFA over the chain).
        var states: Set<Int> = [0]
        var selected: [Int] = []
        var filters = false
        for depth in 0...chain.count {
            if states.contains(segments.count) { selected.append(depth) }
            guard depth < chain.count else { break }
            var next: Set<Int> = []
            for state in states where state < segments.count {
                if segments[state].selector.hasFilter { filters = true }
                switch segments[state] {
                case .child(let selector):
                    if Self.selects(selector, name: chain[depth]) { next.insert(state + 1) }
                case .descendant(let selector):
                    next.insert(state)
                    if Self.selects(selector, name: chain[depth]) { next.insert(state + 1) }
                }
            }
            states = next
        }
        var indexes = false
        var fromEnd = false
        var names = false
        var records = false
        for state in states where state < segments.count {
            if state == segments.count - 1 { records = true }
            let selectors: [JSONPath.Selector]
            if case .union(let inner) = segments[state].selector { selectors = inner } else { selectors = [segments[state].selector] }
            for selector in selectors {
                switch selector {
                case .index(let index):
                    indexes = true
                    if index < 0 { fromEnd = true }
                case .slice(let start, let end, let step):
                    indexes = true
                    if (start ?? 0) < 0 || (end ?? 0) < 0 || (step ?? 1) < 0 { fromEnd = true }
                case .name:
                    names = true
                default:
                    break
                }
            }
        }
        selectedDepths = selected
        indexesRecords = indexes
        indexesRecordsFromEnd = fromEnd
        namesRecords = names
        selectsRecords = records
        filtersChain = filters
    }

    /// True when the path can select the collection or one of the objects above it.
    var selectsChain: Bool { !selectedDepths.isEmpty }

    private static func selects(_ selector: JSONPath.Selector, name: [UInt8]) -> Bool {
        switch selector {
        case .wildcard: true
        case .name(let member): member.bytes.elementsEqual(name)
        case .index, .slice: false  // The chain's nodes above the collection are objects.
        case .filter: true  // It may hold for the member: as if it did.
        case .union(let selectors): selectors.contains { selects($0, name: name) }
        }
    }
}
