/* The velocity-projection scheme of Bernicot and Lefebvre-Lepot after Maury (Bernicot &
 * Lefebvre-Lepot, existence results and convergence of a Maury-type scheme for second-order
 * inclusions with time-dependent constraints, eq. (1.11)-(1.15), with the mass metric of their
 * Remark 4.1):
 *
 *   u~      = u^n + h fbar,   fbar = F_v(t_n + h/2, q^n, u^n)   (the force averaged over the step
 *                                                                with q frozen, by the midpoint rule)
 *   u^{n+1} = argmin over v in K_h(t_{n+1}, q^n) of |v - u~|_{M(q^n)}                    (1.13)
 *   K_h(t, q) = {v : G_i(t, q) + h grad G_i(t, q) . v >= 0 for every i}                    (1.11)
 *   q^{n+1} = q^n + h u^{n+1}                                                               (1.14)
 *
 * The projection onto the polyhedron K_h is the LCP of its optimality conditions (Siconos
 * Numerics): u^{n+1} = u~ + M^-1 H^T P, 0 <= P _|_ G/h + H u~ + H M^-1 H^T P >= 0, P the impulses
 * over the step (h lambda^{n+1} of (1.15)), solved on a working set of the constraints it binds
 * (pl_scheme_projection_lcp).  Time-dependent constraints enter through G(t_{n+1}, q^n)
 * only.  For constraints G_i convex in q, q^{n+1} is exactly admissible (Prop. 2.1).  The scheme
 * is inelastic (e = 0). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/carve.h"
#include "core/linalg.h"
#include "solvers/schemes/scheme.h"

enum { OPT_H };

static const pl_param_spec options[] = {
    PL_SCHEME_H_OPTION,
};

/* The step's work arrays, sized from n and m once per run. */
typedef struct {
    double *a, *u, *HtP; /* n */
    double *minv;        /* n x n */
    double *G, *b;       /* m */
    double *H;           /* m x n */
} maury_work;

static double *alloc_work(maury_work *w, size_t n, size_t m)
{
    pl_part parts[] = {{&w->a, n}, {&w->u, n}, {&w->HtP, n}, {&w->minv, n * n},
                       {&w->G, m}, {&w->b, m}, {&w->H, m * n}};
    return pl_carve(parts, PL_NPARTS(parts));
}

static pl_status step(pl_scheme_ctx *ctx, const pl_scheme_point *now, pl_scheme_point *next, pl_error *err)
{
    maury_work *w = ctx->state;
    size_t n = ctx->n, m = ctx->m;
    double h = ctx->h, *a = w->a, *u = w->u, *minv = w->minv;
    pl_status s = pl_scheme_mass_inverse(ctx, now->q, minv, err);
    if (s != PL_OK)
        return s;
    pl_scheme_accel(ctx, now->t + 0.5 * h, now->q, now->v, a, NULL, NULL);
    for (size_t j = 0; j < n; j++)
        u[j] = now->v[j] + h * a[j];
    double *G = w->G, *H = w->H, *b = w->b;
    pl_scheme_gaps(ctx, next->t, now->q, G, H, NULL);
    int admissible = 1;
    for (size_t i = 0; i < m; i++) {
        b[i] = G[i] / h;
        for (size_t j = 0; j < n; j++)
            b[i] += H[i * n + j] * u[j];
        admissible &= b[i] >= 0.0;
    }
    memcpy(next->v, u, n * sizeof *u);
    if (!admissible) {
        double *HtP = w->HtP;
        memset(HtP, 0, n * sizeof *HtP);
        s = pl_scheme_projection_lcp(ctx, m, H, minv, b, next->impulse, err);
        if (s != PL_OK)
            return s;
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++)
                HtP[j] += H[i * n + j] * next->impulse[i];
        pl_mat_vec(n, minv, HtP, next->dv_impulse);
        for (size_t j = 0; j < n; j++)
            next->v[j] += next->dv_impulse[j];
    }
    for (size_t j = 0; j < n; j++) {
        next->q[j] = now->q[j] + h * next->v[j];
        next->q_free[j] = now->q[j] + h * u[j];
    }
    return PL_OK;
}

static pl_status applies(const pl_model *model, pl_error *err)
{
    return pl_scheme_applies_inelastic("maury", model, err);
}

static pl_status solve(const pl_model *model, const pl_solve_opts *opts, pl_solution *sol, pl_error *err)
{
    maury_work w;
    double *block = alloc_work(&w, model->n, model->m);
    pl_status s = !block ? pl_fail(err, PL_ERR_NOMEM, "out of memory for Maury's scheme (%zu dofs, %zu constraints)",
                                   model->n, model->m)
                         : pl_scheme_run(model, opts, opts->option[OPT_H], step, &w, sol, err);
    free(block);
    return s;
}

const pl_solver_type pl_solver_maury = {
    .name = "maury",
    .summary = "Bernicot-Lefebvre/Maury velocity projection onto the local convex approximation K_h, inelastic",
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
