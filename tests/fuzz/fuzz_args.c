/* Fuzz target: the command line.  The input, split on NUL bytes, is argv after "penlim"; it goes
 * through the parser and every check the program makes before it solves (solver, model, option
 * values, a sweep's grid).  Bad input must come back as a one-line message, never a crash. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "fuzz_check.h"
#include "solvers/solver.h"
#include "study/sweep.h"

#define MAX_ARGS 64

static pl_status check_with_model(const case_options *o, int sweep, const pl_solver_type *solver,
                                   const pl_model *model, pl_error *err);

/* Bodies beyond which a model is not made here: the spheres' N(N - 1)/2 pair constraints take 4 s and
 * 1.3 GB to create at 4000 disks, past the fuzzer's limits (10 s, 2 GB); their sizes and memory are
 * checked by test_model. */
#define FUZZ_MAX_BODIES 2000

/* What main.c's choose_solver and prepare do, without printing. */
static pl_status check_case_options(const case_options *o, int sweep, pl_error *err)
{
    for (size_t k = 0; k < o->nsettings; k++)
        if (strcmp(o->settings[k].name, "N") == 0 && o->settings[k].value > FUZZ_MAX_BODIES)
            return PL_OK;
    const pl_solver_type *solver = strcmp(o->cmd, "limit") == 0 ? &pl_solver_limit : &pl_solver_penalty;
    if (o->scheme) {
        solver = pl_solver_find(o->scheme);
        if (!solver || solver->family != PL_FAMILY_SCHEME)
            return pl_fail(err, PL_ERR_INPUT, "unknown scheme");
    }
    pl_model model;
    pl_status s = pl_model_init(&model, o->c, o->settings, o->nsettings, err);
    if (s == PL_OK)
        s = check_with_model(o, sweep, solver, &model, err);
    pl_model_free(&model);
    return s;
}

static pl_status check_with_model(const case_options *o, int sweep, const pl_solver_type *solver,
                                   const pl_model *model, pl_error *err)
{
    pl_status s = PL_OK;
    pl_solve_opts opts;
    pl_solve_opts_init(&opts, solver, model, o->t_end);
    opts.max_steps = o->max_steps;
    for (size_t k = 0; k < o->ngiven; k++) {
        if (pl_solver_option_index(solver, o->given_name[k]) < 0)
            return pl_fail(err, PL_ERR_INPUT, "option does not apply");
        if (sweep && strcmp(o->given_name[k], solver->refine) == 0) {
            double *values = NULL;
            size_t n = 0;
            s = pl_parse_grid(o->given_text[k], "--grid", &values, &n, err);
            for (size_t j = 0; s == PL_OK && j < n; j++)
                if (!(values[j] > 0) || !isfinite(values[j]) || (j > 0 && !(values[j] > values[j - 1])))
                    abort(); /* a grid is positive, finite and increasing */
            free(values);
        } else {
            double value;
            s = pl_parse_double(o->given_text[k], &value, err, "--option");
            if (s == PL_OK)
                s = pl_solve_opts_set(&opts, solver, o->given_name[k], value, err);
        }
        if (s != PL_OK)
            return s;
    }
    return pl_solve_check(solver, model, &opts, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    argv[argc++] = "penlim";
    for (size_t at = 0; at <= size && argc < MAX_ARGS; at += strlen(text + at) + 1)
        argv[argc++] = text + at;
    argv[argc] = NULL;

    cli_args a;
    pl_error err;
    pl_status s = cli_parse(argc, argv, &a, &err);
    if (s == PL_OK && !a.options.help && a.options.model_file) {
        /* --model FILE: the program loads the case (never here: no file is opened); only then is its
         * default output directory known */
        if (a.options.c || !*a.options.model_file)
            abort();
    } else if (s == PL_OK && !a.options.help &&
               (a.command == CLI_RUN || a.command == CLI_SWEEP || a.command == CLI_LIMIT)) {
        if (!a.options.c || !a.options.out || !*a.options.out)
            abort(); /* a parsed case command has its case and output directory */
        s = check_case_options(&a.options, a.command == CLI_SWEEP, &err);
    }
    if (s != PL_OK)
        fuzz_check_message(&err);
    free(text);
    return 0;
}
