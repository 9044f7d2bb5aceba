/* libFuzzer harness: structure-aware. The fuzz input is a recipe (generator.h) for a rules
   document, an input of up to 1 MB, flags and limits; the oracle (oracle.h) judges the result. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "generator.h"
#include "oracle.h"

/* With RESHAPE_FUZZ_DUMP=DIR, a recipe's rules, input and flags are written to DIR (rules.json,
   input.json, flags.txt): how a finding becomes a fixture. */
static void dump(const generated *g) {
    const char *directory = getenv("RESHAPE_FUZZ_DUMP");
    if (!directory) return;
    char path[4096];
    FILE *file;
    snprintf(path, sizeof path, "%s/rules.json", directory);
    if ((file = fopen(path, "wb"))) fwrite(g->rules.bytes, 1, g->rules.length, file), fclose(file);
    snprintf(path, sizeof path, "%s/input.json", directory);
    if ((file = fopen(path, "wb"))) fwrite(g->input.bytes, 1, g->input.length, file), fclose(file);
    snprintf(path, sizeof path, "%s/flags.txt", directory);
    if ((file = fopen(path, "w"))) {
        fprintf(file, "flags %u, limits %s: depth %zu, rules %zu, selected %zu, output %zu, work %zu\n", g->flags,
                g->use_limits ? "set" : "default", g->limits.max_depth, g->limits.max_rules_bytes, g->limits.max_selected,
                g->limits.max_output_bytes, g->limits.max_work);
        fclose(file);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    generated g;
    generate(data, size, &g);
    dump(&g);
    oracle_check(g.rules.bytes, g.rules.length, g.input.bytes, g.input.length, g.flags, g.use_limits ? &g.limits : NULL);
    generated_free(&g);
    return 0;
}
