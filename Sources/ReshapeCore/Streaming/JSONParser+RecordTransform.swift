/// The fast path's pass over one record (see `RecordFastPath`): read as strictly as the parser
/// reads, written as the writer would write the reshaped tree.
extension JSONParser {
    /// Member names of the objects open in a pass, as read and as written, for duplicates and
    /// collisions. Reused from record to record by one thread.
    struct NameScratch {
        var bytes: [UInt8] = []
        /// Per member of the open objects: its name as read (nil for the id `keyedToArray` adds),
        /// and as written, in `bytes`.
        var names: [(read: Range<Int>?, written: Range<Int>, readHash: UInt64, writtenHash: UInt64)] = []
        /// Open containers of the pass: is it an object, where its names start in `names`.
        var frames: [(isObject: Bool, firstName: Int)] = []
        /// Names already renamed: records repeat the same few names.
        var cache = RenameCache()

        mutating func reset() {
            bytes.removeAll(keepingCapacity: true)
            names.removeAll(keepingCapacity: true)
            frames.removeAll(keepingCapacity: true)
        }
    }

    /// What each member name seen so far is written as, looked up by its bytes without allocating.
    /// Holds up to `capacity` names; later ones are renamed each time. One per thread. A struct,
    /// not a class: a class's stored properties pay a dynamic exclusivity check on every access.
    struct RenameCache {
        private static let capacity = 4096
        /// Empty and allocating nothing: what stands in `NameScratch` while the cache is in use.
        static let placeholder = RenameCache(slots: [])
        private var slots: [Int32]
        private var entries: [(hash: UInt64, name: Range<Int>, written: Range<Int>?)] = []
        /// Names and what they are written as.
        private(set) var store: [UInt8] = []
        /// A name renamed without being kept (the cache is full).
        private(set) var spare: [UInt8] = []

        init() {
            slots = [Int32](repeating: -1, count: 2 * RenameCache.capacity)
        }

        private init(slots: [Int32]) {
            self.slots = slots
        }

        /// Where to find what a name is written as.
        enum Found {
            case unchanged
            case stored(Range<Int>)
            case spare
        }

        /// What `name` is written as after `fast`'s renamings, renaming it only the first time.
        /// - Parameter hash: `RecordNames.hash(name)`.
        mutating func lookup(_ name: UnsafeRawBufferPointer, hash: UInt64, _ fast: RecordFastPath) -> Found {
            var slot = Int(hash % UInt64(slots.count))
            while slots[slot] >= 0 {
                let entry = entries[Int(slots[slot])]
                if entry.hash == hash,
                    store.withUnsafeBytes({ UnsafeRawBufferPointer(rebasing: $0[entry.name]).elementsEqual(name) })
                {
                    return entry.written.map { .stored($0) } ?? .unchanged
                }
                slot = (slot + 1) % slots.count
            }
            let changed = fast.renamed(name, into: &spare)
            guard entries.count < Self.capacity else { return changed ? .spare : .unchanged }
            let nameStart = store.count
            store.append(contentsOf: name)
            var written: Range<Int>? = nil
            if changed {
                let start = store.count
                store.append(contentsOf: spare)
                written = start..<store.count
            }
            slots[slot] = Int32(entries.count)
            entries.append((hash, nameStart..<nameStart + name.count, written))
            return written.map { .stored($0) } ?? .unchanged
        }
    }

    /// Makes the parser read `text` from its start, keeping its buffers: one parser serves a
    /// thread's records one after another.
    mutating func restart(with text: UnsafeRawBufferPointer) {
        self.text = text
        index = 0
    }

    /// Writes the reshaped record (the whole of `text`, one value) to `out`. Returns false, with
    /// bytes possibly written, when the tree must decide: the caller drops what was written.
    /// - Parameters:
    ///   - id: the record's member name in a keyed collection, when `keyedToArray` makes it a record.
    ///   - depthLeft: how deep the record may nest before the depth limit is near.
    mutating func transformRecord(
        _ fast: RecordFastPath, id: KeyBytes?, depthLeft: Int, into out: inout ByteBuffer, scratch: inout NameScratch
    ) -> Bool {
        scratch.reset()
        var frames = scratch.frames
        defer { scratch.frames = frames }
        while true {
            // A value starts here.
            skipWhitespace()
            guard index < text.count else { return false }
            let byte = text[index]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = byte == UInt8(ascii: "{")
                guard frames.count + 1 < depthLeft else { return false }
                index += 1
                skipWhitespace()
                guard index < text.count else { return false }
                if text[index] == UInt8(ascii: isObject ? "}" : "]") {
                    // An empty record is left to the tree (it may become null before it is a record).
                    guard !frames.isEmpty else { return false }
                    index += 1
                    if isObject && fast.nullEmptyObjects {
                        out.append("null")
                    } else {
                        out.append(isObject ? "{}" : "[]")
                    }
                } else {
                    out.append(byte)
                    frames.append((isObject, scratch.names.count))
                    if isObject {
                        if frames.count == 1, let id {
                            guard writeID(fast, id, into: &out, scratch: &scratch) else { return false }
                        }
                        guard transformMemberName(fast, isRecord: frames.count == 1, first: frames[frames.count - 1].firstName, into: &out, scratch: &scratch) else { return false }
                    } else if frames.count == 1, id != nil {
                        return false  // Not an object: keyedToArray's nonObject decides.
                    }
                    continue
                }
            case UInt8(ascii: "\""):
                if frames.isEmpty && id != nil { return false }
                guard let span = try? scanString() else { return false }
                let content: UnsafeRawBufferPointer
                if span.hasEscapes {
                    valueBuffer.removeAll()
                    Self.decodeEscapes(text, span, into: &valueBuffer)
                    content = valueBuffer.bytes
                } else {
                    content = UnsafeRawBufferPointer(rebasing: text[span.start..<span.end])
                }
                if fast.nullBlankStrings && BlankStringToNull.isBlank(content, trim: fast.trim) {
                    out.append("null")
                } else if span.hasEscapes {
                    JSONText.appendQuoted(content, to: &out)
                } else {
                    // Checked: no quote, backslash or control character, so already as written.
                    out.append(UInt8(ascii: "\""))
                    out.append(content)
                    out.append(UInt8(ascii: "\""))
                }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                if frames.isEmpty && id != nil { return false }
                guard case .success(let (literal, end)) = NumberLiteral.scan(text, from: index) else { return false }
                literal.appendCanonical(to: &out)
                index = end
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                if frames.isEmpty && id != nil { return false }
                let word: StaticString = byte == UInt8(ascii: "t") ? "true" : byte == UInt8(ascii: "f") ? "false" : "null"
                let count = word.utf8CodeUnitCount
                guard index + count <= text.count else { return false }
                for offset in 0..<count where text[index + offset] != word.utf8Start[offset] { return false }
                out.append(word)
                index += count
            default:
                return false
            }
            // The value is complete: the next member or element, or the end of containers.
            while let top = frames.last {
                skipWhitespace()
                guard index < text.count else { return false }
                let next = text[index]
                if next == UInt8(ascii: ",") {
                    out.append(next)
                    index += 1
                    if top.isObject {
                        guard transformMemberName(fast, isRecord: frames.count == 1, first: top.firstName, into: &out, scratch: &scratch) else { return false }
                    }
                    break
                }
                guard next == UInt8(ascii: top.isObject ? "}" : "]") else { return false }
                out.append(next)
                index += 1
                if top.isObject { scratch.names.removeSubrange(top.firstName...) }
                frames.removeLast()
            }
            if frames.isEmpty {
                skipWhitespace()
                return index == text.count
            }
        }
    }

    /// Writes `"idName":"id",` at the start of a record, and counts the id's name as written.
    private mutating func writeID(
        _ fast: RecordFastPath, _ id: KeyBytes, into out: inout ByteBuffer, scratch: inout NameScratch
    ) -> Bool {
        guard let idName = fast.idName else { return false }
        if fast.idBlankCheck.enabled && BlankStringToNull.isBlank(id, trim: fast.idBlankCheck.trim) { return false }
        idName.withUnsafeBytes { JSONText.appendQuoted($0, to: &out) }
        out.append(UInt8(ascii: ":"))
        JSONText.appendQuoted(id, to: &out)
        out.append(UInt8(ascii: ","))
        let start = scratch.bytes.count
        scratch.bytes.append(contentsOf: idName)
        let hash = idName.withUnsafeBytes { RecordNames.hash($0) }
        scratch.names.append((read: nil, written: start..<scratch.bytes.count, readHash: 0, writtenHash: hash))
        return true
    }

    /// Reads `"name" :` and writes the name as renamed. Refuses a duplicate, a collision after
    /// renaming, the id member in a record, and objects too large to compare names one by one.
    private mutating func transformMemberName(
        _ fast: RecordFastPath, isRecord: Bool, first: Int, into out: inout ByteBuffer, scratch: inout NameScratch
    ) -> Bool {
        skipWhitespace()
        guard index < text.count, text[index] == UInt8(ascii: "\""), let span = try? scanString() else { return false }
        guard scratch.names.count - first < Self.rawCaptureMemberLimit else { return false }
        let readStart = scratch.bytes.count
        if span.hasEscapes {
            valueBuffer.removeAll()
            Self.decodeEscapes(text, span, into: &valueBuffer)
            scratch.bytes.append(contentsOf: valueBuffer.bytes)
        } else {
            scratch.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[span.start..<span.end]))
        }
        let read = readStart..<scratch.bytes.count
        let readHash = scratch.bytes.withUnsafeBytes { RecordNames.hash(UnsafeRawBufferPointer(rebasing: $0[read])) }
        if isRecord, let idKey = fast.idKey, readHash == fast.idKeyHash, scratch.bytes[read].elementsEqual(idKey) { return false }
        var written = read
        var writtenHash = readHash
        var changed = false
        if !fast.renames.isEmpty {
            var cache = RenameCache.placeholder
            swap(&cache, &scratch.cache)
            defer { swap(&cache, &scratch.cache) }
            let found = scratch.bytes.withUnsafeBytes { cache.lookup(UnsafeRawBufferPointer(rebasing: $0[read]), hash: readHash, fast) }
            switch found {
            case .unchanged:
                break
            case .stored(let range):
                cache.store.withUnsafeBytes { scratch.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[range])) }
                changed = true
            case .spare:
                scratch.bytes.append(contentsOf: cache.spare)
                changed = true
            }
            if changed {
                written = read.upperBound..<scratch.bytes.count
                writtenHash = scratch.bytes.withUnsafeBytes { RecordNames.hash(UnsafeRawBufferPointer(rebasing: $0[written])) }
            }
        }
        // Names are compared by hash first, and by bytes only when hashes agree.
        let clash = scratch.bytes.withUnsafeBytes { bytes -> Bool in
            var position = first
            while position < scratch.names.count {
                let earlier = scratch.names[position]
                position += 1
                if earlier.readHash == readHash, let earlierRead = earlier.read,
                    UnsafeRawBufferPointer(rebasing: bytes[earlierRead]).elementsEqual(UnsafeRawBufferPointer(rebasing: bytes[read]))
                {
                    return true
                }
                if earlier.writtenHash == writtenHash,
                    UnsafeRawBufferPointer(rebasing: bytes[earlier.written]).elementsEqual(UnsafeRawBufferPointer(rebasing: bytes[written]))
                {
                    return true
                }
            }
            return false
        }
        if clash { return false }
        scratch.names.append((read: read, written: written, readHash: readHash, writtenHash: writtenHash))
        skipWhitespace()
        guard index < text.count, text[index] == UInt8(ascii: ":") else { return false }
        index += 1
        if !changed && !span.hasEscapes {
            out.append(UInt8(ascii: "\""))
            out.append(UnsafeRawBufferPointer(rebasing: text[span.start..<span.end]))
            out.append(UInt8(ascii: "\""))
        } else {
            scratch.bytes.withUnsafeBytes { JSONText.appendQuoted(UnsafeRawBufferPointer(rebasing: $0[written]), to: &out) }
        }
        out.append(UInt8(ascii: ":"))
        return true
    }
}
