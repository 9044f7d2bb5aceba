/*
 * hypotf for libreshape, so that the library needs no glibc newer than 2.34.
 *
 * The newest glibc symbol a library needs sets the oldest system it runs on, and the Python
 * wheel's manylinux tag. libreshape needs glibc 2.34 (pthread and dl symbols) except for one
 * symbol: hypotf@GLIBC_2.35, which the Swift runtime's static libswiftGlibc.a references (its
 * Float overlay); the engine never calls it. This definition satisfies that reference inside the
 * library (cmake/reshape.map keeps it local), so libreshape runs on glibc 2.34: RHEL 9, Amazon
 * Linux 2023 and AWS Lambda's current runtimes among them. (glibc's hypot is versioned 2.35 too,
 * so it cannot stand in.)
 *
 * In double precision nothing overflows, underflows or rounds before the square root: a float's
 * square needs 48 significant bits and at most 2^256, which a double holds exactly, and the sum
 * rounds once. Infinities win over NaN, as C's Annex F asks of hypot.
 */
#include <math.h>

float hypotf(float x, float y) {
    if (isinf(x) || isinf(y)) return INFINITY;
    double dx = (double)x, dy = (double)y;
    return (float)sqrt(dx * dx + dy * dy);
}
