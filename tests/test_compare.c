/* End-to-end tests of penlim compare: an external file holding the closed-form bouncing ball
 * against the limit solution, a known shift, bad files, and the default set. */
#include <jansson.h>
#include <limits.h>
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
static void shortest(double x, char *buf, size_t len)
{
    for (int p = 15; p <= 17; p++) {
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

/* Every number of compare.csv (after its 6 text columns) in its shortest exact form, or nan. */
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
                    shortest(strtod(field, NULL), want, sizeof want);
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
    CHECK(csv && strstr(csv, "\npenalty,penalty,mu,10000,ok,solutions/01_penalty_mu_1e4,") &&
              strstr(csv, "\npenalty,penalty,mu,100000000,failed,solutions/02_penalty_mu_1e8,") &&
              strstr(csv, "\nmoreau_jean,scheme,h,0.05,ok,solutions/03_moreau_jean_h_0.05,"),
          "the others are kept, numbers and directories in the shortest exact form: %s", csv ? csv : "");
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
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_finish("test_compare");
}
