/* `penlim impact-law` end to end: the table and impact_law.csv against values computed apart
 * (Hunt-Crossley's map at 30 digits with mpmath's Lambert W; the relations by hand), bad input (exit
 * 2, one line, nothing written), the output directory (manifest, a second run, foreign files), and
 * `penlim plot` on its directory, including a configuration edited to carry gnuplot commands. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli_util.h"
#include "manifest_util.h"

static void expect_input_error(const char *args, const char *says)
{
    int rc = run(args);
    char *err = slurp("stderr.txt");
    CHECK(rc == 2, "'penlim %s' exits with 2 (got %d)", args, rc);
    CHECK(err && count_lines(err) == 1 && strncmp(err, "penlim impact-law: ", 19) == 0 && strstr(err, says),
          "'penlim %s' prints one line saying '%s', got: %s", args, says, err ? err : "(none)");
    free(err);
}

/* Row k (from 1) of a CSV as numbers; the count read. */
static int csv_row(const char *csv, int k, double *x, int max)
{
    const char *p = csv;
    for (int line = 0; p && line < k; line++)
        if ((p = strchr(p, '\n')))
            p++;
    int n = 0;
    while (p && *p && *p != '\n' && n < max) {
        char *end;
        x[n++] = strtod(p, &end);
        p = *end == ',' ? end + 1 : end;
    }
    return n;
}

static void test_table(void)
{
    int rc = run("impact-law --set c=2 --v 0.25,0.5,1 --out il --no-plots");
    CHECK(rc == 0, "impact-law exits 0 (got %d)", rc);
    char *csv = slurp("il/impact_law.csv");
    const char *header = "v,e,hunt_crossley_1975,lankarani_nikravesh_1990,gonthier_2004,zhiying_qishao_2006,flores_2011,"
                         "hu_guo_2015,err_hunt_crossley_1975,err_lankarani_nikravesh_1990,err_gonthier_2004,"
                         "err_zhiying_qishao_2006,err_flores_2011,err_hu_guo_2015\n";
    CHECK(csv && strncmp(csv, header, strlen(header)) == 0, "impact_law.csv header: %.200s", csv ? csv : "(none)");
    CHECK(count_lines(csv) == 4, "impact_law.csv has 3 rows");
    /* c V = 0.5, 1, 2: e(cV) by Lambert W at 30 digits (mpmath), independent of penlim's evaluation. */
    const double cv[] = {0.5, 1.0, 2.0}, exact[] = {0.662962200001545988, 0.487741256015348526, 0.306896798290962115};
    for (int k = 0; k < 3; k++) {
        double x[14];
        CHECK(csv && csv_row(csv, k + 1, x, 14) == 14, "row %d has 14 numbers", k + 1);
        NEAR(x[0] * 2.0, cv[k], 1e-15, "row %d: c v", k + 1);
        NEAR(x[1], exact[k], 2e-15, "row %d: e at c V = %g", k + 1, cv[k]);
        /* The relations by hand: 1 - cV; sqrt(1 - 2cV); sqrt(1 + (3cV/4)^2) - 3cV/4; Flores 16/(16 + 15 cV);
         * Hu-Guo 1/(1 + cV); their errors e_approx - e. */
        double hc = cv[k] <= 1.0 ? 1.0 - cv[k] : NAN, ln = cv[k] <= 0.5 ? sqrt(1.0 - 2.0 * cv[k]) : NAN;
        double q = 0.75 * cv[k], go = sqrt(1.0 + q * q) - q, fl = 16.0 / (16.0 + 15.0 * cv[k]), hg = 1.0 / (1.0 + cv[k]);
        const double by_hand[] = {hc, ln, go, NAN, fl, hg};
        for (int j = 0; j < 6; j++) {
            if (j == 3) /* Zhiying-Qishao: its c V(e) at the e given, (1 - e^2) e^(2(1 - e))/2 */
                NEAR(0.5 * (1.0 - x[5] * x[5]) * exp(2.0 * (1.0 - x[5])), cv[k], 1e-12, "row %d: Zhiying-Qishao", k + 1);
            else if (isnan(by_hand[j]))
                CHECK(isnan(x[2 + j]) && isnan(x[8 + j]), "row %d: relation %d undefined (nan)", k + 1, j);
            else
                NEAR(x[2 + j], by_hand[j], 1e-15, "row %d: relation %d", k + 1, j);
            if (!isnan(x[2 + j]))
                NEAR(x[8 + j], x[2 + j] - x[1], 1e-15, "row %d: error of relation %d", k + 1, j);
        }
    }
    free(csv);
    char *out = slurp("stdout.txt");
    CHECK(out && strstr(out, "hunt_crossley (k=1 n=1.5 c=2)") && strstr(out, "0.48774126") && strstr(out, "wrote il:"),
          "the table is printed: %s", out ? out : "(none)");
    free(out);
    CHECK(manifest_lists("il", "impact_law.csv") && manifest_lists("il", "impact_law_config.gp") &&
              manifest_lists("il", "impact_law.gp") && !manifest_lists("il", "impact_law.png"),
          "the manifest lists the data and scripts, no figure with --no-plots");
    char *m = slurp("il/manifest.json");
    CHECK(m && strstr(m, "\"command\": \"impact-law\"") && strstr(m, "\"law\": \"hunt_crossley\"") &&
              strstr(m, "\"c\": 2.0"),
          "the manifest records the command, law and c");
    free(m);
    /* the other laws: e at every speed, no relations (Kelvin-Voigt's closed forms written out here) */
    const char *laws[] = {"kelvin_voigt --set xi=0.5", "kelvin_voigt_clamped --set xi=0.5", "hertz --set k=7"};
    const double e_law[] = {exp(-M_PI * 0.5 / sqrt(0.75)), exp(-2.0 * 0.5 * acos(0.5) / sqrt(0.75)), 1.0};
    for (int j = 0; j < 3; j++) {
        char args[256];
        snprintf(args, sizeof args, "impact-law --law %s --v 0.1,3 --out il_%d --no-plots --quiet", laws[j], j);
        rc = run(args);
        snprintf(args, sizeof args, "il_%d/impact_law.csv", j);
        csv = slurp(args);
        CHECK(rc == 0 && csv && strncmp(csv, "v,e\n", 4) == 0 && count_lines(csv) == 3, "impact-law --law %s: v, e",
              laws[j]);
        for (int k = 0; k < 2 && csv; k++) {
            double x[2];
            CHECK(csv_row(csv, k + 1, x, 2) == 2, "%s: row %d", laws[j], k + 1);
            NEAR(x[1], e_law[j], 1e-15, "impact-law --law %s: e at v = %g", laws[j], x[0]);
        }
        free(csv);
    }
    /* log-spaced A:B:N, the ends exact */
    rc = run("impact-law --v 0.001:1000:7 --out il --no-plots --quiet");
    csv = slurp("il/impact_law.csv");
    CHECK(rc == 0 && count_lines(csv) == 8, "--v 0.001:1000:7 gives 7 rows");
    for (int k = 0; k < 7 && csv; k++) {
        double x[14];
        csv_row(csv, k + 1, x, 14);
        NEAR(log10(x[0]), -3.0 + k, 1e-14, "--v 0.001:1000:7: row %d", k + 1);
    }
    free(csv);
    out = slurp("stdout.txt");
    CHECK(out && !*out, "--quiet prints nothing");
    free(out);
}

static void test_bad_input(void)
{
    expect_input_error("impact-law --set c=-1 --out bad", "c = -1 is out of range");
    expect_input_error("impact-law --law hertz --set c=1 --out bad", "parameter c belongs to the contact law hunt_crossley, not to hertz");
    expect_input_error("impact-law --law kelvin_voigt_clamped --set e=0 --out bad", "e = 0 is out of range");
    expect_input_error("impact-law --set zeta=1 --out bad", "zeta");
    expect_input_error("impact-law --set c=1 --set c=2 --out bad", "given twice");
    expect_input_error("impact-law --law no_such_law --out bad", "unknown law 'no_such_law'");
    expect_input_error("impact-law --v 1:0.5:3 --out bad", "0 < A < B");
    expect_input_error("impact-law --v 0:1:3 --out bad", "0 < A < B");
    expect_input_error("impact-law --v 1:2:1 --out bad", "N must be");
    expect_input_error("impact-law --v 1:2 --out bad", "not A:B:N");
    expect_input_error("impact-law --v 1,x,3 --out bad", "'x' is not a number");
    expect_input_error("impact-law --v 1,-2 --out bad", "not positive");
    expect_input_error("impact-law --v 1,2,2 --out bad", "must increase");
    expect_input_error("impact-law --v nan,1 --out bad", "not a finite number");
    expect_input_error("impact-law --v 1,1e999 --out bad", "not a finite number");
    expect_input_error("impact-law --v", "needs a value");
    expect_input_error("impact-law --bogus", "unknown option");
    expect_input_error("impact-law extra", "unexpected argument");
    expect_input_error("impact-law --out /", "root directory");
    CHECK(!exists("bad") && !exists("out"), "bad input writes nothing");
    CHECK(run("impact-law --help") == 0, "impact-law --help exits 0");
    char *out = slurp("stdout.txt");
    CHECK(out && strstr(out, "usage: penlim impact-law"), "impact-law --help prints its usage");
    free(out);
    CHECK(run("--help") == 0, "--help exits 0");
    out = slurp("stdout.txt");
    CHECK(out && strstr(out, "impact-law"), "penlim --help lists impact-law");
    free(out);
}

static void test_directory(void)
{
    char cmd[1024];
    /* a file penlim did not write: refused without --force, left alone with it */
    snprintf(cmd, sizeof cmd, "mkdir -p %s/mine && echo x > %s/mine/notes.txt", dir, dir);
    CHECK(system(cmd) == 0, "make a directory with a file of one's own");
    int rc = run("impact-law --out mine --no-plots");
    char *err = slurp("stderr.txt");
    CHECK(rc == 2 && err && strstr(err, "did not write") && !exists("mine/impact_law.csv"),
          "a directory with foreign files is refused: %s", err ? err : "(none)");
    free(err);
    rc = run("impact-law --out mine --no-plots --force --quiet");
    char *notes = slurp("mine/notes.txt");
    CHECK(rc == 0 && exists("mine/impact_law.csv") && notes && strcmp(notes, "x\n") == 0,
          "--force writes beside the foreign file and leaves it");
    free(notes);
    /* with the figure (if gnuplot is here), then penlim plot redraws it */
    int gnuplot = system("command -v gnuplot > /dev/null 2>&1") == 0;
    rc = run("impact-law --set c=0.3 --v 0.01:20:40 --out fig --quiet");
    CHECK(rc == 0, "impact-law with its figure exits 0 (got %d)", rc);
    CHECK(!gnuplot || (manifest_lists("fig", "impact_law.png") && manifest_lists("fig", "impact_law.pdf")),
          "the figure is written and listed");
    snprintf(cmd, sizeof cmd, "rm -f %s/fig/impact_law.png", dir);
    CHECK(system(cmd) == 0, "remove the figure");
    rc = run("plot fig --quiet");
    CHECK(rc == 0, "penlim plot on an impact-law directory exits 0 (got %d)", rc);
    CHECK(!gnuplot || exists("fig/impact_law.png"), "penlim plot draws the figure again");
    CHECK(manifest_lists("fig", "impact_law.csv"), "penlim plot keeps the data listed");
    /* a configuration edited to run a command: refused, nothing run */
    snprintf(cmd, sizeof cmd,
             "cd %s/fig && sed -i \"s/^settings = .*/settings = 'c=0.3'; system('touch pwned')/\" impact_law_config.gp",
             dir);
    CHECK(system(cmd) == 0, "edit the configuration");
    rc = run("plot fig --quiet --force");
    err = slurp("stderr.txt");
    CHECK(rc == 2 && err && strstr(err, "impact_law_config.gp") && !exists("fig/pwned"),
          "an edited configuration is refused and runs nothing: %s", err ? err : "(none)");
    free(err);
    snprintf(cmd, sizeof cmd,
             "cd %s/fig && sed -i \"s/^settings = .*/settings = 'c=0.3 x'';system(''touch pwned'');'/\" "
             "impact_law_config.gp",
             dir);
    CHECK(system(cmd) == 0, "edit the configuration with a quoted command");
    rc = run("plot fig --quiet --force");
    CHECK(rc == 2 && !exists("fig/pwned"), "a quoted command in a setting is refused (got %d)", rc);
    /* a manifest naming a law that is not a word */
    snprintf(cmd, sizeof cmd, "cd %s/fig && sed -i 's/\"law\": \"hunt_crossley\"/\"law\": \"x y\"/' manifest.json", dir);
    CHECK(system(cmd) == 0, "edit the manifest");
    rc = run("plot fig --quiet --force");
    err = slurp("stderr.txt");
    CHECK(rc == 2 && err && strstr(err, "\"law\""), "a manifest's bad law is refused: %s", err ? err : "(none)");
    free(err);
}

int main(int argc, char **argv)
{
    check_init();
    if (argc != 2) {
        fprintf(stderr, "usage: test_impact_law_cli PATH_TO_PENLIM\n");
        return 2;
    }
    static char path[4096];
    if (!realpath(argv[1], path)) {
        fprintf(stderr, "test_impact_law_cli: %s not found\n", argv[1]);
        return 2;
    }
    penlim = path;
    snprintf(dir, sizeof dir, "/tmp/penlim-impact-law-XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    test_table();
    test_bad_input();
    test_directory();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_finish("test_impact_law_cli");
}
