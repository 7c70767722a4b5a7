/* One allocation carved into named arrays.  A workspace of many arrays is allocated once, its
 * total summed here from the list of its parts, so that an array added to the list cannot be
 * left out of the sum: each part names the pointer to set and its length in elements.
 *
 *     double *a, *b;
 *     pl_part parts[] = {{&a, n}, {&b, n * m}};
 *     double *block = pl_carve(parts, PL_NPARTS(parts));   (free(block) frees every part)
 */
#ifndef PL_CARVE_H
#define PL_CARVE_H

#include <stddef.h>

typedef struct {
    double **array; /* set to the part's first element */
    size_t count;   /* its length in elements (0: a pointer into the block, no element of its own) */
} pl_part;

typedef struct {
    int **array;
    size_t count;
} pl_int_part;

#define PL_NPARTS(parts) (sizeof(parts) / sizeof *(parts))

/* The zero-filled block holding every part in turn, or NULL if out of memory or if the total
 * overflows size_t (every *array then NULL).  A block of no element is allocated all the same
 * (one element), so that NULL always means failure. */
double *pl_carve(const pl_part *parts, size_t nparts);
int *pl_carve_int(const pl_int_part *parts, size_t nparts);

#endif
