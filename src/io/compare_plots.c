#include "io/compare_plots.h"

#include <math.h>
#include <stdlib.h>

#include "core/number.h"
#include "io/output.h"
#include "study/trajectory.h"

/* The bins of t of compare_deviation.csv: a row per bin and solution at most. */
#define PL_DEVIATION_BINS 2000

pl_status pl_write_compare_deviation(pl_output *out, const pl_model *model, const pl_solution *limit,
                                     const pl_compare_entry *e, size_t n, pl_error *err)
{
    if (limit->traj.nrows < 2) { /* no limit to measure against: the header alone */
        static const char header[] = "solution,t,deviation\n";
        return pl_write_bytes(out, NULL, "compare_deviation.csv", header, sizeof header - 1, err);
    }
    pl_trajectory tr;
    pl_status s = pl_trajectory_build(&tr, model, limit, err);
    if (s != PL_OK)
        return s;
    size_t dof = model->n;
    double *x = malloc(2 * dof * sizeof *x);
    if (!x) {
        pl_trajectory_free(&tr);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory writing compare_deviation.csv");
    }
    double t_first = pl_table_row(&limit->traj, 0)[0];
    double t_last = pl_table_row(&limit->traj, limit->traj.nrows - 1)[0];
    double width = (t_last - t_first) / PL_DEVIATION_BINS;
    pl_file f;
    if ((s = pl_file_open(&f, out, NULL, "compare_deviation.csv", err)) == PL_OK) {
        fputs("solution,t,deviation\n", f.fp);
        for (size_t k = 0; k < n; k++) {
            const pl_table *t = &e[k].sol->traj;
            /* the largest deviation in each bin of t, at the row where it is (the envelope a log
             * scale shows: every row of a fine solution would be tens of megabytes) */
            long bin = -1;
            double at = 0, worst = -1;
            for (size_t r = 0; r <= t->nrows; r++) {
                const double *row = r < t->nrows ? pl_table_row(t, r) : NULL;
                long b = !row || row[0] > t_last ? -2 : width > 0 && row[0] > t_first ? (long)((row[0] - t_first) / width) : 0;
                if (b != bin && worst >= 0) {
                    char tn[PL_NUMBER_LEN], dn[PL_NUMBER_LEN];
                    fprintf(f.fp, "%s,%s,%s\n", e[k].label, pl_format_double(at, tn, sizeof tn),
                            pl_format_double(worst, dn, sizeof dn));
                    worst = -1;
                }
                if (b == -2)
                    break;
                bin = b;
                pl_trajectory_at_t(&tr, row[0], x);
                double d = 0;
                for (size_t j = 0; j < dof; j++) /* q_j: column 2 + j of a row (t, gamma, q, v, ...) */
                    d = fmax(d, fabs(row[2 + j] - x[j]));
                if (d > worst)
                    worst = d, at = row[0];
            }
        }
        s = pl_file_commit(&f, err);
    }
    free(x);
    pl_trajectory_free(&tr);
    return s;
}
