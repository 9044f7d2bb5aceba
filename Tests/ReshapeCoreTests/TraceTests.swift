import FixtureSupport
import Foundation
@testable import ReshapeCore
import Testing

/// `Rules.source(of:in:)`: every value of the output traced back to the input, checked against a
/// plain walk of the input: a value the rules moved is, at its traced path, the same value; a
/// member name made a value is that name; a renamed member was, in the input, the first name it
/// was renamed from; and the position points at where that value starts in the text.
@Suite struct TraceTests {
    /// A normalized path's steps: member names and indices.
    enum Step: Equatable {
        case name(String)
        case index(Int)
    }

    /// Reads a normalized path (RFC 9535 §2.7) into its steps.
    static func steps(of path: String) -> [Step]? {
        var scalars = Array(path.unicodeScalars)[...]
        guard scalars.popFirst() == "$" else { return nil }
        var steps: [Step] = []
        while let open = scalars.popFirst() {
            guard open == "[" else { return nil }
            if scalars.first == "'" {
                scalars.removeFirst()
                var name = String.UnicodeScalarView()
                while let scalar = scalars.popFirst(), scalar != "'" {
                    guard scalar == "\\" else {
                        name.append(scalar)
                        continue
                    }
                    switch scalars.popFirst() {
                    case "b": name.append("\u{8}")
                    case "t": name.append("\t")
                    case "n": name.append("\n")
                    case "f": name.append("\u{C}")
                    case "r": name.append("\r")
                    case "u":
                        let hex = String(String.UnicodeScalarView(scalars.prefix(4)))
                        scalars.removeFirst(4)
                        guard let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else { return nil }
                        name.append(scalar)
                    case let other?: name.append(other)
                    case nil: return nil
                    }
                }
                steps.append(.name(String(name)))
            } else {
                var digits = ""
                while let scalar = scalars.first, scalar != "]" {
                    digits.unicodeScalars.append(scalar)
                    scalars.removeFirst()
                }
                guard let index = Int(digits) else { return nil }
                steps.append(.index(index))
            }
            guard scalars.popFirst() == "]" else { return nil }
        }
        return steps
    }

    static func value(at steps: [Step], in root: JSONValue) -> JSONValue? {
        var current: JSONValue? = root
        for step in steps {
            switch step {
            case .name(let name): current = current?.objectValue?.members.last { $0.key == name }?.value
            case .index(let index): current = current?[index]
            }
        }
        return current
    }

    /// Every value of `root` with its normalized path and steps, at most `limit` of them.
    static func values(of root: JSONValue, limit: Int) -> [(path: String, steps: [Step], value: JSONValue)] {
        var found: [(String, [Step], JSONValue)] = []
        var pending: [([Step], JSONValue)] = [([], root)]
        while let (steps, value) = pending.popLast(), found.count < limit {
            var path = NormalizedPath()
            for step in steps {
                switch step {
                case .name(let name): path.append(key: name)
                case .index(let index): path.append(index: index)
                }
            }
            found.append((path.text, steps, value))
            if let object = value.objectValue {
                for member in object.members { pending.append((steps + [.name(member.key)], member.value)) }
            } else if let elements = value.arrayValue {
                for (index, element) in elements.enumerated() { pending.append((steps + [.index(index)], element)) }
            }
        }
        return found
    }

    static func kind(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "bool"
        case .integer, .double, .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// What the first byte of a value of `kind` may be.
    static func starts(_ byte: UInt8, _ kind: String) -> Bool {
        switch kind {
        case "null": byte == UInt8(ascii: "n")
        case "bool": byte == UInt8(ascii: "t") || byte == UInt8(ascii: "f")
        case "number": byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        case "string": byte == UInt8(ascii: "\"")
        case "array": byte == UInt8(ascii: "[")
        default: byte == UInt8(ascii: "{")
        }
    }

    static func extraRule(_ random: inout SeededGenerator) -> String {
        let path = random.pick(["$", "$.*", "$[*]", "$.a", "$..*", "$.*.*", "$[*].a"])
        switch random.next(8) {
        case 6: return #"{"op":"keyedToArray","path":"\#(random.pick(["$", "$.*", "$.a"]))","idKey":"key","nonObject":"skip"}"#
        case 7: return #"{"op":"convertKeys","to":"\#(random.pick(["camelCase", "kebab-case"]))","path":"\#(path)"}"#
        case 0: return #"{"op":"hoist","path":"\#(path)","member":"x","onMissing":"\#(random.pick(["null", "keep"]))"}"#
        case 1: return #"{"op":"pluck","path":"\#(path)","member":"a","onMissing":"\#(random.pick(["skip", "null"]))"}"#
        case 2: return #"{"op":"flatten","path":"\#(path)","member":"a","prefix":"\#(random.pick(["", "p_"]))"}"#
        case 3: return #"{"op":"keep","path":"\#(path)","members":["a","x","id"]}"#
        case 4: return #"{"op":"mapValues","path":"\#(path)","cases":[["x",1],[null,"none"],[true,false]]}"#
        default: return #"{"op":"emptyArrayToNull","path":"\#(path)"}"#
        }
    }

    @Test func everyOutputValueReadsBackInTheInput() throws {
        var random = SeededGenerator(seed: 13_579)
        var counts: [ValueSource.Origin: Int] = [:]
        var renamed = 0
        for _ in 0..<3000 {
            let text = RandomJSON.value(&random, depth: 0)
            let input = Array(text.utf8)
            let spec = "[" + (0..<(1 + random.next(4))).map { _ in
                random.next(3) == 0 ? Self.extraRule(&random) : RandomJSON.rule(&random)
            }.joined(separator: ",") + "]"
            guard let rules = try? Rules(json: spec), let output = try? rules.apply(to: input),
                let reshaped = try? JSONValue(json: output), let original = try? JSONValue(json: input)
            else { continue }
            let values = Self.values(of: reshaped, limit: 30)
            let sources = try rules.sources(of: values.map(\.path), in: input)
            for ((path, outputSteps, value), source) in zip(values, sources) {
                let context = "rules \(spec)\ninput \(text)\noutput path \(path): \(source)"
                counts[source.origin, default: 0] += 1
                if source.origin == .added {
                    #expect(source.rule > 0 && source.path.isEmpty && source.position == 0, "\(context)")
                    continue
                }
                #expect(source.origin == .input ? source.rule == 0 : source.rule > 0, "\(context)")
                guard let steps = Self.steps(of: source.path), let found = Self.value(at: steps, in: original) else {
                    Issue.record("no value at the traced path: \(context)")
                    continue
                }
                let position = source.position
                guard position < input.count else {
                    Issue.record("position past the input: \(context)")
                    continue
                }
                let line = input[..<position].filter { $0 == 0x0A }.count + 1
                let lineStart = input[..<position].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
                let column = input[lineStart..<position].filter { $0 & 0xC0 != 0x80 }.count + 1
                #expect(source.line == line && source.column == column, "\(context)")
                switch source.origin {
                case .input:
                    #expect(Self.kind(found) == Self.kind(value), "\(context)")
                    if case .object = value {} else if case .array = value {} else {
                        #expect(found == value, "\(context)")
                    }
                    #expect(Self.starts(input[position], Self.kind(found)), "\(context)")
                case .memberName:
                    guard case .name(let name)? = steps.last else {
                        Issue.record("a member name of no member: \(context)")
                        continue
                    }
                    // The name as it was in the input, or as renamed before the rule made it a value.
                    #expect(value == .string(source.renames.last?.to ?? name), "\(context)")
                    #expect(source.renames.first.map { $0.from == name } ?? true, "\(context)")
                    #expect(input[position] == UInt8(ascii: "\""), "\(context)")
                case .replaced, .rebuilt:
                    #expect(Self.starts(input[position], Self.kind(found)), "\(context)")
                case .added:
                    break
                }
                // A renamed value's member has the name it was last renamed to, where no rule
                // moves values to other members.
                if let last = source.renames.last, source.origin != .memberName {
                    renamed += 1
                    let moves = ["hoist", "flatten", "unwrap", "wrap", "keyedToArray", "arrayToKeyed", "pluck"]
                    if !moves.contains(where: { spec.contains("\"\($0)\"") }) {
                        #expect(outputSteps.last == .name(last.to), "\(context)")
                    }
                }
            }
        }
        // Every origin was met, so that none of the checks above went untried.
        for origin in ValueSource.Origin.allCases { #expect(counts[origin, default: 0] > 5, "\(origin): \(counts)") }
        #expect(renamed > 20)
    }

    /// Every fixture a rule fails on: the error's source is, in the input, the value the failing
    /// rule met at the error's path (the document after the rules before it, read by a plain walk).
    @Test func everyFailingFixtureTracesItsValue() throws {
        var traced = 0
        for fixture in Fixture.all where fixture.error?.code == "rule_failed" && fixture.extraFlags & 0x4 == 0 {
            guard let expected = fixture.error, let rules = try? Rules(json: fixture.rules) else { continue }
            let options = ApplyOptions(rawValue: fixture.flags)
            var failure: ReshapeError?
            do {
                _ = try rules.apply(to: fixture.input, options: options)
            } catch {
                failure = error
            }
            guard let error = failure, let source = error.source else {
                Issue.record("\(fixture.name): no source for \(String(describing: failure))")
                continue
            }
            #expect(error.rule == expected.rule && error.path == expected.path, "\(fixture.name)")
            // The document the failing rule met: the rules before it, on the whole tree.
            let document = try JSONValue(json: fixture.rules)
            guard let all = document.arrayValue ?? document["rules"]?.arrayValue else { continue }
            let before = try Rules(json: String(decoding: try JSONValue.array(Array(all.prefix(error.rule - 1))).json(), as: UTF8.self))
            let met = try JSONValue(json: try before.apply(to: fixture.input, options: options.subtracting(.pretty)))
            let input = try JSONValue(json: fixture.input, allowDuplicateKeys: options.contains(.allowDuplicateKeys))
            guard let atError = Self.steps(of: error.path).flatMap({ Self.value(at: $0, in: met) }) else {
                Issue.record("\(fixture.name): nothing at \(error.path) before rule \(error.rule)")
                continue
            }
            switch source.origin {
            case .input:
                let found = Self.steps(of: source.path).flatMap { Self.value(at: $0, in: input) }
                #expect(found.map(Self.kind) == Self.kind(atError), "\(fixture.name): \(source)")
                if case .object = atError {} else if case .array = atError {} else { #expect(found == atError, "\(fixture.name): \(source)") }
            case .memberName:
                #expect(Self.steps(of: source.path)?.last == .name(atError.stringValue ?? "\u{0}"), "\(fixture.name): \(source)")
            default:
                #expect(source.rule > 0 && source.rule < error.rule, "\(fixture.name): \(source)")
            }
            traced += 1
        }
        #expect(traced >= 34)
    }

    /// A document too large to follow every value (over `Rules.traceFileLimit`) is traced by where
    /// its values start (`PositionTracer`): for each failure of every failing fixture and of
    /// seeded random documents and rule lists, the same place as following every value when the
    /// value is the input's (without the renamings on the way), and no source when a rule made it.
    @Test func largeDocumentsAreTracedByWhereTheirValuesStart() throws {
        var inputs: [(rules: Rules, input: [UInt8], options: ApplyOptions, name: String)] = []
        for fixture in Fixture.all where fixture.error?.code == "rule_failed" && fixture.extraFlags & 0x4 == 0 {
            guard let rules = try? Rules(json: fixture.rules) else { continue }
            inputs.append((rules, fixture.input, ApplyOptions(rawValue: fixture.flags), fixture.name))
        }
        var random = SeededGenerator(seed: 97_531)
        for round in 0..<3000 {
            let text = RandomJSON.value(&random, depth: 0)
            let spec = "[" + (0..<(1 + random.next(4))).map { _ in
                random.next(3) == 0 ? Self.extraRule(&random) : RandomJSON.rule(&random)
            }.joined(separator: ",") + "]"
            guard let rules = try? Rules(json: spec) else { continue }
            inputs.append((rules, Array(text.utf8), [], "round \(round): rules \(spec)\ninput \(text)"))
        }
        // Values renamed on the way, then failing.
        let renaming = try Rules(json: #"[{"op":"renameKeys","map":{"a":"x","x":"a","id":"uid"},"deep":true},{"op":"coerce","path":"$..x","to":"boolean"}]"#)
        for round in 0..<300 {
            let text = RandomJSON.value(&random, depth: 0)
            inputs.append((renaming, Array(text.utf8), [], "renaming round \(round): input \(text)"))
        }
        var counts: [String: Int] = [:]
        for (rules, input, options, name) in inputs {
            var failure: ReshapeError?
            do {
                _ = try rules.apply(to: input, options: options)
            } catch {
                failure = error
            }
            guard var error = failure, error.code == .ruleFailed, let followed = error.source else { continue }
            error.source = nil
            let found = input.withUnsafeBytes { rules.sourceOfFailure(error, in: $0, options: options, wholeTraceLimit: 0) }
            if followed.origin == .input {
                var expected = followed
                expected.renames = []
                #expect(found == expected, "\(name): \(String(describing: found)), following every value: \(followed)")
                counts[followed.renames.isEmpty ? "input" : "renamed", default: 0] += 1
            } else {
                #expect(found == nil, "\(name): \(String(describing: found)), following every value: \(followed)")
                counts["made", default: 0] += 1
            }
        }
        // Both answers, and a renamed value, met often enough that none went untried.
        #expect(counts["input", default: 0] > 100 && counts["made", default: 0] > 20 && counts["renamed", default: 0] > 10, "\(counts)")
    }

    /// A failure a stream traced on its record, found or not, is not traced again on the whole
    /// input (which would hold a streamed document whole); one not traced yet is.
    @Test func aFailureTracedOnItsRecordIsNotTracedAgain() throws {
        let rules = try Rules(json: #"[{"op":"keyedToArray","idKey":"id"},{"op":"coerce","path":"$[*].n","to":"boolean"}]"#)
        let input = Array(#"{"a": {"n": true}, "b": {"n": 7}}"#.utf8)
        var failure: ReshapeError?
        do {
            _ = try rules.apply(to: input)
        } catch {
            failure = error
        }
        guard var error = failure else {
            Issue.record("expected coerce to fail")
            return
        }
        #expect(error.source?.path == "$['b']['n']" && error.wasTraced, "\(error)")
        error.source = nil
        #expect(!error.wasTraced)
        let again = input.withUnsafeBytes { rules.traced(error, in: $0, options: []) }
        #expect(again.source?.path == "$['b']['n']" && again.wasTraced, "\(again)")
        error.setTraced(nil)
        let notAgain = input.withUnsafeBytes { rules.traced(error, in: $0, options: []) }
        #expect(notAgain.source == nil && notAgain.wasTraced, "\(notAgain)")
    }

    @Test func firebaseExample() throws {
        let input = Array(#"""
            {"-NxA3kq0": {"display_name": "Ada", "age": "37", "avatar": {}},
             "-NxB": {"display_name": "Bo", "age": 41}}
            """#.utf8)
        let rules = try Rules(json: #"""
            [{"op":"keyedToArray","wrapIn":"users"},{"op":"convertKeys","to":"camelCase"},{"op":"emptyObjectToNull"},
             {"op":"default","path":"$.users[*]","key":"plan","value":"free"},{"op":"coerce","path":"$.users[*].age","to":"integer"}]
            """#)
        let described = try rules.sources(
            of: ["$['users'][0]['age']", "$['users'][1]['age']", "$['users'][0]['id']", "$['users'][0]['displayName']",
                 "$['users'][0]['avatar']", "$['users'][0]['plan']", "$['users'][0]", "$['users']"],
            in: input
        ).map(\.description)
        #expect(described == [
            "$['-NxA3kq0']['age'], line 1, column 45, replaced by rule 5 (coerce)",
            "$['-NxB']['age'], line 2, column 40",
            "the member name of $['-NxA3kq0'], line 1, column 2, by rule 1 (keyedToArray)",
            "$['-NxA3kq0']['display_name'], line 1, column 31, renamed by rule 2 (convertKeys) from \"display_name\"",
            "$['-NxA3kq0']['avatar'], line 1, column 61, replaced by rule 3 (emptyObjectToNull)",
            "added by rule 4 (default)",
            "$['-NxA3kq0'], line 1, column 14, rebuilt by rule 1 (keyedToArray)",
            "added by rule 1 (keyedToArray)",
        ])
        // A rule that fails after others moved its value names where the value was.
        let failing = try Rules(json: #"[{"op":"keyedToArray","wrapIn":"users"},{"op":"coerce","path":"$.users[*].age","to":"boolean"}]"#)
        #expect(throws: ReshapeError.self) { try failing.apply(to: input) }
        do {
            _ = try failing.apply(to: input)
        } catch {
            #expect(error.path == "$['users'][1]['age']")
            #expect(error.source?.description == "$['-NxB']['age'], line 2, column 40")
            #expect(error.description.hasSuffix("(input: $['-NxB']['age'], line 2, column 40)"))
        }
    }

    /// A value a rule moves away is not replaced by what the rule puts in its place: `wrap`'s new
    /// root is added, and the old root is inside it, moved.
    @Test func movesAreNotReplacements() throws {
        let rules = try Rules(json: #"[{"op":"unwrap","path":"$.data.items"},{"op":"wrap","key":"list"},{"op":"default","path":"$.list[*]","key":"b","value":2}]"#)
        let input = Array(#"{"data": {"items": [{"a": 1}, {"a": null}]}}"#.utf8)
        #expect(try rules.sources(of: ["$", "$.list", "$.list[1].a", "$.list[1].b"], in: input).map(\.description) == [
            "added by rule 2 (wrap)",
            "$['data']['items'], line 1, column 20",
            "$['data']['items'][1]['a'], line 1, column 37",
            "added by rule 3 (default)",
        ])
    }

    /// JSON Lines: a line a rule fails on is traced alone, and the source is placed in the input:
    /// the line's number, the column in it, the byte position in the whole input; on one thread
    /// and on several, with the failing line in a later batch than the first.
    @Test func aFailingJSONLineIsTracedInItsLine() throws {
        let rules = try Rules(json: #"[{"op":"convertKeys","to":"camelCase"},{"op":"coerce","path":"$.xY","to":"number"}]"#)
        var lines = (0..<300).map { #"{"a_b": \#($0), "x_y": "\#($0)"}"# }
        lines[211] = #"{"a_b": 211,  "x_y": {"y": 1}}"#
        lines.insert("", at: 100)  // Blank lines count.
        let text = lines.joined(separator: "\n") + "\n"
        let input = Array(text.utf8)
        let lineStart = text.utf8.count - lines[212...].joined(separator: "\n").utf8.count - 1
        let valueStart = lineStart + lines[212].utf8.count - #"{"y": 1}}"#.utf8.count
        let expected = "$['x_y'], line 213, column 22, renamed by rule 1 (convertKeys) from \"x_y\""
        for jobs in [1, 3] {
            var settings = StreamSettings(jobs: jobs)
            settings.batchLineBytes = 512
            var failure: ReshapeError?
            do {
                _ = try rules.apply(to: input, options: [.inputLines], settings: settings)
            } catch {
                failure = error
            }
            #expect(failure?.line == 213 && failure?.path == "$['xY']", "\(String(describing: failure))")
            #expect(failure?.source?.description == expected)
            #expect(failure?.source?.position == valueStart)
            #expect(input[valueStart] == UInt8(ascii: "{"))
            #expect(failure?.description.hasSuffix("(input: \(expected))") == true)
        }
        // A value the rules did not move: no suffix, the same source.
        let unmoved = try Rules(json: #"[{"op":"coerce","path":"$.x_y","to":"number"}]"#)
        #expect(throws: ReshapeError.self) { try unmoved.apply(to: input, options: [.inputLines]) }
        do {
            _ = try unmoved.apply(to: input, options: [.inputLines])
        } catch {
            #expect(error.source?.description == "$['x_y'], line 213, column 22")
            #expect(error.description.hasSuffix("cannot coerce an object to a number"))
        }
    }

    @Test func pathsThatSelectNoOneValueAreRefused() throws {
        let rules = try Rules(json: #"[{"op":"wrap","key":"a"}]"#)
        for (path, message) in [
            ("$..x", #"path "$..x" may select several values; give one value's path"#),
            ("$['a']['nope']", #"no value at $['a']['nope'] in the output: at $['a']: no member "nope""#),
            ("a.b", #"path "a.b": a path must start with '$'"#),
        ] {
            #expect(throws: ReshapeError(.invalidArgument, message)) { try rules.source(of: path, in: Array(#"{"b": 1}"#.utf8)) }
        }
    }
}
