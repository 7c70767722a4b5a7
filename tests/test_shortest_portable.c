/* core/shortest.c's product without 128-bit integers (what a compiler without unsigned __int128
 * builds) against the one with them: the same digits on 10^6 doubles of test_number's mix, and on
 * every power of 2 and its neighbours. */
#define PL_SHORTEST_PORTABLE 1
#define pl_shortest pl_shortest_portable
#include "core/shortest.c"
#undef pl_shortest

#include "number_reference.h"

#include "check.h"

int pl_shortest(double x, uint64_t *digits, int *exp10);

static int same_digits(double x)
{
    uint64_t a = 0, b = 0;
    int ea = 0, eb = 0;
    int na = pl_shortest(x, &a, &ea), nb = pl_shortest_portable(x, &b, &eb);
    return a == b && ea == eb && na == nb;
}

int main(void)
{
    check_init();
    long differ = 0, count = 0;
    uint64_t state = 128;
    for (long k = 0; k < 1000000; k++) {
        double x = ref_sample(&state, k);
        if (!isfinite(x) || x == 0)
            continue;
        count++;
        if (!same_digits(x) && differ++ < 10)
            CHECK(0, "%a: digits differ", x);
    }
    for (int e = -1074; e <= 1023; e++) { /* nextafter(2^-1074, 0) is 0: digits 0 from both */
        double x = ldexp(1, e);
        count += 3;
        if (!same_digits(x) || !same_digits(nextafter(x, 0)) || (e < 1023 && !same_digits(nextafter(x, INFINITY)))) {
            CHECK(0, "2^%d or a neighbour: digits differ", e);
            differ++;
        }
    }
    CHECK(differ == 0, "%ld of %ld doubles with other digits", differ, count);
    return check_finish("test_shortest_portable");
}
