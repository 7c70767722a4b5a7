/* A constraint's gap predicted over the next step, to aim the step at its next root.
 *
 * Between two step ends the gap G of one constraint follows the linear model
 *
 *     G'' + 2 xi w G' + w^2 G = D
 *
 * with w = 0 in flight (a parabola: D is the free gap acceleration) and w = omega = sqrt(k mu) in the
 * contact of a single constraint (the penalized contact of paper 004, eq. (4), with its effective
 * mass, gradient and free gap acceleration D frozen: exact for a constant mass and a gap affine in
 * q with a constant D, as the bouncing ball; for others with an error that vanishes with the step).
 * D is fitted to G at the step's end from its start; the rate G' at the end, which the fit does not
 * use, measures how well the model holds. */
#ifndef PL_GAP_MODEL_H
#define PL_GAP_MODEL_H

typedef struct {
    double w, xi, D;   /* the model */
    double t, g, gdot; /* its state at the last step's end */
    double error;      /* |G' predicted - G'| at the end over |G'| + w |G| + |D| h: relative */
} pl_gap_model;

/* Fits D to (t1, g1) from (t0, g0, gd0) and measures the model on gd1; 0 if no fit (t1 <= t0, or a
 * step so long that G(t1) does not depend on D). */
int pl_gap_model_fit(pl_gap_model *model, double w, double xi, double t0, double g0, double gd0, double t1, double g1,
                     double gd1);

/* The model's G and G' at time t. */
void pl_gap_model_at(const pl_gap_model *model, double t, double *g, double *gdot);

/* The first time in (model->t, t_end] at which a G + b G' - target changes sign, given the model's
 * G and G' at t_end; NAN if it has the same sign there (the step is short against the contact's
 * period: one sign change at most). */
double pl_gap_model_root(const pl_gap_model *model, double a, double b, double target, double t_end, double g_end,
                         double gdot_end);

/* Whether the model's G may still reach level: 0 if an underdamped contact's envelope stays below. */
int pl_gap_model_may_rise_to(const pl_gap_model *model, double level);

#endif
