/* strfromd (ISO/IEC TS 18661-1, in glibc since 2.25), where the C library declares it */
#define __STDC_WANT_IEC_60559_BFP_EXT__ 1
#include "core/number.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1e+05 -> 1e5, 2.5e-07 -> 2.5e-7: the same number, fewer characters. */
static void tidy_exponent(char *s)
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

/* x as "%.{digits}g" (1 <= digits <= 17): by strfromd where the C library has it, the same
 * characters without printf's parsing of its format, in half the time (a run's trajectories, written
 * this way number by number, were 90% of the instructions of `penlim run bouncing_ball`). */
static void print_g(char *buf, size_t len, int digits, double x)
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

static char *format_from(double x, char *buf, size_t len, int first)
{
    if (!isfinite(x)) {
        snprintf(buf, len, "%s", isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
        return buf;
    }
    for (int p = first; p <= 17; p++) {
        print_g(buf, len, p, x);
        if (p == 17 || strtod(buf, NULL) == x)
            break;
    }
    tidy_exponent(buf);
    return buf;
}

char *pl_format_double(double x, char *buf, size_t len)
{
    return format_from(x, buf, len, 15);
}

char *pl_format_short(double x, char *buf, size_t len)
{
    /* the fewest digits (1e2, 1e8), unless the plain form is shorter (10, 1500, not 1e1, 1.5e3) */
    char plain[PL_NUMBER_LEN];
    format_from(x, plain, sizeof plain, 15);
    format_from(x, buf, len, 1);
    if (strlen(plain) < strlen(buf))
        snprintf(buf, len, "%s", plain);
    return buf;
}

char *pl_format_down(double x, int digits, char *buf, size_t len)
{
    if (!(isfinite(x) && x > 0.0) || digits < 1 || digits > 17)
        return pl_format_short(x, buf, len);
    /* x's decimal expansion (glibc prints the exact digits), its mantissa cut after `digits`
     * digits: toward zero, i.e. down; the double nearest that decimal is then <= x */
    char exact[80], cut[80];
    snprintf(exact, sizeof exact, "%.50e", x);
    const char *e = strchr(exact, 'e');
    size_t keep = digits == 1 ? 1 : (size_t)digits + 1; /* "d" or "d.ddd" */
    snprintf(cut, sizeof cut, "%.*s%s", (int)keep, exact, e ? e : "");
    double down = strtod(cut, NULL);
    return pl_format_short(down <= x ? down : x, buf, len); /* x itself should the cut ever round up */
}

int pl_decimal_shift(double x, int d, double *out)
{
    if (!isfinite(x))
        return 0;
    /* shortest digits of x in e-notation, then the exponent moved by d: one rounding, in strtod */
    char digits[PL_NUMBER_LEN];
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
    char text[2 * PL_NUMBER_LEN];
    snprintf(text, sizeof text, "%se%ld", digits, exp10);
    double y = strtod(text, NULL);
    if (!isfinite(y) || (y == 0) != (x == 0))
        return 0;
    *out = y;
    return 1;
}
