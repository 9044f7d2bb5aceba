import Testing

@testable import ReshapeCore

/// I-Regexp (RFC 9485): what the grammar accepts and refuses, and what a pattern matches, as a
/// whole (`match()`) and anywhere (`search()`).
@Suite struct IRegexpTests {
    static let cases: [(pattern: String, text: String, whole: Bool, anywhere: Bool)] = [
        ("abc", "abc", true, true), ("abc", "xabcx", false, true), ("a.c", "a\nc", false, false),
        ("a.c", "aéc", true, true), ("a*", "", true, true), ("a+", "", false, false), ("colou?r", "color", true, true),
        ("(ab|cd)+", "abcdab", true, true), ("(ab|cd)+", "abce", false, true), ("a{2,3}", "aaaa", false, true),
        ("a{2,3}", "aaa", true, true), ("a{2}", "a", false, false), ("a{2,}", "aaaaaa", true, true),
        ("[a-c]+", "abcb", true, true), ("[^a-c]", "d", true, true), ("[^a-c]", "a", false, false),
        ("[-a]+", "-a-", true, true), ("[a-]+", "a-", true, true), ("\\p{Lu}\\p{Ll}*", "Éclair", true, true),
        ("\\p{L}+", "日本", true, true), ("\\P{L}", "1", true, true), ("\\P{L}", "x", false, false),
        ("[\\p{N}_]+", "12_3", true, true), (".*_url", "avatar_url", true, true), (".*_url", "url", false, false),
        ("[$]\\^", "$^", true, true), ("^ab", "xab", false, false), ("ab$", "xab", false, true), ("ab$", "abx", false, false), ("^ab", "abx", false, true), ("a|", "", true, true), ("\\.", ".", true, true), ("\\.", "x", false, false),
        ("[\\-\\]]", "]", true, true), ("\\t\\n\\r", "\t\n\r", true, true), ("(a|b)*c", "ababab", false, false),
        ("\\p{Nd}{3}", "١٢٣", true, true), ("x{0}", "", true, true), ("(((a)))", "a", true, true),
        ("[.]", ".", true, true), ("[.]", "a", false, false), ("\\p{Zs}", "\u{00A0}", true, true),
        // Larger than the automaton's scratch on the stack (see `IRegexp.run`): on the heap.
        ("(ab|é){0,30}c", "ababéc", true, true), ("(ab|é){0,30}c", "xaébd", false, false), ("(ab|é){0,30}c", "xébc", false, true),
    ]

    @Test func matchesWholeAndAnywhere() throws {
        for test in Self.cases {
            let regexp = try IRegexp.compile(test.pattern).get()
            #expect(regexp.matches(test.text) == test.whole, "match(\(test.text.debugDescription), \(test.pattern))")
            #expect(regexp.occurs(in: test.text) == test.anywhere, "search(\(test.text.debugDescription), \(test.pattern))")
        }
    }

    @Test(arguments: [
        "(", ")", "a)", "[", "[]", "[a", "a{", "a{2", "a{3,2}", "*", "+a", "a**", "{1}", "]", "}", "\\", "\\d", "\\w",
        "\\p{Xx}", "\\p{L", "\\pL", "[a-\\p{L}]", "[z-a]", "[a-b-c]", "(?:a)", "a{,2}",
    ])
    func refused(_ pattern: String) {
        if case .success = IRegexp.compile(pattern) { Issue.record("\(pattern.debugDescription) was accepted") }
    }

    /// No pattern makes matching slow: the automaton is bounded, and matching is linear.
    @Test func hostilePatternsStayBounded() throws {
        let nested = String(repeating: "(", count: 65) + "a" + String(repeating: ")", count: 65)
        #expect(throws: IRegexp.Failure.self) { try IRegexp.compile(nested).get() }
        #expect(throws: IRegexp.Failure.self) { try IRegexp.compile("(a{1000}){1000}").get() }
        // A repeated part that emits nothing still counts: this took minutes before.
        #expect(throws: IRegexp.Failure.self) { try IRegexp.compile("((((){1000000}){1000000}){1000000})").get() }
        let catastrophic = try IRegexp.compile("(a*)*b").get()
        #expect(!catastrophic.matches(String(repeating: "a", count: 20_000)))
    }

    /// A pattern that is a plain string (`team`, `東京`, `a\\.b`, `[x]y`) is matched as bytes
    /// (`IRegexp.literal`), one that is a fixed sequence of sets (`g[13]`, `.b`, `\\p{Lu}`) scalar
    /// by scalar; the automaton decides any other. All give what the automaton gives for the
    /// same pattern written as an alternative of itself (`team|team`, which always runs it): on
    /// random text of its pieces, in several scripts, whole and anywhere.
    @Test func plainStringPatternsMatchAsTheAutomatonDoes() throws {
        let patterns: [(pattern: String, plain: Bool, fixed: Bool)] = [
            ("team", true, true), ("東京 t", true, true), ("a\\.b", true, true), ("[x]y", true, true), ("🚀", true, true),
            ("aa", true, true), ("a", true, true), ("a.b", false, true), ("[xy]", false, true), ("\\p{Lu}", false, true),
            ("[^a-m]a", false, true), ("x{2}", true, true), ("[a-z]{2}", false, true), ("[^é]a", false, true),
            ("^team", false, false), ("team$", false, false), ("te+am", false, false), ("a|x", false, false),
        ]
        var random = SeededGenerator(seed: 9_485)
        let pieces = ["t", "e", "a", "m", "team", "東京", "東京 t", " ", "a.b", "x", "y", "xy", "T", "🚀", "é", "\n", "aa", "xx", "za", "éa"]
        for (pattern, plain, fixed) in patterns {
            let regexp = try IRegexp.compile(pattern).get()
            let automaton = try IRegexp.compile("\(pattern)|\(pattern)").get()
            #expect((regexp.literal != nil) == plain && regexp.runsAutomaton == !fixed, "\(pattern)")
            #expect(automaton.runsAutomaton, "\(pattern)")
            var matched = 0
            var found = 0
            for length in 0..<400 {
                var text = ""
                for _ in 0..<(length % 9) { text += random.pick(pieces) }
                if length % 3 == 0 { text = random.pick(pieces) }
                #expect(regexp.matches(text) == automaton.matches(text), "\(pattern) whole on \(text)")
                #expect(regexp.occurs(in: text) == automaton.occurs(in: text), "\(pattern) anywhere in \(text)")
                if regexp.matches(text) { matched += 1 }
                if regexp.occurs(in: text) { found += 1 }
            }
            #expect(matched > 0 && found > matched && found < 400, "\(pattern): \(matched) whole, \(found) anywhere")
        }
    }
}
