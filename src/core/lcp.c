#include "core/lcp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "LCP_Solvers.h"
#include "LinearComplementarityProblem.h"
#include "NonSmoothDrivers.h"
#include "NumericsMatrix.h"
#include "SolverOptions.h"
#include "lcp_cst.h"

/* Siconos allocates without checking (an allocation that fails is a crash inside it), so nothing is
 * left for it to allocate but the tableau of Lemke's method: the matrix and the options live here,
 * as solver_options_create(SICONOS_LCP_LEMKE) would set them, its own check of the solution off (the
 * one below is stricter).  The tableau, 2 k ints, k row pointers and k rows of 2 (k + 1) doubles
 * (lcp_lexicolemke in Siconos Numerics 4.4), is allocated here first and freed just before the
 * call: out of memory is found here, and the allocator hands Siconos the blocks this thread has
 * just released (while rows stay below glibc's mmap threshold, 128 KB: k < 8000).  Only another
 * thread taking that memory in the instant between could still fail Siconos. */
static int tableau_fits(size_t k)
{
    if (k > (size_t)1 << 20) /* Siconos counts in int: far beyond any problem penlim solves */
        return 0;
    void *small[3] = {malloc(k * sizeof(int)), malloc(k * sizeof(int)), malloc(k * sizeof(double *))};
    double **rows = small[2];
    size_t made = 0;
    if (small[0] && small[1] && rows)
        while (made < k && (rows[made] = malloc(2 * (k + 1) * sizeof **rows)) != NULL)
            made++;
    for (size_t r = made; r-- > 0;)
        free(rows[r]);
    for (int j = 3; j-- > 0;)
        free(small[j]);
    return made == k;
}

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
    int trivial = 1; /* d >= 0: z = 0, which Siconos returns without allocating */
    for (size_t r = 0; r < k; r++) {
        q[r] = d[r];
        trivial = trivial && d[r] >= 0.0;
        for (size_t c = 0; c < k; c++)
            Wc[c * k + r] = W[r * k + c];
    }
    if (!trivial && k > 1 && !tableau_fits(k)) {
        free(Wc);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for the tableau of an LCP of size %zu", k);
    }
    NumericsMatrix M;
    NM_null(&M);
    M.storageType = NM_DENSE;
    M.size0 = M.size1 = (int)k;
    M.matrix0 = Wc;
    int iparam[OPTIONS_PARAM_SIZE] = {0};
    double dparam[OPTIONS_PARAM_SIZE] = {0};
    iparam[SICONOS_IPARAM_MAX_ITER] = 10000;
    dparam[SICONOS_DPARAM_TOL] = 1e-6;
    dparam[SICONOS_DPARAM_RESIDU] = INFINITY;
    SolverOptions options = {.solverId = SICONOS_LCP_LEMKE, .isSet = true, .iSize = OPTIONS_PARAM_SIZE,
                             .iparam = iparam, .dSize = OPTIONS_PARAM_SIZE, .dparam = dparam, .filterOn = false};
    LinearComplementarityProblem problem = {.size = (int)k, .M = &M, .q = q};
    int info = linearComplementarity_driver(&problem, z, w, &options);
    if (iterations)
        *iterations = iparam[SICONOS_IPARAM_ITER_DONE];
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
