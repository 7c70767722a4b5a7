/* The files of a limit solution: trajectory.csv, trajectory_s.csv, summary.json (README.md). */
#ifndef PL_LIMIT_REPORT_H
#define PL_LIMIT_REPORT_H

#include <jansson.h>

#include "solvers/limit/limit.h"

json_t *pl_limit_summary_json(const pl_model *model, const pl_limit_result *res);
pl_status pl_write_limit(const char *dir, const pl_model *model, const pl_limit_result *res, pl_error *err);

#endif
