#include "study/comparison.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "study/sweep.h"

size_t pl_comparison_defaults(const pl_solver_type *solver, const pl_model *model, double t_end, int refine,
                              double *values)
{
    size_t n = pl_solver_compliant(solver) ? (refine ? 9 : 3) : (refine ? 7 : 3);
    for (size_t j = 0; j < n; j++)
        values[j] = pl_solver_compliant(solver) ? pow(10.0, refine ? 2.0 + (double)j : 4.0 + 2.0 * (double)j)
                                                : pl_default_h(model, t_end, refine ? 0.5 * (double)j : (double)j);
    return n;
}

void pl_comparison_item_init(pl_comparison_item *it, const pl_solver_type *solver)
{
    memset(it, 0, sizeof *it);
    it->solver = solver;
    pl_solution_init(&it->sol, &pl_solver_external, &(pl_model){.n = 0}, NAN, NULL); /* replaced when solved:
                                                                                     nothing to allocate */
}

void pl_comparison_item_free(pl_comparison_item *it)
{
    pl_solution_free(&it->sol);
    if (it->analysed)
        pl_analysis_free(&it->analysis);
    pl_trajectory_free(&it->traj);
    pl_impact_match_free(&it->match);
}

/* A solve, here or by opts->solve; a failure it returns fails the solution (whose status may not say
 * so: a solve in another process that refused its input). */
static void solve(const pl_comparison_opts *opts, size_t k, const pl_solver_type *solver, const pl_model *model,
                  const pl_solve_opts *o, pl_solution *sol)
{
    pl_error err;
    pl_status s = opts->solve ? opts->solve(k, solver, o, sol, &err, opts->user) : pl_solve(solver, model, o, sol, &err);
    if (s != PL_OK && sol->status == PL_OK) {
        sol->status = s;
        sol->error = err;
    }
}

/* The families: the items of each solver (but given ones) measured against the limit solution, in
 * the order of the registry; each member's impact errors are then taken over its family's common
 * impact set. */
static pl_status assess_families(const pl_model *model, pl_comparison_item *items, size_t n, size_t nlimit_impacts,
                                 pl_comparison *c, pl_error *err)
{
    c->fam = calloc(pl_solver_count() + 1, sizeof *c->fam);
    pl_analysed *sols = malloc((n ? n : 1) * sizeof *sols);
    pl_family_member *members = malloc((n ? n : 1) * sizeof *members);
    pl_status s = c->fam && sols && members ? PL_OK : pl_fail(err, PL_ERR_NOMEM, "out of memory");
    for (size_t j = 0; j < pl_solver_count() && s == PL_OK; j++) {
        const pl_solver_type *solver = pl_solver_at(j);
        size_t m = 0, given = 0;
        for (size_t k = 0; k < n; k++) {
            pl_comparison_item *it = &items[k];
            if (it->solver != solver || solver->family == PL_FAMILY_EXTERNAL)
                continue;
            given++;
            if (it->sol.status != PL_OK || !it->compared)
                continue;
            sols[m] = (pl_analysed){&it->sol, &it->analysis, &it->traj};
            members[m] = (pl_family_member){&sols[m], &it->res, &it->match};
            m++;
        }
        if (given > 0)
            s = pl_family_assess(model, solver, members, m, nlimit_impacts, &c->fam[c->nfam++], err);
    }
    free(sols);
    free(members);
    return s;
}

pl_status pl_comparison_run(const pl_model *model, pl_comparison_item *items, size_t n, const pl_comparison_opts *opts,
                            pl_comparison *c, pl_error *err)
{
    memset(c, 0, sizeof *c);
    pl_error e;
    int compared;
    /* The limit solution once, each solution's budget from its own start, its analysis included. */
    pl_solve_opts lo = opts->limit;
    pl_solve_opts_count_from(&lo, pl_now_seconds());
    if (opts->progress)
        opts->progress("limit", 0, 1, 0, opts->user);
    solve(opts, PL_COMPARISON_LIMIT, &pl_solver_limit, model, &lo, &c->limit);
    pl_status s = pl_measure_solution(model, &c->limit, &(pl_budget){lo.max_seconds, lo.started}, NULL, 0,
                                      &c->limit_analysis, &c->limit_traj, NULL, NULL, &compared, &e);
    if (s != PL_OK && c->limit.status == PL_OK) {
        c->limit.status = s;
        c->limit.error = e;
    }
    c->has_limit = c->limit.status == PL_OK;
    c->failures = !c->has_limit;
    if (opts->progress) {
        opts->progress("limit", 1, 1, c->failures, opts->user);
        opts->progress("solutions", 0, n, 0, opts->user);
    }
    pl_analysed ref = {&c->limit, &c->limit_analysis, &c->limit_traj};
    for (size_t k = 0; k < n; k++) {
        pl_comparison_item *it = &items[k];
        int given = it->solver == &pl_solver_external;
        pl_solve_opts_count_from(&it->opts, pl_now_seconds()); /* a given solution's reading has no budget */
        if (!given) {
            pl_solution_free(&it->sol);
            solve(opts, k, it->solver, model, &it->opts, &it->sol);
        }
        pl_budget budget = {given ? 0.0 : it->opts.max_seconds, it->opts.started};
        int s_comparable = pl_solver_can(it->solver, PL_SOLVER_GAMMA) || it->has_gamma;
        s = pl_measure_solution(model, &it->sol, &budget, c->has_limit ? &ref : NULL, s_comparable, &it->analysis,
                                &it->traj, &it->res, &it->match, &it->compared, &e);
        it->analysed = 1;
        if (s != PL_OK && it->sol.status == PL_OK) {
            it->sol.status = s;
            it->sol.error = e;
        }
        c->failures += it->sol.status != PL_OK;
        if (opts->progress)
            opts->progress("solutions", k + 1, n, c->failures - !c->has_limit, opts->user);
    }
    if (!c->has_limit)
        return PL_OK;
    if (opts->progress)
        opts->progress("analysis", 0, 1, 0, opts->user);
    s = assess_families(model, items, n, c->limit_analysis.impacts, c, err);
    if (opts->progress)
        opts->progress("analysis", 1, 1, 0, opts->user);
    return s;
}

void pl_comparison_free(pl_comparison *c)
{
    for (size_t j = 0; j < c->nfam; j++)
        pl_family_free(&c->fam[j]);
    free(c->fam);
    pl_solution_free(&c->limit);
    pl_analysis_free(&c->limit_analysis);
    pl_trajectory_free(&c->limit_traj);
    memset(c, 0, sizeof *c);
}
