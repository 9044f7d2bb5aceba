@testable import ReshapeCore
import Testing

/// Filters decided on a record's text (`RecordPeek`, `MemberTests`) against the evaluator on
/// tokens (`FilterEvaluator`, which the tree uses too).
@Suite struct FilterTextTests {
    /// `MemberTests.holds(on:in:scratch:)` decides a filter on the text of the members it reads as the
    /// evaluator does on their tokens (`FilterGate.decide`), and counts the same steps: members
    /// inside members (`@.p.city`, `value(...)`, in `length()` of a string or a container,
    /// `match()`, `search()`), `count()` of a member or of its children, joined by `&&`, `||` and `!`, on random objects whose
    /// members hold scalars, arrays, objects two deep, escaped strings and names, a name twice.
    /// Where the text cannot tell it says so (nil), and some of each kind are decided on it.
    @Test func memberTestsOnTheTextAgreeWithTheEvaluatorOnTokens() throws {
        let filters = [
            "@.p.city == 'Oslo'", "value(@.p.city) == 'Oslo'", "@.a.b.c > 2", "value(@.a.b) != null", "@.p.city != 3",
            "length(@.p.city) > 3", "match(@.p.city, '[A-Z].*')", "search(value(@.a.b), 'x')", "@.p == 'Oslo'",
            "@.p.city == 'Oslo' || @.a.b == 1", "!(@.a.b.c == 3) && @.n < 5", "@.n >= 2", "3 > @.p.b",
            "count(@.x[*]) > 1", "count(@.p.b) == 1", "count(@.p.city.*) == 0 && count(@.a[*]) < 3", "2 <= count(@.n[*])",
            "length(@.x) > 1", "length(@.p) == 2 || length(@.a.b) >= 1", "0 == length(@.n)",
        ]
        var random = SeededGenerator(seed: 90_210)
        /// An object of some of `names` (now and then one twice, or one escaped), each holding
        /// one of `scalars` mostly, an object like it two levels down at most, or a container.
        func object(_ names: [String], depth: Int) -> String {
            var chosen = names.shuffled(using: &random).prefix(random.next(names.count + 1))
            if random.next(10) == 0, let again = chosen.last { chosen.append(again) }
            if random.next(10) == 0 { chosen.append(#"\u0062"#) }
            var members: [String] = []
            for name in chosen {
                let value: String
                switch depth == 0 ? random.next(10) + 3 : random.next(10) {
                case 0...4: value = random.pick([#""Oslo""#, "3", #""Oslo""#, "3", "4", #""xyz""#, "null", "true", #""Αθήνα""#, "2.50"])
                case 5...6 where depth < 2, 7...9 where depth == 0: value = object(["city", "b", "c", "x"], depth: depth + 1)
                case 7: value = random.pick([#""Os\"lo""#, #""""#, "1e2", "-3", "false"])
                default: value = random.pick(["[]", "{}", #"[1, {"b": 2}, "x"]"#, #"{"city": ["Oslo"]}"#, #""[{x}]""#])
                }
                members.append(random.pick(["", " ", "\n "]) + #""\#(name)""# + random.pick([":", " : "]) + value)
            }
            return "{" + members.joined(separator: ",") + random.pick(["", " "]) + "}"
        }
        let records = (0..<1_500).map { _ in Array(object(["p", "a", "n", "x"], depth: 0).utf8) }
        let arena = TokenArena()
        let kept = TokenArena()
        let reader = RecordFilterChain.TokenReader(keepingIn: arena)
        let scratch = MemberTests.Scratch()
        for filter in filters {
            let path = try JSONPathParser.parse("$[?\(filter)]").get()
            guard case .child(.filter(let expression)) = path.segments[0] else {
                Issue.record("\(filter) is not a filter")
                continue
            }
            let read = try #require(expression.memberNamesRead(limit: RecordPeek.maxNames), "\(filter)")
            let tests = try #require(MemberTests([expression], names: read), "\(filter)")
            let nameTokens = read.map { name in
                let bytes = name.withUnsafeBytes { kept.keep($0) }
                return RecordToken(name: bytes, hash: RecordNames.hash(bytes), plain: true)
            }
            var onText = 0
            var notOnText = 0
            var held = 0
            var found: [(name: Int, value: Range<Int>)] = []
            for record in records {
                record.withUnsafeBytes { text in
                    guard RecordPeek.members(read, in: text, into: &found) != nil else { return }
                    // The evaluator on the tokens of the object of those members, as `FilterGate` makes it.
                    var tokens: [RecordToken] = [.objectStart]
                    for member in found {
                        tokens.append(nameTokens[member.name])
                        guard reader.read(UnsafeRawBufferPointer(rebasing: text[member.value]), appendingTo: &tokens) else { return }
                    }
                    tokens.append(RecordToken(.objectEnd))
                    arena.work = 0
                    let values = TokenFilterValues(tokens: tokens[...], arena: arena)
                    let onTokens = try? { () throws(ReshapeError) -> Bool in
                        try values.charge(tokens.count)
                        return try FilterEvaluator(values: values).holds(expression, on: 0..<tokens.count)
                    }()
                    let context = "\(filter) on \(String(decoding: record, as: UTF8.self))"
                    guard let decided = tests.holds(on: found, in: text, scratch: scratch) else {
                        notOnText += 1
                        return
                    }
                    onText += 1
                    if decided.holds { held += 1 }
                    #expect(onTokens == decided.holds, "\(context)")
                    #expect(arena.work == decided.work, "\(context): \(arena.work) steps on tokens, \(decided.work) on the text")
                }
                arena.reset()
            }
            #expect(onText > 800 && held > 0 && held < onText, "\(filter): \(onText) decided on the text (\(held) held), \(notOnText) not")
            if filter.contains("p.city") || filter.contains("a.b") { #expect(notOnText > 0, "\(filter): every one on the text") }
        }
    }

    /// Each comparison reads the objects it goes through again: a filter of many comparisons
    /// inside one large member leaves it to the evaluator (which reads its tokens once) past a
    /// few times the text's size, instead of reading it once per comparison.
    @Test func nestedComparisonsReadAtMostAFewTimesTheText() throws {
        let members = (0..<2_000).map { #""m\#($0)": \#($0)"# }.joined(separator: ", ")
        let record = Array(#"{"p": {\#(members)}, "n": 1}"#.utf8)
        let scratch = MemberTests.Scratch()
        var found: [(name: Int, value: Range<Int>)] = []
        for (comparisons, decided) in [(3, true), (40, false)] {
            let filter = (0..<comparisons).map { "@.p.x\($0) == 1" }.joined(separator: " || ")
            let path = try JSONPathParser.parse("$[?\(filter)]").get()
            guard case .child(.filter(let expression)) = path.segments[0] else { throw ReshapeError(.internal, "not a filter") }
            let read = try #require(expression.memberNamesRead(limit: RecordPeek.maxNames))
            let tests = try #require(MemberTests([expression], names: read))
            try record.withUnsafeBytes { text in
                try #require(RecordPeek.members(read, in: text, into: &found) != nil)
                let result = tests.holds(on: found, in: text, scratch: scratch)
                #expect((result != nil) == decided, "\(comparisons) comparisons")
                #expect(result?.holds != true)
            }
        }
    }
}
