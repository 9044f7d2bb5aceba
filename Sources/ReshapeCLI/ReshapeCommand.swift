// Compiled with the CLI trait only (see Package.swift and WithoutCLITrait.swift).
#if CLI
import ArgumentParser
import ReshapeCore

/// `reshape`: reshapes JSON files with a rules document.
@main
struct ReshapeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reshape",
        abstract: "Reshape JSON from quirky APIs with a rules document.",
        usage: """
            reshape --rules RULES.json [INPUT|-] [--output FILE] [--pretty] [--allow-duplicate-keys]
                    [--jobs N] [--progress|--no-progress] [--input-lines] [--output-lines] [--skip-invalid-lines]
            reshape check RULES.json
            reshape trace --rules RULES.json INPUT PATH [--json]
            reshape explain --rules RULES.json INPUT [--json]
            reshape infer SAMPLE.json... [-o RULES.json] [--swift FILE] [--python FILE]
            """,
        discussion: """
            Applies the rules (see docs/rules.md) to INPUT, or to standard input when
            INPUT is '-' or missing, and writes the reshaped JSON, compact unless
            --pretty is given. A document that is one collection of records is
            reshaped record by record on every core (--jobs N to limit), in bounded
            memory; --input-lines and --output-lines read and write JSON Lines.

            EXAMPLES:
              Turn a Firebase collection into an array of records:
                reshape --rules examples/firebase-users/rules.json \\
                  examples/firebase-users/users.json

              Read standard input, write an indented file (written only if reshaping
              succeeds):
                curl -s https://example.firebaseio.com/users.json |
                  reshape --rules rules.json --pretty -o users.json

              Reshape each line of a JSON Lines file, skipping lines that are not JSON:
                reshape --rules rules.json --input-lines --skip-invalid-lines events.jsonl

              Check a rules document, and see which rules run per record:
                reshape check rules.json

              Find where a value of the output was in the input:
                reshape trace --rules rules.json users.json "\\$[3]['age']"

              See what each rule did on an input:
                reshape explain --rules rules.json users.json

              Propose rules and Swift types from a sample response:
                reshape infer users.json -o rules.json --swift Users.swift

            EXIT STATUS:
              0  success
              1  the input could not be reshaped (invalid JSON, a rule failed, a limit
                 was exceeded, cancelled)
              2  usage error, a file that cannot be read or written, or invalid rules

            Errors are one line on standard error, e.g.
              reshape: rule_failed: rule 2 (keyedToArray) at $['users']['u1']:
                expected an object, found a string
            """,
        version: ReshapeVersion.string,
        subcommands: [ApplyCommand.self, CheckCommand.self, TraceCommand.self, ExplainCommand.self, InferCommand.self],
        defaultSubcommand: ApplyCommand.self
    )

    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let failure as CLIFailure {
            failure.exit()
        } catch {
            if exitCode(for: error) == .success { exit(withError: error) }
            let message = self.message(for: error).split(separator: "\n").first.map(String.init) ?? "invalid arguments"
            CLIFailure(.invalidArgument, "\(message) (see 'reshape --help')").exit()
        }
    }
}
#endif
