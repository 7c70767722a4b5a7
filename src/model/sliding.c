#include "model/sliding.h"

#include <stdlib.h>
#include <string.h>

#include "LCP_Solvers.h"
#include "LinearComplementarityProblem.h"
#include "NonSmoothDrivers.h"
#include "NumericsMatrix.h"
#include "SolverOptions.h"
#include "lcp_cst.h"

pl_status pl_lcp_solve(size_t k, const double *W, const double *d, double *z, pl_error *err)
{
    if (k == 0)
        return PL_OK;
    /* Siconos stores dense matrices column-major. */
    double Wc[PL_MAX_CON * PL_MAX_CON], q[PL_MAX_CON], w[PL_MAX_CON];
    for (size_t r = 0; r < k; r++) {
        q[r] = d[r];
        for (size_t c = 0; c < k; c++)
            Wc[c * k + r] = W[r * k + c];
    }
    NumericsMatrix *M = NM_create_from_data(NM_DENSE, (int)k, (int)k, Wc);
    SolverOptions *options = solver_options_create(SICONOS_LCP_LEMKE);
    if (!M || !options) {
        if (options)
            solver_options_delete(options), free(options);
        if (M)
            M->matrix0 = NULL, NM_clear(M), free(M);
        return pl_fail(err, PL_ERR_NOMEM, "cannot allocate a complementarity problem");
    }
    LinearComplementarityProblem problem = {.size = (int)k, .M = M, .q = q};
    int info = linearComplementarity_driver(&problem, z, w, options);
    solver_options_delete(options);
    free(options);
    M->matrix0 = NULL; /* the data is ours */
    NM_clear(M);
    free(M);
    if (info != 0)
        return pl_fail(err, PL_ERR_SOLVER, "Siconos Lemke failed on a %zu-constraint LCP (info %d)", k, info);
    return PL_OK;
}

pl_status pl_sliding_force(const pl_model *model, double t, const double *q, const double *v,
                           const int *set, double *lambda, double *fsm, pl_error *err)
{
    size_t idx[PL_MAX_CON];
    pl_contact c[PL_MAX_CON];
    double W[PL_MAX_CON * PL_MAX_CON] = {0}, D[PL_MAX_CON] = {0}, z[PL_MAX_CON] = {0};
    double minv[PL_MAX_DOF * PL_MAX_DOF];
    if (pl_model_mass(model, q, NULL, minv))
        return pl_fail(err, PL_ERR_INPUT, "mass matrix not positive definite at t = %g", t);
    size_t k = pl_model_contact_coupling(model, t, q, v, set, idx, c, W, NULL);
    for (size_t i = 0; i < model->m; i++)
        lambda[i] = fsm[i] = 0.0;
    for (size_t a = 0; a < k; a++)
        D[a] = pl_model_free_gap_accel(model, idx[a], t, q, v);
    pl_status st = pl_lcp_solve(k, W, D, z, err);
    if (st != PL_OK)
        return st;
    for (size_t a = 0; a < k; a++) {
        size_t i = idx[a];
        lambda[i] = z[a];
        fsm[i] = -z[a] / (c[a].m_eff * model->law[i].k);
    }
    return PL_OK;
}
