/* libFuzzer harness: inputs, against the rules of every fixture. The fuzz input is one byte that
   picks the rules, one byte of flags, then the input. */
#include <stddef.h>
#include <stdint.h>

#include "oracle.h"
#include "samples.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    samples_load();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2 || sample_count == 0) return 0;
    const sample *rules = &samples[data[0] % sample_count];
    oracle_check(rules->rules, rules->rules_length, (const char *)data + 2, size - 2, data[1] & 3u, NULL);
    return 0;
}
