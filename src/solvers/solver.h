/* Solver types and their registry, after GSL's ode-initval2 steppers (gsl_odeiv2_step_type): a
 * solver is a const struct naming its family, its options (with defaults and ranges) and its solve
 * function; every solver fills the neutral pl_solution (solution.h), which owns all its memory and
 * is released by pl_solution_free whatever the solver.
 *
 * Built in (registry.c): the penalized system for one stiffness mu (GSL's rk8pd through impacts and flights,
 * CVODE's BDF in settled contact), the limit solution
 * computed directly, and the time-stepping schemes of Moreau-Jean, Paoli and Bernicot-Lefebvre
 * (after Maury).  A new solver is one source file defining a pl_solver_type and one line in the
 * registry. */
#ifndef PL_SOLVER_H
#define PL_SOLVER_H

#include <string.h>

#include "core/params.h"
#include "model/model.h"
#include "solvers/solution.h"

/* PL_FAMILY_EXTERNAL: a trajectory read from a file (io/external.h); it has no solve function and
 * is not in the registry. */
typedef enum { PL_FAMILY_PENALTY, PL_FAMILY_LIMIT, PL_FAMILY_SCHEME, PL_FAMILY_EXTERNAL } pl_solver_family;

/* "penalty", "limit", "scheme" or "external" */
const char *pl_solver_family_name(pl_solver_family family);

/* What a solver's solutions hold and what it takes (pl_solver_type.capabilities, a set of these):
 * asked instead of its family wherever a solver of a new family could answer differently.  The
 * family names what the solver is; these say what it does. */
typedef enum {
    PL_SOLVER_EPISODES = 1u << 0,      /* records contact episodes (pl_solution.episodes) */
    PL_SOLVER_EVENTS = 1u << 1,        /* records events: impacts, slides, lift-offs (pl_solution.events) */
    PL_SOLVER_ZENO = 1u << 2,          /* locates a Zeno accumulation point (pl_solution.zeno), or the
                                          tail of bounces that never accumulate (pl_solution.tail) */
    PL_SOLVER_GAMMA = 1u << 3,         /* its Gamma is the time transform of paper 004, eq. (5): its
                                          trajectory compares with the limit's along s */
    PL_SOLVER_DENSE = 1u << 4,         /* has dense output: records samples between steps (takes samples) */
    PL_SOLVER_FIXED_STEP = 1u << 5,    /* steps with one step size (pl_solution.step_size, "h_used") */
    PL_SOLVER_STEP_IMPULSES = 1u << 6, /* its trajectory's rows carry the impulses of each step */
    PL_SOLVER_COMPLIANT = 1u << 7,     /* compliant contacts of stiffness mu (paper 004, eq. (4)): a contact
                                          penetrates and lasts the law's contact time at mu, its episodes
                                          are its impacts and slides, its errors fall as powers of mu */
    PL_SOLVER_SAMPLED = 1u << 8,       /* records its steps sampled by events (takes samples: the rows it
                                          keeps per flight and per episode, besides the events' own) */
} pl_solver_capability;

/* The rows per flight and per episode a PL_SOLVER_SAMPLED solver keeps by default. */
#define PL_SAMPLED_DEFAULT_SAMPLES 200

/* What `samples` means, recorded in manifests as "sampling": rows sampled by events, `samples` per
 * flight and per episode (pl_solution_sample_rows).  A directory whose manifest says otherwise (or
 * nothing: stored every step with a uniform grid) is not reused by --resume. */
#define PL_SAMPLING "events"

/* The cap on a trajectory's values (rows x columns, 160 MB of doubles) when
 * pl_solve_opts.max_output is 0. */
#define PL_DEFAULT_MAX_OUTPUT 2e7

/* The cap on steps when pl_solve_opts.max_steps is 0. */
#define PL_DEFAULT_MAX_STEPS 5000000L

/* What a solve needs besides the model: the horizon, output sampling, a cap on the work, and the
 * values of the solver's own options (in the order of its spec). */
typedef struct {
    double t_end;
    size_t samples;  /* also record the solution at k t_end/samples (dense output), 0: steps only;
                        PL_SOLVER_SAMPLED ones: the rows kept per flight and per episode, 0: every
                        step; others record every step and ignore it */
    long max_steps;  /* cap on steps over the whole run; 0 selects 5e6 */
    double max_seconds; /* cap on the run's wall-clock time; 0: none */
    int started_given;  /* 1: max_seconds counts from `started`; 0 (pl_solve_opts_init): from the start
                           of the solve.  A flag, not a reserved value of `started`: a monotonic
                           clock's readings are only differences, and may be near 0 after boot */
    double started;     /* the time (pl_now_seconds) max_seconds counts from when started_given: a
                           command's start, so that its set-up counts too */
    double max_output;  /* cap on the values (rows x columns) of the trajectory; 0 selects 2e7 */
    pl_contacts_mode contacts; /* storage of G and the forces (solution.h); AUTO by the count of constraints */
    size_t sparse_from; /* BDF's linear algebra (pl_stepper_spec.sparse_from): sparse (KLU) from this
                           system size on; 0: the default (PL_SPARSE_FROM); for benchmarks and tests */
    /* Optional: nonzero stops the solve at its next step (PL_ERR_SOLVER, "cancelled at t = T"), the
     * solution up to there kept (pl_solve_hooks of the API). */
    int (*cancel)(void *user);
    void *cancel_user;
    double option[PL_MAX_PARAMS];
} pl_solve_opts;

typedef struct pl_solver_type {
    const char *name;
    const char *summary;
    pl_solver_family family;
    unsigned capabilities; /* pl_solver_capability flags */
    const pl_param_spec *options; /* a PL_PARAM_DERIVED default is computed by default_option */
    size_t noptions;
    /* The option a sweep refines ("mu" or "h"; NULL for none) and whether refining makes it
     * larger (+1, mu -> infinity) or smaller (-1, h -> 0). */
    const char *refine;
    int refine_sign;
    /* Optional: PL_ERR_INPUT with a one-line message naming the fix if the solver cannot treat the
     * model (an inelastic scheme on a case with restitution, say). */
    pl_status (*applies)(const pl_model *model, pl_error *err);
    /* Optional: the model-dependent default of option k (flagged PL_PARAM_DERIVED). */
    double (*default_option)(const pl_model *model, double t_end, size_t k);
    /* Optional: checks across options and the horizon (h <= t_end, say). */
    pl_status (*check)(const pl_model *model, const pl_solve_opts *opts, pl_error *err);
    /* Solve.  sol has been initialised (pl_solution_init) and the options checked; the solver fills
     * it and returns PL_OK, PL_ERR_SOLVER (sol then holds the run up to the failure and the
     * reason), PL_ERR_NOMEM, or PL_ERR_INPUT for a model it finds invalid while running. */
    pl_status (*solve)(const pl_model *model, const pl_solve_opts *opts, pl_solution *sol, pl_error *err);
} pl_solver_type;

extern const pl_solver_type pl_solver_penalty;
extern const pl_solver_type pl_solver_limit;
extern const pl_solver_type pl_solver_moreau_jean;
extern const pl_solver_type pl_solver_paoli;
extern const pl_solver_type pl_solver_maury;
extern const pl_solver_type pl_solver_external; /* io/external.c; not in the registry */

/* Whether solver s has every capability in caps (pl_solver_capability flags). */
static inline int pl_solver_can(const pl_solver_type *s, unsigned caps)
{
    return (s->capabilities & caps) == caps;
}

/* Whether s's contacts are compliant (PL_SOLVER_COMPLIANT). */
static inline int pl_solver_compliant(const pl_solver_type *s)
{
    return pl_solver_can(s, PL_SOLVER_COMPLIANT);
}

size_t pl_solver_count(void);
const pl_solver_type *pl_solver_at(size_t index);
const pl_solver_type *pl_solver_find(const char *name); /* NULL if unknown */

/* Index of option `name` of solver s, or -1. */
int pl_solver_option_index(const pl_solver_type *s, const char *name);

/* The value of option `name` of the solver that produced sol (NAN if it has none of that name). */
double pl_solution_option(const pl_solution *sol, const char *name);

/* Defaults: t_end (NAN: the case's), samples 1000, max_steps 0, and each option's default. */
void pl_solve_opts_init(pl_solve_opts *o, const pl_solver_type *s, const pl_model *model, double t_end);

/* Set option `name`; PL_ERR_INPUT if the solver has no such option or the value is out of range. */
pl_status pl_solve_opts_set(pl_solve_opts *o, const pl_solver_type *s, const char *name, double value,
                            pl_error *err);

/* Everything a solve checks before it starts: the solver applies to the model, t_end is a finite
 * number >= 1e-12 up to which the case's parameters hold (its valid_until), max_steps >= 0, each
 * option in its range, and the solver's own check. */
pl_status pl_solve_check(const pl_solver_type *s, const pl_model *model, const pl_solve_opts *o, pl_error *err);

/* Count o's max_seconds from `started` (pl_now_seconds) rather than from the solve's own start. */
static inline void pl_solve_opts_count_from(pl_solve_opts *o, double started)
{
    o->started = started;
    o->started_given = 1;
}

/* Where a solver's max_seconds counts from: o->started if given, else its own start (now). */
static inline double pl_budget_start(const pl_solve_opts *o, double now)
{
    return o->started_given ? o->started : now;
}

/* Whether a solve at time t must stop: the caller's cancel hook (cancel may be NULL), then the model's
 * error channel (pl_model_failed).  PL_ERR_SOLVER with "cancelled at t = T" or "the model failed at
 * t = T: MSG" in err, else PL_OK.  Called where the solvers check their time budget. */
pl_status pl_solve_poll(const pl_model *model, int (*cancel)(void *user), void *user, double t, pl_error *err);

/* Check, initialise sol and solve.  sol must be freed with pl_solution_free whatever the status.  The
 * budget (max_seconds from o->started if given, or from the solve's start) bounds the solve alone: the solution
 * does not keep it; an analysis done as part of the same work is given it (pl_analyze_within). */
pl_status pl_solve(const pl_solver_type *s, const pl_model *model, const pl_solve_opts *o, pl_solution *sol,
                   pl_error *err);

#endif
