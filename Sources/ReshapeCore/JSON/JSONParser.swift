internal import CJansson

/// Reads JSON text (RFC 8259) into jansson's tree, strictly and without losing anything.
///
/// Why not `json_loadb`: jansson keeps the last of two duplicate members silently unless asked,
/// cannot report the path of a problem, rejects `\u0000` in member names, turns `1e-400` into `0.0`
/// and refuses integers beyond 64 bits. This scanner keeps member order, rejects duplicates (or lets
/// the last one win, in place, when asked), passes numbers it cannot hold through as exact text,
/// and reports line, column, byte offset and normalized path. It is iterative, so nesting depth is
/// bounded by `Limits.maxDepth`, not by the stack.
///
/// A replaced or abandoned value is freed by `Tree`, never by jansson's recursive free.
///
/// The text is either all in memory, or read as the parse goes from an `InputRegion` (`region`):
/// then `text` holds what was read so far at its input offsets, and wherever the parser reaches
/// its end it reads more (`readMore`) before deciding the input has ended.
struct JSONParser: ~Copyable {
    var text: UnsafeRawBufferPointer
    let allowDuplicateKeys: Bool
    private let errorCode: ReshapeError.Code
    /// Containers starting at this depth are captured as raw text (see `RawValue`), or nil.
    let rawDepth: Int?
    /// The deepest nesting accepted.
    let maxDepth: Int
    var index = 0
    var stack: [Frame] = []
    /// Decoded bytes of the current member name when it had escapes.
    var keyBuffer = ByteBuffer()
    /// Decoded bytes of the current string value when it had escapes.
    var valueBuffer = ByteBuffer()
    /// The raw value being captured (see `RawValue.startContainer`).
    var captureBuffer = ByteBuffer()
    /// Where each member name of the objects being captured lies in `captureBuffer`.
    var capturedKeys: [Range<Int>] = []
    /// The collection whose records are handed to a consumer instead of parsed, or nil.
    var collection: CollectionScan? = nil
    /// The current member name: where it lies in the input, and whether `keyBuffer` holds it decoded.
    var pendingKey = StringSpan(start: 0, end: 0, hasEscapes: false)
    /// Told how far reading has come (an offset in `text`) about every `progressStep` bytes, as
    /// values start; returning false cancels the parse (`cancelled`). A stream sets it to nil when
    /// it meets its collection, whose batches report from then on.
    var progress: ((Int) -> Bool)? = nil {
        didSet { nextProgress = progress == nil ? .max : index.addingClamped(Self.progressStep) }
    }
    private var nextProgress = Int.max
    static let progressStep = 1 << 19

    /// Where `text` comes from when it is not all in memory: read from here as the parse goes.
    var region: InputRegion? = nil
    /// With a region: give its bytes back as the parse goes past them (a whole-document parse,
    /// which holds the tree and not the text; a stream gives back what its batches are done with).
    var releasesBehind = false
    /// With `releasesBehind`: nothing is given back while the input read stays within this many
    /// bytes (a pipe's text, kept so that a rule's failure can be traced to it).
    var keepsFirst = 0
    /// Where the token being read starts: with `releasesBehind`, nothing from here on is given back.
    var tokenStart = 0
    /// The failure to read more of `region`, reported in place of the syntax error it leads to.
    private(set) var readError: ReshapeError? = nil
    /// Told where each value starts, with its node (for `PositionTracer`); with it, each `null`,
    /// `true` and `false` is a node of its own.
    var positions: NodePositions? = nil

    struct Frame {
        let container: Node
        let isObject: Bool
        /// For objects: offset of the current member name's opening quote, or -1.
        var keyStart = -1
        /// For arrays: index of the current element.
        var count = 0
        /// True while the current member's or element's value is being read: only then does the
        /// frame add a step to the path of an error.
        var inValue = false
        /// The current member name, decoded, once the input that holds it may be given back.
        var savedKey: [UInt8]? = nil
    }

    /// Parses `text` into a new tree. The caller owns the returned reference.
    /// - Parameters:
    ///   - text: UTF-8 JSON text; a leading byte order mark is ignored (RFC 8259 §8.1).
    ///   - allowDuplicateKeys: let the last of duplicate members win instead of failing.
    ///   - errorCode: `invalid_json` for input, `invalid_rules` for a rules document.
    ///   - rawDepth: capture objects and arrays starting at this depth (the root is depth 0) as raw
    ///     values. A container the capture refuses (a duplicate name, a very large object, invalid
    ///     input) is parsed as a tree instead, from its start; and if the text turns out invalid,
    ///     it is parsed again without capturing, so errors are exactly those of the full tree.
    ///   - maxDepth: the deepest nesting accepted; deeper is `limit_exceeded` (`invalid_rules` for
    ///     a rules document).
    ///   - progress: told how far reading has come, as `JSONParser.progress`, in the first pass
    ///     only (the second, for invalid text, only names the error); false cancels.
    static func parse(
        _ text: UnsafeRawBufferPointer, allowDuplicateKeys: Bool = false,
        errorCode: ReshapeError.Code = .invalidJSON, rawDepth: Int? = nil, maxDepth: Int = Limits.defaultMaxDepth,
        progress: ((Int) -> Bool)? = nil
    ) throws(ReshapeError) -> Node {
        if let rawDepth, rawDepth > 0 {
            var parser = JSONParser(
                text: text, allowDuplicateKeys: allowDuplicateKeys, errorCode: errorCode, rawDepth: rawDepth, maxDepth: maxDepth)
            parser.progress = progress
            do throws(ReshapeError) {
                return try parser.parseDocument()
            } catch {
                if error.code == .cancelled { throw error }
            }
            var again = JSONParser(
                text: text, allowDuplicateKeys: allowDuplicateKeys, errorCode: errorCode, rawDepth: nil, maxDepth: maxDepth)
            return try again.parseDocument()
        }
        var parser = JSONParser(
            text: text, allowDuplicateKeys: allowDuplicateKeys, errorCode: errorCode, rawDepth: nil, maxDepth: maxDepth)
        parser.progress = progress
        return try parser.parseDocument()
    }

    /// Parses one record of a collection on its own (see `RecordRunner`): like `parse`, except
    /// that with `rawDepth` 0 the record itself may be kept as a raw value.
    static func parseRecord(
        _ text: UnsafeRawBufferPointer, rawDepth: Int?, maxDepth: Int
    ) throws(ReshapeError) -> Node {
        if let rawDepth {
            var parser = JSONParser(
                text: text, allowDuplicateKeys: false, errorCode: .invalidJSON, rawDepth: rawDepth, maxDepth: maxDepth)
            if let root = try? parser.parseDocument() { return root }
        }
        var parser = JSONParser(
            text: text, allowDuplicateKeys: false, errorCode: .invalidJSON, rawDepth: nil, maxDepth: maxDepth)
        return try parser.parseDocument()
    }

    init(
        text: UnsafeRawBufferPointer, allowDuplicateKeys: Bool, errorCode: ReshapeError.Code, rawDepth: Int?, maxDepth: Int
    ) {
        self.text = text
        self.allowDuplicateKeys = allowDuplicateKeys
        self.errorCode = errorCode
        self.rawDepth = rawDepth
        self.maxDepth = maxDepth
    }

    // MARK: - Structure

    mutating func parseDocument() throws(ReshapeError) -> Node {
        ensure(3)
        if text.count >= 3, text[0] == 0xEF, text[1] == 0xBB, text[2] == 0xBF { index = 3 }
        skipWhitespace()
        if index == text.count {
            throw failure(at: index, text.isEmpty ? "empty input" : "no JSON value in the input")
        }
        var root: Node? = nil
        do throws(ReshapeError) {
            try parseValues(root: &root)
            skipWhitespace()
            if index < text.count {
                throw failure(at: index, "unexpected \(describeByte(at: index)) after the JSON value")
            }
            if let readError { throw readError }
        } catch {
            Make.release(root)
            throw error
        }
        guard let root else { throw ReshapeError(.internal, "the parser produced no value") }
        return root
    }

    /// Parses one value from `index` (white space first), and nothing after it. The caller owns
    /// the returned reference.
    mutating func parseValue() throws(ReshapeError) -> Node {
        var root: Node? = nil
        do throws(ReshapeError) {
            try parseValues(root: &root)
        } catch {
            Make.release(root)
            throw error
        }
        guard let root else { throw ReshapeError(.internal, "the parser produced no value") }
        return root
    }

    // MARK: - Reading more

    /// Reads more of `region` into `text`. False at the input's end, when `text` is the whole
    /// input, or when reading failed (then `failure` reports that instead).
    @inline(never)
    mutating func readMore() -> Bool {
        guard let region, readError == nil else { return false }
        if releasesBehind && region.filled > keepsFirst { giveBack(below: min(tokenStart, index)) }
        do throws(ReshapeError) {
            guard try region.readMore() else { return false }
        } catch {
            readError = error
            return false
        }
        text = region.text
        return true
    }

    /// Reads until `count` bytes from `index` on are in `text`, or the input ends.
    @inline(__always)
    mutating func ensure(_ count: Int) {
        if index + count > text.count && region != nil { readMore(until: index + count) }
    }

    @inline(never)
    private mutating func readMore(until end: Int) {
        while end > text.count, readMore() {}
    }

    /// Whether `count` bytes from `index` on are there once more of a region is read: for the
    /// paths where a check against what was read so far failed.
    @inline(never)
    private mutating func hasRead(_ count: Int) -> Bool {
        guard region != nil else { return false }
        readMore(until: index + count)
        return index + count <= text.count
    }

    /// Gives back the region's bytes before `offset`, keeping the member names that the open
    /// containers (and the value being read) still need.
    private mutating func giveBack(below offset: Int) {
        guard let region else { return }
        let end = offset / region.chunk * region.chunk
        guard end > region.releasedTo else { return }
        saveKeys(below: end)
        region.release(below: end)
    }

    /// Keeps the member names that lie before `end` in the input apart from it: the open
    /// containers' (for paths in errors) and the one whose value is being read (for `link`).
    mutating func saveKeys(below end: Int) {
        for level in stack.indices where stack[level].keyStart >= 0 && stack[level].keyStart < end {
            if stack[level].savedKey == nil { stack[level].savedKey = decodedKeyBytes(at: stack[level].keyStart) }
        }
        if !pendingKey.hasEscapes && pendingKey.start < end && pendingKey.end > pendingKey.start {
            keyBuffer.removeAll()
            keyBuffer.append(UnsafeRawBufferPointer(rebasing: text[pendingKey.start..<pendingKey.end]))
            pendingKey.hasEscapes = true  // `keyBuffer` holds it, decoded (it has no escapes)
        }
    }

    private mutating func reportProgress() throws(ReshapeError) {
        guard let progress else { return }
        guard progress(index) else { throw .cancelledByProgress }
        nextProgress = index.addingClamped(Self.progressStep)
    }

    /// Parses one complete value (with everything nested in it) and links it as `root`.
    private mutating func parseValues(root: inout Node?) throws(ReshapeError) {
        while true {
            // A value starts here.
            skipWhitespace()
            if index >= nextProgress { try reportProgress() }
            guard index < text.count else { throw failure(at: index, "unexpected end of input, expected a value") }
            let start = index
            tokenStart = start
            // A member's name stays with its value until the value is linked (a duplicate's error
            // gives the name's line and column).
            if releasesBehind, let top = stack.last, top.isObject, top.keyStart >= 0 { tokenStart = top.keyStart }
            let byte = text[index]
            let value: Node
            var opensContainer = false
            switch byte {
            case UInt8(ascii: "{") where rawDepth == stack.count && captureRawValue(),
                UInt8(ascii: "[") where rawDepth == stack.count && captureRawValue():
                value = try RawValue.container(from: captureBuffer)
            case UInt8(ascii: "{"):
                index = start  // A refused capture leaves `index` anywhere inside the container.
                value = try Make.object()
                opensContainer = true
                index += 1
            case UInt8(ascii: "["):
                index = start
                value = try Make.array()
                opensContainer = true
                index += 1
            case UInt8(ascii: "\""):
                value = try parseStringValue()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = try parseNumber()
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                value = positions?.ownNode(like: Make.bool(true)) ?? Make.bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                value = positions?.ownNode(like: Make.bool(false)) ?? Make.bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                value = positions?.ownNode(like: Make.null()) ?? Make.null()
            default:
                throw failure(at: index, "expected a value, found \(describeByte(at: index))")
            }
            positions?.record(value, at: start)
            try link(value, startingAt: start, root: &root)
            if opensContainer, let scan = collection, isCollection(scan) {
                // The records are handed over one by one instead (see `CollectionScan`).
                try scanRecords(into: value, isObject: byte == UInt8(ascii: "{"), scan: scan)
            } else if opensContainer {
                guard stack.count < maxDepth else {
                    var error = ReshapeError.depthLimit(maxDepth, code: errorCode == .invalidRules ? .invalidRules : .limitExceeded)
                    let position = position(of: start)
                    error.path = currentPath()
                    (error.line, error.column, error.position) = (position.line, position.column, start)
                    throw error
                }
                stack.append(Frame(container: value, isObject: byte == UInt8(ascii: "{")))
                skipWhitespace()
                let closer = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if index < text.count, text[index] == closer {
                    index += 1
                    stack.removeLast()
                } else {
                    if byte == UInt8(ascii: "{") {
                        try parseMemberName()
                    } else {
                        stack[stack.count - 1].inValue = true
                    }
                    continue
                }
            }
            // The value is complete: move on to the next member or element, closing containers.
            while let top = stack.last {
                stack[stack.count - 1].inValue = false
                skipWhitespace()
                guard index < text.count else {
                    throw failure(at: index, "unexpected end of input, expected ',' or '\(top.isObject ? "}" : "]")'")
                }
                let next = text[index]
                if next == UInt8(ascii: ",") {
                    index += 1
                    if top.isObject {
                        try parseMemberName()
                    } else {
                        stack[stack.count - 1].count += 1
                        stack[stack.count - 1].inValue = true
                    }
                    break
                }
                if next == UInt8(ascii: top.isObject ? "}" : "]") {
                    index += 1
                    stack.removeLast()
                    continue
                }
                let expected = top.isObject ? "',' or '}' after a member" : "',' or ']' after an element"
                throw failure(at: index, "expected \(expected), found \(describeByte(at: index))")
            }
            if stack.isEmpty { return }
        }
    }

    /// Links a new value (stolen) into the container on top of the stack, or makes it the root.
    private mutating func link(_ value: Node, startingAt start: Int, root: inout Node?) throws(ReshapeError) {
        guard let top = stack.last else {
            root = value
            return
        }
        if !top.isObject {
            try Make.append(top.container, value)
            return
        }
        let key = pendingKey.hasEscapes
            ? keyBuffer.bytes : UnsafeRawBufferPointer(rebasing: text[pendingKey.start..<pendingKey.end])
        // A replaced duplicate's old value is freed by `Tree`, without recursion.
        let isNew = try Make.set(top.container, key, value)
        if !isNew && !allowDuplicateKeys {
            let name = String(jsonBytes: key)
            throw failure(at: top.keyStart, "duplicate member name \(quoted(name))")
        }
    }

    /// Reads `"name" :` and records where the name starts, for paths and for `link`.
    private mutating func parseMemberName() throws(ReshapeError) {
        skipWhitespace()
        guard index < text.count else { throw failure(at: index, "unexpected end of input, expected a member name") }
        guard text[index] == UInt8(ascii: "\"") else {
            throw failure(at: index, "expected a member name in double quotes, found \(describeByte(at: index))")
        }
        stack[stack.count - 1].keyStart = index
        stack[stack.count - 1].savedKey = nil
        tokenStart = index
        let span = try scanString()
        keyBuffer.removeAll()
        if span.hasEscapes { Self.decodeEscapes(text, span, into: &keyBuffer) }
        pendingKey = span
        skipWhitespace()
        guard index < text.count else { throw failure(at: index, "unexpected end of input, expected ':'") }
        guard text[index] == UInt8(ascii: ":") else {
            throw failure(at: index, "expected ':' after a member name, found \(describeByte(at: index))")
        }
        index += 1
        stack[stack.count - 1].inValue = true
    }

    // MARK: - Scalars

    private mutating func parseStringValue() throws(ReshapeError) -> Node {
        let span = try scanString()
        if !span.hasEscapes {
            return try Make.string(UnsafeRawBufferPointer(rebasing: text[span.start..<span.end]))
        }
        valueBuffer.removeAll()
        Self.decodeEscapes(text, span, into: &valueBuffer)
        return try Make.string(valueBuffer.bytes)
    }

    private mutating func parseNumber() throws(ReshapeError) -> Node {
        while true {
            switch NumberLiteral.scan(text, from: index) {
            case .success(let (literal, end)):
                // A number that ends where the text read so far ends may go on.
                if end == text.count && readMore() { continue }
                index = end
                return try literal.makeNode()
            case .failure(let problem):
                if problem.offset >= text.count && readMore() { continue }
                throw failure(at: problem.offset, problem.message)
            }
        }
    }

    /// Moves past `true`, `false` or `null` (the one its first byte, at `index`, starts) in the
    /// text read so far; nil, not moving, when the text does not hold it there. For the passes
    /// over a record's text, which give up rather than read more or name an error.
    mutating func skipLiteral() -> StaticString? {
        guard index < text.count else { return nil }
        let first = text[index]
        let word: StaticString = first == UInt8(ascii: "t") ? "true" : first == UInt8(ascii: "f") ? "false" : "null"
        let count = word.utf8CodeUnitCount
        guard index + count <= text.count else { return nil }
        for offset in 0..<count where text[index + offset] != word.utf8Start[offset] { return nil }
        index += count
        return word
    }

    private mutating func expectLiteral(_ word: StaticString) throws(ReshapeError) {
        let count = word.utf8CodeUnitCount
        let start = index
        ensure(count)
        for offset in 0..<count {
            guard start + offset < text.count, text[start + offset] == word.utf8Start[offset] else {
                throw failure(at: start, "invalid literal, expected '\(word)'")
            }
        }
        index += count
    }

    /// Where a string's content lies in the input, and whether it needs decoding.
    struct StringSpan {
        var start: Int
        var end: Int
        var hasEscapes: Bool
    }

    /// Checks a string starting at the opening quote and moves past the closing quote. Everything
    /// is validated here (UTF-8, control characters, escapes, surrogate pairs), so decoding later
    /// cannot fail.
    mutating func scanString() throws(ReshapeError) -> StringSpan {
        let opening = index
        index += 1
        let start = index
        var hasEscapes = false
        if let span = try scanStringBytes(start: start, upTo: text.count, hasEscapes: &hasEscapes) { return span }
        guard region != nil else { throw failure(at: opening, "unterminated string") }
        return try scanStringFurther(opening: opening, start: start, hasEscapes: hasEscapes)
    }

    /// The rest of a string that went on past what a region had read when `scanString` began,
    /// reading more wherever the scan reaches the end. Out of line, so that the scan of text in
    /// memory stays as small as it was.
    @inline(never)
    private mutating func scanStringFurther(opening: Int, start: Int, hasEscapes escapes: Bool) throws(ReshapeError) -> StringSpan {
        var hasEscapes = escapes
        while true {
            if let span = try scanStringBytes(start: start, upTo: text.count, hasEscapes: &hasEscapes) { return span }
            // An escape or a sequence near the end may have read more already.
            if index < text.count { continue }
            guard readMore() else { break }
        }
        throw failure(at: opening, "unterminated string")
    }

    /// Scans a string's content from `index` up to `count` (what was read when the call began):
    /// its span when the closing quote comes first (`index` then past it), else nil.
    @inline(__always)
    private mutating func scanStringBytes(start: Int, upTo count: Int, hasEscapes: inout Bool) throws(ReshapeError) -> StringSpan? {
        while index < count {
            // Eight bytes at a time up to the next one that needs a look.
            if let base = text.baseAddress {
                while index + 8 <= count {
                    let special = Self.specialBytes(UInt64(littleEndian: (base + index).loadUnaligned(as: UInt64.self)))
                    if special == 0 {
                        index += 8
                        continue
                    }
                    index += special.trailingZeroBitCount >> 3
                    break
                }
                guard index < count else { break }
            }
            let byte = text[index]
            if byte == UInt8(ascii: "\"") {
                let span = StringSpan(start: start, end: index, hasEscapes: hasEscapes)
                index += 1
                return span
            }
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                try scanEscape()
            } else if byte < 0x20 {
                throw failure(at: index, "control character U+\(hex(UInt32(byte), width: 4)) in a string must be escaped")
            } else if byte < 0x80 {
                index += 1
            } else {
                try scanUTF8Sequence()
            }
        }
        return nil
    }

    private mutating func scanEscape() throws(ReshapeError) {
        let start = index
        guard index + 1 < text.count || hasRead(2) else { throw failure(at: start, "unterminated string") }
        switch text[index + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
            UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 2
        case UInt8(ascii: "u"):
            ensure(6)
            let unit = try hexEscape(at: index)
            index += 6
            if unit >= 0xDC00 && unit <= 0xDFFF {
                throw failure(at: start, "lone low surrogate \\u\(hex(unit, width: 4)) in a string")
            }
            if unit >= 0xD800 && unit <= 0xDBFF {
                ensure(6)
                guard index + 1 < text.count, text[index] == UInt8(ascii: "\\"), text[index + 1] == UInt8(ascii: "u"),
                    case let low = try hexEscape(at: index), low >= 0xDC00 && low <= 0xDFFF
                else {
                    throw failure(at: start, "lone high surrogate \\u\(hex(unit, width: 4)) in a string")
                }
                index += 6
            }
        default:
            throw failure(at: start, "invalid escape \(describeEscape(at: start)) in a string")
        }
    }

    /// The code unit of `\uXXXX` at `offset` (pointing at the backslash).
    private func hexEscape(at offset: Int) throws(ReshapeError) -> UInt32 {
        guard offset + 6 <= text.count else {
            throw failure(at: offset, "invalid \\u escape: expected 4 hexadecimal digits")
        }
        var value: UInt32 = 0
        for position in (offset + 2)..<(offset + 6) {
            guard let digit = hexDigitValue(text[position]) else {
                throw failure(at: offset, "invalid \\u escape: expected 4 hexadecimal digits")
            }
            value = value << 4 | digit
        }
        return value
    }

    private mutating func scanUTF8Sequence() throws(ReshapeError) {
        let lead = text[index]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F  // U+D800..U+DFFF are not scalars.
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F  // Nothing above U+10FFFF.
        default:
            throw failure(at: index, "invalid UTF-8 byte 0x\(hex(UInt32(lead), width: 2))")
        }
        guard index + length <= text.count || hasRead(length) else {
            throw failure(at: index, "truncated UTF-8 sequence")
        }
        let second = text[index + 1]
        guard second >= low && second <= high else {
            throw failure(at: index, "invalid UTF-8 sequence starting with byte 0x\(hex(UInt32(lead), width: 2))")
        }
        if length > 2 {
            for offset in 2..<length where text[index + offset] & 0xC0 != 0x80 {
                throw failure(at: index, "invalid UTF-8 sequence starting with byte 0x\(hex(UInt32(lead), width: 2))")
            }
        }
        index += length
    }

    /// Appends the decoded content of an already validated string.
    static func decodeEscapes(_ text: UnsafeRawBufferPointer, _ span: StringSpan, into buffer: inout ByteBuffer) {
        var position = span.start
        while position < span.end {
            let byte = text[position]
            guard byte == UInt8(ascii: "\\") else {
                buffer.append(byte)
                position += 1
                continue
            }
            let escaped = text[position + 1]
            position += 2
            switch escaped {
            case UInt8(ascii: "b"): buffer.append(0x08)
            case UInt8(ascii: "f"): buffer.append(0x0C)
            case UInt8(ascii: "n"): buffer.append(0x0A)
            case UInt8(ascii: "r"): buffer.append(0x0D)
            case UInt8(ascii: "t"): buffer.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = unitAt(text, position)
                position += 4
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    let low = unitAt(text, position + 2)
                    position += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                appendUTF8(scalar, to: &buffer)
            default: buffer.append(escaped)  // " \ /
            }
        }
    }

    private static func unitAt(_ text: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for position in offset..<(offset + 4) {
            value = value << 4 | (hexDigitValue(text[position]) ?? 0)
        }
        return value
    }

    // MARK: - Helpers

    /// The high bit of each byte of `word` (little-endian: the first byte lowest) that is a quote, a
    /// backslash, a control character or not ASCII. The lowest bit set is exact; bits above it may
    /// be set for ordinary bytes (a borrow), which only makes a caller look at one more byte.
    @inline(__always)
    static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let quoteZero = (quote &- ones) & ~quote
        let backslashZero = (backslash &- ones) & ~backslash
        let control = word &- (ones &* 0x20)
        return (quoteZero | backslashZero | control | word) & (ones &* 0x80)
    }

    @inline(__always)
    mutating func skipWhitespace() {
        // Compact JSON has none: one look and back.
        if index < text.count {
            guard text[index] <= 0x20 else { return }
        } else if region == nil {
            return
        }
        skipWhitespaceRun()
    }

    private mutating func skipWhitespaceRun() {
        repeat {
            while index < text.count {
                switch text[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        } while readMore()
    }

    /// The normalized path of the value being read, from the open containers.
    /// Empty when the problem is outside any container (an empty input, trailing data).
    func currentPath() -> String {
        guard !stack.isEmpty else { return "" }
        var path = NormalizedPath()
        for frame in stack {
            guard frame.inValue else { break }
            if frame.isObject {
                path.append(key: frame.savedKey.map { key in key.withUnsafeBytes { String(jsonBytes: $0) } } ?? decodedKey(at: frame.keyStart))
            } else {
                path.append(index: frame.count)
            }
        }
        return path.text
    }

    /// The member name whose opening quote is at `offset`, decoded again (only on error paths).
    /// The name was validated when it was first read, so skipping escapes finds its end.
    func decodedKey(at offset: Int) -> String {
        decodedKeyBytes(at: offset).withUnsafeBytes { String(jsonBytes: $0) }
    }

    /// The current member name of `frame` (an object's), decoded.
    func key(of frame: borrowing Frame) -> [UInt8] {
        frame.savedKey ?? decodedKeyBytes(at: frame.keyStart)
    }

    /// The member name whose opening quote is at `offset`, decoded again.
    func decodedKeyBytes(at offset: Int) -> [UInt8] {
        var end = offset + 1
        var hasEscapes = false
        while end < text.count, text[end] != UInt8(ascii: "\"") {
            if text[end] == UInt8(ascii: "\\") {
                hasEscapes = true
                end += 1
            }
            end += 1
        }
        var bytes = ByteBuffer()
        Self.decodeEscapes(text, StringSpan(start: offset + 1, end: min(end, text.count), hasEscapes: hasEscapes), into: &bytes)
        return bytes.toArray()
    }

    /// The line and column of `offset`.
    func position(of offset: Int) -> TextPosition {
        region?.position(of: offset) ?? TextPosition(of: offset, in: text)
    }

    /// The error at `offset`: out of line, so that the scanners that may fail stay small.
    @inline(never)
    func failure(at offset: Int, _ message: String) -> ReshapeError {
        if let readError { return readError }
        let position = position(of: offset)
        return ReshapeError(
            errorCode, message, path: currentPath(), line: position.line, column: position.column,
            position: offset)
    }

    func describeByte(at offset: Int) -> String {
        let byte = text[offset]
        if byte >= 0x21 && byte < 0x7F {
            return byte == UInt8(ascii: "'") ? "\"'\"" : "'\(Character(Unicode.Scalar(byte)))'"
        }
        return "byte 0x\(hex(UInt32(byte), width: 2))"
    }

    private func describeEscape(at offset: Int) -> String {
        let byte = text[offset + 1]
        if byte >= 0x21 && byte < 0x7F { return "'\\\(Character(Unicode.Scalar(byte)))'" }
        return "'\\' followed by byte 0x\(hex(UInt32(byte), width: 2))"
    }
}

@inline(__always)
private func hexDigitValue(_ byte: UInt8) -> UInt32? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
    default: nil
    }
}

func appendUTF8(_ scalar: UInt32, to buffer: inout ByteBuffer) {
    switch scalar {
    case 0..<0x80:
        buffer.append(UInt8(scalar))
    case 0x80..<0x800:
        buffer.append(UInt8(0xC0 | scalar >> 6))
        buffer.append(UInt8(0x80 | scalar & 0x3F))
    case 0x800..<0x10000:
        buffer.append(UInt8(0xE0 | scalar >> 12))
        buffer.append(UInt8(0x80 | scalar >> 6 & 0x3F))
        buffer.append(UInt8(0x80 | scalar & 0x3F))
    default:
        buffer.append(UInt8(0xF0 | scalar >> 18))
        buffer.append(UInt8(0x80 | scalar >> 12 & 0x3F))
        buffer.append(UInt8(0x80 | scalar >> 6 & 0x3F))
        buffer.append(UInt8(0x80 | scalar & 0x3F))
    }
}
