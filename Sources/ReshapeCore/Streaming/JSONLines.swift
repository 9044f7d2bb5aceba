/// JSON Lines (https://jsonlines.org), the format data tools load: one JSON document per line.
///
/// In (`ApplyOptions.inputLines`): each line is a document, reshaped on its own, and each result is
/// written on a line of its own. Out (`.outputLines`): the resulting collection, one record per line.
enum JSONLines {
    /// The error for a result that is not a collection of records.
    static func notACollection() -> ReshapeError {
        ReshapeError(
            .invalidArgument,
            "JSON Lines output needs the result to be an array, or an object whose one member is an array")
    }

    /// Writes the records of `root` (borrowed) one per line. The collection may still be raw text
    /// (an array no rule looked into): it is read as a tree.
    static func write(collectionIn root: Node, limits: ResolvedLimits) throws(ReshapeError) -> ByteBuffer {
        let tree = try RawValue.tree(of: root)
        defer { Make.release(tree) }
        var collection = tree
        if tree.isObject {
            guard tree.objectCount == 1, let only = try firstMemberValue(of: tree) else { throw notACollection() }
            collection = only
        }
        guard collection.isArray else { throw notACollection() }
        var out = ByteBuffer(capacity: 1024)
        for index in 0..<collection.arrayCount {
            guard let element = collection.storedElement(index) else { continue }
            _ = try JSONWriter.append(element, to: &out, pretty: false, maxDepth: limits.maxDepth)
            out.append(UInt8(ascii: "\n"))
            if out.count > limits.maxOutputBytes { throw .outputLimit(limits.maxOutputBytes) }
        }
        return out
    }

    /// The value of `object`'s first member, as a tree (borrowed).
    private static func firstMemberValue(of object: Node) throws(ReshapeError) -> Node? {
        var value: Node? = nil
        try object.forEachMember { _, member in if value == nil { value = member } }
        return value
    }

    /// Reshapes each line of `source` and writes the results, one line each (or one line per
    /// record with `.outputLines`), in order; on `settings.jobs` threads for a large input (see
    /// `LineBatch`). Lines are numbered from 1 in errors, blank ones included.
    static func reshape(
        _ source: LineSource, rules: Rules, options: ApplyOptions, settings: StreamSettings, into sink: OutputSink
    ) throws(ReshapeError) {
        let runner = LineRunner(rules: rules, options: options, settings: settings)
        let jobs = settings.resolvedJobs
        let batchBytes = max(1, settings.batchLineBytes)
        var pool: WorkerPool? = nil
        // On failure (or cancellation) the batches still queued are dropped, not reshaped.
        var finished = false
        defer { pool?.shutdown(discardingQueued: !finished) }

        var linesBefore = 0
        func write(_ done: LineBatch) throws(ReshapeError) {
            if done.onFilters > 0 { settings.outcome?("lines on filters") }
            for var skipped in done.skipped {
                skipped.line += linesBefore
                settings.skippedLine?(skipped)
            }
            if var error = done.error {
                error.line += linesBefore
                if let source = error.source, source.line > 0 {
                    error.source?.line = source.line + linesBefore
                }
                throw error
            }
            linesBefore += done.lineCount
            try done.output.withBytes { (bytes) throws(ReshapeError) in try sink.write(bytes) }
            if let progress = settings.progress, !progress(done.inputEnd, source.total) {
                throw .cancelledByProgress
            }
            source.release(below: done.inputEnd)
        }

        var submitted = 0
        var written = 0
        // Written batches, filled again (see `RecordBatch.reuse`).
        var spare: [LineBatch] = []
        func takeNext() throws(ReshapeError) {
            guard let done = pool?.take(written) as? LineBatch else {
                throw ReshapeError(.internal, "a batch of JSON Lines went missing")
            }
            written += 1
            try write(done)
            spare.append(done)
        }
        while true {
            // Whole lines: the batch ends just after the first line break past its size.
            let batch = spare.popLast() ?? LineBatch(sequence: submitted, inputStart: 0, inputEnd: 0)
            guard try source.next(into: batch, as: submitted, bytes: batchBytes) else { break }
            submitted += 1
            if jobs > 1 && pool == nil && submitted == 1 && !source.isAtEnd {
                // More than one batch: this thread is one of the jobs; it cuts the input into
                // batches and reshapes queued ones while it waits for output (`WorkerPool.take`).
                let created = WorkerPool(threads: jobs - 1) { batch in
                    if let lines = batch as? LineBatch { runner.process(lines) }
                }
                if created.threadCount > 0 { pool = created }
            }
            let waited = batch.waited
            if let pool {
                pool.submit(batch)
                while submitted - written >= jobs * 3 || (waited && written < submitted) { try takeNext() }
            } else {
                runner.process(batch)
                written += 1
                try write(batch)
                spare.append(batch)
            }
            // The input waits: what is done goes out now, not when the next lines come.
            if waited { try sink.flush() }
        }
        while written < submitted { try takeNext() }
        finished = true
        try sink.flush()
    }
}
