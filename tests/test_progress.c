/* Progress on every phase (docs/usage.md, "Progress"): on a terminal (a pseudo-terminal from
 * script(1), of bsdutils, essential in Debian) run, limit, sweep and compare show a live line for
 * each of their phases, up to its end; off a terminal a command that ends within 10 s leaves stderr
 * as it was (empty on success); --quiet shows none.  A study and a merge show theirs too (runs with
 * their failures and limit solutions, analysis, figures; the shards' copying), on a terminal as a
 * live line and off one a line per tenth of each phase.  Counts phases, asserts no duration. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli_util.h"

/* "penlim ARGS" on a pseudo-terminal, its output (stdout and stderr, merged by the terminal) in
 * tty.txt; the exit status of script, which is the command's. */
static int run_on_terminal(const char *args)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd %s && script -qec '%s %s' /dev/null > tty.txt 2>&1 < /dev/null", dir, penlim, args);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void expect_phases(const char *cmd, const char *args, const char *const *phases, size_t n)
{
    char full[1024];
    snprintf(full, sizeof full, "%s %s", cmd, args);
    int rc = run_on_terminal(full);
    char *tty = slurp("tty.txt");
    CHECK(rc == 0 && tty, "penlim %s on a terminal exits 0 (got %d)", full, rc);
    for (size_t k = 0; tty && k < n; k++) {
        char want[128];
        snprintf(want, sizeof want, "penlim %s: %s", cmd, phases[k]);
        CHECK(strstr(tty, want) != NULL, "penlim %s: the live line shows '%s'", cmd, want);
    }
    CHECK(tty && strstr(tty, "\r\033[K"), "penlim %s: the line is rewritten in place on a terminal", cmd);
    free(tty);
    rc = run(full);
    char *err = slurp("stderr.txt");
    CHECK(rc == 0 && err && *err == '\0', "penlim %s off a terminal, within 10 s: stderr empty (got %.200s)", cmd,
          err ? err : "(none)");
    free(err);
    snprintf(full, sizeof full, "%s %s --quiet", cmd, args);
    rc = run_on_terminal(full);
    tty = slurp("tty.txt");
    char prefix[64];
    snprintf(prefix, sizeof prefix, "penlim %s:", cmd);
    CHECK(rc == 0 && tty && !strstr(tty, prefix), "penlim %s --quiet on a terminal: no progress (%.200s)", cmd,
          tty ? tty : "(none)");
    free(tty);
}

/* The lines of text that begin with prefix. */
static int count_lines_with(const char *text, const char *prefix)
{
    int n = 0;
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        n += strncmp(p, prefix, strlen(prefix)) == 0;
    return n;
}

/* penlim study (2 axes, 4 runs, 2 limit solutions) and penlim merge of its 2 shards: on a terminal
 * the live line of every phase up to its end; off a terminal, unlike the other commands (a study is
 * long), a line per tenth of each phase from the start: here each task is a tenth or more, so the
 * runs phase prints a line for each of its 6 tasks and the first (nothing done); --quiet none. */
static void test_study(void)
{
    static const char grid[] = "bouncing_ball --grid e=0.55,0.85 --grid mu=2e3,3e4 --t-end 1 --jobs 1";
    static const char *const study_phases[] = {"runs: 4/4 runs done, 0 failed, limit solutions 2/2",
                                               "analysis: 4/4 runs done, 0 failed", "figures: "};
    char args[512], cmd[1024];
    snprintf(args, sizeof args, "%s --out st --force", grid);
    snprintf(cmd, sizeof cmd, "study %s", args);
    int rc = run_on_terminal(cmd);
    char *tty = slurp("tty.txt");
    CHECK(rc == 0 && tty, "penlim study on a terminal exits 0 (got %d)", rc);
    for (size_t k = 0; tty && k < sizeof study_phases / sizeof *study_phases; k++) {
        char want[128];
        snprintf(want, sizeof want, "penlim study: %s", study_phases[k]);
        CHECK(strstr(tty, want) != NULL, "penlim study: the live line shows '%s'", want);
    }
    CHECK(tty && strstr(tty, "\r\033[K"), "penlim study: the line is rewritten in place on a terminal");
    free(tty);
    CHECK(run(cmd) == 0, "penlim study off a terminal");
    char *err = slurp("stderr.txt");
    CHECK(err && count_lines_with(err, "penlim study: runs: ") >= 7 &&
              strstr(err, "penlim study: runs: 0/4 runs done, 0 failed, limit solutions 0/2") &&
              strstr(err, "penlim study: runs: 4/4 runs done, 0 failed, limit solutions 2/2"),
          "penlim study off a terminal: a line at the start and one as each of the 6 tasks ends (each a tenth or more): %s", err ? err : "");
    CHECK(err && count_lines_with(err, "penlim study: analysis: ") >= 2 &&
              strstr(err, "penlim study: analysis: 4/4 runs done") && strstr(err, "penlim study: figures: "),
          "penlim study off a terminal: the analysis and the figures: %s", err ? err : "");
    free(err);
    snprintf(cmd, sizeof cmd, "study %s --quiet", args);
    CHECK(run(cmd) == 0 && (err = slurp("stderr.txt")) && *err == '\0', "penlim study --quiet: stderr empty");
    free(err);
    for (int i = 1; i <= 2; i++) {
        snprintf(cmd, sizeof cmd, "study %s --shard %d/2 --out sh%d --force --quiet", grid, i, i);
        CHECK(run(cmd) == 0, "shard %d of 2", i);
    }
    CHECK(run_on_terminal("merge sh1 sh2 --out mg --force") == 0, "penlim merge on a terminal");
    tty = slurp("tty.txt");
    CHECK(tty && strstr(tty, "penlim merge: copying the shards: 2/2 shards done") &&
              strstr(tty, "penlim merge: analysis: 4/4 runs done") && strstr(tty, "penlim merge: figures: ") &&
              strstr(tty, "\r\033[K"),
          "penlim merge: the live line of its phases: %s", tty ? tty : "");
    free(tty);
}

int main(int argc, char **argv)
{
    check_init();
    if (argc != 2) {
        fprintf(stderr, "usage: test_progress PATH_TO_PENLIM\n");
        return 2;
    }
    static char path[4096];
    if (!realpath(argv[1], path)) {
        fprintf(stderr, "test_progress: %s not found\n", argv[1]);
        return 2;
    }
    penlim = path;
    snprintf(dir, sizeof dir, "/tmp/penlim-progress-XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    static const char *const run_phases[] = {"solve: 1/1 done", "analysis: 1/1 done", "files: 1/1 done"};
    expect_phases("run", "bouncing_ball --mu 1e4 --t-end 1 --out r --force", run_phases, 3);
    expect_phases("limit", "bouncing_ball --t-end 1 --out l --force", run_phases, 3);
    static const char *const sweep_phases[] = {"limit: 1/1 done", "runs: 3/3 runs done, 0 failed",
                                               "analysis: 1/1 done", "files: 1/1 done", "figures: 1/1 done"};
    expect_phases("sweep", "bouncing_ball --mu 1e3,1e4,1e5 --t-end 1 --out s --force", sweep_phases, 5);
    static const char *const compare_phases[] = {"limit: 1/1 done", "solutions: 2/2 solutions done, 0 failed",
                                                 "analysis: 1/1 done", "files: 1/1 done", "figures: 1/1 done"};
    expect_phases("compare", "bouncing_ball --mu 1e4 --scheme moreau_jean --h 0.01 --t-end 1 --out c --force",
                  compare_phases, 5);
    /* penlim plot redraws the sweep's figures (those of s above, listed one a line): a step per figure */
    int listed = run("plot s");
    char *list = slurp("stdout.txt");
    size_t figures = 0;
    for (const char *p = list; listed == 0 && p && (p = strstr(p, ".png, ")); p++)
        figures++;
    free(list);
    char plot_done[64];
    snprintf(plot_done, sizeof plot_done, "figures: %zu/%zu done", figures, figures);
    const char *const plot_phases[] = {plot_done};
    CHECK(figures > 0, "the sweep s lists its figures in its manifest");
    expect_phases("plot", "s", plot_phases, 1);
    test_study();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (check_failures == 0 && system(cmd) != 0)
        fprintf(stderr, "test_progress: could not remove %s\n", dir);
    return check_finish("test_progress");
}
