/* Small helpers shared by the C tests. */
#ifndef RESHAPE_TEST_SUPPORT_H
#define RESHAPE_TEST_SUPPORT_H

#include <stddef.h>

#include "reshape.h"

/* Counts failed checks; each test's main returns test_exit_status(). */
extern int test_failures;
extern int test_checks;

#define CHECK(condition, ...)                                                           \
    do {                                                                                \
        test_checks++;                                                                  \
        if (!(condition)) {                                                             \
            test_failures++;                                                            \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #condition); \
            fprintf(stderr, __VA_ARGS__);                                               \
            fputc('\n', stderr);                                                        \
        }                                                                               \
    } while (0)

/* Compiles a rules document, counting a failed check if it does not compile. */
reshape_rules *compile(const char *spec);

/* Reads a whole file; NULL if it does not exist. The caller frees the result with free(). */
char *read_file(const char *path, size_t *length);

/* "dir/name/file" into buffer. */
void join_path(char *buffer, size_t size, const char *dir, const char *name, const char *file);

/* One case of Tests/Fixtures (see Tests/FixtureSupport/Fixture.swift for the format). */
typedef struct fixture {
    char name[256];
    char *input, *rules, *expected; /* expected is NULL when the case expects an error */
    size_t input_length, rules_length, expected_length;
    void *error;                    /* the parsed error.json (a json_t *), or NULL */
    unsigned flags;                 /* from options.json */
} fixture;

/* The names of every fixture, sorted; returns the count. Free with free_names(). */
size_t list_fixtures(char ***names);
void free_names(char **names, size_t count);

/* Loads a fixture; returns 0 if its files are incomplete. Free with free_fixture(). */
int load_fixture(const char *name, fixture *out);
void free_fixture(fixture *fixture);

/* 1 when two errors say the same in every field, reserved bytes included. */
int same_error(const reshape_error *a, const reshape_error *b);

/* 1 when every reserved byte of err is 0, as the library leaves them. */
int reserved_is_zero(const reshape_error *err);

/* Runs one fixture, checking its exact output or error (fixture_runner.c). */
void run_fixture(const fixture *fixture);

/* Runs every fixture; returns how many there are (fixture_runner.c). */
size_t run_all_fixtures(void);

/* Prints a summary and returns the exit status. */
int test_exit_status(const char *name);

#endif
