/* Sizes from the parameters: N independent balls (tests/synthetic_model.h), n = m = N, at N = 1, 3,
 * 20 and 40 (m > 32: a 32-bit set of constraints would fail), through the penalized system, the
 * limit solution and every scheme, each ball against the closed form of the bouncing ball (paper
 * 004 eq. (51)): ball i of mass m_i = 1 + i dropped from h_i lands at t_i = sqrt(2 h_i/g) with speed
 * V_i = sqrt(2 g h_i) and leaves with e_i V_i in the limit.  Then a run of 120 balls (a trajectory
 * header longer than the 2048 characters of the former fixed buffer) written and read back. */
#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "io/report.h"
#include "solve.h"
#include "study/analysis.h"
#include "synthetic_model.h"

static int init(pl_model *m, size_t N, double e)
{
    pl_error err;
    pl_setting s[] = {{"N", (double)N}, {"e", e}};
    int ok = pl_model_init(m, &pl_test_case_balls, s, 2, &err) == PL_OK;
    CHECK(ok, "balls N = %zu: %s", N, err.message);
    CHECK(!ok || (m->n == N && m->m == N), "N = %zu balls: n = m = N", N);
    return ok;
}

static double speed(const pl_model *m, size_t i)
{
    return sqrt(2.0 * pl_model_param(m, "g") * pl_test_balls_height(m, i));
}

/* Every ball's one contact before t = 1 (the lowest lands again at 3 t_0 = 1.35): its entry time,
 * its restitution within 2 pi g/(omega_i V_i) (gravity's share of the exit velocity over a contact
 * lasting ~pi/omega_i, omega_i = sqrt(k_i mu)), and its impulse, the momentum balance
 * m_i (gdot_out - gdot_in) + m_i g (t_out - t_in) over the episode. */
static void test_penalty(size_t N)
{
    pl_model m;
    if (!init(&m, N, 0.9))
        return;
    double mu = 1e10, g = pl_model_param(&m, "g");
    pl_solution r;
    pl_error err;
    CHECK(solve_penalty(&m, mu, 1e-8, 1.0, 0, &r, &err) == PL_OK, "penalty N = %zu: %s", N, err.message);
    CHECK(r.nepisodes == N, "penalty N = %zu: one contact per ball (%zu)", N, r.nepisodes);
    size_t *seen = calloc(N, sizeof *seen);
    for (size_t k = 0; k < r.nepisodes; k++) {
        const pl_episode *ep = &r.episodes[k];
        size_t i = ep->constraint;
        CHECK(i < N, "constraint index %zu", i);
        if (i >= N || seen[i]++)
            continue;
        double V = speed(&m, i), omega = sqrt(m.law[i].k * mu), mass = 1.0 + (double)i;
        CHECK_NEAR(ep->t_in, pl_test_balls_impact_time(&m, i), 1e-9, "penalty: landing time sqrt(2 h_i/g)");
        CHECK_NEAR(ep->gdot_in, -V, 1e-7 * V, "penalty: landing speed sqrt(2 g h_i)");
        CHECK_NEAR(pl_episode_restitution(ep), pl_test_balls_restitution(&m, i), 2.0 * M_PI * g / (omega * V),
                   "penalty: restitution e_i");
        double balance = mass * (ep->gdot_out - ep->gdot_in) + mass * g * (ep->t_out - ep->t_in);
        CHECK_NEAR(ep->impulse, balance, 1e-6 * balance, "penalty: impulse = m_i (Delta v + g tau)");
    }
    for (size_t i = 0; i < N; i++)
        CHECK(seen[i] == 1, "penalty N = %zu: ball %zu lands once (%zu)", N, i, seen[i]);
    free(seen);
    pl_solution_free(&r);
    pl_model_free(&m);
}

/* The limit solution: N impacts, ball i's at t_i, alone (participants: i only), with restitution
 * e_i and impulse m_i (1 + e_i) V_i. */
static void test_limit(size_t N)
{
    pl_model m;
    if (!init(&m, N, 0.9))
        return;
    pl_solution r;
    pl_error err;
    CHECK(solve_limit(&m, 1e-12, 1.0, 0, &r, &err) == PL_OK, "limit N = %zu: %s", N, err.message);
    CHECK(r.nevents == N, "limit N = %zu: N events (%zu)", N, r.nevents);
    for (size_t k = 0; k < r.nevents && k < N; k++) {
        const pl_event *e = &r.events[k];
        size_t i = k; /* heights increase with i: the impacts come in the balls' order */
        double V = speed(&m, i), ei = pl_test_balls_restitution(&m, i);
        CHECK(e->kind == PL_EVENT_IMPACT && e->constraint == i, "limit: event %zu is ball %zu's impact (%zu)", k, i,
              e->constraint);
        CHECK_NEAR(e->t, pl_test_balls_impact_time(&m, i), 1e-10, "limit: impact time");
        CHECK_NEAR(-e->gdot_after / e->gdot_before, ei, 1e-9, "limit: restitution e_i");
        CHECK_NEAR(e->impulse[i], (1.0 + (double)i) * (1.0 + ei) * V, 1e-9 * V * (double)(i + 1),
                   "limit: impulse m_i (1 + e_i) V_i");
        size_t parts = 0;
        for (size_t j = 0; j < N; j++)
            parts += e->participants[j];
        CHECK(parts == 1 && e->participants[i] == 1, "limit: ball %zu alone in its impact (%zu)", i, parts);
    }
    pl_solution_free(&r);
    pl_model_free(&m);
}

/* A scheme at step h: N impacts in the balls' order, each within its time tolerance and with its
 * restitution within e_tol_scale g h/V_i of e_i (1e-12 if 0).  An event holds the balls pushed in
 * its step: its own and, for an inelastic scheme (resting), every ball landed before it. */
static void check_scheme(const pl_solver_type *scheme, const pl_model *m, double h, double e_tol_scale, int resting)
{
    size_t N = m->n;
    pl_solution r;
    pl_analysis a;
    pl_error err;
    double g = pl_model_param(m, "g");
    if (solve_scheme(scheme, m, h, 1.0, &r, &err) != PL_OK || pl_analyze(m, &r, &a, &err) != PL_OK) {
        CHECK(0, "%s N = %zu: %s", scheme->name, N, err.message);
        pl_solution_free(&r);
        return;
    }
    h = r.step_size;
    CHECK(a.impacts == N, "%s N = %zu: N impacts (%zu)", scheme->name, N, a.impacts);
    for (size_t k = 0; k < a.impacts && k < N; k++) {
        const pl_event *e = &a.impact[k].event;
        size_t i = k;
        double V = speed(m, i), t_i = pl_test_balls_impact_time(m, i);
        /* Moreau-Jean (theta = 1/2) and Paoli are exact at the steps on a flight under constant
         * gravity; the impact time interpolates the gap linearly within a step: off by at most
         * g h^2/(8 V).  Maury's positions lag the flight by h/2 (symplectic Euler). */
        double t_tol = (scheme == &pl_solver_maury ? 0.5 * h : 0.0) + g * h * h / V;
        CHECK(e->constraint == i, "%s: impact %zu is ball %zu's (%zu)", scheme->name, k, i, e->constraint);
        CHECK(fabs(e->t - t_i) <= t_tol, "%s N = %zu: ball %zu lands at %.9f, t_i = %.9f (tol %.2g)", scheme->name, N,
              i, e->t, t_i, t_tol);
        double restitution = -e->gdot_after / e->gdot_before, want = pl_test_balls_restitution(m, i);
        double e_tol = e_tol_scale > 0.0 ? e_tol_scale * g * h / V : 1e-12;
        CHECK(fabs(restitution - want) <= e_tol, "%s N = %zu: ball %zu restitution %.12g, e_i = %.12g (tol %.2g)",
              scheme->name, N, i, restitution, want, e_tol);
    }
    for (size_t k = 0; k < r.nevents; k++) {
        const pl_event *e = &r.events[k];
        size_t wrong = 0, i = e->constraint;
        for (size_t j = 0; j < N; j++)
            wrong += e->participants[j] != (j == i || (resting && j < i));
        CHECK(wrong == 0, "%s N = %zu: event %zu (ball %zu) holds the balls pushed in its step (%zu wrong)",
              scheme->name, N, k, i, wrong);
    }
    pl_analysis_free(&a);
    pl_solution_free(&r);
}

/* Moreau-Jean keeps e_i (its law on velocities: v_{n+1} = -e_i v_n, to round-off); Paoli and
 * Maury are inelastic: after the projection a ball keeps at most the smooth part of a step's
 * velocity change (2 g h, else the next step belongs to the impact), restitution within 2 g h/V. */
static void test_schemes(size_t N)
{
    pl_model m;
    if (init(&m, N, 0.9)) {
        check_scheme(&pl_solver_moreau_jean, &m, 1e-3, 0.0, 0);
        pl_model_free(&m);
    }
    if (init(&m, N, 0.0)) {
        check_scheme(&pl_solver_paoli, &m, 1e-3, 2.0, 1);
        check_scheme(&pl_solver_maury, &m, 1e-3, 2.0, 1);
        pl_model_free(&m);
    }
}

/* 120 balls by Moreau-Jean stored dense (120 constraints would be sparse by default) written
 * (trajectory.csv's header: 482 columns) and read back exactly.  At h = 1e-2 several balls land in
 * one step (one event of them all), ball 120 among them. */
static void test_write_read(void)
{
    size_t N = 120;
    pl_model m;
    if (!init(&m, N, 0.5))
        return;
    pl_solution r, back;
    pl_analysis a;
    pl_error err;
    char dir[] = "/tmp/penlim_test_sizes_XXXXXX";
    int ok = mkdtemp(dir) != NULL;
    CHECK(ok, "temporary directory");
    pl_solve_opts o;
    pl_solve_opts_init(&o, &pl_solver_moreau_jean, &m, 1.0);
    o.samples = 0;
    o.contacts = PL_CONTACTS_DENSE;
    o.option[pl_solver_option_index(&pl_solver_moreau_jean, "h")] = 1e-2;
    ok = ok && pl_solve(&pl_solver_moreau_jean, &m, &o, &r, &err) == PL_OK && pl_analyze(&m, &r, &a, &err) == PL_OK;
    CHECK(ok, "moreau_jean, 120 balls: %s", err.message);
    if (!ok) {
        pl_model_free(&m);
        return;
    }
    char *header = pl_trajectory_header(N, N, 1);
    CHECK(header && strlen(header) > 2048 && strstr(header, ",impulse120") &&
              strlen(strstr(header, ",impulse120")) == strlen(",impulse120"),
          "the header names every column, the last impulse120 (%zu characters)", header ? strlen(header) : 0);
    free(header);
    pl_output out;
    pl_output_init(&out, dir, 0644, NULL);
    CHECK(pl_write_solution(&out, NULL, &m, &r, &a, NULL, &err) == PL_OK, "written: %s", err.message);
    CHECK(pl_read_solution(dir, &m, &pl_solver_moreau_jean, &back, &err) == PL_OK, "read back: %s", err.message);
    CHECK(back.traj.nrows == r.traj.nrows && back.traj.ncol == 2 + 4 * N &&
              memcmp(back.traj.data, r.traj.data, r.traj.nrows * r.traj.ncol * sizeof(double)) == 0,
          "the same rows (%zu of %zu columns)", back.traj.nrows, back.traj.ncol);
    CHECK(back.nevents == r.nevents && r.nevents > 1, "the same events (%zu, %zu)", r.nevents, back.nevents);
    int last_ball = 0;
    for (size_t k = 0; k < r.nevents; k++)
        last_ball |= r.events[k].participants[N - 1];
    CHECK(last_ball, "an impact holds ball %zu", N);
    for (size_t k = 0; k < back.nevents && k < r.nevents; k++) {
        const pl_event *x = &r.events[k], *y = &back.events[k];
        CHECK(x->constraint == y->constraint && memcmp(x->participants, y->participants, N) == 0 &&
                  memcmp(x->impulse, y->impulse, N * sizeof(double)) == 0 &&
                  memcmp(x->v_after, y->v_after, N * sizeof(double)) == 0,
              "event %zu read back exactly", k);
    }
    CHECK(memcmp(back.v_final, r.v_final, N * sizeof(double)) == 0, "final velocities read back");
    for (size_t k = 0; k < out.written.n; k++) {
        char path[PATH_MAX];
        if (pl_output_path(&out, NULL, out.written.items[k], path, sizeof path, &err) == PL_OK)
            unlink(path);
    }
    rmdir(dir);
    pl_output_free(&out);
    pl_solution_free(&back);
    pl_analysis_free(&a);
    pl_solution_free(&r);
    pl_model_free(&m);
}

int main(void)
{
    check_init();
    const size_t sizes[] = {1, 3, 20, 40};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        test_penalty(sizes[k]);
        test_limit(sizes[k]);
        test_schemes(sizes[k]);
    }
    test_write_read();
    return check_finish("test_sizes");
}
