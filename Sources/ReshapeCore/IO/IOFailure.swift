#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `io_error`s: a read or a write that failed, with the system's `errno` and the file named.
extension ReshapeError {
    /// Reading the input failed; `name` is what the caller calls it (a path, "standard input").
    package static func readFailure(_ name: String, errno code: Int32) -> ReshapeError {
        ReshapeError(.ioError, "cannot read \(inputDescription(name)): \(systemReason(code))", systemErrno: code, ioFile: .input)
    }

    /// Writing the output failed; `name` is its path, or how the caller calls it.
    package static func writeFailure(_ name: String, errno code: Int32) -> ReshapeError {
        ReshapeError(.ioError, "cannot write \(outputDescription(name)): \(systemReason(code))", systemErrno: code, ioFile: .output)
    }

    /// The input file changed while it was read (it shrank, grew or was written): no `errno`,
    /// since no call failed; the output would mix two versions of the file.
    static func inputChanged(_ name: String, _ what: String) -> ReshapeError {
        ReshapeError(.ioError, "\(inputDescription(name)) changed while it was read: \(what)", ioFile: .input)
    }

    /// "input file 'x'", or the name alone for what is not a path ("standard input").
    private static func inputDescription(_ name: String) -> String {
        name == "standard input" || name.hasPrefix("descriptor ") ? name : "input file '\(name)'"
    }

    private static func outputDescription(_ name: String) -> String {
        name == "standard output" || name == "the output" || name.hasPrefix("descriptor ") ? name : "output file '\(name)'"
    }
}

/// The system's words for `errno` value `code` ("No such file or directory").
package func systemReason(_ code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    // The XSI strerror_r that Glibc's module declares: thread-safe, unlike strerror.
    guard strerror_r(code, &buffer, buffer.count) == 0 else { return "error \(code)" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
