import Foundation
import ReshapeCore
import Testing

/// `convertKeys` must rename exactly as Foundation's key strategies do, a `-` read as `_` (kept as
/// it is before the first word and after the last for camelCase). These tests ask Foundation itself
/// (JSONDecoder's convertFromSnakeCase, JSONEncoder's convertToSnakeCase) and compare.
@Suite struct KeyConversionTests {
    static let corpus: [String] = {
        var keys = [
            "", "_", "__", "a", "A", "id", "ID", "Id", "URL", "url", "userID", "userId", "user_id", "user__id",
            "_user_id", "user_id_", "__user__id__", "myURLProperty", "my_url_property", "one_two_three",
            "_one_two_three_", "ALL_CAPS", "Mixed_Case_Words", "user_2fa", "2fa_code", "a_b_c_d", "a1_b2_c3",
            "camelCase_with_snake", "HTTPServer", "getHTTPResponseCode", "snake_CASE", "x_y", "x__", "__x",
            "a.b_c", "it's_here", "a:b_c", "caret^_x", "back`tick_y", "über_uns", "straße_nummer", "état_civil",
            "ÉTAT_CIVIL", "ǅemal_ǆ", "ﬁle_name", "i̇stanbul_city", "ßig_ßig", "émoji_😀_key", "ΑΒΓ_δεζ",
            "русский_ключ", "日本_語", "a\u{301}_b\u{301}", "ÀbcDef", "abcÀef", "ÀÉÎ", "tab\there_x",
            "new\nline_x", "cr\r\nlf_x", "x_it's_a", "x_a·b", "x_a‘b", "x_a’b", "x_a\u{AD}b", "x_aʰb", "space here_x", "dash-key_x", "Σ_final_σ", "ΣΑΣ_x",
        ]
        // Random ASCII names from the characters real APIs use.
        var generator = SeededGenerator(seed: 42)
        let alphabet = Array("abcXYZ_09-.:'^`")
        for _ in 0..<400 {
            let length = Int.random(in: 1...10, using: &generator)
            keys.append(String((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "a" }))
        }
        return keys
    }()

    @Test func camelCaseMatchesFoundation() throws {
        var mismatches: [String] = []
        for key in Self.corpus {
            var expected = try foundationFromSnakeCase(Self.hyphensRead(key))
            // The separators around the words stay as they were.
            let leading = key.prefix(while: { $0 == "_" || $0 == "-" })
            let trailing = key.dropFirst(leading.count).reversed().prefix(while: { $0 == "_" || $0 == "-" })
            if key.contains("-") {
                expected = String(leading) + expected.dropFirst(leading.count).dropLast(trailing.count) + String(trailing.reversed())
            }
            let actual = try engineConvert(key, to: "camelCase")
            if expected != actual { mismatches.append("\(key.debugDescription): Foundation \(expected.debugDescription), engine \(actual.debugDescription)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }

    @Test func snakeCaseMatchesFoundation() throws {
        var mismatches: [String] = []
        for key in Self.corpus {
            let expected = try foundationToSnakeCase(Self.hyphensRead(key))
            let actual = try engineConvert(key, to: "snake_case")
            if expected != actual { mismatches.append("\(key.debugDescription): Foundation \(expected.debugDescription), engine \(actual.debugDescription)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }

    /// kebab-case is snake_case written with `-`.
    @Test func kebabCaseIsSnakeCaseWithHyphens() throws {
        var mismatches: [String] = []
        for key in Self.corpus {
            let expected = try foundationToSnakeCase(Self.hyphensRead(key)).replacingOccurrences(of: "_", with: "-")
            let actual = try engineConvert(key, to: "kebab-case")
            if expected != actual { mismatches.append("\(key.debugDescription): expected \(expected.debugDescription), engine \(actual.debugDescription)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
        #expect(try engineConvert("firstName", to: "kebab-case") == "first-name")
        #expect(try engineConvert("first-name", to: "camelCase") == "firstName")
        #expect(try engineConvert("x-request-id", to: "snake_case") == "x_request_id")
        #expect(try engineConvert("-Nx-a_b-", to: "camelCase") == "-nxAB-")
    }

    /// A name with each `-` read as `_`, as convertKeys reads kebab-case names.
    static func hyphensRead(_ key: String) -> String {
        key.replacingOccurrences(of: "-", with: "_")
    }

    /// The engine's conversion of one member name, through a real rules document.
    private func engineConvert(_ key: String, to target: String) throws -> String {
        let rules = try Rules(json: #"[{"op": "convertKeys", "to": "\#(target)"}]"#)
        let input = try JSONSerialization.data(withJSONObject: [key: 1])
        let output = try rules.apply(to: [UInt8](input))
        let object = try JSONSerialization.jsonObject(with: Data(output)) as? [String: Any]
        return object?.keys.first ?? "<none>"
    }

    private func foundationFromSnakeCase(_ key: String) throws -> String {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let input = try JSONSerialization.data(withJSONObject: [key: 1])
        return try decoder.decode(KeyRecorder.self, from: input).keys.first ?? "<none>"
    }

    private func foundationToSnakeCase(_ key: String) throws -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let output = try encoder.encode(KeyWriter(key: key))
        let object = try JSONSerialization.jsonObject(with: output) as? [String: Any]
        return object?.keys.first ?? "<none>"
    }
}

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Decodes any object, recording the member names the decoder presents (after conversion).
private struct KeyRecorder: Decodable {
    let keys: [String]
    init(from decoder: Decoder) throws {
        keys = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
    }
}

/// Encodes one member whose name the encoder then converts.
private struct KeyWriter: Encodable {
    let key: String
    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(1, forKey: AnyKey(stringValue: key))
    }
}

/// A deterministic random number generator (SplitMix64), so failures reproduce.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
