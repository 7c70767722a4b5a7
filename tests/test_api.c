/* The public API (include/penlim/penlim.h) given what a caller can get wrong: every function checks
 * its pointers (NULL handles and outputs are PL_ERR_INPUT with a message, 0, NAN or NULL, never a
 * crash), a setting given twice and a zero cap on the steps are refused, and a sweep of many values
 * keeps nothing sized by their count on the caller's stack. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "penlim/penlim.h"

#include "check.h"

static pl_model *ball(void)
{
    pl_error err;
    pl_model *m = pl_model_create(pl_builtin_case_find("bouncing_ball"), NULL, 0, &err);
    CHECK(m != NULL, "the ball: %s", m ? "" : err.message);
    return m;
}

static void test_models(void)
{
    pl_error err;
    const pl_case *c = pl_builtin_case_find("bouncing_ball");
    CHECK(pl_model_create(c, NULL, 3, &err) == NULL && err.status == PL_ERR_INPUT && strstr(err.message, "settings"),
          "settings NULL with a count: refused (%s)", err.message);
    CHECK(pl_model_create(c, NULL, 3, NULL) == NULL, "and without err");
    CHECK(pl_model_create(NULL, NULL, 0, &err) == NULL && err.status == PL_ERR_INPUT, "no case: %s", err.message);
    pl_setting twice[2] = {{"e", 0.5}, {"e", 0.6}};
    CHECK(pl_model_create(c, twice, 2, &err) == NULL && strstr(err.message, "parameter e is set twice"),
          "a parameter set twice: refused, not the last one kept (%s)", err.message);
    pl_setting unterminated[1];
    memset(unterminated[0].name, 'e', sizeof unterminated[0].name);
    unterminated[0].value = 0.5;
    CHECK(pl_model_create(c, unterminated, 1, &err) == NULL && err.status == PL_ERR_INPUT,
          "a setting's name without its NUL: refused (%s)", err.message);
    CHECK(pl_model_case(NULL) == NULL && pl_model_dof(NULL) == 0 && pl_model_constraints(NULL) == 0 &&
              isnan(pl_model_parameter(NULL, "e")),
          "the model's getters on NULL");
    pl_model_destroy(NULL);
    CHECK(pl_builtin_case_find(NULL) == NULL && pl_builtin_case_at(1000) == NULL, "case lookups");
}

static void test_solutions(void)
{
    pl_error err;
    pl_model *m = ball();
    pl_solution *sol = NULL;
    CHECK(pl_solve_model(m, "limit", NULL, 0, NULL, &err) == PL_ERR_INPUT && strstr(err.message, "out is NULL"),
          "no place for the solution: %s", err.message);
    CHECK(pl_solve_model(m, "limit", NULL, 0, NULL, NULL) == PL_ERR_INPUT, "and without err");
    CHECK(pl_solve_model(NULL, "limit", NULL, 0, &sol, &err) == PL_ERR_INPUT && sol == NULL, "no model: %s",
          err.message);
    CHECK(pl_solve_model(m, NULL, NULL, 0, &sol, &err) == PL_ERR_INPUT, "no solver: %s", err.message);
    CHECK(pl_solve_model(m, "limit", NULL, 2, &sol, &err) == PL_ERR_INPUT, "options NULL with a count: %s",
          err.message);
    pl_setting zero_steps[1] = {{"max_steps", 0}};
    CHECK(pl_solve_model(m, "limit", zero_steps, 1, &sol, &err) == PL_ERR_INPUT && strstr(err.message, "max_steps"),
          "max_steps = 0 refused, not read as the default cap: %s", err.message);
    double qv[2] = {7, 7};
    long steps = 7, rhs = 7;
    double seconds = 7;
    const char *kind = NULL;
    CHECK(pl_solution_rows(NULL) == 0 && pl_solution_columns(NULL) == 0 && pl_solution_row(NULL, 0) == NULL &&
              isnan(pl_solution_final(NULL, qv)) && qv[0] == 7 && pl_solution_events(NULL) == 0 &&
              pl_solution_event(NULL, 0, &kind, NULL, NULL, NULL, NULL) == PL_ERR_INPUT && kind == NULL &&
              pl_solution_episodes(NULL) == 0 &&
              pl_solution_episode(NULL, 0, NULL, NULL, NULL, NULL) == PL_ERR_INPUT,
          "the solution's getters on NULL");
    pl_solution_work(NULL, &steps, &rhs, &seconds);
    CHECK(steps == 0 && rhs == 0 && isnan(seconds), "no work from no solution");
    pl_solution_destroy(NULL);
    pl_setting opts[1] = {{"samples", 0}};
    CHECK(pl_solve_model(m, "limit", opts, 1, &sol, &err) == PL_OK, "a limit solution: %s", err.message);
    double lim_sup = NAN;
    CHECK(pl_compare_to_limit(NULL, sol, sol, &lim_sup, NULL, NULL, NULL, &err) == PL_ERR_INPUT &&
              pl_compare_to_limit(m, NULL, sol, NULL, NULL, NULL, NULL, NULL) == PL_ERR_INPUT,
          "compare without a model or a solution");
    /* A failed solution is not measured (n/a in sweeps and compare): a run stopped after 50 steps
     * would look close to the limit over the little time it covers. */
    pl_setting stop[] = {{"mu", 1e6}, {"max_steps", 50}};
    pl_solution *stopped = NULL, *whole = NULL;
    CHECK(pl_solve_model(m, "penalty", stop, 2, &stopped, &err) == PL_ERR_SOLVER && stopped, "stopped: %s",
          err.message);
    CHECK(pl_compare_to_limit(m, stopped, sol, &lim_sup, NULL, NULL, NULL, &err) == PL_ERR_INPUT &&
              strstr(err.message, "the solution failed") != NULL,
          "a failed solution refused: %s", err.message);
    CHECK(pl_solve_model(m, "penalty", stop, 1, &whole, &err) == PL_OK, "a whole run: %s", err.message);
    pl_setting few[] = {{"samples", 0}, {"max_steps", 5}};
    pl_solution *limit_stopped = NULL;
    CHECK(pl_solve_model(m, "limit", few, 2, &limit_stopped, &err) == PL_ERR_SOLVER && limit_stopped,
          "the limit solution stopped: %s", err.message);
    CHECK(pl_compare_to_limit(m, whole, limit_stopped, &lim_sup, NULL, NULL, NULL, &err) == PL_ERR_INPUT &&
              strstr(err.message, "the limit solution failed") != NULL,
          "a failed limit solution refused: %s", err.message);
    pl_solution_destroy(limit_stopped);
    lim_sup = NAN;
    CHECK(pl_compare_to_limit(m, whole, sol, &lim_sup, NULL, NULL, NULL, &err) == PL_OK && lim_sup > 0 &&
              lim_sup < 0.1, /* of h0 = 1: the largest near the Zeno point */
          "the whole run measured: sup_q %g", lim_sup);
    pl_solution_destroy(stopped);
    pl_solution_destroy(whole);
    pl_solution_destroy(sol);
    pl_model_destroy(m);
}

/* pl_solution_contacts in either storage: the ball stopped at t = 0.2, before it reaches the floor
 * (h0 = 1 at g = 9.81: t = 0.45), reports no contact at any row, also sparse where no contact was
 * ever stored; run to t = 1 (through its first impact), the two storages report the same contacts
 * at every row, and some. */
static void test_contacts(void)
{
    pl_error err;
    pl_model *m = ball();
    for (double t_end = 0.2; t_end <= 1.0; t_end += 0.8) {
        pl_solution *sol[2] = {NULL, NULL};
        for (int sparse = 0; sparse <= 1; sparse++) {
            pl_setting options[] = {{"mu", 1e4}, {"t_end", t_end}, {"sparse_contacts", sparse}};
            CHECK(pl_solve_model(m, "penalty", options, 3, &sol[sparse], &err) == PL_OK &&
                      pl_solution_sparse_contacts(sol[sparse]) == sparse,
                  "the ball to t = %g, %s: %s", t_end, sparse ? "sparse" : "dense", sol[sparse] ? "" : err.message);
        }
        size_t rows = pl_solution_rows(sol[0]), differ = 0, in_contact = 0;
        CHECK(rows > 10 && rows == pl_solution_rows(sol[1]), "the same rows (%zu)", rows);
        for (size_t r = 0; r < rows; r++) {
            size_t c[2][2] = {{7, 7}, {7, 7}}, count[2];
            double g[2][2] = {{7, 7}, {7, 7}}, f[2][2] = {{7, 7}, {7, 7}};
            for (int k = 0; k < 2; k++)
                count[k] = pl_solution_contacts(sol[k], r, 2, c[k], g[k], f[k]);
            in_contact += count[0];
            differ += count[0] != count[1] || count[0] > 1 ||
                      (count[0] == 1 && (c[0][0] != 0 || c[1][0] != 0 || g[0][0] != g[1][0] || f[0][0] != f[1][0]));
        }
        CHECK(differ == 0 && (t_end < 0.45 ? in_contact == 0 : in_contact > 0),
              "to t = %g: %zu rows in contact, %zu rows where dense and sparse differ", t_end, in_contact, differ);
        pl_solution_destroy(sol[0]);
        pl_solution_destroy(sol[1]);
    }
    pl_model_destroy(m);
}

static void test_sweeps(void)
{
    pl_error err;
    pl_model *m = ball();
    double mu[2] = {1e4, 1e6};
    pl_sweep *sw = NULL;
    CHECK(pl_sweep_model(m, "penalty", mu, 2, NULL, 0, 1, 0, NULL, &err) == PL_ERR_INPUT &&
              strstr(err.message, "out is NULL"),
          "no place for the sweep: %s", err.message);
    CHECK(pl_sweep_model(NULL, "penalty", mu, 2, NULL, 0, 1, 0, &sw, &err) == PL_ERR_INPUT && sw == NULL,
          "no model: %s", err.message);
    CHECK(pl_sweep_model(m, "penalty", NULL, 2, NULL, 0, 1, 0, &sw, &err) == PL_ERR_INPUT, "no values: %s",
          err.message);
    double value = 7;
    CHECK(pl_sweep_runs(NULL) == 0 && pl_sweep_run_result(NULL, 0, &value, NULL, &err) == PL_ERR_INPUT &&
              value == 7 && pl_sweep_quantity_get(NULL, "restitution_first", NULL, NULL, NULL, NULL, &err) == PL_ERR_INPUT,
          "the sweep's getters on NULL");
    pl_sweep_destroy(NULL);
    pl_model_destroy(m);
}

/* A comparison whose limit solution fails (5 steps for 3 s of bounces): nothing is measured against
 * it, as the command that exits 3 says; pl_compare_model returns that failure with the comparison
 * made, and pl_compare_limit_status gives the limit's reason. */
static void test_compare_limit_failed(void)
{
    pl_error err;
    pl_model *m = ball();
    pl_setting opts[] = {{"t_end", 3}, {"max_steps", 5}};
    pl_compare_spec spec[] = {{PL_COMPARE_MU, 1e3, NULL}};
    pl_compare_options o = {.specs = spec, .nspecs = 1, .options = opts, .noptions = 2};
    pl_compare *c = NULL;
    pl_status s = pl_compare_model(m, &o, &c, &err);
    CHECK(s == PL_ERR_SOLVER && c != NULL && strstr(err.message, "the limit solution failed"),
          "a failed limit solution is the comparison's failure (status %d): %s", (int)s, err.message);
    pl_error lerr = {PL_OK, ""};
    CHECK(pl_compare_limit_status(c, &lerr) == PL_ERR_SOLVER && strstr(lerr.message, "steps"),
          "its status and reason: %s", lerr.message);
    CHECK(pl_compare_limit_status(NULL, &lerr) == PL_ERR_INPUT, "no comparison: %s", lerr.message);
    pl_compare_destroy(c);
    opts[1].value = 100000;
    c = NULL;
    s = pl_compare_model(m, &o, &c, &err);
    CHECK(s == PL_OK && c && pl_compare_limit_status(c, &lerr) == PL_OK, "a limit solution that succeeds: PL_OK (%d)",
          (int)s);
    pl_model *other = ball();
    CHECK(pl_compare_write(other, c, "/nonexistent-dir/never", &err) == PL_ERR_INPUT &&
              strstr(err.message, "not the one compared"),
          "written with another model: refused before anything is made: %s", err.message);
    pl_model_destroy(other);
    pl_compare_destroy(c);
    pl_model_destroy(m);
}

/* The sweep's own thread keeps its arrays on the heap: 40000 runs of a scheme (cheap: 10 steps each)
 * swept from a thread with a 256 KB stack, where the arrays of two doubles per run once sized on
 * the stack (640 KB) overflowed it. */
enum { MANY = 40000 };

static void *many_runs(void *arg)
{
    pl_status *status = arg;
    pl_error err;
    pl_model *m = ball();
    double *h = malloc(MANY * sizeof *h);
    for (size_t k = 0; h && k < MANY; k++)
        h[k] = 1.0 - 1e-6 * (double)k; /* t-end 10: ceil(10/h) = 10 or 11 steps */
    pl_sweep *sw = NULL;
    pl_setting samples[1] = {{"samples", 0}};
    *status = m && h ? pl_sweep_model(m, "moreau_jean", h, MANY, samples, 1, 2, 0, &sw, &err) : PL_ERR_NOMEM;
    if (*status == PL_OK && pl_sweep_runs(sw) != MANY)
        *status = PL_ERR_SOLVER;
    pl_sweep_destroy(sw);
    pl_model_destroy(m);
    free(h);
    return NULL;
}

static void test_many_values(void)
{
    pthread_attr_t attr;
    pthread_t thread;
    pl_status status = PL_ERR_IO;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    CHECK(pthread_create(&thread, &attr, many_runs, &status) == 0, "a thread with a small stack");
    pthread_join(thread, NULL);
    pthread_attr_destroy(&attr);
    CHECK(status == PL_OK, "a sweep of %d values from a 256 KB stack (status %d)", MANY, (int)status);
}

int main(void)
{
    check_init();
    pl_library_init();
    test_models();
    test_solutions();
    test_contacts();
    test_sweeps();
    test_compare_limit_failed();
    test_many_values();
    return check_finish("test_api");
}
