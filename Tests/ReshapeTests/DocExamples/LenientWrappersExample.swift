import Foundation
import Reshape
import Testing

/// docs/swift.md, "Defaults, lossy optionals and dictionaries, unknown cases".
@Suite struct LenientWrappersExample {
    // example: lenient-wrappers
    enum Plan: String, Codable, UnknownCaseRepresentable {
        case free, pro, unknown
        static let unknownCase = Plan.unknown
    }

    enum Anonymous: DefaultValueProvider {
        static let defaultValue = "anonymous"
    }

    struct Settings: Codable, Equatable {
        @DefaultFalse var beta: Bool                      // missing, null or "yes" → false
        @DefaultEmptyArray var tags: [String]             // missing, null or not [String] → []
        @DefaultCodable<Anonymous> var owner: String      // a default of your own
        @LossyOptional var homepage: URL?                 // not a URL string → nil
        @LossyDictionary var quotas: [String: Int]        // drops the entries that are not Ints
        var plan: Plan                                    // a plan this build does not know → .unknown
    }
    // end example: lenient-wrappers

    @Test func run() throws {
        let data = Data(#"{"beta": "yes", "homepage": 7, "quotas": {"disk": 10, "cpu": "lots"}, "plan": "enterprise"}"#.utf8)
        // example: lenient-wrappers
        let (settings, notes) = try ResponseDecoder().decodeWithDiagnostics(Settings.self, from: data)
        // Settings(beta: false, tags: [], owner: "anonymous", homepage: nil, quotas: ["disk": 10], plan: .unknown)
        let why = notes.map(\.description)
        // ["default for $['beta']: at $['beta']: expected Bool, found a string",
        //  "default for $['tags']: at $: no member \"tags\"", ...]
        let sameDiagnostic = settings.$beta.diagnostic?.description == why.first   // true: kept in the value too
        // end example: lenient-wrappers
        #expect(settings == Settings(beta: false, tags: [], owner: "anonymous", homepage: nil, quotas: ["disk": 10], plan: .unknown))
        #expect(why == [
            #"default for $['beta']: at $['beta']: expected Bool, found a string"#,
            #"default for $['tags']: at $: no member "tags""#,
            #"default for $['owner']: at $: no member "owner""#,
            #"nil for $['homepage']: at $['homepage']: expected String, found a number"#,
            #"dropped $['quotas']['cpu']: at $['quotas']['cpu']: expected Int, found a string"#,
            #"unknown case for $['plan']: at $['plan']: expected Plan, found a string that is none of its raw values"#,
        ])
        #expect(sameDiagnostic)
    }
}
