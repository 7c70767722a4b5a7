/* The public API of include/penlim/: handles over the internal modules, options by name. */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "penlim/penlim.h"

#include "cases/cases.h"
#include "core/number.h"
#include "laws/law.h"
#include "model/loader.h"
#include "solvers/solver.h"
#include "study/compare.h"
#include "study/compare_run.h"
#include "io/external.h"
#include "io/outdir.h"
#include "io/report.h"
#include "io/study_report.h"
#include "io/sweep_report.h"
#include "study/study.h"
#include "study/study_dir.h"
#include "study/sweep.h"

PL_API const char *pl_version(void)
{
    return PENLIM_VERSION;
}

PL_API void pl_library_init(void)
{
    gsl_set_error_handler_off();
}

/* ---- models ---- */

PL_API pl_model *pl_model_create(const pl_case *c, const pl_setting *settings, size_t nsettings, pl_error *err)
{
    return pl_model_create_law(c, NULL, settings, nsettings, err);
}

PL_API pl_model *pl_model_create_law(const pl_case *c, const char *law, const pl_setting *settings, size_t nsettings,
                                     pl_error *err)
{
    const pl_law_type *t = law ? pl_law_type_find(law) : pl_law_type_default();
    if (!t) {
        pl_fail(err, PL_ERR_INPUT, "unknown contact law '%s' (penlim laws lists them)", law);
        return NULL;
    }
    if (!c) {
        pl_fail(err, PL_ERR_INPUT, "no case given");
        return NULL;
    }
    pl_model *m = calloc(1, sizeof *m);
    if (!m) {
        pl_fail(err, PL_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (pl_model_init_law(m, c, t, settings, nsettings, err) != PL_OK) {
        free(m);
        return NULL;
    }
    return m;
}

PL_API pl_model *pl_model_load(const char *path, const char *law, const pl_setting *settings, size_t nsettings,
                               pl_error *err)
{
    if (!path || !strchr(path, '/')) {
        pl_fail(err, PL_ERR_INPUT, "pl_model_load: give the model file's path with a '/' (./%s)", path ? path : "");
        return NULL;
    }
    pl_model_library *lib = malloc(sizeof *lib);
    if (!lib) {
        pl_fail(err, PL_ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (pl_model_library_open(lib, path, NULL, err) != PL_OK) {
        free(lib);
        return NULL;
    }
    pl_model *m = pl_model_create_law(lib->c, law, settings, nsettings, err);
    if (!m) {
        pl_model_library_close(lib);
        free(lib);
        return NULL;
    }
    m->library = lib;
    return m;
}

PL_API const char *pl_model_law(const pl_model *model)
{
    return model ? model->law_type->name : NULL;
}

PL_API double pl_model_law_parameter(const pl_model *model, const char *name)
{
    int j = model && name ? pl_law_param_index(model->law_type, name) : -1;
    return j < 0 ? NAN : model->law_par[j];
}

PL_API void pl_model_destroy(pl_model *model)
{
    if (!model)
        return;
    pl_model_library *lib = model->library;
    pl_model_free(model);
    free(model);
    if (lib) /* after the model, whose case lies in it */
        pl_model_library_close(lib);
    free(lib);
}

PL_API const pl_case *pl_model_case(const pl_model *model)
{
    return model ? model->type : NULL;
}

PL_API size_t pl_model_dof(const pl_model *model)
{
    return model ? model->n : 0;
}

PL_API size_t pl_model_constraints(const pl_model *model)
{
    return model ? model->m : 0;
}

PL_API double pl_model_parameter(const pl_model *model, const char *name)
{
    return model && name ? pl_model_param(model, name) : NAN;
}

PL_API size_t pl_builtin_case_count(void)
{
    return pl_case_count();
}

PL_API const pl_case *pl_builtin_case_at(size_t index)
{
    return pl_case_at(index);
}

PL_API const pl_case *pl_builtin_case_find(const char *name)
{
    return name ? pl_case_find(name) : NULL;
}

PL_API size_t pl_law_count(void)
{
    return pl_law_type_count();
}

PL_API const char *pl_law_name(size_t index)
{
    const pl_law_type *t = pl_law_type_at(index);
    return t ? t->name : NULL;
}

PL_API const char *pl_law_summary(size_t index)
{
    const pl_law_type *t = pl_law_type_at(index);
    return t ? t->summary : NULL;
}

PL_API size_t pl_law_parameters(size_t index, const pl_param_spec **params)
{
    const pl_law_type *t = pl_law_type_at(index);
    if (params)
        *params = t ? t->params : NULL;
    return t ? t->nparams : 0;
}

/* ---- solving ---- */

PL_API const char *pl_solver_name(size_t index)
{
    const pl_solver_type *s = pl_solver_at(index);
    return s ? s->name : NULL;
}

PL_API const char *pl_solver_summary(size_t index)
{
    const pl_solver_type *s = pl_solver_at(index);
    return s ? s->summary : NULL;
}

PL_API size_t pl_solver_options(size_t index, const pl_param_spec **options)
{
    const pl_solver_type *s = pl_solver_at(index);
    if (options)
        *options = s ? s->options : NULL;
    return s ? s->noptions : 0;
}

/* Options by name into o: the settings every solver takes, then the solver's own. */
static pl_status set_options(pl_solve_opts *o, const pl_solver_type *s, const pl_setting *options, size_t n,
                             const char *skip, pl_error *err)
{
    for (size_t k = 0; k < n; k++) {
        const char *name = options[k].name;
        double x = options[k].value;
        char got[PL_NUMBER_LEN]; /* as given: %g printed 3.0000001 as 3, "not a whole number" */
        if (skip && strcmp(name, skip) == 0)
            return pl_fail(err, PL_ERR_INPUT, "option %s is the one a sweep refines: give it as the sweep's values",
                           name);
        if (strcmp(name, "t_end") == 0)
            o->t_end = x;
        else if (strcmp(name, "samples") == 0) {
            if (!(x >= 0 && x <= 1e7 && x == floor(x)))
                return pl_fail(err, PL_ERR_INPUT, "samples must be a whole number in [0, 1e7] (got %s)", pl_format_double(x, got, sizeof got));
            o->samples = (size_t)x;
        } else if (strcmp(name, "max_steps") == 0) {
            if (!(x >= 1 && x <= 1e15 && x == floor(x)))
                return pl_fail(err, PL_ERR_INPUT, "max_steps must be a whole number in [1, 1e15] (got %s)", pl_format_double(x, got, sizeof got));
            o->max_steps = (long)x;
        } else if (strcmp(name, "max_seconds") == 0) {
            if (!(x > 0))
                return pl_fail(err, PL_ERR_INPUT, "max_seconds must be > 0 (got %s)", pl_format_double(x, got, sizeof got));
            o->max_seconds = x;
        } else if (strcmp(name, "sparse_contacts") == 0) {
            if (!(x == 0 || x == 1))
                return pl_fail(err, PL_ERR_INPUT, "sparse_contacts must be 0 or 1 (got %s)", pl_format_double(x, got, sizeof got));
            o->contacts = x == 1 ? PL_CONTACTS_SPARSE : PL_CONTACTS_DENSE;
        } else if (strcmp(name, "max_output") == 0) {
            if (!(x >= 1))
                return pl_fail(err, PL_ERR_INPUT, "max_output must be >= 1 (got %s)", pl_format_double(x, got, sizeof got));
            o->max_output = x;
        } else {
            pl_status st = pl_solve_opts_set(o, s, name, x, err);
            if (st != PL_OK)
                return st;
        }
    }
    return PL_OK;
}

static const pl_solver_type *find_solver(const char *name, pl_error *err)
{
    const pl_solver_type *s = name ? pl_solver_find(name) : NULL;
    if (!s)
        pl_fail(err, PL_ERR_INPUT, "unknown solver '%s' (penalty, limit, moreau_jean, paoli, maury)",
                name ? name : "(null)");
    return s;
}

PL_API pl_status pl_solve_model(const pl_model *model, const char *solver, const pl_setting *options,
                                size_t noptions, pl_solution **out, pl_error *err)
{
    return pl_solve_model_with(model, solver, options, noptions, NULL, out, err);
}

PL_API int pl_cancel_when_set(void *flag)
{
    return flag && __atomic_load_n((const int *)flag, __ATOMIC_RELAXED) != 0;
}

PL_API pl_status pl_solve_model_with(const pl_model *model, const char *solver, const pl_setting *options,
                                     size_t noptions, const pl_solve_hooks *hooks, pl_solution **out, pl_error *err)
{
    if (!out)
        return pl_fail(err, PL_ERR_INPUT, "pl_solve_model: no place for the solution (out is NULL)");
    *out = NULL;
    const pl_solver_type *s = find_solver(solver, err);
    if (!s)
        return PL_ERR_INPUT;
    if (!model || (noptions && !options))
        return pl_fail(err, PL_ERR_INPUT, "pl_solve_model: no model, or options missing");
    pl_solve_opts o;
    pl_solve_opts_init(&o, s, model, NAN);
    pl_status st0 = set_options(&o, s, options, noptions, NULL, err);
    if (st0 != PL_OK)
        return st0;
    if (hooks)
        o.cancel = hooks->cancel, o.cancel_user = hooks->user;
    pl_solution *sol = calloc(1, sizeof *sol);
    if (!sol)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    pl_status st = pl_solve(s, model, &o, sol, err);
    if (st == PL_ERR_INPUT) { /* nothing solved */
        pl_solution_free(sol);
        free(sol);
        return st;
    }
    *out = sol;
    return st;
}

PL_API void pl_solution_destroy(pl_solution *sol)
{
    if (!sol)
        return;
    pl_solution_free(sol);
    free(sol);
}

PL_API size_t pl_solution_rows(const pl_solution *sol)
{
    return sol ? sol->traj.nrows : 0;
}

PL_API size_t pl_solution_columns(const pl_solution *sol)
{
    return sol ? sol->traj.ncol : 0;
}

PL_API size_t pl_solution_column_name(const pl_solution *sol, size_t col, char *name, size_t len)
{
    if (name && len > 0)
        name[0] = '\0';
    if (!sol || col >= sol->traj.ncol)
        return 0;
    /* the header trajectory.csv is written with, so that the names are the file's */
    size_t m_cols = sol->contacts == PL_CONTACTS_DENSE ? sol->m : 0;
    char *header = pl_trajectory_header(sol->n, m_cols, pl_solver_can(sol->solver, PL_SOLVER_STEP_IMPULSES));
    if (!header)
        return 0;
    const char *p = header;
    for (size_t k = 0; k < col && p; k++)
        if ((p = strchr(p, ',')))
            p++;
    size_t n = p ? strcspn(p, ",") : 0;
    if (name && len > 0)
        snprintf(name, len, "%.*s", (int)n, p ? p : "");
    free(header);
    return n;
}

PL_API const double *pl_solution_row(const pl_solution *sol, size_t row)
{
    return sol && row < sol->traj.nrows ? pl_table_row(&sol->traj, row) : NULL;
}

PL_API int pl_solution_sparse_contacts(const pl_solution *sol)
{
    return sol && sol->contacts == PL_CONTACTS_SPARSE;
}

PL_API size_t pl_solution_contacts(const pl_solution *sol, size_t row, size_t cap, size_t *constraint, double *g,
                                   double *force)
{
    if (!sol || row >= sol->traj.nrows)
        return 0;
    const pl_contact_entry *e;
    size_t stored = pl_solution_row_contacts(sol, row, &e), count = 0;
    int sparse = sol->contacts == PL_CONTACTS_SPARSE;
    for (size_t k = 0; k < (sparse ? stored : sol->m); k++) { /* sparse: the row's list; dense: every column */
        pl_contact_entry c = {k, NAN, 0.0};
        if (sparse)
            c = e[k];
        else
            pl_solution_contact_at(sol, row, k, &c.g, &c.force);
        if (!pl_contact_in(c.g, c.force))
            continue;
        if (count < cap) {
            if (constraint)
                constraint[count] = c.constraint;
            if (g)
                g[count] = c.g;
            if (force)
                force[count] = c.force;
        }
        count++;
    }
    return count;
}

PL_API double pl_solution_final(const pl_solution *sol, double *qv)
{
    if (!sol)
        return NAN;
    if (qv) {
        memcpy(qv, sol->q_final, sol->n * sizeof *qv);
        memcpy(qv + sol->n, sol->v_final, sol->n * sizeof *qv);
    }
    return sol->t_final;
}

PL_API size_t pl_solution_events(const pl_solution *sol)
{
    return sol ? sol->nevents : 0;
}

PL_API pl_status pl_solution_event(const pl_solution *sol, size_t k, const char **kind, double *t,
                                   size_t *constraint, double *v_before, double *v_after)
{
    if (!sol || k >= sol->nevents)
        return PL_ERR_INPUT;
    const pl_event *e = &sol->events[k];
    if (kind)
        *kind = pl_event_kind_name(e->kind);
    if (t)
        *t = e->t;
    if (constraint)
        *constraint = e->constraint;
    if (v_before)
        memcpy(v_before, e->v_before, sol->n * sizeof *v_before);
    if (v_after)
        memcpy(v_after, e->v_after, sol->n * sizeof *v_after);
    return PL_OK;
}

PL_API size_t pl_solution_episodes(const pl_solution *sol)
{
    return sol ? sol->nepisodes : 0;
}

PL_API pl_status pl_solution_episode(const pl_solution *sol, size_t k, size_t *constraint, double *t_in,
                                     double *t_out, double *restitution)
{
    if (!sol || k >= sol->nepisodes)
        return PL_ERR_INPUT;
    const pl_episode *ep = &sol->episodes[k];
    if (constraint)
        *constraint = ep->constraint;
    if (t_in)
        *t_in = ep->t_in;
    if (t_out)
        *t_out = ep->t_out;
    if (restitution)
        *restitution = pl_episode_restitution(ep);
    return PL_OK;
}

PL_API void pl_solution_work(const pl_solution *sol, long *steps, long *rhs_evals, double *seconds)
{
    if (steps)
        *steps = sol ? sol->stats.steps : 0;
    if (rhs_evals)
        *rhs_evals = sol ? sol->stats.rhs_evals : 0;
    if (seconds)
        *seconds = sol ? sol->stats.wall_seconds : NAN;
}

/* The manifest's "model": the file a model was loaded from (pl_model_load) with the hash of its
 * content now, as the command records --model's; for a model the caller defined (neither built in
 * nor loaded: a pl_case of its own, such as a model written in Python), "caller_defined": true, so
 * that `penlim plot` takes its name (a valid one, as for a model loaded from a file) for the case. */
static json_t *with_model_identity(json_t *manifest, const pl_model *model)
{
    const pl_model_library *lib = model->library;
    char hash[PL_HASH_LEN];
    int hashed = 0;
    if (lib) {
        int fd = open(lib->path, O_RDONLY | O_CLOEXEC);
        hashed = fd >= 0 && pl_hash_fd(fd, hash, NULL) == PL_OK;
        if (fd >= 0)
            close(fd);
    }
    manifest = manifest ? pl_manifest_model_identity(manifest, model, lib ? lib->path : NULL, hashed ? hash : NULL)
                        : NULL;
    if (manifest && !lib && pl_builtin_case_find(model->type->name) != model->type &&
        json_object_set_new(json_object_get(manifest, "model"), "caller_defined", json_true()) != 0) {
        json_decref(manifest);
        return NULL;
    }
    return manifest;
}

/* Files written by the library: readable by all, like an ordinary creation under the usual umask
 * (the library does not read the process's umask: changing it to read it is not thread-safe). */
#define LIBRARY_FILE_MODE 0644

/* Write a results directory as the program does: the directory opened and locked, refused if it
 * holds files penlim did not write, the journal, the files planned written by write(), then
 * manifest.json (manifest, with the files written and their hashes).  write's PL_ERR_SOLVER (a
 * budget stopped some files) still finishes the directory, and is returned, unless whole_only:
 * then any failure of write leaves the directory without a manifest (incomplete). */
static pl_status write_directory(const char *dir, const pl_strings *planned, json_t *manifest,
                                 pl_status (*write)(pl_output *out, void *user, pl_error *err), void *user,
                                 int whole_only, pl_error *err)
{
    if (!dir || !*dir)
        return pl_fail(err, PL_ERR_INPUT, "no directory given");
    if (!manifest)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    pl_output out;
    pl_outdir_state st;
    memset(&st, 0, sizeof st);
    pl_output_init(&out, dir, LIBRARY_FILE_MODE, NULL);
    int unlocked = 0;
    /* checked before anything is made: a refused place is left as it was (pl_outdir_begin creates
     * the directory and its parents) */
    pl_status s = pl_outdir_open(&out, &unlocked, err);
    if (s == PL_OK)
        s = pl_outdir_scan(&out, &st, err);
    if (s == PL_OK && (st.unsafe.n > 0 || st.foreign.n > 0)) {
        char what[512];
        pl_escape(st.unsafe.n ? st.unsafe.items[0] : st.foreign.items[0], what, sizeof what);
        s = pl_fail(err, PL_ERR_INPUT, "%s holds files penlim did not write (%s): write into a new directory", dir,
                    what);
    }
    json_t *journal = s == PL_OK ? json_deep_copy(manifest) : NULL;
    pl_strings keep = {0};
    if (s == PL_OK)
        s = journal ? pl_outdir_begin(&out, &st, journal, planned, &keep, err) : pl_fail(err, PL_ERR_NOMEM, "out of memory");
    json_decref(journal);
    pl_error stopped = {PL_OK, ""};
    pl_status ws = s == PL_OK ? write(&out, user, &stopped) : PL_OK;
    if (ws != PL_OK && (ws != PL_ERR_SOLVER || whole_only)) {
        s = ws;
        if (err)
            *err = stopped;
    }
    if (s == PL_OK)
        s = pl_outdir_finish(&out, &st, planned, manifest, err);
    if (s == PL_OK && ws == PL_ERR_SOLVER) {
        s = ws;
        if (err)
            *err = stopped;
    }
    pl_outdir_state_free(&st);
    pl_outdir_close(&out);
    pl_output_free(&out);
    return s;
}

/* ---- copies of a results directory ---- */

typedef struct {
    pl_output *from;
    const pl_outdir_state *st;
    const pl_strings *files; /* relative to from's root */
    size_t strip;            /* characters of sub/ removed from each to name the copy */
} results_copying;

/* One listed file of from copied into out, complete or absent: its bytes must hash to what from's
 * manifest records (a file changed or replaced since penlim wrote it is not copied). */
static pl_status copy_file(pl_output *out, const results_copying *c, const char *rel, pl_error *err)
{
    pl_error why;
    int fd = pl_output_open_file(c->from, rel, &why);
    if (fd < 0) /* absent, a link, not a regular file: not penlim's */
        return pl_fail(err, errno == ENOMEM ? PL_ERR_NOMEM : PL_ERR_INPUT, "%s", why.message);
    char src[2 * PATH_MAX + 2];
    snprintf(src, sizeof src, "%s/%s", c->from->root, rel);
    return pl_file_copy_checked(out, rel + c->strip, fd, src, pl_outdir_hash(c->st, rel),
                                "is not the file penlim wrote (its content hash is not the manifest's): not copied",
                                err);
}

static pl_status copy_results_files(pl_output *out, void *user, pl_error *err)
{
    const results_copying *c = user;
    pl_status s = PL_OK;
    for (size_t k = 0; s == PL_OK && k < c->files->n; k++)
        s = copy_file(out, c, c->files->items[k], err);
    return s;
}

/* The manifest of a solution copied out of a sweep's or comparison's directory: the command that
 * writes it alone (run, or limit), its solver and options as its summary.json records them, the
 * case, law, horizon, caps and model of the directory's manifest. */
static pl_status part_manifest(pl_output *from, const json_t *whole, const char *sub, json_t **out, pl_error *err)
{
    *out = NULL;
    char rel[PATH_MAX], *text = NULL;
    snprintf(rel, sizeof rel, "%s/summary.json", sub);
    pl_error why;
    int fd = pl_output_open_file(from, rel, &why);
    if (fd < 0)
        return pl_fail(err, errno == ENOMEM ? PL_ERR_NOMEM : PL_ERR_INPUT, "%s", why.message);
    size_t len = 0;
    pl_status s = pl_read_fd(fd, rel, (size_t)64 << 20, 0, &text, &len, err);
    close(fd);
    if (s != PL_OK)
        return s;
    json_t *summary = json_loadb(text, len, 0, NULL);
    free(text);
    const pl_solver_type *solver = pl_solver_find(json_string_value(json_object_get(summary, "solution")));
    if (!solver) {
        json_decref(summary);
        return pl_fail(err, PL_ERR_INPUT, "%s/%s names no solver penlim has: not a solution to copy", from->root, rel);
    }
    json_t *m = json_deep_copy(whole), *options = json_object();
    const char *drop[] = {"runs", "refined", "files", "content_hashes", "options", "command", "solver"};
    for (size_t k = 0; m && k < sizeof drop / sizeof drop[0]; k++)
        json_object_del(m, drop[k]);
    for (size_t k = 0; options && k < solver->noptions; k++) {
        json_t *v = json_object_get(summary, solver->options[k].name);
        if (json_is_number(v) && json_object_set(options, solver->options[k].name, v) != 0)
            json_decref(options), options = NULL;
    }
    json_decref(summary);
    if (!m || !options || json_object_set_new(m, "command", json_string(solver == &pl_solver_limit ? "limit" : "run")) ||
        json_object_set_new(m, "solver", json_string(solver->name)) || json_object_set_new(m, "options", options)) {
        json_decref(m);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    }
    *out = m;
    return PL_OK;
}

PL_API pl_status pl_results_copy(const char *from, const char *sub, const char *dir, pl_error *err)
{
    if (!from || !dir)
        return pl_fail(err, PL_ERR_INPUT, "pl_results_copy: no directory (NULL)");
    pl_output src;
    pl_outdir_state st;
    memset(&st, 0, sizeof st);
    pl_output_init(&src, from, LIBRARY_FILE_MODE, NULL);
    pl_status s = pl_output_open(&src, err);
    if (s == PL_OK)
        s = pl_outdir_scan(&src, &st, err);
    if (s == PL_OK && (!st.manifest || st.journal))
        s = pl_fail(err, PL_ERR_INPUT, "%s has %s: not a complete results directory, not copied", from,
                    st.journal ? "the journal of a command writing it or interrupted" : "no manifest.json");
    size_t strip = sub && *sub ? strlen(sub) + 1 : 0;
    pl_strings files = {0}, planned = {0};
    const json_t *listed = json_object_get(st.manifest, "files"), *f;
    size_t k;
    json_array_foreach(listed, k, f) {
        const char *rel = json_string_value(f);
        if (s == PL_OK && rel && (!strip || (strncmp(rel, sub, strip - 1) == 0 && rel[strip - 1] == '/')))
            if ((s = pl_strings_add(&files, rel, err)) == PL_OK)
                s = pl_strings_add(&planned, rel + strip, err);
    }
    if (s == PL_OK && files.n == 0)
        s = pl_fail(err, PL_ERR_INPUT, "%s/manifest.json lists no files%s%s: nothing to copy", from, strip ? " under " : "",
                    strip ? sub : "");
    json_t *manifest = NULL;
    if (s == PL_OK && strip)
        s = part_manifest(&src, st.manifest, sub, &manifest, err);
    else if (s == PL_OK)
        manifest = json_deep_copy(st.manifest);
    results_copying c = {&src, &st, &files, strip};
    if (s == PL_OK)
        s = write_directory(dir, &planned, manifest, copy_results_files, &c, 0, err);
    json_decref(manifest);
    pl_strings_free(&files);
    pl_strings_free(&planned);
    pl_outdir_state_free(&st);
    pl_output_close(&src);
    pl_output_free(&src);
    return s;
}

typedef struct {
    const pl_model *model;
    const pl_solution *sol;
} solution_writing;

static pl_status write_solution_files(pl_output *out, void *user, pl_error *err)
{
    solution_writing *w = user;
    pl_analysis analysis;
    pl_error aerr;
    pl_status as = pl_analyze_within(w->model, w->sol, NULL, &analysis, &aerr);
    pl_status s = pl_write_solution(out, NULL, w->model, w->sol, as == PL_OK ? &analysis : NULL, NULL, err);
    pl_analysis_free(&analysis);
    return s;
}

PL_API pl_status pl_solution_write_run(const pl_model *model, const pl_solution *sol, const pl_setting *options,
                                       size_t noptions, const char *dir, pl_error *err)
{
    if (!model || !sol || (noptions && !options))
        return pl_fail(err, PL_ERR_INPUT, "pl_solution_write: no model or no solution (NULL), or options missing");
    if (sol->n != model->n || sol->m != model->m)
        return pl_fail(err, PL_ERR_INPUT, "pl_solution_write: the solution is not one of this model (%zu dofs, %zu "
                       "constraints; the model has %zu, %zu)", sol->n, sol->m, model->n, model->m);
    /* the options the manifest records: those given, the solver's as the solution holds them */
    const pl_solver_type *solver = sol->solver;
    pl_solve_opts o;
    pl_solve_opts_init(&o, solver, model, sol->t_end);
    pl_status s = set_options(&o, solver, options, noptions, NULL, err);
    if (s != PL_OK)
        return s;
    o.t_end = sol->t_end;
    memcpy(o.option, sol->option, sizeof o.option);
    o.contacts = sol->contacts;
    pl_strings planned = {0};
    const char *files[] = {"trajectory.csv", "trajectory_s.csv", "summary.json", "contacts.csv"};
    for (size_t k = 0; s == PL_OK && k < sizeof files / sizeof files[0]; k++)
        s = pl_strings_add(&planned, files[k], err);
    json_t *manifest = pl_manifest_new(solver == &pl_solver_limit ? "limit" : "run", model, solver, &o, NULL);
    manifest = with_model_identity(manifest, model);
    solution_writing w = {model, sol};
    if (s == PL_OK)
        s = write_directory(dir, &planned, manifest, write_solution_files, &w, 0, err);
    json_decref(manifest);
    pl_strings_free(&planned);
    return s;
}

PL_API pl_status pl_solution_write(const pl_model *model, const pl_solution *sol, const char *dir, pl_error *err)
{
    return pl_solution_write_run(model, sol, NULL, 0, dir, err);
}

/* ---- studies ---- */

PL_API pl_status pl_sweep_model(const pl_model *model, const char *solver, const double *values, size_t nvalues,
                                const pl_setting *options, size_t noptions, int jobs, int with_limit,
                                pl_sweep **out, pl_error *err)
{
    return pl_sweep_model_with(model, solver, values, nvalues, options, noptions, jobs, with_limit, NULL, out, err);
}

PL_API pl_status pl_sweep_model_with(const pl_model *model, const char *solver, const double *values, size_t nvalues,
                                     const pl_setting *options, size_t noptions, int jobs, int with_limit,
                                     const pl_solve_hooks *hooks, pl_sweep **out, pl_error *err)
{
    if (!out)
        return pl_fail(err, PL_ERR_INPUT, "pl_sweep_model: no place for the sweep (out is NULL)");
    *out = NULL;
    const pl_solver_type *s = find_solver(solver, err);
    if (!s)
        return PL_ERR_INPUT;
    if (!model || (noptions && !options))
        return pl_fail(err, PL_ERR_INPUT, "pl_sweep_model: no model, or options missing");
    if (!s->refine)
        return pl_fail(err, PL_ERR_INPUT, "the %s solver has no option to refine: sweep penalty or a scheme", s->name);
    if (!values || nvalues == 0)
        return pl_fail(err, PL_ERR_INPUT, "a sweep needs at least one value of %s", s->refine);
    if (jobs < 0 || jobs > 1024)
        return pl_fail(err, PL_ERR_INPUT, "jobs must be in [0, 1024] (got %d)", jobs);
    pl_sweep_opts so;
    memset(&so, 0, sizeof so);
    so.solver = s;
    pl_solve_opts_init(&so.base, s, model, NAN);
    pl_status st0 = set_options(&so.base, s, options, noptions, s->refine, err);
    if (st0 != PL_OK)
        return st0;
    so.jobs = jobs > 0 ? jobs : 1;
    so.with_limit = with_limit != 0;
    if (hooks)
        so.base.cancel = hooks->cancel, so.base.cancel_user = hooks->user;
    double *sorted = malloc((nvalues ? nvalues : 1) * sizeof *sorted);
    pl_sweep *sw = calloc(1, sizeof *sw);
    if (!sorted || !sw) {
        free(sorted), free(sw);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    }
    memcpy(sorted, values, nvalues * sizeof *sorted);
    pl_sweep_order(s, sorted, nvalues);
    pl_status st = pl_sweep_run(model, sorted, nvalues, &so, sw, err);
    free(sorted);
    if (st != PL_OK) {
        pl_sweep_free(sw);
        free(sw);
        return st;
    }
    *out = sw;
    if (hooks && hooks->cancel && hooks->cancel(hooks->user))
        return pl_fail(err, PL_ERR_SOLVER, "cancelled");
    return PL_OK;
}

typedef struct {
    const pl_model *model;
    const pl_sweep *sw;
    json_t *manifest;
} sweep_writing;

/* The runs' files, the limit solution's and the tables; then each run in the manifest with its files. */
static pl_status write_sweep_files(pl_output *out, void *user, pl_error *err)
{
    sweep_writing *w = user;
    const pl_sweep *sw = w->sw;
    pl_status s = PL_OK;
    for (size_t k = 0; s == PL_OK && k < sw->n; k++)
        s = pl_write_sweep_run(out, w->model, sw, k, NULL, err);
    if (s == PL_OK)
        s = pl_write_sweep(out, w->model, sw, NULL, err);
    for (size_t k = 0; s == PL_OK && k < sw->n; k++) {
        char sub[128];
        pl_strings files = {0};
        pl_sweep_run_dir(sw, k, sub, sizeof sub);
        size_t len = strlen(sub);
        for (size_t j = 0; s == PL_OK && j < out->written.n; j++)
            if (strncmp(out->written.items[j], sub, len) == 0 && out->written.items[j][len] == '/')
                s = pl_strings_add(&files, out->written.items[j], err);
        if (s == PL_OK)
            s = pl_manifest_add_run(w->manifest, sw->param[k], sw->runs[k].status == PL_OK ? "ok" : "failed", sub,
                                    &files, err);
        pl_strings_free(&files);
    }
    return s;
}

PL_API pl_status pl_sweep_write(const pl_model *model, const pl_sweep *sw, const char *dir, pl_error *err)
{
    if (!model || !sw)
        return pl_fail(err, PL_ERR_INPUT, "pl_sweep_write: no model or no sweep (NULL)");
    pl_strings planned = {0};
    pl_status s = pl_sweep_files(sw->param_name, sw->param, sw->n, sw->has_limit, 0, &planned, err);
    json_t *manifest = pl_manifest_new("sweep", model, sw->solver, &sw->base, sw->param_name);
    manifest = with_model_identity(manifest, model);
    sweep_writing w = {model, sw, manifest};
    if (s == PL_OK)
        s = write_directory(dir, &planned, manifest, write_sweep_files, &w, 0, err);
    json_decref(manifest);
    pl_strings_free(&planned);
    return s;
}

/* ---- comparisons ---- */

struct pl_compare {
    pl_compare_set set;
    const pl_model *model; /* the one compared: its files are written with it */
};

PL_API pl_status pl_compare_model(const pl_model *model, const pl_compare_options *options, pl_compare **out,
                                  pl_error *err)
{
    if (!out)
        return pl_fail(err, PL_ERR_INPUT, "pl_compare_model: no place for the comparison (out is NULL)");
    *out = NULL;
    if (!model || !options || (options->noptions && !options->options))
        return pl_fail(err, PL_ERR_INPUT, "pl_compare_model: no model, or options missing");
    pl_solve_opts penalty;
    pl_solve_opts_init(&penalty, &pl_solver_penalty, model, NAN);
    pl_status s = set_options(&penalty, &pl_solver_penalty, options->options, options->noptions, NULL, err);
    if (s != PL_OK)
        return s;
    penalty.cancel = options->cancel;
    penalty.cancel_user = options->user;
    if ((s = pl_solve_check(&pl_solver_penalty, model, &penalty, err)) != PL_OK)
        return s;
    pl_compare *c = calloc(1, sizeof *c);
    if (!c)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    c->model = model;
    s = pl_compare_plan(&c->set, model, &penalty, options->specs, options->nspecs, options->work_precision != 0, err);
    if (s == PL_OK) {
        pl_comparison_opts copts = {.progress = options->progress, .user = options->user};
        s = pl_compare_set_run(&c->set, model, &copts, err);
    }
    if (s != PL_OK) {
        pl_compare_destroy(c);
        return s;
    }
    *out = c;
    if (options->cancel && options->cancel(options->user))
        return pl_fail(err, PL_ERR_SOLVER, "cancelled");
    const pl_solution *limit = &c->set.c.limit;
    if (limit->status != PL_OK) /* nothing measured against it: the command's exit status 3 */
        return pl_fail(err, limit->status == PL_ERR_NOMEM ? PL_ERR_NOMEM : PL_ERR_SOLVER,
                       "the limit solution failed: %s", limit->error.message);
    return PL_OK;
}

PL_API void pl_compare_destroy(pl_compare *c)
{
    if (!c)
        return;
    pl_compare_set_free(&c->set);
    free(c);
}

PL_API size_t pl_compare_size(const pl_compare *c)
{
    return c ? c->set.n : 0;
}

PL_API pl_status pl_compare_item(const pl_compare *c, size_t k, const char **solver, double *value,
                                 const pl_solution **sol, pl_error *err)
{
    if (!c)
        return pl_fail(err, PL_ERR_INPUT, "pl_compare_item: no comparison (NULL)");
    if (k >= c->set.n)
        return pl_fail(err, PL_ERR_INPUT, "solution %zu of a comparison of %zu", k, c->set.n);
    const pl_comparison_item *it = &c->set.item[k];
    if (solver)
        *solver = it->solver->name;
    if (value)
        *value = c->set.e[k].param;
    if (sol)
        *sol = &it->sol;
    if (it->sol.status != PL_OK) {
        if (err)
            *err = it->sol.error;
        return it->sol.status;
    }
    return PL_OK;
}

PL_API const pl_solution *pl_compare_limit(const pl_compare *c)
{
    return c && c->set.ran ? &c->set.c.limit : NULL;
}

PL_API pl_status pl_compare_limit_status(const pl_compare *c, pl_error *err)
{
    if (!c || !c->set.ran)
        return pl_fail(err, PL_ERR_INPUT, "pl_compare_limit_status: no comparison (NULL)");
    const pl_solution *limit = &c->set.c.limit;
    if (limit->status != PL_OK && err)
        *err = limit->error;
    return limit->status;
}

typedef struct {
    const pl_model *model;
    pl_compare *c;
} compare_writing;

static pl_status write_compare_files(pl_output *out, void *user, pl_error *err)
{
    compare_writing *w = user;
    return pl_compare_set_write(&w->c->set, out, w->model, w->c->set.limit.max_seconds, err);
}

PL_API pl_status pl_compare_write(const pl_model *model, pl_compare *c, const char *dir, pl_error *err)
{
    if (!model || !c || !c->set.ran)
        return pl_fail(err, PL_ERR_INPUT, "pl_compare_write: no model or no comparison (NULL)");
    if (model != c->model)
        return pl_fail(err, PL_ERR_INPUT, "pl_compare_write: the model is not the one compared (%s, %zu dofs; the "
                       "comparison's: %s, %zu dofs)", model->type->name, model->n, c->model->type->name, c->model->n);
    pl_strings planned = {0};
    pl_status s = pl_compare_files(c->set.e, c->set.n, 0, &planned, err);
    json_t *manifest = s == PL_OK ? with_model_identity(pl_compare_manifest(&c->set, model, NULL, NULL), model) : NULL;
    compare_writing w = {model, c};
    if (s == PL_OK)
        s = write_directory(dir, &planned, manifest, write_compare_files, &w, 0, err);
    json_decref(manifest);
    pl_strings_free(&planned);
    return s;
}

PL_API void pl_sweep_destroy(pl_sweep *sw)
{
    if (!sw)
        return;
    pl_sweep_free(sw);
    free(sw);
}

PL_API size_t pl_sweep_runs(const pl_sweep *sw)
{
    return sw ? sw->n : 0;
}

PL_API pl_status pl_sweep_run_result(const pl_sweep *sw, size_t k, double *value, const pl_solution **sol,
                                     pl_error *err)
{
    if (!sw)
        return pl_fail(err, PL_ERR_INPUT, "pl_sweep_run_result: no sweep (NULL)");
    if (k >= sw->n)
        return pl_fail(err, PL_ERR_INPUT, "run %zu of a sweep of %zu", k, sw->n);
    if (value)
        *value = sw->param[k];
    if (sol)
        *sol = &sw->runs[k];
    if (sw->runs[k].status != PL_OK) {
        if (err)
            *err = sw->runs[k].error;
        return sw->runs[k].status;
    }
    return PL_OK;
}

PL_API const pl_solution *pl_sweep_limit(const pl_sweep *sw)
{
    return sw && sw->has_limit ? &sw->limit : NULL;
}

PL_API pl_status pl_sweep_quantity_get(const pl_sweep *sw, const char *name, double *values, double *limit,
                                   double *rate, double *rate_se, pl_error *err)
{
    if (!sw)
        return pl_fail(err, PL_ERR_INPUT, "pl_sweep_quantity_get: no sweep (NULL)");
    for (size_t q = 0; q < PL_SWEEP_NQ; q++) {
        const pl_sweep_quantity *sq = &sw->q[q];
        if (!sq->name || !name || strcmp(sq->name, name) != 0)
            continue;
        if (values)
            memcpy(values, sq->values, sw->n * sizeof *values);
        if (limit)
            *limit = sq->conv.limit;
        if (rate)
            *rate = sq->conv.rate;
        if (rate_se)
            *rate_se = sq->conv.rate_se;
        return PL_OK;
    }
    return pl_fail(err, PL_ERR_INPUT, "unknown sweep quantity '%s'", name ? name : "(null)");
}

PL_API pl_status pl_solution_read_external(const pl_model *model, const char *path, double t_end, pl_solution **out,
                                           pl_error *err)
{
    if (!out)
        return pl_fail(err, PL_ERR_INPUT, "pl_solution_read_external: no place for the solution (out is NULL)");
    *out = NULL;
    if (!model || !path)
        return pl_fail(err, PL_ERR_INPUT, "pl_solution_read_external: no model or no file (NULL)");
    pl_solution *sol = calloc(1, sizeof *sol);
    if (!sol)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    int has_gamma = 0;
    pl_status s = pl_read_external(path, model, isnan(t_end) ? model->type->t_end : t_end, PL_CONTACTS_AUTO, sol,
                                   &has_gamma, err);
    if (s != PL_OK) {
        pl_solution_free(sol);
        free(sol);
        return s;
    }
    *out = sol;
    return PL_OK;
}

PL_API pl_status pl_compare_to_limit(const pl_model *model, const pl_solution *sol, const pl_solution *limit,
                                     double *sup_q, double *l1_v, double *impact_time_error,
                                     double *impact_velocity_error, pl_error *err)
{
    if (!model || !sol || !limit)
        return pl_fail(err, PL_ERR_INPUT, "pl_compare_to_limit: a model and two solutions are needed");
    if (sol->n != model->n || sol->m != model->m || limit->n != model->n || limit->m != model->m)
        return pl_fail(err, PL_ERR_INPUT, "pl_compare_to_limit: the solutions are not of this model (%zu dof, %zu "
                       "constraints)", model->n, model->m);
    if (limit->solver->family != PL_FAMILY_LIMIT)
        return pl_fail(err, PL_ERR_INPUT, "pl_compare_to_limit: the reference is a %s solution, not the limit "
                       "solution", limit->solver->name);
    /* A failed solution is not measured, as in a sweep or compare (n/a there): it stopped at t_final, and
     * its distances over [0, t_final] would look like those of a solution that reached t_end. */
    const pl_solution *s[2] = {limit, sol};
    for (int k = 0; k < 2; k++)
        if (s[k]->status != PL_OK)
            return pl_fail(err, PL_ERR_INPUT, "pl_compare_to_limit: the %s failed (%.300s): it is not measured",
                           k ? "solution" : "limit solution", s[k]->error.message);
    pl_analysis a[2];
    pl_trajectory tr[2];
    memset(a, 0, sizeof a);
    memset(tr, 0, sizeof tr);
    pl_compare_result res;
    int compared;
    pl_status st = pl_measure_solution(model, limit, NULL, NULL, 0, &a[0], &tr[0], NULL, NULL, &compared, err);
    if (st == PL_OK) {
        pl_analysed ref = {limit, &a[0], &tr[0]};
        st = pl_measure_solution(model, sol, NULL, &ref, pl_solver_can(sol->solver, PL_SOLVER_GAMMA), &a[1], &tr[1],
                                 &res, NULL, &compared, err);
    }
    for (int k = 0; k < 2; k++) {
        pl_analysis_free(&a[k]);
        pl_trajectory_free(&tr[k]);
    }
    if (st != PL_OK)
        return st;
    if (sup_q)
        *sup_q = res.d.sup_q;
    if (l1_v)
        *l1_v = res.d.l1_v;
    if (impact_time_error)
        *impact_time_error = res.d.impact_time_error;
    if (impact_velocity_error)
        *impact_velocity_error = res.d.impact_velocity_error;
    return PL_OK;
}

/* ---- studies ---- */

PL_API pl_status pl_study_create(const pl_case *c, const pl_study_options *options, pl_study **out, pl_error *err)
{
    if (!out)
        return pl_fail(err, PL_ERR_INPUT, "pl_study_create: no place for the study (out is NULL)");
    *out = NULL;
    if (!c || !options)
        return pl_fail(err, PL_ERR_INPUT, "pl_study_create: no case or no options");
    if ((options->nsettings && !options->settings) || (options->noptions && !options->options) ||
        (options->ngrids && !options->grids))
        return pl_fail(err, PL_ERR_INPUT, "pl_study_create: settings, options or grids missing");
    if (options->jobs < 0 || options->jobs > 1024)
        return pl_fail(err, PL_ERR_INPUT, "jobs must be in [0, 1024] (got %d)", options->jobs);
    const pl_solver_type *s = find_solver(options->solver ? options->solver : "penalty", err);
    const pl_law_type *law = options->law ? pl_law_type_find(options->law) : pl_law_type_default();
    if (!s)
        return PL_ERR_INPUT;
    if (!law)
        return pl_fail(err, PL_ERR_INPUT, "unknown contact law '%s' (penlim laws lists them)", options->law);
    /* the caps by name, as pl_solve_model takes them; the solver's own options kept by name */
    pl_solve_opts caps;
    memset(&caps, 0, sizeof caps);
    caps.t_end = NAN;
    caps.samples = SIZE_MAX;
    pl_setting *set = malloc((options->nsettings + 1) * sizeof *set);
    pl_setting *opt = malloc((options->noptions + 1) * sizeof *opt);
    pl_study *st = calloc(1, sizeof *st);
    if (!set || !opt || !st) {
        free(set), free(opt), free(st);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    }
    if (options->nsettings)
        memcpy(set, options->settings, options->nsettings * sizeof *set);
    size_t nopt = 0;
    pl_status r = PL_OK;
    for (size_t k = 0; k < options->noptions && r == PL_OK; k++) {
        if (pl_solver_option_index(s, options->options[k].name) >= 0)
            opt[nopt++] = options->options[k];
        else
            r = set_options(&caps, s, &options->options[k], 1, NULL, err);
    }
    pl_study_spec sp = {.c = c, .law = law, .solver = s, .settings = set, .nsettings = options->nsettings,
                        .options = opt, .noptions = nopt, .grids = options->grids, .ngrids = options->ngrids,
                        .zip = options->zip != 0, .t_end = caps.t_end, .samples = caps.samples,
                        .max_steps = caps.max_steps, .max_seconds = caps.max_seconds, .max_output = caps.max_output,
                        .contacts = caps.contacts, .jobs = options->jobs > 0 ? options->jobs : 1,
                        .progress = options->progress, .cancel = options->cancel, .user = options->user};
    if (r == PL_OK)
        r = pl_study_plan(&sp, st, err);
    st->owned_settings = set;
    st->owned_options = opt;
    if (r != PL_OK) {
        pl_study_destroy(st);
        return r;
    }
    *out = st;
    return PL_OK;
}

PL_API size_t pl_study_size(const pl_study *st, size_t *points, size_t *limits)
{
    if (points)
        *points = st ? st->npoints : 0;
    if (limits)
        *limits = st ? st->nlimits : 0;
    return st ? st->nruns : 0;
}

/* The study's tasks, their analysis and its tables: `penlim study --no-plots` in one process. */
static pl_status write_study_files(pl_output *out, void *user, pl_error *err)
{
    pl_study *st = user;
    out->sync_later = 1; /* a study's many files synced at once, before the manifest lists them */
    pl_status s = pl_study_phase1(st, out, NULL, err);
    if (s == PL_OK)
        s = pl_study_assemble(st, out, err);
    if (s == PL_OK)
        s = pl_write_study(out, st, err);
    return s;
}

PL_API pl_status pl_study_run(pl_study *st, const char *dir, pl_error *err)
{
    if (!st || !dir)
        return pl_fail(err, PL_ERR_INPUT, "pl_study_run: no study or no directory");
    if (st->assembled)
        return pl_fail(err, PL_ERR_INPUT, "pl_study_run: the study has run already");
    pl_strings planned = {0};
    pl_status s = PL_OK;
    for (size_t t = 0; s == PL_OK && t < st->ntasks; t++)
        s = pl_study_plan_task_files(st, t, &planned, err);
    if (s == PL_OK)
        s = pl_strings_add(&planned, "study.csv", err);
    if (s == PL_OK)
        s = pl_strings_add(&planned, "study.json", err);
    pl_error why = {PL_OK, ""};
    json_t *manifest = s == PL_OK ? pl_study_manifest(st, NULL, NULL, NULL, &why) : NULL;
    if (s == PL_OK && !manifest) {
        s = why.status;
        if (err)
            *err = why;
    }
    if (s == PL_OK)
        s = write_directory(dir, &planned, manifest, write_study_files, st, 1, err);
    json_decref(manifest);
    pl_strings_free(&planned);
    return s;
}

PL_API pl_status pl_study_value_get(const pl_study *st, size_t run, const char *name, double *value, pl_error *err)
{
    if (!st || !st->assembled)
        return pl_fail(err, PL_ERR_INPUT, "pl_study_value_get: the study has not run");
    if (run >= st->nruns)
        return pl_fail(err, PL_ERR_INPUT, "run %zu of a study of %zu", run, st->nruns);
    int col = name ? pl_sweep_row_column(name) : -1;
    const pl_study_run_result *res = &st->run[run];
    /* the final state's columns: final_t, final_qJ, final_vJ (1-based, up to the study's largest dof) */
    char kind = 0, tail = 0;
    unsigned long j = 0;
    int final = name && (strcmp(name, "final_t") == 0 ||
                         (sscanf(name, "final_%c%lu%c", &kind, &j, &tail) == 2 && (kind == 'q' || kind == 'v') &&
                          j >= 1 && j <= st->max_dof && strchr("123456789", name[7])));
    double x = NAN;
    if (col >= 0)
        x = res->row[col];
    else if (final && strcmp(name, "final_t") == 0)
        x = res->final_t;
    else if (final && res->final_qv && j <= res->n)
        x = res->final_qv[(kind == 'v' ? res->n : 0) + j - 1];
    if (value)
        *value = x;
    if (col < 0 && !final && name)
        return pl_fail(err, PL_ERR_INPUT, "unknown quantity '%s' (the columns of study.csv)", name);
    if (res->status != PL_OK)
        return pl_fail(err, res->status, "%s", res->error ? res->error : "failed");
    return PL_OK;
}

PL_API void pl_study_destroy(pl_study *st)
{
    if (!st)
        return;
    pl_study_free(st);
    free(st);
}
