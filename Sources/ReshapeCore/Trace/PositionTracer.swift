internal import CJansson
internal import CSystem

/// Where each value of a parsed input starts, by node: what `PositionTracer` looks its failing
/// value up in. Holds a reference to every node it lists, so that no address is reused while it
/// lives, and owns the `null`s and booleans the parse made for it (jansson shares one of each).
final class NodePositions {
    private var nodes: [Node] = []
    private var starts: [Int] = []
    private var ownLiterals: [Node] = []

    /// `node` (a new value of the parse) starts at byte `start` of the input.
    func record(_ node: Node, at start: Int) {
        nodes.append(Make.retain(node))
        starts.append(start)
    }

    /// A node of its own for a `null` or a boolean (`Make.ownLiteral`), deallocated by `release`.
    func ownNode(like shared: Node) -> Node {
        let own = Make.ownLiteral(like: shared)
        ownLiterals.append(own)
        return own
    }

    /// Where `node` starts in the input; nil when the parse did not make it.
    func start(of node: Node) -> Int? {
        // One look-up after a failure: a scan, not an index kept for every node.
        guard let found = nodes.lastIndex(of: node) else { return nil }
        return starts[found]
    }

    /// Releases the nodes, parents before children (each taken apart without recursion once
    /// its last reference goes), then the literals. Only once no tree holds those literals.
    func release() {
        for node in nodes { Make.release(node) }
        nodes = []
        for node in ownLiterals { node.deallocate() }
        ownLiterals = []
    }
}

/// Traces the value a rule failed on to the input for a document reshaped whole that is too
/// large for `SourceTracer`, which follows every value through every rule and takes about 40
/// times the input in memory. This one parses the input again, noting where each value starts
/// (16 bytes a value, and a reference that keeps what the rules drop), runs the rules before
/// the failing one, and looks up the node at the error's path: a value of the input has its
/// place (the path, found by reading the text to that byte, the line, the column); a value a
/// rule made has none (nil), and the renamings on the way are not listed.
enum PositionTracer {
    /// The source of `error`'s value, a failure of `rules` on `input`; nil for other errors,
    /// a value a rule made, or past the limits.
    static func source(of error: ReshapeError, rules: Rules, input: UnsafeRawBufferPointer, options: ApplyOptions) -> ValueSource? {
        guard error.code == .ruleFailed, error.rule > 0, !error.path.isEmpty, !options.contains(.inputLines),
            case .success(let path) = JSONPathParser.parse(error.path), path.isSingular
        else { return nil }
        // The tree the rules failed on is freed, but malloc keeps its memory for the thread that
        // used it; the trace runs on a thread of its own, with another arena. Given back first,
        // the trace's tree takes the place of the failed one rather than adding to it.
        csystem_trim_heap()
        return TraceThread.run { () -> ValueSource? in
            let positions = NodePositions()
            defer { positions.release() }
            let limits = rules.limits.resolved(inputBytes: input.count)
            var parser = JSONParser(
                text: input, allowDuplicateKeys: options.contains(.allowDuplicateKeys), errorCode: .invalidJSON, rawDepth: nil,
                maxDepth: limits.maxDepth)
            parser.positions = positions
            guard let root = try? parser.parseDocument() else { return nil }
            let document = Document(root: root, inputBytes: input.count, limits: limits)
            // The tree goes before the literals it holds.
            defer { document.replaceRoot(with: Make.null()) }
            for operation in rules.operations.prefix(error.rule - 1) {
                guard (try? operation.apply(to: document)) != nil else { return nil }
            }
            guard case .found(let node)? = try? path.resolve(in: document), let start = positions.start(of: node),
                let steps = InputLocator.steps(at: start, in: input)
            else { return nil }
            let position = TextPosition(of: start, in: input)
            return ValueSource(
                origin: .input, path: SourceTracer.text(of: steps), line: position.line, column: position.column, position: start)
        } ?? nil
    }
}

extension InputLocator {
    /// The steps from the root of `text` (valid JSON) to the value that starts at byte `offset`;
    /// nil when no value starts there. One pass over the text up to `offset`, holding a frame per
    /// open container.
    static func steps(at offset: Int, in text: UnsafeRawBufferPointer) -> [TraceStep]? {
        var parser = JSONParser(text: text, allowDuplicateKeys: true, errorCode: .invalidJSON, rawDepth: nil, maxDepth: Int.max)
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        // Each open container: an object's current member name, an array's current index.
        var frames: [(isObject: Bool, name: JSONParser.StringSpan, index: Int)] = []
        func readName() -> Bool {
            parser.skipWhitespace()
            guard parser.index < text.count, text[parser.index] == UInt8(ascii: "\""), let span = try? parser.scanString() else { return false }
            frames[frames.count - 1].name = span
            parser.skipWhitespace()
            guard parser.index < text.count, text[parser.index] == UInt8(ascii: ":") else { return false }
            parser.index += 1
            return true
        }
        while true {
            parser.skipWhitespace()
            guard parser.index < text.count, parser.index <= offset else { return nil }
            if parser.index == offset {
                var decoded = ByteBuffer()
                return frames.map { (frame) -> TraceStep in
                    guard frame.isObject else { return .index(frame.index) }
                    decoded.removeAll()
                    JSONParser.decodeEscapes(text, frame.name, into: &decoded)
                    return .name(decoded.withBytes { Array($0) })
                }
            }
            let byte = text[parser.index]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = byte == UInt8(ascii: "{")
                parser.index += 1
                parser.skipWhitespace()
                guard parser.index < text.count else { return nil }
                if text[parser.index] == UInt8(ascii: isObject ? "}" : "]") {
                    parser.index += 1
                } else {
                    frames.append((isObject, JSONParser.StringSpan(start: 0, end: 0, hasEscapes: false), 0))
                    if isObject { guard readName() else { return nil } }
                    continue
                }
            case UInt8(ascii: "\""):
                guard (try? parser.scanString()) != nil else { return nil }
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                guard parser.skipLiteral() != nil else { return nil }
            default:
                guard case .success(let (_, end)) = NumberLiteral.scan(text, from: parser.index) else { return nil }
                parser.index = end
            }
            // The value is complete: the next member or element, or the end of containers.
            while let top = frames.last {
                parser.skipWhitespace()
                guard parser.index < text.count else { return nil }
                if text[parser.index] == UInt8(ascii: ",") {
                    parser.index += 1
                    if top.isObject {
                        guard readName() else { return nil }
                    } else {
                        frames[frames.count - 1].index += 1
                    }
                    break
                }
                parser.index += 1  // the closing bracket
                frames.removeLast()
            }
            if frames.isEmpty { return nil }
        }
    }
}
