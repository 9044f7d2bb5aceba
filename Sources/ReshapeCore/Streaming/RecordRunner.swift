internal import CJansson

/// Runs the streamed rules on one record at a time, on a small document made of the envelope's
/// chain and that record alone (`{"data": [record]}`), and writes the record's part of the output.
///
/// The envelope itself is reshaped twice, with the first record in its collection: when the
/// collection is met (for the output before the records) and at the end (for the output after
/// them). The rules are the engine's own, run as they always are: nothing here re-implements one.
///
/// Immutable and shared by every thread of a stream.
final class RecordRunner: @unchecked Sendable {
    let rules: Rules
    let chain: [[UInt8]]
    let kind: RecordPlan.Kind
    let route: RecordPlan.Route
    /// Where the records' offsets point: the input, or the whole range of a region it is read into.
    let text: UnsafeRawBufferPointer
    /// The input's size for the output bound of each record's document (0 when not known).
    let inputBytes: Int
    let limits: ResolvedLimits
    let pretty: Bool
    let lines: Bool
    /// How records are parsed: depth left for them and where raw values may start.
    private let recordMaxDepth: Int
    private let recordRawDepth: Int?
    /// Records reshaped on their text, when the rules allow (compact output only).
    private let fastPath: RecordFastPath?
    /// How deep a record may nest on the fast path (the tree decides near the depth limit).
    private let fastDepth: Int

    init(
        rules: Rules, plan: RecordPlan, kind: RecordPlan.Kind, text: UnsafeRawBufferPointer, inputBytes: Int,
        limits: ResolvedLimits, pretty: Bool, lines: Bool
    ) {
        self.rules = rules
        self.route = plan.route(for: kind)
        self.chain = plan.inputChain
        self.kind = kind
        self.text = text
        self.inputBytes = inputBytes
        self.limits = limits
        self.pretty = pretty
        self.lines = lines
        let recordDepth = chain.count + 1
        recordMaxDepth = limits.maxDepth - recordDepth
        // Raw values pay off only when the output is compact (see `Rules.reshape`).
        let rawDepth = pretty ? nil : RawAccess.rawDepth(for: Array(rules.operations[0..<route.streamed]))
        recordRawDepth = rawDepth.map { max(0, $0 - recordDepth) }
        fastPath = pretty
            ? nil : RecordFastPath.make(for: rules.operations, route: route, kind: kind, chain: chain)
        fastDepth = limits.maxDepth - max(recordDepth, route.outputChain.count + 1)
    }

    /// Reshapes a record on its text (see `RecordFastPath`); false when the tree must decide.
    private func processFast(
        _ slice: RecordSlice, into out: inout ByteBuffer, parser: inout JSONParser, scratch: inout JSONParser.NameScratch
    ) -> Bool {
        guard let fastPath, fastDepth > 1 else { return false }
        let mark = out.count
        // `out` is a batch's output: past the output limit, the whole output is past it.
        let outputLimit = limits.maxOutputBytes
        if !lines { out.append(UInt8(ascii: ",")) }
        parser.restart(with: UnsafeRawBufferPointer(rebasing: text[slice.start..<slice.end]))
        let done = kind == .object
            ? withKey(raw: keyText(of: slice), hasEscapes: slice.keyHasEscapes) {
                parser.transformRecord(
                    fastPath, id: $0, depthLeft: fastDepth, into: &out, scratch: &scratch, outputLimit: outputLimit)
            }
            : parser.transformRecord(
                fastPath, id: nil, depthLeft: fastDepth, into: &out, scratch: &scratch, outputLimit: outputLimit)
        if done {
            if lines { out.append(UInt8(ascii: "\n")) }
            return true
        }
        out.truncate(to: mark)
        return false
    }

    /// The output depth of the records, for indentation.
    var outputDepth: Int { route.outputChain.count + 1 }

    /// Parses one record's text (owned result).
    func parse(_ value: UnsafeRawBufferPointer) throws(ReshapeError) -> Node {
        guard recordMaxDepth > 0 else { throw .depthLimit(limits.maxDepth) }
        return try JSONParser.parseRecord(value, rawDepth: recordRawDepth, maxDepth: recordMaxDepth)
    }

    /// A record's text, and its member name's as it lies in the input (empty for an element).
    private func valueText(of slice: RecordSlice) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: text[slice.start..<slice.end])
    }

    private func keyText(of slice: RecordSlice) -> UnsafeRawBufferPointer {
        slice.keyStart < 0 ? UnsafeRawBufferPointer(start: nil, count: 0) : UnsafeRawBufferPointer(rebasing: text[slice.keyStart..<slice.keyEnd])
    }

    /// Reshapes one record and appends its output to `out`: for an array, `,` and the value;
    /// for an object, `,` and the member; for JSON Lines, the value and a newline. Returns false
    /// when the rules dropped the record. `work` and `growth` get the record's steps of work and
    /// what it adds to the output bound (on the text, `growth` goes to `scratch.growth`).
    func process(
        _ slice: RecordSlice, into out: inout ByteBuffer, parser: inout JSONParser, scratch: inout JSONParser.NameScratch,
        work: inout Int, growth: inout Int
    ) throws(ReshapeError) -> Bool {
        if processFast(slice, into: &out, parser: &parser, scratch: &scratch) {
            // A step per value at most: one per 8 bytes of text, as a bound the tree would pass.
            work = work.addingClamped((slice.end - slice.start) / 8 + 1)
            return true
        }
        let record = try parse(valueText(of: slice))
        let document = try miniDocument(record: record, key: keyText(of: slice), keyHasEscapes: slice.keyHasEscapes, envelope: nil)
        try rules.run(on: document, range: 0..<route.streamed)
        work = work.addingClamped(document.work)
        // With the envelope's chain counted again for each record: more than the tree, never less.
        growth = growth.addingClamped(document.growth)
        let collection = try outputCollection(in: document.root)
        let member: (key: KeyBytes?, value: Node)
        if collection.isArray {
            guard collection.arrayCount <= 1 else { throw planBroken() }
            guard let value = collection.storedElement(0) else { return false }
            member = (nil, value)
        } else {
            guard collection.objectCount <= 1 else { throw planBroken() }
            guard let iterator = json_object_iter(collection), let value = json_object_iter_value(iterator) else {
                return false
            }
            member = (KeyBytes(start: json_object_iter_key(iterator), count: json_object_iter_key_len(iterator)), value)
        }
        if lines {
            _ = try JSONWriter.append(member.value, to: &out, pretty: false, maxDepth: limits.maxDepth)
            out.append(UInt8(ascii: "\n"))
            return true
        }
        out.append(UInt8(ascii: ","))
        if pretty {
            out.append(UInt8(ascii: "\n"))
            out.append(repeating: UInt8(ascii: " "), count: outputDepth * 2)
        }
        if let key = member.key {
            JSONText.appendQuoted(key, to: &out)
            if pretty { out.append(": ") } else { out.append(UInt8(ascii: ":")) }
        }
        _ = try JSONWriter.append(member.value, to: &out, pretty: pretty, baseDepth: outputDepth, maxDepth: limits.maxDepth)
        return true
    }

    /// Reshapes a batch of records into its output; a failure stops the batch and is kept in it.
    func process(_ batch: RecordBatch) {
        var scratch = JSONParser.NameScratch()
        var parser = JSONParser(
            text: UnsafeRawBufferPointer(start: nil, count: 0), allowDuplicateKeys: false, errorCode: .invalidJSON,
            rawDepth: nil, maxDepth: fastDepth)
        var current: RecordSlice? = nil
        do throws(ReshapeError) {
            for (position, slice) in batch.slices.enumerated() {
                current = slice
                scratch.growth = 0
                var growth = 0
                let done = try process(
                    slice, into: &batch.output, parser: &parser, scratch: &scratch, work: &batch.work, growth: &growth)
                if done { batch.written += 1 }
                // The stream's first record was counted with the envelope (see `envelopeOutput`).
                if position > 0 || !batch.startsStream {
                    batch.growth = batch.growth.addingClamped(growth).addingClamped(scratch.growth)
                }
                // Checked per record, not per batch: renamings can make a record's output far
                // larger than its text.
                if batch.output.count > limits.maxOutputBytes { throw .outputLimit(limits.maxOutputBytes) }
            }
        } catch {
            batch.error = error
            batch.failed = current
        }
    }

    /// The output around the records: the envelope (borrowed; copied) reshaped with `first` in
    /// its collection, written with the collection left out.
    /// - Returns: the text before and after the collection, whether it is an object, and what
    ///   the rules added to the output bound: the envelope's share, and `first`'s.
    func envelopeOutput(_ envelope: Node, first: RecordCopy) throws(ReshapeError) -> (
        before: [UInt8], after: [UInt8], isObject: Bool, rootMembers: Int, growth: Int
    ) {
        let record = try first.value.withUnsafeBytesTyped { (value) throws(ReshapeError) in try parse(value) }
        let document = try first.key.withUnsafeBytesTyped { (key) throws(ReshapeError) in
            try miniDocument(record: record, key: key, keyHasEscapes: first.keyHasEscapes, envelope: envelope)
        }
        try rules.run(on: document, range: 0..<route.streamed)
        let collection = try outputCollection(in: document.root)
        var out = ByteBuffer(capacity: 256)
        guard
            let hole = try JSONWriter.append(
                document.root, to: &out, pretty: pretty, maxDepth: limits.maxDepth, hole: collection)
        else { throw planBroken() }
        let rootMembers = document.root.isObject ? document.root.objectCount : -1
        // Both copies are made while `out` is alive (a noncopyable value ends at its last use).
        let before = Array(out.bytes[0..<hole])
        let after = Array(out.bytes[hole...])
        return (before, after, collection.isObject, rootMembers, document.growth)
    }

    /// The document for one record: the envelope's chain (or a copy of the whole envelope) with
    /// the record alone in the collection, under its member name `key` (raw, as in the input) in an
    /// object collection. Takes `record`.
    private func miniDocument(
        record: Node, key: UnsafeRawBufferPointer, keyHasEscapes: Bool, envelope: Node?
    ) throws(ReshapeError) -> Document {
        var collection: Node
        var root: Node
        do throws(ReshapeError) {
            if let envelope {
                let scratch = Document(root: Make.null(), inputBytes: inputBytes, limits: limits)
                root = try Tree.copy(envelope, in: scratch)
                collection = root
                for name in chain {
                    guard let child = name.withUnsafeBytes({ collection.storedMember($0) }) else {
                        Make.release(root)
                        throw planBroken()
                    }
                    collection = child
                }
            } else {
                collection = try kind == .object ? Make.object() : Make.array()
                root = collection
                for name in chain.reversed() {
                    let parent = try Make.object()
                    _ = try name.withUnsafeBytesTyped { (bytes) throws(ReshapeError) in try Make.set(parent, bytes, root) }
                    root = parent
                }
            }
        } catch {
            Make.release(record)
            throw error
        }
        let document = Document(root: root, inputBytes: inputBytes, limits: limits)
        if kind == .object {
            _ = try withKey(raw: key, hasEscapes: keyHasEscapes) { (key) throws(ReshapeError) in try Make.set(collection, key, record) }
        } else {
            try Make.append(collection, record)
        }
        return document
    }

    /// Calls `body` with a record's member name, decoded from `raw`, its text in the input.
    private func withKey<R, E: Error>(
        raw: UnsafeRawBufferPointer, hasEscapes: Bool, _ body: (KeyBytes) throws(E) -> R
    ) throws(E) -> R {
        guard hasEscapes else { return try body(raw) }
        var decoded = ByteBuffer(capacity: raw.count)
        JSONParser.decodeEscapes(raw, JSONParser.StringSpan(start: 0, end: raw.count, hasEscapes: true), into: &decoded)
        // `withBytes` keeps the buffer alive while `body` reads it.
        return try decoded.withBytes(body)
    }

    /// The collection in a reshaped mini document, found by the plan's output chain.
    private func outputCollection(in root: Node) throws(ReshapeError) -> Node {
        var node = root
        for name in route.outputChain {
            guard node.isObject, let child = name.withUnsafeBytes({ node.storedMember($0) }) else { throw planBroken() }
            node = child
        }
        guard route.outputKind == .array ? node.isArray : node.isObject else { throw planBroken() }
        return node
    }

    private func planBroken() -> ReshapeError {
        ReshapeError(.internal, "the streaming plan did not hold for this document")
    }
}

/// A record kept apart from the input, which may be given back before it is needed again: the
/// stream's first record, which the envelope is reshaped with at the start and at the end.
struct RecordCopy {
    /// The record's text.
    let value: [UInt8]
    /// Its member name as it lies in the input (empty for an element), and whether it has escapes.
    let key: [UInt8]
    let keyHasEscapes: Bool

    init(_ slice: RecordSlice, in text: UnsafeRawBufferPointer) {
        value = Array(text[slice.start..<slice.end])
        key = slice.keyStart < 0 ? [] : Array(text[slice.keyStart..<slice.keyEnd])
        keyHasEscapes = slice.keyHasEscapes
    }
}
