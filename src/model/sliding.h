/* The sliding-mode force of sustained contact (paper 004, Props 6-7, Theorem 6).
 *
 * On G_i = 0, Gdot_i = 0 the gap accelerations are G'' = D + W lambda, with D the free gap
 * accelerations (37) and W_ij = grad G_i . M^{-1} grad G_j.  In the limit the contact forces of a
 * set of constraints in sustained contact solve the complementarity problem
 *
 *     lambda >= 0,   D + W lambda >= 0,   lambda . (D + W lambda) = 0
 *
 * (core/lcp.h), and mu G_i -> F^sm_i = -lambda_i / (m_i k_i).  For one constraint this
 * is F^sm = -D/A-tilde with A-tilde = -k (Theorem 6) while D < 0, and 0 (lift-off) once D >= 0.
 * Under a law whose k is not per unit effective mass (Hertz, Hunt-Crossley: mu G has no limit, the
 * penetration scaling as mu^(-1/n)), F^sm_i is the limit of the contact force itself, lambda_i. */
#ifndef PL_SLIDING_H
#define PL_SLIDING_H

#include "model/model.h"

/* For the constraints flagged in `set` (m flags) at (t, q, v): forces lambda and limits F^sm of mu G
 * (m each, 0 for constraints not in the set), with the scratch of work and cs (pl_contact_set_init).
 * Returns non-zero (with a message) if the complementarity problem could not be solved. */
pl_status pl_sliding_force(const pl_model *model, pl_work *work, pl_contact_set *cs, double t, const double *q,
                           const double *v, const int *set, double *lambda, double *fsm, pl_error *err);

#endif
