import ReshapeCore
import Testing

/// Reals are written in the shortest form that reads back as the same double; integers exactly.
@Suite struct NumberTests {
    @Test func randomDoublesRoundTripInShortestForm() throws {
        var generator = SeededGenerator(seed: 3)
        let identity = try Rules(json: "[]")
        for _ in 0..<5000 {
            let value = Double(bitPattern: generator.next())
            guard value.isFinite else { continue }
            let input = value.description.contains("e") || value.description.contains(".") ? value.description : value.description + ".0"
            let output = String(decoding: try identity.apply(to: Array("[\(input)]".utf8)), as: UTF8.self)
            let text = String(output.dropFirst().dropLast())
            #expect(Double(text) == value, "\(value) was written as \(text)")
            #expect(text.contains(".") || text.contains("e"), "\(text) would read back as an integer")
            // Swift's description is the shortest round-trip form; ours only tidies the exponent.
            #expect(text.count <= value.description.count)
        }
    }

    @Test func integersAreExactAcrossTheWholeRange() throws {
        var generator = SeededGenerator(seed: 4)
        let identity = try Rules(json: "[]")
        var values: [Int64] = [0, 1, -1, .max, .min, 9_007_199_254_740_993]
        for _ in 0..<2000 { values.append(Int64(bitPattern: generator.next())) }
        let input = "[" + values.map(String.init).joined(separator: ",") + "]"
        #expect(try identity.apply(to: input) == input)
    }

    @Test func coerceToStringWritesNumbersAsTheWriterDoes() throws {
        let rules = try Rules(json: #"[{"op": "coerce", "path": "$[*]", "to": "string"}]"#)
        #expect(try rules.apply(to: "[1e-7, 1e21, 5e-324, 1.7976931348623157e308]")
            == #"["1e-7","1e+21","5e-324","1.7976931348623157e+308"]"#)
    }
}
