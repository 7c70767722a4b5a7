/* penlim study and penlim merge: parameter studies over several axes (src/study/study.h), in one
 * process (--jobs threads), as shards of a batch job array (--shard I/N, then merge), resumed after a
 * kill (--resume).  The output directory is a sweep's: locked, the journal written as each task's
 * files are, manifest.json at the end (docs/formats.md, "Studies"). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/common.h"
#include "cli/farm.h"
#include "cli/progress.h"
#include "core/clock.h"
#include "io/report.h"
#include "io/study_plots.h"
#include "io/study_report.h"
#include "study/study.h"
#include "study/study_dir.h"

static const char study_usage[] =
    "usage: penlim study (CASE | --model FILE) --grid NAME=VALUES [--grid NAME=VALUES ...] [--zip]\n"
    "                    [--scheme NAME] [--law NAME] [--set NAME=VALUE ...] [--map QUANTITY]\n"
    "                    [--map-axes A,B] [--jobs J] [--resume] [--shard I/N] [--out DIR] [--no-plots]\n"
    "                    [--quiet] [--max-seconds S] [--t-end T] [--rtol R] [--mu MU] [--h H]\n"
    "                    [--theta TH] [--gamma G] [--samples N] [--max-steps N] [--max-output N]\n"
    "                    [--contacts dense|sparse] [--force]\n"
    "Runs over the product of several axes (or, --zip, their pairing), each measured as a sweep's run\n"
    "against the limit solution of its own case and law parameters (computed once per distinct set);\n"
    "where mu (or h, with --scheme) is an axis, the rates along it are fitted per point of the others.\n"
    "  --grid NAME=VALUES an axis, in the order given (the first varies slowest): NAME a parameter of\n"
    "                    the case or of the law, mu, h, rtol or t-end; VALUES a,b,c, A:B:N (geometric\n"
    "                    for mu, h and rtol, linear for the others) or lin:A:B:N\n"
    "  --zip             pair the axes (of equal lengths) instead of taking their product\n"
    "  --map QUANTITY    the quantity of the map over two axes (default restitution_first)\n"
    "  --map-axes A,B    the map's axes (default the first two with more than one value)\n"
    "  --jobs J          runs in parallel (default: the number of cores); results do not depend on it\n"
    "  --resume          reuse the runs and limit solutions of DIR that an earlier study with the same\n"
    "                    settings completed (its manifest or, if interrupted, its journal)\n"
    "  --shard I/N       run only the tasks dealt to shard I of N (costs balanced), into DIR; then\n"
    "                    'penlim merge DIR1 ... DIRN --out DIR' (a batch system's job array)\n"
    "  --out DIR         output directory (default out/study/CASE): study.csv, study.json, the\n"
    "                    figures, runs/NNNNN/, limits/NNN/, manifest.json\n"
    "  --max-seconds S   the set-up within S of the start, then each run and limit solution within S\n"
    "                    of its own start, with its analysis (default: none)\n"
    "  --quiet           no progress and no summary\n"
    "  --mu, --h, --rtol, --theta, --gamma: the solver's options of every run (not an axis)\n"
    "  --model, --set, --law, --t-end, --samples, --max-steps, --max-output, --contacts, --force,\n"
    "  --no-plots: as for 'penlim sweep'\n";

static const char merge_usage[] =
    "usage: penlim merge DIR... --out DIR [--model FILE] [--jobs J] [--no-plots] [--force] [--quiet]\n"
    "Merge the shards of one study ('penlim study --shard I/N', each complete, each once) into one\n"
    "study directory: the shards' run files copied (their content hashes verified), then the\n"
    "analysis, study.csv, study.json and the figures, the same data as the study run in one process.\n"
    "  --model FILE      the model compiled apart that the shards ran (the same file: its content\n"
    "                    hash is checked); a path read from a shard is never loaded\n";

/* ---- the study's identity (src/study/study_dir.h writes it) ------------------------------------ */

/* A study's spec from its identity (merge), into storage the caller keeps: NULL-terminated strings
 * of the identity itself; settings and options into set and opt (MAX_SETTINGS, MAX_GIVEN). */
typedef struct {
    pl_study_spec spec;
    const char *grids[MAX_GRIDS];
    pl_setting set[MAX_SETTINGS], opt[MAX_GIVEN];
} spec_storage;

static int number_or_nan(const json_t *j, double *x)
{
    if (json_is_null(j)) {
        *x = NAN;
        return 1;
    }
    if (!json_is_number(j))
        return 0;
    *x = json_number_value(j);
    return 1;
}

static int settings_from(const json_t *a, pl_setting *s, size_t cap, size_t *n)
{
    if (!json_is_array(a) || json_array_size(a) > cap)
        return 0;
    for (*n = 0; *n < json_array_size(a); (*n)++) {
        const json_t *o = json_array_get(a, *n);
        const char *name = json_string_value(json_object_get(o, "name"));
        if (!name || strlen(name) >= sizeof s[*n].name || !number_or_nan(json_object_get(o, "value"), &s[*n].value))
            return 0;
        snprintf(s[*n].name, sizeof s[*n].name, "%s", name);
    }
    return 1;
}

static int spec_from_identity(const json_t *id, const pl_case *c, spec_storage *ss)
{
    memset(ss, 0, sizeof *ss);
    pl_study_spec *sp = &ss->spec;
    const json_t *grids = json_object_get(id, "grids");
    const char *law = json_string_value(json_object_get(id, "law"));
    const char *solver = json_string_value(json_object_get(id, "solver"));
    if (!json_is_array(grids) || json_array_size(grids) > MAX_GRIDS || !law || !solver)
        return 0;
    for (size_t k = 0; k < json_array_size(grids); k++)
        if (!(ss->grids[k] = json_string_value(json_array_get(grids, k))))
            return 0;
    sp->c = c;
    sp->grids = ss->grids;
    sp->ngrids = json_array_size(grids);
    sp->zip = json_is_true(json_object_get(id, "zip"));
    sp->law = pl_law_type_find(law);
    sp->solver = pl_solver_find(solver);
    const json_t *samples = json_object_get(id, "samples");
    sp->samples = json_is_null(samples) ? SIZE_MAX : (size_t)json_integer_value(samples);
    sp->max_steps = (long)json_integer_value(json_object_get(id, "max_steps"));
    sp->contacts = (pl_contacts_mode)json_integer_value(json_object_get(id, "contacts"));
    double max_output = 0;
    int ok = sp->law && sp->solver && settings_from(json_object_get(id, "settings"), ss->set, MAX_SETTINGS, &sp->nsettings) &&
             settings_from(json_object_get(id, "options"), ss->opt, MAX_GIVEN, &sp->noptions) &&
             number_or_nan(json_object_get(id, "t_end"), &sp->t_end) &&
             number_or_nan(json_object_get(id, "max_output"), &max_output);
    sp->max_output = isnan(max_output) ? 0 : max_output;
    sp->settings = ss->set;
    sp->options = ss->opt;
    sp->jobs = 1;
    return ok;
}

/* ---- writing a study ------------------------------------------------------------------------ */

typedef struct {
    outdir_session *d;
    const pl_study *st;
    progress_state *ps;
    pl_status status; /* the first failure to write the journal */
    pl_error err;
    size_t failed_tasks;
    double journal_next; /* the journal is written again from this time on (pl_now_seconds) */
} study_io;

/* A task's files are in the output: the journal records them, so that a killed study's --resume
 * reuses them.  The journal lists every file, and is rewritten whole: written after every task, a
 * study of many cheap runs would spend its time there; it is written again once 10 times as long as
 * its last writing took has passed (so at most a tenth of the time goes to it), which for a journal
 * of a few thousand runs is after each task still.  A dead writer loses the tasks in flight and those
 * completed since the journal was last written. */
static void task_done(size_t task, int failed, void *user)
{
    study_io *io = user;
    (void)task;
    io->failed_tasks += failed != 0;
    double now = pl_now_seconds();
    if (io->status != PL_OK || now < io->journal_next)
        return;
    io->status = pl_outdir_journal_update(&io->d->out, io->d->journal, &io->err);
    double took = pl_now_seconds() - now;
    io->journal_next = now + 11.0 * took;
}

static void study_progress(const pl_study_progress *p, void *user)
{
    study_io *io = user;
    progress_on_study(p, io->ps);
}

/* Whether the output already holds task's files as an earlier run of this study wrote them (resume):
 * recorded with their hashes by a manifest or journal of the same identity and the same meaning of
 * --samples ("sampling": absent from the studies whose penalized runs stored a uniform grid), and still
 * those bytes. */
static int same_study(const json_t *m, const json_t *request)
{
    return json_equal(json_object_get(m, "study"), json_object_get(request, "study")) &&
           json_equal(json_object_get(m, "model"), json_object_get(request, "model")) &&
           json_equal(json_object_get(m, "sampling"), json_object_get(request, "sampling"));
}

static int task_reusable(const outdir_session *d, const pl_study *st, size_t task, pl_strings *keep, pl_error *err)
{
    /* whichever of the manifest and the journal the directory holds is of this very study */
    const json_t *m = d->st.manifest, *j = d->st.journal;
    if ((!m && !j) || (m && !same_study(m, d->manifest)) || (j && !same_study(j, d->manifest)))
        return 0;
    char sub[64], rel[96];
    pl_study_task_dir(st, task, sub, sizeof sub);
    size_t n = PL_STUDY_TASK_FILES_ALWAYS;
    snprintf(rel, sizeof rel, "%s/%s", sub, pl_study_task_files[PL_STUDY_TASK_FILES_ALWAYS]);
    if (pl_outdir_hash(&d->st, rel)) /* sparse contacts */
        n++;
    for (size_t k = 0; k < n; k++) {
        snprintf(rel, sizeof rel, "%s/%s", sub, pl_study_task_files[k]);
        pl_error e;
        if (!pl_outdir_hash(&d->st, rel) || pl_outdir_verify(&d->out, &d->st, rel, &e) != PL_OK)
            return 0;
    }
    /* a failed run (stopped by --max-seconds, say) is computed again */
    snprintf(rel, sizeof rel, "%s/summary.json", sub);
    pl_error e;
    int fd = pl_output_open_file(&d->out, rel, &e);
    char *text = NULL;
    size_t len = 0;
    int ok = fd >= 0 && pl_read_fd(fd, rel, (size_t)1 << 30, 0, &text, &len, &e) == PL_OK;
    if (fd >= 0)
        close(fd);
    json_t *summary = ok ? json_loadb(text, len, 0, NULL) : NULL;
    const char *status = json_string_value(json_object_get(summary, "status"));
    ok = status && strcmp(status, "ok") == 0;
    json_decref(summary);
    free(text);
    if (!ok)
        return 0;
    for (size_t k = 0; k < n; k++) {
        snprintf(rel, sizeof rel, "%s/%s", sub, pl_study_task_files[k]);
        if (pl_strings_add(keep, rel, err) != PL_OK)
            return -1;
    }
    return 1;
}

/* The kept files of the reused tasks, recorded in the output with the hashes they were verified
 * against: phase 2 reads them against these. */
static pl_status record_kept(outdir_session *d, pl_error *err)
{
    pl_status s = PL_OK;
    for (size_t k = 0; s == PL_OK && k < d->keep.n; k++)
        s = pl_output_add_hashed(&d->out, d->keep.items[k], pl_outdir_hash(&d->st, d->keep.items[k]), err);
    return s;
}

/* The figures' choices (--map, --map-axes), as the manifest records them ("figures": what `penlim
 * plot` and `penlim merge` draw again): the map's quantity and axes, NULL for the defaults. */
typedef struct {
    pl_study_plot_opts opts;
    char axes[2][64];
} figure_choice;

static void figures_from_options(const case_options *o, figure_choice *fc)
{
    memset(fc, 0, sizeof *fc);
    fc->opts.map = o->map;
    const char *comma = o->map_axes ? strchr(o->map_axes, ',') : NULL;
    if (comma) {
        snprintf(fc->axes[0], sizeof fc->axes[0], "%.*s", (int)(comma - o->map_axes), o->map_axes);
        snprintf(fc->axes[1], sizeof fc->axes[1], "%s", comma + 1);
        fc->opts.map_axes[0] = fc->axes[0];
        fc->opts.map_axes[1] = fc->axes[1];
    }
}

/* The choices recorded in a manifest (a merge's, copied from its shards': checked by the figures'
 * own reading, which refuses a name the study lacks). */
static void figures_from_manifest(const json_t *manifest, figure_choice *fc)
{
    memset(fc, 0, sizeof *fc);
    const json_t *f = json_object_get(manifest, "figures");
    fc->opts.map = json_string_value(json_object_get(f, "map"));
    const json_t *axes = json_object_get(f, "map_axes");
    if (json_array_size(axes) == 2 && json_is_string(json_array_get(axes, 0)) && json_is_string(json_array_get(axes, 1)))
        for (int k = 0; k < 2; k++) {
            snprintf(fc->axes[k], sizeof fc->axes[k], "%s", json_string_value(json_array_get(axes, k)));
            fc->opts.map_axes[k] = fc->axes[k];
        }
}

/* The choices checked against the study before anything runs (PL_ERR_INPUT naming the quantity or
 * axis), and with planned, the files the figures may write added to it. */
static pl_status figures_plan(const figure_choice *fc, const pl_study *st, pl_strings *planned, pl_error *err)
{
    pl_strings cols = {0};
    const char **axes = calloc(st->naxes ? st->naxes : 1, sizeof *axes);
    size_t *nvalues = calloc(st->naxes ? st->naxes : 1, sizeof *nvalues);
    pl_status s = axes && nvalues ? pl_study_columns(st, &cols, err) : pl_fail(err, PL_ERR_NOMEM, "out of memory");
    for (size_t a = 0; s == PL_OK && a < st->naxes; a++) {
        axes[a] = st->axes[a].name;
        nvalues[a] = st->axes[a].n;
    }
    if (s == PL_OK)
        s = pl_study_plot_check(&fc->opts, axes, nvalues, st->naxes, st->spec.zip, (const char *const *)cols.items, cols.n,
                                err);
    if (s == PL_OK && planned)
        s = pl_study_plot_planned_files(&fc->opts, (const char *const *)cols.items, cols.n, planned, err);
    pl_strings_free(&cols);
    free(axes);
    free(nvalues);
    return s;
}

typedef struct {
    progress_state *ps;
} figures_progress;

static void on_figure(size_t done, size_t total, void *user)
{
    progress_phase(((figures_progress *)user)->ps, "figures", "", done, total, 0);
}

/* The figures of the study, drawn from study.csv and study.json (src/io/study_plots.h) with the
 * choices its manifest records, within --max-seconds of their own start. */
static pl_status render_figures(outdir_session *d, const case_options *o, progress_state *ps, pl_error *err)
{
    figure_choice fc;
    figures_from_manifest(d->manifest, &fc);
    figures_progress fp = {ps};
    fc.opts.progress = on_figure;
    fc.opts.user = &fp;
    pl_budget budget = {o->max_seconds, pl_now_seconds()};
    return pl_render_study_plots(&d->out, &fc.opts, &budget, err);
}

/* Phase 2 and the study's own files, after phase 1 (or the merge's copies) filled d->out. */
static int finish_study(const char *cmd, outdir_session *d, pl_study *st, const case_options *o, progress_state *ps,
                        int plots)
{
    pl_error err;
    pl_status s = pl_study_assemble(st, &d->out, &err);
    if (s == PL_OK)
        s = pl_write_study(&d->out, st, &err);
    pl_error plot_err;
    pl_status figures = PL_OK;
    if (s == PL_OK && plots)
        figures = render_figures(d, o, ps, &plot_err);
    if (s == PL_OK)
        s = pl_outdir_finish(&d->out, &d->st, &d->planned, d->manifest, &err);
    progress_end(ps);
    if (s != PL_OK) {
        fprintf(stderr, "penlim %s: %s\n", cmd, err.message);
        return exit_code(s);
    }
    if (figures != PL_OK)
        fprintf(stderr, "penlim %s: warning: figures skipped: %s\n", cmd, plot_err.message);
    size_t failed = 0, limits_failed = 0;
    for (size_t r = 0; r < st->nruns; r++)
        failed += st->run[r].status != PL_OK;
    for (size_t l = 0; l < st->nlimits; l++)
        limits_failed += st->limit_status[l] != PL_OK;
    if (!o->quiet) {
        printf("study %s: %zu runs over %zu points (%zu failed), %zu limit solutions (%zu failed)\n", st->spec.c->name,
               st->nruns, st->npoints, failed, st->nlimits, limits_failed);
        print_written(d->out.root, &d->out.written);
    }
    for (size_t r = 0, shown = 0; r < st->nruns && shown < 5; r++)
        if (st->run[r].status != PL_OK) {
            fprintf(stderr, "penlim %s: run %zu failed: %s\n", cmd, r, st->run[r].error ? st->run[r].error : "");
            if (++shown == 5 && failed > 5)
                fprintf(stderr, "penlim %s: ... %zu runs failed in all (study.json lists each)\n", cmd, failed);
        }
    return failed || limits_failed ? 3 : 0;
}

/* What a study's set-up gives: its options, solver, base options and plan's spec, the figures' choices. */
typedef struct {
    case_options o;
    const pl_solver_type *solver;
    pl_solve_opts base;
    pl_setting options[MAX_GIVEN]; /* the solver's options given, fixed for every run */
    size_t noptions;
    pl_study_spec spec;
    figure_choice fc;
    int jobs_given; /* --jobs given (else the default: the cores, or 1 a process under MPI) */
} study_setup;

/* Parse, check and plan the study (every process of an MPI job does the same): an exit status with
 * its message printed, or -1. */
static int setup_study(int argc, char **argv, pl_model *model, pl_study *st, study_setup *su, long default_jobs)
{
    su->o = (case_options){.cmd = "study", .t_end = NAN, .jobs = 0}; /* 0: --jobs not given */
    int rc = parse_case_options(argc, argv, &su->o, CMD_STUDY, study_usage);
    su->jobs_given = su->o.jobs > 0;
    if (!su->jobs_given)
        su->o.jobs = default_jobs;
    if (rc >= 0 || (rc = choose_solver(&su->o, &pl_solver_penalty, &su->solver)) >= 0)
        return rc;
    if ((rc = prepare(&su->o, su->solver, NULL, model, &su->base)) >= 0)
        return rc;
    /* the solver's options given, fixed for every run */
    pl_error err;
    for (size_t k = 0; k < su->o.ngiven; k++) {
        snprintf(su->options[su->noptions].name, sizeof su->options[su->noptions].name, "%s", su->o.given_name[k]);
        if (pl_parse_double(su->o.given_text[k], &su->options[su->noptions++].value, &err, su->o.given_name[k]) != PL_OK)
            return failure("study", &err);
    }
    su->spec = (pl_study_spec){.c = su->o.c, .law = su->o.law, .solver = su->solver, .settings = su->o.settings,
                          .nsettings = su->o.nsettings, .options = su->options, .noptions = su->noptions,
                          .grids = su->o.grid, .ngrids = su->o.ngrids, .zip = su->o.zip, .t_end = su->o.t_end,
                          .samples = su->o.samples_given ? (size_t)su->o.samples : SIZE_MAX, .max_steps = su->o.max_steps,
                          .max_seconds = su->o.max_seconds, .max_output = su->o.max_output, .contacts = su->o.contacts,
                          .jobs = (int)su->o.jobs};
    if (pl_study_plan(&su->spec, st, &err) != PL_OK)
        return failure("study", &err);
    /* the map's quantity and axes, checked before anything runs */
    figures_from_options(&su->o, &su->fc);
    if (su->o.map_axes && !su->fc.opts.map_axes[0])
        return input_error("study", "--map-axes %s: expected A,B, two axes of the study given by --grid", su->o.map_axes);
    if (figures_plan(&su->fc, st, NULL, &err) != PL_OK) {
        if (err.status != PL_ERR_INPUT)
            return failure("study", &err);
        char msg[sizeof err.message];
        snprintf(msg, sizeof msg, "%s", err.message);
        int axes = strstr(msg, "axis") || strstr(msg, "axes");
        return input_error("study", axes ? "--map-axes: %s" : "--map: %s", msg);
    }
    if ((rc = setup_within_budget(&su->o)) >= 0)
        return rc;
    watchdog_setup_done(&su->o);
    return -1;
}

/* ---- phase 1 over an MPI job -------------------------------------------------------------------- */

/* Under `mpirun -np K` (src/cli/farm.h): every process plans the same study; a task is
 * pl_study_execute into the farm's private directory of the process that runs it, whose files are
 * shipped to the writer (rank 0), which stores them where the plan puts them, as one process
 * writes its own. */
typedef struct {
    const pl_study *st;
    study_io *io; /* the writer's */
    pl_study_progress prog;
    double started, cost_total, cost_done;
} farm_phase;

static pl_status farm_execute(size_t task, int dir_fd, pl_error *err, void *user)
{
    const farm_phase *fp = user;
    pl_output o;
    pl_output_init(&o, "(the task's directory)", cli_file_mode(), NULL);
    o.root_fd = dup(dir_fd);
    if (o.root_fd < 0)
        return pl_fail(err, PL_ERR_IO, "cannot duplicate the task's directory: %s", strerror(errno));
    int failed = 0;
    pl_status s = pl_study_execute(fp->st, task, &o, &failed, err);
    pl_output_free(&o);
    if (s == PL_OK && failed) /* its files, written as failed, are stored all the same */
        s = pl_fail(err, PL_ERR_SOLVER, "task %zu failed", task);
    return s;
}

/* The writer: task's files, each one of the names the plan gives it (anything else ends the study),
 * through the output (complete or absent), then the journal and the progress as for one process. */
static pl_status farm_store(size_t task, pl_status task_status, const pl_error *task_err, const pl_farm_file *files,
                            size_t nfiles, pl_error *err, void *user)
{
    (void)task_err;
    farm_phase *fp = user;
    char sub[64];
    pl_study_task_dir(fp->st, task, sub, sizeof sub);
    size_t len = strlen(sub);
    for (size_t i = 0; i < nfiles; i++) {
        const char *name = files[i].name + len + 1;
        int known = strncmp(files[i].name, sub, len) == 0 && files[i].name[len] == '/';
        for (size_t j = 0, found = 0; known && !found; j++) {
            if (j == PL_STUDY_TASK_FILES) {
                known = 0;
                break;
            }
            found = strcmp(name, pl_study_task_files[j]) == 0;
        }
        if (!known)
            return pl_fail(err, PL_ERR_IO, "a process sent a file task %zu does not write: '%.200s'", task,
                           files[i].name);
        pl_status s = pl_write_bytes(&fp->io->d->out, sub, name, files[i].bytes, files[i].size, err);
        if (s != PL_OK)
            return s;
    }
    int failed = task_status != PL_OK;
    const pl_study_task *t = &fp->st->tasks[task];
    if (t->is_limit)
        fp->prog.limits_done++;
    else {
        fp->prog.done++;
        fp->prog.failed += failed;
    }
    fp->cost_done += t->cost;
    task_done(task, failed, fp->io);
    if (fp->io->status != PL_OK) {
        *err = fp->io->err;
        return fp->io->status;
    }
    if (fp->st->spec.progress) {
        fp->prog.elapsed = pl_now_seconds() - fp->started;
        fp->prog.remaining = fp->cost_done > 0 ? fp->prog.elapsed * (fp->cost_total - fp->cost_done) / fp->cost_done : NAN;
        fp->st->spec.progress(&fp->prog, fp->st->spec.user);
    }
    return PL_OK;
}

/* Phase 1 of the tasks not skipped over every process of the job; the writer's io (NULL elsewhere). */
static pl_status farm_phase1(pl_farm *farm, const pl_study *st, const unsigned char *skip, study_io *io, int threads,
                             pl_error *err)
{
    farm_phase fp = {.st = st, .io = io, .started = pl_now_seconds()};
    fp.prog.phase = "runs";
    double *cost = malloc(st->ntasks * sizeof *cost);
    if (!cost)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    for (size_t t = 0; t < st->ntasks; t++) {
        cost[t] = st->tasks[t].cost;
        int counted = !skip || skip[t] != 2; /* a shard's own tasks */
        if (counted && st->tasks[t].is_limit)
            fp.prog.limits_total++;
        else if (counted)
            fp.prog.total++;
        if (skip && skip[t] == 1)
            *(st->tasks[t].is_limit ? &fp.prog.limits_done : &fp.prog.done) += 1;
        else if (!skip || !skip[t])
            fp.cost_total += cost[t];
    }
    pl_farm_ops ops = {.ntasks = st->ntasks, .cost = cost, .skip = skip, .execute = farm_execute,
                       .store = farm_store, .user = &fp, .threads = threads};
    pl_status s = pl_farm_run(farm, &ops, err);
    free(cost);
    return s;
}

/* ---- the command ------------------------------------------------------------------------------ */

/* Under MPI every process checks the same arguments; a bad input is printed once, by the writer,
 * and every process exits alike: during the set-up the others' output goes nowhere and their first
 * error line is kept for the verdict (src/cli/farm.h, pl_farm_verdict); afterwards it is theirs
 * again (a crash's or a sanitizer's report). */
typedef struct {
    FILE *kept;            /* this process's stderr during the set-up, or NULL */
    int saved_out, saved_err; /* the descriptors to restore, or -1 */
} rank_output;

static void silence_other_ranks(const pl_farm *farm, rank_output *r)
{
    *r = (rank_output){NULL, -1, -1};
    if (pl_farm_is_writer(farm))
        return;
    fflush(stdout);
    fflush(stderr);
    r->saved_out = dup(STDOUT_FILENO);
    r->saved_err = dup(STDERR_FILENO);
    int null = open("/dev/null", O_WRONLY);
    r->kept = tmpfile();
    if (null >= 0)
        dup2(null, STDOUT_FILENO);
    if (r->kept)
        dup2(fileno(r->kept), STDERR_FILENO);
    else if (null >= 0)
        dup2(null, STDERR_FILENO);
    if (null >= 0)
        close(null);
}

static void restore_rank_output(rank_output *r)
{
    fflush(stdout);
    fflush(stderr);
    if (r->saved_out >= 0) {
        dup2(r->saved_out, STDOUT_FILENO);
        close(r->saved_out);
    }
    if (r->saved_err >= 0) {
        dup2(r->saved_err, STDERR_FILENO);
        close(r->saved_err);
    }
    if (r->kept)
        fclose(r->kept);
    *r = (rank_output){NULL, -1, -1};
}

/* The verdict of every process on the exit status rc (-1: go on) each one reached: -1 if every one
 * goes on, else the exit status of the first that does not (its message printed by the writer, if
 * the writer has not printed its own). */
static int agree(pl_farm *farm, int rc, FILE *kept)
{
    if (pl_farm_size(farm) == 1)
        return rc;
    pl_error e;
    pl_error_clear(&e);
    pl_status mine = rc < 0 || rc == 0 ? PL_OK : rc == 2 ? PL_ERR_INPUT : PL_ERR_IO;
    if (mine != PL_OK && kept) { /* this process's own line, without the program's prefix */
        fflush(stderr);
        char line[sizeof e.message] = "";
        rewind(kept);
        if (!fgets(line, sizeof line, kept))
            snprintf(line, sizeof line, "failed with exit status %d", rc);
        line[strcspn(line, "\n")] = '\0';
        const char *text = strncmp(line, "penlim study: ", 14) == 0 ? line + 14 : line;
        snprintf(e.message, sizeof e.message, "%s", text);
    }
    pl_status all = pl_farm_verdict(farm, mine, &e);
    if (all == PL_OK)
        return rc;
    if (pl_farm_is_writer(farm) && mine == PL_OK)
        fprintf(stderr, "penlim study: %s\n", e.message);
    return rc > 0 ? rc : all == PL_ERR_INPUT ? 2 : 3;
}

/* The writer's output directory: the manifest, the journal, the tasks a --resume reuses (skip[t]
 * = 1) besides another shard's (2).  An exit status with its message printed, or -1. */
static int open_study_dir(study_setup *su, const pl_study *st, unsigned char *skip, outdir_session *d, size_t *reused,
                          size_t *mine)
{
    pl_error err;
    int rc = outdir_start(&su->o, d);
    if (rc >= 0)
        return rc;
    d->out.sync_later = 1; /* a study's many files synced at once (src/io/output.h) */
    d->manifest = pl_study_manifest(st, &su->fc.opts, su->o.loaded_from[0] ? su->o.loaded_from : NULL,
                                    su->o.model_hash, &err);
    if (su->o.nshards > 0 && d->manifest) {
        json_t *sh = json_object(), *tasks = json_array();
        PL_JSON_SET(sh, "index", json_integer(su->o.shard));
        PL_JSON_SET(sh, "count", json_integer(su->o.nshards));
        PL_JSON_SET(sh, "tasks_in_study", json_integer((json_int_t)st->ntasks));
        for (size_t t = 0; t < st->ntasks; t++)
            if (!skip[t])
                PL_JSON_APPEND(tasks, json_integer((json_int_t)t));
        PL_JSON_SET(sh, "tasks", tasks);
        PL_JSON_SET(d->manifest, "shard", sh);
    }
    pl_status s = d->manifest ? PL_OK : err.status;
    for (size_t t = 0; s == PL_OK && t < st->ntasks; t++) {
        if (skip[t])
            continue;
        s = pl_study_plan_task_files(st, t, &d->planned, &err);
        int reuse = s == PL_OK && su->o.resume ? task_reusable(d, st, t, &d->keep, &err) : 0;
        if (reuse < 0)
            s = PL_ERR_NOMEM;
        else if (reuse)
            skip[t] = 1;
    }
    if (s == PL_OK && su->o.nshards == 0)
        s = pl_strings_add(&d->planned, "study.csv", &err);
    if (s == PL_OK && su->o.nshards == 0)
        s = pl_strings_add(&d->planned, "study.json", &err);
    if (s == PL_OK && su->o.nshards == 0 && !su->o.no_plots)
        s = figures_plan(&su->fc, st, &d->planned, &err);
    if (s == PL_OK && !(d->journal = json_deep_copy(d->manifest)))
        s = pl_fail(&err, PL_ERR_NOMEM, "out of memory");
    if (s == PL_OK)
        s = pl_outdir_begin(&d->out, &d->st, d->journal, &d->planned, &d->keep, &err);
    if (s == PL_OK)
        s = record_kept(d, &err);
    if (s != PL_OK) {
        fprintf(stderr, "penlim study: %s\n", err.message);
        return exit_code(s);
    }
    *reused = *mine = 0;
    for (size_t t = 0; t < st->ntasks; t++) {
        *reused += skip[t] == 1;
        *mine += skip[t] != 2;
    }
    if (su->o.resume && !su->o.quiet)
        fprintf(stderr, "penlim study: --resume: %zu of %zu tasks (runs and limit solutions) reused\n", *reused, *mine);
    return -1;
}

static int cmd_study_with(int argc, char **argv, pl_model *model, pl_study *st, pl_farm *farm, study_setup *su)
{
    /* under MPI one thread per process unless --jobs says otherwise: the processes are the parallelism */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    rank_output ro;
    silence_other_ranks(farm, &ro);
    int rc = setup_study(argc, argv, model, st, su, pl_farm_size(farm) > 1 ? 1 : cores > 0 ? cores : 1);
    if ((rc = agree(farm, rc, ro.kept)) >= 0) {
        restore_rank_output(&ro);
        return rc;
    }
    /* every process planned the same study: its settings as given, the model file's content, --jobs */
    pl_error err;
    if (pl_farm_size(farm) > 1) {
        json_t *id = pl_study_identity(&su->spec);
        char *text = id ? json_dumps(id, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
        pl_hash h;
        pl_hash_begin(&h);
        if (text)
            pl_hash_add(&h, text, strlen(text));
        pl_hash_add(&h, su->o.model_hash, strlen(su->o.model_hash));
        pl_hash_add(&h, &su->o.jobs, sizeof su->o.jobs);
        char hex[PL_HASH_LEN];
        pl_hash_text(&h, hex);
        free(text);
        json_decref(id);
        if (pl_farm_same(farm, strtoull(hex, NULL, 16), "the study they planned", &err) != PL_OK) {
            if (pl_farm_is_writer(farm))
                fprintf(stderr, "penlim study: %s\n", err.message);
            restore_rank_output(&ro);
            return exit_code(err.status);
        }
    }
    /* the tasks of this process: all, or those dealt to its shard */
    unsigned char *skip = calloc(st->ntasks, 1);
    size_t *shard = su->o.nshards > 0 ? malloc(st->ntasks * sizeof *shard) : NULL;
    if (!skip || (su->o.nshards > 0 && !shard))
        rc = 3, fprintf(stderr, "penlim study: out of memory\n");
    else if (su->o.nshards > 0 && pl_study_deal(st, (size_t)su->o.nshards, shard, &err) != PL_OK)
        rc = failure("study", &err);
    for (size_t t = 0; rc < 0 && shard && t < st->ntasks; t++)
        skip[t] = shard[t] != (size_t)(su->o.shard - 1) ? 2 : 0;
    free(shard);
    outdir_session d;
    memset(&d, 0, sizeof d);
    int writer = pl_farm_is_writer(farm);
    size_t reused = 0, mine = 0;
    if (rc < 0 && writer)
        rc = open_study_dir(su, st, skip, &d, &reused, &mine);
    rc = agree(farm, rc, ro.kept);
    restore_rank_output(&ro);
    if (rc >= 0) {
        free(skip);
        if (writer)
            outdir_end(&d);
        return rc;
    }
    progress_state ps;
    study_io io = {.d = &d, .st = st, .ps = &ps, .status = PL_OK};
    if (writer) {
        progress_start(&ps, "study", su->o.quiet, 0);
        st->spec.task_done = task_done;
        st->spec.progress = su->o.quiet ? NULL : study_progress;
        st->spec.user = &io;
    }
    pl_status s = pl_farm_size(farm) > 1 ? farm_phase1(farm, st, skip, writer ? &io : NULL, (int)su->o.jobs, &err)
                                         : pl_study_phase1(st, &d.out, skip, &err);
    free(skip);
    if (s == PL_OK && writer && io.status != PL_OK) {
        s = io.status;
        err = io.err;
    }
    if (s != PL_OK && pl_farm_size(farm) > 1 && !pl_farm_stopped_by_writer(farm)) {
        /* an error the other processes may not know of (this one's memory, MPI, a result out of
         * place): the job ends here, mpirun ending the others; the journal keeps what was stored.
         * A process that rank 0 told to stop returns quietly: rank 0 reports the cause. */
        if (writer)
            progress_end(&ps);
        fprintf(stderr, "penlim study: %s%s\n", writer ? "" : "(a computing process) ", err.message);
        fflush(stderr);
        pl_farm_abort(farm, exit_code(s));
    }
    if (!writer) /* the writer reports what ends the study; the job's status is its */
        return s == PL_OK ? 0 : exit_code(s);
    if (s != PL_OK) {
        progress_end(&ps);
        fprintf(stderr, "penlim study: %s\n", err.message);
        outdir_end(&d);
        return exit_code(s);
    }
    if (su->o.nshards > 0) { /* a shard: its runs and limit solutions, the manifest; merge does the rest */
        s = pl_outdir_finish(&d.out, &d.st, &d.planned, d.manifest, &err);
        progress_end(&ps);
        if (s != PL_OK) {
            fprintf(stderr, "penlim study: %s\n", err.message);
            outdir_end(&d);
            return exit_code(s);
        }
        if (!su->o.quiet) {
            printf("study %s: shard %ld of %ld: %zu of the study's %zu tasks (%zu failed)\n", su->o.c->name,
                   su->o.shard, su->o.nshards, mine, st->ntasks, io.failed_tasks);
            print_written(d.out.root, &d.out.written);
        }
        outdir_end(&d);
        return io.failed_tasks ? 3 : 0;
    }
    /* phase 2 is the writer's alone: under MPI the other processes are done, and the cores this one
     * may run on (mpirun binds it: not every core of the node) are free, unless --jobs said otherwise */
    cpu_set_t mask;
    int usable = sched_getaffinity(0, sizeof mask, &mask) == 0 ? CPU_COUNT(&mask) : (int)cores;
    if (pl_farm_size(farm) > 1 && !su->jobs_given && usable > st->spec.jobs)
        st->spec.jobs = usable;
    rc = finish_study("study", &d, st, &su->o, &ps, !su->o.no_plots);
    outdir_end(&d);
    return rc;
}

int cmd_study(int argc, char **argv)
{
    pl_farm *farm = NULL;
    pl_error err;
    if (pl_farm_init(&argc, &argv, &farm, &err) != PL_OK) {
        fprintf(stderr, "penlim study: %s\n", err.message);
        return err.status == PL_ERR_INPUT ? 2 : 3;
    }
    pl_model model = {0};
    pl_study st = {0};
    study_setup su;
    memset(&su, 0, sizeof su);
    int rc = cmd_study_with(argc, argv, &model, &st, farm, &su);
    pl_study_free(&st);
    pl_model_free(&model);
    if (pl_farm_end(farm, &err) != PL_OK && rc == 0) {
        fprintf(stderr, "penlim study: %s\n", err.message);
        rc = 3;
    }
    return rc;
}

/* ---- merge ---------------------------------------------------------------------------------- */

typedef struct {
    const char *dir;
    pl_output out;
    json_t *manifest;
    long index;
} shard_dir;

/* DIR's manifest.json, a complete shard's: its manifest parsed, or an exit status (2: not one). */
static int read_shard(shard_dir *sh, pl_error *err)
{
    char dir[1024];
    pl_escape(sh->dir, dir, sizeof dir);
    pl_output_init(&sh->out, sh->dir, 0, NULL);
    if (pl_output_open(&sh->out, err) != PL_OK)
        return input_error("merge", "%s: not a directory penlim can read", dir);
    int fd = pl_output_open_file(&sh->out, PL_MANIFEST_NAME, err);
    if (fd < 0)
        return input_error("merge", "%s is not a complete shard of a study (no manifest.json: unfinished, or not "
                           "penlim's)", dir);
    char *text = NULL;
    size_t len = 0;
    pl_status s = pl_read_fd(fd, "manifest.json", (size_t)1 << 30, 0, &text, &len, err);
    close(fd);
    if (s == PL_OK)
        s = pl_manifest_parse(text, len, &sh->manifest, err);
    free(text);
    if (s == PL_ERR_INPUT)
        return input_error("merge", "%s: its manifest.json is not penlim's", dir);
    if (s != PL_OK)
        return failure("merge", err);
    const char *cmd = json_string_value(json_object_get(sh->manifest, "command"));
    const json_t *shard = json_object_get(sh->manifest, "shard");
    if (!cmd || strcmp(cmd, "study") != 0 || !json_is_object(json_object_get(sh->manifest, "study")))
        return input_error("merge", "%s is not a study's directory", dir);
    if (!json_is_object(shard))
        return input_error("merge", "%s is a whole study, not a shard (study --shard I/N): nothing to merge", dir);
    sh->index = (long)json_integer_value(json_object_get(shard, "index"));
    return -1;
}

/* Copy the file rel of a shard into the merged directory, verifying its bytes against the hash the
 * shard's manifest records (a file changed since is refused). */
/* A file of a shard, opened for reading (no link followed), or -1 with err: PL_ERR_INPUT where it is
 * missing or not a regular file, PL_ERR_IO for a read error. */
static int open_shard_file(shard_dir *sh, const char *rel, pl_error *err)
{
    int fd = pl_output_open_file(&sh->out, rel, err);
    if (fd < 0 && (errno == ENOENT || errno == ELOOP || errno == ENOTDIR || errno == EINVAL))
        pl_fail(err, PL_ERR_INPUT, "%s/%s is missing or not a regular file", sh->dir, rel);
    else if (fd < 0)
        err->status = PL_ERR_IO;
    return fd;
}

static pl_status copy_file(shard_dir *sh, outdir_session *d, const char *rel, const char *hash, pl_error *err)
{
    int fd = open_shard_file(sh, rel, err);
    if (fd < 0)
        return err->status;
    char src[2 * PATH_MAX + 2];
    snprintf(src, sizeof src, "%s/%s", sh->dir, rel);
    return pl_file_copy_checked(&d->out, rel, fd, src, hash, "has changed since penlim wrote it", err);
}

/* rel of a shard as listed: present, a regular file, its bytes those of hash.  PL_ERR_INPUT naming the
 * file otherwise (a read error: PL_ERR_IO). */
static pl_status verify_file(shard_dir *sh, const char *rel, const char *hash, pl_error *err)
{
    int fd = open_shard_file(sh, rel, err);
    if (fd < 0)
        return err->status;
    char got[PL_HASH_LEN];
    pl_status s = pl_hash_fd(fd, got, err);
    close(fd);
    if (s == PL_OK && strcmp(got, hash) != 0)
        s = pl_fail(err, PL_ERR_INPUT, "%s/%s has changed since penlim wrote it", sh->dir, rel);
    return s;
}

static int cmd_merge_with(int argc, char **argv, shard_dir *sh, pl_study *st, case_options *o, size_t **dealt_out)
{
    merge_options m;
    pl_error err;
    if (cli_parse_merge(argc, argv, &m, &err) != PL_OK)
        return failure("merge", &err);
    if (m.help) {
        fputs(merge_usage, stdout);
        return 0;
    }
    int rc;
    for (size_t k = 0; k < m.ndirs; k++) {
        sh[k].dir = m.dirs[k];
        if ((rc = read_shard(&sh[k], &err)) >= 0)
            return rc;
    }
    /* one study, its shards each once, all of them */
    const json_t *first = sh[0].manifest;
    long count = (long)json_integer_value(json_object_get(json_object_get(first, "shard"), "count"));
    char a[512], b[512], msg[1200];
    for (size_t k = 0; k < m.ndirs; k++) {
        const json_t *mk = sh[k].manifest;
        long ck = (long)json_integer_value(json_object_get(json_object_get(mk, "shard"), "count"));
        pl_escape(sh[k].dir, a, sizeof a);
        pl_escape(sh[0].dir, b, sizeof b);
        const char *keys[] = {"study", "model", "case", "parameters", "law", "law_parameters", "solver", "options",
                              "t_end", "samples", "max_steps", "contacts"};
        int same = ck == count;
        for (size_t j = 0; j < sizeof keys / sizeof *keys; j++)
            same = same && json_equal(json_object_get(mk, keys[j]), json_object_get(first, keys[j]));
        if (!same) {
            snprintf(msg, sizeof msg, "%s and %s are not shards of one study (their settings or shard counts differ)",
                     b, a);
            return input_error("merge", "%s", msg);
        }
        if (sh[k].index < 1 || sh[k].index > count) {
            snprintf(msg, sizeof msg, "%s: shard %ld of %ld is out of range", a, sh[k].index, count);
            return input_error("merge", "%s", msg);
        }
        for (size_t j = 0; j < k; j++)
            if (sh[j].index == sh[k].index) {
                pl_escape(sh[j].dir, b, sizeof b);
                snprintf(msg, sizeof msg, "%s and %s are both shard %ld of %ld", b, a, sh[k].index, count);
                return input_error("merge", "%s", msg);
            }
    }
    if ((long)m.ndirs != count) {
        snprintf(msg, sizeof msg, "the study has %ld shards, %zu given: each must be merged once", count, m.ndirs);
        return input_error("merge", "%s", msg);
    }
    /* the study again, from its identity: the case (or the model file, unchanged), the spec */
    const json_t *model = json_object_get(first, "model");
    const char *file = json_string_value(json_object_get(model, "file"));
    const char *case_name = json_string_value(json_object_get(first, "case"));
    o->cmd = "merge";
    o->out = m.out;
    o->force = m.force;
    o->quiet = m.quiet;
    o->jobs = m.jobs;
    /* A model compiled apart is the one the user names (--model), never a path read from a shard: a
     * directory from elsewhere is data, and loading a library runs its code. */
    if (file && !m.model)
        return input_error("merge", "%s", "the shards ran a model compiled apart: give the same file with --model FILE");
    if (!file && m.model)
        return input_error("merge", "%s", "the shards ran a built-in case: --model is not for them");
    if (file) {
        o->model_file = m.model;
        if ((rc = load_model(o, NULL)) >= 0)
            return rc;
        const char *want = json_string_value(json_object_get(model, "content_hash"));
        if (!want || strcmp(want, o->model_hash) != 0)
            return input_error("merge", "%s", "--model: not the file the shards ran (its content hash differs)");
    } else if (!case_name || !(o->c = pl_case_find(case_name)))
        return input_error("merge", "the shards' case '%s' is not built in", case_name ? case_name : "");
    o->out = m.out;
    spec_storage ss;
    if (!spec_from_identity(json_object_get(first, "study"), o->c, &ss))
        return input_error("merge", "%s: its study settings are not penlim's", sh[0].dir);
    ss.spec.jobs = (int)m.jobs;
    if (pl_study_plan(&ss.spec, st, &err) != PL_OK)
        return failure("merge", &err);
    size_t *dealt = *dealt_out = malloc(st->ntasks * sizeof *dealt);
    if (!dealt || pl_study_deal(st, (size_t)count, dealt, &err) != PL_OK) {
        fprintf(stderr, "penlim merge: out of memory\n");
        return 3;
    }
    /* each shard holds the tasks dealt to it, complete (every file listed with its hash) */
    for (size_t k = 0; k < m.ndirs; k++) {
        const json_t *tasks = json_object_get(json_object_get(sh[k].manifest, "shard"), "tasks");
        const json_t *hashes = json_object_get(sh[k].manifest, "content_hashes");
        size_t mine = 0, listed = json_array_size(tasks);
        int ok = json_is_array(tasks) && json_is_object(hashes);
        for (size_t t = 0; ok && t < st->ntasks; t++)
            if (dealt[t] == (size_t)(sh[k].index - 1)) {
                ok = mine < listed && json_integer_value(json_array_get(tasks, mine)) == (json_int_t)t;
                mine++;
                char sub[64], rel[96];
                pl_study_task_dir(st, t, sub, sizeof sub);
                for (size_t j = 0; ok && j < PL_STUDY_TASK_FILES_ALWAYS; j++) {
                    snprintf(rel, sizeof rel, "%s/%s", sub, pl_study_task_files[j]);
                    if (!json_is_string(json_object_get(hashes, rel))) {
                        pl_escape(sh[k].dir, a, sizeof a);
                        snprintf(msg, sizeof msg, "%s is incomplete: %s is missing", a, rel);
                        return input_error("merge", "%s", msg);
                    }
                }
            }
        if (!ok || mine != listed) {
            pl_escape(sh[k].dir, a, sizeof a);
            snprintf(msg, sizeof msg, "%s does not hold the tasks of shard %ld of %ld of this study", a, sh[k].index,
                     count);
            return input_error("merge", "%s", msg);
        }
    }
    /* every file of every shard's tasks as its manifest lists it, before anything is written (and
     * again as it is copied: a file changed between the two is refused then) */
    for (size_t k = 0; k < m.ndirs; k++) {
        const json_t *hashes = json_object_get(sh[k].manifest, "content_hashes");
        for (size_t t = 0; t < st->ntasks; t++) {
            if (dealt[t] != (size_t)(sh[k].index - 1))
                continue;
            char sub[64], rel[96];
            pl_study_task_dir(st, t, sub, sizeof sub);
            for (size_t j = 0; j < PL_STUDY_TASK_FILES; j++) {
                snprintf(rel, sizeof rel, "%s/%s", sub, pl_study_task_files[j]);
                const char *h = json_string_value(json_object_get(hashes, rel));
                if (h && verify_file(&sh[k], rel, h, &err) != PL_OK)
                    return err.status == PL_ERR_INPUT ? input_error("merge", "%s", err.message) : failure("merge", &err);
            }
        }
    }
    /* --out is none of the shards (its files would be replaced while read) */
    char out_real[PATH_MAX], dir_real[PATH_MAX];
    if (realpath(m.out, out_real))
        for (size_t k = 0; k < m.ndirs; k++)
            if (realpath(sh[k].dir, dir_real) && strcmp(out_real, dir_real) == 0)
                return input_error("merge", "--out %s is one of the shards: merge into a directory of its own", m.out);
    outdir_session d;
    if ((rc = outdir_start(o, &d)) >= 0) {
        outdir_end(&d);
        return rc;
    }
    d.out.sync_later = 1; /* the shards' many files synced at once (src/io/output.h) */
    /* the manifest of the study run whole, and where its runs came from */
    d.manifest = json_deep_copy(first);
    json_t *from = json_array();
    for (size_t k = 0; k < m.ndirs; k++)
        PL_JSON_APPEND(from, json_string(sh[k].dir));
    pl_status s = PL_OK;
    if (!d.manifest || json_object_del(d.manifest, "shard") != 0 || json_object_set_new(d.manifest, "merged_from", from))
        s = pl_fail(&err, PL_ERR_NOMEM, "out of memory");
    json_object_del(d.manifest, "content_hashes");
    for (size_t t = 0; s == PL_OK && t < st->ntasks; t++)
        s = pl_study_plan_task_files(st, t, &d.planned, &err);
    if (s == PL_OK)
        s = pl_strings_add(&d.planned, "study.csv", &err);
    if (s == PL_OK)
        s = pl_strings_add(&d.planned, "study.json", &err);
    figure_choice fc;
    figures_from_manifest(d.manifest, &fc);
    if (s == PL_OK && !m.no_plots && figures_plan(&fc, st, &d.planned, &err) == PL_ERR_NOMEM)
        s = PL_ERR_NOMEM; /* a choice the study lacks: the figures' own reading refuses it, a warning */
    if (s == PL_OK && !(d.journal = json_deep_copy(d.manifest)))
        s = pl_fail(&err, PL_ERR_NOMEM, "out of memory");
    if (s == PL_OK)
        s = pl_outdir_begin(&d.out, &d.st, d.journal, &d.planned, &d.keep, &err);
    progress_state ps;
    progress_start(&ps, "merge", o->quiet, 0);
    /* the files of each shard's tasks, by the names the plan gives them (never a path read from the
     * shard's manifest: a directory from elsewhere is data, not a say in where files are written) */
    for (size_t k = 0; s == PL_OK && k < m.ndirs; k++) {
        const json_t *hashes = json_object_get(sh[k].manifest, "content_hashes");
        for (size_t t = 0; s == PL_OK && t < st->ntasks; t++) {
            if (dealt[t] != (size_t)(sh[k].index - 1))
                continue;
            char sub[64], rel[96];
            pl_study_task_dir(st, t, sub, sizeof sub);
            for (size_t j = 0; s == PL_OK && j < PL_STUDY_TASK_FILES; j++) {
                snprintf(rel, sizeof rel, "%s/%s", sub, pl_study_task_files[j]);
                const char *h = json_string_value(json_object_get(hashes, rel));
                if (h)
                    s = copy_file(&sh[k], &d, rel, h, &err);
            }
        }
        if (s == PL_OK)
            s = pl_outdir_journal_update(&d.out, d.journal, &err);
        progress_phase(&ps, "copying the shards", " shards", k + 1, m.ndirs, 0);
    }
    if (s != PL_OK) {
        progress_end(&ps);
        fprintf(stderr, "penlim merge: %s\n", err.message);
        outdir_end(&d);
        return exit_code(s);
    }
    study_io io = {.d = &d, .st = st, .ps = &ps, .status = PL_OK};
    st->spec.progress = o->quiet ? NULL : study_progress;
    st->spec.user = &io;
    rc = finish_study("merge", &d, st, o, &ps, !m.no_plots);
    outdir_end(&d);
    return rc;
}

int cmd_merge(int argc, char **argv)
{
    shard_dir *sh = calloc(MAX_MERGE, sizeof *sh);
    case_options *o = calloc(1, sizeof *o);
    pl_study st = {0};
    size_t *dealt = NULL; /* the shard of each task */
    int rc = sh && o ? cmd_merge_with(argc, argv, sh, &st, o, &dealt) : 3;
    free(dealt);
    if (!sh || !o)
        fprintf(stderr, "penlim merge: out of memory\n");
    for (size_t k = 0; sh && k < MAX_MERGE; k++) {
        json_decref(sh[k].manifest);
        if (sh[k].dir)
            pl_output_free(&sh[k].out);
    }
    pl_study_free(&st);
    free(sh);
    free(o);
    return rc;
}
