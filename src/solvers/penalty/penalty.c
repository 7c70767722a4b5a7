/* The penalized system (1)/(4) of paper 004 for one stiffness mu.  The contact indicator
 * I{G_i <= 0} switches exactly at the roots of G_i (then the integration restarts); Gamma^mu of
 * eq. (5) and the impulses are integrated along as states; every step is recorded, and a uniform grid
 * of samples (pl_loop_grid), the rows then sampled by events once the run ends (pl_solution_sample_rows).
 * Contact episodes (entry to exit of each constraint) are recorded as they happen.
 *
 * This file is the driver: it allocates a run, sets its scales, chooses the stepper of each phase
 * and holds the solver type; the engine's other parts are listed in engine.h.
 *
 * The integration follows the phase (event_loop.h, stepper.h):
 *
 *   - in flight and through impacts the motion must be resolved anyway (a contact lasts about half
 *     a period pi/omega, omega = sqrt(k mu)), and an explicit 8th-order Runge-Kutta pair (GSL's
 *     rk8pd) takes a few steps per contact where BDF takes tens;
 *   - once every active contact is sustained and its oscillation has decayed below the tolerance,
 *     the remaining motion is slow and the system stiff: CVODE's BDF (dense Newton, analytic
 *     Jacobian) then takes steps set by the slow dynamics.  A contact is taken as settled after
 *     T = max(3 half-periods, ln(a0/(rtol pen))/delta) from its entry, a0 its oscillation amplitude
 *     at entry, pen the resting penetration scale and delta = xi omega (omega (xi - sqrt(xi^2 - 1))
 *     when overdamped) the decay rate of the contact oscillation: the physical transient, resolved.
 *   - any contact switch (a root) hands the integration back to the Runge-Kutta pair. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/carve.h"
#include "core/clock.h"
#include "core/linalg.h"
#include "core/number.h"
#include "solvers/bdf_stability.h"
#include "solvers/penalty/engine.h"

enum { OPT_MU, OPT_RTOL };

static const pl_param_spec options[] = {
    {"mu", 1e8, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "stiffness of the contact force mu*F^s (paper 004 eq. (4))"},
    {"rtol", 1e-8, 1e-14, 1.0, PL_PARAM_MAX_OPEN,
     "relative tolerance; absolute tolerances follow the penetration scales at this mu"},
};

/* The resolvable range of mu (docs/reliability.md, "Resolvable range").  Double precision represents t to
 * eps |t| and q to eps |q|: a contact whose time scale 1/omega_i is within a few thousand ulps of t
 * is located, and its exit velocity measured, with relative errors of ~0.1 eps |t| omega_i per
 * contact (the ball: 1.5e-4 at 1e3 ulps); a penetration within 1e5 ulps of the terms of G_i is
 * resolved to no better than 1% (the error weights' floor of 1000 ulps, see error_weights; the
 * check is episodes.c's, RESOLVE_GAP_ULPS). */
#define RESOLVE_TIME_ULPS 4096.0

static pl_status alloc_ctx(run_ctx *c, pl_error *err)
{
    size_t n = c->n, m = c->m;
    c->singular_behind = c->singular_ahead = c->singular_order = NAN;
    pl_status s = pl_penalized_init(&c->field, c->model, c->mu, err);
    if (s == PL_OK)
        s = pen_neighbours_init(c, err);
    pl_forces *forces[] = {&c->f_rhs, &c->f_roots, &c->f_state, &c->f_start, &c->f_accel};
    for (size_t k = 0; s == PL_OK && k < sizeof forces / sizeof *forces; k++)
        s = pl_forces_init(forces[k], c->model, err);
    if (s != PL_OK)
        return s;
    /* compressed to the supports (pl_model_gap_sparse) but gap_dense, which may hold either */
    pl_gap **gaps[] = {&c->gap_roots, &c->gap_noise, &c->gap_accel, &c->gap_turn};
    int ok = (c->gap_dense = pl_gap_new_scratch(1, c->model)) != NULL;
    /* n x n only where used: a sparse model's gap accelerations read no dF_p/dv, its Jacobian forms no dense
     * block (pl_penalized_jacobian_csc) */
    size_t nn = pl_model_sparse(c->model) ? 0 : n * n;
    for (size_t k = 0; k < sizeof gaps / sizeof *gaps; k++)
        ok &= (*gaps[k] = pl_gap_new_sparse(1, c->model, 0)) != NULL;
    ok &= (c->geometry = pl_gap_new_sparse(m, c->model, 0)) != NULL;
    double *bdf_radius;
    pl_part parts[] = {{&c->pen, m},           {&c->omega, m},          {&c->bdf_omega, m},
                       {&c->bdf_xi, m},        {&c->force_side, m},
                       {&c->rate_side, m},     {&c->kink_t, m},         {&c->force_noise, m},
                       {&bdf_radius, 6 * m},   {&c->tol, 2 * n},        {&c->fp_geometry, n},
                       {&c->fp_accel, n},      {&c->fp_v_accel, nn}, {&c->fp_dense, n},
                       {&c->rhs_y, 2 * n},     {&c->held_y, 2 * n},     {&c->geometry_y, 2 * n}, {&c->geometry_gdot, m},
                       {&c->aim_g[0], m},      {&c->aim_gdot[0], m},    {&c->aim_g[1], m},
                       {&c->aim_gdot[1], m},   {&c->jac_q, n},          {&c->step_q, n},
                       {&c->jac_block, 4 * nn}};
    pl_int_part int_parts[] = {{&c->fitted, m}, {&c->lifting, m}, {&c->saved_active, m}};
    c->block = pl_carve(parts, PL_NPARTS(parts));
    c->int_block = pl_carve_int(int_parts, PL_NPARTS(int_parts));
    c->gap_model = calloc(m, sizeof *c->gap_model);
    if (!ok || !c->block || !c->int_block || !c->gap_model)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for a penalized run (%zu dofs, %zu constraints)", n, m);
    c->bdf_radius = (double (*)[6])bdf_radius;
    c->rhs_t = c->geometry_t = c->aim_t[0] = c->aim_t[1] = c->jac_t = c->step_t = NAN;
    return PL_OK;
}

static void free_ctx(run_ctx *c)
{
    pl_penalized_free(&c->field);
    pen_neighbours_free(c);
    pl_forces *forces[] = {&c->f_rhs, &c->f_roots, &c->f_state, &c->f_start, &c->f_accel};
    for (size_t k = 0; k < sizeof forces / sizeof *forces; k++)
        pl_forces_free(forces[k]);
    free(c->gap_roots);
    free(c->geometry);
    free(c->gap_noise);
    free(c->gap_accel);
    free(c->gap_dense);
    free(c->gap_turn);
    free(c->gap_model);
    free(c->int_block);
    free(c->block);
}

static pl_status alloc_run(run *r, pl_error *err)
{
    size_t m = r->ctx.m, n = r->ctx.n;
    pl_status s = alloc_ctx(&r->ctx, err);
    if (s == PL_OK)
        s = pen_slots_init(r, err); /* the arrays of the state's size */
    if (s != PL_OK)
        return s;
    pl_part parts[] = {{&r->settle, m},    {&r->lift_end, m},  {&r->press, 2 * m},
                       {&r->press_t, 2 * m}, {&r->prev_g, m},    {&r->prev_gdot, m},
                       {&r->entry_step, m},  {&r->entry_time, m},
                       {&r->g_scan, m},      {&r->g_a, m},       {&r->gdot_a, m},
                       {&r->gdot_b, m},      {&r->gdot_samples, FLIGHT_SAMPLES * m},
                       {&r->g_switch, m},    {&r->gdot_switch, m}, {&r->g_init, m},
                       {&r->gdot_init, m},   {&r->row, pl_ncols(n, m)}};
    pl_int_part int_parts[] = {{&r->open, m}, {&r->shared, m}, {&r->direction, m},
                               {&r->entry_episode, m}};
    r->block = pl_carve(parts, PL_NPARTS(parts));
    r->int_block = pl_carve_int(int_parts, PL_NPARTS(int_parts));
    if (!r->block || !r->int_block)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for a penalized run (%zu dofs, %zu constraints)", n, m);
    return PL_OK;
}

static void free_run(run *r)
{
    pen_slots_free(&r->ctx);
    free(r->state_block);
    free_ctx(&r->ctx);
    free(r->int_block);
    free(r->block);
}

/* The BDF stepper, made at the first settled contact: a run that has none (the wedge's and the
 * corner's impacts) does not pay CVODE's set-up and release (13% of the wedge's solve at mu = 1e6).
 * Should that fail (out of memory), the pair goes on for the step the loop is taking, and the missed
 * hook after it stops the run with the reason (pen_missed). */
static pl_stepper *bdf_stepper(run *r)
{
    if (!r->bdf && r->bdf_error.status == PL_OK &&
        pl_stepper_cvode_new(&r->bdf, &r->spec, &r->bdf_error) != PL_OK) {
        pl_stepper_free(r->bdf);
        r->bdf = NULL;
    }
    return r->bdf ? r->bdf : r->rk;
}

/* The stiff phase once every active contact has settled; the Runge-Kutta pair otherwise.  BDF pays
 * off only where its order can rise above 2: a lightly damped contact (xi below cos 86 deg) whose
 * order-2 steps stay below the order-3 stability threshold (h omega < 1.2 x 1.9) for BDF_HELD steps
 * gains nothing in step size over the explicit pair (h omega ~ 0.65), and the errors BDF 2 leaves in
 * the nearly undamped mode accumulate (sliding force off by 3 times its mu^-1/2 law on a moving
 * table at e = 0.99, mu = 1e9): the pair takes over until the contact set changes. */
#define BDF_HELD 200
static pl_stepper *choose(void *user, double t)
{
    run *r = user;
    run_ctx *c = &r->ctx;
    int settled = 1;
    for (size_t k = 0; k < c->field.nlist; k++) {
        size_t i = c->field.list[k];
        if (c->lifting[i] == 1 && t >= r->lift_end[i]) { /* the window of a lift-off passed */
            const pl_gap *gaps = pen_geometry_at(c, t, r->loop.stepper->y);
            int pushing = pen_pressing(c, i, gaps[i].g, c->geometry_gdot[i]) < 0.0;
            double end = pushing ? pen_lift_off_renewal(r, i, t) : NAN;
            if (isnan(end))
                c->lifting[i] = pushing ? 0 : 2;
            else
                r->lift_end[i] = end;
        }
        settled &= t >= r->settle[i] && c->lifting[i] != 1;
    }
    if (c->bdf_held >= BDF_HELD)
        c->bdf_futile = 1;
    c->settled_phase = c->field.nlist > 0 && settled; /* the error weights of settled contact, either stepper */
    return c->settled_phase && !c->bdf_futile ? bdf_stepper(r) : r->rk;
}

static double shorter(double a, double b) /* of two bounds, 0 none */
{
    return a > 0.0 && (b == 0.0 || a < b) ? a : b;
}

/* The loop's max_step hook: on the Runge-Kutta pair (flights and impacts) the case's forcing time
 * scale (pl_model_max_step; usually none); settled contacts (BDF) keep their long steps, but for the
 * approach of a lift-off (lift_off_approach); both within the neighbour list's reach. */
static double max_step(void *user, double t)
{
    run *r = user;
    double near = pen_neighbours_max_step(&r->ctx, t, r->loop.stepper->y);
    if (r->loop.stepper == r->bdf)
        return shorter(pen_lift_off_approach(r, t), near);
    return shorter(shorter(pl_model_max_step(r->ctx.model, t), pen_exit_bound(r, t)), near);
}

/* First step after a (re)start.
 * - Runge-Kutta in contact: the step that resolves the contact oscillation, whose local error
 *   grows like (h omega)^9: h = 4 rtol^(1/9) / omega (accepted steps measure 5 rtol^(1/9) /
 *   omega); at the entry of a nonlinear law's contact, the last contact's first step scaled to this
 *   one (pen_entry_step).  In flight the pair estimates its own (Hairer's rule), its growth after that first
 *   step unbounded as in CVODE.
 * - BDF: CVODE's own heuristic caps it so that no component changes by more than 10% of its
 *   size, which gives h ~ 1e-14 where the gap is 0.  We use the order-1 error estimate alone:
 *   h = 0.5 sqrt(2 / |y''|_wrms), y'' = (f(t + d, y + d f) - f(t, y))/d. */
static double initial_step(void *user, pl_stepper *s, double t)
{
    run *r = user;
    run_ctx *c = &r->ctx;
    double omega = 0.0;
    for (size_t k = 0; k < c->field.nlist; k++)
        omega = fmax(omega, c->omega[c->field.list[k]]);
    if (s == r->rk) {
        double entry = omega > 0.0 ? pen_entry_step(r, t) : 0.0;
        if (entry > 0.0)
            return entry;
        if (omega > 0.0)
            return 4.0 * pow(c->rtol, 1.0 / 9.0) / omega;
        /* Just off a constraint and turned back towards it (a hop that rises beyond round-off):
         * the first step ends no later than the top of the hop, so that the landing is a sign
         * change for the root finder.  A hop within round-off is left to the missed-crossing scan:
         * bounding the step by it would give steps of 1e-12 s after a lift-off at D ~ 0. */
        double h = INFINITY, *g = r->g_init, *gdot = r->gdot_init;
        pen_contact_state(c, t, s->y, g, gdot, NULL);
        for (size_t k = 0, count = pen_near_count(c); k < count; k++) {
            size_t i = pen_near_at(c, k);
            /* on the constraint: within round-off, or within the gap's change over the time
             * tolerance of the root the run was restarted at */
            double noise = pen_gap_noise(c, i, t, Q(s->y));
            if (fabs(g[i]) <= noise + fabs(gdot[i]) * 100.0 * DBL_EPSILON * fmax(1.0, fabs(t))) {
                double D = pen_gap_accel(c, i, t, s->y);
                if (gdot[i] * D < 0.0 && gdot[i] * gdot[i] / (2.0 * fabs(D)) > noise)
                    h = fmin(h, -gdot[i] / D);
            }
        }
        return isfinite(h) ? h : 0.0;
    }
    size_t N = c->N;
    const double *y = s->y;
    double *f0 = r->f0, *f1 = r->f1, *y1 = r->y1, *w = r->w;
    double d = 1e-3 / omega, remaining = r->sol->t_end - t, h = NAN;
    if (pen_rhs(t, y, f0, c) == 0 && pen_error_weights(t, y, w, c) == 0) {
        for (size_t j = 0; j < N; j++)
            y1[j] = y[j] + d * f0[j];
        if (pen_rhs(t + d, y1, f1, c) == 0) {
            double s2 = 0.0;
            for (size_t j = 0; j < N; j++) {
                double ydd = (f1[j] - f0[j]) / d * w[j];
                s2 += ydd * ydd;
            }
            s2 = sqrt(s2 / (double)N);
            h = s2 > 0.0 ? 0.5 * sqrt(2.0 / s2) : 0.1 * remaining;
        }
        r->sol->stats.rhs_evals += 2;
    }
    if (!isfinite(h))
        return 0.0; /* let CVODE choose */
    return fmax(fmin(h, 0.1 * remaining), 100.0 * DBL_EPSILON * fmax(fabs(t), remaining));
}

/* ---- the run ------------------------------------------------------------------------------- */

static void init_scales(run_ctx *c)
{
    const pl_model *model = c->model;
    double V = model->v_scale, A = model->a_scale;
    c->floor_q = V * V / A;
    c->floor_v = V;
    for (size_t i = 0; i < c->m; i++) {
        const pl_contact_law *law = &model->law[i];
        /* a nonlinear law's frequency is its fast system's at the impact speed V */
        c->omega[i] = pl_law_is_linear(law) ? sqrt(law->k * c->mu) : pl_law_frequency(law, c->mu, V);
        c->pen[i] = pl_law_rest_penetration(law, c->mu, V, A);
        /* The mode BDF's order must keep stable (bdf_max_order) is that of the settled contact: Kelvin-
         * Voigt's own; a law delta^n linearized at its resting penetration delta0 under the load A,
         * frequency sqrt(n A/delta0) and its own settling rate (the impact's frequency and Kelvin-Voigt
         * equivalent xi misjudged a resting Hunt-Crossley contact, c = 10 s/m at mu = 1e8, as damped
         * at xi ~ 0.7 where it is at 0.09: BDF sustained its oscillation as a numerical cycle of 1e-6 of
         * the load for 0.6 s, 550 steps). */
        double n = law->type->exponent(law->p), rest = law->type->rest_penetration(law->p, c->mu, law->m_ref, A);
        c->bdf_omega[i] = pl_law_is_linear(law) || !(rest > 0.0) ? c->omega[i] : sqrt(n * A / rest);
        c->bdf_xi[i] = pl_law_is_linear(law) || !(rest > 0.0) ? law->xi
                                                             : pl_law_settling_rate(law, c->mu, A) / c->bdf_omega[i];
        for (int order = 1; order <= 5; order++)
            c->bdf_radius[i][order] = NAN;
        c->kink_t[i] = NAN;
    }
}

/* The highest BDF order whose stability region holds every contact mode at step h: order k is
 * allowed once h omega_i exceeds 1.2 times the radius of its instability region along the ray of the
 * mode (bdf_stability.h), at least order 2 (A-stable).  Without this limit BDF at orders 3 to 5
 * settles on steps h omega ~ 1 next to a lightly damped contact and sustains its oscillation as a
 * numerical cycle. */
static int bdf_max_order(double h, void *user)
{
    run_ctx *c = user;
    const size_t *list = c->field.list, count = c->field.nlist;
    for (size_t e = 0; e < count; e++) {
        size_t i = list[e];
        if (isnan(c->bdf_radius[i][5]))
            for (int order = 1; order <= 5; order++)
                c->bdf_radius[i][order] = pl_bdf_unstable_radius(order, c->bdf_xi[i]);
    }
    for (int k = 5; k > 2; k--) {
        int stable = 1;
        for (size_t e = 0; e < count; e++)
            stable &= h * c->bdf_omega[list[e]] >= 1.2 * c->bdf_radius[list[e]][k];
        if (stable) {
            c->bdf_held = 0;
            return k;
        }
    }
    c->bdf_held++;
    return 2;
}

/* Newton's iteration of a BDF step solves (I - gamma J) d = -r with the Jacobian J of an earlier
 * state.  Where the stiff direction of a contact turns (a sliding contact on a curved constraint
 * whose normal is not a coordinate: the Cartesian cup's and the disk's normal turns at the speed
 * over the radius), an old J is off by k mu times the angle theta turned since, and the iteration
 * contracts by about (gamma omega)^2 theta along the tangent, gamma ~ h: it diverges once
 * (h omega)^2 theta ~ 1, a convergence failure at every step at mu = 1e10 (each re-evaluating J and
 * holding the step), and below that its iterates converge slowly.  A fresh Jacobian is therefore
 * asked for the step when h omega (h omega + 2 xi) times the angle the normal will have turned since
 * the last fresh one, by the step's end (the turn since, plus that of the last step scaled to h),
 * exceeds FRESH_JACOBIAN; a normal that does not turn (a flat constraint, the polar cup's) keeps
 * CVODE's own reuse.  The normal at the step's start stands for the Jacobian's state (CVODE
 * evaluates it at the predicted end), which overstates the turn by one step at most.  The normals
 * there and at the last step's start are those of the gaps at the positions kept (n each, not a
 * normal per constraint). */
#define FRESH_JACOBIAN 0.1

/* The angle between the normals of constraint i at its geometry `now` and at (ta, qa), over its support. */
static double turn_since(run_ctx *c, size_t i, const pl_gap *now, double ta, const double *qa)
{
    pl_model_gap_sparse(c->model, i, ta, qa, c->gap_turn);
    size_t count = now->support ? now->nsupport : c->n;
    double norm = pl_norm(now->grad, count), norm_a = pl_norm(c->gap_turn->grad, count), d2 = 0.0;
    if (!(norm > 0.0 && norm_a > 0.0))
        return 0.0;
    for (size_t e = 0; e < count; e++) {
        double d = now->grad[e] / norm - c->gap_turn->grad[e] / norm_a;
        d2 += d * d;
    }
    return sqrt(d2); /* the chord: the angle, to O(angle^3) */
}

static int bdf_fresh_jacobian(double t, const double *y, double h, void *user)
{
    run_ctx *c = user;
    size_t n = c->n;
    const pl_gap *gaps = pen_geometry_at(c, t, y);
    int fresh = isnan(c->jac_t);
    for (size_t k = 0; k < c->field.nlist && !fresh; k++) {
        size_t i = c->field.list[k];
        double turn = turn_since(c, i, &gaps[i], c->jac_t, c->jac_q);
        if (t > c->step_t) /* the last step's turn, scaled to h */
            turn += turn_since(c, i, &gaps[i], c->step_t, c->step_q) * h / (t - c->step_t);
        double hw = h * c->bdf_omega[i]; /* the settled contact's mode (init_scales) */
        fresh = !(hw * (hw + 2.0 * c->bdf_xi[i]) * turn <= FRESH_JACOBIAN);
    }
    c->step_t = t;
    memcpy(c->step_q, Q(y), n * sizeof *c->step_q);
    if (fresh) {
        c->jac_t = t;
        memcpy(c->jac_q, Q(y), n * sizeof *c->jac_q);
    }
    return fresh;
}

static pl_status setup_steppers(run *r, const double *y0, pl_error *err)
{
    run_ctx *c = &r->ctx;
    r->spec = (pl_stepper_spec){.size = c->N, .y0 = y0, .t_end = r->sol->t_end, .rhs = pen_rhs,
                            .weights = pen_error_weights, .jacobian = pl_model_sparse(c->model) ? NULL : pen_jacobian,
                            .jacobian_csc = pen_jacobian_csc, .roots = pen_roots,
                            .root = pen_root, .live_roots = pen_live_roots, .kink = pen_kink, .aim = pen_aim, .singular = pen_singular, .nroots = (int)(2 * c->m),
                            .napprox = (int)c->m, .root_ulps = 4.0, .max_order = bdf_max_order,
                            .fresh_jacobian = bdf_fresh_jacobian, .user = c,
                            .context = r->context};
    pl_status s = pl_stepper_rk_new(&r->rk, &r->spec, err);
    if (s != PL_OK)
        return s;
    /* BDF's order is limited to where the contact modes are stable (bdf_max_order), so CVODE's
     * stability limit detection stays off. */
    r->loop.stepper = r->rk;
    return PL_OK;
}

static pl_status integrate(run *r, pl_error *err)
{
    run_ctx *c = &r->ctx;
    const double *y = r->loop.stepper->y;
    pl_status s;
    pen_contact_state(c, 0.0, y, r->prev_g, r->prev_gdot, NULL);
    pen_far_gaps(c, 0.0, y, r->prev_g, r->prev_gdot);
    for (size_t i = 0; i < c->m; i++)
        if (c->field.active[i]) {
            pen_start_force_root(c, i, 0.0, y);
            if ((s = pen_open_episode(r, i, 0.0, y, err)) != PL_OK)
                return s;
        }
    pen_restart_gamma(c, 0.0, r->loop.stepper->y);
    /* The start is in flight or in a fresh contact: the Runge-Kutta pair, set up at t = 0. */
    if ((s = pl_loop_record(&r->loop, 0.0, y, err)) != PL_OK)
        return s;
    return pl_loop_run(&r->loop, err);
}

/* The rows stored (docs/methods.md, "Stored rows"): every row of every contact episode, where the
 * analysis reads each row (the sliding force, the free gap acceleration, lift-off) and the distances
 * interpolate the stiff motion between them; in flight, `samples` rows evenly spaced between two
 * episodes (pl_solution_sample_rows). */
static pl_status store_rows(pl_solution *sol, size_t samples, pl_error *err)
{
    size_t rows = sol->traj.nrows;
    if (samples == 0 || rows == 0)
        return PL_OK;
    unsigned char *keep = calloc(rows, 1);
    if (!keep)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory sampling %zu rows", rows);
    for (size_t k = 0; k < sol->nepisodes; k++)
        for (size_t r = sol->episodes[k].row_in; r <= sol->episodes[k].row_out && r < rows; r++)
            keep[r] = 1;
    pl_status s = pl_solution_sample_rows(sol, keep, samples, err);
    free(keep);
    return s;
}

static pl_status solve(const pl_model *model, const pl_solve_opts *opts, pl_solution *sol, pl_error *err)
{
    double t0 = pl_now_seconds();
    run r;
    memset(&r, 0, sizeof r);
    r.sol = sol;
    run_ctx *c = &r.ctx;
    c->model = model;
    c->mu = opts->option[OPT_MU];
    c->rtol = opts->option[OPT_RTOL];
    c->n = model->n;
    c->m = model->m;
    c->N = 2 * c->n + 1; /* and the slots (pen_slots_init) */
    char mu_text[PL_NUMBER_LEN];
    snprintf(r.context, sizeof r.context, "mu = %s", pl_format_short(c->mu, mu_text, sizeof mu_text));
    pl_error local;
    pl_error *e = err ? err : &local;
    pl_error_clear(e);
    pl_status s = alloc_run(&r, e);
    if (s != PL_OK) {
        free_run(&r);
        pl_solution_finish(sol, s, e, t0);
        return s;
    }
    init_scales(c);
    r.loop = (pl_event_loop){.hooks = {.record = pen_record_sample, .missed = pen_missed, .event = pen_switch_at,
                                       .choose = choose, .initial_step = initial_step,
                                       .max_step = max_step},
                             .user = &r, .context = r.context, .stats = &sol->stats, .t_end = opts->t_end,
                             .max_steps = opts->max_steps > 0 ? opts->max_steps : PL_DEFAULT_MAX_STEPS,
                             .max_seconds = opts->max_seconds, .started = pl_budget_start(opts, t0),
                             .model = model, .cancel = opts->cancel, .cancel_user = opts->cancel_user,
                             .output = sol, .samples = pl_loop_grid(opts->samples), .next_sample = 1};

    double *y0 = r.y0;
    pl_model_initial_state(model, Q(y0), V(y0, c));
    pl_model_initial_activity(model, c->field.work, 0.0, Q(y0), V(y0, c), c->field.active);
    for (size_t i = 0; i < c->m; i++) {
        r.open[i] = r.entry_episode[i] = -1;
    }
    r.handover = c->m;
    pen_modes_changed(c);
    if (c->slot_of && (s = pen_slots_reserve(&r, c->field.nlist, &y0, e)) == PL_OK)
        for (size_t k = 0; k < c->field.nlist; k++)
            pen_slot_take(c, c->field.list[k], y0);
    pen_neighbours_rebuild(c, 0.0, Q(y0));

    if (s == PL_OK)
        s = setup_steppers(&r, y0, e);
    r.spec.sparse_from = opts->sparse_from; /* for the BDF stepper, made from r.spec at the first settled contact */
    if (s == PL_OK)
        s = integrate(&r, e);
    if (r.loop.stepper)
        r.loop.stepper->add_counters(r.loop.stepper, &sol->stats);
    sol->stats.gap_evals = c->gap_evals;
    sol->stats.neighbour_rebuilds = c->nl.rebuilds;
    sol->stats.root_writes = c->root_writes;
    sol->stats.rebuild_visits = c->nl.visits;
    sol->stats.state_size = (long)c->N;

    /* Whatever happened, report the state reached and close the open episodes there. */
    pl_solution_finish(sol, s, e, t0);
    const double *yf = r.loop.stepper ? r.loop.stepper->y : y0;
    for (size_t i = 0; i < c->m; i++)
        if (r.open[i] >= 0)
            pen_close_episode(&r, i, sol->t_final, yf, 0);
    /* The rows stored, once the episodes are closed: a failed run's too (its first failure kept). */
    pl_error sample_err;
    pl_status sampled = store_rows(sol, opts->samples, s == PL_OK ? e : &sample_err);
    if (s == PL_OK && sampled != PL_OK)
        pl_solution_finish(sol, s = sampled, e, t0);
    pl_stepper_free(r.rk);
    pl_stepper_free(r.bdf);
    free_run(&r);
    sol->stats.wall_seconds = pl_now_seconds() - t0;
    return s;
}

/* The largest mu whose contacts last RESOLVE_TIME_ULPS ulps of t up to t_end (every constraint). */
static double largest_resolvable_mu(const pl_model *model, double t_end)
{
    double tau = RESOLVE_TIME_ULPS * DBL_EPSILON * fmax(fabs(t_end), DBL_MIN), mu = INFINITY;
    for (size_t i = 0; i < model->m; i++) {
        const pl_contact_law *law = &model->law[i];
        if (pl_law_is_linear(law)) {
            mu = fmin(mu, 1.0 / (law->k * tau * tau));
        } else { /* frequency ~ mu^(1/(n+1)) at the speed V */
            double n = law->type->exponent(law->p), f1 = pl_law_frequency(law, 1.0, model->v_scale);
            mu = fmin(mu, pow(1.0 / (tau * f1), n + 1.0));
        }
    }
    return mu;
}

static pl_status check(const pl_model *model, const pl_solve_opts *opts, pl_error *err)
{
    double mu = opts->option[OPT_MU], largest = largest_resolvable_mu(model, opts->t_end);
    char mu_text[PL_NUMBER_LEN], t_text[PL_NUMBER_LEN], ulps[PL_NUMBER_LEN], largest_text[PL_NUMBER_LEN];
    pl_format_short(mu, mu_text, sizeof mu_text);
    pl_format_short(opts->t_end, t_text, sizeof t_text);
    pl_format_short(RESOLVE_TIME_ULPS, ulps, sizeof ulps);
    if (mu > largest && !(largest >= 1e-300))
        return pl_fail(err, PL_ERR_INPUT,
                       "t-end = %s is beyond what double precision resolves for any mu (a contact's time scale "
                       "1/sqrt(k mu) below %s ulps of t)",
                       t_text, ulps);
    if (mu > largest) /* the largest quoted as a value the user may give back: 3 digits, rounded down */
        return pl_fail(err, PL_ERR_INPUT,
                       "mu = %s is beyond what double precision resolves up to t-end = %s (a contact's time "
                       "scale 1/sqrt(k mu) below %s ulps of t); the largest mu for this case and t-end is %s",
                       mu_text, t_text, ulps, pl_format_down(largest, 3, largest_text, sizeof largest_text));
    return PL_OK;
}

const pl_solver_type pl_solver_penalty = {
    .name = "penalty",
    .summary = "the penalized system for one stiffness mu (Runge-Kutta rk8pd through flights and impacts, "
               "CVODE BDF in settled contact)",
    .family = PL_FAMILY_PENALTY,
    .capabilities = PL_SOLVER_EPISODES | PL_SOLVER_GAMMA | PL_SOLVER_DENSE | PL_SOLVER_COMPLIANT | PL_SOLVER_SAMPLED,
    .options = options,
    .noptions = sizeof options / sizeof options[0],
    .refine = "mu",
    .refine_sign = +1,
    .check = check,
    .solve = solve,
};
