/* The event loop both ODE solvers (penalized runs and the limit solution) drive their steppers
 * with (stepper.h).  Step by step to t_end:
 *
 *   - `missed` inspects the step just taken; it returns 1 with a crossing time t_c <= t where a
 *     contact began or ended unseen by rootfinding (or that it wants handled before a root at t);
 *     the step then ends there (the stepper's cut), the event at t_c;
 *   - otherwise a root of the stepper is an event at t;
 *   - the output samples before the event (or the step end) are recorded from the dense output;
 *   - at an event the state is recorded, `event` changes the modes (and may change t and y), the
 *     stepper chosen by `choose` is restarted there, and the state is recorded again if anything
 *     changed, so the trajectory carries both one-sided values; after an ordinary step the state is
 *     recorded, and `choose` may hand the integration to another stepper (a restart);
 *   - a time within round-off of t_end (16 ulps: an event located just before it) ends the run, its
 *     state recorded again at t_end. */
#ifndef PL_EVENT_LOOP_H
#define PL_EVENT_LOOP_H

#include "model/model.h"
#include "solvers/stepper.h"

typedef struct {
    /* Record the state (t, y) as a trajectory row. */
    pl_status (*record)(void *user, double t, const double *y, pl_error *err);
    /* Returns 1 (with *t_cross), 0, or -1 (failure, in err); at_root: the step ended at a root. */
    int (*missed)(void *user, double t, const double *y, int at_root, double *t_cross, pl_error *err);
    /* Mode changes at *t: at a root (found: the stepper's root info) or at a missed crossing (found
     * NULL).  Sets *changed when the modes or the state changed.  It may replace the active stepper
     * (pl_loop_replace_stepper), y then being the old one's: the loop goes on from the new one's. */
    pl_status (*event)(void *user, double *t, double *y, const int *found, int *changed, pl_error *err);
    /* Optional: the stepper to continue with at t (NULL or the active one: no change). */
    pl_stepper *(*choose)(void *user, double t);
    /* Optional: the first step after a restart at t (0: the stepper's own estimate). */
    double (*initial_step)(void *user, pl_stepper *s, double t);
    /* Optional: the longest step from t (0: no bound), set as the active stepper's max_step before
     * each step.  NULL: max_step is left as it is. */
    double (*max_step)(void *user, double t);
} pl_loop_hooks;

typedef struct {
    pl_stepper *stepper; /* the active one */
    pl_loop_hooks hooks;
    void *user;
    const char *context; /* for failure messages, e.g. "mu = 1e+08" */
    pl_stats *stats;     /* counters are added here */
    double t_end;
    long max_steps;
    double max_seconds; /* wall-clock budget (0: none), from started */
    double started;     /* pl_now_seconds() at the start of the run */
    /* Polled with the budget (pl_solve_poll): the model's error channel and the caller's cancel hook
     * (cancel may be NULL). */
    const pl_model *model;
    int (*cancel)(void *user);
    void *cancel_user;
    const pl_solution *output; /* what the run has recorded: the time to write it counts against the budget
                                  (NULL: nothing counted) */
    size_t samples;     /* uniform output samples k t_end/samples, k = 1..samples (pl_loop_grid) */
    size_t next_sample; /* index of the next one to record */
    double prev_t;      /* the last recorded row */
    /* The states at the output samples first .. first + count - 1 inside the last step, from the
     * stepper's dense output (pl_loop_sample_state; count 0 after each step and cut): owned by
     * pl_loop_run, which frees them. */
    double *sample_y;
    size_t sample_first, sample_count, sample_cap;
} pl_event_loop;

/* The uniform output samples over [0, t_end] a dense solver records before its rows are sampled by
 * events (pl_solution_sample_rows, `samples` per flight and per episode): at least
 * PL_LOOP_GRID_MIN, as many as `samples` if more, none for samples = 0 (every step, nothing else).
 * The grid is also where a penalized run's scan for missed crossings looks inside a step
 * (penalty/crossings.c): it is part of the integration, and does not follow the rows stored. */
#define PL_LOOP_GRID_MIN 1000
static inline size_t pl_loop_grid(size_t samples)
{
    return samples == 0 ? 0 : samples > PL_LOOP_GRID_MIN ? samples : PL_LOOP_GRID_MIN;
}

/* Time of output sample k (INFINITY past the last). */
double pl_loop_sample_time(const pl_event_loop *loop, size_t k);

/* The state at output sample k inside the last step (the stepper's dense output there), or NULL if
 * the dense output failed; valid until the next call.  Kept for the record of the step's samples: a
 * missed hook that inspects the step at its samples and the record then re-integrate each sample
 * once, not twice (the Runge-Kutta stepper's dense output is a full step). */
const double *pl_loop_sample_state(pl_event_loop *loop, size_t k);

/* Record a row through the hook and remember its time. */
pl_status pl_loop_record(pl_event_loop *loop, double t, const double *y, pl_error *err);

/* Restart the stepper `next` (or the active one if NULL) at (t, y), y being the active stepper's
 * state; `next` becomes the active one. */
pl_status pl_loop_restart(pl_event_loop *loop, pl_stepper *next, double t, pl_error *err);

/* The active stepper replaced by `next` (made anew at another state size by a hook, which freed the
 * old one; NULL: none, the run failing): the states kept for the samples, of the old size, dropped. */
void pl_loop_replace_stepper(pl_event_loop *loop, pl_stepper *next);

/* Run the loop from the active stepper's current state to t_end. */
pl_status pl_loop_run(pl_event_loop *loop, pl_error *err);

/* Tighten the tolerances tol[0..n) of positions and tol[n..2n) of velocities so that the gap (dense
 * or compressed to its support) is controlled to tol_g and its rate to tol_gd. */
void pl_tighten_for_gap(double *tol, size_t n, const pl_gap *gap, double tol_g, double tol_gd);

#endif
