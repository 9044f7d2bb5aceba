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
}
