import Foundation
import Testing

/// `--output FILE` (issue 8, row 12): FILE keeps its mode and owner, a symbolic link keeps being a
/// link while its target is replaced, and nothing is left behind.
@Suite struct OutputFileTests {
    struct Setup {
        let directory: URL
        let rules: URL

        init() throws {
            directory = try CLIRunner.temporaryDirectory()
            rules = directory.appendingPathComponent("rules.json")
            try Data(#"[{"op": "wrap", "key": "k"}]"#.utf8).write(to: rules)
        }

        func reshape(to output: String) throws -> CLIRunner.Outcome {
            try CLIRunner.run(["--rules", rules.path, "-o", output], stdin: Array("[1]".utf8))
        }

        func contents(_ name: String) throws -> String {
            try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
        }

        func mode(_ path: String) -> mode_t {
            var info = stat()
            return lstat(path, &info) == 0 ? info.st_mode : 0
        }

        /// Everything in the directory, so that a leftover temporary file shows.
        func listing() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        }
    }

    @Test func anExistingFileKeepsItsMode() throws {
        let setup = try Setup()
        let output = setup.directory.appendingPathComponent("out.json").path
        for permissions: mode_t in [0o600, 0o640, 0o755] {
            try Data("old".utf8).write(to: URL(fileURLWithPath: output))
            chmod(output, permissions)
            let outcome = try setup.reshape(to: output)
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(try setup.contents("out.json") == #"{"k":[1]}"#)
            #expect(setup.mode(output) & 0o7777 == permissions)
            #expect(setup.mode(output) & S_IFMT == S_IFREG)
        }
        #expect(try setup.listing() == ["out.json", "rules.json"])
    }

    @Test func aNewFileGetsTheUsualModeForTheUmask() throws {
        let setup = try Setup()
        let output = setup.directory.appendingPathComponent("new.json").path
        // Read, not set: setting it, even for a moment, would change the whole test process's.
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
            let mask = mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8)
        else { return }
        #expect(try setup.reshape(to: output).status == 0)
        #expect(setup.mode(output) & 0o777 == 0o666 & ~mask)
    }

    @Test func aSymbolicLinkStaysALinkAndItsTargetIsReplaced() throws {
        let setup = try Setup()
        let target = setup.directory.appendingPathComponent("target.json").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        chmod(target, 0o600)
        let link = setup.directory.appendingPathComponent("link.json").path
        symlink("target.json", link)  // relative, as links usually are
        let chained = setup.directory.appendingPathComponent("chained.json").path
        symlink(link, chained)
        let outcome = try setup.reshape(to: chained)
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(setup.mode(link) & S_IFMT == S_IFLNK)
        #expect(setup.mode(chained) & S_IFMT == S_IFLNK)
        #expect(try setup.contents("target.json") == #"{"k":[1]}"#)
        #expect(setup.mode(target) & 0o7777 == 0o600)
        // A link to a file that does not exist yet creates it.
        let dangling = setup.directory.appendingPathComponent("dangling.json").path
        symlink("created.json", dangling)
        #expect(try setup.reshape(to: dangling).status == 0)
        #expect(setup.mode(dangling) & S_IFMT == S_IFLNK)
        #expect(try setup.contents("created.json") == #"{"k":[1]}"#)
        #expect(try setup.listing() == ["chained.json", "created.json", "dangling.json", "link.json", "rules.json", "target.json"])
    }

    @Test(.enabled(if: getuid() == 0, "giving a file to another user needs root"))
    func anExistingFileKeepsItsOwner() throws {
        let setup = try Setup()
        let output = setup.directory.appendingPathComponent("theirs.json").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: output))
        chown(output, 65534, 65534)
        #expect(try setup.reshape(to: output).status == 0)
        var info = stat()
        lstat(output, &info)
        #expect(info.st_uid == 65534 && info.st_gid == 65534)
        #expect(try setup.contents("theirs.json") == #"{"k":[1]}"#)
    }

    @Test func devicesAreWrittenLikeARedirection() throws {
        let setup = try Setup()
        #expect(try setup.reshape(to: "/dev/null").status == 0)
    }

    @Test func failuresSayWhyInTheSystemsWords() throws {
        let setup = try Setup()
        let missing = try setup.reshape(to: "/nonexistent/out.json")
        #expect(missing.status == 2)
        #expect(missing.stderr == "reshape: io_error: cannot write output file '/nonexistent/out.json': No such file or directory\n")
        let directory = try setup.reshape(to: setup.directory.path)
        #expect(directory.status == 2)
        #expect(directory.stderr == "reshape: io_error: cannot write output file '\(setup.directory.path)': Is a directory\n")
        let loop = setup.directory.appendingPathComponent("loop.json").path
        symlink(loop, loop)
        #expect(try setup.reshape(to: loop).stderr.hasSuffix(": Too many levels of symbolic links\n"))
    }

    /// `/dev/stdout`, `/dev/fd/N` and `/proc/self/fd/N` name a descriptor the command has open:
    /// a pipe is written as the output comes, and a file opened for appending is appended to,
    /// never replaced (its link names the file, which a rename would have wiped).
    @Test func descriptorPathsWriteToTheDescriptor() throws {
        let setup = try Setup()
        for name in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
            let outcome = try setup.reshape(to: name)
            #expect(outcome.status == 0, "\(name): \(outcome.stderr)")
            #expect(String(decoding: outcome.stdout, as: UTF8.self) == #"{"k":[1]}"#, "\(name)")
        }
        let log = setup.directory.appendingPathComponent("log.txt")
        try Data("earlier line\n".utf8).write(to: log)
        let appending = open(log.path, O_WRONLY | O_APPEND)
        #expect(appending >= 0)
        let process = Process()
        process.executableURL = CLIRunner.executable
        process.arguments = ["--rules", setup.rules.path, "-o", "/dev/stdout", "-"]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle(fileDescriptor: appending, closeOnDealloc: true)
        try process.run()
        input.fileHandleForWriting.write(Data("[2]".utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try setup.contents("log.txt") == "earlier line\n" + #"{"k":[2]}"#)
        #expect(try setup.listing() == ["log.txt", "rules.json"])
    }
}

/// The help's examples name files that exist (issue 8, row 13).
@Suite struct HelpExampleTests {
    @Test func everyExampleFileExists() throws {
        let help = String(decoding: try CLIRunner.run(["--help"]).stdout, as: UTF8.self)
        let root = DocumentationTests.root
        let paths = help.split(whereSeparator: { $0 == " " || $0 == "\n" }).filter { $0.hasPrefix("examples/") }
        #expect(paths.count >= 2)
        for path in paths {
            #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent(String(path)).path), "\(path)")
        }
    }
}
