/* penlim: solving a model with any solver of the registry, and reading the solution.
 *
 * Solvers (pl_solver_name): "penalty" (the penalized system for one stiffness, option mu; GSL's rk8pd
 * through impacts and flights, CVODE's BDF in settled contact),
 * "limit" (the limit solution mu -> infinity, computed directly), and the time-stepping schemes
 * "moreau_jean", "paoli", "maury" (option h).  Each solver's options have defaults; options are
 * given by name, as are the settings every solver takes:
 *
 *   t_end        end time (default: the case's)
 *   samples      rows stored per flight and per episode, sampled by events (default 200; 0: every
 *                step; docs/methods.md, "Stored rows")
 *   max_steps    cap on the steps (default 5e6)
 *   max_seconds  cap on the wall time of each solve, from its start, and in a sweep of each run's
 *                analysis with it (default none); the solution does not keep it: a later
 *                pl_compare_to_limit is not bounded
 *   max_output   cap on the values of the trajectory (default 2e7)
 *   sparse_contacts  1: store only the constraints in contact at each row; 0: G and the force of
 *                every constraint in every row (default: 0 up to 100 constraints, 1 above; 0 is
 *                refused where one row's G and forces would take more than 1 MiB)
 */
#ifndef PENLIM_SOLVE_H
#define PENLIM_SOLVE_H

#include <stddef.h>

#include "penlim/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pl_solution pl_solution;

PL_API size_t pl_solver_count(void);
PL_API const char *pl_solver_name(size_t index); /* NULL past the last */
/* Solver `index`'s one-line summary (NULL past the last) and its own options (their number; *options
 * the table: name, default (NAN: computed from the model), range, meaning). */
PL_API const char *pl_solver_summary(size_t index);
PL_API size_t pl_solver_options(size_t index, const pl_param_spec **options);

/* Solve model with the named solver.  Returns PL_OK, PL_ERR_INPUT (nothing solved, *out NULL),
 * PL_ERR_NOMEM, or PL_ERR_SOLVER: the solver failed, and *out holds the solution up to the failure
 * (its reason in err).  Free *out with pl_solution_destroy. */
PL_API pl_status pl_solve_model(const pl_model *model, const char *solver, const pl_setting *options,
                                size_t noptions, pl_solution **out, pl_error *err);
PL_API void pl_solution_destroy(pl_solution *sol);

/* What a caller adds to a solve or a sweep (pl_solve_model_with, pl_sweep_model_with). */
typedef struct {
    /* Optional, polled at each step with the time budget (from any of a sweep's threads at once):
     * nonzero stops the solve (PL_ERR_SOLVER, "cancelled at t = T"), the solution up to there kept;
     * in a sweep, every run still going stops, and those not begun fail at their first step. */
    int (*cancel)(void *user);
    void *user;
} pl_solve_hooks;

/* A cancel hook for pl_solve_hooks.cancel that needs no code of the caller's: nonzero once the int at
 * `flag` (pl_solve_hooks.user) is nonzero, read atomically, so that a signal handler or another thread
 * can set it; for a binding whose own callbacks cannot run at every step (Python's, which take its
 * interpreter lock). */
PL_API int pl_cancel_when_set(void *flag);

/* pl_solve_model with hooks (NULL: none, pl_solve_model itself). */
PL_API pl_status pl_solve_model_with(const pl_model *model, const char *solver, const pl_setting *options,
                                     size_t noptions, const pl_solve_hooks *hooks, pl_solution **out, pl_error *err);

/* The trajectory: rows of the columns t, gamma, q1..qn, v1..vn, then, with dense contacts, G1..Gm,
 * force1..forcem (gamma the time transform Gamma^mu, force_i the normal force of constraint i, or a
 * scheme's impulse).  With sparse contacts a row ends at vn: pl_solution_contacts reads them. */
PL_API size_t pl_solution_rows(const pl_solution *sol);
PL_API size_t pl_solution_columns(const pl_solution *sol);
/* Row `row` (NULL past the last).  The rows are contiguous: row k is pl_solution_row(sol, 0) + k *
 * pl_solution_columns(sol), valid until pl_solution_destroy. */
PL_API const double *pl_solution_row(const pl_solution *sol, size_t row);
/* The name of column col as the header of trajectory.csv has it ("t", "gamma", "q1", ...), written
 * into name (truncated to len - 1 characters); returns its length, 0 past the last column (name "")
 * or for a NULL solution. */
PL_API size_t pl_solution_column_name(const pl_solution *sol, size_t col, char *name, size_t len);
/* 1 if the solution stores its contacts sparse (only the constraints in contact at each row), 0 if
 * dense (the G and force columns of every row). */
PL_API int pl_solution_sparse_contacts(const pl_solution *sol);
/* The constraints in contact at a row (G_i <= 0, or a non-zero force), in either storage, in
 * increasing order: returns how many there are, and puts the first `cap` of them (index 0-based, G,
 * force) into constraint, g and force (each may be NULL).  0 past the last row. */
PL_API size_t pl_solution_contacts(const pl_solution *sol, size_t row, size_t cap, size_t *constraint, double *g,
                                   double *force);
/* The final time and state (q then v: 2n values, into qv). */
PL_API double pl_solution_final(const pl_solution *sol, double *qv);

/* Impacts and mode changes (the limit solution and schemes): kind "impact", "slide_start",
 * "lift_off" or "zeno", time, triggering constraint (0-based), velocities before and after (n each,
 * either may be NULL). Returns PL_ERR_INPUT past the last event. */
PL_API size_t pl_solution_events(const pl_solution *sol);
PL_API pl_status pl_solution_event(const pl_solution *sol, size_t k, const char **kind, double *t,
                                   size_t *constraint, double *v_before, double *v_after);

/* Contact episodes (penalized runs and schemes): constraint, entry and exit times (exit NAN if
 * still in contact), restitution -Gdot_out/Gdot_in (NAN if not defined; the raw ratio, which
 * summary.json leaves out where Gdot_in is below the run's rate resolution). */
PL_API size_t pl_solution_episodes(const pl_solution *sol);
PL_API pl_status pl_solution_episode(const pl_solution *sol, size_t k, size_t *constraint, double *t_in,
                                     double *t_out, double *restitution);

/* Work: steps and right-hand-side evaluations, and the wall time in seconds. */
PL_API void pl_solution_work(const pl_solution *sol, long *steps, long *rhs_evals, double *seconds);

/* Analyse sol (a solution of model) and write its files into dir (created if missing, parents
 * too): trajectory.csv, trajectory_s.csv, summary.json and, with sparse contacts, contacts.csv, the
 * bytes `penlim run` (or `penlim limit`) writes for the same solve (docs/formats.md), and its
 * manifest.json, which records options (those sol was solved with, as given to pl_solve_model: its
 * samples and max_steps; NULL: the defaults) as the command's does, the model's file as null.  Each
 * file is complete or absent.  A directory that holds files penlim did not write is refused
 * (PL_ERR_INPUT), as the command refuses it without --force; the files of an earlier command's
 * manifest are replaced.  PL_ERR_IO with the reason if a file cannot be written. */
PL_API pl_status pl_solution_write_run(const pl_model *model, const pl_solution *sol, const pl_setting *options,
                                       size_t noptions, const char *dir, pl_error *err);
/* pl_solution_write_run with the default options. */
PL_API pl_status pl_solution_write(const pl_model *model, const pl_solution *sol, const char *dir, pl_error *err);

/* Copy the results directory from (one a command or a pl_*_write wrote, complete: its manifest.json
 * present, no journal) into dir under the rules of every writer here: dir created if missing, a
 * directory holding files penlim did not write refused (PL_ERR_INPUT), no link followed, each file
 * complete or absent, manifest.json last.  Only the files its manifest lists are copied, each
 * checked against the content hash recorded (a file changed since is refused, PL_ERR_INPUT).  sub
 * (NULL or "": all) copies one solution's directory of a sweep or comparison, sub/ removed from the
 * names; its manifest is then that of `penlim run` (`penlim limit`) with its solver and options as
 * its summary.json records them. */
PL_API pl_status pl_results_copy(const char *from, const char *sub, const char *dir, pl_error *err);

#ifdef __cplusplus
}
#endif

#endif
