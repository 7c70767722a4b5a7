/* The shortest decimal that reads back as a given double: Ryu (U. Adams, "Ryu: fast float-to-string
 * conversion", PLDI 2018), digits only; the text is the caller's (core/number.c). */
#ifndef PL_SHORTEST_H
#define PL_SHORTEST_H

#include <stdint.h>

/* For x finite and nonzero (its sign ignored): the decimal digits * 10^exp10 with the fewest
 * significant digits that strtod reads back as |x| (round to nearest, ties to even); of those,
 * the one nearest |x| (an exact tie: the even one).  digits has no trailing zero.  Returns the
 * number of digits, 1 to 17; for x = 0 digits 0 and 1, for inf and nan digits 0 and 0. */
int pl_shortest(double x, uint64_t *digits, int *exp10);

#endif
