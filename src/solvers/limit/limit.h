/* The limit (generalized) solution of paper 004 computed directly: the measure differential
 * equation (47)-(48), event driven (DESIGN.md section 4).
 *
 * - flight: the smooth system with CVODE, rootfinding on the gaps G_i;
 * - impact (G_i = 0, Gdot_i < 0): the jump of the infinitesimal dynamics (19), with every
 *   constraint on its boundary taking part (impact.h);
 * - sustained contact (G_i = 0, Gdot_i = 0, D_i < 0): the motion (50) with the sliding-mode forces,
 *   the active set chosen by a complementarity problem (Siconos) and kept while every force stays
 *   positive; a force reaching 0 is a lift-off (D/A-tilde changes sign, Theorem 7(b));
 * - Zeno: a geometric sequence of impacts of one constraint is resolved until the predicted
 *   remaining time is below a tolerance, its accumulation time and state are extrapolated, and the
 *   solution continues from there, in sustained contact when the LCP says so (Theorem 7(b)).
 *
 * Gamma(t) = t + integral of |sum_i w_i lambda_i| over sustained contact + sum of the impacts'
 * Delta Gamma: the limit of Gamma^mu (eq. (5)). */
#ifndef PL_LIMIT_H
#define PL_LIMIT_H

#include "solvers/cvode_util.h"
#include "model/model.h"
#include "core/table.h"

typedef enum { PL_EVENT_IMPACT, PL_EVENT_SLIDE_START, PL_EVENT_LIFT_OFF, PL_EVENT_ZENO } pl_event_kind;

typedef struct {
    pl_event_kind kind;
    double t;
    size_t constraint; /* the constraint that triggered it (0-based) */
    double q[PL_MAX_DOF];
    double v_before[PL_MAX_DOF], v_after[PL_MAX_DOF];
    double gamma_before, gamma_after;
    double gdot_before, gdot_after; /* of the triggering constraint */
    /* impacts */
    double impulse[PL_MAX_CON]; /* limit impulse of each constraint taking part */
    unsigned participants;      /* bit i: constraint i took part */
    double s_exit;              /* the fast exit time s* */
} pl_event;

typedef struct {
    double rtol, t_end;
    size_t samples;   /* besides the steps, the solution at k t_end/samples (dense output) */
    long max_events;  /* 0: 1e6 */
    double zeno_tail; /* declare an accumulation once the predicted remaining time of a geometric
                         impact sequence is below zeno_tail * V/A (0: 1e-9) */
} pl_limit_opts;

typedef struct {
    pl_status status;
    pl_error error;
    size_t n, m;
    double t_end;
    /* t, gamma, q, v, G, lambda (the sliding force).  An impact is a run of rows at the same t and
     * q: the state before, the arc of the fast solution (v and Gamma along it), the state after;
     * read against gamma = s it is the jump drawn as a continuous arc. */
    pl_table traj;
    pl_event *events;
    size_t nevents, events_cap;
    /* Zeno (the first accumulation found) */
    int zeno;
    size_t zeno_constraint, impacts_resolved;
    double t_accumulation, zeno_ratio;
    double zeno_q[PL_MAX_DOF], zeno_v[PL_MAX_DOF];
    pl_stats stats;
    size_t fast_steps;
    double t_final, gamma_final;
    double q_final[PL_MAX_DOF], v_final[PL_MAX_DOF];
} pl_limit_result;

pl_status pl_limit_check_opts(const pl_limit_opts *opts, pl_error *err);
pl_status pl_limit_solve(const pl_model *model, const pl_limit_opts *opts, pl_limit_result *res, pl_error *err);
void pl_limit_result_free(pl_limit_result *res);

const char *pl_event_kind_name(pl_event_kind kind);

#endif
