internal import CJansson

/// RFC 9535 evaluation: each segment applied to every value the previous one produced.
///
/// A child segment selects among the children of each input. A descendant segment (`..`) visits
/// each input and its descendants, a value before its descendants and arrays in order (members in
/// their order), and selects among the children of each visited value; the nodelist is, input by
/// input and visit by visit, what each visited value's children give. So `$..[*]` on `[[[1]],[2]]`
/// is `[[1]]`, `[2]`, `[1]`, `1`, `2`, and `$..*..*` reaches a value once per ancestor.
///
/// Counting duplicates only matters to `unwrap`. For rules that edit (`Mode.locations`), a
/// descendant segment walks its inputs ancestors first and never walks a container twice, so each
/// location is recorded once and every segment costs at most one visit per value: `$..*..*..*`
/// is as cheap as `$..*`.
extension Selection {
    mutating func evaluate(_ path: JSONPath) throws(ReshapeError) {
        var current: [Int32] = [0]
        for segment in path.segments {
            var next: [Int32] = []
            switch segment {
            case .child(let selector):
                for input in current {
                    try materialize(input)
                    try selectChildren(of: input, selector, into: &next, path: path)
                }
            case .descendant(let selector):
                if mode == .nodelist {
                    var unused = Set<UnsafeMutableRawPointer>()
                    for input in current { try walk(from: input, selector, into: &next, visited: &unused, once: false, path: path) }
                } else {
                    try walkOnce(from: current, selector, into: &next, path: path)
                }
            }
            current = next
        }
        matches = current
    }

    /// The descendant segment for `Mode.locations`: inputs in order of depth (ancestors first), a
    /// container walked at most once. Inputs all at one depth cannot contain each other.
    private mutating func walkOnce(
        from inputs: [Int32], _ selector: JSONPath.Selector, into next: inout [Int32], path: JSONPath
    ) throws(ReshapeError) {
        let depths = inputs.map { records[Int($0)].depth }
        var visited = Set<UnsafeMutableRawPointer>()
        guard let shallowest = depths.min(), let deepest = depths.max(), shallowest != deepest else {
            for input in inputs { try walk(from: input, selector, into: &next, visited: &visited, once: false, path: path) }
            return
        }
        let ordered = inputs.indices.sorted { depths[$0] != depths[$1] ? depths[$0] < depths[$1] : $0 < $1 }
        for position in ordered {
            try walk(from: inputs[position], selector, into: &next, visited: &visited, once: true, path: path)
        }
    }

    /// Visits `input` and its descendants in RFC 9535 order, recording every child of a visited
    /// value and selecting those `selector` picks. With `once`, containers already in `visited`
    /// (walked, with everything below them) are skipped.
    private mutating func walk(
        from input: Int32, _ selector: JSONPath.Selector, into next: inout [Int32],
        visited: inout Set<UnsafeMutableRawPointer>, once: Bool, path: JSONPath
    ) throws(ReshapeError) {
        var pending: [Int32] = [input]
        while let record = pending.popLast() {
            try materialize(record)
            let node = records[Int(record)].node
            guard node.isObject || node.isArray else { continue }
            if once, !visited.insert(UnsafeMutableRawPointer(node)).inserted { continue }
            let first = records.count
            try recordChildren(of: record, selector, into: &next, path: path)
            // Children are visited in order: the first one on top.
            var child = records.count - 1
            while child >= first {
                let childNode = records[child].node
                if childNode.isObject || childNode.isArray || childNode.kind.isRawContainer { pending.append(Int32(child)) }
                child -= 1
            }
        }
    }

    /// Records every child of a visited value, selecting those `selector` picks.
    private mutating func recordChildren(
        of parent: Int32, _ selector: JSONPath.Selector, into next: inout [Int32], path: JSONPath
    ) throws(ReshapeError) {
        let node = records[Int(parent)].node
        let first = records.count
        if node.isObject {
            try reserve(node.objectCount, path: path)
            var ordinal: Int32 = 0
            var iterator = json_object_iter(node)
            while let current = iterator {
                if let value = json_object_iter_value(current) {
                    let key = KeyBytes(start: json_object_iter_key(current), count: json_object_iter_key_len(current))
                    _ = add(value, parent: parent, key: key, index: 0, ordinal: ordinal)
                }
                ordinal &+= 1
                iterator = json_object_iter_next(node, current)
            }
        } else if node.isArray {
            let count = node.arrayCount
            try reserve(count, path: path)
            for index in 0..<count {
                guard let value = node.storedElement(index) else { continue }
                _ = add(value, parent: parent, key: nil, index: index, ordinal: Int32(truncatingIfNeeded: index))
            }
        }
        let start = next.count
        try pick(selector, among: first..<records.count, of: node, into: &next)
        // A union may pick a child twice: a rule that edits edits it once.
        if mode == .locations, case .union = selector, next.count - start > 1 {
            var seen = Set<Int32>()
            let picked = next[start...].filter { seen.insert($0).inserted }
            next.removeSubrange(start...)
            next += picked
        }
    }

    /// Appends the children (records `children`, all of `parent`'s, in order) that `selector` picks.
    private mutating func pick(
        _ selector: JSONPath.Selector, among children: Range<Int>, of parent: Node, into next: inout [Int32]
    ) throws(ReshapeError) {
        switch selector {
        case .wildcard:
            for child in children { next.append(Int32(child)) }
        case .name(let name):
            guard parent.isObject else { return }
            for child in children where records[child].key.map({ $0.elementsEqual(name.bytes) }) == true {
                next.append(Int32(child))
            }
        case .index(let wanted):
            guard parent.isArray else { return }
            let index = wanted >= 0 ? wanted : children.count + wanted
            if index >= 0, index < children.count { next.append(Int32(children.lowerBound + index)) }
        case .slice(let start, let end, let step):
            guard parent.isArray,
                let indices = JSONPath.Selector.sliceIndices(start: start, end: end, step: step, count: children.count)
            else { return }
            for index in indices { next.append(Int32(children.lowerBound + index)) }
        case .filter(let expression):
            let evaluator = FilterEvaluator(values: TreeFilterValues(root: records[0].node, document: document))
            for child in children {
                try materialize(Int32(child))
                if try evaluator.holds(expression, on: records[child].node) { next.append(Int32(child)) }
            }
        case .union(let selectors):
            for inner in selectors { try pick(inner, among: children, of: parent, into: &next) }
        }
    }

    /// The child segment: selects among the children of `input`.
    private mutating func selectChildren(
        of input: Int32, _ selector: JSONPath.Selector, into next: inout [Int32], path: JSONPath
    ) throws(ReshapeError) {
        let node = records[Int(input)].node
        switch selector {
        case .name(let name):
            guard node.isObject, let child = node.storedMember(name.bytes) else { return }
            try reserve(1, path: path)
            next.append(add(child, parent: input, key: name.bytes, index: 0, ordinal: -1))
        case .index(let wanted):
            guard node.isArray else { return }
            let count = node.arrayCount
            let index = wanted >= 0 ? wanted : count + wanted
            guard index >= 0, index < count, let child = node.storedElement(index) else { return }
            try reserve(1, path: path)
            next.append(add(child, parent: input, key: nil, index: index, ordinal: Int32(truncatingIfNeeded: index)))
        default:
            try recordChildren(of: input, selector, into: &next, path: path)
        }
    }

    /// Checks that `count` more records stay within the selection limit, and counts them as work.
    private func reserve(_ count: Int, path: JSONPath) throws(ReshapeError) {
        if records.count.addingClamped(count) > document.limits.maxSelected {
            throw ReshapeError(
                .limitExceeded,
                "the path \(quoted(path.text)) reaches more than \(document.limits.maxSelected) values (the selection limit)")
        }
        try document.charge(count)
    }

    private mutating func add(_ node: Node, parent: Int32, key: KeyBytes?, index: Int, ordinal: Int32) -> Int32 {
        let depth = records[Int(parent)].depth &+ 1
        records.append(Record(
            node: node, parent: parent, depth: depth, keyStart: key.map { $0.baseAddress ?? UnsafeRawPointer(emptyKey) },
            keyCountOrIndex: key?.count ?? index, ordinal: ordinal))
        return Int32(truncatingIfNeeded: records.count - 1)
    }
}
