/* libFuzzer harness: a rules document and an input, byte by byte. The fuzz input is one byte of
   flags, the rules, a NUL byte (which JSON text cannot hold), then the input. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    uint32_t flags = data[0] & 3u;
    const char *rules = (const char *)data + 1;
    const char *separator = memchr(rules, 0, size - 1);
    size_t rules_length = separator ? (size_t)(separator - rules) : size - 1;
    const char *input = separator ? separator + 1 : "";
    size_t input_length = separator ? size - 1 - rules_length - 1 : 0;
    oracle_check(rules, rules_length, input, input_length, flags, NULL);
    return 0;
}
