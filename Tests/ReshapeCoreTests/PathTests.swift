import ReshapeCore
import Testing

/// The JSONPath subset, read as RFC 9535 reads it, and normalized paths written as §2.7 writes them.
@Suite struct PathTests {
    static let document = #"{"a": {"b": [10, 20, {"c": "x"}]}, "it's": {"k\"q": 1}, "ü": 2, "0": 3}"#

    @Test(arguments: [
        ("$.a.b[0]", "10"),
        ("$['a']['b'][-1].c", #""x""#),
        (#"$["a"]["b"][1]"#, "20"),
        ("$ .a [ 'b' ] [ 2 ] .c", #""x""#),
        ("$.a. c", ""),
        (#"$['it\'s']['k"q']"#, "1"),
        (#"$["it's"]["k\"q"]"#, "1"),
        (#"$['\u00fc']"#, "2"),
        ("$.ü", "2"),
        ("$['0']", "3"),
        ("$.a.b[*]", #"[10,20,{"c":"x"}]"#),
        ("$.*.b[2].*", #"["x"]"#),
        ("$..c", #"["x"]"#),
        ("$..[0]", "[10]"),
        ("$..['k\"q']", "[1]"),
        // RFC 9535 order: the children of each visited value, values visited before their descendants.
        ("$..[*]", #"[{"b":[10,20,{"c":"x"}]},{"k\"q":1},2,3,[10,20,{"c":"x"}],10,20,{"c":"x"},"x",1]"#),
        ("$.a.b[?]", ""),
    ])
    func unwrapSelects(path: String, expected: String) throws {
        let rules = #"[{"op": "unwrap", "path": \#(jsonString(path))}]"#
        if expected.isEmpty {
            #expect(throws: ReshapeError.self) { try Rules(json: rules) }
            return
        }
        #expect(try Rules(json: rules).apply(to: Self.document) == expected)
    }

    @Test(arguments: [
        ("$..", "expected a member name, '*' or '[' after '..'"),
        ("$.", "expected a member name or '*' after '.'"),
        ("$.1a", "a member name after '.' cannot start with a digit; write [n] for an index or ['name'] for such a name"),
        ("$[01]", "leading zeros are not allowed in an index"),
        ("$[-0]", "-0 is not a valid index"),
        ("$[9007199254740992]", "the index is out of range (at most 9007199254740991 in magnitude)"),
        ("$['a'", "unterminated '['"),
        ("$['a]", "unterminated string"),
        (#"$['\q']"#, #"invalid escape '\q' in a name"#),
        (#"$['\ud800']"#, #"lone high surrogate in a \u escape"#),
        ("$[@.a]", "unexpected '@' in brackets; expected 'name', *, an index, a slice or a filter"),
        ("@.a", "a path must start with '$'"),
        ("", "the path is empty; it must start with '$'"),
        ("$[?@.a == @.*]", "a compared query must select at most one node"),
        ("$[?count(1) > 0]", "count() needs a query, found a literal"),
        ("$[?match(@.a)]", "match() takes 2 arguments, found 1"),
        ("$[?foo(@)]", "unknown function \"foo\""),
        ("$[?@.a == True]", "unexpected 'T' in a filter"), ("$[?@.a == nul]", "unknown word \"nul\" in a filter"),
        ("$[1,]", "unexpected ']' in brackets"),
        ("$.length()", "unexpected '(' in a member name; write ['length…'] for names with such characters"),
    ])
    func invalidPathsAreExplained(path: String, message: String) {
        do {
            _ = try Rules(json: #"[{"op": "unwrap", "path": \#(jsonString(path))}]"#)
            Issue.record("\(path) compiled")
        } catch {
            #expect(error.code == .invalidRules)
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    /// A function argument is parsed once: nested calls whose innermost argument is refused cost
    /// linear time (parsing each again on failure doubled the cost per level: 3 s for 20 levels).
    @Test func nestedFunctionArgumentsParseOnce() {
        let depth = 40
        let path = "$[?" + String(repeating: "count(", count: depth) + "@==1" + String(repeating: ")", count: depth) + "]"
        let started = ContinuousClock.now
        #expect(throws: ReshapeError.self) { try Rules(json: #"[{"op": "remove", "path": \#(jsonString(path))}]"#) }
        #expect(ContinuousClock.now - started < .seconds(1))
    }

    @Test func normalizedPathsEscapeNames() throws {
        let rules = try Rules(json: #"[{"op": "keyedToArray", "path": "$.*"}]"#)
        let input = #"{"it's \\ \u0001\u0008\t\n\f\r\u001f\u007f é": "x"}"#
        do {
            _ = try rules.apply(to: input)
            Issue.record("expected a failure")
        } catch {
            #expect(error.path == #"$['it\'s \\ \u0001\b\t\n\f\r\u001f"# + "\u{7F} é']")
        }
    }

    private func jsonString(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
