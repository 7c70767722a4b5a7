#include "model/sparse_set.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/lcp.h"

void pl_sparse_set_free(pl_sparse_set *ss)
{
    free(ss->c);
    free(ss->idx);
    free(ss->dof_head);
    free(ss->link_next);
    free(ss->link_member);
    free(ss->row_start);
    free(ss->col);
    free(ss->val);
    free(ss->W);
    free(ss->D);
    memset(ss, 0, sizeof *ss);
}

int pl_sparse_set_init(pl_sparse_set *ss, const pl_model *model)
{
    memset(ss, 0, sizeof *ss);
    ss->dof_head = malloc((model->n ? model->n : 1) * sizeof *ss->dof_head);
    if (!ss->dof_head)
        return -1;
    for (size_t d = 0; d < model->n; d++)
        ss->dof_head[d] = -1;
    return 0;
}

static int reserve(pl_sparse_set *ss, const pl_model *model, size_t k)
{
    k = k ? k : 1; /* an empty set's arrays too (row_start[0]) */
    if (k <= ss->cap)
        return 0;
    if (k > INT_MAX / 2)
        return -1;
    size_t cap = k > 2 * ss->cap ? k : 2 * ss->cap;
    free(ss->c);
    free(ss->idx);
    free(ss->row_start);
    free(ss->D);
    ss->c = pl_contact_new_sparse(cap, model, 0);
    ss->idx = malloc(2 * cap * sizeof *ss->idx);
    ss->row_start = malloc((cap + 1) * sizeof *ss->row_start);
    ss->D = malloc(2 * cap * sizeof *ss->D);
    ss->cap = ss->c && ss->idx && ss->row_start && ss->D ? cap : 0;
    if (!ss->cap)
        return -1;
    ss->stamp = ss->idx + cap;
    ss->z = ss->D + cap;
    return 0;
}

int pl_sparse_set_dense(pl_sparse_set *ss)
{
    size_t k = ss->k;
    if (k * k > ss->W_cap) {
        free(ss->W);
        ss->W = malloc(k * k * sizeof *ss->W);
        ss->W_cap = ss->W ? k * k : 0;
        if (!ss->W)
            return -1;
    }
    for (size_t e = 0; e < k * k; e++)
        ss->W[e] = 0.0;
    for (size_t a = 0; a < k; a++)
        for (int e = ss->row_start[a]; e < ss->row_start[a + 1]; e++)
            ss->W[a * k + (size_t)ss->col[e]] = ss->val[e];
    return 0;
}

int pl_sparse_set_fill(pl_sparse_set *ss, const pl_model *model, double t, const double *q, const double *v,
                           const size_t *members, size_t k, size_t *couplings)
{
    if (reserve(ss, model, k))
        return -1;
    size_t links = 0;
    for (size_t a = 0; a < k; a++) {
        size_t i = members[a];
        pl_model_contact_sparse(model, i, t, q, v, NULL, &ss->c[a]);
        ss->stamp[a] = SIZE_MAX;
        ss->idx[a] = i;
        links += ss->c[a].gap.nsupport;
    }
    if (links > ss->link_cap) {
        size_t cap = links > 2 * ss->link_cap ? links : 2 * ss->link_cap;
        free(ss->link_next);
        free(ss->link_member);
        ss->link_next = cap <= INT_MAX ? malloc(cap * sizeof *ss->link_next) : NULL;
        ss->link_member = cap <= INT_MAX ? malloc(cap * sizeof *ss->link_member) : NULL;
        ss->link_cap = ss->link_next && ss->link_member ? cap : 0;
        if (!ss->link_cap)
            return -1;
    }
    links = 0;
    for (size_t a = 0; a < k; a++)
        for (size_t e = 0; e < ss->c[a].gap.nsupport; e++) {
            size_t d = ss->c[a].gap.support[e];
            ss->link_member[links] = (int)a;
            ss->link_next[links] = ss->dof_head[d];
            ss->dof_head[d] = (int)links++;
        }
    ss->k = k;
    ss->nnz = 0;
    int bad = 0;
    for (size_t a = 0; a < k && !bad; a++) {
        const pl_gap *ga = &ss->c[a].gap;
        ss->row_start[a] = (int)ss->nnz;
        for (size_t e = 0; e < ga->nsupport && !bad; e++) {
            for (int x = ss->dof_head[ga->support[e]]; x >= 0; x = ss->link_next[x]) {
                size_t b = (size_t)ss->link_member[x];
                if (ss->stamp[b] == a)
                    continue;
                ss->stamp[b] = a;
                const pl_contact *cb = &ss->c[b];
                double sum = 0.0;
                for (size_t ea = 0, eb = 0; ea < ga->nsupport; ea++) { /* both supports ascending */
                    while (eb < cb->nw && cb->w_support[eb] < ga->support[ea])
                        eb++;
                    if (eb < cb->nw && cb->w_support[eb] == ga->support[ea])
                        sum += ga->grad[ea] * cb->w[eb];
                }
                if (ss->nnz == ss->nnz_cap) {
                    size_t grown = ss->nnz_cap ? 2 * ss->nnz_cap : 64;
                    int *col = realloc(ss->col, grown * sizeof *col);
                    if (col)
                        ss->col = col;
                    double *val = col ? realloc(ss->val, grown * sizeof *val) : NULL;
                    if (val)
                        ss->val = val;
                    if (!col || !val || grown > INT_MAX) {
                        bad = 1;
                        break;
                    }
                    ss->nnz_cap = grown;
                }
                size_t at = ss->nnz++; /* in ascending b within the row */
                while (at > (size_t)ss->row_start[a] && (size_t)ss->col[at - 1] > b) {
                    ss->col[at] = ss->col[at - 1];
                    ss->val[at] = ss->val[at - 1];
                    at--;
                }
                ss->col[at] = (int)b;
                ss->val[at] = sum;
                (*couplings)++;
            }
        }
    }
    ss->row_start[k] = (int)ss->nnz;
    for (size_t a = 0; a < k; a++)
        for (size_t e = 0; e < ss->c[a].gap.nsupport; e++)
            ss->dof_head[ss->c[a].gap.support[e]] = -1;
    return bad ? -1 : 0;
}


pl_status pl_sparse_set_lcp(pl_sparse_set *ss, const pl_model *model, pl_work *work, double t, const double *q,
                            const double *v, pl_error *err)
{
    size_t k = ss->k;
    pl_model_free_gap_accels(model, work, t, q, v, ss->idx, k, ss->D);
    int trivial = 1, dense = k < PL_SPARSE_SET_KLU_FROM;
    for (size_t a = 0; a < k; a++) {
        ss->z[a] = 0.0;
        trivial = trivial && ss->D[a] >= 0.0;
    }
    trivial = trivial && !dense; /* a small set goes through Siconos as it did (its own trivial case) */
    if ((!trivial || dense) && pl_sparse_set_dense(ss))
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for the couplings of %zu contacts", k);
    if (!trivial)
        return pl_lcp_solve(k, ss->W, ss->D, ss->z, NULL, err);
    return PL_OK;
}
