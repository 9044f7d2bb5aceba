/*
 * small_response.c - the cost of one reshape_apply() on a small API response.
 *
 * The other end of the "large payloads" work: a 433-byte Firebase response with 3 records
 * (small_response.json) and the rules an API client would use (small_rules.json: keyedToArray,
 * emptyObjectToNull, convertKeys to camelCase). Compiles the rules once, applies them once and
 * prints the output (run.py checks it against the orjson script's), warms up, then times ROUNDS
 * rounds of CALLS calls of reshape_apply() + reshape_free() and prints microseconds per call: the
 * best round (the least disturbed by the machine) and the median round.
 *
 *     cc -O2 -std=c11 -I include Benchmarks/streaming/small_response.c \
 *        -L build/lib -lreshape -Wl,-rpath,build/lib -o small_response
 *     ./small_response small_rules.json small_response.json [CALLS [ROUNDS]]
 *
 * Output, one "name: value" per line: output, bytes, calls, rounds, us_per_call_best,
 * us_per_call_median.
 */
#define _POSIX_C_SOURCE 200809L

#include <reshape.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Reads a whole file; exits on failure. */
static char *read_file(const char *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        perror(path);
        exit(2);
    }
    size_t capacity = 4096, used = 0;
    char *bytes = malloc(capacity);
    size_t got;
    while (bytes != NULL && (got = fread(bytes + used, 1, capacity - used, file)) > 0) {
        used += got;
        if (used == capacity) {
            capacity *= 2;
            bytes = realloc(bytes, capacity);
        }
    }
    if (bytes == NULL || ferror(file)) {
        fprintf(stderr, "%s: cannot read\n", path);
        exit(2);
    }
    fclose(file);
    *length = used;
    return bytes;
}

static double now_seconds(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (double)time.tv_sec + (double)time.tv_nsec * 1e-9;
}

static int compare_doubles(const void *left, const void *right) {
    double a = *(const double *)left, b = *(const double *)right;
    return (a > b) - (a < b);
}

/* One apply and free; exits on any error, so a failing call is never timed as a fast one. */
static void apply_once(const reshape_rules *rules, const char *input, size_t input_len) {
    char *output = NULL;
    size_t output_len = 0;
    reshape_error error;
    if (reshape_apply(rules, input, input_len, 0, &output, &output_len, &error) != RESHAPE_OK) {
        fprintf(stderr, "reshape_apply: %s\n", error.message);
        exit(1);
    }
    reshape_free(output);
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: %s RULES.json INPUT.json [CALLS [ROUNDS]]\n", argv[0]);
        return 2;
    }
    long calls = argc > 3 ? atol(argv[3]) : 20000;
    int rounds = argc > 4 ? atoi(argv[4]) : 7;
    if (calls <= 0 || rounds <= 0) {
        fprintf(stderr, "CALLS and ROUNDS must be positive\n");
        return 2;
    }

    size_t spec_len = 0, input_len = 0;
    char *spec = read_file(argv[1], &spec_len);
    char *input = read_file(argv[2], &input_len);

    reshape_rules *rules = NULL;
    reshape_error error;
    if (reshape_rules_new(spec, spec_len, &rules, &error) != RESHAPE_OK) {
        fprintf(stderr, "reshape_rules_new: %s\n", error.message);
        return 1;
    }

    /* The output once, for the equality check. */
    char *output = NULL;
    size_t output_len = 0;
    if (reshape_apply(rules, input, input_len, 0, &output, &output_len, &error) != RESHAPE_OK) {
        fprintf(stderr, "reshape_apply: %s\n", error.message);
        return 1;
    }
    printf("output: %s\n", output);
    reshape_free(output);

    /* Warm-up: caches, branch predictors, the allocator's free lists. */
    for (long call = 0; call < calls / 4 + 1; call++) {
        apply_once(rules, input, input_len);
    }

    double *per_call = malloc(sizeof(double) * (size_t)rounds);
    if (per_call == NULL) {
        return 1;
    }
    for (int round = 0; round < rounds; round++) {
        double start = now_seconds();
        for (long call = 0; call < calls; call++) {
            apply_once(rules, input, input_len);
        }
        per_call[round] = (now_seconds() - start) / (double)calls * 1e6;
    }
    qsort(per_call, (size_t)rounds, sizeof(double), compare_doubles);

    printf("bytes: %zu\ncalls: %ld\nrounds: %d\n", input_len, calls, rounds);
    printf("us_per_call_best: %.3f\nus_per_call_median: %.3f\n", per_call[0], per_call[rounds / 2]);

    free(per_call);
    reshape_rules_free(rules);
    free(spec);
    free(input);
    return 0;
}
