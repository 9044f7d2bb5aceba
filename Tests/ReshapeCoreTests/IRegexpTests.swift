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
}
