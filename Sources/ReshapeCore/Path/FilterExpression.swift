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

    var isSingular: Bool { JSONPath(text: "", segments: segments).isSingular }
    var readsRoot: Bool { absolute || segments.contains { $0.selector.readsRoot } }
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

/// Evaluates filters against jansson nodes: the node being filtered (`@`) and the document's root
/// (`$`). Queries inside filters select plain node lists (not recorded in the selection). Every
/// child looked at is a step of work.
struct FilterEvaluator {
    let root: Node
    let document: Document

    /// Whether `expression` holds for `node`.
    func holds(_ expression: FilterExpression, on node: Node) throws(ReshapeError) -> Bool {
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
            return try !select(query, from: node).isEmpty
        case .function(let call):
            return try logical(call, on: node)
        case .comparison(let left, let op, let right):
            let a = try value(left, on: node)
            let b = try value(right, on: node)
            switch op {
            case .equal: return try equal(a, b)
            case .notEqual: return try !equal(a, b)
            case .less: return Self.less(a, b)
            case .lessOrEqual:
                if Self.less(a, b) { return true }
                return try equal(a, b)
            case .greater: return Self.less(b, a)
            case .greaterOrEqual:
                if Self.less(b, a) { return true }
                return try equal(a, b)
            }
        }
    }

    /// A value in a comparison or an argument: a node, a literal, or nothing.
    enum Value {
        case nothing
        case node(Node)
        case literal(FilterLiteral)
    }

    private func value(_ operand: FilterOperand, on node: Node) throws(ReshapeError) -> Value {
        switch operand {
        case .literal(let literal):
            return .literal(literal)
        case .query(let query):
            let nodes = try select(query, from: node)
            return nodes.count == 1 ? .node(nodes[0]) : .nothing
        case .function(let call):
            return try result(call, on: node)
        }
    }

    /// The value of a function whose result is a value.
    private func result(_ call: FilterFunction, on node: Node) throws(ReshapeError) -> Value {
        switch call.name {
        case .length:
            guard case .value(let operand) = call.arguments[0] else { return .nothing }
            let argument = try value(operand, on: node)
            let length: Int
            switch argument {
            case .literal(.string(let text)): length = text.unicodeScalars.count
            case .node(let found) where found.kind == .string:
                // Counting scalars reads the string: a step per 16 bytes, as for `match`.
                try document.charge(found.stringBytes.count / 16)
                length = String(decoding: found.stringBytes, as: UTF8.self).unicodeScalars.count
            case .node(let found) where found.isArray: length = found.arrayCount
            case .node(let found) where found.isObject: length = found.objectCount
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
    private func logical(_ call: FilterFunction, on node: Node) throws(ReshapeError) -> Bool {
        guard call.name == .match || call.name == .search, call.arguments.count == 2,
            case .value(let subject) = call.arguments[0], case .value(let patternOperand) = call.arguments[1],
            let text = Self.string(try value(subject, on: node))
        else { return false }
        var regexp = call.pattern
        if regexp == nil {
            if case .literal = patternOperand { return false }  // Not an I-Regexp: nothing matches.
            guard let pattern = Self.string(try value(patternOperand, on: node)) else { return false }
            regexp = try? IRegexp.compile(pattern).get()
        }
        guard let regexp else { return false }
        try document.charge(text.unicodeScalars.count.multipliedClamped(by: regexp.size / 16 + 1))
        return call.name == .match ? regexp.matches(text.unicodeScalars) : regexp.occurs(in: text.unicodeScalars)
    }

    private static func string(_ value: Value) -> String? {
        switch value {
        case .literal(.string(let text)): text
        case .node(let node) where node.kind == .string: String(decoding: node.stringBytes, as: UTF8.self)
        default: nil
        }
    }

    // MARK: Queries

    /// The nodes `query` selects from `node` (or from the root), in RFC 9535 order.
    func select(_ query: FilterQuery, from node: Node) throws(ReshapeError) -> [Node] {
        var current = [query.absolute ? root : node]
        for segment in query.segments {
            var next: [Node] = []
            switch segment {
            case .child(let selector):
                for input in current { try pick(selector, in: input, into: &next) }
            case .descendant(let selector):
                for input in current {
                    // Preorder: a value before its descendants, children in order.
                    var pending = [input]
                    while let visited = pending.popLast() {
                        try pick(selector, in: visited, into: &next)
                        let children = try self.children(of: visited)
                        pending += children.reversed().filter { $0.isObject || $0.isArray }
                    }
                }
            }
            current = next
        }
        return current
    }

    /// The children of a container, in order, made trees where they were raw.
    func children(of node: Node) throws(ReshapeError) -> [Node] {
        var children: [Node] = []
        if node.isObject {
            try document.charge(node.objectCount)
            try node.forEachMember { (_, value) throws(ReshapeError) in children.append(value) }
        } else if node.isArray {
            try document.charge(node.arrayCount)
            for index in 0..<node.arrayCount {
                if let element = try node.element(index) { children.append(element) }
            }
        }
        return children
    }

    /// Appends what `selector` selects among the children of `node`.
    func pick(_ selector: JSONPath.Selector, in node: Node, into next: inout [Node]) throws(ReshapeError) {
        switch selector {
        case .name(let name):
            guard node.isObject, let child = try node.member(name.bytes) else { return }
            next.append(child)
        case .index(let wanted):
            guard node.isArray else { return }
            let index = wanted >= 0 ? wanted : node.arrayCount + wanted
            guard index >= 0, index < node.arrayCount, let child = try node.element(index) else { return }
            next.append(child)
        case .wildcard:
            next += try children(of: node)
        case .slice(let start, let end, let step):
            guard node.isArray, let indices = JSONPath.Selector.sliceIndices(start: start, end: end, step: step, count: node.arrayCount)
            else { return }
            for index in indices {
                try document.charge(1)
                if let child = try node.element(index) { next.append(child) }
            }
        case .filter(let expression):
            for child in try children(of: node) where try holds(expression, on: child) { next.append(child) }
        case .union(let selectors):
            for inner in selectors { try pick(inner, in: node, into: &next) }
        }
    }

    // MARK: Comparisons (RFC 9535 section 2.3.5.2.2)

    /// What a value is, for comparing.
    private enum Compared {
        case nothing
        case number([UInt8])
        case string(UnsafeRawBufferPointer)
        case bool(Bool)
        case null
        case container(Node)
    }

    private static func compared(_ value: Value, _ body: (Compared) -> Bool) -> Bool {
        switch value {
        case .nothing: return body(.nothing)
        case .literal(.number(let text)): return body(.number(text))
        case .literal(.string(let text)):
            var text = text
            return text.withUTF8 { body(.string(UnsafeRawBufferPointer($0))) }
        case .literal(.bool(let flag)): return body(.bool(flag))
        case .literal(.null): return body(.null)
        case .node(let node):
            switch node.kind {
            case .string: return body(.string(node.stringBytes))
            case .integer: return body(.number(Array(String(node.integerValue).utf8)))
            case .real: return body(.number(Array(NumberText.text(of: node.realValue).utf8)))
            case .rawNumber: return body(.number(Array(node.rawText)))
            case .bool: return body(.bool(node.isTrue))
            case .null: return body(.null)
            default: return body(.container(node))
            }
        }
    }

    /// RFC 9535 equality; containers compare member by member (their keys, see `ValueKey`, each
    /// value a step of work).
    func equal(_ a: Value, _ b: Value) throws(ReshapeError) -> Bool {
        if case .node(let x) = a, case .node(let y) = b, x.isObject || x.isArray {
            guard x.isObject == y.isObject, x.isArray == y.isArray,
                x.isObject ? x.objectCount == y.objectCount : x.arrayCount == y.arrayCount
            else { return false }
            var left: [UInt8] = []
            var right: [UInt8] = []
            try ValueKey.append(x, to: &left, charging: document)
            try ValueKey.append(y, to: &right, charging: document)
            return left == right
        }
        return Self.compared(a) { left in
            Self.compared(b) { right in
                switch (left, right) {
                case (.nothing, .nothing): return true
                case (.number(let x), .number(let y)):
                    return x.withUnsafeBytes { x in y.withUnsafeBytes { y in NumberLiteral.compareExactly(x, y) == 0 } }
                case (.string(let x), .string(let y)): return x.elementsEqual(y)
                case (.bool(let x), .bool(let y)): return x == y
                case (.null, .null): return true
                default: return false
                }
            }
        }
    }

    static func less(_ a: Value, _ b: Value) -> Bool {
        compared(a) { left in
            compared(b) { right in
                switch (left, right) {
                case (.number(let x), .number(let y)):
                    return x.withUnsafeBytes { x in y.withUnsafeBytes { y in NumberLiteral.compareExactly(x, y) < 0 } }
                // UTF-8 orders as the Unicode scalar values it encodes.
                case (.string(let x), .string(let y)): return x.lexicographicallyPrecedes(y)
                default: return false
                }
            }
        }
    }
}
