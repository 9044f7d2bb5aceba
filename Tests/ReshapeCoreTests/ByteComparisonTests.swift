@testable import ReshapeCore
import Testing

/// `sameBytes` compares member names a word at a time, the last word overlapping the ones
/// before it: every length up to past `memcmp`'s threshold, equal, and unequal at each byte.
@Suite struct ByteComparisonTests {
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
}
