/* A unit point mass inside the unit circle, no force: a test problem for the setting of Paoli (ARMA
 * 2010), whose convergence result allows nonlinear constraints f >= 0 and a position-dependent mass
 * matrix (her (H2)-(H4); the dynamics M(u) u'' - g(t, u, u') in -N_K(u), eq. (1)); the paper itself has
 * no examples.  A curved constraint and, in polar coordinates, M(q) with the Christoffel terms in g.
 * Two coordinate systems, switched by the parameter `polar`:
 *
 *   polar = 0: q = (x, y), M = I, G = 1 - x^2 - y^2 (concave; Hessian -2 I, which gives the
 *              centripetal term of the free gap acceleration D = -2 |v|^2 while sliding);
 *   polar = 1: q = (r, theta), M = diag(1, r^2), G = 1 - r, and the generalized force of
 *              M q'' = f is the Christoffel (centrifugal and Coriolis) term of the Lagrangian
 *              (r'^2 + r^2 theta'^2)/2: f = (r theta'^2, -2 r r' theta').
 *
 * The start is (0, y0) with velocity (v0, 0) (polar: r = |y0|, theta = +-pi/2, theta' = -v0/y0).
 * Free flight reaches the circle at t1 = sqrt(1 - y0^2)/|v0|, at (sign(v0) sqrt(1 - y0^2), y0).
 * With e = 0 (Moreau's inelastic law, Paoli's eq. (2)/(4)) the normal velocity is removed and the mass
 * slides along the circle at the tangential speed |v0 y0| (0.6 by default, from (0.8, 0.6) with
 * v+ = (0.36, -0.48)), pressed by the centripetal force v0^2 y0^2.
 *
 * The contact law is the same physical spring in both systems: lambda = -m k (mu G + ...) with
 * m = 1/|grad G|^2 acts along grad G/|grad G|^2, so the force is -k mu delta along the unit normal
 * (delta the signed distance) whatever the scaling of G.  Only G itself differs: near the circle
 * 1 - |x|^2 = 2 (1 - r) to first order, so mu G -> F^sm = -0.72/k in Cartesian coordinates and
 * -0.36/k in polar ones for the default start (F^sm = -lambda/(m k), lambda the normal force). */
#include <stdio.h>

#include "cases/cases.h"

enum { POLAR, Y0, V0, E, XI, K, NPAR };

static const pl_param_spec params[NPAR] = {
    {"polar", 0.0, 0.0, 1.0, 0, "coordinates: 0 Cartesian (x, y), 1 polar (r, theta) with M = diag(1, r^2)"},
    {"y0", 0.6, -1.0, 1.0, PL_PARAM_MIN_OPEN | PL_PARAM_MAX_OPEN, "start (0, y0)"},
    {"v0", 1.0, -INFINITY, INFINITY, 0, "initial velocity (v0, 0)"},
    PL_LAW_PARAMS(0.0),
};

static int polar(const double *p)
{
    return p[POLAR] != 0.0;
}

static void initial_state(const double *p, double *q, double *v, void *user)
{
    (void)user;
    if (polar(p)) {
        q[0] = fabs(p[Y0]);
        q[1] = p[Y0] > 0.0 ? M_PI / 2 : -M_PI / 2;
        v[0] = 0.0;
        v[1] = -p[V0] / p[Y0]; /* angular momentum x vy - y vx = -y0 v0 = r^2 theta' */
    } else {
        q[0] = 0.0;
        q[1] = p[Y0];
        v[0] = p[V0];
        v[1] = 0.0;
    }
}

static void mass(const double *p, const double *q, double *M, void *user)
{
    (void)user;
    M[0] = 1.0;
    M[3] = polar(p) ? q[0] * q[0] : 1.0;
}

static void mass_dq(const double *p, const double *q, size_t k, double *dM, void *user)
{
    (void)user;
    dM[0] = dM[1] = dM[2] = 0.0;
    dM[3] = polar(p) && k == 0 ? 2.0 * q[0] : 0.0;
}

/* Polar: f = (r theta'^2, -2 r r' theta'), the Christoffel terms (Paoli's g for a Lagrangian system).
 * Cartesian: no force. */
static void force(const double *p, double t, const double *q, const double *v, const double *u,
                  double *f, double *f_q, double *f_v, void *user)
{
    (void)t, (void)u, (void)user;
    int pol = polar(p);
    double r = q[0], rd = v[0], th = v[1];
    f[0] = pol ? r * th * th : 0.0;
    f[1] = pol ? -2.0 * r * rd * th : 0.0;
    if (f_q) {
        f_q[0] = pol ? th * th : 0.0;
        f_q[1] = 0.0;
        f_q[2] = pol ? -2.0 * rd * th : 0.0;
        f_q[3] = 0.0;
    }
    if (f_v) {
        f_v[0] = 0.0;
        f_v[1] = pol ? 2.0 * r * th : 0.0;
        f_v[2] = pol ? -2.0 * r * th : 0.0;
        f_v[3] = pol ? -2.0 * r * rd : 0.0;
    }
}

static void gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    (void)i, (void)t, (void)user;
    if (polar(p)) {
        out->g = 1.0 - q[0];
        out->grad[0] = -1.0;
        return;
    }
    out->g = 1.0 - q[0] * q[0] - q[1] * q[1];
    out->grad[0] = -2.0 * q[0];
    out->grad[1] = -2.0 * q[1];
    out->hess[0] = out->hess[3] = -2.0;
}

/* Velocity |v0|, acceleration v0^2: the centripetal acceleration on the unit circle (no force acts in
 * flight), so that the length scale V^2/A is the radius. */
/* V = |v0|; A bounds the free acceleration of the gap.  On the circle it is the centripetal v^2 <=
 * v0^2; in polar coordinates the flight's own r'' = r theta'^2 = v0^2 y0^2/r^3 is largest at the
 * start, r = |y0|: v0^2/|y0|, 1000 v0^2 at the polar start's limit |y0| = 1e-3, where the angle
 * turns at v0/|y0| and a scheme's default step (1e-2 V/A) must follow it. */
static void scales(const double *p, double *velocity, double *acceleration, void *user)
{
    (void)user;
    *velocity = fabs(p[V0]);
    *acceleration = polar(p) ? p[V0] * p[V0] / fabs(p[Y0]) : p[V0] * p[V0];
}

/* polar must be 0 or 1, and the polar start must keep away from r = 0, where M is singular (Paoli's
 * (H4)): the flight passes at distance |y0| from the centre. */
static int check(const double *p, char *msg, size_t len, void *user)
{
    (void)user;
    if (p[POLAR] != 0.0 && p[POLAR] != 1.0) {
        snprintf(msg, len, "polar must be 0 (Cartesian) or 1 (polar), not %g", p[POLAR]);
        return 1;
    }
    if (polar(p) && !(fabs(p[Y0]) >= 1e-3)) {
        snprintf(msg, len, "in polar coordinates the start (0, y0) must keep away from the centre, where "
                 "M = diag(1, r^2) is singular: |y0| >= 1e-3, not %g", p[Y0]);
        return 1;
    }
    return 0;
}

/* The first impact: at t1 = sqrt(1 - y0^2)/|v0| with gap rate -2 |v0| sqrt(1 - y0^2) (Cartesian) or
 * -|v0| sqrt(1 - y0^2) (polar). */
static double limit_value(const double *p, pl_limit_quantity what, void *user)
{
    (void)user;
    double c = sqrt(1.0 - p[Y0] * p[Y0]), V = fabs(p[V0]) * c * (polar(p) ? 1.0 : 2.0);
    if (!(fabs(p[V0]) > 0.0))
        return NAN;
    switch (what) {
    case PL_LIMIT_FIRST_IMPACT_TIME: return c / fabs(p[V0]);
    case PL_LIMIT_RESTITUTION_FIRST: return p[E];
    /* the penetration of G, i.e. |grad G| times the distance: the same factor in V */
    case PL_LIMIT_SCALED_PENETRATION_FIRST: return V / sqrt(p[K]) * pl_impact_penetration_factor(p[XI]);
    default: return NAN;
    }
}

const pl_case pl_case_cup = {
    .abi_version = PL_ABI_VERSION,
    .name = "cup",
    .summary = "point mass inside the unit circle, no force, for the setting of Paoli (ARMA 2010): impact, then "
               "sliding along a curved constraint; Cartesian (G = 1 - |x|^2) or polar (M = diag(1, r^2)) coordinates",
    .ndof = 2,
    .ncon = 1,
    .params = params,
    .nparams = NPAR,
    .t_end = 3.0,
    .initial_state = initial_state,
    .force = force,
    .gap = gap,
    .scales = scales,
    .check = check,
    .mass = mass,
    .mass_dq = mass_dq,
    .limit_value = limit_value,
};
