#include "study/analysis.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/linalg.h"
#include "model/sliding.h"
#include "solvers/solver.h"
#include "study/fit.h"

const char *pl_episode_kind_name(pl_episode_kind kind)
{
    return kind == PL_IMPACT ? "impact" : kind == PL_SUSTAINED ? "sustained" : "unresolved";
}

/* Decay rate of the contact oscillation: xi omega, or omega (xi - sqrt(xi^2 - 1)) overdamped. */
static double decay_rate(double omega, double xi)
{
    return xi < 1.0 ? xi * omega : omega * (xi - sqrt(xi * xi - 1.0));
}

pl_episode_kind pl_classify_episode(const pl_episode *ep, double t_final, double omega, double xi)
{
    /* An underdamped impact lasts one half-period; an overdamped one ends when its exponential
     * return to G = 0 reaches round-off, within ~37 decay times. */
    double short_contact = xi < 1.0 ? 3.0 * M_PI / (omega * sqrt(1.0 - xi * xi)) : 50.0 / decay_rate(omega, xi);
    if (isnan(ep->t_out))
        return t_final - ep->t_in <= short_contact ? PL_UNRESOLVED : PL_SUSTAINED;
    if (!(ep->gdot_in < 0.0) || !(ep->gdot_out > 0.0))
        return PL_SUSTAINED;
    return ep->t_out - ep->t_in <= short_contact ? PL_IMPACT : PL_SUSTAINED;
}

/* A scheme's episode (steps with an impulse on the constraint) is an impact when it ends within 2
 * steps and holds one of the scheme's impact events of that constraint (which may begin a step
 * before the first impulse, where the trajectory reaches the constraint); one cut short by the end
 * of the run within 2 steps is unresolved; the others (long, or a touch without a velocity jump
 * beyond the smooth part) are sustained. */
#define SCHEME_IMPACT_STEPS 2

static pl_episode_kind classify_scheme_episode(const pl_solution *sol, const pl_episode *ep)
{
    if (ep->steps > SCHEME_IMPACT_STEPS)
        return PL_SUSTAINED;
    if (isnan(ep->t_out))
        return PL_UNRESOLVED;
    for (size_t k = 0; k < sol->nevents; k++) {
        const pl_event *e = &sol->events[k];
        if (e->kind == PL_EVENT_IMPACT && e->participants[ep->constraint] && e->t >= ep->t_in - sol->step_size &&
            e->t <= ep->t_out)
            return PL_IMPACT;
    }
    return PL_SUSTAINED;
}

int pl_fit_flights(const double *flights, size_t n, double t_last_impact, double *ratio, double *ratio_se,
                   double *t_accumulation)
{
    *ratio = *ratio_se = *t_accumulation = NAN;
    if (n < PL_FIT_MIN_POINTS)
        return -1;
    double *x = malloc(2 * n * sizeof *x), *y = x ? x + n : NULL;
    if (!x)
        return -1;
    int bad = 0;
    for (size_t j = 0; j < n; j++) {
        bad |= !(flights[j] > 0.0);
        x[j] = (double)j;
        y[j] = bad ? 0.0 : log(flights[j]);
    }
    double slope, slope_se, intercept;
    bad = bad || pl_fit_line(x, y, n, &slope, &slope_se, &intercept) != 0;
    free(x);
    if (bad)
        return -1;
    if (!pl_fit_meaningful(n, exp(slope), exp(slope) * slope_se))
        return -1;
    *ratio = exp(slope);
    *ratio_se = *ratio * slope_se;
    /* Only a clearly contracting sequence accumulates. */
    if (*ratio + 3.0 * *ratio_se < 1.0)
        *t_accumulation = t_last_impact + flights[n - 1] * *ratio / (1.0 - *ratio);
    return 0;
}

static double contact_omega(const pl_model *model, size_t i, double mu)
{
    return sqrt(model->law[i].k * mu);
}

/* The scratch of the sliding forces along a penalized run's sustained episodes. */
typedef struct {
    pl_work *work;
    pl_contact_set cs;
    int *set;
    size_t *count;             /* m: open sustained episodes of each constraint at the row */
    double *lambda, *fsm;      /* m each: pl_sliding_force's outputs */
    double *fsm_row, *bil_row; /* m each: F^sm and the bilateral force of every constraint, for the row's set */
    size_t *order, *by_row;    /* ne each: the sustained episodes by entry time, and by first row */
    size_t *open, *cover;      /* ne each: those open at the row's time, and those whose rows hold it */
    pl_table *rows;            /* ne: each episode's rows of the sliding table, until they are joined */
    double *prev_t, *prev_f;   /* ne: the previous row of each episode (lift-off prediction) */
} sliding_work;

static void sliding_work_free(sliding_work *w, size_t ne)
{
    pl_contact_set_free(&w->cs);
    pl_work_free(w->work);
    free(w->set);
    free(w->count);
    free(w->lambda);
    free(w->order);
    for (size_t k = 0; w->rows && k < ne; k++)
        pl_table_free(&w->rows[k]);
    free(w->rows);
    free(w->prev_t);
}

static pl_status sliding_work_init(sliding_work *w, const pl_model *model, size_t ne, pl_error *err)
{
    memset(w, 0, sizeof *w);
    size_t m = model->m, nk = ne ? ne : 1;
    pl_status s = pl_contact_set_init(&w->cs, model, err);
    if (s != PL_OK)
        return s;
    w->work = pl_work_new(model);
    w->set = malloc(m * sizeof *w->set);
    w->count = malloc(m * sizeof *w->count);
    w->lambda = malloc(4 * m * sizeof *w->lambda);
    w->order = malloc(4 * nk * sizeof *w->order);
    w->rows = calloc(nk, sizeof *w->rows);
    w->prev_t = malloc(2 * nk * sizeof *w->prev_t);
    if (!w->work || !w->set || !w->count || !w->lambda || !w->order || !w->rows || !w->prev_t)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory analysing sustained contacts");
    w->fsm = w->lambda + m;
    w->fsm_row = w->fsm + m;
    w->bil_row = w->fsm_row + m;
    w->by_row = w->order + nk;
    w->open = w->by_row + nk;
    w->cover = w->open + nk;
    w->prev_f = w->prev_t + nk;
    for (size_t k = 0; k < ne; k++)
        pl_table_init(&w->rows[k], 5);
    return PL_OK;
}

/* The forces lambda that keep every constraint of `set` on its boundary (W lambda = -D, unclamped:
 * negative where the constraint would have to pull), into force[i] for each i of the set; NAN if W
 * is singular. */
static void bilateral_forces(const pl_model *model, sliding_work *w, double t, const double *q, const double *v,
                             const int *set, double *force)
{
    pl_contact_set *cs = &w->cs;
    size_t k = pl_model_contact_coupling(model, w->work, t, q, v, set, cs, 0);
    double *D = cs->b, *lambda = cs->a;
    for (size_t a = 0; a < k; a++)
        D[a] = -pl_model_free_gap_accel(model, w->work, cs->idx[a], t, q, v);
    int singular = pl_solve_small(k, cs->W, D, lambda) != 0;
    for (size_t a = 0; a < k; a++)
        force[cs->idx[a]] = singular ? NAN : lambda[a];
}

/* Sort episode indices by a key (insertion sort, stable: the episodes come nearly in order). */
static void sort_by(size_t *idx, size_t count, const pl_episode *eps, int by_row)
{
    for (size_t a = 1; a < count; a++) {
        size_t k = idx[a], b = a;
        double key = by_row ? (double)eps[k].row_in : eps[k].t_in;
        while (b > 0 && (by_row ? (double)eps[idx[b - 1]].row_in : eps[idx[b - 1]].t_in) > key) {
            idx[b] = idx[b - 1];
            b--;
        }
        idx[b] = k;
    }
}

/* The sustained episodes open at time t (entered at or before t, left at or after it): the set
 * S(t) of their constraints, whose forces act together.  The rows come in time order, so the open
 * list is kept from row to row (rebuilt if t ever decreases). */
static size_t open_at(const pl_solution *sol, sliding_work *w, size_t nsus, size_t *next, size_t nopen, double t,
                      double *t_prev)
{
    const pl_episode *eps = sol->episodes;
    if (t < *t_prev) { /* not in time order: from the start */
        *next = 0;
        nopen = 0;
        memset(w->count, 0, sol->m * sizeof *w->count);
    }
    *t_prev = t;
    while (*next < nsus && eps[w->order[*next]].t_in <= t) {
        size_t k = w->order[(*next)++];
        w->open[nopen++] = k;
        w->count[eps[k].constraint]++;
    }
    size_t kept = 0;
    for (size_t o = 0; o < nopen; o++) {
        const pl_episode *ep = &eps[w->open[o]];
        if (isnan(ep->t_out) || t <= ep->t_out)
            w->open[kept++] = w->open[o];
        else
            w->count[ep->constraint]--;
    }
    return kept;
}

/* mu G against F^sm along the sustained episodes of a penalized run (every row of each), the sup
 * error over each one's window (NAN if the window is empty: the contact is too short for its
 * transient to decay), and the first time F^sm reaches zero.  At a row the forces are those of the
 * constraints in sustained contact then, S(t) (with the episode's own if it is not among them):
 * computed once per row for S(t) and shared by the episodes covering the row (a settled heap of
 * disks holds tens of contacts at once, each of which solved the same problem), then each episode's
 * rows are appended in episode order. */
static pl_status compare_sliding(const pl_model *model, const pl_solution *sol, double mu, pl_analysis *a,
                                 sliding_work *w, pl_error *err)
{
    size_t n = sol->n, m = sol->m, ne = sol->nepisodes, nsus = 0, nrows = sol->traj.nrows;
    const pl_episode *eps = sol->episodes;
    size_t r_lo = SIZE_MAX, r_hi = 0;
    for (size_t k = 0; k < ne; k++) {
        const pl_episode *ep = &eps[k];
        pl_episode_info *info = &a->info[k];
        if (info->kind != PL_SUSTAINED)
            continue;
        w->order[nsus] = w->by_row[nsus] = k;
        nsus++;
        size_t i = ep->constraint;
        double t_stop = isnan(ep->t_out) ? sol->t_final : ep->t_out;
        /* The entry transient of the contact oscillation, of force up to ~omega V (an impact)
         * against the sliding force ~A, decays at the rate delta: after (20 + ln(omega V/A))/delta it
         * is below e^-20 A.  The window also leaves out the first and last 10% of the contact (Props
         * 6-7: convergence away from its ends). */
        double omega = contact_omega(model, i, mu), delta = decay_rate(omega, model->law[i].xi);
        double transient = (20.0 + log(fmax(1.0, omega * model->v_scale / model->a_scale))) / delta;
        double lo = ep->t_in + fmax(0.1 * (t_stop - ep->t_in), transient), hi = t_stop - 0.1 * (t_stop - ep->t_in);
        info->force_error = info->force_scale = lo < hi ? 0.0 : NAN;
        info->lift_off_predicted = NAN;
        w->prev_t[k] = w->prev_f[k] = NAN;
        if (ep->row_in <= ep->row_out && ep->row_in < nrows) {
            r_lo = r_lo < ep->row_in ? r_lo : ep->row_in;
            r_hi = r_hi > ep->row_out ? r_hi : ep->row_out;
        }
    }
    sort_by(w->order, nsus, eps, 0);
    sort_by(w->by_row, nsus, eps, 1);
    memset(w->count, 0, m * sizeof *w->count);
    size_t next = 0, nopen = 0, next_row = 0, ncover = 0;
    double t_prev = -INFINITY;
    for (size_t r = r_lo; r <= r_hi && r < nrows; r++) {
        const double *x = pl_table_row(&sol->traj, r);
        double t = x[0];
        const double *q = x + pl_col_q(n, m), *v = x + pl_col_v(n, m);
        nopen = open_at(sol, w, nsus, &next, nopen, t, &t_prev);
        /* the episodes whose rows hold r: kept from row to row */
        while (next_row < nsus && eps[w->by_row[next_row]].row_in <= r)
            w->cover[ncover++] = w->by_row[next_row++];
        size_t kept = 0;
        int shared = 0;
        for (size_t c = 0; c < ncover; c++)
            if (r <= eps[w->cover[c]].row_out) {
                w->cover[kept++] = w->cover[c];
                shared |= w->count[eps[w->cover[c]].constraint] > 0;
            }
        ncover = kept;
        if (ncover == 0)
            continue;
        int *set = w->set;
        for (size_t j = 0; j < m; j++)
            set[j] = w->count[j] > 0;
        pl_status st;
        if (shared) {
            if ((st = pl_sliding_force(model, w->work, &w->cs, t, q, v, set, w->lambda, w->fsm, err)) != PL_OK)
                return st;
            memcpy(w->fsm_row, w->fsm, m * sizeof *w->fsm);
            bilateral_forces(model, w, t, q, v, set, w->bil_row);
        }
        for (size_t c = 0; c < ncover; c++) {
            size_t k = w->cover[c], i = eps[k].constraint;
            pl_episode_info *info = &a->info[k];
            double fsm = w->fsm_row[i], f = w->bil_row[i];
            if (!set[i]) { /* the episode's constraint is not in S(t): S(t) and it */
                set[i] = 1;
                if ((st = pl_sliding_force(model, w->work, &w->cs, t, q, v, set, w->lambda, w->fsm, err)) != PL_OK)
                    return st;
                fsm = w->fsm[i];
                bilateral_forces(model, w, t, q, v, set, w->lambda);
                f = w->lambda[i];
                set[i] = 0;
            }
            double muG = mu * x[pl_col_g(n, m) + i];
            double row[5] = {t, (double)(i + 1), muG, fsm, (double)(k + 1)};
            if ((st = pl_table_append(&w->rows[k], row, err)) != PL_OK)
                return st;
            double t_stop = isnan(eps[k].t_out) ? sol->t_final : eps[k].t_out;
            double omega = contact_omega(model, i, mu), delta = decay_rate(omega, model->law[i].xi);
            double transient = (20.0 + log(fmax(1.0, omega * model->v_scale / model->a_scale))) / delta;
            double lo = eps[k].t_in + fmax(0.1 * (t_stop - eps[k].t_in), transient);
            double hi = t_stop - 0.1 * (t_stop - eps[k].t_in);
            if (t >= lo && t <= hi) {
                info->force_error = fmax(info->force_error, fabs(muG - fsm));
                info->force_scale = fmax(info->force_scale, fabs(fsm));
            }
            /* Lift-off predicted where the force of the bilateral contact changes sign (D/A-tilde for
             * one constraint): interpolated linearly between rows.  F^sm itself is the LCP's, clamped
             * at 0 from lift-off on, and would only give the row after it. */
            if (isnan(info->lift_off_predicted) && w->prev_f[k] > 0.0 && f <= 0.0)
                info->lift_off_predicted = w->prev_t[k] + (t - w->prev_t[k]) * w->prev_f[k] / (w->prev_f[k] - f);
            w->prev_t[k] = t;
            w->prev_f[k] = f;
        }
    }
    for (size_t k = 0; k < ne; k++)
        for (size_t r = 0; r < w->rows[k].nrows; r++) {
            pl_status st = pl_table_append(&a->sliding, pl_table_row(&w->rows[k], r), err);
            if (st != PL_OK)
                return st;
        }
    return PL_OK;
}

/* Zeno: flights between successive impacts, while the impact speed is well above what the
 * solution resolves (v_min), up to the capture. */
static void zeno_sequence(const pl_model *model, const pl_solution *sol, pl_analysis *a)
{
    size_t cap = a->impacts;
    double *flights = malloc((cap ? cap : 1) * sizeof *flights);
    if (!flights)
        return;
    size_t nf = 0;
    double t_last = NAN;
    const pl_impact_record *prev = NULL;
    pl_solver_family family = sol->solver->family;
    double mu = pl_solution_option(sol, "mu"), h = pl_solution_option(sol, "h");
    for (size_t k = 0; k < a->impacts; k++) {
        const pl_impact_record *im = &a->impact[k];
        if (!isnan(a->capture_time) && im->event.t >= a->capture_time)
            break;
        /* Penalized runs: 10 A/omega, below which gravity acts significantly during a contact;
         * schemes: 10 A h, below which a flight lasts less than 20 steps. */
        double v_min = family == PL_FAMILY_PENALTY ? 10.0 * model->a_scale / contact_omega(model, im->event.constraint, mu)
                       : family == PL_FAMILY_SCHEME ? 10.0 * model->a_scale * h
                                                    : 0.0;
        if (-im->event.gdot_before < v_min)
            break;
        if (prev) {
            flights[nf++] = im->event.t - prev->t_out;
            t_last = im->t_out;
        }
        prev = im;
    }
    a->fit_flights = nf;
    pl_fit_flights(flights, nf, t_last, &a->contraction_ratio, &a->contraction_ratio_se, &a->accumulation_time);
    free(flights);
}

/* The impact of a penalized episode as an event: entry state, exit velocity.  Non-zero if out of
 * memory. */
static int episode_impact(const pl_solution *sol, const pl_episode *ep, pl_impact_record *r)
{
    size_t n = sol->n, m = sol->m;
    memset(r, 0, sizeof *r);
    if (pl_event_alloc(&r->event, n, m, PL_EVENT_IMPACT, ep->t_in, ep->constraint))
        return -1;
    const double *in = pl_table_row(&sol->traj, ep->row_in), *out = pl_table_row(&sol->traj, ep->row_out);
    memcpy(r->event.q, in + pl_col_q(n, m), n * sizeof *in);
    memcpy(r->event.v_before, in + pl_col_v(n, m), n * sizeof *in);
    memcpy(r->event.v_after, out + pl_col_v(n, m), n * sizeof *out);
    r->event.gamma_before = ep->gamma_in;
    r->event.gamma_after = ep->gamma_out;
    r->event.gdot_before = ep->gdot_in;
    r->event.gdot_after = ep->gdot_out;
    r->event.impulse[ep->constraint] = ep->impulse;
    r->event.participants[ep->constraint] = 1;
    r->t_out = ep->t_out;
    return 0;
}

static int compare_impacts(const void *pa, const void *pb)
{
    const pl_impact_record *a = pa, *b = pb;
    return (a->event.t > b->event.t) - (a->event.t < b->event.t);
}

/* The limit solution's capture: its (first) accumulation point, else the start of a sustained
 * contact that nothing but Zeno points follows. */
static double limit_capture(const pl_solution *sol)
{
    if (sol->zeno.found)
        return sol->zeno.t_accumulation;
    const pl_event *last_slide = NULL;
    for (size_t k = 0; k < sol->nevents; k++) {
        const pl_event *e = &sol->events[k];
        if (e->kind == PL_EVENT_SLIDE_START)
            last_slide = e;
        else if (e->kind != PL_EVENT_ZENO)
            last_slide = NULL; /* something happened after it */
    }
    return last_slide ? last_slide->t : NAN;
}

static void init_analysis(pl_analysis *a)
{
    memset(a, 0, sizeof *a);
    pl_table_init(&a->sliding, 5);
    a->first_impact_time = a->restitution_first = a->scaled_penetration_first = NAN;
    a->lift_off_first = a->lift_off_predicted_first = a->sliding_force_error = a->sliding_force_scale = NAN;
    a->capture_time = a->contraction_ratio = a->contraction_ratio_se = a->accumulation_time = NAN;
}

pl_status pl_analyze(const pl_model *model, const pl_solution *sol, pl_analysis *a, pl_error *err)
{
    init_analysis(a);
    size_t n = sol->n, m = sol->m, ne = sol->nepisodes;
    pl_solver_family family = sol->solver->family;
    double mu = pl_solution_option(sol, "mu");
    a->nepisodes = ne;
    a->info = calloc(ne ? ne : 1, sizeof *a->info);
    a->dv = malloc((ne ? ne : 1) * n * sizeof *a->dv);
    a->impact = calloc((ne > sol->nevents ? ne : sol->nevents) + 1, sizeof *a->impact);
    if (!a->info || !a->dv || !a->impact)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory analysing %zu episodes", ne);

    for (size_t k = 0; k < ne; k++) {
        const pl_episode *ep = &sol->episodes[k];
        pl_episode_info *info = &a->info[k];
        size_t i = ep->constraint;
        info->dv = a->dv + k * n;
        info->kind = family == PL_FAMILY_PENALTY
                         ? pl_classify_episode(ep, sol->t_final, contact_omega(model, i, mu), model->law[i].xi)
                         : classify_scheme_episode(sol, ep);
        double t_stop = isnan(ep->t_out) ? sol->t_final : ep->t_out;
        info->duration = t_stop - ep->t_in;
        /* A run that failed (out of memory, say) may lack the rows of its last episode. */
        int rows = ep->row_in <= ep->row_out && ep->row_out < sol->traj.nrows;
        for (size_t j = 0; j < n; j++)
            info->dv[j] = rows ? pl_table_row(&sol->traj, ep->row_out)[pl_col_v(n, m) + j] -
                                     pl_table_row(&sol->traj, ep->row_in)[pl_col_v(n, m) + j]
                               : NAN;
        info->dv_normal = ep->gdot_out - ep->gdot_in;
        info->scaled_penetration = family == PL_FAMILY_PENALTY ? sqrt(mu) * ep->max_penetration : NAN;
        info->force_error = info->force_scale = info->lift_off_predicted = NAN;
        if (family == PL_FAMILY_PENALTY && info->kind == PL_IMPACT && rows) {
            if (a->impacts == 0)
                a->scaled_penetration_first = info->scaled_penetration;
            if (episode_impact(sol, ep, &a->impact[a->impacts]))
                return pl_fail(err, PL_ERR_NOMEM, "out of memory analysing %zu impacts", a->impacts);
            a->impacts++;
        }
    }
    if (family != PL_FAMILY_PENALTY)
        for (size_t k = 0; k < sol->nevents; k++)
            if (sol->events[k].kind == PL_EVENT_IMPACT) {
                pl_impact_record *r = &a->impact[a->impacts];
                const pl_event *e = &sol->events[k];
                if (pl_event_alloc(&r->event, n, m, e->kind, e->t, e->constraint))
                    return pl_fail(err, PL_ERR_NOMEM, "out of memory analysing %zu impacts", a->impacts);
                a->impacts++;
                pl_event_copy(&r->event, e, n, m);
                r->t_out = r->event.t;
            }
    qsort(a->impact, a->impacts, sizeof *a->impact, compare_impacts); /* episodes are ordered by entry */
    if (a->impacts > 0) {
        const pl_event *first = &a->impact[0].event;
        a->first_impact_time = first->t;
        a->restitution_first = first->gdot_before != 0.0 ? -first->gdot_after / first->gdot_before : NAN;
    }

    /* Capture: the final contact, sustained to the end of the run. */
    if (family == PL_FAMILY_LIMIT || family == PL_FAMILY_EXTERNAL) { /* both have events, no episodes */
        a->capture_time = limit_capture(sol);
    } else if (ne > 0 && a->info[ne - 1].kind == PL_SUSTAINED && isnan(sol->episodes[ne - 1].t_out)) {
        const pl_episode *final = &sol->episodes[ne - 1];
        a->capture_time = final->t_in;
        /* A scheme's landing that begins the final contact is timed where the trajectory reaches
         * the constraint, which may precede the first step with an impulse: it is the capture. */
        for (size_t k = 0; family == PL_FAMILY_SCHEME && k < sol->nevents; k++) {
            const pl_event *e = &sol->events[k];
            if (e->kind == PL_EVENT_IMPACT && e->participants[final->constraint] &&
                fabs(e->t - final->t_in) <= 2.0 * sol->step_size)
                a->capture_time = fmin(a->capture_time, e->t);
        }
    }
    if (!isnan(a->capture_time))
        for (size_t k = 0; k < a->impacts; k++)
            a->impacts_before_capture += a->impact[k].event.t < a->capture_time;

    /* Sustained contacts: the sliding force of penalized runs, lift-offs. */
    int sustained = 0;
    for (size_t k = 0; k < ne; k++)
        sustained |= a->info[k].kind == PL_SUSTAINED;
    if (family == PL_FAMILY_PENALTY && sustained) {
        sliding_work w;
        pl_status s = sliding_work_init(&w, model, ne, err);
        if (s == PL_OK)
            s = compare_sliding(model, sol, mu, a, &w, err);
        sliding_work_free(&w, ne);
        if (s != PL_OK)
            return s;
    }
    for (size_t k = 0; k < ne; k++) {
        pl_episode_info *info = &a->info[k];
        if (info->kind != PL_SUSTAINED)
            continue;
        if (!isnan(info->force_error) && (isnan(a->sliding_force_error) || info->force_error > a->sliding_force_error)) {
            a->sliding_force_error = info->force_error;
            a->sliding_force_scale = info->force_scale;
        }
        if (isnan(a->lift_off_first) && !isnan(sol->episodes[k].t_out)) {
            a->lift_off_first = sol->episodes[k].t_out;
            a->lift_off_predicted_first = info->lift_off_predicted;
        }
    }
    if (family == PL_FAMILY_LIMIT || family == PL_FAMILY_EXTERNAL)
        for (size_t k = 0; k < sol->nevents && isnan(a->lift_off_first); k++)
            if (sol->events[k].kind == PL_EVENT_LIFT_OFF)
                a->lift_off_first = sol->events[k].t;
    zeno_sequence(model, sol, a);
    return PL_OK;
}

void pl_analysis_free(pl_analysis *a)
{
    for (size_t k = 0; a->impact && k < a->impacts; k++)
        pl_event_free(&a->impact[k].event);
    free(a->info);
    free(a->dv);
    free(a->impact);
    a->info = NULL;
    a->dv = NULL;
    a->impact = NULL;
    a->impacts = 0;
    pl_table_free(&a->sliding);
}
