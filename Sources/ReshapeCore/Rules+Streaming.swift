/// `apply` with output written to a sink as it is made: the record-streaming engine where the
/// rules allow it (see `RecordPlan`), the whole tree otherwise. Both give the same bytes or the same
/// error: when streaming fails, the whole tree runs to name the error exactly.
extension Rules {
    /// Reshapes `input` into `sink` with `settings` (threads, progress); `tryingText: false` when
    /// the caller tried the text route already.
    func reshape(
        _ input: UnsafeRawBufferPointer, options: ApplyOptions, settings: StreamSettings, into sink: OutputSink,
        tryingText: Bool = true
    ) throws(ReshapeError) {
        try options.validate()
        if options.contains(.inputLines) {
            try JSONLines.reshape(LineSource(buffer: input), rules: self, options: options, settings: settings, into: sink)
            return
        }
        if tryingText, try sink.append(using: { reshapeOnText(input, options: options, settings: settings, into: &$0) }) {
            return
        }
        guard !options.contains(.allowDuplicateKeys), plan.streamsAnything, input.count >= settings.minimumStreamBytes else {
            // Progress follows the reading of the input; the rules then run before the last report.
            let output = try reshapeWhole(input, options: options, progress: settings.progress.map { report in { report($0, input.count) } })
            try sink.write(taking: output)
            return
        }
        let stream = RecordStream(rules: self, plan: plan, text: input, options: options, settings: settings, sink: sink)
        do throws(ReshapeError) {
            switch try stream.run() {
            case .tree(let root):
                settings.outcome?("tree")
                let document = Document(root: root, inputBytes: input.count, limits: limits.resolved(inputBytes: input.count))
                let output = try finish(document, range: operations.indices, options: options)
                try sink.write(taking: output)
            case .streamed(nil):
                settings.outcome?("streamed")
                return
            case .streamed(let intermediate?):
                // The rules that need the whole document run on the streamed rules' result.
                settings.outcome?("hybrid")
                let resolved = limits.resolved(inputBytes: input.count)
                let root = try JSONParser.parse(intermediate.buffer.bytes, maxDepth: resolved.maxDepth)
                // The bound goes on from where the stream left it, as it would on the whole tree.
                let document = Document(root: root, inputBytes: input.count, limits: resolved, growth: stream.outputGrowth)
                let route = plan.route(for: stream.kind ?? .array)
                let output = try finish(document, range: route.streamed..<operations.count, options: options)
                try sink.write(taking: output)
            }
        } catch {
            if error.code == .cancelled { throw error }
            // The whole tree names the error exactly (or, for a limit only streaming reached,
            // succeeds: then its output is the answer, if nothing was written yet).
            settings.outcome?("error")
            let output = try reshapeWhole(input, options: options)
            if settings.strict {
                throw ReshapeError(.internal, "streaming failed where the whole tree did not: \(error)")
            }
            if sink.bytesWritten > 0 && !sink.reset() { throw error }
            try sink.write(taking: output)
        }
    }

    /// Appends the output to `out` when the document is small and the text route takes it (see
    /// `TextRoute`); false, with `out` as it was, otherwise. `options` are checked already.
    func reshapeOnText(
        _ input: UnsafeRawBufferPointer, options: ApplyOptions, settings: StreamSettings, into out: inout ByteBuffer
    ) -> Bool {
        guard input.count < settings.minimumStreamBytes, let textRoute,
            options.isDisjoint(with: [.pretty, .allowDuplicateKeys, .inputLines, .outputLines]),
            textRoute.reshape(input, limits: limits.resolved(inputBytes: input.count), into: &out)
        else { return false }
        settings.outcome?("text")
        return true
    }
}
