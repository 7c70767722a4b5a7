#include "solvers/penalty/penalized.h"

#include <stdlib.h>
#include <string.h>

#include "core/carve.h"

pl_status pl_penalized_init(pl_penalized *p, const pl_model *model, double mu, pl_error *err)
{
    size_t n = model->n, m = model->m;
    memset(p, 0, sizeof *p);
    p->model = model;
    p->mu = mu;
    p->damping = calloc(m, sizeof *p->damping);
    p->active = calloc(m, sizeof *p->active);
    p->list = calloc(m ? m : 1, sizeof *p->list);
    p->work = pl_work_new(model);
    p->contact = pl_contact_new_scratch(1, model);
    p->force_contact = pl_contact_new_sparse(1, model, 0);
    p->sparse_jacobian = pl_model_sparse(model);
    /* the dense Jacobian's scratch (n x n each) only where it is formed: a sparse model's goes straight
     * into compressed columns (pl_penalized_jacobian_csc) */
    p->jac_contact = p->sparse_jacobian ? NULL : pl_contact_new(1, n, 1);
    p->jac_sparse = pl_contact_new_sparse(1, model, 1);
    p->simple = model->mass_constant && !model->type->velocity_map && !model->type->law_at && !model->support &&
                model->type->derivatives != PL_DERIVATIVES_NONE;
    size_t nn = p->sparse_jacobian ? 0 : n * n;
    pl_part parts[] = {{&p->fp_q, nn}, {&p->fp_v, nn},  {&p->a_q, nn},    {&p->a_v, nn},    {&p->minv, nn},
                       {&p->ac_q, nn}, {&p->ac_v, nn},  {&p->dM, nn},     {&p->fp, n},      {&p->a, n},
                       {&p->dlam_q, n}, {&p->dlam_v, n}, {&p->dMw, n}, {&p->tmp, n}};
    p->block = pl_carve(parts, PL_NPARTS(parts));
    if (!p->damping || !p->active || !p->list || !p->work || !p->contact || !p->force_contact ||
        (!p->jac_contact && !p->sparse_jacobian) || !p->jac_sparse || !p->block)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for the penalized system (%zu dofs, %zu constraints)", n, m);
    for (size_t i = 0; i < m; i++)
        p->damping[i] = pl_law_prepare(&model->law[i], mu);
    return PL_OK;
}

void pl_penalized_free(pl_penalized *p)
{
    free(p->damping);
    free(p->active);
    free(p->list);
    pl_work_free(p->work);
    free(p->contact);
    free(p->force_contact);
    free(p->jac_contact);
    free(p->jac_sparse);
    free(p->block);
    free(p->smooth_jac);
    free(p->column);
    free(p->start);
    free(p->entries);
    memset(p, 0, sizeof *p);
}

pl_status pl_forces_init(pl_forces *f, const pl_model *model, pl_error *err)
{
    size_t n = model->n, m = model->m;
    memset(f, 0, sizeof *f);
    /* M^{-1} held only where M varies (else the model's, read in place) */
    pl_part parts[] = {{&f->fp, n}, {&f->a, n}, {&f->ac, n}, {&f->lambda, m},
                       {&f->minv_store, model->mass_constant ? 0 : n * n}};
    f->block = pl_carve(parts, PL_NPARTS(parts));
    f->nonzero = calloc(m ? m : 1, sizeof *f->nonzero);
    if (!f->block || !f->nonzero)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for the forces of %zu dofs", n);
    return PL_OK;
}

void pl_forces_free(pl_forces *f)
{
    free(f->block);
    free(f->nonzero);
    memset(f, 0, sizeof *f);
}

void pl_penalized_list_active(pl_penalized *p)
{
    p->nlist = 0;
    for (size_t i = 0; i < p->model->m; i++)
        if (p->active[i])
            p->list[p->nlist++] = i;
    p->listed = 1;
}

void pl_penalized_list_switch(pl_penalized *p, size_t i, int on)
{
    if (!p->listed)
        return;
    size_t e = 0;
    while (e < p->nlist && p->list[e] < i)
        e++;
    if (on && (e == p->nlist || p->list[e] != i)) {
        memmove(p->list + e + 1, p->list + e, (p->nlist - e) * sizeof *p->list);
        p->list[e] = i;
        p->nlist++;
    } else if (!on && e < p->nlist && p->list[e] == i) {
        memmove(p->list + e, p->list + e + 1, (p->nlist - e - 1) * sizeof *p->list);
        p->nlist--;
    }
}

/* Clear the forces written by the last evaluation into f (lambda is 0 but where listed). */
static void clear_lambda(pl_forces *f)
{
    for (size_t e = 0; e < f->nnonzero; e++)
        f->lambda[f->nonzero[e]] = 0.0;
    f->nnonzero = 0;
}

/* The constraints an evaluation visits: the list (p->listed) or every one, the k-th of count. */
static inline size_t visited(const pl_penalized *p, size_t k)
{
    return p->listed ? p->list[k] : k;
}

void pl_forces_copy(pl_forces *dst, const pl_forces *src, const pl_model *model)
{
    size_t n = model->n;
    for (size_t j = 0; j < n; j++) {
        dst->fp[j] = src->fp[j];
        dst->a[j] = src->a[j];
        dst->ac[j] = src->ac[j];
    }
    /* the forces written and their list (every other lambda is 0 in both): the next evaluation into
     * dst clears those it lists; not the m forces of a box of disks */
    clear_lambda(dst);
    for (size_t k = 0; k < src->nnonzero; k++) {
        size_t i = src->nonzero[k];
        dst->lambda[i] = src->lambda[i];
        dst->nonzero[k] = i;
    }
    dst->nnonzero = src->nnonzero;
    dst->minv = src->minv;
    if (!model->mass_constant && src->minv == src->minv_store) { /* M(q) varies: its inverse at this q */
        for (size_t j = 0; j < n * n; j++)
            dst->minv_store[j] = src->minv_store[j];
        dst->minv = dst->minv_store;
    }
}

/* pl_penalized_forces for a model of the simplest form (p->simple: M constant, F_p = v, no supports,
 * no law that varies, analytic derivatives): the operations of the general path below and of the
 * model's layers it calls (pl_model_velocity_map, pl_model_accel_minv, pl_model_contact_sparse with
 * pl_model_gap_sparse and rate_of, in src/model/model.c), in the same order on the same values, so
 * that every result is the same to the bit (test_penalized holds the two paths to it), without the
 * layers' calls, clears and copies: at one or two coordinates those were half of an evaluation. */
static inline void forces_simple_n(const pl_penalized *p, double t, const double *q, const double *v, pl_forces *f,
                                   size_t n)
{
    const pl_model *model = p->model;
    const pl_case *type = model->type;
    double *restrict fp = f->fp, *restrict a = f->a, *restrict ac = f->ac, *restrict lambda = f->lambda;
    const double *restrict minv = model->minv, *restrict d = model->minv_diag;
    for (size_t j = 0; j < n; j++)
        fp[j] = v[j];
    double u[PL_MAX_INPUTS];
    for (size_t j = 0; j < PL_MAX_INPUTS; j++)
        u[j] = 0.0;
    if (type->input)
        type->input(model->par, t, u, type->user);
    if (type->accel)
        type->accel(model->par, t, q, v, u, a, NULL, NULL, type->user);
    else { /* F_v = M^{-1} f (apply_minv) */
        type->force(model->par, t, q, v, u, a, NULL, NULL, type->user);
        if (d)
            for (size_t j = 0; j < n; j++)
                a[j] = d[j] * a[j];
        else {
            double *restrict tmp = p->tmp;
            for (size_t j = 0; j < n; j++) {
                double s = 0.0;
                for (size_t l = 0; l < n; l++)
                    s += minv[j * n + l] * a[l];
                tmp[j] = s;
            }
            for (size_t j = 0; j < n; j++)
                a[j] = tmp[j];
        }
    }
    f->minv = minv;
    for (size_t j = 0; j < n; j++)
        ac[j] = 0.0;
    pl_contact *k = p->force_contact;
    pl_gap *gap = &k->gap;
    double *restrict grad = gap->grad, *restrict grad_t = gap->grad_t, *restrict w = k->w;
    const int *restrict active = p->active;
    clear_lambda(f);
    for (size_t e = 0, count = p->listed ? p->nlist : model->m; e < count; e++) {
        size_t i = visited(p, e);
        if (!active[i])
            continue;
        gap->g = gap->g_t = gap->g_tt = 0.0;
        gap->support = NULL;
        gap->nsupport = n;
        for (size_t j = 0; j < n; j++)
            grad[j] = grad_t[j] = 0.0;
        type->gap(model->par, i, t, q, gap, type->user);
        double gdot = gap->g_t;
        for (size_t j = 0; j < n; j++)
            gdot += grad[j] * fp[j];
        double gw = 0.0;
        for (size_t j = 0; j < n; j++)
            w[j] = 0.0;
        for (size_t c = 0; c < n; c++)
            if (grad[c] != 0.0)
                for (size_t j = 0; j < n; j++)
                    w[j] += minv[j * n + c] * grad[c];
        for (size_t j = 0; j < n; j++)
            gw += grad[j] * w[j];
        double m_eff = 1.0 / gw;
        k->gdot = gdot;
        k->m_eff = m_eff;
        k->w_support = NULL;
        k->nw = n;
        double l = pl_law_force(&model->law[i], p->mu, p->damping[i], m_eff, gap->g, gdot, NULL, NULL);
        lambda[i] = l;
        f->nonzero[f->nnonzero++] = i;
        for (size_t j = 0; j < n; j++)
            ac[j] += w[j] * l;
    }
}

/* forces_simple_n at n known to the compiler for one and two coordinates, whose loops it then
 * unrolls (the same operations: only the loop control goes). */
static void forces_simple(const pl_penalized *p, double t, const double *q, const double *v, pl_forces *f)
{
    switch (p->model->n) {
    case 1:
        forces_simple_n(p, t, q, v, f, 1);
        break;
    case 2:
        forces_simple_n(p, t, q, v, f, 2);
        break;
    default:
        forces_simple_n(p, t, q, v, f, p->model->n);
    }
}

int pl_penalized_forces(const pl_penalized *p, double t, const double *q, const double *v, pl_forces *f)
{
    const pl_model *model = p->model;
    size_t n = model->n;
    if (p->simple) {
        forces_simple(p, t, q, v, f);
        return 0;
    }
    pl_model_velocity_map(model, t, q, v, f->fp, NULL, NULL, NULL);
    if (pl_model_accel_minv(model, p->work, t, q, v, f->a, f->minv_store, &f->minv))
        return -1;
    /* The arrays do not overlap (restrict): without it the compiler guards its loops with run-time
     * overlap tests, which cost more than the loops themselves at a few dofs (this runs in every
     * right-hand side). */
    double *restrict ac = f->ac, *restrict lambda = f->lambda;
    const double *restrict fp = f->fp, *restrict minv = f->minv, *restrict w = p->force_contact->w;
    const int *restrict active = p->active;
    for (size_t j = 0; j < n; j++)
        ac[j] = 0.0;
    pl_contact *k = p->force_contact;
    pl_contact_law varying;
    clear_lambda(f);
    for (size_t e = 0, count = p->listed ? p->nlist : model->m; e < count; e++) {
        size_t i = visited(p, e);
        if (!active[i])
            continue;
        pl_model_contact_sparse(model, i, t, q, fp, minv, k);
        /* eq. (4) with A_i = -w_i m_i k_i and B_i = -2 xi_i sqrt(k_i) w_i m_i under Kelvin-Voigt; the
         * constraint's law in general, at (t, q) if the case's law varies (law_at) */
        const pl_contact_law *law = model->type->law_at ? pl_model_law_at(model, i, t, q, &varying) : &model->law[i];
        double d = law == &model->law[i] ? p->damping[i] : pl_law_prepare(law, p->mu);
        double l = pl_law_force(law, p->mu, d, k->m_eff, k->gap.g, k->gdot, NULL, NULL);
        lambda[i] = l;
        f->nonzero[f->nnonzero++] = i;
        if (k->w_support)
            for (size_t e = 0; e < k->nw; e++)
                ac[k->w_support[e]] += w[e] * l;
        else
            for (size_t j = 0; j < n; j++)
                ac[j] += w[j] * l;
    }
    return 0;
}

/* Analytic Jacobian.  Under Kelvin-Voigt, with s_i = mu G_i + c_i Gdot_i and lambda_i = -m_i k_i s_i:
 *   dGdot/dq = H F_p + (dF_p/dq)' grad + grad_t,   dGdot/dv = (dF_p/dv)' grad
 *   dm/dq_k  = -m^2 (2 H[:,k].w - w' dM_k w),      dw/dq_k = M^{-1} (H[:,k] - dM_k w)
 *   d(w lambda) = w dlambda + lambda dw.
 * Under another law, dlambda = lambda_G dG + lambda_Gdot dGdot (+ lambda/m dm for a law per unit
 * effective mass), its partials from the law.
 * dM/dq_k is evaluated where it is used, per active constraint (n x n of scratch, not n^3). */
/* The contact part of the Jacobian (pl_penalized_jacobian) of active constraint i over its support s:
 * with M constant and diagonal and F_p = v, w = M^{-1} grad G and H have the support's entries only,
 * dF_p/dq = 0, dF_p/dv = I, dM = 0, so ac_q and ac_v change in the s x s block of the support's rows
 * and columns alone: O(s^2), not O(n^3). */
static void sparse_contact_jacobian(const pl_penalized *c, size_t i, double t, const double *q, const double *fp,
                                    pl_jac_entry *out)
{
    const pl_model *model = c->model;
    pl_contact *k = c->jac_sparse;
    pl_model_contact_sparse(model, i, t, q, fp, NULL, k);
    const pl_gap *g = &k->gap;
    size_t ns = g->nsupport;
    const size_t *sup = g->support;
    const double *grad = g->grad, *H = g->hess, *w = k->w, *d = model->minv_diag;
    pl_contact_law varying;
    const pl_contact_law *law = pl_model_law_at(model, i, t, q, &varying);
    int linear = pl_law_is_linear(law), per_mass = (law->type->flags & PL_LAW_PER_UNIT_MASS) != 0;
    double kk = law->k, me = k->m_eff, ci = law == &model->law[i] ? c->damping[i] : pl_law_prepare(law, c->mu);
    double s = c->mu * g->g + ci * k->gdot;
    double lambda_G = 0.0, lambda_Gdot = 0.0, lambda = -me * kk * s;
    if (!linear)
        lambda = pl_law_force(law, c->mu, ci, me, g->g, k->gdot, &lambda_G, &lambda_Gdot);
    for (size_t col = 0; col < ns; col++) {
        double dgd_q = g->grad_t[col], dgd_v = grad[col], Hw = 0.0, dlam_q, dlam_v;
        for (size_t e = 0; e < ns; e++) {
            dgd_q += H[col * ns + e] * fp[sup[e]];
            Hw += H[e * ns + col] * w[e];
        }
        double dm = -me * me * 2.0 * Hw;
        if (linear) {
            dlam_q = -kk * (dm * s + me * (c->mu * grad[col] + ci * dgd_q));
            dlam_v = -kk * me * ci * dgd_v;
        } else {
            dlam_q = (per_mass ? lambda / me * dm : 0.0) + lambda_G * grad[col] + lambda_Gdot * dgd_q;
            dlam_v = lambda_Gdot * dgd_v;
        }
        size_t jc = sup[col];
        for (size_t e = 0; e < ns; e++) {
            size_t j = sup[e];
            *out++ = (pl_jac_entry){j, jc, w[e] * dlam_q + lambda * d[j] * H[e * ns + col], w[e] * dlam_v};
        }
    }
}

/* A sparse model's, from its compressed columns (it has no dense scratch). */
static int jacobian_from_csc(pl_penalized *c, double t, const double *q, const double *v, double *J)
{
    size_t N = 2 * c->model->n;
    pl_csc a;
    int flag = pl_csc_init(&a, N, N) != 0 ? -1 : pl_penalized_jacobian_csc(c, t, q, v, N, &a) != 0 ? -1 : 0;
    if (flag == 0) {
        memset(J, 0, N * N * sizeof *J);
        for (size_t col = 0; col < N; col++)
            for (int64_t k = a.colptr[col]; k < a.colptr[col + 1]; k++)
                J[(size_t)a.rowind[k] * N + col] = a.values[k];
    }
    pl_csc_free(&a);
    return flag;
}

int pl_penalized_jacobian(pl_penalized *c, double t, const double *q, const double *v, double *J)
{
    if (c->sparse_jacobian)
        return jacobian_from_csc(c, t, q, v, J);
    const pl_model *model = c->model;
    size_t n = model->n, N = 2 * n, nn = n * n;
    double *fp_q = c->fp_q, *fp_v = c->fp_v, *a_q = c->a_q, *a_v = c->a_v, *minv = c->minv;
    double *ac_q = c->ac_q, *ac_v = c->ac_v, *dM = c->dM;
    double *fp = c->fp, *a = c->a, *dlam_q = c->dlam_q, *dlam_v = c->dlam_v, *dMw = c->dMw;
    memset(ac_q, 0, nn * sizeof *ac_q);
    memset(ac_v, 0, nn * sizeof *ac_v);

    pl_model_velocity_map(model, t, q, v, fp, fp_q, fp_v, NULL);
    pl_model_accel(model, c->work, t, q, v, a, a_q, a_v);
    if (pl_model_mass(model, q, NULL, minv))
        return -1;

    pl_contact *k = c->jac_contact;
    pl_contact_law varying;
    for (size_t e = 0, count = c->listed ? c->nlist : model->m; e < count; e++) {
        size_t i = visited(c, e);
        if (!c->active[i])
            continue;
        pl_model_contact(model, i, t, q, fp, minv, k);
        const double *grad = k->gap.grad, *H = k->gap.hess, *w = k->w;
        /* a law that varies with (t, q) is taken as it is here, its own derivatives left out */
        const pl_contact_law *law = pl_model_law_at(model, i, t, q, &varying);
        int linear = pl_law_is_linear(law), per_mass = (law->type->flags & PL_LAW_PER_UNIT_MASS) != 0;
        double kk = law->k, me = k->m_eff, ci = law == &model->law[i] ? c->damping[i] : pl_law_prepare(law, c->mu);
        double s = c->mu * k->gap.g + ci * k->gdot;
        double lambda_G = 0.0, lambda_Gdot = 0.0, lambda = -me * kk * s;
        if (!linear)
            lambda = pl_law_force(law, c->mu, ci, me, k->gap.g, k->gdot, &lambda_G, &lambda_Gdot);
        for (size_t col = 0; col < n; col++) {
            double dgd_q = k->gap.grad_t[col], dgd_v = 0.0, Hw = 0.0, wdMw = 0.0;
            memset(dMw, 0, n * sizeof *dMw);
            for (size_t j = 0; j < n; j++) {
                dgd_q += H[col * n + j] * fp[j] + fp_q[j * n + col] * grad[j];
                dgd_v += fp_v[j * n + col] * grad[j];
                Hw += H[j * n + col] * w[j];
            }
            if (!model->mass_constant) {
                pl_model_mass_dq(model, q, col, dM);
                for (size_t j = 0; j < n; j++)
                    for (size_t l = 0; l < n; l++)
                        dMw[j] += dM[j * n + l] * w[l];
                for (size_t j = 0; j < n; j++)
                    wdMw += w[j] * dMw[j];
            }
            double dm = -me * me * (2.0 * Hw - wdMw);
            if (linear) {
                dlam_q[col] = -kk * (dm * s + me * (c->mu * grad[col] + ci * dgd_q));
                dlam_v[col] = -kk * me * ci * dgd_v;
            } else {
                dlam_q[col] = (per_mass ? lambda / me * dm : 0.0) + lambda_G * grad[col] + lambda_Gdot * dgd_q;
                dlam_v[col] = lambda_Gdot * dgd_v;
            }
            for (size_t j = 0; j < n; j++) {
                double dw = 0.0;
                for (size_t l = 0; l < n; l++)
                    dw += minv[j * n + l] * (H[l * n + col] - dMw[l]);
                ac_q[j * n + col] += w[j] * dlam_q[col] + lambda * dw;
                ac_v[j * n + col] += w[j] * dlam_v[col];
            }
        }
    }
    for (size_t r = 0; r < n; r++)
        for (size_t col = 0; col < n; col++) {
            J[r * N + col] = fp_q[r * n + col];
            J[r * N + n + col] = fp_v[r * n + col];
            J[(n + r) * N + col] = a_q[r * n + col] + ac_q[r * n + col];
            J[(n + r) * N + n + col] = a_v[r * n + col] + ac_v[r * n + col];
        }
    return 0;
}

/* The contact part of a sparse model's Jacobian, entry by entry (sparse_contact_jacobian) in the order of the
 * dense sum, then stably by column: the entries of column j are entries[start[j] .. start[j + 1] - 1]. */
static int contact_entries(pl_penalized *c, double t, const double *q, const double *fp)
{
    const pl_model *model = c->model;
    size_t n = model->n, width = model->gap_width, count = 0, need = 0;
    for (size_t e = 0, visits = c->listed ? c->nlist : model->m; e < visits; e++)
        if (c->active[visited(c, e)])
            need += width * width;
    if (need > c->entries_cap) {
        free(c->entries);
        c->entries_cap = 0;
        if (!(c->entries = malloc(2 * need * sizeof *c->entries)))
            return -1;
        c->entries_cap = need;
    }
    for (size_t e = 0, visits = c->listed ? c->nlist : model->m; e < visits; e++) {
        size_t i = visited(c, e);
        if (!c->active[i])
            continue;
        size_t ns;
        pl_model_support(model, i, &ns);
        sparse_contact_jacobian(c, i, t, q, fp, c->entries + count);
        count += ns * ns;
    }
    pl_jac_entry *sorted = c->entries + c->entries_cap;
    size_t *start = c->start;
    for (size_t j = 0; j <= n; j++)
        start[j] = 0;
    for (size_t k = 0; k < count; k++)
        start[c->entries[k].col + 1]++;
    for (size_t j = 0; j < n; j++)
        start[j + 1] += start[j];
    for (size_t k = 0; k < count; k++) /* stable: each column's entries in the order written */
        sorted[c->fill[c->entries[k].col]++ + start[c->entries[k].col]] = c->entries[k];
    for (size_t j = 0; j < n; j++)
        c->fill[j] = 0;
    return 0;
}

/* One half of the columns of a sparse model's Jacobian (v_half: the velocities') into J from column
 * first on: the identity map's block (dF_p/dq = 0, dF_p/dv = I: the diagonal alone, as the dense matrix
 * stores it), then a_x + the contacts' column (entries), without exact zeros but the diagonal. */
static int emit_columns(pl_penalized *c, const double *a_x, int v_half, size_t rest, pl_csc *J, int64_t *nnz)
{
    size_t n = c->model->n;
    const pl_jac_entry *sorted = c->entries + c->entries_cap;
    double *acc = c->column;
    for (size_t j = 0; j < n; j++) {
        size_t col = v_half ? n + j : j, need = (size_t)*nnz + n + 1 + rest; /* this column at most, and the rest */
        if (need > J->capacity && pl_csc_reserve(J, need > 2 * J->capacity ? need : 2 * J->capacity) != 0)
            return -1;
        J->colptr[col] = *nnz;
        J->rowind[*nnz] = (int64_t)j; /* row j of the positions: 1 (dF_p/dv) or a stored 0 (the diagonal) */
        J->values[(*nnz)++] = v_half ? 1.0 : 0.0;
        for (size_t k = c->start[j]; k < c->start[j + 1]; k++)
            acc[sorted[k].row] += v_half ? sorted[k].v : sorted[k].q;
        for (size_t r = 0; r < n; r++) {
            double x = a_x[r * n + j] + acc[r];
            acc[r] = 0.0;
            if (x != 0.0 || n + r == col) {
                J->rowind[*nnz] = (int64_t)(n + r);
                J->values[(*nnz)++] = x;
            }
        }
    }
    return 0;
}

int pl_penalized_jacobian_csc(pl_penalized *c, double t, const double *q, const double *v, size_t size, pl_csc *J)
{
    const pl_model *model = c->model;
    size_t n = model->n, n2 = 2 * n;
    /* at the first call: the case's dF_v/dq and dF_v/dv (its interface's n x n), one after the other */
    if (!c->smooth_jac)
        c->smooth_jac = malloc(n * n * sizeof *c->smooth_jac);
    if (!c->column)
        c->column = calloc(n, sizeof *c->column);
    if (!c->start)
        c->start = calloc(2 * n + 1, sizeof *c->start);
    if (!c->smooth_jac || !c->column || !c->start)
        return PL_CSC_NOMEM; /* what was had is kept (freed with c) */
    c->fill = c->start + n + 1;
    double *fp = c->fp, *a = c->a, *a_x = c->smooth_jac;
    pl_model_velocity_map(model, t, q, v, fp, NULL, NULL, NULL);
    if (contact_entries(c, t, q, fp))
        return PL_CSC_NOMEM;
    int64_t nnz = 0;
    pl_model_accel(model, c->work, t, q, v, a, a_x, NULL);
    if (emit_columns(c, a_x, 0, size - n2, J, &nnz))
        return PL_CSC_NOMEM;
    pl_model_accel(model, c->work, t, q, v, a, NULL, a_x);
    if (emit_columns(c, a_x, 1, size - n2, J, &nnz))
        return PL_CSC_NOMEM;
    for (size_t j = n2; j < size; j++) {
        J->colptr[j] = nnz;
        J->rowind[nnz] = (int64_t)j;
        J->values[nnz++] = 0.0;
    }
    J->colptr[size] = nnz;
    return 0;
}
