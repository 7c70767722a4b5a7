#include "core/lcp.h"

#include <math.h>
#include <stdlib.h>

#include "LCP_Solvers.h"
#include "LinearComplementarityProblem.h"
#include "NonSmoothDrivers.h"
#include "NumericsMatrix.h"
#include "SolverOptions.h"
#include "lcp_cst.h"

pl_status pl_lcp_solve(size_t k, const double *W, const double *d, double *z, long *iterations, pl_error *err)
{
    if (iterations)
        *iterations = 0;
    if (k == 0)
        return PL_OK;
    /* Siconos stores dense matrices column-major. */
    double *Wc = malloc((k * k + 2 * k) * sizeof *Wc), *q = Wc ? Wc + k * k : NULL, *w = q ? q + k : NULL;
    if (!Wc)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for an LCP of size %zu", k);
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
        free(Wc);
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
    if (info != 0) {
        free(Wc);
        return pl_fail(err, PL_ERR_SOLVER, "Siconos Lemke failed on a %zu-constraint LCP (info %d)", k, info);
    }
    /* Accept only a solution that is one: Siconos's closed form for k = 1 divides by W even when
     * it is 0 (an infeasible problem).  w is measured against the problem's scale, the largest
     * |d_r| + sum_c |W_rc z_c|, and z against its largest entry; 1e-9 is far above round-off. */
    double zmax = 0.0, scale = 0.0;
    for (size_t r = 0; r < k; r++) {
        double size = fabs(d[r]);
        w[r] = d[r]; /* recomputed here: Siconos's w is not trusted either */
        for (size_t c = 0; c < k; c++) {
            w[r] += W[r * k + c] * z[c];
            size += fabs(W[r * k + c] * z[c]);
        }
        scale = fmax(scale, size);
        zmax = fmax(zmax, fabs(z[r]));
    }
    double worst = 0.0;
    for (size_t r = 0; r < k; r++) {
        double rel_w = scale > 0.0 ? w[r] / scale : 0.0, rel_z = zmax > 0.0 ? z[r] / zmax : 0.0;
        worst = fmax(worst, fmax(fmax(-rel_w, -rel_z), fabs(rel_w * rel_z)));
        if (!isfinite(z[r]) || !isfinite(w[r]))
            worst = INFINITY;
    }
    free(Wc);
    if (!(worst <= 1e-9))
        return pl_fail(err, PL_ERR_SOLVER,
                       "Siconos Lemke returned no valid solution of a %zu-constraint LCP (info %d, relative residual "
                       "%g): the problem is infeasible",
                       k, info, worst);
    return PL_OK;
}
