internal import CJansson

/// Freeing, copying and editing jansson trees without recursion.
///
/// jansson frees a tree recursively (`json_decref` of a container decrefs its children), and so do
/// `json_deep_copy` and every setter that replaces a value. A document 1000 levels deep then needs
/// more stack than a 64 KiB thread has. Every place the engine drops a reference to a tree, copies
/// one, or replaces or removes a value that may be a tree, goes through here instead: containers
/// are emptied one level at a time from an explicit stack, so only leaves and empty containers
/// ever reach jansson's own free.
enum Tree {
    /// The least a value added by a rule counts toward the output bound (see `Document.grow`):
    /// about what its node costs in memory, so that the bound also bounds memory.
    static let minimumValueBytes = 64

    /// Releases an owned reference. When it is the last one, the tree is freed without recursion.
    static func release(_ node: Node?) {
        guard let node else { return }
        guard hasChildren(node) else {
            json_decref(node)
            return
        }
        var pending: [Node] = [node]
        while let next = pending.popLast() {
            // Only the last owner takes a container apart; a shared one just loses a reference.
            if next.pointee.refcount == 1 { detachChildren(of: next, into: &pending) }
            json_decref(next)
        }
    }

    /// Moves the references `node` holds to its children that have children of their own onto
    /// `pending` (one more reference each), then empties `node`: what jansson frees now is a leaf
    /// or an empty container.
    private static func detachChildren(of node: Node, into pending: inout [Node]) {
        if node.isObject {
            var iterator = json_object_iter(node)
            while let current = iterator {
                if let value = json_object_iter_value(current), hasChildren(value) {
                    pending.append(Make.retain(value))
                }
                iterator = json_object_iter_next(node, current)
            }
            json_object_clear(node)
        } else if node.isArray {
            for index in 0..<node.arrayCount {
                if let value = node.storedElement(index), hasChildren(value) { pending.append(Make.retain(value)) }
            }
            json_array_clear(node)
        }
    }

    @inline(__always)
    private static func hasChildren(_ node: Node) -> Bool {
        switch node.pointee.type {
        case JSON_OBJECT: json_object_size(node) > 0
        case JSON_ARRAY: json_array_size(node) > 0
        default: false
        }
    }

    /// A new tree equal to `node` (borrowed): new objects and arrays, shared scalars (no op changes
    /// a scalar in place). Member names are copied with their length, so names holding U+0000 stay
    /// whole (`json_deep_copy` would cut them). Each value copied is a step of `document`'s work
    /// and a value added to its output.
    static func copy(_ node: Node, in document: Document) throws(ReshapeError) -> Node {
        try document.charge(1)
        try document.grow(OutputGrowth(values: 1, bytes: 1 + scalarBytes(node)))
        guard hasChildren(node) else { return try copyShallow(node) }
        let root = try copyShallow(node)
        var pending: [(source: Node, target: Node)] = [(node, root)]
        do throws(ReshapeError) {
            while let (source, target) = pending.popLast() {
                if source.isObject {
                    try document.charge(source.objectCount)
                    var iterator = json_object_iter(source)
                    while let current = iterator {
                        let key = KeyBytes(start: json_object_iter_key(current), count: json_object_iter_key_len(current))
                        if let value = json_object_iter_value(current) {
                            try document.grow(OutputGrowth(values: 1, bytes: key.count + 4 + scalarBytes(value)))
                            let child = try copyShallow(value)
                            try Make.set(target, key, child)
                            if hasChildren(value) { pending.append((value, child)) }
                        }
                        iterator = json_object_iter_next(source, current)
                    }
                } else {
                    try document.charge(source.arrayCount)
                    for index in 0..<source.arrayCount {
                        guard let value = source.storedElement(index) else { continue }
                        try document.grow(OutputGrowth(values: 1, bytes: 1 + scalarBytes(value)))
                        let child = try copyShallow(value)
                        try Make.append(target, child)
                        if hasChildren(value) { pending.append((value, child)) }
                    }
                }
            }
        } catch {
            release(root)
            throw error
        }
        return root
    }

    /// How many values `node` holds, itself included, counted without recursion.
    static func count(_ node: Node) -> Int {
        var count = 0
        var pending: [Node] = [node]
        while let next = pending.popLast() {
            count += 1
            if next.isObject {
                next.forEachStoredMember { _, value in pending.append(value) }
            } else if next.isArray {
                for index in 0..<next.arrayCount { if let value = next.storedElement(index) { pending.append(value) } }
            }
        }
        return count
    }

    /// An empty container of the same kind, or the scalar itself (retained).
    private static func copyShallow(_ node: Node) throws(ReshapeError) -> Node {
        switch node.pointee.type {
        case JSON_OBJECT: try Make.object()
        case JSON_ARRAY: try Make.array()
        default: Make.retain(node)
        }
    }

    /// The text size of a scalar (a string's bytes), for the output bound; 0 for containers.
    private static func scalarBytes(_ node: Node) -> Int {
        node.pointee.type == JSON_STRING ? json_string_length(node) + 2 : 0
    }

    // MARK: - Editing in place

    /// Sets `object[key] = value`, stealing `value` (also on failure), keeping the position of an
    /// existing member. Returns false if `key` was already present; its old value is released here.
    @discardableResult
    static func set(_ object: Node, _ key: KeyBytes, _ value: Node) throws(ReshapeError) -> Bool {
        let old = object.storedMember(key).map(Make.retain)
        defer { release(old) }
        let start = key.baseAddress?.assumingMemoryBound(to: CChar.self) ?? emptyKey
        guard json_object_setn_new_nocheck(object, start, key.count, value) == 0 else { throw .outOfMemory() }
        return old == nil
    }

    /// Replaces the value of the member at `iterator` of `object`, stealing `value` (also on failure).
    static func replaceMember(of object: Node, at iterator: UnsafeMutableRawPointer, with value: Node) throws(ReshapeError) {
        let old = json_object_iter_value(iterator).map(Make.retain)
        defer { release(old) }
        guard json_object_iter_set_new(object, iterator, value) == 0 else { throw .outOfMemory() }
    }

    /// Replaces element `index` of `array`, stealing `value` (also on failure).
    static func replaceElement(of array: Node, at index: Int, with value: Node) throws(ReshapeError) {
        let old = array.storedElement(index).map(Make.retain)
        defer { release(old) }
        guard json_array_set_new(array, index, value) == 0 else { throw .outOfMemory() }
    }

    /// Removes the member named `key`. Returns false if there was none.
    static func removeMember(of object: Node, named key: KeyBytes) -> Bool {
        guard let old = object.storedMember(key).map(Make.retain) else { return false }
        defer { release(old) }
        // The name's bytes may live in the member being deleted: copy them first.
        var name = ByteBuffer(capacity: key.count)
        name.append(key)
        let bytes = name.bytes
        let start = bytes.baseAddress?.assumingMemoryBound(to: CChar.self) ?? emptyKey
        return json_object_deln(object, start, bytes.count) == 0
    }

    /// Removes element `index` of `array`. Returns false if there was none.
    static func removeElement(of array: Node, at index: Int) -> Bool {
        guard let old = array.storedElement(index).map(Make.retain) else { return false }
        defer { release(old) }
        return json_array_remove(array, index) == 0
    }
}
