/* @NAME@: a mechanical system with unilateral constraints for penlim (written by penlim new-model).
 *
 * Build and use it (penlim installed, pkg-config finding it):
 *
 *   cc -shared -fPIC -O2 $(pkg-config --cflags penlim) @NAME@.c -o @NAME@.so
 *   penlim check-model --model ./@NAME@.so     (derivatives against difference quotients)
 *   penlim sweep --model ./@NAME@.so           (penalized runs mu -> infinity, the limit)
 *
 * penlim solves   q' = v,   M(q) v' = f(q, v, t) + sum_i grad G_i(q, t) lambda_i,   G_i >= 0,
 * with lambda_i the visco-elastic contact force of stiffness k mu and damping ratio xi (restitution
 * e in the limit mu -> infinity).  This starting point: a unit point mass q = (x, y) under gravity
 * g, thrown from (x0, y0) with velocity (vx0, vy0) into the corner of the floor y >= 0 and the
 * wall x <= d.  Edit the parameters, the force and the constraints; keep the derivatives exact (or
 * set .derivatives = PL_DERIVATIVES_NONE and drop them: penlim then differentiates numerically). */
#include <math.h>
#include <stdio.h>

#include <penlim/model.h>

/* The parameters, in the order of the table below: p[G] is g in every callback. */
enum { G, D, X0, Y0, VX0, VY0, E, XI, K, NPAR };

static const pl_param_spec params[NPAR] = {
    /* name, default, min, max, flags (PL_PARAM_MIN_OPEN: > min), description */
    {"g", 9.81, 0.0, INFINITY, 0, "gravity"},
    {"d", 1.0, -INFINITY, INFINITY, 0, "position of the wall x = d"},
    {"x0", 0.0, -INFINITY, INFINITY, 0, "initial x"},
    {"y0", 1.0, 0.0, INFINITY, 0, "initial height"},
    {"vx0", 1.0, -INFINITY, INFINITY, 0, "initial velocity, x"},
    {"vy0", 0.0, -INFINITY, INFINITY, 0, "initial velocity, y"},
    /* The contact law: every constraint takes e (or xi) and k unless a `law` callback says otherwise. */
    {"e", 0.8, 0.0, 1.0, PL_PARAM_LAW, "restitution of an isolated impact (or set xi)"},
    {"xi", NAN, 0.0, INFINITY, PL_PARAM_DERIVED | PL_PARAM_LAW, "damping ratio of the contact law (or set e)"},
    {"k", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN | PL_PARAM_LAW, "contact stiffness scale"},
};

static void initial_state(const double *p, double *q, double *v, void *user)
{
    (void)user;
    q[0] = p[X0];
    q[1] = p[Y0];
    v[0] = p[VX0];
    v[1] = p[VY0];
}

/* The generalized force f of M(q) v' = f, and its Jacobians df/dq, df/dv (row-major, df_j/dq_k at
 * [j * n + k]; either pointer may be NULL).  Velocity-dependent terms (Coriolis, damping) go here. */
static void force(const double *p, double t, const double *q, const double *v, const double *u, double *f,
                  double *f_q, double *f_v, void *user)
{
    (void)t, (void)q, (void)v, (void)u, (void)user;
    f[0] = 0.0;
    f[1] = -p[G];
    for (int j = 0; j < 4; j++) {
        if (f_q)
            f_q[j] = 0.0;
        if (f_v)
            f_v[j] = 0.0;
    }
}

/* Constraint i: its value G >= 0 and derivatives.  penlim zero-fills `out` first, so set only what
 * is not zero: grad (dG/dq), hess (d2G/dq2, n x n), and for a moving obstacle g_t, g_tt, grad_t. */
static void gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    (void)t, (void)user;
    if (i == 0) { /* the floor: y >= 0 */
        out->g = q[1];
        out->grad[1] = 1.0;
    } else { /* the wall: x <= d */
        out->g = p[D] - q[0];
        out->grad[0] = -1.0;
    }
}

/* A typical contact speed and free gap acceleration: penlim scales its tolerances with them. */
static void scales(const double *p, double *velocity, double *accel, void *user)
{
    (void)user;
    *velocity = hypot(p[VX0], sqrt(p[VY0] * p[VY0] + 2.0 * p[G] * p[Y0]));
    *accel = p[G];
}

/* Optional: relations between parameters; return non-zero with a one-line message to refuse them. */
static int check(const double *p, char *msg, size_t len, void *user)
{
    (void)user;
    if (p[X0] > p[D]) {
        snprintf(msg, len, "the start x0 = %g is beyond the wall d = %g", p[X0], p[D]);
        return 1;
    }
    return 0;
}

static const pl_case model_case = {
    .abi_version = PL_ABI_VERSION,
    .name = "@NAME@",
    .summary = "a point mass thrown into the corner of a floor and a wall (edit me)",
    .ndof = 2,  /* or a `sizes` callback computing them from the parameters */
    .ncon = 2,
    .params = params,
    .nparams = NPAR,
    .t_end = 3.0,
    .initial_state = initial_state,
    .force = force, /* or .accel = ... giving M^-1 f directly */
    .gap = gap,
    .scales = scales,
    .check = check,
    /* Optional: .mass and .mass_dq (M(q), default identity), .law (per-constraint k, xi),
     * .velocity_map (q' = F_p(q, v, t)), .input (u(t)), .limit_value (closed forms),
     * .forcing_time (the shortest force pulse ahead), .valid_until (the time up to which the
     * parameters admit a configuration), .user (a pointer passed to every callback). */
};

PL_EXPORT_MODEL(model_case)
