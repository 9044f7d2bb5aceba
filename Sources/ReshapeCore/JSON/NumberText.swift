/// Number text as the writer and `coerce` produce it.
enum NumberText {
    /// Appends the decimal text of an integer.
    static func append(_ value: Int64, to out: inout ByteBuffer) {
        if value == 0 {
            out.append(UInt8(ascii: "0"))
            return
        }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        let count = withUnsafeMutableBytes(of: &digits) { buffer -> Int in
            var position = buffer.count
            while magnitude > 0 {
                position -= 1
                buffer[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            return buffer.count - position
        }
        if value < 0 { out.append(UInt8(ascii: "-")) }
        withUnsafeBytes(of: &digits) { buffer in
            out.append(UnsafeRawBufferPointer(rebasing: buffer[(buffer.count - count)...]))
        }
    }

    /// Appends the shortest text that reads back as exactly `value`, always marked as a real
    /// (`1.0`, `1e+16`), so that a real stays a real after a round trip.
    ///
    /// jansson's own dump uses `%.17g` (`0.1` becomes `0.10000000000000001`); Swift's description
    /// is the shortest round-trip form. Its exponent is tidied to JSON's usual look (`1e-05` becomes
    /// `1e-5`).
    static func append(_ value: Double, to out: inout ByteBuffer) {
        out.append(text(of: value))
    }

    static func text(of value: Double) -> String {
        let description = value.description
        guard let e = description.utf8.firstIndex(of: UInt8(ascii: "e")) else { return description }
        var result = String(description[..<e]) + "e"
        var exponent = description[description.utf8.index(after: e)...]
        if let sign = exponent.first, sign == "-" || sign == "+" {
            result.append(sign)
            exponent = exponent.dropFirst()
        }
        let digits = exponent.drop(while: { $0 == "0" })
        result += digits.isEmpty ? "0" : String(digits)
        return result
    }

    /// The decimal text of an integer.
    static func text(of value: Int64) -> String {
        String(value)
    }
}
