import FixtureSupport
import ReshapeCore
import Testing

/// The raw-value fast path must never change a result: every fixture gives the same bytes or the
/// same error with objects and arrays kept as raw text from any depth on, including depths the
/// rules' own analysis would not allow (the engine then makes trees of them where it looks).
@Suite struct RawValueTests {
    @Test(arguments: Fixture.all, [1, 2, 3, 4])
    func fixtureGivesTheSameResultWithRawValues(_ fixture: Fixture, rawDepth: Int) throws {
        guard let rules = try? Rules(json: fixture.rules) else { return }  // rules errors: no input is read
        let full = Result { () throws(ReshapeError) in
            try rules.apply(to: fixture.input, options: ApplyOptions(rawValue: fixture.flags), forcingRawDepth: nil)
        }
        let raw = Result { () throws(ReshapeError) in
            try rules.apply(to: fixture.input, options: ApplyOptions(rawValue: fixture.flags), forcingRawDepth: rawDepth)
        }
        switch (full, raw) {
        case (.success(let expected), .success(let output)):
            #expect(String(decoding: output, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        case (.failure(let expected), .failure(let error)):
            #expect(error == expected)
        default:
            Issue.record("full tree: \(full), raw from depth \(rawDepth): \(raw)")
        }
    }

    @Test func noncanonicalInputBecomesCanonicalRawText() throws {
        let rules = try Rules(json: "[]")
        let input = #"{"a": { "s": "\u00e9\/\ud83d\ude00\u0001" , "n": [1.50, 1E2, -0, 1e400, 0.1e-3, 12345678901234567890] , "t": true, "e": {}, "l": [ ] }}"#
        let expected = #"{"a":{"s":"é/😀\u0001","n":[1.5,100.0,-0,1e400,0.0001,12345678901234567890],"t":true,"e":{},"l":[]}}"#
        for depth in [1, 2, 3] {
            #expect(try rules.apply(to: Array(input.utf8), options: [], forcingRawDepth: depth) == Array(expected.utf8))
        }
    }

    @Test func keyedToArrayOnRawRecordsMatchesTheTree() throws {
        for spec in [
            #"[{"op": "keyedToArray"}]"#,
            #"[{"op": "keyedToArray", "idKey": "k\"ey", "wrapIn": "list"}]"#,
            #"[{"op": "keyedToArray", "onConflict": "overwrite"}]"#,
            #"[{"op": "keyedToArray", "onConflict": "keep"}]"#,
            #"[{"op": "keyedToArray", "nonObject": "wrap"}]"#,
            #"[{"op": "keyedToArray", "nonObject": "skip"}]"#,
        ] {
            let rules = try Rules(json: spec)
            let input = Array(#"{"a": {"x": {"id": 1}, "id": [2]}, "b": {}, "c": {"k\"ey": "v", "n": "ü"}, "d": [1, {"id": 3}], "e": {"s": "id"}}"#.utf8)
            let full = Result { () throws(ReshapeError) in try rules.apply(to: input, options: [], forcingRawDepth: nil) }
            let raw = Result { () throws(ReshapeError) in try rules.apply(to: input, options: [], forcingRawDepth: 1) }
            switch (full, raw) {
            case (.success(let expected), .success(let output)): #expect(output == expected, "\(spec)")
            case (.failure(let expected), .failure(let error)): #expect(error == expected, "\(spec)")
            default: Issue.record("\(spec): \(full) vs \(raw)")
            }
        }
    }

    @Test func duplicateNamesInsideRawValuesAreStillCaught() throws {
        let rules = try Rules(json: #"[{"op": "keyedToArray"}]"#)
        let input = Array(#"{"u1": {"name": "a", "n": 1, "name": "b"}}"#.utf8)
        #expect(throws: ReshapeError(.invalidJSON, "duplicate member name \"name\"", path: "$['u1']['name']", line: 1, column: 30, position: 29)) {
            try rules.apply(to: input)
        }
        #expect(try rules.apply(to: input, options: .allowDuplicateKeys) == Array(#"[{"id":"u1","name":"b","n":1}]"#.utf8))
    }

    @Test func largeObjectsInsideRawValuesFallBackToTheTree() throws {
        let rules = try Rules(json: #"[{"op": "keyedToArray"}]"#)
        let members = (0..<100).map { #""m\#($0)":\#($0)"# }.joined(separator: ",")
        let output = try rules.apply(to: Array(#"{"u": {\#(members)}}"#.utf8))
        #expect(output == Array(#"[{"id":"u",\#(members)}]"#.utf8))
    }

    /// JSON Lines output takes the collection as it is left, which may be an array no rule looked
    /// into, kept raw: it is written line by line, not refused as "not a collection".
    @Test func jsonLinesOutputOfARawCollection() throws {
        let cases = [
            (#"[{"op": "unwrap", "path": "$.data"}]"#, #"{"data": [{"a": 1}, {"b": [2]}]}"#),
            (#"[{"op": "remove", "path": "$.meta"}]"#, #"{"meta": 1, "items": [{"a": 1}, {"b": {}}]}"#),
            (#"[]"#, #"{"items": [{"a": 1}, [true]]}"#),
        ]
        for (spec, input) in cases {
            let rules = try Rules(json: spec)
            let output = try rules.apply(to: Array(input.utf8), options: [.outputLines])
            let expected = try rules.apply(to: Array(input.utf8), options: [.outputLines], forcingRawDepth: nil)
            #expect(String(decoding: output, as: UTF8.self) == String(decoding: expected, as: UTF8.self), "\(spec)")
            #expect(output.split(separator: UInt8(ascii: "\n")).count == 2, "\(spec)")
        }
    }

    /// A raw record made a tree again keeps the depth the document allows, not the default one.
    @Test func rawValuesMadeTreesKeepTheDocumentsDepthLimit() throws {
        let deep = String(repeating: "[", count: 1200) + String(repeating: "]", count: 1200)
        let input = Array(#"{"u1": {"id": "mine", "deep": \#(deep)}}"#.utf8)
        for spec in [#"[{"op": "keyedToArray", "onConflict": "keep"}]"#, #"[{"op": "keyedToArray", "onConflict": "overwrite"}]"#] {
            let rules = try Rules(json: spec, limits: Limits(maxDepth: 2000))
            let output = try rules.apply(to: input)
            #expect(output == (try rules.apply(to: input, options: [], forcingRawDepth: nil)), "\(spec)")
        }
    }
}
