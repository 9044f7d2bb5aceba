// Compiled with the CLI trait only (see Package.swift and WithoutCLITrait.swift).
#if CLI
import ArgumentParser
import ReshapeCore

/// `reshape check RULES.json`: validates a rules document.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a rules document, list its rules and say which run per record."
    )

    @Argument(help: ArgumentHelp("The rules document to check.", valueName: "RULES.json"))
    var rules: String

    func run() throws {
        let compiled = try compileRules(at: rules)
        let count = compiled.count == 1 ? "1 rule" : "\(compiled.count) rules"
        let list = compiled.ops.isEmpty ? "" : ": " + compiled.ops.joined(separator: ", ")
        print("\(rules): ok, \(count)\(list)")
        // How each rule runs on large documents: per record (streaming) or on the whole tree.
        for line in compiled.executionPlan { print(line) }
    }
}
#endif
