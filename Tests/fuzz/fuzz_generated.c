/* libFuzzer harness: structure-aware. The fuzz input is a recipe (generator.h) for a rules
   document, an input of up to 1 MB, flags and limits; the oracle (oracle.h) judges the result. */
#include <stddef.h>
#include <stdint.h>

#include "generator.h"
#include "oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    generated g;
    generate(data, size, &g);
    oracle_check(g.rules.bytes, g.rules.length, g.input.bytes, g.input.length, g.flags, g.use_limits ? &g.limits : NULL);
    generated_free(&g);
    return 0;
}
