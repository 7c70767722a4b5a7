/* Paoli's position-level scheme (Paoli, "Time-stepping approximation of rigid-body dynamics with
 * perfect unilateral constraints. I: the inelastic impact case", ARMA 2010, eq. (5)-(7)):
 *
 *   U^0 = u0,   U^1 = Proj(u0 + h v0 + h z, M(u0)),   z = (h/2) M^-1 g(0, u0, v0)   (order 2, (5))
 *   W^n = 2 U^n - U^{n-1} + h^2 F^n,   F^n = F_v(t_n, U^n, (U^n - U^{n-1})/h)          (6)
 *   U^{n+1} = Proj(W^n, M(U^n)) = argmin over Z in K of |W^n - Z|_{M(U^n)}           (7)
 *
 * The projection onto K = {G_i >= 0} in the metric M(U^n) is the complementarity problem of its
 * optimality conditions: M (Z - W) = sum_i lambda_i grad G_i(Z), 0 <= lambda _|_ G(Z) >= 0.  For
 * affine constraints (zero Hessians) it is one LCP (Siconos Numerics), with the Delassus matrix
 * H M^-1 H^T; for curved ones a sequence of LCPs linearised at the current iterate, until the
 * iterate moves by less than PROJECTION_TOL times the case's length scale (a failure if that takes
 * more than PROJECTION_ITERATIONS).  If W^n is in K, U^{n+1} = W^n (the explicit centred scheme).
 *
 * A time-dependent K is taken at t_{n+1}: U^{n+1} is projected onto K(t_{n+1}), an extension of the
 * paper, whose constraints do not depend on time.  The discrete velocity is V^n = (U^{n+1} - U^n)/h,
 * recorded at t_{n+1}; the impulse of constraint i over the step is lambda_i / h (Lemma 1: the
 * reaction r^n = M (W^n - U^{n+1})/h lies in the normal cone at U^{n+1}).  The scheme is
 * inelastic (e = 0). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/carve.h"
#include "core/linalg.h"
#include "solvers/schemes/scheme.h"

#define PROJECTION_TOL 1e-14
#define PROJECTION_ITERATIONS 50

enum { OPT_H };

static const pl_param_spec options[] = {
    PL_SCHEME_H_OPTION,
};

/* The scheme's state and work arrays, sized from n and m once per run. */
typedef struct {
    double *u_prev;               /* n: U^{n-1} */
    double *W, *a, *HtL, *next;   /* n */
    double *minv;                 /* n x n */
    double *G, *lambda;           /* m */
    double *H;                    /* m x n */
    pl_gap *gap;                  /* the projection reads its Hessian */
} paoli_state;

static double *alloc_state(paoli_state *st, size_t n, size_t m)
{
    pl_part parts[] = {{&st->u_prev, n}, {&st->W, n},    {&st->a, n},      {&st->HtL, n},   {&st->next, n},
                       {&st->minv, n * n}, {&st->G, m}, {&st->lambda, m}, {&st->H, m * n}};
    return pl_carve(parts, PL_NPARTS(parts));
}

/* Z = Proj(W) onto K(t) in the metric M (minv = M^-1); lambda (per constraint) are the
 * multipliers of M (Z - W) = sum_i lambda_i grad G_i. */
static pl_status project(pl_scheme_ctx *ctx, double t, const double *W, const double *minv, double *Z, double *lambda,
                         pl_error *err)
{
    const pl_model *model = ctx->model;
    paoli_state *st = ctx->state;
    size_t n = ctx->n, m = ctx->m;
    double *G = st->G, *H = st->H;
    memcpy(Z, W, n * sizeof *W);
    memset(lambda, 0, m * sizeof *lambda);
    pl_scheme_gaps(ctx, t, W, G, NULL, NULL);
    int inside = 1;
    for (size_t i = 0; i < m; i++)
        inside &= G[i] >= 0.0;
    if (inside)
        return PL_OK;
    double L = model->v_scale * model->v_scale / model->a_scale;
    for (int it = 0; it < PROJECTION_ITERATIONS; it++) {
        /* Linearised at Z: G(Z) + H (W - Z) + H M^-1 H^T lambda >= 0. */
        int affine = 1;
        pl_gap *g = st->gap;
        for (size_t i = 0; i < m; i++) {
            pl_model_gap(model, i, t, Z, g);
            memcpy(H + i * n, g->grad, n * sizeof *H);
            G[i] = g->g;
            for (size_t j = 0; j < n; j++)
                G[i] += g->grad[j] * (W[j] - Z[j]);
            for (size_t j = 0; j < n * n; j++)
                affine &= g->hess[j] == 0.0;
        }
        pl_status s = pl_scheme_projection_lcp(ctx, m, H, minv, G, lambda, err);
        if (s != PL_OK)
            return s;
        double *HtL = st->HtL, *next = st->next, moved = 0.0, size = 0.0;
        memset(HtL, 0, n * sizeof *HtL);
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++)
                HtL[j] += H[i * n + j] * lambda[i];
        pl_mat_vec(n, minv, HtL, next);
        for (size_t j = 0; j < n; j++) {
            next[j] += W[j];
            moved = fmax(moved, fabs(next[j] - Z[j]));
            size = fmax(size, fabs(next[j]));
        }
        memcpy(Z, next, n * sizeof *Z);
        if (affine || moved <= PROJECTION_TOL * (L + size))
            return PL_OK;
    }
    return pl_fail(err, PL_ERR_SOLVER,
                   "step %ld from t = %.17g: the projection onto the curved constraints did not converge in %d "
                   "linearisations",
                   ctx->step, ctx->t, PROJECTION_ITERATIONS);
}

static pl_status step(pl_scheme_ctx *ctx, const pl_scheme_point *now, pl_scheme_point *next, pl_error *err)
{
    paoli_state *st = ctx->state;
    size_t n = ctx->n, m = ctx->m;
    double h = ctx->h, *W = st->W, *a = st->a, *minv = st->minv, *lambda = st->lambda;
    pl_status s = pl_scheme_mass_inverse(ctx, now->q, minv, err);
    if (s != PL_OK)
        return s;
    /* F^n at the backward-difference velocity (U^n - U^{n-1})/h, recorded as now->v (v0 at n = 0) */
    pl_scheme_accel(ctx, now->t, now->q, now->v, a, NULL, NULL);
    for (size_t j = 0; j < n; j++)
        W[j] = ctx->step == 0 ? now->q[j] + h * now->v[j] + 0.5 * h * h * a[j] /* (5), z = (h/2) M^-1 g */
                              : 2.0 * now->q[j] - st->u_prev[j] + h * h * a[j]; /* (6) */
    s = project(ctx, next->t, W, minv, next->q, lambda, err);
    if (s != PL_OK)
        return s;
    memcpy(next->q_free, W, n * sizeof *W);
    for (size_t j = 0; j < n; j++) {
        next->v[j] = (next->q[j] - now->q[j]) / h;
        next->dv_impulse[j] = (next->q[j] - W[j]) / h;
    }
    for (size_t i = 0; i < m; i++)
        next->impulse[i] = lambda[i] / h;
    memcpy(st->u_prev, now->q, n * sizeof *st->u_prev);
    return PL_OK;
}

static pl_status applies(const pl_model *model, pl_error *err)
{
    return pl_scheme_applies_inelastic("paoli", model, err);
}

static pl_status solve(const pl_model *model, const pl_solve_opts *opts, pl_solution *sol, pl_error *err)
{
    paoli_state st;
    double *block = alloc_state(&st, model->n, model->m);
    st.gap = pl_gap_new(1, model->n, 1);
    pl_status s = !block || !st.gap ? pl_fail(err, PL_ERR_NOMEM, "out of memory for Paoli's scheme (%zu dofs, %zu constraints)",
                                   model->n, model->m)
                         : pl_scheme_run(model, opts, opts->option[OPT_H], step, &st, sol, err);
    free(block);
    free(st.gap);
    return s;
}

const pl_solver_type pl_solver_paoli = {
    .name = "paoli",
    .summary = "Paoli's scheme (ARMA 2010): central differences projected onto K in the kinetic metric, inelastic",
    .family = PL_FAMILY_SCHEME,
    .capabilities = PL_SCHEME_CAPABILITIES,
    .options = options,
    .noptions = sizeof options / sizeof options[0],
    .refine = "h",
    .refine_sign = -1,
    .applies = applies,
    .default_option = pl_scheme_default_h,
    .check = pl_scheme_check,
    .solve = solve,
};
