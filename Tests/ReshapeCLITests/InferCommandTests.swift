import Foundation
import ReshapeCore
import Testing

/// `reshape infer`: the rules on standard output or in `-o`, reasons on standard error, types in
/// `--swift` and `--python`, all as the library proposes them; errors on one line, nothing written.
@Suite struct InferCommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let users = root.appendingPathComponent("examples/firebase-users/users.json")

    static func inference(_ options: InferenceOptions = InferenceOptions(name: "users")) throws -> Inference {
        try Inference.infer([JSONValue(json: [UInt8](Data(contentsOf: users)))], options: options)
    }

    /// The lines after `$ COMMAND` in a console block of `file`, up to the block's end.
    static func consoleBlock(_ file: String, command: String) throws -> (arguments: [String], lines: [String]) {
        let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.hasPrefix("$ \(command)") }, "\(file) has no '$ \(command)'")
        let end = try #require(lines[start...].firstIndex(of: "```"))
        let arguments = lines[start].dropFirst(2).split(separator: " ").dropFirst(2).map(String.init)
        return (arguments, Array(lines[(start + 1)..<end]))
    }

    @Test func theReadmeExampleIsWhatTheCommandSaysAndWrites() throws {
        let (arguments, shown) = try Self.consoleBlock("README.md", command: "reshape infer")
        #expect(arguments == ["examples/firebase-users/users.json", "-o", "rules.json", "--swift", "Users.swift"])
        let directory = try CLIRunner.temporaryDirectory()
        let outcome = try CLIRunner.run(["infer", Self.users.path, "-o", "rules.json", "--swift", "Users.swift"], in: directory)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.isEmpty)
        #expect(outcome.stderr == shown.map { $0 + "\n" }.joined())
        let inference = try Self.inference()
        #expect(try Data(contentsOf: directory.appendingPathComponent("rules.json")) == Data(try inference.rules.json(pretty: true) + [0x0A]))
        #expect(try String(contentsOf: directory.appendingPathComponent("Users.swift"), encoding: .utf8) == (try inference.swift(root: "Users")))
        // The README's example type is the one the Swift suite compiles and decodes with.
        let kept = try String(contentsOf: Self.root.appendingPathComponent("Tests/ReshapeTests/Inferred/Users.swift"), encoding: .utf8)
        #expect(kept.contains("    struct Users: PayloadTransformable, Encodable {"))
    }

    @Test func theReasonsInDocsInferAreTheCommands() throws {
        let (_, shown) = try Self.consoleBlock("docs/infer.md", command: "reshape infer")
        let outcome = try CLIRunner.run(["infer", Self.users.path])
        #expect(outcome.status == 0)
        #expect(outcome.stderr == shown.filter { $0.hasPrefix("rule ") }.map { $0 + "\n" }.joined())
        #expect(outcome.stdout == (try Self.inference().rules.json(pretty: true)) + [0x0A])
    }

    @Test func optionsReachTheLibrary() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let outcome = try CLIRunner.run(
            ["infer", Self.users.path, "--keys", "snake_case", "--id-key", "uid", "--name", "people", "--object", "$.*.devices",
             "--python", "types.py", "--root", "People", "--json"], in: directory)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let inference = try Self.inference(InferenceOptions(keys: .snakeCase, idKey: "uid", name: "people", objects: ["$.*.devices"]))
        #expect(outcome.stdout == (try inference.rules.json(pretty: true)) + [0x0A])
        #expect(outcome.stderr == String(decoding: try JSONValue.array(inference.reasons.map(\.json)).json(), as: UTF8.self) + "\n")
        #expect(try String(contentsOf: directory.appendingPathComponent("types.py"), encoding: .utf8) == (try inference.python(root: "People")))
        // --object kept the devices an object: no keyedToArray for them.
        #expect(inference.rules.arrayValue?.first?["op"] == "keyedToArray")
        #expect(inference.rules.arrayValue?.first?["path"] == nil)
        #expect(inference.rules.arrayValue?.filter { $0["op"] == "keyedToArray" }.count == 1)
    }

    @Test func standardInputIsASampleNamedItemsWithARootNamedRoot() throws {
        let body = [UInt8](try Data(contentsOf: Self.users))
        let directory = try CLIRunner.temporaryDirectory()
        let outcome = try CLIRunner.run(["infer", "-", "--swift", "T.swift"], stdin: body, in: directory)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        let inference = try Self.inference(InferenceOptions(name: "items"))
        #expect(outcome.stdout == (try inference.rules.json(pretty: true)) + [0x0A])
        #expect(try String(contentsOf: directory.appendingPathComponent("T.swift"), encoding: .utf8) == (try inference.swift(root: "Root")))
    }

    @Test(arguments: [
        (["infer"], 2, "reshape: invalid_argument: Missing expected argument '<SAMPLE> ...' (see 'reshape --help')\n"),
        (["infer", "USERS", "--keys", "UPPER"], 2, "reshape: invalid_argument: --keys must be camelCase, snake_case, kebab-case or keep, not 'UPPER'\n"),
        (["infer", "-", "-"], 2, "reshape: invalid_argument: standard input can be read once: give '-' as one sample only\n"),
        (["infer", "USERS", "--map", "$.nowhere"], 2, "reshape: invalid_argument: --map \"$.nowhere\" selects no object or array in the samples\n"),
        (["infer", "USERS", "--object", "$[?@.a]"], 2, "reshape: invalid_argument: --object \"$[?@.a]\": only names, indices and wildcards can name a place in the samples\n"),
        (["infer", "USERS", "--root", "1st", "--swift", "T.swift", "-o", "R.json"], 2, "reshape: invalid_argument: \"1st\" is not a Swift type name\n"),
        (["infer", "/nonexistent/x.json"], 2, "reshape: io_error: cannot read input file '/nonexistent/x.json': No such file or directory\n"),
    ] as [([String], Int32, String)])
    func errorsAreOneLineAndWriteNothing(_ arguments: [String], _ status: Int32, _ message: String) throws {
        let directory = try CLIRunner.temporaryDirectory()
        try Data("kept".utf8).write(to: directory.appendingPathComponent("R.json"))
        let outcome = try CLIRunner.run(arguments.map { $0 == "USERS" ? Self.users.path : $0 }, in: directory)
        #expect(outcome.status == status)
        #expect(outcome.stderr == message)
        #expect(outcome.stdout.isEmpty)
        #expect(try String(contentsOf: directory.appendingPathComponent("R.json"), encoding: .utf8) == "kept")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("T.swift").path))
    }

    @Test func anInvalidSampleIsNamedWithItsLineAndColumn() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let sample = directory.appendingPathComponent("bad.json")
        try Data("{\"a\": 1,\n}".utf8).write(to: sample)
        let outcome = try CLIRunner.run(["infer", Self.users.path, sample.path])
        #expect(outcome.status == 1)
        #expect(outcome.stderr == "reshape: invalid_json: at $, line 2, column 1: \(sample.path): expected a member name in double quotes, found '}'\n")
    }

    @Test func rulesThatFailOnASampleAreTheError() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let sample = directory.appendingPathComponent("clash.json")
        try Data(#"{"user_id": 1, "userId": 2}"#.utf8).write(to: sample)
        let outcome = try CLIRunner.run(["infer", sample.path])
        #expect(outcome.status == 1)
        #expect(
            outcome.stderr
                == "reshape: rule_failed: rule 1 (convertKeys) at $['user_id']: the proposed rules fail on sample 1: member \"user_id\" would become \"userId\", which the object already has\n")
        #expect(outcome.stdout.isEmpty)
    }
}
