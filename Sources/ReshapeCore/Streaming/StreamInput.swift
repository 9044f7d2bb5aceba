/// What a reshaping reads: input all in memory (`Rules.apply`), or a region read from a file or a
/// pipe as the work goes (`Rules.applyFile`, `apply(fromDescriptor:...)`).
enum StreamInput {
    case memory(UnsafeRawBufferPointer)
    case region(InputRegion)

    /// The region the input is read into, if it is not all in memory.
    var region: InputRegion? {
        if case .region(let region) = self { return region }
        return nil
    }

    /// The input's size when it is known from the start: nil for a pipe, until its end.
    var knownSize: Int? {
        switch self {
        case .memory(let bytes): bytes.count
        case .region(let region): region.knownSize ?? (region.isAtEnd ? region.filled : nil)
        }
    }

    /// The bytes read so far: all of them for input in memory.
    var bytesRead: Int {
        switch self {
        case .memory(let bytes): bytes.count
        case .region(let region): region.filled
        }
    }

    /// What the offsets of records point into, for as long as the records are in flight.
    var wholeRange: UnsafeRawBufferPointer {
        switch self {
        case .memory(let bytes): bytes
        case .region(let region): region.wholeRange
        }
    }

    /// A parser of the input from its start, reading a region as it goes.
    func parser(maxDepth: Int) -> JSONParser {
        switch self {
        case .memory(let bytes):
            return JSONParser(text: bytes, allowDuplicateKeys: false, errorCode: .invalidJSON, rawDepth: nil, maxDepth: maxDepth)
        case .region(let region):
            var parser = JSONParser(
                text: region.text, allowDuplicateKeys: false, errorCode: .invalidJSON, rawDepth: nil, maxDepth: maxDepth)
            parser.region = region
            return parser
        }
    }

    /// The line and column of `offset`, counted on from `known` when it is a position found
    /// before and not after `offset` (see `InputRegion.position(of:after:)`).
    func position(of offset: Int, after known: TextPosition?) -> TextPosition {
        switch self {
        case .memory(let bytes): TextPosition(of: offset, in: bytes, after: known)
        case .region(let region): region.position(of: offset, after: known)
        }
    }

    /// Tells a region that the input before `offset` is done with.
    func release(below offset: Int) {
        region?.release(below: offset)
    }
}
