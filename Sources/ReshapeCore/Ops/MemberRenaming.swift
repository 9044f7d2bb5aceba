internal import CJansson

/// Renames members of objects in place, keeping their order, for `convertKeys` and `renameKeys`.
///
/// jansson cannot rename a member, and setting a new name would move it to the end, so an object
/// whose names change is rebuilt in order and its contents swapped in. Two members that would end
/// up with the same name are an error naming the renamed member.
///
/// A deep renaming walks the tree with an explicit stack, children before their parent (so the
/// names on the path to a child stay valid while it is renamed), never recursing on depth.
struct MemberRenaming {
    /// The new name for a member, or nil to keep it.
    let newName: (KeyBytes) -> [UInt8]?
    /// Also rename inside member values and array elements, at any depth.
    let deep: Bool
    /// Objects and arrays whose members, and everything below them, keep their names (the
    /// matches of `convertKeys`' `exclude`), by node.
    var excluded: Set<UnsafeMutableRawPointer> = []

    /// A container being walked: where its walk stands.
    private struct Frame {
        let node: Node
        var iterator: UnsafeMutableRawPointer?
        var index = 0
    }

    /// Renames the members of the selected node (and below it when deep).
    func apply(to node: Node, at match: Int32, in selection: Selection, document: Document) throws(ReshapeError) {
        if !excluded.isEmpty, try isExcluded(match, in: selection) { return }
        guard deep else {
            if node.isObject { try renameMembers(of: node, trail: [], match: match, selection: selection, document: document) }
            return
        }
        var stack: [Frame] = []
        var trail: [PathStep] = []
        try push(node, onto: &stack, document: document)
        while !stack.isEmpty {
            let top = stack.count - 1
            let current = stack[top].node
            // The next child that is an object or array, with its step from `current`.
            var next: (child: Node, step: PathStep)? = nil
            if current.isObject {
                while next == nil, let iterator = stack[top].iterator {
                    stack[top].iterator = json_object_iter_next(current, iterator)
                    if let value = try current.memberValue(at: iterator), value.isObject || value.isArray {
                        let key = KeyBytes(start: json_object_iter_key(iterator), count: json_object_iter_key_len(iterator))
                        next = (value, .name(key))
                    }
                }
            } else {
                while next == nil, stack[top].index < current.arrayCount {
                    let index = stack[top].index
                    stack[top].index += 1
                    if let value = try current.element(index), value.isObject || value.isArray { next = (value, .index(index)) }
                }
            }
            if let next {
                // An excluded value keeps every name in it: it is not walked.
                if excluded.contains(UnsafeMutableRawPointer(next.child)) { continue }
                trail.append(next.step)
                try push(next.child, onto: &stack, document: document)
                continue
            }
            stack.removeLast()
            if current.isObject {
                try renameMembers(of: current, trail: trail, match: match, selection: selection, document: document)
            }
            if !trail.isEmpty, !stack.isEmpty { trail.removeLast() }
        }
    }

    /// Whether the match, or a value above it, is excluded.
    private func isExcluded(_ match: Int32, in selection: Selection) throws(ReshapeError) -> Bool {
        var record = match
        while record >= 0 {
            if excluded.contains(UnsafeMutableRawPointer(selection.records[Int(record)].node)) { return true }
            record = selection.records[Int(record)].parent
        }
        return false
    }

    private func push(_ node: Node, onto stack: inout [Frame], document: Document) throws(ReshapeError) {
        try document.charge(1 + (node.isObject ? node.objectCount : node.arrayCount))
        stack.append(Frame(node: node, iterator: node.isObject ? json_object_iter(node) : nil))
    }

    private func renameMembers(
        of object: Node, trail: [PathStep], match: Int32, selection: Selection, document: Document
    ) throws(ReshapeError) {
        var names: [[UInt8]?] = []
        names.reserveCapacity(object.objectCount)
        var changes = false
        var growth = 0
        var reading = 0
        object.forEachMemberName { key in
            reading = reading.addingClamped(Self.readingCost(key))
            let name = newName(key)
            if let name {
                changes = true
                growth = growth.addingClamped(OutputGrowth.renamed(from: key.count, to: name.count).bound)
            }
            names.append(name)
        }
        try document.charge(reading)
        guard changes else { return }
        // Rebuilding costs a new object and two insertions per member: about 16 + 4 per member
        // steps of a walk.
        try document.charge(names.count.multipliedClamped(by: 4).addingClamped(16))
        try document.grow(.text(growth))
        let rebuilt = try Make.object()
        defer {
            // The values are still the object's: drop the extra references without freeing.
            json_object_clear(rebuilt)
            json_decref(rebuilt)
        }
        var position = 0
        var collision: (renamed: String, to: String)? = nil
        // The values move as they are: renaming does not look into them.
        try object.forEachStoredMember { (key, value) throws(ReshapeError) in
            defer { position += 1 }
            guard collision == nil else { return }
            let name = names[position]
            let isNew = try (name ?? Array(key)).withUnsafeBytesTyped { (bytes) throws(ReshapeError) in
                try Make.set(rebuilt, bytes, Make.retain(value))
            }
            if !isNew {
                collision = blame(names: names, upTo: position, in: object)
            }
        }
        if let collision {
            throw ReshapeError(
                .ruleFailed,
                "member \(quoted(collision.renamed)) would become \(quoted(collision.to)), which the object already has",
                path: selection.path(of: match, steps: trail + [.key(collision.renamed)]))
        }
        json_object_clear(object)
        // Names are copied with their length: one holding U+0000 stays whole.
        var iterator = json_object_iter(rebuilt)
        while let current = iterator {
            if let value = json_object_iter_value(current) {
                guard json_object_setn_new_nocheck(
                    object, json_object_iter_key(current), json_object_iter_key_len(current), Make.retain(value)) == 0
                else { throw .outOfMemory() }
            }
            iterator = json_object_iter_next(rebuilt, current)
        }
    }

    /// What looking at a name costs: ASCII names take a byte-level path (a step per 16 bytes); others
    /// go through Unicode strings and properties (two steps per byte).
    private static func readingCost(_ key: KeyBytes) -> Int {
        key.allSatisfy { $0 < 0x80 } ? key.count / 16 : key.count.multipliedClamped(by: 2)
    }

    /// For the member at `position` whose final name repeats an earlier one: the renamed member of
    /// the two (the later one when both were renamed).
    private func blame(names: [[UInt8]?], upTo position: Int, in object: Node) -> (renamed: String, to: String) {
        var originals: [[UInt8]] = []
        object.forEachMemberName { key in originals.append(Array(key)) }
        let final = names[position] ?? originals[position]
        if names[position] != nil {
            return (String(decoding: originals[position], as: UTF8.self), String(decoding: final, as: UTF8.self))
        }
        let earlier = (0..<position).first { (names[$0] ?? originals[$0]) == final } ?? position
        return (String(decoding: originals[earlier], as: UTF8.self), String(decoding: final, as: UTF8.self))
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFastPath`)

/// An op that renames members of the selected objects (and below them, when `deep`):
/// `convertKeys` and `renameKeys`, which stream alike.
protocol RenamingOperation: PathOperation {
    var deep: Bool { get }
    /// A member's new name, or nil when it stays.
    var newName: @Sendable (KeyBytes) -> [UInt8]? { get }
    /// Paths whose objects, and everything below them, keep their names.
    var exclude: [JSONPath] { get }
}

extension RenamingOperation {
    var exclude: [JSONPath] { [] }

    /// Renames the members of each selected object, and below it when deep, but in what
    /// `exclude` selects.
    func apply(to document: Document) throws(ReshapeError) {
        var renaming = MemberRenaming(newName: newName, deep: deep)
        for path in exclude {
            let excluded = try Selection(path, in: document, rawMatches: false)
            defer { excluded.recycle() }
            for match in excluded.matches {
                let node = excluded.node(match)
                if node.isObject || node.isArray { renaming.excluded.insert(UnsafeMutableRawPointer(node)) }
            }
        }
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        // A deep renaming covers everything below a match, so only the outermost matches are
        // visited; each object is renamed once.
        for match in deep ? try selection.outermostMatches() : try selection.editOrder() {
            try renaming.apply(to: selection.node(match), at: match, in: selection, document: document)
        }
    }

    /// Per record unless it renames the records' names in an object collection; the names on the
    /// chain to the collection are renamed as the rule renames them.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        // What `exclude` selects must be found in a record alone too.
        for path in exclude {
            var probe = step
            if case .wholeDocument(let reason) = probe.along(path, { _, reach in
                reach.selectsAbove || reach.selectsCollection ? .wholeDocument("excludes the collection or its envelope") : .perRecord
            }) {
                return .wholeDocument(reason)
            }
        }
        return step.along(path) { step, reach in MemberRenaming.planStep(&step, reach: reach, deep: deep, newName: newName) }
    }

    /// On the text when deep from `$`: every member is renamed.
    func addToFastPath(_ builder: inout RecordFastPath.Builder, collection before: RecordPlan.Kind, after: RecordPlan.Kind) -> Bool {
        guard deep, path.isRoot, exclude.isEmpty else { return false }
        builder.renameEverywhere(newName)
        return true
    }

    /// On a record's tokens: the member names of each selected object (and every name below a
    /// selected value, or in the whole record when the path selects the collection or above it,
    /// when deep) are passed on renamed, but inside what `exclude` selects (each exclude path
    /// followed by a cursor of its own). Names that then collide make the writer give up.
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker {
        guard let matcher = PathMatcher(path, filters: true), let parent = context.recordParent(matcher) else { return .needsTree }
        // What `exclude` selects is followed too, each path with its own cursor.
        var excluders: [(matcher: PathMatcher, parent: PathMatcher.States)] = []
        for excluded in exclude {
            guard let excludedMatcher = PathMatcher(excluded), let excludedParent = context.recordParent(excludedMatcher) else {
                return .needsTree
            }
            excluders.append((excludedMatcher, excludedParent))
        }
        let everywhere = deep && !PathOnChain(path, chain: context.chain).selectedDepths.isEmpty
        let deep = self.deep
        let newName = self.newName
        let excluded = excluders
        return RecordFilterContext.along(matcher, parent: parent) { cursor, next, arena in
            MemberRenaming.Filter(
                cursor: cursor, excluders: excluded.map { PathCursor($0.matcher, parent: $0.parent) },
                deep: deep, everywhere: everywhere, newName: newName, next: next, arena: arena)
        }
    }
}

extension RenamingOperation {
    /// In a selected record (or one inside a deep renaming from above it), each member's new
    /// name; in a container value a deep renaming covers whole, the renaming, on the text. The
    /// filter sees the containers the path selects in otherwise, and those an `exclude` path
    /// selects in (not those it selects: their names stay).
    func recordMemberNeeds(_ context: RecordFilterContext) -> MemberNeeds? {
        guard let matcher = PathMatcher(path, filters: true), let record = context.recordStates(matcher) else { return nil }
        var excluders: [(matcher: PathMatcher, record: PathMatcher.States)] = []
        for excluded in exclude {
            guard let excludedMatcher = PathMatcher(excluded), let states = context.recordStates(excludedMatcher),
                states & excludedMatcher.selected == 0
            else { return nil }
            excluders.append((excludedMatcher, states))
        }
        let deep = self.deep
        let newName = self.newName
        let renamesRecord = record & matcher.selected != 0 || (deep && !PathOnChain(path, chain: context.chain).selectedDepths.isEmpty)
        let excluded = excluders
        let watched = WatchedNames(matcher)
        return { name in
            var use = MemberUse()
            if renamesRecord { use.newName = newName(name.bytes) } else { use.leavesRecordNames = true }
            var excluderLive = false
            for excluder in excluded {
                let states = excluder.matcher.child(excluder.record, name: name.bytes, hash: name.hash)
                if states & excluder.matcher.selected != 0 { return use }  // Its names stay.
                if states != 0 { excluderLive = true }
            }
            let states = matcher.child(record, name: name.bytes, hash: name.hash)
            // A path that selects the value and everything below it (`$..*`) renames every
            // object in it, as a deep renaming does.
            let coversValue = deep && (renamesRecord || states & matcher.selected != 0) || matcher.selectsItselfAndEverythingBelow(states)
            if states == 0 && !coversValue { return use }
            if coversValue && !excluderLive {
                use.pass.rename(newName)
            } else if !deep && !excluderLive && states & matcher.selected != 0 {
                // A selected object: its own members renamed on its text, as the filter renames
                // those of one inside the record (see `Filter.passes`). An array's objects are
                // the filter's.
                let name = use.newName
                use = MemberUse.passing(.object) { $0.renameOwnMembers(newName) }
                use.newName = name
                if !renamesRecord { use.leavesRecordNames = true }
            } else if !excluderLive, let watchedUse = watched?.use(states) {
                // `$..profile`: watched for the names (the member's own name is `newName`'s).
                (use.tokens, use.keepsMember, use.pass) = (watchedUse.tokens, watchedUse.keepsMember, watchedUse.pass)
            } else {
                // It renames inside the member (the member's own name is `newName`'s).
                use.tokens = .containers
                use.keepsMember = true
            }
            return use
        }
    }
}

extension MemberRenaming {
    /// A renaming rule's filter (see `RenamingOperation.recordFilter`).
    final class Filter: RecordFilter {
        @exclusivity(unchecked) var cursor: PathCursor
        /// One cursor per `exclude` path.
        @exclusivity(unchecked) var excluders: [PathCursor]
        /// The depth of the members of the outermost excluded value open: names at that depth or
        /// deeper keep theirs.
        @exclusivity(unchecked) var excludedFrom = Int.max
        let deep: Bool
        let everywhere: Bool
        let newName: @Sendable (KeyBytes) -> [UInt8]?
        let next: any RecordFilter
        @exclusivity(unchecked) var aside = AsideFlag()
        let arena: TokenArena
        /// The depths (of their members) of the selected objects open.
        @exclusivity(unchecked) var objects: [Int] = []
        /// With `deep`: the depth of the members of the outermost selected value open; names at
        /// that depth or deeper are renamed.
        @exclusivity(unchecked) var deepFrom = Int.max
        /// What names seen before became: 0 when they stay, else 1 + their index in `renamedNames`.
        let cache = KnownNames()
        @exclusivity(unchecked) var renamedNames: [RecordToken] = []
        /// Renamed names may collide: the writer compares them too.
        var renamesMembers: Bool { true }
        var passesEveryName: Bool { true }
        /// A filter after it may drop names: it compares those it gives, in the objects it
        /// renames in.
        @exclusivity(unchecked) var comparesNames = false
        @exclusivity(unchecked) var names = DistinctNames()

        func namesMayBeDropped() { comparesNames = true }

        init(
            cursor: PathCursor, excluders: [PathCursor], deep: Bool, everywhere: Bool,
            newName: @escaping @Sendable (KeyBytes) -> [UInt8]?, next: any RecordFilter, arena: TokenArena
        ) {
            self.cursor = cursor
            self.excluders = excluders
            self.deep = deep
            self.everywhere = everywhere
            self.newName = newName
            self.next = next
            self.arena = arena
        }

        func start(key: UnsafeRawBufferPointer?) -> Bool {
            cursor.start(key: key)
            for index in excluders.indices { excluders[index].start(key: key) }
            excludedFrom = Int.max
            objects.empty()
            names.reset()
            deepFrom = everywhere ? 0 : Int.max
            return next.start(key: key)
        }

        func ignores(_ token: RecordToken) -> Bool { cursor.peek() == 0 && cursor.depth + 1 < deepFrom }

        /// Deep, with every name in the container renamed (it is selected, or lies in a selected
        /// value), or with it and every value below it selected (`$..*`), and no `exclude` path
        /// reaching into it: each member is renamed on the text. A
        /// container that is excluded, or inside an excluded value, keeps its names. Outside a
        /// deep renaming, where the path selects only objects of some names at any depth
        /// (`$..profile`), it goes by watched for them (`PathCursor.watches`): where none is in
        /// it, no name in it changes, whatever `exclude` says.
        func passes(_ token: RecordToken, into pass: inout ContainerPass) -> Bool {
            let members = cursor.depth + 1
            if members > excludedFrom { return true }
            var excluderLive = false
            for index in excluders.indices {
                let states = excluders[index].peek()
                if excluders[index].selects(states) { return true }
                if states != 0 { excluderLive = true }
            }
            if ignores(token) { return true }
            let states = cursor.peek()
            // Every object in it renamed: deep, or every value in it selected (`$..*`).
            let renamesAll = deep && (members >= deepFrom || cursor.selects(states)) || cursor.matcher.selectsItselfAndEverythingBelow(states)
            guard renamesAll, !excluderLive else {
                guard members < deepFrom else { return false }
                if !deep && !excluderLive && token.kind == .objectStart && cursor.selects(states) && cursor.depth > 0 {
                    // A selected object inside the record: its own members renamed on the text,
                    // while it holds no container (the copy is given back at one). (A record's
                    // own members are routed one by one.)
                    pass.renameOwnMembers(newName)
                    return true
                }
                return cursor.watches(states, into: &pass)
            }
            pass.rename(newName)
            return true
        }

        /// It renames the record's members, or inside them, as its member needs say.
        func passesMembers(_ token: RecordToken) -> Bool { cursor.depth + 1 <= excludedFrom }

        func skip(_ token: RecordToken) {
            cursor.skip()
            for index in excluders.indices { excluders[index].skip() }
        }

        func take(_ token: RecordToken) -> Bool {
            if aside.isSet { return next.take(token) }
            let depth = cursor.depth
            let states = cursor.take(token)
            if !excluders.isEmpty { followExcluders(token) }
            switch token.kind {
            case .name:
                guard depth < excludedFrom, depth >= deepFrom || objects.last == depth else { break }
                let renamed = renamed(token)
                // The names it gives an object must differ, which the writer cannot see for a
                // member a rule after this one drops: the tree names the collision.
                if comparesNames { guard names.insert((renamed ?? token).hash, at: depth) else { return false } }
                guard let renamed else { break }
                arena.grow(.renamed(from: token.bytes.count, to: renamed.bytes.count))
                return next.take(renamed)
            case .objectEnd, .arrayEnd:
                if objects.last == depth { objects.removeLast() }
                if comparesNames && token.kind == .objectEnd { names.close(depth) }
                if depth == deepFrom && !everywhere { deepFrom = Int.max }
                if depth == excludedFrom { excludedFrom = Int.max }
            default:
                guard token.opens, cursor.selects(states) else { break }
                if deep {
                    deepFrom = min(deepFrom, cursor.depth)
                } else if token.kind == .objectStart {
                    objects.append(cursor.depth)
                }
            }
            return next.take(token)
        }

        /// A member of a record it renames in went by without its tokens: its name counts too.
        func memberWentBy(named hash: UInt64) -> Bool {
            guard 1 < excludedFrom, 1 >= deepFrom || objects.last == 1 else { return true }
            return names.insert(hash, at: 1)
        }

        /// Moves the `exclude` cursors on; a container one of them selects starts an excluded value.
        private func followExcluders(_ token: RecordToken) {
            var excludes = false
            for index in excluders.indices {
                let states = excluders[index].take(token)
                if token.opens && excluders[index].selects(states) { excludes = true }
            }
            if excludes { excludedFrom = min(excludedFrom, cursor.depth) }
        }

        /// The name `token` becomes, or nil when it stays.
        private func renamed(_ token: RecordToken) -> RecordToken? {
            if let known = cache.find(token) { return known == 0 ? nil : renamedNames[Int(known) - 1] }
            let renamed = newName(token.bytes).map { name in
                name.withUnsafeBytes { bytes in
                    RecordToken(
                        name: cache.isFull ? arena.keep(bytes) : cache.kept.keep(bytes), hash: RecordNames.hash(bytes),
                        plain: JSONText.isPlain(bytes))
                }
            }
            if !cache.isFull {
                if let renamed { renamedNames.append(renamed) }
                cache.add(token, renamed == nil ? 0 : Int32(renamedNames.count))
            }
            return renamed
        }
    }
}

extension MemberRenaming {
    /// The streaming verdict for a renaming rule that selects `reach` on the chain to the
    /// collection: renaming an object collection's members renames the records' ids, which must
    /// stay unique across records (whole document); else per record, with the names on the chain
    /// renamed as the rule will (all below the shallowest selected object, when `deep`).
    static func planStep(
        _ step: inout RecordPlan.Step, reach: RecordPlan.PathReach, deep: Bool, newName: (KeyBytes) -> [UInt8]?
    ) -> RecordPlan.Verdict {
        let selectedDepths = reach.onChain.selectedDepths
        guard let shallowest = selectedDepths.min() else { return .perRecord }
        if step.kind == .object && (deep || reach.selectsCollection) {
            return .wholeDocument("renames the records' ids, which must stay unique across records")
        }
        var renamed = step.chain
        for level in step.chain.indices {
            let selected = deep ? level >= shallowest : selectedDepths.contains(level)
            guard selected else { continue }
            if let name = step.chain[level].withUnsafeBytes({ newName($0) }) { renamed[level] = name }
        }
        step.chain = renamed
        return .perRecord
    }
}
