#include "study/fit.h"

#include "core/rootfind.h"

#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int pl_fit_meaningful(size_t points, double value, double se)
{
    return points >= PL_FIT_MIN_POINTS && isfinite(value) && isfinite(se) && se < fabs(value);
}

const char *pl_floor_note(const pl_convergence *cv, char *buf, size_t len)
{
    if (cv->floored == 0)
        return NULL;
    char tol[96] = "", res[64] = "";
    if (cv->floored_tolerance > 0)
        snprintf(tol, sizeof tol, "%zu within the integration's tolerance (%.3g)", cv->floored_tolerance, cv->floor);
    if (cv->floored_resolution > 0)
        snprintf(res, sizeof res, "%zu within %s round-off resolution", cv->floored_resolution,
                 cv->floored_resolution == 1 ? "its" : "their");
    snprintf(buf, len, "%s%s%s", tol, *tol && *res ? ", " : "", res);
    return buf;
}

const char *pl_convergence_note(const pl_convergence *cv, char *buf, size_t len)
{
    if (isfinite(cv->rate))
        return NULL;
    char floors[192];
    pl_floor_note(cv, floors, sizeof floors);
    if (cv->at_floor)
        snprintf(buf, len, "every error is at a noise floor: %s", floors);
    else if (cv->points == 0)
        snprintf(buf, len, "no value to fit");
    else if (cv->points < PL_FIT_MIN_POINTS && cv->floored > 0)
        snprintf(buf, len, "%zu value%s above the noise floors (%s, left out), a fit needs %d", cv->points,
                 cv->points == 1 ? "" : "s", floors, PL_FIT_MIN_POINTS);
    else if (cv->points < PL_FIT_MIN_POINTS)
        snprintf(buf, len, "%zu value%s, a fit needs %d", cv->points, cv->points == 1 ? "" : "s", PL_FIT_MIN_POINTS);
    else
        snprintf(buf, len, "the standard error of the fitted rate is not below it (%zu points)", cv->points);
    return buf;
}

int pl_fit_line(const double *x, const double *y, size_t n, double *slope, double *slope_se, double *intercept)
{
    double c0, c1, cov00, cov01, cov11, sumsq;
    if (n < 2 || gsl_fit_linear(x, 1, y, 1, n, &c0, &c1, &cov00, &cov01, &cov11, &sumsq) != 0)
        return -1;
    *slope = c1;
    *slope_se = sqrt(cov11);
    *intercept = c0;
    return 0;
}

size_t pl_fit_rate(const double *mu, const double *err, size_t n, double *rate, double *rate_se)
{
    *rate = *rate_se = NAN;
    double *x = malloc(2 * (n ? n : 1) * sizeof *x), *y = x ? x + (n ? n : 1) : NULL;
    if (!x)
        return PL_FIT_NO_MEMORY;
    size_t k = 0;
    for (size_t j = 0; j < n; j++)
        if (isfinite(err[j]) && err[j] != 0.0 && mu[j] > 0.0) {
            x[k] = log(mu[j]);
            y[k] = log(fabs(err[j]));
            k++;
        }
    double slope, slope_se, intercept;
    if (k >= PL_FIT_MIN_POINTS && pl_fit_line(x, y, k, &slope, &slope_se, &intercept) == 0 &&
        pl_fit_meaningful(k, slope, slope_se)) {
        *rate = -slope;
        *rate_se = slope_se;
    }
    free(x);
    return k;
}

/* For Q = Q_inf + C mu^-p through three points a < b < c, the ratio of successive differences
 * (Q_b - Q_a)/(Q_c - Q_b) as a function of p (mu scaled by mu_c for conditioning). */
typedef struct {
    double xa, xb, ratio;
} rate_equation;

static double rate_residual(double p, void *params)
{
    const rate_equation *e = params;
    double a = pow(e->xa, -p), b = pow(e->xb, -p);
    return (a - b) / (b - 1.0) - e->ratio;
}

/* Extrapolated limit from the last three finite values of the first `count`: p from the ratio of
 * the two differences (GSL Brent on p in (1e-3, 20)), then Q_inf = Q_c - C mu_c^-p with
 * C = (Q_c - Q_b)/(mu_c^-p - mu_b^-p): exact for Q_inf + C mu^-p at any spacing of mu.  NAN if
 * the values do not converge monotonically. */
static double extrapolate(const double *mu, const double *values, size_t count)
{
    size_t idx[3], found = 0;
    for (size_t j = count; j-- > 0 && found < 3;)
        if (isfinite(values[j]))
            idx[found++] = j;
    if (found < 3)
        return NAN;
    size_t c = idx[0], b = idx[1], a = idx[2]; /* a < b < c */
    double d1 = values[b] - values[a], d2 = values[c] - values[b];
    if (d2 == 0.0)
        return values[c];
    if (d1 == 0.0 || d1 * d2 < 0.0)
        return NAN; /* not monotonically converging */
    rate_equation e = {mu[a] / mu[c], mu[b] / mu[c], d1 / d2};
    double p = pl_brent(rate_residual, &e, 1e-3, 20.0, 0);
    if (!(p > 0.0))
        return NAN;
    double mb = pow(e.xb, -p); /* mu_b^-p in units of mu_c^-p */
    return values[c] - d2 / (1.0 - mb);
}

int pl_above_floor(double err, double floor, double resolution)
{
    return fabs(err) > floor && !(fabs(err) <= resolution);
}

pl_convergence pl_convergence_of(const double *mu, const double *values, size_t n, double exact, double floor,
                                 const double *resolution, double *err)
{
    pl_convergence cv = {.rate = NAN, .rate_se = NAN, .rate_upper = NAN, .rate_upper_se = NAN, .limit = NAN,
                         .limit_error = NAN};
    if (isfinite(exact)) {
        cv.reference = PL_REF_EXACT;
        cv.limit = exact;
        cv.limit_error = 0.0;
    } else {
        cv.limit = extrapolate(mu, values, n);
        if (isfinite(cv.limit)) {
            cv.reference = PL_REF_EXTRAPOLATED;
            double previous = extrapolate(mu, values, n - 1);
            cv.limit_error = isfinite(previous) ? fabs(cv.limit - previous) : NAN;
        }
    }
    double *fitted = calloc(n ? n : 1, sizeof *fitted);
    if (!fitted) {
        cv.no_memory = 1;
        return cv;
    }
    size_t finite = 0, above = 0;
    for (size_t j = 0; j < n; j++) {
        err[j] = isfinite(cv.limit) ? values[j] - cv.limit : NAN;
        double res = resolution ? resolution[j] : NAN;
        int fit = isfinite(err[j]) && pl_above_floor(err[j], floor, res);
        finite += isfinite(err[j]);
        above += fit;
        fitted[j] = fit ? err[j] : NAN;
        if (isfinite(err[j]) && !fit) {
            if (fabs(err[j]) <= res)
                cv.floored_resolution++;
            else
                cv.floored_tolerance++;
        }
    }
    cv.at_floor = finite > 0 && above == 0;
    cv.floored = finite - above;
    cv.floor = floor;
    cv.points = pl_fit_rate(mu, fitted, n, &cv.rate, &cv.rate_se);
    size_t upper = n / 2;
    if (cv.points == PL_FIT_NO_MEMORY ||
        pl_fit_rate(mu + upper, fitted + upper, n - upper, &cv.rate_upper, &cv.rate_upper_se) == PL_FIT_NO_MEMORY) {
        free(fitted);
        cv.no_memory = 1;
        cv.points = 0;
        return cv;
    }
    /* Converging: a rate of at least PL_RATE_MIN, positive beyond twice its standard error, or errors
     * that fall by 10 from the first fitted value to the last (orders that mix, like impact times
     * timed O(h^2) or O(h) depending on the step, scatter a fit). */
    double first = NAN, last = NAN;
    for (size_t j = 0; j < n; j++)
        if (isfinite(fitted[j]) && fitted[j] != 0.0) {
            if (isnan(first))
                first = fabs(fitted[j]);
            last = fabs(fitted[j]);
        }
    /* With too little data for a rate (it is null), nothing is said either way (json null). */
    cv.converges = cv.points < PL_FIT_MIN_POINTS
                       ? -1
                       : (cv.rate >= PL_RATE_MIN && cv.rate - 2.0 * cv.rate_se > 0.0) || last < 0.1 * first;
    free(fitted);
    return cv;
}
