/// Seeded random JSON documents and rule lists, for the differential tests: small values that
/// reach every op's corner cases (empty containers, blank strings, `-0`, big numbers, escaped and
/// colliding names) and rules over the paths that matter to them.
enum RandomJSON {
    /// Member names: with names that renamings make of others (`aB` of `a_b`), for collisions.
    static let names = ["id", "a_b", "x", "data", "fooBar", "uid", "a", "w", #"\u0061"#, "value", #"a\"b"#]
    static let collidingNames = names + ["aB", "foo_bar", "A_B"]

    static func value(_ random: inout SeededGenerator, depth: Int, names: [String] = names) -> String {
        switch depth > 3 ? random.next(6) : random.next(9) {
        case 0: return "null"
        case 1: return random.pick([#""""#, #"" ""#, #""x""#, #""12.50""#, #""true""#, #""3""#, #""a\u0000b""#])
        case 2: return random.pick(["1", "-0", "1.0", "1e400", "0.1", "12345678901234567890", "2", "1.000000000000000000001"])
        case 3: return "true"
        case 4: return "{}"
        case 5: return "[]"
        case 6, 7:
            var parts: [String] = []
            var used = Set<String>()
            for _ in 0..<random.next(6) {
                let name = random.pick(names)
                if used.insert(name).inserted || random.next(5) == 0 {
                    parts.append(#""\#(name)": \#(value(&random, depth: depth + 1, names: names))"#)
                }
            }
            return "{ " + parts.joined(separator: " ,\n") + "}"
        default:
            return "[" + (0..<random.next(4)).map { _ in value(&random, depth: depth + 1, names: names) }.joined(separator: ", ") + "]"
        }
    }

    /// - Parameter paths: more paths to pick from.
    static func rule(_ random: inout SeededGenerator, paths: [String] = []) -> String {
        let path = random.pick([
            "$", "$.*", "$[*]", "$.data", "$.a", "$[0]", "$[-1]", "$.*.*", "$.a.x", "$..*", "$..a", "$.*[-1]", "$[*].id", "$.x.*",
            "$[?@.a]", "$[*][?@ == 1 || @ == '']", "$.*[?@.x == 'x' || @.id > 1].a", "$[*]..[?@ == null]", "$..[?length(@) > 1]",
            "$[*][?@.a == @.x]", "$[?!@.id]['a','x']",
        ] + paths)
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
}

extension SeededGenerator {
    mutating func next(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &self) }
    mutating func pick<T>(_ choices: [T]) -> T { choices[next(choices.count)] }
}
