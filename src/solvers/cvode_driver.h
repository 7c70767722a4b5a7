/* What the two CVODE integrators (penalized runs and the limit solution) share: the CVODE set-up
 * (BDF, dense direct solver, error-weight function, rootfinding), capture of CVODE's messages (the
 * library never prints), failure reports, counters, and the event loop that steps, records rows and
 * output samples, and restarts at mode changes. */
#ifndef PL_CVODE_DRIVER_H
#define PL_CVODE_DRIVER_H

#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <stddef.h>
#include <sundials/sundials_context.h>

#include "core/status.h"
#include "solvers/solution.h"

/* CVODE error handler (CVodeSetErrHandlerFn): user must point to a char[PL_CVODE_MESSAGE]. */
#define PL_CVODE_MESSAGE 400
void pl_cvode_keep_message(int code, const char *module, const char *function, char *msg, void *user);

/* A failure report naming CVODE's return flag, the time reached and CVODE's last message. */
pl_status pl_cvode_failure(void *cvode, const char *what, int flag, const char *context, const char *message,
                           pl_error *err);

/* Return the failure report of a CVODE call that failed (flag < 0), from a function with a
 * pl_error *err in scope. */
#define PL_CVODE_CHECK(mem, context, message, call, what)                                          \
    do {                                                                                           \
        int flag_ = (call);                                                                        \
        if (flag_ < 0)                                                                             \
            return pl_cvode_failure(mem, what, flag_, context, message, err);                     \
    } while (0)

/* Add CVODE's counters since the last (re)initialization to stats. */
void pl_cvode_add_counters(void *cvode, pl_stats *stats);

/* Tighten the tolerances tol[0..n) of positions and tol[n..2n) of velocities so that a gap with
 * gradient grad is controlled to tol_g and its rate to tol_gd. */
void pl_tighten_for_gap(double *tol, size_t n, const double *grad, double tol_g, double tol_gd);

/* A CVODE BDF integrator (after the SUNDIALS examples: every return value checked, everything freed
 * in reverse order). */
typedef struct {
    SUNContext sun;
    N_Vector y, ytmp; /* the state, and a work vector of the same size */
    SUNMatrix J;
    SUNLinearSolver LS;
    void *mem;
    char message[PL_CVODE_MESSAGE]; /* CVODE's last error message */
} pl_cvode;

typedef struct {
    size_t size;
    const double *y0; /* at t = 0 */
    double t_end;     /* stop time */
    CVRhsFn rhs;
    CVEwtFn weights;
    CVLsJacFn jacobian; /* NULL: CVODE's difference quotients */
    CVRootFn roots;
    int nroots;
    void *user;
} pl_cvode_spec;

pl_status pl_cvode_create(pl_cvode *cv, const pl_cvode_spec *spec, pl_error *err);
void pl_cvode_free(pl_cvode *cv);

/* The solution at t inside the last step (CVODE's dense output), in cv->ytmp; NULL on failure. */
const double *pl_cvode_dense(pl_cvode *cv, double t);

/* ---- the event loop --------------------------------------------------------------------------
 *
 * Step by step to t_end:
 *   - `missed` inspects the step just taken; it returns 1 with a crossing time t_c <= t where a
 *     contact began or ended unseen by rootfinding (or that it wants handled before a root at t);
 *   - otherwise a root of CVODE (flag CV_ROOT_RETURN) is an event at t;
 *   - the output samples before the event (or the step end) are recorded from the dense output, with
 *     `advance` called over each piece first (quadratures along the solution);
 *   - at an event the state is recorded, `event` changes the modes (and may change t and y), CVODE
 *     is restarted there, and the state is recorded again if anything changed, so the trajectory
 *     carries both one-sided values; after an ordinary step the state is recorded and `after_step`
 *     runs. */
typedef struct {
    /* Record the state (t, y) as a trajectory row. */
    pl_status (*record)(void *user, double t, const double *y, pl_error *err);
    /* Returns 1 (with *t_cross), 0, or -1 (failure, in err); flag is CVode's return. */
    int (*missed)(void *user, double t, const double *y, int flag, double *t_cross, pl_error *err);
    /* Mode changes at *t: at a root (rootsfound from CVODE) or at a missed crossing (rootsfound
     * NULL).  Sets *changed when the modes or the state changed. */
    pl_status (*event)(void *user, double *t, double *y, const int *rootsfound, int *changed, pl_error *err);
    /* Optional. */
    void (*advance)(void *user, double a, double b);
    pl_status (*after_step)(void *user, double t, pl_error *err);
    pl_status (*after_restart)(void *user, double t, pl_error *err); /* e.g. the first step size */
} pl_cvode_hooks;

typedef struct {
    pl_cvode cv;
    pl_cvode_hooks hooks;
    void *user;
    const char *context; /* for failure messages, e.g. "mu = 1e+08" */
    pl_stats *stats;     /* counters are added here */
    double t_end;
    long max_steps;
    size_t samples;     /* uniform output samples k t_end/samples, k = 1..samples */
    size_t next_sample; /* index of the next one to record */
    double prev_t;      /* the last recorded row */
} pl_cvode_loop;

/* Time of output sample k (INFINITY past the last). */
double pl_cvode_sample_time(const pl_cvode_loop *loop, size_t k);

/* Record a row through the hook and remember its time. */
pl_status pl_cvode_record(pl_cvode_loop *loop, double t, const double *y, pl_error *err);

/* Restart CVODE at (t, cv.y) after a mode change. */
pl_status pl_cvode_restart(pl_cvode_loop *loop, double t, pl_error *err);

/* Run the loop from the current state (t, cv.y) to t_end. */
pl_status pl_cvode_run(pl_cvode_loop *loop, double t, pl_error *err);

#endif
