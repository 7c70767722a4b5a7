/* Cost against the number of bodies: the penalized solve (mu = 1e6, rtol 1e-8, no dense samples) of
 *   - the spheres' box of N disks in one row (config 3, no gravity: the disks fly and collide),
 *   - the same box in rows of cols = sqrt(N) under gravity (g = 9.81: the disks fall and settle into
 *     sustained contacts),
 *   - Newton's cradle of N balls (its t-end),
 * up to the N whose rows reach the output's cap of the library's default (2e7 values: 784 disks in
 * rows, 3000 balls),
 * and the analysis of the smaller ones.  Per N: the constraints m, steps, right-hand sides, Jacobians,
 * the state's components at the end (2n + 1 and the impulses' slots), contact episodes and the mean
 * number of contacts at a time (the episodes' durations over t-end), the solve's wall time, per
 * simulated second, the steps per simulated second and the wall per step; then the slopes of
 * log(solve), log(steps) and log(wall per step) against log(N) fitted over the larger half of the N
 * done (GSL's linear fit): exponents p of cost ~ N^p, scale-free, so comparable across machines.
 * The one global step makes the steps per simulated second grow with the collision rate: the two
 * exponents say which of steps(N) and work per step(N) misses a goal.
 *
 * Usage: bench_scaling [budget seconds (default 120)]: a family stops at the first N whose solve took
 * longer than the budget. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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
    int rows;            /* cols = sqrt(N) and g = 9.81 (the spheres' box) */
    double t_end;        /* 0: the case's */
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

static void run_family(const family *f, double budget)
{
    double solve[MAX_N], steps_s[MAX_N], per_step[MAX_N];
    size_t done = 0;
    printf("\n%s, mu = 1e6, rtol = 1e-8\n%6s %8s %7s %8s %5s %6s %7s %8s %10s %10s %9s %10s %10s\n", f->label, "N", "m",
           "steps", "rhs", "jac", "state", "episodes", "contacts", "solve [s]", "s/sim s", "steps/s", "us/step",
           "analysis [s]");
    for (size_t k = 0; k < f->count; k++) {
        double cols = floor(sqrt(f->N[k]) + 0.5);
        pl_setting set[4] = {{"N", f->N[k]}, {"config", f->config}, {"cols", cols}, {"g", 9.81}};
        size_t nset = f->rows ? 4 : f->config > 0.0 ? 2 : 1;
        pl_model model;
        pl_error err;
        solve[k] = steps_s[k] = per_step[k] = NAN;
        if (pl_model_init(&model, f->c, set, nset, &err) != PL_OK) {
            printf("%6.0f %s\n", f->N[k], err.message);
            continue;
        }
        double T = f->t_end > 0.0 ? f->t_end : model.type->t_end, analysis = NAN, contacts = 0.0;
        long steps = 0, rhs = 0, jac = 0, state = 0;
        size_t episodes = 0;
        int analyse = f->N[k] <= f->analysis_max;
        for (int rep = 0; rep < REPEATS && !(rep > 0 && solve[k] > 1.0); rep++) {
            pl_solution sol;
            pl_analysis a;
            double t0 = pl_now_seconds();
            pl_status st = solve_penalty(&model, 1e6, 1e-8, T, 0, &sol, &err);
            double t1 = pl_now_seconds();
            if (st == PL_OK && (!analyse || pl_analyze(&model, &sol, &a, &err) == PL_OK)) {
                double t2 = pl_now_seconds();
                solve[k] = rep == 0 ? t1 - t0 : fmin(solve[k], t1 - t0);
                analysis = !analyse ? NAN : rep == 0 ? t2 - t1 : fmin(analysis, t2 - t1);
                steps = sol.stats.steps, rhs = sol.stats.rhs_evals, jac = sol.stats.jac_evals;
                state = sol.stats.state_size;
                episodes = sol.nepisodes;
                contacts = 0.0;
                for (size_t e = 0; e < sol.nepisodes; e++) {
                    double out = isnan(sol.episodes[e].t_out) ? T : sol.episodes[e].t_out;
                    contacts += (out - sol.episodes[e].t_in) / T;
                }
                if (analyse)
                    pl_analysis_free(&a);
            } else if (rep == 0) {
                printf("%6.0f failed: %s\n", f->N[k], err.message);
            }
            pl_solution_free(&sol);
        }
        size_t m = model.m;
        pl_model_free(&model);
        if (isnan(solve[k]))
            break;
        steps_s[k] = (double)steps / T;
        per_step[k] = solve[k] / (double)steps;
        done = k + 1;
        printf("%6.0f %8zu %7ld %8ld %5ld %6ld %7zu %8.1f %10.4g %10.4g %9.0f %10.1f %10.4g\n", f->N[k], m, steps, rhs,
               jac, state, episodes, contacts, solve[k], solve[k] / T, steps_s[k], 1e6 * per_step[k], analysis);
        fflush(stdout);
        if (solve[k] > budget)
            break;
    }
    size_t half = done / 2;
    if (done >= 2)
        printf("over N >= %.0f: solve ~ N^%.2f, steps ~ N^%.2f, wall per step ~ N^%.2f\n", f->N[half],
               slope(f->N, solve, half, done), slope(f->N, steps_s, half, done), slope(f->N, per_step, half, done));
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    double budget = argc > 1 ? atof(argv[1]) : 120.0;
    if (!(budget > 0.0)) {
        fprintf(stderr, "bench_scaling: the budget must be a positive number of seconds\n");
        return 2;
    }
    const double row[] = {50, 100, 200, 400, 800}, rows[] = {25, 49, 100, 196, 400},
                 balls[] = {100, 300, 1000};
    const family families[] = {
        {&pl_case_spheres, "spheres, a box of N disks in one row (config 3), t-end 0.5", row, 5, 3.0, 0, 0.5, 100.0},
        {&pl_case_spheres, "spheres, N disks in rows of sqrt(N) under gravity (config 3, g = 9.81), t-end 0.5", rows, 5,
         3.0, 1, 0.5, 0.0},
        {&pl_case_newtons_cradle, "newtons_cradle, N balls, its t-end", balls, 3, 0.0, 0, 0.0, 100.0}};
    for (size_t k = 0; k < sizeof families / sizeof *families; k++)
        run_family(&families[k], budget);
    return 0;
}
