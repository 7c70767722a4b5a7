/* BDF's linear algebra, dense LU against KLU (sparse), on the many-body cases at mu = 1e6, rtol 1e-8
 * (their defaults otherwise, no dense samples): Newton's cradle of N balls and the spheres' box of N
 * disks (config 3).  Per case, REPEATS runs of each, interleaved in this process (dense, KLU, dense,
 * ...): the counts of each (steps, right-hand sides, Jacobians, factorizations of I - gamma J, KLU's
 * orderings), the wall ratio dense / KLU of the fastest of each (above 1: KLU is faster), also per
 * step (the two take different steps: round-off differs), and of their process CPU times, and how
 * far KLU's run is from the dense one: the largest difference of the final states (relative to
 * max(1, |x|)), how many episodes the two share, and the largest difference of the shared ones'
 * entry and exit times (but the exits of dissolving contacts); as a yardstick, the same for a dense
 * run at rtol 1e-8 (1 + 1e-7).  The size of the system BDF factorizes is 2n + 1 + m (q, v, Gamma and
 * the impulses).  `bench_sparse quick` leaves out the largest box (N = 48, ~1 min). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cases/cases.h"
#include "core/clock.h"
#include "solve.h"
#include "solvers/stepper.h"

enum { REPEATS = 5 };

typedef struct {
    const pl_case *c;
    const char *name;
    double N, config; /* config 0: the case has none */
} bench_case;

static pl_status run(const pl_model *model, size_t sparse_from, double rtol, pl_solution *sol, double *wall,
                     double *cpu, pl_error *err)
{
    pl_solve_opts o;
    pl_solve_opts_init(&o, &pl_solver_penalty, model, NAN);
    o.samples = 0;
    o.sparse_from = sparse_from;
    pl_status s = pl_solve_opts_set(&o, &pl_solver_penalty, "mu", 1e6, err);
    if (s == PL_OK)
        s = pl_solve_opts_set(&o, &pl_solver_penalty, "rtol", rtol, err);
    if (s != PL_OK) {
        pl_solution_init(sol, &pl_solver_penalty, model, o.t_end, NULL);
        return s;
    }
    double t0 = pl_now_seconds();
    clock_t c0 = clock();
    s = pl_solve(&pl_solver_penalty, model, &o, sol, err);
    *wall = pl_now_seconds() - t0;
    *cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
    return s;
}

/* Whether an episode's contact dissolves rather than rebounds (exit speed below 1e-6 of the entry
 * speed): its exit time is ill-conditioned (tests/test_sparse.c). */
static int dissolves(const pl_episode *e)
{
    return fabs(e->gdot_out) < 1e-6 * fabs(e->gdot_in);
}

/* The largest difference of b's final state from a's (relative to max(1, |x|)); the episodes of a
 * that b has too (the same constraint entered within 1e-6), and the largest difference of their entry
 * times and of the exit times of those that rebound (dissolving contacts' exits are ill-conditioned). */
static void differences(const pl_model *model, const pl_solution *a, const pl_solution *b, double *state,
                        double *times, size_t *matched)
{
    *state = *times = 0.0;
    for (size_t j = 0; j < model->n; j++) {
        *state = fmax(*state, fabs(a->q_final[j] - b->q_final[j]) / fmax(1.0, fabs(a->q_final[j])));
        *state = fmax(*state, fabs(a->v_final[j] - b->v_final[j]) / fmax(1.0, fabs(a->v_final[j])));
    }
    *matched = 0;
    for (size_t k = 0; k < a->nepisodes; k++) {
        const pl_episode *x = &a->episodes[k];
        for (size_t l = 0; l < b->nepisodes; l++) {
            const pl_episode *y = &b->episodes[l];
            if (x->constraint != y->constraint || !(fabs(x->t_in - y->t_in) <= 1e-6))
                continue;
            ++*matched;
            *times = fmax(*times, fabs(x->t_in - y->t_in));
            if (!isnan(x->t_out) && !isnan(y->t_out) && !dissolves(x) && !dissolves(y))
                *times = fmax(*times, fabs(x->t_out - y->t_out));
            break;
        }
    }
}

static void print_counts(const char *what, const pl_stats *s)
{
    printf("  %-6s steps %7ld  rhs %8ld  jac %6ld  setups %6ld  orderings %5ld\n", what, s->steps, s->rhs_evals,
           s->jac_evals, s->lin_setups, s->sparse_analyses);
}

static void bench(const bench_case *b)
{
    pl_setting set[] = {{"N", b->N}, {"config", b->config}};
    pl_model model;
    pl_error err;
    if (pl_model_init(&model, b->c, set, b->config > 0.0 ? 2 : 1, &err) != PL_OK) {
        printf("%s N = %g: %s\n", b->name, b->N, err.message);
        return;
    }
    size_t size = 2 * model.n + 1 + model.m;
    double best[2] = {INFINITY, INFINITY}, best_cpu[2] = {INFINITY, INFINITY};
    pl_solution kept[2];
    int ok = 1, have[2] = {0, 0};
    for (int rep = 0; rep < REPEATS && ok; rep++)
        for (int sparse = 0; sparse < 2 && ok; sparse++) {
            pl_solution sol;
            double wall = NAN, cpu = NAN;
            if (run(&model, sparse ? 1 : SIZE_MAX, 1e-8, &sol, &wall, &cpu, &err) != PL_OK) {
                printf("%s N = %g, %s: %s\n", b->name, b->N, sparse ? "KLU" : "dense", err.message);
                ok = 0;
            }
            best[sparse] = fmin(best[sparse], wall);
            best_cpu[sparse] = fmin(best_cpu[sparse], cpu);
            if (rep == 0)
                kept[sparse] = sol, have[sparse] = 1;
            else
                pl_solution_free(&sol);
        }
    pl_solution nudged; /* the reference spread: dense at rtol 1e-8 (1 + 1e-7) */
    double wall = NAN, cpu = NAN;
    int have_nudged = ok && run(&model, SIZE_MAX, 1e-8 * (1.0 + 1e-7), &nudged, &wall, &cpu, &err) == PL_OK;
    if (ok && have_nudged) {
        double dstate, dtimes, nstate, ntimes;
        size_t same, nsame;
        differences(&model, &kept[0], &kept[1], &dstate, &dtimes, &same);
        differences(&model, &kept[0], &nudged, &nstate, &ntimes, &nsame);
        double per_step = (best[0] / (double)kept[0].stats.steps) / (best[1] / (double)kept[1].stats.steps);
        printf("%s N = %g (n = %zu, m = %zu, system %zu): dense/KLU wall %.2f, per step %.2f; CPU time %.2f\n",
               b->name, b->N, model.n, model.m, size, best[0] / best[1], per_step, best_cpu[0] / best_cpu[1]);
        printf("  KLU - dense: final state %.1e, episode times %.1e, episodes %zu of %zu (KLU %zu)\n", dstate,
               dtimes, same, kept[0].nepisodes, kept[1].nepisodes);
        printf("  dense at rtol (1 + 1e-7) - dense: final state %.1e, episode times %.1e, episodes %zu of %zu (%zu)\n",
               nstate, ntimes, nsame, kept[0].nepisodes, nudged.nepisodes);
        print_counts("dense", &kept[0].stats);
        print_counts("KLU", &kept[1].stats);
    } else if (ok) {
        printf("%s N = %g, dense at rtol 1e-8 (1 + 1e-7): %s\n", b->name, b->N, err.message);
    }
    if (have_nudged)
        pl_solution_free(&nudged);
    for (int k = 0; k < 2; k++)
        if (have[k])
            pl_solution_free(&kept[k]);
    pl_model_free(&model);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
    const bench_case cases[] = {
        {&pl_case_newtons_cradle, "newtons_cradle", 10, 0},  {&pl_case_newtons_cradle, "newtons_cradle", 20, 0},
        {&pl_case_newtons_cradle, "newtons_cradle", 40, 0},  {&pl_case_newtons_cradle, "newtons_cradle", 70, 0},
        {&pl_case_newtons_cradle, "newtons_cradle", 100, 0}, {&pl_case_spheres, "spheres", 6, 3},
        {&pl_case_spheres, "spheres", 9, 3},                 {&pl_case_spheres, "spheres", 12, 3},
        {&pl_case_spheres, "spheres", 16, 3},                {&pl_case_spheres, "spheres", 24, 3},
        {&pl_case_spheres, "spheres", 48, 3},
    };
    size_t count = sizeof cases / sizeof *cases - (quick ? 1 : 0); /* `bench_sparse CASE N`: that one */
    printf("BDF's linear algebra, dense LU against KLU: mu = 1e6, rtol = 1e-8, fastest of %d interleaved runs\n",
           REPEATS);
    for (size_t k = 0; k < count; k++)
        if (argc < 3 || (strcmp(argv[1], cases[k].name) == 0 && atof(argv[2]) == cases[k].N))
            bench(&cases[k]);
    return 0;
}
