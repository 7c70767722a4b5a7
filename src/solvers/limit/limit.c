#include "solvers/limit/limit.h"

#include <cvode/cvode.h>
#include <float.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/limit/impact.h"
#include "solvers/penalty/penalty.h"
#include "core/rootfind.h"
#include "model/sliding.h"

#define DEFAULT_MAX_EVENTS 1000000L

typedef struct {
    const pl_model *model;
    const pl_limit_opts *opts;
    pl_limit_result *res;
    size_t n, m, N; /* N = 2n + 1: q, v, Gamma */
    int sliding[PL_MAX_CON];
    double V, A, L;    /* velocity, acceleration and length scales of the case */
    double alpha;      /* constraint stabilization gain A/V */
    double tol_g, tol_v, tol_lambda;
    pl_cvode cv;
    void *cvode;      /* cv.mem */
    N_Vector y, ytmp; /* cv.y and cv.ytmp */
    size_t next_sample;
    double prev_t;               /* the last recorded row */
    double prev_gdot[PL_MAX_CON];
    long max_events;
} solver;

#define Q(y) (y)
#define V(y, s) ((y) + (s)->n)
#define GAMMA(y, s) ((y)[2 * (s)->n])

const char *pl_event_kind_name(pl_event_kind kind)
{
    static const char *names[] = {"impact", "slide_start", "lift_off", "zeno"};
    return names[kind];
}

/* Solve the k x k system W a = b in place of a (GSL LU); returns non-zero if singular. */
static int solve_small(size_t k, double *W, const double *b, double *a)
{
    if (k == 0)
        return 0;
    gsl_matrix_view Wv = gsl_matrix_view_array(W, k, k);
    gsl_vector_const_view bv = gsl_vector_const_view_array(b, k);
    gsl_vector_view av = gsl_vector_view_array(a, k);
    gsl_permutation *p = gsl_permutation_alloc(k);
    int sign, bad = !p || gsl_linalg_LU_decomp(&Wv.matrix, p, &sign) != 0 ||
                    gsl_linalg_LU_solve(&Wv.matrix, p, &bv.vector, &av.vector) != 0;
    if (p)
        gsl_permutation_free(p);
    return bad;
}

/* Contact data of the constraints in `set` and their couplings (pl_model_contact_coupling). */
typedef struct {
    size_t k, idx[PL_MAX_CON];
    pl_contact c[PL_MAX_CON];
    double W[PL_MAX_CON * PL_MAX_CON];  /* forces and velocity changes to gap accelerations/rates */
    double Wq[PL_MAX_CON * PL_MAX_CON]; /* displacements to gap changes */
} contact_set;

static void gather(const solver *s, double t, const double *q, const double *v, const int *set, contact_set *cs)
{
    cs->k = pl_model_contact_coupling(s->model, t, q, v, set, cs->idx, cs->c, cs->W, cs->Wq);
}

/* Forces of sustained contact on the set S (motion (50)): the bilateral problem
 * W lambda = -(D + 2 alpha Gdot + alpha^2 G), whose stabilization terms vanish on the exact
 * solution (G = Gdot = 0) and damp the drift of the numerical one.  ac = sum_i w_i lambda_i. */
static int sliding_forces(const solver *s, double t, const double *q, const double *v, double *lambda, double *ac)
{
    contact_set cs;
    gather(s, t, q, v, s->sliding, &cs);
    double b[PL_MAX_CON], a[PL_MAX_CON] = {0};
    for (size_t r = 0; r < cs.k; r++) {
        const pl_contact *c = &cs.c[r];
        double D = pl_model_free_gap_accel(s->model, cs.idx[r], t, q, v);
        b[r] = -(D + 2.0 * s->alpha * c->gdot + s->alpha * s->alpha * c->gap.g);
    }
    int bad = solve_small(cs.k, cs.W, b, a);
    memset(lambda, 0, s->m * sizeof *lambda);
    memset(ac, 0, s->n * sizeof *ac);
    for (size_t r = 0; r < cs.k; r++) {
        lambda[cs.idx[r]] = a[r];
        for (size_t j = 0; j < s->n; j++)
            ac[j] += cs.c[r].w[j] * a[r];
    }
    return bad;
}

static int rhs(sunrealtype t, N_Vector yv, N_Vector ydv, void *user)
{
    const solver *s = user;
    const double *y = N_VGetArrayPointer(yv);
    double *yd = N_VGetArrayPointer(ydv);
    double a[PL_MAX_DOF], ac[PL_MAX_DOF], lambda[PL_MAX_CON];
    pl_model_velocity_map(s->model, t, Q(y), V(y, s), yd, NULL, NULL, NULL);
    pl_model_accel(s->model, t, Q(y), V(y, s), a, NULL, NULL);
    if (sliding_forces(s, t, Q(y), V(y, s), lambda, ac))
        return -1;
    double norm = 0.0;
    for (size_t j = 0; j < s->n; j++) {
        yd[s->n + j] = a[j] + ac[j];
        norm += ac[j] * ac[j];
    }
    GAMMA(yd, s) = 1.0 + sqrt(norm);
    return 0;
}

/* Root of constraint i: its gap while free (a contact), its force while sliding (a lift-off). */
static int roots(sunrealtype t, N_Vector yv, sunrealtype *gout, void *user)
{
    const solver *s = user;
    const double *y = N_VGetArrayPointer(yv);
    double lambda[PL_MAX_CON], ac[PL_MAX_DOF];
    if (sliding_forces(s, t, Q(y), V(y, s), lambda, ac))
        return -1; /* singular contact coupling */
    for (size_t i = 0; i < s->m; i++) {
        if (s->sliding[i]) {
            gout[i] = lambda[i];
        } else {
            pl_gap g;
            pl_model_gap(s->model, i, t, Q(y), &g);
            gout[i] = g.g;
        }
    }
    return 0;
}

/* Error weights.  q and v relative to their size with floors at the free-motion scales; near a
 * free constraint, its gap and rate relative to the flight they start (height Gdot^2/(2A), rate
 * sqrt(2 A |G|)), so that the ever shorter flights of a Zeno sequence are each resolved to rtol. */
static int error_weights(N_Vector yv, N_Vector wv, void *user)
{
    const solver *s = user;
    const double *y = N_VGetArrayPointer(yv);
    double *w = N_VGetArrayPointer(wv), t = 0.0, rtol = s->opts->rtol;
    if (CVodeGetCurrentTime(s->cvode, &t) != CV_SUCCESS)
        return -1;
    double tol[2 * PL_MAX_DOF + 1], fp[PL_MAX_DOF];
    for (size_t j = 0; j < s->n; j++) {
        tol[j] = rtol * (fabs(y[j]) + s->L);
        tol[s->n + j] = rtol * (fabs(y[s->n + j]) + s->V);
    }
    tol[2 * s->n] = rtol * (fabs(GAMMA(y, s)) + 1.0);
    pl_model_velocity_map(s->model, t, Q(y), V(y, s), fp, NULL, NULL, NULL);
    for (size_t i = 0; i < s->m; i++) {
        if (s->sliding[i])
            continue;
        pl_contact c;
        pl_model_contact(s->model, i, t, Q(y), fp, NULL, &c);
        double g = fabs(c.gap.g), gd = fabs(c.gdot);
        double tol_g = rtol * (g + gd * gd / (2.0 * s->A) + 1e-30 * s->L);
        double tol_gd = rtol * (gd + sqrt(2.0 * s->A * g) + 1e-15 * s->V);
        pl_tighten_for_gap(tol, s->n, c.gap.grad, tol_g, tol_gd);
    }
    for (size_t j = 0; j < s->N; j++)
        w[j] = 1.0 / fmax(tol[j], 100.0 * DBL_EPSILON * fabs(y[j]));
    return 0;
}

/* ---- records ------------------------------------------------------------------------------- */

static pl_status record_row(solver *s, double t, const double *y, pl_error *err)
{
    size_t n = s->n, m = s->m;
    double row[2 + 2 * PL_MAX_DOF + 2 * PL_MAX_CON], ac[PL_MAX_DOF];
    row[0] = t;
    row[1] = GAMMA(y, s);
    memcpy(row + 2, y, 2 * n * sizeof *row);
    double fp[PL_MAX_DOF];
    pl_model_velocity_map(s->model, t, Q(y), V(y, s), fp, NULL, NULL, NULL);
    for (size_t i = 0; i < m; i++) {
        pl_contact c;
        pl_model_contact(s->model, i, t, Q(y), fp, NULL, &c);
        row[pl_col_g(n, m) + i] = c.gap.g;
        s->prev_gdot[i] = c.gdot;
    }
    sliding_forces(s, t, Q(y), V(y, s), row + pl_col_lambda(n, m), ac);
    s->prev_t = t;
    return pl_table_append(&s->res->traj, row, err);
}

static pl_status add_event(solver *s, const pl_event *e, pl_error *err)
{
    pl_limit_result *res = s->res;
    if ((long)res->nevents >= s->max_events)
        return pl_fail(err, PL_ERR_SOLVER, "more than %ld events by t = %.17g: raise the event cap", s->max_events, e->t);
    if (res->nevents == res->events_cap) {
        size_t cap = res->events_cap ? 2 * res->events_cap : 64;
        pl_event *p = realloc(res->events, cap * sizeof *p);
        if (!p)
            return pl_fail(err, PL_ERR_NOMEM, "out of memory storing %zu events", res->nevents);
        res->events = p;
        res->events_cap = cap;
    }
    res->events[res->nevents++] = *e;
    return PL_OK;
}

static pl_event make_event(const solver *s, pl_event_kind kind, double t, size_t i, const double *y_before,
                           const double *y_after)
{
    pl_event e;
    memset(&e, 0, sizeof e);
    e.kind = kind;
    e.t = t;
    e.constraint = i;
    memcpy(e.q, Q(y_after), s->n * sizeof *e.q);
    memcpy(e.v_before, V(y_before, s), s->n * sizeof *e.v_before);
    memcpy(e.v_after, V(y_after, s), s->n * sizeof *e.v_after);
    e.gamma_before = GAMMA(y_before, s);
    e.gamma_after = GAMMA(y_after, s);
    double fp[PL_MAX_DOF];
    pl_contact c;
    pl_model_velocity_map(s->model, t, Q(y_before), V(y_before, s), fp, NULL, NULL, NULL);
    pl_model_contact(s->model, i, t, Q(y_before), fp, NULL, &c);
    e.gdot_before = c.gdot;
    pl_model_velocity_map(s->model, t, Q(y_after), V(y_after, s), fp, NULL, NULL, NULL);
    pl_model_contact(s->model, i, t, Q(y_after), fp, NULL, &c);
    e.gdot_after = c.gdot;
    return e;
}

/* ---- contact sets ---------------------------------------------------------------------------- */

/* Put the state exactly on G_i = 0 (and, unless positions_only, Gdot_i = 0) for i in set
 * (corrections of the order of the tolerances), along the directions w_i of the contact forces. */
static int project_state(const solver *s, double t, double *y, const int *set, int positions_only)
{
    contact_set cs;
    gather(s, t, Q(y), V(y, s), set, &cs);
    if (cs.k == 0)
        return 0;
    double W[PL_MAX_CON * PL_MAX_CON], b[PL_MAX_CON], a[PL_MAX_CON];
    for (size_t r = 0; r < cs.k; r++)
        b[r] = cs.c[r].gap.g;
    memcpy(W, cs.Wq, cs.k * cs.k * sizeof *W);
    if (solve_small(cs.k, W, b, a))
        return -1;
    for (size_t r = 0; r < cs.k; r++)
        for (size_t j = 0; j < s->n; j++)
            y[j] -= cs.c[r].w[j] * a[r];
    if (positions_only)
        return 0;
    gather(s, t, Q(y), V(y, s), set, &cs);
    for (size_t r = 0; r < cs.k; r++)
        b[r] = cs.c[r].gdot;
    memcpy(W, cs.W, cs.k * cs.k * sizeof *W);
    if (solve_small(cs.k, W, b, a))
        return -1;
    for (size_t r = 0; r < cs.k; r++)
        for (size_t j = 0; j < s->n; j++)
            y[s->n + j] -= cs.c[r].w[j] * a[r];
    return 0;
}

/* Decide which of the candidate constraints (on their boundary with zero normal velocity) are in
 * sustained contact: the LCP of sliding.h.  Emits slide_start for those that join and lift_off
 * for those that leave. */
static pl_status resolve_contacts(solver *s, double t, double *y, const int *candidates, pl_error *err)
{
    double lambda[PL_MAX_CON], fsm[PL_MAX_CON];
    pl_status st = pl_sliding_force(s->model, t, Q(y), V(y, s), candidates, lambda, fsm, err);
    if (st != PL_OK)
        return st;
    int next[PL_MAX_CON];
    for (size_t i = 0; i < s->m; i++)
        next[i] = candidates[i] && lambda[i] > s->tol_lambda * s->A;
    if (project_state(s, t, y, next, 0))
        return pl_fail(err, PL_ERR_SOLVER, "limit solution: singular contact coupling at t = %.17g", t);
    for (size_t i = 0; i < s->m; i++) {
        if (next[i] == s->sliding[i])
            continue;
        int was = s->sliding[i];
        s->sliding[i] = next[i];
        pl_event e = make_event(s, was ? PL_EVENT_LIFT_OFF : PL_EVENT_SLIDE_START, t, i, y, y);
        if ((st = add_event(s, &e, err)) != PL_OK)
            return st;
    }
    return PL_OK;
}

/* ---- Zeno ------------------------------------------------------------------------------------- */

/* After an impact of constraint j: is it the tail of a geometric sequence of impacts of j that
 * accumulates?  The last 4 impacts of j, with no other event in between, give 3 flights
 * f_k = t_k - t_{k-1}; with their 2 ratios agreeing to 1% and r < 1, the remaining time is
 * f r/(1 - r).  Once that is below zeno_tail * V/A, or the impact speed below 1e-6 V (1e3 times
 * the velocity tolerance, under which a contact counts as a touch), or the next rebound cannot be
 * followed (unresolvable_rebound), or the flights reach 1e4 ulps of t (the resolution of the
 * event times), the accumulation point is extrapolated: every component of (t, q, v, Gamma) after
 * the impacts is continued by the same geometric series.  A sequence that is not geometric when
 * its rebounds become unresolvable ends in a touch instead, neglecting a remaining time of the
 * order of its last flight. */
static int unresolvable_rebound(const solver *s, double t, const double *y, size_t i, double gdot);

static int zeno_check(solver *s, size_t j, const double *y, double *y_acc, double *t_acc, size_t *count,
                      double *ratio)
{
    const pl_limit_result *res = s->res;
    size_t last = res->nevents, k = 0;
    const pl_event *seq[4];
    while (last > 0 && k < 4) {
        const pl_event *e = &res->events[--last];
        if (e->kind != PL_EVENT_IMPACT || e->constraint != j)
            break;
        seq[k++] = e; /* seq[0] is the latest */
    }
    if (k < 4)
        return 0;
    double f0 = seq[0]->t - seq[1]->t, f1 = seq[1]->t - seq[2]->t, f2 = seq[2]->t - seq[3]->t;
    double r = f0 / f1, r_prev = f1 / f2;
    int geometric = r < 1.0 && r > 0.0 && fabs(r - r_prev) <= 1e-2 * r;
    int unresolved = f0 < 1e4 * DBL_EPSILON * fmax(1.0, fabs(seq[0]->t));
    int slow = fabs(seq[0]->gdot_before) <= 1e3 * s->tol_v ||
               unresolvable_rebound(s, seq[0]->t, y, j, seq[0]->gdot_after);
    double tail = f0 * r / (1.0 - r);
    if (!geometric || !(tail <= s->opts->zeno_tail * s->L / s->V || slow || unresolved))
        return unresolved ? -1 : 0;
    /* the state right after the last two impacts */
    double x1[2 * PL_MAX_DOF + 1], x0[2 * PL_MAX_DOF + 1];
    memcpy(x1, seq[0]->q, s->n * sizeof *x1);
    memcpy(x1 + s->n, seq[0]->v_after, s->n * sizeof *x1);
    x1[2 * s->n] = seq[0]->gamma_after;
    memcpy(x0, seq[1]->q, s->n * sizeof *x0);
    memcpy(x0 + s->n, seq[1]->v_after, s->n * sizeof *x0);
    x0[2 * s->n] = seq[1]->gamma_after;
    for (size_t c = 0; c < s->N; c++)
        y_acc[c] = x1[c] + (x1[c] - x0[c]) * r / (1.0 - r);
    *t_acc = seq[0]->t + tail;
    *ratio = r;
    for (*count = 0, last = res->nevents; last > 0; (*count)++) {
        const pl_event *e = &res->events[--last];
        if (e->kind != PL_EVENT_IMPACT || e->constraint != j)
            break;
    }
    return 1;
}

/* ---- impacts ---------------------------------------------------------------------------------- */

/* A rebound at gap rate gdot > 0 against a free gap acceleration D < 0 rises gdot^2/(2|D|) for
 * 2 gdot/|D|.  Below the gap tolerance, or shorter than the resolution of event times (1e4 ulps
 * of t), it cannot be followed: the constraint is treated as touched (the LCP decides). */
static int unresolvable_rebound(const solver *s, double t, const double *y, size_t i, double gdot)
{
    if (!(gdot > 0.0))
        return 0;
    double D = pl_model_free_gap_accel(s->model, i, t, Q(y), V(y, s));
    return D < 0.0 && (gdot * gdot / (-2.0 * D) <= s->tol_g || 2.0 * gdot / -D < 1e4 * DBL_EPSILON * fmax(1.0, fabs(t)));
}

static pl_status impact(solver *s, double *t, double *y, size_t j, pl_error *err)
{
    size_t n = s->n, m = s->m;
    int part[PL_MAX_CON];
    for (size_t i = 0; i < m; i++) {
        pl_gap g;
        pl_model_gap(s->model, i, *t, Q(y), &g);
        part[i] = i == j || s->sliding[i] || fabs(g.g) <= s->tol_g;
    }
    if (project_state(s, *t, y, part, 1)) /* the impact happens on the boundary G = 0 */
        return pl_fail(err, PL_ERR_SOLVER, "limit solution: singular contact coupling at t = %.17g", *t);
    pl_impact im;
    pl_status st = pl_impact_solve(s->model, *t, Q(y), V(y, s), part, &im, err);
    if (st != PL_OK) {
        pl_impact_free(&im);
        return st;
    }
    s->res->fast_steps += im.fast_steps;
    double before[2 * PL_MAX_DOF + 1];
    memcpy(before, y, s->N * sizeof *y);
    /* The jump as an arc in s: rows at the same t and q, between the rows before and after it,
     * with the velocity and Gamma of the fast solution (no sliding force on them). */
    for (size_t r = 1; r + 1 < im.arc.nrows; r++) {
        const double *a = pl_table_row(&im.arc, r);
        double row[2 + 2 * PL_MAX_DOF + 2 * PL_MAX_CON] = {0};
        row[0] = *t;
        row[1] = GAMMA(y, s) + a[1];
        memcpy(row + 2, Q(y), n * sizeof *row);
        memcpy(row + 2 + n, a + 2, n * sizeof *row);
        for (size_t i = 0; i < m; i++) {
            pl_gap g;
            pl_model_gap(s->model, i, *t, Q(y), &g);
            row[pl_col_g(n, m) + i] = g.g;
        }
        if ((st = pl_table_append(&s->res->traj, row, err)) != PL_OK)
            goto done;
    }
    memcpy(V(y, s), im.v_plus, n * sizeof *y);
    GAMMA(y, s) += im.delta_gamma;
    pl_event e = make_event(s, PL_EVENT_IMPACT, *t, j, before, y);
    memcpy(e.impulse, im.impulse, m * sizeof *e.impulse);
    for (size_t i = 0; i < m; i++)
        e.participants |= part[i] ? 1u << i : 0u;
    e.s_exit = im.s_exit;
    if ((st = add_event(s, &e, err)) != PL_OK)
        goto done;

    double y_acc[2 * PL_MAX_DOF + 1], t_acc, ratio;
    size_t count;
    int zeno = zeno_check(s, j, y, y_acc, &t_acc, &count, &ratio);
    if (zeno < 0) {
        st = pl_fail(err, PL_ERR_SOLVER, "impacts of constraint %zu accumulate near t = %.17g but not geometrically",
                     j + 1, *t);
        goto done;
    }
    int candidates[PL_MAX_CON];
    if (zeno) {
        /* Continue from the accumulation point (Theorem 7(b)), on the boundary of j. */
        if ((st = record_row(s, *t, y, err)) != PL_OK)
            goto done;
        double y_before[2 * PL_MAX_DOF + 1];
        memcpy(y_before, y, s->N * sizeof *y);
        memcpy(y, y_acc, s->N * sizeof *y);
        *t = t_acc;
        for (size_t i = 0; i < m; i++)
            candidates[i] = i == j || s->sliding[i];
        if (project_state(s, *t, y, candidates, 0)) {
            st = pl_fail(err, PL_ERR_SOLVER, "limit solution: singular contact coupling at t = %.17g", *t);
            goto done;
        }
        pl_limit_result *res = s->res;
        if (!res->zeno) { /* the summary reports the first one; every one is an event */
            res->zeno = 1;
            res->zeno_constraint = j;
            res->impacts_resolved = count;
            res->t_accumulation = t_acc;
            res->zeno_ratio = ratio;
            memcpy(res->zeno_q, Q(y), n * sizeof *y);
            memcpy(res->zeno_v, V(y, s), n * sizeof *y);
        }
        pl_event z = make_event(s, PL_EVENT_ZENO, *t, j, y_before, y);
        if ((st = add_event(s, &z, err)) != PL_OK)
            goto done;
    } else {
        /* Constraints left on their boundary without normal velocity may be in sustained contact. */
        double fp[PL_MAX_DOF];
        pl_model_velocity_map(s->model, *t, Q(y), V(y, s), fp, NULL, NULL, NULL);
        for (size_t i = 0; i < m; i++) {
            pl_contact c;
            pl_model_contact(s->model, i, *t, Q(y), fp, NULL, &c);
            candidates[i] = part[i] && (im.settled[i] || fabs(c.gdot) <= s->tol_v || unresolvable_rebound(s, *t, y, i, c.gdot));
        }
    }
    st = resolve_contacts(s, *t, y, candidates, err);
done:
    pl_impact_free(&im);
    return st;
}

/* ---- integration ------------------------------------------------------------------------------ */

#define CHECK_CV(call, what)                                                                       \
    do {                                                                                           \
        int flag_ = (call);                                                                        \
        if (flag_ < 0)                                                                             \
            return pl_cvode_failure(s->cvode, what, flag_, "limit solution", s->cv.message, err);     \
    } while (0)

static pl_status restart(solver *s, double t, pl_error *err)
{
    pl_cvode_add_counters(s->cvode, &s->res->stats);
    s->res->stats.restarts++;
    CHECK_CV(CVodeReInit(s->cvode, t, s->y), "CVodeReInit");
    CHECK_CV(CVodeSetStopTime(s->cvode, s->res->t_end), "CVodeSetStopTime");
    return PL_OK;
}

static double sample_time(const solver *s, size_t k)
{
    size_t total = s->opts->samples;
    return k <= total && total > 0 ? s->res->t_end * (double)k / (double)total : INFINITY;
}

static pl_status record_samples_before(solver *s, double t, pl_error *err)
{
    for (double ts; (ts = sample_time(s, s->next_sample)) < t; s->next_sample++) {
        if (ts <= s->prev_t)
            continue;
        CHECK_CV(CVodeGetDky(s->cvode, ts, 0, s->ytmp), "CVodeGetDky");
        pl_status st = record_row(s, ts, N_VGetArrayPointer(s->ytmp), err);
        if (st != PL_OK)
            return st;
    }
    return PL_OK;
}

static pl_status setup(solver *s, const double *y0, pl_error *err)
{
    /* The smooth phases are not stiff; CVODE's difference-quotient Jacobian is enough. */
    pl_cvode_spec spec = {.size = s->N, .y0 = y0, .t_end = s->res->t_end, .rhs = rhs, .weights = error_weights,
                          .roots = roots, .nroots = (int)s->m, .user = s};
    pl_status st = pl_cvode_create(&s->cv, &spec, err);
    s->cvode = s->cv.mem;
    s->y = s->cv.y;
    s->ytmp = s->cv.ytmp;
    return st;
}

/* Contacts at a time t where some gaps are 0: impacts first (the fastest gap rate decides which
 * constraint triggers; the others on their boundary take part), then touches (Gdot = 0), which
 * join the sustained contact if the LCP presses them. */
static pl_status contacts_at(solver *s, double *t, double *y, const int *touching, pl_error *err)
{
    double fp[PL_MAX_DOF], worst = 0.0;
    size_t j = 0;
    int any_impact = 0, candidates[PL_MAX_CON];
    pl_model_velocity_map(s->model, *t, Q(y), V(y, s), fp, NULL, NULL, NULL);
    for (size_t i = 0; i < s->m; i++) {
        candidates[i] = s->sliding[i];
        if (!touching[i])
            continue;
        pl_contact c;
        pl_model_contact(s->model, i, *t, Q(y), fp, NULL, &c);
        if (c.gdot < -s->tol_v) {
            if (!any_impact || c.gdot < worst)
                worst = c.gdot, j = i;
            any_impact = 1;
        } else if (c.gdot <= s->tol_v) {
            candidates[i] = 1;
        }
    }
    if (any_impact)
        return impact(s, t, y, j, err);
    return resolve_contacts(s, *t, y, candidates, err);
}

/* G_i or Gdot_i at t inside the last step, on CVODE's dense output. */
typedef struct {
    solver *s;
    size_t i;
    int rate;
} dense_fn;

static double dense_gap(double t, void *p)
{
    dense_fn *d = p;
    solver *s = d->s;
    if (CVodeGetDky(s->cvode, t, 0, s->ytmp) != CV_SUCCESS)
        return NAN;
    const double *y = N_VGetArrayPointer(s->ytmp);
    double fp[PL_MAX_DOF];
    pl_contact c;
    pl_model_velocity_map(s->model, t, Q(y), V(y, s), fp, NULL, NULL, NULL);
    pl_model_contact(s->model, d->i, t, Q(y), fp, NULL, &c);
    return d->rate ? c.gdot : c.gap.g;
}

/* Rootfinding sees only sign changes of the gaps at step ends.  A free gap that dips below
 * -tol_miss = -1e-9 L (well beyond the drift of a sustained contact it has just left) and back
 * within the last step has a minimum there (Gdot from - to +); its crossing is found on the
 * dense output.  Returns 1 with the earliest such crossing, 0 if none, -1 (with err) if a free gap
 * is below -tol_miss where no crossing can be bracketed. */
static int missed_contact(solver *s, double t, const double *y, double *t_cross, pl_error *err)
{
    int found = 0;
    double fp[PL_MAX_DOF];
    pl_model_velocity_map(s->model, t, Q(y), V(y, s), fp, NULL, NULL, NULL);
    for (size_t i = 0; i < s->m; i++) {
        if (s->sliding[i])
            continue;
        pl_contact c;
        pl_model_contact(s->model, i, t, Q(y), fp, NULL, &c);
        dense_fn gap = {s, i, 0}, rate = {s, i, 1};
        double te = t, tol_miss = 1e-9 * s->L;
        if (c.gap.g >= -tol_miss) {
            if (!(s->prev_gdot[i] < 0.0 && c.gdot >= 0.0))
                continue;
            te = pl_brent(dense_gap, &rate, s->prev_t, t, 0);
            if (isnan(te) || !(dense_gap(te, &gap) < -tol_miss))
                continue;
        }
        double tc = pl_brent(dense_gap, &gap, s->prev_t, te, 0);
        if (isnan(tc)) {
            pl_fail(err, PL_ERR_SOLVER, "limit solution: constraint %zu violated (G = %g) at t = %.17g", i + 1,
                    c.gap.g, t);
            return -1;
        }
        if (!found || tc < *t_cross)
            *t_cross = tc;
        found = 1;
    }
    return found;
}

static pl_status integrate(solver *s, pl_error *err)
{
    pl_limit_result *res = s->res;
    double *y = N_VGetArrayPointer(s->y), t = 0.0;
    int touching[PL_MAX_CON], rootsfound[PL_MAX_CON];
    pl_status st;

    /* The initial state must be admissible; constraints on their boundary are resolved first. */
    int any = 0;
    for (size_t i = 0; i < s->m; i++) {
        pl_gap g;
        pl_model_gap(s->model, i, t, Q(y), &g);
        if (g.g < -s->tol_g)
            return pl_fail(err, PL_ERR_INPUT, "the initial state violates constraint %zu (G = %g < 0): the limit "
                           "solution starts from an admissible state", i + 1, g.g);
        touching[i] = g.g <= s->tol_g;
        any |= touching[i];
    }
    if ((st = record_row(s, t, y, err)) != PL_OK)
        return st;
    if (any) {
        if ((st = contacts_at(s, &t, y, touching, err)) != PL_OK || (st = restart(s, t, err)) != PL_OK)
            return st;
        if ((st = record_row(s, t, y, err)) != PL_OK)
            return st;
    }
    while (t < res->t_end) {
        int flag = CVode(s->cvode, res->t_end, s->y, &t, CV_ONE_STEP);
        if (flag < 0)
            return pl_cvode_failure(s->cvode, "CVode", flag, "limit solution", s->cv.message, err);
        double tc = NAN;
        int missed = missed_contact(s, t, y, &tc, err);
        if (missed < 0)
            return err ? err->status : PL_ERR_SOLVER;
        if (missed) {
            /* Go back to the crossing and take the contact there. */
            if ((st = record_samples_before(s, tc, err)) != PL_OK)
                return st;
            CHECK_CV(CVodeGetDky(s->cvode, tc, 0, s->y), "CVodeGetDky");
            t = tc;
            for (size_t i = 0; i < s->m; i++) {
                pl_gap g;
                pl_model_gap(s->model, i, t, Q(y), &g);
                touching[i] = !s->sliding[i] && fabs(g.g) <= fmax(s->tol_g, 1e3 * DBL_EPSILON * s->L);
            }
            if ((st = record_row(s, t, y, err)) != PL_OK || (st = contacts_at(s, &t, y, touching, err)) != PL_OK ||
                (st = restart(s, t, err)) != PL_OK || (st = record_row(s, t, y, err)) != PL_OK)
                return st;
            continue;
        }
        if ((st = record_samples_before(s, t, err)) != PL_OK)
            return st;
        if (flag != CV_ROOT_RETURN) {
            if ((st = record_row(s, t, y, err)) != PL_OK)
                return st;
            continue;
        }
        CHECK_CV(CVodeGetRootInfo(s->cvode, rootsfound), "CVodeGetRootInfo");
        int lifted[PL_MAX_CON], lift = 0, contact = 0;
        for (size_t i = 0; i < s->m; i++) {
            /* A force of sustained contact reaching 0 from above: lift-off.  A gap reaching 0
             * from above: a contact. */
            lifted[i] = s->sliding[i] && rootsfound[i] < 0;
            touching[i] = !s->sliding[i] && rootsfound[i] < 0;
            lift |= lifted[i];
            contact |= touching[i];
        }
        if ((st = record_row(s, t, y, err)) != PL_OK)
            return st;
        if (lift) {
            int candidates[PL_MAX_CON];
            for (size_t i = 0; i < s->m; i++)
                candidates[i] = s->sliding[i] && !lifted[i];
            for (size_t i = 0; i < s->m; i++)
                if (lifted[i]) {
                    s->sliding[i] = 0;
                    pl_event e = make_event(s, PL_EVENT_LIFT_OFF, t, i, y, y);
                    if ((st = add_event(s, &e, err)) != PL_OK)
                        return st;
                }
            if ((st = resolve_contacts(s, t, y, candidates, err)) != PL_OK)
                return st;
        }
        if (contact) {
            for (size_t i = 0; i < s->m; i++) {
                pl_gap g;
                pl_model_gap(s->model, i, t, Q(y), &g);
                touching[i] |= !s->sliding[i] && fabs(g.g) <= s->tol_g;
            }
            if ((st = contacts_at(s, &t, y, touching, err)) != PL_OK)
                return st;
        }
        if ((st = restart(s, t, err)) != PL_OK || (st = record_row(s, t, y, err)) != PL_OK)
            return st;
    }
    return PL_OK;
}

pl_status pl_limit_check_opts(const pl_limit_opts *o, pl_error *err)
{
    if (!(isfinite(o->rtol) && o->rtol >= 1e-14 && o->rtol < 1))
        return pl_fail(err, PL_ERR_INPUT, "rtol must be in [1e-14, 1) (got %g): double precision cannot do better",
                       o->rtol);
    if (!(isfinite(o->t_end) && o->t_end >= 1e-12))
        return pl_fail(err, PL_ERR_INPUT, "t-end must be a finite number >= 1e-12 (got %g)", o->t_end);
    if (o->max_events < 0 || !(o->zeno_tail >= 0))
        return pl_fail(err, PL_ERR_INPUT, "max-events and zeno-tail must be >= 0");
    return PL_OK;
}

pl_status pl_limit_solve(const pl_model *model, const pl_limit_opts *opts, pl_limit_result *res, pl_error *err)
{
    memset(res, 0, sizeof *res);
    res->n = model->n;
    res->m = model->m;
    res->t_end = opts->t_end;
    res->t_accumulation = res->zeno_ratio = NAN;
    pl_table_init(&res->traj, pl_ncols(model->n, model->m));
    pl_error local;
    pl_error *e = err ? err : &local;
    pl_error_clear(e);
    pl_status st = pl_limit_check_opts(opts, e);
    if (st != PL_OK) {
        res->status = st;
        res->error = *e;
        return st;
    }
    pl_limit_opts o = *opts;
    if (o.zeno_tail == 0.0)
        o.zeno_tail = 1e-9;
    double t0 = pl_now_seconds();
    solver s;
    memset(&s, 0, sizeof s);
    s.model = model;
    s.opts = &o;
    s.res = res;
    s.n = model->n;
    s.m = model->m;
    s.N = 2 * s.n + 1;
    s.V = model->v_scale;
    s.A = model->a_scale;
    s.L = s.V * s.V / s.A;
    s.alpha = s.A / s.V;
    s.tol_g = 1e-12 * s.L;
    s.tol_v = 1e-9 * s.V;
    s.tol_lambda = 1e-12;
    s.next_sample = 1;
    s.max_events = o.max_events > 0 ? o.max_events : DEFAULT_MAX_EVENTS;
    double y0[2 * PL_MAX_DOF + 1] = {0};
    pl_model_initial_state(model, Q(y0), V(y0, &s));
    st = setup(&s, y0, e);
    if (st == PL_OK)
        st = integrate(&s, e);
    if (s.cvode)
        pl_cvode_add_counters(s.cvode, &res->stats);
    if (res->traj.nrows > 0) {
        const double *last = pl_table_row(&res->traj, res->traj.nrows - 1);
        res->t_final = last[0];
        res->gamma_final = last[1];
        memcpy(res->q_final, last + 2, s.n * sizeof *last);
        memcpy(res->v_final, last + 2 + s.n, s.n * sizeof *last);
    }
    pl_cvode_free(&s.cv);
    res->stats.wall_seconds = pl_now_seconds() - t0;
    res->status = st;
    res->error = *e;
    return st;
}

void pl_limit_result_free(pl_limit_result *res)
{
    pl_table_free(&res->traj);
    free(res->events);
    res->events = NULL;
    res->nevents = res->events_cap = 0;
}
