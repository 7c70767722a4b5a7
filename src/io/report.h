/* The files of one solution, whatever its solver: trajectory.csv, trajectory_s.csv and
 * summary.json (formats in docs/formats.md). */
#ifndef PL_REPORT_H
#define PL_REPORT_H

#include <jansson.h>

#include "io/output.h"
#include "model/model.h"
#include "solvers/solution.h"
#include "study/analysis.h"
#include "study/compare.h"

/* "t,gamma,q1..qn,v1..vn,G1..Gm,force1..forcem" (impulse1..impulsem for a scheme: docs/formats.md,
 * "One vocabulary"), allocated (free it); NULL if out of memory. */
char *pl_trajectory_header(size_t n, size_t m, int impulses);
/* The header of contacts.csv (sparse contacts: docs/formats.md, "Contacts"), malloc'd. */
char *pl_contacts_header(int impulses);
/* Whether a header line read back is `header`, or `header` with the name the force columns had up
 * to version 0.2 (lambdaK for forceK, lambda for force): the runs of an older directory stay
 * reusable by --resume. */
int pl_header_matches(const char *line, const char *header);

json_t *pl_parameters_json(const pl_model *model);
/* What every summary starts with: case, status (and error), parameters, contact law. */
json_t *pl_summary_header_json(const pl_model *model, pl_status status, const char *error);
/* The model's contact law's parameters, {name: value}. */
json_t *pl_law_parameters_json(const pl_model *model);
json_t *pl_contact_law_json(const pl_model *model);
/* An episode, with its classification when info is not NULL. */
json_t *pl_episode_json(const pl_episode *ep, const pl_episode_info *info, size_t n);
/* The solution's summary; analysis may be NULL (a run that failed before it could be analysed). */
json_t *pl_solution_summary_json(const pl_model *model, const pl_solution *sol, const pl_analysis *analysis);

/* A solution's impacts matched with the limit's (study/impact_match.h): the limit impacts paired,
 * missing, absorbed, excluded (with the reasons: ambiguous, grazing, beyond_end), the solution's extra,
 * companion and excluded impacts, and `compared` (the pairs its impact errors are taken over). */
json_t *pl_impact_match_json(const pl_impact_match *m, const pl_limit_distance *d);

/* SUB/trajectory.csv (the table) and SUB/trajectory_s.csv (its rows in the time s: s,t,q,v). */
pl_status pl_write_trajectories(pl_output *out, const char *sub, const pl_solution *sol, const pl_budget *budget,
                                pl_error *err);

/* SUB/trajectory.csv, SUB/trajectory_s.csv and SUB/summary.json, in this order, within the time
 * budget (NULL: none): when it runs out, the file being written is left out with those after it
 * (a file is complete or absent) and the status is PL_ERR_SOLVER with PL_BUDGET_STOPPED's message
 * naming the file. */
pl_status pl_write_solution(pl_output *out, const char *sub, const pl_model *model, const pl_solution *sol,
                            const pl_analysis *analysis, const pl_budget *budget, pl_error *err);

/* Read back a solution of model by solver that pl_write_solution wrote into DIR with status "ok":
 * the trajectory from trajectory.csv and the episodes, events, counters and final state from
 * summary.json, exactly (numbers are written with 17 digits).  PL_ERR_INPUT if the files are
 * missing, malformed, failed or of another case or solver (not a run to reuse); PL_ERR_IO if a
 * file could not be read (a read error, never taken for the end of the file), PL_ERR_NOMEM for
 * want of memory; the message names the file. */
pl_status pl_read_solution(const char *dir, const pl_model *model, const struct pl_solver_type *solver,
                           pl_solution *sol, pl_error *err);


/* The content hashes a run's files must have (pl_outdir_hash), NULL where none is to be checked. */
typedef struct {
    const char *summary;    /* of summary.json */
    const char *trajectory; /* of trajectory.csv */
    const char *contacts;   /* of contacts.csv (a run with sparse contacts; else unused) */
} pl_run_hashes;

/* pl_read_solution of the run in the directory dir_fd (DIR: its path, for messages), each file
 * opened once relative to it (no link followed; a link, FIFO or other non-regular file is not a run
 * to reuse) and hashed as it is read: a file whose bytes read do not have the hash expected is
 * refused (PL_ERR_INPUT, "has changed since penlim wrote it"), so that what a resumed sweep reuses
 * is what it verified, even if a file is replaced while it reads. */
pl_status pl_read_solution_at(int dir_fd, const char *dir, const pl_model *model,
                              const struct pl_solver_type *solver, const pl_run_hashes *expect, pl_solution *sol,
                              pl_error *err);

/* The same, without hashes to check, for a run with status "ok" or "failed" (a failed one comes
 * back with status PL_ERR_SOLVER and the reason written in its summary, its trajectory up to the
 * failure): a run another process solved into the directory it was given (penlim's isolated runs). */
pl_status pl_read_solution_any_at(int dir_fd, const char *dir, const pl_model *model,
                                  const struct pl_solver_type *solver, pl_solution *sol, pl_error *err);

#endif
