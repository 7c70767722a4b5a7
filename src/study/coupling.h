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

/* Is constraint j coupled with some constraint of the set at (t, q, v)?  The set both as flags (set, m)
 * and as its constraints (members[0 .. count), any order).  Where F_p = v and M is constant and
 * diagonal (many bodies), only the constraints that share a dof with j are tested, each over the
 * supports: O(s) per test, not O(n) (O(n^2) to set each one); they are found through the members or
 * through the constraints on j's dofs, whichever list is the shorter. */
int pl_coupled_with_set(pl_coupling *c, const unsigned char *set, const size_t *members, size_t count, size_t j,
                        double t, const double *q, const double *v);

/* The constraints whose support holds each dof: those of dof d are (*list)[(*start)[d] ...
 * (*start)[d + 1] - 1], ascending; both freed by the caller.  Non-zero if out of memory or the model
 * gives no supports. */
int pl_dof_constraints(const pl_model *model, size_t **start, size_t **list);

/* The products the tests so far formed (gradient and direction entries multiplied): the work a test
 * pins, n^2 per pl_coupling_set and n per pl_coupled on the dense path, the supports' lengths on the
 * sparse one. */
size_t pl_coupling_terms(const pl_coupling *c);

#endif
