/* The files of a study (formats in docs/formats.md, "Studies"): study.csv, one row per run in
 * run-index order, and study.json (axes, points with their rates, limits, runs, cost).  Nothing
 * about how the study was executed (processes, shards, jobs) is in them: their bytes are the same
 * whoever computed the runs, but for the measured times (fields named wall or seconds). */
#ifndef PL_STUDY_REPORT_H
#define PL_STUDY_REPORT_H

#include "io/output.h"
#include "study/study.h"

/* study.csv and study.json of an assembled study (pl_study_assemble). */
pl_status pl_write_study(pl_output *out, const pl_study *st, pl_error *err);

/* The columns study.csv will have after "status", in order (what its figures may draw), appended to
 * cols. */
pl_status pl_study_columns(const pl_study *st, pl_strings *cols, pl_error *err);

#endif
