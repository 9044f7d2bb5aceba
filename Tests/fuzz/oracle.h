/* The fuzzers' oracle: what must hold for any rules document and any input. */
#ifndef RESHAPE_FUZZ_ORACLE_H
#define RESHAPE_FUZZ_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#include "reshape.h"

/*
 * Compiles `rules` (with `limits`, or the defaults when NULL) and applies them to `input` with
 * `flags`, then checks, aborting with a message when something does not hold:
 *   - every status is a known one, never RESHAPE_INTERNAL; every error message is one line that
 *     starts with its status name and holds no control, line-separator or bidi character;
 *   - the same call gives the same result twice, and reshape_apply_into() gives it too (the
 *     same bytes into a buffer of exactly their size, or the same error); an error's op is empty
 *     when no rule failed, and its reserved bytes are zero;
 *   - the output reads back: reshaped with [] (under the same limits) it comes out unchanged;
 *   - compact output is the canonical form of pretty output (or pretty output meets the output
 *     limit), and a failure is the same failure with RESHAPE_PRETTY (or, one of them having met
 *     the work or the output limit, which routes count their own ways, the same outcome for both
 *     once those limits are raised).
 */
void oracle_check(const char *rules, size_t rules_length, const char *input, size_t input_length, uint32_t flags,
                  const reshape_limits *limits);

#endif
