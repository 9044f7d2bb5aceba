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
        var counter = LineCounter()
        counter.advance(over: UnsafeRawBufferPointer(rebasing: text[0..<min(max(0, offset), text.count)]))
        self.init(line: counter.line, column: counter.column, offset: offset)
    }
}

/// Counts lines and columns over text given a piece at a time: what `TextPosition` reports at the
/// end of the pieces. A line break starts a line; each byte that is not a UTF-8 continuation
/// byte is a column. Eight bytes at a time, since an input read from a pipe is counted whole.
struct LineCounter {
    private(set) var line = 1
    private(set) var column = 1

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
        guard let base = bytes.baseAddress else { return 0 }
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        var total = 0
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self) ^ (ones &* 0x0A)
            // The high bit of each byte that is zero, exactly (no borrow from a neighbour).
            let zero = ~(((word & low7) &+ low7) | word | low7)
            total += zero.nonzeroBitCount
            offset += 8
        }
        while offset < bytes.count {
            if bytes[offset] == 0x0A { total += 1 }
            offset += 1
        }
        return total
    }

    /// The bytes of the form 10xxxxxx.
    private static func countContinuationBytes(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        var total = 0
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            total += (word & ~(word << 1) & highBits).nonzeroBitCount
            offset += 8
        }
        while offset < bytes.count {
            if bytes[offset] & 0xC0 == 0x80 { total += 1 }
            offset += 1
        }
        return total
    }
}
