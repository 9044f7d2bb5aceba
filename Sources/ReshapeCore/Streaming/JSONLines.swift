/// JSON Lines (https://jsonlines.org), the format data tools load: one JSON document per line.
///
/// In (`ApplyOptions.inputLines`): each line is a document, reshaped on its own, and each result is
/// written on a line of its own. Out (`.outputLines`): the resulting collection, one record per line.
enum JSONLines {
    /// The error for a result that is not a collection of records.
    static func notACollection() -> ReshapeError {
        ReshapeError(
            .invalidArgument,
            "JSON Lines output needs the result to be an array, or an object whose one member is an array")
    }

    /// Writes the records of `root` (borrowed) one per line.
    static func write(collectionIn root: Node, limits: ResolvedLimits) throws(ReshapeError) -> ByteBuffer {
        var collection = root
        if root.isObject {
            guard root.objectCount == 1, let only = firstMemberValue(of: root) else { throw notACollection() }
            collection = only
        }
        guard collection.isArray else { throw notACollection() }
        var out = ByteBuffer(capacity: 1024)
        for index in 0..<collection.arrayCount {
            guard let element = collection.element(index) else { continue }
            _ = try JSONWriter.append(element, to: &out, pretty: false, maxDepth: limits.maxDepth)
            out.append(UInt8(ascii: "\n"))
            if out.count > limits.maxOutputBytes { throw .outputLimit(limits.maxOutputBytes) }
        }
        return out
    }

    private static func firstMemberValue(of object: Node) -> Node? {
        var value: Node? = nil
        object.forEachMember { _, member in if value == nil { value = member } }
        return value
    }

    /// Reshapes each line of `input` and writes the results, one line each (or one line per record
    /// with `.outputLines`).
    static func reshape(
        _ input: UnsafeRawBufferPointer, rules: Rules, options: ApplyOptions, settings: StreamSettings,
        into sink: OutputSink
    ) throws(ReshapeError) {
        let lineOptions = options.subtracting([.inputLines, .skipInvalidLines])
        var start = 0
        var number = 0
        var out = ByteBuffer(capacity: 1 << 16)
        while start < input.count {
            number += 1
            var end = start
            while end < input.count, input[end] != UInt8(ascii: "\n") { end += 1 }
            let line = UnsafeRawBufferPointer(rebasing: input[start..<end])
            let lineStart = start
            start = end + 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            do throws(ReshapeError) {
                let result = try rules.reshapeWhole(line, options: lineOptions)
                result.withBytes { out.append($0) }
                if !options.contains(.outputLines) { out.append(UInt8(ascii: "\n")) }
            } catch {
                var located = error
                if located.line > 0 {
                    located.position += lineStart
                } else {
                    located.column = 0
                }
                located.line = number
                if error.code == .invalidJSON && options.contains(.skipInvalidLines) {
                    settings.skippedLine?(located)
                    continue
                }
                throw located
            }
            if out.count >= 1 << 20 {
                try sink.write(out.bytes)
                out.removeAll()
                if let progress = settings.progress, !progress(min(start, input.count), input.count) {
                    throw ReshapeError(.cancelled, "cancelled by the progress callback")
                }
            }
        }
        try out.withBytes { (bytes) throws(ReshapeError) in try sink.write(bytes) }
        try sink.flush()
    }
}
