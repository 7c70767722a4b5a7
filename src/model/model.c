#include "model/model.h"
#include "model/difference.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The scratch of the model's evaluations: each function has slots of its own, so that one that
 * calls another (free_gap_accel calls accel) never overwrites what its caller still uses. */
struct pl_work {
    size_t n;
    double *tmp, *L, *dM;                   /* accel: M^{-1} x, the Cholesky factor of M(q), dM/dq_k */
    double *c_minv;                         /* contact_at */
    double *minv;                           /* pl_model_minv (a sparse model's: allocated there, own_minv) */
    int own_minv;
    double *k_minv, *k_fp, *k_fp_v, *k_fw;  /* contact_coupling */
    double *d_fp, *d_fp_q, *d_fp_v, *d_fp_t, *d_a; /* free_gap_accel */
    pl_gap *d_gap;
    double *i_fp;                           /* initial_activity */
    pl_gap *i_gap;
    double *block;
};

pl_work *pl_work_new(const pl_model *model)
{
    /* A sparse model (pl_model_sparse) needs none of the n x n slots: M^{-1} is its diagonal, dF_p/dv = I,
     * each gap is evaluated over its support (pl_model_minv alone allocates its slot, on demand). */
    size_t n = model->n, nn = pl_model_sparse(model) ? 0 : n * n;
    pl_work *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->n = n;
    w->block = calloc(8 * nn + 7 * n, sizeof *w->block);
    w->d_gap = nn ? pl_gap_new(1, n, 1) : pl_gap_new_sparse(1, model, 1); /* D reads the Hessian */
    w->i_gap = pl_gap_new_sparse(1, model, 0);
    if (!w->block || !w->d_gap || !w->i_gap) {
        pl_work_free(w);
        return NULL;
    }
    double *p = w->block;
    if (nn) {
        w->L = p, p += nn;
        w->dM = p, p += nn;
        w->c_minv = p, p += nn;
        w->minv = p, p += nn;
        w->k_minv = p, p += nn;
        w->k_fp_v = p, p += nn;
        w->d_fp_q = p, p += nn;
        w->d_fp_v = p, p += nn;
    }
    w->tmp = p, p += n;
    w->k_fp = p, p += n;
    w->k_fw = p, p += n;
    w->d_fp = p, p += n;
    w->d_fp_t = p, p += n;
    w->d_a = p, p += n;
    w->i_fp = p;
    return w;
}

void pl_work_free(pl_work *w)
{
    if (!w)
        return;
    if (w->own_minv)
        free(w->minv);
    free(w->block);
    free(w->d_gap);
    free(w->i_gap);
    free(w);
}

/* count structs of item_size bytes followed by `doubles` doubles (*data), in one zeroed block. */
static void *new_items(size_t count, size_t item_size, size_t doubles, double **data)
{
    size_t head = (count * item_size + sizeof(double) - 1) / sizeof(double) * sizeof(double);
    char *block = calloc(1, head + doubles * sizeof(double));
    if (block)
        *data = (double *)(block + head);
    return block;
}

pl_gap *pl_gap_new(size_t count, size_t n, int keep_hess)
{
    double *p = NULL;
    count = count ? count : 1;
    size_t hessians = keep_hess ? count : 1;
    pl_gap *g = new_items(count, sizeof *g, count * 2 * n + hessians * n * n, &p);
    for (size_t k = 0; g && k < count; k++) {
        g[k].grad = p + 2 * n * k;
        g[k].grad_t = g[k].grad + n;
        g[k].hess = p + count * 2 * n + (keep_hess ? k : 0) * n * n;
        g[k].keep_hess = keep_hess != 0;
    }
    return g;
}

/* count contacts with gap arrays of `width` entries, Hessians hw x hw, and w of nw. */
static pl_contact *contact_new(size_t count, size_t width, size_t nw, size_t hw, int keep_hess)
{
    double *p = NULL;
    count = count ? count : 1;
    size_t hessians = keep_hess ? count : 1, each = 2 * width + nw;
    pl_contact *c = new_items(count, sizeof *c, count * each + hessians * hw * hw, &p);
    for (size_t k = 0; c && k < count; k++) {
        c[k].gap.grad = p + each * k;
        c[k].gap.grad_t = c[k].gap.grad + width;
        c[k].w = c[k].gap.grad_t + width;
        c[k].nw = nw;
        c[k].gap.hess = p + count * each + (keep_hess ? k : 0) * hw * hw;
        c[k].gap.keep_hess = keep_hess != 0;
    }
    return c;
}

pl_contact *pl_contact_new(size_t count, size_t n, int keep_hess)
{
    return contact_new(count, n, n, n, keep_hess);
}

/* The Hessian room of a dense gap that keeps no Hessian: what the case writes, the longest support's
 * square with supports (pl_model_gap expands only kept Hessians), else n x n. */
static size_t scratch_width(const pl_model *model)
{
    return model->support ? model->gap_width : model->n;
}

pl_gap *pl_gap_new_scratch(size_t count, const pl_model *model)
{
    double *p = NULL;
    size_t n = model->n, h = scratch_width(model);
    count = count ? count : 1;
    pl_gap *g = new_items(count, sizeof *g, count * 2 * n + h * h, &p);
    for (size_t k = 0; g && k < count; k++) {
        g[k].grad = p + 2 * n * k;
        g[k].grad_t = g[k].grad + n;
        g[k].hess = p + count * 2 * n;
        g[k].keep_hess = 0;
    }
    return g;
}

pl_contact *pl_contact_new_scratch(size_t count, const pl_model *model)
{
    return contact_new(count, model->n, model->n, scratch_width(model), 0);
}

pl_gap *pl_gap_new_sparse(size_t count, const pl_model *model, int keep_hess)
{
    return pl_gap_new(count, model->gap_width, keep_hess);
}

pl_contact *pl_contact_new_sparse(size_t count, const pl_model *model, int keep_hess)
{
    return contact_new(count, model->gap_width, model->minv_diag ? model->gap_width : model->n, model->gap_width,
                       keep_hess);
}

pl_status pl_contact_set_init(pl_contact_set *cs, const pl_model *model, pl_error *err)
{
    size_t n = model->n, m = model->m;
    memset(cs, 0, sizeof *cs);
    cs->idx = calloc(m, sizeof *cs->idx);
    cs->c = pl_contact_new(m, n, 0);
    cs->W = calloc(2 * m * m + 2 * m, sizeof *cs->W);
    cs->nz = calloc(m * n + m + 1, sizeof *cs->nz);
    if (!cs->idx || !cs->c || !cs->W || !cs->nz) {
        pl_contact_set_free(cs);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for the couplings of %zu constraints", m);
    }
    cs->Wq = cs->W + m * m;
    cs->b = cs->Wq + m * m;
    cs->a = cs->b + m;
    cs->nz_start = cs->nz + m * n;
    return PL_OK;
}

void pl_contact_set_free(pl_contact_set *cs)
{
    free(cs->idx);
    free(cs->c);
    free(cs->W);
    free(cs->nz);
    memset(cs, 0, sizeof *cs);
}

/* A name that can be part of a file name and a command line: 1 to 63 of [A-Za-z0-9_-]. */
int pl_case_name_valid(const char *name)
{
    size_t len = name ? strlen(name) : 0;
    if (len == 0 || len > 63)
        return 0;
    for (size_t j = 0; j < len; j++)
        if (!isalnum((unsigned char)name[j]) && name[j] != '_' && name[j] != '-')
            return 0;
    return 1;
}

/* Which required callbacks are missing, as "gap, scales", into buf; 0 if none. */
static int missing_callbacks(const pl_case *c, char *buf, size_t len)
{
    buf[0] = '\0';
    const char *names[] = {"initial_state", "gap", "scales"};
    int missing[] = {!c->initial_state, !c->gap, !c->scales}, any = 0;
    for (int k = 0; k < 3; k++)
        if (missing[k]) {
            size_t used = strlen(buf);
            snprintf(buf + used, len - used, "%s%s", any ? ", " : "", names[k]);
            any = 1;
        }
    return any;
}

static pl_status check_case_shape(const pl_case *c, pl_error *err)
{
    if (!c)
        return pl_fail(err, PL_ERR_INPUT, "no case given");
    if (c->abi_version != PL_ABI_VERSION)
        return pl_fail(err, PL_ERR_INPUT, "the case was built for penlim ABI version %u, this penlim has %u: "
                       "rebuild it against this penlim's headers", c->abi_version, (unsigned)PL_ABI_VERSION);
    if (!pl_case_name_valid(c->name))
        return pl_fail(err, PL_ERR_INPUT, "the case's name must be 1 to 63 letters, digits, '_' or '-'");
    if (!c->summary)
        return pl_fail(err, PL_ERR_INPUT, "case %s: no summary", c->name);
    if (!(c->t_end >= 1e-12 && c->t_end <= 1e300))
        return pl_fail(err, PL_ERR_INPUT, "case %s: its default t_end must be a finite number >= 1e-12 (got %g)",
                       c->name, c->t_end);
    if (c->nparams > 0 && !c->params)
        return pl_fail(err, PL_ERR_INPUT, "case %s: nparams = %zu but no params table", c->name, c->nparams);
    if (c->nparams > PL_MAX_PARAMS || c->ninput > PL_MAX_INPUTS) /* before the table is read */
        return pl_fail(err, PL_ERR_INPUT, "case %s: more than %d parameters or %d inputs", c->name, PL_MAX_PARAMS,
                       PL_MAX_INPUTS);
    for (size_t k = 0; k < c->nparams; k++) {
        if (!pl_case_name_valid(c->params[k].name))
            return pl_fail(err, PL_ERR_INPUT, "case %s: parameter %zu has no valid name (letters, digits, '_', '-')",
                           c->name, k + 1);
        for (size_t j = 0; j < k; j++)
            if (strcmp(c->params[j].name, c->params[k].name) == 0)
                return pl_fail(err, PL_ERR_INPUT, "case %s: parameter '%s' is declared twice", c->name,
                               c->params[k].name);
    }
    if (c->derivatives != PL_DERIVATIVES_ANALYTIC && c->derivatives != PL_DERIVATIVES_NONE)
        return pl_fail(err, PL_ERR_INPUT, "case %s: derivatives must be PL_DERIVATIVES_ANALYTIC or _NONE", c->name);
    char missing[64];
    if (missing_callbacks(c, missing, sizeof missing))
        return pl_fail(err, PL_ERR_INPUT, "case %s: the required callback%s %s %s missing", c->name,
                       strchr(missing, ',') ? "s" : "", missing, strchr(missing, ',') ? "are" : "is");
    if (c->mass_dq && !c->mass)
        return pl_fail(err, PL_ERR_INPUT, "case %s: mass_dq without mass", c->name);
    if (!c->sizes && (c->ndof == 0 || c->ncon == 0))
        return pl_fail(err, PL_ERR_INPUT, "case %s: ndof and ncon must be >= 1 (or give a sizes callback)", c->name);
    if (!c->accel == !c->force)
        return pl_fail(err, PL_ERR_INPUT, "case %s: give its dynamics by exactly one of accel (F_v) and force "
                       "(f of M v' = f), not %s", c->name, c->accel ? "both" : "neither");
    if (c->law && c->law_at)
        return pl_fail(err, PL_ERR_INPUT, "case %s: give its contact law by at most one of law and law_at", c->name);
    for (size_t k = 0; k < c->nparams; k++) {
        const pl_law_type *owner = pl_law_type_owning(c->params[k].name);
        if (owner && !(c->params[k].flags & (PL_PARAM_LAW | PL_PARAM_MODEL_OWN)))
            return pl_fail(err, PL_ERR_INPUT, "case %s: its parameter '%s' has the name of a parameter of the contact "
                           "law %s: rename it (or flag it PL_PARAM_LAW if it is the law's default)", c->name,
                           c->params[k].name, owner->name);
        if (!owner && (c->params[k].flags & PL_PARAM_LAW))
            return pl_fail(err, PL_ERR_INPUT, "case %s: its parameter '%s' is flagged PL_PARAM_LAW but no contact law "
                           "has a parameter of that name (penlim laws)", c->name, c->params[k].name);
    }
    if (c->ninput > 0 && !c->input)
        return pl_fail(err, PL_ERR_INPUT, "case %s: declares inputs but no input function", c->name);
    return PL_OK;
}

double pl_model_run_bytes(size_t n, size_t m, int sparse)
{
    double nn = (double)n * (double)n;
    return (sparse ? 8.0 * nn + 1000.0 * (double)n : 188.0 * nn) + 1000.0 * (double)m;
}

double pl_physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 0.0;
}

pl_status pl_model_check_memory(const char *name, size_t n, size_t m, int sparse, double physical, pl_error *err)
{
    double need = pl_model_run_bytes(n, m, sparse);
    if (physical > 0 && need > physical)
        return pl_fail(err, PL_ERR_INPUT, "case %s: %zu degrees of freedom and %zu constraints need about %.3g bytes (%s), "
                       "more than this machine's %.3g bytes of physical memory", name, n, m, need,
                       sparse ? "arrays of n and m, and one n x n array of the case's functions"
                              : "some twenty-three dense n x n arrays", physical);
    return PL_OK;
}

/* Whether a case can make a sparse model (pl_model_sparse), before its M is evaluated: supports, the
 * identity velocity map, M constant (diagonal or not is known once M is). */
static int maybe_sparse(const pl_case *c)
{
    return c->support && !c->velocity_map && !c->mass_dq && !(c->mass && c->derivatives == PL_DERIVATIVES_NONE);
}

/* n and m from the parameters (or the case's fields); a one-line refusal naming the parameter
 * values when they are 0 or absurd. */
static pl_status resolve_sizes(pl_model *model, pl_error *err)
{
    const pl_case *c = model->type;
    size_t n = c->ndof, m = c->ncon;
    if (c->sizes)
        c->sizes(model->par, &n, &m, c->user);
    if (n >= 1 && n <= PL_SIZE_LIMIT_DOF && m >= 1 && m <= PL_SIZE_LIMIT_CON) {
        model->n = n;
        model->m = m;
        return pl_model_check_memory(c->name, n, m, maybe_sparse(c), pl_physical_memory(), err);
    }
    char values[320] = "";
    size_t used = 0;
    for (size_t k = 0; k < c->nparams && used < sizeof values; k++)
        used += (size_t)snprintf(values + used, sizeof values - used, "%s%s = %g", k ? ", " : "", c->params[k].name,
                                 model->par[k]);
    return pl_fail(err, PL_ERR_INPUT,
                   "case %s: %s give%s %zu degrees of freedom and %zu constraints (a model has 1 to %d degrees of "
                   "freedom and 1 to %d constraints)",
                   c->name, c->nparams ? values : "its fields", c->nparams == 1 ? "s" : "", n, m, PL_SIZE_LIMIT_DOF,
                   PL_SIZE_LIMIT_CON);
}

void pl_model_free(pl_model *model)
{
    free(model->law);
    free(model->minv);
    free(model->minv_diag);
    free(model->support);
    free(model->support_start);
    model->law = NULL;
    model->minv = model->minv_diag = NULL;
    model->support = model->support_start = NULL;
}

/* The case's supports (pl_case.support), asked once and checked: each ascending, in range, 1 to
 * PL_MAX_SUPPORT long; the gap width follows.  A case with supports gives analytic derivatives (the
 * difference quotients of difference.c are taken along every coordinate). */
static pl_status fix_supports(pl_model *model, pl_error *err)
{
    const pl_case *c = model->type;
    size_t n = model->n, m = model->m;
    model->gap_width = n;
    model->gap_lipschitz = model->gap_rate = NAN;
    if (!c->support && (c->candidates || c->gap_bounds))
        return pl_fail(err, PL_ERR_INPUT, "case %s: neighbour search (candidates, gap_bounds) needs supports",
                       c->name);
    if (!c->support)
        return PL_OK;
    if (c->derivatives == PL_DERIVATIVES_NONE)
        return pl_fail(err, PL_ERR_INPUT, "case %s: a case that gives supports gives analytic derivatives "
                       "(PL_DERIVATIVES_ANALYTIC)", c->name);
    model->support_start = malloc((m + 1) * sizeof *model->support_start);
    size_t cap = m < SIZE_MAX / 4 ? 4 * m : m, used = 0, width = 0;
    model->support = malloc(cap * sizeof *model->support);
    if (!model->support_start || !model->support)
        return pl_fail(err, PL_ERR_NOMEM, "case %s: out of memory for the supports of %zu constraints", c->name, m);
    for (size_t i = 0; i < m; i++) {
        size_t dofs[4 * PL_MAX_SUPPORT], count = c->support(model->par, i, dofs, c->user); /* room to refuse */
        if (count < 1 || count > PL_MAX_SUPPORT)
            return pl_fail(err, PL_ERR_INPUT, "case %s: the support of constraint %zu has %zu coordinates (1 to %d)",
                           c->name, i + 1, count, PL_MAX_SUPPORT);
        for (size_t e = 0; e < count; e++) {
            if (dofs[e] >= n)
                return pl_fail(err, PL_ERR_INPUT, "case %s: the support of constraint %zu names coordinate %zu, "
                               "beyond the %zu of the model (they count from 0)", c->name, i + 1, dofs[e], n);
            if (e > 0 && dofs[e] <= dofs[e - 1])
                return pl_fail(err, PL_ERR_INPUT, "case %s: the support of constraint %zu is not strictly ascending "
                               "(%zu after %zu)", c->name, i + 1, dofs[e], dofs[e - 1]);
        }
        if (used + count > cap) {
            size_t *grown = realloc(model->support, 2 * (used + count) * sizeof *grown);
            if (!grown)
                return pl_fail(err, PL_ERR_NOMEM, "case %s: out of memory for the supports of %zu constraints",
                               c->name, m);
            model->support = grown, cap = 2 * (used + count);
        }
        model->support_start[i] = used;
        memcpy(model->support + used, dofs, count * sizeof *dofs);
        used += count;
        width = count > width ? count : width;
    }
    model->support_start[m] = used;
    model->gap_width = width;
    if (!c->candidates != !c->gap_bounds)
        return pl_fail(err, PL_ERR_INPUT, "case %s: give both candidates and gap_bounds (neighbour search), or "
                       "neither", c->name);
    if (c->candidates) {
        double L = NAN, B = NAN;
        c->gap_bounds(model->par, &L, &B, c->user);
        if (!(L > 0.0 && isfinite(L) && B >= 0.0 && isfinite(B)))
            return pl_fail(err, PL_ERR_INPUT, "case %s: its gap_bounds must be finite, L > 0 and B >= 0 (got L = %g, "
                           "B = %g)", c->name, L, B);
        model->gap_lipschitz = L, model->gap_rate = B;
    }
    return PL_OK;
}

static pl_status init_model(pl_model *model, const pl_case *c, const pl_setting *settings, size_t nsettings,
                            pl_error *err);
static pl_status finish_model(pl_model *model, double *q0, double *v0, pl_error *err);
static pl_status check_evaluations(const pl_model *model, const double *q0, const double *v0, pl_error *err);

pl_status pl_model_init(pl_model *model, const pl_case *c, const pl_setting *settings,
                        size_t nsettings, pl_error *err)
{
    return pl_model_init_law(model, c, NULL, settings, nsettings, err);
}

pl_status pl_model_init_law(pl_model *model, const pl_case *c, const pl_law_type *law, const pl_setting *settings,
                            size_t nsettings, pl_error *err)
{
    memset(model, 0, sizeof *model);
    model->law_type = law ? law : pl_law_type_default();
    pl_status s = init_model(model, c, settings, nsettings, err);
    char why[256];
    /* a callback that failed while the case was validated: its own reason, not the NAN it returned */
    if (model->type && pl_model_failed(model, why, sizeof why))
        s = pl_fail(err, PL_ERR_INPUT, "case %s: the model failed: %s", c->name, why);
    if (s != PL_OK)
        pl_model_free(model); /* nothing held on failure */
    return s;
}

/* The law's parameters: its defaults, the case's (PL_PARAM_LAW), the settings naming them; then their
 * values into the case's slots of the same names.  The settings of the case's own parameters are left
 * to the caller (flagged in `law_setting`, nsettings). */
static pl_status fix_law_parameters(pl_model *model, const pl_setting *settings, size_t nsettings,
                                    unsigned char *law_setting, pl_error *err)
{
    const pl_case *c = model->type;
    const pl_law_type *t = model->law_type;
    pl_setting defaults[PL_MAX_PARAMS], given[PL_LAW_MAX_PARAMS];
    size_t nd = 0, ng = 0;
    for (size_t k = 0; k < c->nparams; k++)
        if ((c->params[k].flags & PL_PARAM_LAW) && !isnan(c->params[k].value)) {
            snprintf(defaults[nd].name, sizeof defaults[nd].name, "%s", c->params[k].name);
            defaults[nd++].value = c->params[k].value;
        }
    for (size_t k = 0; k < nsettings; k++) {
        law_setting[k] = pl_law_param_index(t, settings[k].name) >= 0;
        if (!law_setting[k])
            continue;
        if (ng == PL_LAW_MAX_PARAMS) /* one of them twice */
            return pl_fail(err, PL_ERR_INPUT, "parameter %s is set twice", settings[k].name);
        given[ng++] = settings[k];
    }
    pl_status s = pl_law_fill(t, defaults, nd, given, ng, model->law_par, model->law_set, err);
    if (s != PL_OK && err) { /* the value may be the case's default: say whose law and case */
        char msg[sizeof err->message];
        snprintf(msg, sizeof msg, "%s", err->message);
        return pl_fail(err, s, "case %s under the contact law %s: %s", c->name, t->name, msg);
    }
    if (s != PL_OK)
        return s;
    for (size_t k = 0; k < c->nparams; k++) {
        int j = pl_law_param_index(t, c->params[k].name);
        if (j >= 0 && (c->params[k].flags & PL_PARAM_LAW)) {
            model->par[k] = model->law_par[j];
            model->par_set[k] = model->law_set[j];
        }
    }
    return PL_OK;
}

int pl_model_failed(const pl_model *model, char *msg, size_t len)
{
    const pl_case *c = model->type;
    if (!c->failed)
        return 0;
    msg[0] = '\0';
    if (!c->failed(msg, len, c->user))
        return 0;
    msg[len - 1] = '\0'; /* a model's message without its NUL */
    for (char *p = msg; *p; p++) /* one line */
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    if (!msg[0])
        snprintf(msg, len, "a callback failed");
    return 1;
}

static pl_status init_model(pl_model *model, const pl_case *c, const pl_setting *settings, size_t nsettings,
                            pl_error *err)
{
    pl_status s = check_case_shape(c, err);
    if (s != PL_OK)
        return s;
    model->type = c;
    for (size_t k = 0; k < c->nparams; k++) {
        model->par[k] = c->params[k].value;
        if ((c->params[k].flags & PL_PARAM_MODEL_OWN) && pl_law_param_index(model->law_type, c->params[k].name) >= 0)
            return pl_fail(err, PL_ERR_INPUT, "case %s (built for ABI version 2): its parameter '%s' has the name of a "
                           "parameter of the contact law %s: rebuild it with the parameter renamed to use that law",
                           c->name, c->params[k].name, model->law_type->name);
    }
    if (nsettings > 0 && !settings)
        return pl_fail(err, PL_ERR_INPUT, "case %s: %zu settings but no array of them", c->name, nsettings);
    for (size_t k = 0; k < nsettings; k++)
        if (!memchr(settings[k].name, '\0', sizeof settings[k].name))
            return pl_fail(err, PL_ERR_INPUT, "case %s: setting %zu has no name (not NUL-terminated)", c->name, k + 1);
    unsigned char *law_setting = calloc(nsettings ? nsettings : 1, 1);
    if (!law_setting)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < nsettings && s == PL_OK; k++) {
        const char *name = settings[k].name;
        int idx = pl_param_find(c->params, c->nparams, name);
        if (pl_law_param_index(model->law_type, name) >= 0)
            continue;
        const pl_law_type *owner = pl_law_type_owning(name);
        if (owner && !(idx >= 0 && (c->params[idx].flags & PL_PARAM_MODEL_OWN)))
            s = pl_fail(err, PL_ERR_INPUT, "parameter %s belongs to the contact law %s, not to %s (its parameters: "
                        "penlim laws)", name, owner->name, model->law_type->name);
        else if (idx < 0)
            s = pl_fail(err, PL_ERR_INPUT, "unknown parameter '%s' for case %s", name, c->name);
        else if (model->par_set[idx]) /* the last would silently win */
            s = pl_fail(err, PL_ERR_INPUT, "parameter %s is set twice", name);
        else {
            model->par[idx] = settings[k].value;
            model->par_set[idx] = 1;
        }
    }
    for (size_t k = 0; k < c->nparams && s == PL_OK; k++) {
        if (((c->params[k].flags & PL_PARAM_DERIVED) && !model->par_set[k]) || (c->params[k].flags & PL_PARAM_LAW))
            continue;
        s = pl_param_check(&c->params[k], model->par[k], err);
    }
    if (s == PL_OK)
        s = fix_law_parameters(model, settings, nsettings, law_setting, err);
    free(law_setting);
    if (s != PL_OK)
        return s;
    char msg[256] = "";
    if (c->check && c->check(model->par, msg, sizeof msg, c->user)) {
        msg[sizeof msg - 1] = '\0'; /* a model's message without its NUL */
        return pl_fail(err, PL_ERR_INPUT, "case %s: %s", c->name, msg[0] ? msg : "its check refused the parameters");
    }
    if ((s = resolve_sizes(model, err)) != PL_OK || (s = fix_supports(model, err)) != PL_OK)
        return s;
    size_t n = model->n;
    model->law = calloc(model->m, sizeof *model->law);
    double *q0 = calloc(2 * n, sizeof *q0), *v0 = q0 ? q0 + n : NULL;
    if (!model->law || !q0) {
        free(q0);
        return pl_fail(err, PL_ERR_NOMEM, "case %s: out of memory for a model of %zu degrees of freedom and %zu "
                       "constraints", c->name, n, model->m);
    }
    s = finish_model(model, q0, v0, err);
    if (s == PL_OK && maybe_sparse(c) && !pl_model_sparse(model)) /* M not diagonal: the dense arrays after all */
        s = pl_model_check_memory(c->name, n, model->m, 0, pl_physical_memory(), err);
    if (s == PL_OK)
        s = check_evaluations(model, q0, v0, err);
    free(q0);
    return s;
}

static int all_finite(const double *x, size_t len)
{
    for (size_t j = 0; j < len; j++)
        if (!isfinite(x[j]))
            return 0;
    return 1;
}

/* The case's candidates at (0, q0) with the run's margin V^2/A, as flags (*listed, m): each index in
 * range, at most m of them.  Checked once against every gap by check_evaluations (O(m)), so that a
 * list that leaves out a near constraint is refused rather than trusted (the run never evaluates what
 * it leaves out). */
static pl_status list_candidates(const pl_model *model, const double *q0, unsigned char **listed, pl_error *err)
{
    const pl_case *c = model->type;
    size_t m = model->m, *out = malloc(m * sizeof *out);
    *listed = calloc(m, 1);
    if (!out || !*listed) {
        free(out);
        return pl_fail(err, PL_ERR_NOMEM, "case %s: out of memory", c->name);
    }
    double margin = model->v_scale * model->v_scale / model->a_scale;
    size_t count = c->candidates(model->par, 0.0, q0, margin, out, c->user);
    pl_status s = PL_OK;
    if (count > m)
        s = pl_fail(err, PL_ERR_INPUT, "case %s: its candidates returned %zu constraints, more than its %zu", c->name,
                    count, m);
    for (size_t e = 0; s == PL_OK && e < count; e++) {
        if (out[e] >= m)
            s = pl_fail(err, PL_ERR_INPUT, "case %s: its candidates list constraint index %zu, beyond its %zu (they "
                        "count from 0)", c->name, out[e], m);
        else
            (*listed)[out[e]] = 1;
    }
    free(out);
    return s;
}

/* The configuration at which M is compared with M(q0) (its independence of q without mass_dq), into x. */
static void other_configuration(const pl_model *model, const double *q0, double *x)
{
    double L = model->a_scale > 0 ? model->v_scale * model->v_scale / model->a_scale : 1.0;
    for (size_t j = 0; j < model->n; j++)
        x[j] = q0[j] + 1e-3 * fmax(fabs(q0[j]), L) * (double)(j % 3 + 1);
}

static const char *const MASS_DEPENDS = "its mass matrix depends on q but it gives no mass_dq (give mass_dq, or "
                                        ".derivatives = PL_DERIVATIVES_NONE)";

/* check_evaluations' test that M does not depend on q, for a sparse model (M(q0) diagonal) in one n x n
 * array M: M(q0)'s diagonal (into diag), then M at another configuration (x: n) against it. */
static pl_status sparse_mass_constant(const pl_model *model, const double *q0, double *M, double *x, double *diag,
                                      pl_error *err)
{
    const pl_case *c = model->type;
    size_t n = model->n;
    if (c->mass_dq || c->derivatives == PL_DERIVATIVES_NONE)
        return PL_OK;
    pl_model_mass(model, q0, M, NULL);
    double mmax = 0.0, change = 0.0;
    for (size_t j = 0; j < n; j++)
        diag[j] = M[j * n + j], mmax = fmax(mmax, fabs(diag[j]));
    other_configuration(model, q0, x);
    memset(M, 0, n * n * sizeof *M);
    c->mass(model->par, x, M, c->user);
    for (size_t j = 0; j < n; j++)
        for (size_t k = 0; k < n; k++)
            change = fmax(change, fabs(M[j * n + k] - (j == k ? diag[j] : 0.0)));
    if (!(change <= 1e-12 * mmax))
        return pl_fail(err, PL_ERR_INPUT, "case %s: %s", c->name, MASS_DEPENDS);
    return PL_OK;
}

/* The case's functions at the initial state (t = 0): finite values and derivatives, a symmetric M
 * (positive definiteness is checked by finish_model), non-negative scales.  What a model compiled
 * apart most often gets wrong, reported before any solver sees it. */
static pl_status check_evaluations(const pl_model *model, const double *q0, const double *v0, pl_error *err)
{
    const pl_case *c = model->type;
    size_t n = model->n, nn = n * n;
    if (model->v_scale < 0 || model->a_scale < 0)
        return pl_fail(err, PL_ERR_INPUT, "case %s: its scales must be >= 0", c->name);
    if (!all_finite(q0, n) || !all_finite(v0, n))
        return pl_fail(err, PL_ERR_INPUT, "case %s: the initial state is not finite", c->name);
    /* The case's M and Jacobians come as n x n arrays (its interface): a sparse model's are checked one
     * after the other in one of them (M at q0 and at another q, then dF_v/dq, then dF_v/dv), transiently;
     * other models' in three. */
    int sparse = pl_model_sparse(model);
    size_t arrays = sparse ? 1 : 3;
    double *buf = malloc((arrays * nn + 2 * n) * sizeof *buf);
    pl_work *w = pl_work_new(model);
    pl_gap *g = pl_gap_new_sparse(1, model, 1);
    unsigned char *listed = NULL;
    pl_status s = PL_OK;
    if (!buf || !w || !g) {
        s = pl_fail(err, PL_ERR_NOMEM, "case %s: out of memory (%zu bytes of n x n arrays to check its functions)",
                    c->name, arrays * nn * sizeof *buf);
        goto done;
    }
    double *M = buf, *a_q = sparse ? buf : buf + nn, *a_v = sparse ? buf : buf + 2 * nn, *a = buf + arrays * nn,
           *diag = a + n;
    if (sparse) { /* M(q0) diagonal, finite and positive (diagonal_mass): only its dependence on q is left */
        if (c->mass && (s = sparse_mass_constant(model, q0, M, a, diag, err)) != PL_OK)
            goto done;
        goto jacobians;
    }
    pl_model_mass(model, q0, M, NULL);
    double mmax = 0.0, asym = 0.0;
    for (size_t j = 0; j < n; j++)
        for (size_t k = 0; k < n; k++)
            mmax = fmax(mmax, fabs(M[j * n + k])), asym = fmax(asym, fabs(M[j * n + k] - M[k * n + j]));
    if (!all_finite(M, nn) || asym > 1e-12 * mmax) {
        s = pl_fail(err, PL_ERR_INPUT, "case %s: the mass matrix at the initial state is not %s", c->name,
                    all_finite(M, nn) ? "symmetric" : "finite");
        goto done;
    }
    if (c->mass && !c->mass_dq && c->derivatives != PL_DERIVATIVES_NONE) {
        /* "M must not depend on q without mass_dq": penlim would keep M(q0) */
        other_configuration(model, q0, a);
        memset(a_q, 0, nn * sizeof *a_q);
        c->mass(model->par, a, a_q, c->user);
        double change = 0.0;
        for (size_t j = 0; j < nn; j++)
            change = fmax(change, fabs(a_q[j] - M[j]));
        if (change > 1e-12 * mmax) {
            s = pl_fail(err, PL_ERR_INPUT, "case %s: %s", c->name, MASS_DEPENDS);
            goto done;
        }
    }
jacobians:
    if (sparse) { /* one array: each Jacobian in turn */
        pl_model_accel(model, w, 0.0, q0, v0, a, a_q, NULL);
        int finite_q = all_finite(a_q, nn);
        pl_model_accel(model, w, 0.0, q0, v0, a, NULL, a_v);
        finite_q = finite_q && all_finite(a_v, nn);
        if (!finite_q)
            for (size_t j = 0; j < nn; j++)
                a_v[j] = NAN;
    } else
        pl_model_accel(model, w, 0.0, q0, v0, a, a_q, a_v);
    if (!all_finite(a, n) || !all_finite(a_q, nn) || !all_finite(a_v, nn)) {
        s = pl_fail(err, PL_ERR_INPUT, "case %s: its %s %s at the initial state is not finite (NaN or inf)", c->name,
                    c->accel ? "acceleration" : "force", all_finite(a, n) ? "Jacobian" : "value");
        goto done;
    }
    if (c->candidates && (s = list_candidates(model, q0, &listed, err)) != PL_OK)
        goto done;
    double margin = model->v_scale * model->v_scale / model->a_scale; /* the run's (neighbours.c) */
    for (size_t i = 0; i < model->m; i++) {
        pl_model_gap_sparse(model, i, 0.0, q0, g); /* its support's entries (all n without one) */
        size_t ns = g->nsupport;
        if (!isfinite(g->g) || !isfinite(g->g_t) || !isfinite(g->g_tt) || !all_finite(g->grad, ns) ||
            !all_finite(g->grad_t, ns) || !all_finite(g->hess, ns * ns)) {
            s = pl_fail(err, PL_ERR_INPUT, "case %s: constraint %zu at the initial state is not finite (NaN or inf)",
                        c->name, i + 1);
            goto done;
        }
        if (listed && g->g < margin && !listed[i]) {
            s = pl_fail(err, PL_ERR_INPUT, "case %s: its candidates at the initial state leave out constraint %zu, "
                        "whose G = %g is below the margin %g", c->name, i + 1, g->g, margin);
            goto done;
        }
    }
done:
    free(listed);
    free(buf);
    pl_work_free(w);
    free(g);
    return s;
}

/* The model's law as a case's law callback sees it. */
static void law_view(const pl_model *model, pl_law *out)
{
    const pl_law_type *t = model->law_type;
    int ik = pl_law_param_index(t, "k"), ix = pl_law_param_index(t, "xi");
    memset(out, 0, sizeof *out);
    out->name = t->name;
    out->nparams = t->nparams;
    for (size_t j = 0; j < t->nparams; j++) {
        out->param_name[j] = t->params[j].name;
        out->param[j] = model->law_par[j];
    }
    out->k = ik >= 0 ? model->law_par[ik] : NAN;
    out->xi = ix >= 0 ? model->law_par[ix] : NAN;
}

/* Constraint i's law from what the case's callback left in v: k and xi from their fields, the others from
 * param; Kelvin-Voigt's e follows from xi (the law's resolve).  Returns 0, or 1 if a value is out of
 * range. */
static int law_from_view(const pl_model *model, const pl_law *v, pl_contact_law *law)
{
    const pl_law_type *t = model->law_type;
    int ik = pl_law_param_index(t, "k"), ix = pl_law_param_index(t, "xi");
    unsigned char set[PL_LAW_MAX_PARAMS] = {0};
    law->type = t;
    for (size_t j = 0; j < t->nparams; j++)
        law->p[j] = v->param[j];
    if (ik >= 0)
        law->p[ik] = v->k;
    if (ix >= 0)
        law->p[ix] = v->xi, set[ix] = 1;
    for (size_t j = 0; j < t->nparams; j++) {
        pl_error ignored;
        if (ix >= 0 && strcmp(t->params[j].name, "e") == 0)
            continue; /* follows from xi */
        if (pl_param_check(&t->params[j], law->p[j], &ignored) != PL_OK)
            return 1;
    }
    if (t->resolve) {
        pl_error ignored;
        if (t->resolve(law->p, set, &ignored) != PL_OK)
            return 1;
    }
    law->k = (t->flags & PL_LAW_PER_UNIT_MASS) && ik >= 0 ? law->p[ik] : NAN;
    law->xi = ix >= 0 ? law->p[ix] : NAN; /* other laws: set from their restitution by finish_laws */
    law->m_ref = 1.0;
    return 0;
}

/* The law of each constraint: the case's law callback (law_at at (0, q0)), or the model's for every one. */
static pl_status set_laws(pl_model *model, const double *q0, pl_error *err)
{
    const pl_case *c = model->type;
    for (size_t i = 0; i < model->m; i++) {
        pl_law v;
        law_view(model, &v);
        if (c->law)
            c->law(model->par, i, &v, c->user);
        else if (c->law_at)
            c->law_at(model->par, i, 0.0, q0, &v, c->user);
        if (law_from_view(model, &v, &model->law[i]))
            return pl_fail(err, PL_ERR_INPUT, "case %s: constraint %zu has a contact law parameter out of range (%s)",
                           c->name, i + 1, model->law_type == &pl_law_kelvin_voigt ? "k <= 0 or xi < 0" :
                           "penlim laws lists the ranges");
    }
    return PL_OK;
}

const pl_contact_law *pl_model_law_at(const pl_model *model, size_t i, double t, const double *q,
                                      pl_contact_law *scratch)
{
    const pl_case *c = model->type;
    if (!c->law_at)
        return &model->law[i];
    pl_law v;
    law_view(model, &v);
    c->law_at(model->par, i, t, q, &v, c->user);
    if (law_from_view(model, &v, scratch))
        for (size_t j = 0; j < PL_LAW_MAX_PARAMS; j++)
            scratch->p[j] = NAN; /* out of range: the force is NAN, and the run stops on it */
    scratch->m_ref = model->law[i].m_ref;
    if (!(model->law_type->flags & PL_LAW_LINEAR))
        scratch->xi = model->law[i].xi;
    return scratch;
}

/* What a law not per unit effective mass and a nonlinear one need besides their parameters: the
 * effective mass at the initial configuration (their scales' m_eff), and the damping ratio of the linear
 * law with their restitution at the model's speed V (what the engine's estimates of settling and of
 * BDF's stability read). */
static pl_status finish_laws(pl_model *model, const double *q0, const double *v0, pl_error *err)
{
    const pl_law_type *t = model->law_type;
    if (t->flags & PL_LAW_LINEAR)
        return PL_OK;
    size_t n = model->n;
    pl_work *w = pl_work_new(model);
    pl_contact *k = pl_contact_new_sparse(1, model, 0);
    double *fp = malloc(n * sizeof *fp);
    pl_status s = PL_OK;
    if (!w || !k || !fp) {
        s = pl_fail(err, PL_ERR_NOMEM, "case %s: out of memory", model->type->name);
    } else {
        double V = model->v_scale > 0 ? model->v_scale : 1.0;
        /* M^{-1}(q0) and the velocity map once, each contact over its support: O(m) for many bodies */
        const double *minv = model->mass_constant ? model->minv : w->c_minv;
        if (!model->mass_constant)
            pl_model_mass(model, q0, NULL, w->c_minv);
        pl_model_velocity_map(model, 0.0, q0, v0, fp, NULL, NULL, NULL);
        for (size_t i = 0; i < model->m; i++) {
            pl_contact_law *law = &model->law[i];
            pl_model_contact_sparse(model, i, 0.0, q0, fp, minv, k);
            law->m_ref = (t->flags & PL_LAW_PER_UNIT_MASS) || !(k->m_eff > 0 && isfinite(k->m_eff)) ? 1.0 : k->m_eff;
            double e = t->restitution ? t->restitution(law->p, V) : NAN;
            if (pl_law_param_index(t, "xi") < 0)
                law->xi = isfinite(e) ? pl_xi_from_restitution(e) : 0.0;
        }
    }
    pl_work_free(w);
    free(k);
    free(fp);
    return s;
}

/* The diagonal of the constant M^{-1} when it has no other non-zero entry: a product with it is then
 * O(n), and w = M^{-1} grad G has grad G's support. */
static pl_status find_diagonal(pl_model *model, pl_error *err)
{
    size_t n = model->n;
    for (size_t j = 0; j < n; j++)
        for (size_t l = 0; l < n; l++)
            if (j != l && model->minv[j * n + l] != 0.0)
                return PL_OK;
    model->minv_diag = malloc(n * sizeof *model->minv_diag);
    if (!model->minv_diag)
        return pl_fail(err, PL_ERR_NOMEM, "case %s: out of memory", model->type->name);
    for (size_t j = 0; j < n; j++)
        model->minv_diag[j] = model->minv[j * n + j];
    return PL_OK;
}

static int diagonal(const double *M, size_t n);

/* A constant M of a case with supports that is diagonal: its inverse's diagonal alone, rounded as
 * pl_model_mass inverts a diagonal M (1 without a mass callback: M = I), and no n x n M^{-1} (the
 * mass callback's M at q0 is the one n x n array, for the call).  Otherwise nothing is set (dense_mass). */
static pl_status diagonal_mass(pl_model *model, const double *q0, pl_error *err)
{
    const pl_case *c = model->type;
    size_t n = model->n;
    double *M = c->mass ? malloc(n * n * sizeof *M) : NULL, *d = malloc(n * sizeof *d);
    if ((c->mass && !M) || !d) {
        free(M), free(d);
        return pl_fail(err, PL_ERR_NOMEM, "case %s: out of memory for its mass matrix (%zu degrees of freedom)",
                       c->name, n);
    }
    if (M)
        pl_model_mass(model, q0, M, NULL);
    int finite = 1, diag = !M || diagonal(M, n), positive = 1;
    for (size_t j = 0; M && j < n * n; j++)
        finite = finite && isfinite(M[j]);
    for (size_t j = 0; j < n; j++) {
        double r = M ? 1.0 / sqrt(M[j * n + j]) : 1.0;
        positive = positive && (!M || M[j * n + j] > 0.0);
        d[j] = r * r;
    }
    free(M);
    if (!finite || !diag || !positive) { /* dense_mass refuses it, or keeps M^{-1} whole */
        free(d);
        return PL_OK;
    }
    model->minv_diag = d;
    model->mass_constant = 1;
    return PL_OK;
}

/* M^{-1} n x n where it is constant (and its diagonal if it has no other entry: find_diagonal), checked
 * positive definite. */
static pl_status dense_mass(pl_model *model, const double *q0, int constant, pl_error *err)
{
    const pl_case *c = model->type;
    size_t n = model->n;
    if (c->mass) {
        size_t nn = model->n * model->n;
        double *M = malloc(nn * sizeof *M);
        if (!M)
            return pl_fail(err, PL_ERR_NOMEM, "case %s: out of memory", c->name);
        pl_model_mass(model, q0, M, NULL);
        int finite_M = 1;
        for (size_t j = 0; j < nn; j++)
            finite_M = finite_M && isfinite(M[j]);
        free(M);
        if (!finite_M)
            return pl_fail(err, PL_ERR_INPUT, "case %s: the mass matrix at the initial state is not finite", c->name);
    }
    if (!(model->minv = calloc(n * n, sizeof *model->minv)))
        return pl_fail(err, PL_ERR_NOMEM, "case %s: out of memory for M^-1 (%zu degrees of freedom)", c->name, n);
    if (pl_model_mass(model, q0, NULL, model->minv))
        return pl_fail(err, PL_ERR_INPUT, "case %s: the mass matrix is not positive definite", c->name);
    /* constant M: keep its inverse (a case without derivatives may have M(q): differenced) */
    if (constant) {
        model->mass_constant = 1;
        return find_diagonal(model, err);
    }
    free(model->minv);
    model->minv = NULL;
    return PL_OK;
}

/* The laws, M^{-1} if constant, the scales, from the initial state (q0, v0: scratch of n each). */
static pl_status finish_model(pl_model *model, double *q0, double *v0, pl_error *err)
{
    const pl_case *c = model->type;
    c->initial_state(model->par, q0, v0, c->user);
    pl_status s = set_laws(model, q0, err);
    if (s != PL_OK)
        return s;
    model->mass_constant = 0; /* factor through the general path first */
    int constant = c->mass_dq == NULL && !(c->mass && c->derivatives == PL_DERIVATIVES_NONE);
    if (constant && model->support && (s = diagonal_mass(model, q0, err)) != PL_OK)
        return s;
    if (!model->minv_diag && (s = dense_mass(model, q0, constant, err)) != PL_OK)
        return s;
    c->scales(model->par, &model->v_scale, &model->a_scale, c->user);
    if ((s = finish_laws(model, q0, v0, err)) != PL_OK)
        return s;
    if (model->v_scale < 0 || model->a_scale < 0)
        return pl_fail(err, PL_ERR_INPUT, "case %s: its scales must be >= 0 (V = %g, A = %g)", c->name,
                       model->v_scale, model->a_scale);
    int finite = isfinite(model->v_scale) && isfinite(model->a_scale) &&
                 isfinite(model->v_scale * model->v_scale) && isfinite(model->a_scale * model->a_scale);
    for (size_t j = 0; j < model->n; j++)
        finite = finite && isfinite(q0[j]) && isfinite(v0[j]) && isfinite(q0[j] * q0[j]) && isfinite(v0[j] * v0[j]);
    if (!finite)
        return pl_fail(err, PL_ERR_INPUT, "case %s: the initial state or the scales are not finite (NaN, or too "
                       "large to represent)", c->name);
    /* Fallbacks so that tolerances stay meaningful when a case has no motion or no force. */
    if (!(model->v_scale > 0) && !(model->a_scale > 0))
        model->v_scale = model->a_scale = 1.0;
    else if (!(model->v_scale > 0))
        model->v_scale = sqrt(model->a_scale);
    else if (!(model->a_scale > 0))
        model->a_scale = model->v_scale * model->v_scale;
    /* Every tolerance is a multiple of V, A, V^2/A or V/A: one that underflows (the cup at v0 = 1e-200,
     * whose A = v0^2 is 0) leaves a zero tolerance and a zero step.  Such parameters are refused. */
    double V = model->v_scale, A = model->a_scale, L = V * V / A, T = V / A;
    if (!isnormal(V) || !isnormal(A) || !isnormal(L) || !isnormal(T))
        return pl_fail(err, PL_ERR_INPUT, "case %s: the parameters give the scales V = %g, A = %g, which with V^2/A "
                       "and V/A are not all normal floating-point numbers (underflow): rescale them", c->name, V, A);
    return PL_OK;
}

/* A case's closed forms are Kelvin-Voigt's (its restitution e, its penetration factor): under another law
 * only the time of the first impact, which no law changes, is kept. */
double pl_model_limit_value(const pl_model *model, pl_limit_quantity what)
{
    if (model->law_type != &pl_law_kelvin_voigt && what != PL_LIMIT_FIRST_IMPACT_TIME)
        return NAN;
    return model->type->limit_value ? model->type->limit_value(model->par, what, model->type->user) : NAN;
}

double pl_model_max_step(const pl_model *model, double t)
{
    double h = model->type->forcing_time ? model->type->forcing_time(model->par, t, model->type->user) : 0.0;
    return h > 0.0 && isfinite(h) ? h : 0.0;
}

double pl_model_time_scale(const pl_model *model)
{
    double h = pl_model_max_step(model, 0.0);
    return h > 0.0 ? h : model->v_scale / model->a_scale;
}

double pl_model_param(const pl_model *model, const char *name)
{
    int idx = pl_param_find(model->type->params, model->type->nparams, name);
    return idx < 0 ? NAN : model->par[idx];
}

void pl_model_initial_state(const pl_model *model, double *q, double *v)
{
    model->type->initial_state(model->par, q, v, model->type->user);
}

void pl_model_velocity_map(const pl_model *model, double t, const double *q, const double *v,
                           double *fp, double *fp_q, double *fp_v, double *fp_t)
{
    size_t n = model->n;
    if (model->type->velocity_map) {
        model->type->velocity_map(model->par, t, q, v, fp, fp_q, fp_v, fp_t, model->type->user);
        return;
    }
    /* loops, not memcpy: this runs in every right-hand side, at a few dofs */
    for (size_t j = 0; j < n; j++)
        fp[j] = v[j];
    if (fp_q)
        for (size_t j = 0; j < n * n; j++)
            fp_q[j] = 0.0;
    if (fp_v)
        for (size_t j = 0; j < n; j++)
            for (size_t l = 0; l < n; l++)
                fp_v[j * n + l] = j == l ? 1.0 : 0.0;
    if (fp_t)
        for (size_t j = 0; j < n; j++)
            fp_t[j] = 0.0;
}

/* y = minv x for the constant mass matrix; y and x are n-vectors with strides sy, sx (in place
 * allowed, through tmp: n). */
static void apply_minv(const pl_model *model, double *tmp, const double *x, size_t sx, double *y, size_t sy)
{
    size_t n = model->n;
    if (model->minv_diag) {
        for (size_t j = 0; j < n; j++)
            y[j * sy] = model->minv_diag[j] * x[j * sx];
        return;
    }
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

/* Whether the n x n matrix M has no non-zero entry off its diagonal. */
static int diagonal(const double *M, size_t n)
{
    for (size_t j = 0; j < n; j++)
        for (size_t l = 0; l < n; l++)
            if (j != l && M[j * n + l] != 0.0)
                return 0;
    return 1;
}

/* accel_from_force for an M(q) that is diagonal at q (the cup: M = I in Cartesian coordinates,
 * diag(1, r^2) in polar ones, given with dM/dq for both): the Cholesky factor's diagonal
 * l_j = M_jj (1/sqrt(M_jj)), each solve x_j / l_j / l_j, M^{-1} = (1/l_j)^2: what GSL's
 * cholesky_decomp1 (its unblocked column scaling), cholesky_svx and cholesky_invert compute on such
 * a matrix, rounding for rounding (a failure where GSL's is: M_jj <= 0), without their generic
 * algebra, which was two thirds of the cup's model evaluation. */
static int accel_diagonal(const pl_model *model, pl_work *w, const double *q, double *L, double *a, double *a_q,
                          double *a_v, double *minv)
{
    size_t n = model->n;
    for (size_t j = 0; j < n; j++) {
        double d = L[j * n + j];
        if (d <= 0.0) {
            fill_nan(a, n), fill_nan(a_q, n * n), fill_nan(a_v, n * n);
            return 1;
        }
        L[j * n + j] = d * (1.0 / sqrt(d));
    }
    for (size_t j = 0; j < n; j++)
        a[j] = a[j] / L[j * n + j] / L[j * n + j];
    for (size_t k = 0; k < n; k++) {
        if (a_v)
            for (size_t j = 0; j < n; j++)
                a_v[j * n + k] = a_v[j * n + k] / L[j * n + j] / L[j * n + j];
        if (a_q) {
            double *dM = w->dM;
            pl_model_mass_dq(model, q, k, dM);
            for (size_t j = 0; j < n; j++) {
                for (size_t l = 0; l < n; l++)
                    a_q[j * n + k] -= dM[j * n + l] * a[l];
                a_q[j * n + k] = a_q[j * n + k] / L[j * n + j] / L[j * n + j];
            }
        }
    }
    if (minv)
        for (size_t j = 0; j < n; j++)
            for (size_t l = 0; l < n; l++) {
                double r = 1.0 / L[j * n + j];
                minv[j * n + l] = j == l ? r * r : -0.0; /* GSL's inverse of a diagonal factor: -0 */
            }
    return 0;
}

/* F_v = M^{-1} f, dF_v/dv = M^{-1} df/dv, dF_v/dq_k = M^{-1} (df/dq_k - dM/dq_k F_v): the force
 * and its Jacobians are written into a, a_q, a_v and solved in place, column by column.  With minv
 * (and M not constant), M^{-1} too, from the same factor (pl_model_accel_minv).  Non-zero if M(q) is
 * not positive definite. */
static int accel_from_force(const pl_model *model, pl_work *w, double t, const double *q, const double *v,
                            const double *u, double *a, double *a_q, double *a_v, double *minv)
{
    const pl_case *c = model->type;
    size_t n = model->n;
    if (c->derivatives == PL_DERIVATIVES_NONE)
        pl_diff_dynamics(model, t, q, v, u, a, a_q, a_v);
    else
        c->force(model->par, t, q, v, u, a, a_q, a_v, c->user);
    if (model->mass_constant) { /* dM/dq = 0 */
        apply_minv(model, w->tmp, a, 1, a, 1);
        for (size_t k = 0; k < n; k++) {
            if (a_q)
                apply_minv(model, w->tmp, a_q + k, n, a_q + k, n);
            if (a_v)
                apply_minv(model, w->tmp, a_v + k, n, a_v + k, n);
        }
        return 0;
    }
    double *L = w->L;
    pl_model_mass(model, q, L, NULL);
    if (diagonal(L, n))
        return accel_diagonal(model, w, q, L, a, a_q, a_v, minv);
    gsl_matrix_view Lm = gsl_matrix_view_array(L, n, n);
    if (gsl_linalg_cholesky_decomp1(&Lm.matrix) != GSL_SUCCESS) {
        fill_nan(a, n), fill_nan(a_q, n * n), fill_nan(a_v, n * n);
        return 1;
    }
    gsl_vector_view av = gsl_vector_view_array(a, n);
    gsl_linalg_cholesky_svx(&Lm.matrix, &av.vector);
    for (size_t k = 0; k < n; k++) {
        if (a_v) {
            gsl_vector_view col = gsl_vector_view_array_with_stride(a_v + k, n, n);
            gsl_linalg_cholesky_svx(&Lm.matrix, &col.vector);
        }
        if (a_q) {
            double *dM = w->dM;
            memset(dM, 0, n * n * sizeof *dM);
            pl_model_mass_dq(model, q, k, dM);
            for (size_t j = 0; j < n; j++)
                for (size_t l = 0; l < n; l++)
                    a_q[j * n + k] -= dM[j * n + l] * a[l];
            gsl_vector_view col = gsl_vector_view_array_with_stride(a_q + k, n, n);
            gsl_linalg_cholesky_svx(&Lm.matrix, &col.vector);
        }
    }
    if (!minv)
        return 0;
    /* pl_model_mass's inverse: the same factor of the same M, inverted */
    memcpy(minv, L, n * n * sizeof *minv);
    gsl_matrix_view A = gsl_matrix_view_array(minv, n, n);
    return gsl_linalg_cholesky_invert(&A.matrix) != GSL_SUCCESS;
}

static const double *case_input(const pl_model *model, double t, double *u)
{
    for (size_t j = 0; j < PL_MAX_INPUTS; j++)
        u[j] = 0.0;
    if (model->type->input)
        model->type->input(model->par, t, u, model->type->user);
    return u;
}

void pl_model_accel(const pl_model *model, pl_work *work, double t, const double *q, const double *v, double *a,
                    double *a_q, double *a_v)
{
    double u[PL_MAX_INPUTS];
    case_input(model, t, u);
    if (model->type->accel && model->type->derivatives == PL_DERIVATIVES_NONE)
        pl_diff_dynamics(model, t, q, v, u, a, a_q, a_v);
    else if (model->type->accel)
        model->type->accel(model->par, t, q, v, u, a, a_q, a_v, model->type->user);
    else
        accel_from_force(model, work, t, q, v, u, a, a_q, a_v, NULL);
}

int pl_model_accel_minv(const pl_model *model, pl_work *work, double t, const double *q, const double *v, double *a,
                        double *minv_store, const double **minv)
{
    if (model->mass_constant) {
        pl_model_accel(model, work, t, q, v, a, NULL, NULL);
        *minv = model->minv;
        return 0;
    }
    *minv = minv_store;
    if (model->type->accel) {
        pl_model_accel(model, work, t, q, v, a, NULL, NULL);
        return pl_model_mass(model, q, NULL, minv_store);
    }
    double u[PL_MAX_INPUTS];
    return accel_from_force(model, work, t, q, v, case_input(model, t, u), a, NULL, NULL, minv_store);
}

void pl_model_gap_sparse(const pl_model *model, size_t i, double t, const double *q, pl_gap *out)
{
    size_t ns;
    const size_t *support = pl_model_support(model, i, &ns);
    double *restrict grad = out->grad, *restrict grad_t = out->grad_t, *restrict hess = out->hess;
    out->g = out->g_t = out->g_tt = 0.0;
    out->support = support;
    out->nsupport = ns;
    for (size_t j = 0; j < ns; j++)
        grad[j] = grad_t[j] = 0.0;
    if (out->keep_hess)
        for (size_t j = 0; j < ns * ns; j++)
            hess[j] = 0.0;
    if (model->type->derivatives == PL_DERIVATIVES_NONE)
        pl_diff_gap(model, i, t, q, out);
    else
        model->type->gap(model->par, i, t, q, out, model->type->user);
}

/* The compressed arrays of gap (its storage of n entries, n x n, zero beyond the compressed ones)
 * spread in place to the coordinates of its support: entry e moves to support[e] >= e, the last
 * first, so that none is overwritten before it moves. */
static void expand_gap(pl_gap *gap, size_t n)
{
    size_t ns = gap->nsupport;
    const size_t *sup = gap->support;
    for (size_t e = ns; e-- > 0;) {
        double x = gap->grad[e], y = gap->grad_t[e];
        gap->grad[e] = gap->grad_t[e] = 0.0;
        gap->grad[sup[e]] = x, gap->grad_t[sup[e]] = y;
    }
    if (gap->keep_hess)
        for (size_t e = ns * ns; e-- > 0;) {
            double x = gap->hess[e];
            gap->hess[e] = 0.0;
            gap->hess[sup[e / ns] * n + sup[e % ns]] = x;
        }
    gap->support = NULL;
    gap->nsupport = n;
}

void pl_model_gap(const pl_model *model, size_t i, double t, const double *q, pl_gap *out)
{
    size_t n = model->n;
    if (model->support) { /* zero beyond the compressed entries, which expand_gap moves there */
        for (size_t j = 0; j < n; j++)
            out->grad[j] = out->grad_t[j] = 0.0;
        if (out->keep_hess)
            for (size_t j = 0; j < n * n; j++)
                out->hess[j] = 0.0;
    }
    pl_model_gap_sparse(model, i, t, q, out);
    if (model->support)
        expand_gap(out, n);
}

void pl_model_mass_dq(const pl_model *model, const double *q, size_t k, double *dM)
{
    const pl_case *c = model->type;
    memset(dM, 0, model->n * model->n * sizeof *dM);
    if (c->derivatives == PL_DERIVATIVES_NONE)
        pl_diff_mass_dq(model, q, k, dM);
    else
        c->mass_dq(model->par, q, k, dM, c->user);
}

/* minv = the constant M^{-1} (a sparse model keeps its diagonal alone). */
static void copy_minv(const pl_model *model, double *minv)
{
    size_t n = model->n;
    if (model->minv) {
        for (size_t j = 0; j < n * n; j++)
            minv[j] = model->minv[j];
        return;
    }
    for (size_t j = 0; j < n; j++)
        for (size_t l = 0; l < n; l++)
            minv[j * n + l] = j == l ? model->minv_diag[j] : 0.0;
}

int pl_model_mass(const pl_model *model, const double *q, double *M, double *minv)
{
    size_t n = model->n;
    if (!M && minv && model->mass_constant) { /* the common case, in every right-hand side */
        copy_minv(model, minv);
        return 0;
    }
    if (!M && !minv)
        return 0;
    double *Mm = M ? M : minv; /* without M, minv holds M until it is factored and inverted in place */
    for (size_t j = 0; j < n * n; j++)
        Mm[j] = 0.0;
    if (model->type->mass)
        model->type->mass(model->par, q, Mm, model->type->user);
    else
        for (size_t j = 0; j < n; j++)
            Mm[j * n + j] = 1.0;
    if (!minv)
        return 0;
    if (!model->type->mass) { /* M = I is its own inverse: no n^3 factorization (24 s at n = 3000) */
        if (Mm != minv)
            memcpy(minv, Mm, n * n * sizeof *minv);
        return 0;
    }
    if (model->mass_constant) {
        copy_minv(model, minv);
        return 0;
    }
    if (Mm != minv)
        memcpy(minv, Mm, n * n * sizeof *minv);
    int diagonal = 1; /* many bodies: M diagonal, inverted entry by entry, not by an n^3 Cholesky (75 s at n = 4000) */
    for (size_t j = 0; j < n && diagonal; j++)
        for (size_t l = 0; l < n && diagonal; l++)
            diagonal = j == l || minv[j * n + l] == 0.0;
    if (diagonal) {
        for (size_t j = 0; j < n; j++) {
            if (!(minv[j * n + j] > 0.0))
                return 1;
            double r = 1.0 / sqrt(minv[j * n + j]); /* as the Cholesky factor's inverse, L^-T L^-1, rounds */
            minv[j * n + j] = r * r;
        }
        return 0;
    }
    gsl_matrix_view A = gsl_matrix_view_array(minv, n, n);
    if (gsl_linalg_cholesky_decomp1(&A.matrix) != GSL_SUCCESS)
        return 1;
    return gsl_linalg_cholesky_invert(&A.matrix) != GSL_SUCCESS;
}

const double *pl_model_minv(const pl_model *model, pl_work *work, const double *q)
{
    if (!work->minv) { /* a sparse model's work has no n x n slot until asked */
        size_t n = model->n;
        if (!(work->minv = malloc(n * n * sizeof *work->minv)))
            return NULL;
        work->own_minv = 1;
    }
    return pl_model_mass(model, q, NULL, work->minv) ? NULL : work->minv;
}

pl_status pl_model_check_admissible(const pl_model *model, const char *why, pl_error *err)
{
    double L = model->v_scale * model->v_scale / model->a_scale;
    double *q = calloc(2 * model->n, sizeof *q);
    pl_gap *g = pl_gap_new_sparse(1, model, 0);
    pl_status s = PL_OK;
    if (!q || !g)
        s = pl_fail(err, PL_ERR_NOMEM, "out of memory checking the initial state");
    else
        pl_model_initial_state(model, q, q + model->n);
    for (size_t i = 0; s == PL_OK && i < model->m; i++) {
        pl_model_gap_sparse(model, i, 0.0, q, g);
        if (g->g < -1e-12 * L)
            s = pl_fail(err, PL_ERR_INPUT, "the initial state violates constraint %zu (G = %g < 0): %s", i + 1, g->g,
                        why);
    }
    free(q);
    free(g);
    return s;
}

double pl_gap_terms(const pl_gap *gap, double t, const double *q, size_t n)
{
    double s = fabs(gap->g_t * t) + fabs(gap->g);
    size_t count = gap->support ? gap->nsupport : n;
    for (size_t e = 0; e < count; e++)
        s += fabs(gap->grad[e] * q[pl_gap_dof(gap, e)]);
    return s;
}

/* Gdot = G_t + grad G . fp over the gap's entries (all n when it is dense). */
static double rate_of(const pl_gap *gap, const double *fp, size_t n)
{
    double gdot = gap->g_t;
    if (!gap->support) {
        for (size_t j = 0; j < n; j++)
            gdot += gap->grad[j] * fp[j];
        return gdot;
    }
    for (size_t e = 0; e < gap->nsupport; e++)
        gdot += gap->grad[e] * fp[gap->support[e]];
    return gdot;
}

double pl_model_gap_rate(const pl_model *model, size_t i, double t, const double *q, const double *fp,
                         pl_gap *gap)
{
    pl_model_gap(model, i, t, q, gap);
    return rate_of(gap, fp, model->n);
}

double pl_model_gap_rate_sparse(const pl_model *model, size_t i, double t, const double *q, const double *fp,
                                pl_gap *gap)
{
    pl_model_gap_sparse(model, i, t, q, gap);
    return rate_of(gap, fp, model->n);
}

double pl_gap_rate_dense_zero(const pl_gap *gap, const double *fp, size_t n, double gdot)
{
    if (gdot != 0.0 || !signbit(gdot) || !gap->support)
        return gdot;
    for (size_t j = 0, e = 0; j < n; j++) {
        if (e < gap->nsupport && gap->support[e] == j) {
            e++;
            continue;
        }
        if (!signbit(fp[j]))
            return 0.0;
    }
    return gdot;
}

void pl_model_contact_at(const pl_model *model, pl_work *work, size_t i, double t, const double *q, const double *fp,
                         pl_contact *c)
{
    if (model->mass_constant) { /* its own inverse, not a copy (n^2 per call) */
        pl_model_contact(model, i, t, q, fp, model->minv, c);
        return;
    }
    pl_model_mass(model, q, NULL, work->c_minv);
    pl_model_contact(model, i, t, q, fp, work->c_minv, c);
}

void pl_model_contact(const pl_model *model, size_t i, double t, const double *q, const double *fp,
                      const double *minv, pl_contact *c)
{
    size_t n = model->n;
    c->gdot = pl_model_gap_rate(model, i, t, q, fp, &c->gap);
    const double *restrict grad = c->gap.grad; /* no overlap with w or minv (restrict: see penalized.c) */
    double gw = 0.0, *restrict w = c->w;
    if (!minv) { /* a sparse model's M^{-1}, its diagonal: the dense product's sums, whose zeros add nothing */
        const double *d = model->minv_diag;
        for (size_t j = 0; j < n; j++)
            w[j] = grad[j] != 0.0 ? d[j] * grad[j] : 0.0;
        for (size_t j = 0; j < n; j++)
            gw += grad[j] * w[j];
        c->m_eff = 1.0 / gw;
        c->w_support = NULL;
        c->nw = n;
        return;
    }
    /* w = M^{-1} grad column by column over the non-zero entries of grad only, each w_j summed in
     * the same order as the dense product (the zeros add nothing): a constraint between two of many
     * bodies touches a few coordinates, and the dense product, n^2 per active contact and
     * right-hand side, was the largest cost of a penalized run of 12 disks (n = 24). */
    for (size_t j = 0; j < n; j++)
        w[j] = 0.0;
    for (size_t k = 0; k < n; k++)
        if (grad[k] != 0.0)
            for (size_t j = 0; j < n; j++)
                w[j] += minv[j * n + k] * grad[k];
    for (size_t j = 0; j < n; j++)
        gw += grad[j] * w[j];
    c->m_eff = 1.0 / gw;
    c->w_support = NULL;
    c->nw = n;
}

void pl_model_contact_sparse(const pl_model *model, size_t i, double t, const double *q, const double *fp,
                             const double *minv, pl_contact *c)
{
    if (!model->support) {
        pl_model_contact(model, i, t, q, fp, minv, c);
        return;
    }
    size_t n = model->n;
    c->gdot = pl_model_gap_rate_sparse(model, i, t, q, fp, &c->gap);
    const pl_gap *g = &c->gap;
    size_t ns = g->nsupport;
    double gw = 0.0;
    if (model->minv_diag) { /* w on the support */
        for (size_t e = 0; e < ns; e++) {
            c->w[e] = model->minv_diag[g->support[e]] * g->grad[e];
            gw += g->grad[e] * c->w[e];
        }
        c->w_support = g->support;
        c->nw = ns;
    } else { /* w = sum_e M^{-1}[:, support[e]] grad_e: dense */
        for (size_t j = 0; j < n; j++)
            c->w[j] = 0.0;
        for (size_t e = 0; e < ns; e++)
            for (size_t j = 0; j < n; j++)
                c->w[j] += minv[j * n + g->support[e]] * g->grad[e];
        for (size_t e = 0; e < ns; e++)
            gw += g->grad[e] * c->w[g->support[e]];
        c->w_support = NULL;
        c->nw = n;
    }
    c->m_eff = 1.0 / gw;
}

size_t pl_model_contact_coupling(const pl_model *model, pl_work *work, double t, const double *q, const double *v,
                                 const int *set, pl_contact_set *cs, int want_wq)
{
    size_t n = model->n, k = 0, *idx = cs->idx;
    pl_contact *c = cs->c;
    int identity = model->type->velocity_map == NULL;
    double *minv = work->k_minv, *fp = work->k_fp, *fp_v = work->k_fp_v, *W, *Wq;
    if (minv) /* a sparse model's is its diagonal (pl_model_contact with NULL) */
        pl_model_mass(model, q, NULL, minv);
    pl_model_velocity_map(model, t, q, v, fp, NULL, identity ? NULL : fp_v, NULL);
    for (size_t i = 0; i < model->m; i++)
        if (set[i]) {
            pl_model_contact(model, i, t, q, fp, minv, &c[k]);
            idx[k++] = i;
        }
    cs->k = k;
    W = cs->W;
    Wq = want_wq ? cs->Wq : NULL;
    /* The products grad_a . x over the non-zero entries of grad_a, in the order of the dense sum (the
     * zeros add nothing): a constraint between two of many bodies touches a few coordinates, and the
     * dense products, k^2 n, dominated the analysis of 100 balls (with dF_p/dv = I, fw = w_b exactly). */
    size_t *nz = cs->nz, *nz_start = cs->nz_start, count = 0;
    for (size_t a = 0; a < k; a++) {
        nz_start[a] = count;
        for (size_t j = 0; j < n; j++)
            if (c[a].gap.grad[j] != 0.0)
                nz[count++] = j;
    }
    nz_start[k] = count;
    for (size_t b = 0; b < k; b++) {
        const double *fw = c[b].w; /* (dF_p/dv) w_b: how q' responds to a velocity change along w_b */
        if (!identity) {
            double *prod = work->k_fw;
            for (size_t j = 0; j < n; j++) {
                prod[j] = 0.0;
                for (size_t l = 0; l < n; l++)
                    prod[j] += fp_v[j * n + l] * c[b].w[l];
            }
            fw = prod;
        }
        for (size_t a = 0; a < k; a++) {
            double x = 0.0, y = 0.0;
            for (size_t e = nz_start[a]; e < nz_start[a + 1]; e++) {
                size_t j = nz[e];
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

/* D_i from the velocity map and the free acceleration a at (t, q, v), computed once for several
 * constraints (pl_model_free_gap_accels); fp_q, fp_v, fp_t NULL for the identity map (dF_p/dv = I, the
 * rest 0: qdd = a exactly, and the Hessian's rows and columns at zero velocity add nothing). */
static double free_gap_accel_at(const pl_model *model, size_t i, double t, const double *q, const double *fp,
                                const double *fp_q, const double *fp_v, const double *fp_t, const double *a, pl_gap *g)
{
    size_t n = model->n;
    if (!fp_v && model->support) { /* over the support: g's storage is n wide, its Hessian n x n */
        pl_model_gap_sparse(model, i, t, q, g);
        size_t ns = g->nsupport;
        const size_t *sup = g->support;
        double D = g->g_tt;
        for (size_t e = 0; e < ns; e++) {
            size_t j = sup[e];
            double Hf = 0.0;
            for (size_t k = 0; k < ns; k++)
                Hf += g->hess[e * ns + k] * fp[sup[k]];
            D += fp[j] * Hf + 2.0 * g->grad_t[e] * fp[j] + g->grad[e] * a[j];
        }
        return D;
    }
    pl_model_gap(model, i, t, q, g);
    /* D = F_p' H F_p + 2 grad_t . F_p + G_tt + grad . (dF_p/dq F_p + dF_p/dv F_v + dF_p/dt) */
    double D = g->g_tt;
    for (size_t j = 0; j < n; j++) {
        double Hf = 0.0, qdd;
        if (fp_v) {
            qdd = fp_t[j];
            for (size_t k = 0; k < n; k++) {
                Hf += g->hess[j * n + k] * fp[k];
                qdd += fp_q[j * n + k] * fp[k] + fp_v[j * n + k] * a[k];
            }
        } else {
            qdd = a[j];
            if (fp[j] != 0.0)
                for (size_t k = 0; k < n; k++)
                    if (fp[k] != 0.0)
                        Hf += g->hess[j * n + k] * fp[k];
        }
        D += fp[j] * Hf + 2.0 * g->grad_t[j] * fp[j] + g->grad[j] * qdd;
    }
    return D;
}

void pl_model_free_gap_accels(const pl_model *model, pl_work *work, double t, const double *q, const double *v,
                              const size_t *idx, size_t k, double *D)
{
    int identity = model->type->velocity_map == NULL;
    double *fp = work->d_fp, *fp_q = work->d_fp_q, *fp_v = work->d_fp_v, *fp_t = work->d_fp_t, *a = work->d_a;
    pl_model_velocity_map(model, t, q, v, fp, identity ? NULL : fp_q, identity ? NULL : fp_v, identity ? NULL : fp_t);
    pl_model_accel(model, work, t, q, v, a, NULL, NULL);
    for (size_t c = 0; c < k; c++)
        D[c] = free_gap_accel_at(model, idx[c], t, q, fp, identity ? NULL : fp_q, identity ? NULL : fp_v,
                                 identity ? NULL : fp_t, a, work->d_gap);
}

double pl_model_free_gap_accel(const pl_model *model, pl_work *work, size_t i, double t, const double *q,
                               const double *v)
{
    double D;
    pl_model_free_gap_accels(model, work, t, q, v, &i, 1, &D);
    return D;
}

void pl_model_initial_activity(const pl_model *model, pl_work *work, double t, const double *q, const double *v,
                               int *active)
{
    double *fp = work->i_fp;
    pl_gap *g = work->i_gap;
    pl_model_velocity_map(model, t, q, v, fp, NULL, NULL, NULL); /* once: m x O(n) was the set-up of many bodies */
    for (size_t i = 0; i < model->m; i++) {
        double gdot = pl_model_gap_rate_sparse(model, i, t, q, fp, g); /* over the support */
        if (g->g != 0)
            active[i] = g->g < 0;
        else if (gdot != 0)
            active[i] = gdot < 0;
        else
            active[i] = pl_model_free_gap_accel(model, work, i, t, q, v) <= 0;
    }
}

int pl_model_parameter_applies(const pl_model *model, size_t k)
{
    const pl_param_spec *spec = &model->type->params[k];
    return !(spec->flags & PL_PARAM_LAW) || pl_law_param_index(model->law_type, spec->name) >= 0;
}
