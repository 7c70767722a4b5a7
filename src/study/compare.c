#include "study/compare.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/linalg.h"

/* The union of the row times of both trajectories, sorted, within [0, t_end]. */
static double *union_times(const pl_trajectory *a, const pl_trajectory *b, double t_end, size_t *count)
{
    double *t = malloc((a->rows + b->rows + 1) * sizeof *t);
    if (!t)
        return NULL;
    size_t k = 0;
    for (size_t r = 0; r < a->rows; r++)
        if (a->t[r] <= t_end)
            t[k++] = a->t[r];
    for (size_t r = 0; r < b->rows; r++)
        if (b->t[r] <= t_end)
            t[k++] = b->t[r];
    *count = pl_sort_unique(t, k);
    return t;
}

/* Max-norm of the q difference and 1-norm of the v difference at t; from the left (side < 0) or
 * from the right at a jump of either trajectory. */
static void state_gap(const pl_trajectory *a, const pl_trajectory *b, double t, int side, double *xa, double *xb,
                      double *dq, double *dv)
{
    size_t n = a->n;
    if (side < 0) {
        pl_trajectory_at_t_left(a, t, xa);
        pl_trajectory_at_t_left(b, t, xb);
    } else {
        pl_trajectory_at_t(a, t, xa);
        pl_trajectory_at_t(b, t, xb);
    }
    *dq = *dv = 0.0;
    for (size_t j = 0; j < n; j++) {
        *dq = fmax(*dq, fabs(xa[j] - xb[j]));
        *dv += fabs(xa[n + j] - xb[n + j]);
    }
}

/* A distance is a number or undefined (NaN); one that overflows is a failure, never written as
 * infinite (a file's values may reach 1.8e308, and their differences more). */
static pl_status finite_distance(const char *name, double x, pl_error *err)
{
    if (isinf(x))
        return pl_fail(err, PL_ERR_SOLVER,
                       "the distance %s to the limit solution exceeds %g: the solution's values are too large to "
                       "be measured", name, DBL_MAX);
    return PL_OK;
}

pl_status pl_distance_in_t(const pl_analysed *a, const pl_analysed *b, double exclude_lo, double exclude_hi,
                           double *sup_q, double *sup_q_outside, double *l1_v, pl_error *err)
{
    *sup_q = *sup_q_outside = *l1_v = 0.0;
    double t_end = fmin(a->sol->t_final, b->sol->t_final);
    size_t count, n = a->traj->n;
    double *t = union_times(a->traj, b->traj, t_end, &count);
    double *xa = malloc(4 * n * sizeof *xa), *xb = xa ? xa + 2 * n : NULL; /* the two states at one t */
    if (!t || !xa) {
        free(t);
        free(xa);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory comparing two solutions");
    }
    /* sup at the union of the rows and the midpoints; L1 by Simpson's rule on each interval, whose
     * ends are taken from inside it: a velocity jump at a row time (an impact of the limit
     * solution, a block of rows at one t) belongs to neither neighbouring interval. */
    double right_dv = 0.0;
    for (size_t r = 0; r < count; r++) {
        double dq, dv_left, dv_right;
        state_gap(a->traj, b->traj, t[r], +1, xa, xb, &dq, &dv_right);
        *sup_q = fmax(*sup_q, dq);
        int outside = !(t[r] >= exclude_lo && t[r] <= exclude_hi); /* no window: NaN bounds */
        if (outside)
            *sup_q_outside = fmax(*sup_q_outside, dq);
        if (r > 0) {
            double tm = 0.5 * (t[r - 1] + t[r]), dqm, dvm;
            state_gap(a->traj, b->traj, t[r], -1, xa, xb, &dq, &dv_left);
            state_gap(a->traj, b->traj, tm, +1, xa, xb, &dqm, &dvm);
            *sup_q = fmax(*sup_q, fmax(dq, dqm));
            if (!(tm >= exclude_lo && tm <= exclude_hi))
                *sup_q_outside = fmax(*sup_q_outside, dqm);
            if (outside)
                *sup_q_outside = fmax(*sup_q_outside, dq);
            *l1_v += (t[r] - t[r - 1]) * (right_dv + 4.0 * dvm + dv_left) / 6.0;
        }
        right_dv = dv_right;
    }
    free(t);
    free(xa);
    return PL_OK;
}

void pl_limit_distance_impacts_over(pl_limit_distance *out, const pl_impact_match *match, const unsigned char *common)
{
    out->impacts_compared = pl_impact_errors_over(match, common, &out->impact_time_error, &out->impact_velocity_error);
}

pl_status pl_compare_with_limit(const pl_model *model, const pl_analysed *run, const pl_analysed *limit,
                                double exclude_lo, double exclude_hi, pl_limit_distance *out, pl_impact_match *match,
                                pl_error *err)
{
    memset(out, 0, sizeof *out);
    out->impact_time_error = out->impact_velocity_error = NAN;
    pl_impact_match local;
    pl_impact_match *m = match ? match : &local;
    memset(m, 0, sizeof *m);
    pl_status s = pl_distance_in_t(run, limit, exclude_lo, exclude_hi, &out->sup_q, &out->sup_q_outside, &out->l1_v, err);
    if (s == PL_OK)
        s = pl_trajectory_distance_s(run->traj, limit->traj, &out->s_dist_q, &out->s_dist_v, err);
    if (s == PL_OK)
        s = pl_impact_match_build(model, run->sol, run->analysis, limit->sol, limit->analysis, m, err);
    if (s == PL_OK) {
        out->impacts_matched = m->count[PL_MATCH_PAIRED];
        out->impacts_missing = m->count[PL_MATCH_MISSING];
        out->impacts_absorbed = m->count[PL_MATCH_ABSORBED];
        out->impacts_excluded = pl_impact_match_excluded(m);
        out->impacts_extra = m->run_count[PL_RUN_EXTRA];
        pl_limit_distance_impacts_over(out, m, NULL);
    }
    if (!match)
        pl_impact_match_free(&local);
    if (s == PL_OK) {
        const char *name[] = {"sup_q", "sup_q_outside_zeno", "l1_v", "s_distance_q", "s_distance_v",
                              "impact_time_error", "impact_velocity_error"};
        double value[] = {out->sup_q, out->sup_q_outside, out->l1_v, out->s_dist_q, out->s_dist_v,
                          out->impact_time_error, out->impact_velocity_error};
        for (size_t k = 0; s == PL_OK && k < sizeof value / sizeof value[0]; k++)
            s = finite_distance(name[k], value[k], err);
    }
    return s;
}

static double distance_or_nan(double a, double b)
{
    return isfinite(a) && isfinite(b) ? fabs(a - b) : NAN;
}

pl_status pl_compare_solution(const pl_model *model, const pl_analysed *sol, const pl_analysed *limit,
                              int s_comparable, pl_compare_result *out, pl_impact_match *match, pl_error *err)
{
    double lo = NAN, hi = NAN;
    if (limit->sol->zeno.found) { /* as the sweeps: runs are captured at T* != t_acc */
        double w = 0.01 * limit->sol->zeno.t_accumulation;
        lo = limit->sol->zeno.t_accumulation - w;
        hi = limit->sol->zeno.t_accumulation + w;
    }
    memset(out, 0, sizeof *out);
    pl_status s = pl_compare_with_limit(model, sol, limit, lo, hi, &out->d, match, err);
    if (s != PL_OK)
        return s;
    if (!s_comparable)
        out->d.s_dist_q = out->d.s_dist_v = NAN;
    out->capture_time = sol->analysis->capture_time;
    out->capture_error = distance_or_nan(out->capture_time, limit->analysis->capture_time);
    out->lift_off = sol->analysis->lift_off_first;
    out->lift_off_error = distance_or_nan(out->lift_off, limit->analysis->lift_off_first);
    size_t n = sol->traj->n;
    double T = fmin(sol->sol->t_final, limit->sol->t_final), *xa = malloc(4 * n * sizeof *xa), *xb = xa + 2 * n;
    if (!xa)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory comparing with the limit");
    pl_trajectory_at_t(sol->traj, T, xa);
    pl_trajectory_at_t(limit->traj, T, xb);
    for (size_t j = 0; j < n; j++) {
        out->final_q_error = fmax(out->final_q_error, fabs(xa[j] - xb[j]));
        out->final_v_error = fmax(out->final_v_error, fabs(xa[n + j] - xb[n + j]));
    }
    free(xa);
    const char *name[] = {"capture_error", "lift_off_error", "final_q_error", "final_v_error"};
    double value[] = {out->capture_error, out->lift_off_error, out->final_q_error, out->final_v_error};
    for (size_t k = 0; s == PL_OK && k < sizeof value / sizeof value[0]; k++)
        s = finite_distance(name[k], value[k], err);
    return s;
}

pl_status pl_measure_solution(const pl_model *model, const pl_solution *sol, const pl_budget *budget,
                              const pl_analysed *limit, int s_comparable, pl_analysis *analysis, pl_trajectory *traj,
                              pl_compare_result *res, pl_impact_match *match, int *compared, pl_error *err)
{
    *compared = 0;
    pl_status s = pl_analyze_within(model, sol, budget, analysis, err);
    if (s == PL_OK)
        s = pl_trajectory_build(traj, model, sol, err);
    if (s == PL_OK && sol->status == PL_OK && limit) {
        pl_analysed run = {sol, analysis, traj};
        s = pl_compare_solution(model, &run, limit, s_comparable, res, match, err);
        *compared = s == PL_OK;
    }
    return s;
}

void pl_limit_opts(const pl_model *model, const pl_solve_opts *runs, double rtol, pl_solve_opts *lo)
{
    pl_solve_opts_init(lo, &pl_solver_limit, model, runs->t_end);
    lo->samples = runs->samples;
    lo->max_steps = runs->max_steps;
    lo->max_seconds = runs->max_seconds;
    lo->max_output = runs->max_output;
    lo->contacts = runs->contacts;
    lo->cancel = runs->cancel;
    lo->cancel_user = runs->cancel_user;
    if (rtol > 0)
        lo->option[pl_solver_option_index(&pl_solver_limit, "rtol")] = rtol;
}
