/* The penalized engine's cost, pinned as counts (deterministic, unlike wall time): accepted steps and
 * right-hand-side evaluations of four cases at two stiffnesses each, with their defaults (rtol 1e-8, the
 * case's t-end, no dense samples).  A count more than 5% above its pin is a regression; more than 10%
 * below, a change of the step control (a looser one takes fewer steps at a lower accuracy) that must be
 * judged and re-pinned here, with the accuracy tests (test_penalty, test_laws, test_cup) still passing.
 * Disabling step aiming costs the ball 25% more evaluations at mu = 1e4 and the wedge 8%: both fail. */
#include <stdio.h>

#include "cases/cases.h"
#include "check.h"
#include "solve.h"

typedef struct {
    const pl_case *c;
    double mu;
    long steps, rhs; /* the pins */
} pin;

static void check_pin(const pin *p)
{
    pl_model model;
    pl_solution sol;
    pl_error err;
    CHECK(pl_model_init(&model, p->c, NULL, 0, &err) == PL_OK, "%s: %s", p->c->name, err.message);
    CHECK(solve_penalty(&model, p->mu, 1e-8, 0.0, 0, &sol, &err) == PL_OK, "%s at mu %g: %s", p->c->name, p->mu,
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

int main(void)
{
    check_init();
    const pin pins[] = {
        {&pl_case_bouncing_ball, 1e4, 415, 5946},   {&pl_case_bouncing_ball, 1e10, 1131, 17327},
        {&pl_case_wedge, 1e4, 16, 328},             {&pl_case_wedge, 1e10, 20, 380},
        {&pl_case_vibrating_table, 1e6, 152, 2453}, {&pl_case_vibrating_table, 1e10, 286, 2909},
        {&pl_case_cup, 1e6, 498, 1439},             {&pl_case_cup, 1e10, 1007, 12842},
    };
    for (size_t k = 0; k < sizeof pins / sizeof *pins; k++)
        check_pin(&pins[k]);
    return check_finish("test_cost");
}
