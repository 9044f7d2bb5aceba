#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reading a descriptor to its end in 64 KiB chunks, retrying on EINTR: for inputs that cannot be
/// mapped (pipes) and for copying a finished output file.
enum ChunkedRead {
    /// Calls `body` with each chunk read from `descriptor`; a read error is `failure(errno)`.
    static func each(
        _ descriptor: Int32, failure: (Int32) -> ReshapeError, _ body: (UnsafeRawBufferPointer) throws(ReshapeError) -> Void
    ) throws(ReshapeError) {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw failure(errno) }
            if count == 0 { return }
            try chunk.withUnsafeBytesTyped { (bytes) throws(ReshapeError) in try body(UnsafeRawBufferPointer(rebasing: bytes[0..<count])) }
        }
    }
}
