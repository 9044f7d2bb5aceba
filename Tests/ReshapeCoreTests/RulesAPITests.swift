import ReshapeCore
import Testing

/// The public Swift API of the engine: compiling, applying, options, and sharing between threads.
@Suite struct RulesAPITests {
    @Test func compiledRulesDescribeThemselves() throws {
        let rules = try Rules(json: #"{"rules": [{"op": "unwrap", "path": "$.data"}, {"op": "convertKeys"}]}"#)
        #expect(rules.count == 2)
        #expect(rules.ops == ["unwrap", "convertKeys"])
    }

    @Test func bytesStringsAndBuffersGiveTheSameResult() throws {
        let rules = try Rules(json: Array(#"[{"op": "wrap", "key": "k"}]"#.utf8))
        let input = #"{"é": [1, 2.50]}"#
        let expected = #"{"k":{"é":[1,2.5]}}"#
        #expect(try rules.apply(to: input) == expected)
        #expect(try rules.apply(to: Array(input.utf8)) == Array(expected.utf8))
        let viaBuffer = try Array(input.utf8).withUnsafeBytes { try rules.apply(to: $0) }
        #expect(viaBuffer == Array(expected.utf8))
    }

    @Test func unknownOptionBitsAreRejected() throws {
        let rules = try Rules(json: "[]")
        #expect(throws: ReshapeError(.invalidArgument, "unknown option flags 0x40")) {
            try rules.apply(to: "{}", options: ApplyOptions(rawValue: 0x40 | 0x1))
        }
    }

    @Test func errorDescriptionsHaveOneShape() {
        #expect(ReshapeError(.ruleFailed, "m", rule: 2, op: "keyedToArray", path: "$['u']").description
            == "rule_failed: rule 2 (keyedToArray) at $['u']: m")
        #expect(ReshapeError(.invalidJSON, "m", path: "$", line: 3, column: 4, position: 9).description
            == "invalid_json: at $, line 3, column 4: m")
        #expect(ReshapeError(.invalidJSON, "m", line: 1, column: 1).description == "invalid_json: line 1, column 1: m")
        #expect(ReshapeError(.outOfMemory, "out of memory").description == "out_of_memory: out of memory")
        #expect(ReshapeError.Code.allCases.map(\.status) == [1, 2, 3, 4, 5, 6, 7, 8, 10])
        #expect(ReshapeError(.ioError, "m", systemErrno: 2, ioFile: .input).description == "io_error: m")
    }

    @Test func versionIsSemantic() {
        #expect(ReshapeVersion.string == "\(ReshapeVersion.major).\(ReshapeVersion.minor).\(ReshapeVersion.patch)")
    }

    @Test func oneRulesValueServesManyThreadsAtOnce() async throws {
        let rules = try Rules(json: #"[{"op": "keyedToArray", "path": "$.users", "idKey": "uid"}, {"op": "default", "path": "$.users[*]", "key": "role", "value": {"name": "user"}}, {"op": "convertKeys", "to": "snake_case"}]"#)
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for round in 0..<200 {
                        let id = "u\(worker)_\(round)"
                        let input = #"{"users": {"\#(id)": {"fullName": "N"}}}"#
                        let expected = #"{"users":[{"uid":"\#(id)","full_name":"N","role":{"name":"user"}}]}"#
                        guard try rules.apply(to: input) == expected else { return false }
                    }
                    return true
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 8))
    }
}
