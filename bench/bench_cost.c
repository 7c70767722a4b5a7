/* Cost of the penalized integration against stiffness: bouncing_ball with its defaults
 * (e = 0.9, t in [0, 10]) for mu = 1e4, 1e6, ..., 1e12 at rtol = 1e-8.  Prints steps and
 * right-hand-side evaluations per contact episode, split into impacts (contact plus the flight
 * that follows it) and the final resting contact, and wall time as a ratio to mu = 1e4; then the
 * steps of the final rest for e = 0 ... 0.99 against mu. */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases/cases.h"
#include "solve.h"

/* Internal steps between rows a and b: rows with distinct times (a contact switch records its
 * state twice at the same time). */
static size_t steps_between(const pl_table *traj, size_t a, size_t b)
{
    size_t count = 0;
    for (size_t r = a + 1; r <= b && r < traj->nrows; r++)
        count += pl_table_row(traj, r)[0] > pl_table_row(traj, r - 1)[0];
    return count;
}

/* Steps after the capture (the final rest: the physical transient, then the slow dynamics) for
 * the default ball at several restitutions, 10 s of rest, mu = 1e6 ... 1e10, and the largest over
 * the smallest of them (target: within 1.5).  The transient lasts about ln(1/rtol)/(2 pi xi)
 * contact periods; after it the steps are set by the (here constant) load. */
static void rest_after_capture(double rtol)
{
    const double es[] = {0.0, 0.5, 0.9, 0.99};
    printf("\nsteps after the capture, default ball, 10 s of rest, rtol = %g\n%6s", rtol, "e");
    for (int e = 6; e <= 10; e++)
        printf(" %9s%d", "mu=1e", e);
    printf(" %10s\n", "max/min");
    for (int k = 0; k < 4; k++) {
        pl_setting set[] = {{"e", es[k]}};
        pl_model model;
        pl_error err;
        if (pl_model_init(&model, &pl_case_bouncing_ball, set, 1, &err) != PL_OK)
            continue;
        double g = 9.81, v1 = sqrt(2.0 * g), t_capture = sqrt(2.0 / g) + 2.0 * v1 * es[k] / (g * (1.0 - es[k]));
        size_t lo = (size_t)-1, hi = 0;
        printf("%6.2f", es[k]);
        for (int e = 6; e <= 10; e++) {
            pl_solution r;
            if (solve_penalty(&model, pow(10.0, e), rtol, t_capture + 10.0, 0, &r, &err) != PL_OK || r.nepisodes == 0) {
                printf(" %10s", "failed");
                pl_solution_free(&r);
                continue;
            }
            size_t rest = steps_between(&r.traj, r.episodes[r.nepisodes - 1].row_in, r.traj.nrows - 1);
            lo = rest < lo ? rest : lo;
            hi = rest > hi ? rest : hi;
            printf(" %10zu", rest);
            pl_solution_free(&r);
        }
        printf(" %10.2f\n", (double)hi / (double)lo);
        pl_model_free(&model);
    }
}

/* Wall time per right-hand-side evaluation of a whole solve (the fastest of 7), with no output
 * samples and with the program's default 1000: bouncing_ball at mu = 1e4, the wedge, the vibrating
 * table and the cup at 1e6 with their defaults.  Nanoseconds on this machine: compare two builds
 * by their ratio, run interleaved. */
static void cost_per_evaluation(double rtol)
{
    const struct {
        const pl_case *c;
        double mu;
    } runs[] = {{&pl_case_bouncing_ball, 1e4}, {&pl_case_wedge, 1e6}, {&pl_case_vibrating_table, 1e6}, {&pl_case_cup, 1e6}};
    printf("\nwall time per right-hand-side evaluation, rtol = %g (fastest of 7)\n", rtol);
    printf("%-16s %6s %7s %6s %9s %12s %10s\n", "case", "mu", "samples", "steps", "rhs", "wall/solve", "ns/rhs");
    for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
        pl_model model;
        pl_error err;
        if (pl_model_init(&model, runs[k].c, NULL, 0, &err) != PL_OK) {
            printf("%-16s model: %s\n", runs[k].c->name, err.message);
            continue;
        }
        for (size_t samples = 0; samples <= 1000; samples += 1000) {
            double wall = INFINITY;
            pl_solution r;
            int ok = 1;
            for (int rep = 0; rep < 7 && ok; rep++) {
                ok = solve_penalty(&model, runs[k].mu, rtol, 0.0, samples, &r, &err) == PL_OK;
                wall = fmin(wall, r.stats.wall_seconds);
                if (rep < 6 || !ok)
                    pl_solution_free(&r);
            }
            if (!ok) {
                printf("%-16s %6.0e %7zu failed: %s\n", runs[k].c->name, runs[k].mu, samples, err.message);
                continue;
            }
            printf("%-16s %6.0e %7zu %6ld %9ld %10.3g s %10.0f\n", runs[k].c->name, runs[k].mu, samples, r.stats.steps,
                   r.stats.rhs_evals, wall, 1e9 * wall / (double)r.stats.rhs_evals);
            pl_solution_free(&r);
        }
        pl_model_free(&model);
    }
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    double rtol = argc > 1 ? atof(argv[1]) : 1e-8;
    pl_model model;
    pl_error err;
    if (pl_model_init(&model, &pl_case_bouncing_ball, NULL, 0, &err) != PL_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    printf("bouncing_ball, e = 0.9, t in [0, 10], rtol = %g\n", rtol);
    printf("%8s %8s %8s %9s %10s %10s %14s %12s %10s\n", "mu", "episodes", "steps", "rhs", "steps/ep",
           "rhs/ep", "steps/impact", "steps/rest", "wall/1e4");
    double wall0 = NAN, per_episode0 = NAN, per_episode_last = NAN;
    for (int e = 4; e <= 12; e += 2) {
        double mu = pow(10.0, e);
        pl_solution r;
        /* Wall time: the fastest of 5 identical runs, to damp the machine's noise. */
        double wall = INFINITY;
        for (int rep = 0; rep < 5; rep++) {
            if (rep > 0)
                pl_solution_free(&r);
            if (solve_penalty(&model, mu, rtol, 10.0, 0, &r, &err) != PL_OK)
                break;
            wall = fmin(wall, r.stats.wall_seconds);
        }
        if (r.status != PL_OK) {
            printf("%8.0e failed: %s\n", mu, err.message);
            pl_solution_free(&r);
            continue;
        }
        /* Attribute the steps to the episodes: an impact with the flight after it, the final rest. */
        size_t n = r.nepisodes, impact_rows = 0;
        for (size_t k = 0; k + 1 < n; k++)
            impact_rows += steps_between(&r.traj, r.episodes[k].row_in, r.episodes[k + 1].row_in);
        size_t rest_rows = n ? steps_between(&r.traj, r.episodes[n - 1].row_in, r.traj.nrows - 1) : 0;
        double per_episode = (double)r.stats.steps / (double)n;
        if (isnan(wall0)) {
            wall0 = wall;
            per_episode0 = per_episode;
        }
        per_episode_last = per_episode;
        printf("%8.0e %8zu %8ld %9ld %10.1f %10.1f %14.1f %12zu %10.2f\n", mu, n, r.stats.steps,
               r.stats.rhs_evals, per_episode, (double)r.stats.rhs_evals / (double)n,
               n > 1 ? (double)impact_rows / (double)(n - 1) : NAN, rest_rows, wall / wall0);
        pl_solution_free(&r);
    }
    printf("per-episode steps, mu = 1e12 over mu = 1e4: %.2f (target <= 1.5)\n", per_episode_last / per_episode0);
    pl_model_free(&model);
    rest_after_capture(rtol);
    cost_per_evaluation(rtol);
    return 0;
}
