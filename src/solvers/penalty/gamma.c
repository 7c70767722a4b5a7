/* Gamma^mu of paper 004, eq. (5) (the time transform t -> t + integral |sum w_i lambda_i|), as a
 * quadrature along the motion: the state's P integrates 1 + |sum w_i lambda_i| but for the kinks of
 * the sum, and Gamma follows from P piece by piece (gamma_piece, engine.h).  Owns the pieces, the
 * sign with which the sum enters dP/dt, the restart at events and the stepper's kink hook. */
#include <math.h>
#include <string.h>

#include "solvers/penalty/engine.h"

/* The sign with which |sum w_i lambda_i| enters dP/dt (see GAMMA).  With one active constraint
 * the rate is the smooth 1 + rate_side_i |w_i| lambda_i, the same in every stage of a step; an |.|
 * taken at every stage would put the kink into the stage values near the root (a Runge-Kutta stage
 * is only low-order accurate, so a stage may land on the far side), an error of 1e-6 in Delta Gamma
 * of an impact at rtol 1e-8.  With several active constraints the sum vanishes only where all forces
 * do, and |.| is smooth. */
double pen_gamma_rate_sign(const run_ctx *c, const pl_forces *f)
{
    size_t i = c->single_active;
    if (i >= c->m)
        return 1.0;
    return f->lambda[i] * c->rate_side[i] < 0.0 ? -1.0 : 1.0;
}

/* Gamma^mu at (t, y), from the piece that holds t. */
double pen_gamma_at(const run_ctx *c, double t, const double *y)
{
    const gamma_piece *p = t >= c->piece.t ? &c->piece : &c->piece_before;
    return p->gamma + (t - p->t) + p->s * (GAMMA(y, c) - p->p - (t - p->t));
}

/* A new piece at an event (t, y): P restarts at Gamma, the sign in dP/dt from the forces' present
 * sides. */
void pen_restart_gamma(run_ctx *c, double t, double *y)
{
    double gamma = pen_gamma_at(c, t, y);
    GAMMA(y, c) = gamma;
    c->piece = c->piece_before = (gamma_piece){.t = t, .p = gamma, .gamma = gamma, .s = 1.0};
    /* the active constraints': only theirs are read (gamma_rate_sign) or set (kink) until the next
     * restart, and a kink undone at an event is cleared there (pen_switch_at) */
    for (size_t k = 0; k < c->field.nlist; k++) {
        size_t i = c->field.list[k];
        c->rate_side[i] = c->force_side[i];
        c->kink_t[i] = NAN;
    }
}

/* The stepper's `kink` hook: force root k (constraint i = k - m) crossed inside a step at t (state
 * y there).  With i the one active constraint the force's side and Gamma's piece change there;
 * with several, |sum w_i lambda_i| has a kink only where every force vanishes at once (a symmetric
 * corner impact), which a step must not cross: declined, the step is cut there. */
int pen_kink(double t, const double *y, int k, void *user)
{
    run_ctx *c = user;
    size_t i = (size_t)k - c->m;
    if (c->single_active != i)
        return 1;
    c->force_side[i] = -c->force_side[i];
    c->kink_t[i] = t;
    c->piece_before = c->piece;
    c->piece = (gamma_piece){.t = t, .p = GAMMA(y, c), .gamma = pen_gamma_at(c, t, y), .s = -c->piece.s};
    return 0;
}
