/// The member names of a keyed collection seen so far, to refuse a duplicate as the whole tree
/// does, in 4-byte slots at most three quarters full.
///
/// Each name's 64-bit hash picks its home slot with its high bits, and the slot keeps its low 32
/// bits: two different names meet only if both agree, about once in a billion 3-million-record
/// exports. A meeting is never taken on trust: the names before it are read again from the input and
/// compared byte for byte (`JSONParser.collectionHasName`), so a duplicate is reported exactly when
/// there is one. The slots cannot give back a name's high bits, so the table grows by reading the
/// names again from the input (`JSONParser.rehashCollectionNames`), four times larger each time;
/// so it is sized once, after a sample of names, for the whole collection (`capacity(for:)`).
struct RecordNames {
    /// Open addressing, linear probing; 0 marks an empty slot (low bits of 0 are kept as 1).
    private(set) var slots = [UInt32](repeating: 0, count: 1 << 12)
    private(set) var count = 0

    /// True when one more name would fill the table past three quarters: grow it first.
    var isFull: Bool { (count + 1) * 4 > slots.count * 3 }

    /// An empty table of `capacity` slots (a power of two).
    init(capacity: Int = 1 << 12) {
        slots = [UInt32](repeating: 0, count: capacity)
    }

    /// Names seen before the table is sized for the whole collection (see `capacity(for:)`).
    static let sampleSize = 1024

    /// The number of records a collection of `totalBytes` holds if its records are the size of
    /// the `sampled` ones, which took `sampleBytes`.
    static func expectedCount(sampled: Int, sampleBytes: Int, totalBytes: Int) -> Int {
        guard sampleBytes > 0 else { return sampled }
        return sampled.multipliedClamped(by: totalBytes) / sampleBytes
    }

    /// The slots for `count` names, growing `slots` four times at a time as inserting would, but
    /// no larger than `maxBytes` (beyond it, the table grows as names come).
    static func capacity(for count: Int, from slots: Int, maxBytes: Int) -> Int {
        var capacity = slots
        while capacity * 3 / 4 < count && capacity * 4 * MemoryLayout<UInt32>.stride <= maxBytes { capacity *= 4 }
        return capacity
    }

    /// Adds `hash`; false when a name that may be the same was there.
    mutating func insert(hash: UInt64) -> Bool {
        let mask = slots.count - 1
        let low = UInt32(truncatingIfNeeded: hash) | (UInt32(truncatingIfNeeded: hash) == 0 ? 1 : 0)
        var slot = Int(truncatingIfNeeded: hash >> 32) & mask
        while slots[slot] != 0 {
            if slots[slot] == low { return false }
            slot = (slot + 1) & mask
        }
        slots[slot] = low
        count += 1
        return true
    }

    /// Eight bytes at a time, each word folded in with a full-width multiply (as wyhash does),
    /// then mixed (splitmix64's finalizer) so that all bits depend on every byte.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        let count = bytes.count
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: count)
        if let base = bytes.baseAddress {
            var offset = 0
            while offset + 8 <= count {
                hash = fold(hash, base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                offset += 8
            }
            // The last bytes, in at most two loads (the count, in the seed, tells tails apart).
            if offset < count {
                let tail: UInt64
                if count >= 8 {
                    tail = base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                } else if count >= 4 {
                    tail = UInt64(base.loadUnaligned(as: UInt32.self))
                        | UInt64(base.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)) << 32
                } else {
                    tail = UInt64(base.load(as: UInt8.self)) | UInt64(base.load(fromByteOffset: count / 2, as: UInt8.self)) << 8
                        | UInt64(base.load(fromByteOffset: count - 1, as: UInt8.self)) << 16
                }
                hash = fold(hash, tail)
            }
        }
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        return hash ^ (hash >> 31)
    }

    @inline(__always)
    private static func fold(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        let product = (hash ^ word).multipliedFullWidth(by: 0xa076_1d64_78bd_642f)
        return product.high ^ product.low
    }
}
