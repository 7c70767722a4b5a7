/* Square matrices in compressed sparse columns (CSC), the layout of SUNDIALS's SUNSparseMatrix
 * (CSC_MAT) and of KLU: column j holds values[colptr[j] .. colptr[j + 1] - 1] in the rows
 * rowind[colptr[j] .. colptr[j + 1] - 1], increasing.  The indices are 64-bit, SUNDIALS's
 * sunindextype as Debian builds it (stepper_cvode.c checks). */
#ifndef PL_CSC_H
#define PL_CSC_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t size;     /* rows = columns */
    size_t capacity; /* room in rowind and values */
    int64_t *colptr; /* size + 1; colptr[size] is the number of stored entries */
    int64_t *rowind;
    double *values;
} pl_csc;

/* An empty size x size matrix with room for `capacity` entries; 0, or -1 if out of memory (a is
 * then freeable). */
int pl_csc_init(pl_csc *a, size_t size, size_t capacity);
void pl_csc_free(pl_csc *a);

/* Room for at least nnz entries (the stored ones kept); 0, or -1 if out of memory (a unchanged). */
int pl_csc_reserve(pl_csc *a, size_t nnz);

/* What a Jacobian hook filling a pl_csc returns when pl_csc_reserve fails (pl_stepper_spec.jacobian_csc). */
#define PL_CSC_NOMEM (-2)

static inline size_t pl_csc_nnz(const pl_csc *a) { return (size_t)a->colptr[a->size]; }

/* a = the row-major size x size matrix d, without its exact zeros but with every diagonal entry
 * (zero or not): BDF factorizes I - gamma J, whose diagonal is full, and SUNDIALS adds the identity
 * in place only where J has its diagonal (SUNMatScaleAddI_Sparse restructures the matrix, at a cost
 * of size^2, otherwise).  0, or -1 if out of memory. */
int pl_csc_from_dense(pl_csc *a, const double *d);

/* Whether a and b have the same size and the same entries stored (values aside). */
int pl_csc_same_pattern(const pl_csc *a, const pl_csc *b);

/* dst's pattern = src's (dst's values undefined); 0, or -1 if out of memory. */
int pl_csc_copy_pattern(pl_csc *dst, const pl_csc *src);

#endif
