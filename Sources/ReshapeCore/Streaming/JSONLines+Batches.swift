/// JSON Lines in, on several threads: the input is cut into runs of whole lines, each run is
/// reshaped by one thread, and the runs are written in order, so the output, the lines skipped
/// and the first error are those of reading the lines one by one.

/// A run of whole lines of the input, and what reshaping them gave.
final class LineBatch: RecordBatch, @unchecked Sendable {
    /// Where the run's first line starts in the input (`inputEnd` is where its last one ends).
    private(set) var inputStart: Int
    /// Lines in the run, blank ones included: the writer numbers lines across runs with it.
    var lineCount = 0
    /// Invalid lines skipped (with `skipInvalidLines`), numbered within the run.
    var skipped: [ReshapeError] = []
    /// The run's text, where the input lies (in memory, or in the region it is read into, which
    /// keeps it until the run is written; see `LineSource`).
    var text = UnsafeRawBufferPointer(start: nil, count: 0)
    /// What keeps `text`'s memory: the region it points into, while the run is in flight.
    var textOwner: AnyObject? = nil
    /// The run ended where a pipe had nothing more to give for now: its output, and all before
    /// it, should go out before the next read waits (see `LineSource`).
    var waited = false
    /// Lines reshaped by the record filters (for tests: see `StreamSettings.outcome`).
    var onFilters = 0

    init(sequence: Int, inputStart: Int, inputEnd: Int) {
        self.inputStart = inputStart
        super.init(sequence: sequence)
        self.inputEnd = inputEnd
    }

    /// Empties the batch for the lines `inputStart..<inputEnd`, keeping its memory (see
    /// `RecordBatch.reuse`).
    func reuse(as sequence: Int, inputStart: Int, inputEnd: Int) {
        reuse(as: sequence)
        self.inputStart = inputStart
        self.inputEnd = inputEnd
        lineCount = 0
        skipped.removeAll()
        waited = false
        onFilters = 0
        text = UnsafeRawBufferPointer(start: nil, count: 0)
        textOwner = nil
    }
}

/// Reshapes the lines of a `LineBatch`; shared by the threads of one run, read only.
final class LineRunner: @unchecked Sendable {
    private let rules: Rules
    /// The options of each line's document: JSON Lines in is the runner's business, not the line's.
    private let lineOptions: ApplyOptions
    private let skipInvalid: Bool
    private let lineSettings: StreamSettings

    init(rules: Rules, options: ApplyOptions, settings: StreamSettings) {
        self.rules = rules
        self.lineOptions = options.subtracting([.inputLines, .skipInvalidLines])
        self.skipInvalid = options.contains(.skipInvalidLines)
        // Each line is a small document of its own: the text route takes it when the rules allow
        // (the same bytes as the tree, which settles everything else). No test hooks per line.
        var lineSettings = StreamSettings()
        lineSettings.minimumStreamBytes = settings.minimumStreamBytes
        self.lineSettings = lineSettings
    }

    /// Reshapes the batch's lines in order, stopping at the first that fails (with its error,
    /// numbered within the batch).
    func process(_ batch: LineBatch) {
        let input = batch.text
        var start = 0
        let end = input.count
        let writesLines = !lineOptions.contains(.outputLines)
        // One record for the filters for the whole batch: taking one from the rules' pool for
        // each line would have the threads meet at its lock a line at a time.
        let lone = rules.loneRecords.take()
        defer { if let lone { rules.loneRecords.give(lone) } }
        while start < end {
            batch.lineCount += 1
            var stop = start
            while stop < end, input[stop] != UInt8(ascii: "\n") { stop += 1 }
            let line = UnsafeRawBufferPointer(rebasing: input[start..<stop])
            let lineStart = batch.inputStart + start
            start = stop + 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            if let route = rules.reshapeOnText(line, options: lineOptions, settings: lineSettings, into: &batch.output, lone: lone) {
                if route == .filters { batch.onFilters += 1 }
                batch.output.append(UInt8(ascii: "\n"))
                continue
            }
            do throws(ReshapeError) {
                let result = try rules.reshapeWhole(line, options: lineOptions)
                result.withBytes { batch.output.append($0) }
                if writesLines { batch.output.append(UInt8(ascii: "\n")) }
            } catch {
                var located = error
                if located.line > 0 {
                    located.position += lineStart
                } else {
                    located.column = 0
                }
                located.line = batch.lineCount
                if error.code == .ruleFailed, var source = rules.sourceOfFailure(error, in: line, options: lineOptions)
                {
                    // Traced in the line alone: its place in the input is the line's.
                    if source.line > 0 {
                        source.line = batch.lineCount
                        source.position += lineStart
                    }
                    located.source = source
                }
                if error.code == .invalidJSON && skipInvalid {
                    batch.skipped.append(located)
                    continue
                }
                batch.error = located
                return
            }
        }
    }
}
