#include "study/coupling.h"

#include <math.h>
#include <stdlib.h>

/* Round-off of a dot product of gradients: a case's trigonometry leaves entries of 1e-16 where a
 * constraint does not depend on a coordinate. */
#define COUPLING_TOL 1e-12

struct pl_coupling {
    const pl_model *model;
    pl_work *work;
    pl_contact *contact;
    pl_gap *gap;
    double *fp, *fp_v, *fw; /* n, n x n, n */
    size_t i;
    double t, norm;
    const double *q;
};

pl_coupling *pl_coupling_new(const pl_model *model)
{
    size_t n = model->n;
    pl_coupling *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->model = model;
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
    free(c->fp);
    free(c);
}

void pl_coupling_set(pl_coupling *c, size_t i, double t, const double *q, const double *v)
{
    size_t n = c->model->n;
    pl_model_velocity_map(c->model, t, q, v, c->fp, NULL, c->fp_v, NULL);
    pl_model_contact_at(c->model, c->work, i, t, q, c->fp, c->contact);
    double norm2 = 0.0;
    for (size_t j = 0; j < n; j++) {
        double x = 0.0;
        for (size_t l = 0; l < n; l++)
            x += c->fp_v[j * n + l] * c->contact->w[l];
        c->fw[j] = x;
        norm2 += x * x;
    }
    c->i = i;
    c->t = t;
    c->q = q;
    c->norm = sqrt(norm2);
}

int pl_coupled(pl_coupling *c, size_t j)
{
    if (j == c->i)
        return 1;
    size_t n = c->model->n;
    pl_model_gap(c->model, j, c->t, c->q, c->gap);
    double w = 0.0, g2 = 0.0;
    for (size_t k = 0; k < n; k++) {
        w += c->gap->grad[k] * c->fw[k];
        g2 += c->gap->grad[k] * c->gap->grad[k];
    }
    return fabs(w) > COUPLING_TOL * sqrt(g2) * c->norm;
}
