/* How far a solution (a penalized run or a scheme's) is from the limit solution: uniform distance
 * of the positions in t (also outside a window around a Zeno point), L1 distance of the
 * velocities, the errors of impacts matched by time (study/impact_match.h: time and post-impact
 * velocity), and the uniform distance in s = Gamma(t). */
#ifndef PL_STUDY_COMPARE_H
#define PL_STUDY_COMPARE_H

#include "solvers/solution.h"
#include "solvers/solver.h"
#include "study/analysis.h"
#include "study/impact_match.h"
#include "study/trajectory.h"

typedef struct {
    double sup_q;          /* sup over [0, T] of max_j |q_j^mu - q_j| */
    double sup_q_outside;  /* the same outside the excluded window (around a Zeno point) */
    double l1_v;           /* integral over [0, T] of sum_j |v_j^mu - v_j| */
    double s_dist_q, s_dist_v; /* uniform distances in s */
    /* The impacts matched with the limit's (study/impact_match.h): limit impacts paired, missing,
     * absorbed by a sustained contact, excluded (ambiguous, grazing, beyond the end), and the
     * solution's impacts without a partner (extra). */
    size_t impacts_matched, impacts_missing, impacts_absorbed, impacts_excluded, impacts_extra;
    size_t impacts_compared;      /* the pairs of the impact set the two errors are taken over */
    double impact_time_error;     /* max over them of |t^mu - t| */
    double impact_velocity_error; /* and of max_j |v_j^mu(t_out) - v_j(t+)| */
} pl_limit_distance;

/* A solution, its analysis and its interpolant. */
typedef struct {
    const pl_solution *sol;
    const pl_analysis *analysis;
    const pl_trajectory *traj;
} pl_analysed;

/* The distances in t between two solutions over [0, min of their final times]: sup_q, the same
 * outside [exclude_lo, exclude_hi] (NAN bounds: none), and l1_v, as defined above. */
pl_status pl_distance_in_t(const pl_analysed *a, const pl_analysed *b, double exclude_lo, double exclude_hi,
                           double *sup_q, double *sup_q_outside, double *l1_v, pl_error *err);

/* Every distance of a run to the limit solution.  Its impacts are matched with the limit's
 * (pl_impact_match_build) into *match if it is not NULL (the caller frees it, whatever the status),
 * and the impact errors are taken over every pair; pl_limit_distance_impacts_over takes them over an
 * impact set common to several runs.  The window [exclude_lo, exclude_hi] is left out of
 * sup_q_outside (NAN bounds: none). */
pl_status pl_compare_with_limit(const pl_model *model, const pl_analysed *run, const pl_analysed *limit,
                                double exclude_lo, double exclude_hi, pl_limit_distance *out, pl_impact_match *match,
                                pl_error *err);

/* The impact errors of out over the pairs of match in the set common (pl_impact_common_set; NULL:
 * every pair). */
void pl_limit_distance_impacts_over(pl_limit_distance *out, const pl_impact_match *match, const unsigned char *common);

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

/* pl_compare_with_limit (match as there) with the window of the sweeps (the last 1% of the time to the limit's
 * first Zeno point, on either side) and the quantities above.  s_comparable: the two time
 * transforms measure the same thing (not for schemes and externals without gamma, whose discrete
 * Gamma advances by |Delta v| at an impact where the limit's advances by the total variation of
 * the fast solution). */
pl_status pl_compare_solution(const pl_model *model, const pl_analysed *sol, const pl_analysed *limit,
                              int s_comparable, pl_compare_result *out, pl_impact_match *match, pl_error *err);

/* The options of the limit solution that solutions solved with `runs` are measured against: their
 * t-end, samples, caps (steps, seconds, output) and contacts, with the limit solver's own options
 * (its rtol `rtol` if > 0). */
void pl_limit_opts(const pl_model *model, const pl_solve_opts *runs, double rtol, pl_solve_opts *lo);

/* The analyse-compare sequence, one rule for a sweep's runs and limit solution, compare's solutions
 * and limit solution, and pl_compare_to_limit: sol is analysed within budget (NULL: none; a failed
 * solution too: what it found), its interpolant built into traj (zeroed before); then, if sol did
 * not fail and limit is not NULL (the limit solution, measured by this function with no limit, and
 * not failed), measured against it by pl_compare_solution into res and match (may be NULL), and
 * *compared set.  Returns the first failure of these steps: the caller fails the solution with it
 * (one that failed already keeps its own reason), and does not measure against a limit solution
 * that failed or whose measure failed.  analysis and traj are the caller's to free whatever the
 * status. */
pl_status pl_measure_solution(const pl_model *model, const pl_solution *sol, const pl_budget *budget,
                              const pl_analysed *limit, int s_comparable, pl_analysis *analysis, pl_trajectory *traj,
                              pl_compare_result *res, pl_impact_match *match, int *compared, pl_error *err);

#endif
