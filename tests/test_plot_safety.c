/* A results directory is data, never code: `penlim plot` on run, limit, scheme, sweep and compare
 * directories whose manifest fields, figure configurations and data headers carry gnuplot and shell
 * metacharacters (' " ` @ \ ; newline, system(...), $(...), a "<command" file name) refuses with
 * exit 2 and one line, or draws with what gnuplot loads checked to be data (gnuplot_safe.h), and
 * never runs the command planted (a file PLANTED).  Then the figure step's bounds: gnuplot killed
 * when --max-seconds runs out (a stand-in gnuplot that never ends), and started without fork
 * handlers under a memory limit (it spun for ever in OpenBLAS's handler); a sparse run without a
 * contact drawn, and a failing gnuplot's log kept where the warning says. */
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli_util.h"
#include "gnuplot_safe.h"

/* What a hostile manifest or data header may hold: each tries another way out of a string. */
static const char *const payloads[] = {
    "q'; system('touch PLANTED'); '",
    "q\"; system(\"touch PLANTED\"); \" `touch PLANTED` $(touch PLANTED) @x; !touch PLANTED \\",
    "q\\\nsystem('touch PLANTED')\r\n#",
    "<touch PLANTED",
};
#define NPAYLOADS (sizeof payloads / sizeof payloads[0])

/* What a hostile configuration may set, as gnuplot text. */
static const char *const config_values[] = {
    "'q'; system('touch PLANTED'); ''",
    "\"`touch PLANTED`\"",
    "'x' . system('touch PLANTED')",
    "'<touch PLANTED'",
    "'a\\\nsystem(\"touch PLANTED\") #'",
};
static const char *const config_lines[] = {
    "system('touch PLANTED')",
    "!touch PLANTED",
    "x = `touch PLANTED`",
    "load '<touch PLANTED'",
};

static int planted(const char *work)
{
    char name[512];
    snprintf(name, sizeof name, "%s/PLANTED", work);
    return exists(name) || exists("PLANTED");
}

static void copy_dir(const char *from, const char *to)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd %s && rm -rf %s && cp -a %s %s", dir, to, from, to);
    CHECK(system(cmd) == 0, "%s", cmd);
}

static void write_file(const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The configuration the scripts of work load, if any, passes gnuplot_safe.h. */
static void check_config_safe(const char *work, const char *what)
{
    const char *names[] = {"plots_config.gp", "compare_config.gp"};
    for (size_t k = 0; k < 2; k++) {
        char name[512];
        snprintf(name, sizeof name, "%s/%s", work, names[k]);
        char *text = slurp(name);
        const char *why = text ? gnuplot_config_unsafe(text, strlen(text), 1) : NULL;
        CHECK(!why, "%s: %s, which gnuplot loaded, is not data: %s", what, names[k], why);
        free(text);
    }
}

/* `penlim plot work`: exit 0 or 2 (then one line), nothing planted, what gnuplot loaded is data.
 * Returns the exit status. */
static int plot_hostile(const char *work, const char *what)
{
    char args[600];
    snprintf(args, sizeof args, "plot %s --quiet", work);
    int rc = run(args);
    char *err = slurp("stderr.txt");
    CHECK(!planted(work), "%s: the command planted ran (exit %d: %s)", what, rc, err ? err : "");
    CHECK(rc == 0 || (rc == 2 && count_lines(err) == 1), "%s: exit %d (%s)", what, rc, err ? err : "");
    if (rc == 0)
        check_config_safe(work, what);
    free(err);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -f %s/PLANTED PLANTED", work);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s/PLANTED\n", work);
    return rc;
}

/* Set the leaf number target (strings and nulls, in document order; of an array its first and last
 * element only) of j to text; its path into name.  Returns 1 when done, 0 if there are fewer leaves. */
static int set_leaf(json_t *j, size_t *seen, size_t target, const char *text, char *name, size_t len)
{
    if (json_is_string(j) || json_is_null(j))
        return (*seen)++ == target;
    size_t used = strlen(name);
    if (json_is_object(j)) {
        const char *key;
        json_t *v;
        json_object_foreach(j, key, v) {
            snprintf(name + used, len - used, "%s%s", used ? "." : "", key);
            if (set_leaf(v, seen, target, text, name, len)) {
                if (json_is_string(v) || json_is_null(v))
                    json_object_set_new(j, key, json_string(text));
                return 1;
            }
        }
    } else if (json_is_array(j)) {
        size_t n = json_array_size(j);
        for (size_t k = 0; k < n; k = k == 0 && n > 1 ? n - 1 : n) {
            snprintf(name + used, len - used, "[%zu]", k);
            json_t *v = json_array_get(j, k);
            if (set_leaf(v, seen, target, text, name, len)) {
                if (json_is_string(v) || json_is_null(v))
                    json_array_set_new(j, k, json_string(text));
                return 1;
            }
        }
    }
    name[used] = '\0';
    return 0;
}

/* Every string field of base's manifest, each with every payload. */
static void hostile_manifests(const char *base)
{
    char path[512], work[64];
    snprintf(work, sizeof work, "%s_hostile", base);
    for (size_t leaf = 0;; leaf++) {
        char field[256] = "";
        for (size_t p = 0; p < NPAYLOADS; p++) {
            copy_dir(base, work);
            snprintf(path, sizeof path, "%s/%s/manifest.json", dir, work);
            json_t *m = json_load_file(path, 0, NULL);
            size_t seen = 0;
            field[0] = '\0';
            if (!m || !set_leaf(m, &seen, leaf, payloads[p], field, sizeof field)) {
                json_decref(m);
                return;
            }
            CHECK(json_dump_file(m, path, JSON_INDENT(2)) == 0, "cannot write %s", path);
            json_decref(m);
            char what[1024];
            snprintf(what, sizeof what, "%s: manifest \"%s\" = payload %zu", base, field, p + 1);
            int rc = plot_hostile(work, what);
            /* the fields that reach the figures are refused, naming themselves (a "refined" that
             * the runs do not have makes the manifest no manifest, refused as such) */
            if (strcmp(field, "case") == 0 || strcmp(field, "solver") == 0 || strcmp(field, "refined") == 0) {
                char *err = slurp("stderr.txt");
                char quoted[300];
                snprintf(quoted, sizeof quoted, "manifest.json: \"%s\"", field);
                CHECK(rc == 2 && err && (strstr(err, quoted) || (field[0] == 'r' && strstr(err, "manifest.json"))),
                      "%s: refused naming the field (exit %d: %s)", what, rc, err ? err : "");
                free(err);
            }
        }
    }
}

/* Every setting of base's configuration (name) set to each hostile value, and each hostile line
 * added: refused, naming the file. */
static void hostile_config(const char *base, const char *name)
{
    char rel[512], work[64];
    snprintf(work, sizeof work, "%s_hostile", base);
    snprintf(rel, sizeof rel, "%s/%s", base, name);
    char *text = slurp(rel);
    CHECK(text != NULL, "%s exists", rel);
    if (!text)
        return;
    snprintf(rel, sizeof rel, "%s/%s", work, name);
    int settings = 0;
    for (const char *line = text, *nl; *line; line = nl ? nl + 1 : line + strlen(line)) {
        nl = strchr(line, '\n');
        const char *eq = strstr(line, " = ");
        if (line[0] == '#' || !eq || (nl && eq > nl))
            continue;
        settings++;
        for (size_t v = 0; v < sizeof config_values / sizeof *config_values; v++) {
            copy_dir(base, work);
            char *edited = malloc(strlen(text) + strlen(config_values[v]) + 1);
            size_t head = (size_t)(eq + 3 - text);
            memcpy(edited, text, head);
            strcpy(edited + head, config_values[v]);
            if (nl)
                strcat(edited, nl);
            write_file(rel, edited);
            free(edited);
            char what[1024];
            snprintf(what, sizeof what, "%s: %.*s = %s", rel, (int)(eq - line), line, config_values[v]);
            int rc = plot_hostile(work, what);
            char *err = slurp("stderr.txt");
            CHECK(rc == 2 && err && strstr(err, name), "%s: refused naming %s (exit %d: %s)", what, name, rc,
                  err ? err : "");
            free(err);
        }
    }
    CHECK(settings >= 7, "%s: %d settings", name, settings);
    for (size_t l = 0; l < sizeof config_lines / sizeof *config_lines; l++) {
        copy_dir(base, work);
        char *edited = malloc(strlen(text) + strlen(config_lines[l]) + 2);
        sprintf(edited, "%s%s\n", text, config_lines[l]);
        write_file(rel, edited);
        free(edited);
        char what[1024];
        snprintf(what, sizeof what, "%s + %s", rel, config_lines[l]);
        int rc = plot_hostile(work, what);
        CHECK(rc == 2, "%s: refused (exit %d)", what, rc);
    }
    free(text);
}

/* The first line of a data file the figures read, with every payload appended (gnuplot evaluates
 * nothing in data: one run of all of them shows it). */
static void hostile_header(const char *base, const char *file)
{
    char rel[512], work[64];
    snprintf(work, sizeof work, "%s_hostile", base);
    snprintf(rel, sizeof rel, "%s/%s", base, file);
    char *text = slurp(rel);
    CHECK(text != NULL, "%s exists", rel);
    if (!text)
        return;
    snprintf(rel, sizeof rel, "%s/%s", work, file);
    const char *nl = strchr(text, '\n');
    size_t head = nl ? (size_t)(nl - text) : strlen(text);
    copy_dir(base, work);
    size_t len = strlen(text) + 1;
    for (size_t p = 0; p < NPAYLOADS; p++)
        len += strlen(payloads[p]) + 1;
    char *edited = malloc(len);
    memcpy(edited, text, head);
    edited[head] = '\0';
    for (size_t p = 0; p < NPAYLOADS; p++)
        strcat(strcat(edited, ","), payloads[p]);
    strcat(edited, text + head);
    write_file(rel, edited);
    free(edited);
    free(text);
    char what[1024];
    snprintf(what, sizeof what, "%s: header + every payload", rel);
    plot_hostile(work, what);
}

/* The issue's reproducer, as reported: a run's "solver" breaking out of plots_config.gp. */
static void test_reproducer(void)
{
    CHECK(run("run bouncing_ball --out repro --quiet") == 0, "run");
    char path[512];
    snprintf(path, sizeof path, "%s/repro/manifest.json", dir);
    json_t *m = json_load_file(path, 0, NULL);
    json_object_set_new(m, "solver", json_string("q'; system('id > PWNED'); '"));
    CHECK(m && json_dump_file(m, path, JSON_INDENT(2)) == 0, "manifest edited");
    json_decref(m);
    int rc = run("plot repro");
    char *err = slurp("stderr.txt");
    CHECK(rc == 2 && !exists("repro/PWNED") && !exists("PWNED") && err && count_lines(err) == 1 &&
              strstr(err, "repro/manifest.json: \"solver\" is not a solver penlim has"),
          "the reproducer is refused (exit %d: %s)", rc, err ? err : "");
    free(err);
}

/* A model compiled apart has its own name: accepted when the manifest says it was loaded from a
 * file, refused as a built-in case. */
static void test_model_identity(void)
{
    char path[512];
    const char *files[] = {"/models/my_model.so", NULL};
    for (size_t k = 0; k < 2; k++) {
        copy_dir("k_run", "k_model");
        snprintf(path, sizeof path, "%s/k_model/manifest.json", dir);
        json_t *m = json_load_file(path, 0, NULL);
        json_object_set_new(m, "case", json_string("my_model"));
        json_object_set_new(json_object_get(m, "model"), "file", files[k] ? json_string(files[k]) : json_null());
        CHECK(m && json_dump_file(m, path, JSON_INDENT(2)) == 0, "manifest edited");
        json_decref(m);
        int rc = run("plot k_model --quiet");
        char *err = slurp("stderr.txt");
        if (files[k]) {
            char *config = slurp("k_model/plots_config.gp");
            CHECK(rc == 0 && config && strstr(config, "case_name = 'my_model'"),
                  "a model loaded from a file is drawn under its name (exit %d: %s)", rc, err ? err : "");
            free(config);
        } else {
            CHECK(rc == 2 && err && strstr(err, "\"case\" is not a case penlim has ('my_model')"),
                  "a case penlim does not have is refused (exit %d: %s)", rc, err ? err : "");
        }
        free(err);
    }
    /* No "model": penlim 0.1 recorded none, and its directories of a model compiled apart are drawn
     * under the model's name (they were refused: "not a case penlim has").  A later version always
     * records one: refused, saying what is missing and what to do. */
    const char *versions[] = {"0.1.0", "0.2.0"};
    for (size_t k = 0; k < 2; k++) {
        copy_dir("k_run", "k_model");
        snprintf(path, sizeof path, "%s/k_model/manifest.json", dir);
        json_t *m = json_load_file(path, 0, NULL);
        json_object_set_new(m, "case", json_string("my_model"));
        json_object_set_new(m, "penlim_version", json_string(versions[k]));
        json_object_del(m, "model");
        CHECK(m && json_dump_file(m, path, JSON_INDENT(2)) == 0, "manifest edited");
        json_decref(m);
        int rc = run("plot k_model --quiet");
        char *err = slurp("stderr.txt");
        if (k == 0) {
            char *config = slurp("k_model/plots_config.gp");
            CHECK(rc == 0 && config && strstr(config, "case_name = 'my_model'"),
                  "penlim 0.1's directory of a model drawn under its name (exit %d: %s)", rc, err ? err : "");
            free(config);
        } else {
            CHECK(rc == 2 && err && count_lines(err) == 1 &&
                      strstr(err, "\"case\" is not a case penlim has ('my_model') and there is no \"model\"") &&
                      strstr(err, "penlim_version '0.2.0'") && strstr(err, "run the command again with --model FILE"),
                  "a manifest of 0.2 without \"model\": refused, saying what is missing (exit %d: %s)", rc,
                  err ? err : "");
        }
        free(err);
    }
}

/* An external file whose name carries metacharacters: compare draws it (its label made of plain
 * characters) and so does penlim plot. */
static void make_compare_with_external(void)
{
    static const char name[] = "ext q'\"`;$(touch PLANTED)@x\\.csv";
    char *traj = slurp("k_run/trajectory.csv");
    write_file(name, traj ? traj : "");
    free(traj);
    char quoted[256] = "'", *q = quoted + 1; /* for the shell: '...' with ' as '\'' */
    for (const char *c = name; *c; c++)
        q += *c == '\'' ? sprintf(q, "'\\''") : sprintf(q, "%c", *c);
    strcpy(q, "'");
    char args[512];
    snprintf(args, sizeof args, "compare bouncing_ball --mu 1e4 --t-end 1 --samples 20 --external %s --out k_compare --quiet",
             quoted);
    int rc = run(args);
    char *err = slurp("stderr.txt");
    CHECK(rc == 0 && !planted("k_compare"), "compare with a hostile file name (exit %d: %s)", rc, err ? err : "");
    free(err);
    check_config_safe("k_compare", "compare with a hostile file name");
}

static void test_hostile_directories(void)
{
    CHECK(run("run bouncing_ball --t-end 1 --samples 20 --out k_run --quiet") == 0, "run");
    CHECK(run("limit bouncing_ball --t-end 1 --samples 20 --out k_limit --quiet") == 0, "limit");
    CHECK(run("run bouncing_ball --scheme maury --set e=0 --t-end 1 --out k_scheme --quiet") == 0, "scheme");
    CHECK(run("sweep bouncing_ball --mu 1e3,1e4 --t-end 1 --samples 20 --out k_sweep --quiet") == 0, "sweep");
    make_compare_with_external();
    const char *kinds[] = {"k_run", "k_limit", "k_scheme", "k_sweep", "k_compare"};
    for (size_t k = 0; k < 5; k++) {
        char args[64];
        snprintf(args, sizeof args, "plot %s --quiet", kinds[k]);
        CHECK(run(args) == 0, "%s: plot of the directory as written", kinds[k]);
        hostile_manifests(kinds[k]);
    }
    hostile_config("k_sweep", "plots_config.gp");
    hostile_config("k_compare", "compare_config.gp");
    hostile_header("k_run", "trajectory.csv");
    hostile_header("k_sweep", "convergence.csv");
    hostile_header("k_sweep", "zeno.csv");
    hostile_header("k_sweep", "runs/001_mu_1e3/trajectory.csv");
    hostile_header("k_compare", "compare_work.csv");
    hostile_header("k_compare", "solutions/02_external/trajectory.csv");
}

/* A gnuplot that never ends, first on PATH: it writes its process id to dir/fake.pid. */
static void make_endless_gnuplot(void)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/fakebin && printf '#!/bin/sh\\necho $$ > %s/fake.pid\\nexec sleep 1000\\n' > "
             "%s/fakebin/gnuplot && chmod +x %s/fakebin/gnuplot",
             dir, dir, dir, dir);
    CHECK(system(cmd) == 0, "%s", cmd);
}

/* The process the endless gnuplot left in fake.pid is gone (killed and waited for). */
static void check_endless_gnuplot_gone(const char *what)
{
    char *pid = slurp("fake.pid");
    long p = pid ? strtol(pid, NULL, 10) : 0;
    free(pid);
    CHECK(p > 0 && kill((pid_t)p, 0) != 0 && errno == ESRCH, "%s: the stand-in gnuplot (pid %ld) is gone", what, p);
    unlink("fake.pid");
}

/* Run "penlim ARGS" in dir with the endless gnuplot first on PATH, within 120 s (a hang
 * detector, not a duration: the budget is 1 s); its exit status, 124 if it hung. */
static int run_with_endless_gnuplot(const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd %s && PATH=%s/fakebin:$PATH timeout 120 %s %s > stdout.txt 2> stderr.txt", dir, dir,
             penlim, args);
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static int manifest_lists(const char *sub, const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/manifest.json", dir, sub);
    json_t *m = json_load_file(path, 0, NULL);
    const json_t *files = json_object_get(m, "files");
    int found = 0;
    for (size_t k = 0; k < json_array_size(files); k++)
        found |= strcmp(json_string_value(json_array_get(files, k)), file) == 0;
    json_decref(m);
    return found;
}

static void test_figures_within_budget(void)
{
    make_endless_gnuplot();
    int rc = run_with_endless_gnuplot("sweep bouncing_ball --mu 1e3,1e4 --t-end 1 --samples 20 --max-seconds 1 "
                                      "--out budget_sweep --quiet");
    char *err = slurp("stderr.txt");
    CHECK(rc == 0 && err && count_lines(err) == 1 &&
              strstr(err, "warning: plots skipped: gnuplot stopped after the time budget of 1 s (max_seconds) "
                          "drawing trajectories.gp"),
          "sweep: gnuplot stopped by --max-seconds, a warning (exit %d: %s)", rc, err ? err : "");
    free(err);
    CHECK(manifest_lists("budget_sweep", "sweep.json") && manifest_lists("budget_sweep", "plots_config.gp") &&
              !manifest_lists("budget_sweep", "trajectories.png") && !exists("budget_sweep/trajectories.png"),
          "sweep: the data kept, no figure");
    check_endless_gnuplot_gone("sweep");

    rc = run_with_endless_gnuplot("compare bouncing_ball --mu 1e4 --t-end 1 --samples 20 --max-seconds 1 "
                                  "--out budget_compare --quiet");
    err = slurp("stderr.txt");
    CHECK(rc == 0 && err && count_lines(err) == 1 && strstr(err, "gnuplot stopped after the time budget of 1 s"),
          "compare: gnuplot stopped by --max-seconds (exit %d: %s)", rc, err ? err : "");
    free(err);
    CHECK(manifest_lists("budget_compare", "compare.json"), "compare: the data kept");
    check_endless_gnuplot_gone("compare");

    rc = run_with_endless_gnuplot("plot budget_sweep --max-seconds 1");
    err = slurp("stderr.txt");
    CHECK(rc == 0 && err && count_lines(err) == 1 && strstr(err, "gnuplot stopped after the time budget of 1 s"),
          "plot: gnuplot stopped by --max-seconds (exit %d: %s)", rc, err ? err : "");
    free(err);
    CHECK(manifest_lists("budget_sweep", "sweep.json") && !manifest_lists("budget_sweep", "trajectories.png"),
          "plot: the data kept, no figure");
    check_endless_gnuplot_gone("plot");
    rc = run("plot budget_sweep --max-seconds 0");
    CHECK(rc == 2, "plot --max-seconds 0 is refused (exit %d)", rc);
}

/* A sparse run that never touched (contacts.csv its header alone) is drawn, its contact panels
 * empty, as one that touched is; a gnuplot that fails leaves the log the warning names, listed. */
static void test_figures_sparse_and_log(void)
{
    for (int k = 0; k < 2; k++) {
        char args[256], name[64];
        snprintf(args, sizeof args, "run bouncing_ball --mu 1e4 --t-end %s --contacts sparse --out sparse_%d --quiet",
                 k == 0 ? "0.2" : "1", k);
        CHECK(run(args) == 0, "%s", args);
        snprintf(name, sizeof name, "sparse_%d/contacts.csv", k);
        char *contacts = slurp(name);
        CHECK(contacts && (count_lines(contacts) == 1) == (k == 0), "t-end %s: %d contacts", k == 0 ? "0.2" : "1",
              contacts ? count_lines(contacts) - 1 : -1);
        free(contacts);
        snprintf(args, sizeof args, "plot sparse_%d", k);
        int rc = run(args);
        char *err = slurp("stderr.txt");
        snprintf(name, sizeof name, "sparse_%d", k);
        CHECK(rc == 0 && err && !*err && manifest_lists(name, "run.png") && manifest_lists(name, "run.pdf"),
              "'penlim %s': the figure drawn, no warning (%d: %s)", args, rc, err ? err : "");
        free(err);
    }
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/failbin && printf '#!/bin/sh\necho stand-in gnuplot failing >&2\nexit 1\n' > "
             "%s/failbin/gnuplot && chmod +x %s/failbin/gnuplot && cd %s && PATH=%s/failbin:$PATH %s plot sparse_1 "
             "> stdout.txt 2> stderr.txt",
             dir, dir, dir, dir, dir, penlim);
    int rc = system(cmd);
    char *err = slurp("stderr.txt"), *log = slurp("sparse_1/gnuplot.log");
    CHECK(WIFEXITED(rc) && WEXITSTATUS(rc) == 0 && err && strstr(err, "warning: plots skipped: gnuplot failed") &&
              strstr(err, "sparse_1/gnuplot.log"),
          "a gnuplot that fails: a warning naming gnuplot.log (%s)", err ? err : "");
    CHECK(log && strstr(log, "stand-in gnuplot failing") && manifest_lists("sparse_1", "gnuplot.log") &&
              !manifest_lists("sparse_1", "run.png"),
          "the log it names is there, listed, with gnuplot's message (%s)", log ? log : "absent");
    free(err);
    free(log);
}

/* Under a memory limit the figures end: drawn, or a warning (gnuplot's fork for the figures ran
 * OpenBLAS's fork handler, which retried an allocation for ever).  120 s is a hang detector. */
static void test_figures_under_memory_limit(void)
{
#ifndef PENLIM_SANITIZE /* the sanitizers reserve more address space than the limit */
    const char *cmds[] = {"sweep bouncing_ball --mu 1e3,1e4 --t-end 1 --samples 20 --out oom_sweep --quiet",
                          "compare bouncing_ball --mu 1e4 --t-end 1 --samples 20 --out oom_compare --quiet",
                          "plot k_run --quiet"};
    for (size_t k = 0; k < 3; k++) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "cd %s && (ulimit -v 200000; timeout 120 %s %s > stdout.txt 2> stderr.txt)", dir,
                 penlim, cmds[k]);
        int rc = system(cmd);
        rc = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
        char *err = slurp("stderr.txt");
        CHECK(rc == 0, "under ulimit -v 200000, '%s' ends (exit %d: %s)", cmds[k], rc, err ? err : "");
        free(err);
    }
#endif
}

int main(int argc, char **argv)
{
    check_init();
    if (argc != 2) {
        fprintf(stderr, "usage: test_plot_safety PATH_TO_PENLIM\n");
        return 2;
    }
    static char path[4096];
    if (!realpath(argv[1], path)) {
        fprintf(stderr, "test_plot_safety: %s not found\n", argv[1]);
        return 2;
    }
    penlim = path;
    if (system("command -v gnuplot > /dev/null 2>&1") != 0) {
        fprintf(stderr, "test_plot_safety: gnuplot is not installed (scripts/setup installs it)\n");
        return 1;
    }
    snprintf(dir, sizeof dir, "/tmp/penlim-plot-safety-XXXXXX");
    if (!mkdtemp(dir) || chdir(dir) != 0)
        return 2;
    test_reproducer();
    test_hostile_directories();
    test_model_identity();
    test_figures_within_budget();
    test_figures_sparse_and_log();
    test_figures_under_memory_limit();
    if (chdir("/") != 0)
        return 2;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_finish("test_plot_safety");
}
