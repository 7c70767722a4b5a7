#include "io/plots.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/output.h"

void pl_plot_format_value(double x, char *buf, size_t len)
{
    char ref[64];
    snprintf(ref, sizeof ref, "%.3e", x);
    double want = strtod(ref, NULL);
    for (int d = 0; d <= 3; d++) {
        snprintf(buf, len, "%.*e", d, x);
        if (strtod(buf, NULL) == want)
            return;
    }
}

void pl_plot_label(const char *name, double x, char *buf, size_t len)
{
    char value[64];
    pl_plot_format_value(x, value, sizeof value);
    snprintf(buf, len, "%s=%s", name, value);
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
    if ((s = pl_output_add(out, "gnuplot.log", err)) != PL_OK)
        return s;
    static const char *const ext[] = {"png", "pdf"};
    for (size_t k = 0; k < 2; k++) {
        char file[256], path[PATH_MAX];
        snprintf(file, sizeof file, "%s.%s", name, ext[k]);
        struct stat st;
        if ((s = pl_output_path(out, NULL, file, path, sizeof path, err)) != PL_OK)
            return s;
        if (stat(path, &st) != 0 || st.st_size == 0)
            return pl_fail(err, PL_ERR_IO, "gnuplot wrote no %s in %s (see %s)", file, dir, log);
        if (!pl_strings_has(&out->written, file) && (s = pl_output_add(out, file, err)) != PL_OK)
            return s;
    }
    return PL_OK;
}
