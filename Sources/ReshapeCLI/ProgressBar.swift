import Foundation

/// `--progress`: one line on standard error, redrawn at most ten times a second, with the bytes
/// done, the speed and the time left. Shown by default only when standard error is a terminal and
/// the input is a file over 50 MB.
final class ProgressBar: @unchecked Sendable {
    private let start = Date()
    private var lastDrawn = Date.distantPast
    private var drawn = false

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

    /// Erases the bar's line (when a bar may have been drawn on a terminal).
    static func clear(requested: Bool?) {
        guard requested != false, isatty(STDERR_FILENO) == 1 else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    /// The engine's progress callback: never cancels.
    func update(done: Int, total: Int) -> Bool {
        let now = Date()
        guard done >= total || now.timeIntervalSince(lastDrawn) >= 0.1 else { return true }
        lastDrawn = now
        let elapsed = max(now.timeIntervalSince(start), 0.001)
        let rate = Double(done) / elapsed
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let width = 24
        let filled = Int(fraction * Double(width))
        let left = rate > 0 ? Double(total - done) / rate : 0
        let line = String(
            format: "\r[%@%@] %3d%%  %.1f/%.1f MB  %.1f MB/s  %@ left\u{1B}[K",
            String(repeating: "#", count: filled), String(repeating: "-", count: width - filled), Int(fraction * 100),
            Double(done) / 1e6, Double(total) / 1e6, rate / 1e6, Self.clock(left))
        FileHandle.standardError.write(Data(line.utf8))
        drawn = true
        return true
    }

    private static func clock(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded(.up))
        return String(format: "%d:%02d", whole / 60, whole % 60)
    }
}
