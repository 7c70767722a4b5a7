/* How far a solution (a penalized run or a scheme's) is from the limit solution: uniform distance
 * of the positions in t (also outside a window around a Zeno point), L1 distance of the
 * velocities, the errors of matched impacts (time and post-impact velocity), and the uniform
 * distance in s = Gamma(t). */
#ifndef PL_COMPARE_H
#define PL_COMPARE_H

#include "solvers/solution.h"
#include "study/analysis.h"
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

/* A solution, its analysis and its interpolant. */
typedef struct {
    const pl_solution *sol;
    const pl_analysis *analysis;
    const pl_trajectory *traj;
} pl_analysed;

/* Impacts are matched per constraint, in order: the k-th impact of constraint i in the run with
 * the k-th impact of the limit solution triggered by i.  One row per matched impact is appended to
 * errors (the run's refinement parameter `param`, constraint, index, t_limit, t_run, time error,
 * velocity error) if it is not NULL.  The window [exclude_lo, exclude_hi] is left out of
 * sup_q_outside (NAN bounds: none). */
pl_status pl_compare_with_limit(const pl_analysed *run, const pl_analysed *limit, double param, double exclude_lo,
                                double exclude_hi, pl_limit_distance *out, pl_table *errors, pl_error *err);

/* What `penlim compare` reports of one solution against the limit solution. */
typedef struct {
    pl_limit_distance d;      /* the sweeps' distances (s_dist_* NAN when !s_comparable) */
    double capture_time;      /* the solution's capture (start of its final sustained contact, or its
                                 accumulation point), and its distance to the limit's */
    double capture_error;
    double lift_off;          /* its first lift-off, and the distance to the limit's */
    double lift_off_error;
    double final_q_error;     /* max_j |q_j(T) - q_lim,j(T)| at T = the earlier of the two final times */
    double final_v_error;     /* the same for v (states after a jump at T) */
} pl_compare_result;

/* pl_compare_with_limit with the window of the sweeps (the last 1% of the time to the limit's
 * first Zeno point, on either side) and the quantities above.  s_comparable: the two time
 * transforms measure the same thing (not for schemes and externals without gamma, whose discrete
 * Gamma advances by |Delta v| at an impact where the limit's advances by the total variation of
 * the fast solution). */
pl_status pl_compare_solution(const pl_analysed *sol, const pl_analysed *limit, int s_comparable,
                              pl_compare_result *out, pl_error *err);

#endif
