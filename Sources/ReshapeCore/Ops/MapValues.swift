/// `mapValues`: each selected value equal to a case's `from` becomes that case's `to` (`0` or
/// `false` meaning null, status codes to names). Equality is JSON's: numbers by exact value (`1`,
/// `1.0` and `1e0` are one number), strings by their bytes, arrays in order, objects whatever the
/// order of their members. The first case that matches wins; `onOther` says what a value no case
/// matches becomes.
struct MapValues: PathOperation {
    static let name = "mapValues"
    let path: JSONPath
    /// The canonical key (see `ValueKey`) of each case's `from`, and its `to`, in order.
    let cases: [(from: [UInt8], to: CanonicalJSON)]
    let onOther: OnOther
    /// Some `from` is an object or an array: containers must be compared too.
    let mapsContainers: Bool

    enum OnOther: String, CaseIterable {
        case keep, null, error
    }

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path")
        var cases: [(from: [UInt8], to: CanonicalJSON)] = []
        var mapsContainers = false
        for (from, to) in try params.valuePairs("cases") {
            let node = try from.makeNode()
            defer { Make.release(node) }
            mapsContainers = mapsContainers || node.isObject || node.isArray
            var key: [UInt8] = []
            try ValueKey.append(node, to: &key, charging: nil)
            cases.append((key, to))
        }
        self.cases = cases
        self.mapsContainers = mapsContainers
        onOther = try params.choice("onOther", default: .keep)
    }

    /// Looks at the selected values, and inside them when a case is a container.
    var rawAccess: RawAccess { .anyDepth }

    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        var key: [UInt8] = []
        // Deepest first: a container is compared once what the rule maps inside it is mapped.
        for match in try selection.editOrder() {
            let node = selection.node(match)
            var found: CanonicalJSON? = nil
            if mapsContainers || !(node.isObject || node.isArray) {
                key.removeAll(keepingCapacity: true)
                try ValueKey.append(node, to: &key, charging: document)
                found = cases.first(where: { $0.from == key })?.to
            }
            if let found {
                try document.charge(found.values)
                try document.grow(values: found.values, bytes: found.text.count)
                try selection.replace(match, with: try found.makeNode())
                continue
            }
            switch onOther {
            case .keep:
                continue
            case .null:
                try selection.replace(match, with: Make.null())
            case .error:
                throw ReshapeError(.ruleFailed, "no case for \(node.describedWithValue)", path: selection.path(of: match))
            }
        }
    }

    var summary: String { "\(Self.name) \(path.text)" }
}

/// Bytes two values share exactly when they are equal as JSON (see `MapValues`): a letter for the
/// kind, numbers by `NumberLiteral.valueKey`, strings and names by length and bytes, object
/// members sorted by name. Built with an explicit stack, never recursion.
private enum ValueKey {
    static func append(_ root: Node, to key: inout [UInt8], charging document: Document?) throws(ReshapeError) {
        enum Frame {
            case elements(Node, next: Int)
            case members([(name: [UInt8], value: Node)], next: Int)
        }
        var stack: [Frame] = []
        // Trees made here of raw text (a value the selection did not make a tree; values below
        // come through the accessors that make them trees in place).
        var made: [Node] = []
        defer { for node in made { Make.release(node) } }
        var value: Node? = root
        while true {
            if let node = value {
                value = nil
                try document?.charge(1)
                switch node.kind {
                case .null: key.append(UInt8(ascii: "n"))
                case .bool: key.append(node.isTrue ? UInt8(ascii: "t") : UInt8(ascii: "f"))
                case .integer: number(Array(String(node.integerValue).utf8), to: &key)
                case .real: number(Array(NumberText.text(of: node.realValue).utf8), to: &key)
                case .rawNumber: number(Array(node.rawText), to: &key)
                case .string:
                    let bytes = node.stringBytes
                    try document?.charge(bytes.count / 16)
                    text(bytes, to: &key)
                case .array, .rawArray:
                    let array = node.kind == .array ? node : try RawValue.tree(of: node)
                    if array != node { made.append(array) }
                    key.append(UInt8(ascii: "["))
                    stack.append(.elements(array, next: 0))
                case .object, .rawObject:
                    let object = node.kind == .object ? node : try RawValue.tree(of: node)
                    if object != node { made.append(object) }
                    var members: [(name: [UInt8], value: Node)] = []
                    try object.forEachMember { (name, member) throws(ReshapeError) in members.append((Array(name), member)) }
                    members.sort { $0.name.lexicographicallyPrecedes($1.name) }
                    key.append(UInt8(ascii: "{"))
                    stack.append(.members(members, next: 0))
                }
            }
            guard let top = stack.popLast() else { return }
            switch top {
            case .elements(let array, let next):
                if let element = try array.element(next) {
                    stack.append(.elements(array, next: next + 1))
                    value = element
                } else {
                    key.append(UInt8(ascii: "]"))
                }
            case .members(let members, let next):
                if next < members.count {
                    stack.append(.members(members, next: next + 1))
                    members[next].name.withUnsafeBytes { text($0, to: &key) }
                    value = members[next].value
                } else {
                    key.append(UInt8(ascii: "}"))
                }
            }
        }
    }

    private static func number(_ text: [UInt8], to key: inout [UInt8]) {
        key.append(UInt8(ascii: "#"))
        key += text.withUnsafeBytes { NumberLiteral.valueKey(of: $0) }
        key.append(UInt8(ascii: ";"))
    }

    private static func text(_ bytes: UnsafeRawBufferPointer, to key: inout [UInt8]) {
        key.append(UInt8(ascii: "s"))
        key += Array(String(bytes.count).utf8)
        key.append(UInt8(ascii: ":"))
        key += bytes
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFilter`)

extension MapValues {
    /// Per record when it maps values inside records.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        step.along(path) { step, reach in
            reach.selectsAbove || reach.selectsCollection ? .wholeDocument("maps the collection or its envelope") : .perRecord
        }
    }

    /// Records take the tree.
    func addToFastPath(_ builder: inout RecordFastPath.Builder, collection before: RecordPlan.Kind, after: RecordPlan.Kind) -> Bool {
        false
    }

    /// A record's tree, for now.
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker { .needsTree }
}
