/* Solves in processes of their own (--isolate): a crash, an exit() or a callback that never returns
 * in a model compiled apart then fails that solve alone, and --max-seconds is enforced from outside.
 *
 * The program starts itself (posix_spawn of /proc/self/exe, which runs no fork handlers: OpenBLAS's
 * can spin in a forked child under a memory limit) with the hidden command
 *
 *     penlim __solve CMD PARENT_PID SOLVER DIR (CASE | --model FILE) [--set ...] [options]
 *
 * which solves once, with the model and options given, writes the solution into DIR as a run
 * command would (trajectory.csv, trajectory_s.csv, summary.json) and ends with the exit status of
 * a run.  DIR is the run's directory, made and opened by the caller and given to the child as its
 * descriptor PL_ISOLATED_DIR_FD (DIR itself is for messages): the child writes there whatever the
 * path names meanwhile, and the caller reads the solution back through the same directory, the way
 * a resumed sweep reads a run. */
#ifndef PL_CLI_ISOLATE_H
#define PL_CLI_ISOLATE_H

#include "cli/args.h"
#include "io/output.h"
#include "solvers/solver.h"

/* The hidden command, and the exit status of its process when the model called exit(). */
#define PL_ISOLATED_COMMAND "__solve"
#define PL_EXIT_MODEL_EXIT 125
/* The descriptor of the run's directory in the solve's process. */
#define PL_ISOLATED_DIR_FD 3

/* How long a solve's process may outlive its --max-seconds (to write what it has) before it is
 * stopped: SIGTERM, then SIGKILL after PL_ISOLATE_KILL_AFTER more seconds. */
#define PL_ISOLATE_GRACE 2.0
#define PL_ISOLATE_KILL_AFTER 2.0

typedef struct {
    char exe[4096];        /* this program */
    const case_options *o; /* the command's: its model and settings */
} pl_isolation;

/* Find this program; PL_ERR_INPUT with a message if it cannot be found. */
pl_status pl_isolation_init(pl_isolation *iso, const case_options *o, pl_error *err);

/* Solve model with solver and opts in a process of its own that writes into ROOT/sub of out (made
 * here if missing, no link followed; the process writes into the directory opened), then read the
 * solution back into sol (initialised whatever happens); *read_back says whether it was (the
 * directory then holds its files).  Returns what pl_solve would; a process that crashed, called
 * exit(), was stopped at its budget or wrote nothing readable is a failed solve (PL_ERR_SOLVER)
 * whose message says which, with the signal named. */
pl_status pl_isolated_solve(const pl_isolation *iso, const pl_model *model, const pl_solver_type *solver,
                            const pl_solve_opts *opts, const pl_output *out, const char *sub, pl_solution *sol,
                            int *read_back, pl_error *err);

/* "SIGSEGV, segmentation fault" for SIGSEGV, ...; "signal N" for one not named here. */
const char *pl_signal_name(int sig, char *buf, size_t len);

#endif
