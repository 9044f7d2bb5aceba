/// The type of the values found at one place of the reshaped samples, as `reshape infer` writes it
/// in Swift and Python.
final class InferredType: Sendable {
    indirect enum Kind: Sendable {
        /// Only `null` was seen, or nothing: the type is unknown.
        case unknown
        case bool
        case integer
        case real
        case string
        /// Values of several JSON types: any JSON value.
        case any
        /// Only `{}` was seen: an object of unknown members.
        case emptyObject
        /// An object with these fields, in their order of first appearance.
        case object([InferredField])
        /// An array of these elements; `lossy` when elements of other types were seen too (the
        /// element type is the most common one's, and the others are dropped in Swift).
        case array(InferredType, lossy: Bool)
        /// An object whose member names are data (ids), every value of this type.
        case dictionary(InferredType)
    }

    let kind: Kind
    /// `null` was seen (or is made by the rules: `""`, `{}`).
    let nullable: Bool

    /// Nothing but `null` was seen.
    var isUnknown: Bool {
        if case .unknown = kind { return true }
        return false
    }

    init(_ kind: Kind, nullable: Bool) {
        self.kind = kind
        self.nullable = nullable
    }
}

/// One member of an inferred object.
struct InferredField: Sendable {
    /// The member's name in the reshaped output.
    let name: String
    let type: InferredType
    /// Present in every object seen.
    let required: Bool
}

/// Type names made unique, and names made from member names (`display_name` → `DisplayName`,
/// `users` → `User` for an element).
struct TypeNames {
    private var used: Set<String>

    init(reserved: Set<String>) {
        used = reserved
    }

    /// Names of the standard library and Foundation that a type of ours would hide.
    static let standard: Set<String> = [
        "Any", "Array", "Bool", "Character", "Codable", "Data", "Date", "Decimal", "Decodable", "Dictionary", "Double",
        "Encodable", "Error", "Float", "Int", "JSONValue", "LossyArray", "Never", "Optional", "PayloadTransformable", "Range",
        "Result", "Rule", "Sendable", "Set", "String", "Substring", "Type", "URL", "UUID", "Void",
    ]

    /// A name not given before, from `base`: `base` itself, else `parent` + `base`
    /// (`DatumLinks`), else numbered (`DatumLinks2`).
    mutating func unique(_ base: String, parent: String) -> String {
        if !used.contains(base), !Self.standard.contains(base) {
            used.insert(base)
            return base
        }
        var name = parent + base
        var number = 2
        while used.contains(name) {
            name = base + String(number)
            number += 1
        }
        used.insert(name)
        return name
    }

    /// `display_name`, `display-name`, `displayName` → `DisplayName`; a name with no letter or
    /// digit → `Value`; a leading digit gets `Value` before it.
    static func upperCamel(_ member: String) -> String {
        var words: [String] = []
        var word = ""
        for scalar in member.unicodeScalars {
            let isWordScalar = scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar))
            if isWordScalar {
                word.unicodeScalars.append(scalar)
            } else if !word.isEmpty {
                words.append(word)
                word = ""
            }
        }
        if !word.isEmpty { words.append(word) }
        var name = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if name.isEmpty { name = "Value" }
        if let first = name.unicodeScalars.first, ("0"..."9").contains(first) { name = "Value" + name }
        return name
    }

    /// The type name of one element of an array named `member`: `users` → `User`,
    /// `categories` → `Category`, `data` → `Datum`; a name that is not a plural gets `Element`
    /// (`news` → `NewsElement`, `list` → `ListElement`).
    static func element(_ member: String) -> String {
        let name = upperCamel(member)
        let irregular = ["Children": "Child", "People": "Person", "Men": "Man", "Women": "Woman", "Data": "Datum", "Criteria": "Criterion"]
        if let singular = irregular[name] { return singular }
        if name.hasSuffix("ies"), name.count > 3 { return String(name.dropLast(3)) + "y" }
        if name.hasSuffix("sses") || name.hasSuffix("xes") || name.hasSuffix("ches") || name.hasSuffix("shes") {
            return String(name.dropLast(2))
        }
        if name.hasSuffix("ss") || name.hasSuffix("us") || name.hasSuffix("is") || name.hasSuffix("news") || name.hasSuffix("News") { return name + "Element" }
        if name.hasSuffix("s"), name.count > 1 { return String(name.dropLast()) }
        return name + "Element"
    }
}
