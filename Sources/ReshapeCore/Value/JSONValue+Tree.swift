internal import CJansson

/// Moving values between `JSONValue` and jansson's tree, and so to and from JSON text through the
/// engine's reader and writer.
extension JSONValue {
    /// Reads JSON text, keeping member order and every number.
    /// - Parameters:
    ///   - json: UTF-8 JSON text.
    ///   - allowDuplicateKeys: let the last of duplicate members win instead of failing.
    /// - Throws: `ReshapeError` (`invalid_json`, `limit_exceeded`).
    public init(json: [UInt8], allowDuplicateKeys: Bool = false) throws(ReshapeError) {
        self = try json.withUnsafeBytesTyped { (bytes) throws(ReshapeError) in
            try JSONValue(json: bytes, allowDuplicateKeys: allowDuplicateKeys)
        }
    }

    /// Reads JSON text, keeping member order and every number.
    public init(json: String, allowDuplicateKeys: Bool = false) throws(ReshapeError) {
        self = try json.withUTF8Bytes { (bytes) throws(ReshapeError) in
            try JSONValue(json: bytes, allowDuplicateKeys: allowDuplicateKeys)
        }
    }

    /// Reads JSON text from memory the caller owns.
    public init(json: UnsafeRawBufferPointer, allowDuplicateKeys: Bool = false) throws(ReshapeError) {
        let root = try JSONParser.parse(json, allowDuplicateKeys: allowDuplicateKeys)
        defer { Tree.release(root) }
        self = try JSONValue(node: root)
    }

    /// The value as JSON text, written as the engine writes its output.
    /// - Parameter pretty: indent with two spaces.
    /// - Throws: `invalid_argument` for a `.double` that is not finite or a `.number` whose text is
    ///   not a JSON number.
    public func json(pretty: Bool = false) throws(ReshapeError) -> [UInt8] {
        let node = try makeNode()
        defer { Tree.release(node) }
        return try JSONWriter(pretty: pretty).write(node).toArray()
    }

    /// Copies a node (borrowed), without recursion on depth.
    init(node: Node) throws(ReshapeError) {
        guard let container = try ContainerBuilder(node) else {
            self = Self.scalar(node)
            return
        }
        var stack: [ContainerBuilder] = [container]
        while true {
            let top = stack.count - 1
            if let (key, child) = stack[top].nextChild() {
                do throws(ReshapeError) {
                    if let nested = try ContainerBuilder(child, key: key) {
                        stack.append(nested)
                    } else {
                        stack[top].add(Self.scalar(child), key: key)
                    }
                } catch {
                    for builder in stack { _ = builder.finish() }
                    throw error
                }
                continue
            }
            let finished = stack.removeLast()
            let value = finished.finish()
            guard !stack.isEmpty else {
                self = value
                return
            }
            stack[stack.count - 1].add(value, key: finished.key)
        }
    }

    /// A scalar node's value.
    private static func scalar(_ node: Node) -> JSONValue {
        switch node.kind {
        case .string: .string(String(jsonBytes: node.stringBytes))
        case .integer: .integer(node.integerValue)
        case .real: .double(node.realValue)
        case .rawNumber: .number(String(jsonBytes: node.rawText))
        case .bool: .bool(node.isTrue)
        case .null, .object, .array, .rawObject, .rawArray: .null
        }
    }

    /// A container being copied into a `JSONValue`.
    private struct ContainerBuilder {
        /// The node walked: the container itself, or a tree made from a raw value (owned then).
        let node: Node
        let owned: Bool
        /// The member name this container has in its parent, if the parent is an object.
        let key: String?
        var iterator: UnsafeMutableRawPointer?
        var index = 0
        var elements: [JSONValue] = []
        var object = JSONObject()

        /// Nil for a scalar.
        init?(_ node: Node, key: String? = nil) throws(ReshapeError) {
            switch node.kind {
            case .object, .array:
                self.node = node
                owned = false
            case .rawObject, .rawArray:
                self.node = try RawValue.tree(of: node)
                owned = true
            default:
                return nil
            }
            self.key = key
            if self.node.isObject {
                iterator = json_object_iter(self.node)
            } else {
                elements.reserveCapacity(self.node.arrayCount)
            }
        }

        /// The next member (with its name) or element, or nil when all are done.
        mutating func nextChild() -> (String?, Node)? {
            if node.isObject {
                while let current = iterator {
                    iterator = json_object_iter_next(node, current)
                    let key = KeyBytes(start: json_object_iter_key(current), count: json_object_iter_key_len(current))
                    if let value = json_object_iter_value(current) { return (String(jsonBytes: key), value) }
                }
                return nil
            }
            while index < node.arrayCount {
                index += 1
                if let value = node.storedElement(index - 1) { return (nil, value) }
            }
            return nil
        }

        mutating func add(_ value: JSONValue, key: String?) {
            if let key { object[key] = value } else { elements.append(value) }
        }

        /// The finished value; releases a tree made from a raw value.
        func finish() -> JSONValue {
            defer { if owned { Tree.release(node) } }
            return node.isObject ? .object(object) : .array(elements)
        }
    }

    /// A new node holding this value, built without recursion on depth.
    func makeNode() throws(ReshapeError) -> Node {
        let root = try Self.shallowNode(self)
        var pending: [(value: JSONValue, node: Node)] = [(self, root)]
        do throws(ReshapeError) {
            while let (value, node) = pending.popLast() {
                switch value {
                case .array(let elements):
                    for element in elements {
                        let child = try Self.shallowNode(element)
                        try Make.append(node, child)
                        pending.append((element, child))
                    }
                case .object(let object):
                    for member in object {
                        let child = try Self.shallowNode(member.value)
                        try Make.set(node, member.key, child)
                        pending.append((member.value, child))
                    }
                default:
                    break
                }
            }
        } catch {
            Make.release(root)
            throw error
        }
        return root
    }

    /// A scalar's node, or an empty container for an array or object.
    private static func shallowNode(_ value: JSONValue) throws(ReshapeError) -> Node {
        switch value {
        case .null: return Make.null()
        case .bool(let flag): return Make.bool(flag)
        case .integer(let integer): return try Make.integer(integer)
        case .double(let real):
            guard real.isFinite else { throw ReshapeError(.invalidArgument, "JSON has no \(real)") }
            return try Make.real(real)
        case .number(let text):
            return try text.withUTF8Bytes { (bytes) throws(ReshapeError) -> Node in
                guard let literal = NumberLiteral.exact(bytes) else {
                    throw ReshapeError(.invalidArgument, "\(quoted(text)) is not a JSON number")
                }
                return try literal.makeNode()
            }
        case .string(let text): return try Make.string(text)
        case .array: return try Make.array()
        case .object: return try Make.object()
        }
    }
}

extension Rules {
    /// Reshapes an untyped value.
    /// - Throws: `ReshapeError` (`rule_failed`, `invalid_argument` for values JSON cannot hold).
    public func apply(to value: JSONValue) throws(ReshapeError) -> JSONValue {
        let document = Document(root: try value.makeNode(), inputBytes: 0, limits: limits.resolved(inputBytes: 0))
        try run(on: document)
        return try JSONValue(node: document.root)
    }
}
