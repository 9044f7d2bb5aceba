internal import CJansson

/// The locations a path selects, found on the document as it stands before a rule edits it.
///
/// Every node visited on the way is recorded with its parent and step, so that the normalized path
/// of any match is known without building path strings for the nodes that never fail.
struct Selection {
    enum Step {
        case root
        /// A member name; the bytes belong to the tree or to the compiled path.
        case key(KeyBytes)
        case index(Int)
    }

    struct Record {
        var node: Node
        let parent: Int32
        let step: Step
        let depth: Int32
    }

    private var records: [Record]
    private let document: Document
    /// The selected records, in document order, each location once.
    private(set) var matches: [Int32] = []

    /// Evaluates `path` on the document (RFC 9535 semantics: a selector that does not apply to a
    /// node, such as a name on an array, selects nothing there).
    ///
    /// Raw values (see `RawValue`) met on the way are made trees in place before being looked
    /// into, and so are the matches unless `rawMatches` says the rule only moves or removes them.
    init(_ path: JSONPath, in document: Document, rawMatches: Bool = false) throws(ReshapeError) {
        self.document = document
        records = [Record(node: document.root, parent: -1, step: .root, depth: 0)]
        var current: [Int32] = [0]
        for segment in path.segments {
            var next: [Int32] = []
            for input in current {
                try materialize(input)
                switch segment {
                case .child(let selector): try selectChildren(of: input, selector, into: &next)
                case .descendant(let selector): try selectDescendants(of: input, selector, into: &next)
                }
            }
            current = next
        }
        matches = current
        if !rawMatches {
            for match in matches { try materialize(match) }
        }
        // One `..` as the last segment yields document order by construction; anything else
        // with `..` may repeat a location or leave document order, so sort it out.
        let descendants = path.descendantSegmentCount
        let lastIsDescendant: Bool = {
            if case .descendant = path.segments.last { return true }
            return false
        }()
        if descendants > 1 || (descendants == 1 && !lastIsDescendant) {
            sortIntoDocumentOrder()
        }
    }

    /// The node at a match (borrowed).
    func node(_ match: Int32) -> Node { records[Int(match)].node }

    /// The normalized path of a match, followed by `steps` inside it.
    func path(of match: Int32, _ steps: PathStep...) -> String {
        path(of: match, steps: steps)
    }

    /// The normalized path of a match, followed by `steps` inside it.
    func path(of match: Int32, steps: [PathStep]) -> String {
        var chain: [Step] = []
        var current = match
        while current > 0 {
            let record = records[Int(current)]
            chain.append(record.step)
            current = record.parent
        }
        var path = NormalizedPath()
        for step in chain.reversed() {
            switch step {
            case .root: break
            case .key(let key): path.append(key: key)
            case .index(let index): path.append(index: index)
            }
        }
        for step in steps { path.append(step) }
        return path.text
    }

    /// The matches in the order a rule edits them: deepest first, and at equal depth the later
    /// location first, so that no edit moves a location that is still to be edited.
    var editOrder: [Int32] {
        matches.enumerated()
            .sorted { lhs, rhs in
                let leftDepth = records[Int(lhs.element)].depth
                let rightDepth = records[Int(rhs.element)].depth
                return leftDepth != rightDepth ? leftDepth > rightDepth : lhs.offset > rhs.offset
            }
            .map(\.element)
    }

    /// The matches that lie inside no other match: for edits that reach everything below a match,
    /// so that nothing is edited twice.
    var outermostMatches: [Int32] {
        guard matches.count > 1 else { return matches }
        let selected = Set(matches)
        return matches.filter { match in
            var current = records[Int(match)].parent
            while current >= 0 {
                if selected.contains(current) { return false }
                current = records[Int(current)].parent
            }
            return true
        }
    }

    /// Makes the node of a record a tree if it is a raw value, in place in the document.
    private mutating func materialize(_ record: Int32) throws(ReshapeError) {
        let node = records[Int(record)].node
        guard node.isRawValue else { return }
        let tree = try RawValue.materialized(node)
        try place(tree, at: record)
        records[Int(record)].node = tree
    }

    /// Puts `node` (stolen) where the match is.
    func replace(_ match: Int32, with node: Node) throws(ReshapeError) {
        try place(node, at: match)
    }

    /// Puts `node` (stolen) at a record's location.
    private func place(_ node: Node, at match: Int32) throws(ReshapeError) {
        let record = records[Int(match)]
        switch record.step {
        case .root:
            document.replaceRoot(with: node)
        case .key(let key):
            try Make.set(records[Int(record.parent)].node, key, node)
        case .index(let index):
            guard json_array_set_new(records[Int(record.parent)].node, index, node) == 0 else {
                throw .outOfMemory()
            }
        }
    }

    /// Removes the member or element at the match. The root cannot be removed.
    func remove(_ match: Int32) throws(ReshapeError) {
        let record = records[Int(match)]
        let parent = records[Int(record.parent)].node
        switch record.step {
        case .root:
            throw ReshapeError(.internal, "the document itself cannot be removed")
        case .key(let key):
            guard Make.removeMember(parent, key) else {
                throw ReshapeError(.internal, "member to remove was not found")
            }
        case .index(let index):
            guard json_array_remove(parent, index) == 0 else {
                throw ReshapeError(.internal, "element to remove was not found")
            }
        }
    }

    // MARK: - Evaluation

    private mutating func add(_ node: Node, parent: Int32, step: Step) throws(ReshapeError) -> Int32 {
        guard records.count < Int32.max else {
            throw ReshapeError(.limitExceeded, "a path visits more than \(Int32.max) values", path: path(of: parent))
        }
        records.append(Record(node: node, parent: parent, step: step, depth: records[Int(parent)].depth + 1))
        return Int32(records.count - 1)
    }

    private mutating func selectChildren(of input: Int32, _ selector: JSONPath.Selector, into next: inout [Int32]) throws(ReshapeError) {
        let node = records[Int(input)].node
        switch selector {
        case .name(let name):
            guard node.isObject, let child = node.member(name.bytes) else { return }
            next.append(try add(child, parent: input, step: .key(name.bytes)))
        case .index(let wanted):
            guard node.isArray else { return }
            let count = node.arrayCount
            let index = wanted >= 0 ? wanted : count + wanted
            guard index >= 0, index < count, let child = node.element(index) else { return }
            next.append(try add(child, parent: input, step: .index(index)))
        case .wildcard:
            if node.isObject {
                try node.forEachMember { (key, value) throws(ReshapeError) in next.append(try add(value, parent: input, step: .key(key))) }
            } else if node.isArray {
                for index in 0..<node.arrayCount {
                    guard let child = node.element(index) else { continue }
                    next.append(try add(child, parent: input, step: .index(index)))
                }
            }
        }
    }

    private struct WalkFrame {
        let record: Int32
        let node: Node
        var iterator: UnsafeMutableRawPointer?
        var index: Int
        let count: Int
    }

    /// Visits the descendants of `input` in document order (a node before its descendants, arrays
    /// in order) and selects those that `selector` picks from their parent. This is RFC 9535's
    /// descendant segment, producing its nodes in document order.
    private mutating func selectDescendants(of input: Int32, _ selector: JSONPath.Selector, into next: inout [Int32]) throws(ReshapeError) {
        var stack: [WalkFrame] = []
        push(input, onto: &stack)
        while var top = stack.popLast() {
            let child: Node
            let step: Step
            if top.node.isObject {
                guard let iterator = top.iterator else { continue }
                step = .key(KeyBytes(start: json_object_iter_key(iterator), count: json_object_iter_key_len(iterator)))
                top.iterator = json_object_iter_next(top.node, iterator)
                guard let value = json_object_iter_value(iterator) else { stack.append(top); continue }
                child = value
            } else {
                guard top.index < top.count else { continue }
                step = .index(top.index)
                top.index += 1
                guard let value = top.node.element(top.index - 1) else { stack.append(top); continue }
                child = value
            }
            stack.append(top)
            let record = try add(child, parent: top.record, step: step)
            if selects(selector, step, parentCount: top.count) { next.append(record) }
            // Replacing a member's value in place keeps the parent's iterator valid.
            try materialize(record)
            push(record, onto: &stack)
        }
    }

    private func push(_ record: Int32, onto stack: inout [WalkFrame]) {
        let node = records[Int(record)].node
        if node.isObject, node.objectCount > 0 {
            stack.append(WalkFrame(record: record, node: node, iterator: json_object_iter(node), index: 0, count: 0))
        } else if node.isArray, node.arrayCount > 0 {
            stack.append(WalkFrame(record: record, node: node, iterator: nil, index: 0, count: node.arrayCount))
        }
    }

    private func selects(_ selector: JSONPath.Selector, _ step: Step, parentCount: Int) -> Bool {
        switch (selector, step) {
        case (.wildcard, _):
            return true
        case (.name(let name), .key(let key)):
            return key.elementsEqual(name.bytes)
        case (.index(let wanted), .index(let index)):
            return index == (wanted >= 0 ? wanted : parentCount + wanted)
        default:
            return false
        }
    }

    /// Sorts matches into document order and drops repeated locations. Only paths with `..`
    /// before another segment need this, so the cost of finding member positions is rare.
    private mutating func sortIntoDocumentOrder() {
        var keyed: [(ordinals: [Int], match: Int32)] = matches.map { match in
            var ordinals: [Int] = []
            var current = match
            while current > 0 {
                let record = records[Int(current)]
                let parent = records[Int(record.parent)].node
                switch record.step {
                case .index(let index): ordinals.append(index)
                case .key(let key): ordinals.append(memberPosition(of: key, in: parent))
                case .root: break
                }
                current = record.parent
            }
            return (ordinals.reversed(), match)
        }
        keyed.sort { $0.ordinals.lexicographicallyPrecedes($1.ordinals) }
        var unique: [Int32] = []
        var previous: [Int]? = nil
        for entry in keyed where entry.ordinals != previous {
            unique.append(entry.match)
            previous = entry.ordinals
        }
        matches = unique
    }

    private func memberPosition(of key: KeyBytes, in object: Node) -> Int {
        var position = 0
        var found = 0
        object.forEachMember { name, _ in
            if name.elementsEqual(key) { found = position }
            position += 1
        }
        return found
    }
}
