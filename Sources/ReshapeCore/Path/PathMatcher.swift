/// A path as an automaton over the steps from a node to its children, for selecting values as a
/// record's tokens go by (`RecordFilter`), without a tree.
///
/// A state is how many of the path's segments the steps so far have matched: bit `k` of a
/// `States` set means "the first `k` segments match here". A child step moves each state on: a
/// child segment whose selector takes the step moves to `k + 1`, a descendant segment stays at `k`
/// (it looks further down) and moves to `k + 1` too when its selector takes the step. A value is
/// selected when bit `segments.count` is set. Each value is visited once, so a value the path
/// selects twice (`$..a..b`) is edited once.
///
/// A filter selector (with `filters`) takes a child by what the child holds, which its first
/// token does not tell: the step to it takes the filters' verdicts on the child (`Verdicts`),
/// which a `FilterGate` finds by holding the child's tokens until it ends, or by reading its
/// members ahead. An index or a slice counted from the end (with `filters` too) takes an element
/// by the array's length, which its first token does not tell either: a `LengthGate` holds the
/// array until it ends, and gives its length on its first token (`RecordToken.countedElements`).
struct PathMatcher: Sendable {
    typealias States = UInt64

    private let segments: [JSONPath.Segment]
    /// Each segment's selector as plain values, read for every step without touching the
    /// path's shared storage (whose reference counts every thread would otherwise bump).
    private let selectors: [PlainSelector]
    /// The bit of a value the path selects.
    let selected: States
    /// The states in which a descendant segment waits: kept through every step.
    private let waiting: States
    /// The states whose segment's selector is a filter, or a union with one.
    let filtering: States
    /// The states whose segment's selector needs the array's length: an index or a slice
    /// counted from the end, or a slice stepping backwards (alone or in a union).
    let counting: States

    /// For the step to one child: bit `k` is set when the filters of segment `k` hold for it.
    typealias Verdicts = States
    /// Verdicts taking every child: what a step may reach before the child is seen.
    static let anyChild: Verdicts = ~0

    /// A selector as the automaton reads it. Its name's bytes are only read.
    private struct PlainSelector: @unchecked Sendable {
        enum Kind: UInt8 { case wildcard, name, index, slice, union, filter }
        let kind: Kind
        /// For a name: its `RecordNames.hash` and its bytes (kept by the path, which the
        /// matcher holds).
        let hash: UInt64
        let name: UnsafeRawBufferPointer
        /// For an index; for a slice, its start.
        let index: Int
        /// For a slice: its end (`Int.max` when left out) and step.
        var end = 0
        var step = 1
        /// An index or slice counted from the end: taken by the array's length (see `counting`).
        var counted = false
    }

    /// Nil for a path the automaton cannot follow: more than 62 segments; unless `filters`, a
    /// filter (alone or in a union), an index or a slice bound counted from the end or a slice
    /// stepping backwards (which need the array's length before its elements: with `filters`,
    /// a `LengthGate` gives it); and a filter that reads the document's root (`$`) in any case.
    init?(_ path: JSONPath, filters: Bool = false) {
        segments = path.segments
        guard segments.count < 63 else { return nil }
        var waiting: States = 0
        var filtering: States = 0
        var counting: States = 0
        for (offset, segment) in segments.enumerated() {
            guard Self.follows(segment.selector, filters: filters) else { return nil }
            if case .descendant = segment { waiting |= 1 << States(offset) }
            if segment.selector.hasFilter { filtering |= 1 << States(offset) }
            if Self.counts(segment.selector) { counting |= 1 << States(offset) }
        }
        self.waiting = waiting
        self.filtering = filtering
        self.counting = counting
        selected = 1 << States(segments.count)
        let none = UnsafeRawBufferPointer(start: nil, count: 0)
        selectors = segments.map { segment in
            switch segment.selector {
            case .wildcard: PlainSelector(kind: .wildcard, hash: 0, name: none, index: 0)
            case .name(let member): PlainSelector(kind: .name, hash: RecordNames.hash(member.bytes), name: member.bytes, index: 0)
            case .index(let index): PlainSelector(kind: .index, hash: 0, name: none, index: index, counted: index < 0)
            case .slice(let start, let end, let step):
                PlainSelector(
                    kind: .slice, hash: 0, name: none, index: start ?? 0, end: end ?? Int.max, step: step ?? 1,
                    counted: Self.counts(segment.selector))
            case .filter: PlainSelector(kind: .filter, hash: 0, name: none, index: 0)
            case .union: PlainSelector(kind: .union, hash: 0, name: none, index: 0)
            }
        }
    }

    /// The same matcher, its arrays its own: one for each thread's cursor (see `PathCursor`).
    /// Reading a matcher's arrays from a filter's stored cursor bumps their reference counts;
    /// shared by the threads, those counts bounce between the cores on every step.
    func ownCopy() -> PathMatcher { PathMatcher(copying: self) }

    private init(copying other: PathMatcher) {
        segments = other.segments.map { $0 }
        selectors = other.selectors.map { $0 }
        selected = other.selected
        waiting = other.waiting
        filtering = other.filtering
        counting = other.counting
    }

    /// Whether the automaton follows `selector`: a name, an index from the start, a slice whose
    /// bounds count from the start and whose step is not negative, a wildcard, or a union of
    /// those; with `filters`, also a filter that reads only the child, and an index or a slice
    /// that needs the array's length (see `counts`).
    private static func follows(_ selector: JSONPath.Selector, filters: Bool) -> Bool {
        switch selector {
        case .name, .wildcard: true
        case .index, .slice: filters || !counts(selector)
        case .union(let selectors): selectors.allSatisfy { follows($0, filters: filters) }
        case .filter(let expression): filters && !expression.readsRoot
        }
    }

    /// Whether `selector` takes elements by the array's length: an index or a slice bound
    /// counted from the end, a slice stepping backwards (whose bounds left out count from the
    /// end), alone or in a union.
    private static func counts(_ selector: JSONPath.Selector) -> Bool {
        switch selector {
        case .index(let index): index < 0
        case .slice(let start, let end, let step): (start ?? 0) < 0 || (end ?? 0) < 0 || (step ?? 1) < 0
        case .union(let selectors): selectors.contains { counts($0) }
        default: false
        }
    }

    /// Whether a step from a node in `states` to an element needs the array's length (see
    /// `counting`).
    @inline(__always)
    func counts(_ states: States) -> Bool { states & ~selected & counting != 0 }

    /// The filters of segment `offset` (one, or those of a union), whose verdicts on a child a
    /// step to it needs.
    func filters(at offset: Int) -> [FilterExpression] {
        switch segments[offset].selector {
        case .filter(let expression): [expression]
        case .union(let selectors): selectors.compactMap { if case .filter(let expression) = $0 { expression } else { nil } }
        default: []
        }
    }

    /// Whether a step from a node in `states` to a child needs the filters' verdicts on the
    /// child (see `filters(at:)`).
    @inline(__always)
    func filters(_ states: States) -> Bool { states & ~selected & filtering != 0 }

    /// Whether the slice `start..<end` by `step` (bounds from the start, step not negative)
    /// takes element `index`, as RFC 9535 §2.3.4.2 selects: none when `step` is 0.
    @inline(__always)
    private static func slice(start: Int, end: Int, step: Int, takes index: Int) -> Bool {
        step > 0 && index >= start && index < end && (index - start) % step == 0
    }

    /// Whether the slice takes element `index` of an array of `count` elements, as RFC 9535
    /// §2.3.4.2.2 selects (`JSONPath.Selector.sliceIndices`, which the tree uses, lists the
    /// same): bounds counted from the end, and backward steps, by the array's length. None
    /// when the length is not known (`count` < 0), or `step` is 0.
    private static func slice(start: Int?, end: Int?, step: Int?, count: Int, takes index: Int) -> Bool {
        let step = step ?? 1
        guard step != 0, count >= 0, index >= 0, index < count else { return false }
        func normalized(_ bound: Int) -> Int { bound >= 0 ? bound : count + bound }
        if step > 0 {
            let lower = min(max(normalized(start ?? 0), 0), count)
            let upper = min(max(normalized(end ?? count), 0), count)
            return index >= lower && index < upper && (index - lower) % step == 0
        }
        let upper = min(max(normalized(start ?? count - 1), -1), count - 1)
        let lower = min(max(end.map(normalized) ?? -1, -1), count - 1)
        // The remainder's sign follows the dividend: zero is zero whatever the step's sign.
        return index <= upper && index > lower && (upper - index) % step == 0
    }

    /// Whether the selector of segment `offset` takes the member `name`, its filters holding
    /// as `verdicts` says.
    @inline(__always)
    private func takes(_ offset: Int, name: UnsafeRawBufferPointer, hash: UInt64, verdicts: Verdicts) -> Bool {
        let selector = selectors[offset]
        switch selector.kind {
        case .wildcard: return true
        case .name: return selector.hash == hash && selector.name.sameBytes(as: name)
        case .index, .slice: return false
        case .filter: return verdicts & (1 << States(offset)) != 0
        case .union:
            guard case .union(let inner) = segments[offset].selector else { return false }
            return inner.contains { choice in
                switch choice {
                case .wildcard: true
                case .name(let member): member.bytes.sameBytes(as: name)
                case .filter: verdicts & (1 << States(offset)) != 0
                default: false
                }
            }
        }
    }

    /// Whether the selector of segment `offset` takes element `index` of an array of `count`
    /// elements (-1: not known, which only a selector in `counting` reads), its filters holding
    /// as `verdicts` says.
    @inline(__always)
    private func takes(_ offset: Int, index: Int, count: Int, verdicts: Verdicts) -> Bool {
        let selector = selectors[offset]
        switch selector.kind {
        case .wildcard: return true
        case .name: return false
        case .index: return selector.counted ? count >= 0 && count + selector.index == index : selector.index == index
        case .slice:
            if selector.counted {
                guard case .slice(let start, let end, let step) = segments[offset].selector else { return false }
                return Self.slice(start: start, end: end, step: step, count: count, takes: index)
            }
            return Self.slice(start: selector.index, end: selector.end, step: selector.step, takes: index)
        case .filter: return verdicts & (1 << States(offset)) != 0
        case .union:
            return Self.takes(segments[offset].selector, index: index, count: count)
                || (filtering & (1 << States(offset)) != 0 && verdicts & (1 << States(offset)) != 0)
        }
    }

    /// Whether `selector` takes element `index` of an array of `count` elements (its filters
    /// aside; see `takes(_:index:count:verdicts:)`).
    private static func takes(_ selector: JSONPath.Selector, index: Int, count: Int) -> Bool {
        switch selector {
        case .wildcard: true
        case .index(let wanted): wanted >= 0 ? wanted == index : count >= 0 && count + wanted == index
        case .slice(let start, let end, let step):
            counts(selector)
                ? slice(start: start, end: end, step: step, count: count, takes: index)
                : slice(start: start ?? 0, end: end ?? Int.max, step: step ?? 1, takes: index)
        case .union(let selectors): selectors.contains { takes($0, index: index, count: count) }
        default: false
        }
    }

    /// The states of the document's root.
    var root: States { 1 }

    /// The state of a node above the root, whose one child is the root: the parent of a
    /// document that is one record (see `RecordFilterContext.lone`). No path segment has its bit
    /// (a path has fewer than 63).
    static let aboveRoot: States = 1 << 63

    /// Whether every value below a node in `states` is selected: the path ends in `..*` and that
    /// segment waits here (`$..*` below any node).
    func selectsEverythingBelow(_ states: States) -> Bool {
        guard let last = segments.last, case .descendant(.wildcard) = last else { return false }
        return states & (1 << States(segments.count - 1)) != 0
    }

    /// Whether a node in `states` is selected, and every value below it (see
    /// `selectsEverythingBelow`).
    func selectsItselfAndEverythingBelow(_ states: States) -> Bool { states & selected != 0 && selectsEverythingBelow(states) }

    /// The states of the child named `name` (whose `RecordNames.hash` is `hash`) of a node in
    /// `states`; with `verdicts`, the filters' on that child (by default, as if every filter took
    /// it: exact only where `filters(states)` is false).
    func child(_ states: States, name: UnsafeRawBufferPointer, hash: UInt64, verdicts: Verdicts = anyChild) -> States {
        step(states) { offset in takes(offset, name: name, hash: hash, verdicts: verdicts) }
    }

    /// The states of element `index` of a node in `states` (see `child(_:name:hash:verdicts:)`),
    /// an array of `count` elements (-1: not known; it must be where `counts(states)`).
    func child(_ states: States, index: Int, count: Int = -1, verdicts: Verdicts = anyChild) -> States {
        step(states) { offset in takes(offset, index: index, count: count, verdicts: verdicts) }
    }

    /// Whether, from `states`, which element an index step goes to matters: an index or slice
    /// selector is live (alone or in a union).
    func dependsOnIndex(_ states: States) -> Bool {
        hasLive(states) { selector in
            switch selector {
            case .index, .slice: true
            default: false
            }
        }
    }

    /// Whether, from `states`, which member a name step goes to matters: a name selector is live
    /// (alone or in a union).
    func dependsOnName(_ states: States) -> Bool {
        hasLive(states) { selector in
            if case .name = selector { true } else { false }
        }
    }

    /// When what a path selects below a node in `states` is every member, at any depth, named
    /// one of a few names, and nothing else: those names. That is, the one live state waits at
    /// the path's last segment, a descendant one whose selector is a name or a union of names
    /// (`$..name`, `$[*]..['a','b']`), and the node itself is not selected. Nil otherwise.
    func namesSelectedBelow(_ states: States) -> [[UInt8]]? {
        let live = states & ~Self.aboveRoot
        let last = segments.count - 1
        guard last >= 0, live == 1 << States(last), case .descendant(let selector) = segments[last] else { return nil }
        return Self.names(of: selector)
    }

    /// The names `selector` takes when it takes only members of those names: a name, or a union
    /// of names; nil otherwise.
    private static func names(of selector: JSONPath.Selector) -> [[UInt8]]? {
        switch selector {
        case .name(let member): return [Array(member.bytes)]
        case .union(let selectors):
            var names: [[UInt8]] = []
            for selector in selectors {
                guard case .name(let member) = selector else { return nil }
                names.append(Array(member.bytes))
            }
            return names
        default: return nil
        }
    }

    /// When what the path selects below a node is every member, at any depth, named one of a
    /// few names, and nothing else (`namesSelectedBelow`), and the node is one the path only
    /// passes through on its way there: that node's states, and the names (`$..name`).
    var namesSelectedAtAnyDepth: (states: States, names: [[UInt8]])? {
        let states = selected >> 1
        return namesSelectedBelow(states).map { (states, $0) }
    }

    /// When what the path selects below a node is its own members of some names, and nothing
    /// else: that node's states, and the names. That is, the one live state is the path's last
    /// segment, a child one whose selector is a name or a union of names (`$[*].avatar.width`,
    /// at `avatar`).
    var namesSelectedAsMembers: (states: States, names: [[UInt8]])? {
        let last = segments.count - 1
        guard last >= 0, case .child(let selector) = segments[last], let names = Self.names(of: selector) else { return nil }
        return (1 << States(last), names)
    }

    /// The states below which the path goes on only through members of some names, at any
    /// depth: one descendant segment whose selector is a name or a union of names, waiting
    /// alone (`$..profile`, `$..groups[?@.x]`, `$[*]..profile.name`), each with those names. A
    /// node in such states is not selected, and nothing below it is but through a member of
    /// one of those names (see `PathCursor.watches`).
    var namesLeadingOnAtAnyDepth: [(states: States, names: [[UInt8]])] {
        var found: [(states: States, names: [[UInt8]])] = []
        for (offset, segment) in segments.enumerated() {
            guard case .descendant(let selector) = segment, let names = Self.names(of: selector) else { continue }
            found.append((1 << States(offset), names))
        }
        return found
    }

    /// Whether a segment live in `states` has a selector, itself or one in its union, that
    /// `matches`.
    private func hasLive(_ states: States, _ matches: (JSONPath.Selector) -> Bool) -> Bool {
        var live = states & ~selected & ~Self.aboveRoot
        while live != 0 {
            let offset = live.trailingZeroBitCount
            live &= live - 1
            let selector = segments[offset].selector
            if matches(selector) { return true }
            if case .union(let selectors) = selector, selectors.contains(where: matches) { return true }
        }
        return false
    }

    @inline(__always)
    private func step(_ states: States, _ takes: (_ offset: Int) -> Bool) -> States {
        // Nothing live (the usual case away from a path's targets): nothing below either.
        var live = states & ~selected
        if live == 0 { return 0 }
        if states == Self.aboveRoot { return root }
        var next = states & waiting
        while live != 0 {
            let offset = live.trailingZeroBitCount
            live &= live - 1
            if takes(offset) { next |= 1 << States(offset + 1) }
        }
        return next
    }
}
