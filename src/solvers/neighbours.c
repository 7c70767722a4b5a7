/* Neighbour search shared by the penalized runs and the limit solution: the list, its drift and its
 * rebuilds (the design and the proof: neighbours.h). */
#include "solvers/neighbours.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

pl_status pl_near_init(pl_near *nl, const pl_model *model, size_t n, size_t m, pl_error *err)
{
    memset(nl, 0, sizeof *nl);
    nl->model = model, nl->n = n, nl->m = m;
    nl->t = NAN;
    if (!model->type->candidates || m < PL_NEAR_FROM)
        return PL_OK;
    nl->near = calloc(m, sizeof *nl->near);
    nl->list = calloc(m, sizeof *nl->list);
    nl->next = calloc(m, sizeof *nl->next);
    nl->q = calloc(n ? n : 1, sizeof *nl->q);
    if (!nl->near || !nl->list || !nl->next || !nl->q) {
        pl_near_free(nl);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for the neighbour list of %zu constraints", m);
    }
    nl->margin = model->v_scale * model->v_scale / model->a_scale;
    return PL_OK;
}

void pl_near_free(pl_near *nl)
{
    free(nl->near);
    free(nl->list);
    free(nl->next);
    free(nl->q);
    nl->near = NULL, nl->list = NULL, nl->next = NULL, nl->q = NULL;
    nl->nlist = 0;
}

double pl_near_drift(const pl_near *nl, double t, const double *q)
{
    double d = 0.0;
    for (size_t j = 0; j < nl->n; j++)
        d = fmax(d, fabs(q[j] - nl->q[j]));
    return nl->model->gap_lipschitz * d + nl->model->gap_rate * fabs(t - nl->t);
}

int pl_near_due(const pl_near *nl, double t, const double *q)
{
    return nl->near && pl_near_drift(nl, t, q) > 0.5 * nl->margin;
}

double pl_near_max_step(const pl_near *nl, double t, const double *q, const double *v)
{
    if (!nl->near)
        return 0.0;
    double speed = 0.0, room = 0.75 * nl->margin - pl_near_drift(nl, t, q);
    for (size_t j = 0; j < nl->n; j++)
        speed = fmax(speed, fabs(v[j]));
    double rate = nl->model->gap_lipschitz * speed + nl->model->gap_rate;
    return room > 0.0 && rate > 0.0 ? room / rate : 0.0;
}

double pl_near_redo(const pl_near *nl, pl_stepper *s, double t0, double t, const double *q)
{
    if (!nl->near || !(pl_near_drift(nl, t, q) > nl->margin))
        return NAN;
    double lo = t0, hi = t;
    for (int k = 0; k < 60 && lo < hi; k++) {
        double mid = lo + 0.5 * (hi - lo);
        const double *ym = s->dense(s, mid);
        if (!(mid > lo && mid < hi))
            break;
        if (ym && pl_near_drift(nl, mid, ym) <= 0.75 * nl->margin)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static int compare_index(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* The marks near[] of the old list tell those that leave it, which alone are reset; every other
 * constraint out of the list was reset when it left (or at the first build, which resets all). */
void pl_near_rebuild(pl_near *nl, double t, const double *q, const size_t *keep, size_t nkeep, const int *keep_flag,
                     void (*leave)(void *user, size_t i), void *user)
{
    if (!nl->near)
        return;
    enum { OUT = 0, IN = 1, WAS_IN = 2 };
    const pl_model *model = nl->model;
    const pl_case *k = model->type;
    int first = isnan(nl->t);
    size_t *next = nl->next, count = k->candidates(model->par, t, q, nl->margin, next, k->user);
    count = count < nl->m ? count : nl->m;
    for (size_t e = 0; e < nl->nlist; e++)
        nl->near[nl->list[e]] = WAS_IN;
    size_t nnext = 0;
    for (size_t e = 0; e < count; e++) {
        size_t i = next[e];
        if (i < nl->m && nl->near[i] != IN)
            nl->near[i] = IN, next[nnext++] = i;
    }
    for (size_t e = 0; e < nkeep; e++) {
        size_t i = keep[e];
        if ((!keep_flag || keep_flag[i]) && nl->near[i] != IN)
            nl->near[i] = IN, next[nnext++] = i;
    }
    if (first) {
        for (size_t i = 0; i < nl->m; i++)
            if (nl->near[i] != IN)
                nl->near[i] = OUT, leave(user, i);
    } else {
        nl->visits += (long)(nl->nlist + count + nkeep);
        for (size_t e = 0; e < nl->nlist; e++)
            if (nl->near[nl->list[e]] == WAS_IN)
                nl->near[nl->list[e]] = OUT, leave(user, nl->list[e]);
    }
    qsort(next, nnext, sizeof *next, compare_index);
    nl->next = nl->list;
    nl->list = next;
    nl->nlist = nnext;
    memcpy(nl->q, q, nl->n * sizeof *q);
    nl->t = t;
    nl->rebuilds++;
}
