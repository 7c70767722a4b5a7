/* Fuzz target: what `penlim plot` lets gnuplot load.  The input, split on its first two NUL bytes,
 * is a directory's manifest.json, the configuration its scripts load (written as both
 * plots_config.gp and compare_config.gp) and its trajectory.csv.  A manifest or configuration
 * penlim would not have written must be refused with a one-line message; an accepted one is
 * written again, and what is written must be data to gnuplot (tests/gnuplot_safe.h, a checker
 * independent of the program's reader).  Besides: any configuration text the reader accepts,
 * before the checks of its settings, is written back as data (file names aside: checking them is
 * the settings' part) and reads back the same; and the escaping writer makes data of any text (the
 * third part taken as a string). */
#define _GNU_SOURCE /* open_memstream */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../gnuplot_safe.h"
#include "fuzz_check.h"
#include "io/outdir.h"
#include "io/plot_config.h"
#include "io/plot_dir.h"
#include "io/plots.h"

static char dir[256];

/* Every file of the directory, then the directory (one per process). */
static void remove_dir(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, "..") != 0))
            unlink(path);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

static int make_dir(void)
{
    if (dir[0])
        return 1;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/penlim-fuzz-plot-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        dir[0] = '\0';
        return 0;
    }
    atexit(remove_dir);
    return 1;
}

static void write_file(const char *name, const uint8_t *data, size_t size)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
}

static void check_file_safe(const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    char *text = NULL;
    size_t len = 0;
    FILE *copy = open_memstream(&text, &len);
    if (!copy)
        abort();
    for (int c; (c = fgetc(f)) != EOF;)
        fputc(c, copy);
    fclose(f);
    fclose(copy);
    if (gnuplot_config_unsafe(text, len, 1))
        abort();
    free(text);
}

/* Whatever the reader accepts is written back as data, and reads back as the same text. */
static void check_round_trip(const uint8_t *data, size_t size)
{
    pl_gp_config c;
    pl_error err;
    if (pl_gp_config_parse((const char *)data, size, "config", &c, &err) != PL_OK) {
        fuzz_check_message(&err);
        pl_gp_config_free(&c);
        return;
    }
    char *once = NULL, *twice = NULL;
    size_t once_len = 0, twice_len = 0;
    FILE *f = open_memstream(&once, &once_len);
    if (!f)
        abort();
    pl_gp_config_write(f, &c);
    fclose(f);
    pl_gp_config_free(&c);
    if (gnuplot_config_unsafe(once, once_len, 0))
        abort();
    if (pl_gp_config_parse(once, once_len, "config", &c, &err) != PL_OK)
        abort();
    f = open_memstream(&twice, &twice_len);
    if (!f)
        abort();
    pl_gp_config_write(f, &c);
    fclose(f);
    pl_gp_config_free(&c);
    if (once_len != twice_len || memcmp(once, twice, once_len) != 0)
        abort();
    free(once);
    free(twice);
}

/* Any text, escaped, is data (as a string and as words of a list). */
static void check_escaping(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), *out = NULL;
    size_t len = 0;
    if (!text)
        return;
    memcpy(text, data, size);
    text[size] = '\0';
    FILE *f = open_memstream(&out, &len);
    if (!f)
        abort();
    pl_gp_put_string(f, "label", text);
    int first = 1;
    pl_gp_begin_words(f, "labels");
    pl_gp_put_word(f, text, &first);
    pl_gp_put_word(f, text, &first);
    pl_gp_end_words(f);
    fclose(f);
    if (gnuplot_config_unsafe(out, len, 0))
        abort();
    free(out);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!make_dir())
        return 0;
    const uint8_t *nul1 = memchr(data, '\0', size);
    size_t manifest_len = nul1 ? (size_t)(nul1 - data) : size;
    const uint8_t *config = nul1 ? nul1 + 1 : data + size;
    size_t rest = size - (size_t)(config - data);
    const uint8_t *nul2 = memchr(config, '\0', rest);
    size_t config_len = nul2 ? (size_t)(nul2 - config) : rest;
    const uint8_t *traj = nul2 ? nul2 + 1 : config + rest;
    size_t traj_len = size - (size_t)(traj - data);

    check_round_trip(config, config_len);
    check_escaping(traj, traj_len);

    json_t *m;
    pl_error err;
    if (pl_manifest_parse((const char *)data, manifest_len, &m, &err) != PL_OK) {
        fuzz_check_message(&err);
        return 0;
    }
    write_file("plots_config.gp", config, config_len);
    write_file("compare_config.gp", config, config_len);
    write_file("trajectory.csv", traj, traj_len);
    write_file("compare_work.csv", NULL, 0);
    pl_output out;
    pl_output_init(&out, dir, 0600, NULL);
    if (pl_output_open(&out, &err) != PL_OK) /* the directory's descriptor, through which its files are read */
        abort();
    pl_plot_plan plan;
    if (pl_plot_dir_plan(&out, m, &plan, &err) != PL_OK) {
        fuzz_check_message(&err);
    } else {
        for (size_t k = 0; k < plan.n; k++) {
            size_t s = 0;
            while (s < pl_plot_script_count && strcmp(pl_plot_scripts[s].name, plan.figures[k]) != 0)
                s++;
            if (s == pl_plot_script_count)
                abort();
        }
        if (pl_plot_dir_write(&out, m, &plan, &err) != PL_OK)
            fuzz_check_message(&err);
        else if (plan.config)
            check_file_safe(plan.config);
        pl_plot_dir_plan_free(&plan);
    }
    pl_output_free(&out);
    json_decref(m);
    return 0;
}
