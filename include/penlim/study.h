/* penlim: refinement sweeps (mu -> infinity, or h -> 0 for a scheme) with fitted convergence rates,
 * and distances of any solution to the limit solution. */
#ifndef PENLIM_STUDY_H
#define PENLIM_STUDY_H

#include <stddef.h>

#include "penlim/solve.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pl_sweep pl_sweep;

/* One solve of `solver` ("penalty": the values are mu; a scheme: the values are h) per value, in
 * parallel over `jobs` threads (0: one), each analysed and, with with_limit, measured against the
 * limit solution (computed once).  options as for pl_solve_model (not the refined one).  A failure
 * at one value is recorded in that run (pl_sweep_run) and does not stop the others.  Free with
 * pl_sweep_destroy. */
PL_API pl_status pl_sweep_model(const pl_model *model, const char *solver, const double *values, size_t nvalues,
                                const pl_setting *options, size_t noptions, int jobs, int with_limit,
                                pl_sweep **out, pl_error *err);
PL_API void pl_sweep_destroy(pl_sweep *sw);
/* pl_sweep_model with hooks (NULL: none): a cancelled sweep returns PL_ERR_SOLVER ("cancelled"), the
 * sweep kept in *out, its runs up to there in it. */
PL_API pl_status pl_sweep_model_with(const pl_model *model, const char *solver, const double *values, size_t nvalues,
                                     const pl_setting *options, size_t noptions, int jobs, int with_limit,
                                     const pl_solve_hooks *hooks, pl_sweep **out, pl_error *err);
/* Write the sweep's data files into dir (created if missing): each run's directory (as
 * pl_solution_write), the limit solution's, the tables, sweep.json and manifest.json, the bytes
 * `penlim sweep --no-plots` writes for the same sweep (docs/formats.md; a directory as
 * pl_solution_write_run refuses it). */
PL_API pl_status pl_sweep_write(const pl_model *model, const pl_sweep *sw, const char *dir, pl_error *err);

/* Run k in the order of refinement (mu increasing, h decreasing): its parameter value and
 * solution, and its status (PL_OK, or the failure with its reason in err). */
PL_API size_t pl_sweep_runs(const pl_sweep *sw);
PL_API pl_status pl_sweep_run_result(const pl_sweep *sw, size_t k, double *value, const pl_solution **sol,
                                     pl_error *err);

/* The limit solution the sweep measured its runs against (with_limit), NULL without one; owned by the
 * sweep. */
PL_API const pl_solution *pl_sweep_limit(const pl_sweep *sw);

/* A quantity across the sweep, by name: "first_impact_time", "restitution_first",
 * "scaled_penetration_first", "capture_time", "accumulation_estimate", "lift_off_first",
 * "sliding_force_error", "successive_s_distance", "sup_q", "sup_q_outside_zeno", "l1_v",
 * "s_distance_q", "impact_time_error", "impact_velocity_error" (the names of sweep.json,
 * docs/formats.md "One vocabulary").
 * values[k] (may be NULL: nvalues = pl_sweep_runs), its limit value (closed form, limit solution
 * or extrapolated), the fitted rate of its error ~ C mu^(-rate) with its standard error (NAN when
 * not meaningful).  PL_ERR_INPUT for an unknown name. */
PL_API pl_status pl_sweep_quantity_get(const pl_sweep *sw, const char *name, double *values, double *limit,
                                   double *rate, double *rate_se, pl_error *err);

/* Distances of a solution of model to its limit solution: sup over t of the positions' error,
 * L1 norm of the velocities' error, and the largest errors of its impacts' times and post-impact
 * velocities over those paired with the limit's (by time, one to one and in order: docs/methods.md,
 * "Matching impacts"; NAN if none is).  PL_ERR_INPUT if either solution failed: one stopped early is
 * not measured. */
PL_API pl_status pl_compare_to_limit(const pl_model *model, const pl_solution *sol, const pl_solution *limit,
                                     double *sup_q, double *l1_v, double *impact_time_error,
                                     double *impact_velocity_error, pl_error *err);

/* A trajectory computed elsewhere, read from the CSV file at path for model on [0, t_end] (NAN: the
 * case's), as `penlim compare --external` reads it (docs/formats.md: columns t, q1..qn, v1..vn, a jump
 * as two rows at one t), with its impacts, contacts and time transform derived from its rows: a
 * solution like a solver's, to measure with pl_compare_to_limit.  PL_ERR_INPUT with one line
 * "FILE:LINE:COLUMN: problem" for bad content.  Free *out with pl_solution_destroy. */
PL_API pl_status pl_solution_read_external(const pl_model *model, const char *path, double t_end, pl_solution **out,
                                           pl_error *err);

/* ---- comparisons (`penlim compare`) -------------------------------------------------------------
 * The limit solution once, then each solution asked for, solved or read from a file, measured
 * against it, and the solutions of each solver taken as a family refined towards a limit. */
typedef struct pl_compare pl_compare;

/* A solution asked for, in the order of the command's options: a penalized run at mu = value
 * (--mu), a scheme named name (--scheme) whose time steps are the PL_COMPARE_H values that follow it
 * (--h; none: its default h), a trajectory computed elsewhere in the CSV file name (--external). */
typedef enum { PL_COMPARE_MU, PL_COMPARE_SCHEME, PL_COMPARE_H, PL_COMPARE_EXTERNAL } pl_compare_kind;
typedef struct {
    pl_compare_kind kind;
    double value;     /* mu or h */
    const char *name; /* the scheme, or the external's file */
} pl_compare_spec;

typedef struct {
    const pl_compare_spec *specs; /* none: the penalty at mu = 1e4, 1e6, 1e8 and every scheme that
                                     applies at its 3 default h */
    size_t nspecs;
    int work_precision; /* refine each family instead (--work-precision) */
    /* the penalty's options (rtol, ...) and t_end, samples, max_steps, max_seconds (each solution's,
     * from its own start), max_output, sparse_contacts, as for pl_solve_model; the schemes take
     * t_end, the caps and the contacts */
    const pl_setting *options;
    size_t noptions;
    /* Optional: the phases as they advance: "limit", "solutions" (done of total, failed), "analysis". */
    void (*progress)(const char *phase, size_t done, size_t total, size_t failed, void *user);
    /* Optional: nonzero stops the solve under way at its next step and fails the solutions left. */
    int (*cancel)(void *user);
    void *user;
} pl_compare_options;

/* Plan and check every solution (bad input: PL_ERR_INPUT, one line, nothing solved), read the files,
 * solve the limit solution and every solution and measure each: a failure of one is recorded in it
 * (pl_compare_item) and does not stop the others.  When the limit solution fails (nothing is
 * measured against it; the command exits 3) or the cancel callback stopped the solves, the
 * comparison is still made, *out set, and PL_ERR_SOLVER (PL_ERR_NOMEM when the limit ran out of
 * memory) returned with the reason; on any other error *out is NULL.  Free *out with
 * pl_compare_destroy. */
PL_API pl_status pl_compare_model(const pl_model *model, const pl_compare_options *options, pl_compare **out,
                                  pl_error *err);
PL_API void pl_compare_destroy(pl_compare *c);
/* Its solutions, in the order of compare.csv; solution k's solver ("penalty", a scheme,
 * "external"), refined value (NAN for an external), solution (owned by c) and status (its reason
 * in err).  Any output may be NULL. */
PL_API size_t pl_compare_size(const pl_compare *c);
PL_API pl_status pl_compare_item(const pl_compare *c, size_t k, const char **solver, double *value,
                                 const pl_solution **sol, pl_error *err);
/* The limit solution, owned by c, and its status (its reason in err). */
PL_API const pl_solution *pl_compare_limit(const pl_compare *c);
PL_API pl_status pl_compare_limit_status(const pl_compare *c, pl_error *err);
/* Write the directory `penlim compare --no-plots --out dir` writes (compare.csv, compare.json,
 * limit/, solutions/, the figures' data and configuration, manifest.json; created if missing):
 * `penlim plot dir` draws its figures.  A directory holding files penlim did not write is refused
 * (PL_ERR_INPUT), as the command refuses it without --force; so is a model other than the one
 * given to pl_compare_model (the same handle, alive: its files and manifest are the model's). */
PL_API pl_status pl_compare_write(const pl_model *model, pl_compare *c, const char *dir, pl_error *err);

/* ---- parameter studies -------------------------------------------------------------------------
 * Runs over the product (or, zip, the pairing) of several axes, each measured as a sweep's run
 * against the limit solution of its own case and law parameters (computed once per distinct set),
 * with the rates along the refined axis (mu, or h of a scheme) fitted per point of the others
 * (docs/methods.md, "Studies"; the files: docs/formats.md, "Studies"). */
typedef struct pl_study pl_study;

/* Progress of a phase: runs done and failed of total, limit solutions done of theirs, the seconds
 * since the phase began and an estimate of those left from the predicted costs of what is left
 * (NAN before anything is done). */
typedef struct {
    const char *phase; /* "runs" (runs and limit solutions), "analysis" */
    size_t done, failed, total;
    size_t limits_done, limits_total;
    double elapsed, remaining;
} pl_study_progress;

typedef struct {
    const char *law;    /* the contact law (NULL: the default) */
    const char *solver; /* "penalty" (NULL) or a scheme */
    const pl_setting *settings; /* case and law parameters of every run */
    size_t nsettings;
    /* the solver's options of every run, and t_end, samples, max_steps, max_seconds (each task's,
     * from its own start), max_output, sparse_contacts, as for pl_solve_model */
    const pl_setting *options;
    size_t noptions;
    const char *const *grids; /* the axes, "NAME=VALUES": NAME a parameter of the case or law, mu, h,
                                 rtol or t-end; VALUES a,b,c or A:B:N (geometric for mu, h, rtol) or
                                 lin:A:B:N */
    size_t ngrids;
    int zip;  /* pair the axes (equal lengths) instead of their product */
    int jobs; /* threads (0: one) */
    /* Optional, serialized: called as tasks and points complete. */
    void (*progress)(const pl_study_progress *p, void *user);
    /* Optional: nonzero stops the study: the tasks under way at their solver's next step (as
     * pl_solve_hooks.cancel), unwritten, and no other starts (pl_study_run then returns
     * PL_ERR_SOLVER, "cancelled"). */
    int (*cancel)(void *user);
    void *user;
} pl_study_options;

/* Parse and check the axes and plan the study (nothing is solved): PL_ERR_INPUT with one line naming
 * the problem for a bad axis or value, or more than 1e6 runs.  Free with pl_study_destroy. */
PL_API pl_status pl_study_create(const pl_case *c, const pl_study_options *options, pl_study **out, pl_error *err);
/* The runs, and (may be NULL) its points and distinct limit solutions. */
PL_API size_t pl_study_size(const pl_study *st, size_t *points, size_t *limits);
/* Solve every task and write its files into dir (created if missing), then analyse each point and
 * write study.csv and study.json, then manifest.json: the directory `penlim study --no-plots --out
 * dir` writes (docs/formats.md, "Studies"), which `penlim plot dir` draws.  A directory holding files
 * penlim did not write is refused (PL_ERR_INPUT), as by pl_sweep_write; a study cancelled or failed
 * is left without a manifest.  A failed run is recorded in its row, the others go on. */
PL_API pl_status pl_study_run(pl_study *st, const char *dir, pl_error *err);
/* After pl_study_run: run k's status (its reason in err) and, by name (as pl_sweep_quantity_get's,
 * or a column of study.csv: "restitution_first", "steps", ...), one of its values (may be NULL). */
PL_API pl_status pl_study_value_get(const pl_study *st, size_t run, const char *name, double *value, pl_error *err);
PL_API void pl_study_destroy(pl_study *st);

#ifdef __cplusplus
}
#endif

#endif
