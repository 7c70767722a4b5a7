#include "core/number.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/shortest.h"

/* Room for the longest text (24 characters and the NUL) and for the fixed-size copies below, which
 * may write past the text's end. */
#define TEXT_ROOM 64

/* The n decimal digits of v (n <= 24): eight at a time in 64 bits, then two at a time in 32. */
static void write_digits(char *d, uint64_t v, int n)
{
    static const char pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                "8081828384858687888990919293949596979899";
    int k = n;
    while (k > 8) {
        uint32_t chunk = (uint32_t)(v % 100000000u);
        v /= 100000000u;
        for (int j = 0; j < 4; j++) {
            k -= 2;
            memcpy(d + k, pairs + 2 * (chunk % 100), 2);
            chunk /= 100;
        }
    }
    uint32_t rest = (uint32_t)v;
    for (; k >= 2; rest /= 100) {
        k -= 2;
        memcpy(d + k, pairs + 2 * (rest % 100), 2);
    }
    if (k == 1)
        d[0] = (char)('0' + rest);
}

/* The text "%.{precision}g" prints for digits * 10^exp10 (n digits, no trailing zero, precision >= n,
 * so that %g's rounding leaves them as they are), with the exponent as tidy as the number allows
 * (1e5, 2.5e-7, not 1e+05, 2.5e-07).  %g's rule (C11 7.21.6.1): with X the exponent of the first
 * digit, exponential notation when X < -4 or X >= precision, else fixed; trailing zeros and a
 * trailing point removed.  out has TEXT_ROOM characters.  Returns the length (at most 24). */
static int layout(char *out, bool negative, uint64_t digits, int n, int exp10, int precision)
{
    char d[40] = {0}; /* the copies below read up to 32 characters */
    write_digits(d, digits, n);
    const int x = exp10 + n - 1;
    char *w = out;
    *w = '-';
    w += negative;
    if (x < -4 || x >= precision) { /* d.ddde-x */
        w[0] = d[0];
        w[1] = '.';
        memcpy(w + 2, d + 1, 16);
        w += n > 1 ? n + 1 : 1;
        *w++ = 'e';
        int e = x;
        if (e < 0) {
            *w++ = '-';
            e = -e;
        }
        if (e >= 100)
            *w++ = (char)('0' + e / 100);
        if (e >= 10)
            *w++ = (char)('0' + e / 10 % 10);
        *w++ = (char)('0' + e % 10);
    } else if (x >= n - 1) { /* ddd000: x < precision <= 17 */
        memcpy(w, d, 17);
        memset(w + n, '0', 16);
        w += x + 1;
    } else if (x >= 0) { /* ddd.ddd */
        memcpy(w, d, 17);
        w[x + 1] = '.';
        memcpy(w + x + 2, d + x + 1, 16);
        w += n + 1;
    } else { /* 0.000ddd: x >= -4 */
        memcpy(w, "0.000", 5);
        w += 1 - x;
        memcpy(w, d, 17);
        w += n;
    }
    *w = '\0';
    return (int)(w - out);
}

/* out into buf as snprintf would (cut to len - 1 characters).  Returns the characters copied. */
static size_t copy_text(const char *out, int length, char *buf, size_t len)
{
    if (len == 0)
        return 0;
    size_t k = (size_t)length < len ? (size_t)length : len - 1;
    memcpy(buf, out, k);
    buf[k] = '\0';
    return k;
}

static char *copy_out(const char *out, int length, char *buf, size_t len)
{
    copy_text(out, length, buf, len);
    return buf;
}

/* x's shortest digits (n of them) laid out as "%.{max(15, n)}g" prints them or, `fewest`, as
 * "%.{n}g" unless that is longer.  Returns the length. */
static int format_text(double x, char *out, bool fewest)
{
    if (!isfinite(x) || x == 0) {
        const char *word = isnan(x) ? "nan" : x > 0 ? "inf" : x < 0 ? "-inf" : signbit(x) ? "-0" : "0";
        const size_t length = strlen(word);
        memcpy(out, word, length + 1);
        return (int)length;
    }
    uint64_t digits;
    int exp10;
    const int n = pl_shortest(x, &digits, &exp10);
    const bool negative = signbit(x) != 0;
    const int plain = layout(out, negative, digits, n, exp10, n > 15 ? n : 15);
    if (!fewest)
        return plain;
    char tight[TEXT_ROOM];
    const int length = layout(tight, negative, digits, n, exp10, n);
    if (length <= plain) /* the plain form only when it is shorter (10, 1500, not 1e1, 1.5e3) */
        memcpy(out, tight, (size_t)length + 1);
    return length <= plain ? length : plain;
}

/* The shortest digits (pl_shortest) in the layout of "%.{p}g" with p = max(15, their number): the
 * text of the first of %.15g, %.16g, %.17g that reads back, but where that is not the shortest
 * (docs/formats.md): subnormals, whose 15 digits are more than they need, and powers of 2 whose
 * nearest 16-digit decimal lies below them, outside the half of the interval that reads back below
 * them (half as wide as the half above, where another 16-digit decimal lies). */
char *pl_format_double(double x, char *buf, size_t len)
{
    char out[TEXT_ROOM];
    return copy_out(out, format_text(x, out, false), buf, len);
}

size_t pl_format_double_length(double x, char *buf, size_t len)
{
    char out[TEXT_ROOM];
    return copy_text(out, format_text(x, out, false), buf, len);
}

char *pl_format_short(double x, char *buf, size_t len)
{
    char out[TEXT_ROOM];
    return copy_out(out, format_text(x, out, true), buf, len);
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

double pl_round_125(double x, int up)
{
    if (!(x > 0) || !isfinite(x))
        return x;
    /* the candidates of the decades around x, as decimals; the first past x in the direction asked */
    int e = (int)floor(log10(x));
    double best = NAN;
    for (int d = e - 1; d <= e + 1; d++)
        for (int k = 0; k < 3; k++) {
            double c;
            if (!pl_decimal_shift((double[]){1.0, 2.0, 5.0}[k], d, &c))
                continue;
            if (up ? c >= x && !(c >= best) : c <= x && !(c <= best))
                best = c;
        }
    return isnan(best) ? x : best;
}

int pl_decimal_shift(double x, int d, double *out)
{
    if (!isfinite(x))
        return 0;
    /* x's shortest digits with their exponent moved by d: one rounding, in strtod */
    uint64_t digits = 0;
    int exp10 = 0;
    if (x != 0)
        pl_shortest(x, &digits, &exp10);
    char text[2 * PL_NUMBER_LEN];
    snprintf(text, sizeof text, "%s%" PRIu64 "e%ld", signbit(x) ? "-" : "", digits, (long)exp10 + d);
    double y = strtod(text, NULL);
    if (!isfinite(y) || (y == 0) != (x == 0))
        return 0;
    *out = y;
    return 1;
}
