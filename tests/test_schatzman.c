/* Ballard's example 2 (ARMA 2000, section 5.2): a unit mass on G = -q >= 0, elastic, pushed by the force
 * f of eq. (41), started at the paper's time a_N on the bouncing branch (42).  Derived here from the
 * paper's construction, independently of the case's code:
 *
 *   - a_n = sum_{i >= n} (i + 5)^2/((i + 1)(i + 2)(i + 3)(i + 4)), summed directly (the case uses the
 *     partial fractions);
 *   - on [a_{n+1}, a_n] the mass leaves q = 0 at v_{n+1} = -1/(n + 4)! and returns at a_n with
 *     v^- = v_{n+1} + (f_n/2) L_n int rho = 1/(n + 3)!, f_n = 1/n!, L_n = 2(n + 5)/((n+1)...(n+4));
 *   - the bump's normalisation: int_0^1 exp(-1/(x(1 - x))) dx by GSL quadrature.
 *
 * The penalized elastic contact (xi = 0, no force during it: f is flat at every a_n) lasts exactly
 * tau = pi/sqrt(k mu) and returns the speed exactly.  The mass then flies tau later than the rigid one
 * with the same velocity (v' = f(t) for both), so it is ahead by tau |v| and arrives at the next impact
 * early: with s_n the advance of the entry at a_n, s_{N-1} = 0 and, from the exit at a_{n+1} - s_{n+1} +
 * tau with speed 1/(n + 4)! against a return speed 1/(n + 3)!, s_n = (tau - s_{n+1})/(n + 4) (while
 * tau < delta_n, the force-free stretch after each impact). */
#include <gsl/gsl_integration.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "solve.h"
#include "study/sweep.h"

/* a_n by the series, n <= 20: summed backward to I = 1e6, with the tail sum_{i >= I} t_i =
 * sum 1/i^2 - 10/i^4 + ... = 1/(I - 1/2) + O(1/I^3) (t_i = 1/i^2 (1 - 10/i^2 + O(1/i^3))). */
static double a_series(int n)
{
    static double a[21];
    static int done;
    if (!done) {
        const int I = 1000000;
        double s = 1.0 / (I - 0.5);
        for (int i = I - 1; i >= 0; i--) {
            double d = (double)i;
            s += (d + 5) * (d + 5) / ((d + 1) * (d + 2) * (d + 3) * (d + 4));
            if (i <= 20)
                a[i] = s;
        }
        done = 1;
    }
    return a[n];
}

static double factorial(int n)
{
    double f = 1.0;
    for (int k = 2; k <= n; k++)
        f *= k;
    return f;
}

static int init(pl_model *m, int N, double e)
{
    pl_model_free(m); /* the model this variable held before */
    pl_error err;
    pl_setting s[] = {{"N", (double)N}, {"e", e}};
    int ok = pl_model_init(m, &pl_case_schatzman, s, 2, &err) == PL_OK;
    CHECK(ok, "schatzman N = %d: %s", N, err.message);
    return ok;
}

static double bump(double x, void *p)
{
    (void)p;
    return x > 0.0 && x < 1.0 ? exp(-1.0 / (x * (1.0 - x))) : 0.0;
}

/* The model's force at the paper's time s (the case's time is s - a_N). */
static double force_at(double s, void *p)
{
    const pl_model *m = p;
    double q = 0.0, v = 0.0, a;
    accel_once(m, s - a_series((int)pl_model_param(m, "N")), &q, &v, &a, NULL, NULL);
    return a;
}

/* The force: zero over the stretch delta_n after a_{n+1}, its integral over [a_{n+1}, a_n] the velocity
 * change 1/(n + 3)! + 1/(n + 4)!, and the bump's normalisation C against quadrature. */
static void test_force(void)
{
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
    double I, abserr;
    gsl_function F = {bump, NULL};
    CHECK(gsl_integration_qags(&F, 0.0, 1.0, 0.0, 1e-13, 1000, w, &I, &abserr) == 0, "quadrature of the bump");
    CHECK_NEAR(1.0 / I, 142.2504, 1e-4, "C = 1/int exp(-1/(x(1 - x))) (the notes' 142.2504)");
    pl_model m = {0};
    if (init(&m, 6, 1.0)) {
        CHECK_NEAR(a_series(0), 65.0 / 36.0, 1e-13, "a_0 = T = 65/36");
        for (int n = 0; n < 6; n++) {
            double lo = a_series(n + 1), hi = a_series(n), d = (n + 5.0) / ((n + 1.0) * (n + 2.0) * (n + 4.0));
            double L = 2.0 * (n + 5.0) / ((n + 1.0) * (n + 2.0) * (n + 3.0) * (n + 4.0));
            NEAR(hi - lo - d, L, 1e-14, "L_n = a_n - a_{n+1} - delta_n, n = %d", n);
            CHECK(force_at(lo + 0.999 * d, &m) == 0.0 && force_at(lo + 1e-3 * d, &m) == 0.0,
                  "f = 0 on [a_{n+1}, a_{n+1} + delta_n], n = %d", n);
            /* peak at the middle of the pulse: (f_n/2) C e^-4 */
            NEAR(force_at(lo + d + 0.5 * L, &m), 0.5 / factorial(n) * exp(-4.0) / I, 1e-12 / factorial(n),
                 "peak of the pulse, n = %d", n);
            gsl_function Fm = {force_at, &m};
            double J;
            CHECK(gsl_integration_qags(&Fm, lo + d, hi, 1e-16, 1e-12, 1000, w, &J, &abserr) == 0, "quadrature");
            NEAR(J, 1.0 / factorial(n + 3) + 1.0 / factorial(n + 4), 1e-11 / factorial(n + 3),
                 "velocity change over [a_{n+1}, a_n], n = %d", n);
        }
        CHECK(force_at(a_series(0) + 0.01, &m) == 0.0, "f = 0 beyond a_0");
    }
    /* The scales: A bounds the force (free acceleration) over the whole run, the last pulse's peak C e^-4/2
     * included (A was the first pulse's peak, (N - 1)! times smaller), and the forcing time is at most
     * half the shortest pulse still to come (0 after a_0). */
    const int Ns[] = {1, 4, 9};
    for (int c = 0; c < 3; c++) {
        if (!init(&m, Ns[c], 1.0))
            continue;
        double aN = a_series(Ns[c]), f_max = 0.0;
        for (int k = 0; k <= 200000; k++)
            f_max = fmax(f_max, force_at(aN + (a_series(0) - aN) * k / 200000.0, &m));
        NEAR(f_max, 0.5 * exp(-4.0) / I, 1e-6 * f_max, "N = %d: the largest force, the last pulse's peak", Ns[c]);
        CHECK(f_max <= m.a_scale, "N = %d: A = %g bounds the force (max %g)", Ns[c], m.a_scale, f_max);
        for (int n = Ns[c] - 1; n >= 0; n--) {
            double L = 2.0 * (n + 5.0) / ((n + 1.0) * (n + 2.0) * (n + 3.0) * (n + 4.0));
            double h = pl_model_max_step(&m, a_series(n + 1) - aN + 1e-9);
            CHECK(h > 0.1 * L && h <= 0.5 * L, "N = %d: forcing time %g in (0.1, 0.5] L_%d = %g", Ns[c], h, n, L);
        }
        CHECK(pl_model_max_step(&m, a_series(0) - aN + 1e-9) == 0.0, "N = %d: no forcing time after a_0", Ns[c]);
    }
    gsl_integration_workspace_free(w);
    pl_model_free(&m);
}

/* The limit solution: N impacts, at a_n - a_N with v^- = 1/(n + 3)! and v^+ = -v^-, n = N-1, ..., 0. */
static void test_limit(void)
{
    const int Ns[] = {1, 4, 6, 9};
    for (size_t c = 0; c < sizeof Ns / sizeof Ns[0]; c++) {
        int N = Ns[c];
        pl_model m = {0};
        pl_solution r;
        pl_error err;
        if (!init(&m, N, 1.0))
            continue;
        double aN = a_series(N);
        CHECK_NEAR(pl_model_limit_value(&m, PL_LIMIT_FIRST_IMPACT_TIME), a_series(N - 1) - aN, 1e-13,
                   "limit_value: first impact time");
        int ok = solve_limit(&m, 1e-12, 0.0, 0, &r, &err) == PL_OK;
        CHECK(ok, "N = %d: limit solution: %s", N, err.message);
        if (ok) {
            size_t k = 0;
            for (size_t j = 0; j < r.nevents; j++) {
                const pl_event *e = &r.events[j];
                if (e->kind != PL_EVENT_IMPACT)
                    continue;
                int n = N - 1 - (int)k;
                if (n >= 0) {
                    double v = 1.0 / factorial(n + 3);
                    NEAR(e->t, a_series(n) - aN, 1e-9 * (a_series(n) - aN), "N = %d: impact at a_%d", N, n);
                    NEAR(e->v_before[0], v, 1e-9 * v, "N = %d: v^- = 1/(%d + 3)!", N, n);
                    NEAR(e->v_after[0], -v, 1e-9 * v, "N = %d: v^+ = -1/(%d + 3)!", N, n);
                }
                k++;
            }
            CHECK(k == (size_t)N, "N = %d: %zu impacts (%d expected)", N, k, N);
            double qmax = -INFINITY, qabs = 0.0; /* q <= 0 to the round-off of the largest excursion */
            for (size_t row = 0; row < r.traj.nrows; row++) {
                double q = pl_table_row(&r.traj, row)[pl_col_q(1, 1)];
                qmax = fmax(qmax, q);
                qabs = fmax(qabs, fabs(q));
            }
            CHECK(qmax <= 1e-14 * qabs, "N = %d: q <= 0 throughout (max %g of %g)", N, qmax, qabs);
            /* after a_0 the mass leaves at -1/3! under no force */
            NEAR(r.v_final[0], -1.0 / 6.0, 1e-12, "N = %d: final velocity", N);
            NEAR(r.q_final[0], -(2.0 - (a_series(0) - aN)) / 6.0, 1e-11, "N = %d: final position", N);
        }
        pl_solution_free(&r);
        pl_model_free(&m);
    }
}

/* An overdamped law (xi = 5, e ~ 0) makes the impacts plastic: the mass stays on q = 0 while the bump
 * of f presses it, and its sliding force fades with the bump, flat to all orders (2e-13, 1e-55, 3e-143,
 * then rows of -0), before the lift-off's root.  The force has no rate there: the resolution of the
 * lift-off's time from the rate on the secant came out 5.6e36 and infinite, and summary.json could not
 * be written.  Now each lift-off's resolution is finite and reaches back no further than the last row
 * where the force is still above 1e-9 of the slide's largest (before it the contact is certainly on). */
static void test_fading_lift_off(void)
{
    pl_model m = {0};
    pl_error err;
    pl_setting s[] = {{"N", 4}, {"xi", 5}};
    if (pl_model_init(&m, &pl_case_schatzman, s, 2, &err) != PL_OK) {
        CHECK(0, "schatzman xi = 5: %s", err.message);
        return;
    }
    pl_solution r;
    int ok = solve_limit(&m, 1e-12, 0.0, 0, &r, &err) == PL_OK;
    CHECK(ok, "xi = 5: limit solution: %s", ok ? "" : err.message);
    size_t lift_offs = 0;
    for (size_t j = 0; ok && j < r.nevents; j++) {
        const pl_event *e = &r.events[j];
        if (e->kind != PL_EVENT_LIFT_OFF)
            continue;
        lift_offs++;
        double largest = 0.0, on = NAN;
        for (size_t row = 0; row < r.traj.nrows && pl_table_row(&r.traj, row)[0] < e->t; row++)
            largest = fmax(largest, fabs(pl_solution_force_at(&r, row, 0)));
        for (size_t row = 0; row < r.traj.nrows && pl_table_row(&r.traj, row)[0] < e->t; row++)
            if (fabs(pl_solution_force_at(&r, row, 0)) > 1e-9 * largest)
                on = pl_table_row(&r.traj, row)[0];
        CHECK(isfinite(e->t_resolution) && e->t_resolution > 0.0 && e->t - e->t_resolution >= on,
              "xi = 5: the lift-off at t = %.9g resolved to %g, within the rows after the force's last "
              "value above its round-off (t = %.9g)", e->t, e->t_resolution, on);
    }
    CHECK(!ok || lift_offs >= 2, "xi = 5: %zu lift-offs", lift_offs);
    pl_solution_free(&r);
    pl_model_free(&m);
}

/* A penalty sweep: the impact speeds are exact at every mu (to the tolerance), the entries advance by
 * the s_n above, and the distances to the limit fall like mu^-1/2. */
static void test_penalty(void)
{
    const int Ns[] = {4, 6};
    double mu[] = {1e6, 1e7, 1e8, 1e9, 1e10};
    const size_t nmu = sizeof mu / sizeof mu[0];
    for (size_t c = 0; c < 2; c++) {
        int N = Ns[c];
        pl_model m = {0};
        pl_sweep sw;
        pl_error err;
        if (!init(&m, N, 1.0))
            continue;
        pl_sweep_opts o = {.solver = &pl_solver_penalty, .jobs = 2, .with_limit = 1};
        pl_solve_opts_init(&o.base, &pl_solver_penalty, &m, NAN);
        o.base.samples = 0;
        if (pl_sweep_run(&m, mu, nmu, &o, &sw, &err) != PL_OK) {
            CHECK(0, "sweep N = %d: %s", N, err.message);
            continue;
        }
        CHECK(sw.failures == 0, "N = %d: no failures", N);
        double aN = a_series(N);
        for (size_t j = 0; j < nmu; j++) {
            const pl_solution *r = &sw.runs[j];
            double tau = M_PI / sqrt(mu[j]), s = 0.0;
            CHECK(r->nepisodes == (size_t)N, "N = %d, mu = %g: %zu contacts", N, mu[j], r->nepisodes);
            for (size_t k = 0; k < r->nepisodes && k < (size_t)N; k++) {
                int n = N - 1 - (int)k;
                const pl_episode *ep = &r->episodes[k];
                double v = 1.0 / factorial(n + 3);
                if (k > 0)
                    s = (tau - s) / (n + 4.0);
                NEAR(-ep->gdot_in, v, 1e-8 * v, "N = %d, mu = %g: speed into a_%d", N, mu[j], n);
                NEAR(ep->gdot_out, v, 1e-8 * v, "N = %d, mu = %g: speed out of a_%d", N, mu[j], n);
                NEAR(ep->t_in, a_series(n) - aN - s, 1e-9, "N = %d, mu = %g: entry at a_%d - s_%d", N, mu[j], n, n);
                NEAR(ep->t_out - ep->t_in, tau, 1e-9, "N = %d, mu = %g: contact lasts pi/sqrt(mu)", N, mu[j]);
            }
        }
        const pl_sweep_quantity *sup = &sw.q[PL_Q_LIMIT_SUP_Q], *ti = &sw.q[PL_Q_IMPACT_TIME_ERROR];
        CHECK(fabs(sup->conv.rate - 0.5) < 0.02 && fabs(ti->conv.rate - 0.5) < 0.02,
              "N = %d: sup |q - q_lim| and impact times converge like mu^-1/2 (rates %.3f, %.3f)", N, sup->conv.rate,
              ti->conv.rate);
        pl_sweep_free(&sw);
        pl_model_free(&m);
    }
}

int main(void)
{
    check_init();
    test_force();
    test_limit();
    test_fading_lift_off();
    test_penalty();
    return check_finish("test_schatzman");
}
