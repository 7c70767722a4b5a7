/* Step aiming (the Runge-Kutta stepper's aim hook, stepper_rk.c "Aiming"): each constraint's gap model
 * (gap_model.h) fitted over the last step, and the earliest root it predicts in the next one. */
#include <math.h>

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
    for (size_t i = 0; i < c->m; i++) {
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
    for (size_t i = 0; i < c->m; i++) {
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
