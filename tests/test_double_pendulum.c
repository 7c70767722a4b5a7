/* The double pendulum of Ballard (ARMA 2000, sections 2.1 and 6.2), checked against the mechanics
 * rebuilt here from the geometry alone, not from the case's formulas:
 *
 *   - bar 1's point at distance s from the support is at s e(q1), bar 2's at l1 e(q1) + s e(q2), with
 *     e(q) = (sin q, cos q) (x across the obstacle, y along the vertical axis); the kinetic energy is
 *     the integral of (m/l) |r'|^2 / 2 along the bars (Gauss-Legendre, exact for these quadratics);
 *   - the potential: springs k1 q1^2/2 + k2 (q2 - q1)^2/2 and gravity g sum m y_centre;
 *   - the load -lambda e(q2) at the tip P = l1 e(q1) + l2 e(q2), through its virtual work dP/dq;
 *   - Lagrange's equations d/dt (dT/dv) - dT/dq = -dU/dq + Q, with the derivatives in q by central
 *     differences and M from the quadratic form T(v), give the free acceleration a(q, v).
 *
 * The constraints: G1 = x of the joint = l1 sin q1, G2 = x of the tip = l1 sin q1 + l2 sin q2.
 * A sustained contact of G1 alone (paper's Prop. 14, one constraint): the force lambda1 >= 0 of
 * M v' = f + lambda1 grad G1 solves W lambda1 = -D1, W = grad G1 . M^-1 grad G1, D1 = grad G1 . a + v^T
 * (d2 G1) v the free gap acceleration (paper 004 (37)); the paper's multiplier is -lambda1 (its
 * phi_1 = -G1).  On q1 = 0 the motion is the bilateral one: q1'' = 0, so the second equation of (4)
 * gives (m2 l2^2/3) q2'' = -k2 q2 (g = 0; the load does no work on q2): q2 = A cos(w t + phase),
 * w^2 = 3 k2/(m2 l2^2), and the first gives
 *   l1 lambda1 = c cos(q2) q2'' + lambda l1 sin q2 - k2 q2 - c sin(q2) q2'^2,   c = m2 l1 l2/2,
 * which stays positive while the joint is pressed; its root is the lift-off. */
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "solve.h"
#include "study/analysis.h"

typedef struct {
    double m1, m2, l1, l2, k1, k2, lam, g;
} bars;

static bars bars_of(const pl_model *m)
{
    return (bars){pl_model_param(m, "m1"), pl_model_param(m, "m2"), pl_model_param(m, "l1"),
                  pl_model_param(m, "l2"), pl_model_param(m, "k1"), pl_model_param(m, "k2"),
                  pl_model_param(m, "lambda"), pl_model_param(m, "g")};
}

/* Kinetic energy from the bars' point velocities: |r'|^2 is quadratic in s, so 2-point Gauss-Legendre
 * on [0, l] is exact. */
static double kinetic(const bars *b, const double *q, const double *v)
{
    const double xg[2] = {0.5 - 0.5 / sqrt(3.0), 0.5 + 0.5 / sqrt(3.0)};
    double T = 0.0;
    for (int k = 0; k < 2; k++) {
        double s1 = xg[k] * b->l1, s2 = xg[k] * b->l2;
        double r1[2] = {s1 * v[0] * cos(q[0]), -s1 * v[0] * sin(q[0])};
        double r2[2] = {b->l1 * v[0] * cos(q[0]) + s2 * v[1] * cos(q[1]),
                        -b->l1 * v[0] * sin(q[0]) - s2 * v[1] * sin(q[1])};
        T += 0.5 * 0.5 * b->m1 * (r1[0] * r1[0] + r1[1] * r1[1]); /* weight 1/2 of the length, mass/length */
        T += 0.5 * 0.5 * b->m2 * (r2[0] * r2[0] + r2[1] * r2[1]);
    }
    return T;
}

static double potential(const bars *b, const double *q)
{
    double y1 = 0.5 * b->l1 * cos(q[0]), y2 = b->l1 * cos(q[0]) + 0.5 * b->l2 * cos(q[1]);
    return 0.5 * b->k1 * q[0] * q[0] + 0.5 * b->k2 * (q[1] - q[0]) * (q[1] - q[0]) + b->g * (b->m1 * y1 + b->m2 * y2);
}

static double energy(const bars *b, const double *q, const double *v)
{
    return kinetic(b, q, v) + potential(b, q);
}

/* M from the quadratic form T(v) = v^T M v / 2 by polarisation. */
static void mass_of(const bars *b, const double *q, double *M)
{
    const double e1[2] = {1, 0}, e2[2] = {0, 1}, sum[2] = {1, 1}, dif[2] = {1, -1};
    M[0] = 2.0 * kinetic(b, q, e1);
    M[3] = 2.0 * kinetic(b, q, e2);
    M[1] = M[2] = 0.5 * (kinetic(b, q, sum) - kinetic(b, q, dif));
}

static void solve2(const double *M, const double *r, double *x)
{
    double det = M[0] * M[3] - M[1] * M[2];
    x[0] = (M[3] * r[0] - M[1] * r[1]) / det;
    x[1] = (M[0] * r[1] - M[2] * r[0]) / det;
}

/* The free acceleration from Lagrange's equations. */
static void free_accel(const bars *b, const double *q, const double *v, double *a)
{
    const double h = 1e-5;
    double M[4], rhs[2] = {0.0, 0.0};
    mass_of(b, q, M);
    for (int k = 0; k < 2; k++) {
        double qp[2] = {q[0], q[1]}, qm[2] = {q[0], q[1]}, Mp[4], Mm[4];
        qp[k] += h;
        qm[k] -= h;
        mass_of(b, qp, Mp);
        mass_of(b, qm, Mm);
        double dT = (kinetic(b, qp, v) - kinetic(b, qm, v)) / (2 * h);
        double dU = (potential(b, qp) - potential(b, qm)) / (2 * h);
        /* the load -lambda e(q2) at the tip, through dP/dq_k */
        double Pp[2] = {b->l1 * sin(qp[0]) + b->l2 * sin(qp[1]), b->l1 * cos(qp[0]) + b->l2 * cos(qp[1])};
        double Pm[2] = {b->l1 * sin(qm[0]) + b->l2 * sin(qm[1]), b->l1 * cos(qm[0]) + b->l2 * cos(qm[1])};
        double Q = -b->lam * (sin(q[1]) * (Pp[0] - Pm[0]) + cos(q[1]) * (Pp[1] - Pm[1])) / (2 * h);
        rhs[k] += dT - dU + Q;
        /* minus (d/dq (M v)) . v: the part of d/dt (M v) that is not M a */
        for (int i = 0; i < 2; i++)
            rhs[i] -= ((Mp[2 * i] - Mm[2 * i]) * v[0] + (Mp[2 * i + 1] - Mm[2 * i + 1]) * v[1]) / (2 * h) * v[k];
    }
    solve2(M, rhs, a);
}

static int init(pl_model *m, const pl_setting *s, size_t ns)
{
    pl_model_free(m); /* the model this variable held before */
    pl_error err;
    int ok = pl_model_init(m, &pl_case_double_pendulum, s, ns, &err) == PL_OK;
    CHECK(ok, "double_pendulum model: %s", err.message);
    return ok;
}

/* The model's F_v = M^-1 f and its mass matrix against Lagrange's equations of the geometry. */
static void test_equations(void)
{
    const pl_setting sets[][8] = {
        {{"lambda", 0.5}},
        {{"lambda", -1.3}, {"g", 2.5}, {"m1", 2.0}, {"l2", 1.7}, {"k1", 0.3}, {"k2", 3.0}},
        {{"lambda", 2.0}, {"g", -9.81}, {"m2", 0.4}, {"l1", 0.6}, {"k2", 0.0}},
    };
    const size_t nsets[] = {1, 6, 5};
    const double states[][4] = {{0.3, 0.5, -1.0, -1.0}, {1.2, -0.7, 2.0, 0.5}, {-2.5, 3.9, -0.3, 4.0}};
    for (size_t c = 0; c < 3; c++) {
        pl_model m = {0};
        if (!init(&m, sets[c], nsets[c]))
            continue;
        bars b = bars_of(&m);
        for (size_t k = 0; k < 3; k++) {
            const double *q = states[k], *v = states[k] + 2;
            double a[2], ref[2], M[4], Mref[4];
            accel_once(&m, 0.0, q, v, a, NULL, NULL);
            free_accel(&b, q, v, ref);
            double scale = fabs(ref[0]) + fabs(ref[1]) + 1.0;
            for (int j = 0; j < 2; j++)
                NEAR(a[j], ref[j], 1e-7 * scale, "set %zu, state %zu: F_v[%d] against Lagrange", c, k, j);
            CHECK(pl_model_mass(&m, q, M, NULL) == 0, "M positive definite");
            mass_of(&b, q, Mref);
            for (int j = 0; j < 4; j++)
                NEAR(M[j], Mref[j], 1e-13 * (fabs(Mref[0]) + fabs(Mref[3])), "set %zu, state %zu: M[%d]", c, k, j);
        }
        pl_model_free(&m);
    }
}

/* lambda = 0: T + U is conserved in flight, and by elastic impacts (e = 1); with gravity either way. */
static void test_energy(void)
{
    const double gs[] = {0.0, 0.7, -2.0};
    for (size_t c = 0; c < 3; c++) {
        pl_setting s[] = {{"lambda", 0.0}, {"e", 1.0}, {"g", gs[c]}};
        pl_model m = {0};
        pl_solution r;
        pl_error err;
        if (!init(&m, s, 3))
            continue;
        bars b = bars_of(&m);
        double q0[2], v0[2];
        pl_model_initial_state(&m, q0, v0);
        double E0 = energy(&b, q0, v0), Es = fabs(E0) + kinetic(&b, q0, v0); /* E0 < 0 when hanging */
        int ok = solve_limit(&m, 1e-12, 0.0, 0, &r, &err) == PL_OK;
        CHECK(ok, "g = %g: limit solution: %s", gs[c], err.message);
        if (ok) {
            size_t impacts = 0;
            for (size_t j = 0; j < r.nevents; j++) {
                const pl_event *e = &r.events[j];
                if (e->kind != PL_EVENT_IMPACT)
                    continue;
                impacts++;
                NEAR(energy(&b, e->q, e->v_before), E0, 1e-9 * Es, "g = %g: energy before impact %zu", gs[c], impacts);
                NEAR(energy(&b, e->q, e->v_after), E0, 1e-9 * Es, "g = %g: energy after impact %zu", gs[c], impacts);
            }
            CHECK(impacts >= 2, "g = %g: %zu impacts", gs[c], impacts);
            double worst = 0.0;
            for (size_t row = 0; row < r.traj.nrows; row++) {
                const double *y = pl_table_row(&r.traj, row);
                int inside = 0; /* the arc rows of an impact are at its time */
                for (size_t j = 0; j < r.nevents; j++)
                    inside |= r.events[j].kind == PL_EVENT_IMPACT && y[0] == r.events[j].t;
                if (!inside)
                    worst = fmax(worst, fabs(energy(&b, y + pl_col_q(2, 2), y + pl_col_v(2, 2)) - E0));
            }
            CHECK(worst <= 1e-9 * Es, "g = %g: energy in flight to %.2g of %g", gs[c], worst, E0);
        }
        pl_solution_free(&r);
        /* The penalty: T + U is conserved in the flight before the first contact.  Its elastic contact
         * is not exactly conservative at finite mu: the law's force -m_i k mu G_i (contact_law.h) has a
         * position-dependent effective mass m_i(q), so the contact's energy m_i k mu G^2/2 changes by
         * k mu G^2 dm_i/2 over it, O(V^2/omega) per impact: after the contacts T + U differs from E0 by
         * O(mu^-1/2). */
        double drift[2] = {NAN, NAN};
        for (int j = 0; j < 2; j++) {
            ok = solve_penalty(&m, j ? 1e10 : 1e8, 1e-10, 0.0, 0, &r, &err) == PL_OK;
            CHECK(ok, "g = %g: penalty: %s", gs[c], err.message);
            if (ok && r.nepisodes >= 2) {
                double worst = 0.0, t_in = r.episodes[0].t_in, t_last = r.episodes[r.nepisodes - 1].t_out;
                for (size_t row = 0; row < r.traj.nrows; row++) {
                    const double *y = pl_table_row(&r.traj, row);
                    double dE = fabs(energy(&b, y + pl_col_q(2, 2), y + pl_col_v(2, 2)) - E0);
                    if (y[0] < t_in)
                        worst = fmax(worst, dE);
                    else if (y[0] > t_last)
                        drift[j] = dE;
                }
                CHECK(worst <= 1e-9 * Es, "g = %g: penalty, energy in the first flight to %.2g of %g", gs[c], worst, E0);
            }
            CHECK(ok && r.nepisodes >= 2, "g = %g: %zu contacts", gs[c], ok ? r.nepisodes : 0);
            pl_solution_free(&r);
        }
        CHECK(drift[1] <= 1e-5 * Es, "g = %g: energy after the contacts, mu = 1e10: off by %.2g", gs[c], drift[1]);
        if (drift[0] > 1e-7 * Es) { /* above the integration's noise: the mu^-1/2 law */
            double rate = log10(drift[0] / drift[1]) / 2.0;
            CHECK(rate > 0.45 && rate < 0.55, "g = %g: energy drift falls like mu^-%.3f", gs[c], rate);
        }
        pl_model_free(&m);
    }
}

/* The joint held on the axis: lambda = 4 presses it while bar 2 swings from q2 = 1 at rest, until the
 * centrifugal term lifts it off. */
static void test_sliding(void)
{
    pl_setting s[] = {{"lambda", 4.0}, {"q1", 0.0}, {"v1", 0.0}, {"q2", 1.0}, {"v2", 0.0}, {"e", 0.0}};
    pl_model m = {0};
    pl_solution r;
    pl_error err;
    if (!init(&m, s, 6))
        return;
    bars b = bars_of(&m);
    double c = 0.5 * b.m2 * b.l1 * b.l2, w = sqrt(3.0 * b.k2 / (b.m2 * b.l2 * b.l2));
#define LAMBDA1(t)                                                                                 \
    ((c * cos(cos(w * (t))) * (-w * w * cos(w * (t))) + b.lam * b.l1 * sin(cos(w * (t))) - b.k2 * cos(w * (t)) - \
      c * sin(cos(w * (t))) * w * w * sin(w * (t)) * sin(w * (t))) / b.l1)
    double lo = 0.0, hi = M_PI / (2 * w); /* lambda1 > 0 at t = 0, < 0 where q2 = 0 */
    CHECK(LAMBDA1(lo) > 0.0 && LAMBDA1(hi) < 0.0, "the closed form brackets a lift-off");
    for (int k = 0; k < 200; k++) {
        double mid = 0.5 * (lo + hi);
        *(LAMBDA1(mid) > 0.0 ? &lo : &hi) = mid;
    }
    double t_off = lo;
    int ok = solve_limit(&m, 1e-12, 0.6, 0, &r, &err) == PL_OK;
    CHECK(ok, "sliding: limit solution: %s", err.message);
    if (ok) {
        int slide = 0, lift = 0;
        for (size_t j = 0; j < r.nevents; j++) {
            const pl_event *e = &r.events[j];
            slide |= e->kind == PL_EVENT_SLIDE_START && e->t == 0.0 && e->constraint == 0;
            if (e->kind == PL_EVENT_LIFT_OFF && e->constraint == 0 && !lift) {
                lift = 1;
                NEAR(e->t, t_off, 1e-9 * t_off, "lift-off where lambda1 of the bilateral motion vanishes");
            }
            CHECK(e->kind != PL_EVENT_IMPACT, "no impact before t = 0.6 (event at %g)", e->t);
        }
        CHECK(slide && lift, "the joint slides from t = 0 and lifts off");
        size_t rows = 0;
        double worst_gram = 0.0, worst_closed = 0.0, worst_q = 0.0, scale = LAMBDA1(0.0);
        for (size_t row = 0; row < r.traj.nrows; row++) {
            const double *y = pl_table_row(&r.traj, row), *q = y + pl_col_q(2, 2), *v = y + pl_col_v(2, 2);
            double lam1 = y[pl_col_force(2, 2)], t = y[0], x_tip = b.l1 * sin(q[0]) + b.l2 * sin(q[1]);
            CHECK(fabs(y[pl_col_g(2, 2)] - b.l1 * sin(q[0])) <= 1e-15 && fabs(y[pl_col_g(2, 2) + 1] - x_tip) <= 1e-15,
                  "G1, G2: the joint's and the tip's distances to the axis (t = %g)", t);
            /* Prop. 14 with one constraint: W lambda1 = -D1 over the set {1} while pressed */
            double M[4], a[2], grad[2] = {b.l1 * cos(q[0]), 0.0}, wv[2];
            mass_of(&b, q, M);
            free_accel(&b, q, v, a);
            solve2(M, grad, wv);
            double W = grad[0] * wv[0] + grad[1] * wv[1];
            double D = grad[0] * a[0] + grad[1] * a[1] - b.l1 * sin(q[0]) * v[0] * v[0];
            double gram = fmax(0.0, -D / W);
            if (row == 0) /* the start's state before its contact switch: no force yet */
                continue;
            if (fabs(t - t_off) <= 1e-12) {
                CHECK(fabs(lam1) <= 1e-12 * scale, "the force vanishes at the lift-off (%g)", lam1);
            } else if (t < t_off) {
                rows++;
                worst_gram = fmax(worst_gram, fabs(lam1 - gram));
                worst_closed = fmax(worst_closed, fabs(lam1 - LAMBDA1(t)));
                worst_q = fmax(worst_q, fmax(fabs(q[0]), fabs(q[1] - cos(w * t))));
            } else if (t > t_off) {
                CHECK(lam1 == 0.0, "no force after the lift-off (t = %g: %g)", t, lam1);
            }
        }
        CHECK(rows > 10, "%zu rows in the slide", rows);
        CHECK(worst_gram <= 1e-7 * scale, "lambda1 against the Gram LCP of M, grad G1 and D1: off by %.2g", worst_gram);
        CHECK(worst_closed <= 1e-10 * scale, "lambda1 against the bilateral motion's closed form: off by %.2g",
              worst_closed);
        CHECK(worst_q <= 1e-10, "q = (0, cos(w t)) while sliding: off by %.2g", worst_q);
    }
#undef LAMBDA1
    pl_solution_free(&r);
    pl_model_free(&m);
}

/* An inelastic impact of the joint followed at once by its lift-off: from (0.3, 0.3) at rest with e = 0 the
 * joint reaches the axis at t1 = 0.3089 with the tip away from it; the impulse along grad G1 = (l1, 0)
 * removes v1 and keeps (M v)_2; then G1 = Gdot1 = 0 while the free acceleration q1'' (Lagrange's
 * equations of the geometry) is positive, so q1 = q1'' tau^2/2 leaves the axis at once.  The limit
 * solution died right after that impact once (its gap tolerance at G1 = Gdot1 = 0 was 1e-42); its
 * state at t = 0.42, before the tip's impact, is compared with penalized runs (O(mu^-1/2)). */
static void test_lift_off_after_impact(void)
{
    pl_setting s[] = {{"e", 0.0}, {"q2", 0.3}, {"v2", 0.0}};
    pl_model m = {0};
    pl_solution r;
    pl_error err;
    if (!init(&m, s, 3))
        return;
    bars b = bars_of(&m);
    int ok = solve_limit(&m, 1e-12, 0.0, 0, &r, &err) == PL_OK;
    CHECK(ok, "limit solution to t = 5: %s", ok ? "" : err.message);
    if (ok && r.nevents >= 1 && r.events[0].kind == PL_EVENT_IMPACT && r.events[0].constraint == 0) {
        const pl_event *e = &r.events[0];
        double t1 = e->t, M[4], a[2];
        NEAR(e->v_after[0], 0.0, 1e-12, "v1 = 0 after the inelastic impact");
        mass_of(&b, e->q, M);
        NEAR(M[2] * e->v_after[0] + M[3] * e->v_after[1], M[2] * e->v_before[0] + M[3] * e->v_before[1], 1e-12,
             "(M v)_2 kept by the impulse along grad G1");
        free_accel(&b, e->q, e->v_after, a);
        CHECK(a[0] > 1.0, "the free q1'' after the impact pulls off the axis (%g)", a[0]);
        for (size_t j = 1; j < r.nevents; j++)
            CHECK(!(r.events[j].kind == PL_EVENT_SLIDE_START && r.events[j].t == t1), "no sustained contact at t1");
        size_t early = 0;
        for (size_t row = 0; row < r.traj.nrows; row++) {
            const double *y = pl_table_row(&r.traj, row);
            double tau = y[0] - t1;
            if (tau > 0.0 && tau < 1e-3) {
                early++;
                NEAR(y[pl_col_q(2, 2)], 0.5 * a[0] * tau * tau, 1e-2 * 0.5 * a[0] * tau * tau,
                     "q1 = q1'' tau^2/2 right after the impact (tau = %g)", tau);
            }
        }
        CHECK(early >= 1, "rows right after the impact: %zu", early);
    } else if (ok) {
        CHECK(0, "the first event is an impact of the joint");
    }
    pl_solution_free(&r);
    double lim[2] = {NAN, NAN}, dist[2] = {NAN, NAN};
    if (solve_limit(&m, 1e-12, 0.42, 0, &r, &err) == PL_OK)
        memcpy(lim, r.q_final, sizeof lim);
    pl_solution_free(&r);
    for (int j = 0; j < 2; j++) {
        ok = solve_penalty(&m, j ? 1e10 : 1e8, 1e-10, 0.42, 0, &r, &err) == PL_OK;
        CHECK(ok, "penalty: %s", ok ? "" : err.message);
        if (ok)
            dist[j] = fmax(fabs(r.q_final[0] - lim[0]), fabs(r.q_final[1] - lim[1]));
        pl_solution_free(&r);
    }
    CHECK(dist[1] < 1e-4 && dist[0] > 5.0 * dist[1], "limit against the penalty at t = 0.42: %.3g (mu = 1e8), %.3g (1e10)",
          dist[0], dist[1]);
    pl_model_free(&m);
}

/* The scales bound the free gap accelerations D_i (paper 004 (37)) and the gap rates along the
 * motion, with gravity and the load: along the limit solution's rows (and a penalized run's) of
 * several parameter sets, max |D_i| <= A and max |Gdot_i| <= V.  A was Omega V from the springs
 * alone: with g = 100 the free acceleration reached 235 A, with k1 = k2 = 0 and g = -100 (scales 0,
 * replaced by 1) 98 A. */
static void test_scales_bound(void)
{
    const pl_setting sets[][8] = {
        {{"lambda", 0.5}},
        {{"g", 100.0}, {"v1", 0.0}, {"v2", 0.0}, {"e", 0.9}},
        {{"k1", 0.0}, {"k2", 0.0}, {"lambda", 0.0}, {"g", -100.0}, {"v1", 0.0}, {"v2", 0.0}, {"e", 0.9}},
        {{"lambda", -1.3}, {"g", 2.5}, {"m1", 2.0}, {"l2", 1.7}, {"k1", 0.3}, {"k2", 3.0}},
        {{"lambda", 2.0}, {"g", -9.81}, {"m2", 0.4}, {"l1", 0.6}, {"k2", 0.0}},
        {{"lambda", 0.0}, {"e", 1.0}, {"g", -2.0}},
        {{"v1", -5.0}, {"v2", 5.0}},
    };
    const size_t nsets[] = {1, 4, 7, 6, 5, 3, 2};
    for (size_t c = 0; c < sizeof nsets / sizeof nsets[0]; c++) {
        pl_model m = {0};
        if (!init(&m, sets[c], nsets[c]))
            continue;
        bars b = bars_of(&m);
        for (int pen = 0; pen < 2; pen++) {
            pl_solution r;
            pl_error err;
            int ok = (pen ? solve_penalty(&m, 1e6, 1e-8, 0.0, 0, &r, &err) : solve_limit(&m, 1e-12, 0.0, 0, &r, &err)) == PL_OK;
            CHECK(ok, "set %zu, %s: %s", c, pen ? "penalty" : "limit", ok ? "" : err.message);
            double D_max = 0.0, gd_max = 0.0;
            for (size_t row = 0; ok && row < r.traj.nrows; row++) {
                const double *y = pl_table_row(&r.traj, row), *q = y + pl_col_q(2, 2), *v = y + pl_col_v(2, 2);
                double a[2];
                free_accel(&b, q, v, a);
                /* G1 = l1 sin q1, G2 = G1 + l2 sin q2: Gdot and Gddot along the free motion */
                double gd1 = b.l1 * cos(q[0]) * v[0], gd2 = gd1 + b.l2 * cos(q[1]) * v[1];
                double D1 = b.l1 * (cos(q[0]) * a[0] - sin(q[0]) * v[0] * v[0]);
                double D2 = D1 + b.l2 * (cos(q[1]) * a[1] - sin(q[1]) * v[1] * v[1]);
                D_max = fmax(D_max, fmax(fabs(D1), fabs(D2)));
                gd_max = fmax(gd_max, fmax(fabs(gd1), fabs(gd2)));
            }
            CHECK(D_max <= m.a_scale, "set %zu, %s: max |D_i| = %.4g <= A = %.4g", c, pen ? "penalty" : "limit", D_max,
                  m.a_scale);
            CHECK(gd_max <= m.v_scale, "set %zu, %s: max |Gdot_i| = %.4g <= V = %.4g", c, pen ? "penalty" : "limit",
                  gd_max, m.v_scale);
            pl_solution_free(&r);
        }
        pl_model_free(&m);
    }
}

/* The penalized law of constraint i (contact_law.h) added to the free motion: while G_i < 0,
 * M v' = f + lambda_i grad G_i, lambda_i = -m_i k (mu G_i + 2 xi sqrt(mu/k) Gdot_i), m_i = 1/(grad G_i . M^-1
 * grad G_i). */
typedef struct {
    bars b;
    double mu, k, xi;
} penalized;

static void penalized_rhs(const penalized *p, const double *y, double *yd)
{
    const double *q = y, *v = y + 2;
    double a[2];
    free_accel(&p->b, q, v, a);
    double G[2] = {p->b.l1 * sin(q[0]), p->b.l1 * sin(q[0]) + p->b.l2 * sin(q[1])};
    for (int i = 0; i < 2; i++) {
        if (!(G[i] < 0.0))
            continue;
        double M[4], grad[2] = {p->b.l1 * cos(q[0]), i ? p->b.l2 * cos(q[1]) : 0.0}, w[2];
        mass_of(&p->b, q, M);
        solve2(M, grad, w);
        double m_eff = 1.0 / (grad[0] * w[0] + grad[1] * w[1]), Gdot = grad[0] * v[0] + grad[1] * v[1];
        double lam = -m_eff * p->k * (p->mu * G[i] + 2.0 * p->xi * sqrt(p->mu / p->k) * Gdot);
        a[0] += w[0] * lam;
        a[1] += w[1] * lam;
    }
    yd[0] = v[0], yd[1] = v[1], yd[2] = a[0], yd[3] = a[1];
}

static void rk4_step(const penalized *p, const double *y, double h, double *out)
{
    double k[4][4], yt[4];
    for (int st = 0; st < 4; st++) {
        double c = st == 0 ? 0.0 : st == 3 ? 1.0 : 0.5;
        for (int j = 0; j < 4; j++)
            yt[j] = y[j] + (st ? c * h * k[st - 1][j] : 0.0);
        penalized_rhs(p, yt, k[st]);
    }
    for (int j = 0; j < 4; j++)
        out[j] = y[j] + h / 6.0 * (k[0][j] + 2.0 * k[1][j] + 2.0 * k[2][j] + k[3][j]);
}

/* RK4 with step h until G1 (the joint's gap) changes sign from `side`; the crossing is located by
 * bisection on the last step (the law switches there), and y is left at it. */
static void rk4_until_joint_crosses(const penalized *p, double *y, double h, double side)
{
    double next[4];
    for (long n = 0; n < 10000000; n++) {
        rk4_step(p, y, h, next);
        if (side * sin(next[0]) < 0.0) {
            double lo = 0.0, hi = h;
            for (int it = 0; it < 60; it++) {
                double mid = 0.5 * (lo + hi);
                rk4_step(p, y, mid, next);
                *(side * sin(next[0]) < 0.0 ? &hi : &lo) = mid;
            }
            rk4_step(p, y, hi, next);
            memcpy(y, next, sizeof next);
            return;
        }
        memcpy(y, next, sizeof next);
    }
}

/* Strong gravity (g = 100, from rest, e = 0.9, mu = 1e5): the joint falls to the axis at q1 = pi with
 * normal speed 17.25, and its 9 ms contact returns more than that, gravity adding ~g over it.  The run
 * was refused as "gaining energy" once (the check's slack 2 A (t_out - t_in) with A from the springs
 * alone, 13); the entry and exit rates against RK4 of the same penalized law built on the test's own
 * mechanics. */
static void test_strong_gravity_impact(void)
{
    pl_setting s[] = {{"g", 100.0}, {"v1", 0.0}, {"v2", 0.0}, {"e", 0.9}};
    pl_model m = {0};
    pl_solution r;
    pl_error err;
    if (!init(&m, s, 4))
        return;
    penalized p = {bars_of(&m), 1e5, m.law[0].k, m.law[0].xi};
    double y[4];
    pl_model_initial_state(&m, y, y + 2);
    rk4_until_joint_crosses(&p, y, 2e-5, +1.0);
    double rate_in = p.b.l1 * cos(y[0]) * y[2];
    rk4_until_joint_crosses(&p, y, 1e-7, -1.0);
    double rate_out = p.b.l1 * cos(y[0]) * y[2];
    CHECK(-rate_in > 17.0 && rate_out > -rate_in + 0.5, "the reference impact gains normal speed: %.6g in, %.6g out",
          -rate_in, rate_out);
    int ok = solve_penalty(&m, 1e5, 1e-10, 0.5, 0, &r, &err) == PL_OK;
    CHECK(ok, "penalty mu = 1e5, g = 100: %s", ok ? "" : err.message);
    if (ok && r.nepisodes >= 1 && r.episodes[0].constraint == 0) {
        NEAR(r.episodes[0].gdot_in, rate_in, 1e-5 * fabs(rate_in), "gap rate into the joint's first contact");
        NEAR(r.episodes[0].gdot_out, rate_out, 1e-5 * fabs(rate_in), "gap rate out of it");
    } else if (ok) {
        CHECK(0, "the first contact is the joint's");
    }
    pl_solution_free(&r);
    pl_model_free(&m);
}

/* A light bar 2 (m2 = 1e-8): its spring turns it at sqrt(3 k2/(m2 l2^2)) = 2.2e4 rad/s, so at mu = 1e6
 * (contact time pi/sqrt(k mu) = 3.1e-3) the tip's contacts are the free motion's own turns: the tip
 * reaches the axis at a few hundred per second and its free gap acceleration D2 (7.5e7 at the first)
 * turns it back within some 1e-5 s, dipping gdot^2/(2 D2) past the axis.  They are no impacts the run
 * resolves (the free motion changes the rate by D2 pi/omega, 2.4e5, over a contact) and the analysis
 * counts none; the joint's impact (bar 1, which its springs turn in seconds) is an impact of
 * the law, restitution 0.5 up to the free motion's change of the joint's rate over a contact, at the
 * limit solution's time within a contact time.  Each tip episode reaches below the axis, and the
 * deepest point of one shorter than 0.3/w2 (bar 2 turning through less than 0.3 rad, D2 nearly
 * constant) is its free dip gdot^2/(2 D2) within 5% (the contact's own force is 1e-3 of D2 there).
 * Before:
 * 438 impacts to t = 5, restitutions 0.999 (the tip), the first of max penetration 0 (a contact
 * within one step, whose rows are its entry and its exit). */
static void test_light_tip(void)
{
    pl_setting s[] = {{"m2", 1e-8}};
    pl_model m = {0};
    if (!init(&m, s, 1))
        return;
    bars b = bars_of(&m);
    pl_solution r, lim;
    pl_error err;
    pl_analysis a = {0};
    double mu = 1e6, omega = sqrt(mu * m.law[1].k), t_end = 0.3;
    int ok = solve_penalty(&m, mu, 1e-8, t_end, 0, &r, &err) == PL_OK && pl_analyze(&m, &r, &a, &err) == PL_OK;
    CHECK(ok, "penalty at mu = 1e6: %s", ok ? "" : err.message);
    int lok = solve_limit(&m, 1e-12, t_end, 0, &lim, &err) == PL_OK;
    CHECK(lok, "limit: %s", lok ? "" : err.message);
    const pl_event *joint = NULL;
    for (size_t k = 0; lok && k < lim.nevents && !joint; k++)
        if (lim.events[k].kind == PL_EVENT_IMPACT && lim.events[k].participants[0])
            joint = &lim.events[k];
    if (ok && joint) {
        CHECK(a.impacts == 1 && a.impact[0].event.constraint == 0, "one impact, the joint's (%zu impacts)", a.impacts);
        if (a.impacts >= 1)
            NEAR(a.impact[0].event.t, joint->t, M_PI / omega, "the joint's impact at the limit's %.9g", joint->t);
        if (a.impacts >= 1) {
            /* the joint's restitution, the law's e up to the free motion's change of its rate over a contact */
            const pl_event *e = &a.impact[0].event;
            double acc[2];
            free_accel(&b, e->q, e->v_before, acc);
            double D1 = b.l1 * cos(e->q[0]) * acc[0] - b.l1 * sin(e->q[0]) * e->v_before[0] * e->v_before[0];
            NEAR(a.restitution_first, 0.5, fabs(D1) * M_PI / omega / fabs(e->gdot_before),
                 "the joint's restitution, the law's e");
        }
        /* bar 2's own frequency; over a contact shorter than 0.3/w2 its free acceleration is nearly constant */
        double w2 = sqrt(3.0 * b.k2 / (b.m2 * b.l2 * b.l2));
        size_t tips = 0, unresolved = 0, deep = 0, brief = 0, dips = 0;
        for (size_t k = 0; k < r.nepisodes; k++) {
            const pl_episode *ep = &r.episodes[k];
            if (ep->constraint != 1 || isnan(ep->t_out))
                continue;
            tips++;
            unresolved += a.info[k].kind == PL_UNRESOLVED;
            deep += ep->max_penetration > 0.0;
            if (w2 * (ep->t_out - ep->t_in) >= 0.3)
                continue;
            brief++;
            const double *row = pl_table_row(&r.traj, ep->row_in), *q = row + pl_col_q(2, 2), *v = row + pl_col_v(2, 2);
            double acc[2];
            free_accel(&b, q, v, acc);
            double D = b.l1 * cos(q[0]) * acc[0] + b.l2 * cos(q[1]) * acc[1] - b.l1 * sin(q[0]) * v[0] * v[0] -
                       b.l2 * sin(q[1]) * v[1] * v[1];
            double dip = ep->gdot_in * ep->gdot_in / (2.0 * D);
            dips += D > 0.0 && fabs(ep->max_penetration / dip - 1.0) < 0.05;
        }
        CHECK(tips >= 10 && unresolved == tips && a.touches_unresolved == tips,
              "the tip's %zu contacts are no impacts (%zu unresolved)", tips, unresolved);
        CHECK(deep == tips && brief >= 1 && dips == brief,
              "the tip's deepest points: all below the axis (%zu of %zu), the free dips of the brief ones (%zu of %zu)",
              deep, tips, dips, brief);
    } else if (ok && lok) {
        CHECK(0, "the limit has an impact of the joint before t = %g", t_end);
    }
    pl_analysis_free(&a);
    pl_solution_free(&r);
    pl_solution_free(&lim);
    pl_model_free(&m);
}

int main(void)
{
    check_init();
    test_equations();
    test_energy();
    test_sliding();
    test_lift_off_after_impact();
    test_scales_bound();
    test_strong_gravity_impact();
    test_light_tip();
    return check_finish("test_double_pendulum");
}
