internal import CJansson

/// A value in jansson's tree. The engine owns references explicitly: every function says whether it
/// steals, borrows or returns a new reference.
typealias Node = UnsafeMutablePointer<json_t>

/// A member name as bytes; valid while its member exists.
typealias KeyBytes = UnsafeRawBufferPointer

/// What a node holds, as rules see it.
enum NodeKind {
    case object, array, string, integer, real, bool, null
    /// A number kept as its exact text: beyond 64-bit integers or a double's range (see `RawValue`).
    case rawNumber
    /// An object or array still held as its canonical text (see `RawValue`). The accessors that
    /// read children never return one: they make it a tree first.
    case rawObject, rawArray

    /// "an object", "a string": for messages (see `ValueKinds.described`).
    var described: String { ValueKinds(self).described }

    /// True for an object or array held as text.
    var isRawContainer: Bool { self == .rawObject || self == .rawArray }
}

extension UnsafeMutablePointer where Pointee == json_t {
    /// What the node is; raw values are kinds of their own.
    var kind: NodeKind {
        switch pointee.type {
        case JSON_OBJECT: return .object
        case JSON_ARRAY: return .array
        case JSON_STRING: return RawValue.kind(ofStringNode: self)
        case JSON_INTEGER: return .integer
        case JSON_REAL: return .real
        case JSON_TRUE, JSON_FALSE: return .bool
        default: return .null
        }
    }

    /// An object as a tree (never a raw object: see `kind`).
    var isObject: Bool { pointee.type == JSON_OBJECT }
    /// An array as a tree (never a raw array: see `kind`).
    var isArray: Bool { pointee.type == JSON_ARRAY }
    var isNull: Bool { pointee.type == JSON_NULL }
    var isTrue: Bool { pointee.type == JSON_TRUE }

    /// The bytes of a string; only for `kind == .string`.
    var stringBytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: json_string_value(self), count: json_string_length(self))
    }

    /// The text of a raw number, object or array; only for those kinds.
    var rawText: UnsafeRawBufferPointer { RawValue.text(of: self) }

    var integerValue: Int64 { json_integer_value(self) }
    var realValue: Double { json_real_value(self) }

    var objectCount: Int { json_object_size(self) }
    var arrayCount: Int { json_array_size(self) }

    // The children as stored: a raw object or array stays raw text. For code that moves values
    // without looking into them, frees or copies trees, or reads names only; rules read children
    // through the accessors of `Node+Children.swift`, which never return raw text.

    /// Borrowed: the element at `index`, as stored.
    func storedElement(_ index: Int) -> Node? { json_array_get(self, index) }

    /// Borrowed: the member named `key`, as stored.
    func storedMember(_ key: KeyBytes) -> Node? {
        json_object_getn(self, key.baseAddress?.assumingMemoryBound(to: CChar.self) ?? emptyKey, key.count)
    }

    /// Calls `body` with each member in order, values as stored (borrowed).
    func forEachStoredMember<E: Error>(_ body: (KeyBytes, Node) throws(E) -> Void) throws(E) {
        var iterator = json_object_iter(self)
        while let current = iterator {
            let key = KeyBytes(start: json_object_iter_key(current), count: json_object_iter_key_len(current))
            if let value = json_object_iter_value(current) {
                try body(key, value)
            }
            iterator = json_object_iter_next(self, current)
        }
    }

    /// Calls `body` with each member name in order.
    func forEachMemberName(_ body: (KeyBytes) -> Void) {
        forEachStoredMember { key, _ in body(key) }
    }
}

/// A valid, empty C string for zero-length keys whose buffer has no base address.
var emptyKey: UnsafePointer<CChar> {
    UnsafeRawPointer(("" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)
}

/// Creating and linking nodes. Every function that can fail on memory throws `out_of_memory`.
enum Make {
    /// New reference.
    static func object() throws(ReshapeError) -> Node {
        guard let node = json_object() else { throw .outOfMemory() }
        return node
    }

    /// New reference.
    static func array() throws(ReshapeError) -> Node {
        guard let node = json_array() else { throw .outOfMemory() }
        return node
    }

    /// New reference to a string holding `bytes` as they are (already valid UTF-8).
    static func string(_ bytes: UnsafeRawBufferPointer) throws(ReshapeError) -> Node {
        let start = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) ?? emptyKey
        guard let node = json_stringn_nocheck(start, bytes.count) else { throw .outOfMemory() }
        return node
    }

    /// New reference to a string.
    static func string(_ text: String) throws(ReshapeError) -> Node {
        try text.withUTF8Bytes { (bytes) throws(ReshapeError) -> Node in try string(bytes) }
    }

    /// New reference.
    static func integer(_ value: Int64) throws(ReshapeError) -> Node {
        guard let node = json_integer(value) else { throw .outOfMemory() }
        return node
    }

    /// New reference. `value` must be finite.
    static func real(_ value: Double) throws(ReshapeError) -> Node {
        guard let node = json_real(value) else { throw .outOfMemory() }
        return node
    }

    static func bool(_ value: Bool) -> Node { value ? json_true() : json_false() }

    static func null() -> Node { json_null() }

    /// A `null` or boolean of its own, like `shared` (jansson's one of each), for tracing, where
    /// every value is a node: jansson never counts or frees it (its count is the shared one's,
    /// `(size_t)-1`), and the caller deallocates it once no tree holds it.
    static func ownLiteral(like shared: Node) -> Node {
        let own = UnsafeMutablePointer<json_t>.allocate(capacity: 1)
        own.initialize(to: json_t(type: shared.pointee.type, refcount: shared.pointee.refcount))
        return own
    }

    /// Sets `object[key] = value`, stealing `value` (also on failure). Returns false if `key` was
    /// already present (the value then replaced the old one in place, keeping its position; the
    /// old value is freed without recursion).
    @discardableResult
    static func set(_ object: Node, _ key: KeyBytes, _ value: Node) throws(ReshapeError) -> Bool {
        try Tree.set(object, key, value)
    }

    /// Sets `object[key] = value` for a Swift string key, stealing `value`.
    @discardableResult
    static func set(_ object: Node, _ key: String, _ value: Node) throws(ReshapeError) -> Bool {
        try key.withUTF8Bytes { (bytes) throws(ReshapeError) -> Bool in try set(object, bytes, value) }
    }

    /// Removes the member named `key`. Returns false if there was none.
    static func removeMember(_ object: Node, _ key: KeyBytes) -> Bool {
        Tree.removeMember(of: object, named: key)
    }

    /// Appends `value` to `array`, stealing it (also on failure).
    static func append(_ array: Node, _ value: Node) throws(ReshapeError) {
        guard json_array_append_new(array, value) == 0 else { throw .outOfMemory() }
    }

    /// Borrowed reference made owned.
    static func retain(_ node: Node) -> Node {
        _ = json_incref(node)
        return node
    }

    /// Releases an owned reference; a tree whose last reference this is is freed without recursion.
    static func release(_ node: Node?) {
        Tree.release(node)
    }
}

extension String {
    /// A Swift string from member-name or string-value bytes.
    init(jsonBytes bytes: UnsafeRawBufferPointer) {
        self = String(decoding: bytes, as: UTF8.self)
    }

    /// Calls `body` with the string's UTF-8 bytes, keeping the error type.
    func withUTF8Bytes<R>(_ body: (UnsafeRawBufferPointer) throws(ReshapeError) -> R) throws(ReshapeError) -> R {
        var copy = self
        let result = copy.withUTF8 { utf8 in
            Result { () throws(ReshapeError) -> R in try body(UnsafeRawBufferPointer(utf8)) }
        }
        return try result.get()
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes`, keeping the error type.
    func withUnsafeBytesTyped<R>(_ body: (UnsafeRawBufferPointer) throws(ReshapeError) -> R) throws(ReshapeError) -> R {
        let result = withUnsafeBytes { bytes in Result { () throws(ReshapeError) -> R in try body(bytes) } }
        return try result.get()
    }
}
