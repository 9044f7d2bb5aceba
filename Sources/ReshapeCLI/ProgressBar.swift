#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `--progress`: one line on standard error, redrawn at most ten times a second, with the bytes
/// done, the speed and the time left. Shown by default only when standard error is a terminal and
/// the input is a file over 50 MB.
final class ProgressBar: @unchecked Sendable {
    private let start = ProgressBar.now()
    private var lastDrawn = -Double.infinity
    private var drawn = false
    /// On a terminal each line is redrawn in place and erased at the end; elsewhere (`--progress`
    /// into a file) lines follow each other with carriage returns, and the last one ends the line.
    private let onTerminal = isatty(STDERR_FILENO) == 1

    /// Inputs larger than this get a bar by default.
    static let threshold = 50_000_000

    /// A bar for reading `descriptor`, or nil when none should be shown.
    static func forInput(_ descriptor: Int32, requested: Bool?) -> ProgressBar? {
        if requested == false { return nil }
        if requested == nil {
            var info = stat()
            guard isatty(STDERR_FILENO) == 1, fstat(descriptor, &info) == 0, Int(info.st_size) > threshold else {
                return nil
            }
        }
        return ProgressBar()
    }

    /// Erases the bar's line on a terminal, or ends it elsewhere, once a bar was drawn.
    func finish() {
        guard drawn else { return }
        writeText(onTerminal ? "\r\u{1B}[K" : "\n")
    }

    /// The engine's progress callback: never cancels.
    func update(done: Int, total: Int) -> Bool {
        let now = Self.now()
        guard done >= total || now - lastDrawn >= 0.1 else { return true }
        lastDrawn = now
        let elapsed = max(now - start, 0.001)
        let rate = Double(done) / elapsed
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let width = 24
        let filled = Int(fraction * Double(width))
        let left = rate > 0 ? Double(total - done) / rate : 0
        let percent = String(Int(fraction * 100))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let erase = onTerminal ? "\u{1B}[K" : ""
        // A pipe read as it comes (JSON Lines) has no size until its end: the bytes and the speed.
        let line = total == 0 ? "\r\(Self.tenths(Double(done) / 1e6)) MB  \(Self.tenths(rate / 1e6)) MB/s" + erase
            : "\r[\(bar)] \(String(repeating: " ", count: max(0, 3 - percent.count)))\(percent)%  "
                + "\(Self.tenths(Double(done) / 1e6))/\(Self.tenths(Double(total) / 1e6)) MB  "
                + "\(Self.tenths(rate / 1e6)) MB/s  \(Self.clock(left)) left" + erase
        writeText(line)
        drawn = true
        return true
    }

    /// Seconds on a clock that only goes forward.
    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// `value` with one decimal, rounded: "12.3".
    static func tenths(_ value: Double) -> String {
        guard value.isFinite, value >= 0, value < 1e15 else { return "0.0" }
        let scaled = Int((value * 10).rounded())
        return "\(scaled / 10).\(scaled % 10)"
    }

    /// Whole seconds, rounded up, as "m:ss".
    static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0, seconds < 1e12 else { return "0:00" }
        let whole = Int(seconds.rounded(.up))
        let rest = whole % 60
        return "\(whole / 60):\(rest < 10 ? "0" : "")\(rest)"
    }
}
