import Foundation
import ReshapeCore
import Testing

/// File to file: the output file holds exactly the bytes `apply` gives in memory, on one thread and
/// on several, when the output is large enough for the sink to start writing it back to disk as it
/// goes (every `DescriptorSink.writeBehindBytes`), and when it replaces an existing file.
@Suite struct FileStreamingTests {
    /// About 12 MB of keyed records with the quirks the rules fix: past the 8 MiB write-behind step.
    static func payload() -> [UInt8] {
        var text = "{"
        for index in 0..<40_000 {
            if index > 0 { text += "," }
            let avatar = index % 3 == 0 ? "{}" : #"{"url": "https://cdn.example/\#(index).png", "width": 128}"#
            let plan = index % 5 < 2 ? #""""# : #""pro""#
            text += #""-Nx\#(index)": {"displayName": "Zoë \"\#(index)\" {not json}", "createdAt": \#(1_700_000_000_000 + index), "#
            text += #""score": \#(index % 1000).25, "avatar": \#(avatar), "plan": \#(plan), "#
            text += #""profile": {"firstName": "名前", "bio": "\u00e9 \#(String(repeating: "x", count: 120))"}}"#
        }
        return Array((text + "}").utf8)
    }

    /// A fresh folder with `in.json` holding `input` and `out.json` holding "old contents".
    static func folder(holding input: [UInt8]) throws -> (folder: URL, input: String, output: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reshape-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let inputPath = folder.appendingPathComponent("in.json").path
        let outputPath = folder.appendingPathComponent("out.json").path
        try Data(input).write(to: URL(fileURLWithPath: inputPath))
        try Data("old contents".utf8).write(to: URL(fileURLWithPath: outputPath))
        return (folder, inputPath, outputPath)
    }

    @Test func largeOutputFileMatchesInMemoryOutput() throws {
        let rules = try Rules(json: #"""
            [{"op": "keyedToArray", "idKey": "id", "wrapIn": "users"}, {"op": "emptyObjectToNull"},
             {"op": "blankStringToNull"}, {"op": "convertKeys", "to": "snake_case"}]
            """#)
        let input = Self.payload()
        let expected = try rules.apply(to: input)
        #expect(expected.count > 8 << 20)
        let (folder, inputPath, outputPath) = try Self.folder(holding: input)
        defer { try? FileManager.default.removeItem(at: folder) }
        for jobs in [1, 2, 3] {
            try rules.applyFile(inputPath, to: outputPath, settings: StreamSettings(jobs: jobs))
            let written = try [UInt8](Data(contentsOf: URL(fileURLWithPath: outputPath)))
            #expect(written.count == expected.count, "jobs \(jobs)")
            #expect(written == expected, "jobs \(jobs)")
        }
    }

    /// While the output is being written, its temporary file has no name in the folder (so a
    /// process killed half-way leaves nothing behind), and it gets one only to be renamed over
    /// the file on success.
    @Test func theTemporaryOutputHasNoNameWhileItIsWritten() throws {
        let rules = try Rules(json: #"[{"op": "keyedToArray", "idKey": "id"}]"#)
        let input = Self.payload()
        let (folder, inputPath, outputPath) = try Self.folder(holding: input)
        defer { try? FileManager.default.removeItem(at: folder) }
        let listings = Listings()
        for cancel in [true, false] {
            var settings = StreamSettings(jobs: 2)
            settings.progress = { done, total in
                listings.add(try? FileManager.default.contentsOfDirectory(atPath: folder.path).sorted())
                return !(cancel && done < total)
            }
            let result = Result { () throws(ReshapeError) in try rules.applyFile(inputPath, to: outputPath, settings: settings) }
            if cancel {
                #expect(throws: ReshapeError.self) { try result.get() }
                #expect(try String(contentsOfFile: outputPath, encoding: .utf8) == "old contents")
            } else {
                #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: outputPath))) == rules.apply(to: input))
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["in.json", "out.json"])
        }
        #expect(listings.all.count > 2)
        #expect(listings.all.allSatisfy { $0 == ["in.json", "out.json"] }, "\(listings.all)")
    }

    /// Progress comes about every half megabyte however the document is reshaped: streamed,
    /// streamed and then whole (a rule that needs the whole document), or whole from the start
    /// (no collection where the rules expect one), never going back, ending at the total.
    /// The umask as the kernel reports it (`Umask:` in /proc/self/status); nil without /proc.
    static func umaskFromProc() -> mode_t? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
            let value = mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8)
        else { return nil }
        return value
    }

    /// A new output file gets the mode a new file gets there (0666 less the umask) from the
    /// kernel: the library never sets the umask, which is the whole process's (a thread making a
    /// file in that moment would make it writable by all). A thread watches the umask in
    /// /proc/self/status while new files are written, and must never see it change.
    @Test func newFilesLeaveTheUmaskAlone() throws {
        guard let mask = Self.umaskFromProc() else { return }
        let (folder, inputPath, _) = try Self.folder(holding: Array(#"{"a": {"x": 1}, "b": {"x": 2}}"#.utf8))
        defer { try? FileManager.default.removeItem(at: folder) }
        let rules = try Rules(json: #"[{"op": "keyedToArray"}]"#)
        final class Watch: @unchecked Sendable {
            let lock = NSLock()
            var stop = false
            var changed: mode_t? = nil
            var looks = 0
        }
        let watch = Watch()
        let done = DispatchSemaphore(value: 0)
        let watcher = Thread {
            while true {
                let seen = FileStreamingTests.umaskFromProc()
                watch.lock.lock()
                watch.looks += 1
                if let seen, seen != mask { watch.changed = seen }
                let stop = watch.stop
                watch.lock.unlock()
                if stop { break }
            }
            done.signal()
        }
        watcher.start()
        for index in 0..<300 {
            let outputPath = folder.appendingPathComponent("new-\(index).json").path
            try rules.applyFile(inputPath, to: outputPath, settings: StreamSettings(jobs: 1))
            var status = stat()
            #expect(stat(outputPath, &status) == 0 && status.st_mode & 0o777 == 0o666 & ~mask, "\(outputPath)")
        }
        watch.lock.lock()
        watch.stop = true
        watch.lock.unlock()
        done.wait()
        #expect(watch.changed == nil, "the umask became \(String(watch.changed ?? 0, radix: 8))")
        #expect(watch.looks > 10)
    }

    @Test func progressIsReportedWhateverRoute() throws {
        let input = Self.payload()
        let array = Array(("[" + (0..<40_000).map { #"{"n": \#($0), "pad": "\#(String(repeating: "y", count: 100))"}"# }
            .joined(separator: ",") + "]").utf8)
        let cases: [(String, String, [UInt8])] = [
            ("streamed", #"[{"op": "keyedToArray", "idKey": "id"}]"#, input),
            ("hybrid", #"[{"op": "keyedToArray", "idKey": "id"}, {"op": "remove", "path": "$[-1]"}]"#, input),
            ("whole, no collection", #"[{"op": "keyedToArray", "idKey": "id"}]"#, array),
            ("whole, duplicates allowed", #"[{"op": "keyedToArray", "idKey": "id"}]"#, input),
        ]
        for (name, spec, document) in cases {
            let rules = try Rules(json: spec)
            let reports = Listings()
            var settings = StreamSettings(jobs: 2)
            settings.progress = { done, total in
                reports.add(["\(done)", "\(total)"])
                return true
            }
            let options: ApplyOptions = name.contains("duplicates") ? [.allowDuplicateKeys] : []
            let output = try rules.apply(to: document, options: options, settings: settings)
            #expect(output == (try rules.applyWholeTree(to: document, options: options)), "\(name)")
            let done = reports.all.compactMap { $0.flatMap { Int($0[0]) } }
            let totals = Set(reports.all.compactMap { $0.flatMap { Int($0[1]) } })
            #expect(done.count >= document.count >> 20, "\(name): \(done.count) reports for \(document.count) bytes")
            #expect(done == done.sorted(), "\(name): went back: \(done)")
            #expect(totals == [document.count], "\(name)")
        }
    }

    /// A large document from a pipe is read as it comes, never whole and never into a temporary
    /// file: the input held at once stays within a few chunks, and no file of the temporary
    /// folder is mapped, whatever the threads.
    @Test func aLargeDocumentFromAPipeIsNotHeldInMemory() throws {
        let rules = try Rules(json: #"[{"op": "keyedToArray", "idKey": "id"}]"#)
        // About 50 MB: the payload's records four times over, each copy with ids of its own.
        let records = String(decoding: Self.payload().dropFirst().dropLast(), as: UTF8.self)
        var input: [UInt8] = [UInt8(ascii: "{")]
        for copy in 0..<4 {
            if copy > 0 { input.append(UInt8(ascii: ",")) }
            input += records.replacingOccurrences(of: "\"-Nx", with: "\"-\(copy)x").utf8
        }
        input.append(UInt8(ascii: "}"))
        let expected = try rules.apply(to: input)
        let folder = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        for jobs in [1, 3] {
            let spooled = Listings()
            let peaks = Listings()
            var settings = StreamSettings(jobs: jobs)
            settings.progress = { _, _ in
                spooled.add(Self.deletedMappings(in: folder, atLeast: 1 << 20))
                return true
            }
            settings.inputPeak = { peaks.add(["\($0)"]) }
            let piped = try StreamingDifferentialTests.throughPipe(input) { (source, output) throws(ReshapeError) in
                try rules.apply(fromDescriptor: source, toDescriptor: output, settings: settings)
            }
            #expect((try? piped.get()) == expected, "jobs \(jobs)")
            #expect(spooled.all.count > 20 && spooled.all.allSatisfy { $0 == [] }, "jobs \(jobs): \(spooled.all.prefix(3))")
            let peak = peaks.all.compactMap { $0.flatMap { Int($0[0]) } }
            #expect(peak.count == 1 && peak[0] <= 16 << 20, "jobs \(jobs): \(peak) bytes held for \(input.count)")
        }
    }

    /// The records of a collection from a pipe go out as they come: when the pipe's writer pauses,
    /// the records read so far are written before the read waits, on one thread and on three.
    @Test func recordsFromAPipeGoOutBeforeItEnds() throws {
        let rules = try Rules(json: #"[{"op": "keyedToArray", "idKey": "id"}, {"op": "emptyObjectToNull"}]"#)
        for jobs in [1, 3] {
            var ends: [Int32] = [0, 0]
            #expect(pipe(&ends) == 0)
            let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("reshape-live-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: outputURL) }
            let output = open(outputURL.path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
            let writeEnd = ends[1]
            let seen = Listings()
            let done = DispatchSemaphore(value: 0)
            // More than the first read takes in whole (64 KiB), so that the stream has begun.
            let first = (0..<2000).map { #""a\#($0)": {"n": \#($0), "e": {}, "pad": "\#(String(repeating: "p", count: 40))"}"# }
                .joined(separator: ",")
            Thread {
                func send(_ text: String) { _ = text.withCString { write(writeEnd, $0, strlen($0)) } }
                send("{" + first)
                var info = stat()
                let deadline = Date().addingTimeInterval(10)
                // Records past the first flush (a busy machine may see the opening bracket, or
                // the first 16 KiB, written alone): the stream writes them before the pipe ends.
                while Date() < deadline && (stat(outputURL.path, &info) != 0 || info.st_size <= 50_000) { usleep(5_000) }
                seen.add(["\(info.st_size)"])
                send(#","b": {"n": -1, "e": {}}}"#)
                close(writeEnd)
                done.signal()
            }.start()
            var settings = StreamSettings(jobs: jobs)
            settings.outcome = { seen.add([$0]) }
            try rules.apply(fromDescriptor: ends[0], toDescriptor: output, settings: settings)
            done.wait()
            close(ends[0])
            close(output)
            let sizeBeforeTheEnd = seen.all.first.flatMap { $0.flatMap { Int($0[0]) } } ?? 0
            #expect(sizeBeforeTheEnd > 50_000, "jobs \(jobs): \(sizeBeforeTheEnd) bytes out before the pipe ended")
            #expect(seen.all.contains { $0 == ["streamed"] }, "jobs \(jobs): \(seen.all)")
            let all = (0..<2000).map { #"{"id":"a\#($0)","n":\#($0),"e":null,"pad":"\#(String(repeating: "p", count: 40))"}"# }
            let expected = "[" + (all + [#"{"id":"b","n":-1,"e":null}"#]).joined(separator: ",") + "]"
            #expect(try String(contentsOf: outputURL, encoding: .utf8) == expected, "jobs \(jobs)")
        }
    }

    /// The lines of /proc/self/maps that map a deleted file in `folder` of at least `size` bytes.
    static func deletedMappings(in folder: String, atLeast size: Int) -> [String] {
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return [] }
        return maps.split(separator: "\n").map(String.init).filter { line in
            guard line.hasSuffix(" (deleted)"), line.contains(" " + folder + "/"),
                let range = line.split(separator: " ").first, case let bounds = range.split(separator: "-"), bounds.count == 2,
                let low = Int(bounds[0], radix: 16), let high = Int(bounds[1], radix: 16)
            else { return false }
            return high - low >= size
        }
    }

    final class Listings: @unchecked Sendable {
        private(set) var all: [[String]?] = []
        func add(_ listing: [String]?) { all.append(listing) }
    }
}
