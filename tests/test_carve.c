/* One allocation carved into named arrays (src/core/carve.h): the parts follow one another in the
 * order listed, each as long as its count, the whole zero-filled; a total that overflows size_t fails
 * with every pointer NULL; a part of no element is a pointer into the block. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "core/carve.h"

int main(void)
{
    check_init();
    size_t n = 3, m = 5;
    double *a, *b, *c, *empty;
    pl_part parts[] = {{&a, n}, {&empty, 0}, {&b, n * m}, {&c, 2 * m}};
    double *block = pl_carve(parts, PL_NPARTS(parts));
    CHECK(block != NULL, "carve of %zu doubles", n + n * m + 2 * m);
    if (block) {
        CHECK(a == block, "the first part starts the block");
        CHECK(empty == a + n && b == a + n, "an empty part points to where the next begins");
        CHECK(c == b + n * m, "parts in the order listed, each its count long");
        size_t total = n + n * m + 2 * m, zeros = 0;
        for (size_t k = 0; k < total; k++) {
            zeros += block[k] == 0.0;
            block[k] = (double)k; /* every element writable: ASan reports one past the end */
        }
        CHECK(zeros == total, "zero-filled: %zu of %zu", zeros, total);
        CHECK(c[2 * m - 1] == (double)(total - 1), "the last part ends the block");
        free(block);
    }

    int *i1, *i2;
    pl_int_part int_parts[] = {{&i1, m}, {&i2, m}};
    int *ints = pl_carve_int(int_parts, PL_NPARTS(int_parts));
    CHECK(ints != NULL && i1 == ints && i2 == ints + m && i2[m - 1] == 0, "int parts carved and zeroed");
    free(ints);

    double dummy, *x = &dummy, *y = &dummy;
    pl_part huge[] = {{&x, SIZE_MAX / 2 + 1}, {&y, SIZE_MAX / 2 + 1}};
    CHECK(pl_carve(huge, PL_NPARTS(huge)) == NULL && x == NULL && y == NULL,
          "a total that overflows size_t fails, every part NULL");

    pl_part none[] = {{&x, 0}};
    double *one = pl_carve(none, PL_NPARTS(none));
    CHECK(one != NULL && x == one, "a block of no element is still allocated (NULL means failure)");
    free(one);
    return check_finish("test_carve");
}
