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
        return pen_slots_resize(r, c->m, NULL, err);
    c->slot_of = malloc(c->m * sizeof *c->slot_of);
    c->free_slot = malloc(c->m * sizeof *c->free_slot);
    if (!c->slot_of || !c->free_slot)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for the impulses of %zu constraints", c->m);
    for (size_t i = 0; i < c->m; i++)
        c->slot_of[i] = SIZE_MAX;
    c->nfree = 0;
    return pen_slots_resize(r, FIRST_SLOTS < c->m ? FIRST_SLOTS : c->m, NULL, err);
}

void pen_slots_free(run_ctx *c)
{
    free(c->slot_of);
    free(c->free_slot);
    c->slot_of = c->free_slot = NULL;
}

/* The state of `slots` impulses: N and the run's arrays of the state's size, y0 holding y (the
 * first components of a smaller state; the new slots 0), or zeros if y is NULL.  New slots are free,
 * the last first: slots are taken in increasing order. */
pl_status pen_slots_resize(run *r, size_t slots, const double *y, pl_error *err)
{
    run_ctx *c = &r->ctx;
    size_t N = 2 * c->n + 1 + slots, old = c->N;
    double *f0, *f1, *y1, *w, *y_scan, *y0;
    pl_part parts[] = {{&f0, N}, {&f1, N}, {&y1, N}, {&w, N}, {&y_scan, N}, {&y0, N}};
    double *block = pl_carve(parts, PL_NPARTS(parts));
    if (!block)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for a state of %zu components", N);
    if (y)
        memcpy(y0, y, (old < N ? old : N) * sizeof *y0);
    free(r->state_block);
    r->state_block = block;
    r->f0 = f0, r->f1 = f1, r->y1 = y1, r->w = w, r->y_scan = y_scan, r->y0 = y0;
    if (c->slot_of)
        for (size_t k = slots; k-- > c->slots;)
            c->free_slot[c->nfree++] = k;
    c->slots = slots;
    c->N = N;
    return PL_OK;
}

/* At least `more` free slots before an event at the state *y switches constraints on (or at the
 * initial state *y = r->y0, before the steppers): if there are fewer, the slots grow, the steppers are made anew at the state's new size (the active one's counters
 * kept; the BDF stepper again at the next settled contact) and *y becomes the new stepper's state. */
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
    pl_status s = pen_slots_resize(r, slots, *y, err);
    if (s != PL_OK)
        return s;
    if (!r->loop.stepper) { /* before the steppers: the initial state */
        *y = r->y0;
        return PL_OK;
    }
    pl_stepper *active = r->loop.stepper;
    active->add_counters(active, r->loop.stats);
    pl_stepper_free(r->rk);
    pl_stepper_free(r->bdf);
    r->rk = r->bdf = NULL;
    r->spec.size = c->N;
    r->spec.y0 = r->y0;
    if ((s = pl_stepper_rk_new(&r->rk, &r->spec, err)) != PL_OK) {
        pl_stepper_free(r->rk);
        r->rk = NULL;
        pl_loop_replace_stepper(&r->loop, NULL);
        return s;
    }
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
