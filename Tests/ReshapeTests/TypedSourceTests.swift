import Foundation
import Reshape
import Testing

/// Typed decoding errors and diagnostics name where the failing value was in the body, through
/// every stage of rules (docs/trace.md).
@Suite struct TypedSourceTests {
    struct User: Decodable {
        let id: String
        let displayName: String
        let age: Int
    }

    struct Users: Decodable, PayloadTransformable {
        let users: [User]
        static let rules: [Rule] = [.convertKeys(to: .camelCase)]
    }

    struct Page: Decodable, PayloadTransformable {
        @LossyArray var users: [User]
        static let rules: [Rule] = [.convertKeys(to: .camelCase)]
    }

    static let body = Data((#"{"-Nx1": {"display_name": "Ada", "age": 37},"# + "\n" + #" "-Nx2": {"display_name": "Bo", "age": "41"}}"#).utf8)

    /// The decoder's rules document and the type's rules: two stages, traced one after the other.
    static func decoder() throws -> ResponseDecoder {
        ResponseDecoder(rules: try Rules(json: #"[{"op":"keyedToArray","wrapIn":"users"}]"#))
    }

    @Test func aDecodingErrorNamesTheBodysValue() throws {
        do {
            _ = try Self.decoder().decode(Users.self, from: Self.body)
            Issue.record("expected a decoding error")
        } catch {
            guard case .decoding(let path, let message, _)? = error as? ResponseError else {
                Issue.record("expected .decoding, got \(error)")
                return
            }
            #expect(path == "$['users'][1]['age']")
            #expect(message == "expected Int, found a string (input: $['-Nx2']['age'], line 2, column 40)")
        }
    }

    @Test func diagnosticsNameTheBodysValue() throws {
        let (page, diagnostics) = try Self.decoder().decodeWithDiagnostics(Page.self, from: Self.body)
        #expect(page.users.map(\.id) == ["-Nx1"])
        #expect(diagnostics.map(\.description) == [
            "dropped $['users'][1]: at $['users'][1]['age']: expected Int, found a string (input: $['-Nx2']['age'], line 2, column 40)"
        ])
        let source = try #require(diagnostics.first?.source)
        #expect(source == ValueSource(origin: .input, path: "$['-Nx2']['age']", line: 2, column: 40, position: 84))
    }

    @Test func aRenamedMemberNamesItsStagesInOrder() throws {
        struct Named: Decodable, PayloadTransformable {
            let users: [Int]
            static let rules: [Rule] = [.convertKeys(to: .camelCase)]
        }
        do {
            _ = try Self.decoder().decode(Named.self, from: Self.body)
            Issue.record("expected a decoding error")
        } catch {
            guard case .decoding(_, let message, _)? = error as? ResponseError else {
                Issue.record("expected .decoding, got \(error)")
                return
            }
            // The record was rebuilt by rule 1 (the decoder's rules), not by the type's rule 2.
            #expect(message == "expected Int, found an object (input: $['-Nx1'], line 1, column 10, rebuilt by rule 1 (keyedToArray))")
        }
    }

    @Test func aRuleFailureCarriesItsSource() throws {
        struct Strict: Decodable, PayloadTransformable {
            let users: [User]
            static let rules: [Rule] = [.convertKeys(to: .camelCase), .coerce("$.users[*].age", to: .integer)]
        }
        do {
            _ = try Self.decoder().decode(Strict.self, from: Data(#"{"-Nx1": {"display_name": "Ada", "age": "x"}}"#.utf8))
            Issue.record("expected coerce to fail")
        } catch {
            let failure = try #require(error as? ResponseError)
            #expect(failure.source == ValueSource(origin: .input, path: "$['-Nx1']['age']", line: 1, column: 41, position: 40))
            #expect("\(failure)".hasSuffix("(input: $['-Nx1']['age'], line 1, column 41)"))
        }
    }
}
