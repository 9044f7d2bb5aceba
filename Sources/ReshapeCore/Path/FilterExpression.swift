/// A filter selector's expression (RFC 9535 section 2.3.5), well-typed by construction: the
/// parser only builds what section 2.4.3 allows.
indirect enum FilterExpression: Sendable {
    case or([FilterExpression])
    case and([FilterExpression])
    case not(FilterExpression)
    case comparison(FilterOperand, ComparisonOperator, FilterOperand)
    /// A query: true when it selects at least one node.
    case exists(FilterQuery)
    /// A function whose result is logical (`match`, `search`).
    case function(FilterFunction)

    var readsRoot: Bool {
        switch self {
        case .or(let items), .and(let items): items.contains { $0.readsRoot }
        case .not(let inner): inner.readsRoot
        case .comparison(let left, _, let right): left.readsRoot || right.readsRoot
        case .exists(let query): query.readsRoot
        case .function(let call): call.readsRoot
        }
    }

    /// The names of the members of `@` the expression reads, when it reads `@` through them
    /// alone (`@.plan == 'free' && @['a','b'].c`): it holds for a value exactly when it holds
    /// for an object of those members only. Nil when it reads `@` itself, its elements or all
    /// its members (`@`, `@[0]`, `@.*`, `@..x`, `length(@)`), or more than `limit` names.
    func memberNamesRead(limit: Int) -> [[UInt8]]? {
        var names: [[UInt8]] = []
        return collectNames(into: &names) && names.count <= limit ? names : nil
    }

    fileprivate func collectNames(into names: inout [[UInt8]]) -> Bool {
        switch self {
        case .or(let items), .and(let items): items.allSatisfy { $0.collectNames(into: &names) }
        case .not(let inner): inner.collectNames(into: &names)
        case .comparison(let left, _, let right): left.collectNames(into: &names) && right.collectNames(into: &names)
        case .exists(let query): query.collectNames(into: &names)
        case .function(let call): call.collectNames(into: &names)
        }
    }
}

enum ComparisonOperator: Sendable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
}

/// What a comparison compares: a literal, a singular query, or a function whose result is a value.
indirect enum FilterOperand: Sendable {
    case literal(FilterLiteral)
    case query(FilterQuery)
    case function(FilterFunction)

    var readsRoot: Bool {
        switch self {
        case .literal: false
        case .query(let query): query.readsRoot
        case .function(let call): call.readsRoot
        }
    }

    fileprivate func collectNames(into names: inout [[UInt8]]) -> Bool {
        switch self {
        case .literal: true
        case .query(let query): query.collectNames(into: &names)
        case .function(let call): call.collectNames(into: &names)
        }
    }
}

/// A literal of a filter: numbers kept as their text, so that they compare exactly.
enum FilterLiteral: Sendable {
    case number([UInt8])
    case string(String)
    case bool(Bool)
    case null
}

/// `@...` (from the node being filtered) or `$...` (from the document's root).
struct FilterQuery: Sendable {
    let absolute: Bool
    let segments: [JSONPath.Segment]
    /// The steps of a query of child names and indices only, which selects one node at most:
    /// walked without node lists.
    let steps: [Step]?

    /// A step of a singular query, as plain values: a name's bytes (kept by `segments`) and
    /// `RecordNames.hash`, or an index.
    struct Step: @unchecked Sendable {  // its bytes are only read
        let name: KeyBytes?
        let hash: UInt64
        let index: Int
    }

    init(absolute: Bool, segments: [JSONPath.Segment]) {
        self.absolute = absolute
        self.segments = segments
        var steps: [Step]? = []
        for segment in segments {
            switch segment {
            case .child(.name(let name)): steps?.append(Step(name: name.bytes, hash: RecordNames.hash(name.bytes), index: 0))
            case .child(.index(let index)): steps?.append(Step(name: nil, hash: 0, index: index))
            default: steps = nil
            }
        }
        self.steps = steps
    }

    var isSingular: Bool { JSONPath(text: "", segments: segments).isSingular }
    var readsRoot: Bool { absolute || segments.contains { $0.selector.readsRoot } }

    /// See `FilterExpression.memberNamesRead`: a query from `@` whose first segment picks
    /// members by name (what comes after reads only inside them).
    fileprivate func collectNames(into names: inout [[UInt8]]) -> Bool {
        guard !absolute, let first = segments.first, case .child(let selector) = first else { return false }
        func add(_ selector: JSONPath.Selector) -> Bool {
            switch selector {
            case .name(let name):
                // Past a few names the caller gives up: no need to look through more of them.
                guard names.count <= RecordPeek.maxNames else { return false }
                let bytes = Array(name.text.utf8)
                if !names.contains(bytes) { names.append(bytes) }
                return true
            case .union(let selectors):
                return selectors.allSatisfy(add)
            default:
                return false
            }
        }
        return add(selector)
    }
}

/// One of RFC 9535's functions, with its arguments.
struct FilterFunction: Sendable {
    enum Name: String, Sendable {
        case length, count, match, search, value

        /// Whether the result is a value (else logical).
        var givesValue: Bool { self != .match && self != .search }
    }

    let name: Name
    let arguments: [FilterArgument]
    /// For `match` and `search` with a literal pattern: compiled once (nil when it is not an
    /// I-Regexp: then nothing matches).
    let pattern: IRegexp?

    var readsRoot: Bool {
        arguments.contains { argument in
            switch argument {
            case .value(let operand): operand.readsRoot
            case .nodes(let query): query.readsRoot
            case .logical(let expression): expression.readsRoot
            }
        }
    }

    fileprivate func collectNames(into names: inout [[UInt8]]) -> Bool {
        arguments.allSatisfy { argument in
            switch argument {
            case .value(let operand): operand.collectNames(into: &names)
            case .nodes(let query): query.collectNames(into: &names)
            case .logical(let expression): expression.collectNames(into: &names)
            }
        }
    }
}

/// A function's argument, by the type of the parameter it is passed to.
indirect enum FilterArgument: Sendable {
    case value(FilterOperand)
    case nodes(FilterQuery)
    case logical(FilterExpression)
}

extension JSONPath.Selector {
    var hasFilter: Bool {
        switch self {
        case .filter: true
        case .union(let selectors): selectors.contains { $0.hasFilter }
        default: false
        }
    }

    var readsRoot: Bool {
        switch self {
        case .filter(let expression): expression.readsRoot
        case .union(let selectors): selectors.contains { $0.readsRoot }
        default: false
        }
    }

    /// RFC 9535 section 2.3.4.2.2: the indices a slice selects in an array of `count`, in order.
    static func sliceIndices(start: Int?, end: Int?, step: Int?, count: Int) -> StrideThrough<Int>? {
        let step = step ?? 1
        guard step != 0 else { return nil }
        func normalized(_ index: Int) -> Int { index >= 0 ? index : count + index }
        if step > 0 {
            let lower = min(max(normalized(start ?? 0), 0), count)
            let upper = min(max(normalized(end ?? count), 0), count)
            guard lower < upper else { return nil }
            return stride(from: lower, through: upper - 1, by: step)
        }
        let upper = min(max(normalized(start ?? count - 1), -1), count - 1)
        let lower = min(max(end.map(normalized) ?? -1, -1), count - 1)
        guard lower < upper else { return nil }
        return stride(from: upper, through: lower + 1, by: step)
    }
}

// MARK: - Evaluation

/// What a filter looks at in a value, whatever holds it: a jansson tree (`TreeFilterValues`) or a
/// record's tokens (`TokenFilterValues`). `FilterEvaluator` is written once against it.
protocol FilterValues {
    associatedtype Value
    /// The document's root, for absolute queries (`$...`); nil where there is none to read (the
    /// evaluation then fails).
    var root: Value? { get }
    /// Counts `steps` steps of work.
    func charge(_ steps: Int) throws(ReshapeError)
    func kind(of value: Value) -> FilterValueKind
    /// A string's bytes (UTF-8, unescaped).
    func stringBytes(of value: Value) -> UnsafeRawBufferPointer
    /// Calls `body` with a number's text, compared exactly (`NumberLiteral.compareExactly`).
    func withNumberText(of value: Value, _ body: (UnsafeRawBufferPointer) -> Bool) -> Bool
    /// How many members or elements a container has.
    func count(of value: Value) throws(ReshapeError) -> Int
    /// The member `name` (whose `RecordNames.hash` is `hash`, or 0 when not known).
    func member(_ name: KeyBytes, hash: UInt64, of value: Value) throws(ReshapeError) -> Value?
    func element(_ index: Int, of value: Value) throws(ReshapeError) -> Value?
    /// A container's children, in order.
    func children(of value: Value) throws(ReshapeError) -> [Value]
    /// Calls `body` with each element of an array, in order, while it returns true.
    func forEachElement(of value: Value, _ body: (Value) throws(ReshapeError) -> Bool) throws(ReshapeError)
    /// Appends the container's `ValueKey` (for `==` between containers).
    func appendKey(of value: Value, to key: inout [UInt8]) throws(ReshapeError)
}

/// A value's kind, as a filter compares it.
enum FilterValueKind {
    case string, number, bool(Bool), null, object, array
}

/// Evaluates filters against the values `values` gives: the node being filtered (`@`) and the
/// document's root (`$`). Queries inside filters select plain node lists (not recorded in the
/// selection). Every child looked at is a step of work.
struct FilterEvaluator<Values: FilterValues> {
    typealias Item = Values.Value
    let values: Values

    /// Whether `expression` holds for `node`.
    func holds(_ expression: FilterExpression, on node: Item) throws(ReshapeError) -> Bool {
        switch expression {
        case .or(let items):
            for item in items where try holds(item, on: node) { return true }
            return false
        case .and(let items):
            for item in items where try !holds(item, on: node) { return false }
            return true
        case .not(let inner):
            return try !holds(inner, on: node)
        case .exists(let query):
            if query.steps != nil { return try single(query, from: node) != nil }
            return try !select(query, from: node).isEmpty
        case .function(let call):
            return try logical(call, on: node)
        case .comparison(let left, let op, let right):
            let a = try value(left, on: node)
            let b = try value(right, on: node)
            switch op {
            case .equal: return try equal(a, b)
            case .notEqual: return try !equal(a, b)
            case .less: return less(a, b)
            case .lessOrEqual:
                if less(a, b) { return true }
                return try equal(a, b)
            case .greater: return less(b, a)
            case .greaterOrEqual:
                if less(b, a) { return true }
                return try equal(a, b)
            }
        }
    }

    /// A value in a comparison or an argument: a node, a literal, or nothing.
    enum Value {
        case nothing
        case node(Item)
        case literal(FilterLiteral)
    }

    private func value(_ operand: FilterOperand, on node: Item) throws(ReshapeError) -> Value {
        switch operand {
        case .literal(let literal):
            return .literal(literal)
        case .query(let query):
            if query.steps != nil { return try single(query, from: node).map { .node($0) } ?? .nothing }
            let nodes = try select(query, from: node)
            return nodes.count == 1 ? .node(nodes[0]) : .nothing
        case .function(let call):
            return try result(call, on: node)
        }
    }

    /// The value of a function whose result is a value.
    private func result(_ call: FilterFunction, on node: Item) throws(ReshapeError) -> Value {
        switch call.name {
        case .length:
            guard case .value(let operand) = call.arguments[0] else { return .nothing }
            let argument = try value(operand, on: node)
            let length: Int
            switch argument {
            case .literal(.string(let text)): length = text.unicodeScalars.count
            case .node(let found):
                switch values.kind(of: found) {
                case .string:
                    // Counting scalars reads the string: a step per 16 bytes, as for `match`.
                    let bytes = values.stringBytes(of: found)
                    try values.charge(bytes.count / 16)
                    length = LineCounter.scalars(in: bytes)
                case .array, .object: length = try values.count(of: found)
                default: return .nothing
                }
            default: return .nothing
            }
            return .literal(.number(Array(String(length).utf8)))
        case .count:
            guard case .nodes(let query) = call.arguments[0] else { return .nothing }
            return .literal(.number(Array(String(try select(query, from: node).count).utf8)))
        case .value:
            guard case .nodes(let query) = call.arguments[0] else { return .nothing }
            let nodes = try select(query, from: node)
            return nodes.count == 1 ? .node(nodes[0]) : .nothing
        case .match, .search:
            return .nothing
        }
    }

    /// The result of `match` or `search`.
    private func logical(_ call: FilterFunction, on node: Item) throws(ReshapeError) -> Bool {
        guard call.name == .match || call.name == .search, call.arguments.count == 2,
            case .value(let subject) = call.arguments[0], case .value(let patternOperand) = call.arguments[1]
        else { return false }
        let text = try value(subject, on: node)
        var regexp = call.pattern
        if regexp == nil {
            if case .literal = patternOperand { return false }  // Not an I-Regexp: nothing matches.
            guard let pattern = try withString(try value(patternOperand, on: node), { String(decoding: $0, as: UTF8.self) })
            else { return false }
            regexp = try? IRegexp.compile(pattern).get()
        }
        guard let regexp else { return false }
        let matched = try withString(text) { (bytes) throws(ReshapeError) in
            try values.charge(LineCounter.scalars(in: bytes).multipliedClamped(by: regexp.size / 16 + 1))
            return call.name == .match ? regexp.matches(utf8: bytes) : regexp.occurs(inUTF8: bytes)
        }
        return matched ?? false
    }

    /// `body`'s result on a string value's UTF-8 bytes; nil when `value` is not a string.
    private func withString<Output>(
        _ value: Value, _ body: (UnsafeRawBufferPointer) throws(ReshapeError) -> Output
    ) throws(ReshapeError) -> Output? {
        switch value {
        case .literal(.string(var text)):
            let result = text.withUTF8 { bytes in Result { () throws(ReshapeError) in try body(UnsafeRawBufferPointer(bytes)) } }
            return try result.get()
        case .node(let node):
            guard case .string = values.kind(of: node) else { return nil }
            return try body(values.stringBytes(of: node))
        default: return nil
        }
    }

    // MARK: Queries

    /// The node a query of names and indices (`query.steps`) selects, if any: what `select`
    /// gives, without its lists.
    private func single(_ query: FilterQuery, from node: Item) throws(ReshapeError) -> Item? {
        var current = node
        if query.absolute {
            guard let root = values.root else { throw ReshapeError(.internal, "a filter read the document's root where it has none") }
            current = root
        }
        for step in query.steps ?? [] {
            if let name = step.name {
                guard case .object = values.kind(of: current), let child = try values.member(name, hash: step.hash, of: current) else {
                    return nil
                }
                current = child
            } else {
                guard case .array = values.kind(of: current) else { return nil }
                let count = try values.count(of: current)
                let index = step.index >= 0 ? step.index : count + step.index
                guard index >= 0, index < count, let child = try values.element(index, of: current) else { return nil }
                current = child
            }
        }
        return current
    }

    /// The nodes `query` selects from `node` (or from the root), in RFC 9535 order.
    func select(_ query: FilterQuery, from node: Item) throws(ReshapeError) -> [Item] {
        var start = node
        if query.absolute {
            guard let root = values.root else { throw ReshapeError(.internal, "a filter read the document's root where it has none") }
            start = root
        }
        var current = [start]
        for segment in query.segments {
            var next: [Item] = []
            switch segment {
            case .child(let selector):
                for input in current { try pick(selector, in: input, into: &next) }
            case .descendant(let selector):
                for input in current {
                    // Preorder: a value before its descendants, children in order.
                    var pending = [input]
                    while let visited = pending.popLast() {
                        try pick(selector, in: visited, into: &next)
                        for child in try children(of: visited).reversed() where isContainer(child) { pending.append(child) }
                    }
                }
            }
            current = next
        }
        return current
    }

    private func isContainer(_ node: Item) -> Bool {
        switch values.kind(of: node) {
        case .object, .array: true
        default: false
        }
    }

    /// The children of a container, in order; none of a scalar.
    func children(of node: Item) throws(ReshapeError) -> [Item] {
        guard isContainer(node) else { return [] }
        try values.charge(try values.count(of: node))
        return try values.children(of: node)
    }

    /// Appends what `selector` selects among the children of `node`.
    func pick(_ selector: JSONPath.Selector, in node: Item, into next: inout [Item]) throws(ReshapeError) {
        switch selector {
        case .name(let name):
            guard case .object = values.kind(of: node), let child = try values.member(name.bytes, hash: 0, of: node) else { return }
            next.append(child)
        case .index(let wanted):
            guard case .array = values.kind(of: node) else { return }
            let count = try values.count(of: node)
            let index = wanted >= 0 ? wanted : count + wanted
            guard index >= 0, index < count, let child = try values.element(index, of: node) else { return }
            next.append(child)
        case .wildcard:
            next += try children(of: node)
        case .slice(let start, let end, let step):
            guard case .array = values.kind(of: node),
                let indices = JSONPath.Selector.sliceIndices(start: start, end: end, step: step, count: try values.count(of: node))
            else { return }
            for index in indices {
                try values.charge(1)
                if let child = try values.element(index, of: node) { next.append(child) }
            }
        case .filter(let expression):
            for child in try children(of: node) where try holds(expression, on: child) { next.append(child) }
        case .union(let selectors):
            for inner in selectors { try pick(inner, in: node, into: &next) }
        }
    }

    // MARK: Comparisons (RFC 9535 section 2.3.5.2.2)

    private func compared(_ value: Value, _ body: (FilterScalar) -> Bool) -> Bool {
        switch value {
        case .nothing: return body(.nothing)
        case .literal(let literal): return literal.withScalar(body)
        case .node(let node):
            switch values.kind(of: node) {
            case .string: return body(.string(values.stringBytes(of: node)))
            case .number: return values.withNumberText(of: node) { body(.number($0)) }
            case .bool(let flag): return body(.bool(flag))
            case .null: return body(.null)
            case .object, .array: return body(.container)
            }
        }
    }

    /// RFC 9535 equality; containers compare member by member (their keys, see `ValueKey`, each
    /// value a step of work).
    func equal(_ a: Value, _ b: Value) throws(ReshapeError) -> Bool {
        if case .node(let x) = a, case .node(let y) = b, isContainer(x) || isContainer(y) {
            switch (values.kind(of: x), values.kind(of: y)) {
            case (.object, .object), (.array, .array): break
            default: return false
            }
            guard try values.count(of: x) == values.count(of: y) else { return false }
            var left: [UInt8] = []
            var right: [UInt8] = []
            try values.appendKey(of: x, to: &left)
            try values.appendKey(of: y, to: &right)
            return left == right
        }
        return compared(a) { left in compared(b) { right in FilterScalar.equal(left, right) } }
    }

    func less(_ a: Value, _ b: Value) -> Bool {
        compared(a) { left in compared(b) { right in FilterScalar.less(left, right) } }
    }
}

/// A value as a comparison sees it (RFC 9535 section 2.3.5.2.2) when one side is not a container
/// or both are scalars: what `FilterEvaluator` compares, and what a `MemberComparison` decides on.
enum FilterScalar {
    case nothing
    case number(UnsafeRawBufferPointer)
    case string(UnsafeRawBufferPointer)
    case bool(Bool)
    case null
    /// An object or an array: equal to no scalar, ordered with nothing.
    case container

    static func equal(_ left: FilterScalar, _ right: FilterScalar) -> Bool {
        switch (left, right) {
        case (.nothing, .nothing): return true
        case (.number(let x), .number(let y)): return NumberLiteral.compareExactly(x, y) == 0
        case (.string(let x), .string(let y)): return x.sameBytes(as: y)
        case (.bool(let x), .bool(let y)): return x == y
        case (.null, .null): return true
        default: return false
        }
    }

    static func less(_ left: FilterScalar, _ right: FilterScalar) -> Bool {
        switch (left, right) {
        case (.number(let x), .number(let y)): return NumberLiteral.compareExactly(x, y) < 0
        // UTF-8 orders as the Unicode scalar values it encodes.
        case (.string(let x), .string(let y)): return x.lexicographicallyPrecedes(y)
        default: return false
        }
    }

    /// `left op right`, where at most one side is a container.
    static func holds(_ left: FilterScalar, _ op: ComparisonOperator, _ right: FilterScalar) -> Bool {
        switch op {
        case .equal: equal(left, right)
        case .notEqual: !equal(left, right)
        case .less: less(left, right)
        case .lessOrEqual: less(left, right) || equal(left, right)
        case .greater: less(right, left)
        case .greaterOrEqual: less(right, left) || equal(left, right)
        }
    }
}

extension FilterScalar {
    /// The decimal digits of `value` (a length or a count; a negative one is written 0), at the
    /// end of `digits` (20 bytes hold any `Int`): compared as the number the evaluator makes of
    /// it.
    static func decimal(_ value: Int, in digits: UnsafeMutableBufferPointer<UInt8>) -> UnsafeRawBufferPointer {
        var rest = max(value, 0)
        var start = digits.count
        repeat {
            start -= 1
            digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        } while rest > 0
        return UnsafeRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(digits)[start...])
    }
}

extension FilterLiteral {
    /// Calls `body` with the literal as a comparison sees it.
    func withScalar<Result>(_ body: (FilterScalar) -> Result) -> Result {
        switch self {
        case .number(let text): return text.withUnsafeBytes { body(.number($0)) }
        case .string(let text):
            var text = text
            return text.withUTF8 { body(.string(UnsafeRawBufferPointer($0))) }
        case .bool(let flag): return body(.bool(flag))
        case .null: return body(.null)
        }
    }
}

/// The commonest filters, a test of one member of the tested value against a literal: compared
/// with it (`@.role == 'member'`, `3 < @.count`), its length compared with it (`length(@.name) >
/// 6`), matched by it (`match(@.id, 'g[13]')`, `search(...)`), or counted, it or its children
/// (`count(@.groups[*]) > 1`). The member may be one inside members, named all the way
/// (`@.profile.city`, `value(@.profile.city)`). Decided on that member
/// alone, with no evaluator, by a reader that finds the member itself (`FilterGate` on a
/// record's text). The same comparison as `FilterEvaluator`'s (`FilterScalar`), a container
/// member comparing as RFC 9535 says against a literal (equal to none), and the same functions,
/// charging the same work. A class: a filter's comparisons are handed around per object tested,
/// and a reference is one count to keep.
final class MemberComparison {
    /// The member of the tested value, and the names of the members inside it down to the one
    /// tested (none for `@.role`; `city` for `@.profile.city`).
    let name: [UInt8]
    let below: [[UInt8]]
    /// For `count()` of the member (`count(@.a.b)`: 1 or 0) or of its children
    /// (`count(@.groups[*])`): the count is what is compared, as a number.
    let counted: Counted?

    enum Counted {
        case member, children
    }
    private let test: Test
    /// The literal: its kind, and its bytes for a string or a number (kept as bytes: a `String`'s
    /// UTF-8 would be reached through a copy at each comparison).
    private let literal: FilterScalarKind
    private let bytes: [UInt8]
    /// For `match` and `search`: the pattern (nil when it is not an I-Regexp: nothing matches).
    /// Kept apart from `test`, which stays a plain value to switch on.
    private let regexp: IRegexp?

    private enum Test {
        /// The member, or its length, `op` the literal (which is on the left with `literalFirst`).
        case compare(ComparisonOperator, length: Bool, literalFirst: Bool)
        /// `match` (whole) or `search`, with `regexp`.
        case regexp(whole: Bool)
    }

    private enum FilterScalarKind {
        case number, string, bool(Bool), null
    }

    /// `expression` as a member comparison, when it is one.
    init?(_ expression: FilterExpression) {
        /// The names of a query of names from `@` (`@.profile.city`), which selects one node at
        /// most.
        func names(_ query: FilterQuery) -> [[UInt8]]? {
            guard !query.absolute, let steps = query.steps, !steps.isEmpty else { return nil }
            var names: [[UInt8]] = []
            for step in steps {
                guard let name = step.name else { return nil }
                names.append(Array(name))
            }
            return names
        }
        /// The member `operand` reads: a query of names, or `value()` of one (the same node, or
        /// nothing, found by the same steps).
        func member(_ operand: FilterOperand) -> [[UInt8]]? {
            switch operand {
            case .query(let query):
                return names(query)
            case .function(let call):
                guard call.name == .value, call.arguments.count == 1, case .nodes(let query) = call.arguments[0] else { return nil }
                return names(query)
            case .literal:
                return nil
            }
        }
        /// `count()` of a query of names, or of one whose last segment is `*` (`count(@.groups[*])`).
        func countOf(_ call: FilterFunction) -> (names: [[UInt8]], counted: Counted)? {
            guard call.name == .count, call.arguments.count == 1, case .nodes(let query) = call.arguments[0] else { return nil }
            if let names = names(query) { return (names, .member) }
            guard case .child(.wildcard)? = query.segments.last, query.segments.count > 1,
                let names = names(FilterQuery(absolute: query.absolute, segments: Array(query.segments.dropLast())))
            else { return nil }
            return (names, .children)
        }
        /// The member of `operand`, whether it is `length(@.name)`, and what `count()` counts.
        func tested(_ operand: FilterOperand) -> (names: [[UInt8]], length: Bool, counted: Counted?)? {
            if let names = member(operand) { return (names, false, nil) }
            guard case .function(let call) = operand else { return nil }
            if let (names, counted) = countOf(call) { return (names, false, counted) }
            guard call.name == .length, call.arguments.count == 1, case .value(let argument) = call.arguments[0],
                let names = member(argument)
            else { return nil }
            return (names, true, nil)
        }
        let literal: FilterLiteral
        let names: [[UInt8]]
        switch expression {
        case .comparison(let left, let op, let right):
            if let found = tested(left), case .literal(let value) = right {
                (names, literal, test) = (found.names, value, .compare(op, length: found.length, literalFirst: false))
                self.counted = found.counted
            } else if let found = tested(right), case .literal(let value) = left {
                (names, literal, test) = (found.names, value, .compare(op, length: found.length, literalFirst: true))
                self.counted = found.counted
            } else {
                return nil
            }
            regexp = nil
        case .function(let call):
            guard call.name == .match || call.name == .search, call.arguments.count == 2,
                case .value(let subject) = call.arguments[0], let found = member(subject),
                case .value(.literal(let pattern)) = call.arguments[1]
            else { return nil }
            (names, literal, test) = (found, pattern, .regexp(whole: call.name == .match))
            regexp = call.pattern
            self.counted = nil
        default:
            return nil
        }
        name = names[0]
        below = Array(names.dropFirst())
        switch literal {
        case .number(let text): (self.literal, bytes) = (.number, text)
        case .string(let text): (self.literal, bytes) = (.string, Array(text.utf8))
        case .bool(let flag): (self.literal, bytes) = (.bool(flag), [])
        case .null: (self.literal, bytes) = (.null, [])
        }
    }

    /// Whether the test compares the member's length (`length(@.tags) > 0`).
    var measuresLength: Bool {
        if case .compare(_, true, _) = test { return true }
        return false
    }

    /// Whether a length test holds for a container of `count` members or elements (its
    /// length), `digits` holding the number while it is compared (20 bytes at least). What the
    /// evaluator charges for it, the container's tokens, is the caller's to count.
    func holds(containerLength count: Int, digits: UnsafeMutableBufferPointer<UInt8>) -> Bool? {
        guard case .compare(let op, true, let literalFirst) = test else { return nil }
        return compare(.number(FilterScalar.decimal(count, in: digits)), op, literalFirst: literalFirst)
    }

    /// Whether the test holds when the member is `value` (`.nothing`: missing), adding to `work`
    /// what the evaluator charges for its function; nil when only the evaluator can tell (the
    /// length of a container: see `holds(containerLength:digits:)`).
    func holds(_ value: FilterScalar, work: inout Int) -> Bool? {
        switch test {
        case .regexp(let whole):
            guard let regexp, case .string(let text) = value else { return false }
            work = work.addingClamped(LineCounter.scalars(in: text).multipliedClamped(by: regexp.size / 16 + 1))
            return whole ? regexp.matches(utf8: text) : regexp.occurs(inUTF8: text)
        case .compare(let op, false, let literalFirst):
            return compare(value, op, literalFirst: literalFirst)
        case .compare(let op, true, let literalFirst):
            switch value {
            case .container: return nil
            case .string(let text):
                // As `FilterEvaluator.result`: a step per 16 bytes, and the length as a number.
                work = work.addingClamped(text.count / 16)
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
                    compare(.number(FilterScalar.decimal(LineCounter.scalars(in: text), in: digits)), op, literalFirst: literalFirst)
                }
            default: return compare(.nothing, op, literalFirst: literalFirst)
            }
        }
    }

    private func compare(_ value: FilterScalar, _ op: ComparisonOperator, literalFirst: Bool) -> Bool {
        bytes.withUnsafeBytes { bytes in
            let literal: FilterScalar =
                switch self.literal {
                case .number: .number(bytes)
                case .string: .string(bytes)
                case .bool(let flag): .bool(flag)
                case .null: .null
                }
            return literalFirst ? FilterScalar.holds(literal, op, value) : FilterScalar.holds(value, op, literal)
        }
    }
}

/// A filter's view of a jansson tree: values made trees where they were raw text.
struct TreeFilterValues: FilterValues {
    let root: Node?
    let document: Document

    func charge(_ steps: Int) throws(ReshapeError) { try document.charge(steps) }

    func kind(of value: Node) -> FilterValueKind {
        switch value.kind {
        case .string: .string
        case .integer, .real, .rawNumber: .number
        case .bool: .bool(value.isTrue)
        case .null: .null
        case .object, .rawObject: .object
        case .array, .rawArray: .array
        }
    }

    func stringBytes(of value: Node) -> UnsafeRawBufferPointer { value.stringBytes }

    func withNumberText(of value: Node, _ body: (UnsafeRawBufferPointer) -> Bool) -> Bool {
        var text: String
        switch value.kind {
        case .integer: text = String(value.integerValue)
        case .real: text = NumberText.text(of: value.realValue)
        default: return body(value.rawText)
        }
        return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    func count(of value: Node) throws(ReshapeError) -> Int {
        guard !value.kind.isRawContainer else {
            // Held as its text: counted on a tree of it, made for that.
            let tree = try RawValue.tree(of: value)
            defer { Make.release(tree) }
            return tree.isObject ? tree.objectCount : tree.arrayCount
        }
        return value.isObject ? value.objectCount : value.arrayCount
    }

    func member(_ name: KeyBytes, hash: UInt64, of value: Node) throws(ReshapeError) -> Node? { try value.member(name) }

    func element(_ index: Int, of value: Node) throws(ReshapeError) -> Node? { try value.element(index) }

    func forEachElement(of node: Node, _ body: (Node) throws(ReshapeError) -> Bool) throws(ReshapeError) {
        for index in 0..<node.arrayCount {
            guard let element = try node.element(index) else { continue }
            guard try body(element) else { return }
        }
    }

    func children(of node: Node) throws(ReshapeError) -> [Node] {
        var children: [Node] = []
        if node.isObject {
            try node.forEachMember { (_, value) throws(ReshapeError) in children.append(value) }
        } else if node.isArray {
            for index in 0..<node.arrayCount {
                if let element = try node.element(index) { children.append(element) }
            }
        }
        return children
    }

    func appendKey(of value: Node, to key: inout [UInt8]) throws(ReshapeError) {
        try ValueKey.append(value, to: &key, charging: document)
    }
}
