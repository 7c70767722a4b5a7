/* Studies (src/study/study.h): every bad axis refused with one line naming it; the plan's counts
 * (cartesian, first axis slowest; --zip); the dealing of tasks whose predicted costs differ 100x
 * balances the shards; and a small study's values are exactly those of the sweeps run by hand at
 * each of its points. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/cases.h"
#include "check.h"
#include "io/study_report.h"
#include "penlim/penlim.h"
#include "study/study.h"

static void spec_init(pl_study_spec *sp, const pl_case *c, const pl_solver_type *solver, const char *const *grids,
                      size_t n)
{
    memset(sp, 0, sizeof *sp);
    sp->c = c;
    sp->solver = solver;
    sp->grids = grids;
    sp->ngrids = n;
    sp->t_end = NAN;
    sp->samples = SIZE_MAX;
    sp->jobs = 1;
}

/* The grids are refused with PL_ERR_INPUT and one line containing `names`. */
static void refused(const pl_solver_type *solver, const char *const *grids, size_t n, int zip, const char *names)
{
    pl_study_spec sp;
    spec_init(&sp, &pl_case_corner, solver, grids, n);
    sp.zip = zip;
    pl_study st;
    pl_error err = {0};
    pl_status s = pl_study_plan(&sp, &st, &err);
    CHECK(s == PL_ERR_INPUT, "%s ... refused (status %d)", grids[0], (int)s);
    CHECK(strchr(err.message, '\n') == NULL && strstr(err.message, names) != NULL,
          "one line naming '%s': '%s'", names, err.message);
    pl_study_free(&st);
}

static void test_bad_input(void)
{
    const pl_solver_type *pen = &pl_solver_penalty, *mj = &pl_solver_moreau_jean;
    refused(pen, (const char *[]){"nosuch=1,2"}, 1, 0, "nosuch");
    refused(pen, (const char *[]){"eps=0.1,0.2", "eps=0.3"}, 2, 0, "eps is given twice");
    refused(pen, (const char *[]){"eps="}, 1, 0, "eps: no values");
    refused(pen, (const char *[]){"eps=0.1,,0.2"}, 1, 0, "eps");
    refused(pen, (const char *[]){"eps=0.1,inf"}, 1, 0, "not a finite number");
    refused(pen, (const char *[]){"eps=nan"}, 1, 0, "not a finite number");
    refused(pen, (const char *[]){"mu=1e4:1e400:3"}, 1, 0, "not a finite number");
    refused(pen, (const char *[]){"eps=0.1,0.1"}, 1, 0, "repeated");
    refused(pen, (const char *[]){"eps=0.5,2"}, 1, 0, "eps = 2");          /* out of (-1, 1) */
    refused(pen, (const char *[]){"angle=90,200"}, 1, 0, "angle = 200");
    refused(pen, (const char *[]){"h=0.1,0.01"}, 1, 0, "--scheme");       /* h without a scheme */
    /* admissible one by one, not together: the start (-0.5, -1) lies outside a 60 degree corner */
    refused(pen, (const char *[]){"eps=0,0.5", "angle=135,60"}, 2, 0, "eps = 0.5, angle = 60");
    refused(mj, (const char *[]){"mu=1e4,1e6"}, 1, 0, "mu");              /* mu of a scheme */
    refused(pen, (const char *[]){"=1,2"}, 1, 0, "NAME=VALUES");
    refused(pen, (const char *[]){"mu=-1:10:3"}, 1, 0, "geometric");
    refused(pen, (const char *[]){"eps=lin:-0.5:0.5:1001", "mu=1e4:1e8:1000"}, 2, 0, "more than 1000000");
    refused(pen, (const char *[]){"eps=0.1,0.2", "angle=90,100,110"}, 2, 1, "--zip");
    refused(pen, (const char *[]){"t-end=1,0"}, 1, 0, "t_end");
    /* over the cap, refused before a value is allocated: 1e7 values of one axis */
    refused(pen, (const char *[]){"eps=lin:-0.5:0.5:10000000"}, 1, 0, "more than 1000000");
}

static void test_plan(void)
{
    pl_study_spec sp;
    pl_study st;
    pl_error err;
    const char *g[] = {"eps=lin:-0.2:0.2:3", "mu=1e4,1e6,1e5,1e8", "t-end=1.5,2"};
    spec_init(&sp, &pl_case_corner, &pl_solver_penalty, g, 3);
    CHECK(pl_study_plan(&sp, &st, &err) == PL_OK, "plan: %s", err.message);
    CHECK(st.nruns == 24 && st.npoints == 6 && st.nlimits == 6 && st.ntasks == 30 && st.refined == 1,
          "3 x 4 x 2: 24 runs, 6 points, 6 limits, 30 tasks (got %zu, %zu, %zu, %zu)", st.nruns, st.npoints, st.nlimits,
          st.ntasks);
    CHECK(st.axes[0].values[1] == 0.0 && st.axes[0].values[2] == 0.2, "lin:-0.2:0.2:3 gives 0 and 0.2 exactly");
    /* first axis slowest: run 9 = eps[1], mu[0], t_end[1] (9 = 1*8 + 0*2 + 1) */
    CHECK(pl_study_value(&st, 0, 9) == 0.0 && pl_study_value(&st, 1, 9) == 1e4 && pl_study_value(&st, 2, 9) == 2.0,
          "run 9's values");
    /* point of run 9: eps[1], t_end[1] -> 1*2 + 1 = 3; its runs are the 4 mu at those values */
    CHECK(st.run_point[9] == 3 && st.point_first[4] - st.point_first[3] == 4, "run 9 in point 3 of 4 runs");
    for (size_t k = st.point_first[3]; k < st.point_first[4]; k++)
        CHECK(pl_study_value(&st, 0, st.point_runs[k]) == 0.0 && pl_study_value(&st, 2, st.point_runs[k]) == 2.0,
              "point 3's runs share eps and t_end");
    CHECK(st.run_limit[9] == 3 && st.run_limit[9 + 2] == 3, "mu does not change the limit key");
    pl_study_free(&st);

    /* a decimal range gives its decimals: (A (N-1-j) + B j)/(N-1) alone gives -0.009999999999999998 */
    const char *d[] = {"eps=lin:-0.02:0.02:5", "k=0.1:0.4:4"};
    spec_init(&sp, &pl_case_corner, &pl_solver_penalty, d, 2);
    CHECK(pl_study_plan(&sp, &st, &err) == PL_OK, "decimal plan: %s", err.message);
    CHECK(st.axes[0].values[1] == -0.01 && st.axes[0].values[3] == 0.01, "lin:-0.02:0.02:5 gives -0.01 and 0.01");
    CHECK(st.axes[1].values[1] == 0.2 && st.axes[1].values[2] == 0.3, "0.1:0.4:4 (linear for k) gives 0.2 and 0.3");
    pl_study_free(&st);

    const char *z[] = {"eps=-0.1,0,0.1", "angle=120,135,150"};
    spec_init(&sp, &pl_case_corner, &pl_solver_penalty, z, 2);
    sp.zip = 1;
    CHECK(pl_study_plan(&sp, &st, &err) == PL_OK, "zip plan: %s", err.message);
    CHECK(st.nruns == 3 && st.npoints == 3 && st.nlimits == 3 && st.refined == -1, "zip: 3 runs, points, limits");
    CHECK(pl_study_value(&st, 0, 2) == 0.1 && pl_study_value(&st, 1, 2) == 150, "zip pairs the j-th values");
    pl_study_free(&st);

    /* zipped runs sharing their case values share their limit solution, numbered as they first occur */
    const char *zr[] = {"eps=0.1,-0.2,0.1,0", "mu=1e4,1e6,1e6,1e5", "angle=135,135,135,120"};
    spec_init(&sp, &pl_case_corner, &pl_solver_penalty, zr, 3);
    sp.zip = 1;
    CHECK(pl_study_plan(&sp, &st, &err) == PL_OK, "zip plan with repeats: %s", err.message);
    CHECK(st.nruns == 4 && st.npoints == 4 && st.nlimits == 3 && st.run_limit[0] == 0 && st.run_limit[1] == 1 &&
              st.run_limit[2] == 0 && st.run_limit[3] == 2,
          "zip: runs 0 and 2 (eps 0.1, angle 135) share limit 0 of 3 (%zu limits)", st.nlimits);
    pl_study_free(&st);

    const char *rt[] = {"rtol=1e-8,1e-10", "mu=1e4,1e6"};
    spec_init(&sp, &pl_case_corner, &pl_solver_penalty, rt, 2);
    CHECK(pl_study_plan(&sp, &st, &err) == PL_OK, "rtol plan: %s", err.message);
    CHECK(st.nruns == 4 && st.npoints == 2 && st.nlimits == 1, "rtol is no limit key: 1 limit for 2 points");
    pl_study_free(&st);
}

/* Tasks of costs 1 and 100 (mu = 1e4 and 1e12: (1e8)^(1/4) = 100), limits of cost 1: dealt to 2
 * shards, the loads balance; dealt every N-th, one shard would get every costly run. */
static void test_dealing(void)
{
    pl_study_spec sp;
    pl_study st;
    pl_error err;
    const char *g[] = {"eps=lin:-0.45:0.45:10", "mu=1e4,1e12"};
    spec_init(&sp, &pl_case_corner, &pl_solver_penalty, g, 2);
    sp.t_end = 1.0;
    CHECK(pl_study_plan(&sp, &st, &err) == PL_OK, "plan: %s", err.message);
    size_t cheap = st.nlimits + 0, costly = st.nlimits + 1;
    NEAR(st.tasks[costly].cost / st.tasks[cheap].cost, 100.0, 1e-9, "predicted costs 100x apart");
    NEAR(st.tasks[0].cost, 1.0, 0.0, "a limit's cost");
    size_t shard[30];
    double load[3] = {0}, rr[2] = {0};
    CHECK(pl_study_deal(&st, 2, shard, &err) == PL_OK, "deal");
    for (size_t t = 0; t < st.ntasks; t++) {
        load[shard[t]] += st.tasks[t].cost;
        rr[t % 2] += st.tasks[t].cost;
    }
    NEAR(load[0], 510.0, 1e-9, "shard 0's load (1020 / 2)");
    NEAR(load[1], 510.0, 1e-9, "shard 1's load");
    CHECK(fmax(rr[0], rr[1]) / fmin(rr[0], rr[1]) > 50, "every N-th would be unbalanced (%g vs %g)", rr[0], rr[1]);
    /* 3 shards: the longest processing time first is within 4/3 of the optimum */
    memset(load, 0, sizeof load);
    CHECK(pl_study_deal(&st, 3, shard, &err) == PL_OK, "deal to 3");
    for (size_t t = 0; t < st.ntasks; t++)
        load[shard[t]] += st.tasks[t].cost;
    double lower = fmax(1020.0 / 3, 100.0), most = fmax(load[0], fmax(load[1], load[2]));
    CHECK(most <= 4.0 / 3 * lower + 100, "3 shards: most loaded %g, lower bound %g", most, lower);
    pl_study_free(&st);
}

/* A study of the corner over eps x mu: per point, the sweep run by hand gives exactly the study's
 * values. */
static void test_matches_sweeps(int jobs)
{
    char dir[] = "/tmp/penlim_test_study_XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "temporary directory");
    pl_study_spec sp;
    pl_study st;
    pl_error err;
    const char *g[] = {"eps=-0.3,0.25", "mu=1e4,1e6,1e5"};
    spec_init(&sp, &pl_case_corner, &pl_solver_penalty, g, 2);
    sp.jobs = jobs;
    CHECK(pl_study_plan(&sp, &st, &err) == PL_OK, "plan: %s", err.message);
    pl_output out;
    pl_output_init(&out, dir, 0644, NULL);
    CHECK(pl_study_phase1(&st, &out, NULL, &err) == PL_OK, "phase 1: %s", err.message);
    CHECK(pl_study_assemble(&st, &out, &err) == PL_OK, "phase 2: %s", err.message);
    CHECK(pl_write_study(&out, &st, &err) == PL_OK, "files: %s", err.message);
    double eps[] = {-0.3, 0.25}, mu[] = {1e4, 1e5, 1e6};
    for (size_t p = 0; p < 2; p++) {
        pl_setting set = {"eps", eps[p]};
        pl_model m;
        CHECK(pl_model_init(&m, &pl_case_corner, &set, 1, &err) == PL_OK, "model");
        pl_sweep_opts o = {.solver = &pl_solver_penalty, .jobs = 1, .with_limit = 1};
        pl_solve_opts_init(&o.base, &pl_solver_penalty, &m, NAN);
        pl_sweep sw;
        CHECK(pl_sweep_run(&m, mu, 3, &o, &sw, &err) == PL_OK, "sweep");
        for (size_t k = 0; k < 3; k++) {
            /* run index: eps slowest, mu in the order given (1e4, 1e6, 1e5) */
            size_t r = p * 3 + (k == 0 ? 0 : k == 1 ? 2 : 1);
            double row[PL_SWEEP_ROW];
            pl_sweep_row(&sw, k, row);
            CHECK(st.run[r].status == PL_OK && sw.runs[k].status == PL_OK, "run %zu ok", r);
            size_t same = 0, both_nan = 0;
            for (size_t j = 0; j + 1 < PL_SWEEP_ROW; j++) { /* wall_seconds apart */
                same += row[j] == st.run[r].row[j] || (isnan(row[j]) && isnan(st.run[r].row[j]));
                both_nan += isnan(row[j]);
                if (!(row[j] == st.run[r].row[j] || (isnan(row[j]) && isnan(st.run[r].row[j]))))
                    fprintf(stderr, "  run %zu column %zu: study %.17g, sweep %.17g\n", r, j, st.run[r].row[j], row[j]);
            }
            if (getenv("STUDY_VERBOSE")) fprintf(stderr, "run %zu: restitution %.17g, sup_q %.17g, steps %g\n", r, row[7], row[13], row[24]);
            CHECK(same == PL_SWEEP_ROW - 1, "run %zu (eps %g, mu %g): every value as the sweep's (%zu nan)", r, eps[p],
                  mu[k], both_nan);
            for (size_t j = 0; j < m.n; j++)
                CHECK(st.run[r].final_qv[j] == sw.runs[k].q_final[j] && st.run[r].final_qv[m.n + j] == sw.runs[k].v_final[j],
                      "run %zu: final state as the sweep's", r);
        }
        const pl_study_convergence *c = &st.conv[p * PL_SWEEP_NQ + PL_Q_RESTITUTION_FIRST];
        const pl_convergence *cv = &sw.q[PL_Q_RESTITUTION_FIRST].conv;
        CHECK((c->rate == cv->rate || (isnan(c->rate) && isnan(cv->rate))) && c->limit == cv->limit,
              "point %zu: the restitution's rate and limit as the sweep's", p);
        pl_sweep_free(&sw);
        pl_model_free(&m);
    }
    pl_output_free(&out);
    pl_study_free(&st);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0, "clean up");
}

/* The public API: the same study through pl_study_create and pl_study_run, with the progress
 * callback told of every run. */
static size_t progress_calls, progress_last_done;
static void on_progress(const pl_study_progress *p, void *user)
{
    (void)user;
    progress_calls++;
    if (strcmp(p->phase, "runs") == 0)
        progress_last_done = p->done;
}

static void test_public_api(void)
{
    char dir[] = "/tmp/penlim_test_study_api_XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "temporary directory");
    const char *g[] = {"eps=-0.3,0.25", "mu=1e4,1e5"};
    pl_setting opt = {"rtol", 1e-9};
    pl_study_options o = {.grids = g, .ngrids = 2, .options = &opt, .noptions = 1, .jobs = 2,
                          .progress = on_progress};
    pl_study *st = NULL;
    pl_error err;
    CHECK(pl_study_create(&pl_case_corner, &o, &st, &err) == PL_OK, "create: %s", err.message);
    size_t points, limits;
    CHECK(pl_study_size(st, &points, &limits) == 4 && points == 2 && limits == 2, "4 runs, 2 points, 2 limits");
    CHECK(pl_study_run(st, dir, &err) == PL_OK, "run: %s", err.message);
    CHECK(progress_last_done == 4 && progress_calls >= 6, "progress told of each task (%zu calls)", progress_calls);
    double e = NAN, steps = NAN;
    CHECK(pl_study_value_get(st, 3, "restitution_first", &e, &err) == PL_OK && fabs(e - 1) < 1e-3,
          "run 3's restitution (e = 1): %g", e);
    CHECK(pl_study_value_get(st, 3, "steps", &steps, &err) == PL_OK && steps > 0, "its steps");
    CHECK(pl_study_value_get(st, 3, "nosuch", &e, &err) == PL_ERR_INPUT, "an unknown name");
    /* run 3: eps = 0.25, mu = 1e5, s = eps sqrt(mu) = 79 >= 2: wall 2 alone, v = (-1, -1) (docs/cases.md) */
    double v1 = NAN, v2 = NAN, t = NAN;
    CHECK(pl_study_value_get(st, 3, "final_v1", &v1, &err) == PL_OK &&
              pl_study_value_get(st, 3, "final_v2", &v2, &err) == PL_OK && fabs(v1 + 1) < 1e-6 && fabs(v2 + 1) < 1e-6,
          "its final velocity (-1, -1): (%g, %g)", v1, v2);
    CHECK(pl_study_value_get(st, 3, "final_t", &t, &err) == PL_OK && t == 2.0, "its final time, the case's t-end");
    CHECK(pl_study_value_get(st, 3, "final_q3", &e, &err) == PL_ERR_INPUT, "no third coordinate");
    pl_study_destroy(st);
    const char *bad[] = {"nosuch=1"};
    o.grids = bad;
    o.ngrids = 1;
    CHECK(pl_study_create(&pl_case_corner, &o, &st, &err) == PL_ERR_INPUT && st == NULL, "a bad axis");
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0, "clean up");
}

/* Phase 2 reads the runs back, never solving them: a run file changed after phase 1 wrote it makes
 * that run failed (its bytes no longer have the hash recorded), the others stay as they were. */
static void test_phase2_reads_back(void)
{
    char dir[] = "/tmp/penlim_test_study_read_XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "temporary directory");
    pl_study_spec sp;
    pl_study st;
    pl_error err;
    const char *g[] = {"mu=1e4,1e5,1e6"};
    spec_init(&sp, &pl_case_corner, &pl_solver_penalty, g, 1);
    CHECK(pl_study_plan(&sp, &st, &err) == PL_OK, "plan: %s", err.message);
    pl_output out;
    pl_output_init(&out, dir, 0644, NULL);
    CHECK(pl_study_phase1(&st, &out, NULL, &err) == PL_OK, "phase 1: %s", err.message);
    char path[256];
    snprintf(path, sizeof path, "%s/runs/00001/trajectory.csv", dir);
    FILE *f = fopen(path, "a");
    CHECK(f && fputs("0\n", f) >= 0 && fclose(f) == 0, "run 1's trajectory changed");
    CHECK(pl_study_assemble(&st, &out, &err) == PL_OK, "phase 2: %s", err.message);
    CHECK(st.run[0].status == PL_OK && st.run[2].status == PL_OK, "runs 0 and 2 read back");
    CHECK(st.run[1].status != PL_OK && st.run[1].error && strstr(st.run[1].error, "runs/00001"),
          "run 1 failed, not solved again: %s", st.run[1].error ? st.run[1].error : "(ok)");
    pl_output_free(&out);
    pl_study_free(&st);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0, "clean up");
}

int main(void)
{
    check_init();
    test_bad_input();
    test_plan();
    test_dealing();
    test_matches_sweeps(1);
    test_matches_sweeps(2);
    test_public_api();
    test_phase2_reads_back();
    return check_finish("test_study");
}
