/* Solving through the solver registry with a few options set, for the tests and benchmarks. */
#ifndef PL_TEST_SOLVE_H
#define PL_TEST_SOLVE_H

#include <math.h>

#include "model/sliding.h"
#include "solvers/solver.h"

/* Solve with `solver`; options given as name/value pairs (count of them in nopt), t_end <= 0 for
 * the case's, samples as in pl_solve_opts. */
static inline pl_status solve_with(const pl_solver_type *solver, const pl_model *model, double t_end, size_t samples,
                                   const char *const *names, const double *values, size_t nopt, pl_solution *sol,
                                   pl_error *err)
{
    pl_solve_opts o;
    pl_solve_opts_init(&o, solver, model, t_end > 0 ? t_end : NAN);
    o.samples = samples;
    for (size_t k = 0; k < nopt; k++) {
        pl_status s = pl_solve_opts_set(&o, solver, names[k], values[k], err);
        if (s != PL_OK) {
            pl_solution_init(sol, solver, model, o.t_end, NULL); /* freeable whatever its own status */
            return s;
        }
    }
    return pl_solve(solver, model, &o, sol, err);
}

static inline pl_status solve_penalty(const pl_model *model, double mu, double rtol, double t_end, size_t samples,
                                      pl_solution *sol, pl_error *err)
{
    const char *names[] = {"mu", "rtol"};
    double values[] = {mu, rtol};
    return solve_with(&pl_solver_penalty, model, t_end, samples, names, values, 2, sol, err);
}

static inline pl_status solve_limit(const pl_model *model, double rtol, double t_end, size_t samples, pl_solution *sol,
                                    pl_error *err)
{
    const char *names[] = {"rtol"};
    double values[] = {rtol};
    return solve_with(&pl_solver_limit, model, t_end, samples, names, values, 1, sol, err);
}

static inline pl_status solve_scheme(const pl_solver_type *scheme, const pl_model *model, double h, double t_end,
                                     pl_solution *sol, pl_error *err)
{
    const char *names[] = {"h"};
    double values[] = {h};
    return solve_with(scheme, model, t_end, 0, names, values, 1, sol, err);
}

/* One evaluation with its own scratch (tests only: a solver allocates its pl_work once per run). */
static inline void accel_once(const pl_model *model, double t, const double *q, const double *v, double *a,
                              double *a_q, double *a_v)
{
    pl_work *w = pl_work_new(model);
    pl_model_accel(model, w, t, q, v, a, a_q, a_v);
    pl_work_free(w);
}

static inline double free_gap_accel_once(const pl_model *model, size_t i, double t, const double *q, const double *v)
{
    pl_work *w = pl_work_new(model);
    double D = pl_model_free_gap_accel(model, w, i, t, q, v);
    pl_work_free(w);
    return D;
}

static inline pl_status sliding_force_once(const pl_model *model, double t, const double *q, const double *v,
                                           const int *set, double *lambda, double *fsm, pl_error *err)
{
    pl_work *w = pl_work_new(model);
    pl_contact_set cs;
    pl_status st = pl_contact_set_init(&cs, model, err);
    if (st == PL_OK)
        st = pl_sliding_force(model, w, &cs, t, q, v, set, lambda, fsm, err);
    pl_contact_set_free(&cs);
    pl_work_free(w);
    return st;
}

#endif
