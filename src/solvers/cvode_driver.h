/* CVODE as penlim uses it: the set-up (BDF, a dense direct solver or the sparse one, KLU, error-weight
 * function, rootfinding), capture of CVODE's messages (the library never prints), failure reports and
 * counters.  Behind the CVODE stepper (stepper.h). */
#ifndef PL_CVODE_DRIVER_H
#define PL_CVODE_DRIVER_H

#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <stddef.h>
#include <sundials/sundials_context.h>

#include "core/status.h"
#include "solvers/csc.h"
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
    /* The sparse solver (KLU) only: */
    int sparse;
    SUNMatrix saved;  /* CVODE's copy of the Jacobian (cloned from J), grown with it */
    pl_csc analysed;  /* the pattern of the Jacobian KLU last analysed (values unused) */
    long analyses;    /* KLU's symbolic analyses (orderings) */
    int nomem;        /* the Jacobian's storage could not grow */
    long klu_status;  /* KLU's status at its last failure (KLU_OK: none) */
    long klu_column;  /* the column where it found the matrix singular */
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
    int sparse; /* 1: the Jacobian in a SUNSparseMatrix (CSC) and KLU; 0: dense */
    void *user;
} pl_cvode_spec;

pl_status pl_cvode_create(pl_cvode *cv, const pl_cvode_spec *spec, pl_error *err);

void pl_cvode_free(pl_cvode *cv);

/* The sparse Jacobian J (CVODE's matrix, in a Jacobian function) = a.  When a's pattern differs
 * from the one KLU last analysed, KLU analyses it again at its next factorization (its ordering
 * is kept while the pattern is).  0, or -1 if out of memory (cv->nomem set). */
int pl_cvode_set_sparse(pl_cvode *cv, SUNMatrix J, const pl_csc *a);

/* A failure report of CVode's flag (pl_cvode_failure), with KLU's reason if it failed (a singular
 * matrix, out of memory). */
pl_status pl_cvode_step_failure(pl_cvode *cv, int flag, const char *context, pl_error *err);

/* The solution at t inside the last step (CVODE's dense output), in cv->ytmp; NULL on failure. */
const double *pl_cvode_dense(pl_cvode *cv, double t);

#endif
