/* The figures of a study (docs/figures.md), drawn from its data files alone, study.csv and
 * study.json (docs/formats.md), so that they are the same whoever computed the runs, and
 * `penlim plot DIR` draws them again:
 *
 *   family_QUANTITY  QUANTITY against the line axis (the refined axis, mu or h; without one, the
 *                    first axis with more than one value), one line per point of the other axes
 *                    (at most PL_STUDY_MAX_LINES, the first in point order), keyed by their values;
 *   map_QUANTITY     QUANTITY over two axes (the first two with more than one value, or the ones
 *                    asked for), the other axes at their first value and a refined axis not in the
 *                    map at its finest value; one coloured cell per run.
 *
 * Each as NAME.png and NAME.pdf, with NAME.gp (which `gnuplot NAME.gp` runs again) and NAME.dat.
 *
 * study.csv and study.json are untrusted input (a results directory is shared data): every name
 * that reaches a script (an axis, a quantity, the case, the solver) must be one penlim could have
 * written (pl_case_name_valid's alphabet; a solver of the registry), and goes in single-quoted by
 * plot_config.h; every value read goes into the .dat files only, as the number it parses to,
 * written again by penlim.  A failed run, or a nan, is left out: a gap, never a zero. */
#ifndef PL_STUDY_PLOTS_H
#define PL_STUDY_PLOTS_H

#include "core/clock.h"
#include "io/output.h"

/* Lines in one family (the styles of styles.gp repeat beyond 40). */
#define PL_STUDY_MAX_LINES 40
/* Figures in one study (line families and the map). */
#define PL_STUDY_MAX_FIGURES 48
/* The map's quantity unless the study says which: the first impact's restitution. */
#define PL_STUDY_DEFAULT_MAP "restitution_first"

typedef struct {
    /* The line families: columns of study.csv after "status".  NULL: every quantity the sweep
     * measures (the columns from "status" to "steps"), those with a value. */
    const char *const *quantities;
    size_t nquantities;
    const char *map;         /* the map's quantity; NULL: restitution_first */
    const char *map_axes[2]; /* the map's two axes (axis names of study.json); NULL: the default */
    /* Told after each figure is drawn (NULL: nothing told): the study's progress. */
    void (*progress)(size_t done, size_t total, void *user);
    void *user;
} pl_study_plot_opts;

typedef struct pl_study_plots pl_study_plots;

/* Before a study runs: whether opts fits it, its axes (names as study.json will give them, in the
 * order given, nvalues distinct values each; zip: paired) and the columns study.csv will have after
 * "status" (in order).  PL_ERR_INPUT with one line naming the quantity or axis otherwise: the
 * study's bad input, found before anything runs. */
pl_status pl_study_plot_check(const pl_study_plot_opts *opts, const char *const *axes, const size_t *nvalues,
                              size_t naxes, int zip, const char *const *columns, size_t ncolumns, pl_error *err);

/* Before a study runs: append every file its figures may write (a superset: a figure without data
 * is not drawn), given opts (checked by pl_study_plot_check) and the columns of study.csv after
 * "status": as pl_study_plots_files. */
pl_status pl_study_plot_planned_files(const pl_study_plot_opts *opts, const char *const *columns, size_t ncolumns,
                                      pl_strings *files, pl_error *err);

/* Read out->root's study.json and study.csv (out opened: pl_output_open; changing nothing) and plan the figures opts asks for
 * (NULL: the defaults).  PL_ERR_INPUT with a one-line message naming the file (and line, column)
 * if either holds what penlim would not have written there, or opts names a column or axis the
 * study lacks; PL_ERR_IO, PL_ERR_NOMEM with the reason when a file cannot be read.  A study with
 * nothing to draw gives a plan of no figure.  *plots is NULL unless PL_OK; free it with
 * pl_study_plots_free. */
pl_status pl_study_plots_read(const pl_output *out, const pl_study_plot_opts *opts, pl_study_plots **plots,
                              pl_error *err);

/* The figures planned, in rendering order: their names (NAME.gp renders NAME.png and NAME.pdf). */
size_t pl_study_plots_count(const pl_study_plots *p);
const char *pl_study_plots_name(const pl_study_plots *p, size_t k);

/* Append every file drawing the plan may write: each figure's .gp, .dat, .png and .pdf, the scripts
 * they load, styles.gp and gnuplot.log. */
pl_status pl_study_plots_files(const pl_study_plots *p, pl_strings *files, pl_error *err);

/* Write each figure's data and script, and the scripts they load. */
pl_status pl_study_plots_write(pl_output *out, const pl_study_plots *p, pl_error *err);

/* Render each figure with gnuplot within budget (NULL: none): PL_ERR_IO with a one-line reason
 * if gnuplot is missing, fails or is stopped by the budget. */
pl_status pl_study_plots_render(pl_output *out, const pl_study_plots *p, const pl_budget *budget, pl_error *err);

void pl_study_plots_free(pl_study_plots *p);

/* The whole of it: read, write, render.  PL_ERR_INPUT as pl_study_plots_read (nothing written);
 * PL_ERR_IO when gnuplot could not draw (the data and scripts are written: a warning, the
 * study's data being complete either way). */
pl_status pl_render_study_plots(pl_output *out, const pl_study_plot_opts *opts, const pl_budget *budget,
                                pl_error *err);

#endif
