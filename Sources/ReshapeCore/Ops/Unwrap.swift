/// `unwrap`: the document becomes the value at `path`.
///
/// A singular path that does not exist is an error, or `null` when `optional`. A path with a
/// wildcard or `..` yields the array of RFC 9535's nodelist, in its order and with its duplicates
/// (possibly empty).
struct Unwrap: Operation {
    static let name = "unwrap"
    let path: JSONPath
    let optional: Bool

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path")
        optional = try params.bool("optional", default: false)
    }

    /// The values that become the document.
    var selects: JSONPath { path }

    /// Looks at the nodes on the way to the matches; the matches themselves are only moved.
    var rawAccess: RawAccess {
        guard let depth = path.fixedDepth else { return .anyDepth }
        // A singular path's match becomes the root; other matches become elements of a new root.
        return .below(depth, rootShift: path.isSingular ? depth : depth - 1)
    }

    func apply(to document: Document) throws(ReshapeError) {
        if path.isSingular {
            switch try path.resolve(in: document) {
            case .found(let node):
                document.replaceRoot(with: Make.retain(node))
            case .missing(let at, let message):
                guard optional else { throw ReshapeError(.ruleFailed, message, path: at) }
                document.replaceRoot(with: Make.null())
            }
            return
        }
        let selection = try Selection(path, in: document, mode: .nodelist, rawMatches: true)
        defer { selection.recycle() }
        // With `..`, one match can lie inside another or repeat it (RFC 9535 keeps duplicates);
        // copies keep the new tree free of shared nodes, so that later rules editing one match
        // cannot change another. Copies count toward the work and output limits.
        let copies = path.descendantSegmentCount > 0
        let array = try Make.array()
        do throws(ReshapeError) {
            for match in selection.matches {
                let node = selection.node(match)
                try Make.append(array, copies ? try Tree.copy(node, in: document) : Make.retain(node))
            }
        } catch {
            Make.release(array)
            throw error
        }
        document.replaceRoot(with: array)
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFastPath`)

extension Unwrap {
    /// Per record when it unwraps the collection or an object of its envelope by names alone: the
    /// collection then lies that much nearer the root.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        let names = path.leadingNames
        let depth = step.chain.count
        guard path.isSingular else {
            return .wholeDocument("unwrap with a wildcard or '..' collects values across records")
        }
        guard names.count <= depth, step.chain.starts(with: names) else {
            return .wholeDocument("unwraps a value that is not the collection or its envelope")
        }
        guard names.count == path.segments.count else {
            // An index after the names: into the collection itself, or into its envelope.
            return .wholeDocument(
                names.count == depth ? "index into the collection" : "unwraps a value that is not the collection or its envelope")
        }
        step.chain.removeFirst(names.count)
        return .perRecord
    }

    /// The collection may lie at the names it unwraps or below; the rules after it see the
    /// document from there (names only: past an index, nothing after it is followed back).
    func suggestChains(_ candidates: inout RecordPlan.Candidates) -> Bool {
        let names = path.leadingNames
        guard path.isSingular, names.count == path.segments.count else { return false }
        candidates.add(path)
        if names.starts(with: candidates.wraps) {
            candidates.base += names.dropFirst(candidates.wraps.count)
            candidates.wraps = []
        } else if candidates.wraps.starts(with: names) {
            candidates.wraps.removeFirst(names.count)
        } else {
            return false
        }
        return true
    }

    /// Nothing on a record's text: records are moved whole.
    func addToFastPath(_ builder: inout RecordFastPath.Builder, collection before: RecordPlan.Kind, after: RecordPlan.Kind) -> Bool {
        true
    }

    var summary: String { "\(Self.name) \(path.text)" }

    /// Nothing on a record's tokens: records are moved whole.
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker { .unchanged }
}
