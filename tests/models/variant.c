/* A user model in the ways it can go wrong, one shared object per VARIANT (tests/CMakeLists.txt):
 * the test loads each with --model and expects the refusal (exit 2) named in test_user_models.c.
 * VARIANT_OK is a valid bouncing ball (mass m over the floor y = 0, gravity g),
 * VARIANT_NO_DERIVATIVES the same ball giving values only, VARIANT_HORIZON the ball with
 * parameters valid up to t = 0.5 (valid_until), and VARIANT_SLOW_CHECK the ball whose valid_until
 * takes 0.25 s a call.  Models that break the process, for --isolate: VARIANT_CRASH dies of SIGSEGV,
 * VARIANT_ENDLESS never returns, once the ball rises from deeper than 1e-3 in the floor (a penalized
 * run at mu below (V/1e-3)^2 = 2e7, V = sqrt(2 g h0); never the limit solution, whose steps past the
 * floor fall), and VARIANT_EXIT calls exit(0) at its first contact.  In the set-up, which the
 * command's own process runs: VARIANT_CRASH_SETUP dies of SIGSEGV in initial_state, and
 * VARIANT_ENDLESS_SETUP never returns from scales.  VARIANT_ABI2 is the ball built against ABI
 * version 2's header (tests/models/abi2, which has no PL_PARAM_LAW) with a law callback that doubles
 * k: a model of an earlier version, which penlim reads through its adapter (VARIANT_OK built against
 * tests/models/abi3, version 3's header, likewise); VARIANT_ABI2_OWN_C adds a
 * parameter of its own named c, as Hunt-Crossley's damping is. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <penlim/model.h>

#ifdef VARIANT_ABI2
#define PL_PARAM_LAW 0u
#endif

#ifdef VARIANT_ABI2_OWN_C
enum { G, H0, E, XI, K, OWN_C, NPAR };
#else
enum { G, H0, E, XI, K, NPAR };
#endif

static const pl_param_spec params[NPAR] = {
    {"g", 9.81, 0.0, INFINITY, 0, "gravity"},
    {"h0", 1.0, 0.0, INFINITY, 0, "initial height"},
    {"e", 0.5, 0.0, 1.0, PL_PARAM_LAW, "restitution"},
    {"xi", NAN, 0.0, INFINITY, PL_PARAM_DERIVED | PL_PARAM_LAW, "damping ratio"},
    {"k", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN | PL_PARAM_LAW, "stiffness scale"},
#ifdef VARIANT_ABI2_OWN_C
    {"c", 0.5, 0.0, INFINITY, 0, "the model's own (unused), named like Hunt-Crossley's damping"},
#endif
};

static void initial_state(const double *p, double *q, double *v, void *user)
{
    (void)user;
    q[0] = p[H0];
    v[0] = 0.0;
#ifdef VARIANT_CRASH_SETUP
    raise(SIGSEGV);
#endif
}

static void force(const double *p, double t, const double *q, const double *v, const double *u, double *f,
                  double *f_q, double *f_v, void *user)
{
    (void)t, (void)q, (void)v, (void)u, (void)user;
    f[0] = -p[G];
#ifdef VARIANT_NAN_FORCE
    f[0] = NAN;
#endif
#ifdef VARIANT_CRASH
    if (q[0] < -1e-3 && v[0] > 0.0)
        raise(SIGSEGV); /* what a stray pointer does, without undefined behaviour */
#endif
#ifdef VARIANT_ENDLESS
    if (q[0] < -1e-3 && v[0] > 0.0)
        for (volatile unsigned long spin = 0;; spin++) /* never returns */
            ;
#endif
#ifdef VARIANT_EXIT
    if (q[0] < 0.0)
        exit(0);
#endif
    if (f_q)
        f_q[0] = 0.0;
#ifdef VARIANT_WRONG_JACOBIAN
    if (f_q)
        f_q[0] = 1.0; /* the force does not depend on q */
#endif
    if (f_v)
        f_v[0] = 0.0;
}

#ifndef VARIANT_MISSING_GAP
static void gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    (void)p, (void)i, (void)t, (void)user;
    out->g = q[0];
#ifdef VARIANT_NAN_LATER
    if (q[0] < 0.5) /* valid at the start, not on the way down */
        out->g = NAN;
#endif
#ifndef VARIANT_NO_DERIVATIVES
    out->grad[0] = 1.0;
#endif
}
#endif

static void scales(const double *p, double *velocity, double *accel, void *user)
{
    (void)user;
    *velocity = sqrt(2.0 * p[G] * p[H0]);
    *accel = p[G];
#ifdef VARIANT_ENDLESS_SETUP
    for (volatile unsigned long spin = 0;; spin++) /* never returns */
        ;
#endif
}

#ifdef VARIANT_INDEFINITE_MASS
static void mass(const double *p, const double *q, double *M, void *user)
{
    (void)p, (void)q, (void)user;
    M[0] = -1.0;
}
#endif

#ifdef VARIANT_BAD_SIZES
static void sizes(const double *p, size_t *ndof, size_t *ncon, void *user)
{
    (void)p, (void)user;
    *ndof = 0;
    *ncon = 1;
}
#endif

#ifdef VARIANT_HORIZON
/* Parameters that hold up to t = 0.5 only (the floor, say, would sink out of reach): a t-end beyond it
 * is refused. */
static double valid_until(const double *p, char *msg, size_t len, void *user)
{
    (void)p, (void)user;
    snprintf(msg, len, "the floor is out of reach after t = 0.5");
    return 0.5;
}
#endif

#ifdef VARIANT_NAN_HORIZON
static double valid_until(const double *p, char *msg, size_t len, void *user)
{
    (void)p, (void)msg, (void)len, (void)user;
    return NAN;
}
#endif

#ifdef VARIANT_SLOW_CHECK
/* Valid for ever, found slowly: 0.25 s in every check of t-end (the program's set-up, then the solve's
 * own check), a set-up of known length for the time budget. */
static double valid_until(const double *p, char *msg, size_t len, void *user)
{
    (void)p, (void)msg, (void)len, (void)user;
    struct timespec ts = {0, 250000000L};
    while (nanosleep(&ts, &ts) != 0) /* the rest, if a signal interrupted it */
        ;
    return INFINITY;
}
#endif

#ifdef VARIANT_CANDIDATES_MISS
/* Neighbour search whose candidates leave out the floor at the start (G = h0 below the margin V^2/A =
 * 2 h0): penlim refuses the model rather than trust the list. */
static size_t support_one(const double *p, size_t i, size_t *dofs, void *user)
{
    (void)p, (void)i, (void)user;
    dofs[0] = 0;
    return 1;
}

static size_t candidates(const double *p, double t, const double *q, double margin, size_t *out, void *user)
{
    (void)p, (void)t, (void)q, (void)margin, (void)out, (void)user;
    return 0;
}

static void gap_bounds(const double *p, double *lipschitz, double *rate, void *user)
{
    (void)p, (void)user;
    *lipschitz = 1.0, *rate = 0.0;
}
#endif

#if defined VARIANT_SUPPORT_ORDER || defined VARIANT_SUPPORT_RANGE || defined VARIANT_SUPPORT_LONG
/* Supports penlim refuses (ABI 4): not ascending, beyond the one coordinate, longer than PL_MAX_SUPPORT. */
static size_t support(const double *p, size_t i, size_t *dofs, void *user)
{
    (void)p, (void)i, (void)user;
#if defined VARIANT_SUPPORT_ORDER
    dofs[0] = dofs[1] = 0;
    return 2;
#elif defined VARIANT_SUPPORT_RANGE
    dofs[0] = 1;
    return 1;
#else
    for (size_t e = 0; e <= PL_MAX_SUPPORT; e++)
        dofs[e] = e;
    return PL_MAX_SUPPORT + 1;
#endif
}
#endif

#ifdef VARIANT_ABI2
static void law(const double *p, size_t i, pl_law *out, void *user)
{
    (void)i, (void)user;
    out->k = 2.0 * p[K];
    out->xi = p[XI];
}
#endif

static const pl_case variant = {
#ifdef VARIANT_BAD_ABI
    .abi_version = PL_ABI_VERSION + 1,
#else
    .abi_version = PL_ABI_VERSION,
#endif
    .name = MODEL_NAME,
    .summary = "a ball over a floor, as a user model",
    .ndof = 1,
    .ncon = 1,
    .params = params,
#ifdef VARIANT_LONG_NPARAMS
    .nparams = NPAR + 20, /* more than the table holds */
#else
    .nparams = NPAR,
#endif
    .t_end = 1.0,
    .initial_state = initial_state,
    .force = force,
#ifndef VARIANT_MISSING_GAP
    .gap = gap,
#endif
    .scales = scales,
#ifdef VARIANT_INDEFINITE_MASS
    .mass = mass,
#endif
#ifdef VARIANT_BAD_SIZES
    .sizes = sizes,
#endif
#ifdef VARIANT_NO_DERIVATIVES
    .derivatives = PL_DERIVATIVES_NONE,
#endif
#if defined VARIANT_HORIZON || defined VARIANT_SLOW_CHECK || defined VARIANT_NAN_HORIZON
    .valid_until = valid_until,
#endif
#ifdef VARIANT_ABI2
    .law = law,
#endif
#if defined VARIANT_SUPPORT_ORDER || defined VARIANT_SUPPORT_RANGE || defined VARIANT_SUPPORT_LONG
    .support = support,
#endif
#ifdef VARIANT_CANDIDATES_MISS
    .support = support_one,
    .candidates = candidates,
    .gap_bounds = gap_bounds,
#endif
};

#if defined VARIANT_DATA_SYMBOL
/* The symbol as data (a pointer to the case), not the function PL_EXPORT_MODEL defines. */
__attribute__((visibility("default"))) const pl_case *const penlim_model = &variant;
#elif !defined VARIANT_NO_SYMBOL
PL_EXPORT_MODEL(variant)
#else
const pl_case *not_the_symbol(void); /* the case, under another name than penlim_model */
const pl_case *not_the_symbol(void) { return &variant; }
#endif
