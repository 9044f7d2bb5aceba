/* For the Swift side only: names for the pointers to the opaque reshape_rules.
 *
 * Swift imports `reshape_rules *` as OpaquePointer, which the header swiftc generates for the
 * @_cdecl functions prints as `void *`, losing the type and its const. Declared with these names
 * instead, the functions print with types a C compiler resolves to the header's own, so
 * Tests/c/check_signatures.sh compiles them next to include/reshape.h and any drift between the
 * two is a compile error. */
#ifndef RESHAPE_ABI_HANDLES_H
#define RESHAPE_ABI_HANDLES_H

#include "../../include/reshape.h"

typedef const reshape_rules *reshape_rules_const_ptr;
typedef reshape_rules *reshape_rules_ptr;

#endif
