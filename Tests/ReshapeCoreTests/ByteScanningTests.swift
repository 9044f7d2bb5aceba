@testable import ReshapeCore
import Foundation
import Testing

/// The word-at-a-time scans over bytes, against the plain byte-by-byte answer.
@Suite struct ByteScanningTests {
    /// `sameBytes` compares member names a word at a time, the last word overlapping the ones
    /// before it: every length up to past `memcmp`'s threshold, equal, and unequal at each byte.
    @Test func sameBytesFindsADifferenceAtEveryPlaceOfEveryLength() {
        for count in 0...40 {
            let left = (0..<count).map { UInt8(truncatingIfNeeded: 97 + $0 % 26) }
            left.withUnsafeBytes { leftBytes in
                let copy = left
                copy.withUnsafeBytes { #expect(leftBytes.sameBytes(as: $0), "length \(count)") }
                for place in 0..<count {
                    var right = left
                    right[place] ^= 0x20
                    right.withUnsafeBytes { #expect(!leftBytes.sameBytes(as: $0), "length \(count), byte \(place)") }
                }
                // One byte longer, the same prefix.
                let longer = left + [0x61]
                longer.withUnsafeBytes { #expect(!leftBytes.sameBytes(as: $0), "length \(count) against \(count + 1)") }
            }
        }
    }

    /// `LineCounter` counts line breaks and UTF-8 continuation bytes eight bytes at a time, each
    /// byte's count in its own lane: random text of every length around the word and the
    /// 255-word flush (1, 2, 3 and 4 byte sequences, line breaks, runs of the same byte), given
    /// whole and in random pieces, against a count byte by byte.
    @Test func lineCounterCountsAsByteByByte() {
        var random = SeededGenerator(seed: 2_718)
        let pieces: [[UInt8]] = [[0x61], [0x0A], [0xC3, 0xA9], [0xE6, 0x9D, 0xB1], [0xF0, 0x9F, 0x8D, 0xA3], [0x20], [0x0A, 0x0A]]
        for length in [0, 1, 7, 8, 9, 63, 64, 65, 2039, 2040, 2041, 2048, 4100, 20_000] {
            for shape in 0..<4 {
                var text: [UInt8] = []
                while text.count < length {
                    switch shape {
                    case 0: text += pieces[Int(random.next() % UInt64(pieces.count))]
                    case 1: text += [0xF0, 0x9F, 0x8D, 0xA3]  // continuation bytes all along one line
                    case 2: text.append(0x0A)  // line breaks only
                    default: text += Int(random.next() % 50) == 0 ? [0x0A] : [0xE6, 0x9D, 0xB1]
                    }
                }
                text = Array(text.prefix(length))
                var line = 1
                var column = 1
                for byte in text {
                    if byte == 0x0A {
                        line += 1
                        column = 1
                    } else if byte & 0xC0 != 0x80 {
                        column += 1
                    }
                }
                text.withUnsafeBytes { bytes in
                    var whole = LineCounter()
                    whole.advance(over: bytes)
                    #expect(whole.line == line && whole.column == column, "length \(length) shape \(shape)")
                    var pieced = LineCounter()
                    var start = 0
                    while start < bytes.count {
                        let end = min(bytes.count, start + 1 + Int(random.next() % 3000))
                        pieced.advance(over: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                        start = end
                    }
                    #expect(pieced.line == line && pieced.column == column, "length \(length) shape \(shape), in pieces")
                }
            }
        }
    }

    /// A position counted on from one found before (`after:`) is the one counted from the start:
    /// in memory, and in a file's region whose first chunks were given back (read again from the
    /// known position, or from the start when it is not before), at and between every place a
    /// stream of records would name, in order and out of it.
    @Test func positionsCountedOnAgreeWithPositionsCountedFromTheStart() throws {
        var random = SeededGenerator(seed: 9_535)
        let pieces: [[UInt8]] = [[0x61], [0x0A], [0xC3, 0xA9], [0xE6, 0x9D, 0xB1], [0xF0, 0x9F, 0x8D, 0xA3], [0x20]]
        var text: [UInt8] = []
        while text.count < 40_000 { text += pieces[Int(random.next() % UInt64(pieces.count))] }
        let places = (0..<60).map { _ in Int(random.next() % UInt64(text.count + 1)) }.sorted() + [0, text.count, 17, 39_000]
        text.withUnsafeBytes { bytes in
            var known: TextPosition? = nil
            for place in places {
                let counted = TextPosition(of: place, in: bytes, after: known)
                let fresh = TextPosition(of: place, in: bytes)
                #expect((counted.line, counted.column) == (fresh.line, fresh.column), "in memory at \(place)")
                known = counted
            }
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("positions-\(getpid()).json").path
        defer { unlink(path) }
        try Data(text).write(to: URL(fileURLWithPath: path))
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let region = try InputRegion(descriptor: descriptor, name: path, chunk: 4096)
        while try region.readMore() {}
        region.release(below: 20_000)
        #expect(region.releasedTo > 0)
        var known: TextPosition? = nil
        for place in places {
            let counted = region.position(of: place, after: known)
            let fresh = text.withUnsafeBytes { TextPosition(of: place, in: $0) }
            #expect((counted.line, counted.column) == (fresh.line, fresh.column), "in a file at \(place), from \(known?.offset ?? 0)")
            known = counted
        }
    }

    /// `RecordPeek.members` steps over strings eight bytes at a time: on objects whose names and
    /// values hold quotes, backslashes (runs of them before a quote), brackets in strings and
    /// text in several scripts, whole and cut at every length, and on soups of JSON's pieces,
    /// it finds what the scan byte by byte finds, and scans as far.
    @Test func recordPeekFindsWhatTheByteByByteScanFinds() {
        var random = SeededGenerator(seed: 4_177)
        let nameSets: [[[UInt8]]] = [["id"], ["groups", "id"], ["a", "x", "data"], ["東京", "w"]].map { $0.map { Array($0.utf8) } }
        let strings = [#""plain text here""#, #""a \"quoted\" word""#, #""ends in a backslash \\""#, #""\\\\\"x""#,
                       #""{[not a container]}""#, #""東京 team 🚀""#, #""\u0041\n""#, #"",:}]""#]
        var texts: [[UInt8]] = []
        for _ in 0..<300 {
            var members: [String] = []
            for _ in 0..<random.next(7) {
                let name = random.pick(["id", "groups", "a", "x", "data", "w", #"a\"b"#, #"i\u0064"#, "東京"])
                let value = random.next(3) == 0 ? random.pick(strings) : RandomJSON.value(&random, depth: 1)
                let space = random.pick(["", " ", "\n\t", "\r\n  "])
                members.append("\(space)\"\(name)\"\(space):\(space)\(value)\(space)")
            }
            texts.append(Array(("{" + members.joined(separator: ",") + "}").utf8))
        }
        let pieces: [[UInt8]] = ["{", "}", "[", "]", "\"", "\\", ":", ",", " ", "\n", "id", "a", "7", "true", "東", "\\\""].map { Array($0.utf8) }
        for _ in 0..<3_000 {
            var soup: [UInt8] = random.next(4) == 0 ? [] : Array("{\"".utf8)
            for _ in 0..<random.next(40) { soup += random.pick(pieces) }
            texts.append(soup)
        }
        var compared = 0
        var found = 0
        for text in texts {
            let cuts = text.count < 200 ? Array(0...text.count) : [text.count, text.count - 1, text.count / 2]
            for cut in cuts {
                let piece = Array(text.prefix(cut))
                for names in nameSets {
                    piece.withUnsafeBytes { bytes in
                        var fast: [(name: Int, value: Range<Int>)] = []
                        var plain: [(name: Int, value: Range<Int>)] = []
                        let fastScanned = RecordPeek.members(names, in: bytes, into: &fast)
                        let plainScanned = Self.plainMembers(names, in: bytes, into: &plain)
                        #expect(fastScanned == plainScanned, "\(String(decoding: piece, as: UTF8.self))")
                        #expect(fast.map(\.name) == plain.map(\.name) && fast.map(\.value) == plain.map(\.value),
                                "\(String(decoding: piece, as: UTF8.self))")
                        compared += 1
                        if fastScanned != nil && !fast.isEmpty { found += 1 }
                    }
                }
            }
        }
        // The inputs reach members found, and scans that give up.
        #expect(compared > 50_000 && found > 2_000)
    }

    /// `RecordPeek.members` as it was written first, byte by byte (quotes found by `memchr`).
    static func plainMembers(_ names: [[UInt8]], in text: UnsafeRawBufferPointer, into members: inout [(name: Int, value: Range<Int>)]) -> Int? {
        members.removeAll(keepingCapacity: true)
        var index = 0
        let count = text.count
        func skipSpace() {
            while index < count, text[index] == 0x20 || text[index] == 0x0A || text[index] == 0x0D || text[index] == 0x09 { index += 1 }
        }
        /// Moves past the string whose opening quote is at `index`; false when it has no end, or
        /// (with `plain`) holds an escape.
        func skipString(plain: Bool) -> Bool {
            index += 1
            if !plain, let base = text.baseAddress {
                // To each quote, until one no backslash escapes.
                while index < count {
                    guard let quote = memchr(base + index, Int32(UInt8(ascii: "\"")), count - index) else { return false }
                    let end = base.distance(to: UnsafeRawPointer(quote))
                    var backslashes = 0
                    while end - backslashes - 1 >= index && text[end - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
                    index = end + 1
                    if backslashes % 2 == 0 { return true }
                }
                return false
            }
            while index < count {
                let byte = text[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return true
                }
                if byte == UInt8(ascii: "\\") {
                    if plain { return false }
                    index += 1
                }
                index += 1
            }
            return false
        }
        /// Moves past the value that starts at `index` (brackets counted, not matched).
        func skipValue() -> Bool {
            guard index < count else { return false }
            switch text[index] {
            case UInt8(ascii: "\""):
                return skipString(plain: false)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while index < count {
                    switch text[index] {
                    case UInt8(ascii: "\""):
                        guard skipString(plain: false) else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            index += 1
                            return true
                        }
                    default:
                        break
                    }
                    index += 1
                }
                return false
            default:
                let start = index
                while index < count {
                    switch text[index] {
                    case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09: return index > start
                    default: index += 1
                    }
                }
                return false
            }
        }
        skipSpace()
        guard index < count, text[index] == UInt8(ascii: "{") else { return nil }
        index += 1
        skipSpace()
        if index < count, text[index] == UInt8(ascii: "}") { return index + 1 }
        while members.count < names.count {
            skipSpace()
            guard index < count, text[index] == UInt8(ascii: "\"") else { return nil }
            let nameStart = index + 1
            guard skipString(plain: true) else { return nil }
            let name = UnsafeRawBufferPointer(rebasing: text[nameStart..<index - 1])
            skipSpace()
            guard index < count, text[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            skipSpace()
            let valueStart = index
            guard skipValue() else { return nil }
            for position in names.indices where names[position].count == name.count {
                guard names[position].withUnsafeBytes({ $0.sameBytes(as: name) }) else { continue }
                if !members.contains(where: { $0.name == position }) { members.append((position, valueStart..<index)) }
                break
            }
            skipSpace()
            guard index < count else { return nil }
            if text[index] == UInt8(ascii: "}") { break }
            guard text[index] == UInt8(ascii: ",") else { return nil }
            index += 1
        }
        return index
    }
}
