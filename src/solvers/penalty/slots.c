/* The impulses' slots: which components of the state hold which constraint's impulse.
 *
 * The impulse I_i = integral of lambda_i is read only at the start and the close of constraint i's
 * episode (episodes.c), and lambda_i is 0 while constraint i is inactive.  Only active constraints
 * therefore need a component: a box of 100 disks has 5350 constraints and a few dozen active, and a
 * component per constraint made every stage of every step (the right-hand side's writes, the
 * Runge-Kutta pair's vector operations, the error norm) cost O(m).  From PEN_SLOTS_FROM constraints
 * the state holds `slots` impulse components: a constraint takes a free slot at the event that
 * activates it (set to 0 there; every mode change restarts the steppers, so no step spans the
 * change), the episode folds the slot's value in at its close, and the slot is freed.  When an event
 * activates more constraints than there are free slots, the slots double: the state grows and the
 * steppers are made anew at that size (the event restarts them anyway).
 *
 * Below PEN_SLOTS_FROM constraints slot i is constraint i's for the whole run, the layout of a state
 * with every impulse, and runs are as they were to the bit.
 *
 * The Runge-Kutta pair's error norm is an RMS over the state's components, the impulses weighted 0
 * (weights.c): a smaller state weighs the motion's errors more (by sqrt(N_before / N_after)), which
 * tightens big runs' control (docs/verification.md, "Cost against the number of bodies"). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/carve.h"
#include "solvers/penalty/engine.h"

/* The first slots of a run with slots (more as events need them). */
#define FIRST_SLOTS 16

pl_status pen_slots_init(run *r, pl_error *err)
{
    run_ctx *c = &r->ctx;
    if (c->m < PEN_SLOTS_FROM)
        return pen_slots_resize(r, c->m, err);
    c->slot_of = malloc(c->m * sizeof *c->slot_of);
    c->free_slot = malloc(c->m * sizeof *c->free_slot);
    if (!c->slot_of || !c->free_slot)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for the impulses of %zu constraints", c->m);
    for (size_t i = 0; i < c->m; i++)
        c->slot_of[i] = SIZE_MAX;
    c->nfree = 0;
    return pen_slots_resize(r, FIRST_SLOTS < c->m ? FIRST_SLOTS : c->m, err);
}

void pen_slots_free(run_ctx *c)
{
    free(c->slot_of);
    free(c->free_slot);
    c->slot_of = c->free_slot = NULL;
}

/* The run's arrays of one state size, carved apart into one block. */
typedef struct {
    double *block, *f0, *f1, *y1, *w, *y_scan, *y0;
} state_arrays;

static pl_status state_arrays_new(state_arrays *a, size_t N, pl_error *err)
{
    pl_part parts[] = {{&a->f0, N}, {&a->f1, N}, {&a->y1, N}, {&a->w, N}, {&a->y_scan, N}, {&a->y0, N}};
    a->block = pl_carve(parts, PL_NPARTS(parts));
    return a->block ? PL_OK : pl_fail(err, PL_ERR_NOMEM, "out of memory for a state of %zu components", N);
}

/* The run takes the arrays a for a state of `slots` impulses (new slots free, the last first: slots
 * are taken in increasing order). */
static void state_arrays_commit(run *r, state_arrays *a, size_t slots)
{
    run_ctx *c = &r->ctx;
    free(r->state_block);
    r->state_block = a->block;
    r->f0 = a->f0, r->f1 = a->f1, r->y1 = a->y1, r->w = a->w, r->y_scan = a->y_scan, r->y0 = a->y0;
    if (c->slot_of)
        for (size_t k = slots; k-- > c->slots;)
            c->free_slot[c->nfree++] = k;
    c->slots = slots;
    c->N = 2 * c->n + 1 + slots;
}

/* The state of `slots` impulses: N and the run's arrays of the state's size, y0 zero. */
pl_status pen_slots_resize(run *r, size_t slots, pl_error *err)
{
    state_arrays a;
    pl_status s = state_arrays_new(&a, 2 * r->ctx.n + 1 + slots, err);
    if (s == PL_OK)
        state_arrays_commit(r, &a, slots);
    return s;
}

/* At least `more` free slots before an event at the state *y switches constraints on (or at the
 * initial state *y = r->y0, before the steppers): if there are fewer, the slots grow, the steppers are
 * made anew at the state's new size (the active one's counters kept; the BDF stepper again at the next
 * settled contact) and *y becomes the new stepper's state.  Nothing changes unless all of it can be
 * made: a run that fails here closes its episodes from the state it had. */
pl_status pen_slots_reserve(run *r, size_t more, double **y, pl_error *err)
{
    run_ctx *c = &r->ctx;
    if (!c->slot_of || c->nfree >= more)
        return PL_OK;
    size_t need = c->slots - c->nfree + more, slots = 2 * c->slots;
    if (slots < need)
        slots = need;
    if (slots > c->m)
        slots = c->m;
    size_t N = 2 * c->n + 1 + slots;
    state_arrays a;
    pl_status s = state_arrays_new(&a, N, err);
    if (s != PL_OK)
        return s;
    memcpy(a.y0, *y, c->N * sizeof *a.y0); /* the first components of the larger state; the new slots 0 */
    if (!r->loop.stepper) { /* before the steppers: the initial state */
        state_arrays_commit(r, &a, slots);
        *y = r->y0;
        return PL_OK;
    }
    pl_stepper_spec spec = r->spec;
    spec.size = N;
    spec.y0 = a.y0;
    pl_stepper *rk = NULL;
    if ((s = pl_stepper_rk_new(&rk, &spec, err)) != PL_OK) {
        pl_stepper_free(rk);
        free(a.block);
        return s;
    }
    pl_stepper *active = r->loop.stepper;
    active->add_counters(active, r->loop.stats);
    pl_stepper_free(r->rk);
    pl_stepper_free(r->bdf);
    r->bdf = NULL;
    r->rk = rk;
    state_arrays_commit(r, &a, slots);
    r->spec = spec;
    pl_loop_replace_stepper(&r->loop, r->rk);
    *y = r->rk->y;
    return PL_OK;
}

/* Constraint i, switched on, takes a free slot (pen_slots_reserve made one), its impulse 0 in y. */
void pen_slot_take(run_ctx *c, size_t i, double *y)
{
    if (!c->slot_of || c->slot_of[i] != SIZE_MAX || c->nfree == 0)
        return;
    size_t slot = c->free_slot[--c->nfree];
    c->slot_of[i] = slot;
    IMPULSE(y, c)[slot] = 0.0;
}

/* Constraint i, switched off, its episode closed, frees its slot. */
void pen_slot_release(run_ctx *c, size_t i)
{
    if (!c->slot_of || c->slot_of[i] == SIZE_MAX)
        return;
    c->free_slot[c->nfree++] = c->slot_of[i];
    c->slot_of[i] = SIZE_MAX;
}
