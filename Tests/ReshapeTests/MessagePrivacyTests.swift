import Foundation
import Reshape
import ReshapeCore
import Testing

/// Typed-decoding messages name the kind of value found, never the value (`docs/swift.md`,
/// "Errors"): a body holding a marker in every position that fails must give messages and
/// diagnostics without it, each worded as the engine words its own.
@Suite struct MessagePrivacyTests {
    static let marker = "jane.doe@example.com"
    static let number = "31337"

    enum Role: String, Codable { case admin, member }
    enum Level: Int, Codable { case low = 1, high = 2 }
    enum Plan: String, Codable, UnknownCaseRepresentable {
        case free, pro, unknown
        static let unknownCase = Plan.unknown
    }

    /// The message of the one error decoding `json` as `T` gives.
    static func message<T: Decodable>(_ type: T.Type, _ json: String, decoder: ResponseDecoder = ResponseDecoder()) -> String? {
        do {
            _ = try decoder.decode(type, from: Data(json.utf8))
            return nil
        } catch {
            guard case .decoding(_, let message, _) = error else { return "unexpected: \(error)" }
            #expect("\(error)".hasSuffix(message))
            return message
        }
    }

    static func decoder(_ configure: (JSONDecoder) -> Void) -> ResponseDecoder {
        let decoder = JSONDecoder()
        configure(decoder)
        return ResponseDecoder(decoder: decoder)
    }

    @Test func strictTypesNameTheKindOfValue() {
        struct HasRole: Decodable { let role: Role }
        struct HasLevel: Decodable { let level: Level }
        struct Small: Decodable { let count: Int8 }
        struct Real: Decodable { let ratio: Float }
        struct Whole: Decodable { let count: Int }
        struct Link: Decodable { let url: URL }
        struct Stamp: Decodable { let at: Date }
        struct Blob: Decodable { let bytes: Data }
        let cases: [(String?, String)] = [
            (Self.message(HasRole.self, #"{"role": "\#(Self.marker)"}"#), "expected Role, found a string that is none of its raw values"),
            (Self.message(HasLevel.self, #"{"level": \#(Self.number)}"#), "expected Level, found a number that is none of its raw values"),
            (Self.message(Small.self, #"{"count": \#(Self.number)}"#), "expected Int8, found a number it cannot represent"),
            (Self.message(Whole.self, #"{"count": \#(Self.number).5}"#), "expected Int, found a number it cannot represent"),
            (Self.message(Real.self, #"{"ratio": \#(Self.number)e99}"#), "expected Float, found a number it cannot represent"),
            (Self.message(Whole.self, #"{"count": "\#(Self.marker)"}"#), "expected Int, found a string"),
            (Self.message(Link.self, #"{"url": ""}"#), "expected URL, found a string that is not a URL"),
            (Self.message(Stamp.self, #"{"at": "\#(Self.marker)"}"#, decoder: Self.decoder { $0.dateDecodingStrategy = .iso8601 }),
             "expected an ISO 8601 date, found a string that is not one"),
            (Self.message(Blob.self, #"{"bytes": "\#(Self.marker)"}"#, decoder: Self.decoder { $0.dataDecodingStrategy = .base64 }),
             "expected Base64 data, found a string that is not Base64"),
        ]
        for (message, expected) in cases {
            #expect(message == expected)
        }
    }

    @Test func diagnosticsNameTheKindOfValue() throws {
        struct Settings: Decodable {
            @DefaultFalse var beta: Bool
            @LossyOptional var homepage: URL?
            @LossyDictionary var quotas: [String: Int]
            @LossyDictionary var byRound: [Int: Int]
            var plan: Plan
            var roles: LossyArray<Role>
        }
        let json = """
            {"beta": "\(Self.marker)", "homepage": "", "quotas": {"cpu": "\(Self.marker)"},
             "byRound": {"1": 2, "3": "\(Self.marker)"}, "plan": "\(Self.marker)", "roles": ["admin", "\(Self.marker)"]}
            """
        let (_, diagnostics) = try ResponseDecoder().decodeWithDiagnostics(Settings.self, from: Data(json.utf8))
        #expect(diagnostics.map(\.reason) == [
            "expected Bool, found a string",
            "expected URL, found a string that is not a URL",
            "expected Int, found a string",
            "expected Int, found a string",
            "expected Plan, found a string that is none of its raw values",
            "expected Role, found a string that is none of its raw values",
        ])
        for diagnostic in diagnostics {
            #expect(!diagnostic.description.contains(Self.marker))
        }
    }

    /// `JSONDecoder`'s own texts, which quote values, are worded again too.
    @Test func foreignTextsAreWordedAgain() throws {
        struct Quoting: Decodable {
            init(from decoder: any Decoder) throws {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "Parsed JSON number \(MessagePrivacyTests.number) does not fit in Int8."))
            }
        }
        struct Holder: Decodable { let value: Quoting }
        #expect(Self.message(Holder.self, #"{"value": 1}"#) == "expected Int8, found a number it cannot represent")
        struct Other: Decodable {
            init(from decoder: any Decoder) throws {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "bad \(MessagePrivacyTests.marker)",
                    underlyingError: CocoaError(.coderInvalidValue)))
            }
        }
        struct OtherHolder: Decodable { let value: Other }
        #expect(Self.message(OtherHolder.self, #"{"value": "x"}"#) == "a string that does not decode here")
    }
}
