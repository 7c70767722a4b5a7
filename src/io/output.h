/* Output files.  Every file is written to a temporary name in its directory and renamed into
 * place once complete, so a reader never sees a partial file: written completely or not at all. */
#ifndef PL_OUTPUT_H
#define PL_OUTPUT_H

#include <jansson.h>
#include <stdio.h>

#include "core/status.h"
#include "core/table.h"

typedef struct {
    FILE *fp;
    char tmp_path[4096];
    char path[4096];
} pl_file;

/* mkdir -p */
pl_status pl_make_dir(const char *path, pl_error *err);

pl_status pl_file_open(pl_file *f, const char *dir, const char *name, pl_error *err);
/* Flush, close and rename into place; on any failure the temporary file is removed. */
pl_status pl_file_commit(pl_file *f, pl_error *err);
void pl_file_abort(pl_file *f);

/* CSV with the given header line (no trailing newline) and one row per table row, %.17g. */
pl_status pl_write_csv(const char *dir, const char *name, const char *header, const pl_table *t,
                       pl_error *err);

/* JSON (indented), taking ownership of root. */
pl_status pl_write_json(const char *dir, const char *name, json_t *root, pl_error *err);

/* A JSON number, or null for NaN and infinities (JSON has no NaN). */
json_t *pl_json_number(double x);
json_t *pl_json_array(const double *x, size_t n);

#endif
