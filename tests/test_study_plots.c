/* A study's figures (io/study_plots.h) from hand-written study.csv and study.json in the format of
 * docs/formats.md: the files of each figure exist and are what they say (PNG, PDF); each .csv holds
 * exactly the finite values of the ok runs it draws (read back as doubles and compared with the
 * values written, a failed run and a nan left out, a nan between two values a break in the line);
 * the map of a 2 x 3 grid has one cell per run of its slice with the edges derived by hand; the
 * scripts hold no value of the CSV and their settings are data (gnuplot_safe.h); `gnuplot NAME.gp`
 * draws the figure again; hostile axis, column, case and solver names and cells are refused with one
 * line, nothing written and nothing run; the line cap and a study without a refined axis; `penlim
 * plot` of a study directory. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "cli_util.h"
#include "gnuplot_safe.h"
#include "legend_check.h"
#include "io/output.h"
#include "io/study_plots.h"

#define MAX_RUNS 256

typedef struct {
    const char *name;
    int n;
    double v[64];
    int refined;
} test_axis;

/* What the study written holds, per run. */
typedef struct {
    int nruns, naxes;
    double x[MAX_RUNS][4];
    int point[MAX_RUNS], ok[MAX_RUNS];
    double r[MAX_RUNS], t[MAX_RUNS]; /* restitution_first, impact_time_error (NAN: nan) */
    char r_text[MAX_RUNS][32], t_text[MAX_RUNS][32];
} study;

/* Hostile variants of the files written. */
typedef struct {
    const char *column;    /* restitution_first's column name in study.csv */
    const char *cell;      /* run 1's restitution_first */
    const char *case_name; /* study.json's case */
    const char *solver;
    const char *axis_name; /* the first axis's name, in both files */
    int quantities;        /* more quantity columns (q1, q2, ...: nan) */
} variant;

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The study over axes (the cartesian product, the first slowest) into dir/sub. */
static void write_study(const char *sub, const test_axis *axes, int naxes, int zip, const variant *var, study *st)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    mkdir(path, 0755);
    const char *first = var && var->axis_name ? var->axis_name : axes[0].name;
    memset(st, 0, sizeof *st);
    st->naxes = naxes;
    int nruns = 1, refined = -1;
    for (int k = 0; k < naxes; k++)
        nruns *= zip ? 1 : axes[k].n, refined = axes[k].refined ? k : refined;
    if (zip)
        nruns = axes[0].n;
    st->nruns = nruns;
    size_t cap = 1 << 16, used = 0;
    char *csv = malloc(cap);
    used += (size_t)snprintf(csv + used, cap - used, "run,point,limit");
    for (int k = 0; k < naxes; k++)
        used += (size_t)snprintf(csv + used, cap - used, ",%s", k == 0 ? first : axes[k].name);
    used += (size_t)snprintf(csv + used, cap - used, ",status");
    for (int q = 0; var && q < var->quantities; q++)
        used += (size_t)snprintf(csv + used, cap - used, ",q%d", q + 1);
    used += (size_t)snprintf(csv + used, cap - used,
                             ",episodes,impacts,%s,impact_time_error,steps,rhs_evals,wall_seconds,final_t,"
                             "final_q1,final_v1\n",
                             var && var->column ? var->column : "restitution_first");
    for (int run = 0; run < nruns; run++) {
        int rest = run, point = 0;
        for (int k = naxes - 1; k >= 0; k--) {
            int i = zip ? run : rest % axes[k].n;
            rest /= zip ? 1 : axes[k].n;
            st->x[run][k] = axes[k].v[i];
        }
        /* the point: the index over the axes but the refined one (first slowest) */
        for (int k = 0; k < naxes; k++)
            if (k != refined) {
                int i = 0;
                while (axes[k].v[i] != st->x[run][k])
                    i++;
                point = point * axes[k].n + i;
            }
        st->point[run] = refined >= 0 ? point : run;
        st->ok[run] = run % 7 != 5;
        snprintf(st->r_text[run], 32, "%.4f", 0.1009 + 0.0173 * run);
        snprintf(st->t_text[run], 32, "%.6g", 0.00317 / (run + 1));
        if ((!st->ok[run] && run % 14 != 12) || run % 11 == 7) /* run 12 failed but has a value */
            strcpy(st->r_text[run], "nan");
        if (!st->ok[run])
            strcpy(st->t_text[run], "nan");
        if (var && var->cell && run == 1)
            snprintf(st->r_text[run], 32, "%s", var->cell);
        st->r[run] = strcmp(st->r_text[run], "nan") == 0 ? NAN : strtod(st->r_text[run], NULL);
        st->t[run] = strcmp(st->t_text[run], "nan") == 0 ? NAN : strtod(st->t_text[run], NULL);
        used += (size_t)snprintf(csv + used, cap - used, "%d,%d,%d", run, st->point[run], st->point[run]);
        for (int k = 0; k < naxes; k++)
            used += (size_t)snprintf(csv + used, cap - used, ",%.17g", st->x[run][k]);
        used += (size_t)snprintf(csv + used, cap - used, ",%s", st->ok[run] ? "ok" : "failed");
        for (int q = 0; var && q < var->quantities; q++)
            used += (size_t)snprintf(csv + used, cap - used, ",nan");
        const char *count = st->ok[run] ? "3" : "nan";
        used += (size_t)snprintf(csv + used, cap - used, ",%s,%s,%s,%s,120,250,0.01,%s,0.25,-0.5\n", count, count,
                                 st->r_text[run], st->t_text[run], st->ok[run] ? "2" : "nan");
    }
    snprintf(path, sizeof path, "%s/%s/study.csv", dir, sub);
    write_text(path, csv);
    free(csv);
    json_t *jaxes = json_array(), *points = json_array();
    for (int k = 0; k < naxes; k++) {
        json_t *v = json_array();
        for (int i = 0; i < axes[k].n; i++)
            json_array_append_new(v, json_real(axes[k].v[i]));
        json_array_append_new(jaxes, json_pack("{s:s, s:o, s:b}", "name", k == 0 ? first : axes[k].name, "values", v,
                                               "refined", axes[k].refined));
    }
    int npoints = 0;
    for (int run = 0; run < nruns; run++)
        npoints = st->point[run] + 1 > npoints ? st->point[run] + 1 : npoints;
    for (int p = 0; p < npoints; p++)
        json_array_append_new(points, json_pack("{s:i}", "point", p));
    json_t *j = json_pack("{s:i, s:s, s:s, s:s, s:b, s:o, s:o, s:[], s:[], s:{s:i}}", "penlim_study", 1, "case",
                          var && var->case_name ? var->case_name : "bouncing_ball", "contact_law", "linear", "solver",
                          var && var->solver ? var->solver : "penalty", "zip", zip, "axes", jaxes, "points", points,
                          "limits", "runs", "cost", "runs", nruns);
    json_object_set_new(j, "refined", refined >= 0 ? json_string(axes[refined].name) : json_null());
    snprintf(path, sizeof path, "%s/%s/study.json", dir, sub);
    CHECK(json_dump_file(j, path, JSON_INDENT(1)) == 0, "cannot write %s", path);
    json_decref(j);
}

/* Render sub's figures with the library; the status, the error in err. */
static pl_status render(const char *sub, const pl_study_plot_opts *opts, pl_output *out, pl_error *err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    pl_output_init(out, path, 0644, NULL);
    return pl_render_study_plots(out, opts, NULL, err);
}

/* A figure's CSV read back (docs/formats.md, "Data files for figures"): its header (ncol + labelled
 * fields, checked to name header[0..]), then blocks split at two blank lines, each its label (a
 * family's rows begin with it, the same on each row) and rows of numbers, and where a single blank
 * line broke it; every row has as many fields as the header. */
typedef struct {
    char label[256];
    int nrows, breaks_before[64];
    double row[64][7];
} block;

static int read_csv(const char *rel, const char *const *header, int labelled, block *b, int max, int ncol)
{
    char *text = slurp(rel);
    CHECK(text != NULL, "%s exists", rel);
    if (!text)
        return 0;
    char *nl = strchr(text, '\n');
    char want[512] = "";
    for (int c = 0; c < ncol + labelled; c++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", c ? "," : "", header[c]);
    CHECK(nl && (size_t)(nl - text) == strlen(want) && strncmp(text, want, strlen(want)) == 0,
          "%s: the header is %s", rel, want);
    int n = -1;
    if (nl)
        *nl = '\0'; /* the header's end, as strtok ends each line */
    for (char *line = strtok(nl ? nl + 1 : text, "\n"), *prev_end = nl ? nl : text; line; line = strtok(NULL, "\n")) {
        int blanks = 0; /* the blank lines before this one: strtok skips them */
        for (char *c = line - 1; c >= prev_end && *c == '\n'; c--)
            blanks++;
        prev_end = line + strlen(line);
        char label[256] = "";
        char *p = line;
        if (labelled) { /* a field without a comma, or quoted */
            size_t len = strcspn(p, ",");
            snprintf(label, sizeof label, "%.*s", (int)len, p);
            p += len;
            CHECK(*p == ',', "%s: a labelled row ('%s')", rel, line);
            p += *p == ',';
        }
        if (n < 0 || blanks == 2) {
            CHECK(n < 0 || blanks == 2, "%s: a block after %d blank lines", rel, blanks);
            if (++n >= max)
                break;
            snprintf(b[n].label, sizeof b[n].label, "%s", label);
            b[n].nrows = 0;
        }
        CHECK(blanks <= 2, "%s: %d blank lines", rel, blanks);
        CHECK(strcmp(b[n].label, label) == 0, "%s: block %d's rows are all labelled '%s' ('%s')", rel, n, b[n].label,
              label);
        CHECK(b[n].nrows < 64, "%s: at most 64 rows a block", rel);
        if (b[n].nrows >= 64)
            break;
        block *B = &b[n];
        B->breaks_before[B->nrows] = blanks == 1;
        for (int c = 0; c < ncol; c++) {
            char *end;
            B->row[B->nrows][c] = strtod(p, &end);
            CHECK(end != p, "%s: row %d of block %d has %d numbers", rel, B->nrows, n, c);
            p = end;
            CHECK(c + 1 == ncol || *p == ',', "%s: fields separated by commas ('%s')", rel, line);
            p += *p == ',';
        }
        CHECK(*p == '\0', "%s: row with more than %d fields ('%s')", rel, ncol + labelled, line);
        B->nrows++;
    }
    free(text);
    return n + 1;
}

/* A family's CSV: label,AXIS,QUANTITY. */
static int read_family(const char *rel, const char *axis, const char *quantity, block *b, int max)
{
    const char *header[] = {"label", axis, quantity};
    return read_csv(rel, header, 1, b, max, 2);
}

/* A map's CSV (X,Y,X_low,X_high,Y_low,Y_high,QUANTITY) and its key, from FIGURE.gp's key_text. */
static int read_map(const char *sub, const char *figure, const char *x, const char *y, const char *quantity, block *b,
                    int max)
{
    char rel[512], names[6][64];
    snprintf(names[0], sizeof names[0], "%s_low", x);
    snprintf(names[1], sizeof names[1], "%s_high", x);
    snprintf(names[2], sizeof names[2], "%s_low", y);
    snprintf(names[3], sizeof names[3], "%s_high", y);
    const char *header[] = {x, y, names[0], names[1], names[2], names[3], quantity};
    snprintf(rel, sizeof rel, "%s/%s.csv", sub, figure);
    int nb = read_csv(rel, header, 0, b, max, 7);
    snprintf(rel, sizeof rel, "%s/%s.gp", sub, figure);
    char *gp = slurp(rel), *key = gp ? strstr(gp, "\nkey_text = '") : NULL;
    CHECK(key != NULL, "%s sets key_text", rel);
    if (key && nb > 0) {
        key += strlen("\nkey_text = '");
        snprintf(b[0].label, sizeof b[0].label, "%.*s", (int)strcspn(key, "'"), key);
    }
    free(gp);
    return nb;
}

/* The settings of a figure's script (its lines before the first load) are data, and no script
 * holds a value the CSV does (any of its cells of 4 characters or more). */
static void check_scripts(const char *sub, const char *const *figures, int n, const study *st)
{
    for (int k = 0; k < n; k++) {
        char rel[512];
        snprintf(rel, sizeof rel, "%s/%s.gp", sub, figures[k]);
        char *text = slurp(rel);
        CHECK(text != NULL, "%s exists", rel);
        if (!text)
            continue;
        char *load = strstr(text, "\nload '");
        size_t settings = load ? (size_t)(load - text) + 1 : strlen(text);
        const char *why = gnuplot_config_unsafe(text, settings, 0);
        CHECK(!why, "%s: its settings are not data: %s", rel, why);
        CHECK(load && (strcmp(load, "\nload 'styles.gp'\nload 'study_family.gp'\n") == 0 ||
                       strcmp(load, "\nload 'styles.gp'\nload 'study_map.gp'\n") == 0),
              "%s: ends loading the scripts penlim wrote", rel);
        for (int run = 0; run < st->nruns; run++) {
            const char *cells[] = {st->r_text[run], st->t_text[run]};
            for (int c = 0; c < 2; c++)
                CHECK(strlen(cells[c]) < 4 || strcmp(cells[c], "nan") == 0 || !strstr(text, cells[c]),
                      "%s holds %s, a value of study.csv", rel, cells[c]);
            for (int a = 0; a < st->naxes; a++) {
                char v[32];
                snprintf(v, sizeof v, "%.17g", st->x[run][a]);
                CHECK(strlen(v) < 4 || !strstr(text, v), "%s holds %s, an axis value of study.csv", rel, v);
            }
        }
        free(text);
    }
}

static long file_size(const char *rel)
{
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static int file_starts(const char *rel, const char *magic, size_t len)
{
    char *text = slurp(rel);
    int ok = text && memcmp(text, magic, len) == 0;
    free(text);
    return ok;
}

static void check_figure_files(const char *sub, const char *name, const pl_output *out)
{
    const char *ext[] = {"gp", "csv", "png", "pdf"};
    for (int e = 0; e < 4; e++) {
        char rel[512], file[256];
        snprintf(file, sizeof file, "%s.%s", name, ext[e]);
        snprintf(rel, sizeof rel, "%s/%s", sub, file);
        CHECK(exists(rel) && pl_strings_has(&out->written, file), "%s written and recorded", rel);
    }
    char rel[512];
    snprintf(rel, sizeof rel, "%s/%s.png", sub, name);
    CHECK(file_starts(rel, "\x89PNG", 4), "%s is a PNG", rel);
    snprintf(rel, sizeof rel, "%s/%s.pdf", sub, name);
    CHECK(file_starts(rel, "%PDF", 4), "%s is a PDF", rel);
    /* vector: no raster image in it (its dictionaries are plain text, only its streams compressed) */
    char *pdf = slurp(rel);
    long size = file_size(rel);
    int image = 0;
    for (long k = 0; pdf && k + 15 < size; k++)
        image |= memcmp(pdf + k, "/Subtype /Image", 15) == 0;
    CHECK(pdf && !image, "%s holds no raster image", rel);
    free(pdf);
}

/* The family of restitution_first: one block per point with a value, in point order, labelled by
 * the values of the other axes, holding exactly its ok runs' finite values in order of mu, broken
 * where a nan lies between two. */
static void check_family(const char *sub, const study *st, const test_axis *axes, int naxes, int line_axis,
                         int by_point)
{
    char rel[512];
    snprintf(rel, sizeof rel, "%s/family_restitution_first.csv", sub);
    static block b[64];
    int nb = read_family(rel, axes[line_axis].name, "restitution_first", b, 64), expect = 0;
    int lines[MAX_RUNS], nlines = 0; /* the lines in order of first run: a point, or the run's first of its key */
    for (int run = 0; run < st->nruns; run++) {
        int key = by_point ? st->point[run] : -1;
        if (!by_point) /* the first run with the same values of the other axes */
            for (int o = 0; o <= run && key < 0; o++) {
                int same = 1;
                for (int a = 0; a < naxes; a++)
                    same &= a == line_axis || st->x[o][a] == st->x[run][a];
                key = same ? o : -1;
            }
        int seen = 0;
        for (int i = 0; i < nlines; i++)
            seen |= lines[i] == key;
        if (!seen)
            lines[nlines++] = key;
    }
    for (int i = 0; i < nlines && i < 40; i++) {
        /* its runs, in order of the line axis */
        int runs[64], n = 0;
        for (int run = 0; run < st->nruns; run++) {
            int key = by_point ? st->point[run] : -1;
            if (!by_point) {
                int same = 1;
                for (int a = 0; a < naxes; a++)
                    same &= a == line_axis || st->x[lines[i]][a] == st->x[run][a];
                key = same ? lines[i] : -1;
            }
            if (key == lines[i])
                runs[n++] = run;
        }
        for (int u = 1; u < n; u++) /* insertion sort by the line axis */
            for (int v = u; v > 0 && st->x[runs[v]][line_axis] < st->x[runs[v - 1]][line_axis]; v--) {
                int t = runs[v];
                runs[v] = runs[v - 1];
                runs[v - 1] = t;
            }
        int finite = 0;
        for (int u = 0; u < n; u++)
            finite += st->ok[runs[u]] && !isnan(st->r[runs[u]]);
        if (finite == 0)
            continue;
        CHECK(expect < nb, "%s: block %d of the line of run %d", rel, expect, runs[0]);
        if (expect >= nb)
            return;
        const block *B = &b[expect++];
        char label[256] = "";
        for (int a = 0; a < naxes; a++)
            if (a != line_axis && axes[a].n > 1)
                snprintf(label + strlen(label), sizeof label - strlen(label), "%s%s=%g", label[0] ? " " : "",
                         axes[a].name, st->x[runs[0]][a]);
        CHECK(strcmp(B->label, label[0] ? label : "runs") == 0, "%s: block %d labelled '%s', not '%s'", rel, expect - 1,
              B->label, label);
        CHECK(B->nrows == finite, "%s: block '%s' has %d rows, %d finite values", rel, label, B->nrows, finite);
        int row = 0, pending = 0;
        for (int u = 0; u < n && row < B->nrows; u++) {
            int r = runs[u];
            if (!st->ok[r] || isnan(st->r[r])) {
                pending = row > 0;
                continue;
            }
            CHECK(B->row[row][0] == st->x[r][line_axis] && B->row[row][1] == st->r[r],
                  "%s: '%s' row %d is (%.17g, %.17g), run %d's (%.17g, %.17g)", rel, label, row, B->row[row][0],
                  B->row[row][1], r, st->x[r][line_axis], st->r[r]);
            CHECK(B->breaks_before[row] == pending, "%s: '%s' row %d %s a break", rel, label, row,
                  pending ? "lacks" : "has");
            pending = 0;
            row++;
        }
    }
    CHECK(nb == expect, "%s: %d blocks, %d lines with a value", rel, nb, expect);
}

/* user: [calls, the last done]; each call one more done, of 5 */
static void count_progress(size_t done, size_t total, void *user)
{
    size_t *told = user;
    CHECK(done == told[0] + 1 && total == 5, "progress %zu of %zu after %zu calls", done, total, told[0]);
    told[0]++;
    told[1] = done;
}

static void test_hand_written_study(void)
{
    const test_axis axes[] = {{"N", 2, {2, 3}, 0}, {"e", 3, {0.3125, 0.5625, 0.84375}, 0}, {"mu", 3, {1e4, 1e6, 1e8}, 1}};
    study st;
    write_study("s", axes, 3, 0, NULL, &st);
    pl_output out;
    pl_error err;
    size_t told[2] = {0, 0};
    pl_study_plot_opts progress = {.progress = count_progress, .user = told};
    pl_status s = render("s", &progress, &out, &err);
    CHECK(s == PL_OK, "the study's figures drawn (%s)", s == PL_OK ? "" : err.message);
    CHECK(told[0] == 5 && told[1] == 5, "progress told after each of the 5 figures (%zu, last %zu)", told[0], told[1]);
    const char *figures[] = {"family_episodes", "family_impacts", "family_restitution_first",
                             "family_impact_time_error", "map_restitution_first"};
    for (int k = 0; k < 5; k++)
        check_figure_files("s", figures[k], &out);
    check_legend("s", "family_restitution_first", 6);
    check_legend("s", "map_restitution_first", 1);
    CHECK(!exists("s/family_steps.gp") && !exists("s/family_final_q1.gp"), "no family of the cost or final state");
    check_scripts("s", figures, 5, &st);
    check_family("s", &st, axes, 3, 2, 1);
    /* the log scales: mu on x, the error on y */
    char *gp = slurp("s/family_impact_time_error.gp");
    CHECK(gp && strstr(gp, "logx = 1\n") && strstr(gp, "logy = 1\n") && strstr(gp, "nlines = 6\n"),
          "impact_time_error against mu: log-log, 6 lines (%s)", gp ? gp : "");
    free(gp);
    gp = slurp("s/family_restitution_first.gp");
    CHECK(gp && strstr(gp, "logx = 1\n") && strstr(gp, "logy = 0\n"), "restitution_first: linear y");
    free(gp);

    /* the map of the 2 x 3 grid over N and e, mu at its finest (1e8): one cell per ok run, the edges
     * halfway between values and as far out at the ends: N 1.5 2.5 3.5, e 0.1875 0.4375 0.703125
     * 0.984375 (exact in binary) */
    static block m[2];
    int nb = read_map("s", "map_restitution_first", "N", "e", "restitution_first", m, 2);
    CHECK(nb == 1 && strcmp(m[0].label, "restitution_first at mu=1e8") == 0, "the map: one block (%d), '%s'", nb,
          m[0].label);
    const double eN[] = {1.5, 2.5, 3.5}, ee[] = {0.1875, 0.4375, 0.703125, 0.984375};
    int cells = 0;
    for (int run = 0; run < st.nruns; run++) {
        if (st.x[run][2] != 1e8 || !st.ok[run] || isnan(st.r[run]))
            continue;
        cells++;
        int found = 0;
        for (int r = 0; r < m[0].nrows; r++) {
            const double *c = m[0].row[r];
            if (c[0] != st.x[run][0] || c[1] != st.x[run][1])
                continue;
            found++;
            int i = st.x[run][0] == 2 ? 0 : 1, j = st.x[run][1] == 0.3125 ? 0 : st.x[run][1] == 0.5625 ? 1 : 2;
            CHECK(c[2] == eN[i] && c[3] == eN[i + 1] && c[4] == ee[j] && c[5] == ee[j + 1] && c[6] == st.r[run],
                  "map cell of run %d: %g %g [%g %g] [%g %g] %.17g", run, c[0], c[1], c[2], c[3], c[4], c[5], c[6]);
        }
        CHECK(found == 1, "run %d: %d cells of the map", run, found);
    }
    CHECK(cells == 5 && m[0].nrows == cells, "the map: %d cells, %d runs ok at mu = 1e8 (one failed: a gap)",
          m[0].nrows, cells);
    pl_output_free(&out);

    /* gnuplot NAME.gp in the directory draws it again */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd %s/s && rm -f map_restitution_first.png family_restitution_first.pdf && "
                              "gnuplot map_restitution_first.gp > /dev/null 2>&1 && "
                              "gnuplot family_restitution_first.gp > /dev/null 2>&1", dir);
    CHECK(system(cmd) == 0 && file_starts("s/map_restitution_first.png", "\x89PNG", 4) &&
              file_starts("s/family_restitution_first.pdf", "%PDF", 4),
          "gnuplot NAME.gp draws NAME again");

    /* the map over e and mu asked for, N at its first value: mu on a log scale, its edges
     * geometric means (1e5, 1e7), one decade out at the ends */
    pl_study_plot_opts opts = {.map = "impact_time_error", .map_axes = {"e", "mu"}};
    const char *one[] = {"restitution_first"};
    opts.quantities = one;
    opts.nquantities = 1;
    s = render("s", &opts, &out, &err);
    CHECK(s == PL_OK, "map over e and mu (%s)", s == PL_OK ? "" : err.message);
    nb = read_map("s", "map_impact_time_error", "e", "mu", "impact_time_error", m, 2);
    CHECK(nb == 1 && strcmp(m[0].label, "impact_time_error at N=2") == 0, "the map over e, mu: '%s'", m[0].label);
    cells = 0;
    for (int run = 0; run < st.nruns; run++)
        cells += st.x[run][0] == 2 && st.ok[run] && !isnan(st.t[run]);
    CHECK(m[0].nrows == cells, "the map over e, mu: %d cells, %d runs", m[0].nrows, cells);
    for (int r = 0; r < m[0].nrows; r++) {
        const double *c = m[0].row[r];
        double lo = c[1] == 1e4 ? 1e3 : c[1] == 1e6 ? 1e5 : 1e7;
        CHECK(fabs(c[4] / lo - 1) < 1e-14 && fabs(c[5] / (100 * lo) - 1) < 1e-14, "mu edges of %g: %g %g", c[1], c[4],
              c[5]);
    }
    gp = slurp("s/map_impact_time_error.gp");
    CHECK(gp && strstr(gp, "logx = 0\n") && strstr(gp, "logy = 1\n") && strstr(gp, "logcb = 1\n"),
          "e linear, mu and the error log");
    free(gp);
    CHECK(pl_strings_has(&out.written, "family_restitution_first.png") &&
              !pl_strings_has(&out.written, "family_impacts.png"),
          "the families asked for only");
    pl_output_free(&out);

    /* what the options name must be the study's */
    const struct {
        pl_study_plot_opts o;
        const char *says;
    } bad[] = {{{.map = "no_such"}, "no quantity 'no_such' to map"},
               {{.map = "N"}, "no quantity 'N' to map"},
               {{.map_axes = {"e", "e"}}, "the map's two axes are one"},
               {{.map_axes = {"e", "t_end"}}, "'t_end' is not an axis"},
               {{.quantities = (const char *[]){"status_x"}, .nquantities = 1}, "no quantity 'status_x'"}};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        s = render("s", &bad[k].o, &out, &err);
        CHECK(s == PL_ERR_INPUT && strstr(err.message, bad[k].says) && out.written.n == 0,
              "options %zu refused, nothing written (%d: %s)", k, s, s ? err.message : "");
        pl_output_free(&out);
    }
}

/* Before a study runs: its options checked against its axes and columns, and the files its figures
 * may write a superset of those they write. */
static void test_before_the_study(void)
{
    const char *axes[] = {"N", "e", "mu"}, *columns[] = {"episodes", "impacts", "restitution_first",
                                                         "impact_time_error", "steps", "rhs_evals",
                                                         "wall_seconds", "final_t", "final_q1", "final_v1"};
    const size_t nvalues[] = {2, 1, 3};
    pl_error err;
    pl_study_plot_opts ok = {.map = "final_q1", .map_axes = {"mu", "N"}};
    CHECK(pl_study_plot_check(NULL, axes, nvalues, 3, 0, columns, 10, &err) == PL_OK, "the defaults fit");
    CHECK(pl_study_plot_check(&ok, axes, nvalues, 3, 0, columns, 10, &err) == PL_OK, "a map of final_q1 over mu, N");
    const struct {
        pl_study_plot_opts o;
        int zip;
        const char *says;
    } bad[] = {{{.map = "N"}, 0, "the study has no quantity 'N' to map"},
               {{.map_axes = {"N", "e"}}, 0, "the map's axis 'e' has one value"},
               {{.map_axes = {"N", "mu"}}, 1, "zipped"},
               {{.map_axes = {"N", NULL}}, 0, "the map's axis '' is not an axis"},
               {{.quantities = (const char *[]){"impacts", "impacts"}, .nquantities = 2}, 0, "'impacts' asked for twice"},
               {{.quantities = (const char *[]){"mu"}, .nquantities = 1}, 0, "no quantity 'mu'"}};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        pl_status s = pl_study_plot_check(&bad[k].o, axes, nvalues, 3, bad[k].zip, columns, 10, &err);
        CHECK(s == PL_ERR_INPUT && strstr(err.message, bad[k].says), "check %zu refused (%s)", k,
              s ? err.message : "accepted");
    }
    /* the files planned hold every file written, for the hand-written study */
    const test_axis taxes[] = {{"N", 2, {2, 3}, 0}, {"e", 3, {0.3125, 0.5625, 0.84375}, 0}, {"mu", 3, {1e4, 1e6, 1e8}, 1}};
    study st;
    write_study("planned", taxes, 3, 0, NULL, &st);
    const char *after_status[] = {"episodes", "impacts", "restitution_first", "impact_time_error", "steps",
                                  "rhs_evals", "wall_seconds", "final_t", "final_q1", "final_v1"};
    pl_strings planned = {0};
    CHECK(pl_study_plot_planned_files(NULL, after_status, 10, &planned, &err) == PL_OK, "files planned");
    pl_output out;
    CHECK(render("planned", NULL, &out, &err) == PL_OK, "drawn");
    for (size_t k = 0; k < out.written.n; k++)
        CHECK(pl_strings_has(&planned, out.written.items[k]), "%s written, not planned", out.written.items[k]);
    CHECK(out.written.n >= 24 && !pl_strings_has(&planned, "family_steps.gp"), "%zu files written", out.written.n);
    pl_output_free(&out);
    pl_strings_free(&planned);
}

/* Names and cells that would reach gnuplot: refused, one line naming the file, nothing written,
 * nothing run. */
static void test_hostile(void)
{
    const test_axis axes[] = {{"N", 2, {2, 3}, 0}, {"mu", 2, {1e4, 1e6}, 1}};
    const char *payloads[] = {"q'; system('touch PLANTED'); '", "q`touch PLANTED`", "q\nsystem('touch PLANTED')",
                              "<touch PLANTED", "a b", "q@x"};
    for (size_t p = 0; p < sizeof payloads / sizeof *payloads; p++)
        for (int where = 0; where < 5; where++) {
            variant v = {0};
            const char *file = "study.csv";
            switch (where) {
            case 0: v.column = payloads[p]; break;
            case 1: v.axis_name = payloads[p], file = "study.json"; break;
            case 2: v.case_name = payloads[p], file = "study.json"; break;
            case 3: v.solver = payloads[p], file = "study.json"; break;
            default: v.cell = payloads[p]; break;
            }
            if (where == 0 && strchr(payloads[p], '\n'))
                continue; /* a line break in the header makes another line: tried as a cell */
            study st;
            write_study("h", axes, 2, 0, &v, &st);
            pl_output out;
            pl_error err;
            pl_status s = render("h", NULL, &out, &err);
            CHECK(s == PL_ERR_INPUT && strstr(err.message, file) && !strchr(err.message, '\n') &&
                      out.written.n == 0 && !exists("h/PLANTED") && !exists("PLANTED"),
                  "payload %zu in %s %d: refused naming %s, nothing written (%d: %s)", p, file, where, file, s,
                  s ? err.message : "drawn");
            pl_output_free(&out);
            char cmd[600];
            snprintf(cmd, sizeof cmd, "rm -rf %s/h", dir);
            CHECK(system(cmd) == 0, "%s", cmd);
        }
}

/* More points than lines: the first 40 drawn, the title says so; no refined axis: lines along the
 * first axis with more than one value, one per value of the others. */
static void test_lines(void)
{
    test_axis axes[] = {{"a", 45, {0}, 0}, {"mu", 2, {1e4, 1e5}, 1}};
    for (int i = 0; i < 45; i++)
        axes[0].v[i] = 1 + i;
    study st;
    write_study("cap", axes, 2, 0, NULL, &st);
    pl_output out;
    pl_error err;
    pl_study_plot_opts opts = {.quantities = (const char *[]){"restitution_first"}, .nquantities = 1};
    pl_status s = render("cap", &opts, &out, &err);
    CHECK(s == PL_OK, "45 points (%s)", s == PL_OK ? "" : err.message);
    pl_output_free(&out);
    char *gp = slurp("cap/family_restitution_first.gp");
    CHECK(gp && strstr(gp, "(the first 40 of 45)'"), "the title says 40 of 45 (%s)", gp ? gp : "");
    int lines = 0; /* of the first 40 points, those with a value */
    for (int p = 0; p < 40; p++) {
        int any = 0;
        for (int run = 0; run < st.nruns; run++)
            any |= st.point[run] == p && st.ok[run] && !isnan(st.r[run]);
        lines += any;
    }
    char want[32];
    snprintf(want, sizeof want, "nlines = %d\n", lines);
    CHECK(gp && strstr(gp, want), "%s", want);
    free(gp);
    check_family("cap", &st, axes, 2, 1, 1);
    check_legend("cap", "family_restitution_first", lines); /* every one of the 40 keys drawn, inside */

    /* long keys (two long axis names and values): every entry drawn inside the canvas */
    const test_axis wide[] = {{"a_rather_long_parameter_name", 3, {0.3125, 0.5625, 0.84375}, 0},
                              {"another_long_parameter", 4, {1.0625, 2.125, 3.1875, 4.25}, 0},
                              {"mu", 2, {1e4, 1e6}, 1}};
    write_study("wide", wide, 3, 0, NULL, &st);
    s = render("wide", &opts, &out, &err);
    CHECK(s == PL_OK, "long keys (%s)", s == PL_OK ? "" : err.message);
    pl_output_free(&out);
    check_family("wide", &st, wide, 3, 2, 1);
    check_legend("wide", "family_restitution_first", 11);

    /* the axis t-end: its column t_end, or t-end */
    const test_axis plain[] = {{"t-end", 3, {0.75, 1.5, 2.25}, 0}, {"N", 2, {2, 3}, 0}};
    variant t_end = {.axis_name = "t_end"};
    for (int k = 0; k < 3; k++) {
        write_study("plain", plain, 2, 0, k == 0 ? &t_end : NULL, &st);
        if (k == 2) { /* the column neither */
            char cmd[600];
            snprintf(cmd, sizeof cmd, "cd %s/plain && sed -i '1s/t-end/t_end_x/' study.csv", dir);
            CHECK(system(cmd) == 0, "%s", cmd);
        }
        /* study.json names the axis t-end in every case */
        char cmd[600];
        snprintf(cmd, sizeof cmd, "cd %s/plain && sed -i 's/\"t_end\"/\"t-end\"/' study.json", dir);
        CHECK(system(cmd) == 0, "%s", cmd);
        s = render("plain", NULL, &out, &err);
        if (k < 2) {
            char *gp = slurp("plain/family_restitution_first.gp");
            CHECK(s == PL_OK && gp && strstr(gp, k == 0 ? "xname = 't_end'" : "xname = 't-end'"),
                  "t-end's column %s (%s)", k == 0 ? "t_end" : "t-end", s == PL_OK ? "" : err.message);
            free(gp);
        } else
            CHECK(s == PL_ERR_INPUT && strstr(err.message, "no column 't_end' before 'status' (axis 't-end'"),
                  "no column for t-end (%s)", s ? err.message : "");
        pl_output_free(&out);
        snprintf(cmd, sizeof cmd, "rm -rf %s/plain", dir);
        CHECK(system(cmd) == 0, "%s", cmd);
    }
    /* the figures follow the study's law: mu a pure multiplier of a physical k (Hunt-Crossley, Hertz), a
     * stiffness per unit mass otherwise (a law penlim lacks, "linear", is drawn as Kelvin-Voigt's) */
    const char *const laws[] = {"hunt_crossley", "linear"};
    for (int k = 0; k < 2; k++) {
        write_study("plain", plain, 2, 0, NULL, &st);
        char cmd[600];
        snprintf(cmd, sizeof cmd, "cd %s/plain && sed -i 's/\"linear\"/\"%s\"/' study.json", dir, laws[k]);
        CHECK(system(cmd) == 0, "%s", cmd);
        s = render("plain", NULL, &out, &err);
        char *gp = slurp("plain/family_restitution_first.gp");
        CHECK(s == PL_OK && gp && strstr(gp, k == 0 ? "physical_k = 1\n" : "physical_k = 0\n") &&
                  strstr(gp, "physical_k") < strstr(gp, "load 'styles.gp'"),
              "contact_law %s: physical_k %d, before styles.gp (%s)", laws[k], k == 0, s == PL_OK ? "" : err.message);
        free(gp);
        pl_output_free(&out);
        snprintf(cmd, sizeof cmd, "rm -rf %s/plain", dir);
        CHECK(system(cmd) == 0, "%s", cmd);
    }
    const test_axis plain2[] = {{"N", 2, {2, 3}, 0}, {"e", 3, {0.3125, 0.5625, 0.84375}, 0}};
    write_study("plain", plain2, 2, 0, NULL, &st);
    s = render("plain", NULL, &out, &err);
    CHECK(s == PL_OK && pl_strings_has(&out.written, "map_restitution_first.png"), "no refined axis (%s)",
          s == PL_OK ? "" : err.message);
    pl_output_free(&out);
    check_family("plain", &st, plain2, 2, 0, 0);
    static block held[2];
    CHECK(read_map("plain", "map_restitution_first", "N", "e", "restitution_first", held, 2) == 1 &&
              strcmp(held[0].label, "restitution_first, one cell per run") == 0,
          "a map of every axis: its key says one cell per run ('%s')", held[0].label);
    gp = slurp("plain/family_restitution_first.gp");
    CHECK(gp && strstr(gp, "xname = 'N'") && strstr(gp, "logx = 0\n") && strstr(gp, "one line per value of the other"),
          "lines along N (%s)", gp ? gp : "");
    free(gp);

    /* more quantities than figures: the first 47 planned, none of them refused */
    variant many = {.quantities = 60};
    write_study("many", plain2, 2, 0, &many, &st);
    s = render("many", NULL, &out, &err);
    CHECK(s == PL_OK && pl_strings_has(&out.written, "map_restitution_first.png") &&
              !pl_strings_has(&out.written, "family_restitution_first.png"),
          "60 quantities before restitution_first: its family not among the first 47, its map drawn (%s)",
          s == PL_OK ? "" : err.message);
    pl_output_free(&out);

    /* zipped axes: one line, no map */
    const test_axis zipped[] = {{"N", 2, {2, 3}, 0}, {"e", 2, {0.3125, 0.5625}, 0}};
    write_study("zip", zipped, 2, 1, NULL, &st);
    s = render("zip", NULL, &out, &err);
    CHECK(s == PL_OK && pl_strings_has(&out.written, "family_restitution_first.png") &&
              !pl_strings_has(&out.written, "map_restitution_first.png"),
          "zip: families, no map (%s)", s == PL_OK ? "" : err.message);
    pl_output_free(&out);
}

/* The axis labels of figure FIGURE of sub, as gnuplot composes them from FIGURE.gp's settings and
 * styles.gp: "XLABEL|YLABEL" (the map's; a family's Y is its quantity's) into buf. */
static void axis_labels(const char *sub, const char *figure, char *buf, size_t len)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd %s/%s && sed '/^load/d' %s.gp > settings.gp && gnuplot -e \"load 'settings.gp'; load 'styles.gp'; "
             "set print '-'; print axis(xname).'|'.axis(exists('yname') ? yname : quantity)\" 2>/dev/null",
             dir, sub, figure);
    buf[0] = '\0';
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL, "%s", cmd);
    if (p) {
        if (fgets(buf, (int)len, p))
            buf[strcspn(buf, "\n")] = '\0';
        pclose(p);
    }
}

/* A parameter on a study axis is labelled with its unit in the case's declared units: Hunt-Crossley's c
 * (1/velocity) in s/m, the ball's h0 in m and g in m/s^2, e "dimensionless"; Hertz's k (force/length^1.5)
 * bare; the same axes of a case without units (the wedge) by their symbols alone. */
static void test_parameter_units(void)
{
    static const struct {
        const char *case_name, *law, *x, *y, *map, *family;
    } want[] = {
        {"bouncing_ball", "hunt_crossley", "c", "h0", "c (s/m)|h_{0} (m)", "c (s/m)|e_1"},
        {"bouncing_ball", "kelvin_voigt", "e", "g", "e (dimensionless)|g (m/s^{2})", "e (dimensionless)|e_1"},
        {"vibrating_table", "hertz", "k", "omega", "k|omega (s^{-1})", "k|e_1"},
        {"wedge", "hunt_crossley", "c", "h0", "c|h_{0}", "c|e_1"},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        const test_axis axes[] = {{want[k].x, 2, {0.0625, 0.1875}, 0}, {want[k].y, 3, {0.5, 1.25, 2.5}, 0}};
        variant var = {.case_name = want[k].case_name};
        study st;
        write_study("units", axes, 2, 0, &var, &st);
        char cmd[600], map[256], family[256];
        snprintf(cmd, sizeof cmd, "cd %s/units && sed -i 's/\"linear\"/\"%s\"/' study.json", dir, want[k].law);
        CHECK(system(cmd) == 0, "%s", cmd);
        pl_output out;
        pl_error err;
        pl_study_plot_opts opts = {.quantities = (const char *[]){"restitution_first"}, .nquantities = 1};
        pl_status s = render("units", &opts, &out, &err);
        CHECK(s == PL_OK, "%s under %s (%s)", want[k].case_name, want[k].law, s == PL_OK ? "" : err.message);
        pl_output_free(&out);
        axis_labels("units", "map_restitution_first", map, sizeof map);
        axis_labels("units", "family_restitution_first", family, sizeof family);
        CHECK(strcmp(map, want[k].map) == 0 && strcmp(family, want[k].family) == 0,
              "%s under %s: map axes '%s' (want '%s'), family's '%s' (want '%s')", want[k].case_name, want[k].law, map,
              want[k].map, family, want[k].family);
        snprintf(cmd, sizeof cmd, "rm -rf %s/units", dir);
        CHECK(system(cmd) == 0, "%s", cmd);
    }
}

/* A map's cells do not extend a linear axis past 0 where its values all lie on one side of it: c in
 * {0.5, 2} has edges 0, 1.25, 2.75 (-0.25 extrapolated), m in {-0.5, -0.1} -0.7, -0.3, 0 (0.1). */
static void test_one_signed_edges(void)
{
    const test_axis axes[] = {{"c", 2, {0.5, 2.0}, 0}, {"m", 2, {-0.5, -0.1}, 0}};
    variant var = {.case_name = "wedge"};
    study st;
    write_study("signs", axes, 2, 0, &var, &st);
    pl_output out;
    pl_error err;
    pl_study_plot_opts opts = {.quantities = (const char *[]){"restitution_first"}, .nquantities = 1};
    pl_status s = render("signs", &opts, &out, &err);
    CHECK(s == PL_OK, "a map over c and m (%s)", s == PL_OK ? "" : err.message);
    pl_output_free(&out);
    static block m[2];
    int nb = read_map("signs", "map_restitution_first", "c", "m", "restitution_first", m, 2);
    CHECK(nb == 1 && m[0].nrows > 0, "the map over c and m: %d blocks", nb);
    for (int r = 0; nb == 1 && r < m[0].nrows; r++) {
        const double *c = m[0].row[r];
        double clo = c[0] == 0.5 ? 0.0 : 1.25, chi = c[0] == 0.5 ? 1.25 : 2.75;
        double mlo = c[1] == -0.5 ? -0.7 : -0.3, mhi = c[1] == -0.5 ? -0.3 : 0.0;
        CHECK(c[2] == clo && c[3] == chi && fabs(c[4] - mlo) < 1e-15 && fabs(c[5] - mhi) < 1e-15,
              "cell (%g, %g): c in [%g, %g] (want [%g, %g]), m in [%g, %g] (want [%g, %g])", c[0], c[1], c[2], c[3],
              clo, chi, c[4], c[5], mlo, mhi);
    }
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s/signs", dir);
    CHECK(system(cmd) == 0, "%s", cmd);
}

/* penlim plot of a study directory: the figures drawn again and listed; a hostile name refused. */
static void test_penlim_plot(void)
{
    const test_axis axes[] = {{"N", 2, {2, 3}, 0}, {"e", 3, {0.3125, 0.5625, 0.84375}, 0}, {"mu", 3, {1e4, 1e6, 1e8}, 1}};
    study st;
    write_study("p", axes, 3, 0, NULL, &st);
    const char *manifest = "{\"penlim_manifest\": 1, \"penlim_version\": \"0.2.0\", \"command\": \"study\", "
                           "\"case\": \"bouncing_ball\", \"solver\": \"penalty\", \"figures\": {\"map\": "
                           "\"impact_time_error\", \"map_axes\": [\"mu\", \"N\"]}, "
                           "\"files\": [\"study.csv\", \"study.json\"]}\n";
    char path[1024];
    snprintf(path, sizeof path, "%s/p/manifest.json", dir);
    write_text(path, manifest);
    int rc = run("plot p");
    char *out = slurp("stdout.txt"), *err = slurp("stderr.txt");
    CHECK(rc == 0 && out && strstr(out, "p/map_impact_time_error.png") && strstr(out, "p/family_restitution_first.png"),
          "penlim plot of a study (exit %d: %s%s)", rc, out ? out : "", err ? err : "");
    free(out);
    free(err);
    json_t *m = json_load_file(path, 0, NULL);
    const json_t *files = json_object_get(m, "files");
    int listed = 0;
    for (size_t k = 0; k < json_array_size(files); k++) {
        const char *f = json_string_value(json_array_get(files, k));
        listed += strcmp(f, "map_impact_time_error.pdf") == 0 || strcmp(f, "map_impact_time_error.csv") == 0 ||
                  strcmp(f, "study_map.gp") == 0;
    }
    CHECK(listed == 3, "the manifest lists the map's files (%d of 3)", listed);
    json_decref(m);
    char *gp = slurp("p/map_impact_time_error.gp");
    CHECK(gp && strstr(gp, "xname = 'mu'") && strstr(gp, "yname = 'N'"), "the manifest's map axes");
    free(gp);
    /* the manifest's figures naming what the study lacks, or not what they may be */
    const char *figures[] = {"{\"map\": \"q'; system('touch PLANTED'); '\"}", "{\"map_axes\": [\"mu\", \"`touch PLANTED`\"]}",
                             "{\"quantities\": [\"<touch PLANTED\"]}", "{\"map\": 3}", "\"restitution_first\""};
    for (size_t k = 0; k < sizeof figures / sizeof *figures; k++) {
        char text[1024];
        snprintf(text, sizeof text, "{\"penlim_manifest\": 1, \"command\": \"study\", \"figures\": %s, "
                 "\"files\": [\"study.csv\", \"study.json\"]}\n", figures[k]);
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf %s/p", dir);
        CHECK(system(cmd) == 0, "%s", cmd);
        write_study("p", axes, 3, 0, NULL, &st);
        write_text(path, text);
        rc = run("plot p");
        err = slurp("stderr.txt");
        CHECK(rc == 2 && err && count_lines(err) == 1 && !exists("p/PLANTED") && !exists("PLANTED") &&
                  !exists("p/styles.gp"),
              "penlim plot: figures %s refused, nothing written (exit %d: %s)", figures[k], rc, err ? err : "");
        free(err);
    }
    /* a hostile axis name in a directory penlim plot draws */
    variant v = {.axis_name = "N'; system('touch PLANTED'); '"};
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s/p", dir);
    CHECK(system(cmd) == 0, "%s", cmd);
    write_study("p", axes, 3, 0, &v, &st);
    write_text(path, manifest);
    rc = run("plot p");
    err = slurp("stderr.txt");
    CHECK(rc == 2 && err && count_lines(err) == 1 && strstr(err, "study.json") && !exists("p/PLANTED") &&
              !exists("PLANTED"),
          "penlim plot: a hostile axis refused (exit %d: %s)", rc, err ? err : "");
    free(err);
}

int main(int argc, char **argv)
{
    check_init();
    if (argc != 2) {
        fprintf(stderr, "usage: test_study_plots PATH_TO_PENLIM\n");
        return 2;
    }
    static char path[4096];
    if (!realpath(argv[1], path)) {
        fprintf(stderr, "test_study_plots: %s not found\n", argv[1]);
        return 2;
    }
    penlim = path;
    if (system("command -v gnuplot > /dev/null 2>&1") != 0) {
        fprintf(stderr, "test_study_plots: gnuplot is not installed (scripts/setup installs it)\n");
        return 1;
    }
    snprintf(dir, sizeof dir, "/tmp/penlim-study-plots-XXXXXX");
    if (!mkdtemp(dir) || chdir(dir) != 0)
        return 2;
    test_hand_written_study();
    test_before_the_study();
    test_hostile();
    test_lines();
    test_parameter_units();
    test_one_signed_edges();
    test_penlim_plot();
    if (chdir("/") != 0)
        return 2;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (check_failures == 0 && system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_finish("test_study_plots");
}
