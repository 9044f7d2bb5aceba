import ArgumentParser
import Foundation
import ReshapeCore

/// `reshape [apply] --rules RULES.json [INPUT|-]`: the default command.
struct ApplyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Reshape a JSON document (the default command)."
    )

    @Option(name: .long, help: ArgumentHelp("The rules document (JSON).", valueName: "RULES.json"))
    var rules: String

    @Argument(help: ArgumentHelp("The JSON document to reshape; '-' or nothing reads standard input.", valueName: "INPUT"))
    var input: String?

    @Option(name: [.short, .long], help: ArgumentHelp("Write to FILE instead of standard output (replaced only on success).", valueName: "FILE"))
    var output: String?

    @Flag(name: .long, help: "Indent the output with two spaces.")
    var pretty = false

    @Flag(name: .long, help: "Let the last of duplicate member names win instead of failing.")
    var allowDuplicateKeys = false

    func run() throws {
        let compiled = try compileRules(at: rules)
        let document = try readInput(input)
        var options: ApplyOptions = []
        if pretty { options.insert(.pretty) }
        if allowDuplicateKeys { options.insert(.allowDuplicateKeys) }
        let reshaped: [UInt8]
        do {
            reshaped = try compiled.apply(to: document, options: options)
        } catch {
            throw CLIFailure(error)
        }
        try writeOutput(reshaped, to: output)
    }
}
