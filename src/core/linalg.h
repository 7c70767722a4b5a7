/* Small dense linear algebra on row-major arrays (the sizes are the numbers of degrees of freedom
 * and of constraints), and sorting of doubles. */
#ifndef PL_LINALG_H
#define PL_LINALG_H

#include <gsl/gsl_linalg.h>
#include <stddef.h>

/* Euclidean norm of x[0..n). */
double pl_norm(const double *x, size_t n);

/* 1 if every x[j] is finite. */
int pl_all_finite(const double *x, size_t n);

/* y = A x for the n x n matrix A. */
void pl_mat_vec(size_t n, const double *A, const double *x, double *y);

/* Solve the k x k system W a = b (GSL LU; W is overwritten).  Returns 1 if W is singular, -1 if
 * out of memory, 0 otherwise. */
int pl_solve_small(size_t k, double *W, const double *b, double *a);

/* Solve the k x k system W a = b, W given by rows: the entries of row r are val[e] in the columns
 * col[e], e from row_start[r] to row_start[r + 1] - 1 (no column twice in a row), by KLU (a sparse LU,
 * whose work follows W's non-zero entries: a banded W costs O(k), where pl_solve_small's is k^3).
 * a overwrites b.  Returns 1 if W is singular, -1 if out of memory or k beyond an int, 0 otherwise. */
int pl_solve_sparse_rows(size_t k, const int *row_start, const int *col, const double *val, double *b);

/* gsl_linalg_LU_decomp, or GSL_ENOMEM when the memory it allocates (unchecked) is not there. */
int pl_lu_decomp(gsl_matrix *A, gsl_permutation *p, int *sign);

/* qsort comparator for doubles (increasing). */
int pl_compare_doubles(const void *a, const void *b);

/* Sort x[0..n) increasing and drop repeated values; returns the number kept. */
size_t pl_sort_unique(double *x, size_t n);

#endif
