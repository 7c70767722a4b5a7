#include "io/plot_dir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/plots.h"

static int lists(const json_t *manifest, const char *file)
{
    const json_t *files = json_object_get(manifest, "files");
    for (size_t k = 0; k < json_array_size(files); k++)
        if (strcmp(json_string_value(json_array_get(files, k)), file) == 0)
            return 1;
    return 0;
}

/* A file of the directory (a regular file, no link followed: pl_output_open_file), or NULL. */
static FILE *open_in(const pl_output *out, const char *name, pl_error *err)
{
    int fd = pl_output_open_file(out, name, NULL);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f && fd >= 0)
        close(fd);
    if (!f)
        pl_fail(err, PL_ERR_INPUT, "%s lacks %s, which its figures need (a regular file)", out->root, name);
    return f;
}

/* The integer "NAME = N" of a plots_config.gp written by a sweep; -1 if absent. */
static long config_int(const char *text, const char *name)
{
    size_t len = strlen(name);
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
        if (strncmp(line, name, len) == 0 && strncmp(line + len, " = ", 3) == 0)
            return strtol(line + len + 3, NULL, 10);
    return -1;
}

/* The quoted string "NAME = '...'" of a configuration: whether it holds a word. */
static int config_words(const char *text, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, "\n%s = '", name);
    const char *at = strstr(text, key);
    return at && at[strlen(key)] != '\'';
}

/* A configuration the directory's figures read (its first len - 1 bytes), as text. */
static pl_status read_config(const pl_output *out, const char *name, char *text, size_t len, pl_error *err)
{
    FILE *f = open_in(out, name, err);
    if (!f)
        return PL_ERR_INPUT;
    size_t got = fread(text, 1, len - 1, f);
    fclose(f);
    text[got] = '\0';
    return PL_OK;
}

static pl_status plan_sweep(const pl_output *out, pl_plot_plan *plan, pl_error *err)
{
    char text[1 << 16];
    if (read_config(out, "plots_config.gp", text, sizeof text, err) != PL_OK)
        return PL_ERR_INPUT;
    if (config_words(text, "runs")) {
        plan->figures[plan->n++] = "trajectories";
        plan->figures[plan->n++] = "trajectories_s";
    }
    if (config_int(text, "nq") > 0)
        plan->figures[plan->n++] = "convergence";
    if (config_int(text, "nsliding") > 0)
        plan->figures[plan->n++] = "sliding";
    if (config_int(text, "nzeno") > 0)
        plan->figures[plan->n++] = "zeno";
    return PL_OK;
}

/* A compare directory: its trajectories when some solution has rows, the work-precision plot when
 * some distance has a cost (compare_config.gp says both, as compare wrote it). */
static pl_status plan_compare(const pl_output *out, pl_plot_plan *plan, pl_error *err)
{
    char text[1 << 16];
    if (read_config(out, "compare_config.gp", text, sizeof text, err) != PL_OK)
        return PL_ERR_INPUT;
    if (config_words(text, "dirs")) {
        plan->figures[plan->n++] = "compare_trajectories";
        plan->figures[plan->n++] = "compare_trajectories_s";
    }
    if (config_words(text, "distances")) {
        FILE *d = open_in(out, "compare_work.dat", err);
        if (!d)
            return PL_ERR_INPUT;
        fclose(d);
        plan->figures[plan->n++] = "compare_work";
    }
    return PL_OK;
}

pl_status pl_plot_dir_plan(const pl_output *out, const json_t *manifest, pl_plot_plan *plan, pl_error *err)
{
    memset(plan, 0, sizeof *plan);
    const char *command = json_string_value(json_object_get(manifest, "command"));
    if (command && strcmp(command, "sweep") == 0)
        return plan_sweep(out, plan, err);
    if (command && strcmp(command, "compare") == 0)
        return plan_compare(out, plan, err);
    if (command && (strcmp(command, "run") == 0 || strcmp(command, "limit") == 0)) {
        if (!lists(manifest, "trajectory.csv"))
            return pl_fail(err, PL_ERR_INPUT, "%s lacks trajectory.csv, which its figures need", out->root);
        plan->figures[plan->n++] = "run";
        plan->run_config = 1;
        return PL_OK;
    }
    /* any other command: the embedded scripts it wrote, drawn again */
    for (size_t k = 0; k < pl_plot_script_count && plan->n < PL_PLOT_MAX_FIGURES; k++) {
        char file[256];
        snprintf(file, sizeof file, "%s.gp", pl_plot_scripts[k].name);
        if (strcmp(pl_plot_scripts[k].name, "styles") != 0 && lists(manifest, file))
            plan->figures[plan->n++] = pl_plot_scripts[k].name;
    }
    return PL_OK;
}

pl_status pl_plot_dir_files(const pl_plot_plan *plan, pl_strings *files, pl_error *err)
{
    pl_status s = PL_OK;
    for (size_t k = 0; s == PL_OK && k < plan->n; k++)
        s = pl_plot_files(plan->figures[k], files, err);
    if (s == PL_OK && plan->run_config && !pl_strings_has(files, "plots_config.gp"))
        s = pl_strings_add(files, "plots_config.gp", err);
    if (s == PL_OK && plan->n > 0)
        s = pl_plot_common_files(files, err);
    return s;
}

/* plots_config.gp of one solution: its name and the columns of its trajectory.csv. */
static pl_status write_run_config(pl_output *out, const json_t *manifest, pl_error *err)
{
    FILE *in = open_in(out, "trajectory.csv", err);
    if (!in)
        return PL_ERR_INPUT;
    char *header = NULL; /* the whole first line, however many columns */
    size_t cap = 0;
    if (getline(&header, &cap, in) < 0) {
        free(header);
        header = NULL;
    }
    fclose(in);
    int ndof = 0, ncon = 0, impulses = header && strstr(header, ",impulse1") != NULL;
    for (char *c = header ? strtok(header, ",\r\n") : NULL; c; c = strtok(NULL, ",\r\n"))
        ndof += c[0] == 'q', ncon += c[0] == 'G';
    free(header);
    if (ndof == 0)
        return pl_fail(err, PL_ERR_INPUT, "%s/trajectory.csv has no column q1", out->root);
    const char *solver = json_string_value(json_object_get(manifest, "solver"));
    const char *case_name = json_string_value(json_object_get(manifest, "case"));
    const json_t *options = json_object_get(manifest, "options");
    int is_limit = solver && strcmp(solver, "limit") == 0;
    char label[128] = "limit solution";
    if (!is_limit) {
        const char *param = json_object_get(options, "mu") ? "mu" : "h";
        const json_t *v = json_object_get(options, param);
        if (json_is_number(v))
            pl_plot_label(param, json_number_value(v), label, sizeof label);
        else
            snprintf(label, sizeof label, "%s", solver ? solver : "run");
    }
    pl_file f;
    pl_status s = pl_file_open(&f, out, NULL, "plots_config.gp", err);
    if (s != PL_OK)
        return s;
    /* names are penlim's own (cases and solvers): no quote to escape */
    fprintf(f.fp, "# Written by penlim plot: what run.gp reads.\n");
    fprintf(f.fp, "case_name = '%s'\nsolution = '%s'\nlabel = '%s'\n", case_name ? case_name : "",
            solver ? solver : "", label);
    fprintf(f.fp, "ndof = %d\nncon = %d\nimpulses = %d\nis_limit = %d\n", ndof, ncon, impulses, is_limit);
    return pl_file_commit(&f, err);
}

pl_status pl_plot_dir_write(pl_output *out, const json_t *manifest, const pl_plot_plan *plan, pl_error *err)
{
    pl_status s = PL_OK;
    if (plan->run_config)
        s = write_run_config(out, manifest, err);
    if (s == PL_OK && plan->n > 0)
        s = pl_plot_write_script(out, "styles", err);
    for (size_t k = 0; s == PL_OK && k < plan->n; k++)
        s = pl_plot_write_script(out, plan->figures[k], err);
    return s;
}

pl_status pl_plot_dir_render(pl_output *out, const pl_plot_plan *plan, pl_error *err)
{
    char log[PATH_MAX];
    pl_status s = pl_output_path(out, NULL, "gnuplot.log", log, sizeof log, err);
    if (s != PL_OK)
        return s;
    unlink(log); /* gnuplot appends to it: keep only this rendering's messages */
    for (size_t k = 0; s == PL_OK && k < plan->n; k++)
        s = pl_plot_render(out, plan->figures[k], err);
    return s;
}
