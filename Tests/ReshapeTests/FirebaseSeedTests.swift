import Foundation
import Reshape
import Testing

// Seed 000: Firebase sends collections as {"<id>": {...}}; the client wants [Object] with the key in
// `objectId`, declared on the response type (`PayloadTransformable`) instead of a hand-written loop
// over JSONSerialization dictionaries.

private struct Object: Codable, Equatable {
    let objectId: String
    let name: String
}

private struct ObjectsResponse: Decodable, PayloadTransformable {
    let objects: [Object]
    static let rules: [Rule] = [.keyedToArray(idKey: "objectId", wrapIn: "objects")]
}

/// The same rules kept as a rules document next to the type.
private struct ObjectsResponseFromDocument: Decodable, PayloadTransformable {
    let objects: [Object]
    static let rules: [Rule] = [.document(#"[{"op": "keyedToArray", "idKey": "objectId", "wrapIn": "objects"}]"#)]
}

/// A type without rules: decodes as JSONDecoder would.
private struct Plain: Decodable, PayloadTransformable, Equatable {
    let name: String
}

@Suite struct FirebaseSeedTests {
    /// The seed's /users.json, as written in the post.
    static let usersJSON = """
        {
            "SomeRandomFakeUserId2": {
                "name": "Stephen the Admin"
            },
            "SomeRandomFakeUserId3": {
                "name": "Stephen the Tester"
            }
        }
        """

    fileprivate static let expected = [
        Object(objectId: "SomeRandomFakeUserId2", name: "Stephen the Admin"),
        Object(objectId: "SomeRandomFakeUserId3", name: "Stephen the Tester"),
    ]

    @Test func rulesDeclaredOnTheType() throws {
        let response = try ResponseDecoder().decode(ObjectsResponse.self, from: body(Self.usersJSON))
        #expect(response.objects == Self.expected)
    }

    @Test func rulesDocumentOnTheType() throws {
        let response = try ResponseDecoder().decode(ObjectsResponseFromDocument.self, from: body(Self.usersJSON))
        #expect(response.objects == Self.expected)
    }

    @Test func theSeedsPlaygroundSample() throws {
        // The playground's `untransformed` dictionary, serialized as the seed does.
        let untransformed = ["SomeID": ["name": "SomeName"], "SomeOtherID": ["name": "SomeOtherName"]]
        let data = try JSONSerialization.data(withJSONObject: untransformed, options: [.prettyPrinted, .sortedKeys])
        let response = try ResponseDecoder().decode(ObjectsResponse.self, from: data)
        #expect(response.objects == [Object(objectId: "SomeID", name: "SomeName"), Object(objectId: "SomeOtherID", name: "SomeOtherName")])
    }

    @Test func rulesOnTheDecoderTypedOrFromADocument() throws {
        let typed = try ResponseDecoder(rules: [.keyedToArray(idKey: "objectId")])
        #expect(try typed.decode([Object].self, from: body(Self.usersJSON)) == Self.expected)

        let loaded = ResponseDecoder(rules: try Rules(json: #"[{"op": "keyedToArray", "idKey": "objectId"}]"#))
        #expect(try loaded.decode([Object].self, from: body(Self.usersJSON)) == Self.expected)
        #expect(try loaded.decode([Object].self, from: Array(Self.usersJSON.utf8)) == Self.expected)
    }

    @Test func typeWithoutRulesDecodesAsJSONDecoderDoes() throws {
        #expect(try ResponseDecoder().decode(Plain.self, from: body(#"{"name": "x"}"#)) == Plain(name: "x"))
    }

    @Test func firebaseEmptyAndArrayCollections() throws {
        // Firebase sends null for an empty collection, and an array when the keys are small integers.
        #expect(try ResponseDecoder().decode(ObjectsResponse.self, from: body("null")).objects == [])
        let sparse = #"[null, {"name": "one"}, null, {"name": "three"}]"#
        #expect(try ResponseDecoder().decode(ObjectsResponse.self, from: body(sparse)).objects
            == [Object(objectId: "1", name: "one"), Object(objectId: "3", name: "three")])
    }

    @Test func aRecordThatIsNotAnObjectIsARuleFailureWithItsPath() {
        let error = responseError { () throws(ResponseError) in
            try ResponseDecoder().decode(ObjectsResponse.self, from: body(#"{"u1": {"name": "a"}, "u2": "oops"}"#))
        }
        guard case .reshape(let engine)? = error else {
            Issue.record("expected .reshape, got \(String(describing: error))")
            return
        }
        #expect(engine.code == .ruleFailed)
        #expect(engine.rule == 1)
        #expect(engine.op == "keyedToArray")
        #expect(engine.path == "$['u2']")
        #expect(error?.path == "$['u2']")
        #expect(error?.description == "reshape failed: rule_failed: rule 1 (keyedToArray) at $['u2']: expected an object, found a string")
    }

    @Test func decoderRulesRunBeforeTypeRulesInOnePassNumberedInOrder() throws {
        // The API wraps the collection in "data": the decoder unwraps, the type converts.
        let decoder = try ResponseDecoder(rules: [.unwrap("$.data")])
        let wrapped = #"{"data": \#(Self.usersJSON)}"#
        #expect(try decoder.decode(ObjectsResponse.self, from: body(wrapped)).objects == Self.expected)

        let error = responseError { () throws(ResponseError) in
            try decoder.decode(ObjectsResponse.self, from: body(#"{"data": {"u": 1}}"#))
        }
        guard case .reshape(let engine)? = error else {
            Issue.record("expected .reshape, got \(String(describing: error))")
            return
        }
        #expect(engine.rule == 2)
        #expect(engine.op == "keyedToArray")
        #expect(engine.path == "$['u']")

        // The same numbering when the decoder's rules were compiled from a document.
        let compiled = ResponseDecoder(rules: try Rules(json: #"[{"op": "unwrap", "path": "$.data"}]"#))
        #expect(try compiled.decode(ObjectsResponse.self, from: body(wrapped)).objects == Self.expected)
        let again = responseError { () throws(ResponseError) in
            try compiled.decode(ObjectsResponse.self, from: body(#"{"data": {"u": 1}}"#))
        }
        guard case .reshape(let second)? = again else {
            Issue.record("expected .reshape, got \(String(describing: again))")
            return
        }
        #expect(second == engine)
    }

    @Test func aDecodingFailureNamesThePathInTheReshapedDocument() {
        let error = responseError { () throws(ResponseError) in
            try ResponseDecoder().decode(ObjectsResponse.self, from: body(#"{"a": {"name": "x"}, "b": {"name": 7}}"#))
        }
        guard case .decoding(let path, let message, let underlying)? = error else {
            Issue.record("expected .decoding, got \(String(describing: error))")
            return
        }
        #expect(path == "$['objects'][1]['name']")
        // Where the value was in the body, since keyedToArray moved it.
        #expect(message == "expected String, found a number (input: $['b']['name'], line 1, column 36)")
        #expect(underlying is DecodingError)
        #expect(error?.description
            == "decoding failed at $['objects'][1]['name']: expected String, found a number (input: $['b']['name'], line 1, column 36)")
    }
}
