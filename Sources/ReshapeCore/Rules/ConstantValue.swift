internal import CJansson

/// A JSON value given in a rules document (`default`'s `value`), held as an immutable Swift value
/// so that compiled rules can be shared by threads. Each use builds fresh nodes from it.
indirect enum ConstantValue: Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    /// A number kept as text, or a string, as the bytes of its node.
    case string([UInt8])
    case array([ConstantValue])
    case object([(key: [UInt8], value: ConstantValue)])

    /// Copies a node (borrowed) of the rules document.
    init(_ node: Node) {
        switch node.pointee.type {
        case JSON_OBJECT:
            var members: [(key: [UInt8], value: ConstantValue)] = []
            node.forEachMember { key, value in members.append((Array(key), ConstantValue(value))) }
            self = .object(members)
        case JSON_ARRAY:
            self = .array((0..<node.arrayCount).compactMap { node.element($0).map(ConstantValue.init) })
        case JSON_STRING: self = .string(Array(node.stringBytes))
        case JSON_INTEGER: self = .integer(json_integer_value(node))
        case JSON_REAL: self = .real(json_real_value(node))
        case JSON_TRUE: self = .bool(true)
        case JSON_FALSE: self = .bool(false)
        default: self = .null
        }
    }

    /// A new node holding this value.
    func makeNode() throws(ReshapeError) -> Node {
        switch self {
        case .null: return Make.null()
        case .bool(let value): return Make.bool(value)
        case .integer(let value): return try Make.integer(value)
        case .real(let value): return try Make.real(value)
        case .string(let bytes):
            return try bytes.withUnsafeBytesTyped { (raw) throws(ReshapeError) -> Node in try Make.string(raw) }
        case .array(let elements):
            let array = try Make.array()
            do throws(ReshapeError) {
                for element in elements { try Make.append(array, try element.makeNode()) }
            } catch {
                Make.release(array)
                throw error
            }
            return array
        case .object(let members):
            let object = try Make.object()
            do throws(ReshapeError) {
                for member in members {
                    let value = try member.value.makeNode()
                    _ = try member.key.withUnsafeBytesTyped { (key) throws(ReshapeError) in try Make.set(object, key, value) }
                }
            } catch {
                Make.release(object)
                throw error
            }
            return object
        }
    }
}

extension Array where Element == UInt8 {
    /// `withUnsafeBytes`, keeping the error type.
    func withUnsafeBytesTyped<R>(_ body: (UnsafeRawBufferPointer) throws(ReshapeError) -> R) throws(ReshapeError) -> R {
        let result = withUnsafeBytes { bytes in Result { () throws(ReshapeError) -> R in try body(bytes) } }
        return try result.get()
    }
}
