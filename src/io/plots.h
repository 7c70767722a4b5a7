/* Plots: one gnuplot script per figure kind (the .gp files of plots/, embedded at build time).  A script is
 * written next to the data it reads and rendered there to PNG, so a user can edit and re-render
 * it with `gnuplot NAME.gp` in that directory. */
#ifndef PL_PLOTS_H
#define PL_PLOTS_H

#include <stddef.h>

#include "core/clock.h"
#include "core/status.h"
#include "io/output.h"

typedef struct {
    const char *name; /* e.g. "convergence": plots/convergence.gp renders convergence.png */
    const char *text;
} pl_plot_script;

extern const pl_plot_script pl_plot_scripts[];
extern const size_t pl_plot_script_count;

/* "NAME=VALUE", VALUE a refined value as every file and directory name writes it (pl_format_short: 1e10,
 * 1.5e5, 0.0015, every significant digit, so that two values never share a label; one word: the
 * scripts split on spaces). */
void pl_plot_label(const char *name, double x, char *buf, size_t len);

/* Append the files figure NAME may produce: NAME.gp, NAME.png, NAME.pdf. */
pl_status pl_plot_files(const char *name, pl_strings *files, pl_error *err);
/* Append the files every rendering shares: styles.gp and gnuplot.log. */
pl_status pl_plot_common_files(pl_strings *files, pl_error *err);

/* Write ROOT/NAME.gp.  PL_ERR_INPUT if there is no such script. */
pl_status pl_plot_write_script(pl_output *out, const char *name, pl_error *err);

/* Remove ROOT/gnuplot.log (never following a link), which gnuplot appends to: the log then holds
 * this rendering's messages only. */
pl_status pl_plot_start_log(pl_output *out, pl_error *err);

/* Run gnuplot on ROOT/NAME.gp in ROOT (its messages go to ROOT/gnuplot.log), recording NAME.png,
 * NAME.pdf (the script renders both) and the log as written.  gnuplot is killed when budget (NULL:
 * none) runs out, and not started if it has.  Returns PL_ERR_IO with a message if gnuplot is not
 * installed, fails or is stopped by the budget (NAME.png and NAME.pdf are then not recorded).  ROOT is
 * the directory out->root_fd holds (opened if it is not yet), whatever its path names meanwhile. */
pl_status pl_plot_render(pl_output *out, const char *name, const pl_budget *budget, pl_error *err);

#endif
