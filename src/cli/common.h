/* The command-line program, split by command: src/cli/cmd_*.c (one file per command or family of
 * commands), main.c (the usage and the dispatch), common.c (what several commands share: exit codes
 * and error lines, a solving command's options, model, solver and checks, the output directory's
 * session, printing helpers) and process.c, the only file of the program that holds process-wide
 * state (signal handlers need it: the temporaries to remove, the exit guard, the watchdog of a
 * loaded model, the mode of new files).  The library holds none; the program may, there alone. */
#ifndef PL_CLI_COMMON_H
#define PL_CLI_COMMON_H

#include <jansson.h>
#include <stdio.h>
#include <sys/types.h>

#include "cli/args.h"
#include "core/number.h"
#include "io/outdir.h"
#include "io/output.h"
#include "model/model.h"
#include "solvers/solver.h"

/* ---- the commands (argv[0] is the command's name) ---------------------------------------------- */
int cmd_run(int argc, char **argv);
int cmd_limit(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_cases(int argc, char **argv);
int cmd_laws(int argc, char **argv);
int cmd_check_model(int argc, char **argv);
int cmd_new_model(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_impact_law(int argc, char **argv);
int cmd_study(int argc, char **argv);
int cmd_merge(int argc, char **argv);
/* argv: __solve CMD PARENT_PID SOLVER DIR (CASE | --model FILE) [options] (cli/isolate.h) */
int cmd_isolated_solve(int argc, char **argv);

/* ---- the process (process.c) -------------------------------------------------------------------- */
/* At start-up, before any command: one heap arena, the mode of new files, the signals that remove
 * the temporaries, the exit guard. */
void cli_process_start(void);
/* The command under way, named in the exit guard's message. */
void cli_command_started(const char *name);
/* This process is an isolated solve's (__solve): its parent names what ends it. */
void cli_isolated_child(void);
/* How the program ends: stdio flushed, exit status returned (or _exit: see process.c). */
int leave(int status);
/* The mode of new files, 0666 & ~umask; the hooks that record the temporaries being written. */
mode_t cli_file_mode(void);
const pl_temp_hooks *cli_temp_hooks(void);
/* Crash reports for a loaded model, and the watchdog when --max-seconds is given. */
void watch_loaded_model(const case_options *o);
/* The set-up of a sweep or compare is over: its runs are bounded one by one (and apart, with --isolate). */
void watchdog_setup_done(const case_options *o);

/* ---- errors and exit codes (common.c) ---------------------------------------------------------- */
/* Exit status: 0 success, 1 a file could not be written or read, 2 bad input, 3 a failed run. */
int exit_code(pl_status s);
/* "penlim CMD: " fmt with arg escaped (one line); returns 2. */
int input_error(const char *cmd, const char *fmt, const char *arg);
/* A library call's failure, err as it filled it: bad input (exit 2, one line), or another status
 * (out of memory, a read error) with its own exit code and its reason. */
int failure(const char *cmd, const pl_error *err);

/* ---- a command that solves a case --------------------------------------------------------------- */
/* Functions returning int here return -1 to continue, or the command's exit status. */
int parse_case_options(int argc, char **argv, case_options *o, unsigned command, const char *usage);
int load_model(case_options *o, const char *model_path);
int choose_solver(const case_options *o, const pl_solver_type *fallback, const pl_solver_type **solver);
int check_setting_names(const case_options *o);
int prepare(const case_options *o, const pl_solver_type *solver, const char *skip, pl_model *model,
            pl_solve_opts *opts);
int setup_within_budget(const case_options *o);
/* The model's identity in a manifest (NULL, the manifest released, if out of memory). */
json_t *with_model_identity(json_t *manifest, const case_options *o, const pl_model *model);

/* ---- the output directory ----------------------------------------------------------------------- */
/* The output directory of a command: locked, scanned, and its manifest once written. */
typedef struct {
    pl_output out;
    pl_outdir_state st;
    pl_strings planned, keep;
    json_t *manifest;
    json_t *journal; /* a sweep's, updated as its runs are written */
} outdir_session;

int outdir_start(const case_options *o, outdir_session *d);
void outdir_end(outdir_session *d);

/* ---- printing ----------------------------------------------------------------------------------- */
/* A number as the user would write it, exactly: 1e8, 0.001, 3162.2776601683795. */
const char *num(double x, char buf[PL_NUMBER_LEN]);
/* "wrote DIR: a.csv, b.json, manifest.json; runs/ (9 runs), limit/" */
void print_written(const char *dir, const pl_strings *written);

#endif
