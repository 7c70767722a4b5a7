#include "study/analysis.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/lcp.h"
#include "core/linalg.h"
#include "model/contact_law.h"
#include "model/sliding.h"
#include "model/sparse_set.h"
#include "solvers/solver.h"
#include "study/coupling.h"
#include "study/fit.h"

const char *pl_episode_kind_name(pl_episode_kind kind)
{
    return kind == PL_IMPACT ? "impact" : kind == PL_SUSTAINED ? "sustained" : "unresolved";
}

/* Constraint i's contact frequency: sqrt(k mu) under a linear law; under a nonlinear one, that of its
 * fast system at the model's speed V, or pi over its contact time at the speed V given. */
static double contact_omega(const pl_model *model, size_t i, double mu)
{
    const pl_contact_law *law = &model->law[i];
    return pl_law_is_linear(law) ? sqrt(law->k * mu) : pl_law_frequency(law, mu, model->v_scale);
}

static double contact_omega_at(const pl_model *model, size_t i, double mu, double V)
{
    const pl_contact_law *law = &model->law[i];
    if (pl_law_is_linear(law) || !(V > 0.0))
        return contact_omega(model, i, mu);
    return M_PI / pl_law_contact_time(law, mu, V);
}

/* mu^(1/(n+1)) times a penetration: the limit of an impact's under a law homogeneous of degree n. */
static double scaled_penetration(const pl_model *model, size_t i, double mu, double penetration)
{
    const pl_contact_law *law = &model->law[i];
    if (pl_law_is_linear(law))
        return sqrt(mu) * penetration;
    return pow(mu, 1.0 / (law->type->exponent(law->p) + 1.0)) * penetration;
}

pl_episode_kind pl_classify_episode(const pl_episode *ep, double t_final, double omega, double xi, double min_rate)
{
    /* An underdamped impact lasts one half-period; an overdamped one ends when its exponential
     * return to G = 0 is separated from 0 by the forces the run resolves, within ~37 decay times. */
    double short_contact = xi < 1.0 ? 3.0 * M_PI / (omega * sqrt(1.0 - xi * xi))
                                    : 50.0 / pl_oscillator_decay_rate(omega, xi);
    if (isnan(ep->t_out))
        return t_final - ep->t_in <= short_contact ? PL_UNRESOLVED : PL_SUSTAINED;
    if (!(ep->gdot_in < 0.0) || !(ep->gdot_out > 0.0))
        return PL_SUSTAINED;
    if (ep->t_out - ep->t_in > short_contact)
        return PL_SUSTAINED;
    return -ep->gdot_in > min_rate ? PL_IMPACT : PL_UNRESOLVED;
}

/* The rate resolution of a penalized episode of constraint i at its entry state (row_in): omega
 * times the resolution of G_i there (pl_gap_resolution: the round-off of its terms, or rtol times the
 * penetration scale pl_law_rest_penetration, the floor of the tolerance the run holds G_i to).  A rate
 * below it is not the run's: its sign is not resolved, and no ratio of it is reported.  0 if the
 * episode has no entry row (a run that failed). */
static double rate_resolution(const pl_model *model, const pl_solution *sol, const pl_episode *ep, double mu,
                              double rtol, pl_gap *gap)
{
    if (ep->row_in >= sol->traj.nrows)
        return 0.0;
    size_t n = sol->n, m = sol->m, i = ep->constraint;
    const double *row = pl_table_row(&sol->traj, ep->row_in), *q = row + pl_col_q(n, m);
    pl_model_gap_sparse(model, i, row[0], q, gap); /* the terms over the support: the dense sum's */
    double floor = rtol * pl_law_rest_penetration(&model->law[i], mu, model->v_scale, model->a_scale);
    double rate = contact_omega(model, i, mu) * pl_gap_resolution(pl_gap_terms(gap, 0.0, q, n), floor);
    return isfinite(rate) ? rate : 0.0;
}

/* An episode's rows for free_rate_changes: row_in to row_out, or the last row of a run without it. */
typedef struct {
    size_t episode, first, last;
} episode_rows;

static int compare_episode_rows(const void *pa, const void *pb)
{
    const episode_rows *a = pa, *b = pb;
    if (a->first != b->first)
        return (a->first > b->first) - (a->first < b->first);
    return (a->episode > b->episode) - (a->episode < b->episode);
}

/* The change of the gap rate of a penalized episode of constraint i by the free gap acceleration D
 * over the contact time (pl_law_contact_time), D the largest over the episode's rows: an entry rate
 * below it is turned by the free motion as fast as by the contact, which is then not the fast motion
 * of an impact (paper 004, Theorem 5, freezes the slow forces over it).  For the episodes eps[0 ..
 * count) at once, into change (count): the rows are swept once and D is taken at each row for every
 * episode holding it from one velocity map and free acceleration (pl_model_free_gap_accels), not
 * once an episode and row: each is O(n), and with impacts and their rows both growing with the
 * bodies (a row of 3000 disks) that was the analysis's N^3.  The values are those of one episode at
 * a time.  Non-zero if out of memory. */
static int free_rate_changes(const pl_model *model, const pl_solution *sol, const size_t *eps, size_t count,
                             double mu, pl_work *work, double *change)
{
    size_t n = sol->n, m = sol->m, nrows = sol->traj.nrows, nr = 0;
    episode_rows *er = malloc((count ? count : 1) * sizeof *er);
    size_t *active = malloc((count ? count : 1) * 2 * sizeof *active), *idx = active ? active + count : NULL;
    double *D = malloc((count ? count : 1) * 2 * sizeof *D), *Dr = D ? D + count : NULL;
    if (!er || !active || !D) {
        free(er);
        free(active);
        free(D);
        return -1;
    }
    for (size_t c = 0; c < count; c++) {
        const pl_episode *ep = &sol->episodes[eps[c]];
        size_t last = ep->row_out < nrows ? ep->row_out : nrows - 1;
        D[c] = 0.0;
        if (nrows > 0 && ep->row_in <= last)
            er[nr++] = (episode_rows){c, ep->row_in, last};
    }
    qsort(er, nr, sizeof *er, compare_episode_rows);
    size_t next = 0, nactive = 0, r = 0;
    while (next < nr || nactive > 0) {
        if (nactive == 0 && er[next].first > r)
            r = er[next].first; /* no episode holds the rows before */
        while (next < nr && er[next].first <= r)
            active[nactive++] = next++;
        const double *row = pl_table_row(&sol->traj, r);
        for (size_t a = 0; a < nactive; a++)
            idx[a] = sol->episodes[eps[er[active[a]].episode]].constraint;
        pl_model_free_gap_accels(model, work, row[0], row + pl_col_q(n, m), row + pl_col_v(n, m), idx, nactive, Dr);
        size_t kept = 0;
        for (size_t a = 0; a < nactive; a++) {
            const episode_rows *e = &er[active[a]];
            D[e->episode] = fmax(D[e->episode], fabs(Dr[a]));
            if (e->last > r)
                active[kept++] = active[a];
        }
        nactive = kept;
        r++;
    }
    for (size_t c = 0; c < count; c++) {
        const pl_episode *ep = &sol->episodes[eps[c]];
        change[c] = D[c] * pl_law_contact_time(&model->law[ep->constraint], mu, fabs(ep->gdot_in));
        if (!isfinite(change[c]))
            change[c] = 0.0;
    }
    free(er);
    free(active);
    free(D);
    return 0;
}

/* A penalized run's episodes classified (info->kind), their rate resolutions into resolved (ne):
 * each by its own rates first, then the impacts again with the free motion's share (free_rate_changes,
 * for an impact alone: its rows).  Non-zero if out of memory. */
static int classify_penalized(const pl_model *model, const pl_solution *sol, double mu, double rtol, pl_gap *gap,
                              pl_work *work, pl_analysis *a, double *resolved)
{
    size_t ne = sol->nepisodes, nimpacts = 0;
    size_t *impacts = malloc((ne ? ne : 1) * sizeof *impacts);
    double *change = malloc((ne ? ne : 1) * sizeof *change);
    if (!impacts || !change) {
        free(impacts);
        free(change);
        return -1;
    }
    for (size_t k = 0; k < ne; k++) {
        const pl_episode *ep = &sol->episodes[k];
        size_t i = ep->constraint;
        resolved[k] = rate_resolution(model, sol, ep, mu, rtol, gap);
        /* a nonlinear law's impacts last longer the slower they are: its time scale at this one's speed */
        double omega = contact_omega_at(model, i, mu, fabs(ep->gdot_in));
        a->info[k].kind = pl_classify_episode(ep, sol->t_final, omega, model->law[i].xi, resolved[k]);
        if (a->info[k].kind == PL_IMPACT)
            impacts[nimpacts++] = k;
    }
    int bad = free_rate_changes(model, sol, impacts, nimpacts, mu, work, change);
    for (size_t c = 0; !bad && c < nimpacts; c++) {
        size_t k = impacts[c], i = sol->episodes[k].constraint;
        double omega = contact_omega_at(model, i, mu, fabs(sol->episodes[k].gdot_in));
        a->info[k].kind = pl_classify_episode(&sol->episodes[k], sol->t_final, omega, model->law[i].xi,
                                              fmax(resolved[k], change[c]));
    }
    free(impacts);
    free(change);
    return bad;
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
        return PL_FIT_FLIGHTS_NO_MEMORY;
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

static int compare_size(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    return (a > b) - (a < b);
}

/* The sparse path's sliding forces (pl_sliding_force) and bilateral forces (bilateral_forces) of the
 * set members[0 .. k) (ascending), from one evaluation of its contacts, W and D: fsm, bil (m each),
 * written at the set's constraints alone (bil all NAN there if W is singular).  A large set's LCP
 * with D >= 0 is solved by z = 0 without forming its dense W (Siconos's driver returns that too,
 * after the k^2 copy). */
static pl_status sparse_set_forces(pl_sparse_set *ss, const pl_model *model, pl_work *work, double t,
                                   const double *q, const double *v, const size_t *members, size_t k, double *fsm,
                                   double *bil, size_t *couplings, pl_error *err)
{
    if (pl_sparse_set_fill(ss, model, t, q, v, members, k, couplings))
        return pl_fail(err, PL_ERR_NOMEM, "out of memory analysing sustained contacts");
    pl_status st = pl_sparse_set_lcp(ss, model, work, t, q, v, err);
    if (st != PL_OK)
        return st;
    int dense = k < PL_SPARSE_SET_KLU_FROM;
    for (size_t a = 0; a < k; a++) {
        size_t i = ss->idx[a];
        fsm[i] = isfinite(model->law[i].k) ? -ss->z[a] / (ss->c[a].m_eff * model->law[i].k) : ss->z[a];
    }
    for (size_t a = 0; a < k; a++)
        ss->z[a] = -ss->D[a];
    int bad = dense ? pl_solve_small(k, ss->W, ss->z, ss->D) : pl_solve_sparse_rows(k, ss->row_start, ss->col, ss->val, ss->z);
    if (bad < 0)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory solving for the bilateral forces at t = %.17g", t);
    for (size_t a = 0; a < k; a++) /* NAN where W is singular (redundant constraints) */
        bil[ss->idx[a]] = bad ? NAN : dense ? ss->D[a] : ss->z[a];
    return PL_OK;
}

/* The scratch of the sliding forces along a penalized run's sustained episodes: the sparse set
 * where F_p = v and M is constant and diagonal with supports, else the model's dense couplings. */
typedef struct {
    pl_work *work;
    int sparse;
    pl_sparse_set ss;
    pl_contact_set cs;
    double *lambda, *fsm; /* m each */
} sliding_work;

static pl_status sliding_work_init(sliding_work *w, const pl_model *model, pl_error *err)
{
    memset(w, 0, sizeof *w);
    w->sparse = model->type->velocity_map == NULL && model->minv_diag && model->support;
    pl_status s = w->sparse ? (pl_sparse_set_init(&w->ss, model)
                                   ? pl_fail(err, PL_ERR_NOMEM, "out of memory analysing sustained contacts")
                                   : PL_OK)
                            : pl_contact_set_init(&w->cs, model, err);
    if (s != PL_OK)
        return s;
    w->work = pl_work_new(model);
    w->lambda = malloc(2 * model->m * sizeof *w->lambda);
    if (!w->work || !w->lambda)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory analysing sustained contacts");
    w->fsm = w->lambda + model->m;
    return PL_OK;
}

static void sliding_work_free(sliding_work *w)
{
    pl_sparse_set_free(&w->ss);
    pl_contact_set_free(&w->cs);
    pl_work_free(w->work);
    free(w->lambda);
}

/* The forces that keep every constraint of `set` on its boundary (W lambda = -D, unclamped:
 * negative where a constraint would have to pull), into bil (m, NAN outside the set, and all NAN if W
 * is singular). */
static pl_status bilateral_forces(const pl_model *model, sliding_work *w, double t, const double *q,
                                  const double *v, const int *set, double *bil, pl_error *err)
{
    pl_contact_set *cs = &w->cs;
    size_t k = pl_model_contact_coupling(model, w->work, t, q, v, set, cs, 0);
    double *D = cs->b, *lambda = cs->a;
    for (size_t j = 0; j < model->m; j++)
        bil[j] = NAN;
    pl_model_free_gap_accels(model, w->work, t, q, v, cs->idx, k, D);
    for (size_t a = 0; a < k; a++)
        D[a] = -D[a];
    int bad = pl_solve_small(k, cs->W, D, lambda);
    if (bad < 0)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory solving for the bilateral forces at t = %.17g", t);
    for (size_t a = 0; !bad && a < k; a++)
        bil[cs->idx[a]] = lambda[a];
    return PL_OK;
}

/* F^sm and the bilateral forces of a set at one row, by the sparse set or the model's couplings:
 * the set both as flags (set, m) and as its constraints in ascending order (members[0 .. k)); fsm
 * and bil are read at the set's constraints only.  *couplings += the entries of W formed. */
static pl_status set_forces(const pl_model *model, sliding_work *w, double t, const double *q, const double *v,
                            const int *set, const size_t *members, size_t k, double *fsm, double *bil,
                            size_t *couplings, pl_error *err)
{
    if (w->sparse)
        return sparse_set_forces(&w->ss, model, w->work, t, q, v, members, k, fsm, bil, couplings, err);
    pl_status s = pl_sliding_force(model, w->work, &w->cs, t, q, v, set, w->lambda, fsm, err);
    if (s == PL_OK)
        s = bilateral_forces(model, w, t, q, v, set, bil, err);
    *couplings += w->cs.k * w->cs.k;
    return s;
}

/* Sustained episodes' rows as (episode, F^sm_i, bilateral force of i) values, i the episode's
 * constraint. */
typedef struct {
    double *fsm, *bil; /* per row of the episode, from row_in */
} episode_forces;

/* F^sm and the bilateral force of the constraint of every sustained episode of a penalized run at
 * each of its rows.  At a row, the constraints in sustained contact form one set for every episode
 * holding the row (each episode's constraint is in it), so the set's forces are solved once per row,
 * not once per episode: with m constraints in sustained contact together (a chain of balls at rest)
 * that was m times the work, O(m^4) per row.  An episode whose constraint is not in the row's set
 * (its row at a time outside [t_in, t_out]) is solved with the set and its constraint, as before. */
static pl_status sliding_forces(const pl_model *model, const pl_solution *sol, pl_analysis *a,
                                episode_forces *ef, sliding_work *w, const pl_budget *budget, pl_error *err)
{
    size_t n = sol->n, m = sol->m, ne = sol->nepisodes, r0 = SIZE_MAX, r1 = 0;
    if (sol->traj.nrows == 0)
        return PL_OK; /* no rows: compare_sliding reads none */
    for (size_t k = 0; k < ne; k++)
        if (a->info[k].kind == PL_SUSTAINED) {
            const pl_episode *ep = &sol->episodes[k];
            size_t hi = ep->row_out < sol->traj.nrows ? ep->row_out : sol->traj.nrows - 1;
            size_t rows = ep->row_in <= hi ? hi - ep->row_in + 1 : 0;
            ef[k].fsm = malloc((2 * rows + 1) * sizeof *ef[k].fsm);
            if (!ef[k].fsm)
                return pl_fail(err, PL_ERR_NOMEM, "out of memory analysing sustained contacts");
            ef[k].bil = ef[k].fsm + rows;
            if (rows) {
                r0 = ep->row_in < r0 ? ep->row_in : r0;
                r1 = hi > r1 ? hi : r1;
            }
        }
    /* The row's set as flags (base, m, all 0 between rows) and as a list (members, ascending): the work
     * per row follows the sustained episodes, not the m constraints. */
    double *fsm_set = malloc(3 * m * sizeof *fsm_set);
    int *base = calloc(m ? m : 1, sizeof *base);
    size_t *sus = malloc((ne ? ne : 1) * sizeof *sus), nsus = 0; /* the sustained episodes */
    size_t *members = malloc((2 * ne + 2) * sizeof *members), *one = members ? members + ne + 1 : NULL;
    if (!fsm_set || !base || !sus || !members) {
        free(fsm_set);
        free(base);
        free(sus);
        free(members);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory analysing sustained contacts");
    }
    for (size_t k = 0; k < ne; k++)
        if (a->info[k].kind == PL_SUSTAINED)
            sus[nsus++] = k;
    double *bil_set = fsm_set + m, *fsm_one = bil_set + m;
    pl_status s = PL_OK;
    for (size_t r = r0; r <= r1 && r0 != SIZE_MAX && s == PL_OK; r++) {
        /* The work's budget covers the analysis done with it: an LCP per row, the analysis's one cost
         * that grows with the constraints (minutes for 100 balls at rest, past a run stopped on time). */
        if (pl_budget_spent_writing(budget, pl_solution_numbers(sol))) {
            char note[128];
            s = pl_fail(err, PL_ERR_SOLVER, PL_BUDGET_STOPPED " in the analysis (the sliding forces of the sustained "
                        "contacts, at row %zu of %zu)%s", budget->max_seconds, r - r0, r1 - r0 + 1,
                        pl_budget_writing_note(budget, pl_solution_numbers(sol), note, sizeof note));
            break;
        }
        const double *x = pl_table_row(&sol->traj, r);
        const double *q = x + pl_col_q(n, m), *v = x + pl_col_v(n, m);
        double t = x[0];
        int have_base = 0, solved = 0;
        size_t k_base = 0;
        for (size_t c = 0; c < nsus && s == PL_OK; c++) {
            size_t k = sus[c];
            const pl_episode *ep = &sol->episodes[k];
            if (r < ep->row_in || r > ep->row_out)
                continue;
            size_t i = ep->constraint;
            if (!have_base) { /* the constraints in a sustained episode at t */
                for (size_t d = 0; d < nsus; d++) {
                    const pl_episode *o = &sol->episodes[sus[d]];
                    if (!base[o->constraint] && t >= o->t_in && (isnan(o->t_out) || t <= o->t_out)) {
                        base[o->constraint] = 1;
                        members[k_base++] = o->constraint;
                    }
                }
                if (k_base > m / 16) { /* most constraints (a chain at rest): in order by their flags */
                    for (size_t j = 0, b = 0; b < k_base; j++)
                        if (base[j])
                            members[b++] = j;
                } else {
                    qsort(members, k_base, sizeof *members, compare_size);
                }
                have_base = 1;
            }
            double *fsm = fsm_set, *bil = bil_set;
            if (base[i]) {
                if (!solved) {
                    s = set_forces(model, w, t, q, v, base, members, k_base, fsm_set, bil_set, &a->couplings_formed,
                                   err);
                    solved = 1;
                }
            } else { /* this episode's own set: the row's and its constraint */
                size_t at = 0;
                while (at < k_base && members[at] < i)
                    one[at] = members[at], at++;
                one[at] = i;
                for (size_t b = at; b < k_base; b++)
                    one[b + 1] = members[b];
                base[i] = 1;
                fsm = fsm_one;
                bil = w->fsm; /* scratch */
                s = set_forces(model, w, t, q, v, base, one, k_base + 1, fsm, bil, &a->couplings_formed, err);
                base[i] = 0;
            }
            if (s == PL_OK) {
                ef[k].fsm[r - ep->row_in] = fsm[i];
                ef[k].bil[r - ep->row_in] = bil[i];
            }
        }
        for (size_t b = 0; b < k_base; b++)
            base[members[b]] = 0;
    }
    free(fsm_set);
    free(base);
    free(sus);
    free(members);
    return s;
}

/* The relative range of F^sm over a comparison window above which its load varies (sqrt(DBL_EPSILON)). */
#define SLIDING_LOAD_RTOL 1.4901161193847656e-08

/* mu G against F^sm along a sustained episode of a penalized run (every row), the sup error over
 * its window (NAN if the window is empty: the contact is too short for its transient to decay, or its
 * law never settles), whether F^sm varies over the window, and the first time F^sm reaches zero; the
 * forces at its rows from sliding_forces. */
static pl_status compare_sliding(const pl_model *model, const pl_solution *sol, double mu, size_t k, pl_analysis *a,
                                 const episode_forces *ef, pl_error *err)
{
    const pl_episode *ep = &sol->episodes[k];
    pl_episode_info *info = &a->info[k];
    size_t n = sol->n, i = ep->constraint;
    double t_stop = isnan(ep->t_out) ? sol->t_final : ep->t_out;
    /* The entry transient of the contact oscillation, of force up to ~omega V (an impact) against
     * the sliding force ~A, decays at the law's settling rate about the resting penetration under the
     * model's load A (Kelvin-Voigt's xi omega, Hunt-Crossley's (3/4) c A, Hertz's 0: docs/laws.md,
     * "Sustained contact"): after (20 + ln(omega V/A))/rate it is below e^-20 A.  The window also
     * leaves out the first and last 10% of the contact (Props 6-7: convergence away from its ends). */
    double omega = contact_omega(model, i, mu), settle = pl_law_settling_rate(&model->law[i], mu, model->a_scale);
    double transient = settle > 0.0 ? (20.0 + log(fmax(1.0, omega * model->v_scale / model->a_scale))) / settle
                                    : INFINITY;
    double lo = ep->t_in + fmax(0.1 * (t_stop - ep->t_in), transient), hi = t_stop - 0.1 * (t_stop - ep->t_in);
    double fsm_min = INFINITY, fsm_max = -INFINITY;
    info->window_start = lo < hi ? lo : NAN;
    info->window_end = lo < hi ? hi : NAN;
    double prev_t = NAN, prev_f = NAN;
    pl_gap *scratch = NULL; /* G_i recomputed where the sparse contacts do not hold it */
    info->force_error = info->force_scale = lo < hi ? 0.0 : NAN;
    info->lift_off_predicted = NAN;
    for (size_t r = ep->row_in; r <= ep->row_out && r < sol->traj.nrows; r++) {
        const double *x = pl_table_row(&sol->traj, r);
        double t = x[0], fsm = ef->fsm[r - ep->row_in];
        /* what F^sm is the limit of (model/sliding.h): mu G, or the contact force where k is physical */
        double g, force;
        pl_solution_contact_at(sol, r, i, &g, &force);
        if (isnan(g) && isfinite(model->law[i].k)) { /* sparse, out of contact at this row of the episode */
            if (!scratch && !(scratch = pl_gap_new(1, n, 0)))
                return pl_fail(err, PL_ERR_NOMEM, "out of memory comparing sliding forces");
            g = pl_solution_gap_at(sol, model, r, i, scratch);
        }
        double muG = isfinite(model->law[i].k) ? mu * g : force;
        double row[5] = {t, (double)(i + 1), muG, fsm, (double)(k + 1)};
        pl_status s = pl_table_append(&a->sliding, row, err);
        if (s != PL_OK) {
            free(scratch);
            return s;
        }
        if (t >= lo && t <= hi) {
            info->force_error = fmax(info->force_error, fabs(muG - fsm));
            info->force_scale = fmax(info->force_scale, fabs(fsm));
            fsm_min = fmin(fsm_min, fsm);
            fsm_max = fmax(fsm_max, fsm);
        }
        /* Lift-off predicted where the force of the bilateral contact changes sign (D/A-tilde for one
         * constraint): interpolated linearly between rows.  F^sm itself is the LCP's, clamped at 0
         * from lift-off on, and would only give the row after it. */
        double f = ef->bil[r - ep->row_in];
        if (isnan(info->lift_off_predicted) && prev_f > 0.0 && f <= 0.0)
            info->lift_off_predicted = prev_t + (t - prev_t) * prev_f / (prev_f - f);
        prev_t = t;
        prev_f = f;
    }
    /* The error is a lag of the penetration behind a varying load (docs/laws.md, "Sustained contact");
     * under a constant one it is round-off.  F^sm, the complementarity problem's solution at each row's
     * state, varies by round-off where the load is constant: a range beyond sqrt(eps) of its size is the
     * load's. */
    info->load_varies = fsm_max - fsm_min > SLIDING_LOAD_RTOL * info->force_scale;
    a->sliding_load_varies |= info->load_varies;
    free(scratch);
    return PL_OK;
}

/* Zeno: flights between successive impacts, while the impact speed is well above what the
 * solution resolves (v_min), up to the capture. */
static pl_status zeno_sequence(const pl_model *model, const pl_solution *sol, pl_analysis *a, pl_error *err)
{
    size_t cap = a->impacts;
    double *flights = malloc((cap ? cap : 1) * sizeof *flights);
    if (!flights)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory fitting the flights of %zu impacts", cap);
    size_t nf = 0;
    double t_last = NAN;
    const pl_impact_record *prev = NULL;
    const pl_solver_type *solver = sol->solver;
    double mu = pl_solution_option(sol, "mu"), h = pl_solution_option(sol, "h");
    for (size_t k = 0; k < a->impacts; k++) {
        const pl_impact_record *im = &a->impact[k];
        if (!isnan(a->capture_time) && im->event.t >= a->capture_time)
            break;
        /* Compliant contacts: 10 A/omega, below which gravity acts significantly during a contact;
         * fixed steps: 10 A h, below which a flight lasts less than 20 steps. */
        double v_min = pl_solver_compliant(solver) ? 10.0 * model->a_scale / contact_omega(model, im->event.constraint, mu)
                       : pl_solver_can(solver, PL_SOLVER_FIXED_STEP) ? 10.0 * model->a_scale * h
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
    if (pl_fit_flights(flights, nf, t_last, &a->contraction_ratio, &a->contraction_ratio_se, &a->accumulation_time) ==
        PL_FIT_FLIGHTS_NO_MEMORY) {
        free(flights);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory fitting the flights of %zu impacts", cap);
    }
    /* Under a law whose impacts never accumulate (elastic; Hunt-Crossley, 1 - e ~ c V) the flights do not
     * shrink geometrically: a ratio fitted to them extrapolates a Zeno point that does not exist. */
    if (!pl_laws_bounces_accumulate(model->law, model->m))
        a->accumulation_time = NAN;
    free(flights);
    return PL_OK;
}

/* Append constraint i with its impulse to e's sparse participants (capacity: the next power of 2).
 * Non-zero if out of memory (e unchanged). */
static int add_participant(pl_event *e, size_t i, double impulse)
{
    size_t k = e->nparts;
    if ((k & (k - 1)) == 0) { /* 0, 1, 2, 4, ...: full */
        size_t cap = k ? 2 * k : 1;
        size_t *part = realloc(e->part, cap * sizeof *part);
        if (!part)
            return -1;
        e->part = part;
        double *imp = realloc(e->part_impulse, cap * sizeof *imp);
        if (!imp)
            return -1;
        e->part_impulse = imp;
    }
    e->part[k] = i;
    e->part_impulse[k] = impulse;
    e->nparts = k + 1;
    return 0;
}

/* The impact of a penalized episode as an event: entry state, exit velocity; its participants in
 * the sparse form (pl_event), its own constraint with the episode's impulse.  Non-zero if out of
 * memory. */
static int episode_impact(const pl_solution *sol, const pl_episode *ep, pl_impact_record *r)
{
    size_t n = sol->n, m = sol->m;
    memset(r, 0, sizeof *r);
    if (pl_event_alloc(&r->event, n, 0, PL_EVENT_IMPACT, ep->t_in, ep->constraint))
        return -1;
    r->event.impulse = NULL;
    r->event.participants = NULL;
    if (add_participant(&r->event, ep->constraint, ep->impulse)) {
        pl_event_free(&r->event);
        return -1;
    }
    const double *in = pl_table_row(&sol->traj, ep->row_in), *out = pl_table_row(&sol->traj, ep->row_out);
    memcpy(r->event.q, in + pl_col_q(n, m), n * sizeof *in);
    memcpy(r->event.v_before, in + pl_col_v(n, m), n * sizeof *in);
    memcpy(r->event.v_after, out + pl_col_v(n, m), n * sizeof *out);
    r->event.gamma_before = ep->gamma_in;
    r->event.gamma_after = ep->gamma_out;
    r->event.gdot_before = ep->gdot_in;
    r->event.gdot_after = ep->gdot_out;
    r->event.t_resolution = ep->t_in_resolution;
    r->t_out = ep->t_out;
    r->row_out = ep->row_out;
    return 0;
}

/* In time order, and at one time in the order of the constraints (a corner's walls entered at once). */
static int compare_impacts(const void *pa, const void *pb)
{
    const pl_impact_record *a = pa, *b = pb;
    if (a->event.t != b->event.t)
        return (a->event.t > b->event.t) - (a->event.t < b->event.t);
    return (a->event.constraint > b->event.constraint) - (a->event.constraint < b->event.constraint);
}

/* Gdot_c at (t, q, v); NAN if out of memory. */
static double gap_rate_at(const pl_model *model, size_t c, double t, const double *q, const double *v)
{
    double *fp = malloc(model->n * sizeof *fp);
    pl_gap *g = pl_gap_new(1, model->n, 0);
    double gdot = NAN;
    if (fp && g) {
        pl_model_velocity_map(model, t, q, v, fp, NULL, NULL, NULL);
        gdot = pl_model_gap_rate(model, c, t, q, fp, g);
    }
    free(fp);
    free(g);
    return gdot;
}

double pl_analysis_restitution_of(const pl_model *model, const pl_analysis *a, size_t c)
{
    for (size_t k = 0; k < a->impacts; k++) {
        const pl_event *e = &a->impact[k].event;
        if (c >= model->m || !pl_event_participant(e, c))
            continue;
        if (e->constraint == c)
            return e->gdot_before != 0.0 ? -e->gdot_after / e->gdot_before : NAN;
        double before = gap_rate_at(model, c, e->t, e->q, e->v_before);
        double after = gap_rate_at(model, c, e->t, e->q, e->v_after);
        return before != 0.0 ? -after / before : NAN;
    }
    return NAN;
}

/* The episodes of a penalized run with an exit, in order of exit (the impact motions below look
 * up the episodes that end within a time span). */
static size_t *episodes_by_exit(const pl_solution *sol, size_t *count)
{
    size_t *order = malloc((sol->nepisodes ? sol->nepisodes : 1) * sizeof *order), k = 0;
    if (!order)
        return NULL;
    for (size_t j = 0; j < sol->nepisodes; j++)
        if (!isnan(sol->episodes[j].t_out))
            order[k++] = j;
    /* insertion sort: the exits are nearly in order already (episodes are in order of entry) */
    for (size_t a = 1; a < k; a++)
        for (size_t b = a; b > 0 && sol->episodes[order[b - 1]].t_out > sol->episodes[order[b]].t_out; b--) {
            size_t x = order[b];
            order[b] = order[b - 1];
            order[b - 1] = x;
        }
    *count = k;
    return order;
}

/* A penalized impact (episode k) as the fast motion of several constraints (a corner's two walls; a
 * chain of balls in contact, whose compression wave runs through every contact): its episode and
 * every episode that overlaps it, transitively, on a constraint coupled with one already in it
 * (study/coupling.h) and that ends within IMPACT_MOTION_CONTACTS contact times of the latest exit so
 * far (a contact the impact opens or closes, not a rest that outlasts it).  The motion ends at the
 * last of their exits, when the fast motion of all of them is over, as the limit's jump (paper 004,
 * Theorem 5: one fast system for every constraint at the contact).  The record's velocities after
 * are taken there (docs/methods.md, "An impact of several constraints").  Its constraints are
 * flagged as participants.  Non-zero if out of memory. */
#define IMPACT_MOTION_CONTACTS 3.0

/* set: m flags, all 0, the participants' while the motion grows (the coupling test's set), cleared
 * again before return; ended[0 .. nended): the constraints of the episodes that end (by_exit's), once
 * each: only they can join, so the scan's reach is the longest of their contact times. */
static int impact_motion(const pl_model *model, const pl_solution *sol, size_t k, double mu, const size_t *by_exit,
                         size_t nexit, const size_t *ended, size_t nended, pl_coupling *coupling, size_t *mark,
                         unsigned char *set, pl_impact_record *r)
{
    size_t n = sol->n, m = sol->m;
    const pl_episode *first = &sol->episodes[k];
    const double *x0 = pl_table_row(&sol->traj, first->row_in);
    double V = fabs(first->gdot_in), end = first->t_out, reach = 0.0;
    for (size_t c = 0; c < nended; c++)
        reach = fmax(reach, IMPACT_MOTION_CONTACTS * pl_law_contact_time(&model->law[ended[c]], mu, V));
    size_t lo = 0, hi = nexit; /* the first episode ending at or after the impact's entry */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sol->episodes[by_exit[mid]].t_out < first->t_in)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t last = k;
    int failed = 0;
    set[first->constraint] = 1;
    for (int grown = 1; grown && !failed;) {
        grown = 0;
        for (size_t j = lo; j < nexit && sol->episodes[by_exit[j]].t_out <= end + reach; j++) {
            size_t o = by_exit[j];
            const pl_episode *ep = &sol->episodes[o];
            if (mark[j] == k + 1 || o == k || ep->t_in > end ||
                ep->t_out > end + IMPACT_MOTION_CONTACTS * pl_law_contact_time(&model->law[ep->constraint], mu, V))
                continue;
            if (!pl_coupled_with_set(coupling, set, r->event.part, r->event.nparts, ep->constraint, x0[0],
                                     x0 + pl_col_q(n, m), x0 + pl_col_v(n, m)))
                continue;
            mark[j] = k + 1;
            grown = 1;
            if (!set[ep->constraint] && add_participant(&r->event, ep->constraint, 0.0)) {
                failed = 1;
                break;
            }
            set[ep->constraint] = 1;
            if (ep->t_out > end) {
                end = ep->t_out;
                last = o;
            }
        }
    }
    /* in increasing order (pl_event's sparse form), the impulse the episode's own constraint's alone */
    pl_event *e = &r->event;
    double impulse = e->part_impulse[0];
    for (size_t p = 0; p < e->nparts; p++)
        set[e->part[p]] = 0;
    qsort(e->part, e->nparts, sizeof *e->part, compare_size);
    for (size_t p = 0; p < e->nparts; p++)
        e->part_impulse[p] = e->part[p] == first->constraint ? impulse : 0.0;
    if (failed)
        return -1;
    const pl_episode *ending = &sol->episodes[last];
    if (last == k || ending->row_out >= sol->traj.nrows)
        return 0;
    const double *x = pl_table_row(&sol->traj, ending->row_out);
    memcpy(r->event.v_after, x + pl_col_v(n, m), n * sizeof *x);
    r->event.gdot_after = gap_rate_at(model, first->constraint, x[0], x + pl_col_q(n, m), x + pl_col_v(n, m));
    r->event.gamma_after = ending->gamma_out;
    r->t_out = end;
    r->row_out = ending->row_out;
    return 0;
}

/* The fast motion of every impact of a penalized run (impact_motion): its records are in the order
 * of their episodes. */
static pl_status impact_motions(const pl_model *model, const pl_solution *sol, double mu, pl_analysis *a,
                                pl_error *err)
{
    size_t nexit = 0, *by_exit = episodes_by_exit(sol, &nexit), *mark = calloc(nexit + 1, sizeof *mark);
    pl_coupling *coupling = pl_coupling_new(model);
    unsigned char *set = calloc(model->m ? model->m : 1, 1);
    size_t *ended = malloc((nexit + 1) * sizeof *ended), nended = 0;
    pl_status s = by_exit && mark && coupling && set && ended
                      ? PL_OK
                      : pl_fail(err, PL_ERR_NOMEM, "out of memory analysing impacts");
    for (size_t j = 0; s == PL_OK && j < nexit; j++) { /* set serves as the flags, cleared after */
        size_t i = sol->episodes[by_exit[j]].constraint;
        if (!set[i])
            set[i] = 1, ended[nended++] = i;
    }
    for (size_t c = 0; s == PL_OK && c < nended; c++)
        set[ended[c]] = 0;
    for (size_t k = 0, r = 0; s == PL_OK && k < sol->nepisodes && r < a->impacts; k++) {
        const pl_episode *ep = &sol->episodes[k];
        if (a->info[k].kind == PL_IMPACT && ep->row_in <= ep->row_out && ep->row_out < sol->traj.nrows &&
            impact_motion(model, sol, k, mu, by_exit, nexit, ended, nended, coupling, mark, set, &a->impact[r++]))
            s = pl_fail(err, PL_ERR_NOMEM, "out of memory analysing impacts");
    }
    a->coupling_terms += coupling ? pl_coupling_terms(coupling) : 0;
    free(by_exit);
    free(mark);
    free(set);
    free(ended);
    pl_coupling_free(coupling);
    return s;
}

/* A scheme's impact ends with the step of its last impulse, where its velocity after holds (up to
 * SCHEME_IMPACT_STEPS steps after its time, which may lie a step before the first impulse): that
 * row's time and index into t_out and row_out.  Rows read back from a file without it: the
 * impact's own time. */
static void scheme_impact_end(const pl_solution *sol, pl_impact_record *r)
{
    size_t n = sol->n, m = sol->m, rows = sol->traj.nrows, lo = 0, hi = rows;
    r->t_out = r->event.t;
    while (lo < hi) { /* the first row at or after the impact's time */
        size_t mid = lo + (hi - lo) / 2;
        if (pl_table_row(&sol->traj, mid)[0] < r->event.t)
            lo = mid + 1;
        else
            hi = mid;
    }
    double t_max = r->event.t + (SCHEME_IMPACT_STEPS + 1) * sol->step_size;
    for (size_t k = lo; k < rows && pl_table_row(&sol->traj, k)[0] <= t_max; k++) {
        const double *x = pl_table_row(&sol->traj, k);
        if (memcmp(x + pl_col_v(n, m), r->event.v_after, n * sizeof *x) == 0) {
            r->t_out = x[0];
            r->row_out = k;
            return;
        }
    }
}

/* The limit solution's capture: its (first) accumulation point, else the start of a sustained
 * contact that nothing but Zeno points follows; its resolution into *resolution (NAN for an
 * accumulation point, an extrapolation). */
static double limit_capture(const pl_solution *sol, double *resolution)
{
    *resolution = NAN;
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
    if (last_slide)
        *resolution = last_slide->t_resolution;
    return last_slide ? last_slide->t : NAN;
}

/* The final rest of one constraint, followed from the last row backwards. */
typedef struct {
    int open;        /* every row seen so far is at rest */
    size_t first;    /* the earliest of them */
    double vres_max; /* the largest velocity resolution among them */
} rest_run;

/* Is constraint i at rest at (t, q), fp = F_p(q, v, t), within the velocity resolution vres:
 * G_i <= vres^2/A (no higher than a flight at that speed rises; penetration is the solution's own
 * business) and abs(Gdot_i) <= vres? */
static int at_rest(const pl_model *model, size_t i, double t, const double *q, const double *fp, double vres,
                   pl_gap *gap)
{
    double gdot = pl_model_gap_rate(model, i, t, q, fp, gap);
    return gap->g <= vres * vres / model->a_scale && fabs(gdot) <= vres;
}

/* The capture of an external trajectory or a scheme, found from its rows (methods.md, Capture):
 * the last impact before a rest of some constraint i that lasts to the end, or the start of that
 * rest when no impact begins it.  At rest at a row: G_i and Gdot_i within the row's velocity
 * resolution vres = A dt, dt the longer of its intervals to the neighbouring row times (a scheme's
 * h): what the case's accelerations change the velocity by between two rows, so that a rebound
 * slower than vres is over within about two of them and is not told from rest.  Rows within the
 * impact are not tested (an external's jump rows at its time; a scheme's steps up to 2 h after it,
 * as a landing may take two), its velocity after is.  The rest is established when it lasts at
 * least a flight at its largest resolution speed (2 vres/A, two intervals): a shorter one may be
 * the last flight still in the air, and then there is no capture and the note says so.  The
 * capture is the earliest over the constraints.  Non-zero if out of memory. */
static int rest_capture(const pl_model *model, const pl_solution *sol, pl_analysis *a)
{
    size_t n = sol->n, m = sol->m, rows = sol->traj.nrows;
    if (rows == 0 || m == 0)
        return 0;
    const pl_event *last = a->impacts > 0 ? &a->impact[a->impacts - 1].event : NULL;
    double span = pl_solver_can(sol->solver, PL_SOLVER_FIXED_STEP) ? SCHEME_IMPACT_STEPS * sol->step_size : 0.0;
    double t_skip = last ? last->t + span : -INFINITY; /* the rows tested are later than this */
    double A = model->a_scale;
    rest_run *run = malloc(m * sizeof *run);
    double *fp = malloc(n * sizeof *fp);
    pl_gap *gap = pl_gap_new(1, n, 0);
    if (!run || !fp || !gap) {
        free(run);
        free(fp);
        free(gap);
        return -1;
    }
    for (size_t i = 0; i < m; i++)
        run[i] = (rest_run){1, rows, 0.0};
    /* Backwards over the blocks of rows at one time (an external's jump is two rows at one t). */
    size_t end = rows, open = m;
    double t_next = NAN;
    while (end > 0 && open > 0) {
        size_t begin = end - 1;
        double t = pl_table_row(&sol->traj, begin)[0];
        while (begin > 0 && pl_table_row(&sol->traj, begin - 1)[0] == t)
            begin--;
        if (!(t > t_skip))
            break;
        double t_prev = begin > 0 ? pl_table_row(&sol->traj, begin - 1)[0] : NAN;
        /* fmax ignores a missing neighbour; a scheme's rows are sampled steps (methods.md, "Stored
         * rows"), its resolution is its step's */
        double vres = A * (span > 0.0 ? sol->step_size : fmax(t - t_prev, t_next - t));
        for (size_t r = end; r-- > begin && open > 0;) {
            const double *x = pl_table_row(&sol->traj, r), *q = x + pl_col_q(n, m);
            pl_model_velocity_map(model, t, q, x + pl_col_v(n, m), fp, NULL, NULL, NULL);
            for (size_t i = 0; i < m; i++) {
                if (!run[i].open)
                    continue;
                if (at_rest(model, i, t, q, fp, vres, gap)) {
                    run[i].first = r;
                    run[i].vres_max = fmax(run[i].vres_max, vres);
                } else {
                    run[i].open = 0;
                    open--;
                }
            }
        }
        t_next = t;
        end = begin;
    }
    double t_final = pl_table_row(&sol->traj, rows - 1)[0];
    if (last)
        pl_model_velocity_map(model, last->t, last->q, last->v_after, fp, NULL, NULL, NULL);
    int unresolved = 0;
    for (size_t i = 0; i < m; i++) {
        if (run[i].first == rows)
            continue; /* moving at the end */
        double start = pl_table_row(&sol->traj, run[i].first)[0];
        /* Reaching the impact: at rest from the impact on if its velocity after is. */
        if (run[i].open && last && at_rest(model, i, last->t, last->q, fp, run[i].vres_max, gap))
            start = last->t;
        if (t_final - start < 2.0 * run[i].vres_max / A)
            unresolved = 1;
        else if (isnan(a->capture_time) || start < a->capture_time) {
            a->capture_time = start;
            a->capture_time_resolution = last && start == last->t ? last->t_resolution : NAN;
        }
    }
    if (isnan(a->capture_time) && unresolved)
        a->capture_note = "unresolved: the trajectory ends at rest, but for less than a flight at its resolution "
                          "speed (2 vres/A) since its last impact or the start of that rest";
    free(run);
    free(fp);
    free(gap);
    return 0;
}

static void init_analysis(pl_analysis *a)
{
    memset(a, 0, sizeof *a);
    pl_table_init(&a->sliding, 5);
    a->first_impact_time = a->restitution_first = a->scaled_penetration_first = NAN;
    a->restitution_first_constraint = SIZE_MAX;
    a->lift_off_first = a->lift_off_predicted_first = a->sliding_force_error = a->sliding_force_scale = NAN;
    a->capture_time = a->contraction_ratio = a->contraction_ratio_se = a->accumulation_time = NAN;
    a->first_impact_time_resolution = a->capture_time_resolution = a->lift_off_first_resolution = NAN;
}

pl_status pl_analyze(const pl_model *model, const pl_solution *sol, pl_analysis *a, pl_error *err)
{
    return pl_analyze_within(model, sol, NULL, a, err);
}

static pl_status analyze(const pl_model *model, const pl_solution *sol, const pl_budget *budget, pl_analysis *a,
                         pl_error *err);

/* An analysis has its info whole or none: one out of memory part-way (an episode's velocity jump
 * not yet pointed at, an impact's event not allocated) is freed, not written half made. */
pl_status pl_analyze_within(const pl_model *model, const pl_solution *sol, const pl_budget *budget, pl_analysis *a,
                            pl_error *err)
{
    pl_status s = analyze(model, sol, budget, a, err);
    if (s == PL_ERR_NOMEM)
        pl_analysis_free(a);
    return s;
}

static pl_status analyze(const pl_model *model, const pl_solution *sol, const pl_budget *budget, pl_analysis *a,
                         pl_error *err)
{
    init_analysis(a);
    size_t n = sol->n, m = sol->m, ne = sol->nepisodes;
    /* A compliant solver's episodes are timed and classified by its law at mu; impacts are the
     * events of a solver that records them, else the episodes classified as impacts. */
    int compliant = pl_solver_compliant(sol->solver), events = pl_solver_can(sol->solver, PL_SOLVER_EVENTS);
    double mu = pl_solution_option(sol, "mu");
    a->nepisodes = ne;
    a->info = calloc(ne ? ne : 1, sizeof *a->info);
    /* the jumps' storage: n values an episode, or its constraint's support's (pl_analysis_sparse_jumps) */
    int sparse_jumps = pl_analysis_sparse_jumps(model);
    size_t jumps = sparse_jumps ? 0 : ne * n;
    for (size_t k = 0; sparse_jumps && k < ne; k++) {
        size_t count;
        pl_model_support(model, sol->episodes[k].constraint, &count);
        jumps += count;
    }
    a->dv = malloc((jumps ? jumps : 1) * sizeof *a->dv);
    a->dv_dofs = sparse_jumps ? malloc((jumps ? jumps : 1) * sizeof *a->dv_dofs) : NULL;
    a->impact = calloc((ne > sol->nevents ? ne : sol->nevents) + 1, sizeof *a->impact);
    if (!a->info || !a->dv || (sparse_jumps && !a->dv_dofs) || !a->impact) { /* nothing half made: an analysis has its info whole or none */
        pl_analysis_free(a);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory analysing %zu episodes", ne);
    }

    pl_work *work = compliant && ne ? pl_work_new(model) : NULL;
    pl_gap *gap = work ? pl_gap_new_sparse(1, model, 0) : NULL;
    if (compliant && ne && !gap) {
        pl_work_free(work);
        pl_analysis_free(a);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory analysing %zu episodes", ne);
    }
    double rtol = compliant ? pl_solution_option(sol, "rtol") : NAN;
    double *resolved_of = compliant ? malloc((ne ? ne : 1) * sizeof *resolved_of) : NULL;
    if (compliant && (!resolved_of || classify_penalized(model, sol, mu, rtol, gap, work, a, resolved_of))) {
        free(resolved_of);
        pl_work_free(work);
        free(gap);
        pl_analysis_free(a);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory analysing %zu episodes", ne);
    }
    for (size_t k = 0, stored = 0; k < ne; k++) {
        const pl_episode *ep = &sol->episodes[k];
        pl_episode_info *info = &a->info[k];
        size_t i = ep->constraint;
        info->dv = a->dv + stored;
        info->ndv = n;
        info->dv_dofs = NULL;
        if (sparse_jumps) {
            const size_t *support = pl_model_support(model, i, &info->ndv);
            memcpy(a->dv_dofs + stored, support, info->ndv * sizeof *support);
            info->dv_dofs = a->dv_dofs + stored;
        }
        stored += info->ndv;
        double resolved = compliant ? resolved_of[k] : 0.0; /* compliant: classified by classify_penalized */
        if (!compliant)
            info->kind = classify_scheme_episode(sol, ep);
        info->restitution = !compliant || -ep->gdot_in > resolved ? pl_episode_restitution(ep) : NAN;
        a->touches_unresolved += info->kind == PL_UNRESOLVED && !isnan(ep->t_out);
        double t_stop = isnan(ep->t_out) ? sol->t_final : ep->t_out;
        info->duration = t_stop - ep->t_in;
        /* A run that failed (out of memory, say) may lack the rows of its last episode. */
        int rows = ep->row_in <= ep->row_out && ep->row_out < sol->traj.nrows;
        for (size_t e = 0; e < info->ndv; e++) {
            size_t j = info->dv_dofs ? info->dv_dofs[e] : e;
            info->dv[e] = rows ? pl_table_row(&sol->traj, ep->row_out)[pl_col_v(n, m) + j] -
                                     pl_table_row(&sol->traj, ep->row_in)[pl_col_v(n, m) + j]
                               : NAN;
        }
        info->dv_normal = ep->gdot_out - ep->gdot_in;
        info->scaled_penetration = compliant ? scaled_penetration(model, i, mu, ep->max_penetration) : NAN;
        info->force_error = info->force_scale = info->lift_off_predicted = NAN;
        info->window_start = info->window_end = NAN;
        info->load_varies = 0;
        if (!events && info->kind == PL_IMPACT && rows) {
            if (a->impacts == 0)
                a->scaled_penetration_first = info->scaled_penetration;
            if (episode_impact(sol, ep, &a->impact[a->impacts])) {
                free(resolved_of);
                pl_work_free(work);
                free(gap);
                return pl_fail(err, PL_ERR_NOMEM, "out of memory analysing %zu impacts", a->impacts);
            }
            a->impacts++;
        }
    }
    free(resolved_of);
    pl_work_free(work);
    free(gap);
    if (events)
        for (size_t k = 0; k < sol->nevents; k++)
            if (sol->events[k].kind == PL_EVENT_IMPACT) {
                pl_impact_record *r = &a->impact[a->impacts];
                const pl_event *e = &sol->events[k];
                if (pl_event_alloc(&r->event, n, m, e->kind, e->t, e->constraint))
                    return pl_fail(err, PL_ERR_NOMEM, "out of memory analysing %zu impacts", a->impacts);
                a->impacts++;
                pl_event_copy(&r->event, e, n, m);
                r->t_out = r->event.t;
                if (pl_solver_can(sol->solver, PL_SOLVER_FIXED_STEP))
                    scheme_impact_end(sol, r);
            }
    if (compliant) {
        pl_status s = impact_motions(model, sol, mu, a, err);
        if (s != PL_OK)
            return s;
    }
    qsort(a->impact, a->impacts, sizeof *a->impact, compare_impacts); /* episodes are ordered by entry */
    if (a->impacts > 0) {
        const pl_event *first = &a->impact[0].event;
        a->first_impact_time = first->t;
        a->first_impact_time_resolution = first->t_resolution;
        a->restitution_first_constraint = first->constraint;
        a->restitution_first = first->gdot_before != 0.0 ? -first->gdot_after / first->gdot_before : NAN;
    }

    /* Capture: the accumulation point or final slide of a solver that locates Zeno points (the
     * limit); a compliant run's final contact, sustained to the end; otherwise (an external, a
     * scheme) the last impact before a rest at its resolution (the impact's round-off resolution
     * when it is an impact, none for a row). */
    if (pl_solver_can(sol->solver, PL_SOLVER_ZENO)) {
        a->capture_time = limit_capture(sol, &a->capture_time_resolution);
    } else if (compliant) {
        if (ne > 0 && a->info[ne - 1].kind == PL_SUSTAINED && isnan(sol->episodes[ne - 1].t_out)) {
            a->capture_time = sol->episodes[ne - 1].t_in;
            a->capture_time_resolution = sol->episodes[ne - 1].t_in_resolution;
        }
    } else if (rest_capture(model, sol, a)) {
        return pl_fail(err, PL_ERR_NOMEM, "out of memory finding the capture");
    }
    if (!isnan(a->capture_time))
        for (size_t k = 0; k < a->impacts; k++)
            a->impacts_before_capture += a->impact[k].event.t < a->capture_time;

    /* Sustained contacts: the sliding force of compliant runs, lift-offs. */
    int sustained = 0;
    for (size_t k = 0; k < ne; k++)
        sustained |= a->info[k].kind == PL_SUSTAINED;
    if (compliant && sustained) {
        sliding_work w;
        episode_forces *ef = calloc(ne, sizeof *ef);
        pl_status s = ef ? sliding_work_init(&w, model, err)
                         : pl_fail(err, PL_ERR_NOMEM, "out of memory analysing sustained contacts");
        if (s == PL_OK)
            s = sliding_forces(model, sol, a, ef, &w, budget, err);
        for (size_t k = 0; k < ne && s == PL_OK; k++)
            if (a->info[k].kind == PL_SUSTAINED)
                s = compare_sliding(model, sol, mu, k, a, &ef[k], err);
        if (ef)
            sliding_work_free(&w);
        for (size_t k = 0; ef && k < ne; k++)
            free(ef[k].fsm);
        free(ef);
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
            a->lift_off_first_resolution = sol->episodes[k].t_out_resolution;
            a->lift_off_predicted_first = info->lift_off_predicted;
        }
    }
    if (events) /* the events' first lift-off when no sustained episode ended */
        for (size_t k = 0; k < sol->nevents && isnan(a->lift_off_first); k++)
            if (sol->events[k].kind == PL_EVENT_LIFT_OFF) {
                a->lift_off_first = sol->events[k].t;
                a->lift_off_first_resolution = sol->events[k].t_resolution;
            }
    return zeno_sequence(model, sol, a, err);
}

void pl_analysis_free(pl_analysis *a)
{
    for (size_t k = 0; a->impact && k < a->impacts; k++)
        pl_event_free(&a->impact[k].event);
    free(a->info);
    free(a->dv);
    free(a->dv_dofs);
    free(a->impact);
    a->info = NULL;
    a->dv = NULL;
    a->dv_dofs = NULL;
    a->impact = NULL;
    a->impacts = 0;
    pl_table_free(&a->sliding);
}
