/* The command line parsed apart from the program: pure functions from argv to options that print,
 * write and exit nothing, and report bad input as a one-line message (so they can be fuzzed). */
#ifndef PL_CLI_ARGS_H
#define PL_CLI_ARGS_H

#include <stddef.h>

#include "cases/cases.h"
#include "model/loader.h"
#include "core/params.h"
#include "core/status.h"
#include "solvers/solution.h"

#define MAX_SETTINGS 64
#define MAX_GIVEN 16
#define MAX_GRIDS 32

/* The commands, as bits: which commands take an option. */
enum { CMD_RUN = 1, CMD_SWEEP = 2, CMD_LIMIT = 4, CMD_COMPARE = 8, CMD_ALL = 15, CMD_CHECK = 16, CMD_STUDY = 32 };

#define MAX_SOLUTIONS 64

/* The solutions of compare, in the order given: --mu X, --scheme NAME, --h H (belonging to the
 * --scheme before it), --external FILE. */
typedef enum { SPEC_MU, SPEC_SCHEME, SPEC_H, SPEC_EXTERNAL } solution_spec_kind;
typedef struct {
    solution_spec_kind kind;
    const char *text;
} solution_spec;

/* Options shared by the commands that solve a case. */
typedef struct {
    const char *cmd;
    unsigned command;                    /* its CMD_ bit */
    const pl_case *c;                    /* NULL until a model file is loaded (the program does) */
    pl_model_library library;            /* the model file, loaded (c may point into it) */
    const char *case_name;               /* CASE as given, or NULL with --model */
    const char *model_file;              /* --model FILE, or NULL */
    char loaded_from[4096];              /* the file a model was loaded from ("" for a built-in case) */
    char model_hash[17];                 /* and the hash of its contents */
    int model_search;                    /* set by the caller: an unknown CASE may be a model on the
                                            model path (PENLIM_MODEL_PATH), looked up by the program */
    pl_setting settings[MAX_SETTINGS];
    size_t nsettings;
    const pl_law_type *law;              /* --law NAME, or NULL: the default (kelvin_voigt) */
    const char *scheme;                  /* --scheme NAME, or NULL */
    const char *given_name[MAX_GIVEN];   /* solver options as given (--mu, --h, --rtol, ...) */
    const char *given_text[MAX_GIVEN];
    size_t ngiven;
    double t_end, max_seconds, max_output;
    pl_contacts_mode contacts;           /* --contacts dense|sparse, or AUTO */
    long max_steps, jobs, samples;
    int samples_given;
    const char *out;
    char out_default[256];
    int quiet, no_plots, no_limit, force, resume;
    int isolate, no_isolate;             /* --isolate, --no-isolate (neither: on for a model file) */
    int help;                            /* --help: print the usage, nothing else */
    solution_spec spec[MAX_SOLUTIONS];   /* compare: the solutions asked for */
    size_t nspec;
    int work_precision;                  /* compare --work-precision */
    double started;                      /* set by the program: when the command began (pl_now_seconds),
                                            where --max-seconds counts from */
    const char *grid[MAX_GRIDS];         /* study: --grid NAME=VALUES, in order */
    size_t ngrids;
    int zip;                             /* study --zip */
    const char *map, *map_axes;          /* study --map QUANTITY, --map-axes A,B */
    long shard, nshards;                 /* study --shard I/N (I in 1..N); 0: not given */
} case_options;

/* Option k of the commands that solve a case (its name without "--", and the CMD_ bits of the
 * commands that take it); 0 past the last. For checking the help texts against the parser. */
int cli_option_at(size_t k, const char **name, unsigned *commands);

/* What argv[1] asks for. */
typedef enum {
    CLI_HELP, CLI_VERSION, CLI_RUN, CLI_SWEEP, CLI_LIMIT, CLI_CASES, CLI_PLOT, CLI_COMPARE, CLI_CHECK_MODEL,
    CLI_NEW_MODEL, CLI_LAWS, CLI_IMPACT_LAW, CLI_STUDY, CLI_MERGE
} cli_command;

/* The command of argv[1]; --help (-h) and --version take no further arguments. */
pl_status cli_parse_command(int argc, char **argv, cli_command *command, pl_error *err);

/* The options of run, sweep, limit or compare (command: CMD_RUN, ...), argv[0] being the command's
 * name.  o->cmd and the defaults (t_end, jobs) are set by the caller. Each option is given at most
 * once (--set once per NAME), but for compare's --mu, --scheme, --h and --external, which repeat
 * and go to o->spec in order; flags may repeat. */
pl_status cli_parse_case_options(int argc, char **argv, unsigned command, case_options *o, pl_error *err);

/* o->out from the case's name when --out was not given (after a model file is loaded). */
void cli_default_out(case_options *o);

/* The arguments of 'cases': none (every built-in case), CASE (one, built in or found on
 * PENLIM_MODEL_PATH), --model FILE (a model compiled apart), or --help (-h) alone. */
typedef struct {
    const char *case_name, *model_file; /* NULL when not given */
    int help;
} cases_options;

pl_status cli_parse_cases(int argc, char **argv, cases_options *c, pl_error *err);

/* The arguments of 'plot': DIR [--max-seconds S] [--force] [--quiet], or --help (-h) alone. */
typedef struct {
    const char *dir;
    double max_seconds; /* 0: no budget */
    int force, quiet, help;
} plot_options;

pl_status cli_parse_plot(int argc, char **argv, plot_options *p, pl_error *err);

/* The arguments of 'new-model': NAME [--force], or --help alone. */
typedef struct {
    const char *name;
    int force, help;
} new_model_options;

pl_status cli_parse_new_model(int argc, char **argv, new_model_options *n, pl_error *err);

/* The arguments of 'merge': DIR... --out DIR [--model FILE] [--jobs J] [--no-plots] [--force]
 * [--quiet], or --help (-h) alone. */
#define MAX_MERGE 4096
typedef struct {
    const char *dirs[MAX_MERGE];
    size_t ndirs;
    const char *out;
    const char *model; /* the model compiled apart the shards ran, or NULL */
    long jobs;
    int no_plots, force, quiet, help;
} merge_options;

pl_status cli_parse_merge(int argc, char **argv, merge_options *m, pl_error *err);

/* The arguments of 'impact-law': [--law NAME] [--set NAME=VALUE ...] [--v SPEEDS] [--out DIR]
 * [--no-plots] [--max-seconds S] [--force] [--quiet], or --help (-h) alone.  Each option at most
 * once (--set once per NAME); the values are checked by the program (the law's parameters, the
 * speeds). */
typedef struct {
    const char *law;    /* NULL: the default law */
    pl_setting settings[MAX_SETTINGS];
    size_t nsettings;
    const char *speeds; /* --v as given, or NULL */
    const char *out;    /* NULL: out/impact-law/LAW */
    double max_seconds; /* 0: no budget */
    int no_plots, force, quiet, help;
} impact_law_options;

pl_status cli_parse_impact_law(int argc, char **argv, impact_law_options *o, pl_error *err);

/* The whole command line, as the program parses it. */
typedef struct {
    cli_command command;
    case_options options; /* run, sweep, limit */
    plot_options plot;
    new_model_options new_model;
    cases_options cases;
    impact_law_options impact_law;
    merge_options merge;
} cli_args;

pl_status cli_parse(int argc, char **argv, cli_args *a, pl_error *err);

#endif
