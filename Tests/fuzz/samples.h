/* The fixtures' rules and inputs, read once when a fuzzer starts (RESHAPE_FIXTURES). */
#ifndef RESHAPE_FUZZ_SAMPLES_H
#define RESHAPE_FUZZ_SAMPLES_H

#include <stddef.h>

typedef struct sample {
    char *rules, *input;
    size_t rules_length, input_length;
} sample;

extern sample *samples;
extern size_t sample_count;

void samples_load(void);

#endif
