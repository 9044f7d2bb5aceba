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
        if document.root.kind.isRawContainer, !segments.isEmpty {
            document.replaceRoot(with: try RawValue.tree(of: document.root))
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
                let found = isLast ? node.storedMember(name.bytes) : try node.member(name.bytes)
                guard let child = found else {
                    return .missing(path: path.text, message: "no member \(quoted(name.text))")
                }
                node = child
                path.append(key: name.text)
            case .index(let wanted):
                guard node.isArray else {
                    return .missing(path: path.text, message: "expected an array for index \(wanted), found \(node.kind.described)")
                }
                let count = node.arrayCount
                let index = wanted >= 0 ? wanted : count + wanted
                let found = index < 0 || index >= count
                    ? nil : isLast ? node.storedElement(index) : try node.element(index)
                guard let child = found else {
                    let elements = count == 1 ? "1 element" : "\(count) elements"
                    return .missing(path: path.text, message: "index \(wanted) is out of range for an array of \(elements)")
                }
                node = child
                path.append(index: index)
            default:
                break
            }
        }
        return .found(node)
    }
}
