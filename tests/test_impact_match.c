/* Impacts matched with the limit solution's by time (study/impact_match.h) and the verdict on a
 * family of solutions (study/family.h):
 * - a penalized ball whose analysis loses one impact: that limit impact is missing, every other is
 *   paired with the run impact of the same bounce (never with the next one), and an impact added in
 *   mid-flight is extra;
 * - a grazing impact (the push model dipping by sqrt(2 delta) into its floor): excluded as grazing
 *   where the contact time is too long to resolve it, paired where it is short enough, never extra;
 * - families: penalized balls converge to their own limit solution, not to the limit solution of
 *   another restitution (another limit), and members in no order of refinement do not converge. */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "solve.h"
#include "study/family.h"
#include "study/sweep.h"
#include "synthetic_model.h"

typedef struct {
    pl_solution sol;
    pl_analysis a;
    pl_trajectory traj;
    pl_analysed an;
} solved;

static void solve_and_analyse(const pl_model *m, const pl_solver_type *solver, double value, double t_end, solved *s)
{
    pl_error err;
    memset(s, 0, sizeof *s);
    pl_status st = solver == &pl_solver_limit     ? solve_limit(m, 1e-12, t_end, 0, &s->sol, &err)
                   : solver == &pl_solver_penalty ? solve_penalty(m, value, 1e-10, t_end, 0, &s->sol, &err)
                                                  : solve_scheme(solver, m, value, t_end, &s->sol, &err);
    CHECK(st == PL_OK, "%s: %s", solver->name, err.message);
    CHECK(pl_analyze(m, &s->sol, &s->a, &err) == PL_OK, "analysis: %s", err.message);
    CHECK(pl_trajectory_build(&s->traj, m, &s->sol, &err) == PL_OK, "trajectory: %s", err.message);
    s->an = (pl_analysed){&s->sol, &s->a, &s->traj};
}

static void solved_free(solved *s)
{
    pl_trajectory_free(&s->traj);
    pl_analysis_free(&s->a);
    pl_solution_free(&s->sol);
}

/* The ball (e = 0.9, h0 = 1) at mu = 1e6 to t = 5: its impacts before capture are the limit's, one
 * for one (the capture comes near t_acc = 8.58).  Remove the run's third impact, add one in the middle
 * of the flight after the fifth. */
static void test_missing_and_extra(void)
{
    pl_model m;
    pl_error err;
    CHECK(pl_model_init(&m, &pl_case_bouncing_ball, NULL, 0, &err) == PL_OK, "model");
    solved run, lim;
    solve_and_analyse(&m, &pl_solver_penalty, 1e6, 5.0, &run);
    solve_and_analyse(&m, &pl_solver_limit, 0, 5.0, &lim);
    size_t nl = lim.a.impacts, nr = run.a.impacts;
    CHECK(nl >= 7 && nr == nl, "the run resolves every limit impact before t = 5 (%zu, %zu)", nr, nl);

    pl_impact_match full;
    CHECK(pl_impact_match_build(&m, &run.sol, &run.a, &lim.sol, &lim.a, &full, &err) == PL_OK, "match");
    CHECK(full.count[PL_MATCH_PAIRED] == nl && full.run_count[PL_RUN_EXTRA] == 0, "all %zu paired (%zu)", nl,
          full.count[PL_MATCH_PAIRED]);
    for (size_t l = 0; l < nl; l++)
        CHECK(full.pair[l].partner == l, "limit impact %zu with run impact %zu", l, full.pair[l].partner);
    pl_impact_match_free(&full);

    /* the run loses its third impact */
    pl_impact_record *im = run.a.impact;
    double t_lost = im[2].event.t;
    pl_event_free(&im[2].event);
    memmove(&im[2], &im[3], (nr - 3) * sizeof *im);
    run.a.impacts = --nr;
    /* and gains one half-way through the flight after its (original) fifth */
    double mid = 0.5 * (im[3].t_out + im[4].event.t);
    pl_impact_record extra = {.t_out = mid, .row_out = im[3].row_out};
    CHECK(pl_event_alloc(&extra.event, m.n, m.m, PL_EVENT_IMPACT, mid, 0) == 0, "event");
    pl_event_copy(&extra.event, &im[3].event, m.n, m.m);
    extra.event.t = mid;
    memmove(&im[5], &im[4], (nr - 4) * sizeof *im);
    im[4] = extra;
    run.a.impacts = ++nr;

    pl_impact_match mt;
    CHECK(pl_impact_match_build(&m, &run.sol, &run.a, &lim.sol, &lim.a, &mt, &err) == PL_OK, "match");
    CHECK(mt.pair[2].kind == PL_MATCH_MISSING, "the lost impact (t = %.6f) is missing: %s", t_lost,
          pl_match_kind_name(mt.pair[2].kind));
    CHECK(mt.count[PL_MATCH_MISSING] == 1 && mt.count[PL_MATCH_PAIRED] == nl - 1, "1 missing, %zu paired (%zu, %zu)",
          nl - 1, mt.count[PL_MATCH_MISSING], mt.count[PL_MATCH_PAIRED]);
    CHECK(mt.run_kind[4] == PL_RUN_EXTRA && mt.run_count[PL_RUN_EXTRA] == 1, "the mid-flight impact is extra");
    for (size_t l = 0; l < nl; l++) {
        if (l == 2)
            continue;
        /* the run impact of the same bounce: index l before the lost one, l - 1 after it, and one more
         * after the extra */
        size_t want = l < 2 ? l : l < 5 ? l - 1 : l;
        const pl_impact_pair *p = &mt.pair[l];
        CHECK(p->kind == PL_MATCH_PAIRED && p->partner == want, "limit impact %zu paired with %zu (got %zu, %s)", l,
              want, p->partner, pl_match_kind_name(p->kind));
        CHECK(fabs(run.a.impact[p->partner].event.t - p->centre) <= p->window,
              "limit impact %zu within its window (%.3g from its centre, window %.3g)", l,
              run.a.impact[p->partner].event.t - p->centre, p->window);
        /* each contact delays the motion by less than its duration tau = pi/omega (measured: 0.65 tau); the
         * first impact, before any contact, is not delayed (episode times at G's crossing: to round-off) */
        double t_l = lim.a.impact[l].event.t;
        CHECK(p->time_error > (l == 0 ? -4.0 * DBL_EPSILON * t_l : 0.0) && p->time_error < (double)(l + 1) * p->tau,
              "limit impact %zu: delay %.3g < %zu tau", l, p->time_error, l + 1);
    }
    double te, ve;
    CHECK(pl_impact_errors_over(&mt, NULL, &te, &ve) == nl - 1 && te < (double)nl * mt.pair[0].tau && ve < 0.1,
          "errors over the pairs: time %.3g, velocity %.3g (a pairing across bounces: 0.5 s)", te, ve);
    pl_impact_match_free(&mt);
    solved_free(&run);
    solved_free(&lim);
    pl_model_free(&m);
}

/* The push model: q'' = a away from the floor G = q from (1, -2).  For a = 2 - delta the free path
 * dips below the floor with speed V = sqrt(2 delta): the limit has one impact there.  A penalized run
 * resolves it once the smooth acceleration a changes the gap rate by less than V over the contact,
 * V >= 2 a tau with tau = pi/(omega sqrt(1 - xi^2)); with delta = 2e-4 (V = 0.02) and e = 0.5 that is
 * mu >= 4.1e5. */
static void test_grazing(void)
{
    double delta = 2e-4, a = 2.0 - delta, V = sqrt(2.0 * delta);
    pl_setting s[] = {{"a", a}};
    pl_model m;
    pl_error err;
    CHECK(pl_model_init(&m, &pl_test_case_push, s, 1, &err) == PL_OK, "model");
    double mu[] = {1e4, 1e5, 1e6, 1e7, 1e8};
    pl_sweep_opts o = {.solver = &pl_solver_penalty, .jobs = 2, .with_limit = 1};
    pl_solve_opts_init(&o.base, &pl_solver_penalty, &m, 2.0);
    o.base.samples = 0;
    pl_sweep sw;
    CHECK(pl_sweep_run(&m, mu, 5, &o, &sw, &err) == PL_OK && sw.failures == 0, "sweep: %s", err.message);
    CHECK(sw.has_limit && sw.limit_analysis.impacts == 1, "the limit has one impact (%zu)", sw.limit_analysis.impacts);
    if (sw.has_limit && sw.limit_analysis.impacts == 1)
        CHECK_NEAR(-sw.limit_analysis.impact[0].event.gdot_before, V, 1e-6, "its speed sqrt(2 delta)");
    double xi = m.law[0].xi;
    for (size_t k = 0; k < 5; k++) {
        const pl_impact_match *mt = &sw.match[k];
        double tau = M_PI / (sqrt(m.law[0].k * mu[k]) * sqrt(1.0 - xi * xi));
        int resolved = V >= 2.0 * a * tau;
        CHECK(mt->nlimit == 1 && mt->pair[0].kind == (resolved ? PL_MATCH_PAIRED : PL_MATCH_GRAZING),
              "mu = %g: the grazing impact is %s (%s)", mu[k], resolved ? "paired" : "grazing",
              pl_match_kind_name(mt->pair[0].kind));
        CHECK(mt->run_count[PL_RUN_EXTRA] == 0 && mt->count[PL_MATCH_MISSING] == 0,
              "mu = %g: neither extra nor missing (%zu run impacts)", mu[k], mt->nrun);
        CHECK(sw.dist[k].impacts_excluded == (size_t)!resolved, "mu = %g: counted as excluded when grazing", mu[k]);
    }
    CHECK(sw.impact_common_size == 1, "the common set: the impact, paired from mu = 1e6 on");
    CHECK(isnan(sw.q[PL_Q_IMPACT_TIME_ERROR].values[0]) && isfinite(sw.q[PL_Q_IMPACT_TIME_ERROR].values[4]),
          "no impact error where it is not resolved");
    pl_sweep_free(&sw);
    pl_model_free(&m);
}

/* Moreau-Jean on the vibrating table (g = 8.1, A = 0.27, omega = 8.3, e = 0.62, k = 0.8, to t = 2.5):
 * the limit lands 3 times (t = 0.67, 1.69, 2.36), and so does the scheme at every h, near each landing
 * (its times converge like h).  Its velocities after an impact hold at the end of its impulse step,
 * not at the impact's time, which lies up to a step before: predicted from the time and the state at
 * the end of that step, each landing is within 2 tau = 4 h of where the pair before puts it (from
 * the impact's time, the table's motion over that step moved the window by 1e-3, 3 of its half-widths
 * at h = 1.675e-4), and pairs with the scheme's landing of the same rank. */
static void test_scheme_on_moving_obstacle(void)
{
    pl_setting set[] = {{"g", 8.1}, {"A", 0.27}, {"omega", 8.3}, {"e", 0.62}, {"k", 0.8}};
    pl_model m;
    pl_error err;
    CHECK(pl_model_init(&m, &pl_case_vibrating_table, set, 5, &err) == PL_OK, "model");
    solved lim;
    solve_and_analyse(&m, &pl_solver_limit, 0, 2.5, &lim);
    CHECK(lim.a.impacts == 3, "the limit lands 3 times (%zu)", lim.a.impacts);
    const double h[] = {1e-3, 1.675e-4, 1e-4, 1e-5};
    for (size_t k = 0; k < sizeof h / sizeof h[0] && lim.a.impacts == 3; k++) {
        solved run;
        solve_and_analyse(&m, &pl_solver_moreau_jean, h[k], 2.5, &run);
        pl_impact_match mt;
        CHECK(pl_impact_match_build(&m, &run.sol, &run.a, &lim.sol, &lim.a, &mt, &err) == PL_OK, "match");
        CHECK(run.a.impacts == 3 && mt.count[PL_MATCH_PAIRED] == 3 && mt.run_count[PL_RUN_EXTRA] == 0,
              "h = %g: the scheme's 3 landings paired (%zu impacts, %zu paired, %zu missing, %zu extra)", h[k],
              run.a.impacts, mt.count[PL_MATCH_PAIRED], mt.count[PL_MATCH_MISSING], mt.run_count[PL_RUN_EXTRA]);
        for (size_t l = 0; l < mt.nlimit && l < run.a.impacts; l++) {
            const pl_impact_pair *p = &mt.pair[l];
            double t_run = run.a.impact[l].event.t;
            CHECK(p->partner == l, "h = %g: landing %zu with the scheme's %zu (got %zu)", h[k], l, l, p->partner);
            CHECK(fabs(t_run - lim.a.impact[l].event.t) < 0.05, "h = %g: landing %zu %.3g from the limit's", h[k], l,
                  t_run - lim.a.impact[l].event.t);
            CHECK(fabs(t_run - p->centre) <= 4.0 * h[k],
                  "h = %g: landing %zu %.3g from its predicted time, within 4 h = %.3g", h[k], l, t_run - p->centre,
                  4.0 * h[k]);
        }
        pl_impact_match_free(&mt);
        solved_free(&run);
    }
    solved_free(&lim);
    pl_model_free(&m);
}

/* The corner at 117 degrees, e = 0.6, eps = 0.013 (M = I, no force): the mass hits wall 2 at t_1 and
 * leaves it approaching wall 1 slowly (g1 = Gdot_1 = -0.023).  During the penalized contact (tau =
 * pi/(omega sqrt(1 - xi^2)), exactly: a damped oscillator along n2) the velocity moves along n2 only,
 * so Gdot_1 = a + b Gdot_2 with b = n1.n2, and G_2 returns to 0: at the exit G_1 is a tau below its
 * value at t_1, a = g1 - b Gdot_2+.  Both then fly straight at the same velocity: the run's second
 * impact comes tau (1 + a/|g1|) after the limit's, -16 tau (-0.051 at mu = 1e6, -5.1e-5 at 1e12):
 * the same bounce, to be paired at every mu, never missing and extra. */
static void test_other_wall(void)
{
    pl_setting set[] = {{"angle", 117.0}, {"e", 0.6}, {"eps", 0.013}};
    pl_model m;
    pl_error err;
    CHECK(pl_model_init(&m, &pl_case_corner, set, 3, &err) == PL_OK, "model");
    double alpha = 117.0 * M_PI / 180.0, n1[2] = {0.0, -1.0}, n2[2] = {-sin(alpha), cos(alpha)}, v[2] = {1.0, 1.0};
    double u_before = n2[0] * v[0] + n2[1] * v[1], u_after = -0.6 * u_before;
    for (int j = 0; j < 2; j++)
        v[j] += (u_after - u_before) * n2[j];
    double g1 = n1[0] * v[0] + n1[1] * v[1], b = n1[0] * n2[0] + n1[1] * n2[1], a = g1 - b * u_after;
    CHECK(g1 < 0.0 && g1 > -0.03, "a slow approach to wall 1 (Gdot_1 = %.4f)", g1);
    solved lim;
    solve_and_analyse(&m, &pl_solver_limit, 0, 2.0, &lim);
    CHECK(lim.a.impacts == 2, "the limit hits wall 2, then wall 1 (%zu impacts)", lim.a.impacts);
    const double mu[] = {1e6, 1e8, 1e10, 1e12};
    for (size_t k = 0; k < 4 && lim.a.impacts == 2; k++) {
        solved run;
        solve_and_analyse(&m, &pl_solver_penalty, mu[k], 2.0, &run);
        pl_impact_match mt;
        CHECK(pl_impact_match_build(&m, &run.sol, &run.a, &lim.sol, &lim.a, &mt, &err) == PL_OK, "match");
        double xi = m.law[0].xi, tau = M_PI / (sqrt(m.law[0].k * mu[k]) * sqrt(1.0 - xi * xi));
        double expected = tau * (1.0 + a / fabs(g1));
        CHECK(mt.count[PL_MATCH_PAIRED] == 2 && mt.run_count[PL_RUN_EXTRA] == 0,
              "mu = %g: both impacts paired (%zu paired, %zu missing, %zu extra)", mu[k], mt.count[PL_MATCH_PAIRED],
              mt.count[PL_MATCH_MISSING], mt.run_count[PL_RUN_EXTRA]);
        if (mt.pair[1].kind == PL_MATCH_PAIRED)
            NEAR(mt.pair[1].time_error, expected, 2e-3 * fabs(expected),
                 "mu = %g: the second impact tau (1 + a/|g1|) early", mu[k]);
        pl_impact_match_free(&mt);
        solved_free(&run);
    }
    solved_free(&lim);
    pl_model_free(&m);
}

/* Unrelated bodies: five disks in a box (spheres, config 3) at mu = 1e8 to t = 1.5.  The impact at t =
 * 0.5273 on constraint 9 is the first of a disk that has flown freely since t = 0, in the run as in the
 * limit: the same time to round-off.  The delays the other disks' contacts accumulated (4e-3 s) do not
 * move its window; nothing is missing or extra. */
static void test_unrelated_bodies(void)
{
    pl_setting set[] = {{"config", 3.0}, {"N", 5.0}};
    pl_model m;
    pl_error err;
    CHECK(pl_model_init(&m, &pl_case_spheres, set, 2, &err) == PL_OK, "model");
    solved lim, run;
    solve_and_analyse(&m, &pl_solver_limit, 0, 1.5, &lim);
    solve_and_analyse(&m, &pl_solver_penalty, 1e8, 1.5, &run);
    pl_impact_match mt;
    CHECK(pl_impact_match_build(&m, &run.sol, &run.a, &lim.sol, &lim.a, &mt, &err) == PL_OK, "match");
    CHECK(mt.count[PL_MATCH_MISSING] == 0 && mt.run_count[PL_RUN_EXTRA] == 0, "%zu missing, %zu extra",
          mt.count[PL_MATCH_MISSING], mt.run_count[PL_RUN_EXTRA]);
    int found = 0;
    for (size_t l = 0; l < mt.nlimit; l++)
        if (lim.a.impact[l].event.constraint == 8) {
            found = 1;
            NEAR(lim.a.impact[l].event.t, 0.527322652, 1e-9, "the impact on constraint 9");
            CHECK(mt.pair[l].kind == PL_MATCH_PAIRED && fabs(mt.pair[l].time_error) < 1e-12,
                  "paired (%s), at the limit's time (%.3g)", pl_match_kind_name(mt.pair[l].kind), mt.pair[l].time_error);
        }
    CHECK(found, "the limit has an impact on constraint 9");
    pl_impact_match_free(&mt);
    solved_free(&run);
    solved_free(&lim);
    pl_model_free(&m);
}

/* A family of penalized balls (e = 0.9, t to 3, before the Zeno point) measured against a limit
 * solution; members given in the order of refinement of their labels. */
static pl_family_verdict verdict(const pl_model *m, const double *mu, const double *label, size_t n, const solved *lim,
                                 pl_family *f)
{
    solved *run = calloc(n, sizeof *run);
    pl_compare_result *res = calloc(n, sizeof *res);
    pl_impact_match *mt = calloc(n, sizeof *mt);
    pl_family_member *mem = calloc(n, sizeof *mem);
    pl_error err;
    for (size_t k = 0; k < n; k++) {
        solve_and_analyse(m, &pl_solver_penalty, mu[k], 3.0, &run[k]);
        CHECK(pl_compare_solution(m, &run[k].an, &lim->an, 1, &res[k], &mt[k], &err) == PL_OK, "compare");
        run[k].sol.option[pl_solver_option_index(&pl_solver_penalty, "mu")] = label[k];
        mem[k] = (pl_family_member){&run[k].an, &res[k], &mt[k]};
    }
    CHECK(pl_family_assess(m, &pl_solver_penalty, mem, n, lim->a.impacts, f, &err) == PL_OK, "assess");
    for (size_t k = 0; k < n; k++) {
        pl_impact_match_free(&mt[k]);
        solved_free(&run[k]);
    }
    free(run);
    free(res);
    free(mt);
    free(mem);
    return f->verdict;
}

static void test_families(void)
{
    pl_model m9, m5;
    pl_error err;
    pl_setting e5[] = {{"e", 0.5}};
    CHECK(pl_model_init(&m9, &pl_case_bouncing_ball, NULL, 0, &err) == PL_OK, "model");
    CHECK(pl_model_init(&m5, &pl_case_bouncing_ball, e5, 1, &err) == PL_OK, "model e = 0.5");
    solved lim9, lim5;
    solve_and_analyse(&m9, &pl_solver_limit, 0, 3.0, &lim9);
    solve_and_analyse(&m5, &pl_solver_limit, 0, 3.0, &lim5);
    double mu[] = {1e4, 1e5, 1e6, 1e7, 1e8};
    pl_family f;

    /* its own limit: sup_q ~ mu^-1/2 (Theorem 5, O(mu^-1/2) per impact) */
    CHECK(verdict(&m9, mu, mu, 5, &lim9, &f) == PL_VERDICT_LIMIT, "e = 0.9 against its limit: %s (%s)",
          pl_family_verdict_name(f.verdict), f.reason);
    CHECK(f.conv[PL_FD_SUP_Q].rate > 0.4 && f.conv[PL_FD_SUP_Q].rate < 0.6, "sup_q rate %.3f",
          f.conv[PL_FD_SUP_Q].rate);
    CHECK(f.impact_common_size > 0 && f.conv[PL_FD_IMPACT_TIME].rate > 0.4 && f.conv[PL_FD_IMPACT_TIME].rate < 0.6,
          "impact times over the %zu common impacts ~ mu^-%.3f", f.impact_common_size, f.conv[PL_FD_IMPACT_TIME].rate);
    pl_family_free(&f);

    /* the limit of another restitution: the runs approach each other, and stay away from it (the
     * second bounce of e = 0.9 rises to 0.81 where e = 0.5's rises to 0.25) */
    CHECK(verdict(&m9, mu, mu, 5, &lim5, &f) == PL_VERDICT_OTHER, "e = 0.9 against e = 0.5's limit: %s (%s)",
          pl_family_verdict_name(f.verdict), f.reason);
    CHECK(f.own_limit_distance < 0.01 && f.successive_conv.converges == 1,
          "successive members approach each other (their own limit %.3g away, the two limits some 0.5 apart)",
          f.own_limit_distance);
    printf("  e = 0.9 runs against e = 0.5's limit: sup_q rate %.3f +- %.3f, successive %.3f +- %.3f\n",
           f.conv[PL_FD_SUP_Q].rate, f.conv[PL_FD_SUP_Q].rate_se, f.successive_conv.rate, f.successive_conv.rate_se);
    pl_family_free(&f);

    /* members that alternate between a coarse and a fine run, labelled as refinements: no convergence */
    double alternate[] = {1e3, 1e7, 1e3, 1e7, 1e3};
    CHECK(verdict(&m9, alternate, mu, 5, &lim9, &f) == PL_VERDICT_NONCONVERGENT, "alternating members: %s (%s)",
          pl_family_verdict_name(f.verdict), f.reason);
    pl_family_free(&f);

    /* three members: no verdict */
    CHECK(verdict(&m9, mu, mu, 3, &lim9, &f) == PL_VERDICT_NONE && strstr(f.reason, "needs 4"), "3 members: %s",
          f.reason);
    pl_family_free(&f);
    solved_free(&lim9);
    solved_free(&lim5);
    pl_model_free(&m9);
    pl_model_free(&m5);
}

int main(void)
{
    check_init();
    test_missing_and_extra();
    test_grazing();
    test_scheme_on_moving_obstacle();
    test_other_wall();
    test_unrelated_bodies();
    test_families();
    return check_finish("test_impact_match");
}
