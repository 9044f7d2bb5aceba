import FixtureSupport
import Foundation
import ReshapeCore
import Testing

/// The record-streaming engine must give the same bytes or the same error (code, rule, path,
/// line, column) as the whole tree: on every fixture, on generated record payloads, and on seeded
/// random documents and rule lists, with one thread and with several (batches of two records, so
/// that many batches cross threads).
@Suite struct StreamingDifferentialTests {
    static let settings = [
        StreamSettings(jobs: 1),
        StreamSettings(jobs: 3),
        StreamSettings(jobs: 2),
    ].enumerated().map { offset, base in
        var settings = base
        settings.strict = true
        settings.batchRecords = [4096, 2, 1][offset]
        settings.outcome = { outcome in Outcomes.shared.add(outcome) }
        return settings
    }

    /// Compares both engines; returns false (after recording the difference) when they differ.
    @discardableResult
    static func compare(_ rules: Rules, _ input: [UInt8], options: ApplyOptions = [], context: String) -> Bool {
        let whole = Result { () throws(ReshapeError) in try rules.applyWholeTree(to: input, options: options) }
        for settings in settings {
            let streamed = Result { () throws(ReshapeError) in try rules.apply(to: input, options: options, settings: settings) }
            let same: Bool
            switch (whole, streamed) {
            case (.success(let a), .success(let b)): same = a == b
            case (.failure(let a), .failure(let b)): same = a == b
            default: same = false
            }
            if !same {
                Issue.record(
                    "\(context) jobs \(settings.jobs)\ninput \(String(decoding: input.prefix(600), as: UTF8.self))\nwhole \(whole.map { String(decoding: $0, as: UTF8.self) })\nstreamed \(streamed.map { String(decoding: $0, as: UTF8.self) })")
                return false
            }
        }
        return true
    }

    @Test(arguments: Fixture.all)
    func fixture(_ fixture: Fixture) throws {
        // Fixtures about invalid rules documents never reach either engine.
        guard let rules = try? Rules(json: fixture.rules) else { return }
        Self.compare(rules, fixture.input, options: ApplyOptions(rawValue: fixture.flags), context: fixture.name)
    }

    /// Rule lists real API clients use: every one of them streams all its rules (checked below).
    static let recordRules = [
        #"[{"op":"keyedToArray","idKey":"id","wrapIn":"users"},{"op":"emptyObjectToNull"},{"op":"blankStringToNull"},{"op":"convertKeys","to":"snake_case"}]"#,
        #"[{"op":"keyedToArray"},{"op":"coerce","path":"$..price","to":"number"},{"op":"remove","path":"$[*].debug"},{"op":"default","path":"$[*]","key":"tags","value":[]}]"#,
        #"[{"op":"emptyObjectToNull"},{"op":"keyedToArray","idKey":"uid","onConflict":"overwrite","nonObject":"skip"}]"#,
        #"[{"op":"unwrap","path":"$.data"},{"op":"convertKeys","to":"camelCase"},{"op":"blankStringToNull","trim":true},{"op":"wrap","key":"items"}]"#,
        #"[{"op":"convertKeys","to":"camelCase"},{"op":"unwrap","path":"$.bookList"},{"op":"renameKeys","map":{"displayName":"name"},"deep":true}]"#,
        #"[{"op":"remove","path":"$.data[*].debug"},{"op":"coerce","path":"$.data[*].price","to":"string","onFail":"null"}]"#,
        #"[{"op":"keyedToArray","nonObject":"wrap"},{"op":"coerce","path":"$[*].n","to":"integer"}]"#,
    ]

    /// Rule lists with a rule that needs the whole document after streamed ones.
    static let hybridRules = [
        #"[{"op":"keyedToArray","idKey":"id"},{"op":"emptyObjectToNull"},{"op":"remove","path":"$[-1]"}]"#,
        #"[{"op":"unwrap","path":"$.data"},{"op":"arrayToKeyed","idKey":"id"}]"#,
    ]

    /// A record: names and strings with unicode, escaped quotes and braces, empty objects and
    /// blank strings, numbers of every kind; sometimes a value a rule fails on.
    static func record(_ random: inout SeededGenerator, failing: Bool) -> String {
        let names = ["displayName", "created_at", #"a\"b"#, "ünïcode_名前", "{brace", "price", "n", "debug", "plan", "avatar", "id"]
        let values = [
            #""Zoë \"quoted\" {not: [json]} \\ end""#, #""""#, #""  ""#, "{}", "[]", #"[1, {}, ""]"#, "-0", "12.50", #""12.50""#,
            "1e400", "123456789012345678901234567890", "true", "null", #"{"inner_key": {"deepName": ""}}"#,
            #""\u00e9\ud83d\ude00""#, "7",
        ]
        var members: [String] = []
        var used = Set<String>()
        for _ in 0..<random.next(6) {
            let name = random.pick(names)
            guard used.insert(name).inserted else { continue }
            members.append("\"\(name)\": \(random.pick(values))")
        }
        if failing { members.append(random.pick([#""price": "abc""#, #""n": "x""#, #""id": 1"#])) }
        if random.next(12) == 0 { return random.pick(["{}", "null", "\"text\"", "[1]"]) }
        return "{" + members.joined(separator: random.next(2) == 0 ? "," : " ,\n  ") + "}"
    }

    /// A payload of `count` records: a Firebase object, a top-level array, or an envelope.
    static func payload(_ random: inout SeededGenerator, count: Int) -> String {
        let failAt = random.next(3) == 0 ? random.next(max(count, 1)) : -1
        var ids: [String] = []
        var records: [String] = []
        for index in 0..<count {
            var id = "-N\(random.next(1000))" + random.pick(["", "é", "\\\"q", "\\u0041", "{x}"])
            if random.next(15) == 0, let earlier = ids.last { id = earlier }  // a duplicate id
            ids.append(id)
            records.append((id, record(&random, failing: index == failAt)).1)
        }
        let keyed = "{" + zip(ids, records).map { "\"\($0)\": \($1)" }.joined(separator: ",\n") + "}"
        let array = "[" + records.joined(separator: ", ") + "]"
        var text: String
        switch random.next(4) {
        case 0: text = keyed
        case 1: text = array
        case 2: text = #"{"meta": {"page": 1, "next": ""}, "data": \#(array), "tail": {}}"#
        default: text = #"{"book_list": \#(array), "count": \#(count)}"#
        }
        if random.next(10) == 0 { text = String(text.prefix(max(0, text.count - random.next(40)))) }  // truncated
        return text
    }

    @Test func recordRuleListsStreamEveryRule() throws {
        for spec in Self.recordRules {
            let rules = try Rules(json: spec)
            let plan = rules.streamingPlan
            #expect(max(plan.object, plan.array) == rules.count, "\(spec): \(plan)")
        }
        for spec in Self.hybridRules {
            let rules = try Rules(json: spec)
            let streamed = max(rules.streamingPlan.object, rules.streamingPlan.array)
            #expect(streamed > 0 && streamed < rules.count, "\(spec): \(rules.streamingPlan)")
        }
    }

    @Test func generatedPayloads() throws {
        let before = Outcomes.shared.counts()
        defer {
            let after = Outcomes.shared.counts()
            // Most payloads stream; the rest are invalid, empty or fail a rule (the whole tree
            // names the error), or have no collection where the rules expect one.
            #expect(after["streamed", default: 0] - before["streamed", default: 0] > 600)
            #expect(after["hybrid", default: 0] - before["hybrid", default: 0] > 60)
        }
        var random = SeededGenerator(seed: 13_579)
        for round in 0..<600 {
            let spec = random.pick(Self.recordRules + Self.hybridRules)
            let rules = try Rules(json: spec)
            let input = Array(Self.payload(&random, count: random.next(12)).utf8)
            var options: ApplyOptions = []
            if random.next(4) == 0 { options.insert(.pretty) }
            guard Self.compare(rules, input, options: options, context: "round \(round) rules \(spec)") else { return }
        }
    }

    @Test func randomDocumentsAndRules() throws {
        var random = SeededGenerator(seed: 24_681)
        var compared = 0
        var streamable = 0
        for _ in 0..<3000 {
            let input = Array(RandomJSON.value(&random, depth: 0).utf8)
            let spec = "[" + (0..<(1 + random.next(4))).map { _ in RandomJSON.rule(&random) }.joined(separator: ",") + "]"
            guard let rules = try? Rules(json: spec) else { continue }
            var options: ApplyOptions = []
            if random.next(4) == 0 { options.insert(.pretty) }
            guard Self.compare(rules, input, options: options, context: "rules \(spec)") else { return }
            compared += 1
            let plan = rules.streamingPlan
            if plan.object > 0 || plan.array > 0 { streamable += 1 }
        }
        #expect(compared > 2000)
        #expect(streamable > 500)
    }
}

/// How streaming runs went, counted across the suite (tests run in parallel).
final class Outcomes: @unchecked Sendable {
    static let shared = Outcomes()
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
