#include "study/trajectory.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/solver.h"

pl_status pl_trajectory_build(pl_trajectory *tr, const pl_model *model, const pl_solution *sol, pl_error *err)
{
    const pl_table *traj = &sol->traj;
    memset(tr, 0, sizeof *tr);
    tr->linear = sol->solver && pl_solver_can(sol->solver, PL_SOLVER_STEP_IMPULSES);
    tr->linear_v = sol->solver && sol->solver->family == PL_FAMILY_EXTERNAL;
    size_t n = model->n, m = model->m, rows = traj->nrows;
    tr->n = n;
    tr->rows = rows;
    tr->t = malloc(rows * sizeof *tr->t);
    tr->s = malloc(rows * sizeof *tr->s);
    tr->dt_ds = malloc(rows * sizeof *tr->dt_ds);
    tr->x = malloc(rows * 2 * n * sizeof *tr->x);
    tr->dx_dt = malloc(rows * 2 * n * sizeof *tr->dx_dt);
    /* the rates at a row: fp, a, ac (n each) and M^{-1} where M varies */
    double *scratch = malloc((3 * n + (model->mass_constant ? 0 : n * n)) * sizeof *scratch);
    pl_work *work = pl_work_new(model);
    pl_contact *c = pl_contact_new_sparse(1, model, 0);
    if (!tr->t || !tr->s || !tr->dt_ds || !tr->x || !tr->dx_dt || !scratch || !work || !c) {
        free(scratch);
        pl_work_free(work);
        free(c);
        pl_trajectory_free(tr);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory interpolating %zu rows", rows);
    }
    double *fp = scratch, *a = fp + n, *ac = a + n, *minv = ac + n;
    for (size_t r = 0; r < rows; r++) {
        const double *row = pl_table_row(traj, r);
        double t = row[0];
        if (tr->linear) { /* the force columns hold impulses: no derivatives */
            tr->t[r] = t;
            tr->s[r] = row[1];
            memcpy(tr->x + r * 2 * n, row + pl_col_q(n, m), 2 * n * sizeof *row);
            continue;
        }
        const double *q = row + pl_col_q(n, m), *v = row + pl_col_v(n, m);
        memset(ac, 0, n * sizeof *ac);
        pl_model_velocity_map(model, t, q, v, fp, NULL, NULL, NULL);
        if (tr->linear_v) { /* no forces in the file: only dq/dt is known */
            tr->t[r] = t;
            tr->s[r] = row[1];
            tr->dt_ds[r] = 1.0;
            memcpy(tr->x + r * 2 * n, q, 2 * n * sizeof *q);
            memcpy(tr->dx_dt + r * 2 * n, fp, n * sizeof *fp);
            memset(tr->dx_dt + r * 2 * n + n, 0, n * sizeof *fp);
            continue;
        }
        pl_model_accel(model, work, t, q, v, a, NULL, NULL);
        /* M^{-1} read where constant (an n x n copy per row was most of many bodies' rows) */
        const double *mi = model->mass_constant ? model->minv : minv;
        if (!model->mass_constant)
            pl_model_mass(model, q, NULL, minv);
        const pl_contact_entry *e;
        size_t count = pl_solution_row_contacts(sol, r, &e);
        int sparse = sol->contacts == PL_CONTACTS_SPARSE;
        for (size_t k = 0; k < (sparse ? count : m); k++) { /* sparse: the row's contacts; dense: every column */
            size_t i = sparse ? e[k].constraint : k;
            double lambda = sparse ? e[k].force : pl_solution_force_at(sol, r, i);
            if (lambda == 0.0)
                continue;
            /* over w's support (the zeros beyond it add nothing to ac) */
            pl_model_contact_sparse(model, i, t, q, fp, mi, c);
            for (size_t e = 0; e < c->nw; e++)
                ac[c->w_support ? c->w_support[e] : e] += c->w[e] * lambda;
        }
        double norm = 0.0;
        for (size_t j = 0; j < n; j++)
            norm += ac[j] * ac[j];
        tr->t[r] = t;
        tr->s[r] = row[1];
        tr->dt_ds[r] = 1.0 / (1.0 + sqrt(norm));
        memcpy(tr->x + r * 2 * n, q, 2 * n * sizeof *q);
        for (size_t j = 0; j < n; j++) {
            tr->dx_dt[r * 2 * n + j] = fp[j];
            tr->dx_dt[r * 2 * n + n + j] = a[j] + ac[j];
        }
    }
    free(scratch);
    pl_work_free(work);
    free(c);
    return PL_OK;
}

void pl_trajectory_free(pl_trajectory *tr)
{
    free(tr->t);
    free(tr->s);
    free(tr->dt_ds);
    free(tr->x);
    free(tr->dx_dt);
    memset(tr, 0, sizeof *tr);
}

/* Last row r with key[r] <= value, skipping zero-length intervals (a switch records its state
 * twice): the interval [r, r + 1] contains value. */
static size_t locate(const double *key, size_t rows, double value)
{
    size_t lo = 0, hi = rows - 1;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (key[mid] <= value)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Cubic Hermite on [0, h] at u: values y0, y1 and slopes d0, d1. */
static double hermite(double u, double h, double y0, double y1, double d0, double d1)
{
    double s = u / h, s2 = s * s, s3 = s2 * s;
    return (2 * s3 - 3 * s2 + 1) * y0 + (s3 - 2 * s2 + s) * h * d0 + (-2 * s3 + 3 * s2) * y1 +
           (s3 - s2) * h * d1;
}

/* Interpolate between rows r and r + 1 along `key` (t or s); slope_scale converts d/dt into
 * d/dkey at each row (1 for t, dt/ds for s). */
static void interpolate(const pl_trajectory *tr, const double *key, double value, int in_s, double *x, double *t)
{
    size_t n2 = 2 * tr->n, rows = tr->rows;
    if (rows == 1 || value <= key[0]) {
        memcpy(x, tr->x, n2 * sizeof *x);
        if (t)
            *t = tr->t[0];
        return;
    }
    if (value >= key[rows - 1]) {
        memcpy(x, tr->x + (rows - 1) * n2, n2 * sizeof *x);
        if (t)
            *t = tr->t[rows - 1];
        return;
    }
    size_t r = locate(key, rows, value);
    double h = key[r + 1] - key[r], u = value - key[r];
    /* In s, dt/ds = 1/(1 + |sum w lambda|) jumps where a force switches on or off, and a row at a
     * switch carries the rate of its far side: a cubic with those slopes overshot by the whole
     * penetration scale (0.08 where the ball penetrates 2e-4, at its exit from a contact).  Across
     * such a jump (slopes 4 times apart), linear interpolation. */
    int rate_jump = in_s && (tr->dt_ds[r] > 4.0 * tr->dt_ds[r + 1] || tr->dt_ds[r + 1] > 4.0 * tr->dt_ds[r]);
    if (tr->linear || (tr->linear_v && in_s) || (in_s && h > 0 && tr->t[r + 1] == tr->t[r]) || rate_jump) {
        /* A scheme's iterates, or an impact's arc in s (t and q fixed, v along the fast solution,
         * |dv/ds| = 1, its rows close), or a jump of dt/ds: linear interpolation. */
        for (size_t j = 0; j < n2; j++)
            x[j] = h > 0 ? tr->x[r * n2 + j] + (tr->x[(r + 1) * n2 + j] - tr->x[r * n2 + j]) * u / h : tr->x[r * n2 + j];
        if (t)
            *t = in_s && h > 0 ? tr->t[r] + (tr->t[r + 1] - tr->t[r]) * u / h : in_s ? tr->t[r] : value;
        return;
    }
    double c0 = in_s ? tr->dt_ds[r] : 1.0, c1 = in_s ? tr->dt_ds[r + 1] : 1.0;
    const double *x0 = tr->x + r * n2, *x1 = x0 + n2;
    const double *d0 = tr->dx_dt + r * n2, *d1 = d0 + n2;
    for (size_t j = 0; j < n2; j++)
        x[j] = h > 0 ? hermite(u, h, x0[j], x1[j], c0 * d0[j], c1 * d1[j]) : x0[j];
    for (size_t j = tr->n; tr->linear_v && h > 0 && j < n2; j++)
        x[j] = x0[j] + (x1[j] - x0[j]) * u / h;
    if (t)
        *t = in_s && h > 0 ? hermite(u, h, tr->t[r], tr->t[r + 1], c0, c1) : tr->t[r] + u;
}

void pl_trajectory_at_t(const pl_trajectory *tr, double t, double *x)
{
    interpolate(tr, tr->t, t, 0, x, NULL);
}

void pl_trajectory_at_t_left(const pl_trajectory *tr, double t, double *x)
{
    /* The first row at exactly t, if any, is the state before a jump there. */
    size_t lo = 0, hi = tr->rows;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (tr->t[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < tr->rows && tr->t[lo] == t)
        memcpy(x, tr->x + lo * 2 * tr->n, 2 * tr->n * sizeof *x);
    else
        pl_trajectory_at_t(tr, t, x);
}

void pl_trajectory_at_s(const pl_trajectory *tr, double s, double *x, double *t)
{
    interpolate(tr, tr->s, s, 1, x, t);
}

static void accumulate_distance(const pl_trajectory *a, const pl_trajectory *b, const double *s, size_t rows,
                                double *xa, double *xb, double *dq, double *dv)
{
    size_t n = a->n;
    for (size_t r = 0; r < rows; r++) {
        pl_trajectory_at_s(a, s[r], xa, NULL);
        pl_trajectory_at_s(b, s[r], xb, NULL);
        for (size_t j = 0; j < n; j++) {
            *dq = fmax(*dq, fabs(xa[j] - xb[j]));
            *dv = fmax(*dv, fabs(xa[n + j] - xb[n + j]));
        }
    }
}

pl_status pl_trajectory_distance_s(const pl_trajectory *a, const pl_trajectory *b, double *dq, double *dv,
                                   pl_error *err)
{
    *dq = *dv = 0.0;
    double *xa = malloc(4 * a->n * sizeof *xa); /* the states of a and b at one s */
    if (!xa) {
        *dq = *dv = NAN;
        return pl_fail(err, PL_ERR_NOMEM, "out of memory measuring a distance in s");
    }
    accumulate_distance(a, b, a->s, a->rows, xa, xa + 2 * a->n, dq, dv);
    accumulate_distance(a, b, b->s, b->rows, xa, xa + 2 * a->n, dq, dv);
    free(xa);
    return PL_OK;
}
