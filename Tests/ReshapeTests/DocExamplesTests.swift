import Foundation
import Testing

/// The Swift examples of docs/swift.md are code the test suite compiles and runs.
///
/// Each ```swift block of the page is preceded by one of two comments:
/// - `<!-- example: NAME (Tests/ReshapeTests/FILE.swift) -->`: the block is, line for line, the
///   regions of FILE between `// example: NAME` and `// end example: NAME`, in order, each without
///   its common indentation, joined by one blank line. FILE puts them inside a `@Test` that runs
///   them (type declarations may sit in the suite around it) and checks what they give.
/// - `<!-- not compiled: WHY -->`, for what cannot be a test (a package manifest, an import line).
@Suite struct DocExamplesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Block {
        let marker: String
        let code: String
        let line: Int
    }

    /// The ```swift blocks of a Markdown page with the comment line before each.
    static func blocks(of page: String) -> [Block] {
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var blocks: [Block] = []
        var index = 0
        while index < lines.count {
            guard lines[index].trimmingCharacters(in: .whitespaces) == "```swift" else {
                index += 1
                continue
            }
            let marker = lines[..<index].last { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? ""
            var end = index + 1
            while end < lines.count, lines[end].trimmingCharacters(in: .whitespaces) != "```" { end += 1 }
            blocks.append(Block(marker: marker, code: lines[(index + 1)..<min(end, lines.count)].joined(separator: "\n"), line: index + 1))
            index = end + 1
        }
        return blocks
    }

    /// The regions of `source` named `name`, each dedented, joined by a blank line.
    static func regions(named name: String, in source: String) -> String? {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var regions: [String] = []
        var current: [String]?
        for line in lines {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "// example: \(name)" {
                current = []
            } else if trimmed == "// end example: \(name)" {
                if let region = current { regions.append(dedented(region)) }
                current = nil
            } else {
                current?.append(line)
            }
        }
        return regions.isEmpty ? nil : regions.joined(separator: "\n\n")
    }

    /// Lines without their common leading spaces, and without blank lines at either end.
    static func dedented(_ lines: [String]) -> String {
        var lines = lines
        while let first = lines.first, first.trimmingCharacters(in: .whitespaces).isEmpty { lines.removeFirst() }
        while let last = lines.last, last.trimmingCharacters(in: .whitespaces).isEmpty { lines.removeLast() }
        let indent = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return lines.map { $0.trimmingCharacters(in: .whitespaces).isEmpty ? "" : String($0.dropFirst(indent)) }.joined(separator: "\n")
    }

    @Test func everySwiftExampleOfTheSwiftGuideIsCompiledAndRun() throws {
        let page = try String(contentsOf: Self.root.appendingPathComponent("docs/swift.md"), encoding: .utf8)
        let blocks = Self.blocks(of: page)
        #expect(blocks.count >= 10)
        var named: Set<String> = []
        for block in blocks {
            let marker = block.marker.trimmingCharacters(in: .whitespaces)
            if marker.hasPrefix("<!-- not compiled: ") && marker.hasSuffix(" -->") { continue }
            guard marker.hasPrefix("<!-- example: "), marker.hasSuffix(") -->"),
                  let open = marker.firstIndex(of: "(")
            else {
                Issue.record("docs/swift.md:\(block.line): a swift block without an example or not-compiled comment")
                continue
            }
            let name = marker.dropFirst("<!-- example: ".count).prefix { $0 != " " }
            let file = marker[marker.index(after: open)...].dropLast(") -->".count)
            named.insert(String(name))
            let source = try String(contentsOf: Self.root.appendingPathComponent(String(file)), encoding: .utf8)
            #expect(source.contains("@Test"), "\(file) runs no test")
            guard let code = Self.regions(named: String(name), in: source) else {
                Issue.record("docs/swift.md:\(block.line): no region '\(name)' in \(file)")
                continue
            }
            #expect(code == Self.dedented(block.code.components(separatedBy: "\n")), "docs/swift.md:\(block.line): example '\(name)' differs from \(file)")
        }
        // And no test keeps a region the page lost.
        let tests = Self.root.appendingPathComponent("Tests/ReshapeTests")
        let files = FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension == "swift" && file.lastPathComponent != "DocExamplesTests.swift" {
            let source = try String(contentsOf: file, encoding: .utf8)
            for line in source.split(separator: "\n") {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard trimmed.hasPrefix("// example: ") else { continue }
                let name = String(trimmed.dropFirst("// example: ".count))
                #expect(named.contains(name), "\(file.lastPathComponent): region '\(name)' is in no example of docs/swift.md")
            }
        }
    }

    /// The checker itself: a block that differs from its region by one character is caught.
    @Test func theCheckerComparesLineForLine() {
        let source = """
            struct S {
                // example: demo
                struct T {}
                // end example: demo
                func f() {
                        // example: demo
                        let t = T()
                        // end example: demo
                }
            }
            """
        #expect(Self.regions(named: "demo", in: source) == "struct T {}\n\nlet t = T()")
        #expect(Self.regions(named: "demo", in: source) != "struct T {}\n\nlet t = T( )")
        #expect(Self.regions(named: "other", in: source) == nil)
        let page = "<!-- example: demo (F) -->\n```swift\nlet x = 1\n```\n"
        #expect(Self.blocks(of: page).map(\.marker) == ["<!-- example: demo (F) -->"])
        #expect(Self.blocks(of: page).map(\.code) == ["let x = 1"])
    }
}
