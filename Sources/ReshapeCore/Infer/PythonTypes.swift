extension Inference {
    /// Python source for the reshaped samples: a `TypedDict` per object found (nested types named
    /// after their members), declared before the types that use them, for Python 3.11 or later
    /// (`typing.NotRequired`) and `mypy --strict`.
    ///
    /// TypedDicts, not dataclasses: what `json.loads` or `reshape.Rules.apply` returns is already
    /// dicts and lists, and a TypedDict types them as they are, with no conversion and no copy;
    /// a dataclass would need a constructor from those dicts, written or generated, and run on
    /// every response. Members missing from some objects are `NotRequired`, members `null` in
    /// some (or made `null` by the rules) are `X | None`, a place of several JSON types is `Any`,
    /// and so are the elements of an array whose elements disagree.
    /// - Parameter root: The root type's name, a Python identifier.
    /// - Returns: The source of one module.
    /// - Throws: `invalid_argument` when `root` is not a Python identifier.
    public func python(root: String = "Root") throws(ReshapeError) -> String {
        guard SwiftNames.isIdentifier(root), !PythonTypeWriter.keywords.contains(root) else {
            throw ReshapeError(.invalidArgument, "\(quoted(root)) is not a Python type name")
        }
        var writer = PythonTypeWriter(root: root)
        writer.writeRoot(type)
        return "\"\"\"Made by `reshape infer`: the types of the reshaped samples.\n\n"
            + "Read them before relying on them: samples show what an API sent, not all it can send.\n\"\"\"\n\n"
            + "from typing import Any, NotRequired, TypedDict\n\n\n" + writer.declarations.joined(separator: "\n\n")
    }
}

/// Writes the declarations, each after the types it uses. Nesting is bounded by
/// `SampleAnalysis.maxDepth`, so the recursion is too.
private struct PythonTypeWriter {
    static let keywords: Set<String> = [
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif",
        "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or",
        "pass", "raise", "return", "try", "while", "with", "yield",
    ]

    var names: TypeNames
    var declarations: [String] = []
    let root: String

    init(root: String) {
        self.root = root
        names = TypeNames(reserved: ["Any", "NotRequired", "TypedDict", root])
    }

    mutating func writeRoot(_ type: InferredType) {
        if case .object(let fields) = type.kind, !type.nullable {
            writeTypedDict(root, fields: fields)
        } else {
            // Not an object, or an object or `null`: an alias of the type.
            let value = typeExpression(type, hint: root, parent: root, element: true)
            declarations.append("\(root) = \(type.nullable ? value + " | None" : value)\n")
        }
    }

    private mutating func writeTypedDict(_ name: String, fields: [InferredField]) {
        var members: [(name: String, type: String)] = []
        for field in fields {
            var type = typeExpression(field.type, hint: field.name, parent: name, element: false)
            if field.type.nullable, type != "Any" { type += " | None" }
            if !field.required { type = "NotRequired[\(type)]" }
            members.append((field.name, type))
        }
        // A class body mangles names that start with `__` (`__x` becomes `_Name__x`).
        let classSyntax = members.allSatisfy {
            SwiftNames.isIdentifier($0.name) && !Self.keywords.contains($0.name) && !$0.name.hasPrefix("__")
        }
        if classSyntax {
            var lines = ["class \(name)(TypedDict):"]
            if members.isEmpty { lines.append("    pass") }
            for member in members { lines.append("    \(member.name): \(member.type)") }
            declarations.append(lines.joined(separator: "\n") + "\n")
        } else {
            // Names that are not identifiers: the functional syntax takes any string.
            var lines = ["\(name) = TypedDict(", "    \(Self.literal(name)),", "    {"]
            for member in members { lines.append("        \(Self.literal(member.name)): \(member.type),") }
            lines += ["    },", ")"]
            declarations.append(lines.joined(separator: "\n") + "\n")
        }
    }

    private mutating func typeExpression(_ type: InferredType, hint: String, parent: String, element: Bool) -> String {
        switch type.kind {
        case .unknown, .any: return "Any"
        case .bool: return "bool"
        case .integer: return "int"
        case .real: return "float"
        case .string: return "str"
        case .emptyObject: return "dict[str, Any]"
        case .object(let fields):
            let name = names.unique(element ? TypeNames.element(hint) : TypeNames.upperCamel(hint), parent: parent)
            writeTypedDict(name, fields: fields)
            return name
        case .array(let elements, let lossy):
            guard !lossy else { return "list[Any]" }
            let inner = typeExpression(elements, hint: hint, parent: parent, element: true)
            return "list[\(elements.nullable && inner != "Any" ? inner + " | None" : inner)]"
        case .dictionary(let values):
            let inner = typeExpression(values, hint: TypeNames.upperCamel(hint) + "Value", parent: parent, element: false)
            return "dict[str, \(values.nullable && inner != "Any" ? inner + " | None" : inner)]"
        }
    }

    /// A Python string literal of `text` (double quotes, escapes for quotes, backslashes and
    /// control characters).
    static func literal(_ text: String) -> String {
        ReshapeCore.literal(text, quote: "\"") { "\\x" + hex($0, width: 2).lowercased() }
    }
}
