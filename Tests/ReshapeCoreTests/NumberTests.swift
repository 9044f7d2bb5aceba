@testable import ReshapeCore
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

    /// The writer copies a plain real literal when its shortest form is the same text (see
    /// `NumberLiteral.isWrittenAsItIs`): checked against that form, computed, for random plain
    /// literals of every length around the bounds (15 digits, 1e-4, 2^53, trailing zeros), and
    /// each one written through the text and the tree as that form.
    @Test func realsCopiedAsTheyAreAreInTheirShortestForm() throws {
        var generator = SeededGenerator(seed: 5)
        func digits(_ count: Int) -> String {
            String((0..<count).map { _ in Character(String(generator.next() % 10)) })
        }
        var copied = 0
        var literals: [String] = ["0.0", "-0.0", "10.0", "0.0001", "0.00001", "0.00012", "99999999999999.9",
                                  "999999999999999.9", "123456789012345.0", "12345678901234.0", "0.1000000000000001"]
        for _ in 0..<20_000 {
            let integer = generator.next() % 4 == 0 ? "0" : String(1 + generator.next() % 9) + digits(Int(generator.next() % 17))
            let zeros = integer == "0" ? String(repeating: "0", count: Int(generator.next() % 6)) : ""
            let fraction = zeros + digits(1 + Int(generator.next() % 17))
            literals.append((generator.next() % 3 == 0 ? "-" : "") + integer + "." + fraction)
        }
        for literal in literals {
            let shortest = NumberText.text(of: Double(literal)!)
            let asItIs = Array(literal.utf8).withUnsafeBytes { NumberLiteral.exact($0)!.isWrittenAsItIs }
            if asItIs {
                copied += 1
                #expect(shortest == literal, "\(literal) is copied, but its shortest form is \(shortest)")
            }
        }
        #expect(copied > 5_000 && copied < literals.count - 5_000, "both ways must be taken: \(copied) copied")
        // Through every producer: the text pass, the token chain and the tree.
        let sample = Array(literals.prefix(2_000))
        let input = "[" + sample.joined(separator: ",") + "]"
        let expected = "[" + sample.map { literal in
            Array(literal.utf8).withUnsafeBytes { bytes in
                let held = NumberLiteral.exact(bytes)!.held
                guard case .real(let value) = held else { return literal }
                return NumberText.text(of: value)
            }
        }.joined(separator: ",") + "]"
        let wrapped = "{" + sample.enumerated().map { "\"k\($0.offset)\":{\"v\":\($0.element)}" }.joined(separator: ",") + "}"
        let keyedExpected = "[" + expected.dropFirst().dropLast().split(separator: ",").enumerated().map {
            "{\"id\":\"k\($0.offset)\",\"v\":\($0.element)}"
        }.joined(separator: ",") + "]"
        #expect(try Rules(json: "[]").apply(to: input) == expected)
        #expect(try Rules(json: #"[{"op": "wrap", "key": "a"}, {"op": "unwrap", "path": "$.a"}]"#).apply(to: input) == expected)
        #expect(try Rules(json: #"[{"op": "keyedToArray", "idKey": "id"}]"#).apply(to: wrapped) == keyedExpected)
        #expect(try Rules(json: #"[{"op": "keyedToArray", "idKey": "id"}, {"op": "remove", "path": "$[*].w"}]"#).apply(to: wrapped)
            == keyedExpected)
    }

    @Test func coerceToStringWritesNumbersAsTheWriterDoes() throws {
        let rules = try Rules(json: #"[{"op": "coerce", "path": "$[*]", "to": "string"}]"#)
        #expect(try rules.apply(to: "[1e-7, 1e21, 5e-324, 1.7976931348623157e308]")
            == #"["1e-7","1e+21","5e-324","1.7976931348623157e+308"]"#)
    }
}
