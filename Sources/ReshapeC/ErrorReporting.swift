import CReshapeABI
import ReshapeCore

/// Fills a caller's `reshape_error` (if any) and returns the status for `error`.
func report(_ error: ReshapeError, to destination: UnsafeMutablePointer<reshape_error>?) -> reshape_status {
    let status = reshape_status(rawValue: UInt32(clamping: error.code.status))
    guard let destination else { return status }
    // The op only for a failing rule, and only one Reshape knows: a made-up op (an invalid rules
    // document) may be long or hold anything, and the message shows it quoted already.
    let op = error.rule > 0 && OpNames.cString(for: error.op) != nil ? error.op : ""
    fill(
        destination, code: status, rule: Int32(clamping: error.rule), op: op, path: error.path,
        message: error.description, line: error.line, column: error.column, position: error.position,
        systemErrno: error.systemErrno, ioFile: error.ioFile.rawValue)
    if let source = error.source {
        destination.pointee.source_origin = Int32(ValueSource.Origin.allCases.firstIndex(of: source.origin) ?? -1) + 1
        destination.pointee.source_rule = Int32(clamping: source.rule)
        destination.pointee.source_line = source.line
        destination.pointee.source_column = source.column
        destination.pointee.source_position = source.position
        withUnsafeMutableBytes(of: &destination.pointee.source_path) { copyTruncated(source.path, into: $0) }
        withUnsafeMutableBytes(of: &destination.pointee.source_op) { copyTruncated(source.op, into: $0) }
    }
    return status
}

/// Fills a caller's `reshape_error` (if any) for an output larger than the caller's buffer: the
/// one status of the C layer alone, so it has no `ReshapeError` code.
func reportBufferTooSmall(
    needed: Int, capacity: Int, to destination: UnsafeMutablePointer<reshape_error>?
) -> reshape_status {
    if let destination {
        let bytes = needed == 1 ? "byte" : "bytes"
        fill(
            destination, code: RESHAPE_BUFFER_TOO_SMALL, rule: 0, op: "", path: "",
            message: "buffer_too_small: the output has \(needed) \(bytes); the buffer holds \(capacity)")
    }
    return RESHAPE_BUFFER_TOO_SMALL
}

/// Clears a caller's `reshape_error` after a success, so it never holds a stale failure.
func succeed(_ destination: UnsafeMutablePointer<reshape_error>?) -> reshape_status {
    if let destination {
        fill(destination, code: RESHAPE_OK, rule: 0, op: "", path: "", message: "")
    }
    return RESHAPE_OK
}

/// Writes every field of a `reshape_error`, `reserved` zeroed as the header promises: a field a
/// later release carves out of it then reads as "not known" to programs built against that header.
private func fill(
    _ destination: UnsafeMutablePointer<reshape_error>, code: reshape_status, rule: Int32, op: String, path: String,
    message: String, line: Int = 0, column: Int = 0, position: Int = 0, systemErrno: Int32 = 0, ioFile: Int32 = 0
) {
    destination.pointee.code = Int32(bitPattern: code.rawValue)
    destination.pointee.rule = rule
    destination.pointee.line = line
    destination.pointee.column = column
    destination.pointee.position = position
    destination.pointee.sys_errno = systemErrno
    destination.pointee.io_file = ioFile
    withUnsafeMutableBytes(of: &destination.pointee.path) { copyTruncated(path, into: $0) }
    withUnsafeMutableBytes(of: &destination.pointee.message) { copyTruncated(message, into: $0) }
    // Zeroed whole, then written: 32 bytes, and no stale op after the NUL.
    withUnsafeMutableBytes(of: &destination.pointee.op) { bytes in
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
        copyTruncated(op, into: bytes)
    }
    destination.pointee.source_origin = 0
    destination.pointee.source_rule = 0
    destination.pointee.source_line = 0
    destination.pointee.source_column = 0
    destination.pointee.source_position = 0
    withUnsafeMutableBytes(of: &destination.pointee.source_path) { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
    withUnsafeMutableBytes(of: &destination.pointee.source_op) { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
    withUnsafeMutableBytes(of: &destination.pointee.reserved) { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
}

/// Copies `text` NUL-terminated into a fixed buffer. Text that does not fit is cut at a character
/// boundary and ends with "...".
func copyTruncated(_ text: String, into buffer: UnsafeMutableRawBufferPointer) {
    guard buffer.count > 0 else { return }
    let capacity = buffer.count - 1
    var utf8 = Array(text.utf8)
    if utf8.count > capacity {
        var cut = max(0, capacity - 3)
        // Never split a UTF-8 sequence: back up to the start of the character.
        while cut > 0 && utf8[cut] & 0xC0 == 0x80 { cut -= 1 }
        utf8 = Array(utf8[..<cut]) + Array("...".utf8)
    }
    buffer.copyBytes(from: utf8)
    buffer[utf8.count] = 0
}
