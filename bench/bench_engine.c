/* The engine's cost on one case at one mu, as bench_peers times penlim: pl_solve_model with
 * samples = 0 at rtol 1e-8, repeated; prints steps, right-hand sides and the fastest wall time per
 * solve and per right-hand side.  Under callgrind (--toggle-collect=pl_solve_model) with a library
 * built with -g, bench/callgrind_phases.py splits the instructions into the engine's phases
 * (docs/verification.md, "Where the time goes at low mu").
 *
 * Usage: bench_engine CASE MU [REPEATS [NAME=VALUE ...]]   (REPEATS default 20; the case's settings) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/params.h"
#include "penlim/penlim.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_engine CASE MU [REPEATS [NAME=VALUE ...]]\n");
        return 2;
    }
    pl_library_init();
    const pl_case *cs = pl_builtin_case_find(argv[1]);
    double mu = atof(argv[2]);
    int repeats = argc > 3 ? atoi(argv[3]) : 20;
    if (!cs || !(mu > 0) || repeats < 1) {
        fprintf(stderr, "bench_engine: unknown case '%s', or mu '%s' or repeats not positive\n", argv[1], argv[2]);
        return 2;
    }
    pl_setting set[16];
    size_t nset = 0;
    pl_error err = {0};
    for (int a = 4; a < argc; a++)
        if (nset == 16 || pl_setting_parse(argv[a], &set[nset++], &err) != PL_OK) {
            fprintf(stderr, "bench_engine: %s\n", nset == 16 ? "at most 16 settings" : err.message);
            return 2;
        }
    pl_model *model = pl_model_create(cs, set, nset, &err);
    if (!model) {
        fprintf(stderr, "bench_engine: %s\n", err.message);
        return 2;
    }
    pl_setting o[] = {{"mu", mu}, {"rtol", 1e-8}, {"t_end", pl_model_case(model)->t_end}, {"samples", 0}};
    double best = 0.0;
    long steps = 0, rhs = 0;
    for (int r = 0; r < repeats; r++) {
        pl_solution *sol = NULL;
        double t0 = pl_now_seconds();
        pl_status st = pl_solve_model(model, "penalty", o, 4, &sol, &err);
        double wall = pl_now_seconds() - t0;
        if (st != PL_OK) {
            fprintf(stderr, "bench_engine: %s\n", err.message);
            pl_model_destroy(model);
            return 1;
        }
        best = r == 0 || wall < best ? wall : best;
        pl_solution_work(sol, &steps, &rhs, &(double){0});
        pl_solution_destroy(sol);
    }
    printf("%s mu = %g: %ld steps, %ld right-hand sides, fastest of %d: %.1f us, %.1f ns per right-hand side\n",
           argv[1], mu, steps, rhs, repeats, best * 1e6, best * 1e9 / (double)rhs);
    pl_model_destroy(model);
    return 0;
}
