internal import CJansson
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One record of the collection as it lies in the input: its text, and for an object collection
/// the text of its member name.
struct RecordSlice {
    /// The record's value: `text[start..<end]`, not yet checked.
    var start: Int
    var end: Int
    /// The member name's content (between the quotes, already checked), or -1 for an element.
    var keyStart: Int
    var keyEnd: Int
    var keyHasEscapes: Bool
    /// The record's place among the collection's records, from 0.
    var ordinal: Int
}

/// Tells the parser where the collection of records lies, and takes its records.
///
/// The parser reads the envelope as usual and, at the collection, finds each record's extent
/// with a quick scan and hands it over without reading it (see `JSONParser.scanRecords`); the
/// collection stays empty in the envelope's tree. Each record's text is checked later, when it is
/// parsed on its own, so the document is valid exactly when the envelope, the collection's
/// punctuation and names, and every record are.
final class CollectionScan {
    /// The member names from the root to the collection.
    let chain: [[UInt8]]
    /// Called with each record, in order.
    let onRecord: (RecordSlice) throws(ReshapeError) -> Void
    /// Set once the collection has been met: what it is, where it stands in the envelope's tree.
    private(set) var kind: RecordPlan.Kind? = nil
    private(set) var container: Node? = nil
    /// The root of the envelope's tree (the collection itself when the chain is empty); borrowed.
    private(set) var root: Node? = nil
    /// The collection's normalized path in the input: where its records' paths start.
    private(set) var path = ""
    /// Where the collection's text starts and ends (past its closer).
    private(set) var textRange: Range<Int> = 0..<0
    /// The records' names seen so far, to refuse duplicates: while they ascend, the last of them
    /// (`ascending`, `lastName`), then a table (`names`); see `JSONParser.checkCollectionName`.
    fileprivate var names = RecordNames()
    fileprivate var ascending = true
    fileprivate var lastName: [UInt8] = []
    /// Names met while they ascended.
    fileprivate var seen = 0

    init(chain: [[UInt8]], onRecord: @escaping (RecordSlice) throws(ReshapeError) -> Void) {
        self.chain = chain
        self.onRecord = onRecord
    }

    /// The names of a collection read from a pipe, which cannot be read again to check the
    /// names against each other (see `RecordNames`): each name as it comes, its length (4 bytes)
    /// then its bytes. Nil when the input can be read again.
    fileprivate var keptNames: [UInt8]? = nil

    /// Whether the collection should be streamed at all for this kind; set by the caller.
    var accepts: (RecordPlan.Kind) -> Bool = { _ in true }

    fileprivate func met(
        _ kind: RecordPlan.Kind, container: Node, root: Node, start: Int, keepingNames: Bool, path: String
    ) {
        self.path = path
        if keepingNames && kind == .object { keptNames = [] }
        self.kind = kind
        self.container = container
        self.root = root
        self.textRange = start..<start
    }

    fileprivate func ended(at end: Int) {
        textRange = textRange.lowerBound..<end
    }

}

extension JSONParser {
    /// True when the container just opened (`index` is past its opener) is the collection.
    func isCollection(_ scan: CollectionScan) -> Bool {
        guard scan.kind == nil, stack.count == scan.chain.count, index > 0 else { return false }
        let kind: RecordPlan.Kind = text[index - 1] == UInt8(ascii: "{") ? .object : .array
        guard scan.accepts(kind) else { return false }
        for (level, frame) in stack.enumerated() {
            guard frame.isObject else { return false }
            let name = scan.chain[level]
            if level == stack.count - 1 {
                let key = pendingKey.hasEscapes
                    ? keyBuffer.bytes : UnsafeRawBufferPointer(rebasing: text[pendingKey.start..<pendingKey.end])
                guard key.elementsEqual(name) else { return false }
            } else {
                guard key(of: frame).elementsEqual(name) else { return false }
            }
        }
        return true
    }

    /// Reads the collection just opened (`index` is past its opener), handing each record to
    /// `scan` instead of parsing it, and moves past the closer. `container` (in the envelope's
    /// tree) stays empty. What the collection's own text gets wrong fails here as the whole tree
    /// fails on it: the same message, at the same place, with the same path.
    mutating func scanRecords(into container: Node, isObject: Bool, scan: CollectionScan) throws(ReshapeError) {
        let keepNames = region.map { !$0.canReread } ?? false
        scan.met(
            isObject ? .object : .array, container: container, root: stack.first?.container ?? container, start: index - 1,
            keepingNames: keepNames, path: stack.isEmpty ? "$" : currentPath())
        progress = nil  // The stream reports its batches from here on.
        // The stream gives back the input its batches are done with, the envelope's names included.
        saveKeys(below: index)
        let closer = UInt8(ascii: isObject ? "}" : "]")
        skipWhitespace()
        if index < text.count, text[index] == closer {
            index += 1
            scan.ended(at: index)
            return
        }
        // Each record's steps are functions of their own, kept out of line: every record is
        // reshaped below this frame (`scan.onRecord`), on a stack that may be small.
        var ordinal = 0
        while true {
            var slice = RecordSlice(start: 0, end: 0, keyStart: -1, keyEnd: -1, keyHasEscapes: false, ordinal: ordinal)
            if isObject {
                try readRecordName(into: &slice, scan: scan, keeping: keepNames)
            } else {
                skipWhitespace()
            }
            try skipRecord(&slice, scan: scan)
            try scan.onRecord(slice)
            ordinal += 1
            if try collectionEnds(isObject: isObject, scan: scan) { return }
        }
    }

    /// The whole tree's path for `error` met while scanning the collection: the collection's, or
    /// the record's (`slice`) while its value is read.
    private func scanError(_ error: ReshapeError, record slice: RecordSlice? = nil, scan: CollectionScan) -> ReshapeError {
        // A failed read, or the stream's own error raised before a read waits (a record that
        // cannot be read, a limit), ends the scan where it stands: that error is where it
        // belongs already (`failure(at:)` gives it back).
        if let readError { return readError }
        guard error.code != .ioError else { return error }
        var moved = error
        moved.path = slice.map { recordPath($0, in: scan) } ?? scan.path
        return moved
    }

    /// Reads a record's member name and its colon, and checks the name against the others.
    @inline(never)
    private mutating func readRecordName(into slice: inout RecordSlice, scan: CollectionScan, keeping keepNames: Bool) throws(ReshapeError) {
        skipWhitespace()
        guard index < text.count else {
            throw scanError(failure(at: index, "unexpected end of input, expected a member name"), scan: scan)
        }
        guard text[index] == UInt8(ascii: "\"") else {
            throw scanError(failure(at: index, "expected a member name in double quotes, found \(describeByte(at: index))"), scan: scan)
        }
        let quote = index
        let span: StringSpan
        do throws(ReshapeError) {
            span = try scanString()
        } catch {
            throw scanError(error, scan: scan)
        }
        (slice.keyStart, slice.keyEnd, slice.keyHasEscapes) = (span.start, span.end, span.hasEscapes)
        skipWhitespace()
        guard index < text.count else { throw scanError(failure(at: index, "unexpected end of input, expected ':'"), scan: scan) }
        guard text[index] == UInt8(ascii: ":") else {
            throw scanError(failure(at: index, "expected ':' after a member name, found \(describeByte(at: index))"), scan: scan)
        }
        index += 1
        skipWhitespace()
        keyBuffer.removeAll()
        if span.hasEscapes { Self.decodeEscapes(text, span, into: &keyBuffer) }
        let name = span.hasEscapes ? keyBuffer.bytes : UnsafeRawBufferPointer(rebasing: text[span.start..<span.end])
        do throws(ReshapeError) {
            try checkCollectionName(name, at: quote, scan: scan, keeping: keepNames)
        } catch {
            // The whole tree reads a value before it links it, unless the value is an
            // object or an array (linked as it opens): its errors come first.
            let opener = index < text.count ? text[index] : 0
            slice.start = index
            if opener != UInt8(ascii: "{") && opener != UInt8(ascii: "["),
                let valueError = valueError(from: index, path: recordPath(slice, in: scan))
            {
                throw valueError
            }
            throw scanError(error, record: slice, scan: scan)
        }
    }

    /// Moves past the record's value, which `slice` then spans.
    @inline(never)
    private mutating func skipRecord(_ slice: inout RecordSlice, scan: CollectionScan) throws(ReshapeError) {
        slice.start = index
        do throws(ReshapeError) {
            try skipValue()
        } catch {
            throw readError ?? valueError(from: slice.start, path: recordPath(slice, in: scan)) ?? scanError(error, record: slice, scan: scan)
        }
        slice.end = index
    }

    /// After a record: true at the collection's end (moved past it), false before the next record.
    @inline(never)
    private mutating func collectionEnds(isObject: Bool, scan: CollectionScan) throws(ReshapeError) -> Bool {
        skipWhitespace()
        guard index < text.count else {
            throw scanError(failure(at: index, "unexpected end of input, expected ',' or '\(isObject ? "}" : "]")'"), scan: scan)
        }
        if text[index] == UInt8(ascii: ",") {
            index += 1
            return false
        }
        guard text[index] == UInt8(ascii: isObject ? "}" : "]") else {
            let expected = isObject ? "',' or '}' after a member" : "',' or ']' after an element"
            throw scanError(failure(at: index, "expected \(expected), found \(describeByte(at: index))"), scan: scan)
        }
        index += 1
        scan.ended(at: index)
        return true
    }

    /// The normalized path of the record `slice` (its member name read from the input).
    private func recordPath(_ slice: RecordSlice, in scan: CollectionScan) -> String {
        var step = NormalizedPath()
        if slice.keyStart >= 0 {
            var decoded = ByteBuffer(capacity: slice.keyEnd - slice.keyStart)
            Self.decodeEscapes(text, StringSpan(start: slice.keyStart, end: slice.keyEnd, hasEscapes: slice.keyHasEscapes), into: &decoded)
            decoded.withBytes { step.append(key: String(jsonBytes: $0)) }
        } else {
            step.append(index: slice.ordinal)
        }
        return scan.path + step.text.dropFirst()
    }

    /// Refuses the collection's member `name` (decoded; its opening quote is just before `start`)
    /// when an earlier member has it, as the whole tree does.
    ///
    /// While names come in strictly ascending byte order, none can repeat an earlier one, and only
    /// the last is kept: Firebase answers with its keys sorted, and push ids sort as they were made.
    /// That saves a hash table lookup per record, a cache miss each in a collection of many records.
    /// The first name out of order fills the table with the names before it, read again from
    /// the input (once per collection), and the table decides from then on.
    private func checkCollectionName(
        _ name: UnsafeRawBufferPointer, at start: Int, scan: CollectionScan, keeping: Bool
    ) throws(ReshapeError) {
        // From a pipe, each name is kept for the checks of the names after it.
        defer { if keeping { keep(name, in: scan) } }
        let membersStart = scan.textRange.lowerBound + 1
        if scan.ascending {
            scan.seen += 1
            if scan.seen == 1 || Self.ascends(from: scan.lastName, to: name) {
                scan.lastName.removeAll(keepingCapacity: true)
                scan.lastName.append(contentsOf: name)
                return
            }
            scan.ascending = false
            scan.lastName = []
            // As many names as the sample below would have seen: size the table now.
            let capacity =
                scan.seen - 1 >= RecordNames.sampleSize
                ? collectionNamesCapacity(sampled: scan.seen - 1, before: start, scan: scan) : scan.names.slots.count
            scan.names = try rehashCollectionNames(from: membersStart, before: start, capacity: capacity, scan: scan)
        }
        if scan.names.count == RecordNames.sampleSize {
            // Sized once for the records the collection's length promises: growing reads
            // every name so far again, which would cost most of another scan.
            let capacity = collectionNamesCapacity(sampled: scan.names.count, before: start, scan: scan)
            if capacity > scan.names.slots.count {
                scan.names = try rehashCollectionNames(from: membersStart, before: start, capacity: capacity, scan: scan)
            }
        }
        if scan.names.isFull {
            scan.names = try rehashCollectionNames(
                from: membersStart, before: start, capacity: scan.names.slots.count * 4, scan: scan)
        }
        if !scan.names.insert(hash: RecordNames.hash(name)),
            try collectionHasName(name, from: membersStart, before: start, scan: scan)
        {
            throw failure(at: start, "duplicate member name \(quoted(String(jsonBytes: name)))")
        }
    }

    private func keep(_ name: UnsafeRawBufferPointer, in scan: CollectionScan) {
        let length = UInt32(truncatingIfNeeded: name.count)
        withUnsafeBytes(of: length) { scan.keptNames?.append(contentsOf: $0) }
        scan.keptNames?.append(contentsOf: name)
    }

    /// The table's slots for the records the collection's length promises, judged from the
    /// `sampled` names before `start`.
    private func collectionNamesCapacity(sampled: Int, before start: Int, scan: CollectionScan) -> Int {
        let membersStart = scan.textRange.lowerBound + 1
        // A pipe's size is known only at its end: the table then grows as names come.
        let total = region.map { $0.knownSize ?? $0.filled } ?? text.count
        let expected = RecordNames.expectedCount(
            sampled: sampled, sampleBytes: start - membersStart, totalBytes: total - membersStart)
        return RecordNames.capacity(for: expected, from: scan.names.slots.count, maxBytes: max(4 << 20, total / 64))
    }

    /// Whether `name` comes strictly after `last` in byte order (a longer name after its prefix).
    static func ascends(from last: [UInt8], to name: UnsafeRawBufferPointer) -> Bool {
        last.withUnsafeBytes { last in
            let shared = min(last.count, name.count)
            guard shared > 0, let lastBase = last.baseAddress, let nameBase = name.baseAddress else {
                return name.count > last.count
            }
            let order = memcmp(nameBase, lastBase, shared)
            return order > 0 || (order == 0 && name.count > last.count)
        }
    }

    /// Whether a member of the collection whose members start at `start` and before `end` (a
    /// member name's opening quote) is named `name`: read again, only when hashes say it may be.
    func collectionHasName(
        _ name: UnsafeRawBufferPointer, from start: Int, before end: Int, scan: CollectionScan
    ) throws(ReshapeError) -> Bool {
        var found = false
        try forEachCollectionName(from: start, before: end, scan: scan) { candidate in
            if candidate.elementsEqual(name) { found = true }
            return !found
        }
        return found
    }

    /// The names of the collection's members from `start` to before `end`, hashed again into a
    /// table of `capacity` slots.
    func rehashCollectionNames(
        from start: Int, before end: Int, capacity: Int, scan: CollectionScan
    ) throws(ReshapeError) -> RecordNames {
        var names = RecordNames(capacity: capacity)
        try forEachCollectionName(from: start, before: end, scan: scan) { name in
            // Names already read are distinct; a meeting of hashes here changes nothing.
            _ = names.insert(hash: RecordNames.hash(name))
            return true
        }
        return names
    }

    /// Calls `body` with each member name (decoded) of the collection from `start` to before `end`,
    /// while it returns true: read again from the input where it is still held, from the file
    /// where it was given back, or from the names a pipe's collection keeps.
    private func forEachCollectionName(
        from start: Int, before end: Int, scan: CollectionScan, _ body: (UnsafeRawBufferPointer) -> Bool
    ) throws(ReshapeError) {
        if let kept = scan.keptNames {
            kept.withUnsafeBytes { bytes in
                var offset = 0
                while offset + 4 <= bytes.count {
                    let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                    offset += 4
                    guard body(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])) else { return }
                    offset += length
                }
            }
            return
        }
        if let region, region.releasedTo > start {
            // Read the file again from the collection's members on, giving it back as it goes.
            var reader = JSONParser(
                text: UnsafeRawBufferPointer(start: nil, count: 0), allowDuplicateKeys: false, errorCode: .invalidJSON,
                rawDepth: nil, maxDepth: maxDepth)
            reader.region = try InputRegion(rereading: region, start..<end)
            reader.releasesBehind = true
            try Self.walkNames(&reader, before: end - start, body)
            if let error = reader.readError { throw error }
            return
        }
        var reader = JSONParser(
            text: UnsafeRawBufferPointer(rebasing: text[0..<end]), allowDuplicateKeys: false, errorCode: .invalidJSON,
            rawDepth: nil, maxDepth: maxDepth)
        reader.index = start
        try Self.walkNames(&reader, before: end, body)
    }

    /// Walks `reader` over member names and values up to `end`, which were read once already and
    /// so are a list of members, calling `body` with each name, decoded, while it returns true.
    private static func walkNames(
        _ reader: inout JSONParser, before end: Int, _ body: (UnsafeRawBufferPointer) -> Bool
    ) throws(ReshapeError) {
        var decoded = ByteBuffer(capacity: 64)
        while true {
            reader.skipWhitespace()
            reader.tokenStart = reader.index
            guard reader.index < end, reader.index < reader.text.count, let span = try? reader.scanString() else { return }
            let keepGoing: Bool
            if span.hasEscapes {
                decoded.removeAll()
                Self.decodeEscapes(reader.text, span, into: &decoded)
                keepGoing = decoded.withBytes { body($0) }
            } else {
                keepGoing = body(UnsafeRawBufferPointer(rebasing: reader.text[span.start..<span.end]))
            }
            guard keepGoing else { return }
            reader.skipWhitespace()
            reader.index += 1  // ':'
            reader.skipWhitespace()
            guard (try? reader.skipValue()) != nil else { return }
            reader.skipWhitespace()
            reader.index += 1  // ','
        }
    }

    /// Moves past the value starting at `index` without checking it: only strings (for their
    /// brackets) and nesting are followed. Fails at the end of the input. With a region, a value
    /// that goes on past what was read is read further, and the scan goes on where it stopped.
    mutating func skipValue() throws(ReshapeError) {
        ensure(1)
        guard index < text.count else { throw failure(at: index, "unexpected end of input, expected a value") }
        var position = index
        var depth = 0
        // Where the scan stopped at the end of what was read: inside a string (its content's
        // start), or inside a scalar.
        var openString = -1
        var inScalar = false
        while true {
            guard let base = text.baseAddress else { throw failure(at: index, "expected a value") }
            let bytes = base.assumingMemoryBound(to: UInt8.self)
            let count = text.count
            var cut = false
            if openString >= 0 {
                if let end = Self.closingQuote(bytes, from: position, count: count, contentStart: openString) {
                    (position, openString) = (end, -1)
                } else {
                    (position, cut) = (count, true)
                }
            } else if inScalar {
                while position < count, !isDelimiter(bytes[position]) { position += 1 }
                if position == count { cut = true } else { inScalar = false }
            }
            if !cut && position < count && (depth > 0 || position == index) {
                repeat {
                    let byte = bytes[position]
                    switch byte {
                    case UInt8(ascii: "\""):
                        let contentStart = position + 1
                        if let end = Self.closingQuote(bytes, from: contentStart, count: count, contentStart: contentStart) {
                            position = end
                        } else {
                            (position, openString, cut) = (count, contentStart, true)
                        }
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        depth += 1
                        position += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        guard depth > 0 else { throw failure(at: position, "expected a value") }
                        depth -= 1
                        position += 1
                    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"),
                        UInt8(ascii: "n"):
                        // A scalar: up to the next structural character or white space.
                        position += 1
                        while position < count, !isDelimiter(bytes[position]) { position += 1 }
                        if position == count { (inScalar, cut) = (true, true) }
                    default:
                        if depth == 0 { throw failure(at: position, "expected a value") }
                        position += 1
                    }
                } while !cut && depth > 0 && position < count
            }
            if !cut && depth == 0 {
                index = position
                return
            }
            // The value goes on past what was read.
            guard readMore() else { break }
        }
        // The input ended inside the value: only a scalar may end it.
        if inScalar && depth == 0 {
            index = position
            return
        }
        throw failure(at: index, openString >= 0 ? "unterminated string" : "unexpected end of input")
    }

    /// Past the closing quote of the string whose content starts at `contentStart`, looking from
    /// `from` on: the next quote not escaped, that is preceded by an even number of backslashes
    /// (memchr finds quotes far faster than a byte loop). Nil when `count` comes first.
    @inline(__always)
    private static func closingQuote(
        _ bytes: UnsafePointer<UInt8>, from: Int, count: Int, contentStart: Int
    ) -> Int? {
        var position = from
        while true {
            guard position < count, let found = memchr(bytes + position, 0x22, count - position) else { return nil }
            let quote = bytes.distance(to: found.assumingMemoryBound(to: UInt8.self))
            var backslashes = 0
            while quote - backslashes - 1 >= contentStart, bytes[quote - backslashes - 1] == 0x5C { backslashes += 1 }
            position = quote + 1
            if backslashes % 2 == 0 { return position }
        }
    }
}

/// Ends a scalar: structural characters and white space.
@inline(__always)
private func isDelimiter(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ":"), UInt8(ascii: "\""),
        UInt8(ascii: "{"), UInt8(ascii: "["), 0x20, 0x0A, 0x0D, 0x09:
        true
    default:
        false
    }
}
