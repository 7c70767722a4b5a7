/* A root of a scalar function on a bracket, by GSL's Brent solver (event times on dense output,
 * exit times of the fast system). */
#ifndef PL_ROOTFIND_H
#define PL_ROOTFIND_H

/* Root of f in [a, b] to 4 ulps; NAN if f(a) and f(b) have the same sign (or are not finite).
 * With upper set, the upper end of the final bracket is returned instead: a point just past the
 * root, where f has taken the sign of f(b). */
double pl_brent(double (*f)(double, void *), void *params, double a, double b, int upper);

/* Root of f in [a, b] given f(a) = fa and f(b) = fb of opposite signs, by the Illinois variant of
 * regula falsi (Dowell and Jarratt, BIT 11, 1971), to a bracket no wider than tol: for functions
 * that are costly to evaluate, it converges superlinearly from both ends where Brent's method
 * may leave one end behind.  Returns the end of the final bracket where f has the sign of fb (a
 * point just past the root), or NAN if f(a) and f(b) do not bracket a root. */
double pl_illinois(double (*f)(double, void *), void *params, double a, double fa, double b, double fb, double tol);

/* The same, to a bracket no wider than tol (absolute; 4 ulps if smaller), for functions that are
 * costly to evaluate. */
double pl_brent_tol(double (*f)(double, void *), void *params, double a, double b, int upper, double tol);

#endif
