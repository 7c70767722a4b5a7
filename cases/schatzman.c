/* Ballard, "The dynamics of discrete mechanical systems with perfect unilateral constraints" (ARMA 154,
 * 2000), section 5.2, example 2 (after Schatzman): a unit mass on a line, the obstacle phi_1 = q <= 0
 * (here G = -q >= 0), elastic impacts, and the C-infinity force f(t) >= 0 of eq. (41), which pushes the
 * mass into the obstacle.  From rest at t = 0 both v = 0 and the bouncing motion (42) solve the problem;
 * this case starts on the bouncing branch at t = a_N (a finite number of transversal impacts follow), so
 * that the limit mu -> infinity is the motion (42).
 *
 * With t_n = (n + 5)^2 / ((n + 1)(n + 2)(n + 3)(n + 4)) (n >= 0):
 *   a_n = sum_{i >= n} t_i = 8/(3(n + 1)) - 11/(6(n + 2)) + 1/(6(n + 3))   (partial fractions; a_0 = 65/36),
 *   delta_n = (n + 5)/((n + 1)(n + 2)(n + 4)),  L_n = a_n - a_{n+1} - delta_n = 2(n + 5)/((n+1)...(n+4)),
 *   f_n = 1/n!,  v_n = -1/(n + 3)!,
 *   f = 0 on [a_{n+1}, a_{n+1} + delta_n[ and (f_n/2) rho((t - a_{n+1} - delta_n)/L_n) on
 *   [a_{n+1} + delta_n, a_n[ (eq. (41)); f = 0 beyond a_0 (smoothly: rho is flat at 1).
 * The bump is rho(x) = C exp(-1/(x(1 - x))) on (0, 1): C-infinity, flat at 0 and 1, symmetric (so
 * 2 int (1 - s) rho = int rho, the paper's (39)) and of unit integral, as (42) uses.  The integral has a
 * closed form: with I(a) = int_{-1}^{1} exp(-a/(1 - s^2)) ds,
 * s = tanh u gives I'(a) = -exp(-a/2) K_0(a/2), and I(a) = a exp(-a/2) (K_1(a/2) - K_0(a/2)) has that
 * derivative and vanishes at infinity; x = (1 + s)/2 turns int_0^1 exp(-1/(x(1 - x))) dx into
 * I(4)/2 = 2 exp(-2) (K_1(2) - K_0(2)), so C = e^2 / (2 (K_1(2) - K_0(2))) = 142.25...
 *
 * On [a_{n+1}, a_n] the mass leaves at v_{n+1}, coasts, is pushed back and returns to q = 0 exactly at a_n
 * (int v = 0 by 2 int (1 - s) rho = 1) with v^-(a_n) = v_{n+1} + f_n L_n/2 = 1/(n + 3)! and bounces to
 * v_n = -1/(n + 3)!.  Decision: the model's time starts at 0, so t here is the paper's time minus a_N:
 * the mass starts at q = 0 with v = v_N = -1/(N + 3)! and hits at a_n - a_N for n = N - 1, ..., 0. */
#include <gsl/gsl_sf_bessel.h>
#include <stdio.h>

#include "cases/cases.h"

enum { NN, E, XI, K, NPAR };

static const pl_param_spec params[NPAR] = {
    {"N", 4.0, 1.0, 12.0, 0, "start at the paper's time a_N on the bouncing branch (integer): N impacts follow"},
    PL_LAW_PARAMS(1.0),
};

static double a_n(double n)
{
    return 8.0 / (3.0 * (n + 1.0)) - 11.0 / (6.0 * (n + 2.0)) + 1.0 / (6.0 * (n + 3.0));
}

static double factorial(int n)
{
    double f = 1.0;
    for (int k = 2; k <= n; k++)
        f *= k;
    return f;
}

/* The interval [a_{n+1}, a_n[ holding the paper's time s in (0, a_0): a_n ~ 1/n, so n is within one
 * of 1/s. */
static int interval(double s)
{
    int n = (int)fmax(0.0, floor(1.0 / s) - 8.0);
    while (a_n(n + 1.0) > s)
        n++;
    while (n > 0 && a_n(n) <= s)
        n--;
    return n;
}

/* The length L_n of the n-th pulse. */
static double pulse_length(int n)
{
    return 2.0 * (n + 5.0) / ((n + 1.0) * (n + 2.0) * (n + 3.0) * (n + 4.0));
}

/* The force of eq. (41) at the paper's time s, and its bump's normalisation C. */
static double force(double s)
{
    if (!(s > 0.0) || s >= a_n(0.0))
        return 0.0;
    int n = interval(s);
    double d = (n + 5.0) / ((n + 1.0) * (n + 2.0) * (n + 4.0));
    double L = pulse_length(n);
    double x = (s - a_n(n + 1.0) - d) / L;
    if (!(x > 0.0) || !(x < 1.0))
        return 0.0;
    double C = exp(2.0) / (2.0 * (gsl_sf_bessel_K1(2.0) - gsl_sf_bessel_K0(2.0)));
    return 0.5 / factorial(n) * C * exp(-1.0 / (x * (1.0 - x)));
}

static void initial_state(const double *p, double *q, double *v, void *user)
{
    (void)user;
    q[0] = 0.0;
    v[0] = -1.0 / factorial((int)p[NN] + 3);
}

static void accel(const double *p, double t, const double *q, const double *v, const double *u,
                  double *a, double *a_q, double *a_v, void *user)
{
    (void)q, (void)v, (void)u, (void)user;
    a[0] = force(t + a_n(p[NN]));
    if (a_q)
        a_q[0] = 0.0;
    if (a_v)
        a_v[0] = 0.0;
}

static void gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    (void)p, (void)i, (void)t, (void)user;
    out->g = -q[0];
    out->grad[0] = -1.0;
}

static int check(const double *p, char *msg, size_t len, void *user)
{
    (void)user;
    if (p[NN] != floor(p[NN])) {
        snprintf(msg, len, "N = %g must be an integer", p[NN]);
        return 1;
    }
    return 0;
}

/* V: the first impact speed 1/(N + 2)!, the smallest of the run (the later ones grow to 1/3!), so that
 * the tolerances' floors resolve the first flights.  A: a bound on the force, the peak of the last and
 * largest pulse, (f_0/2) max rho = C e^-4/2 (the n-th pulse peaks at C e^-4/(2 n!); A was the first
 * pulse's, (N - 1)! times smaller than the last). */
static void scales(const double *p, double *velocity, double *acceleration, void *user)
{
    (void)user;
    double C = exp(2.0) / (2.0 * (gsl_sf_bessel_K1(2.0) - gsl_sf_bessel_K0(2.0)));
    *velocity = 1.0 / factorial((int)p[NN] + 2);
    *acceleration = 0.5 * C * exp(-4.0);
}

/* The width of the shortest pulse still to come: the force is exactly 0 between pulses, where a
 * Runge-Kutta step's stages and error estimate see nothing, so no step may be long enough to pass over
 * a pulse (the runs lost impacts at mu = 1e4 and 1e6, and the limit solution for N = 5, 6 and 10).
 * The pulses shorten with n, so the one of the present interval n is the shortest ahead; its width
 * at half height, where x (1 - x) = 1/(4 + ln 2): sqrt(ln 2/(4 + ln 2)) L_n = 0.384 L_n.  None after
 * a_0. */
static double forcing_time(const double *p, double t, void *user)
{
    (void)user;
    double s = t + a_n(p[NN]);
    if (!(s > 0.0) || s >= a_n(0.0))
        return 0.0;
    return sqrt(M_LN2 / (4.0 + M_LN2)) * pulse_length(interval(s));
}

/* The first impact at a_{N-1} - a_N with speed 1/(N + 2)!, whatever e (the motion before it does not
 * depend on e). */
static double limit_value(const double *p, pl_limit_quantity what, void *user)
{
    (void)user;
    double N = p[NN];
    switch (what) {
    case PL_LIMIT_FIRST_IMPACT_TIME: return a_n(N - 1.0) - a_n(N);
    case PL_LIMIT_RESTITUTION_FIRST: return p[E];
    case PL_LIMIT_SCALED_PENETRATION_FIRST:
        return 1.0 / factorial((int)N + 2) / sqrt(p[K]) * pl_impact_penetration_factor(p[XI]);
    default: return NAN;
    }
}

const pl_case pl_case_schatzman = {
    .abi_version = PL_ABI_VERSION,
    .name = "schatzman",
    .summary = "unit mass pushed into an elastic obstacle by the C-infinity force of Ballard's example 2 "
               "(ARMA 2000, eq. (41)), started on its bouncing branch: impacts at a_n with speed 1/(n+3)!",
    .ndof = 1,
    .ncon = 1,
    .params = params,
    .nparams = NPAR,
    .t_end = 2.0,
    .initial_state = initial_state,
    .accel = accel,
    .gap = gap,
    .scales = scales,
    .check = check,
    .limit_value = limit_value,
    .forcing_time = forcing_time,
};
