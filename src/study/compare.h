/* How far a penalized run is from the limit solution (issue 4): uniform distance of the positions
 * in t (also outside a window around a Zeno point), L1 distance of the velocities, the errors of
 * matched impacts (time and post-impact velocity), and the uniform distance in s = Gamma(t). */
#ifndef PL_COMPARE_H
#define PL_COMPARE_H

#include "study/analysis.h"
#include "solvers/limit/limit.h"
#include "solvers/penalty/penalty.h"
#include "study/trajectory.h"

typedef struct {
    double sup_q;          /* sup over [0, T] of max_j |q_j^mu - q_j| */
    double sup_q_outside;  /* the same outside the excluded window (around a Zeno point) */
    double l1_v;           /* integral over [0, T] of sum_j |v_j^mu - v_j| */
    double s_dist_q, s_dist_v; /* uniform distances in s */
    size_t impacts_matched;
    double impact_time_error;     /* max over the first 10 matched impacts of |t^mu - t| */
    double impact_velocity_error; /* and of max_j |v_j^mu(t_out) - v_j(t+)| */
} pl_limit_distance;

/* Impacts are matched per constraint, in order: the k-th impact episode of constraint i in the run
 * with the k-th impact of the limit solution triggered by i.  One row per matched impact is
 * appended to errors (mu, constraint, index, t_limit, t_mu, time error, velocity error) if it is
 * not NULL.  The window [exclude_lo, exclude_hi] is left out of sup_q_outside (NAN bounds: none). */
pl_status pl_compare_with_limit(const pl_model *model, const pl_penalty_result *run, const pl_run_analysis *analysis,
                                const pl_trajectory *run_traj, const pl_limit_result *limit,
                                const pl_trajectory *limit_traj, double exclude_lo, double exclude_hi,
                                pl_limit_distance *out, pl_table *errors, pl_error *err);

#endif
