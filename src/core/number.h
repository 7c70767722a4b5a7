/* Numbers as a user wrote them: decimal formatting that reads back exactly without printing
 * binary noise (1000, not 1000.0000000000007), and decimal powers of ten. */
#ifndef PL_NUMBER_H
#define PL_NUMBER_H

#include <stddef.h>

/* Longest text pl_format_double writes, with its NUL ("-1.2345678901234567e-308"). */
#define PL_NUMBER_LEN 32

/* The fewest significant digits that strtod reads back as x (core/shortest.h), as "%.{p}g" prints
 * them with p = max(15, their number), the exponent written without '+' and leading zeros (1e-5,
 * not 1e-05); "nan", "inf", "-inf" otherwise.  The same text as the first of %.15g, %.16g, %.17g
 * that reads back, but shorter on subnormals and on a few powers of 2 (docs/formats.md).  Cut to
 * len - 1 characters as snprintf would.  Returns buf. */
char *pl_format_double(double x, char *buf, size_t len);

/* pl_format_double, returning the length of the text written: the writers of many numbers append
 * one after another without a strlen each (6% of writing a trajectory). */
size_t pl_format_double_length(double x, char *buf, size_t len);

/* The same digits as "%.{n}g" prints them, n their number (1e8, not 100000000), or as
 * pl_format_double when that is shorter (10, 1500, not 1e1, 1.5e3): for names, messages, the refined
 * parameter's CSV column and JSON reals. */
char *pl_format_short(double x, char *buf, size_t len);

/* The decimal of at most `digits` (1 to 17) significant digits nearest below a positive x, in the
 * shortest text that reads back as a double <= x (0.931020451658 for 0.93102045165899...): a time
 * quoted to the user as one they may give back.  Other x as pl_format_short. Returns buf. */
char *pl_format_down(double x, int digits, char *buf, size_t len);

/* x * 10^d rounded once from its decimal digits (3 * 10^-1 is 0.3, not 0.30000000000000004);
 * x must be finite. Returns 0 when the result is not a finite nonzero double. */
int pl_decimal_shift(double x, int d, double *out);
/* The round value 1, 2 or 5 x 10^k next to a positive finite x, at or above it (up) or at or below
 * it, as strtod reads its decimal ("5e-5"; x itself when it is one): the values of default grids,
 * whose directory names and CSV rows then read 5e-5, not 2.8489215748638476e-5.  Other x: x. */
double pl_round_125(double x, int up);

#endif
