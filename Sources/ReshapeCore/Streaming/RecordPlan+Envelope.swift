/// Finding a collection that no rule's path names.
///
/// The plan's chain comes from the rules' paths (`RecordPlan.make`). Rules that only use `$..*`
/// name none, so `{"data": [...]}` would stream as an object of one record, reshaped on a tree as
/// large as the document. Here the root object's first members are measured (their extent only,
/// by the same quick scan that finds records), and a member holding most of the document becomes
/// the collection when every rule runs per record there too.
extension RecordPlan {
    /// How many of an object's first members are measured.
    static let envelopeMembersMeasured = 16
    /// How deep an envelope is followed (`{"response": {"data": [...]}}` is 2).
    static let envelopeDepthFollowed = 4
    /// The plan for the collection inside the members of the root object that hold more than
    /// half of the input (an array, or an object of records), followed down while they do (the
    /// deepest such collection), when this plan's collection is the root and every rule runs per
    /// record at that deeper collection; nil otherwise, or when the input cannot be scanned (the
    /// stream's parser then says why). Each level scans the member it enters once more: at most
    /// `envelopeDepthFollowed` passes.
    ///
    /// A regular file is read again from its start, its first `readAhead` bytes at most,
    /// and a member that goes on past them holds more than half of it as far as this goes (were
    /// it not the largest, the larger one would be reshaped on a tree, as the root's member would
    /// have been). A pipe cannot be read again, and is not measured.
    func deeper(in input: StreamInput, operations: [any Operation], readAhead: Int) -> RecordPlan? {
        guard inputChain.isEmpty, let total = input.knownSize else { return nil }
        var parser: JSONParser
        var partial = false
        switch input {
        case .memory(let bytes):
            parser = JSONParser(
                text: bytes, allowDuplicateKeys: false, errorCode: .invalidJSON, rawDepth: nil, maxDepth: Self.envelopeDepthFollowed + 1)
        case .region(let region):
            guard region.canReread, let ahead = try? InputRegion(rereading: region, 0..<min(total, readAhead)) else { return nil }
            parser = StreamInput.region(ahead).parser(maxDepth: Self.envelopeDepthFollowed + 1)
            partial = total > readAhead
        }
        var chain: [[UInt8]] = []
        var found: RecordPlan? = nil
        for _ in 0..<Self.envelopeDepthFollowed {
            guard Self.nextByte(&parser) == UInt8(ascii: "{"),
                let (name, opener) = Self.largestMember(&parser, total: total, partial: partial)
            else { break }
            chain.append(name)
            let plan = RecordPlan(
                inputChain: chain,
                forObject: Self.follow(operations, chain: chain, kind: .object),
                forArray: Self.follow(operations, chain: chain, kind: .array))
            // A level where some rule needs the whole document (renaming an object collection's
            // members) may still lead to one where none does.
            if plan.route(for: opener == UInt8(ascii: "{") ? .object : .array).reason == nil { found = plan }
        }
        return found
    }

    /// The next byte that is not white space (`skipWhitespace` reads more of a region for it).
    private static func nextByte(_ parser: inout JSONParser) -> UInt8? {
        parser.skipWhitespace()
        return parser.index < parser.text.count ? parser.text[parser.index] : nil
    }

    /// Moves `parser` from an object's `{` to the value of the first of its first members that
    /// holds more than half of the input (`total` bytes) in an array or an object, or that goes
    /// on past what the parser may read of it (`partial`), and returns that member's name and the
    /// value's first byte; nil when none of them does or the text cannot be scanned.
    private static func largestMember(_ parser: inout JSONParser, total: Int, partial: Bool) -> ([UInt8], UInt8)? {
        parser.index += 1
        for _ in 0..<envelopeMembersMeasured {
            guard nextByte(&parser) == UInt8(ascii: "\""), let span = try? parser.scanString() else { return nil }
            guard nextByte(&parser) == UInt8(ascii: ":") else { return nil }
            parser.index += 1
            guard let opener = nextByte(&parser) else { return nil }
            let start = parser.index
            let container = opener == UInt8(ascii: "{") || opener == UInt8(ascii: "[")
            let largest: Bool
            do throws(ReshapeError) {
                try parser.skipValue()
                largest = container && parser.index - start > total / 2
            } catch {
                // Past what may be read ahead (or not JSON there: the stream says why).
                guard container && partial else { return nil }
                largest = true
            }
            if largest {
                // Nothing read ahead is given back: the name's text is still there.
                var name = ByteBuffer(capacity: span.end - span.start)
                if span.hasEscapes {
                    JSONParser.decodeEscapes(parser.text, span, into: &name)
                } else {
                    name.append(UnsafeRawBufferPointer(rebasing: parser.text[span.start..<span.end]))
                }
                parser.index = start
                return (Array(name.bytes), opener)
            }
            guard nextByte(&parser) == UInt8(ascii: ",") else { return nil }
            parser.index += 1
        }
        return nil
    }
}
