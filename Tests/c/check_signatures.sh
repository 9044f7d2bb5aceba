#!/bin/sh
# The Swift @_cdecl functions have exactly the prototypes include/reshape.h declares.
#
#   check_signatures.sh CLANG GENERATED_HEADER INCLUDE_DIR ABI_DIR
#
# GENERATED_HEADER is ReshapeC-Swift.h, which swiftc writes while building the library: the
# @_cdecl functions as Swift declared them, in C. On Linux it declares them for Objective-C only,
# so their lines are taken out of it and compiled as C, after reshape.h, in one translation unit:
# a parameter or result of another type than the header's is then "conflicting types", a compile
# error. The Swift side names the header's own types (size_t, reshape_status, and handles.h's
# names for pointers to reshape_rules), so equal types are equal to the compiler, not merely of
# equal size. Both sides must also declare the same functions.
set -eu
clang=$1 generated=$2 include_dir=$3 abi_dir=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

[ -f "$generated" ] || { echo "no generated header at $generated (build the library first)"; exit 1; }
grep -E '^SWIFT_EXTERN .*[ *]reshape_[a-z0-9_]+\(.*;$' "$generated" > "$work/swift_prototypes.h" || true

swift_names=$(sed -E 's/.*[ *](reshape_[a-z0-9_]+)\(.*/\1/' "$work/swift_prototypes.h" | sort)
header_names=$(grep -E '^[a-z][a-z_ ]*[ *]reshape_[a-z0-9_]+\(' "$include_dir/reshape.h" |
  sed -E 's/.*[ *](reshape_[a-z0-9_]+)\(.*/\1/' | sort)
if [ "$swift_names" != "$header_names" ]; then
  echo "the Swift layer and the header declare different functions:"
  echo "swift:  $(echo $swift_names)"
  echo "header: $(echo $header_names)"
  status=1
fi
[ -n "$swift_names" ] || { echo "no @_cdecl functions found in $generated"; exit 1; }

cat > "$work/signatures.c" <<'EOF'
#include "reshape.h"
#include "handles.h"
/* Its prelude defines SWIFT_EXTERN and the other macros its declarations use. */
#include "ReshapeC-Swift.h"
/* Swift's Int and UInt, as that header names them: a size_t that became Int is then a conflicting
   type, which says what drifted, rather than an unknown one. */
typedef long NSInteger;
typedef unsigned long NSUInteger;
#include "swift_prototypes.h"
EOF
cp "$generated" "$work/ReshapeC-Swift.h"
if ! "$clang" -std=c11 -fsyntax-only -Wall -Wextra -Werror -I"$include_dir" -I"$abi_dir" -I"$work" "$work/signatures.c"; then
  echo "a @_cdecl function's signature differs from its prototype in $include_dir/reshape.h (see above)"
  status=1
fi
[ $status = 0 ] && echo "$(echo "$swift_names" | wc -l) @_cdecl signatures match include/reshape.h"
exit $status
