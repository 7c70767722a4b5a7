/* Cost against the number of bodies: the penalized solve and its analysis for the spheres' box of N
 * disks (config 3, N = 6 ... 64, mu = 1e6) and Newton's cradle of N balls (N = 10 ... 1000, mu = 1e6),
 * with their defaults (rtol 1e-8, the case's t-end, no dense samples).  Prints, per N, steps,
 * right-hand sides, Jacobians, the gaps the run evaluated per step (its record's aside) and the
 * rebuilds of its neighbour list, and the wall time of the solve and of the analysis (fastest of 3, of
 * 1 once a solve takes more than a second; the analysis only up to the N where it stays within a
 * minute), then the slope of log(wall) against log(N) fitted over the larger half of the N (GSL's
 * linear fit): the exponent p of a cost ~ N^p, scale-free, so comparable across machines. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdio.h>

#include "cases/cases.h"
#include "core/clock.h"
#include "solve.h"
#include "study/analysis.h"

enum { REPEATS = 3, MAX_N = 8 };

typedef struct {
    const pl_case *c;
    const char *label;
    const double *N;
    size_t count;
    double config;       /* 0: the case has no config parameter */
    double analysis_max; /* the largest N whose analysis is timed */
} family;

/* The slope of log y against log x over the points from `from` on. */
static double slope(const double *x, const double *y, size_t from, size_t count)
{
    double lx[MAX_N], ly[MAX_N], c0, c1, cov00, cov01, cov11, sumsq;
    size_t k = 0;
    for (size_t i = from; i < count; i++)
        if (y[i] > 0.0)
            lx[k] = log(x[i]), ly[k] = log(y[i]), k++;
    if (k < 2 || gsl_fit_linear(lx, 1, ly, 1, k, &c0, &c1, &cov00, &cov01, &cov11, &sumsq) != GSL_SUCCESS)
        return NAN;
    return c1;
}

static void run_family(const family *f)
{
    double solve[MAX_N], analysis[MAX_N];
    printf("\n%s, mu = 1e6, rtol = 1e-8\n%6s %8s %10s %6s %10s %8s %12s %12s %14s\n", f->label, "N", "steps", "rhs",
           "jac", "gaps/step", "rebuilds", "solve [s]", "analysis [s]", "analysis/solve");
    for (size_t k = 0; k < f->count; k++) {
        pl_setting set[] = {{"N", f->N[k]}, {"config", f->config}};
        pl_model model;
        pl_error err;
        solve[k] = analysis[k] = NAN;
        if (pl_model_init(&model, f->c, set, f->config > 0.0 ? 2 : 1, &err) != PL_OK) {
            printf("%6.0f %s\n", f->N[k], err.message);
            continue;
        }
        long steps = 0, rhs = 0, jac = 0, gaps = 0, rebuilds = 0;
        int analyse = f->N[k] <= f->analysis_max;
        for (int rep = 0; rep < REPEATS && !(rep > 0 && solve[k] > 1.0); rep++) {
            pl_solution sol;
            pl_analysis a;
            double t0 = pl_now_seconds();
            pl_status st = solve_penalty(&model, 1e6, 1e-8, 0.0, 0, &sol, &err);
            double t1 = pl_now_seconds();
            if (st == PL_OK && (!analyse || pl_analyze(&model, &sol, &a, &err) == PL_OK)) {
                double t2 = pl_now_seconds();
                solve[k] = rep == 0 ? t1 - t0 : fmin(solve[k], t1 - t0);
                analysis[k] = !analyse ? NAN : rep == 0 ? t2 - t1 : fmin(analysis[k], t2 - t1);
                steps = sol.stats.steps, rhs = sol.stats.rhs_evals, jac = sol.stats.jac_evals;
                gaps = sol.stats.gap_evals, rebuilds = sol.stats.neighbour_rebuilds;
                if (analyse)
                    pl_analysis_free(&a);
            } else if (rep == 0) {
                printf("%6.0f failed: %s\n", f->N[k], err.message);
            }
            pl_solution_free(&sol);
        }
        pl_model_free(&model);
        printf("%6.0f %8ld %10ld %6ld %10.0f %8ld %12.4g %12.4g %14.2f\n", f->N[k], steps, rhs, jac,
               steps > 0 ? (double)gaps / (double)steps : NAN, rebuilds, solve[k], analysis[k], analysis[k] / solve[k]);
    }
    size_t half = f->count / 2;
    printf("cost ~ N^p over N >= %.0f: solve p = %.2f, analysis p = %.2f\n", f->N[half],
           slope(f->N, solve, half, f->count), slope(f->N, analysis, half, f->count));
}

int main(void)
{
    gsl_set_error_handler_off();
    const double disks[] = {6, 12, 24, 48, 64}, balls[] = {10, 30, 100, 300, 1000};
    const family families[] = {{&pl_case_spheres, "spheres, a box of N disks (config 3)", disks, 5, 3.0, 64.0},
                               {&pl_case_newtons_cradle, "newtons_cradle, N balls", balls, 5, 0.0, 100.0}};
    for (size_t k = 0; k < sizeof families / sizeof *families; k++)
        run_family(&families[k]);
    return 0;
}
