#!/bin/sh
# Installs the build to a temporary prefix, then builds examples/c from outside the tree against
# it, once with pkg-config (its Makefile) and once with find_package (its CMakeLists.txt), and runs
# both without LD_LIBRARY_PATH on the Firebase example, linked against the SONAME given
# (libreshape.so.0.MINOR before 1.0). find_package must refuse another ABI than the installed one.
set -eu
build=$1 source=$2 soname=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

cmake --install "$build" --prefix "$prefix" >/dev/null
for file in include/reshape.h lib/pkgconfig/reshape.pc lib/cmake/reshape/reshapeConfig.cmake; do
  [ -f "$prefix/$file" ] || { echo "not installed: $file"; exit 1; }
done
[ -L "$prefix/lib/libreshape.so" ] && [ -L "$prefix/lib/$soname" ] || { echo "library symlinks missing"; exit 1; }

cp -R "$source/examples/c" "$work/example"
unset LD_LIBRARY_PATH

make -s -C "$work/example" PKG_CONFIG_PATH="$prefix/lib/pkgconfig" OUT="$work" >/dev/null
cmake -S "$work/example" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake-build" >/dev/null

# Before 1.0 another minor version is another ABI: asking for 0.(MINOR-1) must not find this one.
version=$(sed -n 's/^Version: //p' "$prefix/lib/pkgconfig/reshape.pc")
case "$version" in
  0.0.*) ;;
  0.*)
    minor=${version#0.}; minor=${minor%%.*}
    mkdir "$work/older"
    sed "s/find_package(reshape [0-9.]* REQUIRED)/find_package(reshape 0.$((minor - 1)) REQUIRED)/" \
      "$work/example/CMakeLists.txt" > "$work/older/CMakeLists.txt"
    cp "$work/example/firebase_users.c" "$work/older/"
    if cmake -S "$work/older" -B "$work/older-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null 2>&1; then
      echo "find_package(reshape 0.$((minor - 1))) accepted the installed $version"; exit 1
    fi ;;
esac

cat "$source/examples/firebase-users/expected.json" > "$work/expected.txt"
echo >> "$work/expected.txt"
for program in "$work/firebase_users" "$work/cmake-build/firebase_users"; do
  "$program" "$source/examples/firebase-users/rules.json" "$source/examples/firebase-users/users.json" > "$work/out.txt"
  cmp "$work/out.txt" "$work/expected.txt" || { echo "$program printed something else"; exit 1; }
  used=$(ldd "$program" | awk -v soname="$soname" '$1 == soname {print $3}')
  [ -n "$used" ] && [ "$(readlink -f "$used")" = "$(readlink -f "$prefix/lib/$soname")" ] ||
    { echo "$program does not use the installed library"; ldd "$program"; exit 1; }
done
echo "installed package works through pkg-config and find_package"
