#include "core/rootfind.h"

#include <float.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>
#include <math.h>

double pl_brent(double (*f)(double, void *), void *params, double a, double b, int upper)
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
            if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s), hi, 0.0, 4.0 * DBL_EPSILON) == GSL_SUCCESS)
                break;
        }
    gsl_root_fsolver_free(s);
    return upper ? hi : root;
}
