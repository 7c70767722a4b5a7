#include "model/difference.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* x + h - x, so that the step taken is the step divided by (no representation error in it). */
static double exact_step(double x, double h)
{
    volatile double xh = x + h;
    return xh - x;
}

/* Steps: eps^(1/3) for first derivatives, eps^(1/4) for second ones, relative to the coordinate's
 * size or the model's scale, whichever is larger. */
static double step1(double x, double scale)
{
    return exact_step(x, cbrt(DBL_EPSILON) * fmax(fabs(x), scale));
}

static double step2(double x, double scale)
{
    return exact_step(x, sqrt(sqrt(DBL_EPSILON)) * fmax(fabs(x), scale));
}

/* In time the step follows the model's time scale alone: how fast G changes does not grow with t. */
static double time_step(double t, double T, double power)
{
    return exact_step(t, pow(DBL_EPSILON, power) * T);
}

static double length_scale(const pl_model *model)
{
    return model->a_scale > 0 ? model->v_scale * model->v_scale / model->a_scale : 1.0;
}

static double time_scale(const pl_model *model)
{
    return model->a_scale > 0 ? model->v_scale / model->a_scale : 1.0;
}

static void call_dynamics(const pl_model *model, double t, const double *q, const double *v, const double *u,
                          double *f)
{
    const pl_case *c = model->type;
    if (c->accel)
        c->accel(model->par, t, q, v, u, f, NULL, NULL, c->user);
    else
        c->force(model->par, t, q, v, u, f, NULL, NULL, c->user);
}

static void fill_nan(double *x, size_t len)
{
    for (size_t j = 0; x && j < len; j++)
        x[j] = NAN;
}

void pl_diff_dynamics(const pl_model *model, double t, const double *q, const double *v, const double *u,
                      double *f, double *f_q, double *f_v)
{
    size_t n = model->n;
    call_dynamics(model, t, q, v, u, f);
    if (!f_q && !f_v)
        return;
    double *y = malloc(4 * n * sizeof *y);
    if (!y) {
        fill_nan(f_q, n * n), fill_nan(f_v, n * n);
        return;
    }
    double *qv = y, *fp = y + 2 * n, *fm = y + 3 * n, L = length_scale(model), T = time_scale(model);
    memcpy(qv, q, n * sizeof *qv);
    memcpy(qv + n, v, n * sizeof *qv);
    for (size_t k = 0; k < 2 * n; k++) {
        double *out = k < n ? f_q : f_v;
        if (!out)
            continue;
        double x = qv[k], h = step1(x, k < n ? L : L / T);
        qv[k] = x + h;
        call_dynamics(model, t, qv, qv + n, u, fp);
        qv[k] = x - h;
        call_dynamics(model, t, qv, qv + n, u, fm);
        qv[k] = x;
        for (size_t j = 0; j < n; j++)
            out[j * n + k % n] = (fp[j] - fm[j]) / (2.0 * h);
    }
    free(y);
}

void pl_diff_mass_dq(const pl_model *model, const double *q, size_t k, double *dM)
{
    size_t n = model->n;
    const pl_case *c = model->type;
    double *buf = calloc(2 * n * n + n, sizeof *buf);
    if (!buf) {
        fill_nan(dM, n * n);
        return;
    }
    double *Mp = buf, *Mm = buf + n * n, *qp = buf + 2 * n * n, h = step1(q[k], length_scale(model));
    memcpy(qp, q, n * sizeof *qp);
    qp[k] = q[k] + h;
    c->mass(model->par, qp, Mp, c->user);
    qp[k] = q[k] - h;
    c->mass(model->par, qp, Mm, c->user);
    for (size_t j = 0; j < n * n; j++)
        dM[j] = (Mp[j] - Mm[j]) / (2.0 * h);
    free(buf);
}

typedef struct {
    const pl_model *model;
    size_t i;
    pl_gap *scratch;
    double *q; /* n: the perturbed position */
} gap_eval;

/* G_i at (t, q + dj e_j + dk e_k) (j, k < n; pass n for no shift). */
static double G(gap_eval *e, double t, const double *q, size_t j, double dj, size_t k, double dk)
{
    const pl_model *m = e->model;
    size_t n = m->n;
    memcpy(e->q, q, n * sizeof *e->q);
    if (j < n)
        e->q[j] += dj;
    if (k < n)
        e->q[k] += dk;
    pl_gap *g = e->scratch;
    g->g = g->g_t = g->g_tt = 0.0;
    memset(g->grad, 0, n * sizeof *g->grad);
    memset(g->grad_t, 0, n * sizeof *g->grad_t);
    g->support = pl_model_support(m, e->i, &g->nsupport); /* only the value is read */
    m->type->gap(m->par, e->i, t, e->q, g, m->type->user);
    return g->g;
}

void pl_diff_gap(const pl_model *model, size_t i, double t, const double *q, pl_gap *out)
{
    pl_diff_gap_on(model, i, t, q, NULL, model->n, 0.0, NULL, out);
}

void pl_diff_gap_on(const pl_model *model, size_t i, double t, const double *q, const size_t *cols, size_t ncols,
                    double length, pl_gap *scratch, pl_gap *out)
{
    size_t n = model->n;
    gap_eval e = {model, i, scratch ? scratch : pl_gap_new(1, n, 0), malloc(n * sizeof(double))};
    if (!e.scratch || !e.q) {
        if (!scratch)
            free(e.scratch);
        free(e.q);
        out->g = out->g_t = out->g_tt = NAN;
        fill_nan(out->grad, n), fill_nan(out->grad_t, n);
        if (out->keep_hess)
            fill_nan(out->hess, n * n);
        return;
    }
    double g0 = out->g = G(&e, t, q, n, 0, n, 0); /* the value (the derivatives are all written below) */
    if (cols) { /* the others are 0: cleared here, as the case may have written them */
        memset(out->grad, 0, n * sizeof *out->grad);
        memset(out->grad_t, 0, n * sizeof *out->grad_t);
        if (out->keep_hess)
            for (size_t a = 0; a < ncols; a++) /* the case wrote no entry outside these rows */
                memset(out->hess + cols[a] * n, 0, n * sizeof *out->hess);
    }
    double L = fmax(length_scale(model), length), T = time_scale(model);
    double ht = time_step(t, T, 1.0 / 3.0), ht2 = time_step(t, T, 0.25);
    out->g_t = (G(&e, t + ht, q, n, 0, n, 0) - G(&e, t - ht, q, n, 0, n, 0)) / (2.0 * ht);
    out->g_tt = (G(&e, t + ht2, q, n, 0, n, 0) - 2.0 * g0 + G(&e, t - ht2, q, n, 0, n, 0)) / (ht2 * ht2);
    for (size_t a = 0; a < ncols; a++) {
        size_t j = cols ? cols[a] : a;
        double h = step1(q[j], L), h2 = step2(q[j], L);
        out->grad[j] = (G(&e, t, q, j, h, n, 0) - G(&e, t, q, j, -h, n, 0)) / (2.0 * h);
        out->grad_t[j] = (G(&e, t + ht2, q, j, h2, n, 0) - G(&e, t + ht2, q, j, -h2, n, 0) -
                          G(&e, t - ht2, q, j, h2, n, 0) + G(&e, t - ht2, q, j, -h2, n, 0)) /
                         (4.0 * h2 * ht2);
    }
    if (out->keep_hess)
        for (size_t a = 0; a < ncols; a++)
            for (size_t b = a; b < ncols; b++) {
                size_t j = cols ? cols[a] : a, k = cols ? cols[b] : b;
                double hj = step2(q[j], L), hk = step2(q[k], L), d;
                if (j == k)
                    d = (G(&e, t, q, j, hj, n, 0) - 2.0 * g0 + G(&e, t, q, j, -hj, n, 0)) / (hj * hj);
                else
                    d = (G(&e, t, q, j, hj, k, hk) - G(&e, t, q, j, hj, k, -hk) - G(&e, t, q, j, -hj, k, hk) +
                         G(&e, t, q, j, -hj, k, -hk)) /
                        (4.0 * hj * hk);
                out->hess[j * n + k] = out->hess[k * n + j] = d;
            }
    if (!scratch)
        free(e.scratch);
    free(e.q);
}

double pl_diff_gap_across(const pl_model *model, size_t i, double t, const double *q, const int *skip,
                          pl_gap *scratch, double *qbuf, double *step)
{
    size_t n = model->n;
    double L = length_scale(model), *qp = qbuf, *qm = qbuf + n, hmax = 0.0;
    memcpy(qp, q, n * sizeof *qp);
    memcpy(qm, q, n * sizeof *qm);
    for (size_t j = 0, k = 0; j < n; j++) {
        if (skip[j])
            continue;
        /* signs and sizes that vary (1, -2/3, 1/3, -1, ...): no sum of gradient entries cancels */
        double h = step1(q[j], L) * (double)(3 - (int)(k % 3)) / 3.0 * (k % 2 ? -1.0 : 1.0);
        qp[j] = q[j] + h;
        qm[j] = q[j] - h;
        hmax = fmax(hmax, fabs(h));
        k++;
    }
    const pl_case *c = model->type;
    double g[2];
    scratch->support = pl_model_support(model, i, &scratch->nsupport);
    for (int side = 0; side < 2; side++) { /* only the value is read: the derivatives are left as written */
        scratch->g = scratch->g_t = scratch->g_tt = 0.0;
        c->gap(model->par, i, t, side ? qm : qp, scratch, c->user);
        g[side] = scratch->g;
    }
    *step = hmax;
    return 0.5 * (g[0] - g[1]);
}
