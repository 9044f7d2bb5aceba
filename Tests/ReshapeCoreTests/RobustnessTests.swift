import ReshapeCore
import Testing

/// Broken input must give a clean error, never a trap: every mutation of valid documents is either
/// still valid JSON or `invalid_json` with a position inside the input.
@Suite struct RobustnessTests {
    static let seeds: [String] = [
        #"{"users": {"-Nx1": {"name": "Ada", "age": 36, "tags": ["a", "b"]}, "-Nx2": null}}"#,
        #"[1, -2.5e10, 0, "é\u00e9\ud83d\ude00", true, false, null, {"a": {}}, []]"#,
        #"{"a\u0000": "\\\"\/\b\f\n\r\t", "n": 123456789012345678901234567890}"#,
    ]

    @Test func mutatedInputNeverTraps() throws {
        var generator = SeededGenerator(seed: 99)
        let rules = try Rules(json: #"[{"op": "emptyObjectToNull"}, {"op": "convertKeys"}, {"op": "coerce", "path": "$..*", "to": "string", "onFail": "keep"}]"#)
        let interesting: [UInt8] = [0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x3A, 0x2C, 0x00, 0x0A, 0x80, 0xBF, 0xC0, 0xED, 0xF4, 0xFF, 0x75, 0x30, 0x2D, 0x2E, 0x65]
        var outcomes = (valid: 0, invalid: 0)
        for _ in 0..<3000 {
            var bytes = Array(Self.seeds.randomElement(using: &generator) ?? "")
                .flatMap { Array(String($0).utf8) }
            for _ in 0..<Int.random(in: 1...3, using: &generator) where !bytes.isEmpty {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes.remove(at: index)
                case 1: bytes.insert(interesting.randomElement(using: &generator) ?? 0, at: index)
                default: bytes[index] = interesting.randomElement(using: &generator) ?? 0
                }
            }
            do {
                _ = try rules.apply(to: bytes)
                outcomes.valid += 1
            } catch {
                outcomes.invalid += 1
                #expect(error.code == .invalidJSON || error.code == .ruleFailed, "\(error)")
                if error.code == .invalidJSON {
                    #expect(error.position <= bytes.count)
                    #expect(error.line >= 1 && error.column >= 1)
                }
            }
        }
        #expect(outcomes.invalid > 1000)
        #expect(outcomes.valid > 100)
    }

    @Test func deepNestingOfEveryKindIsALimitNotACrash() throws {
        let rules = try Rules(json: #"[{"op": "convertKeys"}, {"op": "remove", "path": "$..x"}]"#)
        let objects = String(repeating: #"{"a_b":"#, count: 5000) + "1" + String(repeating: "}", count: 5000)
        #expect(throws: ReshapeError.self) { _ = try rules.apply(to: objects) }
        do {
            _ = try rules.apply(to: objects)
        } catch {
            #expect(error.code == .limitExceeded)
            #expect(error.position == 7 * Limits.defaultMaxDepth)  // the 1001st "{"
        }
        // At the limit, every op walks the tree without trouble.
        let atLimit = String(repeating: #"{"a_b":"#, count: Limits.defaultMaxDepth) + "1" + String(repeating: "}", count: Limits.defaultMaxDepth)
        let output = try rules.apply(to: atLimit)
        #expect(output == String(repeating: #"{"aB":"#, count: Limits.defaultMaxDepth) + "1" + String(repeating: "}", count: Limits.defaultMaxDepth))
    }

    @Test func wrapBeyondTheDepthLimitIsALimitOfTheOutput() throws {
        // Rules can add depth after parsing; the engine never writes what it could not read back.
        let rules = try Rules(json: "[" + Array(repeating: #"{"op": "wrap", "key": "w"}"#, count: 50).joined(separator: ",") + "]")
        let input = String(repeating: "[", count: 950) + String(repeating: "]", count: 950)
        #expect(try rules.apply(to: input).hasPrefix(String(repeating: #"{"w":"#, count: 50) + "[["))
        let deeper = String(repeating: "[", count: 951) + String(repeating: "]", count: 951)
        #expect(throws: ReshapeError(.limitExceeded, "the output would nest deeper than 1000 levels (the depth limit)")) {
            try rules.apply(to: deeper)
        }
    }
}
