#define _GNU_SOURCE /* posix_spawn_file_actions_addfchdir_np: glibc 2.29, musl 1.1.24 */
#include "io/plots.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cases/cases.h"
#include "core/number.h"
#include "io/output.h"

void pl_plot_label(const char *name, double x, char *buf, size_t len)
{
    char value[PL_NUMBER_LEN];
    snprintf(buf, len, "%s=%s", name, pl_format_short(x, value, sizeof value));
}

pl_status pl_plot_files(const char *name, pl_strings *files, pl_error *err)
{
    static const char *const ext[] = {"gp", "png", "pdf"};
    char path[256];
    pl_status s = PL_OK;
    for (size_t k = 0; s == PL_OK && k < 3; k++) {
        snprintf(path, sizeof path, "%s.%s", name, ext[k]);
        if (!pl_strings_has(files, path))
            s = pl_strings_add(files, path, err);
    }
    return s;
}

pl_status pl_plot_common_files(pl_strings *files, pl_error *err)
{
    pl_status s = PL_OK;
    if (!pl_strings_has(files, "styles.gp"))
        s = pl_strings_add(files, "styles.gp", err);
    if (s == PL_OK && !pl_strings_has(files, "gnuplot.log"))
        s = pl_strings_add(files, "gnuplot.log", err);
    return s;
}

pl_status pl_plot_write_script(pl_output *out, const char *name, pl_error *err)
{
    for (size_t k = 0; k < pl_plot_script_count; k++) {
        if (strcmp(pl_plot_scripts[k].name, name) != 0)
            continue;
        char file[256];
        snprintf(file, sizeof file, "%s.gp", name);
        pl_file f;
        pl_status s = pl_file_open(&f, out, NULL, file, err);
        if (s != PL_OK)
            return s;
        fputs(pl_plot_scripts[k].text, f.fp);
        if (strcmp(name, "styles") == 0) { /* the units of the cases that declare them (the case table's) */
            fputs("case_units = '", f.fp);
            for (size_t c = 0; c < pl_case_count(); c++) {
                const char *length, *time;
                if (pl_case_units(pl_case_at(c), &length, &time))
                    fprintf(f.fp, "%s%s:%s:%s", c ? " " : "", pl_case_at(c)->name, length, time);
            }
            fputs("'\n", f.fp);
        }
        return pl_file_commit(&f, err);
    }
    return pl_fail(err, PL_ERR_INPUT, "no plot script named %s", name);
}

/* Wait for gnuplot (pid); kill it when budget runs out.  0 when it exited by itself, 1 when
 * killed, -1 if it cannot be waited for. */
static int wait_within(pid_t pid, const pl_budget *budget, int *status)
{
    long pause_ns = 1000000; /* polled from 1 ms up to 50 ms: a figure takes tenths of a second */
    int bounded = budget && budget->max_seconds > 0;
    for (;;) {
        pid_t got = waitpid(pid, status, bounded ? WNOHANG : 0);
        if (got == pid)
            return 0;
        if (got < 0 && errno != EINTR)
            return -1;
        if (got == 0 && pl_budget_spent(budget)) {
            kill(pid, SIGKILL);
            while (waitpid(pid, status, 0) < 0 && errno == EINTR)
                ;
            return 1;
        }
        if (got == 0) {
            nanosleep(&(struct timespec){0, pause_ns}, NULL);
            pause_ns = pause_ns < 25000000 ? 2 * pause_ns : 50000000;
        }
    }
}

/* Start gnuplot on script in the directory dir_fd, its stdout and stderr appended to the open log.
 * posix_spawn, not fork: a fork runs the handlers the numerical libraries registered with
 * pthread_atfork (OpenBLAS's retries an allocation without end under a memory limit), posix_spawn
 * runs none.  gnuplot starts in the directory the descriptor holds (fchdir), never the one its path
 * names now: a --out renamed, or replaced by a link, while the command runs cannot send gnuplot, or
 * the files it writes, anywhere else. */
static int spawn_gnuplot(int dir_fd, const char *script, int log, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, restored;
    sigemptyset(&none);
    sigemptyset(&restored);
    sigaddset(&restored, SIGPIPE);
    sigaddset(&restored, SIGINT);
    sigaddset(&restored, SIGTERM);
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc != 0)
        return rc;
    if ((rc = posix_spawnattr_init(&attr)) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        return rc;
    }
    char *argv[] = {"gnuplot", (char *)script, NULL};
    extern char **environ;
    if ((rc = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0)) == 0 &&
        (rc = posix_spawn_file_actions_adddup2(&fa, log, STDOUT_FILENO)) == 0 &&
        (rc = posix_spawn_file_actions_adddup2(&fa, log, STDERR_FILENO)) == 0 &&
        (rc = posix_spawn_file_actions_addfchdir_np(&fa, dir_fd)) == 0 &&
        (rc = posix_spawnattr_setsigmask(&attr, &none)) == 0 &&
        (rc = posix_spawnattr_setsigdefault(&attr, &restored)) == 0 &&
        (rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)) == 0)
        rc = posix_spawnp(pid, "gnuplot", &fa, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    return rc;
}

pl_status pl_plot_start_log(pl_output *out, pl_error *err)
{
    pl_status s = pl_output_open(out, err);
    if (s != PL_OK)
        return s;
    if (unlinkat(out->root_fd, "gnuplot.log", 0) != 0 && errno != ENOENT)
        return pl_fail(err, errno == ENOMEM ? PL_ERR_NOMEM : PL_ERR_IO, "cannot remove %s/gnuplot.log: %s", out->root,
                       strerror(errno));
    return PL_OK;
}

pl_status pl_plot_render(pl_output *out, const char *name, const pl_budget *budget, pl_error *err)
{
    const char *dir = out->root; /* for messages: everything is reached through out->root_fd */
    char script[256], log[PATH_MAX];
    snprintf(script, sizeof script, "%s.gp", name);
    pl_status s = pl_output_path(out, NULL, "gnuplot.log", log, sizeof log, err);
    if (s == PL_OK)
        s = pl_output_open(out, err);
    if (s != PL_OK)
        return s;
    if (pl_budget_spent(budget))
        return pl_fail(err, PL_ERR_IO, "the time budget of %g s (max_seconds) ran out before %s", budget->max_seconds,
                       script);
    int fd = openat(out->root_fd, "gnuplot.log", O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, out->mode);
    if (fd < 0)
        return pl_fail(err, PL_ERR_IO, "cannot write %s: %s", log, strerror(errno));
    pid_t pid;
    int rc = spawn_gnuplot(out->root_fd, script, fd, &pid);
    close(fd);
    if (rc == ENOENT)
        return pl_fail(err, PL_ERR_IO, "gnuplot is not installed");
    if (rc != 0)
        return pl_fail(err, PL_ERR_IO, "cannot start gnuplot: %s", strerror(rc));
    int status = 0, waited = wait_within(pid, budget, &status);
    if (waited == 1)
        return pl_fail(err, PL_ERR_IO, "gnuplot " PL_BUDGET_STOPPED " drawing %s", budget->max_seconds, script);
    if (waited < 0 || !WIFEXITED(status))
        return pl_fail(err, PL_ERR_IO, "gnuplot did not finish on %s/%s", dir, script);
    if (WEXITSTATUS(status) == 127)
        return pl_fail(err, PL_ERR_IO, "gnuplot is not installed");
    if ((s = pl_output_add(out, "gnuplot.log", err)) != PL_OK) /* kept, failed or not: the messages name it */
        return s;
    if (WEXITSTATUS(status) != 0)
        return pl_fail(err, PL_ERR_IO, "gnuplot failed on %s/%s (see %s)", dir, script, log);
    static const char *const ext[] = {"png", "pdf"};
    for (size_t k = 0; k < 2; k++) {
        char file[256];
        snprintf(file, sizeof file, "%s.%s", name, ext[k]);
        struct stat st;
        if (fstatat(out->root_fd, file, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
            return pl_fail(err, PL_ERR_IO, "gnuplot wrote no %s in %s (see %s)", file, dir, log);
        if (!pl_strings_has(&out->written, file) && (s = pl_output_add(out, file, err)) != PL_OK)
            return s;
    }
    return PL_OK;
}
