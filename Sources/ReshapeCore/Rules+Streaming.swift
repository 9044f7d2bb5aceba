/// `apply` with output written to a sink as it is made: the record-streaming engine where the
/// rules allow it (see `RecordPlan`), the whole tree otherwise. Both give the same bytes or the same
/// error: the stream finds the whole tree's error itself, but for a limit it counts differently,
/// which the whole tree names again where the input can be read again (in memory, a regular file).
extension Rules {
    /// Reshapes `input` into `sink` with `settings` (threads, progress); `tryingText: false` when
    /// the caller tried the text route already. A rule's failure gets the source of its value
    /// (`ReshapeError.source`), traced from `input` once it happened.
    func reshape(
        _ input: UnsafeRawBufferPointer, options: ApplyOptions, settings: StreamSettings, into sink: OutputSink,
        tryingText: Bool = true
    ) throws(ReshapeError) {
        do throws(ReshapeError) {
            try reshapeUntraced(input, options: options, settings: settings, into: sink, tryingText: tryingText)
        } catch {
            throw traced(error, in: input, options: options)
        }
    }

    private func reshapeUntraced(
        _ input: UnsafeRawBufferPointer, options: ApplyOptions, settings: StreamSettings, into sink: OutputSink,
        tryingText: Bool
    ) throws(ReshapeError) {
        try options.validate()
        if options.contains(.inputLines) {
            try JSONLines.reshape(LineSource(buffer: input), rules: self, options: options, settings: settings, into: sink)
            return
        }
        if tryingText, try sink.append(using: { reshapeOnText(input, options: options, settings: settings, into: &$0) != nil }) {
            return
        }
        guard !options.contains(.allowDuplicateKeys), plan.streamsAnything, input.count >= settings.minimumStreamBytes else {
            // Progress follows the reading of the input; the rules then run before the last report.
            let output = try reshapeWhole(input, options: options, progress: settings.progress.map { report in { report($0, input.count) } })
            try sink.write(taking: output)
            return
        }
        try stream(.memory(input), options: options, settings: settings, into: sink)
    }

    /// Reshapes what `region` reads into `sink`, reading it as the work goes: a small input whole
    /// first, as if it were in memory; a large one record by record where the rules allow, else
    /// into the whole tree, giving its text back as the tree is built.
    /// - Returns: the bytes of input read.
    @discardableResult
    func reshape(
        _ region: InputRegion, options: ApplyOptions, settings: StreamSettings, into sink: OutputSink
    ) throws(ReshapeError) -> Int {
        try options.validate()
        if options.contains(.inputLines) {
            let source = LineSource(region: region)
            try JSONLines.reshape(source, rules: self, options: options, settings: settings, into: sink)
            return source.inputOffset
        }
        defer { settings.inputPeak?(region.peakHeld) }
        // A pipe that has nothing more for now goes on being read as the work goes.
        try region.readWithoutWaiting(upTo: settings.minimumStreamBytes)
        if region.isAtEnd && region.filled < settings.minimumStreamBytes {
            // All of it is here, and stays: the routes of input in memory apply, errors included.
            try reshape(region.text, options: options, settings: settings, into: sink)
            return region.filled
        }
        let total = region.knownSize ?? 0
        guard !options.contains(.allowDuplicateKeys), plan.streamsAnything else {
            let output = try reshapeWhole(region, options: options, progress: settings.progress.map { report in { report($0, total) } })
            try sink.write(taking: output)
            return region.filled
        }
        try stream(.region(region), options: options, settings: settings, into: sink)
        return region.filled
    }

    /// Streams `input` record by record into `sink` (see `RecordStream`), the rules that need the
    /// whole document running on the streamed rules' result.
    private func stream(
        _ input: StreamInput, options: ApplyOptions, settings: StreamSettings, into sink: OutputSink
    ) throws(ReshapeError) {
        // A collection inside an envelope that no rule's path names is found here; not one so deep
        // that its records would have no depth left under the depth limit (the whole document's
        // records then say where the limit is passed, as the tree does).
        var plan = self.plan
        if let deeper = plan.deeper(in: input, operations: operations, readAhead: settings.envelopeBytesRead),
            deeper.inputChain.count + 2 < limits.maxDepth
        {
            plan = deeper
            settings.outcome?("envelope found")
        }
        // A collection the rules' paths place at the depth limit leaves its records no depth: the
        // whole tree reads the document, and names where the limit is passed.
        if plan.inputChain.count + 1 >= limits.maxDepth {
            let output: ByteBuffer
            switch input {
            case .memory(let bytes): output = try reshapeWhole(bytes, options: options)
            case .region(let region): output = try reshapeWhole(region, options: options)
            }
            settings.outcome?("tree")
            try sink.write(taking: output)
            return
        }
        let stream = RecordStream(rules: self, plan: plan, input: input, options: options, settings: settings, sink: sink)
        do throws(ReshapeError) {
            switch try stream.run() {
            case .tree(let root):
                settings.outcome?("tree")
                let bytes = input.bytesRead
                let document = Document(root: root, inputBytes: bytes, limits: limits.resolved(inputBytes: bytes))
                let output = try finish(document, range: operations.indices, options: options)
                try sink.write(taking: output)
            case .streamed(nil):
                settings.outcome?("streamed")
                if stream.recordsOnTree > 0 { settings.outcome?("record trees") }
                if stream.containersPassed > 0 { settings.outcome?("containers passed") }
                if stream.copiesGivenBack > 0 { settings.outcome?("copies given back") }
                if stream.membersPast > 0 { settings.outcome?("members past") }
                if stream.recordsRouted > 0 { settings.outcome?("records routed") }
                if stream.recordsHandedOver > 0 { settings.outcome?("records handed over") }
                if stream.membersNarrowed > 0 { settings.outcome?("members narrowed") }
                if stream.readAhead > 0 { settings.outcome?("read ahead") }
                if stream.passedAhead > 0 { settings.outcome?("passed ahead") }
                if stream.comparedAhead > 0 { settings.outcome?("compared ahead") }
                return
            case .streamed(let intermediate?):
                // The rules that need the whole document run on the streamed rules' result.
                settings.outcome?("hybrid")
                if stream.recordsOnTree > 0 { settings.outcome?("record trees") }
                let resolved = limits.resolved(inputBytes: input.bytesRead)
                let root = try JSONParser.parse(intermediate.buffer.bytes, maxDepth: resolved.maxDepth)
                // The bound and the work go on from where the stream left them.
                let document = Document(
                    root: root, inputBytes: input.bytesRead, limits: resolved, growth: stream.outputGrowth, work: stream.work)
                let route = plan.route(for: stream.kind ?? .array)
                let output = try finish(document, range: route.streamed..<operations.count, options: options)
                try sink.write(taking: output)
            }
        } catch {
            // The stream's error is the whole tree's (see `RecordStream`), and a limit's is the
            // stream's own count (docs/limits.md): it stands. Only a broken plan, a bug, lets the
            // whole tree answer from input that can be read again, unless tests ask to see it.
            guard error.code == .internal, !settings.strict else {
                settings.outcome?("failed")
                throw error
            }
            let whole: ByteBuffer
            switch input {
            case .memory(let bytes):
                settings.outcome?("rerun")
                whole = try reshapeWhole(bytes, options: options)
            case .region(let region):
                guard let size = region.knownSize else { throw error }
                settings.outcome?("rerun")
                whole = try reshapeWhole(InputRegion(rereading: region, 0..<size), options: options)
            }
            if sink.bytesWritten > 0 && !sink.reset() { throw error }
            try sink.write(taking: whole)
        }
    }

    /// How a small document was reshaped on its text.
    enum SmallRoute {
        /// The fused pass (`TextRoute`).
        case text
        /// The record filters, the document taken as one record (`LoneRecord`).
        case filters
    }

    /// Appends the output to `out` when the document is small and the text route or the record
    /// filters take it, and says which; nil, with `out` as it was, otherwise. `options` are
    /// checked already. `lone`: the caller's own record for the filters (see `LoneRecord.Pool.take`);
    /// by default one is taken from the pool for this document.
    func reshapeOnText(
        _ input: UnsafeRawBufferPointer, options: ApplyOptions, settings: StreamSettings, into out: inout ByteBuffer,
        lone: LoneRecord? = nil
    ) -> SmallRoute? {
        guard input.count < settings.minimumStreamBytes, options.isDisjoint(with: [.pretty, .allowDuplicateKeys, .inputLines, .outputLines])
        else { return nil }
        if let textRoute, textRoute.reshape(input, limits: limits.resolved(inputBytes: input.count), into: &out) {
            settings.outcome?("text")
            return .text
        }
        guard let record = lone ?? loneRecords.take() else { return nil }
        defer { if lone == nil { loneRecords.give(record) } }
        guard record.reshape(input, rules: self, into: &out) else { return nil }
        settings.outcome?("lone record")
        return .filters
    }

    /// The whole-tree engine on input read from `region` as it is parsed, its text given back as
    /// the tree is built: memory holds the tree and the piece being read, not the text.
    func reshapeWhole(
        _ region: InputRegion, options: ApplyOptions, progress: ((Int) -> Bool)? = nil
    ) throws(ReshapeError) -> ByteBuffer {
        var parser = JSONParser(
            text: region.text, allowDuplicateKeys: options.contains(.allowDuplicateKeys), errorCode: .invalidJSON, rawDepth: nil,
            maxDepth: limits.resolved(inputBytes: region.knownSize ?? 0).maxDepth)
        parser.region = region
        parser.releasesBehind = true
        // A pipe cannot be read again: its text is kept, to trace a failure to (the input's size
        // more memory, where the tree takes several times that).
        if region.knownSize == nil { parser.keepsFirst = Int.max }
        parser.progress = progress
        let root = try parser.parseDocument()
        let bytes = region.filled
        let document = Document(root: root, inputBytes: bytes, limits: limits.resolved(inputBytes: bytes))
        return try finish(document, range: operations.indices, options: options)
    }
}
