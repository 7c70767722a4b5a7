/* The limit solution against penalized runs: for each built-in case with its defaults, the cost
 * of `penlim limit` (rtol 1e-12) and of penalized runs at mu = 1e6 and 1e10 (rtol 1e-8), as
 * steps, right-hand-side evaluations, and wall time as a ratio to the limit solution's (fastest of
 * 5 repetitions each). */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>

#include "cases/cases.h"
#include "solve.h"

int main(void)
{
    gsl_set_error_handler_off();
    printf("%-16s %-14s %9s %10s %10s %8s %12s\n", "case", "solution", "steps", "rhs_evals", "fast_steps", "events",
           "wall/limit");
    for (size_t k = 0; k < pl_case_count(); k++) {
        const pl_case *c = pl_case_at(k);
        pl_model model;
        pl_error err;
        if (pl_model_init(&model, c, NULL, 0, &err) != PL_OK)
            return 1;
        pl_solution lr;
        double wall_limit = INFINITY;
        for (int rep = 0; rep < 5; rep++) {
            if (solve_limit(&model, 1e-12, c->t_end, 0, &lr, &err) != PL_OK) {
                printf("%-16s limit failed: %s\n", c->name, err.message);
                break;
            }
            wall_limit = fmin(wall_limit, lr.stats.wall_seconds);
            if (rep < 4)
                pl_solution_free(&lr);
        }
        printf("%-16s %-14s %9ld %10ld %10ld %8zu %12.2f\n", c->name, "limit", lr.stats.steps, lr.stats.rhs_evals,
               lr.stats.fast_steps, lr.nevents, 1.0);
        pl_solution_free(&lr);
        const double mus[] = {1e6, 1e10};
        for (int j = 0; j < 2; j++) {
            pl_solution pr;
            double wall = INFINITY;
            for (int rep = 0; rep < 5; rep++) {
                solve_penalty(&model, mus[j], 1e-8, c->t_end, 0, &pr, &err);
                wall = fmin(wall, pr.stats.wall_seconds);
                if (rep < 4)
                    pl_solution_free(&pr);
            }
            char name[32];
            snprintf(name, sizeof name, "penalty %.0e", mus[j]);
            printf("%-16s %-14s %9ld %10ld %10s %8zu %12.2f\n", c->name, name, pr.stats.steps, pr.stats.rhs_evals, "-",
                   pr.nepisodes, wall / wall_limit);
            pl_solution_free(&pr);
        }
        pl_model_free(&model);
    }
    return 0;
}
