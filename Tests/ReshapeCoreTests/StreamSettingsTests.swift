import Foundation
import ReshapeCore
import Testing

@Suite struct StreamSettingsTests {
    /// `jobs` 0 is one thread per core this process may run on: what `nproc` counts (its CPU
    /// affinity), not every core online.
    @Test func jobsZeroCountsTheCoresThisProcessMayUse() throws {
        let nproc = Process()
        nproc.executableURL = URL(fileURLWithPath: "/usr/bin/nproc")
        let pipe = Pipe()
        nproc.standardOutput = pipe
        try nproc.run()
        nproc.waitUntilExit()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let cores = try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(StreamSettings(jobs: 0).resolvedJobs == cores)
        #expect(StreamSettings(jobs: 3).resolvedJobs == 3)
    }

    /// A huge `jobs` runs `maxJobs` threads (it used to ask the system for that many, and hang).
    @Test func jobsAreBounded() throws {
        #expect(StreamSettings(jobs: 64).resolvedJobs == 64)
        #expect(StreamSettings(jobs: 65).resolvedJobs == StreamSettings.maxJobs)
        #expect(StreamSettings(jobs: Int(UInt32.max)).resolvedJobs == StreamSettings.maxJobs)
        let rules = try Rules(json: #"[{"op": "keyedToArray", "idKey": "id"}]"#)
        let records = (0..<20_000).map { #""r\#($0)": {"n": \#($0)}"# }
        let input = Array(("{" + records.joined(separator: ",") + "}").utf8)
        let expected = try rules.applyWholeTree(to: input)
        #expect(try rules.apply(to: input, options: [], settings: StreamSettings(jobs: Int(UInt32.max))) == expected)
    }
}
