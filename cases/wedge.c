/* Two degrees of freedom in the quadrant q1 >= 0, q2 >= 0 with the constant mass matrix
 * M = [[1, m], [m, 1]], |m| < 1.  In the kinetic metric the quadrant is a wedge of interior angle
 * arccos(m): acute for m > 0, where the angle condition (H6) of Paoli (ARMA 2010) holds
 * (grad G_1 . M^-1 grad G_2 = -m/(1 - m^2) <= 0), and obtuse for m < 0, where rigid impact laws
 * depend discontinuously on the data.
 * A constant generalized force f acts on the mass.
 *
 * |m| is capped at 1 - 1e-6 (docs/cases.md, "wedge"): M's eigenvalues are 1 -+ m, its condition
 * number (1 + |m|)/(1 - |m|), and in the corner the penalty's two modes have the stiffnesses
 * k (1 -+ m) (the normalized Delassus matrix [[1, -m], [-m, 1]]).  As |m| -> 1 the two walls become
 * one in the kinetic metric: M^-1 and the effective masses 1 - m^2 lose log10(cond) digits (Paoli's
 * projection restitutes 0.95 of the speed at 1 - m = 1e-16, Lemke fails at 1e-14), and the corner's
 * slow mode lasts pi/sqrt(1 - |m|) single-wall contacts (the limit solution's fast time, 1e4 of
 * them, ends before it for 1 - m < 1e-7).  At 1e-6: cond <= 2e6, the slow mode 3142 contacts. */
#include "cases/cases.h"

enum { MC, Q1, Q2, V1, V2, F1, F2, E, XI, K, NPAR };

static const pl_param_spec params[NPAR] = {
    {"m", 0.5, -0.999999, 0.999999, 0,
     "off-diagonal entry of the mass matrix; |m| <= 1 - 1e-6, beyond which M's condition number (1 + |m|)/(1 - "
     "|m|) exceeds 2e6 and the corner's slowest mode, of stiffness k (1 - |m|), outlasts the resolved impacts"},
    {"q1", 1.0, -INFINITY, INFINITY, 0, "initial q1"},
    {"q2", 1.0, -INFINITY, INFINITY, 0, "initial q2"},
    {"v1", -1.0, -INFINITY, INFINITY, 0, "initial velocity v1"},
    {"v2", -1.0, -INFINITY, INFINITY, 0, "initial velocity v2"},
    {"f1", 0.0, -INFINITY, INFINITY, 0, "constant generalized force, component 1"},
    {"f2", 0.0, -INFINITY, INFINITY, 0, "constant generalized force, component 2"},
    PL_LAW_PARAMS(0.0),
};

static void initial_state(const double *p, double *q, double *v, void *user)
{
    (void)user;
    q[0] = p[Q1];
    q[1] = p[Q2];
    v[0] = p[V1];
    v[1] = p[V2];
}

static void mass(const double *p, const double *q, double *M, void *user)
{
    (void)q, (void)user;
    M[0] = 1.0;
    M[1] = p[MC];
    M[2] = p[MC];
    M[3] = 1.0;
}

/* The constant generalized force f = (f1, f2) of M q'' = f; the model solves with M. */
static void force(const double *p, double t, const double *q, const double *v, const double *u,
                  double *f, double *f_q, double *f_v, void *user)
{
    (void)t, (void)q, (void)v, (void)u, (void)user;
    f[0] = p[F1];
    f[1] = p[F2];
    for (int k = 0; k < 4; k++) {
        if (f_q)
            f_q[k] = 0.0;
        if (f_v)
            f_v[k] = 0.0;
    }
}

static void gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    (void)p, (void)t, (void)user;
    out->g = q[i];
    out->grad[i] = 1.0;
}

static void scales(const double *p, double *velocity, double *acceleration, void *user)
{
    (void)user;
    double det = 1.0 - p[MC] * p[MC];
    double a1 = (p[F1] - p[MC] * p[F2]) / det, a2 = (p[F2] - p[MC] * p[F1]) / det;
    *velocity = hypot(p[V1], p[V2]);
    *acceleration = hypot(a1, a2);
}

const pl_case pl_case_wedge = {
    .abi_version = PL_ABI_VERSION,
    .name = "wedge",
    .summary = "2 dof in q1, q2 >= 0 with mass matrix [[1, m], [m, 1]]: corner impacts, the angle condition of Paoli (ARMA 2010)",
    .ndof = 2,
    .ncon = 2,
    .params = params,
    .nparams = NPAR,
    .t_end = 3.0,
    .initial_state = initial_state,
    .force = force,
    .gap = gap,
    .scales = scales,
    .mass = mass,
};
