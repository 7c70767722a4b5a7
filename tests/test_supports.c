/* Constraints' supports (pl_case.support, ABI 4): a case that gives them runs as its dense twin, the
 * same case with every gap spread to n coordinates by the case itself (no support), and the work of a
 * penalized run follows the supports.  The twin is built here from the sparse case: its gap callback
 * asks the case's support and gap into arrays of its own and writes them out at their coordinates, as a
 * case of ABI 3 would. */
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "solve.h"

typedef struct {
    const pl_case *sparse;
    size_t n;
} twin_info;

static void dense_gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    const twin_info *info = user;
    size_t dofs[PL_MAX_SUPPORT], ns = info->sparse->support(p, i, dofs, NULL), n = info->n;
    double grad[PL_MAX_SUPPORT] = {0}, grad_t[PL_MAX_SUPPORT] = {0}, hess[PL_MAX_SUPPORT * PL_MAX_SUPPORT] = {0};
    pl_gap g = {0.0, 0.0, 0.0, grad, grad_t, hess, out->keep_hess, dofs, ns};
    info->sparse->gap(p, i, t, q, &g, NULL);
    out->g = g.g, out->g_t = g.g_t, out->g_tt = g.g_tt;
    for (size_t a = 0; a < ns; a++) {
        out->grad[dofs[a]] = grad[a];
        out->grad_t[dofs[a]] = grad_t[a];
        for (size_t b = 0; b < ns && out->keep_hess; b++)
            out->hess[dofs[a] * n + dofs[b]] = hess[a * ns + b];
    }
}

/* The largest difference between the two runs' trajectories relative to 1 + |x| (INFINITY if their
 * shapes differ). */
static double trajectory_difference(const pl_solution *a, const pl_solution *b)
{
    if (a->traj.nrows != b->traj.nrows || a->traj.ncol != b->traj.ncol)
        return INFINITY;
    double d = 0.0;
    for (size_t k = 0; k < a->traj.nrows * a->traj.ncol; k++) {
        double x = a->traj.data[k], y = b->traj.data[k];
        if (isnan(x) && isnan(y))
            continue;
        d = fmax(d, fabs(x - y) / (1.0 + fabs(x)));
    }
    return isnan(d) ? INFINITY : d;
}

/* The dense twin of case c: its gaps spread to n coordinates by dense_gap (info: c, n set once the
 * sparse model is made), no supports, no neighbour search. */
static pl_case dense_twin(const pl_case *c, twin_info *info)
{
    pl_case twin = *c;
    *info = (twin_info){c, 0};
    twin.candidates = NULL, twin.gap_bounds = NULL;
    twin.support = NULL;
    twin.gap = dense_gap;
    twin.user = info;
    return twin;
}

/* The case under settings s against its dense twin, penalized at mu. */
static void against_twin(const pl_case *c, const pl_setting *s, size_t ns, double mu, double t_end, const char *what)
{
    twin_info info;
    pl_case twin = dense_twin(c, &info), sparse_case = *c;
    sparse_case.candidates = NULL, sparse_case.gap_bounds = NULL; /* supports alone (see test_neighbours) */
    c = &sparse_case;
    pl_model sparse, dense;
    pl_error err;
    CHECK(pl_model_init(&sparse, c, s, ns, &err) == PL_OK, "%s: %s", what, err.message);
    info.n = sparse.n;
    CHECK(pl_model_init(&dense, &twin, s, ns, &err) == PL_OK, "%s twin: %s", what, err.message);
    CHECK(sparse.support && !dense.support, "%s: the supports are taken", what);
    pl_solution a, b;
    pl_status sa = solve_penalty(&sparse, mu, 1e-8, t_end, 50, &a, &err);
    CHECK(sa == PL_OK, "%s: %s", what, err.message);
    pl_status sb = solve_penalty(&dense, mu, 1e-8, t_end, 50, &b, &err);
    CHECK(sb == PL_OK, "%s twin: %s", what, err.message);
    double d = trajectory_difference(&a, &b);
    CHECK(d <= 1e-12, "%s: the sparse run is its dense twin's to %.3g (rows %zu, %zu)", what, d, a.traj.nrows,
          b.traj.nrows);
    CHECK(a.nepisodes == b.nepisodes && a.nepisodes > 0, "%s: the same %zu episodes (twin %zu)", what, a.nepisodes,
          b.nepisodes);
    pl_solution_free(&a), pl_solution_free(&b);
    pl_model_free(&sparse), pl_model_free(&dense);
}

/* The limit solution of the case under settings s against its dense twin's, bit for bit (the sparse
 * path's sums over the supports are the dense ones without their zero terms, and its zeros carry the
 * dense sums' signs): every row, and every event's time, velocities and normal rates with the signs of
 * their zeros. */
static void against_twin_limit(const pl_case *c, const pl_setting *s, size_t ns, double t_end, const char *what)
{
    twin_info info;
    pl_case twin = dense_twin(c, &info);
    pl_model sparse, dense;
    pl_error err;
    if (pl_model_init(&sparse, c, s, ns, &err) != PL_OK) {
        CHECK(0, "%s: %s", what, err.message);
        return;
    }
    info.n = sparse.n;
    if (pl_model_init(&dense, &twin, s, ns, &err) != PL_OK) {
        CHECK(0, "%s twin: %s", what, err.message);
        pl_model_free(&sparse);
        return;
    }
    pl_solution a, b;
    pl_status sa = solve_limit(&sparse, 1e-12, t_end, 50, &a, &err);
    CHECK(sa == PL_OK, "%s, limit: %s", what, err.message);
    pl_status sb = solve_limit(&dense, 1e-12, t_end, 50, &b, &err);
    CHECK(sb == PL_OK, "%s twin, limit: %s", what, err.message);
    int rows = a.traj.nrows == b.traj.nrows && a.traj.ncol == b.traj.ncol && a.traj.nrows > 0 &&
               memcmp(a.traj.data, b.traj.data, a.traj.nrows * a.traj.ncol * sizeof *a.traj.data) == 0;
    int events = a.nevents == b.nevents && a.nevents > 0;
    for (size_t k = 0; events && k < a.nevents; k++) {
        const pl_event *x = &a.events[k], *y = &b.events[k];
        events = x->kind == y->kind && x->constraint == y->constraint && x->t == y->t &&
                 memcmp(&x->gdot_before, &y->gdot_before, sizeof x->gdot_before) == 0 &&
                 memcmp(&x->gdot_after, &y->gdot_after, sizeof x->gdot_after) == 0 &&
                 memcmp(x->v_after, y->v_after, a.n * sizeof *x->v_after) == 0;
    }
    CHECK(rows && events, "%s: the limit solution over the supports is its dense twin's bit for bit (rows %zu, %zu: "
          "%s; events %zu, %zu: %s)", what, a.traj.nrows, b.traj.nrows, rows ? "the same" : "differ", a.nevents,
          b.nevents, events ? "the same" : "differ");
    pl_solution_free(&a), pl_solution_free(&b);
    pl_model_free(&sparse), pl_model_free(&dense);
}

static void test_twins(void)
{
    /* a box of 8 disks on two rows under gravity: pairs and walls, impacts and settled contacts */
    pl_setting box[] = {{"config", 3}, {"N", 8}, {"cols", 4}, {"g", 9.81}};
    against_twin(&pl_case_spheres, box, 4, 1e6, 1.0, "spheres box");
    /* the growing pair (T5): dG/dt = -2 rdot */
    pl_setting grow[] = {{"config", 2}};
    against_twin(&pl_case_spheres, grow, 1, 1e6, 4.0, "growing pair");
    /* the cradle of 6 balls: every gap on its boundary at the start */
    pl_setting cradle[] = {{"N", 6}};
    against_twin(&pl_case_newtons_cradle, cradle, 1, 1e8, 0.0, "cradle");
    /* the limit solution: a disk landing on a floor at rest under gravity (its rates of -0 from the
     * wall's G_t of -0: +0 in the dense sum), disks growing into sustained contact that lift off
     * (the sliding set changing at its events), the box and the cradle */
    pl_setting one[] = {{"config", 3}, {"N", 1}, {"g", 1}};
    against_twin_limit(&pl_case_spheres, one, 3, 0.0, "one disk falling");
    pl_setting lifting[] = {{"config", 3}, {"N", 6}, {"cols", 3}, {"rdot", 0.05}, {"g", 5}, {"e", 0}};
    against_twin_limit(&pl_case_spheres, lifting, 6, 0.5, "growing disks");
    against_twin_limit(&pl_case_spheres, grow, 1, 4.0, "growing pair");
    against_twin_limit(&pl_case_newtons_cradle, cradle, 1, 0.0, "cradle");
}

/* The case's run with its neighbour search against the same without it (every constraint evaluated at
 * every step): the same contacts (constraint, entry time to 1e-7 of the run), the same final state to
 * 1e-7 relative (the error weights differ: the far gaps no longer tighten them, rtol 1e-8). */
static void against_all(const pl_setting *s, size_t ns, double mu, double t_end, const char *what, size_t *steps,
                        long *gap_evals)
{
    pl_case all = pl_case_spheres;
    all.candidates = NULL, all.gap_bounds = NULL;
    pl_model a, b;
    pl_error err;
    CHECK(pl_model_init(&a, &pl_case_spheres, s, ns, &err) == PL_OK, "%s: %s", what, err.message);
    CHECK(pl_model_init(&b, &all, s, ns, &err) == PL_OK, "%s: %s", what, err.message);
    pl_solution x, y;
    CHECK(solve_penalty(&a, mu, 1e-8, t_end, 0, &x, &err) == PL_OK, "%s: %s", what, err.message);
    CHECK(solve_penalty(&b, mu, 1e-8, t_end, 0, &y, &err) == PL_OK, "%s without the list: %s", what, err.message);
    CHECK(x.stats.neighbour_rebuilds > 0 && y.stats.neighbour_rebuilds == 0, "%s: %ld rebuilds of the list", what,
          x.stats.neighbour_rebuilds);
    /* the contacts, entry by entry; a touch within round-off (penetration below 1e-9, the contacts'
     * 1e-5 to 3e-4) and the exit of a disk resting on the floor (e = 0: it lifts off slowly, at a time
     * set by round-off) may differ between the runs */
    size_t ea = 0, eb = 0, count = 0;
    int same = 1;
    double T = x.t_end, dt = 0.0, dq = 0.0;
    for (;;) {
        while (ea < x.nepisodes && !(x.episodes[ea].max_penetration > 1e-9))
            ea++;
        while (eb < y.nepisodes && !(y.episodes[eb].max_penetration > 1e-9))
            eb++;
        if (ea == x.nepisodes || eb == y.nepisodes) {
            same = same && ea == x.nepisodes && eb == y.nepisodes;
            break;
        }
        same = same && x.episodes[ea].constraint == y.episodes[eb].constraint;
        dt = fmax(dt, fabs(x.episodes[ea].t_in - y.episodes[eb].t_in));
        ea++, eb++, count++;
    }
    CHECK(same && count > 0 && dt <= 1e-7 * T, "%s: the same %zu contacts (of %zu and %zu episodes), entries to %.3g",
          what, count, x.nepisodes, y.nepisodes, dt);
    for (size_t j = 0; j < x.n; j++)
        dq = fmax(dq, fabs(x.q_final[j] - y.q_final[j]) / (1.0 + fabs(y.q_final[j])));
    CHECK(dq <= 1e-7, "%s: the same final state to %.3g", what, dq);
    if (steps)
        *steps = (size_t)x.stats.steps;
    if (gap_evals)
        *gap_evals = x.stats.gap_evals;
    pl_solution_free(&x), pl_solution_free(&y);
    pl_model_free(&a), pl_model_free(&b);
}

static void test_neighbours(void)
{
    /* a box of 16 disks on two rows under gravity (184 constraints; the list is used from 100 on):
     * collisions between disks far apart at the start, entering the list on the way */
    pl_setting box[] = {{"config", 3}, {"N", 16}, {"cols", 8}, {"g", 9.81}};
    against_all(box, 4, 1e6, 1.0, "box of 16", NULL, NULL);
    /* the same box with growing radii: G_t = -2 rdot (B > 0 in the list's drift) */
    pl_setting grow[] = {{"config", 3}, {"N", 16}, {"cols", 8}, {"g", 9.81}, {"rdot", 0.01}};
    against_all(grow, 5, 1e6, 1.0, "box of 16, growing", NULL, NULL);
    /* one row of 14 (133 constraints) without gravity: disks 0.25 apart, flying across the box */
    pl_setting row[] = {{"config", 3}, {"N", 14}};
    against_all(row, 2, 1e6, 2.0, "row of 14", NULL, NULL);
}

/* Work counted: the gaps a run of the box of 100 disks evaluates per step (its 5350 constraints with
 * every one evaluated several times per step without the list) stay within a small multiple of N. */
static void test_work(void)
{
    pl_setting box[] = {{"config", 3}, {"N", 100}};
    pl_model a;
    pl_error err;
    CHECK(pl_model_init(&a, &pl_case_spheres, box, 2, &err) == PL_OK, "box of 100: %s", err.message);
    pl_solution x;
    CHECK(solve_penalty(&a, 1e6, 1e-8, 0.2, 0, &x, &err) == PL_OK, "box of 100: %s", err.message);
    double per_step = (double)x.stats.gap_evals / (double)x.stats.steps;
    CHECK(x.stats.steps > 10 && per_step <= 20.0 * 100, "box of 100: %.0f gap evaluations per step (%ld steps), "
          "at most 20 N", per_step, x.stats.steps);
    printf("box of 100: %ld steps, %.0f gap evaluations per step, %ld rebuilds\n", x.stats.steps, per_step,
           x.stats.neighbour_rebuilds);
    pl_solution_free(&x);
    pl_model_free(&a);
}

/* A support the model refuses, by a case given in-process (the loaded models' refusals:
 * test_user_models). */
static size_t bad_support(const double *p, size_t i, size_t *dofs, void *user)
{
    (void)p, (void)user;
    dofs[0] = i + 1, dofs[1] = i; /* descending */
    return 2;
}

static void test_refused(void)
{
    pl_case c = pl_case_newtons_cradle;
    c.support = bad_support;
    pl_model m;
    pl_error err;
    CHECK(pl_model_init(&m, &c, NULL, 0, &err) == PL_ERR_INPUT && strstr(err.message, "not strictly ascending") &&
              !strchr(err.message, '\n'),
          "a descending support is refused: %s", err.message);
    pl_model_free(&m);
}

int main(void)
{
    test_twins();
    test_neighbours();
    test_work();
    test_refused();
    return check_finish("test_supports");
}
