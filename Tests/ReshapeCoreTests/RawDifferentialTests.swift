import ReshapeCore
import Testing

/// Random documents and random rule lists must give the same bytes or the same error through the
/// raw-value path (at the depth the rules allow, and forced at depths 1 to 3) as through the full
/// tree. Seeded, so a failure reproduces.
@Suite struct RawDifferentialTests {
    @Test func rawPathEqualsTheTree() throws {
        var random = SeededGenerator(seed: 987_654)
        var compared = 0
        for _ in 0..<4000 {
            let input = Array(RandomJSON.value(&random, depth: 0).utf8)
            let spec = "[" + (0..<(1 + random.next(4))).map { _ in RandomJSON.rule(&random) }.joined(separator: ",") + "]"
            guard let rules = try? Rules(json: spec) else { continue }
            var options: ApplyOptions = []
            if random.next(3) == 0 { options.insert(.allowDuplicateKeys) }
            if random.next(4) == 0 { options.insert(.pretty) }
            let tree = Result { () throws(ReshapeError) in try rules.apply(to: input, options: options, forcingRawDepth: nil) }
            let declared = Result { () throws(ReshapeError) in try rules.apply(to: input, options: options) }
            var variants = [declared]
            for depth in 1...3 {
                variants.append(Result { () throws(ReshapeError) in try rules.apply(to: input, options: options, forcingRawDepth: depth) })
            }
            for variant in variants {
                switch (tree, variant) {
                case (.success(let a), .success(let b)) where a == b: break
                case (.failure(let a), .failure(let b)) where a == b: break
                default:
                    Issue.record("input \(String(decoding: input, as: UTF8.self))\nrules \(spec)\ntree \(tree)\nraw \(variant)")
                    return
                }
            }
            compared += 1
        }
        #expect(compared > 2000)
    }
}
