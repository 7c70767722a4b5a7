/* The capture of an external trajectory and of a scheme, found from its rows (docs/methods.md,
 * Capture): an event-driven bouncing ball written as a file, resolved down to several speeds and
 * sampled at several intervals, whose capture must be its Zeno point within what the file resolves;
 * files that end before their rest is established, or in flight; the schemes' landing of the
 * inelastic ball. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cases/cases.h"
#include "check.h"
#include "event_ball.h"
#include "io/external.h"
#include "solve.h"
#include "study/analysis.h"

static char scratch[64];

/* Read the file of b for the ball with b's parameters and analyse it; non-zero on failure. */
static int analyse_file(const event_ball *b, event_ball_info *info, pl_model *m, pl_solution *sol, pl_analysis *a)
{
    char path[128];
    snprintf(path, sizeof path, "%s/ball.csv", scratch);
    CHECK(write_event_ball(path, b, info) == 0, "%s written", path);
    pl_setting s[] = {{"g", b->g}, {"h0", b->h0}, {"e", b->e}};
    pl_error err;
    int has_gamma;
    if (pl_model_init(m, &pl_case_bouncing_ball, s, 3, &err) != PL_OK) {
        CHECK(0, "model: %s", err.message);
        return -1;
    }
    pl_status st = pl_read_external(path, m, b->t_end, PL_CONTACTS_AUTO, sol, &has_gamma, &err);
    CHECK(st == PL_OK, "read: %s", err.message);
    if (st == PL_OK) {
        st = pl_analyze(m, sol, a, &err);
        CHECK(st == PL_OK, "analysis: %s", err.message);
        if (st != PL_OK)
            pl_analysis_free(a);
    }
    if (st != PL_OK) {
        pl_solution_free(sol);
        pl_model_free(m);
    }
    return st != PL_OK;
}

static void release(pl_model *m, pl_solution *sol, pl_analysis *a)
{
    pl_analysis_free(a);
    pl_solution_free(sol);
    pl_model_free(m);
}

/* The capture of a file resolved down to v_stop: its last resolved impact (plastic: the one that
 * stops it), or a sampled row after it once the unresolved rebounds fall below what the sampling
 * resolves; in either case between that impact and the Zeno point, whose distance is the time of
 * the rebounds after it, less than 2 v_stop/(g (1 - e)). */
static void check_zeno_file(double g, double h0, double e, double dt, double fraction, int plastic)
{
    double t1 = sqrt(2.0 * h0 / g), v1 = g * t1, t_acc = t1 + 2.0 * e * v1 / (g * (1.0 - e));
    event_ball b = {g, h0, e, dt, t_acc + 1.0, fraction * v1, plastic};
    event_ball_info info;
    pl_model m;
    pl_solution sol;
    pl_analysis a;
    if (analyse_file(&b, &info, &m, &sol, &a))
        return;
    char what[200];
    snprintf(what, sizeof what, "g %g h0 %g e %g, rows every %g, resolved to %g v1, %s", g, h0, e, dt, fraction,
             plastic ? "plastic end" : "unresolved end");
    /* the rebounds after the last impact written (speed v_last < v_stop/e) last 2 e v_last/(g (1 - e)) */
    double tail = 2.0 * b.v_stop / (g * (1.0 - e)), T = a.capture_time;
    CHECK(t_acc - info.t_last <= tail, "%s: the file's last impact %.12g is within %.3g of t_acc %.12g", what,
          info.t_last, tail, t_acc);
    CHECK(T >= info.t_last - 1e-12 && T <= t_acc + 1e-12,
          "%s: captured at %.15g, between the last resolved impact %.15g and the Zeno point %.15g", what, T, info.t_last,
          t_acc);
    if (plastic)
        CHECK(fabs(T - info.t_last) <= 1e-12 * t_acc, "%s: captured at the impact that stops the ball (%.15g, %.15g)",
              what, T, info.t_last);
    CHECK(a.capture_note == NULL, "%s: no note (%s)", what, a.capture_note ? a.capture_note : "");
    /* the impacts before the capture and the Zeno sequence fitted over them */
    size_t before = info.impacts - (T == info.t_last);
    CHECK(a.impacts == info.impacts && a.impacts_before_capture == before, "%s: %zu of %zu impacts before the capture "
          "(expected %zu of %zu)", what, a.impacts_before_capture, a.impacts, before, info.impacts);
    CHECK(a.fit_flights + 1 == before, "%s: the flights between them fitted (%zu)", what, a.fit_flights);
    CHECK(fabs(a.contraction_ratio - e) <= 1e-9, "%s: their contraction ratio %.12g", what, a.contraction_ratio);
    CHECK(fabs(a.accumulation_time - t_acc) <= 1e-9 * t_acc, "%s: their accumulation time %.15g", what,
          a.accumulation_time);
    printf("  %s: capture %.15g, t_acc - capture %.3g (resolved to %.3g)\n", what, T, t_acc - T, tail);
    release(&m, &sol, &a);
}

static void test_event_driven_files(void)
{
    const double fractions[] = {1e-3, 1e-6, 1e-9}, dts[] = {0.1, 0.01, 1e-3};
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                check_zeno_file(9.81, 1.0, 0.9, dts[j], fractions[i], p); /* the default ball: t_acc = 8.578949 */
    /* other parameters */
    check_zeno_file(3.7, 0.6, 0.7, 0.004, 1e-7, 1);
    check_zeno_file(3.7, 0.6, 0.7, 0.004, 1e-7, 0);
    check_zeno_file(14.2, 2.3, 0.55, 0.03, 1e-5, 0);
}

/* A file that ends at rest too soon after its last impact to tell rest from a last flight slower
 * than its sampling resolves: no capture, and the note says why; one that ends in flight: none,
 * without a note. */
static void test_unresolved_end(void)
{
    const double g = 9.81, h0 = 1.0, e = 0.9, t1 = sqrt(2.0 * h0 / g), v1 = g * t1;
    double t_acc = t1 + 2.0 * e * v1 / (g * (1.0 - e));
    event_ball b = {g, h0, e, 0.01, floor(t_acc / 0.01) * 0.01 + 0.01, 1e-9 * v1, 1}; /* one row after the rest */
    event_ball_info info;
    pl_model m;
    pl_solution sol;
    pl_analysis a;
    if (!analyse_file(&b, &info, &m, &sol, &a)) {
        CHECK(info.t_final - info.t_last < 2.0 * b.dt, "the file ends %.3g after its last impact", info.t_final - info.t_last);
        CHECK(isnan(a.capture_time) && a.capture_note && strstr(a.capture_note, "unresolved"),
              "ends at rest within 2 rows of its last impact: no capture (%g), a note (%s)", a.capture_time,
              a.capture_note ? a.capture_note : "none");
        release(&m, &sol, &a);
    }
    b.t_end += 2.0 * b.dt; /* three rows at rest: established */
    if (!analyse_file(&b, &info, &m, &sol, &a)) {
        NEAR(a.capture_time, info.t_last, 1e-12 * t_acc, "at rest for 3 rows: captured at the last impact");
        release(&m, &sol, &a);
    }
    b.t_end = 5.0; /* before the Zeno point */
    if (!analyse_file(&b, &info, &m, &sol, &a)) {
        CHECK(isnan(a.capture_time) && a.capture_note == NULL && a.impacts_before_capture == 0,
              "ends in flight: no capture (%g), no note", a.capture_time);
        release(&m, &sol, &a);
    }
}

/* The inelastic ball under a scheme: captured at its landing, the impact event, timed where the
 * trajectory reaches the floor.  For Moreau-Jean and Paoli, whose nodes lie on the exact flight,
 * that is the linear interpolation of q = h0 - g t^2/2 between two nodes h apart: off by at most
 * g h^2/8 in q, h^2/(8 t*) in time at the speed g t* (to leading order in h/t*), t* = sqrt(2 h0/g). */
static void test_scheme_landing(void)
{
    const pl_solver_type *schemes[] = {&pl_solver_moreau_jean, &pl_solver_paoli, &pl_solver_maury};
    const double g = 2.3, h0 = 1.7, t_star = sqrt(2.0 * h0 / g), hs[] = {0.03, 0.0071, 0.0013};
    pl_setting s[] = {{"g", g}, {"h0", h0}, {"e", 0.0}};
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 3; j++) {
            pl_model m;
            pl_solution sol;
            pl_analysis a;
            pl_error err;
            CHECK(pl_model_init(&m, &pl_case_bouncing_ball, s, 3, &err) == PL_OK, "model: %s", err.message);
            pl_status st = solve_scheme(schemes[k], &m, hs[j], 3.0, &sol, &err);
            CHECK(st == PL_OK, "%s: %s", schemes[k]->name, err.message);
            if (st == PL_OK && pl_analyze(&m, &sol, &a, &err) == PL_OK) {
                double h = sol.step_size;
                CHECK(a.impacts == 1 && a.capture_time == a.first_impact_time && a.impacts_before_capture == 0,
                      "%s h = %g: captured at its landing %.15g (capture %.15g, %zu impacts)", schemes[k]->name, h,
                      a.first_impact_time, a.capture_time, a.impacts);
                if (schemes[k] != &pl_solver_maury)
                    CHECK(fabs(a.capture_time - t_star) <= 1.05 * h * h / (8.0 * t_star), "%s h = %g: capture "
                          "%.12g within h^2/(8 t*) = %.3g of t* = %.12g (off by %.3g)", schemes[k]->name, h,
                          a.capture_time, h * h / (8.0 * t_star), t_star, fabs(a.capture_time - t_star));
                pl_analysis_free(&a);
            }
            pl_solution_free(&sol);
            pl_model_free(&m);
        }
}

int main(void)
{
    check_init();
    snprintf(scratch, sizeof scratch, "/tmp/penlim_capture_XXXXXX");
    if (!mkdtemp(scratch)) {
        fprintf(stderr, "cannot make a scratch directory\n");
        return 1;
    }
    test_event_driven_files();
    test_unresolved_end();
    test_scheme_landing();
    char path[128];
    snprintf(path, sizeof path, "%s/ball.csv", scratch);
    remove(path);
    rmdir(scratch);
    return check_finish("test_capture");
}
