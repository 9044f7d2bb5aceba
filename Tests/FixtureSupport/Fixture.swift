import Foundation

/// One case of `Tests/Fixtures/<name>/`: the shared truth that the Swift, C and Python suites run.
///
/// `input.json` and `rules.json`, then either `expected.json` (the exact output bytes) or
/// `error.json` (the exact error), and optionally `options.json` (`pretty`, `allowDuplicateKeys`,
/// raw `flags`).
public struct Fixture: Sendable, CustomStringConvertible {
    public let name: String
    public let input: [UInt8]
    public let rules: [UInt8]
    public let expected: [UInt8]?
    public let error: ExpectedError?
    public let pretty: Bool
    public let allowDuplicateKeys: Bool
    /// Extra raw flag bits, for cases about flags the API does not know.
    public let extraFlags: UInt32

    public var description: String { name }

    /// The C flags this case asks for.
    public var flags: UInt32 {
        (pretty ? 1 : 0) | (allowDuplicateKeys ? 2 : 0) | extraFlags
    }

    public struct ExpectedError: Sendable, Decodable {
        public let code: String
        public let rule: Int
        public let op: String
        public let path: String
        public let line: Int
        public let column: Int
        public let position: Int
        public let message: String
        public let description: String
    }

    private struct Options: Decodable {
        var pretty: Bool?
        var allowDuplicateKeys: Bool?
        var flags: UInt32?
    }

    /// The folder holding every fixture.
    public static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// Every fixture, sorted by name.
    public static let all: [Fixture] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().compactMap { try? Fixture(name: $0) }
    }()

    public init(name: String) throws {
        let folder = Self.directory.appendingPathComponent(name)
        func read(_ file: String) -> Data? { try? Data(contentsOf: folder.appendingPathComponent(file)) }
        self.name = name
        guard let input = read("input.json"), let rules = read("rules.json") else {
            throw CocoaError(.fileReadNoSuchFile)
        }
        self.input = [UInt8](input)
        self.rules = [UInt8](rules)
        self.expected = read("expected.json").map { [UInt8]($0) }
        self.error = try read("error.json").map { try JSONDecoder().decode(ExpectedError.self, from: $0) }
        let options = try read("options.json").map { try JSONDecoder().decode(Options.self, from: $0) }
        self.pretty = options?.pretty ?? false
        self.allowDuplicateKeys = options?.allowDuplicateKeys ?? false
        self.extraFlags = options?.flags ?? 0
    }
}
