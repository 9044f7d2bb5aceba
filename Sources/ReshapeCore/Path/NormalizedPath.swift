/// An RFC 9535 normalized path (§2.7), the one way errors name a location: `$['users']['-Nx1'][0]`.
package struct NormalizedPath {
    package private(set) var text = "$"

    package init() {}

    package mutating func append(key: String) {
        text += "['"
        for scalar in key.unicodeScalars {
            switch scalar.value {
            case 0x08: text += "\\b"
            case 0x09: text += "\\t"
            case 0x0A: text += "\\n"
            case 0x0C: text += "\\f"
            case 0x0D: text += "\\r"
            case 0x27: text += "\\'"
            case 0x5C: text += "\\\\"
            case 0..<0x20:
                text += "\\u00" + String(scalar.value, radix: 16).leftPadded(to: 2)
            default:
                text.unicodeScalars.append(scalar)
            }
        }
        text += "']"
    }

    mutating func append(key: KeyBytes) {
        append(key: String(jsonBytes: key))
    }

    package mutating func append(index: Int) {
        text += "[\(index)]"
    }

    /// Appends a member name or element index.
    mutating func append(_ step: PathStep) {
        switch step {
        case .key(let key): append(key: key)
        case .name(let key): append(key: key)
        case .index(let index): append(index: index)
        }
    }
}

/// One step of a location: a member name or an array index.
enum PathStep {
    case key(String)
    /// A member name as bytes of the tree, valid while the member exists.
    case name(KeyBytes)
    case index(Int)
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
