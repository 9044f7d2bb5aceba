import Foundation
import Reshape
import Testing

/// docs/swift.md, "Where each diagnostic's value was in the body".
@Suite struct TracedDiagnosticsExample {
    enum Plan: String, Codable, UnknownCaseRepresentable {
        case free, pro, unknown
        static let unknownCase = Plan.unknown
    }

    // example: traced-diagnostics
    struct Account: Decodable {
        let id: String
        @DefaultFalse var isBeta: Bool
        @LossyOptional var homepage: URL?
        @LossyDictionary var quotas: [String: Int]
        @LossyArray var tags: [String]
        var plan: Plan
    }

    struct Accounts: Decodable, PayloadTransformable {
        let accounts: [Account]
        static let rules: [Rule] = [.keyedToArray(wrapIn: "accounts"), .convertKeys(to: .camelCase)]
    }
    // end example: traced-diagnostics

    @Test func run() throws {
        let data = Data(#"""
            {"-NxA3kq0": {"is_beta": "yes", "homepage": 7,
                          "quotas": {"cpu": "lots"}, "tags": ["a", 1], "plan": "gold"}}
            """#.utf8)
        // example: traced-diagnostics
        let (_, notes) = try ResponseDecoder().decodeWithDiagnostics(Accounts.self, from: data)
        let inTheBody = notes.map { $0.source?.description ?? "" }
        // ["$['-NxA3kq0']['is_beta'], line 1, column 26, renamed by rule 2 (convertKeys) from \"is_beta\"",
        //  "$['-NxA3kq0']['homepage'], line 1, column 45",
        //  "$['-NxA3kq0']['quotas']['cpu'], line 2, column 33",
        //  "$['-NxA3kq0']['tags'][1], line 2, column 56",
        //  "$['-NxA3kq0']['plan'], line 2, column 68"]
        // end example: traced-diagnostics
        #expect(inTheBody == [
            #"$['-NxA3kq0']['is_beta'], line 1, column 26, renamed by rule 2 (convertKeys) from "is_beta""#,
            "$['-NxA3kq0']['homepage'], line 1, column 45",
            "$['-NxA3kq0']['quotas']['cpu'], line 2, column 33",
            "$['-NxA3kq0']['tags'][1], line 2, column 56",
            "$['-NxA3kq0']['plan'], line 2, column 68",
        ])
        #expect(notes.map(\.kind) == [.usedDefault, .droppedValue, .droppedEntry, .droppedElement, .unknownCase])
        #expect(notes.first?.description == "default for $['accounts'][0]['isBeta']: at $['accounts'][0]['isBeta']: "
            + #"expected Bool, found a string (input: $['-NxA3kq0']['is_beta'], line 1, column 26, renamed by rule 2 (convertKeys) from "is_beta")"#)
    }
}
