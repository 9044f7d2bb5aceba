/// Line and column of a byte offset in JSON text, computed only when an error needs them.
struct TextPosition {
    /// 1-based line.
    var line: Int
    /// 1-based column, counted in Unicode scalars so that it matches what an editor shows.
    var column: Int
    /// 0-based byte offset.
    var offset: Int

    init(line: Int, column: Int, offset: Int) {
        self.line = line
        self.column = column
        self.offset = offset
    }

    init(of offset: Int, in text: UnsafeRawBufferPointer) {
        self.init(of: offset, in: text, after: nil)
    }

    /// The position of `offset` in `text`, counted on from `known` (a position found before in
    /// the same text) when it is not after `offset`: a stream naming many places in order counts
    /// each byte once, not once per place.
    init(of offset: Int, in text: UnsafeRawBufferPointer, after known: TextPosition?) {
        let end = min(max(0, offset), text.count)
        var counter = LineCounter()
        var from = 0
        if let known, known.line > 0, known.offset >= 0, known.offset <= end {
            (counter, from) = (LineCounter(at: known), known.offset)
        }
        counter.advance(over: UnsafeRawBufferPointer(rebasing: text[from..<end]))
        self.init(line: counter.line, column: counter.column, offset: offset)
    }
}

/// Counts lines and columns over text given a piece at a time: what `TextPosition` reports at the
/// end of the pieces. A line break starts a line; each byte that is not a UTF-8 continuation
/// byte is a column. Eight bytes at a time: an input read from a pipe is counted whole, and an
/// error near the end of a large file counts the whole file before it.
struct LineCounter {
    private(set) var line = 1
    private(set) var column = 1

    /// A counter at the start of the text.
    init() {}

    /// A counter at `position`, to count on from there.
    init(at position: TextPosition) {
        (line, column) = (position.line, position.column)
    }

    mutating func advance(over bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let count = bytes.count
        let breaks = Self.countLineBreaks(bytes)
        var tail = 0
        if breaks > 0 {
            line += breaks
            column = 1
            // Only the bytes after the last line break count as columns.
            var last = count - 1
            while base.load(fromByteOffset: last, as: UInt8.self) != 0x0A { last -= 1 }
            tail = last + 1
        }
        let scalars = (count - tail) - Self.countContinuationBytes(UnsafeRawBufferPointer(rebasing: bytes[tail...]))
        column += scalars
    }

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// The bytes equal to 0x0A.
    private static func countLineBreaks(_ bytes: UnsafeRawBufferPointer) -> Int {
        countBytes(in: bytes, where: { $0 == 0x0A }) { word in
            let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
            let bits = word ^ (ones &* 0x0A)
            // The high bit of each byte that is zero, exactly (no borrow from a neighbour).
            return ~(((bits & low7) &+ low7) | bits | low7) >> 7
        }
    }

    /// The Unicode scalars of valid UTF-8 `bytes`: its bytes that do not continue a scalar.
    static func scalars(in bytes: UnsafeRawBufferPointer) -> Int { bytes.count - countContinuationBytes(bytes) }

    /// The bytes of the form 10xxxxxx.
    private static func countContinuationBytes(_ bytes: UnsafeRawBufferPointer) -> Int {
        countBytes(in: bytes, where: { $0 & 0xC0 == 0x80 }) { word in (word & ~(word << 1) & highBits) >> 7 }
    }

    /// The bytes of `bytes` for which `test` holds: eight at a time, `lanes` giving a word with
    /// 1 in each byte for which it holds, summed byte by byte (no population count, which the
    /// baseline x86-64 target lacks); then one by one.
    @inline(__always)
    private static func countBytes(
        in bytes: UnsafeRawBufferPointer, where test: (UInt8) -> Bool, _ lanes: (UInt64) -> UInt64
    ) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var total = 0
        var offset = 0
        while bytes.count - offset >= 8 {
            // A count per byte, emptied before it could pass 255.
            var sums: UInt64 = 0
            var words = min((bytes.count - offset) / 8, 255)
            while words > 0 {
                sums &+= lanes(base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                offset += 8
                words -= 1
            }
            let pairs = (sums & 0x00FF_00FF_00FF_00FF) &+ ((sums >> 8) & 0x00FF_00FF_00FF_00FF)
            total += Int(truncatingIfNeeded: (pairs &* 0x0001_0001_0001_0001) >> 48)
        }
        while offset < bytes.count {
            if test(base.load(fromByteOffset: offset, as: UInt8.self)) { total += 1 }
            offset += 1
        }
        return total
    }
}
