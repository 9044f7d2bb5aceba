#!/bin/sh
# A package that depends on the library (by path, as a clone would be used) resolves nothing that
# only the `reshape` command needs: swift-argument-parser stays behind the CLI trait (Package.swift).
# Run by scripts/test; prints the consumer's dependency tree.
set -eu
repository=$(cd "$(dirname "$0")/../.." && pwd)
identity=$(basename "$repository" | tr 'A-Z' 'a-z')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Sources/Client"
cat > "$work/Package.swift" <<MANIFEST
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "Client",
    dependencies: [.package(path: "$repository")],
    targets: [.executableTarget(name: "Client", dependencies: [.product(name: "Reshape", package: "$identity")])]
)
MANIFEST
echo 'import Reshape' > "$work/Sources/Client/main.swift"

swift package --package-path "$work" resolve >/dev/null
tree=$(swift package --package-path "$work" show-dependencies)
echo "$tree"
case "$tree" in
  *"$repository"*) ;;
  *) echo "consumer: the dependency tree does not show $repository" >&2; exit 1 ;;
esac
if echo "$tree" | grep -qi argument-parser || [ -d "$work/.build/checkouts/swift-argument-parser" ] ||
   grep -qs argument-parser "$work/Package.resolved"; then
  echo "consumer: depending on the library resolved swift-argument-parser, which only the CLI needs" >&2
  exit 1
fi
echo "consumer: the library's dependents resolve no swift-argument-parser"
