/* The corner of paper 002 section 7: a unit mass at (-1 + eps, -1) with velocity (1, 1) between the
 * walls G1 = -y >= 0 and G2 = -sin(a) x + cos(a) y >= 0 (unit normals n1 = (0, -1),
 * n2 = (-sin a, cos a); a = 135 degrees: G2 = -(x + y)/sqrt(2)), elastic.
 *
 * Rigid branches at 135 degrees (reflection v - 2 (v . n) n): eps < 0 hits wall 1 alone at t = 1,
 * v . n1 = -1, and leaves with (1, -1), then runs parallel to wall 2 (x + y = eps): at t = 2,
 * q = (eps + t - 1, 1 - t).  eps > 0 hits wall 2 alone at t = 1 - eps/2, v . n2 = -sqrt(2), and leaves
 * with (1, 1) - 2 (1, 1) = (-1, -1), away from wall 1: q = (1 - t, 1 - eps - t).
 *
 * Near eps = 0 the penalized motion, in the scaled variables X = sqrt(k mu) q, S = sqrt(k mu)(t - 1),
 * is X'' = -sum_i r_i (n_i . X)^- n_i with r_1 = 1, r_2 = k2/k, from X = (s + S, S), s = eps sqrt(k mu):
 * its outcome depends on s and k2/k alone.  The reference below integrates that system itself (RK4;
 * the right-hand side is continuous, so the step 1e-4 gives ~1e-10). */
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "solve.h"
#include "study/sweep.h"

/* Outgoing velocity of the scaled two-wall system for offset s, stiffness ratio r, angle in degrees. */
static void reference(double s, double r, double angle, double *vout)
{
    double a = angle * M_PI / 180.0, n[2][2] = {{0.0, -1.0}, {-sin(a), cos(a)}}, kk[2] = {1.0, r};
    double S0 = -2.0 - fabs(s), h = 1e-4, y[4] = {s + S0, S0, 1.0, 1.0};
    for (long step = 0; step < (long)(30.0 / h); step++) {
        double k[4][4], yt[4];
        for (int st = 0; st < 4; st++) {
            double c = st == 0 ? 0.0 : st == 3 ? 1.0 : 0.5;
            for (int j = 0; j < 4; j++)
                yt[j] = y[j] + (st ? c * h * k[st - 1][j] : 0.0);
            k[st][0] = yt[2];
            k[st][1] = yt[3];
            k[st][2] = k[st][3] = 0.0;
            for (int i = 0; i < 2; i++) {
                double g = n[i][0] * yt[0] + n[i][1] * yt[1];
                if (g < 0.0) {
                    k[st][2] -= kk[i] * g * n[i][0];
                    k[st][3] -= kk[i] * g * n[i][1];
                }
            }
        }
        for (int j = 0; j < 4; j++)
            y[j] += h / 6.0 * (k[0][j] + 2.0 * k[1][j] + 2.0 * k[2][j] + k[3][j]);
    }
    vout[0] = y[2];
    vout[1] = y[3];
}

static int init(pl_model *m, const pl_setting *s, size_t ns)
{
    pl_error err;
    int ok = pl_model_init(m, &pl_case_corner, s, ns, &err) == PL_OK;
    CHECK(ok, "corner model: %s", err.message);
    return ok;
}

static int limit_v(const pl_model *m, double *v, double *q, pl_solution *r)
{
    pl_error err;
    int ok = solve_limit(m, 1e-12, 2.0, 0, r, &err) == PL_OK;
    CHECK(ok, "limit solution: %s", err.message);
    if (ok) {
        memcpy(v, r->v_final, 2 * sizeof *v);
        if (q)
            memcpy(q, r->q_final, 2 * sizeof *q);
    }
    return ok;
}

static int penalty_v(const pl_model *m, double mu, double *v, double *q)
{
    pl_error err;
    pl_solution p;
    int ok = solve_penalty(m, mu, 1e-10, 2.0, 0, &p, &err) == PL_OK;
    CHECK(ok, "penalty mu = %g: %s", mu, err.message);
    if (ok) {
        memcpy(v, p.v_final, 2 * sizeof *v);
        if (q)
            memcpy(q, p.q_final, 2 * sizeof *q);
    }
    pl_solution_free(&p);
    return ok;
}

static void test_parameters(void)
{
    pl_model m;
    if (init(&m, NULL, 0)) {
        CHECK(m.law[0].k == 1.0 && m.law[1].k == 1.0 && m.law[0].xi == 0.0, "defaults: k2 = k = 1, elastic");
        double q[2] = {0.3, -0.7};
        pl_gap *g = pl_gap_new(1, m.n, 0);
        pl_model_gap(&m, 1, 0.0, q, g);
        CHECK_NEAR(g->g, -(0.3 - 0.7) / sqrt(2.0), 1e-15, "G2 = -(x + y)/sqrt(2) at 135 degrees");
        CHECK_NEAR(g->grad[0], -1.0 / sqrt(2.0), 1e-15, "unit normal n2");
        free(g);
        pl_model_free(&m);
    }
    pl_setting s[] = {{"k", 3.0}, {"k2", 5.0}};
    if (init(&m, s, 2))
        CHECK(m.law[0].k == 3.0 && m.law[1].k == 5.0, "k on wall 1, k2 on wall 2");
    pl_model_free(&m);
    pl_setting s90[] = {{"angle", 90.0}};
    if (init(&m, s90, 1)) {
        double q[2] = {0.3, -0.7};
        pl_gap *g = pl_gap_new(1, m.n, 0);
        pl_model_gap(&m, 1, 0.0, q, g);
        CHECK_NEAR(g->g, -0.3, 1e-15, "G2 = -x at 90 degrees");
        free(g);
        pl_model_free(&m);
    }
    pl_error err;
    pl_setting bad[] = {{"angle", 30.0}};
    CHECK(pl_model_init(&m, &pl_case_corner, bad, 1, &err) == PL_ERR_INPUT && strstr(err.message, "inside"),
          "a start outside the corner is refused: %s", err.message);
}

/* eps = -0.2 and +0.2 at 135 degrees: one impact each, against the reflections above. */
static void test_rigid_branches(void)
{
    for (int b = 0; b < 2; b++) {
        double eps = b ? 0.2 : -0.2;
        double v_ref[2] = {b ? -1.0 : 1.0, -1.0};
        double q_ref[2] = {b ? -1.0 : eps + 1.0, b ? -1.0 - eps : -1.0}; /* at t = 2 */
        pl_setting s[] = {{"eps", eps}};
        pl_model m;
        pl_solution r;
        double v[2], q[2];
        if (!init(&m, s, 1))
            continue;
        if (limit_v(&m, v, q, &r)) {
            CHECK(r.nevents == 1 && r.events[0].kind == PL_EVENT_IMPACT && r.events[0].constraint == (b ? 1u : 0u),
                  "eps = %g: a single impact, on wall %d", eps, b ? 2 : 1);
            if (r.nevents >= 1)
                NEAR(r.events[0].t, b ? 1.0 - eps / 2 : 1.0, 1e-10, "eps = %g: impact time", eps);
            CHECK_NEAR(pl_model_limit_value(&m, PL_LIMIT_FIRST_IMPACT_TIME), b ? 0.9 : 1.0, 1e-15, "limit_value t1");
            for (int j = 0; j < 2; j++) {
                NEAR(v[j], v_ref[j], 1e-10, "eps = %g: limit v[%d]", eps, j);
                NEAR(q[j], q_ref[j], 1e-10, "eps = %g: limit q[%d] at t = 2", eps, j);
            }
        }
        pl_solution_free(&r);
        if (penalty_v(&m, 1e8, v, q))
            for (int j = 0; j < 2; j++) {
                NEAR(v[j], v_ref[j], 1e-6, "eps = %g: penalty mu = 1e8, v[%d]", eps, j);
                /* the contact lasts pi/sqrt(k mu): positions lag by ~3e-4 */
                NEAR(q[j], q_ref[j], 1e-3, "eps = %g: penalty mu = 1e8, q[%d]", eps, j);
            }
        pl_model_free(&m);
    }
}

/* Inelastic (e = 0) from eps = -0.2: wall 1 at t = 1 removes the normal velocity, (1, 1) -> (1, 0); the
 * mass slides along wall 1 into the corner at t = 1.2, where wall 2 removes its normal velocity and
 * leaves the tangential part along d2 = (-cos a, -sin a): v+ = (v . d2) d2 = (cos^2 a, cos a sin a),
 * pressed against neither wall (n1 . v+ = -cos a sin a > 0, wall 1 left behind; G2 = Gdot2 = 0 with no
 * force: a grazing slide).  The limit solution died at t = 1.2 once ("step size too small": the gap
 * tolerance at G2 = Gdot2 = 0, q = 0 was 1e-42). */
static void test_inelastic_slide(void)
{
    const double angles[] = {120.0, 135.0, 150.0};
    for (int c = 0; c < 3; c++) {
        double a = angles[c] * M_PI / 180.0, v_ref[2] = {cos(a) * cos(a), cos(a) * sin(a)};
        pl_setting s[] = {{"angle", angles[c]}, {"eps", -0.2}, {"e", 0.0}};
        pl_model m;
        pl_solution r;
        double v[2], q[2];
        if (!init(&m, s, 3))
            continue;
        if (limit_v(&m, v, q, &r)) {
            CHECK(r.nevents >= 2 && r.events[0].kind == PL_EVENT_IMPACT && r.events[1].kind == PL_EVENT_IMPACT,
                  "%g degrees: two impacts (%zu events)", angles[c], r.nevents);
            if (r.nevents >= 2) {
                NEAR(r.events[0].t, 1.0, 1e-12, "%g degrees: wall 1 at t = 1", angles[c]);
                NEAR(r.events[1].t, 1.2, 1e-12, "%g degrees: the corner at t = 1.2", angles[c]);
                CHECK(r.events[1].participants[1], "%g degrees: wall 2 takes part", angles[c]);
            }
            for (int j = 0; j < 2; j++) {
                NEAR(v[j], v_ref[j], 1e-12, "%g degrees: limit v[%d] after the corner", angles[c], j);
                NEAR(q[j], 0.8 * v_ref[j], 1e-12, "%g degrees: limit q[%d] at t = 2", angles[c], j);
            }
        }
        pl_solution_free(&r);
        if (penalty_v(&m, 1e8, v, q))
            for (int j = 0; j < 2; j++)
                NEAR(v[j], v_ref[j], 1e-6, "%g degrees: penalty mu = 1e8, v[%d]", angles[c], j);
        pl_model_free(&m);
    }
}

/* eps = 0: the penalized outcome is that of the scaled system, at every mu; the limit solution's
 * corner impact (the fast system holding both walls) gives it too. */
static void test_into_the_corner(void)
{
    const double ratios[] = {1.0, 2.0};
    for (int c = 0; c < 2; c++) {
        double ref[2], v6[2], v10[2], vl[2];
        reference(0.0, ratios[c], 135.0, ref);
        if (c == 1) /* paper 002 notes, phi2 = x + y unnormalised: twice the stiffness on wall 2 */
            CHECK(fabs(ref[0] + 0.6299) < 1e-4 && fabs(ref[1] + 1.2662) < 1e-4, "k2 = 2k: (%.6f, %.6f)", ref[0],
                  ref[1]);
        CHECK_NEAR(ref[0] * ref[0] + ref[1] * ref[1], 2.0, 1e-8, "reference conserves energy");
        pl_setting s[] = {{"k", 3.0}, {"k2", 3.0 * ratios[c]}};
        pl_model m;
        pl_solution r;
        if (!init(&m, s, 2))
            continue;
        if (penalty_v(&m, 1e6, v6, NULL) && penalty_v(&m, 1e10, v10, NULL))
            for (int j = 0; j < 2; j++) {
                NEAR(v6[j], v10[j], 1e-6, "k2/k = %g: mu = 1e6 and 1e10 agree, v[%d]", ratios[c], j);
                NEAR(v10[j], ref[j], 1e-6, "k2/k = %g: penalty against the scaled system, v[%d]", ratios[c], j);
            }
        if (limit_v(&m, vl, NULL, &r))
            for (int j = 0; j < 2; j++)
                NEAR(vl[j], ref[j], 1e-7, "k2/k = %g: limit corner impact, v[%d]", ratios[c], j);
        pl_solution_free(&r);
        pl_model_free(&m);
    }
}

/* eps = s/sqrt(k mu): the outcome depends on s alone, between the branches (1, -1) and (-1, -1). */
static void test_scaled_offset(void)
{
    const double ss[] = {-1.0, 1.0};
    for (int c = 0; c < 2; c++) {
        double ref[2], v[2];
        reference(ss[c], 1.0, 135.0, ref);
        pl_setting s[] = {{"eps", ss[c] / sqrt(1e8)}};
        pl_model m;
        if (init(&m, s, 1) && penalty_v(&m, 1e8, v, NULL))
            for (int j = 0; j < 2; j++)
                NEAR(v[j], ref[j], 1e-6, "s = %g: penalty against the scaled system, v[%d]", ss[c], j);
        pl_model_free(&m);
    }
    /* Exactly on a rigid branch beyond the overlap of the contacts: for s < 0 wall 1 holds the mass for
     * S in [0, pi], at X = (s + S, sin S), while G2 = -(s + S + sin S)/sqrt(2) stays positive iff s <= -pi
     * (S + sin S increases to pi); for s > 0 wall 2
     * holds it from X = (s/2, -s/2), moving it by sin(w S)/w (1, 1), w = sqrt(k2/k), so G1 = s/2 -
     * sin(w S)/w stays positive iff s >= 2/w. */
    const struct {
        double s, r, vx;
    } edge[] = {{-3.2, 1.0, 1.0}, {-3.2, 2.0, 1.0}, {2.05, 1.0, -1.0}, {1.45, 2.0, -1.0}};
    for (int c = 0; c < 4; c++) {
        double ref[2], v[2];
        reference(edge[c].s, edge[c].r, 135.0, ref);
        NEAR(ref[0], edge[c].vx, 1e-8, "s = %g, k2/k = %g: scaled system on the rigid branch", edge[c].s, edge[c].r);
        NEAR(ref[1], -1.0, 1e-8, "s = %g, k2/k = %g: scaled system on the rigid branch", edge[c].s, edge[c].r);
        pl_setting s[] = {{"eps", edge[c].s / sqrt(1e8)}, {"k2", edge[c].r}};
        pl_model m;
        if (init(&m, s, 2) && penalty_v(&m, 1e8, v, NULL)) {
            NEAR(v[0], edge[c].vx, 1e-6, "s = %g, k2/k = %g: penalty on the rigid branch", edge[c].s, edge[c].r);
            NEAR(v[1], -1.0, 1e-6, "s = %g, k2/k = %g: penalty on the rigid branch", edge[c].s, edge[c].r);
        }
        pl_model_free(&m);
    }
}

/* The restitution of the first impact in a sweep at eps = 0.  The penalty's first episode is wall 1's
 * (both walls are entered at t = 1; the lowest index first), the limit labels its corner impact with
 * wall 2 (the faster approach, Gdot2 = -sqrt(2)): the sweep compares the run with the limit's restitution
 * of wall 1 in that impact, -Gdot1(v+)/Gdot1(v-) = -v+_y with v+ the scaled system's outcome, and the run
 * measures wall 1 to the end of the overlapping wall-2 episode, when the corner's fast motion is over.
 * (The sweep once compared the run's wall-1 episode, 1.2045 at every mu, with the limit's wall 2, 0.8801.) */
static void test_sweep_restitution(void)
{
    double ref[2];
    reference(0.0, 1.0, 135.0, ref);
    pl_model m;
    if (!init(&m, NULL, 0))
        return;
    double mu[] = {1e6, 1e7, 1e8, 1e9, 1e10};
    pl_sweep_opts o = {.solver = &pl_solver_penalty, .jobs = 2, .with_limit = 1};
    pl_solve_opts_init(&o.base, &pl_solver_penalty, &m, NAN);
    o.base.samples = 0;
    pl_sweep sw;
    pl_error err;
    if (pl_sweep_run(&m, mu, 5, &o, &sw, &err) != PL_OK) {
        CHECK(0, "sweep: %s", err.message);
        pl_model_free(&m);
        return;
    }
    const pl_sweep_quantity *r = &sw.q[PL_Q_RESTITUTION_FIRST];
    NEAR(r->conv.limit, -ref[1], 1e-6, "the limit's restitution of wall 1 in the corner impact");
    CHECK(r->conv.reference == PL_REF_LIMIT, "taken from the limit solution");
    for (size_t k = 0; k < 5; k++) {
        CHECK(sw.analysis[k].restitution_first_constraint == 0, "mu = %g: measured on wall 1", mu[k]);
        NEAR(r->values[k], -ref[1], 1e-6, "mu = %g: the run's restitution of wall 1 through the corner", mu[k]);
    }
    NEAR(pl_analysis_restitution_of(&m, &sw.limit_analysis, 1), -(ref[0] + ref[1]) / 2.0, 1e-6,
         "the limit's wall 2: -Gdot2(v+)/Gdot2(v-)");
    CHECK(sw.limit_analysis.restitution_first_constraint == 1, "the limit labels the corner impact with wall 2");
    pl_sweep_free(&sw);
    pl_model_free(&m);
}

/* 90 degrees: orthogonal walls, x and y decouple, every start gives (-1, -1). */
static void test_orthogonal(void)
{
    const double eps[] = {-1e-6, 0.0, 1e-6};
    double ref[2];
    reference(0.0, 2.0, 90.0, ref);
    CHECK(fabs(ref[0] + 1.0) < 1e-9 && fabs(ref[1] + 1.0) < 1e-9, "90 degrees, scaled system: (-1, -1)");
    for (int c = 0; c < 3; c++) {
        pl_setting s[] = {{"angle", 90.0}, {"eps", eps[c]}};
        pl_model m;
        pl_solution r;
        double vl[2], vp[2];
        if (!init(&m, s, 2))
            continue;
        if (limit_v(&m, vl, NULL, &r))
            for (int j = 0; j < 2; j++)
                NEAR(vl[j], -1.0, 1e-9, "90 degrees, eps = %g: limit v[%d]", eps[c], j);
        pl_solution_free(&r);
        if (penalty_v(&m, 1e8, vp, NULL))
            for (int j = 0; j < 2; j++)
                NEAR(vp[j], -1.0, 1e-6, "90 degrees, eps = %g: penalty mu = 1e8, v[%d]", eps[c], j);
        pl_model_free(&m);
    }
}

int main(void)
{
    check_init();
    test_parameters();
    test_rigid_branches();
    test_inelastic_slide();
    test_into_the_corner();
    test_scaled_offset();
    test_sweep_restitution();
    test_orthogonal();
    return check_finish("test_corner");
}
