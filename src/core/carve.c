#include "core/carve.h"

#include <stdint.h>
#include <stdlib.h>

/* One body for both element types: the total of the counts saturates at SIZE_MAX, which no
 * allocation holds, so that an overflowing sum fails instead of wrapping to a small block. */
#define DEFINE_CARVE(name, type, part_type)                                                                  \
    type *name(const part_type *parts, size_t nparts)                                                        \
    {                                                                                                        \
        size_t total = 0;                                                                                    \
        for (size_t k = 0; k < nparts; k++)                                                                  \
            total = parts[k].count > SIZE_MAX - total ? SIZE_MAX : total + parts[k].count;                  \
        type *block = total < SIZE_MAX ? calloc(total > 0 ? total : 1, sizeof *block) : NULL;                \
        type *p = block;                                                                                     \
        for (size_t k = 0; k < nparts; k++) {                                                                \
            *parts[k].array = p;                                                                             \
            if (p)                                                                                           \
                p += parts[k].count;                                                                         \
        }                                                                                                    \
        return block;                                                                                        \
    }

DEFINE_CARVE(pl_carve, double, pl_part)
DEFINE_CARVE(pl_carve_int, int, pl_int_part)
