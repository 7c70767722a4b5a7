/* Newton's cradle (Ballard, "The dynamics of discrete mechanical systems with perfect unilateral
 * constraints", ARMA 2000, section 6.4, Newton's balls): N balls (N >= 2) of radius r and unit mass on
 * a line, q_j the centre of ball j (j = 0 .. N-1), no force.  Ball 0 moves at velocity V into the
 * chain of balls 1 .. N-1, at rest and touching (gaps exactly 0):
 *
 *   G_j = q_{j+1} - q_j - 2r >= 0        (j = 0 .. N-2: N - 1 constraints)
 *
 * grad G_j = e_{j+1} - e_j, so every contact has the effective mass m_j = 1/2 and the penalized force
 * between neighbours is a spring of stiffness m_j k mu = k mu/2 (paper 004, form (4)).
 *
 * Start: q_j = 2 r j for j >= 1, q_0 = -V (G_0 = V: ball 0 reaches ball 1 at t = 1), v = (V, 0, ..., 0).
 * The gaps of the resting balls are exactly 0 when 2 r j is exact in floating point (a dyadic r such as
 * the default 1/8); otherwise they are round-off, which every solver takes as contact.  The radius
 * changes nothing but the size of the positions, and with it the round-off of the gaps: the penalty
 * refuses a contact whose penetration scale is below 1e5 ulps of its gap's terms (about 4 r j), so
 * at k = 1 mu = 1e10 is resolved up to N = 10 with r = 1/8, up to N = 3 with r = 1/2.
 *
 * Outcomes (derived in tests/test_newtons_cradle.c and docs/cases.md):
 * - penalty, equal k: in X = sqrt(k mu) q/V, S = sqrt(k mu)(t - 1) the chain of springs is free of mu
 *   and k, so its outgoing velocities are the limit (N = 3, e = 1: (-0.1303, 0.1502, 0.9800) V);
 *   the limit solution's multi-contact impact (every gap on its boundary takes part) resolves it;
 * - Moreau's law (the simultaneous Newton law at every contact, Moreau-Jean; Ballard's (54), phi = e):
 *   v_0 = (1 + e - e N) V/N, v_j = (1 + e) V/N for j >= 1; the balls 1 .. N-1 stay together. */
#include <stdio.h>
#include <string.h>

#include "cases/cases.h"

enum { NB, R, VEL, E, XI, K, NPAR };

static const pl_param_spec params[NPAR] = {
    {"N", 3.0, 2.0, 10000.0, 0, "number of balls (a whole number, 2 to 10000): N dofs, N - 1 gaps; a penalized run "
     "holds arrays linear in N (about 2 kB a ball) and one N x N array at a time of the case's Jacobians, 8 N^2 bytes "
     "(0.8 GB at N = 10000); the trajectory's rows of 2 + 2N values grow with N^2 (the summary's velocity jumps, above "
     "100 balls over each contact's two balls, with N)"},
    {"r", 0.125, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "radius of every ball"},
    {"V", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "velocity of ball 0, which starts at distance V from ball 1"},
    PL_LAW_PARAMS(1.0),
};

static size_t balls(const double *p)
{
    return (size_t)p[NB];
}

static int check(const double *p, char *msg, size_t len, void *user)
{
    (void)user;
    if (p[NB] != floor(p[NB])) {
        snprintf(msg, len, "N = %g must be a whole number", p[NB]);
        return 1;
    }
    return 0;
}

static void sizes(const double *p, size_t *ndof, size_t *ncon, void *user)
{
    (void)user;
    *ndof = balls(p);
    *ncon = balls(p) - 1;
}

static void initial_state(const double *p, double *q, double *v, void *user)
{
    (void)user;
    size_t n = balls(p);
    q[0] = -p[VEL];
    v[0] = p[VEL];
    for (size_t j = 1; j < n; j++) {
        q[j] = 2.0 * p[R] * (double)j;
        v[j] = 0.0;
    }
}

static void accel(const double *p, double t, const double *q, const double *v, const double *u,
                  double *a, double *a_q, double *a_v, void *user)
{
    (void)t, (void)q, (void)v, (void)u, (void)user;
    size_t n = balls(p);
    for (size_t j = 0; j < n; j++)
        a[j] = 0.0;
    if (a_q) /* asked for one at a time by the Jacobian of many balls */
        memset(a_q, 0, n * n * sizeof *a_q);
    if (a_v)
        memset(a_v, 0, n * n * sizeof *a_v);
}

/* Gap j depends on balls j and j + 1. */
static size_t support(const double *p, size_t i, size_t *dofs, void *user)
{
    (void)p, (void)user;
    dofs[0] = i, dofs[1] = i + 1;
    return 2;
}

/* On the support (q_i, q_{i+1}). */
static void gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    (void)t, (void)user;
    out->g = q[i + 1] - q[i] - 2.0 * p[R];
    out->grad[0] = -1.0;
    out->grad[1] = 1.0;
}

/* V is the contact speed; no force acts, and A = V makes V/A = 1 the time ball 0 takes to reach the
 * chain (the time scale of the flight steps) and V^2/A = V its distance (the length scale). */
static void scales(const double *p, double *velocity, double *acceleration, void *user)
{
    (void)user;
    *velocity = p[VEL];
    *acceleration = p[VEL];
}

/* The first impact is at t = 1.  Its restitution (-gdot_out/gdot_in of gap 0) is not the limit
 * solution's: gap 0 opens (N = 3, e = 1: at 0.558 V) while ball 1 is still braked by gap 1, so its
 * rate falls to its final 0.280 V after the contact has ended; the value of the chain is left to the
 * limit solution. */
static double limit_value(const double *p, pl_limit_quantity what, void *user)
{
    (void)p, (void)user;
    return what == PL_LIMIT_FIRST_IMPACT_TIME ? 1.0 : NAN;
}

const pl_case pl_case_newtons_cradle = {
    .abi_version = PL_ABI_VERSION,
    .name = "newtons_cradle",
    .summary = "N balls on a line, the first moving into the N - 1 others at rest in contact: the penalty "
               "limit (chain of springs) against Moreau's simultaneous impact law",
    .ndof = 0, /* from sizes */
    .ncon = 0,
    .params = params,
    .nparams = NPAR,
    .t_end = 3.0,
    .initial_state = initial_state,
    .accel = accel,
    .gap = gap,
    .scales = scales,
    .check = check,
    .sizes = sizes,
    .limit_value = limit_value,
    .support = support,
};
