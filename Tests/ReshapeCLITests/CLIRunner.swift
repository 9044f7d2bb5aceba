import Foundation

/// Runs the built `reshape` binary and captures what it does.
struct CLIRunner {
    struct Outcome {
        let status: Int32
        let stdout: [UInt8]
        let stderr: String
    }

    /// The `reshape` executable built next to the test bundle.
    static let executable: URL = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("reshape")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: "reshape")
    }()

    static func run(_ arguments: [String], stdin: [UInt8] = [], in directory: URL? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Written while the output is read: the command streams, and writes before it has read
        // all its input, so neither pipe may wait for the other to be emptied.
        let writer = input.fileHandleForWriting
        let written = DispatchSemaphore(value: 0)
        Thread {
            writer.write(Data(stdin))
            try? writer.close()
            written.signal()
        }.start()
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        written.wait()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, stdout: [UInt8](stdout), stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// A fresh temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("reshape-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
