/* The error weights of both steppers (the weights hook): tolerances that follow the scales of the
 * problem at this mu, per component of the motion and per constraint's gap and rate. */
#include <float.h>
#include <math.h>

#include "solvers/penalty/engine.h"

/* The finest tolerance of a component, in ulps of its value (and of a gap, of its terms). */
#define FLOOR_ULPS 1000.0

/* Error weights that follow the scales of the problem at this mu:
 * - away from contacts, q and v are controlled relative to their size, with floors at the
 *   free-motion scales L = V^2/A and V;
 * - near constraint i, the gap and its rate are controlled relative to the contact amplitude
 *   a_i = hypot(G_i, Gdot_i/omega_i), omega_i = sqrt(k_i mu), with a floor at the resting
 *   penetration scale pen_i: tol(G_i) = rtol (a_i + pen_i), tol(Gdot_i) = omega_i tol(G_i).
 *   In an impact a_i ~ V/omega_i ~ mu^(-1/2); at rest a_i ~ pen_i ~ A/(k_i mu).  Both are thus
 *   resolved to rtol at every mu, even where q itself is O(1) (a moving table).  Like G_i (whose
 *   components are floored at FLOOR_ULPS ulps of q, below), Gdot_i is not held below its floor:
 *   omega_i times FLOOR_ULPS ulps of G_i's terms (see below).
 * - in settled contact (steps h >> 1/omega under BDF) the gap rate is not tightened: the
 *   control of G over a step bounds its error by tol(G)/h, and with it the error of the viscous
 *   force mu c Gdot_i to rtol F (2 xi / (omega h)) << rtol F.  Holding Gdot_i to omega tol(G)
 *   instead would hold the slow velocity, O(V), to an absolute error ~ rtol A/omega, and the
 *   steps would shrink with mu. */
int pen_error_weights(double t, const double *y, double *w, void *user)
{
    run_ctx *c = user;
    size_t n = c->n;
    double *tol = c->tol;
    for (size_t j = 0; j < n; j++) {
        tol[j] = c->rtol * (fabs(y[j]) + c->floor_q);
        tol[n + j] = c->rtol * (fabs(y[n + j]) + c->floor_v);
    }
    const pl_gap *gaps = pen_geometry_at(c, t, y);
    for (size_t k = 0, count = pen_near_count(c); k < count; k++) {
        size_t i = pen_near_at(c, k);
        const pl_gap *gap = &gaps[i];
        double amplitude = hypot(gap->g, c->geometry_gdot[i] / c->omega[i]);
        double tol_g = c->rtol * (amplitude + c->pen[i]);
        /* The floor of Gdot_i is that of G_i on the contact's own time scale, where a load holds the
         * contact: G_i is held to no less than FLOOR_ULPS ulps of its terms (the floor of q), and a
         * rate finer than omega_i times that moves G_i over a contact period by less than that.
         * The per-component floor of v below is no bound for Gdot_i in a sliding contact, where |v|
         * is the tangential speed O(V): the force's round-off (k mu times an ulp of G_i's terms)
         * moves v by more than 1000 ulps in any step longer than ~1000/(k mu), and the steps of the
         * entry transient were set by round-off (the Cartesian cup at mu = 1e10: 771 steps of ~2e-7
         * s, 25 now).  Only where the contact holds a penetration beyond G_i's floor (pressed by a
         * load, or in an impact): a contact relaxing to G_i = 0 with nothing pressing it may open
         * at round-off (the unclamped law's critically damped gap never returns to 0 exactly), and
         * the error of Gdot_i it leaves then persists in flight, where a spring would damp it.
         * A lift-off (lift_off_handover) is timed by G_i to its round-off, which holding Gdot_i to
         * omega times an ulp of its terms does; a tighter Gdot_i, down to the floor of 1000 ulps of
         * v below, costs the disk's lift-off at mu = 1e10 300 steps more and times it no better */
        double terms = pl_gap_terms(gap, t, Q(y), n), floor_g = FLOOR_ULPS * DBL_EPSILON * terms;
        double floor_gd = c->lifting[i] == 1 ? DBL_EPSILON * terms : -gap->g > floor_g ? floor_g : 0.0;
        double tol_gd = c->omega[i] * fmax(tol_g, floor_gd);
        pl_tighten_for_gap(tol, n, gap, tol_g, c->settled_phase ? INFINITY : tol_gd);
    }
    /* Nothing much finer than the round-off of a component can be resolved: the tolerance is
     * floored at FLOOR_ULPS ulps.  A resting penetration A/(k mu) under a table moving with O(1)
     * amplitude is then resolved to rtol while it is above ~2e-11 |q| (mu up to ~1e9 for the
     * vibrating table; at mu = 1e10 to about 1e-5 relative). */
    /* Both steppers' norms are root-mean-squares over the state's N components, of which Gamma and
     * the impulses weigh 0 (below).  With slots (slots.c) N grows with the contacts a run meets, and
     * the motion's errors would be diluted by sqrt(N / 2n), more after each growth: the motion's
     * weights carry that factor, so the test is the motion's own RMS whatever the slots.  Below the
     * slots' threshold the state keeps an impulse per constraint and its runs are as they were. */
    double scale = c->slot_of ? sqrt((double)c->N / (double)(2 * n)) : 1.0;
    for (size_t j = 0; j < 2 * n; j++)
        w[j] = scale / fmax(tol[j], FLOOR_ULPS * DBL_EPSILON * fabs(y[j]));
    /* Gamma and the impulses are quadratures: they do not act on the motion, so their accuracy is
     * that of the motion and the method's order, and they are left out of the error test (weight
     * 0, as CVODES does for quadratures without error control).  Controlling them would only
     * reject steps at the kinks of their integrands, which are roots anyway. */
    for (size_t j = 2 * n; j < c->N; j++)
        w[j] = 0.0;
    return 0;
}
