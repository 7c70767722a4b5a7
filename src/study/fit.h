/* Convergence of a quantity Q(x) as the refinement x -> infinity (x = mu for penalized runs, x = 1/h
 * for time-stepping schemes): rates fitted by least squares (GSL) and the limit value, from the
 * closed form when the case knows it, otherwise from the limit solution or extrapolated.  Written
 * below with x = mu. */
#ifndef PL_FIT_H
#define PL_FIT_H

#include <stddef.h>

/* Where the mu -> infinity value comes from: a closed form of the case, the limit solution
 * computed directly (the limit solver), or extrapolation from the sweep itself; distances tend to 0. */
typedef enum { PL_REF_NONE = 0, PL_REF_EXACT, PL_REF_EXTRAPOLATED, PL_REF_LIMIT, PL_REF_DISTANCE } pl_reference;

typedef struct {
    size_t points;      /* errors used in the fit: finite and above the noise floor */
    int at_floor;       /* every error is at or below the noise floor: no rate to fit */
    size_t floored;     /* finite errors at or below their noise floor, left out of the fit: */
    size_t floored_resolution; /* within their own round-off resolution, */
    size_t floored_tolerance;  /* or else within the integration's tolerance, `floor` */
    double rate, rate_se; /* error ~ C mu^(-rate): minus the slope of log|error| against log mu */
    double rate_upper, rate_upper_se; /* the same fitted on the upper half of the mu values only
                                         (the asymptotic regime), when meaningful */
    double limit, limit_error; /* the mu -> infinity value and its uncertainty */
    double floor;              /* the integration's tolerance floor: errors at or below it are left out
                                  of the fits (PL_NOISE_RTOLS or PL_NOISE_RTOLS_TIME rtol times the
                                  quantity's size) */
    int converges;             /* 1: the fitted rate is at least PL_RATE_MIN and positive by more than
                                  twice its standard error, or the errors fell by 10; 0: not; -1: too
                                  few points to say */
    pl_reference reference;
    int no_memory; /* 1: the fit's scratch could not be allocated: nothing is known (the caller fails) */
} pl_convergence;

/* A fitted statistic (a rate, a contraction ratio, impacts per decade) is reported only when it
 * rests on at least PL_FIT_MIN_POINTS points and its standard error is below its magnitude;
 * otherwise it and its error are NAN (null in JSON, nan in CSV, n/a in text): three points
 * give a slope but not an error bar worth reading (a ratio of 0.96 +- 0.90). */
#define PL_FIT_MIN_POINTS 4

/* The smallest rate that says "converges" (the errors falling by 10 over the sweep say it too): an
 * error that stays constant fits a rate of 2e-11 +- 7e-12, positive beyond twice its error and
 * meaningless; at 0.05 an error halves over 6 decades of mu, the slowest fall a sweep shows.  The
 * rates of penalty approximations are 1/2 and 1 (paper 004, Remark 7), a scheme's 1/2 to 2. */
#define PL_RATE_MIN 0.05
int pl_fit_meaningful(size_t points, double value, double se);

/* The integration's tolerance floor of an error, in units of rtol times the quantity's size
 * (docs/methods.md, "The noise floor"): below it the integration's own error may be as large.  The
 * times of events (an impact's, a capture's, a lift-off's, and the impact time errors) move by at most
 * 4 rtol of their size when rtol changes (measured from 1e-8 to 1e-12: the ball's impact times 3.4,
 * the disk's lift-off 4.0, the table's first impact 0.07); the other quantities are held to the
 * looser 100. */
#define PL_NOISE_RTOLS 100.0
#define PL_NOISE_RTOLS_TIME 10.0

/* Why a convergence has no rate (NULL if it has one): every error at the noise floor, too few points
 * above it, or a standard error not below the rate; written to buf.  Says which floor (pl_floor_note). */
const char *pl_convergence_note(const pl_convergence *cv, char *buf, size_t len);

/* Which floors the errors left out are at (NULL if none): "3 within the integration's tolerance
 * (1e-08)", "2 within their round-off resolution", or both; written to buf. */
const char *pl_floor_note(const pl_convergence *cv, char *buf, size_t len);

/* Least-squares straight line y = intercept + slope x through n points (GSL), with the standard
 * error of the slope; returns non-zero if fewer than 2 points or the fit fails. */
int pl_fit_line(const double *x, const double *y, size_t n, double *slope, double *slope_se, double *intercept);

/* Least-squares slope of log|err| against log mu over the finite, non-zero errors; returns the
 * number of points used (rate and se are NAN unless pl_fit_meaningful), or PL_FIT_NO_MEMORY. */
#define PL_FIT_NO_MEMORY ((size_t)-1)
size_t pl_fit_rate(const double *mu, const double *err, size_t n, double *rate, double *rate_se);

/* Whether an error rests above its noise floor: the larger of the integration's tolerance `floor`
 * and the value's own resolution (how far round-off moves it; NAN: none known). */
int pl_above_floor(double err, double floor, double resolution);

/* Convergence of values[k] at mu[k] (increasing).  Errors at or below their noise floor
 * (pl_above_floor, with resolution[k] if resolution is not NULL) are left out of the rate fit.  If exact is finite the errors are taken against it.  Otherwise the limit is extrapolated from the differences of successive values,
 * d_k ~ C mu_k^(-p): Q_inf = Q_N + d_{N-1} r/(1 - r), r = (mu_{N-1}/mu_N)^p, with the change of
 * that estimate when the last point is left out as its error; errors are then taken against
 * Q_inf.  Errors are written to err (n values, NAN where undefined). */
pl_convergence pl_convergence_of(const double *mu, const double *values, size_t n, double exact, double floor,
                                 const double *resolution, double *err);

#endif
