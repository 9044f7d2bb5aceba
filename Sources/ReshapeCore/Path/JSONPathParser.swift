/// Compiles path text into a `JSONPath`, following RFC 9535's grammar for the supported subset and
/// naming what is not supported.
struct JSONPathParser {
    private let scalars: [Unicode.Scalar]
    private let text: String
    private var index = 0

    /// A path that cannot be compiled: the message and the 1-based character where it went wrong.
    struct Failure: Error {
        let message: String
        let character: Int
    }

    static func parse(_ text: String) -> Result<JSONPath, Failure> {
        var parser = JSONPathParser(text: text)
        do throws(Failure) {
            return .success(try parser.parsePath())
        } catch {
            return .failure(error)
        }
    }

    private init(text: String) {
        self.text = text
        self.scalars = Array(text.unicodeScalars)
    }

    private mutating func parsePath() throws(Failure) -> JSONPath {
        guard peek == "$" else {
            throw fail(scalars.isEmpty ? "the path is empty; it must start with '$'" : "a path must start with '$'")
        }
        index += 1
        var segments: [JSONPath.Segment] = []
        while true {
            // RFC 9535 allows white space before a segment, never at the end of a query.
            let blanks = index
            skipBlanks()
            guard let next = peek else {
                if index > blanks { throw fail("white space at the end of a path", at: blanks) }
                break
            }
            switch next {
            case ".":
                if peek(at: index + 1) == "." {
                    index += 2
                    segments.append(.descendant(try parseDescendantSelector()))
                } else {
                    index += 1
                    segments.append(.child(try parseDotSelector()))
                }
            case "[":
                segments.append(.child(try parseBracket()))
            case "@":
                throw fail("'@' (the current node) is only meaningful in filters, which are not supported")
            default:
                throw fail("unexpected \(describe(next)); expected '.', '..' or '['")
            }
        }
        return JSONPath(text: text, segments: segments)
    }

    private mutating func parseDotSelector() throws(Failure) -> JSONPath.Selector {
        guard let next = peek else { throw fail("expected a member name or '*' after '.'") }
        if next == "*" {
            index += 1
            return .wildcard
        }
        return .name(MemberName(try parseShorthandName(after: ".")))
    }

    private mutating func parseDescendantSelector() throws(Failure) -> JSONPath.Selector {
        guard let next = peek else { throw fail("expected a member name, '*' or '[' after '..'") }
        switch next {
        case "*":
            index += 1
            return .wildcard
        case "[":
            return try parseBracket()
        default:
            return .name(MemberName(try parseShorthandName(after: "..")))
        }
    }

    private mutating func parseShorthandName(after prefix: String) throws(Failure) -> String {
        let start = index
        while let scalar = peek, isNameCharacter(scalar, first: index == start) { index += 1 }
        guard index > start else {
            if let scalar = peek, isDigit(scalar) {
                throw fail("a member name after '\(prefix)' cannot start with a digit; write [n] for an index or ['name'] for such a name")
            }
            throw fail("expected a member name or '*' after '\(prefix)'")
        }
        if let scalar = peek, scalar != ".", scalar != "[", !isBlank(scalar) {
            let name = String(String.UnicodeScalarView(scalars[start..<index]))
            throw fail("unexpected \(describe(scalar)) in a member name; write ['\(MessageText.escaped(name, limit: 40))…'] for names with such characters")
        }
        return String(String.UnicodeScalarView(scalars[start..<index]))
    }

    private mutating func parseBracket() throws(Failure) -> JSONPath.Selector {
        index += 1  // [
        skipBlanks()
        guard let next = peek else { throw fail("unterminated '['") }
        let selector: JSONPath.Selector
        switch next {
        case "'", "\"":
            selector = .name(MemberName(try parseStringLiteral()))
        case "*":
            index += 1
            selector = .wildcard
        case "?":
            throw fail("filter selectors ('?') are not supported")
        case ":":
            throw fail("slices ('start:end:step') are not supported")
        case "-", "0"..."9":
            selector = .index(try parseIndex())
        default:
            throw fail("unexpected \(describe(next)) in brackets; expected 'name', n or *")
        }
        skipBlanks()
        switch peek {
        case "]":
            index += 1
            return selector
        case ",":
            throw fail("unions (several selectors in one bracket) are not supported")
        case ":":
            throw fail("slices ('start:end:step') are not supported")
        case nil:
            throw fail("unterminated '['")
        case let other?:
            throw fail("unexpected \(describe(other)); expected ']'")
        }
    }

    private mutating func parseIndex() throws(Failure) -> Int {
        let start = index
        if peek == "-" { index += 1 }
        let digitsStart = index
        while let scalar = peek, isDigit(scalar) { index += 1 }
        let digits = String(String.UnicodeScalarView(scalars[digitsStart..<index]))
        if digits.isEmpty {
            if peek == ":" { throw fail("slices ('start:end:step') are not supported") }
            throw fail("expected digits in the index")
        }
        if digits.count > 1 && digits.first == "0" { throw fail("leading zeros are not allowed in an index", at: start) }
        if digits == "0" && digitsStart > start { throw fail("-0 is not a valid index", at: start) }
        // RFC 9535 limits indices to the I-JSON range.
        let limit = (1 << 53) - 1
        guard digits.count <= 16, let magnitude = Int(digits), magnitude <= limit else {
            throw fail("the index is out of range (at most \(limit) in magnitude)", at: start)
        }
        return digitsStart > start ? -magnitude : magnitude
    }

    private mutating func parseStringLiteral() throws(Failure) -> String {
        guard let quote = peek else { throw fail("unterminated string") }
        let opening = index
        index += 1
        var result = String.UnicodeScalarView()
        while true {
            guard let scalar = peek else { throw fail("unterminated string", at: opening) }
            index += 1
            if scalar == quote { return String(result) }
            if scalar.value < 0x20 { throw fail("control characters must be escaped in a name", at: index - 1) }
            guard scalar == "\\" else {
                result.append(scalar)
                continue
            }
            guard let escaped = peek else { throw fail("unterminated string", at: opening) }
            index += 1
            switch escaped {
            case "b": result.append("\u{08}")
            case "f": result.append("\u{0C}")
            case "n": result.append("\n")
            case "r": result.append("\r")
            case "t": result.append("\t")
            case "/", "\\": result.append(escaped)
            case "'" where quote == "'", "\"" where quote == "\"": result.append(escaped)
            case "u": result.append(try parseUnicodeEscape())
            default:
                let shown = escaped.value >= 0x21 && escaped.value < 0x7F ? "'\\\(escaped)'" : "'\\' followed by \(describe(escaped))"
                throw fail("invalid escape \(shown) in a name", at: index - 2)
            }
        }
    }

    private mutating func parseUnicodeEscape() throws(Failure) -> Unicode.Scalar {
        let start = index - 2
        let high = try parseHex4(start: start)
        if (0xDC00...0xDFFF).contains(high) { throw fail("lone low surrogate in a \\u escape", at: start) }
        if (0xD800...0xDBFF).contains(high) {
            guard peek == "\\", peek(at: index + 1) == "u" else {
                throw fail("lone high surrogate in a \\u escape", at: start)
            }
            index += 2
            let low = try parseHex4(start: start)
            guard (0xDC00...0xDFFF).contains(low) else { throw fail("lone high surrogate in a \\u escape", at: start) }
            let value = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
            guard let scalar = Unicode.Scalar(value) else { throw fail("invalid \\u escape", at: start) }
            return scalar
        }
        guard let scalar = Unicode.Scalar(high) else { throw fail("invalid \\u escape", at: start) }
        return scalar
    }

    private mutating func parseHex4(start: Int) throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let scalar = peek, let digit = hexValue(scalar) else {
                throw fail("invalid \\u escape: expected 4 hexadecimal digits", at: start)
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    // MARK: - Helpers

    private var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private func peek(at position: Int) -> Unicode.Scalar? {
        position < scalars.count ? scalars[position] : nil
    }

    private mutating func skipBlanks() {
        while let scalar = peek, isBlank(scalar) { index += 1 }
    }

    private func fail(_ message: String, at position: Int? = nil) -> Failure {
        Failure(message: message, character: (position ?? index) + 1)
    }

    private func describe(_ scalar: Unicode.Scalar) -> String {
        scalar.value >= 0x21 && scalar.value < 0x7F ? "'\(scalar)'" : "character U+\(hex(scalar.value, width: 4))"
    }
}

private func isBlank(_ scalar: Unicode.Scalar) -> Bool {
    scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
}

private func isDigit(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value >= 0x30 && scalar.value <= 0x39
}

/// RFC 9535 `name-first` / `name-char`: letters, `_`, digits (not first) and any non-ASCII scalar.
private func isNameCharacter(_ scalar: Unicode.Scalar, first: Bool) -> Bool {
    switch scalar.value {
    case 0x41...0x5A, 0x61...0x7A, 0x5F: return true
    case 0x30...0x39: return !first
    case 0x80...0xD7FF, 0xE000...0x10FFFF: return true
    default: return false
    }
}

private func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
    switch scalar.value {
    case 0x30...0x39: scalar.value - 0x30
    case 0x41...0x46: scalar.value - 0x41 + 10
    case 0x61...0x66: scalar.value - 0x61 + 10
    default: nil
    }
}
