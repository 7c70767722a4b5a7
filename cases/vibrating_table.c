/* A mass on a table whose surface moves as A sin(omega t): the time-dependent constraint
 * G = q - A sin(omega t) >= 0.  The mass starts resting on the table at t = 0; it stays in contact
 * while the table's downward acceleration is below g and lifts off at sin(omega t) = g/(A omega^2). */
#include "cases/cases.h"

enum { G_ACC, AMP, OMEGA, E, XI, K, NPAR };

static const pl_param_spec params[NPAR] = {
    {"g", 9.81, 0.0, INFINITY, 0, "gravity"},
    {"A", 0.5, 0.0, INFINITY, 0, "table amplitude"},
    {"omega", 2.0 * M_PI, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "table angular frequency"},
    PL_LAW_PARAMS(0.5),
};
/* in the case's units (registry.c); the law's parameters take the law's dimensions */
const pl_dim pl_case_vibrating_table_dims[NPAR] = {{1, -2}, {1, 0}, {0, -1}, PL_LAW_DIMS};

static void initial_state(const double *p, double *q, double *v, void *user)
{
    (void)user;
    q[0] = 0.0;               /* on the table surface at t = 0 */
    v[0] = p[AMP] * p[OMEGA]; /* moving with it */
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
    (void)i, (void)user;
    double s = sin(p[OMEGA] * t), c = cos(p[OMEGA] * t);
    out->g = q[0] - p[AMP] * s;
    out->g_t = -p[AMP] * p[OMEGA] * c;
    out->g_tt = p[AMP] * p[OMEGA] * p[OMEGA] * s;
    out->grad[0] = 1.0;
}

static void scales(const double *p, double *velocity, double *acceleration, void *user)
{
    (void)user;
    *velocity = p[AMP] * p[OMEGA];
    *acceleration = p[G_ACC] + p[AMP] * p[OMEGA] * p[OMEGA];
}

/* Resting on the table, the mass is pressed while g > A omega^2 sin(omega t) and lifts off at
 * t_off = asin(g/(A omega^2))/omega (the lift-off test of Paoli, ARMA 2010, and of Bernicot and
 * Lefebvre-Lepot, their moving floor). */
static double limit_value(const double *p, pl_limit_quantity what, void *user)
{
    (void)user;
    double g = p[G_ACC], a = p[AMP] * p[OMEGA] * p[OMEGA];
    if (what == PL_LIMIT_LIFT_OFF_FIRST && a > g)
        return asin(g / a) / p[OMEGA];
    if (what == PL_LIMIT_RESTITUTION_FIRST)
        return p[E];
    return NAN;
}

const pl_case pl_case_vibrating_table = {
    .abi_version = PL_ABI_VERSION,
    .name = "vibrating_table",
    .summary = "mass on a table moving as A sin(omega t): time-dependent constraint, lift-off, landing",
    .ndof = 1,
    .ncon = 1,
    .params = params,
    .nparams = NPAR,
    .t_end = 3.0,
    .initial_state = initial_state,
    .accel = accel,
    .gap = gap,
    .scales = scales,
    .limit_value = limit_value,
};
