#include "study/compare_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/external.h"
#include "io/outdir.h"

/* A new item of the solver, its entry empty: its index, or -1 if out of memory. */
static long add_item(pl_compare_set *l, const pl_solver_type *solver)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        pl_comparison_item *p = realloc(l->item, cap * sizeof *p);
        if (p)
            l->item = p;
        pl_compare_entry *e = p ? realloc(l->e, cap * sizeof *e) : NULL;
        if (e)
            l->e = e;
        char **f = e ? realloc(l->file, cap * sizeof *f) : NULL;
        if (!f)
            return -1;
        l->file = f;
        l->cap = cap;
    }
    pl_comparison_item_init(&l->item[l->n], solver);
    memset(&l->e[l->n], 0, sizeof l->e[l->n]);
    l->file[l->n] = NULL;
    return (long)l->n++;
}

void pl_compare_set_free(pl_compare_set *l)
{
    for (size_t k = 0; k < l->n; k++) {
        pl_comparison_item_free(&l->item[k]);
        free(l->file[k]);
    }
    free(l->item);
    free(l->e);
    free(l->file);
    if (l->ran)
        pl_comparison_free(&l->c);
    memset(l, 0, sizeof *l);
}

static pl_status no_memory(pl_error *err)
{
    return pl_fail(err, PL_ERR_NOMEM, "out of memory planning the solutions");
}

/* Add a penalized run (mu) or a scheme's run (h), checked as a run is.  quiet_skip: a default value
 * outside the range of this case and t-end is left out (PL_OK, *added 0). */
static pl_status add_solve(pl_compare_set *l, const pl_model *model, const pl_solve_opts *penalty,
                           const pl_solver_type *solver, double value, int quiet_skip, pl_error *err)
{
    pl_solve_opts opts;
    const char *name = solver->refine;
    if (solver == &pl_solver_penalty)
        opts = *penalty;
    else {
        pl_solve_opts_init(&opts, solver, model, penalty->t_end);
        opts.max_steps = penalty->max_steps;
        opts.max_seconds = penalty->max_seconds;
        opts.max_output = penalty->max_output;
        opts.contacts = penalty->contacts;
        opts.cancel = penalty->cancel;
        opts.cancel_user = penalty->cancel_user;
    }
    int idx = pl_solver_option_index(solver, name);
    opts.option[idx] = value;
    pl_error why;
    if (pl_param_check(&solver->options[idx], value, &why) != PL_OK || pl_solve_check(solver, model, &opts, &why) != PL_OK) {
        if (quiet_skip)
            return PL_OK;
        if (err)
            *err = why;
        return why.status == PL_OK ? PL_ERR_INPUT : why.status;
    }
    long k = add_item(l, solver);
    if (k < 0)
        return no_memory(err);
    l->item[k].opts = opts;
    l->e[k].param_name = name;
    l->e[k].param = value;
    return PL_OK;
}

static const pl_solver_type *scheme_named(const char *name)
{
    const pl_solver_type *s = name ? pl_solver_find(name) : NULL;
    return s && s->family == PL_FAMILY_SCHEME ? s : NULL;
}

static pl_status add_defaults(pl_compare_set *l, const pl_model *model, const pl_solve_opts *penalty,
                              const pl_solver_type *s, int work_precision, pl_error *err)
{
    double v[PL_COMPARISON_MAX_DEFAULTS];
    size_t nv = pl_comparison_defaults(s, model, penalty->t_end, work_precision, v);
    pl_status st = PL_OK;
    for (size_t j = 0; st == PL_OK && j < nv; j++)
        st = add_solve(l, model, penalty, s, v[j], 1, err);
    return st;
}

pl_status pl_compare_plan(pl_compare_set *l, const pl_model *model, const pl_solve_opts *penalty,
                          const pl_compare_spec *spec, size_t nspec, int work_precision, pl_error *err)
{
    pl_error why;
    pl_status st = PL_OK;
    int any_mu = 0, any_scheme = 0;
    if (nspec && !spec)
        return pl_fail(err, PL_ERR_INPUT, "compare: the solutions are missing (specs NULL)");
    for (size_t k = 0; k < nspec; k++) {
        any_mu |= spec[k].kind == PL_COMPARE_MU;
        any_scheme |= spec[k].kind == PL_COMPARE_SCHEME;
    }
    for (size_t k = 0; st == PL_OK && k < nspec; k++) {
        const pl_compare_spec *sp = &spec[k];
        if (sp->kind == PL_COMPARE_MU && !work_precision)
            st = add_solve(l, model, penalty, &pl_solver_penalty, sp->value, 0, err);
        else if (sp->kind == PL_COMPARE_SCHEME) {
            const pl_solver_type *s = scheme_named(sp->name);
            if (!s) {
                char name[256];
                pl_escape(sp->name ? sp->name : "(NULL)", name, sizeof name);
                return pl_fail(err, PL_ERR_INPUT, "unknown scheme '%s' (schemes: moreau_jean, paoli, maury)", name);
            }
            if (s->applies && s->applies(model, &why) != PL_OK) {
                if (err)
                    *err = why;
                return why.status == PL_OK ? PL_ERR_INPUT : why.status;
            }
            size_t given = 0;
            for (size_t j = k + 1; st == PL_OK && j < nspec && spec[j].kind == PL_COMPARE_H; j++, given++) {
                if (work_precision)
                    return pl_fail(err, PL_ERR_INPUT, "h = %g: work-precision takes each scheme's 7 default h",
                                   spec[j].value);
                st = add_solve(l, model, penalty, s, spec[j].value, 0, err);
            }
            if (st == PL_OK && !given)
                st = add_defaults(l, model, penalty, s, work_precision, err);
        } else if (sp->kind == PL_COMPARE_H) {
            if (k == 0 || (spec[k - 1].kind != PL_COMPARE_SCHEME && spec[k - 1].kind != PL_COMPARE_H))
                return pl_fail(err, PL_ERR_INPUT, "h = %g: a time step follows the scheme it is for", sp->value);
        } else if (sp->kind == PL_COMPARE_EXTERNAL) {
            if (!sp->name)
                return pl_fail(err, PL_ERR_INPUT, "an external solution without its file (name NULL)");
            long j = add_item(l, &pl_solver_external);
            if (j < 0 || !(l->file[j] = strdup(sp->name)))
                return no_memory(err);
            pl_comparison_item *it = &l->item[j];
            pl_solution_free(&it->sol);
            l->e[j].param_name = "file";
            l->e[j].param = NAN;
            l->e[j].file = l->file[j];
            st = pl_read_external(sp->name, model, penalty->t_end, penalty->contacts, &it->sol, &it->has_gamma, err);
        } else if (sp->kind != PL_COMPARE_MU)
            return pl_fail(err, PL_ERR_INPUT, "compare: unknown kind %d of solution", (int)sp->kind);
    }
    if (st != PL_OK)
        return st;
    /* The penalty's values: the sweep's grid when refining, the three defaults without solutions. */
    if ((work_precision && (any_mu || !any_scheme)) || (!work_precision && nspec == 0))
        st = add_defaults(l, model, penalty, &pl_solver_penalty, work_precision, err);
    if (nspec == 0 || (work_precision && !any_scheme && !any_mu))
        for (size_t k = 0; st == PL_OK && k < pl_solver_count(); k++) {
            const pl_solver_type *s = pl_solver_at(k);
            if (s->family != PL_FAMILY_SCHEME || (s->applies && s->applies(model, &why) != PL_OK))
                continue;
            st = add_defaults(l, model, penalty, s, work_precision, err);
        }
    for (size_t k = 0; k < l->n; k++) {
        l->item[k].sol.solver = l->item[k].solver; /* named before it is solved */
        l->e[k].sol = &l->item[k].sol;
        pl_compare_entry_name(&l->e[k], k);
    }
    if (st == PL_OK) {
        pl_limit_opts(model, penalty, 0, &l->limit);
        st = pl_solve_check(&pl_solver_limit, model, &l->limit, err);
    }
    return st;
}

pl_status pl_compare_set_run(pl_compare_set *l, const pl_model *model, pl_comparison_opts *opts, pl_error *err)
{
    opts->limit = l->limit;
    pl_status s = pl_comparison_run(model, l->item, l->n, opts, &l->c, err);
    l->ran = 1;
    for (size_t k = 0; k < l->n; k++) {
        pl_comparison_item *it = &l->item[k];
        l->e[k].sol = &it->sol;
        l->e[k].analysis = &it->analysis;
        l->e[k].match = &it->match;
        l->e[k].compared = it->compared;
        l->e[k].res = it->res;
    }
    return s;
}

pl_status pl_compare_set_write(pl_compare_set *l, pl_output *out, const pl_model *model, double max_seconds,
                               pl_error *stopped)
{
    pl_error limit_files = {PL_OK, ""};
    pl_solution *limit = &l->c.limit;
    pl_status s = pl_write_compare(out, model, limit, &l->c.limit_analysis, &limit_files, l->e, l->n, l->c.fam,
                                   l->c.nfam, max_seconds, stopped);
    if (limit_files.status != PL_OK && limit->status == PL_OK) { /* reported as the tables report it */
        limit->status = limit_files.status;
        limit->error = limit_files;
        l->c.failures++;
    }
    for (size_t k = 0; k < l->n; k++)
        if (l->e[k].files.status != PL_OK && l->item[k].sol.status == PL_OK) {
            l->item[k].sol.status = l->e[k].files.status;
            l->item[k].sol.error = l->e[k].files;
            l->c.failures++;
        }
    return s;
}

json_t *pl_manifest_model_identity(json_t *manifest, const pl_model *model, const char *file, const char *hash)
{
    json_t *j = json_object();
    PL_JSON_SET(j, "file", file ? json_string(file) : json_null());
    PL_JSON_SET(j, "content_hash", file && hash ? json_string(hash) : json_null());
    PL_JSON_SET(j, "derivatives", json_string(model->type->derivatives == PL_DERIVATIVES_NONE ? "difference quotients"
                                                                                              : "given"));
    return PL_JSON_SET(manifest, "model", j);
}

json_t *pl_compare_manifest(const pl_compare_set *l, const pl_model *model, const char *file, const char *hash)
{
    json_t *m = pl_manifest_new("compare", model, &pl_solver_limit, &l->limit, NULL);
    return m ? pl_manifest_model_identity(m, model, file, hash) : NULL;
}
