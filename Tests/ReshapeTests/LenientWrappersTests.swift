import Foundation
import Reshape
import ReshapeCore
import Testing

/// Defaults, lossy optionals and dictionaries, and unknown enum cases: never a silent loss.
@Suite struct LenientWrappersTests {
    enum Plan: String, Codable, Hashable, UnknownCaseRepresentable {
        case free, pro, unknown
        static let unknownCase = Plan.unknown
    }

    enum Level: Int, Codable, Hashable, UnknownCaseRepresentable {
        case low = 1, high = 2, other = 0
        static let unknownCase = Level.other
    }

    enum GuestRole: DefaultValueProvider {
        static let defaultValue = "guest"
    }

    struct Account: Codable, Hashable {
        @DefaultFalse var isBeta: Bool
        @DefaultTrue var notify: Bool
        @DefaultZero var loginCount: Int
        @DefaultEmptyArray var tags: [String]
        @DefaultEmptyDictionary var limits: [String: Int]
        @DefaultCodable<GuestRole> var role: String
        @LossyOptional var homepage: URL?
        @LossyDictionary var rates: [String: Double]
        var plan: Plan
        var level: Level?
    }

    static let messy = #"""
        {"is_beta": "yes", "notify": null, "tags": ["a", 1], "limits": {"daily_max": 5},
         "homepage": 42, "rates": {"EUR": 1.1, "XXX": "n/a", "GBP_X": 0.8},
         "plan": "enterprise", "level": 7}
        """#

    /// Both ways a `ResponseDecoder` decodes: straight `JSONDecoder` (no rules) and the engine's
    /// output read in place (a rule that changes nothing).
    static let decoders: [ResponseDecoder] = {
        let snake = JSONDecoder()
        snake.keyDecodingStrategy = .convertFromSnakeCase
        return [ResponseDecoder(decoder: snake), (try? ResponseDecoder(rules: [.remove("$['__absent__']")], decoder: snake)) ?? ResponseDecoder()]
    }()

    @Test(arguments: [0, 1])
    func everyReplacementIsDecodedAndReported(_ way: Int) throws {
        let (account, diagnostics) = try Self.decoders[way].decodeWithDiagnostics(Account.self, from: Data(Self.messy.utf8))
        #expect(account.isBeta == false)
        #expect(account.notify == true)
        #expect(account.loginCount == 0)
        #expect(account.tags == [])
        #expect(account.limits == ["daily_max": 5])
        #expect(account.role == "guest")
        #expect(account.homepage == nil)
        #expect(account.rates == ["EUR": 1.1, "GBP_X": 0.8])
        #expect(account.plan == .unknown)
        #expect(account.level == .other)
        #expect(diagnostics.map(\.description) == [
            #"default for $['is_beta']: at $['is_beta']: expected Bool, found a string"#,
            #"default for $['notify']: at $['notify']: expected Bool, found null"#,
            #"default for $['loginCount']: at $: no member decoding as the key "loginCount""#,
            #"default for $['tags']: at $['tags'][1]: expected String, found a number"#,
            #"default for $['role']: at $: no member decoding as the key "role""#,
            #"nil for $['homepage']: at $['homepage']: expected String, found a number"#,
            #"dropped $['rates']['XXX']: at $['rates']['XXX']: expected Double, found a string"#,
            #"unknown case for $['plan']: at $['plan']: expected Plan, found a string that is none of its raw values"#,
            #"unknown case for $['level']: at $['level']: expected Level, found a number that is none of its raw values"#,
        ])
        #expect(diagnostics.map(\.kind) == [.usedDefault, .usedDefault, .usedDefault, .usedDefault, .usedDefault, .droppedValue, .droppedEntry, .unknownCase, .unknownCase])
        #expect(diagnostics.map(\.index) == Array(repeating: -1, count: 9))
        #expect(diagnostics.compactMap(\.key) == ["XXX"])
    }

    /// The wrappers keep their own diagnostic with any decoder (paths as the decoder names them).
    @Test func aPlainJSONDecoderKeepsTheDiagnosticsInTheValues() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let account = try decoder.decode(Account.self, from: Data(Self.messy.utf8))
        #expect(account.$isBeta.diagnostic?.description == "default for $['isBeta']: at $['isBeta']: expected Bool, found a string")
        #expect(account.$loginCount.diagnostic?.reason == #"no member "loginCount""#)
        #expect(account.$tags.diagnostic?.errorPath == "$['tags'][1]")
        #expect(account.$homepage.diagnostic?.kind == .droppedValue)
        #expect(account.$rates.drops.map(\.path) == ["$['rates']['XXX']"])
        #expect(account.$limits.diagnostic == nil)
    }

    @Test func valuesThatDecodeAreKeptWithoutDiagnostics() throws {
        let json = #"""
            {"isBeta": true, "notify": false, "loginCount": 3, "tags": ["x"], "limits": {}, "role": "admin",
             "homepage": "https://example.com", "rates": {"EUR": 1}, "plan": "pro", "level": 2}
            """#
        let (account, diagnostics) = try ResponseDecoder(rules: [.remove("$['__absent__']")]).decodeWithDiagnostics(
            Account.self, from: Data(json.utf8))
        #expect(diagnostics.isEmpty)
        #expect(account.isBeta && !account.notify && account.loginCount == 3 && account.tags == ["x"] && account.role == "admin")
        #expect(account.homepage == URL(string: "https://example.com") && account.rates == ["EUR": 1] && account.plan == .pro && account.level == .high)
        // Encoding writes the values, and they decode to an equal account.
        let encoded = try JSONEncoder().encode(account)
        #expect(try JSONDecoder().decode(Account.self, from: encoded) == account)
        #expect(Set([account, account]).count == 1)
    }

    @Test func missingAndNullOptionalsAreAbsenceNotLoss() throws {
        struct Profile: Decodable {
            @LossyOptional var avatar: URL?
            @LossyOptional var bio: String?
        }
        let (profile, diagnostics) = try ResponseDecoder().decodeWithDiagnostics(Profile.self, from: Data(#"{"bio": null}"#.utf8))
        #expect(profile.avatar == nil && profile.bio == nil)
        #expect(diagnostics.isEmpty)
    }

    @Test func aLossyDictionaryStillNeedsAnObject() throws {
        struct Rates: Decodable { @LossyDictionary var rates: [String: Double] }
        #expect(throws: ResponseError.self) { try ResponseDecoder().decode(Rates.self, from: Data(#"{"rates": [1]}"#.utf8)) }
        #expect(throws: ResponseError.self) { try ResponseDecoder().decode(Rates.self, from: Data(#"{}"#.utf8)) }
    }

    @Test func integerKeysThatAreNotIntegersAreDropped() throws {
        struct Scores: Decodable { @LossyDictionary var byRound: [Int: Int] }
        let (scores, diagnostics) = try ResponseDecoder().decodeWithDiagnostics(
            Scores.self, from: Data(#"{"byRound": {"1": 10, "two": 20, "3": 30}}"#.utf8))
        #expect(scores.byRound == [1: 10, 3: 30])
        #expect(diagnostics.map(\.description) == ["dropped $['byRound']['two']: at $['byRound']['two']: expected a member name that is a key of type Int, found another name"])
    }

    @Test func anUnknownCaseNeedsTheRightRawType() throws {
        #expect(throws: ResponseError.self) { try ResponseDecoder().decode([Plan].self, from: Data(#"["free", 3]"#.utf8)) }
        #expect(throws: ResponseError.self) { try ResponseDecoder().decode([Plan].self, from: Data(#"[null]"#.utf8)) }
        let (plans, diagnostics) = try ResponseDecoder().decodeWithDiagnostics([Plan].self, from: Data(#"["free", "gold", "pro"]"#.utf8))
        #expect(plans == [.free, .unknown, .pro])
        #expect(diagnostics.map(\.path) == ["$[1]"])
    }

    enum Ratio: Double, Codable, UnknownCaseRepresentable {
        case half = 0.5, whole = 1, other = -1
        static let unknownCase = Ratio.other
    }

    enum Small: UInt8, Codable, UnknownCaseRepresentable {
        case one = 1, none = 0
        static let unknownCase = Small.none
    }

    /// Raw types other than `String` and `Int`, which the standard library also decodes itself.
    @Test func otherRawTypesFallBackToo() throws {
        let (ratios, notes) = try ResponseDecoder().decodeWithDiagnostics([Ratio].self, from: Data("[0.5, 2, 1]".utf8))
        #expect(ratios == [.half, .other, .whole])
        #expect(notes.map(\.kind) == [.unknownCase])
        let smalls = try ResponseDecoder(rules: [.remove("$['__absent__']")]).decode([Small].self, from: Data("[1, 9]".utf8))
        #expect(smalls == [.one, .none])
    }

    @Test func equalityIgnoresDiagnostics() throws {
        let decoded = try JSONDecoder().decode(Account.self, from: Data(#"{"plan": "free", "rates": {}}"#.utf8))
        let made = Account(
            isBeta: false, notify: true, loginCount: 0, tags: [], limits: [:], role: "guest", homepage: nil, rates: [:], plan: .free, level: nil)
        #expect(decoded == made)
        #expect(decoded.hashValue == made.hashValue)
        #expect(decoded.$isBeta.diagnostic != nil && made.$isBeta.diagnostic == nil)
    }
}
