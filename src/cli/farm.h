/* A task farm: N independent tasks executed by every process of an MPI job, with dynamic
 * scheduling, their files shipped to one process (the writer, rank 0) that stores them.  It knows
 * nothing of what a task is: a task k writes files into an empty private directory; the writer is
 * handed those files as bytes and puts them where they belong.  Program only: libpenlim never
 * links MPI (built with it where PL_HAVE_MPI is defined, a one-process farm otherwise).
 *
 * Scheduling: rank 0's main thread coordinates and stores; rank 0 also computes, on worker threads
 * (only the main thread calls MPI: MPI_THREAD_FUNNELED), and every other rank computes on as many
 * (ops.threads), each result it sends being the request for the next task.  Tasks are handed out in
 * the order of their predicted cost, costliest first (longest processing time first: the costly
 * few start early instead of finishing last), ties in task order.  A one-process farm (no mpirun,
 * or mpirun -np 1) executes and stores the tasks in that order on the calling thread.
 *
 * Failures: a task that fails (execute returns a status other than PL_OK) is stored as failed with
 * its message and the farm goes on.  A store error (or a rank's own failure: no private directory,
 * out of memory) ends the farm: the writer hands out nothing more, each rank is told to stop as
 * its threads report (their results discarded: this waits for the tasks being computed), and
 * pl_farm_run returns the error on every rank.  An MPI error returns at once on the rank that saw
 * it: the program then calls pl_farm_abort (mpirun ends the others).  A process that dies (killed,
 * crashed) makes mpirun end the others.  Either way every
 * result stored before is intact (store writes it completely or not at all: the caller's journal);
 * what is lost is what was in flight: the tasks being executed, results received but not yet
 * stored, and, if the writer dies, the result it was storing (store must leave it absent, not
 * partial).  A later run with those tasks not skipped completes the set. */
#ifndef PL_FARM_H
#define PL_FARM_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

typedef struct pl_farm pl_farm;

/* One file of a task's result: its name relative to the task's directory ("a.csv", "sub/b.csv":
 * no empty, "." or ".." component, no leading '/', no control character) and its content. */
typedef struct {
    const char *name;
    const unsigned char *bytes;
    size_t size;
} pl_farm_file;

typedef struct {
    size_t ntasks;
    /* Predicted cost of each task (any unit; NULL: all equal): dispatched costliest first. */
    const double *cost;
    /* skip[k] nonzero: task k is done already (a resumed run) and is neither executed nor stored.
     * NULL: none. */
    const unsigned char *skip;
    /* Execute task k, writing its files into the empty directory dir_fd (the farm's private
     * temporary: regular files and directories only; whatever is left there is the result, even
     * on failure).  PL_OK, or a failure with its message in err.  Called on every rank, on rank 0
     * from a worker thread alongside store: what they share must be thread-safe. */
    pl_status (*execute)(size_t k, int dir_fd, pl_error *err, void *user);
    /* Rank 0 only, from the calling thread, one task at a time in completion order: record task k's
     * result (task_status, and task_err's message when it failed; its files, sorted by name).  A
     * status other than PL_OK ends the farm. */
    pl_status (*store)(size_t k, pl_status task_status, const pl_error *task_err, const pl_farm_file *files,
                       size_t nfiles, pl_error *err, void *user);
    /* Rank 0 only, after each store (optional): done of total stored, total = the tasks not skipped. */
    void (*progress)(size_t done, size_t total, void *user);
    void *user;
    /* Tasks each process executes at once under MPI, on threads of its own (0 or 1: one; the
     * study's --jobs).  A one-process farm executes one task at a time. */
    int threads;
    /* The directory under which each process makes its private temporaries (NULL: $TMPDIR, else
     * /dev/shm where writable, else /tmp).  Each task's directory is removed once its files are
     * read, the private directory when pl_farm_run returns (a killed process leaves it behind). */
    const char *scratch;
} pl_farm_ops;

/* Start the farm.  Under mpirun (Open MPI's environment: OMPI_COMM_WORLD_SIZE or PMIX_RANK set)
 * MPI_Init_thread(MPI_THREAD_FUNNELED) with MPI_ERRORS_RETURN on MPI_COMM_WORLD; otherwise a
 * one-process farm that never touches MPI.  PL_ERR_INPUT if launched by mpirun with more than one
 * process by a program built without MPI (each would run the whole job), PL_ERR_IO if MPI fails to
 * start.  argc and argv as main's (MPI may read them).  Whatever it returns, *farm (if not NULL)
 * goes to pl_farm_end. */
pl_status pl_farm_init(int *argc, char ***argv, pl_farm **farm, pl_error *err);
int pl_farm_rank(const pl_farm *farm);
int pl_farm_size(const pl_farm *farm);
/* Whether this process is the writer (rank 0): the one that prints and writes. */
int pl_farm_is_writer(const pl_farm *farm);
/* Whether the last pl_farm_run ended on another rank because rank 0 failed and told it so (rank 0
 * reports the cause; this rank need not end the job). */
int pl_farm_stopped_by_writer(const pl_farm *farm);
/* Whether MPI was started (mpirun), even with one process. */
int pl_farm_uses_mpi(const pl_farm *farm);

/* Execute every task not skipped (collective: every rank calls it with the same ntasks, cost and
 * skip).  Returns PL_OK on every rank once all were stored, else the error (on the rank that saw it;
 * see above). */
pl_status pl_farm_run(pl_farm *farm, const pl_farm_ops *ops, pl_error *err);

/* The verdict of all ranks on something each one checked (collective): PL_OK if every rank's
 * status is PL_OK, else the status and message of the lowest rank that failed (its rank and host
 * named in the message if not rank 0), the same on every rank.  So that a bad input is reported
 * once (by the writer) and every process exits alike, even where only one process can see the
 * problem (a model file readable on one node only).  A one-process farm returns status as it is. */
pl_status pl_farm_verdict(pl_farm *farm, pl_status status, pl_error *err);

/* Whether every rank holds the same value (collective): PL_OK, else PL_ERR_INPUT on every rank with
 * a message saying so (what names the value: "the study planned").  A one-process farm: PL_OK. */
pl_status pl_farm_same(pl_farm *farm, uint64_t value, const char *what, pl_error *err);

/* After a failure that the other ranks cannot know of (pl_farm_run's error on one rank): end the
 * whole job with exit status code (MPI_Abort: mpirun ends the others).  Returns without doing
 * anything in a one-process farm (the caller exits as usual). */
void pl_farm_abort(pl_farm *farm, int code);

/* Wait for every rank, finalize MPI (if started) and free the farm; NULL is accepted.  PL_ERR_IO
 * with MPI's reason if that fails (err may be NULL). */
pl_status pl_farm_end(pl_farm *farm, pl_error *err);

/* Whether name is a relative file name a task may give (see pl_farm_file): the check applied to
 * every file received. */
int pl_farm_name_ok(const char *name);

/* The writer's check of a result as a rank sends it (the packed form of farm.c: unsigned 64-bit
 * words k, status, fatal, message length, the message, nfiles, then per file the name's length,
 * the name, the size, the bytes): PL_OK if it is well formed, every length within the bytes
 * received and every name passes pl_farm_name_ok; PL_ERR_IO with the reason otherwise (the farm
 * then ends, nothing of that result stored).  What the coordinator applies to every result. */
pl_status pl_farm_check_packed(const void *data, size_t len, size_t ntasks, pl_error *err);

#endif
