#include "study/analysis.h"

#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/sliding.h"

const char *pl_episode_kind_name(pl_episode_kind kind)
{
    return kind == PL_IMPACT ? "impact" : kind == PL_SUSTAINED ? "sustained" : "unresolved";
}

/* Decay rate of the contact oscillation: xi omega, or omega (xi - sqrt(xi^2 - 1)) overdamped. */
static double decay_rate(double omega, double xi)
{
    return xi < 1.0 ? xi * omega : omega * (xi - sqrt(xi * xi - 1.0));
}

pl_episode_kind pl_classify_episode(const pl_episode *ep, double t_end, double omega, double xi)
{
    /* An underdamped impact lasts one half-period; an overdamped one ends when its exponential
     * return to G = 0 reaches round-off, within ~37 decay times. */
    double short_contact = xi < 1.0 ? 3.0 * M_PI / (omega * sqrt(1.0 - xi * xi)) : 50.0 / decay_rate(omega, xi);
    if (isnan(ep->t_out))
        return t_end - ep->t_in <= short_contact ? PL_UNRESOLVED : PL_SUSTAINED;
    if (!(ep->gdot_in < 0.0) || !(ep->gdot_out > 0.0))
        return PL_SUSTAINED;
    return ep->t_out - ep->t_in <= short_contact ? PL_IMPACT : PL_SUSTAINED;
}

int pl_fit_flights(const double *flights, size_t n, double t_last_impact, double *ratio, double *ratio_se,
                   double *t_accumulation)
{
    *ratio = *ratio_se = *t_accumulation = NAN;
    if (n < 3)
        return -1;
    double *x = malloc(2 * n * sizeof *x), *y = x + n;
    if (!x)
        return -1;
    int bad = 0;
    for (size_t j = 0; j < n; j++) {
        bad |= !(flights[j] > 0.0);
        x[j] = (double)j;
        y[j] = bad ? 0.0 : log(flights[j]);
    }
    double a, b, c00, c01, c11, sumsq;
    bad = bad || gsl_fit_linear(x, 1, y, 1, n, &a, &b, &c00, &c01, &c11, &sumsq) != 0;
    free(x);
    if (bad)
        return -1;
    *ratio = exp(b);
    *ratio_se = *ratio * sqrt(c11);
    /* Only a clearly contracting sequence accumulates. */
    if (*ratio + 3.0 * *ratio_se < 1.0)
        *t_accumulation = t_last_impact + flights[n - 1] * *ratio / (1.0 - *ratio);
    return 0;
}

static double contact_omega(const pl_model *model, size_t i, double mu)
{
    return sqrt(model->law[i].k * mu);
}

/* Is constraint j in a sustained episode at time t? */
static int in_sustained(const pl_penalty_result *res, const pl_run_analysis *a, size_t j, double t)
{
    for (size_t k = 0; k < res->nepisodes; k++) {
        const pl_episode *ep = &res->episodes[k];
        if (ep->constraint != j || a->info[k].kind != PL_SUSTAINED || t < ep->t_in)
            continue;
        if (isnan(ep->t_out) || t <= ep->t_out)
            return 1;
    }
    return 0;
}

/* mu G against F^sm along a sustained episode (every row), the sup error over its window (NAN if
 * the window is empty: the contact is too short for its transient to decay), and the first time
 * F^sm reaches zero. */
static pl_status compare_sliding(const pl_model *model, const pl_penalty_result *res, size_t k,
                                 pl_run_analysis *a, pl_error *err)
{
    const pl_episode *ep = &res->episodes[k];
    pl_episode_info *info = &a->info[k];
    size_t n = res->n, m = res->m, i = ep->constraint;
    double t_stop = isnan(ep->t_out) ? res->t_final : ep->t_out;
    /* The entry transient of the contact oscillation, of force up to ~omega V (an impact) against
     * the sliding force ~A, decays at the rate delta: after (20 + ln(omega V/A))/delta it is below
     * e^-20 A.  The window also leaves out the first and last 10% of the contact (Props 6-7:
     * convergence away from its ends). */
    double omega = contact_omega(model, i, res->mu), delta = decay_rate(omega, model->law[i].xi);
    double transient = (20.0 + log(fmax(1.0, omega * model->v_scale / model->a_scale))) / delta;
    double lo = ep->t_in + fmax(0.1 * (t_stop - ep->t_in), transient), hi = t_stop - 0.1 * (t_stop - ep->t_in);
    double prev_t = NAN, prev_f = NAN;
    info->force_error = info->force_scale = lo < hi ? 0.0 : NAN;
    info->lift_off_predicted = NAN;
    for (size_t r = ep->row_in; r <= ep->row_out && r < res->traj.nrows; r++) {
        const double *x = pl_table_row(&res->traj, r);
        double t = x[0];
        int set[PL_MAX_CON];
        for (size_t j = 0; j < m; j++)
            set[j] = j == i || in_sustained(res, a, j, t);
        double lambda[PL_MAX_CON], fsm[PL_MAX_CON];
        pl_status s = pl_sliding_force(model, t, x + pl_col_q(n, m), x + pl_col_v(n, m), set, lambda, fsm, err);
        if (s != PL_OK)
            return s;
        double muG = res->mu * x[pl_col_g(n, m) + i];
        double row[5] = {t, (double)(i + 1), muG, fsm[i], (double)(k + 1)};
        if ((s = pl_table_append(&a->sliding, row, err)) != PL_OK)
            return s;
        if (t >= lo && t <= hi) {
            info->force_error = fmax(info->force_error, fabs(muG - fsm[i]));
            info->force_scale = fmax(info->force_scale, fabs(fsm[i]));
        }
        /* Lift-off predicted where F^sm (< 0 while pressing) reaches 0: interpolate linearly. */
        if (isnan(info->lift_off_predicted) && prev_f < 0.0 && fsm[i] >= 0.0)
            info->lift_off_predicted = prev_t + (t - prev_t) * prev_f / (prev_f - fsm[i]);
        prev_t = t;
        prev_f = fsm[i];
    }
    return PL_OK;
}

/* Zeno: flights between successive impacts, while the impact speed is well above the capture
 * scale (10 A/omega: gravity then barely acts during a contact), up to the capture. */
static void zeno_sequence(const pl_model *model, const pl_penalty_result *res, pl_run_analysis *a)
{
    size_t cap = res->nepisodes;
    double *flights = malloc((cap ? cap : 1) * sizeof *flights);
    if (!flights)
        return;
    size_t nf = 0;
    double t_last = NAN;
    const pl_episode *prev = NULL;
    for (size_t k = 0; k < res->nepisodes; k++) {
        const pl_episode *ep = &res->episodes[k];
        if (a->info[k].kind != PL_IMPACT)
            continue;
        if (!isnan(a->capture_time) && ep->t_in >= a->capture_time)
            break;
        double v_min = 10.0 * model->a_scale / contact_omega(model, ep->constraint, res->mu);
        if (-ep->gdot_in < v_min)
            break;
        if (prev) {
            flights[nf++] = ep->t_in - prev->t_out;
            t_last = ep->t_out;
        }
        prev = ep;
    }
    a->fit_flights = nf;
    pl_fit_flights(flights, nf, t_last, &a->contraction_ratio, &a->contraction_ratio_se, &a->accumulation_time);
    free(flights);
}

pl_status pl_analyze_run(const pl_model *model, const pl_penalty_result *res, pl_run_analysis *a,
                         pl_error *err)
{
    memset(a, 0, sizeof *a);
    pl_table_init(&a->sliding, 5);
    a->first_impact_time = a->restitution_first = a->scaled_penetration_first = NAN;
    a->lift_off_first = a->lift_off_predicted_first = a->sliding_force_error = a->sliding_force_scale = NAN;
    a->capture_time = a->contraction_ratio = a->contraction_ratio_se = a->accumulation_time = NAN;
    a->nepisodes = res->nepisodes;
    a->info = calloc(res->nepisodes ? res->nepisodes : 1, sizeof *a->info);
    if (!a->info)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory analysing %zu episodes", res->nepisodes);
    size_t n = res->n, m = res->m;

    for (size_t k = 0; k < res->nepisodes; k++) {
        const pl_episode *ep = &res->episodes[k];
        pl_episode_info *info = &a->info[k];
        size_t i = ep->constraint;
        info->kind = pl_classify_episode(ep, res->t_end, contact_omega(model, i, res->mu), model->law[i].xi);
        double t_stop = isnan(ep->t_out) ? res->t_final : ep->t_out;
        info->duration = t_stop - ep->t_in;
        const double *v_in = pl_table_row(&res->traj, ep->row_in) + pl_col_v(n, m);
        const double *v_out = pl_table_row(&res->traj, ep->row_out) + pl_col_v(n, m);
        for (size_t j = 0; j < n; j++)
            info->dv[j] = v_out[j] - v_in[j];
        info->dv_normal = ep->gdot_out - ep->gdot_in;
        info->scaled_penetration = sqrt(res->mu) * ep->max_penetration;
        info->force_error = info->force_scale = info->lift_off_predicted = NAN;
        if (info->kind == PL_IMPACT && a->impacts++ == 0) {
            a->first_impact_time = ep->t_in;
            a->restitution_first = pl_episode_restitution(ep);
            a->scaled_penetration_first = info->scaled_penetration;
        }
    }
    if (res->nepisodes > 0) {
        const pl_episode *last = &res->episodes[res->nepisodes - 1];
        if (a->info[res->nepisodes - 1].kind == PL_SUSTAINED && isnan(last->t_out)) {
            a->capture_time = last->t_in;
            for (size_t k = 0; k + 1 < res->nepisodes; k++)
                a->impacts_before_capture += a->info[k].kind == PL_IMPACT;
        }
    }
    for (size_t k = 0; k < res->nepisodes; k++) {
        pl_episode_info *info = &a->info[k];
        if (info->kind != PL_SUSTAINED)
            continue;
        pl_status s = compare_sliding(model, res, k, a, err);
        if (s != PL_OK)
            return s;
        if (!isnan(info->force_error) && (isnan(a->sliding_force_error) || info->force_error > a->sliding_force_error)) {
            a->sliding_force_error = info->force_error;
            a->sliding_force_scale = info->force_scale;
        }
        if (isnan(a->lift_off_first) && !isnan(res->episodes[k].t_out)) {
            a->lift_off_first = res->episodes[k].t_out;
            a->lift_off_predicted_first = info->lift_off_predicted;
        }
    }
    zeno_sequence(model, res, a);
    return PL_OK;
}

void pl_run_analysis_free(pl_run_analysis *a)
{
    free(a->info);
    a->info = NULL;
    pl_table_free(&a->sliding);
}
