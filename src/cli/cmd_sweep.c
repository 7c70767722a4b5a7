/* penlim sweep: runs along a refined parameter (mu, or a scheme's h), with their limit solution,
 * written as each is done, resumable (--resume), each in a process of its own with --isolate. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/common.h"
#include "cli/progress.h"
#include "cli/isolate.h"
#include "core/clock.h"
#include "io/report.h"
#include "io/sweep_report.h"
#include "study/analysis.h"
#include "study/fit.h"
#include "study/sweep.h"

static const char sweep_usage[] =
    "usage: penlim sweep (CASE | --model FILE) [--mu A:B:N | --mu a,b,c] [--law NAME] [--set NAME=VALUE ...]\n"
    "                         [--t-end T] [--rtol R] [--out DIR] [--jobs J] [--samples N] [--max-steps N]\n"
    "                         [--max-seconds S] [--max-output N] [--contacts dense|sparse]\n"
    "                         [--no-plots] [--no-limit]\n"
    "                         [--resume] [--isolate | --no-isolate] [--force] [--quiet]\n"
    "       penlim sweep CASE --scheme NAME [--h A:B:N | --h a,b,c] [--theta TH] [--gamma G]\n"
    "                         [other options as above but --rtol; --samples: rows per flight]\n"
    "Solve CASE for an increasing sequence of stiffnesses (or, with --scheme, a decreasing sequence\n"
    "of time steps), extract the limit objects of each run (impacts, sustained contacts, Zeno\n"
    "capture), fit their convergence rates, measure each run against the limit solution, and plot.\n"
    "  --mu A:B:N        N values geometrically spaced from A to B, or an explicit list a,b,c\n"
    "                    (default 1e2:1e10:9)\n"
    "  --h A:B:N         the time steps of a scheme (default 7 values from 10^-1.2 to 10^-4.2\n"
    "                    times the case's time scale: V/A, or its forcing time, each rounded up\n"
    "                    to 1, 2 or 5 x 10^k: 0.05 ... 5e-5 for the ball)\n"
    "  --law NAME        the contact law (as for 'penlim run')\n"
    "  --jobs J          runs in parallel (default: the number of cores); results do not depend on it\n"
    "  --no-plots        write the data and the plot scripts' data, but do not run gnuplot\n"
    "  --no-limit        do not compute the limit solution (nor the distances to it)\n"
    "  --resume          reuse the runs of DIR that an earlier sweep with the same settings\n"
    "                    completed (its manifest or, if interrupted, its journal)\n"
    "  --isolate         solve each run, and the limit solution, in a process of its own (the\n"
    "                    default for a model file; --no-isolate: all in this one): a crash, an\n"
    "                    exit() or a callback that never returns fails that run alone, with the\n"
    "                    signal named, and --max-seconds stops it from outside\n"
    "  --quiet           no progress line and no summary\n"
    "  --out DIR         output directory (default out/sweep/CASE, out/sweep/CASE-SCHEME for a\n"
    "                    scheme): sweep.csv, episodes.csv, sweep.json, impact_errors.csv, the plots\n"
    "                    (*.png with their *.gp and *.dat), runs/NNN_PARAM_VALUE/, limit/, manifest.json\n"
    "  --max-seconds S   the set-up within S of the start, then each run and the limit solution\n"
    "                    within S of its own start, with its analysis (default: none)\n"
    "  --model, --set, --t-end, --rtol, --samples, --max-steps, --max-output, --contacts, --force,\n"
    "  --theta, --gamma: as for 'penlim run', per run\n";


/* What the callbacks of a sweep need to reuse runs and write each as soon as it is done. */
typedef struct {
    outdir_session *d;
    const pl_model *model;
    const int *candidate; /* run k may be read back from the directory */
    int limit_candidate;  /* and the limit solution */
    const pl_solve_opts *base;
    pl_status status;     /* the first write failure (not out of memory) */
    pl_error err;
    pl_error *run_error;  /* run k's files could not be written for want of memory: a failed run */
    const pl_isolation *iso; /* --isolate: each solve in a process of its own, or NULL */
    unsigned char *in_place; /* run k's files were written by its process and read back */
    pl_error *read_error; /* run k could not be read back (--resume): the sweep ends with that error */
    pl_error limit_read_error; /* the same for the limit solution */
    progress_state progress;
} sweep_io;

/* The sweep's phases: the limit solution, the runs, the analysis across them. */
static void sweep_progress(const char *phase, size_t done, size_t total, size_t failed, void *user)
{
    sweep_io *io = user;
    progress_phase(&io->progress, phase, strcmp(phase, "runs") == 0 ? " runs" : "", done, total, failed);
}

/* --isolate: run k, or the limit solution, solved by a process of its own that writes it into its
 * directory, where it is read back (and then kept, as a reused run's files are). */
static pl_status solve_isolated(const pl_sweep *sw, size_t k, const pl_solver_type *solver, const pl_solve_opts *o,
                                pl_solution *sol, pl_error *err, void *user)
{
    sweep_io *io = user;
    char sub[128];
    if (k == PL_SWEEP_LIMIT)
        snprintf(sub, sizeof sub, "limit");
    else
        pl_sweep_run_dir(sw, k, sub, sizeof sub);
    int read_back = 0;
    pl_status s = pl_isolated_solve(io->iso, io->model, solver, o, &io->d->out, sub, sol, &read_back, err);
    if (k != PL_SWEEP_LIMIT && read_back) /* 1: read back solved, 2: read back failed */
        io->in_place[k] = s == PL_OK ? 1 : 2;
    return s;
}

/* The files of a run, in runs/NNN_PARAM_VALUE/ (pl_write_solution): the first 3 always, contacts.csv
 * with sparse contacts. */
static const char *const run_files[] = {"trajectory.csv", "trajectory_s.csv", "summary.json", "contacts.csv"};
#define RUN_FILES_ALWAYS 3

/* Run k, or the limit solution (k = PL_SWEEP_LIMIT), read back from the directory if an earlier
 * sweep with the same settings (o) wrote it complete. */
static int reuse_run(const pl_sweep *sw, size_t k, const pl_solve_opts *o, pl_solution *sol, void *user)
{
    sweep_io *io = user;
    int limit = k == PL_SWEEP_LIMIT;
    if (!(limit ? io->limit_candidate : io->candidate[k]))
        return 0;
    const pl_solver_type *solver = limit ? &pl_solver_limit : sw->solver;
    pl_error *read_error = limit ? &io->limit_read_error : &io->read_error[k];
    char sub[128], dir[PATH_MAX];
    pl_error err;
    if (limit)
        snprintf(sub, sizeof sub, "limit");
    else
        pl_sweep_run_dir(sw, k, sub, sizeof sub);
    /* Its files as penlim wrote them (their hashes; regular files, no link followed): a file changed,
     * swapped with another run's or replaced by a FIFO is computed again.  trajectory_s.csv, kept but
     * not read, is verified here; the two files read are verified on the very bytes read (replaced
     * between a check and the read, they would be read unverified). */
    char summary[PATH_MAX], trajectory[PATH_MAX], trajectory_s[PATH_MAX], contacts[PATH_MAX];
    snprintf(summary, sizeof summary, "%s/summary.json", sub);
    snprintf(trajectory, sizeof trajectory, "%s/trajectory.csv", sub);
    snprintf(trajectory_s, sizeof trajectory_s, "%s/trajectory_s.csv", sub);
    snprintf(contacts, sizeof contacts, "%s/contacts.csv", sub);
    pl_run_hashes want = {pl_outdir_hash(&io->d->st, summary), pl_outdir_hash(&io->d->st, trajectory),
                          pl_outdir_hash(&io->d->st, contacts)};
    if (!want.summary || !want.trajectory)
        return 0;
    pl_status s = pl_outdir_verify(&io->d->out, &io->d->st, trajectory_s, &err);
    if (s == PL_ERR_IO || s == PL_ERR_NOMEM) /* a read error, reported; not a run to recompute quietly */
        *read_error = err;
    if (s != PL_OK)
        return 0;
    int fd = pl_output_dir(&io->d->out, sub, 0);
    if (fd < 0)
        return 0; /* gone, or a link on the way: computed again */
    s = pl_output_path(&io->d->out, sub, NULL, dir, sizeof dir, &err);
    if (s == PL_OK)
        s = pl_read_solution_at(fd, dir, io->model, solver, &want, sol, &err);
    close(fd);
    if (s != PL_OK) {
        pl_solution_free(sol);
        if (s == PL_ERR_IO || s == PL_ERR_NOMEM) /* a read error, reported; not a run to recompute quietly */
            *read_error = err;
        return 0;
    }
    /* the manifest said so; the run's own summary must agree */
    int same = sol->t_end == o->t_end;
    for (size_t j = 0; j < solver->noptions; j++)
        same = same && sol->option[j] == o->option[j];
    if (!same)
        pl_solution_free(sol);
    return same;
}

/* Run k is done: its files written (or, reused, recorded with the hashes they were verified against;
 * written by its isolated process, hashed as they are), then the journal, so that an interrupted
 * sweep's next --resume can verify them. */
static void run_done(const pl_sweep *sw, size_t k, void *user)
{
    sweep_io *io = user;
    if (io->status != PL_OK)
        return;
    /* The files an isolated solve wrote stand, unless the analysis here has failed the run since. */
    int in_place = io->in_place && io->in_place[k] && (io->in_place[k] == 1) == (sw->runs[k].status == PL_OK);
    if (!sw->reused[k] && !in_place) {
        pl_error e;
        pl_budget writing = {io->base->max_seconds, pl_now_seconds()}; /* its files' own, as for run */
        pl_status s = pl_write_sweep_run(&io->d->out, io->model, sw, k, &writing, &e);
        if (s == PL_ERR_NOMEM || s == PL_ERR_SOLVER) /* this run fails (memory, or its budget), the others go on */
            pl_fail(&io->run_error[k], s, "writing its files: %.400s", e.message);
        else if (s != PL_OK)
            pl_fail(&io->err, io->status = s, "writing the run at %s = %g: %.400s", sw->param_name, sw->param[k],
                    e.message);
    } else {
        char sub[128], rel[PATH_MAX];
        pl_sweep_run_dir(sw, k, sub, sizeof sub);
        /* a reused run's files with the hashes they were verified against; an isolated solve's, as written */
        for (size_t j = 0; io->status == PL_OK && j < sizeof run_files / sizeof run_files[0]; j++) {
            snprintf(rel, sizeof rel, "%s/%s", sub, run_files[j]);
            if (j >= RUN_FILES_ALWAYS && sw->runs[k].contacts != PL_CONTACTS_SPARSE)
                continue;
            io->status = sw->reused[k] ? pl_output_add_hashed(&io->d->out, rel, pl_outdir_hash(&io->d->st, rel), &io->err)
                                       : pl_output_add(&io->d->out, rel, &io->err);
        }
    }
    if (io->status == PL_OK)
        io->status = pl_outdir_journal_update(&io->d->out, io->d->journal, &io->err);
}

/* The reason a run read back failed here, saying that its files stay. */
static void note_kept(pl_error *e)
{
    size_t len = strnlen(e->message, sizeof e->message - 1);
    snprintf(e->message + len, sizeof e->message - len,
             " (its files, complete, are kept from the earlier sweep: the next --resume reuses them)");
}

/* A table cell: 6 decimals, or "n/a" where there is no value (no impact, no capture). */
static const char *cell(double x, char buf[32])
{
    if (isfinite(x))
        snprintf(buf, 32, "%.6f", x + 0.0); /* + 0.0: no "-0.000000" */
    else
        snprintf(buf, 32, "n/a");
    return buf;
}

static void print_sweep_summary(const pl_model *model, const pl_sweep *sw, const char *dir, const pl_strings *written,
                                long jobs)
{
    const char *p = sw->param_name;
    char v0[PL_NUMBER_LEN], v1[PL_NUMBER_LEN], v2[PL_NUMBER_LEN];
    printf("penlim sweep %s (%s): %zu values of %s from %s to %s, t in [0, %s], %ld jobs\n", model->type->name,
           sw->solver->name, sw->n, p, num(sw->param[0], v0), num(sw->param[sw->n - 1], v1), num(sw->t_end, v2), jobs);
    printf("%10s %-7s %8s %8s %13s %13s %9s %10s %8s", p, "status", "episodes", "impacts", "restitution_1",
           "capture_time", "steps", "rhs_evals", "wall_s");
    if (sw->has_limit) /* the impacts matched with the limit's */
        printf(" %7s %7s %8s %8s %5s", "matched", "missing", "absorbed", "excluded", "extra");
    putchar('\n');
    for (size_t k = 0; k < sw->n; k++) {
        const pl_solution *r = &sw->runs[k];
        char e1[32], tc[32];
        num(sw->param[k], v0);
        if (strlen(v0) > 10) /* the column's width; the files have every digit */
            snprintf(v0, sizeof v0, "%.4g", sw->param[k]);
        printf("%10s %-7s %8zu %8zu %13s %13s %9ld %10ld %8.3f", v0, r->status == PL_OK ? "ok" : "failed",
               r->nepisodes, sw->analysis[k].impacts, cell(sw->q[PL_Q_RESTITUTION_FIRST].values[k], e1),
               cell(sw->q[PL_Q_CAPTURE_TIME].values[k], tc), r->stats.steps, r->stats.rhs_evals, r->stats.wall_seconds);
        const pl_limit_distance *d = &sw->dist[k];
        if (sw->has_limit && r->status == PL_OK)
            printf(" %7zu %7zu %8zu %8zu %5zu", d->impacts_matched, d->impacts_missing, d->impacts_absorbed,
                   d->impacts_excluded, d->impacts_extra);
        else if (sw->has_limit)
            printf(" %7s %7s %8s %8s %5s", "n/a", "n/a", "n/a", "n/a", "n/a");
        putchar('\n');
    }
    if (sw->has_limit && sw->limit.zeno.found)
        printf("limit solution: Zeno point at t = %.12g after %zu resolved impacts, %s\n",
               sw->limit.zeno.t_accumulation, sw->limit.zeno.impacts_resolved,
               sw->limit.zeno.t_accumulation > sw->limit.t_end ? "past t-end (the run ends there in the state it reaches)"
                                                               : "then sustained contact");
    else if (!sw->has_limit && sw->limit.status != PL_OK)
        printf("limit solution: failed: %s\n", sw->limit.error.message);
    int up = sw->solver->refine_sign > 0; /* refining makes the option larger (mu) or smaller (h) */
    printf("convergence (error ~ %s^%srate, fitted on all %s and on the %s half of them; errors against\n"
           "the closed form, the limit solution, or the extrapolated limit, in that order of preference):\n",
           sw->param_name, up ? "-" : "", sw->param_name, up ? "upper" : "smaller");
    for (int q = 0; q < PL_SWEEP_NQ; q++) {
        const pl_sweep_quantity *Q = &sw->q[q];
        char floors[192], predicted[256] = "";
        if (Q->predicted_rate == PL_RATE_EXACT)
            snprintf(predicted, sizeof predicted, "; predicted exact");
        else if (isfinite(Q->predicted_rate))
            snprintf(predicted, sizeof predicted, "; predicted %.3f", Q->predicted_rate);
        else if (Q->predicted_note)
            snprintf(predicted, sizeof predicted, "; not predicted: %s", Q->predicted_note);
        if (Q->no_limit) {
            printf("  %-26s no limit: %s", Q->name, Q->no_limit);
            if (q == PL_Q_CAPTURE_TIME && isfinite(sw->capture_per_decade)) {
                printf(" (%.3f +- %.3f per decade of %s", sw->capture_per_decade, sw->capture_per_decade_se, p);
                if (isfinite(sw->capture_per_decade_predicted))
                    printf(", predicted %.3f", sw->capture_per_decade_predicted);
                printf(")");
            }
            printf("\n");
            continue;
        }
        if (Q->conv.at_floor) {
            printf("  %-26s equals its limit %.10g at every %s: %s%s\n", Q->name, Q->conv.limit, p,
                   pl_floor_note(&Q->conv, floors, sizeof floors), predicted);
            continue;
        }
        if (Q->conv.points == 0)
            continue;
        if (Q->conv.points < PL_FIT_MIN_POINTS) {
            char note[160];
            printf("  %-26s rate n/a: %s%s\n", Q->name, pl_sweep_rate_note(sw, Q, note, sizeof note),
                   Q->predicted_note ? predicted : "");
            continue;
        }
        if (!Q->conv.converges) {
            printf("  %-26s does not converge to %.10g (%s)", Q->name, Q->conv.limit,
                   pl_reference_name(Q->conv.reference));
            if (isfinite(Q->conv.rate))
                printf(": fitted rate %.3f +- %.3f%s\n", Q->conv.rate, Q->conv.rate_se, predicted);
            else
                printf(": rate n/a (its error would exceed it)%s\n", predicted);
            continue;
        }
        if (isfinite(Q->conv.rate))
            printf("  %-26s rate %6.3f +- %.3f", Q->name, Q->conv.rate, Q->conv.rate_se);
        else
            printf("  %-26s rate %-14s", Q->name, "n/a");
        if (isfinite(Q->conv.rate_upper))
            printf(" (finer half %6.3f +- %.3f)", Q->conv.rate_upper, Q->conv.rate_upper_se);
        else
            printf("%30s", "");
        printf("   limit %.10g", Q->conv.limit);
        if (Q->conv.reference == PL_REF_EXTRAPOLATED && isfinite(Q->conv.limit_error))
            printf(" +- %.2g (extrapolated)", Q->conv.limit_error);
        else if (Q->conv.reference == PL_REF_EXTRAPOLATED)
            printf(" (extrapolated)");
        else
            printf(" (%s)", pl_reference_name(Q->conv.reference));
        if (Q->conv.floored > 0)
            printf("; %s, left out", pl_floor_note(&Q->conv, floors, sizeof floors));
        printf("%s\n", predicted);
    }
    if (sw->has_limit) {
        size_t pairing = 0;
        for (size_t k = 0; k < sw->n; k++)
            pairing += sw->runs[k].status == PL_OK && sw->dist[k].impacts_matched > 0;
        printf("  impact errors over the %zu of the limit's %zu impacts paired in every run that pairs any (%zu of %zu "
               "runs)\n", sw->impact_common_size, sw->limit_analysis.impacts, pairing, sw->n);
    }
    int any_capture_impacts = 0;
    for (size_t k = 0; k < sw->n; k++)
        any_capture_impacts |= sw->analysis[k].impacts_before_capture > 0;
    if (!isnan(sw->impacts_per_decade) && any_capture_impacts && isfinite(sw->impacts_per_decade_predicted))
        printf("  impacts before capture: %.2f +- %.2f per decade of %s (predicted %.2f)\n", sw->impacts_per_decade,
               sw->impacts_per_decade_se, sw->solver->family == PL_FAMILY_PENALTY ? "mu" : "1/h",
               sw->impacts_per_decade_predicted);
    for (size_t k = 0; k < sw->n; k++)
        if (sw->runs[k].status != PL_OK)
            printf("  %s = %s failed: %s\n", p, num(sw->param[k], v0), sw->runs[k].error.message);
    size_t reused = 0;
    for (size_t k = 0; k < sw->n; k++)
        reused += (size_t)sw->reused[k];
    if (reused > 0)
        printf("reused %zu of the %zu runs from %s (--resume)\n", reused, sw->n, dir);
    print_written(dir, written);
}

static int cmd_sweep_with(int argc, char **argv, pl_model *model)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    case_options o = {.cmd = "sweep", .t_end = NAN, .jobs = cores > 0 ? cores : 1};
    int rc = parse_case_options(argc, argv, &o, CMD_SWEEP, sweep_usage);
    const pl_solver_type *solver;
    if (rc >= 0 || (rc = choose_solver(&o, &pl_solver_penalty, &solver)) >= 0)
        return rc;
    pl_error err;
    pl_sweep_opts opts = {.solver = solver, .jobs = (int)o.jobs, .with_limit = !o.no_limit,
                          .progress = o.quiet ? NULL : sweep_progress};
    if ((rc = prepare(&o, solver, solver->refine, model, &opts.base)) >= 0)
        return rc;
    const char *grid = NULL;
    for (size_t k = 0; k < o.ngiven; k++)
        if (strcmp(o.given_name[k], solver->refine) == 0)
            grid = o.given_text[k];
    double *values = NULL;
    size_t nvalues = 0;
    char what[32];
    snprintf(what, sizeof what, "--%s", solver->refine);
    pl_status s = grid ? pl_parse_grid(grid, what, &values, &nvalues, &err)
                       : pl_sweep_default_grid(solver, model, opts.base.t_end, &values, &nvalues, &err);
    int limit_refused = 0;
    if (s == PL_OK && (s = pl_sweep_check(model, values, nvalues, &opts, &limit_refused, &err)) != PL_OK &&
        limit_refused && s != PL_ERR_NOMEM) {
        char msg[sizeof err.message + 64];
        snprintf(msg, sizeof msg, "%s (--no-limit sweeps without it)", err.message);
        free(values);
        return input_error("sweep", "%s", msg);
    }
    if (s != PL_OK) {
        free(values);
        return failure("sweep", &err);
    }
    /* --isolate, on by default for a model compiled apart: each solve in a process of its own. */
    pl_isolation iso;
    int isolate = o.isolate || (!o.no_isolate && o.loaded_from[0]);
    if (isolate && pl_isolation_init(&iso, &o, &err) != PL_OK) {
        free(values);
        return input_error("sweep", "%s", err.message);
    }
    /* The set-up within the budget; then each run (and the limit solution) has its own, as for run. */
    if ((rc = setup_within_budget(&o)) >= 0) {
        free(values);
        return rc;
    }
    watchdog_setup_done(&o);
    outdir_session d;
    if ((rc = outdir_start(&o, &d)) >= 0) {
        free(values);
        outdir_end(&d);
        return rc;
    }
    /* The runs' directories, which of them an earlier sweep completed, and the journal. */
    pl_sweep_order(solver, values, nvalues);
    int *candidate = calloc(nvalues ? nvalues : 1, sizeof *candidate);
    d.manifest = pl_manifest_new("sweep", model, solver, &opts.base, solver->refine);
    d.manifest = with_model_identity(d.manifest, &o, model);
    json_t *journal = d.journal = json_deep_copy(d.manifest);
    s = candidate ? pl_sweep_files(solver->refine, values, nvalues, !o.no_limit, !o.no_plots, &d.planned, &err)
                  : pl_fail(&err, PL_ERR_NOMEM, "out of memory");
    for (size_t k = 0; s == PL_OK && k < nvalues; k++) {
        char sub[128];
        pl_strings files = {0};
        pl_sweep_run_dir_name(solver->refine, k, values[k], sub, sizeof sub);
        for (size_t j = 0; s == PL_OK && j < d.planned.n; j++)
            if (strncmp(d.planned.items[j], sub, strlen(sub)) == 0 && d.planned.items[j][strlen(sub)] == '/')
                s = pl_strings_add(&files, d.planned.items[j], &err);
        candidate[k] = o.resume && pl_outdir_reusable(&d.st, d.manifest, sub, values[k]);
        for (size_t j = 0; s == PL_OK && candidate[k] && j < files.n; j++)
            s = pl_strings_add(&d.keep, files.items[j], &err);
        if (s == PL_OK)
            s = pl_manifest_add_run(journal, values[k], "pending", sub, &files, &err);
        pl_strings_free(&files);
    }
    /* the limit solution of an earlier sweep with these settings, read back as a run is */
    int limit_candidate = o.resume && !o.no_limit;
    char limit_files[4][64];
    size_t nlimit_files = RUN_FILES_ALWAYS;
    for (size_t j = 0; j < 4; j++)
        snprintf(limit_files[j], sizeof limit_files[j], "limit/%s", run_files[j]);
    if (pl_outdir_hash(&d.st, limit_files[RUN_FILES_ALWAYS])) /* sparse contacts: contacts.csv too */
        nlimit_files++;
    for (size_t j = 0; j < nlimit_files; j++)
        limit_candidate = limit_candidate && pl_outdir_reusable_file(&d.st, d.manifest, limit_files[j]);
    for (size_t j = 0; s == PL_OK && limit_candidate && j < nlimit_files; j++)
        s = pl_strings_add(&d.keep, limit_files[j], &err);
    if (s == PL_OK)
        s = pl_outdir_begin(&d.out, &d.st, journal, &d.planned, &d.keep, &err);
    if (s != PL_OK) {
        fprintf(stderr, "penlim sweep: %s\n", err.message);
        free(values);
        free(candidate);
        outdir_end(&d);
        return exit_code(s);
    }
    sweep_io io = {.d = &d, .model = model, .candidate = candidate, .limit_candidate = limit_candidate, .base = &opts.base,
                   .iso = isolate ? &iso : NULL, .in_place = isolate ? calloc(nvalues ? nvalues : 1, 1) : NULL};
    if (isolate && !io.in_place) {
        fprintf(stderr, "penlim sweep: out of memory\n");
        free(values);
        free(candidate);
        outdir_end(&d);
        return 3;
    }
    opts.solve = isolate ? solve_isolated : NULL;
    opts.reuse = reuse_run;
    opts.run_done = run_done;
    opts.release_trajectories = 1; /* written by run_done: the memory does not grow with the runs */
    opts.user = &io;
    pl_sweep sw = {0}; /* freed whatever happens, pl_sweep_run called or not */
    io.run_error = calloc(nvalues ? nvalues : 1, sizeof *io.run_error);
    io.read_error = calloc(nvalues ? nvalues : 1, sizeof *io.read_error);
    progress_start(&io.progress, "sweep", o.quiet, 1);
    s = io.run_error && io.read_error ? pl_sweep_run(model, values, nvalues, &opts, &sw, &err)
                                      : pl_fail(&err, PL_ERR_NOMEM, "out of memory for a sweep of %zu runs", nvalues);
    free(values);
    free(candidate);
    for (size_t k = 0; s == PL_OK && k < sw.n; k++)
        if (io.run_error[k].status != PL_OK && sw.runs[k].status == PL_OK) {
            sw.runs[k].status = io.run_error[k].status;
            sw.runs[k].error = io.run_error[k];
            sw.failures++;
        }
    /* A run or limit solution read back whose analysis did not finish here (the budget, memory) keeps
     * its files, complete, and stays "ok" in the manifest: the next --resume reuses it. */
    for (size_t k = 0; s == PL_OK && k < sw.n; k++)
        if (sw.reused[k] && sw.runs[k].status != PL_OK)
            note_kept(&sw.runs[k].error);
    if (s == PL_OK && sw.limit_reused && !sw.has_limit)
        note_kept(&sw.limit.error);
    for (size_t j = 0; s == PL_OK && io.status == PL_OK && sw.limit_reused && j < nlimit_files; j++)
        io.status = pl_output_add_hashed(&d.out, limit_files[j], pl_outdir_hash(&d.st, limit_files[j]), &io.err);
    for (size_t k = 0; s == PL_OK && io.status == PL_OK && k <= sw.n; k++) {
        const pl_error *e = k < sw.n ? &io.read_error[k] : &io.limit_read_error;
        if (e->status != PL_OK) { /* the run was solved again; the error still ends the sweep */
            io.status = e->status;
            io.err = *e;
        }
    }
    free(io.run_error);
    free(io.in_place);
    free(io.read_error);
    if (s == PL_OK && io.status != PL_OK) {
        s = io.status;
        err = io.err;
    }
    /* The sweep's own files (the limit solution's, the tables) within a budget of their own, as each
     * run's; stopped, the files written are complete and the manifest lists them. */
    pl_error stopped;
    pl_status write_status = PL_OK;
    if (s == PL_OK) {
        pl_budget writing = {opts.base.max_seconds, pl_now_seconds()};
        progress_phase(&io.progress, "files", "", 0, 1, 0);
        s = write_status = pl_write_sweep(&d.out, model, &sw, &writing, &stopped);
        progress_phase(&io.progress, "files", "", 1, 1, 0);
        if (s == PL_ERR_SOLVER)
            s = PL_OK;
        else if (s != PL_OK)
            err = stopped;
    }
    if (s != PL_OK) {
        progress_end(&io.progress);
        fprintf(stderr, "penlim sweep: %s\n", err.message);
        pl_sweep_free(&sw);
        outdir_end(&d);
        return exit_code(s);
    }
    pl_error plot_err;
    /* the figures, like each run, within --max-seconds of their own start */
    pl_budget figures = {o.max_seconds, pl_now_seconds()};
    int drawn = !o.no_plots && write_status == PL_OK;
    if (drawn)
        progress_phase(&io.progress, "figures", "", 0, 1, 0);
    pl_status plots = drawn ? pl_render_sweep_plots(&d.out, model, &sw, &figures, &plot_err) : PL_OK;
    if (drawn)
        progress_phase(&io.progress, "figures", "", 1, 1, 0);
    progress_end(&io.progress);
    for (size_t k = 0; s == PL_OK && k < sw.n; k++) {
        char sub[128];
        pl_strings files = {0};
        pl_sweep_run_dir(&sw, k, sub, sizeof sub);
        for (size_t j = 0; s == PL_OK && j < d.out.written.n; j++)
            if (strncmp(d.out.written.items[j], sub, strlen(sub)) == 0 && d.out.written.items[j][strlen(sub)] == '/')
                s = pl_strings_add(&files, d.out.written.items[j], &err);
        if (s == PL_OK)
            s = pl_manifest_add_run(d.manifest, sw.param[k], sw.runs[k].status == PL_OK || sw.reused[k] ? "ok" : "failed",
                                    sub, &files, &err);
        pl_strings_free(&files);
    }
    if (s == PL_OK)
        s = pl_outdir_finish(&d.out, &d.st, &d.planned, d.manifest, &err);
    if (s != PL_OK) {
        fprintf(stderr, "penlim sweep: %s\n", err.message);
        pl_sweep_free(&sw);
        outdir_end(&d);
        return exit_code(s);
    }
    if (plots != PL_OK) {
        char out[1024];
        pl_escape(o.out, out, sizeof out);
        fprintf(stderr, "penlim sweep: warning: plots skipped: %s (the data and scripts are in %s)\n",
                plot_err.message, out);
    }
    if (!o.quiet) {
        print_sweep_summary(model, &sw, o.out, &d.out.written, o.jobs);
        if (!o.no_plots && plots == PL_OK)
            printf("plots: %s/*.png (re-render with gnuplot NAME.gp in that directory)\n", o.out);
    }
    for (size_t k = 0; k < sw.n; k++)
        if (sw.runs[k].status != PL_OK)
        {
            char v[PL_NUMBER_LEN];
            fprintf(stderr, "penlim sweep: %s = %s failed: %s\n", sw.param_name, num(sw.param[k], v),
                    sw.runs[k].error.message);
        }
    if (!o.no_limit && !sw.has_limit)
        fprintf(stderr, "penlim sweep: warning: the limit solution failed, no run is measured against it: %s\n",
                sw.limit.error.message);
    if (write_status != PL_OK)
        fprintf(stderr, "penlim sweep: %s\n", stopped.message);
    rc = sw.failures || write_status != PL_OK || (!o.no_limit && !sw.has_limit) ? 3 : 0;
    pl_sweep_free(&sw);
    outdir_end(&d);
    return rc;
}

/* The command with its model, released whatever happens (pl_model_free of an empty model does nothing). */
int cmd_sweep(int argc, char **argv)
{
    pl_model model = {0};
    int rc = cmd_sweep_with(argc, argv, &model);
    pl_model_free(&model);
    return rc;
}
