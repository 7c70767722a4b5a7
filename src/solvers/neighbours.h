/* Neighbour search (a case's candidates and gap_bounds, include/penlim/model.h): the constraints a run
 * evaluates between rebuilds of the list, and the proof that it leaves out none that could come into
 * contact.  Shared by the penalized runs (penalty/neighbours.c) and the limit solution
 * (limit/limit.c), which keep what they hold per constraint themselves.
 *
 * The list is built at (t0, q0) with margin delta: every constraint that can have G_i < delta there,
 * and those the solver keeps in it (its active or sliding ones).  A constraint left out has
 * G_i(q0, t0) >= delta, and with the case's bounds (|G_i(q) - G_i(q0)| <= L max_j |q_j - q0_j|,
 * |dG_i/dt| <= B) G_i(q, t) >= delta - drift, drift = L max_j |q_j - q0_j| + B |t - t0|: positive while
 * drift < delta, wherever the state went in between (the bound holds point by point, not along a
 * path).  A run rebuilds the list at a step's end (or an event) once the drift there exceeds delta/2
 * (pl_near_due), and a step whose end is beyond delta is cut where the drift on its interpolant is at
 * most 3 delta/4 (pl_near_redo), the list rebuilt there.  Such cuts cost a restart: steps are bounded
 * beforehand by the time the drift takes to reach 3 delta/4 at the present speeds (pl_near_max_step;
 * a bound, not the proof: speeds change).  Within a step the drift is taken at its end (and the cut's
 * bisection on the interpolant): a step that moves a coordinate by more than delta/(2L) and back
 * within itself would not be seen, which steps resolving the motion to rtol do not do.
 *
 * delta is the case's length scale V^2/A (for the box of disks at most the smallest diameter): the
 * list then holds the pairs within about a diameter, and is rebuilt after each disk has moved about a
 * tenth of one. */
#ifndef PL_NEIGHBOURS_H
#define PL_NEIGHBOURS_H

#include <stddef.h>

#include "core/status.h"
#include "model/model.h"
#include "solvers/stepper.h"

/* From this many constraints a model with candidates and gap_bounds has its list used; below, every
 * constraint is evaluated: there the list saves little, and the error weights it leaves to the near
 * gaps alone change a run's discrete outcomes near a tolerance's edge (an impact of the box of 5 disks
 * matched otherwise: tests/test_impact_match.c). */
#define PL_NEAR_FROM 100

typedef struct {
    const pl_model *model;
    size_t n, m;
    unsigned char *near;  /* m: near[i] = 1 if constraint i is in the list; NULL: no list, every one evaluated */
    size_t *list, nlist;  /* the constraints in the list, in increasing order */
    size_t *next;         /* m: the next list while a rebuild makes it */
    double t, margin, *q; /* the list's time (NAN before the first build), its margin delta and q0 (n) */
    long rebuilds;        /* every build */
    long visits;          /* the constraints the rebuilds after the first visited (the old list, the
                             candidates and those kept): O(N), not m */
} pl_near;

/* The list for `model` (n coordinates, m constraints): used if the case gives candidates and m >=
 * PL_NEAR_FROM, near NULL otherwise (nothing allocated).  Margin V^2/A. */
pl_status pl_near_init(pl_near *nl, const pl_model *model, size_t n, size_t m, pl_error *err);
void pl_near_free(pl_near *nl);

/* The constraints evaluated, in increasing order: the k-th of pl_near_count (the list's, or every one
 * without a list); pl_near_has: whether i is one. */
static inline size_t pl_near_count(const pl_near *nl)
{
    return nl->near ? nl->nlist : nl->m;
}
static inline size_t pl_near_at(const pl_near *nl, size_t k)
{
    return nl->near ? nl->list[k] : k;
}
static inline int pl_near_has(const pl_near *nl, size_t i)
{
    return !nl->near || nl->near[i];
}

/* drift = L max_j |q_j - q0_j| + B |t - t0|: a constraint out of the list has G_i >= margin - drift. */
double pl_near_drift(const pl_near *nl, double t, const double *q);
/* 1 if the list is due for a rebuild at (t, q): drift > margin/2. */
int pl_near_due(const pl_near *nl, double t, const double *q);
/* The longest step from (t, q, v) before the drift reaches 3 margin/4 at the present speeds (0: no
 * list, or no bound). */
double pl_near_max_step(const pl_near *nl, double t, const double *q, const double *v);
/* A step from t0 to t (state q at t) whose drift exceeds the margin: the time in (t0, t) where the
 * drift on the stepper's dense output (q its first n components) is at most 3 margin/4, found by
 * bisection; NAN if the step is within the margin (or there is no list). */
double pl_near_redo(const pl_near *nl, pl_stepper *s, double t0, double t, const double *q);

/* The list anew at (t, q): the case's candidates and the constraints kept (keep[0..nkeep), those with
 * keep_flag[i] non-zero if keep_flag is given), in increasing order.  leave(user, i) for each constraint
 * that leaves the list (every one out of it at the first build): the solver resets what it holds for
 * it.  The work is the old list, the candidates and those kept, not m. */
void pl_near_rebuild(pl_near *nl, double t, const double *q, const size_t *keep, size_t nkeep, const int *keep_flag,
                     void (*leave)(void *user, size_t i), void *user);

#endif
