/* The files of a sweep (formats in docs/formats.md): sweep.csv, episodes.csv, sweep.json, one directory
 * per run under runs/, the data of the plots and the plots themselves. */
#ifndef PL_SWEEP_REPORT_H
#define PL_SWEEP_REPORT_H

#include "core/clock.h"
#include "io/output.h"
#include "study/sweep.h"

/* The columns of sweep.csv after the refined value and the status (also study.csv's), and their values
 * for run k: counts, quantities, the distances to the limit and the matching's counts, steps,
 * rhs_evals, wall_seconds. */
#define PL_SWEEP_ROW 27
#define PL_SWEEP_ROW_HEADER                                                                                        \
    "episodes,impacts,impacts_before_capture,first_impact_time,capture_time,accumulation_estimate,"               \
    "contraction_ratio,restitution_first,scaled_penetration_first,lift_off_first,sliding_force_error,"            \
    "successive_s_distance_q,successive_s_distance_v,sup_q,sup_q_outside_zeno,l1_v,s_distance_q,"                 \
    "impact_time_error,impact_velocity_error,impacts_matched,impacts_missing,impacts_absorbed,impacts_excluded,"  \
    "impacts_extra,steps,rhs_evals,wall_seconds"
void pl_sweep_row(const pl_sweep *sw, size_t k, double row[PL_SWEEP_ROW]);
/* The index of the column `name` in PL_SWEEP_ROW_HEADER, or -1. */
int pl_sweep_row_column(const char *name);
/* The row as sweep.csv prints it, each value after a comma (counts as integers, wall_seconds %.6g). */
void pl_put_sweep_row(pl_file *f, const double row[PL_SWEEP_ROW]);

/* "closed form", "limit solution", "extrapolated" or "none" */
const char *pl_reference_name(pl_reference r);

/* Why quantity q of the sweep has no rate (NULL if it has one): the fit's reason
 * (pl_convergence_note), or for the impact errors that no run pairs an impact or that no impact is
 * paired in every run that pairs any. */
const char *pl_sweep_rate_note(const pl_sweep *sw, const pl_sweep_quantity *q, char *buf, size_t len);

/* Directory of run k relative to the sweep directory, e.g. "runs/003_mu_1.000e+06". */
void pl_sweep_run_dir(const pl_sweep *sw, size_t k, char *buf, size_t len);
/* The same from the refined option's name, the index and the value (before the sweep runs). */
void pl_sweep_run_dir_name(const char *param_name, size_t k, double value, char *buf, size_t len);

/* Write run k's files into its directory (pl_sweep_run_dir), within the time budget (NULL: none;
 * as pl_write_solution). */
pl_status pl_write_sweep_run(pl_output *out, const pl_model *model, const pl_sweep *sw, size_t k,
                             const pl_budget *budget, pl_error *err);

/* Write the data files of the sweep but the runs' (pl_write_sweep_run): the limit solution (unless
 * read back, sw->limit_reused: its files are kept as they are), the tables, sweep.json and the
 * plots' data, within the time budget (NULL: none): when it runs out, the file being written and
 * those after it are left out (PL_ERR_SOLVER, PL_BUDGET_STOPPED's message). */
pl_status pl_write_sweep(pl_output *out, const pl_model *model, const pl_sweep *sw, const pl_budget *budget,
                         pl_error *err);

/* Every file a sweep over values (in the order of the runs) may write, relative to its directory:
 * the runs', the limit solution's (with_limit), the data, and the plots with their scripts and
 * gnuplot.log (plots). */
pl_status pl_sweep_files(const char *param_name, const double *values, size_t n, int with_limit, int plots,
                         pl_strings *files, pl_error *err);

/* Write and render the plots within budget (NULL: none).  Returns PL_OK, or PL_ERR_IO with a
 * one-line reason (no gnuplot, gnuplot failed or stopped by the budget); the data files are
 * complete either way. */
pl_status pl_render_sweep_plots(pl_output *out, const pl_model *model, const pl_sweep *sw, const pl_budget *budget,
                                pl_error *err);

#endif
