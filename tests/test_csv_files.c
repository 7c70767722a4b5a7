/* Every CSV file penlim writes can be read as one table by any CSV reader (pandas.read_csv among
 * them, which skips blank lines): a header line of distinct non-empty names, then rows with as many
 * fields as the header (RFC 4180 quoting counted), for run (dense and sparse contacts, a scheme),
 * limit, sweep (mu and h), compare, study and impact-law, their figures' data included; and no data
 * file for a figure in gnuplot's block format (.dat) is left.  docs/formats.md, "One vocabulary". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli_util.h"

/* The fields of one line (without its newline), commas inside double quotes not counted; -1 for an
 * unterminated quote. */
static int count_fields(const char *line, size_t len)
{
    int fields = 1, quoted = 0;
    for (size_t k = 0; k < len; k++)
        if (line[k] == '"')
            quoted = !quoted;
        else if (line[k] == ',' && !quoted)
            fields++;
    return quoted ? -1 : fields;
}

/* The header's names are non-empty and distinct. */
static int header_names_ok(const char *line, size_t len, char *why, size_t wlen)
{
    char names[64][64];
    int n = 0;
    const char *p = line, *end = line + len;
    while (p <= end && n < 64) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        size_t w = c ? (size_t)(c - p) : (size_t)(end - p);
        if (w == 0 || w >= 64) {
            snprintf(why, wlen, "empty or overlong name (field %d)", n + 1);
            return 0;
        }
        snprintf(names[n], sizeof names[n], "%.*s", (int)w, p);
        for (int j = 0; j < n; j++)
            if (strcmp(names[j], names[n]) == 0) {
                snprintf(why, wlen, "name %.60s twice", names[n]);
                return 0;
            }
        n++;
        if (!c)
            break;
        p = c + 1;
    }
    return 1;
}

/* One file: its header, and every non-blank line with the header's number of fields.  The rows read. */
static long check_csv(const char *rel)
{
    char *text = slurp(rel);
    CHECK(text && *text, "%s read", rel);
    if (!text)
        return 0;
    const char *nl = strchr(text, '\n');
    size_t hlen = nl ? (size_t)(nl - text) : strlen(text);
    char why[128] = "";
    int header = count_fields(text, hlen);
    int named = hlen > 0 && strspn(text, "0123456789.-+e") < hlen && header_names_ok(text, hlen, why, sizeof why);
    CHECK(named, "%s: a header line of names (%.80s): %s", rel, text, why);
    long rows = 0, bad = 0, first_bad = 0;
    for (const char *p = nl ? nl + 1 : NULL; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > 0) {
            rows++;
            if (count_fields(p, len) != header && !bad++)
                first_bad = rows;
        }
        p = e ? e + 1 : NULL;
    }
    CHECK(bad == 0, "%s: every row has the header's %d fields (%ld do not, the first row %ld)", rel, header, bad,
          first_bad);
    CHECK(!nl || text[strlen(text) - 1] == '\n', "%s ends with a line end", rel);
    free(text);
    return rows;
}

/* Every *.csv under dir/sub (and no *.dat); the number of files checked. */
static int check_tree(const char *sub, const char *must_have)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd %s && find %s -type f \\( -name '*.csv' -o -name '*.dat' \\) | sort", dir, sub);
    FILE *f = popen(cmd, "r");
    int files = 0, found = 0;
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        size_t len = strlen(line);
        CHECK(len < 4 || strcmp(line + len - 4, ".dat") != 0, "%s: data for a figure as CSV, not .dat", line);
        if (len >= 4 && strcmp(line + len - 4, ".csv") == 0) {
            check_csv(line);
            files++;
            found |= must_have && strstr(line, must_have) != NULL;
        }
    }
    if (f)
        pclose(f);
    CHECK(files > 0 && (!must_have || found), "%s: %d CSV files checked, %s among them", sub, files,
          must_have ? must_have : "any");
    return files;
}

static void run_ok(const char *args)
{
    int rc = run(args);
    char *err = slurp("stderr.txt");
    CHECK(rc == 0, "penlim %s exits 0 (got %d: %.300s)", args, rc, err ? err : "");
    free(err);
}

int main(int argc, char **argv)
{
    check_init();
    if (argc != 2) {
        fprintf(stderr, "usage: test_csv_files PATH_TO_PENLIM\n");
        return 2;
    }
    static char path[4096];
    if (!realpath(argv[1], path)) {
        fprintf(stderr, "test_csv_files: %s not found\n", argv[1]);
        return 2;
    }
    penlim = path;
    snprintf(dir, sizeof dir, "/tmp/penlim-csv-XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    run_ok("run bouncing_ball --set e=0.5 --mu 1e4 --t-end 2 --out run_dense --quiet");
    check_tree("run_dense", "trajectory_s.csv");
    run_ok("run bouncing_ball --set e=0.5 --mu 1e4 --t-end 2 --contacts sparse --out run_sparse --quiet");
    check_tree("run_sparse", "contacts.csv");
    run_ok("run bouncing_ball --scheme moreau_jean --h 0.01 --t-end 2 --out run_scheme --quiet");
    check_tree("run_scheme", "trajectory.csv");
    run_ok("limit bouncing_ball --set e=0.5 --t-end 2 --out limit --quiet");
    check_tree("limit", "trajectory.csv");
    /* e = 0.5: the Zeno point at 3 sqrt(2/9.81) = 1.35, then a sustained contact: every figure's data */
    run_ok("sweep bouncing_ball --set e=0.5 --mu 1e3:1e6:4 --t-end 2 --out sweep_mu --quiet");
    check_tree("sweep_mu", "sliding.csv");
    static const char *const sweep_files[] = {"sweep.csv", "episodes.csv", "impact_errors.csv", "convergence.csv",
                                              "zeno.csv", "capture.csv", "sliding.csv"};
    for (size_t k = 0; k < sizeof sweep_files / sizeof sweep_files[0]; k++) {
        char rel[128];
        snprintf(rel, sizeof rel, "sweep_mu/%s", sweep_files[k]);
        CHECK(exists(rel) && check_csv(rel) > 0, "%s written, with rows", rel);
    }
    run_ok("sweep bouncing_ball --scheme moreau_jean --set e=0.5 --h 0.02,0.01,0.005,0.002 --t-end 2 --out sweep_h "
           "--quiet");
    check_tree("sweep_h", "convergence.csv");
    run_ok("compare bouncing_ball --set e=0 --mu 1e4 --mu 1e6 --scheme moreau_jean --h 0.01 --h 0.001 --t-end 2 "
           "--external run_scheme/trajectory.csv --out compare --quiet");
    check_tree("compare", "compare_work.csv");
    CHECK(check_csv("compare/compare_work.csv") > 0, "compare_work.csv has rows");
    /* with its figures: a family per quantity and the map over e and mu (their data FIGURE.csv) */
    run_ok("study bouncing_ball --grid e=0.3,0.6 --grid mu=1e3,1e4 --t-end 2 --out study --quiet");
    check_tree("study", "study.csv");
    static const char *const study_files[] = {"study.csv", "family_restitution_first.csv",
                                              "map_restitution_first.csv"};
    for (size_t k = 0; k < sizeof study_files / sizeof study_files[0]; k++) {
        char rel[128];
        snprintf(rel, sizeof rel, "study/%s", study_files[k]);
        CHECK(exists(rel) && check_csv(rel) > 0, "%s written, with rows", rel);
    }
    run_ok("impact-law --v 0.25,0.5,1 --out law --no-plots --quiet");
    check_tree("law", "impact_law.csv");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (check_failures == 0 && system(cmd) != 0)
        fprintf(stderr, "test_csv_files: could not remove %s\n", dir);
    return check_finish("test_csv_files");
}
