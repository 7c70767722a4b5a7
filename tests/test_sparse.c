/* BDF's sparse linear algebra (stepper.h, csc.h): the conversion of a dense Jacobian to compressed
 * sparse columns; the CVODE stepper with KLU on a linear system whose Jacobian changes its pattern
 * at t = 0.3, by an entry more or by an entry moving to another row of its column (solution in
 * closed form; KLU orders each pattern once), the Jacobian given dense or as compressed columns,
 * on both paths; a singular Newton matrix,
 * reported as KLU's; and penalized runs that take the KLU path against the dense one. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "solve.h"
#include "solvers/csc.h"
#include "solvers/stepper.h"

/* The conversion keeps the nonzeros in column order with increasing rows, drops exact zeros (-0
 * too) off the diagonal, keeps the diagonal whatever it holds, and tells patterns apart. */
static void test_conversion(void)
{
    /* row-major; zeros at (0,1), (1,0), (1,1) (diagonal: kept), (2,0), (2,1) */
    const double a[9] = {4.0, 0.0, -1.0,  /**/ 0.0, 0.0, 2.5, /**/ -0.0, 0.0, 7.0};
    const int64_t colptr[4] = {0, 1, 2, 5}, rowind[5] = {0, 1, 0, 1, 2};
    const double values[5] = {4.0, 0.0, -1.0, 2.5, 7.0};
    pl_csc c, d;
    CHECK(pl_csc_init(&c, 3, 1) == 0 && pl_csc_init(&d, 3, 0) == 0, "pl_csc_init");
    CHECK(pl_csc_from_dense(&c, a) == 0, "from_dense");
    CHECK(pl_csc_nnz(&c) == 5, "5 entries stored, got %zu", pl_csc_nnz(&c));
    for (int j = 0; j <= 3; j++)
        CHECK(c.colptr[j] == colptr[j], "colptr[%d] = %lld, expected %lld", j, (long long)c.colptr[j],
              (long long)colptr[j]);
    for (int p = 0; p < 5 && pl_csc_nnz(&c) == 5; p++) {
        CHECK(c.rowind[p] == rowind[p], "rowind[%d] = %lld, expected %lld", p, (long long)c.rowind[p],
              (long long)rowind[p]);
        CHECK(c.values[p] == values[p], "values[%d] = %g, expected %g", p, c.values[p], values[p]);
    }
    /* the same pattern, other values; then another pattern: (1,0) fills in, (0,2) empties */
    const double same[9] = {-3.0, 0.0, 9.0, /**/ 0.0, 1.0, 1e-300, /**/ 0.0, 0.0, 0.0};
    const double other[9] = {4.0, 0.0, 0.0, /**/ 5.0, 0.0, 2.5, /**/ 0.0, 0.0, 7.0};
    CHECK(pl_csc_copy_pattern(&d, &c) == 0, "copy_pattern");
    CHECK(pl_csc_from_dense(&c, same) == 0 && pl_csc_same_pattern(&c, &d), "same pattern, new values");
    CHECK(c.values[1] == 1.0 && c.values[3] == 1e-300 && c.values[4] == 0.0, "new values: %g %g %g", c.values[1],
          c.values[3], c.values[4]);
    CHECK(pl_csc_from_dense(&c, other) == 0 && !pl_csc_same_pattern(&c, &d), "changed pattern told apart");
    const int64_t colptr2[4] = {0, 2, 3, 5}, rowind2[5] = {0, 1, 1, 1, 2};
    int agree = pl_csc_nnz(&c) == 5;
    for (int j = 0; agree && j <= 3; j++)
        agree = c.colptr[j] == colptr2[j];
    for (int p = 0; agree && p < 5; p++)
        agree = c.rowind[p] == rowind2[p];
    CHECK(agree, "the changed pattern: (0,0) (1,0) | (1,1) | (1,2) (2,2)");
    CHECK(c.values[1] == 5.0 && c.values[2] == 0.0, "changed values: %g %g", c.values[1], c.values[2]);
    /* growing past the capacity: a full matrix */
    const double full[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    CHECK(pl_csc_from_dense(&c, full) == 0 && pl_csc_nnz(&c) == 9 && c.values[8] == 9.0 && c.values[1] == 4.0,
          "full matrix");
    pl_csc_free(&c);
    pl_csc_free(&d);
}

/* y' = A(t) y, A = diag(-1, -2, -3) with a coupling 1/2 whose place changes at t = 0.3 (the pattern
 * changes there).  Added: A[0][2] = 1/2 from t = 0.3 on (an entry more; with s = t - 0.3 past it,
 * y2 = y2(0.3) e^{-3 s}, y1 = y1(0.3) e^{-2 s}, y0 = e^{-s} (y0(0.3) + y2(0.3) (1 - e^{-2 s}) / 4)).
 * Moved: A[0][2] = 1/2 before, A[1][2] = 1/2 from then on (every column keeps its count, a row
 * changes: y0(0.3) = e^{-0.3} (1 + (1 - e^{-0.6}) / 4), then y0 = y0(0.3) e^{-s}, y2 as above,
 * y1 = e^{-2 s} (y1(0.3) + y2(0.3) (1 - e^{-s}) / 2)). */
typedef struct {
    int moved; /* 0: added, 1: moved */
    int calls, changes, after;
} linear;

#define SWITCH 0.3

/* The row of the coupling 1/2 in column 2 at t, or -1 for none. */
static int coupling_row(const linear *p, double t)
{
    if (t < SWITCH)
        return p->moved ? 0 : -1;
    return p->moved ? 1 : 0;
}

static int linear_rhs(double t, const double *y, double *yd, void *user)
{
    int row = coupling_row(user, t);
    yd[0] = -y[0] + (row == 0 ? 0.5 * y[2] : 0.0);
    yd[1] = -2.0 * y[1] + (row == 1 ? 0.5 * y[2] : 0.0);
    yd[2] = -3.0 * y[2];
    return 0;
}

static int linear_weights(double t, const double *y, double *w, void *user)
{
    (void)t, (void)user;
    for (int j = 0; j < 3; j++)
        w[j] = 1.0 / (1e-10 * fabs(y[j]) + 1e-12);
    return 0;
}

static int linear_jacobian(double t, const double *y, double *J, void *user)
{
    (void)y;
    linear *p = user;
    int after = t >= SWITCH, row = coupling_row(p, t);
    p->changes += p->calls == 0 || after != p->after;
    p->after = after;
    p->calls++;
    memset(J, 0, 9 * sizeof *J);
    J[0] = -1.0, J[4] = -2.0, J[8] = -3.0;
    if (row >= 0)
        J[3 * row + 2] = 0.5;
    return 0;
}

/* The same Jacobian given as compressed sparse columns (pl_stepper_spec.jacobian_csc). */
static int linear_jacobian_csc(double t, const double *y, pl_csc *J, void *user)
{
    double d[9];
    linear_jacobian(t, y, d, user);
    return J->size == 3 && pl_csc_from_dense(J, d) == 0 ? 0 : -1;
}

static void linear_exact(const linear *p, double t, double *y)
{
    double e = exp(-SWITCH), s = t - SWITCH, y0 = p->moved ? e * (1.0 + (1.0 - e * e) / 4.0) : e, y1 = e * e,
           y2 = e * e * e;
    y[0] = exp(-s) * (y0 + (p->moved ? 0.0 : y2 * (1.0 - exp(-2.0 * s)) / 4.0));
    y[1] = exp(-2.0 * s) * (y1 + (p->moved ? y2 * (1.0 - exp(-s)) / 2.0 : 0.0));
    y[2] = y2 * exp(-3.0 * s);
}

/* On the sparse path (sparse_from 1) or the dense one (SIZE_MAX), the Jacobian given dense or as
 * compressed columns (csc), the coupling added or moved. */
static void test_changing_pattern(size_t sparse_from, int csc, int moved)
{
    static const double y0[3] = {1.0, 1.0, 1.0};
    linear p = {moved, 0, 0, 0};
    pl_stepper_spec spec = {.size = 3, .y0 = y0, .t_end = 2.0, .rhs = linear_rhs, .weights = linear_weights,
                            .jacobian = csc ? NULL : linear_jacobian, .jacobian_csc = csc ? linear_jacobian_csc : NULL,
                            .sparse_from = sparse_from, .user = &p, .context = "a linear test"};
    pl_stepper *s = NULL;
    pl_error err;
    pl_stats stats;
    memset(&stats, 0, sizeof stats);
    if (pl_stepper_cvode_new(&s, &spec, &err) != PL_OK) {
        CHECK(0, "stepper: %s", err.message);
        pl_stepper_free(s);
        return;
    }
    int flag = 0;
    while (flag >= 0 && s->t < spec.t_end)
        flag = s->step(s, spec.t_end, &err);
    CHECK(flag >= 0, "integration: %s", err.message);
    double exact[3];
    linear_exact(&p, s->t, exact);
    for (int j = 0; j < 3; j++)
        NEAR(s->y[j], exact[j], 1e-7 * fabs(exact[j]), "y%d(%g), sparse_from %zu, csc %d, moved %d", j, s->t,
             sparse_from, csc, moved);
    s->add_counters(s, &stats);
    int sparse = sparse_from == 1;
    CHECK(stats.jac_evals == p.calls && p.calls > 2 && stats.lin_setups >= p.calls, "%ld Jacobians, %ld setups",
          stats.jac_evals, stats.lin_setups);
    /* KLU orders a pattern once, and again only when it changed (once here) */
    CHECK(stats.sparse_analyses == (sparse ? p.changes : 0) && (!sparse || p.changes == 2),
          "%ld orderings for %d patterns (%d Jacobians), sparse %d, moved %d", stats.sparse_analyses, p.changes,
          p.calls, sparse, moved);
    pl_stepper_free(s);
}

/* A Jacobian whose Newton matrix I - gamma J is singular whatever gamma: J = 1e300 [1 1; 1 1], next
 * to which the identity is lost to round-off.  KLU's zero pivot is recoverable (as the dense
 * solver's), and once CVODE gives up its report names KLU's reason. */
static int singular_rhs(double t, const double *y, double *yd, void *user)
{
    (void)t, (void)user;
    yd[0] = -y[0];
    yd[1] = -y[1];
    return 0;
}

static int singular_weights(double t, const double *y, double *w, void *user)
{
    (void)t, (void)y, (void)user;
    w[0] = w[1] = 1e8;
    return 0;
}

static int singular_jacobian(double t, const double *y, double *J, void *user)
{
    (void)t, (void)y, (void)user;
    J[0] = J[1] = J[2] = J[3] = 1e300;
    return 0;
}

static void test_singular(void)
{
    static const double y0[2] = {1.0, 2.0};
    pl_stepper_spec spec = {.size = 2, .y0 = y0, .t_end = 1.0, .rhs = singular_rhs, .weights = singular_weights,
                            .jacobian = singular_jacobian, .sparse_from = 1, .context = "a singular test"};
    pl_stepper *s = NULL;
    pl_error err;
    pl_error_clear(&err);
    if (pl_stepper_cvode_new(&s, &spec, &err) != PL_OK) {
        CHECK(0, "stepper: %s", err.message);
        pl_stepper_free(s);
        return;
    }
    int flag = 0, steps = 0;
    while (flag >= 0 && s->t < spec.t_end && steps++ < 100)
        flag = s->step(s, spec.t_end, &err);
    CHECK(flag < 0 && err.status == PL_ERR_SOLVER, "the step fails as the solver's (%d, status %d)", flag,
          (int)err.status);
    CHECK(strstr(err.message, "KLU_SINGULAR") && strstr(err.message, "a singular test"), "the reason: %s",
          err.message);
    pl_stepper_free(s);
}

/* Whether an episode's contact dissolves rather than rebounds: it leaves at a speed below 1e-6 of
 * its entry speed, G_i creeping up through 0, and its exit time is ill-conditioned: in the box of 6
 * disks one such exit (at 1.5e-9 against 0.31 in) moves by 0.03 between two dense runs at rtol 1e-8
 * and 1.0000001e-8. */
static int dissolves(const pl_episode *e)
{
    return fabs(e->gdot_out) < 1e-6 * fabs(e->gdot_in);
}

/* Penalized runs forced onto KLU against the dense ones: the same episodes (entries, and exits but
 * those of dissolving contacts), the final state within what rtol reaches.  The table's sustained
 * contact (BDF) and a small box of disks. */
static void compare_paths(const pl_case *c, const pl_setting *set, size_t nset, double mu, const char *what)
{
    pl_model model;
    pl_error err;
    if (pl_model_init(&model, c, set, nset, &err) != PL_OK) {
        CHECK(0, "%s: %s", what, err.message);
        return;
    }
    pl_solution sol[2];
    for (int sparse = 0; sparse < 2; sparse++) {
        pl_solve_opts o;
        pl_solve_opts_init(&o, &pl_solver_penalty, &model, NAN);
        o.samples = 0;
        o.sparse_from = sparse ? 1 : SIZE_MAX;
        CHECK(pl_solve_opts_set(&o, &pl_solver_penalty, "mu", mu, &err) == PL_OK, "mu");
        pl_status st = pl_solve(&pl_solver_penalty, &model, &o, &sol[sparse], &err);
        CHECK(st == PL_OK, "%s, %s: %s", what, sparse ? "KLU" : "dense", err.message);
    }
    const pl_stats *d = &sol[0].stats, *k = &sol[1].stats;
    CHECK(d->jac_evals > 0 && d->sparse_analyses == 0, "%s: dense BDF ran (%ld Jacobians)", what, d->jac_evals);
    CHECK(k->jac_evals > 0 && k->sparse_analyses > 0 && k->sparse_analyses < k->jac_evals,
          "%s: KLU ran and kept its orderings (%ld orderings, %ld Jacobians)", what, k->sparse_analyses,
          k->jac_evals);
    CHECK(sol[0].nepisodes == sol[1].nepisodes, "%s: episodes %zu and %zu", what, sol[0].nepisodes,
          sol[1].nepisodes);
    for (size_t e = 0; e < sol[0].nepisodes && e < sol[1].nepisodes; e++) {
        const pl_episode *x = &sol[0].episodes[e], *y = &sol[1].episodes[e];
        CHECK(x->constraint == y->constraint, "%s: episode %zu's constraint", what, e);
        NEAR(y->t_in, x->t_in, 1e-6 * fmax(1.0, x->t_in), "%s: episode %zu's entry", what, e);
        CHECK(isnan(x->t_out) == isnan(y->t_out), "%s: episode %zu ends in both or neither", what, e);
        if (!isnan(x->t_out) && !dissolves(x) && !dissolves(y))
            NEAR(y->t_out, x->t_out, 1e-6 * fmax(1.0, x->t_out), "%s: episode %zu's exit", what, e);
    }
    for (size_t j = 0; j < model.n; j++) {
        NEAR(sol[1].q_final[j], sol[0].q_final[j], 1e-6 * fmax(1.0, fabs(sol[0].q_final[j])), "%s: q%zu", what, j);
        NEAR(sol[1].v_final[j], sol[0].v_final[j], 1e-6 * fmax(1.0, fabs(sol[0].v_final[j])), "%s: v%zu", what, j);
    }
    pl_solution_free(&sol[0]);
    pl_solution_free(&sol[1]);
    pl_model_free(&model);
}

int main(void)
{
    check_init();
    test_conversion();
    for (int moved = 0; moved < 2; moved++)
        for (int csc = 0; csc < 2; csc++) {
            test_changing_pattern(1, csc, moved);
            test_changing_pattern(SIZE_MAX, csc, moved);
        }
    test_singular();
    compare_paths(&pl_case_vibrating_table, NULL, 0, 1e9, "table, mu = 1e9");
    const pl_setting box[] = {{"config", 3.0}, {"N", 6.0}};
    compare_paths(&pl_case_spheres, box, 2, 1e6, "box of 6 disks, mu = 1e6");
    return check_finish("test_sparse");
}
