/// Following a singular path (names and indices only) step by step, to say where it stops.
enum SingularResolution {
    case found(Node)
    /// The path stops at an existing value: its normalized path and what is wrong with it.
    case missing(path: String, message: String)
}

extension JSONPath {
    /// Follows this singular path from `root` (borrowed).
    func resolve(in root: Node) -> SingularResolution {
        var node = root
        var path = NormalizedPath()
        for segment in segments {
            guard case .child(let selector) = segment else { break }
            switch selector {
            case .name(let name):
                guard node.isObject else {
                    return .missing(path: path.text, message: "expected an object with member \(quoted(name.text)), found \(node.kind.described)")
                }
                guard let child = node.member(name.bytes) else {
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
                guard index >= 0, index < count, let child = node.element(index) else {
                    let elements = count == 1 ? "1 element" : "\(count) elements"
                    return .missing(path: path.text, message: "index \(wanted) is out of range for an array of \(elements)")
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
