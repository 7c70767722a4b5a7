/* End-to-end tests of penlim compare: an external file holding the closed-form bouncing ball
 * against the limit solution, a known shift, bad files, and the default set; impacts matched by time
 * (a sweep of the vibrating table, a file that misses an impact); the families' verdicts. */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cli_util.h"
#include "event_ball.h"


static void write_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void write_bytes(const char *name, const char *data, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    fwrite(data, 1, len, f);
    fclose(f);
}

/* Field `column` (by its header name) of the first row of csv starting with `prefix`, copied to buf
 * ("" if absent). Plain fields only (no quoting), which is all the number columns hold. */
static const char *csv_field(const char *csv, const char *prefix, const char *column, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!csv)
        return buf;
    int col = -1, i = 0;
    for (const char *p = csv; *p && *p != '\n'; i++) {
        size_t w = strcspn(p, ",\n");
        if (w == strlen(column) && strncmp(p, column, w) == 0)
            col = i;
        p += w;
        if (*p == ',')
            p++;
    }
    const char *row = NULL;
    for (const char *p = strchr(csv, '\n'); p && !row; p = strchr(p + 1, '\n'))
        if (strncmp(p + 1, prefix, strlen(prefix)) == 0)
            row = p + 1;
    if (col < 0 || !row)
        return buf;
    for (i = 0; i < col && row; i++) {
        row = strpbrk(row, ",\n");
        row = row && *row == ',' ? row + 1 : NULL;
    }
    if (row) {
        size_t w = strcspn(row, ",\n");
        snprintf(buf, len, "%.*s", (int)(w < len ? w : len - 1), row);
    }
    return buf;
}

/* The shortest of %.15g, %.16g, %.17g that reads back as x, the exponent without '+' and leading
 * zeros (docs/formats.md), written here independently of penlim's writer. */
/* x with the fewest of digits from..17 that read back as "%.{p}g" prints them, the exponent
 * without '+' and leading zeros. */
static void digits_from(int from, double x, char *buf, size_t len)
{
    for (int p = from; p <= 17; p++) {
        snprintf(buf, len, "%.*g", p, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    char *e = strchr(buf, 'e');
    if (e) {
        char *r = e + 1, *w = e + 1;
        if (*r == '+')
            r++;
        else if (*r == '-')
            *w++ = *r++;
        while (*r == '0' && r[1])
            r++;
        memmove(w, r, strlen(r) + 1);
    }
}

static void shortest(double x, char *buf, size_t len)
{
    digits_from(15, x, buf, len);
}

/* The form of directory names, which the refined parameter's column shares (docs/formats.md, "One
 * vocabulary"): the fewest digits, or the shortest exact form when that is shorter (1e4, 1500). */
static void short_form(double x, char *buf, size_t len)
{
    char full[64];
    shortest(x, full, sizeof full);
    digits_from(1, x, buf, len);
    if (strlen(full) <= strlen(buf))
        snprintf(buf, len, "%s", full);
}

/* Every number of compare.csv (after its 6 text columns) in its shortest exact form, or nan; the
 * parameter as in directory names. */
static int csv_numbers_shortest(const char *csv, char *bad, size_t len)
{
    const char *line = csv ? strchr(csv, '\n') : NULL;
    for (; line && line[1]; line = strchr(line + 1, '\n')) {
        const char *p = line + 1;
        for (int f = 0; *p && *p != '\n'; f++) {
            size_t w = strcspn(p, ",\n");
            if (f == 3 || f >= 6) {
                char field[64], want[64];
                snprintf(field, sizeof field, "%.*s", (int)(w < 63 ? w : 63), p);
                if (strcmp(field, "nan") != 0 && !(f == 3 && strncmp(line + 1, "external,", 9) == 0)) {
                    (f == 3 ? short_form : shortest)(strtod(field, NULL), want, sizeof want);
                    if (strcmp(field, want) != 0) {
                        snprintf(bad, len, "%s (shortest %s)", field, want);
                        return 0;
                    }
                }
            }
            p += w;
            if (*p == ',')
                p++;
        }
    }
    return 1;
}

/* The bouncing ball in closed form (paper 004 eq. (51) with restitution e): flights
 * q = q0 + v0 (t - t0) - g (t - t0)^2 / 2 from q0 = h0, v0 = 0, impacts at q = 0 where the velocity
 * -V becomes e V.  Rows at `rows` uniform times in [0, t_end] and, at each impact, two rows (before,
 * after); q shifted by dq. */
static void write_ball(const char *name, double e, double t_end, int rows, double dq)
{
    const double g = 9.81, h0 = 1.0;
    double impacts[64], vin[64];
    size_t ni = 0;
    double t = sqrt(2.0 * h0 / g), v = g * t; /* first impact, its speed */
    while (t <= t_end && ni < 64) {
        impacts[ni] = t;
        vin[ni++] = v;
        v *= e;
        t += 2.0 * v / g;
    }
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fprintf(f, "t,q1,v1,note\n");
    size_t next = 0;
    for (int k = 0; k < rows; k++) {
        double tk = t_end * k / (rows - 1);
        while (next < ni && impacts[next] <= tk) {
            /* the jump: two rows at the impact time */
            fprintf(f, "%.17g,%.17g,%.17g,before\n", impacts[next], 0.0 + dq, -vin[next]);
            fprintf(f, "%.17g,%.17g,%.17g,after\n", impacts[next], 0.0 + dq, e * vin[next]);
            next++;
        }
        if (next > 0 && impacts[next - 1] == tk)
            continue;
        double t0 = next == 0 ? 0.0 : impacts[next - 1], v0 = next == 0 ? 0.0 : e * vin[next - 1];
        double q0 = next == 0 ? h0 : 0.0, s = tk - t0;
        fprintf(f, "%.17g,%.17g,%.17g,flight\n", tk, q0 + v0 * s - 0.5 * g * s * s + dq, v0 - g * s);
    }
    fclose(f);
}

static json_t *load_json(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return json_load_file(path, 0, NULL);
}

static double distance(const json_t *sol, const char *name)
{
    const json_t *v = json_object_get(json_object_get(sol, "distances"), name);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void test_closed_form(void)
{
    /* e = 0.5: impacts at 0.4515, 0.9031, 1.1288, 1.2417, ...: t-end 1.2 before the Zeno point (1.3546) */
    write_ball("ball.csv", 0.5, 1.2, 2000, 0.0);
    write_ball("ball_shifted.csv", 0.5, 1.2, 2000, 1e-3);
    int rc = run("compare bouncing_ball --set e=0.5 --t-end 1.2 --external ball.csv --external ball_shifted.csv "
                 "--out cf --no-plots --quiet");
    CHECK(rc == 0, "compare with external files exits 0 (got %d)", rc);
    json_t *j = load_json("cf/compare.json");
    const json_t *sols = json_object_get(j, "solutions");
    CHECK(json_array_size(sols) == 2, "two solutions");
    const json_t *a = json_array_get(sols, 0), *b = json_array_get(sols, 1);
    CHECK(strcmp(json_string_value(json_object_get(a, "solution")), "external") == 0, "solution external");
    CHECK(strcmp(json_string_value(json_object_get(a, "parameter")), "ball.csv") == 0, "parameter: the file");
    /* Round-off level: the interpolant (q Hermite with slopes v, v linear) is exact on parabolas. */
    CHECK(distance(a, "sup_q") < 1e-10, "closed form: sup_q %.3g", distance(a, "sup_q"));
    CHECK(distance(a, "l1_v") < 1e-10, "closed form: l1_v %.3g", distance(a, "l1_v"));
    CHECK(distance(a, "impact_time_error") < 1e-10, "closed form: impact times %.3g", distance(a, "impact_time_error"));
    CHECK(distance(a, "impact_velocity_error") < 1e-10, "closed form: impact velocities %.3g",
          distance(a, "impact_velocity_error"));
    CHECK(distance(a, "final_q_error") < 1e-10 && distance(a, "final_v_error") < 1e-10, "closed form: final state");
    CHECK(distance(a, "impacts_matched") == 3, "closed form: 3 impacts matched (got %g)", distance(a, "impacts_matched"));
    CHECK(isnan(distance(a, "s_distance_q")), "no gamma column: no distance in s");
    /* The shift comes back exactly. */
    CHECK_NEAR(distance(b, "sup_q"), 1e-3, 1e-12, "shifted: sup_q");
    CHECK_NEAR(distance(b, "final_q_error"), 1e-3, 1e-12, "shifted: final q");
    CHECK(distance(b, "l1_v") < 1e-10, "shifted: l1_v unchanged %.3g", distance(b, "l1_v"));
    json_decref(j);
    char *csv = slurp("cf/compare.csv");
    CHECK(csv && strncmp(csv, "solution,family,parameter_name,parameter,status,directory,sup_q,", 64) == 0,
          "compare.csv header");
    CHECK(csv && strstr(csv, "\nexternal,external,file,ball.csv,ok,"), "compare.csv: the external row");
    /* t-end 1.2 is before the Zeno point: the limit has no capture, so no capture error either */
    char f1[64], f2[64];
    csv_field(csv, "limit,", "capture_time", f1, sizeof f1);
    csv_field(csv, "limit,", "capture_error", f2, sizeof f2);
    CHECK(strcmp(f1, "nan") == 0 && strcmp(f2, "nan") == 0,
          "limit row without a capture: capture_time and capture_error both nan (got %s, %s)", f1, f2);
    csv_field(csv, "limit,", "impact_time_error", f1, sizeof f1);
    CHECK(strcmp(f1, "0") == 0, "limit row with impacts: its impact time error is 0 (got %s)", f1);
    char bad[160] = "";
    CHECK(csv_numbers_shortest(csv, bad, sizeof bad), "compare.csv: every number in its shortest exact form: %s", bad);
    CHECK(csv && strstr(csv, "\nlimit,limit,rtol,1e-12,ok,limit,"), "compare.csv: the limit's rtol reads 1e-12");
    free(csv);

    /* penlim's own trajectory.csv is accepted (its other columns ignored, gamma used). */
    rc = run("compare bouncing_ball --set e=0.5 --t-end 1.2 --external cf/limit/trajectory.csv --out cf2 --no-plots --quiet");
    CHECK(rc == 0, "penlim's own trajectory.csv as an external file (got %d)", rc);
    j = load_json("cf2/compare.json");
    a = json_array_get(json_object_get(j, "solutions"), 0);
    CHECK(distance(a, "sup_q") < 1e-9, "the limit read back: sup_q %.3g", distance(a, "sup_q"));
    CHECK(distance(a, "impact_time_error") == 0.0, "the limit read back: impact times");
    CHECK(isfinite(distance(a, "s_distance_q")), "gamma column: distance in s measured");
    json_decref(j);
}

/* A bad file: exit 2, one line naming FILE:LINE[:COLUMN], nothing written. */
static void expect_bad_file(const char *content, const char *where)
{
    write_file("bad.csv", content);
    int rc = run("compare bouncing_ball --set e=0.5 --t-end 1.2 --mu 1e4 --external bad.csv --out badout --quiet");
    char *err = slurp("stderr.txt");
    int lines = 0;
    for (const char *p = err; p && *p; p++)
        lines += *p == '\n';
    CHECK(rc == 2, "bad file (%s) exits 2 (got %d)", where, rc);
    CHECK(err && lines == 1 && strstr(err, where), "bad file: one line naming '%s', got: %s", where, err ? err : "");
    CHECK(!exists("badout"), "bad file (%s): nothing written", where);
    free(err);
}

/* An event-driven ball in a file (tests/event_ball.h), the default case's, its rebounds resolved down
 * to 1e-9 of the first impact's speed and then at rest: its capture is its last impact, within the
 * time of the unresolved rebounds (< 2e-9 v1/(g (1 - e)) = 9e-9) of the limit's Zeno point. */
static void test_event_driven_capture(void)
{
    const double g = 9.81, h0 = 1.0, e = 0.9, t1 = sqrt(2.0 * h0 / g), v1 = g * t1;
    double t_acc = t1 + 2.0 * e * v1 / (g * (1.0 - e)), tail = 2e-9 * v1 / (g * (1.0 - e));
    char path[512];
    snprintf(path, sizeof path, "%s/zeno_ball.csv", dir);
    event_ball b = {g, h0, e, 0.01, 10.0, 1e-9 * v1, 1};
    event_ball_info info;
    CHECK(write_event_ball(path, &b, &info) == 0, "zeno_ball.csv written");
    int rc = run("compare bouncing_ball --external zeno_ball.csv --out zb --no-plots --quiet");
    CHECK(rc == 0, "compare with the event-driven ball exits 0 (got %d)", rc);
    char *csv = slurp("zb/compare.csv");
    char f1[64], f2[64];
    double T = strtod(csv_field(csv, "external,", "capture_time", f1, sizeof f1), NULL);
    double err = strtod(csv_field(csv, "external,", "capture_error", f2, sizeof f2), NULL);
    CHECK(fabs(T - info.t_last) <= 1e-12 * t_acc, "captured at the last impact %.15g (got %s)", info.t_last, f1);
    CHECK(fabs(T - t_acc) <= tail && err <= tail, "capture %s within %.3g of the Zeno point %.15g (capture error %s)",
          f1, tail, t_acc, f2);
    free(csv);
    json_t *sum = load_json("zb/solutions/01_external/summary.json");
    json_t *zeno = json_object_get(json_object_get(sum, "analysis"), "zeno");
    CHECK(json_is_null(json_object_get(zeno, "capture_note")), "summary.json: capture_note null when captured");
    CHECK(json_integer_value(json_object_get(zeno, "impacts_before_capture")) == (json_int_t)info.impacts - 1,
          "summary.json: every impact but the last before the capture");
    json_decref(sum);
}

static void test_bad_files(void)
{
    expect_bad_file("", "bad.csv:1:");                                        /* empty */
    expect_bad_file("0,1,0\n0.1,0.9,-1\n", "bad.csv:1:1:");                   /* no header */
    expect_bad_file("t,q1\n0,1\n0.1,0.9\n", "bad.csv:1:");                    /* missing column */
    expect_bad_file("t,q1,v1,q2,v2\n0,1,0,1,0\n0.1,1,0,1,0\n", "bad.csv:1:4:"); /* n differs */
    expect_bad_file("t,q1,v1\n0,1,0\n0.1,abc,0\n", "bad.csv:3:2:");           /* not a number */
    expect_bad_file("t,q1,v1\n0,1,0\n0.1,0.9,inf\n", "bad.csv:3:3:");         /* not finite */
    expect_bad_file("t,q1,v1\n0,1,0\n0.1,0.9,nan\n", "bad.csv:3:3:");         /* not finite */
    expect_bad_file("t,q1,v1\n0,1,0\n0.2,0.9,-1\n0.1,0.8,-1\n", "bad.csv:4:1:"); /* t decreases */
    expect_bad_file("t,q1,v1\n0,1,0\n", "bad.csv:2:");                         /* one row */
    expect_bad_file("t,q1,v1\n0,1,0\n5,0.9,-1\n", "bad.csv:3:1:");             /* t beyond t-end */
    expect_bad_file("t,q1,v1\n-0.1,1,0\n0.5,0.9,-1\n", "bad.csv:2:1:");        /* t before 0 */
    expect_bad_file("t,q1,v1\n0,1,0\n0.1,0.9\n", "bad.csv:3:3:");              /* a short row */
    expect_bad_file("t,q1,v1\n0,1,0\n0.1,0.9,-1,7\n", "bad.csv:3:");           /* a long row */
    expect_bad_file("t,q1,v1\n0,1,0\n0.1,0.9,-1,7\n", "more than the header's 3");
    expect_bad_file("t,q1,v1\n0,1\r,0\n0.1,0.9,-1\n", "bad.csv:2:4:");        /* \r inside a line */
    expect_bad_file("t,q1,v1\n0,1\r,0\n0.1,0.9,-1\n", "carriage return");
    expect_bad_file("t,,q1,v1\n0,1,0,0\n0.1,1,0.9,-1\n", "bad.csv:1:2:");     /* an empty column name */
    expect_bad_file("t,,q1,v1\n0,1,0,0\n0.1,1,0.9,-1\n", "empty column name");
    expect_bad_file("t,x,y\n0,1,0\n0.1,0.9,-1\n", "(needed: t, q1, v1)");     /* n = 1: no q1..q1 */
    expect_bad_file("0,1,0\n0.1,0.9,-1\n", "columns: t, q1, v1)");
    /* a NUL byte: reported as such, at its line and column */
    {
        static const char nul[] = "t,q1,v1\n0,1,0\n0.1,0\0.9,-1\n";
        write_bytes("bad.csv", nul, sizeof nul - 1);
        int rc = run("compare bouncing_ball --set e=0.5 --t-end 1.2 --mu 1e4 --external bad.csv --out badout --quiet");
        char *err = slurp("stderr.txt");
        CHECK(rc == 2 && err && strstr(err, "bad.csv:3:6:") && strstr(err, "NUL"), "a NUL byte is reported as such: %s",
              err ? err : "");
        CHECK(!exists("badout"), "NUL byte: nothing written");
        free(err);
    }
    /* a missing file */
    int rc = run("compare bouncing_ball --external no_such.csv --out badout --quiet");
    char *err = slurp("stderr.txt");
    CHECK(rc == 2 && err && strstr(err, "no_such.csv"), "a missing file exits 2 naming it: %s", err ? err : "");
    CHECK(!exists("badout"), "missing file: nothing written");
    free(err);
    /* bad solutions */
    rc = run("compare bouncing_ball --h 0.01 --out badout --quiet");
    CHECK(rc == 2 && !exists("badout"), "--h without --scheme is bad input");
    rc = run("compare bouncing_ball --scheme paoli --out badout --quiet");
    CHECK(rc == 2 && !exists("badout"), "a scheme that does not apply is bad input");
    /* of two bad inputs, the one first on the command line is named (a bad number after a bad scheme
     * or value) */
    rc = run("compare bouncing_ball --scheme nosuch --h abc --out badout --quiet");
    err = slurp("stderr.txt");
    CHECK(rc == 2 && err && strstr(err, "'nosuch'") && !strstr(err, "abc"), "the unknown scheme before --h abc: %s",
          err ? err : "");
    free(err);
    rc = run("compare bouncing_ball --mu -1 --mu abc --out badout --quiet");
    err = slurp("stderr.txt");
    CHECK(rc == 2 && err && strstr(err, "mu = -1") && !strstr(err, "abc"), "mu = -1 before --mu abc: %s",
          err ? err : "");
    free(err);
}

/* Files that are fine: a UTF-8 byte order mark, \r\n line endings, a line break in the name. */
static void test_unusual_files(void)
{
    write_file("bom.csv", "\xEF\xBB\xBFt,q1,v1\n0,1,0\n0.1,0.95095,-0.981\n");
    int rc = run("compare bouncing_ball --set e=0.5 --t-end 1.2 --external bom.csv --out bom --no-plots --quiet");
    char *err = slurp("stderr.txt");
    CHECK(rc == 0, "a UTF-8 byte order mark is skipped (got %d): %s", rc, err ? err : "");
    free(err);
    write_file("crlf.csv", "t,q1,v1\r\n0,1,0\r\n0.1,0.95095,-0.981\r\n");
    rc = run("compare bouncing_ball --set e=0.5 --t-end 1.2 --external crlf.csv --out crlf --no-plots --quiet");
    err = slurp("stderr.txt");
    CHECK(rc == 0, "\\r\\n line endings are fine (got %d): %s", rc, err ? err : "");
    free(err);
    write_file("a\nb.csv", "t,q1,v1\n0,1,0\n0.1,0.95095,-0.981\n");
    rc = run("compare bouncing_ball --set e=0.5 --t-end 1.2 --external 'a\nb.csv' --out nl --no-plots");
    char *out = slurp("stdout.txt");
    CHECK(rc == 0 && out && strstr(out, "a\\nb.csv"), "a line break in a file name is escaped in the summary: %s",
          out ? out : "");
    CHECK(out && !strstr(out, "a\nb.csv"), "the summary has no raw line break from the name");
    free(out);
}

static void test_default_set(void)
{
    int rc = run("compare bouncing_ball --t-end 1 --out def");
    CHECK(rc == 0, "the default set exits 0 (got %d)", rc);
    char *out = slurp("stdout.txt"), *csv = slurp("def/compare.csv");
    CHECK(out && strstr(out, "penalty") && strstr(out, "moreau_jean"), "table has penalty and scheme rows: %s",
          out ? out : "");
    int penalty = 0, mj = 0;
    for (const char *p = csv; p && (p = strchr(p, '\n')) != NULL; p++) {
        penalty += strncmp(p + 1, "penalty,", 8) == 0;
        mj += strncmp(p + 1, "moreau_jean,", 12) == 0;
    }
    CHECK(penalty == 3 && mj == 3, "3 penalty and 3 Moreau-Jean rows (got %d, %d)", penalty, mj);
    CHECK(exists("def/manifest.json") && exists("def/limit/trajectory.csv"), "manifest and limit written");
    free(out);
    free(csv);
}

/* The default set on the cases of paper 003's setting completes: every solution ok. */
static void test_default_set_curved(void)
{
    const char *cases[] = {"cup", "cup --set polar=1", "disk"};
    for (int c = 0; c < 3; c++) {
        char args[256];
        snprintf(args, sizeof args, "compare %s --out curved%d --no-plots --quiet", cases[c], c);
        int rc = run(args);
        CHECK(rc == 0, "compare %s exits 0 (got %d)", cases[c], rc);
        snprintf(args, sizeof args, "curved%d/compare.csv", c);
        char *csv = slurp(args);
        int rows = 0, ok = 0;
        for (const char *p = csv; p && (p = strchr(p, '\n')) != NULL && p[1]; p++) {
            rows++;
            ok += strstr(p, ",ok,") != NULL && strstr(p, ",ok,") < strchr(p + 1, '\n');
        }
        CHECK(rows == 13 && ok == 13, "compare %s: the limit and 12 solutions, all ok (%d rows, %d ok)", cases[c],
              rows, ok);
        free(csv);
    }
}

/* A solution that fails is reported with its reason (exit 3); the others are kept. */
static void test_failure(void)
{
    int rc = run("compare bouncing_ball --mu 1e4 --mu 1e8 --max-steps 500 --scheme moreau_jean --h 0.05 --out fail "
                 "--no-plots --quiet");
    char *err = slurp("stderr.txt"), *csv = slurp("fail/compare.csv");
    CHECK(rc == 3, "a failed solution exits 3 (got %d)", rc);
    CHECK(err && strstr(err, "penalty at mu = 1e8 failed") && strstr(err, "--max-steps"), "its reason is reported: %s",
          err ? err : "");
    CHECK(csv && strstr(csv, "\npenalty,penalty,mu,1e4,ok,solutions/01_penalty_mu_1e4,") &&
              strstr(csv, "\npenalty,penalty,mu,1e8,failed,solutions/02_penalty_mu_1e8,") &&
              strstr(csv, "\nmoreau_jean,scheme,h,0.05,ok,solutions/03_moreau_jean_h_0.05,"),
          "the others are kept, the parameter written as in its directory's name: %s", csv ? csv : "");
    CHECK(exists("fail/solutions/01_penalty_mu_1e4/summary.json") && exists("fail/solutions/03_moreau_jean_h_0.05/trajectory.csv"),
          "solution directories named as run directories (mu_1e4, h_0.05)");
    CHECK(!strstr(csv ? csv : "", "e+"), "compare.csv: no exponent with '+'");
    /* the limit has a capture here (the Zeno point): its capture error is 0, not nan */
    char f1[64], f2[64];
    csv_field(csv, "limit,", "capture_time", f1, sizeof f1);
    csv_field(csv, "limit,", "capture_error", f2, sizeof f2);
    CHECK(strcmp(f1, "nan") != 0 && strcmp(f2, "0") == 0, "limit row with a capture: capture error 0 (got %s, %s)", f1, f2);
    char bad[160] = "";
    CHECK(csv_numbers_shortest(csv, bad, sizeof bad), "compare.csv (failure): every number shortest: %s", bad);
    CHECK(exists("fail/manifest.json"), "the directory is complete");
    free(err);
    free(csv);
    /* the summary on stdout: numbers as written, n/a where undefined */
    rc = run("compare bouncing_ball --mu 1e4 --mu 1e8 --max-steps 500 --scheme moreau_jean --h 0.05 --out fail --force "
             "--no-plots");
    char *out = slurp("stdout.txt");
    CHECK(rc == 3 && out && strstr(out, " mu = 1e4 ") && strstr(out, " mu = 1e8 ") && strstr(out, " h = 0.05 "),
          "summary: parameters as written (mu = 1e4, h = 0.05): %s", out ? out : "");
    CHECK(out && !strstr(out, "e+04") && !strstr(out, "e+08") && !strstr(out, "nan"),
          "summary: no mu=1e+04 and no nan: %s", out ? out : "");
    CHECK(out && strstr(out, "n/a"), "summary: undefined values as n/a: %s", out ? out : "");
    free(out);
    /* every member of the family failed (a family of none: the sanitizers watch its verdict) */
    rc = run("compare bouncing_ball --mu 1e3 --mu 1e10 --max-steps 30 --t-end 3 --out allfail --no-plots --quiet");
    json_t *j = load_json("allfail/compare.json");
    const json_t *fams = json_object_get(j, "families"), *pen = json_array_get(fams, 0);
    const char *reason = json_string_value(json_object_get(pen, "reason"));
    CHECK(rc == 3 && reason && strstr(reason, "0 refinements"), "a family whose members all failed: exit 3 (got %d), "
          "no verdict: %s", rc, reason ? reason : "(none)");
    json_decref(j);
}


/* ---- impacts matched by time, and the families' verdicts ----------------------------------------- */

/* The numbers of a CSV (a header line, then rows of numbers): column `name` of row r, NAN if absent. */
typedef struct {
    char **names;
    double *v;
    size_t ncol, nrows;
} num_csv;

static int num_csv_read(const char *file, num_csv *c)
{
    memset(c, 0, sizeof *c);
    char *text = slurp(file);
    if (!text)
        return -1;
    char *line = text, *next = strchr(line, '\n');
    if (next)
        *next++ = '\0';
    for (char *p = line; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        c->ncol++;
    c->names = calloc(c->ncol, sizeof *c->names);
    size_t k = 0;
    for (char *save = NULL, *f = strtok_r(line, ",", &save); f && k < c->ncol; f = strtok_r(NULL, ",", &save))
        c->names[k++] = strdup(f);
    size_t cap = 16;
    c->v = malloc(cap * c->ncol * sizeof *c->v);
    for (line = next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (c->nrows == cap)
            c->v = realloc(c->v, (cap *= 2) * c->ncol * sizeof *c->v);
        char *p = line;
        for (size_t j = 0; j < c->ncol; j++) {
            c->v[c->nrows * c->ncol + j] = strtod(p, &p);
            if (*p == ',')
                p++;
        }
        c->nrows++;
    }
    free(text);
    return 0;
}

static double num_csv_get(const num_csv *c, size_t r, const char *name)
{
    for (size_t j = 0; j < c->ncol; j++)
        if (strcmp(c->names[j], name) == 0)
            return c->v[r * c->ncol + j];
    return NAN;
}

static void num_csv_free(num_csv *c)
{
    for (size_t j = 0; j < c->ncol; j++)
        free(c->names[j]);
    free(c->names);
    free(c->v);
}

static size_t json_count(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (size_t)json_integer_value(v) : SIZE_MAX;
}

/* A bounce sequence: the impacts between two lift-offs from the table.  Of the limit solution, from
 * its events; of a run, from its episodes (a sustained episode that ends is a lift-off). */
typedef struct {
    double t[64];
    int seq[64], ord[64];
    size_t n;
} bounces;

static void limit_bounces(const json_t *summary, bounces *b)
{
    memset(b, 0, sizeof *b);
    int seq = 0, ord = 0;
    const json_t *ev = json_object_get(summary, "events");
    for (size_t k = 0; k < json_array_size(ev); k++) {
        const json_t *e = json_array_get(ev, k);
        const char *kind = json_string_value(json_object_get(e, "kind"));
        if (strcmp(kind, "lift_off") == 0)
            seq++, ord = 0;
        else if (strcmp(kind, "impact") == 0 && b->n < 64) {
            b->t[b->n] = json_number_value(json_object_get(e, "t"));
            b->seq[b->n] = seq;
            b->ord[b->n++] = ++ord;
        }
    }
}

static void run_bounces(const json_t *summary, bounces *b)
{
    memset(b, 0, sizeof *b);
    int seq = 0, ord = 0;
    const json_t *ep = json_object_get(summary, "episodes");
    for (size_t k = 0; k < json_array_size(ep); k++) {
        const json_t *e = json_array_get(ep, k);
        const char *kind = json_string_value(json_object_get(e, "kind"));
        if (strcmp(kind, "sustained") == 0 && json_is_number(json_object_get(e, "t_out")))
            seq++, ord = 0;
        else if (strcmp(kind, "impact") == 0 && b->n < 64) {
            b->t[b->n] = json_number_value(json_object_get(e, "t_in"));
            b->seq[b->n] = seq;
            b->ord[b->n++] = ++ord;
        }
    }
}

/* The vibrating table of the reproducer: the ball rests on the table, lifts off where the table's
 * deceleration exceeds g, lands at 0.768 and bounces (e = 0.45) to a Zeno point at 0.984, rests, lifts
 * off again at 1.278 and lands at 1.911.  A penalized run bounces as the limit does until it is captured
 * (fewer bounces at smaller mu), so the right pairing is by bounce: the i-th impact after the j-th
 * lift-off with the i-th impact after the j-th lift-off.  Pairing by index put the run's first impact
 * after its second lift-off (1.911) against the limit's 9th impact (0.984): time errors of 0.93 to 1.13
 * and a "converging" rate of 0.286. */
static void test_table_sweep_matching(void)
{
    int rc = run("sweep vibrating_table --set g=7.2 --set A=0.35 --set omega=5.5 --set e=0.45 --set k=1.6 --no-plots "
                 "--out vt --quiet");
    CHECK(rc == 0, "the table sweep exits 0 (got %d)", rc);
    json_t *sw = load_json("vt/sweep.json"), *lim = load_json("vt/limit/summary.json");
    bounces lb;
    limit_bounces(lim, &lb);
    CHECK(lb.n == 36 && lb.seq[17] == 1 && lb.seq[18] == 2 && fabs(lb.t[18] - 1.9109) < 1e-3,
          "the limit: 18 impacts after each of two lift-offs (%zu)", lb.n);
    num_csv pairs;
    CHECK(num_csv_read("vt/impact_errors.csv", &pairs) == 0 && pairs.nrows > 0, "impact_errors.csv");
    const json_t *runs = json_object_get(sw, "runs");
    CHECK(json_array_size(runs) == 9, "9 runs");
    double k = 1.6, xi = -log(0.45) / sqrt(M_PI * M_PI + log(0.45) * log(0.45));
    for (size_t r = 0; r < json_array_size(runs); r++) {
        const json_t *jr = json_array_get(runs, r);
        double mu = json_number_value(json_object_get(jr, "mu"));
        char path[256];
        snprintf(path, sizeof path, "vt/%s/summary.json", json_string_value(json_object_get(jr, "directory")));
        json_t *rs = load_json(path);
        bounces rb;
        run_bounces(rs, &rb);
        json_decref(rs);
        size_t rows = 0, first_ord[4] = {0};
        double last_error[4] = {0};
        for (size_t i = 0; i < pairs.nrows; i++) {
            if (num_csv_get(&pairs, i, "mu") != mu)
                continue;
            rows++;
            size_t l = (size_t)num_csv_get(&pairs, i, "limit_impact") - 1, ri = (size_t)num_csv_get(&pairs, i, "run_impact") - 1;
            double t_run = num_csv_get(&pairs, i, "t_run"), err = num_csv_get(&pairs, i, "time_error");
            CHECK(l < lb.n && ri < rb.n && lb.seq[l] == rb.seq[ri] && lb.ord[l] == rb.ord[ri],
                  "mu = %g: limit impact %zu (bounce %d of sequence %d) paired with the run's bounce %d of sequence %d",
                  mu, l + 1, l < lb.n ? lb.ord[l] : -1, l < lb.n ? lb.seq[l] : -1, ri < rb.n ? rb.ord[ri] : -1,
                  ri < rb.n ? rb.seq[ri] : -1);
            CHECK(fabs(t_run - num_csv_get(&pairs, i, "centre")) <= num_csv_get(&pairs, i, "window"),
                  "mu = %g: the pair of limit impact %zu within its window", mu, l + 1);
            /* each contact delays the motion: within a sequence the delays grow bounce by bounce */
            int q = l < lb.n ? lb.seq[l] : 0;
            if (q < 4 && first_ord[q]++ > 0)
                CHECK(err > last_error[q], "mu = %g: bounce %d of sequence %d later than the one before (%.3g, %.3g)",
                      mu, lb.ord[l], q, err, last_error[q]);
            if (q < 4)
                last_error[q] = err;
        }
        const json_t *m = json_object_get(jr, "impact_match");
        size_t matched = json_count(m, "matched"), missing = json_count(m, "missing"),
               absorbed = json_count(m, "absorbed"), excluded = json_count(m, "excluded");
        CHECK(matched == rows, "mu = %g: %zu matched, %zu rows in impact_errors.csv", mu, matched, rows);
        CHECK(missing == 0 && json_count(m, "extra") == 0, "mu = %g: nothing missing, nothing extra", mu);
        CHECK(matched + missing + absorbed + excluded == lb.n, "mu = %g: every limit impact counted once", mu);
        /* At mu >= 1e8 the first 6 bounces of each sequence are separated by flights of 2.4e-3 and more and
         * hit at 0.04 and faster, where 4 contact times pi/(omega sqrt(1 - xi^2)) are 1e-3 and the
         * smooth forces (g + A omega^2 = 17.8) add 2 x 17.8 x 2.6e-4 = 9e-3 to the gap rate over two:
         * each is resolved, and paired. */
        double tau = M_PI / (sqrt(k * mu) * sqrt(1.0 - xi * xi));
        if (mu >= 1e8) {
            CHECK(tau < 2.6e-4 && first_ord[1] >= 6 && first_ord[2] >= 6,
                  "mu = %g: the first 6 bounces of each sequence paired (%zu, %zu)", mu, first_ord[1], first_ord[2]);
        }
    }
    const json_t *conv = json_object_get(json_object_get(sw, "convergence"), "impact_time_error");
    const json_t *values = json_object_get(conv, "values");
    for (size_t r = 0; r < json_array_size(values); r++) {
        const json_t *v = json_array_get(values, r);
        CHECK(json_is_null(v) || json_number_value(v) < 1e-2, "impact_time_error of run %zu: %g (no pair across)", r,
              json_number_value(v));
    }
    const json_t *set = json_object_get(json_object_get(sw, "limit"), "impact_set");
    CHECK(json_count(set, "size") == json_array_size(json_object_get(set, "common")) && json_count(set, "size") >= 1,
          "the common impact set is listed");
    num_csv_free(&pairs);
    json_decref(sw);
    json_decref(lim);
}

/* A file that misses an impact: the closed-form ball without the two rows of its second impact.  Its
 * other impacts are the limit's exactly; the second is missing, not paired with the third. */
static void test_missing_impact(void)
{
    write_ball("full.csv", 0.5, 1.2, 2000, 0.0);
    char *text = slurp("full.csv");
    CHECK(text != NULL, "the ball's file");
    /* drop the rows of the second impact (the second pair of "before"/"after" rows) */
    char *b = text ? strstr(text, ",before\n") : NULL;
    b = b ? strstr(b + 1, ",before\n") : NULL;
    char *a = b ? strstr(b, ",after\n") : NULL;
    if (b && a) {
        char *start = b;
        while (start > text && start[-1] != '\n')
            start--;
        memmove(start, a + strlen(",after\n"), strlen(a + strlen(",after\n")) + 1);
    }
    write_file("missed.csv", text ? text : "");
    free(text);
    int rc = run("compare bouncing_ball --set e=0.5 --t-end 1.2 --external missed.csv --out miss --no-plots --quiet");
    CHECK(rc == 0, "compare with the file exits 0 (got %d)", rc);
    json_t *j = load_json("miss/compare.json");
    const json_t *sol = json_array_get(json_object_get(j, "solutions"), 0);
    const json_t *m = json_object_get(sol, "impact_match");
    CHECK(json_count(m, "matched") == 2 && json_count(m, "missing") == 1 && json_count(m, "extra") == 0,
          "2 matched, 1 missing, none extra (%zu, %zu, %zu)", json_count(m, "matched"), json_count(m, "missing"),
          json_count(m, "extra"));
    CHECK(distance(sol, "impact_time_error") < 1e-10 && distance(sol, "impact_velocity_error") < 1e-10,
          "the two others exact: %.3g, %.3g (paired across: 0.23 s)", distance(sol, "impact_time_error"),
          distance(sol, "impact_velocity_error"));
    json_decref(j);
}

static const json_t *family(const json_t *compare, const char *solution)
{
    const json_t *f = json_object_get(compare, "families");
    for (size_t k = 0; k < json_array_size(f); k++)
        if (strcmp(json_string_value(json_object_get(json_array_get(f, k), "solution")), solution) == 0)
            return json_array_get(f, k);
    return NULL;
}

static const char *verdict_of(const json_t *f)
{
    const json_t *v = json_object_get(f, "verdict");
    return json_is_string(v) ? json_string_value(v) : "(none)";
}

/* The wedge (m = 0.5, no force, e = 0) driven into its corner at t = 1: the penalty's limit leaves the
 * corner with the velocity of its fast system, the schemes (Paoli's projection; Moreau-Jean with
 * Newton's e = 0 on both walls) stop in it.  So the schemes converge, as h -> 0, to the mass at rest
 * in the corner, which is (t-end - 1) max_j |v_j+| = 2 max_j |v_j+| away from the limit solution at
 * t-end = 3; the penalty converges to the limit solution. */
static void test_verdict_wedge(void)
{
    int rc = run("compare wedge --mu 1e2 --mu 1e4 --mu 1e6 --mu 1e8 --mu 1e10 --scheme paoli --h 0.04 --h 0.01 "
                 "--h 0.004 --h 0.001 --h 0.0004 --scheme moreau_jean --h 0.04 --h 0.01 --h 0.004 --h 0.001 "
                 "--h 0.0004 --out wedge --no-plots");
    CHECK(rc == 0, "compare wedge exits 0 (got %d)", rc);
    json_t *j = load_json("wedge/compare.json"), *lim = load_json("wedge/limit/summary.json");
    const json_t *pen = family(j, "penalty"), *pao = family(j, "paoli"), *mj = family(j, "moreau_jean");
    CHECK(pen && strcmp(verdict_of(pen), "converges to the limit solution") == 0, "penalty: %s", verdict_of(pen));
    CHECK(pao && strcmp(verdict_of(pao), "converges to another limit") == 0, "paoli: %s", verdict_of(pao));
    CHECK(mj && strcmp(verdict_of(mj), "converges to another limit") == 0, "moreau_jean: %s", verdict_of(mj));
    const json_t *rate = json_object_get(json_object_get(json_object_get(pen, "rates"), "sup_q"), "rate");
    CHECK(fabs(json_number_value(rate) - 0.5) < 0.05, "penalty: sup_q ~ mu^-%.3f", json_number_value(rate));
    /* the distance between the two limits, from the limit's velocity after its corner impact */
    const json_t *ev = json_array_get(json_object_get(lim, "events"), 0), *vp = json_object_get(ev, "v_after");
    double vmax = fmax(fabs(json_number_value(json_array_get(vp, 0))), fabs(json_number_value(json_array_get(vp, 1))));
    const json_t *sols = json_object_get(j, "solutions");
    for (size_t k = 0; k < json_array_size(sols); k++) {
        const json_t *s = json_array_get(sols, k);
        if (strcmp(json_string_value(json_object_get(s, "solution")), "paoli") == 0 &&
            json_number_value(json_object_get(s, "parameter")) == 0.0004)
            CHECK_NEAR(distance(s, "sup_q"), 2.0 * vmax, 0.01 * vmax, "paoli at h = 4e-4: sup_q = 2 max |v+|");
    }
    char *out = slurp("stdout.txt");
    CHECK(out && strstr(out, "penalty (5 mu): converges to the limit solution") &&
              strstr(out, "paoli (5 h): converges to another limit") &&
              strstr(out, "moreau_jean (5 h): converges to another limit"),
          "the table says which, and why: %s", out ? out : "");
    free(out);
    json_decref(j);
    json_decref(lim);
}

/* The ball before its Zeno point: the penalty converges to the limit solution (Theorem 5), and so does
 * Moreau-Jean with Newton's law of the same e; with 3 solutions a family has no verdict. */
static void test_verdict_ball(void)
{
    int rc = run("compare bouncing_ball --t-end 3 --mu 1e4 --mu 1e5 --mu 1e6 --mu 1e7 --mu 1e8 --scheme moreau_jean "
                 "--h 0.01 --h 0.003 --h 0.001 --h 0.0003 --h 0.0001 --out ball --no-plots");
    CHECK(rc == 0, "compare bouncing_ball exits 0 (got %d)", rc);
    json_t *j = load_json("ball/compare.json");
    const json_t *pen = family(j, "penalty"), *mj = family(j, "moreau_jean");
    CHECK(pen && strcmp(verdict_of(pen), "converges to the limit solution") == 0, "ball, penalty: %s", verdict_of(pen));
    CHECK(mj && strcmp(verdict_of(mj), "converges to the limit solution") == 0, "ball, moreau_jean: %s (%s)",
          verdict_of(mj), json_string_value(json_object_get(mj, "reason")));
    json_decref(j);
    rc = run("compare bouncing_ball --t-end 3 --mu 1e4 --mu 1e6 --mu 1e8 --out ball3 --no-plots");
    j = load_json("ball3/compare.json");
    pen = family(j, "penalty");
    CHECK(rc == 0 && pen && json_is_null(json_object_get(pen, "verdict")) &&
              strstr(json_string_value(json_object_get(pen, "reason")), "needs 4"),
          "3 refinements: no verdict, and why");
    json_decref(j);
}

int main(int argc, char **argv)
{
    check_init();
    if (argc < 2) {
        fprintf(stderr, "usage: test_compare PATH_TO_PENLIM\n");
        return 2;
    }
    static char path[4096];
    if (!realpath(argv[1], path)) {
        fprintf(stderr, "test_compare: %s not found\n", argv[1]);
        return 2;
    }
    penlim = path;
    snprintf(dir, sizeof dir, "/tmp/penlim-compare-XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    test_closed_form();
    test_event_driven_capture();
    test_bad_files();
    test_unusual_files();
    test_default_set();
    test_default_set_curved();
    test_failure();
    test_table_sweep_matching();
    test_missing_impact();
    test_verdict_wedge();
    test_verdict_ball();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_finish("test_compare");
}
