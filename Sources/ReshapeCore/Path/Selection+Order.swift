/// The order in which a rule edits its locations, for `Mode.locations`.
///
/// Both orders rest on document order: a preorder of the tree the matches and their ancestors form,
/// with each record's children ordered by their position in the parent. One sort over those
/// records, never a scan of a large object per match.
extension Selection {
    /// The matches in the order a rule edits them: deepest first, and at equal depth the later
    /// location (in document order) first, so that no edit moves or frees a location that is
    /// still to be edited.
    func editOrder() throws(ReshapeError) -> [Int32] {
        guard matches.count > 1 else { return matches }
        let rank = try documentRanks()
        return matches.sorted { lhs, rhs in
            let left = records[Int(lhs)].depth
            let right = records[Int(rhs)].depth
            return left != right ? left > right : rank[Int(lhs)] > rank[Int(rhs)]
        }
    }

    /// The matches that lie inside no other match, in document order: for edits that reach
    /// everything below a match, so that nothing is edited twice.
    func outermostMatches() throws(ReshapeError) -> [Int32] {
        guard matches.count > 1 else { return matches }
        // A location can be recorded twice (by two segments), so containers are told apart by
        // their node: every object and array of the tree is a distinct node.
        var matched = Set<UnsafeMutableRawPointer>()
        for match in matches {
            let node = records[Int(match)].node
            if node.isObject || node.isArray { matched.insert(UnsafeMutableRawPointer(node)) }
        }
        // covered[r]: 0 not known yet, 1 no, 2 yes: r's node or one above it is a matched container.
        var covered = [UInt8](repeating: 0, count: records.count)
        var chain: [Int32] = []
        let outermost = matches.filter { match in
            let parent = records[Int(match)].parent
            guard parent >= 0 else { return true }
            chain.removeAll(keepingCapacity: true)
            var current = parent
            while current >= 0, covered[Int(current)] == 0 {
                chain.append(current)
                current = records[Int(current)].parent
            }
            var inside = current >= 0 && covered[Int(current)] == 2
            for record in chain.reversed() {
                inside = inside || matched.contains(UnsafeMutableRawPointer(records[Int(record)].node))
                covered[Int(record)] = inside ? 2 : 1
            }
            return !inside
        }
        guard outermost.count > 1 else { return outermost }
        let rank = try documentRanks()
        return outermost.sorted { rank[Int($0)] < rank[Int($1)] }
    }

    /// For each match and each of its ancestors, its position in document order (a preorder of the
    /// tree they form, children by their position in their parent); -1 for other records.
    private func documentRanks() throws(ReshapeError) -> [Int32] {
        var rank = [Int32](repeating: -1, count: records.count)
        // The matches and their ancestors (the root among them), each once, as (parent, ordinal).
        var children: [(parent: Int32, ordinal: Int, record: Int32)] = []
        for match in matches {
            var current = match
            while current > 0, rank[Int(current)] == -1 {
                rank[Int(current)] = -2
                children.append((records[Int(current)].parent, try ordinal(of: current), current))
                current = records[Int(current)].parent
            }
        }
        children.sort { lhs, rhs in
            if lhs.parent != rhs.parent { return lhs.parent < rhs.parent }
            if lhs.ordinal != rhs.ordinal { return lhs.ordinal < rhs.ordinal }
            return lhs.record < rhs.record
        }
        // Where each parent's children start in `children`.
        var firstChild: [Int32: Int] = [:]
        for (position, entry) in children.enumerated().reversed() { firstChild[entry.parent] = position }
        var counter: Int32 = 0
        var pending: [Int32] = [0]
        while let record = pending.popLast() {
            rank[Int(record)] = counter
            counter &+= 1
            guard let first = firstChild[record] else { continue }
            var end = first
            while end < children.count, children[end].parent == record { end += 1 }
            for position in stride(from: end - 1, through: first, by: -1) { pending.append(children[position].record) }
        }
        return rank
    }

    /// A record's position among its parent's children; for a member found by name, counted now
    /// (a step of work per member counted).
    private func ordinal(of record: Int32) throws(ReshapeError) -> Int {
        let entry = records[Int(record)]
        if entry.ordinal >= 0 || entry.parent < 0 { return Int(max(entry.ordinal, 0)) }
        guard let key = entry.key else { return entry.keyCountOrIndex }
        try document.charge(records[Int(entry.parent)].node.objectCount)
        var position = 0
        var found = 0
        records[Int(entry.parent)].node.forEachMemberName { name in
            if name.elementsEqual(key) { found = position }
            position += 1
        }
        return found
    }
}
