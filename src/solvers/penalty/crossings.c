/* Crossings between step ends (the loop's missed hook): root finding sees only sign changes of G_i
 * at step ends, so each step is scanned on the dense output for a contact that began and ended
 * inside it, or an exit and re-entry; the same scan refines each episode's largest penetration.
 * The missed hook also reports a lift-off's handover (lift_off.c). */
#include <float.h>
#include <gsl/gsl_poly.h>
#include <math.h>
#include <string.h>

#include "core/clock.h"
#include "core/rootfind.h"
#include "solvers/penalty/engine.h"

typedef enum { DENSE_GAP, DENSE_GAP_RATE } dense_quantity;

typedef struct {
    run *r;
    size_t i;
    dense_quantity what;
    int cheap; /* on the stepper's cheap interpolant (to locate an extremum) */
} dense_fn;

static double dense_eval(double t, void *p)
{
    dense_fn *d = p;
    run_ctx *c = &d->r->ctx;
    pl_stepper *s = d->r->loop.stepper;
    const double *y = d->cheap ? s->dense_cheap(s, t) : s->dense(s, t);
    if (!y)
        return NAN;
    pl_gap *gap = c->gap_dense;
    if (d->what == DENSE_GAP) {
        pl_model_gap_sparse(c->model, d->i, t, Q(y), gap);
        return gap->g;
    }
    double *fp = c->fp_dense;
    pl_model_velocity_map(c->model, t, Q(y), V(y, c), fp, NULL, NULL, NULL);
    return pl_model_gap_rate_sparse(c->model, d->i, t, Q(y), fp, gap);
}

/* Root of a quantity of constraint i in [a, b] on the dense output (or its cheap interpolant);
 * NAN if not bracketed. */
static double dense_root(run *r, size_t i, dense_quantity what, double a, double b, int cheap)
{
    dense_fn d = {r, i, what, cheap};
    /* An extremum (on the interpolant) to 1e-7 of the interval: G there is second order in it */
    return cheap ? pl_brent_tol(dense_eval, &d, a, b, 0, 1e-7 * (b - a)) : pl_brent(dense_eval, &d, a, b, 0);
}

/* A point in (ta, te) where G_i is beyond round-off on the side opposite to g_te, for a step that
 * began exactly on the constraint (a switch just happened there): the departure the crossing back
 * ends.  Tried in turn, each on the dense output: the turning point of G's Taylor expansion at ta
 * (a short hop: the interpolant of a long step cannot resolve it), the extremum of G on the
 * interpolant, and ta + (te - ta) 2^-k.  NAN if G never leaves round-off: no departure. */
static double departure_point(run *r, size_t i, double ta, double te, double g_te)
{
    run_ctx *c = &r->ctx;
    pl_stepper *s = r->loop.stepper;
    dense_fn gap = {r, i, DENSE_GAP, 0}, rate = {r, i, DENSE_GAP_RATE, 0}, cheap_rate = {r, i, DENSE_GAP_RATE, 1};
    double noise = pen_gap_noise(c, i, te, Q(s->y)), candidate[2 + 40];
    int nc = 0;
    double gd0 = dense_eval(ta, &rate);
    const double *ya = s->dense(s, ta);
    double D0 = ya ? pen_gap_accel(c, i, ta, ya) : NAN;
    if (gd0 * D0 < 0.0 && -gd0 / D0 < te - ta)
        candidate[nc++] = ta - gd0 / D0;
    candidate[nc++] = pl_brent(dense_eval, &cheap_rate, ta, te, 0);
    for (int k = 1; k <= 40; k++)
        candidate[nc++] = ta + (te - ta) * ldexp(1.0, -k);
    for (int k = 0; k < nc; k++) {
        if (!(candidate[k] > ta && candidate[k] < te))
            continue;
        double g = dense_eval(candidate[k], &gap);
        if (g * g_te < 0.0 && fabs(g) > noise)
            return candidate[k];
    }
    return NAN;
}

/* The first crossing of G_i = 0 after the last recorded sample of the step's start and before
 * te, where G_i has the sign of g_te: G_i may have crossed several sub-intervals (output samples)
 * before its extremum, so the sign change is looked for piece by piece on the dense output, then
 * refined by Brent.  A step that began on the constraint (within round-off of G_i = 0: a switch
 * just happened there) first left it to the other side, and the search starts from that departure
 * (next to the start G_i is round-off, whose noise a root solver would find); without a departure
 * beyond round-off the crossing is the start. */
static double first_gap_root(run *r, size_t i, double te, double g_te)
{
    dense_fn d = {r, i, DENSE_GAP, 0};
    double ta = r->loop.prev_t, ga = dense_eval(ta, &d);
    if (!(ga * g_te < 0.0) || fabs(ga) <= pen_gap_noise(&r->ctx, i, ta, Q(r->loop.stepper->y))) {
        double t_dep = departure_point(r, i, ta, te, g_te);
        if (isnan(t_dep))
            return ta;
        ta = t_dep;
        ga = dense_eval(ta, &d);
    }
    size_t k = r->loop.next_sample;
    while (ta < te) {
        while (pl_loop_sample_time(&r->loop, k) <= ta)
            k++;
        double tb = fmin(pl_loop_sample_time(&r->loop, k), te), gb = dense_eval(tb, &d);
        if (ga * gb <= 0.0)
            return dense_root(r, i, DENSE_GAP, ta, tb, 0);
        ta = tb;
        ga = gb;
    }
    return r->loop.prev_t; /* not bracketed (a non-finite state): switch at the step's start */
}

/* Gdot_i at the interior sample j of a flight step (time s), on the cheap interpolant, as
 * dense_eval, for the e-th constraint evaluated (pen_near_at): the state there is interpolated once
 * for every constraint (sampled[j] = 1 once it is), not once per constraint (with 114 constraints
 * those interpolations would be most of a run).  The rates are stored by e, contiguous: stored by
 * constraint, the list's few thousand writes per sample scattered over FLIGHT_SAMPLES m doubles (82
 * MB for a row of 1600 disks), a cache line and a page each. */
static double sampled_gap_rate(run *r, int *sampled, int j, double s, size_t e)
{
    run_ctx *c = &r->ctx;
    size_t count = pen_near_count(c);
    double *gd = r->gdot_samples + (size_t)j * count;
    if (!sampled[j]) {
        sampled[j] = 1;
        pl_stepper *st = r->loop.stepper;
        const double *y = st->dense_cheap(st, s);
        for (size_t k = 0; k < count; k++)
            gd[k] = NAN;
        if (y) {
            double *fp = c->fp_dense;
            pl_model_velocity_map(c->model, s, Q(y), V(y, c), fp, NULL, NULL, NULL);
            for (size_t k = 0; k < count; k++)
                gd[k] = pl_model_gap_rate_sparse(c->model, pen_near_at(c, k), s, Q(y), fp, c->gap_dense);
            c->gap_evals += (long)count;
        }
    }
    return gd[e];
}

/* Whether the extremum of active constraint i at te, a minimum or a maximum of G_i in the piece
 * [ta, tb] of the last step, needs G_i exactly (a re-integration): a minimum may set the episode's
 * largest penetration, a maximum may be a missed exit.  Neither can if the value on the cubic
 * Hermite interpolant misses that by more than its error, at most h^4 max|G''''|/384 over a piece
 * of length h.  In contact G_i oscillates about its resting value G_r at omega_i (G'''' =
 * -omega_i^2 G'' of the undamped oscillation), with the amplitude a = hypot(G_i - G_r,
 * Gdot_i/omega_i), G_i - G_r = -(Gddot_i + 2 xi_i omega_i Gdot_i)/omega_i^2, taken at the piece's
 * ends; the bound used is 10 (h w)^4 a/384 with w the largest omega_j of the active constraints
 * (coupled contacts oscillate faster than each alone).  So in a contact that settles under
 * Runge-Kutta (the transient at low mu: 22 periods for the default ball at mu = 1e4, 87 at 1e6)
 * the extrema after the first are settled on the interpolant. */
static int needs_exact_extremum(run *r, size_t i, double te, double ge, double ta, double tb, int minimum)
{
    run_ctx *c = &r->ctx;
    pl_stepper *s = r->loop.stepper;
    double omega = c->omega[i], w = 0.0, xi = c->model->law[i].xi, a = 0.0, ends[2] = {ta, tb};
    for (size_t k = 0; k < c->field.nlist; k++)
        if (c->field.active[c->field.list[k]])
            w = fmax(w, c->omega[c->field.list[k]]);
    dense_fn rate = {r, i, DENSE_GAP_RATE, 1};
    for (int k = 0; k < 2; k++) {
        double gdot = dense_eval(ends[k], &rate);
        const double *y = s->dense_cheap(s, ends[k]);
        double gddot = y ? pen_gap_accel(c, i, ends[k], y) : NAN;
        a = fmax(a, hypot((gddot + 2.0 * xi * omega * gdot) / (omega * omega), gdot / omega));
    }
    double h = (tb - ta) * w, margin = 10.0 * h * h * h * h * a / 384.0;
    if (!isfinite(ge) || !isfinite(margin))
        return 1;
    int open = r->open[i];
    if (minimum)
        return open < 0 || -ge + margin >= r->sol->episodes[open].max_penetration;
    return ge + margin >= pen_gap_noise(c, i, te, Q(s->y));
}

/* The extremum in [ta, tb] of the cubic Hermite interpolant of G_i through (ga, gda) and (gb, gdb),
 * whose rate changes sign over the interval (once, being quadratic): its time *te and value *ge;
 * 0 if the rate has no single root there. */
static int cubic_extremum(double ta, double ga, double gda, double tb, double gb, double gdb, double *te, double *ge)
{
    /* With s = (t - ta)/h, dG/dt = a s^2 + b s + gda. */
    double h = tb - ta, a = 6.0 * (ga - gb) / h + 3.0 * (gda + gdb), b = 6.0 * (gb - ga) / h - 4.0 * gda - 2.0 * gdb;
    double x[2];
    int nx = gsl_poly_solve_quadratic(a, b, gda, &x[0], &x[1]), count = 0;
    for (int k = 0; k < nx; k++) {
        double s = x[k];
        if (!(s >= 0.0 && s <= 1.0) || 2.0 * a * s + b == 0.0)
            continue;
        double s2 = s * s, s3 = s2 * s;
        *te = ta + s * h;
        *ge = (2 * s3 - 3 * s2 + 1) * ga + (s3 - 2 * s2 + s) * h * gda + (3 * s2 - 2 * s3) * gb + (s3 - s2) * h * gdb;
        count++;
    }
    return count == 1;
}

/* G_i at its extremum near te in the piece [ta, tb] of the last step: G_i - Gdot_i^2/(2 Gddot_i)
 * from the state at te re-integrated (the Newton step to the extremum, whose error is third order
 * in its distance), the time into *te; G_i at te if that step leaves the piece. */
static double exact_extremum(run *r, size_t i, double *te, double ta, double tb)
{
    run_ctx *c = &r->ctx;
    pl_stepper *s = r->loop.stepper;
    const double *y = s->dense(s, *te);
    if (!y)
        return NAN;
    double *fp = c->fp_dense;
    pl_model_velocity_map(c->model, *te, Q(y), V(y, c), fp, NULL, NULL, NULL);
    double gdot = pl_model_gap_rate_sparse(c->model, i, *te, Q(y), fp, c->gap_dense), g = c->gap_dense->g;
    double gddot = pen_gap_accel(c, i, *te, y), d = -gdot / gddot;
    if (*te + d >= ta && *te + d <= tb) {
        *te += d;
        g -= 0.5 * gdot * gdot / gddot;
    }
    return g;
}

/* The deepest point of the open episode of active constraint i in [ta, tb] of the last step, where G_i
 * turns (its rate's root on the interpolant, G there from the dense output), into the episode's
 * maximum penetration: for a contact that begins and ends within one step (a missed exit found at
 * the step's end, find_missed_crossing), whose rows are its entry and exit alone (the tip of a double
 * pendulum of m2 = 1e-8, turned by its spring within 6e-6 s): the rows alone would give it none. */
static void deepest_penetration(run *r, size_t i, double ta, double tb)
{
    int open = r->open[i];
    if (open < 0)
        return;
    double te = dense_root(r, i, DENSE_GAP_RATE, ta, tb, 1);
    dense_fn d = {r, i, DENSE_GAP, 0};
    double ge = isnan(te) ? NAN : dense_eval(te, &d);
    pl_episode *ep = &r->sol->episodes[open];
    if (-ge > ep->max_penetration) {
        ep->max_penetration = -ge;
        ep->t_max_penetration = te;
    }
}

/* Rootfinding sees only sign changes of G_i between step ends.  A contact that starts and ends
 * within one step (or an exit and re-entry) leaves G_i with the same sign at both ends, but its
 * rate Gdot_i changes sign at the extremum in between.  At such an extremum of an inactive
 * constraint (a minimum of G) we evaluate G on the dense output: G < 0 means a missed entry, and
 * the run restarts from the crossing.  Symmetrically for the maximum of an active constraint.  Both
 * only beyond the round-off of G_i, the hysteresis of the roots: a maximum within round-off above 0
 * is no exit (a disk pressed against a wall by a tiny force from its neighbour rises to G = 7e-16
 * there and would be switched off, cross -noise at once and be switched on again, at one time, forever),
 * and none where the constraint has not crossed as far as the run resolves (resolved_crossing: the
 * test a root's switch passes, resolvable_switch, so that a switch refused there is not taken
 * here).  Grazing contacts (a minimum with G >= 0) exert no force and need no action.  The same
 * search refines the maximum penetration of active constraints.  Checks [ta, tb] inside the last
 * step (y_b the state at tb), given the gap rates at both ends; returns 1 and the crossing (t, i) if
 * one was missed. */
static int find_missed_crossing(run *r, double ta, const double *g_a, const double *gdot_a, double tb,
                                const double *y_b, const double *g_b, const double *gdot_b, double *t_cross,
                                size_t *which)
{
    run_ctx *c = &r->ctx;
    int found = 0, sampled[FLIGHT_SAMPLES] = {0};
    /* those left out of the neighbour list are positive through the step (neighbours.c) */
    for (size_t e = 0, count = pen_near_count(c); e < count; e++) {
        size_t i = pen_near_at(c, e);
        /* The mode disagrees with the sign of G at the end: the crossing left no sign change for
         * the root finder (the step began on the constraint, where a switch had just happened).
         * Beyond round-off, and beyond the gap's change over the time tolerance of a root (a step
         * that ends at a root ends just past it, the switch still to come). */
        double noise_b = pen_gap_noise(c, i, tb, Q(r->loop.stepper->y)) +
                         fabs(gdot_b[i]) * 100.0 * DBL_EPSILON * fmax(fabs(tb), tb - ta);
        double side = c->field.active[i] ? 1.0 : -1.0;
        if ((!c->field.active[i] && g_b[i] < -noise_b) || (c->field.active[i] && g_b[i] > noise_b)) {
            if (!pen_resolved_crossing(c, i, tb, y_b, side))
                continue; /* within the resolution of G_i, with nothing resolved carrying it on */
            double tc = first_gap_root(r, i, tb, g_b[i]);
            if (c->field.active[i] && !isnan(tc))
                deepest_penetration(r, i, ta, tc);
            if (!isnan(tc) && (!found || tc < *t_cross)) {
                found = 1;
                *t_cross = tc;
                *which = i;
            }
            continue;
        }
        /* Extrema of G_i are sign changes of Gdot_i.  An inactive constraint can have several in one
         * long flight step (a table moving under a free mass: G = q - A sin(omega t) oscillates while
         * q is a parabola; the distance of two disks, not polynomial in t), which the ends alone
         * would not show: its Gdot_i is sampled at FLIGHT_SAMPLES points on the interpolant (exact
         * for a parabola).  The extrema of the cubic of G and Gdot at the ends are right only for a
         * gap affine in q and fixed in time: a long step can put two disks' closest approach 13 time
         * units off, and they pass through each other. */
        int pieces = c->field.active[i] ? 1 : FLIGHT_SAMPLES;
        double s0 = ta, gd0 = gdot_a[i];
        for (int j = 1; j <= pieces && tb > ta; j++) {
            double s1 = j == pieces ? tb : ta + (tb - ta) * j / pieces;
            double gd1 = j == pieces ? gdot_b[i] : sampled_gap_rate(r, sampled, j, s1, e);
            int minimum = gd0 < 0.0 && gd1 >= 0.0, maximum = gd0 > 0.0 && gd1 <= 0.0;
            double lo = s0;
            s0 = s1, gd0 = gd1;
            if (!(minimum || (maximum && c->field.active[i])))
                continue; /* the apex of a flight decides nothing */
            /* The extremum is located on an interpolant (an active constraint's, whose G and Gdot are
             * known at the ends, on G's own), then G there taken from the state re-integrated. */
            double te = NAN, ge = NAN;
            int open = r->open[i];
            if (c->field.active[i]) {
                if (!cubic_extremum(lo, g_a[i], gdot_a[i], s1, g_b[i], gdot_b[i], &te, &ge) ||
                    !needs_exact_extremum(r, i, te, ge, lo, s1, minimum))
                    continue;
                ge = exact_extremum(r, i, &te, lo, s1);
            } else {
                te = dense_root(r, i, DENSE_GAP_RATE, lo, s1, 1);
                dense_fn d = {r, i, DENSE_GAP, 0};
                ge = isnan(te) ? NAN : dense_eval(te, &d);
            }
            if (isnan(ge))
                continue;
            if (c->field.active[i] && minimum && open >= 0 && -ge > r->sol->episodes[open].max_penetration) {
                r->sol->episodes[open].max_penetration = -ge;
                r->sol->episodes[open].t_max_penetration = te;
            }
            double noise = pen_gap_noise(c, i, te, Q(r->loop.stepper->y)); /* q at the step end: a scale */
            int missed = (!c->field.active[i] && minimum && ge < -noise) || (c->field.active[i] && maximum && ge > noise);
            const double *y_e = missed ? r->loop.stepper->dense(r->loop.stepper, te) : NULL;
            if (!missed || (y_e && !pen_resolved_crossing(c, i, te, y_e, side)))
                continue;
            double tc = first_gap_root(r, i, te, ge);
            if (!isnan(tc) && (!found || tc < *t_cross)) {
                found = 1;
                *t_cross = tc;
                *which = i;
            }
            break; /* the first crossing of this constraint */
        }
    }
    return found;
}

/* dst_i = src_i for the constraints evaluated (pen_near_at). */
static void copy_near(const run_ctx *c, double *dst, const double *src)
{
    if (!c->nl.near) {
        memcpy(dst, src, c->m * sizeof *dst);
        return;
    }
    for (size_t k = 0; k < c->nl.nlist; k++)
        dst[c->nl.list[k]] = src[c->nl.list[k]];
}

/* The `missed` hook's search: the pieces of [prev_t, t] between output samples, each checked by
 * find_missed_crossing on the dense output; the earliest missed crossing over all pieces and
 * constraints is taken, before a root of the same step only if it comes first. */
static int scan_missed_crossings(void *user, double t, const double *y, int at_root, double *t_cross, pl_error *err)
{
    run *r = user;
    run_ctx *c = &r->ctx;
    double ta = r->loop.prev_t, *g_a = r->g_a, *gdot_a = r->gdot_a, *gdot_b = r->gdot_b, *g = r->g_scan;
    copy_near(c, g_a, r->prev_g);
    copy_near(c, gdot_a, r->prev_gdot);
    size_t k = r->loop.next_sample;
    int found = 0;
    while (ta < t) {
        /* the budget between pieces: a step spanning many samples, each scanned for every constraint,
         * is work of its own (7 s with 10^4 constraints) */
        pl_budget budget = {r->loop.max_seconds, r->loop.started};
        if (pl_budget_spent_writing(&budget, pl_solution_numbers(r->sol))) {
            char note[128];
            pl_fail(err, PL_ERR_SOLVER, PL_BUDGET_STOPPED " at t = %.17g (%s), scanning its last step for crossings%s",
                    r->loop.max_seconds, ta, r->context,
                    pl_budget_writing_note(&budget, pl_solution_numbers(r->sol), note, sizeof note));
            return -1;
        }
        while (pl_loop_sample_time(&r->loop, k) <= ta)
            k++;
        double tb = fmin(pl_loop_sample_time(&r->loop, k), t), tc = NAN;
        size_t i = 0;
        const double *yb = tb < t ? pl_loop_sample_state(&r->loop, k) : y;
        if (!yb) {
            pl_fail(err, PL_ERR_SOLVER, "dense output failed at t = %.17g (%s)", tb, r->context);
            return -1;
        }
        memcpy(r->y_scan, yb, c->N * sizeof *yb); /* the dense output's buffer is reused */
        pen_contact_state(c, tb, r->y_scan, g, gdot_b, NULL);
        if (find_missed_crossing(r, ta, g_a, gdot_a, tb, r->y_scan, g, gdot_b, &tc, &i) &&
            (!found || tc < *t_cross)) {
            found = 1;
            *t_cross = tc;
            r->missed_constraint = i;
        }
        ta = tb;
        copy_near(c, g_a, g);
        copy_near(c, gdot_a, gdot_b);
    }
    return found && (!at_root || *t_cross < t);
}

/* The loop's `missed` hook: a crossing missed in the last step (scan_missed_crossings), or the
 * handover of a lift-off to the Runge-Kutta pair (lift_off_handover), whichever comes first (the
 * handover at a tie: BDF's exit, located on its dense output from a gap within round-off of 0, can
 * come 6e-5 s before the limit's lift-off, on the disk at mu = 1e10, and the pair finds the crossing
 * again). */
int pen_missed(void *user, double t, const double *y, int at_root, double *t_cross, pl_error *err)
{
    run *r = user;
    if (r->bdf_error.status != PL_OK) { /* the BDF stepper could not be made (bdf_stepper, penalty.c) */
        if (err)
            *err = r->bdf_error;
        return -1;
    }
    int found = scan_missed_crossings(user, t, y, at_root, t_cross, err);
    /* a step beyond the neighbour list's reach: cut where it still holds, the list rebuilt there
     * (pen_switch_at, missed_constraint m) */
    double t_redo = found >= 0 ? pen_neighbours_redo(r, t, y) : NAN;
    if (!isnan(t_redo) && (!found || t_redo < *t_cross)) {
        found = 1;
        *t_cross = t_redo;
        r->missed_constraint = r->ctx.m;
    }
    double t_hand = NAN;
    r->handover = r->ctx.m;
    if (found >= 0 && pen_lift_off_handover(r, t, y, at_root, &t_hand) && (!found || t_hand <= *t_cross)) {
        *t_cross = t_hand;
        return 1;
    }
    r->handover = r->ctx.m;
    if (!found && pen_neighbours_due(&r->ctx, t, Q(y))) {
        pen_neighbours_rebuild(&r->ctx, t, Q(y));
        pen_neighbours_refresh(r, t, y);
    }
    return found;
}
