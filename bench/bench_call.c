/* The cost of one call of the library from C, for bench/bench_python.py to set against the same call
 * from Python: N times, solve the built-in ball (SOLVER, t_end T, no samples) and read its final state;
 * prints the mean seconds per call.  usage: bench_call SOLVER T N */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "penlim/penlim.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: bench_call SOLVER T N\n");
        return 2;
    }
    pl_library_init();
    pl_error err;
    pl_model *m = pl_model_create(pl_builtin_case_find("bouncing_ball"), NULL, 0, &err);
    pl_setting opts[] = {{"t_end", atof(argv[2])}, {"samples", 0}};
    long n = atol(argv[3]);
    double qv[2], sum = 0;
    double t0 = now();
    for (long k = 0; k < n; k++) {
        pl_solution *sol = NULL;
        if (pl_solve_model(m, argv[1], opts, 2, &sol, &err) != PL_OK) {
            fprintf(stderr, "bench_call: %s\n", err.message);
            return 1;
        }
        sum += pl_solution_final(sol, qv) + qv[0];
        pl_solution_destroy(sol);
    }
    double dt = now() - t0;
    pl_model_destroy(m);
    printf("%.9g %.17g\n", dt / (double)n, sum);
    return 0;
}
