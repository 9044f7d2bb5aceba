internal import CJansson

/// Raw values: objects and arrays kept as their canonical text, and numbers kept as their exact
/// text. They are kinds of their own (`NodeKind.rawObject`, `.rawArray`, `.rawNumber`) and this
/// file is the only one that knows how they are stored.
///
/// Objects and arrays no rule looks inside (Firebase records that only move, an envelope's payload
/// that is only unwrapped) are captured by the parser as their canonical text, the exact bytes the
/// writer would write for their tree, after checking them as strictly as everything else; they
/// never become thousands of jansson nodes, so they cost no allocations to build or free, and the
/// writer copies them. Numbers the engine cannot hold exactly (integers beyond 64 bits, reals
/// outside a double's range) travel as their text, so they pass through unchanged.
///
/// Code never has to remember any of this. The accessors that read children (`Node+Children.swift`)
/// make a raw object or array a tree in place the first time it is looked into, so rules only ever
/// see trees; the writer writes raw text as it is; and the few places that deal with raw values on
/// purpose (`keyedToArray` putting an id in front of a record's text, the writer, `JSONValue`)
/// switch on `kind`, where each raw kind is a case of its own. `RawAccess` decides from the rules
/// where raw values may be made at all.
///
/// Storage: jansson has no values of a caller's own type (its free, copy and setters switch over
/// its own types, and would leak or refuse any other), so a raw value is a jansson string node
/// whose first byte is a marker no string read from JSON can start with (0xFE and 0xFF are never
/// valid UTF-8), followed by the text. Only this file reads or writes the markers.
enum RawValue {
    /// The marker of a raw number.
    private static let numberMarker: UInt8 = 0xFF
    /// The marker of a raw object or array.
    private static let containerMarker: UInt8 = 0xFE

    // MARK: - Kinds and text

    /// The kind of a jansson string node: `.string`, or the raw kind it stores.
    static func kind(ofStringNode node: Node) -> NodeKind {
        let length = json_string_length(node)
        guard length > 1, let value = json_string_value(node) else { return .string }
        switch UInt8(bitPattern: value[0]) {
        case numberMarker: return .rawNumber
        case containerMarker: return value[1] == CChar(UInt8(ascii: "{")) ? .rawObject : .rawArray
        default: return .string
        }
    }

    /// The text of a raw number, object or array (borrowed, valid while the node lives).
    static func text(of node: Node) -> UnsafeRawBufferPointer {
        let bytes = UnsafeRawBufferPointer(start: json_string_value(node), count: json_string_length(node))
        return UnsafeRawBufferPointer(rebasing: bytes.dropFirst())
    }

    // MARK: - Making raw values

    /// New reference to a number that only travels as its text (valid JSON number text).
    static func number(_ text: UnsafeRawBufferPointer) throws(ReshapeError) -> Node {
        var bytes = ByteBuffer(capacity: text.count + 1)
        bytes.append(numberMarker)
        bytes.append(text)
        return try bytes.withBytes { (stored) throws(ReshapeError) in try Make.string(stored) }
    }

    /// Starts `buffer` for a raw object or array whose canonical text is appended next; the node
    /// is then `container(from:)`. Lets the parser and `keyedToArray` write the text once.
    static func startContainer(in buffer: inout ByteBuffer) {
        buffer.removeAll()
        buffer.append(containerMarker)
    }

    /// New reference to the raw object or array whose canonical text follows `startContainer` in
    /// `buffer`.
    static func container(from buffer: borrowing ByteBuffer) throws(ReshapeError) -> Node {
        try buffer.withBytes { (stored) throws(ReshapeError) in try Make.string(stored) }
    }

    /// A new tree (owned) for a raw object or array (borrowed); any other node is returned retained.
    static func tree(of node: Node) throws(ReshapeError) -> Node {
        switch node.kind {
        case .rawObject, .rawArray:
            // The text was checked against the document's depth limit, where it stands, when it
            // was captured; a limit here (the default one, whatever the caller set) could only
            // refuse what the document allows.
            return try JSONParser.parse(text(of: node), maxDepth: .max)
        default: return Make.retain(node)
        }
    }

    // MARK: - Reading canonical text

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
}
