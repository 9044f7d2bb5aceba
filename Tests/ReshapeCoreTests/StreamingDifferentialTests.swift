import FixtureSupport
import Foundation
import ReshapeCore
import Testing

/// The record-streaming engine must give the same bytes or the same error (code, rule, path,
/// line, column) as the whole tree: on every fixture, on generated record payloads, and on seeded
/// random documents and rule lists, with one thread and with several (batches of two records, so
/// that many batches cross threads).
@Suite struct StreamingDifferentialTests {
    /// One thread; three threads with batches of two records; two threads with one record each;
    /// and, as small documents run, no streaming at all, so that documents take the text route
    /// (`TextRoute`) or the whole tree. Strict: a streaming failure where the whole tree succeeds
    /// is an error. Each run's outcome is counted in `outcomes`.
    static func settings(counting outcomes: Outcomes) -> [StreamSettings] {
        [(1, 4096, 0), (3, 2, 0), (2, 1, 0), (1, 4096, Int.max)].map { jobs, batch, minimumStreamBytes in
            var settings = StreamSettings(jobs: jobs)
            settings.strict = true
            settings.batchRecords = batch
            settings.batchLineBytes = batch == 4096 ? 1 << 18 : batch * 1024
            settings.minimumStreamBytes = minimumStreamBytes
            settings.outcome = { outcome in outcomes.add(outcome) }
            return settings
        }
    }

    /// Compares both engines; returns false (after recording the difference) when they differ.
    /// With `countsDifferently`, one may stop at a work or output limit where the other does not:
    /// a stream counts those its own way (docs/limits.md).
    @discardableResult
    static func compare(
        _ rules: Rules, _ input: [UInt8], options: ApplyOptions = [], outcomes: Outcomes = Outcomes(), context: String,
        countsDifferently: Bool = false
    ) -> Bool {
        let whole = Result { () throws(ReshapeError) in try rules.applyWholeTree(to: input, options: options) }
        for settings in settings(counting: outcomes) {
            let streamed = Result { () throws(ReshapeError) in try rules.apply(to: input, options: options, settings: settings) }
            let same: Bool
            switch (whole, streamed) {
            case (.success(let a), .success(let b)): same = a == b
            case (.failure(let a), .failure(let b)): same = a == b
            case (.success, .failure(let b)): same = countsDifferently && b.isDocumentLimit
            case (.failure(let a), .success): same = countsDifferently && a.isDocumentLimit
            default: same = false
            }
            if !same {
                Issue.record(
                    "\(context) jobs \(settings.jobs)\ninput \(String(decoding: input.prefix(600), as: UTF8.self))\nwhole \(whole.map { String(decoding: $0, as: UTF8.self) })\nstreamed \(streamed.map { String(decoding: $0, as: UTF8.self) })")
                return false
            }
        }
        // From a file and from a pipe, read a page at a time as the work goes (see `InputRegion`).
        for (jobs, batch) in [(1, 4096), (3, 2)] {
            var settings = StreamSettings(jobs: jobs)
            settings.strict = true
            settings.batchRecords = batch
            settings.batchLineBytes = batch == 4096 ? 1 << 18 : 2048
            settings.minimumStreamBytes = 0
            settings.inputChunkBytes = 4096
            settings.outcome = { outcome in outcomes.add(outcome) }
            for route in ["file", "pipe"] {
                let read = route == "file"
                    ? throughFile(input) { (source, output) throws(ReshapeError) in
                        try rules.apply(fromDescriptor: source, toDescriptor: output, options: options, settings: settings)
                    }
                    : (try? throughPipe(input) { (source, output) throws(ReshapeError) in
                        try rules.apply(fromDescriptor: source, toDescriptor: output, options: options, settings: settings)
                    }) ?? .failure(ReshapeError(.internal, "no pipe"))
                let same: Bool
                switch (whole, read) {
                case (.success(let a), .success(let b)): same = a == b
                // The stream finds the whole tree's error itself, from a pipe too; a pipe's work
                // and output limits grow with the input read so far (docs/limits.md).
                case (.failure(let a), .failure(let b)): same = a == b || (route == "pipe" && a.isDocumentLimit)
                case (.success, .failure(let b)): same = countsDifferently && b.isDocumentLimit
            case (.failure(let a), .success): same = countsDifferently && a.isDocumentLimit
                default: same = false
                }
                if !same {
                    Issue.record(
                        "\(context) \(route) jobs \(jobs)\ninput \(String(decoding: input.prefix(600), as: UTF8.self))\nwhole \(whole.map { String(decoding: $0, as: UTF8.self) })\n\(route) \(read.map { String(decoding: $0, as: UTF8.self) })")
                    return false
                }
            }
        }
        return true
    }

    /// Runs `body` with a file holding `input` and one for the output; gives the output's bytes
    /// (what was written, also on failure: the caller compares only successes), or the error.
    static func throughFile(_ input: [UInt8], _ body: (Int32, Int32) throws(ReshapeError) -> Void) -> Result<[UInt8], ReshapeError> {
        let folder = FileManager.default.temporaryDirectory
        let inputURL = folder.appendingPathComponent("reshape-in-\(UUID().uuidString)")
        let outputURL = folder.appendingPathComponent("reshape-out-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: inputURL)
            try? FileManager.default.removeItem(at: outputURL)
        }
        guard (try? Data(input).write(to: inputURL)) != nil else { return .failure(ReshapeError(.internal, "no file")) }
        let source = open(inputURL.path, O_RDONLY)
        let output = open(outputURL.path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        defer {
            close(source)
            close(output)
        }
        let result = Result { () throws(ReshapeError) in try body(source, output) }
        return result.map { (try? [UInt8](Data(contentsOf: outputURL))) ?? [] }
    }

    @Test(arguments: Fixture.all)
    func fixture(_ fixture: Fixture) throws {
        // Fixtures about invalid rules documents never reach either engine.
        guard let rules = try? Rules(json: fixture.rules) else { return }
        let outcomes = Outcomes()
        Self.compare(rules, fixture.input, options: ApplyOptions(rawValue: fixture.flags), outcomes: outcomes, context: fixture.name)
        #expect(outcomes.counts()["rerun", default: 0] == 0, "\(fixture.name): \(outcomes.counts())")
    }

    /// Payload shapes: a Firebase object, a top-level array, and two envelopes.
    enum Shape: CaseIterable {
        case keyed, array, data, bookList
    }

    /// Rule lists real API clients use, each with the payload shapes it is written for: every one
    /// of them streams all its rules (checked below).
    static let recordRules: [(spec: String, shapes: [Shape])] = [
        (#"[{"op":"keyedToArray","idKey":"id","wrapIn":"users"},{"op":"emptyObjectToNull"},{"op":"blankStringToNull"},{"op":"convertKeys","to":"snake_case"}]"#, [.keyed]),
        (#"[{"op":"keyedToArray"},{"op":"coerce","path":"$..price","to":"number"},{"op":"remove","path":"$[*].debug"},{"op":"default","path":"$[*]","key":"tags","value":[]}]"#, [.keyed]),
        (#"[{"op":"emptyObjectToNull"},{"op":"keyedToArray","idKey":"uid","onConflict":"overwrite","nonObject":"skip"}]"#, [.keyed]),
        (#"[{"op":"unwrap","path":"$.data"},{"op":"convertKeys","to":"camelCase"},{"op":"blankStringToNull","trim":true},{"op":"wrap","key":"items"}]"#, [.data]),
        (#"[{"op":"convertKeys","to":"camelCase"},{"op":"unwrap","path":"$.bookList"},{"op":"renameKeys","map":{"displayName":"name"},"deep":true}]"#, [.bookList]),
        (#"[{"op":"remove","path":"$.data[*].debug"},{"op":"coerce","path":"$.data[*].price","to":"string","onFail":"null"}]"#, [.data]),
        (#"[{"op":"keyedToArray","nonObject":"wrap"},{"op":"coerce","path":"$[*].n","to":"integer"}]"#, [.keyed]),
        (#"[{"op":"emptyObjectToNull"},{"op":"blankStringToNull"},{"op":"convertKeys","to":"snake_case"}]"#, [.array, .data, .bookList]),
        (#"[{"op":"remove","path":"$[*].debug"},{"op":"default","path":"$[*]","key":"plan","value":"free"}]"#, [.array]),
    ]

    /// Rule lists with a rule that needs the whole document after streamed ones.
    static let hybridRules: [(spec: String, shapes: [Shape])] = [
        (#"[{"op":"keyedToArray","idKey":"id"},{"op":"emptyObjectToNull"},{"op":"remove","path":"$[-1]"}]"#, [.keyed]),
        (#"[{"op":"unwrap","path":"$.data"},{"op":"arrayToKeyed","idKey":"id"}]"#, [.data]),
    ]

    /// A record: names and strings with unicode, escaped quotes and braces, empty objects and
    /// blank strings, numbers of every kind; sometimes a value a rule fails on.
    static func record(_ random: inout SeededGenerator, failing: Bool, minimumMembers: Int = 0) -> String {
        let names = ["displayName", "created_at", #"a\"b"#, "ünïcode_名前", "{brace", "price", "n", "debug", "plan", "avatar"]
        let values = [
            #""Zoë \"quoted\" {not: [json]} \\ end""#, #""""#, #""  ""#, "{}", "[]", #"[1, {}, ""]"#, "-0", "12.50", #""12.50""#,
            "1e400", "123456789012345678901234567890", "true", "null", #"{"inner_key": {"deepName": ""}}"#,
            #""\u00e9\ud83d\ude00""#, "7",
        ]
        var members: [String] = []
        var used = Set<String>()
        for _ in 0..<max(minimumMembers, random.next(6)) {
            let name = random.pick(names)
            guard used.insert(name).inserted else { continue }
            members.append("\"\(name)\": \(random.pick(values))")
        }
        if failing { members.append(random.pick([#""price": "abc""#, #""n": "x""#, #""id": 1"#])) }
        if random.next(40) == 0 { return random.pick(["{}", "null", "\"text\"", "[1]"]) }
        return "{" + members.joined(separator: random.next(2) == 0 ? "," : " ,\n  ") + "}"
    }

    /// A payload of `count` records in `shape`; sometimes with a duplicate id, a record that fails
    /// a rule, or cut short.
    static func payload(_ random: inout SeededGenerator, count: Int, shape: Shape, minimumMembers: Int = 0) -> String {
        let failAt = random.next(5) == 0 ? random.next(max(count, 1)) : -1
        var ids: [String] = []
        var records: [String] = []
        for index in 0..<count {
            var id = "-N\(random.next(1000))" + random.pick(["", "é", "\\\"q", "\\u0041", "{x}"])
            if random.next(40) == 0, let earlier = ids.last { id = earlier }  // a duplicate id
            ids.append(id)
            records.append(record(&random, failing: index == failAt, minimumMembers: minimumMembers))
        }
        let keyed = "{" + zip(ids, records).map { "\"\($0)\": \($1)" }.joined(separator: ",\n") + "}"
        let array = "[" + records.joined(separator: ", ") + "]"
        var text: String
        switch shape {
        case .keyed: text = keyed
        case .array: text = array
        case .data: text = #"{"meta": {"page": 1, "next": ""}, "data": \#(array), "tail": {}}"#
        case .bookList: text = #"{"book_list": \#(array), "count": \#(count)}"#
        }
        if random.next(20) == 0 { text = String(text.prefix(max(0, text.count - random.next(40)))) }  // truncated
        return text
    }

    @Test func recordRuleListsStreamEveryRule() throws {
        for (spec, _) in Self.recordRules {
            let rules = try Rules(json: spec)
            let plan = rules.streamingPlan
            #expect(max(plan.object, plan.array) == rules.count, "\(spec): \(plan)")
        }
        for (spec, _) in Self.hybridRules {
            let rules = try Rules(json: spec)
            let streamed = max(rules.streamingPlan.object, rules.streamingPlan.array)
            #expect(streamed > 0 && streamed < rules.count, "\(spec): \(rules.streamingPlan)")
        }
    }

    /// Records a rule removes whole are dropped on their tokens, and the rules after see the
    /// collection as the tree does: an array collection left empty by the removals is `[]` to
    /// `emptyArrayToNull` (which then needs the whole document), on one thread and several. (An
    /// object collection that stays keyed is written with its names: its records take their
    /// trees, compared too.)
    @Test func recordsRemovedOnTheirTokensLeaveTheCollectionAsTheTreeDoes() throws {
        for (spec, onTokens) in [
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[?@.gone == true]"},{"op":"emptyArrayToNull"}]"#, true),
            (#"[{"op":"remove","path":"$[?@.gone == true]"},{"op":"keyedToArray"},{"op":"wrap","key":"w"}]"#, true),
            (#"[{"op":"remove","path":"$[?@.gone == true]"},{"op":"emptyObjectToNull"}]"#, false),
        ] {
            let rules = try Rules(json: spec)
            for (records, clean) in [
                (#"{"a": {"gone": true}, "b": {"gone": true}}"#, true), (#"{"a": {"gone": false}, "b": {"gone": true}, "c": {}}"#, true),
                (#"{"a": {"gone": true}, "b": {"gone": tru}}"#, false), (#"{"a": {"gone": true}, "b": 7}"#, false),
            ] {
                let outcomes = Outcomes()
                #expect(Self.compare(rules, Array(records.utf8), outcomes: outcomes, context: "\(spec) \(records)"))
                let counts = outcomes.counts()
                #expect(counts["rerun", default: 0] == 0)
                if onTokens && clean {
                    #expect(counts["streamed", default: 0] + counts["hybrid", default: 0] > 0 && counts["record trees", default: 0] == 0,
                        "\(spec) \(records): \(counts)")
                }
            }
        }
    }

    /// A filter that tests records, or objects in arrays in them, through some of their members
    /// (`@.plan`) reads them ahead in the record's text (`RecordPeek`): the record or the object is
    /// not held, and a record's members go past the filters, and a removed one is read to its end
    /// without tokens. What the scan cannot read alone
    /// (an escaped name, a record that is not an object) holds the record; text that is not JSON,
    /// or a repeated name, is the whole tree's error; a rule before the filter that changes what
    /// it reads holds the record too.
    @Test func recordFiltersReadTheirMembersAhead() throws {
        let tricky = [
            #"{"bio": "\"plan\": \"free\" ]} {[", "plan": "free"}"#, #"{"x": {"plan": "free"}, "plan": "paid"}"#,
            #"{ "n" : [1, {"plan": "free"}] , "plan" : "free" , "tail": 1 }"#, #"{"plan": "fr\u0065e"}"#, #"{}"#, #"{"n": 5}"#,
            #"{"n": 1e400, "plan": null}"#, #"{"n": -2, "s": "\\", "plan": "paid"}"#,
            #"{"x": [{"plan": "free", "a": [{}]}, {"plan": "paid"}, {}, {"b": {"plan": "free"}}, 3, [1], {"pl\u0061n": "free"}]}"#,
            #"{"x": {"m": {"plan": "free"}, "k": {"plan" : "paid"}, "e": {}}, "plan": "free", "n": 4}"#,
            #"{"x": [{"plan": 7}, {"plan": 7.0}, {"plan": 70e-1, "n": 3}, {"plan": true}, {"plan": null}, {"plan": "free\u0021"}]}"#,
            #"{"x": [{"plan": ["free"]}, {"plan": {"a": 1}}, {"plan": "fre"}, {"plan": "freee"}, {"plan": "é"}, {"plan": ""}]}"#,
            #"{"x": [ { "n" : 4 , "plan" : "free" } , {"plan": "free", "plan2": 1, "n": [1, 2]}, {"n": 8, "x": [{"plan": "free"}]}]}"#,
        ]
        let awkward = [
            #"{"pl\u0061n": "free"}"#, #"[{"plan": "free"}]"#, #""free""#, #"{"plan": "free", "plan": "paid"}"#, #"{"plan": tru}"#,
            #"{"plan": "free", "x": [1, 2}"#, #"{"plan": "paid", "x": [1, 2}"#, #"{"n": 01, "plan": "free"}"#,
        ]
        for (spec, ahead) in [
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[?@.plan == 'free' || @['n'] > 3]"}]"#, true),
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[?!@.plan && length(@.n) == 2]"},{"op":"blankStringToNull"}]"#, true),
            (#"[{"op":"keyedToArray"},{"op":"default","path":"$[?@.plan == 'free']","key":"trial","value":true}]"#, true),
            // Objects in arrays inside records are read ahead too: comparisons of a member with a
            // literal on its text, other filters on the tokens of the members they read.
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].x[?@.plan == 'free']"}]"#, true),
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].x[?@.plan >= 'free' || 7 == @.plan]"}]"#, true),
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].x[?@.plan != true && @.plan != null && @.plan < 8]"}]"#, true),
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$..x[?@.n > 3]"}]"#, true),
            (#"[{"op":"keyedToArray"},{"op":"default","path":"$[*].x[?@.plan == 'free', ?@.n == 3]","key":"hit","value":[1]}]"#, true),
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].x[?@.plan == @.n]"}]"#, true),
            // A filter that reads the value itself holds it (so are the members of an object `x`).
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].x[?@ == 'free']"}]"#, false),
            (#"[{"op":"keyedToArray","idKey":"plan"},{"op":"remove","path":"$[?@.plan == 'free']"}]"#, false),
            // More names than the scan looks for (each member it passes is compared with each).
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[?@.plan == 'free' || "# + (0..<16).map { "@.n\($0) == 1" }.joined(separator: " || ")
                + #"]"}]"#, false),
            // Rules before the filter change what it reads: it reads their tokens, not the text.
            (#"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$..*","map":{"plan":"tier","n":"plan"}},{"op":"remove","path":"$[?@.tier == 'free' || @.plan > 3]"}]"#, false),
            (#"[{"op":"keyedToArray"},{"op":"default","path":"$[*]","key":"plan","value":"free"},{"op":"remove","path":"$[?@.plan == 'free']"}]"#, false),
            (#"[{"op":"keyedToArray"},{"op":"mapValues","path":"$[*].x[*].plan","cases":[["free","paid"]]},{"op":"remove","path":"$[*].x[?@.plan == 'free']"}]"#, false),
        ] {
            let rules = try Rules(json: spec)
            let records = (0..<200).map { #""r\#($0)": \#(tricky[$0 % tricky.count])"# }
            let outcomes = Outcomes()
            #expect(Self.compare(rules, Array(("{" + records.joined(separator: ",") + "}").utf8), outcomes: outcomes, context: spec))
            let counts = outcomes.counts()
            #expect(counts["record trees", default: 0] == 0 && counts["rerun", default: 0] == 0, "\(spec): \(counts)")
            #expect((counts["read ahead", default: 0] > 0) == ahead, "\(spec): \(counts)")
            if ahead && spec.contains("remove") && spec.contains("$[?") {
                // A record kept goes by as text: copied whole, its id put first by the copy
                // (`RecordFilter.recordIdKey`), where no other rule needs its tokens.
                #expect(counts["containers passed", default: 0] > 0, "\(spec): \(counts)")
            }
            for bad in awkward {
                let records = (0..<50).map { #""r\#($0)": \#($0 == 30 ? bad : tricky[$0 % tricky.count])"# }
                let outcomes = Outcomes()
                #expect(Self.compare(rules, Array(("{" + records.joined(separator: ",") + "}").utf8), outcomes: outcomes, context: "\(spec) \(bad)"))
                // The escaped name: the record is held, every member with it (none past the filters).
                if bad == awkward[0] { #expect(outcomes.counts()["record trees", default: 0] == 0, "\(spec): \(outcomes.counts())") }
            }
        }
    }

    /// A filter that tests one member with `length()`, `match()` or `search()` against a literal
    /// is decided on that member's text, as a comparison is (`MemberComparison`): strings with
    /// multi-byte scalars, numbers, missing members, containers (whose length is their count)
    /// and a pattern that is not an I-Regexp give the tree's verdicts; an escaped string goes to
    /// the evaluator on tokens. Without the text's verdicts, no object is `compared ahead`.
    @Test func memberFunctionsAreDecidedOnTheirText() throws {
        let records = [
            #"{"x": [{"plan": "free"}, {"plan": "frée"}, {"plan": "日本語"}, {"plan": ""}, {"plan": 12345}, {"n": 1}]}"#,
            #"{"x": [{"plan": null, "n": 2}, {"plan": "prémium plan"}, {"plan": "free", "plan2": "x"}, {"plan": true}]}"#,
            #"{"x": [{"plan": ["a", "b", "c", "d", "e"]}, {"plan": {"a": 1}}, {"plan": "fr\u0065e"}, {"plan": "paid"}]}"#,
        ]
        try Self.expectFiltersOnTheText(records, member: "x", filters: [
            "length(@.plan) > 3", "3 >= length(@.plan)", "length(@.plan) == 0", "length(@.plan) != 4",
            "match(@.plan, 'fr.e')", "match(@.plan, '[a-zé ]+')", "search(@.plan, 'é')", "search(@.plan, '^p')",
            "match(@.plan, 'fr[')", "match(@.n, '2')",
        ])
    }

    /// A filter that tests a member inside members (`@.p.city`, `value(@.p.city)`), or counts one
    /// or its elements (`count(@.p.x[*])`), is decided on the text too (`MemberTests`), in
    /// records and in objects in arrays inside them: objects two
    /// deep, a member missing or not an object on the way, an escaped name or string, a container
    /// at the end. The tree's bytes or error on every route, and some objects `compared ahead`; a
    /// name twice inside the member read is the tree's error.
    @Test func nestedMemberFiltersAreDecidedOnTheirText() throws {
        let records = [
            #"{"x": [{"p": {"city": "Oslo", "n": 2}}, {"p": {"city": "Bergen"}}, {"p": "Oslo"}, {"p": {"c\u0069ty": "Oslo"}}, {}]}"#,
            #"{"x": [{"p": {"a": {"b": 3}, "city": ["Oslo"]}}, {"p": {"city": null}}, {"p": {"city": "Αθήνα", "x": [1, {"city": "Oslo"}]}}]}"#,
            #"{"x": [{"p": {"city": "Os\"lo"}}, {"p": {}}, {"p": null, "q": 1}, {"p": {"a": {"b": 4}}, "q": {"city": "Oslo"}}]}"#,
        ]
        let filters = [
            "@.p.city == 'Oslo'", "value(@.p.city) != 'Oslo'", "@.p.a.b > 3", "length(@.p.city) == 4", "match(@.p.city, 'O.*')",
            "@.p.city == 'Oslo' || @.p.a.b == 3", "!(@.p.city == 'Bergen') && @.q == 1", "count(@.p.city[*]) == 1",
            "count(@.p.x[*]) > 1 || count(@.q) == 1",
        ]
        try Self.expectFiltersOnTheText(records, member: "x", filters: filters)
        for filter in filters {
            let spec = #"[{"op":"keyedToArray"},{"op":"remove","path":"$[?\#(filter)]"}]"#
            let rules = try Rules(json: spec)
            let objects = [
                #"{"p": {"city": "Oslo", "n": 2}}"#, #"{"p": {"city": "Bergen"}, "q": 1}"#, #"{"p": "Oslo"}"#, #"{"p": {"c\u0069ty": "Oslo"}}"#,
                #"{"p": {"a": {"b": 3}, "city": ["Oslo"]}}"#, #"{"p": {"city": "Αθήνα", "x": [1, {"city": "Oslo"}]}, "q": 1}"#,
                #"{"p": {"city": "Os\"lo"}}"#, #"{"q": 1, "p": null}"#, #"{"p": {"a": {"b": 4}}, "q": {"city": "Oslo"}}"#, "{}",
            ]
            for twice in [nil, #"{"p": {"city": "Oslo", "city": "Bergen"}}"#] {
                let input = (0..<120).map { #""r\#($0)": \#($0 == 100 ? twice ?? objects[$0 % objects.count] : objects[$0 % objects.count])"# }
                let outcomes = Outcomes()
                #expect(Self.compare(rules, Array(("{" + input.joined(separator: ",") + "}").utf8), outcomes: outcomes, context: "\(spec) \(twice ?? "")"))
                let counts = outcomes.counts()
                #expect(counts["rerun", default: 0] == 0, "\(spec): \(counts)")
                if twice == nil { #expect(counts["compared ahead", default: 0] > 0 && counts["record trees", default: 0] == 0, "\(spec): \(counts)") }
            }
        }
    }

    /// `remove` at `$[*].<member>[?filter]` for each of `filters`, on `records` repeated: the
    /// tree's bytes or error on every route, no record takes its tree, and (with `ahead`) some
    /// objects are decided on their members' text (`compared ahead`).
    static func expectFiltersOnTheText(_ records: [String], member: String, filters: [String], ahead: Bool = true) throws {
        let input = Array(("{" + (0..<90).map { #""r\#($0)": \#(records[$0 % records.count])"# }.joined(separator: ",") + "}").utf8)
        for filter in filters {
            let spec = #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].\#(member)[?\#(filter)]"}]"#
            let rules = try Rules(json: spec)
            let outcomes = Outcomes()
            #expect(compare(rules, input, outcomes: outcomes, context: spec))
            let counts = outcomes.counts()
            #expect(counts["record trees", default: 0] == 0 && counts["rerun", default: 0] == 0, "\(spec): \(counts)")
            #expect((counts["compared ahead", default: 0] > 0) == ahead, "\(spec): \(counts)")
        }
    }

    /// Member comparisons joined by `&&`, `||` and `!` are decided on the members' text too
    /// (`MemberTest`), stopping where the evaluator stops: the tree's bytes, no record tree, and
    /// objects `compared ahead`, a member two deep among them (`@.n.x`). An operand the text
    /// cannot decide (the length of a container, an escaped string, two members compared) leaves
    /// the object to the evaluator on tokens, with the same verdicts.
    @Test func joinedComparisonsAreDecidedOnTheirText() throws {
        let records = [
            #"{"g": [{"role": "member", "id": "g3", "n": 12}, {"role": "owner", "id": "g1"}, {"id": "g3"}, {"role": "mémber", "id": 5}], "k": 1}"#,
            #"{"g": [{"role": "admin", "n": 3}, {"role": "member", "id": "g3", "x": "long"}, {"role": null, "n": 5.0}, {}], "k": 2}"#,
            #"{"g": [{"role": ["member"], "id": "g3"}, {"role": "memb\u0065r", "id": "g3"}, {"role": {"a": 1}, "n": 7}], "k": 3}"#,
        ]
        try Self.expectFiltersOnTheText(records, member: "g", filters: [
            "@.role == 'member' && @.id == 'g3'", "!(@.role == 'owner')", "@.n > 5 || @.role == 'admin'",
            "@.n > 5 || match(@.role, 'm.*') && !(@.id == 5)", "!(@.role == 'member' || @.role == 'owner') && @.n >= 5",
            "(@.id == 'g3' || @.id == 5) && length(@.role) == 6", "!(!(@.role != null))", "@.role == 'member' && @.n.x == 1",
        ])
        // Two members compared among them: the evaluator decides.
        try Self.expectFiltersOnTheText(records, member: "g", filters: ["!(@.role == @.id)"], ahead: false)
    }

    /// Objects in arrays inside records that a rule removes (by index, or as a filter decides,
    /// read ahead or not), after and before other rules: what the rules before the removal
    /// would have done to them (or failed on: a renaming that makes a name twice) happens as on
    /// the tree. An object a filter decided on ahead, in which no rule then selects anything,
    /// goes by as text (`passed`): no filter takes its tokens.
    @Test func elementsRemovedAfterOtherRules() throws {
        let records = [
            #"{"g": [{"role": "member", "n": {"a": [1]}}, {"role": "admin", "n": [{}, 2.50]}, {"role": "member"}], "k": 1}"#,
            #"{"g": [{"role": "owner", "q_r": 1, "id": {"x": 1}}, {"role" : "member" , "q_r": {"y_z": 1}}], "k": 2}"#,
            #"{"g": [{"role": "member", "n": [1, {"b": "é"}]}, 3, [{"role": "member"}], {"n": 1}], "k": 3}"#,
            #"{"g": [], "k": 4, "h": {"g": [{"role": "member"}]}}"#,
        ]
        // A name the rule before the remove would make collide, in a removed object only.
        let colliding = #"{"g": [{"role": "admin"}, {"role": "member", "q_r": 1, "qR": 2}], "k": 5}"#
        for (spec, ahead, passed) in [
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].g[?@.role == 'member']"}]"#, true, true),
            // The objects that stay go by with what blankStringToNull does in them.
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].g[?@.role != 'member']"},{"op":"blankStringToNull"}]"#, true, true),
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].g[1]"}]"#, false, false),
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].g[*].n"}]"#, false, false),
            (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"camelCase"},{"op":"remove","path":"$[*].g[1]"}]"#, false, false),
            (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"camelCase"},{"op":"remove","path":"$[*].g[?@.role == 'member']"}]"#, false, false),
            (#"[{"op":"keyedToArray"},{"op":"hoist","path":"$[*].g[?@.role == 'member']","member":"role"}]"#, true, true),
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].g[?@.role == 'member'].n"}]"#, true, true),
            // Below (`..`), an object goes by watched for `g` (`ContainerPass.watch(_:)`).
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*]..g[?@.role == 'member']"}]"#, true, true),
        ] {
            let rules = try Rules(json: spec)
            for extra in [nil, colliding] {
                let all = (0..<120).map { #""r\#($0)": \#(extra != nil && $0 == 70 ? extra! : records[$0 % records.count])"# }
                let outcomes = Outcomes()
                #expect(Self.compare(rules, Array(("{" + all.joined(separator: ",") + "}").utf8), outcomes: outcomes, context: spec))
                let counts = outcomes.counts()
                #expect(counts["rerun", default: 0] == 0, "\(spec): \(counts)")
                if extra == nil {
                    #expect(counts["record trees", default: 0] == 0, "\(spec): \(counts)")
                    #expect((counts["read ahead", default: 0] > 0) == ahead, "\(spec): \(counts)")
                    #expect((counts["passed ahead", default: 0] > 0) == passed, "\(spec): \(counts)")
                }
            }
        }
    }

    /// A renaming that gives two members of an object one name fails as on the tree even when a
    /// rule after it drops one of them, before the writer could compare them: in records (whose
    /// members go past the filters without their tokens) and in objects inside them.
    @Test func renamedNamesCollideEvenWhereARuleDropsOne() throws {
        for (spec, colliding) in [
            (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"camelCase"},{"op":"remove","path":"$[*].xY"}]"#, #"{"x_y": 1, "xY": 2}"#),
            (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"camelCase"},{"op":"remove","path":"$[*].x_y"}]"#, #"{"xY": 1, "x_y": 2}"#),
            (#"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$[*]","map":{"k":"z"}},{"op":"remove","path":"$[*].z"}]"#, #"{"z": 1, "k": 2}"#),
            (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"camelCase"},{"op":"remove","path":"$[*]","matching":"x.*"}]"#, #"{"x_y": 1, "xY": 2}"#),
            (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"camelCase"},{"op":"keep","path":"$[*]","members":["k"]}]"#, #"{"k": 1, "x_y": 1, "xY": 2}"#),
            (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"camelCase"},{"op":"remove","path":"$[*].p.xY"}]"#, #"{"p": {"x_y": 1, "xY": 2}}"#),
            (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"camelCase"},{"op":"remove","path":"$[*].p.xY"}]"#, #"{"p": {"xY": {"a_b": 1, "aB": 2}}}"#),
            (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"camelCase"},{"op":"remove","path":"$[*].p.xY.aB"}]"#, #"{"p": {"xY": {"a_b": 1, "aB": 2}}}"#),
            (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"camelCase"},{"op":"coerce","path":"$[*].p","to":"number","onFail":"null"}]"#, #"{"p": {"x_y": 1, "xY": 2}}"#),
            (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"camelCase"},{"op":"hoist","path":"$[*].p","member":"n"}]"#, #"{"p": {"n": 1, "x_y": 1, "xY": 2}}"#),
            (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"camelCase"},{"op":"keyedToArray","path":"$[*].p.xY"}]"#, #"{"p": {"xY": {"a_b": {}, "aB": {}}}}"#),
            (#"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$[*].p","map":{"n":"x_y"}},{"op":"emptyObjectToNull"},{"op":"remove","path":"$[*].p.x_y"}]"#, #"{"p": {"n": 1, "x_y": 2}}"#),
            // Inside a member a rule drops whole, past the filters: read as the renaming would.
            (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"camelCase","path":"$[*].*"},{"op":"remove","path":"$[*].*"}]"#, #"{"p": {"q": {"a_b": 1, "aB": 2}}}"#),
            (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"camelCase"},{"op":"remove","path":"$[*].p"}]"#, #"{"p": [{"a_b": 1, "aB": 2}]}"#),
            // Flattening and keying by id make names too.
            (#"[{"op":"keyedToArray"},{"op":"flatten","path":"$[*]","member":"p"},{"op":"remove","path":"$[*].x_y"}]"#, #"{"x_y": 1, "p": {"x_y": 2}}"#),
            (#"[{"op":"keyedToArray"},{"op":"flatten","path":"$[*]","member":"p"},{"op":"remove","path":"$[*].k"}]"#, #"{"p": {"k": 2}, "k": 1}"#),
            (#"[{"op":"keyedToArray"},{"op":"flatten","path":"$[*].p","member":"q","prefix":"q_"},{"op":"remove","path":"$[*].p.q_a"}]"#, #"{"p": {"q_a": 1, "q": {"a": 2}}}"#),
            (#"[{"op":"keyedToArray"},{"op":"arrayToKeyed","path":"$[*].p"},{"op":"remove","path":"$[*].p.a"}]"#, #"{"p": [{"id": "a"}, {"id": "b"}, {"id": "a"}]}"#),
            (#"[{"op":"keyedToArray"},{"op":"arrayToKeyed","path":"$[*].p"},{"op":"keep","path":"$[*].p","members":["b"]}]"#, #"{"p": [{"id": 1}, {"id": "b"}, {"id": "1"}]}"#),
        ] {
            let clean = spec.contains("arrayToKeyed")
                ? #"{"k": 1, "p": [{"id": "a"}, {"id": 2}]}"# : #"{"x_y": 1, "k": 1, "p": {"xx": {"a_b": 2}, "n": [1], "q": {"b": 1}}}"#
            try Self.expectRecordFails(spec, colliding, among: clean)
        }
    }

    /// `spec` on 100 records, `clean` but for record 60, `failing`: every route gives the whole
    /// tree's error, which is record 60's, and the stream names it itself.
    static func expectRecordFails(_ spec: String, _ failing: String, among clean: String) throws {
        let rules = try Rules(json: spec)
        let records = (0..<100).map { #""r\#($0)": \#($0 == 60 ? failing : clean)"# }
        let input = Array(("{" + records.joined(separator: ",") + "}").utf8)
        let outcomes = Outcomes()
        #expect(compare(rules, input, outcomes: outcomes, context: spec))
        do {
            _ = try rules.applyWholeTree(to: input)
            Issue.record("\(spec): no failure")
        } catch {
            // `$[60]...`, or `$['r60']...` before the records are numbered.
            #expect(error.path.hasPrefix("$[60]") || error.path.hasPrefix("$['r60']"), "\(spec): \(error)")
        }
        let counts = outcomes.counts()
        #expect(counts["rerun", default: 0] == 0 && counts["failed", default: 0] > 0, "\(spec): \(counts)")
    }

    /// Many records failing one rule, at different depths, several in each batch: the whole
    /// tree reports the deepest failure, and the latest of those; the stream weighs the failures
    /// of a batch on one document (`RecordRunner.firstReported`) and gives the same error, on
    /// every route. With two failing rules, the first rule's failure wins wherever it is.
    @Test(arguments: [
        #"[{"op":"keyedToArray"},{"op":"coerce","path":"$..x","to":"number"}]"#,
        #"[{"op":"keyedToArray"},{"op":"arrayToKeyed","path":"$..g"}]"#,
        #"[{"op":"keyedToArray"},{"op":"hoist","path":"$..h","member":"m"}]"#,
        #"[{"op":"keyedToArray"},{"op":"coerce","path":"$[*].n","to":"integer"},{"op":"coerce","path":"$..x","to":"number"}]"#,
        #"[{"op":"coerce","path":"$.*..x","to":"boolean"},{"op":"keyedToArray"}]"#,
    ])
    func manyRecordsFailingOneRule(_ spec: String) throws {
        let rules = try Rules(json: spec)
        for seed in 0..<3 {
            var random = SeededGenerator(seed: UInt64(77 + seed))
            let records = (0..<60).map { index in
                // A failing value (or none) at depth 1 to 3 below the record.
                let depth = 1 + random.next(3)
                let fails = random.next(3) > 0
                var x = fails ? #"{"x": "s\#(index)", "g": [{"id": 1}, {"id": 1}], "h": {"n": 1}}"# : #"{"x": "1", "g": [{"id": \#(index)}], "h": {"m": 2}}"#
                for _ in 1..<depth { x = #"{"a": \#(x)}"# }
                let n = random.next(5) == 0 ? #""n""# : "\(index)"
                return #""r\#(index)": {"n": \#(n), "v": \#(x)}"#
            }
            let input = Array(("{" + records.joined(separator: ",") + "}").utf8)
            let outcomes = Outcomes()
            #expect(Self.compare(rules, input, outcomes: outcomes, context: "\(spec) seed \(seed)"))
            #expect(throws: ReshapeError.self) { try rules.applyWholeTree(to: input) }
            let counts = outcomes.counts()
            #expect(counts["rerun", default: 0] == 0 && counts["failed", default: 0] > 0, "\(spec): \(counts)")
        }
    }

    /// More distinct record member names than a stream keeps routes for (`KnownNames.capacity`):
    /// the routes of the names past it are made for each member, and write its name themselves;
    /// a renaming's names are still compared when a rule after it drops one.
    @Test func recordMembersPastTheRouteCache() throws {
        let records = (0..<2_200).map { index in
            #""r\#(index)": {"x": \#(index), "k_\#(index)": 1, "n\u00e9_\#(index)": [\#(index)], "q_\#(index)": {"a_b": 2}}"#
        }
        let input = Array(("{" + records.joined(separator: ",") + "}").utf8)
        let spec = #"[{"op":"keyedToArray"},{"op":"convertKeys","to":"camelCase","path":"$[*]","deep":false},{"op":"remove","path":"$[*].x"}]"#
        let rules = try Rules(json: spec)
        let outcomes = Outcomes()
        #expect(Self.compare(rules, input, outcomes: outcomes, context: spec))
        let counts = outcomes.counts()
        #expect(counts["members past", default: 0] > 0 && counts["record trees", default: 0] == 0, "\(counts)")
        // A collision in a record past the cache, where the colliding member is removed.
        let failing = records.prefix(2_100) + [#""late": {"k_1": 1, "k1": 2}"#]
        let collides = try Rules(json: #"[{"op":"keyedToArray"},{"op":"convertKeys","to":"camelCase","path":"$[*]","deep":false},{"op":"remove","path":"$[*].k1"}]"#)
        let late = Array(("{" + failing.joined(separator: ",") + "}").utf8)
        #expect(Self.compare(collides, late, context: "late collision"))
        #expect(throws: ReshapeError.self) { try collides.applyWholeTree(to: late) }
    }

    /// `keep` fails on a selected value that is not an object even inside a member it drops (the
    /// tree looks at every selected value first): `$..aB` selects inside the values it drops.
    @Test func keepFailsInsideWhatItDrops() throws {
        let clean = #"{"aB": {"x": 1, "y": {"aB": {"x": 2}}}, "k": {"aB": {}}}"#
        for (spec, failing) in [
            (#"[{"op":"keyedToArray"},{"op":"keep","path":"$..aB","members":["x"]}]"#, #"{"aB": {"x": 1, "y": {"aB": [1]}}}"#),
            (#"[{"op":"keyedToArray"},{"op":"keep","path":"$..aB","members":["x"]}]"#, #"{"aB": {"x": 1, "aB": "s"}}"#),
            (#"[{"op":"keyedToArray"},{"op":"keep","path":"$[*].*..aB","members":["x"]}]"#, #"{"y": {"aB": {"x": 1, "aB": null, "q": {"aB": 5}}}}"#),
            (#"[{"op":"keyedToArray"},{"op":"keep","path":"$[*]","members":["aB"]},{"op":"keep","path":"$..aB","members":["x"]}]"#, #"{"aB": {"x": 1, "y": {"aB": 7}}}"#),
        ] {
            try Self.expectRecordFails(spec, failing, among: clean)
        }
    }

    /// A record a rule removes at its first token still fails the rules before that one as on
    /// the tree, which runs them on the whole record first (found by
    /// `randomRecordsWithCollidingNames`: the stream dropped the record unread).
    @Test func removedRecordsFailTheRulesBeforeTheRemoval() throws {
        let clean = #"{"k": 1, "n": "2", "plan": "free", "p": {"a_b": 1}}"#
        for (spec, failing) in [
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*]"}]"#, #"{"k": 1, "id": 2}"#),
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[?@.plan == 'free']"}]"#, #"{"plan": "free", "id": 2}"#),
            (#"[{"op":"keyedToArray"},{"op":"coerce","path":"$[*].n","to":"number"},{"op":"remove","path":"$[*]"}]"#, #"{"n": "two"}"#),
            (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"camelCase"},{"op":"remove","path":"$[?@.k == 1]"}]"#, #"{"k": 1, "p": {"a_b": 1, "aB": 2}}"#),
            (#"[{"op":"keyedToArray"},{"op":"default","path":"$[*].p","key":"z","value":1},{"op":"remove","path":"$[*]"}]"#, #"{"p": [1]}"#),
            (#"[{"op":"keyedToArray"},{"op":"coerce","path":"$[*].n","to":"number"},{"op":"remove","path":"$[?@.plan == 'free']"}]"#, #"{"n": "two", "plan": "free"}"#),
            (#"[{"op":"keyedToArray"},{"op":"coerce","path":"$[*].n","to":"number"},{"op":"remove","path":"$[?@.plan == 'free']"}]"#, #"{"n": "two", "plan": "paid"}"#),
        ] {
            try Self.expectRecordFails(spec, failing, among: clean)
        }
    }

    /// A filter that tests the collection (or a member of its envelope) reads every record: the
    /// rule runs on the whole document (found by the seeded random rule lists).
    @Test func filtersOnTheChainNeedTheWholeDocument() throws {
        let rules = try Rules(json: #"[{"op":"wrap","key":"id"},{"op":"keyedToArray","path":"$[?@.a]","idKey":"k"}]"#)
        #expect(rules.streamingPlan.object == 1 && rules.streamingPlan.array == 1, "\(rules.streamingPlan)")
        for records in [#"{"a": {"n": 1}, "b": {"n": 2}}"#, #"{"b": {"n": 2}, "c": {"n": 3}}"#] {
            #expect(Self.compare(rules, Array(records.utf8), context: records))
        }
        // After `unwrap`, the collection is the root, which a descendant filter does not test.
        let deep = try Rules(json: #"[{"op":"unwrap","path":"$.data"},{"op":"remove","path":"$..[?@.x][0]"}]"#)
        #expect(deep.streamingPlan.object == 2, "\(deep.streamingPlan)")
        #expect(Self.compare(deep, Array(#"{"data": {"r1": {"x": [1]}, "r2": [2, 3], "x": 4}}"#.utf8), context: "descendant filter"))
    }

    @Test func generatedPayloads() throws {
        let outcomes = Outcomes()
        defer {
            // Most payloads stream; the rest are invalid, empty or fail a rule (the stream names
            // the whole tree's error itself: never a rerun), or have no collection where the
            // rules expect one.
            let counts = outcomes.counts()
            #expect(counts["streamed", default: 0] > 600, "\(counts)")
            #expect(counts["hybrid", default: 0] > 100, "\(counts)")
            #expect(counts["failed", default: 0] > 100, "\(counts)")
            #expect(counts["rerun", default: 0] == 0, "\(counts)")
            #expect(counts["text", default: 0] > 10, "\(counts)")
        }
        var random = SeededGenerator(seed: 13_579)
        for round in 0..<600 {
            let (spec, shapes) = random.pick(Self.recordRules + Self.hybridRules)
            let rules = try Rules(json: spec)
            // Mostly the shape the rules are written for; sometimes another one.
            let shape = random.next(6) == 0 ? random.pick(Shape.allCases) : random.pick(shapes)
            let input = Array(Self.payload(&random, count: random.next(12), shape: shape).utf8)
            var options: ApplyOptions = []
            if random.next(4) == 0 { options.insert(.pretty) }
            guard Self.compare(rules, input, options: options, outcomes: outcomes, context: "round \(round) rules \(spec)")
            else { return }
        }
    }

    /// JSON Lines in: inputs of several batches of lines, on one thread and on several, give the
    /// bytes, the skipped lines (in order) and the first error of reading the lines one by one on
    /// the whole tree; blank and CRLF lines, invalid lines and lines that fail a rule included.
    @Test func jsonLinesAcrossBatchesAndThreads() throws {
        let specs = [
            #"[{"op":"emptyObjectToNull"},{"op":"blankStringToNull"},{"op":"convertKeys","to":"snake_case"}]"#,
            #"[{"op":"coerce","path":"$.failHere","to":"number"},{"op":"remove","path":"$.debug"}]"#,
            #"[{"op":"keyedToArray","nonObject":"wrap"}]"#,
        ]
        var random = SeededGenerator(seed: 24_680)
        for round in 0..<6 {
            // Invalid lines in the first rounds; in the later ones a line that fails a rule late
            // in the input (with the second rule list), after many batches.
            let invalidLines = round < 3
            var lines: [String] = []
            for index in 0..<3000 {
                switch random.next(60) {
                case 0: lines.append("")
                case 1: lines.append("  \r")
                case 2 where invalidLines: lines.append(#"{"broken": [1,}"#)
                default:
                    let record = Self.record(&random, failing: false).replacingOccurrences(of: "\n", with: " ")
                    lines.append(index == 2400 ? #"{"failHere": "abc"}"# : record + (random.next(10) == 0 ? "\r" : ""))
                }
            }
            let input = Array((lines.joined(separator: "\n") + (round % 2 == 0 ? "\n" : "")).utf8)
            let rules = try Rules(json: specs[round % specs.count])
            let optionSets: [ApplyOptions] = [[.inputLines, .skipInvalidLines], [.inputLines], [.inputLines, .outputLines, .skipInvalidLines]]
            for options in optionSets {
                guard Self.compare(rules, input, options: options, context: "JSON Lines round \(round) options \(options.rawValue)")
                else { return }
                // The lines skipped, reported in order, whatever the threads.
                var skipped: [[ReshapeError]] = []
                for jobs in [1, 3] {
                    let collected = Collected()
                    var settings = StreamSettings(jobs: jobs)
                    settings.batchLineBytes = 4096
                    settings.skippedLine = { collected.add($0) }
                    _ = try? rules.apply(to: input, options: options, settings: settings)
                    skipped.append(collected.errors())
                }
                #expect(skipped[0] == skipped[1], "round \(round): skipped lines differ between one and three threads")
                if round == 0 && options == [.inputLines, .skipInvalidLines] {
                    #expect(skipped[0].count > 20 && skipped[0].allSatisfy { $0.code == .invalidJSON && $0.line > 0 })
                }
            }
        }
    }

    /// JSON Lines lines with rules that edit what their paths select (not the fused pass's alone)
    /// run on the record filters, each path starting at the line's root: the bytes, the skipped
    /// lines and the first error of each line on the whole tree. Odd lines (not objects, empty,
    /// duplicate names, a value a rule rejects, a byte order mark) take the tree. Rules that move
    /// the document (`wrap`) or that no filter follows keep every line on the tree.
    @Test func jsonLinesRunOnTheRecordFilters() throws {
        var random = SeededGenerator(seed: 97_531)
        let odd = [
            "{}", "[]", "[1, {\"price\": 2}]", "\"text\"", "null", #"{"n": 1, "n": 2}"#, #"{"price": "abc"}"#, "\u{FEFF}{\"n\": 1}",
            #"{"avatar": {"url": "u", "w": 1}, "plan": "free", "debug": [1, 2]}"#, #"{"a": [{"plan": "free"}, {"plan": 1}, 3]}"#,
            #"{"created_at": 5, "createdAt": 6}"#, #"{"plan": ""}"#, #"{"u1": {"inner_key": 1, "x": [2]}, "u2": {}, "u\u0033": {"key": 1}}"#,
            #"{"u1": {"inner_key": {"a": null}}, "u2": {"plan": "free"}}"#,
        ]
        for (spec, onFilters) in [
            (#"[{"op":"remove","path":"$.debug"},{"op":"coerce","path":"$.price","to":"number"}]"#, true),
            (#"[{"op":"default","path":"$","key":"plan","value":"free"},{"op":"renameKeys","path":"$","map":{"n":"count"}}]"#, true),
            (#"[{"op":"remove","path":"$[?@ == null]"},{"op":"convertKeys","path":"$","to":"camelCase"}]"#, true),
            (#"[{"op":"keep","path":"$","members":["n","plan","avatar"]},{"op":"hoist","path":"$.avatar","member":"url","onMissing":"null"}]"#, true),
            (#"[{"op":"mapValues","path":"$.plan","cases":[["free",0],["",null]]},{"op":"emptyObjectToNull"},{"op":"remove","path":"$..deepName"}]"#, true),
            (#"[{"op":"remove","path":"$.a[?@.plan == 'free']"},{"op":"blankStringToNull"},{"op":"flatten","path":"$","member":"avatar"}]"#, true),
            (#"[{"op":"keyedToArray","idKey":"key","nonObject":"skip"},{"op":"remove","path":"$[*].inner_key"}]"#, true),
            (#"[{"op":"remove","path":"$.debug"},{"op":"wrap","key":"row"}]"#, false),
        ] {
            let rules = try Rules(json: spec)
            var lines: [String] = []
            for _ in 0..<400 {
                var record = random.next(6) == 0 ? random.pick(odd) : Self.record(&random, failing: false, minimumMembers: 1)
                // keyedToArray's lines are keyed collections (Firebase exports, a line each).
                if spec.contains("keyedToArray") && random.next(8) != 0 {
                    record = "{" + (0..<random.next(4)).map { #""u\#($0)": \#(Self.record(&random, failing: false))"# }.joined(separator: ", ") + "}"
                }
                lines.append(record.replacingOccurrences(of: "\n", with: " "))
            }
            let input = Array(lines.joined(separator: "\n").utf8)
            for options in [ApplyOptions.inputLines, [.inputLines, .skipInvalidLines], [.inputLines, .outputLines]] {
                let outcomes = Outcomes()
                #expect(Self.compare(rules, input, options: options, outcomes: outcomes, context: "\(spec) options \(options.rawValue)"))
                let counts = outcomes.counts()
                // JSON Lines out writes each line's collection a record a line: the tree's.
                #expect((counts["lines on filters", default: 0] > 0) == (onFilters && !options.contains(.outputLines)), "\(spec): \(counts)")
            }
        }
    }

    /// JSON Lines from a pipe are read in chunks as the work goes, never whole: the same bytes, the
    /// same skipped lines and the same first error as the same lines in memory, on one thread and
    /// on three, with lines longer than a batch and runs cut at every size.
    @Test func jsonLinesFromAPipe() throws {
        signal(SIGPIPE, SIG_IGN)  // a run that fails stops reading: the writer then gets EPIPE
        let rules = try Rules(json: #"[{"op":"emptyObjectToNull"},{"op":"coerce","path":"$.failHere","to":"number"}]"#)
        var random = SeededGenerator(seed: 97_531)
        for round in 0..<4 {
            var lines: [String] = []
            for index in 0..<2000 {
                switch random.next(50) {
                case 0: lines.append("")
                case 1: lines.append(#"{"broken": [1,}"#)
                case 2: lines.append(#"{"long": ""# + String(repeating: "z", count: 9000) + #"", "e": {}}"#)
                default:
                    let record = Self.record(&random, failing: false).replacingOccurrences(of: "\n", with: " ")
                    lines.append(round == 3 && index == 1500 ? #"{"failHere": "abc"}"# : record)
                }
            }
            let input = Array((lines.joined(separator: "\n") + (round % 2 == 0 ? "\n" : "")).utf8)
            for options in [ApplyOptions([.inputLines, .skipInvalidLines]), [.inputLines]] {
                let expected = Result { () throws(ReshapeError) in try rules.apply(to: input, options: options) }
                for jobs in [1, 3] {
                    let skipped = Collected()
                    var settings = StreamSettings(jobs: jobs)
                    settings.batchLineBytes = 1000 + 997 * round
                    if jobs == 3 {
                        // Read a page at a time into 64 KiB of address space: the lines go on in
                        // a new region each time half of one is used, dozens of times.
                        settings.inputChunkBytes = 4096
                        settings.pipeReservationBytes = 1 << 16
                    }
                    settings.skippedLine = { skipped.add($0) }
                    let piped = try Self.throughPipe(input) { (source, output) throws(ReshapeError) in
                        try rules.apply(fromDescriptor: source, toDescriptor: output, options: options, settings: settings)
                    }
                    let context = "round \(round) options \(options.rawValue) jobs \(jobs)"
                    switch (expected, piped) {
                    case (.success(let a), .success(let b)): #expect(a == b, "\(context)")
                    case (.failure(let a), .failure(let b)): #expect(a == b, "\(context)")
                    default: Issue.record("\(context): \(expected.map { $0.count }) against \(piped.map { $0.count })")
                    }
                    if options.contains(.skipInvalidLines) {
                        let inMemory = Collected()
                        var memorySettings = StreamSettings(jobs: 1)
                        memorySettings.skippedLine = { inMemory.add($0) }
                        _ = try? rules.apply(to: input, options: options, settings: memorySettings)
                        #expect(skipped.errors() == inMemory.errors() && !inMemory.errors().isEmpty, "\(context)")
                    }
                }
            }
        }
    }

    /// Lines from a pipe go out as they come: when the pipe stays empty a moment (`tail -f`), the
    /// lines read so far are reshaped and written before the next read waits, on one thread and on
    /// three.
    @Test func jsonLinesFromAPipeGoOutAsTheyCome() throws {
        let rules = try Rules(json: #"[{"op":"emptyObjectToNull"}]"#)
        for jobs in [1, 3] {
            var ends: [Int32] = [0, 0]
            #expect(pipe(&ends) == 0)
            let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("reshape-live-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: outputURL) }
            let output = open(outputURL.path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
            let writeEnd = ends[1]
            let seen = Collected()
            let done = DispatchSemaphore(value: 0)
            Thread {
                func send(_ text: String) { _ = text.withCString { write(writeEnd, $0, strlen($0)) } }
                send("{\"a\": {}}\n{\"b\": 1}\n")
                // The first two lines' output, before any more input: within ten seconds.
                var info = stat()
                let deadline = Date().addingTimeInterval(10)
                while Date() < deadline && (stat(outputURL.path, &info) != 0 || info.st_size == 0) { usleep(5_000) }
                if info.st_size > 0 { seen.add(ReshapeError(.internal, "seen")) }
                send("{\"c\": {}}\n")
                close(writeEnd)
                done.signal()
            }.start()
            try rules.apply(fromDescriptor: ends[0], toDescriptor: output, options: [.inputLines], settings: StreamSettings(jobs: jobs))
            done.wait()
            close(ends[0])
            close(output)
            #expect(seen.errors().count == 1, "jobs \(jobs): no output until the input ended")
            #expect(try String(contentsOf: outputURL, encoding: .utf8) == "{\"a\":null}\n{\"b\":1}\n{\"c\":null}\n")
        }
    }

    /// A document that needs the whole tree, read from a file or a pipe a page at a time and given
    /// back as the tree is built: the same bytes, and the same errors (with their lines, columns
    /// and paths) however far behind the parse the text went, names of open containers and a
    /// duplicate's name included.
    @Test func wholeTreesFromFilesAndPipesGiveTheirTextBack() throws {
        let rules = try Rules(json: #"[{"op":"arrayToKeyed","path":"$.wrapper.items","idKey":"id"},{"op":"emptyObjectToNull"}]"#)
        let long = String(repeating: "é long text ", count: 9000)
        func document(_ tail: String) -> [UInt8] {
            let items = (0..<600).map { #"{"id": "i\#($0)", "n": \#($0), "e": {}, "s": "\#(String(repeating: "x", count: $0 % 97))"}"# }
            // "wrapper"'s name is far behind the end: the error paths there need it kept.
            return Array(#"{"wrapper": {"head": {"name": "\#(long)"},\#n "items": [\#(items.joined(separator: ",\n  "))],\#n "tail": {\#(tail)}}}"#.utf8)
        }
        let cases: [(String, [UInt8], ApplyOptions)] = [
            ("valid", document(#""a": 1"#), []),
            ("invalid near the end", document(#""a": tru"#), []),
            ("a duplicate after a long value", document(#""a": "\#(long)", "a": 2"#), []),
            ("duplicates allowed", document(#""a": "\#(long)", "a": 2"#), [.allowDuplicateKeys]),
            ("too deep near the end", document(#""a": "# + String(repeating: "[", count: 1100) + String(repeating: "]", count: 1100)), []),
            ("cut short", Array(document(#""a": 1"#).dropLast(3)), []),
        ]
        for (name, input, options) in cases {
            #expect(input.count > 150_000)
            Self.compare(rules, input, options: options, context: "whole tree: \(name)")
        }
    }

    /// A document from a pipe may be as large as the address space set aside for it: beyond that,
    /// a limit, with the size in the message; JSON Lines, whose lines are each a document, go on.
    @Test func aDocumentFromAPipeStopsAtItsReservation() throws {
        let rules = try Rules(json: #"[{"op":"emptyObjectToNull"}]"#)
        let records = (0..<4000).map { #"{"n": \#($0), "e": {}}"# }
        var settings = StreamSettings(jobs: 2)
        settings.inputChunkBytes = 4096
        settings.pipeReservationBytes = 1 << 16
        settings.batchLineBytes = 4096
        let document = Array(("[" + records.joined(separator: ",") + "]").utf8)
        let piped = try Self.throughPipe(document) { (source, output) throws(ReshapeError) in
            try rules.apply(fromDescriptor: source, named: "the test's pipe", toDescriptor: output, settings: settings)
        }
        #expect(throws: ReshapeError(
            .limitExceeded,
            "the input from the test's pipe is larger than the 65536 bytes of address space this process could set aside for it")
        ) { try piped.get() }
        let lines = Array((records.joined(separator: "\n") + "\n").utf8)
        let linesPiped = try Self.throughPipe(lines) { (source, output) throws(ReshapeError) in
            try rules.apply(fromDescriptor: source, toDescriptor: output, options: [.inputLines], settings: settings)
        }
        #expect(try linesPiped.get() == rules.apply(to: lines, options: [.inputLines]))
    }

    /// Runs `body` with a pipe that a thread fills with `input` and a file descriptor for the
    /// output; gives the output's bytes, or the error.
    static func throughPipe(
        _ input: [UInt8], pausingBeforeTheEnd: Bool = false, _ body: (Int32, Int32) throws(ReshapeError) -> Void
    ) throws -> Result<[UInt8], ReshapeError> {
        signal(SIGPIPE, SIG_IGN)  // a run that fails stops reading: the writer then gets EPIPE
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("reshape-pipe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: outputURL) }
        let output = open(outputURL.path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        #expect(output >= 0)
        let writeEnd = ends[1]
        let done = DispatchSemaphore(value: 0)
        Thread {
            var offset = 0
            input.withUnsafeBytes { bytes in
                while offset < bytes.count {
                    let written = write(writeEnd, bytes.baseAddress! + offset, min(65_536, bytes.count - offset))
                    if written < 0 && errno == EINTR { continue }
                    if written <= 0 { break }
                    offset += written
                }
            }
            // The reader then waits on a pipe that has given everything but its end.
            if pausingBeforeTheEnd { usleep(100_000) }
            close(writeEnd)
            done.signal()
        }.start()
        let result = Result { () throws(ReshapeError) in try body(ends[0], output) }
        close(ends[0])  // the writer, if still writing, stops
        done.wait()
        let written = try [UInt8](Data(contentsOf: outputURL))
        close(output)
        return result.map { written }
    }

    /// A pipe whose writer pauses after the last record: the records read so far are reshaped
    /// before the read waits, and an error of theirs ends the scan where it stands. That error
    /// keeps its own path (the scan's end-of-input error used to take its place, path and all),
    /// whatever comes after it: the collection's end, or nothing.
    @Test func errorsRaisedBeforeAPipeWaitsKeepTheirPlace() throws {
        let rules = try Rules(json: #"[{"op":"emptyObjectToNull"},{"op":"keyedToArray","idKey":"uid"},{"op":"coerce","path":"$[*].n","to":"integer"}]"#)
        let records = (0..<40).map { #""-N\#($0)": {"n": \#($0), "a": {}}"# }
        for (last, end) in [
            (#""-Nx": {"price": 1,\#n  "price": 2}"#, ""), (#""-Nx": {"price": 1,\#n  "price": 2}"#, "}"),
            (#""-Nx": {"n": tru}"#, ""), (#""-Nx": {"n": "x"}"#, ""), (#""-Nx": {"n": "x"}"#, "}"),
        ] {
            let input = Array(("{" + (records + [last]).joined(separator: ",\n") + end).utf8)
            let whole = Result { () throws(ReshapeError) in try rules.applyWholeTree(to: input) }
            for jobs in [1, 3] {
                var settings = StreamSettings(jobs: jobs)
                settings.minimumStreamBytes = 0
                let piped = try Self.throughPipe(input, pausingBeforeTheEnd: true) { (source, output) throws(ReshapeError) in
                    try rules.apply(fromDescriptor: source, toDescriptor: output, settings: settings)
                }
                guard case .failure(let expected) = whole, case .failure(let got) = piped else {
                    Issue.record("\(last)\(end): whole \(whole), pipe \(piped)")
                    continue
                }
                #expect(got == expected, "jobs \(jobs), \(last)\(end)")
            }
        }
    }

    /// Small responses as API clients get them, on the text route where the rules allow: most
    /// take it, the rest (a duplicate id, a record that fails, an empty or non-object record, a
    /// cut) fall back to the whole tree; either way the bytes or the error are the whole tree's.
    @Test func smallResponsesOnTheTextRoute() throws {
        let outcomes = Outcomes()
        var random = SeededGenerator(seed: 97_531)
        let specs = [Self.recordRules[0], Self.recordRules[7]].map(\.spec) + [
            #"[{"op":"wrap","key":"w"},{"op":"keyedToArray","path":"$.w","wrapIn":"x"},{"op":"convertKeys","to":"camelCase"}]"#,
            #"[{"op":"keyedToArray"},{"op":"renameKeys","map":{"price":"cost","n":"count"},"deep":true}]"#,
        ]
        for round in 0..<400 {
            let rules = try Rules(json: random.pick(specs))
            let input = Array(Self.payload(&random, count: 1 + random.next(8), shape: random.pick([.keyed, .array]), minimumMembers: 1).utf8)
            guard Self.compare(rules, input, outcomes: outcomes, context: "round \(round)") else { return }
        }
        #expect(outcomes.counts()["text", default: 0] > 150, "\(outcomes.counts())")
    }

    /// Documents that are one record (a JSON Lines line, a response that is a single user), with
    /// rules that only reach inside records, on the text route: most take it; `{}`, a duplicate or
    /// colliding name, a record cut short or followed by more text, a byte order mark and
    /// non-objects go to the whole tree; either way the bytes or the error are the whole tree's.
    @Test func singleRecordsOnTheTextRoute() throws {
        let outcomes = Outcomes()
        var random = SeededGenerator(seed: 86_420)
        let specs = [
            #"[{"op":"emptyObjectToNull"},{"op":"blankStringToNull"},{"op":"convertKeys","to":"snake_case"}]"#,
            #"[{"op":"blankStringToNull","trim":true},{"op":"renameKeys","map":{"price":"cost","n":"count"},"deep":true}]"#,
            #"[{"op":"convertKeys","to":"camelCase"},{"op":"emptyObjectToNull"}]"#,
        ]
        let odd = [
            #"{}"#, #"  {"a": 1}  "#, #"{"a": 1} x"#, #"{"a": 1, "a": 2}"#, #"{"a_b": 1, "aB": 2}"#, #"{"a": "#,
            #""""#, #"" ""#, #"[{}]"#, #"{"s": "  ", "e": {}, "d": {"x": {}}}"#, "\u{FEFF}{\"a\": {}}",
        ]
        for round in 0..<600 {
            let rules = try Rules(json: random.pick(specs))
            let text = random.next(8) == 0 ? random.pick(odd) : Self.record(&random, failing: false, minimumMembers: 1)
            guard Self.compare(rules, Array(text.utf8), outcomes: outcomes, context: "round \(round) record \(text)") else { return }
        }
        #expect(outcomes.counts()["text", default: 0] > 300, "\(outcomes.counts())")
    }

    /// Small documents whose rules the text route does not cover (`remove`, `default`, `coerce`,
    /// filters...) run on the record filters, the document taken as one record from its root:
    /// single objects, small keyed collections and arrays, and odd documents, each giving the
    /// whole tree's bytes or error. Rules that move the document (`wrap`) keep it on the tree.
    @Test func smallDocumentsRunOnTheRecordFilters() throws {
        var random = SeededGenerator(seed: 13_579)
        let odd = [
            "{}", "[]", "[1, {\"price\": 2}]", "\"text\"", "null", #"{"n": 1, "n": 2}"#, #"{"price": "abc"}"#, "\u{FEFF}{\"n\": 1}",
            #"{"a": [{"plan": "free"}, {"plan": 1}, 3]}"#, #"{"created_at": 5, "createdAt": 6}"#, #"{"n": 1} x"#, #"{"n": "#,
        ]
        for (spec, taken) in [
            (#"[{"op":"remove","path":"$.debug"},{"op":"coerce","path":"$.price","to":"number","onFail":"null"}]"#, true),
            (#"[{"op":"default","path":"$","key":"plan","value":"free"},{"op":"convertKeys","path":"$","to":"camelCase"}]"#, true),
            (#"[{"op":"keyedToArray","idKey":"key","nonObject":"skip"},{"op":"remove","path":"$[*].inner_key"},{"op":"emptyObjectToNull"}]"#, true),
            (#"[{"op":"remove","path":"$..[?@ == '']"},{"op":"keep","path":"$[*]","members":["n","plan"]}]"#, true),
            (#"[{"op":"remove","path":"$.debug"},{"op":"wrap","key":"data"}]"#, false),
        ] {
            let rules = try Rules(json: spec)
            let outcomes = Outcomes()
            for round in 0..<150 {
                let text: String
                switch random.next(4) {
                case 0: text = random.pick(odd)
                case 1: text = "{" + (0..<random.next(4)).map { #""u\#($0)": \#(Self.record(&random, failing: false))"# }.joined(separator: ", ") + "}"
                case 2: text = "[" + (0..<random.next(4)).map { _ in Self.record(&random, failing: false) }.joined(separator: ", ") + "]"
                default: text = Self.record(&random, failing: random.next(10) == 0, minimumMembers: 1)
                }
                guard Self.compare(rules, Array(text.utf8), outcomes: outcomes, context: "\(spec) round \(round) \(text)") else { return }
            }
            let counts = outcomes.counts()
            #expect((counts["lone record", default: 0] > 30) == taken, "\(spec): \(counts)")
        }
    }

    /// A collection that the rules' paths place at or near the depth limit (`$.a.b.c` with a
    /// limit of 3 to 6) leaves its records little or no depth: every route gives the whole
    /// tree's error, with its path, line and column, or its bytes.
    @Test func collectionsAtTheDepthLimitGiveTheTreesError() throws {
        let records = (0..<3000).map { #""k\#($0)": {"n": \#($0), "price": {"x": [1]}}"# }
        let input = Array((#"{"a": {"b": {"c": {"# + records.joined(separator: ",") + "}}}}").utf8)
        for depth in [3, 4, 5, 6, 7] {
            for spec in [#"[{"op":"remove","path":"$.a.b.c.*.price"}]"#, #"[{"op":"keyedToArray","path":"$.a.b.c"}]"#] {
                let rules = try Rules(json: spec, limits: Limits(maxDepth: depth))
                #expect(Self.compare(rules, input, context: "\(spec) maxDepth \(depth)"))
            }
        }
    }

    /// Limits hold for a small document on the record filters as on the whole tree: a depth, an
    /// output, a work and a selection limit near or past what the document needs give the tree's
    /// bytes or its error exactly (the filters leave a document near a limit to the tree). The
    /// stream, which counts work, selections and output its own way (docs/limits.md), may stop
    /// where the tree does not; its depth errors are the tree's (an envelope it finds leaves the
    /// records room under the depth limit).
    @Test func smallDocumentsOnTheFiltersKeepTheLimits() throws {
        var documents: [String] = []
        for depth in [3, 5, 6, 7, 8, 30] {
            documents.append(String(repeating: #"{"n":1,"a":"#, count: depth) + "1" + String(repeating: "}", count: depth))
        }
        documents.append("{" + (0..<300).map { #""k\#($0)": {"n": \#($0), "price": \#($0)}"# }.joined(separator: ",") + "}")
        let outcomes = Outcomes()
        for spec in [
            #"[{"op":"remove","path":"$.debug"},{"op":"coerce","path":"$.price","to":"string"}]"#,
            #"[{"op":"default","path":"$..*[?@.n]","key":"plan","value":"free"},{"op":"renameKeys","path":"$","map":{"n":"a-longer-name"},"deep":true}]"#,
        ] {
            for limits in [
                Limits(maxDepth: 5), Limits(maxDepth: 7), Limits(maxDepth: 8), Limits(maxSelected: 3), Limits(maxSelected: 40),
                Limits(maxOutputBytes: 200), Limits(maxOutputBytes: 9000), Limits(maxWork: 100), Limits(maxWork: 3000),
            ] {
                let rules = try Rules(json: spec, limits: limits)
                for document in documents {
                    let input = Array(document.utf8)
                    let context = "\(spec) \(limits) \(document.prefix(60))"
                    // A stream counts selections per record (docs/limits.md): compared without.
                    if limits.maxSelected == nil {
                        #expect(Self.compare(rules, input, outcomes: outcomes, context: context, countsDifferently: true))
                    }
                    let whole = Result { () throws(ReshapeError) in try rules.applyWholeTree(to: input) }
                    var settings = StreamSettings(jobs: 1)
                    settings.minimumStreamBytes = Int.max
                    settings.outcome = { outcome in outcomes.add(outcome) }
                    let small = Result { () throws(ReshapeError) in try rules.apply(to: input, options: [], settings: settings) }
                    switch (whole, small) {
                    case (.success(let a), .success(let b)): #expect(a == b, "\(context)")
                    case (.failure(let a), .failure(let b)): #expect(a == b, "\(context)")
                    default: Issue.record("\(context): \(whole) \(small)")
                    }
                }
            }
        }
        #expect(outcomes.counts()["lone record", default: 0] > 10, "\(outcomes.counts())")
    }

    /// Limits hold when streaming: the output limit counts the whole output, the depth limit the
    /// whole document, and the error is the whole tree's.
    @Test func limitsHoldWhenStreaming() throws {
        let spec = Self.recordRules[0].spec
        let records = (0..<2000).map { #""-N\#($0)": {"displayName": "n\#($0)", "avatar": {}, "deep": [[[[1]]]]}"# }
        let input = Array(("{" + records.joined(separator: ",") + "}").utf8)
        for limits in [Limits(maxOutputBytes: 50_000), Limits(maxDepth: 5), Limits(maxDepth: 6), Limits(maxWork: 10_000)] {
            let rules = try Rules(json: spec, limits: limits)
            let outcomes = Outcomes()
            let same = Self.compare(rules, input, outcomes: outcomes, context: "\(limits)")
            #expect(same)
            #expect(throws: ReshapeError.self) { try rules.applyWholeTree(to: input) }
        }
        // Members past the filters (written, renamed or dropped) at each depth limit around the
        // records' own: the tree's result or error, whichever route a member takes.
        for spec in [
            #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].avatar"}]"#,
            #"[{"op":"keyedToArray"},{"op":"keep","path":"$[*]","members":["displayName"]}]"#,
            #"[{"op":"keyedToArray"},{"op":"convertKeys","path":"$[*]","to":"snake_case"},{"op":"emptyObjectToNull"}]"#,
        ] {
            for depth in 3...5 {
                let rules = try Rules(json: spec, limits: Limits(maxDepth: depth))
                #expect(Self.compare(rules, input, context: "\(spec) maxDepth \(depth)"))
            }
        }
    }

    /// A stream writes each record as it goes and stops at the first record whose output passes
    /// the output limit (docs/limits.md). Pretty output of deep records passes it long before a
    /// record near the end that is not valid JSON, which the whole tree, reading its input before
    /// it writes, names instead. Compact output, and pretty output under a higher limit, name
    /// that record on every route.
    @Test func prettyOutputMeetsTheOutputLimitBeforeALaterRecordsError() throws {
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        let records = (0..<50).map { #""r\#($0)": {"v": \#(deep)}"# } + [#""bad": {"a": 1, "a": 2}"#]
        let input = Array(("{" + records.joined(separator: ",") + "}").utf8)
        let spec = #"[{"op":"keyedToArray"}]"#
        let limited = try Rules(json: spec, limits: Limits(maxOutputBytes: 1 << 20))
        func failure(_ body: () throws(ReshapeError) -> [UInt8]) -> ReshapeError? {
            do { _ = try body() } catch { return error }
            return nil
        }
        let invalid = try #require(failure { () throws(ReshapeError) in try limited.applyWholeTree(to: input, options: .pretty) })
        #expect(invalid.code == .invalidJSON && invalid.path == "$['bad']['a']" && invalid.column == input.count - 7, "\(invalid)")
        let limit = ReshapeError(.limitExceeded, "the output would be larger than 1048576 bytes (the output limit)")
        let outcomes = Outcomes()
        for settings in Self.settings(counting: outcomes) {
            let streams = settings.minimumStreamBytes == 0
            let context: Comment = "jobs \(settings.jobs), streams \(streams)"
            #expect(failure { () throws(ReshapeError) in try limited.apply(to: input, options: .pretty, settings: settings) }
                == (streams ? limit : invalid), context)
            #expect(failure { () throws(ReshapeError) in try limited.apply(to: input, options: [], settings: settings) } == invalid, context)
        }
        #expect(Self.compare(try Rules(json: spec), input, options: .pretty, context: "default limits"))
    }

    /// Renamings can make the output far larger than the input: the text route, streaming and
    /// the tree all stop at the output limit, with the tree's error, and none of them builds the
    /// oversized output first (unchecked, 4000 records would make 800 MB here).
    /// The text route stops where the whole tree's output bound would: the tree counts the input
    /// and what renamings add, not what it writes, so white space in the input counts too.
    @Test func textRouteKeepsTheTreesOutputBound() throws {
        let long = String(repeating: "n", count: 11_950)
        for spec in [
            #"[{"op":"renameKeys","map":{"a":"\#(long)"},"deep":true}]"#,
            #"[{"op":"keyedToArray"},{"op":"renameKeys","map":{"a":"\#(long)"},"deep":true}]"#,
        ] {
            for limit in [12_000, 20_000, 30_000, 40_000] {
                let rules = try Rules(json: spec, limits: Limits(maxOutputBytes: limit))
                for input in [#"{"a":1}"# + String(repeating: " ", count: 93), #"{"k": {"a": 1}}"# + String(repeating: " ", count: 400)] {
                    #expect(Self.compare(rules, Array(input.utf8), context: "limit \(limit) rules \(spec.prefix(40))"))
                }
            }
        }
    }

    /// A renaming adds to the output bound what each name grows by; a name made shorter gives
    /// nothing back (`OutputGrowth.renamed`), on the tree as on the text and the stream: an
    /// object whose one name grows by 6 and another shrinks by 6 needs 6 bytes of room.
    @Test func renamingsCountWhatEachNameGrows() throws {
        let spec = #"[{"op":"renameKeys","map":{"a":"aaaaaaa","bbbbbbb":"b"},"deep":true}]"#
        let input = Array(#"{"r1": {"a": 1, "bbbbbbb": 2}}"#.utf8)
        for room in 0..<9 {
            let rules = try Rules(json: spec, limits: Limits(maxOutputBytes: input.count + room))
            #expect(Self.compare(rules, input, context: "room \(room)"))
            let whole = Result { () throws(ReshapeError) in try rules.applyWholeTree(to: input) }
            switch whole {
            case .success(let output):
                #expect(room >= 6 && String(decoding: output, as: UTF8.self) == #"{"r1":{"aaaaaaa":1,"b":2}}"#, "room \(room)")
            case .failure(let error):
                #expect(room < 6 && error.code == .limitExceeded, "room \(room): \(error)")
            }
        }
    }

    /// A stream keeps the whole tree's output bound, not only the bytes it writes: for output
    /// limits swept across both, it never finishes where the whole tree refuses (on its text, on
    /// a tree, with the rules after it run on the whole document), and where it stops, the whole
    /// tree's answer is the one given.
    @Test func streamsKeepTheTreesOutputBound() throws {
        let long = String(repeating: "n", count: 300)
        let specs = [
            #"[{"op":"keyedToArray"},{"op":"renameKeys","map":{"a":"\#(long)"},"deep":true}]"#,
            #"[{"op":"keyedToArray","wrapIn":"w"},{"op":"default","path":"$.w[*]","key":"d","value":[1,2,3]}]"#,
            #"[{"op":"keyedToArray"},{"op":"convertKeys","to":"snake_case"},{"op":"remove","path":"$[-1]"}]"#,
        ]
        let records = (0..<300).map { #""r\#($0)"  :  {"a": 1,   "bC": {"a": [2]}}"# }
        let input = Array(("{" + records.joined(separator: ",\n   ") + "}").utf8)
        for spec in specs {
            let plain = try Rules(json: spec).applyWholeTree(to: input)
            var refusals = 0
            for step in 0..<48 {
                let limit = plain.count / 2 + step * plain.count / 4
                let rules = try Rules(json: spec, limits: Limits(maxOutputBytes: limit))
                let whole = Result { () throws(ReshapeError) in try rules.applyWholeTree(to: input) }
                if case .failure = whole { refusals += 1 }
                for jobs in [1, 2] {
                    var settings = StreamSettings(jobs: jobs)
                    settings.minimumStreamBytes = 0
                    settings.batchRecords = 16
                    let streamed = Result { () throws(ReshapeError) in try rules.apply(to: input, options: [], settings: settings) }
                    switch (whole, streamed) {
                    case (.success(let a), .success(let b)): #expect(a == b, "limit \(limit) \(spec)")
                    case (.failure(let a), .failure(let b)): #expect(a == b, "limit \(limit) \(spec)")
                    default: Issue.record("limit \(limit) jobs \(jobs) \(spec): whole \(whole), streamed \(streamed.map(\.count))")
                    }
                }
            }
            #expect(refusals > 2 && refusals < 48, "\(spec): the sweep must cross the bound")
        }
    }

    /// The work limit of a stream is its own count (docs/limits.md): a record reshaped on its text
    /// costs a step per 8 bytes of it, and one; a record on a tree of its own (a path with both
    /// a filter and an index from the end), its rules' steps on that tree. Swept across both counts, with rules that need the
    /// whole document after them too: where both stop, the error is the same; the records on
    /// their text stop exactly at their documented count; and the stream names its error itself,
    /// never by running the whole tree.
    @Test func workLimitsAreTheStreamsOwnCount() throws {
        let specs = [
            #"[{"op":"keyedToArray"},{"op":"emptyObjectToNull"},{"op":"convertKeys","to":"snake_case"}]"#,
            #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*][?@ != 0][-1]"},{"op":"default","path":"$[*]","key":"d","value":1}]"#,
            #"[{"op":"keyedToArray"},{"op":"coerce","path":"$[*].n","to":"string"},{"op":"remove","path":"$[-1]"}]"#,
        ]
        let values = (0..<300).map { #"{"nameX": "n\#($0)", "avatar": {}, "n": \#($0), "tags": [1, 2, 3]}"# }
        let records = values.enumerated().map { #""r\#($0.offset)": \#($0.element)"# }
        let input = Array(("{" + records.joined(separator: ",") + "}").utf8)
        let onText = values.reduce(0) { $0 + $1.utf8.count / 8 + 1 }
        for (index, spec) in specs.enumerated() {
            let outcomes = Outcomes()
            var refusals = 0
            var limit = 1_000
            while limit < 400_000 {
                let rules = try Rules(json: spec, limits: Limits(maxWork: limit))
                let expected = ReshapeError(.limitExceeded, "the rules need more than \(limit) steps of work on this document (the work limit)")
                if case .failure(let error) = Result(catching: { () throws(ReshapeError) in try rules.applyWholeTree(to: input) }) {
                    #expect(error == expected, "\(spec) \(limit)")
                    refusals += 1
                }
                #expect(Self.compare(rules, input, outcomes: outcomes, context: "limit \(limit) \(spec)", countsDifferently: true))
                if index == 0 {
                    var settings = StreamSettings(jobs: 2)
                    settings.minimumStreamBytes = 0
                    settings.batchRecords = 7
                    let streamed = Result { () throws(ReshapeError) in try rules.apply(to: input, options: [], settings: settings) }
                    switch streamed {
                    case .success: #expect(onText <= limit, "\(limit): \(onText) steps")
                    case .failure(let error): #expect(error == expected && onText > limit, "\(limit): \(onText) steps, \(error)")
                    }
                }
                limit = limit * 5 / 4
            }
            let counts = outcomes.counts()
            #expect(refusals > 2 && counts["failed", default: 0] > 2 && counts["streamed", default: 0] + counts["hybrid", default: 0] > 2,
                "\(spec): the sweep must cross both counts: \(refusals) \(counts)")
            #expect(counts["rerun", default: 0] == 0, "\(spec): \(counts)")
        }
    }

    /// Without rules, a collection is copied record by record, not read whole into a tree (a
    /// 60 MB array of small arrays took 2.6 GB that way): `[]` streams, with the whole tree's
    /// bytes (canonical numbers, strings and spacing) and its errors (a duplicate record name,
    /// text that cannot be read inside a record).
    @Test func noRulesStream() throws {
        let rules = try Rules(json: "[]")
        let outcomes = Self.compareOnCleanRecords(rules, seed: 4_711, context: "[]")
        let array = Array(("[" + (0..<300).map { "[\($0), 1E2, \"\\u00e9\"]" }.joined(separator: " ,\n ") + "]").utf8)
        #expect(Self.compare(rules, array, outcomes: outcomes, context: "[] on an array"))
        for input in [#"{"r1": {"a": 1}, "r2": [], "r1": 2}"#, #"[{"a": 1}, {"a": 1, "a": 2}, 3]"#, #"[{"a": 1}, {"a": tru}, 3]"#] {
            let failing = Array(input.utf8)
            #expect(Self.compare(rules, failing, outcomes: outcomes, context: "[] on \(input)"))
            #expect(throws: ReshapeError.self) { try rules.applyWholeTree(to: failing) }
        }
        let counts = outcomes.counts()
        #expect(counts["streamed", default: 0] + counts["failed", default: 0] > 10 && counts["tree", default: 0] == 0, "\(counts)")
    }

    /// A collection inside an envelope that no rule's path names is found, in memory and in a
    /// regular file: the member of the root object that holds most of the document, followed
    /// down, becomes the collection when every rule runs per record there, so its records are
    /// reshaped on their text, not as one record on a tree as large as the document. The bytes and
    /// errors are the whole tree's; rules that pin the collection to the root, or an envelope whose
    /// largest member is under half the document, keep the root. A file is measured on what is read
    /// ahead of it (here 1 KiB as well as all of it): a member that goes on past that is followed.
    @Test func envelopesThatNoPathNamesAreFound() throws {
        let records = (0..<400).map { #"{"user_name": "n\#($0)", "avatar": {}, "bio": "  ", "tags": [\#($0), {}]}"# }
        let array = "[" + records.joined(separator: ",") + "]"
        let keyed = "{" + records.enumerated().map { #""u\#($0.offset)": \#($0.element)"# }.joined(separator: ",") + "}"
        // (spec, input, the envelope is found, then every record on its text)
        let cases: [(String, String, Bool, Bool)] = [
            (#"[{"op":"emptyObjectToNull"}]"#, #"{"meta": {"page": 1}, "data": \#(array), "links": {}}"#, true, true),
            (#"[{"op":"emptyObjectToNull"},{"op":"blankStringToNull"},{"op":"convertKeys"}]"#,
             #"{"response": {"status": "ok", "data": \#(array)}}"#, true, true),
            ("[]", #"{"da\u0074a": \#(array)}"#, true, true),
            (#"[{"op":"emptyObjectToNull"}]"#, #"{"data": \#(array), "data": []}"#, true, false),
            (#"[{"op":"emptyObjectToNull"}]"#, #"{"data": \#(array), "broken": [1, }"#, true, false),
            (#"[{"op":"blankStringToNull"}]"#, #"{"users": \#(keyed), "count": 400}"#, true, false),
            // Renaming the members of an object collection needs the whole document (ids).
            (#"[{"op":"convertKeys"}]"#, #"{"users": \#(keyed), "count": 400}"#, false, false),
            // A rule at the root pins the collection there; no member holds half the document.
            (#"[{"op":"keyedToArray"},{"op":"emptyObjectToNull"}]"#, #"{"only": \#(keyed)}"#, false, false),
            (#"[{"op":"emptyObjectToNull"}]"#, #"{"first": \#(array), "second": \#(array)}"#, false, false),
            (#"[{"op":"emptyObjectToNull"}]"#, array, false, false),
        ]
        for (spec, text, found, onText) in cases {
            let rules = try Rules(json: spec)
            let input = Array(text.utf8)
            #expect(Self.compare(rules, input, context: "\(spec) on \(text.prefix(40))"))
            let outcomes = Outcomes()
            var settings = StreamSettings(jobs: 2)
            settings.minimumStreamBytes = 0
            settings.strict = true
            settings.outcome = { outcome in outcomes.add(outcome) }
            _ = try? rules.apply(to: input, options: [], settings: settings)
            let counts = outcomes.counts()
            #expect((counts["envelope found", default: 0] > 0) == found, "\(spec) on \(text.prefix(40)): \(counts)")
            if onText {
                #expect(counts["streamed", default: 0] == 1 && counts["record trees", default: 0] == 0, "\(spec) on \(text.prefix(40)): \(counts)")
            }
            // From a file, all of it measured, and only its first KiB.
            let whole = Result { () throws(ReshapeError) in try rules.applyWholeTree(to: input) }
            for readAhead in [1 << 20, 1 << 10] {
                let outcomes = Outcomes()
                var settings = StreamSettings(jobs: 2)
                settings.minimumStreamBytes = 0
                settings.inputChunkBytes = 4096
                settings.envelopeBytesRead = readAhead
                settings.strict = true
                settings.outcome = { outcome in outcomes.add(outcome) }
                let fromFile = Self.throughFile(input) { (source, output) throws(ReshapeError) in
                    try rules.apply(fromDescriptor: source, toDescriptor: output, settings: settings)
                }
                let context = "\(spec) on \(text.prefix(40)) from a file, \(readAhead) bytes read ahead"
                switch (whole, fromFile) {
                case (.success(let a), .success(let b)): #expect(a == b, "\(context)")
                case (.failure(let a), .failure(let b)): #expect(a == b, "\(context)")
                default: Issue.record("\(context): \(whole) against \(fromFile)")
                }
                let counts = outcomes.counts()
                // Read ahead by 1 KiB, the second array of two goes on past it and is followed too.
                let expected = found || (readAhead == 1 << 10 && text.hasPrefix(#"{"first""#))
                #expect((counts["envelope found", default: 0] > 0) == expected, "\(context): \(counts)")
                if onText {
                    #expect(counts["streamed", default: 0] == 1 && counts["record trees", default: 0] == 0, "\(context): \(counts)")
                }
            }
        }
    }

    /// A limit passed inside a batch of records stops the threads there, not where the batch is
    /// written: a batch stops at the first record past what the stream has left when it is handed
    /// over, and the stream fails at the record that passed the limit, whatever the batches and
    /// the threads (the error is the same for every batch size). Without it, each batch in flight
    /// was reshaped to its end first: a 1 MB document of 1,454 rules took 11 s to reach the work
    /// limit, and 1,141 `default` rules 9 s to reach the output limit.
    @Test func limitsStopTheBatchesWhereTheyArePassed() throws {
        let values = (0..<3000).map { #"{"nameX": "n\#($0)", "tags": [1, 2, 3]}"# }
        let records = values.enumerated().map { #""r\#($0.offset)": \#($0.element)"# }
        let input = Array(("{" + records.joined(separator: ",") + "}").utf8)
        let padding = String(repeating: "p", count: 200)
        for (spec, limits, expected) in [
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*][?@ != 0][-1]"}]"#, Limits(maxWork: 2_000),
             ReshapeError(.limitExceeded, "the rules need more than 2000 steps of work on this document (the work limit)")),
            (#"[{"op":"keyedToArray"},{"op":"default","path":"$[*]","key":"d","value":"\#(padding)"}]"#,
             Limits(maxOutputBytes: input.count + 20_000),
             ReshapeError(.limitExceeded, "the output would be larger than \(input.count + 20_000) bytes (the output limit)")),
        ] {
            let rules = try Rules(json: spec, limits: limits)
            for (jobs, batchRecords) in [(1, 1000), (2, 1000), (2, 7), (1, 1)] {
                let reshaped = Outcomes()
                var settings = StreamSettings(jobs: jobs)
                settings.minimumStreamBytes = 0
                settings.batchRecords = batchRecords
                settings.strict = true
                settings.recordsReshaped = { count in reshaped.add(String(count)) }
                let streamed = Result { () throws(ReshapeError) in try rules.apply(to: input, options: [], settings: settings) }
                let error: ReshapeError? = if case .failure(let error) = streamed { error } else { nil }
                #expect(error == expected, "\(spec) jobs \(jobs) batches of \(batchRecords): \(streamed)")
                let total = reshaped.counts().reduce(0) { $0 + Int($1.key)! * $1.value }
                #expect(total > 0 && total < 1000, "\(spec) jobs \(jobs) batches of \(batchRecords): \(total) records reshaped")
            }
        }
    }

    /// A thread that stops its batch because the threads together spent past a limit, though
    /// the records before its own may not have, has the batch reshaped again where it is written
    /// (counted here: it must happen), and the answer is one thread's, whatever the timing. Swept
    /// across the work limit, with threads that tell each other after every record. (Spending
    /// past a limit means the stream fails at it anyway; the batch is reshaped again so that the
    /// record that passed it, and what comes first, are found as one thread finds them.)
    @Test func batchesStoppedOnOtherThreadsSpendingAreReshapedAgain() throws {
        let values = (0..<3000).map { #"{"nameX": "n\#($0)", "tags": [1, 2, 3]}"# }
        let records = values.enumerated().map { #""r\#($0.offset)": \#($0.element)"# }
        let input = Array(("{" + records.joined(separator: ",") + "}").utf8)
        let spec = #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*][?@ != 0][-1]"}]"#
        let outcomes = Outcomes()
        var ends: Set<String> = []
        var limit = 20_000
        while limit < 400_000 {
            let rules = try Rules(json: spec, limits: Limits(maxWork: limit))
            func run(jobs: Int, step: Int?) -> Result<[UInt8], ReshapeError> {
                var settings = StreamSettings(jobs: jobs)
                settings.minimumStreamBytes = 0
                settings.batchRecords = 50
                if let step { settings.spendingStep = step }
                settings.strict = true
                settings.outcome = { outcome in outcomes.add(outcome) }
                return Result { () throws(ReshapeError) in try rules.apply(to: input, options: [], settings: settings) }
            }
            let single = run(jobs: 1, step: nil)
            if case .failure(let error) = single { ends.insert("\(error.code)") } else { ends.insert("ok") }
            for round in 0..<3 {
                let many = run(jobs: 3, step: 1)
                switch (single, many) {
                case (.success(let a), .success(let b)): #expect(a == b, "limit \(limit) round \(round)")
                case (.failure(let a), .failure(let b)): #expect(a == b, "limit \(limit) round \(round)")
                default: Issue.record("limit \(limit) round \(round): one thread \(single.map(\.count)), three \(many.map(\.count))")
                }
            }
            limit = limit * 3 / 2
        }
        let counts = outcomes.counts()
        #expect(ends == ["ok", "\(ReshapeError.Code.limitExceeded)"], "the sweep must cross the limit: \(ends)")
        #expect(counts["batch reshaped again", default: 0] > 0 && counts["rerun", default: 0] == 0, "\(counts)")
    }

    /// Under work and output limits, a stream gives one answer whatever its threads and batches:
    /// the record whose work or output passes a limit is found in record order, and records read
    /// on after a rule failure count too (docs/limits.md). Seeded collections with records that
    /// fail a rule, rule lists on text and on records' own trees, limits around what they need;
    /// one thread with large batches against two with batches of 7 and three with batches of one
    /// that tell each other after every record.
    @Test func limitsGiveOneAnswerWhateverTheThreads() throws {
        var random = SeededGenerator(seed: 60_613)
        let pool = [
            #"{"op":"coerce","path":"$[*].price","to":"number"}"#, #"{"op":"emptyObjectToNull"}"#,
            #"{"op":"convertKeys","path":"$[*]","to":"snake_case"}"#, #"{"op":"remove","path":"$[*].debug"}"#,
            #"{"op":"default","path":"$[*]","key":"plan","value":"free"}"#, #"{"op":"remove","path":"$[*].avatar[-1]"}"#,
            #"{"op":"renameKeys","map":{"n":"count"},"deep":true}"#, #"{"op":"remove","path":"$[-1]"}"#,
        ]
        var ends: [String: Int] = [:]
        for round in 0..<150 {
            let count = 20 + random.next(200)
            let failAt = random.next(4) == 0 ? random.next(count) : -1
            let records = (0..<count).map { #""r\#($0)": \#(Self.record(&random, failing: $0 == failAt))"# }
            let input = Array(("{" + records.joined(separator: ",") + "}").utf8)
            let spec = "[" + ([#"{"op":"keyedToArray"}"#] + (0..<(1 + random.next(3))).map { _ in random.pick(pool) }).joined(separator: ",") + "]"
            let limits = random.next(2) == 0
                ? Limits(maxWork: 100 + random.next(count * 120)) : Limits(maxOutputBytes: input.count / 2 + random.next(input.count * 4))
            let rules = try Rules(json: spec, limits: limits)
            var answers: [Result<[UInt8], ReshapeError>] = []
            for (jobs, batchRecords, step) in [(1, 4096, nil), (2, 7, nil), (3, 1, 1)] as [(Int, Int, Int?)] {
                var settings = StreamSettings(jobs: jobs)
                settings.minimumStreamBytes = 0
                settings.batchRecords = batchRecords
                if let step { settings.spendingStep = step }
                settings.strict = true
                answers.append(Result { () throws(ReshapeError) in try rules.apply(to: input, options: [], settings: settings) })
            }
            for answer in answers.dropFirst() {
                switch (answers[0], answer) {
                case (.success(let a), .success(let b)): #expect(a == b, "round \(round) \(spec) \(limits)")
                case (.failure(let a), .failure(let b)): #expect(a == b, "round \(round) \(spec) \(limits)")
                default: Issue.record("round \(round) \(spec) \(limits): \(answers.map { $0.map(\.count) })")
                }
            }
            switch answers[0] {
            case .success: ends["ok", default: 0] += 1
            case .failure(let error): ends[error.code == .limitExceeded ? "limit" : "rule", default: 0] += 1
            }
        }
        #expect(ends["ok", default: 0] > 10 && ends["limit", default: 0] > 10 && ends["rule", default: 0] > 5, "\(ends)")
    }

    /// What filter selectors do on a record's tokens counts as work too (docs/limits.md): the same
    /// records under a limit that the text alone stays within stop at it when a filter walks every
    /// value below each value, and not with a path that walks them without a filter.
    @Test func filtersOnTokensCountTheirWork() throws {
        let values = (0..<300).map { #"{"a": [[[[\#($0)]]]], "b": {"c": {"d": {"e": [1, 2, {"f": "\#($0)"}]}}}}"# }
        let records = values.enumerated().map { #""r\#($0.offset)": \#($0.element)"# }
        let input = Array(("{" + records.joined(separator: ",") + "}").utf8)
        let onText = values.reduce(0) { $0 + $1.utf8.count / 8 + 1 }
        let limit = onText * 3
        for (spec, fits) in [
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*]..[?count(@..*) > 1000].x"}]"#, false),
            (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*]..x"}]"#, true),
        ] {
            let unlimited = try Rules(json: spec)
            let rules = try Rules(json: spec, limits: Limits(maxWork: limit))
            let outcomes = Outcomes()
            var settings = StreamSettings(jobs: 2)
            settings.minimumStreamBytes = 0
            settings.batchRecords = 7
            settings.outcome = { outcome in outcomes.add(outcome) }
            let streamed = Result { () throws(ReshapeError) in try rules.apply(to: input, options: [], settings: settings) }
            if fits {
                #expect(try streamed.get() == unlimited.applyWholeTree(to: input), "\(spec)")
            } else {
                let expected = ReshapeError(.limitExceeded, "the rules need more than \(limit) steps of work on this document (the work limit)")
                if case .failure(let error) = streamed {
                    #expect(error == expected, "\(spec)")
                } else {
                    Issue.record("\(spec): the filters' work was not counted")
                }
                // Within the limit, the same rules give the whole tree's bytes, every record on its tokens.
                let within = Result { () throws(ReshapeError) in try unlimited.apply(to: input, options: [], settings: settings) }
                #expect(try within.get() == unlimited.applyWholeTree(to: input), "\(spec)")
            }
            let counts = outcomes.counts()
            #expect(counts["record trees", default: 0] == 0 && counts["rerun", default: 0] == 0, "\(spec): \(counts)")
        }
    }

    @Test func longRenamesStopAtTheOutputLimit() throws {
        let long = String(repeating: "n", count: 100_000)
        let spec = #"[{"op":"keyedToArray"},{"op":"renameKeys","map":{"a":"\#(long)"},"deep":true}]"#
        let rules = try Rules(json: spec, limits: Limits(maxOutputBytes: 5_000_000))
        for count in [40, 4000] {
            let records = (0..<count).map { #""r\#($0)": {"a": 1, "b": {"a": 2}}"# }
            let input = Array(("{" + records.joined(separator: ",") + "}").utf8)
            let same = Self.compare(rules, input, context: "\(count) records")
            #expect(same)
            #expect(throws: ReshapeError.self) { try rules.applyWholeTree(to: input) }
        }
    }

    @Test func duplicateRecordNamesAreFoundWhateverTheirSpelling() throws {
        let rules = try Rules(json: Self.recordRules[0].spec)
        // Large records first, then many small ones: the table, sized from the first records,
        // must grow (reading the names again) before the duplicate.
        let filler = String(repeating: "x", count: 200)
        let records = (0..<1100).map { #""big\#($0)": {"a": "\#(filler)"}"# } + (0..<30000).map { #""r\#($0)": {"a": 1}"# }
            + [#""r\u0031\u0032": {}"#]
        let input = Array(("{" + records.joined(separator: ",") + "}").utf8)
        let same = Self.compare(rules, input, context: "escaped duplicate")
        #expect(same)
        #expect(throws: ReshapeError.self) { try rules.applyWholeTree(to: input) }
    }

    /// Names in ascending byte order are checked without a table until one is out of order; then
    /// the table is filled from the names before it. Duplicates must be found on both sides of
    /// that switch, whatever their spelling, and names out of order that repeat nothing are no error.
    @Test func duplicateRecordNamesAroundAscendingOrder() throws {
        let rules = try Rules(json: Self.recordRules[0].spec)
        let ascending = (0..<3000).map { String(format: "r%05d", $0) }
        func document(_ names: [String]) -> [UInt8] {
            Array(("{" + names.enumerated().map { #""\#($1)": {"n": \#($0)}"# }.joined(separator: ",") + "}").utf8)
        }
        let cases: [(String, [String], Bool)] = [
            ("all ascending", ascending, false),
            ("a prefix before its extension", ["ab", "abc", "abd", "b"], false),
            ("an extension before its prefix", ["abc", "ab"], false),
            ("the last name again", ascending + ["r02999"], true),
            ("the last name again, escaped", ascending + [#"r0299\u0039"#], true),
            ("an early name again, after many", ascending + ["r00007"], true),
            ("an early name again, after a few", Array(ascending[..<20]) + ["r00003"], true),
            ("out of order, then a duplicate later", ascending + ["a", "q", "r01500"], true),
            ("out of order, no duplicate", ascending + ["a", "q", "z"], false),
            ("descending", ascending.reversed(), false),
            ("descending, then a duplicate", ascending.reversed() + ["r00100"], true),
            ("an empty name first, then again", ["", "a", ""], true),
        ]
        for (context, names, duplicate) in cases {
            let input = document(names)
            let same = Self.compare(rules, input, context: context)
            #expect(same, "\(context)")
            let whole = Result { () throws(ReshapeError) in try rules.applyWholeTree(to: input) }
            if case .failure(let error) = whole {
                #expect(duplicate && error.message.contains("duplicate member name"), "\(context): \(error)")
            } else {
                #expect(!duplicate, "\(context): no error from the whole tree")
            }
        }
    }

    /// Rule lists at the edges of the text fast path, on keyed payloads with the records that
    /// make it give up (an empty record, one with the id already, a colliding name, a blank id).
    @Test(arguments: [
        #"[{"op":"wrap","key":"id"},{"op":"keyedToArray","path":"$[0]"}]"#,
        #"[{"op":"keyedToArray","path":"$.*"},{"op":"emptyObjectToNull"}]"#,
        #"[{"op":"keyedToArray"},{"op":"convertKeys","to":"snake_case"}]"#,
        #"[{"op":"blankStringToNull","trim":true},{"op":"keyedToArray","idKey":"objectId"},{"op":"blankStringToNull"}]"#,
        #"[{"op":"keyedToArray","idKey":"objectId","onConflict":"keep"},{"op":"convertKeys","to":"snake_case"}]"#,
        #"[{"op":"emptyObjectToNull"},{"op":"keyedToArray","nonObject":"skip"},{"op":"renameKeys","map":{"a":"id"},"deep":true}]"#,
        #"[{"op":"wrap","key":"w"},{"op":"keyedToArray","path":"$.w","wrapIn":"x"},{"op":"convertKeys","to":"camelCase"}]"#,
    ])
    func fastPathEdges(_ spec: String) throws {
        let rules = try Rules(json: spec)
        let edges = [
            #"{}"#, #"{"id": 1}"#, #"{"object_id": 2, "n": 3}"#, #"{"a": 1, "id": 2}"#, #"{"a_b": 1, "aB": 2}"#,
            #"{"x": {"y": {}}, "s": " "}"#, #"{"k1": {"v": 1}, "k2": "s"}"#, #""text""#, #"{"a": [{}, "", {"z_z": []}]}"#,
        ]
        for edge in edges {
            for blankID in [#"" ""#, #""""#, #""ok""#] {
                let records = (0..<400).map { #""r\#($0)": {"plain_name": "v\#($0)", "nested": {"k": {}}}"# }
                let input = Array(("{" + records[..<200].joined(separator: ",") + ", \(blankID): \(edge), "
                    + records[200...].joined(separator: ",") + "}").utf8)
                let same = Self.compare(rules, input, context: "rules \(spec) edge \(edge) id \(blankID)")
                #expect(same)
            }
        }
    }

    /// Per-record rule lists that the record filters take whole (`RecordFilter`): every record is
    /// reshaped on its text, none on a tree of its own, with the whole tree's bytes. Records vary
    /// (escapes, unicode, every kind of number, nesting, `{}` and `""`) but none fails a rule.
    @Test(arguments: [
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].tags"}]"#,
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].tags[0]"},{"op":"remove","path":"$..url"}]"#,
        #"[{"op":"keyedToArray"},{"op":"default","path":"$[*]","key":"role","value":"user"}]"#,
        #"[{"op":"keyedToArray"},{"op":"default","path":"$[*].profile","key":"bio","value":{"a":[1,"\u00e9",{}]}}]"#,
        #"[{"op":"keyedToArray"},{"op":"coerce","path":"$[*].createdAt","to":"string"}]"#,
        #"[{"op":"keyedToArray"},{"op":"coerce","path":"$[*].score","to":"integer","onFail":"null"}]"#,
        #"[{"op":"keyedToArray"},{"op":"coerce","path":"$..*","to":"number","onFail":"keep"}]"#,
        #"[{"op":"keyedToArray"},{"op":"coerce","path":"$[*].flag","to":"boolean","onFail":"null"}]"#,
        #"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$[*]","map":{"displayName":"name"}}]"#,
        #"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$[*].profile","map":{"city":"town"},"deep":true}]"#,
        #"[{"op":"keyedToArray"},{"op":"convertKeys","path":"$[*].profile","to":"snake_case"}]"#,
        #"[{"op":"convertKeys","path":"$.*","to":"snake_case"},{"op":"keyedToArray","idKey":"key"}]"#,
        #"[{"op":"keyedToArray"},{"op":"emptyObjectToNull","path":"$[*].avatar"},{"op":"blankStringToNull","path":"$..plan"}]"#,
        #"[{"op":"keyedToArray"},{"op":"keyedToArray","path":"$[*].friends","idKey":"fid","wrapIn":"list"}]"#,
        #"[{"op":"keyedToArray"},{"op":"arrayToKeyed","path":"$[*].items","idKey":"k"}]"#,
        #"[{"op":"keyedToArray"},{"op":"arrayToKeyed","path":"$[*].items","idKey":"k","keepId":true},{"op":"remove","path":"$[*].items.*.n"}]"#,
        #"[{"op":"remove","path":"$.*.avatar"},{"op":"keyedToArray"},{"op":"default","path":"$[*]","key":"avatar","value":null},{"op":"wrap","key":"data"}]"#,
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].avatar"},{"op":"default","path":"$[*]","key":"role","value":"user"},{"op":"renameKeys","path":"$[*]","map":{"displayName":"name","lastLogin":"lastSeen"}},{"op":"coerce","path":"$[*].createdAt","to":"string"},{"op":"wrap","key":"data"}]"#,
        #"[{"op":"keyedToArray"},{"op":"emptyObjectToNull"},{"op":"remove","path":"$[*].tags"},{"op":"coerce","path":"$[*].score","to":"string"},{"op":"convertKeys","path":"$[*].profile","to":"snake_case"}]"#,
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*]","matching":"(last|first)\\p{Lu}.*|tags"},{"op":"remove","path":"$..*","matching":"url|x_.*"}]"#,
        #"[{"op":"keyedToArray"},{"op":"hoist","path":"$[*].avatar","member":"url","onMissing":"null"},{"op":"hoist","path":"$[*]","member":"profile","onMissing":"keep"}]"#,
        #"[{"op":"keyedToArray"},{"op":"pluck","path":"$[*].items","member":"k","onMissing":"null"},{"op":"flatten","path":"$[*]","member":"profile","prefix":"p_"}]"#,
        #"[{"op":"keyedToArray"},{"op":"flatten","path":"$[*]","member":"avatar"},{"op":"flatten","path":"$[*].friends.*","member":"url"}]"#,
        #"[{"op":"keyedToArray"},{"op":"mapValues","path":"$[*].plan","cases":[["free",0],["",null],[" ","blank"]]},{"op":"mapValues","path":"$[*].tags[*]","cases":[["a",1.50],["b",true]],"onOther":"null"}]"#,
        #"[{"op":"keyedToArray"},{"op":"convertKeys","to":"snake_case","exclude":["$[*].profile","$..friends.*","$[*].tags[0]"]}]"#,
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*]['tags','avatar']"},{"op":"coerce","path":"$[*]['score','createdAt']","to":"string","onFail":"null"},{"op":"remove","path":"$..items[0,1].k"}]"#,
        #"[{"op":"keyedToArray"},{"op":"emptyArrayToNull"},{"op":"emptyArrayToNull","path":"$[*].profile..*"}]"#,
        #"[{"op":"keyedToArray"},{"op":"keep","path":"$[*]","members":["displayName","tags","items","profile"]},{"op":"keep","path":"$[*].profile","members":["city"]}]"#,
        #"[{"op":"keyedToArray"},{"op":"keep","path":"$[*].friends.*","members":["n"]},{"op":"keep","path":"$..items[*]","members":["k"]}]"#,
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].tags[1:]"},{"op":"coerce","path":"$[*].items[0:9:2].n","to":"string","onFail":"null"},{"op":"mapValues","path":"$..tags[:1]","cases":[["a","A"]]}]"#,
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].items[0,1:3:0,5:]"},{"op":"emptyArrayToNull","path":"$[*].tags[::1]"}]"#,
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].items[?@.k == 'a']"},{"op":"coerce","path":"$[*].items[?@.n >= 1].n","to":"string","onFail":"null"}]"#,
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].tags[?@ == 'a' || @.url]"},{"op":"mapValues","path":"$[*].friends[?@.n].n","cases":[[1,"one"]]}]"#,
        #"[{"op":"keyedToArray"},{"op":"keep","path":"$[*].items[?length(@.k) == 1 && !@.n.x]","members":["k"]},{"op":"hoist","path":"$[*].friends[?@.url]","member":"url"}]"#,
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*]..[?@.x_y == null || @ == '']"},{"op":"emptyObjectToNull","path":"$[*].profile[?count(@.*) > 1]"}]"#,
        #"[{"op":"keyedToArray"},{"op":"default","path":"$[*].items[0, ?match(@.k, '[a-z]') || search(@.k, '\\\\u00e9')]","key":"seen","value":true},{"op":"coerce","path":"$[*]..[?value(@.n) == 1].k","to":"string"}]"#,
        #"[{"op":"default","path":"$[?@.plan == 'free']","key":"paid","value":false},{"op":"remove","path":"$[?@.flag == true].tags"},{"op":"keyedToArray"}]"#,
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$[?@.plan == 'free' || @.score > 100]"},{"op":"default","path":"$[*]","key":"k","value":1}]"#,
        #"[{"op":"remove","path":"$[?@.flag == true]"},{"op":"keyedToArray"},{"op":"remove","path":"$[?!@.avatar]"}]"#,
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*]"}]"#,
        #"[{"op":"keyedToArray"},{"op":"default","path":"$[?@.plan == 'free' || @.plan == null]","key":"paid","value":false},{"op":"keep","path":"$[?!@.avatar]","members":["displayName","plan","paid"]},{"op":"coerce","path":"$[?@.score > 100].score","to":"string"}]"#,
        #"[{"op":"keyedToArray"},{"op":"convertKeys","to":"snake_case"},{"op":"remove","path":"$[*][?@ == null || @.in_a]"},{"op":"renameKeys","path":"$[*].profile[?@[0]]","map":{"x_y":"xy"},"deep":true}]"#,
        // The collection stays an object: each record is written after its name (escapes and all).
        "[]",
        #"[{"op":"emptyObjectToNull"},{"op":"blankStringToNull","trim":true}]"#,
        #"[{"op":"remove","path":"$.*.tags"},{"op":"coerce","path":"$.*.createdAt","to":"string","onFail":"null"}]"#,
        #"[{"op":"default","path":"$.*","key":"role","value":"user"},{"op":"renameKeys","path":"$.*","map":{"displayName":"name"}},{"op":"pluck","path":"$.*.items","member":"k","onMissing":"null"}]"#,
        #"[{"op":"remove","path":"$[?@.plan == 'free']"},{"op":"emptyObjectToNull"},{"op":"convertKeys","path":"$.*.profile","to":"snake_case"},{"op":"wrap","key":"users"}]"#,
    ])
    func perRecordRulesStreamOnTheirText(_ spec: String) throws {
        let rules = try Rules(json: spec)
        var random = SeededGenerator(seed: 97_531)
        let outcomes = Outcomes()
        for round in 0..<4 {
            let records = (0..<(50 + random.next(200))).map { index -> String in
                let name = random.pick(["-Nx\(index)", "u\(index)é", "k\\\"\(index)", "\\u0041\(index)"])
                return "\"\(name)\": \(Self.cleanRecord(&random))"
            }
            let input = Array(("{" + records.joined(separator: ",\n ") + "}").utf8)
            #expect(Self.compare(rules, input, outcomes: outcomes, context: "round \(round) rules \(spec)"))
        }
        let counts = outcomes.counts()
        #expect(counts["streamed", default: 0] > 0, "\(counts)")
        #expect(counts["record trees", default: 0] == 0, "\(counts)")
        #expect(counts["rerun", default: 0] == 0, "\(counts)")
    }

    /// A rule that fails on a record in a stream names where the value was in the input, as the
    /// whole tree's trace does (`ReshapeError.source`): the record alone is traced, from a file, a
    /// pipe or memory, on one thread or several, without reading the document again.
    @Test func streamedFailuresTraceTheirRecord() throws {
        for (kind, bad) in [("object", 2500), ("array", 1700)] {
            // Every rule per record (keyedToArray on an array numbers records: whole document).
            let keyed = kind == "object" ? #"{"op":"keyedToArray"},"# : ""
            let rules = try Rules(json: #"[{"op":"unwrap","path":"$.data"},\#(keyed){"op":"convertKeys","to":"camelCase"},{"op":"coerce","path":"$[*].age","to":"integer"}]"#)
            #expect((kind == "object" ? rules.streamingPlan.object : rules.streamingPlan.array) == rules.count)
            let records = (0..<3000).map { index -> String in
                let age = index == bad ? #""x""# : "\(20 + index % 50)"
                let value = #"{"display_name": "U\#(index)",\#n  "age": \#(age)}"#
                return kind == "object" ? #""-Nx\#(index)": \#(value)"# : value
            }
            let body = kind == "object" ? "{" + records.joined(separator: ",\n") + "}" : "[" + records.joined(separator: ",\n") + "]"
            let input = Array(#"{"data": \#(body)}"#.utf8)
            let expected = Result { () throws(ReshapeError) in try rules.applyWholeTree(to: input) }
            guard case .failure(let whole) = expected, let wholeSource = whole.source else {
                Issue.record("\(kind): expected the whole tree to fail with a source, got \(expected)")
                continue
            }
            let recordPath = kind == "object" ? "$['data']['-Nx\(bad)']" : "$['data'][\(bad)]"
            #expect(wholeSource.path == recordPath + "['age']", "\(kind)")
            #expect(wholeSource.line == 2 * bad + 2 && wholeSource.column == 10, "\(kind): \(wholeSource)")
            for jobs in [1, 3] {
                let outcomes = Outcomes()
                var settings = StreamSettings(jobs: jobs)
                settings.strict = true
                settings.minimumStreamBytes = 0
                settings.batchRecords = 64
                settings.outcome = { outcome in outcomes.add(outcome) }
                let inMemory = Result { () throws(ReshapeError) in try rules.apply(to: input, options: [], settings: settings) }
                let fromFile = Self.throughFile(input) { (source, output) throws(ReshapeError) in
                    try rules.apply(fromDescriptor: source, toDescriptor: output, settings: settings)
                }
                let fromPipe = (try? Self.throughPipe(input) { (source, output) throws(ReshapeError) in
                    try rules.apply(fromDescriptor: source, toDescriptor: output, settings: settings)
                }) ?? .failure(ReshapeError(.internal, "no pipe"))
                for (route, result) in [("memory", inMemory), ("file", fromFile), ("pipe", fromPipe)] {
                    guard case .failure(let error) = result else {
                        Issue.record("\(kind) \(route) jobs \(jobs): expected a failure")
                        continue
                    }
                    #expect(error == whole && error.source == wholeSource, "\(kind) \(route) jobs \(jobs): \(error)")
                    #expect(error.description == whole.description, "\(kind) \(route) jobs \(jobs)")
                }
                let counts = outcomes.counts()
                #expect(counts["failed", default: 0] > 0 && counts["rerun", default: 0] == 0, "\(kind) jobs \(jobs): \(counts)")
            }
        }
    }

    /// A small document from a pipe is read whole before the rules run: a rule's failure on it is
    /// traced from that text, as from memory.
    @Test func aSmallDocumentFromAPipeIsTraced() throws {
        let rules = try Rules(json: #"[{"op":"unwrap","path":"$.data"},{"op":"keyedToArray"}]"#)
        let input = Array(#"{"data": {"u0": {}, "u1": "str"}}"#.utf8)
        let read = try Self.throughPipe(input) { (source, output) throws(ReshapeError) in
            try rules.apply(fromDescriptor: source, toDescriptor: output)
        }
        guard case .failure(let error) = read else {
            Issue.record("expected keyedToArray to fail")
            return
        }
        #expect(error.path == "$['u1']" && error.source?.path == "$['data']['u1']", "\(error)")
        #expect(error.description.hasSuffix("(input: $['data']['u1'], line 1, column 27)"))
    }

    /// A document the rules need whole, from a pipe, larger than is read before the rules run:
    /// its text is kept while the tree is built, so the failure is traced.
    @Test func aLargeWholeDocumentFromAPipeIsTraced() throws {
        let rules = try Rules(json: #"[{"op":"remove","path":"$[-1]"},{"op":"keyedToArray","path":"$[0]","nonObject":"skip"},{"op":"coerce","path":"$[0]","to":"integer"}]"#)
        let records = (0..<3000).map { #"{"x": "\#($0)", "pad": "\#(String(repeating: "y", count: 50))"}"# }
        let input = Array(("[" + records.joined(separator: ",\n") + "]").utf8)
        #expect(input.count > 3 * 65536)
        let read = try Self.throughPipe(input) { (source, output) throws(ReshapeError) in
            try rules.apply(fromDescriptor: source, toDescriptor: output)
        }
        guard case .failure(let error) = read else {
            Issue.record("expected coerce to fail")
            return
        }
        let inMemory = Result { () throws(ReshapeError) -> [UInt8] in try rules.apply(to: input) }
        guard case .failure(let expected) = inMemory else {
            Issue.record("expected coerce to fail in memory")
            return
        }
        #expect(error == expected && error.source == expected.source && error.source != nil, "\(error)")
        #expect(error.description.hasSuffix("(input: $[0], line 1, column 2, replaced by rule 2 (keyedToArray))"))
    }

    /// Rules left for the streamed rules' result, from a pipe: the pipe's text is kept (the result
    /// is held as a tree anyway), so a failure in those rules is traced as in memory.
    @Test func aFailureAfterAStreamFromAPipeIsTraced() throws {
        let rules = try Rules(json: #"[{"op":"keyedToArray","idKey":"id"},{"op":"remove","path":"$[0]"},{"op":"convertKeys","to":"snake_case"},{"op":"coerce","path":"$[*].some_n","to":"boolean"}]"#)
        #expect(rules.streamingPlan.object == 1, "\(rules.streamingPlan)")
        let records = (0..<3000).map { #""r\#($0)": {"someN": \#($0 < 2999 ? "true" : "41"), "pad": "\#(String(repeating: "y", count: 50))"}"# }
        let input = Array(("{" + records.joined(separator: ",\n") + "}").utf8)
        #expect(input.count > 3 * 65536)
        let outcomes = Outcomes()
        var settings = StreamSettings()
        settings.outcome = outcomes.add
        // Small chunks, so that the batches done with would be given back.
        settings.inputChunkBytes = 4096
        let read = try Self.throughPipe(input) { (source, output) throws(ReshapeError) in
            try rules.apply(fromDescriptor: source, toDescriptor: output, settings: settings)
        }
        guard case .failure(let error) = read else {
            Issue.record("expected coerce to fail")
            return
        }
        #expect(outcomes.counts()["failed", default: 0] == 1 && outcomes.counts()["rerun", default: 0] == 0, "\(outcomes.counts())")
        let inMemory = Result { () throws(ReshapeError) -> [UInt8] in try rules.apply(to: input) }
        guard case .failure(let expected) = inMemory else {
            Issue.record("expected coerce to fail in memory")
            return
        }
        #expect(error == expected && error.source == expected.source && error.source != nil, "\(error)")
        #expect(error.description.hasSuffix(#"(input: $['r2999']['someN'], line 3000, column 20, renamed by rule 3 (convertKeys) from "someN")"#), "\(error)")
    }

    /// A container no rule's filter looks into is copied from the text by the writer (as the
    /// fused pass copies a record), not token by token: written canonically (white space,
    /// escapes, numbers), with its duplicate names found, its depth counted, and nothing else
    /// changed, as the whole tree writes it.
    @Test func containersNoRuleLooksIntoAreCopied() throws {
        let rules = try Rules(json: #"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$[*]","map":{"a":"b"}},{"op":"remove","path":"$[*].gone"}]"#)
        let values = [
            #"{ "x" : [ 1.50e2 , -0 , 1E400 , "\u00e9\n" , { } , [ ] , { "y" : { "z" : [ true , null ] } } ] }"#,
            #"[[[[["deep", {"k": "\ud83d\ude00"}]]]]]"#, #"{"a": {"a": 1}, "gone": {"a": 2}}"#,
        ]
        let outcomes = Outcomes()
        let clean = (0..<300).map { #""r\#($0)": {"a": \#(values[$0 % values.count]), "n": \#($0), "gone": [1]}"# }
        #expect(Self.compare(rules, Array(("{" + clean.joined(separator: ",") + "}").utf8), outcomes: outcomes, context: "clean"))
        let counts = outcomes.counts()
        #expect(counts["streamed", default: 0] > 0 && counts["record trees", default: 0] == 0, "\(counts)")
        // A duplicate deep in a copied container: the record takes its tree, which names it.
        for bad in [#"{"x": {"y": 1, "y": 2}}"#, #"[{"q": [], "q": []}]"#, #"{"x": [1, 2}"#] {
            let records = clean[..<200] + [#""bad": {"a": \#(bad)}"#] + clean[200...]
            let input = Array(("{" + records.joined(separator: ",") + "}").utf8)
            #expect(Self.compare(rules, input, context: "bad \(bad)"))
            #expect(throws: ReshapeError.self) { try rules.applyWholeTree(to: input) }
        }
    }

    /// A container inside records that rules reach only with what a text pass does at every
    /// depth (`{}`, `[]` or blank strings to `null` over `$..*`, a deep renaming, an `exclude`)
    /// is copied from the text with those done, not token by token: with the whole tree's bytes,
    /// and, where renamed names collide or a name repeats, the record's own tree names it.
    @Test(arguments: [
        #"[{"op":"keyedToArray"},{"op":"emptyObjectToNull"},{"op":"remove","path":"$[*].tags"},{"op":"coerce","path":"$[*].score","to":"string","onFail":"null"},{"op":"convertKeys","path":"$[*].profile","to":"snake_case"}]"#,
        #"[{"op":"keyedToArray"},{"op":"convertKeys","to":"snake_case","exclude":["$[*].profile"]}]"#,
        #"[{"op":"keyedToArray"},{"op":"convertKeys","path":"$[*].profile","to":"kebab-case"},{"op":"renameKeys","path":"$[*]","map":{"x_y":"xy","url":"href"},"deep":true}]"#,
        #"[{"op":"keyedToArray"},{"op":"blankStringToNull","trim":true},{"op":"emptyArrayToNull"},{"op":"default","path":"$[*]","key":"role","value":"user"}]"#,
        #"[{"op":"keyedToArray"},{"op":"blankStringToNull"},{"op":"convertKeys","path":"$[*].friends","to":"camelCase"},{"op":"emptyObjectToNull","path":"$[*].profile..*"}]"#,
    ])
    func containersRulesReachAtEveryDepthAreCopiedWithThem(_ spec: String) throws {
        let rules = try Rules(json: spec)
        let outcomes = Self.compareOnCleanRecords(rules, seed: 13_579, context: spec)
        let counts = outcomes.counts()
        #expect(counts["containers passed", default: 0] > 0 && counts["record trees", default: 0] == 0, "\(counts)")
        #expect(counts["rerun", default: 0] == 0, "\(counts)")
        // Names that collide once renamed, a duplicate, and invalid text, deep in a container
        // copied with a renaming: the record takes its tree, which names the member.
        for bad in [#"{"x": {"first_name": 1, "firstName": 2}}"#, #"[{"a-b": [], "a-b": []}]"#, #"{"x": [{"a_b": 1}, 2}"#] {
            let clean = (0..<300).map { #""r\#($0)": {"profile": {"in": [{"a_b": 1}, {"c": {}}]}, "friends": {"f": {"n_m": ""}}}"# }
            let records = clean[..<200] + [#""bad": {"profile": {"in": \#(bad)}, "friends": {"f": \#(bad)}}"#] + clean[200...]
            let input = Array(("{" + records.joined(separator: ",") + "}").utf8)
            #expect(Self.compare(rules, input, context: "rules \(spec) bad \(bad)"))
        }
    }

    /// A member of a record that no rule's filter needs (by its name, and the kind of its value)
    /// goes to the writer from the text, past the filters: with the whole tree's bytes. A rule
    /// whose path reaches every member (`$..url`) or the whole record (`hoist $[*]`) sees them all,
    /// as does one whose path names one record of an object collection (`$.r1.avatar`).
    @Test(arguments: [
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].avatar"},{"op":"default","path":"$[*]","key":"role","value":"user"},{"op":"renameKeys","path":"$[*]","map":{"displayName":"name","lastLogin":"lastSeen"}},{"op":"coerce","path":"$[*].createdAt","to":"string","onFail":"null"},{"op":"wrap","key":"data"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"emptyObjectToNull"},{"op":"blankStringToNull"},{"op":"keep","path":"$[*]","members":["displayName","plan","profile","score","tags"]}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*]","matching":"last.*"},{"op":"flatten","path":"$[*]","member":"profile"},{"op":"pluck","path":"$[*].items","member":"k","onMissing":"skip"}]"#, true),
        (#"[{"op":"keyedToArray","idKey":"objectId"},{"op":"convertKeys","path":"$[*]","to":"snake_case"},{"op":"hoist","path":"$[*].avatar","member":"url","onMissing":"keep"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"convertKeys","path":"$[*]","to":"snake_case","exclude":["$[*].profile"]},{"op":"emptyObjectToNull"},{"op":"blankStringToNull","trim":true}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$[*]","map":{"flag":"flagged","x_y":"xy"},"deep":true},{"op":"convertKeys","path":"$[*].profile","to":"kebab-case"},{"op":"emptyArrayToNull"}]"#, true),
        // A descendant path: a record's scalar members hold nothing it could select.
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$..url"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"coerce","path":"$..createdAt","to":"string","onFail":"keep"},{"op":"hoist","path":"$..avatar","member":"url","onMissing":"keep"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"keep","path":"$..profile","members":["in_a"]},{"op":"blankStringToNull","path":"$..plan"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"hoist","path":"$[*]","member":"profile","onMissing":"keep"}]"#, false),
        // Records of an object collection: past the filters when what the rules do to a member
        // does not depend on the record's name; the first member goes through them when a filter
        // holds the record's start (`emptyObjectToNull` on the records).
        (#"[{"op":"remove","path":"$.*.avatar"},{"op":"keyedToArray"}]"#, true),
        (#"[{"op":"emptyObjectToNull"},{"op":"remove","path":"$.*.tags"},{"op":"coerce","path":"$.*.createdAt","to":"string"}]"#, true),
        (#"[{"op":"remove","path":"$.r1.avatar"},{"op":"keyedToArray"}]"#, false),
    ])
    func membersNoRuleNeedsGoPastTheFilters(_ spec: String, _ past: Bool) throws {
        let rules = try Rules(json: spec)
        let outcomes = Self.compareOnCleanRecords(rules, seed: 86_420, context: spec)
        // Names that collide once renamed past the filters, and a repeated name: the record takes
        // its tree, which names the member. A member dropped past the filters is still read as
        // strictly: a repeated name or invalid text in it is the whole tree's error too. A name
        // repeated where the clean records' order expects it (`plan` after `displayName`: its
        // text is not scanned again) or written with an escape is caught as well.
        for bad in [
            #"{"display_name": 1, "displayName": 2, "plan": "", "profile": {}}"#, #"{"tags": 1, "flag": 2, "avatar": {}}"#,
            #"{"plan": 1, "plan": 2}"#, #"{"plan": 1, "displayName": "a", "plan": 2}"#,
            #"{"displayName": "a", "\u0070lan": 1, "plan": 2}"#, #"{"displayName": "a", "pla"#,
            #"{"avatar": {"url": 1, "url": 2}, "lastLogin": [{"a": 1, "a": 2}]}"#,
            #"{"avatar": [1, {"x": tru}], "plan": "p"}"#, #"{"lastLogin": "\ud800x", "avatar": 01}"#,
        ] {
            let clean = (0..<300).map { #""r\#($0)": {"displayName": "a", "plan": " ", "avatar": {}, "profile": {"in_a": [{}]}}"# }
            let input = Array(("{" + (clean[..<200] + [#""bad": \#(bad)"#] + clean[200...]).joined(separator: ",") + "}").utf8)
            #expect(Self.compare(rules, input, context: "rules \(spec) bad \(bad)"))
        }
        let counts = outcomes.counts()
        #expect((counts["members past", default: 0] > 0) == past, "\(counts)")
        // Clean records all stay on the filters: a member past them that the writer cannot take
        // would make its record take its tree.
        #expect(counts["record trees", default: 0] == 0, "\(counts)")
        #expect(counts["streamed", default: 0] > 0 && counts["rerun", default: 0] == 0, "\(counts)")
    }

    /// A record member some filter must see goes through only the filters that do something
    /// to it (`RecordFilter.aside`): the others are set aside while it is read, and all are
    /// back for the record's end and the next record, after a record that took its tree or
    /// failed in such a member too. With the whole tree's bytes or error; `narrowed`: some
    /// member was read with filters set aside.
    @Test(arguments: [
        (#"[{"op":"keyedToArray"},{"op":"emptyArrayToNull"},{"op":"remove","path":"$[*].avatar.width"},{"op":"renameKeys","path":"$[*].profile","map":{"city":"town"}},{"op":"default","path":"$[*].profile","key":"country","value":null},{"op":"coerce","path":"$[*].score","to":"string","onFail":"keep"},{"op":"convertKeys","to":"snake_case"},{"op":"pluck","path":"$[*].items","member":"k","onMissing":"null"},{"op":"wrap","key":"data"}]"#, true),
        // A renaming set aside is told of the member, as a rule after it drops that name: a
        // member it renames to it later is its error, as on the tree.
        (#"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$[*]","map":{"x1":"createdAt"}},{"op":"coerce","path":"$[*].createdAt","to":"string","onFail":"null"},{"op":"remove","path":"$[*].createdAt"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"hoist","path":"$[*].avatar","member":"url","onMissing":"keep"},{"op":"default","path":"$[*]","key":"role","value":"user"},{"op":"remove","path":"$[*].tags[?@.url == 'u']"},{"op":"blankStringToNull"}]"#, true),
        // A filter that gates records, and one that counts from an array's end.
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[?@.plan == 'free']"},{"op":"coerce","path":"$[*].flag","to":"string"},{"op":"remove","path":"$[*].tags[-1]"}]"#, true),
        // A rule that makes other members of the record out of one (`flatten` at the record):
        // the rules after it see that member's tokens, since they may act on those. (`hoist`
        // at the record sees every member: no member is routed.)
        (#"[{"op":"keyedToArray"},{"op":"flatten","path":"$[*]","member":"avatar"},{"op":"remove","path":"$[*].width"},{"op":"coerce","path":"$[*].url","to":"number","onFail":"null"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"hoist","path":"$[*]","member":"profile","onMissing":"keep"},{"op":"remove","path":"$[*].city"},{"op":"coerce","path":"$[*].flag","to":"string"}]"#, false),
        // Records of an object collection; `keyedToArray` and `default` are set aside for `items`.
        (#"[{"op":"remove","path":"$.*.avatar"},{"op":"default","path":"$.*","key":"role","value":"user"},{"op":"remove","path":"$.*.items[0]"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"default","path":"$[*]","key":"role","value":"user"},{"op":"remove","path":"$[*].items[0]"}]"#, true),
        // Records whose filters let them go by member by member are copied past them
        // (`RecordFilterChain.routeRecord`): no filter sees them, none is set aside.
        (#"[{"op":"remove","path":"$.*.avatar"},{"op":"coerce","path":"$.*.flag","to":"string"}]"#, false),
        (#"[{"op":"keyedToArray"},{"op":"coerce","path":"$[*].flag","to":"string"}]"#, false),
        // One rule: no other filter to set aside.
        (#"[{"op":"coerce","path":"$.*.flag","to":"string"}]"#, false),
    ])
    func filtersThatDoNothingToAMemberAreSetAside(_ spec: String, _ narrowed: Bool) throws {
        let rules = try Rules(json: spec)
        let outcomes = Self.compareOnCleanRecords(rules, seed: 97_531, context: spec)
        let many = (0..<40).map { #""m\#($0)": \#($0)"# }.joined(separator: ", ")
        // Records that take their tree, or fail, inside a member read with filters aside.
        for bad in [
            #"{"profile": {"city": 1, "city": 2}, "plan": "p"}"#, #"{"items": [{"k": 1, "k": 2}], "flag": true}"#,
            #"{"avatar": {"url": "a", "width": tru}}"#, #"{"score": [1], "profile": {"country": 1, "town": 2, "city": 3}}"#,
            #"{"flag": {"a": 1}, "createdAt": {}}"#, #"{"plan": 1, "flag": 2}"#, #"{"createdAt": 1, "x1": 2}"#,
            // More members than the filters compare one by one: the record takes its tree, and
            // the records after it the filters.
            #"{"flag": "f", "profile": {\#(many)}, "items": [{"k": 1, \#(many)}], "avatar": {"width": 2, \#(many)}}"#,
        ] {
            let clean = (0..<300).map { #""r\#($0)": {"displayName": "a", "plan": " ", "flag": true, "avatar": {"width": 1}, "items": [{"k": 1}], "profile": {"city": "c"}}"# }
            let input = Array(("{" + (clean[..<200] + [#""bad": \#(bad)"#] + clean[200...]).joined(separator: ",") + "}").utf8)
            #expect(Self.compare(rules, input, outcomes: outcomes, context: "rules \(spec) bad \(bad)"))
        }
        let counts = outcomes.counts()
        #expect((counts["members narrowed", default: 0] > 0) == narrowed, "\(counts)")
        #expect(counts["streamed", default: 0] > 0 && counts["rerun", default: 0] == 0, "\(counts)")
    }

    /// What the record filters leave to a record's own tree, with the whole tree's bytes or error:
    /// a path that makes records of the collection and inside them, `arrayToKeyed` inside
    /// records, and values a rule rejects or names that collide (the record alone takes its
    /// tree, named in the error as the whole tree names it).
    @Test(arguments: [
        (#"[{"op":"wrap","key":"w"},{"op":"keyedToArray","path":"$..*"}]"#, #"{"r1": {"a": null}, "r2": {"b": null}, "r3": {}}"#),
        (#"[{"op":"keyedToArray"},{"op":"arrayToKeyed","path":"$[*].list","idKey":"k"}]"#, #"{"r1": {"list": [{"k": "a", "n": 1}, {"k": "a"}]}, "r2": {"list": [{"n": 1}]}, "r3": {"list": [{"k": 1.5}]}}"#),
        (#"[{"op":"keyedToArray"},{"op":"coerce","path":"$[*].n","to":"integer"}]"#, #"{"r1": {"n": "12"}, "r2": {"n": "1.5"}, "r3": {"n": 3}}"#),
        (#"[{"op":"keyedToArray"},{"op":"default","path":"$[*].p","key":"k","value":1}]"#, #"{"r1": {"p": {}}, "r2": {"p": 7}}"#),
        (#"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$[*]","map":{"a":"b"}}]"#, #"{"r1": {"a": 1}, "r2": {"a": 1, "b": 2}}"#),
        (#"[{"op":"keyedToArray"},{"op":"keyedToArray","path":"$[*].f","onConflict":"keep"}]"#, #"{"r1": {"f": {"x": {"id": 9, "n": 1}}}, "r2": {"f": null}}"#),
        (#"[{"op":"keyedToArray"},{"op":"coerce","path":"$[*]..*","to":"string","onFail":"null"}]"#, #"{"r1": {"a": {"b": 1}}, "r2": {"c": [2, true]}}"#),
        (#"[{"op":"keyedToArray"},{"op":"keep","path":"$[*].p","members":["a"]}]"#, #"{"r1": {"p": {"a": 1, "b": 2}}, "r2": {"p": [1]}, "r3": {"p": "x"}}"#),
        (#"[{"op":"keyedToArray"},{"op":"hoist","path":"$[*].t","member":"r"}]"#, #"{"r1": {"t": {"r": 1, "s": 2}}, "r2": {"t": null}, "r3": {"t": {"s": 3}}}"#),
        (#"[{"op":"keyedToArray"},{"op":"pluck","path":"$[*].labels","member":"name","onMissing":"null"}]"#, #"{"r1": {"labels": [{"name": "bug"}, {}]}, "r2": {"labels": null}, "r3": {"labels": [3]}}"#),
        (#"[{"op":"keyedToArray"},{"op":"mapValues","path":"$[*].s","cases":[[0,"draft"],[{"a":[1]},null]],"onOther":"error"}]"#, #"{"r1": {"s": 0.0}, "r2": {"s": {"a": [1.0]}}, "r3": {"s": 2}}"#),
        (#"[{"op":"keyedToArray"},{"op":"convertKeys","exclude":["$[*].meta","$..raw"]}]"#, #"{"r1": {"a_b": 1, "meta": {"c_d": 2}}, "r2": {"raw": [{"e_f": 3}], "g-h": 4}, "r3": {"x_y": 1, "xY": 2}}"#),
        (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"kebab-case"}]"#, #"{"r1": {"aB": 1, "c_d": {"eF": 2}}, "r2": {"a-b": 1, "a_b": 2}}"#),
        (#"[{"op":"keyedToArray"},{"op":"coerce","path":"$[*].t[?@.k == 'x'].v","to":"integer"}]"#, #"{"r1": {"t": [{"k": "x", "v": "1"}]}, "r2": {"t": [{"k": "y", "v": "a"}, {"k": "x", "v": "b"}]}}"#),
        (#"[{"op":"keyedToArray"},{"op":"flatten","path":"$[*]","member":"attributes","prefix":"a_"}]"#, #"{"r1": {"attributes": {"x": 1}, "y": 2}, "r2": {"attributes": null}, "r3": {"a_x": 0, "attributes": {"x": 1}}}"#),
    ])
    func recordFiltersLeaveTheRestToTheTree(_ spec: String, _ records: String) throws {
        let rules = try Rules(json: spec)
        let outcomes = Outcomes()
        let input = Array(records.utf8)
        #expect(Self.compare(rules, input, outcomes: outcomes, context: "rules \(spec)"))
        let counts = outcomes.counts()
        #expect(counts["record trees", default: 0] > 0 || counts["failed", default: 0] > 0, "\(counts)")
        #expect(counts["rerun", default: 0] == 0, "\(counts)")
    }

    /// Seeded random indices and slices, counted from the end, from the start or stepping
    /// backwards (bounds and steps from -7 to 7, or left out), in unions, after another counted
    /// step, and under `..`, on records of random arrays (0 to 6 elements, nested): the stream
    /// gives the whole tree's bytes or error on every route, and no record takes its tree.
    @Test func randomIndicesFromTheEndMatchTheTree() throws {
        var random = SeededGenerator(seed: 95_352)
        func bound() -> String { random.next(4) == 0 ? "" : String(random.next(15) - 7) }
        func selector() -> String {
            switch random.next(4) {
            case 0: return String(random.next(14) - 7)
            case 1: return "\(bound()):\(bound())"
            case 2: return "\(bound()):\(bound()):\(random.next(3) == 0 ? "" : String(random.next(15) - 7))"
            default: return "\(random.next(7) - 7),\(bound()):\(bound())"
            }
        }
        func array(_ depth: Int) -> String {
            "[" + (0..<random.next(7)).map { _ in
                depth < 2 && random.next(3) == 0 ? array(depth + 1) : random.pick(["1", "\"s\"", "{\"k\": 2}", "null", "[]"])
            }.joined(separator: ",") + "]"
        }
        var streamed = 0
        for round in 0..<300 {
            let path = random.pick(["$[*].t[\(selector())]", "$[*].t[\(selector())][\(selector())]", "$[*]..[\(selector())]", "$[*].t[\(selector())].k"])
            let rule = random.pick([
                #"{"op":"remove","path":"\#(path)"}"#, #"{"op":"coerce","path":"\#(path)","to":"string","onFail":"keep"}"#,
                #"{"op":"emptyArrayToNull","path":"\#(path)"}"#, #"{"op":"mapValues","path":"\#(path)","cases":[[1,"one"],[null,0]]}"#,
            ])
            let spec = #"[{"op":"keyedToArray"},\#(rule)]"#
            let records = (0..<(20 + random.next(20))).map { #""r\#($0)": {"t": \#(array(0)), "n": \#($0)}"# }
            let input = Array(("{" + records.joined(separator: ",") + "}").utf8)
            let rules = try Rules(json: spec)
            let outcomes = Outcomes()
            #expect(Self.compare(rules, input, outcomes: outcomes, context: "round \(round) rules \(spec)"))
            let counts = outcomes.counts()
            #expect(counts["record trees", default: 0] == 0 && counts["rerun", default: 0] == 0, "\(spec): \(counts)")
            streamed += counts["streamed", default: 0]
        }
        #expect(streamed > 100, "\(streamed) streamed runs")
    }

    /// `remove` with a path that selects members of a name at any depth (`$..name`): a record's
    /// containers are copied from the text with those members dropped (`ContainerPass.drop`),
    /// first, middle, last and every member of an object, inside arrays, inside a dropped value,
    /// names written with escapes, a union of names, after and before renamings. The whole tree's
    /// bytes on every route, containers passed on the text, no record on its tree. Then what the
    /// pass must not settle alone, compared with the whole tree: a renaming that makes a name the
    /// drop then meets twice, `{}` to `null` after the drop, a name twice and invalid text inside
    /// a dropped value.
    @Test(arguments: [
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$..name"}]"#,
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*]..['name','x']"}]"#,
        #"[{"op":"keyedToArray"},{"op":"renameKeys","map":{"nom":"name"},"deep":true},{"op":"remove","path":"$..name"},{"op":"convertKeys","to":"snake_case"}]"#,
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$..name"},{"op":"blankStringToNull"},{"op":"emptyArrayToNull"}]"#,
    ])
    func namedMembersAreDroppedOnTheText(_ spec: String) throws {
        let records = #"""
            {"r1": {"id0": 1, "a": {"name": 1, "b": 2}, "c": [{"b": 1, "name": {"name": [1]}}, {"name": 2}], "d": {"b": {"x": 1, "nom": 3}}},
             "r2": {"a": {"b": 1, "name": "n", "x": ""}, "c": [[], {"name": 1, "q": []}], "d": {"name": 1}},
             "r3": {"a": {"nom": {"name": 1}, "firstName": "F", "b": []}, "c": "name", "d": {"e": {"f": {"name": [{"name": 1}]}}}}}
            """#
        let rules = try Rules(json: spec)
        let outcomes = Outcomes()
        #expect(Self.compare(rules, Array(records.utf8), outcomes: outcomes, context: "rules \(spec)"))
        let counts = outcomes.counts()
        #expect(counts["containers passed", default: 0] > 0 && counts["record trees", default: 0] == 0, "\(spec): \(counts)")
        #expect(counts["rerun", default: 0] == 0, "\(spec): \(counts)")
        for (bad, rules) in [
            (#"{"r1": {"a": {"nom": 1, "name": 2}}, "r2": {"a": {"b": 1}}}"#, #"[{"op":"keyedToArray"},{"op":"renameKeys","map":{"nom":"name"},"deep":true},{"op":"remove","path":"$..name"}]"#),
            (#"{"r1": {"a": {"name": 1}, "b": {"c": {"name": 2}}}, "r2": {"a": {"b": 1}}}"#, #"[{"op":"keyedToArray"},{"op":"remove","path":"$..name"},{"op":"emptyObjectToNull"}]"#),
            (#"{"r1": {"a": {"name": {"x": 1, "x": 2}}}, "r2": {"a": {"b": 1}}}"#, spec),
            (#"{"r1": {"a": {"name": [1, tru]}}, "r2": {"a": {"b": 1}}}"#, spec),
            (#"{"r1": {"a": {"name": 1, "name": 2}}, "r2": {"a": {"b": 1}}}"#, spec),
        ] {
            #expect(Self.compare(try Rules(json: rules), Array(bad.utf8), context: "rules \(rules) input \(bad)"))
        }
    }

    /// `remove` with `matching` on a path that selects every value below a container (`$..*`,
    /// `$[*]..*`): the container goes by as text, the members whose names match dropped at every
    /// depth (`ContainerPass.drop(where:)`). A container the path does not select itself
    /// (`d` in `$[*].d..*`, whose own members stay) takes the tokens; the containers in it go by.
    /// An object selected with nothing below it (`$[*].d.*`) goes by with its own members that
    /// match dropped, while it holds no container (`ContainerPass.dropOwnMembers(_:)`). The cases
    /// the pass must leave to the tree are those of `namedMembersAreDroppedOnTheText`.
    @Test(arguments: [
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$..*","matching":"(first|last)Name"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*]..*","matching":"n.*"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"renameKeys","map":{"nom":"name"},"deep":true},{"op":"remove","path":"$..*","matching":"name|b"},{"op":"convertKeys","to":"snake_case"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$..*","matching":"[a-c]"},{"op":"blankStringToNull"},{"op":"emptyArrayToNull"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].d..*","matching":"b|x"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].d.*","matching":"b|x"}]"#, true),
    ])
    func matchingMembersAreDroppedOnTheText(_ spec: String, _ passes: Bool) throws {
        let records = #"""
            {"r1": {"id0": 1, "a": {"name": 1, "b": 2}, "c": [{"b": 1, "name": {"name": [1]}}, {"name": 2}], "d": {"b": {"x": 1, "nom": 3}}},
             "r2": {"a": {"b": 1, "name": "n", "x": ""}, "c": [[], {"name": 1, "q": []}], "d": {"name": 1, "b": 2}},
             "r3": {"a": {"nom": {"name": 1}, "firstName": "F", "b": []}, "c": "name", "d": {"e": {"f": {"lastName": [{"firstName": 1}]}}}}}
            """#
        let rules = try Rules(json: spec)
        let outcomes = Outcomes()
        #expect(Self.compare(rules, Array(records.utf8), outcomes: outcomes, context: "rules \(spec)"))
        let counts = outcomes.counts()
        #expect((counts["containers passed", default: 0] > 0) == passes, "\(spec): \(counts)")
        #expect(counts["record trees", default: 0] == 0 && counts["rerun", default: 0] == 0, "\(spec): \(counts)")
        for (bad, rules) in [
            (#"{"r1": {"a": {"nom": 1, "name": 2}}, "r2": {"a": {"b": 1}}}"#, #"[{"op":"keyedToArray"},{"op":"renameKeys","map":{"nom":"name"},"deep":true},{"op":"remove","path":"$..*","matching":"name"}]"#),
            (#"{"r1": {"a": {"name": 1}, "b": {"c": {"name": 2}}}, "r2": {"a": {"b": 1}}}"#, #"[{"op":"keyedToArray"},{"op":"remove","path":"$..*","matching":"name"},{"op":"emptyObjectToNull"}]"#),
            (#"{"r1": {"a": {"name": {"x": 1, "x": 2}}}, "r2": {"a": {"b": 1}}}"#, spec),
            (#"{"r1": {"a": {"name": [1, tru]}}, "r2": {"a": {"b": 1}}}"#, spec),
            (#"{"r1": {"a": {"firstName": 1, "firstName": 2}}, "r2": {"a": {"b": 1}}}"#, spec),
        ] {
            #expect(Self.compare(try Rules(json: rules), Array(bad.utf8), context: "rules \(rules) input \(bad)"))
        }
    }

    /// `coerce`, `mapValues` and `blankStringToNull` at any depth (`$..n`): a container goes by as text, the scalar
    /// values of the members of that name converted on it (`ContainerPass.edit(named:_:)`), with
    /// renamings before and after, a drop, nulling of `[]` after, each target, and cases of each
    /// kind. What the pass leaves to the tree gives the tree's bytes or error: a value it cannot
    /// convert or map (`onOther: "error"`), a container under the name, a case whose `to` is a
    /// container, two edits of one value, blank strings to `null` (whose order with an edit a
    /// pass does not keep), a name twice, invalid text.
    @Test(arguments: [
        (#"[{"op":"keyedToArray"},{"op":"coerce","path":"$..n","to":"string"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"coerce","path":"$[*]..['n','m']","to":"number","onFail":"keep"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"renameKeys","map":{"first_name":"n"},"deep":true},{"op":"coerce","path":"$..n","to":"integer","onFail":"keep"},{"op":"convertKeys","to":"camelCase"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"coerce","path":"$..n","to":"integer","onFail":"null"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$..x"},{"op":"coerce","path":"$..n","to":"boolean","onFail":"null"},{"op":"emptyArrayToNull"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"coerce","path":"$..n","to":"string"},{"op":"coerce","path":"$..n","to":"number"}]"#, false),
        (#"[{"op":"keyedToArray"},{"op":"coerce","path":"$..n","to":"string"},{"op":"blankStringToNull"}]"#, false),
        (#"[{"op":"keyedToArray"},{"op":"mapValues","path":"$..n","cases":[["true",true],[1.5,"one and a half"],[null,0],[-0,"zero"]]}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"mapValues","path":"$..['n','m']","cases":[["12",12],[{"a":1},1]],"onOther":"null"},{"op":"convertKeys","to":"camelCase"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"blankStringToNull","path":"$..n","trim":true},{"op":"coerce","path":"$..m","to":"number","onFail":"keep"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"blankStringToNull","path":"$..['n','x']"},{"op":"blankStringToNull"}]"#, false),
    ])
    func valuesAreConvertedOnTheText(_ spec: String, _ passes: Bool) throws {
        let records = #"""
            {"r1": {"id0": 1, "a": {"n": 1.50, "b": 2, "k": "7"}, "c": [{"n": true, "x": {"n": "x"}}, {"n": null}], "d": {"b": {"n": -0, "m": "12"}}},
             "r2": {"a": {"b": 1, "n": "true", "x": ""}, "c": [[], {"n": "3", "q": []}], "d": {"n": 1e400, "m": "1e2", "k": "false"}},
             "r3": {"a": {"k": {"n": 2}, "first_name": "F", "b": []}, "c": "n", "d": {"e": {"f": {"n": "  ", "x": 1}}}}}
            """#
        let rules = try Rules(json: spec)
        let outcomes = Outcomes()
        #expect(Self.compare(rules, Array(records.utf8), outcomes: outcomes, context: "rules \(spec)"))
        let counts = outcomes.counts()
        #expect((counts["containers passed", default: 0] > 0) == passes, "\(spec): \(counts)")
        #expect(counts["rerun", default: 0] == 0, "\(spec): \(counts)")
        if passes { #expect(counts["record trees", default: 0] == 0, "\(spec): \(counts)") }
        for (bad, rules) in [
            (#"{"r1": {"a": {"n": "x"}}, "r2": {"a": {"n": 1}}}"#, #"[{"op":"keyedToArray"},{"op":"coerce","path":"$..n"}]"#),
            (#"{"r1": {"a": {"n": {"v": 1}}}, "r2": {"a": {"n": 1}}}"#, #"[{"op":"keyedToArray"},{"op":"coerce","path":"$..n","to":"string","onFail":"null"}]"#),
            (#"{"r1": {"a": {"n": [1, "2"]}}, "r2": {"a": {"n": 1}}}"#, #"[{"op":"keyedToArray"},{"op":"coerce","path":"$..n","to":"string"}]"#),
            (#"{"r1": {"a": {"n": 1, "n": 2}}, "r2": {"a": {"b": 1}}}"#, spec),
            (#"{"r1": {"a": {"n": [1, tru]}}, "r2": {"a": {"b": 1}}}"#, spec),
            (#"{"r1": {"a": {"n": 12345678901234567890123}}, "r2": {"a": {"n": "9007199254740993"}}}"#, spec),
            (#"{"r1": {"a": {"n": 1}}, "r2": {"a": {"n": 2}}}"#, #"[{"op":"keyedToArray"},{"op":"mapValues","path":"$..n","cases":[[1,{"one":[1]}]]}]"#),
            (#"{"r1": {"a": {"n": 1}}, "r2": {"a": {"n": 2}}}"#, #"[{"op":"keyedToArray"},{"op":"mapValues","path":"$..n","cases":[[1,"one"]],"onOther":"error"}]"#),
        ] {
            #expect(Self.compare(try Rules(json: rules), Array(bad.utf8), context: "rules \(rules) input \(bad)"))
        }
    }

    /// Ops at a descendant path that selects members of some names (`$..profile`) and do what a
    /// pass cannot (rename or add members of the object, hold it, key it, flatten it): a
    /// container goes by as text, watched for those names (`ContainerPass.watch(_:)`), and one
    /// that holds such a member, at any depth, escaped or given that name by a rule before,
    /// takes its tokens from its start after all. Bytes as the whole tree's on every route, no
    /// record on its tree, containers passed on the text, and watched members met. A name
    /// dropped before the watch is not met; what the tree decides (a name made twice, a member
    /// twice, invalid text) is the whole tree's error.
    @Test(arguments: [
        #"[{"op":"keyedToArray"},{"op":"convertKeys","path":"$..profile","to":"snake_case"}]"#,
        #"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$..profile","map":{"bioText":"about"}}]"#,
        #"[{"op":"keyedToArray"},{"op":"default","path":"$..profile","key":"country","value":"NZ"}]"#,
        #"[{"op":"keyedToArray"},{"op":"flatten","path":"$..profile","member":"inner"}]"#,
        #"[{"op":"keyedToArray"},{"op":"keep","path":"$..profile","members":["firstName","inner"]}]"#,
        #"[{"op":"keyedToArray"},{"op":"emptyObjectToNull","path":"$..profile"}]"#,
        #"[{"op":"keyedToArray"},{"op":"hoist","path":"$..profile","member":"firstName","onMissing":"null"}]"#,
        #"[{"op":"keyedToArray"},{"op":"arrayToKeyed","path":"$..groups"}]"#,
        #"[{"op":"keyedToArray"},{"op":"convertKeys","to":"camelCase"},{"op":"default","path":"$..profile","key":"seen","value":true},{"op":"convertKeys","to":"snake_case"}]"#,
        #"[{"op":"keyedToArray"},{"op":"convertKeys","path":"$..profile","to":"snake_case","exclude":["$[*].groups"]},{"op":"emptyArrayToNull"}]"#,
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$..groups[?@.id == 'g2' || @.id == 'n1']"}]"#,
        #"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$[*]..profile.inner","map":{"x":"ex"}}]"#,
        #"[{"op":"keyedToArray"},{"op":"blankStringToNull","path":"$..['profile','inner'][*]"}]"#,
    ])
    func descendantNamesAreWatchedOnTheText(_ spec: String) throws {
        let records = #"""
            {"r1": {"avatar": {"url": "u", "sizes": [1, 2]}, "groups": [{"id": "g1", "tags": []}], "profile": {"firstName": "A", "bioText": "b", "inner": {"x": 1}}},
             "r2": {"avatar": {"url": "v"}, "groups": [{"id": "g2", "profile": {"firstName": "B", "inner": {"y": 2}}}], "profile": {}},
             "r3": {"avatar": {"meta": {"deep": [{"pro\u0066ile": {"firstName": "C"}}], "groups": [{"id": "n1"}]}}, "groups": [], "profile": {"lastName": "D"}},
             "r4": {"avatar": {"url": "w", "the_profile": {"bioText": "e"}}, "groups": [{"id": "g3"}], "profile": {"firstName": "E", "inner": {}}}}
            """#
        try Self.expectRecordsOnTheFilters(spec, records, seeing: ["containers passed", "copies given back"])
        for (bad, rules) in [
            (#"{"r1": {"a": {"b": {"profile": {"x_y": 1, "xY": 2}}}}, "r2": {"a": {"b": 1}}}"#, spec),
            (#"{"r1": {"a": {"profile": {"x": 1}, "profile": {"x": 2}}}, "r2": {"a": {"b": 1}}}"#, spec),
            (#"{"r1": {"a": {"c": 1, "c": 2}}, "r2": {"a": {"b": 1}}}"#, spec),
            (#"{"r1": {"a": {"c": [1, tru], "profile": {}}}, "r2": {"a": {"b": 1}}}"#, spec),
            (#"{"r1": {"a": {"profile": {"x": 1}}}, "r2": {"a": {"profile": 3}}}"#, spec),
            (#"{"r1": {"a": {"profile": {"x": 1}, "b": [{"profile": {}}]}}, "r2": {"a": {"b": 1}}}"#, #"[{"op":"keyedToArray"},{"op":"remove","path":"$..profile"},{"op":"default","path":"$..profile","key":"k","value":1}]"#),
        ] {
            #expect(Self.compare(try Rules(json: rules), Array(bad.utf8), context: "rules \(rules) input \(bad)"))
        }
    }

    /// A record's member whose container the path goes on in only through members of some names
    /// at any depth (`$..profile` past `meta`) goes past the filters, watched for them
    /// (`WatchedNames`): a record whose first member is such a container is routed whole
    /// ("records routed" must come; it was given back at that member before), one that holds a
    /// watched name deep inside is given back to the filters. Bytes as the whole tree's on every
    /// route, no record on its tree.
    @Test(arguments: [
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$..groups[?@.id == 'g2']"}]"#,
        #"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$..profile","map":{"firstName":"first"}}]"#,
        #"[{"op":"keyedToArray"},{"op":"convertKeys","path":"$..profile","to":"snake_case"}]"#,
        #"[{"op":"keyedToArray"},{"op":"default","path":"$..profile","key":"country","value":"NZ"}]"#,
        #"[{"op":"keyedToArray"},{"op":"keep","path":"$..profile","members":["firstName"]}]"#,
        #"[{"op":"keyedToArray"},{"op":"blankStringToNull","path":"$..profile.firstName"}]"#,
        #"[{"op":"keyedToArray"},{"op":"emptyObjectToNull","path":"$..profile.inner"}]"#,
        #"[{"op":"keyedToArray"},{"op":"coerce","path":"$..profile.inner.x","to":"string"}]"#,
        #"[{"op":"keyedToArray"},{"op":"hoist","path":"$..profile","member":"firstName","onMissing":"null"}]"#,
    ])
    func descendantPathsLetRecordMembersGoWatched(_ spec: String) throws {
        let records = #"""
            {"r1": {"meta": {"a": [1, {"b": 2}], "c": {}}, "n": 1},
             "r2": {"meta": {"c": {"d": "e"}}, "profile": {"firstName": " ", "inner": {"x": 1}}, "groups": [{"id": "g2"}, {"id": "g3"}]},
             "r3": {"meta": {"deep": [{"profile": {"firstName": "", "inner": {}}, "groups": [{"id": "g2"}]}]}, "n": 2},
             "r4": {"meta": [{"x": {"y": [true, null]}}], "n": 3}}
            """#
        try Self.expectRecordsOnTheFilters(spec, records, seeing: ["records routed"])
    }

    /// A renaming that is not deep at a path that selects every value below the records
    /// (`$..*`, `$[*]..*`) renames every object there, as a deep one does: on the text, the
    /// containers copied with their members renamed; a name made twice is the tree's error.
    @Test(arguments: [
        #"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$..*","map":{"b":"bee","x":"ex"}}]"#,
        #"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$[*]..*","map":{"b":"bee"}},{"op":"emptyArrayToNull"}]"#,
        #"[{"op":"keyedToArray"},{"op":"convertKeys","path":"$..*","to":"camelCase","deep":false}]"#,
    ])
    func renamingEveryValueBelowIsDeepOnTheText(_ spec: String) throws {
        let records = #"{"r1": {"a": {"b": 1, "c": [{"b": [], "x_y": {"x": 2}}]}, "b": 3}, "r2": {"a": [], "x": {"b": {}}}}"#
        try Self.expectRecordsOnTheFilters(spec, records, seeing: ["containers passed"])
        let colliding = #"{"r1": {"a": {"b": 1, "c": [{"b": 2, "bee": 3}]}}, "r2": {"a": {"x": 1}}}"#
        #expect(Self.compare(try Rules(json: spec), Array(colliding.utf8), context: "rules \(spec) input \(colliding)"))
    }

    /// A renaming that is not deep, at an object its path selects, and a removal (or a `keep`)
    /// of some of an object's own members: the object goes by as text with its own members
    /// renamed or dropped (`ContainerPass.renameOwnMembers(_:)`, `dropOwnMembers(_:)`), and one
    /// that holds a container, even empty, is given back and takes its tokens. Two members given
    /// one name are the tree's error.
    @Test(arguments: [
        #"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$[*].profile","map":{"bio":"about","x":"ex"}}]"#,
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].profile.bio"}]"#,
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].profile['x','firstName']"},{"op":"renameKeys","path":"$[*].profile","map":{"bio":"about"}}]"#,
        #"[{"op":"keyedToArray"},{"op":"keep","path":"$[*].profile","members":["firstName","x"]}]"#,
        #"[{"op":"keyedToArray"},{"op":"convertKeys","to":"snake_case"},{"op":"remove","path":"$[*].profile","matching":"^(bio|first_name)$"}]"#,
        #"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$..profile","map":{"bio":"about"}},{"op":"emptyArrayToNull"}]"#,
        #"[{"op":"keyedToArray"},{"op":"convertKeys","path":"$[*].profile","to":"snake_case","deep":false},{"op":"remove","path":"$..x"}]"#,
    ])
    func ownMembersAreEditedOnTheText(_ spec: String) throws {
        let records = #"""
            {"r1": {"profile": {"bio": "b", "firstName": "F", "x": 1, "e": [], "o": {}}},
             "r2": {"profile": {"bio": {"x": 1}, "firstName": "G"}},
             "r3": {"profile": {"lastName": "L", "t": [1, {"x": 2}]}, "other": {"bio": 1}},
             "r4": {"profile": {"bio": "c", "x": 2, "firstName": "H"}}}
            """#
        try Self.expectRecordsOnTheFilters(spec, records, seeing: ["containers passed", "copies given back"])
        let colliding = #"{"r1": {"profile": {"bio": 1, "about": 2, "first_name": 3, "firstName": 4}}, "r2": {"profile": {}}}"#
        #expect(Self.compare(try Rules(json: spec), Array(colliding.utf8), context: "rules \(spec) input \(colliding)"))
    }

    /// `default` with a scalar value at an object inside the records: the object goes by as
    /// text with the member added at its end, named as the renamings after the rule leave it
    /// (`ContainerPass.fillOwnMembers(_:)`). One that has the member (`null` or not, escaped or
    /// renamed to it by a rule before), holds a container, or is empty takes its tokens; so does
    /// every object where a rule after drops, edits or nulls the member. Bytes as the whole
    /// tree's on every route, no record on its tree.
    @Test(arguments: [
        (#"[{"op":"keyedToArray"},{"op":"default","path":"$[*].profile","key":"country","value":null}]"#, "containers passed"),
        (#"[{"op":"keyedToArray"},{"op":"default","path":"$[*].profile","key":"homeCountry","value":"NO"},{"op":"convertKeys","to":"snake_case"},{"op":"emptyArrayToNull"}]"#, "containers passed"),
        (#"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$[*].profile","map":{"x":"country"}},{"op":"default","path":"$[*].profile","key":"country","value":1.50}]"#, "containers passed"),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].profile.x"},{"op":"default","path":"$[*].profile","key":"x","value":true},{"op":"renameKeys","path":"$[*].profile","map":{"x":"ex"}}]"#, "containers passed"),
        (#"[{"op":"keyedToArray"},{"op":"default","path":"$[*].profile","key":"country","value":""},{"op":"blankStringToNull"}]"#, "copies given back"),
        (#"[{"op":"keyedToArray"},{"op":"default","path":"$[*].profile","key":"country","value":"x"},{"op":"remove","path":"$[*].profile.country"}]"#, "copies given back"),
        (#"[{"op":"keyedToArray"},{"op":"default","path":"$[*].profile","key":"country","value":"x"},{"op":"default","path":"$[*].profile","key":"city","value":"y"}]"#, "copies given back"),
        (#"[{"op":"keyedToArray"},{"op":"default","path":"$[*].profile","key":"country","value":"x"},{"op":"coerce","path":"$..country","to":"number","onFail":"null"}]"#, "copies given back"),
    ])
    func defaultAddsMembersOnTheText(_ spec: String, _ outcome: String) throws {
        let records = #"""
            {"r1": {"profile": {"bio": "b", "firstName": "F", "x": 1}, "n": 1},
             "r2": {"profile": {"country": null, "firstName": "G"}},
             "r3": {"profile": {"coun\u0074ry": "SE", "bio": "c"}},
             "r4": {"profile": {"lastName": "L", "t": [1]}},
             "r5": {"profile": {}},
             "r6": {"profile": {"homeCountry": "DK", "x": 2}},
             "r7": {"profile": {"firstName": "H", "city": "Oslo"}}}
            """#
        try Self.expectRecordsOnTheFilters(spec, records, seeing: [outcome])
        // The name the member is given already there: the tree's collision error, or the
        // member kept; a selected value that is not an object: the tree's error.
        let others = [
            #"{"r0": {"profile": {"a": 1}}, "r1": {"profile": {"home_country": 1, "bio": 2}}}"#,
            #"{"r1": {"profile": {"ex": 1}}, "r2": {"profile": {"x": 1}}}"#,
            #"{"r1": {"profile": {"a": 1}}, "r2": {"profile": {"x": 1, "ex": 2}}}"#,
            #"{"r1": {"profile": {"a": 1}}, "r2": {"profile": "s"}}"#,
            #"{"r1": {"profile": {"a": 1}}, "r2": {"profile": null}, "r3": {"profile": [1]}}"#,
        ]
        for other in others {
            #expect(Self.compare(try Rules(json: spec), Array(other.utf8), context: "rules \(spec) input \(other)"))
        }
    }

    /// `default` that cannot add its member on the text: a container value, or a path that goes
    /// on below the object (`$..profile`; `$[*]..*`, which selects its members too).
    /// The objects take their tokens, with the bytes or the error of the whole tree.
    @Test(arguments: [
        #"[{"op":"keyedToArray"},{"op":"default","path":"$[*].profile","key":"country","value":{"code":"NO"}}]"#,
        #"[{"op":"keyedToArray"},{"op":"default","path":"$..profile","key":"country","value":"NO"}]"#,
        #"[{"op":"keyedToArray"},{"op":"default","path":"$[*]..*","key":"country","value":"NO"}]"#,
    ])
    func defaultWithMoreToDoTakesTheTokens(_ spec: String) throws {
        let records = #"{"r1": {"profile": {"bio": "b", "x": 1}}, "r2": {"profile": {"country": null}}}"#
        #expect(Self.compare(try Rules(json: spec), Array(records.utf8), context: "rules \(spec)"))
        let nested = #"{"r1": {"profile": {"bio": "b", "profile": {"a": {}}}}}"#
        #expect(Self.compare(try Rules(json: spec), Array(nested.utf8), context: "rules \(spec) input \(nested)"))
        let objects = #"{"r1": {"profile": {"bio": "b", "x": 1}}, "r2": {"profile": {"b": {"c": {}}}}}"#
        #expect(Self.compare(try Rules(json: spec), Array(objects.utf8), context: "rules \(spec) input \(objects)"))
    }

    /// A record's own member whose value a rule's path selects, with nothing below it, goes past
    /// the filters when it is a container the rule works on as text (`SelectedContainerStep`):
    /// copied with its own members renamed, dropped, added to or taken out of. A copy that gives
    /// back (a container inside, a member already there, an empty one, an element of another
    /// kind) is taken back, and the filters see the member. Each list's first records hold only
    /// that member, so "members past" comes only when it went past; bytes as the whole tree's on
    /// every route, no record on its tree.
    @Test(arguments: [
        (#"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$[*].profile","map":{"bio":"about"}}]"#,
         #"{"r1": {"profile": {"bio": "b", "x": 1}}, "r2": {"profile": {"bio": "c", "n": {"bio": 1}}}, "r3": {"profile": {}}, "r4": {"profile": [{"bio": 1}]}}"#),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].avatar.width"}]"#,
         #"{"r1": {"avatar": {"url": "u", "width": 1}}, "r2": {"avatar": {"width": {"a": 1}, "url": "v"}}, "r3": {"avatar": [{"width": 1}]}, "r4": {"avatar": {}}}"#),
        (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"snake_case"},{"op":"default","path":"$[*].profile","key":"country","value":"NO"},{"op":"remove","path":"$[*].x"}]"#,
         #"{"r1": {"profile": {"firstName": "a"}}, "r2": {"profile": {"country": "SE"}}, "r3": {"profile": {}}, "r4": {"profile": {"homeTown": {"a": 1}}}}"#),
        (#"[{"op":"keyedToArray"},{"op":"pluck","path":"$[*].groups","member":"id","onMissing":"null"},{"op":"convertKeys","to":"snake_case"}]"#,
         #"{"r1": {"groups": [{"id": 1, "n": 2}, {"id": {"aB": 1}}]}, "r2": {"groups": []}, "r3": {"groups": [{"x": 1}]}, "r4": {"groups": [{"id": 2, "xY": [1]}]}}"#),
        (#"[{"op":"keyedToArray"},{"op":"hoist","path":"$[*].avatar","member":"url","onMissing":"null"}]"#,
         #"{"r1": {"avatar": {"url": "u", "w": 1}}, "r2": {"avatar": {}}, "r3": {"avatar": {"w": 2}}, "r4": {"avatar": {"url": {"aB": []}}}}"#),
        (#"[{"op":"keyedToArray","idKey":"id"},{"op":"emptyArrayToNull"},{"op":"remove","path":"$[*].avatar.width"},{"op":"renameKeys","path":"$[*].profile","map":{"bio":"about"}},{"op":"default","path":"$[*].profile","key":"country","value":null},{"op":"coerce","path":"$[*].isActive","to":"string"},{"op":"convertKeys","to":"snake_case"},{"op":"pluck","path":"$[*].groups","member":"id"},{"op":"wrap","key":"data"}]"#,
         #"{"r1": {"profile": {"bio": "b", "firstName": "F"}}, "r2": {"avatar": {"url": "u", "width": 1}, "isActive": true, "groups": [{"id": "g1"}], "profile": {"country": "SE"}}, "r3": {"groups": [], "profile": {"bio": "x", "n": {"b": 1}}}}"#),
    ])
    func selectedRecordMembersGoPast(_ spec: String, _ records: String) throws {
        try Self.expectRecordsOnTheFilters(spec, records, seeing: ["members past", "copies given back"])
    }

    /// As `selectedRecordMembersGoPast`, where the tree fails: two members given one name by a
    /// renaming, or by `default`'s member, and `pluck` of an element without its member. The
    /// stream gives the whole tree's error.
    @Test(arguments: [
        (#"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$[*].profile","map":{"bio":"about"}}]"#, #"{"r1": {"profile": {"bio": 1}}, "r2": {"profile": {"bio": 1, "about": 2}}}"#),
        (#"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$[*].profile","map":{"bio":"about"}},{"op":"remove","path":"$[*].profile.about"}]"#, #"{"r1": {"profile": {"bio": 1}}, "r2": {"profile": {"about": 2, "bio": 1}}}"#),
        (#"[{"op":"keyedToArray"},{"op":"default","path":"$[*].profile","key":"country","value":"NO"},{"op":"renameKeys","path":"$[*].profile","map":{"land":"country"}}]"#, #"{"r1": {"profile": {"a": 1}}, "r2": {"profile": {"land": "SE"}}}"#),
        (#"[{"op":"keyedToArray"},{"op":"pluck","path":"$[*].groups","member":"id"}]"#, #"{"r1": {"groups": [{"id": 1}]}, "r2": {"groups": [{"x": 1}]}}"#),
        (#"[{"op":"keyedToArray"},{"op":"pluck","path":"$[*].groups","member":"id","onMissing":"null"}]"#, #"{"r1": {"groups": [{"id": 1}]}, "r2": {"groups": {"id": 3}}}"#),
        (#"[{"op":"keyedToArray"},{"op":"pluck","path":"$[*].groups","member":"id","onMissing":"null"}]"#, #"{"r1": {"groups": [{"id": 1}]}, "r2": {"groups": [1, {"id": 2}]}}"#),
        (#"[{"op":"keyedToArray"},{"op":"hoist","path":"$[*].avatar","member":"url","onMissing":"null"}]"#, #"{"r1": {"avatar": {"url": 1}}, "r2": {"avatar": ["u"]}}"#),
    ])
    func selectedRecordMembersFailAsTheTree(_ spec: String, _ records: String) throws {
        #expect(Self.compare(try Rules(json: spec), Array(records.utf8), context: "rules \(spec) input \(records)"))
    }

    /// A record whose filters let it go by member by member (`RecordFilter.passesMembers`) is
    /// copied past them, each member as its route says (`RecordFilterChain.routeRecord`):
    /// renamed or dropped, a container copied with its pass, a scalar edited (`coerce`,
    /// `mapValues`), the id `keyedToArray` adds first; `pluck` of an empty array and `hoist` of
    /// an empty object as the op makes them. A record with a member the filters must see goes to
    /// them whole. "records routed" must come; bytes as the whole tree's on every route, no
    /// record on its tree.
    @Test(arguments: [
        (#"[{"op":"keyedToArray","idKey":"id"},{"op":"emptyArrayToNull"},{"op":"remove","path":"$[*].avatar.width"},{"op":"renameKeys","path":"$[*].profile","map":{"bio":"about"}},{"op":"default","path":"$[*].profile","key":"country","value":null},{"op":"coerce","path":"$[*].isActive","to":"string"},{"op":"convertKeys","to":"snake_case"},{"op":"pluck","path":"$[*].groups","member":"id"},{"op":"wrap","key":"data"}]"#,
         #"{"r1": {"isActive": true, "avatar": {}, "groups": [], "tags": [], "profile": {"bio": "b", "firstName": "F"}}, "r2": {"avatar": {"url": "u", "width": 1}, "isActive": false, "groups": [{"id": "g1"}], "profile": {"country": "SE"}}, "r3": {"groups": [{"id": 1, "xY": {}}], "isActive": "yes", "profile": {}}, "r4": {"isActive": null, "tags": ["t"]}}"#),
        (#"[{"op":"keyedToArray"},{"op":"coerce","path":"$[*].createdAt","to":"string"},{"op":"mapValues","path":"$[*].plan","cases":[["free",0],["pro",1]]}]"#,
         #"{"r1": {"createdAt": 17, "plan": "free"}, "r2": {"createdAt": 1.50, "plan": "pro", "x": [1]}, "r3": {"createdAt": null, "plan": "gold"}, "r4": {"createdAt": "s"}}"#),
        (#"[{"op":"keyedToArray","idKey":"key"},{"op":"remove","path":"$[*].tags"},{"op":"renameKeys","path":"$[*]","map":{"displayName":"name","key":"id"}},{"op":"convertKeys","to":"snake_case"}]"#,
         #"{"r1": {"displayName": "A", "tags": [1], "lastLogin": 2}, "r2": {"tags": {"a": []}, "fooBar": {"bazQux": 1}}, "r3": {"displayName": "B"}}"#),
        (#"[{"op":"remove","path":"$[*].x"},{"op":"convertKeys","to":"snake_case"},{"op":"hoist","path":"$[*].av","member":"url","onMissing":"null"}]"#,
         #"[{"aB": 1, "x": 2, "av": {"url": "u"}}, {"cD": [1, {"eF": 2}], "av": {}}, {"av": {"w": 1}, "x": {"y": 1}}, {"gH": null}]"#),
        (#"[{"op":"keyedToArray"},{"op":"hoist","path":"$[*].av","member":"url","onMissing":"keep"},{"op":"emptyObjectToNull"}]"#,
         #"{"r1": {"av": {"url": "u"}}, "r2": {"av": {}}, "r3": {"av": {"w": 1}}, "r4": {"av": {"url": {}}}}"#),
        (#"[{"op":"keyedToArray"},{"op":"pluck","path":"$[*].groups","member":"id","onMissing":"skip"},{"op":"emptyArrayToNull"}]"#,
         #"{"r1": {"groups": []}, "r2": {"groups": [{"id": 1}, {"x": 2}]}, "r3": {"groups": [{"x": 2}]}, "r4": {"groups": null}}"#),
        (#"[{"op":"keyedToArray"},{"op":"emptyArrayToNull","path":"$[*].tags"},{"op":"keep","path":"$[*]","members":["tags","a"]}]"#,
         #"{"r1": {"tags": [], "a": 1, "b": 2}, "r2": {"tags": [1, []], "b": {}}, "r3": {"tags": {}, "a": []}}"#),
        (#"[{"op":"keyedToArray"},{"op":"emptyObjectToNull","path":"$[*].p"},{"op":"default","path":"$[*].p","key":"k","value":1}]"#,
         #"{"r1": {"q": 1}, "r3": {"p": {"a": 1}}, "r4": {"q": {}}}"#),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*]","matching":"^x"},{"op":"emptyObjectToNull"}]"#,
         #"{"r1": {"xA": 1, "b": 2}, "r2": {"b": {}, "x": {"c": 1}}, "r3": {"xx": []}}"#),
    ])
    func recordsGoPastMemberByMember(_ spec: String, _ records: String) throws {
        try Self.expectRecordsOnTheFilters(spec, records, seeing: ["records routed"])
    }

    /// A routed record with a member some filter must see after members that went past them is
    /// handed over there (`RecordFilterChain.handOver`): the filters take its start, the id
    /// `keyedToArray` wrote and the names renamings gave the members before, and see the rest
    /// as they see any record's. Filter selectors on a member's elements (the gate reads them
    /// ahead), a descendant one, renamings, records of an array collection, a record whose
    /// empty objects become `null` (its start held until its next token: every filter sees the
    /// member's name), `hoist` of selected elements. "records handed over" must come; bytes as
    /// the whole tree's on every route.
    @Test(arguments: [
        (#"[{"op":"keyedToArray","idKey":"id"},{"op":"remove","path":"$[*].groups[?@.role == 'member']"}]"#,
         #"{"r1": {"a": 1, "b": "x", "groups": [{"role": "member"}, {"role": "owner"}], "c": {"d": 2}}, "r2": {"a": 2, "groups": [], "c": null}, "r3": {"groups": [{"role": "member"}]}, "r4": {"a": 3, "groups": 7}}"#),
        (#"[{"op":"keyedToArray","idKey":"key"},{"op":"convertKeys","to":"snake_case"},{"op":"remove","path":"$..groups[?@.role == 'member']"},{"op":"remove","path":"$[*].x"}]"#,
         #"{"r1": {"fooBar": 1, "x": 2, "groups": [{"role": "member", "groups": [{"role": "member"}]}], "pQ": {"groups": [{"role": "o"}]}}, "r2": {"aB": {"cD": 1}, "groups": [{"role": "member"}]}}"#),
        (#"[{"op":"remove","path":"$[*].g[?@.k > 1]"},{"op":"renameKeys","path":"$[*]","map":{"a":"b"}}]"#,
         #"[{"a": 1, "g": [{"k": 1}, {"k": 2}], "c": 3}, {"z": 0, "g": {"k": 5}}, {"y": 1, "g": [{"k": 3}], "b": 2}]"#),
        (#"[{"op":"keyedToArray"},{"op":"emptyObjectToNull"},{"op":"coerce","path":"$[*].g[?@.k == 1].k","to":"string"}]"#,
         #"{"r1": {"a": {}, "g": [{"k": 1}, {"k": 2}, {}]}, "r2": {"b": 1, "g": []}}"#),
        (#"[{"op":"keyedToArray"},{"op":"hoist","path":"$[*].g[?@.k]","member":"k"}]"#,
         #"{"r1": {"a": 1, "g": [{"k": 1}, {"j": 2}]}, "r2": {"a": 2, "g": [{"k": {"x": 1}}]}}"#),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].m.a"},{"op":"emptyObjectToNull"},{"op":"coerce","path":"$[*].g[?@.id == 't1'].n","to":"string"},{"op":"pluck","path":"$[*].g","member":"id","onMissing":"null"},{"op":"renameKeys","path":"$..*","map":{"k":"kk"}}]"#,
         #"{"r0": {"isActive": true, "k": "", "v": {"b": ["12"], "m": []}, "m": {"a": {"x": ""}, "id": []}, "a": {"x": {"y": []}, "k": 2}, "g": [{"x": 2.5, "n": "q"}, {"x": 1, "id": "t1", "n": 2}]}, "r1": {"k": {}, "g": []}}"#),
    ])
    func recordsHandedOverToTheFilters(_ spec: String, _ records: String) throws {
        try Self.expectRecordsOnTheFilters(spec, records, seeing: ["records handed over"])
    }

    /// As `recordsHandedOverToTheFilters`, where the tree fails at the last record, after the
    /// handed-over ones: a renaming that gives a member after the hand-over the name it gave one
    /// before (a rule after it drops both, so only the renaming can tell), a value `coerce`
    /// cannot convert after it, a member named as the id. The records
    /// before the last are handed over ("records handed over" must come for them alone); with
    /// the last, the stream gives the whole tree's error.
    @Test(arguments: [
        (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"snake_case"},{"op":"remove","path":"$[*].a_b"},{"op":"remove","path":"$[*].g[?@.k > 1]"}]"#,
         #"{"r0": {"aB": 1, "g": [{"k": 1}, {"k": 2}], "cD": 3}"#, #", "r1": {"aB": 1, "g": [{"k": 1}, {"k": 2}], "a_b": 3}}"#),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].g[?@.k == 'x']"},{"op":"coerce","path":"$[*].n","to":"number"}]"#,
         #"{"r1": {"m": 0, "n": "1", "g": [{"k": "x"}]}"#, #", "r2": {"m": 1, "g": [{"k": "y"}], "n": "two"}}"#),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].g[?@.k == 'x']"}]"#,
         #"{"r1": {"n": 1, "g": [{"k": "x"}]}"#, #", "r2": {"m": 1, "g": [{"k": "y"}], "id": 2}}"#),
    ])
    func handedOverRecordsFailAsTheTree(_ spec: String, _ handedOver: String, _ failing: String) throws {
        try Self.expectRecordsOnTheFilters(spec, handedOver + "}", seeing: ["records handed over"])
        let records = handedOver + failing
        #expect(Self.compare(try Rules(json: spec), Array(records.utf8), context: "rules \(spec) input \(records)"))
    }

    /// As `recordsGoPastMemberByMember`, where the tree fails: a value `coerce` cannot convert,
    /// two members a renaming gives one name when a rule after it drops one, a duplicate name, a
    /// member named as the id, `hoist` of an empty object with `onMissing: "error"`. The stream
    /// gives the whole tree's error.
    @Test(arguments: [
        (#"[{"op":"keyedToArray"},{"op":"coerce","path":"$[*].n","to":"number"}]"#, #"{"r1": {"n": "1"}, "r2": {"n": "x"}}"#),
        (#"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$[*]","map":{"a":"b"}},{"op":"remove","path":"$[*].b"}]"#, #"{"r1": {"a": 1}, "r2": {"a": 1, "b": 2}}"#),
        (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"snake_case"},{"op":"remove","path":"$[*].x"}]"#, #"{"r1": {"aB": 1}, "r2": {"aB": 1, "a_b": 2}}"#),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].x"}]"#, #"{"r1": {"a": 1}, "r2": {"a": 1, "a": 2}}"#),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].x"}]"#, #"{"r1": {"a": 1}, "r2": {"a": 1, "id": 2}}"#),
        (#"[{"op":"keyedToArray"},{"op":"hoist","path":"$[*].av","member":"url"}]"#, #"{"r1": {"av": {"url": 1}}, "r2": {"av": {}}}"#),
        (#"[{"op":"keyedToArray"},{"op":"emptyObjectToNull","path":"$[*].p"},{"op":"default","path":"$[*].p","key":"k","value":1}]"#, #"{"r1": {"q": 1}, "r2": {"p": {}}}"#),
    ])
    func routedRecordsFailAsTheTree(_ spec: String, _ records: String) throws {
        #expect(Self.compare(try Rules(json: spec), Array(records.utf8), context: "rules \(spec) input \(records)"))
    }

    /// `pluck` of an array inside the records: the array goes by as text, each element's member
    /// copied with the renamings and nulls of the pass, the member's name compared as the
    /// renamings before the rule leave it, the other members read with those only
    /// (`ContainerPass.pluckElements(_:)`). An array with an element that is not an object, is
    /// empty or lacks the member, or an empty array, takes its tokens; so does every array
    /// where a step that is not a renaming comes before or after the pluck. Bytes as the whole
    /// tree's on every route, no record on its tree.
    @Test(arguments: [
        (#"[{"op":"keyedToArray"},{"op":"pluck","path":"$[*].items","member":"k","onMissing":"null"}]"#, "containers passed"),
        (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"snake_case"},{"op":"emptyArrayToNull"},{"op":"pluck","path":"$[*].items","member":"k_v","onMissing":"skip"},{"op":"blankStringToNull"}]"#, "containers passed"),
        (#"[{"op":"keyedToArray"},{"op":"emptyObjectToNull"},{"op":"pluck","path":"$[*].items","member":"kV","onMissing":"null"},{"op":"convertKeys","to":"snake_case"}]"#, "containers passed"),
        (#"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$..*","map":{"k":"kV","kV":"k"}},{"op":"pluck","path":"$[*].items","member":"k","onMissing":"null"},{"op":"renameKeys","path":"$..*","map":{"a":"x"}}]"#, "containers passed"),
        (#"[{"op":"keyedToArray"},{"op":"pluck","path":"$[*].items","member":"k","onMissing":"null"},{"op":"remove","path":"$..a"}]"#, "copies given back"),
        (#"[{"op":"keyedToArray"},{"op":"coerce","path":"$..k","to":"string","onFail":"keep"},{"op":"pluck","path":"$[*].items","member":"k","onMissing":"null"}]"#, "copies given back"),
    ])
    func pluckOnTheText(_ spec: String, _ outcome: String) throws {
        let records = #"""
            {"r1": {"items": [{"k": 1, "kV": {"aB": [], "a": ""}}, {"kV": "", "\u006b": {"a": {}, "cD": [1]}}], "n": 1},
             "r2": {"items": [{"x": [1, {"y": {}}], "k": "s", "kV": 2.50}], "z": "q"},
             "r3": {"items": [{"k": [], "kV": {}}, {"k": {}, "kV": []}, {"k": "", "kV": "  "}]},
             "r4": {"items": [{"kV": 1}, {"k": 2}]},
             "r5": {"items": [{"k": 1}, null]},
             "r6": {"items": [{"k": 1, "kV": 2}, {}]},
             "r7": {"items": []},
             "r8": {"items": [{"k": 1, "j": {"a": 1, "x": 2}}, {"k": 2}]}}
            """#
        try Self.expectRecordsOnTheFilters(spec, records, seeing: [outcome])
        // Names the renamings make collide (before the pluck: the tree's error; after it, in a
        // member not plucked: none), a duplicate, a member missing, an element or a selected
        // value of another kind, arrays nested.
        let others = [
            #"{"r0": {"items": [{"k": 1}]}, "r1": {"items": [7, {"k": 1, "kV": 2}]}}"#,
            #"{"r0": {"items": [{"k": 1}]}, "r1": {"items": [{"k": 1, "kV": 2}, [], {"k": 3}]}}"#,
            #"{"r0": {"items": [{"k": 1}]}, "r1": {"items": [{"k": 1, "aB": 1, "a_b": 2}]}}"#,
            #"{"r0": {"items": [{"k": 1}]}, "r1": {"items": [{"k": 1, "kV": {"aB": 1, "a_b": 2}}]}}"#,
            #"{"r0": {"items": [{"k": 1}]}, "r1": {"items": [{"k": 1, "k": 2}]}}"#,
            #"{"r0": {"items": [{"k": 1}]}, "r1": {"items": [{"k": 1, "x": {"k": 1, "k": 2}}]}}"#,
            #"{"r0": {"items": [{"k": 1}]}, "r1": {"items": {"k": 1}}, "r2": {"items": null}}"#,
            #"{"r0": {"items": [{"k": 1}]}, "r1": {"items": [{"k": [[{"items": [{"k": 2}]}]]}]}}"#,
        ]
        try Self.expectTakenAsTheTree(spec, others: others, records: records, selecting: "items")
    }

    /// `spec`, a `pluck` or `hoist` list, on each of `others`, and with `onMissing` "error" for
    /// "null"; and on `records` with `$[*].<selected>` made `$..<selected>` (a path that goes on
    /// below what it selects): the whole tree's bytes or error on every route.
    static func expectTakenAsTheTree(_ spec: String, others: [String], records: String, selecting selected: String) throws {
        for other in others {
            for rules in [spec, spec.replacingOccurrences(of: #""onMissing":"null""#, with: #""onMissing":"error""#)] {
                #expect(compare(try Rules(json: rules), Array(other.utf8), context: "rules \(rules) input \(other)"))
            }
        }
        let descendant = spec.replacingOccurrences(of: "$[*].\(selected)", with: "$..\(selected)")
        #expect(compare(try Rules(json: descendant), Array(records.utf8), context: "rules \(descendant)"))
    }

    /// A member whose name is written with escapes (`"q\"t"`) is taken on the text too: its
    /// name is compared as it is, not as written.
    @Test func membersWithEscapedNamesAreTakenOnTheText() throws {
        let records = #"{"r1": {"items": [{"q\"t": 1, "x": 2}], "m": {"q\u0022t": [3]}}, "r2": {"items": [{"q\"t": {}}], "m": {"q\"t": "s"}}}"#
        for spec in [
            #"[{"op":"keyedToArray"},{"op":"pluck","path":"$[*].items","member":"q\"t"}]"#,
            #"[{"op":"keyedToArray"},{"op":"hoist","path":"$[*].m","member":"q\"t"}]"#,
        ] {
            try Self.expectRecordsOnTheFilters(spec, records, seeing: ["containers passed"])
        }
    }

    /// `hoist` of an object inside the records: the object goes by as text, the value of its
    /// member copied in its place with the renamings and nulls of the pass, the member's name
    /// compared as the renamings before the rule leave it (`ContainerPass.takeMember(_:)`). An
    /// object without the member, or empty, takes its tokens (`onMissing`), and so does a
    /// `null` or another value selected; so does every object where a step that is not a
    /// renaming comes before or after the hoist. Bytes as the whole tree's on every route, no
    /// record on its tree.
    @Test(arguments: [
        (#"[{"op":"keyedToArray"},{"op":"hoist","path":"$[*].m","member":"k","onMissing":"null"}]"#, "containers passed"),
        (#"[{"op":"keyedToArray"},{"op":"convertKeys","to":"snake_case"},{"op":"emptyArrayToNull"},{"op":"hoist","path":"$[*].m","member":"k_v","onMissing":"keep"},{"op":"blankStringToNull"}]"#, "containers passed"),
        (#"[{"op":"keyedToArray"},{"op":"emptyObjectToNull"},{"op":"hoist","path":"$[*].m","member":"kV","onMissing":"null"},{"op":"convertKeys","to":"snake_case"}]"#, "containers passed"),
        (#"[{"op":"keyedToArray"},{"op":"hoist","path":"$[*].m","member":"k","onMissing":"keep"},{"op":"remove","path":"$..a"}]"#, "copies given back"),
        (#"[{"op":"keyedToArray"},{"op":"hoist","path":"$[*].items[*]","member":"k","onMissing":"null"}]"#, "containers passed"),
    ])
    func hoistOnTheText(_ spec: String, _ outcome: String) throws {
        let records = #"""
            {"r1": {"m": {"k": 1, "kV": {"aB": [], "a": ""}}, "n": 1},
             "r2": {"m": {"x": [1, {"y": {}}], "\u006b": "s", "kV": 2.50}, "z": "q"},
             "r3": {"m": {"k": [], "kV": {}}, "items": [{"k": {}, "kV": []}, {"k": "", "kV": "  "}]},
             "r4": {"m": {"kV": 1}, "items": [{"k": 2}, null]},
             "r5": {"m": null, "items": [{"kV": 1}]},
             "r6": {"m": {}, "items": []},
             "r7": {"m": {"k": 1, "j": {"a": 1, "x": 2}}}}
            """#
        try Self.expectRecordsOnTheFilters(spec, records, seeing: [outcome])
        // Names the renamings before the hoist make collide, a duplicate, a missing member, a
        // value of another kind, objects nested.
        let others = [
            #"{"r0": {"m": {"k": 1}}, "r1": {"m": {"k": 1, "aB": 1, "a_b": 2}}}"#,
            #"{"r0": {"m": {"k": 1}}, "r1": {"m": {"k": 1, "k": 2}}}"#,
            #"{"r0": {"m": {"k": 1}}, "r1": {"m": {"k": 1, "x": {"k": 1, "k": 2}}}}"#,
            #"{"r0": {"m": {"k": 1}}, "r1": {"m": [{"k": 1}]}, "r2": {"m": "s"}}"#,
            #"{"r0": {"m": {"k": 1}}, "r1": {"m": {"k": {"m": {"k": 2}}}}}"#,
            #"{"r0": {"m": {"k": 1}}, "r1": {"m": {"j": 1}}}"#,
        ]
        try Self.expectTakenAsTheTree(spec, others: others, records: records, selecting: "m")
    }

    /// A value edit at `$..name` on the text meets a value it cannot edit there (a container,
    /// two edits of one value) in a container the filters agreed to pass: the copy is given back,
    /// and the container takes its tokens, which the op's filter edits. Bytes as the whole
    /// tree's on every route; no record on its tree.
    @Test(arguments: [
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].avatar.url"},{"op":"mapValues","path":"$..profile","cases":[[{},"none"],[{"a":1},"A"]],"onOther":"keep"}]"#,
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].avatar.url"},{"op":"coerce","path":"$..profile","to":"number","onFail":"keep"}]"#,
        #"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].avatar.url"},{"op":"blankStringToNull","path":"$..profile"},{"op":"mapValues","path":"$..profile","cases":[[{"a":1},"A"]]}]"#,
    ])
    func valueEditsGiveContainersBackToTheFilters(_ spec: String) throws {
        let records = #"""
            {"r1": {"avatar": {"url": "u", "meta": {"deep": [{"profile": {"a": 1}}, {"profile": 2}]}, "sizes": {"s": [1]}}, "profile": {}},
             "r2": {"avatar": {"url": "v", "meta": {"x": [{"pro\u0066ile": {}}], "profile": ""}}, "profile": {"a": 1}},
             "r3": {"avatar": {"url": "w", "meta": {"profile": "12"}, "sizes": {"s": []}}, "profile": 3}}
            """#
        try Self.expectRecordsOnTheFilters(spec, records, seeing: ["containers passed", "copies given back"])
    }

    /// Containers compared as JSON values on a record's tokens (`ValueKey` of tokens, the same
    /// bytes as of a tree): a filter comparing two members, `mapValues` with object and array
    /// cases, selected values inside selected ones mapped first, members in another order, and
    /// numbers equal by value. Bytes as the whole tree's on every route, and no record takes its
    /// tree; a value no case matches with `onOther: "error"` is the whole tree's error.
    @Test(arguments: [
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].items[?@.n == @.m]"}]"#, #"{"r1": {"items": [{"n": {"a": 1, "b": [2]}, "m": {"b": [2.0], "a": 1}}, {"n": [1], "m": [2]}]}, "r2": {"items": [{"n": 1, "m": 1}, {"n": {}, "m": []}]}}"#),
        (#"[{"op":"keyedToArray"},{"op":"mapValues","path":"$[*].s","cases":[[{"a":[1]},"A"],[[],"empty"],[{},null]]}]"#, #"{"r1": {"s": {"a": [1.0]}}, "r2": {"s": []}, "r3": {"s": {"a": [1, 2]}}, "r4": {"s": {}}, "r5": {"s": "x"}}"#),
        (#"[{"op":"keyedToArray"},{"op":"mapValues","path":"$[*]..*","cases":[[1,"one"],[["one","one"],"pair"],[{"k":"one"},"K"]],"onOther":"keep"}]"#, #"{"r1": {"a": [1, 1], "b": {"k": 1}, "c": [[1, 1e0]]}, "r2": {"a": [1, 2], "b": {"k": 2, "j": 1}}}"#),
        (#"[{"op":"keyedToArray"},{"op":"mapValues","path":"$[*].s","cases":[[{"x":"\u00e9","y":null},1]],"onOther":"null"}]"#, #"{"r1": {"s": {"y": null, "x": "é"}}, "r2": {"s": {"x": "e", "y": null}}, "r3": {"s": [true]}}"#),
    ])
    func containersCompareOnTokens(_ spec: String, _ records: String) throws {
        try Self.expectRecordsOnTheFilters(spec, records)
    }

    /// `keyedToArray` inside records with `nonObject` `skip` or `wrap`, on numbered records (an
    /// array, `null` holes skipped) and with `onConflict: overwrite`: on the filters, no record
    /// takes its tree (Firebase sets, `{"uid": true}`, are the common case). `onConflict: keep`
    /// and the errors stay the tree's, with the same bytes or error.
    @Test(arguments: [
        (#"[{"op":"keyedToArray"},{"op":"keyedToArray","path":"$[*].m","nonObject":"wrap"}]"#, false),
        (#"[{"op":"keyedToArray"},{"op":"keyedToArray","path":"$[*].m","nonObject":"skip","wrapIn":"w"}]"#, false),
        (#"[{"op":"keyedToArray"},{"op":"keyedToArray","path":"$[*].m","nonObject":"wrap","valueKey":"v","idKey":"k"},{"op":"convertKeys","to":"snake_case"}]"#, false),
        (#"[{"op":"keyedToArray"},{"op":"keyedToArray","path":"$[*].m","onConflict":"overwrite","nonObject":"skip"}]"#, true),
        (#"[{"op":"keyedToArray"},{"op":"keyedToArray","path":"$[*].m","nonObject":"wrap"},{"op":"remove","path":"$[*].m[*].x"}]"#, false),
    ])
    func keyedToArrayInsideRecordsSkipsWrapsAndNumbersOnTheFilters(_ spec: String, _ overwrites: Bool) throws {
        // With `overwrite`, records holding the id member (`"own"`, an object).
        let id = overwrites ? #""id": {"q": [1]}, "# : ""
        let owned = overwrites ? #", "id": "own""# : ""
        let records = """
            {"r1": {"m": {"a": true, "b": {"x": 1}, "c": [1, {"y": 2}], "d": null, "e": "s", "f": {\(id)"x": []}}, "z": 1},
             "r2": {"m": {}}, "r3": {"m": null, "z": [1]},
             "r4": {"m": [{"x": 1}, null, {"y": 2\(owned)}, 3, [4, [5]], null]}, "r5": {"m": [null]}}
            """
        try Self.expectRecordsOnTheFilters(spec, records)
        let others = [
            #"{"r1": {"m": {"a": {"id": 1, "x": 2}, "b": {"x": 3}}}, "r2": {"m": [{"id": 4}]}}"#,
            #"{"r1": {"m": {"a": {"\u0069d": 1, "x": 2}}}}"#,
            #"{"r1": {"m": {"a": {"m": {"b": 1}}}}}"#,
            #"{"r1": {"m": 5}}"#,
        ]
        for other in others {
            for rules in [spec, spec.replacingOccurrences(of: "overwrite", with: "keep"), #"[{"op":"keyedToArray"},{"op":"keyedToArray","path":"$[*]..m","nonObject":"wrap"}]"#] {
                #expect(Self.compare(try Rules(json: rules), Array(other.utf8), context: "rules \(rules) input \(other)"))
            }
        }
    }

    /// `records` (a keyed collection, or an array of records) through `spec` on every route
    /// gives the whole tree's bytes, every record reshaped by the filters: none takes its tree;
    /// and each outcome in `seeing` came at least once (see `StreamSettings.outcome`).
    static func expectRecordsOnTheFilters(_ spec: String, _ records: String, seeing: [String] = []) throws {
        let rules = try Rules(json: spec)
        let outcomes = Outcomes()
        #expect(compare(rules, Array(records.utf8), outcomes: outcomes, context: "rules \(spec)"))
        let counts = outcomes.counts()
        for outcome in seeing { #expect(counts[outcome, default: 0] > 0, "\(spec): \(outcome) never came: \(counts)") }
        #expect(counts["record trees", default: 0] == 0 && counts["failed", default: 0] == 0, "\(spec): \(counts)")
        #expect(counts["rerun", default: 0] == 0, "\(spec): \(counts)")
    }

    /// Indices and slices counted from the end, and slices stepping backwards, inside records:
    /// each array the path steps into by its length is held and counted (`LengthGate`), and no
    /// record takes its tree; bytes as the whole tree's, on every route. Nested arrays, unions
    /// with indices from the start, empty and short arrays, arrays that rules before change,
    /// a record that is an array, and a descendant segment.
    @Test(arguments: [
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].tags[-1]"}]"#, #"{"r1": {"tags": [1, 2]}, "r2": {"tags": ["x"]}, "r3": {"tags": []}}"#),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].tags[-2:]"}]"#, #"{"r1": {"tags": [1, 2, 3]}, "r2": {"tags": ["x"]}, "r3": {"tags": {"a": 1}}}"#),
        (#"[{"op":"keyedToArray"},{"op":"coerce","path":"$[*].tags[::-1]","to":"string"}]"#, #"{"r1": {"tags": [1, 2, 3]}, "r2": {"tags": [true, null]}}"#),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].t[::-2]"}]"#, #"{"r1": {"t": [0, 1, 2, 3, 4]}, "r2": {"t": [0, 1, 2, 3]}, "r3": {"t": [0]}}"#),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].t[:-1]"}]"#, #"{"r1": {"t": [0, 1, 2]}, "r2": {"t": [[1, 2], {"a": [3]}]}}"#),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].t[-1][-1]"}]"#, #"{"r1": {"t": [[1, 2], [3, [4, 5]]]}, "r2": {"t": [[], [6]]}, "r3": {"t": [7]}}"#),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].t[0,-1]"}]"#, #"{"r1": {"t": [0, 1, 2]}, "r2": {"t": [0]}, "r3": {"t": []}}"#),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].t[-5:5:2]"}]"#, #"{"r1": {"t": [0, 1, 2, 3, 4, 5, 6, 7]}, "r2": {"t": [0, 1]}}"#),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*].t[-1]"},{"op":"remove","path":"$[*].t[-1]"}]"#, #"{"r1": {"t": [0, 1, 2]}, "r2": {"t": [0]}}"#),
        (#"[{"op":"keyedToArray"},{"op":"default","path":"$[*].g[-1]","key":"role","value":"member"}]"#, #"{"r1": {"g": [{"id": 1}, {"id": 2, "role": null}]}, "r2": {"g": [{"role": "x"}]}}"#),
        (#"[{"op":"keyedToArray"},{"op":"renameKeys","path":"$[*].g[-2:]","map":{"id":"key"}}]"#, #"{"r1": {"g": [{"id": 1}, {"id": 2}, {"id": 3}]}}"#),
        (#"[{"op":"keyedToArray"},{"op":"remove","path":"$[*]..[-1]"}]"#, #"{"r1": {"a": [1, [2, 3]], "b": {"c": [4, 5]}}, "r2": {"a": []}}"#),
        (#"[{"op":"keyedToArray","path":"$.users"},{"op":"remove","path":"$.users[*].t[-1]"}]"#, #"{"users": {"u1": {"t": [1, 2]}, "u2": {"t": [3]}}, "n": 2}"#),
        (#"[{"op":"remove","path":"$[*][-1]"}]"#, #"[[1, 2], [3], [], [4, [5, 6]]]"#),
        (#"[{"op":"keyedToArray"},{"op":"hoist","path":"$[*].g[-1]","member":"n","onMissing":"null"}]"#, #"{"r1": {"g": [{"n": 1}, {"n": 2}]}, "r2": {"g": [{"m": 1}]}}"#),
    ])
    func indicesFromTheEndStreamInsideRecords(_ spec: String, _ records: String) throws {
        try Self.expectRecordsOnTheFilters(spec, records)
    }

    /// Seeded random filter selectors (comparisons, `&&`, `||`, `!`, existence, the five
    /// functions) at the places a filter can stand in a record (the record, a member, an element,
    /// below `..`), under every op that takes a path: the record filters (`FilterGate`) give the
    /// whole tree's bytes or error, and most records never take their tree.
    @Test func randomFiltersInRecordsAgreeWithTheTree() throws {
        var random = SeededGenerator(seed: 31_415)
        func query() -> String { random.pick(["@", "@.k", "@.n", "@.url", "@.x_y", "@.n.x", "@.n.x[0]", "@[0]", "@.firstName"]) }
        func literal() -> String { random.pick(["1", "7", "'a'", "''", "' '", "true", "null", "1.0", "-0", "12.50", "'u'"]) }
        func test(_ depth: Int) -> String {
            switch depth > 1 ? random.next(4) : random.next(8) {
            case 0: return "\(query()) \(random.pick(["==", "!=", "<", "<=", ">", ">="])) \(literal())"
            case 1: return query()
            case 2: return random.pick(["length(@.k) == 1", "count(@.*) > 1", "match(@.k, '[a-z]')", "search(@.url, 'x')", "value(@.n) == 1", "length(@) >= 2"])
            case 3: return "\(query()) == \(query())"
            case 4: return "\(test(depth + 1)) && \(test(depth + 1))"
            case 5: return "\(test(depth + 1)) || \(test(depth + 1))"
            case 6: return "!(\(test(depth + 1)))"
            default: return "!\(query())"
            }
        }
        var records = 0
        var onTree = 0
        for round in 0..<60 {
            let filter = "?" + test(0)
            let path = random.pick([
                "$[*][\(filter)]", "$[*].items[\(filter)]", "$[*].items[\(filter)].n", "$[?\(test(0))]", "$[*]..[\(filter)]",
                "$[*].friends[\(filter)]", "$[*].tags[0, \(filter)]", "$[?\(test(0))].profile",
            ]).replacingOccurrences(of: "\"", with: "\\\"")
            let rule = random.pick([
                #"{"op":"remove","path":"\#(path)"}"#, #"{"op":"coerce","path":"\#(path)","to":"string","onFail":"keep"}"#,
                #"{"op":"default","path":"\#(path)","key":"d","value":[1]}"#, #"{"op":"keep","path":"\#(path)","members":["k","url"]}"#,
                #"{"op":"hoist","path":"\#(path)","member":"k","onMissing":"keep"}"#, #"{"op":"pluck","path":"\#(path)","member":"k","onMissing":"skip"}"#,
                #"{"op":"mapValues","path":"\#(path)","cases":[["a","A"],[1,"one"],[{"x":[2]},"X"],[[],"E"]]}"#, #"{"op":"emptyObjectToNull","path":"\#(path)"}"#,
                #"{"op":"convertKeys","path":"\#(path)","to":"camelCase","deep":true}"#, #"{"op":"flatten","path":"\#(path)","member":"n","prefix":"n_"}"#,
                #"{"op":"blankStringToNull","path":"\#(path)"}"#, #"{"op":"remove","path":"\#(path)","matching":"k|x_.*"}"#,
            ])
            let spec = #"[{"op":"keyedToArray"},\#(rule)]"#
            guard let rules = try? Rules(json: spec) else {
                Issue.record("round \(round): rules refused: \(spec)")
                continue
            }
            let outcomes = Self.compareOnCleanRecords(rules, seed: UInt64(round), context: spec)
            let counts = outcomes.counts()
            records += counts["streamed", default: 0]
            onTree += counts["record trees", default: 0]
            #expect(counts["rerun", default: 0] == 0, "\(spec): \(counts)")
        }
        #expect(records > 100 && onTree < records, "\(records) streamed runs, \(onTree) records on their tree")
    }

    /// Three keyed payloads of `cleanRecord`s from `seed`, compared through every route; the
    /// outcomes counted.
    static func compareOnCleanRecords(_ rules: Rules, seed: UInt64, context: String) -> Outcomes {
        var random = SeededGenerator(seed: seed)
        let outcomes = Outcomes()
        for round in 0..<3 {
            let records = (0..<(60 + random.next(100))).map { #""r\#($0)": \#(cleanRecord(&random))"# }
            let input = Array(("{" + records.joined(separator: ",") + "}").utf8)
            #expect(compare(rules, input, outcomes: outcomes, context: "round \(round) rules \(context)"))
        }
        return outcomes
    }

    /// A Firebase-style record no rule of `perRecordRulesStreamOnTheirText` fails on.
    static func cleanRecord(_ random: inout SeededGenerator) -> String {
        let scalars = [
            #""Zoë \"quoted\" {not: [json]} \\ end""#, #""""#, #""  ""#, "-0", "12.50", "1e400", "123456789012345678901234567890",
            "true", "false", "null", #""\u00e9\ud83d\ude00""#, "7", #""12""#, #""true""#, "2.5e-3",
        ]
        func value(_ depth: Int) -> String {
            switch depth < 3 ? random.next(6) : 0 {
            case 1: return "{}"
            case 2: return "[" + (0..<random.next(3)).map { _ in value(depth + 1) }.joined(separator: ",") + "]"
            case 3: return "{\"x_y\": \(value(depth + 1)), \"url\": \(value(depth + 1))}"
            default: return random.pick(scalars)
            }
        }
        var members = [
            "\"displayName\": \(random.pick([#""Zoë""#, #""O'Brien \"Q\"""#, #""""#]))",
            "\"createdAt\": \(random.pick(["1700000000000", "17.5", "\"x\"", "null"]))",
            "\"score\": \(random.pick(["317.75", "308.0", "12", "\"12\"", "null", "1e2"]))",
            "\"flag\": \(random.pick(["true", "\"false\"", "1", "null"]))",
            "\"plan\": \(random.pick(["\"free\"", "\"\"", "\" \"", "null"]))",
            "\"avatar\": \(random.pick(["{}", #"{"url": "https://x", "width": 128}"#, "null"]))",
            "\"tags\": \(random.pick(["[]", #"["a", "b"]"#, #"[{"url": "u"}]"#]))",
            "\"profile\": {\"firstName\": \(value(1)), \"city\": \(value(1)), \"inner_obj\": \(value(1))}",
            "\"friends\": \(random.pick(["{}", "null", #"{"f1": {"n": 1}, "f2": {"url": {}}}"#]))",
            "\"lastLogin\": \(value(0))",
            "\"items\": \(random.pick(["[]", #"[{"k": "a", "n": 1}, {"n": {"x": [2]}, "k": 7}]"#, #"[{"k": "\u00e9\"q"}]"#]))",
        ]
        members.shuffle(using: &random)
        return "{" + members.prefix(4 + random.next(7)).joined(separator: random.next(2) == 0 ? "," : " ,\n  ") + "}"
    }

    @Test func randomDocumentsAndRules() throws {
        let outcomes = Outcomes()
        defer {
            let counts = outcomes.counts()
            #expect(counts["text", default: 0] > 0, "\(counts)")
            #expect(counts["failed", default: 0] > 0, "\(counts)")
            #expect(counts["rerun", default: 0] == 0, "\(counts)")
        }
        var random = SeededGenerator(seed: 24_681)
        var compared = 0
        var streamable = 0
        for _ in 0..<3000 {
            let input = Array(RandomJSON.value(&random, depth: 0).utf8)
            let spec = "[" + (0..<(1 + random.next(4))).map { _ in RandomJSON.rule(&random) }.joined(separator: ",") + "]"
            guard let rules = try? Rules(json: spec) else { continue }
            var options: ApplyOptions = []
            if random.next(4) == 0 { options.insert(.pretty) }
            guard Self.compare(rules, input, options: options, outcomes: outcomes, context: "rules \(spec)") else { return }
            compared += 1
            let plan = rules.streamingPlan
            if plan.object > 0 || plan.array > 0 { streamable += 1 }
        }
        #expect(compared > 2000)
        #expect(streamable > 500)
    }

    /// Seeded record collections whose objects hold names that renamings make of each other
    /// (`a_b` and `aB`, `fooBar` and `foo_bar`), through rule lists that rename, move or make
    /// names and then drop members or values: a name made twice fails as on the tree, whatever
    /// the rules after drop.
    @Test func randomRecordsWithCollidingNames() throws {
        let outcomes = Outcomes()
        defer {
            let counts = outcomes.counts()
            #expect(counts["streamed", default: 0] > 150, "\(counts)")
            #expect(counts["failed", default: 0] > 50 && counts["rerun", default: 0] == 0, "\(counts)")
        }
        let paths = ["$[*]", "$[*].*", "$[*].a_b", "$[*].aB", "$..aB", "$[*].x", "$[*].*.fooBar", "$[*].a", "$[*][?@.aB]", "$[*].data[*]"]
        var random = SeededGenerator(seed: 97_531)
        /// A rule that renames, moves or makes names (`makesNames`), or any rule of the list.
        func rule(makesNames: Bool = false) -> String {
            let path = random.pick(paths)
            switch random.next(makesNames ? 4 : 10) {
            case 0: return #"{"op":"convertKeys","to":"\#(random.pick(["camelCase", "snake_case"]))","path":"\#(path)"}"#
            case 1: return #"{"op":"renameKeys","map":{"x":"aB","a":"a_b"},"path":"\#(path)"}"#
            case 2: return #"{"op":"flatten","path":"\#(path)","member":"\#(random.pick(["a", "data", "x"]))"}"#
            case 3: return #"{"op":"arrayToKeyed","path":"$[*].data","idKey":"\#(random.pick(["id", "a"]))"}"#
            case 4, 5: return #"{"op":"remove","path":"\#(path)"}"#
            case 6: return #"{"op":"keep","path":"\#(path)","members":["x","fooBar"]}"#
            case 7: return #"{"op":"hoist","path":"\#(path)","member":"x","onMissing":"null"}"#
            case 8: return #"{"op":"coerce","path":"\#(path)","to":"number","onFail":"null"}"#
            default: return #"{"op":"remove","path":"\#(path)","matching":"a.*"}"#
            }
        }
        /// An object of a few members whose names often collide once renamed.
        func object(_ depth: Int) -> String {
            let names = ["a_b", "aB", "x", "fooBar", "foo_bar", "a", "data", "id"]
            var used = Set<String>()
            let members = (0..<(1 + random.next(5))).compactMap { _ -> String? in
                let name = random.pick(names)
                guard used.insert(name).inserted else { return nil }
                let value = depth < 2 && random.next(3) == 0
                    ? object(depth + 1) : RandomJSON.value(&random, depth: 2 + depth, names: RandomJSON.collidingNames)
                return #""\#(name)": \#(value)"#
            }
            return "{" + members.joined(separator: ", ") + "}"
        }
        for _ in 0..<400 {
            let records = (0..<(2 + random.next(6))).map { index in
                #""r\#(index)": \#(random.next(8) == 0 ? RandomJSON.value(&random, depth: 2) : object(0))"#
            }
            let input = Array(("{" + records.joined(separator: ", ") + "}").utf8)
            let spec = #"[{"op":"keyedToArray","nonObject":"wrap"},"# + ([rule(makesNames: true)] + (0..<(1 + random.next(2))).map { _ in rule() })
                .joined(separator: ",") + "]"
            guard let rules = try? Rules(json: spec) else { continue }
            guard Self.compare(rules, input, outcomes: outcomes, context: "rules \(spec)") else { return }
        }
    }
}

/// Errors reported by a callback, in the order reported.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [ReshapeError] = []

    func add(_ error: ReshapeError) {
        lock.lock()
        list.append(error)
        lock.unlock()
    }

    func errors() -> [ReshapeError] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
}

/// How streaming runs went, counted (from several threads).
final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var tally: [String: Int] = [:]

    func add(_ outcome: String) {
        lock.lock()
        tally[outcome, default: 0] += 1
        lock.unlock()
    }

    func counts() -> [String: Int] {
        lock.lock()
        defer { lock.unlock() }
        return tally
    }
}
