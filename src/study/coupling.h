/* Which constraints exchange momentum in an impact: constraint j is coupled with constraint i at a
 * state when an impulse along i moves the gap rate of j,
 *
 *     W_ji = grad G_j . (dF_p/dv) M^{-1} grad G_i != 0
 *
 * (the coupling of the fast systems of paper 004, (19), with several constraints), beyond round-off:
 * 1e-12 |grad G_j| |(dF_p/dv) M^{-1} grad G_i|.  Constraints on bodies that share no degree of freedom
 * through the mass matrix are not coupled: their impacts are separate events even when they overlap
 * in time.  A constraint is coupled with itself. */
#ifndef PL_COUPLING_H
#define PL_COUPLING_H

#include "model/model.h"

typedef struct pl_coupling pl_coupling;

/* NULL if out of memory. */
pl_coupling *pl_coupling_new(const pl_model *model);
void pl_coupling_free(pl_coupling *c);

/* The direction of constraint i at (t, q, v); the arrays must outlive the calls of pl_coupled. */
void pl_coupling_set(pl_coupling *c, size_t i, double t, const double *q, const double *v);

/* Is constraint j coupled with the constraint of the last pl_coupling_set? */
int pl_coupled(pl_coupling *c, size_t j);

#endif
