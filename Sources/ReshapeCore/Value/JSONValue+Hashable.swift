/// Exact equality and hashing, without recursion on depth.
///
/// Swift's synthesized conformances would compare strings by canonical equivalence (so `"é"` would
/// equal `"e\u{301}"`, and an object could not hold both as names) and would recurse once per
/// level of nesting.
extension JSONValue {
    /// Same case and same contents: strings, names and number text scalar by scalar, members in order.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        var pending: [(JSONValue, JSONValue)] = [(lhs, rhs)]
        while let (left, right) = pending.popLast() {
            switch (left, right) {
            case (.null, .null):
                continue
            case (.bool(let a), .bool(let b)):
                guard a == b else { return false }
            case (.integer(let a), .integer(let b)):
                guard a == b else { return false }
            case (.double(let a), .double(let b)):
                guard a == b else { return false }
            case (.number(let a), .number(let b)), (.string(let a), .string(let b)):
                guard a.utf8.elementsEqual(b.utf8) else { return false }
            case (.array(let a), .array(let b)):
                guard a.count == b.count else { return false }
                for index in a.indices { pending.append((a[index], b[index])) }
            case (.object(let a), .object(let b)):
                guard a.count == b.count else { return false }
                for index in a.indices {
                    guard a[index].key.utf8.elementsEqual(b[index].key.utf8) else { return false }
                    pending.append((a[index].value, b[index].value))
                }
            default:
                return false
            }
        }
        return true
    }

    /// Hashes the case and the exact contents, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        var pending: [JSONValue] = [self]
        while let value = pending.popLast() {
            switch value {
            case .null:
                hasher.combine(0 as UInt8)
            case .bool(let flag):
                hasher.combine(1 as UInt8)
                hasher.combine(flag)
            case .integer(let integer):
                hasher.combine(2 as UInt8)
                hasher.combine(integer)
            case .double(let real):
                hasher.combine(3 as UInt8)
                hasher.combine(real)
            case .number(let text):
                hasher.combine(4 as UInt8)
                ExactName(text).hash(into: &hasher)
            case .string(let text):
                hasher.combine(5 as UInt8)
                ExactName(text).hash(into: &hasher)
            case .array(let elements):
                hasher.combine(6 as UInt8)
                hasher.combine(elements.count)
                pending.append(contentsOf: elements.reversed())
            case .object(let object):
                hasher.combine(7 as UInt8)
                hasher.combine(object.count)
                for member in object.members.reversed() {
                    pending.append(member.value)
                    pending.append(.string(member.key))
                }
            }
        }
    }
}
