/* What the default Moreau-Jean sweep of the ball stores (docs/methods.md, "Stored rows"): each run's
 * trajectory.csv holds at most 2 + 4 E + 3 I rows for its E episodes and I impacts (summary.json)
 * plus S = 200 per flight and per episode (E + 1 flights at most), and under half its steps where
 * they are more than that bound; the rows at each episode's row_in and row_out are at
 * its t_in and t_out (the row before the first impulse, and that of the last); the directory is
 * under 10 MB; `--samples 0` stores every step; and `--resume` of the sweep, which reads every run
 * back and measures it again, writes the same files byte for byte, as it does for a penalized sweep;
 * --samples and its meaning ("sampling" in the manifest) are settings: a change is not reused. */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "cli_util.h"

#define SAMPLES 200

static void run_ok(const char *args)
{
    int rc = run(args);
    char *err = slurp("stderr.txt");
    CHECK(rc == 0, "penlim %s exits 0 (got %d: %.300s)", args, rc, err ? err : "");
    free(err);
}

/* The rows of a trajectory.csv (its lines but the header), with their times into t (at most cap). */
static size_t read_times(const char *rel, double *t, size_t cap)
{
    char *text = slurp(rel);
    CHECK(text != NULL, "%s exists", rel);
    if (!text)
        return 0;
    size_t rows = 0;
    for (char *line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        if (rows < cap)
            t[rows] = strtod(line + 1, NULL);
        rows++;
    }
    free(text);
    return rows;
}

/* One run of the sweep: its rows against the bound from its own summary.json. */
static void check_run(const char *run_dir, double *t, size_t cap)
{
    char rel[512];
    snprintf(rel, sizeof rel, "%s/summary.json", run_dir);
    char *text = slurp(rel);
    json_error_t jerr;
    json_t *j = text ? json_loads(text, 0, &jerr) : NULL;
    free(text);
    CHECK(j != NULL, "%s reads", rel);
    if (!j)
        return;
    json_t *episodes = json_object_get(j, "episodes"), *events = json_object_get(j, "events");
    size_t E = json_array_size(episodes), I = 0, steps = (size_t)json_integer_value(json_object_get(
                                                           json_object_get(j, "stats"), "steps"));
    for (size_t k = 0; k < json_array_size(events); k++)
        I += strcmp(json_string_value(json_object_get(json_array_get(events, k), "kind")), "impact") == 0;
    snprintf(rel, sizeof rel, "%s/trajectory.csv", run_dir);
    size_t rows = read_times(rel, t, cap), bound = 2 + 4 * E + 3 * I + SAMPLES * (2 * E + 1);
    CHECK(rows <= bound && rows <= steps + 1, "%s: %zu rows, at most %zu (E = %zu, I = %zu) and the %zu steps + 1",
          run_dir, rows, bound, E, I, steps);
    CHECK(steps + 1 <= bound || rows < steps / 2, "%s: %zu rows, under half the %zu steps where the bound is below them",
          run_dir, rows, steps);
    printf("  %s: %zu rows of %zu steps (bound %zu; %zu episodes, %zu impacts)\n", run_dir, rows, steps, bound, E, I);
    for (size_t k = 0; k < E && rows <= cap; k++) {
        json_t *ep = json_array_get(episodes, k);
        size_t in = (size_t)json_integer_value(json_object_get(ep, "row_in"));
        size_t out = (size_t)json_integer_value(json_object_get(ep, "row_out"));
        double t_in = json_real_value(json_object_get(ep, "t_in")), t_out = json_real_value(json_object_get(ep, "t_out"));
        CHECK(in < rows && t[in] == t_in, "%s: episode %zu's row_in %zu is its entry row (t = %.17g)", run_dir, k + 1, in,
              t_in);
        CHECK(out < rows && (json_is_null(json_object_get(ep, "t_out")) ? out == rows - 1 : t[out] == t_out),
              "%s: episode %zu's row_out %zu is its exit row (t = %.17g)", run_dir, k + 1, out, t_out);
    }
    json_decref(j);
}

int main(int argc, char **argv)
{
    check_init();
    if (argc != 2) {
        fprintf(stderr, "usage: test_stored_rows PATH_TO_PENLIM\n");
        return 2;
    }
    static char path[4096];
    if (!realpath(argv[1], path)) {
        fprintf(stderr, "test_stored_rows: %s not found\n", argv[1]);
        return 2;
    }
    penlim = path;
    snprintf(dir, sizeof dir, "/tmp/penlim-rows-XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    run_ok("sweep bouncing_ball --scheme moreau_jean --no-plots --out mj --quiet");
    static double t[400000];
    static const char *const runs[] = {"001_h_0.05",  "002_h_0.01",   "003_h_0.005", "004_h_0.001",
                                       "005_h_0.0005", "006_h_0.0001", "007_h_5e-5"};
    for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
        char run_dir[128];
        snprintf(run_dir, sizeof run_dir, "mj/runs/%s", runs[k]);
        check_run(run_dir, t, sizeof t / sizeof *t);
    }
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "du -sb %s/mj > %s/du.txt", dir, dir);
    char *du = system(cmd) == 0 ? slurp("du.txt") : NULL;
    double bytes = du ? strtod(du, NULL) : NAN;
    free(du);
    CHECK(bytes < 10e6, "the default Moreau-Jean sweep writes under 10 MB (%.0f bytes)", bytes);
    printf("  the sweep: %.0f bytes\n", bytes);

    /* every run reused, read back and measured again: the same files */
    snprintf(cmd, sizeof cmd, "cp -r %s/mj %s/mj_resumed", dir, dir);
    CHECK(system(cmd) == 0, "copied");
    run_ok("sweep bouncing_ball --scheme moreau_jean --no-plots --out mj_resumed --resume --quiet");
    snprintf(cmd, sizeof cmd, "diff -r %s/mj %s/mj_resumed > %s/diff.txt", dir, dir, dir);
    char *diff = system(cmd) == 0 ? NULL : slurp("diff.txt");
    CHECK(diff == NULL, "--resume writes the same files as the fresh sweep: %.300s", diff ? diff : "");
    free(diff);

    /* a penalized sweep (rows sampled by events too): --resume writes the same files */
    run_ok("sweep bouncing_ball --mu 1e3,1e4,1e5 --t-end 3 --samples 20 --no-plots --out pen --quiet");
    snprintf(cmd, sizeof cmd, "cp -r %s/pen %s/pen_resumed", dir, dir);
    CHECK(system(cmd) == 0, "copied");
    run_ok("sweep bouncing_ball --mu 1e3,1e4,1e5 --t-end 3 --samples 20 --no-plots --out pen_resumed --resume --quiet");
    snprintf(cmd, sizeof cmd, "diff -r %s/pen %s/pen_resumed > %s/diff.txt", dir, dir, dir);
    diff = system(cmd) == 0 ? NULL : slurp("diff.txt");
    CHECK(diff == NULL, "--resume of a penalized sweep writes the same files: %.300s", diff ? diff : "");
    free(diff);
    char *summary = slurp("pen/runs/002_mu_1e4/summary.json");
    CHECK(summary && strstr(summary, "\"samples\": 20,"), "summary.json records --samples");
    /* JSON numbers as CSV files and directory names write them, reals kept reals */
    CHECK(summary && strstr(summary, "\"mu\": 1e4,") && strstr(summary, "\"rtol\": 1e-8,") &&
              strstr(summary, "\"t_end\": 3.0,") && !strstr(summary, "10000.0"),
          "summary.json: mu 1e4, rtol 1e-8, t_end 3.0 (%.400s)", summary ? summary : "");
    free(summary);
    char *manifest = slurp("pen/manifest.json");
    CHECK(manifest && strstr(manifest, "\"mu\": 1e5,") && strstr(manifest, "\"sampling\": \"events\""),
          "manifest.json: mu 1e5 as runs/003_mu_1e5 says, sampling by events");
    free(manifest);

    /* --samples, and what it means, are settings: a change is not reused */
    run_ok("sweep bouncing_ball --mu 1e3,1e4,1e5 --t-end 3 --samples 20 --no-plots --out pen --resume");
    char *out = slurp("stdout.txt");
    CHECK(out && strstr(out, "reused 3 of the 3 runs"), "the same settings: every run reused (%.200s)", out ? out : "");
    free(out);
    run_ok("sweep bouncing_ball --mu 1e3,1e4,1e5 --t-end 3 --samples 30 --no-plots --out pen --resume");
    out = slurp("stdout.txt");
    CHECK(out && !strstr(out, "reused"), "--samples 30 after 20: no run reused (%.200s)", out ? out : "");
    free(out);
    /* a directory of a version whose --samples meant a uniform grid: its manifest says no "sampling" */
    json_error_t jerr;
    snprintf(cmd, sizeof cmd, "%s/pen/manifest.json", dir);
    json_t *m = json_load_file(cmd, 0, &jerr);
    CHECK(m && json_object_del(m, "sampling") == 0 && json_dump_file(m, cmd, JSON_INDENT(2)) == 0,
          "the manifest without its sampling");
    json_decref(m);
    run_ok("sweep bouncing_ball --mu 1e3,1e4,1e5 --t-end 3 --samples 30 --no-plots --out pen --resume");
    out = slurp("stdout.txt");
    CHECK(out && !strstr(out, "reused"), "a manifest without \"sampling\": no run reused (%.200s)", out ? out : "");
    free(out);

    /* a study likewise: its manifest without "sampling" is of other settings */
    const char *study = "study bouncing_ball --grid mu=1e3,1e4 --t-end 1 --samples 20 --no-plots --jobs 1 --out st";
    snprintf(cmd, sizeof cmd, "%s --quiet", study);
    run_ok(cmd);
    snprintf(cmd, sizeof cmd, "%s --resume", study);
    run_ok(cmd);
    char *serr = slurp("stderr.txt");
    CHECK(serr && strstr(serr, "--resume: 3 of 3 tasks"), "a study resumed: every task reused (%.200s)", serr ? serr : "");
    free(serr);
    snprintf(cmd, sizeof cmd, "%s/st/manifest.json", dir);
    m = json_load_file(cmd, 0, &jerr);
    CHECK(m && json_object_del(m, "sampling") == 0 && json_dump_file(m, cmd, JSON_INDENT(2)) == 0,
          "the study's manifest without its sampling");
    json_decref(m);
    snprintf(cmd, sizeof cmd, "%s --resume", study);
    run_ok(cmd);
    serr = slurp("stderr.txt");
    CHECK(serr && strstr(serr, "--resume: 0 of 3 tasks"), "a study's manifest without \"sampling\": no task reused (%.200s)",
          serr ? serr : "");
    free(serr);

    /* --samples 0: every step */
    run_ok("run bouncing_ball --scheme moreau_jean --h 1e-3 --samples 0 --out every --quiet");
    CHECK(read_times("every/trajectory.csv", t, 1) == 10001, "--samples 0: every step of 10000 and t = 0");
    run_ok("run bouncing_ball --scheme moreau_jean --h 1e-3 --out sampled --quiet");
    check_run("sampled", t, sizeof t / sizeof *t);

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (check_failures == 0 && system(cmd) != 0)
        fprintf(stderr, "test_stored_rows: could not remove %s\n", dir);
    return check_finish("test_stored_rows");
}
