#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes `text` whole to `descriptor` (standard error, by default): messages, the progress bar.
/// A failure is dropped: there is nowhere left to report it.
func writeText(_ text: String, to descriptor: Int32 = STDERR_FILENO) {
    var text = text
    text.withUTF8 { bytes in
        guard var base = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let written = write(descriptor, base, left)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            base += written
            left -= written
        }
    }
}
