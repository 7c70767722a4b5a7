/* The Runge-Kutta stepper: GSL's embedded Prince-Dormand 8(9) pair (rk8pd), with a step-size
 * control on the solver's error weights (the weighted root-mean-square of the embedded estimate,
 * as CVODE measures it), roots of the solver's functions located by Brent's method on the last
 * step re-integrated over shorter intervals (each evaluation one rk8pd step from the step's start:
 * the state at a root has the method's accuracy, unlike an interpolant's), and dense output the
 * same way.  For phases where the solution must be resolved anyway: there an explicit 8th-order
 * pair takes several times fewer steps than BDF, whose order is capped at 5 and whose stability
 * near the imaginary axis needs low orders. */
#include <float.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/carve.h"
#include "core/linalg.h"
#include "core/rootfind.h"
#include "solvers/stepper.h"

#define ORDER 8      /* of the error estimate's lower-order solution */
#define SAFETY 0.9
#define MAX_GROWTH 10.0         /* per step, as CVODE */
#define MAX_GROWTH_FIRST 1e4    /* after the first step of a restart, as CVODE: its size was a guess */
#define MIN_SHRINK 0.2
/* A re-integration within HOP_FRACTION of the step from the last re-integrated state starts there
 * with one step of GSL's rkf45 (its fifth-order solution: 6 evaluations instead of rk8pd's 12).
 * Its local error ~ (d omega)^6/720 of the solution's scale, omega the solution's fastest
 * frequency: a step that resolves the solution has h omega below ~5, so a hop d <= 1e-4 h errs by
 * less than 1e-22 of it, below round-off.  The secant iterates of a root's location after the first
 * are such hops.  (Not across a kink of the right-hand side: see take_kinks.  1e-3 h, whose error
 * bound is 3e-17, moved a kinked corner impact's Delta Gamma by 4e-7 and a 12-disk box's limit
 * solution onto another sequence of impacts.) */
#define HOP_FRACTION 1e-4

double pl_stepper_min_step(double t)
{
    return 16.0 * DBL_EPSILON * fmax(1.0, fabs(t));
}

typedef struct {
    pl_stepper base;
    pl_stepper_spec spec;
    gsl_odeiv2_step *step, *hop; /* rk8pd; rkf45 for short re-integrations */
    gsl_odeiv2_system sys;
    size_t N;
    double t0; /* start of the last step, with y0 */
    double h;  /* the next step to try */
    double *y, *y0, *ytry, *yerr, *ydense, *w, *f0, *f1, *g0, *g1;
    double *groot, *gdep, *estimate, *when; /* nroots each: root_value, departures, find_roots */
    double *g_start; /* the root functions at the step's start (g0 is overwritten at its end) */
    int *found, *crosses;
    int *taken; /* the approximate roots the kink hook took over in this step */
    /* The root functions looked at (spec.live_roots; live NULL: every one), nlive of them, as of
     * live_version.  found is 0 for every other. */
    const int *live;
    size_t nlive;
    unsigned long live_version;
    int *found_at; /* the functions whose found is not 0, nfound of them */
    size_t nfound;
    double *block; /* the arrays above, carved (pl_stepper_rk_new) */
    int *int_block;
    int rhs_status; /* the last failure of the solver's right-hand side */
    /* f0 = f(t0, y0) and f1 = f(t, y), the derivatives at the ends of the last step, once computed:
     * f1 is the first stage of the next step (rk8pd's k1, given to GSL as dydt_in) and f0 that of
     * every re-integration from the step's start; with both, the step has a Hermite interpolant. */
    int have_f0, have_f1;
    double dense_t;  /* the time of the state in ydense, if it is a re-integration (else NAN) */
    double exact_t;  /* the time of the last re-integrated state y_exact in this step (else NAN), */
    double *y_exact, *f_exact; /* and f there once computed (have_f_exact) */
    int have_f_exact;
    int end_exact;   /* y at the step's end has the method's accuracy (no declined kink inside) */
    int aimed_at;    /* the root function the last step was aimed at (see aim), or -1, */
    int aimed_at_end; /* and whether its root lies at the step's end (root_at_end; -1: not asked) */
    long steps, rhs, fails;              /* since the last restart */
    long added_rhs, added_fails;         /* already added to the statistics */
} rk_stepper;

/* The e-th root function looked at (of nlive). */
static inline int live_at(const rk_stepper *r, size_t e)
{
    return r->live ? r->live[e] : (int)e;
}

/* The root functions looked at, from the solver; 1 if the list gained some since the last call
 * (its version changed). */
static int update_live(rk_stepper *r)
{
    if (!r->spec.live_roots) {
        r->live = NULL;
        r->nlive = (size_t)r->spec.nroots;
        return 0;
    }
    unsigned long version = r->live_version;
    r->nlive = r->spec.live_roots(r->spec.user, &r->live, &version);
    int changed = version != r->live_version;
    r->live_version = version;
    return changed;
}

/* found 0 for every function, and found[k] = direction. */
static void clear_found(rk_stepper *r)
{
    for (size_t e = 0; e < r->nfound; e++)
        r->found[r->found_at[e]] = 0;
    r->nfound = 0;
}

static void set_found(rk_stepper *r, int k, int direction)
{
    if (!r->found[k])
        r->found_at[r->nfound++] = k;
    r->found[k] = direction;
}

/* dst_k = src_k for the root functions looked at. */
static void copy_live(const rk_stepper *r, double *dst, const double *src)
{
    if (!r->live) {
        memcpy(dst, src, r->nlive * sizeof *dst);
        return;
    }
    for (size_t e = 0; e < r->nlive; e++)
        dst[r->live[e]] = src[r->live[e]];
}

static int gsl_rhs(double t, const double y[], double dydt[], void *params)
{
    rk_stepper *r = params;
    r->rhs++;
    int flag = r->spec.rhs(t, y, dydt, r->spec.user);
    if (flag) {
        r->rhs_status = flag;
        return GSL_EBADFUNC;
    }
    return GSL_SUCCESS;
}

/* One rk8pd step of size h from (t, ystart) into out (and its error estimate into r->yerr); fstart
 * is f(t, ystart). */
static int attempt(rk_stepper *r, double t, const double *ystart, const double *fstart, double h, double *out)
{
    memcpy(out, ystart, r->N * sizeof *out);
    r->rhs_status = 0;
    int status = gsl_odeiv2_step_apply(r->step, t, h, out, r->yerr, fstart, NULL, &r->sys);
    return status == GSL_SUCCESS && pl_all_finite(out, r->N) ? 0 : -1;
}

/* f0 = f(t0, y0) and f1 = f(t, y), each computed once; 0 if the right-hand side failed. */
static int derivative_at_start(rk_stepper *r)
{
    if (!r->have_f0)
        r->have_f0 = gsl_rhs(r->t0, r->y0, r->f0, r) == GSL_SUCCESS;
    return r->have_f0;
}

static int derivative_at_end(rk_stepper *r)
{
    if (!r->have_f1)
        r->have_f1 = gsl_rhs(r->base.t, r->y, r->f1, r) == GSL_SUCCESS;
    return r->have_f1;
}

/* The solution at tau in [t0, t] of the last step, by re-integration from its start (the last one
 * is kept: a root's location ends with the state there), or by a hop from the nearer of the last
 * re-integrated state and the step's end (a step aimed at a root ends just past it) within
 * HOP_FRACTION of the step.  (Not from the step's start: near a restart on resting contacts of
 * round-off size the limit solution's roots changed sign with the integrator's round-off, and a
 * 7-ball cradle restarted at every step.) */
static const double *reintegrate(rk_stepper *r, double tau)
{
    if (tau == r->dense_t)
        return r->ydense;
    if (tau >= r->base.t)
        return r->y;
    if (tau <= r->t0)
        return r->y0;
    r->dense_t = NAN;
    double d = tau - r->exact_t;
    if (d == 0.0) { /* the last re-integrated state, whose copy in ydense an interpolation replaced */
        memcpy(r->ydense, r->y_exact, r->N * sizeof *r->ydense);
        r->dense_t = tau;
        return r->ydense;
    }
    double reach = HOP_FRACTION * (r->base.t - r->t0), from_end = r->base.t - tau;
    enum { FULL, EXACT, END } from = FULL;
    if (fabs(d) <= reach)
        from = EXACT, reach = fabs(d);
    if (r->end_exact && from_end <= reach)
        from = END;
    if (from == FULL) {
        if (!derivative_at_start(r) || attempt(r, r->t0, r->y0, r->f0, tau - r->t0, r->ydense) != 0)
            return NULL;
    } else {
        int have_f;
        const double *ys, *fs;
        double ts;
        if (from == EXACT) {
            if (!r->have_f_exact)
                r->have_f_exact = gsl_rhs(r->exact_t, r->y_exact, r->f_exact, r) == GSL_SUCCESS;
            have_f = r->have_f_exact, ys = r->y_exact, fs = r->f_exact, ts = r->exact_t;
        } else
            have_f = derivative_at_end(r), ys = r->y, fs = r->f1, ts = r->base.t;
        memcpy(r->ydense, ys, r->N * sizeof *r->ydense);
        r->rhs_status = 0;
        if (!have_f || gsl_odeiv2_step_apply(r->hop, ts, tau - ts, r->ydense, r->yerr, fs, NULL, &r->sys) != GSL_SUCCESS ||
            !pl_all_finite(r->ydense, r->N))
            return NULL;
    }
    r->dense_t = r->exact_t = tau;
    memcpy(r->y_exact, r->ydense, r->N * sizeof *r->y_exact);
    r->have_f_exact = 0;
    return r->ydense;
}

static double wrms(const rk_stepper *r, const double *x)
{
    double s = 0.0;
    for (size_t j = 0; j < r->N; j++)
        s += (x[j] * r->w[j]) * (x[j] * r->w[j]);
    return sqrt(s / (double)r->N);
}

typedef struct {
    rk_stepper *r;
    int k;
    int cheap;         /* on the cubic Hermite interpolant of the step instead of re-integration */
    double memo[2][2]; /* the last two (tau, value): GSL's root solvers evaluate the ends again */
    int next;
} root_fn;

/* The derivatives at both ends of the last step, for its Hermite interpolant. */
static int slopes(rk_stepper *r)
{
    return derivative_at_start(r) && derivative_at_end(r);
}

/* The cubic Hermite interpolant of the last step at tau, from the states and derivatives at its
 * ends: accurate to O((h/T)^4) of the step's scale, against O((h/T)^9) for a re-integration. */
static const double *hermite(rk_stepper *r, double tau)
{
    if (tau >= r->base.t)
        return r->y;
    if (tau <= r->t0)
        return r->y0;
    if (!slopes(r))
        return NULL;
    r->dense_t = NAN; /* ydense now holds an interpolated state */
    double h = r->base.t - r->t0, s = (tau - r->t0) / h, s2 = s * s, s3 = s2 * s;
    double a = 2 * s3 - 3 * s2 + 1, b = (s3 - 2 * s2 + s) * h, c = -2 * s3 + 3 * s2, d = (s3 - s2) * h;
    for (size_t j = 0; j < r->N; j++)
        r->ydense[j] = a * r->y0[j] + b * r->f0[j] + c * r->y[j] + d * r->f1[j];
    return r->ydense;
}

/* Root function k along the last step; the ends are known. */
static double root_value(double tau, void *p)
{
    root_fn *f = p;
    rk_stepper *r = f->r;
    if (tau <= r->t0)
        return r->g0[f->k];
    if (tau >= r->base.t)
        return r->g1[f->k];
    for (int j = 0; j < 2; j++)
        if (f->memo[j][0] == tau)
            return f->memo[j][1];
    const double *y = f->cheap ? hermite(r, tau) : reintegrate(r, tau);
    double g;
    if (!y)
        return NAN;
    if (r->spec.root) {
        if (r->spec.root(tau, y, f->k, &g, r->spec.user))
            return NAN;
    } else if (r->spec.roots(tau, y, r->groot, r->spec.user))
        return NAN;
    else
        g = r->groot[f->k];
    f->memo[f->next][0] = tau;
    f->memo[f->next][1] = g;
    f->next ^= 1;
    return g;
}

/* Whether the root of function k, crossed in the last step, lies within tol of the step's end, as
 * when the step was aimed at it (see aim): the function still has its old sign 3/4 tol before the
 * end on the interpolant, exact to round-off this close to an end. */
static int root_at_end(rk_stepper *r, int k, double tol)
{
    if (r->aimed_at != k)
        return 0;
    if (r->aimed_at_end < 0) { /* asked by find_roots, then by locate: evaluated once */
        root_fn cheap = {.r = r, .k = k, .cheap = 1, .memo = {{NAN, NAN}, {NAN, NAN}}};
        r->aimed_at_end = root_value(r->base.t - 0.75 * tol, &cheap) * r->g0[k] > 0.0;
    }
    return r->aimed_at_end;
}

/* The tolerance of root k in the last step: as CVODE, to root_ulps (default 100) ulps of the time
 * or the step; an approximate one (a kink of a quadrature's integrand: misplacing it by d costs
 * that quadrature ~ slope jump * d^2; 1e-4 gave Delta Gamma of an impact to 1e-6 relative, 1e-6
 * gives 1e-10) to 1e-6 of the step. */
static double root_tolerance(const rk_stepper *r, int k, double t, double h)
{
    double ulps = r->spec.root_ulps > 0.0 ? r->spec.root_ulps : 100.0, tol = ulps * DBL_EPSILON * fmax(fabs(t), h);
    return k >= r->spec.nroots - r->spec.napprox ? fmax(tol, 1e-6 * h) : tol;
}

/* Where precise function k crosses 0 in the last step, from its estimate on the interpolant.
 * Secant iterations on re-integrations, started with the interpolant's slope, close in on the
 * root (the estimate is already good to the interpolant's accuracy: two or three re-integrations
 * reach round-off), each keeping the bracket [a, b] (old sign, new sign) up to date and aiming
 * tol/4 past the root; an iterate past the root whose secant root lies within 3 tol/4 behind it
 * is taken.  Illinois finishes whatever bracket is
 * left, should the secant steps leave it or stall.  Returns a point just past the root, where the
 * function has its new sign, within tol of it. */
static double locate(rk_stepper *r, int k, double estimate, double tol)
{
    root_fn exact = {.r = r, .k = k, .cheap = 0, .memo = {{NAN, NAN}, {NAN, NAN}}};
    root_fn cheap = {.r = r, .k = k, .cheap = 1, .memo = {{NAN, NAN}, {NAN, NAN}}};
    double a = r->t0, b = r->base.t, ga = r->g0[k], gb = r->g1[k];
    double d = fmax(tol, 1e-6 * (b - a)), lo = fmax(a, estimate - d), hi = fmin(b, estimate + d);
    if (estimate == b && root_at_end(r, k, tol))
        return b;
    double slope = (root_value(hi, &cheap) - root_value(lo, &cheap)) / (hi - lo);
    double t1 = estimate;
    for (int it = 0; it < 8 && b - a > tol; it++) {
        double g1 = root_value(t1, &exact);
        if (isnan(g1))
            return NAN;
        if (g1 * ga > 0.0)
            a = t1, ga = g1;
        else
            b = t1, gb = g1;
        if (b - a <= tol || g1 == 0.0)
            break;
        double root = t1 - g1 / slope;
        if (b == t1 && root > t1 - 0.75 * tol)
            return b; /* past the root, by less than tol */
        /* The next iterate aims a quarter of tol past the root, so that it lands on the new side:
         * the secant's error is far below that once it is this close. */
        double t2 = root + 0.25 * tol;
        if (!(t2 > a && t2 < b) || !isfinite(t2))
            break;
        double g2 = root_value(t2, &exact);
        if (isnan(g2))
            return NAN;
        if (g2 != g1)
            slope = (g2 - g1) / (t2 - t1);
        t1 = t2;
    }
    return pl_illinois(root_value, &exact, a, ga, b, gb, tol);
}

/* A function that starts the step at exactly 0 (a restart on its root) left it to one side: the
 * side it has just after t0, on the interpolant at 1e-4 of the step (where it is beyond round-off
 * and the interpolant is exact to O(1e-16) of the step's scale).  If it ends the step on the other
 * side, it came back: its start value is taken as that departure value, so that the return is a
 * crossing like any other (CVODE does the same, at 100 ulps past t0). */
static int departures(rk_stepper *r)
{
    int need = 0;
    for (size_t e = 0; e < r->nlive; e++) {
        int k = live_at(r, e);
        need |= r->g0[k] == 0.0 && r->g1[k] != 0.0;
    }
    if (!need)
        return 0;
    double td = r->t0 + 1e-4 * (r->base.t - r->t0), *gd = r->gdep;
    const double *yd = hermite(r, td);
    if (!yd || r->spec.roots(td, yd, gd, r->spec.user))
        return -1;
    for (size_t e = 0; e < r->nlive; e++) {
        int k = live_at(r, e);
        if (r->g0[k] == 0.0 && r->g1[k] != 0.0 && gd[k] != 0.0 && (gd[k] > 0.0) != (r->g1[k] > 0.0))
            r->g0[k] = gd[k];
    }
    return 0;
}

/* With a kink hook (stepper.h), the approximate roots crossed before every precise one in the last
 * step go to the solver at the state re-integrated to their location (as an approximate root that
 * cuts the step would be located), and do not cut the step; the root functions' values at the step's end are taken again (a kink may change
 * them), and the earliest remaining crossing into *first, *kfirst. */
static int take_kinks(rk_stepper *r, double *first, int *kfirst, pl_error *err)
{
    int nr = r->spec.nroots, np = nr - r->spec.napprox, taken = 0;
    double first_precise = INFINITY;
    for (size_t e = 0; e < r->nlive; e++) {
        int k = live_at(r, e);
        if (k < np && r->crosses[k])
            first_precise = fmin(first_precise, r->estimate[k]);
    }
    for (size_t e = 0; e < r->nlive; e++) {
        int k = live_at(r, e);
        if (k < np || !r->crosses[k] || !(r->estimate[k] < first_precise))
            continue;
        /* to 1e-6 of the step, as an approximate root that cuts the step */
        double tk = locate(r, k, r->estimate[k], root_tolerance(r, k, r->base.t, r->base.t - r->t0));
        const double *y = isnan(tk) ? NULL : reintegrate(r, tk);
        int declined = y ? r->spec.kink(tk, y, k, r->spec.user) : -1;
        if (declined < 0) {
            pl_fail(err, PL_ERR_SOLVER, "a kink at t = %.17g failed (%s)", tk, r->spec.context);
            return -1;
        }
        if (declined) {
            /* The step is cut at tk.  Its state there may come from a hop across the kink, which a
             * quadrature's integrand has at the root (a corner's |sum w lambda|): from the step's
             * start instead, where the kink is at the end of the interval. */
            r->exact_t = r->dense_t = NAN;
            r->end_exact = 0;
            if (!reintegrate(r, tk)) {
                pl_fail(err, PL_ERR_SOLVER, "re-integration to a root failed at t = %.17g (%s)", tk, r->spec.context);
                return -1;
            }
            r->estimate[k] = tk; /* located: the cut below finds it at once */
            continue;
        }
        r->crosses[k] = 0;
        r->taken[k] = 1;
        taken = 1;
    }
    if (taken && r->spec.roots(r->base.t, r->y, r->g1, r->spec.user)) {
        pl_fail(err, PL_ERR_SOLVER, "the root functions failed at t = %.17g (%s)", r->base.t, r->spec.context);
        return -1;
    }
    *first = INFINITY;
    *kfirst = -1;
    for (size_t e = 0; e < r->nlive; e++) {
        int k = live_at(r, e);
        if (r->crosses[k] && r->estimate[k] < *first)
            *first = r->estimate[k], *kfirst = k;
    }
    return 0;
}

/* The last step ends at t inside it instead (a root, or an event the solver found, see cut): the
 * state there re-integrated, and the step's interpolant and hops from its end taken from there. */
static int end_step_at(rk_stepper *r, double t, pl_error *err)
{
    const double *y = reintegrate(r, t);
    if (!y) {
        pl_fail(err, PL_ERR_SOLVER, "re-integration to a root failed at t = %.17g (%s)", t, r->spec.context);
        return -1;
    }
    memcpy(r->ytry, y, r->N * sizeof *y); /* y is r->ydense */
    memcpy(r->y, r->ytry, r->N * sizeof *y);
    r->base.t = t;
    r->have_f1 = 0;
    r->dense_t = NAN;
    r->end_exact = 1;
    return 0;
}

/* take_kinks judges an approximate function by its signs at the step's ends.  One that crosses 0
 * and back within the step (a force that changes sign before an impact's exit, then, the contact
 * still on in the integration, swings back past the exit) keeps its sign at the end, and its
 * crossing before the step's first event, the exit, was lost (Delta Gamma of the impact off by
 * the force's integral past its sign change).  Once the step ends at its first event, each
 * approximate function not taken over in the step nor found at the event is judged again by its
 * signs at the start (g_start) and at the event (g1, the step's end now): a crossing goes to the
 * kink hook as in take_kinks, in order of time.  Should the solver decline one, the step ends
 * there instead, at that root (found).  Returns 1 then, 0 otherwise, -1 on failure; g1 holds the
 * functions at the step's end. */
static int lost_kinks(rk_stepper *r, pl_error *err)
{
    int nr = r->spec.nroots, np = nr - r->spec.napprox, lost = 0;
    if (!r->spec.kink)
        return 0;
    double *g0 = r->g0, *g1 = r->g1, *when = r->when, h = r->base.t - r->t0;
    for (size_t e = 0; e < r->nlive; e++) {
        int k = live_at(r, e);
        if (k < np)
            continue;
        double a = r->g_start[k];
        when[k] = NAN;
        if (r->taken[k] || r->found[k] ||
            !((a > 0.0 && g1[k] <= 0.0) || (!r->spec.falling_only && a < 0.0 && g1[k] >= 0.0)))
            continue;
        if (!lost++) {
            copy_live(r, g0, r->g_start); /* the ends of root_value */
            r->aimed_at = -1;                              /* the step no longer ends where aimed */
        }
        root_fn f = {.r = r, .k = k, .cheap = 1, .memo = {{NAN, NAN}, {NAN, NAN}}};
        double estimate = slopes(r) ? pl_illinois(root_value, &f, r->t0, a, r->base.t, g1[k], 1e-9 * h) : NAN;
        when[k] = locate(r, k, isnan(estimate) ? r->base.t : estimate, root_tolerance(r, k, r->base.t, h));
        if (isnan(when[k])) {
            pl_fail(err, PL_ERR_SOLVER, "a kink in the step from t = %.17g failed (%s)", r->t0, r->spec.context);
            return -1;
        }
    }
    int declined = 0;
    for (int left = lost; left > 0 && !declined; left--) {
        int k = -1;
        for (size_t e = 0; e < r->nlive; e++) {
            int j = live_at(r, e);
            if (j >= np && !isnan(when[j]) && (k < 0 || when[j] < when[k]))
                k = j;
        }
        double tk = when[k];
        when[k] = NAN;
        const double *y = reintegrate(r, tk);
        declined = y ? r->spec.kink(tk, y, k, r->spec.user) : -1;
        if (declined < 0) {
            pl_fail(err, PL_ERR_SOLVER, "a kink at t = %.17g failed (%s)", tk, r->spec.context);
            return -1;
        }
        if (!declined) {
            r->taken[k] = 1;
            continue;
        }
        /* the state from the step's start, as at a declined kink in take_kinks */
        int direction = g1[k] > g0[k] ? 1 : -1;
        r->exact_t = r->dense_t = NAN;
        r->end_exact = 0;
        if (end_step_at(r, tk, err) != 0)
            return -1;
        clear_found(r);
        set_found(r, k, direction);
    }
    if (lost && r->spec.roots(r->base.t, r->y, g1, r->spec.user)) {
        pl_fail(err, PL_ERR_SOLVER, "the root functions failed at t = %.17g (%s)", r->base.t, r->spec.context);
        return -1;
    }
    return declined;
}

/* After an accepted step: the earliest root of a function that changed sign over it (a value that
 * reaches 0 counts; one leaving 0, as after a restart at a root, does not).  Every crossing is
 * first located on the interpolant; the earliest is then refined (with any other precise one
 * estimated within the bracket of the refinement: simultaneous roots, as at a corner).  The step is cut back to just past that root (where the function has its new sign), as
 * CVODE returns it. */
static int find_roots(rk_stepper *r, pl_error *err)
{
    int nr = r->spec.nroots;
    if (nr == 0)
        return 0;
    if (r->spec.roots(r->base.t, r->y, r->g1, r->spec.user)) {
        pl_fail(err, PL_ERR_SOLVER, "the root functions failed at t = %.17g (%s)", r->base.t, r->spec.context);
        return -1;
    }
    double *estimate = r->estimate, *when = r->when, first = INFINITY, h = r->base.t - r->t0;
    int *crosses = r->crosses, kfirst = -1, any = 0;
    if (departures(r) != 0) {
        pl_fail(err, PL_ERR_SOLVER, "the root functions failed at t = %.17g (%s)", r->t0, r->spec.context);
        return -1;
    }
    copy_live(r, r->g_start, r->g0);
    for (size_t e = 0; e < r->nlive; e++) {
        int k = live_at(r, e);
        r->taken[k] = 0;
        crosses[k] = (r->g0[k] > 0.0 && r->g1[k] <= 0.0) || (!r->spec.falling_only && r->g0[k] < 0.0 && r->g1[k] >= 0.0);
        estimate[k] = when[k] = NAN;
        if (!crosses[k])
            continue;
        root_fn f = {.r = r, .k = k, .cheap = 1, .memo = {{NAN, NAN}, {NAN, NAN}}};
        /* to 1e-9 of the step: the secant refinement then needs one or two re-integrations (the
         * interpolant of a step in contact is no more accurate than that) */
        if (!slopes(r) || root_at_end(r, k, root_tolerance(r, k, r->base.t, h)))
            estimate[k] = r->base.t;
        else
            estimate[k] = pl_illinois(root_value, &f, r->t0, r->g0[k], r->base.t, r->g1[k], 1e-9 * h);
        if (isnan(estimate[k]))
            estimate[k] = r->base.t; /* no sign change on the interpolant: refine over the step */
        if (estimate[k] < first)
            first = estimate[k], kfirst = k;
    }
    if (r->spec.kink && kfirst >= 0 && take_kinks(r, &first, &kfirst, err) != 0)
        return -1;
    if (kfirst < 0) {
        copy_live(r, r->g0, r->g1);
        return 0;
    }
    /* each to its tolerance (root_tolerance), just past it, so that the next step does not meet it
     * again */
    double t_root = INFINITY;
    if (kfirst < nr - r->spec.napprox) {
        for (size_t e = 0; e < r->nlive; e++) {
            int k = live_at(r, e);
            if (k < nr - r->spec.napprox && crosses[k] && estimate[k] <= first + 2e-3 * h) {
                when[k] = locate(r, k, estimate[k], root_tolerance(r, k, r->base.t, h));
                if (!isnan(when[k]))
                    t_root = fmin(t_root, when[k]);
            }
        }
    } else {
        when[kfirst] = locate(r, kfirst, first, root_tolerance(r, kfirst, r->base.t, h));
        t_root = when[kfirst];
    }
    if (!(t_root <= r->base.t))
        t_root = first;
    double tol = 8.0 * DBL_EPSILON * fmax(1.0, fabs(t_root));
    clear_found(r);
    for (size_t e = 0; e < r->nlive; e++) {
        int k = live_at(r, e);
        double tk = isnan(when[k]) ? estimate[k] : when[k];
        if (crosses[k] && tk <= t_root + tol) {
            set_found(r, k, r->g1[k] > r->g0[k] ? 1 : -1);
            any = 1;
        }
    }
    if (t_root < r->base.t && end_step_at(r, t_root, err) != 0)
        return -1;
    if (r->spec.roots(r->base.t, r->y, r->g1, r->spec.user)) {
        pl_fail(err, PL_ERR_SOLVER, "the root functions failed at t = %.17g (%s)", r->base.t, r->spec.context);
        return -1;
    }
    int declined = lost_kinks(r, err);
    if (declined < 0)
        return -1;
    copy_live(r, r->g0, r->g1);
    return any || declined;
}

/* Aiming.  A root inside a step is located by re-integrations from the step's start (a full step
 * each) or hops (one rkf45 step) from a state of the method's accuracy.  When the solver predicts
 * its next root within the step (spec.aim), the step ends just past the prediction instead, by
 * twice its uncertainty and at least a quarter of the root's tolerance: locate then finds a root
 * predicted to round-off at the step's end with no re-integration, and any other one a hop from
 * the end.  A prediction too uncertain for that (a margin beyond half a hop's reach) is not used.
 * The step would have been cut at the root anyway, so aiming costs no step unless the prediction
 * is early by more than its margin (the root is then the next step's); the next step keeps the
 * size the error control proposed.  Roots predicted in the first 1e-3 of the step are left alone.
 * Returns whether *h was shortened. */
static int aim(rk_stepper *r, double t, double *h)
{
    r->aimed_at = r->aimed_at_end = -1;
    if (!r->spec.aim)
        return 0;
    int k = -1;
    double uncertainty = INFINITY, te = r->spec.aim(t, r->y, *h, &k, &uncertainty, r->spec.user);
    if (!(te > t + 1e-3 * *h && te < t + *h) || k < 0 || k >= r->spec.nroots)
        return 0;
    double span = te - t, tol = root_tolerance(r, k, te, span);
    double margin = fmax(0.25 * tol, 2.0 * uncertainty), end = te + margin;
    /* nor one below first_step's floor: under t = 1 a root's tolerance (4 ulps of t) is far below the
     * smallest step (16 ulps of 1), and a step aimed 1e-15 ahead at t = 1e-5 failed the run */
    if (!(margin <= 0.5 * HOP_FRACTION * span && end < t + *h && end - t >= 100.0 * pl_stepper_min_step(t)))
        return 0;
    *h = end - t;
    r->aimed_at = k;
    return 1;
}

/* ---- Singular points ---------------------------------------------------------------------
 * After a point t_s where the solution behaves like (t - t_s)^q (spec.singular: a Hertz contact's
 * entry), the local error of a step from t is dominated by that term's derivatives: like
 * h^9 (t - t_s)^(q - 9) for h << t - t_s, falling as the steps move away from t_s.  The control's
 * proposal (for an error like h^9) is corrected for the next step's start by
 * ((t + h - t_s)/(t - t_s))^a, a = (9 - q)/9.  The steps it lengthens have h ~ t - t_s, beyond the
 * model's derivation: it is an empirical fit there (a Hertz compression's accepted errors to 10% at
 * h/(t - t_s) = 0.7 to 1.05), which bench_laws measures at rtol 1e-6 to 1e-10.  Only up to a
 * quarter of the way to the next singular point (the contact's predicted exit; none predicted, no
 * correction): nearer the middle the smooth part of the error dominates, and growing there cost a
 * rejected step per impact.  The error test still judges every step. */
static double singular_growth(rk_stepper *r, double t, double h)
{
    double behind = NAN, ahead = NAN, q = r->spec.singular ? r->spec.singular(t, &behind, &ahead, r->spec.user) : NAN;
    double t1 = t + h;
    if (!(q > 0.0 && q < ORDER + 1) || !(behind < t) || !(t1 - behind <= 0.25 * (ahead - behind)))
        return 1.0;
    return pow((t1 - behind) / (t - behind), (ORDER + 1 - q) / (ORDER + 1));
}

static int step(pl_stepper *s, double t_stop, pl_error *err)
{
    rk_stepper *r = s->impl;
    double t = s->t;
    if (update_live(r)) { /* functions new to the list: their values at the step's start */
        clear_found(r);
        if (r->spec.roots(t, r->y, r->g0, r->spec.user)) {
            pl_fail(err, PL_ERR_SOLVER, "the root functions failed at t = %.17g (%s)", t, r->spec.context);
            return -1;
        }
    }
    for (;;) {
        double h_max = s->max_step > 0.0 ? s->max_step : INFINITY;
        double remaining = t_stop - t, h = fmin(fmin(r->h, h_max), remaining);
        int aimed = aim(r, t, &h), last = h >= remaining;
        if (!(h > pl_stepper_min_step(t))) {
            pl_fail(err, PL_ERR_SOLVER, "Runge-Kutta step size %g too small at t = %.17g (%s)", h, t, r->spec.context);
            return -1;
        }
        if (!derivative_at_end(r) || attempt(r, t, r->y, r->f1, h, r->ytry) != 0) {
            if (r->rhs_status < 0) {
                pl_fail(err, PL_ERR_SOLVER, "the right-hand side failed at t = %.17g (%s)", t, r->spec.context);
                return -1;
            }
            r->fails++;
            r->h = 0.25 * h;
            continue;
        }
        if (r->spec.weights(t, r->y, r->w, r->spec.user)) {
            pl_fail(err, PL_ERR_SOLVER, "the error weights failed at t = %.17g (%s)", t, r->spec.context);
            return -1;
        }
        double e = wrms(r, r->yerr);
        double growth = r->steps == 0 ? MAX_GROWTH_FIRST : MAX_GROWTH;
        double factor = e > 0.0 ? SAFETY * pow(e, -1.0 / (ORDER + 1)) : growth;
        if (!(e <= 1.0)) {
            r->fails++;
            r->h = h * fmax(MIN_SHRINK, fmin(factor, 1.0));
            continue;
        }
        r->t0 = t;
        memcpy(r->y0, r->y, r->N * sizeof *r->y);
        memcpy(r->y, r->ytry, r->N * sizeof *r->y);
        double *f = r->f0; /* the step's first stage becomes f0 */
        r->f0 = r->f1, r->f1 = f;
        r->have_f0 = 1, r->have_f1 = 0;
        s->t = last ? t_stop : t + h;
        r->steps++;
        r->dense_t = r->exact_t = NAN;
        r->end_exact = 1;
        double next = h * fmax(MIN_SHRINK, fmin(factor * singular_growth(r, t, h), growth));
        /* a step cut at t_stop or aimed at a root says nothing of the next */
        r->h = last || aimed ? fmax(next, r->h) : next;
        /* The next step's first stage now rather than then: the roots and the solver's record at
         * the step's end may use it (its forces), and it is lost only if a root cuts the step. */
        if (!derivative_at_end(r) && r->rhs_status < 0) {
            pl_fail(err, PL_ERR_SOLVER, "the right-hand side failed at t = %.17g (%s)", s->t, r->spec.context);
            return -1;
        }
        return find_roots(r, err);
    }
}

static const double *dense(pl_stepper *s, double t)
{
    return reintegrate(s->impl, t);
}

/* See stepper.h: the step ends at t, and the approximate functions are judged up to there
 * (lost_kinks). */
static int cut(pl_stepper *s, double t, pl_error *err)
{
    rk_stepper *r = s->impl;
    int nr = r->spec.nroots;
    if (t < s->t && end_step_at(r, t, err) != 0)
        return -1;
    clear_found(r);
    if (nr == 0 || !r->spec.kink)
        return 0; /* nothing to judge; the restart evaluates the functions */
    if (r->spec.roots(s->t, r->y, r->g1, r->spec.user)) {
        pl_fail(err, PL_ERR_SOLVER, "the root functions failed at t = %.17g (%s)", s->t, r->spec.context);
        return -1;
    }
    int declined = lost_kinks(r, err);
    if (declined >= 0)
        copy_live(r, r->g0, r->g1);
    return declined;
}

static const double *dense_cheap(pl_stepper *s, double t)
{
    return hermite(s->impl, t);
}

static size_t root_info(pl_stepper *s, int *found, int *which)
{
    rk_stepper *r = s->impl;
    for (size_t e = 0; e < r->nfound; e++) {
        int k = r->found_at[e];
        found[k] = r->found[k];
        which[e] = k;
    }
    return r->nfound;
}

/* The first step, from the order of the method (Hairer, Norsett and Wanner, Solving ODEs I,
 * section II.4): an explicit Euler step tells the size of y'' in the error weights' norm. */
static double first_step_estimate(rk_stepper *r, double t)
{
    double remaining = r->spec.t_end - t;
    if (r->spec.weights(t, r->y, r->w, r->spec.user) || !derivative_at_end(r))
        return 1e-6 * remaining;
    double d0 = wrms(r, r->y), d1 = wrms(r, r->f1);
    double h0 = d0 < 1e-5 || d1 < 1e-5 ? 1e-6 * remaining : 0.01 * d0 / d1;
    h0 = fmin(h0, remaining);
    for (size_t j = 0; j < r->N; j++)
        r->ytry[j] = r->y[j] + h0 * r->f1[j];
    if (gsl_rhs(t + h0, r->ytry, r->yerr, r) != GSL_SUCCESS)
        return h0;
    for (size_t j = 0; j < r->N; j++)
        r->yerr[j] = (r->yerr[j] - r->f1[j]) / h0;
    double d2 = wrms(r, r->yerr), dmax = fmax(d1, d2);
    double h1 = dmax <= 1e-15 ? fmax(1e-6, 1e-3 * h0) : pow(0.01 / dmax, 1.0 / (ORDER + 1));
    return fmin(fmin(100.0 * h0, h1), remaining);
}

/* The estimate is a guess: the error test corrects it, and the step after it may grow by
 * MAX_GROWTH_FIRST.  It is kept at 100 smallest steps at least: h0 = 0.01 |y|/|y'| of a component
 * at exactly 0 with a tight tolerance (a mass leaving q = 0 far faster than the case's V) fell below
 * the smallest step and failed the run before a step was tried. */
static double first_step(rk_stepper *r, double t)
{
    return fmin(fmax(first_step_estimate(r, t), 100.0 * pl_stepper_min_step(t)), r->spec.t_end - t);
}

static pl_status restart(pl_stepper *s, double t, double h0, pl_error *err)
{
    rk_stepper *r = s->impl;
    s->t = r->t0 = t;
    memcpy(r->y0, r->y, r->N * sizeof *r->y);
    r->have_f0 = r->have_f1 = 0; /* a restart is at a switch of the right-hand side */
    r->dense_t = r->exact_t = NAN;
    r->aimed_at = -1;
    update_live(r);
    clear_found(r);
    if (r->spec.nroots && r->spec.roots(t, r->y, r->g0, r->spec.user))
        return pl_fail(err, PL_ERR_SOLVER, "the root functions failed at t = %.17g (%s)", t, r->spec.context);
    r->h = h0 > 0.0 ? h0 : first_step(r, t);
    return PL_OK;
}

static long steps(pl_stepper *s)
{
    return ((rk_stepper *)s->impl)->steps;
}

static void add_counters(pl_stepper *s, pl_stats *stats)
{
    rk_stepper *r = s->impl;
    stats->steps += r->steps;
    stats->rhs_evals += r->rhs - r->added_rhs;
    stats->error_test_fails += r->fails - r->added_fails;
    r->steps = 0;
    r->added_rhs = r->rhs;
    r->added_fails = r->fails;
}

static void destroy(pl_stepper *s)
{
    rk_stepper *r = s->impl;
    if (r->step)
        gsl_odeiv2_step_free(r->step);
    if (r->hop)
        gsl_odeiv2_step_free(r->hop);
    free(r->block);
    free(r->int_block);
    free(r);
}

pl_status pl_stepper_rk_new(pl_stepper **out, const pl_stepper_spec *spec, pl_error *err)
{
    *out = NULL;
    rk_stepper *r = calloc(1, sizeof *r);
    if (!r)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for a Runge-Kutta stepper");
    size_t N = spec->size, nr = (size_t)spec->nroots;
    r->spec = *spec;
    r->N = N;
    r->base = (pl_stepper){.name = "Runge-Kutta rk8pd", .size = N, .nroots = nr, .step = step, .cut = cut,
                           .dense = dense, .dense_cheap = dense_cheap, .root_info = root_info,
                           .restart = restart, .steps = steps, .add_counters = add_counters, .free = destroy,
                           .impl = r};
    *out = &r->base;
    pl_part parts[] = {{&r->y, N},      {&r->y0, N},    {&r->ytry, N},     {&r->yerr, N},     {&r->ydense, N},
                       {&r->w, N},      {&r->f0, N},    {&r->f1, N},       {&r->g0, nr},      {&r->g1, nr},
                       {&r->groot, nr}, {&r->gdep, nr}, {&r->estimate, nr}, {&r->when, nr},   {&r->g_start, nr},
                       {&r->y_exact, N}, {&r->f_exact, N}};
    pl_int_part int_parts[] = {{&r->found, nr + 1}, {&r->crosses, nr + 1}, {&r->taken, nr + 1},
                               {&r->found_at, nr + 1}};
    r->block = pl_carve(parts, PL_NPARTS(parts));
    r->int_block = pl_carve_int(int_parts, PL_NPARTS(int_parts));
    r->step = gsl_odeiv2_step_alloc(gsl_odeiv2_step_rk8pd, N);
    r->hop = gsl_odeiv2_step_alloc(gsl_odeiv2_step_rkf45, N);
    if (!r->block || !r->int_block || !r->step || !r->hop)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for a Runge-Kutta stepper of size %zu", N);
    r->sys = (gsl_odeiv2_system){.function = gsl_rhs, .jacobian = NULL, .dimension = N, .params = r};
    memcpy(r->y, spec->y0, N * sizeof *r->y);
    r->base.y = r->y;
    return restart(&r->base, 0.0, 0.0, err);
}
