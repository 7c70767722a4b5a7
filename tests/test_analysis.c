/* Extraction on synthetic data with known answers: rate fits, extrapolation, the contraction of
 * flight times, episode classification, the mu list, the sliding-mode force (LCP), and the
 * interpolation of recorded trajectories in t and s. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "penlim/penlim.h"
#include "study/analysis.h"
#include "study/coupling.h"
#include "laws/law.h"
#include "cases/cases.h"
#include "core/clock.h"
#include "core/linalg.h"
#include "check.h"
#include "study/fit.h"
#include "model/sliding.h"
#include "study/sweep.h"
#include "synthetic_model.h"
#include "study/trajectory.h"

static void test_fits(void)
{
    double mu[8], err[8], val[8], e2[8];
    for (int k = 0; k < 8; k++) {
        mu[k] = pow(10.0, 2 + k);
        err[k] = 3.0 * pow(mu[k], -0.5);
    }
    double rate, se;
    CHECK(pl_fit_rate(mu, err, 8, &rate, &se) == 8, "all points used");
    CHECK_NEAR(rate, 0.5, 1e-12, "rate of 3 mu^-1/2");
    CHECK(se < 1e-10, "exact data has no spread (se %g)", se);
    err[2] = NAN, err[5] = 0.0;
    CHECK(pl_fit_rate(mu, err, 8, &rate, &se) == 6, "NaN and zero errors are skipped");
    CHECK(pl_fit_rate(mu, err, 2, &rate, &se) < 3 && isnan(rate), "fewer than 3 points: no rate");
    /* 3 points give a slope, but not one to report (PL_FIT_MIN_POINTS); 4 do */
    CHECK(pl_fit_rate(mu, err, 4, &rate, &se) == 3 && isnan(rate) && isnan(se), "3 points: rate null");
    CHECK(pl_fit_rate(mu, err, 5, &rate, &se) == 4 && fabs(rate - 0.5) < 1e-12, "4 points: the rate");
    /* an error bar larger than the value: null */
    double noisy[] = {1.0, 0.5, 2.0, 0.4, 1.5, 0.6};
    CHECK(pl_fit_rate(mu, noisy, 6, &rate, &se) == 6 && isnan(rate) && isnan(se), "rate with se > |rate|: null");
    CHECK(!pl_fit_meaningful(3, 0.96, 0.01) && !pl_fit_meaningful(10, 0.96, 0.97) && pl_fit_meaningful(4, -0.5, 0.1),
          "pl_fit_meaningful: 4 points and se < |value|");

    /* Closed form known: errors against it. */
    for (int k = 0; k < 8; k++)
        val[k] = 0.9 - 2.0 * pow(mu[k], -0.5);
    pl_convergence cv = pl_convergence_of(mu, val, 8, 0.9, 0.0, NULL, e2);
    CHECK(cv.reference == PL_REF_EXACT && cv.limit == 0.9, "exact reference");
    CHECK_NEAR(cv.rate, 0.5, 1e-10, "rate against the exact value");
    CHECK_NEAR(e2[0], -0.2, 1e-15, "signed error");
    /* Unknown limit: extrapolated from the differences. */
    for (int k = 0; k < 8; k++)
        val[k] = 4.0 + 3.0 * pow(mu[k], -0.7);
    cv = pl_convergence_of(mu, val, 8, NAN, 0.0, NULL, e2);
    CHECK(cv.reference == PL_REF_EXTRAPOLATED, "extrapolated reference");
    CHECK_NEAR(cv.limit, 4.0, 1e-12, "extrapolated limit of 4 + 3 mu^-0.7");
    CHECK(cv.limit_error < 1e-10, "its error estimate (%g)", cv.limit_error);
    CHECK_NEAR(cv.rate, 0.7, 1e-6, "rate against the extrapolated limit");
    /* Unevenly spaced mu (an explicit --mu list): still exact. */
    double mu3[] = {1e4, 1e5, 1e8}, val3[3], e3[3];
    for (int k = 0; k < 3; k++)
        val3[k] = 4.0 + 3.0 * pow(mu3[k], -0.7);
    cv = pl_convergence_of(mu3, val3, 3, NAN, 0.0, NULL, e3);
    CHECK_NEAR(cv.limit, 4.0, 1e-12, "extrapolated limit with uneven spacing");
    /* Not converging (alternating): no limit. */
    for (int k = 0; k < 8; k++)
        val[k] = (k % 2) ? 1.0 : 2.0;
    cv = pl_convergence_of(mu, val, 8, NAN, 0.0, NULL, e2);
    CHECK(cv.reference == PL_REF_NONE && isnan(cv.limit), "no limit for an alternating sequence");
    /* Noise floor: errors below it are not fitted; all below means "at the floor". */
    for (int k = 0; k < 8; k++)
        val[k] = 1.0 + (k < 4 ? pow(mu[k], -1.0) : 1e-15);
    cv = pl_convergence_of(mu, val, 8, 1.0, 1e-12, NULL, e2);
    CHECK(cv.points == 4 && !cv.at_floor, "4 points above the floor (%zu)", cv.points);
    CHECK_NEAR(cv.rate, 1.0, 1e-6, "rate from the points above the floor");
    for (int k = 0; k < 8; k++)
        val[k] = 1.0 + 1e-14;
    cv = pl_convergence_of(mu, val, 8, 1.0, 1e-12, NULL, e2);
    CHECK(cv.at_floor && cv.points == 0, "everything at the floor");
    /* Each value's own resolution (a time's: how far round-off moves it): an error within it is at
     * the noise floor too, whatever the integration noise; with fewer than 4 left, no rate. */
    double res[8];
    for (int k = 0; k < 8; k++) {
        val[k] = 1.0 + 3.0 * pow(mu[k], -0.5);
        res[k] = 4e-7 * pow(mu[k], 0.5); /* grows like 1/(N'/omega^2): a lift-off's */
    }
    cv = pl_convergence_of(mu, val, 8, 1.0, 0.0, res, e2);
    size_t within = 0;
    for (int k = 0; k < 8; k++)
        within += fabs(e2[k]) <= res[k];
    CHECK(within == 3 && cv.floored == 3 && cv.points == 5 && !cv.at_floor,
          "3 errors within their resolution left out (%zu, %zu)", cv.floored, cv.points);
    CHECK_NEAR(cv.rate, 0.5, 1e-10, "the rate of the others");
    res[4] = 1.0;
    cv = pl_convergence_of(mu, val, 8, 1.0, 0.0, res, e2);
    CHECK(cv.floored == 4 && cv.points == 4 && fabs(cv.rate - 0.5) < 1e-10, "4 left: the rate");
    res[3] = 1.0;
    cv = pl_convergence_of(mu, val, 8, 1.0, 0.0, res, e2);
    CHECK(cv.floored == 5 && cv.points == 3 && isnan(cv.rate) && cv.converges < 0 && !cv.at_floor,
          "3 left: rate n/a, nothing said of convergence");
    /* An error that stays where it is: the penalized cradle's velocities taken while its wave still
     * ran, 0.4783793585 at every mu to 1e-11, fit a rate of 2e-11 +- 7e-12, positive beyond twice its
     * error: it does not converge (below PL_RATE_MIN, and it does not fall by 10). */
    double mu7[7], val7[7], e7[7];
    for (int k = 0; k < 7; k++) {
        mu7[k] = pow(10.0, 4 + k);
        val7[k] = 0.4783793585 * (1.0 - 1e-10 * k + 3e-12 * (k % 2));
    }
    cv = pl_convergence_of(mu7, val7, 7, 0.0, 0.0, NULL, e7);
    CHECK(cv.rate > 0.0 && cv.rate < 1e-9 && cv.rate - 2.0 * cv.rate_se > 0.0,
          "a constant error fits a tiny rate beyond twice its error (%.3g +- %.3g)", cv.rate, cv.rate_se);
    CHECK(cv.converges == 0, "a constant error does not converge (%d)", cv.converges);
    /* The slowest convergence said: a rate just above PL_RATE_MIN, and errors that fall by 10 at a
     * rate below it (mu^-0.04 over 30 decades). */
    for (int k = 0; k < 7; k++)
        val7[k] = 2.0 * pow(mu7[k], -0.06);
    cv = pl_convergence_of(mu7, val7, 7, 0.0, 0.0, NULL, e7);
    CHECK(cv.converges == 1 && fabs(cv.rate - 0.06) < 1e-9, "rate 0.06 converges (%.3g, %d)", cv.rate, cv.converges);
    for (int k = 0; k < 7; k++) {
        mu7[k] = pow(10.0, 5.0 * k);
        val7[k] = 2.0 * pow(mu7[k], -0.04);
    }
    cv = pl_convergence_of(mu7, val7, 7, 0.0, 0.0, NULL, e7);
    CHECK(cv.converges == 1 && cv.rate < PL_RATE_MIN, "errors falling by 10 at rate %.3g converge (%d)", cv.rate,
          cv.converges);
    CHECK(pl_above_floor(2e-3, 1e-3, NAN) && !pl_above_floor(2e-3, 1e-3, 2e-3) && pl_above_floor(-2e-3, 0.0, 1e-3) &&
              !pl_above_floor(0.0, 0.0, NAN) && !pl_above_floor(1e-3, 1e-3, 0.0),
          "pl_above_floor: above both the integration noise and the resolution");
}

static void test_flights(void)
{
    double f[10], r, se, tacc;
    for (int j = 0; j < 10; j++)
        f[j] = 2.0 * pow(0.8, j);
    CHECK(pl_fit_flights(f, 10, 5.0, &r, &se, &tacc) == 0, "fit");
    CHECK_NEAR(r, 0.8, 1e-12, "contraction ratio");
    CHECK_NEAR(tacc, 5.0 + f[9] * 0.8 / 0.2, 1e-10, "accumulation time of a geometric sequence");
    for (int j = 0; j < 10; j++)
        f[j] = 1.0 + 0.3 * (j % 2);
    pl_fit_flights(f, 10, 5.0, &r, &se, &tacc);
    CHECK(isnan(tacc), "no accumulation without contraction (ratio %g +- %g)", r, se);
    CHECK(pl_fit_flights(f, 2, 5.0, &r, &se, &tacc) != 0 && isnan(r), "needs 3 flights");
    /* a Zeno ratio from 3 flights read 0.96 +- 0.90 once: now null, and from 4 contracting ones a value */
    double f3[] = {1.0, 0.5, 0.96};
    CHECK(pl_fit_flights(f3, 3, 5.0, &r, &se, &tacc) != 0 && isnan(r) && isnan(se) && isnan(tacc), "3 flights: null");
    double f4[] = {1.0, 0.8, 0.64, 0.512};
    CHECK(pl_fit_flights(f4, 4, 5.0, &r, &se, &tacc) == 0 && fabs(r - 0.8) < 1e-12 && isfinite(tacc), "4 flights");
    double scattered[] = {1.0, 1e-4, 1.0, 1e-4}; /* ratio 0.16 +- 0.41 */
    CHECK(pl_fit_flights(scattered, 4, 5.0, &r, &se, &tacc) != 0 && isnan(r), "se >= ratio: null (%g +- %g)", r, se);
}

static void test_classification(void)
{
    double omega = 1e4, xi = 0.2, half = M_PI / (omega * sqrt(1 - xi * xi));
    pl_episode ep = {.t_in = 1.0, .t_out = 1.0 + half, .gdot_in = -2.0, .gdot_out = 1.0};
    CHECK(pl_classify_episode(&ep, 5.0, omega, xi, 0.0) == PL_IMPACT, "a half-period rebound is an impact");
    CHECK(pl_classify_episode(&ep, 5.0, omega, xi, 2.0) == PL_UNRESOLVED,
          "unresolved when it enters no faster than the rate an impact needs");
    ep.t_out = 1.0 + 10 * half;
    CHECK(pl_classify_episode(&ep, 5.0, omega, xi, 0.0) == PL_SUSTAINED, "a long contact is sustained");
    ep.t_out = NAN;
    CHECK(pl_classify_episode(&ep, 5.0, omega, xi, 0.0) == PL_SUSTAINED, "a contact lasting to the end is sustained");
    CHECK(pl_classify_episode(&ep, 1.0 + half, omega, xi, 0.0) == PL_UNRESOLVED,
          "a contact cut short by the end of the run is unresolved");
    ep.t_out = 1.0 + half, ep.gdot_in = 0.0;
    CHECK(pl_classify_episode(&ep, 5.0, omega, xi, 0.0) == PL_SUSTAINED, "a contact entered tangentially is sustained");
    /* xi = 1: the gap returns to 0 only asymptotically, and the contact ends where a resolved force
     * separates it, ~37/omega at the earliest */
    pl_episode od = {.t_in = 1.0, .t_out = 1.0 + 37.0 / omega, .gdot_in = -2.0, .gdot_out = 1e-16};
    CHECK(pl_classify_episode(&od, 5.0, omega, 1.0, 0.0) == PL_IMPACT, "a critically damped rebound is an impact");
    od.t_out = 1.0 + 0.1;
    CHECK(pl_classify_episode(&od, 5.0, omega, 1.0, 0.0) == PL_SUSTAINED, "unless it lasts");
}

/* A one-episode penalized solution of model at (mu, rtol): entry at t_in with the state (q_in, v_in),
 * exit at t_out with (q_out, v_out), rates gdot_in, gdot_out of constraint 0, analysed into a. */
static void analyse_touch(const pl_model *m, double mu, double rtol, double t_in, const double *x_in, double t_out,
                          const double *x_out, double gdot_in, double gdot_out, pl_analysis *a)
{
    pl_error err;
    pl_solution sol;
    size_t n = m->n, nc = pl_ncols(n, m->m);
    pl_solution_init(&sol, &pl_solver_penalty, m, t_out + 1.0, &err);
    sol.option[0] = mu, sol.option[1] = rtol; /* the penalty's options: mu, rtol */
    double row[2][16] = {{t_in, t_in}, {t_out, t_out}};
    for (size_t j = 0; j < 2 * n; j++)
        row[0][2 + j] = x_in[j], row[1][2 + j] = x_out[j];
    CHECK(nc <= 16 && pl_table_append(&sol.traj, row[0], &err) == PL_OK &&
              pl_table_append(&sol.traj, row[1], &err) == PL_OK,
          "rows");
    pl_episode *ep;
    CHECK(pl_solution_add_episode(&sol, 0, t_in, &ep, &err) == PL_OK, "episode");
    ep->t_out = t_out, ep->gdot_in = gdot_in, ep->gdot_out = gdot_out, ep->row_in = 0, ep->row_out = 1;
    sol.t_final = t_out + 1.0;
    CHECK(pl_analyze(m, &sol, a, &err) == PL_OK, "analysed: %s", err.message);
    pl_solution_free(&sol);
}

/* Episodes that end as an impact would but entered at a rate below what the run resolves as an
 * impact's (pl_classify_episode's min_rate; docs/methods.md, "Impact or sustained contact"):
 *   - the wedge (e = 0, m = -0.7, mu = 1e8, rtol = 1e-8) settled in its corner: a wall at q = 4e-17
 *     entered at -1.9e-18 and left at 4.1e-17 within 9e-4 (a run once reported it an impact of
 *     restitution 21.5).  The rate resolution is omega rtol pen = 1e4 x 1e-8 x 2e-8 = 2e-12 (pen =
 *     min(A/(k mu), V/omega) with V = sqrt 2 and A = V^2, the wedge having no force): unresolved, and no
 *     restitution; entered at -1, the same episode is an impact, with its restitution;
 *   - the ball (e = 0.9, mu = 1e4): a bounce entered at 0.1 lasts the half-period 0.0314, over which
 *     gravity changes the rate by 9.81 x 0.0314 = 0.31: unresolved (its restitution, from resolved
 *     rates, reported); entered at 1, an impact. */
static void test_unresolved_touches(void)
{
    pl_error err;
    pl_model m;
    pl_setting ws[] = {{"m", -0.7}, {"e", 0.0}};
    pl_analysis a;
    if (pl_model_init(&m, &pl_case_wedge, ws, 2, &err) == PL_OK) {
        double in[] = {4e-17, 4e-17, -1.9e-18, -1.9e-18}, out[] = {4e-17, 4e-17, 4.1e-17, 4.1e-17};
        analyse_touch(&m, 1e8, 1e-8, 1.0089, in, 1.0097, out, -1.9e-18, 4.1e-17, &a);
        CHECK(a.info && a.info[0].kind == PL_UNRESOLVED && isnan(a.info[0].restitution) && a.impacts == 0 &&
                  a.touches_unresolved == 1 && isnan(a.restitution_first),
              "wedge: a touch at 1.9e-18 is no impact and has no restitution");
        pl_analysis_free(&a);
        in[2] = in[3] = -1.0;
        analyse_touch(&m, 1e8, 1e-8, 1.0089, in, 1.0097, out, -1.0, 4.1e-17, &a);
        CHECK(a.info && a.info[0].kind == PL_IMPACT && a.impacts == 1 && a.touches_unresolved == 0 &&
                  fabs(a.info[0].restitution - 4.1e-17) < 1e-30,
              "wedge: entered at 1, an impact with its restitution");
        pl_analysis_free(&a);
        pl_model_free(&m);
    }
    if (pl_model_init(&m, &pl_case_bouncing_ball, NULL, 0, &err) == PL_OK) {
        double half = M_PI / (100.0 * sqrt(1.0 - m.law[0].xi * m.law[0].xi));
        double in[] = {0.0, -0.1}, out[] = {0.0, 0.09};
        analyse_touch(&m, 1e4, 1e-8, 1.0, in, 1.0 + half, out, -0.1, 0.09, &a);
        CHECK(a.info && a.info[0].kind == PL_UNRESOLVED && fabs(a.info[0].restitution - 0.9) < 1e-15 &&
                  a.impacts == 0 && a.touches_unresolved == 1,
              "ball: a bounce at 0.1 against gravity's 0.31 over its contact is no impact");
        pl_analysis_free(&a);
        in[1] = -1.0, out[1] = 0.9;
        analyse_touch(&m, 1e4, 1e-8, 1.0, in, 1.0 + half, out, -1.0, 0.9, &a);
        CHECK(a.info && a.info[0].kind == PL_IMPACT && a.impacts == 1, "ball: a bounce at 1 is an impact");
        pl_analysis_free(&a);
        pl_model_free(&m);
    }
}

static void test_mu_list(void)
{
    pl_error err;
    double *mu;
    size_t n;
    CHECK(pl_parse_grid("1e2:1e10:9", "--mu", &mu, &n, &err) == PL_OK && n == 9, "A:B:N");
    if (n == 9) {
        CHECK(mu[0] == 1e2 && mu[8] == 1e10, "exact end points");
        CHECK_NEAR(mu[1] / 1e3, 1.0, 1e-12, "geometric spacing");
    }
    free(mu);
    CHECK(pl_parse_grid("1e7,1e3,1e5", "--mu", &mu, &n, &err) == PL_OK && n == 3 && mu[0] == 1e3 && mu[2] == 1e7,
          "a list, sorted");
    free(mu);
    CHECK(pl_parse_grid("5:5:1", "--mu", &mu, &n, &err) == PL_OK && n == 1, "a single value");
    free(mu);
    const char *bad[] = {"1:2", "1:2:x", "0:1:3", "1:2:1", "1e3,1e3", "1e3,-1", "1e3,,1e5", "abc", "1:2:3:4", "1:2:0"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        CHECK(pl_parse_grid(bad[k], "--mu", &mu, &n, &err) == PL_ERR_INPUT, "'%s' rejected", bad[k]);
        free(mu);
    }
}

/* pl_sliding_force with scratch of its own for model m. */
static pl_status sliding_force(const pl_model *m, double t, const double *q, const double *v, const int *set,
                               double *lambda, double *fsm, pl_error *err)
{
    pl_contact_set cs;
    pl_work *w = pl_work_new(m);
    pl_status s = pl_contact_set_init(&cs, m, err);
    if (s == PL_OK)
        s = w ? pl_sliding_force(m, w, &cs, t, q, v, set, lambda, fsm, err) : PL_ERR_NOMEM;
    pl_contact_set_free(&cs);
    pl_work_free(w);
    return s;
}

static void test_sliding_force(void)
{
    pl_error err;
    pl_model m;
    double lambda[2], fsm[2];
    /* The ball at rest: F^sm = -g/k, lambda = g (paper 004, Theorem 6). */
    pl_setting sb[] = {{"k", 2.0}};
    pl_model_init(&m, &pl_case_bouncing_ball, sb, 1, &err);
    double q = 0.0, v = 0.0;
    int one[] = {1};
    CHECK(sliding_force(&m, 0.0, &q, &v, one, lambda, fsm, &err) == PL_OK, "ball LCP: %s", err.message);
    CHECK_NEAR(fsm[0], -9.81 / 2.0, 1e-12, "ball F^sm = -g/k");
    CHECK_NEAR(lambda[0], 9.81, 1e-12, "ball force = weight");
    pl_model_free(&m);
    /* Wedge pushed into its corner by f = (-1, -1): both walls carry -f. */
    pl_setting sw[] = {{"m", 0.5}, {"f1", -1.0}, {"f2", -1.0}};
    pl_model_init(&m, &pl_case_wedge, sw, 3, &err);
    double qw[] = {0.0, 0.0}, vw[] = {0.0, 0.0};
    int both[] = {1, 1};
    CHECK(sliding_force(&m, 0.0, qw, vw, both, lambda, fsm, &err) == PL_OK, "wedge LCP");
    CHECK_NEAR(lambda[0], 1.0, 1e-12, "corner force 1");
    CHECK_NEAR(lambda[1], 1.0, 1e-12, "corner force 2");
    pl_model_free(&m);
    /* f = (-1, 1) pulls off wall 2: lambda_2 = 0, lambda_1 = -D_1/W_11 = 2/(4/3). */
    pl_setting sw2[] = {{"m", 0.5}, {"f1", -1.0}, {"f2", 1.0}};
    pl_model_init(&m, &pl_case_wedge, sw2, 3, &err);
    CHECK(sliding_force(&m, 0.0, qw, vw, both, lambda, fsm, &err) == PL_OK, "wedge LCP, lift-off");
    CHECK_NEAR(lambda[0], 1.5, 1e-12, "wall 1 keeps pressing");
    CHECK_NEAR(lambda[1], 0.0, 1e-12, "wall 2 is released");
    CHECK_NEAR(fsm[0], -1.5 / 0.75, 1e-12, "F^sm_1 = -lambda_1/(m_1 k)");
    pl_model_free(&m);
}

/* With F_p != v (the synthetic model), the LCP force must still give G'' = 0: the coupling is
 * grad G . (dF_p/dv) w, not grad G . w (a defect once, 17% off).  G'' by central differences of
 * Gdot along the flow with that force. */
static double gdot_at(const pl_model *m, pl_work *w, pl_contact *c, size_t i, double t, const double *q,
                      const double *v)
{
    double fp[2]; /* the synthetic model's 2 dofs */
    pl_model_velocity_map(m, t, q, v, fp, NULL, NULL, NULL);
    pl_model_contact_at(m, w, i, t, q, fp, c);
    return c->gdot;
}

static void test_sliding_force_general(void)
{
    pl_model m;
    pl_error err;
    pl_model_init(&m, &pl_test_case_synthetic, NULL, 0, &err);
    double t = 1.0, q[2] = {0.3, 0.4}, v[2] = {-0.2, 0.1}, lambda[2], fsm[2];
    int set[2] = {0, 1};
    CHECK(sliding_force(&m, t, q, v, set, lambda, fsm, &err) == PL_OK && lambda[1] > 0, "pressed");
    double fp[2], a[2], h = 1e-6, qp[2], vp[2], qm[2], vm[2];
    pl_work *w = pl_work_new(&m);
    pl_contact *c = pl_contact_new(1, m.n, 0), *cd = pl_contact_new(1, m.n, 0);
    pl_model_velocity_map(&m, t, q, v, fp, NULL, NULL, NULL);
    pl_model_accel(&m, w, t, q, v, a, NULL, NULL);
    pl_model_contact_at(&m, w, 1, t, q, fp, c);
    for (int j = 0; j < 2; j++) {
        double vd = a[j] + c->w[j] * lambda[1];
        qp[j] = q[j] + h * fp[j], vp[j] = v[j] + h * vd;
        qm[j] = q[j] - h * fp[j], vm[j] = v[j] - h * vd;
    }
    double Gdd = (gdot_at(&m, w, cd, 1, t + h, qp, vp) - gdot_at(&m, w, cd, 1, t - h, qm, vm)) / (2 * h);
    CHECK_NEAR(Gdd, 0.0, 1e-6, "G'' = 0 under the sliding force with F_p != v");
    pl_work_free(w);
    free(c);
    free(cd);
    pl_model_free(&m);
}

static void test_interpolation(void)
{
    /* Two rows of a free flight of the ball: the Hermite interpolant is exact on the parabola. */
    pl_error err;
    pl_model m;
    pl_model_init(&m, &pl_case_bouncing_ball, NULL, 0, &err);
    pl_solution sol;
    pl_solution_init(&sol, &pl_solver_penalty, &m, 0.4, &err);
    double g = 9.81, r0[] = {0.0, 0.0, 1.0, 0.0, 1.0, 0.0};
    double r1[] = {0.4, 0.4, 1.0 - g * 0.08, -g * 0.4, 1.0 - g * 0.08, 0.0};
    pl_table_append(&sol.traj, r0, &err);
    pl_table_append(&sol.traj, r1, &err);
    pl_trajectory tr, shifted;
    CHECK(pl_trajectory_build(&tr, &m, &sol, &err) == PL_OK, "build");
    double x[2], ts;
    pl_trajectory_at_t(&tr, 0.13, x);
    CHECK_NEAR(x[0], 1.0 - 0.5 * g * 0.13 * 0.13, 1e-14, "q on the parabola");
    CHECK_NEAR(x[1], -g * 0.13, 1e-14, "v on the parabola");
    pl_trajectory_at_s(&tr, 0.21, x, &ts);
    CHECK_NEAR(ts, 0.21, 1e-15, "in flight s = t");
    pl_trajectory_at_s(&tr, 5.0, x, &ts);
    CHECK(x[0] == r1[2] && ts == 0.4, "constant extension beyond the end");
    double dq, dv;
    pl_trajectory_distance_s(&tr, &tr, &dq, &dv, &err);
    CHECK(dq == 0.0 && dv == 0.0, "distance to itself");
    /* The same flight starting 0.01 higher: distance 0.01 in q, 0 in v. */
    pl_table_row(&sol.traj, 0)[2] += 0.01, pl_table_row(&sol.traj, 1)[2] += 0.01;
    pl_trajectory_build(&shifted, &m, &sol, &err);
    pl_trajectory_distance_s(&tr, &shifted, &dq, &dv, &err);
    CHECK_NEAR(dq, 0.01, 1e-14, "distance of a shifted copy");
    CHECK_NEAR(dv, 0.0, 1e-14, "same velocities");
    pl_trajectory_free(&tr);
    pl_trajectory_free(&shifted);
    pl_solution_free(&sol);
    pl_model_free(&m);
}

/* A run that ran out of memory before storing its first row still has the contact open at t = 0
 * (the vibrating table starts on it): the analysis must not read rows that are not there. */
static void test_missing_rows(void)
{
    pl_error err;
    pl_model m;
    pl_model_init(&m, &pl_case_vibrating_table, NULL, 0, &err);
    pl_solution sol;
    pl_solution_init(&sol, &pl_solver_penalty, &m, 1.0, &err);
    sol.option[0] = 1e8;
    pl_episode *ep;
    CHECK(pl_solution_add_episode(&sol, 0, 0.0, &ep, &err) == PL_OK, "episode");
    ep->row_in = 0;
    ep->row_out = (size_t)-1; /* closed with no row stored */
    sol.status = PL_ERR_NOMEM;
    pl_analysis a;
    CHECK(pl_analyze(&m, &sol, &a, &err) == PL_OK, "analysed: %s", err.message);
    CHECK(a.impacts == 0 && isnan(a.info[0].dv[0]), "no impact and no velocity jump from missing rows");
    pl_analysis_free(&a);
    pl_solution_free(&sol);
    pl_model_free(&m);
}

/* The time budget counts from opts.started (a command's start, so that its set-up counts) and bounds
 * the analysis done with the solve when it is given to it.  Deterministic: a budget of 50 s spent 100 s
 * before the solve stops every solver at its first step (t = 0), and the analysis given it at its first
 * row of sliding forces; the same budget from the solve's own start (started = 0), or from now, lets a
 * run of milliseconds and its analysis finish, and an analysis without one always finishes.  (Before,
 * a budget counted from each solve's start only, and the analysis had none: 100 balls of newtons_cradle
 * analysed for minutes past a run stopped on time.) */
static void test_budget(void)
{
    const pl_solver_type *solvers[] = {&pl_solver_penalty, &pl_solver_limit, &pl_solver_moreau_jean,
                                       &pl_solver_paoli, &pl_solver_maury};
    pl_setting s[] = {{"e", 0.0}};
    pl_model m;
    pl_error err;
    if (pl_model_init(&m, &pl_case_bouncing_ball, s, 1, &err) != PL_OK) {
        CHECK(0, "model: %s", err.message);
        return;
    }
    for (int k = 0; k < 5; k++)
        for (int spent = 0; spent < 2; spent++) {
            pl_solve_opts o;
            pl_solve_opts_init(&o, solvers[k], &m, 1.0);
            o.max_seconds = 50.0;
            if (spent)
                pl_solve_opts_count_from(&o, pl_now_seconds() - 100.0);
            pl_solution r;
            pl_status st = pl_solve(solvers[k], &m, &o, &r, &err);
            if (spent)
                CHECK(st == PL_ERR_SOLVER && strstr(err.message, "stopped after the time budget of 50 s (max_seconds) "
                                                                 "at t = 0") &&
                          !strstr(err.message, "--") && r.t_final == 0.0,
                      "%s: a budget spent before the solve stops it at t = 0 (%s)", solvers[k]->name,
                      st == PL_OK ? "ok" : err.message);
            else
                CHECK(st == PL_OK, "%s: the budget from the solve's start (%s)", solvers[k]->name,
                      st == PL_OK ? "ok" : err.message);
            pl_solution_free(&r);
        }
    /* the analysis: the ball resting from t = 0.45 at mu = 1e4 (sustained: sliding forces at each row) */
    pl_solve_opts o;
    pl_solve_opts_init(&o, &pl_solver_penalty, &m, 1.0);
    o.option[pl_solver_option_index(&pl_solver_penalty, "mu")] = 1e4;
    pl_solution r;
    if (pl_solve(&pl_solver_penalty, &m, &o, &r, &err) == PL_OK) {
        pl_analysis a;
        CHECK(pl_analyze(&m, &r, &a, &err) == PL_OK && a.sliding.nrows > 10, "no budget: the sliding forces at %zu rows",
              a.sliding.nrows);
        pl_analysis_free(&a);
        pl_budget spent = {50.0, pl_now_seconds() - 100.0};
        pl_status st = pl_analyze_within(&m, &r, &spent, &a, &err);
        CHECK(st == PL_ERR_SOLVER && strstr(err.message, "stopped after the time budget of 50 s (max_seconds) in the "
                                                         "analysis (the sliding forces"),
              "a spent budget stops the analysis (%s)", st == PL_OK ? "ok" : err.message);
        pl_analysis_free(&a);
        pl_budget fresh = {50.0, pl_now_seconds()};
        CHECK(pl_analyze_within(&m, &r, &fresh, &a, &err) == PL_OK && a.sliding.nrows > 10,
              "within the budget the analysis completes");
        /* A stop for the writing it would leave names the time kept for it; one whose own time ran out
         * does not (pl_budget_writing_note). */
        char note[128];
        pl_budget writing = {50.0, pl_now_seconds()};
        pl_budget_writing_note(&writing, 2e7, note, sizeof note);
        double used = NAN, kept = NAN, numbers = NAN;
        CHECK(sscanf(note, "; %lf s spent, %lf s kept to write the %lf numbers found", &used, &kept, &numbers) == 3 &&
                  used >= 0.0 && used < 50.0 && fabs(kept - 2e7 * PL_WRITE_SECONDS_PER_NUMBER) <= 5e-3 * kept && numbers == 2e7,
              "the writing note: '%s'", note);
        CHECK(pl_budget_writing_note(&spent, 2e7, note, sizeof note)[0] == '\0',
              "no writing note where the work itself spent the budget ('%s')", note);
        pl_analysis_free(&a);
        CHECK(pl_analyze_within(&m, &r, NULL, &a, &err) == PL_OK && a.sliding.nrows > 10, "no budget given: it completes");
        pl_analysis_free(&a);
    } else
        CHECK(0, "penalty: %s", err.message);
    pl_solution_free(&r);
    pl_model_free(&m);
}

/* A solution does not keep its solve's budget: compared and analysed after max_seconds has passed
 * since its solve, through the public API and internally, it is analysed in full.  (The solution once
 * kept its budget's start, and every later pl_analyze checked against it: the ball at rest after its
 * Zeno point, compared once 1 s had passed, gave "stopped after --max-seconds 1 in the analysis".)
 * The solves take milliseconds, within their 1 s on however loaded a machine, and the test waits until
 * that has passed however long they took. */
static void test_budget_not_kept(void)
{
    pl_setting settings[] = {{"e", 0.5}};
    pl_error err;
    pl_model *model = pl_model_create(pl_builtin_case_find("bouncing_ball"), settings, 1, &err);
    if (!model) {
        CHECK(0, "model: %s", err.message);
        return;
    }
    pl_setting opts[] = {{"t_end", 10.0}, {"max_seconds", 1.0}, {"mu", 1e4}};
    pl_solution *lim = NULL, *run = NULL;
    pl_status a = pl_solve_model(model, "limit", opts, 2, &lim, &err);
    CHECK(a == PL_OK, "limit within its budget: %s", a == PL_OK ? "ok" : err.message);
    pl_status b = pl_solve_model(model, "penalty", opts, 3, &run, &err);
    CHECK(b == PL_OK, "penalty within its budget: %s", b == PL_OK ? "ok" : err.message);
    double solved = pl_now_seconds();
    while (pl_now_seconds() - solved <= 1.05) { /* every solve's budget has run out */
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    if (a == PL_OK && b == PL_OK) {
        double sup_q = NAN;
        pl_status c = pl_compare_to_limit(model, run, lim, &sup_q, NULL, NULL, NULL, &err);
        CHECK(c == PL_OK && sup_q > 0.0 && sup_q < 0.1, "compared after the solves' budgets: %s (sup_q %g)",
              c == PL_OK ? "ok" : err.message, sup_q);
        pl_analysis an;
        pl_status d = pl_analyze(model, run, &an, &err);
        CHECK(d == PL_OK && an.sliding.nrows > 10, "the penalized run analysed after its budget, its sliding forces "
              "at %zu rows: %s", an.sliding.nrows, d == PL_OK ? "ok" : err.message);
        pl_analysis_free(&an);
    }
    pl_solution_destroy(lim);
    pl_solution_destroy(run);
    pl_model_destroy(model);
}

/* The model of case c with the settings s, its penalized run at mu to t_end and its analysis; non-zero
 * (a check failed, nothing held) if any of them fails. */
static int solve_and_analyse(const pl_case *c, const pl_setting *s, size_t ns, double t_end, double mu, pl_model *m,
                             pl_solution *r, pl_analysis *a)
{
    pl_error err;
    if (pl_model_init(m, c, s, ns, &err) != PL_OK) {
        CHECK(0, "%s: model: %s", c->name, err.message);
        return -1;
    }
    pl_solve_opts o;
    pl_solve_opts_init(&o, &pl_solver_penalty, m, t_end);
    o.option[pl_solver_option_index(&pl_solver_penalty, "mu")] = mu;
    if (pl_solve(&pl_solver_penalty, m, &o, r, &err) == PL_OK) {
        if (pl_analyze(m, r, a, &err) == PL_OK)
            return 0;
        pl_solution_free(r);
    }
    CHECK(0, "%s: solved and analysed: %s", c->name, err.message);
    pl_model_free(m);
    return -1;
}

/* The analysis' work grows with the contacts that are coupled, not with all pairs: N balls of Newton's
 * cradle (F_p = v, M = I, each contact on two neighbouring balls) rest in a chain after the wave, so
 * each resting contact's W has itself and its two neighbours (at most 3 entries per contact and row,
 * where every pair, k^2 per row with k ~ N resting, was formed before), and the coupling tests of an
 * impact's contacts (a box of disks, config 3) are over their supports and the contacts sharing a
 * dof: a few products per test, where each test took n^2 + n before.  Counts at two N bound each count
 * per unit of the work it is for. */
static void test_coupled_work(void)
{
    size_t balls[] = {20, 40};
    double per_row[2] = {0, 0};
    for (int c = 0; c < 2; c++) {
        pl_setting s[] = {{"N", (double)balls[c]}};
        pl_model m;
        pl_solution r;
        pl_analysis a;
        if (solve_and_analyse(&pl_case_newtons_cradle, s, 1, 1.0, 1e6, &m, &r, &a))
            return;
        /* a.sliding holds a row per resting contact and row: the sum of k over the rows */
        CHECK(a.sliding.nrows > 10 * balls[c], "N = %zu: the chain rests (%zu sliding rows)", balls[c],
              a.sliding.nrows);
        per_row[c] = (double)a.couplings_formed / (double)a.sliding.nrows;
        CHECK(a.couplings_formed >= a.sliding.nrows && per_row[c] <= 3.0,
              "N = %zu: %zu couplings W_ab formed for %zu contact rows (at most 3 each: a contact and its two "
              "neighbours)", balls[c], a.couplings_formed, a.sliding.nrows);
        pl_analysis_free(&a);
        pl_solution_free(&r);
        pl_model_free(&m);
    }
    size_t disks[] = {12, 24, 100};
    for (int c = 0; c < 3; c++) {
        pl_setting s[] = {{"config", 3.0}, {"N", (double)disks[c]}};
        pl_model m;
        pl_solution r;
        pl_analysis a;
        if (solve_and_analyse(&pl_case_spheres, s, 2, 1.0, 1e6, &m, &r, &a))
            return;
        /* the impacts' coupling tests: each over two disks' supports (4 dofs), the set of each candidate's
         * neighbours by dof or the participants sharing a dof with it; dense, a test's direction took n^2
         * products (576 at N = 12); every participant tested, 69 an impact at N = 100 */
        CHECK(a.impacts > 0 && a.coupling_terms > 0 && a.coupling_terms <= 40 * a.impacts,
              "%zu disks: %zu products of coupling tests for %zu impacts (at most 40 each)", disks[c],
              a.coupling_terms, a.impacts);
        pl_analysis_free(&a);
        pl_solution_free(&r);
        pl_model_free(&m);
    }
}

/* A mass on two parallel floors, y >= 0 and y >= -d, each gap with its support {0}: F_p = v, M = 1,
 * supports, so the analysis's sparse path.  Both gradients are 1: W = [[1, 1], [1, 1]] is exactly
 * singular while both contacts are sustained, and their bilateral forces are undefined there.  Pressed
 * by g until t = 1/2, then pulled up by g. */
static void twin_initial(const double *p, double *q, double *v, void *user)
{
    (void)p, (void)user;
    q[0] = v[0] = 0.0;
}

static void twin_force(const double *p, double t, const double *q, const double *v, const double *u, double *f,
                       double *f_q, double *f_v, void *user)
{
    (void)p, (void)q, (void)v, (void)u, (void)user;
    f[0] = t < 0.5 ? -9.81 : 9.81;
    if (f_q)
        f_q[0] = 0.0;
    if (f_v)
        f_v[0] = 0.0;
}

static void twin_gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    (void)p, (void)t, (void)user;
    out->g = q[0] + (i ? 3e-6 : 0.0);
    out->grad[0] = 1.0;
}

static size_t twin_support(const double *p, size_t i, size_t *dofs, void *user)
{
    (void)p, (void)i, (void)user;
    dofs[0] = 0;
    return 1;
}

static void twin_scales(const double *p, double *velocity, double *accel, void *user)
{
    (void)p, (void)user;
    *velocity = 0.44;
    *accel = 9.81;
}

static const pl_param_spec twin_params[] = {PL_LAW_PARAMS(0.0)};
static const pl_case twin_floors = {.abi_version = PL_ABI_VERSION, .name = "twin_floors", .summary = "two floors",
                                    .ndof = 1, .ncon = 2, .params = twin_params, .nparams = 3, .t_end = 1.0,
                                    .initial_state = twin_initial,
                                    .force = twin_force, .gap = twin_gap, .support = twin_support,
                                    .scales = twin_scales};

/* Where the set in sustained contact is singular its bilateral forces are NAN (bilateral_forces'
 * contract), on the sparse path too: a lift-off is never predicted from them.  The upper floor's
 * force is +9.81 before the lower floor is reached and -9.81 once the mass is pulled off the lower
 * one, every row between singular: no change of sign between two defined values.  (Left unwritten,
 * the singular rows kept an earlier row's value or uninitialised bytes, and a lift-off at t = 0.501
 * was predicted, or not, from run to run.) */
static void test_singular_sustained_set(void)
{
    pl_model m;
    pl_solution r;
    pl_analysis a;
    if (solve_and_analyse(&twin_floors, NULL, 0, 1.0, 1e6, &m, &r, &a))
        return;
    size_t sustained = 0;
    for (size_t k = 0; k < r.nepisodes; k++) {
        sustained += a.info[k].kind == PL_SUSTAINED;
        CHECK(isnan(a.info[k].lift_off_predicted), "episode %zu (constraint %zu): no lift-off predicted from "
              "undefined forces (%.17g)", k, r.episodes[k].constraint, a.info[k].lift_off_predicted);
    }
    CHECK(sustained == 2, "both floors in sustained contact (%zu episodes)", sustained);
    CHECK(isnan(a.lift_off_predicted_first), "none first (%.17g)", a.lift_off_predicted_first);
    pl_analysis_free(&a);
    pl_solution_free(&r);
    pl_model_free(&m);
}

/* The spheres with F_p = v given as a velocity map: the same model on the analysis's dense path
 * (pl_sliding_force, bilateral_forces, the dense coupling test), its sums over every dof in ascending
 * order, where the sparse path sums the supports' shared dofs in the same order. */
static void identity_map(const double *p, double t, const double *q, const double *v, double *fp, double *fp_q,
                         double *fp_v, double *fp_t, void *user)
{
    (void)p, (void)t, (void)q, (void)user;
    size_t n = 48;
    for (size_t j = 0; j < n; j++) {
        fp[j] = v[j];
        if (fp_t)
            fp_t[j] = 0.0;
        for (size_t k = 0; fp_q && k < n; k++)
            fp_q[j * n + k] = 0.0;
        for (size_t k = 0; fp_v && k < n; k++)
            fp_v[j * n + k] = j == k;
    }
}

static int compare_index(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    return (a > b) - (a < b);
}

static int same_number(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

/* Every impact's participants and end against their definition (pl_impact_record), computed here by
 * brute force: the least set holding the impact's constraint and closed under taking an episode that
 * ends (at or after the impact's entry), begins by the latest exit so far, ends within 3 contact times
 * of it and whose constraint is coupled with one in the set at the entry.  Returns the impacts with
 * more than one participant. */
static size_t check_impact_motions(const pl_model *m, const pl_solution *r, const pl_analysis *a, double mu,
                                   const char *label)
{
    size_t n = r->n, several = 0, checked = 0;
    pl_coupling *coupling = pl_coupling_new(m);
    int *taken = calloc(r->nepisodes, sizeof *taken);
    size_t *set = malloc((r->nepisodes + 1) * sizeof *set);
    for (size_t k = 0; coupling && taken && set && k < r->nepisodes; k++) {
        const pl_episode *first = &r->episodes[k];
        if (a->info[k].kind != PL_IMPACT || first->row_in > first->row_out || first->row_out >= r->traj.nrows)
            continue;
        const pl_impact_record *rec = NULL;
        for (size_t i = 0; i < a->impacts && !rec; i++)
            if (a->impact[i].event.constraint == first->constraint && a->impact[i].event.t == first->t_in)
                rec = &a->impact[i];
        CHECK(rec != NULL, "%s: the impact of episode %zu recorded", label, k);
        if (!rec)
            continue;
        const double *x0 = pl_table_row(&r->traj, first->row_in);
        double V = fabs(first->gdot_in), end = first->t_out;
        size_t count = 1;
        set[0] = first->constraint;
        memset(taken, 0, r->nepisodes * sizeof *taken);
        taken[k] = 1;
        for (int grown = 1; grown;) {
            grown = 0;
            for (size_t o = 0; o < r->nepisodes; o++) {
                const pl_episode *ep = &r->episodes[o];
                if (taken[o] || isnan(ep->t_out) || ep->t_out < first->t_in || ep->t_in > end ||
                    ep->t_out > end + 3.0 * pl_law_contact_time(&m->law[ep->constraint], mu, V))
                    continue;
                int coupled = 0;
                for (size_t c = 0; c < count && !coupled; c++) {
                    pl_coupling_set(coupling, set[c], x0[0], x0 + pl_col_q(n, r->m), x0 + pl_col_v(n, r->m));
                    coupled = pl_coupled(coupling, ep->constraint);
                }
                if (!coupled)
                    continue;
                taken[o] = grown = 1;
                size_t c = 0;
                while (c < count && set[c] != ep->constraint)
                    c++;
                if (c == count)
                    set[count++] = ep->constraint;
                end = fmax(end, ep->t_out);
            }
        }
        qsort(set, count, sizeof *set, compare_index);
        int same = rec->event.nparts == count;
        for (size_t c = 0; same && c < count; c++)
            same = rec->event.part[c] == set[c];
        CHECK(same && rec->t_out == end, "%s: impact of episode %zu: %zu participants ending at %.17g, as defined "
              "(%zu ending at %.17g)", label, k, rec->event.nparts, rec->t_out, count, end);
        several += count > 1;
        checked++;
    }
    CHECK(checked > 0, "%s: impacts checked", label);
    pl_coupling_free(coupling);
    free(taken);
    free(set);
    return several;
}

/* The analysis's sparse path (sets listed, W over the supports' shared dofs, the coupling test through
 * the constraints on a dof or the participants) gives the dense path's numbers bit for bit on the same
 * solution (sets below BILATERAL_SPARSE_FROM: both through dense LU and Siconos), and the impacts their
 * definition, on disks settling in rows under gravity (sustained sets changing every few rows, episodes
 * solved apart from their row's set, impacts of several disks) and Newton's cradle at e = 0.5. */
static void test_sparse_analysis_paths(void)
{
    pl_setting s[] = {{"config", 3.0}, {"N", 24.0}, {"cols", 4.0}, {"g", 9.81}};
    pl_model m, dense;
    pl_solution r;
    pl_analysis a, b;
    pl_error err;
    pl_case wrapped = pl_case_spheres;
    wrapped.velocity_map = identity_map;
    if (solve_and_analyse(&pl_case_spheres, s, 4, 1.5, 1e6, &m, &r, &a))
        return;
    if (pl_model_init(&dense, &wrapped, s, 4, &err) == PL_OK && pl_analyze(&dense, &r, &b, &err) == PL_OK) {
        CHECK(pl_model_sparse(&m) && !pl_model_sparse(&dense) && m.n == 48, "the two paths (n = %zu)", m.n);
        size_t differ = 0, sustained = 0, lift_offs = 0;
        for (size_t k = 0; k < r.nepisodes; k++) {
            const pl_episode_info *x = &a.info[k], *y = &b.info[k];
            differ += x->kind != y->kind || !same_number(x->force_error, y->force_error) ||
                      !same_number(x->force_scale, y->force_scale) ||
                      !same_number(x->lift_off_predicted, y->lift_off_predicted);
            sustained += x->kind == PL_SUSTAINED && !isnan(x->force_error);
            lift_offs += !isnan(x->lift_off_predicted);
        }
        int rows = a.sliding.nrows == b.sliding.nrows && a.sliding.ncol == b.sliding.ncol;
        for (size_t e = 0; rows && e < a.sliding.nrows * a.sliding.ncol; e++)
            rows = same_number(a.sliding.data[e], b.sliding.data[e]);
        CHECK(differ == 0 && rows && sustained > 10 && lift_offs > 0,
              "disks in rows: the sparse analysis is the dense one's bit for bit (%zu of %zu episodes differ; "
              "sliding rows %s: %zu; %zu sustained compared, %zu lift-offs predicted)", differ, r.nepisodes,
              rows ? "the same" : "differ", a.sliding.nrows, sustained, lift_offs);
        int same_impacts = a.impacts == b.impacts;
        for (size_t i = 0; same_impacts && i < a.impacts; i++)
            same_impacts = a.impact[i].event.nparts == b.impact[i].event.nparts && a.impact[i].t_out == b.impact[i].t_out;
        CHECK(same_impacts, "disks in rows: the same impacts (%zu, %zu)", a.impacts, b.impacts);
        pl_analysis_free(&b);
    } else
        CHECK(0, "the dense path's analysis: %s", err.message);
    CHECK(check_impact_motions(&m, &r, &a, 1e6, "disks in rows") > 0, "disks: an impact of several");
    pl_analysis_free(&a);
    pl_solution_free(&r);
    pl_model_free(&m);
    pl_model_free(&dense);

    pl_setting c[] = {{"N", 120.0}, {"e", 0.5}};
    if (solve_and_analyse(&pl_case_newtons_cradle, c, 2, 3.0, 1e6, &m, &r, &a))
        return;
    CHECK(check_impact_motions(&m, &r, &a, 1e6, "cradle") > 5, "cradle: impacts of several");
    pl_analysis_free(&a);
    pl_solution_free(&r);
    pl_model_free(&m);
}

/* The sparse solve of the bilateral forces of large sustained sets (pl_solve_sparse_rows, KLU over W's
 * rows) against the dense one (pl_solve_small) on a non-symmetric W with a few entries per row at
 * places no case gives (a band and a far corner), so that a transposition or a row-column mix-up
 * shows; and a singular W (two equal rows) said singular. */
static void test_sparse_rows_solve(void)
{
    enum { K = 150 };
    static int start[K + 1], col[4 * K];
    static double val[4 * K], W[K * K], b[K], x[K], a[K];
    size_t nnz = 0;
    for (int r = 0; r < K; r++) {
        start[r] = (int)nnz;
        int cols[4] = {r > 0 ? r - 1 : -1, r, r + 2 < K ? r + 2 : -1, r == 0 ? K - 1 : -1};
        for (int e = 0; e < 4; e++)
            if (cols[e] >= 0) {
                double w = cols[e] == r ? 4.0 + 0.01 * r : 1.0 / (1.0 + r + 3.0 * e);
                col[nnz] = cols[e];
                val[nnz++] = w;
                W[r * K + cols[e]] = w;
            }
        b[r] = x[r] = sin(0.37 * r) + 0.5;
    }
    start[K] = (int)nnz;
    CHECK(pl_solve_sparse_rows(K, start, col, val, x) == 0 && pl_solve_small(K, W, b, a) == 0, "both solve");
    double worst = 0.0;
    for (int r = 0; r < K; r++)
        worst = fmax(worst, fabs(x[r] - a[r]) / fmax(1.0, fabs(a[r])));
    CHECK(worst < 1e-13, "KLU over the rows = dense LU (%g)", worst);
    /* row 1 made row 0 (both hold columns 0, 1 after the swap of entries): singular */
    int s2[3] = {0, 2, 4}, c2[4] = {0, 1, 0, 1};
    double v2[4] = {1.0, 2.0, 1.0, 2.0}, b2[2] = {1.0, 1.0};
    CHECK(pl_solve_sparse_rows(2, s2, c2, v2, b2) == 1, "a singular W is said singular");
    CHECK(pl_solve_sparse_rows(0, s2, c2, v2, b2) == 0, "an empty set solves");
}

int main(void)
{
    check_init();
    test_singular_sustained_set();
    test_sparse_analysis_paths();
    test_fits();
    test_flights();
    test_classification();
    test_unresolved_touches();
    test_mu_list();
    test_sliding_force();
    test_sliding_force_general();
    test_interpolation();
    test_missing_rows();
    test_budget();
    test_budget_not_kept();
    test_coupled_work();
    test_sparse_rows_solve();
    return check_finish("test_analysis");
}
