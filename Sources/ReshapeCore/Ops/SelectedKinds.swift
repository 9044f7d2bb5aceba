/// Which kinds of value an op works on where its path selects them, said once for the tree and
/// for a record's tokens: it edits the kinds in `edits`, leaves those in `leaves` as they are,
/// and fails at any other kind with "expected `expected`, found ..." at the value.
///
/// The tree (`edits(_:at:in:_:)`) throws that error; a record filter (`verdict(_:)` on the token
/// that starts the value) gives up on `.fails`, and the record's tree then names it.
struct SelectedKinds: Sendable {
    let edits: ValueKinds
    let leaves: ValueKinds
    /// How the error names what was expected: "an object".
    let expected: String

    /// `expected` is the kind it edits when it edits one.
    init(edits: ValueKinds, leaves: ValueKinds, expected: String? = nil) {
        self.edits = edits
        self.leaves = leaves
        self.expected = expected ?? edits.described
    }

    enum Verdict {
        case edits
        case leaves
        case fails
    }

    /// Objects are edited; anything else fails.
    static var objects: SelectedKinds { SelectedKinds(edits: .object, leaves: []) }
    /// Objects are edited and `null` stays `null`; anything else fails.
    static var objectsOrNull: SelectedKinds { SelectedKinds(edits: .object, leaves: .null) }
    /// Objects are edited; every other value stays as it is.
    static var objectsLeavingOthers: SelectedKinds {
        SelectedKinds(edits: .object, leaves: ValueKinds.all.subtracting(.object))
    }
    /// Arrays are edited; anything else fails.
    static var arrays: SelectedKinds { SelectedKinds(edits: .array, leaves: []) }
    /// Arrays are edited and `null` stays `null`; anything else fails.
    static var arraysOrNull: SelectedKinds { SelectedKinds(edits: .array, leaves: .null) }

    /// Some kind of value makes the op fail.
    var failsSome: Bool { edits.union(leaves) != .all }

    /// What becomes of a selected value of kind `kind` (one of `ValueKinds`' single kinds).
    @inline(__always)
    func verdict(of kind: ValueKinds) -> Verdict {
        if edits.contains(kind) { return .edits }
        return leaves.contains(kind) ? .leaves : .fails
    }

    /// What becomes of the selected value that `token` starts.
    @inline(__always)
    func verdict(_ token: RecordToken) -> Verdict { verdict(of: ValueKinds(token.kind)) }

    /// On the tree: whether the op edits `node`, the value selected at `match` (or reached from
    /// it by `steps`); the rule's error for a kind it neither edits nor leaves.
    func edits(_ node: Node, at match: Int32, in selection: Selection, _ steps: PathStep...) throws(ReshapeError) -> Bool {
        switch verdict(of: ValueKinds(node.kind)) {
        case .edits: return true
        case .leaves: return false
        case .fails:
            throw ReshapeError(.ruleFailed, failure(found: node.kind.described), path: selection.path(of: match, steps: steps))
        }
    }

    /// The rule's error message at a value of a kind it fails at, `found` naming that kind ("a
    /// string").
    func failure(found: String) -> String { "expected \(expected), found \(found)" }

    /// On a value seen through `FilterValues` (an op deciding on either route, see `ValueEdit`):
    /// `.fail` with the rule's message where the kind fails, `.keep` where it is left, nil where
    /// the op edits it.
    func edit<Values: FilterValues>(_ value: Values.Value, in values: Values) -> ValueEdit<Values.Value>? {
        switch verdict(of: ValueKinds(values.kind(of: value))) {
        case .edits: return nil
        case .leaves: return .keep
        case .fails: return .fail(failure(found: values.described(value)))
        }
    }
}

extension ValueKinds {
    /// How a message names a single kind: "an object", "a string"...
    var described: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        default: "a value"
        }
    }

    /// The kind of a value seen through `FilterValues`.
    init(_ kind: FilterValueKind) {
        switch kind {
        case .object: self = .object
        case .array: self = .array
        case .string: self = .string
        case .number: self = .number
        case .bool: self = .bool
        case .null: self = .null
        }
    }

    /// The kind of a tree's node.
    init(_ kind: NodeKind) {
        switch kind {
        case .object, .rawObject: self = .object
        case .array, .rawArray: self = .array
        case .string: self = .string
        case .integer, .real, .rawNumber: self = .number
        case .bool: self = .bool
        case .null: self = .null
        }
    }

    /// The kind of the value a token starts; none for a name or a container's end.
    @inline(__always)
    init(_ kind: RecordToken.Kind) {
        switch kind {
        case .objectStart: self = .object
        case .arrayStart: self = .array
        case .string: self = .string
        case .number: self = .number
        case .bool: self = .bool
        case .null: self = .null
        case .objectEnd, .arrayEnd, .name: self = []
        }
    }
}
