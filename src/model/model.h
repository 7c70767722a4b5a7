/* The model interface (paper 004, eq. (1) and (4)): what a case provides, and the quantities the solvers
 * derive from it.
 *
 *   q' = F_p(q, v, t)                                  (default F_p = v)
 *   v' = F_v(q, v, u(t), t) + sum_i w_i lambda_i I{G_i(q, t) <= 0}
 *
 * A case gives its smooth dynamics in one of two ways: F_v itself (`accel`), or the generalized
 * force f of M(q) v' = f(q, v, u(t), t) (`force`), from which the model forms F_v = M(q)^{-1} f and
 * its Jacobians.  Solvers only ever see F_v (pl_model_accel).
 *
 * A case (a pl_case, one file each in cases/) is a const table of callbacks and parameter specs; a
 * model (pl_model) is a case with its parameter values fixed and validated.  Models are immutable
 * once created, so one model can be shared by several runs in parallel. */
#ifndef PL_MODEL_H
#define PL_MODEL_H

#include <stddef.h>

#include "model/contact_law.h"
#include "core/params.h"
#include "core/status.h"

#define PL_MAX_DOF 16
#define PL_MAX_CON 16
#define PL_MAX_PARAMS 32
#define PL_MAX_INPUTS 8

/* Constraint i evaluated at (q, t).  The model zero-fills it before calling the case, so a case
 * only sets the entries that are non-zero. */
typedef struct {
    double g;                            /* G_i(q, t); >= 0 admissible */
    double g_t;                          /* dG/dt */
    double g_tt;                         /* d2G/dt2 */
    double grad[PL_MAX_DOF];             /* dG/dq */
    double grad_t[PL_MAX_DOF];           /* d2G/dq dt */
    double hess[PL_MAX_DOF * PL_MAX_DOF]; /* d2G/dq2, row-major */
} pl_gap;

/* Sweep quantities whose mu -> infinity value a case may know in closed form. */
typedef enum {
    PL_LIMIT_FIRST_IMPACT_TIME,
    PL_LIMIT_RESTITUTION_FIRST,        /* restitution of the first impact */
    PL_LIMIT_SCALED_PENETRATION_FIRST, /* sqrt(mu) * max penetration of the first impact */
    PL_LIMIT_CAPTURE_TIME,             /* Zeno accumulation time: start of the final rest */
    PL_LIMIT_LIFT_OFF_FIRST,           /* end of the first sustained contact */
    PL_LIMIT_COUNT
} pl_limit_quantity;

typedef struct pl_case pl_case;
struct pl_case {
    const char *name;
    const char *summary;
    size_t ndof, ncon, ninput;
    const pl_param_spec *params;
    size_t nparams;
    double t_end; /* default end time */

    /* Required. Arrays are row-major; Jacobian outputs may be NULL when not wanted. */
    void (*initial_state)(const double *p, double *q, double *v);
    /* The dynamics: exactly one of accel and force (pl_model_init rejects neither or both).
     * accel: F_v and its Jacobians dF_v/dq, dF_v/dv (n x n), M^{-1} already applied.
     * force: the generalized force f(q, v, u, t) of M(q) v' = f, velocity-dependent terms
     * (Coriolis, centrifugal, damping) included, and its Jacobians df/dq, df/dv (n x n); the model
     * solves with M(q) (mass, mass_dq) for F_v = M^{-1} f and its Jacobians. */
    void (*accel)(const double *p, double t, const double *q, const double *v, const double *u,
                  double *a, double *a_q, double *a_v);
    void (*force)(const double *p, double t, const double *q, const double *v, const double *u,
                  double *f, double *f_q, double *f_v);
    void (*gap)(const double *p, size_t i, double t, const double *q, pl_gap *out);
    /* Characteristic contact velocity and free gap acceleration, used to scale tolerances with mu. */
    void (*scales)(const double *p, double *velocity, double *accel);

    /* Optional. */
    /* The contact law of constraint i; by default every constraint takes the parameters k and xi. */
    void (*law)(const double *p, size_t i, pl_law *out);
    /* Cross-parameter validation: return 0, or non-zero with a one-line message in msg. */
    int (*check)(const double *p, char *msg, size_t len);
    /* Mass matrix M(q) (default identity), symmetric positive definite; the model zero-fills M
     * before the call.  If mass_dq is NULL, M must not depend on q. */
    void (*mass)(const double *p, const double *q, double *M);
    void (*mass_dq)(const double *p, const double *q, size_t k, double *dM); /* dM/dq_k, all n x n */
    /* F_p and its Jacobians in q, v (n x n) and t (n); default F_p = v. */
    void (*velocity_map)(const double *p, double t, const double *q, const double *v, double *fp,
                         double *fp_q, double *fp_v, double *fp_t);
    /* Open-loop input u(t) (ninput components), passed to accel or force. */
    void (*input)(const double *p, double t, double *u);
    /* Closed-form mu -> infinity value of a sweep quantity, or NAN when not known. */
    double (*limit_value)(const double *p, pl_limit_quantity what);
};

typedef struct {
    const pl_case *type;
    size_t n, m;
    double par[PL_MAX_PARAMS];
    unsigned char par_set[PL_MAX_PARAMS]; /* 1 when given explicitly */
    pl_law law[PL_MAX_CON];
    int mass_constant;
    double minv[PL_MAX_DOF * PL_MAX_DOF]; /* M^{-1} when mass_constant */
    double v_scale, a_scale;              /* contact velocity and acceleration scales */
} pl_model;

/* Contact geometry of constraint i at one state. */
typedef struct {
    pl_gap gap;
    double gdot;            /* Gdot = grad G . F_p + G_t */
    double w[PL_MAX_DOF];   /* w = M^{-1} grad G */
    double m_eff;           /* 1 / (grad G . w) */
} pl_contact;

/* Fix the parameters of case c: defaults, then settings (last one wins), range checks, the e/xi
 * pair (set one or the other; the other is derived), the case's own check. */
pl_status pl_model_init(pl_model *model, const pl_case *c, const pl_setting *settings,
                        size_t nsettings, pl_error *err);

/* The case's closed-form limit of a sweep quantity, or NAN. */
double pl_model_limit_value(const pl_model *model, pl_limit_quantity what);

/* Value of a named parameter (NAN if the case has none of that name). */
double pl_model_param(const pl_model *model, const char *name);

void pl_model_initial_state(const pl_model *model, double *q, double *v);

/* F_p and (optionally) its Jacobians; defaults to the identity map. */
void pl_model_velocity_map(const pl_model *model, double t, const double *q, const double *v,
                           double *fp, double *fp_q, double *fp_v, double *fp_t);

/* F_v(q, v, u(t), t) and (optionally) its Jacobians dF_v/dq, dF_v/dv.  For a case giving `force`:
 * F_v = M^{-1} f by a Cholesky solve (M^{-1} kept by the model when M is constant),
 * dF_v/dv = M^{-1} df/dv and dF_v/dq_k = M^{-1} (df/dq_k - dM/dq_k F_v); where M(q) is not positive
 * definite, every output is NAN (pl_model_mass reports it). */
void pl_model_accel(const pl_model *model, double t, const double *q, const double *v, double *a,
                    double *a_q, double *a_v);

void pl_model_gap(const pl_model *model, size_t i, double t, const double *q, pl_gap *out);

/* The size of the terms a gap is computed from at (t, q): sum_j |dG/dq_j q_j| + |G_t t| + |G|.
 * Its round-off is eps times this (a coordinate G does not depend on adds nothing, however large). */
double pl_gap_terms(const pl_gap *gap, double t, const double *q, size_t n);

/* PL_ERR_INPUT unless the initial state satisfies every constraint to 1e-12 of the length scale
 * V^2/A; the message ends with `why` ("the schemes start from an admissible state"). */
pl_status pl_model_check_admissible(const pl_model *model, const char *why, pl_error *err);

/* Gap of constraint i into gap, and its rate Gdot = grad G . F_p + G_t (returned); fp = F_p(q, v, t).
 * What pl_model_contact computes without the mass matrix: for checks of the geometry alone. */
double pl_model_gap_rate(const pl_model *model, size_t i, double t, const double *q, const double *fp,
                         pl_gap *gap);

/* M(q) and M(q)^{-1}; minv may be NULL. Returns non-zero if M(q) is not positive definite. */
int pl_model_mass(const pl_model *model, const double *q, double *M, double *minv);

/* Gap, gap rate, direction w and effective mass of constraint i; fp = F_p(q, v, t).
 * minv = M(q)^{-1}, or NULL to have it computed here. */
void pl_model_contact(const pl_model *model, size_t i, double t, const double *q, const double *fp,
                      const double *minv, pl_contact *c);

/* Coupling of the constraints flagged in `set` at (t, q, v), k of them (returned), indices idx[],
 * contact data c[]: W_ab = grad G_a . (dF_p/dv) w_b maps contact forces to gap accelerations
 * (G'' = D + W lambda) and velocity changes along the w_b to gap-rate changes; if Wq is not NULL,
 * Wq_ab = grad G_a . w_b maps displacements along the w_b to gap changes.  k x k, row-major. */
size_t pl_model_contact_coupling(const pl_model *model, double t, const double *q, const double *v, const int *set,
                                 size_t *idx, pl_contact *c, double *W, double *Wq);

/* Free gap acceleration D_i = d2G_i/dt2 along the smooth flow (no contact force), paper 004 (37). */
double pl_model_free_gap_accel(const pl_model *model, size_t i, double t, const double *q,
                               const double *v);

/* Initial activity of constraint i: penetrating, or on the boundary and not leaving
 * (Gdot < 0, or Gdot = 0 and D <= 0). */
int pl_model_initially_active(const pl_model *model, size_t i, double t, const double *q,
                              const double *v);

#endif
