import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Reshape
import Testing

/// docs/swift.md, "Fetching with URLSession".
@Suite struct URLSessionExample {
    // example: urlsession
    struct User: Codable, Equatable {
        let id: String
        let name: String
    }
    // end example: urlsession

    @Test func run() async throws {
        let server = try LocalHTTPServer(routes: [
            "/users.json": .init(status: 200, body: #"{"-Nx1": {"name": "Ada"}}"#),
            "/secret.json": .init(status: 401, body: #"{"error": "Permission denied"}"#),
        ])
        defer { server.stop() }
        let base = server.baseURL
        // example: urlsession
        let decoder = try ResponseDecoder(rules: [.keyedToArray])
        let users = try await URLSession.shared.decode([User].self, from: base.appendingPathComponent("users.json"), using: decoder)
        // [User(id: "-Nx1", name: "Ada")]

        var status: Int?
        do {
            _ = try await URLSession.shared.decode([User].self, from: base.appendingPathComponent("secret.json"), using: decoder)
        } catch let error as ResponseError {
            status = error.statusCode   // 401; the body is in .httpStatus(401, body:)
        }
        // end example: urlsession
        #expect(users == [User(id: "-Nx1", name: "Ada")])
        #expect(status == 401)
    }
}
