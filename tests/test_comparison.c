/* A comparison (study/comparison.h) through the library: the limit solution once, each solution
 * solved by the caller's solve or pl_solve and measured against it, a failed one recorded and not
 * measured, the families in the order of the registry. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "study/comparison.h"

typedef struct {
    const pl_model *model;
    int limit_calls, calls;
} counter;

/* Solves as pl_solve does, counting; item 4 "refused" after solving (its status stays ok). */
static pl_status counting_solve(size_t k, const pl_solver_type *solver, const pl_solve_opts *o, pl_solution *sol,
                                pl_error *err, void *user)
{
    counter *c = user;
    if (k == PL_COMPARISON_LIMIT)
        c->limit_calls++;
    else
        c->calls++;
    pl_status s = pl_solve(solver, c->model, o, sol, err);
    if (s == PL_OK && k == 4)
        return pl_fail(err, PL_ERR_INPUT, "refused by its process");
    return s;
}

static void test_ball(void)
{
    pl_error err;
    pl_model m;
    CHECK(pl_model_init(&m, &pl_case_bouncing_ball, NULL, 0, &err) == PL_OK, "model: %s", err.message);
    const double mu[] = {1e4, 1e5, 1e6, 1e7, 1e8};
    enum { N = 7 };
    pl_comparison_item items[N];
    for (size_t k = 0; k < 5; k++) {
        pl_comparison_item_init(&items[k], &pl_solver_penalty);
        pl_solve_opts_init(&items[k].opts, &pl_solver_penalty, &m, 3.0);
        items[k].opts.option[pl_solver_option_index(&pl_solver_penalty, "mu")] = mu[k];
    }
    pl_comparison_item_init(&items[5], &pl_solver_penalty); /* stopped after 10 steps */
    pl_solve_opts_init(&items[5].opts, &pl_solver_penalty, &m, 3.0);
    items[5].opts.max_steps = 10;
    pl_comparison_item_init(&items[6], &pl_solver_moreau_jean);
    pl_solve_opts_init(&items[6].opts, &pl_solver_moreau_jean, &m, 3.0);
    items[6].opts.option[pl_solver_option_index(&pl_solver_moreau_jean, "h")] = 1e-3;
    counter cnt = {&m, 0, 0};
    pl_comparison_opts o = {.solve = counting_solve, .user = &cnt};
    pl_limit_opts(&m, &items[0].opts, 0, &o.limit);
    pl_comparison c;
    CHECK(pl_comparison_run(&m, items, N, &o, &c, &err) == PL_OK, "run: %s", err.message);
    CHECK(cnt.limit_calls == 1 && cnt.calls == N, "the limit solved once (%d), each item once (%d)", cnt.limit_calls,
          cnt.calls);
    CHECK(c.has_limit && c.limit.status == PL_OK, "the limit solution");
    CHECK(c.failures == 2, "two failures: the stopped run and the refused one (%zu)", c.failures);
    CHECK(items[5].sol.status == PL_ERR_SOLVER && !items[5].compared, "the stopped run failed, not measured");
    CHECK(items[4].sol.status == PL_ERR_INPUT && strstr(items[4].sol.error.message, "refused") && !items[4].compared,
          "a failure the solve returned fails its solution: %s", items[4].sol.error.message);
    for (size_t k = 0; k < 4; k++)
        CHECK(items[k].compared && isfinite(items[k].res.d.s_dist_q), "mu = %g measured, with its distance in s",
              mu[k]);
    for (size_t k = 1; k < 4; k++)
        CHECK(items[k].res.d.l1_v < items[k - 1].res.d.l1_v, "L1 |v - v_lim| falls with mu (%g -> %g)",
              items[k - 1].res.d.l1_v, items[k].res.d.l1_v);
    CHECK(items[6].compared && isnan(items[6].res.d.s_dist_q), "the scheme measured, no distance in s");
    CHECK(c.nfam == 2 && c.fam[0].solver == &pl_solver_penalty && c.fam[0].n == 4 &&
              c.fam[1].solver == &pl_solver_moreau_jean && c.fam[1].n == 1,
          "families in the registry's order, of the measured members (%zu)", c.nfam);
    pl_comparison_free(&c);
    for (size_t k = 0; k < N; k++)
        pl_comparison_item_free(&items[k]);
    pl_model_free(&m);
}

/* The default values against their rule: mu = 1e4, 1e6, 1e8 (refining: 1e2 ... 1e10); h = 10^(-1.2 - k)
 * T, T = sqrt(2 h0/g) for the ball dropped from rest, k = 0, 1, 2 (refining: 0, 0.5, ..., 3), each
 * rounded up to 1, 2 or 5 x 10^j. */
static void test_defaults(void)
{
    pl_error err;
    pl_model m;
    pl_setting set[] = {{"h0", 2.0}, {"g", 5.0}};
    CHECK(pl_model_init(&m, &pl_case_bouncing_ball, set, 2, &err) == PL_OK, "model: %s", err.message);
    double v[PL_COMPARISON_MAX_DEFAULTS], T = sqrt(2.0 * 2.0 / 5.0);
    CHECK(pl_comparison_defaults(&pl_solver_penalty, &m, 10.0, 0, v) == 3 && v[0] == 1e4 && v[1] == 1e6 && v[2] == 1e8,
          "mu = 1e4, 1e6, 1e8");
    CHECK(pl_comparison_defaults(&pl_solver_penalty, &m, 10.0, 1, v) == 9, "9 mu refining");
    for (size_t j = 0; j < 9; j++)
        CHECK(v[j] == pow(10.0, 2.0 + (double)j), "mu %zu = %g", j, v[j]);
    /* T = 0.894: 10^-1.2 T = 0.0564 -> 0.1, 10^-1.7 T = 0.0178 -> 0.02, ... (rounded up:
     * docs/methods.md, "Default grids") */
    CHECK(pl_comparison_defaults(&pl_solver_paoli, &m, 10.0, 0, v) == 3, "3 h");
    static const double three[] = {0.1, 0.01, 0.001}, seven[] = {0.1, 0.02, 0.01, 0.002, 0.001, 0.0002, 1e-4};
    for (size_t j = 0; j < 3; j++)
        CHECK(v[j] == three[j], "h %zu = %.17g, want %g (10^(-1.2 - %zu) T = %.4g, rounded)", j, v[j], three[j], j,
              pow(10.0, -1.2 - (double)j) * T);
    CHECK(pl_comparison_defaults(&pl_solver_maury, &m, 10.0, 1, v) == 7, "7 h refining");
    for (size_t j = 0; j < 7; j++)
        CHECK(v[j] == seven[j], "h %zu = %.17g, want %g (10^(-1.2 - %g) T = %.4g, rounded)", j, v[j], seven[j],
              0.5 * (double)j, pow(10.0, -1.2 - 0.5 * (double)j) * T);
    pl_model_free(&m);
}

/* Nothing is measured against a limit solution that failed: every solution stays unmeasured (n/a),
 * no family is assessed, and the limit solution counts as a failure. */
static void test_failed_limit(void)
{
    pl_error err;
    pl_model m;
    CHECK(pl_model_init(&m, &pl_case_bouncing_ball, NULL, 0, &err) == PL_OK, "model: %s", err.message);
    pl_comparison_item items[2];
    for (size_t k = 0; k < 2; k++) {
        pl_comparison_item_init(&items[k], &pl_solver_penalty);
        pl_solve_opts_init(&items[k].opts, &pl_solver_penalty, &m, 3.0);
    }
    pl_comparison_opts o = {0};
    pl_limit_opts(&m, &items[0].opts, 0, &o.limit);
    o.limit.max_steps = 5;
    pl_comparison c;
    CHECK(pl_comparison_run(&m, items, 2, &o, &c, &err) == PL_OK, "run: %s", err.message);
    CHECK(!c.has_limit && c.limit.status == PL_ERR_SOLVER && c.failures == 1, "the limit solution failed (%zu)",
          c.failures);
    CHECK(items[0].sol.status == PL_OK && items[1].sol.status == PL_OK && !items[0].compared && !items[1].compared &&
              items[0].analysed,
          "the runs solved and analysed, not measured");
    CHECK(c.nfam == 0, "no family without the limit solution");
    pl_comparison_free(&c);
    for (size_t k = 0; k < 2; k++)
        pl_comparison_item_free(&items[k]);
    pl_model_free(&m);
}

int main(void)
{
    check_init();
    test_defaults();
    test_ball();
    test_failed_limit();
    return check_finish("test_comparison");
}
