/* The right-hand side of the penalized system (1)/(4) of paper 004 for given contact modes, and
 * its analytic Jacobian.  The state is y = (q, v) with n positions and n velocities. */
#ifndef PL_PENALIZED_H
#define PL_PENALIZED_H

#include "model/model.h"

typedef struct {
    const pl_model *model;
    double mu;
    double damping[PL_MAX_CON]; /* c_i = 2 xi_i sqrt(mu/k_i) */
    int active[PL_MAX_CON];     /* the contact indicator I{G_i <= 0} */
} pl_penalized;

/* Forces at one state. */
typedef struct {
    double fp[PL_MAX_DOF];     /* F_p (q' = F_p) */
    double a[PL_MAX_DOF];      /* smooth acceleration F_v */
    double ac[PL_MAX_DOF];     /* contact acceleration sum_i w_i lambda_i, eq. (4) */
    double lambda[PL_MAX_CON]; /* normal force of each constraint (0 if inactive) */
    double minv[PL_MAX_DOF * PL_MAX_DOF];
} pl_forces;

/* All modes inactive. */
void pl_penalized_init(pl_penalized *p, const pl_model *model, double mu);

/* Returns non-zero if M(q) is not positive definite. */
int pl_penalized_forces(const pl_penalized *p, double t, const double *q, const double *v, pl_forces *f);

/* d(q', v')/d(q, v) as a 2n x 2n row-major matrix.  Returns non-zero if M(q) is singular. */
int pl_penalized_jacobian(const pl_penalized *p, double t, const double *q, const double *v, double *J);

#endif
