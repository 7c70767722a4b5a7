/* The penalized system (1)/(4) of paper 004 for one stiffness mu, integrated with CVODE (BDF,
 * Newton, dense direct solver, analytic Jacobian).  The contact indicator I{G_i <= 0} switches
 * exactly at the roots of G_i (CVODE rootfinding, then restart); Gamma^mu of eq. (5) and the
 * impulses are integrated along; every internal step is recorded, and optionally a uniform grid of
 * samples.  Contact episodes (entry to exit of each constraint) are recorded as they happen. */
#include <cvode/cvode.h>
#include <float.h>
#include <gsl/gsl_integration.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "core/clock.h"
#include "core/linalg.h"
#include "core/rootfind.h"
#include "solvers/cvode_driver.h"
#include "solvers/penalty/penalized.h"
#include "solvers/solver.h"


enum { OPT_MU, OPT_RTOL };

static const pl_param_spec options[] = {
    {"mu", 1e8, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "stiffness of the contact force mu*F^s (paper 004 eq. (4))"},
    {"rtol", 1e-8, 1e-14, 1.0, PL_PARAM_MAX_OPEN,
     "relative tolerance; absolute tolerances follow the penetration scales at this mu"},
};

/* Everything the vector field needs; CVODE's user data. */
typedef struct {
    const pl_model *model;
    pl_penalized field; /* the vector field and the contact modes */
    double mu, rtol;
    size_t n, m, N; /* dofs, constraints, state size 2n */
    double pen[PL_MAX_CON];     /* resting penetration scale min(A/(k mu), V/sqrt(k mu)) */
    double omega[PL_MAX_CON];   /* contact frequency sqrt(k mu) */
    double floor_q, floor_v;    /* free-motion scales V^2/A and V */
    void *cvode; /* for the current time in error_weights */
} run_ctx;

/* The state is y = (q[n], v[n]).  Gamma^mu and the impulses are quadratures of the solution;
 * they are integrated on CVODE's dense output after each step (see accumulate) rather than as
 * extra states, because dGamma/dt = 1 + |sum w_i lambda_i| has a kink where the force changes
 * sign late in every impact, which would cut the step size of the whole system. */
#define Q(y) (y)
#define V(y, c) ((y) + (c)->n)

static int evaluate_forces(const run_ctx *c, double t, const double *q, const double *v, pl_forces *f)
{
    return pl_penalized_forces(&c->field, t, q, v, f);
}

static int rhs(sunrealtype t, N_Vector yv, N_Vector ydotv, void *user)
{
    const run_ctx *c = user;
    const double *y = N_VGetArrayPointer(yv);
    double *yd = N_VGetArrayPointer(ydotv);
    size_t n = c->n;
    if (!pl_all_finite(y, c->N))
        return 1; /* recoverable: CVODE retries with a smaller step */
    pl_forces f;
    if (evaluate_forces(c, t, Q(y), V(y, c), &f))
        return -1;
    for (size_t j = 0; j < n; j++) {
        yd[j] = f.fp[j];
        yd[n + j] = f.a[j] + f.ac[j];
    }
    return pl_all_finite(yd, c->N) ? 0 : 1;
}

static int jacobian(sunrealtype t, N_Vector yv, N_Vector fy, SUNMatrix J, void *user, N_Vector t1,
                    N_Vector t2, N_Vector t3)
{
    (void)fy, (void)t1, (void)t2, (void)t3;
    const run_ctx *c = user;
    const double *y = N_VGetArrayPointer(yv);
    double Jr[4 * PL_MAX_DOF * PL_MAX_DOF];
    if (pl_penalized_jacobian(&c->field, t, Q(y), V(y, c), Jr))
        return -1;
    for (size_t r = 0; r < c->N; r++)
        for (size_t col = 0; col < c->N; col++)
            SM_ELEMENT_D(J, r, col) = Jr[r * c->N + col];
    return 0;
}

/* The root functions are the gaps G_i: the contact indicator switches exactly there. */
static int roots(sunrealtype t, N_Vector yv, sunrealtype *gout, void *user)
{
    const run_ctx *c = user;
    const double *y = N_VGetArrayPointer(yv);
    for (size_t i = 0; i < c->m; i++) {
        pl_gap g;
        pl_model_gap(c->model, i, t, Q(y), &g);
        gout[i] = g.g;
    }
    return 0;
}

/* Error weights that follow the scales of the problem at this mu:
 * - away from contacts, q and v are controlled relative to their size, with floors at the
 *   free-motion scales L = V^2/A and V;
 * - near constraint i, the gap and its rate are controlled relative to the contact amplitude
 *   a_i = hypot(G_i, Gdot_i/omega_i), omega_i = sqrt(k_i mu), with a floor at the resting
 *   penetration scale pen_i: tol(G_i) = rtol (a_i + pen_i), tol(Gdot_i) = omega_i tol(G_i).
 *   In an impact a_i ~ V/omega_i ~ mu^(-1/2); at rest a_i ~ pen_i ~ A/(k_i mu).  Both are thus
 *   resolved to rtol at every mu, even where q itself is O(1) (a moving table). */
static int error_weights(N_Vector yv, N_Vector wv, void *user)
{
    const run_ctx *c = user;
    const double *y = N_VGetArrayPointer(yv);
    double *w = N_VGetArrayPointer(wv);
    size_t n = c->n;
    double t = 0.0;
    if (CVodeGetCurrentTime(c->cvode, &t) != CV_SUCCESS)
        return -1;
    double tol[2 * PL_MAX_DOF];
    for (size_t j = 0; j < n; j++) {
        tol[j] = c->rtol * (fabs(y[j]) + c->floor_q);
        tol[n + j] = c->rtol * (fabs(y[n + j]) + c->floor_v);
    }
    double fp[PL_MAX_DOF];
    pl_model_velocity_map(c->model, t, Q(y), V(y, c), fp, NULL, NULL, NULL);
    for (size_t i = 0; i < c->m; i++) {
        pl_contact k;
        pl_model_contact(c->model, i, t, Q(y), fp, NULL, &k);
        double amplitude = hypot(k.gap.g, k.gdot / c->omega[i]);
        double tol_g = c->rtol * (amplitude + c->pen[i]);
        pl_tighten_for_gap(tol, n, k.gap.grad, tol_g, c->omega[i] * tol_g);
    }
    /* Nothing much finer than the round-off of a component can be resolved: the tolerance is
     * floored at 1000 ulps.  A resting penetration A/(k mu) under a table moving with O(1)
     * amplitude is then resolved to rtol while it is above ~2e-11 |q| (mu up to ~1e9 for the
     * vibrating table; at mu = 1e10 to about 1e-5 relative). */
    for (size_t j = 0; j < 2 * n; j++)
        w[j] = 1.0 / fmax(tol[j], 1000.0 * DBL_EPSILON * fabs(y[j]));
    return 0;
}

/* ---- bookkeeping of the run ---------------------------------------------------------------- */

typedef struct {
    run_ctx ctx;
    pl_solution *sol;
    pl_cvode_loop loop;
    N_Vector y, ytmp; /* loop.cv.y and loop.cv.ytmp */
    int open[PL_MAX_CON];       /* index of the open episode of constraint i, or -1 */
    double gamma;               /* Gamma^mu at the last sample, eq. (5) */
    double impulse[PL_MAX_CON]; /* integral of lambda_i up to the last sample */
    gsl_integration_glfixed_table *gauss;
    int sustained;              /* some constraint has been in contact for over 2 periods */
    double prev_g[PL_MAX_CON], prev_gdot[PL_MAX_CON]; /* at the last recorded row */
    size_t missed_constraint;   /* the constraint of the crossing `missed` reported */
    char context[64];           /* "mu = ..." for messages */
} run;

#define CHECK_CV(call, what) PL_CVODE_CHECK(r->ctx.cvode, r->context, r->loop.cv.message, call, what)

/* Gap, gap rate and force of every constraint at a state; the force uses the current modes. */
static void contact_state(const run_ctx *c, double t, const double *y, double *g, double *gdot,
                          double *lambda)
{
    pl_forces f;
    if (evaluate_forces(c, t, Q(y), V(y, c), &f)) { /* M(q) not positive definite: no state */
        for (size_t i = 0; i < c->m; i++) {
            g[i] = gdot[i] = NAN;
            if (lambda)
                lambda[i] = NAN;
        }
        return;
    }
    for (size_t i = 0; i < c->m; i++) {
        pl_contact k;
        pl_model_contact(c->model, i, t, Q(y), f.fp, f.minv, &k);
        g[i] = k.gap.g;
        gdot[i] = k.gdot;
        if (lambda)
            lambda[i] = f.lambda[i];
    }
}

static pl_status record_sample(void *user, double t, const double *y, pl_error *err)
{
    run *r = user;
    const run_ctx *c = &r->ctx;
    size_t n = c->n, m = c->m;
    double row[2 + 2 * PL_MAX_DOF + 2 * PL_MAX_CON];
    row[0] = t;
    row[1] = r->gamma;
    memcpy(row + 2, y, 2 * n * sizeof *row);
    contact_state(c, t, y, row + pl_col_g(n, m), r->prev_gdot, row + pl_col_force(n, m));
    memcpy(r->prev_g, row + pl_col_g(n, m), m * sizeof *row);
    for (size_t i = 0; i < m; i++) {
        int e = r->open[i];
        if (e >= 0 && -r->prev_g[i] > r->sol->episodes[e].max_penetration) {
            r->sol->episodes[e].max_penetration = -r->prev_g[i];
            r->sol->episodes[e].t_max_penetration = t;
        }
    }
    return pl_table_append(&r->sol->traj, row, err);
}

static pl_status open_episode(run *r, size_t i, double t, pl_error *err)
{
    pl_episode *ep;
    pl_status s = pl_solution_add_episode(r->sol, i, t, &ep, err);
    if (s != PL_OK)
        return s;
    ep->gdot_in = r->prev_gdot[i];
    ep->gamma_in = r->gamma;
    ep->impulse = -r->impulse[i]; /* completed at close */
    ep->max_penetration = fmax(0.0, -r->prev_g[i]);
    ep->row_in = r->sol->traj.nrows; /* the row recorded right after the switch */
    r->open[i] = (int)r->sol->nepisodes - 1;
    return PL_OK;
}

static void close_episode(run *r, size_t i, double t, int ended)
{
    pl_episode *ep = &r->sol->episodes[r->open[i]];
    ep->gamma_out = r->gamma;
    ep->impulse += r->impulse[i];
    ep->row_out = r->sol->traj.nrows - 1;
    if (ended) {
        ep->t_out = t;
        ep->gdot_out = r->prev_gdot[i];
    }
    r->open[i] = -1;
}

/* First step after a (re)start.  CVODE's own heuristic caps it so that no component changes by
 * more than 10% of its size; right after a contact switch the gap is 0, which gives h ~ 1e-14
 * and a long ramp.  We use the order-1 error estimate alone: h = 0.5 sqrt(2 / |y''|_wrms),
 * with y'' = (f(t + d, y + d f) - f(t, y)) / d. */
static double initial_step(run *r, double t)
{
    run_ctx *c = &r->ctx;
    size_t N = c->N;
    double *y = N_VGetArrayPointer(r->y), *yd = N_VGetArrayPointer(r->ytmp);
    double f0[2 * PL_MAX_DOF], y1[2 * PL_MAX_DOF], w[2 * PL_MAX_DOF];
    double omega = 0.0;
    for (size_t i = 0; i < c->m; i++)
        omega = fmax(omega, c->omega[i]);
    double d = 1e-3 / omega, remaining = r->sol->t_end - t;
    N_Vector wv = N_VMake_Serial((sunindextype)N, w, r->loop.cv.sun);
    N_Vector y1v = N_VMake_Serial((sunindextype)N, y1, r->loop.cv.sun);
    double h = NAN;
    if (wv && y1v && rhs(t, r->y, r->ytmp, c) == 0 && error_weights(r->y, wv, c) == 0) {
        memcpy(f0, yd, N * sizeof *f0);
        for (size_t j = 0; j < N; j++)
            y1[j] = y[j] + d * f0[j];
        if (rhs(t + d, y1v, r->ytmp, c) == 0) {
            double s = 0.0;
            for (size_t j = 0; j < N; j++) {
                double ydd = (yd[j] - f0[j]) / d * w[j];
                s += ydd * ydd;
            }
            s = sqrt(s / (double)N);
            h = s > 0.0 ? 0.5 * sqrt(2.0 / s) : 0.1 * remaining;
        }
        r->sol->stats.rhs_evals += 2;
    }
    if (wv)
        N_VDestroy(wv);
    if (y1v)
        N_VDestroy(y1v);
    if (!isfinite(h))
        return 0.0; /* let CVODE choose */
    return fmax(fmin(h, 0.1 * remaining), 100.0 * DBL_EPSILON * fmax(fabs(t), remaining));
}

/* Step-size hysteresis.  CVODE keeps h unless it may grow by the upper bound of its "fixed step"
 * band (default 1.5).  Through an impact, a band of 1.1 saves about a quarter of the steps; in
 * sustained contact the default band is needed by CVODE's stability-limit detection to settle the
 * lightly damped contact oscillation (bouncing_ball at mu = 1e8: 3.8e3 steps at rest with the
 * default band, 2.2e4 with 1.1). */
#define IMPACT_STEP_BAND 1.1
#define DEFAULT_STEP_BAND 1.5

static pl_status update_step_band(run *r, double t, int restarted, pl_error *err)
{
    run_ctx *c = &r->ctx;
    int sustained = 0;
    for (size_t i = 0; i < c->m; i++) {
        int e = r->open[i];
        if (e >= 0 && t - r->sol->episodes[e].t_in > 4.0 * M_PI / c->omega[i])
            sustained = 1;
    }
    if (restarted || sustained != r->sustained) {
        r->sustained = sustained;
        CHECK_CV(CVodeSetEtaFixedStepBounds(c->cvode, 0.0, sustained ? DEFAULT_STEP_BAND : IMPACT_STEP_BAND),
                 "CVodeSetEtaFixedStepBounds");
    }
    return PL_OK;
}

static pl_status after_step(void *user, double t, pl_error *err)
{
    return update_step_band(user, t, 0, err);
}

static pl_status after_restart(void *user, double t, pl_error *err)
{
    run *r = user;
    CHECK_CV(CVodeSetInitStep(r->ctx.cvode, initial_step(r, t)), "CVodeSetInitStep");
    return update_step_band(r, t, 1, err);
}

/* ---- crossings between step ends ------------------------------------------------------------ */

typedef enum { DENSE_GAP, DENSE_GAP_RATE, DENSE_FORCE } dense_quantity;

typedef struct {
    run *r;
    size_t i;
    dense_quantity what;
} dense_fn;

static double dense_eval(double t, void *p)
{
    dense_fn *d = p;
    run_ctx *c = &d->r->ctx;
    const double *y = pl_cvode_dense(&d->r->loop.cv, t);
    if (!y)
        return NAN;
    pl_forces f;
    if (evaluate_forces(c, t, Q(y), V(y, c), &f))
        return NAN;
    if (d->what == DENSE_FORCE)
        return f.lambda[d->i];
    pl_contact k;
    pl_model_contact(c->model, d->i, t, Q(y), f.fp, f.minv, &k);
    return d->what == DENSE_GAP_RATE ? k.gdot : k.gap.g;
}

/* Root of a quantity of constraint i in [a, b] on the dense output; NAN if not bracketed. */
static double dense_root(run *r, size_t i, dense_quantity what, double a, double b)
{
    dense_fn d = {r, i, what};
    return pl_brent(dense_eval, &d, a, b, 0);
}

/* Advance Gamma^mu (eq. (5)) and the impulses over [a, b], a sub-interval of the last step, with
 * the current modes: Gauss-Legendre quadrature of the dense output on the pieces between the
 * sign changes of the active forces, where |sum w_i lambda_i| has its kink.  In flight no force
 * acts and Gamma^mu advances by b - a. */
static void accumulate(void *user, double a, double b)
{
    run *r = user;
    run_ctx *c = &r->ctx;
    if (!(b > a))
        return;
    int any = 0;
    for (size_t i = 0; i < c->m; i++)
        any |= c->field.active[i];
    if (!any) { /* no force acts: Gamma^mu = t, no impulse */
        r->gamma += b - a;
        return;
    }
    double cuts[PL_MAX_CON + 2];
    size_t ncuts = 0;
    cuts[ncuts++] = a;
    for (size_t i = 0; i < c->m; i++) {
        if (!c->field.active[i])
            continue;
        dense_fn d = {r, i, DENSE_FORCE};
        if (dense_eval(a, &d) * dense_eval(b, &d) < 0.0) {
            double root = dense_root(r, i, DENSE_FORCE, a, b);
            if (root > a && root < b)
                cuts[ncuts++] = root;
        }
    }
    qsort(cuts + 1, ncuts - 1, sizeof *cuts, pl_compare_doubles);
    cuts[ncuts++] = b;
    size_t npts = r->gauss->n;
    for (size_t piece = 0; piece + 1 < ncuts; piece++) {
        r->gamma += cuts[piece + 1] - cuts[piece];
        for (size_t k = 0; k < npts; k++) {
            double tk, wk;
            gsl_integration_glfixed_point(cuts[piece], cuts[piece + 1], k, &tk, &wk, r->gauss);
            const double *y = pl_cvode_dense(&r->loop.cv, tk);
            if (!y)
                continue;
            pl_forces f;
            if (evaluate_forces(c, tk, Q(y), V(y, c), &f))
                continue;
            r->gamma += wk * pl_norm(f.ac, c->n);
            for (size_t i = 0; i < c->m; i++)
                r->impulse[i] += wk * f.lambda[i];
        }
    }
}

/* The first crossing of G_i = 0 after the last recorded sample of the step's start and before
 * te: G_i may have crossed several sub-intervals (output samples) before its extremum, so the
 * sign change is looked for piece by piece on the dense output, then refined by Brent. */
static double first_gap_root(run *r, size_t i, double te)
{
    dense_fn d = {r, i, DENSE_GAP};
    double ta = r->loop.prev_t, ga = dense_eval(ta, &d);
    size_t k = r->loop.next_sample;
    while (ta < te) {
        while (pl_cvode_sample_time(&r->loop, k) <= ta)
            k++;
        double tb = fmin(pl_cvode_sample_time(&r->loop, k), te), gb = dense_eval(tb, &d);
        if (ga * gb <= 0.0)
            return dense_root(r, i, DENSE_GAP, ta, tb);
        ta = tb;
        ga = gb;
    }
    return NAN;
}

/* Rootfinding sees only sign changes of G_i between step ends.  A contact that starts and ends
 * within one step (or an exit and re-entry) leaves G_i with the same sign at both ends, but its
 * rate Gdot_i changes sign at the extremum in between.  At such an extremum of an inactive
 * constraint (a minimum of G) we evaluate G on the dense output: G < 0 means a missed entry, and
 * the run restarts from the crossing.  Symmetrically for the maximum of an active constraint.
 * Grazing contacts (a minimum with G >= 0) exert no force and need no action.  The same search
 * refines the maximum penetration of active constraints.  Checks [ta, tb] inside the last step,
 * given the gap rates at both ends; returns 1 and the crossing (t, i) if one was missed. */
static int find_missed_crossing(run *r, double ta, const double *gdot_a, double tb, const double *gdot_b,
                                double *t_cross, size_t *which)
{
    run_ctx *c = &r->ctx;
    int found = 0;
    for (size_t i = 0; i < c->m; i++) {
        int minimum = gdot_a[i] < 0.0 && gdot_b[i] >= 0.0;
        int maximum = gdot_a[i] > 0.0 && gdot_b[i] <= 0.0;
        if (!(minimum || maximum) || tb <= ta)
            continue;
        double te = dense_root(r, i, DENSE_GAP_RATE, ta, tb);
        if (isnan(te))
            continue;
        dense_fn d = {r, i, DENSE_GAP};
        double ge = dense_eval(te, &d);
        int open = r->open[i];
        if (c->field.active[i] && minimum && open >= 0 && -ge > r->sol->episodes[open].max_penetration) {
            r->sol->episodes[open].max_penetration = -ge;
            r->sol->episodes[open].t_max_penetration = te;
        }
        int missed = (!c->field.active[i] && minimum && ge < 0.0) || (c->field.active[i] && maximum && ge > 0.0);
        if (!missed)
            continue;
        double tc = first_gap_root(r, i, te);
        if (!isnan(tc) && (!found || tc < *t_cross)) {
            found = 1;
            *t_cross = tc;
            *which = i;
        }
    }
    return found;
}

/* The loop's `missed` hook: the pieces of [prev_t, t] between output samples, each checked by
 * find_missed_crossing on the dense output; the earliest missed crossing over all pieces and
 * constraints is taken, before a root of the same step only if it comes first. */
static int scan_missed_crossings(void *user, double t, const double *y, int flag, double *t_cross, pl_error *err)
{
    run *r = user;
    run_ctx *c = &r->ctx;
    double ta = r->loop.prev_t, gdot_a[PL_MAX_CON], gdot_b[PL_MAX_CON], g[PL_MAX_CON];
    memcpy(gdot_a, r->prev_gdot, c->m * sizeof *gdot_a);
    size_t k = r->loop.next_sample;
    int found = 0;
    while (ta < t) {
        while (pl_cvode_sample_time(&r->loop, k) <= ta)
            k++;
        double tb = fmin(pl_cvode_sample_time(&r->loop, k), t), tc = NAN;
        size_t i = 0;
        const double *yb = tb < t ? pl_cvode_dense(&r->loop.cv, tb) : y;
        if (!yb) {
            pl_fail(err, PL_ERR_SOLVER, "CVodeGetDky failed at t = %.17g", tb);
            return -1;
        }
        contact_state(c, tb, yb, g, gdot_b, NULL);
        if (find_missed_crossing(r, ta, gdot_a, tb, gdot_b, &tc, &i) && (!found || tc < *t_cross)) {
            found = 1;
            *t_cross = tc;
            r->missed_constraint = i;
        }
        ta = tb;
        memcpy(gdot_a, gdot_b, c->m * sizeof *gdot_a);
    }
    return found && (flag != CV_ROOT_RETURN || *t_cross < t);
}

/* Switch constraint i to active/inactive at the current row and keep the episodes in step. */
static pl_status switch_mode(run *r, size_t i, int active, double t, pl_error *err)
{
    if (r->ctx.field.active[i] == active)
        return PL_OK;
    r->ctx.field.active[i] = active;
    if (active)
        return open_episode(r, i, t, err);
    close_episode(r, i, t, 1);
    return PL_OK;
}

/* The loop's `event` hook.  At a root, G_i decreasing through 0 starts a contact (-1) and
 * increasing ends it (+1); a sign change whose direction disagrees with the sign of Gdot_i there
 * is round-off at a tangency (after a lift-off G grows like (t - t_off)^3) and is not a switch.  At
 * a missed crossing, the constraint found there switches. */
static pl_status switch_at(void *user, double *t, double *y, const int *rootsfound, int *changed, pl_error *err)
{
    run *r = user;
    run_ctx *c = &r->ctx;
    int direction[PL_MAX_CON] = {0};
    if (rootsfound) {
        double g[PL_MAX_CON], gdot[PL_MAX_CON];
        contact_state(c, *t, y, g, gdot, NULL);
        for (size_t i = 0; i < c->m; i++)
            if ((rootsfound[i] < 0 && gdot[i] < 0.0) || (rootsfound[i] > 0 && gdot[i] > 0.0))
                direction[i] = rootsfound[i];
    } else {
        size_t i = r->missed_constraint;
        direction[i] = c->field.active[i] ? 1 : -1;
    }
    *changed = 0;
    for (size_t i = 0; i < c->m; i++) {
        if (!direction[i])
            continue;
        *changed = 1;
        pl_status s = switch_mode(r, i, direction[i] < 0, *t, err);
        if (s != PL_OK)
            return s;
    }
    return PL_OK;
}

/* ---- the run ------------------------------------------------------------------------------- */

static void init_scales(run_ctx *c)
{
    const pl_model *model = c->model;
    double V = model->v_scale, A = model->a_scale;
    c->floor_q = V * V / A;
    c->floor_v = V;
    for (size_t i = 0; i < c->m; i++) {
        double k = model->law[i].k;
        c->omega[i] = sqrt(k * c->mu);
        c->pen[i] = fmin(A / (k * c->mu), V / c->omega[i]);
    }
}

static pl_status setup_solver(run *r, const double *y0, pl_error *err)
{
    run_ctx *c = &r->ctx;
    r->gauss = gsl_integration_glfixed_table_alloc(6); /* exact for the degree <= 5 interpolant */
    if (!r->gauss)
        return pl_fail(err, PL_ERR_NOMEM, "gsl_integration_glfixed_table_alloc failed");
    pl_cvode_spec spec = {.size = c->N, .y0 = y0, .t_end = r->sol->t_end, .rhs = rhs, .weights = error_weights,
                          .jacobian = jacobian, .roots = roots, .nroots = (int)c->m, .user = c};
    pl_status s = pl_cvode_create(&r->loop.cv, &spec, err);
    c->cvode = r->loop.cv.mem;
    r->y = r->loop.cv.y;
    r->ytmp = r->loop.cv.ytmp;
    if (s != PL_OK)
        return s;
    /* Contact oscillations have nearly imaginary eigenvalues (xi small), where BDF of order >= 3
     * is unstable for moderate h*omega: let CVODE detect that and lower the order. */
    CHECK_CV(CVodeSetStabLimDet(c->cvode, SUNTRUE), "CVodeSetStabLimDet");
    CHECK_CV(CVodeSetInitStep(c->cvode, initial_step(r, 0.0)), "CVodeSetInitStep");
    return PL_OK;
}

static pl_status integrate(run *r, pl_error *err)
{
    run_ctx *c = &r->ctx;
    double *y = N_VGetArrayPointer(r->y);
    pl_status s;
    contact_state(c, 0.0, y, r->prev_g, r->prev_gdot, NULL);
    for (size_t i = 0; i < c->m; i++)
        if (c->field.active[i] && (s = open_episode(r, i, 0.0, err)) != PL_OK)
            return s;
    if ((s = pl_cvode_record(&r->loop, 0.0, y, err)) != PL_OK || (s = update_step_band(r, 0.0, 1, err)) != PL_OK)
        return s;
    return pl_cvode_run(&r->loop, 0.0, err);
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
    c->N = 2 * c->n;
    snprintf(r.context, sizeof r.context, "mu = %g", c->mu);
    pl_penalized_init(&c->field, model, c->mu);
    init_scales(c);
    r.loop = (pl_cvode_loop){.hooks = {.record = record_sample, .missed = scan_missed_crossings, .event = switch_at,
                                       .advance = accumulate, .after_step = after_step,
                                       .after_restart = after_restart},
                             .user = &r, .context = r.context, .stats = &sol->stats, .t_end = opts->t_end,
                             .max_steps = opts->max_steps > 0 ? opts->max_steps : PL_DEFAULT_MAX_STEPS,
                             .samples = opts->samples, .next_sample = 1};

    double y0[2 * PL_MAX_DOF] = {0};
    pl_model_initial_state(model, Q(y0), V(y0, c));
    for (size_t i = 0; i < c->m; i++) {
        c->field.active[i] = pl_model_initially_active(model, i, 0.0, Q(y0), V(y0, c));
        r.open[i] = -1;
    }

    pl_error local;
    pl_error *e = err ? err : &local;
    pl_error_clear(e);
    pl_status s = setup_solver(&r, y0, e);
    if (s == PL_OK)
        s = integrate(&r, e);
    if (c->cvode)
        pl_cvode_add_counters(c->cvode, &sol->stats);

    /* Whatever happened, report the state reached and close the open episodes there. */
    pl_solution_finish(sol, s, e, t0);
    for (size_t i = 0; i < c->m; i++)
        if (r.open[i] >= 0)
            close_episode(&r, i, sol->t_final, 0);
    pl_cvode_free(&r.loop.cv);
    if (r.gauss)
        gsl_integration_glfixed_table_free(r.gauss);
    sol->stats.wall_seconds = pl_now_seconds() - t0;
    return s;
}

const pl_solver_type pl_solver_penalty = {
    .name = "penalty",
    .summary = "the penalized system for one stiffness mu (CVODE BDF, rootfinding at contact switches)",
    .family = PL_FAMILY_PENALTY,
    .options = options,
    .noptions = sizeof options / sizeof options[0],
    .refine = "mu",
    .refine_sign = +1,
    .solve = solve,
};
