#!/bin/sh
# Installs the build to a temporary prefix, then builds examples/c from outside the tree against
# it, once with pkg-config (its Makefile) and once with find_package (its CMakeLists.txt), and runs
# both without LD_LIBRARY_PATH on the Firebase example.
set -eu
build=$1 source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

cmake --install "$build" --prefix "$prefix" >/dev/null
for file in include/reshape.h lib/pkgconfig/reshape.pc lib/cmake/reshape/reshapeConfig.cmake; do
  [ -f "$prefix/$file" ] || { echo "not installed: $file"; exit 1; }
done
[ -L "$prefix/lib/libreshape.so" ] && [ -L "$prefix/lib/libreshape.so.0" ] || { echo "library symlinks missing"; exit 1; }

cp -R "$source/examples/c" "$work/example"
unset LD_LIBRARY_PATH

make -s -C "$work/example" PKG_CONFIG_PATH="$prefix/lib/pkgconfig" OUT="$work" >/dev/null
cmake -S "$work/example" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake-build" >/dev/null

cat "$source/examples/firebase-users/expected.json" > "$work/expected.txt"
echo >> "$work/expected.txt"
for program in "$work/firebase_users" "$work/cmake-build/firebase_users"; do
  "$program" "$source/examples/firebase-users/rules.json" "$source/examples/firebase-users/users.json" > "$work/out.txt"
  cmp "$work/out.txt" "$work/expected.txt" || { echo "$program printed something else"; exit 1; }
  used=$(ldd "$program" | awk '$1 == "libreshape.so.0" {print $3}')
  [ -n "$used" ] && [ "$(readlink -f "$used")" = "$(readlink -f "$prefix/lib/libreshape.so.0")" ] ||
    { echo "$program does not use the installed library"; ldd "$program"; exit 1; }
done
echo "installed package works through pkg-config and find_package"
