/* The figures of a directory penlim wrote (`penlim plot DIR`), whatever command wrote it: its kind
 * comes from its manifest's "command" and the files it lists.  A run or limit directory gets the
 * figure "run" (every q_j, v_j, G_i and lambda_i against t, from trajectory.csv), a sweep or a
 * compare directory its figures from the data it wrote, and any other directory the embedded
 * scripts it lists. */
#ifndef PL_PLOT_DIR_H
#define PL_PLOT_DIR_H

#include <jansson.h>

#include "io/output.h"

#define PL_PLOT_MAX_FIGURES 16

typedef struct {
    const char *figures[PL_PLOT_MAX_FIGURES]; /* script names, in rendering order */
    size_t n;
    int run_config; /* write plots_config.gp for a single solution */
} pl_plot_plan;

/* What to draw in out->root, described by manifest.  PL_ERR_INPUT with a one-line message if the
 * directory lacks the data its figures need. */
pl_status pl_plot_dir_plan(const pl_output *out, const json_t *manifest, pl_plot_plan *plan, pl_error *err);

/* Append every file drawing the plan may write (scripts, configuration, figures, styles, log). */
pl_status pl_plot_dir_files(const pl_plot_plan *plan, pl_strings *files, pl_error *err);

/* Write the configuration (a single solution) and the scripts. */
pl_status pl_plot_dir_write(pl_output *out, const json_t *manifest, const pl_plot_plan *plan, pl_error *err);

/* Render every figure with gnuplot: PL_ERR_IO with a one-line reason if gnuplot is missing or fails. */
pl_status pl_plot_dir_render(pl_output *out, const pl_plot_plan *plan, pl_error *err);

#endif
