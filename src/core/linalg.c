#include "core/linalg.h"

#include <gsl/gsl_linalg.h>
#include <klu.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

double pl_norm(const double *x, size_t n)
{
    if (n == 1)
        return fabs(x[0]);
    double s = 0.0;
    for (size_t j = 0; j < n; j++)
        s += x[j] * x[j];
    return sqrt(s);
}

int pl_all_finite(const double *x, size_t n)
{
    for (size_t j = 0; j < n; j++)
        if (!isfinite(x[j]))
            return 0;
    return 1;
}

void pl_mat_vec(size_t n, const double *A, const double *x, double *y)
{
    for (size_t r = 0; r < n; r++) {
        double s = 0.0;
        for (size_t c = 0; c < n; c++)
            s += A[r * n + c] * x[c];
        y[r] = s;
    }
}

int pl_lu_decomp(gsl_matrix *A, gsl_permutation *p, int *sign)
{
    /* GSL 2.7 allocates its pivots (min(rows, columns) unsigned ints) without checking: allocated here
     * first and released just before, so that out of memory is found here and the allocator hands
     * GSL the blocks this thread has just released. */
    gsl_vector_uint *pivots = gsl_vector_uint_alloc(GSL_MIN(A->size1, A->size2));
    if (!pivots)
        return GSL_ENOMEM;
    gsl_vector_uint_free(pivots);
    return gsl_linalg_LU_decomp(A, p, sign);
}

int pl_solve_small(size_t k, double *W, const double *b, double *a)
{
    if (k == 0)
        return 0;
    gsl_matrix_view Wv = gsl_matrix_view_array(W, k, k);
    gsl_vector_const_view bv = gsl_vector_const_view_array(b, k);
    gsl_vector_view av = gsl_vector_view_array(a, k);
    gsl_permutation *p = gsl_permutation_alloc(k);
    if (!p)
        return -1;
    int sign, status = pl_lu_decomp(&Wv.matrix, p, &sign);
    int bad = status == GSL_ENOMEM ? -1
              : status != GSL_SUCCESS || gsl_linalg_LU_solve(&Wv.matrix, p, &bv.vector, &av.vector) != GSL_SUCCESS;
    gsl_permutation_free(p);
    return bad;
}

int pl_solve_sparse_rows(size_t k, const int *row_start, const int *col, const double *val, double *b)
{
    if (k == 0)
        return 0;
    if (k > INT_MAX)
        return -1;
    /* the rows of W are the compressed columns of W^T: KLU factors W^T and solves transposed */
    klu_common common;
    klu_defaults(&common);
    int n = (int)k;
    klu_symbolic *sym = klu_analyze(n, (int *)row_start, (int *)col, &common);
    klu_numeric *num = sym ? klu_factor((int *)row_start, (int *)col, (double *)val, sym, &common) : NULL;
    int bad = num ? !klu_tsolve(sym, num, n, 1, b, &common) : 1;
    if (common.status == KLU_OUT_OF_MEMORY)
        bad = -1;
    if (num)
        klu_free_numeric(&num, &common);
    if (sym)
        klu_free_symbolic(&sym, &common);
    return bad;
}

int pl_compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

size_t pl_sort_unique(double *x, size_t n)
{
    qsort(x, n, sizeof *x, pl_compare_doubles);
    size_t u = 0;
    for (size_t r = 0; r < n; r++)
        if (u == 0 || x[r] > x[u - 1])
            x[u++] = x[r];
    return u;
}
