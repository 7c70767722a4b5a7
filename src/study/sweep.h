/* Refinement sweeps with any solver of the registry: one solve per value of its refined option
 * (mu -> infinity for penalized runs, h -> 0 for time-stepping schemes), in parallel, each
 * analysed; then the convergence of the limit quantities across the sweep, the uniform distance
 * between successive runs in the transformed time s (paper 004, section 3), and every run measured
 * against the limit solution, computed once. */
#ifndef PL_SWEEP_H
#define PL_SWEEP_H

#include "solvers/solver.h"
#include "study/analysis.h"
#include "study/compare.h"
#include "study/fit.h"
#include "study/trajectory.h"

typedef enum {
    PL_Q_FIRST_IMPACT_TIME,
    PL_Q_RESTITUTION_FIRST,
    PL_Q_SCALED_PENETRATION_FIRST,
    PL_Q_CAPTURE_TIME,
    PL_Q_ACCUMULATION_ESTIMATE,
    PL_Q_LIFT_OFF_FIRST,
    PL_Q_SLIDING_FORCE_ERROR,
    PL_Q_S_DISTANCE,
    /* distances to the limit solution (with_limit) */
    PL_Q_LIMIT_SUP_Q,
    PL_Q_LIMIT_SUP_Q_OUTSIDE,
    PL_Q_LIMIT_L1_V,
    PL_Q_LIMIT_S_DISTANCE,
    PL_Q_IMPACT_TIME_ERROR,
    PL_Q_IMPACT_VELOCITY_ERROR,
    PL_SWEEP_NQ
} pl_sweep_quantity_id;

typedef struct {
    const char *name;
    const char *meaning;
    double *values;  /* per run (NAN where undefined or failed) */
    double *errors;  /* values minus the limit */
    /* per run, how far round-off moves the value and its reference (a time quantity's: the
     * resolutions of the run's episode or event time and of the limit solution's, when that is the
     * reference); NAN where unknown.  An error within it is at the noise floor (pl_above_floor). */
    double *resolution;
    pl_convergence conv;
    /* The rate the run's contact law predicts for it (docs/laws.md, "Convergence rates"): PL_RATE_EXACT
     * (laws/law.h) when the law makes it exact at every mu, 0 when it has no limit, NAN when not derived. */
    double predicted_rate;
    /* Why no rate is predicted for what this sweep measured (predicted_rate is then NAN): the sliding
     * force where no contact is compared (none outlasts its transient; never under Hertz) or no compared
     * contact's load varies; NULL otherwise. */
    const char *predicted_note;
    /* Why it has no mu -> infinity limit under the run's law (no fit, no extrapolated limit), or NULL. */
    const char *no_limit;
} pl_sweep_quantity;

struct pl_sweep;

/* The k of the limit solution in pl_sweep_opts.solve. */
#define PL_SWEEP_LIMIT ((size_t)-1)

typedef struct {
    const pl_solver_type *solver;
    pl_solve_opts base; /* the options of every run but the refined one (pl_solve_opts_init) */
    int jobs;
    int with_limit;     /* also compute the limit solution and measure every run against it */
    double limit_rtol;  /* its tolerance (0: 1e-12) */
    /* The phases as they advance, serialized; may be NULL: "limit" (0 of 1 before the limit
     * solution, 1 of 1 after it), "runs" (after each run: done of total, failed of them), "analysis"
     * (0 of 1 before the measures across the runs, 1 of 1 after). */
    void (*progress)(const char *phase, size_t done, size_t total, size_t failed, void *user);
    /* Optional, called from the worker threads (and once for the limit solution, k =
     * PL_SWEEP_LIMIT): fill sol with run k's solution from an earlier sweep, solved with the
     * options o (the refined one set: sw->param[k]), and return 1, or return 0 to solve it. */
    int (*reuse)(const struct pl_sweep *sw, size_t k, const pl_solve_opts *o, pl_solution *sol, void *user);
    /* Optional, called from the worker threads (and once for the limit solution, k =
     * PL_SWEEP_LIMIT): solve in place of pl_solve, in another process say (the program's
     * --isolate), with the options o (the refined one set); sol is filled as pl_solve fills it,
     * initialised whatever happens, and the status returned. */
    pl_status (*solve)(const struct pl_sweep *sw, size_t k, const pl_solver_type *solver, const pl_solve_opts *o,
                       pl_solution *sol, pl_error *err, void *user);
    /* Optional: run k is complete (solved or reused, and analysed); serialized with progress, so
     * that its files can be written as soon as it is done. */
    void (*run_done)(const struct pl_sweep *sw, size_t k, void *user);
    /* Release each run's trajectory (its rows and their interpolant) once run_done has written it
     * and its distances to the limit and to its neighbours are measured: the memory of a sweep then
     * holds the rows of about `jobs` runs at a time, whatever the number of runs. */
    int release_trajectories;
    void *user;
} pl_sweep_opts;

typedef struct pl_sweep {
    const pl_solver_type *solver;
    const char *param_name; /* the refined option: "mu" or "h" */
    size_t n;
    double *param; /* its values, in the order of refinement (mu increasing, h decreasing) */
    double *x;     /* the refinement x -> infinity that rates are fitted against: mu, or 1/h_used (the
                      step a scheme took: h itself when it divides t_end) */
    double t_end, noise_rtol;
    pl_solve_opts base; /* the options of every run but the refined one (recorded in its manifest) */
    pl_solution *runs;
    int *reused; /* run k was read back (opts.reuse), not solved */
    pl_analysis *analysis;
    pl_trajectory *traj;
    double *s_dist_q, *s_dist_v; /* between runs k and k + 1 (NAN for the last or failed ones) */
    pl_sweep_quantity q[PL_SWEEP_NQ];
    /* impacts before capture against log10 x: per decade of mu (or of 1/h) */
    double impacts_per_decade, impacts_per_decade_se, impacts_per_decade_predicted;
    /* a capture time without a limit (Hunt-Crossley): its growth per decade of mu, fitted and predicted
     * (ln(10)/(n A c) for one constraint under gap acceleration A: docs/laws.md); NAN otherwise */
    double capture_per_decade, capture_per_decade_se, capture_per_decade_predicted;
    size_t failures;
    /* the limit solution (with_limit): computed and analysed (has_limit); read back (opts.reuse),
     * not solved (limit_reused), whether or not its analysis then finished */
    int has_limit, limit_reused;
    pl_solution limit;
    pl_analysis limit_analysis;
    pl_trajectory limit_traj;
    double zeno_window[2]; /* excluded from limit_sup_q_outside */
    pl_limit_distance *dist;
    /* The impacts of each run matched with the limit's (study/impact_match.h; empty for a failed
     * run), and the set common to the sweep: the limit impacts paired in every run that pairs any,
     * over which every run's impact errors are taken, so that a rate compares the same impacts at
     * every value. */
    pl_impact_match *match;
    unsigned char *impact_common; /* per limit impact */
    size_t impact_common_size;
    /* Every pair: param, constraint, limit impact, run impact (1-based in the two analyses), t_limit,
     * t_run, time error, velocity error, the centre and half-width of the window it was found in,
     * common (1 if in the common set). */
    pl_table impact_errors;
} pl_sweep;

/* Parse "A:B:N" (N values geometrically spaced from A to B) or "a,b,c" for the option `what`
 * (used in messages, e.g. "--mu"); values must be finite, > 0 and distinct; they are returned
 * sorted increasing (caller frees *values). */
pl_status pl_parse_grid(const char *text, const char *what, double **values, size_t *n, pl_error *err);

/* k values (k >= 1) geometrically spaced from a to b (> 0), exact where the user meant exact numbers
 * (1e2:1e10:9 gives 1e3, not 1000.0000000000007): the points of "A:B:N". */
void pl_grid_geometric(double a, double b, long k, double *v);

/* The h of a scheme by default, k = 0, 0.5, 1, ...: 10^(-1.2 - k) T, T the case's time scale (V/A,
 * or its forcing time: pl_model_time_scale), rounded up to 1, 2 or 5 x 10^j (pl_round_125), and
 * where that exceeds t-end/10^(1 + k), that rounded down (docs/methods.md, "Default grids").  A sweep takes k = 3, 2.5, ...,
 * 0; compare k = 0, 1, 2 (or a sweep's). */
double pl_default_h(const pl_model *model, double t_end, double k);

/* The default grid of a sweep of the solver's refined option: mu = 1e2 ... 1e10 (9 values, for a
 * compliant solver), or the 7 h = pl_default_h(k) for k = 3, 2.5, ..., 0 (a scheme); in the
 * order of refinement (caller frees *values). */
pl_status pl_sweep_default_grid(const pl_solver_type *solver, const pl_model *model, double t_end, double **values,
                                size_t *n, pl_error *err);

/* The options of a sweep's limit solution: those of its runs (samples, caps, contacts, time
 * budget, t-end) with the limit solver's own, its rtol opts->limit_rtol if > 0; a scheme's samples = 0
 * (every step) leaves the limit its default. */
void pl_sweep_limit_opts(const pl_model *model, const pl_sweep_opts *opts, pl_solve_opts *lo);

/* Everything a sweep over values can be refused for, before it runs: every value passes the checks
 * of a single solve (pl_param_check, pl_solve_check), and with opts->with_limit the limit solution
 * passes its own (an admissible start, say) with the options it will be solved with
 * (pl_sweep_limit_opts); *limit_refused says which refused (1: the limit solution's).  PL_ERR_INPUT
 * with the reason. */
pl_status pl_sweep_check(const pl_model *model, const double *values, size_t n, const pl_sweep_opts *opts,
                         int *limit_refused, pl_error *err);

/* Sort values into the order of refinement of the solver's refined option (mu increasing, h
 * decreasing): the order of the runs of a sweep. */
void pl_sweep_order(const pl_solver_type *solver, double *values, size_t n);

/* Run the sweep over the values of the solver's refined option.  A failure at one value is
 * recorded in that run and does not stop the others; the returned status is PL_OK unless the
 * sweep itself could not be carried out. */
pl_status pl_sweep_run(const pl_model *model, const double *values, size_t n, const pl_sweep_opts *opts,
                       pl_sweep *out, pl_error *err);
void pl_sweep_free(pl_sweep *sw);

#endif
