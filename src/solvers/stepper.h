/* The integrators behind the event loop (event_loop.h): a stepper advances y' = f(t, y) one step at a
 * time with error weights given by the solver, finds the roots of the solver's root functions, gives
 * the solution inside its last step, and restarts at a mode change.  Two kinds:
 *
 *   - CVODE BDF with a direct solver, dense or sparse (KLU) by the system's size (stepper_cvode.c):
 *     for stiff phases;
 *   - an explicit Runge-Kutta pair, GSL's rk8pd (stepper_rk.c): for phases where the dynamics must
 *     be resolved anyway (flights, impacts).  Its roots are located, and its dense output computed,
 *     by re-integrating the last step over a shorter interval, so both have the method's accuracy. */
#ifndef PL_STEPPER_H
#define PL_STEPPER_H

#include <stddef.h>

#include "core/status.h"
#include "solvers/csc.h"
#include "solvers/solution.h"

/* The size of system from which BDF factorizes its Newton matrix I - gamma J with KLU (sparse)
 * instead of SUNDIALS's dense LU: below it the dense one is as fast or faster (measured in
 * bench/bench_sparse.c; docs/methods.md, "Sparse linear algebra"). */
#define PL_SPARSE_FROM 16

/* What a solver gives a stepper.  Callbacks return 0 on success, > 0 for a recoverable failure (the
 * stepper retries with a smaller step), < 0 for a fatal one. */
typedef struct {
    size_t size;
    const double *y0; /* at t = 0 */
    double t_end;     /* never step past it */
    int (*rhs)(double t, const double *y, double *ydot, void *user);
    int (*weights)(double t, const double *y, double *w, void *user); /* w_j = 1/tolerance_j */
    int (*jacobian)(double t, const double *y, double *J, void *user); /* size x size, row-major; NULL:
                                                                            difference quotients (BDF) */
    /* Optional: the Jacobian straight into compressed sparse columns, for BDF's sparse solver, which
       otherwise converts the dense one (pl_csc_from_dense, skipping its exact zeros).  The hook
       fills J (size x size) as pl_csc_from_dense does, growing it with pl_csc_reserve, every
       diagonal entry stored (zero or not); it may store the pattern anew each time: the stepper
       compares it with the last one and has KLU order a pattern only when it changed.  A solver
       whose Jacobian is sparse by construction (a contact couples the few coordinates of its two
       bodies) sets this and leaves the dense array out; the dense path then scatters J.  Returns 0,
       PL_CSC_NOMEM if J could not grow (reported as out of memory), other non-zero values as the
       dense hook's. */
    int (*jacobian_csc)(double t, const double *y, pl_csc *J, void *user);
    /* BDF's linear algebra: sparse (KLU) for systems of at least this size, dense below (0:
       PL_SPARSE_FROM; SIZE_MAX: dense always; 1: sparse always).  Sparse needs a Jacobian hook. */
    size_t sparse_from;
    int (*roots)(double t, const double *y, double *g, void *user);
    /* Optional: root function k alone into *g (a search for one root needs no other). */
    int (*root)(double t, const double *y, int k, double *g, void *user);
    int nroots;
    /* Optional, for a multistep stepper: the highest order to use for a step of size h (0: its
       own maximum), asked before every step.  NULL: no limit. */
    int (*max_order)(double h, void *user);
    /* Optional, for a stepper that solves its steps by Newton's method: 1 if the step of size h from
       (t, y) needs a Jacobian evaluated afresh (its stiff directions turn faster than the iteration
       tolerates an old one), asked before every step; 0 leaves the reuse to the solver.  NULL: 0. */
    int (*fresh_jacobian)(double t, const double *y, double h, void *user);
    int napprox; /* the last napprox root functions only split steps (a kink of the right-hand side):
                    a stepper may locate them to its interpolant's accuracy instead of round-off */
    /* Optional: the solver takes over approximate root k crossed inside a step at t (y: the state
       there), which then goes on uncut (a kink of a quadrature the solver corrects itself), or
       declines (> 0), and the step is cut there as without the hook.  Only the Runge-Kutta
       stepper uses it; BDF stops at every root. */
    int (*kink)(double t, const double *y, int k, void *user);
    /* Optional: the solver's prediction of its next root in (t, t + h] from the state y at t: its
       time (else NAN), the root function's index into *k and the prediction's uncertainty (in time)
       into *uncertainty.  The Runge-Kutta stepper then ends the step just past it, so that the
       root is located from the state at the step's end (see stepper_rk.c, "Aiming"). */
    double (*aim)(double t, const double *y, double h, int *k, double *uncertainty, void *user);
    /* Optional: the order q < 9 of a singularity of the solution near t, which behaves like
       |t - t_s|^q there (a Hertz contact's entry and exit: q = n + 2), else NAN; the singular point
       at or before t into *behind and the next one predicted after t into *ahead (NAN: none).  The
       Runge-Kutta stepper's control then expects a step's local error to fall as the steps move
       away from the point behind (stepper_rk.c, "Singular points"). */
    double (*singular)(double t, double *behind, double *ahead, void *user);
    /* Optional: the root functions that can change sign, their indices in increasing order into
       *list (NULL: every one) and their count returned; the others keep their sign and the
       steppers do not look at them (a constraint out of a neighbour list: a root function per
       constraint would cost every step O(nroots)), and `roots` need not write their values.
       *version changes whenever the list changes other than at a restart: the Runge-Kutta
       stepper then evaluates the functions afresh at its state, CVODE (whose root finding is
       given the listed functions alone, renumbered) restarts there.  Asked at every restart and
       every step. */
    size_t (*live_roots)(void *user, const int **list, unsigned long *version);
    /* Optional: 1 if only crossings from above count (g > 0 to g <= 0), as CVODE's root direction
       -1: a solver whose events are all falling crossings (the limit solution's landings and
       lift-offs).  A function rising through 0, a gap left a few ulps below 0 by an impact's
       projection that separates, would otherwise end a step at every step (its value just past the
       root rounds to below 0 again).  Only the Runge-Kutta stepper implements it; BDF refuses it. */
    int falling_only;
    double root_ulps; /* precise roots to this many ulps of t (0: 100, as CVODE) */
    void *user;
    const char *context; /* for failure messages, e.g. "mu = 1e+08" */
} pl_stepper_spec;

/* The smallest step at t: below it t + h does not resolve the step (16 ulps of max(1, |t|)). */
double pl_stepper_min_step(double t);

typedef struct pl_stepper pl_stepper;
struct pl_stepper {
    const char *name;
    size_t size;
    size_t nroots; /* of the spec: the length of root_info's found */
    double t;  /* the current time */
    double *y; /* the state at t (a solver may change it before a restart) */
    /* No step longer than this (0: no limit); a solver may change it between steps (the event loop's
     * max_step hook). */
    double max_step;
    /* One step toward t_stop: 0 after an ordinary step, 1 when the step ended at a root (root_info
     * tells which), < 0 on failure (err filled). */
    int (*step)(pl_stepper *s, double t_stop, pl_error *err);
    /* End the last step at t inside it, at an event the solver found there (a crossing rootfinding
     * did not see): the state becomes the solution at t, and the dense output and the restart start
     * from there.  The approximate roots crossed before t go to the kink hook, as in a step that
     * ended at t; 1 if one the solver declines now ends the step before t (root_info tells which),
     * else 0, < 0 on failure (err filled). */
    int (*cut)(pl_stepper *s, double t, pl_error *err);
    /* The solution at t inside the last step (NULL on failure); valid until the next call. */
    const double *(*dense)(pl_stepper *s, double t);
    /* The same, to be searched for a root or an extremum: it may be a cheaper interpolant of lower
     * accuracy (evaluate the point found with dense). */
    const double *(*dense_cheap)(pl_stepper *s, double t);
    /* found[k] = +1 (increasing) or -1 (decreasing) for the root functions that vanished at the
     * last step's end, their indices into which (room for nroots), their count returned; the other
     * entries of found are left as they are (the event loop keeps them 0), so that an event costs the
     * roots found, not nroots. */
    size_t (*root_info)(pl_stepper *s, int *found, int *which);
    /* Restart at (t, y) after a mode change, with first step h0 (0: the stepper's own estimate). */
    pl_status (*restart)(pl_stepper *s, double t, double h0, pl_error *err);
    long (*steps)(pl_stepper *s); /* since the last restart */
    /* Add the counters since the last restart (call it before restarting) and since creation. */
    void (*add_counters)(pl_stepper *s, pl_stats *stats);
    void (*free)(pl_stepper *s);
    void *impl;
};

pl_status pl_stepper_cvode_new(pl_stepper **s, const pl_stepper_spec *spec, pl_error *err);
pl_status pl_stepper_rk_new(pl_stepper **s, const pl_stepper_spec *spec, pl_error *err);

void pl_stepper_free(pl_stepper *s);

#endif
