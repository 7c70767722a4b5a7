/* penlim plot: (re)draw the figures of a directory penlim wrote. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/common.h"
#include "cli/progress.h"
#include "io/plot_dir.h"

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

static void plot_progress(size_t drawn, size_t total, void *user)
{
    progress_phase(user, "figures", "", drawn, total, 0);
}

int cmd_plot(int argc, char **argv)
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
    progress_state progress; /* as the other commands': live on a terminal, a line per 10 s off it */
    progress_start(&progress, "plot", p.quiet, 1);
    pl_status plots = s == PL_OK ? pl_plot_dir_render(&d.out, &plan, &budget, plot_progress, &progress, &plot_err) : PL_OK;
    progress_end(&progress);
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
