// Compiled with the CLI trait only (see Package.swift and WithoutCLITrait.swift).
#if CLI
import ArgumentParser
import ReshapeCore

/// `reshape explain --rules RULES.json INPUT`: what each rule did on the input.
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Say what each rule did on an input.",
        discussion: """
            Reshapes INPUT with the rules as a whole tree, follows every value
            through each rule, and prints per rule: how many values its path
            selected and how many of them it changed, up to three changes with
            their paths in the output and in the input and the values before and
            after (shortened), whether it runs per record on this input or needs
            the whole document and why, and its share of the time. A rule that
            fails ends the list with its error (exit status 0: the explanation is
            the output). --json prints the same as a JSON object.

            EXAMPLE:
              reshape explain --rules rules.json users.json
              rule 1 (keyedToArray $): selected 1, changed 1 (5 changes); ...
            """
    )

    @Option(name: .long, help: ArgumentHelp("The rules document (JSON).", valueName: "RULES.json"))
    var rules: String

    @Argument(help: ArgumentHelp("The JSON document the rules reshape; '-' reads standard input.", valueName: "INPUT"))
    var input: String

    @Flag(name: .long, help: "Print the explanation as a JSON object.")
    var json = false

    @Flag(name: .long, help: "Let the last of duplicate member names win instead of failing.")
    var allowDuplicateKeys = false

    func run() throws {
        let compiled = try compileRules(at: rules)
        let bytes = try readInput(input)
        let explanation: Explanation
        do {
            explanation = try compiled.explain(bytes, options: allowDuplicateKeys ? .allowDuplicateKeys : [])
        } catch {
            throw CLIFailure(error)
        }
        print(json ? String(decoding: try explanation.json.json(), as: UTF8.self) : explanation.description)
    }
}
#endif
