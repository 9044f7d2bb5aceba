/* Many threads share compiled reshape_rules, compile their own, and free their outputs. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reshape.h"
#include "test_support.h"

#define THREADS 8
#define ROUNDS 400

static reshape_rules *shared;
/* Rules for a collection at the root: small documents take the text route, whose buffers
   are pooled and shared between calls. */
static reshape_rules *shared_root;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

static void *work(void *argument) {
    long worker = (long)argument;
    int failures = 0;
    for (int round = 0; round < ROUNDS; round++) {
        char input[256], expected[256];
        snprintf(input, sizeof input, "{\"users\": {\"u%ld_%d\": {\"full_name\": \"N%d\", \"avatar\": {}}}}", worker, round, round);
        snprintf(expected, sizeof expected, "{\"users\":[{\"uid\":\"u%ld_%d\",\"fullName\":\"N%d\",\"avatar\":null}]}", worker,
                 round, round);
        char *out = NULL;
        reshape_error err;
        if (reshape_apply(shared, input, strlen(input), 0, &out, NULL, &err) != RESHAPE_OK || strcmp(out, expected) != 0) {
            failures++;
        }
        reshape_free(out);

        snprintf(input, sizeof input, "{\"u%ld_%d\": {\"full_name\": \"N%d\", \"avatar\": {}, \"is_new\": true}}", worker, round,
                 round);
        snprintf(expected, sizeof expected, "{\"users\":[{\"uid\":\"u%ld_%d\",\"fullName\":\"N%d\",\"avatar\":null,\"isNew\":true}]}",
                 worker, round, round);
        out = NULL;
        if (reshape_apply(shared_root, input, strlen(input), 0, &out, NULL, &err) != RESHAPE_OK || strcmp(out, expected) != 0) {
            failures++;
        }
        reshape_free(out);

        /* Compiling concurrently is fine too. */
        reshape_rules *own = NULL;
        if (reshape_rules_new("[{\"op\": \"wrap\", \"key\": \"w\"}]", 28, &own, &err) != RESHAPE_OK) failures++;
        reshape_rules_free(own);
    }
    pthread_mutex_lock(&report_lock);
    CHECK(failures == 0, "worker %ld: %d failures", worker, failures);
    pthread_mutex_unlock(&report_lock);
    return NULL;
}

int main(void) {
    const char *spec = "[{\"op\": \"keyedToArray\", \"path\": \"$.users\", \"idKey\": \"uid\"}, {\"op\": \"emptyObjectToNull\"},"
                       " {\"op\": \"convertKeys\"}]";
    reshape_error err;
    CHECK(reshape_rules_new(spec, strlen(spec), &shared, &err) == RESHAPE_OK, "%s", err.message);
    const char *root_spec = "[{\"op\": \"keyedToArray\", \"idKey\": \"uid\", \"wrapIn\": \"users\"}, {\"op\": \"emptyObjectToNull\"},"
                            " {\"op\": \"convertKeys\"}]";
    CHECK(reshape_rules_new(root_spec, strlen(root_spec), &shared_root, &err) == RESHAPE_OK, "%s", err.message);
    pthread_t threads[THREADS];
    for (long worker = 0; worker < THREADS; worker++) pthread_create(&threads[worker], NULL, work, (void *)worker);
    for (int worker = 0; worker < THREADS; worker++) pthread_join(threads[worker], NULL);
    reshape_rules_free(shared);
    reshape_rules_free(shared_root);
    return test_exit_status("test_threads");
}
