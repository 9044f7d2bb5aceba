extension Inference {
    /// Swift source for the reshaped samples: `Codable` structs, one per object found (nested
    /// types named after their members), the root conforming to `PayloadTransformable` with the
    /// rules as `static let rules`, so that `ResponseDecoder().decode(Root.self, from: body)`
    /// reshapes and decodes in one call.
    ///
    /// Members missing from some objects, or `null` in some (or made `null` by the rules), are
    /// optionals; an array whose elements disagree is a `LossyArray` of the most common kind; a
    /// place holding several JSON types is a `JSONValue`; dates stay what the API sends (strings or
    /// numbers), never guessed.
    /// - Parameter root: The root type's name, a Swift identifier.
    /// - Returns: The source of one file, which imports Reshape.
    /// - Throws: `invalid_argument` when `root` is not a Swift type name.
    public func swift(root: String = "Root") throws(ReshapeError) -> String {
        guard SwiftNames.isIdentifier(root), !SwiftNames.keywords.contains(root) else {
            throw ReshapeError(.invalidArgument, "\(quoted(root)) is not a Swift type name")
        }
        var writer = SwiftTypeWriter(root: root)
        let rules = try self.rules.json(pretty: true)
        writer.writeRoot(type, rules: String(decoding: rules, as: UTF8.self))
        return "// Made by `reshape infer`: the types of the reshaped samples and the rules that make them.\n"
            + "// Read them before relying on them: samples show what an API sent, not all it can send.\n"
            + "import Reshape\n\n" + writer.declarations.joined(separator: "\n")
    }
}

/// Swift's identifiers and keywords, as the generated code needs them.
enum SwiftNames {
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static",
        "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do", "else",
        "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while", "Any", "as",
        "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try", "Type", "Protocol",
    ]

    /// Names a stored property cannot have, even in backticks: such a member's property gets
    /// `Value` after its name (`selfValue`), with a coding key.
    static let reserved: Set<String> = ["self", "Self", "Type", "Protocol", "init", "deinit", "subscript", "super", "_"]

    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "_")
        }
    }

    /// A Swift string literal of `text`.
    static func literal(_ text: String) -> String {
        ReshapeCore.literal(text, quote: "\"") { "\\u{\(hex($0, width: 1))}" }
    }
}

/// Writes the declarations, depth first from the root: each struct before the structs of its
/// members. Nesting is bounded by `SampleAnalysis.maxDepth`, so the recursion is too.
private struct SwiftTypeWriter {
    var names: TypeNames
    var declarations: [String] = []
    let root: String

    init(root: String) {
        self.root = root
        names = TypeNames(reserved: ["Reshape", "Rule", "JSONValue", "LossyArray", "PayloadTransformable", "Codable", "String", "Int", "Double", "Bool", root])
    }

    mutating func writeRoot(_ type: InferredType, rules: String) {
        var hashes = "#"
        while rules.contains("\"" + hashes) { hashes += "#" }
        // A raw string whose lines are indented as its closing delimiter is: Swift strips that.
        let rulesDeclaration = (
            [
                "    /// The rules that reshape a response into this type, proposed by `reshape infer`.",
                "    static let rules: [Rule] = [",
                "        .document(",
                "            \(hashes)\"\"\"",
            ] + rules.split(separator: "\n", omittingEmptySubsequences: false).map { "            " + $0 } + [
                "            \"\"\"\(hashes)",
                "        )",
                "    ]",
            ]
        ).joined(separator: "\n")
        if case .object(let fields) = type.kind, !type.nullable {
            writeStruct(root, fields: fields, conformances: "PayloadTransformable, Encodable", extra: rulesDeclaration)
            return
        }
        // Not an object (or an object or `null`): the root holds the value, decoded from the whole
        // (reshaped) response.
        let value = typeExpression(type, hint: root, parent: root, element: true, optional: type.nullable)
        var lines = ["/// The reshaped response.", "struct \(root): PayloadTransformable, Encodable {", rulesDeclaration, ""]
        lines.append("    let value: \(value)")
        lines.append("")
        lines.append("    init(from decoder: any Decoder) throws {")
        lines.append("        value = try decoder.singleValueContainer().decode(\(value).self)")
        lines.append("    }")
        lines.append("")
        lines.append("    func encode(to encoder: any Encoder) throws {")
        lines.append("        var container = encoder.singleValueContainer()")
        lines.append("        try container.encode(value)")
        lines.append("    }")
        lines.append("}")
        declarations.insert(lines.joined(separator: "\n") + "\n", at: 0)
    }

    /// Declares a struct for `fields` and returns nothing; its members' structs follow it.
    private mutating func writeStruct(_ name: String, fields: [InferredField], conformances: String, extra: String?) {
        let slot = declarations.count
        declarations.append("")
        var properties: [String] = []
        var keys: [(property: String, name: String)] = []
        var usedProperties: Set<String> = []
        var needsKeys = false
        for field in fields {
            var property = SwiftNames.isIdentifier(field.name) && !SwiftNames.reserved.contains(field.name) ? field.name : Self.propertyName(field.name)
            if property != field.name { needsKeys = true }
            var number = 2
            let base = property
            while usedProperties.contains(property) {
                property = base + String(number)
                number += 1
                needsKeys = true
            }
            usedProperties.insert(property)
            keys.append((property, field.name))
            let type = typeExpression(field.type, hint: field.name, parent: name, element: false, optional: field.type.nullable || !field.required)
            let written = SwiftNames.keywords.contains(property) ? "`\(property)`" : property
            properties.append("    let \(written): \(type)")
        }
        var lines = ["struct \(name): \(conformances) {"]
        if let extra {
            lines.append(extra)
            if !properties.isEmpty { lines.append("") }
        }
        lines += properties
        if needsKeys {
            lines.append("")
            lines.append("    enum CodingKeys: String, CodingKey {")
            for key in keys {
                let written = SwiftNames.keywords.contains(key.property) ? "`\(key.property)`" : key.property
                lines.append(key.property == key.name ? "        case \(written)" : "        case \(written) = \(SwiftNames.literal(key.name))")
            }
            lines.append("    }")
        }
        lines.append("}")
        declarations[slot] = lines.joined(separator: "\n") + "\n"
    }

    /// The Swift type of a value of `type`, declaring the structs it needs.
    private mutating func typeExpression(_ type: InferredType, hint: String, parent: String, element: Bool, optional: Bool) -> String {
        let base: String
        switch type.kind {
        case .unknown, .any: base = "JSONValue"
        case .bool: base = "Bool"
        case .integer: base = "Int"
        case .real: base = "Double"
        case .string: base = "String"
        case .emptyObject: base = "[String: JSONValue]"
        case .object(let fields):
            base = names.unique(element ? TypeNames.element(hint) : TypeNames.upperCamel(hint), parent: parent)
            writeStruct(base, fields: fields, conformances: "Codable, Sendable", extra: nil)
        case .array(let elements, let lossy):
            let inner = typeExpression(elements, hint: hint, parent: parent, element: true, optional: elements.nullable && !elements.isUnknown)
            base = lossy ? "LossyArray<\(inner)>" : "[\(inner)]"
        case .dictionary(let values):
            base = "[String: \(typeExpression(values, hint: TypeNames.upperCamel(hint) + "Value", parent: parent, element: false, optional: values.nullable && !values.isUnknown))]"
        }
        return optional ? base + "?" : base
    }

    /// A property name for a member name that is not a Swift identifier: its words in camelCase.
    private static func propertyName(_ name: String) -> String {
        if SwiftNames.reserved.contains(name) { return name == "_" ? "value" : name + "Value" }
        let upper = TypeNames.upperCamel(name)
        return upper.prefix(1).lowercased() + upper.dropFirst()
    }
}
