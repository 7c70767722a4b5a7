#include "core/rootfind.h"

#include <float.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>

double pl_brent(double (*f)(double, void *), void *params, double a, double b, int upper)
{
    return pl_brent_tol(f, params, a, b, upper, 0.0);
}

double pl_illinois(double (*f)(double, void *), void *params, double a, double fa, double b, double fb, double tol)
{
    if (!(fa * fb <= 0.0))
        return NAN;
    if (fb == 0.0)
        return b;
    int side = 0;
    double prev = NAN;
    tol = fmax(tol, 4.0 * DBL_EPSILON * fmax(fabs(a), fabs(b)));
    for (int it = 0; it < 200 && fabs(b - a) > tol; it++) {
        double c = b - fb * (b - a) / (fb - fa);
        if (!(c > fmin(a, b) && c < fmax(a, b)))
            c = 0.5 * (a + b);
        double fc = f(c, params);
        if (isnan(fc))
            return NAN;
        if (fc == 0.0)
            return c;
        if (fc * fb > 0.0) { /* c replaces b: the end with the sign of fb */
            b = c, fb = fc;
            if (side == -1)
                fa *= 0.5; /* a stagnates: halve its weight (Illinois) */
            side = -1;
        } else {
            a = c, fa = fc;
            if (side == +1)
                fb *= 0.5;
            side = +1;
        }
        /* Converged when the iterates settle on the root from b's side (where f is at round-off
         * level the bracket itself may close only slowly). */
        if (b == c && fabs(c - prev) <= tol)
            break;
        prev = c;
    }
    return b;
}

double pl_brent_tol(double (*f)(double, void *), void *params, double a, double b, int upper, double tol)
{
    double fa = f(a, params), fb = f(b, params);
    if (!(fa * fb <= 0.0))
        return NAN;
    if (fb == 0.0)
        return b;
    if (fa == 0.0)
        return a;
    gsl_function F = {f, params};
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!s)
        return NAN;
    double root = NAN, hi = b;
    if (gsl_root_fsolver_set(s, &F, a, b) == GSL_SUCCESS)
        for (int it = 0; it < 200; it++) {
            if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS)
                break;
            root = gsl_root_fsolver_root(s);
            hi = gsl_root_fsolver_x_upper(s);
            if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s), hi, tol, 4.0 * DBL_EPSILON) == GSL_SUCCESS)
                break;
        }
    gsl_root_fsolver_free(s);
    return upper ? hi : root;
}
