#include "solvers/solution.h"

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

const char *pl_event_kind_name(pl_event_kind kind)
{
    static const char *names[PL_EVENT_KINDS] = {"impact", "slide_start", "lift_off", "zeno"};
    return kind < PL_EVENT_KINDS ? names[kind] : "?";
}

void pl_solution_init(pl_solution *sol, const struct pl_solver_type *solver, const pl_model *model, double t_end)
{
    memset(sol, 0, sizeof *sol);
    sol->solver = solver;
    sol->n = model->n;
    sol->m = model->m;
    sol->t_end = t_end;
    sol->zeno.t_accumulation = sol->zeno.ratio = NAN;
    sol->t_final = sol->gamma_final = sol->step_size = NAN;
    pl_table_init(&sol->traj, pl_ncols(model->n, model->m));
}

void pl_solution_free(pl_solution *sol)
{
    pl_table_free(&sol->traj);
    free(sol->episodes);
    free(sol->events);
    sol->episodes = NULL;
    sol->events = NULL;
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
    *ep = e;
    return PL_OK;
}

pl_status pl_solution_add_event(pl_solution *sol, const pl_event *e, pl_error *err)
{
    if (reserve((void **)&sol->events, sol->nevents, &sol->events_cap, sizeof *sol->events))
        return pl_fail(err, PL_ERR_NOMEM, "out of memory storing %zu events", sol->nevents);
    sol->events[sol->nevents++] = *e;
    return PL_OK;
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
