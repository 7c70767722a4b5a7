/* Parameter studies: runs over the product (or the zip) of several axes (case and contact-law
 * parameters, mu, h, rtol, t-end), in two phases joined by files (docs/methods.md, "Studies").
 *
 * Phase 1 executes tasks, in any order and on any process: one per distinct limit solution (its
 * files in limits/NNN/), one per run (runs/NNNNN/), each the files pl_write_solution writes.  Phase 2
 * (one process) runs, per point of the non-refined axes, the sweep machinery (pl_sweep_run) over the
 * point's runs with every run and the limit solution read back from their directories, so that the
 * analysis, the rates along the refined axis and the distances to the limit are exactly a sweep's,
 * whoever wrote the files. */
#ifndef PL_STUDY_H
#define PL_STUDY_H

#include "penlim/study.h"

#include "io/output.h"
#include "io/sweep_report.h"
#include "laws/law.h"
#include "model/model.h"
#include "solvers/solver.h"
#include "study/sweep.h"

/* More points are refused before anything is allocated per point. */
#define PL_STUDY_MAX_RUNS 1000000

typedef enum { PL_AXIS_CASE, PL_AXIS_LAW, PL_AXIS_MU, PL_AXIS_H, PL_AXIS_RTOL, PL_AXIS_T_END } pl_axis_kind;

typedef struct {
    char name[64];   /* the column of study.csv: the parameter's name, t_end for t-end */
    pl_axis_kind kind;
    double *values;  /* in the order given */
    size_t n;
    double *cost;    /* per value: the factor (n_dof / n_dof at the first value)^2 of a run's cost */
} pl_study_axis;

/* pl_study_progress: include/penlim/study.h. */

typedef struct {
    const pl_case *c;
    const pl_law_type *law;        /* NULL: the default law */
    const pl_solver_type *solver;  /* penalty, or a scheme (an h axis) */
    const pl_setting *settings;    /* --set: case and law parameters fixed for every run */
    size_t nsettings;
    const pl_setting *options;     /* the solver's options fixed for every run (by name) */
    size_t noptions;
    const char *const *grids;      /* "NAME=VALUES", in order: the axes */
    size_t ngrids;
    int zip;                       /* pair the axes (equal lengths) instead of their product */
    double t_end;                  /* NAN: the case's */
    size_t samples;                /* as pl_solve_opts (SIZE_MAX: the default) */
    long max_steps;
    double max_seconds;            /* each task within it, from its own start (0: none) */
    double max_output;
    pl_contacts_mode contacts;
    int jobs;                      /* threads of phase 1 and 2 (< 1: one) */
    /* Optional, serialized: progress of a phase, at each task or point done. */
    void (*progress)(const pl_study_progress *p, void *user);
    /* Optional: nonzero stops the phase at the next task or point, and the tasks under way at their
     * solver's next step (unwritten: a resumed study solves them again); the status is then
     * PL_ERR_SOLVER, "cancelled". */
    int (*cancel)(void *user);
    /* Optional, serialized (phase 1): task `task` is done and its files are in the output. */
    void (*task_done)(size_t task, int failed, void *user);
    void *user;
} pl_study_spec;

typedef struct {
    int is_limit;
    size_t index; /* the limit's or the run's */
    double cost;  /* predicted (docs/methods.md, "Studies") */
} pl_study_task;

/* What phase 2 finds for a run and a point. */
typedef struct {
    pl_status status;
    char *error;     /* the reason of a failed run (malloc'd), or NULL */
    double row[PL_SWEEP_ROW];
    double h_used;   /* a scheme's step (NAN otherwise) */
    double final_t;
    double *final_qv; /* 2 n values */
    size_t n;
} pl_study_run_result;

typedef struct {
    double rate, rate_se, limit;
    char *note; /* why no rate (malloc'd), or NULL */
} pl_study_convergence;

typedef struct pl_study {
    pl_study_spec spec;       /* its pointers are the caller's, valid while the study is */
    const pl_solver_type *solver;
    pl_study_axis *axes;
    size_t naxes;
    int refined;              /* the axis of mu or h, or -1 */
    size_t nruns, npoints, nlimits;
    size_t *run_point, *run_limit;
    size_t *point_first;      /* point p's runs: point_runs[point_first[p] .. point_first[p + 1]) */
    size_t *point_runs;
    size_t *limit_run;        /* a run of each limit key: where its parameters are read */
    size_t ntasks;
    pl_study_task *tasks;     /* limits, then runs */
    size_t *order;            /* task indices, costliest first (LPT) */
    size_t max_dof;
    /* phase 2 */
    int assembled;
    pl_study_run_result *run;
    pl_study_convergence *conv; /* npoints x PL_SWEEP_NQ */
    pl_status *limit_status;
    char **limit_error;
    /* what the public API copied for the study (pl_study_create), or NULL */
    pl_setting *owned_settings, *owned_options;
} pl_study;

/* Parse and check the spec's axes and build the plan: every bad input is PL_ERR_INPUT with one line
 * naming it (an unknown or repeated axis, empty or non-finite values, a value out of its parameter's
 * range, more than PL_STUDY_MAX_RUNS runs, --zip of axes of unequal lengths).  Free with
 * pl_study_free whatever the status. */
pl_status pl_study_plan(const pl_study_spec *spec, pl_study *st, pl_error *err);
void pl_study_free(pl_study *st);

/* The model and solve options of the study before its axes (the case with the spec's settings, the
 * solver's defaults with the spec's caps and options), as `penlim study` records them in its
 * manifest.  Free the model with pl_model_free whatever the status. */
pl_status pl_study_base(const pl_study *st, pl_model *model, pl_solve_opts *opts, pl_error *err);

/* The value of axis a at run r. */
double pl_study_value(const pl_study *st, size_t a, size_t r);

/* A task's directory relative to the study's: "limits/NNN" or "runs/NNNNN". */
void pl_study_task_dir(const pl_study *st, size_t task, char *buf, size_t len);

/* Deal the tasks to nshards shards so that their predicted costs balance: costliest first, each to
 * the least loaded shard (ties: the lowest index).  shard[task] in [0, nshards). */
pl_status pl_study_deal(const pl_study *st, size_t nshards, size_t *shard, pl_error *err);

/* Execute one task: solve, analyse and write its files into out (under pl_study_task_dir), as a
 * run of `penlim run` writes them; a failed solve is written as failed ("failed" in its summary)
 * and *failed set.  Not thread-safe on out (pl_output): pl_study_solve_task and
 * pl_study_write_task split it for a thread pool. */
pl_status pl_study_execute(const pl_study *st, size_t task, pl_output *out, int *failed, pl_error *err);

typedef struct {
    pl_model model;
    pl_solution sol;
    pl_analysis analysis;
    int analysed;
    pl_status status; /* of the solve and analysis */
} pl_study_solved;

pl_status pl_study_solve_task(const pl_study *st, size_t task, pl_study_solved *out, pl_error *err);
pl_status pl_study_write_task(const pl_study *st, size_t task, const pl_study_solved *s, pl_output *out,
                              pl_error *err);
void pl_study_solved_free(pl_study_solved *s);

/* Phase 1 in this process: the tasks not yet done (done[task] == 0; done may be NULL: all),
 * costliest first, over spec.jobs threads, each written into out as it completes (task_done told).
 * done[task] == 1: done already (reused), counted as done in the progress; 2: another process's
 * (a shard's), left out of the counts. */
pl_status pl_study_phase1(const pl_study *st, pl_output *out, const unsigned char *done, pl_error *err);

/* Phase 2: every point's sweep over the runs and limit solution read back from out (each file with
 * the hash out records for it), the results into st. */
pl_status pl_study_assemble(pl_study *st, pl_output *out, pl_error *err);

#endif
