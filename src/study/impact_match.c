#include "study/impact_match.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/contact_law.h"
#include "solvers/solver.h"
#include "study/coupling.h"

/* The window's half-width in units of the time resolution tau, around the time predicted from the
 * anchor (the pair before on a coupled constraint, predict below): what the prediction leaves out is
 * second order (measured: 1e-3 tau on the vibrating table at mu = 1e10, up to 0.8 tau for Moreau-Jean
 * on a table; a slow impact, 0.2 m/s, 9 tau, within the margin of its correction). */
#define WINDOW_TAUS 2.0
/* A limit impact slower than this many |D| tau is below the solution's resolution, D the free gap
 * acceleration there (paper 004, (37)): the smooth forces change the gap rate by D tau over the
 * contact (over a scheme's steps), as much as the impact does. */
#define GRAZING_TAUS 2.0

const char *pl_match_kind_name(pl_match_kind kind)
{
    static const char *const names[PL_MATCH_KINDS] = {"paired", "missing", "absorbed", "grazing", "ambiguous",
                                                      "beyond the end"};
    return kind < PL_MATCH_KINDS ? names[kind] : "?";
}

/* A sustained contact of the solution on one constraint (SIZE_MAX: its capture, any constraint). */
typedef struct {
    double a, b; /* b = t_final while it lasts to the end */
    size_t constraint;
    const double *q, *v; /* the solution's state at b where it ends (NULL: not known) */
} interval;

/* What a pair leaves for the predictions after it (docs/methods.md, "Matching impacts"): the limit's
 * state just after its impact (or lift-off) at t_lim, the solution's after its partner at t_sol (the
 * end of its contact: the solution's state where its velocities after hold), and the constraints
 * involved.  A void anchor (a limit impact left unpaired: the limit's motion jumped there, and the
 * solution's did not or it is not known how) carries only the delay of the anchor before it. */
typedef struct {
    int valid;
    double t_lim, t_sol, delay; /* delay: t_sol - t_lim, or the one before a void anchor */
    const double *q_lim, *v_lim, *q_sol, *v_sol;
    size_t first, count; /* its constraints: the matcher's involved[first .. first + count) */
} anchor;

typedef struct {
    const pl_model *model;
    const pl_solution *sol;
    const pl_analysis *a;
    const pl_solution *limit;
    const pl_analysis *la;
    interval *sustained;
    size_t nsustained;
    anchor *anchors; /* in the limit's time order */
    size_t nanchors, anchors_cap;
    size_t *involved; /* the constraints of the anchors */
    size_t ninvolved, involved_cap;
    unsigned char *seen; /* m: 0 not yet tested, 1 coupled, 2 not (one search for an anchor) */
    size_t *last; /* m: the solution's impact paired last on each constraint (SIZE_MAX: none) */
    pl_work *work;
    pl_gap *gap;
    pl_coupling *coupling;
    double *fp; /* 2 n: F_p of the solution's and of the limit's state */
} matcher;

/* Does constraint j take part in impact e: its label, or a participant that carries an impulse?  The
 * limit solution's fast system holds every active constraint, and contacts at rest elsewhere (a disk
 * resting against a wall while another disk hits one) carry none: they are not part of the impact. */
static int takes_part(const pl_event *e, size_t j)
{
    return j == e->constraint || (pl_event_participant(e, j) && pl_event_impulse(e, j) != 0.0);
}

/* The largest spacing of the solution's rows next to t (a jump's rows at one t are one instant). */
static double row_spacing(const pl_table *traj, double t)
{
    size_t n = traj->nrows;
    if (n < 2)
        return INFINITY;
    size_t lo = 0, hi = n; /* hi: the first row later than t */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pl_table_row(traj, mid)[0] > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (hi == 0)
        return pl_table_row(traj, 1)[0] - pl_table_row(traj, 0)[0];
    size_t r = hi - 1; /* the first row of the instant at or before t */
    double tr = pl_table_row(traj, r)[0], spacing = hi < n ? pl_table_row(traj, hi)[0] - tr : 0.0;
    while (r > 0 && pl_table_row(traj, r - 1)[0] == tr)
        r--;
    if (r > 0)
        spacing = fmax(spacing, tr - pl_table_row(traj, r - 1)[0]);
    return spacing;
}

/* The solution's time resolution at an impact at t of speed V on the constraints of e (or on
 * constraint c if e is NULL). */
static double resolution(const matcher *mt, const pl_event *e, size_t c, double t, double V)
{
    const pl_solution *sol = mt->sol;
    double tau = 0.0;
    if (pl_solver_compliant(sol->solver)) { /* the law's contact time at mu */
        double mu = pl_solution_option(sol, "mu");
        for (size_t j = 0; j < sol->m; j++)
            if (e ? takes_part(e, j) : j == c)
                tau = fmax(tau, pl_law_contact_time(&mt->model->law[j], mu, V));
    } else if (pl_solver_can(sol->solver, PL_SOLVER_FIXED_STEP)) {
        tau = 2.0 * sol->step_size; /* an impact may be timed a step before its first impulse, and last 2 */
    } else {
        tau = row_spacing(&sol->traj, t);
    }
    return fmax(tau, 64.0 * DBL_EPSILON * fmax(1.0, fabs(t)));
}

/* The solution's state at row r of its trajectory: its time, into *q and *v (NULL if it has no such
 * row: a run read back without it). */
static double row_state(const pl_solution *sol, size_t r, const double **q, const double **v)
{
    *q = *v = NULL;
    if (r >= sol->traj.nrows)
        return NAN;
    const double *x = pl_table_row(&sol->traj, r);
    *q = x + pl_col_q(sol->n, sol->m);
    *v = x + pl_col_v(sol->n, sol->m);
    return x[0];
}

/* The sustained contacts of the solution: its sustained episodes (penalized runs, schemes), or the
 * slides between its slide_start and lift_off events (external trajectories), and its capture. */
static pl_status collect_sustained(matcher *mt, pl_error *err)
{
    const pl_solution *sol = mt->sol;
    size_t cap = sol->nepisodes + sol->nevents + 1;
    mt->sustained = malloc(cap * sizeof *mt->sustained);
    if (!mt->sustained)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory matching impacts");
    size_t k = 0;
    if (mt->a->info)
        for (size_t e = 0; e < sol->nepisodes && e < mt->a->nepisodes; e++)
            if (mt->a->info[e].kind == PL_SUSTAINED) {
                const pl_episode *ep = &sol->episodes[e];
                interval *s = &mt->sustained[k++];
                *s = (interval){ep->t_in, isnan(ep->t_out) ? sol->t_final : ep->t_out, ep->constraint, NULL, NULL};
                if (!isnan(ep->t_out) && !(row_state(sol, ep->row_out, &s->q, &s->v) >= ep->t_in))
                    s->q = s->v = NULL;
            }
    for (size_t e = 0; e < sol->nevents; e++) {
        const pl_event *ev = &sol->events[e];
        if (ev->kind != PL_EVENT_SLIDE_START)
            continue;
        interval *s = &mt->sustained[k++];
        *s = (interval){ev->t, sol->t_final, ev->constraint, NULL, NULL};
        for (size_t f = e + 1; f < sol->nevents; f++)
            if (sol->events[f].kind == PL_EVENT_LIFT_OFF && sol->events[f].constraint == ev->constraint) {
                s->b = sol->events[f].t;
                s->q = sol->events[f].q;
                s->v = sol->events[f].v_after;
                break;
            }
    }
    if (!isnan(mt->a->capture_time))
        mt->sustained[k++] = (interval){mt->a->capture_time, sol->t_final, SIZE_MAX, NULL, NULL};
    mt->nsustained = k;
    return PL_OK;
}

/* Does a sustained contact of the solution on a constraint of e meet [lo, hi] (its start moved w
 * earlier)? */
static int absorbed(const matcher *mt, const pl_event *e, double lo, double hi, double w)
{
    for (size_t k = 0; k < mt->nsustained; k++) {
        const interval *s = &mt->sustained[k];
        if ((s->constraint == SIZE_MAX || takes_part(e, s->constraint)) && hi >= s->a - w && lo <= s->b)
            return 1;
    }
    return 0;
}

/* Is another limit impact, or a Zeno point, on a constraint of limit impact l within dt of it? */
static int ambiguous(const matcher *mt, size_t l, double dt)
{
    const pl_event *e = &mt->la->impact[l].event;
    for (size_t k = 0; k < mt->la->impacts; k++) {
        const pl_event *o = &mt->la->impact[k].event;
        if (k == l || fabs(o->t - e->t) >= dt)
            continue;
        for (size_t j = 0; j < mt->sol->m; j++)
            if (takes_part(e, j) && takes_part(o, j))
                return 1;
    }
    for (size_t k = 0; k < mt->limit->nevents; k++) {
        const pl_event *z = &mt->limit->events[k];
        if (z->kind == PL_EVENT_ZENO && fabs(z->t - e->t) < dt && takes_part(e, z->constraint))
            return 1;
    }
    return 0;
}

/* Distance from t to the interval [lo, hi]. */
static double outside(double t, double lo, double hi)
{
    return t < lo ? lo - t : t > hi ? t - hi : 0.0;
}

/* Record an anchor: its constraints are i (SIZE_MAX: none) and those taking part in limit event e
 * (NULL: none).  Non-zero if out of memory. */
static int add_anchor(matcher *mt, const anchor *an, const pl_event *e, size_t i)
{
    size_t m = mt->sol->m;
    if (mt->nanchors == mt->anchors_cap) {
        size_t cap = 2 * mt->anchors_cap + 8;
        anchor *p = realloc(mt->anchors, cap * sizeof *p);
        if (!p)
            return -1;
        mt->anchors = p;
        mt->anchors_cap = cap;
    }
    if (mt->ninvolved + m + 1 > mt->involved_cap) {
        size_t cap = 2 * mt->involved_cap + m + 1;
        size_t *p = realloc(mt->involved, cap * sizeof *p);
        if (!p)
            return -1;
        mt->involved = p;
        mt->involved_cap = cap;
    }
    anchor *a = &mt->anchors[mt->nanchors++];
    *a = *an;
    a->first = mt->ninvolved;
    if (i != SIZE_MAX)
        mt->involved[mt->ninvolved++] = i;
    for (size_t j = 0; e && j < m; j++)
        if (j != i && takes_part(e, j))
            mt->involved[mt->ninvolved++] = j;
    a->count = mt->ninvolved - a->first;
    return 0;
}

/* The latest anchor on a constraint coupled with constraint i at (t, q, v) (study/coupling.h):
 * the impacts of bodies that share no degree of freedom with i's do not move it.  NULL if none: the
 * solution has moved as the limit along i's degrees of freedom so far. */
static const anchor *anchor_for(matcher *mt, size_t i, double t, const double *q, const double *v)
{
    memset(mt->seen, 0, mt->sol->m);
    int set = 0;
    for (size_t k = mt->nanchors; k-- > 0;) {
        const anchor *a = &mt->anchors[k];
        for (size_t c = a->first; c < a->first + a->count; c++) {
            size_t j = mt->involved[c];
            if (!mt->seen[j]) {
                if (!set && j != i) {
                    pl_coupling_set(mt->coupling, i, t, q, v);
                    set = 1;
                }
                mt->seen[j] = j == i || pl_coupled(mt->coupling, j) ? 1 : 2;
            }
            if (mt->seen[j] == 1)
                return a;
        }
    }
    return NULL;
}

/* A lift-off e of the limit solution: the end of a sustained contact of the solution on its
 * constraint near it is its partner, and the solution's state there an anchor.  After a slide on a
 * moving obstacle the lift-off is set by the forcing (delay 0), after an autonomous one it keeps
 * the delay: the window spans both.  Non-zero if out of memory. */
static int lift_off(matcher *mt, const pl_event *e)
{
    size_t c = e->constraint;
    const anchor *before = anchor_for(mt, c, e->t, e->q, e->v_before);
    double t = e->t, w = WINDOW_TAUS * resolution(mt, NULL, c, t, 0.0), d = before ? before->delay : 0.0;
    double lo = fmin(0.0, d) - w, hi = fmax(0.0, d) + w;
    const interval *end = NULL;
    for (size_t k = 0; k < mt->nsustained; k++) {
        const interval *s = &mt->sustained[k];
        if (s->constraint != c || !(s->b < mt->sol->t_final) || outside(s->b - t, lo, hi) > 0.0)
            continue;
        if (!end || fabs(s->b - t - d) < fabs(end->b - t - d))
            end = s;
    }
    if (!end)
        return 0;
    anchor an = {.valid = end->q != NULL, .t_lim = t, .t_sol = end->b, .delay = end->b - t, .q_lim = e->q,
                 .v_lim = e->v_after, .q_sol = end->q, .v_sol = end->v};
    return add_anchor(mt, &an, NULL, c);
}

/* Where the solution should reach constraint i at limit impact e (gap rate Gdot < 0): *centre, and
 * *margin the size of the correction to the delay.
 *
 * From the anchor of i (anchor_for: the last pair on a constraint coupled with it) the solution
 * moves, to first order, as the limit delayed by d = t_sol - t_lim, displaced by the difference of
 * their states there: q_sol(t) = q_lim(t - d) + dq + dFp (t - t_sol), dq = q_sol - q_lim and dFp
 * the difference of F_p (of the velocities).  So its gap is G_lim(t - d) + Delta, Delta = d G_t +
 * grad G . (dq + dFp (t_l - t_lim)) at the limit impact (t_l, q_l), and it reaches the constraint
 * at t_l + d + Delta/|Gdot|.  What the states carry: a penalized contact's duration and its exit
 * velocity (the delays that accumulate over a sequence of impacts), a scheme's step (its state at
 * the end of its impulse step), the motion of another constraint's contact (a corner's first wall
 * moves the mass along the second during its contact time), and the obstacle's motion over the
 * delay (the table at mu = 1e10: without G_t the second impact was predicted 1.2e-4 early, 3.7
 * contact times).  Without an anchor: the limit time.  After a void anchor: its delay, no
 * correction.  *delay: the anchor's delay. */
static void predict(matcher *mt, const pl_event *e, double *centre, double *margin, double *delay)
{
    size_t i = e->constraint, n = mt->sol->n;
    double speed = fabs(e->gdot_before);
    const anchor *a = anchor_for(mt, i, e->t, e->q, e->v_before);
    *delay = a ? a->delay : 0.0;
    *centre = e->t + *delay;
    *margin = 0.0;
    if (!a || !a->valid || !(speed > 0.0))
        return;
    double *fs = mt->fp, *fl = mt->fp + n, flight = e->t - a->t_lim;
    pl_model_velocity_map(mt->model, a->t_sol, a->q_sol, a->v_sol, fs, NULL, NULL, NULL);
    pl_model_velocity_map(mt->model, a->t_lim, a->q_lim, a->v_lim, fl, NULL, NULL, NULL);
    pl_model_gap(mt->model, i, e->t, e->q, mt->gap);
    double delta = a->delay * mt->gap->g_t;
    for (size_t j = 0; j < n; j++)
        delta += mt->gap->grad[j] * (a->q_sol[j] - a->q_lim[j] + (fs[j] - fl[j]) * flight);
    double shift = delta / speed;
    if (!isfinite(shift))
        return;
    *centre += shift;
    *margin = fabs(shift);
}

/* The largest |D| of the constraints of impact e, D the free gap acceleration before it. */
static double free_gap_accel(const matcher *mt, const pl_event *e)
{
    double D = 0.0;
    for (size_t j = 0; j < mt->sol->m; j++)
        if (takes_part(e, j))
            D = fmax(D, fabs(pl_model_free_gap_accel(mt->model, mt->work, j, e->t, e->q, e->v_before)));
    return D;
}

/* The nearest unpaired impact of the solution on a constraint of limit impact e within its window
 * (widened to the candidate's own contact time), after those paired on its constraint, preferring the
 * constraint e is labelled with (a corner: the limit labels its impact with the wall approaching
 * fastest, and its velocities after it are those after the whole fast motion); SIZE_MAX if none. */
static size_t find_partner(const matcher *mt, const pl_event *e, const pl_impact_pair *p, double spread,
                           const pl_impact_match *out)
{
    size_t best = SIZE_MAX;
    double best_d = INFINITY;
    int best_label = 0;
    for (size_t r = 0; r < mt->a->impacts; r++) {
        const pl_impact_record *R = &mt->a->impact[r];
        size_t c = R->event.constraint;
        if (out->run_kind[r] == PL_RUN_PAIRED || !takes_part(e, c) || (mt->last[c] != SIZE_MAX && r <= mt->last[c]))
            continue;
        double d = fabs(R->event.t - p->centre), duration = fmax(0.0, R->t_out - R->event.t);
        if (d > WINDOW_TAUS * fmax(p->tau, duration) + spread)
            continue;
        int label = c == e->constraint;
        if (label > best_label || (label == best_label && d < best_d)) {
            best = r;
            best_d = d;
            best_label = label;
        }
    }
    return best;
}

/* The solution's state after its impact R: at the end of its contact (pl_impact_record: a penalized
 * impact's fast motion, a scheme's last impulse step), from its row there; its time. */
static double state_after(const matcher *mt, const pl_impact_record *R, const double **q, const double **v)
{
    const pl_solver_type *s = mt->sol->solver;
    if (pl_solver_compliant(s) || pl_solver_can(s, PL_SOLVER_FIXED_STEP)) {
        double t = row_state(mt->sol, R->row_out, q, v); /* at t_out (a penalized exit's row: to an ulp) */
        if (t >= R->event.t)
            return t;
    }
    *q = R->event.q;
    *v = R->event.v_after;
    return R->event.t;
}

/* Limit impact l: its window, and its partner or why it has none.  Non-zero if out of memory. */
static int match_one(matcher *mt, size_t l, pl_impact_match *out)
{
    const pl_event *e = &mt->la->impact[l].event;
    pl_impact_pair *p = &out->pair[l];
    double V = fabs(e->gdot_before);
    double tau = resolution(mt, e, e->constraint, e->t, V), w = WINDOW_TAUS * tau, spread, delay;
    predict(mt, e, &p->centre, &spread, &delay);
    p->tau = tau;
    p->window = w + spread;
    p->partner = SIZE_MAX;
    p->time_error = p->velocity_error = NAN;
    double t_final = mt->sol->t_final;
    if (p->centre - p->window > t_final) {
        p->kind = PL_MATCH_BEYOND;
        return 0;
    }
    int grazing = V < GRAZING_TAUS * free_gap_accel(mt, e) * tau, crowded = ambiguous(mt, l, 2.0 * p->window);
    size_t best = grazing || crowded ? SIZE_MAX : find_partner(mt, e, p, spread, out);
    /* Inside a sustained contact of the solution, an impact is paired only with an impact of the
     * solution (a scheme's landing that begins it); otherwise the contact absorbed it. */
    if (best == SIZE_MAX && absorbed(mt, e, p->centre - spread, p->centre + spread, w))
        p->kind = PL_MATCH_ABSORBED;
    else if (grazing)
        p->kind = PL_MATCH_GRAZING;
    else if (crowded)
        p->kind = PL_MATCH_AMBIGUOUS;
    else if (best == SIZE_MAX)
        p->kind = p->centre + p->window > t_final ? PL_MATCH_BEYOND : PL_MATCH_MISSING;
    if (best == SIZE_MAX) {
        /* The limit's motion bounced here and the solution's did not (or it is not known how): the
         * first-order prediction across this impact is void; the delay stays. */
        anchor an = {.valid = 0, .t_lim = e->t, .delay = delay};
        return add_anchor(mt, &an, e, e->constraint);
    }
    const pl_impact_record *R = &mt->a->impact[best];
    p->kind = PL_MATCH_PAIRED;
    p->partner = best;
    p->window = WINDOW_TAUS * fmax(tau, fmax(0.0, R->t_out - R->event.t)) + spread;
    p->time_error = R->event.t - e->t;
    p->velocity_error = 0.0;
    for (size_t j = 0; j < mt->sol->n; j++)
        p->velocity_error = fmax(p->velocity_error, fabs(R->event.v_after[j] - e->v_after[j]));
    out->run_kind[best] = PL_RUN_PAIRED;
    mt->last[R->event.constraint] = best;
    /* the motion after it: from the end of the partner's contact (a penalized contact's duration
     * delays it; a scheme's velocities after hold at the end of its impulse step) */
    anchor an = {.valid = 1, .t_lim = e->t, .q_lim = e->q, .v_lim = e->v_after};
    an.t_sol = state_after(mt, R, &an.q_sol, &an.v_sol);
    an.delay = an.t_sol - e->t;
    return add_anchor(mt, &an, e, R->event.constraint);
}

/* An impact of the solution without a partner: part of a paired impact of several constraints, in
 * the window of a limit impact left out, or extra. */
static pl_run_impact_kind classify_unpaired(const matcher *mt, const pl_impact_match *out, size_t r)
{
    const pl_impact_record *R = &mt->a->impact[r];
    size_t c = R->event.constraint;
    double duration = fmax(0.0, R->t_out - R->event.t);
    for (size_t l = 0; l < out->nlimit; l++) {
        const pl_impact_pair *p = &out->pair[l];
        const pl_event *e = &mt->la->impact[l].event;
        if (!takes_part(e, c))
            continue;
        double reach = p->window + WINDOW_TAUS * duration;
        if (p->kind == PL_MATCH_PAIRED) {
            const pl_event *partner = &mt->a->impact[p->partner].event;
            if (partner->constraint != c && (pl_event_participant(partner, c) || fabs(R->event.t - partner->t) <= p->window))
                return PL_RUN_COMPANION;
        } else if (p->kind != PL_MATCH_MISSING && fabs(R->event.t - p->centre) <= reach)
            return PL_RUN_EXCLUDED;
    }
    /* after the limit solution's end, or within the window of its end */
    double V = fabs(R->event.gdot_before), tau = resolution(mt, &R->event, c, R->event.t, V);
    if (R->event.t + WINDOW_TAUS * fmax(tau, duration) > mt->limit->t_final)
        return PL_RUN_EXCLUDED;
    /* below the solution's own resolution (a scheme's chatter on a sustained contact) */
    if (V < GRAZING_TAUS * free_gap_accel(mt, &R->event) * tau)
        return PL_RUN_EXCLUDED;
    return PL_RUN_EXTRA;
}

pl_status pl_impact_match_build(const pl_model *model, const pl_solution *sol, const pl_analysis *a,
                                const pl_solution *limit, const pl_analysis *la, pl_impact_match *out, pl_error *err)
{
    memset(out, 0, sizeof *out);
    out->nlimit = la->impacts;
    out->nrun = a->impacts;
    out->pair = calloc(la->impacts + 1, sizeof *out->pair);
    out->run_kind = calloc(a->impacts + 1, sizeof *out->run_kind);
    matcher mt = {.model = model, .sol = sol, .a = a, .limit = limit, .la = la};
    mt.last = malloc((sol->m + 1) * sizeof *mt.last);
    mt.seen = malloc(sol->m + 1);
    mt.work = pl_work_new(model);
    mt.gap = pl_gap_new(1, model->n, 0);
    mt.coupling = pl_coupling_new(model);
    mt.fp = malloc((2 * model->n + 1) * sizeof *mt.fp);
    pl_status s = PL_OK;
    if (!out->pair || !out->run_kind || !mt.last || !mt.seen || !mt.work || !mt.gap || !mt.coupling || !mt.fp)
        s = pl_fail(err, PL_ERR_NOMEM, "out of memory matching impacts");
    for (size_t r = 0; s == PL_OK && r < a->impacts; r++)
        out->run_kind[r] = PL_RUN_EXTRA;
    for (size_t j = 0; s == PL_OK && j < sol->m; j++)
        mt.last[j] = SIZE_MAX;
    if (s == PL_OK)
        s = collect_sustained(&mt, err);
    /* In time order (the limit's events are): a lift-off before the impacts at or after it. */
    for (size_t l = 0, k = 0; s == PL_OK && l < la->impacts; l++) {
        int bad = 0;
        for (; k < limit->nevents && limit->events[k].t <= la->impact[l].event.t; k++)
            if (limit->events[k].kind == PL_EVENT_LIFT_OFF)
                bad |= lift_off(&mt, &limit->events[k]);
        bad |= match_one(&mt, l, out);
        if (bad)
            s = pl_fail(err, PL_ERR_NOMEM, "out of memory matching impacts");
    }
    for (size_t l = 0; s == PL_OK && l < la->impacts; l++)
        out->count[out->pair[l].kind]++;
    for (size_t r = 0; s == PL_OK && r < a->impacts; r++) {
        if (out->run_kind[r] != PL_RUN_PAIRED)
            out->run_kind[r] = classify_unpaired(&mt, out, r);
        out->run_count[out->run_kind[r]]++;
    }
    free(mt.sustained);
    free(mt.anchors);
    free(mt.involved);
    free(mt.seen);
    free(mt.last);
    pl_work_free(mt.work);
    free(mt.gap);
    pl_coupling_free(mt.coupling);
    free(mt.fp);
    return s;
}

void pl_impact_match_free(pl_impact_match *m)
{
    free(m->pair);
    free(m->run_kind);
    memset(m, 0, sizeof *m);
}

size_t pl_impact_match_excluded(const pl_impact_match *m)
{
    return m->count[PL_MATCH_AMBIGUOUS] + m->count[PL_MATCH_GRAZING] + m->count[PL_MATCH_BEYOND];
}

size_t pl_impact_common_set(const pl_impact_match *const *m, size_t n, size_t nlimit, unsigned char *common)
{
    int any = 0;
    for (size_t k = 0; k < n; k++)
        any |= m[k] && m[k]->count[PL_MATCH_PAIRED] > 0;
    size_t size = 0;
    for (size_t l = 0; l < nlimit; l++) {
        common[l] = (unsigned char)any;
        for (size_t k = 0; k < n && common[l]; k++)
            if (m[k] && m[k]->count[PL_MATCH_PAIRED] > 0 && (l >= m[k]->nlimit || m[k]->pair[l].kind != PL_MATCH_PAIRED))
                common[l] = 0;
        size += common[l];
    }
    return size;
}

size_t pl_impact_errors_over(const pl_impact_match *m, const unsigned char *common, double *time_error,
                             double *velocity_error)
{
    size_t count = 0;
    *time_error = *velocity_error = NAN;
    for (size_t l = 0; l < m->nlimit; l++) {
        const pl_impact_pair *p = &m->pair[l];
        if (p->kind != PL_MATCH_PAIRED || (common && !common[l]))
            continue;
        *time_error = count ? fmax(*time_error, fabs(p->time_error)) : fabs(p->time_error);
        *velocity_error = count ? fmax(*velocity_error, p->velocity_error) : p->velocity_error;
        count++;
    }
    return count;
}
