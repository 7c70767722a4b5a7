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

void pl_tighten_for_gap(double *tol, size_t n, const double *grad, double tol_g, double tol_gd)
{
    for (size_t j = 0; j < n; j++) {
        double gj = fabs(grad[j]);
        if (gj > 0.0) {
            tol[j] = fmin(tol[j], tol_g / gj);
            tol[n + j] = fmin(tol[n + j], tol_gd / gj);
        }
    }
}

#define CHECK(call, what) PL_CVODE_CHECK(cv->mem, "set-up", cv->message, call, what)

pl_status pl_cvode_create(pl_cvode *cv, const pl_cvode_spec *s, pl_error *err)
{
    memset(cv, 0, sizeof *cv);
    if (SUNContext_Create(NULL, &cv->sun) != 0)
        return pl_fail(err, PL_ERR_SOLVER, "SUNContext_Create failed");
    cv->y = N_VNew_Serial((sunindextype)s->size, cv->sun);
    cv->ytmp = N_VNew_Serial((sunindextype)s->size, cv->sun);
    if (!cv->y || !cv->ytmp)
        return pl_fail(err, PL_ERR_NOMEM, "N_VNew_Serial failed");
    memcpy(N_VGetArrayPointer(cv->y), s->y0, s->size * sizeof *s->y0);
    cv->mem = CVodeCreate(CV_BDF, cv->sun);
    if (!cv->mem)
        return pl_fail(err, PL_ERR_SOLVER, "CVodeCreate failed");
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

/* ---- the event loop ------------------------------------------------------------------------ */

#define CHECK_CV(call, what) PL_CVODE_CHECK(loop->cv.mem, loop->context, loop->cv.message, call, what)

double pl_cvode_sample_time(const pl_cvode_loop *loop, size_t k)
{
    return k <= loop->samples && loop->samples > 0 ? loop->t_end * (double)k / (double)loop->samples : INFINITY;
}

pl_status pl_cvode_record(pl_cvode_loop *loop, double t, const double *y, pl_error *err)
{
    loop->prev_t = t;
    return loop->hooks.record(loop->user, t, y, err);
}

pl_status pl_cvode_restart(pl_cvode_loop *loop, double t, pl_error *err)
{
    pl_cvode_add_counters(loop->cv.mem, loop->stats);
    loop->stats->restarts++;
    CHECK_CV(CVodeReInit(loop->cv.mem, t, loop->cv.y), "CVodeReInit");
    CHECK_CV(CVodeSetStopTime(loop->cv.mem, loop->t_end), "CVodeSetStopTime");
    return loop->hooks.after_restart ? loop->hooks.after_restart(loop->user, t, err) : PL_OK;
}

/* The output samples strictly before t (inside the last step), each after advancing to it. */
static pl_status samples_before(pl_cvode_loop *loop, double t, pl_error *err)
{
    for (double ts; (ts = pl_cvode_sample_time(loop, loop->next_sample)) < t; loop->next_sample++) {
        if (ts <= loop->prev_t)
            continue;
        if (loop->hooks.advance)
            loop->hooks.advance(loop->user, loop->prev_t, ts);
        const double *ys = pl_cvode_dense(&loop->cv, ts);
        if (!ys)
            return pl_fail(err, PL_ERR_SOLVER, "CVodeGetDky failed at t = %.17g (%s)", ts, loop->context);
        pl_status s = pl_cvode_record(loop, ts, ys, err);
        if (s != PL_OK)
            return s;
    }
    if (loop->hooks.advance)
        loop->hooks.advance(loop->user, loop->prev_t, t);
    return PL_OK;
}

pl_status pl_cvode_run(pl_cvode_loop *loop, double t, pl_error *err)
{
    double *y = N_VGetArrayPointer(loop->cv.y);
    int rootsfound[PL_MAX_CON];
    pl_status s;
    while (t < loop->t_end) {
        long steps_now = 0;
        CHECK_CV(CVodeGetNumSteps(loop->cv.mem, &steps_now), "CVodeGetNumSteps");
        if (loop->stats->steps + steps_now >= loop->max_steps)
            return pl_fail(err, PL_ERR_SOLVER, "stopped after %ld steps at t = %.17g (%s): raise --max-steps",
                           loop->max_steps, t, loop->context);
        int flag = CVode(loop->cv.mem, loop->t_end, loop->cv.y, &t, CV_ONE_STEP);
        if (flag < 0)
            return pl_cvode_failure(loop->cv.mem, "CVode", flag, loop->context, loop->cv.message, err);

        double tc = NAN;
        int missed = loop->hooks.missed(loop->user, t, y, flag, &tc, err);
        if (missed < 0)
            return err ? err->status : PL_ERR_SOLVER;
        const int *roots = NULL;
        if (missed) {
            loop->stats->recovered_crossings++;
            if ((s = samples_before(loop, tc, err)) != PL_OK)
                return s;
            CHECK_CV(CVodeGetDky(loop->cv.mem, tc, 0, loop->cv.y), "CVodeGetDky");
            t = tc;
        } else {
            if ((s = samples_before(loop, t, err)) != PL_OK)
                return s;
            if (flag != CV_ROOT_RETURN) {
                if ((s = pl_cvode_record(loop, t, y, err)) != PL_OK)
                    return s;
                if (loop->hooks.after_step && (s = loop->hooks.after_step(loop->user, t, err)) != PL_OK)
                    return s;
                continue;
            }
            CHECK_CV(CVodeGetRootInfo(loop->cv.mem, rootsfound), "CVodeGetRootInfo");
            roots = rootsfound;
        }
        /* An event at t: the state with the old modes, the change, the state with the new ones.
         * Without a change CVODE is still restarted: continuing would have it stop on the same
         * root again ("root found at and very near t"). */
        int changed = 0;
        if ((s = pl_cvode_record(loop, t, y, err)) != PL_OK ||
            (s = loop->hooks.event(loop->user, &t, y, roots, &changed, err)) != PL_OK ||
            (s = pl_cvode_restart(loop, t, err)) != PL_OK)
            return s;
        if (changed && (s = pl_cvode_record(loop, t, y, err)) != PL_OK)
            return s;
    }
    return PL_OK;
}
