/* penlim compare: the limit solution once, then each solution asked for measured against it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "cli/isolate.h"
#include "cli/progress.h"
#include "core/clock.h"
#include "io/compare_report.h"
#include "io/external.h"
#include "io/report.h"
#include "study/analysis.h"
#include "study/compare.h"
#include "study/compare_run.h"
#include "study/family.h"

static const char compare_usage[] =
    "usage: penlim compare (CASE | --model FILE) [--mu X ...] [--scheme NAME [--h H ...] ...] [--external FILE ...]\n"
    "                           [--work-precision] [--law NAME] [--set NAME=VALUE ...] [--t-end T] [--rtol R]\n"
    "                           [--out DIR] [--no-plots] [--isolate | --no-isolate] [--force] [--quiet]\n"
    "Compute the limit solution of CASE once, then each solution asked for, and measure each against\n"
    "it with the distances of the sweeps (sup |q - q_lim|, L1 of v - v_lim, the distance in s,\n"
    "impacts matched by time, capture and lift-off times, the final state) with its cost, and\n"
    "for each solver given 4 or more mu or h whether it converges to the limit solution, to\n"
    "another limit, or not at all.  Writes DIR/compare.csv, DIR/compare.json, every solution's\n"
    "trajectories and the plots (formats: docs/formats.md).\n"
    "  --mu X            a penalized run at stiffness X (repeatable)\n"
    "  --scheme NAME     a time-stepping scheme (repeatable); the --h values that follow it, up to\n"
    "  --h H             the next --scheme, are its time steps (default: 3 values, 10^-1.2, 10^-2.2\n"
    "                    and 10^-3.2 times the case's time scale (V/A, or its forcing time), each\n"
    "                    at most t-end/10^(1+k), rounded up to 1, 2 or 5 x 10^j)\n"
    "  --external FILE   a trajectory computed elsewhere: CSV with columns t, q1..qn, v1..vn (others\n"
    "                    ignored), t non-decreasing, a jump as two rows at one t (repeatable)\n"
    "  --work-precision  refine each family instead: the penalty over the 9 mu of a sweep (1e2 ...\n"
    "                    1e10), each scheme over its 7 default h (those named, or all that apply)\n"
    "  --rtol R          the penalized runs' relative tolerance (default 1e-8)\n"
    "  --law NAME        the contact law (as for 'penlim run')\n"
    "  --model FILE      a model compiled apart, in place of CASE (as for 'penlim run')\n"
    "  --no-plots        write the data and the plot configuration, but do not run gnuplot\n"
    "  --isolate         each solution in a process of its own (as for 'penlim sweep'; the default\n"
    "                    for a model file, --no-isolate to turn it off)\n"
    "  --out DIR         output directory (default out/compare/CASE)\n"
    "  --max-seconds S   the set-up within S of the start, then each solution within S of its own\n"
    "                    start, with its analysis, and its files within S of theirs (a solution\n"
    "                    whose files are stopped fails, the others go on), then the tables within\n"
    "                    S of theirs (as for 'penlim sweep')\n"
    "  --contacts MODE   dense or sparse storage of G and the forces (as for 'penlim run')\n"
    "  Without solutions: the penalty at mu = 1e4, 1e6, 1e8 and every scheme that applies to the\n"
    "  case at its 3 default h.  Other options as for 'penlim run'.\n";

/* The first bad one of the solutions before spec k (planned as the library plans them: schemes,
 * files, ranges), reported in place of a bad number at k, so that of two bad inputs the one first on
 * the command line is named.  Returns -1 if they are fine, or the exit status. */
static int earlier_error(const case_options *o, const pl_model *model, const pl_solve_opts *penalty,
                         const pl_compare_spec *spec, size_t k)
{
    pl_compare_set before = {0};
    pl_error err;
    int rc = k > 0 && pl_compare_plan(&before, model, penalty, spec, k, o->work_precision, &err) != PL_OK
                 ? failure(o->cmd, &err)
                 : -1;
    pl_compare_set_free(&before);
    return rc;
}

/* The solutions asked for, in the library's terms (study/compare_run.h plans them): the numbers
 * parsed, each --h after --work-precision refused.  Returns -1 or an exit status. */
static int compare_specs(const case_options *o, const pl_model *model, const pl_solve_opts *penalty,
                         pl_compare_spec *spec)
{
    pl_error err;
    for (size_t k = 0; k < o->nspec; k++) {
        const solution_spec *sp = &o->spec[k];
        spec[k] = (pl_compare_spec){.value = NAN, .name = sp->text};
        int rc;
        if (sp->kind == SPEC_MU) {
            spec[k].kind = PL_COMPARE_MU;
            if (!o->work_precision && pl_parse_double(sp->text, &spec[k].value, &err, "--mu") != PL_OK)
                return (rc = earlier_error(o, model, penalty, spec, k)) >= 0 ? rc : failure(o->cmd, &err);
        } else if (sp->kind == SPEC_SCHEME)
            spec[k].kind = PL_COMPARE_SCHEME;
        else if (sp->kind == SPEC_H) {
            spec[k].kind = PL_COMPARE_H;
            if (o->work_precision)
                return (rc = earlier_error(o, model, penalty, spec, k)) >= 0
                           ? rc
                           : input_error(o->cmd, "--h %s: --work-precision takes each scheme's 7 default h", sp->text);
            if (pl_parse_double(sp->text, &spec[k].value, &err, "--h") != PL_OK)
                return (rc = earlier_error(o, model, penalty, spec, k)) >= 0 ? rc : failure(o->cmd, &err);
        } else
            spec[k].kind = PL_COMPARE_EXTERNAL;
    }
    return -1;
}

/* The parameter cell of a compare table row: "mu = 1e4", "h = 0.001", or the file name escaped. */
static void compare_param_text(const pl_solver_type *solver, const pl_compare_entry *e, char *buf, size_t len)
{
    if (solver == &pl_solver_external) {
        const char *base = strrchr(e->file, '/');
        pl_escape(base && base[1] ? base + 1 : e->file, buf, len); /* a name may hold a line break */
    } else {
        char v[PL_NUMBER_LEN];
        num(e->param, v);
        if (strlen(v) > 16) { /* a computed default h (17 digits): 4 digits; the files have every digit */
            char r[PL_NUMBER_LEN];
            snprintf(r, sizeof r, "%.4g", e->param);
            num(strtod(r, NULL), v);
        }
        snprintf(buf, len, "%s = %s", e->param_name, v);
    }
}

static void print_compare_table(const pl_model *model, const pl_solution *limit, const pl_compare_set *l,
                                const pl_family *fam, size_t nfam, const char *dir)
{
    char v[PL_NUMBER_LEN], esc[1024];
    printf("penlim compare %s: %zu solutions against the limit solution, t in [0, %s]\n", model->type->name, l->n,
           num(limit->t_end, v));
    if (limit->status != PL_OK)
        printf("limit solution: failed: %s\n", limit->error.message);
    else
        printf("limit solution: %ld steps, %ld rhs evaluations, %.3f s%s\n", limit->stats.steps, limit->stats.rhs_evals,
               limit->stats.wall_seconds, limit->zeno.found ? ", a Zeno point" : "");
    int width = 10; /* the parameter column: as wide as its longest cell */
    for (size_t k = 0; k < l->n; k++) {
        char param[96];
        compare_param_text(l->item[k].solver, &l->e[k], param, sizeof param);
        if ((int)strlen(param) > width)
            width = (int)strlen(param);
    }
    printf("%-12s %-*s %-6s %9s %9s %9s %9s %9s %9s %9s %8s %9s %8s %7s %7s %8s %8s %5s\n", "solution", width,
           "parameter", "status", "sup_q", "l1_v", "s_dist_q", "impact_t", "impact_v", "capture", "final_q", "steps",
           "rhs_evals", "wall_s", "matched", "missing", "absorbed", "excluded", "extra");
    for (size_t k = 0; k < l->n; k++) {
        const pl_comparison_item *it = &l->item[k];
        const pl_compare_result *r = &it->res;
        int c = it->compared, ext = it->solver == &pl_solver_external;
        char param[96];
        compare_param_text(it->solver, &l->e[k], param, sizeof param);
        printf("%-12s %-*s %-6s", it->solver->name, width, param, it->sol.status == PL_OK ? "ok" : "failed");
        double x[] = {c ? r->d.sup_q : NAN, c ? r->d.l1_v : NAN, c ? r->d.s_dist_q : NAN,
                      c ? r->d.impact_time_error : NAN, c ? r->d.impact_velocity_error : NAN,
                      c ? r->capture_error : NAN, c ? r->final_q_error : NAN};
        for (size_t j = 0; j < sizeof x / sizeof x[0]; j++) {
            if (isnan(x[j]))
                printf(" %9s", "n/a"); /* undefined: the text rule of docs/formats.md */
            else
                printf(" %9.2e", x[j]);
        }
        if (ext)
            printf(" %8s %9s %8s", "n/a", "n/a", "n/a");
        else
            printf(" %8ld %9ld %8.3f", it->sol.stats.steps, it->sol.stats.rhs_evals, it->sol.stats.wall_seconds);
        if (c)
            printf(" %7zu %7zu %8zu %8zu %5zu\n", r->d.impacts_matched, r->d.impacts_missing, r->d.impacts_absorbed,
                   r->d.impacts_excluded, r->d.impacts_extra);
        else
            printf(" %7s %7s %8s %8s %5s\n", "n/a", "n/a", "n/a", "n/a", "n/a");
    }
    printf("(distances to the limit solution: sup_q max |q - q_lim|, l1_v integral of |v - v_lim|, s_dist_q\n"
           " in s (n/a for schemes and files without gamma), impact_t/impact_v the largest errors of the impacts\n"
           " paired in every solution of its family that pairs any, capture |T* - T*_lim|, final_q\n"
           " |q(T) - q_lim(T)|; the limit's impacts matched, missing, absorbed by a sustained contact, excluded\n"
           " (ambiguous, grazing, at the end), and the solution's extra impacts; all columns in compare.csv)\n");
    for (size_t j = 0; j < nfam; j++) {
        const pl_family *f = &fam[j];
        const char *verdict = pl_family_verdict_name(f->verdict);
        printf("%s (%zu %s): %s: %s\n", f->solver->name, f->n, f->refined, verdict ? verdict : "no verdict", f->reason);
    }
    pl_escape(dir, esc, sizeof esc);
    printf("wrote %s: compare.csv, compare.json, limit/, solutions/\n", esc);
}

/* A solve of compare, here or (iso not NULL) in a process of its own that writes it into the
 * directory sub of the output (pl_write_compare writes it again there with the rest); and the
 * progress of its phases. */
typedef struct {
    const pl_isolation *iso;
    const outdir_session *d;
    const pl_compare_set *l;
    const pl_model *model;
    progress_state progress;
} cmp_isolated;

static void compare_progress(const char *phase, size_t done, size_t total, size_t failed, void *user)
{
    cmp_isolated *io = user;
    progress_phase(&io->progress, phase, strcmp(phase, "solutions") == 0 ? " solutions" : "", done, total, failed);
}

static pl_status solve_isolated(size_t k, const pl_solver_type *solver, const pl_solve_opts *opts, pl_solution *sol,
                                pl_error *err, void *user)
{
    const cmp_isolated *io = user;
    int read_back;
    return pl_isolated_solve(io->iso, io->model, solver, opts, &io->d->out,
                             k == PL_COMPARISON_LIMIT ? "limit" : io->l->e[k].dir, sol, &read_back, err);
}

static int cmd_compare_with(int argc, char **argv, pl_model *model)
{
    case_options o = {.cmd = "compare", .t_end = NAN};
    int rc = parse_case_options(argc, argv, &o, CMD_COMPARE, compare_usage);
    if (rc >= 0)
        return rc;
    pl_solve_opts penalty, lopts;
    if ((rc = prepare(&o, &pl_solver_penalty, NULL, model, &penalty)) >= 0)
        return rc;
    pl_limit_opts(model, &penalty, 0, &lopts);
    pl_error err;
    if (pl_solve_check(&pl_solver_limit, model, &lopts, &err) != PL_OK)
        return failure(o.cmd, &err);
    /* --isolate, on by default for a model compiled apart: each solve in a process of its own. */
    pl_isolation iso;
    int isolate = o.isolate || (!o.no_isolate && o.loaded_from[0]);
    if (isolate && pl_isolation_init(&iso, &o, &err) != PL_OK)
        return failure(o.cmd, &err);
    pl_compare_set l = {0};
    pl_compare_spec spec[MAX_SOLUTIONS];
    /* The set-up within the budget; then each solution has its own, as for run. */
    if ((rc = compare_specs(&o, model, &penalty, spec)) >= 0 ||
        (rc = pl_compare_plan(&l, model, &penalty, spec, o.nspec, o.work_precision, &err) != PL_OK
                  ? failure(o.cmd, &err)
                  : -1) >= 0 ||
        (rc = setup_within_budget(&o)) >= 0) {
        pl_compare_set_free(&l);
        return rc;
    }
    watchdog_setup_done(&o);
    outdir_session d;
    if ((rc = outdir_start(&o, &d)) >= 0) {
        pl_compare_set_free(&l);
        outdir_end(&d);
        return rc;
    }
    pl_status s = pl_compare_files(l.e, l.n, !o.no_plots, &d.planned, &err);
    d.manifest = with_model_identity(pl_manifest_new("compare", model, &pl_solver_limit, &l.limit, NULL), &o, model);
    json_t *journal = json_deep_copy(d.manifest);
    if (s == PL_OK)
        s = pl_outdir_begin(&d.out, &d.st, journal, &d.planned, &d.keep, &err);
    json_decref(journal);
    if (s != PL_OK) {
        fprintf(stderr, "penlim compare: %s\n", err.message);
        pl_compare_set_free(&l);
        outdir_end(&d);
        return exit_code(s);
    }
    /* The limit solution once, then each solution measured against it, then the families. */
    cmp_isolated cio = {.iso = &iso, .d = &d, .l = &l, .model = model};
    progress_start(&cio.progress, "compare", o.quiet, 1);
    pl_comparison_opts copts = {.solve = isolate ? solve_isolated : NULL,
                                .progress = o.quiet ? NULL : compare_progress, .user = &cio};
    s = pl_compare_set_run(&l, model, &copts, &err);
    pl_solution *limit = &l.c.limit;
    /* Each solution's files within a budget of their own, as a sweep's runs: a solution whose files
     * are stopped (or run out of memory) fails, the others go on; then the tables, within theirs:
     * stopped, the files written are complete and the manifest lists them. */
    pl_error stopped;
    pl_status write_status = PL_OK;
    if (s == PL_OK) {
        progress_phase(&cio.progress, "files", "", 0, 1, 0);
        write_status = s = pl_compare_set_write(&l, &d.out, model, lopts.max_seconds, &stopped);
        progress_phase(&cio.progress, "files", "", 1, 1, 0);
        if (s == PL_ERR_SOLVER)
            s = PL_OK;
        else if (s != PL_OK)
            err = stopped;
    }
    size_t failures = l.c.failures;
    pl_error plot_err;
    /* the figures, like each solution, within --max-seconds of their own start */
    pl_budget figures = {o.max_seconds, pl_now_seconds()};
    int drawn = s == PL_OK && write_status == PL_OK && !o.no_plots;
    if (drawn)
        progress_phase(&cio.progress, "figures", "", 0, 1, 0);
    pl_status plots = drawn ? pl_render_compare_plots(&d.out, l.e, l.n, &figures, &plot_err) : PL_OK;
    if (drawn)
        progress_phase(&cio.progress, "figures", "", 1, 1, 0);
    progress_end(&cio.progress);
    if (s == PL_OK)
        s = pl_outdir_finish(&d.out, &d.st, &d.planned, d.manifest, &err);
    if (s != PL_OK)
        fprintf(stderr, "penlim compare: %s\n", err.message);
    else {
        if (plots != PL_OK) {
            char out[1024];
            pl_escape(o.out, out, sizeof out);
            fprintf(stderr, "penlim compare: warning: plots skipped: %s (the data and scripts are in %s)\n",
                    plot_err.message, out);
        }
        if (!o.quiet) {
            print_compare_table(model, limit, &l, l.c.fam, l.c.nfam, o.out);
            if (!o.no_plots && plots == PL_OK) {
                char out[1024];
                pl_escape(o.out, out, sizeof out);
                printf("plots: %s/compare_*.png (re-render with gnuplot NAME.gp in that directory)\n", out);
            }
        }
        if (limit->status != PL_OK)
            fprintf(stderr, "penlim compare: the limit solution failed: %s\n", limit->error.message);
        for (size_t k = 0; k < l.n; k++)
            if (l.item[k].sol.status != PL_OK) {
                char param[96];
                compare_param_text(l.item[k].solver, &l.e[k], param, sizeof param);
                fprintf(stderr, "penlim compare: %s %s %s failed: %s\n", l.item[k].solver->name,
                        l.item[k].solver == &pl_solver_external ? "file" : "at", param, l.item[k].sol.error.message);
            }
    }
    if (s == PL_OK && write_status != PL_OK)
        fprintf(stderr, "penlim compare: %s\n", stopped.message);
    rc = s != PL_OK ? exit_code(s) : failures || write_status != PL_OK ? 3 : 0;
    pl_compare_set_free(&l);
    outdir_end(&d);
    return rc;
}

/* The command with its model, released whatever happens (pl_model_free of an empty model does nothing). */
int cmd_compare(int argc, char **argv)
{
    pl_model model = {0};
    int rc = cmd_compare_with(argc, argv, &model);
    pl_model_free(&model);
    return rc;
}
