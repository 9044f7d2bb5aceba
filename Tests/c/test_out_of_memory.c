/* Out of memory is a status, not a crash, and nothing leaks on the way out. jansson's allocator is
   replaced by one that fails after N allocations and counts live blocks; every fixture is run for
   every N until it completes, so each op's cleanup path meets a failure at every allocation it
   makes. (This process is jansson's only user, so replacing its allocator is safe here.) */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reshape.h"
#include "test_support.h"

static long allowed;
static long live;

static void *limited_malloc(size_t size) {
    if (allowed == 0) return NULL;
    if (allowed > 0) allowed--;
    void *block = malloc(size);
    if (block) live++;
    return block;
}

static void counted_free(void *block) {
    if (block) live--;
    free(block);
}

/* Runs a fixture with `limit` jansson allocations allowed; returns 1 once it ran to completion. */
static int run_limited(const fixture *fixture, long limit, long *failure_points) {
    allowed = limit;
    live = 0;
    reshape_rules *rules = NULL;
    reshape_error err;
    int status = reshape_rules_new(fixture->rules, fixture->rules_length, &rules, &err);
    if (status == RESHAPE_OK) {
        char *out = NULL;
        status = reshape_apply(rules, fixture->input, fixture->input_length, fixture->flags, &out, NULL, &err);
        reshape_free(out);
        reshape_rules_free(rules);
    }
    CHECK(live == 0, "%s, limit %ld: %ld jansson blocks leaked", fixture->name, limit, live);
    if (status == RESHAPE_OUT_OF_MEMORY) {
        size_t length = strlen(err.message);
        CHECK(strncmp(err.message, "out_of_memory: ", 15) == 0 && length > 13 &&
                  strcmp(err.message + length - 13, "out of memory") == 0,
              "%s, limit %ld: %s", fixture->name, limit, err.message);
        (*failure_points)++;
        return 0;
    }
    /* With enough memory the fixture's own outcome comes back, success or its expected error. */
    CHECK((status == RESHAPE_OK) == (fixture->expected != NULL), "%s, limit %ld: status %d (%s)", fixture->name, limit,
          status, status ? err.message : "ok");
    return 1;
}

int main(void) {
    json_set_alloc_funcs(limited_malloc, counted_free);
    char **names = NULL;
    size_t count = list_fixtures(&names);
    long failure_points = 0;
    for (size_t index = 0; index < count; index++) {
        fixture fixture;
        allowed = -1; /* Loading the fixture itself (jansson reads its JSON files) must not fail. */
        if (!load_fixture(names[index], &fixture)) continue;
        int completed = 0;
        for (long limit = 0; limit < 200000 && !completed; limit++) completed = run_limited(&fixture, limit, &failure_points);
        CHECK(completed, "%s never completed", fixture.name);
        allowed = -1;
        free_fixture(&fixture);
    }
    free_names(names, count);
    CHECK(failure_points > 1000, "only %ld failing allocations exercised", failure_points);
    printf("%ld out-of-memory points in %zu fixtures checked\n", failure_points, count);
    return test_exit_status("test_out_of_memory");
}
