import Foundation
import Reshape
import ReshapeCore
import Testing

/// Write-back: what was decoded with rules encodes, with their inverse, to the document it came from.
@Suite struct ResponseEncoderTests {
    struct User: Codable, Equatable {
        let id: String
        let firstName: String
        let birthYear: Int
        let tags: [String]
    }

    /// Firebase's collection, in snake_case, with member order the encoder must give back.
    static let firebase = #"{"-Nx1":{"first_name":"Ada","birth_year":1815,"tags":["math"]},"-Nx2":{"first_name":"Grace","birth_year":1906,"tags":[]}}"#

    @Test func firebaseRoundTrip() throws {
        let decoder = try ResponseDecoder(rules: [.keyedToArray(idKey: "id"), .convertKeys(to: .camelCase)])
        let users = try decoder.decode([User].self, from: Data(Self.firebase.utf8))
        #expect(users == [
            User(id: "-Nx1", firstName: "Ada", birthYear: 1815, tags: ["math"]),
            User(id: "-Nx2", firstName: "Grace", birthYear: 1906, tags: []),
        ])
        // Keys converted while the records are an array, then keyed: converting after keying
        // would convert the ids too.
        let encoder = try ResponseEncoder(rules: [.convertKeys(to: .snakeCase), .arrayToKeyed(idKey: "id")])
        let body = try encoder.encode(users)
        // The same values, and the records in the order Firebase sent them. Members inside a record
        // come in the order `JSONEncoder` writes them, which on Linux is not the declaration order.
        let original = try JSONValue(json: Self.firebase)
        let written = try JSONValue(json: Array(body))
        #expect(written.objectValue?.keys == ["-Nx1", "-Nx2"])
        #expect(IndexDecoderTests.sorted(written) == IndexDecoderTests.sorted(original))
        #expect(written != (try JSONValue(json: #"{"-Nx1":{"first_name":"Ada"}}"#)))
    }

    @Test func sortedKeysMakeTheBodyDeterministic() throws {
        let template = JSONEncoder()
        template.outputFormatting = .sortedKeys
        let encoder = try ResponseEncoder(rules: [.convertKeys(to: .snakeCase), .arrayToKeyed(idKey: "id")], encoder: template)
        let body = try encoder.encode([User(id: "-Nx9", firstName: "Kim", birthYear: 2001, tags: ["a/b"])])
        #expect(String(decoding: body, as: UTF8.self) == #"{"-Nx9":{"birth_year":2001,"first_name":"Kim","tags":["a/b"]}}"#)
    }

    @Test func theTemplatesStrategiesAndFormatsApply() throws {
        struct Event: Encodable {
            let name: String
            let at: Date
            let ratio: Double
        }
        let template = JSONEncoder()
        template.dateEncodingStrategy = .secondsSince1970
        template.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        template.outputFormatting = [.sortedKeys, .prettyPrinted]
        let encoder = try ResponseEncoder(rules: [.wrap(key: "event")], encoder: template)
        let body = try encoder.encode(Event(name: "launch", at: Date(timeIntervalSince1970: 5), ratio: .infinity))
        #expect(String(decoding: body, as: UTF8.self) == """
            {
              "event": {
                "at": 5,
                "name": "launch",
                "ratio": "inf"
              }
            }
            """)
    }

    @Test func withoutRulesTheBodyIsJSONEncoders() throws {
        let value = ["b": 1]
        let body = try ResponseEncoder(rules: []).encode(value)
        #expect(body == (try JSONEncoder().encode(value)))
    }

    @Test func aValueJSONCannotHoldIsAnEncodingErrorAtItsPath() throws {
        struct Score: Encodable { let value: Double }
        let encoder = try ResponseEncoder(rules: [.wrap(key: "scores")])
        do {
            _ = try encoder.encode([Score(value: 1), Score(value: .nan)])
            Issue.record("encoded NaN")
        } catch {
            guard case .encoding(let path, let message, let underlying) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(path == "$[1]['value']")
            #expect(message.hasPrefix("Unable to encode Double.nan directly in JSON."))
            #expect(underlying is EncodingError)
            #expect(error.description.hasPrefix("encoding failed at $[1]['value']: Unable to encode Double.nan directly in JSON."))
        }
    }

    @Test func aRuleThatFailsIsTheEnginesErrorWithItsPath() throws {
        let encoder = try ResponseEncoder(rules: [.arrayToKeyed(idKey: "id")])
        do {
            _ = try encoder.encode([["name": "no id"]])
            Issue.record("keyed a record without an id")
        } catch {
            guard case .reshape(let failure) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(failure.code == .ruleFailed)
            #expect(failure.rule == 1 && failure.op == "arrayToKeyed" && failure.path == "$[0]")
        }
    }

    @Test func invalidRulesFailWhenTheEncoderIsMade() {
        #expect(throws: ResponseError.self) { try ResponseEncoder(rules: [.unwrap("not a path")]) }
    }
}
