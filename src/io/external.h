/* External trajectories: a solution computed elsewhere, read from a CSV file so that it can be
 * measured against the limit solution like penlim's own (penlim compare --external).
 *
 * The file: a header line naming the columns, then one row per sample, comma-separated.  The
 * columns `t`, `q1`..`qn` and `v1`..`vn` (n the case's degrees of freedom) are required, in any
 * order; `gamma` is used if present (then the distance in s is measured); any other column is
 * ignored (so penlim's own trajectory.csv is accepted).  t is non-decreasing, within [0, t_end];
 * a velocity jump is two rows with the same t (the state before, then after); at least 2 rows and
 * a positive time span.  Fields may be surrounded by spaces; blank lines are skipped.
 *
 * What is derived from the rows (formats.md): the gaps G_i(q, t); the impacts (a block of rows at
 * one t whose first and last velocities differ: an impact of the constraint whose gap rate changes
 * most, at that t, from the first row's velocity to the last's); sustained contacts (a maximal run
 * of rows spanning a positive time where a constraint's gap and gap rate are within 1e-6 of the
 * case's length V^2/A and velocity V: a slide start at its first row, a lift-off at its last row if
 * rows follow; it may hold impacts slower than 1e-6 V); without a gamma column, the discrete time
 * transform of the schemes: s = t plus the accumulated norms |v_after - v_before| of the jumps.
 * The capture is not read from those sustained contacts: the analysis finds it from the rows, as
 * for a scheme (study/analysis.h: the last impact before a rest within the sampling's velocity
 * resolution A dt). */
#ifndef PL_EXTERNAL_H
#define PL_EXTERNAL_H

#include "model/model.h"
#include "solvers/solution.h"

/* Read and check FILE for model on [0, t_end] into sol (initialised here, its G stored as
 * `contacts` asks, AUTO by the count of constraints; free it with pl_solution_free whatever the
 * status).  *has_gamma tells whether the file had a gamma column.
 * Bad content gives PL_ERR_INPUT with one line "FILE:LINE:COLUMN: problem" (LINE and COLUMN
 * 1-based; the column is the field's position in its line), and so does a file that cannot be
 * opened or is not a regular file ("FILE: reason"); a read error gives PL_ERR_IO and a line that
 * memory could not hold PL_ERR_NOMEM ("FILE:LINE: reason"), never taken for the end of the file.
 * Values derived from the rows must be finite too (the gaps, the gap rates at impacts, the time
 * transform): a file whose numbers overflow them is bad input.  Never crashes on any content. */
pl_status pl_read_external(const char *path, const pl_model *model, double t_end, pl_contacts_mode contacts,
                           pl_solution *sol, int *has_gamma, pl_error *err);

#endif
