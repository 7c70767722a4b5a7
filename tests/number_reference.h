/* The reference for core/number.c's formatting: the implementation it replaced, by the C library's
 * strfromd and strtod, kept to compare against (tests/test_number.c, bench/bench_number.c).  Include
 * first: it asks the C library for strfromd (ISO/IEC TS 18661-1, in glibc since 2.25). */
#ifndef PL_NUMBER_REFERENCE_H
#define PL_NUMBER_REFERENCE_H

#define __STDC_WANT_IEC_60559_BFP_EXT__ 1
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1e+05 -> 1e5, 2.5e-07 -> 2.5e-7 */
static inline void ref_tidy_exponent(char *s)
{
    char *e = strchr(s, 'e');
    if (!e)
        return;
    char *p = e + 1, *w = e + 1;
    if (*p == '+')
        p++;
    else if (*p == '-')
        *w++ = *p++;
    while (*p == '0' && p[1])
        p++;
    memmove(w, p, strlen(p) + 1);
}

static inline void ref_print_g(char *buf, size_t len, int digits, double x)
{
#ifdef __STDC_IEC_60559_BFP__
    static const char *const formats[] = {"%.0g",  "%.1g",  "%.2g",  "%.3g",  "%.4g",  "%.5g",
                                          "%.6g",  "%.7g",  "%.8g",  "%.9g",  "%.10g", "%.11g",
                                          "%.12g", "%.13g", "%.14g", "%.15g", "%.16g", "%.17g"};
    strfromd(buf, len, formats[digits], x);
#else
    snprintf(buf, len, "%.*g", digits, x);
#endif
}

/* The first of "%.{first}g" ... "%.17g" that strtod reads back as x, exponent tidied. */
static inline char *ref_format_from(double x, char *buf, size_t len, int first)
{
    if (!isfinite(x)) {
        snprintf(buf, len, "%s", isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
        return buf;
    }
    for (int p = first; p <= 17; p++) {
        ref_print_g(buf, len, p, x);
        if (p == 17 || strtod(buf, NULL) == x)
            break;
    }
    ref_tidy_exponent(buf);
    return buf;
}

static inline char *ref_format_double(double x, char *buf, size_t len)
{
    return ref_format_from(x, buf, len, 15);
}

static inline char *ref_format_short(double x, char *buf, size_t len)
{
    char plain[32];
    ref_format_from(x, plain, sizeof plain, 15);
    ref_format_from(x, buf, len, 1);
    if (strlen(plain) < strlen(buf))
        snprintf(buf, len, "%s", plain);
    return buf;
}

static inline int ref_decimal_shift(double x, int d, double *out)
{
    if (!isfinite(x))
        return 0;
    char digits[32];
    for (int p = 0; p <= 16; p++) {
        snprintf(digits, sizeof digits, "%.*e", p, x);
        if (strtod(digits, NULL) == x)
            break;
    }
    char *e = strchr(digits, 'e');
    if (!e)
        return 0;
    long exp10 = strtol(e + 1, NULL, 10) + d;
    *e = '\0';
    char text[64];
    snprintf(text, sizeof text, "%se%ld", digits, exp10);
    double y = strtod(text, NULL);
    if (!isfinite(y) || (y == 0) != (x == 0))
        return 0;
    *out = y;
    return 1;
}

/* ---- core/number.c against the reference, one double at a time ---- */
#include <float.h>
#include <stdint.h>

#include "core/number.h"

/* Where the two may differ (docs/formats.md): the new text reads back as x and is no longer. */
enum ref_class {
    REF_SAME,      /* the same text */
    REF_SUBNORMAL, /* |x| < DBL_MIN: %.15g is not the shortest (fewer than 53 bits) */
    REF_POWER_OF_2, /* x = 2^k: the nearest decimal of the shortest length fell in the narrow
                       lower half of the interval that reads back, another in the upper half */
    REF_WRONG,     /* anything else: a defect */
    REF_CLASSES
};

/* Significant digits of a number's text ("0.00120" -> 2, "1.5e7" -> 2, "100" -> 1). */
static inline int ref_digits(const char *s)
{
    char d[40];
    int n = 0;
    for (; *s && *s != 'e'; s++)
        if (*s >= '0' && *s <= '9' && n < 39)
            d[n++] = *s;
    int a = 0;
    while (a < n && d[a] == '0')
        a++;
    while (n > a && d[n - 1] == '0')
        n--;
    return n > a ? n - a : 1;
}

static inline int ref_same_double(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

static inline enum ref_class ref_classify(double x, const char *got, const char *want)
{
    if (strcmp(got, want) == 0)
        return REF_SAME;
    if (!ref_same_double(strtod(got, NULL), x) || strlen(got) > strlen(want) ||
        ref_digits(got) > ref_digits(want))
        return REF_WRONG;
    if (x != 0 && fabs(x) < DBL_MIN)
        return REF_SUBNORMAL;
    int e;
    if (isfinite(x) && fabs(frexp(x, &e)) == 0.5 && ref_digits(got) < ref_digits(want))
        return REF_POWER_OF_2;
    return REF_WRONG;
}

/* pl_format_double, and with `all` pl_format_short and pl_decimal_shift (by 10^d), of x against the
 * reference (the latter two cost it up to 17 tries): counts[0..2][class]; on REF_WRONG the texts go
 * to `why`.  Returns 0 when any is REF_WRONG. */
static inline int ref_compare(double x, int d, int all, long counts[3][REF_CLASSES], char *why, size_t why_len)
{
    char got[32], want[32];
    int ok = 1;
    enum ref_class c = ref_classify(x, pl_format_double(x, got, sizeof got),
                                    ref_format_double(x, want, sizeof want));
    counts[0][c]++;
    if (c == REF_WRONG) {
        snprintf(why, why_len, "pl_format_double(%a): %s, reference %s", x, got, want);
        ok = 0;
    }
    if (!all)
        return ok;
    c = ref_classify(x, pl_format_short(x, got, sizeof got), ref_format_short(x, want, sizeof want));
    counts[1][c]++;
    if (c == REF_WRONG && ok) {
        snprintf(why, why_len, "pl_format_short(%a): %s, reference %s", x, got, want);
        ok = 0;
    }
    double y = 0, r = 0;
    int gy = pl_decimal_shift(x, d, &y), gr = ref_decimal_shift(x, d, &r);
    if (gy == gr && (!gy || ref_same_double(y, r)))
        c = REF_SAME;
    else {
        /* the shifted shortest digits: differ only where the digits do */
        char a[32], b[32];
        ref_format_short(x, b, sizeof b);
        pl_format_short(x, a, sizeof a);
        c = strcmp(a, b) != 0 ? ref_classify(x, a, b) : REF_WRONG;
    }
    counts[2][c]++;
    if (c == REF_WRONG && ok) {
        snprintf(why, why_len, "pl_decimal_shift(%a, %d): %d %a, reference %d %a", x, d, gy, y, gr, r);
        ok = 0;
    }
    return ok;
}

/* splitmix64 (S. Vigna): the test's bit patterns, the same on every machine */
static inline uint64_t ref_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* The k-th double of the mix the comparison draws from: random bit patterns (every exponent,
 * subnormals, NaNs), small integers, decimals as users write them (digits * 10^e), their sums and
 * quotients as a run computes them, and powers of 2 of every exponent. */
static inline double ref_sample(uint64_t *state, long k)
{
    uint64_t r = ref_next(state);
    double x;
    switch (k % 8) {
    case 0: case 1: case 2: case 3: /* any bit pattern */
        memcpy(&x, &r, sizeof x);
        return x;
    case 4: /* integers up to 2^53 and small ones */
        return (double)((r >> 11) >> (r & 63));
    case 5: { /* d.ddd * 10^e, up to 17 digits: a decimal a user writes */
        char t[48];
        snprintf(t, sizeof t, "%llue%d", (unsigned long long)((r >> 8) % 100000000000000000ull >> (r & 31)),
                 (int)((r >> 5) % 660) - 340);
        return strtod(t, NULL);
    }
    case 6: { /* arithmetic on decimals: a time i * h, a quotient, a root */
        double a = (double)(r % 1000000) / 1000.0, b = (double)((r >> 20) % 1000 + 1);
        int op = (int)(r >> 60) & 3;
        return op == 0 ? a / b : op == 1 ? a * 0.1 + b * 1e-3 : op == 2 ? sqrt(a) : a / 3 - b;
    }
    default: { /* 2^k, every k of the subnormals and normals, and its neighbours */
        int e = (int)(r % 2098) - 1074;
        x = ldexp(1.0, e);
        int side = (int)(r >> 40) % 3;
        return side == 0 ? x : side == 1 ? nextafter(x, 0) : nextafter(x, INFINITY);
    }
    }
}

#endif
