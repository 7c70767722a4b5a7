#include "study/impact_match.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/contact_law.h"
#include "solvers/solver.h"

/* The window's half-width in units of the time resolution tau, around the time predicted from the
 * pair before (the delay it leaves and its error in the gap rate, below): what the prediction leaves
 * out is second order (measured: 1e-2 tau on the vibrating table at mu = 1e10). */
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
} interval;

typedef struct {
    const pl_model *model;
    const pl_solution *sol;
    const pl_analysis *a;
    const pl_solution *limit;
    const pl_analysis *la;
    interval *sustained;
    size_t nsustained;
    /* What the last pair (or lift-off) leaves: after the limit's time last_t (state last_q), the
     * solution moves as the limit delayed by `delay` (+- `spread` after a lift-off), with the gap rate
     * of constraint last_c off by `dgdot` (the velocity error `dv` where it was labelled with another
     * constraint). */
    double delay, spread, dgdot, dv, last_t;
    const double *last_q;
    size_t last_c;
    size_t *last; /* m: the solution's impact paired last on each constraint (SIZE_MAX: none) */
    pl_work *work;
    pl_gap *gap;
} matcher;

static int takes_part(const pl_event *e, size_t j)
{
    return j == e->constraint || (e->participants && e->participants[j]);
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
    switch (sol->solver->family) {
    case PL_FAMILY_PENALTY: {
        double mu = pl_solution_option(sol, "mu");
        for (size_t j = 0; j < sol->m; j++)
            if (e ? takes_part(e, j) : j == c)
                tau = fmax(tau, pl_law_contact_time(&mt->model->law[j], mu, V));
        break;
    }
    case PL_FAMILY_SCHEME: /* an impact may be timed a step before its first impulse, and last 2 */
        tau = 2.0 * sol->step_size;
        break;
    default:
        tau = row_spacing(&sol->traj, t);
        break;
    }
    return fmax(tau, 64.0 * DBL_EPSILON * fmax(1.0, fabs(t)));
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
                mt->sustained[k++] = (interval){ep->t_in, isnan(ep->t_out) ? sol->t_final : ep->t_out, ep->constraint};
            }
    for (size_t e = 0; e < sol->nevents; e++) {
        const pl_event *ev = &sol->events[e];
        if (ev->kind != PL_EVENT_SLIDE_START)
            continue;
        double end = sol->t_final;
        for (size_t f = e + 1; f < sol->nevents; f++)
            if (sol->events[f].kind == PL_EVENT_LIFT_OFF && sol->events[f].constraint == ev->constraint) {
                end = sol->events[f].t;
                break;
            }
        mt->sustained[k++] = (interval){ev->t, end, ev->constraint};
    }
    if (!isnan(mt->a->capture_time))
        mt->sustained[k++] = (interval){mt->a->capture_time, sol->t_final, SIZE_MAX};
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

/* A lift-off e of the limit solution: the end of a sustained contact of the solution on its
 * constraint near it resets the delay.  After a slide on a moving obstacle the lift-off is set by the
 * forcing (delay 0), after an autonomous one it keeps the delay: the window spans both, and the delay
 * after it spans 0 and the lift-off's own. */
static void lift_off(matcher *mt, const pl_event *e)
{
    size_t c = e->constraint;
    double t = e->t, w = WINDOW_TAUS * resolution(mt, NULL, c, t, 0.0);
    double lo = fmin(0.0, mt->delay - mt->spread) - w, hi = fmax(0.0, mt->delay + mt->spread) + w;
    double best = INFINITY, end = NAN;
    for (size_t k = 0; k < mt->nsustained; k++) {
        const interval *s = &mt->sustained[k];
        if (s->constraint != c || !(s->b < mt->sol->t_final) || outside(s->b - t, lo, hi) > 0.0)
            continue;
        if (fabs(s->b - t - mt->delay) < best) {
            best = fabs(s->b - t - mt->delay);
            end = s->b;
        }
    }
    if (isnan(end))
        return;
    mt->delay = 0.5 * (end - t);
    mt->spread = 0.5 * fabs(end - t);
    mt->dgdot = mt->dv = 0.0;
    mt->last_t = t;
    mt->last_q = e->q;
    mt->last_c = c;
}

/* Where the solution should reach constraint i at limit impact e (gap rate Gdot < 0): *centre, and
 * *margin the size of the correction to the delay and of what is uncertain in it.
 *
 * Since the last pair at t0 the solution moves as the limit delayed by d, with its gap rate off by dg:
 * with a gap G(q, t) = g(q) + h(t) and a time-invariant free motion (a ball over a moving table), to
 * first order G_sol(t) = G_lim(t - d) + Delta, Delta = d (G_t(t) - G_t(t0) - G_tt(t0) (t - t0)) +
 * dg (t - t0): the obstacle's motion over the delay, and the flight's drift.  So the solution reaches
 * the constraint at t_l + d + Delta/|Gdot|.  (Without the first term the table at mu = 1e10 was
 * predicted 1.2e-4 early, 3.7 contact times; with it, 1e-7.)  Only across one flight: after a limit
 * impact left unpaired, the delay alone. */
static void predict(matcher *mt, const pl_event *e, double *centre, double *margin)
{
    size_t i = e->constraint;
    double speed = fabs(e->gdot_before), d = mt->delay;
    *centre = e->t + d;
    *margin = mt->spread;
    if (!mt->last_q || !(speed > 0.0))
        return;
    pl_model_gap(mt->model, i, e->t, e->q, mt->gap);
    double gt = mt->gap->g_t;
    pl_model_gap(mt->model, i, mt->last_t, mt->last_q, mt->gap);
    double dt = e->t - mt->last_t, motion = gt - mt->gap->g_t - mt->gap->g_tt * dt;
    double dg = i == mt->last_c ? mt->dgdot : 0.0, dv = i == mt->last_c ? 0.0 : mt->dv;
    double shift = (d * motion + dg * dt) / speed;
    if (!isfinite(shift))
        shift = 0.0;
    *centre += shift;
    *margin += fabs(shift) + mt->spread * fabs(motion) / speed + dv * dt / speed;
    if (!isfinite(*margin))
        *margin = INFINITY;
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

static void match_one(matcher *mt, size_t l, pl_impact_match *out)
{
    const pl_event *e = &mt->la->impact[l].event;
    pl_impact_pair *p = &out->pair[l];
    double V = fabs(e->gdot_before);
    double tau = resolution(mt, e, e->constraint, e->t, V), w = WINDOW_TAUS * tau, spread;
    predict(mt, e, &p->centre, &spread);
    p->tau = tau;
    p->window = w + spread;
    p->partner = SIZE_MAX;
    p->time_error = p->velocity_error = NAN;
    double t_final = mt->sol->t_final;
    if (p->centre - p->window > t_final) {
        p->kind = PL_MATCH_BEYOND;
        return;
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
        mt->last_q = NULL;
        return;
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
    /* the motion after it: from the partner's exit (a penalized contact's duration delays it) */
    mt->delay = fmax(R->t_out, R->event.t) - e->t;
    mt->spread = 0.0;
    mt->last_t = e->t;
    mt->last_q = e->q;
    mt->last_c = e->constraint;
    mt->dgdot = R->event.constraint == e->constraint ? R->event.gdot_after - e->gdot_after : 0.0;
    mt->dv = R->event.constraint == e->constraint ? 0.0 : p->velocity_error;
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
            if (partner->constraint != c && fabs(R->event.t - partner->t) <= p->window)
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
    mt.work = pl_work_new(model);
    mt.gap = pl_gap_new(1, model->n, 0);
    if (!out->pair || !out->run_kind || !mt.last || !mt.work || !mt.gap) {
        free(mt.last);
        pl_work_free(mt.work);
        free(mt.gap);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory matching impacts");
    }
    for (size_t r = 0; r < a->impacts; r++)
        out->run_kind[r] = PL_RUN_EXTRA;
    for (size_t j = 0; j < sol->m; j++)
        mt.last[j] = SIZE_MAX;
    pl_status s = collect_sustained(&mt, err);
    /* In time order (the limit's events are): a lift-off before the impacts at or after it. */
    for (size_t l = 0, k = 0; s == PL_OK && l < la->impacts; l++) {
        for (; k < limit->nevents && limit->events[k].t <= la->impact[l].event.t; k++)
            if (limit->events[k].kind == PL_EVENT_LIFT_OFF)
                lift_off(&mt, &limit->events[k]);
        match_one(&mt, l, out);
    }
    for (size_t l = 0; s == PL_OK && l < la->impacts; l++)
        out->count[out->pair[l].kind]++;
    for (size_t r = 0; s == PL_OK && r < a->impacts; r++) {
        if (out->run_kind[r] != PL_RUN_PAIRED)
            out->run_kind[r] = classify_unpaired(&mt, out, r);
        out->run_count[out->run_kind[r]]++;
    }
    free(mt.sustained);
    free(mt.last);
    pl_work_free(mt.work);
    free(mt.gap);
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
