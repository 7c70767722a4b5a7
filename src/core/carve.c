#include "core/carve.h"

#include <stdint.h>
#include <stdlib.h>

/* The total of the counts, or SIZE_MAX if it overflows (no allocation of that size succeeds). */
#define TOTAL(parts, nparts, total)                                                                          \
    do {                                                                                                     \
        total = 0;                                                                                           \
        for (size_t k = 0; k < (nparts); k++)                                                                \
            total = (parts)[k].count > SIZE_MAX - total ? SIZE_MAX : total + (parts)[k].count;              \
    } while (0)

double *pl_carve(const pl_part *parts, size_t nparts)
{
    size_t total;
    TOTAL(parts, nparts, total);
    double *block = total < SIZE_MAX ? calloc(total > 0 ? total : 1, sizeof *block) : NULL;
    double *p = block;
    for (size_t k = 0; k < nparts; k++) {
        *parts[k].array = p;
        if (p)
            p += parts[k].count;
    }
    return block;
}

int *pl_carve_int(const pl_int_part *parts, size_t nparts)
{
    size_t total;
    TOTAL(parts, nparts, total);
    int *block = total < SIZE_MAX ? calloc(total > 0 ? total : 1, sizeof *block) : NULL;
    int *p = block;
    for (size_t k = 0; k < nparts; k++) {
        *parts[k].array = p;
        if (p)
            p += parts[k].count;
    }
    return block;
}
