/* The run's record: every recorded row (record_sample, the loop's record hook) with the checks that
 * it is resolved, and the contact episodes (entry to exit of each constraint): their opening and
 * closing, their entry and exit times located between rows (zero_crossing) with their resolution,
 * and the energy check of an impact. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "solvers/penalty/engine.h"

/* An active contact's penetration scale must span this many ulps of its gap's terms (check_resolved;
 * penalty.c, "The resolvable range of mu"). */
#define RESOLVE_GAP_ULPS 1e5

/* What every recorded state must satisfy for the run to count as resolved (an unresolvable mu
 * otherwise gives plausible-looking numbers):
 *   - an active contact's amplitude hypot(G_i, Gdot_i/omega_i), or its resting penetration scale,
 *     spans RESOLVE_GAP_ULPS ulps of the terms of G_i (q, and t for a moving constraint);
 *   - an inactive constraint is not penetrated by more than an impact's depth V/omega_i (or the
 *     gap's round-off over the time tolerance of its root): a crossing without a contact. */
static pl_status check_resolved(run *r, double t, const double *y, const pl_gap *gaps, pl_error *err)
{
    const run_ctx *c = &r->ctx;
    /* those left out of the neighbour list are positive (neighbours.c) */
    for (size_t k = 0, count = pen_near_count(c); k < count; k++) {
        size_t i = pen_near_at(c, k);
        const pl_gap *gap = &gaps[i];
        double g = r->prev_g[i], gdot = r->prev_gdot[i];
        /* a NaN gap compares false with 0: it would never start a contact */
        if (!isfinite(g) || !isfinite(gdot))
            return pl_fail(err, PL_ERR_SOLVER, "constraint %zu is not finite at t = %.17g (G = %g, Gdot = %g): the "
                           "model's gap (%s)", i + 1, t, g, gdot, r->context);
        if (c->field.active[i]) {
            double ulp = DBL_EPSILON * pl_gap_terms(gap, t, Q(y), c->n);
            double scale = fmax(hypot(g, gdot / c->omega[i]), c->pen[i]);
            if (scale < RESOLVE_GAP_ULPS * ulp)
                return pl_fail(err, PL_ERR_SOLVER,
                               "constraint %zu: the contact's penetration scale %.3g is below %g ulps of its gap's "
                               "terms (%.3g) at t = %.17g: beyond double precision, lower mu (%s)",
                               i + 1, scale, RESOLVE_GAP_ULPS, ulp, t, r->context);
        } else {
            double slack = 1e3 * (pen_noise_of_gap(c, gap, Q(y)) + fabs(gdot) * DBL_EPSILON * fmax(1.0, fabs(t)));
            if (g < -fmax(c->model->v_scale / c->omega[i], slack))
                return pl_fail(err, PL_ERR_SOLVER,
                               "constraint %zu crossed without a contact: G = %.3g with no force at t = %.17g (%s)",
                               i + 1, g, t, r->context);
        }
    }
    return PL_OK;
}

/* The row of every gap and force (dense contacts, or no neighbour list), or with a neighbour list and
 * sparse contacts the state and the constraints in the list, in increasing order: those left out are
 * positive without a force (neighbours.c), which sparse contacts do not store (pl_contact_in), and
 * their gaps are not evaluated.  prev_g and prev_gdot hold the gaps and rates recorded (of the
 * constraints in the list; pen_neighbours_refresh gives those that enter it theirs). */
static pl_status append_row(run *r, double t, const double *y, pl_error *err)
{
    run_ctx *c = &r->ctx;
    size_t n = c->n, m = c->m;
    double *row = r->row, *g = row + pl_col_g(n, m), *force = row + pl_col_force(n, m);
    row[0] = t;
    row[1] = pen_gamma_at(c, t, y);
    memcpy(row + 2, y, 2 * n * sizeof *row);
    pen_contact_state(c, t, y, g, r->prev_gdot, force);
    if (!c->nl.near || r->sol->contacts == PL_CONTACTS_DENSE) {
        pen_far_gaps(c, t, y, g, r->prev_gdot);
        if (c->nl.near)
            for (size_t i = 0; i < m; i++)
                if (!c->nl.near[i])
                    force[i] = 0.0;
        memcpy(r->prev_g, g, m * sizeof *row);
        return pl_solution_append_row(r->sol, row, err);
    }
    for (size_t k = 0; k < c->nl.nlist; k++) {
        size_t i = c->nl.list[k];
        r->prev_g[i] = g[i];
    }
    return pl_solution_append_row_of(r->sol, row, c->nl.list, c->nl.nlist, err);
}

pl_status pen_record_sample(void *user, double t, const double *y, pl_error *err)
{
    run *r = user;
    run_ctx *c = &r->ctx;
    pl_status s = append_row(r, t, y, err);
    const pl_gap *gaps = c->geometry;
    /* the open episodes are the active constraints' */
    for (size_t k = 0; k < c->field.nlist; k++) {
        size_t i = c->field.list[k];
        int e = r->open[i];
        if (e >= 0 && -r->prev_g[i] > r->sol->episodes[e].max_penetration) {
            r->sol->episodes[e].max_penetration = -r->prev_g[i];
            r->sol->episodes[e].t_max_penetration = t;
        }
    }
    return s == PL_OK ? check_resolved(r, t, y, gaps, err) : s;
}

/* Where G_i last crossed 0 before the state of the last recorded row (the switch of constraint i,
 * with the modes before it), and the resolution of that time: for the exit of a contact that lasted
 * beyond 3 half-periods, one its slow dynamics ended (slow_exit_resolution), else the round-off of
 * G_i over its rate at the crossing (pl_time_resolution).  A root switches at the gap's round-off
 * hysteresis, up to 100 ulps of its terms beyond 0 (gap_root), and the rows of the steps between
 * the crossing and the switch have G_i on the far side of 0: at a lift-off G_i leaves 0 at the slow
 * rate N'/omega^2 (the disk: 4e-8 at mu = 1e8, 4e-10 at 1e10), and the switch comes 9e-7 s, then
 * 9e-5 s, after the crossing, against the delay 2 xi/omega (1.2e-4, 1.2e-5 s) a lift-off converges
 * by: the switch's time is not the exit's.  The crossing is one Newton step back from the first of those rows (a step
 * end, with the method's accuracy), or on the secant with the row before it if that step leaves the
 * interval between them (a turning G_i); rows before first_row are not looked at, and without a row
 * on the near side of 0 after it the switch's own time is taken.  side: +1 for an exit (G_i rose
 * through 0; t_in the contact's entry), -1 for an entry (t_in NAN). */
static double zero_crossing(run *r, size_t i, double side, size_t first_row, double t_in, double *resolution)
{
    run_ctx *c = &r->ctx;
    const pl_table *traj = &r->sol->traj;
    const pl_solution *sol = r->sol;
    size_t n = c->n, m = c->m, last = traj->nrows - 1, k = last;
    while (k > first_row && side * pl_solution_gap_at(sol, c->model, k - 1, i, c->gap_noise) >= 0.0)
        k--;
    if (k == first_row) /* G_i never on the near side since first_row (a dip within round-off) */
        k = last;
    const double *row = pl_table_row(traj, k);
    double t = row[0], g = pl_solution_gap_at(sol, c->model, k, i, c->gap_noise), *fp = c->fp_dense;
    const double *q = row + pl_col_q(n, m), *v = row + pl_col_v(n, m);
    pl_model_velocity_map(c->model, t, q, v, fp, NULL, NULL, NULL);
    double gdot = pl_model_gap_rate_sparse(c->model, i, t, q, fp, c->gap_dense), t0 = t, rate = gdot;
    const double *before = k > first_row ? pl_table_row(traj, k - 1) : NULL;
    double gb = before ? pl_solution_gap_at(sol, c->model, k - 1, i, c->gap_noise) : NAN;
    if (before && side * gb < 0.0 && g != 0.0) {
        double tb = before[0];
        t0 = t - g / gdot;
        if (!(t0 >= tb && t0 <= t) && gb != g) {
            rate = (g - gb) / (t - tb);
            t0 = t - g / rate;
        }
        if (!(t0 >= tb && t0 <= t))
            t0 = t;
    }
    double terms = pl_gap_terms(c->gap_dense, t, q, n);
    int sustained = side > 0.0 && t0 - t_in > pen_three_contacts(c, i);
    *resolution = sustained ? pen_slow_exit_resolution(r, i, first_row, k, terms, t0, gdot) : NAN;
    if (isnan(*resolution))
        *resolution = pl_time_resolution(terms, t0, rate);
    return t0;
}

pl_status pen_open_episode(run *r, size_t i, double t, const double *y, pl_error *err)
{
    run_ctx *c = &r->ctx;
    pl_episode *ep;
    size_t since = 0; /* the last exit of constraint i */
    for (size_t k = r->sol->nepisodes; k-- > 0 && !since;)
        if (r->sol->episodes[k].constraint == i)
            since = r->sol->episodes[k].row_out;
    double resolution = 0.0;
    double t_in = t > 0.0 && r->sol->traj.nrows > 0 ? zero_crossing(r, i, -1.0, since, NAN, &resolution) : t;
    pl_status s = pl_solution_add_episode(r->sol, i, t_in, &ep, err);
    if (s != PL_OK)
        return s;
    ep->t_in_resolution = resolution;
    r->ctx.lifting[i] = 0;
    r->press_t[2 * i] = r->press_t[2 * i + 1] = NAN;
    ep->gdot_in = r->prev_gdot[i];
    ep->gamma_in = pen_gamma_at(c, t, y);
    ep->impulse = -pen_impulse(c, y, i); /* completed at close */
    ep->max_penetration = fmax(0.0, -r->prev_g[i]);
    ep->row_in = r->sol->traj.nrows; /* the row recorded right after the switch */
    r->open[i] = (int)r->sol->nepisodes - 1;
    r->shared[i] = 0;
    for (size_t k = 0; k < c->field.nlist; k++) { /* the open episodes are the active constraints' */
        size_t j = c->field.list[k];
        if (j != i && r->open[j] >= 0)
            r->shared[i] = r->shared[j] = 1;
    }
    /* Settled once the entry transient has decayed below the tolerance, and not before 3 half
     * periods (an impact would have ended).  Its amplitude a0 is measured from the resting
     * penetration, which is up to pen away from G = 0 (a contact that starts at rest on G = 0
     * oscillates with amplitude ~pen). */
    double omega = c->omega[i], xi = c->model->law[i].xi;
    double a0 = hypot(r->prev_g[i], r->prev_gdot[i] / omega) + c->pen[i];
    double decay = log(fmax(1.0, a0 / (c->rtol * c->pen[i]))) / decay_rate(omega, xi);
    /* An overdamped contact does not oscillate: its fast mode (rate ~2 xi omega) is stiff from the
     * start and its slow one (omega / (2 xi)) smooth, which is BDF's case at once; waiting for the
     * slow decay on the Runge-Kutta pair would cost steps growing like xi^2 (3e6 at xi = 1e3). */
    if (xi > 1.0)
        decay = 0.0;
    r->settle[i] = t + fmax(pen_three_contacts(c, i), decay);
    return PL_OK;
}

void pen_close_episode(run *r, size_t i, double t, const double *y, int ended)
{
    pl_episode *ep = &r->sol->episodes[r->open[i]];
    ep->gamma_out = pen_gamma_at(&r->ctx, t, y);
    ep->impulse += pen_impulse(&r->ctx, y, i);
    ep->row_out = r->sol->traj.nrows - 1;
    if (ended) {
        ep->t_out = zero_crossing(r, i, 1.0, ep->row_in, ep->t_in, &ep->t_out_resolution);
        ep->gdot_out = r->prev_gdot[i];
    }
    r->open[i] = -1;
}

/* An impact under a dissipative law (xi > 0) returns at most the normal speed it came in with,
 * up to what the free acceleration (scale A) adds over the contact and the tolerance: more is a
 * numerical artefact, never a result.  (Not for an impact shared with another constraint, which
 * may transfer momentum into this one's normal direction, as at a corner.) */
pl_status pen_check_energy(run *r, size_t i, const pl_episode *ep, pl_error *err)
{
    const run_ctx *c = &r->ctx;
    double slack = 2.0 * c->model->a_scale * (ep->t_out - ep->t_in) + 100.0 * c->rtol * c->model->v_scale;
    if (!r->shared[i] && c->model->law[i].xi > 0.0 && fabs(ep->gdot_out) > fabs(ep->gdot_in) + slack)
        return pl_fail(err, PL_ERR_SOLVER,
                       "constraint %zu: the impact at t = %.17g gains energy under a dissipative law (normal speed "
                       "%.6g in, %.6g out): not resolved (%s)",
                       i + 1, ep->t_in, fabs(ep->gdot_in), fabs(ep->gdot_out), r->context);
    return PL_OK;
}
