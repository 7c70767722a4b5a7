/* End-to-end tests of the penlim program: exit statuses, one-line errors, output files. */
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cli_util.h"
#include "core/clock.h"
#include "legend_check.h"
#include "manifest_util.h"
#include "cli/args.h"


static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void expect_input_error(const char *args)
{
    int rc = run(args);
    char *err = slurp("stderr.txt");
    CHECK(rc == 2, "'penlim %s' exits with 2 (got %d)", args, rc);
    CHECK(count_lines(err) == 1 && strncmp(err, "penlim", 6) == 0,
          "'penlim %s' prints one error line, got: %s", args, err ? err : "(none)");
    free(err);
}

static void test_bad_input(void)
{
    const char *bad[] = {
        "",
        "frobnicate",
        "run",
        "run no_such_case",
        "run bouncing_ball extra",
        "run bouncing_ball --set bogus=1 --out bad",
        "run bouncing_ball --set e=2 --out bad",
        "run bouncing_ball --set e --out bad",
        "run bouncing_ball --set e=abc --out bad",
        "run bouncing_ball --set e=0.5 --set xi=0.1 --out bad",
        "run wedge --set m=1 --out bad",
        "run bouncing_ball --mu 0 --out bad",
        "run bouncing_ball --mu -1 --out bad",
        "run bouncing_ball --mu nan --out bad",
        "run bouncing_ball --mu inf --out bad",
        "run bouncing_ball --mu 1e8x --out bad",
        "run bouncing_ball --rtol 2 --out bad",
        "run bouncing_ball --rtol 0 --out bad",
        "run bouncing_ball --t-end 0 --out bad",
        "run bouncing_ball --t-end -1 --out bad",
        "run bouncing_ball --max-steps x --out bad",
        "run bouncing_ball --bogus --out bad",
        "run bouncing_ball --rtol 1e-300 --out bad",
        "run bouncing_ball --t-end 1e-300 --out bad",
        "run bouncing_ball --set v0=1e200 --out bad",
        "run bouncing_ball --out ''",
        "limit bouncing_ball --rtol 1e-20 --out bad",
        "run bouncing_ball --out bad --mu",
        "cases extra",
        "sweep bouncing_ball --mu 1:2 --out bad",
        "sweep bouncing_ball --mu 1e3,abc --out bad",
        "sweep bouncing_ball --mu 1e3,1e3 --out bad",
        "sweep bouncing_ball --jobs 0 --out bad",
        "sweep bouncing_ball --samples -1 --out bad",
        "sweep bouncing_ball --rtol 0 --out bad",
        "sweep bouncing_ball --set e=3 --out bad",
        "sweep no_such_case --out bad",
        "run bouncing_ball --jobs 2 --out bad",
        "run bouncing_ball --scheme nope --out bad",
        "run bouncing_ball --scheme limit --out bad",
        "run bouncing_ball --scheme moreau_jean --h 0 --out bad",
        "run bouncing_ball --scheme moreau_jean --h -1 --out bad",
        "run bouncing_ball --scheme moreau_jean --h 100 --out bad",
        "run bouncing_ball --scheme moreau_jean --h 1e-9 --out bad",
        "run bouncing_ball --scheme moreau_jean --theta 0.3 --out bad",
        "run bouncing_ball --scheme moreau_jean --gamma 2 --out bad",
        "run bouncing_ball --set e=0 --scheme paoli --theta 0.5 --out bad",
        "run bouncing_ball --scheme moreau_jean --mu 1e8 --out bad",
        "run bouncing_ball --scheme moreau_jean --samples -1 --out bad",
        "run bouncing_ball --h 0.01 --out bad",
        "run bouncing_ball --theta 0.6 --out bad",
        "run bouncing_ball --scheme paoli --out bad",
        "run bouncing_ball --scheme maury --h 0.01 --out bad",
        "sweep bouncing_ball --scheme moreau_jean --h 0.1,0 --out bad",
        "sweep bouncing_ball --scheme moreau_jean --h 0.1,100 --out bad",
        "sweep bouncing_ball --scheme moreau_jean --mu 1e3:1e5:3 --out bad",
        "sweep bouncing_ball --scheme paoli --out bad",
        "sweep bouncing_ball --h 1e-3,1e-4 --out bad",
        "limit bouncing_ball --scheme moreau_jean --out bad",
        "limit bouncing_ball --h 0.1 --out bad",
        "run bouncing_ball --set e=0 --sch maury --out bad",
        "run wedge --scheme paoli --set q1=-0.1 --h 0.01 --out bad",
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        expect_input_error(bad[k]);
    CHECK(!exists("bad"), "bad input writes nothing");
}

/* Bad input whose one-line message must contain `says` (and not `not`, if given). */
static void expect_message(const char *args, const char *says, const char *not)
{
    expect_input_error(args);
    char *err = slurp("stderr.txt");
    CHECK(err && strstr(err, says) && !(not && strstr(err, not)), "'penlim %s' says \"%s\"%s%s, got: %s", args, says,
          not ? " and not " : "", not ? not : "", err ? err : "(none)");
    free(err);
}

/* The messages name the problem: the option actually wrong, what is wrong with a number, a repeated
 * option; quoted input is escaped so that every error stays on one line. */
static void test_messages(void)
{
    expect_message("run -ab bouncing_ball --out bad", "unknown option '-ab'", "'run'");
    expect_message("run bouncing_ball -x --out bad", "unknown option '-x'", NULL);
    expect_message("run bouncing_ball --bogus=1 --out bad", "unknown option '--bogus'", NULL);
    expect_message("run bouncing_ball --quiet=1 --out bad", "--quiet takes no value", NULL);
    expect_message("run bouncing_ball --mu --t-end 5 --out bad", "--mu needs a value (got the option '--t-end')", NULL);
    expect_message("run bouncing_ball --out --quiet", "--out needs a value", NULL);
    expect_message("run bouncing_ball --mu 1e-310 --out bad", "'1e-310' is too small", "not a finite");
    expect_message("run bouncing_ball --set h0=-1e-320 --out bad", "'-1e-320' is too small", NULL);
    expect_message("run bouncing_ball --mu 1e999 --out bad", "'1e999' is not a finite number", NULL);
    expect_message("run bouncing_ball --mu ' 5' --out bad", "' 5' has leading or trailing white space", NULL);
    expect_message("run bouncing_ball --mu '5 ' --out bad", "'5 ' has leading or trailing white space", NULL);
    expect_message("run bouncing_ball --t-end ' 1' --out bad", "' 1' has leading", NULL);
    expect_message("run bouncing_ball --samples '10 ' --out bad", "'10 ' has leading", NULL);
    expect_message("run bouncing_ball --samples ' 10' --out bad", "' 10' has leading", NULL);
    expect_message("run bouncing_ball --set 'e= 0.5' --out bad", "' 0.5' has leading", NULL);
    expect_message("sweep bouncing_ball --mu '1e3, 1e4' --out bad", "' 1e4' has leading", NULL);
    expect_message("run bouncing_ball --samples 1.5 --out bad", "'1.5' is not an integer", NULL);
    expect_message("run bouncing_ball --max-steps 1e30 --out bad", "'1e30' is out of range", NULL);
    expect_message("run bouncing_ball --max-steps 0 --out bad", "--max-steps must be >= 1 (got 0)", NULL);
    /* the wedge's m where M's conditioning leaves nothing resolvable: refused with the reason */
    expect_message("run wedge --scheme paoli --set m=0.9999999999999999 --h 0.001 --out bad",
                   "m = 0.9999999999999999 is out of range [-0.999999, 0.999999] (off-diagonal entry of the mass "
                   "matrix; |m| <= 1 - 1e-6, beyond which M's condition number", NULL);
    expect_message("run wedge --mu 1e8 --set m=0.999999999 --out bad", "out of range [-0.999999, 0.999999]", NULL);
    /* a value quoted as given (200), not in the directory names' form (2e2) */
    expect_message("run corner --set angle=200 --out bad", "parameter angle = 200 is out of range (0, 180)", NULL);
    expect_message("run wedge --set m=-0.9999999999999999 --out bad", "out of range [-0.999999, 0.999999]", NULL);
    expect_message("sweep bouncing_ball --max-steps 0 --out bad", "--max-steps must be >= 1", NULL);
    expect_message("run \"$(printf 'bouncing\\nball')\" --out bad", "'bouncing\\nball'", NULL);
    expect_message("run bouncing_ball --scheme \"$(printf 'a\\tb\\001')\" --out bad", "'a\\tb\\x01'", NULL);
    expect_message("run bouncing_ball --set \"$(printf 'e\\r=1')\" --out bad", "e\\r", NULL);
    expect_message("run bouncing_ball --mu \"$(printf '1\\nx')\" --out bad", "'1\\nx'", NULL);
    expect_message("run bouncing_ball --set e=0.5 --set e=0.6 --out bad", "--set e given twice", NULL);
    expect_message("run bouncing_ball --mu 1e6 --mu 1e7 --out bad", "--mu given twice", NULL);
    expect_message("run bouncing_ball --mu=1e6 --mu 1e7 --out bad", "--mu given twice", NULL);
    expect_message("run bouncing_ball --t-end 1 --t-end 2 --out bad", "--t-end given twice", NULL);
    expect_message("limit bouncing_ball --rtol 1e-9 --rtol 1e-10 --out bad", "--rtol given twice", NULL);
    expect_message("sweep bouncing_ball --mu 1e3,1e4 --mu 1e5 --out bad", "--mu given twice", NULL);
    expect_message("run bouncing_ball --out bad --out bad2", "--out given twice", NULL);
    expect_message("--version x", "--version takes no arguments", NULL);
    expect_message("--help x", "--help takes no arguments", NULL);
    expect_message("-h x", "-h takes no arguments", NULL);
    expect_message("cases --help x", "--help takes no other arguments", NULL);
    expect_message("run --help x", "--help takes no other arguments", NULL);
    expect_message("run bouncing_ball --help", "--help takes no other arguments", NULL);
    CHECK(!exists("bad") && !exists("bad2"), "bad input writes nothing");
    /* Still accepted: a repeated flag, --set of distinct names, -h, counts written as 5e6. */
    CHECK(run("run bouncing_ball --mu 1e6 --t-end 0.5 --samples 1e2 --max-steps 5e6 --set e=0.5 --set h0=2 "
              "--quiet --quiet --out ok") == 0,
          "repeated flag, distinct --set names, counts in exponent form");
    const char *help[] = {"run -h", "sweep -h", "limit -h", "cases -h", "-h"};
    for (size_t k = 0; k < sizeof help / sizeof help[0]; k++)
        CHECK(run(help[k]) == 0, "'penlim %s' exits 0", help[k]);
}

/* Each command's --help names exactly the options its parser takes (no more, no fewer), and the
 * ranges and files the program uses. */
static void test_help_matches_parser(void)
{
    const struct {
        const char *cmd;
        unsigned bit;
    } cmds[] = {{"run", CMD_RUN}, {"sweep", CMD_SWEEP}, {"limit", CMD_LIMIT}};
    for (size_t c = 0; c < 3; c++) {
        char args[64];
        snprintf(args, sizeof args, "%s --help", cmds[c].cmd);
        CHECK(run(args) == 0, "%s", args);
        char *out = slurp("stdout.txt");
        if (!out)
            continue;
        const char *name;
        unsigned commands;
        for (size_t k = 0; cli_option_at(k, &name, &commands); k++) {
            if (strcmp(name, "help") == 0)
                continue;
            char opt[64];
            snprintf(opt, sizeof opt, "--%s", name);
            int found = 0;
            for (const char *p = strstr(out, opt); p && !found; p = strstr(p + 1, opt)) {
                char next = p[strlen(opt)];
                found = !(next == '-' || (next >= 'a' && next <= 'z'));
            }
            CHECK(found == !!(commands & cmds[c].bit), "'penlim %s' %s %s", args,
                  commands & cmds[c].bit ? "lists" : "does not list", opt);
        }
        for (const char *p = strstr(out, "--"); p; p = strstr(p + 2, "--")) {
            size_t len = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-");
            int known = len == 0;
            for (size_t k = 0; !known && cli_option_at(k, &name, &commands); k++)
                known = strlen(name) == len && strncmp(name, p + 2, len) == 0 && (commands & cmds[c].bit);
            CHECK(known, "'penlim %s' mentions --%.*s, which it does not take", args, (int)len, p + 2);
        }
        if (cmds[c].bit != CMD_RUN || strstr(out, "rtol"))
            CHECK(strstr(out, "[1e-14, 1)") != NULL || cmds[c].bit == CMD_SWEEP, "'%s': rtol range [1e-14, 1)", args);
        CHECK(strstr(out, "manifest.json") != NULL, "'%s' names manifest.json", args);
        free(out);
    }
}

static json_t *load_json(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    CHECK(j != NULL, "%s parses: %s", name, e.text);
    return j;
}

/* Run ARGS: its summary names every file of DIR's manifest (those of runs/ and limit/ by folder). */
static void summary_lists(const char *args, const char *dir)
{
    CHECK(run(args) == 0, "%s", args);
    char *out = slurp("stdout.txt"), path[512];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    json_t *m = load_json(path);
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(m, "files"), i, f) {
        char name[256];
        snprintf(name, sizeof name, "%s", json_string_value(f) ? json_string_value(f) : "");
        char *slash = strchr(name, '/');
        if (slash)
            slash[1] = '\0'; /* runs/, limit/ */
        CHECK(out && strstr(out, name), "'%s': the summary lists %s", args, name);
    }
    CHECK(out && strstr(out, "manifest.json"), "'%s': the summary lists manifest.json", args);
    json_decref(m);
    free(out);
}

/* The summary lists every file a command wrote (its manifest's files); run's default directory
 * names the solver and its parameter, so runs at other values do not overwrite each other. */
static void test_summaries_and_default_dirs(void)
{
    CHECK(run("run bouncing_ball --mu 1e6 --t-end 0.5") == 0, "run into the default directory");
    CHECK(run("run bouncing_ball --mu 1e7 --t-end 0.5") == 0, "another mu");
    CHECK(exists("out/run/bouncing_ball/penalty_mu_1e6/summary.json") &&
              exists("out/run/bouncing_ball/penalty_mu_1e7/summary.json"),
          "out/run/CASE/penalty_mu_VALUE, one per mu");
    /* --samples 0: every step stored, t = 0.001 and 0.003 among them */
    CHECK(run("run bouncing_ball --scheme moreau_jean --h 0.001 --t-end 0.5 --samples 0") == 0,
          "scheme into the default directory");
    CHECK(exists("out/run/bouncing_ball/moreau_jean_h_0.001/trajectory.csv"), "out/run/CASE/moreau_jean_h_0.001");
    /* numbers as written, not their binary neighbourhood (0.001000000000000000021, 0.0030000000000000001) */
    char *js = slurp("out/run/bouncing_ball/moreau_jean_h_0.001/summary.json");
    CHECK(js && strstr(js, "\"h\": 0.001,") && !strstr(js, "0.0010000000000000000"), "summary.json: h = 0.001, no noise");
    free(js);
    char *tr = slurp("out/run/bouncing_ball/moreau_jean_h_0.001/trajectory.csv");
    CHECK(tr && strstr(tr, "\n0.001,") && strstr(tr, "\n0.003,"), "trajectory.csv: t = 0.001, 0.003");
    free(tr);
    CHECK(run("limit bouncing_ball --t-end 0.5") == 0 && exists("out/limit/bouncing_ball/summary.json"),
          "out/limit/CASE");
    summary_lists("run bouncing_ball --mu 1e7 --t-end 0.5", "out/run/bouncing_ball/penalty_mu_1e7");
    summary_lists("limit bouncing_ball --t-end 0.5", "out/limit/bouncing_ball");
    summary_lists("sweep bouncing_ball --mu 1e3:1e5:3 --t-end 2 --out sumsw --jobs 2", "sumsw");
    char *csv = slurp("sumsw/sweep.csv");
    CHECK(csv && strstr(csv, "\n1e3,ok") && strstr(csv, "\n1e4,ok") && strstr(csv, "\n1e5,ok") &&
              exists("sumsw/runs/001_mu_1e3") && exists("sumsw/runs/003_mu_1e5"),
          "sweep.csv: mu = 1e3, 1e4, 1e5 exactly, as the directories say");
    free(csv);
    char *out = slurp("stdout.txt");
    CHECK(out && strstr(out, "values of mu from 1e3 to 1e5") && strstr(out, "runs/ (3 runs"), "sweep summary: %s",
          out ? out : "");
    free(out);
}

static void test_help(void)
{
    CHECK(run("--version") == 0, "--version");
    char *out = slurp("stdout.txt");
    CHECK(out && strncmp(out, "penlim ", 7) == 0, "--version prints the version");
    free(out);
    const char *help[] = {"--help", "run --help", "cases --help"};
    for (size_t k = 0; k < 3; k++) {
        CHECK(run(help[k]) == 0, "'penlim %s' exits 0", help[k]);
        out = slurp("stdout.txt");
        CHECK(out && strstr(out, "usage"), "'penlim %s' prints usage", help[k]);
        free(out);
    }
    CHECK(run("cases") == 0, "cases");
    out = slurp("stdout.txt");
    CHECK(out && strstr(out, "bouncing_ball") && strstr(out, "vibrating_table") && strstr(out, "wedge"),
          "cases lists the three cases");
    free(out);
}

static void test_run_files(void)
{
    CHECK(run("run bouncing_ball --mu 1e6 --t-end 2 --out ball --quiet") == 0, "run succeeds");
    char *out = slurp("stdout.txt");
    CHECK(out && out[0] == '\0', "--quiet prints nothing");
    free(out);
    char *csv = slurp("ball/trajectory.csv");
    CHECK(csv && strncmp(csv, "t,gamma,q1,v1,G1,force1\n", 24) == 0, "CSV header");
    CHECK(count_lines(csv) > 100, "CSV has the steps (%d lines)", count_lines(csv));
    free(csv);
    json_t *j = load_json("ball/summary.json");
    if (j) {
        CHECK(strcmp(json_string_value(json_object_get(j, "case")), "bouncing_ball") == 0, "case");
        CHECK(json_real_value(json_object_get(j, "mu")) == 1e6, "mu");
        CHECK(strcmp(json_string_value(json_object_get(j, "status")), "ok") == 0, "status ok");
        CHECK(json_real_value(json_object_get(json_object_get(j, "parameters"), "e")) == 0.9, "parameters");
        json_t *st = json_object_get(j, "stats");
        const char *stats[] = {"steps", "rhs_evals", "jac_evals", "root_evals", "wall_seconds"};
        for (int k = 0; k < 5; k++)
            CHECK(json_object_get(st, stats[k]) != NULL, "stats.%s", stats[k]);
        /* the ball's state: q, v, Gamma and its one constraint's impulse; no neighbour list */
        CHECK(json_integer_value(json_object_get(st, "state_size")) == 4 &&
                  json_integer_value(json_object_get(st, "neighbour_rebuilds")) == 0 &&
                  json_integer_value(json_object_get(st, "gap_evals")) >= json_integer_value(json_object_get(st, "steps")),
              "stats.state_size, neighbour_rebuilds, gap_evals");
        json_t *eps = json_object_get(j, "episodes");
        CHECK(json_array_size(eps) >= 2, "episodes (%zu)", json_array_size(eps));
        const char *keys[] = {"constraint", "t_in", "t_out", "gdot_in", "gdot_out", "restitution",
                              "max_penetration", "delta_gamma", "impulse"};
        for (int k = 0; k < 9; k++)
            CHECK(json_object_get(json_array_get(eps, 0), keys[k]) != NULL, "episode.%s", keys[k]);
        json_t *fin = json_object_get(j, "final");
        CHECK(json_real_value(json_object_get(fin, "t")) == 2.0, "final.t");
        CHECK(json_array_size(json_object_get(fin, "q")) == 1 && json_array_size(json_object_get(fin, "v")) == 1,
              "final q, v");
        json_decref(j);
    }
    /* The counters of the work against the bodies: 12 disks in a box (114 constraints) are solved over a
     * neighbour list, by the penalty (a state of 2n + 1 = 49 and the impulses' slots, at least 16 above
     * 100 constraints, fewer than one per constraint) and by the limit solution (its largest fast system:
     * 2 per constraint taking part, at least one, and n + 1 = 25). */
    const char *many[] = {"run spheres --set config=3 --set N=12 --mu 1e6 --t-end 0.3 --samples 0 --out many --quiet",
                          "limit spheres --set config=3 --set N=12 --t-end 0.3 --samples 0 --out many --quiet"};
    for (int k = 0; k < 2; k++) {
        CHECK(run(many[k]) == 0, "%s", many[k]);
        json_t *mj = load_json("many/summary.json");
        json_t *st = mj ? json_object_get(mj, "stats") : NULL;
        json_int_t steps = json_integer_value(json_object_get(st, "steps")),
                   gaps = json_integer_value(json_object_get(st, "gap_evals")),
                   rebuilds = json_integer_value(json_object_get(st, "neighbour_rebuilds")),
                   size = json_integer_value(json_object_get(st, "state_size"));
        CHECK(steps > 0 && gaps >= steps && rebuilds >= 1 && size >= (k == 0 ? 49 : 27) && size < 49 + 2 * 114,
              "%s: stats %lld steps, %lld gaps, %lld rebuilds, state %lld", many[k], (long long)steps, (long long)gaps,
              (long long)rebuilds, (long long)size);
        json_decref(mj);
    }
    CHECK(run("run wedge --out wedge --quiet") == 0, "wedge run");
    csv = slurp("wedge/trajectory.csv");
    CHECK(csv && strncmp(csv, "t,gamma,q1,q2,v1,v2,G1,G2,force1,force2\n", 40) == 0, "wedge CSV header");
    free(csv);
    /* Re-running into the same directory replaces the files; no temporary files remain. */
    CHECK(run("run bouncing_ball --mu 1e4 --t-end 1 --out ball --quiet") == 0, "re-run");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "test $(ls %s/ball | wc -l) -eq 4 && test -f %s/ball/manifest.json", dir, dir);
    CHECK(system(cmd) == 0, "only the three output files and the manifest in the directory");
    char *ts = slurp("ball/trajectory_s.csv");
    CHECK(ts && strncmp(ts, "s,t,q1,v1\n", 10) == 0, "trajectory in s: header");
    free(ts);
}

static void test_sweep(void)
{
    int rc = run("sweep bouncing_ball --mu 1e3,1e30 --out sw_refused --quiet");
    CHECK(rc == 2, "a sweep beyond the resolvable range is refused up front (got %d)", rc);
    char *err = slurp("stderr.txt");
    CHECK(err && strstr(err, "mu = 1e30 is beyond") && strstr(err, "the largest mu for this case and t-end is 1.2e22") &&
              count_lines(err) == 1,
          "naming the largest mu: %s", err ? err : "");
    free(err);
    /* the largest quoted is one the user may give back (rounded down: 1.21e22 is refused) */
    rc = run("run bouncing_ball --mu 1.2e22 --max-steps 10 --out sw_largest --quiet");
    err = slurp("stderr.txt");
    CHECK(rc == 3 && err && strstr(err, "stopped after 10 steps"), "the quoted largest mu is accepted (%d): %s", rc,
          err ? err : "");
    free(err);
    CHECK(run("run bouncing_ball --mu 1.21e22 --out sw_largest --quiet") == 2, "1.21e22 is beyond it");
    CHECK(access("sw_refused/sweep.csv", F_OK) != 0, "nothing written");
    rc = run("sweep vibrating_table --mu 1e3,1e4,1e5,1e16 --t-end 3 --jobs 2 --out sw --quiet");
    CHECK(rc == 3, "a sweep with a failed run exits 3 (got %d)", rc);
    err = slurp("stderr.txt");
    CHECK(err && strstr(err, "mu = 1e16 failed") && strstr(err, "penetration scale") && count_lines(err) == 1,
          "the failure is reported: %s", err ? err : "");
    free(err);
    char *csv = slurp("sw/sweep.csv");
    const char *cols[] = {"mu", "status", "episodes", "impacts", "capture_time", "restitution_first",
                          "scaled_penetration_first", "sliding_force_error", "steps", "rhs_evals", "wall_seconds"};
    for (int k = 0; k < 11; k++)
        CHECK(csv && strstr(csv, cols[k]), "sweep.csv has %s", cols[k]);
    CHECK(count_lines(csv) == 5, "one row per mu");
    CHECK(csv && strstr(csv, ",failed,") && strstr(csv, ",ok,"), "statuses");
    free(csv);
    char *eps = slurp("sw/episodes.csv");
    CHECK(eps && strncmp(eps, "mu,episode,constraint,kind", 26) == 0 && strstr(eps, ",impact,") &&
              strstr(eps, ",sustained,"),
          "episodes.csv with both kinds");
    free(eps);
    json_t *j = load_json("sw/sweep.json");
    if (j) {
        json_t *r = json_object_get(json_object_get(j, "convergence"), "restitution_first");
        /* three runs ok: too few for a rate worth reading, so null (PL_FIT_MIN_POINTS) */
        CHECK(json_is_null(json_object_get(r, "rate")) && json_is_null(json_object_get(r, "rate_se")) &&
                  json_integer_value(json_object_get(r, "points")) == 3 && json_is_null(json_object_get(r, "converges")),
              "no rate from 3 points, and no verdict on convergence");
        CHECK(strcmp(json_string_value(json_object_get(r, "reference")), "closed form") == 0, "reference");
        json_t *runs = json_object_get(j, "runs");
        CHECK(json_array_size(runs) == 4, "four runs");
        CHECK(json_object_get(json_array_get(runs, 3), "error") != NULL, "the failed run carries its reason");
        json_decref(j);
    }
    CHECK(exists("sw/runs/002_mu_1e4/trajectory.csv") && exists("sw/runs/002_mu_1e4/trajectory_s.csv") &&
              exists("sw/runs/002_mu_1e4/summary.json"),
          "each run's files");
    /* close values of mu get their own directories, named by the numbers as written */
    CHECK(run("sweep bouncing_ball --mu 1e6,1.0001e6,1.0002e6 --t-end 1 --out close --no-plots --no-limit --quiet") == 0,
          "close values of mu");
    CHECK(exists("close/runs/001_mu_1e6") && exists("close/runs/002_mu_1000100") && exists("close/runs/003_mu_1000200"),
          "three directories");
    CHECK(exists("sw/convergence.csv") && exists("sw/zeno.csv") && exists("sw/sliding.csv"), "plot data");
    /* Plots, and a clear warning when gnuplot is missing (data still written, exit 0). */
    rc = run("sweep bouncing_ball --mu 1e3,1e4,1e5,1e6 --out plots --quiet");
    CHECK(rc == 0, "sweep with plots");
    CHECK(exists("plots/trajectories.png") && exists("plots/trajectories_s.png") && exists("plots/convergence.png") &&
              exists("plots/zeno.png") && exists("plots/sliding.png") && exists("plots/convergence.gp"),
          "the PNGs and their scripts");
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd %s && PATH=/nonexistent %s sweep bouncing_ball --mu 1e3,1e4,1e5 --t-end 3 --out noplot --quiet "
             "> stdout.txt 2> stderr.txt",
             dir, penlim);
    CHECK(system(cmd) == 0, "no gnuplot: still exit 0");
    err = slurp("stderr.txt");
    CHECK(err && strstr(err, "warning: plots skipped") && count_lines(err) == 1, "one warning line: %s",
          err ? err : "");
    free(err);
    CHECK(exists("noplot/sweep.json") && !exists("noplot/convergence.png"), "data without plots");
}

static void test_limit(void)
{
    CHECK(run("limit bouncing_ball --out lim --quiet") == 0, "limit command");
    json_t *j = load_json("lim/summary.json");
    if (j) {
        json_t *z = json_object_get(j, "zeno");
        CHECK(json_is_object(z) && fabs(json_real_value(json_object_get(z, "t_accumulation")) - 8.578949178728887) < 1e-9,
              "zeno.t_accumulation");
        CHECK(json_integer_value(json_object_get(z, "impacts_resolved")) > 10, "zeno.impacts_resolved");
        json_t *ev = json_object_get(j, "events");
        json_t *first = json_array_get(ev, 0);
        CHECK(strcmp(json_string_value(json_object_get(first, "kind")), "impact") == 0, "events[0] is an impact");
        const char *keys[] = {"t", "constraint", "q", "v_before", "v_after", "delta_gamma"};
        for (int k = 0; k < 6; k++)
            CHECK(json_object_get(first, keys[k]) != NULL, "event.%s", keys[k]);
        json_decref(j);
    }
    char *csv = slurp("lim/trajectory.csv");
    CHECK(csv && strncmp(csv, "t,gamma,q1,v1,G1,force1\n", 24) == 0, "limit trajectory header");
    free(csv);
    CHECK(exists("lim/trajectory_s.csv"), "limit trajectory in s");
    expect_input_error("limit wedge --set q1=-1 --out badlim");
    expect_input_error("limit wedge --mu 1e8 --out badlim");
    /* a sweep measures its runs against the limit solution: refused where limit and compare refuse */
    expect_message("sweep wedge --set q1=-1 --no-plots --out badlim",
                   "violates constraint 1 (G = -1 < 0): the limit solution starts from an admissible state "
                   "(--no-limit sweeps without it)", NULL);
    expect_input_error("compare wedge --set q1=-1 --no-plots --out badlim");
    CHECK(!exists("badlim"), "nothing written on bad input");
    CHECK(run("sweep bouncing_ball --mu 1e4,1e5,1e6 --out swl --no-plots --quiet") == 0, "sweep with the limit");
    CHECK(exists("swl/limit/trajectory.csv") && exists("swl/impact_errors.csv"), "limit files of the sweep");
    char *s = slurp("swl/sweep.csv");
    CHECK(s && strstr(s, ",sup_q,") && strstr(s, "impact_time_error"), "distances to the limit in sweep.csv");
    free(s);
}

/* Radii that outgrow the box before t-end (T5 at rdot = 1: 2 r(t) = H = 4 at t = 1.75): bad input for
 * every command, one line naming the time, nothing written (the penalty once reported ok, the limit
 * solution and the schemes failed at 1.75); up to t-end = 1.7 the run is accepted. */
static void test_outgrown_box(void)
{
    const char *cmds[] = {"run", "run --scheme maury", "limit", "sweep --no-plots", "compare --no-plots"};
    for (int k = 0; k < 5; k++) {
        char args[256];
        snprintf(args, sizeof args, "%s spheres --set config=2 --set rdot=1 --out grown", cmds[k]);
        int rc = run(args);
        char *err = slurp("stderr.txt");
        CHECK(rc == 2 && err && strstr(err, "no longer fit in the 8 x 4 box after t = 1.75") &&
                  strstr(err, "t-end = 4 lies beyond: lower it to 1.75") && count_lines(err) == 1,
              "'%s': refused, naming t = 1.75 (%d: %s)", args, rc, err ? err : "");
        free(err);
        CHECK(!exists("grown"), "'%s': nothing written", args);
    }
    CHECK(run("run spheres --set config=2 --set rdot=1 --t-end 1.7 --out grown --quiet") == 0,
          "up to t-end 1.7 the growing pair runs");
}

/* An impact at t-end (its closed-form time): disk 2 of spheres (m1 = 2, e = 0.5) reaches the wall at t = 4
 * (test_spheres), the ball from h0 = 70.2625 with v0 = 1 under g = 10 lands at (1 + 37.5)/10 = 3.85
 * (test_limit).  Each command ends at t-end with status ok and its files (it once failed with "step size
 * too small": the impact was located a few ulps before t-end). */
static void test_impact_at_t_end(void)
{
    const char *cmds[] = {"limit spheres --set m1=2 --set e=0.5 --out end1",
                          "run spheres --set m1=2 --set e=0.5 --out end2",
                          "limit bouncing_ball --set g=10 --set v0=1 --set h0=70.2625 --t-end 3.85 --out end3",
                          "run bouncing_ball --set g=10 --set v0=1 --set h0=70.2625 --t-end 3.85 --out end4"};
    for (int k = 0; k < 4; k++) {
        int rc = run(cmds[k]);
        char *err = slurp("stderr.txt");
        CHECK(rc == 0 && err && !*err, "'%s': exit 0 (%d: %s)", cmds[k], rc, err ? err : "");
        free(err);
        char name[64];
        snprintf(name, sizeof name, "end%d/summary.json", k + 1);
        json_t *j = load_json(name);
        CHECK(j && strcmp(json_string_value(json_object_get(j, "status")), "ok") == 0, "%s: status ok", name);
        json_decref(j);
        snprintf(name, sizeof name, "end%d/trajectory.csv", k + 1);
        CHECK(exists(name), "%s written", name);
    }
}

/* An accumulation point past t-end (the ball of test_limit: g = 10, h0 = 5, e = 0.5, impacts
 * accumulating at t = 3): the limit solution of limit, sweep and compare ends at t-end 2.999999, no
 * event after it (it once ended at t = 3.0000000000000444 with its zeno and slide_start events). */
static void test_zeno_past_t_end(void)
{
    const char *cmds[] = {"limit", "sweep --mu 1e4,1e5 --no-plots", "compare --mu 1e4 --no-plots"};
    const char *files[] = {"zend1/summary.json", "zend2/limit/summary.json", "zend3/limit/summary.json"};
    for (int k = 0; k < 3; k++) {
        char args[256];
        snprintf(args, sizeof args, "%s bouncing_ball --set g=10 --set h0=5 --set e=0.5 --t-end 2.999999 --quiet "
                 "--out zend%d", cmds[k], k + 1);
        CHECK(run(args) == 0, "'%s': exit 0", args);
        json_t *j = load_json(files[k]);
        json_t *events = json_object_get(j, "events");
        double t = json_number_value(json_object_get(json_object_get(j, "final"), "t")), latest = 0.0;
        for (size_t e = 0; e < json_array_size(events); e++)
            latest = fmax(latest, json_number_value(json_object_get(json_array_get(events, e), "t")));
        CHECK(j && t == 2.999999 && latest == 2.999999, "%s: final t %.17g and last event %.17g at t-end 2.999999",
              files[k], t, latest);
        json_decref(j);
    }
}

static void test_schemes(void)
{
    CHECK(run("run bouncing_ball --scheme moreau_jean --h 0.01 --t-end 2 --out mj --quiet") == 0, "scheme run");
    char *csv = slurp("mj/trajectory.csv");
    CHECK(csv && strncmp(csv, "t,gamma,q1,v1,G1,impulse1\n", 26) == 0, "scheme CSV header");
    CHECK(count_lines(csv) == 202, "a row per step (%d lines)", count_lines(csv));
    free(csv);
    json_t *j = load_json("mj/summary.json");
    if (j) {
        CHECK(strcmp(json_string_value(json_object_get(j, "solution")), "moreau_jean") == 0, "solution");
        CHECK(json_real_value(json_object_get(j, "h")) == 0.01 && json_real_value(json_object_get(j, "theta")) == 0.5 &&
                  json_real_value(json_object_get(j, "gamma")) == 0.5,
              "h and the scheme's options");
        json_t *st = json_object_get(j, "stats");
        const char *stats[] = {"steps", "lcp_solves", "lcp_iterations", "rhs_evals", "wall_seconds"};
        for (int k = 0; k < 5; k++)
            CHECK(json_object_get(st, stats[k]) != NULL, "stats.%s", stats[k]);
        CHECK(json_integer_value(json_object_get(st, "steps")) == 200, "200 steps");
        json_t *first = json_array_get(json_object_get(j, "events"), 0);
        CHECK(first && strcmp(json_string_value(json_object_get(first, "kind")), "impact") == 0 &&
                  json_object_get(first, "v_before") && json_object_get(first, "v_after"),
              "impact events with their velocities");
        json_t *an = json_object_get(j, "analysis");
        CHECK(fabs(json_real_value(json_object_get(an, "first_impact_time")) - sqrt(2 / 9.81)) < 0.02 &&
                  fabs(json_real_value(json_object_get(an, "restitution_first")) - 0.9) < 1e-9,
              "analysis: first impact and its restitution");
        json_decref(j);
    }
    CHECK(run("sweep bouncing_ball --scheme maury --set e=0 --h 3e-2,1e-2,1e-3,1e-4 --t-end 2 --out swm --no-plots "
              "--quiet") == 0,
          "scheme sweep");
    csv = slurp("swm/sweep.csv");
    CHECK(csv && strncmp(csv, "h,status,", 9) == 0 && count_lines(csv) == 5, "sweep.csv by h");
    free(csv);
    CHECK(exists("swm/runs/002_h_0.01/summary.json") && exists("swm/runs/004_h_0.0001/trajectory.csv") &&
              exists("swm/limit/summary.json"),
          "run directories by h, coarsest first, and the limit");
    j = load_json("swm/sweep.json");
    if (j) {
        CHECK(strcmp(json_string_value(json_object_get(j, "refined")), "h") == 0 &&
                  json_array_size(json_object_get(j, "h")) == 4,
              "sweep.json: refined h");
        json_t *c = json_object_get(json_object_get(j, "convergence"), "first_impact_time");
        CHECK(json_is_real(json_object_get(c, "rate")), "a fitted rate in h");
        json_decref(j);
    }
    /* A lift-off whose delay is within its resolution (the table at mu = 1e12: 3.9e-7 s after the limit's,
     * an ulp of its position over the rate 2.7e-11 at which G leaves 0 is 3.6e-6) is at the noise floor,
     * and with 3 values left the rate is n/a and says why. */
    CHECK(run("sweep vibrating_table --set g=7.2 --set A=0.35 --set omega=5.5 --set e=0.45 --set k=1.6 --t-end 0.3 "
              "--mu 1e9:1e12:4 --no-limit --no-plots --out swd") == 0,
          "table sweep");
    char *out = slurp("stdout.txt");
    CHECK(out && strstr(out, "lift_off_first             rate n/a: 3 values above the noise floors (1 within its "
                             "round-off resolution, left out), a fit needs 4"),
          "the table says why the rate is n/a, and which floor");
    free(out);
    j = load_json("swd/sweep.json");
    if (j) {
        json_t *c = json_object_get(json_object_get(j, "convergence"), "lift_off_first");
        json_t *res = json_object_get(c, "resolution"), *e = json_object_get(c, "errors");
        CHECK(json_is_null(json_object_get(c, "rate")) && json_integer_value(json_object_get(c, "at_noise_floor_count")) == 1 &&
                  strstr(json_string_value(json_object_get(c, "rate_note")), "round-off resolution") &&
                  strcmp(json_string_value(json_object_get(c, "noise_floor_note")), "1 within its round-off resolution") ==
                      0 &&
                  json_array_size(res) == 4 &&
                  fabs(json_real_value(json_array_get(e, 3))) <= json_real_value(json_array_get(res, 3)) &&
                  json_real_value(json_array_get(e, 2)) > 2.0 * json_real_value(json_array_get(res, 2)),
              "sweep.json: the resolution per mu, the count at the floor and the note");
        json_decref(j);
    }
    char *eps = slurp("swd/episodes.csv");
    CHECK(eps && strstr(eps, "lift_off_predicted,t_in_resolution,t_out_resolution\n"), "episodes.csv: the resolutions");
    free(eps);
    /* The table's first landing (default parameters, rtol 1e-8): its error falls like 1/mu from mu =
     * 1e6 on (1.2e-5 there, 1.2e-8 at 1e9), a thousand times its round-off resolution (1e-15) and more.
     * Those below the integration's tolerance floor (10 rtol of the time, 8.3e-8) are left out as
     * such: the notes say so, never "round-off". */
    CHECK(run("sweep vibrating_table --mu 1e5:1e9:5 --no-plots --out swt") == 0, "table sweep");
    out = slurp("stdout.txt");
    const char *line = out ? strstr(out, "  first_impact_time ") : NULL;
    const char *eol = line ? strchr(line, '\n') : NULL;
    char first[512] = "";
    if (line && eol && (size_t)(eol - line) < sizeof first)
        memcpy(first, line, (size_t)(eol - line));
    CHECK(strstr(first, "within the integration's tolerance") && !strstr(first, "round-off"),
          "the table names the integration's tolerance floor: %s", first);
    free(out);
    j = load_json("swt/sweep.json");
    if (j) {
        json_t *c = json_object_get(json_object_get(j, "convergence"), "first_impact_time");
        json_t *res = json_object_get(c, "resolution"), *e = json_object_get(c, "errors"), *v = json_object_get(c, "values");
        size_t below = 0, clean = 0;
        for (size_t k = 0; k < json_array_size(e); k++) {
            double err = fabs(json_real_value(json_array_get(e, k)));
            below += err <= 10.0 * 1e-8 * fabs(json_real_value(json_array_get(v, k)));
            clean += err > 1e3 * json_real_value(json_array_get(res, k));
        }
        const char *note = json_string_value(json_object_get(c, "noise_floor_note"));
        CHECK(below >= 1 && clean == json_array_size(e) &&
                  json_integer_value(json_object_get(c, "at_noise_floor_count")) == (json_int_t)below && note &&
                  strstr(note, "within the integration's tolerance") && !strstr(note, "round-off"),
              "sweep.json: %zu errors below 10 rtol of the time, every one far above its resolution, noted as the "
              "integration's tolerance (%s)", below, note ? note : "no note");
        json_decref(j);
    }
}

/* What a busy machine may add to a time budget: the budget is checked once per step (or row of the
 * analysis), then the command writes what it has.  A budget that is not kept shows as minutes. */
#define BUDGET_MARGIN 10.0

/* Every run ends: horizons beyond double precision are refused up front (they once ran forever),
 * and a wall-clock budget ends a run as a failure with its results up to there. */
static void test_limits(void)
{
    const char *refused[] = {"run wedge --t-end 1e160", "run bouncing_ball --set g=0 --set v0=-1 --t-end 1e200",
                             "sweep wedge --t-end 1e200", "run bouncing_ball --t-end 1e12",
                             "run bouncing_ball --mu 1e26", "run wedge --mu 1e30"};
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "%s --out refused", refused[k]);
        int rc = run(cmd);
        char *err = slurp("stderr.txt");
        CHECK(rc == 2 && err && strstr(err, "beyond what double precision resolves") && count_lines(err) == 1,
              "'%s' refused (%d: %s)", refused[k], rc, err ? err : "");
        free(err);
    }
    CHECK(!exists("refused"), "nothing written");
    /* t-end 1e12 at mu = 1e8: contacts of 1e-4 s are below 4096 ulps of t beyond t ~ 1e8 */
    CHECK(run("run bouncing_ball --t-end 1e12 --mu 1 --samples 0 --quiet --out long") == 0,
          "the horizon works at the largest mu named (1.21)");
    /* The limit solution of the table over long horizons, where the table's position is known only to
     * ~|G_t| eps t (it once lost a landing at t ~ 576, then at 1316, 2394 and 2790). */
    CHECK(run("limit vibrating_table --t-end 3000 --samples 0 --quiet --out long_limit") == 0,
          "the limit solution reaches t = 3000 on the vibrating table");
    double t0 = now();
    int rc = run("run bouncing_ball --set e=1 --mu 1e4 --t-end 1e5 --samples 0 --max-seconds 0.2 --out budget");
    double wall = now() - t0;
    char *err = slurp("stderr.txt");
    /* The files then have the budget again from the start of their writing; on a machine slower than the
     * solve's estimate of the writing (PL_WRITE_SECONDS_PER_NUMBER) a file can still be cut: then a second line names
     * it, it is absent, and the manifest lists the files that are complete. */
    int cut = err && count_lines(err) == 2 && strstr(err, "writing budget/") && strstr(err, "the file is not written");
    CHECK(rc == 3 && err && strstr(err, "stopped after the time budget of 0.2 s (max_seconds) at t = ") &&
              (count_lines(err) == 1 || cut),
          "--max-seconds ends the run as a failure (%d: %s)", rc, err ? err : "");
    CHECK(wall < 2 * 0.2 + BUDGET_MARGIN, "within the budget, that of the writing and the margin (%.1f s; the whole "
          "run takes minutes)", wall);
    CHECK(exists("budget/manifest.json") &&
              (cut ? !exists(strstr(err, "writing budget/summary.json") ? "budget/summary.json" : "budget/trajectory_s.csv")
                   : exists("budget/trajectory.csv") && exists("budget/summary.json")),
          "its results up to there are written, each file complete or absent");
    free(err);
    rc = run("limit bouncing_ball --set e=1 --t-end 1e5 --max-seconds 0.2 --out budget_limit");
    CHECK(rc == 3, "--max-seconds ends a limit solution too (%d)", rc);
    /* A solve stopped by the writing it would leave (PL_WRITE_SECONDS_PER_NUMBER, 1 us a number) says so:
     * 1e7 samples of the ball are 1e8 numbers (10 a row), 100 s of writing against a budget of 5 s, which
     * the solve reaches long before its own 5 s.  The note's numbers (3 digits) agree with the rule that stopped it. */
    rc = run("run bouncing_ball --mu 1e4 --samples 10000000 --max-output 1e8 --max-seconds 5 --out budget_writing");
    err = slurp("stderr.txt");
    double spent = NAN, kept = NAN, numbers = NAN;
    const char *note = err ? strstr(err, "; ") : NULL;
    int parsed = note && sscanf(note, "; %lf s spent, %lf s kept to write the %lf numbers found", &spent, &kept,
                                &numbers) == 3;
    CHECK(rc == 3 && err && strstr(err, "stopped after the time budget of 5 s (max_seconds) at t = ") && parsed &&
              spent <= 5.0 && spent + kept > 5.0 * (1.0 - 5e-3) && fabs(kept - PL_WRITE_SECONDS_PER_NUMBER * numbers) <= 5e-3 * kept,
          "a stop for the writing names the time spent and the time kept for the numbers found (%d: %s)", rc,
          err ? err : "");
    free(err);
    /* The limit solution of a sweep keeps the sweep's caps (it once ran 17 s past --max-seconds 1). */
    t0 = now();
    rc = run("sweep vibrating_table --t-end 1e5 --mu 1e2,2e2 --max-seconds 0.3 --no-plots --jobs 2 --out budget_sweep");
    wall = now() - t0;
    err = slurp("stderr.txt");
    /* the limit solution's budget, then the two runs' side by side */
    CHECK(rc == 3 && wall < 2 * 0.3 + BUDGET_MARGIN && err && strstr(err, "warning: the limit solution failed") &&
              strstr(err, "stopped after the time budget of 0.3 s (max_seconds)"),
          "a sweep's runs and its limit solution stop at --max-seconds (%d, %.1f s: %s)", rc, wall, err ? err : "");
    free(err);
    /* Ordinary runs the resolvability checks must not fail: the gap of a wall far from the origin
     * depends on one coordinate only (q2 = 1e6 once failed), and a heavily overdamped contact (it
     * once took 3e6 Runge-Kutta steps at xi = 1e3). */
    CHECK(run("run wedge --set q2=1e6 --set v2=0 --set e=0.5 --mu 1e10 --samples 0 --quiet --out far") == 0,
          "a contact far from the origin is resolved");
    /* A Zeno sequence into the wedge's corner under a force into it ends in contact with both walls
     * (the second one was not a candidate, and the limit solution stalled at the corner). */
    CHECK(run("limit wedge --set f1=-10 --set f2=-10 --samples 0 --quiet --out corner") == 0,
          "the limit solution rests in the corner");
    CHECK(run("run bouncing_ball --set xi=1e3 --mu 1e8 --samples 0 --quiet --out overdamped") == 0,
          "an overdamped contact settles on BDF");
    json_t *od = load_json("overdamped/summary.json");
    if (od) {
        json_int_t steps = json_integer_value(json_object_get(json_object_get(od, "stats"), "steps"));
        CHECK(steps > 0 && steps < 20000, "in %lld steps", (long long)steps);
        json_decref(od);
    }
    rc = run("run bouncing_ball --max-seconds 0 --out bad");
    CHECK(rc == 2, "--max-seconds 0 is bad input (%d)", rc);
    /* The budget counts from the command's start: a set-up that spends it (100 disks: 5350 constraints
     * checked at the start, 0.2 s, against 1e-4 s) ends the command there, exit 3 and one line, nothing
     * written (it once ran the set-up, the solve and the analysis whatever the budget). */
    const char *cmds[] = {"run", "run --scheme maury", "limit", "sweep --no-plots", "compare --no-plots"};
    for (int k = 0; k < 5; k++) {
        char args[256];
        snprintf(args, sizeof args, "%s spheres --set config=3 --set N=100 --max-seconds 1e-4 --out setup_budget",
                 cmds[k]);
        rc = run(args);
        err = slurp("stderr.txt");
        CHECK(rc == 3 && err && strstr(err, "--max-seconds 0.0001 ran out during the set-up") && count_lines(err) == 1,
              "'%s': the set-up spent the budget (%d: %s)", args, rc, err ? err : "");
        free(err);
        CHECK(!exists("setup_budget"), "'%s': nothing written", args);
    }
}

/* Output and memory: a request beyond the output cap is refused up front, a run that reaches it
 * fails with its results up to there, and running out of memory is a failed run that names its
 * mu and ends (it once hung at exit, in OpenBLAS's thread pool, under ulimit -v). */
static void test_output_cap(void)
{
    int rc = run("run bouncing_ball --samples 10000000 --out cap");
    char *err = slurp("stderr.txt");
    CHECK(rc == 2 && err && strstr(err, "beyond the output cap of 2e+07: raise it with --max-output") &&
              count_lines(err) == 1,
          "--samples 1e7 refused up front (%d: %s)", rc, err ? err : "");
    free(err);
    CHECK(!exists("cap/trajectory.csv"), "nothing written");
    rc = run("run bouncing_ball --samples 31000 --max-output 1.9e5 --out cap2");
    err = slurp("stderr.txt");
    CHECK(rc == 3 && err && strstr(err, "the output reached 31666 rows of 6 values, the cap (--max-output 190000) (mu = 1e8)"),
          "a run that reaches the cap fails (%d: %s)", rc, err ? err : "");
    free(err);
    CHECK(exists("cap2/trajectory.csv"), "with its results up to there");
#ifndef PENLIM_SANITIZE /* the sanitizers reserve more address space than the limit */
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd %s && (ulimit -v 200000; timeout 120 %s run bouncing_ball --samples 3000000 --max-output 1e8 --out oom "
             "> stdout.txt 2> stderr.txt)",
             dir, penlim);
    rc = system(cmd);
    rc = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    err = slurp("stderr.txt");
    CHECK(rc == 3 && err && strstr(err, "out of memory") && strstr(err, "(mu = 1e8)"),
          "out of memory: a failed run naming mu, and it ends (%d: %s)", rc, err ? err : "");
    free(err);
#endif
}

static void test_failures(void)
{
    /* A resting penetration of 3e-15 next to q ~ 0.1 cannot be resolved in double precision. */
    int rc = run("run vibrating_table --mu 1e16 --out fail");
    CHECK(rc == 3, "solver failure exits with 3 (got %d)", rc);
    char *err = slurp("stderr.txt");
    CHECK(err && strstr(err, "penetration scale") && strstr(err, "lower mu") && count_lines(err) == 1,
          "one line naming the reason: %s", err ? err : "");
    free(err);
    json_t *j = load_json("fail/summary.json");
    if (j) {
        CHECK(strcmp(json_string_value(json_object_get(j, "status")), "failed") == 0, "status failed");
        const char *msg = json_string_value(json_object_get(j, "error"));
        CHECK(msg && strstr(msg, "penetration scale") && strstr(msg, "mu = 1e16"), "error carries the reason: %s",
              msg ? msg : "");
        json_t *ep = json_array_get(json_object_get(j, "episodes"), 0);
        CHECK(json_is_null(json_object_get(ep, "t_out")), "the contact open at the failure has no exit");
        json_decref(j);
    }
    CHECK(exists("fail/trajectory.csv"), "the partial trajectory is written");
    rc = run("run bouncing_ball --t-end 0.1 --out /dev/null/x");
    err = slurp("stderr.txt");
    CHECK(rc == 2 && count_lines(err) == 1, "an --out that cannot be created: exit 2 and one line (got %d: %s)", rc,
          err ? err : "");
    free(err);
    rc = run("run bouncing_ball --max-steps 10 --out steps");
    CHECK(rc == 3, "step cap is a solver failure (got %d)", rc);
}

/* ---- figures ---------------------------------------------------------------------------------- */

static int has_gnuplot(void)
{
    return system("command -v gnuplot > /dev/null 2>&1") == 0;
}

static long file_size(const char *name)
{
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void check_figure(const char *sub, const char *name, int gnuplot, int min_entries)
{
    char file[512];
    snprintf(file, sizeof file, "%s/%s.gp", sub, name);
    CHECK(exists(file), "%s written", file);
    snprintf(file, sizeof file, "%s.gp", name);
    CHECK(manifest_lists(sub, file), "%s/manifest.json lists %s", sub, file);
    if (!gnuplot)
        return;
    const char *ext[] = {"png", "pdf"};
    for (int k = 0; k < 2; k++) {
        snprintf(file, sizeof file, "%s/%s.%s", sub, name, ext[k]);
        CHECK(file_size(file) > 0, "%s is written and not empty", file);
        snprintf(file, sizeof file, "%s.%s", name, ext[k]);
        CHECK(manifest_lists(sub, file), "%s/manifest.json lists %s", sub, file);
    }
    check_legend(sub, name, min_entries);
}

static void test_figures(void)
{
    int gnuplot = has_gnuplot();
    char cmd[1024];
    if (!gnuplot)
        fprintf(stderr, "test_cli: gnuplot is not installed: figures are checked without rendering\n");
    /* 12 runs: every figure kind with 12 curves (sliding from the resting table, Zeno from the ball) */
    int rc = run("sweep bouncing_ball --mu 1e2:1e8:12 --t-end 1 --jobs 2 --out fig_ball --quiet");
    CHECK(rc == 0, "sweep of the ball for the figures exits 0 (got %d)", rc);
    rc = run("sweep vibrating_table --mu 1e2:1e10:12 --t-end 0.3 --jobs 2 --out fig_table --quiet");
    CHECK(rc == 0, "sweep of the table for the figures exits 0 (got %d)", rc);
    check_figure("fig_ball", "trajectories", gnuplot, 13);
    check_figure("fig_ball", "trajectories_s", gnuplot, 13);
    check_figure("fig_ball", "convergence", gnuplot, 5);
    check_figure("fig_ball", "zeno", gnuplot, 12);
    check_figure("fig_table", "sliding", gnuplot, 12);
    CHECK(!exists("fig_ball/sliding.gp"), "no sliding figure without sliding");
    char *config = slurp("fig_ball/plots_config.gp");
    CHECK(config && strstr(config, "'mu=1e2 ") && strstr(config, " mu=1e8'"), "labels mu=1e2 ... 1e8: %s",
          config ? config : "(none)");
    free(config);

    /* penlim plot on a sweep, a run (2 dof, 2 constraints) and a limit directory */
    rc = run("plot fig_ball --quiet");
    CHECK(rc == 0, "plot of a sweep exits 0 (got %d)", rc);
    check_figure("fig_ball", "zeno", gnuplot, 12);
    CHECK(manifest_lists("fig_ball", "runs/001_mu_1e2/trajectory.csv"), "plot keeps the sweep's files listed");
    rc = run("run wedge --mu 1e6 --t-end 1.5 --out fig_run --quiet");
    CHECK(rc == 0, "run of the wedge exits 0 (got %d)", rc);
    rc = run("plot fig_run");
    CHECK(rc == 0, "plot of a run exits 0 (got %d)", rc);
    check_figure("fig_run", "run", gnuplot, 1);
    config = slurp("fig_run/plots_config.gp");
    CHECK(config && strstr(config, "ndof = 2") && strstr(config, "ncon = 2") && strstr(config, "label = 'mu=1e6'"),
          "the run's figure has every dof and constraint: %s", config ? config : "(none)");
    free(config);
    CHECK(manifest_lists("fig_run", "summary.json"), "plot keeps the run's files listed");
    rc = run("limit bouncing_ball --t-end 2 --out fig_limit --quiet");
    CHECK(rc == 0, "limit exits 0 (got %d)", rc);
    rc = run("plot fig_limit --quiet");
    CHECK(rc == 0, "plot of a limit exits 0 (got %d)", rc);
    check_figure("fig_limit", "run", gnuplot, 1);

    /* compare with 12 solutions (6 mu, 6 h of 4 digits, the longest labels): its three figures, then
     * again by penlim plot */
    rc = run("compare bouncing_ball --t-end 1 --mu 1e3 --mu 3e3 --mu 1e4 --mu 3e4 --mu 1e5 --mu 1e6 --scheme moreau_jean "
             "--h 0.04462 --h 0.02231 --h 0.01116 --h 0.004462 --h 0.002231 --h 0.001116 --out fig_cmp --quiet");
    CHECK(rc == 0, "compare of the ball for the figures exits 0 (got %d)", rc);
    check_figure("fig_cmp", "compare_trajectories", gnuplot, 13);
    check_figure("fig_cmp", "compare_trajectories_s", gnuplot, 13);
    check_figure("fig_cmp", "compare_work", gnuplot, 2);
    config = slurp("fig_cmp/compare_config.gp");
    CHECK(config && strstr(config, "penalty_mu=1e3 ") && strstr(config, "moreau_jean_h=0.04462 ") &&
              strstr(config, "ncon = 1") && strstr(config, "families = 'penalty moreau_jean'"),
          "compare labels mu=1e3, h=0.04462 (as compare.csv writes them), one constraint, two families: %s", config ? config : "(none)");
    free(config);
    snprintf(cmd, sizeof cmd, "cd %s/fig_cmp && rm -f compare_trajectories* compare_work.png compare_work.pdf compare_work.gp", dir);
    CHECK(system(cmd) == 0, "remove the compare figures");
    rc = run("plot fig_cmp --quiet");
    CHECK(rc == 0, "plot of a compare directory exits 0 (got %d)", rc);
    check_figure("fig_cmp", "compare_trajectories", gnuplot, 13);
    check_figure("fig_cmp", "compare_trajectories_s", gnuplot, 13);
    check_figure("fig_cmp", "compare_work", gnuplot, 2);
    CHECK(manifest_lists("fig_cmp", "compare.csv") && manifest_lists("fig_cmp", "compare_work.csv"),
          "plot keeps the compare directory's files listed");

    /* bad input: nothing written */
    expect_input_error("plot");
    expect_input_error("plot no_such_dir");
    expect_input_error("plot fig_run fig_limit");
    expect_input_error("plot fig_run --bogus");
    CHECK(!exists("no_such_dir"), "plot creates no directory");
    snprintf(cmd, sizeof cmd, "mkdir -p %s/not_penlim && echo x > %s/not_penlim/data.txt", dir, dir);
    CHECK(system(cmd) == 0, "make a directory penlim did not write");
    expect_input_error("plot not_penlim");
    CHECK(!exists("not_penlim/.penlim.lock") && !exists("not_penlim/manifest.json"),
          "plot writes nothing into a directory penlim did not write");
}

/* A study in penlim 0.2's vocabulary (study.csv's s_distance_q then the distance to the next run, no
 * successive_s_distance_q; sup_q then limit_sup_q) is refused by penlim plot, not drawn as distances to
 * the limit; the same study in the current names is drawn. */
static void test_old_study_vocabulary(void)
{
    int rc = run("study bouncing_ball --grid e=0.5,0.9 --grid mu=1e3,1e4 --t-end 1 --out old_study --quiet --no-plots");
    CHECK(rc == 0, "a small study exits 0 (got %d)", rc);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd %s && cp -r old_study new_study && sed -i '1s/,s_distance_q,/,limit_s_distance,/; "
             "1s/successive_s_distance_q,successive_s_distance_v/s_distance_q,s_distance_v/; 1s/,sup_q,/,limit_sup_q,/' "
             "old_study/study.csv && head -1 old_study/study.csv | grep -q ',s_distance_q,s_distance_v,limit_sup_q,'", dir);
    CHECK(system(cmd) == 0, "rename study.csv's columns as penlim 0.2 named them");
    expect_message("plot old_study", "penlim 0.2's column names", NULL);
    CHECK(!exists("old_study/study_family.gp"), "the refused study gets no figure script");
    rc = run("plot new_study --quiet");
    CHECK(rc == 0 && exists("new_study/study_family.gp"), "penlim plot draws the study in the current names (exit %d)", rc);
}

int main(int argc, char **argv)
{
    check_init();
    if (argc < 2 || (argc > 2 && strcmp(argv[2], "limits") != 0)) {
        fprintf(stderr, "usage: test_cli PATH_TO_PENLIM [limits]\n");
        return 2;
    }
    int limits_only = argc > 2; /* the time budget's tests alone (tests/fresh_clock.sh runs them) */
    static char path[4096];
    if (!realpath(argv[1], path)) {
        fprintf(stderr, "test_cli: %s not found\n", argv[1]);
        return 2;
    }
    penlim = path;
    snprintf(dir, sizeof dir, "/tmp/penlim-cli-XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    if (limits_only)
        test_limits();
    else {
        test_help();
        test_help_matches_parser();
        test_summaries_and_default_dirs();
        test_bad_input();
        test_messages();
        test_run_files();
        test_sweep();
        test_limit();
        test_impact_at_t_end();
        test_zeno_past_t_end();
        test_outgrown_box();
        test_schemes();
        test_limits();
        test_output_cap();
        test_failures();
        test_figures();
        test_old_study_vocabulary();
    }
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_finish("test_cli");
}
