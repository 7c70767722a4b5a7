/* mu -> infinity sweeps: one penalized run per mu (in parallel), each analysed, then the
 * convergence of the limit quantities across mu and the uniform distance between successive runs
 * in the transformed time s (paper 004, section 3). */
#ifndef PL_SWEEP_H
#define PL_SWEEP_H

#include "study/analysis.h"
#include "study/compare.h"
#include "study/fit.h"
#include "solvers/limit/limit.h"
#include "solvers/penalty/penalty.h"
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
    double *values;  /* per mu (NAN where undefined or failed) */
    double *errors;  /* values minus the limit */
    pl_convergence conv;
} pl_sweep_quantity;

typedef struct {
    double rtol, t_end;
    long max_steps;
    size_t samples; /* output samples per run, see pl_penalty_opts */
    int jobs;
    int with_limit;     /* also compute the limit solution and measure every run against it */
    double limit_rtol;  /* its tolerance (0: 1e-12) */
    /* Called after each run completes, serialized; may be NULL. */
    void (*progress)(size_t done, size_t total, void *user);
    void *user;
} pl_sweep_opts;

typedef struct {
    size_t n;
    double *mu;
    pl_penalty_result *runs;
    pl_run_analysis *analysis;
    pl_trajectory *traj;
    double *s_dist_q, *s_dist_v; /* between runs k and k + 1 (NAN for the last or failed ones) */
    pl_sweep_quantity q[PL_SWEEP_NQ];
    double impacts_per_decade, impacts_per_decade_se, impacts_per_decade_predicted;
    size_t failures;
    /* the limit solution (with_limit) */
    int has_limit;
    pl_limit_result limit;
    pl_trajectory limit_traj;
    double zeno_window[2]; /* excluded from limit_sup_q_outside */
    pl_limit_distance *dist;
    pl_table impact_errors; /* mu, constraint, index, t_limit, t_mu, time error, velocity error */
} pl_sweep;

/* Parse "A:B:N" (N values geometrically spaced from A to B) or "a,b,c"; values must be finite,
 * > 0 and distinct; they are returned sorted increasing (caller frees *mu). */
pl_status pl_parse_mu_list(const char *text, double **mu, size_t *n, pl_error *err);

/* Run the sweep.  A failure at one mu is recorded in that run and does not stop the others; the
 * returned status is PL_OK unless the sweep itself could not be carried out. */
pl_status pl_sweep_run(const pl_model *model, const double *mu, size_t n, const pl_sweep_opts *opts,
                       pl_sweep *out, pl_error *err);
void pl_sweep_free(pl_sweep *sw);

#endif
