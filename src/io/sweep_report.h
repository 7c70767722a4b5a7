/* The files of a sweep (formats in README.md): sweep.csv, episodes.csv, sweep.json, one directory
 * per run under runs/, the data of the plots and the plots themselves. */
#ifndef PL_SWEEP_REPORT_H
#define PL_SWEEP_REPORT_H

#include "study/sweep.h"

/* "closed form", "limit solution", "extrapolated" or "none" */
const char *pl_reference_name(pl_reference r);

/* Directory of run k relative to the sweep directory, e.g. "runs/003_mu_1.000e+06". */
void pl_sweep_run_dir(const pl_sweep *sw, size_t k, char *buf, size_t len);

/* Write all data files of the sweep into dir (which must exist). */
pl_status pl_write_sweep(const char *dir, const pl_model *model, const pl_sweep *sw, pl_error *err);

/* Write and render the plots.  Returns PL_OK, or PL_ERR_IO with a one-line reason (no gnuplot,
 * or gnuplot failed); the data files are complete either way. */
pl_status pl_render_sweep_plots(const char *dir, const pl_model *model, const pl_sweep *sw, pl_error *err);

#endif
