/// Stands before the filter of a rule whose path takes elements by the array's length (an index
/// or a slice counted from the end, a slice stepping backwards: `$[*].tags[-1]`,
/// `$[*].events[-3:]`), which an array's first token does not tell: an array that the path
/// steps into that way is held until it ends, every array in it is counted (as the filters
/// before the gate left them), and its tokens then go on, each array's first token carrying its
/// count (`RecordToken.countedElements`), so that the rule's cursor takes the elements the tree
/// would. Arrays the path does not step into by length go by as they come.
///
/// What it holds is part of one record, which is in memory whole: the tokens' bytes stay valid
/// until the record ends. Nothing is read ahead, and no work is counted (the path's steps are
/// the rule's filter's, as for any other path).
final class LengthGate: RecordFilter {
    @exclusivity(unchecked) private var cursor: PathCursor
    /// The rule's filter: it is not in the chain's list, so what the chain asks of filters
    /// (`passes`, `skip`) is passed on to it.
    private let next: any RecordFilter
    /// See `RecordFilter.aside`; the filter it wraps is set aside with it.
    @exclusivity(unchecked) var aside = AsideFlag() { didSet { next.aside = aside } }
    /// The array being held, from its first token.
    @exclusivity(unchecked) private var held: [RecordToken] = []
    /// The containers open among the held tokens: whether each is an array, where its first
    /// token is in `held`, and the elements it has had so far.
    @exclusivity(unchecked) private var open: [(isArray: Bool, start: Int, count: Int)] = []

    init(cursor: PathCursor, next: any RecordFilter) {
        self.cursor = cursor
        self.next = next
    }

    var renamesMembers: Bool { next.renamesMembers }

    var passesEveryName: Bool { next.passesEveryName }

    func letsRemovedRecordGo(_ record: UnsafeRawBufferPointer) -> Bool { next.letsRemovedRecordGo(record) }

    func namesMayBeDropped() { next.namesMayBeDropped() }

    func memberWentBy(named hash: UInt64) -> Bool { next.memberWentBy(named: hash) }

    func start(key: UnsafeRawBufferPointer?) -> Bool {
        held.empty()
        open.empty()
        cursor.start(key: key)
        return next.start(key: key)
    }

    /// Whether `token` starts an array whose elements the path takes by its length.
    @inline(__always)
    private func holds(_ token: RecordToken) -> Bool {
        token.kind == .arrayStart && cursor.matcher.counts(cursor.peek())
    }

    func ignores(_ token: RecordToken) -> Bool { held.isEmpty && !holds(token) && next.ignores(token) }

    func passes(_ token: RecordToken, into pass: inout ContainerPass) -> Bool {
        held.isEmpty && !holds(token) && next.passes(token, into: &pass)
    }

    /// A record (an object, which no path counts) goes by member by member as the rule's
    /// filter lets it: the gate sees the members its rule's member needs say.
    func passesMembers(_ token: RecordToken) -> Bool { held.isEmpty && !holds(token) && next.passesMembers(token) }

    func skip(_ token: RecordToken) {
        cursor.skip()
        next.skip(token)
    }

    func take(_ token: RecordToken) -> Bool {
        if aside.isSet { return next.take(token) }
        if held.isEmpty && !holds(token) {
            _ = cursor.take(token)
            return next.take(token)
        }
        if token.startsValue, let top = open.last, top.isArray { open[open.count - 1].count += 1 }
        held.append(token)
        if token.opens {
            open.append((token.kind == .arrayStart, held.count - 1, 0))
        } else if token.closes, let top = open.popLast() {
            if top.isArray { held[top.start] = RecordToken(arrayStart: held[top.start].bytes, elements: top.count) }
            if open.isEmpty { return replay() }
        }
        return true
    }

    /// The held array ended: its tokens go on, counted.
    private func replay() -> Bool {
        defer { held.empty() }
        for token in held {
            _ = cursor.take(token)
            guard next.take(token) else { return false }
        }
        return true
    }
}
