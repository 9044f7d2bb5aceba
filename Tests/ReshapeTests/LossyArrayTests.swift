import Foundation
import Reshape
import Testing

// Seed 001: `JSONArray<Element>` with `flatMap(Element.init)` keeps the repositories that map and
// silently forgets the others. `LossyArray` keeps them too, and says which it dropped and why.

/// The seed's `Repository`: `description` and `full_name` are required.
private struct Repository: Decodable, Equatable {
    let desc: String
    let name: String

    enum CodingKeys: String, CodingKey {
        case desc = "description"
        case name = "full_name"
    }
}

private struct Page: Decodable {
    let total: Int
    @LossyArray var repositories: [Repository]
}

/// Decoded with `.convertFromSnakeCase`: the Swift key is `fullName`, the JSON member `full_name`.
private struct SnakeRepository: Decodable, Equatable {
    let fullName: String
}

private struct RepositoriesEndpoint: Endpoint {
    typealias Content = LossyArray<Repository>
}

@Suite struct LossyArrayTests {
    /// GitHub's /user/repos, trimmed: the second has no description (GitHub sends null).
    static let repositoriesJSON = """
        [
          {"id": 1, "full_name": "octo/hello", "description": "Hello, world", "private": false},
          {"id": 2, "full_name": "octo/empty", "description": null, "private": false},
          {"id": 3, "full_name": "octo/tools", "description": "Tools", "private": false},
          "not a repository"
        ]
        """

    fileprivate static let kept = [Repository(desc: "Hello, world", name: "octo/hello"), Repository(desc: "Tools", name: "octo/tools")]

    @Test func dropsWhatFailsAndRecordsEachDrop() throws {
        let repositories = try ResponseDecoder().decode(LossyArray<Repository>.self, from: body(Self.repositoriesJSON))
        #expect(repositories.elements == Self.kept)
        #expect(Array(repositories) == Self.kept)
        #expect(repositories.count == 2)
        #expect(repositories.drops.map(\.index) == [1, 3])
        #expect(repositories.drops.map(\.path) == ["$[1]", "$[3]"])
        #expect(repositories.drops.map(\.errorPath) == ["$[1]['description']", "$[3]"])
        #expect(repositories.drops[0].reason == "expected String, found null")
        #expect(repositories.drops[0].description == "dropped $[1]: at $[1]['description']: expected String, found null")
        #expect(repositories.drops[0].error is DecodingError)
    }

    @Test func theDecoderReturnsEveryDropWithResolvedPaths() throws {
        let (repositories, diagnostics) = try ResponseDecoder().decodeWithDiagnostics(
            LossyArray<Repository>.self, from: body(Self.repositoriesJSON))
        #expect(repositories.elements == Self.kept)
        #expect(diagnostics.map(\.description) == [
            "dropped $[1]: at $[1]['description']: expected String, found null",
            "dropped $[3]: at $[3]: expected an object, found a string",
        ])
    }

    @Test func asAPropertyWrapper() throws {
        let json = #"{"total": 4, "repositories": \#(Self.repositoriesJSON)}"#
        let (page, diagnostics) = try ResponseDecoder().decodeWithDiagnostics(Page.self, from: body(json))
        #expect(page.total == 4)
        #expect(page.repositories == Self.kept)
        #expect(page.$repositories.drops.map(\.path) == ["$['repositories'][1]", "$['repositories'][3]"])
        #expect(diagnostics.map(\.errorPath) == ["$['repositories'][1]['description']", "$['repositories'][3]"])
    }

    @Test func withAPlainJSONDecoderTheDropsStayInTheValue() throws {
        let page = try JSONDecoder().decode(Page.self, from: body(#"{"total": 1, "repositories": [{"full_name": "a"}]}"#))
        #expect(page.repositories.isEmpty)
        #expect(page.$repositories.drops.map(\.errorPath) == ["$['repositories'][0]"])
        #expect(page.$repositories.drops.map(\.reason) == [#"no member "description""#])
    }

    @Test func keyStrategyPathsAreMappedBackToJSONNames() throws {
        let json = #"[{"full_name": "a"}, {"full_name": null}, {"fullName": "b"}]"#
        let plain = JSONDecoder()
        plain.keyDecodingStrategy = .convertFromSnakeCase
        let decoder = ResponseDecoder(decoder: plain)
        let (repositories, diagnostics) = try decoder.decodeWithDiagnostics(LossyArray<SnakeRepository>.self, from: body(json))
        #expect(repositories.elements == [SnakeRepository(fullName: "a"), SnakeRepository(fullName: "b")])
        // The value itself knows only the Swift-side key; the decoder maps it to the JSON member.
        #expect(repositories.drops.map(\.errorPath) == ["$[1]['fullName']"])
        #expect(diagnostics.map(\.errorPath) == ["$[1]['full_name']"])
        #expect(diagnostics.map(\.reason) == ["expected String, found null"])
    }

    @Test func onlyTheElementsAreLenient() {
        for json in [#"{"total": 0}"#, #"{"total": 0, "repositories": null}"#, #"{"total": 0, "repositories": {}}"#] {
            let error = responseError { () throws(ResponseError) in try ResponseDecoder().decode(Page.self, from: body(json)) }
            guard case .decoding(let path, _, _)? = error else {
                Issue.record("expected .decoding for \(json), got \(String(describing: error))")
                continue
            }
            #expect(path == (json.contains("repositories") ? "$['repositories']" : "$"), "\(json)")
        }
    }

    @Test func asAnEndpointContent() throws {
        let repositories = try ResponseDecoder().decode(RepositoriesEndpoint(), from: body(Self.repositoriesJSON), statusCode: 200)
        #expect(repositories.elements == Self.kept)
        #expect(repositories.drops.count == 2)
    }

    @Test func encodesItsElements() throws {
        let array = LossyArray(wrappedValue: [1, 2])
        #expect(String(decoding: try JSONEncoder().encode(array), as: UTF8.self) == "[1,2]")
        #expect(array.drops.isEmpty)
    }
}
