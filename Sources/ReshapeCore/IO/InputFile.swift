internal import CSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An input read without copying it: a regular file is mapped, and the pages the engine has gone
/// past are given back, so a large file costs memory in proportion to the work in flight, not to
/// its size. Anything else (a pipe, a terminal) is read to its end: into memory while it is small,
/// and past `spoolBytes` into a temporary file without a name (in `TMPDIR`, else /tmp), which is
/// then mapped like any file, so that `curl ... | reshape` is bounded too.
final class InputFile: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer
    private let mapping: UnsafeMutableRawPointer?
    private let mappedBytes: Int
    /// Where `bytes` starts in the mapping: the descriptor's offset when it was handed over.
    private let start: Int
    private var buffer: ByteBuffer? = nil

    /// Reads `descriptor` from its current offset to its end (it is left open; the caller owns
    /// it). `name` names it in errors.
    init(descriptor: Int32, name: String) throws(ReshapeError) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Self.failure(name, errno) }
        let offset = Int(max(0, lseek(descriptor, 0, SEEK_CUR)))
        if (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) > offset,
            let mapped = mmap(nil, Int(info.st_size), PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED
        {
            madvise(mapped, Int(info.st_size), MADV_SEQUENTIAL)
            mapping = mapped
            mappedBytes = Int(info.st_size)
            start = offset
            bytes = UnsafeRawBufferPointer(start: mapped + offset, count: Int(info.st_size) - offset)
            return
        }
        var buffer = ByteBuffer(capacity: 1 << 16)
        var spool: Spool? = nil
        try ChunkedRead.each(descriptor, failure: { Self.failure(name, $0) }) { (chunk) throws(ReshapeError) in
            if let spool {
                try spool.append(chunk, input: name)
                return
            }
            buffer.append(chunk)
            if buffer.count >= Self.spoolBytes, let created = Spool() {
                try buffer.withBytes { (held) throws(ReshapeError) in try created.append(held, input: name) }
                buffer = ByteBuffer(capacity: 16)
                spool = created
            }
        }
        if let spool {
            defer { close(spool.descriptor) }  // the mapping keeps the file until it is unmapped
            guard let mapped = mmap(nil, spool.size, PROT_READ, MAP_PRIVATE, spool.descriptor, 0), mapped != MAP_FAILED else {
                throw Self.spoolFailure(name, errno)
            }
            madvise(mapped, spool.size, MADV_SEQUENTIAL)
            (mapping, mappedBytes, start) = (mapped, spool.size, 0)
            bytes = UnsafeRawBufferPointer(start: mapped, count: spool.size)
            return
        }
        mapping = nil
        mappedBytes = 0
        start = 0
        bytes = buffer.withBytes { $0 }  // Stable: the buffer is kept, and never grows again.
        self.buffer = .some(buffer)
    }

    /// Input from a pipe beyond this size goes to a temporary file rather than memory.
    static let spoolBytes = 16 << 20

    /// A temporary file without a name for input that outgrew memory.
    private final class Spool {
        let descriptor: Int32
        private(set) var size = 0
        let directory: String

        /// Nil when no temporary file can be made: the input then stays in memory.
        init?() {
            let folder = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
            var descriptor = csystem_open_unnamed(folder, O_RDWR, 0o600)
            if descriptor < 0 {
                var template = Array((folder + "/reshape-input-XXXXXX").utf8CString)
                descriptor = mkstemp(&template)
                guard descriptor >= 0 else { return nil }
                unlink(template)
                _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            }
            (self.descriptor, directory) = (descriptor, folder)
        }

        func append(_ bytes: UnsafeRawBufferPointer, input: String) throws(ReshapeError) {
            guard let base = bytes.baseAddress else { return }
            var done = 0
            while done < bytes.count {
                let written = write(descriptor, base + done, bytes.count - done)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { throw InputFile.spoolFailure(input, written < 0 ? errno : ENOSPC, in: directory) }
                done += written
            }
            size += bytes.count
        }
    }

    static func spoolFailure(_ name: String, _ code: Int32, in directory: String = "the temporary folder") -> ReshapeError {
        ReshapeError(
            .invalidArgument,
            "cannot hold input '\(name)' in a temporary file in \(directory): \(String(cString: strerror(code)))")
    }

    /// Whether `descriptor` is a regular file with bytes after its offset, which `init` maps
    /// (anything else is read to its end).
    static func isMappable(_ descriptor: Int32) -> Bool {
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        return Int(info.st_size) > Int(max(0, lseek(descriptor, 0, SEEK_CUR)))
    }

    deinit {
        if let mapping { munmap(mapping, mappedBytes) }
    }

    /// Gives back the mapped pages of `range` (offsets in `bytes`); they are read again from
    /// the file if needed.
    func release(_ range: Range<Int>) {
        guard let mapping else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let lower = min(start + max(0, range.lowerBound), mappedBytes) / page * page
        let upper = min(start + max(0, range.upperBound), mappedBytes) / page * page
        guard upper > lower else { return }
        madvise(mapping + lower, upper - lower, MADV_DONTNEED)
    }

    static func failure(_ name: String, _ code: Int32) -> ReshapeError {
        .readFailure(name, errno: code)
    }
}
