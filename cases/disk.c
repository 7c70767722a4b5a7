/* A unit point mass outside the fixed disk of radius R centred at the origin, under gravity g along -y:
 * a test problem for Paoli (ARMA 2010), whose convergence result does not need K convex (her
 * introduction; the paper has no examples).  Here K = {|q| >= R} is not convex.  q = (x, y), M = I, and
 *
 *   G = |q| - R >= 0,   grad G = n = q/|q|,   Hessian (I - n n^T)/|q|.
 *
 * Decision: the distance |q| - R rather than x^2 + y^2 - R^2.  The contact law is the same spring for
 * either (its force -k mu delta n does not depend on the scaling of G, delta the distance), but the
 * limit of mu G, F^sm = -lambda/(m k), and every tolerance on G carry the factor |grad G| = 2R of the
 * squared form; with the distance F^sm = -N/k for the normal force N and G is a length.
 *
 * The mass starts on top, (0, R), with horizontal velocity (v0, 0).  While it slides, at the angle phi
 * from the top, energy gives v^2 = v0^2 + 2 g R (1 - cos phi) and the normal balance
 * N = g cos phi - v^2/R (unit mass); N vanishes where cos phi = (2 + v0^2/(g R))/3, and the mass
 * leaves the disk there (48.19 degrees as v0 -> 0).  The time to get there, from phi' = v/R with
 * 1 - cos phi = 2 sin^2(phi/2), is an incomplete elliptic integral of the first kind:
 *
 *   t_off = (2R/|v0|) F(phi_off/2 | -4 g R/v0^2),  F(psi | m) = sin(psi) R_F(cos^2 psi, 1 - m sin^2 psi, 1)
 *
 * (Carlson's form, valid for m < 0).  With v0^2 >= g R the mass flies off the top at once; with v0 = 0
 * it rests on the top, an unstable equilibrium. */
#include <gsl/gsl_sf_ellint.h>

#include "cases/cases.h"

enum { RADIUS, G_ACC, V0, E, XI, K, NPAR };

static const pl_param_spec params[NPAR] = {
    {"R", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "radius of the disk"},
    {"g", 9.81, 0.0, INFINITY, 0, "gravity, along -y"},
    {"v0", 1.0, -INFINITY, INFINITY, 0, "initial velocity (v0, 0) on the top of the disk"},
    PL_LAW_PARAMS(0.0),
};

static void initial_state(const double *p, double *q, double *v, void *user)
{
    (void)user;
    q[0] = 0.0;
    q[1] = p[RADIUS];
    v[0] = p[V0];
    v[1] = 0.0;
}

static void accel(const double *p, double t, const double *q, const double *v, const double *u,
                  double *a, double *a_q, double *a_v, void *user)
{
    (void)t, (void)q, (void)v, (void)u, (void)user;
    a[0] = 0.0;
    a[1] = -p[G_ACC];
    for (int k = 0; k < 4; k++) {
        if (a_q)
            a_q[k] = 0.0;
        if (a_v)
            a_v[k] = 0.0;
    }
}

static void gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    (void)i, (void)t, (void)user;
    double r = hypot(q[0], q[1]), n[2] = {q[0] / r, q[1] / r};
    out->g = r - p[RADIUS];
    for (int a = 0; a < 2; a++) {
        out->grad[a] = n[a];
        for (int b = 0; b < 2; b++)
            out->hess[a * 2 + b] = ((a == b) - n[a] * n[b]) / r;
    }
}

/* The largest speed of the slide, sqrt(g R cos phi_off) <= sqrt(v0^2 + g R), and gravity. */
static void scales(const double *p, double *velocity, double *acceleration, void *user)
{
    (void)user;
    *velocity = sqrt(p[V0] * p[V0] + p[G_ACC] * p[RADIUS]);
    *acceleration = p[G_ACC];
}

/* cos phi_off = (2 + b)/3 when the mass starts sliding, 0 < b = v0^2/(g R) < 1.  R_F is homogeneous
 * of degree -1/2, so t_off = (2R/v0) s R_F(c^2, 1 + 4 s^2/b, 1) = 2 sqrt(R/g) s R_F(b c^2, 4 s^2 + b, b):
 * no 1/v0^2 to overflow (the first form gave NAN for v0 <= 1e-154).  For b below 1e-200 (where b
 * itself, or R_F's arguments, would underflow) the expansion R_F(x, y, z) = ln(16 y/(sqrt x + sqrt z)^2)
 * /(2 sqrt y) + O(b ln b) for x, z = O(b) -> 0 (to round-off below b = 1e-14), in logarithms:
 * t_off = (s/sqrt(y)) sqrt(R/g) (ln(16 y/(1 + c)^2) - 2 ln u), u = |v0|/sqrt(g R), y = 4 s^2. */
static double limit_value(const double *p, pl_limit_quantity what, void *user)
{
    (void)user;
    double R = p[RADIUS], g = p[G_ACC], u = fabs(p[V0]) / sqrt(g * R), b = u * u;
    if (what != PL_LIMIT_LIFT_OFF_FIRST || !(u > 0.0) || !(b < 1.0))
        return NAN;
    double psi = 0.5 * acos((2.0 + b) / 3.0), s = sin(psi), c = cos(psi), y = 4.0 * s * s + b;
    if (b < 1e-200)
        return s / sqrt(y) * sqrt(R / g) * (log(16.0 * y / ((1.0 + c) * (1.0 + c))) - 2.0 * log(u));
    return 2.0 * sqrt(R / g) * s * gsl_sf_ellint_RF(b * c * c, y, b, GSL_PREC_DOUBLE);
}

const pl_case pl_case_disk = {
    .abi_version = PL_ABI_VERSION,
    .name = "disk",
    .summary = "point mass sliding off the top of a disk under gravity, a non-convex K for the setting of Paoli "
               "(ARMA 2010): lift-off where cos phi = (2 + v0^2/(g R))/3",
    .ndof = 2,
    .ncon = 1,
    .params = params,
    .nparams = NPAR,
    .t_end = 1.0,
    .initial_state = initial_state,
    .accel = accel,
    .gap = gap,
    .scales = scales,
    .limit_value = limit_value,
};
