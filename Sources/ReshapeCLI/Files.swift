import Foundation
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
    guard descriptor >= 0 else {
        throw CLIFailure(.invalidArgument, "cannot read input file '\(path)': \(String(cString: strerror(errno)))")
    }
    return descriptor
}

/// Reads a whole file through a file handle, so that pipes given as paths (`<(curl ...)`,
/// `/dev/stdin`) work as well as regular files.
private func readFile(_ path: String, what: String) throws -> [UInt8] {
    do {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        return [UInt8](try handle.readToEnd() ?? Data())
    } catch {
        throw CLIFailure(.invalidArgument, "cannot read \(what) '\(path)': \(reason(error))")
    }
}

private func reason(_ error: Error) -> String {
    let nsError = error as NSError
    if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
        return String(cString: strerror(Int32(underlying.code)))
    }
    if nsError.domain == NSCocoaErrorDomain {
        switch nsError.code {
        case NSFileReadNoSuchFileError: return "No such file or directory"
        case NSFileReadNoPermissionError, NSFileWriteNoPermissionError: return "Permission denied"
        default: break
        }
    }
    return nsError.localizedDescription
}
