/* The penalized engine's cost, pinned as counts (deterministic, unlike wall time): accepted steps and
 * right-hand-side evaluations of four cases at two stiffnesses each, with their defaults (rtol 1e-8, the
 * case's t-end, no dense samples), and of a box of 100 disks.  A count more than 5% above its pin is a regression; more than 10%
 * below, a change of the step control (a looser one takes fewer steps at a lower accuracy) that must be
 * judged and re-pinned here, with the accuracy tests (test_penalty, test_laws, test_cup) still passing.
 * Disabling step aiming costs the ball 25% more evaluations at mu = 1e4 and the wedge 8%: both fail. */
#include <math.h>
#include <stdio.h>

#include "cases/cases.h"
#include "check.h"
#include "solve.h"

typedef struct {
    const pl_case *c;
    double mu;
    long steps, rhs; /* the pins */
    const pl_setting *set; /* NULL: the case's defaults */
    size_t nset;
    double t_end; /* 0: the case's */
} pin;

static void check_pin(const pin *p)
{
    pl_model model;
    pl_solution sol;
    pl_error err;
    CHECK(pl_model_init(&model, p->c, p->set, p->nset, &err) == PL_OK, "%s: %s", p->c->name, err.message);
    CHECK(solve_penalty(&model, p->mu, 1e-8, p->t_end, 0, &sol, &err) == PL_OK, "%s at mu %g: %s", p->c->name, p->mu,
          err.message);
    struct {
        const char *what;
        long count, pinned;
    } counts[] = {{"steps", sol.stats.steps, p->steps}, {"right-hand sides", sol.stats.rhs_evals, p->rhs}};
    for (int k = 0; k < 2; k++) {
        double ratio = (double)counts[k].count / (double)counts[k].pinned;
        CHECK(ratio <= 1.05, "%s at mu %g: %ld %s, 5%% above the pinned %ld (a regression)", p->c->name, p->mu,
              counts[k].count, counts[k].what, counts[k].pinned);
        CHECK(ratio >= 0.90, "%s at mu %g: %ld %s, 10%% below the pinned %ld (judge the change, then re-pin)",
              p->c->name, p->mu, counts[k].count, counts[k].what, counts[k].pinned);
    }
    pl_solution_free(&sol);
    pl_model_free(&model);
}

/* Steps per second of a case's one sustained contact, from its entry (the transient included) to its exit or
 * the end: step rows with distinct times (a switch records its state twice at one time). */
static double contact_steps_per_second(const pl_case *c, double mu)
{
    pl_model model;
    pl_solution sol;
    pl_error err;
    double rate = NAN;
    CHECK(pl_model_init(&model, c, NULL, 0, &err) == PL_OK, "%s: %s", c->name, err.message);
    CHECK(solve_penalty(&model, mu, 1e-8, 0.0, 0, &sol, &err) == PL_OK, "%s at mu %g: %s", c->name, mu, err.message);
    if (sol.status == PL_OK && sol.nepisodes == 1) {
        const pl_episode *ep = &sol.episodes[0];
        size_t last = ep->row_out < sol.traj.nrows ? ep->row_out : sol.traj.nrows - 1, steps = 0;
        for (size_t r = ep->row_in + 1; r <= last; r++)
            steps += pl_table_row(&sol.traj, r)[0] > pl_table_row(&sol.traj, r - 1)[0];
        rate = (double)steps / ((isnan(ep->t_out) ? sol.t_final : ep->t_out) - ep->t_in);
    } else {
        CHECK(0, "%s at mu %g: one contact episode (%zu)", c->name, mu, sol.nepisodes);
    }
    pl_solution_free(&sol);
    pl_model_free(&model);
    return rate;
}

/* The cost of a sustained contact is that of its physics, whatever mu: the steps per second of the cup's
 * slide (Cartesian: the normal turns with the mass) and of the disk's (to its lift-off) at mu = 1e6 and 1e10,
 * pinned, and the larger over the smaller within 1.5.  Before the gap rate's floor (weights.c) and the fresh
 * Jacobians of a turning normal (bdf_fresh_jacobian, penalty.c) the cup took 2.0 times as many at 1e10 as
 * at 1e6 (771 Runge-Kutta steps of its entry transient set by the force's round-off, then a convergence
 * failure of BDF's Newton iteration at every step), the disk 2.1 times. */
static void check_sliding(void)
{
    const struct {
        const pl_case *c;
        double pinned[2]; /* steps per second at mu = 1e6, 1e10 */
    } slides[] = {{&pl_case_cup, {116.4, 115.0}}, {&pl_case_disk, {578.5, 544.6}}};
    for (size_t k = 0; k < sizeof slides / sizeof *slides; k++) {
        double rate[2];
        for (int j = 0; j < 2; j++) {
            double mu = j ? 1e10 : 1e6;
            rate[j] = contact_steps_per_second(slides[k].c, mu);
            double ratio = rate[j] / slides[k].pinned[j];
            CHECK(ratio <= 1.05 && ratio >= 0.90,
                  "%s at mu %g: %.1f steps per second of contact, pinned %.1f (+5%%/-10%%)", slides[k].c->name, mu,
                  rate[j], slides[k].pinned[j]);
        }
        double spread = fmax(rate[0], rate[1]) / fmin(rate[0], rate[1]);
        CHECK(spread <= 1.5, "%s: steps per second of contact at mu 1e6 and 1e10, %.1f and %.1f: %.2f apart (<= 1.5)",
              slides[k].c->name, rate[0], rate[1], spread);
    }
}

int main(void)
{
    check_init();
    check_sliding();
    static const pl_setting box[] = {{"config", 3}, {"N", 100}};
    const pin pins[] = {
        {&pl_case_bouncing_ball, 1e4, 415, 5946, NULL, 0, 0.0},   {&pl_case_bouncing_ball, 1e10, 1131, 17327, NULL, 0, 0.0},
        {&pl_case_wedge, 1e4, 16, 328, NULL, 0, 0.0},             {&pl_case_wedge, 1e10, 20, 380, NULL, 0, 0.0},
        {&pl_case_vibrating_table, 1e6, 152, 2453, NULL, 0, 0.0}, {&pl_case_vibrating_table, 1e10, 315, 2904, NULL, 0, 0.0},
        {&pl_case_cup, 1e6, 259, 884, NULL, 0, 0.0},              {&pl_case_cup, 1e10, 256, 726, NULL, 0, 0.0},
        /* a box of 100 disks in one row to t = 0.5: the Runge-Kutta pair looking at the roots of the
         * constraints the neighbour list gains between restarts (live roots) saves 12% of the
         * evaluations (20293 without), the crossings found between step ends instead */
        {&pl_case_spheres, 1e6, 577, 17444, box, 2, 0.5},
    };
    for (size_t k = 0; k < sizeof pins / sizeof *pins; k++)
        check_pin(&pins[k]);
    return check_finish("test_cost");
}
