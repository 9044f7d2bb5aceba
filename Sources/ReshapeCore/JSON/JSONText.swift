/// How the engine writes a string: quoted, escaping only `"`, `\` and control characters (short
/// forms where JSON has them, `\u00XX` otherwise); everything else stays UTF-8.
///
/// Shared by the writer and by the parser's raw-text capture, so both write the same bytes.
enum JSONText {
    /// Appends `bytes` (valid UTF-8) as a quoted JSON string, copying runs that need no escape in
    /// one go.
    static func appendQuoted(_ bytes: UnsafeRawBufferPointer, to out: inout ByteBuffer) {
        out.append(UInt8(ascii: "\""))
        var runStart = 0
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if isPlain(byte) {
                index += 1
                continue
            }
            out.append(UnsafeRawBufferPointer(rebasing: bytes[runStart..<index]))
            switch byte {
            case UInt8(ascii: "\""): out.append("\\\"" as StaticString)
            case UInt8(ascii: "\\"): out.append("\\\\" as StaticString)
            case 0x0A: out.append("\\n" as StaticString)
            case 0x0D: out.append("\\r" as StaticString)
            case 0x09: out.append("\\t" as StaticString)
            case 0x08: out.append("\\b" as StaticString)
            case 0x0C: out.append("\\f" as StaticString)
            default:
                out.append("\\u00" as StaticString)
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0xF))
            }
            index += 1
            runStart = index
        }
        out.append(UnsafeRawBufferPointer(rebasing: bytes[runStart..<count]))
        out.append(UInt8(ascii: "\""))
    }

    /// Appends a Swift string as a quoted JSON string.
    /// True when `bytes` are written between quotes as they are: no quote, backslash or control
    /// character (what `appendQuoted` escapes).
    static func isPlain(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.allSatisfy(isPlain)
    }

    /// A byte written as it is: not a quote, a backslash or a control character.
    @inline(__always)
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }

    static func appendQuoted(_ text: String, to out: inout ByteBuffer) {
        var text = text
        text.withUTF8 { appendQuoted(UnsafeRawBufferPointer($0), to: &out) }
    }

    @inline(__always)
    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
