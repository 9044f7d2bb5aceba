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

/// Output written to a file descriptor in large writes, as it is made.
final class DescriptorSink: OutputSink {
    private let descriptor: Int32
    private var pending = ByteBuffer(capacity: DescriptorSink.chunk)
    static let chunk = 1 << 20

    /// The descriptor is a file of our own that may be emptied and written again.
    private let rewritable: Bool
    /// The file will be synced to disk when done: start writing it back as it comes.
    private let writeBehind: Bool
    /// Where the next write lands in the file, and how much of it writeback was started for.
    private var offset = 0
    private var scheduled = 0
    /// Writeback is started every this many bytes.
    static let writeBehindBytes = 8 << 20

    /// Writes to `descriptor`, which stays open and owned by the caller. `rewritable`: a file of
    /// the engine's own, which `reset` may empty. `writeBehind`: a regular file that the caller
    /// syncs (`fsync`) once it is whole; the sink asks the system to start writing it to disk
    /// every few megabytes, so that the sync at the end waits for the last few only.
    init(descriptor: Int32, rewritable: Bool = false, writeBehind: Bool = false) {
        self.descriptor = descriptor
        self.rewritable = rewritable
        self.writeBehind = writeBehind
    }

    override func reset() -> Bool {
        pending.removeAll()
        guard rewritable, ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else { return false }
        resetCount()
        (offset, scheduled) = (0, 0)
        return true
    }

    override func accept(_ bytes: UnsafeRawBufferPointer) throws(ReshapeError) {
        if pending.count + bytes.count > Self.chunk { try flush() }
        if bytes.count >= Self.chunk {
            try send(bytes)
        } else {
            pending.append(bytes)
        }
    }

    override func flush() throws(ReshapeError) {
        guard pending.count > 0 else { return }
        try send(pending.bytes)
        pending.removeAll()
    }

    private func send(_ bytes: UnsafeRawBufferPointer) throws(ReshapeError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let result = Glibc.write(descriptor, base + offset, bytes.count - offset)
            if result < 0 {
                if errno == EINTR { continue }
                let what = descriptor == STDOUT_FILENO ? "standard output" : "the output"
                throw ReshapeError(.invalidArgument, "cannot write \(what): \(String(cString: strerror(errno)))")
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
