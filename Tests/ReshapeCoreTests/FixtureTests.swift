import FixtureSupport
import Foundation
import ReshapeCore
import Testing

/// Every fixture through the Swift API of the engine: exact bytes, or the exact error.
@Suite struct FixtureTests {
    @Test func thereAreFixtures() {
        #expect(Fixture.all.count >= 60)
    }

    @Test(arguments: Fixture.all)
    func fixture(_ fixture: Fixture) {
        let result: Result<[UInt8], ReshapeError> = Result { () throws(ReshapeError) -> [UInt8] in
            let rules = try Rules(json: fixture.rules)
            return try rules.apply(to: fixture.input, options: ApplyOptions(rawValue: fixture.flags))
        }
        switch (result, fixture.expected, fixture.error) {
        case (.success(let output), let expected?, _):
            #expect(String(decoding: output, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
            #expect(output == expected)
        case (.failure(let error), _, let expected?):
            #expect(error.code.rawValue == expected.code)
            #expect(error.rule == expected.rule)
            #expect(error.op == expected.op)
            #expect(error.path == expected.path)
            #expect(error.line == expected.line)
            #expect(error.column == expected.column)
            #expect(error.position == expected.position)
            #expect(error.message == expected.message)
            #expect(error.description == expected.description)
        case (.success(let output), nil, _):
            Issue.record("expected an error, got \(String(decoding: output, as: UTF8.self))")
        case (.failure(let error), _, nil):
            Issue.record("expected output, got \(error)")
        }
    }
}

extension FixtureTests {
    /// Every fixture folder loads: a broken error.json or options.json must fail here, not vanish.
    @Test func everyFixtureFolderLoads() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Fixture.directory.path).filter { !$0.hasPrefix(".") }
        for folder in folders { _ = try Fixture(name: folder) }
        #expect(Fixture.all.count == folders.count)
    }
}
