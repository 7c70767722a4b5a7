/* What the API gives a caller in another language: the model's error channel (pl_case.failed, ABI 5),
 * a cancel hook for a solve and a sweep (pl_solve_hooks), the solution's column names, and the files
 * of a solution and a sweep written by the library, which must be the program's to the byte. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "penlim/penlim.h"

#include "check.h"
#include "cli_util.h"

/* A unit mass falling from q = 1 under gravity G_ACCEL onto the floor q = 0, whose force callback fails
 * (a NAN force, reported through `failed`) once q is below fail_below: what a binding does when the
 * callback written in its language raised an exception. */
#define G_ACCEL 9.81
typedef struct {
    double fail_below;
    int failed;
    long polls; /* calls of `failed` */
} faller;

static void faller_initial(const double *p, double *q, double *v, void *user)
{
    (void)p, (void)user;
    q[0] = 1.0, v[0] = 0.0;
}

static void faller_force(const double *p, double t, const double *q, const double *v, const double *u, double *f,
                         double *f_q, double *f_v, void *user)
{
    (void)p, (void)t, (void)v, (void)u;
    faller *s = user;
    if (q[0] < s->fail_below)
        s->failed = 1;
    f[0] = s->failed ? NAN : -G_ACCEL;
    if (f_q)
        f_q[0] = s->failed ? NAN : 0.0;
    if (f_v)
        f_v[0] = s->failed ? NAN : 0.0;
}

static void faller_gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    (void)p, (void)i, (void)t, (void)user;
    out->g = q[0];
    out->grad[0] = 1.0;
}

static void faller_scales(const double *p, double *velocity, double *accel, void *user)
{
    (void)p, (void)user;
    *velocity = sqrt(2 * G_ACCEL);
    *accel = G_ACCEL;
}

static int faller_failed(char *msg, size_t len, void *user)
{
    faller *s = user;
    s->polls++;
    if (s->failed)
        snprintf(msg, len, "force: q fell below %g\n(a second line)", s->fail_below);
    return s->failed;
}

static pl_case faller_case(faller *s)
{
    return (pl_case){.abi_version = PL_ABI_VERSION, .name = "faller", .summary = "a failing fall", .ndof = 1,
                     .ncon = 1, .t_end = 1.0, .user = s, .initial_state = faller_initial, .force = faller_force,
                     .gap = faller_gap, .scales = faller_scales, .failed = faller_failed};
}

static void test_error_channel(void)
{
    /* the fall reaches q = 0.5 at t = sqrt(2 (1 - 0.5) / g) = 0.3193, the floor at 0.4515 */
    double t_half = sqrt(1.0 / G_ACCEL);
    const char *solvers[] = {"penalty", "limit", "moreau_jean"};
    pl_setting options[] = {{"h", 1e-3}};
    for (int k = 0; k < 3; k++) {
        faller s = {.fail_below = 0.5};
        pl_case c = faller_case(&s);
        pl_error err;
        pl_model *m = pl_model_create(&c, NULL, 0, &err);
        CHECK(m != NULL, "%s: the faller's model: %s", solvers[k], m ? "" : err.message);
        if (!m)
            continue;
        pl_solution *sol = NULL;
        pl_status st = pl_solve_model(m, solvers[k], options, k == 2, &sol, &err);
        size_t rows = pl_solution_rows(sol);
        double t_last = rows ? pl_solution_row(sol, rows - 1)[0] : NAN;
        CHECK(st == PL_ERR_SOLVER && strstr(err.message, "the model failed at t = ") &&
                  strstr(err.message, "force: q fell below 0.5 (a second line)") && !strchr(err.message, '\n'),
              "%s: the model's failure stops the solve with its message on one line (%d): %s", solvers[k], (int)st,
              err.message);
        /* a Runge-Kutta step's stages may reach q = 0.5 before its end does */
        CHECK(sol && rows > 0 && t_last <= t_half + 0.02,
              "%s: the solution up to the failure is kept (%zu rows, the last at t = %g; q = 0.5 at %g)", solvers[k],
              rows, t_last, t_half);
        CHECK(s.polls > 2, "%s: polled at each step (%ld polls)", solvers[k], s.polls);
        pl_solution_destroy(sol);
        pl_model_destroy(m);
    }
    /* a failure while the case is validated (its initial state is below fail_below): refused, its reason */
    faller s = {.fail_below = 2.0};
    pl_case c = faller_case(&s);
    pl_error err;
    pl_model *m = pl_model_create(&c, NULL, 0, &err);
    CHECK(!m && err.status == PL_ERR_INPUT && strstr(err.message, "the model failed: force: q fell below 2"),
          "a failure at creation: the model refused with the callback's reason: %s", err.message);
    pl_model_destroy(m);
    /* without failures the channel changes nothing: the fall reaches the floor */
    faller ok = {.fail_below = -INFINITY};
    c = faller_case(&ok);
    m = pl_model_create(&c, NULL, 0, &err);
    pl_solution *sol = NULL;
    CHECK(m && pl_solve_model(m, "limit", NULL, 0, &sol, &err) == PL_OK && pl_solution_events(sol) > 0,
          "a model that never fails solves (%s)", m ? err.message : "");
    double t_impact = NAN;
    if (sol && pl_solution_events(sol) > 0)
        pl_solution_event(sol, 0, NULL, &t_impact, NULL, NULL, NULL);
    CHECK_NEAR(t_impact, sqrt(2.0 / G_ACCEL), 1e-12, "the faller's impact at sqrt(2/g)");
    pl_solution_destroy(sol);
    pl_model_destroy(m);
}

static int cancel_after(void *user)
{
    long *count = user;
    return --*count < 0;
}

static void test_cancel(void)
{
    pl_error err;
    pl_model *ball = pl_model_create(pl_builtin_case_find("bouncing_ball"), NULL, 0, &err);
    CHECK(ball != NULL, "the ball: %s", ball ? "" : err.message);
    const char *solvers[] = {"penalty", "limit", "moreau_jean"};
    pl_setting options[] = {{"mu", 1e6}, {"h", 1e-3}};
    for (int k = 0; k < 3; k++) {
        pl_setting *opt = k == 0 ? options : k == 2 ? options + 1 : NULL;
        long count = 20;
        pl_solve_hooks hooks = {.cancel = cancel_after, .user = &count};
        pl_solution *sol = NULL, *whole = NULL;
        pl_status st = pl_solve_model_with(ball, solvers[k], opt, opt != NULL, &hooks, &sol, &err);
        CHECK(st == PL_ERR_SOLVER && strstr(err.message, "cancelled at t = ") && sol,
              "%s: cancelled after 20 polls (%d): %s", solvers[k], (int)st, err.message);
        double t_end = pl_solution_final(sol, NULL);
        CHECK(pl_solution_rows(sol) > 0 && t_end > 0 && t_end < 10.0, "%s: the run up to there kept (t = %g)",
              solvers[k], t_end);
        pl_solve_hooks none = {0};
        CHECK(pl_solve_model_with(ball, solvers[k], opt, opt != NULL, &none, &whole, &err) == PL_OK &&
                  pl_solution_final(whole, NULL) > t_end,
              "%s: without a cancel hook the run goes on to its end (%s)", solvers[k], err.message);
        pl_solution_destroy(sol);
        pl_solution_destroy(whole);
    }
    double mu[] = {1e4, 1e5, 1e6};
    long never = 1L << 40, now = 0;
    pl_solve_hooks go_on = {.cancel = cancel_after, .user = &never}, stop = {.cancel = cancel_after, .user = &now};
    pl_sweep *sw = NULL;
    CHECK(pl_sweep_model_with(ball, "penalty", mu, 3, NULL, 0, 2, 1, &go_on, &sw, &err) == PL_OK &&
              pl_sweep_run_result(sw, 2, NULL, NULL, &err) == PL_OK,
          "a sweep whose hook never cancels: %s", err.message);
    pl_sweep_destroy(sw);
    sw = NULL;
    CHECK(pl_sweep_model_with(ball, "penalty", mu, 3, NULL, 0, 2, 1, &stop, &sw, &err) == PL_ERR_SOLVER &&
              strcmp(err.message, "cancelled") == 0 && sw,
          "a cancelled sweep: PL_ERR_SOLVER, the sweep kept (%s)", err.message);
    for (size_t k = 0; sw && k < pl_sweep_runs(sw); k++)
        CHECK(pl_sweep_run_result(sw, k, NULL, NULL, &err) == PL_ERR_SOLVER && strstr(err.message, "cancelled"),
              "run %zu cancelled: %s", k, err.message);
    pl_sweep_destroy(sw);
    pl_model_destroy(ball);
}

/* A study's cancel hook stops the tasks under way at their solver's next step, as a sweep's does: the
 * hook is polled within a task (far more than once a task: the study has two), and the task it stopped
 * is not written as a failed run. */
static void test_study_cancel(void)
{
    pl_setting settings[] = {{"e", 1.0}}, options[] = {{"t_end", 1e3}, {"max_steps", 1e6}};
    const char *grids[] = {"mu=1e8"};
    long count = 300;
    pl_study_options o = {.settings = settings, .nsettings = 1, .options = options, .noptions = 2, .grids = grids,
                          .ngrids = 1, .jobs = 1, .cancel = cancel_after, .user = &count};
    pl_study *st = NULL;
    pl_error err;
    CHECK(pl_study_create(pl_builtin_case_find("bouncing_ball"), &o, &st, &err) == PL_OK, "study: %s", err.message);
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/study_cancel", dir);
    pl_status s = st ? pl_study_run(st, sub, &err) : PL_ERR_INPUT;
    CHECK(s == PL_ERR_SOLVER && strcmp(err.message, "cancelled") == 0 && count < 0,
          "a study cancelled after 300 polls, within its first tasks (%d, %s, %ld polls left)", (int)s,
          s ? err.message : "", count);
    char path[4300];
    snprintf(path, sizeof path, "%s/runs/00000/summary.json", sub);
    FILE *f = fopen(path, "r");
    CHECK(f == NULL, "the run under way when cancelled is not written as a failed run");
    if (f)
        fclose(f);
    pl_study_destroy(st);
}

static void test_column_names(void)
{
    pl_error err;
    pl_model *ball = pl_model_create(pl_builtin_case_find("bouncing_ball"), NULL, 0, &err);
    pl_setting h[] = {{"h", 1e-2}}, sparse[] = {{"sparse_contacts", 1}};
    pl_solution *pen = NULL, *scheme = NULL, *sp = NULL;
    pl_solve_model(ball, "limit", NULL, 0, &pen, &err);
    pl_solve_model(ball, "moreau_jean", h, 1, &scheme, &err);
    pl_solve_model(ball, "limit", sparse, 1, &sp, &err);
    const char *expect[] = {"t", "gamma", "q1", "v1", "G1", "force1"};
    char name[64];
    for (size_t k = 0; k < 6; k++)
        CHECK(pl_solution_column_name(pen, k, name, sizeof name) == strlen(expect[k]) && strcmp(name, expect[k]) == 0,
              "column %zu is %s (%s)", k, expect[k], name);
    CHECK(pl_solution_columns(pen) == 6 && pl_solution_column_name(pen, 6, name, sizeof name) == 0 && !name[0],
          "no column past the last");
    CHECK(pl_solution_column_name(scheme, 5, name, sizeof name) == 8 && strcmp(name, "impulse1") == 0,
          "a scheme's impulse (%s)", name);
    CHECK(pl_solution_columns(sp) == 4 && pl_solution_column_name(sp, 3, name, sizeof name) == 2 &&
              strcmp(name, "v1") == 0 && pl_solution_column_name(sp, 4, name, sizeof name) == 0,
          "sparse contacts: the rows end at v1");
    CHECK(pl_solution_column_name(pen, 1, name, 3) == 5 && strcmp(name, "ga") == 0, "truncated to len - 1 (%s)",
          name);
    CHECK(pl_solution_column_name(NULL, 0, name, sizeof name) == 0 && !name[0] &&
              pl_solution_column_name(pen, 0, NULL, 0) == 1,
          "NULL solution, NULL name");
    pl_solution_destroy(pen);
    pl_solution_destroy(scheme);
    pl_solution_destroy(sp);
    pl_model_destroy(ball);
}

/* text without what a second run does not repeat, the time each run took: the lines of JSON members
 * "wall_seconds", and a CSV table's last column when it is wall_seconds. */
static void drop_wall_seconds(char *text)
{
    for (char *w; (w = strstr(text, "\"wall_seconds\":"));) {
        char *end = strchr(w, '\n');
        memmove(w, end ? end : w + strlen(w), strlen(end ? end : w + strlen(w)) + 1);
    }
    char *eol = strchr(text, '\n');
    size_t tag = strlen(",wall_seconds");
    if (!eol || (size_t)(eol - text) < tag || strncmp(eol - tag, ",wall_seconds", tag) != 0)
        return;
    for (char *line = text, *out = text; *line;) {
        char *end = strchr(line, '\n'), *cut = line;
        size_t len = end ? (size_t)(end - line) : strlen(line);
        for (char *c = line; c < line + len; c++)
            if (*c == ',')
                cut = c;
        memmove(out, line, (size_t)(cut - line));
        out += cut - line;
        *out++ = '\n';
        *out = '\0';
        line = end ? end + 1 : line + len;
    }
}

static int same_file(const char *a, const char *b, const char *name)
{
    char pa[512], pb[512];
    snprintf(pa, sizeof pa, "%s/%s", a, name);
    snprintf(pb, sizeof pb, "%s/%s", b, name);
    char *x = slurp(pa), *y = slurp(pb);
    int same = x && y;
    if (same)
        drop_wall_seconds(x), drop_wall_seconds(y);
    same = same && strcmp(x, y) == 0;
    CHECK(same, "%s: the library's %s is the program's (%zu and %zu bytes)", a, name, x ? strlen(x) : 0,
          y ? strlen(y) : 0);
    free(x), free(y);
    return same;
}

static void test_write(void)
{
    pl_error err;
    pl_setting law[] = {{"e", 0.7}};
    pl_model *ball = pl_model_create(pl_builtin_case_find("bouncing_ball"), law, 1, &err);
    pl_setting mu[] = {{"mu", 3e5}};
    pl_solution *pen = NULL, *lim = NULL;
    CHECK(pl_solve_model(ball, "penalty", mu, 1, &pen, &err) == PL_OK, "penalty: %s", err.message);
    CHECK(pl_solve_model(ball, "limit", NULL, 0, &lim, &err) == PL_OK, "limit: %s", err.message);
    char out[600];
    snprintf(out, sizeof out, "%s/lib/run", dir);
    CHECK(pl_solution_write(ball, pen, out, &err) == PL_OK, "pl_solution_write: %s", err.message);
    snprintf(out, sizeof out, "%s/lib/limit", dir);
    CHECK(pl_solution_write(ball, lim, out, &err) == PL_OK, "pl_solution_write of the limit: %s", err.message);
    CHECK(run("run bouncing_ball --set e=0.7 --mu 3e5 --out cli/run --quiet") == 0, "penlim run");
    CHECK(run("limit bouncing_ball --set e=0.7 --out cli/limit --quiet") == 0, "penlim limit");
    const char *files[] = {"trajectory.csv", "trajectory_s.csv", "summary.json"};
    for (int k = 0; k < 3; k++) {
        same_file("lib/run", "cli/run", files[k]);
        same_file("lib/limit", "cli/limit", files[k]);
    }
    CHECK(exists("lib/run/manifest.json") && exists("lib/limit/manifest.json"),
          "the library writes the manifest of penlim run and penlim limit (python/tests compares them)");
    char under_file[1100];
    snprintf(under_file, sizeof under_file, "%s/lib/run/summary.json/sub", dir);
    CHECK(pl_solution_write(ball, pen, under_file, &err) == PL_ERR_IO && strstr(err.message, "summary.json/sub"),
          "a directory that cannot be made: PL_ERR_IO naming it (%s)", err.message);
    CHECK(pl_solution_write(ball, pen, "/proc/penlim-cannot", &err) == PL_ERR_INPUT && strstr(err.message, "/proc") &&
              strncmp(err.message, "--out", 5) != 0,
          "a system directory: refused as the command refuses it, the message the caller's (%s)", err.message);
    CHECK(pl_solution_write(ball, NULL, out, &err) == PL_ERR_INPUT, "no solution: %s", err.message);

    double values[] = {1e4, 1e5, 1e6};
    pl_sweep *sw = NULL;
    CHECK(pl_sweep_model(ball, "penalty", values, 3, NULL, 0, 2, 1, &sw, &err) == PL_OK, "sweep: %s", err.message);
    snprintf(out, sizeof out, "%s/lib/sweep", dir);
    CHECK(pl_sweep_write(ball, sw, out, &err) == PL_OK, "pl_sweep_write: %s", err.message);
    CHECK(run("sweep bouncing_ball --set e=0.7 --mu 1e4,1e5,1e6 --no-plots --no-isolate --out cli/sweep --quiet") ==
              0,
          "penlim sweep");
    const char *sweep_files[] = {"sweep.csv", "sweep.json", "episodes.csv", "impact_errors.csv",
                                 "limit/trajectory.csv", "limit/summary.json"};
    for (int k = 0; k < 6; k++)
        same_file("lib/sweep", "cli/sweep", sweep_files[k]);
    char runs[600];
    snprintf(runs, sizeof runs, "%s/cli/sweep/runs", dir);
    DIR *d = opendir(runs);
    int nruns = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char a[600], b[600];
        snprintf(a, sizeof a, "lib/sweep/runs/%s", e->d_name);
        snprintf(b, sizeof b, "cli/sweep/runs/%s", e->d_name);
        for (int k = 0; k < 3; k++)
            same_file(a, b, files[k]);
        nruns++;
    }
    if (d)
        closedir(d);
    CHECK(nruns == 3, "the three runs' directories compared (%d)", nruns);
    CHECK(exists("lib/sweep/manifest.json"), "the library writes the manifest of penlim sweep");
    pl_sweep_destroy(sw);
    pl_solution_destroy(pen);
    pl_solution_destroy(lim);
    pl_model_destroy(ball);
}

/* The registry's listings, a model loaded from a file, a sweep's limit solution, an external trajectory,
 * the library's own cancel hook. */
static void test_registry_and_loading(const char *models)
{
    CHECK(pl_law_count() == 4 && strcmp(pl_law_name(0), "kelvin_voigt") == 0 && pl_law_name(4) == NULL &&
              pl_law_summary(0) && pl_law_summary(4) == NULL,
          "the laws: %zu", pl_law_count());
    const pl_param_spec *specs = NULL;
    size_t np = pl_law_parameters(0, &specs);
    int has_xi = 0;
    for (size_t k = 0; k < np; k++)
        has_xi |= strcmp(specs[k].name, "xi") == 0 && (specs[k].flags & PL_PARAM_DERIVED);
    CHECK(np >= 3 && has_xi && pl_law_parameters(9, &specs) == 0 && specs == NULL, "Kelvin-Voigt's parameters");
    size_t penalty = 0;
    while (pl_solver_name(penalty) && strcmp(pl_solver_name(penalty), "penalty") != 0)
        penalty++;
    np = pl_solver_options(penalty, &specs);
    CHECK(np >= 1 && strcmp(specs[0].name, "mu") == 0 && pl_solver_summary(penalty) &&
              pl_solver_options(99, NULL) == 0 && pl_solver_summary(99) == NULL,
          "the penalty solver's options start with mu");

    pl_error err;
    char path[600];
    snprintf(path, sizeof path, "%s/ok.so", models);
    pl_setting e[] = {{"e", 0.25}};
    pl_model *m = pl_model_load(path, NULL, e, 1, &err);
    pl_solution *lim = NULL;
    CHECK(m && pl_solve_model(m, "limit", NULL, 0, &lim, &err) == PL_OK, "a model loaded from %s: %s", path,
          m ? err.message : "");
    double t1 = NAN, vb = NAN, va = NAN;
    if (lim && pl_solution_events(lim))
        pl_solution_event(lim, 0, NULL, &t1, NULL, &vb, &va);
    CHECK_NEAR(t1, sqrt(2.0 / 9.81), 1e-12, "its first impact");
    CHECK_NEAR(va / vb, -0.25, 1e-12, "its restitution, set by a setting");
    snprintf(path, sizeof path, "%s/bad_abi.so", models);
    CHECK(pl_model_load(path, NULL, NULL, 0, &err) == NULL && strstr(err.message, "ABI version"),
          "a bad model refused: %s", err.message);
    CHECK(pl_model_load("ok.so", NULL, NULL, 0, &err) == NULL && strstr(err.message, "path with a '/'"),
          "a name without a '/': %s", err.message);

    /* the limit solution written as a file and read back as an external trajectory: at distance 0 */
    snprintf(path, sizeof path, "%s/ext", dir);
    CHECK(pl_solution_write(m, lim, path, &err) == PL_OK, "written");
    snprintf(path, sizeof path, "%s/ext/trajectory.csv", dir);
    pl_solution *ext = NULL;
    double sup_q = NAN, l1_v = NAN;
    CHECK(pl_solution_read_external(m, path, NAN, &ext, &err) == PL_OK &&
              pl_compare_to_limit(m, ext, lim, &sup_q, &l1_v, NULL, NULL, &err) == PL_OK && sup_q == 0 && l1_v < 1e-9,
          "an external trajectory, the limit's own rows: at distance 0 (%g, %g: the L1 norm of v to round-off)",
          sup_q, l1_v);
    pl_solution_destroy(ext);
    CHECK(pl_solution_read_external(m, "/nonexistent.csv", NAN, &ext, &err) == PL_ERR_INPUT && !ext,
          "a missing file: %s", err.message);

    double mu[] = {1e4, 1e5};
    pl_sweep *sw = NULL, *none = NULL;
    CHECK(pl_sweep_model(m, "penalty", mu, 2, NULL, 0, 1, 1, &sw, &err) == PL_OK && pl_sweep_limit(sw) &&
              pl_solution_rows(pl_sweep_limit(sw)) == pl_solution_rows(lim),
          "the sweep's limit solution: %s", err.message);
    CHECK(pl_sweep_model(m, "penalty", mu, 2, NULL, 0, 1, 0, &none, &err) == PL_OK && !pl_sweep_limit(none) &&
              !pl_sweep_limit(NULL),
          "none without with_limit");
    pl_sweep_destroy(sw);
    pl_sweep_destroy(none);

    int flag = 0;
    CHECK(!pl_cancel_when_set(&flag) && !pl_cancel_when_set(NULL), "the flag clear: no cancel");
    flag = 1;
    pl_solve_hooks hooks = {pl_cancel_when_set, &flag};
    pl_solution *sol = NULL;
    CHECK(pl_cancel_when_set(&flag) && pl_solve_model_with(m, "limit", NULL, 0, &hooks, &sol, &err) == PL_ERR_SOLVER &&
              strstr(err.message, "cancelled at t = 0"),
          "the flag set: cancelled (%s)", err.message);
    pl_solution_destroy(sol);
    pl_solution_destroy(lim);
    pl_model_destroy(m);
}

int main(int argc, char **argv)
{
    check_init();
    pl_library_init();
    static char path[4096];
    if (argc < 3 || !realpath(argv[1], path)) {
        fprintf(stderr, "usage: test_hooks PATH_TO_PENLIM MODELS_DIR\n");
        return 2;
    }
    penlim = path;
    snprintf(dir, sizeof dir, "/tmp/penlim-hooks-XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    test_error_channel();
    test_cancel();
    test_study_cancel();
    test_column_names();
    test_write();
    test_registry_and_loading(argv[2]);
    int rc = check_finish("test_hooks");
    if (rc == 0) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "test_hooks: could not remove %s\n", dir);
    }
    return rc;
}
