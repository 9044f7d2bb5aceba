/* The C API's contract beyond the fixtures: versions, status names, NULL and zero-length
   arguments, outputs written only on success, error details, message and path truncation,
   reshape_error's layout, reshape_apply_into and the rules' ops. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>

#include "reshape.h"
#include "test_support.h"

/* reshape_error is allocated by callers, so its layout is ABI: its size never changes within a
   major version (later fields come out of `reserved`), nor do its fields move. A change here is
   an ABI break, to be made only with a new SONAME. */
_Static_assert(sizeof(reshape_error) == (sizeof(size_t) == 8 ? 1536 : 1524), "sizeof(reshape_error) is part of the ABI");
_Static_assert(offsetof(reshape_error, path) == 8 + 3 * sizeof(size_t), "path moved");
_Static_assert(offsetof(reshape_error, message) == offsetof(reshape_error, path) + 512, "message moved");
_Static_assert(offsetof(reshape_error, op) == offsetof(reshape_error, message) + 512, "op moved");
_Static_assert(sizeof(((reshape_error *)0)->op) == 32, "op is 32 bytes");
_Static_assert(offsetof(reshape_error, sys_errno) == offsetof(reshape_error, op) + 32, "sys_errno is reserved's start");
_Static_assert(offsetof(reshape_error, io_file) == offsetof(reshape_error, sys_errno) + sizeof(int), "io_file moved");
_Static_assert(offsetof(reshape_error, source_path) == offsetof(reshape_error, io_file) + sizeof(int), "source_path moved");
_Static_assert(offsetof(reshape_error, source_line) == offsetof(reshape_error, source_path) + 352, "source_line moved");
_Static_assert(offsetof(reshape_error, source_origin) == offsetof(reshape_error, source_position) + sizeof(size_t), "source_origin moved");
_Static_assert(offsetof(reshape_error, source_op) == offsetof(reshape_error, source_rule) + sizeof(int), "source_op moved");
_Static_assert(offsetof(reshape_error, reserved) == offsetof(reshape_error, source_op) + 32, "reserved moved");
_Static_assert(sizeof(reshape_error) == offsetof(reshape_error, source_path) + 440, "the source fields come from the 440 bytes reserved in 0.2");
_Static_assert(sizeof(reshape_error) == offsetof(reshape_error, reserved) + sizeof(((reshape_error *)0)->reserved), "reserved is last");

static void test_versions(void) {
    char expected[64];
    snprintf(expected, sizeof expected, "%d.%d.%d", RESHAPE_VERSION_MAJOR, RESHAPE_VERSION_MINOR, RESHAPE_VERSION_PATCH);
    CHECK(strcmp(expected, RESHAPE_VERSION_STRING) == 0, "macros say %s, string says %s", expected, RESHAPE_VERSION_STRING);
    CHECK(strcmp(reshape_version(), RESHAPE_VERSION_STRING) == 0, "library %s, header %s", reshape_version(),
          RESHAPE_VERSION_STRING);

    /* The number: the macro's formula, the library's, and the string, all agree. */
    CHECK(RESHAPE_VERSION_NUMBER == RESHAPE_VERSION_MAJOR * 10000 + RESHAPE_VERSION_MINOR * 100 + RESHAPE_VERSION_PATCH,
          "RESHAPE_VERSION_NUMBER is %d", RESHAPE_VERSION_NUMBER);
    CHECK(RESHAPE_VERSION_NUMBER == 200, "this header is 0.2.0, RESHAPE_VERSION_NUMBER %d", RESHAPE_VERSION_NUMBER);
    unsigned number = reshape_version_number();
    CHECK(number == RESHAPE_VERSION_NUMBER, "library %u, header %d", number, RESHAPE_VERSION_NUMBER);
    unsigned major = 0, minor = 0, patch = 0;
    CHECK(sscanf(reshape_version(), "%u.%u.%u", &major, &minor, &patch) == 3, "%s", reshape_version());
    CHECK(number == major * 10000 + minor * 100 + patch, "number %u, string %s", number, reshape_version());
#if RESHAPE_VERSION_NUMBER < 200
#error "RESHAPE_VERSION_NUMBER must be usable in #if"
#endif
}

static void test_status_names(void) {
    const char *names[] = {"ok", "invalid_json", "invalid_rules", "rule_failed", "limit_exceeded",
                           "invalid_argument", "out_of_memory", "internal", "cancelled", "buffer_too_small", "io_error"};
    for (int status = 0; status < 11; status++) {
        CHECK(strcmp(reshape_status_name(status), names[status]) == 0, "status %d is %s", status, reshape_status_name(status));
    }
    CHECK(strcmp(reshape_status_name(11), "unknown") == 0, "11");
    CHECK(strcmp(reshape_status_name(-1), "unknown") == 0, "-1");
    CHECK(RESHAPE_INVALID_JSON == 1 && RESHAPE_INTERNAL == 7 && RESHAPE_BUFFER_TOO_SMALL == 9 && RESHAPE_IO_ERROR == 10,
          "numbering");
    CHECK(RESHAPE_IO_NONE == 0 && RESHAPE_IO_INPUT == 1 && RESHAPE_IO_OUTPUT == 2, "io_file values");
}

static void test_null_arguments(void) {
    reshape_error err;
    reshape_rules *untouched = (reshape_rules *)&err;
    reshape_rules *out_rules = untouched;

    CHECK(reshape_rules_new(NULL, 0, &out_rules, &err) == RESHAPE_INVALID_ARGUMENT, "NULL spec");
    CHECK(strcmp(err.message, "invalid_argument: spec must not be NULL") == 0, "%s", err.message);
    CHECK(out_rules == untouched, "out written on failure");
    CHECK(reshape_rules_new("[]", 2, NULL, &err) == RESHAPE_INVALID_ARGUMENT, "NULL out");
    CHECK(strcmp(err.message, "invalid_argument: out must not be NULL") == 0, "%s", err.message);
    CHECK(reshape_rules_new("[", 1, &out_rules, NULL) == RESHAPE_INVALID_RULES, "NULL err is allowed");
    CHECK(out_rules == untouched, "out written on failure");

    reshape_rules *rules = compile("[]");
    char *out = (char *)untouched;
    size_t out_length = 12345;
    CHECK(reshape_apply(NULL, "{}", 2, 0, &out, &out_length, &err) == RESHAPE_INVALID_ARGUMENT, "NULL rules");
    CHECK(strcmp(err.message, "invalid_argument: rules must not be NULL") == 0, "%s", err.message);
    CHECK(reshape_apply(rules, NULL, 0, 0, &out, &out_length, &err) == RESHAPE_INVALID_ARGUMENT, "NULL input");
    CHECK(strcmp(err.message, "invalid_argument: input must not be NULL") == 0, "%s", err.message);
    CHECK(reshape_apply(rules, "{}", 2, 0, NULL, &out_length, &err) == RESHAPE_INVALID_ARGUMENT, "NULL out");
    CHECK(strcmp(err.message, "invalid_argument: out must not be NULL") == 0, "%s", err.message);
    CHECK(out == (char *)untouched && out_length == 12345, "outputs written on failure");

    /* A length no buffer can have is refused, not read. */
    CHECK(reshape_apply(rules, "{}", (size_t)-1, 0, &out, &out_length, &err) == RESHAPE_INVALID_ARGUMENT, "huge input_len");
    CHECK(strcmp(err.message, "invalid_argument: input_len is larger than any buffer") == 0, "%s", err.message);
    CHECK(reshape_rules_new("[]", (size_t)-1, &out_rules, &err) == RESHAPE_INVALID_ARGUMENT, "huge spec_len");
    CHECK(out == (char *)untouched && out_rules == untouched, "outputs written on failure");

    /* out_length may be NULL; the output is NUL-terminated. */
    CHECK(reshape_apply(rules, "[1, 2]", 6, 0, &out, NULL, NULL) == RESHAPE_OK, "NULL out_len and err");
    CHECK(strcmp(out, "[1,2]") == 0, "%s", out);
    reshape_free(out);

    reshape_rules_free(NULL);
    reshape_free(NULL);
    reshape_rules_free(rules);
}

static void test_zero_length_and_unterminated_input(void) {
    reshape_error err;
    reshape_rules *rules = NULL;
    CHECK(reshape_rules_new("", 0, &rules, &err) == RESHAPE_INVALID_RULES, "empty rules");
    CHECK(strcmp(err.message, "invalid_rules: line 1, column 1: empty input") == 0, "%s", err.message);
    CHECK(err.line == 1 && err.column == 1 && err.position == 0, "position");

    rules = compile("[{\"op\": \"wrap\", \"key\": \"k\"}]");
    char *out = NULL;
    size_t out_length = 0;
    CHECK(reshape_apply(rules, "{}", 0, 0, &out, &out_length, &err) == RESHAPE_INVALID_JSON, "empty input");
    CHECK(strcmp(err.message, "invalid_json: line 1, column 1: empty input") == 0, "%s", err.message);

    /* input_len is respected: what follows is not read. */
    const char buffer[] = "[1]garbage";
    CHECK(reshape_apply(rules, buffer, 3, 0, &out, &out_length, &err) == RESHAPE_OK, "%s", err.message);
    CHECK(out_length == 9 && strcmp(out, "{\"k\":[1]}") == 0, "%s", out);
    reshape_free(out);

    /* A raw NUL byte is an error; an escaped one is data, and is written escaped. */
    const char raw_nul[] = {'"', 'a', '\0', 'b', '"'};
    CHECK(reshape_apply(rules, raw_nul, sizeof raw_nul, 0, &out, &out_length, &err) == RESHAPE_INVALID_JSON, "raw NUL");
    CHECK(strstr(err.message, "control character U+0000") != NULL, "%s", err.message);
    const char *escaped = "\"a\\u0000b\"";
    CHECK(reshape_apply(rules, escaped, strlen(escaped), 0, &out, &out_length, &err) == RESHAPE_OK, "%s", err.message);
    CHECK(strcmp(out, "{\"k\":\"a\\u0000b\"}") == 0 && strlen(out) == out_length, "%s", out);
    reshape_free(out);
    reshape_rules_free(rules);
}

static void test_flags_and_error_cleared_on_success(void) {
    reshape_rules *rules = compile("[]");
    reshape_error err;
    memset(&err, 'x', sizeof err);
    err.code = 99;
    char *out = NULL;
    size_t out_length = 0;
    CHECK(reshape_apply(rules, "{\"a\": [1]}", 10, RESHAPE_PRETTY, &out, &out_length, &err) == RESHAPE_OK, "pretty");
    CHECK(strcmp(out, "{\n  \"a\": [\n    1\n  ]\n}") == 0, "%s", out);
    CHECK(err.code == 0 && err.rule == 0 && err.path[0] == '\0' && err.message[0] == '\0' && err.line == 0,
          "err not cleared on success");
    char zeros[sizeof err.op] = {0};
    CHECK(memcmp(err.op, zeros, sizeof err.op) == 0 && reserved_is_zero(&err), "op and reserved not zeroed on success");
    reshape_free(out);

    const char *duplicates = "{\"a\": 1, \"a\": 2}";
    CHECK(reshape_apply(rules, duplicates, strlen(duplicates), 0, &out, &out_length, &err) == RESHAPE_INVALID_JSON,
          "duplicates rejected by default");
    CHECK(strcmp(err.path, "$['a']") == 0 && err.line == 1 && err.column == 10 && err.position == 9, "%s %zu %zu",
          err.path, err.column, err.position);
    CHECK(reshape_apply(rules, duplicates, strlen(duplicates), RESHAPE_ALLOW_DUPLICATE_KEYS, &out, &out_length, &err) ==
              RESHAPE_OK, "duplicates allowed");
    CHECK(strcmp(out, "{\"a\":2}") == 0, "%s", out);
    reshape_free(out);

    CHECK(reshape_apply(rules, "{}", 2, 0x40u, &out, &out_length, &err) == RESHAPE_INVALID_ARGUMENT, "unknown flag");
    CHECK(strcmp(err.message, "invalid_argument: unknown option flags 0x40") == 0, "%s", err.message);
    reshape_rules_free(rules);
}

static void test_error_details(void) {
    reshape_rules *rules = compile("[{\"op\": \"unwrap\", \"path\": \"$.data\"}, {\"op\": \"keyedToArray\", \"path\": \"$.users\"}]");
    reshape_error err;
    char *out = NULL;
    const char *input = "{\"data\": {\"users\": {\"u0\": {}, \"u1\": \"str\"}}}";
    CHECK(reshape_apply(rules, input, strlen(input), 0, &out, NULL, &err) == RESHAPE_RULE_FAILED, "rule failed");
    CHECK(err.code == RESHAPE_RULE_FAILED && err.rule == 2, "rule %d", err.rule);
    CHECK(strcmp(err.path, "$['users']['u1']") == 0, "%s", err.path);
    CHECK(err.line == 0 && err.column == 0 && err.position == 0, "no position for rule failures");
    /* Rule 1 (unwrap) moved the value: the message ends with where it was in the input. */
    CHECK(strcmp(err.message, "rule_failed: rule 2 (keyedToArray) at $['users']['u1']: expected an object, found a string"
                              " (input: $['data']['users']['u1'], line 1, column 37)") == 0,
          "%s", err.message);
    CHECK(strcmp(err.op, "keyedToArray") == 0, "op %s", err.op);
    reshape_rules_free(rules);

    reshape_rules *bad = NULL;
    const char *spec = "[{\"op\": \"keyedToArray\", \"idkey\": \"x\"}]";
    CHECK(reshape_rules_new(spec, strlen(spec), &bad, &err) == RESHAPE_INVALID_RULES, "invalid rules");
    CHECK(err.rule == 1 && strcmp(err.path, "") == 0, "rule %d path %s", err.rule, err.path);
    CHECK(strcmp(err.message, "invalid_rules: rule 1 (keyedToArray): unknown param \"idkey\"; did you mean \"idKey\"?") == 0,
          "%s", err.message);
    CHECK(strcmp(err.op, "keyedToArray") == 0, "op %s", err.op);
}

/* reshape_error.op: the failing rule's op; "" when no rule failed, or the rule's op is made up. */
static void test_error_op(void) {
    reshape_error err;
    memset(&err, 'x', sizeof err);
    reshape_rules *rules = compile("[{\"op\": \"emptyObjectToNull\"}, {\"op\": \"keyedToArray\"}]");
    char *out = NULL;
    CHECK(reshape_apply(rules, "{\"a\": 1}", 8, 0, &out, NULL, &err) == RESHAPE_RULE_FAILED, "rule failed");
    CHECK(err.rule == 2 && strcmp(err.op, "keyedToArray") == 0, "rule %d op %s", err.rule, err.op);
    CHECK(reserved_is_zero(&err), "reserved not zeroed on failure");

    /* Invalid JSON: no rule failed. */
    memset(&err, 'x', sizeof err);
    CHECK(reshape_apply(rules, "{\"a\": ", 6, 0, &out, NULL, &err) == RESHAPE_INVALID_JSON, "invalid JSON");
    CHECK(err.rule == 0 && strcmp(err.op, "") == 0, "rule %d op %s", err.rule, err.op);
    CHECK(reserved_is_zero(&err), "reserved not zeroed on failure");

    /* A success after a failure clears it. */
    CHECK(reshape_apply(rules, "{\"a\": 1}", 8, 0, &out, NULL, &err) == RESHAPE_RULE_FAILED, "rule failed");
    const char *records = "{\"a\": {\"b\": 1}}";
    CHECK(reshape_apply(rules, records, strlen(records), 0, &out, NULL, &err) == RESHAPE_OK, "%s", err.message);
    CHECK(out && strcmp(out, "[{\"id\":\"a\",\"b\":1}]") == 0, "%s", out ? out : "NULL");
    CHECK(err.code == RESHAPE_OK && err.rule == 0 && strcmp(err.op, "") == 0, "op %s after a success", err.op);
    reshape_free(out);

    /* Invalid arguments: no rule either. */
    CHECK(reshape_apply(rules, "{}", 2, 0x40u, &out, NULL, &err) == RESHAPE_INVALID_ARGUMENT, "unknown flag");
    CHECK(strcmp(err.op, "") == 0, "op %s", err.op);
    reshape_rules_free(rules);

    /* The rules document: a rule whose op is known names it; a made-up op, or none, does not. */
    struct {
        const char *spec, *op;
        int rule;
    } cases[] = {
        {"[{\"op\": \"wrap\", \"key\": \"k\"}, {\"op\": \"unwrap\", \"path\": 1}]", "unwrap", 2},
        {"[{\"op\": \"remove\"}]", "remove", 1},
        {"[{\"op\": \"keyedtoArray\"}]", "", 1},
        {"[{\"op\": \"anOpThatIsFarTooLongToFitInThirtyTwoBytes\"}]", "", 1},
        {"[{\"path\": \"$\"}]", "", 1},
        {"[\"wrap\"]", "", 1},
        {"[{\"op\": \"wrap\"", "", 0},
        {"{\"rules\": 1}", "", 0},
    };
    for (size_t index = 0; index < sizeof cases / sizeof cases[0]; index++) {
        reshape_rules *bad = NULL;
        memset(&err, 'x', sizeof err);
        CHECK(reshape_rules_new(cases[index].spec, strlen(cases[index].spec), &bad, &err) == RESHAPE_INVALID_RULES, "%s",
              cases[index].spec);
        CHECK(err.rule == cases[index].rule && strcmp(err.op, cases[index].op) == 0, "%s: rule %d op \"%s\" (%s)",
              cases[index].spec, err.rule, err.op, err.message);
        CHECK(reserved_is_zero(&err), "%s: reserved not zeroed", cases[index].spec);
    }
}

/* reshape_apply_into: into the caller's buffer, or the size it needs, as snprintf() does. */
static void test_apply_into(void) {
    reshape_rules *rules = compile("[{\"op\": \"keyedToArray\", \"wrapIn\": \"users\"}]");
    const char *input = "{\"u1\": {\"name\": \"Ada\"}}";
    const char *expected = "{\"users\":[{\"id\":\"u1\",\"name\":\"Ada\"}]}";
    size_t length = strlen(expected);
    reshape_error err;
    char buffer[128];
    size_t out_length = 12345;

    /* The size alone: buf NULL, buf_cap 0. */
    CHECK(reshape_apply_into(rules, input, strlen(input), 0, NULL, 0, &out_length, &err) == RESHAPE_BUFFER_TOO_SMALL,
          "%s", err.message);
    CHECK(out_length == length, "needs %zu, expected %zu", out_length, length);
    CHECK(err.code == RESHAPE_BUFFER_TOO_SMALL && err.rule == 0 && err.op[0] == '\0' && err.path[0] == '\0' &&
              err.line == 0 && reserved_is_zero(&err),
          "err fields");
    CHECK(strcmp(err.message, "buffer_too_small: the output has 36 bytes; the buffer holds 0") == 0, "%s", err.message);

    /* Exactly the size: the output, no NUL added; what follows is untouched. */
    memset(buffer, 0x5A, sizeof buffer);
    memset(&err, 'x', sizeof err);
    CHECK(reshape_apply_into(rules, input, strlen(input), 0, buffer, length, &out_length, &err) == RESHAPE_OK, "%s",
          err.message);
    CHECK(out_length == length && memcmp(buffer, expected, length) == 0, "%.*s", (int)out_length, buffer);
    CHECK(buffer[length] == 0x5A, "a byte written past the output");
    CHECK(err.code == RESHAPE_OK && err.message[0] == '\0' && err.op[0] == '\0' && reserved_is_zero(&err), "err cleared");

    /* A larger buffer: the same, and nothing past the output. */
    memset(buffer, 0x5A, sizeof buffer);
    CHECK(reshape_apply_into(rules, input, strlen(input), 0, buffer, sizeof buffer, &out_length, &err) == RESHAPE_OK, "%s",
          err.message);
    CHECK(out_length == length && memcmp(buffer, expected, length) == 0, "%.*s", (int)out_length, buffer);
    for (size_t index = length; index < sizeof buffer; index++) CHECK(buffer[index] == 0x5A, "byte %zu written", index);

    /* One byte short: nothing written at all, the size needed, status 9. */
    char pattern[sizeof buffer];
    for (size_t index = 0; index < sizeof pattern; index++) pattern[index] = (char)(index * 7 + 1);
    memcpy(buffer, pattern, sizeof buffer);
    out_length = 12345;
    CHECK(reshape_apply_into(rules, input, strlen(input), 0, buffer, length - 1, &out_length, &err) == 9, "one byte short");
    CHECK(memcmp(buffer, pattern, sizeof buffer) == 0, "buffer touched when too small");
    CHECK(out_length == length, "needs %zu", out_length);
    CHECK(err.code == RESHAPE_BUFFER_TOO_SMALL && strcmp(reshape_status_name(err.code), "buffer_too_small") == 0, "code");
    CHECK(strcmp(err.message, "buffer_too_small: the output has 36 bytes; the buffer holds 35") == 0, "%s", err.message);
    CHECK(reshape_apply_into(rules, input, strlen(input), 0, buffer, length - 1, &out_length, NULL) == 9, "NULL err");

    /* Pretty output: the same bytes as reshape_apply. */
    char *out = NULL;
    size_t apply_length = 0;
    CHECK(reshape_apply(rules, input, strlen(input), RESHAPE_PRETTY, &out, &apply_length, &err) == RESHAPE_OK, "pretty");
    CHECK(reshape_apply_into(rules, input, strlen(input), RESHAPE_PRETTY, buffer, sizeof buffer, &out_length, &err) ==
              RESHAPE_OK,
          "%s", err.message);
    CHECK(out_length == apply_length && memcmp(buffer, out, out_length) == 0, "%.*s", (int)out_length, buffer);
    reshape_free(out);

    /* An empty output (JSON Lines of blank lines) fits anywhere, NULL included. */
    reshape_rules *identity = compile("[]");
    out_length = 12345;
    CHECK(reshape_apply_into(identity, "\n\n", 2, RESHAPE_INPUT_LINES, NULL, 0, &out_length, &err) == RESHAPE_OK, "%s",
          err.message);
    CHECK(out_length == 0, "%zu", out_length);
    reshape_rules_free(identity);

    /* Errors of the input or the rules: exactly reshape_apply's, whatever the buffer; nothing written. */
    const char *inputs[] = {"{\"u1\": \"str\"}", "{\"u1\": ", "", "{\"a\": 1, \"a\": 2}"};
    for (size_t index = 0; index < sizeof inputs / sizeof inputs[0]; index++) {
        reshape_error expected_err, into_err;
        memset(&expected_err, 'x', sizeof expected_err);
        memset(&into_err, 'y', sizeof into_err);
        int status = reshape_apply(rules, inputs[index], strlen(inputs[index]), 0, &out, NULL, &expected_err);
        CHECK(status != RESHAPE_OK, "%s succeeded", inputs[index]);
        size_t capacities[] = {0, 1, sizeof buffer};
        for (size_t which = 0; which < 3; which++) {
            memcpy(buffer, pattern, sizeof buffer);
            out_length = 12345;
            char *target = capacities[which] ? buffer : NULL;
            int into = reshape_apply_into(rules, inputs[index], strlen(inputs[index]), 0, target, capacities[which],
                                          &out_length, &into_err);
            CHECK(into == status && same_error(&into_err, &expected_err), "%s, cap %zu: %d %s, expected %d %s", inputs[index],
                  capacities[which], into, into_err.message, status, expected_err.message);
            CHECK(out_length == 12345 && memcmp(buffer, pattern, sizeof buffer) == 0, "%s: outputs written on failure",
                  inputs[index]);
        }
    }
    reshape_error failed;
    CHECK(reshape_apply_into(rules, inputs[0], strlen(inputs[0]), 0, buffer, sizeof buffer, &out_length, &failed) ==
              RESHAPE_RULE_FAILED,
          "rule failed");
    CHECK(strcmp(failed.message, "rule_failed: rule 1 (keyedToArray) at $['u1']: expected an object, found a string") == 0 &&
              strcmp(failed.op, "keyedToArray") == 0 && failed.rule == 1,
          "%s", failed.message);

    /* Arguments. */
    memcpy(buffer, pattern, sizeof buffer);
    out_length = 12345;
    CHECK(reshape_apply_into(rules, input, strlen(input), 0, NULL, 16, &out_length, &err) == RESHAPE_INVALID_ARGUMENT,
          "NULL buf with a capacity");
    CHECK(strcmp(err.message, "invalid_argument: buf must not be NULL when buf_cap is not 0") == 0, "%s", err.message);
    CHECK(reshape_apply_into(rules, input, strlen(input), 0, buffer, sizeof buffer, NULL, &err) == RESHAPE_INVALID_ARGUMENT,
          "NULL out_len");
    CHECK(strcmp(err.message, "invalid_argument: out_len must not be NULL") == 0, "%s", err.message);
    CHECK(reshape_apply_into(rules, input, strlen(input), 0, NULL, 0, NULL, &err) == RESHAPE_INVALID_ARGUMENT,
          "NULL out_len when asking the size");
    CHECK(reshape_apply_into(rules, input, strlen(input), 0, buffer, SIZE_MAX, &out_length, &err) ==
              RESHAPE_INVALID_ARGUMENT,
          "huge buf_cap");
    CHECK(strcmp(err.message, "invalid_argument: buf_cap is larger than any buffer") == 0, "%s", err.message);
    CHECK(reshape_apply_into(NULL, input, strlen(input), 0, buffer, sizeof buffer, &out_length, &err) ==
              RESHAPE_INVALID_ARGUMENT,
          "NULL rules");
    CHECK(strcmp(err.message, "invalid_argument: rules must not be NULL") == 0, "%s", err.message);
    CHECK(reshape_apply_into(rules, NULL, 0, 0, buffer, sizeof buffer, &out_length, &err) == RESHAPE_INVALID_ARGUMENT,
          "NULL input");
    CHECK(strcmp(err.message, "invalid_argument: input must not be NULL") == 0, "%s", err.message);
    CHECK(reshape_apply_into(rules, input, (size_t)-1, 0, buffer, sizeof buffer, &out_length, &err) ==
              RESHAPE_INVALID_ARGUMENT,
          "huge input_len");
    CHECK(reshape_apply_into(rules, input, strlen(input), 0x40u, buffer, sizeof buffer, &out_length, &err) ==
              RESHAPE_INVALID_ARGUMENT,
          "unknown flag");
    CHECK(strcmp(err.message, "invalid_argument: unknown option flags 0x40") == 0 && err.op[0] == '\0', "%s", err.message);
    CHECK(out_length == 12345 && memcmp(buffer, pattern, sizeof buffer) == 0, "outputs written on failure");
    reshape_rules_free(rules);
}

/* reshape_rules_count and reshape_rules_op: the compiled document's rules, in order. */
/* reshape_apply_cb: what a write callback is given, and what its refusal does. */
typedef struct collected {
    char *bytes;
    size_t length, capacity, calls, largest, refuse_at;
    int refusal;
} collected;

static int collect(const char *buffer, size_t size, void *data) {
    collected *into = data;
    into->calls++;
    if (size > into->largest) into->largest = size;
    if (into->refuse_at && into->calls == into->refuse_at) return into->refusal;
    if (into->length + size > into->capacity) {
        into->capacity = (into->length + size) * 2;
        into->bytes = realloc(into->bytes, into->capacity);
        if (!into->bytes) abort();
    }
    memcpy(into->bytes + into->length, buffer, size);
    into->length += size;
    return 0;
}

/* A Firebase collection of `count` records, as text (the caller frees it). */
static char *collection_text(size_t count, size_t *length) {
    size_t capacity = count * 64 + 16, used = 0;
    char *text = malloc(capacity);
    if (!text) abort();
    used += (size_t)snprintf(text + used, capacity - used, "{");
    for (size_t index = 0; index < count; index++) {
        used += (size_t)snprintf(text + used, capacity - used, "%s\"u%07zu\": {\"display_name\": \"n%zu\", \"a\": {}}",
                                 index ? "," : "", index, index);
    }
    used += (size_t)snprintf(text + used, capacity - used, "}");
    *length = used;
    return text;
}

static void test_apply_cb(void) {
    reshape_rules *rules = compile("[{\"op\": \"keyedToArray\"}, {\"op\": \"emptyObjectToNull\"}, "
                                   "{\"op\": \"convertKeys\", \"to\": \"camelCase\"}]");
    reshape_error err;

    /* Small, large (streamed, in pieces) and pretty: exactly reshape_apply's bytes. */
    size_t counts[] = {1, 25000};
    unsigned flag_sets[] = {0, RESHAPE_PRETTY};
    for (size_t c = 0; c < 2; c++) {
        for (size_t f = 0; f < 2 - c; f++) {  /* the large input once: valgrind runs this too */
            size_t input_length = 0;
            char *input = collection_text(counts[c], &input_length);
            char *expected = NULL;
            size_t expected_length = 0;
            CHECK(reshape_apply(rules, input, input_length, flag_sets[f], &expected, &expected_length, &err) == RESHAPE_OK,
                  "%s", err.message);
            collected into = {0};
            memset(&err, 'x', sizeof err);
            CHECK(reshape_apply_cb(rules, input, input_length, flag_sets[f], collect, &into, &err) == RESHAPE_OK, "%s",
                  err.message);
            CHECK(err.code == RESHAPE_OK && err.message[0] == '\0' && reserved_is_zero(&err), "err cleared");
            CHECK(into.length == expected_length && memcmp(into.bytes, expected, expected_length) == 0,
                  "%zu records, flags %u: %zu bytes, expected %zu", counts[c], flag_sets[f], into.length, expected_length);
            CHECK(into.largest <= (1u << 20), "a piece of %zu bytes", into.largest);
            if (counts[c] > 1) CHECK(into.calls > 1, "%zu records in one piece", counts[c]);
            reshape_free(expected);
            free(into.bytes);
            free(input);
        }
    }

    /* A refusal stops the call: io_error, the callback's errno, nothing more written. */
    size_t input_length = 0;
    char *input = collection_text(25000, &input_length);
    int refusals[] = {28 /* ENOSPC */, -1};
    for (size_t r = 0; r < 2; r++) {
        collected into = {0};
        into.refuse_at = 2;
        into.refusal = refusals[r];
        CHECK(reshape_apply_cb(rules, input, input_length, 0, collect, &into, &err) == RESHAPE_IO_ERROR, "refused");
        CHECK(into.calls == 2, "called %zu times after refusing", into.calls);
        CHECK(err.code == RESHAPE_IO_ERROR && err.io_file == RESHAPE_IO_OUTPUT, "io_file %d", err.io_file);
        CHECK(err.sys_errno == (refusals[r] > 0 ? refusals[r] : 0), "sys_errno %d", err.sys_errno);
        const char *message = refusals[r] > 0 ? "io_error: the write callback refused the output: No space left on device"
                                              : "io_error: the write callback refused the output: it returned -1";
        CHECK(strcmp(err.message, message) == 0, "%s", err.message);
        free(into.bytes);
    }
    free(input);

    /* Errors of the input: reshape_apply's, before any piece; a NULL callback is refused. */
    collected into = {0};
    CHECK(reshape_apply_cb(rules, "{\"u1\": 1", 9, 0, collect, &into, &err) == RESHAPE_INVALID_JSON, "invalid");
    CHECK(into.calls == 0 && err.line == 1 && err.column == 9, "calls %zu, column %zu", into.calls, err.column);
    CHECK(reshape_apply_cb(rules, "{}", 2, 0, NULL, NULL, &err) == RESHAPE_INVALID_ARGUMENT, "NULL write");
    CHECK(strcmp(err.message, "invalid_argument: write must not be NULL") == 0, "%s", err.message);
    CHECK(reshape_apply_cb(NULL, "{}", 2, 0, collect, &into, &err) == RESHAPE_INVALID_ARGUMENT, "NULL rules");
    CHECK(reshape_apply_cb(rules, NULL, 2, 0, collect, &into, &err) == RESHAPE_INVALID_ARGUMENT, "NULL input");
    CHECK(into.calls == 0, "called for an error");
    reshape_rules_free(rules);
}

/* The threads of this process, counted in /proc/self/task. */
static size_t thread_count(void) {
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks) return 0;
    size_t count = 0;
    for (struct dirent *entry; (entry = readdir(tasks));) count += entry->d_name[0] != '.';
    closedir(tasks);
    return count;
}

typedef struct watched {
    uint64_t last_done, total, calls, cancel_at;
    size_t most_threads;
} watched;

static int watch(uint64_t done, uint64_t total, void *data) {
    watched *progress = data;
    progress->calls++;
    progress->last_done = done;
    progress->total = total;
    size_t threads = thread_count();
    if (threads > progress->most_threads) progress->most_threads = threads;
    return progress->cancel_at && progress->calls == progress->cancel_at;
}

/* reshape_apply_with: input in memory on several threads gives reshape_apply's bytes and errors. */
static void test_apply_with(void) {
    reshape_rules *rules = compile("[{\"op\": \"keyedToArray\"}, {\"op\": \"emptyObjectToNull\"}, "
                                   "{\"op\": \"convertKeys\", \"to\": \"camelCase\"}]");
    reshape_error err;
    size_t input_length = 0;
    char *input = collection_text(60000, &input_length);
    char *expected = NULL;
    size_t expected_length = 0;
    CHECK(reshape_apply(rules, input, input_length, 0, &expected, &expected_length, &err) == RESHAPE_OK, "%s", err.message);

    unsigned jobs[] = {1, 4, 0};
    size_t threads_before = thread_count();
    for (size_t j = 0; j < 3; j++) {
        reshape_file_options options = RESHAPE_FILE_OPTIONS_INIT;
        watched progress = {0};
        options.jobs = jobs[j];
        options.progress = watch;
        options.progress_data = &progress;
        collected into = {0};
        memset(&err, 'x', sizeof err);
        CHECK(reshape_apply_with(rules, input, input_length, 0, &options, collect, &into, &err) == RESHAPE_OK, "%s",
              err.message);
        CHECK(err.code == RESHAPE_OK && reserved_is_zero(&err), "err cleared");
        CHECK(into.length == expected_length && memcmp(into.bytes, expected, expected_length) == 0,
              "jobs %u: %zu bytes, expected %zu", jobs[j], into.length, expected_length);
        CHECK(progress.calls > 1 && progress.last_done == input_length && progress.total == input_length,
              "jobs %u: %llu progress calls, last %llu of %llu", jobs[j], (unsigned long long)progress.calls,
              (unsigned long long)progress.last_done, (unsigned long long)progress.total);
        /* With 4 jobs, 3 threads reshape beside the caller while it reports; they end before it returns. */
        if (jobs[j] == 4) CHECK(progress.most_threads >= threads_before + 3, "jobs 4: at most %zu threads", progress.most_threads);
        if (jobs[j] == 1) CHECK(progress.most_threads == threads_before, "jobs 1: %zu threads", progress.most_threads);
        CHECK(thread_count() == threads_before, "threads left running: %zu", thread_count());
        free(into.bytes);
    }
    /* NULL options: one thread per core, the same bytes. */
    collected into = {0};
    CHECK(reshape_apply_with(rules, input, input_length, 0, NULL, collect, &into, &err) == RESHAPE_OK, "%s", err.message);
    CHECK(into.length == expected_length && memcmp(into.bytes, expected, expected_length) == 0, "NULL options");
    free(into.bytes);

    /* Progress cancels; a record that fails a rule gives reshape_apply's error on any thread count. */
    reshape_file_options options = RESHAPE_FILE_OPTIONS_INIT;
    watched progress = {0};
    progress.cancel_at = 2;
    options.jobs = 4;
    options.progress = watch;
    options.progress_data = &progress;
    memset(&into, 0, sizeof into);
    CHECK(reshape_apply_with(rules, input, input_length, 0, &options, collect, &into, &err) == RESHAPE_CANCELLED, "%s",
          err.message);
    CHECK(progress.calls == 2, "progress called %llu times after cancelling", (unsigned long long)progress.calls);
    free(into.bytes);
    char *record = strstr(input + input_length / 2, "{\"display_name\"");
    char *end = record ? strstr(record, "}}") : NULL;
    if (!end) abort();
    memset(record, ' ', (size_t)(end + 2 - record)); /* `7` and spaces: a record that is not an object */
    record[0] = '7';
    reshape_error whole;
    char *unused = NULL;
    size_t unused_length = 0;
    CHECK(reshape_apply(rules, input, input_length, 0, &unused, &unused_length, &whole) == RESHAPE_RULE_FAILED, "whole");
    for (size_t j = 0; j < 3; j++) {
        options.jobs = jobs[j];
        options.progress = NULL;
        memset(&into, 0, sizeof into);
        CHECK(reshape_apply_with(rules, input, input_length, 0, &options, collect, &into, &err) == RESHAPE_RULE_FAILED,
              "jobs %u: %s", jobs[j], err.message);
        CHECK(strcmp(err.message, whole.message) == 0 && strcmp(err.path, whole.path) == 0 && err.rule == whole.rule,
              "jobs %u: %s, reshape_apply gave %s", jobs[j], err.message, whole.message);
        free(into.bytes);
    }

    /* Arguments: an unknown options version, and NULL write, are refused before any work. */
    options.version = 99;
    memset(&into, 0, sizeof into);
    CHECK(reshape_apply_with(rules, input, input_length, 0, &options, collect, &into, &err) == RESHAPE_INVALID_ARGUMENT,
          "version 99");
    CHECK(strcmp(err.message, "invalid_argument: options->version is 99; this library knows versions 1 to 2") == 0, "%s",
          err.message);
    CHECK(reshape_apply_with(rules, "{}", 2, 0, NULL, NULL, NULL, &err) == RESHAPE_INVALID_ARGUMENT, "NULL write");
    CHECK(into.calls == 0, "called for an error");
    reshape_free(expected);
    free(input);
    reshape_rules_free(rules);
}

static void test_rules_ops(void) {
    reshape_rules *rules = compile("{\"rules\": [{\"op\": \"unwrap\", \"path\": \"$.data\"}, {\"op\": \"keyedToArray\"},"
                                   " {\"op\": \"convertKeys\", \"to\": \"camelCase\"}, {\"op\": \"keyedToArray\"}]}");
    const char *ops[] = {"unwrap", "keyedToArray", "convertKeys", "keyedToArray"};
    CHECK(reshape_rules_count(rules) == 4, "%zu rules", reshape_rules_count(rules));
    for (size_t index = 0; index < 4; index++) {
        const char *op = reshape_rules_op(rules, index);
        CHECK(op != NULL && strcmp(op, ops[index]) == 0, "rule %zu: %s", index, op ? op : "NULL");
    }
    /* The same op is the same static string, which outlives the rules. */
    const char *first = reshape_rules_op(rules, 1);
    CHECK(first == reshape_rules_op(rules, 3), "one static string per op");
    CHECK(reshape_rules_op(rules, 4) == NULL, "past the end");
    CHECK(reshape_rules_op(rules, SIZE_MAX) == NULL, "SIZE_MAX");
    CHECK(reshape_rules_op(NULL, 0) == NULL, "NULL rules");
    CHECK(reshape_rules_count(NULL) == 0, "NULL rules count");
    reshape_rules_free(rules);
    CHECK(strcmp(first, "keyedToArray") == 0, "the string outlives its rules: %s", first);

    reshape_rules *empty = compile("[]");
    CHECK(reshape_rules_count(empty) == 0 && reshape_rules_op(empty, 0) == NULL, "no rules");
    reshape_rules_free(empty);
}

static void test_rules_plan(void) {
    reshape_rules *rules = compile("[{\"op\": \"unwrap\", \"path\": \"$.data\"}, {\"op\": \"keyedToArray\"},"
                                   " {\"op\": \"wrap\", \"key\": \"w\"}, {\"op\": \"remove\", \"path\": \"$.w\"}]");
    char *plan = reshape_rules_plan(rules);
    const char *expected = "records, when $['data'] is an object: its members\n"
                           "  rule 1 (unwrap $.data) runs per record\n"
                           "  rule 2 (keyedToArray $) runs per record\n"
                           "  rule 3 (wrap \"w\") runs per record\n"
                           "  rule 4 (remove $.w) needs the whole document: removes the collection or its envelope\n"
                           "records, when $['data'] is an array: its elements\n"
                           "  rule 1 (unwrap $.data) runs per record\n"
                           "  rule 2 (keyedToArray $) needs the whole document: keyedToArray on an array numbers the "
                           "records by position\n"
                           "  rule 3 (wrap \"w\") runs on the whole document, after rule 2\n"
                           "  rule 4 (remove $.w) runs on the whole document, after rule 2\n";
    CHECK(plan != NULL && strcmp(plan, expected) == 0, "plan:\n%s", plan ? plan : "NULL");
    char *again = reshape_rules_plan(rules);
    CHECK(again != NULL && again != plan && plan && strcmp(again, plan) == 0, "a new string each call");
    reshape_free(again);
    reshape_rules_free(rules);
    CHECK(plan == NULL || strlen(plan) == strlen(expected), "the string outlives its rules");
    reshape_free(plan);
    CHECK(reshape_rules_plan(NULL) == NULL, "NULL rules");
}

/* reshape_trace() and the source of a rule's failure in reshape_error. */
static void test_trace(void) {
    reshape_rules *rules = compile("[{\"op\": \"keyedToArray\"}, {\"op\": \"convertKeys\", \"to\": \"camelCase\"},"
                                   " {\"op\": \"coerce\", \"path\": \"$[*].age\", \"to\": \"integer\"}]");
    const char *input = "{\"-Nx1\": {\"first_name\": \"Ada\", \"age\": \"37\"},\n \"-Nx2\": {\"age\": \"x\"}}";
    const char *good = "{\"-Nx1\": {\"first_name\": \"Ada\", \"age\": \"37\"}}";
    reshape_error err;
    char *out = NULL;
    size_t out_len = 0;
    reshape_status status = reshape_trace(rules, good, strlen(good), 0, "$[0].firstName", &out, &out_len, &err);
    const char *expected = "{\"origin\":\"input\",\"path\":\"$['-Nx1']['first_name']\",\"line\":1,\"column\":25,\"position\":24,"
                           "\"rule\":0,\"op\":\"\",\"renames\":[{\"rule\":2,\"op\":\"convertKeys\",\"from\":\"first_name\","
                           "\"to\":\"firstName\"}],\"description\":\"$['-Nx1']['first_name'], line 1, column 25, renamed by rule 2 "
                           "(convertKeys) from \\\"first_name\\\"\"}";
    CHECK(status == RESHAPE_OK && out && strcmp(out, expected) == 0 && out_len == strlen(expected), "trace: %s", out ? out : err.message);
    reshape_free(out);
    out = NULL;
    status = reshape_trace(rules, good, strlen(good), 0, "$..age", &out, &out_len, &err);
    CHECK(status == RESHAPE_INVALID_ARGUMENT && out == NULL &&
              strcmp(err.message, "invalid_argument: path \"$..age\" may select several values; give one value's path") == 0,
          "several values: %s", err.message);
    CHECK(reshape_trace(rules, good, strlen(good), 0, NULL, &out, &out_len, &err) == RESHAPE_INVALID_ARGUMENT, "NULL path");
    CHECK(reshape_trace(rules, good, strlen(good), RESHAPE_INPUT_LINES, "$", &out, &out_len, &err) == RESHAPE_INVALID_ARGUMENT,
          "JSON Lines");

    /* The value rule 3 fails on was at $['-Nx2']['age'] before keyedToArray moved it. */
    status = reshape_apply(rules, input, strlen(input), 0, &out, &out_len, &err);
    CHECK(status == RESHAPE_RULE_FAILED && strcmp(err.path, "$[1]['age']") == 0, "failed: %s", err.message);
    CHECK(strcmp(err.source_path, "$['-Nx2']['age']") == 0 && err.source_line == 2 && err.source_column == 18 &&
              err.source_position == 62 && err.source_origin == RESHAPE_SOURCE_INPUT && err.source_rule == 0 &&
              err.source_op[0] == '\0',
          "source: %s line %zu column %zu position %zu origin %d", err.source_path, err.source_line, err.source_column,
          err.source_position, err.source_origin);
    CHECK(strstr(err.message, "(input: $['-Nx2']['age'], line 2, column 18)") != NULL, "message: %s", err.message);
    /* Cleared on success. */
    status = reshape_apply(rules, good, strlen(good), 0, &out, &out_len, &err);
    CHECK(status == RESHAPE_OK && err.source_path[0] == '\0' && err.source_origin == 0 && err.source_line == 0, "cleared");
    reshape_free(out);
    reshape_rules_free(rules);
}

/* reshape_explain: what each rule did; a failing rule is in "failure", not an error of the call. */
static void test_explain(void) {
    reshape_rules *rules = compile("[{\"op\": \"keyedToArray\"}, {\"op\": \"coerce\", \"path\": \"$[*].age\", \"to\": \"integer\"},"
                                   " {\"op\": \"wrap\", \"key\": \"x\"}]");
    const char *input = "{\"u1\": {\"age\": \"37\"}, \"u2\": {\"age\": \"x\"}}";
    reshape_error err;
    char *out = NULL;
    size_t out_len = 0;
    reshape_status status = reshape_explain(rules, input, strlen(input), 0, &out, &out_len, &err);
    const char *start = "{\"rules\":[{\"rule\":1,\"op\":\"keyedToArray\",\"summary\":\"keyedToArray $\",\"selected\":1,"
                        "\"changed\":1,\"changes\":5,\"perRecord\":true,\"reason\":\"\",\"seconds\":";
    CHECK(status == RESHAPE_OK && out && strncmp(out, start, strlen(start)) == 0 && out_len == strlen(out), "explain: %s",
          out ? out : err.message);
    CHECK(out && strstr(out, "\"failure\":{\"code\":\"rule_failed\",\"message\":\"rule_failed: rule 2 (coerce) at $[1]['age']: ") != NULL &&
              strstr(out, "\"notRun\":[\"wrap \\\"x\\\"\"],\"description\":\"rule 1 (keyedToArray $): selected 1, changed 1") != NULL,
          "failure: %s", out ? out : "");
    reshape_free(out);
    out = NULL;
    CHECK(reshape_explain(rules, "{", 1, 0, &out, &out_len, &err) == RESHAPE_INVALID_JSON && out == NULL, "invalid JSON");
    CHECK(reshape_explain(rules, input, strlen(input), RESHAPE_INPUT_LINES, &out, &out_len, &err) == RESHAPE_INVALID_ARGUMENT,
          "JSON Lines");
    CHECK(reshape_explain(rules, input, strlen(input), 0, NULL, &out_len, &err) == RESHAPE_INVALID_ARGUMENT, "NULL out");
    CHECK(reshape_explain(rules, input, (size_t)-1, 0, &out, &out_len, &err) == RESHAPE_INVALID_ARGUMENT && out == NULL,
          "input_len beyond any buffer");
    reshape_rules_free(rules);
}

/* reshape_infer: rules, reasons and types from samples; bad arguments are errors, *out untouched. */
static void test_infer(void) {
    const char *samples = "[{\"-NxA1b2C3d4E5f6G7h8I\": {\"first_name\": \"Ada\", \"plan\": \"\"},"
                          " \"-NxB9z8Y7x6W5v4U3t2S\": {\"first_name\": \"Grace\", \"plan\": \"pro\"}}]";
    reshape_error err;
    char *out = NULL;
    size_t out_len = 0;
    reshape_status status = reshape_infer(samples, strlen(samples), "{\"root\": \"Users\", \"name\": \"users\"}", &out, &out_len, &err);
    const char *rules = "{\"rules\":[{\"op\":\"keyedToArray\",\"idKey\":\"id\",\"wrapIn\":\"users\"},"
                        "{\"op\":\"blankStringToNull\",\"path\":\"$.users[*].plan\"},{\"op\":\"convertKeys\",\"to\":\"camelCase\"}],"
                        "\"reasons\":[{\"rule\":1,\"op\":\"keyedToArray\",\"reason\":\"$ is a keyed collection: 2 members over 1 object, "
                        "all objects of one shape, names are Firebase push ids (score 0.80)\"},";
    CHECK(status == RESHAPE_OK && out && strncmp(out, rules, strlen(rules)) == 0 && out_len == strlen(out), "infer: %s",
          out ? out : err.message);
    CHECK(out && strstr(out, "struct Users: PayloadTransformable, Encodable {") != NULL &&
              strstr(out, "\\n\\nclass Users(TypedDict):\\n    users: list[User]\\n") != NULL,
          "types: %s", out ? out : "");
    reshape_free(out);
    out = NULL;
    CHECK(reshape_infer("{}", 2, NULL, &out, &out_len, &err) == RESHAPE_INVALID_ARGUMENT && out == NULL &&
              strcmp(err.message, "invalid_argument: samples must be a JSON array of sample documents") == 0,
          "not an array: %s", err.message);
    CHECK(reshape_infer("[]", 2, NULL, &out, &out_len, &err) == RESHAPE_INVALID_ARGUMENT && out == NULL, "no sample");
    CHECK(reshape_infer("[1,", 3, NULL, &out, &out_len, &err) == RESHAPE_INVALID_JSON && out == NULL, "invalid JSON");
    CHECK(reshape_infer(samples, strlen(samples), "{\"keys\": \"UPPER\"}", &out, &out_len, &err) == RESHAPE_INVALID_ARGUMENT &&
              out == NULL,
          "bad keys");
    CHECK(reshape_infer(samples, strlen(samples), "{\"map\": [\"$.nowhere\"]}", &out, &out_len, &err) == RESHAPE_INVALID_ARGUMENT &&
              strcmp(err.message, "invalid_argument: --map \"$.nowhere\" selects no object or array in the samples") == 0,
          "unused override: %s", err.message);
    CHECK(reshape_infer(NULL, 0, NULL, &out, &out_len, &err) == RESHAPE_INVALID_ARGUMENT, "NULL samples");
    CHECK(reshape_infer(samples, (size_t)-1, NULL, &out, &out_len, &err) == RESHAPE_INVALID_ARGUMENT && out == NULL &&
              strcmp(err.message, "invalid_argument: samples_len is larger than any buffer") == 0,
          "samples_len beyond any buffer: %s", err.message);
    CHECK(reshape_infer(samples, strlen(samples), NULL, NULL, &out_len, &err) == RESHAPE_INVALID_ARGUMENT, "NULL out");
}

/* A path longer than the 512-byte field is cut at a character boundary and ends with "...". */
static void test_truncation(void) {
    reshape_rules *rules = compile("[{\"op\": \"keyedToArray\", \"path\": \"$..*\"}]");
    char input[8192];
    size_t used = 0;
    for (int level = 0; level < 120; level++) used += (size_t)snprintf(input + used, sizeof input - used, "{\"\xc3\xa9\":");
    used += (size_t)snprintf(input + used, sizeof input - used, "\"leaf\"");
    for (int level = 0; level < 120; level++) input[used++] = '}';
    input[used] = '\0';
    reshape_error err;
    char *out = NULL;
    CHECK(reshape_apply(rules, input, used, 0, &out, NULL, &err) == RESHAPE_RULE_FAILED, "%s", err.message);
    size_t length = strlen(err.path);
    CHECK(length <= 511 && length > 400, "path length %zu", length);
    CHECK(strcmp(err.path + length - 3, "...") == 0, "ends with ...: %s", err.path);
    CHECK(strncmp(err.path, "$['\xc3\xa9']['\xc3\xa9']", 13) == 0, "%s", err.path);
    /* No partial UTF-8 sequence before the dots. */
    unsigned char before = (unsigned char)err.path[length - 4];
    CHECK(before < 0x80 || (before & 0xC0) == 0x80, "cut inside a character");
    CHECK((before & 0xE0) != 0xC0, "cut after a lead byte");
    CHECK(strlen(err.message) <= 511 && strchr(err.message, '\n') == NULL, "message is one line within the field");
    reshape_rules_free(rules);
}

/* Compiles `spec` with `limits` and applies it to `input`: the status of whichever failed, and
   the message in `message`. */
static int with_limits(const char *spec, const reshape_limits *limits, const char *input, uint32_t flags, char *message) {
    reshape_rules *rules = NULL;
    reshape_error err;
    int status = reshape_rules_new_with_limits(spec, strlen(spec), limits, &rules, &err);
    if (status == RESHAPE_OK) {
        char *out = NULL;
        status = reshape_apply(rules, input, strlen(input), flags, &out, NULL, &err);
        reshape_free(out);
        reshape_rules_free(rules);
    }
    strcpy(message, err.message);
    return status;
}

/* reshape_limits: versions, defaults, each limit lowered, and SIZE_MAX as no limit. */
static void test_limits(void) {
    char message[512];
    reshape_limits limits = RESHAPE_LIMITS_INIT;
    CHECK(limits.version == RESHAPE_LIMITS_VERSION && limits.max_depth == 0 && limits.max_work == 0, "RESHAPE_LIMITS_INIT");
    CHECK(with_limits("[]", NULL, "[1]", 0, message) == RESHAPE_OK, "NULL limits: %s", message);
    CHECK(with_limits("[]", &limits, "[1]", 0, message) == RESHAPE_OK, "all defaults: %s", message);
    limits.version = 0;
    CHECK(with_limits("[]", &limits, "[1]", 0, message) == RESHAPE_INVALID_ARGUMENT, "version 0");
    CHECK(strcmp(message, "invalid_argument: limits->version is 0; this library knows versions 1 to 1") == 0, "%s", message);
    limits.version = RESHAPE_LIMITS_VERSION + 1;
    CHECK(with_limits("[]", &limits, "[1]", 0, message) == RESHAPE_INVALID_ARGUMENT, "a newer version");

    reshape_limits depth = RESHAPE_LIMITS_INIT;
    depth.max_depth = 3;
    CHECK(with_limits("[]", &depth, "[[[1]]]", 0, message) == RESHAPE_OK, "depth 3: %s", message);
    CHECK(with_limits("[]", &depth, "[[[[1]]]]", 0, message) == RESHAPE_LIMIT_EXCEEDED, "input depth 4");
    CHECK(strcmp(message, "limit_exceeded: at $[0][0][0], line 1, column 4: nesting deeper than 3 levels (the depth limit)") == 0,
          "%s", message);
    CHECK(with_limits("[{\"op\":\"wrap\",\"key\":\"w\"}]", &depth, "[[1]]", 0, message) == RESHAPE_OK, "output depth 3");
    CHECK(with_limits("[{\"op\":\"wrap\",\"key\":\"w\"}]", &depth, "[[[1]]]", 0, message) == RESHAPE_LIMIT_EXCEEDED, "output 4");
    CHECK(strcmp(message, "limit_exceeded: the output would nest deeper than 3 levels (the depth limit)") == 0, "%s", message);
    CHECK(with_limits("[{\"op\":\"default\",\"key\":\"k\",\"value\":[[1]]}]", &depth, "{}", 0, message) == RESHAPE_INVALID_RULES,
          "rules depth 4");

    reshape_limits size = RESHAPE_LIMITS_INIT;
    size.max_rules_bytes = 10;
    CHECK(with_limits("[        ]", &size, "1", 0, message) == RESHAPE_OK, "rules of 10 bytes");
    CHECK(with_limits("[         ]", &size, "1", 0, message) == RESHAPE_INVALID_RULES, "rules of 11 bytes");
    CHECK(strcmp(message, "invalid_rules: the rules document has 11 bytes, more than 10 (the rules size limit)") == 0, "%s", message);

    reshape_limits selected = RESHAPE_LIMITS_INIT;
    selected.max_selected = 4;
    CHECK(with_limits("[{\"op\":\"unwrap\",\"path\":\"$[*]\"}]", &selected, "[1,2,3]", 0, message) == RESHAPE_OK, "3 values");
    CHECK(with_limits("[{\"op\":\"unwrap\",\"path\":\"$[*]\"}]", &selected, "[1,2,3,4]", 0, message) == RESHAPE_LIMIT_EXCEEDED,
          "4 values and the root");
    CHECK(strcmp(message, "limit_exceeded: rule 1 (unwrap): the path \"$[*]\" reaches more than 4 values (the selection limit)") ==
              0, "%s", message);

    reshape_limits output = RESHAPE_LIMITS_INIT;
    output.max_output_bytes = 7;
    CHECK(with_limits("[]", &output, "[1,2,3]", 0, message) == RESHAPE_OK, "7 bytes");
    CHECK(with_limits("[]", &output, "[1,2,34]", 0, message) == RESHAPE_LIMIT_EXCEEDED, "8 bytes");
    CHECK(strcmp(message, "limit_exceeded: the output would be larger than 7 bytes (the output limit)") == 0, "%s", message);
    CHECK(with_limits("[]", &output, "[1,2]", RESHAPE_PRETTY, message) == RESHAPE_LIMIT_EXCEEDED, "pretty is larger");
    CHECK(with_limits("[{\"op\":\"wrap\",\"key\":\"a\"}]", &output, "[1,2]", 0, message) == RESHAPE_LIMIT_EXCEEDED,
          "what a rule adds counts too");
    /* The output and work limits count the whole document, every rule together: no rule is named. */
    CHECK(strcmp(message, "limit_exceeded: the output would be larger than 7 bytes (the output limit)") == 0, "%s", message);

    reshape_limits work = RESHAPE_LIMITS_INIT;
    work.max_work = 50;
    CHECK(with_limits("[{\"op\":\"emptyObjectToNull\"}]", &work, "[{},{},{}]", 0, message) == RESHAPE_OK, "little work");
    CHECK(with_limits("[{\"op\":\"emptyObjectToNull\"},{\"op\":\"emptyObjectToNull\"},{\"op\":\"emptyObjectToNull\"},"
                      "{\"op\":\"emptyObjectToNull\"},{\"op\":\"emptyObjectToNull\"}]",
                      &work, "[[],[],[],[],[],[],[],[],[],[],[],[]]", 0, message) == RESHAPE_LIMIT_EXCEEDED,
          "more work");
    CHECK(strcmp(message, "limit_exceeded: the rules need more than 50 steps of work on this document (the work limit)") == 0, "%s",
          message);

    reshape_limits unlimited = RESHAPE_LIMITS_INIT;
    unlimited.max_depth = unlimited.max_rules_bytes = unlimited.max_selected = unlimited.max_output_bytes = SIZE_MAX;
    unlimited.max_work = SIZE_MAX;
    CHECK(with_limits("[{\"op\":\"wrap\",\"key\":\"w\"}]", &unlimited, "[[[[[[1]]]]]]", 0, message) == RESHAPE_OK, "SIZE_MAX: %s",
          message);
}

int main(void) {
    test_versions();
    test_limits();
    test_status_names();
    test_null_arguments();
    test_zero_length_and_unterminated_input();
    test_flags_and_error_cleared_on_success();
    test_error_details();
    test_error_op();
    test_apply_into();
    test_apply_cb();
    test_apply_with();
    test_rules_ops();
    test_rules_plan();
    test_trace();
    test_explain();
    test_infer();
    test_truncation();
    return test_exit_status("test_api");
}
