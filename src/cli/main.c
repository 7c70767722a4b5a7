/* penlim: the command-line program.  Parses options, calls the library, prints summaries.
 * Exit status: 0 success, 1 a file could not be written or read, 2 bad input, 3 a failed run (a solver
 * failure, out of memory, a time budget; results still written). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gsl/gsl_errno.h>
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cases/cases.h"
#include "cli/args.h"
#include "cli/isolate.h"
#include "core/clock.h"
#include "model/check.h"
#include "io/compare_report.h"
#include "io/external.h"
#include "io/impact_law_report.h"
#include "core/number.h"
#include "io/outdir.h"
#include "io/output.h"
#include "io/plot_dir.h"
#include "io/report.h"
#include "io/sweep_report.h"
#include "solvers/solver.h"
#include "study/analysis.h"
#include "study/compare.h"
#include "study/family.h"
#include "study/fit.h"
#include "study/sweep.h"
#include "laws/approximations.h"
#include "laws/law.h"

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
static void watch_loaded_model(const case_options *o)
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
        int setup_only = strcmp(o->cmd, "sweep") == 0 || strcmp(o->cmd, "compare") == 0;
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
static void watchdog_setup_done(const case_options *o)
{
    if (!isolated_child && o->loaded_from[0] && o->max_seconds > 0) {
        watchdog_arm(o, 0);
        remove_temporaries_on_signals(); /* SIGALRM's own handler again */
    }
}

/* The mode of new files, 0666 & ~umask, read once at start-up. */
static mode_t file_mode = 0644;

static int exit_code(pl_status s)
{
    switch (s) {
    case PL_OK: return 0;
    case PL_ERR_INPUT: return 2;
    case PL_ERR_SOLVER:
    case PL_ERR_NOMEM: return 3; /* a run that failed, with its reason */
    default: return 1;
    }
}

static int input_error(const char *cmd, const char *fmt, const char *arg)
{
    char text[1024];
    pl_escape(arg, text, sizeof text); /* quoted input stays on one line */
    fprintf(stderr, "penlim %s: ", cmd);
    fprintf(stderr, fmt, text);
    fputc('\n', stderr);
    return 2;
}

/* A library call's failure, err as it filled it: bad input (exit 2, one line), or another status
 * (out of memory, a read error) with its own exit code and its reason. */
static int failure(const char *cmd, const pl_error *err)
{
    if (err->status == PL_ERR_INPUT || err->status == PL_OK)
        return input_error(cmd, "%s", err->message);
    fprintf(stderr, "penlim %s: %s\n", cmd, err->message);
    return exit_code(err->status);
}

static const char run_usage[] =
    "usage: penlim run (CASE | --model FILE) [--mu X] [--law NAME] [--set NAME=VALUE ...] [--t-end T] [--rtol R] [--out DIR]\n"
    "                       [--samples N] [--max-steps N] [--max-seconds S] [--max-output N]\n"
    "                       [--contacts dense|sparse] [--force] [--quiet]\n"
    "       penlim run CASE --scheme NAME [--h H] [--theta TH] [--gamma G] [--set NAME=VALUE ...]\n"
    "                       [--t-end T] [--out DIR] [--max-steps N] [--max-seconds S]\n"
    "                       [--max-output N] [--contacts dense|sparse] [--force] [--quiet]\n"
    "Integrate the penalized system of CASE for one stiffness mu (Runge-Kutta through impacts,\n"
    "CVODE BDF in settled contact), or run a time-stepping scheme, and write DIR/trajectory.csv,\n"
    "DIR/trajectory_s.csv, DIR/summary.json and DIR/manifest.json (formats: docs/formats.md).\n"
    "  --mu X            stiffness mu > 0 (default 1e8)\n"
    "  --model FILE      a model compiled apart (a shared object exporting penlim_model; see\n"
    "                    'penlim new-model'), in place of CASE; a CASE not built in is also looked\n"
    "                    up as CASE.so in the directories of PENLIM_MODEL_PATH\n"
    "  --set NAME=VALUE  set a case parameter (repeatable; 'penlim cases' lists them)\n"
    "  --law NAME        the contact law (default kelvin_voigt; 'penlim laws' lists them); its\n"
    "                    parameters are set with --set as the case's (k, e or xi; c, n)\n"
    "  --t-end T         end time (default: the case's)\n"
    "  --rtol R          relative tolerance in [1e-14, 1) (default 1e-8; not for schemes);\n"
    "                    absolute tolerances follow the penetration scales at this mu\n"
    "  --out DIR         output directory (default out/run/CASE/SOLVER_PARAM_VALUE, e.g.\n"
    "                    out/run/CASE/penalty_mu_1e8, out/run/CASE/moreau_jean_h_0.001)\n"
    "  --max-steps N     stop with an error after N steps (default 5000000)\n"
    "  --max-seconds S   bound the command's wall-clock time from its start (default: none): a set-up\n"
    "                    that spends it stops the command (nothing written), a run or its analysis\n"
    "                    that reaches it stops with an error, the results up to there written\n"
    "  --max-output N    cap on the values (rows x columns) of a trajectory (default 2e7): a\n"
    "                    larger --samples is refused, a run that reaches it stops with an error\n"
    "  --contacts MODE   how G and the forces are stored and written: dense (columns G1..Gm and\n"
    "                    lambda1..lambdam of trajectory.csv) or sparse (contacts.csv: the\n"
    "                    constraints in contact at each row); default dense up to 100 constraints\n"
    "  --samples N       besides every internal step, record the solution at N uniformly spaced\n"
    "                    times (CVODE's dense output; default 1000, 0 for steps only); schemes\n"
    "                    record every step and take no --samples\n"
    "  --scheme NAME     a time-stepping scheme instead: moreau_jean, paoli or maury\n"
    "  --h H             its time step (default: 1e-2 times the case's time scale: V/A from its\n"
    "                    scales, or its forcing time)\n"
    "  --theta TH        Moreau-Jean: theta in [0.5, 1] (default 0.5)\n"
    "  --gamma G         Moreau-Jean: a constraint enters the LCP when G + gamma h Gdot <= 0,\n"
    "                    gamma in [0, 1] (default 0.5)\n"
    "  --force           write into DIR even if it holds files penlim did not write\n"
    "  --quiet           print nothing on success\n";

static int load_model(case_options *o, const char *model_path);

/* The content hash of a file's bytes (pl_hash_fd): what identifies a model compiled apart in a
 * manifest, so that `sweep --resume` does not reuse the runs of a model rebuilt since.  0, or the
 * errno of the failure to open or read the file. */
static int hash_file(const char *path, char *out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno ? errno : EIO;
    pl_status s = pl_hash_fd(fd, out, NULL);
    int e = s == PL_OK ? 0 : errno ? errno : EIO;
    close(fd);
    return e;
}

/* The model's identity in a manifest: the file it was loaded from and its hash (null for a
 * built-in case), and whether its derivatives are differenced.  Returns the manifest, or NULL (it
 * released) if out of memory, as PL_JSON_SET. */
static json_t *with_model_identity(json_t *manifest, const case_options *o, const pl_model *model)
{
    json_t *j = json_object();
    PL_JSON_SET(j, "file", o->loaded_from[0] ? json_string(o->loaded_from) : json_null());
    PL_JSON_SET(j, "content_hash", o->loaded_from[0] ? json_string(o->model_hash) : json_null());
    PL_JSON_SET(j, "derivatives", json_string(model->type->derivatives == PL_DERIVATIVES_NONE
                                                  ? "difference quotients"
                                                  : "given"));
    return PL_JSON_SET(manifest, "model", j);
}

/* Parse argv for the commands that solve a case; returns -1 to continue, or an exit status. */
static int parse_case_options(int argc, char **argv, case_options *o, unsigned command, const char *usage)
{
    o->started = pl_now_seconds(); /* --max-seconds counts from here: loading the model is set-up too */
    pl_error err;
    const char *model_path = getenv("PENLIM_MODEL_PATH");
    o->model_search = model_path && *model_path;
    if (cli_parse_case_options(argc, argv, command, o, &err) != PL_OK)
        return failure(o->cmd, &err);
    if (o->help) {
        fputs(usage, stdout);
        return 0;
    }
    int rc = load_model(o, model_path);
    if (rc < 0)
        watch_loaded_model(o);
    return rc;
}

/* A model compiled apart: --model FILE, or a CASE that is not built in found on PENLIM_MODEL_PATH.
 * The shared object stays loaded until the program ends.  Returns -1 to continue, or 2. */
static int load_model(case_options *o, const char *model_path)
{
    pl_error err;
    pl_model_library *lib = &o->library;
    if (o->model_file) {
        if (pl_model_library_open(lib, o->model_file, model_path, &err) != PL_OK)
            return failure(o->cmd, &err);
    } else if (!o->c) {
        int found = pl_model_library_find(lib, o->case_name, model_path, &err);
        if (found < 0)
            return failure(o->cmd, &err);
        if (found == 0)
            return input_error(o->cmd, "unknown case '%s' (see 'penlim cases'; not on PENLIM_MODEL_PATH either)",
                               o->case_name);
    } else {
        return -1;
    }
    /* The name becomes part of the output directory: checked before anything uses it. */
    if (!pl_case_name_valid(lib->c->name)) {
        pl_model_library_close(lib);
        return input_error(o->cmd, "the model in %s has no valid name (1 to 63 letters, digits, '_', '-')",
                           o->model_file ? o->model_file : o->case_name);
    }
    o->c = lib->c;
    snprintf(o->loaded_from, sizeof o->loaded_from, "%s", lib->path);
    int e = hash_file(lib->path, o->model_hash);
    if (e != 0) { /* it was loaded: a failure to read it again is a read error, not bad input */
        char path[PATH_MAX];
        pl_escape(lib->path, path, sizeof path);
        fprintf(stderr, "penlim %s: cannot read the model file %s: %s\n", o->cmd, path, strerror(e));
        return e == ENOMEM ? 3 : 1;
    }
    cli_default_out(o);
    return -1;
}

/* The solver of a command: --scheme NAME (a scheme only), or the default. */
static int choose_solver(const case_options *o, const pl_solver_type *fallback, const pl_solver_type **solver)
{
    if (!o->scheme) {
        *solver = fallback;
        return -1;
    }
    const pl_solver_type *s = pl_solver_find(o->scheme);
    if (!s || s->family != PL_FAMILY_SCHEME) {
        char names[256] = "";
        for (size_t k = 0; k < pl_solver_count(); k++)
            if (pl_solver_at(k)->family == PL_FAMILY_SCHEME) {
                strncat(names, names[0] ? ", " : "", sizeof names - strlen(names) - 1);
                strncat(names, pl_solver_at(k)->name, sizeof names - strlen(names) - 1);
            }
        char scheme[256];
        pl_escape(o->scheme, scheme, sizeof scheme);
        fprintf(stderr, "penlim %s: unknown scheme '%s' (schemes: %s)\n", o->cmd, scheme, names);
        return 2;
    }
    *solver = s;
    return -1;
}

/* Where a model compiled apart came from, and how its derivatives are had. */
static void print_model_origin(const case_options *o, const pl_model *model)
{
    if (o->loaded_from[0])
        printf("model %s loaded from %s\n", model->type->name, o->loaded_from);
    if (model->type->derivatives == PL_DERIVATIVES_NONE)
        printf("model %s gives no derivatives: its Jacobians and gap derivatives are difference quotients "
               "(about 1e-10 relative, 1e-8 for second derivatives, where it varies on its scales V^2/A and "
               "V/A)\n", model->type->name);
}

/* text as one word of a POSIX shell: as it is when it holds only characters no shell treats
 * specially, else in single quotes (a quote inside as '\''); "" if it does not fit in len. */
static const char *shell_word(const char *text, char *buf, size_t len)
{
    size_t n = 0;
    int plain = *text != '\0';
    for (const char *p = text; *p && plain; p++)
        plain = isalnum((unsigned char)*p) || strchr("_./-+,:@%=", *p);
    if (plain)
        return snprintf(buf, len, "%s", text) < (int)len ? buf : "";
    if (n + 1 < len)
        buf[n++] = '\'';
    for (const char *p = text; *p && n + 5 < len; p++) {
        if (*p == '\'') {
            memcpy(buf + n, "'\\''", 4);
            n += 4;
        } else
            buf[n++] = *p;
    }
    if (n + 2 > len)
        return "";
    buf[n++] = '\'';
    buf[n] = '\0';
    return buf;
}

/* Each --set NAME is a parameter of the model; else one line pointing at the command that lists them.
 * Returns -1 to continue, or 2. */
static int check_setting_names(const case_options *o)
{
    for (size_t k = 0; k < o->nsettings; k++) {
        /* a law's parameter: the model says whether it is the chosen law's */
        if (pl_param_find(o->c->params, o->c->nparams, o->settings[k].name) >= 0 ||
            pl_law_type_owning(o->settings[k].name))
            continue;
        char msg[1200], word[700];
        snprintf(msg, sizeof msg, "unknown parameter '%s' for %s %s (its parameters: penlim cases %s%s)",
                 o->settings[k].name, o->loaded_from[0] ? "the model" : "case", o->c->name,
                 o->model_file ? "--model " : "", shell_word(o->model_file ? o->model_file : o->c->name, word,
                                                            sizeof word));
        return input_error(o->cmd, "%s", msg);
    }
    return -1;
}

/* The model, the solver's options from the command line (all but `skip`, a sweep's grid), and the
 * checks a solve makes before it starts; returns -1 to continue, or an exit status. */
static int prepare(const case_options *o, const pl_solver_type *solver, const char *skip, pl_model *model,
                   pl_solve_opts *opts)
{
    pl_error err;
    int rc = check_setting_names(o);
    if (rc >= 0)
        return rc;
    if (pl_model_init_law(model, o->c, o->law, o->settings, o->nsettings, &err) != PL_OK)
        return failure(o->cmd, &err);
    if (!o->quiet)
        print_model_origin(o, model);
    pl_solve_opts_init(opts, solver, model, o->t_end);
    opts->max_steps = o->max_steps;
    opts->max_seconds = o->max_seconds;
    opts->max_output = o->max_output;
    opts->contacts = o->contacts;
    if (o->samples_given && !pl_solver_can(solver, PL_SOLVER_DENSE))
        return input_error(o->cmd, "--samples does not apply to %s: it records every step (no dense output)",
                           solver->name);
    if (o->samples_given)
        opts->samples = (size_t)o->samples;
    for (size_t k = 0; k < o->ngiven; k++) /* which solver an option belongs to, before its value */
        if (pl_solver_option_index(solver, o->given_name[k]) < 0) {
            char msg[128];
            snprintf(msg, sizeof msg, "option --%s does not apply to the %s solver", o->given_name[k], solver->name);
            return input_error(o->cmd, "%s", msg);
        }
    for (size_t k = 0; k < o->ngiven; k++) {
        if (skip && strcmp(o->given_name[k], skip) == 0)
            continue;
        double value;
        char what[32];
        snprintf(what, sizeof what, "--%s", o->given_name[k]);
        if (pl_parse_double(o->given_text[k], &value, &err, what) != PL_OK ||
            pl_solve_opts_set(opts, solver, o->given_name[k], value, &err) != PL_OK)
            return failure(o->cmd, &err);
    }
    if (pl_solve_check(solver, model, opts, &err) != PL_OK)
        return failure(o->cmd, &err);
    return -1;
}

/* --max-seconds bounds the set-up (loading and checking the model, the solvers' checks, reading the
 * files compare measures) from the command's start: checked once it is done, before anything is
 * written.  Returns -1 to continue, or 3 with one line (the budget spent before any run). */
static int setup_within_budget(const case_options *o)
{
    double took = pl_now_seconds() - o->started;
    if (!(o->max_seconds > 0) || took <= o->max_seconds)
        return -1;
    fprintf(stderr, "penlim %s: --max-seconds %g ran out during the set-up (the model and the checks took %.3g s): "
            "nothing was run or written\n", o->cmd, o->max_seconds, took);
    return 3;
}

static void print_vector(const char *name, const double *x, size_t n)
{
    printf("%s = (", name);
    for (size_t j = 0; j < n; j++)
        printf(j ? ", %.6g" : "%.6g", x[j]);
    printf(")");
}

/* A number as the user would write it, exactly: 1e8, 0.001, 3162.2776601683795. */
static const char *num(double x, char buf[PL_NUMBER_LEN])
{
    return pl_format_short(x, buf, PL_NUMBER_LEN);
}

/* "mu = 1e8, rtol = 1e-8" */
static void options_text(const pl_solution *sol, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < sol->solver->noptions && used < len; k++) {
        char v[PL_NUMBER_LEN];
        used += (size_t)snprintf(buf + used, len - used, "%s%s = %s", k ? ", " : "", sol->solver->options[k].name,
                                 num(sol->option[k], v));
    }
}

/* "DIR: a.csv, b.json, manifest.json; runs/ (9 runs), limit/": every file the command wrote, the
 * files of subdirectories counted by directory. */
static void print_written(const char *dir, const pl_strings *written)
{
    printf("wrote %s:", dir);
    const char *sep = " ";
    for (size_t k = 0; k < written->n; k++)
        if (!strchr(written->items[k], '/')) {
            printf("%s%s", sep, written->items[k]);
            sep = ", ";
        }
    printf("%smanifest.json", sep);
    size_t runs = 0, limit = 0, contacts = 0;
    const char *last_run = NULL;
    for (size_t k = 0; k < written->n; k++) {
        const char *f = written->items[k];
        size_t len_f = strlen(f);
        contacts += strncmp(f, "runs/", 5) == 0 && len_f > 13 && strcmp(f + len_f - 13, "/contacts.csv") == 0;
        if (strncmp(f, "runs/", 5) == 0) {
            size_t len = (size_t)(strchr(f + 5, '/') ? strchr(f + 5, '/') - f : (long)strlen(f));
            if (!last_run || strncmp(last_run, f, len) != 0 || last_run[len] != '/')
                runs++;
            last_run = f;
        } else if (strncmp(f, "limit/", 6) == 0)
            limit++;
    }
    if (runs)
        printf("; runs/ (%zu run%s: trajectory.csv, trajectory_s.csv, summary.json%s)", runs, runs > 1 ? "s" : "",
               contacts ? ", contacts.csv" : "");
    if (limit)
        printf("; limit/ (%zu files, the limit solution)", limit);
    printf("\n");
}

static void print_solution_summary(const pl_model *model, const pl_solution *sol, const pl_analysis *a,
                                   const char *dir, const pl_strings *written)
{
    char opts[256], v[PL_NUMBER_LEN];
    options_text(sol, opts, sizeof opts);
    printf("penlim %s %s (%s): %s, t in [0, %s]\n", sol->solver->family == PL_FAMILY_LIMIT ? "limit" : "run",
           model->type->name, sol->solver->name, opts, num(sol->t_end, v));
    printf("  status: %s\n", sol->status == PL_OK ? "ok" : sol->error.message);
    if (pl_solver_can(sol->solver, PL_SOLVER_EPISODES))
        printf("  contact episodes: %zu, ", sol->nepisodes);
    else
        printf("  ");
    printf("impacts: %zu", a ? a->impacts : 0);
    if (a && a->impacts > 0 && isfinite(a->restitution_first))
        printf(" (first at t = %.6f, restitution %.5f)", a->first_impact_time, a->restitution_first + 0.0);
    else if (a && a->impacts > 0) /* arrived at zero normal speed: no ratio of speeds */
        printf(" (first at t = %.6f, no restitution: zero approach speed)", a->first_impact_time);
    if (a && a->touches_unresolved > 0)
        printf(", %zu contacts not resolved as impacts (the free motion turns the gap within a contact, or "
               "the entry rate is below the run's resolution)", a->touches_unresolved);
    if (pl_solver_compliant(sol->solver) && sol->nepisodes > 0)
        printf(", first contact: constraint %zu at t = %.6f, max penetration %.3g", sol->episodes[0].constraint + 1,
               sol->episodes[0].t_in, sol->episodes[0].max_penetration);
    if (a && !isnan(a->capture_time))
        printf(", capture at t = %.6f", a->capture_time);
    if (sol->zeno.found)
        printf("\n  Zeno: impacts of constraint %zu accumulate at t = %.12g (%zu resolved, ratio %.6g), %s",
               sol->zeno.constraint + 1, sol->zeno.t_accumulation, sol->zeno.impacts_resolved, sol->zeno.ratio,
               sol->zeno.t_accumulation > sol->t_end ? "past t-end: the run ends at t-end in the state they reach"
                                                      : "then continue");
    if (pl_solver_can(sol->solver, PL_SOLVER_ZENO) && !pl_laws_bounces_accumulate(model->law, model->m))
        printf("\n  no Zeno point: the law's impacts never accumulate (elastic, or 1 - e ~ c V)");
    if (sol->tail.found)
        printf("\n  bounces of constraint %zu from t = %.12g summed in closed form to t-end (c v = %.3g, the "
               "impacts never accumulate): %.6g impacts skipped, the last at t = %.12g (+- %.2g), rebound speed "
               "%.6g", sol->tail.constraint + 1, sol->tail.t_start, sol->tail.x_start, sol->tail.impacts,
               sol->tail.t_last, sol->tail.time_error, sol->tail.speed_last);
    printf("\n  final: t = %s, ", num(sol->t_final, v));
    print_vector("q", sol->q_final, sol->n);
    printf(", ");
    print_vector("v", sol->v_final, sol->n);
    const pl_stats *s = &sol->stats;
    if (sol->solver->family == PL_FAMILY_SCHEME)
        printf("\n  cost: %ld steps of %.6g, %ld LCP solves (%ld pivots), %ld rhs evaluations, %.3f s\n", s->steps,
               sol->step_size, s->lcp_solves, s->lcp_iterations, s->rhs_evals, s->wall_seconds);
    else
        printf("\n  cost: %ld steps, %ld rhs evaluations, %ld Jacobians, %ld restarts, %.3f s\n", s->steps,
               s->rhs_evals, s->jac_evals, s->restarts, s->wall_seconds);
    printf("  ");
    print_written(dir, written);
}

/* The output directory of a command: locked, scanned, and its manifest once written. */
typedef struct {
    pl_output out;
    pl_outdir_state st;
    pl_strings planned, keep;
    json_t *manifest;
    json_t *journal; /* a sweep's, updated as its runs are written */
} outdir_session;

/* Validate --out before any computation: check it, lock it, and refuse files penlim did not write
 * (unless --force).  Returns -1 to continue, or an exit status (nothing created or written). */
static int outdir_start(const case_options *o, outdir_session *d)
{
    memset(d, 0, sizeof *d);
    pl_output_init(&d->out, o->out, file_mode, &temp_hooks);
    pl_error err;
    int unlocked = 0;
    pl_status s = pl_outdir_open(&d->out, &unlocked, &err);
    if (s == PL_OK)
        s = pl_outdir_scan(&d->out, &d->st, &err);
    if (s != PL_OK) {
        fprintf(stderr, "penlim %s: %s\n", o->cmd, err.message);
        return s == PL_ERR_INPUT ? 2 : exit_code(s);
    }
    if (unlocked)
        fprintf(stderr, "penlim %s: warning: this file system cannot lock %s: another penlim writing it at the same "
                "time would not be refused\n", o->cmd, o->out);
    /* a link is never written through nor replaced, --force or not: the user removes it */
    const char *no_link = "penlim follows no link inside --out: remove it (--force leaves it alone, never writing "
                          "through it)";
    if (d->st.unsafe.n > 0 && !o->force) {
        char what[1024], out[1024];
        const char *item = d->st.unsafe.items[0], *why = strrchr(item, ',');
        pl_escape(item, what, sizeof what);
        pl_escape(o->out, out, sizeof out);
        fprintf(stderr, "penlim %s: the manifest of %s lists %s: not a file penlim wrote; %s\n", o->cmd, out, what,
                why && strstr(why, "symbolic link") ? no_link : "--force writes there anyway, leaving it alone");
        return 2;
    }
    if (d->st.foreign.n > 0 && !o->force) {
        struct stat sb;
        const char *item = d->st.foreign.items[0];
        int link = fstatat(d->out.root_fd, item, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode);
        char what[1024], out[1024];
        pl_escape(item, what, sizeof what);
        pl_escape(o->out, out, sizeof out);
        fprintf(stderr, "penlim %s: %s holds files penlim did not write (%s%s); %s\n", o->cmd, out, what,
                link ? ", a symbolic link" : d->st.foreign.n > 1 ? " and others" : "",
                link ? no_link : strcmp(o->cmd, "plot") == 0 ? "--force draws anyway, leaving them alone"
                                                             : "--force writes there anyway");
        return 2;
    }
    return -1;
}

static void outdir_end(outdir_session *d)
{
    pl_outdir_state_free(&d->st);
    pl_strings_free(&d->planned);
    pl_strings_free(&d->keep);
    json_decref(d->manifest);
    json_decref(d->journal);
    pl_outdir_close(&d->out);
    pl_output_free(&d->out);
}

/* Solve, analyse, write and report one solution (run and limit). */
static int solve_and_write(const case_options *o, const pl_solver_type *solver, const pl_model *model,
                           const pl_solve_opts *opts)
{
    outdir_session d;
    int rc = outdir_start(o, &d);
    if (rc >= 0) {
        outdir_end(&d);
        return rc;
    }
    pl_error err, io;
    const char *files[] = {"trajectory.csv", "trajectory_s.csv", "summary.json", "contacts.csv"};
    pl_status s = PL_OK;
    for (size_t k = 0; s == PL_OK && k < 4; k++)
        s = pl_strings_add(&d.planned, files[k], &io);
    d.manifest = pl_manifest_new(o->cmd, model, solver, opts, NULL);
    d.manifest = with_model_identity(d.manifest, o, model);
    json_t *journal = json_deep_copy(d.manifest);
    if (s == PL_OK)
        s = pl_outdir_begin(&d.out, &d.st, journal, &d.planned, &d.keep, &io);
    json_decref(journal);
    if (s != PL_OK) {
        fprintf(stderr, "penlim %s: %s\n", o->cmd, io.message);
        outdir_end(&d);
        return exit_code(s);
    }
    pl_solution sol;
    pl_analysis analysis;
    pl_status status = pl_solve(solver, model, opts, &sol, &err);
    if (status == PL_ERR_INPUT) {
        pl_solution_free(&sol);
        outdir_end(&d);
        return failure(o->cmd, &err);
    }
    /* the command's budget (opts->started: its start) bounds the analysis too, not the solution */
    pl_status analysis_status = pl_analyze_within(model, &sol, &(pl_budget){opts->max_seconds, opts->started},
                                                  &analysis, &err);
    if (status == PL_OK && analysis_status != PL_OK) {
        status = sol.status = analysis_status;
        sol.error = err;
    }
    /* The files within a budget of their own, from the start of their writing: a solve or analysis
     * stopped by its budget still has the time to write what it has.  Stopped while writing, the
     * files written are complete and the manifest lists them (pl_outdir_finish removes the rest). */
    pl_budget writing = {opts->max_seconds, pl_now_seconds()};
    pl_error stopped;
    s = pl_write_solution(&d.out, NULL, model, &sol, analysis_status == PL_OK ? &analysis : NULL, &writing,
                          &stopped);
    pl_status write_status = s;
    if (s == PL_ERR_SOLVER)
        s = PL_OK;
    else if (s != PL_OK)
        io = stopped;
    if (s == PL_OK)
        s = pl_outdir_finish(&d.out, &d.st, &d.planned, d.manifest, &io);
    if (status != PL_OK)
        fprintf(stderr, "penlim %s: %s\n", o->cmd, sol.error.message);
    if (write_status == PL_ERR_SOLVER)
        fprintf(stderr, "penlim %s: %s\n", o->cmd, stopped.message);
    if (s != PL_OK)
        fprintf(stderr, "penlim %s: %s\n", o->cmd, io.message);
    if (s == PL_OK && !o->quiet)
        print_solution_summary(model, &sol, analysis_status == PL_OK ? &analysis : NULL, o->out, &d.out.written);
    if (status == PL_OK && write_status == PL_ERR_SOLVER)
        status = write_status;
    pl_analysis_free(&analysis);
    pl_solution_free(&sol);
    outdir_end(&d);
    return status != PL_OK ? exit_code(status) : exit_code(s);
}

static int cmd_run_with(int argc, char **argv, pl_model *model)
{
    case_options o = {.cmd = "run", .t_end = NAN};
    int rc = parse_case_options(argc, argv, &o, CMD_RUN, run_usage);
    const pl_solver_type *solver;
    if (rc >= 0 || (rc = choose_solver(&o, &pl_solver_penalty, &solver)) >= 0)
        return rc;
    pl_solve_opts opts;
    if ((rc = prepare(&o, solver, NULL, model, &opts)) >= 0)
        return rc;
    if (o.out == o.out_default) { /* out/run/CASE/SOLVER_PARAM_VALUE: runs at other values do not overwrite it */
        char v[PL_NUMBER_LEN];
        size_t used = strlen(o.out_default);
        int refined = solver->refine ? pl_solver_option_index(solver, solver->refine) : -1;
        if (refined >= 0)
            snprintf(o.out_default + used, sizeof o.out_default - used, "/%s_%s_%s", solver->name, solver->refine,
                     num(opts.option[refined], v));
        else
            snprintf(o.out_default + used, sizeof o.out_default - used, "/%s", solver->name);
    }
    if ((rc = setup_within_budget(&o)) >= 0)
        return rc;
    pl_solve_opts_count_from(&opts, o.started); /* one budget for the command: set-up, run and analysis */
    return solve_and_write(&o, solver, model, &opts);
}

/* The command with its model, released whatever happens (pl_model_free of an empty model does nothing). */
static int cmd_run(int argc, char **argv)
{
    pl_model model = {0};
    int rc = cmd_run_with(argc, argv, &model);
    pl_model_free(&model);
    return rc;
}

static const char sweep_usage[] =
    "usage: penlim sweep (CASE | --model FILE) [--mu A:B:N | --mu a,b,c] [--law NAME] [--set NAME=VALUE ...]\n"
    "                         [--t-end T] [--rtol R] [--out DIR] [--jobs J] [--samples N] [--max-steps N]\n"
    "                         [--max-seconds S] [--max-output N] [--contacts dense|sparse]\n"
    "                         [--no-plots] [--no-limit]\n"
    "                         [--resume] [--isolate | --no-isolate] [--force] [--quiet]\n"
    "       penlim sweep CASE --scheme NAME [--h A:B:N | --h a,b,c] [--theta TH] [--gamma G]\n"
    "                         [other options as above but --rtol and --samples]\n"
    "Solve CASE for an increasing sequence of stiffnesses (or, with --scheme, a decreasing sequence\n"
    "of time steps), extract the limit objects of each run (impacts, sustained contacts, Zeno\n"
    "capture), fit their convergence rates, measure each run against the limit solution, and plot.\n"
    "  --mu A:B:N        N values geometrically spaced from A to B, or an explicit list a,b,c\n"
    "                    (default 1e2:1e10:9)\n"
    "  --h A:B:N         the time steps of a scheme (default 7 values from 10^-1.2 to 10^-4.2\n"
    "                    times the case's time scale: V/A, or its forcing time)\n"
    "  --law NAME        the contact law (as for 'penlim run')\n"
    "  --jobs J          runs in parallel (default: the number of cores); results do not depend on it\n"
    "  --no-plots        write the data and the plot scripts' data, but do not run gnuplot\n"
    "  --no-limit        do not compute the limit solution (nor the distances to it)\n"
    "  --resume          reuse the runs of DIR that an earlier sweep with the same settings\n"
    "                    completed (its manifest or, if interrupted, its journal)\n"
    "  --isolate         solve each run, and the limit solution, in a process of its own (the\n"
    "                    default for a model file; --no-isolate: all in this one): a crash, an\n"
    "                    exit() or a callback that never returns fails that run alone, with the\n"
    "                    signal named, and --max-seconds stops it from outside\n"
    "  --quiet           no progress line and no summary\n"
    "  --out DIR         output directory (default out/sweep/CASE, out/sweep/CASE-SCHEME for a\n"
    "                    scheme): sweep.csv, episodes.csv, sweep.json, impact_errors.csv, the plots\n"
    "                    (*.png with their *.gp and *.dat), runs/NNN_PARAM_VALUE/, limit/, manifest.json\n"
    "  --max-seconds S   the set-up within S of the start, then each run and the limit solution\n"
    "                    within S of its own start, with its analysis (default: none)\n"
    "  --model, --set, --t-end, --rtol, --samples, --max-steps, --max-output, --contacts, --force,\n"
    "  --theta, --gamma: as for 'penlim run', per run\n";

/* The progress line, on stderr when it is a terminal. */
static void progress_line(size_t done, size_t total, void *user)
{
    (void)user;
    fprintf(stderr, "\rpenlim sweep: %zu/%zu runs done", done, total);
    if (done == total)
        fputc('\n', stderr);
    fflush(stderr);
}

/* What the callbacks of a sweep need to reuse runs and write each as soon as it is done. */
typedef struct {
    outdir_session *d;
    const pl_model *model;
    const int *candidate; /* run k may be read back from the directory */
    int limit_candidate;  /* and the limit solution */
    const pl_solve_opts *base;
    pl_status status;     /* the first write failure (not out of memory) */
    pl_error err;
    pl_error *run_error;  /* run k's files could not be written for want of memory: a failed run */
    const pl_isolation *iso; /* --isolate: each solve in a process of its own, or NULL */
    unsigned char *in_place; /* run k's files were written by its process and read back */
    pl_error *read_error; /* run k could not be read back (--resume): the sweep ends with that error */
    pl_error limit_read_error; /* the same for the limit solution */
} sweep_io;

/* --isolate: run k, or the limit solution, solved by a process of its own that writes it into its
 * directory, where it is read back (and then kept, as a reused run's files are). */
static pl_status solve_isolated(const pl_sweep *sw, size_t k, const pl_solver_type *solver, const pl_solve_opts *o,
                                pl_solution *sol, pl_error *err, void *user)
{
    sweep_io *io = user;
    char sub[128];
    if (k == PL_SWEEP_LIMIT)
        snprintf(sub, sizeof sub, "limit");
    else
        pl_sweep_run_dir(sw, k, sub, sizeof sub);
    int read_back = 0;
    pl_status s = pl_isolated_solve(io->iso, io->model, solver, o, &io->d->out, sub, sol, &read_back, err);
    if (k != PL_SWEEP_LIMIT && read_back) /* 1: read back solved, 2: read back failed */
        io->in_place[k] = s == PL_OK ? 1 : 2;
    return s;
}

/* The files of a run, in runs/NNN_PARAM_VALUE/ (pl_write_solution): the first 3 always, contacts.csv
 * with sparse contacts. */
static const char *const run_files[] = {"trajectory.csv", "trajectory_s.csv", "summary.json", "contacts.csv"};
#define RUN_FILES_ALWAYS 3

/* Run k, or the limit solution (k = PL_SWEEP_LIMIT), read back from the directory if an earlier
 * sweep with the same settings (o) wrote it complete. */
static int reuse_run(const pl_sweep *sw, size_t k, const pl_solve_opts *o, pl_solution *sol, void *user)
{
    sweep_io *io = user;
    int limit = k == PL_SWEEP_LIMIT;
    if (!(limit ? io->limit_candidate : io->candidate[k]))
        return 0;
    const pl_solver_type *solver = limit ? &pl_solver_limit : sw->solver;
    pl_error *read_error = limit ? &io->limit_read_error : &io->read_error[k];
    char sub[128], dir[PATH_MAX];
    pl_error err;
    if (limit)
        snprintf(sub, sizeof sub, "limit");
    else
        pl_sweep_run_dir(sw, k, sub, sizeof sub);
    /* Its files as penlim wrote them (their hashes; regular files, no link followed): a file changed,
     * swapped with another run's or replaced by a FIFO is computed again.  trajectory_s.csv, kept but
     * not read, is verified here; the two files read are verified on the very bytes read (replaced
     * between a check and the read, they would be read unverified). */
    char summary[PATH_MAX], trajectory[PATH_MAX], trajectory_s[PATH_MAX], contacts[PATH_MAX];
    snprintf(summary, sizeof summary, "%s/summary.json", sub);
    snprintf(trajectory, sizeof trajectory, "%s/trajectory.csv", sub);
    snprintf(trajectory_s, sizeof trajectory_s, "%s/trajectory_s.csv", sub);
    snprintf(contacts, sizeof contacts, "%s/contacts.csv", sub);
    pl_run_hashes want = {pl_outdir_hash(&io->d->st, summary), pl_outdir_hash(&io->d->st, trajectory),
                          pl_outdir_hash(&io->d->st, contacts)};
    if (!want.summary || !want.trajectory)
        return 0;
    pl_status s = pl_outdir_verify(&io->d->out, &io->d->st, trajectory_s, &err);
    if (s == PL_ERR_IO || s == PL_ERR_NOMEM) /* a read error, reported; not a run to recompute quietly */
        *read_error = err;
    if (s != PL_OK)
        return 0;
    int fd = pl_output_dir(&io->d->out, sub, 0);
    if (fd < 0)
        return 0; /* gone, or a link on the way: computed again */
    s = pl_output_path(&io->d->out, sub, NULL, dir, sizeof dir, &err);
    if (s == PL_OK)
        s = pl_read_solution_at(fd, dir, io->model, solver, &want, sol, &err);
    close(fd);
    if (s != PL_OK) {
        pl_solution_free(sol);
        if (s == PL_ERR_IO || s == PL_ERR_NOMEM) /* a read error, reported; not a run to recompute quietly */
            *read_error = err;
        return 0;
    }
    /* the manifest said so; the run's own summary must agree */
    int same = sol->t_end == o->t_end;
    for (size_t j = 0; j < solver->noptions; j++)
        same = same && sol->option[j] == o->option[j];
    if (!same)
        pl_solution_free(sol);
    return same;
}

/* Run k is done: its files written (or, reused, recorded with the hashes they were verified against;
 * written by its isolated process, hashed as they are), then the journal, so that an interrupted
 * sweep's next --resume can verify them. */
static void run_done(const pl_sweep *sw, size_t k, void *user)
{
    sweep_io *io = user;
    if (io->status != PL_OK)
        return;
    /* The files an isolated solve wrote stand, unless the analysis here has failed the run since. */
    int in_place = io->in_place && io->in_place[k] && (io->in_place[k] == 1) == (sw->runs[k].status == PL_OK);
    if (!sw->reused[k] && !in_place) {
        pl_error e;
        pl_budget writing = {io->base->max_seconds, pl_now_seconds()}; /* its files' own, as for run */
        pl_status s = pl_write_sweep_run(&io->d->out, io->model, sw, k, &writing, &e);
        if (s == PL_ERR_NOMEM || s == PL_ERR_SOLVER) /* this run fails (memory, or its budget), the others go on */
            pl_fail(&io->run_error[k], s, "writing its files: %.400s", e.message);
        else if (s != PL_OK)
            pl_fail(&io->err, io->status = s, "writing the run at %s = %g: %.400s", sw->param_name, sw->param[k],
                    e.message);
    } else {
        char sub[128], rel[PATH_MAX];
        pl_sweep_run_dir(sw, k, sub, sizeof sub);
        /* a reused run's files with the hashes they were verified against; an isolated solve's, as written */
        for (size_t j = 0; io->status == PL_OK && j < sizeof run_files / sizeof run_files[0]; j++) {
            snprintf(rel, sizeof rel, "%s/%s", sub, run_files[j]);
            if (j >= RUN_FILES_ALWAYS && sw->runs[k].contacts != PL_CONTACTS_SPARSE)
                continue;
            io->status = sw->reused[k] ? pl_output_add_hashed(&io->d->out, rel, pl_outdir_hash(&io->d->st, rel), &io->err)
                                       : pl_output_add(&io->d->out, rel, &io->err);
        }
    }
    if (io->status == PL_OK)
        io->status = pl_outdir_journal_update(&io->d->out, io->d->journal, &io->err);
}

/* The reason a run read back failed here, saying that its files stay. */
static void note_kept(pl_error *e)
{
    size_t len = strnlen(e->message, sizeof e->message - 1);
    snprintf(e->message + len, sizeof e->message - len,
             " (its files, complete, are kept from the earlier sweep: the next --resume reuses them)");
}

/* A table cell: 6 decimals, or "n/a" where there is no value (no impact, no capture). */
static const char *cell(double x, char buf[32])
{
    if (isfinite(x))
        snprintf(buf, 32, "%.6f", x + 0.0); /* + 0.0: no "-0.000000" */
    else
        snprintf(buf, 32, "n/a");
    return buf;
}

static void print_sweep_summary(const pl_model *model, const pl_sweep *sw, const char *dir, const pl_strings *written,
                                long jobs)
{
    const char *p = sw->param_name;
    char v0[PL_NUMBER_LEN], v1[PL_NUMBER_LEN], v2[PL_NUMBER_LEN];
    printf("penlim sweep %s (%s): %zu values of %s from %s to %s, t in [0, %s], %ld jobs\n", model->type->name,
           sw->solver->name, sw->n, p, num(sw->param[0], v0), num(sw->param[sw->n - 1], v1), num(sw->t_end, v2), jobs);
    printf("%10s %-7s %8s %8s %13s %13s %9s %10s %8s", p, "status", "episodes", "impacts", "restitution_1",
           "capture_time", "steps", "rhs_evals", "wall_s");
    if (sw->has_limit) /* the impacts matched with the limit's */
        printf(" %7s %7s %8s %8s %5s", "matched", "missing", "absorbed", "excluded", "extra");
    putchar('\n');
    for (size_t k = 0; k < sw->n; k++) {
        const pl_solution *r = &sw->runs[k];
        char e1[32], tc[32];
        num(sw->param[k], v0);
        if (strlen(v0) > 10) /* the column's width; the files have every digit */
            snprintf(v0, sizeof v0, "%.4g", sw->param[k]);
        printf("%10s %-7s %8zu %8zu %13s %13s %9ld %10ld %8.3f", v0, r->status == PL_OK ? "ok" : "failed",
               r->nepisodes, sw->analysis[k].impacts, cell(sw->q[PL_Q_RESTITUTION_FIRST].values[k], e1),
               cell(sw->q[PL_Q_CAPTURE_TIME].values[k], tc), r->stats.steps, r->stats.rhs_evals, r->stats.wall_seconds);
        const pl_limit_distance *d = &sw->dist[k];
        if (sw->has_limit && r->status == PL_OK)
            printf(" %7zu %7zu %8zu %8zu %5zu", d->impacts_matched, d->impacts_missing, d->impacts_absorbed,
                   d->impacts_excluded, d->impacts_extra);
        else if (sw->has_limit)
            printf(" %7s %7s %8s %8s %5s", "n/a", "n/a", "n/a", "n/a", "n/a");
        putchar('\n');
    }
    if (sw->has_limit && sw->limit.zeno.found)
        printf("limit solution: Zeno point at t = %.12g after %zu resolved impacts, %s\n",
               sw->limit.zeno.t_accumulation, sw->limit.zeno.impacts_resolved,
               sw->limit.zeno.t_accumulation > sw->limit.t_end ? "past t-end (the run ends there in the state it reaches)"
                                                               : "then sustained contact");
    else if (!sw->has_limit && sw->limit.status != PL_OK)
        printf("limit solution: failed: %s\n", sw->limit.error.message);
    int up = sw->solver->refine_sign > 0; /* refining makes the option larger (mu) or smaller (h) */
    printf("convergence (error ~ %s^%srate, fitted on all %s and on the %s half of them; errors against\n"
           "the closed form, the limit solution, or the extrapolated limit, in that order of preference):\n",
           sw->param_name, up ? "-" : "", sw->param_name, up ? "upper" : "smaller");
    for (int q = 0; q < PL_SWEEP_NQ; q++) {
        const pl_sweep_quantity *Q = &sw->q[q];
        char floors[192], predicted[256] = "";
        if (Q->predicted_rate == PL_RATE_EXACT)
            snprintf(predicted, sizeof predicted, "; predicted exact");
        else if (isfinite(Q->predicted_rate))
            snprintf(predicted, sizeof predicted, "; predicted %.3f", Q->predicted_rate);
        else if (Q->predicted_note)
            snprintf(predicted, sizeof predicted, "; not predicted: %s", Q->predicted_note);
        if (Q->no_limit) {
            printf("  %-26s no limit: %s", Q->name, Q->no_limit);
            if (q == PL_Q_CAPTURE_TIME && isfinite(sw->capture_per_decade)) {
                printf(" (%.3f +- %.3f per decade of %s", sw->capture_per_decade, sw->capture_per_decade_se, p);
                if (isfinite(sw->capture_per_decade_predicted))
                    printf(", predicted %.3f", sw->capture_per_decade_predicted);
                printf(")");
            }
            printf("\n");
            continue;
        }
        if (Q->conv.at_floor) {
            printf("  %-26s equals its limit %.10g at every %s: %s%s\n", Q->name, Q->conv.limit, p,
                   pl_floor_note(&Q->conv, floors, sizeof floors), predicted);
            continue;
        }
        if (Q->conv.points == 0)
            continue;
        if (Q->conv.points < PL_FIT_MIN_POINTS) {
            char note[160];
            printf("  %-26s rate n/a: %s%s\n", Q->name, pl_sweep_rate_note(sw, Q, note, sizeof note),
                   Q->predicted_note ? predicted : "");
            continue;
        }
        if (!Q->conv.converges) {
            printf("  %-26s does not converge to %.10g (%s)", Q->name, Q->conv.limit,
                   pl_reference_name(Q->conv.reference));
            if (isfinite(Q->conv.rate))
                printf(": fitted rate %.3f +- %.3f%s\n", Q->conv.rate, Q->conv.rate_se, predicted);
            else
                printf(": rate n/a (its error would exceed it)%s\n", predicted);
            continue;
        }
        if (isfinite(Q->conv.rate))
            printf("  %-26s rate %6.3f +- %.3f", Q->name, Q->conv.rate, Q->conv.rate_se);
        else
            printf("  %-26s rate %-14s", Q->name, "n/a");
        if (isfinite(Q->conv.rate_upper))
            printf(" (finer half %6.3f +- %.3f)", Q->conv.rate_upper, Q->conv.rate_upper_se);
        else
            printf("%30s", "");
        printf("   limit %.10g", Q->conv.limit);
        if (Q->conv.reference == PL_REF_EXTRAPOLATED && isfinite(Q->conv.limit_error))
            printf(" +- %.2g (extrapolated)", Q->conv.limit_error);
        else if (Q->conv.reference == PL_REF_EXTRAPOLATED)
            printf(" (extrapolated)");
        else
            printf(" (%s)", pl_reference_name(Q->conv.reference));
        if (Q->conv.floored > 0)
            printf("; %s, left out", pl_floor_note(&Q->conv, floors, sizeof floors));
        printf("%s\n", predicted);
    }
    if (sw->has_limit) {
        size_t pairing = 0;
        for (size_t k = 0; k < sw->n; k++)
            pairing += sw->runs[k].status == PL_OK && sw->dist[k].impacts_matched > 0;
        printf("  impact errors over the %zu of the limit's %zu impacts paired in every run that pairs any (%zu of %zu "
               "runs)\n", sw->impact_common_size, sw->limit_analysis.impacts, pairing, sw->n);
    }
    int any_capture_impacts = 0;
    for (size_t k = 0; k < sw->n; k++)
        any_capture_impacts |= sw->analysis[k].impacts_before_capture > 0;
    if (!isnan(sw->impacts_per_decade) && any_capture_impacts && isfinite(sw->impacts_per_decade_predicted))
        printf("  impacts before capture: %.2f +- %.2f per decade of %s (predicted %.2f)\n", sw->impacts_per_decade,
               sw->impacts_per_decade_se, sw->solver->family == PL_FAMILY_PENALTY ? "mu" : "1/h",
               sw->impacts_per_decade_predicted);
    for (size_t k = 0; k < sw->n; k++)
        if (sw->runs[k].status != PL_OK)
            printf("  %s = %s failed: %s\n", p, num(sw->param[k], v0), sw->runs[k].error.message);
    size_t reused = 0;
    for (size_t k = 0; k < sw->n; k++)
        reused += (size_t)sw->reused[k];
    if (reused > 0)
        printf("reused %zu of the %zu runs from %s (--resume)\n", reused, sw->n, dir);
    print_written(dir, written);
}

/* The h of a scheme by default, k = 0, 0.5, 1, ...: h = 10^(-1.2 - k) T, at most t-end/10^(1 + k), T
 * the case's time scale (V/A, or its forcing time: pl_model_time_scale; not a power of ten of it,
 * which for the ball is the first impact time and would put impacts exactly on steps).  A sweep
 * takes k = 3, 2.5, ..., 0; compare k = 0, 1, 2 (or a sweep's). */
static double default_h(const pl_model *model, double t_end, double k)
{
    double T = pl_model_time_scale(model); /* V/A, or the case's forcing time */
    return fmin(pow(10.0, -1.2 - k) * T, t_end / pow(10.0, 1.0 + k));
}

/* The default grid of a sweep: mu = 1e2 ... 1e10 (9 values), or h = 10^(-1.2 - k/2) T (7 values,
 * T the case's time scale; not a power of ten of it, which for the ball is the first impact time
 * and would put impacts exactly on steps), each no larger than t-end/10^(1 + k/2). */
static pl_status default_grid(const pl_solver_type *solver, const pl_model *model, double t_end, double **values,
                              size_t *n, pl_error *err)
{
    if (pl_solver_compliant(solver))
        return pl_parse_grid("1e2:1e10:9", "--mu", values, n, err);
    double *v = malloc(7 * sizeof *v);
    if (!v)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    for (int k = 0; k < 7; k++)
        v[k] = default_h(model, t_end, 0.5 * (6 - k));
    *values = v;
    *n = 7;
    return PL_OK;
}

static int cmd_sweep_with(int argc, char **argv, pl_model *model)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    case_options o = {.cmd = "sweep", .t_end = NAN, .jobs = cores > 0 ? cores : 1};
    int rc = parse_case_options(argc, argv, &o, CMD_SWEEP, sweep_usage);
    const pl_solver_type *solver;
    if (rc >= 0 || (rc = choose_solver(&o, &pl_solver_penalty, &solver)) >= 0)
        return rc;
    pl_error err;
    pl_sweep_opts opts = {.solver = solver, .jobs = (int)o.jobs, .with_limit = !o.no_limit,
                          .progress = (!o.quiet && isatty(STDERR_FILENO)) ? progress_line : NULL};
    if ((rc = prepare(&o, solver, solver->refine, model, &opts.base)) >= 0)
        return rc;
    const char *grid = NULL;
    for (size_t k = 0; k < o.ngiven; k++)
        if (strcmp(o.given_name[k], solver->refine) == 0)
            grid = o.given_text[k];
    double *values = NULL;
    size_t nvalues = 0;
    char what[32];
    snprintf(what, sizeof what, "--%s", solver->refine);
    pl_status s = grid ? pl_parse_grid(grid, what, &values, &nvalues, &err)
                       : default_grid(solver, model, opts.base.t_end, &values, &nvalues, &err);
    /* Every value of the grid passes the checks of a single solve. */
    int refined = pl_solver_option_index(solver, solver->refine);
    for (size_t k = 0; s == PL_OK && k < nvalues; k++) {
        pl_solve_opts one = opts.base;
        one.option[refined] = values[k];
        if ((s = pl_param_check(&solver->options[refined], values[k], &err)) == PL_OK)
            s = pl_solve_check(solver, model, &one, &err);
    }
    /* The limit solution's own checks (an admissible start, say), as limit and compare make them: a sweep
     * whose reference cannot be computed is refused before it runs, not reported after. */
    if (s == PL_OK && !o.no_limit) {
        pl_solve_opts lopts;
        pl_solve_opts_init(&lopts, &pl_solver_limit, model, opts.base.t_end);
        if (pl_solve_check(&pl_solver_limit, model, &lopts, &err) != PL_OK) {
            char msg[sizeof err.message + 64];
            snprintf(msg, sizeof msg, "%s (--no-limit sweeps without it)", err.message);
            free(values);
            return input_error("sweep", "%s", msg);
        }
    }
    if (s != PL_OK) {
        free(values);
        return failure("sweep", &err);
    }
    /* --isolate, on by default for a model compiled apart: each solve in a process of its own. */
    pl_isolation iso;
    int isolate = o.isolate || (!o.no_isolate && o.loaded_from[0]);
    if (isolate && pl_isolation_init(&iso, &o, &err) != PL_OK) {
        free(values);
        return input_error("sweep", "%s", err.message);
    }
    /* The set-up within the budget; then each run (and the limit solution) has its own, as for run. */
    if ((rc = setup_within_budget(&o)) >= 0) {
        free(values);
        return rc;
    }
    watchdog_setup_done(&o);
    outdir_session d;
    if ((rc = outdir_start(&o, &d)) >= 0) {
        free(values);
        outdir_end(&d);
        return rc;
    }
    /* The runs' directories, which of them an earlier sweep completed, and the journal. */
    pl_sweep_order(solver, values, nvalues);
    int *candidate = calloc(nvalues ? nvalues : 1, sizeof *candidate);
    d.manifest = pl_manifest_new("sweep", model, solver, &opts.base, solver->refine);
    d.manifest = with_model_identity(d.manifest, &o, model);
    json_t *journal = d.journal = json_deep_copy(d.manifest);
    s = candidate ? pl_sweep_files(solver->refine, values, nvalues, !o.no_limit, !o.no_plots, &d.planned, &err)
                  : pl_fail(&err, PL_ERR_NOMEM, "out of memory");
    for (size_t k = 0; s == PL_OK && k < nvalues; k++) {
        char sub[128];
        pl_strings files = {0};
        pl_sweep_run_dir_name(solver->refine, k, values[k], sub, sizeof sub);
        for (size_t j = 0; s == PL_OK && j < d.planned.n; j++)
            if (strncmp(d.planned.items[j], sub, strlen(sub)) == 0 && d.planned.items[j][strlen(sub)] == '/')
                s = pl_strings_add(&files, d.planned.items[j], &err);
        candidate[k] = o.resume && pl_outdir_reusable(&d.st, d.manifest, sub, values[k]);
        for (size_t j = 0; s == PL_OK && candidate[k] && j < files.n; j++)
            s = pl_strings_add(&d.keep, files.items[j], &err);
        if (s == PL_OK)
            s = pl_manifest_add_run(journal, values[k], "pending", sub, &files, &err);
        pl_strings_free(&files);
    }
    /* the limit solution of an earlier sweep with these settings, read back as a run is */
    int limit_candidate = o.resume && !o.no_limit;
    char limit_files[4][64];
    size_t nlimit_files = RUN_FILES_ALWAYS;
    for (size_t j = 0; j < 4; j++)
        snprintf(limit_files[j], sizeof limit_files[j], "limit/%s", run_files[j]);
    if (pl_outdir_hash(&d.st, limit_files[RUN_FILES_ALWAYS])) /* sparse contacts: contacts.csv too */
        nlimit_files++;
    for (size_t j = 0; j < nlimit_files; j++)
        limit_candidate = limit_candidate && pl_outdir_reusable_file(&d.st, d.manifest, limit_files[j]);
    for (size_t j = 0; s == PL_OK && limit_candidate && j < nlimit_files; j++)
        s = pl_strings_add(&d.keep, limit_files[j], &err);
    if (s == PL_OK)
        s = pl_outdir_begin(&d.out, &d.st, journal, &d.planned, &d.keep, &err);
    if (s != PL_OK) {
        fprintf(stderr, "penlim sweep: %s\n", err.message);
        free(values);
        free(candidate);
        outdir_end(&d);
        return exit_code(s);
    }
    sweep_io io = {.d = &d, .model = model, .candidate = candidate, .limit_candidate = limit_candidate, .base = &opts.base,
                   .iso = isolate ? &iso : NULL, .in_place = isolate ? calloc(nvalues ? nvalues : 1, 1) : NULL};
    if (isolate && !io.in_place) {
        fprintf(stderr, "penlim sweep: out of memory\n");
        free(values);
        free(candidate);
        outdir_end(&d);
        return 3;
    }
    opts.solve = isolate ? solve_isolated : NULL;
    opts.reuse = reuse_run;
    opts.run_done = run_done;
    opts.release_trajectories = 1; /* written by run_done: the memory does not grow with the runs */
    opts.user = &io;
    pl_sweep sw = {0}; /* freed whatever happens, pl_sweep_run called or not */
    io.run_error = calloc(nvalues ? nvalues : 1, sizeof *io.run_error);
    io.read_error = calloc(nvalues ? nvalues : 1, sizeof *io.read_error);
    s = io.run_error && io.read_error ? pl_sweep_run(model, values, nvalues, &opts, &sw, &err)
                                      : pl_fail(&err, PL_ERR_NOMEM, "out of memory for a sweep of %zu runs", nvalues);
    free(values);
    free(candidate);
    for (size_t k = 0; s == PL_OK && k < sw.n; k++)
        if (io.run_error[k].status != PL_OK && sw.runs[k].status == PL_OK) {
            sw.runs[k].status = io.run_error[k].status;
            sw.runs[k].error = io.run_error[k];
            sw.failures++;
        }
    /* A run or limit solution read back whose analysis did not finish here (the budget, memory) keeps
     * its files, complete, and stays "ok" in the manifest: the next --resume reuses it. */
    for (size_t k = 0; s == PL_OK && k < sw.n; k++)
        if (sw.reused[k] && sw.runs[k].status != PL_OK)
            note_kept(&sw.runs[k].error);
    if (s == PL_OK && sw.limit_reused && !sw.has_limit)
        note_kept(&sw.limit.error);
    for (size_t j = 0; s == PL_OK && io.status == PL_OK && sw.limit_reused && j < nlimit_files; j++)
        io.status = pl_output_add_hashed(&d.out, limit_files[j], pl_outdir_hash(&d.st, limit_files[j]), &io.err);
    for (size_t k = 0; s == PL_OK && io.status == PL_OK && k <= sw.n; k++) {
        const pl_error *e = k < sw.n ? &io.read_error[k] : &io.limit_read_error;
        if (e->status != PL_OK) { /* the run was solved again; the error still ends the sweep */
            io.status = e->status;
            io.err = *e;
        }
    }
    free(io.run_error);
    free(io.in_place);
    free(io.read_error);
    if (s == PL_OK && io.status != PL_OK) {
        s = io.status;
        err = io.err;
    }
    /* The sweep's own files (the limit solution's, the tables) within a budget of their own, as each
     * run's; stopped, the files written are complete and the manifest lists them. */
    pl_error stopped;
    pl_status write_status = PL_OK;
    if (s == PL_OK) {
        pl_budget writing = {opts.base.max_seconds, pl_now_seconds()};
        s = write_status = pl_write_sweep(&d.out, model, &sw, &writing, &stopped);
        if (s == PL_ERR_SOLVER)
            s = PL_OK;
        else if (s != PL_OK)
            err = stopped;
    }
    if (s != PL_OK) {
        fprintf(stderr, "penlim sweep: %s\n", err.message);
        pl_sweep_free(&sw);
        outdir_end(&d);
        return exit_code(s);
    }
    pl_error plot_err;
    /* the figures, like each run, within --max-seconds of their own start */
    pl_budget figures = {o.max_seconds, pl_now_seconds()};
    pl_status plots =
        o.no_plots || write_status != PL_OK ? PL_OK : pl_render_sweep_plots(&d.out, model, &sw, &figures, &plot_err);
    for (size_t k = 0; s == PL_OK && k < sw.n; k++) {
        char sub[128];
        pl_strings files = {0};
        pl_sweep_run_dir(&sw, k, sub, sizeof sub);
        for (size_t j = 0; s == PL_OK && j < d.out.written.n; j++)
            if (strncmp(d.out.written.items[j], sub, strlen(sub)) == 0 && d.out.written.items[j][strlen(sub)] == '/')
                s = pl_strings_add(&files, d.out.written.items[j], &err);
        if (s == PL_OK)
            s = pl_manifest_add_run(d.manifest, sw.param[k], sw.runs[k].status == PL_OK || sw.reused[k] ? "ok" : "failed",
                                    sub, &files, &err);
        pl_strings_free(&files);
    }
    if (s == PL_OK)
        s = pl_outdir_finish(&d.out, &d.st, &d.planned, d.manifest, &err);
    if (s != PL_OK) {
        fprintf(stderr, "penlim sweep: %s\n", err.message);
        pl_sweep_free(&sw);
        outdir_end(&d);
        return exit_code(s);
    }
    if (plots != PL_OK) {
        char out[1024];
        pl_escape(o.out, out, sizeof out);
        fprintf(stderr, "penlim sweep: warning: plots skipped: %s (the data and scripts are in %s)\n",
                plot_err.message, out);
    }
    if (!o.quiet) {
        print_sweep_summary(model, &sw, o.out, &d.out.written, o.jobs);
        if (!o.no_plots && plots == PL_OK)
            printf("plots: %s/*.png (re-render with gnuplot NAME.gp in that directory)\n", o.out);
    }
    for (size_t k = 0; k < sw.n; k++)
        if (sw.runs[k].status != PL_OK)
        {
            char v[PL_NUMBER_LEN];
            fprintf(stderr, "penlim sweep: %s = %s failed: %s\n", sw.param_name, num(sw.param[k], v),
                    sw.runs[k].error.message);
        }
    if (!o.no_limit && !sw.has_limit)
        fprintf(stderr, "penlim sweep: warning: the limit solution failed, no run is measured against it: %s\n",
                sw.limit.error.message);
    if (write_status != PL_OK)
        fprintf(stderr, "penlim sweep: %s\n", stopped.message);
    rc = sw.failures || write_status != PL_OK || (!o.no_limit && !sw.has_limit) ? 3 : 0;
    pl_sweep_free(&sw);
    outdir_end(&d);
    return rc;
}

/* The command with its model, released whatever happens (pl_model_free of an empty model does nothing). */
static int cmd_sweep(int argc, char **argv)
{
    pl_model model = {0};
    int rc = cmd_sweep_with(argc, argv, &model);
    pl_model_free(&model);
    return rc;
}

static const char limit_usage[] =
    "usage: penlim limit (CASE | --model FILE) [--law NAME] [--set NAME=VALUE ...] [--t-end T] [--rtol R] [--out DIR] [--samples N]\n"
    "                         [--max-steps N] [--max-seconds S] [--max-output N] [--contacts dense|sparse]\n"
    "                         [--force] [--quiet]\n"
    "Compute the limit (generalized) solution of CASE directly, event by event: flight, impacts\n"
    "from the infinitesimal dynamics, sustained contact with the sliding-mode force, lift-off, and\n"
    "Zeno accumulation continued past the accumulation point.  Writes DIR/trajectory.csv,\n"
    "DIR/trajectory_s.csv, DIR/summary.json and DIR/manifest.json (formats: docs/formats.md).\n"
    "  --model FILE      a model compiled apart (a shared object exporting penlim_model; see\n"
    "                    'penlim new-model'), in place of CASE; a CASE not built in is also looked\n"
    "                    up as CASE.so in the directories of PENLIM_MODEL_PATH\n"
    "  --set NAME=VALUE  set a case parameter (repeatable; 'penlim cases' lists them)\n"
    "  --law NAME        the contact law (default kelvin_voigt; 'penlim laws' lists them); its\n"
    "                    parameters are set with --set as the case's (k, e or xi; c, n)\n"
    "  --t-end T         end time (default: the case's)\n"
    "  --rtol R          relative tolerance of the smooth phases in [1e-14, 1) (default 1e-12)\n"
    "  --samples N       besides every event and step, record the solution at N uniformly spaced\n"
    "                    times (default 1000, 0 for none)\n"
    "  --max-steps N     stop with an error after N steps (default 5000000)\n"
    "  --max-seconds S   bound the command's wall-clock time from its start (default: none): a set-up\n"
    "                    that spends it stops the command (nothing written), a run or its analysis\n"
    "                    that reaches it stops with an error, the results up to there written\n"
    "  --max-output N    cap on the values (rows x columns) of a trajectory (default 2e7): a\n"
    "                    larger --samples is refused, a run that reaches it stops with an error\n"
    "  --contacts MODE   how G and the forces are stored and written: dense (columns G1..Gm and\n"
    "                    lambda1..lambdam of trajectory.csv) or sparse (contacts.csv: the\n"
    "                    constraints in contact at each row); default dense up to 100 constraints\n"
    "  --out DIR         output directory (default out/limit/CASE)\n"
    "  --force           write into DIR even if it holds files penlim did not write\n"
    "  --quiet           print nothing on success\n";

static int cmd_limit_with(int argc, char **argv, pl_model *model)
{
    case_options o = {.cmd = "limit", .t_end = NAN};
    int rc = parse_case_options(argc, argv, &o, CMD_LIMIT, limit_usage);
    if (rc >= 0)
        return rc;
    pl_solve_opts opts;
    if ((rc = prepare(&o, &pl_solver_limit, NULL, model, &opts)) >= 0 || (rc = setup_within_budget(&o)) >= 0)
        return rc;
    pl_solve_opts_count_from(&opts, o.started); /* one budget for the command: set-up, solve and analysis */
    return solve_and_write(&o, &pl_solver_limit, model, &opts);
}

/* The command with its model, released whatever happens (pl_model_free of an empty model does nothing). */
static int cmd_limit(int argc, char **argv)
{
    pl_model model = {0};
    int rc = cmd_limit_with(argc, argv, &model);
    pl_model_free(&model);
    return rc;
}

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
    "                    at most t-end/10^(1+k))\n"
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

/* One solution of compare and everything measured of it. */
typedef struct {
    pl_compare_entry e;
    const pl_solver_type *solver;
    pl_solve_opts opts;
    pl_solution sol;
    pl_analysis analysis;
    pl_trajectory traj;
    pl_impact_match match; /* its impacts against the limit's */
    int has_gamma, analysed, built;
} cmp_item;

typedef struct {
    cmp_item *item;
    size_t n, cap;
} cmp_list;

static cmp_item *cmp_add(cmp_list *l)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        cmp_item *p = realloc(l->item, cap * sizeof *p);
        if (!p)
            return NULL;
        l->item = p;
        l->cap = cap;
    }
    cmp_item *it = &l->item[l->n++];
    memset(it, 0, sizeof *it);
    pl_solution_init(&it->sol, &pl_solver_external, &(pl_model){.n = 0}, NAN, NULL); /* replaced when solved:
                                                                                     nothing to allocate */
    return it;
}

static void cmp_free(cmp_list *l)
{
    for (size_t k = 0; k < l->n; k++) {
        pl_solution_free(&l->item[k].sol);
        if (l->item[k].analysed)
            pl_analysis_free(&l->item[k].analysis);
        pl_trajectory_free(&l->item[k].traj);
        pl_impact_match_free(&l->item[k].match);
    }
    free(l->item);
}

/* Add a penalized run (mu) or a scheme's run (h): checked as a run is; returns -1 or an exit status. */
static int cmp_add_solve(cmp_list *l, const case_options *o, const pl_model *model, const pl_solve_opts *penalty,
                         const pl_solver_type *solver, double value, int quiet_skip)
{
    pl_solve_opts opts;
    pl_error err;
    const char *name = solver->refine;
    if (solver == &pl_solver_penalty)
        opts = *penalty;
    else {
        pl_solve_opts_init(&opts, solver, model, penalty->t_end);
        opts.max_steps = penalty->max_steps;
        opts.max_seconds = penalty->max_seconds;
        opts.max_output = penalty->max_output;
        opts.contacts = penalty->contacts;
    }
    int idx = pl_solver_option_index(solver, name);
    opts.option[idx] = value;
    if (pl_param_check(&solver->options[idx], value, &err) != PL_OK || pl_solve_check(solver, model, &opts, &err) != PL_OK) {
        if (quiet_skip)
            return -1; /* a default value outside the range of this case and t-end */
        return failure(o->cmd, &err);
    }
    cmp_item *it = cmp_add(l);
    if (!it)
        return failure(o->cmd, &(pl_error){PL_ERR_NOMEM, "out of memory planning the solutions"});
    it->solver = solver;
    it->opts = opts;
    it->e.param_name = name;
    it->e.param = value;
    return -1;
}

static const pl_solver_type *scheme_named(const char *name)
{
    const pl_solver_type *s = pl_solver_find(name);
    return s && s->family == PL_FAMILY_SCHEME ? s : NULL;
}

/* The solutions asked for (or the default set), every external file read and checked: all bad input
 * is found here, before anything is computed or written.  Returns -1 or an exit status. */
static int cmp_plan(const case_options *o, const pl_model *model, const pl_solve_opts *penalty, cmp_list *l)
{
    pl_error err;
    int rc = -1;
    int any_mu = 0, any_scheme = 0;
    for (size_t k = 0; k < o->nspec; k++) {
        any_mu |= o->spec[k].kind == SPEC_MU;
        any_scheme |= o->spec[k].kind == SPEC_SCHEME;
    }
    for (size_t k = 0; rc < 0 && k < o->nspec; k++) {
        const solution_spec *sp = &o->spec[k];
        double value;
        if (sp->kind == SPEC_MU && !o->work_precision) {
            if (pl_parse_double(sp->text, &value, &err, "--mu") != PL_OK)
                return failure(o->cmd, &err);
            rc = cmp_add_solve(l, o, model, penalty, &pl_solver_penalty, value, 0);
        } else if (sp->kind == SPEC_SCHEME) {
            const pl_solver_type *s = scheme_named(sp->text);
            if (!s)
                return input_error(o->cmd, "unknown scheme '%s' (schemes: moreau_jean, paoli, maury)", sp->text);
            if (s->applies && s->applies(model, &err) != PL_OK)
                return failure(o->cmd, &err);
            size_t given = 0;
            for (size_t j = k + 1; j < o->nspec && o->spec[j].kind == SPEC_H; j++, given++) {
                if (o->work_precision)
                    return input_error(o->cmd, "--h %s: --work-precision takes each scheme's 7 default h", o->spec[j].text);
                if (pl_parse_double(o->spec[j].text, &value, &err, "--h") != PL_OK)
                    return failure(o->cmd, &err);
                if ((rc = cmp_add_solve(l, o, model, penalty, s, value, 0)) >= 0)
                    return rc;
            }
            for (int j = 0; rc < 0 && given == 0 && j < (o->work_precision ? 7 : 3); j++)
                rc = cmp_add_solve(l, o, model, penalty, s, default_h(model, penalty->t_end, o->work_precision ? 0.5 * j : j), 1);
        } else if (sp->kind == SPEC_EXTERNAL) {
            cmp_item *it = cmp_add(l);
            if (!it)
                return failure(o->cmd, &(pl_error){PL_ERR_NOMEM, "out of memory planning the solutions"});
            pl_solution_free(&it->sol);
            it->solver = &pl_solver_external;
            it->e.param_name = "file";
            it->e.param = NAN;
            it->e.file = sp->text;
            pl_status s = pl_read_external(sp->text, model, penalty->t_end, penalty->contacts, &it->sol, &it->has_gamma, &err);
            if (s == PL_ERR_INPUT)
                return failure(o->cmd, &err);
            if (s != PL_OK) { /* a read error (exit 1) or out of memory (exit 3): not the file's content */
                fprintf(stderr, "penlim %s: %s\n", o->cmd, err.message);
                return exit_code(s);
            }
        }
    }
    if (rc >= 0)
        return rc;
    /* The penalty's values: the sweep's grid when refining, the three defaults without solutions. */
    if (o->work_precision && (any_mu || !any_scheme))
        for (int j = 0; rc < 0 && j < 9; j++)
            rc = cmp_add_solve(l, o, model, penalty, &pl_solver_penalty, pow(10.0, 2 + j), 1);
    if (!o->work_precision && o->nspec == 0)
        for (int j = 0; rc < 0 && j < 3; j++)
            rc = cmp_add_solve(l, o, model, penalty, &pl_solver_penalty, pow(10.0, 4 + 2 * j), 1);
    if (o->nspec == 0 || (o->work_precision && !any_scheme && !any_mu))
        for (size_t k = 0; rc < 0 && k < pl_solver_count(); k++) {
            const pl_solver_type *s = pl_solver_at(k);
            if (s->family != PL_FAMILY_SCHEME || (s->applies && s->applies(model, &err) != PL_OK))
                continue;
            for (int j = 0; rc < 0 && j < (o->work_precision ? 7 : 3); j++)
                rc = cmp_add_solve(l, o, model, penalty, s, default_h(model, penalty->t_end, o->work_precision ? 0.5 * j : j), 1);
        }
    for (size_t k = 0; k < l->n; k++) {
        l->item[k].sol.solver = l->item[k].solver; /* named before it is solved */
        l->item[k].e.sol = &l->item[k].sol;
        pl_compare_entry_name(&l->item[k].e, k);
    }
    return rc;
}

/* The families of compare: the solutions of each solver (but external files) measured against the
 * limit solution, in the order of the registry; each member's impact errors are then taken over its
 * family's common impact set.  *nf families in fam (room for every solver). */
static pl_status assess_families(const pl_model *model, cmp_list *l, size_t nlimit_impacts, pl_family *fam, size_t *nf,
                                 pl_error *err)
{
    *nf = 0;
    pl_analysed *sols = malloc((l->n ? l->n : 1) * sizeof *sols);
    pl_family_member *members = malloc((l->n ? l->n : 1) * sizeof *members);
    pl_status s = sols && members ? PL_OK : pl_fail(err, PL_ERR_NOMEM, "out of memory");
    for (size_t j = 0; j < pl_solver_count() && s == PL_OK; j++) {
        const pl_solver_type *solver = pl_solver_at(j);
        size_t n = 0, given = 0;
        for (size_t k = 0; k < l->n; k++) {
            cmp_item *it = &l->item[k];
            if (it->solver != solver || solver->family == PL_FAMILY_EXTERNAL)
                continue;
            given++;
            if (it->sol.status != PL_OK || !it->e.compared)
                continue;
            sols[n] = (pl_analysed){&it->sol, &it->analysis, &it->traj};
            members[n] = (pl_family_member){&sols[n], &it->e.res, &it->match};
            n++;
        }
        if (given > 0)
            s = pl_family_assess(model, solver, members, n, nlimit_impacts, &fam[(*nf)++], err);
    }
    free(sols);
    free(members);
    return s;
}

/* The parameter cell of a compare table row: "mu = 1e4", "h = 0.001", or the file name escaped. */
static void compare_param_text(const cmp_item *it, char *buf, size_t len)
{
    if (it->solver == &pl_solver_external) {
        const char *base = strrchr(it->e.file, '/');
        pl_escape(base && base[1] ? base + 1 : it->e.file, buf, len); /* a name may hold a line break */
    } else {
        char v[PL_NUMBER_LEN];
        num(it->e.param, v);
        if (strlen(v) > 16) { /* a computed default h (17 digits): 4 digits; the files have every digit */
            char r[PL_NUMBER_LEN];
            snprintf(r, sizeof r, "%.4g", it->e.param);
            num(strtod(r, NULL), v);
        }
        snprintf(buf, len, "%s = %s", it->e.param_name, v);
    }
}

static void print_compare_table(const pl_model *model, const pl_solution *limit, const cmp_list *l,
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
        compare_param_text(&l->item[k], param, sizeof param);
        if ((int)strlen(param) > width)
            width = (int)strlen(param);
    }
    printf("%-12s %-*s %-6s %9s %9s %9s %9s %9s %9s %9s %8s %9s %8s %7s %7s %8s %8s %5s\n", "solution", width,
           "parameter", "status", "sup_q", "l1_v", "s_dist_q", "impact_t", "impact_v", "capture", "final_q", "steps",
           "rhs_evals", "wall_s", "matched", "missing", "absorbed", "excluded", "extra");
    for (size_t k = 0; k < l->n; k++) {
        const cmp_item *it = &l->item[k];
        const pl_compare_result *r = &it->e.res;
        int c = it->e.compared, ext = it->solver == &pl_solver_external;
        char param[96];
        compare_param_text(it, param, sizeof param);
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
 * directory sub of the output (pl_write_compare writes it again there with the rest). */
static pl_status solve_in(const pl_isolation *iso, const outdir_session *d, const char *sub,
                          const pl_solver_type *solver, const pl_model *model, const pl_solve_opts *opts,
                          pl_solution *sol, pl_error *err)
{
    if (!iso)
        return pl_solve(solver, model, opts, sol, err);
    int read_back;
    return pl_isolated_solve(iso, model, solver, opts, &d->out, sub, sol, &read_back, err);
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
    pl_solve_opts_init(&lopts, &pl_solver_limit, model, penalty.t_end);
    lopts.samples = penalty.samples;
    lopts.max_steps = penalty.max_steps;
    lopts.max_seconds = penalty.max_seconds;
    lopts.max_output = penalty.max_output;
    lopts.contacts = penalty.contacts;
    pl_error err;
    if (pl_solve_check(&pl_solver_limit, model, &lopts, &err) != PL_OK)
        return failure(o.cmd, &err);
    /* --isolate, on by default for a model compiled apart: each solve in a process of its own. */
    pl_isolation iso;
    int isolate = o.isolate || (!o.no_isolate && o.loaded_from[0]);
    if (isolate && pl_isolation_init(&iso, &o, &err) != PL_OK)
        return failure(o.cmd, &err);
    cmp_list l = {0};
    /* The set-up within the budget; then each solution has its own, as for run. */
    if ((rc = cmp_plan(&o, model, &penalty, &l)) >= 0 || (rc = setup_within_budget(&o)) >= 0) {
        cmp_free(&l);
        return rc;
    }
    watchdog_setup_done(&o);
    outdir_session d;
    if ((rc = outdir_start(&o, &d)) >= 0) {
        cmp_free(&l);
        outdir_end(&d);
        return rc;
    }
    pl_compare_entry *entries = calloc(l.n ? l.n : 1, sizeof *entries);
    pl_status s = entries ? PL_OK : pl_fail(&err, PL_ERR_NOMEM, "out of memory");
    for (size_t k = 0; entries && k < l.n; k++) /* a failed calloc: s says so */
        entries[k] = l.item[k].e;
    if (s == PL_OK)
        s = pl_compare_files(entries, l.n, !o.no_plots, &d.planned, &err);
    d.manifest = pl_manifest_new("compare", model, &pl_solver_limit, &lopts, NULL);
    d.manifest = with_model_identity(d.manifest, &o, model);
    json_t *journal = json_deep_copy(d.manifest);
    if (s == PL_OK)
        s = pl_outdir_begin(&d.out, &d.st, journal, &d.planned, &d.keep, &err);
    json_decref(journal);
    if (s != PL_OK) {
        fprintf(stderr, "penlim compare: %s\n", err.message);
        free(entries);
        cmp_free(&l);
        outdir_end(&d);
        return exit_code(s);
    }
    /* The limit solution once, then each solution measured against it. */
    pl_solution limit;
    pl_analysis la;
    pl_trajectory lt = {0};
    pl_solve_opts_count_from(&lopts, pl_now_seconds()); /* each solution's budget from its start, its analysis included */
    solve_in(isolate ? &iso : NULL, &d, "limit", &pl_solver_limit, model, &lopts, &limit, &err);
    pl_status ls = pl_analyze_within(model, &limit, &(pl_budget){lopts.max_seconds, lopts.started}, &la,
                                     &err); /* also what a failed one found */
    if (ls == PL_OK && limit.status == PL_OK)
        ls = pl_trajectory_build(&lt, model, &limit, &err);
    int has_limit = limit.status == PL_OK && ls == PL_OK;
    if (limit.status == PL_OK && ls != PL_OK) {
        limit.status = ls;
        limit.error = err;
    }
    size_t failures = limit.status != PL_OK;
    for (size_t k = 0; k < l.n; k++) {
        cmp_item *it = &l.item[k];
        pl_solve_opts_count_from(&it->opts, pl_now_seconds()); /* as for the limit solution; a file read has no budget */
        if (it->solver != &pl_solver_external) {
            pl_solution_free(&it->sol);
            if (solve_in(isolate ? &iso : NULL, &d, it->e.dir, it->solver, model, &it->opts, &it->sol, &err) ==
                    PL_ERR_INPUT && it->sol.status == PL_OK) {
                it->sol.status = PL_ERR_INPUT;
                it->sol.error = err;
            }
        }
        pl_budget budget = {it->solver != &pl_solver_external ? it->opts.max_seconds : 0.0, it->opts.started};
        pl_status st = pl_analyze_within(model, &it->sol, &budget, &it->analysis, &err);
        it->analysed = 1;
        if (st == PL_OK)
            st = pl_trajectory_build(&it->traj, model, &it->sol, &err);
        pl_analysed run = {&it->sol, &it->analysis, &it->traj}, ref = {&limit, &la, &lt};
        int s_comparable = pl_solver_can(it->solver, PL_SOLVER_GAMMA) || it->has_gamma;
        if (st == PL_OK && it->sol.status == PL_OK && has_limit) {
            st = pl_compare_solution(model, &run, &ref, s_comparable, &it->e.res, &it->match, &err);
            it->e.compared = st == PL_OK;
        }
        if (st != PL_OK && it->sol.status == PL_OK) {
            it->sol.status = st;
            it->sol.error = err;
        }
        failures += it->sol.status != PL_OK;
        it->e.sol = &it->sol;
        it->e.analysis = &it->analysis;
        it->e.match = &it->match;
    }
    pl_family *fam = calloc(pl_solver_count() + 1, sizeof *fam);
    size_t nfam = 0;
    s = !fam ? pl_fail(&err, PL_ERR_NOMEM, "out of memory") : has_limit ? assess_families(model, &l, la.impacts, fam, &nfam, &err) : PL_OK;
    for (size_t k = 0; k < l.n; k++)
        entries[k] = l.item[k].e;
    /* Each solution's files within a budget of their own, as a sweep's runs: a solution whose files
     * are stopped (or run out of memory) fails, the others go on; then the tables, within theirs:
     * stopped, the files written are complete and the manifest lists them. */
    pl_error stopped, limit_files = {PL_OK, ""};
    pl_status write_status = PL_OK;
    if (s == PL_OK) {
        write_status = s = pl_write_compare(&d.out, model, &limit, &la, &limit_files, entries, l.n, fam, nfam,
                                            lopts.max_seconds, &stopped);
        if (s == PL_ERR_SOLVER)
            s = PL_OK;
        else if (s != PL_OK)
            err = stopped;
    }
    if (limit_files.status != PL_OK && limit.status == PL_OK) { /* reported as the tables report it */
        limit.status = limit_files.status;
        limit.error = limit_files;
        failures++;
    }
    for (size_t k = 0; k < l.n; k++)
        if (entries[k].files.status != PL_OK && l.item[k].sol.status == PL_OK) {
            l.item[k].sol.status = entries[k].files.status;
            l.item[k].sol.error = entries[k].files;
            failures++;
        }
    pl_error plot_err;
    /* the figures, like each solution, within --max-seconds of their own start */
    pl_budget figures = {o.max_seconds, pl_now_seconds()};
    pl_status plots = s != PL_OK || write_status != PL_OK || o.no_plots
                          ? PL_OK
                          : pl_render_compare_plots(&d.out, entries, l.n, &figures, &plot_err);
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
            print_compare_table(model, &limit, &l, fam, nfam, o.out);
            if (!o.no_plots && plots == PL_OK) {
                char out[1024];
                pl_escape(o.out, out, sizeof out);
                printf("plots: %s/compare_*.png (re-render with gnuplot NAME.gp in that directory)\n", out);
            }
        }
        if (limit.status != PL_OK)
            fprintf(stderr, "penlim compare: the limit solution failed: %s\n", limit.error.message);
        for (size_t k = 0; k < l.n; k++)
            if (l.item[k].sol.status != PL_OK) {
                char param[96];
                compare_param_text(&l.item[k], param, sizeof param);
                fprintf(stderr, "penlim compare: %s %s %s failed: %s\n", l.item[k].solver->name,
                        l.item[k].solver == &pl_solver_external ? "file" : "at", param, l.item[k].sol.error.message);
            }
    }
    if (s == PL_OK && write_status != PL_OK)
        fprintf(stderr, "penlim compare: %s\n", stopped.message);
    rc = s != PL_OK ? exit_code(s) : failures || write_status != PL_OK ? 3 : 0;
    for (size_t j = 0; j < nfam; j++)
        pl_family_free(&fam[j]);
    free(fam);
    free(entries);
    pl_solution_free(&limit);
    pl_analysis_free(&la);
    pl_trajectory_free(&lt);
    cmp_free(&l);
    outdir_end(&d);
    return rc;
}

/* The command with its model, released whatever happens (pl_model_free of an empty model does nothing). */
static int cmd_compare(int argc, char **argv)
{
    pl_model model = {0};
    int rc = cmd_compare_with(argc, argv, &model);
    pl_model_free(&model);
    return rc;
}

static const char cases_usage[] =
    "usage: penlim cases [CASE | --model FILE]\n"
    "List the built-in cases with their parameters (default, valid range, meaning); with CASE, that case\n"
    "alone (built in, or CASE.so on PENLIM_MODEL_PATH); with --model FILE, the model compiled apart in FILE.\n";

/* One case: its summary, sizes at its defaults, t-end and parameters. */
static void print_case(const pl_case *c)
{
    /* A case that computes its sizes from its parameters: those of its defaults. */
    size_t n = c->ndof, m = c->ncon;
    pl_model model;
    pl_error err;
    if (c->sizes && pl_model_init(&model, c, NULL, 0, &err) == PL_OK)
        n = model.n, m = model.m;
    if (c->sizes)
        pl_model_free(&model);
    printf("%s: %s\n  %zu degrees of freedom, %zu constraints%s, default t-end %g\n", c->name, c->summary, n, m,
           c->sizes ? " (at the defaults: sizes from the parameters)" : "", c->t_end);
    int width = 14; /* the range column: as wide as its widest entry */
    for (size_t p = 0; p < c->nparams; p++) {
        char range[80];
        pl_param_range_text(&c->params[p], range, sizeof range);
        if ((int)strlen(range) > width)
            width = (int)strlen(range);
    }
    for (size_t p = 0; p < c->nparams; p++) {
        const pl_param_spec *s = &c->params[p];
        char range[80], def[32];
        pl_param_range_text(s, range, sizeof range);
        if (s->flags & PL_PARAM_DERIVED)
            snprintf(def, sizeof def, "derived");
        else
            snprintf(def, sizeof def, "%g", s->value);
        printf("    %-8s %-10s %-*s %s\n", s->name, def, width, range, s->description ? s->description : "");
    }
}

static int cmd_cases(int argc, char **argv)
{
    pl_error err;
    cases_options co;
    if (cli_parse_cases(argc, argv, &co, &err) != PL_OK)
        return failure("cases", &err);
    if (co.help) {
        fputs(cases_usage, stdout);
        return 0;
    }
    if (!co.case_name && !co.model_file) {
        for (size_t k = 0; k < pl_case_count(); k++)
            print_case(pl_case_at(k));
        return 0;
    }
    const pl_case *c = co.case_name ? pl_case_find(co.case_name) : NULL;
    if (c) {
        print_case(c);
        return 0;
    }
    /* A model compiled apart, validated at its defaults as every command would before using it. */
    case_options o = {.cmd = "cases", .case_name = co.case_name, .model_file = co.model_file};
    const char *model_path = getenv("PENLIM_MODEL_PATH");
    o.model_search = model_path && *model_path;
    int rc = load_model(&o, model_path);
    if (rc >= 0)
        return rc;
    pl_model model;
    if (pl_model_init(&model, o.c, NULL, 0, &err) != PL_OK)
        return failure("cases", &err);
    pl_model_free(&model);
    print_case(o.c);
    printf("  (loaded from %s)\n", o.loaded_from);
    return 0;
}

static const char laws_usage[] =
    "usage: penlim laws [LAW]\n"
    "List the contact laws (--law NAME of run, sweep, limit, compare and check-model) with their formula and\n"
    "parameters (default, valid range, meaning), set with --set NAME=VALUE; with LAW, that law alone.\n"
    "delta = -G is the penetration; lambda the normal force (positive pushing); m_eff the constraint's\n"
    "effective mass.  A case's defaults for k, e, xi apply to the law that has them (penlim cases).\n";

static void print_law(const pl_law_type *t)
{
    unsigned f = t->flags;
    printf("%s: %s%s\n  %s\n  %s; %s; %s\n", t->name, t->summary, t == pl_law_type_default() ? " (default)" : "",
           t->formula,
           f & PL_LAW_PER_UNIT_MASS ? "parameters per unit effective mass" : "physical units (k: force/length^n)",
           f & PL_LAW_LINEAR ? "linear in (G, Gdot)" : "nonlinear",
           f & PL_LAW_NEVER_PULLS ? "never pulls" : "pulls near the exit");
    for (size_t p = 0; p < t->nparams; p++) {
        const pl_param_spec *s = &t->params[p];
        char range[80], def[32];
        pl_param_range_text(s, range, sizeof range);
        if (s->flags & PL_PARAM_DERIVED)
            snprintf(def, sizeof def, "derived");
        else
            snprintf(def, sizeof def, "%g", s->value);
        printf("    %-8s %-10s %-14s %s\n", s->name, def, range, s->description ? s->description : "");
    }
}

static int cmd_laws(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(laws_usage, stdout);
        return 0;
    }
    if (argc > 2 || (argc == 2 && argv[1][0] == '-'))
        return input_error("laws", "%s", argc > 2 ? "one LAW at most" : "unknown option (see --help)");
    if (argc == 2) {
        const pl_law_type *t = pl_law_type_find(argv[1]);
        if (!t)
            return input_error("laws", "unknown contact law '%s' (penlim laws lists them)", argv[1]);
        print_law(t);
        return 0;
    }
    for (size_t k = 0; k < pl_law_type_count(); k++)
        print_law(pl_law_type_at(k));
    return 0;
}

static const char check_model_usage[] =
    "usage: penlim check-model (CASE | --model FILE) [--law NAME] [--set NAME=VALUE ...] [--max-seconds S]\n"
    "Validate a model (a built-in case, or one compiled apart and loaded from FILE): its parameters, sizes,\n"
    "callbacks and values at the initial state, then every derivative it gives (the Jacobians of its\n"
    "force or acceleration, dM/dq, the gradients, time derivatives and Hessians of its gaps) against\n"
    "difference quotients of its own values, at the initial state and two states near it.  Prints the\n"
    "worst entry of each; exit status 0 if all agree (relative error <= 1e-6, 1e-4 for second\n"
    "derivatives), 2 if the model is invalid or a derivative disagrees, 3 if --max-seconds S (the\n"
    "command's wall-clock time from its start; default: none) ran out first.\n";

static int cmd_check_model(int argc, char **argv)
{
    case_options o = {.cmd = "check-model", .t_end = NAN};
    int rc = parse_case_options(argc, argv, &o, CMD_CHECK, check_model_usage);
    if (rc >= 0)
        return rc;
    pl_error err;
    pl_model model;
    if ((rc = check_setting_names(&o)) >= 0)
        return rc;
    if (pl_model_init_law(&model, o.c, o.law, o.settings, o.nsettings, &err) != PL_OK)
        return failure(o.cmd, &err);
    printf("penlim check-model %s%s%s: %zu degrees of freedom, %zu constraints; valid at its initial state\n",
           model.type->name, o.loaded_from[0] ? " from " : "", o.loaded_from, model.n, model.m);
    if (model.type->derivatives == PL_DERIVATIVES_NONE) {
        printf("it gives no derivatives: penlim uses difference quotients (nothing to check)\n");
        pl_model_free(&model);
        return 0;
    }
    pl_derivative_error *items;
    size_t nitems;
    /* --max-seconds bounds the whole command, loading and validating the model included */
    if (pl_model_check_derivatives(&model, &(pl_budget){o.max_seconds, o.started}, &items, &nitems, &err) != PL_OK) {
        pl_model_free(&model);
        fprintf(stderr, "penlim check-model: %s\n", err.message);
        return 3;
    }
    printf("  %-14s %-9s %-22s %-22s %s\n", "derivative", "entry", "given", "difference quotient", "relative error");
    size_t bad = 0;
    for (size_t k = 0; k < nitems; k++) {
        const pl_derivative_error *it = &items[k];
        double tol = it->second ? PL_CHECK_TOL_SECOND : PL_CHECK_TOL_FIRST;
        int ok = it->error <= tol;
        bad += !ok;
        char entry[32];
        snprintf(entry, sizeof entry, "[%zu][%zu]", it->row + 1, it->col + 1);
        printf("  %-14s %-9s %-22.15g %-22.15g %.2e%s\n", it->what, entry, it->given, it->differenced, it->error,
               ok ? "" : "   <- disagrees");
    }
    free(items);
    pl_model_free(&model);
    if (bad) {
        fprintf(stderr, "penlim check-model: %zu derivative%s of %s disagree%s with difference quotients (see above)\n",
                bad, bad > 1 ? "s" : "", o.c->name, bad > 1 ? "" : "s");
        return 2;
    }
    printf("every derivative agrees with its difference quotients (tolerance 1e-6; 1e-4 for second derivatives)\n");
    return 0;
}

extern const char pl_model_template[];

static const char new_model_usage[] =
    "usage: penlim new-model NAME [--force]\n"
    "Write NAME.c: a commented model to edit (a point mass thrown into the corner of a floor and a\n"
    "wall), to be compiled against the installed headers and loaded with --model:\n"
    "    cc -shared -fPIC -O2 $(pkg-config --cflags penlim) NAME.c -o NAME.so\n"
    "    penlim sweep --model ./NAME.so\n"
    "NAME is a C identifier.  An existing NAME.c is kept unless --force.\n";

static int cmd_new_model(int argc, char **argv)
{
    pl_error err;
    new_model_options n;
    if (cli_parse_new_model(argc, argv, &n, &err) != PL_OK)
        return failure("new-model", &err);
    if (n.help) {
        fputs(new_model_usage, stdout);
        return 0;
    }
    char path[128], tmp[160];
    snprintf(path, sizeof path, "%s.c", n.name);
    snprintf(tmp, sizeof tmp, ".%s.c.XXXXXX", n.name);
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd), unlink(tmp);
        fprintf(stderr, "penlim new-model: cannot write in the current directory: %s\n", strerror(errno));
        return 1;
    }
    /* the template with every @NAME@ replaced */
    int bad = 0;
    for (const char *p = pl_model_template; *p && !bad;) {
        const char *at = strstr(p, "@NAME@");
        size_t len = at ? (size_t)(at - p) : strlen(p);
        bad = fwrite(p, 1, len, f) != len || (at && fputs(n.name, f) < 0);
        p += len + (at ? 6 : 0);
    }
    bad = fchmod(fd, file_mode) != 0 || bad;
    bad = fclose(f) != 0 || bad;
    /* link() refuses an existing NAME.c; with --force it is replaced (rename) */
    if (!bad && (n.force ? rename(tmp, path) : link(tmp, path)) != 0) {
        int e = errno;
        unlink(tmp);
        if (e == EEXIST)
            return input_error("new-model", "%s exists (--force replaces it)", path);
        fprintf(stderr, "penlim new-model: cannot write %s: %s\n", path, strerror(e));
        return 1;
    }
    unlink(tmp);
    if (bad) {
        fprintf(stderr, "penlim new-model: cannot write %s\n", path);
        return 1;
    }
    printf("penlim new-model: wrote %s (model %s). Build and run it:\n"
           "    cc -shared -fPIC -O2 $(pkg-config --cflags penlim) %s -o %s.so\n"
           "    penlim check-model --model ./%s.so\n"
           "    penlim sweep --model ./%s.so\n",
           path, n.name, path, n.name, n.name, n.name);
    return 0;
}

static const char plot_usage[] =
    "usage: penlim plot DIR [--max-seconds S] [--force] [--quiet]\n"
    "(Re)draw the figures of a directory penlim wrote (run, limit, sweep or compare; its manifest.json\n"
    "says which): writes the gnuplot scripts and the data they need, renders each figure to PNG and\n"
    "PDF, and lists them in the manifest.  Without gnuplot it writes the scripts, warns, and exits 0.\n"
    "Figures: docs/figures.md.\n"
    "  --max-seconds S   stop gnuplot S seconds after the start (a warning; the figures not drawn\n"
    "                    are left out, the data kept)\n"
    "  --force           draw even if DIR holds files penlim did not write (they are left alone)\n"
    "  --quiet           print nothing on success\n";

static int cmd_plot(int argc, char **argv)
{
    plot_options p;
    pl_error err;
    if (cli_parse_plot(argc, argv, &p, &err) != PL_OK)
        return failure("plot", &err);
    pl_budget budget = {p.max_seconds, pl_now_seconds()};
    if (p.help) {
        fputs(plot_usage, stdout);
        return 0;
    }
    /* Checked before the lock: a directory that is not penlim's gets nothing written into it. */
    struct stat sb;
    if (stat(p.dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return input_error("plot", "no such directory '%s'", p.dir);
    char manifest_path[PATH_MAX];
    if (snprintf(manifest_path, sizeof manifest_path, "%s/%s", p.dir, PL_MANIFEST_NAME) >= (int)sizeof manifest_path)
        return input_error("plot", "directory name too long: '%s'", p.dir);
    if (access(manifest_path, F_OK) != 0)
        return input_error("plot", "'%s' was not written by penlim (no complete manifest.json)", p.dir);
    case_options o = {.cmd = "plot", .out = p.dir, .force = p.force};
    outdir_session d;
    int rc = outdir_start(&o, &d);
    if (rc < 0 && !d.st.manifest)
        rc = input_error("plot", "'%s' was not written by penlim (no valid manifest.json)", p.dir);
    if (rc < 0 && d.st.unsafe.n > 0) /* the figures read the listed files: each must be one, --force or not */
        rc = input_error("plot", "the manifest lists %s: not a file penlim wrote", d.st.unsafe.items[0]);
    if (rc >= 0) {
        outdir_end(&d);
        return rc;
    }
    pl_plot_plan plan;
    pl_status s = pl_plot_dir_plan(&d.out, d.st.manifest, &plan, &err);
    if (s != PL_OK) {
        outdir_end(&d);
        return failure("plot", &err);
    }
    /* keep every file of the directory but the figures drawn again */
    s = pl_plot_dir_files(&plan, &d.planned, &err);
    for (size_t k = 0; s == PL_OK && k < d.planned.n; k++)
        if (pl_strings_has(&d.st.foreign, d.planned.items[k])) { /* plot's --force leaves foreign files alone */
            char what[1024];
            pl_escape(d.planned.items[k], what, sizeof what);
            pl_plot_dir_plan_free(&plan);
            outdir_end(&d);
            return input_error("plot", "%s, where a figure goes, is not a file penlim wrote: remove it to draw", what);
        }
    for (size_t k = 0; s == PL_OK && k < d.st.owned.n; k++)
        if (!pl_strings_has(&d.planned, d.st.owned.items[k]))
            s = pl_strings_add(&d.keep, d.st.owned.items[k], &err);
    d.manifest = json_deep_copy(d.st.manifest);
    json_t *journal = json_deep_copy(d.st.manifest);
    if (s == PL_OK)
        s = pl_outdir_begin(&d.out, &d.st, journal, &d.planned, &d.keep, &err);
    json_decref(journal);
    for (size_t k = 0; s == PL_OK && k < d.keep.n; k++) /* with the hashes they were written with */
        s = pl_output_add_hashed(&d.out, d.keep.items[k], pl_outdir_hash(&d.st, d.keep.items[k]), &err);
    if (s == PL_OK)
        s = pl_plot_dir_write(&d.out, d.st.manifest, &plan, &err);
    pl_error plot_err;
    pl_status plots = s == PL_OK ? pl_plot_dir_render(&d.out, &plan, &budget, &plot_err) : PL_OK;
    if (s == PL_OK)
        s = pl_outdir_finish(&d.out, &d.st, &d.planned, d.manifest, &err);
    if (s != PL_OK) {
        fprintf(stderr, "penlim plot: %s\n", err.message);
        pl_plot_dir_plan_free(&plan);
        outdir_end(&d);
        return exit_code(s);
    }
    char dir[1024];
    pl_escape(p.dir, dir, sizeof dir);
    if (plots != PL_OK)
        fprintf(stderr, "penlim plot: warning: plots skipped: %s (the data and scripts are in %s)\n",
                plot_err.message, dir);
    else if (!p.quiet)
        for (size_t k = 0; k < plan.n; k++)
            printf("%s/%s.png, %s.pdf\n", dir, plan.figures[k], plan.figures[k]);
    pl_plot_dir_plan_free(&plan);
    outdir_end(&d);
    return 0;
}

/* --isolate: one solve in this process, for a sweep or compare that started it (cli/isolate.h):
 * the model and options as given, the solution written into dir, the exit status of a run. */
static int isolated_solve_with(const char *cmd, const pl_solver_type *solver, const char *dir, int argc, char **argv,
                               pl_model *model)
{
    case_options o = {.cmd = cmd, .t_end = NAN};
    int rc = parse_case_options(argc, argv, &o, CMD_RUN, "");
    pl_solve_opts opts;
    if (rc >= 0 || (rc = prepare(&o, solver, NULL, model, &opts)) >= 0 || (rc = setup_within_budget(&o)) >= 0)
        return rc;
    pl_solve_opts_count_from(&opts, o.started); /* its budget from its start, as a run's */
    pl_solution sol;
    pl_analysis analysis;
    pl_error err, io;
    pl_status status = pl_solve(solver, model, &opts, &sol, &err);
    if (status == PL_ERR_INPUT) {
        pl_solution_free(&sol);
        return input_error(cmd, "%s", err.message);
    }
    pl_status analysed = pl_analyze_within(model, &sol, &(pl_budget){opts.max_seconds, opts.started}, &analysis, &err);
    if (status == PL_OK && analysed != PL_OK) {
        status = sol.status = analysed;
        sol.error = err;
    }
    /* The directory the command made and opened, given as PL_ISOLATED_DIR_FD (dir: for messages). */
    pl_output out;
    pl_output_init(&out, dir, file_mode, &temp_hooks);
    struct stat st;
    pl_status s = fstat(PL_ISOLATED_DIR_FD, &st) == 0 && S_ISDIR(st.st_mode)
                      ? PL_OK
                      : pl_fail(&io, PL_ERR_IO, "cannot write %s: not given its directory", dir);
    if (s == PL_OK)
        out.root_fd = PL_ISOLATED_DIR_FD;
    pl_budget writing = {opts.max_seconds, pl_now_seconds()}; /* its files', from their start, as a run's */
    if (s == PL_OK)
        s = pl_write_solution(&out, NULL, model, &sol, analysed == PL_OK ? &analysis : NULL, &writing, &io);
    if (s != PL_OK)
        fprintf(stderr, "penlim %s: %s\n", cmd, io.message);
    pl_output_free(&out);
    pl_analysis_free(&analysis);
    pl_solution_free(&sol);
    return exit_code(s != PL_OK ? s : status);
}

/* argv: __solve CMD PARENT_PID SOLVER DIR (CASE | --model FILE) [options] */
static int cmd_isolated_solve(int argc, char **argv)
{
    if (argc < 6)
        return 2;
    isolated_child = 1;
    /* Ended with its parent (SIGTERM: its temporaries removed), unless the parent is gone already. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if ((long)getppid() != strtol(argv[2], NULL, 10))
        return 2;
    const pl_solver_type *solver = pl_solver_find(argv[3]);
    if (!solver)
        return 2;
    pl_model model = {0};
    int rc = isolated_solve_with(argv[1], solver, argv[4], argc - 4, argv + 4, &model);
    pl_model_free(&model);
    return rc;
}

static const char impact_law_usage[] =
    "usage: penlim impact-law [--law NAME] [--set NAME=VALUE ...] [--v A:B:N | --v a,b,c] [--out DIR]\n"
    "                         [--no-plots] [--max-seconds S] [--force] [--quiet]\n"
    "The limit (infinite stiffness) impact map of a contact law for a single contact: the restitution\n"
    "e of an isolated impact against the impact speed V, and for hunt_crossley the closed-form\n"
    "relations the literature uses to choose c from e (Hunt-Crossley 1975, Lankarani-Nikravesh\n"
    "1990, Gonthier et al. 2004, Zhiying-Qishao 2006, Flores et al. 2011, Hu-Guo 2015) with their\n"
    "errors.  Writes DIR/impact_law.csv and the figure impact_law.png, .pdf (formats:\n"
    "docs/formats.md; the laws and relations: docs/laws.md).\n"
    "  --law NAME        the contact law: hunt_crossley (default), kelvin_voigt, kelvin_voigt_clamped, hertz\n"
    "  --set NAME=VALUE  a parameter of the law (hunt_crossley: c >= 0 in 1/velocity; its k and n\n"
    "                    do not change the limit restitution)\n"
    "  --v A:B:N         N impact speeds evenly spaced in log V from A to B (0 < A < B, 2 <= N <= 1e5)\n"
    "  --v a,b,c         the impact speeds listed (positive, increasing); default 0.01:10:61\n"
    "  --out DIR         output directory (default out/impact-law/LAW)\n"
    "  --no-plots        write the data and the plot configuration, but do not run gnuplot\n"
    "  --max-seconds S   bound gnuplot's time (the figure is skipped, with a warning, when it runs out)\n"
    "  --force           write into DIR even if it holds files penlim did not write\n"
    "  --quiet           print nothing on success\n";

/* The law named by the options, with its parameters filled and checked (pl_law_fill): -1 to go on, or
 * an exit status.  The command's default law is hunt_crossley, the one whose limit depends on the
 * speed (the registry's default, kelvin_voigt, has the same e at every V). */
typedef struct {
    const pl_law_type *type;
    double p[PL_LAW_MAX_PARAMS];
} impact_law_params;

static double registry_restitution_at(double V, const void *params)
{
    const impact_law_params *par = params;
    return par->type->restitution(par->p, V);
}

static int impact_law_resolve(const impact_law_options *io, pl_impact_law *law, impact_law_params *par,
                              char *settings, size_t len)
{
    pl_error err;
    const char *name = io->law ? io->law : "hunt_crossley";
    par->type = pl_law_type_find(name);
    if (!par->type) {
        char names[256] = "";
        for (size_t k = 0; k < pl_law_type_count(); k++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "",
                     pl_law_type_at(k)->name);
        char fmt[400];
        snprintf(fmt, sizeof fmt, "unknown law '%%s' (laws: %s)", names);
        return input_error("impact-law", fmt, name);
    }
    if (pl_law_fill(par->type, NULL, 0, io->settings, io->nsettings, par->p, NULL, &err) != PL_OK)
        return failure("impact-law", &err);
    if (!par->type->restitution || isnan(par->type->restitution(par->p, 1.0)))
        return input_error("impact-law", "the law %s has no closed-form limit restitution", par->type->name);
    size_t used = 0;
    settings[0] = '\0';
    for (size_t k = 0; k < par->type->nparams && used < len; k++) {
        char v[PL_NUMBER_LEN];
        used += (size_t)snprintf(settings + used, len - used, "%s%s=%s", k ? " " : "", par->type->params[k].name,
                                 num(par->p[k], v));
    }
    int c = strcmp(par->type->name, "hunt_crossley") == 0 ? pl_law_param_index(par->type, "c") : -1;
    *law = (pl_impact_law){par->type->name, settings, registry_restitution_at, par, c >= 0 ? par->p[c] : NAN};
    return -1;
}

static void print_impact_law(const pl_impact_law *law, const pl_table *t, const char *dir, const pl_strings *written)
{
    size_t na = (t->ncol - 2) / 2;
    printf("penlim impact-law %s (%s): limit restitution of an isolated impact at %zu speeds\n", law->law,
           law->settings, t->nrows);
    printf("%12s %12s", "v", "e");
    if (na)
        printf(" %12s", "c v");
    for (size_t j = 0; j < na; j++) {
        char head[16];
        snprintf(head, sizeof head, "%.12s", pl_impact_approximation_at(j)->name);
        printf(" %12s", head);
    }
    printf("\n");
    for (size_t r = 0; r < t->nrows; r++) {
        const double *row = pl_table_row(t, r);
        printf("%12.6g %12.8f", row[0], row[1]);
        if (na)
            printf(" %12.6g", law->c * row[0]);
        for (size_t j = 0; j < na; j++)
            if (isnan(row[2 + j]))
                printf(" %12s", "n/a");
            else
                printf(" %12.8f", row[2 + j]);
        printf("\n");
    }
    for (size_t j = 0; j < na; j++) {
        double worst = NAN, at = NAN;
        for (size_t r = 0; r < t->nrows; r++) {
            double e = fabs(pl_table_row(t, r)[2 + na + j]);
            if (!isnan(e) && (isnan(worst) || e > worst))
                worst = e, at = pl_table_row(t, r)[0];
        }
        const pl_impact_approximation *a = pl_impact_approximation_at(j);
        if (isnan(worst))
            printf("%-26s (chi = %s): undefined at every speed (c V > %.4g)\n", a->name, a->chi, a->cv_max);
        else
            printf("%-26s (chi = %s): max |e_approx - e| = %.2e at v = %.4g\n", a->name, a->chi, worst, at);
    }
    if (na)
        printf("(n/a: c V beyond the c V the relation gives to e = 0)\n");
    char esc[1024];
    pl_escape(dir, esc, sizeof esc);
    print_written(esc, written);
}

static int cmd_impact_law(int argc, char **argv)
{
    impact_law_options io;
    pl_error err;
    if (cli_parse_impact_law(argc, argv, &io, &err) != PL_OK)
        return failure("impact-law", &err);
    if (io.help) {
        fputs(impact_law_usage, stdout);
        return 0;
    }
    pl_budget budget = {io.max_seconds, pl_now_seconds()};
    pl_impact_law law;
    impact_law_params par;
    char settings[256];
    int rc = impact_law_resolve(&io, &law, &par, settings, sizeof settings);
    if (rc >= 0)
        return rc;
    double *v = NULL;
    size_t nv = 0;
    if (pl_impact_law_parse_speeds(io.speeds ? io.speeds : "0.01:10:61", &v, &nv, &err) != PL_OK) {
        free(v);
        return failure("impact-law", &err);
    }
    pl_table t;
    pl_status s = pl_impact_law_table(&law, v, nv, &t, &err);
    if (s != PL_OK) {
        free(v);
        pl_table_free(&t);
        return failure("impact-law", &err);
    }
    char out_default[256];
    snprintf(out_default, sizeof out_default, "out/impact-law/%s", law.law);
    case_options o = {.cmd = "impact-law", .out = io.out ? io.out : out_default, .force = io.force};
    outdir_session d;
    if ((rc = outdir_start(&o, &d)) >= 0) {
        free(v);
        pl_table_free(&t);
        outdir_end(&d);
        return rc;
    }
    json_t *params = json_object();
    for (size_t k = 0; k < par.type->nparams; k++)
        PL_JSON_SET(params, par.type->params[k].name, pl_json_number(par.p[k]));
    d.manifest = json_object();
    PL_JSON_SET(d.manifest, "penlim_manifest", json_integer(1));
    PL_JSON_SET(d.manifest, "penlim_version", json_string(PENLIM_VERSION));
    PL_JSON_SET(d.manifest, "command", json_string("impact-law"));
    PL_JSON_SET(d.manifest, "law", json_string(law.law));
    PL_JSON_SET(d.manifest, "parameters", params);
    PL_JSON_SET(d.manifest, "speeds", pl_json_array(v, nv));
    PL_JSON_SET(d.manifest, "files", json_array());
    free(v);
    s = d.manifest ? pl_impact_law_files(&d.planned, &err) : pl_fail(&err, PL_ERR_NOMEM, "out of memory");
    json_t *journal = json_deep_copy(d.manifest);
    if (s == PL_OK)
        s = journal ? pl_outdir_begin(&d.out, &d.st, journal, &d.planned, &d.keep, &err)
                    : pl_fail(&err, PL_ERR_NOMEM, "out of memory");
    json_decref(journal);
    if (s == PL_OK)
        s = pl_impact_law_write(&d.out, &law, &t, &err);
    pl_error plot_err;
    pl_status plots = s == PL_OK && !io.no_plots ? pl_impact_law_render(&d.out, &budget, &plot_err) : PL_OK;
    if (s == PL_OK)
        s = pl_outdir_finish(&d.out, &d.st, &d.planned, d.manifest, &err);
    if (s != PL_OK) {
        fprintf(stderr, "penlim impact-law: %s\n", err.message);
        pl_table_free(&t);
        outdir_end(&d);
        return exit_code(s);
    }
    if (plots != PL_OK) {
        char dir[1024];
        pl_escape(o.out, dir, sizeof dir);
        fprintf(stderr, "penlim impact-law: warning: plots skipped: %s (the data and scripts are in %s)\n",
                plot_err.message, dir);
    }
    if (!io.quiet)
        print_impact_law(&law, &t, o.out, &d.out.written);
    pl_table_free(&t);
    outdir_end(&d);
    return 0;
}

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"run", cmd_run, "integrate the penalized system for one mu, or run a time-stepping scheme"},
    {"sweep", cmd_sweep, "runs for an increasing mu (or decreasing h): limits, rates, plots"},
    {"limit", cmd_limit, "the limit (generalized) solution, computed directly"},
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

/* Leave without the exit handlers of the libraries: OpenBLAS (loaded by Siconos Numerics) joins its
 * thread pool there, and hung forever in a process under a memory limit (ulimit -v) that had run
 * out of memory.  penlim registers none itself and has closed its files; stdio is flushed here
 * (a failure to write stdout is an output error, exit 1).
 * Sanitized builds exit normally: LeakSanitizer checks at exit. */
static int leave(int status)
{
    program_done = 1;
    if (fflush(NULL) != 0 && status == 0)
        status = 1; /* stdout could not be written (a full disk, a closed pipe) */
#ifndef PENLIM_SANITIZE
    _exit(status);
#endif
    return status;
}

static int dispatch(int argc, char **argv);
static int cmd_isolated_solve(int argc, char **argv);

int main(int argc, char **argv)
{
    return leave(dispatch(argc, argv));
}

static int dispatch(int argc, char **argv)
{
    gsl_set_error_handler_off(); /* GSL reports through return codes, never aborts */
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
    atexit(exit_guard);
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
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        if (strcmp(argv[1], commands[k].name) == 0) {
            snprintf(exit_message, sizeof exit_message,
                     "penlim %s: the model called exit() in a callback: the command did not finish\n", commands[k].name);
            return commands[k].run(argc - 1, argv + 1);
        }
    return 2; /* not reached: cli_parse_command knows the commands */
}
