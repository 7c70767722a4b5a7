#include "study/study.h"

#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/linalg.h"
#include "core/number.h"
#include "core/params.h"
#include "io/report.h"
#include "io/sweep_report.h"

/* ---- axes ------------------------------------------------------------------------------------ */

/* "a,b,c", "A:B:N" (geometric for mu, h, rtol; linear otherwise) or "lin:A:B:N"; finite values, at
 * most PL_STUDY_MAX_RUNS of them, distinct unless repeats (--zip pairs them: a value may recur). */
static pl_status parse_values(const char *text, const char *name, int geometric, int repeats, double **values,
                              size_t *n, pl_error *err)
{
    *values = NULL;
    *n = 0;
    char what[96];
    snprintf(what, sizeof what, "--grid %s", name);
    if (!*text)
        return pl_fail(err, PL_ERR_INPUT, "%s: no values", what);
    int linear = strncmp(text, "lin:", 4) == 0;
    const char *body = linear ? text + 4 : text;
    pl_status s;
    double *v;
    size_t count = 0;
    if (strchr(body, ':')) {
        const char *c1 = strchr(body, ':'), *c2 = strchr(c1 + 1, ':');
        if (!c2 || strchr(c2 + 1, ':'))
            return pl_fail(err, PL_ERR_INPUT, "%s: expected a,b,c or A:B:N or lin:A:B:N, got '%.200s'", what, text);
        char a_text[64], b_text[64];
        if (c1 - body >= (long)sizeof a_text || c2 - c1 - 1 >= (long)sizeof b_text)
            return pl_fail(err, PL_ERR_INPUT, "%s: '%.200s' is not A:B:N", what, text);
        snprintf(a_text, sizeof a_text, "%.*s", (int)(c1 - body), body);
        snprintf(b_text, sizeof b_text, "%.*s", (int)(c2 - c1 - 1), c1 + 1);
        double a, b;
        long k;
        if ((s = pl_parse_double(a_text, &a, err, what)) != PL_OK || (s = pl_parse_double(b_text, &b, err, what)) != PL_OK ||
            (s = pl_parse_long(c2 + 1, &k, err, what)) != PL_OK)
            return s;
        if (k < 1 || (k == 1 && a != b))
            return pl_fail(err, PL_ERR_INPUT, "%s: the count N of A:B:N must be >= 1 (2 or more when A != B)", what);
        if (k > PL_STUDY_MAX_RUNS)
            return pl_fail(err, PL_ERR_INPUT, "%s: %ld values: more than %d points", what, k, PL_STUDY_MAX_RUNS);
        if (geometric && !linear && (!(a > 0) || !(b > 0)))
            return pl_fail(err, PL_ERR_INPUT, "%s: A:B:N is geometric for %s: A and B must be > 0 (lin:A:B:N for "
                           "linear spacing)", what, name);
        if (!(v = malloc((size_t)k * sizeof *v)))
            return pl_fail(err, PL_ERR_NOMEM, "out of memory for %ld values", k);
        if (geometric && !linear)
            pl_grid_geometric(a, b, k, v);
        else /* (A (N-1-j) + B j)/(N-1) to 15 significant digits inside the range: the decimals a decimal
              * range means (-0.01, not -0.009999999999999998), the ends exactly as given */
            for (long j = 0; j < k; j++) {
                v[j] = k == 1 || j == 0 ? a : j == k - 1 ? b : (a * (double)(k - 1 - j) + b * (double)j) / (double)(k - 1);
                char digits[32];
                if (j > 0 && j < k - 1 && isfinite(v[j])) {
                    snprintf(digits, sizeof digits, "%.15g", v[j]);
                    v[j] = strtod(digits, NULL);
                }
            }
        count = (size_t)k;
        for (size_t j = 0; j < count; j++)
            if (!isfinite(v[j])) {
                free(v);
                return pl_fail(err, PL_ERR_INPUT, "%s: '%.200s' gives a non-finite value", what, text);
            }
    } else {
        size_t cap = 1;
        for (const char *p = text; *p; p++)
            cap += *p == ',';
        if (cap > PL_STUDY_MAX_RUNS)
            return pl_fail(err, PL_ERR_INPUT, "%s: more than %d values", what, PL_STUDY_MAX_RUNS);
        if (!(v = malloc(cap * sizeof *v)))
            return pl_fail(err, PL_ERR_NOMEM, "out of memory for %zu values", cap);
        const char *p = text;
        for (;;) {
            const char *comma = strchr(p, ',');
            size_t len = comma ? (size_t)(comma - p) : strlen(p);
            char tok[64];
            if (len >= sizeof tok) {
                free(v);
                return pl_fail(err, PL_ERR_INPUT, "%s: '%.60s...' is not a number", what, p);
            }
            memcpy(tok, p, len);
            tok[len] = '\0';
            if ((s = pl_parse_double(tok, &v[count], err, what)) != PL_OK) {
                free(v);
                return s;
            }
            count++;
            if (!comma)
                break;
            p = comma + 1;
        }
    }
    double *sorted = malloc(count * sizeof *sorted);
    if (!sorted) {
        free(v);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for %zu values", count);
    }
    memcpy(sorted, v, count * sizeof *v);
    qsort(sorted, count, sizeof *sorted, pl_compare_doubles);
    for (size_t j = 1; !repeats && j < count; j++)
        if (sorted[j] == sorted[j - 1]) {
            double repeated = sorted[j];
            free(sorted);
            free(v);
            char text[PL_NUMBER_LEN];
            pl_format_double(repeated, text, sizeof text);
            return pl_fail(err, PL_ERR_INPUT, "%s: the value %s is repeated", what, text);
        }
    free(sorted);
    *values = v;
    *n = count;
    return PL_OK;
}

static const char *axis_kind_name(pl_axis_kind k)
{
    switch (k) {
    case PL_AXIS_MU: return "mu";
    case PL_AXIS_H: return "h";
    case PL_AXIS_RTOL: return "rtol";
    default: return NULL;
    }
}

/* What NAME is an axis of: the case, the law, the solver (mu, h, rtol) or t-end. */
static pl_status classify(const pl_study_spec *sp, const pl_law_type *law, const char *name, pl_axis_kind *kind,
                          pl_error *err)
{
    const pl_solver_type *sv = sp->solver;
    if (strcmp(name, "t-end") == 0 || strcmp(name, "t_end") == 0) {
        *kind = PL_AXIS_T_END;
        return PL_OK;
    }
    if (strcmp(name, "mu") == 0 || strcmp(name, "h") == 0 || strcmp(name, "rtol") == 0) {
        *kind = name[0] == 'm' ? PL_AXIS_MU : name[0] == 'h' ? PL_AXIS_H : PL_AXIS_RTOL;
        if (pl_solver_option_index(sv, name) < 0)
            return pl_fail(err, PL_ERR_INPUT, "--grid %s: the %s solver has no option %s%s", name, sv->name, name,
                           *kind == PL_AXIS_H ? " (a step h needs --scheme)"
                           : *kind == PL_AXIS_MU ? " (mu is the penalty's: drop --scheme)" : "");
        return PL_OK;
    }
    if (pl_law_param_index(law, name) >= 0) {
        *kind = PL_AXIS_LAW;
        return PL_OK;
    }
    int p = pl_param_find(sp->c->params, sp->c->nparams, name);
    if (p >= 0 && !(sp->c->params[p].flags & PL_PARAM_LAW)) {
        *kind = PL_AXIS_CASE;
        return PL_OK;
    }
    return pl_fail(err, PL_ERR_INPUT, "--grid %.63s: not a parameter of case %s nor of the law %s, nor mu, h, rtol or "
                   "t-end", name, sp->c->name, law->name);
}

/* ---- the runs' parameters -------------------------------------------------------------------- */

static size_t value_index(const pl_study *st, size_t a, size_t r)
{
    if (st->spec.zip)
        return r;
    size_t stride = 1;
    for (size_t b = st->naxes; b-- > a + 1;)
        stride *= st->axes[b].n;
    return (r / stride) % st->axes[a].n;
}

double pl_study_value(const pl_study *st, size_t a, size_t r)
{
    return st->axes[a].values[value_index(st, a, r)];
}

static int is_limit_axis(pl_axis_kind k);

static int same_limit_key(const pl_study *st, size_t r, size_t q)
{
    for (size_t a = 0; a < st->naxes; a++)
        if (is_limit_axis(st->axes[a].kind) && pl_study_value(st, a, r) != pl_study_value(st, a, q))
            return 0;
    return 1;
}

/* Zipped runs: the index of each run's limit solution, one per distinct tuple of the case, law and
 * t-end values, numbered in the order they first occur (a hash table over the tuples). */
static pl_status zip_limits(const pl_study *st, size_t nruns, size_t **limit, pl_error *err)
{
    size_t cap = 16;
    while (cap < 2 * nruns)
        cap *= 2;
    size_t *table = malloc(cap * sizeof *table), *id = malloc(nruns * sizeof *id);
    if (!table || !id) {
        free(table);
        free(id);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for %zu runs", nruns);
    }
    for (size_t k = 0; k < cap; k++)
        table[k] = SIZE_MAX;
    size_t next = 0;
    for (size_t r = 0; r < nruns; r++) {
        uint64_t h = 1469598103934665603ull; /* FNV-1a over the values' bits */
        for (size_t a = 0; a < st->naxes; a++)
            if (is_limit_axis(st->axes[a].kind)) {
                double v = pl_study_value(st, a, r) + 0.0; /* -0 and 0 alike */
                unsigned char bytes[sizeof v];
                memcpy(bytes, &v, sizeof v);
                for (size_t b = 0; b < sizeof v; b++)
                    h = (h ^ bytes[b]) * 1099511628211ull;
            }
        size_t k = (size_t)h & (cap - 1);
        while (table[k] != SIZE_MAX && !same_limit_key(st, table[k], r))
            k = (k + 1) & (cap - 1);
        if (table[k] == SIZE_MAX) {
            table[k] = r;
            id[r] = next++;
        } else
            id[r] = id[table[k]];
    }
    free(table);
    *limit = id;
    return PL_OK;
}

/* The settings of run r (the spec's, then its case and law axes: the last one wins), or with axis
 * `at` at its value j and every other at its first (run r = SIZE_MAX). */
static size_t run_settings(const pl_study *st, size_t r, size_t at, size_t j, pl_setting *set)
{
    size_t n = 0;
    for (size_t k = 0; k < st->spec.nsettings; k++)
        set[n++] = st->spec.settings[k];
    for (size_t a = 0; a < st->naxes; a++) {
        if (st->axes[a].kind != PL_AXIS_CASE && st->axes[a].kind != PL_AXIS_LAW)
            continue;
        snprintf(set[n].name, sizeof set[n].name, "%s", st->axes[a].name);
        set[n++].value = r != SIZE_MAX ? pl_study_value(st, a, r) : st->axes[a].values[a == at ? j : 0];
    }
    return n;
}

static pl_status run_model(const pl_study *st, size_t r, size_t at, size_t j, pl_model *model, pl_error *err)
{
    pl_setting *set = malloc((st->spec.nsettings + st->naxes + 1) * sizeof *set);
    if (!set)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    size_t n = run_settings(st, r, at, j, set);
    pl_status s = pl_model_init_law(model, st->spec.c, st->spec.law, set, n, err);
    free(set);
    return s;
}

/* The solve options before the axes: the case's defaults for the model, the spec's caps and
 * options, at t_end (NAN: the case's). */
static pl_status spec_opts(const pl_study *st, const pl_model *model, double t_end, pl_solve_opts *o, pl_error *err)
{
    const pl_study_spec *sp = &st->spec;
    pl_solve_opts_init(o, st->solver, model, t_end);
    o->max_steps = sp->max_steps;
    o->max_seconds = sp->max_seconds;
    o->max_output = sp->max_output;
    o->contacts = sp->contacts;
    o->cancel = sp->cancel; /* a task under way stops at its next step, as a sweep's runs do */
    o->cancel_user = sp->user;
    if (sp->samples != SIZE_MAX)
        o->samples = sp->samples;
    pl_status s = PL_OK;
    for (size_t k = 0; s == PL_OK && k < sp->noptions; k++)
        s = pl_solve_opts_set(o, st->solver, sp->options[k].name, sp->options[k].value, err);
    return s;
}

pl_status pl_study_base(const pl_study *st, pl_model *model, pl_solve_opts *o, pl_error *err)
{
    const pl_study_spec *sp = &st->spec;
    pl_status s = pl_model_init_law(model, sp->c, sp->law, sp->settings, sp->nsettings, err);
    return s == PL_OK ? spec_opts(st, model, sp->t_end, o, err) : s;
}

/* The solve options of run r (or, r = SIZE_MAX, with axis `at` at value j, the others at their
 * first), as `penlim run` builds them from the same command line: the case's defaults for the
 * model, the spec's caps and options, then the axes. */
static pl_status run_opts(const pl_study *st, const pl_model *model, size_t r, size_t at, size_t j, pl_solve_opts *o,
                          pl_error *err)
{
    double t_end = st->spec.t_end;
    for (size_t a = 0; a < st->naxes; a++)
        if (st->axes[a].kind == PL_AXIS_T_END)
            t_end = r != SIZE_MAX ? pl_study_value(st, a, r) : st->axes[a].values[a == at ? j : 0];
    pl_status s = spec_opts(st, model, t_end, o, err);
    for (size_t a = 0; s == PL_OK && a < st->naxes; a++) {
        const char *opt = axis_kind_name(st->axes[a].kind);
        if (opt)
            s = pl_solve_opts_set(o, st->solver, opt, r != SIZE_MAX ? pl_study_value(st, a, r)
                                                                     : st->axes[a].values[a == at ? j : 0], err);
    }
    return s;
}

void pl_study_task_dir(const pl_study *st, size_t task, char *buf, size_t len)
{
    const pl_study_task *t = &st->tasks[task];
    if (t->is_limit)
        snprintf(buf, len, "limits/%03zu", t->index);
    else
        snprintf(buf, len, "runs/%05zu", t->index);
}

/* ---- the plan -------------------------------------------------------------------------------- */

static int is_limit_axis(pl_axis_kind k)
{
    return k == PL_AXIS_CASE || k == PL_AXIS_LAW || k == PL_AXIS_T_END;
}

/* The predicted cost of a task (docs/methods.md, "Studies"): t_end (mu/1e4)^(1/4) for a penalty run
 * (its steps through an impact grow like mu^(1/4) at the tolerances used), t_end/h / 1000 for a
 * scheme, t_end for a limit solution, each times the (n/n_first)^2 of the axes that change the
 * degrees of freedom. */
static double task_cost(const pl_study *st, int is_limit, size_t r, const pl_solve_opts *o)
{
    double c = o->t_end;
    for (size_t a = 0; a < st->naxes; a++)
        if (st->axes[a].kind == PL_AXIS_CASE || st->axes[a].kind == PL_AXIS_LAW)
            c *= st->axes[a].cost[value_index(st, a, r)];
    if (is_limit)
        return c;
    int mu = pl_solver_option_index(st->solver, "mu"), h = pl_solver_option_index(st->solver, "h");
    if (mu >= 0)
        return c * pow(o->option[mu] / 1e4, 0.25);
    if (h >= 0 && o->option[h] > 0)
        return c / o->option[h] / 1000.0;
    return c;
}

/* Task i before task j: costlier first, then by index. */
static int before(const pl_study_task *t, size_t i, size_t j)
{
    return t[i].cost != t[j].cost ? t[i].cost > t[j].cost : i < j;
}

/* The task indices idx sorted by `before`: a merge sort (qsort's comparison could not see the costs
 * without global state, and qsort_r is not C11). */
static void sort_by_cost(size_t *idx, size_t n, const pl_study_task *tasks, size_t *tmp)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    sort_by_cost(idx, h, tasks, tmp);
    sort_by_cost(idx + h, n - h, tasks, tmp);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = before(tasks, idx[j], idx[i]) ? idx[j++] : idx[i++];
    while (i < h)
        tmp[k++] = idx[i++];
    while (j < n)
        tmp[k++] = idx[j++];
    memcpy(idx, tmp, n * sizeof *idx);
}

pl_status pl_study_plan(const pl_study_spec *spec, pl_study *st, pl_error *err)
{
    memset(st, 0, sizeof *st);
    st->spec = *spec;
    st->solver = spec->solver;
    st->refined = -1;
    if (!spec->c || !spec->solver)
        return pl_fail(err, PL_ERR_INPUT, "a study needs a case and a solver");
    if (!st->spec.law)
        st->spec.law = pl_law_type_default();
    if (spec->solver != &pl_solver_penalty && spec->solver->family != PL_FAMILY_SCHEME)
        return pl_fail(err, PL_ERR_INPUT, "a study runs the penalty solver or a scheme, not %s", spec->solver->name);
    if (spec->ngrids == 0)
        return pl_fail(err, PL_ERR_INPUT, "no --grid NAME=VALUES given: a study needs at least one axis");
    st->axes = calloc(spec->ngrids, sizeof *st->axes);
    if (!st->axes)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    pl_status s = PL_OK;
    /* every axis named, classified and its values parsed before any is checked against the model */
    for (size_t a = 0; a < spec->ngrids; a++) {
        const char *g = spec->grids[a], *eq = strchr(g, '=');
        if (!eq || eq == g)
            return pl_fail(err, PL_ERR_INPUT, "--grid '%.200s': expected NAME=VALUES", g);
        pl_study_axis *ax = &st->axes[a];
        if ((size_t)(eq - g) >= sizeof ax->name)
            return pl_fail(err, PL_ERR_INPUT, "--grid '%.80s...': the name is too long", g);
        snprintf(ax->name, sizeof ax->name, "%.*s", (int)(eq - g), g);
        if ((s = classify(spec, st->spec.law, ax->name, &ax->kind, err)) != PL_OK)
            return s;
        if (ax->kind == PL_AXIS_T_END)
            snprintf(ax->name, sizeof ax->name, "t_end");
        st->naxes = a + 1;
        for (size_t b = 0; b < a; b++)
            if (strcmp(st->axes[b].name, ax->name) == 0)
                return pl_fail(err, PL_ERR_INPUT, "--grid %s is given twice", ax->name);
        for (size_t k = 0; k < spec->nsettings; k++)
            if (strcmp(spec->settings[k].name, ax->name) == 0)
                return pl_fail(err, PL_ERR_INPUT, "%s is both set (--set) and an axis (--grid)", ax->name);
        for (size_t k = 0; k < spec->noptions; k++)
            if (strcmp(spec->options[k].name, ax->name) == 0)
                return pl_fail(err, PL_ERR_INPUT, "%s is both an option (--%s) and an axis (--grid)", ax->name,
                               ax->name);
        if (ax->kind == PL_AXIS_T_END && isfinite(spec->t_end))
            return pl_fail(err, PL_ERR_INPUT, "t-end is both an option (--t-end) and an axis (--grid)");
        int geometric = ax->kind == PL_AXIS_MU || ax->kind == PL_AXIS_H || ax->kind == PL_AXIS_RTOL;
        if ((s = parse_values(eq + 1, ax->name, geometric, spec->zip, &ax->values, &ax->n, err)) != PL_OK)
            return s;
        if (ax->kind == PL_AXIS_MU || ax->kind == PL_AXIS_H)
            st->refined = (int)a;
    }
    /* the number of runs, refused above the cap before anything is allocated per run */
    size_t nruns = 1;
    for (size_t a = 0; a < st->naxes; a++) {
        if (spec->zip && st->axes[a].n != st->axes[0].n)
            return pl_fail(err, PL_ERR_INPUT, "--zip pairs axes of equal lengths: %s has %zu values, %s %zu",
                           st->axes[0].name, st->axes[0].n, st->axes[a].name, st->axes[a].n);
        nruns = spec->zip ? st->axes[0].n : nruns * st->axes[a].n;
        if (nruns > PL_STUDY_MAX_RUNS)
            return pl_fail(err, PL_ERR_INPUT, "the grid has more than %d points", PL_STUDY_MAX_RUNS);
    }
    st->nruns = nruns;
    /* Each value checked as a run checks it (the parameter's range, the case's and the solver's own
     * checks, the limit solution's), the others at their first: a bad value is refused before
     * anything runs.  And the degrees of freedom at each value of a model axis (the cost model). */
    size_t n_first = 0;
    for (size_t a = 0; a < st->naxes && s == PL_OK; a++) {
        pl_study_axis *ax = &st->axes[a];
        if (!(ax->cost = malloc(ax->n * sizeof *ax->cost)))
            return pl_fail(err, PL_ERR_NOMEM, "out of memory");
        int model_axis = ax->kind == PL_AXIS_CASE || ax->kind == PL_AXIS_LAW;
        for (size_t j = 0; j < ax->n && s == PL_OK; j++) {
            ax->cost[j] = 1.0;
            pl_model m = {0};
            pl_solve_opts o, lo;
            pl_error e;
            s = run_model(st, SIZE_MAX, a, j, &m, &e);
            if (s == PL_OK && (s = run_opts(st, &m, SIZE_MAX, a, j, &o, &e)) == PL_OK &&
                (s = pl_solve_check(st->solver, &m, &o, &e)) == PL_OK) {
                pl_sweep_opts so = {.solver = st->solver, .base = o};
                pl_sweep_limit_opts(&m, &so, &lo);
                s = pl_solve_check(&pl_solver_limit, &m, &lo, &e);
            }
            if (s == PL_OK) {
                if (n_first == 0)
                    n_first = m.n;
                double ratio = (double)m.n / (double)n_first;
                ax->cost[j] = model_axis ? ratio * ratio : 1.0;
                if (m.n > st->max_dof)
                    st->max_dof = m.n;
            } else {
                char v[PL_NUMBER_LEN];
                pl_format_double(ax->values[j], v, sizeof v);
                pl_fail(err, s, "--grid %s = %s: %.900s", ax->name, v, e.message);
            }
            pl_model_free(&m);
        }
    }
    if (s != PL_OK)
        return s;
    /* points (the non-refined axes), limits (the case, law and t-end axes) */
    st->run_point = malloc(nruns * sizeof *st->run_point);
    st->run_limit = malloc(nruns * sizeof *st->run_limit);
    if (!st->run_point || !st->run_limit)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for %zu runs", nruns);
    int any_limit_axis = 0;
    for (size_t a = 0; a < st->naxes; a++)
        any_limit_axis |= is_limit_axis(st->axes[a].kind);
    size_t *zip_limit = NULL;
    if (spec->zip && any_limit_axis && (s = zip_limits(st, nruns, &zip_limit, err)) != PL_OK)
        return s;
    for (size_t r = 0; r < nruns; r++) {
        size_t p = 0, l = 0;
        if (spec->zip) {
            p = r;
            l = zip_limit ? zip_limit[r] : 0;
        } else
            for (size_t a = 0; a < st->naxes; a++) {
                size_t j = value_index(st, a, r);
                if ((int)a != st->refined)
                    p = p * st->axes[a].n + j;
                if (is_limit_axis(st->axes[a].kind))
                    l = l * st->axes[a].n + j;
            }
        st->run_point[r] = p;
        st->run_limit[r] = l;
        if (p + 1 > st->npoints)
            st->npoints = p + 1;
        if (l + 1 > st->nlimits)
            st->nlimits = l + 1;
    }
    free(zip_limit);
    st->point_first = calloc(st->npoints + 1, sizeof *st->point_first);
    st->point_runs = malloc(nruns * sizeof *st->point_runs);
    st->limit_run = malloc(st->nlimits * sizeof *st->limit_run);
    st->ntasks = st->nlimits + nruns;
    st->tasks = malloc(st->ntasks * sizeof *st->tasks);
    st->order = malloc(st->ntasks * sizeof *st->order);
    size_t *tmp = malloc(st->ntasks * sizeof *tmp);
    if (!st->point_first || !st->point_runs || !st->limit_run || !st->tasks || !st->order || !tmp) {
        free(tmp);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for %zu runs", nruns);
    }
    for (size_t r = 0; r < nruns; r++)
        st->point_first[st->run_point[r] + 1]++;
    for (size_t p = 0; p < st->npoints; p++)
        st->point_first[p + 1] += st->point_first[p];
    for (size_t l = 0; l < st->nlimits; l++)
        st->limit_run[l] = SIZE_MAX;
    for (size_t r = 0, *fill = tmp; r < nruns; r++) { /* tmp: each point's next slot */
        if (r == 0)
            memcpy(fill, st->point_first, st->npoints * sizeof *fill);
        st->point_runs[fill[st->run_point[r]]++] = r;
        if (st->limit_run[st->run_limit[r]] == SIZE_MAX)
            st->limit_run[st->run_limit[r]] = r;
    }
    /* Each distinct model (a limit key: the case and law axes, and t-end) checked as a run checks it,
     * its limit solution's checks included: a combination of values the case refuses is bad input
     * found here, before anything runs, not a failure after. */
    for (size_t l = 0; l < st->nlimits && s == PL_OK; l++) {
        pl_model m = {0};
        pl_solve_opts o, lo;
        pl_error e;
        size_t r = st->limit_run[l];
        s = run_model(st, r, 0, 0, &m, &e);
        if (s == PL_OK && (s = run_opts(st, &m, r, 0, 0, &o, &e)) == PL_OK &&
            (s = pl_solve_check(st->solver, &m, &o, &e)) == PL_OK) {
            pl_sweep_opts so = {.solver = st->solver, .base = o};
            pl_sweep_limit_opts(&m, &so, &lo);
            s = pl_solve_check(&pl_solver_limit, &m, &lo, &e);
        }
        if (s == PL_OK && m.n > st->max_dof) /* the columns of the final state in study.csv */
            st->max_dof = m.n;
        if (s != PL_OK) {
            char at[512] = "";
            for (size_t a = 0; a < st->naxes; a++)
                if (is_limit_axis(st->axes[a].kind) && strlen(at) < sizeof at - 100) {
                    char v[PL_NUMBER_LEN];
                    pl_format_double(pl_study_value(st, a, r), v, sizeof v);
                    snprintf(at + strlen(at), sizeof at - strlen(at), "%s%s = %s", *at ? ", " : "", st->axes[a].name,
                             v);
                }
            pl_fail(err, s, "--grid at %s: %.700s", at, e.message);
        }
        pl_model_free(&m);
    }
    if (s != PL_OK) {
        free(tmp);
        return s;
    }
    /* the tasks and their predicted costs */
    pl_model m = {0};
    for (size_t t = 0; t < st->ntasks && s == PL_OK; t++) {
        pl_study_task *tk = &st->tasks[t];
        tk->is_limit = t < st->nlimits;
        tk->index = tk->is_limit ? t : t - st->nlimits;
        size_t r = tk->is_limit ? st->limit_run[tk->index] : tk->index;
        pl_solve_opts o;
        pl_error e;
        if (t == 0 || !m.type) { /* the options need a model: the first run's (its t_end, derived h) */
            pl_model_free(&m);
            if (run_model(st, r, 0, 0, &m, &e) != PL_OK)
                memset(&m, 0, sizeof m);
        }
        if (m.type && run_opts(st, &m, r, 0, 0, &o, &e) == PL_OK) {
            /* a model axis changes the case's t_end and derived h: the first model's are a cost's estimate */
            tk->cost = task_cost(st, tk->is_limit, r, &o);
        } else
            tk->cost = 1.0;
        st->order[t] = t;
    }
    pl_model_free(&m);
    sort_by_cost(st->order, st->ntasks, st->tasks, tmp);
    free(tmp);
    return s;
}

pl_status pl_study_deal(const pl_study *st, size_t nshards, size_t *shard, pl_error *err)
{
    if (nshards < 1)
        return pl_fail(err, PL_ERR_INPUT, "no shards to deal to");
    double *load = calloc(nshards, sizeof *load);
    if (!load)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < st->ntasks; i++) {
        size_t t = st->order[i], best = 0;
        for (size_t k = 1; k < nshards; k++)
            if (load[k] < load[best])
                best = k;
        shard[t] = best;
        load[best] += st->tasks[t].cost;
    }
    free(load);
    return PL_OK;
}

void pl_study_free(pl_study *st)
{
    for (size_t a = 0; st->axes && a < st->naxes; a++) {
        free(st->axes[a].values);
        free(st->axes[a].cost);
    }
    free(st->axes);
    free(st->run_point);
    free(st->run_limit);
    free(st->point_first);
    free(st->point_runs);
    free(st->limit_run);
    free(st->tasks);
    free(st->order);
    for (size_t r = 0; st->run && r < st->nruns; r++) {
        free(st->run[r].error);
        free(st->run[r].final_qv);
    }
    free(st->run);
    for (size_t k = 0; st->conv && k < st->npoints * PL_SWEEP_NQ; k++)
        free(st->conv[k].note);
    free(st->conv);
    for (size_t l = 0; st->limit_error && l < st->nlimits; l++)
        free(st->limit_error[l]);
    free(st->limit_error);
    free(st->limit_status);
    free(st->owned_settings);
    free(st->owned_options);
    memset(st, 0, sizeof *st);
}

/* ---- phase 1: tasks -------------------------------------------------------------------------- */

void pl_study_solved_free(pl_study_solved *s)
{
    pl_solution_free(&s->sol);
    if (s->analysed)
        pl_analysis_free(&s->analysis);
    pl_model_free(&s->model);
    memset(s, 0, sizeof *s);
}

pl_status pl_study_solve_task(const pl_study *st, size_t task, pl_study_solved *out, pl_error *err)
{
    memset(out, 0, sizeof *out);
    const pl_study_task *t = &st->tasks[task];
    size_t r = t->is_limit ? st->limit_run[t->index] : t->index;
    pl_solve_opts o, lo;
    pl_status s = run_model(st, r, 0, 0, &out->model, err);
    if (s == PL_OK)
        s = run_opts(st, &out->model, r, 0, 0, &o, err);
    if (s != PL_OK) /* checked by the plan: memory, or a combination of values the case refuses */
        return s;
    const pl_solver_type *solver = st->solver;
    if (t->is_limit) { /* as the sweep of phase 2 would solve it (pl_sweep_limit_opts) */
        pl_sweep_opts so = {.solver = st->solver, .base = o};
        pl_sweep_limit_opts(&out->model, &so, &lo);
        o = lo;
        solver = &pl_solver_limit;
    }
    pl_solve_opts_count_from(&o, pl_now_seconds()); /* each task within max_seconds, its analysis included */
    pl_error e;
    out->status = pl_solve(solver, &out->model, &o, &out->sol, &e);
    if (out->status == PL_OK) {
        out->analysed = 1;
        out->status = pl_analyze_within(&out->model, &out->sol, &(pl_budget){o.max_seconds, o.started}, &out->analysis,
                                        &e);
        if (out->status != PL_OK) {
            out->sol.status = out->status;
            out->sol.error = e;
        }
    }
    if (out->status == PL_ERR_NOMEM)
        return pl_fail(err, PL_ERR_NOMEM, "%s", e.message);
    return PL_OK;
}

pl_status pl_study_write_task(const pl_study *st, size_t task, const pl_study_solved *s, pl_output *out,
                              pl_error *err)
{
    char sub[64];
    pl_study_task_dir(st, task, sub, sizeof sub);
    pl_status w = pl_output_make_dir(out, sub, err);
    if (w == PL_OK)
        w = pl_write_solution(out, sub, &s->model, &s->sol, s->analysed && s->analysis.info ? &s->analysis : NULL,
                              NULL, err);
    return w;
}

pl_status pl_study_execute(const pl_study *st, size_t task, pl_output *out, int *failed, pl_error *err)
{
    pl_study_solved s;
    pl_status r = pl_study_solve_task(st, task, &s, err);
    if (r == PL_OK) {
        *failed = s.status != PL_OK;
        r = pl_study_write_task(st, task, &s, out, err);
        if (r == PL_ERR_SOLVER) { /* a file refused (an infinite number): the run fails, the study goes on */
            *failed = 1;
            r = PL_OK;
        }
    }
    pl_study_solved_free(&s);
    return r;
}

typedef struct {
    const pl_study *st;
    pl_output *out;
    const unsigned char *done;
    pthread_mutex_t lock;
    size_t next;
    pl_status status;
    pl_error err;
    pl_study_progress prog;
    double started, cost_total, cost_done;
} phase1_pool;

static void report(const pl_study *st, pl_study_progress *p, double started, double cost_total, double cost_done)
{
    if (!st->spec.progress)
        return;
    p->elapsed = pl_now_seconds() - started;
    p->remaining = cost_done > 0 ? p->elapsed * (cost_total - cost_done) / cost_done : NAN;
    st->spec.progress(p, st->spec.user);
}

static void *phase1_worker(void *arg)
{
    phase1_pool *p = arg;
    const pl_study *st = p->st;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        while (p->next < st->ntasks && p->done && p->done[st->order[p->next]])
            p->next++;
        int stop = p->status != PL_OK || p->next >= st->ntasks;
        if (!stop && st->spec.cancel && st->spec.cancel(st->spec.user)) {
            if (p->status == PL_OK)
                p->status = pl_fail(&p->err, PL_ERR_SOLVER, "cancelled");
            stop = 1;
        }
        size_t task = stop ? 0 : st->order[p->next++];
        pthread_mutex_unlock(&p->lock);
        if (stop)
            return NULL;
        pl_study_solved s;
        pl_error e;
        pl_status r = pl_study_solve_task(st, task, &s, &e);
        pthread_mutex_lock(&p->lock);
        int failed = s.status != PL_OK;
        /* A task the cancel hook stopped is not a failure of its run: it is not written (a resumed
         * study solves it again), and the phase stops. */
        if (failed && r == PL_OK && st->spec.cancel && st->spec.cancel(st->spec.user))
            r = pl_fail(&e, PL_ERR_SOLVER, "cancelled");
        if (r == PL_OK && p->status == PL_OK) {
            r = pl_study_write_task(st, task, &s, p->out, &e);
            if (r == PL_ERR_SOLVER) {
                failed = 1;
                r = PL_OK;
            }
        }
        if (r != PL_OK && p->status == PL_OK) {
            p->status = r;
            p->err = e;
        }
        if (r == PL_OK) {
            const pl_study_task *t = &st->tasks[task];
            if (t->is_limit)
                p->prog.limits_done++;
            else {
                p->prog.done++;
                p->prog.failed += failed;
            }
            p->cost_done += t->cost;
            if (st->spec.task_done)
                st->spec.task_done(task, failed, st->spec.user);
            report(st, &p->prog, p->started, p->cost_total, p->cost_done);
        }
        pthread_mutex_unlock(&p->lock);
        pl_study_solved_free(&s);
    }
}

/* Run worker over jobs threads; one job runs here, in the caller's thread (a model written in Python
 * then calls back from a thread the interpreter knows, not one whose thread state it builds and drops
 * on every call: 4x the cost of each callback), as it does if no thread can be started. */
static void run_threads(void *(*worker)(void *), void *arg, int jobs_given, size_t work)
{
    size_t jobs = jobs_given < 1 ? 1 : (size_t)jobs_given;
    if (jobs > work)
        jobs = work > 0 ? work : 1;
    if (jobs == 1) {
        worker(arg);
        return;
    }
    pthread_t *threads = malloc(jobs * sizeof *threads);
    size_t started = 0;
    for (; threads && started < jobs; started++)
        if (pthread_create(&threads[started], NULL, worker, arg) != 0)
            break;
    if (started == 0)
        worker(arg);
    for (size_t j = 0; j < started; j++)
        pthread_join(threads[j], NULL);
    free(threads);
}

pl_status pl_study_phase1(const pl_study *st, pl_output *out, const unsigned char *done, pl_error *err)
{
    phase1_pool p = {.st = st, .out = out, .done = done, .status = PL_OK, .started = pl_now_seconds()};
    p.prog.phase = "runs";
    p.prog.total = st->nruns;
    p.prog.limits_total = st->nlimits;
    size_t todo = 0;
    for (size_t t = 0; t < st->ntasks; t++)
        if (!done || !done[t]) {
            p.cost_total += st->tasks[t].cost;
            todo++;
        } else if (done[t] == 2) { /* another process's: outside this one's counts */
            if (st->tasks[t].is_limit)
                p.prog.limits_total--;
            else
                p.prog.total--;
        } else if (st->tasks[t].is_limit)
            p.prog.limits_done++;
        else
            p.prog.done++;
    pthread_mutex_init(&p.lock, NULL);
    report(st, &p.prog, p.started, p.cost_total, p.cost_done);
    run_threads(phase1_worker, &p, st->spec.jobs, todo);
    pthread_mutex_destroy(&p.lock);
    if (p.status != PL_OK && err)
        *err = p.err;
    return p.status;
}

/* ---- phase 2: the sweeps --------------------------------------------------------------------- */

typedef struct {
    const char *rel, *hash;
} file_hash;

static int by_rel(const void *a, const void *b)
{
    return strcmp(((const file_hash *)a)->rel, ((const file_hash *)b)->rel);
}

typedef struct {
    pl_study *st;
    pl_output *out;
    file_hash *files; /* what out holds, sorted by path: the hashes phase 2 reads against */
    size_t nfiles;
    pthread_mutex_t lock;
    size_t next;
    pl_status status;
    pl_error err;
    unsigned char *limit_seen; /* a limit's status is taken from the first point of its key analysed */
    pl_study_progress prog;
    double started, cost_total, cost_done;
} phase2_pool;

typedef struct {
    phase2_pool *pool;
    const pl_model *model;
    size_t point;
    size_t *run_of; /* sweep's k -> run index */
} point_io;

static const char *hash_of(const phase2_pool *p, const char *rel)
{
    file_hash key = {rel, NULL};
    const file_hash *f = bsearch(&key, p->files, p->nfiles, sizeof *p->files, by_rel);
    return f && f->hash[0] ? f->hash : NULL;
}

static void point_dir(const point_io *io, size_t k, char *sub, size_t len)
{
    const pl_study *st = io->pool->st;
    if (k == PL_SWEEP_LIMIT)
        snprintf(sub, len, "limits/%03zu", st->run_limit[st->point_runs[st->point_first[io->point]]]);
    else
        snprintf(sub, len, "runs/%05zu", io->run_of[k]);
}

/* Run k (or the limit solution) read back from its directory, each file verified against the hash
 * the output records for it: a run that phase 1 wrote "ok". */
static int read_back(const pl_sweep *sw, size_t k, const pl_solve_opts *o, pl_solution *sol, void *user)
{
    point_io *io = user;
    char sub[64], rel[96], dir[PATH_MAX];
    point_dir(io, k, sub, sizeof sub);
    const pl_solver_type *solver = k == PL_SWEEP_LIMIT ? &pl_solver_limit : sw->solver;
    snprintf(rel, sizeof rel, "%s/summary.json", sub);
    const char *hs = hash_of(io->pool, rel);
    snprintf(rel, sizeof rel, "%s/trajectory.csv", sub);
    const char *ht = hash_of(io->pool, rel);
    snprintf(rel, sizeof rel, "%s/contacts.csv", sub);
    pl_run_hashes want = {hs, ht, hash_of(io->pool, rel)};
    if (!hs || !ht)
        return 0;
    pl_error e;
    int fd = pl_output_dir(io->pool->out, sub, 0);
    if (fd < 0)
        return 0;
    pl_status s = pl_output_path(io->pool->out, sub, NULL, dir, sizeof dir, &e);
    if (s == PL_OK)
        s = pl_read_solution_at(fd, dir, io->model, solver, &want, sol, &e);
    close(fd);
    int same = s == PL_OK && sol->t_end == o->t_end;
    for (size_t j = 0; same && j < solver->noptions; j++)
        same = sol->option[j] == o->option[j];
    if (!same)
        pl_solution_free(sol);
    return same;
}

/* Phase 2 never solves: what read_back refused (a failed run, files missing or changed) comes back
 * failed, with the reason its summary gives or why it could not be read. */
static pl_status read_failed(const pl_sweep *sw, size_t k, const pl_solver_type *solver, const pl_solve_opts *o,
                             pl_solution *sol, pl_error *err, void *user)
{
    point_io *io = user;
    char sub[64], dir[PATH_MAX];
    point_dir(io, k, sub, sizeof sub);
    (void)sw;
    pl_error e;
    int fd = pl_output_dir(io->pool->out, sub, 0);
    pl_status s = fd < 0 ? pl_fail(&e, PL_ERR_INPUT, "no directory %s", sub)
                         : pl_output_path(io->pool->out, sub, NULL, dir, sizeof dir, &e);
    if (s == PL_OK) {
        s = pl_read_solution_any_at(fd, dir, io->model, solver, sol, &e);
        if (s == PL_OK && sol->status != PL_OK) { /* a failed run, its reason in sol */
            if (err)
                *err = sol->error;
            close(fd);
            return sol->status;
        }
        if (s == PL_OK) /* read, but not as read_back wanted it: changed since, or other options */
            s = pl_fail(&e, PL_ERR_INPUT, "%s does not hold the files phase 1 wrote for it", sub);
        pl_solution_free(sol);
    }
    if (fd >= 0)
        close(fd);
    pl_solution_init(sol, solver, io->model, o->t_end, NULL);
    char msg[sizeof e.message];
    snprintf(msg, sizeof msg, "%s", e.message);
    pl_fail(&sol->error, PL_ERR_SOLVER, "its files could not be read: %.400s", msg);
    sol->status = PL_ERR_SOLVER;
    if (err)
        *err = sol->error;
    return PL_ERR_SOLVER;
}

static char *dup_text(const char *t)
{
    if (!t)
        return NULL;
    size_t n = strlen(t) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, t, n);
    return d;
}

/* Point p: its sweep over its runs read back, the results into the study. */
static pl_status assemble_point(phase2_pool *pool, size_t p, pl_error *err)
{
    pl_study *st = pool->st;
    size_t first = st->point_first[p], n = st->point_first[p + 1] - first;
    const size_t *runs = &st->point_runs[first];
    pl_model model = {0};
    pl_sweep_opts so = {.solver = st->solver, .jobs = 1, .with_limit = 1, .release_trajectories = 1};
    pl_status s = run_model(st, runs[0], 0, 0, &model, err);
    if (s == PL_OK)
        s = run_opts(st, &model, runs[0], 0, 0, &so.base, err);
    double *values = malloc(n * sizeof *values);
    size_t *run_of = malloc(n * sizeof *run_of);
    if (s == PL_OK && (!values || !run_of))
        s = pl_fail(err, PL_ERR_NOMEM, "out of memory");
    int refined = pl_solver_option_index(st->solver, st->solver->refine);
    for (size_t k = 0; s == PL_OK && k < n; k++)
        values[k] = st->refined >= 0 ? pl_study_value(st, (size_t)st->refined, runs[k]) : so.base.option[refined];
    pl_sweep sw = {0};
    if (s == PL_OK) {
        /* the sweep's k (refinement order) to the run */
        double *sorted = malloc(n * sizeof *sorted);
        if (!sorted)
            s = pl_fail(err, PL_ERR_NOMEM, "out of memory");
        else {
            memcpy(sorted, values, n * sizeof *values);
            pl_sweep_order(st->solver, sorted, n);
            for (size_t k = 0; k < n; k++)
                for (size_t j = 0; j < n; j++)
                    if (values[j] == sorted[k])
                        run_of[k] = runs[j];
            free(sorted);
        }
    }
    point_io io = {pool, &model, p, run_of};
    so.reuse = read_back;
    so.solve = read_failed;
    so.user = &io;
    if (s == PL_OK)
        s = pl_sweep_run(&model, values, n, &so, &sw, err);
    for (size_t k = 0; s == PL_OK && k < sw.n; k++) {
        pl_study_run_result *res = &st->run[run_of[k]];
        const pl_solution *sol = &sw.runs[k];
        res->status = sol->status;
        res->error = sol->status != PL_OK ? dup_text(sol->error.message) : NULL;
        pl_sweep_row(&sw, k, res->row);
        res->h_used = pl_solver_can(st->solver, PL_SOLVER_FIXED_STEP) ? sol->step_size : NAN;
        res->n = model.n;
        res->final_t = sol->status == PL_OK ? sol->t_final : NAN;
        res->final_qv = malloc((2 * model.n + 1) * sizeof *res->final_qv);
        if (!res->final_qv || (res->status != PL_OK && !res->error)) {
            s = pl_fail(err, PL_ERR_NOMEM, "out of memory");
            break;
        }
        for (size_t j = 0; j < model.n; j++) {
            res->final_qv[j] = sol->status == PL_OK ? sol->q_final[j] : NAN;
            res->final_qv[model.n + j] = sol->status == PL_OK ? sol->v_final[j] : NAN;
        }
    }
    for (int q = 0; s == PL_OK && q < PL_SWEEP_NQ; q++) {
        pl_study_convergence *c = &st->conv[p * PL_SWEEP_NQ + (size_t)q];
        const pl_sweep_quantity *Q = &sw.q[q];
        char buf[512];
        const char *note = pl_sweep_rate_note(&sw, Q, buf, sizeof buf);
        c->rate = Q->conv.rate;
        c->rate_se = Q->conv.rate_se;
        c->limit = Q->conv.limit;
        if (note && !(c->note = dup_text(note)))
            s = pl_fail(err, PL_ERR_NOMEM, "out of memory");
    }
    if (s == PL_OK) {
        size_t l = st->run_limit[runs[0]];
        pthread_mutex_lock(&pool->lock); /* a limit is shared by points: its first writes it */
        if (!pool->limit_seen[l]) {
            pool->limit_seen[l] = 1;
            st->limit_status[l] = sw.limit.status == PL_OK && !sw.has_limit ? PL_ERR_SOLVER : sw.limit.status;
            if (st->limit_status[l] != PL_OK)
                st->limit_error[l] = dup_text(sw.limit.error.message);
        }
        pthread_mutex_unlock(&pool->lock);
    }
    pl_sweep_free(&sw);
    free(values);
    free(run_of);
    pl_model_free(&model);
    return s;
}

static void *phase2_worker(void *arg)
{
    phase2_pool *p = arg;
    pl_study *st = p->st;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        int stop = p->status != PL_OK || p->next >= st->npoints;
        if (!stop && st->spec.cancel && st->spec.cancel(st->spec.user)) {
            p->status = pl_fail(&p->err, PL_ERR_SOLVER, "cancelled");
            stop = 1;
        }
        size_t point = stop ? 0 : p->next++;
        pthread_mutex_unlock(&p->lock);
        if (stop)
            return NULL;
        pl_error e;
        pl_status s = assemble_point(p, point, &e);
        pthread_mutex_lock(&p->lock);
        if (s != PL_OK && p->status == PL_OK) {
            p->status = s;
            p->err = e;
        }
        size_t n = st->point_first[point + 1] - st->point_first[point];
        p->prog.done += n;
        for (size_t k = 0; s == PL_OK && k < n; k++)
            p->prog.failed += st->run[st->point_runs[st->point_first[point] + k]].status != PL_OK;
        p->cost_done += (double)n;
        report(st, &p->prog, p->started, p->cost_total, p->cost_done);
        pthread_mutex_unlock(&p->lock);
    }
}

pl_status pl_study_assemble(pl_study *st, pl_output *out, pl_error *err)
{
    st->run = calloc(st->nruns, sizeof *st->run);
    st->conv = calloc(st->npoints * PL_SWEEP_NQ, sizeof *st->conv);
    st->limit_status = malloc(st->nlimits * sizeof *st->limit_status);
    st->limit_error = calloc(st->nlimits, sizeof *st->limit_error);
    phase2_pool p = {.st = st, .out = out, .status = PL_OK, .started = pl_now_seconds(),
                     .cost_total = (double)st->nruns};
    p.files = malloc((out->written.n + 1) * sizeof *p.files);
    p.limit_seen = calloc(st->nlimits, 1);
    if (!st->run || !st->conv || !st->limit_status || !st->limit_error || !p.files || !p.limit_seen) {
        free(p.files);
        free(p.limit_seen);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for the analysis of %zu runs", st->nruns);
    }
    for (size_t l = 0; l < st->nlimits; l++)
        st->limit_status[l] = PL_ERR_SOLVER; /* until a point of its key is analysed */
    for (size_t k = 0; k < out->written.n; k++)
        p.files[p.nfiles++] = (file_hash){out->written.items[k], out->hashes.items[k]};
    qsort(p.files, p.nfiles, sizeof *p.files, by_rel);
    p.prog.phase = "analysis";
    p.prog.total = st->nruns;
    pthread_mutex_init(&p.lock, NULL);
    report(st, &p.prog, p.started, p.cost_total, 0.0);
    run_threads(phase2_worker, &p, st->spec.jobs, st->npoints);
    pthread_mutex_destroy(&p.lock);
    free(p.files);
    free(p.limit_seen);
    if (p.status != PL_OK) {
        if (err)
            *err = p.err;
        return p.status;
    }
    st->assembled = 1;
    return PL_OK;
}
