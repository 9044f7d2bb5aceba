internal import CJansson

/// A compiled rules document: the reshaping to apply to JSON, checked once and then reused.
///
/// Immutable once built, so one value can be used by any number of threads at once.
///
/// ```swift
/// let rules = try Rules(json: #"[{"op": "keyedToArray", "idKey": "objectId", "wrapIn": "objects"}]"#)
/// let output = try rules.apply(to: #"{"u1": {"name": "Ada"}}"#)
/// // {"objects":[{"objectId":"u1","name":"Ada"}]}
/// ```
public struct Rules: Sendable {
    let operations: [any Operation]
    /// Where the parser may keep objects and arrays as raw text for these rules (see `RawValue`).
    private let rawDepth: Int?
    /// How the rules run record by record (see `RecordPlan`).
    let plan: RecordPlan
    /// How small documents run on their text alone, when the rules allow (see `TextRoute`).
    let textRoute: TextRoute?
    /// The record filters of a small document taken as one record, planned at first use (none
    /// when some rule has no such filter): how a document (a JSON Lines line, a response) the
    /// text route does not take runs (see `LoneRecord`).
    let loneRecords: LoneRecord.Pool
    /// The limits every `apply` of these rules works within (see docs/limits.md).
    public let limits: Limits

    /// Compiles a rules document given as JSON text.
    /// - Parameters:
    ///   - json: a JSON array of rules, or an object `{"rules": [...]}`.
    ///   - limits: the limits for the rules document and for every `apply`.
    /// - Throws: `ReshapeError` with code `invalid_rules`, naming the rule, the param and, for a
    ///   typo, what was probably meant; also for a document beyond the rules size or depth limit.
    public init(json: String, limits: Limits = .default) throws(ReshapeError) {
        let operations = try json.withUTF8Bytes { (bytes) throws(ReshapeError) in try RulesCompiler.compile(bytes, limits: limits) }
        self.init(compiled: operations, limits: limits)
    }

    /// Compiles a rules document given as UTF-8 bytes.
    /// - Parameters:
    ///   - json: a JSON array of rules, or an object `{"rules": [...]}`.
    ///   - limits: the limits for the rules document and for every `apply`.
    /// - Throws: `ReshapeError` with code `invalid_rules`.
    public init(json: [UInt8], limits: Limits = .default) throws(ReshapeError) {
        let operations = try json.withUnsafeBytesTyped { (bytes) throws(ReshapeError) in
            try RulesCompiler.compile(bytes, limits: limits)
        }
        self.init(compiled: operations, limits: limits)
    }

    /// Compiles a rules document given as UTF-8 bytes in memory the caller owns.
    /// - Parameters:
    ///   - json: a JSON array of rules, or an object `{"rules": [...]}`.
    ///   - limits: the limits for the rules document and for every `apply`.
    /// - Throws: `ReshapeError` with code `invalid_rules`.
    public init(json: UnsafeRawBufferPointer, limits: Limits = .default) throws(ReshapeError) {
        self.init(compiled: try RulesCompiler.compile(json, limits: limits), limits: limits)
    }

    private init(compiled operations: [any Operation], limits: Limits) {
        self.operations = operations
        self.rawDepth = RawAccess.rawDepth(for: operations)
        self.plan = RecordPlan.make(for: operations)
        self.textRoute = TextRoute(operations: operations, plan: plan)
        self.loneRecords = LoneRecord.Pool(operations: operations)
        self.limits = limits
    }

    /// The number of rules.
    public var count: Int { operations.count }

    /// The op of each rule, in order.
    public var ops: [String] { operations.map { type(of: $0).name } }

    /// Every op a rules document may name, as it is spelled there: the C layer makes its static
    /// strings for `reshape_rules_op` and `reshape_error.op` from these once.
    package static var allOps: [String] { Operations.names }

    /// Reshapes a JSON document.
    /// - Parameters:
    ///   - input: UTF-8 JSON text.
    ///   - options: output and input options.
    /// - Returns: the reshaped document as UTF-8 JSON text, compact unless `.pretty` is given.
    /// - Throws: `ReshapeError`: `invalid_json` for input that is not JSON, `rule_failed` when a
    ///   rule cannot reshape a value, `limit_exceeded`, or `invalid_argument` for unknown options.
    public func apply(to input: UnsafeRawBufferPointer, options: ApplyOptions = []) throws(ReshapeError) -> [UInt8] {
        try apply(to: input, options: options, settings: StreamSettings())
    }

    /// Reshapes a JSON document with `settings` (threads; see ``StreamSettings``). Large documents
    /// that are one collection of records are reshaped record by record, on `settings.jobs`
    /// threads; the result is the same for any number of threads.
    public func apply(
        to input: UnsafeRawBufferPointer, options: ApplyOptions, settings: StreamSettings
    ) throws(ReshapeError) -> [UInt8] {
        let sink = BufferSink(capacity: input.count.addingClamped(input.count / 8 + 64))
        try reshape(input, options: options, settings: settings, into: sink)
        _ = settings.progress?(input.count, input.count)  // The end: too late to cancel.
        return sink.buffer.toArray()
    }

    /// Reshapes a JSON document given as bytes, with `settings` (threads; see ``StreamSettings``).
    public func apply(to input: [UInt8], options: ApplyOptions, settings: StreamSettings) throws(ReshapeError) -> [UInt8] {
        try input.withUnsafeBytesTyped { (bytes) throws(ReshapeError) in try apply(to: bytes, options: options, settings: settings) }
    }

    /// Reshapes a JSON document given as bytes. See ``apply(to:options:)-(UnsafeRawBufferPointer,_)``.
    public func apply(to input: [UInt8], options: ApplyOptions = []) throws(ReshapeError) -> [UInt8] {
        try input.withUnsafeBytesTyped { (bytes) throws(ReshapeError) in try apply(to: bytes, options: options) }
    }

    /// Reshapes a JSON document given as a string, returning a string.
    public func apply(to input: String, options: ApplyOptions = []) throws(ReshapeError) -> String {
        let output = try input.withUTF8Bytes { (bytes) throws(ReshapeError) in try apply(to: bytes, options: options) }
        return String(decoding: output, as: UTF8.self)
    }

    /// Reshapes and hands over the output buffer itself, NUL-terminated: the C layer gives it to
    /// its caller without a copy. Free the pointer with `deallocate()`.
    package func applyTakingBuffer(
        _ input: UnsafeRawBufferPointer, options: ApplyOptions, settings: StreamSettings = StreamSettings()
    ) throws(ReshapeError) -> (pointer: UnsafeMutablePointer<UInt8>, count: Int) {
        try options.validate()
        var buffer = ByteBuffer(capacity: input.count.addingClamped(input.count / 8 + 64))
        // A small response on the text route is written straight into the buffer handed over.
        if reshapeOnText(input, options: options, settings: settings, into: &buffer) != nil {
            return buffer.take()
        }
        let sink = BufferSink(buffer: buffer)
        try reshape(input, options: options, settings: settings, into: sink, tryingText: false)
        return sink.takeBuffer().take()
    }

    /// How the streaming engine would run these rules: the collection's chain in the input, and
    /// how many rules run per record when it is an object or an array.
    package var streamingPlan: (chain: [String], object: Int, array: Int) {
        (plan.inputChain.map { String(decoding: $0, as: UTF8.self) }, plan.forObject.streamed, plan.forArray.streamed)
    }

    /// Reshapes on the whole tree only, never streaming: for tests that compare the two engines.
    package func applyWholeTree(to input: [UInt8], options: ApplyOptions = []) throws(ReshapeError) -> [UInt8] {
        try input.withUnsafeBytesTyped { (bytes) throws(ReshapeError) in
            try options.validate()
            if options.contains(.inputLines) {
                // One line after the other, each on the whole tree (never the text route).
                var settings = StreamSettings(jobs: 1)
                settings.minimumStreamBytes = 0
                let sink = BufferSink(capacity: 64)
                try JSONLines.reshape(LineSource(buffer: bytes), rules: self, options: options, settings: settings, into: sink)
                return sink.buffer.toArray()
            }
            do throws(ReshapeError) {
                return try reshapeWhole(bytes, options: options).toArray()
            } catch {
                throw traced(error, in: bytes, options: options)
            }
        }
    }

    /// Runs every rule in order, attributing a failure to its rule.
    func run(on document: Document) throws(ReshapeError) {
        try run(on: document, range: operations.indices)
    }

    /// Runs the rules in `range` in order, attributing a failure to its rule.
    func run(on document: Document, range: Range<Int>) throws(ReshapeError) {
        for offset in range {
            let operation = operations[offset]
            do throws(ReshapeError) {
                try operation.apply(to: document)
            } catch {
                throw error.inRule(offset + 1, type(of: operation).name)
            }
        }
    }

    /// Reshapes with raw values captured from `rawDepth` on, whatever the rules say: for tests that
    /// check every path of the engine gives the same bytes as the full tree.
    package func apply(
        to input: [UInt8], options: ApplyOptions, forcingRawDepth rawDepth: Int?
    ) throws(ReshapeError) -> [UInt8] {
        try input.withUnsafeBytesTyped { (bytes) throws(ReshapeError) in
            try reshape(bytes, options: options, rawDepth: rawDepth, progress: nil).toArray()
        }
    }

    /// The whole-tree engine: parse everything, run every rule, write.
    /// - Parameter progress: told how far reading the input has come, as `JSONParser.progress`;
    ///   false cancels.
    func reshapeWhole(
        _ input: UnsafeRawBufferPointer, options: ApplyOptions, progress: ((Int) -> Bool)? = nil
    ) throws(ReshapeError) -> ByteBuffer {
        // Pretty output re-indents everything, so raw text would only be read twice.
        try reshape(input, options: options, rawDepth: options.contains(.pretty) ? nil : rawDepth, progress: progress)
    }

    private func reshape(
        _ input: UnsafeRawBufferPointer, options: ApplyOptions, rawDepth: Int?, progress: ((Int) -> Bool)?
    ) throws(ReshapeError) -> ByteBuffer {
        try options.validate()
        let limits = limits.resolved(inputBytes: input.count)
        let root = try JSONParser.parse(
            input, allowDuplicateKeys: options.contains(.allowDuplicateKeys), rawDepth: rawDepth, maxDepth: limits.maxDepth,
            progress: progress)
        let document = Document(root: root, inputBytes: input.count, limits: limits)
        return try finish(document, range: operations.indices, options: options)
    }

    /// Runs the rules in `range` on a parsed document and writes it: as one document, or as JSON
    /// Lines with `.outputLines`.
    func finish(_ document: Document, range: Range<Int>, options: ApplyOptions) throws(ReshapeError) -> ByteBuffer {
        try run(on: document, range: range)
        let limits = document.limits
        if options.contains(.outputLines) {
            return try JSONLines.write(collectionIn: document.root, limits: limits)
        }
        let capacity = min(limits.maxOutputBytes, document.inputBytes.addingClamped(document.inputBytes / 8 + 64))
        let writer = JSONWriter(
            pretty: options.contains(.pretty), capacityHint: capacity, maxBytes: limits.maxOutputBytes, maxDepth: limits.maxDepth)
        return try writer.write(document.root)
    }
}

extension Rules {
    /// Reshapes a JSON document and hands the output to `write` in pieces of at most 1 MiB, in
    /// order, as it is made (`reshape_apply_cb`): a document that streams is never held whole.
    /// `write` returns 0 to go on; anything else stops the call with `io_error`, with that value
    /// as `systemErrno` when it is positive. On failure `write` has had a prefix of the output.
    package func apply(
        to input: UnsafeRawBufferPointer, options: ApplyOptions, settings: StreamSettings = StreamSettings(),
        writingTo write: (UnsafeRawBufferPointer) -> Int32
    ) throws(ReshapeError) {
        try withoutActuallyEscaping(write) { (write) throws(ReshapeError) in
            let sink = CallbackSink(write)
            try reshape(input, options: options, settings: settings, into: sink)
            try sink.flush()
        }
        _ = settings.progress?(input.count, input.count)  // The end: too late to cancel.
    }
}
