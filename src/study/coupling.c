#include "study/coupling.h"

#include <math.h>
#include <stdlib.h>

/* Round-off of a dot product of gradients: a case's trigonometry leaves entries of 1e-16 where a
 * constraint does not depend on a coordinate. */
#define COUPLING_TOL 1e-12

struct pl_coupling {
    const pl_model *model;
    /* The sparse path: F_p = v and a constant diagonal M with supports, so (dF_p/dv) M^{-1} grad G_i
     * is M^{-1} grad G_i on i's support, and W_ji is a sum over the dofs the supports share.  The sums
     * run over the supports in ascending order, the dense ones' order without their zero terms: the
     * same numbers.  by_dof: the constraints whose support holds each dof (n + 1 starts, then them). */
    int sparse;
    size_t *by_dof_start, *by_dof;
    pl_gap *gi, *gj; /* compressed gaps of i (kept while set) and of the j tested */
    /* The dense path: every product over n (a case with a velocity map or a full mass matrix). */
    pl_work *work;
    pl_contact *contact;
    pl_gap *gap;
    double *fp, *fp_v, *fw; /* n, n x n, n; the sparse path: fw on i's support */
    size_t i;
    double t, norm;
    const double *q;
    size_t terms; /* products formed (pl_coupling_terms) */
};

int pl_dof_constraints(const pl_model *model, size_t **start, size_t **list)
{
    size_t n = model->n, m = model->m, total = model->support ? model->support_start[m] : 0;
    *start = calloc(n + 2, sizeof **start);
    *list = malloc((total ? total : 1) * sizeof **list);
    if (!*start || !*list || !model->support)
        return -1;
    size_t *fill = *start + 1; /* counts, then where each dof's next constraint goes */
    for (size_t e = 0; e < total; e++)
        (*start)[model->support[e] + 2]++;
    for (size_t d = 0; d < n; d++)
        (*start)[d + 2] += (*start)[d + 1];
    for (size_t i = 0; i < m; i++) { /* each dof's constraints in ascending order */
        size_t count;
        const size_t *sup = pl_model_support(model, i, &count);
        for (size_t e = 0; e < count; e++)
            (*list)[fill[sup[e]]++] = i;
    }
    return 0;
}

pl_coupling *pl_coupling_new(const pl_model *model)
{
    size_t n = model->n;
    pl_coupling *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->model = model;
    c->sparse = model->type->velocity_map == NULL && model->minv_diag && model->support;
    if (c->sparse) {
        size_t width = pl_model_gap_width(model);
        c->gi = pl_gap_new_sparse(1, model, 0);
        c->gj = pl_gap_new_sparse(1, model, 0);
        c->fp = malloc(width * sizeof *c->fp);
        c->fw = c->fp;
        if (!c->gi || !c->gj || !c->fp || pl_dof_constraints(model, &c->by_dof_start, &c->by_dof)) {
            pl_coupling_free(c);
            return NULL;
        }
        return c;
    }
    c->work = pl_work_new(model);
    c->contact = pl_contact_new(1, n, 0);
    c->gap = pl_gap_new(1, n, 0);
    c->fp = malloc((n * n + 2 * n + 1) * sizeof *c->fp);
    if (!c->work || !c->contact || !c->gap || !c->fp) {
        pl_coupling_free(c);
        return NULL;
    }
    c->fp_v = c->fp + n;
    c->fw = c->fp_v + n * n;
    return c;
}

void pl_coupling_free(pl_coupling *c)
{
    if (!c)
        return;
    pl_work_free(c->work);
    free(c->contact);
    free(c->gap);
    free(c->gi);
    free(c->gj);
    free(c->by_dof_start);
    free(c->by_dof);
    free(c->fp);
    free(c);
}

void pl_coupling_set(pl_coupling *c, size_t i, double t, const double *q, const double *v)
{
    size_t n = c->model->n;
    double norm2 = 0.0;
    c->i = i;
    c->t = t;
    c->q = q;
    if (c->sparse) {
        pl_model_gap_sparse(c->model, i, t, q, c->gi);
        for (size_t e = 0; e < c->gi->nsupport; e++) {
            c->fw[e] = c->model->minv_diag[c->gi->support[e]] * c->gi->grad[e];
            norm2 += c->fw[e] * c->fw[e];
        }
        c->terms += c->gi->nsupport;
        c->norm = sqrt(norm2);
        return;
    }
    pl_model_velocity_map(c->model, t, q, v, c->fp, NULL, c->fp_v, NULL);
    pl_model_contact_at(c->model, c->work, i, t, q, c->fp, c->contact);
    for (size_t j = 0; j < n; j++) {
        double x = 0.0;
        for (size_t l = 0; l < n; l++)
            x += c->fp_v[j * n + l] * c->contact->w[l];
        c->fw[j] = x;
        norm2 += x * x;
    }
    c->terms += n * n;
    c->norm = sqrt(norm2);
}

int pl_coupled(pl_coupling *c, size_t j)
{
    if (j == c->i)
        return 1;
    size_t n = c->model->n;
    double w = 0.0, g2 = 0.0;
    if (c->sparse) {
        const pl_gap *gi = c->gi, *gj = c->gj;
        pl_model_gap_sparse(c->model, j, c->t, c->q, c->gj);
        for (size_t a = 0, b = 0; b < gj->nsupport; b++) { /* the supports merged, both ascending */
            while (a < gi->nsupport && gi->support[a] < gj->support[b])
                a++;
            if (a < gi->nsupport && gi->support[a] == gj->support[b])
                w += gj->grad[b] * c->fw[a];
            g2 += gj->grad[b] * gj->grad[b];
        }
        c->terms += gi->nsupport + gj->nsupport;
    } else {
        pl_model_gap(c->model, j, c->t, c->q, c->gap);
        for (size_t k = 0; k < n; k++) {
            w += c->gap->grad[k] * c->fw[k];
            g2 += c->gap->grad[k] * c->gap->grad[k];
        }
        c->terms += n;
    }
    return fabs(w) > COUPLING_TOL * sqrt(g2) * c->norm;
}

int pl_coupled_with_set(pl_coupling *c, const unsigned char *set, const size_t *members, size_t count, size_t j,
                        double t, const double *q, const double *v)
{
    if (!c->sparse) {
        for (size_t i = 0; i < c->model->m; i++)
            if (set[i]) {
                pl_coupling_set(c, i, t, q, v);
                if (pl_coupled(c, j))
                    return 1;
            }
        return 0;
    }
    /* Only a constraint sharing a dof with j can be coupled with it (W_ji is 0 otherwise: the others
     * test false, and the members may be tested whole). */
    size_t ns, on_dofs = 0;
    const size_t *sup = pl_model_support(c->model, j, &ns);
    for (size_t e = 0; e < ns; e++)
        on_dofs += c->by_dof_start[sup[e] + 1] - c->by_dof_start[sup[e]];
    if (count < on_dofs) {
        for (size_t x = 0; x < count; x++) {
            size_t ni;
            const size_t *si = pl_model_support(c->model, members[x], &ni);
            int shared = 0; /* the supports merged, both ascending */
            for (size_t a = 0, b = 0; a < ni && b < ns && !shared;) {
                if (si[a] < sup[b])
                    a++;
                else if (si[a] > sup[b])
                    b++;
                else
                    shared = 1;
            }
            if (!shared)
                continue;
            pl_coupling_set(c, members[x], t, q, v);
            if (pl_coupled(c, j))
                return 1;
        }
        return 0;
    }
    for (size_t e = 0; e < ns; e++)
        for (size_t x = c->by_dof_start[sup[e]]; x < c->by_dof_start[sup[e] + 1]; x++) {
            size_t i = c->by_dof[x];
            if (!set[i])
                continue;
            pl_coupling_set(c, i, t, q, v);
            if (pl_coupled(c, j))
                return 1;
        }
    return 0;
}

size_t pl_coupling_terms(const pl_coupling *c)
{
    return c->terms;
}
