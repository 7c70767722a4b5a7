#include "core/lcp.h"

#include <stdlib.h>

#include "LCP_Solvers.h"
#include "LinearComplementarityProblem.h"
#include "NonSmoothDrivers.h"
#include "NumericsMatrix.h"
#include "SolverOptions.h"
#include "lcp_cst.h"
#include "model/model.h"

pl_status pl_lcp_solve(size_t k, const double *W, const double *d, double *z, long *iterations, pl_error *err)
{
    if (iterations)
        *iterations = 0;
    if (k == 0)
        return PL_OK;
    if (k > PL_MAX_CON)
        return pl_fail(err, PL_ERR_INPUT, "an LCP of size %zu exceeds the limit of %d constraints", k, PL_MAX_CON);
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
    if (iterations)
        *iterations = options->iparam[SICONOS_IPARAM_ITER_DONE];
    solver_options_delete(options);
    free(options);
    M->matrix0 = NULL; /* the data is ours */
    NM_clear(M);
    free(M);
    if (info != 0)
        return pl_fail(err, PL_ERR_SOLVER, "Siconos Lemke failed on a %zu-constraint LCP (info %d)", k, info);
    return PL_OK;
}
