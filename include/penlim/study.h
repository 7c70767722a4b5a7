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

/* Run k in the order of refinement (mu increasing, h decreasing): its parameter value and
 * solution, and its status (PL_OK, or the failure with its reason in err). */
PL_API size_t pl_sweep_runs(const pl_sweep *sw);
PL_API pl_status pl_sweep_run_result(const pl_sweep *sw, size_t k, double *value, const pl_solution **sol,
                                     pl_error *err);

/* A quantity across the sweep, by name: "first_impact_time", "restitution_first",
 * "scaled_penetration_first", "capture_time", "accumulation_estimate", "lift_off_first",
 * "sliding_force_error", "s_distance", "limit_sup_q", "limit_sup_q_outside_zeno", "limit_l1_v",
 * "limit_s_distance", "impact_time_error", "impact_velocity_error" (the names of sweep.json).
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

#ifdef __cplusplus
}
#endif

#endif
