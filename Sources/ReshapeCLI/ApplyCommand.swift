// Compiled with the CLI trait only (see Package.swift and WithoutCLITrait.swift).
#if CLI
import ArgumentParser
import ReshapeCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

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

    @Option(name: .long, help: ArgumentHelp("Reshape records on N threads (default, or 0: one per core; at most 64).", valueName: "N"))
    var jobs: Int? = nil

    @Flag(name: .long, inversion: .prefixedNo, help: "Show progress on standard error (default: when it is a terminal and the input is over 50 MB).")
    var progress: Bool? = nil

    @Flag(name: .long, help: "Read JSON Lines: reshape each line as a document, one output line each.")
    var inputLines = false

    @Flag(name: .long, help: "Write JSON Lines: the resulting collection, one record per line.")
    var outputLines = false

    @Flag(name: .long, help: "With --input-lines, report and skip lines that are not valid JSON.")
    var skipInvalidLines = false

    func validate() throws {
        guard (jobs ?? 0) >= 0 else { throw ValidationError("--jobs must be 0 or more") }
    }

    func run() throws {
        let compiled = try compileRules(at: rules)
        var options: ApplyOptions = []
        if pretty { options.insert(.pretty) }
        if allowDuplicateKeys { options.insert(.allowDuplicateKeys) }
        if inputLines { options.insert(.inputLines) }
        if outputLines { options.insert(.outputLines) }
        if skipInvalidLines { options.insert(.skipInvalidLines) }
        do {
            try options.validate()  // before waiting for input that may never end
        } catch {
            throw CLIFailure(error.code, "\(error.message) (see 'reshape --help')")
        }
        let descriptor = try openInput(input)
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }
        let inputName = input.flatMap { $0 == "-" ? nil : $0 } ?? "standard input"
        var settings = StreamSettings(jobs: jobs ?? 0)
        settings.skippedLine = { error in
            writeText("reshape: skipped an invalid line: \(error.description)\n")
        }
        let bar = ProgressBar.forInput(descriptor, requested: progress)
        if let bar { settings.progress = bar.update }
        do {
            if let output, output != "-" {
                try compiled.apply(fromDescriptor: descriptor, named: inputName, toFile: output, options: options, settings: settings)
            } else {
                try compiled.apply(
                    fromDescriptor: descriptor, named: inputName, toDescriptor: STDOUT_FILENO, options: options, settings: settings)
                // A terminal's prompt starts on a line of its own; JSON Lines end their lines already.
                if isatty(STDOUT_FILENO) == 1 && !inputLines && !outputLines { writeText("\n", to: STDOUT_FILENO) }
            }
        } catch {
            bar?.finish()
            throw CLIFailure(error)
        }
        bar?.finish()
    }
}
#endif
