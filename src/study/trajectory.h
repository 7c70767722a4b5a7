/* A recorded trajectory as a function, in the time t or in the transformed time s = Gamma(t)
 * (paper 004, section 3).
 *
 * Solutions of differential equations (penalized runs, the limit solution): between recorded rows,
 * q, v (and t as a function of s) are cubic Hermite interpolants using the derivatives of the
 * system at the rows: dq/dt = F_p, dv/dt = F_v + sum_i w_i lambda_i, and in s the same divided by
 * dGamma/dt = 1 + |sum_i w_i lambda_i| (the time-transformed system (7)-(8)).  This is exact on the
 * parabolic flights, where CVODE's steps are long.
 *
 * Time-stepping schemes: their iterates joined by straight lines, q and v alike, in t and in s
 * (the convergence theorems interpolate q so and take v piecewise constant; either is within O(h)
 * of the other).
 *
 * External trajectories (io/external.h: rows from a file, without forces): q by the cubic Hermite
 * interpolant whose slopes are F_p(q, v, t) at the rows (v itself for every built-in case), v by
 * straight lines (no dv/dt without the forces); exact on flights under a constant force.  In s,
 * straight lines, as for schemes. */
#ifndef PL_TRAJECTORY_H
#define PL_TRAJECTORY_H

#include "model/model.h"
#include "core/status.h"
#include "core/table.h"
#include "solvers/solution.h"

typedef struct {
    size_t n, rows;
    double *t, *s;   /* rows */
    double *x;       /* rows x 2n: q, v */
    double *dx_dt;   /* rows x 2n */
    double *dt_ds;   /* rows */
    int linear;      /* piecewise linear between rows (schemes) instead of Hermite */
    int linear_v;    /* in t: q Hermite with the slopes dx_dt, v linear (external trajectories) */
} pl_trajectory;

/* From a solution's trajectory table (solution.h). */
pl_status pl_trajectory_build(pl_trajectory *tr, const pl_model *model, const pl_solution *sol, pl_error *err);
void pl_trajectory_free(pl_trajectory *tr);

/* State (q, v) at time t (clamped to the recorded range); at a jump (several rows at t) the state
 * after it, the right limit. */
void pl_trajectory_at_t(const pl_trajectory *tr, double t, double *x);
/* The same, but the left limit at a jump: the state before it. */
void pl_trajectory_at_t_left(const pl_trajectory *tr, double t, double *x);
/* State (q, v) and time t at s; beyond the last s the final state (the paper's constant extension). */
void pl_trajectory_at_s(const pl_trajectory *tr, double s, double *x, double *t);

/* Uniform distance between two trajectories in s: sup over s of the max-norm of the q and of the
 * v differences, evaluated at the union of both sets of rows (NAN and PL_ERR_NOMEM if out of memory). */
pl_status pl_trajectory_distance_s(const pl_trajectory *a, const pl_trajectory *b, double *dq, double *dv,
                                   pl_error *err);

#endif
