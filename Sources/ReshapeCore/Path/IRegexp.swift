#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An I-Regexp (RFC 9485): the regular expressions of RFC 9535's `match()` and `search()`, and of
/// `remove`'s `matching`. Parsed by the RFC's grammar, compiled to an automaton, and matched in time
/// linear in the text (a Pike VM without captures: no backtracking, so no pattern can make a
/// match take exponential time).
///
/// Patterns are sequences of Unicode scalars; `.` matches any scalar but `\n` and `\r`; `\p{..}`
/// and `\P{..}` name Unicode general categories. `matches` asks whether the whole text matches,
/// `occurs` whether some part of it does. RFC 9485's grammar makes `^` and `$` ordinary
/// characters, but the JSONPath compliance suite reads them as anchors (`match(@, '^ab.*')` holds
/// for `"abc"`), as every regular expression engine the RFC maps to does: outside brackets they
/// assert the start and the end of the text (write `\^` or `[$]` for the characters).
struct IRegexp: Sendable {
    /// A pattern that cannot be compiled: the message and the 1-based character where it went wrong.
    struct Failure: Error {
        let message: String
        let character: Int
    }

    /// Groups nest at most this deep (the parser recurses on groups).
    static let maxNesting = 64
    /// The compiled automaton has at most this many instructions (`{n,m}` repeats what it follows).
    static let maxInstructions = 20_000

    let pattern: String
    private let program: [Instruction]
    /// The UTF-8 of a pattern that is a plain string of scalars (no class but of one scalar, no
    /// repetition, alternative or anchor: `team`), whose matches are that text whole and whose
    /// occurrences are that text anywhere (UTF-8 finds a scalar sequence where its bytes are):
    /// compared as bytes, without the automaton. Nil for any other pattern.
    let literal: [UInt8]?
    /// Otherwise, the sets of a pattern that is a fixed sequence of scalars, each from a set
    /// (`g[13]`, `[A-Z]{2}`, `.b`): a match is that many scalars, each in its set, which is
    /// checked scalar by scalar without the automaton's state sets. Nil for any other pattern.
    private let sequence: [ScalarSet]?

    /// Whether matching runs the automaton (the pattern is neither of the two above).
    var runsAutomaton: Bool { literal == nil && sequence == nil }

    private init(pattern: String, program: [Instruction]) {
        self.pattern = pattern
        self.program = program
        var sequence: [ScalarSet]? = []
        for instruction in program.dropLast() {
            guard case .scalar(let set) = instruction else {
                sequence = nil
                break
            }
            sequence?.append(set)
        }
        if case .match? = program.last {} else { sequence = nil }
        var literal: [UInt8]? = []
        for instruction in program.dropLast() {
            // U+FFFD is also what the automaton reads for a byte that starts no scalar.
            guard case .scalar(let set) = instruction, !set.negated, set.items.count == 1, case .range(let low, let high) = set.items[0],
                low == high, low != 0xFFFD, let scalar = Unicode.Scalar(low)
            else {
                literal = nil
                break
            }
            literal?.append(contentsOf: String(Character(scalar)).utf8)
        }
        if case .match? = program.last {} else { literal = nil }
        self.literal = literal
        self.sequence = literal == nil ? sequence : nil
    }

    /// The size of the automaton: matching costs at most this many steps per scalar of text.
    var size: Int { program.count }

    fileprivate enum Instruction: Sendable {
        case scalar(ScalarSet)
        case split(Int, Int)
        case jump(Int)
        /// `^`, `$`: go on only at the start, or at the end, of the text.
        case atStart, atEnd
        case match
    }

    static func compile(_ pattern: String) -> Result<IRegexp, Failure> {
        var parser = Parser(scalars: Array(pattern.unicodeScalars))
        do throws(Failure) {
            let tree = try parser.parseWhole()
            var compiler = Compiler()
            try compiler.emit(tree)
            compiler.program.append(.match)
            return .success(IRegexp(pattern: pattern, program: compiler.program))
        } catch {
            return .failure(error)
        }
    }

    /// Whether the whole of `text` (valid UTF-8) matches (RFC 9535 `match()`).
    func matches(utf8 text: UnsafeRawBufferPointer) -> Bool {
        if let literal { return literal.withUnsafeBytes { text.sameBytes(as: $0) } }
        if let sequence { return Self.follows(sequence, in: text, from: 0) == text.count }
        return run(text, anywhere: false)
    }

    /// Whether some part of `text` (valid UTF-8) matches (RFC 9535 `search()`).
    func occurs(inUTF8 text: UnsafeRawBufferPointer) -> Bool {
        if let literal { return literal.withUnsafeBytes { Self.find($0, in: text) } }
        if let sequence {
            // From each scalar on, as the automaton starts a thread at each.
            var start = 0
            while start < text.count {
                if Self.follows(sequence, in: text, from: start) >= 0 { return true }
                _ = Self.decode(text, at: &start)
            }
            return false
        }
        return run(text, anywhere: true)
    }

    /// Where the scalars from `start` on that are each in their set of `sequence` end; -1 when
    /// one is not, or the text ends first. Decoded as the automaton decodes them.
    private static func follows(_ sequence: [ScalarSet], in text: UnsafeRawBufferPointer, from start: Int) -> Int {
        var offset = start
        for set in sequence {
            guard offset < text.count, set.contains(decode(text, at: &offset)) else { return -1 }
        }
        return offset
    }

    /// Whether the bytes `literal` occur in `text`: each place of its first byte (`memchr`),
    /// compared.
    private static func find(_ literal: UnsafeRawBufferPointer, in text: UnsafeRawBufferPointer) -> Bool {
        guard let first = literal.first else { return true }
        guard text.count >= literal.count, let base = text.baseAddress else { return false }
        let last = text.count - literal.count
        var start = 0
        while start <= last {
            guard let hit = memchr(base + start, Int32(first), last - start + 1) else { return false }
            let at = base.distance(to: UnsafeRawPointer(hit))
            if UnsafeRawBufferPointer(rebasing: text[at..<at + literal.count]).sameBytes(as: literal) { return true }
            start = at + 1
        }
        return false
    }

    /// Whether the whole of `text` matches.
    func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { matches(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// Whether some part of `text` matches.
    func occurs(in text: String) -> Bool {
        var text = text
        return text.withUTF8 { occurs(inUTF8: UnsafeRawBufferPointer($0)) }
    }

    /// Runs the automaton over `text`'s scalars, decoded as it goes. Its two state sets and the
    /// closure's stack are one allocation: on the stack for a pattern of up to 42 instructions
    /// (1 KiB, which any thread has), so such a match allocates nothing on the heap (`remove`'s
    /// `matching` runs once per name); on the heap for larger ones.
    private func run(_ text: UnsafeRawBufferPointer, anywhere: Bool) -> Bool {
        // Two sets (a sparse index and a member list each) and a stack: each instruction enters a
        // closure once and pushes at most two, after the first push.
        let capacity = 6 * program.count + 2
        if capacity <= 256 {
            return withUnsafeTemporaryAllocation(of: Int32.self, capacity: capacity) { run(text, anywhere: anywhere, in: $0) }
        }
        let scratch = UnsafeMutableBufferPointer<Int32>.allocate(capacity: capacity)
        defer { scratch.deallocate() }
        return run(text, anywhere: anywhere, in: scratch)
    }

    private func run(_ text: UnsafeRawBufferPointer, anywhere: Bool, in scratch: UnsafeMutableBufferPointer<Int32>) -> Bool {
        let count = program.count
        guard let base = scratch.baseAddress else { return false }
        var current = StateSet(base, count: count)
        var next = StateSet(base + 2 * count, count: count)
        let stack = base + 4 * count
        var offset = 0
        addClosure(0, to: &current, stack: stack, atStart: true, atEnd: text.isEmpty)
        if anywhere && current.contains(count - 1) { return true }
        while offset < text.count {
            if current.isEmpty && !anywhere { return false }
            let scalar = Self.decode(text, at: &offset)
            let atEnd = offset == text.count
            next.removeAll()
            for slot in 0..<current.count {
                let pc = current.member(slot)
                if case .scalar(let set) = program[pc], set.contains(scalar) {
                    addClosure(pc + 1, to: &next, stack: stack, atStart: false, atEnd: atEnd)
                }
            }
            if anywhere {
                addClosure(0, to: &next, stack: stack, atStart: false, atEnd: atEnd)
                if next.contains(count - 1) { return true }
            }
            swap(&current, &next)
        }
        return current.contains(count - 1)
    }

    /// The scalar at `offset` in valid UTF-8 `text`, moving `offset` past it (U+FFFD, one byte on,
    /// for a byte that starts no scalar).
    @inline(__always)
    private static func decode(_ text: UnsafeRawBufferPointer, at offset: inout Int) -> Unicode.Scalar {
        let lead = UInt32(text[offset])
        let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 0
        guard length > 0, offset + length <= text.count else {
            offset += 1
            return lead < 0x80 ? Unicode.Scalar(UInt8(lead)) : "\u{FFFD}"
        }
        var value = length == 1 ? lead : lead & (0x7F >> UInt32(length))
        var index = 1
        while index < length {
            value = value << 6 | UInt32(text[offset + index] & 0x3F)
            index += 1
        }
        offset += length
        return Unicode.Scalar(value) ?? "\u{FFFD}"
    }

    /// Adds `start` and every instruction reached from it without reading a scalar, at a place in
    /// the text that is or is not its start and its end. `stack` has room for `2 * size + 2`.
    private func addClosure(
        _ start: Int, to set: inout StateSet, stack: UnsafeMutablePointer<Int32>, atStart: Bool, atEnd: Bool
    ) {
        var top = 0
        stack[top] = Int32(start)
        top += 1
        while top > 0 {
            top -= 1
            let pc = Int(stack[top])
            guard set.insert(pc) else { continue }
            switch program[pc] {
            case .jump(let target):
                stack[top] = Int32(target)
                top += 1
            case .split(let first, let second):
                stack[top] = Int32(second)
                stack[top + 1] = Int32(first)
                top += 2
            case .atStart:
                if atStart {
                    stack[top] = Int32(pc + 1)
                    top += 1
                }
            case .atEnd:
                if atEnd {
                    stack[top] = Int32(pc + 1)
                    top += 1
                }
            case .scalar, .match: break
            }
        }
    }
}

/// A set of instructions, in the order they were added, with constant-time membership, in
/// memory the caller provides: `2 * capacity` entries, a sparse index then the members.
private struct StateSet {
    private let sparse: UnsafeMutablePointer<Int32>
    private let members: UnsafeMutablePointer<Int32>
    private(set) var count = 0

    init(_ memory: UnsafeMutablePointer<Int32>, count capacity: Int) {
        sparse = memory
        members = memory + capacity
        // Any index would do (membership checks the member list), but a defined one keeps
        // Valgrind quiet.
        sparse.initialize(repeating: 0, count: capacity)
    }

    var isEmpty: Bool { count == 0 }

    func member(_ slot: Int) -> Int { Int(members[slot]) }

    func contains(_ pc: Int) -> Bool {
        let slot = Int(sparse[pc])
        return slot < count && members[slot] == Int32(pc)
    }

    mutating func insert(_ pc: Int) -> Bool {
        if contains(pc) { return false }
        sparse[pc] = Int32(count)
        members[count] = Int32(pc)
        count += 1
        return true
    }

    mutating func removeAll() { count = 0 }
}

/// What one position of a pattern matches.
private struct ScalarSet: Sendable {
    enum Item: Sendable {
        case range(UInt32, UInt32)
        /// General categories (by their two-letter names' first letter and, if any, second).
        case category(String, negated: Bool)
        /// `.`: anything but `\n` and `\r`.
        case any
    }

    var items: [Item]
    var negated = false

    func contains(_ scalar: Unicode.Scalar) -> Bool {
        var found = false
        for item in items {
            switch item {
            case .range(let low, let high): found = scalar.value >= low && scalar.value <= high
            case .any: found = scalar != "\n" && scalar != "\r"
            case .category(let name, let negated): found = Self.category(of: scalar).hasPrefix(name) != negated
            }
            if found { break }
        }
        return found != negated
    }

    /// The two-letter name of a scalar's general category (`Lu`, `Nd`, `Cn`...).
    static func category(of scalar: Unicode.Scalar) -> String {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter: "Lu"
        case .lowercaseLetter: "Ll"
        case .titlecaseLetter: "Lt"
        case .modifierLetter: "Lm"
        case .otherLetter: "Lo"
        case .nonspacingMark: "Mn"
        case .spacingMark: "Mc"
        case .enclosingMark: "Me"
        case .decimalNumber: "Nd"
        case .letterNumber: "Nl"
        case .otherNumber: "No"
        case .connectorPunctuation: "Pc"
        case .dashPunctuation: "Pd"
        case .openPunctuation: "Ps"
        case .closePunctuation: "Pe"
        case .initialPunctuation: "Pi"
        case .finalPunctuation: "Pf"
        case .otherPunctuation: "Po"
        case .mathSymbol: "Sm"
        case .currencySymbol: "Sc"
        case .modifierSymbol: "Sk"
        case .otherSymbol: "So"
        case .spaceSeparator: "Zs"
        case .lineSeparator: "Zl"
        case .paragraphSeparator: "Zp"
        case .control: "Cc"
        case .format: "Cf"
        case .surrogate: "Cs"
        case .privateUse: "Co"
        case .unassigned: "Cn"
        @unknown default: "Cn"
        }
    }
}

/// A parsed pattern.
private indirect enum RegexTree {
    case set(ScalarSet)
    case anchor(atEnd: Bool)
    case sequence([RegexTree])
    case alternatives([RegexTree])
    case repeated(RegexTree, min: Int, max: Int?)
}

/// RFC 9485's grammar (section 5.3), by recursive descent on groups, at most
/// `IRegexp.maxNesting` deep.
private struct Parser {
    let scalars: [Unicode.Scalar]
    var index = 0
    var depth = 0

    var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    func fail(_ message: String, at position: Int? = nil) -> IRegexp.Failure {
        IRegexp.Failure(message: message, character: (position ?? index) + 1)
    }

    mutating func parseWhole() throws(IRegexp.Failure) -> RegexTree {
        let tree = try parseAlternatives()
        if let extra = peek { throw fail(extra == ")" ? "')' without '('" : "unexpected \(Self.shown(extra))") }
        return tree
    }

    mutating func parseAlternatives() throws(IRegexp.Failure) -> RegexTree {
        var branches = [try parseBranch()]
        while peek == "|" {
            index += 1
            branches.append(try parseBranch())
        }
        return branches.count == 1 ? branches[0] : .alternatives(branches)
    }

    mutating func parseBranch() throws(IRegexp.Failure) -> RegexTree {
        var pieces: [RegexTree] = []
        while let next = peek, next != "|", next != ")" {
            let atom = try parseAtom()
            pieces.append(try parseQuantifier(atom))
        }
        return pieces.count == 1 ? pieces[0] : .sequence(pieces)
    }

    mutating func parseQuantifier(_ atom: RegexTree) throws(IRegexp.Failure) -> RegexTree {
        switch peek {
        case "*": index += 1; return .repeated(atom, min: 0, max: nil)
        case "+": index += 1; return .repeated(atom, min: 1, max: nil)
        case "?": index += 1; return .repeated(atom, min: 0, max: 1)
        case "{":
            let start = index
            index += 1
            let low = try parseCount()
            var high: Int? = low
            if peek == "," {
                index += 1
                high = peek == "}" ? nil : try parseCount()
            }
            guard peek == "}" else { throw fail("a quantifier {n}, {n,} or {n,m} is not closed") }
            index += 1
            if let high, high < low { throw fail("the quantifier's maximum is below its minimum", at: start) }
            return .repeated(atom, min: low, max: high)
        default:
            return atom
        }
    }

    mutating func parseCount() throws(IRegexp.Failure) -> Int {
        let start = index
        var value = 0
        while let next = peek, next.isASCII, let digit = Int(String(next)) {
            value = min(value * 10 + digit, 1_000_000)
            index += 1
        }
        guard index > start else { throw fail("a quantifier needs a number") }
        return value
    }

    mutating func parseAtom() throws(IRegexp.Failure) -> RegexTree {
        guard let next = peek else { throw fail("the pattern ends too soon") }
        switch next {
        case "(":
            guard depth < IRegexp.maxNesting else { throw fail("groups nest deeper than \(IRegexp.maxNesting)") }
            let open = index
            index += 1
            depth += 1
            let inner = try parseAlternatives()
            depth -= 1
            guard peek == ")" else { throw fail("'(' is not closed", at: open) }
            index += 1
            return inner
        case ".":
            index += 1
            return .set(ScalarSet(items: [.any]))
        case "^":
            index += 1
            return .anchor(atEnd: false)
        case "$":
            index += 1
            return .anchor(atEnd: true)
        case "[":
            return .set(try parseClass())
        case "\\":
            return .set(try parseEscape(inClass: false))
        case "*", "+", "?", "{":
            throw fail("\(Self.shown(next)) has nothing to repeat")
        case "}", "]":
            throw fail("\(Self.shown(next)) must be escaped")
        default:
            guard (0xD800...0xDFFF).contains(next.value) == false else { throw fail("a surrogate code point") }
            index += 1
            return .set(ScalarSet(items: [.range(next.value, next.value)]))
        }
    }

    /// `[`...`]`, at the `[`.
    mutating func parseClass() throws(IRegexp.Failure) -> ScalarSet {
        let open = index
        index += 1
        var set = ScalarSet(items: [])
        if peek == "^" {
            set.negated = true
            index += 1
        }
        var first = true
        while true {
            guard let next = peek else { throw fail("'[' is not closed", at: open) }
            if next == "]" {
                guard !first else { throw fail("an empty character class") }
                index += 1
                return set
            }
            if next == "-" {
                // Only first or last in the class.
                let isLast = index + 1 < scalars.count && scalars[index + 1] == "]"
                guard first || isLast else { throw fail("'-' inside a character class must be first, last or escaped") }
                index += 1
                set.items.append(.range(0x2D, 0x2D))
                first = false
                continue
            }
            first = false
            if next == "\\", index + 1 < scalars.count, scalars[index + 1] == "p" || scalars[index + 1] == "P" {
                set.items += try parseEscape(inClass: true).items
                continue
            }
            let low = try parseClassScalar()
            if peek == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                index += 1
                let high = try parseClassScalar()
                guard high >= low else { throw fail("a range whose end comes before its start") }
                set.items.append(.range(low, high))
            } else {
                set.items.append(.range(low, low))
            }
        }
    }

    /// One CCchar: a plain scalar or a single-character escape.
    mutating func parseClassScalar() throws(IRegexp.Failure) -> UInt32 {
        guard let next = peek else { throw fail("a character class is not closed") }
        if next == "\\" {
            let escaped = try parseEscape(inClass: true)
            guard case .range(let low, _)? = escaped.items.first, escaped.items.count == 1 else {
                throw fail("a category escape cannot bound a range")
            }
            return low
        }
        guard next != "[", next != "]" else { throw fail("\(Self.shown(next)) must be escaped in a character class") }
        guard (0xD800...0xDFFF).contains(next.value) == false else { throw fail("a surrogate code point") }
        index += 1
        return next.value
    }

    /// `\`..., at the backslash: a single-character escape, or `\p{..}` / `\P{..}`.
    mutating func parseEscape(inClass: Bool) throws(IRegexp.Failure) -> ScalarSet {
        let start = index
        index += 1
        guard let next = peek else { throw fail("'\\' at the end of the pattern", at: start) }
        index += 1
        switch next {
        case "n": return ScalarSet(items: [.range(0x0A, 0x0A)])
        case "r": return ScalarSet(items: [.range(0x0D, 0x0D)])
        case "t": return ScalarSet(items: [.range(0x09, 0x09)])
        case "(", ")", "*", "+", "-", ".", "?", "[", "\\", "]", "^", "{", "|", "}":
            return ScalarSet(items: [.range(next.value, next.value)])
        case "p", "P":
            guard peek == "{" else { throw fail("\\\(next) needs a category in braces: \\\(next){L}", at: start) }
            index += 1
            var name = ""
            while let letter = peek, letter != "}" {
                name.unicodeScalars.append(letter)
                index += 1
            }
            guard peek == "}" else { throw fail("a category escape is not closed", at: start) }
            index += 1
            guard Self.categories.contains(name) else { throw fail("unknown category \(quoted(name))", at: start) }
            return ScalarSet(items: [.category(name, negated: next == "P")])
        default:
            throw fail("unknown escape \\\(String(next))", at: start)
        }
    }

    /// RFC 9485's IsCategory: a major class alone, or with one of its subclasses.
    static let categories: Set<String> = [
        "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn", "N", "Nd", "Nl", "No",
        "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "Z", "Zl", "Zp", "Zs",
        "S", "Sc", "Sk", "Sm", "So", "C", "Cc", "Cf", "Cn", "Co",
    ]

    static func shown(_ scalar: Unicode.Scalar) -> String {
        quoted(String(scalar))
    }
}

/// Thompson's construction. Recursion follows the tree, whose depth the parser bounds.
private struct Compiler {
    var program: [IRegexp.Instruction] = []
    /// Calls of `emit`: a repeated part that emits nothing (`(){1000000}`) still counts.
    var calls = 0

    mutating func emit(_ tree: RegexTree) throws(IRegexp.Failure) {
        calls += 1
        guard program.count < IRegexp.maxInstructions, calls <= IRegexp.maxInstructions else {
            throw IRegexp.Failure(message: "the pattern is too large (more than \(IRegexp.maxInstructions) steps)", character: 1)
        }
        switch tree {
        case .set(let set):
            program.append(.scalar(set))
        case .anchor(let atEnd):
            program.append(atEnd ? .atEnd : .atStart)
        case .sequence(let items):
            for item in items { try emit(item) }
        case .alternatives(let branches):
            var jumps: [Int] = []
            for (position, branch) in branches.enumerated() {
                if position < branches.count - 1 {
                    let split = program.count
                    program.append(.split(split + 1, -1))
                    try emit(branch)
                    jumps.append(program.count)
                    program.append(.jump(-1))
                    program[split] = .split(split + 1, program.count)
                } else {
                    try emit(branch)
                }
            }
            for jump in jumps { program[jump] = .jump(program.count) }
        case .repeated(let inner, let min, let max):
            for _ in 0..<min { try emit(inner) }
            if let max {
                // Each optional copy may be skipped to the end.
                var splits: [Int] = []
                for _ in min..<max {
                    splits.append(program.count)
                    program.append(.split(program.count + 1, -1))
                    try emit(inner)
                }
                for split in splits { program[split] = .split(split + 1, program.count) }
            } else {
                let loop = program.count
                program.append(.split(loop + 1, -1))
                try emit(inner)
                program.append(.jump(loop))
                program[loop] = .split(loop + 1, program.count)
            }
        }
    }
}
