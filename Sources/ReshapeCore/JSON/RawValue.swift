internal import CJansson

/// Objects and arrays kept as text: the engine's fast path for the parts of a document no rule
/// looks inside (Firebase records that only move, an envelope's payload that is only unwrapped).
///
/// The parser captures such a container as its canonical text, the exact bytes the writer would
/// write for it, after checking it as strictly as everything else; it never becomes thousands of
/// jansson nodes, so it costs no allocations to build or free, and the writer copies it. Anything
/// that needs to look inside one turns it into a tree first with `materialized`, so a raw value
/// means exactly what its tree means. `RawDepth` decides from the rules where this is safe.
enum RawValue {
    /// A new tree (owned) for a raw value (borrowed); other nodes are returned retained.
    static func materialized(_ node: Node) throws(ReshapeError) -> Node {
        guard node.isRawValue else { return Make.retain(node) }
        return try JSONParser.parse(node.rawText)
    }

    /// Whether the canonical text of an object has a member whose quoted name is `quotedName`
    /// (canonical text writes each name one way, so comparing bytes compares names).
    static func object(_ text: UnsafeRawBufferPointer, hasMemberQuoted quotedName: UnsafeRawBufferPointer) -> Bool {
        var index = 1  // past "{"
        while index < text.count, text[index] == UInt8(ascii: "\"") {
            let nameEnd = endOfString(text, from: index)
            if nameEnd - index == quotedName.count, text[index..<nameEnd].elementsEqual(quotedName) { return true }
            index = endOfValue(text, from: nameEnd + 1) + 1  // past ":" and the value, then past ","
        }
        return false
    }

    /// The nesting depth of canonical text: 1 for `{}` or `[1]`, 2 for `[[1]]`.
    static func depth(of text: UnsafeRawBufferPointer) -> Int {
        var deepest = 0
        var depth = 0
        var index = 0
        while index < text.count {
            switch text[index] {
            case UInt8(ascii: "\""):
                index = endOfString(text, from: index)
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
            default:
                break
            }
            index += 1
        }
        return deepest
    }

    /// The offset after the string starting with the quote at `start`.
    private static func endOfString(_ text: UnsafeRawBufferPointer, from start: Int) -> Int {
        var index = start + 1
        while index < text.count {
            switch text[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return index
    }

    /// The offset after the value starting at `start` in canonical text (no white space).
    private static func endOfValue(_ text: UnsafeRawBufferPointer, from start: Int) -> Int {
        var index = start
        var depth = 0
        while index < text.count {
            switch text[index] {
            case UInt8(ascii: "\""):
                index = endOfString(text, from: index)
                if depth == 0 { return index }
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return index }
                depth -= 1
                if depth == 0 { return index + 1 }
            case UInt8(ascii: ","):
                if depth == 0 { return index }
            default:
                break
            }
            index += 1
        }
        return index
    }

    /// Makes the raw value in `object`'s member at `iterator` (if it is one) a tree, in place.
    /// Returns the member's value.
    static func materializeMember(of object: Node, at iterator: UnsafeMutableRawPointer) throws(ReshapeError) -> Node? {
        guard let value = json_object_iter_value(iterator) else { return nil }
        guard value.isRawValue else { return value }
        let tree = try materialized(value)
        try Tree.replaceMember(of: object, at: iterator, with: tree)
        return tree
    }

    /// Makes the raw value in `object`'s member `name` (if it is one) a tree, in place. Returns
    /// the member's value.
    static func materializeMember(of object: Node, named name: KeyBytes) throws(ReshapeError) -> Node? {
        guard let value = object.member(name) else { return nil }
        guard value.isRawValue else { return value }
        let tree = try materialized(value)
        try Make.set(object, name, tree)
        return tree
    }

    /// Makes the raw value at `index` of `array` (if it is one) a tree, in place. Returns the element.
    static func materializeElement(of array: Node, at index: Int) throws(ReshapeError) -> Node? {
        guard let value = json_array_get(array, index) else { return nil }
        guard value.isRawValue else { return value }
        let tree = try materialized(value)
        try Tree.replaceElement(of: array, at: index, with: tree)
        return tree
    }

    /// Makes every raw value in `object`'s members and `array`'s elements a tree, in place: for code
    /// about to walk all of a node's children.
    static func materializeChildren(of node: Node) throws(ReshapeError) {
        if node.isObject {
            var iterator = json_object_iter(node)
            while let current = iterator {
                _ = try materializeMember(of: node, at: current)
                iterator = json_object_iter_next(node, current)
            }
        } else if node.isArray {
            for index in 0..<node.arrayCount { _ = try materializeElement(of: node, at: index) }
        }
    }
}
