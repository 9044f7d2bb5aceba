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
}
