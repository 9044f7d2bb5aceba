import Foundation
import Reshape
import Testing

// DecodingError coding paths as RFC 9535 normalized paths.

private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(_ name: String, _ index: Int? = nil) {
        stringValue = name
        intValue = index
    }
    init?(intValue: Int) { nil }
}

private struct Status: Decodable {
    let status: String
}

private struct Objects: Decodable {
    let objects: [Status]
}

private struct Scores: Decodable {
    let scores: [Int: [String: Int]]
}

private struct Meta: Decodable {
    let meta: JSONValue
    let count: Int
}

@Suite struct CodingPathTests {
    @Test func keysAndIndices() {
        let path: [any CodingKey] = [Key("objects"), Key("Index 3", 3), Key("status")]
        #expect(path.normalizedPath == "$['objects'][3]['status']")
        #expect(([] as [any CodingKey]).normalizedPath == "$")
    }

    @Test func namesAreEscapedAsRFC9535Says() {
        let path: [any CodingKey] = [Key("it's"), Key("back\\slash"), Key("line\nbreak"), Key("\u{1}")]
        #expect(path.normalizedPath == #"$['it\'s']['back\\slash']['line\nbreak']['\u0001']"#)
    }

    @Test func integerNamedMembersAreNotIndices() {
        // A key with an intValue that is not JSONDecoder's "Index N" is a member name.
        let path: [any CodingKey] = [Key("scores"), Key("5", 5), Key("a")]
        #expect(path.normalizedPath == "$['scores']['5']['a']")
    }

    @Test func theSeedsStatusExample() {
        let json = #"{"objects": [{"status": "a"}, {"status": "b"}, {"status": "c"}, {"status": null}]}"#
        let error = responseError { () throws(ResponseError) in try ResponseDecoder().decode(Objects.self, from: body(json)) }
        #expect(error?.description == "decoding failed at $['objects'][3]['status']: expected String, found null")
    }

    @Test func dictionaryWithIntegerKeys() {
        let json = #"{"scores": {"5": {"a": 1}, "6": {"b": "x"}}}"#
        let error = responseError { () throws(ResponseError) in try ResponseDecoder().decode(Scores.self, from: body(json)) }
        #expect(error?.path == "$['scores']['6']['b']")
    }

    @Test func jsonValueFieldsDecodeAnything() throws {
        let json = #"{"meta": {"a": [1, 2.5, "x", null, true]}, "count": 2}"#
        let value = try ResponseDecoder().decode(Meta.self, from: body(json))
        #expect(value.meta == ["a": [1, 2.5, "x", nil, true]])
        #expect(value.count == 2)
    }

    @Test func aTypeMismatchAtTheRoot() {
        let error = responseError { () throws(ResponseError) in try ResponseDecoder().decode([Int].self, from: body(#"{"a": 1}"#)) }
        #expect(error?.description == "decoding failed at $: expected an array, found an object")
    }

    @Test func invalidJSONWithoutRulesIsJSONDecodersError() {
        let error = responseError { () throws(ResponseError) in try ResponseDecoder().decode([Int].self, from: body("[1,")) }
        guard case .decoding(let path, _, let underlying)? = error else {
            Issue.record("expected .decoding, got \(String(describing: error))")
            return
        }
        #expect(path == "$")
        guard case .dataCorrupted? = underlying as? DecodingError else {
            Issue.record("expected dataCorrupted, got \(underlying)")
            return
        }
    }
}

private let flagKey = CodingUserInfoKey(rawValue: "flag") ?? .decodingContext

@Suite struct ResponseDecoderTests {
    private struct Event: Decodable, Equatable {
        let at: Date
        let userInfoFlag: Bool?

        init(at: Date, userInfoFlag: Bool?) {
            self.at = at
            self.userInfoFlag = userInfoFlag
        }

        enum CodingKeys: CodingKey { case at }

        init(from decoder: any Decoder) throws {
            at = try decoder.container(keyedBy: CodingKeys.self).decode(Date.self, forKey: .at)
            userInfoFlag = decoder.userInfo[flagKey] as? Bool
        }
    }

    @Test func theTemplatesStrategiesAndUserInfoAreUsed() throws {
        let template = JSONDecoder()
        template.dateDecodingStrategy = .secondsSince1970
        template.userInfo[flagKey] = true
        let decoder = try ResponseDecoder(rules: [.unwrap("$.event")], decoder: template)
        // Changing the template afterwards does not change the response decoder.
        template.dateDecodingStrategy = .millisecondsSince1970
        let event = try decoder.decode(Event.self, from: body(#"{"event": {"at": 86400}}"#))
        #expect(event == Event(at: Date(timeIntervalSince1970: 86400), userInfoFlag: true))
    }

    @Test func duplicateMembersAreAnErrorUnlessAllowed() throws {
        let json = #"{"data": {"a": 1, "a": 2}}"#
        let strict = try ResponseDecoder(rules: [.unwrap("$.data")])
        let error = responseError { () throws(ResponseError) in try strict.decode([String: Int].self, from: body(json)) }
        #expect(error?.description == #"reshape failed: invalid_json: at $['data']['a'], line 1, column 19: duplicate member name "a""#)
        let lenient = try ResponseDecoder(rules: [.unwrap("$.data")], options: .allowDuplicateKeys)
        #expect(try lenient.decode([String: Int].self, from: body(json)) == ["a": 2])
    }

    @Test func unknownOptionFlagsAreTheEnginesError() throws {
        let decoder = ResponseDecoder(rules: try Rules([.wrap(key: "a")]), options: ApplyOptions(rawValue: 1 << 7))
        let error = responseError { () throws(ResponseError) in try decoder.decode([String: Int].self, from: body("1")) }
        guard case .reshape(let engine)? = error else {
            Issue.record("expected .reshape, got \(String(describing: error))")
            return
        }
        #expect(engine.code == .invalidArgument)
    }

    @Test func invalidTypeRulesAreReportedWhenDecoding() {
        struct Broken: Decodable, PayloadTransformable {
            static let rules: [Rule] = [.unwrap("data")]
        }
        let error = responseError { () throws(ResponseError) in try ResponseDecoder().decode(Broken.self, from: body("{}")) }
        guard case .reshape(let engine)? = error else {
            Issue.record("expected .reshape, got \(String(describing: error))")
            return
        }
        #expect(engine.code == .invalidRules)
        #expect(engine.rule == 1)
        #expect(engine.op == "unwrap")
    }

    @Test func sharedBetweenTasks() async throws {
        let decoder = try ResponseDecoder(rules: [.keyedToArray(idKey: "objectId", wrapIn: "objects")])
        struct Object: Decodable, Equatable, Sendable { let objectId: String; let n: Int }
        struct Response: Decodable, Sendable { let objects: [Object] }
        let results = try await withThrowingTaskGroup(of: [Object].self) { group in
            for n in 0..<16 {
                group.addTask {
                    try decoder.decode(Response.self, from: body(#"{"k\#(n)": {"n": \#(n)}}"#)).objects
                }
            }
            var all: [[Object]] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(Set(results.flatMap { $0.map(\.n) }) == Set(0..<16))
        #expect(results.allSatisfy { $0.count == 1 && $0[0].objectId == "k\($0[0].n)" })
    }
}
