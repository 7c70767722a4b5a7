/* Cost of the penalized integration against stiffness: bouncing_ball with its defaults
 * (e = 0.9, t in [0, 10]) for mu = 1e4, 1e6, ..., 1e12 at rtol = 1e-8.  Prints steps and
 * right-hand-side evaluations per contact episode, split into impacts (contact plus the flight
 * that follows it) and the final resting contact, and wall time as a ratio to mu = 1e4; then the
 * steps of the final rest for e = 0 ... 0.99 against mu; then the phases of the sustained contacts of the
 * cup and the disk against mu (sustained_contacts; `bench_cost RTOL sustained` runs that section alone). */
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

/* The cost of a sustained contact against stiffness: the Cartesian cup (impact at t = 0.8, then sliding to
 * t = 3), the polar cup, and the disk (sliding from t = 0, lift-off near 0.527, flight to 1), at mu = 1e6 ...
 * 1e12, rtol as given.  Each run is split into phases: before the contact, its entry transient (to the time
 * the engine's switch rule takes it as settled: t_in + max(3 pi/omega, ln(a0/(rtol pen))/(xi omega)),
 * docs/methods.md), the settled contact (to its exit, or t-end), and after it.  Steps per phase are the
 * run's own step rows; right-hand sides and Jacobians per phase are differences of runs stopped at the
 * phases' ends (the same steps up to there but for the last).  Steps per second of contact (entry
 * transient included) and their largest over smallest across mu (target: within 1.5). */
static void sustained_contacts(double rtol)
{
    const struct {
        const char *name;
        const pl_case *c;
        pl_setting set;
    } runs[] = {{"cup", &pl_case_cup, {"polar", 0.0}}, {"cup polar=1", &pl_case_cup, {"polar", 1.0}},
                {"disk", &pl_case_disk, {"v0", 1.0}}};
    printf("\nsustained contacts, rtol = %g: steps / right-hand sides / Jacobians per phase\n", rtol);
    printf("%-12s %6s %17s %17s %17s %17s %10s %10s\n", "case", "mu", "before", "transient", "settled", "after",
           "contact s", "steps/s");
    for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
        pl_model model;
        pl_error err;
        if (pl_model_init(&model, runs[k].c, &runs[k].set, 1, &err) != PL_OK) {
            printf("%-12s model: %s\n", runs[k].name, err.message);
            continue;
        }
        double lo = INFINITY, hi = 0.0;
        for (int e = 6; e <= 12; e += 2) {
            double mu = pow(10.0, e);
            pl_solution r;
            if (solve_penalty(&model, mu, rtol, 0.0, 0, &r, &err) != PL_OK || r.nepisodes != 1) {
                printf("%-12s %6.0e %s\n", runs[k].name, mu, r.status != PL_OK ? err.message : "not one contact");
                pl_solution_free(&r);
                continue;
            }
            const pl_episode *ep = &r.episodes[0];
            const pl_contact_law *law = &model.law[0];
            double omega = sqrt(law->k * mu), xi = law->xi, V = model.v_scale, A = model.a_scale;
            double pen = fmin(A / (law->k * mu), V / omega), a0 = fabs(ep->gdot_in) / omega + pen;
            double decay = xi > 1.0 ? 0.0 : log(fmax(1.0, a0 / (rtol * pen))) / (xi < 1.0 ? xi * omega : omega);
            double t_end = r.t_end, t_out = isnan(ep->t_out) ? t_end : ep->t_out;
            double bounds[5] = {0.0, ep->t_in, fmin(ep->t_in + fmax(3.0 * M_PI / omega, decay), t_out), t_out, t_end};
            /* steps: rows whose time ends a step inside each phase */
            size_t steps[4] = {0};
            for (size_t row = 1; row < r.traj.nrows; row++) {
                double t1 = pl_table_row(&r.traj, row)[0];
                if (!(t1 > pl_table_row(&r.traj, row - 1)[0]))
                    continue;
                int p = 0;
                while (p < 3 && t1 > bounds[p + 1])
                    p++;
                steps[p]++;
            }
            long rhs[5] = {0}, jac[5] = {0};
            rhs[4] = r.stats.rhs_evals, jac[4] = r.stats.jac_evals;
            for (int p = 1; p < 4; p++) {
                pl_solution part;
                if (bounds[p] > 0.0 && bounds[p] < t_end &&
                    solve_penalty(&model, mu, rtol, bounds[p], 0, &part, &err) == PL_OK)
                    rhs[p] = part.stats.rhs_evals, jac[p] = part.stats.jac_evals;
                else
                    rhs[p] = p == 3 ? rhs[4] : rhs[p - 1], jac[p] = p == 3 ? jac[4] : jac[p - 1];
                pl_solution_free(&part);
            }
            double contact = t_out - ep->t_in, rate = (double)(steps[1] + steps[2]) / contact;
            lo = fmin(lo, rate);
            hi = fmax(hi, rate);
            printf("%-12s %6.0e", runs[k].name, mu);
            for (int p = 0; p < 4; p++)
                printf(" %5zu/%5ld/%4ld", steps[p], rhs[p + 1] - rhs[p], jac[p + 1] - jac[p]);
            printf(" %10.4g %10.1f\n", contact, rate);
            pl_solution_free(&r);
        }
        printf("%-12s steps per second of contact, largest over smallest: %.2f (target <= 1.5)\n", runs[k].name,
               hi / lo);
        pl_model_free(&model);
    }
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    double rtol = argc > 1 ? atof(argv[1]) : 1e-8;
    if (argc > 2 && strcmp(argv[2], "sustained") == 0) { /* that section alone */
        sustained_contacts(rtol);
        return 0;
    }
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
    sustained_contacts(rtol);
    cost_per_evaluation(rtol);
    return 0;
}
