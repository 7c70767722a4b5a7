#include "solvers/csc.h"

#include <stdlib.h>
#include <string.h>

int pl_csc_init(pl_csc *a, size_t size, size_t capacity)
{
    memset(a, 0, sizeof *a);
    a->size = size;
    a->colptr = calloc(size + 1, sizeof *a->colptr);
    return a->colptr && pl_csc_reserve(a, capacity > 0 ? capacity : 1) == 0 ? 0 : -1;
}

void pl_csc_free(pl_csc *a)
{
    free(a->colptr);
    free(a->rowind);
    free(a->values);
    memset(a, 0, sizeof *a);
}

int pl_csc_reserve(pl_csc *a, size_t nnz)
{
    if (nnz <= a->capacity)
        return 0;
    if (nnz > SIZE_MAX / sizeof(double))
        return -1;
    int64_t *rowind = realloc(a->rowind, nnz * sizeof *rowind);
    if (!rowind)
        return -1;
    a->rowind = rowind;
    double *values = realloc(a->values, nnz * sizeof *values);
    if (!values)
        return -1;
    a->values = values;
    a->capacity = nnz;
    return 0;
}

/* Two passes over the rows (the dense array's order): the count of each column's entries, then the
 * entries, each column's rows coming in increasing order.  colptr[j] serves as column j's cursor
 * during the second pass and is shifted back to its start after it. */
int pl_csc_from_dense(pl_csc *a, const double *d)
{
    size_t n = a->size;
    int64_t *p = a->colptr;
    memset(p, 0, (n + 1) * sizeof *p);
    for (size_t r = 0; r < n; r++)
        for (size_t j = 0; j < n; j++)
            p[j] += d[r * n + j] != 0.0 || r == j;
    int64_t nnz = 0;
    for (size_t j = 0; j < n; j++) {
        int64_t count = p[j];
        p[j] = nnz;
        nnz += count;
    }
    if (pl_csc_reserve(a, (size_t)nnz) != 0) {
        memset(p, 0, (n + 1) * sizeof *p); /* a valid empty matrix */
        return -1;
    }
    for (size_t r = 0; r < n; r++)
        for (size_t j = 0; j < n; j++) {
            double v = d[r * n + j];
            if (v != 0.0 || r == j) {
                a->rowind[p[j]] = (int64_t)r;
                a->values[p[j]++] = v;
            }
        }
    for (size_t j = n; j > 0; j--)
        p[j] = p[j - 1];
    p[0] = 0;
    return 0;
}

int pl_csc_same_pattern(const pl_csc *a, const pl_csc *b)
{
    if (a->size != b->size || memcmp(a->colptr, b->colptr, (a->size + 1) * sizeof *a->colptr) != 0)
        return 0;
    return memcmp(a->rowind, b->rowind, pl_csc_nnz(a) * sizeof *a->rowind) == 0;
}

int pl_csc_copy_pattern(pl_csc *dst, const pl_csc *src)
{
    if (dst->size != src->size || pl_csc_reserve(dst, pl_csc_nnz(src)) != 0)
        return -1;
    memcpy(dst->colptr, src->colptr, (src->size + 1) * sizeof *src->colptr);
    memcpy(dst->rowind, src->rowind, pl_csc_nnz(src) * sizeof *src->rowind);
    return 0;
}
