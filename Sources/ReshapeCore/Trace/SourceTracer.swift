internal import CJansson

/// Follows every value of a document through a rule list, to say where each value of the output
/// (or of the document a rule failed on) was in the input: run only when asked, or when an error
/// needs it, never on the way of a successful reshape.
///
/// It goes by identity: the ops move jansson nodes (a record `keyedToArray` puts in an array, a
/// value `unwrap` lifts, a member renamed) and make new ones for what they add or replace. The
/// input is parsed as a whole tree, and each `null`, `true` and `false` in it, which jansson shares
/// as one node each, gets a node of its own, so that every input value is one node. After each
/// rule, a walk of the document meets every node: one it knew keeps its origin (and a change of
/// its member name is a renaming by that rule); a new one was made by that rule, in place of the
/// node that stood at its place before (replaced), or from nothing (added). The tracer keeps a
/// reference to every node it met, so that no address is reused for another node. What it costs
/// (a walk per rule) counts against the document's work limit.
final class SourceTracer {
    /// The input, as parsed.
    private let input: UnsafeRawBufferPointer
    let document: Document
    private let operations: [any Operation]

    /// A node's place: its container (nil for the root) and the step to it.
    private struct Place: Hashable {
        let parent: Node?
        let step: Step
    }

    private typealias Step = TraceStep

    private struct Origin {
        var kind: ValueSource.Origin
        /// The input node whose place is the source (the value itself, the value replaced, the
        /// object whose member name this is); nil for an added value.
        var inputNode: Node?
        var rule = 0
        /// For a rebuilt container: the container it was rebuilt from (as it was before the rule);
        /// for a member name: the value whose member name it was.
        var from: Node? = nil
    }

    private var origins: [Node: Origin] = [:]
    /// Every input node's place in the input.
    private var inputPlaces: [Node: Place] = [:]
    /// The places of the last walk, both ways.
    private var places: [Node: Place] = [:]
    private var nodesAt: [Place: Node] = [:]
    private var renames: [Node: [ValueSource.Rename]] = [:]
    /// Every node met, one reference each, and the `null`s and booleans made for the input.
    private var held: [Node] = []
    private var ownSingletons: [Node] = []
    /// The rules run so far.
    private(set) var rulesRun = 0

    // What each rule changed, for `reshape explain` (`RuleExplanation`): recorded by the walk
    // after a rule when `recordsChanges`.

    /// Whether walks record what each rule changed.
    let recordsChanges: Bool
    /// The values the last rule selected, before it ran (set by `run(rules:)` when recording).
    private var selectedBefore: Set<Node> = []
    /// The changes the last rule made: how many, and the first few.
    private(set) var changeCount = 0
    private(set) var changeExamples: [TraceChange] = []
    /// How many of the values the last rule selected it changed (or changed something in).
    private(set) var changedSelected = 0
    /// How many values the last rule selected.
    private(set) var selectedCount = 0
    /// How long the last rule took to run (not its walk).
    private(set) var lastRuleSeconds = 0.0
    /// The nodes of the last walk, in its order, when recording.
    private var lastOrder: [Node] = []
    static let changeExampleCount = 3

    /// Parses `input` (as the rules would, but wholly as a tree) and walks it once.
    init(rules: Rules, input: UnsafeRawBufferPointer, options: ApplyOptions, recordingChanges: Bool = false) throws(ReshapeError) {
        self.input = input
        recordsChanges = recordingChanges
        operations = rules.operations
        let limits = rules.limits.resolved(inputBytes: input.count)
        let root = try JSONParser.parse(
            input, allowDuplicateKeys: options.contains(.allowDuplicateKeys), rawDepth: nil, maxDepth: limits.maxDepth)
        document = Document(root: root, inputBytes: input.count, limits: limits)
        try walk(afterRule: 0)
    }

    deinit {
        // The tree first, while the nulls and booleans made for it exist; then the nodes held, each
        // freed without recursion when its last reference goes; then those nulls and booleans.
        document.replaceRoot(with: Make.null())
        for node in held { Make.release(node) }
        for node in ownSingletons { node.deallocate() }
    }

    /// Runs the next `count` rules, walking after each; a rule's failure is its error.
    func run(rules count: Int) throws(ReshapeError) {
        for _ in 0..<count where rulesRun < operations.count {
            let operation = operations[rulesRun]
            if recordsChanges {
                let selection = try Selection(operation.selects, in: document, rawMatches: true)
                selectedBefore = Set(selection.matches.map { selection.records[Int($0)].node })
                selectedCount = selectedBefore.count
                selection.recycle()
            }
            let clock = ContinuousClock()
            let start = clock.now
            do throws(ReshapeError) {
                try operation.apply(to: document)
            } catch {
                throw error.inRule(rulesRun + 1, type(of: operation).name)
            }
            let elapsed = start.duration(to: clock.now).components
            lastRuleSeconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            rulesRun += 1
            try walk(afterRule: rulesRun)
        }
    }

    /// The source of the value at the normalized (or any singular) `path` of the document as the
    /// rules run so far left it.
    func source(of path: String) throws(ReshapeError) -> ValueSource {
        let parsed: JSONPath
        switch JSONPathParser.parse(path) {
        case .success(let query) where query.isSingular: parsed = query
        case .success: throw ReshapeError(.invalidArgument, "path \(quoted(path)) may select several values; give one value's path")
        case .failure(let failure): throw ReshapeError(.invalidArgument, "path \(quoted(path)): \(failure.message)")
        }
        switch try parsed.resolve(in: document) {
        case .missing(let at, let message):
            throw ReshapeError(.invalidArgument, "no value at \(MessageText.path(path)) in the output: at \(MessageText.path(at)): \(message)")
        case .found(let node):
            return location(of: node)
        }
    }

    /// The source of `node`, a node of the document.
    private func location(of node: Node) -> ValueSource {
        guard let origin = origins[node] else {
            // Not met by a walk: cannot happen for a node of the document.
            return ValueSource(origin: .added, path: "", line: 0, column: 0, position: 0, rule: rulesRun,
                                  op: rulesRun > 0 ? type(of: operations[rulesRun - 1]).name : "")
        }
        // A member name's renamings are those of the member it was the name of.
        let renamed = (origin.kind == .memberName ? origin.from.flatMap { renames[$0] } : renames[node]) ?? []
        let op = origin.rule > 0 ? type(of: operations[origin.rule - 1]).name : ""
        guard let inputNode = origin.inputNode else {
            return ValueSource(origin: .added, path: "", line: 0, column: 0, position: 0, rule: origin.rule, op: op, renames: renamed)
        }
        let steps = inputSteps(of: inputNode)
        let (valueOffset, nameOffset) = InputLocator.offsets(of: steps, in: input)
        let offset = origin.kind == .memberName ? (nameOffset ?? valueOffset) : valueOffset
        let position = TextPosition(of: offset, in: input)
        return ValueSource(
            origin: origin.kind, path: Self.text(of: steps), line: position.line, column: position.column, position: offset, rule: origin.rule,
            op: op, renames: renamed)
    }

    /// The steps from the input's root to `node`, an input node.
    private func inputSteps(of node: Node) -> [Step] {
        var steps: [Step] = []
        var current: Node? = node
        while let at = current, let place = inputPlaces[at], place.step != .root {
            steps.append(place.step)
            current = place.parent
        }
        return steps.reversed()
    }

    // MARK: - Walking

    /// Meets every node of the document after rule `rule` (0: the input).
    private func walk(afterRule rule: Int) throws(ReshapeError) {
        var newPlaces: [Node: Place] = [:]
        newPlaces.reserveCapacity(places.count)
        var newNodesAt: [Place: Node] = [:]
        newNodesAt.reserveCapacity(places.count)
        // `kept`: the member is where the walk before met it, under the same name (no renaming to
        // look for, and its step is that walk's: no new array).
        var pending: [(node: Node, place: Place, kept: Bool)] = [(document.root, Place(parent: nil, step: .root), false)]
        // Nodes met for the first time, parents before children: their origins are decided once
        // the walk knows which nodes of before are still in the document (moved, not replaced).
        var fresh: [(node: Node, place: Place)] = []
        var freshNodes = Set<Node>()
        var order: [Node] = []
        var renamed: [(node: Node, from: [UInt8], to: [UInt8])] = []
        while let (found, place, kept) = pending.popLast() {
            try document.charge(1)
            var node = found
            if isShared(node) { node = try ownNode(replacing: node, at: place) }
            if recordsChanges { order.append(node) }
            if origins[node] == nil {
                if !freshNodes.contains(node) {
                    fresh.append((node, place))
                    freshNodes.insert(node)
                    if rule == 0 { inputPlaces[node] = place }
                    held.append(Make.retain(node))
                }
                // Else met twice in this walk (a scalar shared by a copy): one origin.
            } else if !kept, case .name(let new) = place.step, let before = places[node], case .name(let old) = before.step, old != new {
                if recordsChanges { renamed.append((node, old, new)) }
                renames[node, default: []].append(ValueSource.Rename(
                    rule: rule, op: type(of: operations[rule - 1]).name, from: String(decoding: old, as: UTF8.self),
                    to: String(decoding: new, as: UTF8.self)))
            }
            newPlaces[node] = place
            newNodesAt[place] = node
            if node.isObject {
                var children: [(Node, Place, Bool)] = []
                node.forEachStoredMember { key, value in
                    if let before = places[value], before.parent == node, case .name(let name) = before.step, name.elementsEqual(key) {
                        children.append((value, before, true))
                    } else {
                        children.append((value, Place(parent: node, step: .name(Array(key))), false))
                    }
                }
                pending.append(contentsOf: children.reversed())
            } else if node.isArray {
                for index in stride(from: node.arrayCount - 1, through: 0, by: -1) {
                    if let element = node.storedElement(index) { pending.append((element, Place(parent: node, step: .index(index)), false)) }
                }
            }
        }
        for (node, place) in fresh {
            origins[node] = origin(of: node, at: place, rule: rule, stillThere: newPlaces)
        }
        if recordsChanges {
            if rule > 0 {
                try recordChanges(fresh: fresh, freshNodes: freshNodes, renamed: renamed, order: order, newPlaces: newPlaces)
            }
            lastOrder = order
        }
        places = newPlaces
        nodesAt = newNodesAt
    }

    /// Records what the rule that just ran changed, from the walks before and after it: each
    /// value it made (replaced, added, rebuilt, a member name), each member it renamed, each value
    /// it moved to another container, and each value it removed (the topmost of what went).
    private func recordChanges(
        fresh: [(node: Node, place: Place)], freshNodes: Set<Node>, renamed: [(node: Node, from: [UInt8], to: [UInt8])], order: [Node],
        newPlaces: [Node: Place]
    ) throws(ReshapeError) {
        changeCount = 0
        changeExamples = []
        var changed = Set<Node>()
        var replaced = Set<Node>()
        func note(_ kind: TraceChange.Kind, anchor: Node?, example: () -> TraceChange) throws(ReshapeError) {
            changeCount += 1
            if changeExamples.count < Self.changeExampleCount { changeExamples.append(example()) }
            // The selected value at or above the change, in the document before the rule.
            var current = anchor
            while let node = current {
                try document.charge(1)
                if selectedBefore.contains(node) {
                    changed.insert(node)
                    break
                }
                current = places[node]?.parent
            }
        }
        func noteReplacement(of old: Node, by node: Node, at after: () -> String) throws(ReshapeError) {
            replaced.insert(old)
            // A new value equal to the one it replaced changed nothing.
            if SameValue.holds(old, node) { return }
            try note(.replaced, anchor: old) {
                TraceChange(kind: .replaced, outputPath: after(), inputPath: self.inputPathText(old), before: ValuePreview.text(old), after: ValuePreview.text(node))
            }
        }
        for (node, place) in fresh {
            guard let origin = origins[node], origin.rule == rulesRun else { continue }
            let after = { self.pathText(node, in: newPlaces) }
            switch origin.kind {
            case .replaced:
                if let old = nodesAt[place] { try noteReplacement(of: old, by: node, at: after) }
            case .added where nodesAt[place].map({ newPlaces[$0] == nil }) ?? false:
                // In place of a value a rule had added: a replacement too.
                if let old = nodesAt[place] { try noteReplacement(of: old, by: node, at: after) }
            case .added:
                // A value inside another the rule made is part of that one.
                if place.parent.map({ freshNodes.contains($0) }) ?? false { continue }
                // What it was added to; for a new root (`wrap`), the root before.
                let parent = place.parent.flatMap { places[$0] != nil ? $0 : nil } ?? (place.parent == nil ? nodesAt[place] : nil)
                try note(.added, anchor: parent) {
                    TraceChange(kind: .added, outputPath: after(), inputPath: "", before: "", after: ValuePreview.text(node))
                }
            case .rebuilt:
                guard let from = origin.from else { continue }
                try note(.rebuilt, anchor: from) {
                    TraceChange(kind: .rebuilt, outputPath: after(), inputPath: self.inputPathText(from), before: ValuePreview.text(from), after: ValuePreview.text(node))
                }
            case .memberName:
                guard let owner = origin.from else { continue }
                try note(.memberName, anchor: owner) {
                    var name: [UInt8] = []
                    if case .name(let old)? = self.places[owner]?.step { name = old }
                    return TraceChange(
                        kind: .memberName, outputPath: after(), inputPath: self.inputPathText(owner),
                        before: quoted(String(decoding: name, as: UTF8.self)), after: ValuePreview.text(node))
                }
            case .input:
                break
            }
        }
        for (node, old, new) in renamed where places[node]?.parent == newPlaces[node]?.parent {
            // Renamed in its object (a value that moved to another object under a new name moved).
            try note(.renamed, anchor: node) {
                TraceChange(
                    kind: .renamed, outputPath: self.pathText(node, in: newPlaces), inputPath: self.inputPathText(node),
                    before: quoted(String(decoding: old, as: UTF8.self)), after: quoted(String(decoding: new, as: UTF8.self)))
            }
        }
        for node in order where !freshNodes.contains(node) {
            // Moved to another container that was there before (not one the rule made).
            guard let before = places[node], let now = newPlaces[node], before.parent != now.parent else { continue }
            if let parent = now.parent, freshNodes.contains(parent) { continue }
            try note(.moved, anchor: node) {
                TraceChange(
                    kind: .moved, outputPath: self.pathText(node, in: newPlaces), inputPath: self.inputPathText(node),
                    before: self.pathText(node, in: self.places), after: ValuePreview.text(node))
            }
        }
        for node in lastOrder where newPlaces[node] == nil && !replaced.contains(node) {
            // The topmost of what went: its container is still there.
            guard let before = places[node], let parent = before.parent, newPlaces[parent] != nil else { continue }
            try note(.removed, anchor: node) {
                TraceChange(
                    kind: .removed, outputPath: self.pathText(node, in: self.places), inputPath: self.inputPathText(node),
                    before: ValuePreview.text(node), after: "")
            }
        }
        changedSelected = changed.count
    }

    /// The normalized path of `node` in the walk whose places are `map`.
    private func pathText(_ node: Node, in map: [Node: Place]) -> String {
        var steps: [Step] = []
        var current: Node? = node
        while let at = current, let place = map[at], place.step != .root {
            steps.append(place.step)
            current = place.parent
        }
        return Self.text(of: steps.reversed())
    }

    /// The normalized path in the input of what `node` came from, or "" for a value a rule added.
    private func inputPathText(_ node: Node) -> String {
        guard let source = origins[node]?.inputNode else { return "" }
        return Self.text(of: inputSteps(of: source))
    }

    static func text(of steps: [TraceStep]) -> String {
        var path = NormalizedPath()
        for step in steps {
            switch step {
            case .name(let name): name.withUnsafeBytes { path.append(key: $0) }
            case .index(let index): path.append(index: index)
            case .root: break
            }
        }
        return path.text
    }

    /// Where a node first met after rule `rule` comes from.
    private func origin(of node: Node, at place: Place, rule: Int, stillThere: [Node: Place]) -> Origin {
        guard rule > 0 else { return Origin(kind: .input, inputNode: node) }
        // What stood here before and is gone was replaced (what moved elsewhere was not: `wrap`).
        if let replaced = nodesAt[place], stillThere[replaced] == nil, let before = origins[replaced] {
            // What stood here before: the first source of what it replaced.
            return Origin(kind: before.inputNode == nil ? .added : .replaced, inputNode: before.inputNode, rule: rule)
        }
        // A string holding the name its object (or the object it was rebuilt from) had as a member
        // before the rule, which says it adds such names (`keyedToArray`'s id).
        if case .name(let name) = place.step, let parent = place.parent, let parentOrigin = origins[parent],
            name.withUnsafeBytes({ operations[rule - 1].addsParentNameAsMember($0) }), node.kind == .string
        {
            let owner = parentOrigin.kind == .rebuilt ? parentOrigin.from : parent
            // The name is the input's, or one a rule renamed it to; not one a move gave it (`wrap`).
            if let owner, let before = places[owner], case .name(let ownerName) = before.step,
                node.stringBytes.elementsEqual(ownerName), let ownerOrigin = origins[owner], let source = ownerOrigin.inputNode,
                renames[owner]?.last.map({ Array($0.to.utf8) == ownerName }) ?? (inputPlaces[source]?.step == .name(ownerName))
            {
                return Origin(kind: .memberName, inputNode: source, rule: rule, from: owner)
            }
        }
        if let container = rebuiltContainer(node), let source = origins[container]?.inputNode {
            return Origin(kind: .rebuilt, inputNode: source, rule: rule, from: container)
        }
        return Origin(kind: .added, inputNode: nil, rule: rule)
    }

    /// For a new object whose members met before were all the members of one object (a record
    /// `keyedToArray` makes anew, with an id in front), that object as it was.
    private func rebuiltContainer(_ node: Node) -> Node? {
        guard node.isObject else { return nil }
        var known = 0
        var container: Node? = nil
        var mixed = false
        node.forEachStoredMember { _, value in
            guard let before = places[value] else { return }
            known += 1
            if let parent = before.parent, container == nil || container == parent { container = parent } else { mixed = true }
        }
        // All of its members, but one an op may have overwritten (`onConflict`).
        guard !mixed, let container, container.isObject, known > 0, known + 1 >= container.objectCount,
            let origin = origins[container], origin.kind != .added
        else { return nil }
        return container
    }

    /// jansson's one `null`, `true` and `false`, which many places share.
    private func isShared(_ node: Node) -> Bool {
        node == json_null() || node == json_true() || node == json_false()
    }

    /// A node of its own for the shared `null` or boolean at `place`, put there.
    private func ownNode(replacing shared: Node, at place: Place) throws(ReshapeError) -> Node {
        let own = Make.ownLiteral(like: shared)
        ownSingletons.append(own)
        guard let parent = place.parent else {
            document.replaceRoot(with: own)
            return own
        }
        switch place.step {
        case .root: break
        case .name(let name): try name.withUnsafeBytesTyped { (key) throws(ReshapeError) in _ = try Make.set(parent, key, own) }
        case .index(let index):
            guard json_array_set_new(parent, index, own) == 0 else { throw .outOfMemory() }
        }
        return own
    }
}

/// One change a rule made, as `reshape explain` shows it.
struct TraceChange: Sendable {
    enum Kind: String, Sendable {
        case replaced, added, rebuilt, renamed, removed, moved
        case memberName = "member name"
    }

    let kind: Kind
    /// Where the change is in the document after the rule (for `removed`: where the value was).
    let outputPath: String
    /// The input's path of the value the change is about; "" for `added`.
    let inputPath: String
    /// The value before and after, as JSON text, shortened (`ValuePreview`); for `renamed` the
    /// names, for `moved` the path it had and the value, "" where there is none.
    let before: String
    let after: String
}

/// One step from a container to a value in it.
enum TraceStep: Hashable {
    case root
    case name([UInt8])
    case index(Int)

    /// A name is hashed as the streaming engine hashes names (`RecordNames.hash`): one pass over
    /// its bytes rather than a `Hasher` call per byte; the walks hash every member's step.
    func hash(into hasher: inout Hasher) {
        switch self {
        case .root: hasher.combine(-1)
        case .name(let bytes): hasher.combine(bytes.withUnsafeBytes { RecordNames.hash($0) })
        case .index(let index): hasher.combine(index)
        }
    }
}

/// Where a value lies in JSON text, found by reading along its path.
enum InputLocator {
    /// The byte offset where the value at `steps` starts in `text` (valid JSON), and where its
    /// member name starts when the last step is a name.
    static func offsets(of steps: [TraceStep], in text: UnsafeRawBufferPointer) -> (value: Int, name: Int?) {
        var parser = JSONParser(text: text, allowDuplicateKeys: true, errorCode: .invalidJSON, rawDepth: nil, maxDepth: Int.max)
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipWhitespace()
        var nameOffset: Int? = nil
        var decoded = ByteBuffer()
        for step in steps {
            nameOffset = nil
            switch step {
            case .root: continue
            case .name(let wanted):
                guard parser.index < text.count, text[parser.index] == UInt8(ascii: "{") else { return (parser.index, nil) }
                parser.index += 1
                var found = false
                // Duplicates allowed: the last member of a name is the one kept.
                var match: (name: Int, value: Int)? = nil
                while !found {
                    parser.skipWhitespace()
                    guard parser.index < text.count, text[parser.index] == UInt8(ascii: "\"") else { break }
                    let nameStart = parser.index
                    guard let span = try? parser.scanString() else { break }
                    decoded.removeAll()
                    JSONParser.decodeEscapes(text, span, into: &decoded)
                    let same = decoded.withBytes { $0.elementsEqual(wanted) }
                    parser.skipWhitespace()
                    parser.index += 1  // ':'
                    parser.skipWhitespace()
                    if same { match = (nameStart, parser.index) }
                    guard (try? parser.skipValue()) != nil else { break }
                    parser.skipWhitespace()
                    if parser.index < text.count, text[parser.index] == UInt8(ascii: ",") { parser.index += 1 } else { found = true }
                }
                guard let match else { return (parser.index, nil) }
                parser.index = match.value
                nameOffset = match.name
            case .index(let wanted):
                guard parser.index < text.count, text[parser.index] == UInt8(ascii: "[") else { return (parser.index, nil) }
                parser.index += 1
                for _ in 0..<wanted {
                    parser.skipWhitespace()
                    guard (try? parser.skipValue()) != nil else { return (parser.index, nil) }
                    parser.skipWhitespace()
                    parser.index += 1  // ','
                }
                parser.skipWhitespace()
            }
        }
        return (parser.index, nameOffset)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A thread of its own for tracing. Tracing meets Swift's runtime for the first time on several
/// types (their metadata is made on first use, which takes tens of KiB of stack), and runs after
/// a failure, wherever the caller was: on a 64 KiB thread that may be more than is left. The
/// trace runs on a thread with a stack of `stackBytes`, which the caller waits for.
enum TraceThread {
    static let stackBytes = 4 << 20

    private final class Job {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// `body`'s result, run on a thread of its own; nil when the system gives no thread.
    static func run<R>(_ body: () -> R) -> R? {
        var result: R? = nil
        withoutActuallyEscaping(body) { body in
            let job = Job { result = body() }
            var attributes = pthread_attr_t()
            guard pthread_attr_init(&attributes) == 0 else { return }
            defer { pthread_attr_destroy(&attributes) }
            _ = pthread_attr_setstacksize(&attributes, stackBytes)
            var thread = pthread_t()
            let context = Unmanaged.passRetained(job).toOpaque()
            let started = pthread_create(&thread, &attributes, { context in
                guard let context else { return nil }
                Unmanaged<Job>.fromOpaque(context).takeRetainedValue().body()
                return nil
            }, context)
            guard started == 0 else {
                Unmanaged<Job>.fromOpaque(context).release()
                return
            }
            pthread_join(thread, nil)
        }
        return result
    }
}
