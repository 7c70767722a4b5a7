/* A root of a scalar function on a bracket, by GSL's Brent solver (event times on dense output,
 * exit times of the fast system). */
#ifndef PL_ROOTFIND_H
#define PL_ROOTFIND_H

/* Root of f in [a, b] to 4 ulps; NAN if f(a) and f(b) have the same sign (or are not finite).
 * With upper set, the upper end of the final bracket is returned instead: a point just past the
 * root, where f has taken the sign of f(b). */
double pl_brent(double (*f)(double, void *), void *params, double a, double b, int upper);

#endif
