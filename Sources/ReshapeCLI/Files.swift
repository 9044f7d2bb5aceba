#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ReshapeCore

/// Reads and compiles a rules document; any failure is a usage error (exit 2).
func compileRules(at path: String) throws -> Rules {
    let bytes = try readFile(path, what: "rules file")
    do {
        return try Rules(json: bytes)
    } catch {
        throw CLIFailure(error)
    }
}

/// Opens the input: a file, or standard input for nil or "-". The engine maps a regular file
/// and reads anything else (pipes, `<(curl ...)`, `/dev/stdin`) to its end.
func openInput(_ path: String?) throws -> Int32 {
    guard let path, path != "-" else { return STDIN_FILENO }
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw CLIFailure(.readFailure(path, errno: errno)) }
    return descriptor
}

/// Reads the whole input into memory: a file, or standard input for "-".
func readInput(_ path: String) throws -> [UInt8] {
    guard path != "-" else { return try readAll(STDIN_FILENO, path: "standard input", what: "input file") }
    return try readFile(path, what: "input file")
}

/// Reads a whole file to its end, so that pipes given as paths (`<(curl ...)`, `/dev/stdin`) work
/// as well as regular files.
private func readFile(_ path: String, what: String) throws -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw CLIFailure(.ioError, "cannot read \(what) '\(path)': \(systemReason(errno))", errno) }
    defer { close(descriptor) }
    return try readAll(descriptor, path: path, what: what)
}

private func readAll(_ descriptor: Int32, path: String, what: String) throws -> [UInt8] {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count == 0 { return bytes }
        if count < 0 {
            if errno == EINTR { continue }
            throw CLIFailure(.ioError, "cannot read \(what) '\(path)': \(systemReason(errno))", errno)
        }
        bytes.append(contentsOf: chunk[0..<count])
    }
}
