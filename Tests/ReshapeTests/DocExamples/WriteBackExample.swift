import Foundation
import Reshape
import ReshapeCore
import Testing

/// docs/swift.md, "Writing back".
@Suite struct WriteBackExample {
    // example: write-back
    struct User: Codable, Equatable {
        let id: String
        let firstName: String
    }
    // end example: write-back

    @Test func run() throws {
        let data = Data(#"{"-Nx1": {"first_name": "Ada"}, "-Nx2": {"first_name": "Grace"}}"#.utf8)
        // example: write-back
        let decoder = try ResponseDecoder(rules: [.keyedToArray(idKey: "id"), .convertKeys(to: .camelCase)])
        var users = try decoder.decode([User].self, from: data)
        users.append(User(id: "-Nx3", firstName: "Kim"))

        let sorted = JSONEncoder()
        sorted.outputFormatting = .sortedKeys
        let encoder = try ResponseEncoder(rules: [.convertKeys(to: .snakeCase), .arrayToKeyed(idKey: "id")], encoder: sorted)
        let body = try encoder.encode(users)   // for a PUT to /users.json
        // {"-Nx1":{"first_name":"Ada"},"-Nx2":{"first_name":"Grace"},"-Nx3":{"first_name":"Kim"}}
        // end example: write-back
        #expect(String(decoding: body, as: UTF8.self) == #"{"-Nx1":{"first_name":"Ada"},"-Nx2":{"first_name":"Grace"},"-Nx3":{"first_name":"Kim"}}"#)
    }
}
