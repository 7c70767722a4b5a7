/* Neighbour search (a case's candidates and gap_bounds, include/penlim/model.h): the constraints a
 * penalized run evaluates between rebuilds of the list, and the proof that it leaves out none that
 * could come into contact.
 *
 * The list is built at (t0, q0) with margin delta: every constraint that can have G_i < delta there,
 * and every active one.  A constraint left out has G_i(q0, t0) >= delta, and with the case's bounds
 * (|G_i(q) - G_i(q0)| <= L max_j |q_j - q0_j|, |dG_i/dt| <= B) G_i(q, t) >= delta - drift, drift =
 * L max_j |q_j - q0_j| + B (t - t0): positive while drift < delta.  The run rebuilds the list at a
 * step's end (or an event) once the drift there exceeds delta/2, and a step whose end is beyond delta
 * is cut where the drift on its interpolant is at most 3 delta/4 (the `missed` hook), the list
 * rebuilt there.  Such cuts cost a restart: steps are bounded beforehand by the time the drift takes
 * to reach 3 delta/4 at the present speeds (max_step; a bound, not the proof: speeds change).  Within a step the drift is taken at its end (and the cut's bisection on the
 * interpolant): a step that moves a coordinate by more than delta/(2L) and back within itself would
 * not be seen, which steps resolving the motion to rtol do not do.
 *
 * delta is the case's length scale V^2/A (for the box of disks at most the smallest diameter): the
 * list then holds the pairs within about a diameter, and is rebuilt after each disk has moved about a
 * tenth of one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/penalty/engine.h"

/* Fewer constraints than PEN_SLOTS_FROM are all evaluated, the case's list unused: there it saves
 * little, and the error weights it leaves to the near gaps alone change such a run's discrete outcomes
 * near a tolerance's edge (an impact of the box of 5 disks matched otherwise: tests/test_impact_match.c). */

pl_status pen_neighbours_init(run_ctx *c, pl_error *err)
{
    const pl_model *model = c->model;
    c->near = NULL;
    if (!model->type->candidates || c->m < PEN_SLOTS_FROM)
        return PL_OK;
    c->near = calloc(c->m, sizeof *c->near);
    c->near_list = calloc(c->m, sizeof *c->near_list);
    c->near_next = calloc(c->m, sizeof *c->near_next);
    c->near_q = calloc(c->n, sizeof *c->near_q);
    c->live_roots = calloc(2 * c->m, sizeof *c->live_roots);
    if (!c->near || !c->near_list || !c->near_next || !c->near_q || !c->live_roots)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for the neighbour list of %zu constraints", c->m);
    c->near_margin = model->v_scale * model->v_scale / model->a_scale;
    c->near_t = NAN;
    return PL_OK;
}

void pen_neighbours_free(run_ctx *c)
{
    free(c->near);
    free(c->near_list);
    free(c->near_next);
    free(c->near_q);
    free(c->live_roots);
    c->near = NULL, c->near_list = NULL, c->near_next = NULL, c->near_q = NULL, c->live_roots = NULL;
}

double pen_neighbours_drift(const run_ctx *c, double t, const double *q)
{
    double d = 0.0;
    for (size_t j = 0; j < c->n; j++)
        d = fmax(d, fabs(q[j] - c->near_q[j]));
    return c->model->gap_lipschitz * d + c->model->gap_rate * fabs(t - c->near_t);
}

/* Constraint i left out of the list: no evaluation, a gap that cannot be reached (pen_geometry_at);
 * no gap model (aim.c) to fit from its last values once it is near again. */
static void leave_out(run_ctx *c, size_t i)
{
    c->near[i] = 0;
    c->fitted[i] = 0;
    c->aim_g[0][i] = c->aim_g[1][i] = c->aim_gdot[0][i] = c->aim_gdot[1][i] = NAN;
    pl_gap *g = &c->geometry[i];
    g->g = INFINITY, g->g_t = g->g_tt = 0.0;
    g->support = pl_model_support(c->model, i, &g->nsupport);
    for (size_t e = 0; e < g->nsupport; e++)
        g->grad[e] = g->grad_t[e] = 0.0;
    c->geometry_gdot[i] = 0.0;
}

static int compare_index(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* The list anew at (t, q): the case's candidates and the active constraints, in increasing order.
 * The work is the old list, the candidates and the active ones (the case's cell list is O(N)), not
 * m: the marks near[] of the old list tell those that leave it, which alone are reset; every other
 * constraint out of the list was reset when it left (or at the first build, which resets all). */
void pen_neighbours_rebuild(run_ctx *c, double t, const double *q)
{
    if (!c->near)
        return;
    enum { OUT = 0, IN = 1, WAS_IN = 2 };
    const pl_model *model = c->model;
    const pl_case *k = model->type;
    int first = isnan(c->near_t);
    size_t *next = c->near_next, count = k->candidates(model->par, t, q, c->near_margin, next, k->user);
    count = count < c->m ? count : c->m;
    for (size_t e = 0; e < c->nnear; e++)
        c->near[c->near_list[e]] = WAS_IN;
    size_t nnext = 0;
    for (size_t e = 0; e < count; e++) {
        size_t i = next[e];
        if (i < c->m && c->near[i] != IN)
            c->near[i] = IN, next[nnext++] = i;
    }
    for (size_t e = 0; e < c->field.nlist; e++) {
        size_t i = c->field.list[e];
        if (c->field.active[i] && c->near[i] != IN)
            c->near[i] = IN, next[nnext++] = i;
    }
    if (first) {
        for (size_t i = 0; i < c->m; i++)
            if (c->near[i] != IN)
                leave_out(c, i);
    } else { /* rebuild_visits: of the rebuilds after the first, which visits every constraint once */
        c->rebuild_visits += (long)(c->nnear + count + c->field.nlist);
        for (size_t e = 0; e < c->nnear; e++)
            if (c->near[c->near_list[e]] == WAS_IN)
                leave_out(c, c->near_list[e]);
    }
    qsort(next, nnext, sizeof *next, compare_index);
    c->near_next = c->near_list;
    c->near_list = next;
    c->nnear = nnext;
    c->geometry_t = NAN;
    memcpy(c->near_q, q, c->n * sizeof *q);
    c->near_t = t;
    c->neighbour_rebuilds++;
    pen_live_roots_update(c);
}

/* The root functions that can change sign (the stepper's live_roots): the gap of a constraint out of
 * the list is a positive constant (pen_roots) and the force root of an inactive one 1, which the
 * Runge-Kutta pair then does not look at: its O(2m) work per step went with them.  After a rebuild and
 * after a change of the modes (pen_modes_changed); without a list, every one. */
void pen_live_roots_update(run_ctx *c)
{
    if (!c->near)
        return;
    size_t count = 0;
    for (size_t k = 0; k < c->nnear; k++)
        c->live_roots[count++] = (int)c->near_list[k];
    for (size_t k = 0; k < c->field.nlist; k++)
        c->live_roots[count++] = (int)(c->m + c->field.list[k]);
    c->nlive_roots = count;
    c->live_version++;
}

size_t pen_live_roots(void *user, const int **list, unsigned long *version)
{
    const run_ctx *c = user;
    *version = c->live_version;
    *list = c->near ? c->live_roots : NULL;
    return c->near ? c->nlive_roots : 2 * c->m;
}

int pen_neighbours_due(const run_ctx *c, double t, const double *q)
{
    return c->near && pen_neighbours_drift(c, t, q) > 0.5 * c->near_margin;
}

double pen_neighbours_max_step(const run_ctx *c, double t, const double *y)
{
    if (!c->near)
        return 0.0;
    double v = 0.0, room = 0.75 * c->near_margin - pen_neighbours_drift(c, t, Q(y));
    for (size_t j = 0; j < c->n; j++)
        v = fmax(v, fabs(V(y, c)[j]));
    double rate = c->model->gap_lipschitz * v + c->model->gap_rate;
    return room > 0.0 && rate > 0.0 ? room / rate : 0.0;
}

double pen_neighbours_redo(run *r, double t, const double *y)
{
    run_ctx *c = &r->ctx;
    if (!c->near || !(pen_neighbours_drift(c, t, Q(y)) > c->near_margin))
        return NAN;
    pl_stepper *s = r->loop.stepper;
    double lo = r->loop.prev_t, hi = t;
    for (int k = 0; k < 60 && lo < hi; k++) {
        double mid = lo + 0.5 * (hi - lo);
        const double *ym = s->dense(s, mid);
        if (!(mid > lo && mid < hi))
            break;
        if (ym && pen_neighbours_drift(c, mid, Q(ym)) <= 0.75 * c->near_margin)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* After a rebuild at (t, y), the state of the last recorded row: the gaps and rates recorded
 * (prev_g, prev_gdot) of the constraints in the list, which a row with sparse contacts gives only
 * to those in the list at its time (pen_record_sample). */
void pen_neighbours_refresh(run *r, double t, const double *y)
{
    run_ctx *c = &r->ctx;
    if (!c->near)
        return;
    const pl_gap *gaps = pen_geometry_at(c, t, y);
    for (size_t k = 0; k < c->nnear; k++) {
        size_t i = c->near_list[k];
        r->prev_g[i] = gaps[i].g;
        r->prev_gdot[i] = c->geometry_gdot[i];
    }
}
