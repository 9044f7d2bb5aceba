#include "test_support.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int test_failures = 0;
int test_checks = 0;

char *read_file(const char *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    size_t capacity = 4096, used = 0;
    char *data = malloc(capacity + 1);
    size_t got;
    while (data && (got = fread(data + used, 1, capacity - used, file)) > 0) {
        used += got;
        if (used == capacity) {
            capacity *= 2;
            char *bigger = realloc(data, capacity + 1);
            if (!bigger) { free(data); data = NULL; }
            data = bigger;
        }
    }
    fclose(file);
    if (!data) return NULL;
    data[used] = '\0';
    *length = used;
    return data;
}

void join_path(char *buffer, size_t size, const char *dir, const char *name, const char *file) {
    snprintf(buffer, size, "%s/%s/%s", dir, name, file);
}

int test_exit_status(const char *name) {
    if (test_failures) {
        fprintf(stderr, "%s: %d of %d checks failed\n", name, test_failures, test_checks);
        return 1;
    }
    printf("%s: %d checks passed\n", name, test_checks);
    return 0;
}

static int compare_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t list_fixtures(char ***names) {
    size_t count = 0, capacity = 256;
    *names = malloc(capacity * sizeof **names);
    DIR *directory = opendir(RESHAPE_FIXTURES);
    if (!directory || !*names) {
        fprintf(stderr, "cannot list %s\n", RESHAPE_FIXTURES);
        if (directory) closedir(directory);
        return 0;
    }
    struct dirent *entry;
    while ((entry = readdir(directory))) {
        if (entry->d_name[0] == '.') continue;
        if (count == capacity) {
            capacity *= 2;
            char **bigger = realloc(*names, capacity * sizeof **names);
            if (!bigger) break;
            *names = bigger;
        }
        (*names)[count++] = strdup(entry->d_name);
    }
    closedir(directory);
    qsort(*names, count, sizeof **names, compare_names);
    return count;
}

void free_names(char **names, size_t count) {
    for (size_t index = 0; index < count; index++) free(names[index]);
    free(names);
}

int load_fixture(const char *name, fixture *out) {
    char path[4096];
    size_t length = 0;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name);
    join_path(path, sizeof path, RESHAPE_FIXTURES, name, "input.json");
    out->input = read_file(path, &out->input_length);
    join_path(path, sizeof path, RESHAPE_FIXTURES, name, "rules.json");
    out->rules = read_file(path, &out->rules_length);
    join_path(path, sizeof path, RESHAPE_FIXTURES, name, "expected.json");
    out->expected = read_file(path, &out->expected_length);
    join_path(path, sizeof path, RESHAPE_FIXTURES, name, "error.json");
    char *error_text = read_file(path, &length);
    out->error = error_text ? json_loads(error_text, 0, NULL) : NULL;
    free(error_text);
    join_path(path, sizeof path, RESHAPE_FIXTURES, name, "options.json");
    char *options_text = read_file(path, &length);
    json_t *options = options_text ? json_loads(options_text, 0, NULL) : NULL;
    free(options_text);
    if (json_is_true(json_object_get(options, "pretty"))) out->flags |= 0x1u;
    if (json_is_true(json_object_get(options, "allowDuplicateKeys"))) out->flags |= 0x2u;
    out->flags |= (unsigned)json_integer_value(json_object_get(options, "flags"));
    json_decref(options);
    return out->input && out->rules && (out->expected || out->error);
}

void free_fixture(fixture *fixture) {
    free(fixture->input);
    free(fixture->rules);
    free(fixture->expected);
    json_decref(fixture->error);
    memset(fixture, 0, sizeof *fixture);
}

int same_error(const reshape_error *a, const reshape_error *b) {
    return a->code == b->code && a->rule == b->rule && a->line == b->line && a->column == b->column &&
           a->position == b->position && strcmp(a->path, b->path) == 0 && strcmp(a->message, b->message) == 0 &&
           strcmp(a->op, b->op) == 0 && memcmp(a->reserved, b->reserved, sizeof a->reserved) == 0;
}

int reserved_is_zero(const reshape_error *err) {
    for (size_t index = 0; index < sizeof err->reserved; index++) {
        if (err->reserved[index] != 0) return 0;
    }
    return 1;
}

reshape_rules *compile(const char *spec) {
    reshape_rules *rules = NULL;
    reshape_error err;
    int status = reshape_rules_new(spec, strlen(spec), &rules, &err);
    CHECK(status == RESHAPE_OK, "compiling %s: %s", spec, err.message);
    return rules;
}
