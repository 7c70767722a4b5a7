#include "core/status.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t pl_escape(const char *text, char *out, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t used = 0;
    if (len == 0)
        return 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        char esc[5] = {(char)*p, '\0', '\0', '\0', '\0'};
        if (*p == '\n' || *p == '\t' || *p == '\r') {
            esc[0] = '\\';
            esc[1] = *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r';
        } else if (*p < 0x20 || *p == 0x7f) {
            esc[0] = '\\';
            esc[1] = 'x';
            esc[2] = hex[*p >> 4];
            esc[3] = hex[*p & 15];
        }
        size_t n = strlen(esc);
        if (used + n >= len) /* a whole escape or nothing */
            break;
        memcpy(out + used, esc, n);
        used += n;
    }
    out[used] = '\0';
    return used;
}

pl_status pl_fail(pl_error *err, pl_status status, const char *fmt, ...)
{
    if (err) {
        char raw[sizeof err->message];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(raw, sizeof raw, fmt, ap);
        va_end(ap);
        /* Messages may quote input: escaped, they stay on one line. */
        pl_escape(raw, err->message, sizeof err->message);
        err->status = status;
    }
    return status;
}

void pl_error_clear(pl_error *err)
{
    if (err) {
        err->status = PL_OK;
        err->message[0] = '\0';
    }
}

/* strtod and strtol skip leading white space but stop at trailing: both are refused alike. */
static int has_outer_space(const char *text)
{
    size_t n = strlen(text);
    return n > 0 && (isspace((unsigned char)text[0]) || isspace((unsigned char)text[n - 1]));
}

pl_status pl_parse_double(const char *text, double *out, pl_error *err, const char *what)
{
    if (!text || !*text)
        return pl_fail(err, PL_ERR_INPUT, "%s: empty value, expected a number", what);
    if (has_outer_space(text))
        return pl_fail(err, PL_ERR_INPUT, "%s: '%s' has leading or trailing white space", what, text);
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0')
        return pl_fail(err, PL_ERR_INPUT, "%s: '%s' is not a number", what, text);
    if (isnan(v) || isinf(v) || (errno == ERANGE && fabs(v) > 1.0))
        return pl_fail(err, PL_ERR_INPUT, "%s: '%s' is not a finite number (magnitude at most %g)", what, text,
                       DBL_MAX);
    /* Underflow: strtod gives a subnormal or 0 that is not the number written. */
    if (errno == ERANGE || (v != 0 && fabs(v) < DBL_MIN))
        return pl_fail(err, PL_ERR_INPUT, "%s: '%s' is too small: a nonzero number must have magnitude >= %g", what,
                       text, DBL_MIN);
    *out = v;
    return PL_OK;
}

pl_status pl_parse_long(const char *text, long *out, pl_error *err, const char *what)
{
    if (!text || !*text)
        return pl_fail(err, PL_ERR_INPUT, "%s: empty value, expected an integer", what);
    if (has_outer_space(text))
        return pl_fail(err, PL_ERR_INPUT, "%s: '%s' has leading or trailing white space", what, text);
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end != text && (*end == 'e' || *end == 'E' || *end == '.')) {
        /* Counts are written 5e6 in the documentation: an integral number in any form is one. */
        char *dend = NULL;
        double d = strtod(text, &dend);
        if (*dend == '\0' && isfinite(d) && d == floor(d)) {
            if (!(d >= (double)LONG_MIN && d < -(double)LONG_MIN)) /* -LONG_MIN: a power of 2, exact */
                return pl_fail(err, PL_ERR_INPUT, "%s: '%s' is out of range (magnitude at most %ld)", what, text,
                               LONG_MAX);
            *out = (long)d;
            return PL_OK;
        }
    }
    if (end == text || *end != '\0')
        return pl_fail(err, PL_ERR_INPUT, "%s: '%s' is not an integer", what, text);
    if (errno == ERANGE)
        return pl_fail(err, PL_ERR_INPUT, "%s: '%s' is out of range (magnitude at most %ld)", what, text, LONG_MAX);
    *out = v;
    return PL_OK;
}
