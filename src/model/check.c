#include "model/check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/difference.h"

typedef struct {
    pl_derivative_error *items;
    size_t n, cap;
} report;

/* Record the comparison of `len` entries (rows of `cols`) of one item, keeping the worst per name.
 * Each entry's error is |given - differenced| / (max(|given|, |differenced|) + 0.01 S), S the item's
 * scale: its largest entry, or `ref`, the size the item has for the model's scales, if larger.  So a
 * wrong small entry beside large ones is seen (its own size counts), while the difference quotients'
 * noise, about 1e-10 S (1e-8 S for second derivatives), stays well below the tolerances. */
static int compare(report *r, const char *what, int second, const double *given, const double *diff, size_t len,
                   size_t cols, double ref)
{
    double scale = isfinite(ref) ? ref : 0.0;
    for (size_t j = 0; j < len; j++)
        scale = fmax(scale, fmax(fabs(diff[j]), fabs(given[j])));
    if (!(scale > 0))
        scale = 1.0;
    size_t worst = 0;
    double e = -1.0;
    for (size_t j = 0; j < len; j++) {
        double ej = fabs(given[j] - diff[j]) / (fmax(fabs(given[j]), fabs(diff[j])) + 1e-2 * scale);
        if (!(ej <= e)) /* NaN counts as the worst */
            e = ej, worst = j;
        if (isnan(ej))
            break;
    }
    pl_derivative_error *it = NULL;
    for (size_t k = 0; k < r->n; k++)
        if (strcmp(r->items[k].what, what) == 0)
            it = &r->items[k];
    if (!it) {
        if (r->n == r->cap) {
            size_t cap = r->cap ? 2 * r->cap : 16;
            pl_derivative_error *p = realloc(r->items, cap * sizeof *p);
            if (!p)
                return -1;
            r->items = p, r->cap = cap;
        }
        it = &r->items[r->n++];
        memset(it, 0, sizeof *it);
        snprintf(it->what, sizeof it->what, "%s", what);
        it->second = second;
        it->error = -1.0;
    }
    if (!(e <= it->error)) {
        it->error = e;
        it->row = worst / cols, it->col = worst % cols;
        it->given = given[worst], it->differenced = diff[worst];
    }
    return 0;
}

/* The comparisons at one state. */
static double max_abs(const double *x, size_t len)
{
    double m = 0.0;
    for (size_t j = 0; j < len; j++)
        m = fmax(m, fabs(x[j]));
    return m;
}

static int check_state(const pl_model *model, report *r, double t, const double *q, const double *v, double *buf,
                       pl_gap *ga, pl_gap *gd, double L, double T)
{
    const pl_case *c = model->type;
    size_t n = model->n, nn = n * n;
    double u[PL_MAX_INPUTS] = {0};
    if (c->input)
        c->input(model->par, t, u, c->user);
    double *f = buf, *jq = f + n, *jv = jq + nn, *dq = jv + nn, *dv = dq + nn, *M1 = dv + nn, *M2 = M1 + nn;
    memset(jq, 0, 2 * nn * sizeof *jq);
    if (c->accel)
        c->accel(model->par, t, q, v, u, f, jq, jv, c->user);
    else
        c->force(model->par, t, q, v, u, f, jq, jv, c->user);
    pl_diff_dynamics(model, t, q, v, u, f, dq, dv);
    const char *name = c->accel ? "dF_v" : "df";
    char what[48];
    snprintf(what, sizeof what, "%s/dq", name);
    double fmax_ = max_abs(f, n) + model->a_scale;
    int bad = compare(r, what, 0, jq, dq, nn, n, fmax_ / L);
    snprintf(what, sizeof what, "%s/dv", name);
    bad |= compare(r, what, 0, jv, dv, nn, n, fmax_ * T / L);
    if (c->mass_dq)
        for (size_t k = 0; k < n; k++) {
            memset(M1, 0, nn * sizeof *M1);
            memset(M2, 0, nn * sizeof *M2);
            c->mass_dq(model->par, q, k, M1, c->user);
            snprintf(what, sizeof what, "dM/dq_%zu", k + 1);
            pl_model_mass(model, q, M2, NULL); /* M itself, for the scale */
            double mref = max_abs(M2, nn) / L;
            memset(M2, 0, nn * sizeof *M2);
            pl_diff_mass_dq(model, q, k, M2);
            bad |= compare(r, what, 0, M1, M2, nn, n, mref);
        }
    for (size_t i = 0; i < model->m; i++) {
        memset(ga->grad, 0, n * sizeof(double)), memset(ga->grad_t, 0, n * sizeof(double));
        memset(ga->hess, 0, nn * sizeof(double));
        ga->g = ga->g_t = ga->g_tt = 0.0;
        c->gap(model->par, i, t, q, ga, c->user);
        memset(gd->grad, 0, n * sizeof(double)), memset(gd->grad_t, 0, n * sizeof(double));
        memset(gd->hess, 0, nn * sizeof(double));
        gd->g = gd->g_t = gd->g_tt = 0.0;
        pl_diff_gap(model, i, t, q, gd);
        /* a gap's derivatives scale with its gradient: G ~ |grad| L */
        double gref = max_abs(gd->grad, n);
        snprintf(what, sizeof what, "grad G_%zu", i + 1);
        bad |= compare(r, what, 0, ga->grad, gd->grad, n, n, gref);
        snprintf(what, sizeof what, "hess G_%zu", i + 1);
        bad |= compare(r, what, 1, ga->hess, gd->hess, nn, n, gref / L);
        snprintf(what, sizeof what, "G_%zu t", i + 1);
        bad |= compare(r, what, 0, &ga->g_t, &gd->g_t, 1, 1, gref * L / T);
        snprintf(what, sizeof what, "G_%zu tt", i + 1);
        bad |= compare(r, what, 1, &ga->g_tt, &gd->g_tt, 1, 1, gref * L / (T * T));
        snprintf(what, sizeof what, "grad G_%zu t", i + 1);
        bad |= compare(r, what, 1, ga->grad_t, gd->grad_t, n, n, gref / T);
    }
    return bad;
}

pl_status pl_model_check_derivatives(const pl_model *model, pl_derivative_error **items, size_t *nitems,
                                     pl_error *err)
{
    *items = NULL;
    *nitems = 0;
    if (model->type->derivatives == PL_DERIVATIVES_NONE)
        return PL_OK;
    size_t n = model->n, nn = n * n;
    report r = {0};
    double *buf = malloc((n + 6 * nn + 2 * n) * sizeof *buf);
    pl_gap *ga = pl_gap_new(1, n, 1), *gd = pl_gap_new(1, n, 1);
    int bad = !buf || !ga || !gd;
    if (!bad) {
        double *q = buf + n + 6 * nn, *v = q + n;
        pl_model_initial_state(model, q, v);
        /* The start, then two nearby states off any special point (a coordinate at 0, a symmetric
         * configuration, t = 0), where a wrong term cannot vanish by accident. */
        double L = model->a_scale > 0 ? model->v_scale * model->v_scale / model->a_scale : 1.0;
        double T = model->a_scale > 0 ? model->v_scale / model->a_scale : 1.0;
        for (int s = 0; s < 3 && !bad; s++) {
            if (s > 0)
                for (size_t j = 0; j < n; j++) {
                    q[j] += 1e-2 * L * (double)(j % 3 + s) / 3.0;
                    v[j] += 1e-2 * (L / T) * (double)((j + s) % 2 + 1);
                }
            bad = check_state(model, &r, s == 0 ? 0.0 : s == 1 ? 0.37 * T : 1.3 * T, q, v, buf, ga, gd, L, T);
        }
    }
    free(buf), free(ga), free(gd);
    if (bad) {
        free(r.items);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory checking the derivatives");
    }
    *items = r.items;
    *nitems = r.n;
    return PL_OK;
}
