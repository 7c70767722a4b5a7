#include "solvers/solution.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"

double pl_episode_restitution(const pl_episode *ep)
{
    if (isnan(ep->gdot_out) || ep->gdot_in == 0.0)
        return NAN;
    return -ep->gdot_out / ep->gdot_in;
}

double pl_time_resolution(double terms, double t, double gdot)
{
    return gdot != 0.0 ? PL_RESOLUTION_ULPS * DBL_EPSILON * terms / fabs(gdot) + DBL_EPSILON * fabs(t) : INFINITY;
}

double pl_gap_resolution(double terms, double floor)
{
    return fmax(PL_GAP_NOISE_ULPS * DBL_EPSILON * terms, floor);
}

const char *pl_event_kind_name(pl_event_kind kind)
{
    static const char *names[PL_EVENT_KINDS] = {"impact", "slide_start", "lift_off", "zeno"};
    return kind < PL_EVENT_KINDS ? names[kind] : "?";
}

int pl_event_alloc(pl_event *e, size_t n, size_t m, pl_event_kind kind, double t, size_t constraint)
{
    memset(e, 0, sizeof *e);
    double *block = calloc(1, (3 * n + m) * sizeof *block + m + 1);
    if (!block)
        return -1;
    e->q = block;
    e->v_before = e->q + n;
    e->v_after = e->v_before + n;
    e->impulse = e->v_after + n;
    e->participants = (unsigned char *)(e->impulse + m);
    e->kind = kind;
    e->t = t;
    e->constraint = constraint;
    e->s_exit = e->t_resolution = NAN;
    return 0;
}

void pl_event_free(pl_event *e)
{
    free(e->q);
    memset(e, 0, sizeof *e);
}

void pl_event_copy(pl_event *dst, const pl_event *src, size_t n, size_t m)
{
    pl_event keep = *dst;
    *dst = *src;
    dst->q = keep.q, dst->v_before = keep.v_before, dst->v_after = keep.v_after;
    dst->impulse = keep.impulse, dst->participants = keep.participants;
    memcpy(dst->q, src->q, n * sizeof *dst->q);
    memcpy(dst->v_before, src->v_before, n * sizeof *dst->v_before);
    memcpy(dst->v_after, src->v_after, n * sizeof *dst->v_after);
    memcpy(dst->impulse, src->impulse, m * sizeof *dst->impulse);
    memcpy(dst->participants, src->participants, m * sizeof *dst->participants);
}

pl_status pl_solution_init(pl_solution *sol, const struct pl_solver_type *solver, const pl_model *model, double t_end,
                           pl_error *err)
{
    memset(sol, 0, sizeof *sol);
    sol->solver = solver;
    sol->n = model->n;
    sol->m = model->m;
    sol->t_end = t_end;
    sol->zeno.t_accumulation = sol->zeno.ratio = NAN;
    sol->t_final = sol->gamma_final = sol->step_size = NAN;
    pl_table_init(&sol->traj, pl_ncols(model->n, model->m));
    if (model->n == 0)
        return PL_OK;
    double *x = calloc(4 * model->n, sizeof *x);
    if (!x)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for a solution of %zu degrees of freedom", model->n);
    sol->q_final = x; /* one block: q_final, v_final, zeno.q, zeno.v */
    sol->v_final = x + model->n;
    sol->zeno.q = x + 2 * model->n;
    sol->zeno.v = x + 3 * model->n;
    return PL_OK;
}

double pl_solution_numbers(const pl_solution *sol)
{
    double n = (double)sol->n, m = (double)sol->m;
    return (double)sol->traj.nrows * ((double)sol->traj.ncol + 2.0 + 2.0 * n) + (double)sol->nepisodes * (16.0 + n) +
           (double)sol->nevents * (12.0 + 3.0 * n + m) + 4.0 * m; /* the contact law of each constraint */
}

void pl_solution_free(pl_solution *sol)
{
    pl_table_free(&sol->traj);
    for (size_t k = 0; k < sol->nevents; k++)
        pl_event_free(&sol->events[k]);
    free(sol->episodes);
    free(sol->events);
    free(sol->q_final);
    sol->episodes = NULL;
    sol->events = NULL;
    sol->q_final = sol->v_final = sol->zeno.q = sol->zeno.v = NULL;
    sol->nepisodes = sol->episodes_cap = sol->nevents = sol->events_cap = 0;
}

/* Grow an array of `size`-byte items to hold one more. */
static int reserve(void **items, size_t count, size_t *cap, size_t size)
{
    if (count < *cap)
        return 0;
    size_t next = *cap ? 2 * *cap : 64;
    void *p = realloc(*items, next * size);
    if (!p)
        return -1;
    *items = p;
    *cap = next;
    return 0;
}

pl_status pl_solution_add_episode(pl_solution *sol, size_t constraint, double t_in, pl_episode **ep, pl_error *err)
{
    if (reserve((void **)&sol->episodes, sol->nepisodes, &sol->episodes_cap, sizeof *sol->episodes))
        return pl_fail(err, PL_ERR_NOMEM, "out of memory storing %zu episodes", sol->nepisodes);
    pl_episode *e = &sol->episodes[sol->nepisodes++];
    memset(e, 0, sizeof *e);
    e->constraint = constraint;
    e->t_in = e->t_max_penetration = t_in;
    e->t_out = e->gdot_out = e->gamma_out = NAN;
    e->t_in_resolution = e->t_out_resolution = NAN;
    *ep = e;
    return PL_OK;
}

pl_status pl_solution_new_event(pl_solution *sol, pl_event_kind kind, double t, size_t constraint, pl_event **e,
                                pl_error *err)
{
    if (reserve((void **)&sol->events, sol->nevents, &sol->events_cap, sizeof *sol->events) ||
        pl_event_alloc(&sol->events[sol->nevents], sol->n, sol->m, kind, t, constraint))
        return pl_fail(err, PL_ERR_NOMEM, "out of memory storing %zu events", sol->nevents);
    *e = &sol->events[sol->nevents++];
    return PL_OK;
}

pl_status pl_solution_add_event(pl_solution *sol, const pl_event *e, pl_error *err)
{
    pl_event *copy = NULL;
    pl_status s = pl_solution_new_event(sol, e->kind, e->t, e->constraint, &copy, err);
    if (s == PL_OK)
        pl_event_copy(copy, e, sol->n, sol->m);
    return s;
}

void pl_solution_finish(pl_solution *sol, pl_status status, const pl_error *err, double t0)
{
    if (sol->traj.nrows > 0) {
        const double *last = pl_table_row(&sol->traj, sol->traj.nrows - 1);
        sol->t_final = last[0];
        sol->gamma_final = last[1];
        memcpy(sol->q_final, last + pl_col_q(sol->n, sol->m), sol->n * sizeof *last);
        memcpy(sol->v_final, last + pl_col_v(sol->n, sol->m), sol->n * sizeof *last);
    }
    sol->status = status;
    if (status != PL_OK && err)
        sol->error = *err;
    else
        pl_error_clear(&sol->error);
    sol->stats.wall_seconds = pl_now_seconds() - t0;
}
