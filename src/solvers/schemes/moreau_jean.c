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
 *       J = {i : G_i + gamma h Gdot_i <= 0 at (t_n, q_n, v_n)}:
 *       0 <= P_J  _|_  Gdot_J(t_{n+1}) + e Gdot_J(t_n) >= 0,  Gdot = H v + G_t,
 *   an LCP solved by Siconos Numerics.
 *
 * M(q), the gradients H and the forces are evaluated at q_n: one linearisation per step.  Siconos
 * iterates this linearisation to its Newton tolerance on nonlinear systems; on affine constraints
 * with a constant M (the built-in cases, and the reference runs of Siconos it reproduces) the two
 * are the same scheme.  The restitution e_i of constraint i is that of its contact law. */
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <string.h>

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
    double lu[PL_MAX_DOF * PL_MAX_DOF];
    size_t perm[PL_MAX_DOF];
} iteration_matrix;

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
    return gsl_linalg_LU_decomp(&A.matrix, &p, &sign) != GSL_SUCCESS || !(fabs(gsl_linalg_LU_det(&A.matrix, sign)) > 0.0);
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
    size_t n = ctx->n, m = ctx->m;
    double h = ctx->h, theta = ctx->opts->option[OPT_THETA], gamma = ctx->opts->option[OPT_GAMMA];
    double t0 = now->t, t1 = next->t;

    /* Free velocity: W (v_free - v_n) = h (theta F_v(t_{n+1}) + (1 - theta) F_v(t_n) + theta h F_q v_n). */
    double a0[PL_MAX_DOF], a1[PL_MAX_DOF], a_q[PL_MAX_DOF * PL_MAX_DOF], a_v[PL_MAX_DOF * PL_MAX_DOF];
    pl_scheme_accel(ctx, t0, now->q, now->v, a0, NULL, NULL);
    pl_scheme_accel(ctx, t1, now->q, now->v, a1, a_q, a_v);
    iteration_matrix W;
    if (factor(&W, n, a_q, a_v, h, theta))
        return pl_fail(err, PL_ERR_SOLVER, "step %ld from t = %.17g: the iteration matrix of the theta-method is "
                       "singular", ctx->step, t0);
    double dfree[PL_MAX_DOF], aqv[PL_MAX_DOF];
    pl_mat_vec(n, a_q, now->v, aqv);
    for (size_t j = 0; j < n; j++)
        dfree[j] = h * (theta * a1[j] + (1.0 - theta) * a0[j] + theta * h * aqv[j]);
    apply_inverse(&W, dfree);
    double vfree[PL_MAX_DOF];
    for (size_t j = 0; j < n; j++)
        vfree[j] = now->v[j] + dfree[j];

    /* Index set and contact data at (t_n, q_n, v_n); G_t of the velocity law at t_{n+1}. */
    double minv[PL_MAX_DOF * PL_MAX_DOF];
    pl_status s = pl_scheme_mass_inverse(ctx, now->q, minv, err);
    if (s != PL_OK)
        return s;
    double G[PL_MAX_CON], H[PL_MAX_CON * PL_MAX_DOF], Gt0[PL_MAX_CON], G1[PL_MAX_CON], Gt1[PL_MAX_CON];
    pl_scheme_gaps(model, t0, now->q, G, H, Gt0);
    pl_scheme_gaps(model, t1, now->q, G1, NULL, Gt1);
    size_t idx[PL_MAX_CON], k = 0;
    double Hk[PL_MAX_CON * PL_MAX_DOF], b[PL_MAX_CON];
    for (size_t i = 0; i < m; i++) {
        double gdot = Gt0[i];
        for (size_t j = 0; j < n; j++)
            gdot += H[i * n + j] * now->v[j];
        if (G[i] + gamma * h * gdot > 0.0)
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
        double B[PL_MAX_DOF * PL_MAX_DOF];
        for (size_t c = 0; c < n; c++) {
            double col[PL_MAX_DOF];
            for (size_t r = 0; r < n; r++)
                col[r] = minv[r * n + c];
            apply_inverse(&W, col);
            for (size_t r = 0; r < n; r++)
                B[r * n + c] = col[r];
        }
        double A[PL_MAX_CON * PL_MAX_CON], P[PL_MAX_CON] = {0};
        pl_scheme_delassus(k, n, Hk, B, A);
        if ((s = pl_scheme_lcp(ctx, k, A, b, P, err)) != PL_OK)
            return s;
        double HtP[PL_MAX_DOF] = {0};
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
    return pl_scheme_run(model, opts, opts->option[OPT_H], step, NULL, sol, err);
}

const pl_solver_type pl_solver_moreau_jean = {
    .name = "moreau_jean",
    .summary = "Moreau-Jean time stepping: theta-method on velocities, Newton's impact law, an LCP per step",
    .family = PL_FAMILY_SCHEME,
    .options = options,
    .noptions = sizeof options / sizeof options[0],
    .refine = "h",
    .refine_sign = -1,
    .applies = pl_scheme_applies,
    .default_option = pl_scheme_default_h,
    .check = pl_scheme_check,
    .solve = solve,
};
