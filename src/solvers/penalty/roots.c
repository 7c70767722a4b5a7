/* The root functions of the steppers (roots, root): the gaps G_i, where the contact indicator
 * switches, and the forces lambda_i of the active constraints, where they change sign (a kink of
 * |sum w_i lambda_i|, gamma.c).  A force's root has a
 * hysteresis of its round-off: it is where lambda_i passes -force_side_i times force_noise_i, so
 * that a force at round-off level (a lift-off on a moving table) does not give a root per step.
 * The gaps have the same hysteresis of their own round-off: a contact starts where G_i passes
 * -noise and ends where it passes +noise.  Along a near-tangential motion (a lift-off where the
 * table's acceleration just exceeds g) G_i changes sign at round-off level every step, and without
 * the hysteresis every step would restart the run (steps of 1e-12 s); with it the switches move by
 * noise/|Gdot_i| (1e-15 s for an impact).
 * gap_root and force_root (given the forces f) are one function each. */
#include <float.h>
#include <math.h>

#include "core/linalg.h"
#include "solvers/penalty/engine.h"

/* The level at which an active constraint's root ends its contact: the hysteresis +noise, but 0
 * during a lift-off handed to the Runge-Kutta pair (lift_off_handover).  G_i leaves 0 there at the
 * slow rate N'/omega^2, and the hysteresis would hold the contact on longer than the lift-off's
 * delay itself (9e-5 s against 1.2e-5 s on the disk at mu = 1e10); the free motion
 * then turns G_i away from 0 (its acceleration -N > 0 once the limit's normal force N has changed
 * sign), and no crossing back follows. */
double pen_exit_level(const run_ctx *c, size_t i, double noise)
{
    return c->lifting[i] == 1 ? 0.0 : noise;
}

static double gap_root(run_ctx *c, size_t i, double t, const double *q)
{
    pl_gap *gap = c->gap_roots;
    pl_model_gap_sparse(c->model, i, t, q, gap);
    c->gap_evals++;
    double noise = pen_noise_of_gap(c, gap, q);
    return c->field.active[i] ? gap->g - pen_exit_level(c, i, noise) : gap->g + noise;
}

static double force_root(const run_ctx *c, const pl_forces *f, size_t i)
{
    return c->field.active[i] ? f->lambda[i] + c->force_side[i] * c->force_noise[i] : 1.0;
}

/* Root function k of roots alone. */
int pen_root(double t, const double *y, int k, double *g, void *user)
{
    run_ctx *c = user;
    size_t m = c->m, i = (size_t)k % m;
    if ((size_t)k < m) {
        *g = pen_is_near(c, i) ? gap_root(c, i, t, Q(y)) : c->nl.margin;
        return 0;
    }
    const pl_forces *f = c->field.active[i] ? pen_forces_at(c, t, y, &c->f_roots) : NULL;
    if (c->field.active[i] && !f)
        return -1;
    *g = force_root(c, f, i);
    return 0;
}

/* With a neighbour list, the live root functions alone (pen_live_roots: the gaps of the list's
 * constraints and the forces of the active ones); the others, a positive constant (pen_root), are
 * not written: the steppers do not look at them (stepper.h), and writing 2m values at every
 * evaluation was most of a step's work beyond a few hundred disks. */
int pen_roots(double t, const double *y, double *g, void *user)
{
    run_ctx *c = user;
    size_t m = c->m;
    for (size_t k = 0, count = pen_near_count(c); k < count; k++) {
        size_t i = pen_near_at(c, k);
        g[i] = gap_root(c, i, t, Q(y));
    }
    int any = c->field.nlist > 0;
    const pl_forces *f = any ? pen_forces_at(c, t, y, &c->f_roots) : NULL;
    if (any && !f)
        return -1;
    if (c->nl.near) {
        for (size_t k = 0; k < c->field.nlist; k++)
            g[m + c->field.list[k]] = force_root(c, f, c->field.list[k]);
        c->root_writes += (long)(c->nl.nlist + c->field.nlist);
    } else {
        for (size_t i = 0; i < m; i++)
            g[m + i] = force_root(c, f, i);
        c->root_writes += (long)(2 * m);
    }
    return 0;
}

/* The force root of constraint i from its entry on (see roots): its side, the sign of lambda_i
 * there, and the noise of lambda_i in the integrated solution.  G_i is held to its tolerance, at
 * least 1000 ulps of q (error_weights; q may grow to the length scale L during the contact), and
 * Gdot_i to omega_i times that: lambda_i = -m k (mu G + d Gdot), d = 2 xi sqrt(mu/k), then varies by
 * m k mu dG (1 + 2 xi) about its value; twice that is taken. */
void pen_start_force_root(run_ctx *c, size_t i, double t, const double *y)
{
    pl_forces *f = &c->f_start;
    if (evaluate_forces(c, t, Q(y), V(y, c), f)) {
        c->force_side[i] = 1.0;
        c->force_noise[i] = 0.0;
        return;
    }
    pl_contact *k = c->field.contact; /* free between evaluations of the field */
    pl_model_contact(c->model, i, t, Q(y), f->fp, f->minv, k);
    const pl_contact_law *law = &c->model->law[i];
    double dG = fmax(c->rtol * c->pen[i],
                     1000.0 * DBL_EPSILON * pl_norm(k->gap.grad, c->n) * (pl_norm(Q(y), c->n) + c->floor_q));
    c->force_side[i] = f->lambda[i] < 0.0 ? -1.0 : 1.0;
    if (pl_law_is_linear(law)) {
        c->force_noise[i] = 2.0 * k->m_eff * law->k * c->mu * dG * (1.0 + 2.0 * law->xi);
    } else { /* the same: lambda's change over dG in G and omega dG in Gdot, from the law's partials */
        double lG = 0.0, lGd = 0.0;
        pl_law_force(law, c->mu, c->field.damping[i], k->m_eff, k->gap.g, k->gdot, &lG, &lGd);
        c->force_noise[i] = 2.0 * dG * (fabs(lG) + fabs(lGd) * c->omega[i]);
    }
}
