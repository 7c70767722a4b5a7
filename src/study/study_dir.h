/* A study's results directory as the program and the library's pl_study_run write it: the files of
 * its tasks and tables, its identity (what makes two studies the same, and the shards of one) and
 * its manifest.  What the program adds (the lock's session, the journal written as tasks complete,
 * what --resume reuses, a shard's record, merge) stays in src/cli/cmd_study.c. */
#ifndef PL_STUDY_DIR_H
#define PL_STUDY_DIR_H

#include <jansson.h>

#include "io/study_plots.h"
#include "study/study.h"

/* The files of a task's directory: the first PL_STUDY_TASK_FILES_ALWAYS always, contacts.csv with
 * sparse contacts. */
extern const char *const pl_study_task_files[];
#define PL_STUDY_TASK_FILES 4
#define PL_STUDY_TASK_FILES_ALWAYS 3

/* Append the files task `task` may write, relative to the study's directory. */
pl_status pl_study_plan_task_files(const pl_study *st, size_t task, pl_strings *planned, pl_error *err);

/* What makes two studies the same (and the shards of one): the spec as given, everything its runs
 * depend on; how it is executed (jobs, shards, processes) is not part of it, nor max_seconds (a run
 * it stopped is failed, and a resumed study computes it again).  NULL if out of memory. */
json_t *pl_study_identity(const pl_study_spec *sp);

/* The figures' choices (the map's quantity and axes, NULL for the defaults) as the manifest records
 * them: what `penlim plot` and `penlim merge` draw again. */
json_t *pl_study_figures_json(const pl_study_plot_opts *figures);

/* The manifest of a study without files: the command's ("study", the model and options before the
 * axes: pl_study_base), the model's identity (file and hash: pl_manifest_model_identity), the
 * study's identity and the figures' choices (figures NULL: the defaults).  NULL with err if the
 * model cannot be made again or out of memory. */
json_t *pl_study_manifest(const pl_study *st, const pl_study_plot_opts *figures, const char *file, const char *hash,
                          pl_error *err);

#endif
