/* Lift-off from settled contact: when a sustained contact's force is about to turn, the lift-off
 * is handed from BDF to the Runge-Kutta pair (lift_off_handover, lift_off_approach, lift_off_renewal),
 * and the resolution of the exit time a slow lift-off leaves (slow_exit_resolution).  Also the
 * contact's time scales these need (pressing, three_contacts, the lead of a handover). */
#include <float.h>
#include <math.h>

#include "core/rootfind.h"
#include "solvers/penalty/engine.h"

/* In settled contact BDF's steps are long (h omega >> 1) and it holds G_i only to the error weights'
 * floor of 1000 ulps of q (error_weights), but a lift-off is timed by a penetration far smaller: the
 * slow solution p = N/omega^2 - 2 xi N'/omega^3 + ... (N the limit's normal force, whose sign change
 * is the limit's lift-off, paper 004 Theorem 6) leaves the lag 2 xi |N'|/omega^3 when the force
 * turns, 4.5e-12 on the disk at mu = 1e8 (13 such floors), and reaches 0 2 xi/omega later.  BDF
 * would time that exit 15% of the delay late on the disk at mu = 1e8 (its restart at the force's
 * sign change, at order 1, moves G by 5e-13) and 12% on the vibrating table at 1e9.  So a lift-off of a
 * contact that is not overdamped goes to the Runge-Kutta pair, which resolves the contact
 * oscillation and holds G_i and Gdot_i to their tolerances (error_weights outside the settled
 * phase), from a lead (lift_lead) before the force turns, so that BDF's error decays first:
 *   - BDF's steps are bounded (lift_off_approach) to end 1.5 leads before the turn predicted on
 *     the secant of mu G_i + d_i Gdot_i through the last two step ends, and a step that ends
 *     within 2 leads of it hands over there;
 *   - a BDF step in which the force turns (or G_i reaches 0) unforeseen hands over from the lead
 *     before the turn, or from the step's start if that is later.
 * The contact ends where G_i reaches 0 (exit_level).  The pair keeps the lift-off until then, or
 * until the window of that exit has passed (lift_end: twice the lead and the delay after the turn);
 * then BDF resumes, without another handover until the force pushes again.  Overdamped contacts
 * beyond LIFT_XI_MAX stay on BDF: their decay is slow (omega/(2 xi)) while the pair's steps are
 * bounded by the fast mode (2 xi omega), ~50 xi^2 steps a lift-off.  A contact whose force is exactly 0
 * at both ends of the step (bodies touching at rest, G_i = Gdot_i = 0: Newton's cradle's balls before
 * the impact) has no force to turn and is not handed over: on the pair its exit level would be 0
 * (pen_exit_level), and once an impact compresses it by less than an ulp of q, G_i reads exactly 0,
 * a round-off departure to +2.2e-16 makes the compression a root, and every step ended there, 2e-13 s
 * on (the cradle N = 5, e = 0.4 at mu = 1e6: 1.9 million steps, each restarted). */
#define LIFT_XI_MAX 2.0

/* mu G_i + d_i Gdot_i: lambda_i = -m_i k_i times this (contact_law.h), < 0 while the force pushes.  Under a
 * nonlinear law, -lambda_i at unit effective mass, of the same sign (a law that never pulls reaches 0 at
 * the exit, and not beyond). */
double pen_pressing(const run_ctx *c, size_t i, double g, double gdot)
{
    const pl_contact_law *law = &c->model->law[i];
    if (!pl_law_is_linear(law))
        return -pl_law_force(law, c->mu, c->field.damping[i], 1.0, g, gdot, NULL, NULL);
    return c->mu * g + c->field.damping[i] * gdot;
}

/* Three contact times of constraint i: three half-periods 3 pi/omega_i under a linear law; under a
 * nonlinear law three durations of its isolated impact at the model's speed V (pl_law_contact_time). */
double pen_three_contacts(const run_ctx *c, size_t i)
{
    const pl_contact_law *law = &c->model->law[i];
    if (!pl_law_is_linear(law))
        return 3.0 * pl_law_contact_time(law, c->mu, c->model->v_scale);
    return 3.0 * M_PI / c->omega[i];
}

/* The lead of a handover: 3 half-periods, and the decay of BDF's gap error, up to the error weights'
 * floor of 1000 ulps, to an ulp.  A decay by rtol, ln(1e8), times the lift-offs of the disk and the
 * table no better at mu = 1e6 ... 1e10 and costs the table 40% more at 1e7. */
static double lift_lead(const run_ctx *c, size_t i)
{
    double omega = c->omega[i];
    return fmax(pen_three_contacts(c, i), log(1000.0) / decay_rate(omega, c->model->law[i].xi));
}

typedef struct {
    run *r;
    size_t i;
} pressing_fn;

static double pressing_eval(double t, void *p)
{
    pressing_fn *f = p;
    run_ctx *c = &f->r->ctx;
    pl_stepper *s = f->r->loop.stepper;
    const double *y = s->dense(s, t);
    if (!y)
        return NAN;
    pl_model_velocity_map(c->model, t, Q(y), V(y, c), c->fp_dense, NULL, NULL, NULL);
    double gdot = pl_model_gap_rate_sparse(c->model, f->i, t, Q(y), c->fp_dense, c->gap_dense);
    return pen_pressing(c, f->i, c->gap_dense->g, gdot);
}

/* The time at which the force of active constraint i is predicted to turn, on the secant of
 * pressing() through the last two step ends; INFINITY if it is not decreasing. */
static double predicted_turn(const run *r, size_t i)
{
    const double *p = r->press + 2 * i, *t = r->press_t + 2 * i;
    if (!(t[0] < t[1]) || !(p[1] < 0.0) || !(p[1] > p[0]))
        return INFINITY;
    return t[1] - p[1] * (t[1] - t[0]) / (p[1] - p[0]);
}

/* After a step [prev_t, t] (y at t): pressing() recorded for predicted_turn, and, after a BDF step,
 * the earliest handover of a lift-off (see above): its time into *t_hand (the turn in the step less
 * the lead, or the step's start; the step's end if the turn is predicted within the lead after it,
 * unless the step ended at a root, whose event comes first) and its constraint into r->handover,
 * lift_end set; 0 if none. */
int pen_lift_off_handover(run *r, double t, const double *y, int at_root, double *t_hand)
{
    run_ctx *c = &r->ctx;
    double ta = r->loop.prev_t;
    const pl_gap *gaps = pen_geometry_at(c, t, y);
    int found = 0;
    /* the active constraints': an entry clears a constraint's record of pressing() (pen_open_episode) */
    for (size_t k = 0; k < c->field.nlist; k++) {
        size_t i = c->field.list[k];
        double g = gaps[i].g, gdot = c->geometry_gdot[i], xi = c->model->law[i].xi, now = pen_pressing(c, i, g, gdot);
        r->press[2 * i] = r->press[2 * i + 1], r->press_t[2 * i] = r->press_t[2 * i + 1];
        r->press[2 * i + 1] = now, r->press_t[2 * i + 1] = t;
        if (r->loop.stepper != r->bdf || !c->field.active[i] || c->lifting[i] || xi > LIFT_XI_MAX)
            continue;
        double lead = lift_lead(c, i), turn = NAN, th = NAN, before = pen_pressing(c, i, r->prev_g[i], r->prev_gdot[i]);
        if (before == 0.0 && now == 0.0)
            continue; /* no force to turn: bodies touching at rest (see above) */
        if (now >= 0.0 || g >= 0.0) { /* turned in this step */
            turn = ta;
            if (before < 0.0 && now >= 0.0) {
                pressing_fn f = {r, i};
                turn = pl_brent(pressing_eval, &f, ta, t, 0);
                if (isnan(turn))
                    turn = ta;
            }
            th = fmax(ta, turn - lead);
        } else if (!at_root && (turn = predicted_turn(r, i)) - 2.0 * lead <= t) {
            th = t;
        }
        if (isnan(th) || (found && th >= *t_hand))
            continue;
        found = 1;
        *t_hand = th;
        r->handover = i;
        r->lift_end[i] = fmax(turn, t) + 2.0 * (2.0 * xi / c->omega[i] + lead);
    }
    return found;
}

/* The longest BDF step from t: to 1.5 leads before the predicted turn of a pressing force (see
 * above), so that a step ends there and hands the lift-off over with its lead; 0 if none is near.
 * A step that ends within 2 leads hands over, not only one aimed at a lead: where the secant
 * predicts the turn ever later (a table near its critical amplitude) BDF would creep towards it in
 * steps of 1e-7 s and move G by 1.5e-13. */
double pen_lift_off_approach(run *r, double t)
{
    run_ctx *c = &r->ctx;
    double h = INFINITY;
    for (size_t k = 0; k < c->field.nlist; k++) {
        size_t i = c->field.list[k];
        if (c->field.active[i] && !c->lifting[i] && c->model->law[i].xi <= LIFT_XI_MAX) {
            double d = predicted_turn(r, i) - 1.5 * lift_lead(c, i) - t;
            if (d > 0.0)
                h = fmin(h, d);
        }
    }
    return isfinite(h) ? h : 0.0;
}

/* A contact oscillation at an exit larger than this many times the error weights' floor of G_i is the
 * motion's, not the integration's (slow_exit_resolution). */
#define EXIT_NOISE_FLOORS 100.0

/* D_i, the free gap acceleration of constraint i (gap_accel with its force off; -N for the limit's
 * normal force N), at row k of the trajectory, and its derivatives d[0..2] = D', D'', D''' there: those
 * of the cubic through D at row k and at three rows before it (not before first_row), each at least
 * 1/omega_i before the next.  D is computed from q, v and t alone, so no stiffness amplifies its
 * round-off.  NAN if the rows do not reach that far back. */
static double free_accel_trend(run *r, size_t i, size_t first_row, size_t k, double d[3])
{
    run_ctx *c = &r->ctx;
    const pl_table *traj = &r->sol->traj;
    double omega = c->omega[i], T[4], D[4];
    int active = c->field.active[i];
    c->field.active[i] = 0;
    pen_trial_begin(c);
    size_t row = k;
    int j = 0;
    for (; j < 4; j++) {
        const double *y = pl_table_row(traj, row);
        T[j] = y[0];
        D[j] = pen_gap_accel(c, i, T[j], y + pl_col_q(c->n, c->m));
        while (row > first_row && pl_table_row(traj, row)[0] > T[j] - 1.0 / omega)
            row--;
        if (j < 3 && !(pl_table_row(traj, row)[0] < T[j]))
            break;
    }
    pen_trial_end(c);
    c->field.active[i] = active;
    if (j < 4)
        return NAN;
    double f01 = (D[0] - D[1]) / (T[0] - T[1]), f12 = (D[1] - D[2]) / (T[1] - T[2]);
    double f23 = (D[2] - D[3]) / (T[2] - T[3]), f012 = (f01 - f12) / (T[0] - T[2]);
    double f123 = (f12 - f23) / (T[1] - T[3]), f0123 = (f012 - f123) / (T[0] - T[3]);
    d[0] = f01 + f012 * (T[0] - T[1]) + f0123 * (T[0] - T[1]) * (T[0] - T[2]);
    d[1] = 2.0 * f012 + 2.0 * f0123 * ((T[0] - T[1]) + (T[0] - T[2]));
    d[2] = 6.0 * f0123;
    return D[0];
}

/* The resolution of the time t0 at which a sustained contact of constraint i ended, G_i crossing 0 at
 * the rate gdot in row k of the trajectory (terms: those of G_i there; rows before first_row are the
 * contact's entry and before), if its slow dynamics ended it; NAN otherwise.
 *
 * In sustained contact G_i follows the slow solution of Gddot = D - omega^2 G - 2 xi omega Gdot
 * (omega^2 = k mu, D the free gap acceleration), G = (D - 2 xi D'/omega + (4 xi^2 - 1) D''/omega^2) /
 * omega^2 + ..., plus what is left of the contact oscillation, which decays at the rate xi omega.  At
 * a lift-off D crosses 0, and G leaves 0 at the slow rate r = (D' - 2 xi D''/omega + (4 xi^2 - 1)
 * D'''/omega^2)/omega^2 ~ N'/(k mu): 4e-10 on the disk of docs/methods.md at mu = 1e10, 2.7e-11 on a
 * table at 1e12.  A change dG of G there moves the exit by dG/r, not by dG/gdot: an oscillation left
 * in G (its rate gdot - r, its amplitude abs(gdot - r)/omega) crosses 0 at a rate of its own, and
 * where it is larger than the slow G the crossing is the oscillation's (on that table, a rate of
 * 8e-8 from an oscillation of 6.5e-14 that a restart of BDF leaves puts the exit 3.2e-5 s before the
 * limit's lift-off, which the penalized exit follows by 3.9e-7 s).  So the resolution is
 *
 *     (eps terms + abs(gdot - r)/omega) / r + eps abs(t0):
 *
 * an ulp of the terms of G (its round-off over the last decay time of the oscillation, which round-off
 * keeps exciting) and the oscillation the integration left, over the slow rate (free_accel_trend
 * gives D's derivatives).  An oscillation larger than EXIT_NOISE_FLOORS times the error weights'
 * floor of G (what the integration may leave in G: 1000 ulps of its terms, or rtol pen) is the
 * motion's (a contact that another impact separates, as in a Newton's cradle), and so is an exit
 * where D does not rise: NAN, the crossing's rate then applies.  Measured against the spread of the
 * exit under perturbations of the initial state by ulps and against independent integrations:
 * docs/methods.md, "Resolution of event times". */
double pen_slow_exit_resolution(run *r, size_t i, size_t first_row, size_t k, double terms, double t0,
                                   double gdot)
{
    run_ctx *c = &r->ctx;
    double omega = c->omega[i], xi = c->model->law[i].xi, d[3];
    if (!pl_law_is_linear(&c->model->law[i])) /* the slow solution below is the linear law's */
        return NAN;
    if (isnan(free_accel_trend(r, i, first_row, k, d)))
        return NAN;
    double rate = (d[0] - 2.0 * xi * d[1] / omega + (4.0 * xi * xi - 1.0) * d[2] / (omega * omega)) / (omega * omega);
    double oscillation = fabs(gdot - rate) / omega;
    double floor = fmax(1000.0 * DBL_EPSILON * terms, c->rtol * c->pen[i]);
    if (!(rate > 0.0) || !(oscillation <= EXIT_NOISE_FLOORS * floor))
        return NAN;
    return (DBL_EPSILON * terms + oscillation) / rate + DBL_EPSILON * fabs(t0);
}

/* Leads (lift_lead) within which the force must be due to turn for a lift-off's window to be renewed
 * (lift_off_renewal). */
#define LIFT_RENEW_LEADS 10.0

/* At the end of the window of a lift-off of constraint i on the Runge-Kutta pair (lift_end), with the
 * force still pushing at t (the last recorded row): the window's new end, if BDF would not resolve
 * what is left of the contact; NAN otherwise (BDF resumes).  BDF holds G_i to the error weights'
 * floor of 1000 ulps of its terms at best, and its restart moves G_i by about that: where the
 * penetration left, -G_i, is within that floor, the contact oscillation BDF leaves is larger than the
 * slow G_i and crosses 0 before the force turns (a table at mu = 1e12 whose window opens on a turn
 * predicted from BDF's pressing() 2.4e-4 s early ends 3.4e-5 s before the turn, 9.4e-16 left: BDF's
 * restart would leave an oscillation of 6.5e-14 and an exit 3.2e-5 s before the limit's lift-off,
 * which the penalized exit follows by 3.9e-7 s).  The pair then keeps the lift-off if the force turns within
 * LIFT_RENEW_LEADS leads: at the zero of D_i on its tangent (free_accel_trend), where the slow force
 * turns (in settled contact k (mu G + d Gdot) = D - Gddot ~ D), predicted from q, v and t alone,
 * which BDF's noise in G does not reach; the window then ends as the first would have. */
double pen_lift_off_renewal(run *r, size_t i, double t)
{
    run_ctx *c = &r->ctx;
    const pl_table *traj = &r->sol->traj;
    size_t k = traj->nrows - 1;
    if (r->open[i] < 0 || traj->nrows == 0 || pl_table_row(traj, k)[0] != t)
        return NAN;
    const double *row = pl_table_row(traj, k);
    pl_model_gap_sparse(c->model, i, t, row + pl_col_q(c->n, c->m), c->gap_noise);
    double terms = pl_gap_terms(c->gap_noise, t, row + pl_col_q(c->n, c->m), c->n), d[3];
    if (-c->gap_noise->g > 1000.0 * DBL_EPSILON * terms)
        return NAN;
    double D = free_accel_trend(r, i, r->sol->episodes[r->open[i]].row_in, k, d), lead = lift_lead(c, i);
    double turn = t - D / d[0];
    if (!(D < 0.0 && d[0] > 0.0 && turn - t <= LIFT_RENEW_LEADS * lead))
        return NAN;
    return turn + 2.0 * (2.0 * c->model->law[i].xi / c->omega[i] + lead);
}
