/* The limit of an impact: the infinitesimal dynamics (19) of paper 004 in the fast time
 * sigma = sqrt(mu) (t - t0), with q and t frozen (Theorem 5).  For the Kelvin-Voigt law
 * (4) the limit force (18) of constraint i is
 *
 *     Fbar_i = -w_i m_i k_i (z_i + 2 xi_i z_i'/sqrt(k_i)) I{z_i <= 0},
 *     z_i  = grad G_i . d + G_t,i sigma      (the gap scaled by sqrt(mu); d = sqrt(mu) (y_p - q))
 *     z_i' = grad G_i . F_p(q, y_v, t) + G_t,i
 *
 * with w_i, m_i, grad G_i, G_t,i taken at (q, t).  All constraints with G_i(q, t) = 0 take part
 * together, so corner impacts and chains are resolved by the penalty's own limit, not by a rigid
 * impact law.  The system is integrated (GSL, rk8pd; in the gaps z and the velocity, see impact.c)
 * from d = 0, y_v = v- until the exit time s*
 * of eq. (21)-(22): every constraint out of contact (z_i >= 0) and separating (z_i' >= 0).  The
 * jump is Delta v = y_v(s*) - v- (Theorem 5), positions are continuous, and Delta Gamma = integral
 * of |sum_i Fbar_i| dsigma. */
#ifndef PL_IMPACT_H
#define PL_IMPACT_H

#include "core/clock.h"
#include "core/table.h"
#include "model/model.h"

/* The outcome of an impact.  Its arrays live in the pl_impact_work it was solved with (valid until
 * the next solve with it); the arc is its own. */
typedef struct {
    double *v_plus;    /* n */
    double *gdot_plus; /* m: z_i' at the exit */
    double delta_gamma;
    double *impulse;   /* m: integral of the normal force of each constraint */
    double s_exit;     /* the fast exit time s* */
    int *settled;      /* m: constraints whose fast motion decayed to z = z' = 0 without
                          separating (xi >= 1, or held by the others): they stay on
                          their boundary with zero normal velocity */
    size_t fast_steps;
    size_t state_size; /* the fast system's components: 2 per constraint taking part, and n + 1 */
    pl_table arc; /* the jump as an arc: rows sigma, Delta Gamma so far, y_v[n] */
} pl_impact;

/* The scratch and results of the impacts of one run, sized from the model (allocated once per run,
 * for one thread at a time); NULL if out of memory. */
typedef struct pl_impact_work pl_impact_work;
pl_impact_work *pl_impact_work_new(const pl_model *model);
void pl_impact_work_free(pl_impact_work *w);

/* The time budget the impacts solved with w keep to (NULL, the default: none): the fast system of a
 * multiple impact can be long (100 balls of newtons_cradle: 2 s, 15 ms a fast step), so it is checked
 * before every fast step (a clock read, against 13 evaluations of the fast system). */
void pl_impact_work_set_budget(pl_impact_work *w, const pl_budget *budget);

/* Resolve an impact at (t, q) with pre-impact velocity v_minus; part[i] marks the constraints on
 * their boundary (G_i = 0) that take part.  impact->arc must be freed with pl_impact_free. */
pl_status pl_impact_solve(const pl_model *model, pl_impact_work *w, double t, const double *q, const double *v_minus,
                          const int *part, pl_impact *impact, pl_error *err);
void pl_impact_free(pl_impact *impact);

#endif
