import Foundation
import Reshape
import Testing

/// docs/swift.md, "Rules and types from a sample response". `Users` is the type `reshape infer`
/// wrote for examples/firebase-users/users.json, kept in Inferred/Users.swift.
@Suite struct InferExample {
    typealias Users = InferredUsers.Users

    @Test func run() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let body = try Data(contentsOf: root.appendingPathComponent("examples/firebase-users/users.json"))
        // example: infer
        let inference = try Inference.infer([JSONValue(json: [UInt8](body))], options: InferenceOptions(name: "users"))
        let source = try inference.swift(root: "Users")  // the file `reshape infer --swift Users.swift` writes
        for reason in inference.reasons { print(reason) }  // rule 2 (keyedToArray): $ is a keyed collection: ...

        // With that file in the target, one call reshapes and decodes:
        let users = try ResponseDecoder().decode(Users.self, from: body)
        // users.users[0].id == "-NxA1b2C3d4E5f6G7h8I", .displayName == "Ada Lovelace", .avatar == nil

        // What each rule does on a response, for when a decoding surprises you:
        let explanation = try Rules(json: try inference.rules.json()).explain([UInt8](body))
        // explanation.rules[5]: coerce $.users[*].balance: selected 2, changed 2,
        //   replaced at $['users'][0]['balance'] (input: $['-NxA1b2C3d4E5f6G7h8I']['balance']): "12.50" → 12.5
        // end example: infer
        #expect(source.contains("struct Users: PayloadTransformable, Encodable {"))
        #expect(inference.reasons[1].description.hasPrefix("rule 2 (keyedToArray): $ is a keyed collection: "))
        #expect(users.users[0].id == "-NxA1b2C3d4E5f6G7h8I" && users.users[0].displayName == "Ada Lovelace" && users.users[0].avatar == nil)
        let coerce = explanation.rules[5]
        #expect(coerce.summary == "coerce $.users[*].balance" && coerce.selected == 2 && coerce.changed == 2)
        #expect(coerce.examples[0].description
            == #"replaced at $['users'][0]['balance'] (input: $['-NxA1b2C3d4E5f6G7h8I']['balance']): "12.50" → 12.5"#)
    }
}
