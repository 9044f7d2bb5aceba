import Foundation
import Testing

@testable import ReshapeCore

/// How `Inference` decides each place (docs/infer.md): the score, the overrides, placeholders,
/// coercions, names and envelopes, each on a small sample whose proposed rules are checked whole.
@Suite struct InferenceTests {
    static func rules(_ samples: [String], _ options: InferenceOptions = InferenceOptions()) throws -> String {
        let inference = try Inference.infer(samples.map { try JSONValue(json: $0) }, options: options)
        #expect(inference.reasons.count == inference.rules.arrayValue?.count)
        return String(decoding: try inference.rules.json(), as: UTF8.self)
    }

    static func reasons(_ samples: [String], _ options: InferenceOptions = InferenceOptions()) throws -> [String] {
        try Inference.infer(samples.map { try JSONValue(json: $0) }, options: options).reasons.map(\.description)
    }

    @Test func twoMembersWithPushIdsAreACollection() throws {
        let sample = #"{"-NxA1b2C3d4E5f6G7h8I": {"n": 1}, "-NxB9z8Y7x6W5v4U3t2S": {"n": 2}}"#
        #expect(try Self.rules([sample]) == #"[{"op":"keyedToArray","idKey":"id","wrapIn":"items"}]"#)
        #expect(try Self.reasons([sample]) == [
            "rule 1 (keyedToArray): $ is a keyed collection: 2 members over 1 object, all objects of one shape, names are Firebase push ids (score 0.80)"
        ])
    }

    @Test func anObjectWhoseNamesRecurInEveryRecordIsNot() throws {
        // ids 0, shape 1, variety 0: 0.25.
        let sample = #"[{"settings": {"email": {"on": true}, "sms": {"on": false}}}, {"settings": {"email": {"on": false}, "sms": {"on": true}}}]"#
        #expect(try Self.rules([sample]) == "[]")
        // --map decides it.
        #expect(try Self.rules([sample], InferenceOptions(maps: ["$[*].settings"]))
            == #"[{"op":"keyedToArray","path":"$[*].settings","idKey":"id"}]"#)
    }

    @Test func namesThatAreNotIdsNeedTenMembersOfOneShape() throws {
        func collection(_ count: Int) -> String {
            "{" + (0..<count).map { #""user\#($0)": {"age": \#($0)}"# }.joined(separator: ",") + "}"
        }
        // ids 0, shape 1, variety min(1, n / 10): 0.5 at 10 members, 0.475 at 9.
        #expect(try Self.rules([collection(10)]) == #"[{"op":"keyedToArray","idKey":"id","wrapIn":"items"}]"#)
        #expect(try Self.rules([collection(9)]) == "[]")
        #expect(try Self.rules([collection(10)], InferenceOptions(objects: ["$"])) == "[]")
    }

    @Test func firebaseArraysStartWithAHole() throws {
        #expect(try Self.rules([#"{"a": [null, {"n": 1}, null, {"n": 3}]}"#]) == #"[{"op":"keyedToArray","path":"$.a","idKey":"id"}]"#)
        // Holes elsewhere are elements that are null (Hacker News items gathered into an array).
        #expect(try Self.rules([#"{"a": [{"n": 1}, null]}"#]) == "[]")
    }

    @Test func recordsThatHaveTheIdKeyGetAnother() throws {
        let sample = #"{"-NxA1": {"id": 1}, "-NxB2": {"id": 2, "_id": 0}}"#
        #expect(try Self.rules([sample]) == #"[{"op":"keyedToArray","idKey":"key","wrapIn":"items"}]"#)
        #expect(try Self.reasons([sample])[0].hasSuffix(#"records already have "id", so the key goes to "key""#))
    }

    @Test func nullMembersOfACollectionAreSkipped() throws {
        #expect(try Self.rules([#"{"-NxA1": {"n": 1}, "-NxB2": null}"#])
            == #"[{"op":"keyedToArray","idKey":"id","wrapIn":"items","nonObject":"skip"}]"#)
    }

    @Test func dictionariesOfScalarsKeepTheirNames() throws {
        let sample = #"[{"user_name": "a", "likes": {"-NxA1b2C3d4E5f6G7h8I": true, "-NxB9z8Y7x6W5v4U3t2S": true}}]"#
        #expect(try Self.rules([sample]) == #"[{"op":"convertKeys","to":"camelCase","exclude":["$[*].likes"]}]"#)
        let inference = try Inference.infer([JSONValue(json: sample)])
        #expect(try inference.swift().contains("    let likes: [String: Bool]\n"))
        #expect(try inference.python().contains("    likes: dict[str, bool]\n"))
    }

    @Test func placeholdersBesideRealValuesBecomeNull() throws {
        let sample = #"[{"avatar": {}, "acf": [], "status": ""}, {"avatar": {"url": "x"}, "acf": {"a": 1}, "status": "active"}]"#
        #expect(try Self.rules([sample]) == #"[{"op":"blankStringToNull","path":"$[*].status"},{"op":"emptyObjectToNull","path":"$[*].avatar"},{"op":"emptyArrayToNull","path":"$[*].acf"}]"#)
        // "" among free text (with spaces) is a value; {} alone is an empty object.
        #expect(try Self.rules([#"[{"bio": "", "x": {}}, {"bio": "Loves cats", "x": {}}]"#]) == "[]")
    }

    @Test func numbersAndBooleansSentAsStrings() throws {
        let sample = #"[{"price": "12.50", "count": "3", "paid": "true", "zip": "90210", "ref": "0042", "big": "12345678901234567"},"#
            + #"{"price": "3", "count": "-1", "paid": "false", "zip": "10001", "ref": "7", "big": "1"}]"#
        #expect(try Self.rules([sample]) == #"[{"op":"blankStringToNull","path":"$[*]['price','count','paid']"},"#
            + #"{"op":"coerce","path":"$[*].price","to":"number"},{"op":"coerce","path":"$[*].count","to":"integer"},"#
            + #"{"op":"coerce","path":"$[*].paid","to":"boolean"}]"#)
        for name in ["zip_code", "accountId", "ID", "phone"] {
            #expect(try Self.rules([#"[{"\#(name)": "123"}]"#], InferenceOptions(keys: .keep)) == "[]", "\(name)")
        }
    }

    @Test func namesFollowKeys() throws {
        let sample = #"{"first_name": "Ada", "lastName": "L", "nick-name": "A"}"#
        #expect(try Self.rules([sample]) == #"[{"op":"convertKeys","to":"camelCase"}]"#)
        #expect(try Self.rules([sample], InferenceOptions(keys: .kebabCase)) == #"[{"op":"convertKeys","to":"kebab-case"}]"#)
        #expect(try Self.rules([sample], InferenceOptions(keys: .keep)) == "[]")
        #expect(try Self.rules([#"{"a": 1}"#]) == "[]")
    }

    @Test func envelopesAreKeptUnlessUnwrapped() throws {
        let samples = [#"{"data": {"-NxA1": {"n": 1}}, "meta": {"page": 1}}"#, #"{"data": {"-NxB2": {"n": 2}}, "meta": {"page": 2}}"#]
        #expect(try Self.rules(samples) == #"[{"op":"keyedToArray","path":"$.data","idKey":"id"}]"#)
        #expect(try Self.rules(samples, InferenceOptions(unwrap: true))
            == #"[{"op":"unwrap","path":"$.data"},{"op":"keyedToArray","idKey":"id","wrapIn":"items"}]"#)
    }

    @Test func collectionsAreFoundAtAnyDepthInnermostFirst() throws {
        let sample = #"{"-NxA1": {"posts": [{"votes": {"-NxV1": {"up": true}}}]}, "-NxB2": {"posts": []}}"#
        #expect(try Self.rules([sample]) == #"[{"op":"keyedToArray","path":"$.*.posts[*].votes","idKey":"id"},{"op":"keyedToArray","idKey":"id","wrapIn":"items"}]"#)
    }

    @Test func typesOfEachKind() throws {
        let sample = #"[{"a": 1, "b": 1.5, "c": "x", "d": true, "e": null, "f": [1, "x", 2], "g": 1, "h": {}, "first-name": "A", "self": 1},"#
            + #"{"a": 2, "b": 2, "c": "y", "d": false, "e": null, "f": [], "g": "x", "h": {}, "first-name": "B", "self": 2}]"#
        let inference = try Inference.infer([JSONValue(json: sample)], options: InferenceOptions(keys: .keep))
        let swift = try inference.swift(root: "Things")
        for line in ["let a: Int", "let b: Double", "let c: String", "let d: Bool", "let e: JSONValue?", "let f: LossyArray<Int>",
            "let g: JSONValue", "let h: [String: JSONValue]", "let firstName: String", "let selfValue: Int",
            "case firstName = \"first-name\"", "case selfValue = \"self\"", "let value: [Thing]"]
        {
            #expect(swift.contains(line), "\(line)")
        }
        let python = try inference.python(root: "Things")
        for line in ["\"a\": int,", "\"b\": float,", "\"e\": Any,", "\"f\": list[Any],", "\"first-name\": str,", "Things = list[Thing]"] {
            #expect(python.contains(line), "\(line)")
        }
    }

    @Test func deepSamplesStopAtTheDepthLimit() throws {
        let depth = 900  // within the parser's 1000 levels
        let sample = String(repeating: #"{"a_b": "#, count: depth) + "1" + String(repeating: "}", count: depth)
        let inference = try Inference.infer([JSONValue(json: sample)])
        #expect(inference.rules.arrayValue?.count == 1)
        let swift = try inference.swift()
        #expect(swift.components(separatedBy: "struct ").count - 1 == SampleAnalysis.maxDepth)
    }

    @Test func badArguments() throws {
        #expect(throws: ReshapeError(.invalidArgument, "infer needs at least one sample")) { try Inference.infer([]) }
        #expect(throws: ReshapeError.self) { try Inference.infer([[:]], options: InferenceOptions(idKey: "")) }
        #expect(throws: ReshapeError(.invalidArgument, "\"Not a name\" is not a Swift type name")) {
            try Inference.infer([[:]]).swift(root: "Not a name")
        }
        #expect(throws: ReshapeError(.invalidArgument, "\"class\" is not a Python type name")) { try Inference.infer([[:]]).python(root: "class") }
    }
}
