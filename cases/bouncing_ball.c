/* Paper 004 eq. (51): a point mass above a floor under gravity, G = q >= 0, unit mass. */
#include "cases/cases.h"

enum { G_ACC, H0, V0, E, XI, K, NPAR };

static const pl_param_spec params[NPAR] = {
    {"g", 9.81, 0.0, INFINITY, 0, "gravity: constant acceleration toward the floor"},
    {"h0", 1.0, 0.0, INFINITY, 0, "initial height above the floor"},
    {"v0", 0.0, -INFINITY, INFINITY, 0, "initial velocity (positive = upward)"},
    PL_LAW_PARAMS(0.9),
};
/* in the case's units (registry.c); the law's parameters take the law's dimensions */
const pl_dim pl_case_bouncing_ball_dims[NPAR] = {{1, -2}, {1, 0}, {1, -1}, PL_LAW_DIMS};

static void initial_state(const double *p, double *q, double *v, void *user)
{
    (void)user;
    q[0] = p[H0];
    v[0] = p[V0];
}

static void accel(const double *p, double t, const double *q, const double *v, const double *u,
                  double *a, double *a_q, double *a_v, void *user)
{
    (void)t, (void)q, (void)v, (void)u, (void)user;
    a[0] = -p[G_ACC];
    if (a_q)
        a_q[0] = 0.0;
    if (a_v)
        a_v[0] = 0.0;
}

static void gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    (void)p, (void)i, (void)t, (void)user;
    out->g = q[0];
    out->grad[0] = 1.0;
}

static void scales(const double *p, double *velocity, double *acceleration, void *user)
{
    (void)user;
    *velocity = sqrt(p[V0] * p[V0] + 2.0 * p[G_ACC] * p[H0]);
    *acceleration = p[G_ACC];
}

/* Free fall from h0 with v0, then impacts with restitution e: t1 = (v0 + V)/g with V the impact
 * speed sqrt(v0^2 + 2 g h0); impacts accumulate at t1 + 2 V e/(g (1 - e)) (the geometric series of
 * the flights 2 V e^k/g; paper 004, section 7). */
static double limit_value(const double *p, pl_limit_quantity what, void *user)
{
    (void)user;
    double g = p[G_ACC], V = sqrt(p[V0] * p[V0] + 2.0 * g * p[H0]), e = p[E];
    if (!(g > 0.0) || !(V > 0.0))
        return NAN; /* no impact */
    double t1 = (p[V0] + V) / g;
    switch (what) {
    case PL_LIMIT_FIRST_IMPACT_TIME: return t1;
    case PL_LIMIT_RESTITUTION_FIRST: return e;
    case PL_LIMIT_SCALED_PENETRATION_FIRST: return V / sqrt(p[K]) * pl_impact_penetration_factor(p[XI]);
    case PL_LIMIT_CAPTURE_TIME: return e < 1.0 ? t1 + 2.0 * V * e / (g * (1.0 - e)) : NAN;
    default: return NAN;
    }
}

const pl_case pl_case_bouncing_ball = {
    .abi_version = PL_ABI_VERSION,
    .name = "bouncing_ball",
    .summary = "point mass above a floor under gravity (paper 004, eq. 51)",
    .ndof = 1,
    .ncon = 1,
    .params = params,
    .nparams = NPAR,
    .t_end = 10.0,
    .initial_state = initial_state,
    .accel = accel,
    .gap = gap,
    .scales = scales,
    .limit_value = limit_value,
};
