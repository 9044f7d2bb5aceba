/// What an op makes of one value its path selects, decided once for both routes: an op that
/// replaces each selected value by something made from it (`hoist`, `pluck`, `coerce`,
/// `mapValues`) writes that decision once, as a function of the value seen through
/// `FilterValues`, which a jansson tree (`TreeFilterValues`) and a record's held tokens
/// (`TokenFilterValues`) both give. `apply(at:in:made:)` carries it out on the tree;
/// `ValueHolding.tokens(of:in:made:)` on the tokens.
enum ValueEdit<Value> {
    /// The value stays as it is.
    case keep
    /// It becomes `null`.
    case null
    /// It becomes another value found in it (a member).
    case value(Value)
    /// It becomes an array of values found in it, `nil` standing for `null`.
    case array([Value?])
    /// It becomes a new scalar.
    case scalar(MadeScalar)
    /// It becomes the op's own value number `index` (a `mapValues` case's `to`).
    case made(Int)
    /// The rule fails at the value, or at its element `index`, with `message`.
    case fail(String, index: Int? = nil)
}

/// A scalar an op makes (see `ValueEdit.scalar`).
enum MadeScalar {
    case number(NumberLiteral)
    case integer(Int64)
    case string([UInt8])
    case bool(Bool)
}

extension FilterValues {
    /// How an error names the kind of a value: "an object", "a string"... (see
    /// `ValueKinds.described`).
    func described(_ value: Value) -> String { ValueKinds(kind(of: value)).described }

    /// How an error names a scalar with its value (strings cut at 40 characters).
    func describedWithValue(_ value: Value) -> String {
        switch kind(of: value) {
        case .string: return "the string \(quoted(String(jsonBytes: stringBytes(of: value)), limit: 40))"
        case .number:
            var text = ""
            _ = withNumberText(of: value) { bytes in
                text = String(jsonBytes: bytes)
                return true
            }
            return "the number \(text)"
        case .bool(let flag): return flag ? "true" : "false"
        default: return described(value)
        }
    }
}

extension ValueEdit where Value == Node {
    /// Carries the edit out on the tree, at `match` of `selection`; `made` gives a new node for
    /// the op's value number `index` (see `made`).
    func apply(at match: Int32, in selection: Selection, made: (Int) throws(ReshapeError) -> Node = { _ in Make.null() })
        throws(ReshapeError)
    {
        switch self {
        case .keep:
            return
        case .null:
            try selection.replace(match, with: Make.null())
        case .value(let node):
            // Retained before the value that holds it is released in its place.
            try selection.replace(match, with: Make.retain(node))
        case .array(let nodes):
            let array = try Make.array()
            do throws(ReshapeError) {
                for node in nodes { try Make.append(array, node.map(Make.retain) ?? Make.null()) }
            } catch {
                Make.release(array)
                throw error
            }
            try selection.replace(match, with: array)
        case .scalar(let scalar):
            let node: Node
            switch scalar {
            case .number(let literal): node = try literal.makeNode()
            case .integer(let value): node = try Make.integer(value)
            case .string(let bytes): node = try bytes.withUnsafeBytesTyped { (text) throws(ReshapeError) in try Make.string(text) }
            case .bool(let flag): node = Make.bool(flag)
            }
            try selection.replace(match, with: node)
        case .made(let index):
            try selection.replace(match, with: made(index))
        case .fail(let message, let index):
            throw ReshapeError(.ruleFailed, message, path: index.map { selection.path(of: match, .index($0)) } ?? selection.path(of: match))
        }
    }
}
