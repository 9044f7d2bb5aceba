import FixtureSupport
import Foundation
import Testing

@testable import ReshapeCore

/// `Rules.explain`: each rule's selected and changed counts and its changes, checked against the
/// documents before and after it, on every fixture.
@Suite struct ExplainTests {
    /// The document after the first `count` rules, or nil when they fail.
    static func after(_ count: Int, of rules: [UInt8], on input: [UInt8], flags: UInt32) throws -> JSONValue? {
        let document = try JSONValue(json: rules)
        guard case .array(let list) = document["rules"] ?? document else { return nil }
        let prefix = JSONValue.array(Array(list.elements.prefix(count)))
        let options = ApplyOptions(rawValue: flags).intersection(.allowDuplicateKeys)
        guard let output = try? Rules(json: prefix.json()).apply(to: input, options: options) else { return nil }
        return try JSONValue(json: output)
    }

    /// On every fixture that is one JSON document: the explanation runs; a rule fails in it exactly
    /// where `apply` fails; and a rule made changes exactly when the document after it differs
    /// from the document before it (a differential check of the walk against the rules' output).
    @Test(arguments: Fixture.all.filter { $0.flags & ApplyOptions.inputLines.rawValue == 0 && $0.error?.code != "invalid_rules" })
    func everyFixtureIsExplained(_ fixture: Fixture) throws {
        let rules = try Rules(json: fixture.rules)
        let options = ApplyOptions(rawValue: fixture.flags).intersection(.allowDuplicateKeys)
        let applied = Result { () throws(ReshapeError) -> [UInt8] in try rules.apply(to: fixture.input, options: options) }
        let explanation: Explanation
        do {
            explanation = try rules.explain(fixture.input, options: options)
        } catch {
            // Only what is not a rule's failure stops an explanation: the same error as apply's.
            guard case .failure(let failure) = applied else {
                Issue.record("explain failed where apply succeeds: \(error)")
                return
            }
            #expect(error.code != .ruleFailed)
            #expect(error.code == failure.code && error.path == failure.path, "\(error) vs \(failure)")
            return
        }
        switch applied {
        case .success:
            #expect(explanation.failure == nil)
            #expect(explanation.rules.count == rules.count)
        case .failure(let failure) where failure.code == .limitExceeded:
            // A limit of what is written (an explanation writes no output).
            #expect(explanation.failure == nil)
            return
        case .failure(let failure):
            #expect(failure.code == .ruleFailed, "\(failure)")
            #expect(explanation.failure?.rule == failure.rule && explanation.failure?.path == failure.path)
            #expect(explanation.rules.count == failure.rule - 1)
        }
        for step in explanation.rules {
            let before = try #require(try Self.after(step.rule - 1, of: fixture.rules, on: fixture.input, flags: fixture.flags))
            let after = try #require(try Self.after(step.rule, of: fixture.rules, on: fixture.input, flags: fixture.flags))
            #expect((step.changes > 0) == (before != after), "rule \(step.rule): \(step.changes) changes; \(before) → \(after)")
            #expect(step.changed <= step.selected)
            #expect((step.changed > 0) == (step.changes > 0) || step.summary.hasPrefix("unwrap"), "rule \(step.rule)")
            #expect(step.examples.count == min(step.changes, 3))
        }
    }

    /// The same property on seeded random documents and rule lists over every op (RandomJSON and
    /// TraceTests' extra rules): a rule made changes exactly when the document changed, changed no
    /// more values than it selected, and fails exactly where apply fails.
    @Test func randomDocumentsAndRuleLists() throws {
        var random = SeededGenerator(seed: 24_680)
        var explained = 0
        var failures = 0
        for _ in 0..<1500 {
            let text = RandomJSON.value(&random, depth: 0)
            let input = Array(text.utf8)
            let specs = (0..<(1 + random.next(4))).map { _ in random.next(3) == 0 ? TraceTests.extraRule(&random) : RandomJSON.rule(&random) }
            guard let rules = try? Rules(json: "[" + specs.joined(separator: ",") + "]"), (try? JSONValue(json: input)) != nil else { continue }
            let explanation = try rules.explain(input)
            var before = try JSONValue(json: input)
            for (offset, step) in explanation.rules.enumerated() {
                let after = try JSONValue(json: try Rules(json: "[" + specs[offset] + "]").apply(to: try before.json()))
                let context = "rules \(specs)\ninput \(text)\nrule \(step.rule): \(step.description)"
                #expect((step.changes > 0) == (before != after), "\(context)")
                #expect(step.changed <= step.selected, "\(context)")
                before = after
            }
            let applied = Result { () throws(ReshapeError) -> [UInt8] in try rules.apply(to: input) }
            switch applied {
            case .success:
                #expect(explanation.failure == nil && explanation.rules.count == specs.count, "rules \(specs)\ninput \(text)")
            case .failure(let error):
                failures += 1
                #expect(explanation.failure?.rule == error.rule && explanation.failure?.path == error.path, "rules \(specs)\ninput \(text)")
            }
            explained += 1
        }
        #expect(explained > 1000 && failures > 50)
    }

    @Test func eachKindOfChange() throws {
        let rules = try Rules(json: #"""
            [{"op":"unwrap","path":"$.data"},{"op":"remove","path":"$[*].x"},{"op":"default","path":"$[*]","key":"plan","value":"free"},
             {"op":"hoist","path":"$[*].title","member":"rendered"},{"op":"keyedToArray","path":"$[0].tags"},
             {"op":"convertKeys","to":"camelCase"},{"op":"wrap","key":"items"},{"op":"coerce","path":"$.items[*].id","to":"integer"}]
            """#)
        let input = #"{"data": [{"id": "7", "x": 1, "title": {"rendered": "Hello"}, "tags": {"t1": {"tag_name": "a"}}}, {"id": "8", "x": 2, "plan": "pro", "title": {"rendered": "Bye"}}]}"#
        let explanation = try rules.explain(Array(input.utf8))
        let lines = explanation.description.split(separator: "\n").map { line in
            // Times vary: the share is checked apart.
            line.replacing(/; (<1|\d+)% of the time$/, with: "")
        }
        #expect(lines == [
            "rule 1 (unwrap $.data): selected 1, changed 1 (1 change); per record",
            #"  moved to $ (input: $['data']) from $['data']: [{"id":"7","x":1,"title":{"rendered":"Hello"},"tags":{"t1":{…"#,
            "rule 2 (remove $[*].x): selected 2, changed 2 (2 changes); per record",
            "  removed from $[0]['x'] (input: $['data'][0]['x']): 1",
            "  removed from $[1]['x'] (input: $['data'][1]['x']): 2",
            "rule 3 (default $[*]): selected 2, changed 1 (1 change); per record",
            #"  added at $[0]['plan']: "free""#,
            "rule 4 (hoist $[*].title): selected 2, changed 2 (4 changes); per record",
            #"  moved to $[0]['title'] (input: $['data'][0]['title']['rendered']) from $[0]['title']['rendered']: "Hello""#,
            #"  moved to $[1]['title'] (input: $['data'][1]['title']['rendered']) from $[1]['title']['rendered']: "Bye""#,
            #"  removed from $[0]['title'] (input: $['data'][0]['title']): {"rendered":"Hello"}"#,
            "  … and 1 more",
            "rule 5 (keyedToArray $[0].tags): selected 1, changed 1 (3 changes); whole document: index into the collection",
            #"  replaced at $[0]['tags'] (input: $['data'][0]['tags']): {"t1":{"tag_name":"a"}} → [{"id":"t1","tag_name":"a"}]"#,
            #"  rebuilt at $[0]['tags'][0] (input: $['data'][0]['tags']['t1']): {"tag_name":"a"} → {"id":"t1","tag_name":"a"}"#,
            #"  member name at $[0]['tags'][0]['id'] (input: $['data'][0]['tags']['t1']): "t1" → "t1""#,
            "rule 6 (convertKeys $): selected 1, changed 1 (1 change); whole document: runs after rule 5, which needs it",
            #"  renamed at $[0]['tags'][0]['tagName'] (input: $['data'][0]['tags']['t1']['tag_name']): "tag_name" → "tagName""#,
            #"rule 7 (wrap "items"): selected 1, changed 1 (1 change); whole document: runs after rule 5, which needs it"#,
            #"  added at $: {"items":[{"id":"7","title":"Hello","tags":[{"id":"t1","tagN…"#,
            "rule 8 (coerce $.items[*].id): selected 2, changed 2 (2 changes); whole document: runs after rule 5, which needs it",
            #"  replaced at $['items'][0]['id'] (input: $['data'][0]['id']): "7" → 7"#,
            #"  replaced at $['items'][1]['id'] (input: $['data'][1]['id']): "8" → 8"#,
        ])
        let shares = explanation.rules.map(\.share)
        #expect(abs(shares.reduce(0, +) - 1) < 1e-9)
        #expect(explanation.failure == nil)
    }

    @Test func aFailingRuleEndsTheExplanation() throws {
        let rules = try Rules(json: #"[{"op":"keyedToArray"},{"op":"coerce","path":"$[*].age","to":"integer"},{"op":"wrap","key":"x"}]"#)
        let explanation = try rules.explain(Array(#"{"u1": {"age": "x"}}"#.utf8))
        #expect(explanation.rules.count == 1)
        #expect(explanation.failure?.path == "$[0]['age']")
        let text = explanation.description.split(separator: "\n").map(String.init)
        #expect(text.last == #"rule 3 (wrap "x"): not run"#)
        #expect(text[text.count - 2].hasPrefix("rule 2 failed: rule_failed: rule 2 (coerce) at $[0]['age']: "))
        let json = try explanation.json.json()
        #expect(String(decoding: json, as: UTF8.self).contains(#""notRun":["wrap \"x\""]"#))
    }

    @Test func invalidInputIsAnErrorAndJSONLinesAreRefused() throws {
        let rules = try Rules(json: "[]")
        #expect(throws: ReshapeError.self) { try rules.explain(Array("{".utf8)) }
        #expect(throws: ReshapeError(.invalidArgument, "explaining takes one JSON document, not JSON Lines")) {
            try rules.explain(Array("{}".utf8), options: .inputLines)
        }
    }

    @Test func previewsReadOnlyWhatTheyShow() throws {
        // Many members: the preview of the root lists the first few only.
        let big = "{" + (0..<50_000).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        let explanation = try Rules(json: #"[{"op":"wrap","key":"all"}]"#).explain(Array(big.utf8))
        #expect(explanation.rules[0].examples[0].after == #"{"all":{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7…"#)
    }
}
