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
 * once created, so one model can be shared by several runs in parallel.
 *
 * Sizes.  The numbers of degrees of freedom n and of constraints m are the case's fields ndof and
 * ncon, or, if the case gives `sizes`, computed from its parameters (N balls over N floors: n = m = N).
 * Nothing in penlim has a fixed maximum on them: the model allocates what it needs (a law per
 * constraint, M^{-1} n x n, or its diagonal alone for a sparse model) and owns it until pl_model_free;
 * every solver sizes its work arrays from n and m once per run.  pl_model_init only rejects absurd sizes
 * (PL_SIZE_LIMIT_DOF, _CON) and sizes beyond the machine's memory (pl_model_run_bytes): a dense model's
 * n x n arrays bound n by memory; a sparse model (pl_model_sparse) needs memory linear in n and m but
 * for one n x n array of its case's functions; constraints with supports cost in proportion to them.  Evaluations that need scratch space
 * take a pl_work (one per run, or per thread), so that the model itself is never written. */
#ifndef PL_MODEL_H
#define PL_MODEL_H

#include <stddef.h>

#include "laws/law.h"
#include "model/contact_law.h"
#include "core/params.h"
#include "core/status.h"
#include "penlim/model.h"

/* The parameters and inputs of a case are its own static tables (pl_case.params, ninput), so their
 * counts may stay bounded: a model keeps its parameter values in fixed arrays. */
#define PL_MAX_PARAMS 32
#define PL_MAX_INPUTS 8

/* Sizes a model refuses as absurd, stated as memory: a model's case hands over its M and its Jacobians of
 * F_v as n x n arrays (8 n^2 bytes each: 3.2 GB at 20000), and a dense model's run holds some twenty
 * more (docs/development.md); a constraint takes some 1000 bytes of a run's arrays (100 GB at 1e8: the
 * spheres' 10000 disks have 5e7, whose 53 GB the memory check weighs against the machine's). */
#define PL_SIZE_LIMIT_DOF 20000
#define PL_SIZE_LIMIT_CON 100000000

/* Bytes a model and a penalized run hold in arrays sized by n and m, the rule a model's creation checks
 * before anything is allocated (docs/development.md).  sparse = 0 (a dense model): M^{-1} (8 n^2) and
 * some twenty-two n x n scratch arrays of the run (pl_work's eight, the Jacobian's, the forces' and the
 * engine's), 188 n^2.  sparse = 1 (pl_model_sparse): one n x n array at a time, the case's M or one of
 * its Jacobians of F_v as its interface fills them (checked at the model's creation, the Jacobians again
 * in BDF's phase), 8 n^2, and 1000 bytes a degree of freedom (the state's vectors, the steppers', the
 * forces').  Both: 1000 bytes per constraint (its law, support, gap, roots and the engine's flags and
 * scales; measured 930 to 1030 at the spheres' 81400 and 322800 constraints).  BDF's dense Newton matrix
 * is not counted: KLU's path (from a state of PL_SPARSE_FROM on, docs/methods.md) holds none.  Neither
 * are the solution's rows (bounded by max_output) and the analysis' records of the episodes. */
double pl_model_run_bytes(size_t n, size_t m, int sparse);
/* The machine's physical memory in bytes (sysconf), 0 when unknown. */
double pl_physical_memory(void);
/* PL_ERR_INPUT, one line naming the bytes, when pl_model_run_bytes(n, m, sparse) exceeds physical (0: no
 * check). */
pl_status pl_model_check_memory(const char *name, size_t n, size_t m, int sparse, double physical, pl_error *err);

/* pl_gap, pl_limit_quantity and pl_case (the callbacks a case gives): include/penlim/model.h, the
 * public definition of a model. */

/* A model owns memory (released by pl_model_free) and is never written after pl_model_init. */
struct pl_model {
    const pl_case *type;
    void *library; /* the pl_model_library (model/loader.h) of a model made by pl_model_load, which
                      pl_model_destroy closes; NULL otherwise */
    size_t n, m;
    double par[PL_MAX_PARAMS];
    unsigned char par_set[PL_MAX_PARAMS]; /* 1 when given explicitly */
    const pl_law_type *law_type;          /* the contact law */
    double law_par[PL_LAW_MAX_PARAMS];    /* its parameters (the case's law callback may vary them) */
    unsigned char law_set[PL_LAW_MAX_PARAMS]; /* 1 when given explicitly */
    pl_contact_law *law;                  /* m: the contact law of each constraint (at the initial state) */
    int mass_constant;
    double *minv;                         /* n x n: M^{-1} when mass_constant, else NULL (and NULL for a model
                                             with supports whose M is diagonal: minv_diag alone) */
    double *minv_diag;                    /* n: its diagonal when M is constant and diagonal, else NULL */
    size_t *support;                      /* the case's supports, concatenated (NULL: it gives none) */
    size_t *support_start;                /* m + 1: where constraint i's support starts in `support` */
    size_t gap_width;                     /* entries of a gap's arrays: the longest support, or n */
    double gap_lipschitz, gap_rate;       /* the case's gap_bounds L, B (NAN without neighbour search) */
    double v_scale, a_scale;              /* contact velocity and acceleration scales */
};

/* A model of many bodies in the form whose evaluations need no n x n array: constraints with supports, M
 * constant and diagonal (M^{-1} kept as its diagonal alone, minv NULL), F_p = v.  Its memory is linear in
 * n, m and the supports' entries (pl_model_run_bytes). */
static inline int pl_model_sparse(const pl_model *model)
{
    return model->support && model->minv_diag && !model->type->velocity_map;
}

/* Contact geometry of constraint i at one state (storage from pl_contact_new). */
typedef struct {
    pl_gap gap;
    double gdot;  /* Gdot = grad G . F_p + G_t */
    double *w;    /* n: w = M^{-1} grad G; on its support (pl_model_contact_sparse) */
    const size_t *w_support; /* the coordinates of w's entries (NULL: all n) */
    size_t nw;    /* its entries */
    double m_eff; /* 1 / (grad G . w) */
} pl_contact;

/* count gaps (contacts) for n degrees of freedom in one allocation, each with its own grad, grad_t
 * (and w); NULL if out of memory; release with free().  With keep_hess each has its own Hessian,
 * kept (pl_gap); without, they share one n x n scratch for the case's writes. */
pl_gap *pl_gap_new(size_t count, size_t n, int keep_hess);
pl_contact *pl_contact_new(size_t count, size_t n, int keep_hess);
/* The same for the compressed evaluations (pl_model_gap_sparse, pl_model_contact_sparse): arrays of the
 * model's gap width (pl_model_gap_width), w of n or, where M is constant and diagonal, of the gap width. */
pl_gap *pl_gap_new_sparse(size_t count, const pl_model *model, int keep_hess);
pl_contact *pl_contact_new_sparse(size_t count, const pl_model *model, int keep_hess);
/* Dense gaps (contacts) of n entries that keep no Hessian, for pl_model_gap (pl_model_contact): their
 * shared Hessian scratch only as large as the case writes (the longest support's square with supports,
 * else n x n). */
pl_gap *pl_gap_new_scratch(size_t count, const pl_model *model);
pl_contact *pl_contact_new_scratch(size_t count, const pl_model *model);

/* The entries of a gap's arrays in the compressed evaluations: the longest support, or n without
 * supports. */
static inline size_t pl_model_gap_width(const pl_model *model)
{
    return model->gap_width;
}

/* Constraint i's support and its length (*count); NULL with *count = n when the case gives none. */
static inline const size_t *pl_model_support(const pl_model *model, size_t i, size_t *count)
{
    if (!model->support) {
        *count = model->n;
        return NULL;
    }
    *count = model->support_start[i + 1] - model->support_start[i];
    return model->support + model->support_start[i];
}

/* Coordinate of entry e of a gap's arrays. */
static inline size_t pl_gap_dof(const pl_gap *gap, size_t e)
{
    return gap->support ? gap->support[e] : e;
}

/* Scratch space of the model's evaluations (pl_model_accel, pl_model_contact_at,
 * pl_model_contact_coupling, pl_model_free_gap_accel, pl_model_initially_active), sized from one
 * model: allocate one per run, before it (never per step), and use it in one thread at a time.
 * NULL if out of memory. */
typedef struct pl_work pl_work;
pl_work *pl_work_new(const pl_model *model);
void pl_work_free(pl_work *work);

/* The contact data of a set of constraints and their couplings (pl_model_contact_coupling), with
 * room for all m constraints of a model: idx, c (no Hessians, see pl_contact_new), W and Wq
 * (k x k of m x m), and two m-vectors b, a for the caller's systems in the set. */
typedef struct {
    size_t k;
    size_t *idx;
    pl_contact *c;
    double *W, *Wq;
    double *b, *a;
    size_t *nz, *nz_start; /* the non-zero entries of each grad G (m n), where each one's start (m + 1) */
} pl_contact_set;

/* PL_ERR_NOMEM (with a message) if out of memory; cs is freeable either way. */
pl_status pl_contact_set_init(pl_contact_set *cs, const pl_model *model, pl_error *err);
void pl_contact_set_free(pl_contact_set *cs);

/* 1 if name can name a case or a parameter: 1 to 63 letters, digits, '_' or '-' (it becomes part of
 * file names). */
int pl_case_name_valid(const char *name);

/* Fix the parameters of case c: defaults, then settings (last one wins), range checks, the e/xi
 * pair (set one or the other; the other is derived), the case's own check; then the sizes n, m
 * (the case's sizes(p), or ndof and ncon), refused when 0 or absurd (n > PL_SIZE_LIMIT_DOF,
 * m > PL_SIZE_LIMIT_CON) with a message naming the parameter values, and the model's memory
 * (PL_ERR_NOMEM if it cannot be had).  Whatever the status, the model may be passed to
 * pl_model_free (on failure it holds no memory). */
pl_status pl_model_init(pl_model *model, const pl_case *c, const pl_setting *settings,
                        size_t nsettings, pl_error *err);
/* The same under contact law `law` (NULL: the default, kelvin_voigt): a setting naming one of its
 * parameters sets it; the case's PL_PARAM_LAW entries are defaults for the law's parameters of their
 * names, and their slots in the case's parameters receive the law's values (what the case's callbacks
 * read).  Refused (PL_ERR_INPUT, one line): a setting of a law parameter the law does not have, a law
 * parameter out of its range, a case parameter (not PL_PARAM_LAW) named like a law's parameter. */
pl_status pl_model_init_law(pl_model *model, const pl_case *c, const pl_law_type *law, const pl_setting *settings,
                            size_t nsettings, pl_error *err);

/* Constraint i's law at (t, q): the case's law_at if it gives one (into *scratch), else the law fixed
 * when the model was created. */
const pl_contact_law *pl_model_law_at(const pl_model *model, size_t i, double t, const double *q,
                                      pl_contact_law *scratch);

/* Release what pl_model_init allocated (the model is then empty; freeing it again is harmless). */
void pl_model_free(pl_model *model);

/* The case's error channel (pl_case.failed, ABI 5): 1 with its one-line message in msg (len >= 1) if
 * one of its callbacks failed, 0 if none did or the case has no channel. */
int pl_model_failed(const pl_model *model, char *msg, size_t len);

/* The case's closed-form limit of a sweep quantity, or NAN. */
double pl_model_limit_value(const pl_model *model, pl_limit_quantity what);

/* The longest Runge-Kutta step from t: the case's forcing_time when it gives a positive finite one,
 * else 0 (no bound). */
double pl_model_max_step(const pl_model *model, double t);

/* The case's time scale, which the schemes' default steps are fractions of: its forcing time at t = 0
 * where it gives one (its pulses are what a step must resolve; V/A, with A a bound over the whole run,
 * can be far shorter: (N - 1)! times for schatzman), else V/A. */
double pl_model_time_scale(const pl_model *model);

/* Value of a named parameter (NAN if the case has none of that name). */
double pl_model_param(const pl_model *model, const char *name);

void pl_model_initial_state(const pl_model *model, double *q, double *v);

/* F_p and (optionally) its Jacobians; defaults to the identity map. */
void pl_model_velocity_map(const pl_model *model, double t, const double *q, const double *v,
                           double *fp, double *fp_q, double *fp_v, double *fp_t);

/* F_v(q, v, u(t), t) and (optionally) its Jacobians dF_v/dq, dF_v/dv.  For a case giving `force`:
 * F_v = M^{-1} f by a Cholesky solve (M^{-1} kept by the model when M is constant),
 * dF_v/dv = M^{-1} df/dv and dF_v/dq_k = M^{-1} (df/dq_k - dM/dq_k F_v); where M(q) is not positive
 * definite, every output is NAN (pl_model_mass reports it).  work: for a case giving `force` (may be
 * NULL for one giving `accel`). */
void pl_model_accel(const pl_model *model, pl_work *work, double t, const double *q, const double *v, double *a,
                    double *a_q, double *a_v);

/* F_v as pl_model_accel (without Jacobians) and M(q)^{-1}, what a right-hand side with contacts
 * needs, from one factorization of M(q) where M varies (the two apart factor it twice): *minv is the
 * model's own inverse when M is constant, else minv_store (n x n) filled.  Non-zero if M(q) is not
 * positive definite. */
int pl_model_accel_minv(const pl_model *model, pl_work *work, double t, const double *q, const double *v, double *a,
                        double *minv_store, const double **minv);

/* Gap i with arrays of n entries (n x n), whatever the case's support: out's storage must have them
 * (pl_gap_new(count, n, ...)).  For a case with supports, the compressed evaluation expanded: the one
 * path by which consumers that are not worth making sparse (the limit solution, the schemes, the
 * analysis, the checks) see every gap dense.  out->support is NULL after it. */
void pl_model_gap(const pl_model *model, size_t i, double t, const double *q, pl_gap *out);
/* Gap i compressed to its support (out->support, out->nsupport; the same as pl_model_gap for a case
 * without supports): O(s) work, O(s^2) with the Hessian, and only that much of out written. */
void pl_model_gap_sparse(const pl_model *model, size_t i, double t, const double *q, pl_gap *out);
/* Gap i's rate with the gap compressed: pl_model_gap_rate over the support. */
double pl_model_gap_rate_sparse(const pl_model *model, size_t i, double t, const double *q, const double *fp,
                                pl_gap *gap);
/* A gap rate computed over the gap's support (pl_model_gap_rate_sparse, pl_model_contact_sparse) as the
 * dense sum (pl_model_gap_rate) has it: the two differ only in a zero's sign, the dense sum adding
 * 0 fp_j for each coordinate j off the support (-0 from a G_t of -0, plus +0, is +0), which files
 * write; O(1) but where gdot is -0 (then up to n). */
double pl_gap_rate_dense_zero(const pl_gap *gap, const double *fp, size_t n, double gdot);
/* pl_model_contact over the support: w on the gap's support where M is constant and diagonal, else
 * dense (n); c from pl_contact_new_sparse. */
void pl_model_contact_sparse(const pl_model *model, size_t i, double t, const double *q, const double *fp,
                             const double *minv, pl_contact *c);

/* The size of the terms a gap (dense or compressed) is computed from at (t, q):
 * sum_j |dG/dq_j q_j| + |G_t t| + |G|.
 * Its round-off is eps times this (a coordinate G does not depend on adds nothing, however large). */
double pl_gap_terms(const pl_gap *gap, double t, const double *q, size_t n);

/* PL_ERR_INPUT unless the initial state satisfies every constraint to 1e-12 of the length scale
 * V^2/A; the message ends with `why` ("the schemes start from an admissible state").  PL_ERR_NOMEM
 * if its scratch cannot be had. */
pl_status pl_model_check_admissible(const pl_model *model, const char *why, pl_error *err);

/* Gap of constraint i into gap, and its rate Gdot = grad G . F_p + G_t (returned); fp = F_p(q, v, t).
 * What pl_model_contact computes without the mass matrix: for checks of the geometry alone. */
double pl_model_gap_rate(const pl_model *model, size_t i, double t, const double *q, const double *fp,
                         pl_gap *gap);

/* dM/dq_k at q (n x n), from the case or by differences (PL_DERIVATIVES_NONE). */
void pl_model_mass_dq(const pl_model *model, const double *q, size_t k, double *dM);

/* M(q) and M(q)^{-1}; minv may be NULL. Returns non-zero if M(q) is not positive definite. */
int pl_model_mass(const pl_model *model, const double *q, double *M, double *minv);

/* M(q)^{-1} in work (valid until its next call with this work), or NULL if M(q) is not positive
 * definite. */
const double *pl_model_minv(const pl_model *model, pl_work *work, const double *q);

/* Gap, gap rate, direction w and effective mass of constraint i; fp = F_p(q, v, t), minv = M(q)^{-1}. */
void pl_model_contact(const pl_model *model, size_t i, double t, const double *q, const double *fp,
                      const double *minv, pl_contact *c);
/* The same with M(q)^{-1} computed here, in work. */
void pl_model_contact_at(const pl_model *model, pl_work *work, size_t i, double t, const double *q, const double *fp,
                         pl_contact *c);

/* Coupling of the constraints flagged in `set` (m flags) at (t, q, v): their number cs->k (returned),
 * indices cs->idx, contact data cs->c, and W_ab = grad G_a . (dF_p/dv) w_b, which maps contact forces
 * to gap accelerations (G'' = D + W lambda) and velocity changes along the w_b to gap-rate changes;
 * with want_wq, Wq_ab = grad G_a . w_b, which maps displacements along the w_b to gap changes.
 * k x k, row-major (stride k). */
size_t pl_model_contact_coupling(const pl_model *model, pl_work *work, double t, const double *q, const double *v,
                                 const int *set, pl_contact_set *cs, int want_wq);

/* Free gap acceleration D_i = d2G_i/dt2 along the smooth flow (no contact force), paper 004 (37). */
double pl_model_free_gap_accel(const pl_model *model, pl_work *work, size_t i, double t, const double *q,
                               const double *v);
/* The same for the k constraints idx[0..k-1] at one state, into D[0..k-1]: the velocity map and the free
 * acceleration are computed once. */
void pl_model_free_gap_accels(const pl_model *model, pl_work *work, double t, const double *q, const double *v,
                              const size_t *idx, size_t k, double *D);

/* Initial activity of every constraint into active[0..m-1]: penetrating, or on the boundary and not
 * leaving (Gdot < 0, or Gdot = 0 and D <= 0); the velocity map once, each gap over its support. */
void pl_model_initial_activity(const pl_model *model, pl_work *work, double t, const double *q, const double *v,
                               int *active);

/* Internal flag of a parameter (beside PL_PARAM_*): a parameter of a model built for ABI version 2, which
 * could not know the contact laws' parameter names, named like a parameter of some law (n, c): the
 * model's own, refused only under a law that has a parameter of that name (src/model/loader.c). */
#define PL_PARAM_MODEL_OWN 0x40000000u

/* Whether parameter k of the model's case applies: every parameter of the case, and of its defaults for
 * the law's parameters (PL_PARAM_LAW) those the model's law has (Hertz has no e). */
int pl_model_parameter_applies(const pl_model *model, size_t k);

#endif
