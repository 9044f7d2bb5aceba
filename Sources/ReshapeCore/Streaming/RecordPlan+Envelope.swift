/// Finding a collection that no rule's path names, in a document in memory.
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
    /// half of `text` (an array, or an object of records), followed down while they do (the
    /// deepest such collection), when this plan's collection is the root and every rule runs per
    /// record at that deeper collection;
    /// nil otherwise, or when `text` cannot be scanned (the stream's parser then says why). Each
    /// level scans the member it enters once more: at most `envelopeDepthFollowed` passes.
    func deeper(in text: UnsafeRawBufferPointer, operations: [any Operation]) -> RecordPlan? {
        guard inputChain.isEmpty else { return nil }
        var parser = JSONParser(
            text: text, allowDuplicateKeys: false, errorCode: .invalidJSON, rawDepth: nil, maxDepth: Self.envelopeDepthFollowed + 1)
        parser.skipWhitespace()
        var chain: [[UInt8]] = []
        var found: RecordPlan? = nil
        for _ in 0..<Self.envelopeDepthFollowed {
            guard parser.index < text.count, text[parser.index] == UInt8(ascii: "{"),
                let (name, opener) = Self.largestMember(&parser, text: text)
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

    /// Moves `parser` from an object's `{` to the value of the first of its first members that
    /// holds more than half of `text` in an array or an object, and returns that member's name
    /// and the value's first byte; nil when none of them does or the text cannot be scanned.
    private static func largestMember(_ parser: inout JSONParser, text: UnsafeRawBufferPointer) -> ([UInt8], UInt8)? {
        parser.index += 1
        var name = ByteBuffer(capacity: 64)
        for _ in 0..<envelopeMembersMeasured {
            parser.skipWhitespace()
            guard parser.index < text.count, text[parser.index] == UInt8(ascii: "\"") else { return nil }
            guard let span = try? parser.scanString() else { return nil }
            parser.skipWhitespace()
            guard parser.index < text.count, text[parser.index] == UInt8(ascii: ":") else { return nil }
            parser.index += 1
            parser.skipWhitespace()
            guard parser.index < text.count else { return nil }
            let start = parser.index
            let opener = text[start]
            guard (try? parser.skipValue()) != nil else { return nil }
            if opener == UInt8(ascii: "{") || opener == UInt8(ascii: "["), parser.index - start > text.count / 2 {
                name.removeAll()
                if span.hasEscapes {
                    JSONParser.decodeEscapes(text, span, into: &name)
                } else {
                    name.append(UnsafeRawBufferPointer(rebasing: text[span.start..<span.end]))
                }
                parser.index = start
                return (Array(name.bytes), opener)
            }
            parser.skipWhitespace()
            guard parser.index < text.count, text[parser.index] == UInt8(ascii: ",") else { return nil }
            parser.index += 1
        }
        return nil
    }
}
