#include "cli/isolate.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/number.h"
#include "io/report.h"

extern char **environ;

pl_status pl_isolation_init(pl_isolation *iso, const case_options *o, pl_error *err)
{
    memset(iso, 0, sizeof *iso);
    iso->o = o;
    ssize_t len = readlink("/proc/self/exe", iso->exe, sizeof iso->exe - 1);
    if (len <= 0 || (size_t)len >= sizeof iso->exe - 1)
        return pl_fail(err, PL_ERR_INPUT, "--isolate: cannot find this program (/proc/self/exe: %s); --no-isolate "
                       "runs the solves in this process", len < 0 ? strerror(errno) : "too long");
    iso->exe[len] = '\0';
    return PL_OK;
}

const char *pl_signal_name(int sig, char *buf, size_t len)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {{SIGSEGV, "SIGSEGV, segmentation fault"}, {SIGBUS, "SIGBUS, bus error"},
                 {SIGFPE, "SIGFPE, arithmetic exception"}, {SIGILL, "SIGILL, illegal instruction"},
                 {SIGABRT, "SIGABRT, aborted"},             {SIGKILL, "SIGKILL, killed"},
                 {SIGTERM, "SIGTERM, terminated"},          {SIGINT, "SIGINT, interrupted"},
                 {SIGHUP, "SIGHUP, hangup"},                {SIGPIPE, "SIGPIPE, broken pipe"},
                 {SIGTRAP, "SIGTRAP, trap"},                {SIGSYS, "SIGSYS, bad system call"},
                 {SIGXCPU, "SIGXCPU, CPU time limit"},      {SIGXFSZ, "SIGXFSZ, file size limit"},
                 {SIGQUIT, "SIGQUIT, quit"},                {SIGUSR1, "SIGUSR1"},
                 {SIGUSR2, "SIGUSR2"},                      {SIGALRM, "SIGALRM, alarm"}};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (names[k].sig == sig) {
            snprintf(buf, len, "%s", names[k].name);
            return buf;
        }
    snprintf(buf, len, "signal %d", sig);
    return buf;
}

/* The child's command line: every setting of the model and option of the solve, numbers in their
 * shortest exact form, so that the child solves exactly what this process would. */
typedef struct {
    char *argv[18 + 2 * MAX_SETTINGS + 2 * PL_MAX_PARAMS];
    char text[18 + 2 * MAX_SETTINGS + 2 * PL_MAX_PARAMS][160];
    size_t n;
} child_args;

static void arg(child_args *a, const char *text)
{
    snprintf(a->text[a->n], sizeof a->text[a->n], "%s", text);
    a->argv[a->n] = a->text[a->n];
    a->n++;
    a->argv[a->n] = NULL;
}

static void arg_number(child_args *a, const char *option, double x)
{
    char v[PL_NUMBER_LEN];
    arg(a, option);
    arg(a, pl_format_short(x, v, sizeof v));
}

static pl_status build_args(const pl_isolation *iso, const pl_solver_type *solver, const pl_solve_opts *opts,
                            const char *dir, child_args *a, pl_error *err)
{
    const case_options *o = iso->o;
    char pid[32];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    a->n = 0;
    a->argv[a->n++] = (char *)iso->exe; /* long paths are pointed to, not copied */
    arg(a, PL_ISOLATED_COMMAND);
    arg(a, o->cmd);
    arg(a, pid);
    arg(a, solver->name);
    a->argv[a->n++] = (char *)dir;
    if (o->loaded_from[0]) { /* the very file this process loaded */
        arg(a, "--model");
        a->argv[a->n++] = (char *)o->loaded_from;
    } else {
        arg(a, o->c->name);
    }
    if (o->law) {
        arg(a, "--law");
        arg(a, o->law->name);
    }
    for (size_t k = 0; k < o->nsettings; k++) {
        char v[PL_NUMBER_LEN], text[160];
        snprintf(text, sizeof text, "%s=%s", o->settings[k].name, pl_format_short(o->settings[k].value, v, sizeof v));
        arg(a, "--set");
        arg(a, text);
    }
    arg_number(a, "--t-end", opts->t_end);
    for (size_t k = 0; k < solver->noptions; k++) {
        char option[72];
        snprintf(option, sizeof option, "--%s", solver->options[k].name);
        arg_number(a, option, opts->option[k]);
    }
    if (pl_solver_can(solver, PL_SOLVER_DENSE) || pl_solver_can(solver, PL_SOLVER_SAMPLED)) /* the others refuse --samples */
        arg_number(a, "--samples", (double)opts->samples);
    if (opts->max_steps > 0)
        arg_number(a, "--max-steps", (double)opts->max_steps);
    if (opts->max_seconds > 0)
        arg_number(a, "--max-seconds", opts->max_seconds);
    if (opts->max_output > 0)
        arg_number(a, "--max-output", opts->max_output);
    if (opts->contacts != PL_CONTACTS_AUTO) {
        arg(a, "--contacts");
        arg(a, pl_contacts_name(opts->contacts));
    }
    arg(a, "--quiet");
    a->argv[a->n] = NULL;
    if (a->n >= sizeof a->argv / sizeof a->argv[0])
        return pl_fail(err, PL_ERR_INPUT, "--isolate: too many settings to pass on");
    return PL_OK;
}

/* Start the child with the directory dir_fd as its PL_ISOLATED_DIR_FD (the directory opened,
 * whatever its path names meanwhile), stdin from /dev/null (a model reading it would take the
 * terminal's input), stdout and stderr shared, the default disposition and no blocked signals.  Its
 * working directory is the command's: a model's relative paths mean what they do without --isolate. */
static int spawn(child_args *a, int dir_fd, pid_t *pid, pl_error *err)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGPIPE);
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc == 0) {
        rc = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        if (rc == 0) /* dir_fd is above PL_ISOLATED_DIR_FD: dup2 gives the child a copy it keeps */
            rc = posix_spawn_file_actions_adddup2(&fa, dir_fd, PL_ISOLATED_DIR_FD);
        if (rc == 0 && (rc = posix_spawnattr_init(&attr)) == 0) {
            rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
            if (rc == 0)
                rc = posix_spawnattr_setsigmask(&attr, &none);
            if (rc == 0)
                rc = posix_spawnattr_setsigdefault(&attr, &defaults);
            if (rc == 0)
                rc = posix_spawn(pid, a->argv[0], &fa, &attr, a->argv, environ);
            posix_spawnattr_destroy(&attr);
        }
        posix_spawn_file_actions_destroy(&fa);
    }
    if (rc != 0)
        return pl_fail(err, PL_ERR_SOLVER, "cannot start a process for the solve: %s", strerror(rc)), -1;
    return 0;
}

/* Wait for the child; past deadline (pl_now_seconds; INFINITY: none) stop it, SIGTERM then SIGKILL.
 * Returns waitpid's status, and whether this process stopped it. */
static int wait_child(pid_t pid, double deadline, int *status, int *stopped)
{
    double term_sent = NAN;
    long nap_ns = 1000000; /* 1 ms, doubling to 50 ms: quick runs are collected quickly */
    *stopped = 0;
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid)
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
        double now = pl_now_seconds();
        if (now > deadline && isnan(term_sent)) {
            kill(pid, SIGTERM); /* its handler removes the temporaries it is writing */
            term_sent = now;
            *stopped = 1;
        } else if (!isnan(term_sent) && now > term_sent + PL_ISOLATE_KILL_AFTER) {
            kill(pid, SIGKILL); /* a callback that blocks SIGTERM, say */
        }
        struct timespec nap = {0, nap_ns};
        nanosleep(&nap, NULL);
        nap_ns = nap_ns < 50000000 ? 2 * nap_ns : nap_ns;
    }
}

/* The run read back is the one asked for: its horizon and every option (the files are this
 * command's, but a process that ended early may have left another's). */
static int same_solve(const pl_solution *sol, const pl_solver_type *solver, const pl_solve_opts *opts)
{
    int same = sol->t_end == opts->t_end;
    for (size_t k = 0; k < solver->noptions; k++)
        same = same && sol->option[k] == opts->option[k];
    return same;
}

pl_status pl_isolated_solve(const pl_isolation *iso, const pl_model *model, const pl_solver_type *solver,
                            const pl_solve_opts *opts, const pl_output *out, const char *sub, pl_solution *sol,
                            int *read_back, pl_error *err)
{
    pl_error e;
    *read_back = 0;
    pl_status st = pl_solution_init(sol, solver, model, opts->t_end, &e);
    if (st != PL_OK) {
        if (err)
            *err = e;
        return st;
    }
    memcpy(sol->option, opts->option, solver->noptions * sizeof *opts->option);
    /* The directory made and opened here, no link followed; the child writes into it through the
     * descriptor it is given, and its files are read back through it. */
    char dir[PATH_MAX];
    int dir_fd = -1, made = -1;
    if (pl_output_path(out, sub, NULL, dir, sizeof dir, &e) != PL_OK)
        st = PL_ERR_IO;
    else if ((made = pl_output_dir(out, sub, 1)) < 0 ||
             (dir_fd = fcntl(made, F_DUPFD_CLOEXEC, PL_ISOLATED_DIR_FD + 1)) < 0)
        st = pl_fail(&e, errno == ENOMEM ? PL_ERR_NOMEM : PL_ERR_IO, "cannot create %s: %s", dir,
                     errno == ELOOP || errno == ENOTDIR ? "a component is a symbolic link or a file" : strerror(errno));
    if (made >= 0)
        close(made);
    child_args *a = st == PL_OK ? malloc(sizeof *a) : NULL;
    pid_t pid;
    double started = pl_now_seconds();
    if (st == PL_OK && !a)
        st = pl_fail(&e, PL_ERR_NOMEM, "out of memory starting the solve's process");
    else if (st == PL_OK && (st = build_args(iso, solver, opts, dir, a, &e)) == PL_OK &&
             spawn(a, dir_fd, &pid, &e) != 0)
        st = PL_ERR_SOLVER;
    free(a);
    int status = 0, stopped = 0;
    if (st == PL_OK && wait_child(pid, opts->max_seconds > 0 ? started + opts->max_seconds + PL_ISOLATE_GRACE : INFINITY,
                                  &status, &stopped) != 0)
        st = pl_fail(&e, PL_ERR_SOLVER, "lost the solve's process: %s", strerror(errno));
    const char *who = iso->o->loaded_from[0] ? "the model" : "the solve";
    char sig[64];
    if (st != PL_OK) {
        /* e says why */
    } else if (stopped) {
        st = pl_fail(&e, PL_ERR_SOLVER, "stopped: not done within --max-seconds %g (its process was ended %g s "
                     "later; a callback of %s that does not return?)", opts->max_seconds, PL_ISOLATE_GRACE, who);
    } else if (WIFSIGNALED(status)) {
        int s = WTERMSIG(status);
        st = pl_fail(&e, PL_ERR_SOLVER, "%s crashed (%s): its process died", who, pl_signal_name(s, sig, sizeof sig));
    } else if (WIFEXITED(status) && WEXITSTATUS(status) == PL_EXIT_MODEL_EXIT) {
        st = pl_fail(&e, PL_ERR_SOLVER, "%s called exit() in a callback: its process ended before the solve did",
                     who);
    } else if (WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3)) {
        pl_solution back;
        pl_error re;
        pl_status rs = pl_read_solution_any_at(dir_fd, dir, model, solver, &back, &re);
        if (rs == PL_ERR_NOMEM) {
            pl_solution_free(&back);
            st = pl_fail(&e, PL_ERR_NOMEM, "out of memory reading back the solution its process wrote (%s)",
                         re.message);
        } else if (rs != PL_OK || !same_solve(&back, solver, opts)) {
            pl_solution_free(&back);
            st = pl_fail(&e, PL_ERR_SOLVER, "its process ended (exit status %d) without the solution: %s",
                         WEXITSTATUS(status), rs != PL_OK ? re.message : "the files are another solve's");
        } else {
            pl_solution_free(sol);
            *sol = back;
            *read_back = 1;
            st = sol->status;
            e = sol->error;
        }
    } else {
        st = pl_fail(&e, PL_ERR_SOLVER, "its process ended with exit status %d (%s)", WEXITSTATUS(status),
                     WEXITSTATUS(status) == 2 ? "it refused the solve: its message above" :
                     WEXITSTATUS(status) == 1 ? "it could not write the solution: its message above" :
                     "an exit() or _exit() of the model?");
    }
    if (dir_fd >= 0)
        close(dir_fd);
    if (st != PL_OK && sol->status == PL_OK) {
        sol->status = st;
        sol->error = e;
    }
    if (err)
        *err = e;
    return st;
}
