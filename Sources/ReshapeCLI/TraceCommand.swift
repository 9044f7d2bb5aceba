// Compiled with the CLI trait only (see Package.swift and WithoutCLITrait.swift).
#if CLI
import ArgumentParser
import ReshapeCore

/// `reshape trace --rules RULES.json INPUT PATH`: where a value of the output was in the input.
struct TraceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trace",
        abstract: "Say where a value of the output was in the input, or which rule made it.",
        discussion: """
            Reshapes INPUT with the rules, follows every value through each rule, and
            prints where the value at PATH in the output (a normalized path such as
            $[3]['age'], or any path that selects one value) was in the input: its
            normalized path there, line, column and byte position; or the rule that
            replaced it, added it, or made it from a member name; and the renamings of
            its member. --json prints the same as a JSON object.

            EXAMPLE:
              reshape trace --rules rules.json users.json "\\$[3]['age']"
              $['-NxA3kq0']['age'], line 1, column 2211
            """
    )

    @Option(name: .long, help: ArgumentHelp("The rules document (JSON).", valueName: "RULES.json"))
    var rules: String

    @Argument(help: ArgumentHelp("The JSON document the rules reshape; '-' reads standard input.", valueName: "INPUT"))
    var input: String

    @Argument(help: ArgumentHelp("The path of one value in the output.", valueName: "PATH"))
    var path: String

    @Flag(name: .long, help: "Print the source as a JSON object.")
    var json = false

    @Flag(name: .long, help: "Let the last of duplicate member names win instead of failing.")
    var allowDuplicateKeys = false

    func run() throws {
        let compiled = try compileRules(at: rules)
        let bytes = try readInput(input)
        let location: ValueSource
        do {
            location = try compiled.source(of: path, in: bytes, options: allowDuplicateKeys ? .allowDuplicateKeys : [])
        } catch {
            throw CLIFailure(error)
        }
        print(json ? location.json.description : location.description)
    }
}
#endif
