/* The circular cup (Paoli, ARMA 2010): a unit mass from (0, 0.6) with velocity (1, 0) inside the unit
 * circle, no force, inelastic (e = 0), in Cartesian (G = 1 - |x|^2) and polar (q = (r, theta),
 * M = diag(1, r^2), G = 1 - r) coordinates.
 *
 * The closed form, derived here: the flight x = (t, 0.6) meets |x| = 1 at t1 = 0.8, at (0.8, 0.6),
 * normal n = (0.8, 0.6).  Moreau's inelastic law (Paoli's eq. (4): the projection of v- onto the
 * tangent cone, M = I) removes v.n = 0.8: v+ = (1, 0) - 0.8 n = (0.36, -0.48), of speed 0.6 along the
 * clockwise tangent (sin theta, -cos theta) at theta1 = atan2(0.6, 0.8).  No force acts along the
 * circle, so the mass then slides uniformly: theta(t) = theta1 - 0.6 (t - 0.8), x = (cos, sin) theta,
 * v = 0.6 (sin theta, -cos theta); the kinetic energy drops from 0.5 to 0.18.  The wall holds it by
 * the centripetal force |v|^2/1 = 0.36, the normal force lambda of the law with the unit normal
 * (polar: F^sm = -lambda/(m k) = -0.36/k) and 0.36/2 along grad G = -2x (Cartesian: lambda = 0.18,
 * m = 1/4, F^sm = -0.72/k).
 *
 * The penalty (critical damping xi = 1 for e = 0, omega = sqrt(k mu)) enters the wall with normal speed
 * V = 0.8 and penetrates at most V/(e omega) (the critically damped p = V t exp(-omega t), e Euler's
 * number): the sup distance to the limit, O(mu^-1/2).  Once that transient has decayed the mass slides
 * at r = 1 + delta, delta = 0.36/(k mu) to first order (angular momentum 0.6 conserved by the central
 * force, k mu delta = 0.6^2/r^3), turning slower by 2 delta: an O(1/mu) distance. */
#include <float.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "model/sliding.h"
#include "solve.h"
#include "study/analysis.h"
#include "study/sweep.h"

static const double T1 = 0.8, SPEED = 0.6;

/* The inelastic limit in Cartesian coordinates: x, v at time t. */
static void exact(double t, double *x, double *v)
{
    if (t < T1) {
        x[0] = t, x[1] = 0.6, v[0] = 1.0, v[1] = 0.0;
        return;
    }
    double th = atan2(0.6, 0.8) - SPEED * (t - T1);
    x[0] = cos(th), x[1] = sin(th);
    v[0] = SPEED * sin(th), v[1] = -SPEED * cos(th);
}

/* A solution's state in Cartesian coordinates (polar: x = r (cos, sin) theta, v by the chain rule). */
static void cartesian(int polar, const double *q, const double *qd, double *x, double *v)
{
    if (!polar) {
        memcpy(x, q, 2 * sizeof *x);
        memcpy(v, qd, 2 * sizeof *v);
        return;
    }
    double c = cos(q[1]), s = sin(q[1]);
    x[0] = q[0] * c, x[1] = q[0] * s;
    v[0] = qd[0] * c - q[0] * qd[1] * s, v[1] = qd[0] * s + q[0] * qd[1] * c;
}

static int init(pl_model *m, int polar, double k)
{
    pl_model_free(m); /* the model this variable held before */
    pl_error err;
    pl_setting s[] = {{"polar", polar}, {"k", k}};
    int ok = pl_model_init(m, &pl_case_cup, s, 2, &err) == PL_OK;
    CHECK(ok, "cup model (polar = %d): %s", polar, err.message);
    return ok;
}

static void test_parameters(void)
{
    pl_model m = {0};
    pl_error err;
    pl_setting bad[][2] = {{{"polar", 0.5}}, {{"polar", 1.0}, {"y0", 0.0}}, {{"y0", 1.0}}};
    const char *why[] = {"0 (Cartesian) or 1", "keep away from the centre", "y0"};
    size_t nbad[] = {1, 2, 1};
    for (int c = 0; c < 3; c++)
        CHECK(pl_model_init(&m, &pl_case_cup, bad[c], nbad[c], &err) == PL_ERR_INPUT && strstr(err.message, why[c]),
              "refused: %s", err.message);
    if (init(&m, 0, 1.0)) {
        double q[2], v[2];
        pl_model_initial_state(&m, q, v);
        CHECK(q[0] == 0.0 && q[1] == 0.6 && v[0] == 1.0 && v[1] == 0.0, "Cartesian start (0, 0.6), (1, 0)");
        CHECK_NEAR(pl_model_limit_value(&m, PL_LIMIT_FIRST_IMPACT_TIME), T1, 1e-15, "limit_value: t1 = 0.8");
    }
    if (init(&m, 1, 1.0)) {
        double q[2], v[2];
        pl_model_initial_state(&m, q, v);
        CHECK(q[0] == 0.6 && q[1] == M_PI / 2 && v[0] == 0.0, "polar start r = 0.6, theta = pi/2, r' = 0");
        CHECK_NEAR(v[1], -1.0 / 0.6, 1e-15, "polar start theta' = -1/0.6");
    }
    pl_model_free(&m);
    /* The scale A bounds the free gap acceleration -r'' = -r theta'^2 = -v0^2/|y0| at the polar start (a
     * scheme's default step is 1e-2 V/A): 1000 v0^2 at the start's limit |y0| = 1e-3, where A = v0^2
     * once gave Paoli's run theta' = -860 for an exact -0.001. */
    const double y0s[] = {0.6, 1e-3, -1e-3};
    for (int k = 0; k < 3; k++) {
        pl_setting s[] = {{"polar", 1.0}, {"y0", y0s[k]}, {"v0", 2.0}};
        if (pl_model_init(&m, &pl_case_cup, s, 3, &err) != PL_OK) {
            CHECK(0, "polar cup at y0 = %g: %s", y0s[k], err.message);
            continue;
        }
        double q[2], v[2];
        pl_model_initial_state(&m, q, v);
        double D = free_gap_accel_once(&m, 0, 0.0, q, v);
        CHECK_NEAR(D, -4.0 / fabs(y0s[k]), 1e-12 * 4.0 / fabs(y0s[k]), "polar D at the start = -v0^2/|y0|");
        CHECK(m.a_scale >= fabs(D) * (1.0 - 1e-12), "A = %g bounds |D| = %g at y0 = %g", m.a_scale, fabs(D), y0s[k]);
        pl_model_free(&m);
    }
}

/* Polar dynamics against the equations of motion of the Lagrangian (r'^2 + r^2 theta'^2)/2, solved for
 * the accelerations: r'' = r theta'^2, theta'' = -2 r' theta'/r; the Jacobians of F_v against central
 * differences (test_model checks the registered defaults, which are Cartesian); the free gap
 * acceleration and F^sm on the circle in both coordinate systems. */
static void test_dynamics(void)
{
    pl_model m = {0};
    const double q[2] = {0.9, 0.3}, v[2] = {-0.4, 1.7};
    if (init(&m, 1, 2.0)) {
        double a[2], a_q[4], a_v[4];
        accel_once(&m, 0.0, q, v, a, a_q, a_v);
        CHECK_NEAR(a[0], q[0] * v[1] * v[1], 1e-14, "r'' = r theta'^2");
        CHECK_NEAR(a[1], -2.0 * v[0] * v[1] / q[0], 1e-14, "theta'' = -2 r' theta'/r");
        for (int k = 0; k < 4; k++) {
            double y[4] = {q[0], q[1], v[0], v[1]}, yp[4], ym[4], ap[2], am[2], h = 1e-6;
            memcpy(yp, y, sizeof y), memcpy(ym, y, sizeof y);
            yp[k] += h, ym[k] -= h;
            accel_once(&m, 0.0, yp, yp + 2, ap, NULL, NULL);
            accel_once(&m, 0.0, ym, ym + 2, am, NULL, NULL);
            for (int j = 0; j < 2; j++) {
                double fd = (ap[j] - am[j]) / (2 * h), an = k < 2 ? a_q[j * 2 + k] : a_v[j * 2 + k - 2];
                NEAR(an, fd, 1e-8, "polar dF_v[%d]/dy[%d]", j, k);
            }
        }
        /* G = 1 - r: D = -r'' = -r theta'^2 */
        CHECK_NEAR(free_gap_accel_once(&m, 0, 0.0, q, v), -q[0] * v[1] * v[1], 1e-14, "polar D");
        /* on the circle with theta' = -0.6: F^sm = -0.36/k */
        double qc[2] = {1.0, 0.3}, vc[2] = {0.0, -SPEED}, lambda[1], fsm[1];
        int set[1] = {1};
        pl_error err;
        CHECK(sliding_force_once(&m, 0.0, qc, vc, set, lambda, fsm, &err) == PL_OK, "polar F^sm: %s", err.message);
        CHECK_NEAR(lambda[0], SPEED * SPEED, 1e-14, "polar normal force = speed^2 (centripetal)");
        CHECK_NEAR(fsm[0], -SPEED * SPEED / 2.0, 1e-14, "polar F^sm = -speed^2/k");
    }
    if (init(&m, 0, 2.0)) {
        /* G = 1 - |x|^2, no force: D = -2 |v|^2 */
        CHECK_NEAR(free_gap_accel_once(&m, 0, 0.0, q, v), -2.0 * (v[0] * v[0] + v[1] * v[1]), 1e-14, "Cartesian D");
        double xc[2] = {0.8, 0.6}, vc[2] = {0.36, -0.48}, lambda[1], fsm[1];
        int set[1] = {1};
        pl_error err;
        CHECK(sliding_force_once(&m, 0.0, xc, vc, set, lambda, fsm, &err) == PL_OK, "Cartesian F^sm: %s", err.message);
        CHECK_NEAR(lambda[0] * 2.0, SPEED * SPEED, 1e-14, "Cartesian force lambda |grad G| = speed^2");
        CHECK_NEAR(fsm[0], -2.0 * SPEED * SPEED / 2.0, 1e-14, "Cartesian F^sm = -2 speed^2/k");
    }
    pl_model_free(&m);
}

/* The limit solution in both coordinate systems against the closed form: the impact and every row. */
static void test_limit(void)
{
    double final[2][2];
    for (int polar = 0; polar < 2; polar++) {
        pl_model m = {0};
        pl_solution r;
        pl_error err;
        if (!init(&m, polar, 1.0))
            continue;
        CHECK(solve_limit(&m, 1e-12, 3.0, 300, &r, &err) == PL_OK, "limit (polar = %d): %s", polar, err.message);
        CHECK(r.nevents >= 1 && r.events[0].kind == PL_EVENT_IMPACT, "polar = %d: an impact first", polar);
        if (r.nevents >= 1) {
            const pl_event *e = &r.events[0];
            double x[2], vb[2], va[2];
            cartesian(polar, e->q, e->v_before, x, vb);
            cartesian(polar, e->q, e->v_after, x, va);
            NEAR(e->t, T1, 1e-12, "polar = %d: impact time", polar);
            NEAR(x[0], 0.8, 1e-12, "polar = %d: impact at x = 0.8", polar);
            NEAR(x[1], 0.6, 1e-12, "polar = %d: impact at y = 0.6", polar);
            NEAR(va[0], 0.36, 1e-12, "polar = %d: v+ = (0.36, -0.48), x", polar);
            NEAR(va[1], -0.48, 1e-12, "polar = %d: v+ = (0.36, -0.48), y", polar);
            NEAR(0.5 * (va[0] * va[0] + va[1] * va[1]), 0.18, 1e-12, "polar = %d: energy 0.5 -> 0.18", polar);
            if (polar)
                NEAR(e->v_after[1], -SPEED, 1e-12, "polar: theta' = -0.6 after the impact");
        }
        double worst_q = 0.0, worst_v = 0.0, worst_g = 0.0;
        size_t n = 2, mm = 1;
        for (size_t row = 0; row < r.traj.nrows; row++) {
            const double *y = pl_table_row(&r.traj, row);
            double t = y[0], x[2], v[2], xe[2], ve[2];
            cartesian(polar, y + pl_col_q(n, mm), y + pl_col_v(n, mm), x, v);
            exact(t, xe, ve);
            for (int j = 0; j < 2; j++) {
                worst_q = fmax(worst_q, fabs(x[j] - xe[j]));
                if (fabs(t - T1) > 1e-9) /* the two rows at the impact carry v- and v+ */
                    worst_v = fmax(worst_v, fabs(v[j] - ve[j]));
            }
            if (t > T1)
                worst_g = fmax(worst_g, fabs(y[pl_col_g(n, mm)]));
        }
        CHECK(r.traj.nrows > 300, "polar = %d: rows recorded (%zu)", polar, r.traj.nrows);
        CHECK(worst_q < 1e-9, "polar = %d: positions = closed form to 1e-9 (%.3g)", polar, worst_q);
        CHECK(worst_v < 1e-9, "polar = %d: velocities = closed form to 1e-9 (%.3g)", polar, worst_v);
        CHECK(worst_g < 1e-9, "polar = %d: on the circle while sliding (|G| %.3g)", polar, worst_g);
        double v[2];
        cartesian(polar, r.q_final, r.v_final, final[polar], v);
        pl_solution_free(&r);
        pl_model_free(&m);
    }
    for (int j = 0; j < 2; j++)
        NEAR(final[0][j], final[1][j], 1e-10, "Cartesian and polar limit agree at t = 3, x[%d]", j);
}

/* The penalized runs against the closed form: the sup distance is the impact's penetration,
 * 0.8/(e omega); after the transient the distance is O(1/mu); mu G = F^sm while sliding. */
static void test_penalty(void)
{
    const double mus[] = {1e6, 1e8};
    double final[2][2][2];
    for (int polar = 0; polar < 2; polar++)
        for (int c = 0; c < 2; c++) {
            pl_model m = {0};
            pl_solution p;
            pl_error err;
            double mu = mus[c], omega = sqrt(mu);
            if (!init(&m, polar, 1.0))
                continue;
            CHECK(solve_penalty(&m, mu, 1e-10, 3.0, 300, &p, &err) == PL_OK, "penalty polar = %d, mu = %g: %s", polar,
                  mu, err.message);
            double sup = 0.0, late = 0.0, force = 0.0, fsm = polar ? -SPEED * SPEED : -2.0 * SPEED * SPEED;
            for (size_t row = 0; row < p.traj.nrows; row++) {
                const double *y = pl_table_row(&p.traj, row);
                double t = y[0], x[2], v[2], xe[2], ve[2];
                cartesian(polar, y + 2, y + 4, x, v);
                exact(t, xe, ve);
                double d = hypot(x[0] - xe[0], x[1] - xe[1]);
                sup = fmax(sup, d);
                if (t >= 1.0) { /* the entry transient decays like exp(-omega (t - 0.8)) */
                    late = fmax(late, d);
                    force = fmax(force, fabs(mu * y[6] - fsm));
                }
            }
            /* the impact's penetration; then r = 1 + 0.36/mu, and a lag of the angle by 2 x 0.6 x 0.36/mu per unit
             * time plus 1.2 x integral of p = 1.2 V/omega^2 from the entry: at t = 3 the distance
             * hypot(0.36, 0.432 x 2.2 + 0.96)/mu = 1.944/mu */
            double pen = 0.8 / (M_E * omega), d_end = hypot(0.36, 0.432 * 2.2 + 0.96) / mu;
            NEAR(sup, pen, 0.02 * pen + 3.0 / mu, "polar = %d, mu = %g: sup distance = penetration 0.8/(e omega)",
                 polar, mu);
            /* integration at rtol 1e-10 adds up to ~1.4e-8 in Cartesian coordinates (the angular momentum of a
             * curved BDF path drifts; the polar form keeps it to round-off): above the O(1/mu) only at 1e8 */
            CHECK(late < d_end * 1.03 + 2e-8, "polar = %d, mu = %g: distance after the transient %.4g <= %.4g (+ 2e-8)",
                  polar, mu, late, d_end);
            if (mu == 1e6) {
                double x[2], v[2], xe[2], ve[2];
                cartesian(polar, p.q_final, p.v_final, x, v);
                exact(3.0, xe, ve);
                NEAR(hypot(x[0] - xe[0], x[1] - xe[1]), d_end, 0.03 * d_end, "polar = %d, mu = 1e6: distance at t = 3",
                     polar);
            }
            /* mu G = F^sm (1 + O(1/mu)), resolved to 1000 ulps of q times mu |grad G| (the tolerance floor) */
            double ftol = 1e-6 + 2.0 / mu + 1000.0 * DBL_EPSILON * 2.0 * mu;
            CHECK(force < ftol, "polar = %d, mu = %g: mu G = F^sm = %g while sliding (off by %.3g, tol %.3g)", polar,
                  mu, fsm, force, ftol);
            pl_analysis a;
            CHECK(pl_analyze(&m, &p, &a, &err) == PL_OK, "analysis: %s", err.message);
            CHECK(a.nepisodes == 1 && a.info[0].kind == PL_SUSTAINED, "polar = %d, mu = %g: one sustained contact",
                  polar, mu);
            CHECK(a.sliding_force_error < ftol && fabs(a.sliding_force_scale + fsm) < 1e-6,
                  "polar = %d, mu = %g: the analysis's F^sm %g, error %.3g", polar, mu, -a.sliding_force_scale,
                  a.sliding_force_error);
            pl_analysis_free(&a);
            double v[2];
            cartesian(polar, p.q_final, p.v_final, final[polar][c], v);
            pl_solution_free(&p);
            pl_model_free(&m);
        }
    /* The same spring in both coordinate systems: their penalized runs agree far below 1/mu. */
    for (int c = 0; c < 2; c++)
        for (int j = 0; j < 2; j++)
            NEAR(final[0][c][j], final[1][c][j], 1e-7, "mu = %g: Cartesian and polar runs agree, x[%d]", mus[c], j);
}

/* Every scheme converges to the closed form (first order); Paoli's iterates lie in K (its projection is
 * onto the exact K, eq. (7)). */
static void test_schemes(void)
{
    const pl_solver_type *schemes[] = {&pl_solver_moreau_jean, &pl_solver_paoli, &pl_solver_maury};
    const double hs[] = {1e-3, 1e-4};
    for (int polar = 0; polar < 2; polar++)
        for (int s = 0; s < 3; s++) {
            double err_h[2];
            for (int c = 0; c < 2; c++) {
                pl_model m = {0};
                pl_solution r;
                pl_error err;
                err_h[c] = NAN;
                if (!init(&m, polar, 1.0))
                    continue;
                if (solve_scheme(schemes[s], &m, hs[c], 3.0, &r, &err) != PL_OK) {
                    CHECK(0, "%s polar = %d h = %g: %s", schemes[s]->name, polar, hs[c], err.message);
                    pl_solution_free(&r);
                    pl_model_free(&m);
                    continue;
                }
                double sup = 0.0, gmin = 0.0;
                for (size_t row = 0; row < r.traj.nrows; row++) {
                    const double *y = pl_table_row(&r.traj, row);
                    double x[2], v[2], xe[2], ve[2];
                    cartesian(polar, y + 2, y + 4, x, v);
                    exact(y[0], xe, ve);
                    sup = fmax(sup, hypot(x[0] - xe[0], x[1] - xe[1]));
                    gmin = fmin(gmin, y[6]);
                }
                err_h[c] = sup;
                /* Cartesian: a straight flight, whose crossing the interpolated gap finds exactly; polar: curved
                 * in (r, theta), O(h) */
                double tol_t = polar ? 2.0 * hs[c] : 1e-12;
                CHECK(r.nevents >= 1 && fabs(r.events[0].t - T1) <= tol_t, "%s polar = %d h = %g: impact at 0.8 (%.3g)",
                      schemes[s]->name, polar, hs[c], r.nevents ? r.events[0].t - T1 : NAN);
                if (schemes[s] == &pl_solver_paoli)
                    CHECK(gmin > -1e-12, "paoli polar = %d h = %g: iterates in K (min G %.3g)", polar, hs[c], gmin);
                pl_solution_free(&r);
                pl_model_free(&m);
            }
            CHECK(err_h[0] < 3.0 * hs[0] && err_h[1] < 3.0 * hs[1] && err_h[1] < err_h[0],
                  "%s polar = %d: sup distance %.3g at h = 1e-3, %.3g at 1e-4 (O(h))", schemes[s]->name, polar, err_h[0],
                  err_h[1]);
        }
}

/* The default sweep (mu = 1e2 ... 1e10) completes in both coordinate systems, and its distance to the limit
 * falls like the penetration, mu^-1/2. */
static void test_default_sweep(void)
{
    double mu[9];
    for (int k = 0; k < 9; k++)
        mu[k] = pow(10.0, 2 + k);
    for (int polar = 0; polar < 2; polar++) {
        pl_model m = {0};
        pl_sweep sw;
        pl_error err;
        if (!init(&m, polar, 1.0))
            continue;
        pl_sweep_opts o = {.solver = &pl_solver_penalty, .jobs = 2, .with_limit = 1};
        pl_solve_opts_init(&o.base, &pl_solver_penalty, &m, NAN); /* with the default output samples, which
                                                                      catch the deepest penetration */
        CHECK(pl_sweep_run(&m, mu, 9, &o, &sw, &err) == PL_OK, "sweep: %s", err.message);
        CHECK(sw.failures == 0, "polar = %d: no failures", polar);
        const pl_sweep_quantity *sup = &sw.q[PL_Q_LIMIT_SUP_Q];
        CHECK(fabs(sup->conv.rate - 0.5) < 0.02, "polar = %d: sup abs(q^mu - q) ~ mu^-1/2 (rate %.3f)", polar,
              sup->conv.rate);
        pl_sweep_free(&sw);
        pl_model_free(&m);
    }
}

int main(void)
{
    check_init();
    test_parameters();
    test_dynamics();
    test_limit();
    test_penalty();
    test_schemes();
    test_default_sweep();
    return check_finish("test_cup");
}
