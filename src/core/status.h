/* Status codes and error messages returned by every library call.
 * The library never prints or exits: it fills a pl_error and returns its status. */
#ifndef PL_STATUS_H
#define PL_STATUS_H

#include <stddef.h>

#include "penlim/status.h"

/* pl_status and pl_error: include/penlim/status.h (public). */

/* Copy text to out (len bytes with its NUL) with control characters escaped (\n, \t, \r, \xNN),
 * so that quoted input cannot break a one-line message; cut at a whole character. Returns the length. */
size_t pl_escape(const char *text, char *out, size_t len);

/* Record a failure (its message escaped by pl_escape) in err (if not NULL) and return status. */
pl_status pl_fail(pl_error *err, pl_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

void pl_error_clear(pl_error *err);

/* Strict number parsing: the whole string, without surrounding white space, must be a finite
 * number (nonzero doubles normal: at least DBL_MIN in magnitude). */
pl_status pl_parse_double(const char *text, double *out, pl_error *err, const char *what);
pl_status pl_parse_long(const char *text, long *out, pl_error *err, const char *what);

#endif
