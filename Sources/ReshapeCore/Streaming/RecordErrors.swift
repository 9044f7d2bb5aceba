/// Errors found in one record's text, where the record lies in the document: a record is read on
/// its own (by a thread of the stream, or again by the reading thread to name an error), so its
/// error counts from the record's start; the whole tree would count from the document's.
struct RecordPlace {
    /// The record's first byte in the input, and that byte's line and column.
    let start: Int
    let line: Int
    let column: Int
    /// The normalized path of the record in the document: `$['data'][7]`, `$['-Nx1']`.
    let path: String

    /// `error`, from reading the record's text alone, as reading the whole document gives it.
    /// `maxDepth` is the document's depth limit (the record was read with what was left of it).
    func documentError(_ error: ReshapeError, maxDepth: Int) -> ReshapeError {
        guard error.line > 0 else { return error }
        var moved = error
        if error.code == .limitExceeded || error.code == .invalidRules {
            moved.message = ReshapeError.depthLimit(maxDepth, code: error.code).message
        }
        moved.position = start + error.position
        moved.line = line + error.line - 1
        moved.column = error.line == 1 ? column + error.column - 1 : error.column
        moved.path = error.path.isEmpty ? path : path + error.path.dropFirst()
        return moved
    }
}

extension JSONParser {
    /// The error the whole tree gives for the record that starts at `start`, whose path is `path`,
    /// and that a quick scan could not get past (it ends the input, or starts with a byte no value
    /// starts with): the record is read as the tree reads it, on its own, and its error moved to
    /// its place. Nil when that reading fails on nothing (then the scan's own error stands).
    func valueError(from start: Int, path: String) -> ReshapeError? {
        guard start < text.count else { return nil }
        // The record's depth: the envelope's open containers and the collection.
        let depthLeft = maxDepth - (stack.count + 1)
        var reader = JSONParser(
            text: UnsafeRawBufferPointer(rebasing: text[start..<text.count]), allowDuplicateKeys: allowDuplicateKeys,
            errorCode: .invalidJSON, rawDepth: nil, maxDepth: max(0, depthLeft))
        let error: ReshapeError
        do throws(ReshapeError) {
            let value = try reader.parseValue()
            Make.release(value)
            return nil
        } catch let failure {
            error = failure
        }
        let position = position(of: start)
        let place = RecordPlace(start: start, line: position.line, column: position.column, path: path)
        return place.documentError(error, maxDepth: maxDepth)
    }
}
