/* CVODE as penlim uses it: the set-up (BDF, dense direct solver, error-weight function,
 * rootfinding), capture of CVODE's messages (the library never prints), failure reports and
 * counters.  Behind the CVODE stepper (stepper.h). */
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

/* What the vectors and the Jacobian CVODE clones are taken from (cvode_driver.c). */
typedef struct pl_cvode_reserve pl_cvode_reserve;

/* A CVODE BDF integrator (after the SUNDIALS examples: every return value checked, everything freed
 * in reverse order). */
typedef struct {
    SUNContext sun;
    pl_cvode_reserve *reserve;
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

#endif
