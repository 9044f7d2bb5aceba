import FixtureSupport
import Foundation
import Reshape
import Testing

/// Typed rules mean exactly what the rules document means: the same output bytes, the same errors.
@Suite struct TypedRulesTests {
    /// One op written both ways, with an input that exercises its params.
    struct Case: Sendable, CustomStringConvertible {
        let typed: [Rule]
        let json: String
        let input: String
        let expected: String
        var description: String { json }
    }

    static let cases: [Case] = [
        Case(typed: [.unwrap("$.data")], json: #"[{"op":"unwrap","path":"$.data"}]"#,
             input: #"{"data":[{"id":1}]}"#, expected: #"[{"id":1}]"#),
        Case(typed: [.unwrap("$.missing", optional: true)], json: #"[{"op":"unwrap","path":"$.missing","optional":true}]"#,
             input: #"{"data":1}"#, expected: "null"),
        Case(typed: [.wrap(key: "items")], json: #"[{"op":"wrap","key":"items"}]"#,
             input: "[1,2]", expected: #"{"items":[1,2]}"#),
        Case(typed: [.keyedToArray], json: #"[{"op":"keyedToArray"}]"#,
             input: #"{"b":{"n":1},"a":{"n":2}}"#, expected: #"[{"id":"b","n":1},{"id":"a","n":2}]"#),
        Case(typed: [.keyedToArray(path: "$.users", idKey: "uid", wrapIn: "list", onConflict: .keep, nonObject: .wrap, valueKey: "v")],
             json: #"[{"op":"keyedToArray","path":"$.users","idKey":"uid","wrapIn":"list","onConflict":"keep","nonObject":"wrap","valueKey":"v"}]"#,
             input: #"{"users":{"a":{"uid":"own"},"b":7}}"#,
             expected: #"{"users":{"list":[{"uid":"own"},{"uid":"b","v":7}]}}"#),
        Case(typed: [.keyedToArray(onConflict: .overwrite, nonObject: .skip)],
             json: #"[{"op":"keyedToArray","onConflict":"overwrite","nonObject":"skip"}]"#,
             input: #"{"a":{"id":"own"},"b":7}"#, expected: #"[{"id":"a"}]"#),
        Case(typed: [.arrayToKeyed(path: "$.objects", idKey: "objectId", keepId: true)],
             json: #"[{"op":"arrayToKeyed","path":"$.objects","idKey":"objectId","keepId":true}]"#,
             input: #"{"objects":[{"objectId":"x","n":1}]}"#, expected: #"{"objects":{"x":{"objectId":"x","n":1}}}"#),
        Case(typed: [.arrayToKeyed], json: #"[{"op":"arrayToKeyed"}]"#,
             input: #"[{"id":1,"n":1}]"#, expected: #"{"1":{"n":1}}"#),
        Case(typed: [.emptyObjectToNull], json: #"[{"op":"emptyObjectToNull"}]"#,
             input: #"{"a":{},"b":{"c":{}}}"#, expected: #"{"a":null,"b":{"c":null}}"#),
        Case(typed: [.emptyObjectToNull(path: "$.a")], json: #"[{"op":"emptyObjectToNull","path":"$.a"}]"#,
             input: #"{"a":{},"b":{}}"#, expected: #"{"a":null,"b":{}}"#),
        Case(typed: [.blankStringToNull], json: #"[{"op":"blankStringToNull"}]"#,
             input: #"{"a":"","b":" "}"#, expected: #"{"a":null,"b":" "}"#),
        Case(typed: [.blankStringToNull(path: "$[*]", trim: true)], json: #"[{"op":"blankStringToNull","path":"$[*]","trim":true}]"#,
             input: #"[""," ","x"]"#, expected: #"[null,null,"x"]"#),
        Case(typed: [.convertKeys], json: #"[{"op":"convertKeys"}]"#,
             input: #"{"book_list":[{"cover_url":"x"}]}"#, expected: #"{"bookList":[{"coverUrl":"x"}]}"#),
        Case(typed: [.convertKeys(to: .snakeCase, path: "$.a", deep: false)],
             json: #"[{"op":"convertKeys","to":"snake_case","path":"$.a","deep":false}]"#,
             input: #"{"a":{"myURL":{"innerKey":1}},"bKey":2}"#, expected: #"{"a":{"my_url":{"innerKey":1}},"bKey":2}"#),
        Case(typed: [.renameKeys(["book_list": "books", "a": "b", "b": "a"])],
             json: #"[{"op":"renameKeys","map":{"book_list":"books","a":"b","b":"a"}}]"#,
             input: #"{"book_list":[],"a":1,"b":2}"#, expected: #"{"books":[],"b":1,"a":2}"#),
        Case(typed: [.renameKeys(["x": "y"], path: "$.p", deep: true)],
             json: #"[{"op":"renameKeys","map":{"x":"y"},"path":"$.p","deep":true}]"#,
             input: #"{"p":{"x":{"x":1}},"x":0}"#, expected: #"{"p":{"y":{"y":1}},"x":0}"#),
        Case(typed: [.remove("$.items[*].debug")], json: #"[{"op":"remove","path":"$.items[*].debug"}]"#,
             input: #"{"items":[{"id":1,"debug":"x"},{"id":2}]}"#, expected: #"{"items":[{"id":1},{"id":2}]}"#),
        Case(typed: [.default(path: "$[*]", key: "role", value: "user")],
             json: #"[{"op":"default","path":"$[*]","key":"role","value":"user"}]"#,
             input: #"[{"name":"a"},{"role":null,"name":"b"}]"#, expected: #"[{"name":"a","role":"user"},{"role":"user","name":"b"}]"#),
        Case(typed: [.default(key: "meta", value: ["n": 1.5, "list": [nil, true]])],
             json: #"[{"op":"default","key":"meta","value":{"n":1.5,"list":[null,true]}}]"#,
             input: "{}", expected: #"{"meta":{"n":1.5,"list":[null,true]}}"#),
        Case(typed: [.coerce("$.items[*].price")], json: #"[{"op":"coerce","path":"$.items[*].price"}]"#,
             input: #"{"items":[{"price":"12.50"}]}"#, expected: #"{"items":[{"price":12.5}]}"#),
        Case(typed: [.coerce("$[*]", to: .integer, onFail: .null)], json: #"[{"op":"coerce","path":"$[*]","to":"integer","onFail":"null"}]"#,
             input: #"["12.0",4.0,1.5]"#, expected: "[12,4,null]"),
        Case(typed: [.coerce("$[*]", to: .string, onFail: .keep)], json: #"[{"op":"coerce","path":"$[*]","to":"string","onFail":"keep"}]"#,
             input: #"[0.1,true,{}]"#, expected: #"["0.1","true",{}]"#),
        Case(typed: [.coerce("$[*]", to: .boolean, onFail: .null)], json: #"[{"op":"coerce","path":"$[*]","to":"boolean","onFail":"null"}]"#,
             input: #"["true","no"]"#, expected: "[true,null]"),
        Case(typed: [.emptyArrayToNull], json: #"[{"op":"emptyArrayToNull"}]"#,
             input: #"{"acf":[],"tags":["a"],"meta":{"list":[]}}"#, expected: #"{"acf":null,"tags":["a"],"meta":{"list":null}}"#),
        Case(typed: [.emptyArrayToNull(path: "$.acf")], json: #"[{"op":"emptyArrayToNull","path":"$.acf"}]"#,
             input: #"{"acf":[],"b":[]}"#, expected: #"{"acf":null,"b":[]}"#),
        Case(typed: [.keep(["name", "id"], path: "$[*]")], json: #"[{"op":"keep","path":"$[*]","members":["name","id"]}]"#,
             input: #"[{"id":1,"url":"u","name":"a"},{"x":0}]"#, expected: #"[{"id":1,"name":"a"},{}]"#),
        Case(typed: [.keep([])], json: #"[{"op":"keep","members":[]}]"#, input: #"{"a":1}"#, expected: "{}"),
        Case(typed: [.hoist("$[*].title", member: "rendered")], json: #"[{"op":"hoist","path":"$[*].title","member":"rendered"}]"#,
             input: #"[{"title":{"rendered":"Hi"}},{"title":null}]"#, expected: #"[{"title":"Hi"},{"title":null}]"#),
        Case(typed: [.hoist("$[*]", member: "v", onMissing: .keep)],
             json: #"[{"op":"hoist","path":"$[*]","member":"v","onMissing":"keep"}]"#,
             input: #"[{"v":1},{"w":2}]"#, expected: #"[1,{"w":2}]"#),
        Case(typed: [.pluck("$.labels", member: "name")], json: #"[{"op":"pluck","path":"$.labels","member":"name"}]"#,
             input: #"{"labels":[{"name":"bug","id":1}]}"#, expected: #"{"labels":["bug"]}"#),
        Case(typed: [.pluck("$", member: "n", onMissing: .skip)], json: #"[{"op":"pluck","path":"$","member":"n","onMissing":"skip"}]"#,
             input: #"[{"n":1},null,{"m":2}]"#, expected: "[1]"),
        Case(typed: [.flatten("$.data[*]", member: "attributes")],
             json: #"[{"op":"flatten","path":"$.data[*]","member":"attributes"}]"#,
             input: #"{"data":[{"id":"1","attributes":{"name":"a"},"type":"t"}]}"#, expected: #"{"data":[{"id":"1","name":"a","type":"t"}]}"#),
        Case(typed: [.flatten("$", member: "a", prefix: "a_")], json: #"[{"op":"flatten","path":"$","member":"a","prefix":"a_"}]"#,
             input: #"{"a":{"x":1},"b":2}"#, expected: #"{"a_x":1,"b":2}"#),
        Case(typed: [.mapValues("$[*].status", cases: [.init(0, "draft"), .init(1, "published")])],
             json: #"[{"op":"mapValues","path":"$[*].status","cases":[[0,"draft"],[1,"published"]]}]"#,
             input: #"[{"status":1},{"status":0.0},{"status":2}]"#, expected: #"[{"status":"published"},{"status":"draft"},{"status":2}]"#),
        Case(typed: [.mapValues("$[*]", cases: [.init(false, nil)], onOther: .null)],
             json: #"[{"op":"mapValues","path":"$[*]","cases":[[false,null]],"onOther":"null"}]"#,
             input: #"[false,true,{"a":1}]"#, expected: "[null,null,null]"),
        Case(typed: [.convertKeys(to: .kebabCase)], json: #"[{"op":"convertKeys","to":"kebab-case"}]"#,
             input: #"{"firstName":1,"last_name":2}"#, expected: #"{"first-name":1,"last-name":2}"#),
        Case(typed: [.convertKeys(exclude: ["$..metadata"])], json: #"[{"op":"convertKeys","exclude":["$..metadata"]}]"#,
             input: #"{"first-name":1,"metadata":{"crm_id":"x"}}"#, expected: #"{"firstName":1,"metadata":{"crm_id":"x"}}"#),
        Case(typed: [.remove("$[*]", matching: ".*_url")], json: #"[{"op":"remove","path":"$[*]","matching":".*_url"}]"#,
             input: #"[{"id":1,"html_url":"h","url":"u"}]"#, expected: #"[{"id":1,"url":"u"}]"#),
        Case(typed: [.document(#"{"rules": [{"op": "unwrap", "path": "$.data"}]}"#), .wrap(key: "w")],
             json: #"[{"op":"unwrap","path":"$.data"},{"op":"wrap","key":"w"}]"#,
             input: #"{"data":1}"#, expected: #"{"w":1}"#),
    ]

    @Test(arguments: cases)
    func typedAndJSONGiveTheSameBytes(_ test: Case) throws {
        let typed = try Rules(test.typed)
        let fromJSON = try Rules(json: test.json)
        let input = Array(test.input.utf8)
        let typedOutput = try typed.apply(to: input)
        #expect(typedOutput == (try fromJSON.apply(to: input)))
        #expect(String(decoding: typedOutput, as: UTF8.self) == test.expected)
        #expect(typed.ops == fromJSON.ops)
    }

    @Test func everyOpHasACase() {
        let covered = Set(Self.cases.flatMap(\.typed).compactMap(\.op))
        #expect(covered == [
            "unwrap", "wrap", "keyedToArray", "arrayToKeyed", "emptyObjectToNull", "blankStringToNull",
            "convertKeys", "renameKeys", "remove", "default", "coerce", "emptyArrayToNull", "keep", "hoist", "pluck", "flatten", "mapValues",
        ])
    }

    @Test func theDocumentOmitsDefaultsAndKeepsOrder() throws {
        let rules: [Rule] = [
            .keyedToArray(idKey: "objectId", wrapIn: "objects"),
            .emptyObjectToNull,
            .convertKeys(to: .camelCase),
            .renameKeys(["z": "a", "b\"q": "c"]),
            .default(key: "n", value: .number("1e400")),
        ]
        #expect(try rules.rulesDocument() == #"[{"op":"keyedToArray","idKey":"objectId","wrapIn":"objects"},{"op":"emptyObjectToNull"},{"op":"convertKeys"},{"op":"renameKeys","map":{"z":"a","b\"q":"c"}},{"op":"default","key":"n","value":1e400}]"#)
        #expect(try [Rule]().rulesDocument() == "[]")
    }

    @Test func defaultsWrittenOutMeanTheSame() throws {
        // Params at their defaults, written explicitly in JSON, give the same rules as the typed defaults.
        let json = #"[{"op":"keyedToArray","path":"$","idKey":"id","onConflict":"error","nonObject":"error","valueKey":"value"},{"op":"emptyObjectToNull","path":"$..*"},{"op":"blankStringToNull","path":"$..*","trim":false},{"op":"convertKeys","to":"camelCase","path":"$","deep":true}]"#
        let typed = try Rules([.keyedToArray, .emptyObjectToNull, .blankStringToNull, .convertKeys])
        let input = Array(#"{"k_1":{"a_b":{},"c":""},"k_2":{"d":[{}]}}"#.utf8)
        let output = try typed.apply(to: input)
        #expect(output == (try Rules(json: json).apply(to: input)))
        #expect(String(decoding: output, as: UTF8.self) == #"[{"id":"k_1","aB":null,"c":null},{"id":"k_2","d":[null]}]"#)
    }

    @Test func invalidTypedRulesAreTheEnginesErrors() {
        let badPath = reshapeError { () throws(ReshapeError) in try Rules([.wrap(key: "a"), .unwrap("data")]) }
        #expect(badPath?.code == .invalidRules)
        #expect(badPath?.rule == 2)
        #expect(badPath?.op == "unwrap")
        #expect(badPath == (reshapeError { () throws(ReshapeError) in
            try Rules(json: #"[{"op":"wrap","key":"a"},{"op":"unwrap","path":"data"}]"#)
        }))

        let removeRoot = reshapeError { () throws(ReshapeError) in try Rules([.remove("$")]) }
        #expect(removeRoot?.description == #"invalid_rules: rule 1 (remove): param "path" selects the document itself, which cannot be removed"#)

        let sameKeys = reshapeError { () throws(ReshapeError) in try Rules([.keyedToArray(nonObject: .wrap, valueKey: "id")]) }
        #expect(sameKeys?.message == #""valueKey" and "idKey" must differ when "nonObject" is "wrap""#)

        // A repeated name in a renaming map reaches the engine as written, as in a JSON document.
        let repeated = reshapeError { () throws(ReshapeError) in try Rules([.renameKeys(KeyRenaming([.init(from: "a", to: "b"), .init(from: "a", to: "c")]))]) }
        #expect(repeated?.code == .invalidRules)
        #expect(repeated?.message == #"duplicate member name "a""#)
        #expect(repeated?.path == "$[0]['map']['a']")

        let notFinite = reshapeError { () throws(ReshapeError) in try Rules([.default(key: "x", value: .double(.infinity))]) }
        #expect(notFinite?.code == .invalidArgument)
    }

    @Test func aDocumentRuleIsCheckedAndNumberedInTheWholeList() {
        let error = reshapeError { () throws(ReshapeError) in
            try Rules([.wrap(key: "a"), .wrap(key: "b"), .document(#"[{"op": "wrap", "key": "c"}, {"op": "unwrap"}]"#)])
        }
        #expect(error?.rule == 4)
        #expect(error?.op == "unwrap")
        #expect(error?.message == #"missing required param "path""#)

        let syntax = reshapeError { () throws(ReshapeError) in try Rules([.document("[{\"op\": \"wrap\",\n \"key\": }]")]) }
        #expect(syntax?.code == .invalidRules)
        #expect(syntax?.line == 2)
        #expect(syntax?.column == 9)
    }

    /// Every shared fixture whose rules can be written as typed rules: the typed rules give exactly
    /// the fixture's bytes, or exactly its error.
    @Test func sharedFixturesThroughTypedRules() throws {
        var compared = 0
        for fixture in Fixture.all {
            guard let typed = Self.typedRules(fixture.rules) else { continue }
            // The typed rules write a document the engine reads as the fixture's own.
            #expect(try Rules(typed).ops == (try Rules(json: fixture.rules).ops), "\(fixture.name)")
            let options = ApplyOptions(rawValue: fixture.flags)
            let fromTyped = Result { () throws(ReshapeError) in try Rules(typed).apply(to: fixture.input, options: options) }
            let fromJSON = Result { () throws(ReshapeError) in try Rules(json: fixture.rules).apply(to: fixture.input, options: options) }
            #expect(fromTyped == fromJSON, "\(fixture.name)")
            if let expected = fixture.expected, case .success(let output) = fromTyped {
                #expect(output == expected, "\(fixture.name)")
            }
            compared += 1
        }
        #expect(compared >= 90)
    }

    /// Reads a rules document into typed rules, the test's own reading of docs/rules.md, or nil when
    /// the document is not a valid rules document (those fixtures test the compiler, not the ops).
    static func typedRules(_ document: [UInt8]) -> [Rule]? {
        guard (try? Rules(json: document)) != nil, let value = try? JSONValue(json: document) else { return nil }
        guard let list = value.arrayValue ?? value["rules"]?.arrayValue else { return nil }
        var rules: [Rule] = []
        for object in list {
            guard let rule = typedRule(object) else { return nil }
            rules.append(rule)
        }
        return rules
    }

    static func typedRule(_ object: JSONValue) -> Rule? {
        func string(_ name: String, _ fallback: String) -> String { object[name]?.stringValue ?? fallback }
        func bool(_ name: String, _ fallback: Bool) -> Bool {
            if case .bool(let flag)? = object[name] { return flag }
            return fallback
        }
        guard let op = object["op"]?.stringValue else { return nil }
        switch op {
        case "unwrap":
            return .unwrap(string("path", ""), optional: bool("optional", false))
        case "wrap":
            return .wrap(key: string("key", ""))
        case "keyedToArray":
            guard let onConflict = Rule.OnConflict(rawValue: string("onConflict", "error")),
                let nonObject = Rule.NonObject(rawValue: string("nonObject", "error"))
            else { return nil }
            return .keyedToArray(
                path: string("path", "$"), idKey: string("idKey", "id"), wrapIn: object["wrapIn"]?.stringValue,
                onConflict: onConflict, nonObject: nonObject, valueKey: string("valueKey", "value"))
        case "arrayToKeyed":
            return .arrayToKeyed(path: string("path", "$"), idKey: string("idKey", "id"), keepId: bool("keepId", false))
        case "emptyObjectToNull":
            return .emptyObjectToNull(path: string("path", "$..*"))
        case "blankStringToNull":
            return .blankStringToNull(path: string("path", "$..*"), trim: bool("trim", false))
        case "convertKeys":
            guard let to = Rule.KeyCase(rawValue: string("to", "camelCase")) else { return nil }
            let exclude = object["exclude"]?.arrayValue?.compactMap(\.stringValue) ?? []
            return .convertKeys(to: to, path: string("path", "$"), deep: bool("deep", true), exclude: exclude)
        case "renameKeys":
            guard let map = object["map"]?.objectValue else { return nil }
            let pairs = map.compactMap { member in member.value.stringValue.map { KeyRenaming.Pair(from: member.key, to: $0) } }
            return .renameKeys(KeyRenaming(pairs), path: string("path", "$"), deep: bool("deep", false))
        case "remove":
            return .remove(string("path", ""), matching: object["matching"]?.stringValue)
        case "default":
            guard let value = object["value"] else { return nil }
            return .default(path: string("path", "$"), key: string("key", ""), value: value)
        case "coerce":
            guard let to = Rule.CoerceTarget(rawValue: string("to", "number")),
                let onFail = Rule.OnFail(rawValue: string("onFail", "error"))
            else { return nil }
            return .coerce(string("path", ""), to: to, onFail: onFail)
        case "emptyArrayToNull":
            return .emptyArrayToNull(path: string("path", "$..*"))
        case "keep":
            guard let members = object["members"]?.arrayValue else { return nil }
            return .keep(members.compactMap(\.stringValue), path: string("path", "$"))
        case "hoist":
            guard let onMissing = Rule.HoistMissing(rawValue: string("onMissing", "error")) else { return nil }
            return .hoist(string("path", ""), member: string("member", ""), onMissing: onMissing)
        case "pluck":
            guard let onMissing = Rule.PluckMissing(rawValue: string("onMissing", "error")) else { return nil }
            return .pluck(string("path", ""), member: string("member", ""), onMissing: onMissing)
        case "flatten":
            return .flatten(string("path", ""), member: string("member", ""), prefix: string("prefix", ""))
        case "mapValues":
            guard let pairs = object["cases"]?.arrayValue, let onOther = Rule.OtherValue(rawValue: string("onOther", "keep")) else {
                return nil
            }
            let cases = pairs.compactMap { pair in pair.arrayValue.flatMap { $0.count == 2 ? Rule.ValueCase($0[0], $0[1]) : nil } }
            return .mapValues(string("path", ""), cases: cases, onOther: onOther)
        default:
            return nil
        }
    }
}
