/* A Newton's cradle written as a user model: N balls of radius r and unit mass on a line, q_j the
 * centre of ball j; the first moves at speed V into the others, at rest and touching.  The N - 1
 * constraints are the gaps between neighbours, G_i = q_{i+1} - q_i - 2 r >= 0.  The number of balls
 * is a parameter, so the sizes come from the parameters (the `sizes` callback).  No external
 * force: momentum is conserved by every solver. */
#include <math.h>
#include <stdio.h>

#include <penlim/model.h>

enum { N, R, V, E, XI, K, NPAR };

static const pl_param_spec params[NPAR] = {
    {"N", 3.0, 2.0, 100.0, 0, "number of balls"},
    {"r", 0.5, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "radius"},
    {"V", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "speed of the first ball"},
    {"e", 1.0, 0.0, 1.0, PL_PARAM_LAW, "restitution of an isolated impact (or set xi)"},
    {"xi", NAN, 0.0, INFINITY, PL_PARAM_DERIVED | PL_PARAM_LAW, "damping ratio of the contact law (or set e)"},
    {"k", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN | PL_PARAM_LAW, "contact stiffness scale"},
};

static size_t balls(const double *p)
{
    return (size_t)p[N];
}

static void sizes(const double *p, size_t *ndof, size_t *ncon, void *user)
{
    (void)user;
    *ndof = balls(p);
    *ncon = balls(p) - 1;
}

/* Ball 0 at distance r from ball 1, which touches the rest: it reaches them at t = r/V. */
static void initial_state(const double *p, double *q, double *v, void *user)
{
    (void)user;
    size_t n = balls(p);
    q[0] = -p[R];
    v[0] = p[V];
    for (size_t j = 1; j < n; j++) {
        q[j] = 2.0 * p[R] * (double)j;
        v[j] = 0.0;
    }
}

static void accel(const double *p, double t, const double *q, const double *v, const double *u, double *a,
                  double *a_q, double *a_v, void *user)
{
    (void)t, (void)q, (void)v, (void)u, (void)user;
    size_t n = balls(p);
    for (size_t j = 0; j < n; j++)
        a[j] = 0.0;
    for (size_t j = 0; j < n * n; j++) {
        if (a_q)
            a_q[j] = 0.0;
        if (a_v)
            a_v[j] = 0.0;
    }
}

static void gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    (void)t, (void)user;
    out->g = q[i + 1] - q[i] - 2.0 * p[R];
    out->grad[i] = -1.0;
    out->grad[i + 1] = 1.0;
}

static void scales(const double *p, double *velocity, double *accel_scale, void *user)
{
    (void)user;
    *velocity = p[V];
    *accel_scale = 0.0;
}

static int check(const double *p, char *msg, size_t len, void *user)
{
    (void)user;
    if (p[N] != floor(p[N])) {
        snprintf(msg, len, "N must be a whole number (got %g)", p[N]);
        return 1;
    }
    return 0;
}

static const pl_case cradle = {
    .abi_version = PL_ABI_VERSION,
    .name = "cradle",
    .summary = "Newton's cradle written as a user model: N unit balls on a line, the first moving",
    .params = params,
    .nparams = NPAR,
    .t_end = 3.0,
    .sizes = sizes,
    .initial_state = initial_state,
    .accel = accel,
    .gap = gap,
    .scales = scales,
    .check = check,
};

PL_EXPORT_MODEL(cradle)
