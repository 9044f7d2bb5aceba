#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A batch of records: reshaped by one thread, written in order by the stream. (`LineBatch`, a
/// run of JSON Lines, is one too, so that both streams share the pool.)
class RecordBatch: @unchecked Sendable {
    private(set) var sequence: Int
    var slices: [RecordSlice] = []
    /// Where the batch's last record ends in the input.
    var inputEnd = 0
    var output = ByteBuffer(capacity: 1 << 16)
    /// The largest output buffer `reuse` keeps: a batch's input is half a megabyte.
    static let keptOutputCapacity = 4 << 20
    /// Records the rules kept.
    var written = 0
    /// Records reshaped on a tree of their own, not on their text (for tests: see
    /// `StreamSettings.outcome`).
    var onTree = 0
    /// Containers in records copied from the text with something done to them
    /// (`RecordFilterChain.containersPassed`; for tests).
    var containersPassed = 0
    /// Copies from the text given back to the filters (`RecordFilterChain.copiesGivenBack`; for
    /// tests).
    var copiesGivenBack = 0
    /// Members of records that went past the filters (`RecordFilterChain.membersPast`; for tests).
    var membersPast = 0
    /// Records copied member by member past the filters (`RecordFilterChain.recordsRouted`; for
    /// tests).
    var recordsRouted = 0
    /// Records whose first members went past the filters, the rest through them
    /// (`RecordFilterChain.recordsHandedOver`; for tests).
    var recordsHandedOver = 0
    /// Members of records some filters were set aside for (`RecordFilterChain.membersNarrowed`;
    /// for tests).
    var membersNarrowed = 0
    /// Objects a filter decided on ahead of their tokens (`TokenArena.readAhead`; for tests).
    var readAhead = 0
    /// Of those, elements that went by as text (`TokenArena.passedAhead`; for tests).
    var passedAhead = 0
    /// Of those, objects decided on their members' text (`TokenArena.comparedAhead`; for tests).
    var comparedAhead = 0
    /// Steps of work the records took (see `Limits.maxWork`), summed over the stream.
    var work = 0
    /// What the rules added to the whole tree's output bound (`Document.grow`) for these records,
    /// or more; summed over the stream.
    var growth = 0
    /// The batch starts with the stream's first record, whose share of the output bound is
    /// counted with the envelope's, not here.
    var startsStream = false
    /// The batch's error, when a record failed: of its records that failed, the one whose error
    /// the whole tree gives first (see `RecordRunner.rank`); or a limit, which ends the batch.
    var error: ReshapeError? = nil
    /// The record `error` is about, when it is one record's, and where it is in `slices`.
    var failed: RecordSlice? = nil
    var failedPosition = 0
    /// The records the rules removed, by their place in `slices` and the rule (1-based) that
    /// removed them: a failing record's index among the records a rule saw depends on them.
    var drops: [(position: Int, rule: Int)] = []
    /// What the stream may still spend on the batch before a limit is sure to be passed when it
    /// is written: each limit less what the batches before it had spent when it was handed over,
    /// which they can only add to (`RecordStream.budget`). `RecordRunner.process` stops the
    /// batch at the first record past it, so that workers stop soon after a limit is passed
    /// rather than where the batch is written; the writer then finds the record that passed it
    /// from `totals` (`RecordStream.checkLimits`), whatever the workers' timing.
    var budget = Amounts.unlimited
    /// The batch's work, growth and output after each record reshaped or failing a rule.
    var totals: [Amounts] = []
    /// `process` stopped at `budget` before the batch's end.
    var stoppedAtBudget = false
    /// What the stream's batches have spent, shared by the threads, and the limits of all of it:
    /// `process` also stops the batch once the stream has passed them. Set when batches are
    /// reshaped on several threads, where the batches before this one may not be written yet.
    var spending: StreamSpending? = nil
    var streamLimits = Amounts.unlimited

    /// Steps of work, growth of the output bound and bytes of output (see `Limits`).
    struct Amounts {
        var work: Int
        var growth: Int
        var output: Int

        static let unlimited = Amounts(work: .max, growth: .max, output: .max)

        /// Whether any of these amounts is larger than `budget`'s.
        func exceeds(_ budget: Amounts) -> Bool {
            work > budget.work || growth > budget.growth || output > budget.output
        }

        /// Whether any of these amounts is at least `step` larger than `earlier`'s.
        func grew(by step: Int, since earlier: Amounts) -> Bool {
            work - earlier.work >= step || growth - earlier.growth >= step || output - earlier.output >= step
        }

        static func - (lhs: Amounts, rhs: Amounts) -> Amounts {
            Amounts(work: lhs.work - rhs.work, growth: lhs.growth - rhs.growth, output: lhs.output - rhs.output)
        }
    }

    init(sequence: Int) {
        self.sequence = sequence
    }

    /// Empties the batch for another turn as batch `sequence`, keeping its buffers' memory: a
    /// stream reuses the few batches it has in flight instead of allocating and faulting in a new
    /// output buffer for every half megabyte of input. An output buffer that a huge record made
    /// huge is let go, so that spare batches hold little.
    func reuse(as sequence: Int) {
        self.sequence = sequence
        slices.removeAll(keepingCapacity: true)
        inputEnd = 0
        if output.capacity > Self.keptOutputCapacity {
            output = ByteBuffer(capacity: 1 << 16)
        } else {
            output.removeAll()
        }
        written = 0
        onTree = 0
        containersPassed = 0
        copiesGivenBack = 0
        membersPast = 0
        recordsRouted = 0
        recordsHandedOver = 0
        membersNarrowed = 0
        readAhead = 0
        passedAhead = 0
        comparedAhead = 0
        work = 0
        growth = 0
        startsStream = false
        error = nil
        failed = nil
        failedPosition = 0
        drops.removeAll(keepingCapacity: true)
        budget = .unlimited
        totals.removeAll(keepingCapacity: true)
        stoppedAtBudget = false
        spending = nil
        streamLimits = .unlimited
    }

    /// Empties what reshaping the batch gave, keeping its records, to reshape them again within
    /// `budget`.
    func restart(budget: Amounts) {
        let (sequence, slices, inputEnd, startsStream) = (self.sequence, self.slices, self.inputEnd, self.startsStream)
        reuse(as: sequence)
        self.slices = slices
        self.inputEnd = inputEnd
        self.startsStream = startsStream
        self.budget = budget
    }
}

/// What a stream's batches have spent so far, in whatever order threads reshaped them. A batch
/// stops once the stream as a whole has passed a limit, rather than only once its own budget
/// says it will (`RecordBatch.spending`); the writer then finds the record that passed it, or,
/// when the batches after this one spent the most, reshapes it again (`RecordStream`).
final class StreamSpending: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var total = RecordBatch.Amounts(work: 0, growth: 0, output: 0)
    /// How much a batch spends between two reports (`add`): a lock taken that rarely costs nothing.
    let step: Int
    static let defaultStep = 1 << 20

    init(step: Int = StreamSpending.defaultStep) {
        self.step = max(1, step)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Adds what a batch spent since it last reported, and returns what all batches spent.
    func add(_ amounts: RecordBatch.Amounts) -> RecordBatch.Amounts {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        total.work = total.work.addingClamped(amounts.work)
        total.growth = total.growth.addingClamped(amounts.growth)
        total.output = total.output.addingClamped(amounts.output)
        return total
    }
}

/// Threads that reshape batches, handing them back by sequence number.
///
/// The stream submits batches in order and takes them back in the same order, so output is written
/// in document order whatever thread finished first. At most a few batches per thread are in flight,
/// which bounds memory.
final class WorkerPool: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let workAvailable = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let workDone = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Submitted batches; a taken one is cleared at once, so that its memory goes with its output.
    private var queue: [RecordBatch?] = []
    private var queueHead = 0
    private var finished: [Int: RecordBatch] = [:]
    private var stopping = false
    private var threads: [pthread_t] = []
    private let work: @Sendable (RecordBatch) -> Void

    /// Starts `count` threads that run `work` on each submitted batch.
    init(threads count: Int, work: @escaping @Sendable (RecordBatch) -> Void) {
        self.work = work
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(workAvailable, nil)
        pthread_cond_init(workDone, nil)
        for _ in 0..<count {
            var thread = pthread_t()
            let context = Unmanaged.passRetained(self).toOpaque()
            let started = pthread_create(&thread, nil, { context in
                guard let context else { return nil }
                let pool = Unmanaged<WorkerPool>.fromOpaque(context).takeRetainedValue()
                pool.loop()
                return nil
            }, context)
            guard started == 0 else {
                // The system has no more threads to give: work with those it gave.
                Unmanaged<WorkerPool>.fromOpaque(context).release()
                break
            }
            threads.append(thread)
        }
    }

    /// How many threads started (0 when the system refused them all; callers then work inline).
    var threadCount: Int { threads.count }

    deinit {
        pthread_cond_destroy(workDone)
        pthread_cond_destroy(workAvailable)
        pthread_mutex_destroy(mutex)
        workDone.deallocate()
        workAvailable.deallocate()
        mutex.deallocate()
    }

    func submit(_ batch: RecordBatch) {
        pthread_mutex_lock(mutex)
        queue.append(batch)
        pthread_cond_signal(workAvailable)
        pthread_mutex_unlock(mutex)
    }

    /// Waits for batch `sequence` and takes it back. While it waits, the calling thread reshapes
    /// queued batches itself, so that a caller waiting for output is one more worker, not an idle
    /// core.
    func take(_ sequence: Int) -> RecordBatch {
        pthread_mutex_lock(mutex)
        while finished[sequence] == nil {
            if let batch = dequeue() {
                run(batch)
                continue
            }
            pthread_cond_wait(workDone, mutex)
        }
        let batch = finished.removeValue(forKey: sequence)
        pthread_mutex_unlock(mutex)
        return batch ?? RecordBatch(sequence: sequence)
    }

    /// Stops the threads once they have finished what is queued, or, `discardingQueued`, what
    /// they have started (the stream failed: the rest is of no use).
    func shutdown(discardingQueued: Bool = false) {
        pthread_mutex_lock(mutex)
        if discardingQueued {
            queue.removeAll()
            queueHead = 0
        }
        stopping = true
        pthread_cond_broadcast(workAvailable)
        pthread_mutex_unlock(mutex)
        for thread in threads { pthread_join(thread, nil) }
        threads = []
    }

    /// The oldest batch not started, if any; called with the mutex held.
    private func dequeue() -> RecordBatch? {
        while queueHead < queue.count {
            let taken = queue[queueHead]
            queue[queueHead] = nil
            queueHead += 1
            if queueHead > 64 && queueHead * 2 > queue.count {
                queue.removeFirst(queueHead)
                queueHead = 0
            }
            if let taken { return taken }
        }
        return nil
    }

    /// Reshapes `batch` with the mutex released and files it as finished; called, and returns,
    /// with the mutex held.
    private func run(_ batch: RecordBatch) {
        pthread_mutex_unlock(mutex)
        work(batch)
        pthread_mutex_lock(mutex)
        finished[batch.sequence] = batch
        pthread_cond_broadcast(workDone)
    }

    private func loop() {
        while true {
            pthread_mutex_lock(mutex)
            while queueHead == queue.count && !stopping { pthread_cond_wait(workAvailable, mutex) }
            guard queueHead < queue.count else {
                pthread_mutex_unlock(mutex)
                return
            }
            if let batch = dequeue() { run(batch) }
            pthread_mutex_unlock(mutex)
        }
    }
}
