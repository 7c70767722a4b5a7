/* Step aiming (the Runge-Kutta stepper's aim hook, stepper_rk.c "Aiming"): each constraint's gap model
 * (gap_model.h) fitted over the last step, and the earliest root it predicts in the next one; under a
 * nonlinear law, the bound on a step before a contact's exit (pen_exit_bound). */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <math.h>

#include "core/gsl_ode.h"
#include "core/rootfind.h"
#include "solvers/penalty/engine.h"

/* Each constraint's gap model (gap_model.h) fitted over the step that ended at (t, y): from the gaps
 * and rates at the last step start to those at t, if the contact modes stayed the same; w = 0 for
 * an inactive constraint, omega_i for the one active constraint (with several, their contacts are
 * coupled and none is modelled). */
static void fit_gap_models(run_ctx *c, double t, const double *y)
{
    double *g = c->aim_g[0], *gdot = c->aim_gdot[0];
    c->aim_g[0] = c->aim_g[1], c->aim_gdot[0] = c->aim_gdot[1];
    c->aim_g[1] = g, c->aim_gdot[1] = gdot;
    c->aim_t[0] = c->aim_t[1], c->aim_modes[0] = c->aim_modes[1];
    c->aim_t[1] = t, c->aim_modes[1] = c->modes;
    const pl_gap *gaps = pen_geometry_at(c, t, y);
    int history = c->aim_modes[0] == c->modes && c->aim_t[0] < t;
    /* those left out of the neighbour list are not fitted, their values NAN (pen_neighbours_rebuild):
     * no history for a first fit once they are near again */
    for (size_t k = 0, count = pen_near_count(c); k < count; k++) {
        size_t i = pen_near_at(c, k);
        g[i] = gaps[i].g;
        gdot[i] = c->geometry_gdot[i];
        /* the linear oscillator's roots are aimed at under a linear law only */
        double w = !c->field.active[i]                                                   ? 0.0
                   : c->single_active == i && pl_law_is_linear(&c->model->law[i]) ? c->omega[i]
                                                                                      : NAN;
        c->fitted[i] = history && !isnan(w) &&
                       pl_gap_model_fit(&c->gap_model[i], w, c->model->law[i].xi, c->aim_t[0], c->aim_g[0][i],
                                        c->aim_gdot[0][i], t, g[i], gdot[i]);
    }
}

/* Models that held to this over the last step (relative error of the predicted rate) aim steps. */
#define AIM_MODEL_ERROR 1e-6

/* The stepper's `aim` hook (stepper_rk.c, "Aiming"): the earliest root in (t, t + h] predicted on
 * the gap models: an entry (G_i = -noise, inactive) or an exit (G_i = +noise) of the one active
 * constraint, or its force's sign change (the force root of roots) before an exit in the step.
 * (A sign change alone is not aimed at: the step would go on through it, and a step more costs
 * about what its location saves.)  The aim keeps the force root's hysteresis force_noise: set by the
 * round-off of q, it moves the root by up to 1e-4 of a step in small impacts, and a step aimed short
 * of it would let the next one span the root, the exit and the force's return past the exit, and
 * lose the kink (the ball's last bounces at mu = 1e10).  The uncertainty: four times the model's
 * relative error over the prediction's span. */
double pen_aim(double t, const double *y, double h, int *k, double *uncertainty, void *user)
{
    run_ctx *c = user;
    if (t != c->aim_t[1] || c->modes != c->aim_modes[1])
        fit_gap_models(c, t, y);
    double first = NAN;
    for (size_t e = 0, count = pen_near_count(c); e < count; e++) {
        size_t i = pen_near_at(c, e);
        const pl_gap_model *model = &c->gap_model[i];
        if (!c->fitted[i] || !(model->error <= AIM_MODEL_ERROR))
            continue;
        int active = c->field.active[i];
        double noise = pen_noise_of_gap(c, &c->geometry[i], Q(y)), kink = NAN, g, gdot;
        double level = active ? pen_exit_level(c, i, noise) : -noise;
        if (active && !pl_gap_model_may_rise_to(model, level))
            continue; /* a sustained contact: no exit */
        pl_gap_model_at(model, t + h, &g, &gdot);
        double te = pl_gap_model_root(model, 1.0, 0.0, level, t + h, g, gdot);
        if (active && !isnan(te)) {
            /* lambda_i = -m_eff k (mu G + d Gdot) = -force_side force_noise */
            pl_contact *ct = c->field.contact;
            pl_model_contact_at(c->model, c->field.work, i, t, Q(y), c->fp_geometry, ct);
            double target = c->force_side[i] * c->force_noise[i] / (ct->m_eff * c->model->law[i].k);
            pl_gap_model_at(model, te, &g, &gdot);
            kink = pl_gap_model_root(model, c->mu, c->field.damping[i], target, te, g, gdot);
        }
        int kk = (int)i;
        if (kink < te)
            te = kink, kk = (int)(c->m + i);
        if (te < first || (isnan(first) && !isnan(te))) {
            first = te;
            *k = kk;
            *uncertainty = 4.0 * model->error * (te - t);
        }
    }
    return first;
}

/* ---- the exit of a contact under a nonlinear law ------------------------------------------- */

/* The contact's fast system G'' = D + lambda(G, G')/m_eff: D the free gap acceleration (without the
 * contact's own force) and m_eff frozen at the step's start. */
typedef struct {
    const pl_contact_law *law;
    double mu, pre, m_eff, D;
} fast_system;

static double fast_force(const fast_system *f, const double y[2])
{
    return pl_law_force(f->law, f->mu, f->pre, f->m_eff, y[0], y[1], NULL, NULL);
}

static int fast_rhs(double s, const double y[], double dydt[], void *params)
{
    (void)s;
    const fast_system *f = params;
    dydt[0] = y[1];
    dydt[1] = f->D + fast_force(f, y) / f->m_eff;
    return isfinite(dydt[1]) ? GSL_SUCCESS : GSL_EBADFUNC;
}

/* The exit's function at time s on the fast system, re-integrated from (s0, y0) by `driver`: G - level,
 * or the force (a clamped law's kink), whichever `kink` says. */
typedef struct {
    gsl_odeiv2_driver *driver;
    const fast_system *f;
    double s0, y0[2], level;
    int kink;
} exit_search;

static double exit_function(double s, void *params)
{
    exit_search *x = params;
    double y[2] = {x->y0[0], x->y0[1]}, t = x->s0;
    if (s > t && (gsl_odeiv2_driver_reset_hstart(x->driver, 0.1 * (s - t)) != GSL_SUCCESS ||
                  gsl_odeiv2_driver_apply(x->driver, &t, s, y) != GSL_SUCCESS))
        return NAN;
    return x->kink ? fast_force(x->f, y) : y[0] - x->level;
}

/* A clamped force is 0 past its kink, not of the opposite sign: bisection on its sign, from the
 * bracket (x->s0, s1] to a width of tol; the point just past the kink. */
static double kink_by_bisection(exit_search *x, double s1, double tol)
{
    double a = x->s0, b = s1;
    while (b - a > tol) {
        double c = 0.5 * (a + b), f = exit_function(c, x);
        if (isnan(f))
            return NAN;
        if (c <= a || c >= b)
            break; /* the bracket is down to round-off */
        *(f > 0.0 ? &a : &b) = c;
    }
    return b;
}

/* The time from the state (g, gdot) at which the contact's force stops pushing on its fast system:
 * G rises to `level` (the exit), or lambda falls to 0 before it (a clamped law's kink: *kink = 1);
 * NAN if neither happens within `horizon` (or the integration fails).  GSL's rkf45 to 1e-10 of the
 * state's scales brackets it.  A crossing within `refine` (where a step will land on it) is then
 * located by re-integrating from the bracket's start (rk8pd; Illinois, or bisection for a kink, to
 * 1e-9 of the horizon): interpolated linearly within the bracket, a clamped law's kink fell up to
 * 1.2e-8 s late at mu = 1e10 (4e-4 of the contact), and a step landed past it crossed the kink by that
 * much, failing its error test by factors of 1e3.  Farther crossings only bound a step: interpolated. */
static double fast_exit(fast_system *f, double g, double gdot, double level, double horizon, double refine, int *kink)
{
    gsl_odeiv2_system sys = {fast_rhs, NULL, 2, f};
    double y[2] = {g, gdot}, s = 0.0, hs = 1e-3 * horizon, found = NAN;
    double scale = fabs(g) + fabs(gdot) * horizon, force = fast_force(f, y);
    gsl_odeiv2_step *step = gsl_odeiv2_step_alloc(gsl_odeiv2_step_rkf45, 2);
    gsl_odeiv2_control *control = pl_odeiv2_control_y_new(1e-10 * scale, 1e-10);
    gsl_odeiv2_evolve *evolve = gsl_odeiv2_evolve_alloc(2);
    if (step && control && evolve && g < level && force > 0.0)
        for (int it = 0; it < 10000 && s < horizon; it++) {
            exit_search x = {NULL, f, s, {y[0], y[1]}, level, 0};
            if (gsl_odeiv2_evolve_apply(evolve, control, step, &sys, &s, horizon, &hs, y) != GSL_SUCCESS)
                break;
            double f0 = NAN, f1 = NAN;
            if (y[0] >= level)
                f0 = x.y0[0] - level, f1 = y[0] - level;
            else if (!((force = fast_force(f, y)) > 0.0))
                x.kink = 1, f0 = fast_force(f, x.y0), f1 = force;
            if (isnan(f0))
                continue;
            *kink = x.kink;
            found = x.s0 + (s - x.s0) * f0 / (f0 - f1);
            if (s <= refine &&
                (x.driver = pl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, 0.1 * (s - x.s0), 1e-12 * scale,
                                                          1e-12))) {
                found = x.kink ? kink_by_bisection(&x, s, 1e-9 * horizon)
                               : pl_illinois(exit_function, &x, x.s0, f0, s, f1, 1e-9 * horizon);
                gsl_odeiv2_driver_free(x.driver);
            }
            break;
        }
    gsl_odeiv2_evolve_free(evolve);
    gsl_odeiv2_control_free(control);
    gsl_odeiv2_step_free(step);
    return found;
}

/* The loop's max_step hook on the Runge-Kutta pair in contact under a nonlinear law (0: no bound).
 * Its force is not smooth at delta = 0 (delta^n, n not an integer; a clamped force's kink): next to
 * an entry or an exit the pair's local error falls like h^(n+1) rather than h^9, and a step that
 * crosses the exit fails its error test by factors of 1e3 (bench_laws: 10 rejections per Hertz impact
 * at the exit, each shrinking the next step).  The exit is predicted on the contact's fast system
 * (fast_exit), and the step ends no later than the entry's first step h1 before it (the step that
 * touches the kink at the entry was accepted at h1; the exit's mirrors it), or, within 1.5 h1 of the
 * exit, 1e-3 h1 past it (the root is then located in the step; the margin covers the prediction's
 * error, so that a late prediction does not leave a sliver of contact to a step of its own).  A
 * clamped force's kink, 1e-7 h1 past it: there the acceleration's derivative jumps, and the velocity's
 * error grows like the square of the overshoot (at 1e-3 h1 past the kink the step failed its error
 * test by 300 at mu = 1e10, and the steps approached the kink halving, one rejection each).  A
 * prediction off by a little costs a short step, never accuracy: the error test judges every step as
 * before.  Linear laws aim at the exit (pen_aim) instead. */
double pen_exit_bound(run *r, double t)
{
    run_ctx *c = &r->ctx;
    size_t i = c->single_active;
    c->singular_order = NAN;
    if (i >= c->m || pl_law_is_linear(&c->model->law[i]) || c->lifting[i] || r->open[i] < 0)
        return 0.0;
    const pl_episode *ep = &r->sol->episodes[r->open[i]];
    const double *y = r->loop.stepper->y;
    const pl_gap *gaps = pen_geometry_at(c, t, y);
    double g = gaps[i].g, gdot = c->geometry_gdot[i];
    double T = pl_law_contact_time(&c->model->law[i], c->mu, fmax(fabs(gdot), c->model->v_scale));
    /* the entry's first step: the first beyond 1e-6 of the contact time (an entry may be
     * restarted an ulp after its root) */
    if (r->entry_episode[i] != r->open[i]) {
        if (!(t - ep->t_in > 1e-6 * T))
            return 0.0;
        r->entry_episode[i] = r->open[i];
        r->entry_step[i] = t - ep->t_in;
        r->entry_time[i] = pl_law_contact_time(&c->model->law[i], c->mu, fabs(ep->gdot_in));
    }
    pl_contact *ct = c->field.contact;
    pl_model_contact_at(c->model, c->field.work, i, t, Q(y), c->fp_geometry, ct);
    /* D frozen: where it varies over the contact a kink's landing misses by up to 4.5e-2 h1 (the
     * vibrating table; its margin is 1e-7 h1), which costs a rejected step, not accuracy.  D's rate from
     * the last step's start did not measurably help: final-state errors of the clamped table and double
     * pendulum at rtol 1e-6 ... 1e-10 within 0.5 to 7 times either way. */
    double D = pl_model_free_gap_accel(c->model, c->field.work, i, t, Q(y), V(y, c));
    fast_system f = {&c->model->law[i], c->mu, c->field.damping[i], ct->m_eff, D};
    double level = pen_exit_level(c, i, pen_noise_of_gap(c, &c->geometry[i], Q(y)));
    if (!(f.m_eff > 0.0) || !isfinite(f.D) || !(T > 0.0))
        return 0.0;
    int kink = 0;
    double h1 = r->entry_step[i], d = fast_exit(&f, g, gdot, level, 2.0 * T, 1.5 * h1, &kink);
    double n = c->model->law[i].type->exponent(c->model->law[i].p);
    double V_in = fabs(ep->gdot_in), T_in = pl_law_contact_time(&c->model->law[i], c->mu, V_in);
    /* The singular point's error model (stepper_rk.c) holds for a real impact only: n not within 0.1
     * of an integer (the singular term's coefficient vanishes with n - 1, n - 2, ...), an exit
     * predicted, and the regular forces negligible over the contact (|D| T < 0.3 V: a grazing entry's
     * penetration grows like (t - t_in)^(2n + 2), not (t - t_in)^(n + 2)). */
    if (fabs(n - round(n)) >= 0.1 && isfinite(d) && fabs(f.D) * T_in <= 0.3 * V_in) {
        c->singular_order = n + 2.0;
        c->singular_behind = ep->t_in;
        c->singular_ahead = t + d;
    }
    if (!(d > 1e-3 * h1))
        return 0.0; /* no exit predicted, or one closer than the margin below */
    return d <= 1.25 * 0.8 * h1 ? d + (kink ? 1e-7 : 1e-3) * h1 : d - 0.8 * h1;
}

/* The first step into a contact under a nonlinear law (initial_step, penalty.c), 0 if there is no
 * better guess than the pair's: the first step of the constraint's last contact (pen_exit_bound), scaled
 * by the law's contact time at the two entry speeds.  The local error of that step falls like h^(n+1)
 * (see pen_exit_bound), and a guess from the oscillator's frequency is rejected about 7 times at the
 * bouncing ball's Hertz impacts before it shrinks to the one accepted. */
double pen_entry_step(run *r, double t)
{
    run_ctx *c = &r->ctx;
    size_t i = c->single_active;
    if (i >= c->m || pl_law_is_linear(&c->model->law[i]) || r->open[i] < 0 || r->entry_episode[i] < 0 ||
        r->entry_episode[i] == r->open[i])
        return 0.0;
    const pl_episode *ep = &r->sol->episodes[r->open[i]];
    double T = pl_law_contact_time(&c->model->law[i], c->mu, fabs(ep->gdot_in)), T0 = r->entry_time[i];
    if (!(t - ep->t_in <= 1e-6 * T))
        return 0.0; /* a restart within the contact (pen_exit_bound's test of an entry) */
    return T > 0.0 && T0 > 0.0 && isfinite(T / T0) ? r->entry_step[i] * (T / T0) : 0.0;
}

/* The stepper's singular hook (stepper.h): next to the entry and the exit of an impact under a law
 * delta^n, n not an integer, the penetration behaves like |t - t_s|^(n + 2) (delta'' ~ delta^n), as
 * pen_exit_bound found it before this step (NAN where its conditions do not hold). */
double pen_singular(double t, double *behind, double *ahead, void *user)
{
    (void)t;
    run_ctx *c = user;
    *behind = c->singular_behind;
    *ahead = c->singular_ahead;
    return c->singular_order;
}
