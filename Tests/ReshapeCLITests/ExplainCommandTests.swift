import FixtureSupport
import Foundation
import ReshapeCore
import Testing

/// `reshape explain`: what the library explains, printed; on every fixture; docs/rules.md's example.
@Suite struct ExplainCommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The text with each rule's share of the time taken out (it varies from run to run).
    static func withoutTimes(_ text: String) -> String {
        text.replacing(/; (<1|\d+)% of the time\n/, with: "\n")
    }

    @Test func theExampleInDocsRulesIsWhatTheCommandPrints() throws {
        // The README's first example: its rules and its input.
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8).components(separatedBy: "\n")
        let rulesStart = try #require(readme.firstIndex(of: "$ cat rules.json"))
        let inputLine = try #require(readme.firstIndex { $0.hasPrefix("$ curl -s") && !$0.contains("|") })
        let directory = try CLIRunner.temporaryDirectory()
        try readme[(rulesStart + 1)..<inputLine].joined(separator: "\n").write(to: directory.appendingPathComponent("rules.json"), atomically: true, encoding: .utf8)
        try readme[inputLine + 1].write(to: directory.appendingPathComponent("users.json"), atomically: true, encoding: .utf8)

        let docs = try String(contentsOf: Self.root.appendingPathComponent("docs/rules.md"), encoding: .utf8).components(separatedBy: "\n")
        let start = try #require(docs.firstIndex(of: "$ reshape explain --rules rules.json users.json"))
        let end = try #require(docs[start...].firstIndex(of: "```"))
        let shown = docs[(start + 1)..<end].map { $0 + "\n" }.joined()

        let outcome = try CLIRunner.run(["explain", "--rules", "rules.json", "users.json"], in: directory)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(Self.withoutTimes(String(decoding: outcome.stdout, as: UTF8.self)) == Self.withoutTimes(shown))
    }

    /// Every fixture that is one JSON document with valid rules: explained (exit 0, even when a
    /// rule fails: the explanation says so), or the error `reshape` gives for it (invalid JSON).
    @Test func everyFixtureIsExplainedWithoutError() throws {
        var explained = 0
        for fixture in Fixture.all where fixture.flags & ApplyOptions.inputLines.rawValue == 0 && fixture.error?.code != "invalid_rules" {
            let folder = Fixture.directory.appendingPathComponent(fixture.name)
            var arguments = ["explain", "--rules", folder.appendingPathComponent("rules.json").path, folder.appendingPathComponent("input.json").path]
            if fixture.allowDuplicateKeys { arguments.append("--allow-duplicate-keys") }
            let outcome = try CLIRunner.run(arguments)
            // What is not a rule's failure is an error, the one `reshape` gives (a limit of what
            // is written is not met: an explanation writes no document).
            if fixture.error?.code == "invalid_json" || (fixture.error?.code == "limit_exceeded" && outcome.status != 0) {
                #expect(outcome.status == 1, "\(fixture.name)")
                #expect(outcome.stderr == "reshape: \(fixture.error?.description ?? "")\n", "\(fixture.name)")
                continue
            }
            #expect(outcome.status == 0, "\(fixture.name): \(outcome.stderr)")
            #expect(outcome.stderr.isEmpty, "\(fixture.name)")
            let text = String(decoding: outcome.stdout, as: UTF8.self)
            if let error = fixture.error, error.code == "rule_failed" {
                #expect(text.contains("rule \(error.rule) failed: \(error.description)\n"), "\(fixture.name)")
            }
            explained += 1
        }
        #expect(explained > 150)
    }

    @Test func jsonIsTheLibrarysExplanation() throws {
        let folder = Fixture.directory.appendingPathComponent("api-firebase-export")
        let outcome = try CLIRunner.run(["explain", "--json", "--rules", folder.appendingPathComponent("rules.json").path, folder.appendingPathComponent("input.json").path])
        #expect(outcome.status == 0)
        let printed = try JSONValue(json: Array(outcome.stdout))
        let explanation = try Rules(json: Array(try Data(contentsOf: folder.appendingPathComponent("rules.json"))))
            .explain(Array(try Data(contentsOf: folder.appendingPathComponent("input.json"))))
        // All but the times.
        func timeless(_ value: JSONValue) -> JSONValue {
            guard case .object(var object) = value else { return value }
            object["description"] = .string(Self.withoutTimes((object["description"]?.stringValue ?? "") + "\n"))
            object["rules"] = .array((object["rules"]?.arrayValue ?? []).map { rule in
                guard case .object(var step) = rule else { return rule }
                step["seconds"] = nil
                step["share"] = nil
                return .object(step)
            })
            return .object(object)
        }
        #expect(timeless(printed) == timeless(explanation.json))
    }

    @Test func usageAndInputErrors() throws {
        let missing = try CLIRunner.run(["explain", "x.json"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "reshape: invalid_argument: Missing expected argument '--rules <RULES.json>' (see 'reshape --help')\n")
        let directory = try CLIRunner.temporaryDirectory()
        try Data("[]".utf8).write(to: directory.appendingPathComponent("rules.json"))
        let invalid = try CLIRunner.run(["explain", "--rules", "rules.json", "-"], stdin: Array("{\"a\":".utf8), in: directory)
        #expect(invalid.status == 1)
        #expect(invalid.stderr.hasPrefix("reshape: invalid_json: "))
        #expect(invalid.stdout.isEmpty)
    }
}
