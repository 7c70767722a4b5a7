/* Peer benchmark: penlim's penalized integration against general-purpose integrators a user would
 * otherwise reach for, each given the same penalized ODE and tuned to penlim's accuracy.
 *
 * Peers, written here (not in the library), all integrate the penalized system (1)/(4) of paper 004
 * through the library's vector field and Jacobian (pl_penalized_forces, pl_penalized_jacobian), so
 * that the ODE is the same and an evaluation costs the same for everyone:
 *   - GSL odeiv2 rk8pd, rk4imp and msbdf (analytic Jacobian), a step/control/evolve loop with the
 *     standard control (eps_abs = eps_rel = tol).  After every accepted step the contact mode of
 *     each constraint is checked against the sign of its gap (force on exactly when G <= 0); on a
 *     disagreement the crossing is located by re-integrating from the step start to a trial time
 *     (one step of the same method for rk8pd and rk4imp; a fresh msbdf integration for msbdf, whose
 *     multistep history cannot restart from inside a step) and Illinois on the trial time to
 *     1e-14 t; the run restarts there in the other mode, with a new starting step;
 *   - plain CVODE BDF: rootfinding on the gaps, CVodeReInit at every switch, scalar tolerances
 *     rtol = atol = tol, dense solver with the analytic Jacobian, with and without stability-limit
 *     detection; CVODE's defaults otherwise (its own starting step after each restart).
 * Every right-hand-side call is counted: rejected steps, Newton iterations, the re-integrations of
 * the crossing searches, starting-step estimates.  Steps are the accepted steps of the main
 * integration (not those of msbdf's re-integrations).  Jacobian evaluations are counted apart.
 *
 * Accuracy.  bouncing_ball (g 9.81, h0 1, e 0.9, t in [0, 10]) is measured against the exact
 * solution of its penalized ODE at the same mu, event by event in closed form: flight parabolas, and
 * in contact the damped oscillator with constant forcing, whose exit is the next root of q located
 * to 1e-15 relative (GSL Brent, then Newton on the closed form); a contact that never returns to
 * q = 0 is the capture.  err_t is the largest error of the entry times of every contact up to and
 * including the capture, err_v of the exit velocities of every impact before it.  The wedge
 * (m = -0.5, q0 = (1, 1.01), e = 0) and the vibrating table are measured against penlim at rtol 1e-10
 * (its distance to rtol 1e-11 is printed): the wedge by its impact entry times and final velocity
 * (its exits are asymptotic returns to G = 0 for e = 0), the table by entry and exit times and exit
 * velocities.
 *
 * Tuning.  penlim at rtol 1e-8 sets the target at each mu: its two errors (floored at the
 * resolution of the comparison, see make_target).  Each peer's tol is scanned on 10^(-4 - k/2),
 * k = 0..18, loose to tight; a setting qualifies when the run completes, finds every contact of the
 * reference (same contacts of the same constraints, no spurious or missing exit) and both errors
 * are at or below the target.  The cheapest qualifying setting (fewest right-hand-side evaluations,
 * then wall time) is kept; the scan stops two points after the first qualifying one or when a run
 * exceeds its work budget.  On the ball, a peer that qualifies nowhere is scanned again without the
 * last rebound before the capture (which may then merge into it), against penlim's errors over the
 * same contacts, and marked '*'.
 *
 * Wall time.  penlim and the tuned peers then run in 5 interleaved rounds (penlim, peer 1, ...,
 * penlim, ...); the fastest run of each gives the ratio peer/penlim.
 *
 * Usage: bench_peers [CASE [MU]] runs one case (bouncing_ball, wedge, vibrating_table), or one mu
 * of it; with PEERS_VERBOSE set in the environment every scanned setting is listed on stderr. */
#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <float.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>
#include <time.h>

#include "cases/cases.h"
#include "solve.h"
#include "solvers/penalty/penalized.h"

/* ---- small utilities --------------------------------------------------------------------------- */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One contact episode of one constraint, as every method reports it. */
typedef struct {
    size_t con;
    double t_in, t_out; /* t_out NAN while in contact at the end */
    double gdot_in, gdot_out;
} contact;

typedef struct {
    contact *c;
    size_t n, cap;
} contact_list;

static int contacts_open(contact_list *l, size_t con, double t, double gdot)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        contact *c = realloc(l->c, cap * sizeof *c);
        if (!c)
            return -1;
        l->c = c;
        l->cap = cap;
    }
    l->c[l->n++] = (contact){con, t, NAN, gdot, NAN};
    return 0;
}

/* Close the open contact of constraint con (the last one of that constraint). */
static void contacts_close(contact_list *l, size_t con, double t, double gdot)
{
    for (size_t k = l->n; k-- > 0;)
        if (l->c[k].con == con) {
            if (isnan(l->c[k].t_out)) {
                l->c[k].t_out = t;
                l->c[k].gdot_out = gdot;
            }
            return;
        }
}

static void contacts_free(contact_list *l)
{
    free(l->c);
    *l = (contact_list){0};
}

/* What one run of one method produced. */
typedef struct {
    int ok; /* reached t_end */
    char why[768];
    long steps, rhs, jac;
    long rhs_search; /* of rhs: in crossing searches (GSL peers) */
    double wall;
    contact_list contacts;
    double *v_final; /* n */
} run_result;

/* An empty result with room for the final velocity of n dofs; non-zero (with the reason) if out of memory. */
static int result_init(run_result *r, size_t n)
{
    memset(r, 0, sizeof *r);
    r->v_final = calloc(n, sizeof *r->v_final);
    if (!r->v_final)
        snprintf(r->why, sizeof r->why, "out of memory");
    return !r->v_final;
}

static void result_free(run_result *r)
{
    contacts_free(&r->contacts);
    free(r->v_final);
    r->v_final = NULL;
}

/* ---- the problems and how a run is measured ------------------------------------------------------- */

typedef enum {
    CMP_BALL,  /* t_in of every contact, gdot_out of every ended contact (exact reference) */
    CMP_TABLE, /* t_in and t_out of every contact, gdot_out of every ended contact */
    CMP_WEDGE  /* t_in of the impacts, the final velocity (exits are asymptotic for e = 0) */
} compare_kind;

typedef struct {
    const char *title;
    pl_model model;
    double mu, t_end;
    compare_kind kind;
    double min_entry_speed; /* contacts entered slower (not at t = 0) are not counted (wedge) */
    contact_list ref;       /* the reference's contacts */
    double *ref_v_final;    /* n */
    double ref_dist_t, ref_dist_v; /* the reference's own uncertainty (penlim references) */
    char ref_note[400];            /* how the reference was obtained */
    int verbose;                   /* every scanned setting on stderr */
} problem;

typedef struct {
    size_t found, expected; /* counted contacts of the run and of the reference */
    int complete;           /* ran to the end and found every contact, no spurious exit */
    double err_t, err_v;
    size_t first_diff;      /* first contact (1-based) where run and reference disagree; 0: none */
    double t_diff;          /* its time (entry, or exit when only the exit differs) */
} accuracy;

static int counted(const problem *pb, const contact *c)
{
    return c->t_in == 0.0 || fabs(c->gdot_in) >= pb->min_entry_speed;
}

/* The counted contacts of a list, in order (at most cap). */
static size_t counted_contacts(const problem *pb, const contact_list *l, const contact **out, size_t cap)
{
    size_t k = 0;
    for (size_t j = 0; j < l->n; j++)
        if (counted(pb, &l->c[j])) {
            if (k < cap)
                out[k] = &l->c[j];
            k++;
        }
    return k;
}

/* Errors of run r against the reference, over its counted contacts in order.  With relaxed (the
 * ball only), the last rebound before the capture may merge into it: the run may find one contact
 * fewer, the entry times are compared up to that rebound's and the exit velocities before it. */
static accuracy measure(const problem *pb, const run_result *r, int relaxed)
{
    accuracy a = {0, 0, 0, 0.0, 0.0, 0, NAN};
    size_t nr = counted_contacts(pb, &pb->ref, NULL, 0), nm = counted_contacts(pb, &r->contacts, NULL, 0);
    const contact **cr = malloc((nr + 1) * sizeof *cr), **cm = malloc((nm + 1) * sizeof *cm);
    if (!cr || !cm) {
        free(cr);
        free(cm);
        a.err_t = a.err_v = INFINITY;
        return a;
    }
    counted_contacts(pb, &pb->ref, cr, nr);
    counted_contacts(pb, &r->contacts, cm, nm);
    a.found = nm;
    a.expected = nr;
    relaxed = relaxed && nr >= 2;
    size_t compared = relaxed ? nr - 1 : nr; /* contacts whose entry is compared */
    int complete = r->ok && (nm == nr || (relaxed && nm == nr - 1));
    size_t n = nm < compared ? nm : compared;
    for (size_t k = 0; k < n; k++) {
        const contact *x = cm[k], *y = cr[k];
        /* Where the runs part: another constraint, or an entry that is further, both in time and in
         * entry speed, from this contact of the reference than a neighbouring contact is (a missed
         * contact then a spurious one keeps the count).  Near an accumulation of impacts the
         * accumulated time error alone can exceed the last flights, hence both. */
        double near_t = INFINITY, near_v = INFINITY;
        if (k + 1 < nr) {
            near_t = fmin(near_t, cr[k + 1]->t_in - y->t_in);
            near_v = fmin(near_v, fabs(cr[k + 1]->gdot_in - y->gdot_in));
        }
        if (k > 0) {
            near_t = fmin(near_t, y->t_in - cr[k - 1]->t_in);
            near_v = fmin(near_v, fabs(y->gdot_in - cr[k - 1]->gdot_in));
        }
        int parted = fabs(x->t_in - y->t_in) > near_t && fabs(x->gdot_in - y->gdot_in) > near_v;
        if (!a.first_diff && (x->con != y->con || parted)) {
            a.first_diff = k + 1;
            a.t_diff = x->t_in;
        }
        if (x->con != y->con)
            complete = 0;
        a.err_t = fmax(a.err_t, fabs(x->t_in - y->t_in));
        if (pb->kind == CMP_WEDGE || (relaxed && k + 1 == compared))
            continue;
        int ended_x = !isnan(x->t_out), ended_y = !isnan(y->t_out);
        if (ended_y && ended_x) {
            a.err_v = fmax(a.err_v, fabs(x->gdot_out - y->gdot_out));
            if (pb->kind == CMP_TABLE)
                a.err_t = fmax(a.err_t, fabs(x->t_out - y->t_out));
        } else if (ended_x != ended_y) {
            complete = 0; /* a spurious exit (from the capture), or a missed one */
            if (!a.first_diff) {
                a.first_diff = k + 1;
                a.t_diff = ended_x ? x->t_out : y->t_out;
            }
        }
    }
    /* Whatever was compared, the run must end as the reference does (no exit from the capture). */
    if (nm > 0 && nr > 0 && pb->kind != CMP_WEDGE && isnan(cr[nr - 1]->t_out) != isnan(cm[nm - 1]->t_out))
        complete = 0;
    if (!a.first_diff && nm != nr && !(relaxed && nm + 1 == nr)) {
        a.first_diff = n + 1;
        a.t_diff = nm > n ? cm[n]->t_in : cr[n]->t_in;
    }
    /* The same number of contacts is not enough: a missed contact and a spurious one elsewhere. */
    if (a.first_diff)
        complete = 0;
    if (pb->kind == CMP_WEDGE)
        for (size_t j = 0; j < pb->model.n; j++)
            a.err_v = fmax(a.err_v, fabs(r->v_final[j] - pb->ref_v_final[j]));
    if (!r->ok)
        a.err_t = a.err_v = INFINITY;
    a.complete = complete;
    free(cr);
    free(cm);
    return a;
}

/* ---- penlim ------------------------------------------------------------------------------------ */

static void run_penlim(const problem *pb, double rtol, run_result *r)
{
    if (result_init(r, pb->model.n))
        return;
    pl_solution sol;
    pl_error err;
    double t0 = now_seconds();
    pl_status s = solve_penalty(&pb->model, pb->mu, rtol, pb->t_end, 0, &sol, &err);
    r->wall = now_seconds() - t0;
    r->ok = s == PL_OK;
    if (!r->ok)
        snprintf(r->why, sizeof r->why, "%s", err.message);
    r->steps = sol.stats.steps;
    r->rhs = sol.stats.rhs_evals;
    r->jac = sol.stats.jac_evals;
    for (size_t k = 0; k < sol.nepisodes; k++) {
        const pl_episode *e = &sol.episodes[k];
        if (contacts_open(&r->contacts, e->constraint, e->t_in, e->gdot_in)) {
            r->ok = 0;
            snprintf(r->why, sizeof r->why, "out of memory");
            break;
        }
        if (!isnan(e->t_out))
            contacts_close(&r->contacts, e->constraint, e->t_out, e->gdot_out);
    }
    if (sol.v_final)
        memcpy(r->v_final, sol.v_final, pb->model.n * sizeof *r->v_final);
    pl_solution_free(&sol);
}

/* ---- the penalized vector field, as the peers see it --------------------------------------------- */

typedef struct {
    const pl_model *model;
    pl_penalized field; /* vector field and contact modes (field.active) */
    size_t n, m, N;
    long rhs, jac; /* evaluations so far */
    long budget;   /* right-hand-side evaluations allowed; beyond, the run is abandoned */
    /* work arrays of the run, allocated once (field_init), each for one function */
    pl_forces fo;                     /* field_rhs */
    pl_contact *c;                    /* field_gaps */
    double *fp;                       /* n: field_gaps */
    double *g, *gdot, *g_step, *g_search; /* m: field_init, switch_modes and CVODE; the GSL step; crossings */
    double *f0, *f1, *y1;             /* N: starting_step */
    double *y0, *yerr, *yb, *yx, *y, *y_cross, *yc; /* N: reintegration, run_gsl */
    double *jr;                       /* N x N: cv_jac */
    int *found;                       /* m: CVODE's roots */
    double *block;
} peer_field;

static void field_free(peer_field *f)
{
    pl_penalized_free(&f->field);
    pl_forces_free(&f->fo);
    free(f->c);
    free(f->found);
    free(f->block);
}

/* 0; 1 (recoverable: the integrator may retry a smaller step) on a non-finite result; -1 past the
 * budget or on a singular mass matrix. */
static int field_rhs(peer_field *f, double t, const double *y, double *dy)
{
    if (++f->rhs > f->budget)
        return -1;
    pl_forces *fo = &f->fo;
    if (pl_penalized_forces(&f->field, t, y, y + f->n, fo))
        return -1;
    int finite = 1;
    for (size_t j = 0; j < f->n; j++) {
        dy[j] = fo->fp[j];
        dy[f->n + j] = fo->a[j] + fo->ac[j];
        finite = finite && isfinite(dy[j]) && isfinite(dy[f->n + j]);
    }
    return finite ? 0 : 1;
}

static int field_jac(peer_field *f, double t, const double *y, double *J)
{
    f->jac++;
    return pl_penalized_jacobian(&f->field, t, y, y + f->n, J) ? -1 : 0;
}

/* Gap and gap rate of every constraint at (t, y). */
static void field_gaps(const peer_field *f, double t, const double *y, double *g, double *gdot)
{
    pl_model_velocity_map(f->model, t, y, y + f->n, f->fp, NULL, NULL, NULL);
    for (size_t i = 0; i < f->m; i++) {
        pl_model_contact_at(f->model, f->field.work, i, t, y, f->fp, f->c);
        g[i] = f->c->gap.g;
        if (gdot)
            gdot[i] = f->c->gdot;
    }
}

/* The mode agrees with the gap: the force is on exactly when G <= 0 (the convention of penlim and
 * of the closed-form reference). */
static int consistent(int active, double g)
{
    return active ? g <= 0.0 : g > 0.0;
}

/* The field of pb with its work arrays; y: its initial state (f->y).  Non-zero if out of memory (f
 * is freeable either way). */
static int field_init(peer_field *f, const problem *pb, run_result *r)
{
    memset(f, 0, sizeof *f);
    f->model = &pb->model;
    size_t n = f->n = pb->model.n, m = f->m = pb->model.m, N = f->N = 2 * n;
    f->budget = 40000000;
    pl_error err;
    if (pl_penalized_init(&f->field, &pb->model, pb->mu, &err) != PL_OK ||
        pl_forces_init(&f->fo, &pb->model, &err) != PL_OK || !(f->c = pl_contact_new(1, n, 0)) ||
        !(f->block = calloc(n + 4 * m + 10 * N + N * N, sizeof *f->block)) || !(f->found = calloc(m, sizeof *f->found)))
        return -1;
    double *p = f->block;
    f->fp = p, p += n;
    double **con[] = {&f->g, &f->gdot, &f->g_step, &f->g_search};
    for (size_t k = 0; k < 4; k++)
        *con[k] = p, p += m;
    double **st[] = {&f->f0, &f->f1, &f->y1, &f->y0, &f->yerr, &f->yb, &f->yx, &f->y, &f->y_cross, &f->yc};
    for (size_t k = 0; k < 10; k++)
        *st[k] = p, p += N;
    f->jr = p;
    double *y = f->y, *g = f->g, *gdot = f->gdot;
    pl_model_initial_state(&pb->model, y, y + f->n);
    field_gaps(f, 0.0, y, g, gdot);
    for (size_t i = 0; i < f->m; i++) {
        f->field.active[i] = pl_model_initially_active(&pb->model, f->field.work, i, 0.0, y, y + f->n);
        if (f->field.active[i] && contacts_open(&r->contacts, i, 0.0, gdot[i]))
            return -1;
    }
    return 0;
}

/* Switch every constraint whose mode disagrees with its gap at (t, y), recording the episodes.
 * Returns the number switched (-1 out of memory). */
static int switch_modes(peer_field *f, double t, const double *y, run_result *r)
{
    double *g = f->g, *gdot = f->gdot;
    field_gaps(f, t, y, g, gdot);
    int changed = 0;
    for (size_t i = 0; i < f->m; i++) {
        if (consistent(f->field.active[i], g[i]))
            continue;
        f->field.active[i] = !f->field.active[i];
        changed++;
        if (f->field.active[i]) {
            if (contacts_open(&r->contacts, i, t, gdot[i]))
                return -1;
        } else {
            contacts_close(&r->contacts, i, t, gdot[i]);
        }
    }
    return changed;
}

/* Starting step after a (re)start (Hairer, Norsett and Wanner, Solving ODEs I, II.4), in the norm
 * of the scalar tolerance: the GSL steppers have no estimate of their own, and after a switch the
 * time scale changes by up to sqrt(mu). */
static double starting_step(peer_field *f, double t, const double *y, double t_end, double tol, unsigned order)
{
    double *f0 = f->f0, *f1 = f->f1, *y1 = f->y1;
    size_t N = f->N;
    double d0 = 0.0, d1 = 0.0, d2 = 0.0, remaining = t_end - t;
    if (field_rhs(f, t, y, f0))
        return 1e-6 * remaining; /* the integrator's own failure follows */
    for (size_t j = 0; j < N; j++) {
        double sc = tol + tol * fabs(y[j]);
        d0 += (y[j] / sc) * (y[j] / sc);
        d1 += (f0[j] / sc) * (f0[j] / sc);
    }
    d0 = sqrt(d0 / (double)N);
    d1 = sqrt(d1 / (double)N);
    double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 * remaining : 0.01 * d0 / d1;
    h0 = fmin(h0, remaining);
    for (size_t j = 0; j < N; j++)
        y1[j] = y[j] + h0 * f0[j];
    if (field_rhs(f, t + h0, y1, f1))
        return h0;
    for (size_t j = 0; j < N; j++) {
        double sc = tol + tol * fabs(y[j]);
        d2 += ((f1[j] - f0[j]) / sc) * ((f1[j] - f0[j]) / sc);
    }
    d2 = sqrt(d2 / (double)N) / h0;
    double dm = fmax(d1, d2);
    double h1 = dm <= 1e-15 ? fmax(1e-6 * remaining, 1e-3 * h0) : pow(0.01 / dm, 1.0 / (order + 1.0));
    return fmin(fmin(100.0 * h0, h1), remaining);
}

/* ---- GSL peers ------------------------------------------------------------------------------------ */

typedef enum { PEER_GSL, PEER_CVODE } peer_kind;

typedef struct {
    const char *name;
    peer_kind kind;
    const gsl_odeiv2_step_type *const *gsl_type; /* GSL */
    unsigned order;                              /* for the starting step (GSL) */
    int one_step;     /* GSL: crossings by one step of the method from the step start */
    int stab_lim_det; /* CVODE */
} peer;

static int gsl_rhs(double t, const double y[], double dydt[], void *params)
{
    /* GSL_EBADFUNC stops evolve at once; other codes make it retry a smaller step. */
    int s = field_rhs(params, t, y, dydt);
    return s < 0 ? GSL_EBADFUNC : s > 0 ? GSL_FAILURE : GSL_SUCCESS;
}

static int gsl_jac(double t, const double y[], double *dfdy, double dfdt[], void *params)
{
    peer_field *f = params;
    /* rk4imp and msbdf use only dfdy (their Newton matrices); dfdt is never read. */
    for (size_t j = 0; j < f->N; j++)
        dfdt[j] = 0.0;
    return field_jac(f, t, y, dfdy) ? GSL_EBADFUNC : GSL_SUCCESS;
}

/* Re-integration from the start of the step that crossed, with the modes of that step. */
typedef struct {
    const peer *p;
    peer_field *f;
    gsl_odeiv2_system *sys;
    gsl_odeiv2_driver *main;  /* its stepper takes the single steps (rk8pd, rk4imp) */
    gsl_odeiv2_driver *again; /* a second msbdf for fresh integrations */
    double t0, *y0;           /* N */
    double h_start; /* msbdf: its first step */
} reintegration;

/* The state at time tau in (t0, t1]; 0 or a GSL error code. */
static int reintegrate(reintegration *ri, double tau, double *y)
{
    size_t N = ri->f->N;
    memcpy(y, ri->y0, N * sizeof *y);
    if (ri->p->one_step)
        return gsl_odeiv2_step_apply(ri->main->s, ri->t0, tau - ri->t0, y, ri->f->yerr, NULL, NULL, ri->sys);
    int s = gsl_odeiv2_driver_reset_hstart(ri->again, fmin(ri->h_start, tau - ri->t0));
    if (s != GSL_SUCCESS)
        return s;
    double t = ri->t0;
    return gsl_odeiv2_driver_apply(ri->again, &t, tau, y);
}

/* The crossing of constraint i in (t0, t1]: the gap has the sign of the mode at t0 and not at t1.
 * Illinois (regula falsi with the retained end's value halved when the same end is kept twice) on
 * the trial time, each trial a re-integration, until the bracket is below 1e-14 t.  Returns the
 * end of the final bracket past the crossing (where the gap has the new mode's sign), so that the
 * restart is consistent with its mode. */
static int locate_crossing(reintegration *ri, size_t i, double t1, const double *y1, double *t_cross, double *y_cross)
{
    peer_field *f = ri->f;
    size_t N = f->N;
    int active = f->field.active[i];
    double *g = f->g_search, *yb = f->yb, *yx = f->yx;
    double a = ri->t0, b = t1;
    field_gaps(f, a, ri->y0, g, NULL);
    double fa = g[i];
    field_gaps(f, b, y1, g, NULL);
    double fb = g[i];
    memcpy(yb, y1, N * sizeof *yb);
    int kept = 0; /* -1: a was replaced last, +1: b */
    for (int it = 0; b - a > 1e-14 * fabs(b) && it < 200; it++) {
        double x = it < 100 && fa != fb ? (fa * b - fb * a) / (fa - fb) : 0.5 * (a + b);
        if (!(x > a && x < b))
            x = 0.5 * (a + b);
        int s = reintegrate(ri, x, yx);
        if (s != GSL_SUCCESS)
            return s;
        field_gaps(f, x, yx, g, NULL);
        if (consistent(active, g[i])) {
            a = x;
            fa = g[i];
            if (kept == -1)
                fb *= 0.5;
            kept = -1;
        } else {
            b = x;
            fb = g[i];
            memcpy(yb, yx, N * sizeof *yb);
            if (kept == 1)
                fa *= 0.5;
            kept = 1;
        }
    }
    *t_cross = b;
    memcpy(y_cross, yb, N * sizeof *yb);
    return GSL_SUCCESS;
}

static void run_gsl(const peer *p, const problem *pb, double tol, run_result *r)
{
    if (result_init(r, pb->model.n))
        return;
    double wall0 = now_seconds();
    peer_field f;
    double *y = NULL, *g = NULL, t = 0.0, t_end = pb->t_end;
    gsl_odeiv2_system sys = {gsl_rhs, gsl_jac, 0, &f};
    gsl_odeiv2_driver *d = NULL, *again = NULL;
    if (field_init(&f, pb, r)) {
        snprintf(r->why, sizeof r->why, "out of memory");
        goto done;
    }
    y = f.y, g = f.g_step;
    size_t N = sys.dimension = f.N;
    double h = starting_step(&f, t, y, t_end, tol, p->order);
    d = gsl_odeiv2_driver_alloc_y_new(&sys, *p->gsl_type, h, tol, tol);
    if (!p->one_step)
        again = gsl_odeiv2_driver_alloc_y_new(&sys, *p->gsl_type, h, tol, tol);
    if (!d || (!p->one_step && !again)) {
        snprintf(r->why, sizeof r->why, "GSL driver allocation failed");
        goto done;
    }
    reintegration ri = {.p = p, .f = &f, .sys = &sys, .main = d, .again = again, .y0 = f.y0};
    while (t < t_end) {
        ri.t0 = t;
        memcpy(ri.y0, y, N * sizeof *y);
        int s = gsl_odeiv2_evolve_apply(d->e, d->c, d->s, &sys, &t, t_end, &h, y);
        if (s != GSL_SUCCESS) {
            snprintf(r->why, sizeof r->why, "%s at t = %.17g: %s", p->name, t,
                     f.rhs > f.budget ? "work budget exceeded" : gsl_strerror(s));
            goto done;
        }
        if (++r->steps > 20000000) {
            snprintf(r->why, sizeof r->why, "%s: step budget exceeded at t = %.17g", p->name, t);
            goto done;
        }
        /* The sign check: the earliest crossing among the constraints whose mode disagrees. */
        field_gaps(&f, t, y, g, NULL);
        double t_cross = INFINITY, *y_cross = f.y_cross, *yc = f.yc;
        for (size_t i = 0; i < f.m; i++) {
            if (consistent(f.field.active[i], g[i]))
                continue;
            if (!p->one_step)
                ri.h_start = starting_step(&f, ri.t0, ri.y0, t_end, tol, 1);
            double tc;
            long before = f.rhs;
            s = locate_crossing(&ri, i, t, y, &tc, yc);
            r->rhs_search += f.rhs - before;
            if (s != GSL_SUCCESS) {
                snprintf(r->why, sizeof r->why, "%s: crossing search failed at t = %.17g: %s", p->name, t,
                         f.rhs > f.budget ? "work budget exceeded" : gsl_strerror(s));
                goto done;
            }
            if (tc < t_cross) {
                t_cross = tc;
                memcpy(y_cross, yc, N * sizeof *yc);
            }
        }
        if (isinf(t_cross))
            continue;
        t = t_cross;
        memcpy(y, y_cross, N * sizeof *y);
        if (switch_modes(&f, t, y, r) < 0) {
            snprintf(r->why, sizeof r->why, "out of memory");
            goto done;
        }
        /* A new smooth problem: the multistep history (msbdf) and the step size start afresh. */
        h = starting_step(&f, t, y, t_end, tol, p->one_step ? p->order : 1);
        if ((s = gsl_odeiv2_driver_reset_hstart(d, h)) != GSL_SUCCESS) {
            snprintf(r->why, sizeof r->why, "gsl_odeiv2_driver_reset_hstart: %s", gsl_strerror(s));
            goto done;
        }
    }
    r->ok = 1;
done:
    if (y)
        memcpy(r->v_final, y + f.n, f.n * sizeof *y);
    r->rhs = f.rhs;
    r->jac = f.jac;
    if (again)
        gsl_odeiv2_driver_free(again);
    if (d)
        gsl_odeiv2_driver_free(d);
    r->wall = now_seconds() - wall0;
    field_free(&f);
}

/* ---- CVODE peers ----------------------------------------------------------------------------------- */

static int cv_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user)
{
    return field_rhs(user, t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot));
}

static int cv_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *user, N_Vector t1, N_Vector t2,
                  N_Vector t3)
{
    (void)fy, (void)t1, (void)t2, (void)t3;
    peer_field *f = user;
    double *Jr = f->jr;
    if (field_jac(f, t, N_VGetArrayPointer(y), Jr))
        return -1;
    for (size_t r = 0; r < f->N; r++)
        for (size_t c = 0; c < f->N; c++)
            SM_ELEMENT_D(J, r, c) = Jr[r * f->N + c];
    return 0;
}

static int cv_roots(sunrealtype t, N_Vector y, sunrealtype *gout, void *user)
{
    field_gaps(user, t, N_VGetArrayPointer(y), gout, NULL);
    return 0;
}

/* CVODE's messages are kept for the failure report instead of printed. */
static void cv_quiet(int code, const char *module, const char *function, char *msg, void *user)
{
    (void)code;
    snprintf(user, 200, "%s/%s: %s", module, function, msg);
}

#define CV_TRY(call, what)                                                                                  \
    do {                                                                                                    \
        int flag_ = (call);                                                                                 \
        if (flag_ < 0) {                                                                                    \
            snprintf(r->why, sizeof r->why, "%s failed (%d) at t = %.17g: %s", what, flag_, t,              \
                     f.rhs > f.budget ? "work budget exceeded" : message);                                \
            goto done;                                                                                      \
        }                                                                                                   \
    } while (0)

static void add_steps(void *mem, run_result *r)
{
    long nst = 0;
    if (CVodeGetNumSteps(mem, &nst) == CV_SUCCESS)
        r->steps += nst;
}

static void run_cvode(const peer *p, const problem *pb, double tol, run_result *r)
{
    if (result_init(r, pb->model.n))
        return;
    double wall0 = now_seconds();
    peer_field f;
    char message[200] = "";
    double t = 0.0;
    SUNContext sun = NULL;
    N_Vector yv = NULL;
    SUNMatrix J = NULL;
    SUNLinearSolver LS = NULL;
    void *mem = NULL;
    double *y0 = NULL, *y = NULL;
    if (field_init(&f, pb, r)) {
        snprintf(r->why, sizeof r->why, "out of memory");
        goto done;
    }
    y0 = f.y;
    CV_TRY(SUNContext_Create(NULL, &sun), "SUNContext_Create");
    yv = N_VNew_Serial((sunindextype)f.N, sun);
    J = SUNDenseMatrix((sunindextype)f.N, (sunindextype)f.N, sun);
    LS = yv && J ? SUNLinSol_Dense(yv, J, sun) : NULL;
    mem = CVodeCreate(CV_BDF, sun);
    if (!yv || !J || !LS || !mem) {
        snprintf(r->why, sizeof r->why, "CVODE allocation failed");
        goto done;
    }
    y = N_VGetArrayPointer(yv);
    memcpy(y, y0, f.N * sizeof *y);
    CV_TRY(CVodeSetErrHandlerFn(mem, cv_quiet, message), "CVodeSetErrHandlerFn");
    CV_TRY(CVodeInit(mem, cv_rhs, 0.0, yv), "CVodeInit");
    CV_TRY(CVodeSetUserData(mem, &f), "CVodeSetUserData");
    CV_TRY(CVodeSStolerances(mem, tol, tol), "CVodeSStolerances");
    CV_TRY(CVodeSetLinearSolver(mem, LS, J), "CVodeSetLinearSolver");
    CV_TRY(CVodeSetJacFn(mem, cv_jac), "CVodeSetJacFn");
    CV_TRY(CVodeRootInit(mem, (int)f.m, cv_roots), "CVodeRootInit");
    /* A gap that is exactly 0 right after a restart is not a root: no warning for that. */
    CV_TRY(CVodeSetNoInactiveRootWarn(mem), "CVodeSetNoInactiveRootWarn");
    CV_TRY(CVodeSetMaxNumSteps(mem, 20000000), "CVodeSetMaxNumSteps"); /* default 500 per call */
    CV_TRY(CVodeSetStopTime(mem, pb->t_end), "CVodeSetStopTime");
    if (p->stab_lim_det)
        CV_TRY(CVodeSetStabLimDet(mem, SUNTRUE), "CVodeSetStabLimDet");
    while (t < pb->t_end) {
        int flag = CVode(mem, pb->t_end, yv, &t, CV_NORMAL);
        CV_TRY(flag, "CVode");
        if (flag != CV_ROOT_RETURN)
            continue; /* CV_TSTOP_RETURN at t_end */
        int *found = f.found;
        CV_TRY(CVodeGetRootInfo(mem, found), "CVodeGetRootInfo");
        /* CVODE reports the direction of each crossing; the state it returns may have the gap at
         * exactly 0, so the direction, not the sign there, sets the mode.  A sign change whose
         * direction disagrees with the gap rate is round-off at a tangency, not a switch.  A
         * restart follows in any case, or CVODE would stop on the same root again. */
        double *g = f.g, *gdot = f.gdot;
        field_gaps(&f, t, y, g, gdot);
        for (size_t i = 0; i < f.m; i++) {
            int entry = found[i] < 0 && gdot[i] < 0.0, exit = found[i] > 0 && gdot[i] > 0.0;
            if ((entry && !f.field.active[i]) || (exit && f.field.active[i])) {
                f.field.active[i] = entry;
                int fail = entry ? contacts_open(&r->contacts, i, t, gdot[i]) : 0;
                if (exit)
                    contacts_close(&r->contacts, i, t, gdot[i]);
                if (fail) {
                    snprintf(r->why, sizeof r->why, "out of memory");
                    goto done;
                }
            }
        }
        add_steps(mem, r);
        CV_TRY(CVodeReInit(mem, t, yv), "CVodeReInit");
    }
    r->ok = 1;
done:
    if (mem)
        add_steps(mem, r);
    if (y || y0)
        memcpy(r->v_final, (y ? y : y0) + f.n, f.n * sizeof *r->v_final);
    r->rhs = f.rhs;
    r->jac = f.jac;
    field_free(&f);
    if (mem)
        CVodeFree(&mem);
    if (LS)
        SUNLinSolFree(LS);
    if (J)
        SUNMatDestroy(J);
    if (yv)
        N_VDestroy(yv);
    if (sun)
        SUNContext_Free(&sun);
    r->wall = now_seconds() - wall0;
}

static void run_peer(const peer *p, const problem *pb, double tol, run_result *r)
{
    if (p->kind == PEER_GSL)
        run_gsl(p, pb, tol, r);
    else
        run_cvode(p, pb, tol, r);
}

/* ---- the exact reference of the bouncing ball --------------------------------------------------------- */

/* In contact, with s the time since entry: q'' + 2 xi w q' + w^2 q = -g, q(0) = 0, q'(0) = v_in.
 * Underdamped: q(s) = exp(-a s) (A cos(wd s) + B sin(wd s)) - qe, a = xi w, wd = w sqrt(1 - xi^2),
 * qe = g/w^2 (the resting penetration), A = qe, B = (v_in + a qe)/wd. */
typedef struct {
    double a, wd, A, B, qe;
} oscillator;

static double osc_q(double s, void *p)
{
    const oscillator *o = p;
    return exp(-o->a * s) * (o->A * cos(o->wd * s) + o->B * sin(o->wd * s)) - o->qe;
}

static double osc_v(const oscillator *o, double s)
{
    double c = cos(o->wd * s), sn = sin(o->wd * s);
    return exp(-o->a * s) * ((o->wd * o->B - o->a * o->A) * c - (o->a * o->B + o->wd * o->A) * sn);
}

/* The root of q in [lo, hi] (q(lo) < 0 < q(hi)) to 1e-15 relative: GSL Brent, then Newton on the
 * closed form to the last ulps. */
static double osc_exit(oscillator *o, double lo, double hi)
{
    gsl_function F = {osc_q, o};
    gsl_root_fsolver *sv = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    if (!sv || gsl_root_fsolver_set(sv, &F, lo, hi) != GSL_SUCCESS) {
        if (sv)
            gsl_root_fsolver_free(sv);
        return NAN;
    }
    double s = NAN;
    for (int it = 0; it < 200; it++) {
        if (gsl_root_fsolver_iterate(sv) != GSL_SUCCESS)
            break;
        s = gsl_root_fsolver_root(sv);
        if (gsl_root_test_interval(gsl_root_fsolver_x_lower(sv), gsl_root_fsolver_x_upper(sv), 0.0, 1e-15) ==
            GSL_SUCCESS)
            break;
    }
    gsl_root_fsolver_free(sv);
    for (int it = 0; it < 2 && isfinite(s); it++) {
        double v = osc_v(o, s);
        if (v > 0.0)
            s -= osc_q(s, o) / v;
    }
    return s;
}

/* Flights and contacts to t_end or to the capture.  Returns 0, or -1 (out of memory or a law that
 * is not underdamped). */
static int ball_reference(problem *pb)
{
    const pl_model *m = &pb->model;
    double g = pl_model_param(m, "g"), q = pl_model_param(m, "h0"), v = pl_model_param(m, "v0");
    double k = m->law[0].k, xi = m->law[0].xi, w = sqrt(k * pb->mu);
    if (!(xi < 1.0) || !(q > 0.0) || !(g > 0.0))
        return -1;
    oscillator o = {xi * w, w * sqrt(1.0 - xi * xi), 0.0, 0.0, g / (w * w)};
    double t = 0.0;
    size_t impacts = 0;
    for (;;) {
        /* Flight from (t, q, v): q + v s - g s^2/2 = 0; from q = 0 exactly s = 2 v/g. */
        double speed = sqrt(v * v + 2.0 * g * q);
        double t_in = t + (v + speed) / g;
        if (t_in >= pb->t_end) {
            snprintf(pb->ref_note, sizeof pb->ref_note, "%zu impacts, no capture before t = %g", impacts, pb->t_end);
            break;
        }
        if (contacts_open(&pb->ref, 0, t_in, -speed))
            return -1;
        o.A = o.qe;
        o.B = (-speed + o.a * o.qe) / o.wd;
        /* q' = exp(-a s)(P cos + Q sin): its first zero (the deepest point) and the next (the top). */
        double P = o.wd * o.B - o.a * o.A, Q = -(o.a * o.B + o.wd * o.A);
        double th = fmod(atan2(-P, Q) + 2.0 * M_PI, M_PI);
        if (th <= 0.0)
            th = M_PI;
        double s_min = th / o.wd, s_top = (th + M_PI) / o.wd;
        if (osc_q(s_top, &o) <= 0.0) {
            snprintf(pb->ref_note, sizeof pb->ref_note, "%zu impacts, capture at t = %.9f", impacts, t_in);
            break;
        }
        double s_out = osc_exit(&o, s_min, s_top);
        if (isnan(s_out) || t_in + s_out > pb->t_end) {
            snprintf(pb->ref_note, sizeof pb->ref_note, "%zu impacts, in contact at t = %g", impacts, pb->t_end);
            break;
        }
        v = osc_v(&o, s_out);
        t = t_in + s_out;
        q = 0.0;
        contacts_close(&pb->ref, 0, t, v);
        impacts++;
    }
    pb->ref_v_final[0] = NAN;
    return 0;
}

/* ---- reference by penlim at a tight tolerance (wedge, table) ----------------------------------------------- */

/* penlim at rtol 1e-10, accepted when it agrees with rtol 1e-11 on every contact; otherwise (a
 * contact that one of them misses) the next tighter pair, and the note says why. */
static int penlim_reference(problem *pb)
{
    char why[160] = "";
    for (double rtol = 1e-10; rtol >= 1e-12; rtol /= 10.0) {
        run_result r0, r1;
        run_penlim(pb, rtol, &r0);
        run_penlim(pb, rtol / 10.0, &r1);
        int ok = r0.ok && r1.ok;
        if (ok) {
            contacts_free(&pb->ref);
            pb->ref = r0.contacts;
            r0.contacts = (contact_list){0};
            memcpy(pb->ref_v_final, r0.v_final, pb->model.n * sizeof *pb->ref_v_final);
            accuracy a = measure(pb, &r1, 0);
            pb->ref_dist_t = a.err_t;
            pb->ref_dist_v = a.err_v;
            if (a.complete && !a.first_diff) {
                snprintf(pb->ref_note, sizeof pb->ref_note,
                         "penlim at rtol %.0e, %zu contacts; its distance to rtol %.0e: t %.1e, v %.1e%s", rtol,
                         a.expected, rtol / 10.0, a.err_t, a.err_v, why);
                result_free(&r0);
                result_free(&r1);
                return 0;
            }
            if (!why[0])
                snprintf(why, sizeof why, " (rtol 1e-10 and 1e-11 disagree from contact #%zu, t = %.4f)",
                         a.first_diff ? a.first_diff : a.expected, a.t_diff);
        }
        result_free(&r0);
        result_free(&r1);
        if (!ok)
            break;
    }
    contacts_free(&pb->ref);
    return -1;
}

/* ---- tuning, timing, the table -------------------------------------------------------------------------------- */

#define NTOL 19 /* 1e-4 ... 1e-13, 2 per decade */
#define ROUNDS 5

static const peer peers[] = {
    {"gsl rk8pd", PEER_GSL, &gsl_odeiv2_step_rk8pd, 8, 1, 0},
    {"gsl rk4imp", PEER_GSL, &gsl_odeiv2_step_rk4imp, 4, 1, 0},
    {"gsl msbdf", PEER_GSL, &gsl_odeiv2_step_msbdf, 1, 0, 0},
    {"cvode", PEER_CVODE, NULL, 0, 0, 0},
    {"cvode stld", PEER_CVODE, NULL, 0, 0, 1},
};
#define NPEERS (sizeof peers / sizeof peers[0])

/* What a peer must reach: penlim's errors at rtol 1e-8, over all contacts or (relaxed) without the
 * last rebound. */
typedef struct {
    double err_t, err_v;
    int relaxed;
} target;

typedef struct {
    int qualified;
    double tol;
    run_result run;
    accuracy acc;
    int have_miss; /* no qualifying setting: the closest run */
    double miss_tol;
    accuracy miss_acc;
    run_result miss_run;
    double wall_best;
} tuning;

static void tuning_free(tuning *tu)
{
    if (tu->qualified)
        result_free(&tu->run);
    if (tu->have_miss)
        result_free(&tu->miss_run);
    tu->qualified = tu->have_miss = 0;
}

static int cheaper(const run_result *a, const run_result *b)
{
    return a->rhs < b->rhs || (a->rhs == b->rhs && a->wall < b->wall);
}

/* How far a run is from the target: complete runs first, then the larger error ratio. */
static int closer(const accuracy *a, const accuracy *b, const target *tg)
{
    if (a->complete != b->complete)
        return a->complete;
    return fmax(a->err_t / tg->err_t, a->err_v / tg->err_v) < fmax(b->err_t / tg->err_t, b->err_v / tg->err_v);
}

static void tune(const peer *p, const problem *pb, const target *tg, tuning *tu)
{
    memset(tu, 0, sizeof *tu);
    int after = -1; /* points scanned since the first qualifying one */
    for (int k = 0; k < NTOL && after < 2; k++) {
        double tol = pow(10.0, -4.0 - 0.5 * k);
        run_result r;
        run_peer(p, pb, tol, &r);
        accuracy a = measure(pb, &r, tg->relaxed);
        int ok = a.complete && a.err_t <= tg->err_t && a.err_v <= tg->err_v;
        if (pb->verbose)
            fprintf(stderr,
                    "    %-11s %7.0e %5zu/%-5zu %9.2e %9.2e %9ld %10ld (search %ld) %7ld %8.3f %s%s diff #%zu t %.6f"
                    " %s\n",
                    p->name, tol, a.found, a.expected, a.err_t, a.err_v, r.steps, r.rhs, r.rhs_search, r.jac, r.wall,
                    ok ? "ok" : "--", tg->relaxed ? " (relaxed)" : "", a.first_diff, a.t_diff, r.ok ? "" : r.why);
        if (after >= 0)
            after++;
        if (ok) {
            if (after < 0)
                after = 0;
            if (!tu->qualified || cheaper(&r, &tu->run)) {
                if (tu->qualified)
                    result_free(&tu->run);
                tu->qualified = 1;
                tu->tol = tol;
                tu->run = r;
                tu->acc = a;
                continue;
            }
        } else if (!tu->qualified && r.ok && (!tu->have_miss || closer(&a, &tu->miss_acc, tg))) {
            if (tu->have_miss)
                result_free(&tu->miss_run);
            tu->have_miss = 1;
            tu->miss_tol = tol;
            tu->miss_acc = a;
            tu->miss_run = r;
            continue;
        }
        int over_budget = !r.ok && strstr(r.why, "budget");
        result_free(&r);
        if (over_budget)
            break; /* tighter settings cost more */
    }
}

static void print_header(void)
{
    printf("  %-12s %7s %11s %9s %9s %9s %10s %7s %8s %8s %9s\n", "method", "tol", "contacts", "err_t", "err_v",
           "steps", "rhs", "jac", "rhs/pl", "wall/pl", "steps/ct");
}

static void print_row(const char *name, double tol, const accuracy *a, const run_result *r, const run_result *pen,
                      double wall_ratio, const char *note)
{
    char wall[32] = "-", ct[32];
    if (isfinite(wall_ratio))
        snprintf(wall, sizeof wall, "%.2f", wall_ratio);
    snprintf(ct, sizeof ct, "%zu/%zu", a->found, a->expected);
    printf("  %-12s %7.0e %11s %9.2e %9.2e %9ld %10ld %7ld %8.2f %8s %9.1f%s\n", name, tol, ct, a->err_t, a->err_v,
           r->steps, r->rhs, r->jac, (double)r->rhs / (double)pen->rhs, wall,
           a->found ? (double)r->steps / (double)a->found : NAN, note);
}

/* penlim's errors, floored where the comparison itself cannot resolve more: the round-off of t and
 * of the velocity scale, and for a penlim reference its own uncertainty and the resolution of its
 * event times (CVODE's rootfinding, ~100 ulps of t and h: 1e-13 t_end). */
static target make_target(const problem *pb, const run_result *pen, int relaxed, int *floored)
{
    accuracy a = measure(pb, pen, relaxed);
    target tg = {a.err_t, a.err_v, relaxed};
    double floor_t = 4.0 * DBL_EPSILON * pb->t_end, floor_v = 4.0 * DBL_EPSILON * pb->model.v_scale;
    if (pb->kind != CMP_BALL) {
        floor_t = fmax(fmax(floor_t, 1e-13 * pb->t_end), 2.0 * pb->ref_dist_t);
        floor_v = fmax(floor_v, 2.0 * pb->ref_dist_v);
    }
    *floored = tg.err_t < floor_t || tg.err_v < floor_v;
    tg.err_t = fmax(tg.err_t, floor_t);
    tg.err_v = fmax(tg.err_v, floor_v);
    return tg;
}

/* Tune every peer, time the tuned ones against penlim in interleaved rounds, print the table. */
static void bench_problem(const problem *pb)
{
    printf("\n%s, mu = %.0e, t in [0, %g]\n", pb->title, pb->mu, pb->t_end);
    printf("  reference: %s\n", pb->ref_note);
    run_result pen;
    run_penlim(pb, 1e-8, &pen);
    accuracy pen_acc = measure(pb, &pen, 0);
    if (!pen.ok || !pen_acc.complete) {
        if (pen.ok)
            printf("  penlim at rtol 1e-8 finds %zu/%zu contacts, differing from the reference from contact #%zu"
                   " (t = %.4f): no target\n",
                   pen_acc.found, pen_acc.expected, pen_acc.first_diff, pen_acc.t_diff);
        else
            printf("  penlim at rtol 1e-8 failed: %s\n", pen.why);
        result_free(&pen);
        return;
    }
    int floored = 0, floored_relaxed = 0;
    target strict = make_target(pb, &pen, 0, &floored);
    tuning tu[NPEERS], tr[NPEERS]; /* strict, and relaxed for the peers that fail the strict rule */
    memset(tr, 0, sizeof tr);
    target relaxed = strict;
    int any_relaxed = 0;
    for (size_t p = 0; p < NPEERS; p++)
        tune(&peers[p], pb, &strict, &tu[p]);
    if (pb->kind == CMP_BALL) {
        relaxed = make_target(pb, &pen, 1, &floored_relaxed);
        for (size_t p = 0; p < NPEERS; p++)
            if (!tu[p].qualified) {
                tune(&peers[p], pb, &relaxed, &tr[p]);
                any_relaxed |= tr[p].qualified;
            }
    }

    /* Interleaved rounds: penlim, then each tuned peer; the fastest of each. */
    double pen_best = INFINITY;
    for (size_t p = 0; p < NPEERS; p++)
        tu[p].wall_best = tr[p].wall_best = INFINITY;
    for (int round = 0; round < ROUNDS; round++) {
        run_result r;
        run_penlim(pb, 1e-8, &r);
        pen_best = fmin(pen_best, r.wall);
        result_free(&r);
        for (size_t p = 0; p < NPEERS; p++) {
            tuning *t = tu[p].qualified ? &tu[p] : tr[p].qualified ? &tr[p] : NULL;
            if (!t)
                continue;
            run_peer(&peers[p], pb, t->tol, &r);
            t->wall_best = fmin(t->wall_best, r.wall);
            result_free(&r);
        }
    }
    printf("  target (penlim's errors at rtol 1e-8): t %.2e, v %.2e%s\n", strict.err_t, strict.err_v,
           floored ? " (floored at the resolution of the reference)" : "");
    print_header();
    print_row("penlim", 1e-8, &pen_acc, &pen, &pen, 1.0, "");
    for (size_t p = 0; p < NPEERS; p++) {
        char name[32];
        if (tu[p].qualified) {
            print_row(peers[p].name, tu[p].tol, &tu[p].acc, &tu[p].run, &pen, tu[p].wall_best / pen_best, "");
        } else if (tr[p].qualified) {
            snprintf(name, sizeof name, "%s *", peers[p].name);
            print_row(name, tr[p].tol, &tr[p].acc, &tr[p].run, &pen, tr[p].wall_best / pen_best, "");
        } else if (tu[p].have_miss) {
            char note[96];
            if (tu[p].miss_acc.complete)
                snprintf(note, sizeof note, "  not reached (closest run)");
            else
                snprintf(note, sizeof note, "  not reached (contacts differ from #%zu, t = %.4f)",
                         tu[p].miss_acc.first_diff, tu[p].miss_acc.t_diff);
            print_row(peers[p].name, tu[p].miss_tol, &tu[p].miss_acc, &tu[p].miss_run, &pen, NAN, note);
        } else {
            printf("  %-12s no setting completed\n", peers[p].name);
        }
        tuning_free(&tu[p]);
        tuning_free(&tr[p]);
    }
    if (any_relaxed) {
        /* The last rebound: the exit velocity of the last impact before the capture. */
        double v_last = NAN;
        for (size_t k = pb->ref.n; k-- > 0;)
            if (!isnan(pb->ref.c[k].t_out)) {
                v_last = pb->ref.c[k].gdot_out;
                break;
            }
        double g = pl_model_param(&pb->model, "g");
        printf("  * no setting finds every contact with that accuracy; tuned without the last rebound (exit\n"
               "    speed %.2e, apex %.1e), which may merge into the capture: penlim's errors there t %.2e, v %.2e%s\n",
               v_last, v_last * v_last / (2.0 * g), relaxed.err_t, relaxed.err_v,
               floored_relaxed ? " (floored)" : "");
    }
    result_free(&pen);
    fflush(stdout);
}

static void problem_free(problem *pb)
{
    contacts_free(&pb->ref);
    free(pb->ref_v_final);
    pb->ref_v_final = NULL;
    pl_model_free(&pb->model);
}

static int make_problem(problem *pb, const char *title, const pl_case *cs, const pl_setting *s, size_t ns,
                        double mu, double t_end, compare_kind kind, int verbose)
{
    memset(pb, 0, sizeof *pb);
    pl_error err;
    if (pl_model_init(&pb->model, cs, s, ns, &err) != PL_OK) {
        printf("%s: %s\n", title, err.message);
        return -1;
    }
    if (!(pb->ref_v_final = calloc(pb->model.n, sizeof *pb->ref_v_final))) {
        printf("%s: out of memory\n", title);
        problem_free(pb);
        return -1;
    }
    pb->title = title;
    pb->mu = mu;
    pb->t_end = t_end;
    pb->kind = kind;
    pb->min_entry_speed = kind == CMP_WEDGE ? 1e-6 * pb->model.v_scale : 0.0;
    pb->verbose = verbose;
    int s_ref = kind == CMP_BALL ? ball_reference(pb) : penlim_reference(pb);
    if (s_ref) {
        printf("%s, mu = %.0e: no reference\n", title, mu);
        problem_free(pb);
        return -1;
    }
    if (kind == CMP_BALL) {
        /* The closed form against penlim at a tight tolerance: both must agree. */
        run_result r;
        run_penlim(pb, 1e-11, &r);
        accuracy a = measure(pb, &r, 0);
        size_t len = strlen(pb->ref_note);
        snprintf(pb->ref_note + len, sizeof pb->ref_note - len,
                 "; penlim at rtol 1e-11 against it: %zu/%zu contacts, t %.1e, v %.1e", a.found, a.expected, a.err_t,
                 a.err_v);
        result_free(&r);
    }
    return 0;
}

/* Optional arguments: a case name (bouncing_ball, wedge, vibrating_table) and a mu, to run one part. */
static int selected(int argc, char **argv, const pl_case *cs, double mu)
{
    if (argc > 1 && strcmp(argv[1], cs->name) != 0)
        return 0;
    return argc <= 2 || atof(argv[2]) == mu;
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    double t0 = now_seconds();
    int verbose = getenv("PEERS_VERBOSE") != NULL;
    printf("Peers of penlim on the same penalized ODE, tuned to penlim's accuracy at rtol 1e-8.\n"
           "tol: the peer's scalar tolerance (rtol = atol), the cheapest of 1e-4 ... 1e-13 (2 per decade) that\n"
           "finds every contact of the reference with both errors at or below penlim's.  contacts: found/\n"
           "reference.  err_t: largest error of the contact entry times (table: and exit times); err_v: of\n"
           "the exit velocities (wedge: of the final velocity).  rhs: every right-hand-side evaluation; jac:\n"
           "Jacobian evaluations.  rhs/pl, wall/pl: ratios to penlim (wall: fastest of %d interleaved\n"
           "rounds).  steps/ct: steps per contact (impacts and the final rest).\n",
           ROUNDS);
    const double ball_mu[] = {1e4, 1e6, 1e8, 1e10, 1e12};
    for (size_t k = 0; k < sizeof ball_mu / sizeof ball_mu[0]; k++) {
        problem pb;
        if (selected(argc, argv, &pl_case_bouncing_ball, ball_mu[k]) &&
            make_problem(&pb, "bouncing_ball, e = 0.9 (exact reference)", &pl_case_bouncing_ball, NULL, 0, ball_mu[k],
                         10.0, CMP_BALL, verbose) == 0) {
            bench_problem(&pb);
            problem_free(&pb);
        }
    }
    const double other_mu[] = {1e6, 1e10};
    pl_setting w[] = {{"m", -0.5}, {"q2", 1.01}, {"e", 0.0}};
    for (size_t k = 0; k < sizeof other_mu / sizeof other_mu[0]; k++) {
        problem pb;
        if (selected(argc, argv, &pl_case_wedge, other_mu[k]) &&
            make_problem(&pb, "wedge, m = -0.5, q0 = (1, 1.01), e = 0", &pl_case_wedge, w, 3, other_mu[k], 3.0,
                         CMP_WEDGE, verbose) == 0) {
            bench_problem(&pb);
            problem_free(&pb);
        }
    }
    for (size_t k = 0; k < sizeof other_mu / sizeof other_mu[0]; k++) {
        problem pb;
        if (selected(argc, argv, &pl_case_vibrating_table, other_mu[k]) &&
            make_problem(&pb, "vibrating_table, e = 0.5 (sustained contact, lift-off)", &pl_case_vibrating_table,
                         NULL, 0, other_mu[k], 3.0, CMP_TABLE, verbose) == 0) {
            bench_problem(&pb);
            problem_free(&pb);
        }
    }
    printf("\ntotal run time %.0f s\n", now_seconds() - t0);
    return 0;
}
