/* Derivatives by difference quotients, for a case that gives values only
 * (pl_case.derivatives = PL_DERIVATIVES_NONE): the Jacobians of its dynamics, dM/dq, and the
 * derivatives of its gaps.  Central differences with steps eps^(1/3) (first derivatives, error
 * ~1e-10 relative) and eps^(1/4) (second derivatives, ~1e-8), relative to max(|x|, scale), scale the
 * model's length (V^2/A) or time (V/A) scale.  Every call allocates its scratch: this is the slow,
 * convenient path, not the one to benchmark. */
#ifndef PL_DIFFERENCE_H
#define PL_DIFFERENCE_H

#include "model/model.h"

/* The case's accel (or force) at (t, q, v, u) into f, with dF/dq, dF/dv (n x n, either may be NULL)
 * by differences of the case's values. */
void pl_diff_dynamics(const pl_model *model, double t, const double *q, const double *v, const double *u,
                      double *f, double *f_q, double *f_v);

/* dM/dq_k by differences of the case's M(q). */
void pl_diff_mass_dq(const pl_model *model, const double *q, size_t k, double *dM);

/* Gap i at (t, q): its value from the case, G_t, G_tt, grad, grad_t and (if out->keep_hess) the
 * Hessian by differences.  out has been zero-filled. */
void pl_diff_gap(const pl_model *model, size_t i, double t, const double *q, pl_gap *out);

/* The same with grad, grad_t and the Hessian differenced along the coordinates cols[0..ncols) only
 * (cols NULL: all n), 0 elsewhere: the cost of a gap that depends on few coordinates, not on n.
 * The case may have written out->hess only in the rows cols.  The steps scale with the larger of
 * the model's length and `length` (0: the model's).  scratch (NULL: allocated here) is a gap of n
 * coordinates the case's values are computed in. */
void pl_diff_gap_on(const pl_model *model, size_t i, double t, const double *q, const size_t *cols, size_t ncols,
                    double length, pl_gap *scratch, pl_gap *out);

/* How much G_i changes, half its central difference, along a displacement of every coordinate j
 * with skip[j] = 0 at once (by their first-derivative steps, of varied signs and sizes); *step is
 * the largest of them.  About 0 when G_i does not depend on those coordinates: one check of all of
 * them together.  scratch: a gap of n coordinates; qbuf: 2 n doubles. */
double pl_diff_gap_across(const pl_model *model, size_t i, double t, const double *q, const int *skip,
                          pl_gap *scratch, double *qbuf, double *step);

#endif
