/* What the two CVODE integrators (penalized runs and the limit solver) share: solver statistics,
 * capture of CVODE's messages (the library never prints), failure reports, the wall clock. */
#ifndef PL_CVODE_UTIL_H
#define PL_CVODE_UTIL_H

#include "status.h"

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

#endif
