#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The fast path's pass over one record (see `RecordFastPath`): read as strictly as the parser
/// reads, written as the writer would write the reshaped tree.
extension JSONParser {
    /// Member names of the objects open in a pass, for duplicates and collisions: each is known
    /// by the hashes of its name as read and as written. Two members whose hashes agree make the
    /// pass give up, and the tree decides (a duplicate is refused there, two names with one hash
    /// are written there). Reused from record to record by one thread.
    struct NameScratch {
        /// Per member of the open objects: the hashes (`RecordNames.hash`) of its name as read
        /// (for the id `keyedToArray` adds, of `idKey`: a record's own member of that name gives
        /// up) and as written.
        var names: [(readHash: UInt64, writtenHash: UInt64)] = []
        /// Open containers of the pass: is it an object, where its names start in `names`.
        var frames: [(isObject: Bool, firstName: Int)] = []
        /// Names already renamed: records repeat the same few names.
        var cache: RenameCache
        /// What the records reshaped since it was last set to 0 add to the whole tree's output
        /// bound (`Document.grow`): each id member, and what renamings lengthen names by, as the
        /// tree counts them or more. Not reset by `reset()`: callers sum it over their records.
        var growth = 0
        /// The steps of work the record filters took beyond reading the text of the records
        /// reshaped since it was last set to 0 (see `TokenArena.work`).
        var work = 0
        /// The thread's record filters, once a record went through them (see `RecordFilter`).
        var filters: RecordFilterChain? = nil
        /// Records that took a tree of their own (see `RecordBatch.onTree`).
        var onTree = 0
        /// The value edits that meet the member whose name was read last (`RecordFastPath.renamed`).
        var edits: UInt64 = 0
        /// The pass gave up at a member's value that the filters must see, and no sooner: one a
        /// renaming watches (`RecordFastPath.watches`), or one its value edits cannot edit on
        /// the text (a container, two edits, a value the op fails at). The container the pass
        /// copies may take its tokens instead (see `RecordFilterChain`).
        var givesBack = false
        /// For a pass that takes a member out of objects (`RecordFastPath.taking`): the hashes of
        /// the names of the object's members read so far, as read and as the renamings before
        /// the rule leave them; and the cache of those renamings, made at the first use.
        var elementNames: [(readHash: UInt64, writtenHash: UInt64)] = []
        var takenCache: RenameCache? = nil
        /// What `cache` keeps, and so `takenCache`.
        let cacheCapacity: Int

        /// Scratch whose rename cache keeps up to `cacheCapacity` names.
        init(cacheCapacity: Int = RenameCache.defaultCapacity) {
            cache = RenameCache(capacity: cacheCapacity)
            self.cacheCapacity = cacheCapacity
        }

        mutating func reset() {
            names.empty()
            frames.empty()
            edits = 0
            givesBack = false
        }
    }

    /// What each member name seen so far is written as (quoted, renamed by every renaming), looked
    /// up by its bytes without allocating. Holds up to `capacity` names; later ones are renamed
    /// each time. One per thread. A struct, not a class: a class's stored properties pay a
    /// dynamic exclusivity check on every access.
    struct RenameCache {
        /// Names kept by default: enough for the members of any real record type.
        static let defaultCapacity = 4096
        private let capacity: Int
        /// Open addressing over `entries`, linear probing; -1 marks an empty slot.
        private var slots: [Int32]
        private var entries: [(hash: UInt64, name: Range<Int>, quoted: Range<Int>, writtenHash: UInt64, growth: Int, dropped: Bool, edits: UInt64)] = []
        /// Names, and what they are written as.
        private var store: [UInt8] = []

        /// A cache keeping up to `capacity` names (at least one).
        init(capacity: Int) {
            self.capacity = max(1, capacity)
            var slotCount = 2
            while slotCount < 2 * self.capacity { slotCount *= 2 }
            slots = [Int32](repeating: -1, count: slotCount)
        }

        /// Appends `name` as written (quoted) to `out`, renaming it only the first time; or, when
        /// a drop meets it (`RecordFastPath.dropsMembers`), sets `dropped` and appends nothing.
        /// `edits` gets the value edits that meet it (see `RecordFastPath.renamed`).
        /// - Parameters:
        ///   - hash: `RecordNames.hash(name)`.
        ///   - growth: gets what the renamings lengthened the name by (see `RecordFastPath.renamed`).
        /// - Returns: the hash of the name as written (as the drop met it, for a dropped one).
        mutating func write(
            _ name: UnsafeRawBufferPointer, hash: UInt64, _ fast: RecordFastPath, into out: inout ByteBuffer,
            growth: inout Int, dropped: inout Bool, edits: inout UInt64
        ) -> UInt64 {
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] >= 0 {
                let entry = entries[Int(slots[slot])]
                if entry.hash == hash {
                    let found = store.withUnsafeBytes { (stored) -> Bool in
                        let kept = UnsafeRawBufferPointer(rebasing: stored[entry.name])
                        guard kept.count == name.count else { return false }
                        guard let left = kept.baseAddress, let right = name.baseAddress else { return true }
                        return memcmp(left, right, name.count) == 0
                    }
                    if found {
                        edits = entry.edits
                        if entry.dropped {
                            dropped = true
                        } else {
                            store.withUnsafeBytes { out.append(UnsafeRawBufferPointer(rebasing: $0[entry.quoted])) }
                        }
                        growth = growth.addingClamped(entry.growth)
                        return entry.writtenHash
                    }
                }
                slot = (slot + 1) & mask
            }
            var renamed: [UInt8] = []
            var quoted = ByteBuffer(capacity: name.count + 8)
            let writtenHash: UInt64
            var nameGrowth = 0
            var meetsDrop = false
            var meetsEdits: UInt64 = 0
            defer { growth = growth.addingClamped(nameGrowth) }
            if fast.renamed(name, into: &renamed, growth: &nameGrowth, dropped: &meetsDrop, edits: &meetsEdits) {
                writtenHash = renamed.withUnsafeBytes { RecordNames.hash($0) }
                if !meetsDrop { renamed.withUnsafeBytes { JSONText.appendQuoted($0, to: &quoted) } }
            } else {
                writtenHash = hash
                if !meetsDrop { JSONText.appendQuoted(name, to: &quoted) }
            }
            dropped = meetsDrop
            edits = meetsEdits
            quoted.withBytes { (bytes) in
                out.append(bytes)
                guard entries.count < capacity else { return }
                let nameStart = store.count
                store.append(contentsOf: name)
                let quotedStart = store.count
                store.append(contentsOf: bytes)
                slots[slot] = Int32(entries.count)
                entries.append((hash, nameStart..<quotedStart, quotedStart..<store.count, writtenHash, nameGrowth, meetsDrop, meetsEdits))
            }
            return writtenHash
        }
    }

    /// Makes the parser read `text` from its start, keeping its buffers: one parser serves a
    /// thread's records one after another.
    mutating func restart(with text: UnsafeRawBufferPointer) {
        self.text = text
        index = 0
    }

    /// Writes the reshaped record to `out`. Returns false, with bytes possibly written, when the
    /// tree must decide: the caller drops what was written.
    /// - Parameters:
    ///   - id: the record's member name in a keyed collection, when `keyedToArray` makes it a record.
    ///   - depthLeft: how deep the record may nest before the depth limit is near.
    ///   - outputLimit: the most `out` may hold: beyond it the pass gives up, and the tree, which
    ///     counts the output as it goes, stops at the output limit (renamings from a rules
    ///     document can make a name far longer than it was).
    ///   - wholeText: the record is the whole of `text` (white space around it aside); otherwise
    ///     it is the value at `index`, and `index` ends past it.
    mutating func transformRecord(
        _ fast: RecordFastPath, id: KeyBytes?, depthLeft: Int, into out: inout ByteBuffer, scratch: inout NameScratch,
        outputLimit: Int, wholeText: Bool = true
    ) -> Bool {
        switch fast.taking {
        case .nothing: break
        case .member(let taken):
            return takeMembers(taken, depthLeft: depthLeft, into: &out, scratch: &scratch, outputLimit: outputLimit)
        case .givesBack:
            scratch.givesBack = true
            return false
        }
        if fast.dropsMembers || !fast.valueEdits.isEmpty {
            return transformRecord(
                DropsOrEdits.self, fast, id: id, depthLeft: depthLeft, into: &out, scratch: &scratch, outputLimit: outputLimit,
                wholeText: wholeText)
        }
        return fast.watchedHashes.isEmpty
            ? transformRecord(
                KeepsMembers.self, fast, id: id, depthLeft: depthLeft, into: &out, scratch: &scratch, outputLimit: outputLimit,
                wholeText: wholeText)
            : transformRecord(
                WatchesNames.self, fast, id: id, depthLeft: depthLeft, into: &out, scratch: &scratch, outputLimit: outputLimit,
                wholeText: wholeText)
    }

    /// Whether a pass drops members or edits their values (`RecordFastPath.dropsMembers`,
    /// `valueEdits`), or only watches names (`RecordFastPath.watchedHashes`), as a type: the
    /// pass is compiled once for each, and the one that does none of these (every record's)
    /// pays nothing for them.
    fileprivate protocol DropMode {
        static var drops: Bool { get }
        static var watches: Bool { get }
    }

    fileprivate enum KeepsMembers: DropMode {
        static var drops: Bool { false }
        static var watches: Bool { false }
    }

    fileprivate enum DropsOrEdits: DropMode {
        static var drops: Bool { true }
        static var watches: Bool { false }
    }

    fileprivate enum WatchesNames: DropMode {
        static var drops: Bool { false }
        static var watches: Bool { true }
    }

    private mutating func transformRecord<Mode: DropMode>(
        _ mode: Mode.Type, _ fast: RecordFastPath, id: KeyBytes?, depthLeft: Int, into out: inout ByteBuffer,
        scratch: inout NameScratch, outputLimit: Int, wholeText: Bool
    ) -> Bool {
        scratch.reset()
        // Taken out (not copied, which would copy its buffer at the first append) and put back.
        var frames: [(isObject: Bool, firstName: Int)] = []
        swap(&frames, &scratch.frames)
        defer { swap(&frames, &scratch.frames) }
        // A member a drop met (`RecordFastPath.dropsMembers`): its value is read and written as any
        // other, and what was written from its comma on (`dropFrom`) is taken back once the
        // value ends, back at `dropDepth` frames. Members inside it go with it.
        var dropFrom = -1
        var dropDepth = 0
        // The copy of an object's own members adds a member at its end (`RecordFastPath.filled`).
        let fills = Mode.drops && id == nil && fast.ownMembersOnly
        while true {
            // A value starts here (after a member name, which may have been long).
            guard out.count <= outputLimit else { return false }
            skipWhitespace()
            guard index < text.count else { return false }
            let byte = text[index]
            var edited = false
            if Mode.drops && scratch.edits != 0 {
                // A value the member's value edits meet (`RecordFastPath.valueEdits`).
                let edits = scratch.edits
                scratch.edits = 0
                switch writeEdited(fast, edits, into: &out, scratch: &scratch) {
                case .giveUp:
                    scratch.givesBack = true
                    return false
                case .written: edited = true
                case .kept: break
                }
            }
            if !edited {
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
                        if isObject ? fast.nullEmptyObjects : fast.nullEmptyArrays {
                            out.append("null" as StaticString)
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
                            let mark = Mode.drops ? out.count : 0
                            switch transformMemberName(Mode.self, fast, first: frames[frames.count - 1].firstName, into: &out, scratch: &scratch) {
                            case .invalid: return false
                            case .written: break
                            case .dropped:
                                if dropFrom < 0 { (dropFrom, dropDepth) = (mark, frames.count) }
                            }
                        } else if frames.count == 1, id != nil {
                            return false  // Not an object: keyedToArray's nonObject decides.
                        }
                        continue
                    }
                case UInt8(ascii: "\""):
                    if frames.isEmpty && id != nil { return false }
                    guard let span = try? scanString() else { return false }
                    let content = decoded(span)
                    if fast.nullBlankStrings && BlankStringToNull.isBlank(content, trim: fast.trim) {
                        out.append("null" as StaticString)
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
                    guard let word = skipLiteral() else { return false }
                    out.append(word)
                default:
                    return false
                }
            }
            // The value is complete: the next member or element, or the end of containers.
            guard out.count <= outputLimit else { return false }
            while let top = frames.last {
                if Mode.drops && dropFrom >= 0 && frames.count == dropDepth {
                    // The dropped member's value ended.
                    out.truncate(to: dropFrom)
                    dropFrom = -1
                }
                skipWhitespace()
                guard index < text.count else { return false }
                let next = text[index]
                if next == UInt8(ascii: ",") {
                    let mark = Mode.drops ? out.count : 0
                    // After members all dropped so far, no comma (the brace, or the id's comma, ends the output).
                    if !(Mode.drops && top.isObject && (out.lastByte == UInt8(ascii: "{") || out.lastByte == UInt8(ascii: ","))) {
                        out.append(next)
                    }
                    index += 1
                    if top.isObject {
                        switch transformMemberName(Mode.self, fast, first: top.firstName, into: &out, scratch: &scratch) {
                        case .invalid: return false
                        case .written: break
                        case .dropped:
                            if dropFrom < 0 {
                                out.truncate(to: mark)
                                (dropFrom, dropDepth) = (mark, frames.count)
                            }
                        }
                    }
                    break
                }
                guard next == UInt8(ascii: top.isObject ? "}" : "]") else { return false }
                // Every member after a record's id dropped: the id's comma goes.
                if Mode.drops && top.isObject && out.lastByte == UInt8(ascii: ",") { out.truncate(to: out.count - 1) }
                if fills && top.isObject && frames.count == 1 {
                    guard Self.fill(fast, first: top.firstName, into: &out, scratch: &scratch), out.count <= outputLimit else { return false }
                }
                out.append(next)
                index += 1
                if top.isObject { scratch.names.removeSubrange(top.firstName...) }
                frames.removeLast()
            }
            if frames.isEmpty {
                guard wholeText else { return true }
                skipWhitespace()
                return index == text.count
            }
        }
    }

    /// The content of the string `span` (read last): in the text, or decoded from its escapes
    /// into `valueBuffer`, valid until the next string is decoded.
    @inline(__always)
    private mutating func decoded(_ span: StringSpan) -> UnsafeRawBufferPointer {
        guard span.hasEscapes else { return UnsafeRawBufferPointer(rebasing: text[span.start..<span.end]) }
        valueBuffer.removeAll()
        Self.decodeEscapes(text, span, into: &valueBuffer)
        return valueBuffer.bytes
    }

    /// What `writeEdited` did.
    private enum EditedValue {
        /// The edited value is written.
        case written
        /// The edit keeps the value: nothing is read or written, for the value to be copied.
        case kept
        /// The pass gives up: a container, more than one edit, text that is not a value, or an
        /// edit the tree must decide (the op fails at the value).
        case giveUp
    }

    /// Reads the scalar at `index`, gives its token to the value edit of `edits` (its bit in
    /// `RecordFastPath.valueEdits`), and writes what the edit makes of it, counting what that
    /// adds to the output bound.
    private mutating func writeEdited(
        _ fast: RecordFastPath, _ edits: UInt64, into out: inout ByteBuffer, scratch: inout NameScratch
    ) -> EditedValue {
        if edits & fast.watches != 0 { return .giveUp }
        guard edits & (edits - 1) == 0 else { return .giveUp }
        let position = edits.trailingZeroBitCount
        guard position < fast.valueEdits.count, let edit = fast.valueEdits[position] else { return .giveUp }
        let start = index
        let token: RecordToken
        switch text[index] {
        case UInt8(ascii: "\""):
            guard let span = try? scanString() else { return .giveUp }
            token = RecordToken(.string, decoded(span), flag: !span.hasEscapes)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            guard case .success(let (literal, end)) = NumberLiteral.scan(text, from: index) else { return .giveUp }
            token = RecordToken(.number, literal.text, flag: literal.isReal)
            index = end
        case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            let first = text[index]
            guard skipLiteral() != nil else { return .giveUp }
            token = first == UInt8(ascii: "n") ? .null : RecordToken(.bool, flag: first == UInt8(ascii: "t"))
        default:
            return .giveUp
        }
        guard let (made, growth) = edit(token) else { return .giveUp }
        scratch.growth = scratch.growth.addingClamped(growth)
        switch made {
        case .keep:
            index = start
            return .kept
        case .null:
            out.append("null" as StaticString)
        case .scalar(let scalar):
            scalar.write(to: &out)
        case .canonical(let text):
            text.withUnsafeBytes { out.append($0) }
        }
        return .written
    }

    /// Writes what the container at `index` becomes as `taken` says (`RecordFastPath.taking`):
    /// for `pluck`, an array, the value of each element's member; for `hoist`, an object, the
    /// value of its member. A member's value is copied with the pass's renamings and nulls; the
    /// other members' values are read as strictly, with the renamings before the rule. False,
    /// with `scratch.givesBack` set, where the filters must decide: a container or element of
    /// another kind, an empty one, one without the member, an empty array. False alone where
    /// the record must take its tree: text that is not JSON, a duplicate name, two names the
    /// renamings before the rule make one.
    private mutating func takeMembers(
        _ taken: RecordFastPath.TakenMember, depthLeft: Int, into out: inout ByteBuffer, scratch: inout NameScratch, outputLimit: Int
    ) -> Bool {
        scratch.reset()
        var cache = scratch.takenCache ?? RenameCache(capacity: scratch.cacheCapacity)
        scratch.takenCache = nil
        defer { scratch.takenCache = cache }
        skipWhitespace()
        guard !taken.fromElements else {
            guard depthLeft > 2, index < text.count, text[index] == UInt8(ascii: "[") else {
                scratch.givesBack = true
                return false
            }
            index += 1
            out.append(UInt8(ascii: "["))
            var elements = 0
            while true {
                skipWhitespace()
                if elements > 0 { out.append(UInt8(ascii: ",")) }
                guard takeMember(taken, valueDepthLeft: depthLeft - 2, into: &out, scratch: &scratch, cache: &cache, outputLimit: outputLimit)
                else { return false }
                elements += 1
                guard let more = nextInContainer(closedBy: UInt8(ascii: "]")) else { return false }
                if more { continue }
                out.append(UInt8(ascii: "]"))
                return out.count <= outputLimit
            }
        }
        return takeMember(taken, valueDepthLeft: depthLeft - 1, into: &out, scratch: &scratch, cache: &cache, outputLimit: outputLimit)
            && out.count <= outputLimit
    }

    /// Reads the object at `index` and writes the value of its member `taken.name` (see
    /// `takeMembers`), which lies `valueDepthLeft` from the depth limit; `cache` renames names
    /// as the renamings before the rule do.
    private mutating func takeMember(
        _ taken: RecordFastPath.TakenMember, valueDepthLeft: Int, into out: inout ByteBuffer, scratch: inout NameScratch,
        cache: inout RenameCache, outputLimit: Int
    ) -> Bool {
        guard index < text.count, text[index] == UInt8(ascii: "{") else {
            scratch.givesBack = true
            return false
        }
        index += 1
        scratch.elementNames.empty()
        let renamesBefore = !taken.before.renames.isEmpty
        var found = false
        while true {
            skipWhitespace()
            guard index < text.count else { return false }
            if scratch.elementNames.isEmpty && text[index] == UInt8(ascii: "}") {
                scratch.givesBack = true
                return false
            }
            guard text[index] == UInt8(ascii: "\""), let span = try? scanString(), scratch.elementNames.count < Self.rawCaptureMemberLimit
            else { return false }
            skipWhitespace()
            guard index < text.count, text[index] == UInt8(ascii: ":") else { return false }
            index += 1
            let name = decoded(span)
            let readHash = RecordNames.hash(name)
            var writtenHash = readHash
            let isMember: Bool
            if renamesBefore {
                // The name as the renamings before the rule leave it, written and taken back.
                let mark = out.count
                var dropped = false
                var edits: UInt64 = 0
                writtenHash = cache.write(
                    name, hash: readHash, taken.before, into: &out, growth: &scratch.growth, dropped: &dropped, edits: &edits)
                isMember = taken.quoted.withUnsafeBytes { quoted in
                    out.withBytes { UnsafeRawBufferPointer(rebasing: $0[mark...]).sameBytes(as: quoted) }
                }
                out.truncate(to: mark)
            } else {
                isMember = taken.name.withUnsafeBytes { $0.sameBytes(as: name) }
            }
            for earlier in scratch.elementNames where earlier.readHash == readHash || earlier.writtenHash == writtenHash {
                return false
            }
            scratch.elementNames.append((readHash, writtenHash))
            skipWhitespace()
            if let empty = emptyContainer() {
                // `{}` or `[]` (which a pass copies only inside a container).
                guard valueDepthLeft > 1 else { return false }
                if isMember {
                    let nulled = empty == UInt8(ascii: "{") ? taken.values.nullEmptyObjects : taken.values.nullEmptyArrays
                    out.append(nulled ? "null" : empty == UInt8(ascii: "{") ? "{}" : "[]")
                    found = true
                }
            } else if isMember {
                guard
                    transformRecord(
                        taken.values, id: nil, depthLeft: valueDepthLeft, into: &out, scratch: &scratch, outputLimit: outputLimit,
                        wholeText: false)
                else { return false }
                found = true
            } else {
                // Read as the rules before this one read it, and taken back.
                let mark = out.count
                swap(&cache, &scratch.cache)
                let read = transformRecord(
                    taken.before, id: nil, depthLeft: valueDepthLeft, into: &out, scratch: &scratch, outputLimit: outputLimit,
                    wholeText: false)
                swap(&cache, &scratch.cache)
                out.truncate(to: mark)
                guard read else { return false }
            }
            guard let more = nextInContainer(closedBy: UInt8(ascii: "}")) else { return false }
            if more { continue }
            guard found else {
                scratch.givesBack = true
                return false
            }
            return true
        }
    }

    /// After a value in a container that `close` ends: true past a comma (another value comes),
    /// false past `close`, nil at anything else.
    @inline(__always)
    private mutating func nextInContainer(closedBy close: UInt8) -> Bool? {
        skipWhitespace()
        guard index < text.count else { return nil }
        if text[index] == UInt8(ascii: ",") {
            index += 1
            return true
        }
        guard text[index] == close else { return nil }
        index += 1
        return false
    }

    /// When the value at `index` is an empty object or array: reads it, and returns its first
    /// byte.
    private mutating func emptyContainer() -> UInt8? {
        guard index < text.count, text[index] == UInt8(ascii: "{") || text[index] == UInt8(ascii: "[") else { return nil }
        let open = text[index]
        let start = index
        index += 1
        skipWhitespace()
        guard index < text.count, text[index] == (open == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
            index = start
            return nil
        }
        index += 1
        return open
    }

    /// Writes the member the pass adds at the end of the object it copies
    /// (`RecordFastPath.filled`), the object's own members' names from `first` in `scratch`;
    /// false, the copy given back, where the filters must add it: its name as written is one
    /// of theirs (the op's rules after it decide on the collision), or the pass cannot add it.
    @inline(never)
    private static func fill(_ fast: RecordFastPath, first: Int, into out: inout ByteBuffer, scratch: inout NameScratch) -> Bool {
        switch fast.filled {
        case .nothing:
            return true
        case .givesBack:
            scratch.givesBack = true
            return false
        case .member(let text, let writtenHash, let growth):
            var position = first
            while position < scratch.names.count {
                guard scratch.names[position].writtenHash != writtenHash else {
                    scratch.givesBack = true
                    return false
                }
                position += 1
            }
            if out.lastByte != UInt8(ascii: "{") { out.append(UInt8(ascii: ",")) }
            text.withUnsafeBytes { out.append($0) }
            scratch.growth = scratch.growth.addingClamped(growth)
            return true
        }
    }

    /// Writes `"idName":"id",` at the start of a record, and counts the id's name as written.
    private mutating func writeID(
        _ fast: RecordFastPath, _ id: KeyBytes, into out: inout ByteBuffer, scratch: inout NameScratch
    ) -> Bool {
        guard let idName = fast.idName else { return false }
        if fast.idBlankCheck.enabled && BlankStringToNull.isBlank(id, trim: fast.idBlankCheck.trim) { return false }
        idName.quoted.withUnsafeBytes { out.append($0) }
        JSONText.appendQuoted(id, to: &out)
        // As keyedToArray counts the id it adds (a value of at least `Tree.minimumValueBytes`),
        // and the renamings after it its name.
        let idGrowth = KeyedToArray.recordGrowth(idKeyBytes: fast.idKeyLength, idBytes: id.count).bound + idName.growth
        scratch.growth = scratch.growth.addingClamped(idGrowth)
        out.append(UInt8(ascii: ","))
        scratch.names.append((readHash: fast.idKeyHash, writtenHash: idName.hash))
        return true
    }

    /// What `transformMemberName` did.
    private enum MemberName {
        /// The name is written, with its colon (and its value is to be edited by the value edits
        /// of `NameScratch.edits`, if any).
        case written
        /// A drop met it: nothing is written.
        case dropped
        /// The pass gives up.
        case invalid
    }

    /// Reads `"name" :` and writes the name as renamed, or nothing when a drop meets it. Gives up
    /// on a duplicate, a collision after renaming (a dropped name counts as the drop met it), the
    /// id member in a record, and objects too large to compare names one by one.
    private mutating func transformMemberName<Mode: DropMode>(
        _ mode: Mode.Type, _ fast: RecordFastPath, first: Int, into out: inout ByteBuffer, scratch: inout NameScratch
    ) -> MemberName {
        skipWhitespace()
        guard index < text.count, text[index] == UInt8(ascii: "\""), let span = try? scanString() else { return .invalid }
        guard scratch.names.count - first < Self.rawCaptureMemberLimit else { return .invalid }
        skipWhitespace()
        guard index < text.count, text[index] == UInt8(ascii: ":") else { return .invalid }
        index += 1
        let name = decoded(span)
        let readHash = RecordNames.hash(name)
        if Mode.watches && fast.watchedHashes.contains(readHash) {
            // A member a filter watches for (or one whose name has that hash): the filters see
            // the container (`RecordFastPath.watchedHashes`).
            scratch.givesBack = true
            return .invalid
        }
        let writtenHash: UInt64
        var dropped = false
        if !fast.renames.isEmpty {
            writtenHash = scratch.cache.write(
                name, hash: readHash, fast, into: &out, growth: &scratch.growth, dropped: &dropped, edits: &scratch.edits)
        } else {
            writtenHash = readHash
            if span.hasEscapes {
                JSONText.appendQuoted(name, to: &out)
            } else {
                // Checked: no quote, backslash or control character, so already as written.
                out.append(UInt8(ascii: "\""))
                out.append(name)
                out.append(UInt8(ascii: "\""))
            }
        }
        if !Mode.drops || !dropped { out.append(UInt8(ascii: ":")) }
        var position = first
        while position < scratch.names.count {
            let earlier = scratch.names[position]
            if earlier.readHash == readHash || earlier.writtenHash == writtenHash { return .invalid }
            position += 1
        }
        scratch.names.append((readHash: readHash, writtenHash: writtenHash))
        return Mode.drops && dropped ? .dropped : .written
    }
}
