import Foundation
import ReshapeCore
import Testing

/// The hostile inputs and rules that used to kill the host process, hang or lose data (issue 8's
/// table): each now gives its exact result or a clean error. Fixtures hold the small cases; these
/// are the ones too large to keep as files, or that need a small thread stack or other limits.
/// (The C suite runs the fixtures and these depths on a 64 KiB stack too, with the release library.)
@Suite struct HostileInputTests {
    /// Runs `body` on a new thread with a stack of `bytes` (64 KiB: half of musl's default, the
    /// smallest any platform gives), and returns what it returned.
    static func onSmallStack<T: Sendable>(_ bytes: Int = 64 << 10, _ body: @escaping @Sendable () -> T) -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            box.value = body()
            done.signal()
        }
        thread.stackSize = bytes
        thread.start()
        done.wait()
        return box.value!
    }

    final class ResultBox<T>: @unchecked Sendable {
        var value: T?
    }

    static func wraps(_ count: Int, then extra: String = "") -> String {
        "[" + Array(repeating: #"{"op":"wrap","key":"w"}"#, count: count).joined(separator: ",") + extra + "]"
    }

    // Row 2: nested descendant segments on deep input.

    @Test func nestedDescendantSegmentsCostWhatOneDoes() throws {
        let arrays = String(repeating: "[", count: 400) + String(repeating: "]", count: 400)
        let rules = try Rules(json: #"[{"op": "emptyObjectToNull", "path": "$..*..*..*"}]"#)
        #expect(try rules.apply(to: arrays) == arrays)
        let objects = String(repeating: #"{"a":"#, count: 400) + "{}" + String(repeating: "}", count: 400)
        let nulled = String(repeating: #"{"a":"#, count: 400) + "null" + String(repeating: "}", count: 400)
        #expect(try rules.apply(to: objects) == nulled)
    }

    @Test func unwrapKeepsRFCDuplicatesUpToTheSelectionLimit() throws {
        // A chain of 60 arrays: $..*..* reaches the one at depth d once per ancestor below the
        // root, 1 + 2 + ... + 58 = 1711 times.
        let chain = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        let output = try Rules(json: #"[{"op": "unwrap", "path": "$..*..*"}]"#).apply(to: Array(chain.utf8))
        #expect(try JSONValue(json: output).arrayValue?.count == 1711)
        let limited = try Rules(json: #"[{"op": "unwrap", "path": "$..*..*"}]"#, limits: Limits(maxSelected: 1000))
        #expect(throws: ReshapeError(.limitExceeded, #"the path "$..*..*" reaches more than 1000 values (the selection limit)"#, rule: 1, op: "unwrap")) {
            try limited.apply(to: chain)
        }
    }

    // Rows 3, 4 and 5: depth from rules and from input, on a 64 KiB stack.

    @Test func thousandsOfWrapsAreLimitedByTheRulesSizeAndTheOutputDepth() throws {
        let spec = Self.wraps(200_000)
        #expect(throws: ReshapeError(.invalidRules, "the rules document has \(spec.utf8.count) bytes, more than 1048576 (the rules size limit)")) {
            try Rules(json: spec)
        }
        let bigger = try Rules(json: spec, limits: Limits(maxRulesBytes: 8 << 20))
        #expect(throws: ReshapeError(.limitExceeded, "the output would nest deeper than 1000 levels (the depth limit)")) {
            try bigger.apply(to: "1")
        }
    }

    @Test func wrapsBeyondAnyStackAreBuiltRenamedWrittenAndFreedOnASmallStack() throws {
        let count = 200_000
        let limits = Limits(maxDepth: 300_000, maxRulesBytes: 8 << 20)
        let rules = try Rules(json: Self.wraps(count, then: #",{"op":"convertKeys","to":"snake_case"}"#), limits: limits)
        let output = Self.onSmallStack { Result { () throws(ReshapeError) in try rules.apply(to: "1") } }
        let expected = String(repeating: #"{"w":"#, count: count) + "1" + String(repeating: "}", count: count)
        #expect(try output.get() == expected)
        // Pretty output of such a document grows with depth squared: the output limit stops it.
        let pretty = Self.onSmallStack { Result { () throws(ReshapeError) in try rules.apply(to: "1", options: .pretty) } }
        #expect(throws: ReshapeError(.limitExceeded, "the output would be larger than 67108864 bytes (the output limit)")) {
            try pretty.get()
        }
    }

    @Test func inputAtTheDepthLimitGoesThroughEveryOpOnASmallStack() throws {
        let depth = Limits.defaultMaxDepth
        // 998 wrappers around {"zz":{}}: 1000 levels.
        let objects = String(repeating: #"{"a_b":"#, count: depth - 2) + #"{"zz":{}}"# + String(repeating: "}", count: depth - 2)
        let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let cases: [(rules: String, input: String, output: String)] = [
            (#"[{"op":"convertKeys"}]"#, objects,
             String(repeating: #"{"aB":"#, count: depth - 2) + #"{"zz":{}}"# + String(repeating: "}", count: depth - 2)),
            (#"[{"op":"remove","path":"$..zz"}]"#, objects,
             String(repeating: #"{"a_b":"#, count: depth - 2) + "{}" + String(repeating: "}", count: depth - 2)),
            (#"[{"op":"emptyObjectToNull"},{"op":"renameKeys","map":{"a_b":"c"},"deep":true}]"#, objects,
             String(repeating: #"{"c":"#, count: depth - 2) + #"{"zz":null}"# + String(repeating: "}", count: depth - 2)),
            (#"[{"op":"unwrap","path":"$..zz"}]"#, objects, "[{}]"),
            (#"[{"op":"coerce","path":"$..*","to":"string","onFail":"null"}]"#, arrays, "[null]"),
            (#"[{"op":"keyedToArray","path":"$..*","nonObject":"skip"},{"op":"unwrap","path":"$[0]"}]"#, arrays, "[]"),
            (#"[]"#, arrays, arrays),
        ]
        for (spec, input, output) in cases {
            let rules = try Rules(json: spec)
            let result = Self.onSmallStack { Result { () throws(ReshapeError) in try rules.apply(to: input) } }
            #expect(try result.get() == output, "\(spec)")
            let pretty = Self.onSmallStack { Result { () throws(ReshapeError) in try rules.apply(to: input, options: .pretty) } }
            #expect(try JSONValue(json: try pretty.get()) == JSONValue(json: output), "\(spec) pretty")
        }
        // A rule failing at the depth limit, after a rule renamed everything above: traced to the
        // input on the small stack too.
        let failing = try Rules(json: #"[{"op":"renameKeys","map":{"a_b":"c"},"deep":true},{"op":"coerce","path":"$..zz","to":"number"}]"#)
        let failed = Self.onSmallStack { Result { () throws(ReshapeError) in try failing.apply(to: objects) } }
        guard case .failure(let error) = failed else {
            Issue.record("expected coerce to fail on {}")
            return
        }
        #expect(error.path == "$" + String(repeating: "['c']", count: depth - 2) + "['zz']")
        #expect(error.source?.path == "$" + String(repeating: "['a_b']", count: depth - 2) + "['zz']")
        #expect(error.source?.position == 7 * (depth - 2) + 6)
        // One level more is a limit, found by the parser before anything is built.
        let tooDeep = "[" + arrays + "]"
        let result = Self.onSmallStack { Result { () throws(ReshapeError) in try Rules(json: "[]").apply(to: tooDeep) } }
        #expect(throws: ReshapeError.self) { try result.get() }
    }

    // Row 9: descendants then a name, on a large object.

    /// A filter that reads the whole document for each element is quadratic: the work limit stops
    /// it, with its error, at once; filters that compare small containers or search strings stay
    /// within it.
    @Test func quadraticFiltersMeetTheWorkLimit() throws {
        let input = "[" + (0..<20_000).map { #"{"x":\#($0),"y":[\#($0),{"z":"\#($0)"}]}"# }.joined(separator: ",") + "]"
        for path in ["$[?count($..*) > 0 && @.x]", "$[?@ == $[-1]]", "$[?@.y == $[-1].y]", "$..[?search(@, '1.*2')]"] {
            let quotedPath = String(decoding: try JSONValue.string(path).json(), as: UTF8.self)
            let rules = try Rules(json: #"[{"op":"remove","path":\#(quotedPath)}]"#, limits: Limits(maxWork: 2_000_000))
            let started = ContinuousClock.now
            let result = Result { () throws(ReshapeError) in try rules.apply(to: input) }
            #expect(ContinuousClock.now - started < .seconds(5), "\(path)")
            if case .failure(let error) = result {
                #expect(error == ReshapeError(.limitExceeded, "the rules need more than 2000000 steps of work on this document (the work limit)"))
            } else if path.contains("count") {
                Issue.record("\(path) finished within the work limit")
            }
        }
    }

    @Test func descendantsThenANameOnALargeObjectStayLinear() throws {
        // The work limit holds each rule to a few steps per value (scans of an object's members are
        // steps too); finding each match's position by scanning the large object, as before, took
        // 28.7 s for 40k members.
        let count = 40_000
        let linear = Limits(maxWork: 10 * count)
        let input = "{" + (0..<count).map { #""m\#($0)":{"x":\#($0)}"# }.joined(separator: ",") + "}"
        let unwrapped = try Rules(json: #"[{"op":"unwrap","path":"$..*.x"}]"#, limits: linear).apply(to: input)
        #expect(unwrapped == "[" + (0..<count).map(String.init).joined(separator: ",") + "]")
        // Edits need document order (the later location first at equal depth): still linear.
        let failing = "{" + (0..<count).map { #""m\#($0)":{"x":"n\#($0)"}"# }.joined(separator: ",") + "}"
        #expect(throws: ReshapeError(
            .ruleFailed, #"cannot coerce the string "n39999" to a number"#, rule: 1, op: "coerce", path: "$['m39999']['x']")) {
            try Rules(json: #"[{"op":"coerce","path":"$..*.x"}]"#, limits: linear).apply(to: failing)
        }
    }

    // Row 14: a huge name in the path of an error.

    @Test func aHugeNameInAFailingPathKeepsTheMessageShort() throws {
        let name = String(repeating: "n", count: 2_000_000)
        let input = #"{""# + name + #"": "x"}"#
        let result = Result { () throws(ReshapeError) in try Rules(json: #"[{"op":"coerce","path":"$.*"}]"#).apply(to: input) }
        guard case .failure(let error) = result else {
            Issue.record("expected an error")
            return
        }
        #expect(error.path == "$['" + name + "']")
        #expect(error.description == #"rule_failed: rule 1 (coerce) at $['"# + String(repeating: "n", count: 60) + #"…']: cannot coerce the string "x" to a number"#)
    }
}
