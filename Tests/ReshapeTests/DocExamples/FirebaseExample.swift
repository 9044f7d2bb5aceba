import Foundation
import Reshape
import Testing

/// docs/swift.md, "Firebase collections, declared on the type".
@Suite struct FirebaseExample {
    // example: firebase
    struct Object: Codable, Equatable { let objectId: String; let name: String }

    struct ObjectsResponse: Decodable, PayloadTransformable {
        let objects: [Object]
        static let rules: [Rule] = [.keyedToArray(idKey: "objectId", wrapIn: "objects")]
    }
    // end example: firebase

    @Test func run() throws {
        let data = Data(#"{"SomeRandomFakeUserId2": {"name": "Stephen the Admin"}, "Id3": {"name": "Kim"}}"#.utf8)
        // example: firebase
        let response = try ResponseDecoder().decode(ObjectsResponse.self, from: data)
        // {"SomeRandomFakeUserId2": {"name": "Stephen the Admin"}, ...}
        //   → objects[0] == Object(objectId: "SomeRandomFakeUserId2", name: "Stephen the Admin")
        // end example: firebase
        #expect(response.objects == [Object(objectId: "SomeRandomFakeUserId2", name: "Stephen the Admin"), Object(objectId: "Id3", name: "Kim")])

        let bad = Data((#"{"SomeRandomFakeUserId2": {"name": "Stephen"},"# + "\n" + #" "-NxA3kq0": {"name": 7}}"#).utf8)
        var message = ""
        // example: firebase
        do {
            _ = try ResponseDecoder().decode(ObjectsResponse.self, from: bad)
        } catch {
            message = "\(error)"
            // decoding failed at $['objects'][1]['name']: expected String, found a number
            //   (input: $['-NxA3kq0']['name'], line 2, column 23)
        }
        // end example: firebase
        #expect(message == "decoding failed at $['objects'][1]['name']: expected String, found a number"
            + " (input: $['-NxA3kq0']['name'], line 2, column 23)")
    }
}
