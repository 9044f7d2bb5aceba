/// One streaming run: reads the envelope, hands batches of records to threads, and writes the
/// output in order as it comes: the envelope's text before the collection, the records, the
/// envelope's text after it.
///
/// Errors are the whole tree's, found where they happen: text that cannot be read ends the run
/// at once (the whole tree reads all the text before any rule runs); a record that fails a rule
/// stops the output, and the run reads on to the end without writing, for an error the whole tree
/// would report first (an earlier rule's in a later record, text that cannot be read, or the
/// same rule's in a record its order puts first). A work or output limit ends the run with the
/// stream's own count of it (docs/limits.md).
final class RecordStream {
    /// What a run did.
    enum Outcome {
        /// The output was written to the sink; or, when rules remain for the whole document, to
        /// `intermediate`, compact, for them to run on.
        case streamed(intermediate: BufferSink?)
        /// Nothing was streamed (no collection where the plan expects one, or an empty one);
        /// the whole document was parsed: its tree (owned) is here.
        case tree(Node)
    }

    private let rules: Rules
    private let plan: RecordPlan
    private let input: StreamInput
    /// The limits in force: for a pipe, whose size is known only at its end, those of the input
    /// read so far (see docs/limits.md).
    private var limits: ResolvedLimits
    private let pretty: Bool
    private let lines: Bool
    private let settings: StreamSettings
    /// `settings.resolvedJobs`, asked once: glibc reads it from /sys on every call.
    private let jobs: Int
    private let sink: OutputSink
    private var output: OutputSink
    private var intermediate: BufferSink? = nil

    private var runner: RecordRunner? = nil
    /// A batch failed: its error is the stream's.
    private var batchFailed = false
    /// A record failed a rule: the error the whole tree reports first of those met so far, and
    /// nothing more is written (see `write`).
    private var candidate: ReshapeError? = nil
    /// The record `candidate` is in (a copy: the input is given back as the stream goes); nil
    /// when it is in the envelope.
    private var candidateRecord: RecordCopy? = nil
    /// Records in the batches written so far, and how many of them each rule removed (by the
    /// rule's offset): a failing record's index among the records a rule saw counts on them.
    private var recordsSeen = 0
    /// Records reshaped on a tree of their own rather than on their text (see `RecordFilter`).
    private(set) var recordsOnTree = 0
    /// Containers in records copied from the text with something done to them (for tests).
    private(set) var containersPassed = 0
    /// Copies from the text given back to the filters, whose containers took their tokens after
    /// all (for tests).
    private(set) var copiesGivenBack = 0
    /// Members of records that went past the filters, to the writer alone (for tests).
    private(set) var membersPast = 0
    /// Records copied member by member past the filters (for tests).
    private(set) var recordsRouted = 0
    /// Records whose first members went past the filters, the rest through them (for tests).
    private(set) var recordsHandedOver = 0
    /// Members of records that went through some of the filters, the others set aside (for
    /// tests).
    private(set) var membersNarrowed = 0
    /// Objects a filter decided on ahead of their tokens (for tests).
    private(set) var readAhead = 0
    /// Of those, elements that went by as text (for tests).
    private(set) var passedAhead = 0
    /// Of those, objects decided on their members' text alone (for tests).
    private(set) var comparedAhead = 0
    private var droppedBy: [Int] = []
    /// The first record, kept apart: the envelope is reshaped with it again at the end.
    private var first: RecordCopy? = nil
    private var prefix: [UInt8] = []
    private var collectionIsObject = false
    private var pool: WorkerPool? = nil
    private var batch = RecordBatch(sequence: 0)
    /// Batches written and ready to be filled again (see `RecordBatch.reuse`).
    private var spare: [RecordBatch] = []
    private var batchStart = 0
    private var submitted = 0
    private var written = 0
    private var recordsWritten = 0
    /// Steps of work of the records written so far: the work limit bounds the whole stream, and
    /// the rules left for the whole document go on from it (docs/limits.md).
    private(set) var work = 0
    /// What the streamed rules added to the whole tree's output bound (`Document.grow`), or more:
    /// the envelope's share and the records' so far. The output limit holds the input's size plus
    /// this, as the whole tree holds its bound, not only the bytes written.
    private(set) var outputGrowth = 0
    /// The records of the batch that passed a limit after the record that passed it: not read
    /// yet (see `checkLimits`).
    private var unreadAtLimit: [RecordSlice] = []
    /// What the batches reshaped on other threads spent (see `StreamSpending`).
    private let spending: StreamSpending

    /// Input bytes per batch: enough to make handing a batch over cheap.
    static let batchBytes = 1 << 19

    /// The first batches are smaller (64 KiB, then twice as large each time up to `batchBytes`),
    /// so that the other threads start working while this one is still reading the first half
    /// megabyte, instead of waiting for it.
    private var currentBatchBytes: Int { Self.batchBytes >> max(0, 3 - submitted) }

    init(
        rules: Rules, plan: RecordPlan, input: StreamInput, options: ApplyOptions, settings: StreamSettings,
        sink: OutputSink
    ) {
        self.rules = rules
        self.plan = plan
        self.input = input
        self.limits = rules.limits.resolved(inputBytes: input.knownSize ?? 0)
        self.pretty = options.contains(.pretty)
        self.lines = options.contains(.outputLines)
        self.settings = settings
        self.jobs = settings.resolvedJobs
        self.sink = sink
        self.output = sink
        self.spending = StreamSpending(step: settings.spendingStep)
    }

    /// What the collection turned out to be, once met.
    var kind: RecordPlan.Kind? { runner?.kind }

    func run() throws(ReshapeError) -> Outcome {
        // On failure (or cancellation) the batches still queued are dropped, not reshaped.
        var finished = false
        defer { pool?.shutdown(discardingQueued: !finished) }
        let scan = CollectionScan(chain: plan.inputChain) { [unowned self] (slice) throws(ReshapeError) in
            try self.take(slice)
        }
        let plan = self.plan
        scan.accepts = { plan.streams($0) }
        var parser = input.parser(maxDepth: limits.maxDepth)
        parser.collection = scan
        // A pipe's writer that pauses gets the records read so far written out first.
        input.region?.beforeWaiting = { [unowned self] () throws(ReshapeError) in try self.writeBeforeWaiting() }
        defer { input.region?.beforeWaiting = nil }
        // Until the collection is met (if ever): then its batches report, as they are written.
        parser.progress = settings.progress.map { [total = input.knownSize ?? 0] report in { report($0, total) } }
        currentScan = scan
        let root: Node
        do throws(ReshapeError) {
            root = try parser.parseDocument()
        } catch {
            throw errorAfterEarlierRecords(error)
        }
        if !batch.slices.isEmpty {
            do throws(ReshapeError) {
                try submit()
            } catch {
                Make.release(root)
                throw error
            }
        }
        guard let runner, let first else {
            finished = true
            return .tree(root)
        }
        defer { Make.release(root) }
        while written < submitted { try write(next()) }
        if let candidate {
            // The envelope's members after the collection meet the rules too.
            if let candidateRecord {
                if let error = runner.envelopeError(over: candidate, of: candidateRecord, envelope: root) { throw error }
            } else {
                do throws(ReshapeError) {
                    _ = try runner.envelopeOutput(root, first: first)
                } catch {
                    if RecordRunner.rank(error) != nil { throw error }
                }
            }
            throw candidate
        }
        let envelope = try runner.envelopeOutput(root, first: first)
        guard envelope.before == prefix else {
            throw ReshapeError(.internal, "the streaming plan did not hold for this document's envelope")
        }
        if runner.lines {
            if runner.route.outputChain.count == 1 && envelope.rootMembers != 1 { throw JSONLines.notACollection() }
        } else {
            if recordsWritten > 0 && runner.pretty {
                try output.write([UInt8(ascii: "\n")] + [UInt8](repeating: UInt8(ascii: " "), count: (runner.outputDepth - 1) * 2))
            }
            try output.write([UInt8(ascii: collectionIsObject ? "}" : "]")] + envelope.after)
        }
        try output.flush()
        finished = true
        return .streamed(intermediate: intermediate)
    }

    /// The first record starts the output: the envelope before the collection, and its opener.
    private func start(with slice: RecordSlice, kind: RecordPlan.Kind, envelope: Node) throws(ReshapeError) {
        let route = plan.route(for: kind)
        let hybrid = route.streamed < rules.operations.count
        if hybrid {
            let size = input.knownSize ?? (1 << 20)
            let buffer = BufferSink(capacity: size + size / 8 + 64)
            intermediate = buffer
            output = buffer
        }
        let streamLines = lines && !hybrid
        let runner = RecordRunner(
            rules: rules, plan: plan, kind: kind, text: input.wholeRange, inputBytes: input.knownSize ?? 0, limits: limits,
            pretty: pretty && !hybrid, lines: streamLines)
        let first = RecordCopy(slice, in: input.wholeRange, borrowing: input.region == nil)
        let head: (before: [UInt8], after: [UInt8], isObject: Bool, rootMembers: Int, growth: Int)
        do throws(ReshapeError) {
            head = try runner.envelopeOutput(envelope, first: first)
        } catch {
            let moved = documentError(error, of: slice, runner: runner, keptBefore: 0)
            // A rule that fails on the envelope or the first record: a later record may fail an
            // earlier rule, which the whole tree reports first; the records are read on.
            guard let rank = RecordRunner.rank(error), rank > 0 else { throw moved }
            candidate = moved
            candidateRecord = runner.isIn(first, at: 0, error: error, beforeRule: rank - 1) ? first : nil
            self.runner = runner
            self.first = first
            return
        }
        try addGrowth(head.growth)
        if streamLines && (route.outputChain.count > 1 || route.outputKind != .array) { throw JSONLines.notACollection() }
        self.runner = runner
        self.first = first
        prefix = head.before
        collectionIsObject = head.isObject
        if !streamLines { try output.write(head.before + [UInt8(ascii: head.isObject ? "{" : "[")]) }
    }

    private func take(_ slice: RecordSlice) throws(ReshapeError) {
        if batch.slices.isEmpty {
            batchStart = slice.start
        }
        batch.slices.append(slice)
        batch.inputEnd = slice.end
        if batch.slices.count >= settings.batchRecords || slice.end - batchStart >= currentBatchBytes { try submit() }
    }

    /// Hands the current batch over (or reshapes it here with one job), then writes what is done.
    private func submit() throws(ReshapeError) {
        if runner == nil, let slice = batch.slices.first, let kind = scanKind, let envelope = scanRoot {
            try start(with: slice, kind: kind, envelope: envelope)
            batch.startsStream = true
        }
        guard let runner else { return }
        let current = batch
        current.budget = budget()
        submitted += 1
        batch = spare.popLast() ?? RecordBatch(sequence: submitted)
        batch.reuse(as: submitted)
        batchStart = current.inputEnd
        if jobs > 1 && pool == nil {
            // This thread is one of the jobs: it reads the records, and reshapes queued batches
            // while it waits for output (see `WorkerPool.take`).
            let reshaped = settings.recordsReshaped
            let created = WorkerPool(threads: jobs - 1) { batch in
                runner.process(batch)
                reshaped?(batch.totals.count)
            }
            if created.threadCount > 0 { pool = created }
        }
        guard let pool else {
            runner.process(current)
            settings.recordsReshaped?(current.totals.count)
            try write(current)
            spare.append(current)
            return
        }
        current.spending = spending
        current.streamLimits = streamLimits()
        pool.submit(current)
        while submitted - written >= jobs * 3 {
            let done = next()
            try write(done)
            spare.append(done)
        }
    }

    /// The error to report when reading the document failed with `error`: the first record
    /// before that point whose own text cannot be read, if one cannot (it comes first in the
    /// document, and the whole tree stops at the first text it cannot read, before any rule
    /// runs), else `error`. A batch's own failure, on its way out through the parser, is already
    /// the stream's error.
    private func errorAfterEarlierRecords(_ error: ReshapeError) -> ReshapeError {
        guard !batchFailed, error.code != .cancelled, error.code != .ioError, let scan = currentScan, let kind = scan.kind
        else { return error }
        // The batches in flight, in order (their output is not written: the run fails). A batch
        // reads all its records' text unless a limit or its budget ended it: then the rest is
        // read here.
        var unchecked = unreadAtLimit
        while written < submitted {
            let done = next()
            written += 1
            if done.stoppedAtBudget { unchecked += done.slices[done.totals.count...] }
            guard let batchError = done.error else { continue }
            if let failed = done.failed, let runner, RecordRunner.rank(batchError) == 0 {
                return firstUnreadable(unchecked, kind: kind, scan: scan)
                    ?? documentError(batchError, of: failed, runner: runner)
            }
            if RecordRunner.rank(batchError) == nil {
                unchecked += done.failed == nil ? done.slices[...] : done.slices[done.failedPosition...]
            }
        }
        return firstUnreadable(unchecked + batch.slices, kind: kind, scan: scan) ?? error
    }

    /// The error of the first of `slices` whose text cannot be read, where the whole tree gives it.
    private func firstUnreadable(_ slices: [RecordSlice], kind: RecordPlan.Kind, scan: CollectionScan) -> ReshapeError? {
        let maxDepth = limits.maxDepth - (plan.inputChain.count + 1)
        for slice in slices {
            let value = UnsafeRawBufferPointer(rebasing: input.wholeRange[slice.start..<slice.end])
            do throws(ReshapeError) {
                guard maxDepth > 0 else { throw ReshapeError.depthLimit(limits.maxDepth) }
                Make.release(try JSONParser.parseRecord(value, rawDepth: nil, maxDepth: maxDepth))
            } catch let recordError {
                guard recordError.line > 0 else { return nil }
                return place(of: slice, kind: kind, in: scan).documentError(recordError, maxDepth: limits.maxDepth)
            }
        }
        return nil
    }

    /// Where `slice` lies in the document (see `RecordPlace`).
    private func place(of slice: RecordSlice, kind: RecordPlan.Kind, in scan: CollectionScan) -> RecordPlace {
        var path = NormalizedPath()
        if kind == .object {
            let raw = UnsafeRawBufferPointer(rebasing: input.wholeRange[slice.keyStart..<slice.keyEnd])
            var decoded = ByteBuffer(capacity: raw.count)
            JSONParser.decodeEscapes(raw, JSONParser.StringSpan(start: 0, end: raw.count, hasEscapes: slice.keyHasEscapes), into: &decoded)
            decoded.withBytes { path.append(key: String(jsonBytes: $0)) }
        } else {
            path.append(index: slice.ordinal)
        }
        let position = position(of: slice.start)
        return RecordPlace(
            start: slice.start, line: position.line, column: position.column, path: scan.path + path.text.dropFirst())
    }

    /// The line and column of `offset` in the input. Records are placed in their order, so each
    /// place is counted on from the one before: every record failing a rule costs its own bytes,
    /// not the input's up to it.
    private func position(of offset: Int) -> TextPosition {
        let position = input.position(of: offset, after: lastPosition)
        if position.line > 0 { lastPosition = position }
        return position
    }

    /// Hands over the records read so far and writes everything done, before a read waits.
    private func writeBeforeWaiting() throws(ReshapeError) {
        if !batch.slices.isEmpty { try submit() }
        guard runner != nil else { return }
        while written < submitted {
            let done = next()
            try write(done)
            spare.append(done)
        }
        try output.flush()
    }

    private func next() -> RecordBatch {
        pool?.take(written) ?? batch
    }

    /// Writes a finished batch; the first record written loses its leading comma.
    private func write(_ done: RecordBatch) throws(ReshapeError) {
        written += 1
        try checkLimits(of: done)
        if let error = done.error {
            guard let failed = done.failed, let runner, let rank = RecordRunner.rank(error) else {
                batchFailed = true
                throw error
            }
            let moved = documentError(
                error, of: failed, runner: runner, keptBefore: keptBefore(done.failedPosition, in: done, rule: error.rule))
            if rank == 0 {
                batchFailed = true
                throw moved
            }
            let record = RecordCopy(failed, in: input.wholeRange, borrowing: input.region == nil)
            if let candidate,
                !runner.reportsLater(moved, of: record, over: candidate, of: candidateRecord, envelope: scanRoot)
            {
                // The error met first stands.
            } else {
                candidate = moved
                candidateRecord = record
            }
        }
        recordsSeen += done.slices.count
        recordsOnTree += done.onTree
        containersPassed += done.containersPassed
        copiesGivenBack += done.copiesGivenBack
        membersPast += done.membersPast
        recordsRouted += done.recordsRouted
        recordsHandedOver += done.recordsHandedOver
        membersNarrowed += done.membersNarrowed
        readAhead += done.readAhead
        passedAhead += done.passedAhead
        comparedAhead += done.comparedAhead
        for drop in done.drops {
            if droppedBy.count < drop.rule { droppedBy += [Int](repeating: 0, count: drop.rule - droppedBy.count) }
            droppedBy[drop.rule - 1] += 1
        }
        // Counted while records are read on for an error that comes first, too: the limits
        // bound the whole stream.
        work = work.addingClamped(done.work)
        if work > limits.maxWork { throw .workLimit(limits.maxWork) }
        try addGrowth(done.growth)
        if candidate != nil {
            // Nothing more is written: the records are read on for an error that comes first.
            try reportProgress(done)
            return
        }
        if done.written > 0 {
            let bytes = done.output.bytes
            let skip = recordsWritten == 0 && !(lines && intermediate == nil) ? 1 : 0
            try output.write(UnsafeRawBufferPointer(rebasing: bytes[skip...]))
            recordsWritten += done.written
            // The output limit counts the whole output, as the whole tree's writer does.
            if output.bytesWritten > limits.maxOutputBytes { throw .outputLimit(limits.maxOutputBytes) }
        }
        try reportProgress(done)
    }

    /// The input's size, or what was read of it so far (a pipe's).
    private var inputBytes: Int { input.knownSize ?? input.bytesRead }

    /// The limits of what all the stream's records spend (`RecordBatch.streamLimits`).
    private func streamLimits() -> RecordBatch.Amounts {
        return RecordBatch.Amounts(
            work: limits.maxWork, growth: limits.maxOutputBytes - inputBytes, output: limits.maxOutputBytes.addingClamped(1))
    }

    /// What a batch handed over now may spend before a limit is passed (`RecordBatch.budget`):
    /// exact when the batch is written next, a lower bound of it before.
    private func budget() -> RecordBatch.Amounts {
        // The stream's first record loses its leading comma.
        let skip = recordsWritten == 0 && !(lines && intermediate == nil) ? 1 : 0
        return RecordBatch.Amounts(
            work: limits.maxWork - work,
            growth: limits.maxOutputBytes - inputBytes.addingClamped(outputGrowth),
            output: (limits.maxOutputBytes - output.bytesWritten).addingClamped(skip))
    }

    /// Stops the stream at the first record of `done` whose work or output passes a limit, the
    /// records before it counted: the same record whether or not a worker stopped the batch
    /// there (`RecordBatch.budget`). A batch stopped short of its end that passes no limit now
    /// (it stopped on what the other threads spent, or a pipe's limits grew with the input read
    /// since it was handed over) is reshaped again within the limits as they are.
    private func checkLimits(of done: RecordBatch) throws(ReshapeError) {
        try stopAtLimitPassed(in: done)
        guard done.stoppedAtBudget, let runner else { return }
        settings.outcome?("batch reshaped again")
        done.restart(budget: budget())
        runner.process(done)
        settings.recordsReshaped?(done.totals.count)
        try stopAtLimitPassed(in: done)
        if done.stoppedAtBudget {
            throw ReshapeError(.internal, "a batch of records stopped short of a limit it did not pass")
        }
    }

    /// Throws the limit the first record of `done` to pass one passes, if one does; the records
    /// after it are then read for text that cannot be read, which comes first
    /// (`errorAfterEarlierRecords`).
    private func stopAtLimitPassed(in done: RecordBatch) throws(ReshapeError) {
        let budget = budget()
        guard let last = done.totals.last, last.exceeds(budget),
            let first = done.totals.first(where: { $0.exceeds(budget) })
        else { return }
        unreadAtLimit = Array(done.slices[done.totals.count...])
        throw first.work > budget.work ? .workLimit(limits.maxWork) : .outputLimit(limits.maxOutputBytes)
    }

    /// Reports progress up to the end of `done`, whose input is then given back.
    private func reportProgress(_ done: RecordBatch) throws(ReshapeError) {
        if let progress = settings.progress, !progress(done.inputEnd, input.knownSize ?? 0) {
            throw .cancelledByProgress
        }
        if !keepsInput { input.release(below: done.inputEnd) }
        if input.knownSize == nil { limits = rules.limits.resolved(inputBytes: input.bytesRead) }
    }

    /// A pipe's text is kept when rules are left for the streamed rules' result, which holds the
    /// whole output as a tree anyway: a failure in those rules is traced to it (a file is read
    /// again, memory holds it already).
    private var keepsInput: Bool {
        guard let region = input.region, !region.canReread, let kind = runner?.kind else { return false }
        return plan.route(for: kind).streamed < rules.count
    }

    /// The records before the one at `position` in `done` that rule `rule` (1-based) sees: all
    /// the records before it, less those a rule before `rule` removed.
    private func keptBefore(_ position: Int, in done: RecordBatch, rule: Int) -> Int {
        var kept = recordsSeen + position
        for offset in 0..<min(max(0, rule - 1), droppedBy.count) { kept -= droppedBy[offset] }
        for drop in done.drops where drop.position < position && drop.rule < rule { kept -= 1 }
        return kept
    }

    /// A record's error where the whole tree would give it: text that cannot be read, moved from
    /// the record's own place to the document's (see `RecordPlace`).
    private func documentError(
        _ error: ReshapeError, of record: RecordSlice, runner: RecordRunner, keptBefore: Int = 0
    ) -> ReshapeError {
        if error.rule > 0 && error.line == 0 {
            return ruleError(error, of: record, runner: runner, keptBefore: keptBefore)
        }
        guard error.line > 0, let scan = currentScan else { return error }
        return place(of: record, kind: runner.kind, in: scan).documentError(error, maxDepth: limits.maxDepth)
    }

    /// A rule's error on one record, where the whole tree would name it: the record is the first
    /// element of its collection when the rule runs on it alone, and the element it is among all
    /// the records (less those the rules before removed) when the rule runs on the whole document.
    private func ruleError(_ error: ReshapeError, of record: RecordSlice, runner: RecordRunner, keptBefore: Int) -> ReshapeError {
        var error = error
        // A rule that ran on the record: traced on the record alone, found or not (the input is
        // not traced again as a whole tree); one that ran on the whole document is traced later.
        if error.rule > 0 && error.rule <= runner.route.streamed { error.setTraced(source(of: error, in: record, runner: runner)) }
        let before = plan.collection(beforeRule: error.rule - 1, in: rules.operations, kind: runner.kind)
        guard before.kind == .array else { return error }
        var collection = NormalizedPath()
        for name in before.chain { collection.append(key: String(decoding: name, as: UTF8.self)) }
        let alone = collection.text + "[0]"
        guard error.path.hasPrefix(alone) else { return error }
        let rest = error.path.dropFirst(alone.count)
        guard rest.isEmpty || rest.hasPrefix("[") else { return error }
        var moved = error
        moved.path = collection.text + "[\(before.mayDropRecords ? keptBefore : record.ordinal)]" + rest
        return moved
    }

    /// Where the value a rule failed on in one record was in the input (`ReshapeError.source`):
    /// the record is traced on its own (see `SourceTracer`), inside the names of its envelope as
    /// the record's own document has them, and the place found is moved to the record's place in
    /// the input. Nil for a rule that ran on the whole document, or a value outside the record.
    /// Out of line: it is not on the way of records, whose frames a 64 KiB thread counts.
    @inline(never)
    private func source(of error: ReshapeError, in record: RecordSlice, runner: RecordRunner) -> ValueSource? {
        guard error.rule > 0, error.rule <= runner.route.streamed, !error.path.isEmpty, let scan = currentScan else { return nil }
        let value = UnsafeRawBufferPointer(rebasing: input.wholeRange[record.start..<record.end])
        var text = ByteBuffer(capacity: value.count + 64)
        var recordPath = NormalizedPath()
        for name in runner.chain {
            text.append(UInt8(ascii: "{"))
            name.withUnsafeBytes { JSONText.appendQuoted($0, to: &text) }
            text.append(UInt8(ascii: ":"))
            recordPath.append(key: String(decoding: name, as: UTF8.self))
        }
        if runner.kind == .object {
            let key = UnsafeRawBufferPointer(rebasing: input.wholeRange[record.keyStart..<record.keyEnd])
            var decoded = ByteBuffer(capacity: key.count)
            JSONParser.decodeEscapes(key, JSONParser.StringSpan(start: 0, end: key.count, hasEscapes: record.keyHasEscapes), into: &decoded)
            decoded.withBytes { recordPath.append(key: String(jsonBytes: $0)) }
            text.append(UInt8(ascii: "{"))
            text.append(UInt8(ascii: "\""))
            text.append(key)
            text.append(UInt8(ascii: "\""))
            text.append(UInt8(ascii: ":"))
        } else {
            recordPath.append(index: 0)
            text.append(UInt8(ascii: "["))
        }
        let offset = text.count
        text.append(value)
        text.append(UInt8(ascii: runner.kind == .object ? "}" : "]"))
        for _ in runner.chain { text.append(UInt8(ascii: "}")) }
        let options: ApplyOptions = []
        let rules = rules
        // A record over 64 MiB is traced by where its values start (see `Rules.sourceOfFailure`).
        guard var source = text.withBytes({ rules.sourceOfFailure(error, in: $0, options: options) }) else { return nil }
        guard source.origin != .added else { return source }
        guard source.path.hasPrefix(recordPath.text) else { return nil }
        let place = place(of: record, kind: runner.kind, in: scan)
        source.path = place.path + source.path.dropFirst(recordPath.text.count)
        let inRecord = source.position - offset
        if inRecord >= 0 {
            let within = TextPosition(of: inRecord, in: value)
            source.position = record.start + inRecord
            source.line = place.line + within.line - 1
            source.column = within.line == 1 ? place.column + within.column - 1 : within.column
        } else if runner.kind == .object {
            // The record's own member name (`keyedToArray`'s id): its opening quote.
            let position = position(of: record.keyStart - 1)
            (source.position, source.line, source.column) = (record.keyStart - 1, position.line, position.column)
        } else {
            return nil
        }
        return source
    }

    /// Counts `growth` toward the output bound; past the output limit, the stream stops.
    private func addGrowth(_ growth: Int) throws(ReshapeError) {
        outputGrowth = outputGrowth.addingClamped(growth)
        if inputBytes.addingClamped(outputGrowth) > limits.maxOutputBytes { throw .outputLimit(limits.maxOutputBytes) }
    }

    // The collection as the parser met it, for `start`.
    private var scanKind: RecordPlan.Kind? { currentScan?.kind }
    private var scanRoot: Node? { currentScan?.root }
    private weak var currentScan: CollectionScan? = nil
    /// The last place counted (`position(of:)`).
    private var lastPosition: TextPosition? = nil
}
