/* A growable table of rows of doubles (trajectory samples, fit data). */
#ifndef PL_TABLE_H
#define PL_TABLE_H

#include <stddef.h>

#include "core/status.h"

typedef struct {
    size_t ncol;
    size_t nrows;
    size_t cap;
    double max_values; /* a row that would take the table beyond this many values fails with
                          PL_ERR_SOLVER (0: no cap) */
    double *data;
} pl_table;

void pl_table_init(pl_table *t, size_t ncol);
pl_status pl_table_append(pl_table *t, const double *row, pl_error *err);
/* Append a row of which the first count (<= ncol) values are given, the others 0. */
pl_status pl_table_append_part(pl_table *t, const double *row, size_t count, pl_error *err);
void pl_table_free(pl_table *t);

static inline double *pl_table_row(const pl_table *t, size_t r)
{
    return t->data + r * t->ncol;
}

#endif
