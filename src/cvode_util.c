#include "cvode_util.h"

#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void pl_cvode_keep_message(int code, const char *module, const char *function, char *msg, void *user)
{
    (void)code;
    snprintf(user, PL_CVODE_MESSAGE, "%s/%s: %s", module, function, msg);
}

pl_status pl_cvode_failure(void *cvode, const char *what, int flag, const char *context, const char *message,
                           pl_error *err)
{
    char *name = CVodeGetReturnFlagName(flag);
    double t = NAN;
    if (cvode)
        CVodeGetCurrentTime(cvode, &t);
    pl_status s = pl_fail(err, PL_ERR_SOLVER, "CVODE %s failed with %s at t = %.17g (%s): %s", what,
                          name ? name : "?", t, context, message && message[0] ? message : "no message");
    free(name);
    return s;
}

void pl_cvode_add_counters(void *mem, pl_stats *s)
{
    long v;
    if (CVodeGetNumSteps(mem, &v) == CV_SUCCESS) s->steps += v;
    if (CVodeGetNumRhsEvals(mem, &v) == CV_SUCCESS) s->rhs_evals += v;
    if (CVodeGetNumJacEvals(mem, &v) == CV_SUCCESS) s->jac_evals += v;
    if (CVodeGetNumGEvals(mem, &v) == CV_SUCCESS) s->root_evals += v;
    if (CVodeGetNumErrTestFails(mem, &v) == CV_SUCCESS) s->error_test_fails += v;
    if (CVodeGetNumNonlinSolvConvFails(mem, &v) == CV_SUCCESS) s->nonlin_conv_fails += v;
}

double pl_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
