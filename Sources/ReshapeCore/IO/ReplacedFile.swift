internal import CSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An output file replaced only when reshaping succeeds, and then all at once.
///
/// The bytes go to a temporary file in the file's directory, renamed over it on `commit`, so a
/// failure never leaves a partial file. Where the system allows, that file has no name until
/// `commit` (`O_TMPFILE`): a process killed half-way (Ctrl-C, `kill`, out of memory) leaves
/// nothing behind, as the system deletes a file without a name when it is closed.
///
/// What a user expects of a file they named is kept: an existing file keeps its permissions and
/// its owner and group, and when the path is a symbolic link its target is replaced (the link
/// stays a link). When the owner cannot be kept (another
/// user's file in a directory we may write), the finished temporary file is copied into the file
/// instead, which keeps everything about it. Devices and pipes (`/dev/null`) are written as they
/// come, as a shell redirection would, and so is a descriptor named by `/dev/stdout`, `/dev/fd/N`
/// or `/proc/self/fd/N` (at its position: after `>> log`, appended). A second hard link to the
/// file keeps the old contents after a rename.
final class ReplacedFile {
    /// Where the output is written until `commit`.
    let descriptor: Int32
    private let target: String
    private let staging: Staging
    /// Copy the temporary file into `target` on commit instead of renaming it.
    private let copyInto: Bool
    private var finished = false

    /// Where the bytes wait for `commit`.
    private enum Staging {
        /// Written in place: a device, a pipe, an open descriptor.
        case none
        /// A temporary file named `path`.
        case named(String)
        /// A file without a name, named `prefix` and a random suffix on `commit`, then renamed.
        case unnamed(prefix: String)
    }

    /// Opens the output for `path`. Throws `io_error` with the system's words.
    init(path: String) throws(ReshapeError) {
        let target: String
        switch try Self.resolvedTarget(path, named: path) {
        case .descriptor(let open):
            // `/dev/stdout` and the like: that descriptor itself, written at its position as the
            // output comes (after `>> log`, appended), never replaced.
            let descriptor = fcntl(open, F_DUPFD_CLOEXEC, 0)
            guard descriptor >= 0 else { throw Self.failure(path, errno) }
            (self.target, self.descriptor, staging, copyInto) = (path, descriptor, .none, false)
            return
        case .path(let resolved):
            target = resolved
        }
        self.target = target
        var existing = stat()
        let exists = lstat(target, &existing) == 0
        guard exists || errno == ENOENT else { throw Self.failure(path, errno) }
        if exists && (existing.st_mode & S_IFMT) != S_IFREG {
            let descriptor = open(target, O_WRONLY | O_TRUNC | O_CLOEXEC)
            guard descriptor >= 0 else { throw Self.failure(path, errno) }
            (self.descriptor, staging, copyInto) = (descriptor, .none, false)
            return
        }
        let slash = target.utf8.lastIndex(of: UInt8(ascii: "/"))
        let folder = slash.map { String(target[..<$0]) } ?? "."
        let directory = folder.isEmpty ? "/" : folder
        let name = slash.map { String(target[target.index(after: $0)...]) } ?? target
        let prefix = directory + "/." + name + ".reshape-"
        var descriptor: Int32 = -1
        let staging: Staging
        // A new file is made with the mode any new file gets there (0666 less the umask, or the
        // folder's default ACL), by the kernel: the umask is never set, even for a moment (it is
        // the whole process's). A replaced file keeps its mode, set below.
        let creation: mode_t = exists ? 0o600 : 0o666
        // Naming it on commit goes through /proc/self/fd: without /proc, a named file from the start.
        let unnamed = access("/proc/self/fd", X_OK) == 0 ? csystem_open_unnamed(directory, O_WRONLY, UInt32(creation)) : -1
        if unnamed >= 0 {
            (descriptor, staging) = (unnamed, .unnamed(prefix: prefix))
        } else {
            let temporary = try Self.freshName(prefix: prefix, path: path) { candidate in
                descriptor = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, creation)
                return descriptor >= 0
            }
            staging = .named(temporary)
        }
        var otherOwner = false
        if exists {
            if existing.st_uid != getuid() || existing.st_gid != getgid() {
                otherOwner = fchown(descriptor, existing.st_uid, existing.st_gid) != 0
            }
            guard fchmod(descriptor, existing.st_mode & 0o7777) == 0 else {
                let code = errno
                close(descriptor)
                if case .named(let temporary) = staging { unlink(temporary) }
                throw Self.failure(path, code)
            }
        }
        (self.descriptor, self.staging, copyInto) = (descriptor, staging, otherOwner)
    }

    deinit {
        abandon()
    }

    /// True when `commit` syncs what was written to disk (a temporary file, not a device).
    var syncsOnCommit: Bool {
        if case .none = staging { return false }
        return true
    }

    /// Makes the output the file's contents.
    func commit(path: String) throws(ReshapeError) {
        guard !finished else { return }
        finished = true
        if case .none = staging {
            guard close(descriptor) == 0 else { throw Self.failure(path, errno) }
            return
        }
        var temporary: String? = nil
        if case .named(let named) = staging { temporary = named }
        var open = true
        do throws(ReshapeError) {
            guard fsync(descriptor) == 0 else { throw Self.failure(path, errno) }
            if copyInto {
                try copyContents(path: path)
                if let temporary { unlink(temporary) }
                close(descriptor)
                return
            }
            if case .unnamed(let prefix) = staging { temporary = try name(prefix: prefix, path: path) }
            open = false
            guard close(descriptor) == 0 else { throw Self.failure(path, errno) }
            guard let temporary, rename(temporary, target) == 0 else { throw Self.failure(path, errno) }
        } catch {
            // Closed once only: another thread may already have the number again.
            if open { close(descriptor) }
            if let temporary { unlink(temporary) }
            throw error
        }
    }

    /// Gives the file without a name a name, `prefix` and six random characters, for the rename.
    private func name(prefix: String, path: String) throws(ReshapeError) -> String {
        try Self.freshName(prefix: prefix, path: path) { candidate in
            linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, candidate, AT_SYMLINK_FOLLOW) == 0
        }
    }

    /// `prefix` and six random characters, a name `claim` takes (true); a name taken already
    /// (`claim` false with `EEXIST`) is drawn again, up to 100 times.
    private static func freshName(prefix: String, path: String, _ claim: (String) -> Bool) throws(ReshapeError) -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let suffix = (0..<6).map { _ in letters[Int(generator.next(upperBound: UInt64(letters.count)))] }
            let candidate = prefix + String(decoding: suffix, as: UTF8.self)
            if claim(candidate) { return candidate }
            guard errno == EEXIST else { throw Self.failure(path, errno) }
        }
        throw Self.failure(path, EEXIST)
    }

    /// Leaves the file as it was.
    func abandon() {
        guard !finished else { return }
        finished = true
        close(descriptor)
        if case .named(let temporary) = staging { unlink(temporary) }
    }

    private func copyContents(path: String) throws(ReshapeError) {
        let output = open(target, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard output >= 0 else { throw Self.failure(path, errno) }
        defer { close(output) }
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw Self.failure(path, errno) }
        let sink = DescriptorSink(descriptor: output, name: path)
        try ChunkedRead.each(descriptor, failure: { Self.failure(path, $0) }) { (chunk) throws(ReshapeError) in try sink.write(chunk) }
        try sink.flush()
        guard fsync(output) == 0 else { throw Self.failure(path, errno) }
    }

    /// Where the output goes.
    private enum Target {
        /// A file, which may not exist yet.
        case path(String)
        /// A descriptor this process has open, named by `/dev/stdout`, `/dev/fd/N` or
        /// `/proc/self/fd/N`: its link names a pipe (`pipe:[N]`) or a file opened for appending
        /// just as well, neither of which is to be replaced.
        case descriptor(Int32)
    }

    /// The path to write: `path`, or the file its chain of symbolic links ends at (which may not
    /// exist yet), or the open descriptor it names.
    private static func resolvedTarget(_ path: String, named name: String) throws(ReshapeError) -> Target {
        var current = path
        for _ in 0..<40 {
            if let descriptor = openDescriptor(named: current) { return .descriptor(descriptor) }
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return .path(current) }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &buffer, buffer.count - 1)
            guard length >= 0 else { throw failure(name, errno) }
            let link = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if link.hasPrefix("/") {
                current = link
            } else if let slash = current.utf8.lastIndex(of: UInt8(ascii: "/")) {
                current = String(current[...slash]) + link
            } else {
                current = link
            }
        }
        throw failure(name, ELOOP)
    }

    /// N, when `path` is `/dev/fd/N`, `/proc/self/fd/N`, `/proc/thread-self/fd/N` or
    /// `/proc/PID/fd/N` with this process's PID, and N is open.
    private static func openDescriptor(named path: String) -> Int32? {
        let bytes = Array(path.utf8)
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")), slash + 1 < bytes.count, bytes.count - slash <= 10,
            bytes[(slash + 1)...].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        let folder = String(decoding: bytes[..<slash], as: UTF8.self)
        guard ["/dev/fd", "/proc/self/fd", "/proc/thread-self/fd", "/proc/\(getpid())/fd"].contains(folder) else { return nil }
        let number = bytes[(slash + 1)...].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard number <= Int(Int32.max), fcntl(Int32(number), F_GETFD) >= 0 else { return nil }
        return Int32(number)
    }

    static func failure(_ path: String, _ code: Int32) -> ReshapeError {
        .writeFailure(path, errno: code)
    }
}

/// Writes `bytes` as the whole of the file at `path`, replaced only once all of them are written
/// (`ReplacedFile`): for the CLI's outputs that are not a reshaped document (`reshape infer`'s
/// rules and types).
/// - Throws: `io_error` with the system's words and `errno`.
package func replaceFile(at path: String, with bytes: [UInt8]) throws(ReshapeError) {
    let output = try ReplacedFile(path: path)
    do throws(ReshapeError) {
        let sink = DescriptorSink(descriptor: output.descriptor, name: path, rewritable: true, writeBehind: false)
        try sink.write(bytes)
        try sink.flush()
        try output.commit(path: path)
    } catch {
        output.abandon()
        throw error
    }
}
