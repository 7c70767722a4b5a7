/* Work against precision: the penalized system at several mu against the time-stepping schemes at
 * several h, each measured against the limit solution with the distances of the sweeps.  Cases:
 * bouncing_ball with e = 0.9 (Moreau-Jean only: the others are inelastic) and e = 0, and the wedge
 * from (1, 1.01) with m = -0.5, e = 0 (where the penalty limit and the rigid schemes agree: both
 * leave along q2 = 0 with (0.25, 0)).  Prints steps, LCP solves, right-hand-side evaluations, the
 * cost per step and the wall time as a ratio to the penalized run at mu = 1e8 of the same case
 * (fastest of 5 repetitions each), and the accuracy reached: sup |q - q_lim|, the L1 distance of the
 * velocities and the largest error of the first 10 impact times. */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cases/cases.h"
#include "solve.h"
#include "study/analysis.h"
#include "study/compare.h"
#include "study/trajectory.h"

typedef struct {
    const pl_solver_type *solver;
    double value; /* mu or h */
} config;

/* Solve (fastest of 5), analyse, interpolate; returns the wall time. */
static double solve_timed(const config *c, const pl_model *m, double t_end, pl_solution *sol, pl_error *err)
{
    const char *name = c->solver->refine ? c->solver->refine : "rtol";
    double value = c->solver->refine ? c->value : 1e-12;
    double wall = INFINITY;
    for (int rep = 0; rep < 5; rep++) {
        if (rep > 0)
            pl_solution_free(sol);
        if (solve_with(c->solver, m, t_end, 0, &name, &value, 1, sol, err) != PL_OK)
            return NAN;
        wall = fmin(wall, sol->stats.wall_seconds);
    }
    return wall;
}

static void bench_case(const char *title, const pl_case *cs, const pl_setting *s, size_t ns, double t_end,
                       const config *configs, size_t nconf)
{
    pl_model m;
    pl_error err;
    if (pl_model_init(&m, cs, s, ns, &err) != PL_OK) {
        printf("%s: %s\n", title, err.message);
        return;
    }
    printf("\n%s, t in [0, %g]\n", title, t_end);
    config lc = {&pl_solver_limit, 0};
    pl_solution limit;
    pl_analysis la;
    pl_trajectory lt;
    if (isnan(solve_timed(&lc, &m, t_end, &limit, &err)) || pl_analyze(&m, &limit, &la, &err) != PL_OK ||
        pl_trajectory_build(&lt, &m, &limit, &err) != PL_OK) {
        printf("  limit solution failed: %s\n", err.message);
        pl_model_free(&m);
        return;
    }
    pl_analysed ref = {&limit, &la, &lt};
    /* The reference cost: the penalized run at mu = 1e8. */
    config pc = {&pl_solver_penalty, 1e8};
    pl_solution p;
    double wall_ref = solve_timed(&pc, &m, t_end, &p, &err);
    pl_solution_free(&p);
    printf("  %-12s %9s %9s %8s %10s %11s %10s %10s %10s %10s\n", "solver", "mu or h", "steps", "LCPs", "rhs_evals",
           "wall/step", "wall/1e8", "sup|dq|", "L1|dv|", "t_impact");
    for (size_t k = 0; k < nconf; k++) {
        pl_solution sol;
        pl_analysis a;
        pl_trajectory tr;
        double wall = solve_timed(&configs[k], &m, t_end, &sol, &err);
        if (isnan(wall) || pl_analyze(&m, &sol, &a, &err) != PL_OK || pl_trajectory_build(&tr, &m, &sol, &err) != PL_OK) {
            printf("  %-12s %9.0e failed: %s\n", configs[k].solver->name, configs[k].value, err.message);
            pl_solution_free(&sol);
            continue;
        }
        pl_analysed run = {&sol, &a, &tr};
        pl_limit_distance d;
        pl_compare_with_limit(&m, &run, &ref, NAN, NAN, &d, NULL, &err);
        printf("  %-12s %9.0e %9ld %8ld %10ld %11.3g %10.3f %10.2e %10.2e %10.2e\n", configs[k].solver->name,
               configs[k].value, sol.stats.steps, sol.stats.lcp_solves, sol.stats.rhs_evals,
               wall / (double)sol.stats.steps / (wall_ref / (double)p.stats.steps), wall / wall_ref, d.sup_q, d.l1_v,
               d.impact_time_error);
        pl_trajectory_free(&tr);
        pl_analysis_free(&a);
        pl_solution_free(&sol);
    }
    pl_trajectory_free(&lt);
    pl_analysis_free(&la);
    pl_solution_free(&limit);
    pl_model_free(&m);
}

int main(void)
{
    gsl_set_error_handler_off();
    printf("Work against precision, measured against the limit solution (rtol 1e-12). Penalized runs at\n"
           "rtol 1e-8. wall/step: wall time per step relative to that of the penalized run at mu = 1e8;\n"
           "wall/1e8: wall time relative to that run; t_impact: largest error of the first 10 impact times.\n");
    config ball[] = {{&pl_solver_penalty, 1e4}, {&pl_solver_penalty, 1e6}, {&pl_solver_penalty, 1e8},
                     {&pl_solver_penalty, 1e10}, {&pl_solver_moreau_jean, 1e-2}, {&pl_solver_moreau_jean, 1e-3},
                     {&pl_solver_moreau_jean, 1e-4}, {&pl_solver_moreau_jean, 1e-5}};
    bench_case("bouncing_ball, e = 0.9", &pl_case_bouncing_ball, NULL, 0, 10.0, ball, 8);
    config all[] = {{&pl_solver_penalty, 1e4}, {&pl_solver_penalty, 1e6}, {&pl_solver_penalty, 1e8},
                    {&pl_solver_penalty, 1e10}, {&pl_solver_moreau_jean, 1e-2}, {&pl_solver_moreau_jean, 1e-3},
                    {&pl_solver_moreau_jean, 1e-4}, {&pl_solver_moreau_jean, 1e-5}, {&pl_solver_paoli, 1e-2},
                    {&pl_solver_paoli, 1e-3}, {&pl_solver_paoli, 1e-4}, {&pl_solver_paoli, 1e-5},
                    {&pl_solver_maury, 1e-2}, {&pl_solver_maury, 1e-3}, {&pl_solver_maury, 1e-4},
                    {&pl_solver_maury, 1e-5}};
    pl_setting e0[] = {{"e", 0.0}};
    bench_case("bouncing_ball, e = 0", &pl_case_bouncing_ball, e0, 1, 2.0, all, 16);
    pl_setting w[] = {{"m", -0.5}, {"q2", 1.01}, {"e", 0.0}};
    bench_case("wedge, m = -0.5, q0 = (1, 1.01), e = 0", &pl_case_wedge, w, 3, 3.0, all, 16);
    return 0;
}
