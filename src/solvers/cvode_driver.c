#include "solvers/cvode_driver.h"

#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

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
    if (cvode && CVodeGetCurrentTime(cvode, &t) != CV_SUCCESS)
        t = NAN;
    /* out of memory, not a failure of the method (CVLS_MEM_FAIL from the linear solver's set-up calls) */
    int memory = flag == CV_MEM_FAIL || (flag == CVLS_MEM_FAIL && strncmp(what, "CVodeSetLinearSolver", 20) == 0);
    pl_status s = pl_fail(err, memory ? PL_ERR_NOMEM : PL_ERR_SOLVER,
                          "CVODE %s failed with %s at t = %.17g (%s): %s", what, name ? name : "?", t, context,
                          message && message[0] ? message : "no message");
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

/* SUNDIALS 6 dereferences a failed clone (N_VClone and SUNMatClone set the result's context before
 * looking at it), and CVODE clones about 20 vectors in its set-up (CVodeInit: the Nordsieck array
 * and the work vectors; the Newton solver; the linear solver) and the Jacobian at its first step
 * (its saved copy).  The same blocks (a vector's or matrix's four allocations each) are made here
 * first and released just before: out of memory is then found here and reported, and the
 * allocator hands SUNDIALS the blocks this thread has just released (only another thread taking
 * them in between could still fail it). */
#define CVODE_CLONES 24

int pl_cvode_clones_fit(size_t size, SUNContext sun)
{
    N_Vector v[CVODE_CLONES] = {0};
    SUNMatrix J = SUNDenseMatrix((sunindextype)size, (sunindextype)size, sun);
    int made = 0;
    while (J && made < CVODE_CLONES && (v[made] = N_VNew_Serial((sunindextype)size, sun)) != NULL)
        made++;
    while (made-- > 0)
        N_VDestroy(v[made]);
    if (!J)
        return 0;
    SUNMatDestroy(J);
    return v[CVODE_CLONES - 1] != NULL;
}

#define CHECK(call, what) PL_CVODE_CHECK(cv->mem, "set-up", cv->message, call, what)

pl_status pl_cvode_create(pl_cvode *cv, const pl_cvode_spec *s, pl_error *err)
{
    memset(cv, 0, sizeof *cv);
    if (SUNContext_Create(NULL, &cv->sun) != 0)
        return pl_fail(err, PL_ERR_NOMEM, "SUNContext_Create failed (out of memory)");
    cv->y = N_VNew_Serial((sunindextype)s->size, cv->sun);
    cv->ytmp = N_VNew_Serial((sunindextype)s->size, cv->sun);
    if (!cv->y || !cv->ytmp)
        return pl_fail(err, PL_ERR_NOMEM, "N_VNew_Serial failed");
    memcpy(N_VGetArrayPointer(cv->y), s->y0, s->size * sizeof *s->y0);
    if (!pl_cvode_clones_fit(s->size, cv->sun))
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for CVODE (a system of size %zu)", s->size);
    cv->mem = CVodeCreate(CV_BDF, cv->sun);
    if (!cv->mem)
        return pl_fail(err, PL_ERR_NOMEM, "CVodeCreate failed (out of memory)");
    CHECK(CVodeSetErrHandlerFn(cv->mem, pl_cvode_keep_message, cv->message), "CVodeSetErrHandlerFn");
    CHECK(CVodeInit(cv->mem, s->rhs, 0.0, cv->y), "CVodeInit");
    CHECK(CVodeSetUserData(cv->mem, s->user), "CVodeSetUserData");
    CHECK(CVodeWFtolerances(cv->mem, s->weights), "CVodeWFtolerances");
    cv->J = SUNDenseMatrix((sunindextype)s->size, (sunindextype)s->size, cv->sun);
    cv->LS = cv->J ? SUNLinSol_Dense(cv->y, cv->J, cv->sun) : NULL;
    if (!cv->LS)
        return pl_fail(err, PL_ERR_NOMEM, "dense linear solver allocation failed");
    CHECK(CVodeSetLinearSolver(cv->mem, cv->LS, cv->J), "CVodeSetLinearSolver");
    if (s->jacobian)
        CHECK(CVodeSetJacFn(cv->mem, s->jacobian), "CVodeSetJacFn");
    CHECK(CVodeRootInit(cv->mem, s->nroots, s->roots), "CVodeRootInit");
    CHECK(CVodeSetNoInactiveRootWarn(cv->mem), "CVodeSetNoInactiveRootWarn");
    CHECK(CVodeSetMaxNumSteps(cv->mem, -1), "CVodeSetMaxNumSteps"); /* the loop caps the work */
    CHECK(CVodeSetStopTime(cv->mem, s->t_end), "CVodeSetStopTime");
    return PL_OK;
}

#undef CHECK

void pl_cvode_free(pl_cvode *cv)
{
    if (cv->mem)
        CVodeFree(&cv->mem);
    if (cv->LS)
        SUNLinSolFree(cv->LS);
    if (cv->J)
        SUNMatDestroy(cv->J);
    if (cv->ytmp)
        N_VDestroy(cv->ytmp);
    if (cv->y)
        N_VDestroy(cv->y);
    if (cv->sun)
        SUNContext_Free(&cv->sun);
}

const double *pl_cvode_dense(pl_cvode *cv, double t)
{
    if (CVodeGetDky(cv->mem, t, 0, cv->ytmp) != CV_SUCCESS)
        return NULL;
    return N_VGetArrayPointer(cv->ytmp);
}

