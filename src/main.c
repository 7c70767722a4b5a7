/* penlim: the command-line program.  Parses options, calls the library, prints summaries.
 * Exit status: 0 success, 1 output error, 2 bad input, 3 solver failure (results still written). */
#include <getopt.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "output.h"
#include "penalty.h"
#include "report.h"

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
    double mu, t_end, rtol;
    long max_steps;
    const char *out;
    char out_default[256];
    int quiet;
} case_options;

enum { OPT_MU = 1000, OPT_SET, OPT_T_END, OPT_RTOL, OPT_OUT, OPT_MAX_STEPS, OPT_QUIET, OPT_HELP };

static const struct option run_options[] = {
    {"mu", required_argument, NULL, OPT_MU},
    {"set", required_argument, NULL, OPT_SET},
    {"t-end", required_argument, NULL, OPT_T_END},
    {"rtol", required_argument, NULL, OPT_RTOL},
    {"out", required_argument, NULL, OPT_OUT},
    {"max-steps", required_argument, NULL, OPT_MAX_STEPS},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
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
    "  --quiet           print nothing on success\n";

/* Parse argv for run-like commands; returns -1 to continue, or an exit status. */
static int parse_case_options(int argc, char **argv, case_options *o, const char *usage)
{
    pl_error err;
    int ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":", run_options, NULL)) != -1) {
        pl_status s = PL_OK;
        switch (ch) {
        case OPT_MU: s = pl_parse_double(optarg, &o->mu, &err, "--mu"); break;
        case OPT_T_END: s = pl_parse_double(optarg, &o->t_end, &err, "--t-end"); break;
        case OPT_RTOL: s = pl_parse_double(optarg, &o->rtol, &err, "--rtol"); break;
        case OPT_MAX_STEPS: s = pl_parse_long(optarg, &o->max_steps, &err, "--max-steps"); break;
        case OPT_OUT: o->out = optarg; break;
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
    case_options o = {.cmd = "run", .mu = 1e8, .t_end = NAN, .rtol = 1e-8};
    int rc = parse_case_options(argc, argv, &o, run_usage);
    if (rc >= 0)
        return rc;
    pl_error err;
    pl_model model;
    if (pl_model_init(&model, o.c, o.settings, o.nsettings, &err) != PL_OK)
        return input_error("run", "%s", err.message);
    pl_penalty_opts opts = {.mu = o.mu, .rtol = o.rtol, .t_end = o.t_end, .max_steps = o.max_steps};
    if (pl_penalty_check_opts(&opts, &err) != PL_OK)
        return input_error("run", "%s", err.message);

    pl_penalty_result res;
    pl_status run_status = pl_penalty_run(&model, &opts, &res, &err);
    pl_error io;
    pl_status s = pl_make_dir(o.out, &io);
    if (s == PL_OK)
        s = pl_write_penalty_run(o.out, &model, &res, &io);
    if (s != PL_OK)
        fprintf(stderr, "penlim run: %s\n", io.message);
    else if (run_status != PL_OK)
        fprintf(stderr, "penlim run: %s\n", res.error.message);
    if (s == PL_OK && !o.quiet)
        print_run_summary(&model, &res, o.out);
    pl_penalty_result_free(&res);
    return run_status != PL_OK ? exit_code(run_status) : exit_code(s);
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
