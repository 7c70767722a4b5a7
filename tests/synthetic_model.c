#include "synthetic_model.h"

#include <math.h>
#include <stdio.h>

enum { E, XI, K, NPAR };

static const pl_param_spec params[NPAR] = {
    {"e", 0.5, 0.0, 1.0, PL_PARAM_LAW, "restitution"},
    {"xi", NAN, 0.0, INFINITY, PL_PARAM_DERIVED | PL_PARAM_LAW, "damping ratio"},
    {"k", 1.7, 0.0, INFINITY, PL_PARAM_MIN_OPEN | PL_PARAM_LAW, "stiffness scale"},
};

static void initial_state(const double *p, double *q, double *v, void *user)
{
    (void)p, (void)user;
    q[0] = 0.3, q[1] = 0.4, v[0] = -0.2, v[1] = 0.1;
}

/* M = [[2 + sin q1, 0.3 q2], [0.3 q2, 1.5 + q1^2]] */
static void mass(const double *p, const double *q, double *M, void *user)
{
    (void)p, (void)user;
    M[0] = 2.0 + sin(q[0]);
    M[1] = M[2] = 0.3 * q[1];
    M[3] = 1.5 + q[0] * q[0];
}

static void mass_dq(const double *p, const double *q, size_t k, double *dM, void *user)
{
    (void)p, (void)user;
    if (k == 0) {
        dM[0] = cos(q[0]), dM[1] = dM[2] = 0.0, dM[3] = 2.0 * q[0];
    } else {
        dM[0] = 0.0, dM[1] = dM[2] = 0.3, dM[3] = 0.0;
    }
}

/* F_p = (v1 + 0.1 q2 v2, v2 (1 + 0.2 sin t)) */
static void velocity_map(const double *p, double t, const double *q, const double *v, double *fp,
                         double *fp_q, double *fp_v, double *fp_t, void *user)
{
    (void)p, (void)user;
    fp[0] = v[0] + 0.1 * q[1] * v[1];
    fp[1] = v[1] * (1.0 + 0.2 * sin(t));
    if (fp_q)
        fp_q[0] = 0.0, fp_q[1] = 0.1 * v[1], fp_q[2] = 0.0, fp_q[3] = 0.0;
    if (fp_v)
        fp_v[0] = 1.0, fp_v[1] = 0.1 * q[1], fp_v[2] = 0.0, fp_v[3] = 1.0 + 0.2 * sin(t);
    if (fp_t)
        fp_t[0] = 0.0, fp_t[1] = 0.2 * v[1] * cos(t);
}

static void input(const double *p, double t, double *u, void *user)
{
    (void)p, (void)user;
    u[0] = sin(t);
}

/* F_v = (-q1 - 0.1 v1^2 + u, -2 + q1 v2) */
static void accel(const double *p, double t, const double *q, const double *v, const double *u,
                  double *a, double *a_q, double *a_v, void *user)
{
    (void)p, (void)t, (void)user;
    a[0] = -q[0] - 0.1 * v[0] * v[0] + u[0];
    a[1] = -2.0 + q[0] * v[1];
    if (a_q)
        a_q[0] = -1.0, a_q[1] = 0.0, a_q[2] = v[1], a_q[3] = 0.0;
    if (a_v)
        a_v[0] = -0.2 * v[0], a_v[1] = 0.0, a_v[2] = 0.0, a_v[3] = q[0];
}

/* G1 = 1 - q1^2 - q2^2 + 0.1 t,  G2 = q2 - 0.2 sin 3t + 0.05 q1^2 */
static void gap(const double *p, size_t i, double t, const double *q, pl_gap *g, void *user)
{
    (void)p, (void)user;
    if (i == 0) {
        g->g = 1.0 - q[0] * q[0] - q[1] * q[1] + 0.1 * t;
        g->g_t = 0.1;
        g->grad[0] = -2.0 * q[0], g->grad[1] = -2.0 * q[1];
        g->hess[0] = -2.0, g->hess[3] = -2.0;
    } else {
        g->g = q[1] - 0.2 * sin(3.0 * t) + 0.05 * q[0] * q[0];
        g->g_t = -0.6 * cos(3.0 * t);
        g->g_tt = 1.8 * sin(3.0 * t);
        g->grad[0] = 0.1 * q[0], g->grad[1] = 1.0;
        g->hess[0] = 0.1;
    }
}

static void law(const double *p, size_t i, pl_law *out, void *user)
{
    (void)user;
    out->k = p[K] * (1.0 + (double)i);
    out->xi = p[XI];
}

static void scales(const double *p, double *velocity, double *acceleration, void *user)
{
    (void)p, (void)user;
    *velocity = 1.0;
    *acceleration = 2.0;
}

const pl_case pl_test_case_synthetic = {
    .abi_version = PL_ABI_VERSION,
    .name = "synthetic",
    .summary = "test model exercising every interface feature",
    .ndof = 2,
    .ncon = 2,
    .ninput = 1,
    .params = params,
    .nparams = NPAR,
    .t_end = 1.0,
    .initial_state = initial_state,
    .accel = accel,
    .gap = gap,
    .law = law,
    .scales = scales,
    .mass = mass,
    .mass_dq = mass_dq,
    .velocity_map = velocity_map,
    .input = input,
};

/* The same system given by its generalized force instead of F_v: M(q) v' = f with
 * f = (-q1 - 0.1 v1^2 + u + 0.2 q2 v1 v2, -2 + q1 v2 - 0.1 q1 v1^2) (velocity-quadratic terms as
 * Coriolis forces would give), so that F_v = M^{-1} f and dF_v/dq carries the dM/dq term. */
static void force(const double *p, double t, const double *q, const double *v, const double *u,
                  double *f, double *f_q, double *f_v, void *user)
{
    (void)p, (void)t, (void)user;
    f[0] = -q[0] - 0.1 * v[0] * v[0] + u[0] + 0.2 * q[1] * v[0] * v[1];
    f[1] = -2.0 + q[0] * v[1] - 0.1 * q[0] * v[0] * v[0];
    if (f_q)
        f_q[0] = -1.0, f_q[1] = 0.2 * v[0] * v[1], f_q[2] = v[1] - 0.1 * v[0] * v[0], f_q[3] = 0.0;
    if (f_v)
        f_v[0] = -0.2 * v[0] + 0.2 * q[1] * v[1], f_v[1] = 0.2 * q[1] * v[0], f_v[2] = -0.2 * q[0] * v[0],
        f_v[3] = q[0];
}

const pl_case pl_test_case_synthetic_force = {
    .abi_version = PL_ABI_VERSION,
    .name = "synthetic_force",
    .summary = "the synthetic model given by its generalized force f of M(q) v' = f",
    .ndof = 2,
    .ncon = 2,
    .ninput = 1,
    .params = params,
    .nparams = NPAR,
    .t_end = 1.0,
    .initial_state = initial_state,
    .force = force,
    .gap = gap,
    .law = law,
    .scales = scales,
    .mass = mass,
    .mass_dq = mass_dq,
    .velocity_map = velocity_map,
    .input = input,
};

enum { PA, PQ0, PV0, PE, PXI, PK, PNPAR };

static const pl_param_spec push_params[PNPAR] = {
    {"a", 2.0, -INFINITY, INFINITY, 0, "acceleration away from the floor"},
    {"q0", 1.0, -INFINITY, INFINITY, 0, "initial position"},
    {"v0", -2.0, -INFINITY, INFINITY, 0, "initial velocity"},
    {"e", 0.5, 0.0, 1.0, PL_PARAM_LAW, "restitution"},
    {"xi", NAN, 0.0, INFINITY, PL_PARAM_DERIVED | PL_PARAM_LAW, "damping ratio"},
    {"k", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN | PL_PARAM_LAW, "stiffness scale"},
};

static void push_initial(const double *p, double *q, double *v, void *user)
{
    (void)user;
    q[0] = p[PQ0];
    v[0] = p[PV0];
}

static void push_accel(const double *p, double t, const double *q, const double *v, const double *u,
                       double *a, double *a_q, double *a_v, void *user)
{
    (void)t, (void)q, (void)v, (void)u, (void)user;
    a[0] = p[PA];
    if (a_q)
        a_q[0] = 0.0;
    if (a_v)
        a_v[0] = 0.0;
}

static void push_gap(const double *p, size_t i, double t, const double *q, pl_gap *g, void *user)
{
    (void)p, (void)i, (void)t, (void)user;
    g->g = q[0];
    g->grad[0] = 1.0;
}

static void push_law(const double *p, size_t i, pl_law *out, void *user)
{
    (void)i, (void)user;
    out->k = p[PK];
    out->xi = p[PXI];
}

static void push_scales(const double *p, double *velocity, double *acceleration, void *user)
{
    (void)user;
    *velocity = fabs(p[PV0]);
    *acceleration = fabs(p[PA]);
}

const pl_case pl_test_case_push = {
    .abi_version = PL_ABI_VERSION,
    .name = "push",
    .summary = "mass pushed away from a floor (grazing tests)",
    .ndof = 1,
    .ncon = 1,
    .params = push_params,
    .nparams = PNPAR,
    .t_end = 2.0,
    .initial_state = push_initial,
    .accel = push_accel,
    .gap = push_gap,
    .law = push_law,
    .scales = push_scales,
};

enum { BN, BG, BH0, BKAPPA, BE, BXI, BK, BNPAR };

static const pl_param_spec balls_params[BNPAR] = {
    {"N", 3.0, 0.0, 1e9, 0, "number of balls: degrees of freedom and constraints"},
    {"g", 9.81, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "gravity"},
    {"h0", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "height of the lowest ball (ball i at h0 (1 + i/N))"},
    {"kappa", 0.0, 0.0, INFINITY, 0, "stiffness of the springs between neighbours"},
    {"e", 0.9, 0.0, 1.0, PL_PARAM_LAW, "restitution of ball 0 (ball i: e (1 - i/(2N)))"},
    {"xi", NAN, 0.0, INFINITY, PL_PARAM_DERIVED | PL_PARAM_LAW, "damping ratio of ball 0 (or set e)"},
    {"k", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN | PL_PARAM_LAW, "stiffness scale of ball 0 (ball i: k (1 + i/N))"},
};

static size_t balls_count(const double *p)
{
    return (size_t)p[BN];
}

static int balls_check(const double *p, char *msg, size_t len, void *user)
{
    (void)user;
    if (p[BN] != floor(p[BN])) {
        snprintf(msg, len, "N = %g must be a whole number", p[BN]);
        return 1;
    }
    return 0;
}

static void balls_sizes(const double *p, size_t *ndof, size_t *ncon, void *user)
{
    (void)user;
    *ndof = *ncon = balls_count(p);
}

static double height(const double *p, size_t i)
{
    return p[BH0] * (1.0 + (double)i / p[BN]);
}

static double restitution(const double *p, size_t i)
{
    return p[BE] * (1.0 - 0.5 * (double)i / p[BN]);
}

static void balls_initial(const double *p, double *q, double *v, void *user)
{
    (void)user;
    for (size_t i = 0; i < balls_count(p); i++) {
        q[i] = height(p, i);
        v[i] = 0.0;
    }
}

/* f_i = -(1 + i) g + kappa (q_{i-1} - q_i) + kappa (q_{i+1} - q_i) (no spring beyond the ends). */
static void balls_force(const double *p, double t, const double *q, const double *v, const double *u, double *f,
                        double *f_q, double *f_v, void *user)
{
    (void)t, (void)v, (void)u, (void)user;
    size_t n = balls_count(p);
    double kappa = p[BKAPPA];
    for (size_t i = 0; i < n; i++) {
        f[i] = -(1.0 + (double)i) * p[BG];
        if (i > 0)
            f[i] += kappa * (q[i - 1] - q[i]);
        if (i + 1 < n)
            f[i] += kappa * (q[i + 1] - q[i]);
    }
    for (size_t j = 0; j < n * n; j++) {
        if (f_q)
            f_q[j] = 0.0;
        if (f_v)
            f_v[j] = 0.0;
    }
    for (size_t i = 0; f_q && i < n; i++) {
        if (i > 0)
            f_q[i * n + i - 1] = kappa, f_q[i * n + i] -= kappa;
        if (i + 1 < n)
            f_q[i * n + i + 1] = kappa, f_q[i * n + i] -= kappa;
    }
}

static void balls_mass(const double *p, const double *q, double *M, void *user)
{
    (void)q, (void)user;
    size_t n = balls_count(p);
    for (size_t i = 0; i < n; i++)
        M[i * n + i] = 1.0 + (double)i;
}

static void balls_gap(const double *p, size_t i, double t, const double *q, pl_gap *g, void *user)
{
    (void)p, (void)t, (void)user;
    g->g = q[i];
    g->grad[i] = 1.0;
}

static void balls_law(const double *p, size_t i, pl_law *out, void *user)
{
    (void)user;
    out->k = p[BK] * (1.0 + (double)i / p[BN]);
    out->xi = pl_xi_from_restitution(restitution(p, i));
}

static void balls_scales(const double *p, double *velocity, double *acceleration, void *user)
{
    (void)user;
    *velocity = sqrt(2.0 * p[BG] * height(p, balls_count(p) - 1));
    *acceleration = p[BG];
}

const pl_case pl_test_case_balls = {
    .abi_version = PL_ABI_VERSION,
    .name = "balls",
    .summary = "N balls of masses 1..N, each over its own floor (sizes from the parameter N)",
    .ndof = 0, /* from sizes */
    .ncon = 0,
    .params = balls_params,
    .nparams = BNPAR,
    .t_end = 1.0,
    .initial_state = balls_initial,
    .force = balls_force,
    .gap = balls_gap,
    .law = balls_law,
    .scales = balls_scales,
    .check = balls_check,
    .sizes = balls_sizes,
    .mass = balls_mass,
};

double pl_test_balls_height(const pl_model *model, size_t i)
{
    return height(model->par, i);
}

double pl_test_balls_restitution(const pl_model *model, size_t i)
{
    return restitution(model->par, i);
}

double pl_test_balls_impact_time(const pl_model *model, size_t i)
{
    return sqrt(2.0 * height(model->par, i) / model->par[BG]);
}
