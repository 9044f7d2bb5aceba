#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ReshapeCore

/// An error that ends the command: printed as one line on standard error, with the exit status
/// its code calls for.
struct CLIFailure: Error {
    let error: ReshapeError

    init(_ error: ReshapeError) {
        self.error = error
    }

    init(_ code: ReshapeError.Code, _ message: String, _ systemErrno: Int32 = 0) {
        self.error = ReshapeError(code, message, systemErrno: systemErrno)
    }

    /// 1 when the input could not be reshaped, 2 for usage errors, invalid rules, and files that
    /// cannot be read or written.
    var status: Int32 {
        switch error.code {
        case .invalidRules, .invalidArgument, .ioError: 2
        case .invalidJSON, .ruleFailed, .limitExceeded, .outOfMemory, .internal, .cancelled: 1
        }
    }

    func exit() -> Never {
        writeText("reshape: \(error.description)\n")
        #if canImport(Glibc)
        Glibc.exit(status)
        #else
        Musl.exit(status)
        #endif
    }
}
