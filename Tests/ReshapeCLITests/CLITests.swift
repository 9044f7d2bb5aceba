import FixtureSupport
import Foundation
import ReshapeCore
import Testing

/// The `reshape` command end to end: the same bytes as the engine's Swift API for every fixture,
/// one-line errors, exit statuses, files written only on success.
@Suite struct CLITests {
    @Test(arguments: Fixture.all.filter { $0.extraFlags == 0 })
    func fixtureGivesTheSameBytesAsTheAPI(_ fixture: Fixture) throws {
        let folder = Fixture.directory.appendingPathComponent(fixture.name)
        var arguments = ["--rules", folder.appendingPathComponent("rules.json").path, folder.appendingPathComponent("input.json").path]
        if fixture.pretty { arguments.append("--pretty") }
        if fixture.allowDuplicateKeys { arguments.append("--allow-duplicate-keys") }
        let outcome = try CLIRunner.run(arguments)
        let api = Result { () throws(ReshapeError) -> [UInt8] in
            try Rules(json: fixture.rules).apply(to: fixture.input, options: ApplyOptions(rawValue: fixture.flags))
        }
        switch api {
        case .success(let bytes):
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stdout == bytes)
            #expect(outcome.stderr.isEmpty)
        case .failure(let error):
            let expectedStatus: Int32 = error.code == .invalidRules ? 2 : 1
            #expect(outcome.status == expectedStatus)
            #expect(outcome.stdout.isEmpty)
            #expect(outcome.stderr == "reshape: \(error.description)\n")
            #expect(outcome.stderr == "reshape: \(fixture.error?.description ?? "")\n")
        }
    }

    @Test func readsStandardInputWithDashOrNothing() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let rules = directory.appendingPathComponent("rules.json")
        try Data(#"[{"op": "unwrap", "path": "$.data"}]"#.utf8).write(to: rules)
        for arguments in [["--rules", rules.path, "-"], ["--rules", rules.path]] {
            let outcome = try CLIRunner.run(arguments, stdin: Array(#"{"data": {"b": 1}}"#.utf8))
            #expect(outcome.status == 0)
            #expect(String(decoding: outcome.stdout, as: UTF8.self) == #"{"b":1}"#)
        }
    }

    @Test func outputFileIsWrittenOnlyOnSuccess() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let rules = directory.appendingPathComponent("rules.json")
        let output = directory.appendingPathComponent("out.json")
        try Data(#"[{"op": "keyedToArray"}]"#.utf8).write(to: rules)

        let good = try CLIRunner.run(["--rules", rules.path, "--pretty", "-o", output.path], stdin: Array(#"{"a": {"n": 1}}"#.utf8))
        #expect(good.status == 0)
        #expect(good.stdout.isEmpty)
        #expect(try String(contentsOf: output, encoding: .utf8) == "[\n  {\n    \"id\": \"a\",\n    \"n\": 1\n  }\n]")

        let bad = try CLIRunner.run(["--rules", rules.path, "--output", output.path], stdin: Array(#"{"a": 1}"#.utf8))
        #expect(bad.status == 1)
        #expect(bad.stderr == "reshape: rule_failed: rule 1 (keyedToArray) at $['a']: expected an object, found a number\n")
        #expect(try String(contentsOf: output, encoding: .utf8).contains("\"n\": 1"), "the earlier output must stay intact")

        let fresh = directory.appendingPathComponent("never.json")
        _ = try CLIRunner.run(["--rules", rules.path, "-o", fresh.path], stdin: Array("{".utf8))
        #expect(!FileManager.default.fileExists(atPath: fresh.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(leftovers == ["out.json", "rules.json"])
    }

    @Test func checkValidatesRules() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let good = directory.appendingPathComponent("good.json")
        try Data(#"{"rules": [{"op": "unwrap", "path": "$.data"}, {"op": "convertKeys"}]}"#.utf8).write(to: good)
        let ok = try CLIRunner.run(["check", good.path])
        #expect(ok.status == 0)
        #expect(String(decoding: ok.stdout, as: UTF8.self) == """
            \(good.path): ok, 2 rules: unwrap, convertKeys
            records, when $['data'] is an object: its members
              rule 1 (unwrap $.data) runs per record
              rule 2 (convertKeys $) needs the whole document: renames the records' ids, which must stay unique across records
            records, when $['data'] is an array: its elements
              rule 1 (unwrap $.data) runs per record
              rule 2 (convertKeys $) runs per record

            """)

        let bad = directory.appendingPathComponent("bad.json")
        try Data(#"[{"op": "unwrap", "path": "$.data", "optinal": true}]"#.utf8).write(to: bad)
        let failed = try CLIRunner.run(["check", bad.path])
        #expect(failed.status == 2)
        #expect(failed.stderr == "reshape: invalid_rules: rule 1 (unwrap): unknown param \"optinal\"; did you mean \"optional\"?\n")
    }

    @Test func checkSaysWhichRulesNeedTheWholeDocument() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let rules = directory.appendingPathComponent("rules.json")
        try Data(#"[{"op":"keyedToArray"},{"op":"emptyObjectToNull"},{"op":"remove","path":"$[-1]"},{"op":"wrap","key":"x"}]"#.utf8)
            .write(to: rules)
        let outcome = try CLIRunner.run(["check", rules.path])
        let lines = String(decoding: outcome.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines[1...5] == [
            "records, when $ is an object: its members",
            "  rule 1 (keyedToArray $) runs per record",
            "  rule 2 (emptyObjectToNull $..*) runs per record",
            "  rule 3 (remove $[-1]) needs the whole document: negative index into the collection",
            "  rule 4 (wrap \"x\") runs on the whole document, after rule 3",
        ])
        // Why an unwrap needs the whole document: a wildcard, an index into the collection, or a
        // value beside the collection.
        let reasons = [
            (#"$.data[*]"#, "unwrap with a wildcard or '..' collects values across records"),
            (#"$.data[0]"#, "index into the collection"),
            (#"$.meta"#, "unwraps a value that is not the collection or its envelope"),
        ]
        for (path, reason) in reasons {
            try Data(#"[{"op":"unwrap","path":"$.data"},{"op":"wrap","key":"data"},{"op":"unwrap","path":"\#(path)"}]"#.utf8)
                .write(to: rules)
            let checked = String(decoding: try CLIRunner.run(["check", rules.path]).stdout, as: UTF8.self)
            #expect(checked.contains("rule 3 (unwrap \(path)) needs the whole document: \(reason)\n"), "\(checked)")
        }
    }

    @Test func streamingFlagsGiveTheSameBytesAtAnyJobs() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let rules = directory.appendingPathComponent("rules.json")
        try Data(#"[{"op":"keyedToArray","wrapIn":"users"},{"op":"emptyObjectToNull"},{"op":"convertKeys","to":"snake_case"}]"#.utf8)
            .write(to: rules)
        let records = (0..<5000).map { #""-N\#($0)": {"displayName": "Zoë \"\#($0)\"", "avatar": {}, "tags": [\#($0), {}]}"# }
        let input = Array(("{" + records.joined(separator: ",\n") + "}").utf8)
        let one = try CLIRunner.run(["--rules", rules.path, "--jobs", "1"], stdin: input)
        let all = try CLIRunner.run(["--rules", rules.path], stdin: input)
        let four = try CLIRunner.run(["--rules", rules.path, "--jobs", "4", "--pretty"], stdin: input)
        #expect(one.status == 0 && all.status == 0 && four.status == 0)
        #expect(one.stdout == all.stdout)
        #expect(String(decoding: one.stdout, as: UTF8.self)
            .hasPrefix(#"{"users":[{"id":"-N0","display_name":"Zoë \"0\"","avatar":null,"tags":[0,null]},{"id":"-N1""#))
        #expect(four.stdout.filter { $0 != 0x0A && $0 != 0x20 } == one.stdout.filter { $0 != 0x0A && $0 != 0x20 })
        let lines = try CLIRunner.run(["--rules", rules.path, "--output-lines"], stdin: input)
        #expect(lines.stdout.split(separator: 0x0A).count == 5000)
        let bad = try CLIRunner.run(["--rules", rules.path, "--jobs", "-1", rules.path])
        #expect(bad.status == 2)
    }

    @Test func jsonLinesInNameTheBadLine() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let rules = directory.appendingPathComponent("rules.json")
        try Data(#"[{"op":"emptyObjectToNull"}]"#.utf8).write(to: rules)
        let input = Array("{\"a\":{}}\n\n{\"b\": tru}\n{\"c\":[{}]}\n".utf8)
        let strict = try CLIRunner.run(["--rules", rules.path, "--input-lines"], stdin: input)
        #expect(strict.status == 1)
        #expect(strict.stderr == "reshape: invalid_json: at $['b'], line 3, column 7: invalid literal, expected 'true'\n")
        let skipping = try CLIRunner.run(["--rules", rules.path, "--input-lines", "--skip-invalid-lines"], stdin: input)
        #expect(skipping.status == 0)
        #expect(String(decoding: skipping.stdout, as: UTF8.self) == "{\"a\":null}\n{\"c\":[null]}\n")
        #expect(skipping.stderr == "reshape: skipped an invalid line: invalid_json: at $['b'], line 3, column 7: invalid literal, expected 'true'\n")
    }

    @Test(arguments: [
        ([String](), "reshape: invalid_argument: Missing expected argument '--rules <RULES.json>' (see 'reshape --help')\n"),
        (["--rules"], "reshape: invalid_argument: Missing value for '--rules <RULES.json>' (see 'reshape --help')\n"),
        (["--rules", "r.json", "--colour"], "reshape: invalid_argument: Unknown option '--colour' (see 'reshape --help')\n"),
        (["--rules", "/nonexistent/r.json"], "reshape: io_error: cannot read rules file '/nonexistent/r.json': No such file or directory\n"),
        (["check", "/nonexistent/r.json"], "reshape: io_error: cannot read rules file '/nonexistent/r.json': No such file or directory\n"),
    ])
    func usageErrorsExitTwoWithOneLine(arguments: [String], message: String) throws {
        let outcome = try CLIRunner.run(arguments)
        #expect(outcome.status == 2)
        #expect(outcome.stderr == message)
        #expect(outcome.stdout.isEmpty)
    }

    /// Options that do not go together are refused before any input is read: with standard
    /// input a pipe that never ends, the command still answers at once.
    @Test func conflictingOptionsAreRefusedBeforeTheInputIsRead() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let rules = directory.appendingPathComponent("rules.json")
        try Data("[]".utf8).write(to: rules)
        let cases = [
            (["--pretty", "--output-lines"], "pretty output cannot be JSON Lines"),
            (["--skip-invalid-lines"], "skipping invalid lines needs JSON Lines input"),
        ]
        for (flags, message) in cases {
            let process = Process()
            process.executableURL = CLIRunner.executable
            process.arguments = ["--rules", rules.path] + flags
            let input = Pipe()  // kept open: the command must not wait for its end
            let errors = Pipe()
            process.standardInput = input
            process.standardError = errors
            try process.run()
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == 2, "\(flags)")
            #expect(text == "reshape: invalid_argument: \(message) (see 'reshape --help')\n")
            try input.fileHandleForWriting.close()
        }
    }

    /// Errors about the input name it as the user did: its path, or standard input.
    @Test func inputErrorsNameTheInput() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let rules = directory.appendingPathComponent("rules.json")
        try Data("[]".utf8).write(to: rules)
        let folder = try CLIRunner.run(["--rules", rules.path, directory.path])
        #expect(folder.status == 2)
        #expect(folder.stderr == "reshape: io_error: cannot read input file '\(directory.path)': Is a directory\n")
        let process = Process()
        process.executableURL = CLIRunner.executable
        process.arguments = ["--rules", rules.path]
        process.standardInput = try FileHandle(forReadingFrom: directory)
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(text == "reshape: io_error: cannot read standard input: Is a directory\n")
    }

    @Test func unreadableInputAndUnwritableOutputAreUsageErrors() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let rules = directory.appendingPathComponent("rules.json")
        try Data("[]".utf8).write(to: rules)
        let missing = try CLIRunner.run(["--rules", rules.path, directory.appendingPathComponent("nope.json").path])
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("reshape: io_error: cannot read input file"))
        let unwritable = try CLIRunner.run(["--rules", rules.path, "-o", "/nonexistent/dir/out.json"], stdin: Array("{}".utf8))
        #expect(unwritable.status == 2)
        #expect(unwritable.stderr.hasPrefix("reshape: io_error: cannot write output file '/nonexistent/dir/out.json'"))
    }

    /// `--progress` draws on standard error even when it is not a terminal, ending at 100% with
    /// the sizes, the speed and the time left, and then the line (no terminal's escape codes
    /// there); `--no-progress` and the default (not a terminal) draw nothing. The output is the
    /// same either way.
    @Test func progressBarIsDrawnWhenAsked() throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let rules = directory.appendingPathComponent("rules.json")
        try Data(#"[{"op": "keyedToArray"}]"#.utf8).write(to: rules)
        let input = directory.appendingPathComponent("in.json")
        let records = (0..<20_000).map { #""-N\#($0)": {"name": "user \#($0)", "tags": ["a", "b"]}"# }
        try Data(("{" + records.joined(separator: ",") + "}").utf8).write(to: input)
        var outputs: [[UInt8]] = []
        for flag in ["--progress", "--no-progress", nil] {
            let output = directory.appendingPathComponent("out.json")
            let outcome = try CLIRunner.run(["--rules", rules.path, input.path, "-o", output.path] + (flag.map { [$0] } ?? []))
            #expect(outcome.status == 0)
            outputs.append(try [UInt8](Data(contentsOf: output)))
            guard flag == "--progress" else {
                #expect(outcome.stderr.isEmpty, "\(flag ?? "default")")
                continue
            }
            let last = outcome.stderr.split(separator: "\r").last.map(String.init) ?? ""
            let bytes = try FileManager.default.attributesOfItem(atPath: input.path)[.size] as? Int ?? 0
            let tenths = Int((Double(bytes) / 1e5).rounded())
            let size = "\(tenths / 10).\(tenths % 10)"
            #expect(last.hasPrefix("[########################] 100%  \(size)/\(size) MB  "), "\(last)")
            #expect(last.hasSuffix(" MB/s  0:00 left\n"), "\(last)")
            #expect(!outcome.stderr.contains("\u{1B}"))
        }
        #expect(outputs[0] == outputs[1] && outputs[1] == outputs[2])
    }

    @Test func pipesGivenAsPathsAreRead() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let rules = directory.appendingPathComponent("rules.json")
        try Data(#"[{"op": "wrap", "key": "k"}]"#.utf8).write(to: rules)
        let outcome = try CLIRunner.run(["--rules", rules.path, "/dev/stdin"], stdin: Array("[1]".utf8))
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(String(decoding: outcome.stdout, as: UTF8.self) == #"{"k":[1]}"#)
    }

    @Test func aFailedWriteToStandardOutputIsOneLineNotACrash() throws {
        let directory = try CLIRunner.temporaryDirectory()
        let rules = directory.appendingPathComponent("rules.json")
        try Data("[]".utf8).write(to: rules)
        let process = Process()
        process.executableURL = CLIRunner.executable
        process.arguments = ["--rules", rules.path, rules.path]
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2)
        #expect(message == "reshape: io_error: cannot write standard output: No space left on device\n")
    }

    @Test func helpShowsUsageAndExamples() throws {
        let outcome = try CLIRunner.run(["--help"])
        let text = String(decoding: outcome.stdout, as: UTF8.self)
        #expect(outcome.status == 0)
        #expect(text.contains("reshape --rules RULES.json [INPUT|-] [--output FILE] [--pretty]"))
        #expect(text.contains("reshape check RULES.json"))
        #expect(text.contains("EXAMPLES:"))
        #expect(text.contains("EXIT STATUS:"))
        let apply = try CLIRunner.run(["apply", "--help"])
        #expect(String(decoding: apply.stdout, as: UTF8.self).contains("--allow-duplicate-keys"))
    }

    @Test func versionMatchesTheEngine() throws {
        let outcome = try CLIRunner.run(["--version"])
        #expect(String(decoding: outcome.stdout, as: UTF8.self) == ReshapeVersion.string + "\n")
    }
}

/// The documentation and the examples are run, so they never rot.
@Suite struct DocumentationTests {
    static let root = Fixture.directory.deletingLastPathComponent().deletingLastPathComponent()

    @Test func firebaseExampleGivesItsExpectedOutput() throws {
        let folder = Self.root.appendingPathComponent("examples/firebase-users")
        let outcome = try CLIRunner.run([
            "--rules", folder.appendingPathComponent("rules.json").path,
            folder.appendingPathComponent("users.json").path, "--pretty",
        ])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout == [UInt8](try Data(contentsOf: folder.appendingPathComponent("expected.json"))))
    }

    /// Each op's example in docs/rules.md: a ```json block with one rule, then `input` → `output`.
    @Test func rulesReferenceExamplesHold() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("docs/rules.md"), encoding: .utf8)
        let blocks = text.components(separatedBy: "```json\n").dropFirst()
        var checked = 0
        for block in blocks {
            let parts = block.components(separatedBy: "\n```\n")
            guard parts.count >= 2, parts[0].hasPrefix("{\"op\"") else { continue }
            let prose = parts[1].components(separatedBy: "\n\n")[0]
            let quoted = prose.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            guard prose.contains("→"), let input = quoted.first, let output = quoted.last else { continue }
            let rules = try Rules(json: "[\(parts[0])]")
            #expect(try rules.apply(to: input) == output, "\(parts[0])")
            checked += 1
        }
        #expect(checked == 17, "one example per op")
    }

    @Test func readmeFirstExampleHolds() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        guard let rulesStart = lines.firstIndex(of: "$ cat rules.json"),
            let inputLine = lines.firstIndex(where: { $0.hasPrefix("$ curl -s") && !$0.contains("|") }),
            let outputLine = lines.firstIndex(where: { $0.hasPrefix("$ curl -s") && $0.contains("| reshape") })
        else {
            Issue.record("the README's first example is missing")
            return
        }
        let rules = lines[(rulesStart + 1)..<inputLine].joined(separator: "\n")
        let output = try Rules(json: rules).apply(to: lines[inputLine + 1])
        #expect(output == lines[outputLine + 1])
    }
}
