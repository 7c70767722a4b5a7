#include "model/sliding.h"

#include <math.h>

#include <stdlib.h>
#include <string.h>

#include "core/lcp.h"

pl_status pl_sliding_force(const pl_model *model, pl_work *work, pl_contact_set *cs, double t, const double *q,
                           const double *v, const int *set, double *lambda, double *fsm, pl_error *err)
{
    if (!pl_model_minv(model, work, q))
        return pl_fail(err, PL_ERR_SOLVER, "the mass matrix is not positive definite at t = %.17g", t);
    size_t k = pl_model_contact_coupling(model, work, t, q, v, set, cs, 0);
    double *D = cs->b, *z = cs->a;
    for (size_t i = 0; i < model->m; i++)
        lambda[i] = fsm[i] = 0.0;
    pl_model_free_gap_accels(model, work, t, q, v, cs->idx, k, D);
    for (size_t a = 0; a < k; a++)
        z[a] = 0.0;
    pl_status st = pl_lcp_solve(k, cs->W, D, z, NULL, err);
    if (st != PL_OK)
        return st;
    for (size_t a = 0; a < k; a++) {
        size_t i = cs->idx[a];
        lambda[i] = z[a];
        /* Kelvin-Voigt's per-unit-mass k: the limit of mu G; a law without one: the force itself */
        fsm[i] = isfinite(model->law[i].k) ? -z[a] / (cs->c[a].m_eff * model->law[i].k) : z[a];
    }
    return PL_OK;
}
