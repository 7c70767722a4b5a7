/* What the two CVODE integrators (penalized runs and the limit solver) share: solver statistics,
 * capture of CVODE's messages (the library never prints), failure reports, the wall clock. */
#ifndef PL_CVODE_UTIL_H
#define PL_CVODE_UTIL_H

#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <stddef.h>
#include <sundials/sundials_context.h>

#include "core/status.h"

typedef struct {
    long steps, rhs_evals, jac_evals, root_evals, error_test_fails, nonlin_conv_fails;
    long restarts;            /* CVodeReInit calls: one per contact switch */
    long recovered_crossings; /* contact entries/exits between two step ends that rootfinding
                                 cannot see (G dips through 0 and back) and that were recovered */
    double wall_seconds;
} pl_stats;

/* CVODE error handler (CVodeSetErrHandlerFn): user must point to a char[PL_CVODE_MESSAGE]. */
#define PL_CVODE_MESSAGE 400
void pl_cvode_keep_message(int code, const char *module, const char *function, char *msg, void *user);

/* A failure report naming CVODE's return flag, the time reached and CVODE's last message. */
pl_status pl_cvode_failure(void *cvode, const char *what, int flag, const char *context, const char *message,
                           pl_error *err);

/* Add CVODE's counters since the last (re)initialization to stats. */
void pl_cvode_add_counters(void *cvode, pl_stats *stats);

double pl_now_seconds(void);

/* Tighten the tolerances tol[0..n) of positions and tol[n..2n) of velocities so that a gap with
 * gradient grad is controlled to tol_g and its rate to tol_gd. */
void pl_tighten_for_gap(double *tol, size_t n, const double *grad, double tol_g, double tol_gd);

/* A CVODE BDF integrator with a dense direct linear solver, an error-weight function and
 * rootfinding: the set-up both integrators share (after the SUNDIALS examples: every return
 * value checked, everything freed in reverse order). */
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

#endif
