#include "oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char *what, const char *detail) {
    fprintf(stderr, "oracle: %s: %.400s\n", what, detail ? detail : "");
    abort();
}

/* One line, safe to print: no C0, DEL, C1 (U+0080..U+009F), U+2028/2029 or bidi controls. */
static void check_message(int status, const reshape_error *err) {
    const unsigned char *text = (const unsigned char *)err->message;
    const char *name = reshape_status_name(status);
    size_t name_length = strlen(name);
    if (strncmp(err->message, name, name_length) != 0 || err->message[name_length] != ':') fail("message prefix", err->message);
    for (size_t index = 0; text[index]; index++) {
        unsigned char byte = text[index];
        if (byte < 0x20 || byte == 0x7F) fail("control character in a message", err->message);
        if (byte == 0xC2 && text[index + 1] >= 0x80 && text[index + 1] <= 0x9F) fail("C1 control in a message", err->message);
        if (byte == 0xE2 && text[index + 1] == 0x80 &&
            (text[index + 2] == 0xA8 || text[index + 2] == 0xA9 || text[index + 2] == 0x8E || text[index + 2] == 0x8F ||
             (text[index + 2] >= 0xAA && text[index + 2] <= 0xAE)))
            fail("separator or bidi control in a message", err->message);
        if (byte == 0xE2 && text[index + 1] == 0x81 && text[index + 2] >= 0xA6 && text[index + 2] <= 0xA9)
            fail("bidi isolate in a message", err->message);
    }
    if (err->code != status) fail("err.code differs from the status", err->message);
    if (err->rule == 0 && err->op[0] != '\0') fail("an op without a failing rule", err->op);
    if (memchr(err->op, '\0', sizeof err->op) == NULL) fail("op not NUL-terminated", err->message);
    for (size_t index = 0; index < sizeof err->reserved; index++) {
        if (err->reserved[index] != 0) fail("reserved bytes not zeroed", err->message);
    }
}

typedef struct outcome {
    int status;
    char *out;
    size_t length;
    reshape_error err;
} outcome;

static outcome run(reshape_rules *rules, const char *input, size_t length, uint32_t flags) {
    outcome result = {0};
    result.status = reshape_apply(rules, input, length, flags, &result.out, &result.length, &result.err);
    if (result.status < RESHAPE_OK || result.status >= RESHAPE_INTERNAL) fail("unknown or internal status", result.err.message);
    if (result.status != RESHAPE_OK) check_message(result.status, &result.err);
    if (result.status == RESHAPE_OK && (!result.out || result.out[result.length] != '\0')) fail("output not NUL-terminated", NULL);
    return result;
}

static int same(const outcome *a, const outcome *b) {
    if (a->status != b->status) return 0;
    if (a->status == RESHAPE_OK) return a->length == b->length && memcmp(a->out, b->out, a->length) == 0;
    return strcmp(a->err.message, b->err.message) == 0 && strcmp(a->err.path, b->err.path) == 0 && a->err.rule == b->err.rule;
}

/* reshape_apply_into gives `expected`'s bytes into a buffer of exactly their size, writing nothing
   past it; or, when `expected` failed, the same failure whatever the buffer. */
static void check_into(reshape_rules *rules, const char *input, size_t length, uint32_t flags, const outcome *expected) {
    reshape_error err;
    size_t written = 0;
    if (expected->status != RESHAPE_OK) {
        int status = reshape_apply_into(rules, input, length, flags, NULL, 0, &written, &err);
        if (status != expected->status || strcmp(err.message, expected->err.message) != 0 ||
            strcmp(err.path, expected->err.path) != 0 || strcmp(err.op, expected->err.op) != 0 || err.rule != expected->err.rule)
            fail("reshape_apply_into fails differently", err.message);
        return;
    }
    char *buffer = malloc(expected->length + 1);
    if (!buffer) fail("out of memory", NULL);
    buffer[expected->length] = 0x5A;
    int status = reshape_apply_into(rules, input, length, flags, buffer, expected->length, &written, &err);
    if (status != RESHAPE_OK) fail("reshape_apply_into failed where reshape_apply did not", err.message);
    if (written != expected->length || memcmp(buffer, expected->out, written) != 0) fail("reshape_apply_into differs", expected->out);
    if (buffer[expected->length] != 0x5A) fail("reshape_apply_into wrote past the output", expected->out);
    free(buffer);
}

static int ends_with(const char *message, const char *suffix) {
    size_t length = strlen(message), suffix_length = strlen(suffix);
    return length >= suffix_length && strcmp(message + length - suffix_length, suffix) == 0;
}

static int is_output_limit(const char *message) { return ends_with(message, "(the output limit)"); }

/* Whether `message` is the work or the output limit's: counts a stream keeps its own way
   (docs/limits.md), so a document may pass one where another route over the same text would not. */
static int is_document_limit(const char *message) { return ends_with(message, "(the work limit)") || is_output_limit(message); }

static int discard(const char *buffer, size_t size, void *data) {
    (void)buffer, (void)size, (void)data;
    return 0;
}

/* `rules` compiled with the work and output limits raised past what any route counts here (work to
   100 million and 100 per input byte, output to 256 MiB, or the given limits if larger), and run
   with `flags`, the output handed to a callback and dropped. */
static outcome run_past_document_limits(const char *rules_text, size_t rules_length, const char *input, size_t input_length,
                                        uint32_t flags, const reshape_limits *limits) {
    reshape_limits raised = RESHAPE_LIMITS_INIT;
    if (limits) raised = *limits;
    size_t output = (size_t)256 << 20, work = (size_t)100000000 + 100 * input_length;
    if (raised.max_output_bytes < output) raised.max_output_bytes = output;
    if (raised.max_work < work) raised.max_work = work;
    reshape_rules *rules = NULL;
    outcome result = {0};
    if (reshape_rules_new_with_limits(rules_text, rules_length, &raised, &rules, &result.err) != RESHAPE_OK)
        fail("the rules do not compile with the limits raised", result.err.message);
    result.status = reshape_apply_cb(rules, input, input_length, flags, discard, NULL, &result.err);
    reshape_rules_free(rules);
    return result;
}

/* A stream counts work its own way, and stops at the first record whose output passes the output
   limit (docs/limits.md): so compact and pretty output, which may take different routes and whose
   sizes differ, may stop at a work or output limit where the other does not, or before a record
   that fails further on. When they fail differently and one of them at such a limit, both run
   again with those limits raised (`run_past_document_limits`): then they must fail alike (the same
   status, message, path and rule) or both succeed, unless one still meets such a limit. */
static void check_past_document_limits(const char *rules_text, size_t rules_length, const char *input, size_t input_length,
                                       uint32_t compact_flags, const reshape_limits *limits) {
    outcome compact = run_past_document_limits(rules_text, rules_length, input, input_length, compact_flags, limits);
    outcome pretty = run_past_document_limits(rules_text, rules_length, input, input_length, compact_flags | RESHAPE_PRETTY, limits);
    if ((compact.status == RESHAPE_LIMIT_EXCEEDED && is_document_limit(compact.err.message)) ||
        (pretty.status == RESHAPE_LIMIT_EXCEEDED && is_document_limit(pretty.err.message)))
        return;
    if (compact.status != pretty.status) fail("pretty output fails differently with the limits raised", pretty.status ? pretty.err.message : "it succeeded");
    if (compact.status != RESHAPE_OK &&
        (strcmp(compact.err.message, pretty.err.message) != 0 || strcmp(compact.err.path, pretty.err.path) != 0 ||
         compact.err.rule != pretty.err.rule))
        fail("pretty output fails differently with the limits raised", pretty.err.message);
}

/* `text`'s output, reshaped with [] (`identity`), reads back and equals `canonical`'s output. The
   output is another document, read under the same limits by whichever route its size and flags
   give (a 149 KB input with duplicate keys allowed runs on the whole tree; its output, without
   them, streams): a work or output limit it reaches is that route's count, not a fault. */
static void check_canonical(reshape_rules *identity, const outcome *text, const outcome *canonical, const char *what) {
    outcome reread = run(identity, text->out, text->length, 0);
    if (reread.status == RESHAPE_LIMIT_EXCEEDED && is_document_limit(reread.err.message)) return;
    if (reread.status != RESHAPE_OK) fail(what, reread.err.message);
    if (reread.length != canonical->length || memcmp(reread.out, canonical->out, canonical->length) != 0)
        fail(what, canonical->out);
    reshape_free(reread.out);
}

void oracle_check(const char *rules_text, size_t rules_length, const char *input, size_t input_length, uint32_t flags,
                  const reshape_limits *limits) {
    reshape_rules *rules = NULL, *identity = NULL;
    reshape_error err;
    int status = reshape_rules_new_with_limits(rules_text, rules_length, limits, &rules, &err);
    if (status != RESHAPE_OK) {
        if (status != RESHAPE_INVALID_RULES && status != RESHAPE_INVALID_ARGUMENT) fail("rules: unexpected status", err.message);
        check_message(status, &err);
        return;
    }
    if (reshape_rules_new_with_limits("[]", 2, limits, &identity, &err) != RESHAPE_OK) fail("[] does not compile", err.message);

    uint32_t compact_flags = flags & ~RESHAPE_PRETTY;
    outcome compact = run(rules, input, input_length, compact_flags);
    outcome again = run(rules, input, input_length, compact_flags);
    if (!same(&compact, &again)) fail("two runs differ", compact.status ? compact.err.message : compact.out);
    check_into(rules, input, input_length, compact_flags, &compact);
    outcome pretty = run(rules, input, input_length, compact_flags | RESHAPE_PRETTY);

    if (compact.status == RESHAPE_OK) {
        check_canonical(identity, &compact, &compact, "the output does not read back with []");
        if (pretty.status == RESHAPE_OK) {
            check_canonical(identity, &pretty, &compact, "compact output is not the canonical form of pretty output");
        } else if (pretty.status != RESHAPE_LIMIT_EXCEEDED) {
            fail("pretty output failed where compact output did not", pretty.err.message);
        }
    } else if (pretty.status != compact.status) {
        if (!is_document_limit(compact.err.message) && !(pretty.status != RESHAPE_OK && is_document_limit(pretty.err.message)))
            fail("pretty output fails differently", pretty.status ? pretty.err.message : "it succeeded");
        check_past_document_limits(rules_text, rules_length, input, input_length, compact_flags, limits);
    }
    reshape_free(compact.out);
    reshape_free(again.out);
    reshape_free(pretty.out);
    reshape_rules_free(rules);
    reshape_rules_free(identity);
}
