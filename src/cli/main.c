/* penlim: the command-line program's usage and dispatch.  Each command parses its options, calls the
 * library and prints summaries in src/cli/cmd_*.c; what they share is in cli/common.h.
 * Exit status: 0 success, 1 a file could not be written or read, 2 bad input, 3 a failed run (a solver
 * failure, out of memory, a time budget; results still written). */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/common.h"
#include "cli/isolate.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"run", cmd_run, "integrate the penalized system for one mu, or run a time-stepping scheme"},
    {"sweep", cmd_sweep, "runs for an increasing mu (or decreasing h): limits, rates, plots"},
    {"limit", cmd_limit, "the limit (generalized) solution, computed directly"},
    {"study", cmd_study, "runs over several parameters at once (a grid): rates per point, maps"},
    {"merge", cmd_merge, "merge the shards of a study (study --shard I/N) into one study directory"},
    {"compare", cmd_compare, "solutions (penalty, schemes, files) measured against the limit solution"},
    {"cases", cmd_cases, "list the built-in cases and their parameters"},
    {"laws", cmd_laws, "list the contact laws (--law) and their parameters"},
    {"plot", cmd_plot, "(re)draw the figures of a run, limit, sweep or compare directory (PNG and PDF)"},
    {"check-model", cmd_check_model, "validate a model and check its derivatives against difference quotients"},
    {"new-model", cmd_new_model, "write a commented starting file for a model of one's own"},
    {"impact-law", cmd_impact_law, "a contact law's limit restitution over impact speeds, against the literature's"},
};

static void usage(FILE *fp)
{
    fprintf(fp, "usage: penlim COMMAND [options]   (penlim COMMAND --help for details)\n"
                "Penalty approximations of mechanical systems with unilateral constraints in the\n"
                "limit of infinite stiffness (Miller & Bentsman 2007), with the time-stepping schemes\n"
                "of Moreau-Jean, Paoli and Bernicot-Lefebvre (after Maury) to cross-check.\ncommands:\n");
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        fprintf(fp, "  %-8s %s\n", commands[k].name, commands[k].summary);
}

static int dispatch(int argc, char **argv);

int main(int argc, char **argv)
{
    return leave(dispatch(argc, argv));
}

static int dispatch(int argc, char **argv)
{
    gsl_set_error_handler_off(); /* GSL reports through return codes, never aborts */
    cli_process_start();
    if (argc >= 2 && strcmp(argv[1], PL_ISOLATED_COMMAND) == 0) /* not a user's command: not listed */
        return cmd_isolated_solve(argc - 1, argv + 1);
    pl_error err;
    cli_command command;
    if (cli_parse_command(argc, argv, &command, &err) != PL_OK) {
        fprintf(stderr, "penlim: %s\n", err.message);
        return 2;
    }
    if (command == CLI_HELP) {
        usage(stdout);
        return 0;
    }
    if (command == CLI_VERSION) {
        printf("penlim %s\n", PENLIM_VERSION);
        return 0;
    }
    /* Under mpirun with several processes each would run the whole command and write the same files:
     * study alone spreads its runs (src/cli/farm.h); the others are refused, once, by rank 0. */
    const char *size = getenv("OMPI_COMM_WORLD_SIZE"), *rank = getenv("OMPI_COMM_WORLD_RANK");
    if (size && atol(size) > 1 && strcmp(argv[1], "study") != 0) {
        if (!rank || atol(rank) == 0)
            fprintf(stderr, "penlim %s: runs as one process: under mpirun -np %ld only 'penlim study' spreads its "
                            "runs over the processes\n", argv[1], atol(size));
        return 2;
    }
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        if (strcmp(argv[1], commands[k].name) == 0) {
            cli_command_started(commands[k].name);
            return commands[k].run(argc - 1, argv + 1);
        }
    return 2; /* not reached: cli_parse_command knows the commands */
}
