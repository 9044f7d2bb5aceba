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

/// Reads the input document from a file, or standard input for nil or "-".
func readInput(_ path: String?) throws -> [UInt8] {
    guard let path, path != "-" else {
        do {
            return [UInt8](try FileHandle.standardInput.readToEnd() ?? Data())
        } catch {
            throw CLIFailure(.invalidArgument, "cannot read standard input: \(reason(error))")
        }
    }
    return try readFile(path, what: "input file")
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

/// Writes the output to standard output, or to a file (see `OutputFile`). A terminal gets a final
/// newline; pipes and files get exactly the engine's bytes.
func writeOutput(_ bytes: [UInt8], to path: String?) throws {
    guard let path, path != "-" else {
        do {
            try FileHandle.standardOutput.write(contentsOf: Data(bytes))
            if isatty(STDOUT_FILENO) == 1 { try FileHandle.standardOutput.write(contentsOf: Data("\n".utf8)) }
        } catch {
            throw CLIFailure(.invalidArgument, "cannot write standard output: \(reason(error))")
        }
        return
    }
    do throws(OutputFile.Failure) {
        try OutputFile(path: path).replaceContents(with: bytes)
    } catch {
        throw CLIFailure(.invalidArgument, "cannot write output file '\(path)': \(error.reason)")
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
