/* Sources/CGlibcCompat/hypotf.c, the hypotf libreshape carries so that it needs no glibc 2.35:
 * within one float ulp of the correctly rounded result (long double hypot as the reference),
 * exact on the special values C's Annex F names. Built with that file: the library keeps the
 * symbol local, so it cannot be called through libreshape. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

float hypotf(float x, float y);

static uint32_t bits(float value) {
    uint32_t out;
    memcpy(&out, &value, sizeof out);
    return out;
}

static int failures = 0;

static void check(float x, float y) {
    float got = hypotf(x, y);
    float want = (float)hypotl((long double)x, (long double)y);
    uint32_t a = bits(got), b = bits(want);
    uint32_t distance = a > b ? a - b : b - a;
    if (isnan(want) ? !isnan(got) : distance > 1) {
        printf("hypotf(%a, %a) = %a, expected %a\n", x, y, got, want);
        failures++;
    }
}

int main(void) {
    /* Infinities win over NaN; NaN otherwise; zeros and signs. */
    if (hypotf(INFINITY, NAN) != INFINITY || hypotf(NAN, -INFINITY) != INFINITY) {
        printf("an infinity must win over NaN\n");
        failures++;
    }
    if (!isnan(hypotf(NAN, 1.0f)) || hypotf(-0.0f, 0.0f) != 0.0f || signbit(hypotf(-0.0f, -0.0f))) {
        printf("NaN, or the zeros, went wrong\n");
        failures++;
    }
    const float edges[] = {0.0f, 1.0f, 3.0f, 4.0f, 0x1p-149f, 0x1p-126f, 0x1.fffffep127f, 1e-30f, 1e30f, -2.5f};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        for (size_t j = 0; j < sizeof edges / sizeof edges[0]; j++) check(edges[i], edges[j]);
    if (hypotf(3.0f, 4.0f) != 5.0f) {
        printf("hypotf(3, 4) must be 5\n");
        failures++;
    }
    /* Seeded values across every exponent. */
    uint32_t state = 12345;
    for (int n = 0; n < 200000; n++) {
        state = state * 1664525u + 1013904223u;
        uint32_t u = state;
        state = state * 1664525u + 1013904223u;
        uint32_t v = state;
        float x, y;
        u &= 0x7f7fffffu; /* finite */
        v &= 0x7f7fffffu;
        memcpy(&x, &u, sizeof x);
        memcpy(&y, &v, sizeof y);
        check(x, y);
    }
    if (failures) printf("%d failures\n", failures);
    else printf("hypotf: special values exact, 200,100 pairs within one ulp\n");
    return failures ? 1 : 0;
}
