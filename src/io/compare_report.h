/* The files of `penlim compare`: compare.csv and compare.json (one row per solution: what it is,
 * its distances to the limit solution, its cost), each solution's trajectories, the limit
 * solution's files, and the overlay and work-precision plots (formats in docs/formats.md). */
#ifndef PL_COMPARE_REPORT_H
#define PL_COMPARE_REPORT_H

#include "core/clock.h"
#include "io/output.h"
#include "model/model.h"
#include "study/compare.h"
#include "study/family.h"

typedef struct {
    const pl_solution *sol;   /* its solver names the kind: penalty, a scheme, external */
    const pl_analysis *analysis; /* NULL if it could not be analysed */
    const char *param_name;   /* "mu", "h" or "file" */
    double param;             /* mu or h (NAN for an external) */
    const char *file;         /* an external's file, as given */
    char dir[64];             /* its directory, relative to the root: solutions/NN_NAME[_P] */
    char label[96];           /* for plots and the table: one word */
    int compared;             /* res holds its distances */
    pl_compare_result res;
    const pl_impact_match *match; /* its impacts against the limit's (when compared) */
    pl_error files;           /* set by pl_write_compare: PL_OK, or why its files could not all be written */
} pl_compare_entry;

/* Fill e->dir and e->label for entry k (0-based) from its solver, parameter and file. */
void pl_compare_entry_name(pl_compare_entry *e, size_t k);

/* The files compare may write (for the journal), given the entries (named) and whether plots are
 * drawn. */
pl_status pl_compare_files(const pl_compare_entry *e, size_t n, int plots, pl_strings *files, pl_error *err);

/* Write limit/ (the limit solution and its analysis) and every entry's files, then compare.csv,
 * compare.json (with the families: study/family.h) and the plot data and configuration.  Each
 * solution's files are written within max_seconds (0: no limit) of the start of their own writing,
 * as a sweep's runs: a solution whose files its budget stops, or that runs out of memory writing
 * them, is failed ("writing its files: ..." in e[k].files, or *limit_files for the limit solution;
 * the files it wrote before are complete) and the others go on.  The tables, which then show it
 * failed, are written within max_seconds of the start of theirs: when it runs out, the file being
 * written and those after it are left out (PL_ERR_SOLVER, PL_BUDGET_STOPPED's message).  A write
 * error (PL_ERR_IO) stops everything. */
pl_status pl_write_compare(pl_output *out, const pl_model *model, const pl_solution *limit,
                           const pl_analysis *limit_analysis, pl_error *limit_files, pl_compare_entry *e, size_t n,
                           const pl_family *families, size_t nfamilies, double max_seconds, pl_error *err);

/* Write and render the plot scripts (gnuplot) within budget (NULL: none); PL_ERR_IO with a message if
 * gnuplot fails or the budget stops it. */
pl_status pl_render_compare_plots(pl_output *out, const pl_compare_entry *e, size_t n, const pl_budget *budget,
                                  pl_error *err);

#endif
