/* Cost against the number of bodies: the penalized solve (mu = 1e6, rtol 1e-8, no dense samples) of
 *   - the spheres' box of N disks in one row (config 3, no gravity: the disks fly and collide),
 *   - the same box in rows of cols = sqrt(N) under gravity (g = 9.81: the disks fall and settle into
 *     sustained contacts),
 *   - Newton's cradle of N balls (its t-end),
 * up to 1600 disks in one row, 400 in rows and 1000 balls (the rows of 784 disks in rows and of 3000 balls
 * reach 2e7 values, the library's default cap on the output),
 * and the analysis of the smaller ones.  Per N: the constraints m, steps, right-hand sides, Jacobians,
 * the state's components at the end (2n + 1 and the impulses' slots), contact episodes and the mean
 * number of contacts at a time (the episodes' durations over t-end), the solve's wall time, per
 * simulated second, the steps per simulated second and the wall per step, and work counted: gaps
 * evaluated and root-function values written per step, constraints visited per rebuild of the
 * neighbour list (after the first; pl_stats), the solve's CPU time and per step; then the slopes of
 * log(solve), log(steps), log(wall per step) and the CPU time's against log(N) fitted over the larger
 * half of the N done (GSL's linear fit): exponents p of cost ~ N^p, scale-free, so comparable across machines.
 * The one global step makes the steps per simulated second grow with the collision rate: the two
 * exponents say which of steps(N) and work per step(N) misses a goal.
 *
 * With --limit, the limit solution instead (rtol 1e-12, its default): the same families, its steps, fast
 * steps of impacts and gaps evaluated per step (the analysis not timed).
 *
 * Usage: bench_scaling [budget seconds (default 120)] [--plot DIR] [--family K] [--from N] [--limit]: a family
 * stops at the first N whose solve took longer than the budget; --family runs family K alone (0 one
 * row, 1 rows, 2 the cradle), --from only its N >= N (not with --plot); --plot writes DIR/scaling.dat
 * and DIR/scaling_fits.gp (CPU times, steps), which bench/scaling.gp draws log-log with the fitted
 * slopes (docs/figures/scaling.png). */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* The slope of log y against log x over the points from `from` on (its intercept in *c0_out). */
static double slope(const double *x, const double *y, size_t from, size_t count, double *c0_out)
{
    double lx[MAX_N], ly[MAX_N], c0, c1, cov00, cov01, cov11, sumsq;
    size_t k = 0;
    for (size_t i = from; i < count; i++)
        if (y[i] > 0.0)
            lx[k] = log(x[i]), ly[k] = log(y[i]), k++;
    if (k < 2 || gsl_fit_linear(lx, 1, ly, 1, k, &c0, &c1, &cov00, &cov01, &cov11, &sumsq) != GSL_SUCCESS)
        return NAN;
    if (c0_out)
        *c0_out = c0;
    return c1;
}

/* The process's CPU time: the machine is shared, and a solve's wall time moves with the load; its CPU
 * time much less (the exponents of both are printed). */
static double cpu_seconds(void)
{
    struct timespec ts;
    return clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0 ? (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec : NAN;
}

/* The penalized solve at mu = 1e6, rtol 1e-8, no samples, with an output cap of OUTPUT_CAP values: a
 * row of 1600 disks records 3e7, beyond the library's default 2e7 (which the smaller runs do not
 * reach: the cap changes nothing else). */
#define OUTPUT_CAP 2e8
static pl_status solve_capped(const pl_model *model, double t_end, int limit, pl_solution *sol, pl_error *err)
{
    pl_solve_opts o;
    const pl_solver_type *type = limit ? &pl_solver_limit : &pl_solver_penalty;
    pl_solve_opts_init(&o, type, model, t_end);
    o.samples = 0;
    o.max_output = OUTPUT_CAP;
    if (limit)
        return pl_solve(type, model, &o, sol, err);
    pl_status s = pl_solve_opts_set(&o, &pl_solver_penalty, "mu", 1e6, err);
    if (s == PL_OK)
        s = pl_solve_opts_set(&o, &pl_solver_penalty, "rtol", 1e-8, err);
    if (s != PL_OK) {
        pl_solution_init(sol, &pl_solver_penalty, model, t_end, NULL);
        return s;
    }
    return pl_solve(&pl_solver_penalty, model, &o, sol, err);
}

/* The plot's data (--plot DIR): per family a block of N and the three costs, and the fits. */
typedef struct {
    FILE *data, *fits;
    int index;
} plot_files;

static void run_family(const family *f, double budget, double from, int limit, plot_files *plot)
{
    double solve[MAX_N], steps_s[MAX_N], per_step[MAX_N], cpu[MAX_N], cpu_step[MAX_N];
    size_t done = 0;
    printf("\n%s, %s\n%6s %8s %7s %8s %5s %6s %7s %8s %10s %10s %9s %10s %10s %9s %9s %9s %9s %10s\n",
           f->label, limit ? "the limit solution, rtol = 1e-12" : "mu = 1e6, rtol = 1e-8", "N", "m", "steps", "rhs",
           limit ? "fast" : "jac", "state", limit ? "events" : "episodes", "contacts", "solve [s]", "s/sim s", "steps/s",
           "us/step", "analysis [s]", "gaps/step", "roots/step", "visits/rb", "cpu [s]", "cpu us/step");
    for (size_t k = 0; k < MAX_N; k++)
        solve[k] = steps_s[k] = per_step[k] = cpu[k] = cpu_step[k] = NAN;
    for (size_t k = 0; k < f->count; k++) {
        if (f->N[k] < from) /* not run (--from): left out of the fits */
            continue;
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
        double gaps = NAN, roots = NAN, visits = NAN; /* per step, per step, per rebuild after the first */
        size_t episodes = 0;
        int analyse = !limit && f->N[k] <= f->analysis_max;
        for (int rep = 0; rep < REPEATS && !(rep > 0 && solve[k] > 1.0); rep++) {
            pl_solution sol;
            pl_analysis a;
            double t0 = pl_now_seconds(), c0 = cpu_seconds();
            pl_status st = solve_capped(&model, T, limit, &sol, &err);
            double t1 = pl_now_seconds(), c1 = cpu_seconds();
            if (st == PL_OK && (!analyse || pl_analyze(&model, &sol, &a, &err) == PL_OK)) {
                double t2 = pl_now_seconds();
                solve[k] = rep == 0 ? t1 - t0 : fmin(solve[k], t1 - t0);
                cpu[k] = rep == 0 ? c1 - c0 : fmin(cpu[k], c1 - c0);
                analysis = !analyse ? NAN : rep == 0 ? t2 - t1 : fmin(analysis, t2 - t1);
                steps = sol.stats.steps, rhs = sol.stats.rhs_evals, jac = limit ? sol.stats.fast_steps : sol.stats.jac_evals;
                state = sol.stats.state_size;
                gaps = (double)sol.stats.gap_evals / (double)steps;
                roots = (double)sol.stats.root_writes / (double)steps;
                visits = sol.stats.neighbour_rebuilds > 1
                             ? (double)sol.stats.rebuild_visits / (double)(sol.stats.neighbour_rebuilds - 1)
                             : NAN;
                episodes = limit ? sol.nevents : sol.nepisodes;
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
        cpu_step[k] = cpu[k] / (double)steps;
        done = k + 1;
        printf("%6.0f %8zu %7ld %8ld %5ld %6ld %7zu %8.1f %10.4g %10.4g %9.0f %10.1f %10.4g %9.0f %9.0f %9.0f %9.4g %10.1f\n",
               f->N[k], m, steps, rhs, jac, state, episodes, contacts, solve[k], solve[k] / T, steps_s[k],
               1e6 * per_step[k], analysis, gaps, roots, visits, cpu[k], 1e6 * cpu_step[k]);
        fflush(stdout);
        if (solve[k] > budget)
            break;
    }
    size_t half = done / 2;
    /* the plot's and its fits: CPU time (the machine is shared: a solve's wall moves with the load) */
    double c0[3] = {NAN, NAN, NAN}, p[3] = {NAN, NAN, NAN}, per_sim[MAX_N], wall_sim[MAX_N];
    for (size_t k = 0; k < done; k++) {
        per_sim[k] = cpu[k] / (f->t_end > 0.0 ? f->t_end : f->c->t_end);
        wall_sim[k] = solve[k] / (f->t_end > 0.0 ? f->t_end : f->c->t_end);
    }
    if (done >= 2) {
        p[0] = slope(f->N, per_sim, half, done, &c0[0]);
        p[1] = slope(f->N, steps_s, half, done, &c0[1]);
        p[2] = slope(f->N, cpu_step, half, done, &c0[2]);
        printf("over N >= %.0f: solve ~ N^%.2f, steps ~ N^%.2f, wall per step ~ N^%.2f; CPU ~ N^%.2f, CPU per step ~ "
               "N^%.2f\n",
               f->N[half], slope(f->N, wall_sim, half, done, NULL), p[1], slope(f->N, per_step, half, done, NULL), p[0],
               p[2]);
    }
    if (!plot)
        return;
    fprintf(plot->data, "# %s\n# N solve_cpu_per_simulated_second steps_per_simulated_second cpu_per_step\n", f->label);
    for (size_t k = 0; k < done; k++)
        fprintf(plot->data, "%g %.6g %.6g %.6g\n", f->N[k], per_sim[k], steps_s[k], cpu_step[k]);
    fprintf(plot->data, "\n\n");
    /* gnuplot's variables: the fit of quantity q of family k is exp(c_k_q) N^p_k_q over [lo_k, hi_k] */
    int k = plot->index++;
    if (done < 2) {
        fprintf(plot->fits, "lo_%d = NaN; hi_%d = NaN\n", k, k);
        return;
    }
    fprintf(plot->fits, "lo_%d = %g; hi_%d = %g\n", k, f->N[half], k, f->N[done - 1]);
    for (int q = 0; q < 3; q++)
        fprintf(plot->fits, "p_%d_%d = %.6g; c_%d_%d = %.6g\n", k, q, p[q], k, q, c0[q]);
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    double budget = 120.0, from = 0.0;
    int only = -1, limit = 0;
    const char *plot_dir = NULL;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--plot") == 0 && a + 1 < argc)
            plot_dir = argv[++a];
        else if (strcmp(argv[a], "--family") == 0 && a + 1 < argc)
            only = atoi(argv[++a]);
        else if (strcmp(argv[a], "--limit") == 0)
            limit = 1;
        else if (strcmp(argv[a], "--from") == 0 && a + 1 < argc)
            from = atof(argv[++a]);
        else
            budget = atof(argv[a]);
    }
    if (!(budget > 0.0)) {
        fprintf(stderr, "usage: bench_scaling [BUDGET_SECONDS] [--plot DIR] (the budget a positive number)\n");
        return 2;
    }
    plot_files plot = {0};
    if (plot_dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/scaling.dat", plot_dir);
        plot.data = fopen(path, "w");
        snprintf(path, sizeof path, "%s/scaling_fits.gp", plot_dir);
        plot.fits = fopen(path, "w");
        if (!plot.data || !plot.fits) {
            fprintf(stderr, "bench_scaling: cannot write %s/scaling.dat and scaling_fits.gp\n", plot_dir);
            return 2;
        }
        fprintf(plot.fits, "# the fits of bench_scaling over the larger half of each family's N: log cost = c + p log N\n");
    }
    const double row[] = {50, 100, 200, 400, 800, 1600}, rows[] = {25, 49, 100, 196, 400},
                 balls[] = {100, 300, 1000};
    const family families[] = {
        {&pl_case_spheres, "spheres, a box of N disks in one row (config 3), t-end 0.5", row, 6, 3.0, 0, 0.5, 100.0},
        {&pl_case_spheres, "spheres, N disks in rows of sqrt(N) under gravity (config 3, g = 9.81), t-end 0.5", rows, 5,
         3.0, 1, 0.5, 0.0},
        {&pl_case_newtons_cradle, "newtons_cradle, N balls, its t-end", balls, 3, 0.0, 0, 0.0, 100.0}};
    for (size_t k = 0; k < sizeof families / sizeof *families; k++)
        if (only < 0 || (size_t)only == k)
            run_family(&families[k], budget, from, limit, plot_dir ? &plot : NULL);
    if (plot_dir && (fclose(plot.data) != 0) + (fclose(plot.fits) != 0)) {
        fprintf(stderr, "bench_scaling: cannot write the plot's data in %s\n", plot_dir);
        return 1;
    }
    if (plot_dir)
        printf("\nwrote %s/scaling.dat and scaling_fits.gp: gnuplot -e \"dir='%s'\" bench/scaling.gp draws %s/scaling.png\n",
               plot_dir, plot_dir, plot_dir);
    return 0;
}
