internal import CSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where output goes as the engine makes it: a buffer in memory, or a file descriptor.
class OutputSink {
    /// Bytes handed to the sink so far.
    private(set) var bytesWritten = 0

    func write(_ bytes: UnsafeRawBufferPointer) throws(ReshapeError) {
        bytesWritten += bytes.count
        try accept(bytes)
    }

    func write(_ bytes: [UInt8]) throws(ReshapeError) {
        try bytes.withUnsafeBytesTyped { (buffer) throws(ReshapeError) in try write(buffer) }
    }

    /// Writes a whole output that nothing reads afterwards: a sink that sends it on in pieces may
    /// give each piece's memory back as soon as it is sent.
    func write(taking output: consuming ByteBuffer) throws(ReshapeError) {
        try output.withBytes { (bytes) throws(ReshapeError) in try write(bytes) }
    }

    /// Lets `body` append to a buffer, and takes what it appended when it returns true (a
    /// buffer sink lends its own buffer, so nothing is copied).
    func append(using body: (inout ByteBuffer) -> Bool) throws(ReshapeError) -> Bool {
        var buffer = ByteBuffer(capacity: 4096)
        guard body(&buffer) else { return false }
        try buffer.withBytes { (bytes) throws(ReshapeError) in try write(bytes) }
        return true
    }

    /// Counts bytes a subclass took in without `write`.
    final func count(_ bytes: Int) {
        bytesWritten += bytes
    }

    /// Forgets what was written (for a sink that can take it back).
    func resetCount() {
        bytesWritten = 0
    }

    /// Throws away what was written, to write a different output instead; false when the sink
    /// cannot (a pipe).
    func reset() -> Bool { false }

    /// Takes bytes; subclasses store or send them.
    func accept(_ bytes: UnsafeRawBufferPointer) throws(ReshapeError) {}

    /// Sends what is buffered on.
    func flush() throws(ReshapeError) {}
}

/// Output kept in memory, for `Rules.apply`.
final class BufferSink: OutputSink {
    var buffer: ByteBuffer

    init(capacity: Int) {
        buffer = ByteBuffer(capacity: capacity)
    }

    /// A sink that writes into `buffer` (empty).
    init(buffer: consuming ByteBuffer) {
        self.buffer = buffer
    }

    override func accept(_ bytes: UnsafeRawBufferPointer) throws(ReshapeError) {
        buffer.append(bytes)
    }

    override func append(using body: (inout ByteBuffer) -> Bool) throws(ReshapeError) -> Bool {
        let before = buffer.count
        guard body(&buffer) else { return false }
        count(buffer.count - before)
        return true
    }

    override func reset() -> Bool {
        buffer.removeAll()
        resetCount()
        return true
    }

    /// Hands the buffer over, leaving an empty one.
    func takeBuffer() -> ByteBuffer {
        var taken = ByteBuffer(capacity: 16)
        swap(&taken, &buffer)
        return taken
    }
}

/// Output sent on in large pieces as it is made: small writes are gathered up to `chunk` bytes,
/// large ones (a batch of records' output) go on as they are, without a copy. Subclasses say
/// where a piece goes (`send`).
class ChunkedSink: OutputSink {
    private var pending = ByteBuffer(capacity: ChunkedSink.chunk)
    static let chunk = 1 << 20
    /// Writes from this size are sent on as they are: copying them would cost more than a call.
    static let direct = 64 << 10

    override func accept(_ bytes: UnsafeRawBufferPointer) throws(ReshapeError) {
        if bytes.count >= Self.direct {
            try flush()
            try send(bytes)
            return
        }
        if pending.count + bytes.count > Self.chunk { try flush() }
        pending.append(bytes)
    }

    override func flush() throws(ReshapeError) {
        guard pending.count > 0 else { return }
        try send(pending.bytes)
        pending.removeAll()
    }

    /// Drops what is gathered and not sent yet.
    func dropPending() {
        pending.removeAll()
    }

    /// Sends a piece on.
    func send(_ bytes: UnsafeRawBufferPointer) throws(ReshapeError) {}
}

/// Output handed to a function of the caller's in pieces, in order, as it is made
/// (`reshape_apply_cb`, as jansson's `json_dump_callback`).
final class CallbackSink: ChunkedSink {
    /// Takes a piece; returns 0 to go on, anything else to stop the call with `io_error` (with
    /// that value as the `errno` when it is positive).
    private let deliver: (UnsafeRawBufferPointer) -> Int32

    init(_ deliver: @escaping (UnsafeRawBufferPointer) -> Int32) {
        self.deliver = deliver
    }

    /// The whole output at once, made in memory (a document reshaped whole): the pages of each
    /// piece are given back to the system once the caller has it, so that the caller's copy and
    /// this one are never both whole.
    override func write(taking output: consuming ByteBuffer) throws(ReshapeError) {
        try flush()
        try output.withBytes { (bytes) throws(ReshapeError) in
            count(bytes.count)
            guard bytes.count >= Self.releasedFrom, let base = bytes.baseAddress else { return try send(bytes) }
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let address = Int(bitPattern: base)
            var released = (address + page - 1) / page * page  // the first whole page
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + Self.chunk)
                try send(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                offset = end
                // Nothing reads these bytes again: the buffer is freed when this returns.
                let upTo = (address + end) / page * page
                if upTo > released, let start = UnsafeMutableRawPointer(bitPattern: released) {
                    madvise(start, upTo - released, MADV_DONTNEED)
                    released = upTo
                }
            }
        }
    }

    /// Outputs from this size are given back as they are sent; smaller ones cost little twice.
    static let releasedFrom = 16 << 20

    override func send(_ bytes: UnsafeRawBufferPointer) throws(ReshapeError) {
        // Pieces of at most a chunk, so that the caller never needs to hold more at once.
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + Self.chunk)
            let result = deliver(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
            guard result == 0 else {
                let code = result > 0 ? result : 0
                let reason = code > 0 ? systemReason(code) : "it returned \(result)"
                throw ReshapeError(
                    .ioError, "the write callback refused the output: \(reason)", systemErrno: code, ioFile: .output)
            }
            offset = end
        }
    }
}

/// Output written to a file descriptor in large writes, as it is made.
final class DescriptorSink: ChunkedSink {
    private let descriptor: Int32
    /// What errors call the output: its path, "standard output", "descriptor N".
    private let name: String

    /// The descriptor is a file of our own that may be emptied and written again.
    private let rewritable: Bool
    /// The file will be synced to disk when done: start writing it back as it comes.
    private let writeBehind: Bool
    /// Where the next write lands in the file, and how much of it writeback was started for.
    private var offset = 0
    private var scheduled = 0
    /// Writeback is started every this many bytes.
    static let writeBehindBytes = 8 << 20

    /// Writes to `descriptor`, which stays open and owned by the caller; `name` names it in
    /// errors. `rewritable`: a file of the engine's own, which `reset` may empty. `writeBehind`: a
    /// regular file that the caller syncs (`fsync`) once it is whole; the sink asks the system to
    /// start writing it to disk every few megabytes, so that the sync at the end waits for the
    /// last few only.
    init(descriptor: Int32, name: String, rewritable: Bool = false, writeBehind: Bool = false) {
        self.descriptor = descriptor
        self.name = name
        self.rewritable = rewritable
        self.writeBehind = writeBehind
    }

    override func reset() -> Bool {
        dropPending()
        guard rewritable, ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else { return false }
        resetCount()
        (offset, scheduled) = (0, 0)
        return true
    }

    override func send(_ bytes: UnsafeRawBufferPointer) throws(ReshapeError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let result = Glibc.write(descriptor, base + offset, bytes.count - offset)
            if result < 0 {
                if errno == EINTR { continue }
                throw .writeFailure(name, errno: errno)
            }
            offset += result
        }
        self.offset += bytes.count
        if writeBehind && self.offset - scheduled >= Self.writeBehindBytes { startWriteback() }
    }

    /// Starts writing what was written since the last call to disk, without waiting for it: a
    /// hint (its failure changes nothing; the final sync reports real errors).
    private func startWriteback() {
        _ = csystem_start_writeback(descriptor, Int64(scheduled), Int64(offset - scheduled))
        scheduled = offset
    }
}
