import ReshapeCore
import Testing

/// Random documents written with random spacing and escapes must come back in canonical form:
/// same members in the same order, same strings, same numbers.
@Suite struct RoundTripTests {
    indirect enum Value {
        case null, bool(Bool), integer(Int64), string(String), array([Value]), object([(String, Value)])
    }

    @Test func randomDocumentsRoundTrip() throws {
        var generator = SeededGenerator(seed: 7)
        let identity = try Rules(json: "[]")
        for _ in 0..<300 {
            let value = randomValue(depth: 0, using: &generator)
            let noisy = write(value, noisy: true, using: &generator)
            let canonical = write(value, noisy: false, using: &generator)
            let output = try identity.apply(to: Array(noisy.utf8))
            #expect(String(decoding: output, as: UTF8.self) == canonical, "input: \(noisy)")
        }
    }

    private func randomValue(depth: Int, using generator: inout SeededGenerator) -> Value {
        let choice = Int.random(in: 0..<(depth > 4 ? 4 : 7), using: &generator)
        switch choice {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .integer(Int64.random(in: Int64.min...Int64.max, using: &generator))
        case 3: return .string(randomString(using: &generator))
        case 4, 5:
            return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in randomValue(depth: depth + 1, using: &generator) })
        default:
            var names = Set<String>()
            var members: [(String, Value)] = []
            for _ in 0..<Int.random(in: 0...5, using: &generator) {
                let name = randomString(using: &generator)
                if names.insert(name).inserted { members.append((name, randomValue(depth: depth + 1, using: &generator))) }
            }
            return .object(members)
        }
    }

    private func randomString(using generator: inout SeededGenerator) -> String {
        let pool: [Unicode.Scalar] = ["a", "Z", "0", " ", "\"", "\\", "/", "\u{0}", "\u{1}", "\n", "\t", "\u{7F}", "é", "ß", "\u{2028}", "日", "😀", "\u{10FFFF}", "\u{FFFD}"]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...8, using: &generator) { scalars.append(pool.randomElement(using: &generator) ?? "a") }
        return String(scalars)
    }

    private func write(_ value: Value, noisy: Bool, using generator: inout SeededGenerator) -> String {
        func space() -> String { noisy ? [" ", "", "\n", "\t ", "\r\n"].randomElement(using: &generator) ?? "" : "" }
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .integer(let number): return String(number)
        case .string(let text): return quote(text, noisy: noisy, using: &generator)
        case .array(let elements):
            return "[" + space() + elements.map { write($0, noisy: noisy, using: &generator) + space() }.joined(separator: "," + space()) + "]"
        case .object(let members):
            return "{" + space() + members.map { name, member in
                quote(name, noisy: noisy, using: &generator) + space() + ":" + space() + write(member, noisy: noisy, using: &generator) + space()
            }.joined(separator: "," + space()) + "}"
        }
    }

    /// Canonical: escape only `"`, `\` and control characters (short forms where JSON has them).
    /// Noisy: also escape random other characters as `\uXXXX` (surrogate pairs beyond the BMP) or `\/`.
    private func quote(_ text: String, noisy: Bool, using generator: inout SeededGenerator) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            if noisy && Int.random(in: 0..<3, using: &generator) == 0 {
                if scalar == "/" { result += "\\/"; continue }
                for unit in String(scalar).utf16 { result += "\\u" + hex4(unit, upper: Bool.random(using: &generator)) }
                continue
            }
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case "\u{8}": result += "\\b"
            case "\u{C}": result += "\\f"
            default:
                if scalar.value < 0x20 { result += "\\u" + hex4(UInt16(scalar.value), upper: false) } else { result.unicodeScalars.append(scalar) }
            }
        }
        return result + "\""
    }

    private func hex4(_ unit: UInt16, upper: Bool) -> String {
        let digits = String(unit, radix: 16, uppercase: upper)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
