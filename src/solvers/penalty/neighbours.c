/* Neighbour search of a penalized run: the shared list (solvers/neighbours.h, its design and proof)
 * with what the run holds per constraint: the geometry of those left out, their gap models, the live
 * root functions, the gaps and rates of the last row.
 *
 * delta is the case's length scale V^2/A (for the box of disks at most the smallest diameter): the
 * list then holds the pairs within about a diameter, and is rebuilt after each disk has moved about a
 * tenth of one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/penalty/engine.h"

/* Fewer constraints than PEN_SLOTS_FROM (PL_NEAR_FROM) are all evaluated, the case's list unused: there
 * it saves little, and the error weights it leaves to the near gaps alone change such a run's discrete
 * outcomes near a tolerance's edge (an impact of the box of 5 disks matched otherwise:
 * tests/test_impact_match.c). */

pl_status pen_neighbours_init(run_ctx *c, pl_error *err)
{
    pl_status s = pl_near_init(&c->nl, c->model, c->n, c->m, err);
    if (s != PL_OK || !c->nl.near)
        return s;
    c->live_roots = calloc(2 * c->m, sizeof *c->live_roots);
    if (!c->live_roots)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for the neighbour list of %zu constraints", c->m);
    return PL_OK;
}

void pen_neighbours_free(run_ctx *c)
{
    pl_near_free(&c->nl);
    free(c->live_roots);
    c->live_roots = NULL;
}

double pen_neighbours_drift(const run_ctx *c, double t, const double *q)
{
    return pl_near_drift(&c->nl, t, q);
}

/* Constraint i left out of the list: no evaluation, a gap that cannot be reached (pen_geometry_at);
 * no gap model (aim.c) to fit from its last values once it is near again. */
static void leave_out(void *user, size_t i)
{
    run_ctx *c = user;
    c->fitted[i] = 0;
    c->aim_g[0][i] = c->aim_g[1][i] = c->aim_gdot[0][i] = c->aim_gdot[1][i] = NAN;
    pl_gap *g = &c->geometry[i];
    g->g = INFINITY, g->g_t = g->g_tt = 0.0;
    g->support = pl_model_support(c->model, i, &g->nsupport);
    for (size_t e = 0; e < g->nsupport; e++)
        g->grad[e] = g->grad_t[e] = 0.0;
    c->geometry_gdot[i] = 0.0;
}

/* The list anew at (t, q): the case's candidates and the active constraints (pl_near_rebuild). */
void pen_neighbours_rebuild(run_ctx *c, double t, const double *q)
{
    if (!c->nl.near)
        return;
    pl_near_rebuild(&c->nl, t, q, c->field.list, c->field.nlist, c->field.active, leave_out, c);
    c->geometry_t = NAN;
    pen_live_roots_update(c);
}

/* The root functions that can change sign (the stepper's live_roots): the gap of a constraint out of
 * the list is a positive constant (pen_roots) and the force root of an inactive one 1, which the
 * Runge-Kutta pair then does not look at: its O(2m) work per step went with them.  After a rebuild and
 * after a change of the modes (pen_modes_changed); without a list, every one. */
void pen_live_roots_update(run_ctx *c)
{
    if (!c->nl.near)
        return;
    size_t count = 0;
    for (size_t k = 0; k < c->nl.nlist; k++)
        c->live_roots[count++] = (int)c->nl.list[k];
    for (size_t k = 0; k < c->field.nlist; k++)
        c->live_roots[count++] = (int)(c->m + c->field.list[k]);
    c->nlive_roots = count;
    c->live_version++;
}

size_t pen_live_roots(void *user, const int **list, unsigned long *version)
{
    const run_ctx *c = user;
    *version = c->live_version;
    *list = c->nl.near ? c->live_roots : NULL;
    return c->nl.near ? c->nlive_roots : 2 * c->m;
}

int pen_neighbours_due(const run_ctx *c, double t, const double *q)
{
    return pl_near_due(&c->nl, t, q);
}

double pen_neighbours_max_step(const run_ctx *c, double t, const double *y)
{
    return pl_near_max_step(&c->nl, t, Q(y), V(y, c));
}

double pen_neighbours_redo(run *r, double t, const double *y)
{
    return pl_near_redo(&r->ctx.nl, r->loop.stepper, r->loop.prev_t, t, Q(y));
}

/* After a rebuild at (t, y), the state of the last recorded row: the gaps and rates recorded
 * (prev_g, prev_gdot) of the constraints in the list, which a row with sparse contacts gives only
 * to those in the list at its time (pen_record_sample). */
void pen_neighbours_refresh(run *r, double t, const double *y)
{
    run_ctx *c = &r->ctx;
    if (!c->nl.near)
        return;
    const pl_gap *gaps = pen_geometry_at(c, t, y);
    for (size_t k = 0; k < c->nl.nlist; k++) {
        size_t i = c->nl.list[k];
        r->prev_g[i] = gaps[i].g;
        r->prev_gdot[i] = c->geometry_gdot[i];
    }
}
