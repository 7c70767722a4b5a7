/* The figures of a directory penlim wrote (`penlim plot DIR`), whatever command wrote it: its kind
 * comes from its manifest's "command" and the files it lists.  A run or limit directory gets the
 * figure "run" (every q_j, v_j, G_i and lambda_i against t, from trajectory.csv), a sweep or a
 * compare directory its figures from the data it wrote, a study directory its figures from study.csv
 * and study.json (io/study_plots.h).
 *
 * The directory is data, never code: the manifest's case and solver must be names penlim has (a
 * model compiled apart: a valid name), and the configuration a sweep or compare wrote for its
 * scripts (plots_config.gp, compare_config.gp) is read as data, each setting checked, and written
 * again (io/plot_config.h) before gnuplot loads it. */
#ifndef PL_PLOT_DIR_H
#define PL_PLOT_DIR_H

#include <jansson.h>

#include "core/clock.h"
#include "io/output.h"
#include "io/plot_config.h"
#include "io/study_plots.h"

#define PL_PLOT_MAX_FIGURES 64

typedef struct {
    const char *figures[PL_PLOT_MAX_FIGURES]; /* script names, in rendering order */
    size_t n;
    const char *config;  /* the configuration the scripts load (written again), or NULL */
    int run_config;      /* config written from the manifest (a single solution) */
    int ndof, ncon, impulses; /* then: the columns of its trajectory.csv */
    int contacts;        /* and its contacts.csv (sparse contacts), listed in its manifest */
    int contact_points;  /* which holds a contact (a line after its header) */
    pl_gp_config values; /* else config's settings as read and checked */
    pl_study_plots *study; /* a study's figures, or NULL */
} pl_plot_plan;

/* What to draw in out->root, described by manifest, reading what it needs of the directory (and
 * changing nothing).  PL_ERR_INPUT with a one-line message naming the field or setting if the
 * manifest or configuration holds what penlim would not have written there, or if the directory
 * lacks the data its figures need; PL_ERR_IO (PL_ERR_NOMEM) with the reason if a file cannot be
 * read.  Free a plan made with PL_OK with pl_plot_dir_plan_free. */
pl_status pl_plot_dir_plan(const pl_output *out, const json_t *manifest, pl_plot_plan *plan, pl_error *err);
void pl_plot_dir_plan_free(pl_plot_plan *plan);

/* Append every file drawing the plan may write (scripts, configuration, figures, styles, log). */
pl_status pl_plot_dir_files(const pl_plot_plan *plan, pl_strings *files, pl_error *err);

/* Write the configuration and the scripts. */
pl_status pl_plot_dir_write(pl_output *out, const json_t *manifest, const pl_plot_plan *plan, pl_error *err);

/* The figures drawn so far of a rendering (a study's figures count as one), for a progress line. */
typedef void (*pl_plot_progress)(size_t drawn, size_t total, void *user);

/* Render every figure with gnuplot within budget (NULL: none), calling progress (if not NULL) before the
 * first and after each: PL_ERR_IO with a one-line reason if gnuplot is missing, fails or is stopped by
 * the budget. */
pl_status pl_plot_dir_render(pl_output *out, const pl_plot_plan *plan, const pl_budget *budget,
                             pl_plot_progress progress, void *user, pl_error *err);

#endif
