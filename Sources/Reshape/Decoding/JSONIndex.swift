/// Where each value of a JSON text is, found in one pass: the structure ``IndexDecoder`` reads.
///
/// The text is the engine's output (or a transform's), so it is strict, canonical JSON; the index
/// only finds where values start and end and leaves strings and numbers as they are, to be read
/// when a type asks for them. It still checks every byte it relies on and throws, never traps, on
/// text it cannot index. Iterative: the depth of the document never matters for the stack.
///
/// Entries are in document order. An object's entry is followed by its members, each a name entry
/// (a string) and the entries of its value; an array's by its elements'. A container's ``Entry/end``
/// is the index of the first entry after everything it holds, so a value is skipped in one step.
struct JSONIndex {
    /// What a value is.
    enum Kind: UInt8 {
        case object, array, string, number, `true`, `false`, null
    }

    /// One value (or member name).
    struct Entry {
        /// For a string, the offset after its opening quote; otherwise the offset of its first byte.
        var start: Int
        /// For a string, the offset of its closing quote; for a number, the offset after it; for a
        /// container, the index of the first entry after its contents.
        var end: Int
        /// The kind in the low 3 bits, whether a string holds escapes in bit 3, and a container's
        /// count of members or elements above.
        var info: Int

        var kind: Kind { Kind(rawValue: UInt8(truncatingIfNeeded: info & 7)) ?? .null }
        var isEscaped: Bool { info & 8 != 0 }
        var count: Int { info >> 4 }
    }

    /// The text could not be indexed (or nests deeper than ``maxDepth``), at this offset.
    struct Malformed: Error {
        let offset: Int
    }

    /// The deepest nesting indexed: `JSONDecoder`'s limit, 512 objects and arrays.
    static let maxDepth = 512

    let bytes: ShapedBytes
    private(set) var entries: ContiguousArray<Entry> = []

    /// Indexes `bytes`.
    /// - Throws: ``Malformed`` when the text is not one JSON value.
    init(_ bytes: ShapedBytes) throws(Malformed) {
        self.bytes = bytes
        entries.reserveCapacity(bytes.buffer.count / 12 + 4)
        try build()
    }

    private mutating func build() throws(Malformed) {
        let text = bytes.buffer
        let count = text.count
        var at = 0
        // Entries of the open containers, innermost last; their counts grow in `entries`.
        var open: [Int] = []

        func skipSpace(_ at: inout Int) {
            while at < count {
                let byte = text[at]
                guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
                at += 1
            }
        }

        // One turn per value.
        while true {
            skipSpace(&at)
            guard at < count else { throw Malformed(offset: at) }
            switch text[at] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                // Decoding recurses once per level, through the types' own `init(from:)`s; past
                // `JSONDecoder`'s own limit the text goes to `JSONDecoder`, which refuses it.
                guard open.count < Self.maxDepth else { throw Malformed(offset: at) }
                let isObject = text[at] == UInt8(ascii: "{")
                open.append(entries.count)
                entries.append(Entry(start: at, end: 0, info: Int((isObject ? Kind.object : Kind.array).rawValue)))
                at += 1
                skipSpace(&at)
                guard at < count else { throw Malformed(offset: at) }
                if text[at] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    at += 1
                    close(&open, counting: false)
                } else if isObject {
                    try name(&at)
                    continue
                } else {
                    continue
                }
            case UInt8(ascii: "\""):
                try string(&at)
            case UInt8(ascii: "t"):
                try literal("true", .true, &at)
            case UInt8(ascii: "f"):
                try literal("false", .false, &at)
            case UInt8(ascii: "n"):
                try literal("null", .null, &at)
            default:
                let start = at
                while at < count, Self.isNumberByte(text[at]) { at += 1 }
                guard at > start else { throw Malformed(offset: at) }
                entries.append(Entry(start: start, end: at, info: Int(Kind.number.rawValue)))
            }

            // After a value: a separator, the end of containers, or the end of the text.
            while true {
                skipSpace(&at)
                guard let container = open.last else {
                    guard at == count else { throw Malformed(offset: at) }
                    return
                }
                guard at < count else { throw Malformed(offset: at) }
                let isObject = entries[container].kind == .object
                let byte = text[at]
                if byte == UInt8(ascii: ",") {
                    entries[container].info += 16
                    at += 1
                    if isObject { try name(&at) }
                    break
                }
                guard byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { throw Malformed(offset: at) }
                at += 1
                close(&open, counting: true)
            }
        }
    }

    /// Closes the innermost open container, counting the value just read when there was one.
    private mutating func close(_ open: inout [Int], counting: Bool) {
        guard let container = open.popLast() else { return }
        if counting { entries[container].info += 16 }
        entries[container].end = entries.count
    }

    /// Reads a member name and the colon after it.
    private mutating func name(_ at: inout Int) throws(Malformed) {
        let text = bytes.buffer
        while at < text.count, text[at] == 0x20 || text[at] == 0x0A || text[at] == 0x0D || text[at] == 0x09 { at += 1 }
        guard at < text.count, text[at] == UInt8(ascii: "\"") else { throw Malformed(offset: at) }
        try string(&at)
        while at < text.count, text[at] == 0x20 || text[at] == 0x0A || text[at] == 0x0D || text[at] == 0x09 { at += 1 }
        guard at < text.count, text[at] == UInt8(ascii: ":") else { throw Malformed(offset: at) }
        at += 1
    }

    /// Reads a string starting at its opening quote.
    private mutating func string(_ at: inout Int) throws(Malformed) {
        let text = bytes.buffer
        let start = at + 1
        var index = start
        var escaped = false
        while index < text.count {
            let byte = text[index]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                index += 2
            } else {
                index += 1
            }
        }
        guard index < text.count else { throw Malformed(offset: start - 1) }
        entries.append(Entry(start: start, end: index, info: Int(Kind.string.rawValue) | (escaped ? 8 : 0)))
        at = index + 1
    }

    private mutating func literal(_ word: StaticString, _ kind: Kind, _ at: inout Int) throws(Malformed) {
        let text = bytes.buffer
        let length = word.utf8CodeUnitCount
        guard text.count - at >= length else { throw Malformed(offset: at) }
        for offset in 0..<length where text[at + offset] != word.utf8Start[offset] {
            throw Malformed(offset: at + offset)
        }
        entries.append(Entry(start: at, end: at + length, info: Int(kind.rawValue)))
        at += length
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
    }

    // MARK: - Reading

    /// The bytes of a string or number entry (a string's without its quotes).
    func text(of entry: Entry) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes.buffer[entry.start..<entry.end])
    }

    /// The index of the entry after the value at `index` and everything it holds.
    func next(after index: Int) -> Int {
        let entry = entries[index]
        switch entry.kind {
        case .object, .array: return entry.end
        default: return index + 1
        }
    }

    /// The whole text of the value at `index`, as it stands in the document.
    func valueText(at index: Int) -> UnsafeRawBufferPointer {
        let entry = entries[index]
        switch entry.kind {
        case .object, .array:
            // Found by depth; only the fallbacks for unknown strategies need it.
            var depth = 0
            var offset = entry.start
            var inString = false
            let text = bytes.buffer
            while offset < text.count {
                let byte = text[offset]
                if inString {
                    if byte == UInt8(ascii: "\\") { offset += 1 } else if byte == UInt8(ascii: "\"") { inString = false }
                } else if byte == UInt8(ascii: "\"") {
                    inString = true
                } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                    depth += 1
                } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                    depth -= 1
                    if depth == 0 { return UnsafeRawBufferPointer(rebasing: text[entry.start..<offset + 1]) }
                }
                offset += 1
            }
            return UnsafeRawBufferPointer(rebasing: text[entry.start..<text.count])
        case .string:
            return UnsafeRawBufferPointer(rebasing: bytes.buffer[(entry.start - 1)..<(entry.end + 1)])
        default:
            return UnsafeRawBufferPointer(rebasing: bytes.buffer[entry.start..<entry.end])
        }
    }
}
