/* penlim: defining a mechanical system with unilateral constraints (a "case").
 *
 *   q' = F_p(q, v, t)                                  (default F_p = v)
 *   M(q) v' = f(q, v, u(t), t) + sum_i grad G_i(q, t) lambda_i,   G_i(q, t) >= 0
 *
 * (Miller and Bentsman, "Generalized solutions in systems with active unilateral constraints",
 * eq. (1)), the contact forces lambda_i being those of the penalized (visco-elastic) law, eq. (4),
 * in penalized runs, and of the limit mu -> infinity in the limit solution and the schemes.
 *
 * A case is a const table of callbacks and parameter specifications; penlim fixes its parameters
 * (pl_model_create) and validates it before any solve.  Every callback receives p, the values of the
 * case's parameters in the order of `params`, and `user`, the case's user pointer.  A model compiled
 * apart and loaded by the program (penlim run --model FILE.so) exports its case with
 * PL_EXPORT_MODEL, its case, parameter table and strings in static storage (the loader checks that
 * they lie in a loaded object).  Arrays are row-major; a Jacobian output pointer may be NULL when
 * not wanted.
 *
 * Callbacks must be reentrant: sweeps call them from several threads at once, with the same p and
 * user (keep no scratch in static variables or in *user; anything they write must be their own).
 * A model keeps pointers to the case, its parameter table and user: they must outlive it. */
#ifndef PENLIM_MODEL_H
#define PENLIM_MODEL_H

#include <stddef.h>
#include <string.h>

#include "penlim/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The layout of pl_case and pl_gap and the callbacks' signatures.  2: pl_case.valid_until.  3: contact
 * laws other than Kelvin-Voigt: pl_law carries the model's law, pl_case.law_at, PL_PARAM_LAW.  4: a
 * constraint's support (pl_case.support, pl_gap.support and nsupport).  5: the model's error channel
 * (pl_case.failed).  A model built for version 4 still loads (penlim run --model): its case is read as
 * version 5 without failed; one built for version 3 likewise without support, and one built for
 * version 2 without law_at, its law callback writing the fields k and xi that version 2's pl_law had
 * (docs/library.md).  Other versions are refused. */
#define PL_ABI_VERSION 5u

/* The most coordinates a constraint's support may have (pl_case.support). */
#define PL_MAX_SUPPORT 16

/* The symbol a loadable model exports: `const pl_case *penlim_model(void)`. */
#define PL_MODEL_SYMBOL "penlim_model"
#ifdef __cplusplus
#define PL_MODEL_LINKAGE extern "C"
#else
#define PL_MODEL_LINKAGE
#endif
#define PL_EXPORT_MODEL(case_variable)                                                             \
    PL_MODEL_LINKAGE __attribute__((visibility("default"))) const pl_case *penlim_model(void);    \
    PL_MODEL_LINKAGE const pl_case *penlim_model(void) { return &(case_variable); }

/* Flags of a parameter's range. */
enum {
    PL_PARAM_MIN_OPEN = 1u,  /* value must be > min rather than >= min */
    PL_PARAM_MAX_OPEN = 2u,  /* value must be < max rather than <= max */
    PL_PARAM_DERIVED = 4u,   /* default is NAN: computed from other parameters unless set */
    PL_PARAM_LAW = 8u        /* not a parameter of the case: its default for the contact law's parameter
                                of this name (k, e, xi; PL_LAW_PARAMS), set with the law's parameters */
};

typedef struct {
    const char *name;
    double value; /* default; NAN when PL_PARAM_DERIVED */
    double min, max;
    unsigned flags;
    const char *description;
} pl_param_spec;

/* One NAME=VALUE assignment of a case parameter or a solver option. */
typedef struct {
    char name[64];
    double value;
} pl_setting;

/* Parameters of a contact law, at most. */
#define PL_LAW_MAX_PARAMS 4

/* The contact law of one constraint, as the case's law or law_at callback sees it: penlim fills every
 * field with the model's law and values before the call, and the case changes the values that differ
 * between its constraints (or with the configuration).  k and xi are the law's parameters of those
 * names (Kelvin-Voigt's: lambda = -m_eff k (mu G + 2 xi sqrt(mu/k) Gdot), restitution
 * exp(-pi xi/sqrt(1 - xi^2)); a law without xi ignores it); penlim reads them from these two fields,
 * the law's other parameters from param (in the order `penlim laws` lists them; pl_law_set).  The
 * first two fields are ABI 2's pl_law. */
typedef struct {
    double k;  /* stiffness scale k_i > 0 (Kelvin-Voigt's per unit effective mass; see penlim laws) */
    double xi; /* Kelvin-Voigt's damping ratio xi_i >= 0 */
    const char *name;                          /* the law (read-only) */
    size_t nparams;                            /* read-only */
    const char *param_name[PL_LAW_MAX_PARAMS]; /* read-only */
    double param[PL_LAW_MAX_PARAMS];
} pl_law;

/* Set the law's parameter `name` (k and xi included); 0 if the law has no parameter of that name. */
static inline int pl_law_set(pl_law *law, const char *name, double value)
{
    for (size_t j = 0; j < law->nparams && j < PL_LAW_MAX_PARAMS; j++)
        if (law->param_name[j] && strcmp(law->param_name[j], name) == 0) {
            law->param[j] = value;
            if (strcmp(name, "k") == 0)
                law->k = value;
            else if (strcmp(name, "xi") == 0)
                law->xi = value;
            return 1;
        }
    return 0;
}

/* Constraint i evaluated at (q, t).  penlim zero-fills g, g_t, g_tt, grad and grad_t (and hess when
 * it reads it) before calling the case, so a case only sets the non-zero entries.  The arrays have
 * n entries (hess n x n, row-major) when the case gives no support; when it does (pl_case.support),
 * they have nsupport entries (hess nsupport x nsupport), entry e being the derivative in coordinate
 * support[e]. */
typedef struct {
    double g;       /* G_i(q, t); >= 0 admissible */
    double g_t;     /* dG/dt */
    double g_tt;    /* d2G/dt2 */
    double *grad;   /* dG/dq */
    double *grad_t; /* d2G/dq dt */
    double *hess;   /* d2G/dq2; always writable */
    int keep_hess;  /* set by penlim: 0 when it will not read hess (a case may then skip it) */
    /* ABI 4, set by penlim (read-only): the coordinates the arrays' entries are in (the case's
     * support of constraint i, ascending), or NULL with nsupport = n when the case gives none. */
    const size_t *support;
    size_t nsupport;
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

/* What a case's callbacks compute besides values. */
typedef enum {
    PL_DERIVATIVES_ANALYTIC = 0, /* every Jacobian and gap derivative (the default) */
    PL_DERIVATIVES_NONE = 1      /* values only (F_v or f, G, M): penlim differentiates by
                                    difference quotients, and says so in its summaries */
} pl_derivatives;

typedef struct pl_case pl_case;
struct pl_case {
    unsigned abi_version; /* PL_ABI_VERSION: first, so that it can be read whatever the layout */
    const char *name;     /* letters, digits, '_' and '-' */
    const char *summary;
    size_t ndof, ncon, ninput; /* sizes, unless `sizes` computes them from the parameters;
                                  ninput <= 8 components of u(t) */
    const pl_param_spec *params;
    size_t nparams; /* <= 32 */
    double t_end; /* default end time, > 0 */
    pl_derivatives derivatives;
    void *user; /* passed to every callback */

    /* Required. */
    void (*initial_state)(const double *p, double *q, double *v, void *user);
    /* The dynamics: exactly one of accel and force.
     * accel: F_v = M^{-1} f and its Jacobians dF_v/dq, dF_v/dv (n x n).
     * force: f(q, v, u, t) of M(q) v' = f, velocity-dependent terms (Coriolis, centrifugal,
     * damping) included, and its Jacobians df/dq, df/dv; penlim solves with M(q). */
    void (*accel)(const double *p, double t, const double *q, const double *v, const double *u, double *a,
                  double *a_q, double *a_v, void *user);
    void (*force)(const double *p, double t, const double *q, const double *v, const double *u, double *f,
                  double *f_q, double *f_v, void *user);
    void (*gap)(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user);
    /* Characteristic contact velocity and free gap acceleration (> 0 or 0), which scale the
     * tolerances with mu. */
    void (*scales)(const double *p, double *velocity, double *accel, void *user);

    /* Optional. */
    /* Sizes from the parameters (N bodies, say); without it, ndof and ncon. */
    void (*sizes)(const double *p, size_t *ndof, size_t *ncon, void *user);
    /* The contact law of constraint i (out holds the model's law and values: change those that differ);
     * by default every constraint takes the model's.  Called once, when the model is created. */
    void (*law)(const double *p, size_t i, pl_law *out, void *user);
    /* Cross-parameter validation: return 0, or non-zero with a one-line message in msg. */
    int (*check)(const double *p, char *msg, size_t len, void *user);
    /* Mass matrix M(q) (default identity), symmetric positive definite; zero-filled before the
     * call.  Without mass_dq, M must not depend on q. */
    void (*mass)(const double *p, const double *q, double *M, void *user);
    void (*mass_dq)(const double *p, const double *q, size_t k, double *dM, void *user); /* dM/dq_k */
    /* F_p and its Jacobians in q, v (n x n) and t (n); default F_p = v. */
    void (*velocity_map)(const double *p, double t, const double *q, const double *v, double *fp, double *fp_q,
                         double *fp_v, double *fp_t, void *user);
    /* Open-loop input u(t) (ninput components), passed to accel or force. */
    void (*input)(const double *p, double t, double *u, void *user);
    /* Closed-form mu -> infinity value of a sweep quantity, or NAN when not known. */
    double (*limit_value)(const double *p, pl_limit_quantity what, void *user);
    /* The shortest time scale of the forcing from t on (the width of its shortest pulse still to
     * come), or 0 when nothing ahead needs one: no Runge-Kutta step of a flight or an impact that
     * starts at t is longer.  For a force exactly flat between pulses, where an error estimate sees
     * nothing and steps would grow over whole pulses.  Absent: no bound. */
    double (*forcing_time)(const double *p, double t, void *user);
    /* The time up to which the parameters admit an admissible configuration (radii that grow until
     * the bodies no longer fit in their box, say), INFINITY if they always do, with the reason it
     * ends in msg (one line): a solve whose t-end lies beyond it is refused before it starts (bad
     * input).  Absent: no limit. */
    double (*valid_until)(const double *p, char *msg, size_t len, void *user);

    /* ABI 3. */
    /* The law of constraint i at (t, q), in place of `law` (give at most one): the coefficients of paper
     * 004's form (4), A(x, t) G + mu^(-1/2) B(x, t) Gdot, that depend on the configuration.  Penalized
     * runs evaluate it with every force; the limit solution freezes it at each impact's configuration.
     * Its dependence on q is not differentiated (the Newton iteration's Jacobian omits it). */
    void (*law_at)(const double *p, size_t i, double t, const double *q, pl_law *out, void *user);

    /* ABI 4. */
    /* The support of constraint i: the coordinates G_i depends on, into dofs, ascending, at most
     * PL_MAX_SUPPORT of them (their number returned, >= 1).  It must not depend on q or t: penlim asks
     * once, when the model is created, and refuses a support that is not ascending, out of range or
     * too long.  With it, gap's arrays hold the derivatives in these coordinates only (pl_gap), and
     * a constraint between two of many bodies costs penlim work in proportion to its support, not
     * to n.  Absent: every constraint depends on every coordinate (arrays of n). */
    size_t (*support)(const double *p, size_t i, size_t *dofs, void *user);
    /* Neighbour search (give both, with support): a penalized run evaluates only the constraints that
     * can come near contact, and proves that it leaves out none that could.
     * candidates: every constraint that can have G_i(q, t) < margin (it may list more), written into
     * out (room for every constraint; in any order, each once), their number returned.  A cell list
     * or a sweep in one coordinate makes it O(N) for N bodies.  penlim checks it once, when the model
     * is created, against every gap at (0, q0) with the run's margin V^2/A, and refuses a model whose
     * list leaves one out (or names an index >= m).
     * gap_bounds: L and B such that, for every constraint, |G_i(q', t) - G_i(q, t)| <= L max_j |q'_j -
     * q_j| and |dG_i/dt| <= B (finite, L > 0, B >= 0).  A constraint left out of the list at (t0, q0)
     * has G_i >= margin there, hence G_i > 0 while L max|q - q0| + B (t - t0) < margin: the run
     * rebuilds the list before that bound reaches margin/2 and redoes a step that takes it beyond
     * margin (docs/methods.md, Neighbour search). */
    size_t (*candidates)(const double *p, double t, const double *q, double margin, size_t *out, void *user);
    void (*gap_bounds)(const double *p, double *lipschitz, double *rate, void *user);

    /* ABI 5. */
    /* The model's error channel: nonzero once one of its callbacks has failed (a model written in
     * another language whose callback raised an exception, say: the callback cannot return a status,
     * so it fills its outputs with NAN and reports here), with a one-line message written into msg.
     * Solvers poll it at each step (where they check their time budget) and once at the end of each
     * solve, and pl_model_create once after validating the case: nonzero stops the solve with
     * PL_ERR_SOLVER ("the model failed at t = T: MSG", the solution up to there kept), or refuses the
     * model (PL_ERR_INPUT, "the model failed: MSG").  penlim does not reset it: a model that
     * failed stays failed.  Absent: the callbacks never fail. */
    int (*failed)(char *msg, size_t len, void *user);
};

/* A case with its parameters fixed and validated; immutable, so that it can be shared by
 * solves running in parallel. */
typedef struct pl_model pl_model;

/* Fix the parameters of case c (defaults, then the settings in order, range checks, the e/xi
 * pair, the case's check) and validate it: sizes, callbacks, finite values at the initial state,
 * a symmetric positive definite mass matrix, an admissible initial state.  NULL with err set
 * (PL_ERR_INPUT) if anything is wrong. */
PL_API pl_model *pl_model_create(const pl_case *c, const pl_setting *settings, size_t nsettings, pl_error *err);
/* The same under the contact law named `law` (penlim laws; NULL: kelvin_voigt): settings naming one of
 * its parameters set it, the others set the case's; a case's PL_PARAM_LAW entries are defaults for the
 * law's parameters of their names. */
PL_API pl_model *pl_model_create_law(const pl_case *c, const char *law, const pl_setting *settings, size_t nsettings,
                                     pl_error *err);
/* The same for the model compiled apart in the shared object at `path` (a path with a '/'; the
 * loader of `penlim run --model`, docs/library.md: ABI versions 2 to 5, the checks of the case's
 * storage), which stays loaded until pl_model_destroy. */
PL_API pl_model *pl_model_load(const char *path, const char *law, const pl_setting *settings, size_t nsettings,
                               pl_error *err);
/* The model's contact law's name, and the value of its parameter `name` (NAN if it has none). */
PL_API const char *pl_model_law(const pl_model *model);
PL_API double pl_model_law_parameter(const pl_model *model, const char *name);
PL_API void pl_model_destroy(pl_model *model);
PL_API const pl_case *pl_model_case(const pl_model *model);
PL_API size_t pl_model_dof(const pl_model *model);
PL_API size_t pl_model_constraints(const pl_model *model);
/* The value of a named parameter (NAN if the case has none of that name). */
PL_API double pl_model_parameter(const pl_model *model, const char *name);

/* The contact laws (penlim laws): the name and one-line summary of law `index` (NULL past the last),
 * and its parameters (their number; *params the table, defaults and ranges). */
PL_API size_t pl_law_count(void);
PL_API const char *pl_law_name(size_t index);
PL_API const char *pl_law_summary(size_t index);
PL_API size_t pl_law_parameters(size_t index, const pl_param_spec **params);

/* The built-in cases. */
PL_API size_t pl_builtin_case_count(void);
PL_API const pl_case *pl_builtin_case_at(size_t index);
PL_API const pl_case *pl_builtin_case_find(const char *name); /* NULL if unknown */

#ifdef __cplusplus
}
#endif

#endif
