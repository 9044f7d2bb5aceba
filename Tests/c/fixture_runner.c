/* Running every case of Tests/Fixtures through reshape_rules_new and reshape_apply, checking the
   exact output bytes or the exact error (code, rule, op, path, line, column, position, message);
   and through reshape_apply_into, which must give the same bytes or the same error. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reshape.h"
#include "test_support.h"

/* A string field of the fixture's error.json. */
static const char *field(json_t *object, const char *name) {
    const char *value = json_string_value(json_object_get(object, name));
    return value ? value : "";
}

static json_int_t number(json_t *object, const char *name) {
    return json_integer_value(json_object_get(object, name));
}

/* Reported text equals the expected text, or is its cut form when the expected text does not fit. */
static int same_or_truncated(const char *reported, const char *expected) {
    if (strcmp(reported, expected) == 0) return 1;
    size_t length = strlen(reported);
    return strlen(expected) > 511 && length >= 3 && length <= 511 &&
           strcmp(reported + length - 3, "...") == 0 && strncmp(reported, expected, length - 3) == 0;
}

/* The ops of docs/rules.md. error.json has the op as the engine has it, a made-up one included;
   reshape_error.op names only these, and is "" for any other. */
static const char *const known_ops[] = {"unwrap", "wrap", "keyedToArray", "arrayToKeyed", "emptyObjectToNull",
                                        "blankStringToNull", "convertKeys", "renameKeys", "remove", "default",
                                        "coerce", "emptyArrayToNull", "keep", "hoist", "pluck", "flatten", "mapValues"};

static const char *expected_op(json_t *expected) {
    const char *op = field(expected, "op");
    for (size_t index = 0; index < sizeof known_ops / sizeof known_ops[0]; index++) {
        if (strcmp(op, known_ops[index]) == 0) return op;
    }
    return "";
}

static void check_error(const char *name, const reshape_error *err, json_t *expected) {
    CHECK(strcmp(reshape_status_name(err->code), field(expected, "code")) == 0, "%s: code %s, expected %s", name,
          reshape_status_name(err->code), field(expected, "code"));
    CHECK(err->rule == number(expected, "rule"), "%s: rule %d", name, err->rule);
    CHECK(strcmp(err->op, expected_op(expected)) == 0, "%s: op \"%s\", expected \"%s\"", name, err->op,
          expected_op(expected));
    CHECK(reserved_is_zero(err), "%s: reserved bytes not zeroed", name);
    CHECK(same_or_truncated(err->path, field(expected, "path")), "%s: path %s, expected %s", name, err->path,
          field(expected, "path"));
    CHECK((json_int_t)err->line == number(expected, "line"), "%s: line %zu", name, err->line);
    CHECK((json_int_t)err->column == number(expected, "column"), "%s: column %zu", name, err->column);
    CHECK((json_int_t)err->position == number(expected, "position"), "%s: position %zu", name, err->position);
    CHECK(same_or_truncated(err->message, field(expected, "description")), "%s: message\n  %s\nexpected\n  %s", name,
          err->message, field(expected, "description"));
}

/* reshape_apply_into on a fixture reshape_apply ran: asked for the size, then into a buffer of
   exactly that size (with a guard byte after it), it gives the same bytes, or the same error. */
static void check_apply_into(const fixture *fixture, const reshape_rules *rules, int status, const char *out,
                             size_t out_length, const reshape_error *err) {
    const char *name = fixture->name;
    reshape_error into_err;
    size_t needed = 12345;
    int sized = reshape_apply_into(rules, fixture->input, fixture->input_length, fixture->flags, NULL, 0, &needed,
                                   &into_err);
    if (status != RESHAPE_OK) {
        /* An error of the input or the rules comes before the buffer's size. */
        CHECK(sized == status && same_error(&into_err, err), "%s: apply_into failed with\n  %s\nexpected\n  %s", name,
              into_err.message, err->message);
        CHECK(needed == 12345, "%s: out_len written on failure", name);
        return;
    }
    CHECK(sized == (out_length == 0 ? RESHAPE_OK : RESHAPE_BUFFER_TOO_SMALL) && needed == out_length,
          "%s: size asked: status %d, %zu bytes, expected %zu", name, sized, needed, out_length);
    char *buffer = malloc(out_length + 1);
    if (!buffer) return;
    memset(buffer, 0x5A, out_length + 1);
    size_t written = 0;
    int into = reshape_apply_into(rules, fixture->input, fixture->input_length, fixture->flags, buffer, out_length,
                                  &written, &into_err);
    CHECK(into == RESHAPE_OK && written == out_length && memcmp(buffer, out, out_length) == 0,
          "%s: apply_into gave status %d, %zu bytes: %.*s", name, into, written, (int)written, buffer);
    CHECK(buffer[out_length] == 0x5A, "%s: apply_into wrote past the output", name);
    CHECK(into_err.code == RESHAPE_OK && into_err.message[0] == '\0' && into_err.op[0] == '\0', "%s: err not cleared",
          name);
    free(buffer);
}

void run_fixture(const fixture *fixture) {
    const char *name = fixture->name;
    reshape_rules *rules = NULL;
    reshape_error err;
    int status = reshape_rules_new(fixture->rules, fixture->rules_length, &rules, &err);
    if (status == RESHAPE_OK) {
        char *out = NULL;
        size_t out_length = 0;
        status = reshape_apply(rules, fixture->input, fixture->input_length, fixture->flags, &out, &out_length, &err);
        check_apply_into(fixture, rules, status, out, out_length, &err);
        if (status == RESHAPE_OK) {
            CHECK(fixture->expected != NULL, "%s: expected an error, got %s", name, out);
            if (fixture->expected) {
                CHECK(out_length == fixture->expected_length && memcmp(out, fixture->expected, out_length) == 0,
                      "%s: output\n  %s\nexpected\n  %s", name, out, fixture->expected);
                CHECK(out[out_length] == '\0', "%s: output not NUL-terminated", name);
            }
            reshape_free(out);
        }
        reshape_rules_free(rules);
    }
    if (status != RESHAPE_OK) {
        CHECK(fixture->error != NULL, "%s: unexpected error %s", name, err.message);
        if (fixture->error) check_error(name, &err, fixture->error);
    }
}

size_t run_all_fixtures(void) {
    char **names = NULL;
    size_t count = list_fixtures(&names);
    for (size_t index = 0; index < count; index++) {
        fixture fixture;
        CHECK(load_fixture(names[index], &fixture), "%s: incomplete fixture", names[index]);
        if (fixture.input && fixture.rules) run_fixture(&fixture);
        free_fixture(&fixture);
    }
    free_names(names, count);
    return count;
}
