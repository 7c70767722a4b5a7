/* The time-stepping schemes against the reference runs of Siconos, closed forms and their own
 * theorems: Moreau-Jean reproduces Siconos step by step; the inelastic ball lands at sqrt(2 h0/g)
 * and rests (Bernicot-Lefebvre T1); the vibrating table's lift-off and landing converge (T2); the
 * wedge's corner outcomes of Paoli's T3; Paoli's reaction lies in the normal cone (Lemma 1); the
 * kinetic energy never increases without forces; Maury's iterates are exactly admissible
 * (Prop. 2.1); an h-sweep of Moreau-Jean converges to the Zeno time; an infeasible LCP is a
 * reported failure. */
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "solve.h"
#include "study/analysis.h"
#include "study/sweep.h"
#include "table_flight.h"

static const pl_solver_type *const schemes[] = {&pl_solver_moreau_jean, &pl_solver_paoli, &pl_solver_maury};

static pl_status run_scheme(const pl_solver_type *s, const pl_case *c, const pl_setting *set, size_t nset, double h,
                            double t_end, pl_model *m, pl_solution *sol)
{
    pl_error err;
    CHECK(pl_model_init(m, c, set, nset, &err) == PL_OK, "model: %s", err.message);
    pl_status st = solve_scheme(s, m, h, t_end, sol, &err);
    CHECK(st == PL_OK, "%s on %s, h = %g: %s", s->name, c->name, h, err.message);
    return st;
}

/* ---- Siconos ------------------------------------------------------------------------------- */

/* Compare every row of a Siconos run (t, q, v, P) with the scheme's rows. */
static void compare_reference(const char *file, const pl_solution *sol, size_t n, size_t m)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", PENLIM_TEST_DATA, file);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "reference %s opens", path);
    if (!f)
        return;
    char line[4096];
    size_t row = 0, cols = 1 + 2 * n + m;
    double worst = 0.0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        double ref[16];
        char *p = line;
        for (size_t k = 0; k < cols; k++)
            ref[k] = strtod(p, &p);
        if (row >= sol->traj.nrows)
            break;
        const double *x = pl_table_row(&sol->traj, row);
        double got[16];
        got[0] = x[0];
        for (size_t j = 0; j < 2 * n; j++)
            got[1 + j] = x[pl_col_q(n, m) + j];
        for (size_t i = 0; i < m; i++)
            got[1 + 2 * n + i] = x[pl_col_force(n, m) + i];
        for (size_t k = 0; k < cols; k++)
            worst = fmax(worst, fabs(got[k] - ref[k]));
        row++;
    }
    fclose(f);
    CHECK(row == sol->traj.nrows, "%s: %zu reference rows, %zu rows computed", file, row, sol->traj.nrows);
    CHECK(worst <= 1e-12, "%s: every step and component within 1e-12 of Siconos (worst %.3g)", file, worst);
    printf("  %s: %zu steps, largest difference to Siconos %.3g\n", file, row - 1, worst);
}

static void test_siconos(void)
{
    pl_model m;
    pl_solution sol;
    pl_setting ball[] = {{"g", 9.81}, {"h0", 1.0}, {"v0", 0.0}, {"e", 0.9}};
    if (run_scheme(&pl_solver_moreau_jean, &pl_case_bouncing_ball, ball, 4, 0.005, 10.0, &m, &sol) == PL_OK)
        compare_reference("siconos_mj_bouncing_ball.dat", &sol, 1, 1);
    pl_solution_free(&sol);
    pl_setting wedge[] = {{"m", 0.5}, {"q1", 1.0}, {"q2", 1.01}, {"v1", -1.0}, {"v2", -1.0},
                          {"f1", 0.0}, {"f2", -1.0}, {"e", 0.5}};
    if (run_scheme(&pl_solver_moreau_jean, &pl_case_wedge, wedge, 8, 0.001, 3.0, &m, &sol) == PL_OK)
        compare_reference("siconos_mj_wedge.dat", &sol, 2, 2);
    pl_solution_free(&sol);
}

/* ---- the inelastic ball (Bernicot-Lefebvre T1) ----------------------------------------------- */

static void test_inelastic_ball(void)
{
    double g = 3.7, h0 = 0.8, t_star = sqrt(2 * h0 / g); /* not the case's defaults */
    pl_setting s[] = {{"g", g}, {"h0", h0}, {"e", 0.0}};
    const double hs[] = {0.01, 0.0023};
    for (size_t k = 0; k < 3; k++)
        for (int j = 0; j < 2; j++) {
            double h = hs[j];
            pl_model m;
            pl_solution sol;
            pl_error err;
            if (run_scheme(schemes[k], &pl_case_bouncing_ball, s, 3, h, 2.0, &m, &sol) != PL_OK) {
                pl_solution_free(&sol);
                continue;
            }
            pl_analysis a;
            pl_analyze(&m, &sol, &a, &err);
            const char *name = schemes[k]->name;
            CHECK(a.impacts == 1, "%s h=%g: one impact (%zu)", name, h, a.impacts);
            CHECK(fabs(a.first_impact_time - t_star) <= h, "%s h=%g: lands at %.6f, within h of t* = %.6f", name, h,
                  a.first_impact_time, t_star);
            CHECK(a.restitution_first == 0.0, "%s: inelastic (restitution %g)", name, a.restitution_first);
            CHECK(fabs(a.capture_time - a.first_impact_time) <= h, "%s: captured at the landing", name);
            /* After the landing: at rest, q constant (0 for Paoli and Maury), impulse h g per step. */
            double q_rest = sol.q_final[0], worst_q = 0.0, worst_p = 0.0, worst_v = 0.0;
            size_t rows = 0;
            for (size_t r = 0; r < sol.traj.nrows; r++) {
                const double *x = pl_table_row(&sol.traj, r);
                if (x[0] < a.first_impact_time + 2.5 * h)
                    continue;
                rows++;
                worst_q = fmax(worst_q, fabs(x[pl_col_q(1, 1)] - q_rest));
                worst_p = fmax(worst_p, fabs(x[pl_col_force(1, 1)] - h * g));
                worst_v = fmax(worst_v, fabs(x[pl_col_v(1, 1)]));
            }
            CHECK(rows > 10 && worst_q == 0.0 && worst_v == 0.0, "%s h=%g: at rest, q constant (%g), v = 0 (%g)", name,
                  h, worst_q, worst_v);
            CHECK(worst_p <= 1e-12 * h * g, "%s h=%g: impulse h g per step at rest (off by %g)", name, h, worst_p);
            if (schemes[k] != &pl_solver_moreau_jean)
                CHECK(q_rest == 0.0, "%s h=%g: rests exactly on the floor (q = %g)", name, h, q_rest);
            else
                CHECK(q_rest < 0.0 && -q_rest <= h * sqrt(2 * g * h0), "moreau_jean h=%g: rests at the O(h) "
                      "penetration %g of its velocity-level law (bound h V = %g)", h, q_rest, h * sqrt(2 * g * h0));
            if (schemes[k] == &pl_solver_moreau_jean)
                printf("  moreau_jean, e = 0, h = %g: resting penetration %.4g = %.3f h V\n", h, -q_rest,
                       -q_rest / (h * sqrt(2 * g * h0)));
            pl_analysis_free(&a);
            pl_solution_free(&sol);
        }
}

/* ---- the vibrating table (Bernicot-Lefebvre T2) ----------------------------------------------- */

static void test_table(void)
{
    double g = 4.0, A = 0.3, w = 5.0; /* A w^2 = 7.5 > g: lifts off; not the case's defaults */
    pl_setting s[] = {{"g", g}, {"A", A}, {"omega", w}, {"e", 0.0}};
    table_flight f = {A, w, g, asin(g / (A * w * w)) / w};
    double t_land = table_landing_time(&f, 2.0);
    const double hs[] = {1e-3, 1e-4};
    for (size_t k = 0; k < 3; k++) {
        double err_off[2], err_land[2];
        for (int j = 0; j < 2; j++) {
            pl_model m;
            pl_solution sol;
            pl_error err;
            err_off[j] = err_land[j] = NAN;
            if (run_scheme(schemes[k], &pl_case_vibrating_table, s, 4, hs[j], 1.5, &m, &sol) != PL_OK) {
                pl_solution_free(&sol);
                continue;
            }
            pl_analysis a;
            pl_analyze(&m, &sol, &a, &err);
            err_off[j] = fabs(a.lift_off_first - f.t_off);
            for (size_t e = 0; e < a.impacts; e++)
                if (a.impact[e].event.t > a.lift_off_first) {
                    err_land[j] = fabs(a.impact[e].event.t - t_land);
                    break;
                }
            CHECK(err_off[j] <= 2 * hs[j], "%s h=%g: lift-off %.6f vs %.6f", schemes[k]->name, hs[j], a.lift_off_first,
                  f.t_off);
            CHECK(err_land[j] <= 2 * hs[j], "%s h=%g: landing error %g", schemes[k]->name, hs[j], err_land[j]);
            if (schemes[k] == &pl_solver_maury) { /* Prop. 2.1: exactly admissible (G affine in q) */
                double worst = 0.0;
                for (size_t r = 0; r < sol.traj.nrows; r++)
                    worst = fmin(worst, pl_table_row(&sol.traj, r)[pl_col_g(1, 1)]);
                CHECK(worst >= -1e-12, "maury h=%g: G(q^n) >= -1e-12 at every step (min %g)", hs[j], worst);
            }
            pl_analysis_free(&a);
            pl_solution_free(&sol);
        }
        CHECK(err_off[1] < err_off[0] && err_land[1] < err_land[0], "%s: lift-off and landing converge (%g -> %g, "
              "%g -> %g)", schemes[k]->name, err_off[0], err_off[1], err_land[0], err_land[1]);
        printf("  %s on the table: lift-off error %.2g -> %.2g, landing error %.2g -> %.2g for h = 1e-3 -> 1e-4\n",
               schemes[k]->name, err_off[0], err_off[1], err_land[0], err_land[1]);
    }
}

/* ---- the wedge: Paoli's T3, invariants ------------------------------------------------------- */

/* Kinetic energy v' M v / 2 with M = [[1, m], [m, 1]]. */
static double kinetic(double mc, const double *v)
{
    return 0.5 * (v[0] * v[0] + 2 * mc * v[0] * v[1] + v[1] * v[1]);
}

static void test_wedge(void)
{
    const double ms[] = {0.5, -0.5};
    for (size_t k = 0; k < 3; k++)
        for (int im = 0; im < 2; im++)
            for (int d = 0; d < 3; d++) {
                double mc = ms[im], q1 = d == 2 ? 1.01 : 1.0, q2 = d == 1 ? 1.01 : 1.0, h = 1e-4;
                pl_setting s[] = {{"m", mc}, {"q1", q1}, {"q2", q2}, {"e", 0.0}};
                pl_model m;
                pl_solution sol;
                if (run_scheme(schemes[k], &pl_case_wedge, s, 4, h, 3.0, &m, &sol) != PL_OK) {
                    pl_solution_free(&sol);
                    continue;
                }
                /* T3: m >= 0 stops at the corner; m < 0 from (1, 1.01) leaves along q2 = 0 with
                 * (0.25, 0), from (1.01, 1) along q1 = 0 with (0, 0.25), from (1, 1) stops. */
                double want[2] = {0.0, 0.0};
                if (mc < 0 && d == 1)
                    want[0] = 0.25;
                if (mc < 0 && d == 2)
                    want[1] = 0.25;
                char what[128];
                snprintf(what, sizeof what, "%s T3 m=%g q0=(%g,%g)", schemes[k]->name, mc, q1, q2);
                CHECK_NEAR(sol.v_final[0], want[0], 1e-9, what);
                CHECK_NEAR(sol.v_final[1], want[1], 1e-9, what);
                /* Invariants: energy never increases (affine constraints, constant M, no force);
                 * impulses >= 0 and only on constraints at their boundary (Paoli's Lemma 1: the
                 * reaction lies in the normal cone at U^{n+1}); Maury's iterates admissible. */
                double e_prev = INFINITY, worst_rise = 0.0, worst_comp = 0.0, min_p = 0.0, min_g = 0.0;
                for (size_t r = 0; r < sol.traj.nrows; r++) {
                    const double *x = pl_table_row(&sol.traj, r);
                    double E = kinetic(mc, x + pl_col_v(2, 2));
                    worst_rise = fmax(worst_rise, E - e_prev);
                    e_prev = E;
                    for (size_t i = 0; i < 2; i++) {
                        double P = x[pl_col_force(2, 2) + i], G = x[pl_col_g(2, 2) + i];
                        min_p = fmin(min_p, P);
                        min_g = fmin(min_g, G);
                        if (P > 0)
                            worst_comp = fmax(worst_comp, fabs(G));
                    }
                }
                CHECK(worst_rise <= 1e-14, "%s: kinetic energy never increases (largest rise %g)", what, worst_rise);
                CHECK(min_p >= 0.0, "%s: impulses >= 0 (%g)", what, min_p);
                if (schemes[k] == &pl_solver_paoli)
                    CHECK(worst_comp <= 1e-13, "%s: impulses only where G(U^{n+1}) = 0 (%g)", what, worst_comp);
                if (schemes[k] != &pl_solver_moreau_jean)
                    CHECK(min_g >= -1e-12, "%s: admissible iterates (min G %g)", what, min_g);
                pl_solution_free(&sol);
            }
}

/* ---- an h-sweep of Moreau-Jean on the Zeno ball ---------------------------------------------- */

static void test_zeno_sweep(void)
{
    pl_model m;
    pl_error err;
    pl_setting s[] = {{"e", 0.8}, {"h0", 1.3}}; /* accumulation at t1 (1 + 2e/(1 - e)) */
    pl_model_init(&m, &pl_case_bouncing_ball, s, 2, &err);
    double g = 9.81, t1 = sqrt(2 * 1.3 / g), t_acc = t1 * (1 + 2 * 0.8 / 0.2);
    pl_sweep_opts o = {.solver = &pl_solver_moreau_jean, .jobs = 2, .with_limit = 1};
    pl_solve_opts_init(&o.base, &pl_solver_moreau_jean, &m, 6.0);
    double h[] = {3e-3, 1e-3, 3e-4, 1e-4, 3e-5};
    pl_sweep sw;
    CHECK(pl_sweep_run(&m, h, 5, &o, &sw, &err) == PL_OK, "sweep: %s", err.message);
    CHECK(sw.failures == 0 && sw.param[0] == 3e-3 && sw.param[4] == 3e-5, "runs in order of refinement");
    const pl_convergence *ti = &sw.q[PL_Q_FIRST_IMPACT_TIME].conv, *vi = &sw.q[PL_Q_IMPACT_VELOCITY_ERROR].conv;
    CHECK(ti->reference == PL_REF_EXACT && ti->rate > 0.8 && ti->rate < 1.2, "first impact time ~ h^%.3f", ti->rate);
    CHECK(vi->rate > 0.8 && vi->rate < 1.2, "post-impact velocities ~ h^%.3f", vi->rate);
    const double *cap = sw.q[PL_Q_CAPTURE_TIME].values;
    CHECK(fabs(cap[4] - t_acc) < 2e-3 && fabs(cap[4] - t_acc) < fabs(cap[0] - t_acc),
          "the discrete capture time tends to the Zeno time %.6f (%.6f -> %.6f)", t_acc, cap[0], cap[4]);
    CHECK(sw.q[PL_Q_LIMIT_SUP_Q].conv.rate > 0.8, "sup |q_h - q| ~ h^%.3f", sw.q[PL_Q_LIMIT_SUP_Q].conv.rate);
    printf("  moreau_jean h-sweep, e = 0.8: first impact time rate %.3f, impact velocity rate %.3f, capture %.6f "
           "(Zeno %.6f) at h = 3e-5\n", ti->rate, vi->rate, cap[4], t_acc);
    pl_sweep_free(&sw);
}

/* ---- failures --------------------------------------------------------------------------------- */

/* A constraint that can never hold (G = -1 - t whatever q): the LCP of every scheme is infeasible. */
static void never_initial(const double *p, double *q, double *v)
{
    (void)p;
    q[0] = 0.0, v[0] = 0.0;
}

static void never_accel(const double *p, double t, const double *q, const double *v, const double *u, double *a,
                        double *a_q, double *a_v)
{
    (void)p, (void)t, (void)q, (void)v, (void)u;
    a[0] = 0.0;
    if (a_q)
        a_q[0] = 0.0;
    if (a_v)
        a_v[0] = 0.0;
}

static void never_gap(const double *p, size_t i, double t, const double *q, pl_gap *out)
{
    (void)p, (void)i, (void)q;
    out->g = -1.0 - t;
    out->g_t = -1.0;
}

static void never_scales(const double *p, double *v, double *a)
{
    (void)p;
    *v = *a = 1.0;
}

static const pl_param_spec never_params[] = {PL_LAW_PARAMS(0.0)};

static const pl_case never_case = {.name = "never", .summary = "an impossible constraint", .ndof = 1, .ncon = 1,
                                   .params = never_params, .nparams = 3, .t_end = 1.0,
                                   .initial_state = never_initial, .accel = never_accel, .gap = never_gap,
                                   .scales = never_scales};

static void test_failures(void)
{
    pl_model m;
    pl_error err;
    CHECK(pl_model_init(&m, &never_case, NULL, 0, &err) == PL_OK, "model: %s", err.message);
    for (size_t k = 0; k < 3; k++) {
        pl_solution sol;
        pl_status st = solve_scheme(schemes[k], &m, 0.1, 1.0, &sol, &err);
        CHECK(st == PL_ERR_SOLVER && sol.status == PL_ERR_SOLVER, "%s: an infeasible LCP is a solver failure (%d)",
              schemes[k]->name, st);
        CHECK(strstr(sol.error.message, "step 0 at t = ") && strstr(sol.error.message, "info"),
              "%s: the failure names the step, the time and Siconos's info: %s", schemes[k]->name, sol.error.message);
        pl_solution_free(&sol);
    }
    /* Inelastic schemes refuse a case with restitution, naming the fix. */
    pl_model_init(&m, &pl_case_bouncing_ball, NULL, 0, &err);
    pl_solution sol;
    CHECK(solve_scheme(&pl_solver_paoli, &m, 0.01, 1.0, &sol, &err) == PL_ERR_INPUT && strstr(err.message, "--set e=0"),
          "paoli refuses e = 0.9: %s", err.message);
    pl_solution_free(&sol);
    CHECK(solve_scheme(&pl_solver_moreau_jean, &m, 2.0, 1.0, &sol, &err) == PL_ERR_INPUT &&
              strstr(err.message, "exceeds t-end"),
          "h > t-end is bad input: %s", err.message);
    pl_solution_free(&sol);
}

int main(void)
{
    check_init();
    test_siconos();
    test_inelastic_ball();
    test_table();
    test_wedge();
    test_zeno_sweep();
    test_failures();
    return check_finish("test_schemes");
}
