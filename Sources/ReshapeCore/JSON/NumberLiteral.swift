/// A JSON number literal (RFC 8259 grammar) and the node that holds it without changing it.
///
/// Shared by the parser and by `coerce`, so a string coerced to a number means exactly what the
/// same text means as a number in the input.
struct NumberLiteral {
    /// The literal's bytes.
    let text: UnsafeRawBufferPointer
    /// True when the literal has a fraction or an exponent.
    let isReal: Bool

    /// Scans a number starting at `start`. Returns the literal and the offset after it, or the
    /// offset and message of the first byte that breaks the grammar.
    static func scan(
        _ bytes: UnsafeRawBufferPointer, from start: Int
    ) -> Result<(NumberLiteral, end: Int), NumberSyntaxError> {
        var index = start
        let end = bytes.count
        if index < end, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < end, isDigit(bytes[index]) else {
            return .failure(NumberSyntaxError(offset: index, message: "expected a digit in the number"))
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < end, isDigit(bytes[index]) {
                return .failure(NumberSyntaxError(offset: index - 1, message: "leading zeros are not allowed in numbers"))
            }
        } else {
            while index < end, isDigit(bytes[index]) { index += 1 }
        }
        var isReal = false
        if index < end, bytes[index] == UInt8(ascii: ".") {
            isReal = true
            index += 1
            guard index < end, isDigit(bytes[index]) else {
                return .failure(NumberSyntaxError(offset: index, message: "expected a digit after the decimal point"))
            }
            while index < end, isDigit(bytes[index]) { index += 1 }
        }
        if index < end, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isReal = true
            index += 1
            if index < end, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < end, isDigit(bytes[index]) else {
                return .failure(NumberSyntaxError(offset: index, message: "expected a digit in the exponent"))
            }
            while index < end, isDigit(bytes[index]) { index += 1 }
        }
        let literal = NumberLiteral(text: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), isReal: isReal)
        return .success((literal, index))
    }

    /// The whole of `bytes` as a number literal, or nil if it is anything else (no spaces, no `+`).
    static func exact(_ bytes: UnsafeRawBufferPointer) -> NumberLiteral? {
        guard case .success(let (literal, end)) = scan(bytes, from: 0), end == bytes.count else { return nil }
        return literal
    }

    /// How the engine holds a number: exactly, always.
    enum Held {
        /// Fits in 64 bits, written without fraction or exponent.
        case integer(Int64)
        /// A double holds it; written back in shortest round-trip form.
        case real(Double)
        /// Neither holds it exactly (beyond 64 bits, overflow, underflow, `-0`): kept as its text.
        case text
    }

    /// The one decision of how this literal is held, shared by the tree and the raw-text paths.
    var held: Held {
        if !isReal {
            if let value = int64Value { return .integer(value) }
            return .text
        }
        if isWrittenAsItIs { return .real(Double(String(decoding: text, as: UTF8.self)) ?? .nan) }
        return heldReal.map { .real($0.value) } ?? .text
    }

    /// Whether this real is written exactly as its text, so that neither its double nor the
    /// double's shortest form needs computing: a plain decimal (`317.75`, `10.0`, `0.0001`; no
    /// exponent, no trailing zero in the fraction but a lone `0`, no more than three zeros after
    /// the point when it is below 1) of at most 15 significant digits. A double holds any decimal
    /// of 15 digits or fewer and gives back the same digits as its shortest form (DBL_DIG), and
    /// below 2^53 and from 1e-4 up that form is written without an exponent, as the literal is.
    var isWrittenAsItIs: Bool {
        var index = 0
        let count = text.count
        if index < count, text[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        while index < count, isDigit(text[index]) { index += 1 }
        let integerDigits = index - integerStart
        guard integerDigits > 0, index < count, text[index] == UInt8(ascii: ".") else { return false }
        index += 1
        let fractionStart = index
        while index < count, isDigit(text[index]) { index += 1 }
        let fractionDigits = index - fractionStart
        guard index == count, fractionDigits > 0 else { return false }  // An exponent follows.
        if text[count - 1] == UInt8(ascii: "0") { return fractionDigits == 1 && integerDigits <= 14 }
        guard text[integerStart] == UInt8(ascii: "0") else { return integerDigits + fractionDigits <= 15 }
        // `0.` and a fraction: its leading zeros are not significant.
        var zeros = 0
        while text[fractionStart + zeros] == UInt8(ascii: "0") { zeros += 1 }
        return zeros <= 3 && fractionDigits - zeros <= 15
    }

    /// For a real: the double that holds it and the text it is written as, or nil when no double
    /// holds it exactly.
    private var heldReal: (value: Double, written: String)? {
        let value = Double(String(decoding: text, as: UTF8.self)) ?? .nan
        guard value.isFinite else { return nil }  // Overflow: a double would change the number.
        // The double is written back in its shortest form; keep it only if that form is the same
        // decimal number as the literal (1.50 and 1.5 are; 9007199254740993.0 and 2.5e-324 are not).
        var written = NumberText.text(of: value)
        let same = written.withUTF8 { (bytes) -> Bool in
            let bytes = UnsafeRawBufferPointer(bytes)
            return bytes.elementsEqual(text) || Self.decimal(of: text) == Self.decimal(of: bytes)
        }
        return same ? (value, written) : nil
    }

    /// A number literal's value as sign, significant digits (no leading or trailing zeros) and the
    /// power of ten of the last digit: equal exactly when two literals denote the same number.
    private static func decimal(of text: UnsafeRawBufferPointer) -> (negative: Bool, digits: [UInt8], exponent: Int) {
        var digits: [UInt8] = []
        let (negative, exponent) = significantDigits(of: text, appendingTo: &digits)
        return (negative, digits, exponent)
    }

    /// Appends the significant digits of a literal to `digits` (none for zero), and gives its
    /// sign and the power of ten of its last digit (0 for zero).
    private static func significantDigits(of text: UnsafeRawBufferPointer, appendingTo digits: inout [UInt8]) -> (negative: Bool, exponent: Int) {
        let start = digits.count
        var exponent = 0
        var afterPoint = false
        var index = 0
        let negative = text.first == UInt8(ascii: "-")
        if negative { index = 1 }
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: ".") {
                afterPoint = true
            } else if byte | 0x20 == UInt8(ascii: "e") {
                var sign = 1
                index += 1
                if index < text.count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                    sign = text[index] == UInt8(ascii: "-") ? -1 : 1
                    index += 1
                }
                var power = 0
                while index < text.count {
                    power = min(power &* 10 &+ Int(text[index] &- UInt8(ascii: "0")), 1_000_000_000)
                    index += 1
                }
                exponent += sign * power
                break
            } else {
                if !(digits.count == start && byte == UInt8(ascii: "0")) { digits.append(byte) }
                if afterPoint { exponent -= 1 }
            }
            index += 1
        }
        while digits.count > start, digits[digits.count - 1] == UInt8(ascii: "0") {
            digits.removeLast()
            exponent += 1
        }
        if digits.count == start { exponent = 0 }
        return (negative, exponent)
    }

    /// Appends bytes that two number literals share exactly when they denote the same number (`1`, `1.0`,
    /// `10e-1` and `0.1e1` have one key; `-0` has `0`'s): sign, significant digits and the power
    /// of ten of the last one. An exponent too long for 15 digits keeps the literal's own text.
    static func appendValueKey(of text: UnsafeRawBufferPointer, to key: inout [UInt8]) {
        let start = key.count
        let (negative, exponent) = significantDigits(of: text, appendingTo: &key)
        if exponent.magnitude >= 100_000_000 {
            key.removeSubrange(start...)
            key.append(UInt8(ascii: "~"))
            key += text
            return
        }
        if negative && key.count > start { key.insert(UInt8(ascii: "-"), at: start) }
        key.append(UInt8(ascii: "e"))
        appendDecimal(exponent, to: &key)
    }

    /// Appends `value` in decimal, a `-` before it when negative, with no `String` made.
    static func appendDecimal(_ value: Int, to key: inout [UInt8]) {
        if value < 0 { key.append(UInt8(ascii: "-")) }
        let start = key.count
        var rest = value.magnitude
        repeat {
            key.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        key[start...].reverse()
    }

    /// The order of two number literals by their exact values: negative, 0 or positive.
    static func compareExactly(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let x = decimal(of: a)
        let y = decimal(of: b)
        let xSign = x.digits.isEmpty ? 0 : (x.negative ? -1 : 1)
        let ySign = y.digits.isEmpty ? 0 : (y.negative ? -1 : 1)
        if xSign != ySign { return xSign < ySign ? -1 : 1 }
        if xSign == 0 { return 0 }
        // Same sign: compare magnitudes, by the power of ten of the leading digit, then digit by digit.
        let xTop = x.exponent + x.digits.count
        let yTop = y.exponent + y.digits.count
        var magnitude = 0
        if xTop != yTop {
            magnitude = xTop < yTop ? -1 : 1
        } else {
            for position in 0..<max(x.digits.count, y.digits.count) {
                let dx = position < x.digits.count ? x.digits[position] : UInt8(ascii: "0")
                let dy = position < y.digits.count ? y.digits[position] : UInt8(ascii: "0")
                if dx != dy {
                    magnitude = dx < dy ? -1 : 1
                    break
                }
            }
        }
        return xSign * magnitude
    }

    /// A new node for this literal: an integer when it fits in 64 bits, a real when a double holds
    /// it (shortest round trip), otherwise the exact text as a raw number.
    func makeNode() throws(ReshapeError) -> Node {
        switch held {
        case .integer(let value): return try Make.integer(value)
        case .real(let value): return try Make.real(value)
        case .text: return try RawValue.number(text)
        }
    }

    /// Appends the text the writer would write for the node of this literal.
    func appendCanonical(to out: inout ByteBuffer) {
        // An integer is written as it is read, whether it is held as one or as its text; so is a
        // real in the plain form its shortest text has.
        guard isReal, !isWrittenAsItIs else {
            out.append(text)
            return
        }
        if let real = heldReal {
            out.append(real.written)
        } else {
            out.append(text)
        }
    }

    /// The value of an integer literal, if it fits in `Int64`. `-0` does not (it would lose its sign).
    var int64Value: Int64? {
        guard !isReal else { return nil }
        var index = 0
        let negative = text[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        var magnitude: UInt64 = 0
        while index < text.count {
            let digit = UInt64(text[index] &- UInt8(ascii: "0"))
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            magnitude = sum
            index += 1
        }
        if negative {
            if magnitude == 0 { return nil }
            if magnitude <= UInt64(Int64.max) { return -Int64(magnitude) }
            if magnitude == UInt64(Int64.max) + 1 { return Int64.min }
            return nil
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    /// The value of this literal if it is a whole number that fits in `Int64`, computed exactly from
    /// the decimal text (so `"12.0"`, `"1.2e1"` and `"0e99999999999999999999"` are whole), with no
    /// double rounding and no arithmetic that an exponent of any length could overflow.
    var integralValue: Int64? {
        // `-0` is the whole number 0 here; only holding it as a number needs its sign.
        if !isReal { return int64Value ?? (text.count == 2 && text[1] == UInt8(ascii: "0") ? 0 : nil) }
        // Significant digits without leading or trailing zeros, and the power of ten of the last.
        let (negative, digits, exponent) = Self.decimal(of: text)
        if digits.isEmpty { return 0 }
        // The last significant digit is not zero, so a negative power leaves a fraction.
        guard exponent >= 0, digits.count + exponent <= 19 else { return nil }
        var magnitude: UInt64 = 0
        for digit in digits {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit &- UInt8(ascii: "0")))
            if overflow1 || overflow2 { return nil }
            magnitude = sum
        }
        for _ in 0..<exponent {
            let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            if overflow { return nil }
            magnitude = times10
        }
        if negative {
            if magnitude <= UInt64(Int64.max) { return -Int64(magnitude) }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : nil
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }
}

/// Where a number literal breaks the grammar.
struct NumberSyntaxError: Error {
    let offset: Int
    let message: String
}

@inline(__always)
func isDigit(_ byte: UInt8) -> Bool {
    byte &- UInt8(ascii: "0") < 10
}
