import ReshapeCore
import Testing

/// Random documents and random rule lists must give the same bytes or the same error through the
/// raw-value path (at the depth the rules allow, and forced at depths 1 to 3) as through the full
/// tree. Seeded, so a failure reproduces.
@Suite struct RawDifferentialTests {
    private func value(_ random: inout SeededGenerator, depth: Int) -> String {
        switch depth > 3 ? random.next(6) : random.next(9) {
        case 0: return "null"
        case 1: return random.pick([#""""#, #"" ""#, #""x""#, #""12.50""#, #""true""#, #""3""#, #""a\u0000b""#])
        case 2: return random.pick(["1", "-0", "1.0", "1e400", "0.1", "12345678901234567890", "2", "1.000000000000000000001"])
        case 3: return "true"
        case 4: return "{}"
        case 5: return "[]"
        case 6, 7:
            let names = ["id", "a_b", "x", "data", "fooBar", "uid", "a", "w", #"\u0061"#, "value", #"a\"b"#]
            var parts: [String] = []
            var used = Set<String>()
            for _ in 0..<random.next(6) {
                let name = random.pick(names)
                if used.insert(name).inserted || random.next(5) == 0 {
                    parts.append(#""\#(name)": \#(value(&random, depth: depth + 1))"#)
                }
            }
            return "{ " + parts.joined(separator: " ,\n") + "}"
        default:
            return "[" + (0..<random.next(4)).map { _ in value(&random, depth: depth + 1) }.joined(separator: ", ") + "]"
        }
    }

    private func rule(_ random: inout SeededGenerator) -> String {
        let path = random.pick(["$", "$.*", "$[*]", "$.data", "$.a", "$[0]", "$[-1]", "$.*.*", "$.a.x", "$..*", "$..a", "$.*[-1]", "$[*].id", "$.x.*"])
        let key = random.pick(["id", "uid", "a", "x"])
        let flag = random.next(2) == 0
        switch random.next(14) {
        case 0: return #"{"op":"unwrap","path":"\#(path)","optional":\#(flag)}"#
        case 1: return #"{"op":"wrap","key":"\#(key)"}"#
        case 2:
            let wrapIn = flag ? #","wrapIn":"w""# : ""
            return #"{"op":"keyedToArray","path":"\#(path)","idKey":"\#(key)","onConflict":"\#(random.pick(["error", "overwrite", "keep"]))","nonObject":"\#(random.pick(["error", "skip", "wrap"]))"\#(wrapIn)}"#
        case 3: return #"{"op":"arrayToKeyed","path":"\#(path)","idKey":"\#(key)","keepId":\#(flag)}"#
        case 4: return #"{"op":"emptyObjectToNull","path":"\#(path)"}"#
        case 5: return #"{"op":"blankStringToNull","path":"\#(path)","trim":\#(flag)}"#
        case 6: return #"{"op":"convertKeys","to":"\#(random.pick(["camelCase", "snake_case"]))","path":"\#(path)","deep":\#(flag)}"#
        case 7: return #"{"op":"renameKeys","map":{"a":"x","x":"a","id":"uid"},"path":"\#(path)","deep":\#(flag)}"#
        case 8: return path == "$" ? #"{"op":"wrap","key":"a"}"# : #"{"op":"remove","path":"\#(path)"}"#
        case 9: return #"{"op":"default","path":"\#(path)","key":"\#(key)","value":{"z":[1]}}"#
        case 10:
            return #"{"op":"coerce","path":"\#(path)","to":"\#(random.pick(["number", "integer", "string", "boolean"]))","onFail":"\#(random.pick(["error", "keep", "null"]))"}"#
        case 11: return #"{"op":"unwrap","path":"\#(path)"}"#
        default: return #"{"op":"keyedToArray","path":"\#(path)","nonObject":"wrap","onConflict":"keep"}"#
        }
    }

    @Test func rawPathEqualsTheTree() throws {
        var random = SeededGenerator(seed: 987_654)
        var compared = 0
        for _ in 0..<4000 {
            let input = Array(value(&random, depth: 0).utf8)
            let spec = "[" + (0..<(1 + random.next(4))).map { _ in rule(&random) }.joined(separator: ",") + "]"
            guard let rules = try? Rules(json: spec) else { continue }
            var options: ApplyOptions = []
            if random.next(3) == 0 { options.insert(.allowDuplicateKeys) }
            if random.next(4) == 0 { options.insert(.pretty) }
            let tree = Result { () throws(ReshapeError) in try rules.apply(to: input, options: options, forcingRawDepth: nil) }
            let declared = Result { () throws(ReshapeError) in try rules.apply(to: input, options: options) }
            var variants = [declared]
            for depth in 1...3 {
                variants.append(Result { () throws(ReshapeError) in try rules.apply(to: input, options: options, forcingRawDepth: depth) })
            }
            for variant in variants {
                switch (tree, variant) {
                case (.success(let a), .success(let b)) where a == b: break
                case (.failure(let a), .failure(let b)) where a == b: break
                default:
                    Issue.record("input \(String(decoding: input, as: UTF8.self))\nrules \(spec)\ntree \(tree)\nraw \(variant)")
                    return
                }
            }
            compared += 1
        }
        #expect(compared > 2000)
    }
}

extension SeededGenerator {
    mutating func next(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &self) }
    mutating func pick<T>(_ choices: [T]) -> T { choices[next(choices.count)] }
}
