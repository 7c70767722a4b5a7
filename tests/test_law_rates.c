/* Sweeps under Hertz and Hunt-Crossley against the rates derived in docs/laws.md ("Convergence rates"),
 * not against numbers the program printed: impact times lag by the contact time ~ mu^(-1/(n+1)) (Hertz:
 * 2/5), Hertz's restitution and the velocity after its impacts on the ball are exact (energy), a lift-off
 * lags by mu^(-1/(3n-1)) (n = 3/2: 2/7); no accumulation point under laws whose impacts never accumulate,
 * and Hunt-Crossley's capture time grows like ln(mu)/(n g c). */
#include <math.h>

#include "cases/cases.h"
#include "check.h"
#include "laws/law.h"
#include "study/sweep.h"

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

int main(void)
{
    check_init();
    hertz_ball();
    lift_off();
    hunt_crossley_capture();
    return check_finish("test_law_rates");
}
