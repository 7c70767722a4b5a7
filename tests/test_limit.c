/* The limit solution against closed forms, mode by mode: flight, impact (the fast system's
 * restitution and Delta Gamma), multi-constraint (corner) impacts, sustained contact with its
 * sliding force, lift-off and the analytic flight after it, Zeno accumulation and the continuation
 * past it (paper 004 Theorem 7; paper 002 section 6.1). */
#include <string.h>

#include "cases/cases.h"
#include "core/clock.h"
#include "laws/law.h"
#include "laws/restitution.h"
#include "check.h"
#include "solvers/limit/impact.h"
#include "solve.h"
#include "table_flight.h"

static pl_status solve(const pl_case *c, const pl_setting *s, size_t ns, double t_end, pl_model *m, pl_solution *r)
{
    pl_error err;
    CHECK(pl_model_init(m, c, s, ns, &err) == PL_OK, "model: %s", err.message);
    pl_status st = solve_limit(m, 1e-12, t_end, 100, r, &err);
    CHECK(st == PL_OK, "%s: limit solution failed: %s", c->name, err.message);
    return st;
}

/* The end of a test's run: its solution and its model. */
static void release(pl_model *m, pl_solution *r)
{
    pl_solution_free(r);
    pl_model_free(m);
}

static size_t count(const pl_solution *r, pl_event_kind kind)
{
    size_t k = 0;
    for (size_t e = 0; e < r->nevents; e++)
        k += r->events[e].kind == kind;
    return k;
}

/* The fast system alone: restitution, Delta Gamma and settling against the closed forms. */
static void test_impact_map(void)
{
    const double xis[] = {0.05, 0.3, 0.7, 0.95};
    for (int k = 0; k < 4; k++) {
        pl_setting s[] = {{"xi", xis[k]}, {"k", 2.0}};
        pl_model m;
        pl_error err;
        pl_model_init(&m, &pl_case_bouncing_ball, s, 2, &err);
        pl_impact_work *iw = pl_impact_work_new(&m);
        double q = 0.0, v = -3.0, xi = xis[k];
        int part[] = {1};
        pl_impact im;
        CHECK(pl_impact_solve(&m, iw, 0.0, &q, &v, part, &im, &err) == PL_OK, "impact: %s", err.message);
        double e = exp(-M_PI * xi / sqrt(1 - xi * xi));
        CHECK_NEAR(im.v_plus[0], 3.0 * e, 1e-11, "restitution of the fast system");
        /* Delta Gamma = total variation of z' (unit mass, gravity absent in fast time): the force
         * changes sign at b s = atan2(2ab, a^2 - b^2), a = xi w, b = w sqrt(1 - xi^2), w = sqrt(k). */
        double w = sqrt(2.0), a = xi * w, b = w * sqrt(1 - xi * xi), ts = atan2(2 * a * b, a * a - b * b) / b;
        double peak = -(3.0 / b) * exp(-a * ts) * (b * cos(b * ts) - a * sin(b * ts));
        CHECK_NEAR(im.delta_gamma, 2 * peak + 3.0 * (1 - e), 1e-9, "Delta Gamma of the fast system");
        CHECK_NEAR(im.s_exit, M_PI / b, 1e-9, "exit time s* = pi/b");
        pl_impact_free(&im);
        pl_impact_work_free(iw);
        pl_model_free(&m);
    }
    pl_setting s[] = {{"e", 0.0}};
    pl_model m;
    pl_error err;
    pl_model_init(&m, &pl_case_bouncing_ball, s, 1, &err);
    pl_impact_work *iw = pl_impact_work_new(&m);
    double q = 0.0, v = -2.0;
    int part[] = {1};
    pl_impact im;
    pl_impact_solve(&m, iw, 0.0, &q, &v, part, &im, &err);
    CHECK(im.settled[0] && im.v_plus[0] == 0.0, "xi = 1: the fast motion settles, v+ = 0 (%g)", im.v_plus[0]);
    pl_impact_free(&im);
    pl_impact_work_free(iw);
    pl_model_free(&m);
    /* A law that never pulls: the impulse is the momentum change (1 + e) V exactly, and Delta Gamma the
     * impulse (unit mass, |w| = 1), with the exit rate from the law's closed-form map (impact.c); the
     * fast system alone left them 8.4e-13 of V off at xi = 5. */
    const double clamped_xi[] = {0.3, 5.0};
    for (int k = 0; k < 2; k++) {
        pl_setting sc[] = {{"xi", clamped_xi[k]}};
        CHECK(pl_model_init_law(&m, &pl_case_bouncing_ball, &pl_law_kelvin_voigt_clamped, sc, 1, &err) == PL_OK, "%s",
              err.message);
        iw = pl_impact_work_new(&m);
        v = -2.0;
        CHECK(pl_impact_solve(&m, iw, 0.0, &q, &v, part, &im, &err) == PL_OK, "clamped xi = %g: %s", clamped_xi[k],
              err.message);
        double e = pl_restitution_kelvin_voigt_clamped(clamped_xi[k]);
        NEAR(im.v_plus[0], 2.0 * e, 1e-15, "clamped xi = %g: the exit speed e V", clamped_xi[k]);
        NEAR(im.impulse[0], 2.0 * (1.0 + e), 2e-14, "clamped xi = %g: the impulse (1 + e) V", clamped_xi[k]);
        NEAR(im.delta_gamma, 2.0 * (1.0 + e), 2e-14, "clamped xi = %g: Delta Gamma = the impulse", clamped_xi[k]);
        pl_impact_free(&im);
        pl_impact_work_free(iw);
        pl_model_free(&m);
    }
    /* Strongly overdamped contacts are stiff in fast time (ratio ~4 xi^2) and slow to settle
     * (~2 xi/sqrt(k)): the implicit stepper settles them in a bounded number of steps (this once
     * took 1.2e7 explicit steps at xi = 1000). */
    const double big[] = {10.0, 1e3, 1e6};
    for (int k = 0; k < 3; k++) {
        pl_setting sx[] = {{"xi", big[k]}};
        pl_model_init(&m, &pl_case_bouncing_ball, sx, 1, &err);
        iw = pl_impact_work_new(&m);
        CHECK(pl_impact_solve(&m, iw, 0.0, &q, &v, part, &im, &err) == PL_OK, "xi = %g: %s", big[k], err.message);
        CHECK(im.settled[0] && fabs(im.v_plus[0]) < 1e-12, "xi = %g settles (v+ = %g)", big[k], im.v_plus[0]);
        CHECK(im.fast_steps < 10000, "xi = %g in %zu fast steps", big[k], im.fast_steps);
        pl_impact_free(&im);
        pl_impact_work_free(iw);
        pl_model_free(&m);
    }
}

static void test_flight_and_impacts(void)
{
    pl_model m;
    pl_solution r;
    pl_setting s[] = {{"e", 0.5}};
    if (solve(&pl_case_bouncing_ball, s, 1, 0.8, &m, &r) != PL_OK)
        return release(&m, &r);
    double g = 9.81, t1 = sqrt(2 / g), v1 = sqrt(2 * g);
    CHECK(count(&r, PL_EVENT_IMPACT) == 1, "one impact before t = 0.8 (the next is at 2 t1)");
    const pl_event *e = &r.events[0];
    CHECK_NEAR(e->t, t1, 1e-12, "flight: first impact time");
    CHECK_NEAR(e->v_before[0], -v1, 1e-10, "flight: impact speed");
    CHECK_NEAR(e->v_after[0], 0.5 * v1, 1e-10, "impact: v+ = -e v-");
    CHECK_NEAR(e->gamma_before, t1, 1e-12, "Gamma = t before the impact");
    /* After the impact: free flight again, q = v+ (t - t1) - g (t - t1)^2/2. */
    double dt = 0.8 - t1;
    CHECK_NEAR(r.q_final[0], 0.5 * v1 * dt - 0.5 * g * dt * dt, 1e-10, "flight after it");
    CHECK_NEAR(r.v_final[0], 0.5 * v1 - g * dt, 1e-10, "its velocity");
    release(&m, &r);
}

/* Zeno (paper 004 section 7): accumulation at t1 + 2 v1 e/(g (1 - e)), then rest with the
 * sliding force equal to the weight. */
static void test_zeno(void)
{
    const double sets[][4] = {{9.81, 1.0, 0.0, 0.9}, {2.0, 1.0, 0.0, 0.5}, {1.0, 0.3, 0.0, 0.7}, {9.81, 2.0, 1.0, 0.6}};
    for (int k = 0; k < 4; k++) {
        double g = sets[k][0], h0 = sets[k][1], v0 = sets[k][2], e = sets[k][3];
        pl_setting s[] = {{"g", g}, {"h0", h0}, {"v0", v0}, {"e", e}};
        pl_model m;
        pl_solution r;
        double V = sqrt(v0 * v0 + 2 * g * h0), t1 = (v0 + V) / g, t_acc = t1 + 2 * V * e / (g * (1 - e));
        if (solve(&pl_case_bouncing_ball, s, 4, t_acc + 1.0, &m, &r) != PL_OK) {
            release(&m, &r);
            continue;
        }
        char what[128];
        snprintf(what, sizeof what, "accumulation time (g=%g h0=%g v0=%g e=%g)", g, h0, v0, e);
        CHECK(r.zeno.found, "a Zeno point is found (%s)", what);
        CHECK_NEAR(r.zeno.t_accumulation, t_acc, 1e-10, what);
        CHECK_NEAR(r.zeno.ratio, e, 1e-5, "contraction ratio = e");
        CHECK(r.zeno.q[0] == 0.0 && fabs(r.zeno.v[0]) < 1e-12, "accumulation state on the floor at rest");
        CHECK(r.nevents >= 2 && r.events[r.nevents - 1].kind == PL_EVENT_SLIDE_START, "then sustained contact");
        /* after it: rest, with the sliding force equal to the weight (unit mass) */
        const double *last = pl_table_row(&r.traj, r.traj.nrows - 1);
        CHECK_NEAR(last[pl_col_force(1, 1)], g, 1e-9 * g, "sliding force = weight");
        CHECK(fabs(r.q_final[0]) < 1e-12 && fabs(r.v_final[0]) < 1e-12, "rests on the floor");
        if (k == 1) /* paper 002, section 6.1: impacts at 3 - 2^-n */
            for (size_t i = 0, n = 0; i < r.nevents && n < 10; i++)
                if (r.events[i].kind == PL_EVENT_IMPACT) {
                    CHECK_NEAR(r.events[i].t, 3.0 - pow(2.0, 1.0 - (double)n), 1e-11, "impact at 3 - 2^-n");
                    n++;
                }
        release(&m, &r);
    }
}

/* Sustained contact with several constraints' worth of geometry: the wedge started on wall 1,
 * pushed into it by f1 = -1 and moving along it at v2 = 0.5: M a = f + e_1 lambda gives
 * lambda = 1, a = 0. */
static void test_sliding(void)
{
    pl_setting s[] = {{"m", 0.5}, {"q1", 0.0}, {"q2", 1.0}, {"v1", 0.0}, {"v2", 0.5}, {"f1", -1.0}};
    pl_model m;
    pl_solution r;
    if (solve(&pl_case_wedge, s, 6, 1.0, &m, &r) != PL_OK)
        return release(&m, &r);
    CHECK(r.nevents == 1 && r.events[0].kind == PL_EVENT_SLIDE_START && r.events[0].constraint == 0,
          "one slide start on wall 1");
    for (size_t row = 1; row < r.traj.nrows; row++) {
        const double *x = pl_table_row(&r.traj, row);
        CHECK_NEAR(x[pl_col_force(2, 2)], 1.0, 1e-9, "sliding force lambda_1 = -f1");
        CHECK_NEAR(x[pl_col_q(2, 2) + 1], 1.0 + 0.5 * x[0], 1e-9, "q2 = 1 + t/2");
    }
    CHECK(fabs(r.q_final[0]) < 1e-12 && fabs(r.v_final[0]) < 1e-12, "stays on the wall");
    release(&m, &r);
}

/* Two constraints at once: the wedge at its corner pushed by f.  Into both walls, f = (-1, -1):
 * both press with lambda = -f and it rests.  Into wall 1 only, f = (-1, 1): the LCP keeps wall 1
 * (M a = f + e_1 lambda_1, a_1 = 0: a_2 = 1, lambda_1 = 1 + m) and releases wall 2, q2 = t^2/2. */
static void test_corner_contact(void)
{
    pl_setting both[] = {{"m", 0.5}, {"q1", 0.0}, {"q2", 0.0}, {"v1", 0.0}, {"v2", 0.0}, {"f1", -1.0}, {"f2", -1.0}};
    pl_model m;
    pl_solution r;
    if (solve(&pl_case_wedge, both, 7, 1.0, &m, &r) == PL_OK) {
        CHECK(count(&r, PL_EVENT_SLIDE_START) == 2, "both walls in sustained contact");
        const double *x = pl_table_row(&r.traj, r.traj.nrows - 1);
        CHECK_NEAR(x[pl_col_force(2, 2)], 1.0, 1e-9, "lambda_1 = -f1");
        CHECK_NEAR(x[pl_col_force(2, 2) + 1], 1.0, 1e-9, "lambda_2 = -f2");
        CHECK(fabs(r.q_final[0]) + fabs(r.q_final[1]) < 1e-12, "rests in the corner");
    }
    release(&m, &r);
    pl_setting one[] = {{"m", 0.5}, {"q1", 0.0}, {"q2", 0.0}, {"v1", 0.0}, {"v2", 0.0}, {"f1", -1.0}, {"f2", 1.0}};
    if (solve(&pl_case_wedge, one, 7, 1.0, &m, &r) == PL_OK) {
        CHECK(count(&r, PL_EVENT_SLIDE_START) == 1 && r.events[0].constraint == 0, "only wall 1 presses");
        for (size_t row = 1; row < r.traj.nrows; row++) {
            const double *x = pl_table_row(&r.traj, row);
            CHECK_NEAR(x[pl_col_force(2, 2)], 1.5, 1e-9, "lambda_1 = 1 + m");
            CHECK_NEAR(x[pl_col_q(2, 2) + 1], 0.5 * x[0] * x[0], 1e-9, "q2 = t^2/2");
        }
    }
    release(&m, &r);
}

/* Lift-off right after an inelastic impact: the wedge (m = 0.3) under f = (0.3, 0) from (1, 5) with
 * velocity (-1, -1).  a = M^-1 f = (f1, -m f1)/(1 - m^2); wall 1 is reached where 1 - t + a1 t^2/2 = 0,
 * the impact map (-e v1, v2 + (1 + e) m v1) leaves G1 = Gdot1 = 0 with the free acceleration a1 > 0
 * pulling q1 off the wall at once: q1 = a1 (t - t1)^2/2 after it.  The limit solution died there once
 * ("step size too small": the gap tolerance at G = Gdot = 0 was 1e-42). */
static void test_lift_off_after_inelastic_impact(void)
{
    double mc = 0.3, f1 = 0.3, a1 = f1 / (1 - mc * mc), a2 = -mc * f1 / (1 - mc * mc);
    pl_setting s[] = {{"m", mc}, {"f1", f1}, {"q2", 5.0}, {"e", 0.0}};
    pl_model m;
    pl_solution r;
    if (solve(&pl_case_wedge, s, 4, 3.0, &m, &r) != PL_OK)
        return release(&m, &r);
    double t1 = (1.0 - sqrt(1.0 - 2.0 * a1)) / a1;
    double v1 = -1.0 + a1 * t1, v2 = -1.0 + a2 * t1, q2 = 5.0 - t1 + 0.5 * a2 * t1 * t1, w2 = v2 + mc * v1;
    CHECK(r.nevents == 1 && r.events[0].kind == PL_EVENT_IMPACT && r.events[0].constraint == 0,
          "one impact on wall 1, no sustained contact (%zu events)", r.nevents);
    if (r.nevents >= 1) {
        const pl_event *e = &r.events[0];
        CHECK_NEAR(e->t, t1, 1e-12, "impact time");
        CHECK_NEAR(e->v_after[0], 0.0, 1e-12, "v1+ = 0");
        CHECK_NEAR(e->v_after[1], w2, 1e-12, "v2+ = v2 + m v1");
    }
    double worst = 0.0;
    size_t after = 0;
    for (size_t row = 0; row < r.traj.nrows; row++) {
        const double *x = pl_table_row(&r.traj, row), t = x[0], tau = t - t1;
        if (!(tau > 0.0))
            continue;
        after++;
        worst = fmax(worst, fabs(x[pl_col_q(2, 2)] - 0.5 * a1 * tau * tau));
        worst = fmax(worst, fabs(x[pl_col_q(2, 2) + 1] - (q2 + w2 * tau + 0.5 * a2 * tau * tau)));
        worst = fmax(worst, fabs(x[pl_col_v(2, 2)] - a1 * tau) + fabs(x[pl_col_v(2, 2) + 1] - (w2 + a2 * tau)));
    }
    CHECK(after > 10 && worst < 1e-10, "the flight after the lift-off: %zu rows, off by %.3g", after, worst);
    release(&m, &r);
}

/* Lift-off from the vibrating table at asin(g/(A w^2))/w, then the analytic flight to the landing. */
static void test_lift_off(void)
{
    pl_model m;
    pl_solution r;
    if (solve(&pl_case_vibrating_table, NULL, 0, 1.0, &m, &r) != PL_OK)
        return release(&m, &r);
    double g = 9.81, A = 0.5, w = 2 * M_PI, t_off = asin(g / (A * w * w)) / w;
    CHECK(r.nevents >= 3 && r.events[0].kind == PL_EVENT_SLIDE_START && r.events[1].kind == PL_EVENT_LIFT_OFF &&
              r.events[2].kind == PL_EVENT_IMPACT,
          "slide, lift off, land");
    if (r.nevents >= 3) {
        CHECK_NEAR(r.events[1].t, t_off, 1e-10, "lift-off time");
        table_flight f = {A, w, g, t_off};
        double t_land = table_landing_time(&f, 0.9);
        const pl_event *land = &r.events[2];
        CHECK_NEAR(land->t, t_land, 1e-10, "landing time of the analytic flight");
        CHECK_NEAR(land->q[0], A * sin(w * t_land), 1e-10, "landing position");
        CHECK_NEAR(land->v_before[0], A * w * cos(w * t_off) - g * (t_land - t_off), 1e-9, "landing velocity");
        CHECK_NEAR(-land->gdot_after / land->gdot_before, 0.5, 1e-10, "restitution e relative to the table");
    }
    release(&m, &r);
}

/* Corner impacts of the wedge from the fast system holding both walls: the symmetric one against
 * the closed form of its (1, 1) mode, the others against penalty runs at mu = 1e10.  At the ends of
 * the range, m = +-0.999999, the symmetric one alone: its slow mode (stiffness k (1 - m)) lasts
 * 3142 contacts, within the fast system's reach, and the penalty's reproduces it at every mu. */
static void test_corner(void)
{
    const double ms[] = {0.5, -0.5, 0.999999, -0.999999};
    for (int im = 0; im < 4; im++)
        for (int d = 0; d < (im < 2 ? 3 : 1); d++) {
            double q1 = d == 2 ? 1.01 : 1.0, q2 = d == 1 ? 1.01 : 1.0;
            pl_setting s[] = {{"m", ms[im]}, {"q1", q1}, {"q2", q2}, {"e", 0.0}};
            pl_model m;
            pl_solution r;
            if (solve(&pl_case_wedge, s, 4, 2.0, &m, &r) != PL_OK) {
                release(&m, &r);
                continue;
            }
            char what[128];
            if (d == 0) {
                double e_mode = pl_restitution_from_xi(sqrt(1 - ms[im]));
                snprintf(what, sizeof what, "symmetric corner, m = %g", ms[im]);
                CHECK_NEAR(r.v_final[0], e_mode, 1e-9, what);
                CHECK_NEAR(r.v_final[1], e_mode, 1e-9, what);
                CHECK(r.events[0].participants[0] && r.events[0].participants[1], "both walls take part in one impact");
            }
            pl_solution p;
            pl_error err;
            solve_penalty(&m, 1e10, 1e-8, 2.0, 0, &p, &err);
            snprintf(what, sizeof what, "limit vs penalty mu=1e10, m=%g, q0=(%g,%g)", ms[im], q1, q2);
            CHECK_NEAR(r.v_final[0], p.v_final[0], 1e-6, what);
            CHECK_NEAR(r.v_final[1], p.v_final[1], 1e-6, what);
            if (im == 1 && d > 0) /* the rigid inelastic outcome for m < 0: (0.25, 0) or (0, 0.25) */
                CHECK_NEAR(r.v_final[d == 1 ? 0 : 1], 0.25, 1e-9, "rigid corner outcome for m < 0");
            pl_solution_free(&p);
            release(&m, &r);
        }
}

/* A later Zeno sequence, on a moving table: every sequence is extrapolated, and no gap ever goes
 * through its constraint (a defect once: the solution fell through the table with status ok). */
static void test_table_sequences(void)
{
    const pl_setting e02[] = {{"e", 0.2}};
    const struct {
        const pl_setting *s;
        size_t ns;
        double t_end;
    } runs[] = {{e02, 1, 8.0}, {NULL, 0, 18.5}};
    for (int k = 0; k < 2; k++) {
        pl_model m;
        pl_solution r;
        if (solve(&pl_case_vibrating_table, runs[k].s, runs[k].ns, runs[k].t_end, &m, &r) != PL_OK) {
            release(&m, &r);
            continue;
        }
        double worst = 0.0, L = m.v_scale * m.v_scale / m.a_scale;
        for (size_t row = 0; row < r.traj.nrows; row++)
            worst = fmin(worst, pl_table_row(&r.traj, row)[pl_col_g(1, 1)]);
        CHECK(worst > -1e-9 * L, "the gap stays admissible up to t = %g (min G = %g)", runs[k].t_end, worst);
        CHECK(count(&r, PL_EVENT_ZENO) >= 1, "Zeno sequences are extrapolated (%zu)", count(&r, PL_EVENT_ZENO));
        release(&m, &r);
    }
}

static void test_bad_start(void)
{
    pl_setting s[] = {{"q1", -0.1}};
    pl_model m;
    pl_error err;
    pl_model_init(&m, &pl_case_wedge, s, 1, &err);
    pl_solution r;
    CHECK(solve_limit(&m, 1e-10, 1.0, 1000, &r, &err) == PL_ERR_INPUT && strstr(err.message, "violates constraint 1"),
          "an inadmissible start is bad input: %s", err.message);
    release(&m, &r);
}

/* A mass matrix that stops being positive definite on the way: M(q) = 1.2 - q, free flight from q = 0
 * at v = 1 into the wall G = 1.5 - q >= 0, where M = -0.3.  A failure of the run at the impact (the
 * rows up to it kept), not bad input (a defect once). */
static void indefinite_initial(const double *p, double *q, double *v, void *user)
{
    (void)p, (void)user;
    q[0] = 0.0, v[0] = 1.0;
}

static void indefinite_accel(const double *p, double t, const double *q, const double *v, const double *u, double *a,
                             double *a_q, double *a_v, void *user)
{
    (void)p, (void)t, (void)q, (void)v, (void)u, (void)user;
    a[0] = 0.0;
    if (a_q)
        a_q[0] = 0.0;
    if (a_v)
        a_v[0] = 0.0;
}

static void indefinite_gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    (void)p, (void)i, (void)t, (void)user;
    out->g = 1.5 - q[0];
    out->grad[0] = -1.0;
}

static void indefinite_mass(const double *p, const double *q, double *M, void *user)
{
    (void)p, (void)user;
    M[0] = 1.2 - q[0];
}

static void indefinite_mass_dq(const double *p, const double *q, size_t k, double *dM, void *user)
{
    (void)p, (void)q, (void)k, (void)user;
    dM[0] = -1.0;
}

static void indefinite_scales(const double *p, double *v, double *a, void *user)
{
    (void)p, (void)user;
    *v = *a = 1.0;
}

static const pl_param_spec indefinite_params[] = {PL_LAW_PARAMS(0.5)};
static const pl_case indefinite_case = {
    .abi_version = PL_ABI_VERSION,
    .name = "indefinite", .summary = "M(q) = 1.2 - q", .ndof = 1, .ncon = 1, .params = indefinite_params,
    .nparams = 3, .t_end = 3.0, .initial_state = indefinite_initial, .accel = indefinite_accel,
    .gap = indefinite_gap, .scales = indefinite_scales, .mass = indefinite_mass, .mass_dq = indefinite_mass_dq};

static void test_indefinite_mass(void)
{
    pl_model m;
    pl_error err;
    pl_solution r;
    CHECK(pl_model_init(&m, &indefinite_case, NULL, 0, &err) == PL_OK, "model: %s", err.message);
    pl_status st = solve_limit(&m, 1e-10, 3.0, 0, &r, &err);
    CHECK(st == PL_ERR_SOLVER && r.status == PL_ERR_SOLVER && strstr(err.message, "positive definite"),
          "a solver failure, not bad input (%d: %s)", st, err.message);
    CHECK(r.traj.nrows >= 2 && fabs(r.t_final - 1.5) < 1e-9, "the run up to the impact is kept (t = %g)", r.t_final);
    release(&m, &r);
}

/* Near a corner the penalized outcome depends on the start's distance d to it only through
 * d sqrt(k mu)/V, and equals the limit's once the first contact ends before the second wall is
 * reached (d sqrt(k mu)/V >= 6.3): the convergence in mu is uniform away from the corner only. */
static void test_corner_distance(void)
{
    pl_model m[3];
    pl_solution lim, p[3];
    pl_error err;
    const double d[] = {1e-4, 1e-6, 1e-4}, mu[] = {1e6, 1e10, 1e10};
    for (int k = 0; k < 3; k++) {
        pl_setting s[] = {{"m", 0.3}, {"e", 0.4}, {"q2", 1.0 + d[k]}};
        CHECK(pl_model_init(&m[k], &pl_case_wedge, s, 3, &err) == PL_OK, "model");
        CHECK(solve_penalty(&m[k], mu[k], 1e-8, 3.0, 0, &p[k], &err) == PL_OK, "penalty: %s", err.message);
    }
    CHECK(solve_limit(&m[2], 1e-12, 3.0, 0, &lim, &err) == PL_OK, "limit: %s", err.message);
    for (int j = 0; j < 2; j++) {
        CHECK_NEAR(p[0].v_final[j], p[1].v_final[j], 1e-6, "the same d sqrt(mu): the same outcome");
        CHECK_NEAR(p[2].v_final[j], lim.v_final[j], 1e-8, "d sqrt(k mu)/V = 10: the limit's outcome");
    }
    CHECK(fabs(p[0].v_final[0] - lim.v_final[0]) > 0.1, "d sqrt(k mu)/V = 0.1: far from it (%g, %g)", p[0].v_final[0],
          lim.v_final[0]);
    for (int k = 0; k < 3; k++)
        release(&m[k], &p[k]);
    pl_solution_free(&lim);
}

/* The same slow contact inside a long flight step for the limit solution: the impact at
 * t = 2.13313 was missed at rtol 1e-8 (the run went on with 71 events instead of 52 to t = 20). */
static void test_contact_inside_flight_step(void)
{
    pl_model m;
    pl_solution r;
    pl_error err;
    CHECK(pl_model_init(&m, &pl_case_vibrating_table, NULL, 0, &err) == PL_OK, "model");
    CHECK(solve_limit(&m, 1e-8, 2.5, 0, &r, &err) == PL_OK, "limit: %s", err.message);
    int seen = 0;
    for (size_t e = 0; e < r.nevents; e++)
        seen |= r.events[e].kind == PL_EVENT_IMPACT && fabs(r.events[e].t - 2.13313) < 1e-4;
    CHECK(seen, "the impact at t = 2.13313 is found at rtol 1e-8");
    release(&m, &r);
}

/* A lift-off just above the critical amplitude (A = 0.2485 > g/omega^2 = 0.24849): G, Gdot and
 * Gddot vanish together, the hop rises like (t - t_off)^3 and lands within one step; the landing
 * was missed ("constraint violated") once the smooth phases took long steps.  The first landing
 * agrees with the penalized run at mu = 1e10. */
static void test_near_critical_lift_off(void)
{
    pl_setting s[] = {{"A", 0.2485}};
    pl_model m;
    pl_solution lim, pen;
    pl_error err;
    CHECK(pl_model_init(&m, &pl_case_vibrating_table, s, 1, &err) == PL_OK, "model");
    pl_status a = solve_limit(&m, 1e-12, 1.0, 0, &lim, &err);
    CHECK(a == PL_OK, "limit: %s", a == PL_OK ? "" : err.message);
    pl_status b = solve_penalty(&m, 1e10, 1e-8, 1.0, 0, &pen, &err);
    CHECK(b == PL_OK, "penalty: %s", b == PL_OK ? "" : err.message);
    double t_lim = NAN, t_pen = NAN;
    for (size_t e = 0; e < lim.nevents && isnan(t_lim); e++)
        if (lim.events[e].kind == PL_EVENT_IMPACT)
            t_lim = lim.events[e].t;
    if (pen.nepisodes > 1)
        t_pen = pen.episodes[1].t_in;
    CHECK_NEAR(t_pen, t_lim, 1e-4, "first landing after the lift-off, limit and penalty");
    CHECK(t_lim > 0.2486 && t_lim < 0.26, "it follows the lift-off at 0.24859 (%g)", t_lim);
    pl_solution_free(&lim);
    release(&m, &pen);
}

/* Long flights over long horizons, in the limit solution and the penalty (mu = 1e8): a flight's steps
 * are bounded only by a case that says its forcing needs it (forcing_time: schatzman, whose pulses end
 * at a_0), not by V/A, which made these runs take 1e7 steps and stop at the output cap.  After the
 * wedge's elastic symmetric corner impact at t = 1 the mass leaves with (1, 1): q = (t - 1)(1, 1). */
static void test_long_horizons(void)
{
    const struct {
        const pl_case *c;
        pl_setting s;
        double t_end;
    } runs[] = {{&pl_case_wedge, {"e", 1.0}, 1e7}, {&pl_case_corner, {"e", 1.0}, 1e7},
                {&pl_case_disk, {"e", 0.0}, 1e6}, {&pl_case_schatzman, {"e", 1.0}, 1e5}};
    for (int k = 0; k < 4; k++)
        for (int pen = 0; pen < 2; pen++) {
            pl_model m;
            pl_solution r;
            pl_error err;
            CHECK(pl_model_init(&m, runs[k].c, &runs[k].s, 1, &err) == PL_OK, "model: %s", err.message);
            pl_status st = pen ? solve_penalty(&m, 1e8, 1e-8, runs[k].t_end, 0, &r, &err)
                               : solve_limit(&m, 1e-12, runs[k].t_end, 0, &r, &err);
            CHECK(st == PL_OK && r.stats.steps < 1000, "%s to t = %g (%s): %ld steps, %s", runs[k].c->name,
                  runs[k].t_end, pen ? "penalty" : "limit", r.stats.steps, st == PL_OK ? "ok" : err.message);
            if (st == PL_OK && k == 0)
                for (int j = 0; j < 2; j++)
                    CHECK_NEAR(r.q_final[j], runs[k].t_end - 1.0, 1e-9 * runs[k].t_end, "wedge: q = (t - 1)(1, 1)");
            release(&m, &r);
        }
}

/* An impact whose closed-form time is t-end itself: the ball from h0 with v0 lands at
 * T = (v0 + sqrt(v0^2 + 2 g h0))/g, so h0 = g T^2/2 - v0 T gives T = t-end (g = 10: sqrt(1406.25) =
 * 37.5, T = 3.85; sqrt(1149.8881) = 33.91, T = 3.391; sqrt(108.7849) = 10.43, T = 0.9).  The root is
 * located to a few ulps, before t-end or at it; a root before it once left an interval no step could
 * resolve ("step size too small": the limit solution at the first two, the penalty at the first and
 * third).  Every solver must end at t-end with status ok, on the ground, with the velocity before the
 * impact (-V) or after it (e V), a scheme's between them; V = g T - v0. */
static void test_impact_at_t_end(void)
{
    const double runs[][2] = {{3.85, 1.0}, {3.391, 0.0}, {0.9, -1.43}}; /* T, v0 */
    const pl_solver_type *solvers[] = {&pl_solver_limit, &pl_solver_penalty, &pl_solver_moreau_jean, &pl_solver_paoli,
                                       &pl_solver_maury};
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 5; j++) {
            double g = 10.0, T = runs[k][0], v0 = runs[k][1], h0 = g * T * T / 2.0 - v0 * T, V = g * T - v0;
            double e = j < 3 ? 0.5 : 0.0; /* Paoli and Maury are inelastic */
            const pl_solver_type *s = solvers[j];
            pl_setting set[] = {{"g", g}, {"h0", h0}, {"v0", v0}, {"e", e}};
            pl_model m;
            pl_solution r;
            pl_error err;
            CHECK(pl_model_init(&m, &pl_case_bouncing_ball, set, 4, &err) == PL_OK, "model: %s", err.message);
            CHECK_NEAR(pl_model_limit_value(&m, PL_LIMIT_FIRST_IMPACT_TIME), T, 1e-15 * T, "closed-form impact at t-end");
            double h = T / 1000.0, mu = 1e8;
            pl_status st = j == 0   ? solve_limit(&m, 1e-12, T, 100, &r, &err)
                           : j == 1 ? solve_penalty(&m, mu, 1e-8, T, 100, &r, &err)
                                    : solve_scheme(s, &m, h, T, &r, &err);
            CHECK(st == PL_OK && r.status == PL_OK, "%s, impact at t-end = %g: %s", s->name, T,
                  st == PL_OK ? "ok" : err.message);
            if (st == PL_OK) {
                CHECK(r.t_final == T, "%s: ends at t-end %.17g (%.17g)", s->name, T, r.t_final);
                /* on the ground: the limit to its tolerance, the penalty within its impact depth, a
                 * scheme within a step's travel */
                double dq = j == 0 ? 1e-9 * V * V / g : j == 1 ? V / sqrt(mu) : V * h;
                double dv = j == 0 ? 1e-9 * V : j == 1 ? 1e-6 * V : g * h;
                NEAR(r.q_final[0], 0.0, dq, "%s, T = %g: q at t-end", s->name, T);
                if (j < 2)
                    CHECK(fabs(r.v_final[0] + V) <= dv || fabs(r.v_final[0] - e * V) <= dv,
                          "%s, T = %g: v at t-end %.17g is -V = %g (before the impact) or e V = %g (after)", s->name,
                          T, r.v_final[0], -V, e * V);
                else /* a scheme's velocity of its last step (Maury's, half-way through the impact: -V/2) */
                    CHECK(r.v_final[0] >= -V - dv && r.v_final[0] <= e * V + dv,
                          "%s, T = %g: v at t-end %.17g within [-V, e V] = [%g, %g]", s->name, T, r.v_final[0], -V,
                          e * V);
            }
            release(&m, &r);
        }
}

/* An accumulation point past t-end (paper 002 section 6.1's ball, g = 10, h0 = 5, e = 0.5: impacts at
 * t_n = 1 + 2 (e + ... + e^(n-1)) = 3 - 2^(2-n), accumulating at 3).  The run ends at t-end, not at the
 * accumulation point (it once ended at t = 3.0000000000000444 with the Zeno and slide_start events
 * there, for t-end 2.999999): every event and row at t <= t-end, the impacts at t_n, then the state the
 * accumulation reaches (its remaining bounces, below the tolerance, neglected: speeds below g (3 -
 * t_last), heights below g (3 - t_last)^2/8), the Zeno point its predicted time 3.  At t-end 2.99 the
 * flights are still resolved: no Zeno point, and the last flight's closed-form state. */
static void test_zeno_past_t_end(void)
{
    const double t_ends[] = {2.999999, 3.0 - 1e-10, 2.99};
    for (int k = 0; k < 3; k++) {
        double T = t_ends[k], g = 10.0;
        pl_setting s[] = {{"g", g}, {"h0", 5.0}, {"e", 0.5}};
        pl_model m;
        pl_solution r;
        if (solve(&pl_case_bouncing_ball, s, 3, T, &m, &r) != PL_OK) {
            release(&m, &r);
            continue;
        }
        CHECK(r.t_final == T, "t-end %.17g: ends there (%.17g)", T, r.t_final);
        CHECK(pl_table_row(&r.traj, r.traj.nrows - 1)[0] == T, "t-end %.17g: the last row at t-end", T);
        size_t bad_rows = 0, n = 0, late = 0;
        for (size_t i = 0; i < r.traj.nrows; i++)
            bad_rows += !(pl_table_row(&r.traj, i)[0] <= T);
        CHECK(bad_rows == 0, "t-end %.17g: %zu rows after it", T, bad_rows);
        double t_last = 0.0;
        for (size_t i = 0; i < r.nevents; i++) {
            late += !(r.events[i].t <= T);
            if (r.events[i].kind == PL_EVENT_IMPACT) {
                n++;
                NEAR(r.events[i].t, 3.0 - pow(2.0, 2.0 - (double)n), 1e-11, "t-end %.17g: impact %zu at 3 - 2^(2-n)", T,
                     n);
                t_last = r.events[i].t;
            }
        }
        CHECK(late == 0, "t-end %.17g: %zu events after it", T, late);
        if (k < 2) {
            CHECK(n >= 15 && r.zeno.found, "t-end %.17g: %zu impacts, then the accumulation", T, n);
            NEAR(r.zeno.t_accumulation, 3.0, 1e-10, "t-end %.17g: the predicted accumulation time", T);
            CHECK(r.nevents > 0 && r.events[r.nevents - 1].t == T, "t-end %.17g: the last event at t-end", T);
            CHECK(fabs(r.q_final[0]) <= g * (3.0 - t_last) * (3.0 - t_last) / 8.0 &&
                      fabs(r.v_final[0]) <= g * (3.0 - t_last),
                  "t-end %.17g: q = %g, v = %g, the accumulation's state within the tail after t = %.17g", T,
                  r.q_final[0], r.v_final[0], t_last);
        } else {
            /* 8 impacts (t_8 = 2.984375 < 2.99 < t_9 = 2.9921875), then the flight from t_8 at e^8 V, V = 10 */
            double vt = 10.0 * pow(0.5, 8.0), dt = T - (3.0 - pow(2.0, 2.0 - 8.0));
            CHECK(n == 8 && !r.zeno.found, "t-end 2.99: 8 impacts (%zu), no accumulation", n);
            NEAR(r.q_final[0], vt * dt - 0.5 * g * dt * dt, 1e-12, "t-end 2.99: the flight's height");
            NEAR(r.v_final[0], vt - g * dt, 1e-10, "t-end 2.99: the flight's velocity");
        }
        release(&m, &r);
    }
}

/* The time budget bounds an impact's fast system too (N = 100 balls of newtons_cradle spent 1.8 s in
 * one event's fast system under max_seconds 0.05: the budget was checked once per step of the event
 * loop only).  No timing: a budget spent 100 s before the solve; the ball on the floor moving down at
 * t = 0 is an impact before the loop's first step, which stops in it, at t = 0, naming it. */
static void test_budget_in_impact(void)
{
    pl_setting s[] = {{"h0", 0.0}, {"v0", -1.0}, {"e", 0.5}};
    pl_model m;
    pl_error err;
    if (pl_model_init(&m, &pl_case_bouncing_ball, s, 3, &err) != PL_OK) {
        CHECK(0, "model: %s", err.message);
        return;
    }
    for (int spent = 0; spent < 2; spent++) {
        pl_solve_opts o;
        pl_solve_opts_init(&o, &pl_solver_limit, &m, 1.0);
        o.max_seconds = 50.0;
        if (spent)
                pl_solve_opts_count_from(&o, pl_now_seconds() - 100.0);
        pl_solution r;
        pl_status st = pl_solve(&pl_solver_limit, &m, &o, &r, &err);
        if (spent)
            CHECK(st == PL_ERR_SOLVER && strstr(err.message, "time budget of 50 s (max_seconds) in the impact at t = 0 ") &&
                      r.nevents == 0 && r.t_final == 0.0,
                  "a spent budget stops the impact at t = 0 (%s)", st == PL_OK ? "ok" : err.message);
        else
            CHECK(st == PL_OK && r.nevents > 0 && r.events[0].kind == PL_EVENT_IMPACT && r.events[0].t == 0.0,
                  "within the budget the impact at t = 0 is resolved (%s)", st == PL_OK ? "ok" : err.message);
        pl_solution_free(&r);
    }
    /* the fast system alone, through its work's budget */
    pl_impact_work *iw = pl_impact_work_new(&m);
    double q = 0.0, v = -1.0;
    int part[] = {1};
    for (int spent = 0; iw && spent < 3; spent++) {
        pl_budget b = {50.0, pl_now_seconds() - (spent == 1 ? 100.0 : 0.0)};
        pl_impact_work_set_budget(iw, spent == 2 ? NULL : &b);
        pl_impact im;
        pl_status st = pl_impact_solve(&m, iw, 0.0, &q, &v, part, &im, &err);
        if (spent == 1)
            CHECK(st == PL_ERR_SOLVER && strstr(err.message, "in the impact at t = 0 (its fast system, after 0 fast "
                                                             "steps)"),
                  "a spent budget stops the fast system (%s)", st == PL_OK ? "ok" : err.message);
        else
            CHECK(st == PL_OK && fabs(im.v_plus[0] - 0.5) < 1e-10, "%s: the impact resolved (v+ = %g)",
                  spent ? "no budget" : "within the budget", st == PL_OK ? im.v_plus[0] : NAN);
        pl_impact_free(&im);
    }
    pl_impact_work_free(iw);
    pl_model_free(&m);
}

/* An impact a little before t-end is not an impact at t-end: only an event within round-off of t-end
 * (16 ulps, the Runge-Kutta pair's smallest step) ends the run without a step.  The ball of
 * test_impact_at_t_end landing at T = 3.85 (V = 37.5, e = 0.5), t-end T + d: after the impact the
 * limit solution rebounds, q = e V d - g d^2/2, v = e V - g d; the penalty (mu = 1e8, k = 1) is in its
 * contact, q = -V d to 1% (omega d = 1e-3 at d = 1e-7).  A resolution of 1e-6 max(1, t) would record the
 * state at the impact instead (q = 0). */
static void test_impact_before_t_end(void)
{
    const double ds[] = {1e-7, 1e-9};
    for (int k = 0; k < 2; k++)
        for (int pen = 0; pen < 2; pen++) {
            double g = 10.0, T = 3.85, v0 = 1.0, h0 = g * T * T / 2.0 - v0 * T, V = g * T - v0, e = 0.5, d = ds[k];
            pl_setting set[] = {{"g", g}, {"h0", h0}, {"v0", v0}, {"e", e}};
            pl_model m;
            pl_solution r;
            pl_error err;
            CHECK(pl_model_init(&m, &pl_case_bouncing_ball, set, 4, &err) == PL_OK, "model: %s", err.message);
            double t_end = T + d;
            pl_status st = pen ? solve_penalty(&m, 1e8, 1e-10, t_end, 0, &r, &err)
                               : solve_limit(&m, 1e-12, t_end, 0, &r, &err);
            const char *name = pen ? "penalty" : "limit";
            CHECK(st == PL_OK && r.t_final == t_end, "%s, impact %g before t-end: ok, ends at t-end (%s, %.17g)", name,
                  d, st == PL_OK ? "ok" : err.message, r.t_final);
            if (st == PL_OK) {
                double dt = t_end - T; /* d as the doubles have it */
                if (pen)
                    NEAR(r.q_final[0], -V * dt, 1e-2 * V * dt, "penalty, impact %g before t-end: q = -V d", d);
                else {
                    NEAR(r.q_final[0], e * V * dt - 0.5 * g * dt * dt, 1e-3 * e * V * dt,
                         "limit, impact %g before t-end: the rebound's height", d);
                    NEAR(r.v_final[0], e * V - g * dt, 1e-9 * V, "limit, impact %g before t-end: its velocity", d);
                }
            }
            release(&m, &r);
        }
}

int main(void)
{
    check_init();
    test_indefinite_mass();
    test_impact_map();
    test_flight_and_impacts();
    test_zeno();
    test_sliding();
    test_corner_contact();
    test_lift_off();
    test_lift_off_after_inelastic_impact();
    test_corner();
    test_table_sequences();
    test_bad_start();
    test_corner_distance();
    test_contact_inside_flight_step();
    test_near_critical_lift_off();
    test_long_horizons();
    test_impact_at_t_end();
    test_impact_before_t_end();
    test_zeno_past_t_end();
    test_budget_in_impact();
    return check_finish("test_limit");
}
