// Compiled with the CLI trait only (see Package.swift and WithoutCLITrait.swift).
#if CLI
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import ArgumentParser
import ReshapeCore

/// `reshape infer SAMPLE.json...`: rules (and types) proposed from sample responses.
struct InferCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "infer",
        abstract: "Propose rules, and Swift or Python types, from sample responses.",
        discussion: """
            Looks at every sample (responses of one endpoint) and prints a rules
            document that turns them into clean, regular JSON: keyed collections
            become arrays of records, {} and "" placeholders become null, numbers
            and booleans sent as strings become numbers and booleans, and names
            follow --keys. Standard error says, one line per rule, why it was
            proposed (--json: as one JSON array). docs/infer.md tells how each
            place is decided.

            EXAMPLE:
              reshape infer users.json --swift Users.swift -o rules.json
              rule 1 (keyedToArray): $ is a keyed collection: ...
            """
    )

    @Argument(help: ArgumentHelp("Sample responses (JSON); '-' reads standard input.", valueName: "SAMPLE"))
    var samples: [String]

    @Option(name: [.customShort("o"), .long], help: ArgumentHelp("Write the rules document to FILE instead of standard output.", valueName: "FILE"))
    var output: String?

    @Option(name: .long, help: ArgumentHelp("Member names of the output: camelCase, snake_case, kebab-case or keep.", valueName: "CASE"))
    var keys: String = "camelCase"

    @Option(name: .long, help: ArgumentHelp("The member that receives each record's key.", valueName: "NAME"))
    var idKey: String = "id"

    @Option(name: .long, help: ArgumentHelp("The member a collection at the root goes under (default: the first sample's file name).", valueName: "NAME"))
    var name: String?

    @Option(name: .long, help: ArgumentHelp("A place that is a keyed collection, whatever its score (repeatable).", valueName: "PATH"))
    var map: [String] = []

    @Option(name: .long, help: ArgumentHelp("A place that is an object with fields, whatever its score (repeatable).", valueName: "PATH"))
    var object: [String] = []

    @Flag(name: .long, help: "Unwrap an envelope (data, result, items...) instead of keeping it.")
    var unwrap = false

    @Flag(name: .long, help: "Print the reasons as one JSON array.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Write Codable structs for the output, the rules on the root type.", valueName: "FILE"))
    var swift: String?

    @Option(name: .long, help: ArgumentHelp("Write TypedDicts for the output.", valueName: "FILE"))
    var python: String?

    @Option(name: .long, help: ArgumentHelp("The root type's name (default: from the first sample's file name).", valueName: "NAME"))
    var root: String?

    func run() throws {
        guard let keyCase = InferenceOptions.Keys(rawValue: keys) else {
            throw CLIFailure(.invalidArgument, "--keys must be camelCase, snake_case, kebab-case or keep, not '\(keys)'")
        }
        guard samples.filter({ $0 == "-" }).count <= 1 else {
            throw CLIFailure(.invalidArgument, "standard input can be read once: give '-' as one sample only")
        }
        var values: [JSONValue] = []
        for sample in samples {
            let bytes = try readInput(sample)
            do {
                values.append(try JSONValue(json: bytes))
            } catch {
                throw CLIFailure(
                    ReshapeError(
                        error.code, "\(sample): \(error.message)", path: error.path, line: error.line, column: error.column,
                        position: error.position))
            }
        }
        let stem = Self.stem(of: samples[0])
        let options = InferenceOptions(
            keys: keyCase, idKey: idKey, name: name ?? stem.map { Self.memberName($0) } ?? "items", maps: map, objects: object, unwrap: unwrap)
        do {
            let inference = try Inference.infer(values, options: options)
            let rootName = root ?? stem.map(Self.typeName) ?? "Root"
            var document = try inference.rules.json(pretty: true)
            document.append(UInt8(ascii: "\n"))
            // Types first: nothing is written when a type cannot be.
            let swiftSource = try swift.map { _ in try inference.swift(root: rootName) }
            let pythonSource = try python.map { _ in try inference.python(root: rootName) }
            if let swift, let swiftSource { try replaceFile(at: swift, with: Array(swiftSource.utf8)) }
            if let python, let pythonSource { try replaceFile(at: python, with: Array(pythonSource.utf8)) }
            if let output {
                try replaceFile(at: output, with: document)
            } else {
                writeText(String(decoding: document, as: UTF8.self), to: STDOUT_FILENO)
            }
            if json {
                writeText(String(decoding: try JSONValue.array(inference.reasons.map(\.json)).json(), as: UTF8.self) + "\n")
            } else {
                for reason in inference.reasons { writeText(reason.description + "\n") }
            }
        } catch let error as ReshapeError {
            throw CLIFailure(error)
        }
    }

    /// `users` for `path/users.json`; nil for standard input or a name with no letter.
    static func stem(of path: String) -> String? {
        guard path != "-" else { return nil }
        let file = path.split(separator: "/").last.map(String.init) ?? path
        let stem = file.split(separator: ".").first.map(String.init) ?? file
        return stem.contains(where: \.isLetter) ? stem : nil
    }

    /// The member name a collection gets from a file's stem: as it is, when it is a plain name.
    static func memberName(_ stem: String) -> String {
        stem.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") } ? stem : "items"
    }

    /// `Users` for `users`, `BookList` for `book_list`.
    static func typeName(_ stem: String) -> String {
        var name = ""
        var upper = true
        for character in stem {
            guard character.isASCII, character.isLetter || character.isNumber else {
                upper = true
                continue
            }
            name.append(upper ? Character(character.uppercased()) : character)
            upper = false
        }
        if let first = name.first, first.isNumber { name = "Root" + name }
        return name.isEmpty ? "Root" : name
    }
}
#endif
