/// Compiles path text into a `JSONPath`, following RFC 9535's grammar (section 2 and its ABNF),
/// filters checked for well-typedness (section 2.4.3) as they are parsed.
struct JSONPathParser {
    private let scalars: [Unicode.Scalar]
    private let text: String
    private var index = 0
    /// Filters, parentheses and function calls open: the parser recurses on them.
    private var nesting = 0

    /// Filters, parentheses and function calls nest at most this deep.
    static let maxNesting = 64

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
        let segments = try parseSegments(nested: false)
        if let extra = peek { throw fail("unexpected \(describe(extra)); expected '.', '..' or '['") }
        return JSONPath(text: text, segments: segments)
    }

    /// `*(S segment)`: the segments of a query, up to the first character that starts none (the
    /// end of the text at the top level, where white space may not end it).
    private mutating func parseSegments(nested: Bool) throws(Failure) -> [JSONPath.Segment] {
        var segments: [JSONPath.Segment] = []
        while true {
            // RFC 9535 allows white space before a segment, never at the end of a query.
            let blanks = index
            skipBlanks()
            guard let next = peek else {
                if index > blanks && !nested { throw fail("white space at the end of a path", at: blanks) }
                break
            }
            switch next {
            case ".":
                if peek(at: index + 1) == "." {
                    index += 2
                    segments.append(.descendant(try parseDescendantSelector(nested: nested)))
                } else {
                    index += 1
                    segments.append(.child(try parseDotSelector(nested: nested)))
                }
            case "[":
                segments.append(.child(try parseBracket()))
            default:
                if nested {
                    // The blanks belong to what follows the query.
                    index = blanks
                    return segments
                }
                if next == "@" { throw fail("'@' (the current node) is only meaningful in filters") }
                throw fail("unexpected \(describe(next)); expected '.', '..' or '['")
            }
        }
        return segments
    }

    private mutating func parseDotSelector(nested: Bool) throws(Failure) -> JSONPath.Selector {
        guard let next = peek else { throw fail("expected a member name or '*' after '.'") }
        if next == "*" {
            index += 1
            return .wildcard
        }
        return .name(MemberName(try parseShorthandName(after: ".", nested: nested)))
    }

    private mutating func parseDescendantSelector(nested: Bool) throws(Failure) -> JSONPath.Selector {
        guard let next = peek else { throw fail("expected a member name, '*' or '[' after '..'") }
        switch next {
        case "*":
            index += 1
            return .wildcard
        case "[":
            return try parseBracket()
        default:
            return .name(MemberName(try parseShorthandName(after: "..", nested: nested)))
        }
    }

    private mutating func parseShorthandName(after prefix: String, nested: Bool) throws(Failure) -> String {
        let start = index
        while let scalar = peek, isNameCharacter(scalar, first: index == start) { index += 1 }
        guard index > start else {
            if let scalar = peek, isDigit(scalar) {
                throw fail("a member name after '\(prefix)' cannot start with a digit; write [n] for an index or ['name'] for such a name")
            }
            throw fail("expected a member name or '*' after '\(prefix)'")
        }
        if !nested, let scalar = peek, scalar != ".", scalar != "[", !isBlank(scalar) {
            let name = String(String.UnicodeScalarView(scalars[start..<index]))
            throw fail("unexpected \(describe(scalar)) in a member name; write ['\(MessageText.escaped(name, limit: 40))…'] for names with such characters")
        }
        return String(String.UnicodeScalarView(scalars[start..<index]))
    }

    /// `[` S selector *(S "," S selector) S `]`.
    private mutating func parseBracket() throws(Failure) -> JSONPath.Selector {
        index += 1  // [
        var selectors: [JSONPath.Selector] = []
        while true {
            skipBlanks()
            selectors.append(try parseSelector())
            skipBlanks()
            switch peek {
            case "]":
                index += 1
                return selectors.count == 1 ? selectors[0] : .union(selectors)
            case ",":
                index += 1
            case nil:
                throw fail("unterminated '['")
            case let other?:
                throw fail("unexpected \(describe(other)); expected ',' or ']'")
            }
        }
    }

    /// One selector in brackets: a name, `*`, an index, a slice or a filter.
    private mutating func parseSelector() throws(Failure) -> JSONPath.Selector {
        guard let next = peek else { throw fail("unterminated '['") }
        switch next {
        case "'", "\"":
            return .name(MemberName(try parseStringLiteral()))
        case "*":
            index += 1
            return .wildcard
        case "?":
            index += 1
            skipBlanks()
            return .filter(try nested { (parser) throws(Failure) in try parser.parseLogicalOr() })
        case ":", "-", "0"..."9":
            let start = next == ":" ? nil : try parseIndex()
            let blanks = index
            skipBlanks()
            guard peek == ":" else {
                index = blanks
                guard let start else { throw fail("expected an index") }
                return .index(start)
            }
            index += 1
            skipBlanks()
            var end: Int? = nil
            if let scalar = peek, scalar == "-" || isDigit(scalar) {
                end = try parseIndex()
                skipBlanks()
            }
            var step: Int? = nil
            if peek == ":" {
                index += 1
                skipBlanks()
                if let scalar = peek, scalar == "-" || isDigit(scalar) { step = try parseIndex() }
            }
            return .slice(start: start, end: end, step: step)
        default:
            throw fail("unexpected \(describe(next)) in brackets; expected 'name', *, an index, a slice or a filter")
        }
    }

    // MARK: - Filters (RFC 9535 sections 2.3.5 and 2.4)

    /// Runs `body` one level deeper, refusing to go past `maxNesting`.
    private mutating func nested<T>(_ body: (inout JSONPathParser) throws(Failure) -> T) throws(Failure) -> T {
        guard nesting < Self.maxNesting else { throw fail("filters nest deeper than \(Self.maxNesting) levels") }
        nesting += 1
        defer { nesting -= 1 }
        return try body(&self)
    }

    /// logical-or-expr = logical-and-expr *(S "||" S logical-and-expr)
    private mutating func parseLogicalOr() throws(Failure) -> FilterExpression {
        var items = [try parseLogicalAnd()]
        while true {
            let blanks = index
            skipBlanks()
            guard peek == "|", peek(at: index + 1) == "|" else {
                index = blanks
                break
            }
            index += 2
            skipBlanks()
            items.append(try parseLogicalAnd())
        }
        return items.count == 1 ? items[0] : .or(items)
    }

    /// logical-and-expr = basic-expr *(S "&&" S basic-expr)
    private mutating func parseLogicalAnd() throws(Failure) -> FilterExpression {
        var items = [try parseBasic()]
        while true {
            let blanks = index
            skipBlanks()
            guard peek == "&", peek(at: index + 1) == "&" else {
                index = blanks
                break
            }
            index += 2
            skipBlanks()
            items.append(try parseBasic())
        }
        return items.count == 1 ? items[0] : .and(items)
    }

    /// basic-expr = paren-expr / comparison-expr / test-expr
    private mutating func parseBasic() throws(Failure) -> FilterExpression {
        if peek == "!" {
            index += 1
            skipBlanks()
            if peek == "(" { return .not(try parseParenthesized()) }
            let start = index
            let primary = try parsePrimary()
            return .not(try testExpression(primary, at: start))
        }
        if peek == "(" { return try parseParenthesized() }
        let start = index
        let primary = try parsePrimary()
        let blanks = index
        skipBlanks()
        if let op = parseComparisonOperator() {
            skipBlanks()
            let rightStart = index
            let right = try parsePrimary()
            return .comparison(try comparable(primary, at: start), op, try comparable(right, at: rightStart))
        }
        index = blanks
        return try testExpression(primary, at: start)
    }

    private mutating func parseParenthesized() throws(Failure) -> FilterExpression {
        let open = index
        index += 1
        return try nested { (parser) throws(Failure) in
            parser.skipBlanks()
            let inner = try parser.parseLogicalOr()
            parser.skipBlanks()
            guard parser.peek == ")" else { throw parser.fail("'(' is not closed", at: open) }
            parser.index += 1
            return inner
        }
    }

    private mutating func parseComparisonOperator() -> ComparisonOperator? {
        let two = (peek, peek(at: index + 1))
        switch two {
        case ("=", "="): index += 2; return .equal
        case ("!", "="): index += 2; return .notEqual
        case ("<", "="): index += 2; return .lessOrEqual
        case (">", "="): index += 2; return .greaterOrEqual
        case ("<", _): index += 1; return .less
        case (">", _): index += 1; return .greater
        default: return nil
        }
    }

    /// What may stand alone or beside an operator: a literal, a query or a function call.
    private enum Primary {
        case literal(FilterLiteral)
        case query(FilterQuery)
        case function(FilterFunction)
    }

    private mutating func parsePrimary() throws(Failure) -> Primary {
        guard let next = peek else { throw fail("the filter ends too soon") }
        switch next {
        case "@", "$":
            index += 1
            let segments = try nested { (parser) throws(Failure) in try parser.parseSegments(nested: true) }
            return .query(FilterQuery(absolute: next == "$", segments: segments))
        case "'", "\"":
            return .literal(.string(try parseStringLiteral()))
        case "-", "0"..."9":
            return .literal(.number(try parseNumberLiteral()))
        case "a"..."z":
            let start = index
            while let scalar = peek, ("a"..."z").contains(scalar) || isDigit(scalar) || scalar == "_" { index += 1 }
            let word = String(String.UnicodeScalarView(scalars[start..<index]))
            if peek == "(" { return .function(try parseFunction(word, at: start)) }
            switch word {
            case "true": return .literal(.bool(true))
            case "false": return .literal(.bool(false))
            case "null": return .literal(.null)
            default: throw fail("unknown word \(quoted(word)) in a filter", at: start)
            }
        default:
            throw fail("unexpected \(describe(next)) in a filter")
        }
    }

    /// number = (int / "-0") [ frac ] [ exp ], kept as its text.
    private mutating func parseNumberLiteral() throws(Failure) -> [UInt8] {
        let start = index
        if peek == "-" { index += 1 }
        let digitsStart = index
        while let scalar = peek, isDigit(scalar) { index += 1 }
        guard index > digitsStart else { throw fail("expected digits in a number", at: start) }
        if index - digitsStart > 1 && scalars[digitsStart] == "0" { throw fail("leading zeros are not allowed in a number", at: start) }
        if peek == "." {
            index += 1
            let fraction = index
            while let scalar = peek, isDigit(scalar) { index += 1 }
            guard index > fraction else { throw fail("expected digits after '.' in a number", at: start) }
        }
        if peek == "e" || peek == "E" {
            index += 1
            if peek == "+" || peek == "-" { index += 1 }
            let exponent = index
            while let scalar = peek, isDigit(scalar) { index += 1 }
            guard index > exponent else { throw fail("expected digits in a number's exponent", at: start) }
        }
        return Array(String(String.UnicodeScalarView(scalars[start..<index])).utf8)
    }

    /// function-expr = function-name "(" S [function-argument *(S "," S function-argument)] S ")"
    private mutating func parseFunction(_ word: String, at start: Int) throws(Failure) -> FilterFunction {
        guard let name = FilterFunction.Name(rawValue: word) else { throw fail("unknown function \(quoted(word))", at: start) }
        index += 1  // (
        return try nested { (parser) throws(Failure) in
            var arguments: [FilterArgument] = []
            parser.skipBlanks()
            if parser.peek != ")" {
                while true {
                    arguments.append(try parser.parseArgument(for: name, position: arguments.count, at: start))
                    parser.skipBlanks()
                    if parser.peek == "," {
                        parser.index += 1
                        parser.skipBlanks()
                        continue
                    }
                    break
                }
            }
            guard parser.peek == ")" else { throw parser.fail("expected ',' or ')' in the arguments of \(word)()") }
            parser.index += 1
            let expected = name == .match || name == .search ? 2 : 1
            guard arguments.count == expected else {
                throw parser.fail("\(word)() takes \(expected) argument\(expected == 1 ? "" : "s"), found \(arguments.count)", at: start)
            }
            var pattern: IRegexp? = nil
            if expected == 2, case .value(.literal(.string(let text))) = arguments[1] {
                pattern = try? IRegexp.compile(text).get()
            }
            return FilterFunction(name: name, arguments: arguments, pattern: pattern)
        }
    }

    /// One argument, checked against the parameter's type: ValueType for length, match and
    /// search; NodesType for count and value.
    private mutating func parseArgument(for name: FilterFunction.Name, position: Int, at start: Int) throws(Failure) -> FilterArgument {
        let argumentStart = index
        let wantsNodes = name == .count || name == .value
        // No standard function takes a logical expression: an argument is a primary alone. (It is
        // parsed once: parsing it again on failure would cost twice per level of nested calls.)
        if peek == "(" || peek == "!" { throw fail("\(name.rawValue)() cannot take a logical expression", at: argumentStart) }
        let primary = try parsePrimary()
        let after = index
        skipBlanks()
        guard peek == "," || peek == ")" else {
            throw fail("\(name.rawValue)() cannot take a logical expression", at: argumentStart)
        }
        index = after
        switch primary {
        case .query(let query):
            if wantsNodes { return .nodes(query) }
            guard query.isSingular else {
                throw fail("\(name.rawValue)() needs a value: a query selecting at most one node", at: argumentStart)
            }
            return .value(.query(query))
        case .literal(let literal):
            guard !wantsNodes else { throw fail("\(name.rawValue)() needs a query, found a literal", at: argumentStart) }
            return .value(.literal(literal))
        case .function(let call):
            guard !wantsNodes, call.name.givesValue else {
                throw fail("\(name.rawValue)() cannot take the result of \(call.name.rawValue)()", at: argumentStart)
            }
            return .value(.function(call))
        }
    }

    /// A primary as a test: a query (does it select anything?) or a logical function.
    private func testExpression(_ primary: Primary, at start: Int) throws(Failure) -> FilterExpression {
        switch primary {
        case .query(let query): return .exists(query)
        case .function(let call):
            guard !call.name.givesValue else {
                throw fail("\(call.name.rawValue)() gives a value, which must be compared, not tested", at: start)
            }
            return .function(call)
        case .literal:
            throw fail("a literal must be compared, not tested", at: start)
        }
    }

    /// A primary beside a comparison operator: a literal, a singular query or a value function.
    private func comparable(_ primary: Primary, at start: Int) throws(Failure) -> FilterOperand {
        switch primary {
        case .literal(let literal): return .literal(literal)
        case .query(let query):
            guard query.isSingular else { throw fail("a compared query must select at most one node", at: start) }
            return .query(query)
        case .function(let call):
            guard call.name.givesValue else { throw fail("\(call.name.rawValue)() gives a logical result, which cannot be compared", at: start) }
            return .function(call)
        }
    }

    private mutating func parseIndex() throws(Failure) -> Int {
        let start = index
        if peek == "-" { index += 1 }
        let digitsStart = index
        while let scalar = peek, isDigit(scalar) { index += 1 }
        let digits = String(String.UnicodeScalarView(scalars[digitsStart..<index]))
        if digits.isEmpty { throw fail("expected digits in the index") }
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
