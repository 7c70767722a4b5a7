/* The penalized system (1)/(4) of paper 004 for one stiffness mu.  The contact indicator
 * I{G_i <= 0} switches exactly at the roots of G_i (then the integration restarts); Gamma^mu of
 * eq. (5) and the impulses are integrated along as states; every step is recorded, and optionally a
 * uniform grid of samples.  Contact episodes (entry to exit of each constraint) are recorded as they
 * happen.
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
#include <gsl/gsl_poly.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/linalg.h"
#include "core/rootfind.h"
#include "solvers/bdf_stability.h"
#include "solvers/event_loop.h"
#include "solvers/penalty/gap_model.h"
#include "solvers/penalty/penalized.h"
#include "solvers/solver.h"

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
 * resolved to no better than 1% (the error weights' floor of 1000 ulps, see error_weights). */
#define RESOLVE_TIME_ULPS 4096.0
#define RESOLVE_GAP_ULPS 1e5

/* Everything the vector field needs.  Arrays are sized m (per constraint) or n, allocated once per
 * run (alloc_ctx); the scratch of each function that evaluates forces or gaps is its own, as these
 * functions call one another (a dense output re-integrates through rhs, say). */
/* Gamma^mu from the integrated P on a piece of the run between kinks of |sum w_i lambda_i| (see
 * GAMMA): from t on, Gamma = gamma + (t' - t) + s (P' - p - (t' - t)). */
typedef struct {
    double t, p, gamma, s;
} gamma_piece;

typedef struct {
    const pl_model *model;
    pl_penalized field; /* the vector field and the contact modes */
    double mu, rtol;
    size_t n, m, N; /* dofs, constraints, state size 2n + 1 + m */
    double *pen;                /* resting penetration scale min(A/(k mu), V/sqrt(k mu)) */
    double *omega;              /* contact frequency sqrt(k mu) */
    double floor_q, floor_v;    /* free-motion scales V^2/A and V */
    int settled_phase;          /* every active contact settled (error weights differ) */
    double (*bdf_radius)[6];    /* h omega below which BDF of order k is unstable for contact i
                                   (NAN until the first settled phase needs it) */
    double *force_side;         /* +1 or -1: the sign of lambda_i since its last root */
    double *rate_side;          /* force_side at the last restart: the sign in dP/dt (gamma_rate_sign) */
    gamma_piece piece, piece_before; /* Gamma from P since the last kink or restart, and before it */
    double *kink_t;             /* m: the last kink of each force (undone by an event before it) */
    double *force_noise;        /* the round-off of lambda_i in this contact */
    size_t single_active;       /* the one active constraint, or m if none or several (modes_changed) */
    unsigned modes;             /* counts the changes of the contact modes */
    double rhs_t;               /* the state of the last right-hand side, whose forces f_rhs holds: */
    unsigned rhs_modes;         /* with these modes, */
    double *rhs_y;              /* at this (q, v) (2n) */
    long bdf_held;              /* consecutive BDF steps held at order 2 for stability */
    int bdf_futile;             /* BDF given up for the present contact set (see choose) */
    /* scratch */
    pl_forces f_rhs, f_roots, f_state, f_start, f_accel;
    pl_gap *gap_roots, *gap_noise, *gap_accel, *gap_dense;
    double *tol, *fp_geometry, *fp_accel, *fp_v_accel, *fp_dense;
    /* The gaps at the state (geometry_t, geometry_y): G_i, grad G_i ... (geometry, m) and Gdot_i
     * (geometry_gdot, m).  A step's end is scanned, recorded, and starts the next step's error
     * weights: geometry_at evaluates them once for the three. */
    double geometry_t, *geometry_y, *geometry_gdot;
    pl_gap *geometry;
    /* Aiming (aim): the gaps and their rates at the last two step starts (t, modes), and each
     * constraint's model fitted between them (gap_model.h; fitted: 1 if so). */
    double aim_t[2], *aim_g[2], *aim_gdot[2];
    unsigned aim_modes[2];
    pl_gap_model *gap_model;
    int *fitted;
    int *lifting;               /* lift_off_handover: 1 while a lift-off of constraint i is the
                                   Runge-Kutta pair's, 2 once its window has passed, 0 otherwise */
    int *saved_active;          /* m: the modes while resolved_gap_accel changes them */
    double *block;
} run_ctx;

/* The state is y = (q[n], v[n], P, I[m]): the impulses I_i = integral of lambda_i and P, the
 * integral of 1 + |sum w_i lambda_i| but for its kinks, are integrated with the motion; Gamma^mu of
 * eq. (5) follows from P (gamma_at).  The force of a constraint changes sign late in each impact
 * (the unclamped law pulls), where, with one active constraint i, |w_i lambda_i| has a kink.  P
 * integrates the smooth 1 + rate_side_i |w_i| lambda_i instead (gamma_rate_sign), whose every step
 * is smooth, and Gamma is P reflected on the pieces where rate_side_i lambda_i < 0.  The sign changes
 * are roots of the force, at which a Runge-Kutta step is not cut (kink: one re-integration to the
 * interpolant's estimate of the root; misplacing it by d changes Gamma by |w lambda'| d^2, below
 * 1e-10 of an impact's Delta Gamma) and BDF restarts.  P is reset to Gamma at every event. */
#define Q(y) (y)
#define V(y, c) ((y) + (c)->n)
#define GAMMA(y, c) ((y)[2 * (c)->n])
#define IMPULSE(y, c) ((y) + 2 * (c)->n + 1)

static int evaluate_forces(const run_ctx *c, double t, const double *q, const double *v, pl_forces *f)
{
    return pl_penalized_forces(&c->field, t, q, v, f);
}

/* The forces at the state y into scratch, or those of the last right-hand side if it was at y: the
 * Runge-Kutta stepper evaluates the right-hand side at a step's end (the next step's first stage)
 * before the roots and the record there need the same forces.  NULL if M(q) is not positive
 * definite. */
static const pl_forces *forces_at(run_ctx *c, double t, const double *y, pl_forces *scratch)
{
    if (c->rhs_t == t && c->rhs_modes == c->modes) {
        size_t j = 0, n2 = 2 * c->n;
        while (j < n2 && c->rhs_y[j] == y[j])
            j++;
        if (j == n2)
            return &c->f_rhs;
    }
    return evaluate_forces(c, t, Q(y), V(y, c), scratch) ? NULL : scratch;
}

static pl_status alloc_ctx(run_ctx *c, pl_error *err)
{
    size_t n = c->n, m = c->m;
    pl_status s = pl_penalized_init(&c->field, c->model, c->mu, err);
    pl_forces *forces[] = {&c->f_rhs, &c->f_roots, &c->f_state, &c->f_start, &c->f_accel};
    for (size_t k = 0; s == PL_OK && k < sizeof forces / sizeof *forces; k++)
        s = pl_forces_init(forces[k], c->model, err);
    if (s != PL_OK)
        return s;
    pl_gap **gaps[] = {&c->gap_roots, &c->gap_noise, &c->gap_accel, &c->gap_dense};
    int ok = 1;
    for (size_t k = 0; k < sizeof gaps / sizeof *gaps; k++)
        ok &= (*gaps[k] = pl_gap_new(1, n, 0)) != NULL;
    ok &= (c->geometry = pl_gap_new(m, n, 0)) != NULL;
    c->block = calloc(17 * m + 9 * n + n * n, sizeof *c->block);
    c->gap_model = calloc(m, sizeof *c->gap_model);
    c->fitted = calloc(m, sizeof *c->fitted);
    c->lifting = calloc(m, sizeof *c->lifting);
    c->saved_active = calloc(m, sizeof *c->saved_active);
    if (!ok || !c->block || !c->gap_model || !c->fitted || !c->lifting || !c->saved_active)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for a penalized run (%zu dofs, %zu constraints)", n, m);
    double *p = c->block;
    c->pen = p, p += m;
    c->omega = p, p += m;
    c->force_side = p, p += m;
    c->rate_side = p, p += m;
    c->kink_t = p, p += m;
    c->force_noise = p, p += m;
    c->bdf_radius = (double (*)[6])p, p += 6 * m;
    c->tol = p, p += 2 * n;
    c->fp_geometry = p, p += n;
    c->fp_accel = p, p += n;
    c->fp_dense = p, p += n;
    c->rhs_y = p, p += 2 * n;
    c->rhs_t = NAN;
    c->geometry_y = p, p += 2 * n;
    c->geometry_gdot = p, p += m;
    c->geometry_t = NAN;
    for (int k = 0; k < 2; k++) {
        c->aim_g[k] = p, p += m;
        c->aim_gdot[k] = p, p += m;
        c->aim_t[k] = NAN;
    }
    c->fp_v_accel = p;
    return PL_OK;
}

static void free_ctx(run_ctx *c)
{
    pl_penalized_free(&c->field);
    pl_forces *forces[] = {&c->f_rhs, &c->f_roots, &c->f_state, &c->f_start, &c->f_accel};
    for (size_t k = 0; k < sizeof forces / sizeof *forces; k++)
        pl_forces_free(forces[k]);
    free(c->gap_roots);
    free(c->geometry);
    free(c->gap_noise);
    free(c->gap_accel);
    free(c->gap_dense);
    free(c->gap_model);
    free(c->fitted);
    free(c->lifting);
    free(c->saved_active);
    free(c->block);
}

/* After a change of the contact modes. */
static void modes_changed(run_ctx *c)
{
    c->modes++;
    size_t count = 0;
    c->single_active = c->m;
    for (size_t i = 0; i < c->m; i++)
        if (c->field.active[i] && ++count == 1)
            c->single_active = i;
    if (count != 1)
        c->single_active = c->m;
}

/* The sign with which |sum w_i lambda_i| enters dP/dt (see GAMMA).  With one active constraint
 * the rate is the smooth 1 + rate_side_i |w_i| lambda_i, the same in every stage of a step; an |.|
 * taken at every stage would put the kink into the stage values near the root (a Runge-Kutta stage
 * is only low-order accurate, so a stage may land on the far side), which cost Delta Gamma of an
 * impact 1e-6 at rtol 1e-8.  With several active constraints the sum vanishes only where all forces
 * do, and |.| is smooth. */
static double gamma_rate_sign(const run_ctx *c, const pl_forces *f)
{
    size_t i = c->single_active;
    if (i >= c->m)
        return 1.0;
    return f->lambda[i] * c->rate_side[i] < 0.0 ? -1.0 : 1.0;
}

/* Gamma^mu at (t, y), from the piece that holds t. */
static double gamma_at(const run_ctx *c, double t, const double *y)
{
    const gamma_piece *p = t >= c->piece.t ? &c->piece : &c->piece_before;
    return p->gamma + (t - p->t) + p->s * (GAMMA(y, c) - p->p - (t - p->t));
}

/* A new piece at an event (t, y): P restarts at Gamma, the sign in dP/dt from the forces' present
 * sides. */
static void restart_gamma(run_ctx *c, double t, double *y)
{
    double gamma = gamma_at(c, t, y);
    GAMMA(y, c) = gamma;
    c->piece = c->piece_before = (gamma_piece){.t = t, .p = gamma, .gamma = gamma, .s = 1.0};
    memcpy(c->rate_side, c->force_side, c->m * sizeof *c->rate_side);
    for (size_t i = 0; i < c->m; i++)
        c->kink_t[i] = NAN;
}

/* The stepper's `kink` hook: force root k (constraint i = k - m) crossed inside a step at t (state
 * y there).  With i the one active constraint the force's side and Gamma's piece change there;
 * with several, |sum w_i lambda_i| has a kink only where every force vanishes at once (a symmetric
 * corner impact), which a step must not cross: declined, the step is cut there. */
static int kink(double t, const double *y, int k, void *user)
{
    run_ctx *c = user;
    size_t i = (size_t)k - c->m;
    if (c->single_active != i)
        return 1;
    c->force_side[i] = -c->force_side[i];
    c->kink_t[i] = t;
    c->piece_before = c->piece;
    c->piece = (gamma_piece){.t = t, .p = GAMMA(y, c), .gamma = gamma_at(c, t, y), .s = -c->piece.s};
    return 0;
}

/* (Plain loops throughout: at a few dofs the calls of memcpy and friends cost more than the
 * loops, and this runs at every stage of every step.) */
static int rhs(double t, const double *y, double *yd, void *user)
{
    run_ctx *c = user;
    size_t n = c->n, m = c->m;
    pl_forces *f = &c->f_rhs;
    c->rhs_t = NAN;
    if (evaluate_forces(c, t, Q(y), V(y, c), f))
        return -1;
    /* the forces' arrays are not yd's (restrict: see pl_penalized_forces) */
    const double *restrict fp = f->fp, *restrict a = f->a, *restrict ac = f->ac, *restrict lambda = f->lambda;
    double *restrict held = c->rhs_y;
    /* sum: finite exactly when every component is (but for an overflow of the sum itself, at
     * components beyond 1e307, which is as much a failure of the state) */
    double ac2 = 0.0, sum = 0.0;
    for (size_t j = 0; j < n; j++) {
        double vd = a[j] + ac[j];
        yd[j] = fp[j];
        yd[n + j] = vd;
        ac2 += ac[j] * ac[j];
        sum += fp[j] + vd;
        held[j] = y[j];
        held[n + j] = y[n + j];
    }
    double gamma = 1.0;
    if (ac2 > 0.0)
        gamma += gamma_rate_sign(c, f) * (n == 1 ? fabs(ac[0]) : sqrt(ac2)); /* pl_norm(ac, n) */
    GAMMA(yd, c) = gamma;
    double *impulse = IMPULSE(yd, c);
    for (size_t i = 0; i < m; i++) {
        impulse[i] = lambda[i];
        sum += lambda[i];
    }
    c->rhs_t = t;
    c->rhs_modes = c->modes;
    /* A state gone non-finite gives a non-finite derivative: recoverable, the stepper retries
     * with a smaller step. */
    return isfinite(sum + gamma) ? 0 : 1;
}

/* The Jacobian of (q, v) (analytic); Gamma and the impulses do not act on the motion, and their rows
 * are left out of the Newton matrix (they converge with the motion, one iteration behind). */
static int jacobian(double t, const double *y, double *J, void *user)
{
    const run_ctx *c = user;
    size_t n2 = 2 * c->n, N = c->N;
    /* the (q, v) block in place: row r of the 2n x 2n Jacobian moves to row r of the N x N one,
     * from the last row back so that nothing is overwritten before it moves */
    if (pl_penalized_jacobian(&c->field, t, Q(y), V(y, c), J))
        return -1;
    for (size_t r = n2; r-- > 0;) {
        memmove(J + r * N, J + r * n2, n2 * sizeof *J);
        memset(J + r * N + n2, 0, (N - n2) * sizeof *J);
    }
    memset(J + n2 * N, 0, (N - n2) * N * sizeof *J);
    return 0;
}

/* The round-off of G_i at q: 100 ulps of its terms (pl_gap_terms; grad G . q stands for those that depend on q;
 * a constraint moving with t has its offset in q near contact, as the table).  A dip of an inactive
 * constraint's G_i below 0 smaller than this cannot be told from a tangency and starts no contact
 * (gap_resolution: this or the floor of G's tolerance).  (A floor at 100 ulps of the length
 * L = V^2/A was too coarse: 2e-12 for the ball without gravity, against impact penetrations of 1e-6
 * at mu = 1e12, moved Delta Gamma by 3e-8.) */
static double noise_of_gap(const run_ctx *c, const pl_gap *gap, const double *q)
{
    return PL_GAP_NOISE_ULPS * DBL_EPSILON * pl_gap_terms(gap, 0.0, q, c->n);
}

/* Roots: the gaps G_i, where the contact indicator switches; and the forces lambda_i of the active
 * constraints, where they change sign (a kink of |sum w_i lambda_i|).  A force's root has a
 * hysteresis of its round-off: it is where lambda_i passes -force_side_i times force_noise_i, so
 * that a force at round-off level (a lift-off on a moving table) does not give a root per step.
 * The gaps have the same hysteresis of their own round-off: a contact starts where G_i passes
 * -noise and ends where it passes +noise.  Along a near-tangential motion (a lift-off where the
 * table's acceleration just exceeds g) G_i changes sign at round-off level every step, which cost
 * a restart per step of 1e-12 s; the switches move by noise/|Gdot_i| (1e-15 s for an impact).
 * gap_root and force_root (given the forces f) are one function each. */
/* The level at which an active constraint's root ends its contact: the hysteresis +noise, but 0
 * during a lift-off handed to the Runge-Kutta pair (lift_off_handover).  G_i leaves 0 there at the
 * slow rate N'/omega^2 and the hysteresis held the contact on longer than the lift-off's delay
 * itself (9e-5 s against 1.2e-5 s on the disk at mu = 1e10, in steps of 1e-7 s); the free motion
 * then turns G_i away from 0 (its acceleration -N > 0 once the limit's normal force N has changed
 * sign), and no crossing back follows. */
static double exit_level(const run_ctx *c, size_t i, double noise)
{
    return c->lifting[i] == 1 ? 0.0 : noise;
}

static double gap_root(run_ctx *c, size_t i, double t, const double *q)
{
    pl_gap *gap = c->gap_roots;
    pl_model_gap(c->model, i, t, q, gap);
    double noise = noise_of_gap(c, gap, q);
    return c->field.active[i] ? gap->g - exit_level(c, i, noise) : gap->g + noise;
}

static double force_root(const run_ctx *c, const pl_forces *f, size_t i)
{
    return c->field.active[i] ? f->lambda[i] + c->force_side[i] * c->force_noise[i] : 1.0;
}

/* Root function k of roots alone. */
static int root(double t, const double *y, int k, double *g, void *user)
{
    run_ctx *c = user;
    size_t m = c->m, i = (size_t)k % m;
    if ((size_t)k < m) {
        *g = gap_root(c, i, t, Q(y));
        return 0;
    }
    const pl_forces *f = c->field.active[i] ? forces_at(c, t, y, &c->f_roots) : NULL;
    if (c->field.active[i] && !f)
        return -1;
    *g = force_root(c, f, i);
    return 0;
}

static int roots(double t, const double *y, double *g, void *user)
{
    run_ctx *c = user;
    int any = 0;
    for (size_t i = 0; i < c->m; i++) {
        g[i] = gap_root(c, i, t, Q(y));
        any |= c->field.active[i];
    }
    const pl_forces *f = any ? forces_at(c, t, y, &c->f_roots) : NULL;
    if (any && !f)
        return -1;
    for (size_t i = 0; i < c->m; i++)
        g[c->m + i] = force_root(c, f, i);
    return 0;
}

/* The gaps, their geometry and rates at (t, y) (see run_ctx.geometry), evaluated unless held. */
static const pl_gap *geometry_at(run_ctx *c, double t, const double *y)
{
    size_t n2 = 2 * c->n, j = 0;
    if (c->geometry_t == t)
        while (j < n2 && c->geometry_y[j] == y[j])
            j++;
    if (c->geometry_t == t && j == n2)
        return c->geometry;
    c->geometry_t = NAN;
    pl_model_velocity_map(c->model, t, Q(y), V(y, c), c->fp_geometry, NULL, NULL, NULL);
    for (size_t i = 0; i < c->m; i++)
        c->geometry_gdot[i] = pl_model_gap_rate(c->model, i, t, Q(y), c->fp_geometry, &c->geometry[i]);
    c->geometry_t = t;
    memcpy(c->geometry_y, y, n2 * sizeof *y);
    return c->geometry;
}

/* Error weights that follow the scales of the problem at this mu:
 * - away from contacts, q and v are controlled relative to their size, with floors at the
 *   free-motion scales L = V^2/A and V;
 * - near constraint i, the gap and its rate are controlled relative to the contact amplitude
 *   a_i = hypot(G_i, Gdot_i/omega_i), omega_i = sqrt(k_i mu), with a floor at the resting
 *   penetration scale pen_i: tol(G_i) = rtol (a_i + pen_i), tol(Gdot_i) = omega_i tol(G_i).
 *   In an impact a_i ~ V/omega_i ~ mu^(-1/2); at rest a_i ~ pen_i ~ A/(k_i mu).  Both are thus
 *   resolved to rtol at every mu, even where q itself is O(1) (a moving table).
 * - in settled contact (steps h >> 1/omega under BDF) the gap rate is not tightened: the
 *   control of G over a step bounds its error by tol(G)/h, and with it the error of the viscous
 *   force mu c Gdot_i to rtol F (2 xi / (omega h)) << rtol F.  Holding Gdot_i to omega tol(G)
 *   instead would hold the slow velocity, O(V), to an absolute error ~ rtol A/omega, and the
 *   steps would shrink with mu. */
static int error_weights(double t, const double *y, double *w, void *user)
{
    run_ctx *c = user;
    size_t n = c->n;
    double *tol = c->tol;
    for (size_t j = 0; j < n; j++) {
        tol[j] = c->rtol * (fabs(y[j]) + c->floor_q);
        tol[n + j] = c->rtol * (fabs(y[n + j]) + c->floor_v);
    }
    const pl_gap *gaps = geometry_at(c, t, y);
    for (size_t i = 0; i < c->m; i++) {
        const pl_gap *gap = &gaps[i];
        double amplitude = hypot(gap->g, c->geometry_gdot[i] / c->omega[i]);
        double tol_g = c->rtol * (amplitude + c->pen[i]);
        /* A lift-off (lift_off_handover) is timed by G_i to its round-off, which holding Gdot_i to
         * omega times that does (tighter, down to the floor of 1000 ulps of v below, cost the disk's
         * lift-off at mu = 1e10 300 steps more and timed it no better) */
        double tol_gd = c->omega[i] * (c->lifting[i] == 1 ? fmax(tol_g, DBL_EPSILON * pl_gap_terms(gap, t, Q(y), n)) : tol_g);
        pl_tighten_for_gap(tol, n, gap->grad, tol_g, c->settled_phase ? INFINITY : tol_gd);
    }
    /* Nothing much finer than the round-off of a component can be resolved: the tolerance is
     * floored at 1000 ulps.  A resting penetration A/(k mu) under a table moving with O(1)
     * amplitude is then resolved to rtol while it is above ~2e-11 |q| (mu up to ~1e9 for the
     * vibrating table; at mu = 1e10 to about 1e-5 relative). */
    for (size_t j = 0; j < 2 * n; j++)
        w[j] = 1.0 / fmax(tol[j], 1000.0 * DBL_EPSILON * fabs(y[j]));
    /* Gamma and the impulses are quadratures: they do not act on the motion, so their accuracy is
     * that of the motion and the method's order, and they are left out of the error test (weight
     * 0, as CVODES does for quadratures without error control).  Controlling them only rejected
     * steps at the kinks of their integrands, which are roots anyway. */
    for (size_t j = 2 * n; j < c->N; j++)
        w[j] = 0.0;
    return 0;
}

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
    const pl_gap *gaps = geometry_at(c, t, y);
    int history = c->aim_modes[0] == c->modes && c->aim_t[0] < t;
    for (size_t i = 0; i < c->m; i++) {
        g[i] = gaps[i].g;
        gdot[i] = c->geometry_gdot[i];
        double w = !c->field.active[i] ? 0.0 : c->single_active == i ? c->omega[i] : NAN;
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
 * about what its location saves.)  The force root keeps its hysteresis force_noise: set by the
 * round-off of q, it moves the root by 1e-4 of a step in small impacts, and an aimed step that ended
 * short of it let the next one span the root, the exit and the force's return past the exit, which
 * lost the kink (the ball's last bounces at mu = 1e10).  The uncertainty: four times the model's
 * relative error over the prediction's span. */
static double aim(double t, const double *y, double h, int *k, double *uncertainty, void *user)
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
        double noise = noise_of_gap(c, &c->geometry[i], Q(y)), kink = NAN, g, gdot;
        double level = active ? exit_level(c, i, noise) : -noise;
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

/* ---- bookkeeping of the run ---------------------------------------------------------------- */

/* Points per step at which the gap rate of an inactive constraint is sampled for extrema. */
#define FLIGHT_SAMPLES 8

typedef struct {
    run_ctx ctx;
    pl_solution *sol;
    pl_event_loop loop;
    pl_stepper *rk, *bdf;       /* non-stiff and stiff phases */
    int *open;                  /* index of the open episode of constraint i, or -1 */
    int *shared;                /* another constraint was active during the open episode of i */
    double *settle;             /* time from which the contact of constraint i counts as settled */
    double *lift_end;           /* the end of the window of a lift-off on the pair (lift_off_handover) */
    double *press, *press_t;    /* pressing() at the last two step ends (2 m each, the later second) */
    size_t handover;            /* the constraint whose lift-off `missed` handed over (m: none) */
    double *prev_g, *prev_gdot; /* at the last recorded row */
    size_t missed_constraint;   /* the constraint of the crossing `missed` reported */
    char context[64];           /* "mu = ..." for messages */
    /* scratch (m or N each, once per run) */
    double *row;                     /* a trajectory row */
    double *g_scan, *g_a, *gdot_a, *gdot_b; /* scan_missed_crossings */
    double *gdot_samples;             /* find_missed_crossing: m x (FLIGHT_SAMPLES - 1) */
    double *g_switch, *gdot_switch;   /* switch_at */
    int *direction, *flags;           /* switch_at; the int blocks */
    double *g_init, *gdot_init, *f0, *f1, *y1, *w; /* initial_step */
    double *y_scan;                  /* scan_missed_crossings: the state at a piece's end */
    double *y0;
    double *block;
} run;

static pl_status alloc_run(run *r, pl_error *err)
{
    size_t m = r->ctx.m, N = r->ctx.N, n = r->ctx.n;
    pl_status s = alloc_ctx(&r->ctx, err);
    if (s != PL_OK)
        return s;
    r->flags = calloc(3 * m, sizeof *r->flags);
    r->block = calloc((16 + FLIGHT_SAMPLES) * m + 6 * N + pl_ncols(n, m), sizeof *r->block);
    if (!r->flags || !r->block)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for a penalized run (%zu dofs, %zu constraints)", n, m);
    r->open = r->flags, r->shared = r->open + m, r->direction = r->shared + m;
    double *p = r->block;
    r->settle = p, p += m;
    r->lift_end = p, p += m;
    r->press = p, p += 2 * m;
    r->press_t = p, p += 2 * m;
    r->prev_g = p, p += m;
    r->prev_gdot = p, p += m;
    r->g_scan = p, p += m;
    r->g_a = p, p += m;
    r->gdot_a = p, p += m;
    r->gdot_b = p, p += m;
    r->gdot_samples = p, p += FLIGHT_SAMPLES * m;
    r->g_switch = p, p += m;
    r->gdot_switch = p, p += m;
    r->g_init = p, p += m;
    r->gdot_init = p, p += m;
    r->f0 = p, p += N;
    r->f1 = p, p += N;
    r->y1 = p, p += N;
    r->w = p, p += N;
    r->y_scan = p, p += N;
    r->y0 = p, p += N;
    r->row = p;
    memset(r->y0, 0, N * sizeof *r->y0);
    return PL_OK;
}

static void free_run(run *r)
{
    free_ctx(&r->ctx);
    free(r->flags);
    free(r->block);
}

/* Gap and gap rate of every constraint at a state, and (if lambda is not NULL) the force, which
 * uses the current modes; each gap's geometry is in c->geometry after the call.  The geometry alone
 * needs neither the mass matrix nor the forces. */
static void contact_state(run_ctx *c, double t, const double *y, double *g, double *gdot, double *lambda)
{
    const pl_gap *gaps = geometry_at(c, t, y);
    const pl_forces *f = lambda ? forces_at(c, t, y, &c->f_state) : NULL;
    for (size_t i = 0; i < c->m; i++) {
        g[i] = gaps[i].g;
        gdot[i] = c->geometry_gdot[i];
    }
    if (!lambda)
        return;
    for (size_t i = 0; i < c->m; i++)
        lambda[i] = f ? f->lambda[i] : NAN;
    if (!f) /* M(q) not positive definite: no state */
        for (size_t i = 0; i < c->m; i++)
            g[i] = gdot[i] = NAN;
}

/* What every recorded state must satisfy for the run to count as resolved (an unresolvable mu
 * otherwise gives plausible-looking numbers):
 *   - an active contact's amplitude hypot(G_i, Gdot_i/omega_i), or its resting penetration scale,
 *     spans RESOLVE_GAP_ULPS ulps of the terms of G_i (q, and t for a moving constraint);
 *   - an inactive constraint is not penetrated by more than an impact's depth V/omega_i (or the
 *     gap's round-off over the time tolerance of its root): a crossing without a contact. */
static pl_status check_resolved(run *r, double t, const double *y, const pl_gap *gaps, pl_error *err)
{
    const run_ctx *c = &r->ctx;
    for (size_t i = 0; i < c->m; i++) {
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
            double slack = 1e3 * (noise_of_gap(c, gap, Q(y)) + fabs(gdot) * DBL_EPSILON * fmax(1.0, fabs(t)));
            if (g < -fmax(c->model->v_scale / c->omega[i], slack))
                return pl_fail(err, PL_ERR_SOLVER,
                               "constraint %zu crossed without a contact: G = %.3g with no force at t = %.17g (%s)",
                               i + 1, g, t, r->context);
        }
    }
    return PL_OK;
}

static pl_status record_sample(void *user, double t, const double *y, pl_error *err)
{
    run *r = user;
    run_ctx *c = &r->ctx;
    size_t n = c->n, m = c->m;
    double *row = r->row;
    row[0] = t;
    row[1] = gamma_at(c, t, y);
    memcpy(row + 2, y, 2 * n * sizeof *row);
    contact_state(c, t, y, row + pl_col_g(n, m), r->prev_gdot, row + pl_col_force(n, m));
    const pl_gap *gaps = c->geometry;
    memcpy(r->prev_g, row + pl_col_g(n, m), m * sizeof *row);
    for (size_t i = 0; i < m; i++) {
        int e = r->open[i];
        if (e >= 0 && -r->prev_g[i] > r->sol->episodes[e].max_penetration) {
            r->sol->episodes[e].max_penetration = -r->prev_g[i];
            r->sol->episodes[e].t_max_penetration = t;
        }
    }
    pl_status s = pl_table_append(&r->sol->traj, row, err);
    return s == PL_OK ? check_resolved(r, t, y, gaps, err) : s;
}

/* Decay rate of the contact oscillation: xi omega, or omega (xi - sqrt(xi^2 - 1)) overdamped. */
static double decay_rate(double omega, double xi)
{
    return xi < 1.0 ? xi * omega : omega * (xi - sqrt(xi * xi - 1.0));
}

/* Gddot_i along the penalized field with the current modes: the free part and the contact
 * acceleration's, grad G_i . dF_p/dv ac. */
static double gap_accel(run_ctx *c, size_t i, double t, const double *y)
{
    size_t n = c->n;
    pl_forces *f = &c->f_accel;
    if (evaluate_forces(c, t, Q(y), V(y, c), f))
        return NAN;
    double *fp = c->fp_accel, *fp_v = c->fp_v_accel;
    pl_gap *gap = c->gap_accel;
    pl_model_velocity_map(c->model, t, Q(y), V(y, c), fp, NULL, fp_v, NULL);
    pl_model_gap(c->model, i, t, Q(y), gap);
    double D = pl_model_free_gap_accel(c->model, c->field.work, i, t, Q(y), V(y, c));
    for (size_t j = 0; j < n; j++)
        for (size_t k = 0; k < n; k++)
            D += gap->grad[j] * fp_v[j * n + k] * f->ac[k];
    return D;
}

/* ---- lift-off from settled contact ---------------------------------------------------------- */

/* In settled contact BDF's steps are long (h omega >> 1) and it holds G_i only to the error weights'
 * floor of 1000 ulps of q (error_weights), but a lift-off is timed by a penetration far smaller: the
 * slow solution p = N/omega^2 - 2 xi N'/omega^3 + ... (N the limit's normal force, whose sign change
 * is the limit's lift-off, paper 004 Theorem 6) leaves the lag 2 xi |N'|/omega^3 when the force
 * turns, 4.5e-12 on the disk at mu = 1e8 (13 such floors), and reaches 0 2 xi/omega later.  BDF
 * timed that exit 15% of the delay late on the disk at mu = 1e8 (its restart at the force's sign
 * change, at order 1, moved G by 5e-13) and 12% on the vibrating table at 1e9.  So a lift-off of a
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
 * bounded by the fast mode (2 xi omega), ~50 xi^2 steps a lift-off. */
#define LIFT_XI_MAX 2.0

/* mu G_i + d_i Gdot_i: lambda_i = -m_i k_i times this (contact_law.h), < 0 while the force pushes. */
static double pressing(const run_ctx *c, size_t i, double g, double gdot)
{
    return c->mu * g + c->field.damping[i] * gdot;
}

/* The lead of a handover: 3 half-periods, and the decay of BDF's gap error, up to the error weights'
 * floor of 1000 ulps, to an ulp.  (Decaying it by rtol instead, ln(1e8), timed the lift-offs of the
 * disk and the table no better at mu = 1e6 ... 1e10 and cost the table 40% more at 1e7.) */
static double lift_lead(const run_ctx *c, size_t i)
{
    double omega = c->omega[i];
    return fmax(3.0 * M_PI / omega, log(1000.0) / decay_rate(omega, c->model->law[i].xi));
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
    double gdot = pl_model_gap_rate(c->model, f->i, t, Q(y), c->fp_dense, c->gap_dense);
    return pressing(c, f->i, c->gap_dense->g, gdot);
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
static int lift_off_handover(run *r, double t, const double *y, int at_root, double *t_hand)
{
    run_ctx *c = &r->ctx;
    double ta = r->loop.prev_t;
    const pl_gap *gaps = geometry_at(c, t, y);
    int found = 0;
    for (size_t i = 0; i < c->m; i++) {
        double g = gaps[i].g, gdot = c->geometry_gdot[i], xi = c->model->law[i].xi, now = pressing(c, i, g, gdot);
        r->press[2 * i] = r->press[2 * i + 1], r->press_t[2 * i] = r->press_t[2 * i + 1];
        r->press[2 * i + 1] = now, r->press_t[2 * i + 1] = t;
        if (r->loop.stepper != r->bdf || !c->field.active[i] || c->lifting[i] || xi > LIFT_XI_MAX)
            continue;
        double lead = lift_lead(c, i), turn = NAN, th = NAN;
        if (now >= 0.0 || g >= 0.0) { /* turned in this step */
            turn = ta;
            if (pressing(c, i, r->prev_g[i], r->prev_gdot[i]) < 0.0 && now >= 0.0) {
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
 * (A step that ends within 2 leads hands over: aimed at one lead, BDF crept on in steps of 1e-7 s
 * towards a turn that the secant predicted ever later, a table near its critical amplitude, and
 * moved G by 1.5e-13.) */
static double lift_off_approach(run *r, double t)
{
    run_ctx *c = &r->ctx;
    double h = INFINITY;
    for (size_t i = 0; i < c->m; i++)
        if (c->field.active[i] && !c->lifting[i] && c->model->law[i].xi <= LIFT_XI_MAX) {
            double d = predicted_turn(r, i) - 1.5 * lift_lead(c, i) - t;
            if (d > 0.0)
                h = fmin(h, d);
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
    size_t row = k;
    int j = 0;
    for (; j < 4; j++) {
        const double *y = pl_table_row(traj, row);
        T[j] = y[0];
        D[j] = gap_accel(c, i, T[j], y + pl_col_q(c->n, c->m));
        while (row > first_row && pl_table_row(traj, row)[0] > T[j] - 1.0 / omega)
            row--;
        if (j < 3 && !(pl_table_row(traj, row)[0] < T[j]))
            break;
    }
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
 * where it is larger than the slow G the crossing is the oscillation's (8e-8 on that table, an
 * oscillation of 6.5e-14 that a restart of BDF had left 1.2e-6 s before: the exit came 3.2e-5 s
 * before the limit's lift-off, which it follows by 3.9e-7 s).  So the resolution is
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
static double slow_exit_resolution(run *r, size_t i, size_t first_row, size_t k, double terms, double t0,
                                   double gdot)
{
    run_ctx *c = &r->ctx;
    double omega = c->omega[i], xi = c->model->law[i].xi, d[3];
    if (isnan(free_accel_trend(r, i, first_row, k, d)))
        return NAN;
    double rate = (d[0] - 2.0 * xi * d[1] / omega + (4.0 * xi * xi - 1.0) * d[2] / (omega * omega)) / (omega * omega);
    double oscillation = fabs(gdot - rate) / omega;
    double floor = fmax(1000.0 * DBL_EPSILON * terms, c->rtol * c->pen[i]);
    if (!(rate > 0.0) || !(oscillation <= EXIT_NOISE_FLOORS * floor))
        return NAN;
    return (DBL_EPSILON * terms + oscillation) / rate + DBL_EPSILON * fabs(t0);
}

/* Where G_i last crossed 0 before the state of the last recorded row (the switch of constraint i,
 * with the modes before it), and the resolution of that time: for the exit of a contact that lasted
 * beyond 3 half-periods, one its slow dynamics ended (slow_exit_resolution), else the round-off of
 * G_i over its rate at the crossing (pl_time_resolution).  A root switches
 * at the gap's round-off hysteresis, up to 100 ulps of its terms beyond 0 (gap_root), and the rows
 * of the steps between the crossing and the switch have G_i on the far side of 0: at a lift-off G_i
 * leaves 0 at the slow rate N'/omega^2 (the disk: 4e-8 at mu = 1e8, 4e-10 at 1e10), and the switch
 * came 9e-7 s, then 9e-5 s, after the crossing, against the delay 2 xi/omega (1.2e-4, 1.2e-5 s) a
 * lift-off converges by.  The crossing is one Newton step back from the first of those rows (a step
 * end, with the method's accuracy), or on the secant with the row before it if that step leaves the
 * interval between them (a turning G_i); rows before first_row are not looked at, and without a row
 * on the near side of 0 after it the switch's own time is taken.  side: +1 for an exit (G_i rose
 * through 0; t_in the contact's entry), -1 for an entry (t_in NAN). */
static double zero_crossing(run *r, size_t i, double side, size_t first_row, double t_in, double *resolution)
{
    run_ctx *c = &r->ctx;
    const pl_table *traj = &r->sol->traj;
    size_t n = c->n, m = c->m, col = pl_col_g(n, m) + i, last = traj->nrows - 1, k = last;
    while (k > first_row && side * pl_table_row(traj, k - 1)[col] >= 0.0)
        k--;
    if (k == first_row) /* G_i never on the near side since first_row (a dip within round-off) */
        k = last;
    const double *row = pl_table_row(traj, k);
    double t = row[0], g = row[col], *fp = c->fp_dense;
    const double *q = row + pl_col_q(n, m), *v = row + pl_col_v(n, m);
    pl_model_velocity_map(c->model, t, q, v, fp, NULL, NULL, NULL);
    double gdot = pl_model_gap_rate(c->model, i, t, q, fp, c->gap_dense), t0 = t, rate = gdot;
    const double *before = k > first_row ? pl_table_row(traj, k - 1) : NULL;
    if (before && side * before[col] < 0.0 && g != 0.0) {
        double tb = before[0], gb = before[col];
        t0 = t - g / gdot;
        if (!(t0 >= tb && t0 <= t) && gb != g) {
            rate = (g - gb) / (t - tb);
            t0 = t - g / rate;
        }
        if (!(t0 >= tb && t0 <= t))
            t0 = t;
    }
    double terms = pl_gap_terms(c->gap_dense, t, q, n);
    int sustained = side > 0.0 && t0 - t_in > 3.0 * M_PI / c->omega[i];
    *resolution = sustained ? slow_exit_resolution(r, i, first_row, k, terms, t0, gdot) : NAN;
    if (isnan(*resolution))
        *resolution = pl_time_resolution(terms, t0, rate);
    return t0;
}

static pl_status open_episode(run *r, size_t i, double t, const double *y, pl_error *err)
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
    ep->gamma_in = gamma_at(c, t, y);
    ep->impulse = -IMPULSE(y, c)[i]; /* completed at close */
    ep->max_penetration = fmax(0.0, -r->prev_g[i]);
    ep->row_in = r->sol->traj.nrows; /* the row recorded right after the switch */
    r->open[i] = (int)r->sol->nepisodes - 1;
    r->shared[i] = 0;
    for (size_t j = 0; j < c->m; j++)
        if (j != i && r->open[j] >= 0)
            r->shared[i] = r->shared[j] = 1;
    /* Settled once the entry transient has decayed below the tolerance, and not before 3 half
     * periods (an impact would have ended).  Its amplitude a0 is measured from the resting
     * penetration, which is up to pen away from G = 0 (a contact that starts at rest on G = 0
     * oscillates with amplitude ~pen). */
    double omega = c->omega[i], xi = c->model->law[i].xi;
    double a0 = hypot(r->prev_g[i], r->prev_gdot[i] / omega) + c->pen[i];
    double decay = log(fmax(1.0, a0 / (c->rtol * c->pen[i]))) / decay_rate(omega, xi);
    /* An overdamped contact does not oscillate: its fast mode (rate ~2 xi omega) is stiff from the
     * start and its slow one (omega / (2 xi)) smooth, which is BDF's case at once.  Waiting for the
     * slow decay on the Runge-Kutta pair cost steps growing like xi^2 (3e6 at xi = 1e3). */
    if (xi > 1.0)
        decay = 0.0;
    r->settle[i] = t + fmax(3.0 * M_PI / omega, decay);
    return PL_OK;
}

static void close_episode(run *r, size_t i, double t, const double *y, int ended)
{
    pl_episode *ep = &r->sol->episodes[r->open[i]];
    ep->gamma_out = gamma_at(&r->ctx, t, y);
    ep->impulse += IMPULSE(y, &r->ctx)[i];
    ep->row_out = r->sol->traj.nrows - 1;
    if (ended) {
        ep->t_out = zero_crossing(r, i, 1.0, ep->row_in, ep->t_in, &ep->t_out_resolution);
        ep->gdot_out = r->prev_gdot[i];
    }
    r->open[i] = -1;
}

static double gap_noise(const run_ctx *c, size_t i, double t, const double *q)
{
    pl_model_gap(c->model, i, t, q, c->gap_noise);
    return noise_of_gap(c, c->gap_noise, q);
}

/* The resolution of G_i at (t, q) (pl_gap_resolution): its round-off (noise_of_gap), or the floor
 * rtol pen_i of its tolerance (error_weights), whichever is larger.  Below it the integrated G_i is not
 * the penalized system's: a mass that has settled into the wedge's corner (e = 0, m < 0: the corner's
 * modes overdamped, G -> 0 with q) carries gaps of 1e-20 and below, far within the tolerance 2e-16 of
 * G at mu = 1e8, whose sign the integration does not decide (the exact G stays negative there), and
 * whose terms, q itself, give no round-off to hold them. */
static double gap_resolution(const run_ctx *c, size_t i, double t, const double *q)
{
    pl_model_gap(c->model, i, t, q, c->gap_noise);
    return pl_gap_resolution(pl_gap_terms(c->gap_noise, 0.0, q, c->n), c->rtol * c->pen[i]);
}

/* Gddot_i with constraint i's force off, and with it the force of every other active constraint j
 * whose contact is within the resolution of G_j (hypot(G_j, Gdot_j/omega_j) <= gap_resolution): the
 * acceleration of G_i by what the integration resolves.  (In the wedge's corner, once the mass has
 * settled, each wall's force is that of a penetration at 1e-20, and the other wall's gap moves with
 * it.) */
static double resolved_gap_accel(run_ctx *c, size_t i, double t, const double *y)
{
    const pl_gap *gaps = geometry_at(c, t, y);
    int *active = c->field.active, *saved = c->saved_active;
    memcpy(saved, active, c->m * sizeof *saved);
    for (size_t j = 0; j < c->m; j++)
        if (j == i || (active[j] && hypot(gaps[j].g, c->geometry_gdot[j] / c->omega[j]) <=
                                        gap_resolution(c, j, t, Q(y))))
            active[j] = 0;
    double D = gap_accel(c, i, t, y);
    memcpy(active, saved, c->m * sizeof *active);
    return D;
}

/* Whether constraint i at (t, y), at or past 0 on the side `side` (+1 for an exit, -1 for an entry),
 * has crossed as far as the integration resolves: its contact amplitude hypot(G_i, Gdot_i/omega_i),
 * which error_weights controls, beyond the resolution of G_i, or a resolved acceleration
 * (resolved_gap_accel) carrying G_i further to that side.  Within the resolution the sign of G_i
 * and of its rate are not known. */
static int resolved_crossing(run_ctx *c, size_t i, double t, const double *y, double side)
{
    const pl_gap *gaps = geometry_at(c, t, y);
    if (hypot(gaps[i].g, c->geometry_gdot[i] / c->omega[i]) > gap_resolution(c, i, t, Q(y)))
        return 1;
    double D = resolved_gap_accel(c, i, t, y);
    return isnan(D) || side * D > 0.0;
}

/* Whether a switch of constraint i at (t, y), G_i at its root and moving at the rate gdot (< 0 for
 * an entry, > 0 for an exit), begins a motion the integration resolves, with constraint i's force
 * off (the mode an entry leaves, the mode an exit enters) and Gddot_i = D:
 *   - where D turns G_i back, its excursion past 0, gdot^2 / (2 |D|), must exceed the resolution of
 *     G_i (gap_resolution).  At a tangency the integrated G dips to -1e-16 where the exact one
 *     touches 0, and the graze exerts no force; near a tangential lift-off (a table whose
 *     acceleration just exceeds g) G_i crossed 0 at round-off level before the limit's lift-off, and
 *     the contact ended and began again;
 *   - from a state within that resolution, hypot(G_i, gdot/omega_i) (the contact amplitude that
 *     error_weights controls), the rate's sign is not known, and only a resolved acceleration
 *     (resolved_gap_accel) carries G_i across: a contact that has returned to 0 as far as the
 *     integration sees, with nothing pulling it apart (an overdamped contact, whose exact gap never
 *     returns to 0, with no force on the mass), stays; a mass at rest on a constraint within the
 *     resolution with nothing pressing it on stays off.  The disk's lift-off at mu = 1e10 leaves
 *     G = 0 at the rate 4e-10 (gdot/omega_i = 4e-15, below the resolution 2e-14), carried by the
 *     normal force's sign change, which is resolved.  In the wedge's corner (e = 0, m < 0) gaps at
 *     1e-20 switched the walls on and off, each pushed by the other's unresolved force (15 episodes
 *     at m = -0.7, mu = 1e8; 11456 in 5 s at m = -0.999, mu = 1e6). */
static int resolvable_switch(run_ctx *c, size_t i, double t, const double *y, double gdot)
{
    int active = c->field.active[i];
    c->field.active[i] = 0;
    double D = gap_accel(c, i, t, y);
    c->field.active[i] = active;
    double resolution = gap_resolution(c, i, t, Q(y));
    if (gdot * D < 0.0)
        return gdot * gdot / (2.0 * fabs(D)) > resolution;
    return resolved_crossing(c, i, t, y, gdot > 0.0 ? 1.0 : -1.0);
}

/* Leads (lift_lead) within which the force must be due to turn for a lift-off's window to be renewed
 * (lift_off_renewal). */
#define LIFT_RENEW_LEADS 10.0

/* At the end of the window of a lift-off of constraint i on the Runge-Kutta pair (lift_end), with the
 * force still pushing at t (the last recorded row): the window's new end, if BDF would not resolve
 * what is left of the contact; NAN otherwise (BDF resumes).  BDF holds G_i to the error weights'
 * floor of 1000 ulps of its terms at best, and its restart moves G_i by about that: where the
 * penetration left, -G_i, is within that floor, the contact oscillation BDF leaves is larger than the
 * slow G_i and crosses 0 before the force turns (a table at mu = 1e12 whose window, opened on a turn
 * predicted from BDF's pressing() 2.4e-4 s early, ended 3.4e-5 s before the turn: 9.4e-16 left, an
 * oscillation of 6.5e-14 after BDF's restart, and the exit 3.2e-5 s before the limit's lift-off, which
 * it follows by 3.9e-7 s).  The pair then keeps the lift-off if the force turns within
 * LIFT_RENEW_LEADS leads: at the zero of D_i on its tangent (free_accel_trend), where the slow force
 * turns (in settled contact k (mu G + d Gdot) = D - Gddot ~ D), predicted from q, v and t alone,
 * which BDF's noise in G does not reach; the window then ends as the first would have. */
static double lift_off_renewal(run *r, size_t i, double t)
{
    run_ctx *c = &r->ctx;
    const pl_table *traj = &r->sol->traj;
    size_t k = traj->nrows - 1;
    if (r->open[i] < 0 || traj->nrows == 0 || pl_table_row(traj, k)[0] != t)
        return NAN;
    const double *row = pl_table_row(traj, k);
    pl_model_gap(c->model, i, t, row + pl_col_q(c->n, c->m), c->gap_noise);
    double terms = pl_gap_terms(c->gap_noise, t, row + pl_col_q(c->n, c->m), c->n), d[3];
    if (-c->gap_noise->g > 1000.0 * DBL_EPSILON * terms)
        return NAN;
    double D = free_accel_trend(r, i, r->sol->episodes[r->open[i]].row_in, k, d), lead = lift_lead(c, i);
    double turn = t - D / d[0];
    if (!(D < 0.0 && d[0] > 0.0 && turn - t <= LIFT_RENEW_LEADS * lead))
        return NAN;
    return turn + 2.0 * (2.0 * c->model->law[i].xi / c->omega[i] + lead);
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
    int any = 0, settled = 1;
    for (size_t i = 0; i < r->ctx.m; i++)
        if (r->ctx.field.active[i]) {
            any = 1;
            if (r->ctx.lifting[i] == 1 && t >= r->lift_end[i]) { /* the window of a lift-off passed */
                const pl_gap *gaps = geometry_at(&r->ctx, t, r->loop.stepper->y);
                int pushing = pressing(&r->ctx, i, gaps[i].g, r->ctx.geometry_gdot[i]) < 0.0;
                double end = pushing ? lift_off_renewal(r, i, t) : NAN;
                if (isnan(end))
                    r->ctx.lifting[i] = pushing ? 0 : 2;
                else
                    r->lift_end[i] = end;
            }
            settled &= t >= r->settle[i] && r->ctx.lifting[i] != 1;
        }
    if (r->ctx.bdf_held >= BDF_HELD)
        r->ctx.bdf_futile = 1;
    r->ctx.settled_phase = any && settled; /* the error weights of settled contact, either stepper */
    return r->ctx.settled_phase && !r->ctx.bdf_futile ? r->bdf : r->rk;
}

/* The loop's max_step hook: on the Runge-Kutta pair (flights and impacts) the case's forcing time
 * scale (pl_model_max_step; usually none); settled contacts (BDF) keep their long steps, but for the
 * approach of a lift-off (lift_off_approach). */
static double max_step(void *user, double t)
{
    run *r = user;
    return r->loop.stepper == r->bdf ? lift_off_approach(r, t) : pl_model_max_step(r->ctx.model, t);
}

/* First step after a (re)start.
 * - Runge-Kutta in contact: the step that resolves the contact oscillation, whose local error
 *   grows like (h omega)^9: h = 4 rtol^(1/9) / omega (accepted steps measure 5 rtol^(1/9) /
 *   omega).  In flight the pair estimates its own (Hairer's rule), its growth after that first
 *   step unbounded as in CVODE.
 * - BDF: CVODE's own heuristic caps it so that no component changes by more than 10% of its
 *   size, which gives h ~ 1e-14 where the gap is 0.  We use the order-1 error estimate alone:
 *   h = 0.5 sqrt(2 / |y''|_wrms), y'' = (f(t + d, y + d f) - f(t, y))/d. */
static double initial_step(void *user, pl_stepper *s, double t)
{
    run *r = user;
    run_ctx *c = &r->ctx;
    double omega = 0.0;
    for (size_t i = 0; i < c->m; i++)
        if (c->field.active[i])
            omega = fmax(omega, c->omega[i]);
    if (s == r->rk) {
        if (omega > 0.0)
            return 4.0 * pow(c->rtol, 1.0 / 9.0) / omega;
        /* Just off a constraint and turned back towards it (a hop that rises beyond round-off):
         * the first step ends no later than the top of the hop, so that the landing is a sign
         * change for the root finder.  (A hop within round-off is left to the missed-crossing
         * scan: bounding the step by it gave steps of 1e-12 s after a lift-off at D ~ 0.) */
        double h = INFINITY, *g = r->g_init, *gdot = r->gdot_init;
        contact_state(c, t, s->y, g, gdot, NULL);
        for (size_t i = 0; i < c->m; i++) {
            /* on the constraint: within round-off, or within the gap's change over the time
             * tolerance of the root the run was restarted at */
            double noise = gap_noise(c, i, t, Q(s->y));
            if (fabs(g[i]) <= noise + fabs(gdot[i]) * 100.0 * DBL_EPSILON * fmax(1.0, fabs(t))) {
                double D = gap_accel(c, i, t, s->y);
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
    if (rhs(t, y, f0, c) == 0 && error_weights(t, y, w, c) == 0) {
        for (size_t j = 0; j < N; j++)
            y1[j] = y[j] + d * f0[j];
        if (rhs(t + d, y1, f1, c) == 0) {
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

/* ---- crossings between step ends ------------------------------------------------------------ */

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
        pl_model_gap(c->model, d->i, t, Q(y), gap);
        return gap->g;
    }
    double *fp = c->fp_dense;
    pl_model_velocity_map(c->model, t, Q(y), V(y, c), fp, NULL, NULL, NULL);
    return pl_model_gap_rate(c->model, d->i, t, Q(y), fp, gap);
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
    double noise = gap_noise(c, i, te, Q(s->y)), candidate[2 + 40];
    int nc = 0;
    double gd0 = dense_eval(ta, &rate);
    const double *ya = s->dense(s, ta);
    double D0 = ya ? gap_accel(c, i, ta, ya) : NAN;
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
 * (next to the start G_i is round-off, whose noise a root solver would find); a departure within
 * round-off was none, and the crossing is the start. */
static double first_gap_root(run *r, size_t i, double te, double g_te)
{
    dense_fn d = {r, i, DENSE_GAP, 0};
    double ta = r->loop.prev_t, ga = dense_eval(ta, &d);
    if (!(ga * g_te < 0.0) || fabs(ga) <= gap_noise(&r->ctx, i, ta, Q(r->loop.stepper->y))) {
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
 * dense_eval: the state there is interpolated once for every constraint (sampled[j] = 1 once it
 * is), not once per constraint (with 114 constraints the interpolations were most of a run). */
static double sampled_gap_rate(run *r, int *sampled, int j, double s, size_t i)
{
    run_ctx *c = &r->ctx;
    double *gd = r->gdot_samples + (size_t)j * c->m;
    if (!sampled[j]) {
        sampled[j] = 1;
        pl_stepper *st = r->loop.stepper;
        const double *y = st->dense_cheap(st, s);
        for (size_t k = 0; k < c->m; k++)
            gd[k] = NAN;
        if (y) {
            double *fp = c->fp_dense;
            pl_model_velocity_map(c->model, s, Q(y), V(y, c), fp, NULL, NULL, NULL);
            for (size_t k = 0; k < c->m; k++)
                gd[k] = pl_model_gap_rate(c->model, k, s, Q(y), fp, c->gap_dense);
        }
    }
    return gd[i];
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
    for (size_t j = 0; j < c->m; j++)
        if (c->field.active[j])
            w = fmax(w, c->omega[j]);
    dense_fn rate = {r, i, DENSE_GAP_RATE, 1};
    for (int k = 0; k < 2; k++) {
        double gdot = dense_eval(ends[k], &rate);
        const double *y = s->dense_cheap(s, ends[k]);
        double gddot = y ? gap_accel(c, i, ends[k], y) : NAN;
        a = fmax(a, hypot((gddot + 2.0 * xi * omega * gdot) / (omega * omega), gdot / omega));
    }
    double h = (tb - ta) * w, margin = 10.0 * h * h * h * h * a / 384.0;
    if (!isfinite(ge) || !isfinite(margin))
        return 1;
    int open = r->open[i];
    if (minimum)
        return open < 0 || -ge + margin >= r->sol->episodes[open].max_penetration;
    return ge + margin >= gap_noise(c, i, te, Q(s->y));
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
    double gdot = pl_model_gap_rate(c->model, i, *te, Q(y), fp, c->gap_dense), g = c->gap_dense->g;
    double gddot = gap_accel(c, i, *te, y), d = -gdot / gddot;
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
 * pendulum of m2 = 1e-8, turned by its spring within 6e-6 s, had "max penetration 0"). */
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
 * is no exit (a disk pressed against a wall by a tiny force from its neighbour rose to G = 7e-16
 * there, was switched off, crossed -noise at once and was switched on again, at one time, forever),
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
    for (size_t i = 0; i < c->m; i++) {
        /* The mode disagrees with the sign of G at the end: the crossing left no sign change for
         * the root finder (the step began on the constraint, where a switch had just happened).
         * Beyond round-off, and beyond the gap's change over the time tolerance of a root (a step
         * that ends at a root ends just past it, the switch still to come). */
        double noise_b = gap_noise(c, i, tb, Q(r->loop.stepper->y)) +
                         fabs(gdot_b[i]) * 100.0 * DBL_EPSILON * fmax(fabs(tb), tb - ta);
        double side = c->field.active[i] ? 1.0 : -1.0;
        if ((!c->field.active[i] && g_b[i] < -noise_b) || (c->field.active[i] && g_b[i] > noise_b)) {
            if (!resolved_crossing(c, i, tb, y_b, side))
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
         * for a parabola).  (The extrema of the cubic of G and Gdot at the ends instead are right
         * only for a gap affine in q and fixed in time, and a long step put two disks' closest
         * approach 13 time units off: they passed through each other.) */
        int pieces = c->field.active[i] ? 1 : FLIGHT_SAMPLES;
        double s0 = ta, gd0 = gdot_a[i];
        for (int j = 1; j <= pieces && tb > ta; j++) {
            double s1 = j == pieces ? tb : ta + (tb - ta) * j / pieces;
            double gd1 = j == pieces ? gdot_b[i] : sampled_gap_rate(r, sampled, j, s1, i);
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
            double noise = gap_noise(c, i, te, Q(r->loop.stepper->y)); /* q at the step end: a scale */
            int missed = (!c->field.active[i] && minimum && ge < -noise) || (c->field.active[i] && maximum && ge > noise);
            const double *y_e = missed ? r->loop.stepper->dense(r->loop.stepper, te) : NULL;
            if (!missed || (y_e && !resolved_crossing(c, i, te, y_e, side)))
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

/* The `missed` hook's search: the pieces of [prev_t, t] between output samples, each checked by
 * find_missed_crossing on the dense output; the earliest missed crossing over all pieces and
 * constraints is taken, before a root of the same step only if it comes first. */
static int scan_missed_crossings(void *user, double t, const double *y, int at_root, double *t_cross, pl_error *err)
{
    run *r = user;
    run_ctx *c = &r->ctx;
    pl_stepper *s = r->loop.stepper;
    double ta = r->loop.prev_t, *g_a = r->g_a, *gdot_a = r->gdot_a, *gdot_b = r->gdot_b, *g = r->g_scan;
    memcpy(g_a, r->prev_g, c->m * sizeof *g_a);
    memcpy(gdot_a, r->prev_gdot, c->m * sizeof *gdot_a);
    size_t k = r->loop.next_sample;
    int found = 0;
    while (ta < t) {
        /* the budget between pieces: a step spanning many samples, each scanned for every constraint,
         * is work of its own (10^4 constraints once took 7 s past the budget here) */
        if (pl_budget_spent_writing(&(pl_budget){r->loop.max_seconds, r->loop.started}, pl_solution_numbers(r->sol))) {
            pl_fail(err, PL_ERR_SOLVER, PL_BUDGET_STOPPED " at t = %.17g (%s), scanning its last step for crossings",
                    r->loop.max_seconds, ta, r->context);
            return -1;
        }
        while (pl_loop_sample_time(&r->loop, k) <= ta)
            k++;
        double tb = fmin(pl_loop_sample_time(&r->loop, k), t), tc = NAN;
        size_t i = 0;
        const double *yb = tb < t ? s->dense(s, tb) : y;
        if (!yb) {
            pl_fail(err, PL_ERR_SOLVER, "dense output failed at t = %.17g (%s)", tb, r->context);
            return -1;
        }
        memcpy(r->y_scan, yb, c->N * sizeof *yb); /* the dense output's buffer is reused */
        contact_state(c, tb, r->y_scan, g, gdot_b, NULL);
        if (find_missed_crossing(r, ta, g_a, gdot_a, tb, r->y_scan, g, gdot_b, &tc, &i) &&
            (!found || tc < *t_cross)) {
            found = 1;
            *t_cross = tc;
            r->missed_constraint = i;
        }
        ta = tb;
        memcpy(g_a, g, c->m * sizeof *g_a);
        memcpy(gdot_a, gdot_b, c->m * sizeof *gdot_a);
    }
    return found && (!at_root || *t_cross < t);
}

/* The loop's `missed` hook: a crossing missed in the last step (scan_missed_crossings), or the
 * handover of a lift-off to the Runge-Kutta pair (lift_off_handover), whichever comes first (the
 * handover at a tie: BDF's exit, located on its dense output from a gap within round-off of 0, came
 * 6e-5 s before the limit's lift-off on the disk at mu = 1e10, and the pair finds the crossing
 * again). */
static int missed(void *user, double t, const double *y, int at_root, double *t_cross, pl_error *err)
{
    run *r = user;
    int found = scan_missed_crossings(user, t, y, at_root, t_cross, err);
    double t_hand = NAN;
    r->handover = r->ctx.m;
    if (found >= 0 && lift_off_handover(r, t, y, at_root, &t_hand) && (!found || t_hand <= *t_cross)) {
        *t_cross = t_hand;
        return 1;
    }
    r->handover = r->ctx.m;
    return found;
}

/* The force root of constraint i from its entry on (see roots): its side, the sign of lambda_i
 * there, and the noise of lambda_i in the integrated solution.  G_i is held to its tolerance, at
 * least 1000 ulps of q (error_weights; q may grow to the length scale L during the contact), and
 * Gdot_i to omega_i times that: lambda_i = -m k (mu G +
 * d Gdot), d = 2 xi sqrt(mu/k), then varies by m k mu dG (1 + 2 xi) about its value; twice that is
 * taken. */
static void start_force_root(run_ctx *c, size_t i, double t, const double *y)
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

/* Switch constraint i to active/inactive at the current row and keep the episodes in step. */
/* An impact under a dissipative law (xi > 0) returns at most the normal speed it came in with,
 * up to what the free acceleration (scale A) adds over the contact and the tolerance: more is a
 * numerical artefact, never a result.  (Not for an impact shared with another constraint, which
 * may transfer momentum into this one's normal direction, as at a corner.) */
static pl_status check_energy(run *r, size_t i, const pl_episode *ep, pl_error *err)
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

static pl_status switch_mode(run *r, size_t i, int active, double t, const double *y, pl_error *err)
{
    if (r->ctx.field.active[i] == active)
        return PL_OK;
    r->ctx.field.active[i] = active;
    modes_changed(&r->ctx);
    r->ctx.bdf_held = 0;
    r->ctx.bdf_futile = 0;
    if (active) {
        start_force_root(&r->ctx, i, t, y);
        return open_episode(r, i, t, y, err);
    }
    int e = r->open[i];
    close_episode(r, i, t, y, 1);
    return e >= 0 ? check_energy(r, i, &r->sol->episodes[e], err) : PL_OK;
}

/* The loop's `event` hook.  At a root of G_i, decreasing through 0 starts a contact (-1) and
 * increasing ends it (+1); a sign change whose direction disagrees with the sign of Gdot_i there
 * is round-off at a tangency (after a lift-off G grows like (t - t_off)^3) and is not a switch,
 * nor is one whose motion stays within the resolution of G_i (resolvable_switch).  A root of a force
 * changes no mode.  At a missed crossing, the constraint found there switches. */
static pl_status switch_at(void *user, double *t, double *y, const int *found, int *changed, pl_error *err)
{
    run *r = user;
    run_ctx *c = &r->ctx;
    int *direction = r->direction;
    memset(direction, 0, c->m * sizeof *direction);
    for (size_t i = 0; i < c->m; i++)
        if (*t < c->kink_t[i]) { /* a kink of the last step past this event has not happened */
            c->force_side[i] = -c->force_side[i];
            c->piece = c->piece_before;
        }
    if (found) {
        double *g = r->g_switch, *gdot = r->gdot_switch;
        contact_state(c, *t, y, g, gdot, NULL);
        for (size_t i = 0; i < c->m; i++) {
            if (!((found[i] < 0 && gdot[i] < 0.0) || (found[i] > 0 && gdot[i] > 0.0)) ||
                c->field.active[i] == (found[i] < 0))
                continue;
            if (resolvable_switch(c, i, *t, y, gdot[i]))
                direction[i] = found[i];
            else if (found[i] > 0 && c->lifting[i] == 1)
                c->lifting[i] = 2; /* the exit at round-off: the hysteresis again (exit_level) */
        }
        for (size_t i = 0; i < c->m; i++)
            if (found[c->m + i]) {
                c->force_side[i] = -c->force_side[i];
                if (c->force_side[i] > 0.0) /* pushing again: a lift-off to come is handed over anew */
                    r->ctx.lifting[i] = 0;
            }
    } else if (r->handover < c->m) { /* a lift-off handed to the Runge-Kutta pair (choose) */
        r->ctx.lifting[r->handover] = 1;
        r->handover = c->m;
    } else {
        size_t i = r->missed_constraint;
        direction[i] = c->field.active[i] ? 1 : -1;
    }
    *changed = 0;
    for (size_t i = 0; i < c->m; i++) {
        if (!direction[i])
            continue;
        *changed = 1;
        pl_status s = switch_mode(r, i, direction[i] < 0, *t, y, err);
        if (s != PL_OK)
            return s;
    }
    restart_gamma(c, *t, y);
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
        c->pen[i] = pl_law_rest_penetration(&model->law[i], c->mu, V, A);
        for (int order = 1; order <= 5; order++)
            c->bdf_radius[i][order] = NAN;
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
    for (size_t i = 0; i < c->m; i++)
        if (c->field.active[i] && isnan(c->bdf_radius[i][5]))
            for (int order = 1; order <= 5; order++)
                c->bdf_radius[i][order] = pl_bdf_unstable_radius(order, c->model->law[i].xi);
    for (int k = 5; k > 2; k--) {
        int stable = 1;
        for (size_t i = 0; i < c->m; i++)
            stable &= !c->field.active[i] || h * c->omega[i] >= 1.2 * c->bdf_radius[i][k];
        if (stable) {
            c->bdf_held = 0;
            return k;
        }
    }
    c->bdf_held++;
    return 2;
}

static pl_status setup_steppers(run *r, const double *y0, pl_error *err)
{
    run_ctx *c = &r->ctx;
    pl_stepper_spec spec = {.size = c->N, .y0 = y0, .t_end = r->sol->t_end, .rhs = rhs, .weights = error_weights,
                            .jacobian = jacobian, .roots = roots, .root = root, .kink = kink, .aim = aim,
                            .nroots = (int)(2 * c->m),
                            .napprox = (int)c->m, .root_ulps = 4.0, .max_order = bdf_max_order, .user = c,
                            .context = r->context};
    pl_status s = pl_stepper_rk_new(&r->rk, &spec, err);
    if (s == PL_OK)
        s = pl_stepper_cvode_new(&r->bdf, &spec, err);
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
    contact_state(c, 0.0, y, r->prev_g, r->prev_gdot, NULL);
    for (size_t i = 0; i < c->m; i++)
        if (c->field.active[i]) {
            start_force_root(c, i, 0.0, y);
            if ((s = open_episode(r, i, 0.0, y, err)) != PL_OK)
                return s;
        }
    restart_gamma(c, 0.0, r->loop.stepper->y);
    /* The start is in flight or in a fresh contact: the Runge-Kutta pair, set up at t = 0. */
    if ((s = pl_loop_record(&r->loop, 0.0, y, err)) != PL_OK)
        return s;
    return pl_loop_run(&r->loop, err);
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
    c->N = 2 * c->n + 1 + c->m;
    snprintf(r.context, sizeof r.context, "mu = %g", c->mu);
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
    r.loop = (pl_event_loop){.hooks = {.record = record_sample, .missed = missed, .event = switch_at,
                                       .choose = choose, .initial_step = initial_step,
                                       .max_step = max_step},
                             .user = &r, .context = r.context, .stats = &sol->stats, .t_end = opts->t_end,
                             .max_steps = opts->max_steps > 0 ? opts->max_steps : PL_DEFAULT_MAX_STEPS,
                             .max_seconds = opts->max_seconds, .started = pl_budget_start(opts, t0),
                             .output = sol, .samples = opts->samples, .next_sample = 1};

    double *y0 = r.y0;
    pl_model_initial_state(model, Q(y0), V(y0, c));
    for (size_t i = 0; i < c->m; i++) {
        c->field.active[i] = pl_model_initially_active(model, c->field.work, i, 0.0, Q(y0), V(y0, c));
        r.open[i] = -1;
    }
    r.handover = c->m;
    modes_changed(c);

    s = setup_steppers(&r, y0, e);
    if (s == PL_OK)
        s = integrate(&r, e);
    if (r.loop.stepper)
        r.loop.stepper->add_counters(r.loop.stepper, &sol->stats);

    /* Whatever happened, report the state reached and close the open episodes there. */
    pl_solution_finish(sol, s, e, t0);
    const double *yf = r.loop.stepper ? r.loop.stepper->y : y0;
    for (size_t i = 0; i < c->m; i++)
        if (r.open[i] >= 0)
            close_episode(&r, i, sol->t_final, yf, 0);
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
    for (size_t i = 0; i < model->m; i++)
        mu = fmin(mu, 1.0 / (model->law[i].k * tau * tau));
    return mu;
}

static pl_status check(const pl_model *model, const pl_solve_opts *opts, pl_error *err)
{
    double mu = opts->option[OPT_MU], largest = largest_resolvable_mu(model, opts->t_end);
    if (mu > largest && !(largest >= 1e-300))
        return pl_fail(err, PL_ERR_INPUT,
                       "t-end = %g is beyond what double precision resolves for any mu (a contact's time scale "
                       "1/sqrt(k mu) below %g ulps of t)",
                       opts->t_end, RESOLVE_TIME_ULPS);
    if (mu > largest)
        return pl_fail(err, PL_ERR_INPUT,
                       "mu = %g is beyond what double precision resolves up to t-end = %g (a contact's time "
                       "scale 1/sqrt(k mu) below %g ulps of t); the largest mu for this case and t-end is %.3g",
                       mu, opts->t_end, RESOLVE_TIME_ULPS, largest);
    return PL_OK;
}

const pl_solver_type pl_solver_penalty = {
    .name = "penalty",
    .summary = "the penalized system for one stiffness mu (Runge-Kutta rk8pd through flights and impacts, "
               "CVODE BDF in settled contact)",
    .family = PL_FAMILY_PENALTY,
    .options = options,
    .noptions = sizeof options / sizeof options[0],
    .refine = "mu",
    .refine_sign = +1,
    .check = check,
    .solve = solve,
};
