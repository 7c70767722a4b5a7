#include "core/table.h"

#include <stdlib.h>
#include <string.h>

void pl_table_init(pl_table *t, size_t ncol)
{
    t->ncol = ncol;
    t->nrows = 0;
    t->cap = 0;
    t->max_values = 0.0;
    t->data = NULL;
}

pl_status pl_table_append(pl_table *t, const double *row, pl_error *err)
{
    return pl_table_append_part(t, row, t->ncol, err);
}

pl_status pl_table_append_part(pl_table *t, const double *row, size_t count, pl_error *err)
{
    if (t->max_values > 0 && (double)(t->nrows + 1) * (double)t->ncol > t->max_values)
        return pl_fail(err, PL_ERR_SOLVER, "the output reached %zu rows of %zu values, the cap (--max-output %g)",
                       t->nrows, t->ncol, t->max_values);
    if (t->nrows == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 256;
        double *d = realloc(t->data, cap * t->ncol * sizeof *d);
        if (!d)
            return pl_fail(err, PL_ERR_NOMEM, "out of memory storing %zu rows", t->nrows);
        t->data = d;
        t->cap = cap;
    }
    double *dst = t->data + t->nrows * t->ncol;
    memcpy(dst, row, count * sizeof *row);
    memset(dst + count, 0, (t->ncol - count) * sizeof *row);
    t->nrows++;
    return PL_OK;
}

void pl_table_free(pl_table *t)
{
    free(t->data);
    t->data = NULL;
    t->nrows = t->cap = 0;
}
