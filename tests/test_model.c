/* Unit tests of parameters, the contact law, the model layer and the penalized vector field:
 * the analytic Jacobian against central differences, the free gap acceleration D against a
 * directional derivative of Gdot along the smooth flow. */
#include <float.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "solvers/penalty/penalized.h"
#include "synthetic_model.h"

static void test_numbers(void)
{
    pl_error err;
    double x;
    CHECK(pl_parse_double("1e8", &x, &err, "mu") == PL_OK && x == 1e8, "parse 1e8");
    CHECK(pl_parse_double("-0.5", &x, &err, "v0") == PL_OK && x == -0.5, "parse -0.5");
    const char *bad[] = {"", "abc", "1e", "1.0x", "nan", "NaN", "inf", "-inf", "1e999", " "};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        CHECK(pl_parse_double(bad[k], &x, &err, "mu") == PL_ERR_INPUT, "'%s' must be rejected", bad[k]);
    pl_setting s;
    CHECK(pl_setting_parse("e=0.5", &s, &err) == PL_OK && strcmp(s.name, "e") == 0 && s.value == 0.5,
          "parse e=0.5");
    CHECK(pl_setting_parse("e", &s, &err) == PL_ERR_INPUT, "missing '=' rejected");
    CHECK(pl_setting_parse("=1", &s, &err) == PL_ERR_INPUT, "missing name rejected");
    CHECK(pl_setting_parse("e=", &s, &err) == PL_ERR_INPUT, "missing value rejected");
    CHECK(pl_setting_parse("e=nan", &s, &err) == PL_ERR_INPUT, "NaN value rejected");
}

static void test_restitution_map(void)
{
    /* Closed forms of e = exp(-pi xi/sqrt(1 - xi^2)): e = 0.9 <-> xi = 0.0335183, e = 0.5 <-> xi = 0.2154537. */
    CHECK_NEAR(pl_xi_from_restitution(0.9), 0.0335183, 5e-7, "xi(e = 0.9)"); /* 7 digits given */
    CHECK_NEAR(pl_xi_from_restitution(0.5), 0.2154537, 5e-7, "xi(e = 0.5)");
    CHECK(pl_xi_from_restitution(0.0) == 1.0, "e = 0 maps to critical damping");
    CHECK(pl_restitution_from_xi(1.0) == 0.0 && pl_restitution_from_xi(3.0) == 0.0, "xi >= 1 gives e = 0");
    CHECK(pl_restitution_from_xi(0.0) == 1.0, "xi = 0 gives e = 1");
    for (double e = 0.05; e < 1.0; e += 0.1)
        CHECK_NEAR(pl_restitution_from_xi(pl_xi_from_restitution(e)), e, 1e-14, "e(xi(e))");
}

static void test_model_init(void)
{
    pl_error err;
    pl_model m;
    for (size_t k = 0; k < pl_case_count(); k++) {
        const pl_case *c = pl_case_at(k);
        CHECK(pl_model_init(&m, c, NULL, 0, &err) == PL_OK, "case %s with defaults: %s", c->name, err.message);
        CHECK(pl_case_find(c->name) == c, "lookup of %s", c->name);
        for (size_t i = 0; i < m.m; i++)
            CHECK_NEAR(pl_restitution_from_xi(m.law[i].xi), pl_model_param(&m, "e"), 1e-14,
                       "law restitution matches e");
        pl_model_free(&m);
    }
    CHECK(pl_case_find("no_such_case") == NULL, "unknown case");

    const pl_case *ball = &pl_case_bouncing_ball;
    pl_setting s1[] = {{"e", 1.5}};
    CHECK(pl_model_init(&m, ball, s1, 1, &err) == PL_ERR_INPUT && strstr(err.message, "e = 1.5"),
          "e out of range: %s", err.message);
    pl_setting s2[] = {{"bogus", 1.0}};
    CHECK(pl_model_init(&m, ball, s2, 1, &err) == PL_ERR_INPUT && strstr(err.message, "bogus"),
          "unknown parameter: %s", err.message);
    pl_setting s3[] = {{"e", 0.5}, {"xi", 0.1}};
    CHECK(pl_model_init(&m, ball, s3, 2, &err) == PL_ERR_INPUT, "e and xi together rejected");
    pl_setting s4[] = {{"xi", 0.2154537}};
    CHECK(pl_model_init(&m, ball, s4, 1, &err) == PL_OK, "xi alone accepted");
    CHECK_NEAR(pl_model_param(&m, "e"), 0.5, 5e-7, "e derived from xi");
    pl_model_free(&m);
    pl_setting s5[] = {{"k", 0.0}};
    CHECK(pl_model_init(&m, ball, s5, 1, &err) == PL_ERR_INPUT, "k = 0 rejected (open bound)");
    pl_setting s6[] = {{"m", 1.0}};
    CHECK(pl_model_init(&m, &pl_case_wedge, s6, 1, &err) == PL_ERR_INPUT, "wedge m = 1 rejected");
    pl_setting s7[] = {{"g", 2.0}, {"g", 3.0}};
    CHECK(pl_model_init(&m, ball, s7, 2, &err) == PL_ERR_INPUT && strstr(err.message, "parameter g is set twice"),
          "a setting given twice is refused, not the last one kept: %s", err.message);
    pl_model_free(&m);
    pl_model_free(&m); /* harmless on an empty model */
    /* Scales that underflow are refused (the cup's A = v0^2 at v0 = 1e-200 was 0, and the run failed with
     * a step of 0); small ones that stay normal are not. */
    pl_setting s8[] = {{"v0", 1e-200}};
    CHECK(pl_model_init(&m, &pl_case_cup, s8, 1, &err) == PL_ERR_INPUT && strstr(err.message, "V = 1e-200") &&
              strstr(err.message, "underflow"),
          "cup v0 = 1e-200: %s", err.message);
    pl_setting s9[] = {{"v0", 1e-150}};
    CHECK(pl_model_init(&m, &pl_case_cup, s9, 1, &err) == PL_OK && isnormal(m.a_scale), "cup v0 = 1e-150 accepted");
    pl_model_free(&m);
}

/* Sizes from the parameters (the balls: n = m = N): refused when 0 or absurd, with the values in
 * the message; what the model allocates is sized from them. */
static void test_model_sizes(void)
{
    pl_error err;
    pl_model m;
    const pl_case *balls = &pl_test_case_balls;
    pl_setting zero[] = {{"N", 0.0}}, huge[] = {{"N", 40000.0}}, half[] = {{"N", 2.5}};
    CHECK(pl_model_init(&m, balls, zero, 1, &err) == PL_ERR_INPUT && strstr(err.message, "N = 0") &&
              strstr(err.message, "0 degrees of freedom") && !strchr(err.message, '\n'),
          "N = 0 refused naming it: %s", err.message);
    CHECK(m.law == NULL && m.minv == NULL, "nothing held after a refusal");
    CHECK(pl_model_init(&m, balls, huge, 1, &err) == PL_ERR_INPUT && strstr(err.message, "N = 40000") &&
              strstr(err.message, "40000 degrees of freedom"),
          "N = 40000 refused as absurd: %s", err.message);
    CHECK(pl_model_init(&m, balls, half, 1, &err) == PL_ERR_INPUT && strstr(err.message, "N = 2.5"),
          "N = 2.5 refused: %s", err.message);
    pl_model_free(&m);
    /* memory: the rule at a machine of 1 GB, nothing allocated to decide.  A dense model of 10000 dofs and
     * 9999 constraints: M^-1 and twenty-two n x n arrays, 23.5 x 8 n^2 = 188e8 bytes, and 1000 bytes a
     * constraint; a sparse one (the cradle of 10000 balls): one n x n array, 8e8, 1000 bytes a dof and a
     * constraint, 8.2e8 in all, under 1 GB where the dense one is 19 times over it */
    CHECK(pl_model_run_bytes(10000, 9999, 0) == 188e8 + 1000.0 * 9999, "dense run bytes %g",
          pl_model_run_bytes(10000, 9999, 0));
    CHECK(pl_model_run_bytes(10000, 9999, 1) == 8e8 + 1e7 + 1000.0 * 9999, "sparse run bytes %g",
          pl_model_run_bytes(10000, 9999, 1));
    CHECK(pl_model_run_bytes(4000, 2007000, 1) == 8.0 * 16e6 + 4e6 + 2.007e9, "2000 disks %g",
          pl_model_run_bytes(4000, 2007000, 1)); /* the spheres' box of 2000: its 2007000 constraints dominate */
    CHECK(pl_model_check_memory("cradle", 10000, 9999, 0, 1e9, &err) == PL_ERR_INPUT &&
              strstr(err.message, "1.88e+10 bytes") && strstr(err.message, "1e+09 bytes") &&
              strstr(err.message, "dense") && !strchr(err.message, '\n'),
          "dense N = 10000 refused at 1 GB naming the bytes: %s", err.message);
    CHECK(pl_model_check_memory("cradle", 10000, 9999, 1, 1e9, &err) == PL_OK, "sparse N = 10000 (0.82 GB) fits in 1 GB");
    CHECK(pl_model_check_memory("cradle", 20000, 19999, 1, 1e9, &err) == PL_ERR_INPUT &&
              strstr(err.message, "3.24e+09 bytes") && strstr(err.message, "one n x n array") && !strchr(err.message, '\n'),
          "sparse N = 20000 (3.24 GB) refused at 1 GB naming the bytes: %s", err.message);
    CHECK(pl_model_check_memory("cradle", 1000, 999, 0, 1e9, &err) == PL_OK, "dense N = 1000 (0.19 GB) fits in 1 GB");
    /* the spheres' 10000 disks: a constraint for each of the 49995000 pairs and 4 walls a disk, 5.33e10
     * bytes: refused on the 25 GB of a CI machine naming the bytes, run on 64 GB; 4000 disks (8.5e9) fit */
    CHECK(pl_model_run_bytes(20000, 50035000, 1) == 8.0 * 4e8 + 2e7 + 5.0035e10, "10000 disks %g",
          pl_model_run_bytes(20000, 50035000, 1));
    CHECK(pl_model_check_memory("spheres", 20000, 50035000, 1, 25e9, &err) == PL_ERR_INPUT &&
              strstr(err.message, "5.33e+10 bytes"),
          "10000 disks refused at 25 GB naming the bytes: %s", err.message);
    CHECK(pl_model_check_memory("spheres", 20000, 50035000, 1, 64e9, &err) == PL_OK, "10000 disks fit in 64 GB");
    CHECK(pl_model_check_memory("spheres", 8000, 8014000, 1, 25e9, &err) == PL_OK, "4000 disks fit in 25 GB");
    /* and the case asks for them: N up to 10000, whose constraints are not absurd; where the machine has
     * less than 53 GB the model is refused for its memory, before anything is allocated */
    pl_setting disks[] = {{"config", 3.0}, {"N", 10000.0}};
    if (pl_physical_memory() > 0.0 && pl_physical_memory() < 5.33e10)
        CHECK(pl_model_init(&m, &pl_case_spheres, disks, 2, &err) == PL_ERR_INPUT &&
                  strstr(err.message, "50035000 constraints need about 5.33e+10 bytes") &&
                  strstr(err.message, "physical memory") && !strchr(err.message, '\n'),
              "the spheres' 10000 disks refused for this machine's memory alone: %s", err.message);
    CHECK(pl_model_check_memory("cradle", 10000, 9999, 0, 0.0, &err) == PL_OK, "unknown memory: no check");
    CHECK(pl_physical_memory() == 0.0 || pl_model_check_memory("balls", 40, 40, 0, pl_physical_memory(), &err) == PL_OK,
          "40 balls fit: %s", err.message);
    const size_t sizes[] = {1, 3, 20, 40};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t N = sizes[k];
        pl_setting s[] = {{"N", (double)N}, {"k", 2.0}};
        CHECK(pl_model_init(&m, balls, s, 2, &err) == PL_OK, "N = %zu: %s", N, err.message);
        CHECK(m.n == N && m.m == N, "N = %zu: n = %zu, m = %zu", N, m.n, m.m);
        /* ball i: k_i = k (1 + i/N), e_i = e (1 - i/(2N)), M = diag(1 + i) kept inverted */
        for (size_t i = 0; i < m.m; i++) {
            CHECK_NEAR(m.law[i].k, 2.0 * (1.0 + (double)i / (double)N), 1e-15 * (double)N, "k_i");
            CHECK_NEAR(pl_restitution_from_xi(m.law[i].xi), 0.9 * (1.0 - 0.5 * (double)i / (double)N), 1e-14, "e_i");
        }
        CHECK(m.mass_constant, "N = %zu: constant mass", N);
        for (size_t i = 0; i < N; i++)
            for (size_t j = 0; j < N; j++)
                CHECK(i == j ? fabs(m.minv[i * N + j] * (1.0 + (double)i) - 1.0) <= 4 * DBL_EPSILON
                             : m.minv[i * N + j] == 0.0,
                      "M^-1[%zu][%zu] = %g", i, j, m.minv[i * N + j]);
        pl_model_free(&m);
    }
}

/* Central-difference Jacobian of the penalized field, compared entry by entry. */
static void check_jacobian(const pl_model *model, double mu, const int *active, double t,
                           const double *y, const char *label)
{
    size_t n = model->n, N = 2 * n;
    pl_error err;
    pl_penalized p;
    pl_forces fpl, fmi;
    double *J = malloc((N * N + 3 * N) * sizeof *J), *row_scale = J + N * N, *yp = row_scale + N, *ym = yp + N;
    CHECK(pl_penalized_init(&p, model, mu, &err) == PL_OK && pl_forces_init(&fpl, model, &err) == PL_OK &&
              pl_forces_init(&fmi, model, &err) == PL_OK && J,
          "%s: scratch", label);
    memcpy(p.active, active, model->m * sizeof *active);
    CHECK(pl_penalized_jacobian(&p, t, y, y + n, J) == 0, "%s: jacobian evaluates", label);
    memset(row_scale, 0, N * sizeof *row_scale);
    for (size_t row = 0; row < N; row++)
        for (size_t col = 0; col < N; col++)
            row_scale[row] = fmax(row_scale[row], fabs(J[row * N + col]));
    for (size_t col = 0; col < N; col++) {
        memcpy(yp, y, N * sizeof *y);
        memcpy(ym, y, N * sizeof *y);
        double h = 1e-6 * fmax(1.0, fabs(y[col]));
        yp[col] += h;
        ym[col] -= h;
        pl_penalized_forces(&p, t, yp, yp + n, &fpl);
        pl_penalized_forces(&p, t, ym, ym + n, &fmi);
        for (size_t row = 0; row < N; row++) {
            double dp = row < n ? fpl.fp[row] : fpl.a[row - n] + fpl.ac[row - n];
            double dm = row < n ? fmi.fp[row] : fmi.a[row - n] + fmi.ac[row - n];
            double fd = (dp - dm) / (2 * h);
            /* relative to the entry, with a floor for round-off in rows scaled by mu */
            double tol = 1e-6 * fabs(fd) + 1e-9 * row_scale[row] + 1e-12;
            CHECK(fabs(J[row * N + col] - fd) <= tol,
                  "%s: J[%zu][%zu] = %.10g, finite difference %.10g", label, row, col,
                  J[row * N + col], fd);
        }
    }
    pl_penalized_free(&p);
    pl_forces_free(&fpl);
    pl_forces_free(&fmi);
    free(J);
}

/* check_jacobian near model's initial state (off the boundary) with every contact active. */
static void check_jacobian_all_active(const pl_model *m, double mu, const char *label)
{
    double *yc = malloc(2 * m->n * sizeof *yc);
    int *all = malloc(m->m * sizeof *all);
    pl_model_initial_state(m, yc, yc + m->n);
    for (size_t j = 0; j < 2 * m->n; j++)
        yc[j] += 1e-3 * (double)(j + 1); /* off the boundary */
    for (size_t i = 0; i < m->m; i++)
        all[i] = 1;
    check_jacobian(m, mu, all, 0.3, yc, label);
    free(yc);
    free(all);
}

static void test_jacobians(void)
{
    pl_error err;
    pl_model m;
    const int both[] = {1, 1}, first[] = {1, 0}, none[] = {0, 0};
    CHECK(pl_model_init(&m, &pl_test_case_synthetic, NULL, 0, &err) == PL_OK, "synthetic: %s", err.message);
    double y[] = {0.3, 0.4, -0.2, 0.1};
    double y2[] = {0.9, -0.2, 0.5, -1.3};
    check_jacobian(&m, 1e4, both, 0.7, y, "synthetic, both active");
    check_jacobian(&m, 1e8, both, 2.1, y2, "synthetic mu=1e8");
    check_jacobian(&m, 1e6, first, 0.2, y2, "synthetic, one active");
    check_jacobian(&m, 1e6, none, 0.2, y2, "synthetic, flight");
    pl_model_free(&m);
    /* given by its force: dF_v/dq = M^{-1} (df/dq - dM/dq F_v) with a position-dependent M */
    CHECK(pl_model_init(&m, &pl_test_case_synthetic_force, NULL, 0, &err) == PL_OK, "synthetic_force: %s",
          err.message);
    check_jacobian(&m, 1e4, both, 0.7, y, "synthetic_force, both active");
    check_jacobian(&m, 1e6, first, 0.2, y2, "synthetic_force, one active");
    check_jacobian(&m, 1e6, none, 0.2, y2, "synthetic_force, flight");
    pl_model_free(&m);

    for (size_t k = 0; k < pl_case_count(); k++) {
        const pl_case *c = pl_case_at(k);
        pl_model_init(&m, c, NULL, 0, &err);
        check_jacobian_all_active(&m, 1e6, c->name);
        pl_model_free(&m);
    }
    /* At sizes from a parameter: the balls joined by springs (a tridiagonal df/dq, mass diag(1 + i)). */
    const double sizes[] = {1, 3, 20};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        pl_setting s[] = {{"N", sizes[k]}, {"kappa", 3.0}};
        char label[64];
        snprintf(label, sizeof label, "balls N = %g, kappa = 3", sizes[k]);
        CHECK(pl_model_init(&m, &pl_test_case_balls, s, 2, &err) == PL_OK, "%s: %s", label, err.message);
        check_jacobian_all_active(&m, 1e6, label);
        pl_model_free(&m);
    }
}

/* D = d/dt Gdot along q' = F_p, v' = F_v (paper 004 (37)), by central differences. */
/* D of every constraint of m at (t, q, v) against the directional derivative of its Gdot. */
static void check_free_gap_accel(const pl_model *m, double t, const double *q, const double *v, const char *label)
{
    size_t n = m->n;
    double h = 1e-6, gd[2];
    double *fp = malloc(7 * n * sizeof *fp), *a = fp + n, *qs = a + n, *vs = qs + n, *fps = vs + n;
    pl_work *w = pl_work_new(m);
    pl_contact *c = pl_contact_new(1, n, 0);
    pl_model_velocity_map(m, t, q, v, fp, NULL, NULL, NULL);
    pl_model_accel(m, w, t, q, v, a, NULL, NULL);
    for (size_t i = 0; i < m->m; i++) {
        for (int s = 0; s < 2; s++) {
            double sg = s ? -1.0 : 1.0;
            for (size_t j = 0; j < n; j++)
                qs[j] = q[j] + sg * h * fp[j], vs[j] = v[j] + sg * h * a[j];
            pl_model_velocity_map(m, t + sg * h, qs, vs, fps, NULL, NULL, NULL);
            pl_model_contact_at(m, w, i, t + sg * h, qs, fps, c);
            gd[s] = c->gdot;
        }
        CHECK_NEAR(pl_model_free_gap_accel(m, w, i, t, q, v), (gd[0] - gd[1]) / (2 * h), 1e-6, label);
    }
    free(fp);
    pl_work_free(w);
    free(c);
}

static void test_free_gap_accel(void)
{
    pl_error err;
    pl_model m;
    const pl_case *synth[] = {&pl_test_case_synthetic, &pl_test_case_synthetic_force};
    double q[] = {0.7, -0.3}, v[] = {0.4, 0.9}, t = 0.45;
    for (size_t cs = 0; cs < sizeof synth / sizeof synth[0]; cs++) {
        pl_model_init(&m, synth[cs], NULL, 0, &err);
        check_free_gap_accel(&m, t, q, v, synth[cs]->name);
        pl_model_free(&m);
    }
    /* At sizes from a parameter, springs on: D_i = f_i/(1 + i) at a state off the initial one. */
    const double sizes[] = {1, 3, 20};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        pl_setting s[] = {{"N", sizes[k]}, {"kappa", 3.0}};
        CHECK(pl_model_init(&m, &pl_test_case_balls, s, 2, &err) == PL_OK, "balls: %s", err.message);
        double *x = malloc(2 * m.n * sizeof *x);
        for (size_t j = 0; j < 2 * m.n; j++)
            x[j] = 0.3 + 0.1 * sin((double)j); /* neighbours at different heights: the springs pull */
        check_free_gap_accel(&m, t, x, x + m.n, "balls");
        free(x);
        pl_model_free(&m);
    }
    /* Vibrating table: D = -g + A omega^2 sin(omega t). */
    pl_model_init(&m, &pl_case_vibrating_table, NULL, 0, &err);
    pl_work *w = pl_work_new(&m);
    double qq = 0.1, vv = 0.2, A = 0.5, om = 2 * M_PI;
    CHECK_NEAR(pl_model_free_gap_accel(&m, w, 0, 0.3, &qq, &vv), -9.81 + A * om * om * sin(om * 0.3), 1e-12,
               "table D");
    pl_work_free(w);
    pl_model_free(&m);
}

/* A case giving its force f of M(q) v' = f: pl_model_accel against M^{-1} f in closed form. */
static void test_force_dynamics(void)
{
    pl_error err;
    pl_model m;
    /* Wedge, M = [[1, mc], [mc, 1]] constant: F_v = ((f1 - mc f2), (f2 - mc f1)) / (1 - mc^2), no Jacobian. */
    const double mcs[] = {0.5, -0.5, 0.9, -0.95};
    const double states[][4] = {{1.0, 1.0, -1.0, -1.0}, {0.0, 2.5, 0.3, -4.0}, {-0.2, 0.1, 7.0, 0.0}};
    for (size_t k = 0; k < sizeof mcs / sizeof mcs[0]; k++) {
        double f1 = 0.7 - 0.4 * (double)k, f2 = -1.3 + 0.25 * (double)k, mc = mcs[k], det = 1.0 - mc * mc;
        pl_setting s[] = {{"m", mc}, {"f1", f1}, {"f2", f2}};
        CHECK(pl_model_init(&m, &pl_case_wedge, s, 3, &err) == PL_OK, "wedge m = %g: %s", mc, err.message);
        pl_work *w = pl_work_new(&m);
        double exact[2] = {(f1 - mc * f2) / det, (f2 - mc * f1) / det};
        double scale = (fabs(f1) + fabs(mc * f2)) / det; /* the size of the terms, times 1/det */
        for (size_t st = 0; st < sizeof states / sizeof states[0]; st++) {
            double a[2], a_q[4], a_v[4];
            pl_model_accel(&m, w, 0.1 * (double)st, states[st], states[st] + 2, a, a_q, a_v);
            for (int j = 0; j < 2; j++)
                CHECK_NEAR(a[j], exact[j], 4e-15 * scale / det, "wedge F_v = M^-1 f"); /* ~16 eps x cond */
            for (int j = 0; j < 4; j++)
                CHECK(a_q[j] == 0.0 && a_v[j] == 0.0, "wedge dF_v/dq, dF_v/dv = 0 (entry %d: %g, %g)", j, a_q[j],
                      a_v[j]);
        }
        pl_work_free(w);
        pl_model_free(&m);
    }

    /* Synthetic, M(q) = [[2 + sin q1, 0.3 q2], [0.3 q2, 1.5 + q1^2]]: F_v by Cramer's rule. */
    CHECK(pl_model_init(&m, &pl_test_case_synthetic_force, NULL, 0, &err) == PL_OK, "synthetic_force: %s",
          err.message);
    const double ys[][4] = {{0.3, 0.4, -0.2, 0.1}, {0.9, -0.2, 0.5, -1.3}, {-1.1, 0.7, 2.0, 0.4}};
    pl_work *w = pl_work_new(&m);
    for (size_t st = 0; st < sizeof ys / sizeof ys[0]; st++) {
        const double *q = ys[st], *v = ys[st] + 2;
        double t = 0.3 + 0.5 * (double)st, u = sin(t);
        double f[2] = {-q[0] - 0.1 * v[0] * v[0] + u + 0.2 * q[1] * v[0] * v[1],
                       -2.0 + q[0] * v[1] - 0.1 * q[0] * v[0] * v[0]};
        double M00 = 2.0 + sin(q[0]), M01 = 0.3 * q[1], M11 = 1.5 + q[0] * q[0], det = M00 * M11 - M01 * M01;
        double exact[2] = {(M11 * f[0] - M01 * f[1]) / det, (M00 * f[1] - M01 * f[0]) / det}, a[2];
        pl_model_accel(&m, w, t, q, v, a, NULL, NULL);
        for (int j = 0; j < 2; j++)
            CHECK_NEAR(a[j], exact[j], 1e-14 * (fabs(exact[j]) + 1.0), "synthetic F_v = M(q)^-1 f");
    }
    pl_work_free(w);
    pl_model_free(&m);

    /* Exactly one of accel and force. */
    pl_case both = pl_test_case_synthetic_force, neither = pl_test_case_synthetic_force;
    both.accel = pl_test_case_synthetic.accel;
    neither.force = NULL;
    CHECK(pl_model_init(&m, &both, NULL, 0, &err) == PL_ERR_INPUT && strstr(err.message, "exactly one") &&
              strstr(err.message, "both"),
          "accel and force together rejected: %s", err.message);
    CHECK(pl_model_init(&m, &neither, NULL, 0, &err) == PL_ERR_INPUT && strstr(err.message, "exactly one") &&
              strstr(err.message, "neither"),
          "neither accel nor force rejected: %s", err.message);
}

/* A mass matrix diagonal at q (the polar cup, M = diag(1, r^2), given with dM/dq): F_v, its Jacobians
 * and M^-1 are GSL's Cholesky solve and inverse to the bit, M^-1's signed zeros too (the model factors
 * such a matrix entry by entry, with GSL's operations), and F_v is the closed form r'' = r theta'^2,
 * theta'' = -2 r' theta'/r; M not positive definite (r = 0) fails as GSL's factorization does. */
static void test_diagonal_mass(void)
{
    pl_error err;
    pl_model m;
    pl_setting s[] = {{"polar", 1.0}};
    CHECK(pl_model_init(&m, &pl_case_cup, s, 1, &err) == PL_OK, "polar cup: %s", err.message);
    pl_work *w = pl_work_new(&m);
    const double ys[][4] = {{0.37, 1.1, 0.9, -2.3}, {1.0, -0.4, -0.05, 0.7}, {2.9, 3.0, 1.7, 0.013},
                            {1e-3, 0.2, -4.0, 5e3}, {0.8123456789, -1.9, 0.3333, -0.6667}};
    for (size_t st = 0; st < sizeof ys / sizeof ys[0]; st++) {
        const double *q = ys[st], *v = ys[st] + 2;
        double t = 0.25 * (double)st, u[PL_MAX_INPUTS] = {0}, f[2], f_q[4], f_v[4], M[4], dM[4];
        pl_case_cup.force(m.par, t, q, v, u, f, f_q, f_v, pl_case_cup.user);
        pl_model_mass(&m, q, M, NULL);
        gsl_matrix_view L = gsl_matrix_view_array(M, 2, 2);
        CHECK(gsl_linalg_cholesky_decomp1(&L.matrix) == GSL_SUCCESS, "state %zu: M positive definite", st);
        double ref[2] = {f[0], f[1]};
        gsl_vector_view rv = gsl_vector_view_array(ref, 2);
        gsl_linalg_cholesky_svx(&L.matrix, &rv.vector);
        for (size_t k = 0; k < 2; k++) {
            gsl_vector_view col_v = gsl_vector_view_array_with_stride(f_v + k, 2, 2);
            gsl_linalg_cholesky_svx(&L.matrix, &col_v.vector);
            pl_model_mass_dq(&m, q, k, dM);
            for (size_t j = 0; j < 2; j++)
                for (size_t l = 0; l < 2; l++)
                    f_q[j * 2 + k] -= dM[j * 2 + l] * ref[l];
            gsl_vector_view col_q = gsl_vector_view_array_with_stride(f_q + k, 2, 2);
            gsl_linalg_cholesky_svx(&L.matrix, &col_q.vector);
        }
        double inv[4];
        memcpy(inv, M, sizeof inv);
        gsl_matrix_view I = gsl_matrix_view_array(inv, 2, 2);
        CHECK(gsl_linalg_cholesky_invert(&I.matrix) == GSL_SUCCESS, "state %zu: M inverted", st);
        double a[2], a_q[4], a_v[4], a2[2], minv_store[4];
        const double *minv = NULL;
        pl_model_accel(&m, w, t, q, v, a, a_q, a_v);
        CHECK(pl_model_accel_minv(&m, w, t, q, v, a2, minv_store, &minv) == 0 && minv, "state %zu: accel_minv", st);
        for (size_t j = 0; j < 2; j++)
            CHECK(a[j] == ref[j] && a2[j] == ref[j], "state %zu: F_v[%zu] %.17g, %.17g against GSL's %.17g", st, j,
                  a[j], a2[j], ref[j]);
        for (size_t j = 0; j < 4; j++)
            CHECK(a_q[j] == f_q[j] && a_v[j] == f_v[j] && minv && memcmp(&minv[j], &inv[j], sizeof inv[j]) == 0,
                  "state %zu, entry %zu: dF_v/dq %.17g (GSL %.17g), dF_v/dv %.17g (%.17g), M^-1 %.17g (%.17g)", st, j,
                  a_q[j], f_q[j], a_v[j], f_v[j], minv ? minv[j] : NAN, inv[j]);
        double r = q[0], rd = v[0], thd = v[1];
        CHECK_NEAR(a[0], r * thd * thd, 4 * DBL_EPSILON * fabs(r * thd * thd), "r'' = r theta'^2");
        CHECK_NEAR(a[1], -2.0 * rd * thd / r, 8 * DBL_EPSILON * fabs(2.0 * rd * thd / r), "theta'' = -2 r' theta'/r");
    }
    const double q0[2] = {0.0, 0.5}, v0[2] = {1.0, 1.0};
    double a[2], minv_store[4];
    const double *minv = NULL;
    CHECK(pl_model_accel_minv(&m, w, 0.0, q0, v0, a, minv_store, &minv) != 0 && isnan(a[0]) && isnan(a[1]),
          "r = 0: M = diag(1, 0) is not positive definite (%g, %g)", a[0], a[1]);
    pl_work_free(w);
    pl_model_free(&m);
}

static void test_effective_mass(void)
{
    /* Wedge: w_1 = M^{-1} e_1 = (1, -m)/(1 - m^2), m_1 = 1 - m^2. */
    pl_error err;
    pl_model m;
    pl_setting s[] = {{"m", -0.5}};
    pl_model_init(&m, &pl_case_wedge, s, 1, &err);
    double q[] = {0.0, 1.0}, fp[] = {0.0, 0.0};
    pl_work *w = pl_work_new(&m);
    pl_contact *c = pl_contact_new(1, m.n, 0);
    pl_model_contact_at(&m, w, 0, 0.0, q, fp, c);
    CHECK_NEAR(c->m_eff, 0.75, 1e-14, "wedge effective mass");
    CHECK_NEAR(c->w[0], 1.0 / 0.75, 1e-14, "wedge w1");
    CHECK_NEAR(c->w[1], 0.5 / 0.75, 1e-14, "wedge w2");
    pl_work_free(w);
    free(c);
    pl_model_free(&m);
}

/* The forces of a model of the simplest form (pl_penalized.simple: M constant, F_p = v, no supports)
 * come from forces_simple, which does the general path's operations without its layers: the two
 * paths give the same bits, under each law, in flight and in contact, at states no run visits. */
static void check_simple_forces(const pl_model *model, double mu, const char *label)
{
    size_t n = model->n, m = model->m;
    pl_error err;
    pl_penalized p;
    pl_forces fs, fg;
    CHECK(pl_penalized_init(&p, model, mu, &err) == PL_OK && pl_forces_init(&fs, model, &err) == PL_OK &&
              pl_forces_init(&fg, model, &err) == PL_OK,
          "%s: scratch", label);
    CHECK(p.simple, "%s: the simple path is taken", label);
    double *y = malloc(2 * n * sizeof *y);
    unsigned long r = 12345;
    for (size_t st = 0; st < 40 && y; st++) {
        pl_model_initial_state(model, y, y + n);
        for (size_t j = 0; j < 2 * n; j++) { /* near the initial state, into the constraints and out */
            r = r * 6364136223846793005UL + 1442695040888963407UL;
            y[j] += ((double)(r >> 11) / 9007199254740992.0 - 0.5) * (j < n ? 0.3 : 3.0);
        }
        for (size_t i = 0; i < m; i++)
            p.active[i] = st % 4 == 0 ? 0 : st % 4 == 1 ? 1 : (int)((st + i) % 2);
        double t = 0.37 * (double)st;
        p.simple = 1;
        int rs = pl_penalized_forces(&p, t, y, y + n, &fs);
        p.simple = 0;
        int rg = pl_penalized_forces(&p, t, y, y + n, &fg);
        int same = rs == rg && fs.minv == fg.minv && memcmp(fs.fp, fg.fp, n * sizeof *fs.fp) == 0 &&
                   memcmp(fs.a, fg.a, n * sizeof *fs.a) == 0 && memcmp(fs.ac, fg.ac, n * sizeof *fs.ac) == 0 &&
                   memcmp(fs.lambda, fg.lambda, m * sizeof *fs.lambda) == 0;
        CHECK(same, "%s, state %zu: forces of the simple path %.17g, %.17g against the general one's %.17g, %.17g",
              label, st, fs.a[0] + fs.ac[0], fs.lambda[0], fg.a[0] + fg.ac[0], fg.lambda[0]);
    }
    free(y);
    pl_forces_free(&fs);
    pl_forces_free(&fg);
    pl_penalized_free(&p);
}

static void test_simple_forces(void)
{
    const pl_law_type *laws[] = {&pl_law_kelvin_voigt, &pl_law_kelvin_voigt_clamped, &pl_law_hunt_crossley};
    const pl_case *cases[] = {&pl_case_bouncing_ball, &pl_case_vibrating_table, &pl_case_wedge, &pl_case_corner,
                              &pl_case_schatzman, &pl_case_disk};
    pl_error err;
    pl_model m;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (size_t l = 0; l < sizeof laws / sizeof laws[0]; l++) {
            char label[96];
            snprintf(label, sizeof label, "%s under %s", cases[k]->name, laws[l]->name);
            pl_setting s[] = {{"m", -0.5}, {"e", 0.7}}; /* the wedge's M with off-diagonal entries */
            int wedge = cases[k] == &pl_case_wedge;
            CHECK(pl_model_init_law(&m, cases[k], laws[l], wedge ? s : s + 1,
                                    (size_t)wedge + (laws[l] == &pl_law_hunt_crossley ? 0 : 1),
                                    &err) == PL_OK,
                  "%s: %s", label, err.message);
            check_simple_forces(&m, l == 2 ? 1e6 : 1e4, label);
            pl_model_free(&m);
        }
    /* M = diag(1 + i), given with the force (F_v = M^{-1} f entry by entry), springs between the balls */
    pl_setting s[] = {{"N", 4}, {"kappa", 3.0}};
    CHECK(pl_model_init(&m, &pl_test_case_balls, s, 2, &err) == PL_OK, "balls: %s", err.message);
    check_simple_forces(&m, 1e8, "balls N = 4, kappa = 3");
    pl_model_free(&m);
}

int main(void)
{
    check_init();
    test_numbers();
    test_restitution_map();
    test_model_init();
    test_model_sizes();
    test_jacobians();
    test_free_gap_accel();
    test_force_dynamics();
    test_diagonal_mass();
    test_effective_mass();
    test_simple_forces();
    return check_finish("test_model");
}
