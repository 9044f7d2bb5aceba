/* The library on a 64 KiB thread stack (less than musl's 128 KiB default): every fixture, every op
   at the maximum depth, and depths far beyond it with raised limits. Nothing the library does
   recurses on the depth of a document or the number of rules, so none of this may overflow. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reshape.h"
#include "test_support.h"

#define SMALL_STACK (64 * 1024)
#define MAX_DEPTH 1000

/* `count` copies of `unit`, then `middle`, then `count` copies of `closer`. Free with free(). */
static char *nest(const char *unit, size_t count, const char *middle, const char *closer) {
    size_t length = strlen(unit) * count + strlen(middle) + strlen(closer) * count;
    char *text = malloc(length + 1), *cursor = text;
    for (size_t index = 0; index < count; index++) cursor += sprintf(cursor, "%s", unit);
    cursor += sprintf(cursor, "%s", middle);
    for (size_t index = 0; index < count; index++) cursor += sprintf(cursor, "%s", closer);
    return text;
}

/* Compiles `spec` with `limits` (NULL: defaults), applies it to `input`, and checks the output or
   the status. */
static void check(const char *what, const char *spec, const reshape_limits *limits, const char *input, uint32_t flags,
                  const char *expected, int expected_status) {
    reshape_rules *rules = NULL;
    reshape_error err;
    int status = reshape_rules_new_with_limits(spec, strlen(spec), limits, &rules, &err);
    if (status == RESHAPE_OK) {
        char *out = NULL;
        size_t length = 0;
        status = reshape_apply(rules, input, strlen(input), flags, &out, &length, &err);
        if (status == RESHAPE_OK && expected) {
            CHECK(length == strlen(expected) && memcmp(out, expected, length) == 0, "%s: output differs (%zu bytes)", what,
                  length);
        }
        reshape_free(out);
        reshape_rules_free(rules);
    }
    CHECK(status == expected_status, "%s: status %d, expected %d: %s", what, status, expected_status, err.message);
}

static void every_op_at_the_maximum_depth(void) {
    /* 998 wrappers around {"zz":{}}: 1000 levels. */
    char *objects = nest("{\"a_b\":", MAX_DEPTH - 2, "{\"zz\":{}}", "}");
    char *camel = nest("{\"aB\":", MAX_DEPTH - 2, "{\"zz\":{}}", "}");
    char *removed = nest("{\"a_b\":", MAX_DEPTH - 2, "{}", "}");
    char *renamed = nest("{\"c\":", MAX_DEPTH - 2, "{\"zz\":null}", "}");
    char *arrays = nest("[", MAX_DEPTH, "", "]");
    check("convertKeys", "[{\"op\":\"convertKeys\"}]", NULL, objects, 0, camel, RESHAPE_OK);
    check("remove $..zz", "[{\"op\":\"remove\",\"path\":\"$..zz\"}]", NULL, objects, 0, removed, RESHAPE_OK);
    check("emptyObjectToNull, renameKeys deep",
          "[{\"op\":\"emptyObjectToNull\"},{\"op\":\"renameKeys\",\"map\":{\"a_b\":\"c\"},\"deep\":true}]", NULL, objects, 0,
          renamed, RESHAPE_OK);
    check("unwrap $..zz", "[{\"op\":\"unwrap\",\"path\":\"$..zz\"}]", NULL, objects, 0, "[{}]", RESHAPE_OK);
    check("unwrap $..* (copies)", "[{\"op\":\"unwrap\",\"path\":\"$..*\"},{\"op\":\"unwrap\",\"path\":\"$[0]\"}]", NULL,
          arrays, 0, NULL, RESHAPE_OK);
    check("coerce fails to null", "[{\"op\":\"coerce\",\"path\":\"$..*\",\"to\":\"string\",\"onFail\":\"null\"}]", NULL,
          arrays, 0, "[null]", RESHAPE_OK);
    check("keyedToArray, blankStringToNull, default",
          "[{\"op\":\"keyedToArray\",\"path\":\"$..*\",\"nonObject\":\"skip\"},{\"op\":\"blankStringToNull\"},"
          "{\"op\":\"default\",\"path\":\"$..*\",\"key\":\"k\",\"value\":1}]",
          NULL, objects, 0, NULL, RESHAPE_RULE_FAILED);
    check("rewrite", "[]", NULL, arrays, 0, arrays, RESHAPE_OK);
    check("pretty", "[]", NULL, arrays, RESHAPE_PRETTY, NULL, RESHAPE_OK);
    check("duplicate of a deep member", "[]", NULL, "{\"a\":[[[[[[[[1]]]]]]]],\"a\":2}", RESHAPE_ALLOW_DUPLICATE_KEYS,
          "{\"a\":2}", RESHAPE_OK);
    char *too_deep = nest("[", MAX_DEPTH + 1, "", "]");
    check("one level more", "[]", NULL, too_deep, 0, NULL, RESHAPE_LIMIT_EXCEEDED);
    check("one level more after wrap", "[{\"op\":\"wrap\",\"key\":\"w\"}]", NULL, arrays, 0, NULL, RESHAPE_LIMIT_EXCEEDED);
    char *deep_rules = nest("[", MAX_DEPTH + 1, "", "]");
    check("rules one level too deep", deep_rules, NULL, "1", 0, NULL, RESHAPE_INVALID_RULES);
    free(objects), free(camel), free(removed), free(renamed), free(arrays), free(too_deep), free(deep_rules);
}

static void far_beyond_with_raised_limits(void) {
    /* 200,000 wrap rules then a deep renaming: a tree 200,000 levels deep built, renamed, written
       and freed; pretty output of it grows with depth squared and meets the output limit. */
    size_t count = 200000;
    const char *rule = "{\"op\":\"wrap\",\"key\":\"w\"},";
    char *spec = nest("[", 1, "", "");
    size_t length = strlen(rule) * count + 64;
    spec = realloc(spec, length);
    char *cursor = spec + 1;
    for (size_t index = 0; index < count; index++) cursor += sprintf(cursor, "%s", rule);
    sprintf(cursor, "{\"op\":\"convertKeys\",\"to\":\"snake_case\"}]");
    reshape_limits limits = RESHAPE_LIMITS_INIT;
    check("200k wraps, default limits", spec, NULL, "1", 0, NULL, RESHAPE_INVALID_RULES);
    limits.max_rules_bytes = 8u << 20;
    check("200k wraps, default depth", spec, &limits, "1", 0, NULL, RESHAPE_LIMIT_EXCEEDED);
    limits.max_depth = 300000;
    char *expected = nest("{\"w\":", count, "1", "}");
    check("200k wraps, raised depth", spec, &limits, "1", 0, expected, RESHAPE_OK);
    check("200k wraps, pretty", spec, &limits, "1", RESHAPE_PRETTY, NULL, RESHAPE_LIMIT_EXCEEDED);
    char *input = nest("[", 100000, "", "]");
    check("100k-deep input, raised depth", "[{\"op\":\"convertKeys\"},{\"op\":\"remove\",\"path\":\"$..zz\"}]", &limits, input,
          0, input, RESHAPE_OK);
    free(spec), free(expected), free(input);
}

static void *run(void *unused) {
    (void)unused;
    size_t count = run_all_fixtures();
    CHECK(count >= 60, "only %zu fixtures", count);
    every_op_at_the_maximum_depth();
    far_beyond_with_raised_limits();
    return NULL;
}

int main(void) {
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    CHECK(pthread_attr_setstacksize(&attributes, SMALL_STACK) == 0, "stack size %d refused", SMALL_STACK);
    pthread_t thread;
    CHECK(pthread_create(&thread, &attributes, run, NULL) == 0, "pthread_create");
    pthread_join(thread, NULL);
    pthread_attr_destroy(&attributes);
    return test_exit_status("test_small_stack");
}
