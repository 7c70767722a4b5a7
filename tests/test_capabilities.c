/* The capabilities each registered solver declares (pl_solver_capability, solvers/solver.h) against
 * what its solutions hold, on a vibrating table (e = 0: impacts, sliding and lift-offs within 3 s):
 * episodes, events and a step size exactly where declared, a Zeno point only where declared, and
 * the samples between steps of a solver with dense output (SAMPLES of them, as many per flight and per
 * episode: none left out by the sampling by events).  The summaries' writer and reader and the
 * command line ask these flags instead of the family, so a flag that disagrees with the solutions
 * would drop or invent fields. */
#include <math.h>

#include "cases/cases.h"
#include "check.h"
#include "solve.h"

#define SAMPLES 2000

/* Whether the trajectory has a row at each sample time k t_end / SAMPLES. */
static int has_samples(const pl_solution *sol)
{
    size_t found = 0, row = 0;
    for (size_t k = 1; k < SAMPLES; k++) {
        double t = sol->t_end * (double)k / SAMPLES;
        while (row < sol->traj.nrows && pl_table_row(&sol->traj, row)[0] < t)
            row++;
        found += row < sol->traj.nrows && pl_table_row(&sol->traj, row)[0] == t;
    }
    return found == SAMPLES - 1;
}

int main(void)
{
    check_init();
    const pl_case *c = pl_case_find("vibrating_table");
    pl_setting set[] = {{"e", 0.0}};
    pl_model model;
    pl_error err;
    CHECK(c && pl_model_init(&model, c, set, 1, &err) == PL_OK, "vibrating_table, e = 0");
    if (!c)
        return check_finish("test_capabilities");
    for (size_t k = 0; k < pl_solver_count(); k++) {
        const pl_solver_type *s = pl_solver_at(k);
        const char *names[] = {"mu"};
        double values[] = {1e6};
        int penalty = pl_solver_option_index(s, "mu") >= 0;
        pl_solution sol;
        pl_status st = solve_with(s, &model, 3.0, SAMPLES, names, values, penalty ? 1 : 0, &sol, &err);
        CHECK(st == PL_OK, "%s solves: %s", s->name, st == PL_OK ? "" : err.message);
        if (st == PL_OK) {
            CHECK((sol.nepisodes > 0) == pl_solver_can(s, PL_SOLVER_EPISODES), "%s: %zu episodes, declared %d",
                  s->name, sol.nepisodes, pl_solver_can(s, PL_SOLVER_EPISODES));
            CHECK((sol.nevents > 0) == pl_solver_can(s, PL_SOLVER_EVENTS), "%s: %zu events, declared %d", s->name,
                  sol.nevents, pl_solver_can(s, PL_SOLVER_EVENTS));
            CHECK(!sol.zeno.found || pl_solver_can(s, PL_SOLVER_ZENO), "%s: a Zeno point, not declared", s->name);
            CHECK((sol.step_size > 0.0) == pl_solver_can(s, PL_SOLVER_FIXED_STEP), "%s: step size %g, declared %d",
                  s->name, sol.step_size, pl_solver_can(s, PL_SOLVER_FIXED_STEP));
            CHECK(!pl_solver_can(s, PL_SOLVER_DENSE) || has_samples(&sol), "%s: dense output, but not the %d samples",
                  s->name, SAMPLES - 1);
        }
        pl_solution_free(&sol);
    }
    pl_model_free(&model);
    return check_finish("test_capabilities");
}
