/* A comparison (`penlim compare`): the limit solution once, then each solution, solved or given (a
 * trajectory computed elsewhere), measured against it (pl_measure_solution), then the solutions of
 * each solver taken as a family refined towards its own limit (study/family.h), in the order of the
 * registry.  A failure of one solution is recorded in it and does not stop the others. */
#ifndef PL_COMPARISON_H
#define PL_COMPARISON_H

#include "solvers/solver.h"
#include "study/analysis.h"
#include "study/compare.h"
#include "study/family.h"
#include "study/impact_match.h"
#include "study/trajectory.h"

/* The k of the limit solution in pl_comparison_opts.solve. */
#define PL_COMPARISON_LIMIT ((size_t)-1)

/* One solution of a comparison, and everything measured of it. */
typedef struct {
    const pl_solver_type *solver; /* &pl_solver_external: sol is given, not solved */
    pl_solve_opts opts;           /* the solver's options (its budget counts from its own start) */
    int has_gamma;                /* a given solution with the time transform's column */
    pl_solution sol;
    pl_analysis analysis;
    int analysed;                 /* analysis to be freed */
    pl_trajectory traj;
    pl_impact_match match;        /* its impacts against the limit's */
    pl_compare_result res;
    int compared;                 /* res holds its distances */
} pl_comparison_item;

typedef struct {
    pl_solve_opts limit; /* the limit solution's options (pl_limit_opts) */
    /* Optional: solve item k, or the limit solution (k = PL_COMPARISON_LIMIT), in place of pl_solve
     * (in another process, say), as pl_sweep_opts.solve. */
    pl_status (*solve)(size_t k, const pl_solver_type *solver, const pl_solve_opts *o, pl_solution *sol,
                       pl_error *err, void *user);
    /* Optional: the phases as they advance, as pl_sweep_opts.progress: "limit" (0 then 1 of 1),
     * "solutions" (done of total, failed of them: solved or read, analysed, measured), "analysis"
     * (the families: 0 then 1 of 1). */
    void (*progress)(const char *phase, size_t done, size_t total, size_t failed, void *user);
    void *user;
} pl_comparison_opts;

typedef struct {
    pl_solution limit;
    pl_analysis limit_analysis;
    pl_trajectory limit_traj;
    int has_limit;   /* the limit solution did not fail: the items were measured against it */
    size_t failures; /* failed solutions, the limit solution's included */
    pl_family *fam;  /* with the limit solution: one per solver with items (but external), nfam */
    size_t nfam;
} pl_comparison;

/* The default values of a solver's refined option in a comparison: the penalty at mu = 1e4, 1e6, 1e8
 * and a scheme at h = pl_default_h(k) for k = 0, 1, 2; refining each family (work-precision), the
 * sweep's 9 decades of mu, 1e2 ... 1e10, and the 7 h of k = 0, 0.5, ..., 3.  values has room for
 * PL_COMPARISON_MAX_DEFAULTS; returns their number (a value a case refuses is the caller's to skip). */
#define PL_COMPARISON_MAX_DEFAULTS 9
size_t pl_comparison_defaults(const pl_solver_type *solver, const pl_model *model, double t_end, int refine,
                              double *values);

/* An item to fill: no solution yet (a given one replaces sol, after pl_solution_free). */
void pl_comparison_item_init(pl_comparison_item *it, const pl_solver_type *solver);
void pl_comparison_item_free(pl_comparison_item *it);

/* Solve the limit solution and every item but the given ones, measure each, assess the families.
 * out must be freed with pl_comparison_free whatever the status; PL_OK unless the comparison itself
 * could not be carried out (out of memory assessing the families). */
pl_status pl_comparison_run(const pl_model *model, pl_comparison_item *items, size_t n, const pl_comparison_opts *opts,
                            pl_comparison *out, pl_error *err);
void pl_comparison_free(pl_comparison *c);

#endif
