#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A small document reshaped by the rules' record filters as one record, each rule's paths
/// starting at its root (`RecordFilterContext.lone`): a JSON Lines line, an API response whose
/// rules the text route (`TextRoute`) does not cover. No tree unless a filter gives up, and then
/// the whole tree decides, errors included. One thread's at a time (see `Pool`).
final class LoneRecord {
    private let chain: RecordFilterChain
    private var parser = JSONParser(
        text: UnsafeRawBufferPointer(start: nil, count: 0), allowDuplicateKeys: false, errorCode: .invalidJSON, rawDepth: nil,
        maxDepth: Limits.defaultMaxDepth)

    init(_ chain: RecordFilterChain) {
        self.chain = chain
    }

    /// Appends the compact output for the document `input` to `out`; false, with `out` as it
    /// was, when the whole tree must decide.
    func reshape(_ input: UnsafeRawBufferPointer, rules: Rules, into out: inout ByteBuffer) -> Bool {
        let limits = rules.limits.resolved(inputBytes: input.count)
        // As the text route: the filters count neither selections nor each rule's steps, so a
        // document that comes near a limit is the tree's.
        guard TextRoute.withinLimits(input.count, limits, ruleCount: rules.count) else { return false }
        // As for a record of an array at the root: one level more than the document needs.
        let depthLeft = limits.maxDepth - 1
        guard depthLeft > 1 else { return false }
        parser.restart(with: input)
        let mark = out.count
        var growth = 0
        var work = 0
        let done =
            chain.run(
                &parser, key: nil, depthLeft: depthLeft, into: &out, outputLimit: mark.addingClamped(limits.maxOutputBytes),
                growth: &growth, work: &work)
            // No rule removes the document itself; should one, the tree says what is left.
            && chain.arena.droppedBy == 0
            // The tree's bounds: its output by the input plus what the rules add, its work by
            // what it counts and the filters' evaluations.
            && input.count.addingClamped(growth).addingClamped(Tree.minimumValueBytes * rules.count) <= limits.maxOutputBytes
            && work.addingClamped(input.count.multipliedClamped(by: 16 * (rules.count + 1))).addingClamped(4096) < limits.maxWork
        if !done { out.truncate(to: mark) }
        return done
    }
}

extension LoneRecord {
    /// The rules' filters for a document that is one record, and the `LoneRecord`s (each with
    /// its thread's chain) idle between calls. The filters are planned at the first `take`, not
    /// when the rules are compiled (a seventh of compiling the rules, used or not).
    final class Pool: @unchecked Sendable {  // `plan` and `idle` are guarded by `mutex`
        private let operations: [any Operation]
        /// Nil until the first `take`; then the plan, or nil inside when some rule has no filter
        /// for a lone record.
        private var plan: RecordFilterPlan?? = nil
        private let mutex: UnsafeMutablePointer<pthread_mutex_t>
        private var idle: [LoneRecord] = []
        /// Kept at most: one per thread that calls at once, within reason.
        private static let kept = 16

        init(operations: [any Operation]) {
            self.operations = operations
            mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
            pthread_mutex_init(mutex, nil)
        }

        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }

        /// An idle record (its thread's chain), or a new one; nil when some rule has no filter for
        /// a lone record (`RecordFilterPlan.makeForLoneRecords`). A caller reshaping many
        /// documents on one thread (a batch of JSON Lines) takes one for all of them, and gives
        /// it back.
        func take() -> LoneRecord? {
            pthread_mutex_lock(mutex)
            if plan == nil { plan = .some(RecordFilterPlan.makeForLoneRecords(operations)) }
            let planned = plan ?? nil
            let taken = planned == nil ? nil : idle.popLast()
            pthread_mutex_unlock(mutex)
            guard let planned else { return nil }
            return taken ?? LoneRecord(planned.makeChain())
        }

        /// Gives `record` back (or lets it go when enough are kept).
        func give(_ record: LoneRecord) {
            pthread_mutex_lock(mutex)
            if idle.count < Self.kept { idle.append(record) }
            pthread_mutex_unlock(mutex)
        }
    }
}
