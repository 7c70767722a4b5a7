/* penlim: the command-line program.  Parses options, calls the library, prints summaries.
 * Exit status: 0 success, 1 output error, 2 bad input, 3 solver failure (results still written). */
#include <getopt.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/cases.h"
#include "io/output.h"
#include "study/analysis.h"
#include "solvers/limit/limit.h"
#include "io/limit_report.h"
#include "solvers/penalty/penalty.h"
#include "io/report.h"
#include "study/sweep.h"
#include "io/sweep_report.h"

#define MAX_SETTINGS 64

static int exit_code(pl_status s)
{
    switch (s) {
    case PL_OK: return 0;
    case PL_ERR_INPUT: return 2;
    case PL_ERR_SOLVER: return 3;
    default: return 1;
    }
}

static int input_error(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "penlim %s: ", cmd);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    return 2;
}

/* Options shared by the commands that run a case. */
typedef struct {
    const char *cmd;
    const pl_case *c;
    pl_setting settings[MAX_SETTINGS];
    size_t nsettings;
    const char *mu; /* as given: a number for run, a list for sweep */
    double t_end, rtol;
    long max_steps, jobs, samples;
    const char *out;
    char out_default[256];
    int quiet, no_plots, no_limit;
} case_options;

enum { OPT_MU = 1000, OPT_SET, OPT_T_END, OPT_RTOL, OPT_OUT, OPT_MAX_STEPS, OPT_QUIET, OPT_HELP,
       OPT_JOBS, OPT_NO_PLOTS, OPT_SAMPLES, OPT_NO_LIMIT };

/* The options of the commands that run a case, and which commands take each. */
enum { CMD_RUN = 1, CMD_SWEEP = 2, CMD_LIMIT = 4, CMD_ALL = 7 };

static const struct {
    struct option option;
    unsigned commands;
} option_table[] = {
    {{"mu", required_argument, NULL, OPT_MU}, CMD_RUN | CMD_SWEEP},
    {{"set", required_argument, NULL, OPT_SET}, CMD_ALL},
    {{"t-end", required_argument, NULL, OPT_T_END}, CMD_ALL},
    {{"rtol", required_argument, NULL, OPT_RTOL}, CMD_ALL},
    {{"out", required_argument, NULL, OPT_OUT}, CMD_ALL},
    {{"max-steps", required_argument, NULL, OPT_MAX_STEPS}, CMD_RUN | CMD_SWEEP},
    {{"samples", required_argument, NULL, OPT_SAMPLES}, CMD_ALL},
    {{"jobs", required_argument, NULL, OPT_JOBS}, CMD_SWEEP},
    {{"no-plots", no_argument, NULL, OPT_NO_PLOTS}, CMD_SWEEP},
    {{"no-limit", no_argument, NULL, OPT_NO_LIMIT}, CMD_SWEEP},
    {{"quiet", no_argument, NULL, OPT_QUIET}, CMD_ALL},
    {{"help", no_argument, NULL, OPT_HELP}, CMD_ALL},
};

static const char run_usage[] =
    "usage: penlim run CASE [--mu X] [--set NAME=VALUE ...] [--t-end T] [--rtol R] [--out DIR]\n"
    "                       [--max-steps N] [--quiet]\n"
    "Integrate the penalized system of CASE for one stiffness mu with CVODE and write\n"
    "DIR/trajectory.csv and DIR/summary.json (formats: README.md).\n"
    "  --mu X            stiffness mu > 0 (default 1e8)\n"
    "  --set NAME=VALUE  set a case parameter (repeatable; 'penlim cases' lists them)\n"
    "  --t-end T         end time (default: the case's)\n"
    "  --rtol R          relative tolerance in (0, 1) (default 1e-8); absolute tolerances\n"
    "                    follow the penetration scales at this mu\n"
    "  --out DIR         output directory (default out/run/CASE)\n"
    "  --max-steps N     stop with an error after N internal steps (default 5000000)\n"
    "  --samples N       besides every internal step, record the solution at N uniformly spaced\n"
    "                    times (CVODE's dense output; default 1000, 0 for steps only)\n"
    "  --quiet           print nothing on success\n";

/* Parse argv for the commands that run a case; returns -1 to continue, or an exit status. */
static int parse_case_options(int argc, char **argv, case_options *o, unsigned command, const char *usage)
{
    pl_error err;
    int ch;
    struct option options[sizeof option_table / sizeof option_table[0] + 1];
    size_t count = 0;
    for (size_t k = 0; k < sizeof option_table / sizeof option_table[0]; k++)
        if (option_table[k].commands & command)
            options[count++] = option_table[k].option;
    options[count] = (struct option){NULL, 0, NULL, 0};
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":", options, NULL)) != -1) {
        pl_status s = PL_OK;
        switch (ch) {
        case OPT_MU: o->mu = optarg; break;
        case OPT_JOBS:
            s = pl_parse_long(optarg, &o->jobs, &err, "--jobs");
            if (s == PL_OK && (o->jobs < 1 || o->jobs > 1024))
                return input_error(o->cmd, "--jobs must be in [1, 1024] (got %s)", optarg);
            break;
        case OPT_NO_PLOTS: o->no_plots = 1; break;
        case OPT_NO_LIMIT: o->no_limit = 1; break;
        case OPT_SAMPLES:
            s = pl_parse_long(optarg, &o->samples, &err, "--samples");
            if (s == PL_OK && (o->samples < 0 || o->samples > 10000000))
                return input_error(o->cmd, "--samples must be in [0, 1e7] (got %s)", optarg);
            break;
        case OPT_T_END: s = pl_parse_double(optarg, &o->t_end, &err, "--t-end"); break;
        case OPT_RTOL: s = pl_parse_double(optarg, &o->rtol, &err, "--rtol"); break;
        case OPT_MAX_STEPS: s = pl_parse_long(optarg, &o->max_steps, &err, "--max-steps"); break;
        case OPT_OUT:
            if (!*optarg)
                return input_error(o->cmd, "%s", "--out needs a directory name");
            o->out = optarg;
            break;
        case OPT_QUIET: o->quiet = 1; break;
        case OPT_SET:
            if (o->nsettings == MAX_SETTINGS)
                return input_error(o->cmd, "too many --set options (limit %s)", "64");
            s = pl_setting_parse(optarg, &o->settings[o->nsettings++], &err);
            break;
        case OPT_HELP: fputs(usage, stdout); return 0;
        case ':': return input_error(o->cmd, "option '%s' needs a value", argv[optind - 1]);
        default: return input_error(o->cmd, "unknown option '%s' (see --help)", argv[optind - 1]);
        }
        if (s != PL_OK)
            return input_error(o->cmd, "%s", err.message);
    }
    if (optind >= argc)
        return input_error(o->cmd, "%s", "missing CASE (see 'penlim cases')");
    if (optind + 1 < argc)
        return input_error(o->cmd, "unexpected argument '%s'", argv[optind + 1]);
    o->c = pl_case_find(argv[optind]);
    if (!o->c)
        return input_error(o->cmd, "unknown case '%s' (see 'penlim cases')", argv[optind]);
    if (isnan(o->t_end))
        o->t_end = o->c->t_end;
    if (!o->out) {
        snprintf(o->out_default, sizeof o->out_default, "out/%s/%s", o->cmd, o->c->name);
        o->out = o->out_default;
    }
    return -1;
}

static void print_vector(const char *name, const double *x, size_t n)
{
    printf("%s = (", name);
    for (size_t j = 0; j < n; j++)
        printf(j ? ", %.6g" : "%.6g", x[j]);
    printf(")");
}

static void print_run_summary(const pl_model *model, const pl_penalty_result *res, const char *dir)
{
    printf("penlim run %s: mu = %g, rtol = %g, t in [0, %g]\n", model->type->name, res->mu, res->rtol,
           res->t_end);
    printf("  status: %s\n", res->status == PL_OK ? "ok" : res->error.message);
    printf("  contact episodes: %zu", res->nepisodes);
    if (res->nepisodes > 0) {
        const pl_episode *e = &res->episodes[0];
        printf(" (first: constraint %zu at t = %.6f, restitution %.5f, max penetration %.3g)",
               e->constraint + 1, e->t_in, pl_episode_restitution(e), e->max_penetration);
    }
    printf("\n  final: t = %g, ", res->t_final);
    print_vector("q", res->q_final, res->n);
    printf(", ");
    print_vector("v", res->v_final, res->n);
    printf("\n  cost: %ld steps, %ld rhs evaluations, %ld Jacobians, %ld restarts, %.3f s\n",
           res->stats.steps, res->stats.rhs_evals, res->stats.jac_evals, res->stats.restarts,
           res->stats.wall_seconds);
    printf("  wrote %s/trajectory.csv and %s/summary.json\n", dir, dir);
}

static int cmd_run(int argc, char **argv)
{
    case_options o = {.cmd = "run", .mu = "1e8", .t_end = NAN, .rtol = 1e-8, .samples = 1000};
    int rc = parse_case_options(argc, argv, &o, CMD_RUN, run_usage);
    if (rc >= 0)
        return rc;
    pl_error err;
    pl_model model;
    double mu;
    if (pl_parse_double(o.mu, &mu, &err, "--mu") != PL_OK)
        return input_error("run", "%s", err.message);
    if (pl_model_init(&model, o.c, o.settings, o.nsettings, &err) != PL_OK)
        return input_error("run", "%s", err.message);
    pl_penalty_opts opts = {.mu = mu, .rtol = o.rtol, .t_end = o.t_end, .max_steps = o.max_steps,
                            .samples = (size_t)o.samples};
    if (pl_penalty_check_opts(&opts, &err) != PL_OK)
        return input_error("run", "%s", err.message);

    pl_penalty_result res;
    pl_run_analysis analysis;
    pl_status run_status = pl_penalty_run(&model, &opts, &res, &err);
    pl_status analysis_status = pl_analyze_run(&model, &res, &analysis, &err);
    if (run_status == PL_OK && analysis_status != PL_OK) {
        run_status = res.status = analysis_status;
        res.error = err;
    }
    pl_error io;
    pl_status s = pl_make_dir(o.out, &io);
    if (s == PL_OK)
        s = pl_write_penalty_run(o.out, &model, &res, analysis_status == PL_OK ? &analysis : NULL, &io);
    if (s != PL_OK)
        fprintf(stderr, "penlim run: %s\n", io.message);
    else if (run_status != PL_OK)
        fprintf(stderr, "penlim run: %s\n", res.error.message);
    if (s == PL_OK && !o.quiet)
        print_run_summary(&model, &res, o.out);
    pl_run_analysis_free(&analysis);
    pl_penalty_result_free(&res);
    return run_status != PL_OK ? exit_code(run_status) : exit_code(s);
}

static const char sweep_usage[] =
    "usage: penlim sweep CASE [--mu A:B:N | --mu a,b,c] [--set NAME=VALUE ...] [--t-end T]\n"
    "                         [--rtol R] [--out DIR] [--jobs J] [--max-steps N] [--no-plots] [--quiet]\n"
    "Run CASE for an increasing sequence of stiffnesses, extract the limit objects of each run\n"
    "(impacts, sustained contacts, Zeno capture), fit their convergence rates, and plot.\n"
    "  --mu A:B:N        N values geometrically spaced from A to B, or an explicit list a,b,c\n"
    "                    (default 1e2:1e10:9)\n"
    "  --jobs J          runs in parallel (default: the number of cores); results do not depend on it\n"
    "  --no-plots        write the data and the plot scripts' data, but do not run gnuplot\n"
    "  --no-limit        do not compute the limit solution (nor the distances to it)\n"
    "  --quiet           no progress line and no summary\n"
    "  other options as for 'penlim run'; --out defaults to out/sweep/CASE\n";

/* The progress line, on stderr when it is a terminal. */
static void progress_line(size_t done, size_t total, void *user)
{
    (void)user;
    fprintf(stderr, "\rpenlim sweep: %zu/%zu runs done", done, total);
    if (done == total)
        fputc('\n', stderr);
    fflush(stderr);
}

static void print_sweep_summary(const pl_model *model, const pl_sweep *sw, const char *dir, long jobs)
{
    printf("penlim sweep %s: %zu values of mu from %g to %g, rtol %g, t in [0, %g], %ld jobs\n",
           model->type->name, sw->n, sw->mu[0], sw->mu[sw->n - 1], sw->runs[0].rtol, sw->runs[0].t_end, jobs);
    printf("%10s %-7s %8s %8s %13s %13s %9s %10s %8s\n", "mu", "status", "episodes", "impacts", "restitution_1",
           "capture_time", "steps", "rhs_evals", "wall_s");
    for (size_t k = 0; k < sw->n; k++) {
        const pl_penalty_result *r = &sw->runs[k];
        printf("%10.3g %-7s %8zu %8zu %13.6f %13.6f %9ld %10ld %8.3f\n", sw->mu[k],
               r->status == PL_OK ? "ok" : "failed", r->nepisodes, sw->analysis[k].impacts,
               sw->q[PL_Q_RESTITUTION_FIRST].values[k], sw->q[PL_Q_CAPTURE_TIME].values[k], r->stats.steps,
               r->stats.rhs_evals, r->stats.wall_seconds);
    }
    if (sw->has_limit && sw->limit.zeno)
        printf("limit solution: Zeno point at t = %.12g after %zu resolved impacts, then sustained contact\n",
               sw->limit.t_accumulation, sw->limit.impacts_resolved);
    else if (!sw->has_limit && sw->limit.status != PL_OK)
        printf("limit solution: failed: %s\n", sw->limit.error.message);
    printf("convergence (error ~ mu^-rate, fitted on all mu and on the upper half of them; errors against\n"
           "the closed form, the limit solution, or the extrapolated limit, in that order of preference):\n");
    for (int q = 0; q < PL_SWEEP_NQ; q++) {
        const pl_sweep_quantity *Q = &sw->q[q];
        if (Q->conv.at_floor) {
            printf("  %-26s equals its limit %.10g to integration accuracy at every mu\n", Q->name, Q->conv.limit);
            continue;
        }
        if (Q->conv.points < 3)
            continue;
        printf("  %-26s rate %6.3f +- %.3f", Q->name, Q->conv.rate, Q->conv.rate_se);
        if (isfinite(Q->conv.rate_upper))
            printf(" (upper half %6.3f +- %.3f)", Q->conv.rate_upper, Q->conv.rate_upper_se);
        else
            printf("%30s", "");
        printf("   limit %.10g", Q->conv.limit);
        if (Q->conv.reference == PL_REF_EXTRAPOLATED)
            printf(" +- %.2g (extrapolated)\n", Q->conv.limit_error);
        else
            printf(" (%s)\n", pl_reference_name(Q->conv.reference));
    }
    if (!isnan(sw->impacts_per_decade))
        printf("  impacts before capture: %.2f +- %.2f per decade of mu (ln(sqrt 10)/ln(1/e) = %.2f)\n",
               sw->impacts_per_decade, sw->impacts_per_decade_se, sw->impacts_per_decade_predicted);
    for (size_t k = 0; k < sw->n; k++)
        if (sw->runs[k].status != PL_OK)
            printf("  mu = %g failed: %s\n", sw->mu[k], sw->runs[k].error.message);
    printf("wrote %s: sweep.csv, episodes.csv, sweep.json, runs/\n", dir);
}

static int cmd_sweep(int argc, char **argv)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    case_options o = {.cmd = "sweep", .mu = "1e2:1e10:9", .t_end = NAN, .rtol = 1e-8, .samples = 1000,
                      .jobs = cores > 0 ? cores : 1};
    int rc = parse_case_options(argc, argv, &o, CMD_SWEEP, sweep_usage);
    if (rc >= 0)
        return rc;
    pl_error err;
    pl_model model;
    double *mu = NULL;
    size_t nmu = 0;
    if (pl_parse_mu_list(o.mu, &mu, &nmu, &err) != PL_OK)
        return input_error("sweep", "%s", err.message);
    pl_penalty_opts check = {.mu = mu[0], .rtol = o.rtol, .t_end = o.t_end, .max_steps = o.max_steps};
    if (pl_model_init(&model, o.c, o.settings, o.nsettings, &err) != PL_OK ||
        pl_penalty_check_opts(&check, &err) != PL_OK) {
        free(mu);
        return input_error("sweep", "%s", err.message);
    }
    pl_sweep_opts opts = {.rtol = o.rtol, .t_end = o.t_end, .max_steps = o.max_steps, .jobs = (int)o.jobs,
                          .samples = (size_t)o.samples, .with_limit = !o.no_limit,
                          .progress = (!o.quiet && isatty(STDERR_FILENO)) ? progress_line : NULL};
    pl_sweep sw;
    pl_status s = pl_sweep_run(&model, mu, nmu, &opts, &sw, &err);
    free(mu);
    if (s != PL_OK) {
        fprintf(stderr, "penlim sweep: %s\n", err.message);
        pl_sweep_free(&sw);
        return exit_code(s);
    }
    if ((s = pl_make_dir(o.out, &err)) == PL_OK)
        s = pl_write_sweep(o.out, &model, &sw, &err);
    if (s != PL_OK) {
        fprintf(stderr, "penlim sweep: %s\n", err.message);
        pl_sweep_free(&sw);
        return exit_code(s);
    }
    pl_status plots = o.no_plots ? PL_OK : pl_render_sweep_plots(o.out, &model, &sw, &err);
    if (plots != PL_OK)
        fprintf(stderr, "penlim sweep: warning: plots skipped: %s (the data and scripts are in %s)\n",
                err.message, o.out);
    if (!o.quiet) {
        print_sweep_summary(&model, &sw, o.out, o.jobs);
        if (!o.no_plots && plots == PL_OK)
            printf("plots: %s/*.png (re-render with gnuplot NAME.gp in that directory)\n", o.out);
    }
    for (size_t k = 0; k < sw.n; k++)
        if (sw.runs[k].status != PL_OK)
            fprintf(stderr, "penlim sweep: mu = %g failed: %s\n", sw.mu[k], sw.runs[k].error.message);
    rc = sw.failures ? 3 : 0;
    pl_sweep_free(&sw);
    return rc;
}

static const char limit_usage[] =
    "usage: penlim limit CASE [--set NAME=VALUE ...] [--t-end T] [--rtol R] [--out DIR] [--samples N]\n"
    "                         [--quiet]\n"
    "Compute the limit (generalized) solution of CASE directly, event by event: flight, impacts\n"
    "from the infinitesimal dynamics, sustained contact with the sliding-mode force, lift-off, and\n"
    "Zeno accumulation continued past the accumulation point.  Writes DIR/trajectory.csv,\n"
    "DIR/trajectory_s.csv and DIR/summary.json (formats: README.md).\n"
    "  --rtol R          relative tolerance of the smooth phases (default 1e-12)\n"
    "  --out DIR         output directory (default out/limit/CASE)\n"
    "  other options as for 'penlim run'\n";

static void print_limit_summary(const pl_model *model, const pl_limit_result *res, const char *dir)
{
    size_t counts[4] = {0};
    for (size_t k = 0; k < res->nevents; k++)
        counts[res->events[k].kind]++;
    printf("penlim limit %s: t in [0, %g]\n", model->type->name, res->t_end);
    printf("  status: %s\n", res->status == PL_OK ? "ok" : res->error.message);
    printf("  events: %zu impacts, %zu slide starts, %zu lift-offs, %zu Zeno points\n", counts[0], counts[1],
           counts[2], counts[3]);
    if (res->zeno)
        printf("  Zeno: impacts of constraint %zu accumulate at t = %.12g (%zu resolved, ratio %.6g), then continue\n",
               res->zeno_constraint + 1, res->t_accumulation, res->impacts_resolved, res->zeno_ratio);
    printf("  final: t = %g, ", res->t_final);
    print_vector("q", res->q_final, res->n);
    printf(", ");
    print_vector("v", res->v_final, res->n);
    printf("\n  wrote %s/trajectory.csv, trajectory_s.csv and summary.json\n", dir);
}

static int cmd_limit(int argc, char **argv)
{
    case_options o = {.cmd = "limit", .mu = NULL, .t_end = NAN, .rtol = 1e-12, .samples = 1000};
    int rc = parse_case_options(argc, argv, &o, CMD_LIMIT, limit_usage);
    if (rc >= 0)
        return rc;
    pl_error err;
    pl_model model;
    if (pl_model_init(&model, o.c, o.settings, o.nsettings, &err) != PL_OK)
        return input_error("limit", "%s", err.message);
    pl_limit_opts opts = {.rtol = o.rtol, .t_end = o.t_end, .samples = (size_t)o.samples};
    if (pl_limit_check_opts(&opts, &err) != PL_OK)
        return input_error("limit", "%s", err.message);
    pl_limit_result res;
    pl_status status = pl_limit_solve(&model, &opts, &res, &err);
    if (status == PL_ERR_INPUT) {
        pl_limit_result_free(&res);
        return input_error("limit", "%s", err.message);
    }
    pl_error io;
    pl_status s = pl_make_dir(o.out, &io);
    if (s == PL_OK)
        s = pl_write_limit(o.out, &model, &res, &io);
    if (s != PL_OK)
        fprintf(stderr, "penlim limit: %s\n", io.message);
    else if (status != PL_OK)
        fprintf(stderr, "penlim limit: %s\n", res.error.message);
    if (s == PL_OK && !o.quiet)
        print_limit_summary(&model, &res, o.out);
    pl_limit_result_free(&res);
    return status != PL_OK ? exit_code(status) : exit_code(s);
}

static const char cases_usage[] =
    "usage: penlim cases\n"
    "List the built-in cases with their parameters (default, valid range, meaning).\n";

static int cmd_cases(int argc, char **argv)
{
    if (argc > 1) {
        if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
            fputs(cases_usage, stdout);
            return 0;
        }
        return input_error("cases", "unexpected argument '%s'", argv[1]);
    }
    for (size_t k = 0; k < pl_case_count(); k++) {
        const pl_case *c = pl_case_at(k);
        printf("%s: %s\n  %zu degrees of freedom, %zu constraints, default t-end %g\n", c->name,
               c->summary, c->ndof, c->ncon, c->t_end);
        for (size_t p = 0; p < c->nparams; p++) {
            const pl_param_spec *s = &c->params[p];
            char range[80], def[32];
            pl_param_range_text(s, range, sizeof range);
            if (s->flags & PL_PARAM_DERIVED)
                snprintf(def, sizeof def, "derived");
            else
                snprintf(def, sizeof def, "%g", s->value);
            printf("    %-8s %-10s %-14s %s\n", s->name, def, range, s->description);
        }
    }
    return 0;
}

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"run", cmd_run, "integrate the penalized system for one mu"},
    {"sweep", cmd_sweep, "runs for an increasing sequence of mu: limits, rates, plots"},
    {"limit", cmd_limit, "the limit (generalized) solution, computed directly"},
    {"cases", cmd_cases, "list the built-in cases and their parameters"},
};

static void usage(FILE *fp)
{
    fprintf(fp, "usage: penlim COMMAND [options]   (penlim COMMAND --help for details)\n"
                "Penalty approximations of mechanical systems with unilateral constraints in the\n"
                "limit of infinite stiffness (Miller & Bentsman 2007).\ncommands:\n");
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        fprintf(fp, "  %-8s %s\n", commands[k].name, commands[k].summary);
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off(); /* GSL reports through return codes, never aborts */
    if (argc < 2) {
        fprintf(stderr, "penlim: missing COMMAND (see penlim --help)\n");
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("penlim %s\n", PENLIM_VERSION);
        return 0;
    }
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        if (strcmp(argv[1], commands[k].name) == 0)
            return commands[k].run(argc - 1, argv + 1);
    fprintf(stderr, "penlim: unknown command '%s' (see penlim --help)\n", argv[1]);
    return 2;
}
