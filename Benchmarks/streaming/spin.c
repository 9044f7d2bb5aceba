/* A fixed amount of work for run.py's probe of how much two cores give on this machine at the time
 * of a run: one copy alone, then two at once. On a quiet machine with two real cores, two copies
 * take as long as one.
 *
 *   spin cpu      a xorshift loop: no memory traffic, no system calls (shared cores, stolen time)
 *   spin memory   copies between two 64 MiB buffers (memory bandwidth and caches shared with
 *                 the machine's neighbours)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "memory") == 0) {
        size_t size = (size_t)64 << 20;
        char *a = malloc(size), *b = malloc(size);
        if (!a || !b) return 1;
        memset(a, 1, size);
        memset(b, 2, size);
        for (int i = 0; i < 40; i++) memcpy(i & 1 ? a : b, i & 1 ? b : a, size);
        printf("%d\n", a[5] + b[7]); /* used, so the copies are not optimized away */
        return 0;
    }
    uint64_t x = 88172645463325252ULL;
    for (long i = 0; i < 300000000L; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    printf("%llu\n", (unsigned long long)(x & 1)); /* used, so the loop is not optimized away */
    return 0;
}
