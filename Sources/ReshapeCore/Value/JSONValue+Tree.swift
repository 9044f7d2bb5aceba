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
        defer { json_decref(root) }
        self = try JSONValue(node: root)
    }

    /// The value as JSON text, written as the engine writes its output.
    /// - Parameter pretty: indent with two spaces.
    /// - Throws: `invalid_argument` for a `.double` that is not finite or a `.number` whose text is
    ///   not a JSON number.
    public func json(pretty: Bool = false) throws(ReshapeError) -> [UInt8] {
        let node = try makeNode()
        defer { json_decref(node) }
        return try JSONWriter(pretty: pretty).write(node).toArray()
    }

    /// Copies a node (borrowed).
    init(node: Node) throws(ReshapeError) {
        switch node.kind {
        case .object:
            var object = JSONObject()
            try node.forEachMember { (key, value) throws(ReshapeError) in
                object[String(jsonBytes: key)] = try JSONValue(node: value)
            }
            self = .object(object)
        case .array:
            var elements: [JSONValue] = []
            elements.reserveCapacity(node.arrayCount)
            for index in 0..<node.arrayCount {
                guard let element = node.element(index) else { continue }
                elements.append(try JSONValue(node: element))
            }
            self = .array(elements)
        case .rawObject, .rawArray:
            let tree = try RawValue.materialized(node)
            defer { json_decref(tree) }
            self = try JSONValue(node: tree)
        case .string: self = .string(String(jsonBytes: node.stringBytes))
        case .integer: self = .integer(node.integerValue)
        case .real: self = .double(node.realValue)
        case .rawNumber: self = .number(String(jsonBytes: node.rawText))
        case .bool: self = .bool(node.isTrue)
        case .null: self = .null
        }
    }

    /// A new node holding this value.
    func makeNode() throws(ReshapeError) -> Node {
        switch self {
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
        case .array(let elements):
            let array = try Make.array()
            do throws(ReshapeError) {
                for element in elements { try Make.append(array, try element.makeNode()) }
            } catch {
                Make.release(array)
                throw error
            }
            return array
        case .object(let object):
            let node = try Make.object()
            do throws(ReshapeError) {
                for member in object { try Make.set(node, member.key, try member.value.makeNode()) }
            } catch {
                Make.release(node)
                throw error
            }
            return node
        }
    }
}

extension Rules {
    /// Reshapes an untyped value.
    /// - Throws: `ReshapeError` (`rule_failed`, `invalid_argument` for values JSON cannot hold).
    public func apply(to value: JSONValue) throws(ReshapeError) -> JSONValue {
        let document = Document(root: try value.makeNode())
        try run(on: document)
        return try JSONValue(node: document.root)
    }
}
