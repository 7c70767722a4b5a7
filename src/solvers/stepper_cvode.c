/* The CVODE stepper: BDF with Newton iterations and a direct linear solver, dense or sparse (KLU) by
 * the system's size (after the SUNDIALS examples: every return value checked, everything freed in
 * reverse order), the solver's error weights (CVodeWFtolerances), rootfinding, and CVODE's own
 * dense output. */
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "solvers/cvode_driver.h"
#include "solvers/stepper.h"

typedef struct {
    pl_stepper base;
    pl_stepper_spec spec;
    pl_cvode cv;
    double *J;       /* row-major Jacobian from the solver (if it gives one) */
    pl_csc csc;      /* the sparse path's Jacobian */
    int fresh;       /* the Jacobian is evaluated at every step (fresh_jacobian) */
    pl_stats banked; /* counters of internal re-initializations since the last restart */
    /* With a list of live roots (spec.live_roots; compact): CVODE's root functions are the live ones
     * alone, renumbered (live[e] is CVODE's function e; nlive of them, as of live_version), so that
     * its root finding costs each step the live functions, not nroots; g holds the spec's values
     * (nroots), rootsfound CVODE's. */
    int compact, *live, *rootsfound;
    size_t nlive;
    unsigned long live_version;
    double *g;
} cvode_stepper;

static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user)
{
    const cvode_stepper *c = user;
    return c->spec.rhs(t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot), c->spec.user);
}

static int weights(N_Vector y, N_Vector w, void *user)
{
    const cvode_stepper *c = user;
    double t = 0.0;
    if (CVodeGetCurrentTime(c->cv.mem, &t) != CV_SUCCESS)
        return -1;
    return c->spec.weights(t, N_VGetArrayPointer(y), N_VGetArrayPointer(w), c->spec.user);
}

static int jacobian(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *user, N_Vector t1, N_Vector t2,
                    N_Vector t3)
{
    (void)fy, (void)t1, (void)t2, (void)t3;
    cvode_stepper *c = user;
    size_t N = c->spec.size;
    if (!c->spec.jacobian) { /* the solver's sparse Jacobian, scattered */
        int flag = c->spec.jacobian_csc(t, N_VGetArrayPointer(y), &c->csc, c->spec.user);
        if (flag == PL_CSC_NOMEM)
            c->cv.nomem = 1;
        if (flag)
            return flag == PL_CSC_NOMEM ? -1 : flag;
        for (size_t col = 0; col < N; col++)
            for (int64_t p = c->csc.colptr[col]; p < c->csc.colptr[col + 1]; p++)
                SM_ELEMENT_D(J, c->csc.rowind[p], col) = c->csc.values[p];
        return 0;
    }
    int flag = c->spec.jacobian(t, N_VGetArrayPointer(y), c->J, c->spec.user);
    if (flag)
        return flag;
    for (size_t r = 0; r < N; r++)
        for (size_t col = 0; col < N; col++)
            SM_ELEMENT_D(J, r, col) = c->J[r * N + col];
    return 0;
}

/* The sparse path: the solver's Jacobian in CSC, given as such or converted at this one place. */
static int jacobian_sparse(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *user, N_Vector t1,
                           N_Vector t2, N_Vector t3)
{
    (void)fy, (void)t1, (void)t2, (void)t3;
    cvode_stepper *c = user;
    int flag = c->spec.jacobian_csc ? c->spec.jacobian_csc(t, N_VGetArrayPointer(y), &c->csc, c->spec.user)
                                    : c->spec.jacobian(t, N_VGetArrayPointer(y), c->J, c->spec.user);
    if (flag == PL_CSC_NOMEM)
        c->cv.nomem = 1;
    if (flag)
        return flag == PL_CSC_NOMEM ? -1 : flag;
    if (!c->spec.jacobian_csc && pl_csc_from_dense(&c->csc, c->J) != 0) {
        c->cv.nomem = 1;
        return -1;
    }
    return pl_cvode_set_sparse(&c->cv, J, &c->csc);
}

static int roots(sunrealtype t, N_Vector y, sunrealtype *g, void *user)
{
    const cvode_stepper *c = user;
    if (!c->compact)
        return c->spec.roots(t, N_VGetArrayPointer(y), g, c->spec.user);
    int flag = c->spec.roots(t, N_VGetArrayPointer(y), c->g, c->spec.user);
    for (size_t e = 0; e < c->nlive; e++)
        g[e] = c->g[c->live[e]];
    return flag;
}

/* CVODE's root functions from the spec's live ones (see cvode_stepper), at a (re)initialization. */
static pl_status sync_roots(cvode_stepper *c, pl_error *err);

#define CHECK(call, what) PL_CVODE_CHECK(c->cv.mem, c->spec.context, c->cv.message, call, what)

/* The solver's order limit for the next step (max_order of the spec).  CVODE takes a lower
 * maximum order only from the next order change on (CVodeSetMaxOrd leaves the current order and
 * its coefficients as they are, and a current order above the maximum corrupts them): when the
 * limit falls below the current order, CVODE is re-initialized at the present state with the
 * present step (it restarts at order 1), its counters banked first. */
static pl_status limit_order(pl_stepper *s, pl_error *err)
{
    cvode_stepper *c = s->impl;
    void *mem = c->cv.mem;
    double h = 0.0;
    int q = 0;
    long nst = 0;
    if (CVodeGetCurrentStep(mem, &h) != CV_SUCCESS || CVodeGetCurrentOrder(mem, &q) != CV_SUCCESS ||
        CVodeGetNumSteps(mem, &nst) != CV_SUCCESS)
        return pl_fail(err, PL_ERR_SOLVER, "CVODE's step and order unavailable at t = %.17g (%s)", s->t,
                       c->spec.context);
    int qmax = c->spec.max_order(h, c->spec.user);
    qmax = qmax < 1 ? 1 : qmax > 5 ? 5 : qmax;
    if (nst > 0 && q > qmax) {
        pl_cvode_add_counters(mem, &c->banked);
        CHECK(CVodeReInit(mem, s->t, c->cv.y), "CVodeReInit");
        CHECK(CVodeSetStopTime(mem, c->spec.t_end), "CVodeSetStopTime");
        CHECK(CVodeSetInitStep(mem, h), "CVodeSetInitStep");
    }
    CHECK(CVodeSetMaxOrd(mem, qmax), "CVodeSetMaxOrd");
    return PL_OK;
}

/* The bound on the step the solver set (base.max_step), as CVODE's stop time: the step ends there at
 * the latest (CVodeSetMaxStep would bound only the step after it, its size being chosen already).
 * CVODE drops a stop time once it has returned there: set before every step. */
static pl_status limit_step(pl_stepper *s, pl_error *err)
{
    cvode_stepper *c = s->impl;
    double stop = s->max_step > 0.0 ? fmin(c->spec.t_end, s->t + s->max_step) : c->spec.t_end;
    CHECK(CVodeSetStopTime(c->cv.mem, stop), "CVodeSetStopTime");
    return PL_OK;
}

/* A Jacobian evaluated afresh for the next step where the spec asks (fresh_jacobian): CVODE's setup
 * of the linear solver and its evaluation of the Jacobian at every step (frequencies 1), else
 * CVODE's own reuse (frequencies 0: its defaults, a setup every 20 steps and a Jacobian every 51 or
 * when Newton's iteration fails).  Set only when the answer changes. */
static pl_status refresh_jacobian(pl_stepper *s, pl_error *err)
{
    cvode_stepper *c = s->impl;
    double h = 0.0;
    if (CVodeGetCurrentStep(c->cv.mem, &h) != CV_SUCCESS)
        return pl_fail(err, PL_ERR_SOLVER, "CVODE's step unavailable at t = %.17g (%s)", s->t, c->spec.context);
    int fresh = c->spec.fresh_jacobian(s->t, s->y, h, c->spec.user) != 0;
    if (fresh != c->fresh) {
        CHECK(CVodeSetLSetupFrequency(c->cv.mem, fresh), "CVodeSetLSetupFrequency");
        CHECK(CVodeSetJacEvalFrequency(c->cv.mem, fresh), "CVodeSetJacEvalFrequency");
        c->fresh = fresh;
    }
    return PL_OK;
}

/* The live root functions changed since CVODE's were set (a neighbour list rebuilt at a step's end):
 * CVODE is re-initialized at the present state with the present step, its counters banked first
 * (CVODE's root finding compares each function with its value at the last step, which a new
 * function does not have). */
static pl_status follow_live_roots(pl_stepper *s, pl_error *err)
{
    cvode_stepper *c = s->impl;
    const int *list = NULL;
    unsigned long version = c->live_version;
    c->spec.live_roots(c->spec.user, &list, &version);
    if (version == c->live_version)
        return PL_OK;
    void *mem = c->cv.mem;
    double h = 0.0;
    long nst = 0;
    if (CVodeGetCurrentStep(mem, &h) != CV_SUCCESS || CVodeGetNumSteps(mem, &nst) != CV_SUCCESS)
        return pl_fail(err, PL_ERR_SOLVER, "CVODE's step unavailable at t = %.17g (%s)", s->t, c->spec.context);
    if (nst > 0) {
        pl_cvode_add_counters(mem, &c->banked);
        CHECK(CVodeReInit(mem, s->t, c->cv.y), "CVodeReInit");
        CHECK(CVodeSetStopTime(mem, c->spec.t_end), "CVodeSetStopTime");
        CHECK(CVodeSetInitStep(mem, h), "CVodeSetInitStep");
    }
    return sync_roots(c, err);
}

static int step(pl_stepper *s, double t_stop, pl_error *err)
{
    cvode_stepper *c = s->impl;
    if ((c->compact && follow_live_roots(s, err) != PL_OK) ||
        (c->spec.max_order && limit_order(s, err) != PL_OK) || limit_step(s, err) != PL_OK ||
        (c->spec.fresh_jacobian && refresh_jacobian(s, err) != PL_OK))
        return -1;
    int flag = CVode(c->cv.mem, t_stop, c->cv.y, &s->t, CV_ONE_STEP);
    if (flag < 0) {
        pl_cvode_step_failure(&c->cv, flag, c->spec.context, err);
        return -1;
    }
    return flag == CV_ROOT_RETURN;
}

static const double *dense(pl_stepper *s, double t)
{
    cvode_stepper *c = s->impl;
    return pl_cvode_dense(&c->cv, t);
}

/* See stepper.h.  BDF stops at every root: nothing to judge again. */
static int cut(pl_stepper *s, double t, pl_error *err)
{
    cvode_stepper *c = s->impl;
    if (t < s->t) {
        const double *y = pl_cvode_dense(&c->cv, t);
        if (!y) {
            pl_fail(err, PL_ERR_SOLVER, "dense output failed at t = %.17g (%s)", t, c->spec.context);
            return -1;
        }
        memmove(s->y, y, s->size * sizeof *y);
        s->t = t;
    }
    return 0;
}

static size_t root_info(pl_stepper *s, int *found, int *which)
{
    cvode_stepper *c = s->impl;
    size_t n = c->compact ? c->nlive : (size_t)c->spec.nroots, count = 0;
    if (n == 0 || CVodeGetRootInfo(c->cv.mem, c->rootsfound) != CV_SUCCESS)
        return 0;
    for (size_t e = 0; e < n; e++)
        if (c->rootsfound[e]) {
            int k = c->compact ? c->live[e] : (int)e;
            found[k] = c->rootsfound[e];
            which[count++] = k;
        }
    return count;
}

static pl_status sync_roots(cvode_stepper *c, pl_error *err)
{
    if (!c->spec.live_roots)
        return PL_OK;
    const int *list = NULL;
    size_t n = c->spec.live_roots(c->spec.user, &list, &c->live_version);
    c->compact = list != NULL; /* NULL: every function, CVODE's as created */
    if (!list)
        return PL_OK;
    memcpy(c->live, list, n * sizeof *list);
    c->nlive = n;
    /* anew (0 first): CVODE keeps a function's state (inactive at a zero) by its number */
    CHECK(CVodeRootInit(c->cv.mem, 0, NULL), "CVodeRootInit");
    if (n > 0)
        CHECK(CVodeRootInit(c->cv.mem, (int)n, roots), "CVodeRootInit");
    return PL_OK;
}

static pl_status restart(pl_stepper *s, double t, double h0, pl_error *err)
{
    cvode_stepper *c = s->impl;
    s->t = t;
    CHECK(CVodeReInit(c->cv.mem, t, c->cv.y), "CVodeReInit");
    CHECK(CVodeSetStopTime(c->cv.mem, c->spec.t_end), "CVodeSetStopTime");
    CHECK(CVodeSetInitStep(c->cv.mem, h0 > 0.0 ? h0 : 0.0), "CVodeSetInitStep");
    return sync_roots(c, err);
}

static long steps(pl_stepper *s)
{
    cvode_stepper *c = s->impl;
    long n = 0;
    return (CVodeGetNumSteps(c->cv.mem, &n) == CV_SUCCESS ? n : 0) + c->banked.steps;
}

static void add_counters(pl_stepper *s, pl_stats *stats)
{
    cvode_stepper *c = s->impl;
    pl_cvode_add_counters(c->cv.mem, stats);
    stats->steps += c->banked.steps;
    stats->rhs_evals += c->banked.rhs_evals;
    stats->jac_evals += c->banked.jac_evals;
    stats->lin_setups += c->banked.lin_setups;
    stats->sparse_analyses += c->cv.analyses;
    c->cv.analyses = 0;
    stats->root_evals += c->banked.root_evals;
    stats->error_test_fails += c->banked.error_test_fails;
    stats->nonlin_conv_fails += c->banked.nonlin_conv_fails;
    memset(&c->banked, 0, sizeof c->banked);
}

static void destroy(pl_stepper *s)
{
    cvode_stepper *c = s->impl;
    pl_cvode_free(&c->cv);
    free(c->J);
    free(c->live);
    free(c->rootsfound);
    free(c->g);
    pl_csc_free(&c->csc);
    free(c);
}

pl_status pl_stepper_cvode_new(pl_stepper **out, const pl_stepper_spec *spec, pl_error *err)
{
    *out = NULL;
    cvode_stepper *c = calloc(1, sizeof *c);
    if (!c)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for a CVODE stepper");
    c->spec = *spec;
    c->base = (pl_stepper){.name = "CVODE BDF", .size = spec->size, .nroots = (size_t)spec->nroots, .step = step,
                           .cut = cut, .dense = dense,
                           .dense_cheap = dense, .root_info = root_info,
                           .restart = restart, .steps = steps, .add_counters = add_counters, .free = destroy,
                           .impl = c};
    *out = &c->base;
    if (spec->falling_only)
        return pl_fail(err, PL_ERR_SOLVER, "the BDF stepper finds roots in both directions (falling_only unsupported)");
    size_t N = spec->size, from = spec->sparse_from ? spec->sparse_from : PL_SPARSE_FROM;
    int analytic = spec->jacobian || spec->jacobian_csc, sparse = analytic && N >= from;
    int dense_array = spec->jacobian && !(sparse && spec->jacobian_csc);
    if (dense_array && N > SIZE_MAX / sizeof *c->J / N)
        return pl_fail(err, PL_ERR_NOMEM, "a Jacobian of size %zu does not fit in memory", N);
    if (dense_array && !(c->J = malloc(N * N * sizeof *c->J)))
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for a Jacobian of size %zu", N);
    if ((sparse || spec->jacobian_csc) && pl_csc_init(&c->csc, N, N) != 0)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for a sparse Jacobian of size %zu", N);
    size_t nr = spec->nroots > 0 ? (size_t)spec->nroots : 1;
    c->rootsfound = malloc(nr * sizeof *c->rootsfound);
    if (spec->live_roots) {
        c->live = malloc(nr * sizeof *c->live);
        c->g = malloc(nr * sizeof *c->g);
    }
    if (!c->rootsfound || (spec->live_roots && (!c->live || !c->g)))
        return pl_fail(err, PL_ERR_NOMEM, "out of memory for %d root functions", spec->nroots);
    pl_cvode_spec cs = {.size = N, .y0 = spec->y0, .t_end = spec->t_end, .rhs = rhs, .weights = weights,
                        .jacobian = sparse ? jacobian_sparse : analytic ? jacobian : NULL, .roots = roots,
                        .nroots = spec->nroots, .sparse = sparse, .user = c};
    pl_status st = pl_cvode_create(&c->cv, &cs, err);
    c->base.y = c->cv.y ? N_VGetArrayPointer(c->cv.y) : NULL;
    return st == PL_OK ? sync_roots(c, err) : st;
}

void pl_stepper_free(pl_stepper *s)
{
    if (s)
        s->free(s);
}
