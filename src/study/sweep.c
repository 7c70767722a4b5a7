#include "study/sweep.h"

#include <math.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/linalg.h"
#include "core/number.h"

/* k points geometrically spaced from a to b, exact where the user meant exact numbers: the end
 * points as given, and when b/a is a whole power of ten 10^D, every point whose exponent j D/(k-1)
 * is whole is a's decimal digits shifted (1e2:1e10:9 gives 1e3, not 1000.0000000000007). The
 * others are a 10^(j log10(b/a)/(k-1)), within an ulp or two. */
void pl_grid_geometric(double a, double b, long k, double *v)
{
    v[0] = a;
    if (k == 1)
        return;
    double ratio = log10(b / a), shifted;
    long decades = lround(ratio);
    int whole = fabs(ratio - (double)decades) < 1e-9 && labs(decades) < 700 &&
                pl_decimal_shift(a, (int)decades, &shifted) && shifted == b;
    for (long j = 1; j < k - 1; j++) {
        if (whole && (decades * j) % (k - 1) == 0 && pl_decimal_shift(a, (int)(decades * j / (k - 1)), &v[j]))
            continue;
        v[j] = a * pow(10.0, (double)j * ratio / (double)(k - 1));
    }
    v[k - 1] = b;
}

pl_status pl_parse_grid(const char *text, const char *what, double **values, size_t *n, pl_error *err)
{
    *values = NULL;
    *n = 0;
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf)
        return pl_fail(err, PL_ERR_INPUT, "%s: list too long", what);
    pl_status s;
    double *v = NULL;
    size_t count = 0;
    char *colon = strchr(buf, ':');
    if (colon) {
        char *colon2 = strchr(colon + 1, ':');
        if (!colon2 || strchr(colon2 + 1, ':'))
            return pl_fail(err, PL_ERR_INPUT, "%s: expected A:B:N or a,b,c, got '%s'", what, text);
        *colon = *colon2 = '\0';
        double a, b;
        long k;
        char start[64], end[64], cnt[64];
        snprintf(start, sizeof start, "%s start", what);
        snprintf(end, sizeof end, "%s end", what);
        snprintf(cnt, sizeof cnt, "%s count", what);
        if ((s = pl_parse_double(buf, &a, err, start)) != PL_OK || (s = pl_parse_double(colon + 1, &b, err, end)) != PL_OK ||
            (s = pl_parse_long(colon2 + 1, &k, err, cnt)) != PL_OK)
            return s;
        if (!(a > 0) || !(b > 0))
            return pl_fail(err, PL_ERR_INPUT, "%s: values must be > 0 (got %g:%g)", what, a, b);
        if (k < 1 || k > 1000 || (k == 1 && a != b))
            return pl_fail(err, PL_ERR_INPUT, "%s: the count must be in [1, 1000] (2 or more when A != B)", what);
        v = malloc((size_t)k * sizeof *v);
        if (!v)
            return pl_fail(err, PL_ERR_NOMEM, "out of memory");
        pl_grid_geometric(a, b, k, v);
        count = (size_t)k;
    } else {
        size_t cap = 1;
        for (const char *p = buf; *p; p++)
            cap += *p == ',';
        v = malloc(cap * sizeof *v);
        if (!v)
            return pl_fail(err, PL_ERR_NOMEM, "out of memory");
        for (char *tok = buf, *next; tok; tok = next) {
            next = strchr(tok, ',');
            if (next)
                *next++ = '\0';
            if ((s = pl_parse_double(tok, &v[count], err, what)) != PL_OK) {
                free(v);
                return s;
            }
            if (!(v[count] > 0)) {
                double bad = v[count];
                free(v);
                return pl_fail(err, PL_ERR_INPUT, "%s: values must be > 0 (got %g)", what, bad);
            }
            count++;
        }
    }
    qsort(v, count, sizeof *v, pl_compare_doubles);
    for (size_t j = 1; j < count; j++)
        if (v[j] == v[j - 1]) {
            double repeated = v[j];
            free(v);
            return pl_fail(err, PL_ERR_INPUT, "%s: the value %g is repeated", what, repeated);
        }
    *values = v;
    *n = count;
    return PL_OK;
}

/* ---- parallel runs ------------------------------------------------------------------------- */

typedef struct {
    const pl_model *model;
    const pl_sweep_opts *opts;
    pl_sweep *sw;
    int refined; /* index of the refined option */
    pthread_mutex_t lock;
    size_t next, done, failed;
    int *finished;          /* run k is complete (solved, analysed, measured, written) */
} pool;

/* A solve that returned a failure fails its solution, whose status may not say so (a solve in
 * another process that refused its input before it solved). */
static void solved_as(pl_status s, pl_solution *sol, const pl_error *err)
{
    if (s != PL_OK && sol->status == PL_OK) {
        sol->status = s;
        sol->error = *err;
    }
}

/* One run: solve, analyse, and build the interpolant; a failure stays in the run's status. */
static void run_one(pool *p, size_t k)
{
    pl_sweep *sw = p->sw;
    pl_solve_opts o = p->opts->base;
    o.option[p->refined] = sw->param[k];
    pl_solution *sol = &sw->runs[k];
    pl_error err;
    pl_solve_opts_count_from(&o, pl_budget_start(&o, pl_now_seconds())); /* each run's budget, its analysis included */
    if (p->opts->reuse && p->opts->reuse(sw, k, &o, sol, p->opts->user))
        sw->reused[k] = 1;
    else
        solved_as(p->opts->solve ? p->opts->solve(sw, k, sw->solver, &o, sol, &err, p->opts->user)
                                 : pl_solve(sw->solver, p->model, &o, sol, &err),
                  sol, &err);
    pl_analysed limit = {&sw->limit, &sw->limit_analysis, &sw->limit_traj};
    pl_compare_result res;
    int compared;
    pl_status s = pl_measure_solution(p->model, sol, &(pl_budget){o.max_seconds, o.started},
                                      sw->has_limit ? &limit : NULL, pl_solver_can(sw->solver, PL_SOLVER_GAMMA),
                                      &sw->analysis[k], &sw->traj[k], &res, &sw->match[k], &compared, &err);
    if (compared)
        sw->dist[k] = res.d; /* the window of pl_compare_solution: sw->zeno_window */
    if (s != PL_OK && sol->status == PL_OK) {
        sol->status = s;
        sol->error = err;
    }
}

/* With run k just finished (under the lock): the distance in s to each finished neighbour, and
 * the release of every run whose neighbours are both finished (nothing more needs its rows). */
static void after_run(pool *p, size_t k)
{
    pl_sweep *sw = p->sw;
    size_t n = sw->n;
    for (size_t a = k > 0 ? k - 1 : 0; a <= k && a + 1 < n; a++)
        if (p->finished[a] && p->finished[a + 1] && sw->runs[a].status == PL_OK && sw->runs[a + 1].status == PL_OK) {
            pl_error err;
            if (pl_trajectory_distance_s(&sw->traj[a], &sw->traj[a + 1], &sw->s_dist_q[a], &sw->s_dist_v[a], &err) !=
                PL_OK) { /* the later run fails with the reason: its distance is missing */
                sw->runs[a + 1].status = err.status;
                sw->runs[a + 1].error = err;
            }
        }
    if (!p->opts->release_trajectories)
        return;
    for (size_t r = k > 0 ? k - 1 : 0; r <= k + 1 && r < n; r++)
        if (p->finished[r] && (r == 0 || p->finished[r - 1]) && (r + 1 == n || p->finished[r + 1])) {
            pl_trajectory_free(&sw->traj[r]);
            pl_solution_free_rows(&sw->runs[r]);
        }
}

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t k = p->next++;
        pthread_mutex_unlock(&p->lock);
        if (k >= p->sw->n)
            return NULL;
        run_one(p, k);
        pthread_mutex_lock(&p->lock);
        p->done++;
        if (p->opts->run_done)
            p->opts->run_done(p->sw, k, p->opts->user);
        p->finished[k] = 1;
        after_run(p, k);
        p->failed += p->sw->runs[k].status != PL_OK;
        if (p->opts->progress)
            p->opts->progress("runs", p->done, p->sw->n, p->failed, p->opts->user);
        pthread_mutex_unlock(&p->lock);
    }
}

/* ---- across the sweep ------------------------------------------------------------------------ */

/* The size a quantity's integration noise is measured against: its own value, or for a distance
 * the case's scale of what it measures (length L = V^2/A, velocity V, time L/V, acceleration A,
 * velocity times time). */
typedef enum { SCALE_VALUE = 0, SCALE_UNIT, SCALE_LENGTH, SCALE_VELOCITY, SCALE_TIME, SCALE_FORCE, SCALE_IMPULSE } noise_scale;

static const struct {
    const char *name, *meaning;
    pl_limit_quantity closed_form; /* PL_LIMIT_COUNT: none */
    noise_scale scale;
    int event_time; /* an event's time or its error: the tolerance floor PL_NOISE_RTOLS_TIME (fit.h) */
} quantity_info[PL_SWEEP_NQ] = {
    [PL_Q_FIRST_IMPACT_TIME] = {"first_impact_time", "time of the first impact", PL_LIMIT_FIRST_IMPACT_TIME,
                                SCALE_VALUE, 1},
    [PL_Q_RESTITUTION_FIRST] = {"restitution_first", "restitution -gdot_out/gdot_in of the first impact",
                                PL_LIMIT_RESTITUTION_FIRST, SCALE_UNIT},
    [PL_Q_SCALED_PENETRATION_FIRST] = {"scaled_penetration_first",
                                       "mu^(1/(n+1)) * max penetration of the first impact (sqrt(mu) under Kelvin-Voigt, n = 1)",
                                       PL_LIMIT_SCALED_PENETRATION_FIRST},
    [PL_Q_CAPTURE_TIME] = {"capture_time", "start of the final sustained contact, T*_mu of eq. (52) (a scheme: its last impact before a rest)",
                           PL_LIMIT_CAPTURE_TIME, SCALE_VALUE, 1},
    [PL_Q_ACCUMULATION_ESTIMATE] = {"accumulation_estimate",
                                    "accumulation time extrapolated from the flight times between impacts",
                                    PL_LIMIT_CAPTURE_TIME},
    [PL_Q_LIFT_OFF_FIRST] = {"lift_off_first", "end of the first sustained contact that ends",
                             PL_LIMIT_LIFT_OFF_FIRST, SCALE_VALUE, 1},
    [PL_Q_SLIDING_FORCE_ERROR] = {"sliding_force_error",
                                  "sup |mu G - F^sm| over sustained contacts, after the entry transient", PL_LIMIT_COUNT,
                                  SCALE_FORCE},
    [PL_Q_S_DISTANCE] = {"successive_s_distance", "sup over s of |q^mu - q^mu'| for the next mu' of the sweep",
                         PL_LIMIT_COUNT, SCALE_LENGTH},
    [PL_Q_LIMIT_SUP_Q] = {"sup_q", "sup over [0, T] of |q^mu - q| against the limit solution", PL_LIMIT_COUNT,
                          SCALE_LENGTH},
    [PL_Q_LIMIT_SUP_Q_OUTSIDE] = {"sup_q_outside_zeno",
                                  "the same outside the window around the Zeno point (see zeno_window)",
                                  PL_LIMIT_COUNT, SCALE_LENGTH},
    [PL_Q_LIMIT_L1_V] = {"l1_v", "integral over [0, T] of |v^mu - v| against the limit solution",
                         PL_LIMIT_COUNT, SCALE_IMPULSE},
    [PL_Q_LIMIT_S_DISTANCE] = {"s_distance_q", "sup over s of |q^mu - q| against the limit solution in s",
                               PL_LIMIT_COUNT, SCALE_LENGTH},
    [PL_Q_IMPACT_TIME_ERROR] = {"impact_time_error",
                                "max of |t^mu - t| over the limit impacts paired in every run that pairs any",
                                PL_LIMIT_COUNT, SCALE_TIME, 1},
    [PL_Q_IMPACT_VELOCITY_ERROR] = {"impact_velocity_error",
                                    "max of |v^mu(t_out) - v(t+)| over the same impacts", PL_LIMIT_COUNT,
                                    SCALE_VELOCITY},
};


/* Quantities that measure a distance: their limit is 0. */
static int is_distance(int q)
{
    return q == PL_Q_SLIDING_FORCE_ERROR || q == PL_Q_S_DISTANCE || q >= PL_Q_LIMIT_SUP_Q;
}

/* A quantity of one analysis (a run's, or the limit solution's); NAN where it has none. */
static double analysis_value(const pl_analysis *a, pl_sweep_quantity_id id)
{
    switch (id) {
    case PL_Q_FIRST_IMPACT_TIME: return a->first_impact_time;
    case PL_Q_RESTITUTION_FIRST: return a->restitution_first;
    case PL_Q_SCALED_PENETRATION_FIRST: return a->scaled_penetration_first;
    case PL_Q_CAPTURE_TIME: return a->capture_time;
    case PL_Q_ACCUMULATION_ESTIMATE: return a->accumulation_time;
    case PL_Q_LIFT_OFF_FIRST: return a->lift_off_first;
    case PL_Q_SLIDING_FORCE_ERROR: return a->sliding_force_error;
    default: return NAN;
    }
}

/* How far round-off moves a time quantity of one analysis (the resolution of the episode or event
 * time it is); NAN for the other quantities, and for the accumulation estimated from the flights
 * (an extrapolation). */
static double analysis_resolution(const pl_analysis *a, pl_sweep_quantity_id id)
{
    switch (id) {
    case PL_Q_FIRST_IMPACT_TIME: return a->first_impact_time_resolution;
    case PL_Q_CAPTURE_TIME: return a->capture_time_resolution;
    case PL_Q_LIFT_OFF_FIRST: return a->lift_off_first_resolution;
    default: return NAN;
    }
}

/* The value of a quantity in the limit solution, or NAN.  The accumulation estimated from the
 * flights tends to the accumulation (capture) time of the limit.  The restitution of the first
 * impact is taken on the constraint the runs measure it on (that of the finest run that has one):
 * at a corner the limit labels its impact with the wall approaching fastest, and a penalized run
 * with its first episode's, which may be the other wall (analysis.h). */
static double limit_solution_value(const pl_model *model, const pl_sweep *sw, pl_sweep_quantity_id id)
{
    if (!sw->has_limit)
        return NAN;
    if (id == PL_Q_RESTITUTION_FIRST)
        for (size_t k = sw->n; k-- > 0;)
            if (sw->runs[k].status == PL_OK && sw->analysis[k].restitution_first_constraint != SIZE_MAX)
                return pl_analysis_restitution_of(model, &sw->limit_analysis, sw->analysis[k].restitution_first_constraint);
    return analysis_value(&sw->limit_analysis, id == PL_Q_ACCUMULATION_ESTIMATE ? PL_Q_CAPTURE_TIME : id);
}

static double quantity_value(const pl_sweep *sw, pl_sweep_quantity_id id, size_t k)
{
    if (sw->runs[k].status != PL_OK)
        return NAN;
    if (id == PL_Q_S_DISTANCE)
        return sw->s_dist_q[k];
    if (id < PL_Q_S_DISTANCE)
        return analysis_value(&sw->analysis[k], id);
    if (!sw->has_limit)
        return NAN;
    /* Only a Gamma of paper 004, eq. (5) compares with the limit's along s: a scheme's discrete Gamma
     * advances by |Delta v| at an impact, the limit's by the total variation of the fast solution
     * (larger), and their s-representations differ by that, whatever h. */
    if (id == PL_Q_LIMIT_S_DISTANCE && !pl_solver_can(sw->solver, PL_SOLVER_GAMMA))
        return NAN;
    const pl_limit_distance *d = &sw->dist[k];
    switch (id) {
    case PL_Q_LIMIT_SUP_Q: return d->sup_q;
    case PL_Q_LIMIT_SUP_Q_OUTSIDE: return d->sup_q_outside;
    case PL_Q_LIMIT_L1_V: return d->l1_v;
    case PL_Q_LIMIT_S_DISTANCE: return d->s_dist_q;
    case PL_Q_IMPACT_TIME_ERROR: return d->impact_time_error;
    case PL_Q_IMPACT_VELOCITY_ERROR: return d->impact_velocity_error;
    default: return NAN;
    }
}

static pl_status impacts_per_decade(const pl_model *model, pl_sweep *sw, pl_error *err)
{
    double *x = malloc(2 * (sw->n > 0 ? sw->n : 1) * sizeof *x), *y = x ? x + sw->n : NULL;
    size_t k = 0;
    sw->impacts_per_decade = sw->impacts_per_decade_se = sw->impacts_per_decade_predicted = NAN;
    if (!x)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory fitting the impacts per decade");
    for (size_t j = 0; j < sw->n; j++)
        if (sw->runs[j].status == PL_OK && !isnan(sw->analysis[j].capture_time)) {
            x[k] = log10(sw->x[j]);
            y[k++] = (double)sw->analysis[j].impacts_before_capture;
        }
    double intercept;
    sw->impacts_per_decade = sw->impacts_per_decade_se = NAN;
    if (k < PL_FIT_MIN_POINTS ||
        pl_fit_line(x, y, k, &sw->impacts_per_decade, &sw->impacts_per_decade_se, &intercept) != 0 ||
        !pl_fit_meaningful(k, sw->impacts_per_decade, sw->impacts_per_decade_se))
        sw->impacts_per_decade = sw->impacts_per_decade_se = NAN;
    free(x);
    /* Paper 004 section 7: a penalized run is captured once the impact speed falls below
     * C/sqrt(mu), so the number of rebounds grows like ln(sqrt(mu))/ln(1/e): ln(sqrt(10))/ln(1/e)
     * per decade of mu.  A scheme stops resolving rebounds once the impact speed is O(h A): like
     * ln(1/h)/ln(1/e), ln(10)/ln(1/e) per decade of 1/h.  (A law of another degree is captured at
     * another speed; one whose restitution depends on the speed has no such count: not predicted.) */
    const pl_contact_law *law = &model->law[0];
    double e = law->type->restitution && law->type->exponent(law->p) == 1.0
                   ? law->type->restitution(law->p, model->v_scale) : NAN;
    double per_decade = pl_solver_compliant(sw->solver) ? log(sqrt(10.0)) : log(10.0);
    sw->impacts_per_decade_predicted = (model->m == 1 && e > 0 && e < 1) ? per_decade / log(1.0 / e) : NAN;
    return PL_OK;
}

/* The slowest rate the laws of the model's constraints predict for a mechanism: PL_RATE_EXACT only if every
 * law makes it exact, NAN if one has not derived it. */
static double law_rate(const pl_model *model, pl_rate_quantity what)
{
    double r = PL_RATE_EXACT;
    for (size_t i = 0; i < model->m; i++) {
        const pl_contact_law *law = &model->law[i];
        double ri = law->type->rate ? law->type->rate(law->p, what) : NAN;
        if (isnan(ri))
            return NAN;
        r = fmin(r, ri);
    }
    return r;
}

/* The limit solution's events of a kind before time t. */
static size_t limit_events_before(const pl_sweep *sw, pl_event_kind kind, double t)
{
    size_t count = 0;
    for (size_t k = 0; sw->has_limit && k < sw->limit.nevents && sw->limit.events[k].t < t; k++)
        count += sw->limit.events[k].kind == kind;
    return count;
}

/* The slowest rate of what delays an event of the limit solution at time t: the contact times of earlier
 * impacts, the state after an earlier lift-off; exact if nothing came before it (a first contact reached in
 * flight: no force acts before it); NAN inside a sustained contact, whose lag is not derived here. */
static double lag_rate(const pl_model *model, const pl_sweep *sw, double t)
{
    size_t lifts = limit_events_before(sw, PL_EVENT_LIFT_OFF, t);
    if (limit_events_before(sw, PL_EVENT_SLIDE_START, t) > lifts)
        return NAN;
    double r = PL_RATE_EXACT;
    if (limit_events_before(sw, PL_EVENT_IMPACT, t) > 0)
        r = fmin(r, law_rate(model, PL_RATE_IMPACT_TIME));
    if (lifts > 0)
        r = fmin(r, law_rate(model, PL_RATE_AFTER_LIFT_OFF));
    return r;
}

/* Whether a law that keeps energy (Hertz) gives every impact of the limit solution its limit outcome at
 * every mu (what its exact restitution rests on), under one of two symmetries of the penalized contact:
 * - reversible in time, with one degree of freedom: a fixed obstacle (G_t, G_tt, grad G_t zero) and a free
 *   acceleration that depends neither on time nor on the velocity's sign; the velocity vanishes at the
 *   largest penetration, a state that is its own reversal, so the speed out is the speed in.  With more
 *   degrees of freedom no such state exists in general (the double pendulum under Hertz loses 4e-5 of
 *   the speed at mu = 1e10).  The acceleration is probed at the impact's configuration and at one pushed
 *   into the obstacle (a force that vanishes on the obstacle for every t, a parametric pendulum's, is
 *   equal at every probe there), at -v and at times a quarter and a half of the time scale later;
 * - self-similar in mu, with any number: a constant mass matrix, affine fixed gaps and no free
 *   acceleration at the impact, so that the scaled contact problem does not depend on mu (the wedge, the
 *   corner, Newton's cradle). */
static int impact_probe(const pl_model *model, pl_work *work, pl_gap *g, const pl_event *e, double T, double *q,
                        double *v, double *a, double *b)
{
    size_t n = model->n, m = model->m;
    int fixed = 1, affine = 1;
    for (size_t i = 0; i < m; i++) {
        if (!pl_event_participant(e, i) && i != e->constraint)
            continue;
        pl_model_gap(model, i, e->t, e->q, g);
        fixed &= g->g_t == 0.0 && g->g_tt == 0.0;
        for (size_t j = 0; j < n; j++)
            fixed &= g->grad_t[j] == 0.0;
        for (size_t j = 0; j < n * n; j++)
            affine &= g->hess[j] == 0.0;
    }
    if (!fixed)
        return 0;
    /* the configuration pushed into the obstacle by 1e-3 of the length scale V^2/A, along -grad G */
    pl_model_gap(model, e->constraint, e->t, e->q, g);
    double norm = 0.0, depth = 1e-3 * model->v_scale * model->v_scale / model->a_scale;
    for (size_t j = 0; j < n; j++)
        norm += g->grad[j] * g->grad[j];
    for (size_t j = 0; j < n; j++)
        q[j] = e->q[j] - depth * g->grad[j] / sqrt(norm);
    const double *at[2] = {e->q, q};
    /* self-similar: no free acceleration at either configuration, now or a quarter time scale later */
    int still = model->mass_constant && affine;
    for (int k = 0; k < 2 && still; k++)
        for (int p = 0; p < 2 && still; p++) {
            pl_model_accel(model, work, e->t + 0.25 * T * p, at[k], e->v_before, a, NULL, NULL);
            for (size_t j = 0; j < n; j++)
                still &= a[j] == 0.0;
        }
    if (still)
        return 1;
    if (n != 1)
        return 0;
    for (int k = 0; k < 2; k++) {
        pl_model_accel(model, work, e->t, at[k], e->v_before, a, NULL, NULL);
        const double probes[3][2] = {{0.0, -1.0}, {0.25 * T, 1.0}, {0.5 * T, 1.0}};
        for (int p = 0; p < 3; p++) {
            v[0] = probes[p][1] * e->v_before[0];
            pl_model_accel(model, work, e->t + probes[p][0], at[k], v, b, NULL, NULL);
            if (b[0] != a[0])
                return 0;
        }
    }
    return 1;
}

static int impacts_reversible(const pl_model *model, const pl_sweep *sw)
{
    size_t n = model->n;
    pl_gap *g = pl_gap_new(1, n, 1);
    pl_work *work = pl_work_new(model);
    double *scratch = malloc(4 * n * sizeof *scratch);
    int reversible = g && work && scratch;
    double T = pl_model_time_scale(model);
    for (size_t l = 0; reversible && l < sw->limit_analysis.impacts; l++)
        reversible = impact_probe(model, work, g, &sw->limit_analysis.impact[l].event, T, scratch, scratch + n,
                                  scratch + 2 * n, scratch + 3 * n);
    free(scratch);
    free(g);
    pl_work_free(work);
    return reversible;
}

/* A law's rate for an impact's own outcome: where it claims exactness (energy kept), only where the impacts
 * are reversible (impacts_reversible); elsewhere the regular forces act over the contact time. */
static double outcome_rate(const pl_model *model, const pl_sweep *sw, pl_rate_quantity what)
{
    double r = law_rate(model, what);
    return r == PL_RATE_EXACT && !(sw->has_limit && impacts_reversible(model, sw)) ? law_rate(model, PL_RATE_PENETRATION)
                                                                                 : r;
}

/* The law's rate for the sliding force's error, a lag of the penetration behind a varying load once the
 * entry transient has settled (docs/laws.md, "Sustained contact"): not predicted, with *note saying why,
 * where no run compares a sustained contact (none outlasts its transient, or its law never settles), or
 * where every compared contact's load is constant (the settled error is then round-off). */
static double sliding_force_rate(const pl_model *model, const pl_sweep *sw, const char **note)
{
    double r = law_rate(model, PL_RATE_SLIDING_FORCE);
    int compared = 0, varies = 0;
    for (size_t k = 0; k < sw->n; k++)
        if (sw->runs[k].status == PL_OK) {
            compared |= isfinite(sw->analysis[k].sliding_force_error);
            varies |= sw->analysis[k].sliding_load_varies;
        }
    if (!compared)
        *note = "no run compares a sustained contact: none outlasts its entry transient, which decays at the law's "
                "settling rate under the load A (never under an elastic law)";
    else if (!varies)
        *note = "the sliding force is constant over every compared contact: no lag behind a varying load, the "
                "mechanism the law's rate is derived for";
    return *note ? NAN : r; /* NAN too where the law derives none (a varying load under Hertz: never compared) */
}

/* The rate the law predicts for quantity q of this sweep (docs/laws.md, "Convergence rates"): what sets its
 * error depends on the events of the limit solution before it (lag_rate).  An impact's time and the
 * velocity after it are taken over the impacts every run is measured on (impact_common).  *note: why no
 * rate is predicted for what this sweep measured, or left NULL. */
static double predicted_rate(const pl_model *model, const pl_sweep *sw, pl_sweep_quantity_id q, const char **note)
{
    if (!pl_solver_compliant(sw->solver)) /* the law predicts rates in mu */
        return NAN;
    const pl_analysis *la = &sw->limit_analysis;
    switch (q) {
    case PL_Q_FIRST_IMPACT_TIME:
        return sw->has_limit && la->impacts > 0 ? lag_rate(model, sw, la->impact[0].event.t) : NAN;
    case PL_Q_RESTITUTION_FIRST: return outcome_rate(model, sw, PL_RATE_RESTITUTION);
    case PL_Q_SCALED_PENETRATION_FIRST: return law_rate(model, PL_RATE_PENETRATION);
    case PL_Q_CAPTURE_TIME: return law_rate(model, PL_RATE_CAPTURE);
    case PL_Q_LIFT_OFF_FIRST: {
        /* A resting contact that a limit impact takes part in and ends (Newton's cradle: the wave through
         * the resting balls; the limit has no lift-off there, or one at the impact's time) ends with that
         * impact's fast motion: it lags by a contact time. */
        for (size_t l = 0; sw->has_limit && l < la->impacts; l++) {
            size_t parts = 0;
            for (size_t i = 0; i < model->m; i++)
                parts += pl_event_participant(&la->impact[l].event, i);
            if (parts > 1 && (isnan(la->lift_off_first) || la->impact[l].event.t == la->lift_off_first))
                return law_rate(model, PL_RATE_IMPACT_TIME);
        }
        double r = law_rate(model, PL_RATE_LIFT_OFF);
        if (sw->has_limit && la->impacts > 0 && la->impact[0].event.t < la->lift_off_first)
            r = fmin(r, law_rate(model, PL_RATE_IMPACT_TIME));
        return r;
    }
    case PL_Q_SLIDING_FORCE_ERROR: return sliding_force_rate(model, sw, note);
    case PL_Q_IMPACT_TIME_ERROR:
    case PL_Q_IMPACT_VELOCITY_ERROR: {
        if (!sw->has_limit || sw->impact_common_size == 0)
            return NAN;
        /* The velocity after an impact lags with its time only where the regular forces vary along the way:
         * under a uniform field (the ball) it carries the impacts' own errors and a lift-off's. */
        int velocity = q == PL_Q_IMPACT_VELOCITY_ERROR;
        double r = velocity ? outcome_rate(model, sw, PL_RATE_IMPACT_VELOCITY) : PL_RATE_EXACT;
        for (size_t l = 0; l < la->impacts; l++) {
            if (!sw->impact_common[l])
                continue;
            double t = la->impact[l].event.t, lag = lag_rate(model, sw, t);
            if (isnan(lag))
                return NAN;
            if (velocity)
                lag = limit_events_before(sw, PL_EVENT_LIFT_OFF, t) ? law_rate(model, PL_RATE_AFTER_LIFT_OFF) : PL_RATE_EXACT;
            r = fmin(r, lag);
        }
        return r;
    }
    default: return NAN; /* the distances: the slowest of the case's events, not derived */
    }
}

/* A capture time without a limit grows like ln mu: its slope against log10 mu, and the slope predicted for
 * one constraint under Hunt-Crossley, ln(10)/(n A c) (docs/laws.md, A the gap acceleration of the case). */
static pl_status capture_growth(const pl_model *model, pl_sweep *sw, pl_error *err)
{
    sw->capture_per_decade = sw->capture_per_decade_se = sw->capture_per_decade_predicted = NAN;
    const pl_sweep_quantity *Q = &sw->q[PL_Q_CAPTURE_TIME];
    double *x = malloc(2 * (sw->n > 0 ? sw->n : 1) * sizeof *x), *y = x ? x + sw->n : NULL, intercept;
    size_t k = 0;
    if (!x)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory fitting the capture time's growth");
    for (size_t j = 0; j < sw->n; j++)
        if (isfinite(Q->values[j])) {
            x[k] = log10(sw->x[j]);
            y[k++] = Q->values[j];
        }
    if (k < PL_FIT_MIN_POINTS ||
        pl_fit_line(x, y, k, &sw->capture_per_decade, &sw->capture_per_decade_se, &intercept) != 0 ||
        !pl_fit_meaningful(k, sw->capture_per_decade, sw->capture_per_decade_se))
        sw->capture_per_decade = sw->capture_per_decade_se = NAN;
    free(x);
    const pl_contact_law *law = &model->law[0];
    int c = pl_law_param_index(law->type, "c");
    if (model->m == 1 && law->type == &pl_law_hunt_crossley && c >= 0 && law->p[c] > 0.0 && model->a_scale > 0.0)
        sw->capture_per_decade_predicted = log(10.0) / (law->type->exponent(law->p) * model->a_scale * law->p[c]);
    return PL_OK;
}

static pl_status allocate(pl_sweep *sw, size_t n, pl_error *err)
{
    memset(sw, 0, sizeof *sw);
    sw->n = n;
    sw->param = calloc(n, sizeof *sw->param);
    sw->x = calloc(n, sizeof *sw->x);
    sw->runs = calloc(n, sizeof *sw->runs);
    sw->reused = calloc(n, sizeof *sw->reused);
    sw->analysis = calloc(n, sizeof *sw->analysis);
    sw->traj = calloc(n, sizeof *sw->traj);
    sw->s_dist_q = calloc(n, sizeof *sw->s_dist_q);
    sw->s_dist_v = calloc(n, sizeof *sw->s_dist_v);
    sw->dist = calloc(n, sizeof *sw->dist);
    sw->match = calloc(n, sizeof *sw->match);
    pl_table_init(&sw->impact_errors, 11);
    int ok = sw->param && sw->x && sw->runs && sw->reused && sw->analysis && sw->traj && sw->s_dist_q && sw->s_dist_v &&
             sw->dist && sw->match;
    for (int q = 0; q < PL_SWEEP_NQ; q++) {
        sw->q[q].name = quantity_info[q].name;
        sw->q[q].meaning = quantity_info[q].meaning;
        sw->q[q].values = calloc(n, sizeof *sw->q[q].values);
        sw->q[q].errors = calloc(n, sizeof *sw->q[q].errors);
        sw->q[q].resolution = calloc(n, sizeof *sw->q[q].resolution);
        ok = ok && sw->q[q].values && sw->q[q].errors && sw->q[q].resolution;
    }
    return ok ? PL_OK : pl_fail(err, PL_ERR_NOMEM, "out of memory for a sweep of %zu runs", n);
}

/* The limit solution, once: the reference every run is measured against. */
static void solve_limit(const pl_model *model, const pl_sweep_opts *opts, pl_sweep *sw)
{
    pl_solve_opts lo;
    pl_sweep_limit_opts(model, opts, &lo);
    pl_error lerr;
    pl_solve_opts_count_from(&lo, pl_budget_start(&opts->base, pl_now_seconds())); /* its own budget, its analysis included */
    if (opts->reuse && opts->reuse(sw, PL_SWEEP_LIMIT, &lo, &sw->limit, opts->user))
        sw->limit_reused = 1;
    else
        solved_as(opts->solve ? opts->solve(sw, PL_SWEEP_LIMIT, &pl_solver_limit, &lo, &sw->limit, &lerr, opts->user)
                              : pl_solve(&pl_solver_limit, model, &lo, &sw->limit, &lerr),
                  &sw->limit, &lerr);
    int compared;
    pl_status measured = pl_measure_solution(model, &sw->limit, &(pl_budget){lo.max_seconds, lo.started}, NULL, 0,
                                             &sw->limit_analysis, &sw->limit_traj, NULL, NULL, &compared, &lerr);
    if (measured != PL_OK && sw->limit.status == PL_OK) { /* its analysis failed (the budget, memory), as a run's */
        sw->limit.status = measured;
        sw->limit.error = lerr;
    }
    sw->has_limit = sw->limit.status == PL_OK;
    if (sw->has_limit && sw->limit.zeno.found) {
        /* Near a Zeno point the runs are captured at T* != t_acc and the impact sequences differ
         * in number; the window is the last 1% of the time to accumulation. */
        double w = 0.01 * sw->limit.zeno.t_accumulation;
        sw->zeno_window[0] = sw->limit.zeno.t_accumulation - w;
        sw->zeno_window[1] = sw->limit.zeno.t_accumulation + w;
    }
}

/* The impact set common to the runs, every run's impact errors over it, and the table of every pair
 * in the order of the runs. */
static pl_status match_across_runs(pl_sweep *sw, pl_error *err)
{
    size_t nl = sw->limit_analysis.impacts;
    const pl_impact_match **m = malloc((sw->n ? sw->n : 1) * sizeof *m);
    sw->impact_common = calloc(nl + 1, 1);
    if (!m || !sw->impact_common) {
        free(m);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for the impacts of a sweep");
    }
    for (size_t k = 0; k < sw->n; k++)
        m[k] = sw->runs[k].status == PL_OK ? &sw->match[k] : NULL;
    sw->impact_common_size = pl_impact_common_set(m, sw->n, nl, sw->impact_common);
    free(m);
    pl_status s = PL_OK;
    for (size_t k = 0; k < sw->n && s == PL_OK; k++) {
        if (sw->runs[k].status != PL_OK)
            continue;
        const pl_impact_match *mk = &sw->match[k];
        pl_limit_distance_impacts_over(&sw->dist[k], mk, sw->impact_common);
        for (size_t l = 0; l < mk->nlimit && s == PL_OK; l++) {
            const pl_impact_pair *pr = &mk->pair[l];
            if (pr->kind != PL_MATCH_PAIRED)
                continue;
            const pl_event *le = &sw->limit_analysis.impact[l].event, *re = &sw->analysis[k].impact[pr->partner].event;
            double row[11] = {sw->param[k], (double)(le->constraint + 1), (double)(l + 1), (double)(pr->partner + 1),
                              le->t, re->t, pr->time_error, pr->velocity_error, pr->centre, pr->window,
                              (double)sw->impact_common[l]};
            s = pl_table_append(&sw->impact_errors, row, err);
        }
    }
    return s;
}

double pl_default_h(const pl_model *model, double t_end, double k)
{
    double T = pl_model_time_scale(model); /* V/A, or the case's forcing time */
    /* on round values, the one at or above, so that no run costs more; below where t-end caps it
     * (docs/methods.md, "Default grids") */
    double cap = t_end / pow(10.0, 1.0 + k), h = pl_round_125(pow(10.0, -1.2 - k) * T, 1);
    return h <= cap ? h : pl_round_125(cap, 0);
}

pl_status pl_sweep_default_grid(const pl_solver_type *solver, const pl_model *model, double t_end, double **values,
                                size_t *n, pl_error *err)
{
    if (pl_solver_compliant(solver))
        return pl_parse_grid("1e2:1e10:9", "--mu", values, n, err);
    double *v = malloc(7 * sizeof *v);
    if (!v)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    for (int k = 0; k < 7; k++)
        v[k] = pl_default_h(model, t_end, 0.5 * (6 - k));
    *values = v;
    *n = 7;
    return PL_OK;
}

void pl_sweep_limit_opts(const pl_model *model, const pl_sweep_opts *opts, pl_solve_opts *lo)
{
    pl_limit_opts(model, &opts->base, opts->limit_rtol, lo);
    /* samples means rows per flight and per episode for every solver, but a scheme's 0 (every step)
     * would leave the limit its steps alone, without the grid of its dense output: it keeps its own. */
    if (opts->base.samples == 0 && opts->solver && !pl_solver_can(opts->solver, PL_SOLVER_DENSE)) {
        pl_solve_opts own;
        pl_solve_opts_init(&own, &pl_solver_limit, model, lo->t_end);
        lo->samples = own.samples;
    }
}

pl_status pl_sweep_check(const pl_model *model, const double *values, size_t n, const pl_sweep_opts *opts,
                         int *limit_refused, pl_error *err)
{
    const pl_solver_type *solver = opts->solver;
    int refined = pl_solver_option_index(solver, solver->refine);
    pl_status s = PL_OK;
    *limit_refused = 0;
    for (size_t k = 0; s == PL_OK && k < n; k++) {
        pl_solve_opts one = opts->base;
        one.option[refined] = values[k];
        if ((s = pl_param_check(&solver->options[refined], values[k], err)) == PL_OK)
            s = pl_solve_check(solver, model, &one, err);
    }
    /* A sweep whose reference cannot be computed is refused before it runs, not reported after. */
    if (s == PL_OK && opts->with_limit) {
        pl_solve_opts lo;
        pl_sweep_limit_opts(model, opts, &lo);
        *limit_refused = (s = pl_solve_check(&pl_solver_limit, model, &lo, err)) != PL_OK;
    }
    return s;
}

void pl_sweep_order(const pl_solver_type *solver, double *values, size_t n)
{
    qsort(values, n, sizeof *values, pl_compare_doubles);
    for (size_t k = 0; solver->refine_sign < 0 && k < n / 2; k++) {
        double t = values[k];
        values[k] = values[n - 1 - k];
        values[n - 1 - k] = t;
    }
}

pl_status pl_sweep_run(const pl_model *model, const double *values, size_t n, const pl_sweep_opts *opts,
                       pl_sweep *sw, pl_error *err)
{
    pl_status s = allocate(sw, n, err);
    if (s != PL_OK) {
        pl_sweep_free(sw);
        return s;
    }
    const pl_solver_type *solver = opts->solver;
    sw->solver = solver;
    sw->param_name = solver->refine;
    sw->base = opts->base;
    int refined = solver->refine ? pl_solver_option_index(solver, solver->refine) : -1;
    if (refined < 0) {
        pl_sweep_free(sw);
        return pl_fail(err, PL_ERR_INPUT, "the %s solver has no option to refine", solver->name);
    }
    /* In the order of refinement: x = mu increasing, or x = 1/h increasing. */
    memcpy(sw->param, values, n * sizeof *values);
    pl_sweep_order(solver, sw->param, n);
    for (size_t k = 0; k < n; k++)
        sw->x[k] = solver->refine_sign > 0 ? sw->param[k] : 1.0 / sw->param[k];
    sw->t_end = opts->base.t_end;
    int irtol = pl_solver_option_index(solver, "rtol");
    /* The integration noise of a scheme is round-off: its steps are exact up to the LCP's. */
    sw->noise_rtol = irtol >= 0 ? opts->base.option[irtol] : 1e-13;
    sw->zeno_window[0] = sw->zeno_window[1] = NAN;
    if (opts->with_limit) {
        if (opts->progress)
            opts->progress("limit", 0, 1, 0, opts->user);
        solve_limit(model, opts, sw);
        if (opts->progress)
            opts->progress("limit", 1, 1, sw->has_limit ? 0 : 1, opts->user);
    }
    if (opts->progress)
        opts->progress("runs", 0, n, 0, opts->user);

    for (size_t k = 0; k < n; k++)
        sw->s_dist_q[k] = sw->s_dist_v[k] = NAN;
    pool p = {.model = model, .opts = opts, .sw = sw, .refined = refined, .finished = calloc(n, sizeof(int))};
    if (!p.finished)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for a sweep of %zu runs", n);
    pthread_mutex_init(&p.lock, NULL);
    size_t jobs = opts->jobs < 1 ? 1 : (size_t)opts->jobs;
    if (jobs > n)
        jobs = n;
    /* one job runs in the caller's thread (as the study's: a Python model's callbacks cost 4x from a
     * thread the interpreter does not know) */
    pthread_t *threads = jobs > 1 ? malloc(jobs * sizeof *threads) : NULL; /* on the heap: jobs is the caller's */
    size_t started = 0;
    for (; threads && started < jobs; started++)
        if (pthread_create(&threads[started], NULL, worker, &p) != 0)
            break;
    if (started == 0)
        worker(&p); /* no thread could be started: run here */
    for (size_t j = 0; j < started; j++)
        pthread_join(threads[j], NULL);
    free(threads);
    pthread_mutex_destroy(&p.lock);

    /* A fixed step ends at t_end: slightly shorter than h when h does not divide it. */
    for (size_t k = 0; k < n; k++)
        if (pl_solver_can(solver, PL_SOLVER_FIXED_STEP) && sw->runs[k].step_size > 0.0)
            sw->x[k] = 1.0 / sw->runs[k].step_size;
    for (size_t k = 0; k < n; k++)
        sw->failures += sw->runs[k].status != PL_OK;
    free(p.finished);
    if (opts->progress)
        opts->progress("analysis", 0, 1, 0, opts->user);
    if (sw->has_limit && (s = match_across_runs(sw, err)) != PL_OK)
        return s;
    int accumulate = pl_laws_bounces_accumulate(model->law, model->m);
    for (int q = 0; q < PL_SWEEP_NQ; q++) {
        pl_sweep_quantity *Q = &sw->q[q];
        for (size_t k = 0; k < n; k++)
            Q->values[k] = quantity_value(sw, (pl_sweep_quantity_id)q, k);
        Q->predicted_note = NULL;
        Q->predicted_rate = predicted_rate(model, sw, (pl_sweep_quantity_id)q, &Q->predicted_note);
        Q->no_limit = NULL;
        int fitted = 0, captured = 0; /* runs with flights to fit, with a capture */
        for (size_t k = 0; k < n; k++) {
            fitted |= sw->runs[k].status == PL_OK && sw->analysis[k].fit_flights >= 3;
            captured |= q == PL_Q_CAPTURE_TIME && isfinite(Q->values[k]);
        }
        if (q == PL_Q_ACCUMULATION_ESTIMATE && !accumulate && fitted && pl_solver_compliant(sw->solver))
            Q->no_limit = "the law's impacts never accumulate (elastic, or 1 - e ~ c V: flights sum like a harmonic "
                          "series): no Zeno point to extrapolate";
        else if (q == PL_Q_CAPTURE_TIME && Q->predicted_rate == 0.0 && captured)
            Q->no_limit = "the limit's impacts never accumulate: the penalized capture time grows like ln mu";
        if (Q->no_limit) {
            /* nothing to fit a rate to, nor a limit to extrapolate */
            memset(&Q->conv, 0, sizeof Q->conv);
            Q->conv.rate = Q->conv.rate_se = Q->conv.rate_upper = Q->conv.rate_upper_se = NAN;
            Q->conv.limit = Q->conv.limit_error = Q->conv.floor = NAN;
            for (size_t k = 0; k < n; k++) {
                Q->errors[k] = Q->resolution[k] = NAN;
                if (q == PL_Q_ACCUMULATION_ESTIMATE)
                    Q->values[k] = NAN;
            }
            continue;
        }
        /* The reference: the case's closed form, else the limit solution, else extrapolation. */
        double exact = quantity_info[q].closed_form == PL_LIMIT_COUNT ? NAN
                                                                       : pl_model_limit_value(model, quantity_info[q].closed_form);
        int from_limit = 0;
        if (!isfinite(exact) && !is_distance(q)) {
            exact = limit_solution_value(model, sw, (pl_sweep_quantity_id)q);
            from_limit = isfinite(exact);
        }
        if (is_distance(q))
            exact = 0.0; /* these are errors themselves */
        /* The integration's tolerance floor: PL_NOISE_RTOLS (event times: PL_NOISE_RTOLS_TIME) rtol
         * times the size of the quantity. */
        double V = model->v_scale, A = model->a_scale, L = V * V / A, scale = 0.0;
        switch (quantity_info[q].scale) {
        case SCALE_LENGTH: scale = L; break;
        case SCALE_VELOCITY: scale = V; break;
        case SCALE_TIME: scale = L / V; break;
        case SCALE_FORCE: scale = A; break;
        case SCALE_IMPULSE: scale = V * (isfinite(sw->t_end) ? sw->t_end : L / V); break;
        case SCALE_UNIT: scale = 1.0; break; /* dimensionless, and may tend to 0 */
        case SCALE_VALUE:
            scale = isfinite(exact) ? fabs(exact) : 0.0;
            for (size_t k = 0; k < n; k++)
                if (isfinite(Q->values[k]))
                    scale = fmax(scale, fabs(Q->values[k]));
            break;
        }
        /* A time's own resolution (and its reference's, the limit solution's: a closed form is
         * taken as exact) is the floor of its error where it exceeds the integration noise. */
        double reference_resolution = from_limit ? analysis_resolution(&sw->limit_analysis, (pl_sweep_quantity_id)q) : 0.0;
        for (size_t k = 0; k < n; k++)
            Q->resolution[k] = sw->runs[k].status == PL_OK
                                   ? analysis_resolution(&sw->analysis[k], (pl_sweep_quantity_id)q) + reference_resolution
                                   : NAN;
        double rtols = quantity_info[q].event_time ? PL_NOISE_RTOLS_TIME : PL_NOISE_RTOLS;
        Q->conv = pl_convergence_of(sw->x, Q->values, n, exact, rtols * sw->noise_rtol * scale, Q->resolution,
                                    Q->errors);
        if (Q->conv.no_memory)
            return pl_fail(err, PL_ERR_NOMEM, "out of memory fitting the rate of %s", quantity_info[q].name);
        if (from_limit)
            Q->conv.reference = PL_REF_LIMIT;
        else if (is_distance(q))
            Q->conv.reference = PL_REF_DISTANCE;
    }
    s = impacts_per_decade(model, sw, err);
    if (s == PL_OK)
        s = capture_growth(model, sw, err);
    if (s != PL_OK)
        return s;
    if (opts->progress)
        opts->progress("analysis", 1, 1, 0, opts->user);
    return PL_OK;
}

void pl_sweep_free(pl_sweep *sw)
{
    for (size_t k = 0; k < sw->n; k++) {
        if (sw->runs)
            pl_solution_free(&sw->runs[k]);
        if (sw->analysis)
            pl_analysis_free(&sw->analysis[k]);
        if (sw->traj)
            pl_trajectory_free(&sw->traj[k]);
    }
    for (int q = 0; q < PL_SWEEP_NQ; q++) {
        free(sw->q[q].values);
        free(sw->q[q].errors);
        free(sw->q[q].resolution);
    }
    free(sw->param);
    free(sw->x);
    free(sw->runs);
    free(sw->reused);
    free(sw->analysis);
    free(sw->traj);
    free(sw->s_dist_q);
    free(sw->s_dist_v);
    free(sw->dist);
    for (size_t k = 0; sw->match && k < sw->n; k++)
        pl_impact_match_free(&sw->match[k]);
    free(sw->match);
    free(sw->impact_common);
    pl_table_free(&sw->impact_errors);
    pl_solution_free(&sw->limit);
    pl_analysis_free(&sw->limit_analysis);
    pl_trajectory_free(&sw->limit_traj);
    memset(sw, 0, sizeof *sw);
}
