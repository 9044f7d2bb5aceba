import CReshapeABI
import ReshapeCore

/// Fills a caller's `reshape_error` (if any) and returns the status for `error`.
func report(_ error: ReshapeError, to destination: UnsafeMutablePointer<reshape_error>?) -> reshape_status {
    if let destination {
        destination.pointee.code = error.code.status
        destination.pointee.rule = Int32(clamping: error.rule)
        destination.pointee.line = error.line
        destination.pointee.column = error.column
        destination.pointee.position = error.position
        withUnsafeMutableBytes(of: &destination.pointee.path) { copyTruncated(error.path, into: $0) }
        withUnsafeMutableBytes(of: &destination.pointee.message) { copyTruncated(error.description, into: $0) }
    }
    return reshape_status(rawValue: UInt32(clamping: error.code.status))
}

/// Clears a caller's `reshape_error` after a success, so it never holds a stale failure.
func succeed(_ destination: UnsafeMutablePointer<reshape_error>?) -> reshape_status {
    if let destination {
        destination.pointee.code = 0
        destination.pointee.rule = 0
        destination.pointee.line = 0
        destination.pointee.column = 0
        destination.pointee.position = 0
        withUnsafeMutableBytes(of: &destination.pointee.path) { copyTruncated("", into: $0) }
        withUnsafeMutableBytes(of: &destination.pointee.message) { copyTruncated("", into: $0) }
    }
    return RESHAPE_OK
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
