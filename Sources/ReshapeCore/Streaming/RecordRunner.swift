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
    /// Records reshaped as their tokens go by, when the fast path does not take them and every
    /// streamed rule has a filter (compact output only).
    private let filterPlan: RecordFilterPlan?
    /// How deep a record may nest on the fast path (the tree decides near the depth limit).
    private let fastDepth: Int
    /// The records are members of an object collection that stays one: on their text, each is
    /// written after its name, as the input has it (no streamed rule renames a record).
    private let keepsNames: Bool
    /// For each streamed rule that can remove records, where the collection lies after it (the
    /// member names from the root): a record's document is checked there for the record after the
    /// rule runs. Empty when no rule can remove records.
    private let dropChecks: [Int: [[UInt8]]]
    private let plan: RecordPlan

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
        filterPlan = pretty || fastPath != nil
            ? nil : RecordFilterPlan.make(for: rules.operations, route: route, kind: kind, chain: chain)
        fastDepth = limits.maxDepth - max(recordDepth, route.outputChain.count + 1)
        keepsNames = kind == .object && route.outputKind == .object
        self.plan = plan
        var checks: [Int: [[UInt8]]] = [:]
        var step = RecordPlan.Step(chain: plan.inputChain, kind: kind)
        for (offset, operation) in rules.operations[0..<route.streamed].enumerated() {
            step.mayDropRecords = false
            _ = operation.planStep(&step)
            if step.mayDropRecords { checks[offset] = step.chain }
        }
        dropChecks = checks
    }

    /// What happened to a record.
    enum Fate {
        case kept
        /// Rule `rule` (1-based) removed it.
        case dropped(rule: Int)
    }

    /// How early the whole tree would report `error`, a record's: 0 for text that cannot be read
    /// (the whole tree reads all the text before any rule runs), the rule's number for a rule's
    /// failure (the whole tree runs each rule on every record before the next rule); nil for a
    /// limit or anything else, which ends the batch.
    static func rank(_ error: ReshapeError) -> Int? {
        if error.line > 0 { return 0 }
        guard error.rule > 0, error.code != .limitExceeded, error.code != .internal, error.code != .cancelled else { return nil }
        return error.rule
    }

    /// Whether the whole tree reports `later`'s error, a record's, rather than `earlier`'s, of a
    /// record before it (`earlierRecord`) or, when that is nil, of `envelope`, the envelope as
    /// read so far. Errors of different rules, or text that cannot be read, go by their `rank`;
    /// two failures of the same rule by the rule's own order: the rules up to it run on a
    /// document that holds both, as the whole tree holds them, and the error that comes out says.
    func reportsLater(
        _ later: ReshapeError, of laterRecord: RecordCopy, over earlier: ReshapeError, of earlierRecord: RecordCopy?,
        envelope: Node?
    ) -> Bool {
        guard let laterRank = Self.rank(later), let earlierRank = Self.rank(earlier) else { return false }
        if laterRank != earlierRank { return laterRank < earlierRank }
        guard laterRank > 0 else { return false }
        do throws(ReshapeError) {
            let document: Document
            if let earlierRecord {
                document = try self.document(of: earlierRecord, envelope: nil)
                try add(laterRecord, to: document)
            } else {
                guard let envelope else { return false }
                document = try self.document(of: laterRecord, envelope: envelope)
            }
            try rules.run(on: document, range: 0..<laterRank)
        } catch {
            return isIn(laterRecord, at: earlierRecord == nil ? 0 : 1, error: error, beforeRule: laterRank - 1)
        }
        return false
    }

    /// Of records of one batch that each failed the same rule (in the order of the text), the one
    /// whose error the whole tree reports: the rules up to that one run on a document that holds
    /// them all, as the whole tree holds them (the records that did not fail it cannot change
    /// which failure comes first: each record's rules see that record alone), and the error that
    /// comes out says. One document for them all, where weighing them two by two took one each.
    /// Should the error name none of them, they are weighed two by two (`reportsLater`).
    private func firstReported(
        _ contenders: [(slice: RecordSlice, error: ReshapeError, position: Int)]
    ) -> (slice: RecordSlice, error: ReshapeError, position: Int) {
        let records = contenders.map { RecordCopy($0.slice, in: text, borrowing: true) }
        if let rank = Self.rank(contenders[0].error), rank > 0 {
            do throws(ReshapeError) {
                let document = try self.document(of: records[0], envelope: nil)
                for record in records.dropFirst() { try add(record, to: document) }
                try rules.run(on: document, range: 0..<rank)
            } catch {
                for index in records.indices where isIn(records[index], at: index, error: error, beforeRule: rank - 1) {
                    return contenders[index]
                }
            }
        }
        var first = 0
        for index in contenders.indices.dropFirst()
        where reportsLater(contenders[index].error, of: records[index], over: contenders[first].error, of: records[first], envelope: nil) {
            first = index
        }
        return contenders[first]
    }

    /// The envelope's error, when the whole tree reports it rather than `candidate`, the error of
    /// `record`: the rules up to `candidate`'s run on the whole envelope (`envelope`, read to the
    /// end) with `record` in its collection; nil when the error that comes out is the record's.
    func envelopeError(over candidate: ReshapeError, of record: RecordCopy, envelope: Node) -> ReshapeError? {
        guard let rank = Self.rank(candidate), rank > 0 else { return nil }
        do throws(ReshapeError) {
            try rules.run(on: document(of: record, envelope: envelope), range: 0..<rank)
        } catch {
            return Self.rank(error) == nil || isIn(record, at: 0, error: error, beforeRule: rank - 1) ? nil : error
        }
        return nil
    }

    /// Whether `error`, from a document whose collection held records from the input's, is in
    /// `record`, the one at `index` there, before rule `rule` (0-based) ran.
    func isIn(_ record: RecordCopy, at index: Int, error: ReshapeError, beforeRule rule: Int) -> Bool {
        let before = plan.collection(beforeRule: rule, in: rules.operations, kind: kind)
        var place = NormalizedPath()
        for name in before.chain { place.append(key: String(decoding: name, as: UTF8.self)) }
        if before.kind == .array {
            place.append(index: index)
        } else {
            record.withKeyText { place.append(key: String(jsonBytes: $0)) }
        }
        return error.path == place.text || error.path.hasPrefix(place.text + "[")
    }

    /// The document of a kept record: the envelope's chain (or a copy of `envelope`) with `record`
    /// alone in the collection (see `miniDocument`).
    private func document(of record: RecordCopy, envelope: Node?) throws(ReshapeError) -> Document {
        try record.withText { (value, key) throws(ReshapeError) in
            try miniDocument(record: parse(value), key: key, keyHasEscapes: record.keyHasEscapes, envelope: envelope)
        }
    }

    /// Adds `record` after the record in the collection of a record's document.
    private func add(_ record: RecordCopy, to document: Document) throws(ReshapeError) {
        var collection = document.root
        for name in chain {
            guard let child = name.withUnsafeBytes({ collection.storedMember($0) }) else { throw planBroken() }
            collection = child
        }
        let node = try record.withText { (value, _) throws(ReshapeError) in try parse(value) }
        if kind == .object {
            try record.withText { (_, key) throws(ReshapeError) in
                _ = try withKey(raw: key, hasEscapes: record.keyHasEscapes) { (name) throws(ReshapeError) in
                    try Make.set(collection, name, node)
                }
            }
        } else {
            try Make.append(collection, node)
        }
    }

    /// Reshapes a record on its text (see `RecordFastPath`): kept, or dropped by a rule's filter;
    /// nil when the tree must decide.
    private func processFast(
        _ slice: RecordSlice, into out: inout ByteBuffer, parser: inout JSONParser, scratch: inout JSONParser.NameScratch
    ) -> Fate? {
        guard fastPath != nil || filterPlan != nil, fastDepth > 1 else { return nil }
        let mark = out.count
        // `out` is a batch's output: past the output limit, the whole output is past it.
        let outputLimit = limits.maxOutputBytes
        if !lines { out.append(UInt8(ascii: ",")) }
        if keepsNames && !lines {
            withKey(raw: keyText(of: slice), hasEscapes: slice.keyHasEscapes) { JSONText.appendQuoted($0, to: &out) }
            out.append(UInt8(ascii: ":"))
        }
        parser.restart(with: UnsafeRawBufferPointer(rebasing: text[slice.start..<slice.end]))
        let done: Bool
        var droppedBy = 0
        if let fastPath {
            // A keyed record's name is its id for `keyedToArray`; otherwise written above.
            done = kind == .object && !keepsNames
            ? withKey(raw: keyText(of: slice), hasEscapes: slice.keyHasEscapes) {
                parser.transformRecord(
                    fastPath, id: $0, depthLeft: fastDepth, into: &out, scratch: &scratch, outputLimit: outputLimit)
            }
            : parser.transformRecord(
                fastPath, id: nil, depthLeft: fastDepth, into: &out, scratch: &scratch, outputLimit: outputLimit)
        } else if let filterPlan {
            let chain = scratch.filters ?? filterPlan.makeChain()
            scratch.filters = chain
            done = kind == .object
                ? withKey(raw: keyText(of: slice), hasEscapes: slice.keyHasEscapes) {
                    chain.run(
                        &parser, key: $0, depthLeft: fastDepth, into: &out, outputLimit: outputLimit, growth: &scratch.growth,
                        work: &scratch.work)
                }
                : chain.run(
                    &parser, key: nil, depthLeft: fastDepth, into: &out, outputLimit: outputLimit, growth: &scratch.growth,
                    work: &scratch.work)
            droppedBy = chain.arena.droppedBy
        } else {
            done = false
        }
        if done && droppedBy > 0 {
            out.truncate(to: mark)
            return .dropped(rule: droppedBy)
        }
        if done {
            if lines { out.append(UInt8(ascii: "\n")) }
            return .kept
        }
        out.truncate(to: mark)
        return nil
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
    /// for an object, `,` and the member; for JSON Lines, the value and a newline. Says whether
    /// the rules kept the record. `work` and `growth` get the record's steps of work and what it
    /// adds to the output bound (on the text, `growth` goes to `scratch.growth`).
    func process(
        _ slice: RecordSlice, into out: inout ByteBuffer, parser: inout JSONParser, scratch: inout JSONParser.NameScratch,
        work: inout Int, growth: inout Int
    ) throws(ReshapeError) -> Fate {
        if let fate = processFast(slice, into: &out, parser: &parser, scratch: &scratch) {
            // A step per value at most: one per 8 bytes of text, as a bound the tree would pass;
            // and what filter selectors took on the tokens.
            work = work.addingClamped((slice.end - slice.start) / 8 + 1).addingClamped(scratch.work)
            scratch.work = 0
            return fate
        }
        scratch.onTree += 1
        let record = try parse(valueText(of: slice))
        let document = try miniDocument(record: record, key: keyText(of: slice), keyHasEscapes: slice.keyHasEscapes, envelope: nil)
        var droppedBy: Int? = nil
        if dropChecks.isEmpty {
            try rules.run(on: document, range: 0..<route.streamed)
        } else {
            // Rule by rule, to learn which one removes the record (the rules after it still run).
            for offset in 0..<route.streamed {
                try rules.run(on: document, range: offset..<offset + 1)
                if droppedBy == nil, let chain = dropChecks[offset], Self.isEmpty(document.root, at: chain) {
                    droppedBy = offset + 1
                }
            }
        }
        // And each rule's set-up on the record's document (its selection), which a whole tree
        // pays once but a stream once per record: a rule run on a one-value record takes about
        // the time of four or five steps of a whole tree, of which its path and edit count two.
        work = work.addingClamped(document.work).addingClamped(route.streamed * Self.stepsPerRuleSetUp)
        // With the envelope's chain counted again for each record: more than the tree, never less.
        growth = growth.addingClamped(document.growth)
        let collection = try outputCollection(in: document.root)
        let dropped = Fate.dropped(rule: droppedBy ?? route.streamed)
        let member: (key: KeyBytes?, value: Node)
        if collection.isArray {
            guard collection.arrayCount <= 1 else { throw planBroken() }
            guard let value = collection.storedElement(0) else { return dropped }
            member = (nil, value)
        } else {
            guard collection.objectCount <= 1 else { throw planBroken() }
            guard let iterator = json_object_iter(collection), let value = json_object_iter_value(iterator) else {
                return dropped
            }
            member = (KeyBytes(start: json_object_iter_key(iterator), count: json_object_iter_key_len(iterator)), value)
        }
        if lines {
            _ = try JSONWriter.append(member.value, to: &out, pretty: false, maxDepth: limits.maxDepth)
            out.append(UInt8(ascii: "\n"))
            return .kept
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
        return .kept
    }

    /// Whether the collection at `chain` in a record's document is empty: the record is gone.
    private static func isEmpty(_ root: Node, at chain: [[UInt8]]) -> Bool {
        var node = root
        for name in chain {
            guard node.isObject, let child = name.withUnsafeBytes({ node.storedMember($0) }) else { return false }
            node = child
        }
        return node.isArray ? node.arrayCount == 0 : node.isObject && node.objectCount == 0
    }

    /// Steps of work a rule's set-up on a record's own tree counts (docs/limits.md).
    static let stepsPerRuleSetUp = 3

    /// Reshapes a batch of records into its output. A record that fails is kept in the batch with
    /// its error, and the records after it are still reshaped (their output is not kept), so that
    /// the batch's error is the one the whole tree gives first (see `rank`); a limit ends it, and
    /// so does the first record past the batch's budget (`RecordBatch.budget`).
    func process(_ batch: RecordBatch) {
        var scratch = JSONParser.NameScratch()
        defer {
            batch.onTree = scratch.onTree
            batch.containersPassed = scratch.filters?.containersPassed ?? 0
            batch.copiesGivenBack = scratch.filters?.copiesGivenBack ?? 0
            batch.membersPast = scratch.filters?.membersPast ?? 0
            batch.recordsRouted = scratch.filters?.recordsRouted ?? 0
            batch.recordsHandedOver = scratch.filters?.recordsHandedOver ?? 0
            batch.membersNarrowed = scratch.filters?.membersNarrowed ?? 0
            batch.readAhead = scratch.filters?.arena.readAhead ?? 0
            batch.passedAhead = scratch.filters?.arena.passedAhead ?? 0
            batch.comparedAhead = scratch.filters?.arena.comparedAhead ?? 0
        }
        var parser = JSONParser(
            text: UnsafeRawBufferPointer(start: nil, count: 0), allowDuplicateKeys: false, errorCode: .invalidJSON,
            rawDepth: nil, maxDepth: fastDepth)
        // The batch's amounts are kept here while it runs (a class's properties cost an access
        // check each time).
        var work = batch.work
        var growthSoFar = batch.growth
        var totals = batch.totals
        let (budget, spending, streamLimits) = (batch.budget, batch.spending, batch.streamLimits)
        var reported = totals.last ?? RecordBatch.Amounts(work: 0, growth: 0, output: 0)
        defer {
            batch.work = work
            batch.growth = growthSoFar
            batch.totals = totals
            _ = spending?.add((totals.last ?? reported) - reported)
        }
        let startsStream = batch.startsStream
        // The records that failed the rule of the batch's error, when more than one did: which
        // of them the whole tree reports is decided once, at the end (see `firstReported`).
        var contenders: [(slice: RecordSlice, error: ReshapeError, position: Int)] = []
        defer {
            if contenders.count > 1, let error = batch.error, Self.rank(error) == Self.rank(contenders[0].error) {
                let first = firstReported(contenders)
                batch.error = first.error
                batch.failed = first.slice
                batch.failedPosition = first.position
            }
        }
        for (position, slice) in batch.slices.enumerated() {
            let mark = batch.output.count
            do throws(ReshapeError) {
                scratch.growth = 0
                var growth = 0
                let fate = try process(
                    slice, into: &batch.output, parser: &parser, scratch: &scratch, work: &work, growth: &growth)
                switch fate {
                case .kept: batch.written += 1
                case .dropped(let rule): batch.drops.append((position, rule))
                }
                // The stream's first record was counted with the envelope (see `envelopeOutput`).
                if position > 0 || !startsStream {
                    growthSoFar = growthSoFar.addingClamped(growth).addingClamped(scratch.growth)
                }
                if batch.error != nil { batch.output.truncate(to: mark) }
            } catch {
                batch.output.truncate(to: mark)
                guard let rank = Self.rank(error) else {
                    // A limit, as the stream counts it (docs/limits.md): the stream stops here,
                    // and the records after it are not reshaped.
                    batch.error = error
                    batch.failed = slice
                    batch.failedPosition = position
                    return
                }
                // Errors of different rules, or text that cannot be read, go by their rank (see
                // `reportsLater`); failures of one rule are weighed together at the end.
                if let keptRank = batch.error.flatMap(Self.rank), rank >= keptRank {
                    if rank == keptRank && rank > 0 { contenders.append((slice, error, position)) }
                } else {
                    batch.error = error
                    batch.failed = slice
                    batch.failedPosition = position
                    contenders = [(slice, error, position)]
                    // Text that cannot be read comes first: nothing after it in the batch can.
                    if rank == 0 { return }
                }
            }
            // Checked per record, not per batch: one record can cost the whole budget (renamings
            // can make a record's output far larger than its text).
            let now = RecordBatch.Amounts(work: work, growth: growthSoFar, output: batch.output.count)
            totals.append(now)
            if now.exceeds(budget) {
                batch.stoppedAtBudget = true
                return
            }
            if let spending, now.grew(by: spending.step, since: reported) {
                let all = spending.add(now - reported)
                reported = now
                if all.exceeds(streamLimits) {
                    batch.stoppedAtBudget = true
                    return
                }
            }
        }
    }

    /// The output around the records: the envelope (borrowed; copied) reshaped with `first` in
    /// its collection, written with the collection left out.
    /// - Returns: the text before and after the collection, whether it is an object, and what
    ///   the rules added to the output bound: the envelope's share, and `first`'s.
    func envelopeOutput(_ envelope: Node, first: RecordCopy) throws(ReshapeError) -> (
        before: [UInt8], after: [UInt8], isObject: Bool, rootMembers: Int, growth: Int
    ) {
        let document = try self.document(of: first, envelope: envelope)
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

/// A record kept for later: the stream's first record, which the envelope is reshaped with at the
/// start and at the end, and a failing record that another is compared with. Its text is copied
/// when the input may be given back before it is needed again (a file, a pipe), and borrowed when
/// the input stays (in memory): a copy of a 60 MB record would be a third copy of it at once.
struct RecordCopy: @unchecked Sendable {
    private enum Text {
        case owned(value: [UInt8], key: [UInt8])
        /// Pointers into input that outlives the record (see `init`).
        case borrowed(value: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer)
    }

    private let text: Text
    /// Whether the member name has escapes.
    let keyHasEscapes: Bool

    /// The record `slice` of `text`, copied; or, with `borrowing`, pointing into `text`, which
    /// must then stay as it is for as long as the record is used.
    init(_ slice: RecordSlice, in text: UnsafeRawBufferPointer, borrowing: Bool = false) {
        let value = UnsafeRawBufferPointer(rebasing: text[slice.start..<slice.end])
        let key = slice.keyStart < 0
            ? UnsafeRawBufferPointer(start: nil, count: 0) : UnsafeRawBufferPointer(rebasing: text[slice.keyStart..<slice.keyEnd])
        self.text = borrowing ? .borrowed(value: value, key: key) : .owned(value: Array(value), key: Array(key))
        keyHasEscapes = slice.keyHasEscapes
    }

    /// Calls `body` with the record's text and its member name's (empty for an element).
    func withText<R>(
        _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws(ReshapeError) -> R
    ) throws(ReshapeError) -> R {
        switch text {
        case .borrowed(let value, let key):
            return try body(value, key)
        case .owned(let value, let key):
            return try value.withUnsafeBytesTyped { (value) throws(ReshapeError) in
                try key.withUnsafeBytesTyped { (key) throws(ReshapeError) in try body(value, key) }
            }
        }
    }

    /// Calls `body` with the member name, decoded (empty for an element).
    func withKeyText<R>(_ body: (KeyBytes) -> R) -> R {
        func decoded(_ key: UnsafeRawBufferPointer) -> R {
            guard keyHasEscapes else { return body(key) }
            var decoded = ByteBuffer(capacity: key.count)
            JSONParser.decodeEscapes(key, JSONParser.StringSpan(start: 0, end: key.count, hasEscapes: true), into: &decoded)
            return decoded.withBytes(body)
        }
        switch text {
        case .borrowed(_, let key): return decoded(key)
        case .owned(_, let key): return key.withUnsafeBytes { decoded($0) }
        }
    }
}
