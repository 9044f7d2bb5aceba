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
    }
}
