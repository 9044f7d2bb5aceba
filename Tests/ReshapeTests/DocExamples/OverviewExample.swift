import Foundation
import Reshape
import Testing

/// docs/swift.md, the overview.
@Suite struct OverviewExample {
    struct User: Decodable, Equatable {
        let objectId: String
        let name: String
    }

    @Test func run() throws {
        let data = Data(#"{"-Nx1": {"name": "Ada"}, "-Nx2": {"name": "Grace"}}"#.utf8)
        // example: overview
        let decoder = try ResponseDecoder(rules: [.keyedToArray(idKey: "objectId")])
        let users = try decoder.decode([User].self, from: data)
        // end example: overview
        #expect(users == [User(objectId: "-Nx1", name: "Ada"), User(objectId: "-Nx2", name: "Grace")])
    }
}
