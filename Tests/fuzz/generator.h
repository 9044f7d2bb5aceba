/* Structure-aware generation: fuzz bytes read as a recipe for a rules document and an input. */
#ifndef RESHAPE_FUZZ_GENERATOR_H
#define RESHAPE_FUZZ_GENERATOR_H

#include <stddef.h>
#include <stdint.h>

#include "reshape.h"

/* A growable text buffer. */
typedef struct text {
    char *bytes;
    size_t length, capacity;
} text;

void text_free(text *text);

/*
 * What a recipe makes: JSON text for the rules and the input (each may be slightly invalid on
 * purpose), flags, and limits (lowered, so that limits are met often and a recipe stays cheap to
 * run; the defaults one time in sixteen).
 *
 * The recipe's bytes are read in order as choices; when they run out every choice is 0. A short
 * recipe can ask for a document nested 1100 deep, a number of 50,000 digits, a value repeated into
 * an input of up to 1 MB, or a rule repeated into a list of thousands: what byte-level mutation of
 * JSON text alone rarely reaches.
 */
typedef struct generated {
    text rules, input;
    uint32_t flags;
    reshape_limits limits;
    int use_limits;
} generated;

void generate(const uint8_t *recipe, size_t size, generated *out);
void generated_free(generated *generated);

#endif
