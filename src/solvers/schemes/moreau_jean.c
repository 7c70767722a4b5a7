/* Moreau-Jean time stepping, as Siconos's MoreauJeanOSI with TimeStepping and an LCP per step
 * (Jean, "The non-smooth contact dynamics method", 1999; Acary & Brogliato, "Numerical Methods
 * for Nonsmooth Dynamical Systems", 2008, chapter 10):
 *
 *   theta-method on velocities:  v_{n+1} = v_free + W^-1 M^-1 H^T P,
 *       W v_free = W v_n + h (theta F_v(t_{n+1}) + (1 - theta) F_v(t_n) + theta h F_q v_n),
 *       W = I - h theta F_v,v - h^2 theta^2 F_v,q  (the forces linearised at (q_n, v_n); W = I when
 *       they do not depend on the state, as in every built-in case);
 *   positions:  q_{n+1} = q_n + h (theta v_{n+1} + (1 - theta) v_n);
 *   Newton's impact law at velocity level for the constraints of the index set
 *       J = {i : G_i + gamma h Gdot_i <= 0 at (t_n, q_n, v_n)}, 0 up to the round-off of G_i
 *       (1000 ulps of its terms), which far from the origin exceeds the step's own motion:
 *       0 <= P_J  _|_  Gdot_J(t_{n+1}) + e Gdot_J(t_n) >= 0,  Gdot = H v + G_t,
 *   an LCP solved by Siconos Numerics.
 *
 * M(q), the gradients H and the forces are evaluated at q_n: one linearisation per step.  Siconos
 * iterates this linearisation to its Newton tolerance on nonlinear systems; on affine constraints
 * with a constant M (the built-in cases, and the reference runs of Siconos it reproduces) the two
 * are the same scheme.  The restitution e_i of constraint i is that of its contact law. */
#include <float.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/carve.h"
#include "core/linalg.h"
#include "solvers/schemes/scheme.h"

enum { OPT_H, OPT_THETA, OPT_GAMMA };

static const pl_param_spec options[] = {
    PL_SCHEME_H_OPTION,
    {"theta", 0.5, 0.5, 1.0, 0, "theta of the theta-method on velocities"},
    {"gamma", 0.5, 0.0, 1.0, 0, "a constraint enters the LCP when G + gamma h Gdot <= 0"},
};

/* The iteration matrix W = I - h theta F_v,v - h^2 theta^2 F_v,q, LU-factored once per step (GSL);
 * identity when the forces do not depend on the state. */
typedef struct {
    size_t n;
    int identity;
    double *lu;   /* n x n */
    size_t *perm; /* n */
} iteration_matrix;

/* The step's work arrays, sized from n and m once per run. */
typedef struct {
    iteration_matrix W;
    double *a0, *a1, *dfree, *aqv, *vfree, *col, *HtP; /* n */
    double *a_q, *a_v, *minv, *B;                      /* n x n */
    double *G, *Gt0, *G1, *Gt1, *b, *P;                /* m */
    double *H, *Hk;                                    /* m x n */
    double *A;                                         /* m x m */
    size_t *idx;                                       /* m */
    double *block;
} mj_work;

static int alloc_work(mj_work *w, size_t n, size_t m)
{
    memset(w, 0, sizeof *w);
    pl_part parts[] = {{&w->a0, n},       {&w->a1, n},    {&w->dfree, n},  {&w->aqv, n},   {&w->vfree, n},
                       {&w->col, n},      {&w->HtP, n},   {&w->W.lu, n * n}, {&w->a_q, n * n}, {&w->a_v, n * n},
                       {&w->minv, n * n}, {&w->B, n * n}, {&w->G, m},      {&w->Gt0, m},   {&w->G1, m},
                       {&w->Gt1, m},      {&w->b, m},     {&w->P, m},      {&w->H, m * n}, {&w->Hk, m * n},
                       {&w->A, m * m}};
    w->block = pl_carve(parts, PL_NPARTS(parts));
    w->W.perm = calloc(n, sizeof *w->W.perm);
    w->idx = calloc(m, sizeof *w->idx);
    if (!w->block || !w->W.perm || !w->idx)
        return -1;
    return 0;
}

static void free_work(mj_work *w)
{
    free(w->block);
    free(w->W.perm);
    free(w->idx);
}

static int factor(iteration_matrix *w, size_t n, const double *a_q, const double *a_v, double h, double theta)
{
    w->n = n;
    w->identity = 1;
    for (size_t j = 0; j < n * n; j++) {
        w->lu[j] = -h * theta * a_v[j] - h * h * theta * theta * a_q[j];
        w->identity &= w->lu[j] == 0.0;
    }
    for (size_t j = 0; j < n; j++)
        w->lu[j * n + j] += 1.0;
    if (w->identity)
        return 0;
    gsl_matrix_view A = gsl_matrix_view_array(w->lu, n, n);
    gsl_permutation p = {n, w->perm};
    int sign;
    int status = pl_lu_decomp(&A.matrix, &p, &sign);
    if (status == GSL_ENOMEM)
        return -1;
    return status != GSL_SUCCESS || !(fabs(gsl_linalg_LU_det(&A.matrix, sign)) > 0.0);
}

/* x = W^-1 b (in place). */
static void apply_inverse(const iteration_matrix *w, double *x)
{
    if (w->identity)
        return;
    gsl_matrix_const_view A = gsl_matrix_const_view_array(w->lu, w->n, w->n);
    gsl_permutation p = {w->n, (size_t *)w->perm};
    gsl_vector_view xv = gsl_vector_view_array(x, w->n);
    gsl_linalg_LU_svx(&A.matrix, &p, &xv.vector);
}

static pl_status step(pl_scheme_ctx *ctx, const pl_scheme_point *now, pl_scheme_point *next, pl_error *err)
{
    const pl_model *model = ctx->model;
    mj_work *w = ctx->state;
    size_t n = ctx->n, m = ctx->m;
    double h = ctx->h, theta = ctx->opts->option[OPT_THETA], gamma = ctx->opts->option[OPT_GAMMA];
    double t0 = now->t, t1 = next->t;

    /* Free velocity: W (v_free - v_n) = h (theta F_v(t_{n+1}) + (1 - theta) F_v(t_n) + theta h F_q v_n). */
    double *a0 = w->a0, *a1 = w->a1, *a_q = w->a_q, *a_v = w->a_v;
    pl_scheme_accel(ctx, t0, now->q, now->v, a0, NULL, NULL);
    pl_scheme_accel(ctx, t1, now->q, now->v, a1, a_q, a_v);
    iteration_matrix *W = &w->W;
    int bad = factor(W, n, a_q, a_v, h, theta);
    if (bad < 0)
        return pl_fail(err, PL_ERR_NOMEM, "step %ld from t = %.17g: out of memory factoring the iteration matrix",
                       ctx->step, t0);
    if (bad)
        return pl_fail(err, PL_ERR_SOLVER, "step %ld from t = %.17g: the iteration matrix of the theta-method is "
                       "singular", ctx->step, t0);
    double *dfree = w->dfree, *aqv = w->aqv;
    pl_mat_vec(n, a_q, now->v, aqv);
    for (size_t j = 0; j < n; j++)
        dfree[j] = h * (theta * a1[j] + (1.0 - theta) * a0[j] + theta * h * aqv[j]);
    apply_inverse(W, dfree);
    double *vfree = w->vfree;
    for (size_t j = 0; j < n; j++)
        vfree[j] = now->v[j] + dfree[j];

    /* Index set and contact data at (t_n, q_n, v_n); G_t of the velocity law at t_{n+1}. */
    double *minv = w->minv;
    pl_status s = pl_scheme_mass_inverse(ctx, now->q, minv, err);
    if (s != PL_OK)
        return s;
    double *G = w->G, *H = w->H, *Gt0 = w->Gt0, *G1 = w->G1, *Gt1 = w->Gt1;
    pl_scheme_gaps(ctx, t0, now->q, G, H, Gt0);
    pl_scheme_gaps(ctx, t1, now->q, G1, NULL, Gt1);
    size_t *idx = w->idx, k = 0;
    double *Hk = w->Hk, *b = w->b;
    for (size_t i = 0; i < m; i++) {
        double gdot = Gt0[i], terms = fabs(G[i]) + fabs(Gt0[i] * t0);
        for (size_t j = 0; j < n; j++) {
            gdot += H[i * n + j] * now->v[j];
            terms += fabs(H[i * n + j] * now->q[j]);
        }
        /* G's round-off counts as contact: a disk of radius 1e100 once let the mass fall through
         * its top, G = |q| - R being 1e84 off where the step moved it by 0.1 */
        if (G[i] + gamma * h * gdot > 1e3 * DBL_EPSILON * terms)
            continue;
        double e = pl_restitution_from_xi(model->law[i].xi), gdot_free = Gt1[i];
        for (size_t j = 0; j < n; j++)
            gdot_free += H[i * n + j] * vfree[j];
        memcpy(Hk + k * n, H + i * n, n * sizeof *H);
        b[k] = gdot_free + e * gdot;
        idx[k++] = i;
    }
    memcpy(next->v, vfree, n * sizeof *vfree);
    if (k > 0) {
        /* Gdot_J(t_{n+1}) = b + A P with A = H B H^T, B = W^-1 M^-1 (column by column). */
        double *B = w->B, *col = w->col;
        for (size_t c = 0; c < n; c++) {
            for (size_t r = 0; r < n; r++)
                col[r] = minv[r * n + c];
            apply_inverse(W, col);
            for (size_t r = 0; r < n; r++)
                B[r * n + c] = col[r];
        }
        double *A = w->A, *P = w->P, *HtP = w->HtP;
        memset(P, 0, k * sizeof *P);
        pl_scheme_delassus(ctx, k, Hk, B, A);
        if ((s = pl_scheme_lcp(ctx, k, A, b, P, err)) != PL_OK)
            return s;
        memset(HtP, 0, n * sizeof *HtP);
        for (size_t a = 0; a < k; a++) {
            next->impulse[idx[a]] = P[a];
            for (size_t j = 0; j < n; j++)
                HtP[j] += Hk[a * n + j] * P[a];
        }
        pl_mat_vec(n, B, HtP, next->dv_impulse);
        for (size_t j = 0; j < n; j++)
            next->v[j] += next->dv_impulse[j];
    }
    for (size_t j = 0; j < n; j++) {
        next->q[j] = now->q[j] + h * (theta * next->v[j] + (1.0 - theta) * now->v[j]);
        next->q_free[j] = now->q[j] + h * (theta * vfree[j] + (1.0 - theta) * now->v[j]);
    }
    return PL_OK;
}

static pl_status solve(const pl_model *model, const pl_solve_opts *opts, pl_solution *sol, pl_error *err)
{
    mj_work w;
    pl_status s = alloc_work(&w, model->n, model->m)
                      ? pl_fail(err, PL_ERR_NOMEM, "out of memory for Moreau-Jean (%zu dofs, %zu constraints)", model->n,
                                model->m)
                      : pl_scheme_run(model, opts, opts->option[OPT_H], step, &w, sol, err);
    free_work(&w);
    return s;
}

const pl_solver_type pl_solver_moreau_jean = {
    .name = "moreau_jean",
    .summary = "Moreau-Jean time stepping: theta-method on velocities, Newton's impact law, an LCP per step",
    .family = PL_FAMILY_SCHEME,
    .capabilities = PL_SCHEME_CAPABILITIES,
    .options = options,
    .noptions = sizeof options / sizeof options[0],
    .refine = "h",
    .refine_sign = -1,
    .applies = pl_scheme_applies,
    .default_option = pl_scheme_default_h,
    .check = pl_scheme_check,
    .solve = solve,
};
