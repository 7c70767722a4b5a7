/* Dense and sparse storage of the contacts of a solution (solvers/solution.h; docs/formats.md,
 * "Contacts"): the same run stored both ways gives the same analysis and the same G and forces
 * where both have them, for every family of solver; contacts.csv read back exactly, and every kind
 * of malformed line refused with one line; the default's switch at 100 constraints; a dense request
 * beyond its memory refused before anything is solved. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "cli_util.h"
#include "io/report.h"
#include "solve.h"
#include "study/analysis.h"
#include "synthetic_model.h"

static const char *models; /* the directory of the test models (floors.so) */

static pl_status solve_mode(const pl_solver_type *solver, const pl_model *model, const char *option, double value,
                            double t_end, pl_contacts_mode mode, pl_solution *sol, pl_error *err)
{
    pl_solve_opts o;
    pl_solve_opts_init(&o, solver, model, t_end);
    o.contacts = mode;
    pl_status s = option ? pl_solve_opts_set(&o, solver, option, value, err) : PL_OK;
    if (s != PL_OK) {
        pl_solution_init(sol, solver, model, o.t_end, NULL);
        return s;
    }
    return pl_solve(solver, model, &o, sol, err);
}

/* What the summary says of a solution and its analysis, but for the storage and the wall time, and the
 * limit solution's gaps evaluated, which count its records' (every gap of a dense row, the contacts'
 * of a sparse one). */
static json_t *summary_of(const pl_model *model, const pl_solution *sol, const pl_analysis *a)
{
    json_t *j = pl_solution_summary_json(model, sol, a);
    json_object_del(j, "contacts");
    json_object_del(json_object_get(j, "stats"), "wall_seconds");
    if (sol->solver->family == PL_FAMILY_LIMIT)
        json_object_del(json_object_get(j, "stats"), "gap_evals");
    return j;
}

/* The spheres box of 12 disks (config 3: 114 constraints) by each family of solver, stored dense and
 * sparse: the same rows, every stored contact equal to the dense columns, every contact of the
 * dense columns stored, and the same summary: episodes, events, their classification, impacts,
 * restitutions, capture, final state and the work counters. */
static void test_same_run_both_ways(void)
{
    pl_model m;
    pl_error err;
    pl_setting set[] = {{"config", 3.0}};
    CHECK(pl_model_init(&m, pl_case_find("spheres"), set, 1, &err) == PL_OK, "the spheres box");
    CHECK(m.m == 114, "12 disks: 66 pairs and 48 walls (got %zu)", m.m);
    const struct {
        const pl_solver_type *solver;
        const char *option;
        double value;
    } runs[] = {{&pl_solver_penalty, "mu", 1e6}, {&pl_solver_limit, NULL, 0.0}, {&pl_solver_moreau_jean, "h", 1e-3}};
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        const char *name = runs[k].solver->name;
        pl_solution d, s;
        pl_status sd = solve_mode(runs[k].solver, &m, runs[k].option, runs[k].value, 2.0, PL_CONTACTS_DENSE, &d, &err);
        CHECK(sd == PL_OK, "%s dense: %s", name, sd ? err.message : "");
        pl_status ss = solve_mode(runs[k].solver, &m, runs[k].option, runs[k].value, 2.0, PL_CONTACTS_AUTO, &s, &err);
        CHECK(ss == PL_OK, "%s sparse: %s", name, ss ? err.message : "");
        CHECK(d.contacts == PL_CONTACTS_DENSE && s.contacts == PL_CONTACTS_SPARSE, "%s: dense as asked, sparse by default",
              name);
        size_t n = m.n, rows = d.traj.nrows, in_dense = 0, mismatched = 0, missing = 0;
        CHECK(rows > 10 && s.traj.nrows == rows && s.traj.ncol == 2 + 2 * n, "%s: the same %zu rows of t, gamma, q, v",
              name, rows);
        for (size_t r = 0; r < rows && s.traj.nrows == rows; r++) {
            const double *xd = pl_table_row(&d.traj, r), *xs = pl_table_row(&s.traj, r);
            mismatched += memcmp(xd, xs, (2 + 2 * n) * sizeof *xd) != 0;
            for (size_t i = 0; i < m.m; i++) {
                double gd = xd[pl_col_g(n, m.m) + i], fd = xd[pl_col_force(n, m.m) + i], gs, fs;
                int stored = pl_solution_contact_at(&s, r, i, &gs, &fs);
                int touching = !(gd > 0.0 && fd == 0.0); /* in contact: G <= 0 or a force (or NaN) */
                in_dense += touching;
                missing += touching && !stored;
                mismatched += stored && (gs != gd || fs != fd);
            }
        }
        CHECK(mismatched == 0 && missing == 0 && s.nentries == in_dense,
              "%s: every contact of the dense columns stored sparse, equal (%zu of %zu, %zu differ, %zu missing)", name,
              s.nentries, in_dense, mismatched, missing);
        CHECK(s.nentries > 0 && s.nentries < rows * m.m / 10, "%s: %zu contacts of %zu row-constraints: sparse", name,
              s.nentries, rows * m.m);
        pl_analysis ad, as;
        pl_status ad_s = pl_analyze(&m, &d, &ad, &err), as_s = pl_analyze(&m, &s, &as, &err);
        CHECK(ad_s == PL_OK && as_s == PL_OK, "%s: both analysed", name);
        json_t *jd = summary_of(&m, &d, &ad), *js = summary_of(&m, &s, &as);
        int same = json_equal(jd, js);
        if (!same) {
            char *a = json_dumps(jd, JSON_SORT_KEYS | JSON_COMPACT), *b = json_dumps(js, JSON_SORT_KEYS | JSON_COMPACT);
            size_t at = 0;
            while (a && b && a[at] && a[at] == b[at])
                at++;
            printf("%s: summaries differ at %zu: dense ...%.120s / sparse ...%.120s\n", name, at, a + (at > 40 ? at - 40 : 0),
                   b + (at > 40 ? at - 40 : 0));
            free(a);
            free(b);
        }
        CHECK(same, "%s: the same summary both ways (%zu episodes, %zu events, %zu impacts)", name, d.nepisodes,
              d.nevents, ad.impacts);
        printf("%s: %zu rows, %zu episodes, %zu events, %zu impacts; %zu contacts stored sparse of %zu row-constraints\n",
               name, rows, d.nepisodes, d.nevents, ad.impacts, s.nentries, rows * m.m);
        json_decref(jd);
        json_decref(js);
        pl_analysis_free(&ad);
        pl_analysis_free(&as);
        pl_solution_free(&d);
        pl_solution_free(&s);
    }
    pl_model_free(&m);
}

/* G recomputed where the sparse list has no entry is the value a dense run stored (the engine and
 * the analysis rely on it: a G > 0 is a function of the row's t and q). */
static void test_gap_recomputed(void)
{
    pl_model m;
    pl_error err;
    pl_setting set[] = {{"config", 3.0}, {"N", 6.0}};
    CHECK(pl_model_init(&m, pl_case_find("spheres"), set, 2, &err) == PL_OK, "6 disks");
    pl_solution d, s;
    CHECK(solve_mode(&pl_solver_penalty, &m, "mu", 3e5, 1.5, PL_CONTACTS_DENSE, &d, &err) == PL_OK &&
              solve_mode(&pl_solver_penalty, &m, "mu", 3e5, 1.5, PL_CONTACTS_SPARSE, &s, &err) == PL_OK,
          "6 disks both ways");
    pl_gap *g = pl_gap_new(1, m.n, 0);
    size_t recomputed = 0, differ = 0;
    for (size_t r = 0; r < d.traj.nrows && r < s.traj.nrows; r++)
        for (size_t i = 0; i < m.m; i++)
            if (!pl_solution_contact_at(&s, r, i, NULL, NULL)) {
                recomputed++;
                differ += pl_solution_gap_at(&s, &m, r, i, g) != pl_table_row(&d.traj, r)[pl_col_g(m.n, m.m) + i];
            }
    CHECK(recomputed > 0 && differ == 0, "G recomputed from the rows at %zu row-constraints: %zu differ from dense",
          recomputed, differ);
    free(g);
    pl_solution_free(&d);
    pl_solution_free(&s);
    pl_model_free(&m);
}

/* 6 disks at mu = 1e4 to t = 1, sparse, every step stored (a run's rows sampled by events depend on where
 * it ends), under a cap of max_output values (0: the default). */
static pl_status solve_capped(const pl_model *m, double max_output, pl_solution *sol, pl_error *err)
{
    pl_solve_opts o;
    pl_solve_opts_init(&o, &pl_solver_penalty, m, 1.0);
    o.contacts = PL_CONTACTS_SPARSE;
    o.max_output = max_output;
    o.samples = 0;
    pl_status s = pl_solve_opts_set(&o, &pl_solver_penalty, "mu", 1e4, err);
    if (s != PL_OK) {
        pl_solution_init(sol, &pl_solver_penalty, m, o.t_end, NULL);
        return s;
    }
    return pl_solve(&pl_solver_penalty, m, &o, sol, err);
}

/* The cap on the output (--max-output) reached within a row's contacts: the row goes whole, as a
 * dense row does, state and contacts (a cap that holds a row's state and its first contact but not
 * its second): the capped run's rows are the uncapped run's, each with all its contacts. */
static void test_cap_whole_rows(void)
{
    pl_model m;
    pl_error err;
    pl_setting set[] = {{"config", 3.0}, {"N", 6.0}};
    CHECK(pl_model_init(&m, pl_case_find("spheres"), set, 2, &err) == PL_OK, "6 disks");
    pl_solution full, capped;
    pl_status su = solve_capped(&m, 0.0, &full, &err);
    CHECK(su == PL_OK, "uncapped: %s", su ? err.message : "");
    size_t row = 0, ncol = full.traj.ncol;
    for (size_t r = full.traj.nrows / 2; r < full.traj.nrows && !row; r++)
        if (full.row_first[r + 1] - full.row_first[r] >= 2)
            row = r; /* a row of two contacts or more */
    CHECK(row > 0, "a row with two contacts past the middle");
    pl_status s = solve_capped(&m, (double)((row + 1) * ncol + 3 * (full.row_first[row] + 1)), &capped, &err);
    CHECK(s == PL_ERR_SOLVER && strstr(err.message, "--max-output"), "capped at row %zu's second contact: %s", row,
          s ? err.message : "not stopped");
    size_t rows = capped.traj.nrows, differ = 0;
    for (size_t r = 0; r < rows && r < full.traj.nrows; r++) {
        const pl_contact_entry *a, *b;
        size_t na = pl_solution_row_contacts(&full, r, &a), nb = pl_solution_row_contacts(&capped, r, &b);
        differ += na != nb || (na > 0 && memcmp(a, b, na * sizeof *a) != 0) ||
                  memcmp(pl_table_row(&full.traj, r), pl_table_row(&capped.traj, r), ncol * sizeof(double)) != 0;
    }
    CHECK(rows == row && capped.nentries == full.row_first[row] && differ == 0,
          "the capped run ends before row %zu (%zu rows, %zu contacts of %zu), %zu rows differ from the uncapped run's",
          row, rows, capped.nentries, full.row_first[row], differ);
    pl_solution_free(&full);
    pl_solution_free(&capped);
    pl_model_free(&m);
}

/* The default switches from dense to sparse between 100 and 101 constraints (N balls, each on its
 * floor: m = N); a dense request beyond 1 MiB of G and forces per row is refused before any solve,
 * naming the memory; sparse is not. */
static void test_default_and_cap(void)
{
    pl_error err;
    for (double N = 100; N <= 101; N++) {
        pl_model m;
        pl_setting set[] = {{"N", N}};
        CHECK(pl_model_init(&m, &pl_test_case_balls, set, 1, &err) == PL_OK, "%g balls", N);
        pl_solution sol;
        pl_status s = solve_mode(&pl_solver_penalty, &m, "mu", 1e4, 0.01, PL_CONTACTS_AUTO, &sol, &err);
        pl_contacts_mode want = N <= 100 ? PL_CONTACTS_DENSE : PL_CONTACTS_SPARSE;
        CHECK(s == PL_OK && sol.contacts == want &&
                  sol.traj.ncol == (want == PL_CONTACTS_DENSE ? 2 + 4 * (size_t)N : 2 + 2 * (size_t)N),
              "%g constraints: %s by default (%zu columns)", N, pl_contacts_name(want), sol.traj.ncol);
        pl_solution_free(&sol);
        pl_model_free(&m);
    }
    /* 1 MiB / 16 bytes = 65536 constraints */
    CHECK(pl_contacts_check(PL_CONTACTS_DENSE, 65536, &err) == PL_OK, "65536 constraints dense: accepted");
    pl_status s = pl_contacts_check(PL_CONTACTS_DENSE, 65537, &err);
    CHECK(s == PL_ERR_INPUT && strstr(err.message, "1.05 MB") && strstr(err.message, "--contacts sparse") &&
              !strchr(err.message, '\n'),
          "65537 constraints dense: refused naming 1.05 MB a row (%s)", s ? err.message : "accepted");
    CHECK(pl_contacts_check(PL_CONTACTS_SPARSE, 100000000, &err) == PL_OK &&
              pl_contacts_check(PL_CONTACTS_AUTO, 100000000, &err) == PL_OK,
          "sparse or by default: accepted at any m");
    char args[1024];
    snprintf(args, sizeof args, "run --model %s/floors.so --set N=200000 --contacts dense --mu 1e4 --t-end 0.1 --out f",
             models);
    int rc = run(args);
    char *e = slurp("stderr.txt");
    CHECK(rc == 2 && e && strstr(e, "3.2 MB") && strchr(e, '\n') == strrchr(e, '\n') && !exists("f/summary.json"),
          "'penlim %s': exit 2, one line naming 3.2 MB a row, nothing written (%d: %s)", args, rc, e ? e : "");
    free(e);
    rc = run("run spheres --contacts diagonal --out g");
    e = slurp("stderr.txt");
    CHECK(rc == 2 && e && strstr(e, "--contacts must be dense or sparse"), "--contacts diagonal refused (%d: %s)", rc,
          e ? e : "");
    free(e);
}

/* Write dir/name: head, then body from its first line on (NULL: nothing). */
static void write_file(const char *name, const char *head, const char *body)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fputs(head, f);
    if (body)
        fputs(body, f);
    fclose(f);
}

/* A run written sparse by the program and read back (pl_read_solution): its contacts exactly the
 * library's solve of the same settings; then contacts.csv spoiled one way at a time, each refused
 * with one line naming the file and the problem. */
static void test_read_back(void)
{
    pl_model m;
    pl_error err;
    pl_setting set[] = {{"config", 3.0}};
    CHECK(pl_model_init(&m, pl_case_find("spheres"), set, 1, &err) == PL_OK, "the spheres box");
    CHECK(run("run spheres --set config=3 --mu 1e6 --t-end 1 --out rb --quiet") == 0, "the box run by the program");
    CHECK(exists("rb/contacts.csv"), "contacts.csv written");
    char *traj = slurp("rb/trajectory.csv");
    CHECK(traj && strncmp(traj, "t,gamma,q1,", 11) == 0 && !strstr(traj, ",G1") && !strstr(traj, "force"),
          "trajectory.csv without G and force columns");
    free(traj);
    char *summary = slurp("rb/summary.json"), *manifest = slurp("rb/manifest.json");
    CHECK(summary && strstr(summary, "\"contacts\": \"sparse\""), "summary.json says sparse");
    CHECK(manifest && strstr(manifest, "\"contacts.csv\""), "the manifest lists contacts.csv");
    free(summary);
    free(manifest);
    pl_solution lib, back;
    CHECK(solve_mode(&pl_solver_penalty, &m, "mu", 1e6, 1.0, PL_CONTACTS_AUTO, &lib, &err) == PL_OK, "the library's");
    char path[1024];
    snprintf(path, sizeof path, "%s/rb", dir);
    pl_status s = pl_read_solution(path, &m, &pl_solver_penalty, &back, &err);
    CHECK(s == PL_OK, "read back (%s)", s ? err.message : "");
    int same = s == PL_OK && back.contacts == PL_CONTACTS_SPARSE && back.traj.nrows == lib.traj.nrows &&
               back.nentries == lib.nentries && lib.nentries > 0;
    for (size_t r = 0; same && r < lib.traj.nrows; r++) {
        const pl_contact_entry *a, *b;
        size_t na = pl_solution_row_contacts(&lib, r, &a), nb = pl_solution_row_contacts(&back, r, &b);
        same = na == nb && (na == 0 || memcmp(a, b, na * sizeof *a) == 0);
    }
    CHECK(same, "the contacts read back are the solve's, bit for bit (%zu)", lib.nentries);
    pl_solution_free(&lib);
    pl_solution_free(&back);

    /* the first data line's fields, each spoil a line in its place (or the header's) */
    CHECK(run("run spheres --set config=3 --mu 1e6 --t-end 1 --out rs --quiet") == 0, "a copy to spoil");
    char *good = slurp("rs/contacts.csv");
    char *first = good ? strchr(good, '\n') : NULL, *rest = first ? strchr(first + 1, '\n') : NULL;
    char *last = rest ? strrchr(good, '\n') : NULL;
    while (last && last > rest && last[-1] != '\n')
        last--;
    size_t row = 0, c = 0;
    double t = NAN, g = NAN, f = NAN;
    CHECK(first && rest && last && sscanf(first + 1, "%zu,%lf,%zu,%lf,%lf", &row, &t, &c, &g, &f) == 5 && g <= 0.0,
          "contacts.csv's first contact");
    char header[64];
    snprintf(header, sizeof header, "%.*s", first ? (int)(first - good + 1) : 0, good ? good : "");
    static const char *const what[] = {"header", "constraint outside", "constraint outside", "constraint outside",
                                       "5 fields", "row", "time t", "not a contact", "out of order"};
    for (size_t k = 0; rest && last && k < sizeof what / sizeof what[0]; k++) {
        char line[256], *head = malloc(strlen(header) + (size_t)(rest - first) + strlen(last) + 256);
        const char *body = rest + 1;
        switch (k) {
        case 0: snprintf(line, sizeof line, "row,t,constraint,G,impulse\n"), body = first + 1; break;
        case 1: snprintf(line, sizeof line, "%zu,%.17g,0,%.17g,%.17g\n", row, t, g, f); break;
        case 2: snprintf(line, sizeof line, "%zu,%.17g,115,%.17g,%.17g\n", row, t, g, f); break;
        case 3: snprintf(line, sizeof line, "%zu,%.17g,%zux,%.17g,%.17g\n", row, t, c, g, f); break;
        case 4: snprintf(line, sizeof line, "%zu,%.17g,%zu,%.17g,%.17g,0\n", row, t, c, g, f); break;
        case 5: snprintf(line, sizeof line, "999999,%.17g,%zu,%.17g,%.17g\n", t, c, g, f); break;
        case 6: snprintf(line, sizeof line, "%zu,%.17g,%zu,%.17g,%.17g\n", row, 1.5 * t, c, g, f); break;
        case 7: snprintf(line, sizeof line, "%zu,%.17g,%zu,1e-3,0\n", row, t, c); break;
        default: snprintf(line, sizeof line, "%s", last), body = first + 1; break; /* the last line first */
        }
        if (head) {
            sprintf(head, "%s%s", k == 0 ? "" : header, line);
            write_file("rs/contacts.csv", head, body);
        }
        free(head);
        snprintf(path, sizeof path, "%s/rs", dir);
        s = pl_read_solution(path, &m, &pl_solver_penalty, &back, &err);
        CHECK(s == PL_ERR_INPUT && strstr(err.message, "contacts.csv") && strstr(err.message, what[k]) &&
                  !strchr(err.message, '\n'),
              "contacts.csv spoilt (%.60s) refused naming '%s' (%d: %s)", line, what[k], s, s ? err.message : "accepted");
        pl_solution_free(&back);
    }
    write_file("rs/contacts.csv", good ? good : "", NULL);
    snprintf(path, sizeof path, "%s/rs", dir);
    s = pl_read_solution(path, &m, &pl_solver_penalty, &back, &err);
    CHECK(s == PL_OK, "the file restored reads again (%s): the spoils were what was refused", s ? err.message : "");
    size_t entries = s == PL_OK ? back.nentries : 0;
    pl_solution_free(&back);
    CHECK(pl_header_matches("t,gamma,q1,v1,G1,G2,lambda1,lambda2", "t,gamma,q1,v1,G1,G2,force1,force2") &&
              pl_header_matches("t,gamma,q1,v1,G1,force1", "t,gamma,q1,v1,G1,force1") &&
              !pl_header_matches("t,gamma,q1,v1,G1,lambda2", "t,gamma,q1,v1,G1,force1") &&
              !pl_header_matches("t,gamma,q1,v1,G1,impulse1", "t,gamma,q1,v1,G1,force1") &&
              !pl_header_matches("t,gamma,q1,v1,G1,force1,x", "t,gamma,q1,v1,G1,force1") &&
              !pl_header_matches("t,gamma,q1,v1,G1", "t,gamma,q1,v1,G1,force1"),
          "a header matches as written, or with lambdaK for forceK, nothing else");
    /* the header of version 0.2 (lambda for force): a directory written then is still read back (--resume) */
    write_file("rs/contacts.csv", "row,t,constraint,G,lambda\n", first ? first + 1 : "");
    s = pl_read_solution(path, &m, &pl_solver_penalty, &back, &err);
    CHECK(s == PL_OK && back.nentries == entries && entries > 0, "contacts.csv with the old header 'lambda' read back (%s)",
          s ? err.message : "");
    pl_solution_free(&back);
    write_file("rs/contacts.csv", good ? good : "", NULL);
    /* what the writer writes of a value that is not a number (a failed run's last row), read as such */
    for (int k = 0; rest && k < 2; k++) {
        char line[256];
        snprintf(line, sizeof line, k == 0 ? "%zu,%.17g,%zu,nan,%.17g\n" : "%zu,%.17g,%zu,1e-3,inf\n", row, t, c, f);
        char *head = malloc(strlen(header) + strlen(line) + 1);
        if (head) {
            sprintf(head, "%s%s", header, line);
            write_file("rs/contacts.csv", head, rest + 1);
        }
        free(head);
        double gb = 0.0, fb = 0.0;
        s = pl_read_solution(path, &m, &pl_solver_penalty, &back, &err);
        CHECK(s == PL_OK && pl_solution_contact_at(&back, row, c - 1, &gb, &fb) &&
                  (k == 0 ? isnan(gb) && fb == f : gb == 1e-3 && fb == INFINITY),
              "a line with %s read back as written (%s)", k == 0 ? "G nan" : "force inf", s ? err.message : "");
        pl_solution_free(&back);
    }
    write_file("rs/contacts.csv", good ? good : "", NULL);
    free(good);
    pl_model_free(&m);
}

/* Row and constraint numbers beyond a bound below 9 (a trajectory of at most 9 rows, m < 9): the
 * ball by Moreau-Jean at h = 0.2 (5 rows, m = 1), its contacts.csv read back with a constraint 7,
 * then a row of 14 digits, each refused naming its field; in a sweep resumed, the run with such a
 * row is computed again (not read outside its trajectory). */
static void test_small_bounds(void)
{
    pl_model m;
    pl_error err;
    CHECK(pl_model_init(&m, pl_case_find("bouncing_ball"), NULL, 0, &err) == PL_OK, "the ball");
    const char *sweep = "sweep bouncing_ball --scheme moreau_jean --h 0.1,0.2 --t-end 0.8 --contacts sparse --no-plots "
                        "--no-limit --jobs 1";
    char args[512], path[1024];
    snprintf(args, sizeof args, "%s --out sb --quiet", sweep);
    CHECK(run(args) == 0, "a sweep of the ball by Moreau-Jean, sparse");
    char *traj = slurp("sb/runs/001_h_0.2/trajectory.csv"), *good = slurp("sb/runs/001_h_0.2/contacts.csv");
    char *first = good ? strchr(good, '\n') : NULL;
    size_t row = 0, c = 0;
    double t = NAN, g = NAN, f = NAN;
    CHECK(count_lines(traj) == 6 && first && sscanf(first + 1, "%zu,%lf,%zu,%lf,%lf", &row, &t, &c, &g, &f) == 5,
          "h = 0.2: 5 rows, a contact");
    snprintf(path, sizeof path, "%s/sb/runs/001_h_0.2", dir);
    static const char *const what[] = {"constraint outside", "row"};
    for (size_t k = 0; first && k < 2; k++) {
        char line[256];
        if (k == 0)
            snprintf(line, sizeof line, "%zu,%.17g,7,%.17g,%.17g\n", row, t, g, f);
        else
            snprintf(line, sizeof line, "99999999999999,%.17g,%zu,%.17g,%.17g\n", t, c, g, f);
        char head[256];
        snprintf(head, sizeof head, "%.*s", (int)(first - good + 1), good);
        write_file("sb/runs/001_h_0.2/contacts.csv", head, line);
        pl_solution back;
        pl_status s = pl_read_solution(path, &m, &pl_solver_moreau_jean, &back, &err);
        CHECK(s == PL_ERR_INPUT && strstr(err.message, "contacts.csv") && strstr(err.message, what[k]) &&
                  !strchr(err.message, '\n'),
              "contacts.csv with %.40s refused naming '%s' (%d: %s)", line, what[k], s, s ? err.message : "accepted");
        pl_solution_free(&back);
    }
    snprintf(args, sizeof args, "%s --out sb --resume", sweep);
    int rc = run(args);
    char *out = slurp("stdout.txt");
    CHECK(rc == 0 && out && strstr(out, "reused 1 of the 2 runs"), "--resume: the spoilt run computed again (%d: %s)",
          rc, out ? out : "");
    free(out);
    free(traj);
    free(good);
    pl_model_free(&m);
}

/* A run that fails on a gap that turns NaN (models/nan_later.so), swept in a process of its own and
 * read back: sparse as dense, the failure's reason and the rows up to it kept (contacts.csv's last
 * line holds the nan the dense G column holds), and --resume treats both alike. */
static void test_nan_isolated(void)
{
    char args[1024], *first[2] = {NULL, NULL};
    static const char *const mode[] = {"dense", "sparse"};
    for (int k = 0; k < 2; k++) {
        snprintf(args, sizeof args,
                 "sweep --model %s/nan_later.so --mu 1e4 --contacts %s --isolate --no-plots --no-limit --out nan_%s",
                 models, mode[k], mode[k]);
        int rc = run(args);
        char *e = slurp("stderr.txt"), name[64];
        snprintf(name, sizeof name, "nan_%s/runs/001_mu_1e4/trajectory.csv", mode[k]);
        char *traj = slurp(name);
        snprintf(name, sizeof name, "nan_%s/runs/001_mu_1e4/contacts.csv", mode[k]);
        char *contacts = slurp(name);
        CHECK(rc == 3 && e && strstr(e, "constraint 1 is not finite") && !strstr(e, "without the solution"),
              "%s: the run fails naming the gap, not a file read back (%d: %s)", mode[k], rc, e ? e : "");
        CHECK(traj && count_lines(traj) > 100 && (k == 0 ? !contacts : contacts && strstr(contacts, ",1,nan,")),
              "%s: its %d rows kept%s", mode[k], traj ? count_lines(traj) - 1 : 0, k ? ", the last contact's G nan" : "");
        first[k] = traj;
        free(contacts);
        free(e);
        snprintf(args + strlen(args), sizeof args - strlen(args), " --resume");
        rc = run(args);
        char *out = slurp("stdout.txt");
        e = slurp("stderr.txt");
        CHECK(rc == 3 && out && !strstr(out, "reused") && e && strstr(e, "constraint 1 is not finite"),
              "%s --resume: the failed run computed again, as dense (%d: %s)", mode[k], rc, e ? e : "");
        free(out);
        free(e);
    }
    /* the same rows: sparse's trajectory.csv is dense's up to vn (2 + 2n = 4 columns here) */
    size_t differ = 0, rows = 0;
    for (char *a = first[0], *b = first[1]; a && b && *a && *b; rows++) {
        char *a_end = strchr(a, '\n'), *b_end = strchr(b, '\n'), *cut = a;
        for (int col = 0; cut && col < 4; col++)
            cut = strchr(cut + 1, ',');
        if (!a_end || !b_end)
            break;
        if (rows > 0)
            differ += !cut || cut - a != b_end - b || strncmp(a, b, (size_t)(b_end - b)) != 0;
        a = a_end + 1, b = b_end + 1;
    }
    CHECK(rows > 100 && differ == 0, "dense and sparse: the same %zu rows of t, gamma, q, v (%zu differ)", rows, differ);
    free(first[0]);
    free(first[1]);
}

/* A sweep of sparse runs (in processes of their own, read back), resumed: the runs reused with
 * their contacts.csv verified against the manifest's hashes; a run whose contacts.csv changed is
 * computed again, and the sweep's results are the same. */
static void test_sweep_resume(void)
{
    const char *sweep = "sweep spheres --set config=3 --t-end 0.5 --mu 1e4,1e5 --no-limit --no-plots --jobs 1 --isolate";
    char args[512];
    snprintf(args, sizeof args, "%s --out sw --quiet", sweep);
    CHECK(run(args) == 0, "a sweep of sparse runs, each solved apart and read back");
    char *manifest = slurp("sw/manifest.json"), *first = slurp("sw/episodes.csv");
    CHECK(manifest && strstr(manifest, "runs/001_mu_1e4/contacts.csv") && strstr(manifest, "runs/002_mu_1e5/contacts.csv"),
          "the manifest lists and hashes each run's contacts.csv");
    free(manifest);
    snprintf(args, sizeof args, "%s --out sw --resume", sweep);
    CHECK(run(args) == 0, "--resume");
    char *out = slurp("stdout.txt");
    CHECK(out && strstr(out, "reused 2 of the 2 runs"), "both reused: %s", out ? out : "");
    free(out);
    /* the first contact's G changed in its first digit: still a valid file, not the one written */
    char *text = slurp("sw/runs/002_mu_1e5/contacts.csv");
    char *line = text ? strchr(text, '\n') : NULL, *g = line ? strstr(line, ",-") : NULL;
    if (g && g[2] >= '1' && g[2] <= '9') {
        g[2] = g[2] == '9' ? '8' : (char)(g[2] + 1);
        write_file("sw/runs/002_mu_1e5/contacts.csv", text, NULL);
    }
    free(text);
    CHECK(run(args) == 0, "--resume after contacts.csv changed");
    out = slurp("stdout.txt");
    CHECK(g && out && strstr(out, "reused 1 of the 2 runs"), "the changed run computed again: %s", out ? out : "");
    free(out);
    char *again = slurp("sw/episodes.csv");
    CHECK(first && again && strcmp(first, again) == 0, "the same episodes.csv");
    free(first);
    free(again);
}

int main(int argc, char **argv)
{
    check_init();
    if (argc < 3) {
        fprintf(stderr, "usage: test_contacts PATH_TO_PENLIM MODELS_DIR\n");
        return 2;
    }
    static char path[PATH_MAX], mpath[PATH_MAX];
    if (!realpath(argv[1], path) || !realpath(argv[2], mpath)) {
        fprintf(stderr, "test_contacts: %s or %s not found\n", argv[1], argv[2]);
        return 2;
    }
    penlim = path;
    models = mpath;
    snprintf(dir, sizeof dir, "/tmp/penlim-contacts-XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    test_same_run_both_ways();
    test_gap_recomputed();
    test_cap_whole_rows();
    test_default_and_cap();
    test_read_back();
    test_small_bounds();
    test_nan_isolated();
    test_sweep_resume();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_contacts: could not remove %s\n", dir);
    return check_finish("test_contacts");
}
