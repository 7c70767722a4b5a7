/* `penlim compare` as one sequence the program and the library's pl_compare_model share: the
 * solutions asked for (or the default set) planned and checked, every external file read, before
 * anything is computed; then the comparison (study/comparison.h); then its files
 * (io/compare_report.h) into an output directory with its manifest. */
#ifndef PL_COMPARE_RUN_H
#define PL_COMPARE_RUN_H

#include "penlim/study.h"

#include "io/compare_report.h"
#include "study/comparison.h"

typedef struct {
    pl_comparison_item *item;
    pl_compare_entry *e;  /* their entries in the files, e[k].sol = &item[k].sol */
    char **file;          /* an external's path as given (owned), NULL for the others */
    size_t n, cap;
    pl_solve_opts limit;  /* the limit solution's options */
    pl_comparison c;
    int ran;              /* c is to be freed */
} pl_compare_set;

/* Plan the solutions of spec (public: penlim/study.h) with the penalty's options (each scheme's
 * run takes their t-end, caps and contacts), or the default set without specs, the penalty's values
 * the sweep's grid and every scheme its 7 default h with work_precision: every item checked as a
 * run is, every external file read.  PL_ERR_INPUT (one line) for bad input, PL_ERR_IO or
 * PL_ERR_NOMEM for a file that could not be read; l is to be freed whatever the status. */
pl_status pl_compare_plan(pl_compare_set *l, const pl_model *model, const pl_solve_opts *penalty,
                          const pl_compare_spec *spec, size_t nspec, int work_precision, pl_error *err);
void pl_compare_set_free(pl_compare_set *l);

/* Run the comparison planned (pl_comparison_run with opts, whose limit is set here) and fill the
 * entries with what was measured. */
pl_status pl_compare_set_run(pl_compare_set *l, const pl_model *model, pl_comparison_opts *opts, pl_error *err);

/* Write its files into out (pl_write_compare, each solution's within max_seconds): a solution (or the
 * limit solution) whose files could not all be written is failed with the reason and counted in
 * l->c.failures.  Returns pl_write_compare's status (*stopped its reason). */
pl_status pl_compare_set_write(pl_compare_set *l, pl_output *out, const pl_model *model, double max_seconds,
                               pl_error *stopped);

/* The manifest of compare (command "compare", the limit solution's options) without files, and the
 * model's identity: the file it was loaded from and its content hash (NULL: a built-in case, or a
 * model given to the library), how its derivatives are taken.  NULL if out of memory. */
json_t *pl_compare_manifest(const pl_compare_set *l, const pl_model *model, const char *file, const char *hash);
json_t *pl_manifest_model_identity(json_t *manifest, const pl_model *model, const char *file, const char *hash);

#endif
