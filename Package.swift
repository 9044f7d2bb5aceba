// swift-tools-version:6.1
// The one place Reshape's Swift targets are defined. CMakeLists.txt drives `swift build` for C users.
import PackageDescription

let package = Package(
    name: "Reshape",
    products: [
        .library(name: "Reshape", targets: ["Reshape"]),
        .library(name: "ReshapeCore", targets: ["ReshapeCore"]),
        .executable(name: "reshape", targets: ["ReshapeCLI"]),
        // The C library. CMakeLists.txt builds it statically linked with the Swift runtime and
        // installs it as libreshape.so with a SONAME and only reshape_* exported.
        .library(name: "ReshapeC", type: .dynamic, targets: ["ReshapeC"]),
    ],
    // The `reshape` command is behind a trait, off by default, so that a package depending on the
    // library resolves and fetches nothing that only the command needs (swift-argument-parser).
    // Build the command with `swift build --traits CLI --product reshape`.
    traits: [
        .trait(name: "CLI", description: "The reshape command-line tool, which needs swift-argument-parser."),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // Layer 1: jansson, found with pkg-config.
        .systemLibrary(
            name: "CJansson",
            pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"])]
        ),
        // Layer 2: the engine. Swift standard library and jansson only, no Foundation.
        .target(name: "ReshapeCore", dependencies: ["CJansson", "CSystem"], linkerSettings: [.linkedLibrary("m")]),
        // The few system calls Swift's Glibc module does not declare (header only, nothing linked).
        .systemLibrary(name: "CSystem"),
        // Layer 3: the C ABI (@_cdecl functions declared in include/reshape.h) and typed decoding.
        .systemLibrary(name: "CReshapeABI"),
        .target(name: "ReshapeC", dependencies: ["ReshapeCore", "CReshapeABI", "CGlibcCompat"]),
        // Linked into libreshape only: keeps its glibc requirement at 2.34 (see hypotf.c).
        .target(name: "CGlibcCompat"),
        .target(name: "Reshape", dependencies: ["ReshapeCore"]),
        // Layer 4: the command-line tool.
        .executableTarget(
            name: "ReshapeCLI",
            dependencies: [
                "ReshapeCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["CLI"])),
            ]
        ),
        // Tests. Fixtures in Tests/Fixtures are shared with the C and Python suites.
        .target(name: "FixtureSupport", path: "Tests/FixtureSupport"),
        .testTarget(name: "ReshapeCoreTests", dependencies: ["ReshapeCore", "FixtureSupport"]),
        .testTarget(name: "ReshapeCLITests", dependencies: ["ReshapeCLI", "ReshapeCore", "FixtureSupport"]),
        .testTarget(name: "ReshapeTests", dependencies: ["Reshape", "FixtureSupport"]),
        // Benchmarks print figures; they are built by the test command but never run by CI.
        .executableTarget(
            name: "ReshapeBenchmarks", dependencies: ["Reshape"], path: "Benchmarks/ReshapeBenchmarks"),
    ]
)
