internal import CJansson

/// Writes jansson's tree as JSON text: member order as it stands, integers exact, reals in their
/// shortest round-trip form, raw numbers as their original text, and strings escaped minimally
/// (`"`, `\` and control characters; everything else stays UTF-8).
///
/// Iterative, so the depth of the tree never matters for the stack. It never writes what the engine
/// could not read back (nesting deeper than the depth limit), nor more than the output limit: both
/// are `limit_exceeded`, found as soon as they happen rather than after a huge buffer is filled.
struct JSONWriter: ~Copyable {
    private let pretty: Bool
    private var out: ByteBuffer
    private let maxBytes: Int
    private let maxDepth: Int
    /// The depth at which the root is written: indentation and the depth limit count from it.
    private let baseDepth: Int
    /// A node written as nothing at all, and where in the output it stands (see `append`).
    private let hole: Node?
    private var holeOffset: Int? = nil

    /// - Parameters:
    ///   - pretty: indent with two spaces and put each member and element on its own line.
    ///   - capacityHint: expected size of the output, to avoid regrowing.
    ///   - maxBytes: the output limit.
    ///   - maxDepth: the deepest nesting allowed.
    init(
        pretty: Bool, capacityHint: Int = 1024, maxBytes: Int = .max, maxDepth: Int = Limits.defaultMaxDepth,
        baseDepth: Int = 0, hole: Node? = nil
    ) {
        self.pretty = pretty
        self.out = ByteBuffer(capacity: min(capacityHint, maxBytes, 1 << 30))
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
        self.baseDepth = baseDepth
        self.hole = hole
    }

    /// Appends `root` (borrowed) to `buffer` as if it stood `baseDepth` levels deep in a larger
    /// document: for the streaming engine, which writes records one by one. `hole`, when found,
    /// is written as nothing; the result is the offset in `buffer` where it stood.
    static func append(
        _ root: Node, to buffer: inout ByteBuffer, pretty: Bool, baseDepth: Int = 0, maxDepth: Int,
        hole: Node? = nil
    ) throws(ReshapeError) -> Int? {
        var writer = JSONWriter(pretty: pretty, capacityHint: 16, maxDepth: maxDepth, baseDepth: baseDepth, hole: hole)
        swap(&writer.out, &buffer)
        defer {
            for tree in writer.temporaries { Make.release(tree) }
            writer.temporaries = []
            swap(&writer.out, &buffer)
        }
        try writer.writeAll(root)
        return writer.holeOffset
    }

    private enum Frame {
        case object(Node, iterator: UnsafeMutableRawPointer?, first: Bool)
        case array(Node, index: Int, count: Int)
    }

    /// Trees made from raw values for pretty output, released when writing ends.
    private var temporaries: [Node] = []

    /// Writes `root` (borrowed) and returns the finished buffer.
    consuming func write(_ root: Node) throws(ReshapeError) -> ByteBuffer {
        do throws(ReshapeError) {
            try writeAll(root)
            if out.count > maxBytes { throw .outputLimit(maxBytes) }
        } catch {
            for tree in temporaries { Make.release(tree) }
            throw error
        }
        for tree in temporaries { Make.release(tree) }
        return out
    }

    private mutating func writeAll(_ root: Node) throws(ReshapeError) {
        var stack: [Frame] = []
        try writeValue(root, stack: &stack)
        while let top = stack.popLast() {
            if out.count > maxBytes { throw .outputLimit(maxBytes) }
            switch top {
            case .object(let node, let iterator, let first):
                guard let iterator else {
                    if !first { newline(depth: stack.count) }
                    out.append(UInt8(ascii: "}"))
                    continue
                }
                if !first { out.append(UInt8(ascii: ",")) }
                newline(depth: stack.count + 1)
                let key = KeyBytes(start: json_object_iter_key(iterator), count: json_object_iter_key_len(iterator))
                writeString(key)
                if pretty { out.append(": " as StaticString) } else { out.append(UInt8(ascii: ":")) }
                let value = json_object_iter_value(iterator)
                stack.append(.object(node, iterator: json_object_iter_next(node, iterator), first: false))
                if let value { try writeValue(value, stack: &stack) } else { out.append("null" as StaticString) }
            case .array(let node, let index, let count):
                guard index < count else {
                    if count > 0 { newline(depth: stack.count) }
                    out.append(UInt8(ascii: "]"))
                    continue
                }
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(depth: stack.count + 1)
                stack.append(.array(node, index: index + 1, count: count))
                if let value = json_array_get(node, index) { try writeValue(value, stack: &stack) } else { out.append("null" as StaticString) }
            }
        }
    }

    /// Writes a scalar, or opens a container and pushes its frame.
    private mutating func writeValue(_ node: Node, stack: inout [Frame]) throws(ReshapeError) {
        if let hole, node == hole {
            holeOffset = out.count
            return
        }
        switch pointee(node) {
        case JSON_OBJECT:
            guard stack.count + baseDepth < maxDepth else { throw .depthLimit(maxDepth, output: true) }
            out.append(UInt8(ascii: "{"))
            if json_object_size(node) == 0 {
                out.append(UInt8(ascii: "}"))
            } else {
                stack.append(.object(node, iterator: json_object_iter(node), first: true))
            }
        case JSON_ARRAY:
            guard stack.count + baseDepth < maxDepth else { throw .depthLimit(maxDepth, output: true) }
            out.append(UInt8(ascii: "["))
            let count = json_array_size(node)
            if count == 0 {
                out.append(UInt8(ascii: "]"))
            } else {
                stack.append(.array(node, index: 0, count: count))
            }
        case JSON_STRING:
            // A string node holds a string or a raw value (see `RawValue`): each by its kind.
            switch node.kind {
            case .rawNumber:
                out.append(node.rawText)
            case .rawObject, .rawArray:
                // A raw value's text is exactly the compact form; pretty output needs its tree.
                if pretty {
                    let tree = try RawValue.tree(of: node)
                    temporaries.append(tree)
                    try writeValue(tree, stack: &stack)
                } else {
                    let text = node.rawText
                    // Only a raw value long enough to nest past the limit here is measured.
                    let depth = stack.count + baseDepth
                    if depth + (text.count + 1) / 2 > maxDepth, depth + RawValue.depth(of: text) > maxDepth {
                        throw .depthLimit(maxDepth, output: true)
                    }
                    out.append(text)
                }
            default:
                writeString(node.stringBytes)
            }
            if out.count > maxBytes { throw .outputLimit(maxBytes) }
        case JSON_INTEGER:
            NumberText.append(json_integer_value(node), to: &out)
        case JSON_REAL:
            NumberText.append(json_real_value(node), to: &out)
        case JSON_TRUE:
            out.append("true" as StaticString)
        case JSON_FALSE:
            out.append("false" as StaticString)
        default:
            out.append("null" as StaticString)
        }
    }

    private func pointee(_ node: Node) -> json_type { node.pointee.type }

    private mutating func newline(depth: Int) {
        guard pretty else { return }
        out.append(UInt8(ascii: "\n"))
        out.append(repeating: UInt8(ascii: " "), count: (depth + baseDepth) * 2)
    }

    private mutating func writeString(_ bytes: UnsafeRawBufferPointer) {
        JSONText.appendQuoted(bytes, to: &out)
    }
}

