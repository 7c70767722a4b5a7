/* What the time-stepping schemes share: the stepping loop that records every step as a row
 * (t, discrete Gamma, q, v, G, the impulse of each constraint over the step), the contact episodes
 * (runs of steps with a non-zero impulse) and the impact events, the option checks, and the small
 * linear algebra of the per-step complementarity problems.
 *
 * A scheme is a step function from the iterate at t_n to the iterate at t_{n+1}.  The run takes
 * N = ceil(t_end/h) equal steps of t_end/N (h itself when it divides t_end, else slightly less,
 * recorded as the solution's step_size), so it ends at t_end.
 *
 * Conventions of the rows: v at t_{n+1} is the velocity of the step that ends there (Moreau-Jean's
 * v_{n+1}, Paoli's (U^{n+1} - U^n)/h, Maury's u^{n+1}); impulse_i is the impulse of constraint i
 * over that step; Gamma advances by h + |sum_i w_i P_i|, the norm of the velocity change the
 * impulses produce (the discrete form of paper 004's eq. (5)).
 *
 * An impact event is a step whose impulse changes the normal velocity of a constraint by more than
 * twice what the smooth dynamics would over the step (2 h |D_i|, D_i the free gap acceleration):
 * a resting contact only cancels the smooth part, an impact reverses or stops a finite approach
 * speed.  Its time is where the gap, interpolated linearly, reaches 0: between the rows of the step
 * before if the scheme penetrated there, else between the step's start and the position it would
 * have reached without impulses (q_free), else (a rebound taken before any penetration) extrapolated
 * from the step's start with its gap rate.  Consecutive impact steps of the same
 * constraints (a landing that a scheme stops in two steps) are one impact.  A contact episode
 * starts at the start of its first step with an impulse and ends at the end of its last. */
#ifndef PL_SCHEME_H
#define PL_SCHEME_H

#include "solvers/solver.h"

/* What every scheme run by pl_scheme_run records: episodes and events, one step size, the impulses of
 * each step; no dense output. */
#define PL_SCHEME_CAPABILITIES                                                                                    \
    (PL_SOLVER_EPISODES | PL_SOLVER_EVENTS | PL_SOLVER_FIXED_STEP | PL_SOLVER_STEP_IMPULSES | PL_SOLVER_SAMPLED)

/* An iterate (its arrays owned by pl_scheme_run; zeroed before each step). */
typedef struct {
    double t;
    double *q, *v;       /* n each */
    double *impulse;     /* m: P_i over the step ending at t */
    double *dv_impulse;  /* n: the velocity change they produce */
    double *q_free;      /* n: where the step would have ended without impulses */
} pl_scheme_point;

typedef struct pl_scheme_ctx pl_scheme_ctx;

/* One step: from `now` (at t_n) to `next` (next->t is set to t_{n+1} by the caller). */
typedef pl_status (*pl_scheme_step_fn)(pl_scheme_ctx *ctx, const pl_scheme_point *now, pl_scheme_point *next,
                                       pl_error *err);

struct pl_scheme_ctx {
    const pl_model *model;
    const pl_solve_opts *opts;
    double h;
    size_t n, m;
    pl_stats *stats;
    long step;   /* index n of the step being taken */
    double t;    /* its start t_n */
    void *state; /* the scheme's own (its work arrays, sized from n and m once per run) */
    /* scratch of the helpers below (pl_scheme_run allocates it) */
    pl_work *work;
    pl_gap *gap;
    double *bht; /* n x m */
    size_t *ws_idx;                 /* m: pl_scheme_projection_lcp's working set */
    int *ws_in;                     /* m */
    double *ws_A, *ws_b, *ws_P, *ws_u; /* m x m, m, m, n */
};

/* Run a scheme: the rows, episodes, events and counters of sol. */
pl_status pl_scheme_run(const pl_model *model, const pl_solve_opts *opts, double h, pl_scheme_step_fn step, void *state,
                        pl_solution *sol, pl_error *err);

/* The gaps of every constraint at (t, q), their gradients (the rows of H, m x n) and G_t; H and
 * G_t may be NULL. */
void pl_scheme_gaps(pl_scheme_ctx *ctx, double t, const double *q, double *G, double *H, double *G_t);

/* A = H B H^T (k x k) for H (k x n, k <= m) and B (n x n). */
void pl_scheme_delassus(pl_scheme_ctx *ctx, size_t k, const double *H, const double *B, double *A);

/* Solve the LCP  P >= 0, A P + b >= 0, complementary (size m), counting it in ctx->stats; a
 * failure names the step and its start time. */
pl_status pl_scheme_lcp(pl_scheme_ctx *ctx, size_t m, const double *A, const double *b, double *P, pl_error *err);

/* The LCP  P >= 0, H B H^T P + b >= 0, complementary, of a projection onto {v : b + H v >= 0}
 * (B = M^-1; H m x n, b m), solved on a working set: first the constraints with b_i < 0, then those
 * the impulses found push below 0 (b_i + H_i B H_J^T P_J < 0), until none is; P_i = 0 outside the
 * set, where b_i + H_i B H^T P >= 0 holds exactly.  Each solve counts as an LCP.  With 114 constraints
 * (12 disks in a box) of which a few bind, the full problem's Delassus matrix and pivots were most
 * of a step. */
pl_status pl_scheme_projection_lcp(pl_scheme_ctx *ctx, size_t m, const double *H, const double *B, const double *b,
                                   double *P, pl_error *err);

/* M(q)^-1, or a failure naming the step if M(q) is not positive definite. */
pl_status pl_scheme_mass_inverse(pl_scheme_ctx *ctx, const double *q, double *minv, pl_error *err);

/* F_v(t, q, v) (and its Jacobians if not NULL), counted as an evaluation of the right-hand side. */
void pl_scheme_accel(pl_scheme_ctx *ctx, double t, const double *q, const double *v, double *a, double *a_q,
                     double *a_v);

/* The time step, every scheme's first option. */
#define PL_SCHEME_H_OPTION \
    {"h", NAN, 0.0, INFINITY, PL_PARAM_MIN_OPEN | PL_PARAM_DERIVED, "time step (default 1e-2 V/A)"}

/* The number of steps to t_end: ceil(t_end/h), forgiving round-off in t_end/h. */
long pl_scheme_steps(double t_end, double h);

/* Option helpers shared by the schemes' types: h is their first option. */
pl_status pl_scheme_applies(const pl_model *model, pl_error *err);
pl_status pl_scheme_applies_inelastic(const char *scheme, const pl_model *model, pl_error *err);
double pl_scheme_default_h(const pl_model *model, double t_end, size_t k);
pl_status pl_scheme_check(const pl_model *model, const pl_solve_opts *opts, pl_error *err);

#endif
