internal import CSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An input read from a descriptor into memory the engine owns, a piece at a time as the engine
/// asks for it: a regular file with `pread`, anything else (a pipe, a socket, a terminal, a
/// device) with `read`, as its bytes come.
///
/// Nothing is mapped from the file, so nothing another process does to it can raise a signal
/// here: a file that shrinks, grows or is written while it is read ends the call with `io_error`
/// (its size and modification time are checked when its last byte is read). A pipe is never read
/// to its end before the work starts: the parser reads as it goes, so the first byte that is not
/// JSON ends the run at once (`/dev/zero`), and records stream out as they come.
///
/// The bytes lie at their input offsets in one range of address space reserved up front
/// (`text[offset]` is the byte at `offset` for the whole call), so offsets into the input stay
/// valid however much has been read. The range costs memory only where bytes are held: it is
/// committed a chunk at a time as it is filled, and the engine gives back the chunks it is done
/// with (`release(below:)`); their pages then move to the next chunk to fill instead of being
/// freed and faulted in again, which costs as little as reading a mapped file does. Bytes given
/// back are gone: a regular file is read again where that is needed (`rereading`), a pipe
/// cannot be.
final class InputRegion: @unchecked Sendable {
    /// What errors call the input: its path, "standard input", "descriptor N".
    let name: String
    private let descriptor: Int32
    /// For a regular file: where the input starts in it, and the file when reading began.
    private let file: FileSnapshot?
    private let base: UnsafeMutableRawPointer
    /// Bytes of address space reserved: the most input this region can hold.
    let capacity: Int
    /// Bytes read so far: the input's `[0, filled)`, less what was given back.
    private(set) var filled = 0
    /// True once the input has no more bytes.
    private(set) var isAtEnd = false
    /// Chunks below this offset have been given back.
    private(set) var releasedTo = 0
    /// Chunks from `releasedTo` up to here hold memory.
    private var committedTo = 0
    /// Chunks given back whose pages wait to be moved to the next chunk to fill.
    private var spare: [UnsafeMutableRawPointer] = []
    private var movesPages = true
    /// Where `releasedTo` falls in lines and columns, for input that cannot be read again.
    private var releasedLines = LineCounter()
    /// The most memory held at once: committed chunks, and chunks kept for reuse.
    private(set) var peakHeld = 0
    /// Called before a read that would wait for a pipe's writer: the work done so far can go
    /// out first (a stream writes its finished records), so output never waits on input it does
    /// not need.
    var beforeWaiting: (() throws(ReshapeError) -> Void)? = nil

    /// The unit of reading, committing and giving back: a multiple of the page size.
    let chunk: Int
    /// `chunk` unless a test asks for less.
    static let defaultChunk = 1 << 20
    /// Chunks kept for reuse at most; more are freed.
    private static let maxSpare = 8
    /// The address space reserved for input of unknown size (a pipe), if the system allows;
    /// less is tried, down to `smallestReservation`, where it does not: the largest document a
    /// pipe may bring (JSON Lines go on in a new region; see `continuing`).
    static let pipeReservation = 1 << 36
    private static let smallestReservation = 64 << 20

    /// A regular file as it was when reading began: changes are found by comparing.
    struct FileSnapshot {
        /// Where the input starts in the file (the descriptor's offset).
        let offset: Int
        /// The input's size: the file's size less `offset`.
        let size: Int
        let fileSize: Int
        let modified: timespec
    }

    /// Reads `descriptor` (left open; the caller owns it) from its current offset to its end,
    /// as the engine asks. `name` names it in errors. A regular file's offset is not moved.
    convenience init(
        descriptor: Int32, name: String, chunk: Int = InputRegion.defaultChunk, pipeReservation: Int = InputRegion.pipeReservation
    ) throws(ReshapeError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .readFailure(name, errno: errno) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw .readFailure(name, errno: EISDIR) }
        let offset = Int(max(0, lseek(descriptor, 0, SEEK_CUR)))
        var file: FileSnapshot? = nil
        // A regular file of known size; /proc's files say 0 and are read as they come.
        if (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) > offset {
            file = FileSnapshot(
                offset: offset, size: Int(info.st_size) - offset, fileSize: Int(info.st_size), modified: info.st_mtim)
        }
        try self.init(descriptor: descriptor, name: name, file: file, chunk: chunk, reservation: pipeReservation)
    }

    /// A region over `parent`'s file (which must be a regular file) from `range.lowerBound`, to
    /// read again what `parent` gave back: offsets here count from `range.lowerBound`.
    convenience init(rereading parent: InputRegion, _ range: Range<Int>) throws(ReshapeError) {
        guard let file = parent.file else {
            throw ReshapeError(.internal, "the input from \(parent.name) cannot be read again")
        }
        let upper = min(range.upperBound, file.size)
        let lower = min(range.lowerBound, upper)
        let snapshot = FileSnapshot(
            offset: file.offset + lower, size: upper - lower, fileSize: file.fileSize, modified: file.modified)
        try self.init(descriptor: parent.descriptor, name: parent.name, file: snapshot, chunk: parent.chunk, reservation: 0)
    }

    /// A new region that goes on reading `previous`'s pipe, holding to start with what `previous`
    /// read from `offset` on (offsets here count from there): for JSON Lines, which may go on
    /// for longer than one region's address space.
    convenience init(continuing previous: InputRegion, from offset: Int) throws(ReshapeError) {
        try self.init(
            descriptor: previous.descriptor, name: previous.name, file: nil, chunk: previous.chunk,
            reservation: previous.capacity)
        let carried = UnsafeRawBufferPointer(rebasing: previous.text[offset...])
        guard carried.count < capacity else {
            throw ReshapeError(
                .limitExceeded,
                "a line of the input from \(name) is larger than the \(capacity) bytes of address space this process could set aside for it")
        }
        while committedTo < carried.count { try commitChunk(at: committedTo) }
        if let source = carried.baseAddress { base.copyMemory(from: source, byteCount: carried.count) }
        filled = carried.count
        isAtEnd = previous.isAtEnd
    }

    private init(descriptor: Int32, name: String, file: FileSnapshot?, chunk: Int, reservation: Int) throws(ReshapeError) {
        self.descriptor = descriptor
        self.name = name
        self.file = file
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let chunk = max(page, (chunk + page - 1) / page * page)
        self.chunk = chunk
        var size = file.map { ($0.size + chunk - 1) / chunk * chunk } ?? (reservation + chunk - 1) / chunk * chunk
        size = max(size, chunk)
        var reserved = csystem_reserve(size)
        while reserved == nil && file == nil && size > Self.smallestReservation {
            size /= 2
            reserved = csystem_reserve(size)
        }
        guard let reserved else {
            throw ReshapeError(.outOfMemory, "cannot set aside \(size) bytes of address space for \(name): \(systemReason(errno))")
        }
        base = reserved
        capacity = size
        if file?.size == 0 { isAtEnd = true }
    }

    deinit {
        munmap(base, capacity)
    }

    /// The input read so far, at its offsets: bytes below `releasedTo` must not be read.
    var text: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: filled) }

    /// The whole reserved range, for records read already whose offsets are known: the threads
    /// that reshape them read them here while the input goes on being read.
    var wholeRange: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: capacity) }

    /// The input's size when it is known up front (a regular file), else nil.
    var knownSize: Int? { file?.size }

    /// Whether the bytes given back can be read again (a regular file).
    var canReread: Bool { file != nil }

    /// Reads the next piece of the input. False, reading nothing, at its end.
    /// - Throws: `io_error` when reading fails or a file changed; `limit_exceeded` when a pipe
    ///   brings more than `capacity` bytes.
    @discardableResult
    func readMore() throws(ReshapeError) -> Bool {
        guard !isAtEnd else { return false }
        let chunkStart = filled / chunk * chunk
        guard chunkStart < capacity else {
            throw ReshapeError(
                .limitExceeded,
                "the input from \(name) is larger than the \(capacity) bytes of address space this process could set aside for it")
        }
        if chunkStart >= committedTo { try commitChunk(at: chunkStart) }
        var room = chunkStart + chunk - filled
        if let file { room = min(room, file.size - filled) }
        if file == nil, let beforeWaiting, !hasBytesReady() { try beforeWaiting() }
        while true {
            let count =
                file.map { pread(descriptor, base + filled, room, off_t($0.offset + filled)) }
                ?? Glibc.read(descriptor, base + filled, room)
            if count < 0 {
                if errno == EINTR { continue }
                throw .readFailure(name, errno: errno)
            }
            if count == 0 {
                if let file { throw changed(file) }
                isAtEnd = true
                return false
            }
            filled += count
            if let file, filled == file.size {
                try checkUnchanged(file)
                isAtEnd = true
            }
            return true
        }
    }

    /// Reads until the input holds `offset` bytes, ends, or (a pipe) has nothing more for now:
    /// what a caller that may start on part of the input reads before deciding how to go on.
    func readWithoutWaiting(upTo offset: Int) throws(ReshapeError) {
        while filled < offset && !isAtEnd && !wouldWait() {
            try readMore()
        }
    }

    /// Reads until the input holds `offset` (exclusive) or ends; true when it holds it.
    func read(upTo offset: Int) throws(ReshapeError) -> Bool {
        while filled < offset {
            guard try readMore() else { return false }
        }
        return true
    }

    /// Whether reading more would wait: a pipe (or a terminal, a socket) with nothing to read for
    /// `quietMilliseconds`. A writer that is only slower than this reader (`zcat`) refills a pipe
    /// far sooner; one that waits for events (`tail -f`) does not.
    func wouldWait() -> Bool {
        guard file == nil, !isAtEnd else { return false }
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&request, 1, Self.quietMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            return ready == 0
        }
    }

    /// Whether a read would return at once (bytes, or the end).
    private func hasBytesReady() -> Bool {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&request, 1, 0)
            if ready < 0 && errno == EINTR { continue }
            return ready != 0
        }
    }

    /// How long a pipe may stay empty before the work done goes out without the rest.
    static let quietMilliseconds: Int32 = 50

    /// Gives back the whole chunks below `offset`: the engine is done with those bytes.
    func release(below offset: Int) {
        let end = min(offset, filled) / chunk * chunk
        guard end > releasedTo else { return }
        if file == nil {
            releasedLines.advance(over: UnsafeRawBufferPointer(start: base + releasedTo, count: end - releasedTo))
        }
        var chunkStart = releasedTo
        while chunkStart < end {
            if movesPages && spare.count < Self.maxSpare {
                spare.append(base + chunkStart)
            } else {
                _ = csystem_give_back(base + chunkStart, chunk)
            }
            chunkStart += chunk
        }
        releasedTo = end
    }

    /// The line and column of `offset` (in the input read so far, or at its end), counted on
    /// from `known` (a position found before in this input) when it is not after `offset`: a
    /// stream naming many places in order reads and counts each byte once, not once per place.
    func position(of offset: Int, after known: TextPosition? = nil) -> TextPosition {
        let offset = min(max(0, offset), filled)
        var counter = LineCounter()
        var from = 0
        if file == nil && releasedTo > 0 {
            // Bytes given back from a pipe are gone: only positions after them are known.
            guard offset >= releasedTo else { return TextPosition(line: 0, column: 0, offset: offset) }
            (counter, from) = (releasedLines, releasedTo)
        }
        if let known, known.line > 0, known.offset >= from, known.offset <= offset {
            (counter, from) = (LineCounter(at: known), known.offset)
        }
        if from < releasedTo {
            // Read the file again up to what is still held, counting as it goes.
            let upTo = min(offset, releasedTo)
            guard let scratch = try? InputRegion(rereading: self, from..<upTo) else {
                return TextPosition(line: 0, column: 0, offset: offset)
            }
            while (try? scratch.readMore()) == true {
                let start = scratch.releasedTo
                counter.advance(over: UnsafeRawBufferPointer(rebasing: scratch.text[start...]))
                scratch.release(below: scratch.filled)
            }
            if scratch.filled < upTo - from { return TextPosition(line: 0, column: 0, offset: offset) }
            from = upTo
        }
        if offset > from {
            counter.advance(over: UnsafeRawBufferPointer(start: base + from, count: offset - from))
        }
        return TextPosition(line: counter.line, column: counter.column, offset: offset)
    }

    // MARK: - Memory

    /// Makes the chunk at `offset` hold memory: the pages of a chunk given back, moved here, or
    /// new ones.
    private func commitChunk(at offset: Int) throws(ReshapeError) {
        let target = base + offset
        if movesPages, let from = spare.popLast() {
            if csystem_move_pages(from, target, chunk) == 0 {
                committedTo = offset + chunk
                notePeak()
                return
            }
            // This system cannot move pages (before Linux 5.7, or under a tool that does not know
            // how): free them instead, from now on.
            movesPages = false
            spare.append(from)
            for address in spare { _ = csystem_give_back(address, chunk) }
            spare = []
        }
        guard csystem_commit(target, chunk) == 0 else {
            throw ReshapeError(.outOfMemory, "cannot hold more of \(name) in memory: \(systemReason(errno))")
        }
        committedTo = offset + chunk
        notePeak()
    }

    private func notePeak() {
        peakHeld = max(peakHeld, committedTo - releasedTo + spare.count * chunk)
    }

    // MARK: - A file that changes

    private func checkUnchanged(_ file: FileSnapshot) throws(ReshapeError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .readFailure(name, errno: errno) }
        if Int(info.st_size) != file.fileSize || info.st_mtim.tv_sec != file.modified.tv_sec
            || info.st_mtim.tv_nsec != file.modified.tv_nsec
        {
            throw changed(file, now: info)
        }
    }

    /// The error for a file found changed: its size now, if it can be known.
    private func changed(_ file: FileSnapshot, now: stat? = nil) -> ReshapeError {
        var info = stat()
        let current = now ?? (fstat(descriptor, &info) == 0 ? info : nil)
        guard let current else { return .inputChanged(name, "it was modified") }
        let size = Int(current.st_size)
        if size < file.fileSize { return .inputChanged(name, "it shrank from \(file.fileSize) to \(size) bytes") }
        if size > file.fileSize { return .inputChanged(name, "it grew from \(file.fileSize) to \(size) bytes") }
        return .inputChanged(name, "it was written to")
    }
}
