/* Disks that must not overlap (Bernicot and Lefebvre-Lepot, section 4), the `spheres` case.
 *
 * Closed forms, derived here (unit masses unless said, k = 1, e = 0: xi = 1, critical damping).
 *
 * T3, head-on: radius 1/2, centres at W/2 -/+ 3/2 on y = H/2 moving toward each other at 1.  The pair
 * gap G = |x2 - x1| - 1 = 2 - 2t reaches 0 at t = 1, the centres at W/2 -/+ 1/2.  Moreau's law (the
 * projection in the kinetic metric onto Gdot >= 0) gives both the common velocity
 * (m1 u1 + m2 u2)/(m1 + m2): 0 for equal masses, 1/2 for m1 = 3 (momentum conserved, energy lost).
 * Oblique, disk 2 raised by b: (3 - 2t)^2 + b^2 = 1 at t* = (3 - sqrt(1 - b^2))/2 (b = 0.6: 1.1), the
 * normal n = (sqrt(1 - b^2), b) = (0.8, 0.6); the normal components (+-0.8) vanish, the tangential
 * ones along (-0.6, 0.8) stay: u1+ = -0.6 (-0.6, 0.8) = (0.36, -0.48), u2+ = (-0.36, 0.48); then the
 * disks slide apart (the gap's acceleration |v_t|^2/d > 0), in straight lines.
 * The penalty: G'' = (1/m1 + 1/m2) lambda with lambda = -m_eff k (mu G + 2 sqrt(mu/k) G'),
 * m_eff = 1/(1/m1 + 1/m2): G'' + 2 omega G' + omega^2 G = 0, omega = sqrt(k mu), from G' = -2 at
 * the entry: G = -2 s e^{-omega s}.  Its deepest point is 2/(e omega), and each centre is off its
 * limit by m_other/(m1 + m2) |G| (the centre of mass moves uniformly), at most 1/(e omega) for
 * equal masses.
 *
 * T5, growing radii r(t) = 1/4 + t/10, centres at W/2 -/+ 1/2 at rest: G = 1 - 2 r(t) = 1/2 - t/5
 * reaches 0 at t = 2.5 with G_t = -1/5.  The admissible velocities (their (1.7)) are
 * G_t + u2 - u1 >= 0, and the projection of 0 gives u1 = -1/10, u2 = 1/10, after which G = 0 and
 * D = 0 (r'' = 0, no tangential motion): x1 = W/2 - 1/2 - (t - 2.5)/10, x2 = W/2 + 1/2 + (t - 2.5)/10.
 * The penalty: G'' + 2 omega G' + omega^2 G = 0 from G' = -1/5, so x1 - x1_lim = -G/2 reaches
 * 1/(10 e omega): the sweep's distance to the limit falls like mu^-1/2 with that constant.  (The
 * notes on the paper state this test for spheres in R^3 at the origin and (1, 0, 0); the paper itself
 * gives no numbers: its section 4 only allows radii that depend on time.)
 *
 * Maury's scheme (their (1.11)-(1.14)): every G is convex in q (a distance minus radii, or affine),
 * so G(t_{n+1}, q^{n+1}) >= G(t_{n+1}, q^n) + h grad G . u^{n+1} >= 0 (their Prop. 2.1): every iterate
 * admissible up to round-off. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "solve.h"
#include "study/analysis.h"
#include "study/sweep.h"


static const pl_solver_type *const SCHEMES[] = {&pl_solver_moreau_jean, &pl_solver_paoli, &pl_solver_maury};

static int init(pl_model *m, const pl_setting *s, size_t ns)
{
    pl_model_free(m);
    pl_error err;
    int ok = pl_model_init(m, &pl_case_spheres, s, ns, &err) == PL_OK;
    CHECK(ok, "spheres model: %s", err.message);
    return ok;
}

/* min over rows and constraints of G (the trajectory's own columns), and where. */
/* The least G stored (either storage: sparse contacts hold every G <= 0). */
static double min_gap(const pl_solution *r, double *t_at, size_t *which)
{
    double worst = INFINITY, g;
    for (size_t row = 0; row < r->traj.nrows; row++) {
        const double *y = pl_table_row(&r->traj, row);
        for (size_t i = 0; i < r->m; i++)
            if (pl_solution_contact_at(r, row, i, &g, NULL) && g < worst) {
                worst = g;
                if (t_at)
                    *t_at = y[0];
                if (which)
                    *which = i;
            }
    }
    return worst;
}

/* Sizes, the numbering of the constraints, the gaps and their derivatives against differences. */
static void test_model(void)
{
    pl_model m = {0};
    pl_error err;
    if (init(&m, NULL, 0)) {
        CHECK(m.n == 4 && m.m == 1 + 8, "the head-on pair: 4 dofs, 1 pair + 8 walls (%zu, %zu)", m.n, m.m);
        CHECK(pl_model_param(&m, "e") == 0.0 && m.law[0].xi == 1.0, "inelastic by default");
    }
    pl_setting box[] = {{"config", 3}};
    if (init(&m, box, 1))
        CHECK(m.n == 24 && m.m == 114, "the box of 12 disks: 24 dofs, 66 + 48 = 114 constraints (%zu, %zu)", m.n,
              m.m);
    /* The gaps of a box of N = 7 disks at a state of its own, each constraint against its definition:
     * pairs in lexicographic order, then per disk left, right, floor, ceiling. */
    pl_setting s7[] = {{"config", 3}, {"N", 7}, {"cols", 3}, {"rdot", 0.05}, {"r", 0.06}, {"dr", 0.3}};
    if (init(&m, s7, 6)) {
        size_t N = 7, n = 14, P = 21;
        CHECK(m.n == n && m.m == P + 28, "N = 7: 14 dofs, 21 + 28 constraints");
        double q[14], v[14], t = 0.7, r[7];
        pl_model_initial_state(&m, q, v);
        for (size_t a = 0; a < N; a++) {
            q[2 * a] += 0.01 * sin(3.0 * (double)a);
            q[2 * a + 1] += 0.02 * cos(2.0 * (double)a);
        }
        /* the radii at t from the wall gaps at t = 0 of disk a against the left wall: x_a - r_a */
        pl_gap *g = pl_gap_new(1, n, 1), *gp = pl_gap_new(1, n, 1), *gm = pl_gap_new(1, n, 1);
        double Wbox = 0.25 * 3, Hbox = 0.3 * 3 + 0.2; /* the defaults for cols = 3, 3 rows */
        for (size_t a = 0; a < N; a++) {
            pl_model_gap(&m, P + 4 * a, 0.0, q, g);
            r[a] = q[2 * a] - g->g;
            double golden = 0.6180339887498949 * (double)a;
            NEAR(r[a], 0.06 * (1.0 + 0.3 * (2.0 * (golden - floor(golden)) - 1.0)), 1e-15, "radius of disk %zu", a + 1);
        }
        size_t k = 0;
        double worst_fd = 0.0;
        for (size_t a = 0; a < N; a++)
            for (size_t b = a + 1; b < N; b++, k++) {
                pl_model_gap(&m, k, t, q, g);
                double d = hypot(q[2 * b] - q[2 * a], q[2 * b + 1] - q[2 * a + 1]);
                NEAR(g->g, d - r[a] - r[b] - 2 * 0.05 * t, 1e-14, "pair (%zu, %zu) is constraint %zu", a + 1, b + 1, k + 1);
                NEAR(g->g_t, -0.1, 1e-15, "pair (%zu, %zu): G_t = -(rdot_a + rdot_b)", a + 1, b + 1);
            }
        for (size_t a = 0; a < N; a++) {
            double expect[4] = {q[2 * a], Wbox - q[2 * a], q[2 * a + 1], Hbox - q[2 * a + 1]};
            for (size_t w = 0; w < 4; w++) {
                pl_model_gap(&m, P + 4 * a + w, t, q, g);
                NEAR(g->g, expect[w] - r[a] - 0.05 * t, 1e-14, "disk %zu, wall %zu", a + 1, w);
                NEAR(g->g_t, -0.05, 1e-15, "disk %zu, wall %zu: G_t = -rdot", a + 1, w);
            }
        }
        /* gradients and Hessians by central differences, every constraint */
        double h = 1e-6, qs[14];
        for (size_t i = 0; i < m.m; i++) {
            pl_model_gap(&m, i, t, q, g);
            for (size_t j = 0; j < n; j++) {
                memcpy(qs, q, sizeof qs);
                qs[j] += h;
                pl_model_gap(&m, i, t, qs, gp);
                qs[j] -= 2 * h;
                pl_model_gap(&m, i, t, qs, gm);
                worst_fd = fmax(worst_fd, fabs(g->grad[j] - (gp->g - gm->g) / (2 * h)));
                for (size_t l = 0; l < n; l++)
                    worst_fd = fmax(worst_fd, fabs(g->hess[l * n + j] - (gp->grad[l] - gm->grad[l]) / (2 * h)));
            }
        }
        CHECK(worst_fd < 1e-7, "gradients and Hessians against central differences (worst %.2g)", worst_fd);
        free(g);
        free(gp);
        free(gm);
    }
    pl_model_free(&m);
    pl_setting overlap[] = {{"config", 3}, {"W", 2.0}};
    CHECK(pl_model_init(&m, &pl_case_spheres, overlap, 2, &err) == PL_ERR_INPUT && strstr(err.message, "overlap"),
          "a layout with overlapping disks is refused: %s", err.message);
    pl_setting outside[] = {{"b", 1.9}};
    CHECK(pl_model_init(&m, &pl_case_spheres, outside, 1, &err) == PL_ERR_INPUT && strstr(err.message, "box"),
          "a disk outside the box is refused: %s", err.message);
    pl_setting pairN[] = {{"N", 3}};
    CHECK(pl_model_init(&m, &pl_case_spheres, pairN, 1, &err) == PL_ERR_INPUT, "the pairs have N = 2: %s",
          err.message);
    pl_setting half[] = {{"config", 3}, {"N", 2.5}};
    CHECK(pl_model_init(&m, &pl_case_spheres, half, 2, &err) == PL_ERR_INPUT, "N whole: %s", err.message);
    pl_model_free(&m);
}

/* T3 head-on for every solver (equal masses: both at rest after t = 1; m1 = 3: both at 1/2). */
static void test_head_on(void)
{
    const double masses[] = {1.0, 3.0};
    for (int c = 0; c < 2; c++) {
        double m1 = masses[c], vc = (m1 - 1.0) / (m1 + 1.0);
        pl_setting s[] = {{"m1", m1}};
        pl_model m = {0};
        if (!init(&m, s, 1))
            continue;
        double W = 8.0, mid = 0.5 * W;
        /* after the contact both move at vc: x1 = mid - 1/2 + vc (t - 1), x2 = mid + 1/2 + vc (t - 1) */
        double x1_end = mid - 0.5 + vc * 3.0, x2_end = mid + 0.5 + vc * 3.0;
        CHECK_NEAR(pl_model_limit_value(&m, PL_LIMIT_FIRST_IMPACT_TIME), 1.0, 1e-15, "limit_value: contact at t = 1");
        pl_solution r;
        pl_error err;
        if (solve_limit(&m, 1e-12, 0, 0, &r, &err) == PL_OK) {
            CHECK(r.nevents >= 1 && r.events[0].kind == PL_EVENT_IMPACT && r.events[0].constraint == 0,
                  "m1 = %g: the first event is the pair's impact", m1);
            if (r.nevents >= 1) {
                NEAR(r.events[0].t, 1.0, 1e-12, "m1 = %g: limit contact time", m1);
                NEAR(r.events[0].q[0], mid - 1.5 + 1.0, 1e-12, "m1 = %g: x1 at contact", m1);
                NEAR(r.events[0].v_after[0], vc, 1e-12, "m1 = %g: limit u1+ = (m1 u1 + m2 u2)/(m1 + m2)", m1);
                NEAR(r.events[0].v_after[2], vc, 1e-12, "m1 = %g: limit u2+", m1);
                printf("T3 m1 = %g: limit contact at 1 + %.2g, u+ off by %.2g\n", m1, r.events[0].t - 1.0,
                       fmax(fabs(r.events[0].v_after[0] - vc), fabs(r.events[0].v_after[2] - vc)));
            }
            NEAR(r.q_final[0], x1_end, 1e-10, "m1 = %g: limit x1(4)", m1);
            NEAR(r.q_final[2], x2_end, 1e-10, "m1 = %g: limit x2(4)", m1);
            NEAR(r.q_final[1], 2.0, 1e-14, "m1 = %g: limit y1(4) unchanged", m1);
        } else
            CHECK(0, "m1 = %g: limit: %s", m1, err.message);
        pl_solution_free(&r);
        /* the penalty: the deepest point 2/(e omega); at t = 4 the critically damped return has decayed */
        const double mus[] = {1e6, 1e8};
        for (int k = 0; k < 2; k++) {
            double omega = sqrt(mus[k]);
            if (solve_penalty(&m, mus[k], 1e-10, 0, 0, &r, &err) == PL_OK) {
                CHECK(r.nepisodes == 1 && r.episodes[0].constraint == 0, "m1 = %g, mu = %g: one contact, the pair's", m1,
                      mus[k]);
                if (r.nepisodes >= 1) {
                    NEAR(r.episodes[0].max_penetration, 2.0 / (M_E * omega), 1e-5 * 2.0 / (M_E * omega),
                         "m1 = %g, mu = %g: deepest point 2/(e omega)", m1, mus[k]);
                    NEAR(r.episodes[0].t_in, 1.0, 1e-12, "m1 = %g, mu = %g: entry at t = 1", m1, mus[k]);
                    printf("T3 m1 = %g, penalty mu = %g: deepest point %.6g (2/(e omega) = %.6g)\n", m1, mus[k],
                           r.episodes[0].max_penetration, 2.0 / (M_E * omega));
                }
                NEAR(r.q_final[0], x1_end, 1e-9, "m1 = %g, mu = %g: x1(4)", m1, mus[k]);
                NEAR(r.v_final[0], vc, 1e-9, "m1 = %g, mu = %g: u1(4)", m1, mus[k]);
                NEAR(r.v_final[2], vc, 1e-9, "m1 = %g, mu = %g: u2(4)", m1, mus[k]);
            } else
                CHECK(0, "m1 = %g, mu = %g: %s", m1, mus[k], err.message);
            pl_solution_free(&r);
        }
        /* the schemes (inelastic): the common velocity after the contact; positions within h */
        for (size_t s_ = 0; s_ < 3; s_++) {
            double h = 1e-3;
            if (solve_scheme(SCHEMES[s_], &m, h, 0, &r, &err) == PL_OK) {
                NEAR(r.v_final[0], vc, 1e-12, "m1 = %g, %s: u1(4)", m1, SCHEMES[s_]->name);
                NEAR(r.v_final[2], vc, 1e-12, "m1 = %g, %s: u2(4)", m1, SCHEMES[s_]->name);
                NEAR(r.q_final[0], x1_end, 2.0 * h, "m1 = %g, %s: x1(4) within O(h)", m1, SCHEMES[s_]->name);
                NEAR(r.q_final[2], x2_end, 2.0 * h, "m1 = %g, %s: x2(4) within O(h)", m1, SCHEMES[s_]->name);
            } else
                CHECK(0, "m1 = %g, %s: %s", m1, SCHEMES[s_]->name, err.message);
            pl_solution_free(&r);
        }
        pl_model_free(&m);
    }
}

/* T3 head-on at the default tolerance: the penalized gap G = -2 s e^{-omega s} stays below 0, so the
 * contact lasts to the end at every mu (a capture at t = 1, no impact: the e = 0 ball's picture), and
 * the velocities reach the limit's 0.  Before, the contact ended where the integrated G crossed +100
 * ulps of its terms, its exact value then within the run's resolution of G (1e-11 at mu = 1e4): at
 * t = 1.294, 1.035, never and 1.0005 for mu = 1e4, 1e6, 1e8, 1e10, an "impact" of restitution 1e-14
 * at three of them. */
static void test_head_on_stays(void)
{
    pl_model m = {0};
    if (!init(&m, NULL, 0))
        return;
    const double mus[] = {1e4, 1e6, 1e8, 1e10};
    for (int k = 0; k < 4; k++) {
        pl_solution r;
        pl_error err;
        pl_analysis a;
        if (solve_penalty(&m, mus[k], 1e-8, 0, 0, &r, &err) == PL_OK && pl_analyze(&m, &r, &a, &err) == PL_OK) {
            CHECK(r.nepisodes == 1 && isnan(r.episodes[0].t_out) && a.impacts == 0 && a.capture_time == r.episodes[0].t_in,
                  "mu = %g: the pair in contact from its entry to the end (%zu episodes, %zu impacts)", mus[k],
                  r.nepisodes, a.impacts);
            NEAR(r.v_final[0], 0.0, 1e-9, "mu = %g: u1(4)", mus[k]);
            NEAR(r.v_final[2], 0.0, 1e-9, "mu = %g: u2(4)", mus[k]);
            pl_analysis_free(&a);
        } else
            CHECK(0, "mu = %g: %s", mus[k], err.message);
        pl_solution_free(&r);
    }
    pl_model_free(&m);
}

/* Growing radii outgrow the box: the time the parameters stop admitting a configuration, against
 * closed forms, each condition of the case's check binding (unit growth rate unless said):
 *   T5, rdot = 1, 8 x 4: 2 r(t) = H at r = 2, t = 1.75 (the walls and the pair meet there too: (a) and
 *     (b) at once);
 *   the same pair in a 4 x 4 box: corner to corner (4 - 2r)^2 2 = 4 r^2 at r = 4/(2 + sqrt 2), before
 *     2 r = 4 (t = 1.75); for two disks (b) and (d) are the same condition;
 *   a row of 4 equal disks (dr = 0) in 1 x 0.5, rdot = 0.1: once 4 r > H no two pass one another, a
 *     zigzag row needs 2 r + 3 sqrt(H (4 r - H)) <= W, i.e. 4 r^2 - (4 W + 36 H) r + W^2 + 9 H^2 = 0,
 *     r = 0.15192 (before the areas, 4 pi r^2 = W H at r = 0.19947): (d) alone;
 *   4 rows of 4 (cols = 4) in 1 x 1.4, rdot = 0.1: the areas, 16 pi r^2 = W H, r = 0.16689 (no row or
 *     column is forced below r = 0.25): (c) alone;
 *   T3 (r = 0.5) in 5 x 1.2, rdot = 0.25: (a) alone, 2 r = H at t = (H/2 - r)/rdot = 0.4; then the pair
 *     side by side needs (W - 2r)^2 + (H - 2r)^2 = 14.44 >= 4 r^2 = 1.44, the row 2 r + sqrt(H (4 r - H))
 *     = 2.4 <= W, the areas 2 pi r^2 = 2.26 <= W H (without (a): t = 1.91 by the areas);
 *   3 disks (r = 0.1, dr = 0.9: radii r (1 + dr (2 frac(0.618034 i) - 1)) = 0.01, 0.1212, 0.0525) in
 *     0.6 x 0.5, rdot = 0.1: (b) alone, the two largest (sum s = s0 + 2 rdot t) corner to corner,
 *     (W - s)^2 + (H - s)^2 = s^2 at s = W + H - sqrt(2 W H) = 0.3254; there the largest 2 r = 0.394 < H,
 *     the two smallest still pass one another (2 (r_0 + r_2) = 0.428 < H), the areas 0.197 < W H = 0.3
 *     (without (b): t = 1.07 by the row).
 * Each is refused (bad input, naming the time and the condition) for every solver when t-end lies
 * beyond, accepted up to the time itself (unrounded) and up to the time the message offers; without
 * growth nothing is refused. */
static void test_outgrown_box(void)
{
    const double row_b = 4.0 * 1.0 + 36.0 * 0.5, row_r = (row_b - sqrt(row_b * row_b - 16.0 * (1.0 + 9.0 * 0.25))) / 8.0;
    double s0 = 0.0, s1 = 0.0; /* (b) alone: the two largest radii at t = 0 */
    for (int i = 0; i < 3; i++) {
        double f = 0.6180339887498949 * i, ri = 0.1 * (1.0 + 0.9 * (2.0 * (f - floor(f)) - 1.0));
        if (ri > s0)
            s1 = s0, s0 = ri;
        else if (ri > s1)
            s1 = ri;
    }
    const struct {
        pl_setting s[7];
        size_t ns;
        double t;
        const char *why; /* the condition the message names */
    } cases[] = {
        {{{"config", 2}, {"rdot", 1}}, 2, 1.75, "wider than the box's height 4"},
        {{{"config", 2}, {"rdot", 1}, {"W", 4}, {"H", 4}}, 4, 4.0 / (2.0 + sqrt(2.0)) - 0.25, "corner to corner"},
        {{{"config", 3}, {"N", 4}, {"dr", 0}, {"W", 1}, {"rdot", 0.1}}, 5, (row_r - 0.08) / 0.1, "a row of 4"},
        {{{"config", 3}, {"N", 16}, {"cols", 4}, {"dr", 0}, {"rdot", 0.1}}, 5, (sqrt(1.4 / (16.0 * M_PI)) - 0.08) / 0.1,
         "their area exceeds"},
        {{{"config", 1}, {"rdot", 0.25}, {"W", 5}, {"H", 1.2}}, 4, (0.5 * 1.2 - 0.5) / 0.25,
         "wider than the box's height 1.2"},
        {{{"config", 3}, {"N", 3}, {"r", 0.1}, {"dr", 0.9}, {"W", 0.6}, {"H", 0.5}, {"rdot", 0.1}}, 7,
         (0.6 + 0.5 - sqrt(2.0 * 0.6 * 0.5) - s0 - s1) / (2.0 * 0.1), "disks 2 and 3, the largest, no longer fit side"},
    };
    const pl_solver_type *solvers[] = {&pl_solver_penalty, &pl_solver_limit, &pl_solver_moreau_jean, &pl_solver_paoli,
                                       &pl_solver_maury};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        pl_model m = {0};
        if (!init(&m, cases[c].s, cases[c].ns))
            continue;
        char msg[256] = "";
        double until = m.type->valid_until(m.par, msg, sizeof msg, m.type->user);
        /* the last double the bisection finds within the conditions: the closed form to its round-off */
        CHECK(fabs(until - cases[c].t) <= 1e-14 * cases[c].t, "box %zu: valid until %.17g, closed form %.17g", c,
              until, cases[c].t);
        CHECK(strstr(msg, cases[c].why) != NULL, "box %zu: the condition '%s' named: %s", c, cases[c].why, msg);
        printf("outgrown box %zu: valid until %.17g (closed form %.17g): %s\n", c, until, cases[c].t, msg);
        for (size_t k = 0; k < 5; k++) {
            pl_solve_opts o;
            pl_error err;
            pl_solve_opts_init(&o, solvers[k], &m, 4.0);
            pl_status st = pl_solve_check(solvers[k], &m, &o, &err);
            /* the time quoted to 12 digits, rounded down: lowering t-end to it is accepted */
            const char *after = strstr(err.message, "after t = "), *lower = strstr(err.message, "lower it to ");
            double quoted = after ? strtod(after + 10, NULL) : NAN, offered = lower ? strtod(lower + 12, NULL) : NAN;
            CHECK(st == PL_ERR_INPUT && strstr(err.message, "t-end = 4 lies beyond") && quoted <= until &&
                      quoted >= until * (1.0 - 1e-11) && offered == quoted,
                  "box %zu, %s, t-end 4: refused naming the time (%s)", c, solvers[k]->name,
                  st == PL_OK ? "accepted" : err.message);
            for (int j = 0; j < 2; j++) {
                double t_end = j ? offered : until;
                pl_solve_opts_init(&o, solvers[k], &m, t_end);
                if (k >= 2)
                    o.option[pl_solver_option_index(solvers[k], "h")] = t_end / 10.0;
                st = pl_solve_check(solvers[k], &m, &o, &err);
                CHECK(st == PL_OK, "box %zu, %s: t-end = %.17g (%s) accepted (%s)", c, solvers[k]->name, t_end,
                      j ? "offered" : "the time itself", st == PL_OK ? "ok" : err.message);
            }
        }
        pl_model_free(&m);
    }
    /* T5 at rdot = 0.3: 2 (1/4 + 0.3 t) = H = 4 at t = 35/6, whose nearest double lies below it; it is
     * accepted (it once was not: the time was rounded down to 12 digits before the comparison), a
     * t-end 1e-12 beyond is not. */
    pl_setting t5[] = {{"config", 2}, {"rdot", 0.3}};
    pl_model m = {0};
    if (init(&m, t5, 2)) {
        double T = 35.0 / 6.0;
        for (int j = 0; j < 2; j++) {
            pl_solve_opts o;
            pl_error err;
            pl_solve_opts_init(&o, &pl_solver_limit, &m, j ? T * (1.0 + 1e-12) : T);
            pl_status st = pl_solve_check(&pl_solver_limit, &m, &o, &err);
            CHECK(j ? st == PL_ERR_INPUT : st == PL_OK, "rdot = 0.3, t-end %.17g: %s (%s)", o.t_end,
                  j ? "refused" : "accepted", st == PL_OK ? "ok" : err.message);
        }
    }
    pl_setting still[] = {{"config", 3}, {"rdot", 0}};
    if (init(&m, still, 2)) {
        char msg[256];
        CHECK(m.type->valid_until(m.par, msg, sizeof msg, m.type->user) == INFINITY, "no growth: valid for ever");
        pl_model_free(&m);
    }
}

/* T3 with m1 = 2, e = 0.5: Newton's law at the contact (t = 1, centres at W/2 -+ 1/2) gives
 * u1+ = (m1 u1 + m2 u2 - m2 e (u1 - u2))/(m1 + m2) = (2 - 1 - 0.5 * 2)/3 = 0 and
 * u2+ = (m1 u1 + m2 u2 + m1 e (u1 - u2))/(m1 + m2) = (2 - 1 + 2 * 0.5 * 2)/3 = 1 (u1 = 1, u2 = -1):
 * disk 2 reaches the right wall (x2 = W - r = 7.5) at t = 1 + 3/1 = 4, the default t-end, and leaves it at
 * -e = -0.5.  The limit solution located that impact 4 ulps before t-end and then failed ("step size too
 * small"); it must end at t-end with status ok, disk 2 at the wall with u2 = 1 (before) or -0.5 (after). */
static void test_wall_at_t_end(void)
{
    pl_setting s[] = {{"m1", 2.0}, {"e", 0.5}};
    pl_model m = {0};
    if (!init(&m, s, 2))
        return;
    pl_solution r;
    pl_error err;
    for (int j = 0; j < 3; j++) {
        pl_status st = j == 0   ? solve_limit(&m, 1e-12, 0, 0, &r, &err)
                       : j == 1 ? solve_penalty(&m, 1e8, 1e-10, 0, 0, &r, &err)
                                : solve_scheme(&pl_solver_moreau_jean, &m, 1e-3, 0, &r, &err);
        const char *name = j == 0 ? "limit" : j == 1 ? "penalty" : "moreau_jean";
        CHECK(st == PL_OK, "m1 = 2, e = 0.5, %s: %s", name, st == PL_OK ? "ok" : err.message);
        if (st == PL_OK) {
            CHECK(r.t_final == 4.0, "%s: ends at t-end 4 (%.17g)", name, r.t_final);
            /* the penalty's centres lag by O(V_n/omega) after its contact (V_n = 2, omega = 1e4: 2.1e-4
             * measured for disk 2), its velocities converge faster; a scheme within 2 h */
            double tol = j == 0 ? 1e-9 : j == 1 ? 1e-4 : 2e-3, tol_q = j == 1 ? 5.0 * 2.0 / 1e4 : tol;
            NEAR(r.q_final[0], 3.5, tol_q, "%s: disk 1 at rest where it met disk 2", name);
            NEAR(r.q_final[2], 7.5, tol_q, "%s: disk 2 at the wall", name);
            NEAR(r.v_final[0], 0.0, tol, "%s: u1 = 0", name);
            CHECK(fabs(r.v_final[2] - 1.0) <= tol || fabs(r.v_final[2] + 0.5) <= tol ||
                      (j == 2 && r.v_final[2] <= 1.0 + tol && r.v_final[2] >= -0.5 - tol),
                  "%s: u2 = %.17g, 1 before the wall impact or -0.5 after it", name, r.v_final[2]);
        }
        pl_solution_free(&r);
    }
    pl_model_free(&m);
}

/* T3 oblique (b = 0.6): contact at t = 1.1, u1+ = (0.36, -0.48), u2+ = (-0.36, 0.48); to t = 2.5,
 * before disk 2 reaches the ceiling (y2 = 2.6 + 0.48 (t - 1.1) = H - r = 3.5 at t = 2.975). */
static void test_oblique(void)
{
    pl_setting s[] = {{"b", 0.6}};
    pl_model m = {0};
    if (!init(&m, s, 1))
        return;
    double mid = 4.0, ts = 1.1, u1[2] = {0.36, -0.48}, u2[2] = {-0.36, 0.48}, T = 2.5;
    /* at contact: x1 = mid - 1.5 + 1.1 = mid - 0.4, x2 = mid + 0.4, y1 = 2, y2 = 2.6 */
    double q1c[2] = {mid - 0.4, 2.0}, q2c[2] = {mid + 0.4, 2.6};
    CHECK_NEAR(pl_model_limit_value(&m, PL_LIMIT_FIRST_IMPACT_TIME), ts, 1e-15, "limit_value: contact at 1.1");
    pl_solution r;
    pl_error err;
    if (solve_limit(&m, 1e-12, T, 0, &r, &err) == PL_OK) {
        CHECK(r.nevents >= 1, "an impact");
        if (r.nevents >= 1)
            NEAR(r.events[0].t, ts, 1e-12, "oblique: contact time");
        for (int j = 0; j < 2; j++) {
            NEAR(r.q_final[j], q1c[j] + u1[j] * (T - ts), 1e-10, "oblique: limit q1[%d](2.5)", j);
            NEAR(r.q_final[2 + j], q2c[j] + u2[j] * (T - ts), 1e-10, "oblique: limit q2[%d](2.5)", j);
            NEAR(r.v_final[j], u1[j], 1e-10, "oblique: limit u1[%d]", j);
        }
    } else
        CHECK(0, "oblique limit: %s", err.message);
    pl_solution_free(&r);
    /* The penalty: the normal approach speed 2 * 0.8 meets the same critically damped spring; the
     * velocities after it are the limit's up to the turn of the normal during the contact (relative
     * tangential speed 1.2 over a time ~1/omega at distance 1), O(V_n v_t/omega): 10/omega. */
    if (solve_penalty(&m, 1e8, 1e-10, T, 0, &r, &err) == PL_OK) {
        double omega = 1e4;
        printf("oblique, penalty mu = 1e8: u1 off by (%.3g, %.3g), deepest point %.4g (1.6/(e omega) = %.4g)\n",
               r.v_final[0] - u1[0], r.v_final[1] - u1[1], r.nepisodes ? r.episodes[0].max_penetration : NAN,
               1.6 / (M_E * omega));
        if (r.nepisodes >= 1)
            NEAR(r.episodes[0].max_penetration, 1.6 / (M_E * omega), 0.05 * 1.6 / (M_E * omega),
                 "oblique, mu = 1e8: deepest point 1.6/(e omega)");
        for (int j = 0; j < 2; j++)
            NEAR(r.v_final[j], u1[j], 10.0 / omega, "oblique, mu = 1e8: u1[%d]", j);
    } else
        CHECK(0, "oblique penalty: %s", err.message);
    pl_solution_free(&r);
    for (size_t s_ = 0; s_ < 3; s_++) {
        if (solve_scheme(SCHEMES[s_], &m, 1e-4, T, &r, &err) == PL_OK)
            for (int j = 0; j < 2; j++)
                NEAR(r.v_final[j], u1[j], 10.0 * 1e-4, "oblique, %s h = 1e-4: u1[%d] within 10 h", SCHEMES[s_]->name, j);
        else
            CHECK(0, "oblique %s: %s", SCHEMES[s_]->name, err.message);
        pl_solution_free(&r);
    }
    pl_model_free(&m);
}

/* One long flight step over a curved gap: the distance of the disks' centres, sqrt((3 - 2t)^2 + b^2)
 * in config 1 (speeds 1 toward each other from 3 apart), is no polynomial in t, and a step over it can
 * hold its minimum far from where a cubic through G and Gdot at the step's ends puts it.  In a box 1000
 * wide without output samples the first flight step reaches far beyond the contact at
 * t = (3 - sqrt(1 - b^2))/2 (b = 0.5: 1.0670), which the scan after the step must catch; with
 * b = 1.001 > 2r the disks pass 0.001 apart and touch nowhere.  (Located on that cubic the contact
 * was missed, the disks passing through each other with status ok, and the near miss got five
 * contacts at a gap of 1.98.) */
static void test_long_flight_step(void)
{
    const double bs[] = {0.5, 1.001};
    for (int k = 0; k < 2; k++) {
        pl_setting s[] = {{"b", bs[k]}, {"W", 1000.0}, {"H", 1000.0}};
        pl_model m = {0};
        if (!init(&m, s, 3))
            return;
        pl_solution r;
        pl_error err;
        if (solve_penalty(&m, 1e8, 1e-8, 100.0, 0, &r, &err) == PL_OK) {
            if (k == 0) {
                CHECK(r.nepisodes >= 1, "b = 0.5, one flight step: the contact is found (%zu episodes)", r.nepisodes);
                if (r.nepisodes >= 1)
                    NEAR(r.episodes[0].t_in, (3.0 - sqrt(0.75)) / 2.0, 1e-9, "b = 0.5: contact time");
            } else
                CHECK(r.nepisodes == 0, "b = 1.001: no contact (%zu episodes)", r.nepisodes);
        } else
            CHECK(0, "long flight step, b = %g: %s", bs[k], err.message);
        pl_solution_free(&r);
        pl_model_free(&m);
    }
}

/* T5: contact at 2.5, then x1 = W/2 - 1/2 - (t - 2.5)/10, x2 = W/2 + 1/2 + (t - 2.5)/10. */
static double t5_x1(double t)
{
    return t <= 2.5 ? 3.5 : 3.5 - 0.1 * (t - 2.5);
}

static void test_growing(void)
{
    pl_setting s[] = {{"config", 2}};
    pl_model m = {0};
    if (!init(&m, s, 1))
        return;
    CHECK_NEAR(pl_model_limit_value(&m, PL_LIMIT_FIRST_IMPACT_TIME), 2.5, 1e-14, "limit_value: contact at 2.5");
    pl_solution r;
    pl_error err;
    if (solve_limit(&m, 1e-12, 0, 0, &r, &err) == PL_OK) {
        CHECK(r.nevents >= 1 && r.events[0].kind == PL_EVENT_IMPACT, "T5: an impact");
        if (r.nevents >= 1) {
            NEAR(r.events[0].t, 2.5, 1e-12, "T5: limit contact time");
            NEAR(r.events[0].gdot_before, -0.2, 1e-14, "T5: approached at G_t = -0.2 by the radii alone");
            NEAR(r.events[0].v_after[0], -0.1, 1e-10, "T5: limit u1+ = -0.1");
            NEAR(r.events[0].v_after[2], 0.1, 1e-10, "T5: limit u2+ = 0.1");
        }
        double worst = 0.0, worst_g = 0.0;
        for (size_t row = 0; row < r.traj.nrows; row++) {
            const double *y = pl_table_row(&r.traj, row);
            worst = fmax(worst, fabs(y[2] - t5_x1(y[0])) + fabs(y[4] - (8.0 - t5_x1(y[0]))));
            if (y[0] > 2.5)
                worst_g = fmax(worst_g, fabs(y[pl_col_g(r.n, r.m)]));
        }
        CHECK(worst < 1e-12, "T5: limit positions on the closed form at every row (worst %.2g)", worst);
        printf("T5: limit positions off the closed form by at most %.3g, |G| after the contact %.3g\n", worst, worst_g);
        CHECK(worst_g < 1e-12, "T5: G = 0 after the contact (worst %.2g)", worst_g);
        NEAR(r.q_final[0], t5_x1(4.0), 1e-10, "T5: limit x1(4) = 3.35");
    } else
        CHECK(0, "T5 limit: %s", err.message);
    pl_solution_free(&r);
    /* Schemes, with 2.5 on their grid (h = 1e-3) and off it (h = 0.0011).  At rest before the contact,
     * Maury's and Paoli's iterates are exact; at the first step past 2.5 both land on G(t_{n+1}) = 0
     * (Maury: u = -+G(t_{n+1}, q^n)/(2h); Paoli: the projection of the rest position), and after it
     * stay there (Maury: G(t_{n+1}, q^n) = -h/5, so u = -+0.1; Paoli: the extrapolation 2 U^n - U^{n-1}
     * is on or inside the next boundary, projected onto it): exact at every step.  Moreau-Jean's
     * index set takes the contact at most a step late and its positions move by h (v_n + v_{n+1})/2:
     * they lag the closed form by at most one step of it, h/10; its velocities are exactly -+0.1 (the
     * impact law Gdot = G_t + u2 - u1 = 0). */
    const double hs[] = {1e-3, 0.0011};
    for (int k = 0; k < 2; k++)
        for (size_t s_ = 0; s_ < 3; s_++) {
            if (solve_scheme(SCHEMES[s_], &m, hs[k], 0, &r, &err) != PL_OK) {
                CHECK(0, "T5 %s: %s", SCHEMES[s_]->name, err.message);
                pl_solution_free(&r);
                continue;
            }
            int exact = SCHEMES[s_] != &pl_solver_moreau_jean;
            double tol = exact ? 1e-12 : 0.1 * hs[k], worst = 0.0;
            for (size_t row = 0; row < r.traj.nrows; row++) {
                const double *y = pl_table_row(&r.traj, row);
                worst = fmax(worst, fabs(y[2] - t5_x1(y[0])));
            }
            CHECK(worst <= tol, "T5 %s h = %g: x1 within %.2g of the closed form (worst %.3g)", SCHEMES[s_]->name, hs[k],
                  tol, worst);
            printf("T5: %s h = %g: x1 off the closed form by at most %.3g\n", SCHEMES[s_]->name, hs[k], worst);
            /* (Paoli's velocity is a difference quotient: round-off eps |q|/h) */
            NEAR(r.v_final[0], -0.1, 1e-11, "T5 %s h = %g: u1(4)", SCHEMES[s_]->name, hs[k]);
            NEAR(r.v_final[2], 0.1, 1e-11, "T5 %s h = %g: u2(4)", SCHEMES[s_]->name, hs[k]);
            pl_solution_free(&r);
        }
    /* The penalty converges to it in a sweep: sup |q - q_lim| = 1/(10 e omega), rate 1/2. */
    double mu[] = {1e4, 1e5, 1e6, 1e7, 1e8};
    pl_sweep sw;
    pl_sweep_opts o = {.solver = &pl_solver_penalty, .jobs = 2, .with_limit = 1};
    pl_solve_opts_init(&o.base, &pl_solver_penalty, &m, NAN);
    o.base.samples = 0;
    if (pl_sweep_run(&m, mu, 5, &o, &sw, &err) == PL_OK) {
        CHECK(sw.failures == 0, "T5 sweep: no failures");
        const pl_sweep_quantity *d = &sw.q[PL_Q_LIMIT_SUP_Q];
        for (size_t k = 0; k < 5; k++) {
            double expect = 0.1 / (M_E * sqrt(mu[k]));
            NEAR(d->values[k], expect, 0.02 * expect, "T5 sweep, mu = %g: sup |q - q_lim| = 1/(10 e omega)", mu[k]);
        }
        CHECK(fabs(d->conv.rate - 0.5) < 0.01, "T5 sweep: rate 1/2 (%.4f)", d->conv.rate);
        printf("T5 sweep: sup |q - q_lim| rate %.4f, at mu = 1e8 %.4g (1/(10 e omega) = %.4g)\n", d->conv.rate,
               d->values[4], 0.1 / (M_E * 1e4));
        const pl_sweep_quantity *t1 = &sw.q[PL_Q_FIRST_IMPACT_TIME];
        CHECK(fabs(t1->conv.limit - 2.5) < 1e-14, "T5 sweep: first contact's limit is the closed form 2.5");
        pl_sweep_free(&sw);
    } else
        CHECK(0, "T5 sweep: %s", err.message);
    pl_model_free(&m);
}

/* Maury's iterates are admissible at every step (their Prop. 2.1): on the box under gravity, on a
 * box of 3 rows (stacks), and with growing radii.  Moreau-Jean's, whose constraint is on velocities,
 * are not (the check can fail). */
static void test_feasibility(void)
{
    const struct {
        pl_setting s[5];
        size_t ns;
        const char *what;
    } cases[] = {
        {{{"config", 3}, {"g", 9.81}}, 2, "box of 12 under gravity"},
        {{{"config", 3}, {"g", 9.81}, {"cols", 4}}, 3, "3 rows of 4 under gravity"},
        {{{"config", 3}, {"g", 9.81}, {"rdot", 0.01}}, 3, "box of 12 growing by 0.01"},
        {{{"config", 2}}, 1, "growing pair (T5)"},
    };
    const double t_ends[] = {2.0, 2.0, 2.0, 4.0};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        pl_model m = {0};
        if (!init(&m, cases[c].s, cases[c].ns))
            continue;
        pl_solution r;
        pl_error err;
        double h = 1e-3, t_end = t_ends[c], t_at = NAN;
        size_t which = 0;
        if (solve_scheme(&pl_solver_maury, &m, h, t_end, &r, &err) == PL_OK) {
            /* round-off of G: its terms are distances and coordinates up to the box's size */
            double size = 0.0, *q0 = calloc(2 * m.n, sizeof *q0);
            if (q0) {
                pl_model_initial_state(&m, q0, q0 + m.n);
                for (size_t j = 0; j < m.n; j++)
                    size = fmax(size, fabs(q0[j]));
                free(q0);
            }
            double worst = min_gap(&r, &t_at, &which), floor_g = -64.0 * DBL_EPSILON * (size + 1.0);
            CHECK(worst >= floor_g, "%s: Maury's iterates admissible, min G = %.3g (constraint %zu at t = %g) >= %.2g",
                  cases[c].what, worst, which + 1, t_at, floor_g);
            printf("feasibility, %s: Maury min G = %.3g over %zu steps\n", cases[c].what, worst, r.traj.nrows - 1);
        } else
            CHECK(0, "%s, Maury: %s", cases[c].what, err.message);
        pl_solution_free(&r);
        if (c == 0 && solve_scheme(&pl_solver_moreau_jean, &m, h, t_end, &r, &err) == PL_OK) {
            double worst = min_gap(&r, NULL, NULL);
            CHECK(worst < -1e-6, "%s: Moreau-Jean's iterates penetrate (min G = %.3g): the check discriminates",
                  cases[c].what, worst);
            pl_solution_free(&r);
        }
        pl_model_free(&m);
    }
}

/* 12 disks in a box under gravity (one row, each moving at 0.5 in its own direction) settle on the
 * floor through every solver, with no penetration beyond each solver's own scale: the penalty's
 * impacts V_n/(e omega) (V_n <= the case's V; resting contacts g m/(k mu m_eff), smaller), the limit
 * solution's tolerance of missed crossings 1e-9 L, Paoli's projection (1e-14), Maury's round-off,
 * Moreau-Jean's one step of approach h V. */
static void test_box(void)
{
    pl_setting s[] = {{"config", 3}, {"g", 9.81}};
    pl_model m = {0};
    if (!init(&m, s, 2))
        return;
    double V = m.v_scale, L = m.v_scale * m.v_scale / m.a_scale, t_end = 4.0, worst[2];
    pl_solution r;
    pl_error err;
    /* every disk rests on the floor at the end: y_a = r_a, no vertical velocity */
    const double mus[] = {1e6, 1e8};
    for (int k = 0; k < 2; k++) {
        if (solve_penalty(&m, mus[k], 1e-8, t_end, 0, &r, &err) != PL_OK) {
            CHECK(0, "box, penalty mu = %g: %s", mus[k], err.message);
            pl_solution_free(&r);
            continue;
        }
        double omega = sqrt(mus[k]);
        worst[k] = -min_gap(&r, NULL, NULL);
        CHECK(worst[k] <= V / (M_E * omega), "box, penalty mu = %g: worst penetration %.3g <= V/(e omega) = %.3g", mus[k],
              worst[k], V / (M_E * omega));
        printf("box: penalty mu = %g worst penetration %.4g (V/(e omega) = %.4g), %zu episodes, %.2f s\n", mus[k],
               worst[k], V / (M_E * omega), r.nepisodes, r.stats.wall_seconds);
        pl_solution_free(&r);
    }
    /* the deepest is an impact: V_n/(e omega), a factor 10 apart */
    NEAR(worst[0] / worst[1], 10.0, 0.5, "box: worst penetration ~ mu^-1/2 (mu = 1e6, 1e8)");
    pl_solution lim;
    int have_lim = solve_limit(&m, 1e-12, t_end, 0, &lim, &err) == PL_OK;
    CHECK(have_lim, "box, limit: %s", err.message);
    if (have_lim) {
        double w = -min_gap(&lim, NULL, NULL);
        CHECK(w <= 1e-9 * L, "box, limit: worst penetration %.3g <= 1e-9 L = %.3g", w, 1e-9 * L);
        printf("box: limit worst penetration %.3g (1e-9 L = %.3g, V = %.4g), %zu events\n", w, 1e-9 * L, V, lim.nevents);
    }
    const double tol[3] = {1e-3 * V, 1e-12 * L, 1e-12 * L}; /* Moreau-Jean h V at h = 1e-3; Paoli; Maury */
    for (size_t s_ = 0; s_ < 3; s_++) {
        if (solve_scheme(SCHEMES[s_], &m, 1e-3, t_end, &r, &err) != PL_OK) {
            CHECK(0, "box, %s: %s", SCHEMES[s_]->name, err.message);
            pl_solution_free(&r);
            continue;
        }
        double w = -min_gap(&r, NULL, NULL);
        CHECK(w <= tol[s_], "box, %s h = 1e-3: worst penetration %.3g <= %.2g", SCHEMES[s_]->name, w, tol[s_]);
        printf("box: %s h = 1e-3 worst penetration %.3g\n", SCHEMES[s_]->name, w);
        /* settled: on the floor with no vertical motion (Moreau-Jean: to its penetration) */
        double off = 0.0, vy = 0.0;
        pl_gap *g = pl_gap_new(1, m.n, 0);
        for (size_t a = 0; a < 12; a++) {
            pl_model_gap(&m, 66 + 4 * a + 2, t_end, r.q_final, g);
            off = fmax(off, fabs(g->g));
            vy = fmax(vy, fabs(r.v_final[2 * a + 1]));
        }
        free(g);
        CHECK(off <= fmax(w, 1e-12) && vy <= 1e-9, "box, %s: settled on the floor (|G| <= %.2g, |v_y| <= %.2g)",
              SCHEMES[s_]->name, off, vy);
        pl_solution_free(&r);
    }
    if (have_lim) {
        double off = 0.0, vy = 0.0;
        pl_gap *g = pl_gap_new(1, m.n, 0);
        for (size_t a = 0; a < 12; a++) {
            pl_model_gap(&m, 66 + 4 * a + 2, t_end, lim.q_final, g);
            off = fmax(off, fabs(g->g));
            vy = fmax(vy, fabs(lim.v_final[2 * a + 1]));
        }
        free(g);
        CHECK(off <= 1e-9 * L && vy <= 1e-9, "box, limit: settled on the floor (|G| <= %.2g, |v_y| <= %.2g)", off, vy);
    }
    pl_solution_free(&lim);
    pl_model_free(&m);
}

/* The default sweep (mu = 1e2 ... 1e10) of the default case (T3) completes. */
static void test_default_sweep(void)
{
    pl_model m = {0};
    if (!init(&m, NULL, 0))
        return;
    double mu[9];
    for (int k = 0; k < 9; k++)
        mu[k] = pow(10.0, 2 + k);
    pl_sweep sw;
    pl_error err;
    pl_sweep_opts o = {.solver = &pl_solver_penalty, .jobs = 2, .with_limit = 1};
    pl_solve_opts_init(&o.base, &pl_solver_penalty, &m, NAN);
    o.base.samples = 0;
    CHECK(pl_sweep_run(&m, mu, 9, &o, &sw, &err) == PL_OK && sw.failures == 0, "default sweep: %s",
          sw.failures ? "a run failed" : err.message);
    /* sup |q - q_lim| = 1/(e omega) from mu = 1e4 on */
    for (size_t k = 2; k < 9; k++)
        NEAR(sw.q[PL_Q_LIMIT_SUP_Q].values[k], 1.0 / (M_E * sqrt(mu[k])), 0.02 / (M_E * sqrt(mu[k])),
             "default sweep, mu = %g: sup |q - q_lim| = 1/(e omega)", mu[k]);
    pl_sweep_free(&sw);
    pl_model_free(&m);
}

/* The candidates in a box far wider than its disks (40 x 40, r = 0.1: 30000 cells of the pair's width,
 * capped at N): every constraint with G < margin is listed, each once, at states scattered over the box
 * and with the disks bunched into one corner. */
static void test_candidates_wide_box(void)
{
    pl_model m = {0};
    pl_setting s[] = {{"config", 3}, {"N", 7}, {"W", 40}, {"H", 40}, {"r", 0.1}};
    if (!init(&m, s, 5))
        return;
    size_t n = m.n, M = m.m, *out = malloc(M * sizeof *out);
    double *q = malloc(2 * n * sizeof *q);
    pl_gap *g = pl_gap_new_sparse(1, &m, 0);
    unsigned char *seen = calloc(M, 1);
    if (!out || !q || !g || !seen)
        abort();
    unsigned long lcg = 12345;
    for (int trial = 0; trial < 40; trial++) {
        double span = trial % 2 ? 40.0 : 1.0, margin = trial % 3 ? 0.05 : 0.7; /* scattered, or in a corner */
        for (size_t j = 0; j < n; j++) {
            lcg = lcg * 6364136223846793005UL + 1442695040888963407UL;
            q[j] = 0.1 + (span - 0.2) * (double)(lcg >> 11) / 9007199254740992.0;
        }
        size_t count = m.type->candidates(m.par, 0.0, q, margin, out, m.type->user), near = 0;
        CHECK(count <= M, "trial %d: %zu candidates of %zu", trial, count, M);
        memset(seen, 0, M);
        for (size_t e = 0; e < count && e < M; e++) {
            CHECK(out[e] < M && !seen[out[e]], "trial %d: entry %zu (%zu) in range, once", trial, e, out[e]);
            if (out[e] < M)
                seen[out[e]] = 1;
        }
        for (size_t i = 0; i < M; i++) {
            pl_model_gap_sparse(&m, i, 0.0, q, g);
            near += g->g < margin;
            CHECK(!(g->g < margin) || seen[i], "trial %d: constraint %zu (G = %g < %g) listed", trial, i + 1, g->g,
                  margin);
        }
        if (trial == 0)
            CHECK(near > 7, "the corner's disks are near each other (%zu constraints near)", near);
    }
    free(out), free(q), free(g), free(seen);
    pl_model_free(&m);
}

/* An offset head-on pair (b = 0.3) at e = 0 under the unclamped law, mu = 1e10: its exit is slow
 * (Gdot_out 3.4e-6 against an entry at 2), what a loosened gap rate in the contact would bias.  The
 * reference integrates the relative motion d = q2 - q1 itself (m_eff = 1/2, d'' = (w^2 delta + 2 w
 * deltadot) d/|d| inside, w = 1e5) by classic RK4 with steps 1e-8 and 2.5e-9 (disk 1's exit velocity
 * agrees to 3.4e-11 between them): v1 = (0.0900257779644, -0.2861736523595), free after the exit.
 * penlim resolves it to the gap rate's floor at any rtol (docs/methods.md, "Sustained contacts"): omega
 * times 1000 ulps of G's terms (|q| about 4: 8.9e-13), 8.9e-8 in Gdot, half of it in each disk's
 * velocity: 5e-8 (measured 2e-10 to 2e-8 with and without samples, rtol 1e-8 to 1e-12). */
static void test_head_on_offset_inelastic(void)
{
    pl_setting s[] = {{"config", 1}, {"e", 0.0}, {"b", 0.3}};
    pl_model m = {0};
    if (!init(&m, s, 3))
        return;
    const double rtols[] = {1e-8, 1e-10, 1e-12};
    for (int k = 0; k < 3; k++) {
        pl_solution r;
        pl_error err;
        if (solve_penalty(&m, 1e10, rtols[k], 0, 0, &r, &err) == PL_OK) {
            const double *v = r.v_final;
            NEAR(v[0], 0.0900257779644, 5e-8, "offset pair, e = 0, mu = 1e10, rtol %g: disk 1's exit v_x", rtols[k]);
            NEAR(v[1], -0.2861736523595, 5e-8, "offset pair, e = 0, mu = 1e10, rtol %g: disk 1's exit v_y", rtols[k]);
        } else {
            CHECK(0, "offset pair at rtol %g: %s", rtols[k], err.message);
        }
        pl_solution_free(&r);
    }
    pl_model_free(&m);
}

/* The work of a box's steps grows with its bodies, not with its constraints: from 40 to 80 disks in
 * one row (940 and 3480 constraints, m ~ N^2/2) the state (2n + 1 and the impulses of the active
 * constraints, src/solvers/penalty/slots.c), the gaps evaluated per step (the neighbour list's), the
 * root-function values written per step (the live ones: src/solvers/penalty/roots.c) and the
 * constraints a rebuild of the neighbour list visits (src/solvers/penalty/neighbours.c) grow like N,
 * at most 2.5 times where m grows 3.7 times; with an impulse per constraint the state grew 3.45
 * times, with every root function written at each evaluation the writes per step 3.7 times, and a
 * rebuild that scanned every constraint 3.4 times. */
static void test_work_per_step(void)
{
    const double disks[] = {40, 80};
    double state[2] = {NAN, NAN}, gaps[2] = {NAN, NAN}, writes[2] = {NAN, NAN}, visits[2] = {NAN, NAN};
    for (int k = 0; k < 2; k++) {
        pl_setting s[] = {{"config", 3}, {"N", disks[k]}};
        pl_model m = {0};
        if (!init(&m, s, 2))
            return;
        pl_solution r;
        pl_error err;
        if (solve_penalty(&m, 1e6, 1e-8, 0.3, 0, &r, &err) == PL_OK && r.stats.steps > 0 && r.nepisodes > 0) {
            state[k] = (double)r.stats.state_size;
            gaps[k] = (double)r.stats.gap_evals / (double)r.stats.steps;
            writes[k] = (double)r.stats.root_writes / (double)r.stats.steps;
            visits[k] = r.stats.neighbour_rebuilds > 1 ? (double)r.stats.rebuild_visits /
                                                             (double)(r.stats.neighbour_rebuilds - 1)
                                                       : NAN;
            printf("row of %.0f disks (%zu constraints): state of %ld components, %.0f gaps per step, %.0f root "
                   "values written per step, %.0f constraints visited per rebuild (%ld rebuilds), %ld steps, "
                   "%zu episodes\n", disks[k], m.m, r.stats.state_size, gaps[k], writes[k], visits[k],
                   r.stats.neighbour_rebuilds, r.stats.steps, r.nepisodes);
        } else {
            CHECK(0, "row of %.0f disks: %s", disks[k], err.message);
        }
        pl_solution_free(&r);
        pl_model_free(&m);
    }
    CHECK(state[1] / state[0] <= 2.5, "state from 40 to 80 disks: %.0f -> %.0f components (x %.2f <= 2.5)", state[0],
          state[1], state[1] / state[0]);
    CHECK(gaps[1] / gaps[0] <= 2.5, "gaps per step from 40 to 80 disks: %.0f -> %.0f (x %.2f <= 2.5)", gaps[0], gaps[1],
          gaps[1] / gaps[0]);
    CHECK(writes[1] / writes[0] <= 2.5, "root values written per step from 40 to 80 disks: %.0f -> %.0f (x %.2f <= 2.5)",
          writes[0], writes[1], writes[1] / writes[0]);
    CHECK(visits[1] / visits[0] <= 2.5,
          "constraints visited per rebuild from 40 to 80 disks: %.0f -> %.0f (x %.2f <= 2.5)", visits[0], visits[1],
          visits[1] / visits[0]);
}

/* The limit solution's work follows the bodies and their contacts, not the m ~ N^2/2 constraints: from
 * 40 to 80 disks in one row (940 and 3480 constraints) its largest fast system of an impact (2 components
 * per constraint taking part, and n + 1: src/solvers/limit/impact.c) grows like N, at most 2.5 times; it
 * held every constraint's gap and impulse, 2m + n + 1 components (2041 and 7121: 3.5 times, and each of
 * its fast steps a pass over them), and rows of grad G and w over every constraint and coordinate (m n
 * doubles each).  The gaps it evaluates per step grow like N too, at most 2.5 times where the
 * constraints grow 3.7 times: its root functions, missed-crossing scan, error weights, first steps and
 * records read the neighbour list's constraints alone (solvers/neighbours.h): 1.1e3 and 2.3e3 per step,
 * where they read every gap, each several times per step, before the list (1.9e4 and 7.1e4, about 20 m). */
static void test_limit_work_per_step(void)
{
    const double disks[] = {40, 80};
    double state[2] = {NAN, NAN}, gaps[2] = {NAN, NAN};
    size_t ms[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        pl_setting s[] = {{"config", 3}, {"N", disks[k]}};
        pl_model m = {0};
        if (!init(&m, s, 2))
            return;
        pl_solution r;
        pl_error err;
        if (solve_limit(&m, 1e-12, 0.3, 0, &r, &err) == PL_OK && r.stats.steps > 0 && r.stats.fast_steps > 0) {
            state[k] = (double)r.stats.state_size;
            gaps[k] = (double)r.stats.gap_evals / (double)r.stats.steps;
            ms[k] = m.m;
            printf("limit solution of a row of %.0f disks (%zu constraints): largest fast system of %ld components, "
                   "%.0f gaps per step, %ld steps, %ld fast steps, %zu events, %ld rebuilds of the list\n", disks[k],
                   m.m, r.stats.state_size, gaps[k], r.stats.steps, r.stats.fast_steps, r.nevents,
                   r.stats.neighbour_rebuilds);
            CHECK(r.stats.neighbour_rebuilds > 0, "limit solution of a row of %.0f disks: its neighbour list is used",
                  disks[k]);
        } else {
            CHECK(0, "limit solution of a row of %.0f disks: %s", disks[k], err.message);
        }
        pl_solution_free(&r);
        pl_model_free(&m);
    }
    CHECK(state[0] > 0.0 && state[1] / state[0] <= 2.5,
          "the limit's largest fast system from 40 to 80 disks: %.0f -> %.0f components (x %.2f <= 2.5)", state[0],
          state[1], state[1] / state[0]);
    CHECK(gaps[0] > 0.0 && gaps[1] / gaps[0] <= 2.5,
          "the limit's gaps per step from 40 to 80 disks: %.0f -> %.0f (x %.2f <= 2.5; the constraints x %.2f)",
          gaps[0], gaps[1], gaps[1] / gaps[0], (double)ms[1] / (double)ms[0]);
}

/* The limit solution over the neighbour list against the same case without it (candidates and
 * gap_bounds taken away: every constraint evaluated at every step, as below PL_NEAR_FROM constraints):
 * the list loses no contact.  The same events (kind and constraint, one for one), their times and
 * velocities, and the final state, to tol relative; the runs differ by their steps (bounded by the
 * list's reach) and their error weights (the near gaps alone), both at the tolerances. */
static void limit_against_all(const pl_setting *s, size_t ns, double t_end, double tol, const char *what)
{
    pl_case all = pl_case_spheres;
    all.candidates = NULL, all.gap_bounds = NULL;
    pl_model a = {0}, b = {0};
    pl_error err;
    if (pl_model_init(&a, &pl_case_spheres, s, ns, &err) != PL_OK || pl_model_init(&b, &all, s, ns, &err) != PL_OK) {
        CHECK(0, "%s: %s", what, err.message);
        pl_model_free(&a);
        return;
    }
    pl_solution x, y;
    pl_status sx = solve_limit(&a, 1e-12, t_end, 0, &x, &err);
    CHECK(sx == PL_OK, "%s, limit solution: %s", what, err.message);
    pl_status sy = solve_limit(&b, 1e-12, t_end, 0, &y, &err);
    CHECK(sy == PL_OK, "%s, limit solution without the list: %s", what, err.message);
    if (sx == PL_OK && sy == PL_OK) {
        CHECK(a.m >= 100 && x.stats.neighbour_rebuilds > 0 && y.stats.neighbour_rebuilds == 0,
              "%s (%zu constraints): %ld rebuilds of the list, %ld without it", what, a.m,
              x.stats.neighbour_rebuilds, y.stats.neighbour_rebuilds);
        int same = x.nevents == y.nevents && x.nevents > 0;
        double dt = 0.0, dv = 0.0, dq = 0.0;
        for (size_t k = 0; same && k < x.nevents; k++) {
            const pl_event *e = &x.events[k], *f = &y.events[k];
            same = e->kind == f->kind && e->constraint == f->constraint;
            dt = fmax(dt, fabs(e->t - f->t) / (1.0 + fabs(f->t)));
            for (size_t j = 0; j < a.n; j++)
                dv = fmax(dv, fabs(e->v_after[j] - f->v_after[j]) / (1.0 + fabs(f->v_after[j])));
        }
        for (size_t j = 0; j < a.n; j++) {
            dq = fmax(dq, fabs(x.q_final[j] - y.q_final[j]) / (1.0 + fabs(y.q_final[j])));
            dq = fmax(dq, fabs(x.v_final[j] - y.v_final[j]) / (1.0 + fabs(y.v_final[j])));
        }
        CHECK(same && dt <= tol && dv <= tol && dq <= tol,
              "%s: the list's limit solution is the one over every constraint (%zu and %zu events: %s; times to "
              "%.2g, velocities after them to %.2g, final state to %.2g; <= %.0e)", what, x.nevents, y.nevents,
              same ? "the same" : "differ", dt, dv, dq, tol);
        printf("%s: %zu events, the same over the list (%ld rebuilds) and over every constraint to %.2g; gaps per "
               "step %.0f and %.0f\n", what, x.nevents, x.stats.neighbour_rebuilds, fmax(dt, fmax(dv, dq)),
               (double)x.stats.gap_evals / (double)x.stats.steps, (double)y.stats.gap_evals / (double)y.stats.steps);
    }
    pl_solution_free(&x), pl_solution_free(&y);
    pl_model_free(&a), pl_model_free(&b);
}

static void test_limit_neighbours(void)
{
    /* one row of 40 disks (940 constraints) flying at 0.5 with e = 0: plastic impacts of neighbours and
     * with the walls */
    pl_setting row[] = {{"config", 3}, {"N", 40}};
    limit_against_all(row, 2, 0.5, 1e-9, "limit, row of 40");
    /* two rows of 16 (184 constraints) at e = 0.5: disks far apart at the start enter the list */
    pl_setting rows[] = {{"config", 3}, {"N", 16}, {"cols", 8}, {"e", 0.5}};
    limit_against_all(rows, 4, 1.0, 1e-9, "limit, two rows of 8");
    /* growing radii: G_t = -2 rdot (B > 0 in the list's drift) */
    pl_setting grow[] = {{"config", 3}, {"N", 16}, {"cols", 8}, {"rdot", 0.01}, {"e", 0.5}};
    limit_against_all(grow, 5, 1.0, 1e-9, "limit, two rows of 8, growing");
}

/* The limit solution of a row of 400 disks (81400 constraints) runs: its contact sets hold what the
 * sets hold (model/sparse_set.h), where three sets of m x m couplings (2 m^2 doubles each, 106 GB) and
 * an impact's rows of grad G and w (m n doubles each, 0.5 GB) were allocated before the first step. */
static void test_limit_many_disks(void)
{
    pl_setting s[] = {{"config", 3}, {"N", 400}};
    pl_model m = {0};
    if (!init(&m, s, 2))
        return;
    pl_solution r;
    pl_error err;
    pl_status st = solve_limit(&m, 1e-12, 0.02, 0, &r, &err);
    CHECK(st == PL_OK && r.stats.steps > 0, "limit solution of a row of 400 disks to t = 0.02: %s",
          st == PL_OK ? "no step" : err.message);
    if (st == PL_OK)
        printf("limit solution of a row of 400 disks (%zu constraints) to t = 0.02: %ld steps, %.2f s\n", m.m,
               r.stats.steps, r.stats.wall_seconds);
    pl_solution_free(&r);
    pl_model_free(&m);
}

/* The relative change of the disks' kinetic energy (masses 1) across impact e. */
static double energy_gain(const pl_event *e, size_t n)
{
    double before = 0.0, after = 0.0;
    for (size_t a = 0; a < n; a++)
        before += 0.5 * e->v_before[a] * e->v_before[a], after += 0.5 * e->v_after[a] * e->v_after[a];
    return (after - before) / before;
}

/* A stiff law's impacts (xi > 3: msbdf in the fast time) of many disks: the fast system has components
 * for the contacts taking part alone, as the explicit one has.  With one for every constraint (n + 1 + 2m:
 * 1171 for 30 disks in a row, a dense Jacobian of that size factored at every Newton step) the run did
 * not finish in 100 s; now 0.3 s.  The impacts keep the momentum of the two disks of each (no wall
 * takes part in a single pair impact) and lose kinetic energy. */
static void test_limit_stiff_many_disks(void)
{
    pl_setting s[] = {{"config", 3}, {"N", 30}, {"xi", 5}};
    pl_model m = {0};
    if (!init(&m, s, 3))
        return;
    pl_solve_opts o;
    pl_solve_opts_init(&o, &pl_solver_limit, &m, 0.3);
    o.max_seconds = 60; /* the old run fails here rather than running for minutes (the budget counts the
                           writing of the impacts' arcs, 8e6 numbers at 4 us: 32 s, not written here) */
    pl_solution r;
    pl_error err;
    pl_status st = pl_solve(&pl_solver_limit, &m, &o, &r, &err);
    CHECK(st == PL_OK && r.t_final == 0.3, "limit solution of 30 disks in a row at xi = 5 to t = 0.3: %s",
          st == PL_OK ? "ok" : err.message);
    CHECK(r.stats.state_size > 0 && (size_t)r.stats.state_size <= m.n + 1 + 2 * 20,
          "its largest fast system: %ld components (n + 1 + 2 per contact taking part; n + 1 + 2m = %zu)",
          r.stats.state_size, m.n + 1 + 2 * m.m);
    size_t impacts = 0;
    double gain = -INFINITY, drift = 0.0;
    for (size_t j = 0; j < r.nevents; j++) {
        const pl_event *e = &r.events[j];
        if (e->kind != PL_EVENT_IMPACT)
            continue;
        impacts++;
        double p0[2] = {0, 0}, p1[2] = {0, 0};
        for (size_t a = 0; a < m.n; a++)
            p0[a % 2] += e->v_before[a], p1[a % 2] += e->v_after[a];
        gain = fmax(gain, energy_gain(e, m.n));
        size_t walls = 0;
        for (size_t i = m.m - 4 * 30; i < m.m; i++) /* the walls' constraints come after the pairs */
            walls += (size_t)pl_event_participant(e, i);
        if (walls == 0)
            drift = fmax(drift, fmax(fabs(p1[0] - p0[0]), fabs(p1[1] - p0[1])));
    }
    CHECK(impacts >= 10 && gain <= 1e-12 && drift <= 1e-12,
          "30 disks at xi = 5: %zu impacts, kinetic energy gained at most %.2g, momentum of pair impacts kept to %.2g",
          impacts, gain, drift);
    printf("limit solution of 30 disks in a row at xi = 5: %zu impacts, largest fast system %ld components, %ld fast "
           "steps\n", impacts, r.stats.state_size, r.stats.fast_steps);
    pl_solution_free(&r);
    pl_model_free(&m);
}

/* Round-off at the boundary in the limit solution of many disks:
 * - a gap that an impact's projection leaves a few ulps below 0 while it separates (a disk kicked
 *   away from a neighbour) rises through 0 in its next step.  The limit solution's events are all
 *   falling crossings (landings and lift-offs), but a root finder that counted rising ones ended the
 *   step at that root, and the state there, G rounding to below 0 again, found it again in the next
 *   step: a row of 40 disks at e = 0.3 crept from t = 0.139 in steps of 4e-12, and 25 disks in rows of
 *   5 under gravity from t = 0.2218, until their budgets;
 * - in an impact's fast system, a disk resting on another (z and z' zero to round-off) was switched
 *   on and off at one sigma without end: 24 disks in rows of 6 under gravity failed at t = 0.288
 *   ("contact modes chatter").
 * Now each runs to its end with a restart per event.  Checks on the events the runs are made of:
 * every impact of one constraint keeps the law's restitution (an isolated impact's, from the damping
 * ratio: e = 0.3 in the row), and no impact gains kinetic energy (the disks' masses are 1; Kelvin-Voigt
 * dissipates). */
static void test_limit_separating_round_off(void)
{
    const struct {
        const char *what;
        pl_setting s[5];
        size_t ns;
        double t_end, e; /* e: the restitution every impact of one constraint has (NAN: not checked) */
    } runs[] = {{"a row of 40 disks at e = 0.3", {{"config", 3}, {"N", 40}, {"e", 0.3}}, 3, 0.5, 0.3},
                {"25 disks in rows of 5 under gravity", {{"config", 3}, {"N", 25}, {"cols", 5}, {"g", 9.81}}, 4, 0.3,
                 NAN},
                {"24 disks in rows of 6 under gravity", {{"config", 3}, {"N", 24}, {"cols", 6}, {"g", 9.81}}, 4, 0.3,
                 NAN},
                /* 6260 events to t = 0.641; a lift-off there, at an impact's time, had no force in any
                   row of its slide: an infinite t_resolution left its summary.json unwritten */
                {"6 disks in rows of 3 under gravity at e = 0.5", {{"config", 3}, {"N", 6}, {"cols", 3}, {"g", 9.81}, {"e", 0.5}},
                 5, 0.641, 0.5}};
    for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
        pl_model m = {0};
        if (!init(&m, runs[k].s, runs[k].ns))
            return;
        pl_solve_opts o;
        pl_solve_opts_init(&o, &pl_solver_limit, &m, runs[k].t_end);
        o.max_steps = 10000; /* the runs take 38 to 770 steps, the pile of 6 6486; creeping, a step per 4e-12 s */
        pl_solution r;
        pl_error err;
        pl_status st = pl_solve(&pl_solver_limit, &m, &o, &r, &err);
        CHECK(st == PL_OK && r.t_final == runs[k].t_end, "limit solution of %s to t = %g: %s (t = %.17g)",
              runs[k].what, runs[k].t_end, st == PL_OK ? "ok" : err.message, r.t_final);
        CHECK(r.stats.restarts <= (long)r.nevents, "%s: %ld restarts for %zu events", runs[k].what,
              r.stats.restarts, r.nevents);
        size_t single = 0, impacts = 0, infinite = 0;
        double worst = 0.0, gain = -INFINITY;
        for (size_t j = 0; j < r.nevents; j++) {
            const pl_event *e = &r.events[j];
            infinite += isinf(e->t_resolution);
            if (e->kind != PL_EVENT_IMPACT)
                continue;
            gain = fmax(gain, energy_gain(e, m.n));
            impacts++;
            if (isnan(runs[k].e))
                continue;
            size_t parts = 0;
            for (size_t i = 0; i < m.m; i++)
                parts += (size_t)pl_event_participant(e, i);
            if (parts != 1)
                continue;
            single++;
            worst = fmax(worst, fabs(-e->gdot_after / e->gdot_before - runs[k].e));
        }
        CHECK(impacts >= 10 && gain <= 1e-12, "%s: %zu impacts, the largest relative gain of kinetic energy %.2g",
              runs[k].what, impacts, gain);
        CHECK(infinite == 0, "%s: %zu events with an infinite time resolution (a finite bound, or null: unknown)",
              runs[k].what, infinite);
        if (!isnan(runs[k].e))
            CHECK(single >= 10 && worst <= 1e-9, "%s: %zu impacts of one constraint, restitution off %g by %.2g",
                  runs[k].what, single, runs[k].e, worst);
        printf("limit solution of %s to t = %g: %ld steps, %ld restarts, %zu events (%zu impacts of one "
               "constraint, restitution off by %.2g; kinetic energy gained at most %.2g)\n", runs[k].what, runs[k].t_end,
               r.stats.steps, r.stats.restarts, r.nevents, single, worst, gain);
        pl_solution_free(&r);
        pl_model_free(&m);
    }
}

/* The impulses of a pile of 36 disks falling on the floor under gravity (6 rows of 6, e = 0), in the
 * slots that active constraints take and give back (src/solvers/penalty/slots.c; up to 44 contacts at
 * once: the slots grow from 16): the momentum balance of the disks,
 *   sum_a m v_a(T) - sum_a m v_a(0) = -N m g T e_y + sum over the walls' episodes of grad G_i I_i,
 * the pairs' impulses cancelling (grad G of a pair is opposite on its two disks) and a wall's gradient
 * +-1 on one coordinate. */
static void test_impulse_balance(void)
{
    const double N = 36, g = 9.81, T = 0.5;
    pl_setting s[] = {{"config", 3}, {"N", N}, {"cols", 6}, {"g", g}};
    pl_model m = {0};
    if (!init(&m, s, 4))
        return;
    pl_solution r;
    pl_error err;
    if (solve_penalty(&m, 1e6, 1e-8, T, 0, &r, &err) != PL_OK) {
        CHECK(0, "pile of 36: %s", err.message);
        pl_solution_free(&r);
        pl_model_free(&m);
        return;
    }
    size_t P = (size_t)(N * (N - 1) / 2), walls = 0;
    double dp[2] = {0.0, -N * 1.0 * g * T}, total = 0.0, q0[72], v0[72];
    pl_model_initial_state(&m, q0, v0);
    pl_gap *gap = pl_gap_new_sparse(1, &m, 0);
    for (size_t k = 0; k < r.nepisodes; k++) {
        size_t i = r.episodes[k].constraint;
        total += fabs(r.episodes[k].impulse);
        if (i < P)
            continue;
        walls++;
        pl_model_gap_sparse(&m, i, 0.0, q0, gap);
        size_t j = pl_gap_dof(gap, 0);
        dp[j % 2] += gap->grad[0] * r.episodes[k].impulse;
    }
    free(gap);
    double err_p = 0.0;
    for (size_t xy = 0; xy < 2; xy++) {
        double p = 0.0;
        for (size_t a = 0; a < (size_t)N; a++)
            p += r.v_final[2 * a + xy] - v0[2 * a + xy]; /* m = 1 */
        err_p = fmax(err_p, fabs(p - dp[xy]));
    }
    printf("pile of 36: %zu episodes (%zu of walls), state of %ld components, momentum balance to %.3g (impulses "
           "%.4g in all)\n", r.nepisodes, walls, r.stats.state_size, err_p, total);
    CHECK(walls > 0 && r.stats.state_size > 2 * 72 + 1 + 16, "pile of 36: walls touched (%zu) and the slots grown "
          "beyond 16 (state %ld)", walls, r.stats.state_size);
    CHECK(err_p <= 1e-8 * N * g * T, "pile of 36: momentum balance to %.3g <= 1e-8 N m g T", err_p);
    pl_solution_free(&r);
    pl_model_free(&m);
}

/* A row recorded at a contact switch holds the forces of the evaluation at the switch: a constraint
 * just switched off has none.  Piles of 6 (dense contacts, below the slots' threshold) and 20 disks
 * (sparse, slots) settling under gravity at e = 0.2, mu = 1e7: no row at the time of the row before it
 * gives a constraint in contact there and out of contact now (G > 0) a pushing force other than the one
 * it had (an exit, where the force is 0 or pulling; an entry's damping pushes at G = 0+) (a copy of held
 * forces that kept the earlier list of forces written left the switched-off force in place: 73.17
 * where main had 0 in the pile of 6, two exits of the pile of 20). */
static void test_no_stale_forces(void)
{
    const double piles[][2] = {{6, 3}, {20, 5}};
    for (size_t k = 0; k < 2; k++) {
        pl_setting s[] = {{"config", 3}, {"N", piles[k][0]}, {"cols", piles[k][1]}, {"g", 9.81}, {"e", 0.2}};
        pl_model m = {0};
        if (!init(&m, s, 5))
            return;
        pl_solution r;
        pl_error err;
        if (solve_penalty(&m, 1e7, 1e-8, 2.0, 0, &r, &err) != PL_OK) {
            CHECK(0, "pile of %g: %s", piles[k][0], err.message);
            pl_solution_free(&r);
            pl_model_free(&m);
            continue;
        }
        pl_gap *gap = pl_gap_new_sparse(1, &m, 0);
        size_t stale = 0, switches = 0;
        for (size_t row = 1; row < r.traj.nrows && gap; row++) {
            if (pl_table_row(&r.traj, row)[0] != pl_table_row(&r.traj, row - 1)[0])
                continue;
            switches++;
            for (size_t i = 0; i < m.m; i++) {
                double f = pl_solution_force_at(&r, row, i), f_before = pl_solution_force_at(&r, row - 1, i);
                if (f > 0.0 && f != f_before && pl_contact_in(pl_solution_gap_at(&r, &m, row - 1, i, gap), f_before) &&
                    pl_solution_gap_at(&r, &m, row, i, gap) > 0.0) {
                    stale++;
                    printf("pile of %g: row %zu, t = %.17g: constraint %zu out of contact pushes with %g\n",
                           piles[k][0], row, pl_table_row(&r.traj, row)[0], i, f);
                }
            }
        }
        free(gap);
        CHECK(switches > 10 && stale == 0, "pile of %g: %zu rows at a switch, %zu with a stale force",
              piles[k][0], switches, stale);
        pl_solution_free(&r);
        pl_model_free(&m);
    }
}

/* The disk of a dof (two dofs per disk, m = 1). */
static size_t disk_of(size_t dof)
{
    return dof / 2;
}

/* Each isolated impact of a box of 24 disks in one row at e = 0.8 (372 constraints: the impulses in slots): the
 * velocity jump of each of its disks over the episode is the episode's impulse along the normal, m dv_a
 * = I grad_a G (the normal at the middle row: it turns by about u_t (pi/omega)/(2 r), 1e-2 rad, in an
 * impact, and the force is not symmetric in time; 1.4e-3 of the jump here, a doubled impulse 1).  Isolated: no other
 * episode of either disk overlaps it.  The pile's momentum balance (test_impulse_balance) sees only the
 * walls' impulses, the pairs' cancelling in the sum. */
static void test_pair_impulses(void)
{
    pl_setting s[] = {{"config", 3}, {"N", 24}, {"e", 0.8}};
    pl_model m = {0};
    if (!init(&m, s, 3))
        return;
    pl_solution r;
    pl_error err;
    if (solve_penalty(&m, 1e6, 1e-8, 1.0, 0, &r, &err) != PL_OK) {
        CHECK(0, "box of 24: %s", err.message);
        pl_solution_free(&r);
        pl_model_free(&m);
        return;
    }
    size_t n = m.n, ne = r.nepisodes, P = 24 * 23 / 2, checked = 0;
    pl_gap *gap = pl_gap_new_sparse(1, &m, 0);
    size_t(*disks)[2] = malloc((ne ? ne : 1) * sizeof *disks);
    for (size_t k = 0; k < ne && gap && disks; k++) { /* the disks of each episode (a wall's: one) */
        pl_model_gap_sparse(&m, r.episodes[k].constraint, 0.0, pl_table_row(&r.traj, 0) + 2, gap);
        disks[k][0] = disk_of(pl_gap_dof(gap, 0));
        disks[k][1] = disk_of(pl_gap_dof(gap, gap->nsupport - 1));
    }
    double worst = 0.0;
    for (size_t k = 0; k < ne && gap && disks; k++) {
        const pl_episode *e = &r.episodes[k];
        if (e->constraint >= P || isnan(e->t_out) || e->row_out <= e->row_in)
            continue;
        int isolated = 1;
        for (size_t j = 0; j < ne && isolated; j++) {
            const pl_episode *o = &r.episodes[j];
            int shares = disks[j][0] == disks[k][0] || disks[j][0] == disks[k][1] || disks[j][1] == disks[k][0] ||
                         disks[j][1] == disks[k][1];
            double o_out = isnan(o->t_out) ? INFINITY : o->t_out;
            isolated = j == k || !shares || o_out < e->t_in || o->t_in > e->t_out;
        }
        if (!isolated)
            continue;
        size_t mid = (e->row_in + e->row_out) / 2;
        pl_model_gap_sparse(&m, e->constraint, 0.0, pl_table_row(&r.traj, mid) + 2, gap);
        const double *v_in = pl_table_row(&r.traj, e->row_in) + 2 + n, *v_out = pl_table_row(&r.traj, e->row_out) + 2 + n;
        double jump = 0.0, miss = 0.0;
        for (size_t x = 0; x < gap->nsupport; x++) {
            size_t d = pl_gap_dof(gap, x);
            double want = gap->grad[x] * e->impulse;
            miss = fmax(miss, fabs(v_out[d] - v_in[d] - want));
            jump = fmax(jump, fabs(want));
        }
        worst = fmax(worst, miss / jump);
        checked++;
    }
    free(disks);
    free(gap);
    printf("box of 24: %zu isolated pair impacts, m dv = I grad G to %.3g of the jump\n", checked, worst);
    CHECK(checked >= 10 && worst <= 1e-2, "box of 24: %zu isolated pair impacts, their velocity jumps the episodes' "
          "impulses to %.3g (<= 1e-2)", checked, worst);
    pl_solution_free(&r);
    pl_model_free(&m);
}

/* A row of 52 disks (n = 104 dofs, above PL_JUMP_DENSE_MAX_DOFS; 1534 constraints): the analysis keeps
 * each episode's velocity jump over its constraint's support, the same numbers as the rows' v(t_out) -
 * v(t_in) there, and each penalized impact's participants as a list, increasing, its own constraint
 * with the episode's impulse, which the dense arrays pl_event_copy fills say alike for every constraint. */
static void test_row_analysis(void)
{
    pl_setting s[] = {{"config", 3}, {"N", 52}};
    pl_model m = {0};
    if (!init(&m, s, 2))
        return;
    pl_solution r;
    pl_analysis a;
    pl_error err;
    if (solve_penalty(&m, 1e6, 1e-8, 0.3, 0, &r, &err) != PL_OK || pl_analyze(&m, &r, &a, &err) != PL_OK) {
        CHECK(0, "row of 52: %s", err.message);
        pl_solution_free(&r);
        pl_model_free(&m);
        return;
    }
    size_t n = m.n, bad_dofs = 0, bad_values = 0, bad_parts = 0, parts = 0;
    for (size_t k = 0; k < r.nepisodes; k++) {
        const pl_episode *e = &r.episodes[k];
        const pl_episode_info *in = &a.info[k];
        size_t count;
        const size_t *sup = pl_model_support(&m, e->constraint, &count);
        if (!in->dv_dofs || in->ndv != count || memcmp(in->dv_dofs, sup, count * sizeof *sup) != 0) {
            bad_dofs++;
            continue;
        }
        const double *v_in = pl_table_row(&r.traj, e->row_in) + 2 + n, *v_out = pl_table_row(&r.traj, e->row_out) + 2 + n;
        for (size_t x = 0; x < count; x++)
            bad_values += in->dv[x] != v_out[sup[x]] - v_in[sup[x]];
    }
    pl_event dense;
    int have = pl_event_alloc(&dense, n, m.m, PL_EVENT_IMPACT, 0.0, 0) == 0;
    for (size_t k = 0; k < a.impacts && have; k++) {
        const pl_event *e = &a.impact[k].event;
        int ok = !e->participants && !e->impulse && e->nparts >= 1;
        for (size_t p = 1; ok && p < e->nparts; p++)
            ok = e->part[p - 1] < e->part[p] && e->part[p] < m.m;
        double own = NAN;
        for (size_t j = 0; j < r.nepisodes; j++)
            if (r.episodes[j].constraint == e->constraint && r.episodes[j].t_in == e->t)
                own = r.episodes[j].impulse;
        ok = ok && pl_event_participant(e, e->constraint) && pl_event_impulse(e, e->constraint) == own;
        pl_event_copy(&dense, e, n, m.m);
        for (size_t i = 0; ok && i < m.m; i++)
            ok = (dense.participants[i] != 0) == pl_event_participant(e, i) && dense.impulse[i] == pl_event_impulse(e, i) &&
                 (i == e->constraint || dense.impulse[i] == 0.0);
        bad_parts += !ok;
        parts += e->nparts;
    }
    if (have)
        pl_event_free(&dense);
    printf("row of 52: %zu episodes, %zu impacts of %zu participants in all (m = %zu)\n", r.nepisodes, a.impacts, parts,
           m.m);
    CHECK(have && r.nepisodes >= 20 && a.impacts >= 10, "row of 52: %zu episodes, %zu impacts", r.nepisodes, a.impacts);
    CHECK(bad_dofs == 0 && bad_values == 0, "row of 52: every jump over its constraint's support (%zu not), the rows' "
          "v(t_out) - v(t_in) there (%zu values not)", bad_dofs, bad_values);
    CHECK(bad_parts == 0, "row of 52: every impact's participants listed, its own impulse, the dense copy alike (%zu not)",
          bad_parts);
    pl_analysis_free(&a);
    pl_solution_free(&r);
    pl_model_free(&m);
}

int main(void)
{
    check_init();
    test_model();
    test_no_stale_forces();
    test_pair_impulses();
    test_row_analysis();
    test_head_on();
    test_head_on_stays();
    test_head_on_offset_inelastic();
    test_wall_at_t_end();
    test_outgrown_box();
    test_oblique();
    test_long_flight_step();
    test_growing();
    test_feasibility();
    test_box();
    test_default_sweep();
    test_candidates_wide_box();
    test_work_per_step();
    test_limit_work_per_step();
    test_limit_neighbours();
    test_limit_many_disks();
    test_limit_separating_round_off();
    test_limit_stiff_many_disks();
    test_impulse_balance();
    return check_finish("test_spheres");
}
