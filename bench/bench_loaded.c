/* A model loaded at run time (--model, dlopen) against the same model built in: the bouncing ball's
 * code compiled into bench/loaded_ball.c's shared object.  Steps and right-hand-side evaluations must
 * be equal; wall time as the ratio loaded / built-in, the fastest of interleaved repetitions. */
#include <math.h>
#include <stdio.h>

#include "cases/cases.h"
#include "core/clock.h"
#include "model/loader.h"
#include "solve.h"

#define REPS 15

static int solve_one(const pl_model *m, int limit, double mu, pl_solution *sol, double *seconds)
{
    pl_error err;
    double t0 = pl_now_seconds();
    pl_status st = limit ? solve_limit(m, 1e-10, 10.0, 0, sol, &err) : solve_penalty(m, mu, 1e-8, 10.0, 0, sol, &err);
    *seconds = pl_now_seconds() - t0;
    if (st != PL_OK)
        fprintf(stderr, "bench_loaded: %s\n", err.message);
    return st == PL_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_loaded PATH/loaded_ball.so\n");
        return 2;
    }
    pl_error err;
    pl_model_library lib;
    if (pl_model_library_open(&lib, argv[1], NULL, &err) != PL_OK) {
        fprintf(stderr, "bench_loaded: %s\n", err.message);
        return 2;
    }
    pl_model built, loaded;
    if (pl_model_init(&built, &pl_case_bouncing_ball, NULL, 0, &err) != PL_OK ||
        pl_model_init(&loaded, lib.c, NULL, 0, &err) != PL_OK) {
        fprintf(stderr, "bench_loaded: %s\n", err.message);
        return 2;
    }
    printf("bouncing ball, t in [0, 10]: built in vs loaded from %s (fastest of %d interleaved)\n", argv[1], REPS);
    printf("%-14s %10s %10s %12s %12s %14s\n", "solver", "steps", "rhs", "built-in ms", "loaded ms", "loaded/built");
    const double mus[] = {1e4, 1e6, 1e8, 1e10, NAN};
    int ok = 1;
    for (int k = 0; k < 5; k++) {
        int limit = isnan(mus[k]);
        double best[2] = {INFINITY, INFINITY};
        long steps[2] = {0, 0}, rhs[2] = {0, 0};
        for (int r = 0; r < REPS; r++)
            for (int which = 0; which < 2; which++) {
                pl_solution sol;
                double s;
                ok &= solve_one(which ? &loaded : &built, limit, mus[k], &sol, &s);
                best[which] = fmin(best[which], s);
                steps[which] = sol.stats.steps, rhs[which] = sol.stats.rhs_evals;
                pl_solution_free(&sol);
            }
        char name[32];
        snprintf(name, sizeof name, limit ? "limit" : "penalty 1e%.0f", log10(mus[k]));
        printf("%-14s %10ld %10ld %12.3f %12.3f %14.3f%s\n", name, steps[0], rhs[0], 1e3 * best[0], 1e3 * best[1],
               best[1] / best[0], steps[0] == steps[1] && rhs[0] == rhs[1] ? "" : "   (counts differ!)");
        ok &= steps[0] == steps[1] && rhs[0] == rhs[1];
    }
    pl_model_free(&built);
    pl_model_free(&loaded);
    pl_model_library_close(&lib);
    return ok ? 0 : 1;
}
