#include "generator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INPUT (1u << 20)

typedef struct recipe {
    const uint8_t *bytes;
    size_t size, position;
} recipe;

static unsigned next(recipe *r) { return r->position < r->size ? r->bytes[r->position++] : 0; }
static unsigned pick(recipe *r, unsigned count) { return next(r) % count; }
/* A number up to about 65535, skewed small. */
static unsigned amount(recipe *r) {
    unsigned high = next(r);
    return high < 200 ? high : (high - 200) * 1200 + next(r);
}

static void append(text *t, const char *bytes, size_t length) {
    if (t->length + length + 1 > t->capacity) {
        size_t capacity = t->capacity ? t->capacity : 256;
        while (t->length + length + 1 > capacity) capacity *= 2;
        char *grown = realloc(t->bytes, capacity);
        if (!grown) abort();
        t->bytes = grown;
        t->capacity = capacity;
    }
    memcpy(t->bytes + t->length, bytes, length);
    t->length += length;
    t->bytes[t->length] = '\0';
}
static void put(text *t, const char *string) { append(t, string, strlen(string)); }

void text_free(text *t) {
    free(t->bytes);
    t->bytes = NULL;
    t->length = t->capacity = 0;
}

/* Names that paths and rules also use, so that they meet; some need escapes or differ only by
   normalization or a NUL. */
static const char *names[] = {"a",        "b",      "id",      "data",       "x_y",     "fooBar", "users",
                              "\\u0000a", "a\\u0000z", "\\u00e9", "e\\u0301", "\\u001b[1m", "URL", "k\\\"q",
                              "",         "value",  "_x_",    "\\ud83d\\ude00"};
#define NAME_COUNT (sizeof names / sizeof *names)

static void name(recipe *r, text *t) {
    put(t, "\"");
    put(t, names[pick(r, NAME_COUNT)]);
    put(t, "\"");
}

static void number(recipe *r, text *t) {
    static const char *fixed[] = {"0", "-0", "1", "-1", "1.5", "0.1", "1e400", "-1e-400", "9007199254740993",
                                  "18446744073709551616", "1E2", "0e99999999999999999999", "0.1e-9223372036854775808",
                                  "12.0", "1.00000000000000000001", "-9223372036854775808", "9223372036854775807"};
    unsigned kind = pick(r, 4);
    if (kind < 3) {
        put(t, fixed[pick(r, sizeof fixed / sizeof *fixed)]);
        return;
    }
    /* A long number: digits, maybe a fraction, maybe a long exponent. */
    unsigned digits = 1 + amount(r);
    put(t, next(r) & 1 ? "-" : "");
    put(t, "1");
    for (unsigned i = 1; i < digits && t->length < MAX_INPUT; i++) put(t, (i % 7) ? "0" : "3");
    if (next(r) & 1) put(t, ".5");
    if (next(r) & 1) {
        put(t, next(r) & 1 ? "e-" : "e+");
        unsigned exponent = 1 + amount(r) % 40;
        for (unsigned i = 0; i < exponent; i++) put(t, "9");
    }
}

static void string(recipe *r, text *t) {
    static const char *fixed[] = {"", " ", "x", "12.50", "true", "false", "3", "\\u0000", "\\ud83d\\ude00",
                                  "\\u2028", "\\u202e", "\\u001b", "\\t\\n", "\\u00e9", "e\\u0301", "null"};
    put(t, "\"");
    if (pick(r, 8) == 0) {
        unsigned length = amount(r) * 4;
        for (unsigned i = 0; i < length && t->length < MAX_INPUT; i++) put(t, i % 3 ? "a" : "_");
    } else {
        put(t, fixed[pick(r, sizeof fixed / sizeof *fixed)]);
    }
    put(t, "\"");
}

/* A JSON value, built with an explicit stack (no recursion): containers open and close as the
   recipe says, up to `max_depth`. */
static void value(recipe *r, text *t, unsigned max_depth) {
    char closers[2048];
    int first[2048];
    size_t element_start[2048]; /* where the current element of each open container starts */
    unsigned depth = 0;
    for (;;) {
        /* Start a value (a member name first inside an object). */
        if (depth > 0 && closers[depth - 1] == '}') {
            if (!first[depth - 1]) put(t, ",");
            name(r, t);
            put(t, ":");
        } else if (depth > 0 && !first[depth - 1]) {
            put(t, ",");
        }
        if (depth > 0) {
            first[depth - 1] = 0;
            element_start[depth - 1] = t->length;
        }
        unsigned choice = pick(r, 16);
        if (t->length > MAX_INPUT) choice = 15;
        if (choice < 5 && depth < max_depth && depth < sizeof closers) {
            int object = choice < 3;
            put(t, object ? "{" : "[");
            closers[depth] = object ? '}' : ']';
            first[depth] = 1;
            depth++;
            continue;
        } else if (choice == 5 && depth + 1100 < sizeof closers) {
            /* A dive: many levels at once, past the default depth limit sometimes. */
            unsigned levels = next(r) < 128 ? 1 + next(r) * 4 : 1000 + pick(r, 3) - 1;
            for (unsigned i = 0; i < levels; i++) put(t, "[");
            put(t, "{}");
            for (unsigned i = 0; i < levels; i++) put(t, "]");
        } else if (choice < 8) {
            string(r, t);
        } else if (choice < 11) {
            number(r, t);
        } else if (choice == 11) {
            put(t, pick(r, 3) == 0 ? "null" : pick(r, 2) ? "true" : "false");
        } else if (choice == 12) {
            put(t, pick(r, 2) ? "{}" : "[]");
        } else {
            put(t, "1");
        }
        /* Close containers as the recipe says (always, once the budget is spent). */
        while (depth > 0 && (pick(r, 3) == 0 || t->length > MAX_INPUT || r->position >= r->size)) {
            char closer[2] = {closers[--depth], 0};
            put(t, closer);
        }
        if (depth == 0) break;
        /* Repeat the last element of an array many times: inputs up to 1 MB. */
        if (closers[depth - 1] == ']' && pick(r, 32) == 0) {
            size_t element_length = t->length - element_start[depth - 1];
            if (element_length > 0 && element_length < 4096) {
                char *element = malloc(element_length);
                if (!element) abort();
                memcpy(element, t->bytes + element_start[depth - 1], element_length);
                unsigned times = amount(r);
                for (unsigned i = 0; i < times && t->length + element_length < MAX_INPUT; i++) {
                    put(t, ",");
                    append(t, element, element_length);
                }
                free(element);
            }
        }
    }
}

static void path(recipe *r, text *t) {
    static const char *segments[] = {".a", ".b", ".id", ".data", ".users", ".*", "[*]", "[0]", "[1]", "[-1]", "[-2:]", "[::-1]", "[0,-1]", "[:-1:2]",
                                     "..a", "..*", "..[*]", "..[0]", "..id", "['x_y']", "[\\\"k\\\\\\\"q\\\"]",
                                     "['\\\\u00e9']", "..['a']", "[ 'b' ]", " .a",
                                     "[?@.a]", "[?@ == 1 || @ == '']", "..[?@.id > 0]", "[?length(@) > 1]", "[?@.a == @.b]",
                                     "[?length(@.a) > 1]", "[?match(@.id, 'a.*')]", "..[?search(@.a, '[0-9]')]",
                                     "[?@.a.b == 1]", "[?value(@.a.id) == 'x' || @.b.a.id > 0]", "[?count(@.a[*]) > 1]",
                                     "[?count(@.b.id) == 1 && length(@.a.a) == 2]", "[?search(@.a, 'x')]", "[?match(@.id, '[ab]1')]"};
    put(t, "\"$");
    unsigned count = pick(r, 5);
    if (pick(r, 64) == 0) count = 40 + amount(r) % 400;
    for (unsigned i = 0; i < count; i++) put(t, segments[pick(r, sizeof segments / sizeof *segments)]);
    if (pick(r, 64) == 0) put(t, pick(r, 2) ? " " : "[?@.a]");
    put(t, "\"");
}

static void rule(recipe *r, text *t) {
    static const char *ops[] = {"unwrap", "wrap", "keyedToArray", "arrayToKeyed", "emptyObjectToNull", "blankStringToNull",
                                "convertKeys", "renameKeys", "remove", "default", "coerce", "keyedtoArray", "pluck", "hoist"};
    unsigned op = pick(r, sizeof ops / sizeof *ops);
    put(t, "{\"op\":\"");
    put(t, ops[op]);
    put(t, "\"");
    unsigned params = pick(r, 4);
    for (unsigned i = 0; i < params; i++) {
        switch (pick(r, 15)) {
        case 0: case 1: case 2: put(t, ",\"path\":"); path(r, t); break;
        case 3: put(t, ",\"key\":"); name(r, t); break;
        case 4: put(t, ",\"idKey\":"); name(r, t); break;
        case 5: put(t, pick(r, 2) ? ",\"to\":\"snake_case\"" : ",\"to\":\"integer\""); break;
        case 6: put(t, pick(r, 2) ? ",\"deep\":true" : ",\"optional\":true"); break;
        case 7: put(t, ",\"map\":{"); name(r, t); put(t, ":"); name(r, t); put(t, "}"); break;
        case 8: put(t, ",\"value\":"); value(r, t, 6); break;
        case 9: put(t, pick(r, 2) ? ",\"onFail\":\"null\"" : ",\"onConflict\":\"keep\""); break;
        case 10: put(t, pick(r, 2) ? ",\"nonObject\":\"wrap\"" : ",\"wrapIn\":\"w\""); break;
        case 11: put(t, pick(r, 2) ? ",\"matching\":\"a|id|x_.*\"" : ",\"to\":\"string\""); break;
        /* pluck and hoist: the member taken, and what a missing one gives. */
        case 12: put(t, ",\"member\":"); name(r, t); break;
        case 13: put(t, pick(r, 2) ? ",\"onMissing\":\"null\"" : ",\"onMissing\":\"skip\""); break;
        default: put(t, ",\"trim\":true"); break;
        }
    }
    put(t, "}");
}

void generate(const uint8_t *bytes, size_t size, generated *out) {
    recipe r = {bytes, size, 0};
    memset(out, 0, sizeof *out);
    out->flags = pick(&r, 4);
    reshape_limits limits = RESHAPE_LIMITS_INIT;
    unsigned which = pick(&r, 16);
    out->use_limits = which != 0;
    if (which < 4) {
        /* Lowered limits, so that every limit is met often. */
        limits.max_depth = 1 + amount(&r) % 64;
        limits.max_selected = 1 + amount(&r);
        limits.max_output_bytes = 1 + amount(&r) * 16;
        limits.max_work = 1 + amount(&r) * 8;
        limits.max_rules_bytes = 64 + amount(&r) * 8;
    } else if (which != 0) {
        /* The defaults' shape at a twentieth of their size: the same code meets the limits, and
           a recipe costs a fuzzer tenths of a second rather than tens (the real defaults are
           used one time in sixteen). */
        limits.max_selected = 200000;
        limits.max_work = 5000000;
        limits.max_output_bytes = 4u << 20;
    }
    out->limits = limits;

    text *rules = &out->rules;
    put(rules, "[");
    unsigned count = pick(&r, 6);
    for (unsigned i = 0; i < count; i++) {
        if (i) put(rules, ",");
        rule(&r, rules);
    }
    if (pick(&r, 16) == 0) {
        /* A long list: one rule repeated. */
        text one = {0};
        rule(&r, &one);
        unsigned times = amount(&r);
        for (unsigned i = 0; i < times && rules->length < (256u << 10); i++) {
            if (rules->length > 1) put(rules, ",");
            append(rules, one.bytes, one.length);
        }
        text_free(&one);
    }
    put(rules, "]");
    value(&r, &out->input, 40);
}

void generated_free(generated *g) {
    text_free(&g->rules);
    text_free(&g->input);
}
