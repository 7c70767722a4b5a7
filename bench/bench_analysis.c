/* The analysis of many contacts against the solve: for one case and N (Newton's cradle of N balls,
 * or the spheres' box of N disks, config 3), the penalized solve at mu = 1e6 (rtol 1e-8, samples as
 * `penlim run`'s default, 200) and its analysis (pl_analyze), then the limit solution (rtol 1e-12),
 * each timed in this process (fastest of REPEATS, of 1 once a solve takes more than a second), with
 * the analysis' counts of work (coupling products, entries W_ab formed, sliding rows).
 *
 *     bench_analysis newtons_cradle|spheres N [T_END] [penalty|limit|both]
 *
 * T_END 0 (default): the case's.  Walls are for ratios of runs made together on one machine. */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "core/clock.h"
#include "solve.h"
#include "study/analysis.h"

enum { REPEATS = 3 };

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    if (argc < 3) {
        fprintf(stderr, "usage: bench_analysis newtons_cradle|spheres N [T_END] [penalty|limit|both]\n");
        return 2;
    }
    int cradle = strcmp(argv[1], "newtons_cradle") == 0;
    if (!cradle && strcmp(argv[1], "spheres") != 0) {
        fprintf(stderr, "bench_analysis: unknown case '%s' (newtons_cradle or spheres)\n", argv[1]);
        return 2;
    }
    double N = atof(argv[2]), t_end = argc > 3 ? atof(argv[3]) : 0.0;
    const char *which = argc > 4 ? argv[4] : "both";
    pl_setting set[] = {{"N", N}, {"config", 3.0}};
    pl_model model;
    pl_error err;
    if (pl_model_init(&model, cradle ? &pl_case_newtons_cradle : &pl_case_spheres, set, cradle ? 1 : 2, &err) != PL_OK) {
        fprintf(stderr, "bench_analysis: %s\n", err.message);
        return 2;
    }
    if (strcmp(which, "limit") != 0) {
        double solve = INFINITY, analysis = INFINITY;
        for (int rep = 0; rep < REPEATS && !(rep > 0 && solve > 1.0); rep++) {
            pl_solution sol;
            pl_analysis a;
            double t0 = pl_now_seconds();
            pl_status st = solve_penalty(&model, 1e6, 1e-8, t_end, 200, &sol, &err);
            double t1 = pl_now_seconds();
            if (st == PL_OK && pl_analyze(&model, &sol, &a, &err) == PL_OK) {
                double t2 = pl_now_seconds();
                solve = fmin(solve, t1 - t0);
                analysis = fmin(analysis, t2 - t1);
                if (rep == 0)
                    printf("%s N = %.0f: rows %zu, episodes %zu, impacts %zu, sliding rows %zu, coupling products %zu, "
                           "W entries %zu\n",
                           argv[1], N, sol.traj.nrows, sol.nepisodes, a.impacts, a.sliding.nrows, a.coupling_terms,
                           a.couplings_formed);
                pl_analysis_free(&a);
            } else {
                printf("%s N = %.0f: failed: %s\n", argv[1], N, err.message);
            }
            pl_solution_free(&sol);
        }
        printf("%s N = %.0f: solve %.4g s, analysis %.4g s (%.2f of the solve)\n", argv[1], N, solve, analysis,
               analysis / solve);
    }
    if (strcmp(which, "penalty") != 0) {
        double limit = INFINITY;
        for (int rep = 0; rep < REPEATS && !(rep > 0 && limit > 1.0); rep++) {
            pl_solution sol;
            double t0 = pl_now_seconds();
            pl_status st = solve_limit(&model, 1e-12, t_end, 200, &sol, &err);
            double t1 = pl_now_seconds();
            if (st == PL_OK)
                limit = fmin(limit, t1 - t0);
            else
                printf("%s N = %.0f: limit failed: %s\n", argv[1], N, err.message);
            pl_solution_free(&sol);
        }
        printf("%s N = %.0f: limit %.4g s\n", argv[1], N, limit);
    }
    pl_model_free(&model);
    return 0;
}
