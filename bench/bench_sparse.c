/* BDF's linear algebra, dense LU against KLU (sparse), on the many-body cases at mu = 1e6, rtol 1e-8
 * (their defaults otherwise, no dense samples): Newton's cradle of N balls and the spheres' box of N
 * disks (config 3).  Per case, REPEATS runs of each, interleaved in this process (dense, KLU, dense,
 * ...): the counts of each (steps, right-hand sides, Jacobians, factorizations of I - gamma J, KLU's
 * orderings), the wall ratio dense / KLU of the fastest of each (above 1: KLU is faster), also per
 * step (the two take different steps: round-off differs), and how far KLU's run is from the dense
 * one: the largest difference of the final states (relative to max(1, |x|)) and of the episodes'
 * entry and exit times (but the exits of dissolving contacts), and whether the episodes are the same
 * (count and constraints); as a yardstick, the same for a dense run at rtol 1e-8 (1 + 1e-7).  The size of the system BDF factorizes is 2n + 1 + m (q, v, Gamma and
 * the impulses).  `bench_sparse quick` leaves out the largest box (N = 48, ~1 min). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
                     pl_error *err)
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
    s = pl_solve(&pl_solver_penalty, model, &o, sol, err);
    *wall = pl_now_seconds() - t0;
    return s;
}

/* Whether an episode's contact dissolves rather than rebounds (exit speed below 1e-6 of the entry
 * speed): its exit time is ill-conditioned (tests/test_sparse.c). */
static int dissolves(const pl_episode *e)
{
    return fabs(e->gdot_out) < 1e-6 * fabs(e->gdot_in);
}

/* The largest difference of b's final state (relative to max(1, |x|)) and episode times (entries, and
 * the exits of rebounds) from a's; same: whether the episodes are the same ones (constraints, in
 * order, ended or not). */
static void differences(const pl_model *model, const pl_solution *a, const pl_solution *b, double *state,
                        double *times, int *same)
{
    *state = *times = 0.0;
    for (size_t j = 0; j < model->n; j++) {
        *state = fmax(*state, fabs(a->q_final[j] - b->q_final[j]) / fmax(1.0, fabs(a->q_final[j])));
        *state = fmax(*state, fabs(a->v_final[j] - b->v_final[j]) / fmax(1.0, fabs(a->v_final[j])));
    }
    *same = a->nepisodes == b->nepisodes;
    for (size_t k = 0; *same && k < a->nepisodes; k++) {
        const pl_episode *x = &a->episodes[k], *y = &b->episodes[k];
        *same = x->constraint == y->constraint && isnan(x->t_out) == isnan(y->t_out);
        *times = fmax(*times, fabs(x->t_in - y->t_in));
        if (!isnan(x->t_out) && !dissolves(x) && !dissolves(y))
            *times = fmax(*times, fabs(x->t_out - y->t_out));
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
    double best[2] = {INFINITY, INFINITY};
    pl_solution kept[2];
    int ok = 1, have[2] = {0, 0};
    for (int rep = 0; rep < REPEATS && ok; rep++)
        for (int sparse = 0; sparse < 2 && ok; sparse++) {
            pl_solution sol;
            double wall = NAN;
            if (run(&model, sparse ? 1 : SIZE_MAX, 1e-8, &sol, &wall, &err) != PL_OK) {
                printf("%s N = %g, %s: %s\n", b->name, b->N, sparse ? "KLU" : "dense", err.message);
                ok = 0;
            }
            best[sparse] = fmin(best[sparse], wall);
            if (rep == 0)
                kept[sparse] = sol, have[sparse] = 1;
            else
                pl_solution_free(&sol);
        }
    pl_solution nudged; /* the reference spread: dense at rtol 1e-8 (1 + 1e-7) */
    double wall = NAN;
    int have_nudged = ok && run(&model, SIZE_MAX, 1e-8 * (1.0 + 1e-7), &nudged, &wall, &err) == PL_OK;
    if (ok && have_nudged) {
        double dstate, dtimes, nstate, ntimes;
        int same, nsame;
        differences(&model, &kept[0], &kept[1], &dstate, &dtimes, &same);
        differences(&model, &kept[0], &nudged, &nstate, &ntimes, &nsame);
        double per_step = (best[0] / (double)kept[0].stats.steps) / (best[1] / (double)kept[1].stats.steps);
        printf("%s N = %g (n = %zu, m = %zu, system %zu): dense/KLU wall %.2f, per step %.2f\n", b->name, b->N,
               model.n, model.m, size, best[0] / best[1], per_step);
        printf("  KLU - dense: final state %.1e, episode times %.1e, episodes %s (%zu)\n", dstate, dtimes,
               same ? "same" : "DIFFER", kept[0].nepisodes);
        printf("  dense at rtol (1 + 1e-7) - dense: final state %.1e, episode times %.1e, episodes %s\n", nstate,
               ntimes, nsame ? "same" : "DIFFER");
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
