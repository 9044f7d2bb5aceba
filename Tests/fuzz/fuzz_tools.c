/* libFuzzer harness: `reshape explain` and `reshape infer` on any input. The fuzz input is one byte
   that picks a fixture's rules and infer's options, then the input.

   explain: the call succeeds or reports the input's own error (invalid JSON, a limit), never a
   rule's failure; and its explanation names a failing rule exactly when reshape_apply fails with
   rule_failed. infer: the input as the one sample; the call succeeds or says why not, with *out
   untouched on failure. AddressSanitizer and the leak checker watch both. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reshape.h"
#include "samples.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    samples_load();
    return 0;
}

static void fail(const char *what, const char *detail) {
    fprintf(stderr, "oracle: %s: %s\n", what, detail);
    abort();
}

static void explain(const sample *picked, const char *input, size_t length) {
    reshape_rules *rules = NULL;
    reshape_error err;
    if (reshape_rules_new(picked->rules, picked->rules_length, &rules, &err) != RESHAPE_OK) return;
    char *out = NULL;
    size_t out_len = 0;
    reshape_status status = reshape_explain(rules, input, length, 0, &out, &out_len, &err);
    char *applied = NULL;
    size_t applied_len = 0;
    reshape_error apply_err;
    reshape_status apply_status = reshape_apply(rules, input, length, 0, &applied, &applied_len, &apply_err);
    reshape_free(applied);
    if (status == RESHAPE_OK) {
        if (out == NULL || strlen(out) != out_len) fail("explain", "no output, or a length that is not its own");
        int failed = strstr(out, "\"failure\":null") == NULL;
        if (failed != (apply_status == RESHAPE_RULE_FAILED)) fail("explain: a failure where apply has none, or none where it has one", out);
    } else {
        if (out != NULL) fail("explain", "output on failure");
        if (status == RESHAPE_RULE_FAILED) fail("explain", "a rule's failure reported as the call's");
        if (status != RESHAPE_INVALID_JSON && status != RESHAPE_LIMIT_EXCEEDED && status != RESHAPE_OUT_OF_MEMORY)
            fail("explain: unexpected status", err.message);
    }
    reshape_free(out);
    reshape_rules_free(rules);
}

static void infer(unsigned char choice, const char *input, size_t length) {
    char *samples = malloc(length + 2);
    if (samples == NULL) return;
    samples[0] = '[';
    if (length > 0) memcpy(samples + 1, input, length);
    samples[length + 1] = ']';
    static const char *options[] = {
        NULL,
        "{\"keys\": \"snake_case\", \"unwrap\": true}",
        "{\"keys\": \"keep\", \"idKey\": \"id\", \"root\": \"T\"}",
        "{\"map\": [\"$.*\"], \"object\": [\"$[*]\"]}",
    };
    char *out = NULL;
    size_t out_len = 0;
    reshape_error err;
    reshape_status status = reshape_infer(samples, length + 2, options[choice % 4], &out, &out_len, &err);
    if (status == RESHAPE_OK) {
        if (out == NULL || strlen(out) != out_len || strncmp(out, "{\"rules\":[", 10) != 0) fail("infer", "output not as documented");
    } else {
        if (out != NULL) fail("infer", "output on failure");
        if (status != RESHAPE_INVALID_JSON && status != RESHAPE_INVALID_ARGUMENT && status != RESHAPE_RULE_FAILED &&
            status != RESHAPE_LIMIT_EXCEEDED && status != RESHAPE_OUT_OF_MEMORY)
            fail("infer: unexpected status", err.message);
    }
    reshape_free(out);
    free(samples);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1 || sample_count == 0) return 0;
    const char *input = (const char *)data + 1;
    explain(&samples[data[0] % sample_count], input, size - 1);
    infer(data[0] >> 6, input, size - 1);
    return 0;
}
