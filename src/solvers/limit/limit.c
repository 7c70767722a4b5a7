/* The limit (generalized) solution of paper 004 computed directly: the measure differential
 * equation (47)-(48), event driven.
 *
 * - flight: the smooth system with the Runge-Kutta stepper (stepper.h), rootfinding on the gaps G_i;
 * - impact (G_i = 0, Gdot_i < 0): the jump of the infinitesimal dynamics (19), with every
 *   constraint on its boundary taking part (impact.h);
 * - sustained contact (G_i = 0, Gdot_i = 0, D_i < 0): the motion (50) with the sliding-mode forces,
 *   the active set chosen by a complementarity problem (Siconos) and kept while every force stays
 *   positive; a force reaching 0 is a lift-off (D/A-tilde changes sign, Theorem 7(b));
 * - Zeno: a geometric sequence of impacts of one constraint is resolved until the predicted
 *   remaining time is below a tolerance, its accumulation time and state are extrapolated, and the
 *   solution continues from there, in sustained contact when the LCP says so (Theorem 7(b)).
 *
 * Gamma(t) = t + integral of |sum_i w_i lambda_i| over sustained contact + sum of the impacts'
 * Delta Gamma: the limit of Gamma^mu (eq. (5)).
 *
 * Tests of the geometry (gaps and their rates, in the error weights, records and crossing searches)
 * fill only the gap and gdot of a pl_contact, over the gap's support where the case gives supports
 * (gap_rate); w and m_eff, which need M^-1, come from gather where the forces do. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/carve.h"
#include "core/clock.h"
#include "core/linalg.h"
#include "core/rootfind.h"
#include "laws/restitution.h"
#include "model/sliding.h"
#include "model/sparse_set.h"
#include "solvers/event_loop.h"
#include "solvers/limit/impact.h"
#include "solvers/neighbours.h"
#include "solvers/solver.h"

#define MAX_EVENTS 1000000L
/* Points per step at which a free gap's rate is sampled for extrema (see missed_contact). */
#define FLIGHT_SAMPLES 8
/* Declare an accumulation once the predicted remaining time of a geometric impact sequence is
 * below ZENO_TAIL * V/A. */
#define ZENO_TAIL 1e-9

enum { OPT_RTOL };

static const pl_param_spec options[] = {
    {"rtol", 1e-12, 1e-14, 1.0, PL_PARAM_MAX_OPEN, "relative tolerance of the smooth phases"},
};

/* The contacts of a set and their couplings: the model's dense ones (m x m storage), or over supports for
 * a model of many bodies; k, idx, c, W, b, a: what gather filled, from either. */
typedef struct {
    pl_contact_set dense;
    pl_sparse_set sparse;
    size_t k;
    const size_t *idx;
    pl_contact *c;
    double *W, *b, *a;
} contact_set;

/* Arrays are sized m (per constraint), n or N, allocated once per run (alloc_solver); each function
 * that evaluates contact data has scratch of its own, as these functions call one another. */
typedef struct {
    const pl_model *model;
    pl_solution *sol;
    double rtol;
    size_t n, m, N; /* N = 2n + 1: q, v, Gamma */
    int *sliding;
    int *int_block; /* the int arrays, carved (alloc_solver) */
    double V, A, L;    /* velocity, acceleration and length scales of the case */
    double alpha;      /* constraint stabilization gain A/V */
    double tol_g, tol_v, tol_lambda;
    pl_event_loop loop;
    double *prev_gdot; /* at the last recorded row */
    /* scratch */
    pl_work *work;
    pl_impact_work *impact_work;
    int sparse;        /* pl_model_sparse: contact sets over supports */
    contact_set cs_forces, cs_project, cs_sliding; /* sliding_forces, project_state, resolve_contacts */
    size_t *members;   /* m: a set's constraints, ascending (gather) */
    size_t *slist, nslist; /* m: the sliding constraints, ascending (sliding_changed) */
    pl_contact *c_geo, *c_dense, *c_missed; /* gap and rate: most functions, dense_gap, missed_contact */
    pl_contact *c_tail;                     /* bounce_tail */
    double *a_tail, *a_tail_later;          /* bounce_tail: n each */
    pl_gap *g_rebound, *g_accel;            /* unresolvable_rebound, gap_accel */
    double *ac_accel, *fp_accel, *fp_v_accel; /* gap_accel: n, n, n x n (with F_p) */
    double *fp_geo, *fp_dense, *fp_missed;  /* n */
    double *a_rhs, *ac_rhs, *ac_roots, *ac_row; /* n */
    double *lambda_roots, *lambda_resolve, *fsm_resolve; /* m */
    double *tol, *x0, *x1, *before, *y_acc, *y_before, *y0; /* N */
    double *row, *arc_row; /* a trajectory row: record_row, impact */
    int *next, *part, *cand_impact, *cand_contacts, *cand_event, *touching_event, *lifted, *touching_start; /* m */
    long missed_constraint; /* the constraint whose crossing missed_contact took at a step's start, or -1 */
    /* A contact set could not be allocated inside a right-hand side, root function or gap
     * acceleration, whose callers know only failure: the run then ends out of memory (solve), not
     * with the stepper's "root functions failed" or a gap acceleration without the sustained forces. */
    int nomem;
    double nomem_t;
    double *kept_t, *kept_y; /* FLIGHT_SAMPLES, FLIGHT_SAMPLES x N: dense_cheap_kept */
    size_t nkept;
    double *block;
    /* Neighbour search (solvers/neighbours.h; "Neighbour list" below): nl.near NULL (fewer than
     * PL_NEAR_FROM constraints, or a case without candidates): every constraint is evaluated. */
    pl_near nl;
    int *live;             /* m: the live root functions (the list's constraints) for the stepper */
    unsigned long live_version;
    int redo;              /* the missed hook cut the step where the list still holds (near_redo) */
} solver;

#define Q(y) (y)
#define V(y, s) ((y) + (s)->n)
#define GAMMA(y, s) ((y)[2 * (s)->n])

static pl_status alloc_solver(solver *s, pl_error *err)
{
    size_t n = s->n, m = s->m, N = s->N, ncol = pl_ncols(n, m);
    pl_status st = pl_near_init(&s->nl, s->model, n, m, err);
    if (st != PL_OK)
        return st;
    contact_set *sets[] = {&s->cs_forces, &s->cs_project, &s->cs_sliding};
    for (size_t k = 0; st == PL_OK && k < 3; k++)
        st = !s->sparse ? pl_contact_set_init(&sets[k]->dense, s->model, err)
             : pl_sparse_set_init(&sets[k]->sparse, s->model)
                 ? pl_fail(err, PL_ERR_NOMEM, "limit solution: out of memory (%zu dofs, %zu constraints)", n, m)
                 : PL_OK;
    if (st != PL_OK)
        return st;
    s->members = malloc(2 * (m ? m : 1) * sizeof *s->members);
    s->slist = s->members ? s->members + (m ? m : 1) : NULL;
    s->work = pl_work_new(s->model);
    s->impact_work = pl_impact_work_new(s->model);
    s->c_geo = pl_contact_new_sparse(1, s->model, 0);
    s->c_dense = pl_contact_new_sparse(1, s->model, 0);
    s->c_missed = pl_contact_new_sparse(1, s->model, 0);
    s->c_tail = pl_contact_new(1, n, 0);
    s->g_rebound = pl_gap_new_sparse(1, s->model, 0);
    s->g_accel = pl_gap_new_sparse(1, s->model, 0);
    pl_int_part int_parts[] = {{&s->sliding, m},       {&s->next, m},          {&s->part, m},
                               {&s->cand_impact, m},   {&s->cand_contacts, m}, {&s->cand_event, m},
                               {&s->touching_event, m}, {&s->lifted, m},       {&s->touching_start, m},
                               {&s->live, s->nl.near ? m : 0}};
    pl_part parts[] = {{&s->fp_geo, n},       {&s->fp_dense, n},       {&s->fp_missed, n},     {&s->a_rhs, n},
                       {&s->ac_rhs, n},       {&s->ac_roots, n},       {&s->ac_row, n},        {&s->ac_accel, n},
                       {&s->fp_accel, n},     {&s->a_tail, n},         {&s->a_tail_later, n},
                       {&s->fp_v_accel, s->model->type->velocity_map ? n * n : 0}, {&s->prev_gdot, m},
                       {&s->lambda_roots, m},   {&s->lambda_resolve, m}, {&s->fsm_resolve, m},
                       {&s->tol, N},          {&s->x0, N},             {&s->x1, N},            {&s->before, N},
                       {&s->y_acc, N},        {&s->y_before, N},       {&s->y0, N},            {&s->row, ncol},
                       {&s->arc_row, ncol},     {&s->kept_t, FLIGHT_SAMPLES}, {&s->kept_y, FLIGHT_SAMPLES * N}};
    s->int_block = pl_carve_int(int_parts, PL_NPARTS(int_parts));
    s->block = pl_carve(parts, PL_NPARTS(parts));
    if (!s->members || !s->work || !s->impact_work || !s->c_geo || !s->c_dense || !s->c_missed || !s->c_tail || !s->g_rebound ||
        !s->g_accel ||
        !s->int_block || !s->block)
        return pl_fail(err, PL_ERR_NOMEM, "limit solution: out of memory (%zu dofs, %zu constraints)", n, m);
    return PL_OK;
}

static void free_solver(solver *s)
{
    contact_set *sets[] = {&s->cs_forces, &s->cs_project, &s->cs_sliding};
    for (size_t k = 0; k < 3; k++) {
        pl_contact_set_free(&sets[k]->dense);
        pl_sparse_set_free(&sets[k]->sparse);
    }
    free(s->members);
    pl_work_free(s->work);
    pl_impact_work_free(s->impact_work);
    free(s->c_geo);
    free(s->c_tail);
    free(s->c_dense);
    free(s->c_missed);
    free(s->g_rebound);
    free(s->g_accel);
    free(s->int_block);
    free(s->block);
    pl_near_free(&s->nl);
}

/* Gap i (and its rate) compressed to its support where the case gives supports (else dense, as
 * pl_model_gap): the same doubles, G and its gradient entries computed by the case either way, at O(s)
 * work rather than O(n) (O(m n) per root evaluation was most of the limit solution of many bodies).
 * Every consumer below reads the gap through its support (pl_gap_dof, pl_gap_terms,
 * pl_tighten_for_gap).  Counted in gap_evals. */
static void gap_of(solver *s, size_t i, double t, const double *q, pl_gap *g)
{
    s->sol->stats.gap_evals++;
    pl_model_gap_sparse(s->model, i, t, q, g);
}

/* A rate over the support with the sign of a zero as the dense sum has it (pl_gap_rate_dense_zero). */
static double dense_zero(const solver *s, const pl_gap *g, const double *fp, double gdot)
{
    return pl_gap_rate_dense_zero(g, fp, s->n, gdot);
}

static double gap_rate(solver *s, size_t i, double t, const double *q, const double *fp, pl_gap *g)
{
    s->sol->stats.gap_evals++;
    return dense_zero(s, g, fp, pl_model_gap_rate_sparse(s->model, i, t, q, fp, g));
}

/* The sliding constraints as a list, ascending (slist), after a change of sliding[]: a pass over the
 * m flags per event, not per right-hand side. */
static void sliding_changed(solver *s)
{
    s->nslist = 0;
    for (size_t i = 0; i < s->m; i++)
        if (s->sliding[i])
            s->slist[s->nslist++] = i;
}

/* ---- the neighbour list ------------------------------------------------------------------------ */

/* A model of many bodies with the case's candidates and gap_bounds, from PL_NEAR_FROM constraints:
 * the flights evaluate only the constraints that can come into contact before the list is rebuilt
 * (solvers/neighbours.h, the design and its proof, shared with the penalized runs).  A constraint left
 * out of the list built at (t0, q0) had G_i >= delta = V^2/A there, hence G_i >= delta - drift > 0 up
 * to the next rebuild: it cannot reach G_i = 0, where the measure of (47)-(48) acts, so it takes part
 * in no impact and no sustained contact, and its force is 0.  So the root functions
 * (live_roots: the others keep their positive sign and the stepper leaves them), the scan for missed
 * crossings, the first step after a restart, the contacts at an event and the rows (with sparse
 * contacts, which store no constraint with G > 0 and no force) read the list alone; every sliding
 * constraint (G_i = 0) is in it.  The error weights read the list's free gaps alone too (error_weights).
 * The list is rebuilt at a step's end or an event once the drift exceeds delta/2, a step whose end is
 * beyond delta is cut where its drift is 3 delta/4 (missed_near), and steps are bounded by the time
 * the drift takes to get there at the present speeds (max_step).  Below PL_NEAR_FROM constraints, or
 * without the case's candidates, every constraint is evaluated, as before the list. */

/* Constraint i leaves the list: nothing to reset but its rate at the last row, read again only once
 * it is back in the list, from near_rebuild's refresh or the next row. */
static void leave_list(void *user, size_t i)
{
    solver *s = user;
    s->prev_gdot[i] = NAN;
}

/* The list anew at (t, y): the case's candidates and the sliding constraints.  refresh: the rates at
 * the last recorded row (prev_gdot, at t) of those in it, where no row is recorded at t after the
 * rebuild (a cut of the step where the list still holds). */
static void near_rebuild(solver *s, double t, const double *y, int refresh)
{
    if (!s->nl.near)
        return;
    pl_near_rebuild(&s->nl, t, Q(y), s->slist, s->nslist, NULL, leave_list, s);
    for (size_t k = 0; k < s->nl.nlist; k++)
        s->live[k] = (int)s->nl.list[k];
    s->live_version++;
    if (!refresh)
        return;
    double *fp = s->fp_geo;
    pl_contact *c = s->c_geo;
    pl_model_velocity_map(s->model, t, Q(y), V(y, s), fp, NULL, NULL, NULL);
    for (size_t k = 0; k < s->nl.nlist; k++) {
        size_t i = s->nl.list[k];
        s->prev_gdot[i] = gap_rate(s, i, t, Q(y), fp, &c->gap);
    }
}

/* The stepper's live_roots: constraint i's root function (its gap while free, its force while
 * sliding) for the constraints in the list. */
static size_t live_roots(void *user, const int **list, unsigned long *version)
{
    const solver *s = user;
    *version = s->live_version;
    *list = s->nl.near ? s->live : NULL;
    return s->nl.near ? s->nl.nlist : s->m;
}

/* Contact data of the constraints in `set` and their couplings (pl_model_contact_coupling), into cs's
 * view: W (with want_wq, Wq: the same matrix where F_p = v), and b, a (k each) for the caller's systems.
 * For a model of many bodies (pl_model_sparse) over supports (pl_sparse_set: the same numbers, storage
 * that follows the set rather than m x m; the set listed in ascending order, as the dense sums run).
 * Non-zero if out of memory. */
static int gather(solver *s, double t, const double *q, const double *v, const int *set, contact_set *cs,
                  int want_wq)
{
    const size_t *list = set == s->sliding ? s->slist : s->members; /* the sliding set's kept list */
    if (!s->sparse) {
        pl_contact_set *d = &cs->dense;
        cs->k = pl_model_contact_coupling(s->model, s->work, t, q, v, set, d, 1);
        cs->idx = d->idx, cs->c = d->c, cs->W = want_wq ? d->Wq : d->W, cs->b = d->b, cs->a = d->a;
        return 0;
    }
    pl_sparse_set *ss = &cs->sparse;
    size_t k = set == s->sliding ? s->nslist : 0, formed = 0;
    for (size_t i = 0; list == s->members && i < s->m; i++)
        if (set[i])
            s->members[k++] = i;
    if (pl_sparse_set_fill(ss, s->model, t, q, v, list, k, &formed) || pl_sparse_set_dense(ss)) {
        if (!s->nomem)
            s->nomem = 1, s->nomem_t = t;
        return -1;
    }
    for (size_t r = 0; r < k; r++) /* the sign of a zero rate as the dense sum has it (dense_zero) */
        ss->c[r].gdot = dense_zero(s, &ss->c[r].gap, v, ss->c[r].gdot);
    cs->k = k, cs->idx = ss->idx, cs->c = ss->c, cs->W = ss->W, cs->b = ss->D, cs->a = ss->z;
    return 0;
}

/* y[j] -= w_j x over the entries of contact c's direction (all n, or its support). */
static void sub_along(const pl_contact *c, double x, double *y)
{
    for (size_t e = 0; e < c->nw; e++)
        y[c->w_support ? c->w_support[e] : e] -= c->w[e] * x;
}

/* Forces of sustained contact on the set S (motion (50)): the bilateral problem
 * W lambda = -(D + 2 alpha Gdot + alpha^2 G), whose stabilization terms vanish on the exact
 * solution (G = Gdot = 0) and damp the drift of the numerical one.  ac = sum_i w_i lambda_i; lambda
 * (m, or NULL) written at S's constraints, and cleared first where clear (a record's row): O(|S|) work
 * but for the gathering, not O(m) per right-hand side. */
static int sliding_forces(solver *s, double t, const double *q, const double *v, double *lambda, int clear,
                          double *ac)
{
    contact_set *cs = &s->cs_forces;
    if (gather(s, t, q, v, s->sliding, cs, 0))
        return -1;
    double *b = cs->b, *a = cs->a;
    pl_model_free_gap_accels(s->model, s->work, t, q, v, cs->idx, cs->k, b);
    for (size_t r = 0; r < cs->k; r++) {
        const pl_contact *c = &cs->c[r];
        b[r] = -(b[r] + 2.0 * s->alpha * c->gdot + s->alpha * s->alpha * c->gap.g);
        a[r] = 0.0;
    }
    int bad = pl_solve_small(cs->k, cs->W, b, a);
    if (bad < 0 && !s->nomem)
        s->nomem = 1, s->nomem_t = t;
    if (lambda && clear)
        memset(lambda, 0, s->m * sizeof *lambda);
    memset(ac, 0, s->n * sizeof *ac);
    for (size_t r = 0; r < cs->k; r++) {
        const pl_contact *c = &cs->c[r];
        if (lambda)
            lambda[cs->idx[r]] = a[r];
        for (size_t e = 0; e < c->nw; e++) /* over w's entries: its zeros add nothing */
            ac[c->w_support ? c->w_support[e] : e] += c->w[e] * a[r];
    }
    return bad;
}

static int rhs(double t, const double *y, double *yd, void *user)
{
    solver *s = user;
    double *a = s->a_rhs, *ac = s->ac_rhs;
    pl_model_velocity_map(s->model, t, Q(y), V(y, s), yd, NULL, NULL, NULL);
    pl_model_accel(s->model, s->work, t, Q(y), V(y, s), a, NULL, NULL);
    if (sliding_forces(s, t, Q(y), V(y, s), NULL, 0, ac))
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
static int roots(double t, const double *y, double *gout, void *user)
{
    solver *s = user;
    double *lambda = s->lambda_roots, *ac = s->ac_roots;
    if (sliding_forces(s, t, Q(y), V(y, s), lambda, 0, ac)) /* lambda read at the sliding ones alone */
        return -1; /* singular contact coupling */
    pl_gap *g = &s->c_geo->gap;
    for (size_t k = 0, count = pl_near_count(&s->nl); k < count; k++) { /* the live ones (live_roots) */
        size_t i = pl_near_at(&s->nl, k);
        if (s->sliding[i]) {
            gout[i] = lambda[i];
        } else {
            gap_of(s, i, t, Q(y), g);
            gout[i] = g->g;
        }
    }
    return 0;
}

/* Root k alone (roots' value), for the search of one root: its gap or its force, not the m others
 * (every constraint's gap at each iteration of the search was most of the gaps of many bodies). */
static int root_one(double t, const double *y, int k, double *g, void *user)
{
    solver *s = user;
    size_t i = (size_t)k;
    if (s->sliding[i]) {
        if (sliding_forces(s, t, Q(y), V(y, s), s->lambda_roots, 0, s->ac_roots))
            return -1;
        *g = s->lambda_roots[i];
        return 0;
    }
    pl_gap *gap = &s->c_geo->gap;
    gap_of(s, i, t, Q(y), gap);
    *g = gap->g;
    return 0;
}

/* Error weights.  q and v relative to their size with floors at the free-motion scales; near a
 * free constraint, its gap and rate relative to the flight they start (height Gdot^2/(2A), rate
 * sqrt(2 A |G|)), so that the ever shorter flights of a Zeno sequence are each resolved to rtol.
 * Floors: rtol times the smallest flight the solver follows, a rise of tol_g at a speed of tol_v
 * (a lower rebound is a touch: unresolvable_rebound, contacts_at).  A gap left at G = Gdot = 0
 * (a lift-off right after an inelastic impact, a slide along a wall after a corner impact) starts
 * no flight of its own; with floors of 1e-30 L and 1e-15 V, and q, v exactly 0 there (no
 * round-off floor), the tolerances were ~1e-42 and the first step's estimate fell below the
 * smallest step.
 * With a neighbour list (from PL_NEAR_FROM constraints) the free gaps of the list alone tighten the
 * weights, as the penalized runs' do: the others are at least delta/4 = V^2/(4A) away, where their
 * flights' tolerances rtol (G + Gdot^2/(2A)) are no tighter than those of q's own scale L = V^2/A by
 * more than a few times, yet the weights of a step change with the list, and with them its steps and
 * round-off: such a run's numbers differ from every constraint's weights at the tolerances (its
 * discrete outcomes could, near a tolerance's edge; the reason the list starts at PL_NEAR_FROM, whose
 * runs below it are unchanged). */
static int error_weights(double t, const double *y, double *w, void *user)
{
    solver *s = user;
    double rtol = s->rtol;
    double *tol = s->tol, *fp = s->fp_geo;
    pl_contact *c = s->c_geo;
    for (size_t j = 0; j < s->n; j++) {
        tol[j] = rtol * (fabs(y[j]) + s->L);
        tol[s->n + j] = rtol * (fabs(y[s->n + j]) + s->V);
    }
    tol[2 * s->n] = rtol * (fabs(GAMMA(y, s)) + 1.0);
    pl_model_velocity_map(s->model, t, Q(y), V(y, s), fp, NULL, NULL, NULL);
    for (size_t k = 0, count = pl_near_count(&s->nl); k < count; k++) {
        size_t i = pl_near_at(&s->nl, k);
        if (s->sliding[i])
            continue;
        c->gdot = gap_rate(s, i, t, Q(y), fp, &c->gap);
        double g = fabs(c->gap.g), gd = fabs(c->gdot);
        double tol_g = rtol * (g + gd * gd / (2.0 * s->A) + s->tol_g);
        double tol_gd = rtol * (gd + sqrt(2.0 * s->A * g) + s->tol_v);
        pl_tighten_for_gap(tol, s->n, &c->gap, tol_g, tol_gd);
    }
    for (size_t j = 0; j < s->N; j++)
        w[j] = 1.0 / fmax(tol[j], 100.0 * DBL_EPSILON * fabs(y[j]));
    return 0;
}

/* The tolerance on G_i = 0 at (t, q): tol_g, or 16 ulps of the terms of G_i if coarser.  A moving
 * constraint is known only to |G_t| eps |t| (the table: 1.3e-12 at t = 2.8e3, against tol_g = 5e-13):
 * tests of G_i against tol_g alone lost touches and landings there. */
static double gap_roundoff(const solver *s, const pl_gap *g, double t, const double *q)
{
    return 16.0 * DBL_EPSILON * pl_gap_terms(g, t, q, s->n);
}

static double gap_tol(const solver *s, const pl_gap *g, double t, const double *q)
{
    return fmax(s->tol_g, gap_roundoff(s, g, t, q));
}

/* ---- records ------------------------------------------------------------------------------- */

/* Append a row whose gaps (and forces) are filled at the constraints evaluated (the neighbour list's,
 * or every one).  With a list, sparse contacts store the list's constraints in contact: those out of
 * it have G >= delta - drift > 0 and no force, which sparse contacts do not store (pl_contact_in), so
 * their gaps are not evaluated; dense contacts (every G in every row, --contacts dense) have them
 * evaluated here, their forces 0. */
static pl_status append_row(solver *s, double t, const double *y, double *row, pl_error *err)
{
    size_t n = s->n, m = s->m;
    if (!s->nl.near)
        return pl_solution_append_row(s->sol, row, err);
    if (s->sol->contacts != PL_CONTACTS_DENSE)
        return pl_solution_append_row_of(s->sol, row, s->nl.list, s->nl.nlist, err);
    pl_gap *g = &s->c_geo->gap;
    for (size_t i = 0; i < m; i++)
        if (!s->nl.near[i]) {
            gap_of(s, i, t, Q(y), g);
            row[pl_col_g(n, m) + i] = g->g;
            row[pl_col_force(n, m) + i] = 0.0;
        }
    return pl_solution_append_row(s->sol, row, err);
}

static pl_status record_row(void *user, double t, const double *y, pl_error *err)
{
    solver *s = user;
    size_t n = s->n, m = s->m;
    double *row = s->row, *ac = s->ac_row;
    row[0] = t;
    row[1] = GAMMA(y, s);
    memcpy(row + 2, y, 2 * n * sizeof *row);
    double *fp = s->fp_geo;
    pl_contact *c = s->c_geo;
    pl_model_velocity_map(s->model, t, Q(y), V(y, s), fp, NULL, NULL, NULL);
    for (size_t k = 0, count = pl_near_count(&s->nl); k < count; k++) {
        size_t i = pl_near_at(&s->nl, k);
        c->gdot = gap_rate(s, i, t, Q(y), fp, &c->gap);
        row[pl_col_g(n, m) + i] = c->gap.g;
        s->prev_gdot[i] = c->gdot;
    }
    sliding_forces(s, t, Q(y), V(y, s), row + pl_col_force(n, m), 1, ac);
    return append_row(s, t, y, row, err);
}

/* The resolution of the time of event e (pl_time_resolution): an impact's from the round-off of the
 * gap (its terms in gap) over the rate it came in with; a slide start's that of the event at its
 * time (the impact or landing it follows; t's own ulp at the start of the run); a lift-off's from
 * the round-off of the sliding force, PL_RESOLUTION_ULPS ulps of its largest value along the slide
 * (the size of the terms that cancel where it vanishes), over its rate on the secant from the last
 * row before it, at most the span of the rows before it whose force lies within that round-off;
 * unknown (NAN) for a Zeno point, an extrapolation. */
static double event_resolution(const solver *s, const pl_event *e, const pl_gap *gap)
{
    const pl_solution *sol = s->sol;
    switch (e->kind) {
    case PL_EVENT_IMPACT: return pl_time_resolution(pl_gap_terms(gap, e->t, e->q, s->n), e->t, e->gdot_before);
    case PL_EVENT_SLIDE_START:
        for (size_t k = sol->nevents - 1; k-- > 0 && sol->events[k].t == e->t;)
            if (sol->events[k].kind != PL_EVENT_SLIDE_START)
                return sol->events[k].t_resolution;
        return DBL_EPSILON * fabs(e->t);
    case PL_EVENT_LIFT_OFF: {
        size_t i = e->constraint, k = sol->traj.nrows;
        while (k > 0 && pl_table_row(&sol->traj, k - 1)[0] >= e->t)
            k--;
        if (k == 0)
            return NAN;
        /* A force that fades into its round-off before it crosses 0 (a slide on which the load
         * vanishes smoothly: schatzman at xi = 5, 2e-13, then 1e-55 or 3e-143, then rows of -0) has
         * no rate to speak of on the secant (resolutions of 5.6e36 and inf were written): the lift-off
         * lies somewhere in the rows where the force is within its round-off, and their span bounds
         * its resolution.  The secant is taken from the last row with a force. */
        size_t last = k, end = k;
        while (end > 0 && pl_solution_force_at(sol, end - 1, i) == 0.0)
            end--;
        double largest = 0.0;
        for (k = end; k > 0 && pl_solution_force_at(sol, k - 1, i) != 0.0; k--)
            largest = fmax(largest, fabs(pl_solution_force_at(sol, k - 1, i)));
        if (end == 0 || !(largest > 0.0))
            return NAN; /* no row before it holds the slide's force */
        const double *before = pl_table_row(&sol->traj, end - 1);
        double rate = pl_solution_force_at(sol, end - 1, i) / (e->t - before[0]);
        double noise = PL_RESOLUTION_ULPS * DBL_EPSILON * largest, quiet = e->t;
        for (size_t r = last; r > k && fabs(pl_solution_force_at(sol, r - 1, i)) <= noise; r--)
            quiet = pl_table_row(&sol->traj, r - 1)[0];
        double secant = pl_time_resolution(largest, e->t, rate);
        return quiet < e->t ? fmin(secant, e->t - quiet + DBL_EPSILON * fabs(e->t)) : secant;
    }
    default: return NAN;
    }
}

/* Append an event of kind at t for constraint i, its state from y_before and y_after (*out: valid
 * until the next event is added). */
static pl_status add_event(solver *s, pl_event_kind kind, double t, size_t i, const double *y_before,
                           const double *y_after, pl_event **out, pl_error *err)
{
    if ((long)s->sol->nevents >= MAX_EVENTS)
        return pl_fail(err, PL_ERR_SOLVER, "more than %ld events by t = %.17g", MAX_EVENTS, t);
    pl_event *e;
    pl_status st = pl_solution_new_event(s->sol, kind, t, i, &e, err);
    if (st != PL_OK)
        return st;
    memcpy(e->q, Q(y_after), s->n * sizeof *e->q);
    memcpy(e->v_before, V(y_before, s), s->n * sizeof *e->v_before);
    memcpy(e->v_after, V(y_after, s), s->n * sizeof *e->v_after);
    e->gamma_before = GAMMA(y_before, s);
    e->gamma_after = GAMMA(y_after, s);
    double *fp = s->fp_geo;
    pl_contact *c = s->c_geo;
    pl_model_velocity_map(s->model, t, Q(y_before), V(y_before, s), fp, NULL, NULL, NULL);
    c->gdot = gap_rate(s, i, t, Q(y_before), fp, &c->gap);
    e->gdot_before = c->gdot;
    pl_model_velocity_map(s->model, t, Q(y_after), V(y_after, s), fp, NULL, NULL, NULL);
    c->gdot = gap_rate(s, i, t, Q(y_after), fp, &c->gap);
    e->gdot_after = c->gdot;
    e->t_resolution = event_resolution(s, e, &c->gap);
    if (out)
        *out = e;
    return PL_OK;
}

/* ---- contact sets ---------------------------------------------------------------------------- */

/* Put the state exactly on G_i = 0 (and, unless positions_only, Gdot_i = 0) for i in set
 * (corrections of the order of the tolerances), along the directions w_i of the contact forces. */
static int project_state(solver *s, double t, double *y, const int *set, int positions_only)
{
    contact_set *cs = &s->cs_project;
    if (gather(s, t, Q(y), V(y, s), set, cs, 1))
        return -1;
    if (cs->k == 0)
        return 0;
    double *b = cs->b, *a = cs->a;
    for (size_t r = 0; r < cs->k; r++)
        b[r] = cs->c[r].gap.g;
    int bad = pl_solve_small(cs->k, cs->W, b, a); /* overwrites Wq: gathered again below */
    if (bad)
        return bad;
    for (size_t r = 0; r < cs->k; r++)
        sub_along(&cs->c[r], a[r], y);
    if (positions_only)
        return 0;
    if (gather(s, t, Q(y), V(y, s), set, cs, 0))
        return -1;
    b = cs->b, a = cs->a;
    for (size_t r = 0; r < cs->k; r++)
        b[r] = cs->c[r].gdot;
    if ((bad = pl_solve_small(cs->k, cs->W, b, a)) != 0)
        return bad;
    for (size_t r = 0; r < cs->k; r++)
        sub_along(&cs->c[r], a[r], y + s->n);
    return 0;
}

/* The failure of project_state (its pl_solve_small code) at t. */
static pl_status projection_failed(int code, double t, pl_error *err)
{
    if (code < 0)
        return pl_fail(err, PL_ERR_NOMEM, "limit solution: out of memory projecting onto the constraints at t = %.17g",
                       t);
    return pl_fail(err, PL_ERR_SOLVER, "limit solution: singular contact coupling at t = %.17g", t);
}

/* The sliding forces lambda of the LCP over the constraints flagged in set (m each, 0 outside it):
 * pl_sliding_force, or over supports for a model of many bodies (pl_sparse_set_lcp). */
static pl_status sliding_lcp(solver *s, double t, const double *q, const double *v, const int *set, double *lambda,
                             double *fsm, pl_error *err)
{
    if (!s->sparse)
        return pl_sliding_force(s->model, s->work, &s->cs_sliding.dense, t, q, v, set, lambda, fsm, err);
    pl_sparse_set *ss = &s->cs_sliding.sparse;
    size_t k = 0, formed = 0;
    for (size_t i = 0; i < s->m; i++) {
        lambda[i] = fsm[i] = 0.0;
        if (set[i])
            s->members[k++] = i;
    }
    if (pl_sparse_set_fill(ss, s->model, t, q, v, s->members, k, &formed))
        return pl_fail(err, PL_ERR_NOMEM, "limit solution: out of memory for the couplings of %zu contacts", k);
    pl_status st = pl_sparse_set_lcp(ss, s->model, s->work, t, q, v, err);
    for (size_t a = 0; st == PL_OK && a < k; a++)
        lambda[ss->idx[a]] = ss->z[a];
    return st;
}

/* Decide which of the candidate constraints (on their boundary with zero normal velocity) are in
 * sustained contact: the LCP of sliding.h.  Emits slide_start for those that join and lift_off
 * for those that leave. */
static pl_status resolve_contacts(solver *s, double t, double *y, const int *candidates, pl_error *err)
{
    double *lambda = s->lambda_resolve, *fsm = s->fsm_resolve;
    pl_status st = sliding_lcp(s, t, Q(y), V(y, s), candidates, lambda, fsm, err);
    if (st != PL_OK)
        return st;
    int *next = s->next;
    for (size_t i = 0; i < s->m; i++)
        next[i] = candidates[i] && lambda[i] > s->tol_lambda * s->A;
    int bad = project_state(s, t, y, next, 0);
    if (bad)
        return projection_failed(bad, t, err);
    int changed = 0;
    for (size_t i = 0; i < s->m && st == PL_OK; i++) {
        if (next[i] == s->sliding[i])
            continue;
        int was = s->sliding[i];
        s->sliding[i] = next[i];
        changed = 1;
        st = add_event(s, was ? PL_EVENT_LIFT_OFF : PL_EVENT_SLIDE_START, t, i, y, y, NULL, err);
    }
    if (changed) /* the list once for all the changes: each is an O(m) pass */
        sliding_changed(s);
    return st;
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
static int unresolvable_rebound(solver *s, double t, const double *y, size_t i, double gdot);
static double gap_accel(solver *s, size_t i, double t, const double *y);

static int zeno_check(solver *s, size_t j, const double *y, double *y_acc, double *t_acc, size_t *count,
                      double *ratio)
{
    const pl_solution *res = s->sol;
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
    /* A law whose restitution depends on the impact speed (Hunt-Crossley: 1 - e ~ c V as V -> 0) makes
     * no geometric sequence: its flights shrink like 1/k and never accumulate, whatever ratios of
     * neighbouring flights say; no accumulation point is extrapolated for it. */
    const pl_contact_law *law = &s->model->law[j];
    if (law->type->restitution) {
        double e0 = law->type->restitution(law->p, fabs(seq[0]->gdot_before));
        double e3 = law->type->restitution(law->p, fabs(seq[3]->gdot_before));
        if (!(fabs(e0 - e3) <= 1e-12))
            return 0;
    }
    double f0 = seq[0]->t - seq[1]->t, f1 = seq[1]->t - seq[2]->t, f2 = seq[2]->t - seq[3]->t;
    double r = f0 / f1, r_prev = f1 / f2;
    int geometric = r < 1.0 && r > 0.0 && fabs(r - r_prev) <= 1e-2 * r;
    int unresolved = f0 < 1e4 * DBL_EPSILON * fmax(1.0, fabs(seq[0]->t));
    int slow = fabs(seq[0]->gdot_before) <= 1e3 * s->tol_v ||
               unresolvable_rebound(s, seq[0]->t, y, j, seq[0]->gdot_after);
    double tail = f0 * r / (1.0 - r);
    if (!geometric || !(tail <= ZENO_TAIL * s->L / s->V || slow || unresolved))
        return unresolved ? -1 : 0;
    /* the state right after the last two impacts */
    double *x1 = s->x1, *x0 = s->x0;
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

/* The gap acceleration of constraint i along the motion with the forces of the constraints in
 * sustained contact: D_i + grad G_i . (dF_p/dv) M^-1 sum_j grad G_j lambda_j.  The free D_i alone
 * misses what holds the bodies: a disk falling onto one resting on the floor has D = 0 for their
 * pair (both fall freely), and its tiny rebound was taken as a flight that never came back. */
static double gap_accel(solver *s, size_t i, double t, const double *y)
{
    size_t n = s->n;
    double D = pl_model_free_gap_accel(s->model, s->work, i, t, Q(y), V(y, s));
    double *ac = s->ac_accel, *fp = s->fp_accel, *fp_v = s->fp_v_accel;
    if (sliding_forces(s, t, Q(y), V(y, s), NULL, 0, ac))
        return D;
    pl_gap *g = s->g_accel;
    gap_of(s, i, t, Q(y), g);
    size_t count = g->support ? g->nsupport : n;
    /* over the gradient's entries (the rows of zeros add nothing); for F_p = v, dF_p/dv = I: row j's
     * one term, grad_j ac_j (its zeros add nothing either) */
    if (!s->model->type->velocity_map) {
        for (size_t e = 0; e < count; e++)
            D += g->grad[e] * ac[pl_gap_dof(g, e)];
        return D;
    }
    pl_model_velocity_map(s->model, t, Q(y), V(y, s), fp, NULL, fp_v, NULL);
    for (size_t e = 0; e < count; e++)
        for (size_t k = 0, j = pl_gap_dof(g, e); k < n; k++)
            D += g->grad[e] * fp_v[j * n + k] * ac[k];
    return D;
}

/* A rebound at gap rate gdot > 0 against a gap acceleration D < 0 (with the forces of sustained
 * contact) rises gdot^2/(2|D|) for 2 gdot/|D|.  Below the gap tolerance, or shorter than the resolution of event times (1e4 ulps
 * of t), it cannot be followed: the constraint is treated as touched (the LCP decides). */
static int unresolvable_rebound(solver *s, double t, const double *y, size_t i, double gdot)
{
    if (!(gdot > 0.0))
        return 0;
    double D = gap_accel(s, i, t, y);
    /* A hop within a few gap tolerances cannot be followed (a table at t ~ 2e3 is known to 1e-12,
     * more than the hop of a rebound at 5e-6 m/s, whose landing then went unseen). */
    pl_gap *g = s->g_rebound;
    gap_of(s, i, t, Q(y), g);
    double hop = gdot * gdot / (-2.0 * D);
    return D < 0.0 && (hop <= fmax(s->tol_g, 8.0 * gap_roundoff(s, g, t, Q(y))) || 2.0 * gdot / -D < 1e4 * DBL_EPSILON * fmax(1.0, fabs(t)));
}

/* ---- the tail of bounces that never accumulate --------------------------------------------------- */

/* Under Hunt-Crossley the impacts of a contact pressed by a constant force never accumulate (1 - e ~ c V:
 * v_k ~ 1/(c k), flights like 1/k; docs/laws.md): the ball with c = 1 s/m has about 2e20 impacts on [0, 10],
 * which no event loop resolves.  After an impact of j that sent the bodies back at gap rate u0, once
 * x0 = c u0 is small enough that the closed form's time error (2/(c |D|)) x0^3 is below rtol L/V, the
 * bounces to t-end are summed (pl_hunt_crossley_bounces) when nothing else can happen before it: j alone
 * in contact, a fixed obstacle (G_t, G_tt, grad G_t zero), F_p = v, a motion along w_j only, a free
 * acceleration along w_j that does not depend on t or on the velocity's sign, every other gap clear of
 * the hops.  The state at t-end is then the last flight's, Gamma adds every impact's variation; the
 * trajectory between the two rows is the interpolant of hops no higher than u0^2/(2 |D|).  Returns 1 if
 * it summed the tail, y then holding the state at t-end (from y0 at t0, after the impact e), else 0. */
static int bounce_tail(solver *s, double t0, const double *y0, size_t j, const pl_event *e, double *y)
{
    memcpy(y, y0, s->N * sizeof *y);
    double *t = &t0;
    const pl_model *model = s->model;
    const pl_contact_law *law = &model->law[j];
    int ic = pl_law_param_index(law->type, "c");
    if (law->type != &pl_law_hunt_crossley || ic < 0 || !(law->p[ic] > 0.0) || model->type->law_at)
        return 0;
    for (size_t i = 0; i < s->m; i++)
        if (s->sliding[i])
            return 0;
    size_t n = s->n;
    double c = law->p[ic], t_end = s->loop.t_end, *fp = s->fp_geo, *q = Q(y), *v = V(y, s);
    pl_contact *ct = s->c_tail;
    pl_model_velocity_map(model, *t, q, v, fp, NULL, NULL, NULL);
    for (size_t k = 0; k < n; k++)
        if (fabs(fp[k] - v[k]) > 4.0 * DBL_EPSILON * fabs(v[k]))
            return 0;
    pl_model_contact_at(model, s->work, j, *t, q, fp, ct);
    double u0 = ct->gdot, theta = fmin(0.01, cbrt(0.5 * s->rtol * c * s->A * s->L / s->V));
    if (!(u0 > 0.0) || !(c * u0 <= theta) || ct->gap.g_t != 0.0 || ct->gap.g_tt != 0.0)
        return 0;
    for (size_t k = 0; k < n; k++)
        if (ct->gap.grad_t[k] != 0.0 || fabs(v[k] - u0 * ct->m_eff * ct->w[k]) > s->tol_v)
            return 0;
    /* the free acceleration: along w_j, the same at t-end and with the velocity reversed */
    double *a = s->a_tail, *later = s->a_tail_later, D = 0.0;
    pl_model_accel(model, s->work, *t, q, v, a, NULL, NULL);
    for (size_t k = 0; k < n; k++)
        D += ct->gap.grad[k] * a[k];
    for (size_t k = 0; k < n; k++)
        fp[k] = -v[k];
    pl_model_accel(model, s->work, t_end, q, fp, later, NULL, NULL);
    for (size_t k = 0; k < n; k++)
        if (!(fabs(later[k] - a[k]) <= 1e-12 * s->A) || !(fabs(a[k] - D * ct->m_eff * ct->w[k]) <= 1e-12 * s->A))
            return 0;
    double hop = u0 * u0 / (-2.0 * D);
    if (!(D < 0.0))
        return 0;
    pl_gap *g = s->g_rebound;
    for (size_t i = 0; i < s->m; i++) {
        if (i == j)
            continue;
        gap_of(s, i, *t, q, g);
        if (!(g->g > hop + gap_tol(s, g, *t, q)))
            return 0;
    }
    pl_bounces b;
    if (pl_hunt_crossley_bounces(c, -D, u0, t_end - *t, &b) != 0 || !(b.impacts >= 1.0))
        return 0;
    /* Gamma grows by the impacts' variations, each |w| m_eff (u_in + u_out), proportional to the resolved
     * impact's own (u_in = u_out at the turning points of the flights). */
    double per_speed = (e->gamma_after - e->gamma_before) / (u0 - e->gdot_before);
    /* the last flight, at most 2 u_last/|D| long (t_last is known to the resolution of t only) */
    double tau = fmin(t_end - *t - b.t_last, -2.0 * b.u_last / D), gap = fmax(0.0, b.u_last * tau + 0.5 * D * tau * tau);
    double gdot = b.u_last + D * tau;
    GAMMA(y, s) += (t_end - *t) + per_speed * (2.0 * b.speed_sum - u0 + b.u_last);
    for (size_t k = 0; k < n; k++) {
        q[k] += gap * ct->m_eff * ct->w[k];
        v[k] = gdot * ct->m_eff * ct->w[k];
    }
    pl_bounce_tail *tail = &s->sol->tail;
    if (!tail->found)
        *tail = (pl_bounce_tail){.found = 1, .constraint = j, .t_start = *t, .x_start = c * u0, .impacts = b.impacts,
                                 .t_last = *t + b.t_last, .speed_last = b.u_last, .time_error = b.time_error,
                                 .speed_error = b.speed_error};
    return 1;
}

static pl_status impact(solver *s, double *t, double *y, size_t j, pl_error *err)
{
    size_t n = s->n, m = s->m;
    int *part = s->part;
    pl_gap *g = &s->c_geo->gap;
    size_t nnear = pl_near_count(&s->nl); /* those out of the list are clear of their boundary */
    if (s->nl.near)
        memset(part, 0, m * sizeof *part);
    for (size_t k = 0; k < nnear; k++) {
        size_t i = pl_near_at(&s->nl, k);
        gap_of(s, i, *t, Q(y), g);
        part[i] = i == j || s->sliding[i] || fabs(g->g) <= gap_tol(s, g, *t, Q(y));
    }
    /* The impact happens on the boundary G = 0.  Putting the participants there moves the bodies by
     * up to their tolerances, which can bring a neighbour within its own (a disk just rebounding off
     * another, 8e-13 away, was pushed to G < 0 and crossed without a contact): it takes part too. */
    for (int added = 1; added;) {
        int bad = project_state(s, *t, y, part, 1);
        if (bad)
            return projection_failed(bad, *t, err);
        added = 0;
        for (size_t k = 0; k < nnear; k++) {
            size_t i = pl_near_at(&s->nl, k);
            if (part[i])
                continue;
            gap_of(s, i, *t, Q(y), g);
            if (g->g <= gap_tol(s, g, *t, Q(y)))
                part[i] = added = 1;
        }
    }
    pl_impact im;
    pl_status st = pl_impact_solve(s->model, s->impact_work, *t, Q(y), V(y, s), part, &im, err);
    if (st != PL_OK) {
        pl_impact_free(&im);
        return st;
    }
    s->sol->stats.fast_steps += (long)im.fast_steps;
    if ((long)im.state_size > s->sol->stats.state_size) /* the largest fast system */
        s->sol->stats.state_size = (long)im.state_size;
    double *before = s->before;
    memcpy(before, y, s->N * sizeof *y);
    /* The jump as an arc in s: rows at the same t and q, between the rows before and after it,
     * with the velocity and Gamma of the fast solution (no sliding force on them). */
    for (size_t r = 1; r + 1 < im.arc.nrows; r++) {
        const double *a = pl_table_row(&im.arc, r);
        double *row = s->arc_row;
        if (r == 1) { /* the gaps at the impact's (t, q), the same in every row: evaluated once */
            memset(row, 0, pl_ncols(n, m) * sizeof *row);
            row[0] = *t;
            memcpy(row + 2, Q(y), n * sizeof *row);
            for (size_t k = 0; k < nnear; k++) {
                size_t i = pl_near_at(&s->nl, k);
                gap_of(s, i, *t, Q(y), g);
                row[pl_col_g(n, m) + i] = g->g;
            }
        }
        row[1] = GAMMA(y, s) + a[1];
        memcpy(row + 2 + n, a + 2, n * sizeof *row);
        if ((st = append_row(s, *t, y, row, err)) != PL_OK)
            goto done;
    }
    memcpy(V(y, s), im.v_plus, n * sizeof *y);
    GAMMA(y, s) += im.delta_gamma;
    pl_event *e;
    if ((st = add_event(s, PL_EVENT_IMPACT, *t, j, before, y, &e, err)) != PL_OK)
        goto done;
    memcpy(e->impulse, im.impulse, m * sizeof *e->impulse);
    for (size_t i = 0; i < m; i++)
        e->participants[i] = part[i] != 0;
    e->s_exit = im.s_exit;

    double *y_acc = s->y_acc, t_acc, ratio;
    size_t count;
    int zeno = zeno_check(s, j, y, y_acc, &t_acc, &count, &ratio);
    if (zeno < 0) {
        st = pl_fail(err, PL_ERR_SOLVER, "impacts of constraint %zu accumulate near t = %.17g but not geometrically",
                     j + 1, *t);
        goto done;
    }
    int *candidates = s->cand_impact;
    if (!zeno && bounce_tail(s, *t, y, j, e, y_acc)) {
        /* the row after the impact, then the state at t-end */
        if ((st = pl_loop_record(&s->loop, *t, y, err)) != PL_OK)
            goto done;
        memcpy(y, y_acc, s->N * sizeof *y);
        *t = s->loop.t_end;
        memset(candidates, 0, m * sizeof *candidates);
        st = resolve_contacts(s, *t, y, candidates, err);
        goto done;
    }
    if (zeno) {
        /* Continue from the accumulation point (Theorem 7(b)), on the boundary of j.  One past t-end
         * ends the run at t-end in the state it reaches, Gamma without the time past t-end: its
         * remaining bounces are below the tolerances, which the extrapolation assumes already (their
         * time below 1e-9 V/A, or their speeds below 1e-6 V, or their hops unresolvable), and no
         * event lies beyond t-end (docs/methods.md). */
        if ((st = pl_loop_record(&s->loop, *t, y, err)) != PL_OK)
            goto done;
        double *y_before = s->y_before;
        memcpy(y_before, y, s->N * sizeof *y);
        memcpy(y, y_acc, s->N * sizeof *y);
        *t = t_acc;
        if (t_acc > s->loop.t_end) {
            GAMMA(y, s) -= t_acc - s->loop.t_end;
            *t = s->loop.t_end;
        }
        /* Candidates for the sustained contact: j, the sliding ones, and any other constraint left
         * on its boundary at rest there (the corner of the wedge under a force into it: without it,
         * the second wall was crossed at once and the steps shrank to nothing). */
        double *fp = s->fp_geo;
        pl_contact *c = s->c_geo;
        pl_model_velocity_map(s->model, *t, Q(y), V(y, s), fp, NULL, NULL, NULL);
        if (s->nl.near)
            memset(candidates, 0, m * sizeof *candidates);
        for (size_t k = 0; k < nnear; k++) {
            size_t i = pl_near_at(&s->nl, k);
            c->gdot = gap_rate(s, i, *t, Q(y), fp, &c->gap);
            candidates[i] = i == j || s->sliding[i] ||
                            (fabs(c->gap.g) <= gap_tol(s, &c->gap, *t, Q(y)) && fabs(c->gdot) <= s->tol_v);
        }
        int bad = project_state(s, *t, y, candidates, 0);
        if (bad) {
            st = projection_failed(bad, *t, err);
            goto done;
        }
        pl_zeno_point *z = &s->sol->zeno;
        if (!z->found) { /* the summary reports the first one; every one is an event */
            z->found = 1;
            z->constraint = j;
            z->impacts_resolved = count;
            z->t_accumulation = t_acc;
            z->ratio = ratio;
            memcpy(z->q, Q(y), n * sizeof *y);
            memcpy(z->v, V(y, s), n * sizeof *y);
        }
        if ((st = add_event(s, PL_EVENT_ZENO, *t, j, y_before, y, NULL, err)) != PL_OK)
            goto done;
    } else {
        /* Constraints left on their boundary without normal velocity may be in sustained contact. */
        double *fp = s->fp_geo;
        pl_contact *c = s->c_geo;
        pl_model_velocity_map(s->model, *t, Q(y), V(y, s), fp, NULL, NULL, NULL);
        if (s->nl.near)
            memset(candidates, 0, m * sizeof *candidates);
        for (size_t k = 0; k < nnear; k++) {
            size_t i = pl_near_at(&s->nl, k);
            c->gdot = gap_rate(s, i, *t, Q(y), fp, &c->gap);
            candidates[i] = part[i] && (im.settled[i] || fabs(c->gdot) <= s->tol_v ||
                                        unresolvable_rebound(s, *t, y, i, c->gdot));
        }
    }
    st = resolve_contacts(s, *t, y, candidates, err);
done:
    pl_impact_free(&im);
    return st;
}

/* ---- integration ------------------------------------------------------------------------------ */

/* Contacts at a time t where some gaps are 0: impacts first (the fastest gap rate decides which
 * constraint triggers; the others on their boundary take part), then touches (Gdot = 0), which
 * join the sustained contact if the LCP presses them. */
static pl_status contacts_at(solver *s, double *t, double *y, const int *touching, pl_error *err)
{
    double *fp = s->fp_geo, worst = 0.0;
    pl_contact *c = s->c_geo;
    size_t j = 0;
    int any_impact = 0, *candidates = s->cand_contacts;
    pl_model_velocity_map(s->model, *t, Q(y), V(y, s), fp, NULL, NULL, NULL);
    if (s->nl.near) /* touching: read at the list's constraints, the others clear of their boundary */
        memcpy(candidates, s->sliding, s->m * sizeof *candidates);
    for (size_t k = 0, count = pl_near_count(&s->nl); k < count; k++) {
        size_t i = pl_near_at(&s->nl, k);
        candidates[i] = s->sliding[i];
        if (!touching[i])
            continue;
        c->gdot = gap_rate(s, i, *t, Q(y), fp, &c->gap);
        if (c->gdot < -s->tol_v) {
            if (!any_impact || c->gdot < worst)
                worst = c->gdot, j = i;
            any_impact = 1;
        } else if (c->gdot <= s->tol_v || unresolvable_rebound(s, *t, y, i, c->gdot)) {
            candidates[i] = 1; /* a touch, or a hop too small to follow: the LCP decides */
        }
    }
    if (any_impact)
        return impact(s, t, y, j, err);
    return resolve_contacts(s, *t, y, candidates, err);
}

/* G_i or Gdot_i at t inside the last step, on the stepper's dense output (or its cheap
 * interpolant, to search for an extremum). */
typedef struct {
    solver *s;
    size_t i;
    int rate;
    int cheap;
} dense_fn;


/* The cheap interpolant at t, from the states kept for the step's sample points (missed_contact
 * resets them): every free gap is sampled at the same points, and the interpolant of the whole state,
 * O(n) each, for each of m gaps was most of a step of many bodies.  The same numbers. */
static const double *dense_cheap_kept(solver *s, double t)
{
    for (size_t k = 0; k < s->nkept; k++)
        if (s->kept_t[k] == t)
            return s->kept_y + k * s->N;
    pl_stepper *st = s->loop.stepper;
    const double *y = st->dense_cheap(st, t);
    if (!y || s->nkept == FLIGHT_SAMPLES)
        return y;
    s->kept_t[s->nkept] = t;
    memcpy(s->kept_y + s->nkept * s->N, y, s->N * sizeof *y);
    return s->kept_y + s->nkept++ * s->N;
}

static double dense_gap(double t, void *p)
{
    dense_fn *d = p;
    solver *s = d->s;
    pl_stepper *st = s->loop.stepper;
    const double *y = d->cheap ? dense_cheap_kept(s, t) : st->dense(st, t);
    if (!y)
        return NAN;
    const double *fp = V(y, s); /* F_p = v read in place: its copy, O(n) per gap and sample, was most of a step */
    pl_contact *c = s->c_dense;
    if (s->model->type->velocity_map) {
        pl_model_velocity_map(s->model, t, Q(y), V(y, s), s->fp_dense, NULL, NULL, NULL);
        fp = s->fp_dense;
    }
    c->gdot = gap_rate(s, d->i, t, Q(y), fp, &c->gap);
    return d->rate ? c->gdot : c->gap.g;
}

/* The first extremum of G_i in [t0, t1] beyond a level: a maximum (side = +1: Gdot_i from + to -)
 * with G_i > level, or a minimum (side = -1: Gdot_i from - to +) with G_i < -level.  Gdot_i is
 * sampled at FLIGHT_SAMPLES points on the interpolant (exact for a parabola; a long flight step can
 * hold several extrema of a gap whose constraint moves), gd0 and gd1 its values at the ends; the
 * extremum is located by Brent on the interpolant and G_i evaluated there on the dense output.
 * NAN if there is none; *start is the sample it follows. */
static double gap_extremum(solver *s, size_t i, double t0, double t1, double gd0, double gd1, int side, double level,
                           double *start)
{
    dense_fn gap = {s, i, 0, 0}, rate = {s, i, 1, 1};
    double a = t0, gd_a = gd0;
    for (int j = 1; j <= FLIGHT_SAMPLES && t1 > t0; j++) {
        double b = j == FLIGHT_SAMPLES ? t1 : t0 + (t1 - t0) * j / FLIGHT_SAMPLES;
        double gd_b = j == FLIGHT_SAMPLES ? gd1 : dense_gap(b, &rate);
        int turns = side > 0 ? gd_a >= 0.0 && gd_b < 0.0 : gd_a < 0.0 && gd_b >= 0.0;
        if (turns) {
            double tm = pl_brent(dense_gap, &rate, a, b, 0);
            if (!isnan(tm) && side * dense_gap(tm, &gap) > level) {
                *start = a;
                return tm;
            }
        }
        a = b, gd_a = gd_b;
    }
    return NAN;
}

/* Rootfinding sees only sign changes of the gaps at step ends.  A free gap that dips below
 * -tol_miss = -1e-9 L (well beyond the drift of a sustained contact it has just left) and back
 * within the last step has a minimum there (gap_extremum); its crossing is found on the dense
 * output.  Returns 1 with the earliest
 * such crossing, 0 if none, -1 (with err) if a free gap is below -tol_miss where no crossing can be
 * bracketed. */
static int missed_contact(solver *s, double t, const double *y, double *t_cross, pl_error *err)
{
    int found = 0;
    double *fp = s->fp_missed, t0 = s->loop.prev_t;
    s->missed_constraint = -1;
    s->nkept = 0; /* a new step: its sample points' states */
    pl_contact *c = s->c_missed;
    pl_model_velocity_map(s->model, t, Q(y), V(y, s), fp, NULL, NULL, NULL);
    for (size_t k = 0, count = pl_near_count(&s->nl); k < count; k++) {
        size_t i = pl_near_at(&s->nl, k);
        if (s->sliding[i])
            continue;
        c->gdot = gap_rate(s, i, t, Q(y), fp, &c->gap);
        if (!isfinite(c->gap.g) || !isfinite(c->gdot)) { /* NaN compares false: no crossing would be seen */
            pl_fail(err, PL_ERR_SOLVER, "limit solution: constraint %zu is not finite at t = %.17g (G = %g, Gdot = "
                    "%g): the model's gap", i + 1, t, c->gap.g, c->gdot);
            return -1;
        }
        dense_fn gap = {s, i, 0, 0}, rate = {s, i, 1, 1};
        double te = t, lo = t0, a = t0, tol_miss = 1e-9 * s->L;
        if (c->gap.g >= -tol_miss) {
            /* a dip and back within the step: the minimum below -tol_miss */
            te = gap_extremum(s, i, t0, t, s->prev_gdot[i], c->gdot, -1, tol_miss, &a);
            if (isnan(te))
                continue;
            lo = a > t0 && dense_gap(a, &gap) > 0.0 ? a : t0;
        }
        /* A step that began on the constraint (G_i within round-off of 0, as after a lift-off,
         * where Gdot_i and Gddot_i vanish together) and ends below it left it first: the landing
         * is searched from the top of that hop, a maximum with G_i > 0 (none: G_i never rose). */
        if (!(dense_gap(lo, &gap) > 0.0))
            lo = gap_extremum(s, i, t0, te, dense_gap(t0, &rate), dense_gap(te, &rate), +1, 0.0, &a);
        double tc = isnan(lo) ? NAN : pl_brent(dense_gap, &gap, lo, te, 0);
        /* A free gap that began the step on the boundary, within the tolerance of missed crossings,
         * and went down without rising first: its contact is at the step's start (an event there
         * may have left it a few ulps below 0). */
        if (isnan(tc) && dense_gap(t0, &gap) >= -tol_miss) {
            tc = t0;
            if (!found || tc < *t_cross)
                s->missed_constraint = (long)i;
        }
        if (isnan(tc)) {
            pl_fail(err, PL_ERR_SOLVER, "limit solution: constraint %zu violated (G = %g) at t = %.17g", i + 1,
                    c->gap.g, t);
            return -1;
        }
        if (!found || tc < *t_cross)
            *t_cross = tc;
        found = 1;
    }
    return found;
}

/* The scan for missed crossings over the neighbour list, then the list's own reach: a step whose end
 * is beyond it (drift > delta) is cut where the drift is at most 3 delta/4 (pl_near_redo) unless a
 * crossing comes first, the list rebuilt there (event_hook: s->redo); a step within it that leaves
 * the list due (drift > delta/2) has it rebuilt at its end, before the row there. */
static int missed_near(solver *s, double t, const double *y, double *t_cross, pl_error *err)
{
    s->redo = 0;
    int found = missed_contact(s, t, y, t_cross, err);
    if (found < 0 || !s->nl.near)
        return found;
    double t_redo = pl_near_redo(&s->nl, s->loop.stepper, s->loop.prev_t, t, Q(y));
    if (!isnan(t_redo) && (!found || t_redo < *t_cross)) {
        s->redo = 1;
        s->missed_constraint = -1;
        *t_cross = t_redo;
        return 1;
    }
    if (!found && pl_near_due(&s->nl, t, Q(y)))
        near_rebuild(s, t, y, 0); /* the row at t follows */
    return found;
}

/* First step after a restart: no later than the top of a hop.  After an impact a constraint leaves
 * G = 0 with Gdot > 0 and may be turned back (D < 0) within a step the flight would otherwise
 * allow; the root finder sees no sign change for a gap that starts at 0, so the step must end
 * before the landing, at the top at the latest (time Gdot/|D|).  0: the stepper's own estimate. */
static double initial_step(void *user, pl_stepper *st, double t)
{
    solver *s = user;
    const double *y = st->y;
    double *fp = s->fp_geo, h = INFINITY;
    pl_contact *c = s->c_geo;
    pl_model_velocity_map(s->model, t, Q(y), V(y, s), fp, NULL, NULL, NULL);
    for (size_t k = 0, count = pl_near_count(&s->nl); k < count; k++) { /* the others are far from G = 0 */
        size_t i = pl_near_at(&s->nl, k);
        if (s->sliding[i])
            continue;
        c->gdot = gap_rate(s, i, t, Q(y), fp, &c->gap);
        if (fabs(c->gap.g) > fmax(gap_tol(s, &c->gap, t, Q(y)), 1e3 * DBL_EPSILON * s->L) || !(c->gdot > 0.0))
            continue;
        double D = pl_model_free_gap_accel(s->model, s->work, i, t, Q(y), V(y, s));
        if (D < 0.0)
            h = fmin(h, c->gdot / -D);
    }
    return isfinite(h) ? h : 0.0;
}

/* The loop's max_step hook: in flight, the case's forcing time scale (pl_model_max_step; usually
 * none), as in the penalty's flights; sustained contacts keep the long steps a long rest needs.  With a
 * neighbour list, no longer than the drift takes to reach 3 delta/4 at the present speeds
 * (pl_near_max_step), so that cuts of steps beyond the list's reach (missed_near) are rare. */
static double max_step(void *user, double t)
{
    solver *s = user;
    const double *y = s->loop.stepper->y;
    double near = pl_near_max_step(&s->nl, t, Q(y), V(y, s));
    double own = s->nslist > 0 ? 0.0 : pl_model_max_step(s->model, t);
    return near > 0.0 && (own == 0.0 || near < own) ? near : own; /* the shorter bound (0: none) */
}

/* The loop's `missed` hook (missed_near). */
static int missed_hook(void *user, double t, const double *y, int flag, double *t_cross, pl_error *err)
{
    (void)flag;
    return missed_near(user, t, y, t_cross, err);
}

/* The events at *t: at a missed crossing, the contact there; at a root, lift-offs (a force of
 * sustained contact reaching 0 from above) and contacts (a gap reaching 0 from above).  Contacts are
 * looked for among the neighbour list's constraints (the others are clear of their boundary). */
static pl_status events_at(solver *s, double *t, double *y, const int *rootsfound, int *changed, pl_error *err)
{
    int *touching = s->touching_event, *lifted = s->lifted, lift = 0, contact = 0;
    pl_status st;
    *changed = 1;
    if (!rootsfound) {
        /* The crossing is located to 4 ulps of t (Brent): the gap there is within that time's worth
         * of its rate (at t ~ 1e3 that exceeded the tolerance and a landing was lost). */
        double *fp = s->fp_geo;
        pl_contact *c = s->c_geo;
        /* A crossing taken at the step's start (missed_contact): the gap began within the tolerance
         * of missed crossings of the boundary and went down without rising above it first.  It
         * is put back on its boundary (with the constraints in sustained contact) and touches. */
        if (s->missed_constraint >= 0) {
            int *set = s->next;
            for (size_t i = 0; i < s->m; i++)
                set[i] = s->sliding[i] || (long)i == s->missed_constraint;
            int bad = project_state(s, *t, y, set, 1);
            if (bad)
                return projection_failed(bad, *t, err);
        }
        pl_model_velocity_map(s->model, *t, Q(y), V(y, s), fp, NULL, NULL, NULL);
        for (size_t k = 0, count = pl_near_count(&s->nl); k < count; k++) { /* contacts_at reads the list's */
            size_t i = pl_near_at(&s->nl, k);
            c->gdot = gap_rate(s, i, *t, Q(y), fp, &c->gap);
            double tol = fmax(gap_tol(s, &c->gap, *t, Q(y)), 1e3 * DBL_EPSILON * s->L) + 8.0 * DBL_EPSILON * fabs(*t * c->gdot);
            touching[i] = !s->sliding[i] && (fabs(c->gap.g) <= tol || (long)i == s->missed_constraint);
        }
        s->missed_constraint = -1;
        return contacts_at(s, t, y, touching, err);
    }
    for (size_t i = 0; i < s->m; i++) {
        lifted[i] = s->sliding[i] && rootsfound[i] < 0;
        touching[i] = !s->sliding[i] && rootsfound[i] < 0;
        lift |= lifted[i];
        contact |= touching[i];
    }
    if (lift) {
        int *candidates = s->cand_event;
        for (size_t i = 0; i < s->m; i++)
            candidates[i] = s->sliding[i] && !lifted[i];
        st = PL_OK;
        for (size_t i = 0; i < s->m && st == PL_OK; i++)
            if (lifted[i]) {
                s->sliding[i] = 0;
                st = add_event(s, PL_EVENT_LIFT_OFF, *t, i, y, y, NULL, err);
            }
        sliding_changed(s); /* once for all the lift-offs */
        if (st != PL_OK || (st = resolve_contacts(s, *t, y, candidates, err)) != PL_OK)
            return st;
    }
    if (contact) {
        pl_gap *g = &s->c_geo->gap;
        for (size_t k = 0, count = pl_near_count(&s->nl); k < count; k++) {
            size_t i = pl_near_at(&s->nl, k);
            gap_of(s, i, *t, Q(y), g);
            touching[i] |= !s->sliding[i] && fabs(g->g) <= gap_tol(s, g, *t, Q(y));
        }
        return contacts_at(s, t, y, touching, err);
    }
    return PL_OK;
}

/* The loop's `event` hook: at a cut where the neighbour list still holds (missed_near), its rebuild
 * alone (no mode changes, no row: the rates of the last row refreshed); otherwise the events at *t
 * (events_at), then the list rebuilt if due at the state they leave (with the sliding constraints
 * they leave; the row after them follows). */
static pl_status event_hook(void *user, double *t, double *y, const int *rootsfound, int *changed, pl_error *err)
{
    solver *s = user;
    if (s->redo) {
        s->redo = 0;
        *changed = 0;
        near_rebuild(s, *t, y, 1);
        return PL_OK;
    }
    pl_status st = events_at(s, t, y, rootsfound, changed, err);
    if (st == PL_OK && pl_near_due(&s->nl, *t, Q(y)))
        near_rebuild(s, *t, y, 0); /* events_at sets *changed: the row at *t follows */
    return st;
}

static pl_status integrate(solver *s, pl_error *err)
{
    double *y = s->loop.stepper->y, t = 0.0;
    int *touching = s->touching_start;
    pl_status st;

    /* The initial state must be admissible; constraints on their boundary are resolved first. */
    int any = 0;
    pl_gap *g = &s->c_geo->gap;
    for (size_t i = 0; i < s->m; i++) {
        gap_of(s, i, t, Q(y), g);
        if (g->g < -s->tol_g)
            return pl_fail(err, PL_ERR_INPUT, "the initial state violates constraint %zu (G = %g < 0): the limit "
                           "solution starts from an admissible state", i + 1, g->g);
        touching[i] = g->g <= s->tol_g;
        any |= touching[i];
    }
    near_rebuild(s, t, y, 0); /* every constraint on its boundary is in it (G < delta) */
    if ((st = pl_loop_record(&s->loop, t, y, err)) != PL_OK)
        return st;
    if (any) {
        if ((st = contacts_at(s, &t, y, touching, err)) != PL_OK || (st = pl_loop_restart(&s->loop, NULL, t, err)) != PL_OK ||
            (st = pl_loop_record(&s->loop, t, y, err)) != PL_OK)
            return st;
    }
    return pl_loop_run(&s->loop, err);
}

/* The rows stored (docs/methods.md, "Stored rows"): every row of a sustained contact (a contact
 * force), as a penalized run keeps its episodes' (the distances to the runs interpolate the sliding
 * motion between them); in flight, `samples` rows evenly spaced between two events
 * (pl_solution_sample_rows). */
static pl_status store_rows(pl_solution *sol, size_t samples, pl_error *err)
{
    size_t rows = sol->traj.nrows;
    if (samples == 0 || rows == 0)
        return PL_OK;
    unsigned char *keep = calloc(rows, 1);
    if (!keep)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory sampling %zu rows", rows);
    int sparse = sol->contacts == PL_CONTACTS_SPARSE;
    for (size_t r = 0; r < rows; r++) {
        const pl_contact_entry *e; /* sparse: the row's contacts (a search per constraint per row was
                                      rows x m log: 12% of 200 disks' limit solution) */
        size_t count = pl_solution_row_contacts(sol, r, &e);
        for (size_t k = 0; k < (sparse ? count : sol->m) && !keep[r]; k++)
            keep[r] = (sparse ? e[k].force : pl_solution_force_at(sol, r, k)) != 0.0;
    }
    pl_status s = pl_solution_sample_rows(sol, keep, samples, err);
    free(keep);
    return s;
}

static pl_status solve(const pl_model *model, const pl_solve_opts *opts, pl_solution *sol, pl_error *err)
{
    pl_error local;
    pl_error *e = err ? err : &local;
    pl_error_clear(e);
    double t0 = pl_now_seconds();
    solver s;
    memset(&s, 0, sizeof s);
    s.model = model;
    s.sol = sol;
    s.rtol = opts->option[OPT_RTOL];
    s.n = model->n;
    s.m = model->m;
    s.N = 2 * s.n + 1;
    s.sparse = pl_model_sparse(model);
    s.V = model->v_scale;
    s.A = model->a_scale;
    s.L = s.V * s.V / s.A;
    s.alpha = s.A / s.V;
    s.tol_g = 1e-12 * s.L;
    s.missed_constraint = -1;
    s.tol_v = 1e-9 * s.V;
    s.tol_lambda = 1e-12;
    s.loop = (pl_event_loop){.hooks = {.record = record_row, .missed = missed_hook, .event = event_hook,
                                       .initial_step = initial_step, .max_step = max_step},
                             .user = &s, .context = "limit solution", .stats = &sol->stats, .t_end = opts->t_end,
                             .max_steps = opts->max_steps > 0 ? opts->max_steps : PL_DEFAULT_MAX_STEPS,
                             .max_seconds = opts->max_seconds, .started = pl_budget_start(opts, t0),
                             .model = model, .cancel = opts->cancel, .cancel_user = opts->cancel_user,
                             .output = sol, .samples = pl_loop_grid(opts->samples), .next_sample = 1};
    pl_status st = alloc_solver(&s, e);
    if (st != PL_OK) {
        free_solver(&s);
        pl_solution_finish(sol, st, e, t0);
        return st;
    }
    pl_impact_work_set_budget(s.impact_work, &(pl_budget){s.loop.max_seconds, s.loop.started});
    double *y0 = s.y0;
    pl_model_initial_state(model, Q(y0), V(y0, &s));
    /* The smooth phases are not stiff: the explicit 8th-order pair, which integrates a flight's
     * parabola exactly and so crosses it in two or three steps (BDF restarted at order 1 after
     * every impact took ~25).  Impacts are located to 4 ulps of t: each is found just past its
     * root, and the late landing's g dt adds up over a long Zeno sequence (at 100 ulps the
     * accumulation time of e = 0.999 was off by 1.7e-5 after 13464 impacts). */
    pl_stepper_spec spec = {.size = s.N, .y0 = y0, .t_end = opts->t_end, .rhs = rhs, .weights = error_weights,
                            .roots = roots, .root = root_one, .nroots = (int)s.m,
                            .live_roots = s.nl.near ? live_roots : NULL, .falling_only = 1, .root_ulps = 4.0,
                            .user = &s, .context = "limit solution"};
    st = pl_stepper_rk_new(&s.loop.stepper, &spec, e);
    if (st == PL_OK)
        st = integrate(&s, e);
    if (s.nomem)
        st = pl_fail(e, PL_ERR_NOMEM, "limit solution: out of memory for the couplings of a contact set at t = %.17g",
                     s.nomem_t);
    if (s.loop.stepper)
        s.loop.stepper->add_counters(s.loop.stepper, &sol->stats);
    sol->stats.neighbour_rebuilds = s.nl.rebuilds;
    sol->stats.rebuild_visits = s.nl.visits;
    pl_stepper_free(s.loop.stepper);
    free_solver(&s);
    /* The rows stored (docs/methods.md, "Stored rows"): a failed run's too (its first failure kept). */
    pl_error sample_err;
    pl_status sampled = store_rows(sol, opts->samples, st == PL_OK ? e : &sample_err);
    if (st == PL_OK)
        st = sampled;
    pl_solution_finish(sol, st, e, t0);
    return st;
}

/* Before any work (so that a command writes nothing): the initial state must be admissible, to
 * the tolerance of integrate's own test. */
static pl_status check(const pl_model *model, const pl_solve_opts *opts, pl_error *err)
{
    (void)opts;
    return pl_model_check_admissible(model, "the limit solution starts from an admissible state", err);
}

const pl_solver_type pl_solver_limit = {
    .name = "limit",
    .summary = "the limit (generalized) solution computed directly, event by event (paper 004 (47)-(48))",
    .family = PL_FAMILY_LIMIT,
    .capabilities = PL_SOLVER_EVENTS | PL_SOLVER_ZENO | PL_SOLVER_DENSE | PL_SOLVER_SAMPLED,
    .options = options,
    .noptions = sizeof options / sizeof options[0],
    .check = check,
    .solve = solve,
};
