/* core/shortest.c and core/number.c: the shortest digits of doubles chosen by hand (their expected
 * digits derived from the interval that reads back), %g's layout at each of its switches, and the
 * formatting against the strfromd/strtod reference it replaced (tests/number_reference.h) on
 * 10^6 doubles, pl_format_short and pl_decimal_shift on every 7th (argument 1: another count;
 * bench/bench_number runs 10^8). */
#include "number_reference.h"

#include <float.h>
#include <stdint.h>

#include "check.h"
#include "core/number.h"
#include "core/shortest.h"

static void check_digits(double x, uint64_t digits, int exp10)
{
    uint64_t d = 0;
    int e = 0;
    int n = pl_shortest(x, &d, &e);
    int want_n = 0;
    for (uint64_t p = digits; p; p /= 10)
        want_n++;
    CHECK(d == digits && e == exp10 && n == want_n, "pl_shortest(%a): %llu e%d (%d digits), expected %llue%d",
          x, (unsigned long long)d, e, n, (unsigned long long)digits, exp10);
}

static void check_text(double x, const char *want)
{
    char b[PL_NUMBER_LEN], c[PL_NUMBER_LEN];
    CHECK(strcmp(pl_format_double(x, b, sizeof b), want) == 0, "pl_format_double(%a): %s, expected %s",
          x, b, want);
    size_t length = pl_format_double_length(x, c, sizeof c);
    CHECK(strcmp(c, b) == 0 && length == strlen(c), "pl_format_double_length(%a): %s, %zu", x, c, length);
}

static void check_short(double x, const char *want)
{
    char b[PL_NUMBER_LEN];
    CHECK(strcmp(pl_format_short(x, b, sizeof b), want) == 0, "pl_format_short(%a): %s, expected %s",
          x, b, want);
}

int main(int argc, char **argv)
{
    check_init();
    long count = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;

    /* Digits: exact decimals, the nearest of several, the ends of the range. */
    check_digits(1.0, 1, 0);
    check_digits(0.3, 3, -1);
    check_digits(123.5, 1235, -1);
    check_digits(1e22, 1, 22); /* exact: 10^22 = 2^22 5^22, 5^22 < 2^53 */
    check_digits(1e23, 1, 23); /* not exact (5^23 > 2^53): the double nearest 1e23 */
    check_digits(0.1 + 0.2, 30000000000000004, -17);
    check_digits(1.0 / 3, 3333333333333333, -16);
    check_digits(DBL_MAX, 17976931348623157, 292);
    check_digits(DBL_MIN, 22250738585072014, -324);
    check_digits(5e-324, 5, -324);  /* 2^-1074 = 4.94...e-324, its interval (2.47, 7.41)e-324 */
    check_digits(1e-323, 1, -323);  /* 2^-1073 = 9.88e-324: (7.41, 12.35)e-324 holds 1e-323 */
    check_digits(9007199254740993.0, 9007199254740992, 0); /* 2^53 + 1 rounds to 2^53: 16 digits */
    check_digits(-2.5, 25, -1);                             /* the sign is ignored */
    {
        uint64_t d = 7;
        int e = 7;
        CHECK(pl_shortest(-0.0, &d, &e) == 1 && d == 0 && e == 0, "pl_shortest(-0): 1 digit, 0");
        CHECK(pl_shortest(NAN, &d, &e) == 0 && pl_shortest(-INFINITY, &d, &e) == 0 && d == 0,
              "pl_shortest(nan, -inf): no digit");
    }
    /* 2^-44 = 5.684341886080801486968994140625e-14: the upper neighbour is 2^-96 above, the lower
     * 2^-97 below, so the decimals that read back lie in (x - 2^-98, x + 2^-97) = (x - 3.2e-30,
     * x + 6.3e-30). 16 digits: 5.684341886080801e-14 is 4.9e-30 below (outside), 5.684341886080802e-14
     * 5.1e-30 above (inside): the shortest has 16 digits though %.16g, the nearest, does not read back. */
    check_digits(ldexp(1, -44), 5684341886080802, -29);

    /* Layout: %g switches to exponential notation at X < -4 and at X >= the precision (15, or the
     * digits' number when more); the exponent without '+' and leading zeros. */
    check_text(0.0, "0");
    check_text(-0.0, "-0");
    check_text(NAN, "nan");
    check_text(-NAN, "nan");
    check_text(INFINITY, "inf");
    check_text(-INFINITY, "-inf");
    check_text(1e5, "100000");
    check_text(123.5, "123.5");
    check_text(-123.5, "-123.5");
    check_text(0.001, "0.001");
    check_text(1e-4, "0.0001");                   /* X = -4: fixed */
    check_text(1.5e-4, "0.00015");
    check_text(1e-5, "1e-5");                     /* X = -5: exponential */
    check_text(-2.5e-7, "-2.5e-7");
    check_text(1e14, "100000000000000");          /* X = 14 < 15 */
    check_text(1e15, "1e15");                     /* X = 15 >= 15 */
    check_text(123456789012345.0, "123456789012345");
    check_text(1234567890123456.0, "1234567890123456"); /* 16 digits: X = 15 < 16 */
    check_text(1234567890123450.0, "1.23456789012345e15"); /* 15 digits: X = 15 >= 15 */
    check_text(12345678901234567.0, "12345678901234568"); /* 17 digits, X = 16 < 17 */
    check_text(123456789012345678.0, "1.2345678901234568e17");
    check_text(0.1 + 0.2, "0.30000000000000004");
    check_text(1.0 / 3, "0.3333333333333333");
    check_text(1e22, "1e22");
    check_text(1e100, "1e100");
    check_text(DBL_MAX, "1.7976931348623157e308");
    check_text(-DBL_MIN, "-2.2250738585072014e-308");
    check_text(5e-324, "5e-324");              /* the reference: 4.94065645841247e-324 */
    check_text(ldexp(1, -44), "5.684341886080802e-14"); /* the reference: 5.6843418860808015e-14 */
    check_text(1000.0000000000007, "1000.0000000000007");
    {
        char b[5];
        CHECK(strcmp(pl_format_double(DBL_MAX, b, sizeof b), "1.79") == 0, "cut to the buffer: %s", b);
        CHECK(pl_format_double(1.5, b, 0) == b, "no buffer at all");
        CHECK(pl_format_double_length(DBL_MAX, b, sizeof b) == 4 && strcmp(b, "1.79") == 0 &&
                  pl_format_double_length(1.5, b, 0) == 0,
              "the length of what was written: cut, or nothing");
    }
    check_short(1e10, "1e10");
    check_short(100, "1e2");   /* as short as "100": the fewest digits */
    check_short(10, "10");     /* "1e1" is longer */
    check_short(1500, "1500");
    check_short(0.001, "0.001");
    check_short(2.5e-7, "2.5e-7");
    check_short(1e-5, "1e-5");
    check_short(123456789.0, "123456789");
    check_short(-0.0, "-0");
    check_short(NAN, "nan");
    double y = 0;
    CHECK(pl_decimal_shift(3, -1, &y) && y == 0.3, "3 * 10^-1 = 0.3, got %.17g", y);
    CHECK(pl_decimal_shift(0.1 + 0.2, 1, &y) && y == 3.0000000000000004, "(0.1 + 0.2) * 10, got %.17g", y);
    CHECK(pl_decimal_shift(-0.0, 3, &y) && y == 0 && signbit(y), "-0 stays -0");
    CHECK(!pl_decimal_shift(1e300, 10, &y) && !pl_decimal_shift(5e-324, -1, &y) &&
              !pl_decimal_shift(NAN, 0, &y),
          "overflow, underflow to 0 and NaN are refused");

    /* Against the reference: every difference reads back and is no longer, and is of a class
     * docs/formats.md names; the bit patterns are drawn the same on every run. */
    long counts[3][REF_CLASSES] = {{0}};
    uint64_t state = 22;
    int wrong = 0;
    for (long k = 0; k < count; k++) {
        double x = ref_sample(&state, k);
        char why[256];
        if (!ref_compare(x, (int)(k % 41) - 20, k % 7 == 0, counts, why, sizeof why) && wrong++ < 10)
            CHECK(0, "%s", why);
    }
    CHECK(wrong == 0, "%d of %ld doubles formatted unlike the reference outside the named classes",
          wrong, count);
    static const char *const names[3] = {"pl_format_double", "pl_format_short", "pl_decimal_shift"};
    for (int f = 0; f < 3; f++)
        printf("%s on %ld doubles: %ld as the reference, %ld shorter subnormals, %ld shorter powers of 2, "
               "%ld wrong\n",
               names[f], counts[f][REF_SAME] + counts[f][REF_SUBNORMAL] + counts[f][REF_POWER_OF_2] +
                             counts[f][REF_WRONG],
               counts[f][REF_SAME], counts[f][REF_SUBNORMAL], counts[f][REF_POWER_OF_2],
               counts[f][REF_WRONG]);
    /* the mix reaches both classes, so the counts above say something */
    CHECK(count < 100000 || (counts[0][REF_SUBNORMAL] > 0 && counts[0][REF_POWER_OF_2] > 0),
          "the sample has subnormals and powers of 2 that differ");
    /* Round values for default grids: 1, 2 or 5 x 10^k at or above x, or at or below it, as decimals. */
    CHECK(pl_round_125(0.028489215748638493, 1) == 0.05 && pl_round_125(0.028489215748638493, 0) == 0.02,
          "0.0285: up 0.05, down 0.02");
    CHECK(pl_round_125(0.009009081051763668, 1) == 0.01 && pl_round_125(2.8489215748638476e-5, 1) == 5e-5,
          "0.009 up 0.01, 2.85e-5 up 5e-5");
    CHECK(pl_round_125(0.05, 1) == 0.05 && pl_round_125(0.05, 0) == 0.05 && pl_round_125(2e-5, 0) == 2e-5,
          "a round value is itself");
    CHECK(pl_round_125(7.0, 1) == 10.0 && pl_round_125(7.0, 0) == 5.0 && pl_round_125(1.5e300, 1) == 2e300,
          "7: up 10, down 5; 1.5e300 up 2e300");
    CHECK(pl_round_125(0.0, 1) == 0.0 && isnan(pl_round_125(NAN, 1)) && pl_round_125(-3.0, 1) == -3.0,
          "0, nan and negatives as given");
    return check_finish("test_number");
}
