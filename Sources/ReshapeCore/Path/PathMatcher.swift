/// A path as an automaton over the steps from a node to its children, for selecting values as a
/// record's tokens go by (`RecordFilter`), without a tree.
///
/// A state is how many of the path's segments the steps so far have matched: bit `k` of a
/// `States` set means "the first `k` segments match here". A child step moves each state on: a
/// child segment whose selector takes the step moves to `k + 1`, a descendant segment stays at `k`
/// (it looks further down) and moves to `k + 1` too when its selector takes the step. A value is
/// selected when bit `segments.count` is set. Each value is visited once, so a value the path
/// selects twice (`$..a..b`) is edited once.
struct PathMatcher: Sendable {
    typealias States = UInt64

    private let segments: [JSONPath.Segment]
    /// For each segment with a name selector, the name's `RecordNames.hash`.
    private let nameHashes: [UInt64]
    /// The bit of a value the path selects.
    let selected: States
    /// The states in which a descendant segment waits: kept through every step.
    private let waiting: States

    /// Nil for a path the automaton cannot follow: more than 62 segments, an index counted from
    /// the end (which needs the array's length before its elements), a slice or a filter (alone or
    /// in a union).
    init?(_ path: JSONPath) {
        segments = path.segments
        guard segments.count < 63 else { return nil }
        var waiting: States = 0
        for (offset, segment) in segments.enumerated() {
            guard Self.follows(segment.selector) else { return nil }
            if case .descendant = segment { waiting |= 1 << States(offset) }
        }
        self.waiting = waiting
        selected = 1 << States(segments.count)
        nameHashes = segments.map { segment in
            switch segment {
            case .child(.name(let name)), .descendant(.name(let name)): RecordNames.hash(name.bytes)
            default: 0
            }
        }
    }

    /// Whether the automaton follows `selector`: a name, an index from the start, a wildcard, or
    /// a union of those (not a slice, a filter or an index from the end).
    private static func follows(_ selector: JSONPath.Selector) -> Bool {
        switch selector {
        case .name, .wildcard: true
        case .index(let index): index >= 0
        case .union(let selectors): selectors.allSatisfy(follows)
        case .slice, .filter: false
        }
    }

    /// Whether `selector` takes the member `name` (a union's names compared by their bytes).
    private func takes(_ selector: JSONPath.Selector, offset: Int, name: UnsafeRawBufferPointer, hash: UInt64) -> Bool {
        switch selector {
        case .wildcard: true
        case .name(let member): nameHashes[offset] == hash && member.bytes.sameBytes(as: name)
        case .union(let selectors):
            selectors.contains { inner in
                switch inner {
                case .wildcard: true
                case .name(let member): member.bytes.sameBytes(as: name)
                default: false
                }
            }
        default: false
        }
    }

    /// Whether `selector` takes element `index`.
    private static func takes(_ selector: JSONPath.Selector, index: Int) -> Bool {
        switch selector {
        case .wildcard: true
        case .index(let wanted): wanted == index
        case .union(let selectors): selectors.contains { takes($0, index: index) }
        default: false
        }
    }

    /// The states of the document's root.
    var root: States { 1 }

    /// Whether every value below a node in `states` is selected: the path ends in `..*` and that
    /// segment waits here (`$..*` below any node).
    func selectsEverythingBelow(_ states: States) -> Bool {
        guard let last = segments.last, case .descendant(.wildcard) = last else { return false }
        return states & (1 << States(segments.count - 1)) != 0
    }

    /// The states of the child named `name` (whose `RecordNames.hash` is `hash`) of a node in
    /// `states`.
    func child(_ states: States, name: UnsafeRawBufferPointer, hash: UInt64) -> States {
        step(states) { offset, selector in takes(selector, offset: offset, name: name, hash: hash) }
    }

    /// The states of element `index` of a node in `states`.
    func child(_ states: States, index: Int) -> States {
        step(states) { _, selector in Self.takes(selector, index: index) }
    }

    /// Whether, from `states`, which element an index step goes to matters: an index selector is
    /// live.
    func dependsOnIndex(_ states: States) -> Bool {
        var live = states & ~selected
        while live != 0 {
            let offset = live.trailingZeroBitCount
            live &= live - 1
            switch segments[offset].selector {
            case .index: return true
            case .union(let selectors): if selectors.contains(where: { if case .index = $0 { true } else { false } }) { return true }
            default: break
            }
        }
        return false
    }

    @inline(__always)
    private func step(_ states: States, _ takes: (_ offset: Int, JSONPath.Selector) -> Bool) -> States {
        // Nothing live (the usual case away from a path's targets): nothing below either.
        var live = states & ~selected
        if live == 0 { return 0 }
        var next = states & waiting
        while live != 0 {
            let offset = live.trailingZeroBitCount
            live &= live - 1
            switch segments[offset] {
            case .child(let selector), .descendant(let selector):
                if takes(offset, selector) { next |= 1 << States(offset + 1) }
            }
        }
        return next
    }
}
