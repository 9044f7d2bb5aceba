internal import CSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How a streaming `apply` runs: threads, progress, and what to do with invalid JSON Lines.
public struct StreamSettings: Sendable {
    /// Threads that reshape records; 0 means one per core. Output is the same for any number.
    /// At most ``maxJobs`` run: a larger number runs that many.
    public var jobs: Int
    /// The most threads a stream runs. One thread reads the records for all the others, and
    /// keeps more than a few busy on no machine; each thread holds about three batches of half
    /// a megabyte in flight, so the bound also bounds memory.
    public static let maxJobs = 64
    /// Called from the calling thread with the input bytes done and the total, as the work goes
    /// on; returning false cancels the run (`cancelled`).
    public var progress: (@Sendable (_ done: Int, _ total: Int) -> Bool)?
    /// With `ApplyOptions.skipInvalidLines`: called with each skipped line's error (its `line`
    /// is the line number).
    public var skippedLine: (@Sendable (ReshapeError) -> Void)?
    /// Records per batch handed to a thread (tests make it small to cross many batches).
    package var batchRecords = 4096
    /// Input bytes per batch of JSON Lines handed to a thread (tests make it small, as above).
    package var batchLineBytes = 1 << 18
    /// Smaller inputs take the whole tree, which costs less than setting up a stream (tests make
    /// it 0 to stream everything).
    package var minimumStreamBytes = 1 << 16
    /// How much of a regular file is read ahead to find a collection inside an envelope that no
    /// rule's path names (`RecordPlan.deeper`); tests make it small.
    package var envelopeBytesRead = 8 << 20
    /// Bytes a file or a pipe is read in at a time (tests make it a page, to cross many pieces).
    package var inputChunkBytes = InputRegion.defaultChunk
    /// The address space set aside for a pipe's input (tests make it small, to go past it).
    package var pipeReservationBytes = InputRegion.pipeReservation
    /// For tests: told how each run went (`streamed`, `hybrid`, `tree` when nothing was streamed,
    /// `text`, `failed` when the stream named its error itself, `rerun` when the stream's plan
    /// broke, a bug, and the whole tree answered), and `record trees` after `streamed` or `hybrid` when some
    /// record was reshaped on a tree of its own rather than on its text; `envelope found` when a
    /// collection that no rule's path names was found (in memory or a regular file); `batch reshaped again`
    /// when a batch stopped short of a limit it did not pass: on what the other threads spent,
    /// or before a pipe's limits grew).
    package var outcome: (@Sendable (String) -> Void)? = nil
    /// How much a thread spends on a batch between two reports of it to the other threads
    /// (`StreamSpending`; tests make it 1, so that threads stop on what the others spent often).
    package var spendingStep = StreamSpending.defaultStep
    /// For tests: told, for each batch of records reshaped (again, if it is), how many of its
    /// records were reshaped before it ended or stopped at a limit.
    package var recordsReshaped: (@Sendable (Int) -> Void)? = nil
    /// For tests: a stream whose plan broke (an `internal` error) fails with it instead of
    /// quietly giving the whole tree's output.
    package var strict = false
    /// For tests: told, at the end of a run from a file or a descriptor, the most memory the
    /// input held at once (see `InputRegion`).
    package var inputPeak: (@Sendable (Int) -> Void)? = nil

    /// Settings for `jobs` threads, without callbacks.
    public init(
        jobs: Int = 1, progress: (@Sendable (Int, Int) -> Bool)? = nil, skippedLine: (@Sendable (ReshapeError) -> Void)? = nil
    ) {
        self.jobs = jobs
        self.progress = progress
        self.skippedLine = skippedLine
    }

    /// The number of threads to use: `jobs`, or for 0 the number of cores this process may run on
    /// (its CPU affinity, as `nproc` counts them; else the cores online); at most ``maxJobs``.
    /// Asks the system each time: a stream resolves it once, when it starts.
    package var resolvedJobs: Int {
        if jobs > 0 { return min(jobs, Self.maxJobs) }
        let allowed = Int(csystem_allowed_cpu_count())
        let cores = allowed > 0 ? allowed : Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        return min(max(1, cores), Self.maxJobs)
    }
}

extension ReshapeError {
    /// `settings.progress` returned false.
    static var cancelledByProgress: ReshapeError { ReshapeError(.cancelled, "cancelled by the progress callback") }
}
