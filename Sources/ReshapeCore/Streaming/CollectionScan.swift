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

    /// Told of the input read again to check names (see `RecordNames`), to give it back.
    var reread: (@Sendable (Range<Int>) -> Void)? = nil

    /// Whether the collection should be streamed at all for this kind; set by the caller.
    var accepts: (RecordPlan.Kind) -> Bool = { _ in true }

    fileprivate func met(_ kind: RecordPlan.Kind, container: Node, root: Node, start: Int) {
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
                guard decodedKey(at: frame.keyStart).utf8.elementsEqual(name) else { return false }
            }
        }
        return true
    }

    /// Reads the collection just opened (`index` is past its opener), handing each record to
    /// `scan` instead of parsing it, and moves past the closer. `container` (in the envelope's
    /// tree) stays empty.
    mutating func scanRecords(into container: Node, isObject: Bool, scan: CollectionScan) throws(ReshapeError) {
        scan.met(isObject ? .object : .array, container: container, root: stack.first?.container ?? container, start: index - 1)
        progress = nil  // The stream reports its batches from here on.
        let closer = UInt8(ascii: isObject ? "}" : "]")
        skipWhitespace()
        if index < text.count, text[index] == closer {
            index += 1
            scan.ended(at: index)
            return
        }
        while true {
            var slice = RecordSlice(start: 0, end: 0, keyStart: -1, keyEnd: -1, keyHasEscapes: false)
            if isObject {
                skipWhitespace()
                guard index < text.count, text[index] == UInt8(ascii: "\"") else {
                    throw failure(at: index, "expected a member name")
                }
                let span = try scanString()
                (slice.keyStart, slice.keyEnd, slice.keyHasEscapes) = (span.start, span.end, span.hasEscapes)
                keyBuffer.removeAll()
                if span.hasEscapes { Self.decodeEscapes(text, span, into: &keyBuffer) }
                let name = span.hasEscapes ? keyBuffer.bytes : UnsafeRawBufferPointer(rebasing: text[span.start..<span.end])
                try checkCollectionName(name, at: span.start, scan: scan)
                skipWhitespace()
                guard index < text.count, text[index] == UInt8(ascii: ":") else { throw failure(at: index, "expected ':'") }
                index += 1
            }
            skipWhitespace()
            slice.start = index
            try skipValue()
            slice.end = index
            try scan.onRecord(slice)
            skipWhitespace()
            guard index < text.count else { throw failure(at: index, "unexpected end of input") }
            if text[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard text[index] == closer else { throw failure(at: index, "expected ',' or the collection's end") }
            index += 1
            scan.ended(at: index)
            return
        }
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
        _ name: UnsafeRawBufferPointer, at start: Int, scan: CollectionScan
    ) throws(ReshapeError) {
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
            scan.names = rehashCollectionNames(from: membersStart, before: start - 1, capacity: capacity, reread: scan.reread)
        }
        if scan.names.count == RecordNames.sampleSize {
            // Sized once for the records the collection's length promises: growing reads
            // every name so far again, which would cost most of another scan.
            let capacity = collectionNamesCapacity(sampled: scan.names.count, before: start, scan: scan)
            if capacity > scan.names.slots.count {
                scan.names = rehashCollectionNames(from: membersStart, before: start - 1, capacity: capacity, reread: scan.reread)
            }
        }
        if scan.names.isFull {
            scan.names = rehashCollectionNames(
                from: membersStart, before: start - 1, capacity: scan.names.slots.count * 4, reread: scan.reread)
        }
        if !scan.names.insert(hash: RecordNames.hash(name)),
            collectionHasName(name, from: membersStart, before: start - 1, reread: scan.reread)
        {
            throw failure(at: start, "duplicate member name")
        }
    }

    /// The table's slots for the records the collection's length promises, judged from the
    /// `sampled` names before `start`.
    private func collectionNamesCapacity(sampled: Int, before start: Int, scan: CollectionScan) -> Int {
        let membersStart = scan.textRange.lowerBound + 1
        let expected = RecordNames.expectedCount(
            sampled: sampled, sampleBytes: start - membersStart, totalBytes: text.count - membersStart)
        return RecordNames.capacity(for: expected, from: scan.names.slots.count, maxBytes: max(4 << 20, text.count / 64))
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
        _ name: UnsafeRawBufferPointer, from start: Int, before end: Int, reread: (@Sendable (Range<Int>) -> Void)?
    ) -> Bool {
        var found = false
        forEachCollectionName(from: start, before: end, reread: reread) { candidate in
            if candidate.elementsEqual(name) { found = true }
            return !found
        }
        return found
    }

    /// The names of the collection's members from `start` to before `end`, hashed again into a
    /// table of `capacity` slots.
    func rehashCollectionNames(
        from start: Int, before end: Int, capacity: Int, reread: (@Sendable (Range<Int>) -> Void)?
    ) -> RecordNames {
        var names = RecordNames(capacity: capacity)
        forEachCollectionName(from: start, before: end, reread: reread) { name in
            // Names already read are distinct; a meeting of hashes here changes nothing.
            _ = names.insert(hash: RecordNames.hash(name))
            return true
        }
        return names
    }

    /// Calls `body` with each member name (decoded) of the collection from `start` to before `end`,
    /// while it returns true. That text was read once already, so it is a list of members. What
    /// is read again is handed to `reread` as it goes, so that a mapped file can give it back.
    private func forEachCollectionName(
        from start: Int, before end: Int, reread: (@Sendable (Range<Int>) -> Void)?,
        _ body: (UnsafeRawBufferPointer) -> Bool
    ) {
        var given = start
        defer { reread?(given..<end) }
        var reader = JSONParser(
            text: UnsafeRawBufferPointer(rebasing: text[0..<end]), allowDuplicateKeys: false, errorCode: .invalidJSON,
            rawDepth: nil, maxDepth: maxDepth)
        reader.index = start
        var decoded = ByteBuffer(capacity: 64)
        while true {
            reader.skipWhitespace()
            guard reader.index < end, let span = try? reader.scanString() else { return }
            let keepGoing: Bool
            if span.hasEscapes {
                decoded.removeAll()
                Self.decodeEscapes(reader.text, span, into: &decoded)
                keepGoing = decoded.withBytes { body($0) }
            } else {
                keepGoing = body(UnsafeRawBufferPointer(rebasing: reader.text[span.start..<span.end]))
            }
            guard keepGoing else { return }
            if reader.index - given >= 1 << 22 {
                reread?(given..<reader.index)
                given = reader.index
            }
            reader.skipWhitespace()
            reader.index += 1  // ':'
            reader.skipWhitespace()
            guard (try? reader.skipValue()) != nil else { return }
            reader.skipWhitespace()
            reader.index += 1  // ','
        }
    }

    /// Moves past the value starting at `index` without checking it: only strings (for their
    /// brackets) and nesting are followed. Fails at the end of the input.
    mutating func skipValue() throws(ReshapeError) {
        let count = text.count
        guard index < count, let base = text.baseAddress else { throw failure(at: index, "expected a value") }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        var position = index
        var depth = 0
        repeat {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                // The closing quote is the next one not escaped: preceded by an even number of
                // backslashes (memchr finds quotes far faster than a byte loop).
                let contentStart = position + 1
                position = contentStart
                while true {
                    guard position < count, let found = memchr(bytes + position, 0x22, count - position) else {
                        throw failure(at: index, "unterminated string")
                    }
                    let quote = bytes.distance(to: found.assumingMemoryBound(to: UInt8.self))
                    var backslashes = 0
                    while quote - backslashes - 1 >= contentStart, bytes[quote - backslashes - 1] == 0x5C { backslashes += 1 }
                    position = quote + 1
                    if backslashes % 2 == 0 { break }
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
            default:
                if depth == 0 { throw failure(at: position, "expected a value") }
                position += 1
            }
        } while depth > 0 && position < count
        guard depth == 0 else { throw failure(at: index, "unexpected end of input") }
        index = position
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
