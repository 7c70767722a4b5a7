#include "laws/restitution.h"
#include "model/contact_law.h"

#include <float.h>
#include <math.h>

#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sf_lambert.h>
#include <gsl/gsl_sf_psi.h>

#include "core/rootfind.h"

double pl_restitution_kelvin_voigt(double xi)
{
    return xi < 0.0 ? NAN : pl_restitution_from_xi(xi); /* the law's own (laws/kelvin_voigt.c) */
}

/* -log of the clamped law's restitution.  Scaled by sqrt(k), delta = e^{-xi t} sin(s t)/s with
 * s = sqrt(1 - xi^2); the force -delta'' = e^{-xi t} (2 xi cos(s t) - (2 xi^2 - 1) sin(s t)/s)
 * first vanishes at s t = 2 arccos(xi), where delta' = -e^{-xi t}: e = exp(-2 xi arccos(xi)/s).
 * Over xi > 1 arccos(xi)/s continues analytically as arccosh(xi)/sqrt(xi^2 - 1), to 1 at xi = 1. */
static double clamped_log_decrement(double xi)
{
    if (xi < 1.0)
        return 2.0 * xi * acos(xi) / sqrt((1.0 - xi) * (1.0 + xi));
    if (xi == 1.0)
        return 2.0;
    /* sqrt(xi - 1) sqrt(xi + 1): xi^2 would overflow beyond 1e154. */
    return 2.0 * xi * acosh(xi) / (sqrt(xi - 1.0) * sqrt(xi + 1.0));
}

double pl_restitution_kelvin_voigt_clamped(double xi)
{
    if (!(xi >= 0.0))
        return NAN;
    if (isinf(xi))
        return 0.0;
    return exp(-clamped_log_decrement(xi));
}

static double clamped_residual(double xi, void *p)
{
    return clamped_log_decrement(xi) - *(const double *)p;
}

double pl_xi_kelvin_voigt_clamped(double e)
{
    if (!(e > 0.0 && e <= 1.0))
        return NAN;
    if (e == 1.0)
        return 0.0;
    double L = -log(e);
    /* The decrement is increasing, at most pi xi (arccos(xi)/s <= pi/2 for xi <= 1, arccosh/sqrt <= 1
     * beyond), so the root is at least L/pi; double the upper end until it brackets (L <= 745 puts
     * the root below 1e162). */
    double lo = L / M_PI, hi = fmax(2.0 * lo, 1.0);
    while (clamped_log_decrement(hi) < L)
        hi *= 2.0;
    return pl_brent(clamped_residual, &L, lo, hi, 0);
}

/* Hunt-Crossley.  Scaled (any n, k) the energy-like first integral of deltadot' = -k delta^n (1 + a
 * deltadot), a = (3/2) c, is v/a - log(1 + a v)/a^2 + k delta^(n+1)/(n+1) = constant, so the exit speed
 * u (delta = 0 again, velocity -u) solves, with x = a V and y = a u in (0, 1):
 *
 *     x - log(1 + x) = -y - log(1 - y)                                                    (H)
 *
 * (1 + a v > 0 all along the restitution, so the clamp at zero force never acts).  With w = 1 - y,
 * w e^{-w} = (1 + x) e^{-(1 + x)}, whose root in (0, 1) is w = -W0(-(1 + x) e^{-(1 + x)}), and
 * e = y/x.  As x -> 0 the argument tends to W0's branch point -1/e, where 1 + W0 loses every digit
 * it has; hence: a Taylor series of e(x) for tiny x, and otherwise y from (H) written without
 * cancellation (below), started from W0 or its branch-point series and refined by Newton's method. */

/* x - log(1 + x) for x >= 0 to a few ulps: with s = x/(2 + x), log(1 + x) = 2 atanh(s), so
 * x - log(1 + x) = s x - 2 (s^3/3 + s^5/5 + ...), free of the cancellation of x - log1p(x) for small x. */
static double x_minus_log1p(double x)
{
    if (x > 1.0)
        return x - log1p(x);
    double s = x / (2.0 + x), s2 = s * s, term = s * s2, sum = 0.0;
    for (int j = 3; term > 1e-18 * s * x; j += 2) {
        sum += term / j;
        term *= s2;
    }
    return s * x - 2.0 * sum;
}

/* -y - log(1 - y) for y in [0, 1): s y + 2 (s^3/3 + s^5/5 + ...) with s = y/(2 - y), all terms positive. */
static double minus_y_minus_log1m(double y)
{
    if (y > 0.5)
        return -y - log1p(-y);
    double s = y / (2.0 - y), s2 = s * s, term = s * s2, sum = 0.0;
    for (int j = 3; term > 1e-18 * s * y; j += 2) {
        sum += term / j;
        term *= s2;
    }
    return s * y + 2.0 * sum;
}

double pl_restitution_hunt_crossley(double cV)
{
    if (!(cV >= 0.0))
        return NAN;
    if (isinf(cV))
        return 0.0;
    double x = 1.5 * cV;
    if (x < 1e-3) {
        /* e(x) = 1 - 2x/3 + 4x^2/9 - 44x^3/135 + 104x^4/405 - 40x^5/189 + ..., from (H) term by term;
         * the first term left out is below 1e-21 here. */
        return 1.0 + x * (-2.0 / 3.0 + x * (4.0 / 9.0 + x * (-44.0 / 135.0 + x * (104.0 / 405.0 + x * (-40.0 / 189.0)))));
    }
    double D = x_minus_log1p(x);
    double y;
    if (D < 0.25) {
        /* W0 near its branch point: 1 + W0(z) = p - p^2/3 + 11p^3/72 - 43p^4/540 + 769p^5/17280 with
         * p = sqrt(2 (1 + e z)) (the series about the branch point of Corless, Gonnet, Hare, Jeffrey
         * and Knuth, "On the Lambert W function", 1996), and here 1 + e z = 1 - e^{-D}. */
        double p = sqrt(-2.0 * expm1(-D));
        y = p * (1.0 + p * (-1.0 / 3.0 + p * (11.0 / 72.0 + p * (-43.0 / 540.0 + p * (769.0 / 17280.0)))));
    } else {
        /* -(1 + x) e^{-(1 + x)} = -exp(-1 - D); y = 1 + W0 without cancellation here (W0 >= -0.6). */
        y = 1.0 + gsl_sf_lambert_W0(-exp(-1.0 - D));
    }
    /* Newton on (H): d/dy (-y - log(1 - y)) = y/(1 - y). */
    for (int it = 0; it < 8 && y > 0.0 && y < 1.0; it++) {
        double step = (minus_y_minus_log1m(y) - D) * (1.0 - y) / y;
        double next = y - step;
        if (!(next > 0.0 && next < 1.0))
            break;
        y = next;
        if (fabs(step) <= 2.0 * DBL_EPSILON * y)
            break;
    }
    return y / x;
}

static double hunt_crossley_residual(double cV, void *p)
{
    return pl_restitution_hunt_crossley(cV) - *(const double *)p;
}

double pl_hunt_crossley_cv_from_restitution(double e)
{
    if (!(e > 0.0 && e <= 1.0))
        return NAN;
    if (e == 1.0)
        return 0.0;
    /* e(cV) decreases from 1 to 0, and y < 1 in (H) gives e < 1/x = 2/(3 cV): the root is below
     * 2/(3e), and e(1/e) < 2e/3 < e brackets it with room for round-off. */
    return pl_brent(hunt_crossley_residual, &e, 0.0, 1.0 / e, 0);
}

double pl_power_law_max_penetration(double n, double k_over_m, double V)
{
    if (!(n > 0.0 && k_over_m > 0.0 && V > 0.0) || isinf(n) || isinf(k_over_m) || isinf(V))
        return NAN;
    /* V^2/2 = k_over_m delta_max^(n+1)/(n + 1). */
    return pow((n + 1.0) * V * V / (2.0 * k_over_m), 1.0 / (n + 1.0));
}

double pl_power_law_contact_duration(double n, double k_over_m, double V)
{
    double dmax = pl_power_law_max_penetration(n, k_over_m, V);
    if (isnan(dmax))
        return NAN;
    /* deltadot = V sqrt(1 - (delta/delta_max)^(n+1)); t = 2 (delta_max/V) integral_0^1 (1 - x^(n+1))^(-1/2)
     * dx, and u = x^(n+1) makes the integral B(1/(n+1), 1/2)/(n+1). */
    double I = gsl_sf_beta(1.0 / (n + 1.0), 0.5) / (n + 1.0);
    return 2.0 * I * dmax / V;
}

double pl_hertz_max_penetration(double k_over_m, double V)
{
    return pl_power_law_max_penetration(1.5, k_over_m, V);
}

double pl_hertz_contact_duration(double k_over_m, double V)
{
    return pl_power_law_contact_duration(1.5, k_over_m, V);
}

/* t_k in units of 2/(c A), at y = a + k (pl_hunt_crossley_bounces). */
static double bounce_time(double a, double y)
{
    double p1a = gsl_sf_psi_1(a), p1y = gsl_sf_psi_1(y);
    return gsl_sf_psi(y) - gsl_sf_psi(a) - (p1a * (p1a - p1y) - 0.5 * (gsl_sf_psi_n(2, y) - gsl_sf_psi_n(2, a))) / 10.0;
}

int pl_hunt_crossley_bounces(double c, double A, double u0, double tmax, pl_bounces *out)
{
    double x0 = c * u0;
    if (!(c > 0.0) || !(A > 0.0) || !(u0 > 0.0) || !(tmax >= 0.0) || !(x0 <= 0.01))
        return -1;
    double a = 1.0 / x0, target = 0.5 * c * A * tmax;
    /* t_k grows like ln(a + k): the last impact by tmax lies below y_hi = a e^(target + 1) (the
     * correction terms are below 1e-5 for x0 <= 0.01), capped where a double still counts. */
    double lo = a, hi = a * exp(fmin(target + 1.0, 600.0));
    if (bounce_time(a, hi) <= target) {
        lo = hi; /* beyond 1e260 impacts: the flights are far below any time's resolution */
    } else {
        for (int it = 0; it < 200 && hi - lo > fmax(1.0, 4.0 * DBL_EPSILON * hi); it++) {
            double mid = 0.5 * (lo + hi);
            *(bounce_time(a, mid) <= target ? &lo : &hi) = mid;
        }
    }
    double k = lo - a < 9007199254740992.0 ? floor(lo - a) : lo - a, y = a + k;
    out->impacts = k;
    out->t_last = k > 0.0 ? 2.0 / (c * A) * bounce_time(a, y) : 0.0;
    out->u_last = 1.0 / (c * y + 0.1 * c * (gsl_sf_psi_1(a) - gsl_sf_psi_1(y)));
    out->speed_sum = 0.5 * A * out->t_last;
    out->time_error = 2.0 / (c * A) * x0 * x0 * x0;
    out->speed_error = 0.1 * x0 * x0 * x0;
    return 0;
}
