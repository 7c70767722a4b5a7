/* The time-stepping schemes against the reference runs of Siconos, closed forms and their own
 * theorems: Moreau-Jean reproduces Siconos step by step; the inelastic ball lands at sqrt(2 h0/g)
 * and rests; the vibrating table's lift-off and landing converge to the closed forms; the wedge's
 * corner outcomes (the rigid inelastic law); Paoli's reaction lies in the normal cone (Lemma 1); the
 * kinetic energy never increases without forces; Maury's iterates are exactly admissible
 * (Prop. 2.1); an h-sweep of Moreau-Jean converges to the Zeno time; an infeasible LCP is a
 * reported failure. */
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "solve.h"
#include "study/analysis.h"
#include "solvers/schemes/scheme.h"
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
    pl_model_free(&m);
    pl_setting wedge[] = {{"m", 0.5}, {"q1", 1.0}, {"q2", 1.01}, {"v1", -1.0}, {"v2", -1.0},
                          {"f1", 0.0}, {"f2", -1.0}, {"e", 0.5}};
    if (run_scheme(&pl_solver_moreau_jean, &pl_case_wedge, wedge, 8, 0.001, 3.0, &m, &sol) == PL_OK)
        compare_reference("siconos_mj_wedge.dat", &sol, 2, 2);
    pl_solution_free(&sol);
    pl_model_free(&m);
}

/* ---- the inelastic ball ------------------------------------------------------------------------ */

static void test_inelastic_ball(void)
{
    double g = 3.7, h0 = 0.8, t_star = sqrt(2 * h0 / g); /* not the case's defaults */
    pl_setting s[] = {{"g", g}, {"h0", h0}, {"e", 0.0}};
    const double hs[] = {0.01, 0.0023};
    for (size_t k = 0; k < 3; k++)
        for (int j = 0; j < 2; j++) {
            double h = hs[j]; /* h_used = 2/870 for 0.0023: the run ends at t = 2 */
            pl_model m;
            pl_solution sol;
            pl_error err;
            if (run_scheme(schemes[k], &pl_case_bouncing_ball, s, 3, h, 2.0, &m, &sol) != PL_OK) {
                pl_solution_free(&sol);
                pl_model_free(&m);
                continue;
            }
            pl_analysis a;
            pl_analyze(&m, &sol, &a, &err);
            const char *name = schemes[k]->name;
            CHECK_NEAR(sol.step_size, 2.0 / ceil(2.0 / h), 1e-16, "the step that ends the run at t-end");
            h = sol.step_size;
            CHECK(a.impacts == 1, "%s h=%g: one impact (%zu)", name, h, a.impacts);
            CHECK(fabs(a.first_impact_time - t_star) <= h, "%s h=%g: lands at %.6f, within h of t* = %.6f", name, h,
                  a.first_impact_time, t_star);
            CHECK(a.restitution_first == 0.0, "%s: inelastic (restitution %g)", name, a.restitution_first);
            CHECK(fabs(a.capture_time - a.first_impact_time) <= 1.5 * h, "%s: captured at the landing", name);
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
            pl_model_free(&m);
        }
}

/* ---- the vibrating table ------------------------------------------------------------------------ */

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
                pl_model_free(&m);
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
            pl_model_free(&m);
        }
        CHECK(err_off[1] < err_off[0] && err_land[1] < err_land[0], "%s: lift-off and landing converge (%g -> %g, "
              "%g -> %g)", schemes[k]->name, err_off[0], err_off[1], err_land[0], err_land[1]);
        printf("  %s on the table: lift-off error %.2g -> %.2g, landing error %.2g -> %.2g for h = 1e-3 -> 1e-4\n",
               schemes[k]->name, err_off[0], err_off[1], err_land[0], err_land[1]);
    }
}

/* ---- the wedge's corner, invariants -------------------------------------------------------------- */

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
                    pl_model_free(&m);
                    continue;
                }
                /* The rigid inelastic law (wall maps v+ = (0, v2 + m v1) and (v1 + m v2, 0), the corner
                 * stopping an approach from inside the wedge): m >= 0 stops at the corner; m < 0 from
                 * (1, 1.01) hits q1 = 0 with v+ = (0, -0.5), slides into the corner and leaves along
                 * q2 = 0 with (0.25, 0); symmetrically from (1.01, 1); from (1, 1) it stops. */
                double want[2] = {0.0, 0.0};
                if (mc < 0 && d == 1)
                    want[0] = 0.25;
                if (mc < 0 && d == 2)
                    want[1] = 0.25;
                char what[128];
                snprintf(what, sizeof what, "%s corner m=%g q0=(%g,%g)", schemes[k]->name, mc, q1, q2);
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
                pl_model_free(&m);
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
    /* The first impact time: where the trajectory reaches the floor, O(h^2) after a penetration,
     * else the start of the impact step, O(h): within h/2 at every h. */
    CHECK(ti->reference == PL_REF_EXACT, "first impact time against the closed form");
    for (int k = 0; k < 5; k++)
        CHECK(fabs(sw.q[PL_Q_FIRST_IMPACT_TIME].errors[k]) <= 0.5 * h[k], "first impact time within h/2 (h = %g: %g)",
              h[k], sw.q[PL_Q_FIRST_IMPACT_TIME].errors[k]);
    CHECK(vi->rate > 0.8 && vi->rate < 1.2, "post-impact velocities ~ h^%.3f", vi->rate);
    const double *cap = sw.q[PL_Q_CAPTURE_TIME].values;
    CHECK(fabs(cap[4] - t_acc) < 2e-3 && fabs(cap[4] - t_acc) < fabs(cap[0] - t_acc),
          "the discrete capture time tends to the Zeno time %.6f (%.6f -> %.6f)", t_acc, cap[0], cap[4]);
    CHECK(sw.q[PL_Q_LIMIT_SUP_Q].conv.rate > 0.8, "sup |q_h - q| ~ h^%.3f", sw.q[PL_Q_LIMIT_SUP_Q].conv.rate);
    printf("  moreau_jean h-sweep, e = 0.8: first impact time rate %.3f, impact velocity rate %.3f, capture %.6f "
           "(Zeno %.6f) at h = 3e-5\n", ti->rate, vi->rate, cap[4], t_acc);
    pl_sweep_free(&sw);
    pl_model_free(&m);
}

/* ---- a spring: Moreau-Jean's iteration matrix ------------------------------------------------- */

/* q'' = -w^2 q - c q' far from its constraint (G = q + 10). */
enum { SP_W, SP_C, SP_E, SP_XI, SP_K, SP_N };
static const pl_param_spec spring_params[SP_N] = {
    {"w", 3.0, 0.0, INFINITY, 0, "angular frequency"}, {"damping", 0.0, 0.0, INFINITY, 0, "damping"}, PL_LAW_PARAMS(0.0)};

static void spring_initial(const double *p, double *q, double *v, void *user)
{
    (void)p, (void)user;
    q[0] = 1.0, v[0] = 0.0;
}

static void spring_accel(const double *p, double t, const double *q, const double *v, const double *u, double *a,
                         double *a_q, double *a_v, void *user)
{
    (void)t, (void)u, (void)user;
    a[0] = -p[SP_W] * p[SP_W] * q[0] - p[SP_C] * v[0];
    if (a_q)
        a_q[0] = -p[SP_W] * p[SP_W];
    if (a_v)
        a_v[0] = -p[SP_C];
}

static void spring_gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    (void)p, (void)i, (void)t, (void)user;
    out->g = q[0] + 10.0;
    out->grad[0] = 1.0;
}

static void spring_scales(const double *p, double *v, double *a, void *user)
{
    (void)user;
    *v = p[SP_W], *a = p[SP_W] * p[SP_W];
}

static const pl_case spring_case = {.abi_version = PL_ABI_VERSION, .name = "spring", .summary = "an oscillator", .ndof = 1, .ncon = 1,
                                    .params = spring_params, .nparams = SP_N, .t_end = 10.0,
                                    .initial_state = spring_initial, .accel = spring_accel, .gap = spring_gap,
                                    .scales = spring_scales};

/* With forces that depend on the state the iteration matrix W = 1 + h theta c + h^2 theta^2 w^2 is
 * not the identity.  theta = 1/2 is then the trapezoidal rule, which keeps the energy
 * (v^2 + w^2 q^2)/2 of the undamped oscillator exactly and has the phase error w^3 h^2 t/12;
 * theta = 1 loses energy at every step. */
static void test_spring(void)
{
    pl_model m;
    pl_error err;
    CHECK(pl_model_init(&m, &spring_case, NULL, 0, &err) == PL_OK, "model: %s", err.message);
    const char *names[] = {"h", "theta"};
    double w = 3.0, h = 1e-3, values[] = {h, 0.5};
    pl_solution sol;
    if (solve_with(&pl_solver_moreau_jean, &m, 10.0, 0, names, values, 2, &sol, &err) == PL_OK) {
        double worst = 0.0;
        for (size_t r = 0; r < sol.traj.nrows; r++) {
            const double *x = pl_table_row(&sol.traj, r);
            double E = 0.5 * (x[3] * x[3] + w * w * x[2] * x[2]);
            worst = fmax(worst, fabs(E - 0.5 * w * w));
        }
        CHECK(worst <= 1e-12 * w * w, "theta = 1/2 keeps the energy (off by %g)", worst);
        double phase = atan2(-sol.v_final[0] / w, sol.q_final[0]) - w * 10.0;
        phase = remainder(phase, 2 * M_PI);
        CHECK_NEAR(phase, -w * w * w * h * h * 10.0 / 12.0, 1e-6, "phase error w^3 h^2 t/12 of the trapezoidal rule");
    }
    pl_solution_free(&sol);
    values[1] = 1.0;
    if (solve_with(&pl_solver_moreau_jean, &m, 10.0, 0, names, values, 2, &sol, &err) == PL_OK) {
        double prev = INFINITY;
        int falls = 1;
        for (size_t r = 0; r < sol.traj.nrows; r++) {
            const double *x = pl_table_row(&sol.traj, r);
            double E = 0.5 * (x[3] * x[3] + w * w * x[2] * x[2]);
            falls &= E < prev;
            prev = E;
        }
        CHECK(falls, "theta = 1 dissipates at every step");
    }
    pl_solution_free(&sol);
    pl_model_free(&m);
}

/* ---- a curved constraint: Paoli's projection ----------------------------------------------------- */

/* A particle inside the unit circle, no force: G = 1 - x^2 - y^2 >= 0, from (0, 0.6) with (1, 0).
 * It reaches the circle at t = 0.8 at (0.8, 0.6); the inelastic law keeps the tangential velocity
 * (0.36, -0.48); it then slides along the circle at speed 0.6. */
static void cup_initial(const double *p, double *q, double *v, void *user)
{
    (void)p, (void)user;
    q[0] = 0.0, q[1] = 0.6, v[0] = 1.0, v[1] = 0.0;
}

static void cup_accel(const double *p, double t, const double *q, const double *v, const double *u, double *a,
                      double *a_q, double *a_v, void *user)
{
    (void)p, (void)t, (void)q, (void)v, (void)u, (void)user;
    a[0] = a[1] = 0.0;
    if (a_q)
        memset(a_q, 0, 4 * sizeof *a_q);
    if (a_v)
        memset(a_v, 0, 4 * sizeof *a_v);
}

static void cup_gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    (void)p, (void)i, (void)t, (void)user;
    out->g = 1.0 - q[0] * q[0] - q[1] * q[1];
    out->grad[0] = -2.0 * q[0], out->grad[1] = -2.0 * q[1];
    out->hess[0] = out->hess[3] = -2.0;
}

static void cup_scales(const double *p, double *v, double *a, void *user)
{
    (void)user;
    (void)p;
    *v = *a = 1.0;
}

static const pl_param_spec cup_params[] = {PL_LAW_PARAMS(0.0)};
static const pl_case cup_case = {.abi_version = PL_ABI_VERSION, .name = "cup", .summary = "a particle in a circle", .ndof = 2, .ncon = 1,
                                 .params = cup_params, .nparams = 3, .t_end = 2.0, .initial_state = cup_initial,
                                 .accel = cup_accel, .gap = cup_gap, .scales = cup_scales};

static void test_cup(void)
{
    pl_model m;
    pl_error err;
    CHECK(pl_model_init(&m, &cup_case, NULL, 0, &err) == PL_OK, "model: %s", err.message);
    const double hs[] = {1e-3, 1e-4};
    for (int j = 0; j < 2; j++) {
        double h = hs[j];
        pl_solution sol;
        if (solve_scheme(&pl_solver_paoli, &m, h, 2.0, &sol, &err) != PL_OK) {
            CHECK(0, "paoli in the cup: %s", err.message);
            pl_solution_free(&sol);
            continue;
        }
        CHECK(sol.nevents >= 1, "an impact");
        if (sol.nevents >= 1) {
            const pl_event *e = &sol.events[0];
            CHECK(fabs(e->t - 0.8) <= h, "paoli h=%g: impact at %.6f (0.8)", h, e->t);
            CHECK(fabs(e->v_after[0] - 0.36) <= 2 * h && fabs(e->v_after[1] + 0.48) <= 2 * h,
                  "paoli h=%g: v+ = (%.5f, %.5f), (0.36, -0.48)", h, e->v_after[0], e->v_after[1]);
        }
        /* After the impact: on the circle (the projection converged), at speed 0.6. */
        double worst_g = 0.0, worst_speed = 0.0;
        for (size_t r = 0; r < sol.traj.nrows; r++) {
            const double *x = pl_table_row(&sol.traj, r);
            if (x[0] < 0.8 + 3 * h)
                continue;
            worst_g = fmax(worst_g, fabs(x[pl_col_g(2, 1)]));
            worst_speed = fmax(worst_speed, fabs(hypot(x[4], x[5]) - 0.6));
        }
        CHECK(worst_g <= 1e-12, "paoli h=%g: on the circle (|G| <= %g)", h, worst_g);
        CHECK(worst_speed <= 2 * h, "paoli h=%g: speed 0.6 along it (off by %g)", h, worst_speed);
        CHECK(sol.stats.lcp_solves > sol.stats.steps, "the curved projection takes more than one LCP per step");
        printf("  paoli in the cup, h = %g: %ld steps, %ld LCPs, |G| <= %.2g on the circle, speed off by %.2g\n", h,
               sol.stats.steps, sol.stats.lcp_solves, worst_g, worst_speed);
        pl_solution_free(&sol);
    }
    pl_model_free(&m);
}

/* ---- bookkeeping: two walls in consecutive steps, round-off impulses ----------------------------- */

static void test_bookkeeping(void)
{
    /* Wall 1 at t = 1, wall 2 at t = 1 + 0.015/1.5 = 1.01: two impacts, each of its constraint. */
    pl_model m;
    pl_solution sol;
    pl_setting s[] = {{"q2", 1.015}, {"e", 0.0}};
    if (run_scheme(&pl_solver_moreau_jean, &pl_case_wedge, s, 2, 0.01, 2.0, &m, &sol) == PL_OK) {
        CHECK(sol.nevents == 2 && sol.events[0].constraint == 0 && sol.events[1].constraint == 1,
              "two impacts, walls 1 and 2 (%zu events)", sol.nevents);
        if (sol.nevents == 2)
            CHECK(fabs(sol.events[0].t - 1.0) <= 0.01 && fabs(sol.events[1].t - 1.01) <= 0.01,
                  "at 1 and 1.01 (%g, %g)", sol.events[0].t, sol.events[1].t);
    }
    pl_solution_free(&sol);
    pl_model_free(&m);
    /* The symmetric corner: a landing over two steps, then rest without force; the projections
     * leave impulses of round-off size, which are no contact (no lift-off, two impact episodes). */
    pl_setting c[] = {{"e", 0.0}};
    for (size_t k = 0; k < 3; k++) {
        if (run_scheme(schemes[k], &pl_case_wedge, c, 1, 0.007, 3.0, &m, &sol) != PL_OK) {
            pl_solution_free(&sol);
            pl_model_free(&m);
            continue;
        }
        pl_analysis a;
        pl_error err;
        pl_analyze(&m, &sol, &a, &err);
        CHECK(isnan(a.lift_off_first) && a.impacts == 1, "%s at the corner: one impact, no lift-off (%g)",
              schemes[k]->name, a.lift_off_first);
        for (size_t e = 0; e < sol.nepisodes; e++)
            CHECK(a.info[e].kind == PL_IMPACT, "%s: episode %zu is an impact", schemes[k]->name, e + 1);
        pl_analysis_free(&a);
        pl_solution_free(&sol);
        pl_model_free(&m);
    }
}

/* ---- failures --------------------------------------------------------------------------------- */

/* A constraint that stops holding at t = 0.05 whatever q (G = 0.05 - t): from there the LCP of
 * every scheme is infeasible. */
static void never_initial(const double *p, double *q, double *v, void *user)
{
    (void)p, (void)user;
    q[0] = 0.0, v[0] = 0.0;
}

static void never_accel(const double *p, double t, const double *q, const double *v, const double *u, double *a,
                        double *a_q, double *a_v, void *user)
{
    (void)p, (void)t, (void)q, (void)v, (void)u, (void)user;
    a[0] = 0.0;
    if (a_q)
        a_q[0] = 0.0;
    if (a_v)
        a_v[0] = 0.0;
}

static void never_gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    (void)p, (void)i, (void)q, (void)user;
    out->g = 0.05 - t;
    out->g_t = -1.0;
}

static void never_scales(const double *p, double *v, double *a, void *user)
{
    (void)user;
    (void)p;
    *v = *a = 1.0;
}

static const pl_param_spec never_params[] = {PL_LAW_PARAMS(0.0)};

static const pl_case never_case = {.abi_version = PL_ABI_VERSION, .name = "never", .summary = "an impossible constraint", .ndof = 1, .ncon = 1,
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
        CHECK(strstr(sol.error.message, "step ") && strstr(sol.error.message, " from t = ") &&
                  strstr(sol.error.message, "info"),
              "%s: the failure names the step, the time and Siconos's info: %s", schemes[k]->name, sol.error.message);
        pl_solution_free(&sol);
    }
    pl_model_free(&m);
    /* An inadmissible start is bad input (the projection would launch it at -G/h). */
    pl_setting bad[] = {{"q1", -0.1}};
    pl_model_init(&m, &pl_case_wedge, bad, 1, &err);
    for (size_t k = 0; k < 3; k++) {
        pl_solution sol;
        CHECK(solve_scheme(schemes[k], &m, 0.01, 1.0, &sol, &err) == PL_ERR_INPUT && strstr(err.message, "violates"),
              "%s refuses an inadmissible start: %s", schemes[k]->name, err.message);
        pl_solution_free(&sol);
    }
    pl_model_free(&m);
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
    /* named as given: %g printed "h = 1 exceeds t-end = 1" */
    CHECK(solve_scheme(&pl_solver_moreau_jean, &m, 1.0000001, 1.0, &sol, &err) == PL_ERR_INPUT &&
              strstr(err.message, "h = 1.0000001 exceeds t-end = 1"),
          "h just above t-end is named as given: %s", err.message);
    pl_solution_free(&sol);
    pl_model_free(&m);
}

/* The ends of the wedge's range |m| <= 1 - 1e-6 (docs/cases.md): every scheme stops the symmetric
 * corner approach (the rigid inelastic law) to round-off, Paoli's projection within 0.2 eps/(1 - m) =
 * 4e-11 of the speed; the one-wall map (0, v2 + m v1) from v = (-1, 0); and a value past the cap is
 * refused with its reason.  At m = 0.9999999999999999 Paoli once restituted 0.953 of the speed. */
static void test_wedge_range(void)
{
    const double ms[] = {0.999999, -0.999999};
    for (size_t k = 0; k < 3; k++)
        for (int im = 0; im < 2; im++) {
            pl_setting corner[] = {{"m", ms[im]}, {"e", 0.0}};
            pl_setting wall[] = {{"m", ms[im]}, {"e", 0.0}, {"q2", 3.0}, {"v2", 0.0}};
            pl_model m;
            pl_solution sol;
            char what[128];
            if (run_scheme(schemes[k], &pl_case_wedge, corner, 2, 1e-3, 3.0, &m, &sol) == PL_OK) {
                snprintf(what, sizeof what, "%s: the corner stops the mass, m = %g", schemes[k]->name, ms[im]);
                CHECK_NEAR(sol.v_final[0], 0.0, 1e-9, what);
                CHECK_NEAR(sol.v_final[1], 0.0, 1e-9, what);
            }
            pl_solution_free(&sol);
            pl_model_free(&m);
            if (run_scheme(schemes[k], &pl_case_wedge, wall, 4, 1e-3, 3.0, &m, &sol) == PL_OK) {
                snprintf(what, sizeof what, "%s: one-wall map, m = %g", schemes[k]->name, ms[im]);
                CHECK_NEAR(sol.v_final[0], 0.0, 1e-9, what);
                CHECK_NEAR(sol.v_final[1], -ms[im], 1e-9, what);
            }
            pl_solution_free(&sol);
            pl_model_free(&m);
        }
    const double beyond[] = {0.9999999, -0.9999999, 0.9999999999999999};
    for (int k = 0; k < 3; k++) {
        pl_setting s[] = {{"m", beyond[k]}};
        pl_model m;
        pl_error err;
        CHECK(pl_model_init(&m, &pl_case_wedge, s, 1, &err) == PL_ERR_INPUT && strstr(err.message, "[-0.999999, 0.999999]") &&
                  strstr(err.message, "condition number"),
              "m = %.17g refused with the reason: %s", beyond[k], err.message);
    }
}

/* ---- stored rows ------------------------------------------------------------------------------ */

/* The row of sol at time t (its rows are steps k h), or NULL. */
static const double *row_at(const pl_solution *sol, double t)
{
    size_t lo = 0, hi = sol->traj.nrows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pl_table_row(&sol->traj, mid)[0] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < sol->traj.nrows && pl_table_row(&sol->traj, lo)[0] == t ? pl_table_row(&sol->traj, lo) : NULL;
}

/* Event-adaptive sampling (docs/methods.md, "Stored rows"), on the ball at h = 2e-4 with e = 0.8
 * and S = 40 rows per flight and per episode, against the same run with every step (samples 0):
 * the same episodes and events; each stored row is the dense run's row of its step, bit for bit;
 * the rows around each episode (before its first impulse, its first, its last, after it), around
 * each impact and the last are stored; and there are at most 2 + 4 E + 3 I rows the events need
 * plus S per flight and per episode (E episodes, I impacts, E + 1 flights at most). */
static void test_stored_rows(void)
{
    pl_model m;
    pl_error err;
    pl_setting ball[] = {{"e", 0.8}};
    CHECK(pl_model_init(&m, &pl_case_bouncing_ball, ball, 1, &err) == PL_OK, "model: %s", err.message);
    const char *names[] = {"h"};
    double h = 2e-4, t_end = 6.0;
    size_t S = 40;
    pl_solution dense, thin;
    pl_status sd = solve_with(&pl_solver_moreau_jean, &m, t_end, 0, names, &h, 1, &dense, &err);
    CHECK(sd == PL_OK, "every step: %s", err.message);
    pl_status st = solve_with(&pl_solver_moreau_jean, &m, t_end, S, names, &h, 1, &thin, &err);
    CHECK(st == PL_OK, "sampled: %s", err.message);
    if (sd == PL_OK && st == PL_OK) {
        size_t steps = (size_t)pl_scheme_steps(t_end, h), E = dense.nepisodes, I = dense.nevents;
        CHECK(dense.traj.nrows == steps + 1, "samples 0: every step stored (%zu rows)", dense.traj.nrows);
        size_t bound = 2 + 4 * E + 3 * I + S * (2 * E + 1);
        CHECK(thin.traj.nrows <= bound && thin.traj.nrows < dense.traj.nrows / 4,
              "%zu rows stored of %zu steps, at most %zu (E = %zu, I = %zu)", thin.traj.nrows, steps, bound, E, I);
        printf("  ball, h = %g: %zu rows of %zu steps (bound %zu; %zu episodes, %zu impacts)\n", h,
               thin.traj.nrows, steps + 1, bound, E, I);
        CHECK(E > 10 && thin.nepisodes == E && thin.nevents == I, "the same %zu episodes (%zu) and %zu events (%zu)",
              E, thin.nepisodes, I, thin.nevents);
        size_t n = m.n, ncol = pl_ncols(n, m.m), bad = 0, missing = 0;
        for (size_t r = 0; r < thin.traj.nrows; r++) {
            const double *x = pl_table_row(&thin.traj, r), *y = row_at(&dense, x[0]);
            bad += !y || memcmp(x, y, ncol * sizeof *x) != 0;
        }
        CHECK(bad == 0, "every stored row is the dense run's row of its step (%zu are not)", bad);
        for (size_t k = 0; k < E && k < thin.nepisodes; k++) {
            const pl_episode *a = &dense.episodes[k], *b = &thin.episodes[k];
            CHECK(a->t_in == b->t_in && (a->t_out == b->t_out || (isnan(a->t_out) && isnan(b->t_out))) &&
                      a->impulse == b->impulse && a->steps == b->steps,
                  "episode %zu the same", k + 1);
            CHECK(pl_table_row(&thin.traj, b->row_in)[0] == pl_table_row(&dense.traj, a->row_in)[0] &&
                      pl_table_row(&thin.traj, b->row_out)[0] == pl_table_row(&dense.traj, a->row_out)[0],
                  "episode %zu: row_in and row_out at the same steps", k + 1);
            size_t around[] = {a->row_in, a->row_in + 1, a->row_out, a->row_out + 1};
            for (size_t j = 0; j < 4; j++)
                missing += around[j] < dense.traj.nrows && !row_at(&thin, pl_table_row(&dense.traj, around[j])[0]);
        }
        for (size_t k = 0; k < I && k < thin.nevents; k++) {
            CHECK(dense.events[k].t == thin.events[k].t, "event %zu at the same time", k + 1);
            /* the impact's step: the first with an impulse after its time (which may lie a step
             * before); its row, and the two before it, which timed the impact */
            size_t r = (size_t)floor(dense.events[k].t / h) + 1;
            while (r + 1 < dense.traj.nrows && pl_solution_force_at(&dense, r, 0) == 0.0)
                r++;
            for (size_t j = r - 2; j <= r; j++)
                missing += !row_at(&thin, pl_table_row(&dense.traj, j)[0]);
        }
        CHECK(missing == 0, "every row around an episode or an impact stored (%zu missing)", missing);
        CHECK(pl_table_row(&thin.traj, thin.traj.nrows - 1)[0] == t_end, "the last row is t-end");
    }
    pl_solution_free(&dense);
    pl_solution_free(&thin);
    pl_model_free(&m);
}

int main(void)
{
    check_init();
    test_siconos();
    test_inelastic_ball();
    test_table();
    test_wedge();
    test_wedge_range();
    test_zeno_sweep();
    test_spring();
    test_cup();
    test_bookkeeping();
    test_failures();
    test_stored_rows();
    return check_finish("test_schemes");
}
