import Foundation
import Testing

/// Faults around files and pipes, end to end: each run of `reshape` must end with one line and
/// exit status 1 or 2, never a signal, within a deadline, and leave the output file as it was.
@Suite struct FaultTests {
    static let rules = #"[{"op": "keyedToArray", "idKey": "id", "wrapIn": "users"}, {"op": "emptyObjectToNull"}]"#

    /// A Firebase export of `records` records, about 60 bytes each.
    static func payload(_ records: Int) -> Data {
        var text = "{"
        for index in 0..<records {
            if index > 0 { text += "," }
            text += #""-Nx\#(String(format: "%08d", index))": {"name": "user \#(index)", "avatar": {}}"#
        }
        return Data((text + "}").utf8)
    }

    struct Run {
        let status: Int32
        let signaled: Bool
        let stderr: String
    }

    /// Runs `process` (set up by the caller, its standard error taken here) to its end, killing it
    /// after `seconds`; `whileRunning` is called with its pid once it has started.
    static func run(_ process: Process, seconds: Double = 60, whileRunning: (Int32) -> Void = { _ in }) throws -> Run {
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let deadline = DispatchWorkItem { process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: deadline)
        whileRunning(process.processIdentifier)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        deadline.cancel()
        return Run(
            status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal, stderr: stderr)
    }

    static func reshape(_ arguments: [String]) -> Process {
        let process = Process()
        process.executableURL = CLIRunner.executable
        process.arguments = arguments
        return process
    }

    static func folder() throws -> (URL, rules: String) {
        let directory = try CLIRunner.temporaryDirectory()
        let rules = directory.appendingPathComponent("rules.json")
        try Data(Self.rules.utf8).write(to: rules)
        return (directory, rules.path)
    }

    /// The bytes `pid` has read so far (`rchar` in /proc/PID/io), or 0.
    static func bytesRead(by pid: Int32) -> Int {
        guard let io = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8) else { return 0 }
        for line in io.split(separator: "\n") where line.hasPrefix("rchar: ") {
            return Int(line.dropFirst(7)) ?? 0
        }
        return 0
    }

    @Test func anInputFileTruncatedWhileItIsReadIsAnIOErrorNotASignal() throws {
        let (directory, rules) = try Self.folder()
        let input = directory.appendingPathComponent("in.json")
        let output = directory.appendingPathComponent("out.json")
        try Self.payload(600_000).write(to: input)
        try Data("old".utf8).write(to: output)
        let size = try FileManager.default.attributesOfItem(atPath: input.path)[.size] as? Int ?? 0
        let run = try Self.run(Self.reshape(["--rules", rules, input.path, "-o", output.path, "--jobs", "2"])) { pid in
            // Once it has read a few megabytes of the input, the file loses its second half.
            let deadline = Date().addingTimeInterval(20)
            while Self.bytesRead(by: pid) < 4 << 20 && Date() < deadline { usleep(200) }
            truncate(input.path, off_t(size / 2))
        }
        #expect(!run.signaled, "\(run.stderr)")
        #expect(run.status == 2)
        #expect(run.stderr == "reshape: io_error: input file '\(input.path)' changed while it was read: it shrank from \(size) to \(size / 2) bytes\n")
        #expect(try String(contentsOf: output, encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["in.json", "out.json", "rules.json"])
    }

    @Test func devZeroIsInvalidJSONAtOnce() throws {
        let (_, rules) = try Self.folder()
        for arguments in [[rules, "/dev/zero"], [rules]] {
            let process = Self.reshape(["--rules"] + arguments)
            if arguments.count == 1 { process.standardInput = FileHandle(forReadingAtPath: "/dev/zero") }
            process.standardOutput = FileHandle.nullDevice
            let run = try Self.run(process, seconds: 20)
            #expect(!run.signaled && run.status == 1)
            #expect(run.stderr == "reshape: invalid_json: line 1, column 1: expected a value, found byte 0x00\n")
        }
    }

    /// `yes '{"a": {}}' | reshape --rules r.json`: without --input-lines, the second document is an
    /// error as soon as it comes.
    @Test func anEndlessPipeOfDocumentsFailsAtTheSecond() throws {
        let (_, rules) = try Self.folder()
        let producer = Process()
        producer.executableURL = URL(fileURLWithPath: "/usr/bin/yes")
        producer.arguments = [#"{"a": {}}"#]
        let pipe = Pipe()
        producer.standardOutput = pipe
        try producer.run()
        defer { producer.terminate() }
        let process = Self.reshape(["--rules", rules])
        process.standardInput = pipe
        process.standardOutput = FileHandle.nullDevice
        let run = try Self.run(process, seconds: 20)
        #expect(!run.signaled && run.status == 1)
        #expect(run.stderr == "reshape: invalid_json: line 2, column 1: unexpected '{' after the JSON value\n")
    }

    /// Past the file size limit (`ulimit -f`, SIGXFSZ ignored) a write is EFBIG; on a full disk (a
    /// tmpfs of 1 MiB, mounted when the tests run as root) ENOSPC. Either way the file is as it
    /// was, and nothing is left beside it.
    @Test func aWriteThatFailsIsAnIOErrorAndTheFileStaysAsItWas() throws {
        let (directory, rules) = try Self.folder()
        let input = directory.appendingPathComponent("in.json")
        try Self.payload(60_000).write(to: input)
        let output = directory.appendingPathComponent("out.json")
        try Data("old".utf8).write(to: output)
        let limited = Process()
        limited.executableURL = URL(fileURLWithPath: "/bin/sh")
        limited.arguments = [
            "-c", #"ulimit -f 1024; trap '' XFSZ; exec "$0" "$@""#, CLIRunner.executable.path, "--rules", rules, input.path,
            "-o", output.path,
        ]
        let run = try Self.run(limited)
        #expect(!run.signaled && run.status == 2)
        #expect(run.stderr == "reshape: io_error: cannot write output file '\(output.path)': File too large\n")
        #expect(try String(contentsOf: output, encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["in.json", "out.json", "rules.json"])

        guard getuid() == 0 else { return }
        let disk = directory.appendingPathComponent("disk")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=1m", "reshape-test", disk.path]
        try mount.run()
        mount.waitUntilExit()
        guard mount.terminationStatus == 0 else { return }
        defer {
            let umount = Process()
            umount.executableURL = URL(fileURLWithPath: "/bin/umount")
            umount.arguments = ["-l", disk.path]
            try? umount.run()
            umount.waitUntilExit()
        }
        let full = disk.appendingPathComponent("out.json")
        try Data("old".utf8).write(to: full)
        let onFullDisk = try Self.run(Self.reshape(["--rules", rules, input.path, "-o", full.path]))
        #expect(!onFullDisk.signaled && onFullDisk.status == 2)
        #expect(onFullDisk.stderr == "reshape: io_error: cannot write output file '\(full.path)': No space left on device\n")
        #expect(try String(contentsOf: full, encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path) == ["out.json"])
    }
}
