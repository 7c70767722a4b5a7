#include "solvers/event_loop.h"
#include "solvers/solver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/linalg.h"

#define MAX_REPEATS 100
/* The most states pl_loop_sample_state keeps (of doubles: 8 MB); samples beyond are re-integrated
 * for the record as they were for the hook. */
#define SAMPLE_CACHE_DOUBLES ((size_t)1 << 20)


void pl_tighten_for_gap(double *tol, size_t n, const pl_gap *gap, double tol_g, double tol_gd)
{
    size_t count = gap->support ? gap->nsupport : n;
    for (size_t e = 0; e < count; e++) {
        size_t j = pl_gap_dof(gap, e);
        double gj = fabs(gap->grad[e]);
        if (gj > 0.0) {
            tol[j] = fmin(tol[j], tol_g / gj);
            tol[n + j] = fmin(tol[n + j], tol_gd / gj);
        }
    }
}

double pl_loop_sample_time(const pl_event_loop *loop, size_t k)
{
    return k <= loop->samples && loop->samples > 0 ? loop->t_end * (double)k / (double)loop->samples : INFINITY;
}

const double *pl_loop_sample_state(pl_event_loop *loop, size_t k)
{
    pl_stepper *st = loop->stepper;
    size_t N = st->size;
    if (loop->sample_count > 0 && k >= loop->sample_first && k - loop->sample_first < loop->sample_count)
        return loop->sample_y + (k - loop->sample_first) * N;
    const double *y = st->dense(st, pl_loop_sample_time(loop, k));
    if (!y)
        return NULL;
    if (loop->sample_count == 0 || k != loop->sample_first + loop->sample_count) {
        loop->sample_first = k; /* the samples kept are consecutive */
        loop->sample_count = 0;
    }
    if (loop->sample_count == loop->sample_cap) {
        size_t cap = loop->sample_cap ? 2 * loop->sample_cap : 16;
        if (cap * N > SAMPLE_CACHE_DOUBLES)
            return y; /* not kept: the record re-integrates it */
        double *grown = realloc(loop->sample_y, cap * N * sizeof *grown);
        if (!grown)
            return y;
        loop->sample_y = grown;
        loop->sample_cap = cap;
    }
    double *kept = loop->sample_y + loop->sample_count++ * N;
    memcpy(kept, y, N * sizeof *kept);
    return kept;
}

pl_status pl_loop_record(pl_event_loop *loop, double t, const double *y, pl_error *err)
{
    loop->prev_t = t;
    return loop->hooks.record(loop->user, t, y, err);
}

pl_status pl_loop_restart(pl_event_loop *loop, pl_stepper *next, double t, pl_error *err)
{
    pl_stepper *active = loop->stepper;
    active->add_counters(active, loop->stats);
    if (next && next != active) {
        memcpy(next->y, active->y, active->size * sizeof *active->y);
        loop->stepper = next;
    }
    loop->stats->restarts++;
    double h0 = loop->hooks.initial_step ? loop->hooks.initial_step(loop->user, loop->stepper, t) : 0.0;
    return loop->stepper->restart(loop->stepper, t, h0, err);
}

void pl_loop_replace_stepper(pl_event_loop *loop, pl_stepper *next)
{
    loop->stepper = next;
    free(loop->sample_y);
    loop->sample_y = NULL;
    loop->sample_first = loop->sample_count = loop->sample_cap = 0;
}

/* Whether the budget has run out, the time to write the rows recorded so far counted. */
static int budget_spent(const pl_event_loop *loop)
{
    return pl_budget_spent_writing(&(pl_budget){loop->max_seconds, loop->started},
                                   loop->output ? pl_solution_numbers(loop->output) : 0.0);
}

static pl_status budget_stopped(const pl_event_loop *loop, double t, pl_error *err)
{
    char note[128];
    pl_budget_writing_note(&(pl_budget){loop->max_seconds, loop->started},
                           loop->output ? pl_solution_numbers(loop->output) : 0.0, note, sizeof note);
    return pl_fail(err, PL_ERR_SOLVER, PL_BUDGET_STOPPED " at t = %.17g (%s)%s", loop->max_seconds, t, loop->context,
                   note);
}

/* The output samples strictly before t (inside the last step). */
static pl_status samples_before(pl_event_loop *loop, double t, pl_error *err)
{
    for (double ts; (ts = pl_loop_sample_time(loop, loop->next_sample)) < t; loop->next_sample++) {
        if (ts <= loop->prev_t)
            continue;
        /* a long step may hold many samples (3.3 million samples over ten steps once wrote for ten
         * times the budget): the budget between them too */
        if (loop->next_sample % 1024 == 0 && budget_spent(loop))
            return budget_stopped(loop, ts, err);
        const double *ys = pl_loop_sample_state(loop, loop->next_sample);
        if (!ys)
            return pl_fail(err, PL_ERR_SOLVER, "dense output failed at t = %.17g (%s)", ts, loop->context);
        pl_status s = pl_loop_record(loop, ts, ys, err);
        if (s != PL_OK)
            return s;
    }
    return PL_OK;
}

/* The roots of a step (root_info): found, nroots entries kept 0 but for those of the event at hand,
 * and which, their indices; grown to the active stepper's count (once per run). */
typedef struct {
    int *found, *which;
    size_t cap;
} roots_found;

static pl_status run(pl_event_loop *loop, roots_found *roots, pl_error *err);

pl_status pl_loop_run(pl_event_loop *loop, pl_error *err)
{
    roots_found roots = {NULL, NULL, 0};
    pl_status s = run(loop, &roots, err);
    free(roots.found);
    free(roots.which);
    free(loop->sample_y);
    loop->sample_y = NULL;
    loop->sample_first = loop->sample_count = loop->sample_cap = 0;
    return s;
}

/* Room for n root functions in r, the found ones 0. */
static int roots_reserve(roots_found *r, size_t n)
{
    if (n <= r->cap)
        return 0;
    int *found = calloc(n, sizeof *found), *which = malloc(n * sizeof *which);
    if (!found || !which) {
        free(found);
        free(which);
        return -1;
    }
    free(r->found);
    free(r->which);
    r->found = found, r->which = which, r->cap = n;
    return 0;
}

static pl_status run(pl_event_loop *loop, roots_found *rf, pl_error *err)
{
    int repeats = 0;
    double last_event = NAN;
    pl_status s;
    while (loop->stepper->t < loop->t_end) {
        pl_stepper *st = loop->stepper;
        /* Within the smallest step of t_end (after an event there, an impact whose closed-form time is
         * t_end located a few ulps early, or a step that stopped just short of it): no step is
         * possible, and none is needed: the state is recorded again at t_end, the motion neglected
         * (|v| times 16 ulps of t) being below the resolution of the event's own time. */
        if (loop->t_end - st->t <= pl_stepper_min_step(loop->t_end))
            return pl_loop_record(loop, loop->t_end, st->y, err);
        if (loop->stats->steps + st->steps(st) >= loop->max_steps)
            return pl_fail(err, PL_ERR_SOLVER, "stopped after %ld steps at t = %.17g (%s): raise --max-steps",
                           loop->max_steps, st->t, loop->context);
        if (budget_spent(loop))
            return budget_stopped(loop, st->t, err);
        if (loop->model && (s = pl_solve_poll(loop->model, loop->cancel, loop->cancel_user, st->t, err)) != PL_OK)
            return s;
        if (loop->hooks.max_step)
            st->max_step = loop->hooks.max_step(loop->user, st->t);
        loop->sample_count = 0; /* the states kept were the last step's */
        int at_root = st->step(st, loop->t_end, err);
        if (at_root < 0)
            return err ? err->status : PL_ERR_SOLVER;
        double t = st->t, *y = st->y, tc = NAN;
        /* No non-finite time or state goes on to a model's functions. */
        if (!isfinite(t) || !pl_all_finite(y, st->size))
            return pl_fail(err, PL_ERR_SOLVER, "the state is not finite at t = %.17g (%s)", t, loop->context);
        int missed = loop->hooks.missed(loop->user, t, y, at_root, &tc, err);
        if (missed < 0)
            return err ? err->status : PL_ERR_SOLVER;
        if (missed) {
            /* the step ends at the crossing (cut): its state, interpolant and kinks up to there; the
             * samples before it are re-integrated in the shortened step */
            loop->sample_count = 0;
            at_root = st->cut(st, tc, err);
            if (at_root < 0)
                return err ? err->status : PL_ERR_SOLVER;
            if (!at_root)
                loop->stats->recovered_crossings++;
            t = st->t;
        }
        if ((s = samples_before(loop, t, err)) != PL_OK)
            return s;
        if (!missed && !at_root) {
            if ((s = pl_loop_record(loop, t, y, err)) != PL_OK)
                return s;
            pl_stepper *next = loop->hooks.choose ? loop->hooks.choose(loop->user, t) : NULL;
            if (next && next != st && (s = pl_loop_restart(loop, next, t, err)) != PL_OK)
                return s;
            continue;
        }
        const int *roots = NULL;
        size_t nfound = 0;
        if (at_root) {
            if (roots_reserve(rf, st->nroots) != 0)
                return pl_fail(err, PL_ERR_NOMEM, "out of memory for %zu root functions (%s)", st->nroots,
                               loop->context);
            nfound = st->root_info(st, rf->found, rf->which);
            roots = rf->found;
        }
        /* An event at t: the state with the old modes, the change, the state with the new ones.
         * Without a change the stepper is still restarted: continuing would have it stop on the same
         * root again.  Events that keep coming back at one time without progress are a failure,
         * not a hang. */
        repeats = t == last_event ? repeats + 1 : 0;
        last_event = t;
        if (repeats >= MAX_REPEATS)
            return pl_fail(err, PL_ERR_SOLVER, "%d events at t = %.17g without progress (%s)", MAX_REPEATS, t,
                           loop->context);
        int changed = 0;
        if ((s = pl_loop_record(loop, t, y, err)) == PL_OK)
            s = loop->hooks.event(loop->user, &t, y, roots, &changed, err);
        for (size_t e = 0; e < nfound; e++)
            rf->found[rf->which[e]] = 0;
        if (s != PL_OK)
            return s;
        pl_stepper *next = loop->hooks.choose ? loop->hooks.choose(loop->user, t) : NULL;
        if ((s = pl_loop_restart(loop, next, t, err)) != PL_OK)
            return s;
        if (changed && (s = pl_loop_record(loop, t, loop->stepper->y, err)) != PL_OK)
            return s;
    }
    return PL_OK;
}
