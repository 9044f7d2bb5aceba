/// The member names of a keyed collection seen so far, to refuse a duplicate as the whole tree
/// does, in 8 bytes per record: only a 64-bit hash of each name is kept.
///
/// Two different names share a hash with a chance of about n²/2⁶⁵ (one in a few million for a
/// 3-million-record export), and a shared hash is never taken on trust: the names before it are
/// read again from the input and compared byte for byte (`JSONParser.collectionHasName`). So a
/// duplicate is reported exactly when there is one.
struct RecordNames {
    /// Open addressing, linear probing; 0 marks an empty slot (a hash of 0 is stored as 1).
    private var slots = [UInt64](repeating: 0, count: 1 << 12)
    private var count = 0

    /// Adds `name`'s hash; false when an equal hash was there (the name may be a duplicate).
    mutating func insert(_ name: UnsafeRawBufferPointer) -> Bool {
        if (count + 1) * 4 > slots.count * 3 { grow() }
        let hash = Self.hash(name)
        var slot = Int(truncatingIfNeeded: hash) & (slots.count - 1)
        while slots[slot] != 0 {
            if slots[slot] == hash { return false }
            slot = (slot + 1) & (slots.count - 1)
        }
        slots[slot] = hash
        count += 1
        return true
    }

    private mutating func grow() {
        let old = slots
        slots = [UInt64](repeating: 0, count: old.count * 2)
        for hash in old where hash != 0 {
            var slot = Int(truncatingIfNeeded: hash) & (slots.count - 1)
            while slots[slot] != 0 { slot = (slot + 1) & (slots.count - 1) }
            slots[slot] = hash
        }
    }

    /// FNV-1a, then mixed (splitmix64's finalizer) so that the low bits index well.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        hash ^= hash >> 31
        return hash == 0 ? 1 : hash
    }
}
