/// Bytes two values share exactly when they are equal as JSON (`mapValues`, filters' `==`): a letter for the
/// kind, numbers by `NumberLiteral.valueKey`, strings and names by length and bytes, object
/// members sorted by name. Built with an explicit stack, never recursion.
enum ValueKey {
    /// The key of `node`.
    static func of(_ node: Node) throws(ReshapeError) -> [UInt8] {
        var key: [UInt8] = []
        try append(node, to: &key, charging: nil)
        return key
    }

    static func append(_ root: Node, to key: inout [UInt8], charging document: Document?) throws(ReshapeError) {
        enum Frame {
            case elements(Node, next: Int)
            case members([(name: [UInt8], value: Node)], next: Int)
        }
        var stack: [Frame] = []
        // Trees made here of raw text (a value the selection did not make a tree; values below
        // come through the accessors that make them trees in place).
        var made: [Node] = []
        defer { for node in made { Make.release(node) } }
        var value: Node? = root
        while true {
            if let node = value {
                value = nil
                try document?.charge(1)
                switch node.kind {
                case .null: null(to: &key)
                case .bool: bool(node.isTrue, to: &key)
                case .integer: number(Array(String(node.integerValue).utf8), to: &key)
                case .real: number(Array(NumberText.text(of: node.realValue).utf8), to: &key)
                case .rawNumber: number(Array(node.rawText), to: &key)
                case .string:
                    let bytes = node.stringBytes
                    try document?.charge(bytes.count / 16)
                    text(bytes, to: &key)
                case .array, .rawArray:
                    let array = node.kind == .array ? node : try RawValue.tree(of: node)
                    if array != node { made.append(array) }
                    key.append(UInt8(ascii: "["))
                    stack.append(.elements(array, next: 0))
                case .object, .rawObject:
                    let object = node.kind == .object ? node : try RawValue.tree(of: node)
                    if object != node { made.append(object) }
                    var members: [(name: [UInt8], value: Node)] = []
                    try object.forEachMember { (name, member) throws(ReshapeError) in members.append((Array(name), member)) }
                    members.sort { $0.name.lexicographicallyPrecedes($1.name) }
                    key.append(UInt8(ascii: "{"))
                    stack.append(.members(members, next: 0))
                }
            }
            guard let top = stack.popLast() else { return }
            switch top {
            case .elements(let array, let next):
                if let element = try array.element(next) {
                    stack.append(.elements(array, next: next + 1))
                    value = element
                } else {
                    key.append(UInt8(ascii: "]"))
                }
            case .members(let members, let next):
                if next < members.count {
                    stack.append(.members(members, next: next + 1))
                    members[next].name.withUnsafeBytes { text($0, to: &key) }
                    value = members[next].value
                } else {
                    key.append(UInt8(ascii: "}"))
                }
            }
        }
    }

    /// The key of the value whose tokens are `tokens[value]` (a record's, see `RecordToken`), the
    /// same bytes as the key of its tree: one value's encodings, written once for both. Nil when
    /// an object has a name twice (the tree decides those).
    static func append(_ tokens: ArraySlice<RecordToken>, _ value: Range<Int>, to key: inout [UInt8]) -> Bool {
        // Each container open: its elements, or its members sorted by name, and the next one.
        var stack: [(values: [Range<Int>], isObject: Bool, next: Int)] = []
        var pending: Range<Int>? = value
        while true {
            if let range = pending {
                pending = nil
                let token = tokens[range.lowerBound]
                switch token.kind {
                case .null: null(to: &key)
                case .bool: bool(token.flag, to: &key)
                case .number: number(token.bytes, to: &key)
                case .string: text(token.bytes, to: &key)
                case .arrayStart:
                    key.append(UInt8(ascii: "["))
                    stack.append((Array(ValueHolding.elements(of: tokens[range])), false, 0))
                case .objectStart:
                    var members = Array(ValueHolding.members(of: tokens[range]))
                    members.sort { tokens[$0.name].bytes.lexicographicallyPrecedes(tokens[$1.name].bytes) }
                    for index in members.indices.dropFirst() where tokens[members[index].name].bytes.sameBytes(as: tokens[members[index - 1].name].bytes) {
                        return false
                    }
                    key.append(UInt8(ascii: "{"))
                    // Each member as two ranges: its name, then its value.
                    var values: [Range<Int>] = []
                    values.reserveCapacity(2 * members.count)
                    for member in members {
                        values.append(member.name..<member.name + 1)
                        values.append(member.value)
                    }
                    stack.append((values, true, 0))
                case .name, .objectEnd, .arrayEnd:
                    return false
                }
            }
            guard let top = stack.popLast() else { return true }
            if top.next < top.values.count {
                if top.isObject {
                    text(tokens[top.values[top.next].lowerBound].bytes, to: &key)
                    stack.append((top.values, true, top.next + 2))
                    pending = top.values[top.next + 1]
                } else {
                    stack.append((top.values, false, top.next + 1))
                    pending = top.values[top.next]
                }
            } else {
                key.append(UInt8(ascii: top.isObject ? "}" : "]"))
            }
        }
    }

    private static func null(to key: inout [UInt8]) { key.append(UInt8(ascii: "n")) }

    private static func bool(_ flag: Bool, to key: inout [UInt8]) { key.append(flag ? UInt8(ascii: "t") : UInt8(ascii: "f")) }

    private static func number(_ text: [UInt8], to key: inout [UInt8]) {
        text.withUnsafeBytes { number($0, to: &key) }
    }

    private static func number(_ text: UnsafeRawBufferPointer, to key: inout [UInt8]) {
        key.append(UInt8(ascii: "#"))
        NumberLiteral.appendValueKey(of: text, to: &key)
        key.append(UInt8(ascii: ";"))
    }

    private static func text(_ bytes: UnsafeRawBufferPointer, to key: inout [UInt8]) {
        key.append(UInt8(ascii: "s"))
        NumberLiteral.appendDecimal(bytes.count, to: &key)
        key.append(UInt8(ascii: ":"))
        key += bytes
    }
}
