internal import CJansson

/// Reading a container's children, as rules read them.
///
/// A child that is a raw object or array (see `RawValue`) is made a tree in place, in its parent,
/// the first time one of these accessors reaches it; so what they return is never raw text, and no
/// rule has to remember that raw values exist. The raw value replaced is freed: a borrowed pointer
/// to it, taken earlier through a `stored` accessor, must not be used afterwards.
///
/// Code that only moves values without looking into them, frees or copies trees, or reads names,
/// uses the `stored` accessors of `Node.swift` instead, which leave raw values as they are.
extension UnsafeMutablePointer where Pointee == json_t {
    /// Borrowed: the member named `key`, never raw; nil when there is none.
    func member(_ key: KeyBytes) throws(ReshapeError) -> Node? {
        guard let value = storedMember(key) else { return nil }
        guard value.kind.isRawContainer else { return value }
        let tree = try RawValue.tree(of: value)
        try Tree.set(self, key, tree)
        return tree
    }

    /// Borrowed: the element at `index`, never raw; nil past the end.
    func element(_ index: Int) throws(ReshapeError) -> Node? {
        guard let value = storedElement(index) else { return nil }
        guard value.kind.isRawContainer else { return value }
        let tree = try RawValue.tree(of: value)
        try Tree.replaceElement(of: self, at: index, with: tree)
        return tree
    }

    /// Borrowed: the value of the member at `iterator` (an iterator of this object), never raw.
    func memberValue(at iterator: UnsafeMutableRawPointer) throws(ReshapeError) -> Node? {
        guard let value = json_object_iter_value(iterator) else { return nil }
        guard value.kind.isRawContainer else { return value }
        let tree = try RawValue.tree(of: value)
        try Tree.replaceMember(of: self, at: iterator, with: tree)
        return tree
    }

    /// Calls `body` with each member in order; values are borrowed and never raw.
    func forEachMember(_ body: (KeyBytes, Node) throws(ReshapeError) -> Void) throws(ReshapeError) {
        var iterator = json_object_iter(self)
        while let current = iterator {
            let key = KeyBytes(start: json_object_iter_key(current), count: json_object_iter_key_len(current))
            if let value = try memberValue(at: current) {
                try body(key, value)
            }
            iterator = json_object_iter_next(self, current)
        }
    }
}
