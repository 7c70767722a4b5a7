#include "io/plots.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/output.h"

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
        return pl_file_commit(&f, err);
    }
    return pl_fail(err, PL_ERR_INPUT, "no plot script named %s", name);
}

pl_status pl_plot_render(pl_output *out, const char *name, pl_error *err)
{
    const char *dir = out->root;
    char script[256], log[PATH_MAX];
    snprintf(script, sizeof script, "%s.gp", name);
    pl_status s = pl_output_path(out, NULL, "gnuplot.log", log, sizeof log, err);
    if (s != PL_OK)
        return s;
    pid_t pid = fork();
    if (pid < 0)
        return pl_fail(err, PL_ERR_IO, "cannot start gnuplot: fork failed");
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, out->mode);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        if (chdir(dir) != 0)
            _exit(126);
        execlp("gnuplot", "gnuplot", script, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
        return pl_fail(err, PL_ERR_IO, "gnuplot did not finish on %s/%s", dir, script);
    if (WEXITSTATUS(status) == 127)
        return pl_fail(err, PL_ERR_IO, "gnuplot is not installed");
    if (WEXITSTATUS(status) != 0)
        return pl_fail(err, PL_ERR_IO, "gnuplot failed on %s/%s (see %s)", dir, script, log);
    char png[256];
    snprintf(png, sizeof png, "%s.png", name);
    if ((s = pl_output_add(out, "gnuplot.log", err)) != PL_OK)
        return s;
    return pl_output_add(out, png, err);
}
