/* The peers (peer_solvers.h). */
#include "peer_solvers.h"

#include <arkode/arkode_erkstep.h>
#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

static const char *const names[PEER_COUNT] = {"rk8pd", "rk4imp", "msbdf", "cvode", "arkode"};

const char *peer_name(peer_id id)
{
    return id < PEER_COUNT ? names[id] : "?";
}

int peer_find(const char *name)
{
    for (int k = 0; k < PEER_COUNT; k++)
        if (!strcmp(name, names[k]))
            return k;
    return -1;
}

int peer_run_open(peer_run *r, size_t con, double t, double gdot)
{
    if (r->nep == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        peer_episode *e = realloc(r->ep, cap * sizeof *e);
        if (!e)
            return -1;
        r->ep = e;
        r->cap = cap;
    }
    r->ep[r->nep++] = (peer_episode){con, t, NAN, gdot, NAN};
    return 0;
}

void peer_run_close(peer_run *r, size_t con, double t, double gdot)
{
    for (size_t k = r->nep; k-- > 0;)
        if (r->ep[k].con == con) {
            if (isnan(r->ep[k].t_out)) {
                r->ep[k].t_out = t;
                r->ep[k].gdot_out = gdot;
            }
            return;
        }
}

void peer_run_free(peer_run *r)
{
    free(r->ep);
    free(r->y_final);
    memset(r, 0, sizeof *r);
}

/* The crossing test of constraint i: > 0 when its gap disagrees with its mode (an inactive one
 * enters only while approaching faster than vin). */
static double crossed(int active, double g, double gdot, double vin)
{
    return active ? g : fmin(-g, -gdot - vin);
}

/* What every peer's loop shares: the state, the gaps, the episodes. */
typedef struct {
    peer_system *s;
    peer_run *r;
    double vin;
    double *y, *g, *gd; /* N, m, m */
} loop;

static int loop_init(loop *L, peer_system *s, peer_run *r)
{
    L->s = s, L->r = r;
    L->vin = 1e-9 * s->v_scale;
    L->y = calloc(s->N + 2 * s->m + 2, sizeof *L->y);
    if (!L->y || !(r->y_final = calloc(s->N, sizeof *r->y_final)))
        return -1;
    L->g = L->y + s->N, L->gd = L->g + s->m;
    memcpy(L->y, s->y0, s->N * sizeof *L->y);
    peer_system_reset(s);
    peer_system_gaps(s, 0.0, L->y, L->g, L->gd);
    for (size_t i = 0; i < s->m; i++)
        if (s->active[i] && peer_run_open(r, i, 0.0, L->gd[i]))
            return -1;
    return 0;
}

/* Switch constraint i at (t, state whose gaps are in L->g, L->gd). */
static int loop_switch(loop *L, size_t i, double t)
{
    L->s->active[i] = !L->s->active[i];
    if (L->s->active[i])
        return peer_run_open(L->r, i, t, L->gd[i]);
    peer_run_close(L->r, i, t, L->gd[i]);
    return 0;
}

static void loop_end(loop *L, const double *y)
{
    if (y)
        memcpy(L->r->y_final, y, L->s->N * sizeof *y);
    L->r->rhs = L->s->rhs;
    L->r->jac = L->s->jac;
    free(L->y);
}

static void fail(peer_run *r, const peer_system *s, const char *what, double t)
{
    if (s->expired)
        snprintf(r->why, sizeof r->why, "over budget at t = %.6g", t);
    else
        snprintf(r->why, sizeof r->why, "%s at t = %.17g", what, t);
}

/* ---- GSL ---------------------------------------------------------------------------------------- */

static int gsl_f(double t, const double y[], double dy[], void *params)
{
    int st = peer_system_rhs(params, t, y, dy);
    return st < 0 ? GSL_EBADFUNC : st > 0 ? GSL_FAILURE : GSL_SUCCESS;
}

static int gsl_j(double t, const double y[], double *dfdy, double dfdt[], void *params)
{
    peer_system *s = params;
    /* rk4imp and msbdf read dfdy only (their Newton matrices) */
    memset(dfdt, 0, s->N * sizeof *dfdt);
    return peer_system_jac(s, t, y, dfdy) ? GSL_EBADFUNC : GSL_SUCCESS;
}

typedef struct {
    gsl_odeiv2_driver *d;
    gsl_odeiv2_system sys;
    double hmax;
    double *ya, *yb, *ym; /* N: bracket ends, trial */
} gsl_peer;

/* One accepted step from (t, y) toward t1; a step the right-hand side refuses (non-finite values:
 * too long a step) is retried at half the length. */
static int gsl_step(gsl_peer *P, double *t, double t1, double *h, double *y)
{
    for (int k = 0; k < 60; k++) {
        *h = fmin(*h, P->hmax);
        int st = gsl_odeiv2_evolve_apply(P->d->e, P->d->c, P->d->s, &P->sys, t, t1, h, y);
        if (st != GSL_FAILURE)
            return st;
        *h *= 0.5;
    }
    return GSL_FAILURE;
}

/* y at t1 by integration from (t0, y), restarted with first step h. */
static int gsl_to(gsl_peer *P, double t0, double *y, double t1, double h)
{
    gsl_odeiv2_driver_reset(P->d);
    double t = t0;
    h = fmin(h, t1 - t0);
    while (t < t1) {
        int st = gsl_step(P, &t, t1, &h, y);
        if (st != GSL_SUCCESS)
            return st;
    }
    return GSL_SUCCESS;
}

/* The largest crossed function over the constraints of mask at (t, y). */
static double crossed_max(loop *L, double t, const double *y, const unsigned char *mask)
{
    peer_system_gaps(L->s, t, y, L->g, L->gd);
    double c = -INFINITY;
    for (size_t i = 0; i < L->s->m; i++)
        if (mask[i])
            c = fmax(c, crossed(L->s->active[i], L->g[i], L->gd[i], L->vin));
    return c;
}

/* The switch in (ta, tb] (ya at ta agrees with the modes, yb at tb not, for the constraints of
 * mask): Illinois on the crossed function, each trial a re-integration from the bracket's left end.
 * On return (tb, yb) is the first state found past the root. */
static int gsl_locate(gsl_peer *P, loop *L, double ta, double *tb_io, const unsigned char *mask, double h)
{
    size_t N = L->s->N;
    double tb = *tb_io, fa = crossed_max(L, ta, P->ya, mask), fb = crossed_max(L, tb, P->yb, mask);
    double ttol = 1e-14 * fmax(1.0, fabs(tb));
    int kept = 0;
    for (int it = 0; it < 200 && tb - ta > ttol; it++) {
        double w = tb - ta, tm = it < 100 && fa != fb ? ta + w * fa / (fa - fb) : ta + 0.5 * w;
        if (!(tm > ta + 1e-6 * w) || !(tm < tb - 1e-6 * w))
            tm = ta + 0.5 * w;
        memcpy(P->ym, P->ya, N * sizeof *P->ym);
        int st = gsl_to(P, ta, P->ym, tm, h);
        if (st != GSL_SUCCESS)
            return st;
        double fm = crossed_max(L, tm, P->ym, mask);
        if (fm > 0.0) {
            tb = tm, fb = fm;
            memcpy(P->yb, P->ym, N * sizeof *P->yb);
            if (kept == -1)
                fa *= 0.5;
            kept = -1;
        } else {
            ta = tm, fa = fm;
            memcpy(P->ya, P->ym, N * sizeof *P->ya);
            if (kept == 1)
                fb *= 0.5;
            kept = 1;
        }
    }
    *tb_io = tb;
    return GSL_SUCCESS;
}

static void run_gsl(const gsl_odeiv2_step_type *T, peer_system *s, double t_end, double rtol, double atol, peer_run *r)
{
    loop L;
    gsl_peer P = {NULL, {gsl_f, gsl_j, s->N, s}, s->hmax, NULL, NULL, NULL};
    unsigned char *mask = calloc(s->m + 1, 1);
    double *block = calloc(3 * s->N, sizeof *block);
    const double *y_end = NULL;
    if (loop_init(&L, s, r) || !mask || !block) {
        snprintf(r->why, sizeof r->why, "out of memory");
        goto done;
    }
    P.ya = block, P.yb = block + s->N, P.ym = block + 2 * s->N;
    double t = 0.0, h = 1e-3 * t_end, *y = L.y;
    for (size_t i = 0; i < s->m; i++)
        if (s->active[i])
            h = fmin(h, 0.05 / s->omega);
    P.d = gsl_odeiv2_driver_alloc_scaled_new(&P.sys, T, h, atol, rtol, 1.0, 0.0, s->scale);
    if (!P.d) {
        snprintf(r->why, sizeof r->why, "GSL driver allocation failed");
        goto done;
    }
    y_end = y;
    while (t < t_end) {
        double t0 = t;
        memcpy(P.ya, y, s->N * sizeof *y);
        int st = gsl_step(&P, &t, t_end, &h, y);
        if (st != GSL_SUCCESS) {
            fail(r, s, gsl_strerror(st), t);
            goto done;
        }
        r->steps++;
        peer_system_gaps(s, t, y, L.g, L.gd);
        int any = 0;
        for (size_t i = 0; i < s->m; i++)
            any |= mask[i] = crossed(s->active[i], L.g[i], L.gd[i], L.vin) > 0.0;
        if (!any)
            continue;
        memcpy(P.yb, y, s->N * sizeof *y);
        double tb = t;
        if ((st = gsl_locate(&P, &L, t0, &tb, mask, t - t0)) != GSL_SUCCESS) {
            fail(r, s, gsl_strerror(st), t);
            goto done;
        }
        t = tb;
        memcpy(y, P.yb, s->N * sizeof *y);
        peer_system_gaps(s, t, y, L.g, L.gd);
        int entered = 0;
        for (size_t i = 0; i < s->m; i++)
            if (crossed(s->active[i], L.g[i], L.gd[i], L.vin) > 0.0) {
                if (loop_switch(&L, i, t)) {
                    snprintf(r->why, sizeof r->why, "out of memory");
                    goto done;
                }
                entered |= s->active[i];
            }
        gsl_odeiv2_driver_reset(P.d);
        if (entered)
            h = fmin(h, 0.05 / s->omega);
    }
    r->ok = 1;
done:
    loop_end(&L, y_end);
    if (P.d)
        gsl_odeiv2_driver_free(P.d);
    free(mask);
    free(block);
}

/* ---- SUNDIALS ------------------------------------------------------------------------------------ */

static int sun_f(sunrealtype t, N_Vector y, N_Vector dy, void *user)
{
    return peer_system_rhs(user, t, N_VGetArrayPointer(y), N_VGetArrayPointer(dy));
}

static int sun_roots(sunrealtype t, N_Vector y, sunrealtype *g, void *user)
{
    peer_system *s = user;
    /* the gap rates are not wanted: the last m entries of the system's scratch take them */
    peer_system_gaps(s, t, N_VGetArrayPointer(y), g, s->work + 3 * s->N);
    return 0;
}

static int cv_jac(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *user, N_Vector t1, N_Vector t2,
                  N_Vector t3)
{
    (void)fy, (void)t1, (void)t2, (void)t3;
    peer_system *s = user;
    size_t N = s->N;
    /* row-major into the first N x N of the dense matrix's column-major data, then transposed */
    double *Jr = malloc(N * N * sizeof *Jr);
    if (!Jr || peer_system_jac(s, t, N_VGetArrayPointer(y), Jr)) {
        free(Jr);
        return -1;
    }
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++)
            SM_ELEMENT_D(J, i, j) = Jr[i * N + j];
    free(Jr);
    return 0;
}

/* The messages of CVODE and ARKODE are kept for the failure report instead of printed. */
static void sun_quiet(int code, const char *module, const char *function, char *msg, void *user)
{
    (void)code;
    snprintf(user, 200, "%s/%s: %s", module, function, msg);
}

/* At a root (found[i] from the integrator): switch where the direction agrees with the gap rate
 * and the mode (a sign change against the rate is round-off at a tangency).  Returns the number
 * switched and sets *entered; -1 out of memory. */
static int sun_switch(loop *L, const int *found, double t, const double *y, int *entered)
{
    peer_system *s = L->s;
    peer_system_gaps(s, t, y, L->g, L->gd);
    int changed = 0;
    *entered = 0;
    for (size_t i = 0; i < s->m; i++) {
        int entry = found[i] < 0 && !s->active[i] && L->gd[i] < -L->vin;
        int exit = found[i] > 0 && s->active[i] && L->gd[i] > 0.0;
        if (!entry && !exit)
            continue;
        if (loop_switch(L, i, t))
            return -1;
        changed++;
        *entered |= entry;
    }
    return changed;
}

/* The direction of the crossing that matters for each constraint's mode: rising for an active
 * contact (its exit), falling for an inactive one (its entry). */
static int *root_directions(const peer_system *s, int *dir)
{
    for (size_t i = 0; i < s->m; i++)
        dir[i] = s->active[i] ? 1 : -1;
    return dir;
}

#define SUN_TRY(call, what)                                                                                     \
    do {                                                                                                        \
        int flag_ = (call);                                                                                     \
        if (flag_ < 0) {                                                                                        \
            char m_[400];                                                                                       \
            snprintf(m_, sizeof m_, "%s failed (%d): %s", what, flag_, message);                                \
            fail(r, s, m_, t);                                                                                  \
            goto done;                                                                                          \
        }                                                                                                       \
    } while (0)

static void run_cvode(peer_system *s, double t_end, double rtol, double atol, peer_run *r)
{
    loop L;
    char message[200] = "";
    double t = 0.0;
    SUNContext ctx = NULL;
    N_Vector yv = NULL, abstol = NULL;
    SUNMatrix J = NULL;
    SUNLinearSolver LS = NULL;
    void *mem = NULL;
    int *found = calloc(2 * s->m + 1, sizeof *found); /* the roots found, then the directions */
    const double *y_end = NULL;
    if (loop_init(&L, s, r) || !found) {
        snprintf(r->why, sizeof r->why, "out of memory");
        goto done;
    }
    SUN_TRY(SUNContext_Create(NULL, &ctx), "SUNContext_Create");
    yv = N_VMake_Serial((sunindextype)s->N, L.y, ctx);
    abstol = N_VNew_Serial((sunindextype)s->N, ctx);
    J = SUNDenseMatrix((sunindextype)s->N, (sunindextype)s->N, ctx);
    LS = yv && J ? SUNLinSol_Dense(yv, J, ctx) : NULL;
    mem = CVodeCreate(CV_BDF, ctx);
    if (!yv || !abstol || !J || !LS || !mem) {
        snprintf(r->why, sizeof r->why, "CVODE allocation failed");
        goto done;
    }
    y_end = L.y;
    for (size_t j = 0; j < s->N; j++)
        N_VGetArrayPointer(abstol)[j] = atol * s->scale[j];
    SUN_TRY(CVodeSetErrHandlerFn(mem, sun_quiet, message), "CVodeSetErrHandlerFn");
    SUN_TRY(CVodeInit(mem, sun_f, 0.0, yv), "CVodeInit");
    SUN_TRY(CVodeSetUserData(mem, s), "CVodeSetUserData");
    SUN_TRY(CVodeSVtolerances(mem, rtol, abstol), "CVodeSVtolerances");
    SUN_TRY(CVodeSetLinearSolver(mem, LS, J), "CVodeSetLinearSolver");
    if (s->jf)
        SUN_TRY(CVodeSetJacFn(mem, cv_jac), "CVodeSetJacFn");
    SUN_TRY(CVodeRootInit(mem, (int)s->m, sun_roots), "CVodeRootInit");
    SUN_TRY(CVodeSetNoInactiveRootWarn(mem), "CVodeSetNoInactiveRootWarn");
    SUN_TRY(CVodeSetRootDirection(mem, root_directions(s, found + s->m)), "CVodeSetRootDirection");
    SUN_TRY(CVodeSetMaxNumSteps(mem, 100000000L), "CVodeSetMaxNumSteps");
    SUN_TRY(CVodeSetStopTime(mem, t_end), "CVodeSetStopTime");
    if (isfinite(s->hmax))
        SUN_TRY(CVodeSetMaxStep(mem, s->hmax), "CVodeSetMaxStep");
    while (t < t_end) {
        int flag = CVode(mem, t_end, yv, &t, CV_NORMAL);
        SUN_TRY(flag, "CVode");
        if (flag != CV_ROOT_RETURN)
            continue;
        SUN_TRY(CVodeGetRootInfo(mem, found), "CVodeGetRootInfo");
        int entered, changed = sun_switch(&L, found, t, L.y, &entered);
        if (changed < 0) {
            snprintf(r->why, sizeof r->why, "out of memory");
            goto done;
        }
        /* a restart at every root, a declined one too, with the directions of the new modes */
        long nst = 0;
        SUN_TRY(CVodeGetNumSteps(mem, &nst), "CVodeGetNumSteps");
        r->steps += nst;
        SUN_TRY(CVodeReInit(mem, t, yv), "CVodeReInit");
        SUN_TRY(CVodeSetRootDirection(mem, root_directions(s, found + s->m)), "CVodeSetRootDirection");
    }
    r->ok = 1;
done:
    if (mem) {
        long nst = 0;
        if (CVodeGetNumSteps(mem, &nst) == CV_SUCCESS)
            r->steps += nst;
    }
    loop_end(&L, y_end);
    if (mem)
        CVodeFree(&mem);
    if (LS)
        SUNLinSolFree(LS);
    if (J)
        SUNMatDestroy(J);
    if (yv)
        N_VDestroy(yv);
    if (abstol)
        N_VDestroy(abstol);
    if (ctx)
        SUNContext_Free(&ctx);
    free(found);
}

static void run_arkode(peer_system *s, double t_end, double rtol, double atol, peer_run *r)
{
    loop L;
    char message[200] = "";
    double t = 0.0;
    SUNContext ctx = NULL;
    N_Vector yv = NULL, abstol = NULL;
    void *mem = NULL;
    int *found = calloc(2 * s->m + 1, sizeof *found); /* the roots found, then the directions */
    const double *y_end = NULL;
    if (loop_init(&L, s, r) || !found) {
        snprintf(r->why, sizeof r->why, "out of memory");
        goto done;
    }
    SUN_TRY(SUNContext_Create(NULL, &ctx), "SUNContext_Create");
    yv = N_VMake_Serial((sunindextype)s->N, L.y, ctx);
    abstol = N_VNew_Serial((sunindextype)s->N, ctx);
    mem = yv ? ERKStepCreate(sun_f, 0.0, yv, ctx) : NULL;
    if (!yv || !abstol || !mem) {
        snprintf(r->why, sizeof r->why, "ARKODE allocation failed");
        goto done;
    }
    y_end = L.y;
    for (size_t j = 0; j < s->N; j++)
        N_VGetArrayPointer(abstol)[j] = atol * s->scale[j];
    SUN_TRY(ERKStepSetErrHandlerFn(mem, sun_quiet, message), "ERKStepSetErrHandlerFn");
    SUN_TRY(ERKStepSetTableNum(mem, ARKODE_FEHLBERG_13_7_8), "ERKStepSetTableNum");
    SUN_TRY(ERKStepSVtolerances(mem, rtol, abstol), "ERKStepSVtolerances");
    SUN_TRY(ERKStepSetUserData(mem, s), "ERKStepSetUserData");
    SUN_TRY(ERKStepSetMaxNumSteps(mem, 100000000L), "ERKStepSetMaxNumSteps");
    SUN_TRY(ERKStepSetStopTime(mem, t_end), "ERKStepSetStopTime");
    if (isfinite(s->hmax))
        SUN_TRY(ERKStepSetMaxStep(mem, s->hmax), "ERKStepSetMaxStep");
    SUN_TRY(ERKStepRootInit(mem, (int)s->m, sun_roots), "ERKStepRootInit");
    SUN_TRY(ERKStepSetNoInactiveRootWarn(mem), "ERKStepSetNoInactiveRootWarn");
    SUN_TRY(ERKStepSetRootDirection(mem, root_directions(s, found + s->m)), "ERKStepSetRootDirection");
    for (size_t i = 0; i < s->m; i++)
        if (s->active[i])
            SUN_TRY(ERKStepSetInitStep(mem, 0.05 / s->omega), "ERKStepSetInitStep");
    while (t < t_end) {
        int flag = ERKStepEvolve(mem, t_end, yv, &t, ARK_NORMAL);
        SUN_TRY(flag, "ERKStepEvolve");
        if (flag != ARK_ROOT_RETURN)
            continue;
        SUN_TRY(ERKStepGetRootInfo(mem, found), "ERKStepGetRootInfo");
        int entered, changed = sun_switch(&L, found, t, L.y, &entered);
        if (changed < 0) {
            snprintf(r->why, sizeof r->why, "out of memory");
            goto done;
        }
        /* a restart at every root, as CVODE's */
        double hlast = 0.0;
        SUN_TRY(ERKStepGetLastStep(mem, &hlast), "ERKStepGetLastStep");
        SUN_TRY(ERKStepSetInitStep(mem, entered ? fmin(hlast, 0.05 / s->omega) : hlast), "ERKStepSetInitStep");
        SUN_TRY(ERKStepReset(mem, t, yv), "ERKStepReset");
        SUN_TRY(ERKStepSetRootDirection(mem, root_directions(s, found + s->m)), "ERKStepSetRootDirection");
    }
    r->ok = 1;
done:
    if (mem) {
        long nst = 0;
        if (ERKStepGetNumSteps(mem, &nst) == ARK_SUCCESS)
            r->steps = nst; /* ERKStepReset keeps the counters */
    }
    loop_end(&L, y_end);
    if (mem)
        ERKStepFree(&mem);
    if (yv)
        N_VDestroy(yv);
    if (abstol)
        N_VDestroy(abstol);
    if (ctx)
        SUNContext_Free(&ctx);
    free(found);
}

void peer_solve(peer_id id, peer_system *s, double t_end, double rtol, double atol, double deadline, peer_run *r)
{
    memset(r, 0, sizeof *r);
    s->deadline = deadline;
    double t0 = peer_now();
    switch (id) {
    case PEER_RK8PD: run_gsl(gsl_odeiv2_step_rk8pd, s, t_end, rtol, atol, r); break;
    case PEER_RK4IMP: run_gsl(gsl_odeiv2_step_rk4imp, s, t_end, rtol, atol, r); break;
    case PEER_MSBDF: run_gsl(gsl_odeiv2_step_msbdf, s, t_end, rtol, atol, r); break;
    case PEER_CVODE: run_cvode(s, t_end, rtol, atol, r); break;
    case PEER_ARKODE: run_arkode(s, t_end, rtol, atol, r); break;
    default: snprintf(r->why, sizeof r->why, "unknown peer"); break;
    }
    r->wall = peer_now() - t0;
    s->deadline = 0.0;
}
