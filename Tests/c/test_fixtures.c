/* Every case of Tests/Fixtures through reshape_rules_new and reshape_apply: the exact output
   bytes, or the exact error (code, rule, path, line, column, position, message). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reshape.h"
#include "test_support.h"

int main(void) {
    size_t count = run_all_fixtures();
    CHECK(count >= 60, "only %zu fixtures", count);
    printf("%zu fixtures\n", count);
    return test_exit_status("test_fixtures");
}
