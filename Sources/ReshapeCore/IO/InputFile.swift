#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An input read without copying it: a regular file is mapped, and the pages the engine has gone
/// past are given back, so a large file costs memory in proportion to the work in flight, not to
/// its size. Anything else (a pipe, a terminal) is read into memory to its end.
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
        mapping = nil
        mappedBytes = 0
        start = 0
        var buffer = ByteBuffer(capacity: 1 << 16)
        try ChunkedRead.each(descriptor, failure: { Self.failure(name, $0) }) { chunk in buffer.append(chunk) }
        bytes = buffer.withBytes { $0 }  // Stable: the buffer is kept, and never grows again.
        self.buffer = .some(buffer)
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
        ReshapeError(.invalidArgument, "cannot read input file '\(name)': \(String(cString: strerror(code)))")
    }
}
