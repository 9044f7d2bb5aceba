/// Line and column of a byte offset in JSON text, computed only when an error needs them.
struct TextPosition {
    /// 1-based line.
    var line: Int
    /// 1-based column, counted in Unicode scalars so that it matches what an editor shows.
    var column: Int
    /// 0-based byte offset.
    var offset: Int

    init(of offset: Int, in text: UnsafeRawBufferPointer) {
        var line = 1
        var column = 1
        let end = min(offset, text.count)
        var index = 0
        while index < end {
            let byte = text[index]
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                // Continuation bytes belong to the scalar already counted.
                column += 1
            }
            index += 1
        }
        self.line = line
        self.column = column
        self.offset = offset
    }
}
