/// Following a singular path (names and indices only) step by step, to say where it stops.
enum SingularResolution {
    case found(Node)
    /// The path stops at an existing value: its normalized path and what is wrong with it.
    case missing(path: String, message: String)
}

extension JSONPath {
    /// Follows this singular path from the document's root. Raw values on the way are made trees
    /// in place; the value found may stay raw, since it is only moved.
    func resolve(in document: Document) throws(ReshapeError) -> SingularResolution {
        if document.root.isRawValue, !segments.isEmpty {
            document.replaceRoot(with: try RawValue.materialized(document.root))
        }
        var node = document.root
        var path = NormalizedPath()
        for (position, segment) in segments.enumerated() {
            let isLast = position == segments.count - 1
            guard case .child(let selector) = segment else { break }
            switch selector {
            case .name(let name):
                guard node.isObject else {
                    return .missing(path: path.text, message: "expected an object with member \(quoted(name.text)), found \(node.kind.described)")
                }
                guard var child = node.member(name.bytes) else {
                    return .missing(path: path.text, message: "no member \(quoted(name.text))")
                }
                if !isLast, child.isRawValue {
                    let tree = try RawValue.materialized(child)
                    try Make.set(node, name.bytes, tree)
                    child = tree
                }
                node = child
                path.append(key: name.text)
            case .index(let wanted):
                guard node.isArray else {
                    return .missing(path: path.text, message: "expected an array for index \(wanted), found \(node.kind.described)")
                }
                let count = node.arrayCount
                let index = wanted >= 0 ? wanted : count + wanted
                guard index >= 0, index < count, var child = node.element(index) else {
                    let elements = count == 1 ? "1 element" : "\(count) elements"
                    return .missing(path: path.text, message: "index \(wanted) is out of range for an array of \(elements)")
                }
                if !isLast, let tree = try RawValue.materializeElement(of: node, at: index) {
                    child = tree
                }
                node = child
                path.append(index: index)
            case .wildcard:
                break
            }
        }
        return .found(node)
    }
}
