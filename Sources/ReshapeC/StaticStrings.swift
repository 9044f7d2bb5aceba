import CReshapeABI
import ReshapeCore

/// `reshape_version()`'s string: made once from the engine's version, and never freed.
nonisolated(unsafe) let versionCString: UnsafePointer<CChar> = makeCString(ReshapeVersion.string)

/// `reshape_status_name()`'s strings, in status order.
enum StatusNames {
    /// Status 9, RESHAPE_BUFFER_TOO_SMALL, belongs to the C layer alone (`reshape_apply_into`): no
    /// error of the engine has it. Every other status is an engine code's.
    nonisolated(unsafe) private static let names: [Int32: UnsafePointer<CChar>] = {
        var names = [0: makeCString("ok"), Int32(RESHAPE_BUFFER_TOO_SMALL.rawValue): makeCString("buffer_too_small")]
        for code in ReshapeError.Code.allCases { names[code.status] = makeCString(code.rawValue) }
        return names
    }()
    nonisolated(unsafe) private static let unknown = makeCString("unknown")

    static func name(of status: Int32) -> UnsafePointer<CChar> {
        names[status] ?? unknown
    }
}

/// The ops' names as static C strings, for `reshape_rules_op` and `reshape_error.op`.
enum OpNames {
    nonisolated(unsafe) private static let table: [String: UnsafePointer<CChar>] =
        Dictionary(Rules.allOps.map { ($0, makeCString($0)) }, uniquingKeysWith: { first, _ in first })
    nonisolated(unsafe) static let empty = makeCString("")

    /// The static string of a known op; nil for any other text.
    static func cString(for op: String) -> UnsafePointer<CChar>? {
        table[op]
    }
}

/// A NUL-terminated copy of `text` that lives as long as the process: for strings the C API
/// documents as static.
private func makeCString(_ text: String) -> UnsafePointer<CChar> {
    let bytes = Array(text.utf8CString)
    let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count)
    pointer.initialize(from: bytes, count: bytes.count)
    return UnsafePointer(pointer)
}
