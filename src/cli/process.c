/* The process-wide state of the program, in this file alone: the temporaries a signal must remove,
 * the exit guard, the crash reports and the watchdog of a loaded model, the mode of new files.
 * Signal handlers can reach nothing else; the library holds no such state (it is given the hooks). */
#include <fcntl.h>
#include <jansson.h>
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cli/common.h"
#include "cli/isolate.h"
#include "core/clock.h"

/* ---- temporaries removed when killed ------------------------------------------------------------
 * The one global state of the program: the temporary files being written (each a name in an open
 * directory), so that a signal that ends the program can remove them before it dies.  A slot is
 * filled before it is marked used, and the handler only reads used slots; writes are serialized
 * (pl_output). */
#define TEMP_SLOTS 16
static int temp_dir[TEMP_SLOTS];
static char temp_name[TEMP_SLOTS][NAME_MAX + 1];
static volatile sig_atomic_t temp_used[TEMP_SLOTS];
/* Signals are blocked only in the thread creating a temporary: the handler, running in another,
 * waits until no creation is under way, and none starts once it has begun (both sequentially
 * consistent, so one of the two sees the other), so that no temporary outlives the program. */
static atomic_int temp_creating, temp_dying;

static int temp_begin(void *user)
{
    (void)user;
    atomic_fetch_add(&temp_creating, 1);
    if (atomic_load(&temp_dying)) {
        atomic_fetch_sub(&temp_creating, 1);
        return 0;
    }
    return 1;
}

static void temp_record(int dir_fd, const char *name)
{
    for (int k = 0; k < TEMP_SLOTS; k++)
        if (!temp_used[k]) {
            temp_dir[k] = dir_fd;
            snprintf(temp_name[k], sizeof temp_name[k], "%s", name);
            temp_used[k] = 1;
            return;
        }
    /* all slots taken: the next command into the directory removes it */
}

static void temp_created(int dir_fd, const char *name, void *user)
{
    (void)user;
    if (dir_fd >= 0)
        temp_record(dir_fd, name);
    atomic_fetch_sub(&temp_creating, 1);
}

static void temp_released(int dir_fd, const char *name, void *user)
{
    (void)user;
    for (int k = 0; k < TEMP_SLOTS; k++)
        if (temp_used[k] && temp_dir[k] == dir_fd && strcmp(temp_name[k], name) == 0) {
            temp_used[k] = 0;
            return;
        }
}

/* Async-signal-safe: the directory stays open while its temporary exists. */
static void remove_temporaries(void)
{
    for (int k = 0; k < TEMP_SLOTS; k++)
        if (temp_used[k])
            unlinkat(temp_dir[k], temp_name[k], 0);
}

/* The temporaries removed, message written, exit status 3: how a handler ends the command. */
static void leave_with_message(const char *message)
{
    remove_temporaries();
    if (write(STDERR_FILENO, message, strlen(message)) < 0) { /* nothing more can be said */
    }
    _exit(3);
}

static void on_fatal_signal(int sig)
{
    atomic_store(&temp_dying, 1);
    struct timespec ms = {0, 1000000};
    for (int wait = 0; wait < 2000 && atomic_load(&temp_creating) > 0; wait++)
        nanosleep(&ms, NULL); /* a creation under way: a few microseconds */
    remove_temporaries();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* ---- JSON out of memory -------------------------------------------------------------------------
 * jansson's parser (2.14) does not survive a failed allocation: its lexer loses a byte of the text it
 * saves, then asserts or corrupts the heap.  Its allocations come here, and one that fails ends the
 * command as a run out of memory (exit status 3, its temporaries removed; --resume completes it). */
static char json_oom_message[128] = "penlim: out of memory reading or writing JSON: the command did not finish\n";

static void *json_alloc_or_leave(size_t size)
{
    void *p = malloc(size);
    if (!p && size > 0)
        leave_with_message(json_oom_message);
    return p;
}

static const pl_temp_hooks temp_hooks = {temp_begin, temp_created, temp_released, NULL};

/* ---- exit() from a model ------------------------------------------------------------------------
 * penlim leaves through leave() alone, which sets program_done; exit() before that was called by a
 * model's callback (exit handlers run, the command had not finished).  The guard makes it a failure
 * (exit status 3, or PL_EXIT_MODEL_EXIT in an isolated solve's process, which its parent names)
 * instead of a silent exit 0 with the command half done. */
static volatile sig_atomic_t program_done, isolated_child;
static char exit_message[128] = "penlim: the model called exit() in a callback: the command did not finish\n";

static void exit_guard(void)
{
    if (program_done)
        return;
    if (isolated_child) {
        remove_temporaries();
        _exit(PL_EXIT_MODEL_EXIT);
    }
    leave_with_message(exit_message);
}

/* The signals that end the program from outside it (a user, a terminal, a resource limit, another
 * program): each removes the temporaries first, then takes its default action.  Those of a defect
 * (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS) are left to it and to the sanitizers.
 * A signal ignored at start (nohup's SIGHUP) stays ignored. */
static void remove_temporaries_on_signals(void)
{
    const int fatal[] = {SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGXCPU,
                         SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT};
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t k = 0; k < sizeof fatal / sizeof fatal[0]; k++)
        if (sigaction(fatal[k], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(fatal[k], &sa, NULL);
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
        if (sigaction(sig, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sig, &sa, NULL);
}

/* ---- a model compiled apart that crashes or never returns in this process -----------------------
 * Its callbacks also run here: in the set-up (validation, scales, the initial state) and, without
 * --isolate, in the solves.  A crash there (SIGSEGV, ...) ends the command with exit status 3 and a
 * line naming the signal, its temporaries removed; with --max-seconds S, a watchdog ends it the same
 * way at 2 S + PL_ISOLATE_GRACE from the command's start if it is still in the set-up (sweep,
 * compare: their runs are bounded one by one) or still running (run, limit, check-model, bounded as
 * a whole): by then the budget's own checks, which only a callback that does not return escapes,
 * would have stopped it.  Messages are composed when armed (a handler may only write). */
static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
static char crash_message[sizeof crash_signals / sizeof crash_signals[0]][1024];
static char watchdog_message[1024];

static void on_model_crash(int sig)
{
    for (size_t k = 0; k < sizeof crash_signals / sizeof crash_signals[0]; k++)
        if (crash_signals[k] == sig)
            leave_with_message(crash_message[k]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_watchdog(int sig)
{
    (void)sig;
    leave_with_message(watchdog_message);
}

/* The watchdog's deadline, max_seconds from `started` doubled plus the grace; 0 disarms it. */
static void watchdog_arm(const case_options *o, int on)
{
    struct itimerval t;
    memset(&t, 0, sizeof t);
    if (on) {
        double left = 2.0 * o->max_seconds + PL_ISOLATE_GRACE - (pl_now_seconds() - o->started);
        left = fmax(left, 1e-3);
        t.it_value.tv_sec = (time_t)left;
        t.it_value.tv_usec = (suseconds_t)((left - floor(left)) * 1e6);
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_watchdog;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGALRM, &sa, NULL);
    }
    setitimer(ITIMER_REAL, &t, NULL);
}

/* Crash reports for a loaded model, and the watchdog when --max-seconds is given. */
void watch_loaded_model(const case_options *o)
{
    if (isolated_child || !o->loaded_from[0])
        return; /* an isolated solve's process: its parent names what ends it */
    char path[256];
    pl_escape(o->loaded_from, path, sizeof path);
    for (size_t k = 0; k < sizeof crash_signals / sizeof crash_signals[0]; k++) {
        char name[64];
        snprintf(crash_message[k], sizeof crash_message[k],
                 "penlim %s: crashed (%s) in this process, which runs callbacks of the model %s: the command did "
                 "not finish (--isolate runs each solve apart)\n",
                 o->cmd, pl_signal_name(crash_signals[k], name, sizeof name), path);
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_model_crash;
        sigemptyset(&sa.sa_mask);
        sigaction(crash_signals[k], &sa, NULL);
    }
    if (o->max_seconds > 0) {
        int setup_only = strcmp(o->cmd, "sweep") == 0 || strcmp(o->cmd, "compare") == 0 || strcmp(o->cmd, "study") == 0;
        if (setup_only)
            snprintf(watchdog_message, sizeof watchdog_message,
                     "penlim %s: --max-seconds %g ran out during the set-up, which had still not finished %g s after "
                     "the start (a callback of the model %s that does not return?): nothing was run or written\n",
                     o->cmd, o->max_seconds, 2.0 * o->max_seconds + PL_ISOLATE_GRACE, path);
        else
            snprintf(watchdog_message, sizeof watchdog_message,
                     "penlim %s: stopped: --max-seconds %g ran out, and %g s after the start the command had still not "
                     "finished (a callback of the model %s that does not return?): nothing more was written\n",
                     o->cmd, o->max_seconds, 2.0 * o->max_seconds + PL_ISOLATE_GRACE, path);
        watchdog_arm(o, 1);
    }
}

/* The set-up of a sweep or compare is over: its runs are bounded one by one (and apart, with --isolate). */
void watchdog_setup_done(const case_options *o)
{
    if (!isolated_child && o->loaded_from[0] && o->max_seconds > 0) {
        watchdog_arm(o, 0);
        remove_temporaries_on_signals(); /* SIGALRM's own handler again */
    }
}

/* The mode of new files, 0666 & ~umask, read once at start-up. */
static mode_t file_mode = 0644;

mode_t cli_file_mode(void)
{
    return file_mode;
}

const pl_temp_hooks *cli_temp_hooks(void)
{
    return &temp_hooks;
}

void cli_isolated_child(void)
{
    isolated_child = 1;
}

void cli_command_started(const char *name)
{
    snprintf(exit_message, sizeof exit_message,
             "penlim %s: the model called exit() in a callback: the command did not finish\n", name);
    snprintf(json_oom_message, sizeof json_oom_message,
             "penlim %s: out of memory reading or writing JSON: the command did not finish\n", name);
}

void cli_process_start(void)
{
    /* One heap for every thread.  glibc gives each new thread an arena of its own, reserving 64 MB of
     * address space for it; under a memory limit (ulimit -v) that reservation fails and the thread
     * then maps every block on its own, without the per-thread cache that lets penlim's checks
     * before a library's unchecked allocations (core/lcp.c, cvode_driver.c) hand it the memory
     * just checked: such a thread crashed inside Siconos and GSL where the others failed cleanly. */
    mallopt(M_ARENA_MAX, 1);
    mode_t mask = umask(0);
    umask(mask);
    file_mode = 0666 & ~mask;
    remove_temporaries_on_signals();
    json_set_alloc_funcs(json_alloc_or_leave, free);
    atexit(exit_guard);
}

/* Leave without the exit handlers of the libraries: OpenBLAS (loaded by Siconos Numerics) joins its
 * thread pool there, and hung forever in a process under a memory limit (ulimit -v) that had run
 * out of memory.  penlim registers none itself and has closed its files; stdio is flushed here
 * (a failure to write stdout is an output error, exit 1).
 * Sanitized builds exit normally: LeakSanitizer checks at exit. */
int leave(int status)
{
    program_done = 1;
    if (fflush(NULL) != 0 && status == 0)
        status = 1; /* stdout could not be written (a full disk, a closed pipe) */
#ifndef PENLIM_SANITIZE
    _exit(status);
#endif
    return status;
}

