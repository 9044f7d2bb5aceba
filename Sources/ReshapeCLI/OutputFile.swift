import Foundation

/// `--output FILE`: replaced only when reshaping succeeded, and then all at once.
///
/// The bytes go to a temporary file in FILE's directory, which is renamed over FILE, so a failure
/// never leaves a partial file. What a user expects of a file they named is kept: an existing FILE
/// keeps its permissions and its owner and group, and when FILE is a symbolic link its target is
/// replaced (the link stays a link). When the owner cannot be kept (another user's file in a
/// directory we may write), FILE is rewritten in place instead, which keeps everything about it but
/// is not atomic; so are devices and pipes (`-o /dev/null`). A second hard link to FILE keeps the old
/// contents after a rename.
struct OutputFile {
    /// Why the file could not be written: the system's own words (`strerror`).
    struct Failure: Error {
        let reason: String

        init(errno code: Int32) {
            reason = String(cString: strerror(code))
        }

        init(_ reason: String) {
            self.reason = reason
        }
    }

    let path: String

    func replaceContents(with bytes: [UInt8]) throws(Failure) {
        let target = try resolvedTarget()
        var existing = stat()
        let exists = lstat(target, &existing) == 0
        guard exists || errno == ENOENT else { throw Failure(errno: errno) }
        // A device or a pipe (`-o /dev/null`) is written as a shell redirection would write it.
        if exists && (existing.st_mode & S_IFMT) != S_IFREG { return try rewriteInPlace(target, with: bytes, sync: false) }
        let directory = (target as NSString).deletingLastPathComponent
        let name = (target as NSString).lastPathComponent
        var template = Array(((directory.isEmpty ? "." : directory) + "/." + name + ".reshape-XXXXXX").utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else { throw Failure(errno: errno) }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var open = true
        defer {
            if open { close(descriptor) }
        }
        do throws(Failure) {
            if exists {
                guard fchmod(descriptor, existing.st_mode & 0o7777) == 0 else { throw Failure(errno: errno) }
                if existing.st_uid != getuid() || existing.st_gid != getgid(),
                    fchown(descriptor, existing.st_uid, existing.st_gid) != 0
                {
                    unlink(temporary)
                    try rewriteInPlace(target, with: bytes, sync: true)
                    return
                }
            } else {
                let mask = umask(0)
                umask(mask)
                guard fchmod(descriptor, 0o666 & ~mask) == 0 else { throw Failure(errno: errno) }
            }
            try writeAll(bytes, to: descriptor)
            guard fsync(descriptor) == 0 else { throw Failure(errno: errno) }
            open = false
            guard close(descriptor) == 0 else { throw Failure(errno: errno) }
            guard rename(temporary, target) == 0 else { throw Failure(errno: errno) }
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// The path to write: FILE, or the file its chain of symbolic links ends at (which may not
    /// exist yet).
    private func resolvedTarget() throws(Failure) -> String {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &buffer, buffer.count - 1)
            guard length >= 0 else { throw Failure(errno: errno) }
            let link = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = link.hasPrefix("/") ? link : ((current as NSString).deletingLastPathComponent as NSString).appendingPathComponent(link)
        }
        throw Failure(errno: ELOOP)
    }

    /// `sync`: for a regular file; devices and pipes may refuse fsync.
    private func rewriteInPlace(_ target: String, with bytes: [UInt8], sync: Bool) throws(Failure) {
        let descriptor = Foundation.open(target, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(errno: errno) }
        defer { close(descriptor) }
        try writeAll(bytes, to: descriptor)
        guard !sync || fsync(descriptor) == 0 else { throw Failure(errno: errno) }
    }

    private func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws(Failure) {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return write(descriptor, base + written, buffer.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw Failure(errno: errno)
            }
            if result == 0 { throw Failure("the file took no more bytes") }
            written += result
        }
    }
}
