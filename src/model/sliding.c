#include "model/sliding.h"

#include <stdlib.h>
#include <string.h>

#include "core/lcp.h"

pl_status pl_sliding_force(const pl_model *model, double t, const double *q, const double *v,
                           const int *set, double *lambda, double *fsm, pl_error *err)
{
    size_t idx[PL_MAX_CON];
    pl_contact c[PL_MAX_CON];
    double W[PL_MAX_CON * PL_MAX_CON] = {0}, D[PL_MAX_CON] = {0}, z[PL_MAX_CON] = {0};
    double minv[PL_MAX_DOF * PL_MAX_DOF];
    if (pl_model_mass(model, q, NULL, minv))
        return pl_fail(err, PL_ERR_SOLVER, "the mass matrix is not positive definite at t = %.17g", t);
    size_t k = pl_model_contact_coupling(model, t, q, v, set, idx, c, W, NULL);
    for (size_t i = 0; i < model->m; i++)
        lambda[i] = fsm[i] = 0.0;
    for (size_t a = 0; a < k; a++)
        D[a] = pl_model_free_gap_accel(model, idx[a], t, q, v);
    pl_status st = pl_lcp_solve(k, W, D, z, NULL, err);
    if (st != PL_OK)
        return st;
    for (size_t a = 0; a < k; a++) {
        size_t i = idx[a];
        lambda[i] = z[a];
        fsm[i] = -z[a] / (c[a].m_eff * model->law[i].k);
    }
    return PL_OK;
}
