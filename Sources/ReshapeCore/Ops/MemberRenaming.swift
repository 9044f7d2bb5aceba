internal import CJansson

/// Renames members of objects in place, keeping their order, for `convertKeys` and `renameKeys`.
///
/// jansson cannot rename a member, and setting a new name would move it to the end, so an object
/// whose names change is rebuilt in order and its contents swapped in. Two members that would end
/// up with the same name are an error naming the renamed member.
struct MemberRenaming {
    /// The new name for a member, or nil to keep it.
    let newName: (KeyBytes) -> [UInt8]?
    /// Also rename inside member values and array elements, at any depth.
    let deep: Bool

    /// Renames the members of the selected node (and below it when deep).
    func apply(to node: Node, at match: Int32, in selection: Selection) throws(ReshapeError) {
        var trail: [PathStep] = []
        try visit(node, trail: &trail, match: match, selection: selection)
    }

    private func visit(_ node: Node, trail: inout [PathStep], match: Int32, selection: Selection) throws(ReshapeError) {
        if deep {
            try RawValue.materializeChildren(of: node)
            if node.isObject {
                try node.forEachMember { (key, value) throws(ReshapeError) in
                    guard value.isObject || value.isArray else { return }
                    trail.append(.name(key))
                    try visit(value, trail: &trail, match: match, selection: selection)
                    trail.removeLast()
                }
            } else if node.isArray {
                for index in 0..<node.arrayCount {
                    guard let value = node.element(index), value.isObject || value.isArray else { continue }
                    trail.append(.index(index))
                    try visit(value, trail: &trail, match: match, selection: selection)
                    trail.removeLast()
                }
            }
        }
        if node.isObject {
            try renameMembers(of: node, trail: trail, match: match, selection: selection)
        }
    }

    private func renameMembers(of object: Node, trail: [PathStep], match: Int32, selection: Selection) throws(ReshapeError) {
        var names: [[UInt8]?] = []
        var changes = false
        object.forEachMember { key, _ in
            let name = newName(key)
            changes = changes || name != nil
            names.append(name)
        }
        guard changes else { return }
        let rebuilt = try Make.object()
        defer { Make.release(rebuilt) }
        var position = 0
        var collision: (renamed: String, to: String)? = nil
        try object.forEachMember { (key, value) throws(ReshapeError) in
            defer { position += 1 }
            guard collision == nil else { return }
            let name = names[position]
            let isNew = try (name ?? Array(key)).withUnsafeBytesTyped { (bytes) throws(ReshapeError) in
                try Make.set(rebuilt, bytes, Make.retain(value))
            }
            if !isNew {
                collision = blame(names: names, upTo: position, in: object)
            }
        }
        if let collision {
            throw ReshapeError(
                .ruleFailed,
                "member \(quoted(collision.renamed)) would become \(quoted(collision.to)), which the object already has",
                path: selection.path(of: match, steps: trail + [.key(collision.renamed)]))
        }
        json_object_clear(object)
        guard json_object_update(object, rebuilt) == 0 else { throw .outOfMemory() }
    }

    /// For the member at `position` whose final name repeats an earlier one: the renamed member of
    /// the two (the later one when both were renamed).
    private func blame(names: [[UInt8]?], upTo position: Int, in object: Node) -> (renamed: String, to: String) {
        var originals: [[UInt8]] = []
        object.forEachMember { key, _ in originals.append(Array(key)) }
        let final = names[position] ?? originals[position]
        if names[position] != nil {
            return (String(decoding: originals[position], as: UTF8.self), String(decoding: final, as: UTF8.self))
        }
        let earlier = (0..<position).first { (names[$0] ?? originals[$0]) == final } ?? position
        return (String(decoding: originals[earlier], as: UTF8.self), String(decoding: final, as: UTF8.self))
    }
}
