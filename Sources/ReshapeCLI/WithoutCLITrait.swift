// The package builds the `reshape` command only with its CLI trait (see Package.swift), which is
// off by default so that depending on the library fetches nothing the command needs. Without it,
// this target is a stub that says how to build the real command.
#if !CLI
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

@main
enum ReshapeWithoutCLITrait {
    static func main() {
        let message = "reshape: this build has no command line; build it with: swift build --traits CLI --product reshape\n"
        _ = message.withCString { write(2, $0, strlen($0)) }
        exit(2)
    }
}
#endif
