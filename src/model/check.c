#include "model/check.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/difference.h"

typedef struct {
    pl_derivative_error *items;
    size_t n, cap;
    size_t next; /* where the next item of the state is expected: each state compares the same items
                    in the same order, so an item is found in one look, not by a search */
    int first;   /* the first state: every item is new (the names of one state are distinct) */
} report;

/* Record the comparison of `len` entries (rows of `cols`) of one item, keeping the worst per name
 * (its row and column through rows_of and cols_of when the entries are gathered from a larger array;
 * NULL: as they are).
 * Each entry's error is |given - differenced| / (max(|given|, |differenced|) + 0.01 S), S the item's
 * scale: its largest entry, or `ref`, the size the item has for the model's scales, if larger.  So a
 * wrong small entry beside large ones is seen (its own size counts), while the difference quotients'
 * noise, about 1e-10 S (1e-8 S for second derivatives), stays well below the tolerances. */
static int compare(report *r, const char *what, int second, const double *given, const double *diff, size_t len,
                   size_t cols, const size_t *rows_of, const size_t *cols_of, double ref)
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
    if (r->next < r->n && strcmp(r->items[r->next].what, what) == 0)
        it = &r->items[r->next];
    for (size_t k = 0; !it && !r->first && k < r->n; k++)
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
    r->next = (size_t)(it - r->items) + 1;
    if (!(e <= it->error)) {
        it->error = e;
        it->row = rows_of ? rows_of[worst / cols] : worst / cols;
        it->col = cols_of ? cols_of[worst % cols] : worst % cols;
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

/* The scratch of the checks: the given and differenced gaps (Hessians kept), one for the case's
 * values, the coordinates a gap depends on, and the entries compared. */
typedef struct {
    pl_gap *ga, *gd, *scratch;
    int *skip;        /* n: coordinate j is in S */
    size_t *cols;     /* n: S */
    double *qbuf;     /* 2 n */
    double *a, *b;    /* 2 n + n^2 each */
    const pl_budget *budget;
} check_work;

/* One gap at (t, q) against its difference quotients.  Its derivatives are differenced along the
 * coordinates it depends on, S: those where its given gradient, time derivative of the gradient or
 * Hessian row is not 0, once one difference along all the others together shows that G_i does not
 * change there (else along every coordinate, which finds the entry it misses).  So a gap of a pair
 * of disks among 200 coordinates costs some 50 evaluations, not 80,000: check-model grows with the
 * number of constraints, not with their product with n^2.  ga->hess and gd->hess are 0 on entry and
 * left so (only the rows of S are written). */
static int check_gap(const pl_model *model, report *r, check_work *w, size_t i, double t, const double *q, double L,
                     double T)
{
    const pl_case *c = model->type;
    size_t n = model->n;
    pl_gap *ga = w->ga, *gd = w->gd;
    memset(ga->grad, 0, n * sizeof(double)), memset(ga->grad_t, 0, n * sizeof(double));
    ga->g = ga->g_t = ga->g_tt = 0.0;
    if (model->support) /* compressed by the case, spread to n here */
        pl_model_gap(model, i, t, q, ga);
    else
        c->gap(model->par, i, t, q, ga, c->user);
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
        int in = ga->grad[j] != 0.0 || ga->grad_t[j] != 0.0;
        for (size_t l = 0; !in && l < n; l++)
            in = ga->hess[j * n + l] != 0.0;
        w->skip[j] = in;
        if (in)
            w->cols[k++] = j;
    }
    double gref = max_abs(ga->grad, n), step;
    if (k < n) {
        double d = pl_diff_gap_across(model, i, t, q, w->skip, w->scratch, w->qbuf, &step);
        double noise = 1e-9 * gref * step + 100.0 * DBL_EPSILON * (fabs(ga->g) + gref * L);
        if (!(fabs(d) <= noise)) /* it depends on another coordinate: every one is differenced */
            for (k = 0; k < n; k++)
                w->cols[k] = k;
    }
    memset(gd->grad, 0, n * sizeof(double)), memset(gd->grad_t, 0, n * sizeof(double));
    gd->g = gd->g_t = gd->g_tt = 0.0;
    /* The steps follow the gap's own length |G|/|grad G| where it is the larger: a second difference
     * carries the round-off of G over the step squared, eps |G|/h^2, and the pair of disks 15 apart
     * in a box of length scale 0.12 differenced with steps of that scale had a noise of 1e-5 (1e-4 of
     * its Hessian's size: "disagrees"); with steps of 15 eps^(1/4), 1e-9. */
    double length = gref > 0.0 ? fabs(ga->g) / gref : 0.0;
    pl_diff_gap_on(model, i, t, q, w->cols, k, isfinite(length) ? length : 0.0, w->scratch, gd);
    gref = max_abs(gd->grad, n); /* a gap's derivatives scale with its gradient: G ~ |grad| L */
    /* the entries of S, gathered: grad and grad_t, then the Hessian's block */
    double *a = w->a, *b = w->b;
    for (size_t x = 0; x < k; x++) {
        a[x] = ga->grad[w->cols[x]], b[x] = gd->grad[w->cols[x]];
        a[k + x] = ga->grad_t[w->cols[x]], b[k + x] = gd->grad_t[w->cols[x]];
    }
    char what[48];
    snprintf(what, sizeof what, "grad G_%zu", i + 1);
    int bad = compare(r, what, 0, a, b, k, k, NULL, w->cols, gref);
    for (size_t x = 0; x < k; x++)
        for (size_t y = 0; y < k; y++) {
            a[2 * k + x * k + y] = ga->hess[w->cols[x] * n + w->cols[y]];
            b[2 * k + x * k + y] = gd->hess[w->cols[x] * n + w->cols[y]];
        }
    snprintf(what, sizeof what, "hess G_%zu", i + 1);
    bad |= compare(r, what, 1, a + 2 * k, b + 2 * k, k * k, k, w->cols, w->cols, gref / L);
    snprintf(what, sizeof what, "G_%zu t", i + 1);
    bad |= compare(r, what, 0, &ga->g_t, &gd->g_t, 1, 1, NULL, NULL, gref * L / T);
    snprintf(what, sizeof what, "G_%zu tt", i + 1);
    bad |= compare(r, what, 1, &ga->g_tt, &gd->g_tt, 1, 1, NULL, NULL, gref * L / (T * T));
    snprintf(what, sizeof what, "grad G_%zu t", i + 1);
    bad |= compare(r, what, 1, a + k, b + k, k, k, NULL, w->cols, gref / T);
    for (size_t x = 0; x < k; x++) { /* back to 0 for the next gap */
        memset(ga->hess + w->cols[x] * n, 0, n * sizeof(double));
        memset(gd->hess + w->cols[x] * n, 0, n * sizeof(double));
    }
    return bad;
}

static int check_state(const pl_model *model, report *r, double t, const double *q, const double *v, double *buf,
                       check_work *w, double L, double T, size_t *stopped_at)
{
    const pl_case *c = model->type;
    size_t n = model->n, nn = n * n;
    r->next = 0;
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
    int bad = compare(r, what, 0, jq, dq, nn, n, NULL, NULL, fmax_ / L);
    snprintf(what, sizeof what, "%s/dv", name);
    bad |= compare(r, what, 0, jv, dv, nn, n, NULL, NULL, fmax_ * T / L);
    if (c->mass_dq)
        for (size_t k = 0; k < n; k++) {
            if (pl_budget_spent(w->budget)) {
                *stopped_at = 0;
                return 0;
            }
            memset(M1, 0, nn * sizeof *M1);
            memset(M2, 0, nn * sizeof *M2);
            c->mass_dq(model->par, q, k, M1, c->user);
            snprintf(what, sizeof what, "dM/dq_%zu", k + 1);
            pl_model_mass(model, q, M2, NULL); /* M itself, for the scale */
            double mref = max_abs(M2, nn) / L;
            memset(M2, 0, nn * sizeof *M2);
            pl_diff_mass_dq(model, q, k, M2);
            bad |= compare(r, what, 0, M1, M2, nn, n, NULL, NULL, mref);
        }
    for (size_t i = 0; i < model->m && !bad; i++) {
        if (i % 64 == 63 && pl_budget_spent(w->budget)) {
            *stopped_at = i;
            return 0;
        }
        bad = check_gap(model, r, w, i, t, q, L, T);
    }
    return bad;
}

pl_status pl_model_check_derivatives(const pl_model *model, const pl_budget *budget, pl_derivative_error **items,
                                     size_t *nitems, pl_error *err)
{
    *items = NULL;
    *nitems = 0;
    if (model->type->derivatives == PL_DERIVATIVES_NONE)
        return PL_OK;
    size_t n = model->n, nn = n * n;
    report r = {0};
    double *buf = malloc((n + 6 * nn + 2 * n + 2 * n + 2 * (2 * n + nn)) * sizeof *buf);
    check_work w = {pl_gap_new(1, n, 1), pl_gap_new(1, n, 1), pl_gap_new(1, n, 0), malloc(n * sizeof *w.skip),
                    malloc(n * sizeof *w.cols), NULL, NULL, NULL, budget};
    int bad = !buf || !w.ga || !w.gd || !w.scratch || !w.skip || !w.cols;
    size_t stopped_at = SIZE_MAX; /* the constraint the budget ran out before (0: in the dynamics) */
    int state = 0, stopped_state = 0;
    if (!bad) {
        double *q = buf + n + 6 * nn, *v = q + n;
        w.qbuf = v + n;
        w.a = w.qbuf + 2 * n;
        w.b = w.a + 2 * n + nn;
        memset(w.ga->hess, 0, nn * sizeof(double)); /* check_gap keeps them 0 between gaps */
        memset(w.gd->hess, 0, nn * sizeof(double));
        pl_model_initial_state(model, q, v);
        /* The start, then two nearby states off any special point (a coordinate at 0, a symmetric
         * configuration, t = 0), where a wrong term cannot vanish by accident. */
        double L = model->a_scale > 0 ? model->v_scale * model->v_scale / model->a_scale : 1.0;
        double T = model->a_scale > 0 ? model->v_scale / model->a_scale : 1.0;
        for (; state < 3 && !bad && stopped_at == SIZE_MAX; state++) {
            if (state > 0)
                for (size_t j = 0; j < n; j++) {
                    q[j] += 1e-2 * L * (double)(j % 3 + state) / 3.0;
                    v[j] += 1e-2 * (L / T) * (double)((j + state) % 2 + 1);
                }
            r.first = state == 0;
            bad = check_state(model, &r, state == 0 ? 0.0 : state == 1 ? 0.37 * T : 1.3 * T, q, v, buf, &w, L, T,
                              &stopped_at);
            stopped_state = state + 1;
        }
    }
    free(buf), free(w.ga), free(w.gd), free(w.scratch), free(w.skip), free(w.cols);
    if (bad || stopped_at != SIZE_MAX) {
        free(r.items);
        if (!bad && stopped_at == 0)
            return pl_fail(err, PL_ERR_SOLVER, PL_BUDGET_STOPPED " checking the derivatives (state %d of 3, before "
                           "its constraints)", budget->max_seconds, stopped_state);
        if (!bad)
            return pl_fail(err, PL_ERR_SOLVER, PL_BUDGET_STOPPED " checking the derivatives (state %d of 3, at "
                           "constraint %zu of %zu)", budget->max_seconds, stopped_state, stopped_at + 1, model->m);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory checking the derivatives");
    }
    *items = r.items;
    *nitems = r.n;
    return PL_OK;
}
