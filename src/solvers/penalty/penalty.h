/* The penalized system (1)/(4) of paper 004 for one stiffness mu, integrated with CVODE
 * (BDF, Newton, dense direct solver, analytic Jacobian).  The contact indicator I{G_i <= 0}
 * switches exactly at the roots of G_i (CVODE rootfinding, then restart); Gamma^mu of eq. (5) is
 * integrated along; every internal step is recorded, and optionally a uniform grid of samples. */
#ifndef PL_PENALTY_H
#define PL_PENALTY_H

#include "solvers/cvode_util.h"
#include "model/model.h"
#include "core/table.h"

typedef struct {
    double mu;
    double rtol;
    double t_end;
    long max_steps; /* cap on internal steps over the whole run; 0 selects 5e6 */
    size_t samples; /* also record the solution at k t_end/samples (dense output); 0: steps only */
} pl_penalty_opts;

/* One contact episode of one constraint: from entry (G_i crosses 0 downward, or initial contact)
 * to exit (G_i crosses 0 upward). */
typedef struct {
    size_t constraint; /* 0-based */
    double t_in, t_out; /* t_out is NAN while still in contact at the end of the run */
    double gdot_in, gdot_out;
    double max_penetration;   /* max of -G_i over the episode */
    double t_max_penetration;
    double gamma_in, gamma_out; /* Gamma^mu at entry and at exit (or at the end of the run) */
    double impulse;             /* integral of lambda_i over the episode */
    size_t row_in, row_out;     /* trajectory rows at entry and at exit (or the last row) */
} pl_episode;


/* Trajectory columns: t, gamma, q1..qn, v1..vn, G1..Gm, lambda1..lambdam. */
static inline size_t pl_col_q(size_t n, size_t m) { (void)n, (void)m; return 2; }
static inline size_t pl_col_v(size_t n, size_t m) { (void)m; return 2 + n; }
static inline size_t pl_col_g(size_t n, size_t m) { (void)m; return 2 + 2 * n; }
static inline size_t pl_col_lambda(size_t n, size_t m) { return 2 + 2 * n + m; }
static inline size_t pl_ncols(size_t n, size_t m) { return 2 + 2 * n + 2 * m; }

typedef struct {
    pl_status status;  /* PL_OK, or the failure (the trajectory then stops where it failed) */
    pl_error error;
    double mu, rtol, t_end;
    size_t n, m;
    pl_table traj;
    pl_episode *episodes;
    size_t nepisodes, episodes_cap;
    pl_stats stats;
    double t_final, gamma_final;
    double q_final[PL_MAX_DOF], v_final[PL_MAX_DOF];
} pl_penalty_result;

/* Validate opts (mu > 0, 0 < rtol < 1, t_end > 0, all finite). */
pl_status pl_penalty_check_opts(const pl_penalty_opts *opts, pl_error *err);

/* Integrate; res must be freed with pl_penalty_result_free whatever the status.  Returns
 * PL_ERR_INPUT for bad options, PL_ERR_SOLVER when CVODE fails (res then holds the partial run
 * and the reason), PL_ERR_NOMEM, or PL_OK. */
pl_status pl_penalty_run(const pl_model *model, const pl_penalty_opts *opts, pl_penalty_result *res,
                         pl_error *err);

void pl_penalty_result_free(pl_penalty_result *res);

/* Restitution of an episode, -gdot_out/gdot_in (NAN if it has not ended or gdot_in = 0). */
double pl_episode_restitution(const pl_episode *ep);

#endif
