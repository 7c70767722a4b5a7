#include "core/status.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

pl_status pl_fail(pl_error *err, pl_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
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

pl_status pl_parse_double(const char *text, double *out, pl_error *err, const char *what)
{
    if (!text || !*text)
        return pl_fail(err, PL_ERR_INPUT, "%s: empty value, expected a number", what);
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0')
        return pl_fail(err, PL_ERR_INPUT, "%s: '%s' is not a number", what, text);
    if (isnan(v) || isinf(v) || errno == ERANGE)
        return pl_fail(err, PL_ERR_INPUT, "%s: '%s' is not a finite number", what, text);
    *out = v;
    return PL_OK;
}

pl_status pl_parse_long(const char *text, long *out, pl_error *err, const char *what)
{
    if (!text || !*text)
        return pl_fail(err, PL_ERR_INPUT, "%s: empty value, expected an integer", what);
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE)
        return pl_fail(err, PL_ERR_INPUT, "%s: '%s' is not an integer", what, text);
    *out = v;
    return PL_OK;
}
