#include "model/model.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static pl_status check_case_shape(const pl_case *c, pl_error *err)
{
    if (c->ndof == 0 || c->ndof > PL_MAX_DOF || c->ncon == 0 || c->ncon > PL_MAX_CON ||
        c->nparams > PL_MAX_PARAMS || c->ninput > PL_MAX_INPUTS)
        return pl_fail(err, PL_ERR_INPUT, "case %s: sizes exceed the limits (%d dof, %d constraints)",
                       c->name, PL_MAX_DOF, PL_MAX_CON);
    if (!c->initial_state || !c->gap || !c->scales)
        return pl_fail(err, PL_ERR_INPUT, "case %s: a required callback is missing", c->name);
    if (!c->accel == !c->force)
        return pl_fail(err, PL_ERR_INPUT, "case %s: give its dynamics by exactly one of accel (F_v) and force "
                       "(f of M v' = f), not %s", c->name, c->accel ? "both" : "neither");
    if (!c->law && (pl_param_find(c->params, c->nparams, "k") < 0 || pl_param_find(c->params, c->nparams, "xi") < 0))
        return pl_fail(err, PL_ERR_INPUT, "case %s: no contact law (neither a law callback nor k and xi)", c->name);
    if (c->ninput > 0 && !c->input)
        return pl_fail(err, PL_ERR_INPUT, "case %s: declares inputs but no input function", c->name);
    return PL_OK;
}

/* The restitution e and damping ratio xi describe the same law: set one, derive the other. */
static pl_status resolve_restitution(pl_model *model, pl_error *err)
{
    const pl_case *c = model->type;
    int ie = pl_param_find(c->params, c->nparams, "e");
    int ix = pl_param_find(c->params, c->nparams, "xi");
    if (ie < 0 || ix < 0)
        return PL_OK;
    if (model->par_set[ie] && model->par_set[ix])
        return pl_fail(err, PL_ERR_INPUT, "set either e or xi, not both (they describe the same damping)");
    if (model->par_set[ix])
        model->par[ie] = pl_restitution_from_xi(model->par[ix]);
    else
        model->par[ix] = pl_xi_from_restitution(model->par[ie]);
    return PL_OK;
}

pl_status pl_model_init(pl_model *model, const pl_case *c, const pl_setting *settings,
                        size_t nsettings, pl_error *err)
{
    memset(model, 0, sizeof *model);
    pl_status s = check_case_shape(c, err);
    if (s != PL_OK)
        return s;
    model->type = c;
    model->n = c->ndof;
    model->m = c->ncon;
    for (size_t k = 0; k < c->nparams; k++)
        model->par[k] = c->params[k].value;
    for (size_t k = 0; k < nsettings; k++) {
        int idx = pl_param_find(c->params, c->nparams, settings[k].name);
        if (idx < 0)
            return pl_fail(err, PL_ERR_INPUT, "unknown parameter '%s' for case %s (see 'penlim cases')",
                           settings[k].name, c->name);
        model->par[idx] = settings[k].value;
        model->par_set[idx] = 1;
    }
    for (size_t k = 0; k < c->nparams; k++) {
        if ((c->params[k].flags & PL_PARAM_DERIVED) && !model->par_set[k])
            continue;
        if ((s = pl_param_check(&c->params[k], model->par[k], err)) != PL_OK)
            return s;
    }
    if ((s = resolve_restitution(model, err)) != PL_OK)
        return s;
    char msg[256];
    if (c->check && c->check(model->par, msg, sizeof msg))
        return pl_fail(err, PL_ERR_INPUT, "case %s: %s", c->name, msg);

    int ik = pl_param_find(c->params, c->nparams, "k"), ix = pl_param_find(c->params, c->nparams, "xi");
    for (size_t i = 0; i < model->m; i++) {
        if (c->law)
            c->law(model->par, i, &model->law[i]);
        else /* the same law, from the parameters k and xi, for every constraint */
            model->law[i] = (pl_law){.k = model->par[ik], .xi = model->par[ix]};
        if (!(model->law[i].k > 0) || !(model->law[i].xi >= 0))
            return pl_fail(err, PL_ERR_INPUT, "case %s: constraint %zu has k <= 0 or xi < 0", c->name, i + 1);
    }
    double q0[PL_MAX_DOF], v0[PL_MAX_DOF], minv0[PL_MAX_DOF * PL_MAX_DOF];
    c->initial_state(model->par, q0, v0);
    model->mass_constant = 0; /* factor through the general path first */
    if (pl_model_mass(model, q0, NULL, minv0))
        return pl_fail(err, PL_ERR_INPUT, "case %s: the mass matrix is not positive definite", c->name);
    if (c->mass_dq == NULL) { /* constant M: keep its inverse */
        memcpy(model->minv, minv0, sizeof minv0);
        model->mass_constant = 1;
    }
    c->scales(model->par, &model->v_scale, &model->a_scale);
    int finite = isfinite(model->v_scale) && isfinite(model->a_scale) &&
                 isfinite(model->v_scale * model->v_scale) && isfinite(model->a_scale * model->a_scale);
    for (size_t j = 0; j < model->n; j++)
        finite = finite && isfinite(q0[j]) && isfinite(v0[j]) && isfinite(q0[j] * q0[j]) && isfinite(v0[j] * v0[j]);
    if (!finite)
        return pl_fail(err, PL_ERR_INPUT, "case %s: the parameters give an initial state or scales too large to "
                       "represent (overflow)", c->name);
    /* Fallbacks so that tolerances stay meaningful when a case has no motion or no force. */
    if (!(model->v_scale > 0) && !(model->a_scale > 0))
        model->v_scale = model->a_scale = 1.0;
    else if (!(model->v_scale > 0))
        model->v_scale = sqrt(model->a_scale);
    else if (!(model->a_scale > 0))
        model->a_scale = model->v_scale * model->v_scale;
    return PL_OK;
}

double pl_model_limit_value(const pl_model *model, pl_limit_quantity what)
{
    return model->type->limit_value ? model->type->limit_value(model->par, what) : NAN;
}

double pl_model_param(const pl_model *model, const char *name)
{
    int idx = pl_param_find(model->type->params, model->type->nparams, name);
    return idx < 0 ? NAN : model->par[idx];
}

void pl_model_initial_state(const pl_model *model, double *q, double *v)
{
    model->type->initial_state(model->par, q, v);
}

void pl_model_velocity_map(const pl_model *model, double t, const double *q, const double *v,
                           double *fp, double *fp_q, double *fp_v, double *fp_t)
{
    size_t n = model->n;
    if (model->type->velocity_map) {
        model->type->velocity_map(model->par, t, q, v, fp, fp_q, fp_v, fp_t);
        return;
    }
    memcpy(fp, v, n * sizeof *fp);
    if (fp_q)
        memset(fp_q, 0, n * n * sizeof *fp_q);
    if (fp_v) {
        memset(fp_v, 0, n * n * sizeof *fp_v);
        for (size_t j = 0; j < n; j++)
            fp_v[j * n + j] = 1.0;
    }
    if (fp_t)
        memset(fp_t, 0, n * sizeof *fp_t);
}

/* y = minv x for the constant mass matrix; y and x are n-vectors with strides sy, sx (in place allowed). */
static void apply_minv(const pl_model *model, const double *x, size_t sx, double *y, size_t sy)
{
    size_t n = model->n;
    double tmp[PL_MAX_DOF];
    for (size_t j = 0; j < n; j++) {
        double s = 0.0;
        for (size_t l = 0; l < n; l++)
            s += model->minv[j * n + l] * x[l * sx];
        tmp[j] = s;
    }
    for (size_t j = 0; j < n; j++)
        y[j * sy] = tmp[j];
}

static void fill_nan(double *x, size_t len)
{
    if (x)
        for (size_t j = 0; j < len; j++)
            x[j] = NAN;
}

/* F_v = M^{-1} f, dF_v/dv = M^{-1} df/dv, dF_v/dq_k = M^{-1} (df/dq_k - dM/dq_k F_v): the force
 * and its Jacobians are written into a, a_q, a_v and solved in place, column by column. */
static void accel_from_force(const pl_model *model, double t, const double *q, const double *v, const double *u,
                             double *a, double *a_q, double *a_v)
{
    const pl_case *c = model->type;
    size_t n = model->n;
    c->force(model->par, t, q, v, u, a, a_q, a_v);
    if (model->mass_constant) { /* dM/dq = 0 */
        apply_minv(model, a, 1, a, 1);
        for (size_t k = 0; k < n; k++) {
            if (a_q)
                apply_minv(model, a_q + k, n, a_q + k, n);
            if (a_v)
                apply_minv(model, a_v + k, n, a_v + k, n);
        }
        return;
    }
    double L[PL_MAX_DOF * PL_MAX_DOF];
    pl_model_mass(model, q, L, NULL);
    gsl_matrix_view Lm = gsl_matrix_view_array(L, n, n);
    if (gsl_linalg_cholesky_decomp1(&Lm.matrix) != GSL_SUCCESS) {
        fill_nan(a, n), fill_nan(a_q, n * n), fill_nan(a_v, n * n);
        return;
    }
    gsl_vector_view av = gsl_vector_view_array(a, n);
    gsl_linalg_cholesky_svx(&Lm.matrix, &av.vector);
    for (size_t k = 0; k < n; k++) {
        if (a_v) {
            gsl_vector_view col = gsl_vector_view_array_with_stride(a_v + k, n, n);
            gsl_linalg_cholesky_svx(&Lm.matrix, &col.vector);
        }
        if (a_q) {
            double dM[PL_MAX_DOF * PL_MAX_DOF] = {0};
            c->mass_dq(model->par, q, k, dM);
            for (size_t j = 0; j < n; j++)
                for (size_t l = 0; l < n; l++)
                    a_q[j * n + k] -= dM[j * n + l] * a[l];
            gsl_vector_view col = gsl_vector_view_array_with_stride(a_q + k, n, n);
            gsl_linalg_cholesky_svx(&Lm.matrix, &col.vector);
        }
    }
}

void pl_model_accel(const pl_model *model, double t, const double *q, const double *v, double *a,
                    double *a_q, double *a_v)
{
    double u[PL_MAX_INPUTS] = {0};
    if (model->type->input)
        model->type->input(model->par, t, u);
    if (model->type->accel)
        model->type->accel(model->par, t, q, v, u, a, a_q, a_v);
    else
        accel_from_force(model, t, q, v, u, a, a_q, a_v);
}

void pl_model_gap(const pl_model *model, size_t i, double t, const double *q, pl_gap *out)
{
    /* Only the parts an n-dof case writes are cleared: the whole struct is ~2 KB (its Hessian is
     * sized for PL_MAX_DOF), and this runs several times per step. */
    size_t n = model->n;
    out->g = out->g_t = out->g_tt = 0.0;
    for (size_t j = 0; j < n; j++)
        out->grad[j] = out->grad_t[j] = 0.0;
    for (size_t j = 0; j < n * n; j++)
        out->hess[j] = 0.0;
    model->type->gap(model->par, i, t, q, out);
}

int pl_model_mass(const pl_model *model, const double *q, double *M, double *minv)
{
    size_t n = model->n;
    if (!M && minv && model->mass_constant) { /* the common case, in every right-hand side */
        for (size_t j = 0; j < n * n; j++)
            minv[j] = model->minv[j];
        return 0;
    }
    double Mbuf[PL_MAX_DOF * PL_MAX_DOF];
    double *Mm = M ? M : Mbuf;
    for (size_t j = 0; j < n * n; j++)
        Mm[j] = 0.0;
    if (model->type->mass)
        model->type->mass(model->par, q, Mm);
    else
        for (size_t j = 0; j < n; j++)
            Mm[j * n + j] = 1.0;
    if (!minv)
        return 0;
    if (model->mass_constant) {
        memcpy(minv, model->minv, n * n * sizeof *minv);
        return 0;
    }
    memcpy(minv, Mm, n * n * sizeof *minv);
    gsl_matrix_view A = gsl_matrix_view_array(minv, n, n);
    if (gsl_linalg_cholesky_decomp1(&A.matrix) != GSL_SUCCESS)
        return 1;
    return gsl_linalg_cholesky_invert(&A.matrix) != GSL_SUCCESS;
}

pl_status pl_model_check_admissible(const pl_model *model, const char *why, pl_error *err)
{
    double q[PL_MAX_DOF], v[PL_MAX_DOF], L = model->v_scale * model->v_scale / model->a_scale;
    pl_model_initial_state(model, q, v);
    for (size_t i = 0; i < model->m; i++) {
        pl_gap g;
        pl_model_gap(model, i, 0.0, q, &g);
        if (g.g < -1e-12 * L)
            return pl_fail(err, PL_ERR_INPUT, "the initial state violates constraint %zu (G = %g < 0): %s", i + 1, g.g,
                           why);
    }
    return PL_OK;
}

double pl_gap_terms(const pl_gap *gap, double t, const double *q, size_t n)
{
    double s = fabs(gap->g_t * t) + fabs(gap->g);
    for (size_t j = 0; j < n; j++)
        s += fabs(gap->grad[j] * q[j]);
    return s;
}

double pl_model_gap_rate(const pl_model *model, size_t i, double t, const double *q, const double *fp,
                         pl_gap *gap)
{
    pl_model_gap(model, i, t, q, gap);
    double gdot = gap->g_t;
    for (size_t j = 0; j < model->n; j++)
        gdot += gap->grad[j] * fp[j];
    return gdot;
}

void pl_model_contact(const pl_model *model, size_t i, double t, const double *q, const double *fp,
                      const double *minv, pl_contact *c)
{
    size_t n = model->n;
    double minv_here[PL_MAX_DOF * PL_MAX_DOF];
    if (!minv) {
        pl_model_mass(model, q, NULL, minv_here);
        minv = minv_here;
    }
    c->gdot = pl_model_gap_rate(model, i, t, q, fp, &c->gap);
    double gw = 0.0;
    for (size_t j = 0; j < n; j++) {
        double wj = 0.0;
        for (size_t k = 0; k < n; k++)
            wj += minv[j * n + k] * c->gap.grad[k];
        c->w[j] = wj;
        gw += c->gap.grad[j] * wj;
    }
    c->m_eff = 1.0 / gw;
}

size_t pl_model_contact_coupling(const pl_model *model, double t, const double *q, const double *v, const int *set,
                                 size_t *idx, pl_contact *c, double *W, double *Wq)
{
    size_t n = model->n, k = 0;
    double minv[PL_MAX_DOF * PL_MAX_DOF], fp[PL_MAX_DOF], fp_v[PL_MAX_DOF * PL_MAX_DOF];
    pl_model_mass(model, q, NULL, minv);
    pl_model_velocity_map(model, t, q, v, fp, NULL, fp_v, NULL);
    for (size_t i = 0; i < model->m; i++)
        if (set[i]) {
            pl_model_contact(model, i, t, q, fp, minv, &c[k]);
            idx[k++] = i;
        }
    for (size_t b = 0; b < k; b++) {
        double fw[PL_MAX_DOF]; /* (dF_p/dv) w_b: how q' responds to a velocity change along w_b */
        for (size_t j = 0; j < n; j++) {
            fw[j] = 0.0;
            for (size_t l = 0; l < n; l++)
                fw[j] += fp_v[j * n + l] * c[b].w[l];
        }
        for (size_t a = 0; a < k; a++) {
            double x = 0.0, y = 0.0;
            for (size_t j = 0; j < n; j++) {
                x += c[a].gap.grad[j] * fw[j];
                y += c[a].gap.grad[j] * c[b].w[j];
            }
            W[a * k + b] = x;
            if (Wq)
                Wq[a * k + b] = y;
        }
    }
    return k;
}

double pl_model_free_gap_accel(const pl_model *model, size_t i, double t, const double *q,
                               const double *v)
{
    size_t n = model->n;
    double fp[PL_MAX_DOF], fp_q[PL_MAX_DOF * PL_MAX_DOF], fp_v[PL_MAX_DOF * PL_MAX_DOF], fp_t[PL_MAX_DOF];
    double a[PL_MAX_DOF];
    pl_gap g;
    pl_model_velocity_map(model, t, q, v, fp, fp_q, fp_v, fp_t);
    pl_model_accel(model, t, q, v, a, NULL, NULL);
    pl_model_gap(model, i, t, q, &g);
    /* D = F_p' H F_p + 2 grad_t . F_p + G_tt + grad . (dF_p/dq F_p + dF_p/dv F_v + dF_p/dt) */
    double D = g.g_tt;
    for (size_t j = 0; j < n; j++) {
        double Hf = 0.0, qdd = fp_t[j];
        for (size_t k = 0; k < n; k++) {
            Hf += g.hess[j * n + k] * fp[k];
            qdd += fp_q[j * n + k] * fp[k] + fp_v[j * n + k] * a[k];
        }
        D += fp[j] * Hf + 2.0 * g.grad_t[j] * fp[j] + g.grad[j] * qdd;
    }
    return D;
}

int pl_model_initially_active(const pl_model *model, size_t i, double t, const double *q,
                              const double *v)
{
    double fp[PL_MAX_DOF];
    pl_contact c;
    pl_model_velocity_map(model, t, q, v, fp, NULL, NULL, NULL);
    pl_model_contact(model, i, t, q, fp, NULL, &c);
    if (c.gap.g < 0)
        return 1;
    if (c.gap.g > 0)
        return 0;
    if (c.gdot != 0)
        return c.gdot < 0;
    return pl_model_free_gap_accel(model, i, t, q, v) <= 0;
}
