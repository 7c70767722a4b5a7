/* The data of the comparison's figures that its tables do not hold. */
#ifndef PL_COMPARE_PLOTS_H
#define PL_COMPARE_PLOTS_H

#include "io/compare_report.h"
#include "model/model.h"

/* compare_deviation.csv: for every entry with rows, |q - q_limit|_inf (the largest over the
 * coordinates) at its own rows, the limit solution interpolated there (study/trajectory.h: the
 * interpolant the distances use), so that the figure shows on a log scale where and by how much each
 * solution leaves the limit.  Of the rows in each of 2000 equal bins of the limit's time span, the
 * one of largest deviation (the envelope: a file of every row of a fine scheme's solution was 77 MB
 * for the ball's work-precision comparison).  Columns: solution (the entry's label), t, deviation.
 * Rows after the limit solution's end are left out.  Without a limit solution with rows, the header alone. */
pl_status pl_write_compare_deviation(pl_output *out, const pl_model *model, const pl_solution *limit,
                                     const pl_compare_entry *e, size_t n, pl_error *err);

#endif
