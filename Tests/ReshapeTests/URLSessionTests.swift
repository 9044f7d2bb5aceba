import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Reshape
import Testing

/// Fetch and decode in one call, against a server the test starts on 127.0.0.1.
@Suite(.serialized) struct URLSessionTests {
    struct User: Codable, Equatable {
        let id: String
        let name: String
    }

    struct UsersEndpoint: Endpoint {
        typealias Content = [User]
        var rules: [Rule] { [.unwrap("$.data"), .keyedToArray] }
    }

    static let routes: [String: LocalHTTPServer.Response] = [
        "/users.json": .init(status: 200, body: #"{"-Nx1":{"name":"Ada"},"-Nx2":{"name":"Grace"}}"#),
        "/envelope": .init(status: 200, body: #"{"data":{"-Nx1":{"name":"Ada"}}}"#),
        "/missing": .init(status: 404, body: #"{"error":"Permission denied"}"#),
        "/empty": .init(status: 200, body: ""),
        "/blank": .init(status: 200, body: " \n"),
        "/wrong": .init(status: 200, body: #"{"-Nx1":{"name":7}}"#),
    ]

    static func session() -> URLSession {
        URLSession(configuration: .ephemeral)
    }

    @Test func aTypeFetchedAndDecodedInOneCall() async throws {
        let server = try LocalHTTPServer(routes: Self.routes)
        defer { server.stop() }
        let decoder = try ResponseDecoder(rules: [.keyedToArray])
        let users = try await Self.session().decode([User].self, from: server.baseURL.appendingPathComponent("users.json"), using: decoder)
        #expect(users == [User(id: "-Nx1", name: "Ada"), User(id: "-Nx2", name: "Grace")])
        #expect(server.requests == [LocalHTTPServer.Request(method: "GET", path: "/users.json", body: "")])
    }

    @Test func anEndpointFetchedWithARequest() async throws {
        let server = try LocalHTTPServer(routes: Self.routes)
        defer { server.stop() }
        let users = try await Self.session().decode(UsersEndpoint(), for: URLRequest(url: server.baseURL.appendingPathComponent("envelope")))
        #expect(users == [User(id: "-Nx1", name: "Ada")])
    }

    @Test func anErrorStatusKeepsItsBody() async throws {
        let server = try LocalHTTPServer(routes: Self.routes)
        defer { server.stop() }
        await Self.expect(.httpStatus(404, body: Data(#"{"error":"Permission denied"}"#.utf8))) {
            _ = try await Self.session().decode([User].self, from: server.baseURL.appendingPathComponent("missing"))
        }
        await Self.expect(.httpStatus(404, body: Data(#"{"error":"Permission denied"}"#.utf8))) {
            _ = try await Self.session().decode(UsersEndpoint(), for: URLRequest(url: server.baseURL.appendingPathComponent("missing")))
        }
    }

    @Test func anEmptyOrBlankBodyIsItsOwnError() async throws {
        let server = try LocalHTTPServer(routes: Self.routes)
        defer { server.stop() }
        for path in ["empty", "blank"] {
            await Self.expect(.emptyBody) {
                _ = try await Self.session().decode([User].self, from: server.baseURL.appendingPathComponent(path))
            }
            await Self.expect(.emptyBody) {
                _ = try await Self.session().decode(UsersEndpoint(), for: URLRequest(url: server.baseURL.appendingPathComponent(path)))
            }
        }
    }

    @Test func aDecodingErrorNamesItsPath() async throws {
        let server = try LocalHTTPServer(routes: Self.routes)
        defer { server.stop() }
        let decoder = try ResponseDecoder(rules: [.keyedToArray])
        do {
            _ = try await Self.session().decode([User].self, from: server.baseURL.appendingPathComponent("wrong"), using: decoder)
            Issue.record("decoded a number as a name")
        } catch let error as ResponseError {
            #expect(error.description
                == "decoding failed at $[0]['name']: expected String, found a number (input: $['-Nx1']['name'], line 1, column 17)")
        }
    }

    @Test func aTransportFailureIsURLSessionsOwnError() async throws {
        let server = try LocalHTTPServer(routes: Self.routes)
        let url = server.baseURL.appendingPathComponent("users.json")
        server.stop()
        do {
            _ = try await Self.session().decode([User].self, from: url)
            Issue.record("fetched from a stopped server")
        } catch let error as URLError {
            #expect(error.code == .cannotConnectToHost)
        }
    }

    /// Write-back over the wire: the body `ResponseEncoder` made is what the server received.
    @Test func aPutCarriesTheKeyedBody() async throws {
        let server = try LocalHTTPServer(routes: ["/users.json": .init(status: 200, body: #"{"-Nx1":{"name":"Ada"}}"#)])
        defer { server.stop() }
        var request = URLRequest(url: server.baseURL.appendingPathComponent("users.json"))
        request.httpMethod = "PUT"
        request.httpBody = try ResponseEncoder(rules: [.arrayToKeyed]).encode([User(id: "-Nx1", name: "Ada")])
        let echoed = try await Self.session().decode([User].self, for: request, using: ResponseDecoder(rules: [.keyedToArray]))
        #expect(echoed == [User(id: "-Nx1", name: "Ada")])
        #expect(server.requests == [LocalHTTPServer.Request(method: "PUT", path: "/users.json", body: #"{"-Nx1":{"name":"Ada"}}"#)])
    }

    /// The synchronous form: a status only an `HTTPURLResponse` has.
    @Test func decodeWithAResponse() throws {
        let url = URL(fileURLWithPath: "/users.json")
        let body = Data(#"{"-Nx1":{"name":"Ada"}}"#.utf8)
        let decoder = try ResponseDecoder(rules: [.keyedToArray])
        let ok = HTTPURLResponse(url: url, statusCode: 204, httpVersion: "HTTP/1.1", headerFields: nil)
        let teapot = HTTPURLResponse(url: url, statusCode: 418, httpVersion: "HTTP/1.1", headerFields: nil)
        let file = URLResponse(url: url, mimeType: "application/json", expectedContentLength: body.count, textEncodingName: nil)
        #expect(try decoder.decode([User].self, from: body, response: ok) == [User(id: "-Nx1", name: "Ada")])
        #expect(try decoder.decode([User].self, from: body, response: file) == [User(id: "-Nx1", name: "Ada")])
        #expect(try decoder.decode([User].self, from: body, response: nil) == [User(id: "-Nx1", name: "Ada")])
        #expect(throws: ResponseError.self) { try decoder.decode([User].self, from: body, response: teapot) }
        do {
            _ = try decoder.decode([User].self, from: body, response: teapot)
        } catch {
            #expect(error.statusCode == 418)
        }
        let plain = ResponseDecoder()
        #expect(try plain.decode(UsersEndpoint(), from: Data(#"{"data":{}}"#.utf8), response: ok) == [])
        #expect(throws: ResponseError.self) { try plain.decode(UsersEndpoint(), from: Data(#"{"data":{}}"#.utf8), response: teapot) }
        do {
            _ = try plain.decode(UsersEndpoint(), from: nil, response: ok)
            Issue.record("decoded no data")
        } catch {
            #expect(error.description == "no data")
        }
    }

    static func expect(_ expected: ResponseError, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("no error; expected \(expected)", sourceLocation: sourceLocation)
        } catch let error as ResponseError {
            #expect(error.description == expected.description, sourceLocation: sourceLocation)
            #expect(error.statusCode == expected.statusCode, sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }
}
