/// A place in the samples: a path whose steps are member names and wildcards, written as an
/// RFC 9535 query that selects every value found there (`$.users[*].devices`).
struct PathPattern: Hashable, Sendable {
    enum Step: Hashable, Sendable {
        case name(String)
        /// Every member of a keyed collection or dictionary (`.*`).
        case anyMember
        /// Every element of an array (`[*]`).
        case anyElement
    }

    var steps: [Step] = []

    static let root = PathPattern()

    func appending(_ step: Step) -> PathPattern {
        PathPattern(steps: steps + [step])
    }

    /// The pattern without its last step.
    var parent: PathPattern { PathPattern(steps: Array(steps.dropLast())) }

    /// The member name of the last step, if it is one.
    var lastName: String? {
        if case .name(let name)? = steps.last { return name }
        return nil
    }

    /// The query, with shorthand names where RFC 9535 allows them.
    var text: String {
        var text = "$"
        for step in steps {
            switch step {
            case .name(let name): text += Self.member(name)
            case .anyMember: text += ".*"
            case .anyElement: text += "[*]"
            }
        }
        return text
    }

    /// The query selecting the members `names` of the values at this pattern, as one union.
    func text(members names: [String]) -> String {
        guard names.count > 1 else { return names.first.map { appending(.name($0)).text } ?? text }
        return text + "[" + names.map(Self.quotedName).joined(separator: ",") + "]"
    }

    /// `.name` for a name RFC 9535's shorthand takes, `['name']` otherwise.
    static func member(_ name: String) -> String {
        isShorthand(name) ? "." + name : "[" + quotedName(name) + "]"
    }

    private static func isShorthand(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first else { return false }
        func isAlpha(_ scalar: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_"
        }
        return isAlpha(first) && name.unicodeScalars.allSatisfy { isAlpha($0) || ("0"..."9").contains($0) }
    }

    /// A name in single quotes as RFC 9535 writes it, with `'`, `\` and control characters escaped.
    static func quotedName(_ name: String) -> String {
        literal(name, quote: "'", shortEscapes: ["\u{08}": "\\b", "\u{0C}": "\\f"]) { "\\u00" + hex($0, width: 2).lowercased() }
    }
}

/// `text` as a string literal of a language: between `quote`s, with the quote and `\` escaped by
/// a `\`, line feeds, carriage returns and tabs as `\n`, `\r`, `\t`, the characters of
/// `shortEscapes` as given, and any other control character (and DEL) as `control` writes it.
func literal(
    _ text: String, quote: Unicode.Scalar, shortEscapes: [Unicode.Scalar: String] = [:], control: (UInt32) -> String
) -> String {
    var literal = String(quote)
    for scalar in text.unicodeScalars {
        switch scalar {
        case quote, "\\": literal += "\\" + String(scalar)
        case "\n": literal += "\\n"
        case "\r": literal += "\\r"
        case "\t": literal += "\\t"
        case _ where shortEscapes[scalar] != nil: literal += shortEscapes[scalar] ?? ""
        case _ where scalar.value < 0x20 || scalar.value == 0x7F: literal += control(scalar.value)
        default: literal.unicodeScalars.append(scalar)
        }
    }
    literal.unicodeScalars.append(quote)
    return literal
}
