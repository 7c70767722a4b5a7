/* Sweeps under Hertz and Hunt-Crossley against the rates derived in docs/laws.md ("Convergence rates"),
 * not against numbers the program printed: impact times lag by the contact time ~ mu^(-1/(n+1)) (Hertz:
 * 2/5), Hertz's restitution and the velocity after its impacts on the ball are exact (energy), a lift-off
 * lags by mu^(-1/(3n-1)) (n = 3/2: 2/7); no accumulation point under laws whose impacts never accumulate,
 * and Hunt-Crossley's capture time grows like ln(mu)/(n g c). */
#include <math.h>

#include "cases/cases.h"
#include "check.h"
#include "laws/law.h"
#include "laws/restitution.h"
#include "solve.h"
#include "study/sweep.h"

#include <stdlib.h>

static void sweep(const pl_case *c, const pl_law_type *law, const pl_setting *s, size_t ns, const double *mu,
                  size_t n, double t_end, double rtol, pl_model *model, pl_sweep *sw)
{
    pl_error err;
    CHECK(pl_model_init_law(model, c, law, s, ns, &err) == PL_OK, "model: %s", err.message);
    pl_sweep_opts o = {.solver = &pl_solver_penalty, .jobs = 2, .with_limit = 1};
    pl_solve_opts_init(&o.base, &pl_solver_penalty, model, t_end);
    o.base.samples = 0;
    if (rtol > 0)
        o.base.option[pl_solver_option_index(&pl_solver_penalty, "rtol")] = rtol;
    CHECK(pl_sweep_run(model, mu, n, &o, sw, &err) == PL_OK, "sweep: %s", err.message);
    CHECK(sw->failures == 0, "no run fails");
}

/* The finer half's fitted rate against the derived one, to 0.02. */
static void rate_near(const pl_sweep *sw, pl_sweep_quantity_id q, double derived)
{
    const pl_sweep_quantity *Q = &sw->q[q];
    NEAR(Q->predicted_rate, derived, 1e-15, "%s: the law's prediction is the derived rate", Q->name);
    NEAR(Q->conv.rate_upper, derived, 0.02, "%s: fitted rate of the finer half", Q->name);
}

static void exact(const pl_sweep *sw, pl_sweep_quantity_id q)
{
    const pl_sweep_quantity *Q = &sw->q[q];
    CHECK(Q->predicted_rate == PL_RATE_EXACT, "%s: predicted exact", Q->name);
    CHECK(Q->conv.at_floor, "%s: equal to its limit at every mu", Q->name);
}

/* Hertz's ball, mu 1e4..1e10: every impact lags by the contact time ~ mu^(-2/5); the restitution is 1 and
 * the speed after each impact the speed before it at every mu (gravity is conservative, the floor fixed);
 * the first contact is reached in free fall: exact; no accumulation estimate (elastic impacts). */
static void hertz_ball(void)
{
    double mu[] = {1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10};
    pl_model m;
    pl_sweep sw;
    sweep(&pl_case_bouncing_ball, &pl_law_hertz, NULL, 0, mu, 7, 10.0, 0.0, &m, &sw);
    rate_near(&sw, PL_Q_IMPACT_TIME_ERROR, 0.4);
    rate_near(&sw, PL_Q_SCALED_PENETRATION_FIRST, 0.4);
    exact(&sw, PL_Q_RESTITUTION_FIRST);
    exact(&sw, PL_Q_IMPACT_VELOCITY_ERROR);
    exact(&sw, PL_Q_FIRST_IMPACT_TIME);
    const pl_sweep_quantity *acc = &sw.q[PL_Q_ACCUMULATION_ESTIMATE];
    CHECK(acc->no_limit != NULL && isnan(acc->conv.limit), "no accumulation point extrapolated");
    for (size_t k = 0; k < 7; k++)
        CHECK(isnan(acc->values[k]) && isnan(sw.analysis[k].accumulation_time), "no accumulation estimate at mu %g",
              mu[k]);
    CHECK(!sw.limit.zeno.found, "the limit solution has no Zeno point");
    pl_sweep_free(&sw);
    pl_model_free(&m);
}

/* Hertz's exact restitution rests on the contact's reversibility in time (one degree of freedom, a fixed
 * obstacle, forces free of t and of the velocity's sign): the double pendulum's bars exchange energy
 * with the normal motion over the contact, so its restitution lags by the contact time, mu^(-2/5), and
 * is not exact (before, it was predicted exact against errors of 3.5e-4 ... 4.2e-5). */
static void hertz_not_reversible(void)
{
    double mu[] = {1e7, 1e8, 1e9, 1e10};
    pl_model m;
    pl_sweep sw;
    sweep(&pl_case_double_pendulum, &pl_law_hertz, NULL, 0, mu, 4, 0.345, 0.0, &m, &sw);
    const pl_sweep_quantity *Q = &sw.q[PL_Q_RESTITUTION_FIRST];
    NEAR(Q->predicted_rate, 0.4, 1e-15, "the double pendulum's restitution: predicted 2/5, not exact");
    for (size_t k = 0; k < 4; k++)
        CHECK(fabs(Q->errors[k]) > 1e-5, "its error at mu %g: %g", mu[k], Q->errors[k]);
    pl_sweep_free(&sw);
    pl_model_free(&m);
}

/* Hertz's restitution is exact also where the contact is self-similar in mu: the wedge (constant mass
 * matrix, affine fixed walls, no force) has two degrees of freedom, and each impact's outcome is the
 * limit's at every mu (predicted 2/5 when only one degree of freedom counted as exact). */
static void hertz_self_similar(void)
{
    double mu[] = {1e4, 1e6, 1e8};
    pl_model m;
    pl_sweep sw;
    sweep(&pl_case_wedge, &pl_law_hertz, NULL, 0, mu, 3, 3.0, 0.0, &m, &sw);
    exact(&sw, PL_Q_RESTITUTION_FIRST);
    exact(&sw, PL_Q_IMPACT_VELOCITY_ERROR);
    pl_sweep_free(&sw);
    pl_model_free(&m);
}

/* A lift-off under Hunt-Crossley (n = 3/2, c = 10 s/m): the table A = 1, omega = 3.2 lifts the mass off
 * at asin(g/(A omega^2))/omega = 0.39999 s, after a contact long enough for the landing's chatter to die
 * (its energy decays at the rate ~ c g whatever mu).  Near the lift-off the load falls linearly and the
 * delay scales as mu^(-1/(3n-1)) = mu^(-2/7); rtol 1e-12 resolves it to mu = 1e14. */
static void lift_off(void)
{
    double mu[] = {1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14};
    pl_setting set[] = {{"c", 10.0}, {"A", 1.0}, {"omega", 3.2}};
    pl_model m;
    pl_sweep sw;
    sweep(&pl_case_vibrating_table, &pl_law_hunt_crossley, set, 3, mu, 9, 0.6, 1e-12, &m, &sw);
    CHECK_NEAR(sw.limit_analysis.lift_off_first, asin(9.81 / (3.2 * 3.2)) / 3.2, 1e-9, "the limit's lift-off");
    rate_near(&sw, PL_Q_LIFT_OFF_FIRST, 2.0 / 7.0);
    for (size_t k = 0; k < 9; k++)
        CHECK(sw.q[PL_Q_LIFT_OFF_FIRST].errors[k] > 0.0, "the penalized mass leaves late at mu %g", mu[k]);
    pl_sweep_free(&sw);
    pl_model_free(&m);
}

/* The sliding force under Hunt-Crossley (n = 3/2, c = 10 s/m, k = 1, unit mass): the mass rests on the
 * table A = 0.5, omega = 4 (A omega^2 = 8 < g: it never lifts off) under the load a(t) = g - A omega^2
 * sin(omega t), the limit's sliding force m a(t).  The penalized contact force is lambda = m (a + delta'')
 * exactly, and once the entry's oscillation has died (at the rate (3/4) c a, whatever mu) the penetration
 * follows the load quasi-statically, delta = (m a/(mu k))^(1/n) (1 + O(c deltadot)): the sweep's sup
 * |lambda - m a| over its window [0.6, 5.4] (t-end 6) is m (m/(mu k))^(1/n) sup |(a^(1/n))''| to
 * relative O(mu^(-1/n)).  rtol 1e-12: at the default 1e-8 the penetration's round-off (|q| ~ A) swamps
 * the lag from mu = 1e9 on (at 1e-12 from 1e10 on). */
static double load_curvature(double t, double g, double A, double w, double p)
{
    double s = sin(w * t), a = g - A * w * w * s, a1 = -A * w * w * w * cos(w * t), a2 = A * w * w * w * w * s;
    return p * (p - 1.0) * pow(a, p - 2.0) * a1 * a1 + p * pow(a, p - 1.0) * a2; /* (a^p)'' */
}

static void hunt_crossley_sliding(void)
{
    enum { NMU = 9 };
    double mu[NMU]; /* 1e5 ... 1e9, half decades */
    size_t nmu = NMU;
    for (size_t k = 0; k < nmu; k++)
        mu[k] = pow(10.0, 5.0 + 0.5 * (double)k);
    double g = 9.81, A = 0.5, w = 4.0, n = 1.5, C = 0.0;
    for (int j = 0; j <= 480000; j++) /* sup over the window, sampled at 1e-5 (the sup is smooth) */
        C = fmax(C, fabs(load_curvature(0.6 + 1e-5 * j, g, A, w, 1.0 / n)));
    pl_setting set[] = {{"c", 10.0}, {"A", A}, {"omega", w}};
    pl_model m;
    pl_sweep sw;
    sweep(&pl_case_vibrating_table, &pl_law_hunt_crossley, set, 3, mu, nmu, 6.0, 1e-12, &m, &sw);
    rate_near(&sw, PL_Q_SLIDING_FORCE_ERROR, 1.0 / n);
    CHECK(sw.q[PL_Q_SLIDING_FORCE_ERROR].predicted_note == NULL, "the rate is predicted");
    for (size_t k = 0; k < nmu; k++)
        CHECK(sw.analysis[k].sliding_load_varies, "mu %g: the load varies over the window", mu[k]);
    const double *err = sw.q[PL_Q_SLIDING_FORCE_ERROR].values;
    for (size_t k = 2; k < nmu; k++)
        NEAR(err[k] / (C * pow(mu[k], -1.0 / n)), 1.0, 0.02, "mu %g: the force lags by m delta'' (%.4e)", mu[k],
             err[k]);
    pl_sweep_free(&sw);
    pl_model_free(&m);
}

/* Under a constant load (the ball started on the floor, c = 10 s/m) the penetration settles to its rest,
 * (m g/(mu k))^(1/n), and lambda - m g = -m delta'' vanishes: after the transient (which decays at
 * (3/4) c g = 73.6/s, within 0.35 s at every mu here, the window starting at 10% of the 3 s contact) the
 * error is the integration's round-off, no rate holds and none is predicted, though the law derives 1/n
 * for a varying load. */
static void hunt_crossley_constant_load(void)
{
    double mu[] = {1e4, 1e5, 1e6, 1e7, 1e8}, g = 9.81;
    pl_setting set[] = {{"h0", 0.0}, {"c", 10.0}};
    pl_model m;
    pl_sweep sw;
    sweep(&pl_case_bouncing_ball, &pl_law_hunt_crossley, set, 2, mu, 5, 3.0, 0.0, &m, &sw);
    const pl_sweep_quantity *f = &sw.q[PL_Q_SLIDING_FORCE_ERROR];
    CHECK(pl_law_hunt_crossley.rate(m.law[0].p, PL_RATE_SLIDING_FORCE) == 1.0 / 1.5, "the law derives 1/n");
    CHECK(isnan(f->predicted_rate) && f->predicted_note != NULL, "no rate predicted under a constant load (%g)",
          f->predicted_rate);
    double rtol = sw.runs[0].option[pl_solver_option_index(&pl_solver_penalty, "rtol")];
    for (size_t k = 0; k < 5; k++) {
        CHECK(!sw.analysis[k].sliding_load_varies, "mu %g: a constant load", mu[k]);
        CHECK(f->values[k] < 100.0 * rtol * g, "mu %g: the error is round-off (%g)", mu[k], f->values[k]);
    }
    pl_sweep_free(&sw);
    pl_model_free(&m);
}

/* Hertz's ball started on the floor: elastic, its resting oscillation never decays, so no run compares its
 * sustained contact (no window, no error) and the sweep says why it predicts no sliding rate. */
static void hertz_resting(void)
{
    double mu[] = {1e4, 1e5, 1e6, 1e7};
    pl_setting set[] = {{"h0", 0.0}};
    pl_model m;
    pl_sweep sw;
    sweep(&pl_case_bouncing_ball, &pl_law_hertz, set, 1, mu, 4, 2.0, 0.0, &m, &sw);
    const pl_sweep_quantity *f = &sw.q[PL_Q_SLIDING_FORCE_ERROR];
    for (size_t k = 0; k < 4; k++) {
        const pl_solution *r = &sw.runs[k];
        CHECK(r->nepisodes >= 1 && sw.analysis[k].info[r->nepisodes - 1].kind == PL_SUSTAINED,
              "mu %g: a sustained contact", mu[k]);
        CHECK(isnan(f->values[k]) && isnan(sw.analysis[k].info[r->nepisodes - 1].window_start),
              "mu %g: no window, no sliding force error (%g)", mu[k], f->values[k]);
    }
    CHECK(isnan(f->predicted_rate) && f->predicted_note != NULL, "no sliding rate predicted, and why");
    pl_sweep_free(&sw);
    pl_model_free(&m);
}

/* Hunt-Crossley's ball (c = 0.1 s/m, g = 9.81): the limit never accumulates, so the capture time has no
 * limit; a penalized run is captured once its impact speed falls to v* ~ mu^(-1/(2n)), after ~1/(c v*)
 * impacts whose flights sum to (2/(g c)) ln(k): it grows by ln(10)/(n g c) = 1.565 s per decade of mu. */
static void hunt_crossley_capture(void)
{
    double mu[] = {1e3, 1e4, 1e5, 1e6, 1e7};
    pl_model m;
    pl_sweep sw;
    sweep(&pl_case_bouncing_ball, &pl_law_hunt_crossley, NULL, 0, mu, 5, 10.0, 0.0, &m, &sw);
    const pl_sweep_quantity *cap = &sw.q[PL_Q_CAPTURE_TIME];
    CHECK(cap->no_limit != NULL && cap->predicted_rate == 0.0, "the capture time has no limit");
    CHECK(isnan(cap->conv.limit), "no extrapolated capture time");
    CHECK(sw.q[PL_Q_ACCUMULATION_ESTIMATE].no_limit != NULL, "no accumulation estimate");
    double slope = log(10.0) / (1.5 * 9.81 * 0.1);
    CHECK_NEAR(sw.capture_per_decade_predicted, slope, 1e-12, "the predicted growth per decade");
    for (size_t k = 0; k + 1 < 5; k++) {
        double step = cap->values[k + 1] - cap->values[k];
        CHECK(step > 0.0, "the capture time grows from mu %g to %g", mu[k], mu[k + 1]);
        NEAR(step, slope, 0.15 * slope, "its growth from mu %g to %g", mu[k], mu[k + 1]);
    }
    CHECK_NEAR(sw.capture_per_decade, slope, 0.03 * slope, "the fitted growth per decade");
    pl_sweep_free(&sw);
    pl_model_free(&m);
}

/* The ball under Hunt-Crossley (c = 1 s/m, h0 = 1, g = 9.81) in the limit, against iterating the map
 * v_(k+1) = e(c v_k) v_k directly (e from pl_restitution_hunt_crossley) with flights 2 v/g.  On [0, 3]: the
 * map gives 285639 impacts; the limit resolves ~7700 and sums the rest in closed form; each resolved impact's rebound is e(c V) V to
 * round-off (the limit's impact of a single contact takes the law's closed-form map).  The tail alone,
 * against the map iterated from the limit's own state where it starts: the count, the last impact's time
 * and rebound speed to its stated bounds.  The whole, against the map from the drop: the count, the height
 * at every row of the trajectory, the last impact (the flights, integrated at rtol 1e-12, leave 1.4e-9 of
 * the last speed and 1.5e-8 s of its time over the 7700 resolved impacts).  On [0, 10] (2.3e20 impacts: before the tail,
 * the solution ran into the output cap after 54 thousand impacts): against the map's impacts to 3 s
 * continued by the leading order 1/v_(k+1) = 1/v_k + c, whose flights sum to
 * (2/(g c)) (psi(a + k) - psi(a)), a = 1/(c v), psi(y) = ln y - 1/(2 y) + O(y^-2). */
typedef struct {
    double *t, *u; /* impact times, rebound speeds after them */
    size_t n;
} bounces;

static void iterate(double c, double g, double h0, double T, bounces *b)
{
    size_t cap = 1u << 20;
    b->t = malloc(cap * sizeof *b->t);
    b->u = malloc(cap * sizeof *b->u);
    CHECK(b->t && b->u, "memory");
    double t = sqrt(2.0 * h0 / g), v = sqrt(2.0 * g * h0);
    b->n = 0;
    while (t <= T && b->n < cap) {
        v *= pl_restitution_hunt_crossley(c * v);
        b->t[b->n] = t;
        b->u[b->n++] = v;
        t += 2.0 * v / g;
    }
}

/* The height at time t of the iterated bounces. */
static double height(const bounces *b, double g, double h0, double t)
{
    if (b->n == 0 || t < b->t[0])
        return h0 - 0.5 * g * t * t;
    size_t lo = 0, hi = b->n; /* the last impact at or before t */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        *(b->t[mid] <= t ? &lo : &hi) = mid;
    }
    double s = t - b->t[lo];
    return fmax(0.0, b->u[lo] * s - 0.5 * g * s * s);
}

static void hunt_crossley_tail(void)
{
    double c = 1.0, g = 9.81, h0 = 1.0;
    pl_setting set[] = {{"c", c}};
    pl_model m;
    pl_error err = {0};
    pl_solution sol;
    CHECK(pl_model_init_law(&m, &pl_case_bouncing_ball, &pl_law_hunt_crossley, set, 1, &err) == PL_OK, "%s", err.message);
    CHECK(solve_limit(&m, 1e-12, 3.0, 0, &sol, &err) == PL_OK, "the limit on [0, 3]: %s", err.message);
    bounces b;
    iterate(c, g, h0, 3.0, &b);
    CHECK(b.n == 285639, "%zu impacts on [0, 3] by the map", b.n);
    CHECK(sol.tail.found && sol.tail.impacts > 0.9 * (double)b.n, "the tail summed (%g impacts)", sol.tail.impacts);
    CHECK((double)sol.nevents + sol.tail.impacts == (double)b.n, "impacts: %zu resolved + %.0f summed, the map %zu",
          sol.nevents, sol.tail.impacts, b.n);
    NEAR(sol.tail.speed_last, b.u[b.n - 1], 1e-8 * b.u[b.n - 1], "the last rebound speed");
    NEAR(sol.tail.t_last, b.t[b.n - 1], 1e-7, "the last impact's time");
    /* every resolved impact's rebound from the closed-form map at its own approach speed */
    double worst = 0.0;
    for (size_t k = 0; k < sol.nevents; k++) {
        const pl_event *ev = &sol.events[k];
        double V = -ev->gdot_before;
        worst = fmax(worst, fabs(ev->gdot_after - pl_restitution_hunt_crossley(c * V) * V) / V);
    }
    CHECK(worst <= 1e-15, "the resolved rebounds follow e(c V) V to %.3g of V", worst);
    /* the tail alone, from the last resolved impact */
    const pl_event *last = &sol.events[sol.nevents - 1];
    double t = last->t, u = last->gdot_after;
    size_t k = 0;
    for (; t + 2.0 * u / g <= 3.0; k++) {
        t += 2.0 * u / g;
        u *= pl_restitution_hunt_crossley(c * u);
    }
    CHECK(sol.tail.t_start == last->t && (double)k == sol.tail.impacts, "the tail: %.0f impacts, the map %zu",
          sol.tail.impacts, k);
    NEAR(sol.tail.t_last, t, 1e-13 + sol.tail.time_error, "the tail's last impact");
    NEAR(sol.tail.speed_last, u, (1e-12 + sol.tail.speed_error) * u, "the tail's last rebound speed");
    size_t nq = 0;
    for (size_t r = 0; r < sol.traj.nrows; r++, nq++) {
        const double *row = pl_table_row(&sol.traj, r);
        NEAR(row[pl_col_q(1, 1)], height(&b, g, h0, row[0]), 1e-9, "the height at t = %.17g (row %zu)", row[0], r);
    }
    CHECK(nq > 1000, "%zu rows compared", nq);
    NEAR(sol.q_final[0], height(&b, g, h0, 3.0), 1e-12, "the height at t-end");
    pl_solution_free(&sol);

    CHECK(solve_limit(&m, 1e-12, 10.0, 0, &sol, &err) == PL_OK, "the limit on [0, 10]: %s", err.message);
    double a = 1.0 / (c * b.u[b.n - 1]), rest = 10.0 - b.t[b.n - 1];
    double more = a * expm1(0.5 * g * c * rest - 0.5 / a);
    double total = (double)b.n + more, counted = (double)sol.nevents + sol.tail.impacts;
    NEAR(counted / total, 1.0, 1e-6, "impacts on [0, 10]: %.9g counted, %.9g from the map", counted, total);
    CHECK(counted > 2e20 && counted < 3e20, "about 2e20 impacts on [0, 10]: %g", counted);
    CHECK(sol.status == PL_OK && sol.t_final == 10.0 && !sol.zeno.found, "reaches t-end without a Zeno point");
    pl_solution_free(&sol);
    free(b.t);
    free(b.u);
    pl_model_free(&m);
}

int main(void)
{
    check_init();
    hertz_ball();
    hertz_not_reversible();
    hertz_self_similar();
    lift_off();
    hunt_crossley_sliding();
    hunt_crossley_constant_load();
    hertz_resting();
    hunt_crossley_capture();
    hunt_crossley_tail();
    return check_finish("test_law_rates");
}
