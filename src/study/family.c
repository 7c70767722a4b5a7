#include "study/family.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/number.h"
#include "solvers/solver.h"

/* The finest member is "at" the limit solution when within this many times the estimated distance
 * to the family's own limit (plus the noise floor): a power law's tail is that distance exactly. */
#define CONSISTENT_FACTOR 3.0

const char *pl_family_verdict_name(pl_family_verdict v)
{
    switch (v) {
    case PL_VERDICT_LIMIT: return "converges to the limit solution";
    case PL_VERDICT_OTHER: return "converges to another limit";
    case PL_VERDICT_NONCONVERGENT: return "does not converge";
    default: return NULL;
    }
}

/* The scale of each distance's noise floor, as the sweeps': a length, an impulse, a time, a velocity. */
typedef enum { SCALE_LENGTH, SCALE_IMPULSE, SCALE_TIME, SCALE_VELOCITY } scale;

static const struct {
    const char *name;
    scale scale;
    int event_time; /* the error of an event's time: the tolerance floor PL_NOISE_RTOLS_TIME (fit.h) */
} distances[PL_FD_COUNT] = {
    [PL_FD_SUP_Q] = {"sup_q", SCALE_LENGTH},
    [PL_FD_SUP_Q_OUTSIDE] = {"sup_q_outside_zeno", SCALE_LENGTH},
    [PL_FD_L1_V] = {"l1_v", SCALE_IMPULSE},
    [PL_FD_S_DISTANCE_Q] = {"s_distance_q", SCALE_LENGTH},
    [PL_FD_IMPACT_TIME] = {"impact_time_error", SCALE_TIME, 1},
    [PL_FD_IMPACT_VELOCITY] = {"impact_velocity_error", SCALE_VELOCITY},
    [PL_FD_CAPTURE] = {"capture_error", SCALE_TIME, 1},
    [PL_FD_LIFT_OFF] = {"lift_off_error", SCALE_TIME, 1},
    [PL_FD_FINAL_Q] = {"final_q_error", SCALE_LENGTH},
    [PL_FD_FINAL_V] = {"final_v_error", SCALE_VELOCITY},
};

const char *pl_family_distance_name(pl_family_distance d)
{
    return d < PL_FD_COUNT ? distances[d].name : "?";
}

double pl_family_distance_value(const pl_compare_result *r, pl_family_distance d)
{
    switch (d) {
    case PL_FD_SUP_Q: return r->d.sup_q;
    case PL_FD_SUP_Q_OUTSIDE: return r->d.sup_q_outside;
    case PL_FD_L1_V: return r->d.l1_v;
    case PL_FD_S_DISTANCE_Q: return r->d.s_dist_q;
    case PL_FD_IMPACT_TIME: return r->d.impact_time_error;
    case PL_FD_IMPACT_VELOCITY: return r->d.impact_velocity_error;
    case PL_FD_CAPTURE: return r->capture_error;
    case PL_FD_LIFT_OFF: return r->lift_off_error;
    case PL_FD_FINAL_Q: return r->final_q_error;
    case PL_FD_FINAL_V: return r->final_v_error;
    default: return NAN;
    }
}

/* The refinement of a member: mu, or 1/h for the step a scheme took (h itself when it divides t-end). */
static double refinement(const pl_solution *sol, double *param)
{
    const pl_solver_type *s = sol->solver;
    *param = s->refine ? pl_solution_option(sol, s->refine) : NAN;
    if (pl_solver_can(s, PL_SOLVER_FIXED_STEP) && sol->step_size > 0.0)
        return 1.0 / sol->step_size;
    return s->refine_sign > 0 ? *param : 1.0 / *param;
}

/* Members in order of refinement: insertion sort on x (a few dozen members). */
static void sort_members(pl_family *f)
{
    for (size_t k = 1; k < f->n; k++)
        for (size_t j = k; j > 0 && f->x[j - 1] > f->x[j]; j--) {
            double t = f->x[j];
            f->x[j] = f->x[j - 1];
            f->x[j - 1] = t;
            t = f->param[j];
            f->param[j] = f->param[j - 1];
            f->param[j - 1] = t;
            size_t o = f->order[j];
            f->order[j] = f->order[j - 1];
            f->order[j - 1] = o;
        }
}

/* "mu^-0.500 +- 0.001" or "h^1.000 +- 0.002" */
static void law_text(const pl_family *f, const pl_convergence *cv, char *buf, size_t len)
{
    if (strcmp(f->refined, "h") == 0)
        snprintf(buf, len, "like h^%.3f +- %.3f", cv->rate, cv->rate_se);
    else
        snprintf(buf, len, "like %s^-%.3f +- %.3f", f->refined, cv->rate, cv->rate_se);
}

/* The verdict from sup_q to the limit solution (e) and between successive members (d). */
static void decide(pl_family *f, const pl_family_member *members)
{
    const pl_convergence *ce = &f->conv[PL_FD_SUP_Q], *cd = &f->successive_conv;
    size_t n = f->n;
    char law[96], finest[64];
    char value[PL_NUMBER_LEN];
    if (n < PL_FIT_MIN_POINTS) { /* n may be 0: every member failed */
        f->verdict = PL_VERDICT_NONE;
        snprintf(f->reason, sizeof f->reason, "%zu refinement%s, a verdict needs %d (give more %s values, or --work-precision)",
                 n, n == 1 ? "" : "s", PL_FIT_MIN_POINTS, f->refined);
        return;
    }
    pl_format_short(f->param[n - 1], value, sizeof value);
    if (strlen(value) > 10) { /* a computed default h: 4 digits (compare.json has them all) */
        char rounded[32];
        snprintf(rounded, sizeof rounded, "%.4g", f->param[n - 1]);
        pl_format_short(strtod(rounded, NULL), value, sizeof value);
    }
    snprintf(finest, sizeof finest, "%s = %s", f->refined, value);
    if (ce->at_floor) {
        f->verdict = PL_VERDICT_LIMIT;
        snprintf(f->reason, sizeof f->reason, "sup_q to the limit solution is at the noise floor (%.3g) at every %s",
                 f->noise_floor_q, f->refined);
        return;
    }
    double e_last = pl_family_distance_value(members[f->order[n - 1]].res, PL_FD_SUP_Q);
    double d_last = f->successive[n - 2], eps = f->own_limit_distance;
    int consistent = e_last <= CONSISTENT_FACTOR * (eps + f->noise_floor_q);
    if (consistent) {
        if (ce->converges == 1) {
            law_text(f, ce, law, sizeof law);
            f->verdict = PL_VERDICT_LIMIT;
            snprintf(f->reason, sizeof f->reason, "sup_q to the limit solution falls %s (%.3g at %s)",
                     isfinite(ce->rate) ? law : "by more than 10", e_last, finest);
        } else {
            f->verdict = ce->converges == 0 ? PL_VERDICT_NONCONVERGENT : PL_VERDICT_NONE;
            snprintf(f->reason, sizeof f->reason, "sup_q to the limit solution does not fall (%.3g at %s)%s", e_last,
                     finest, ce->converges < 0 ? ": too few values above the noise floor to say" : "");
        }
        return;
    }
    int cauchy = cd->at_floor || cd->converges == 1;
    if (cauchy) {
        if (cd->at_floor)
            snprintf(law, sizeof law, "to the noise floor");
        else if (isfinite(cd->rate))
            law_text(f, cd, law, sizeof law);
        else
            snprintf(law, sizeof law, "by more than 10");
        f->verdict = PL_VERDICT_OTHER;
        snprintf(f->reason, sizeof f->reason,
                 "sup_q to the limit solution stays at %.3g (%s) while successive members approach each other %s "
                 "(%.3g): the family's own limit is about %.3g from the limit solution",
                 e_last, finest, law, d_last, e_last);
    } else if (cd->converges == 0) {
        f->verdict = PL_VERDICT_NONCONVERGENT;
        snprintf(f->reason, sizeof f->reason,
                 "sup_q to the limit solution is %.3g at %s and successive members do not approach each other (%.3g)",
                 e_last, finest, d_last);
    } else {
        f->verdict = PL_VERDICT_NONE;
        snprintf(f->reason, sizeof f->reason,
                 "sup_q to the limit solution stays at %.3g (%s); %zu successive distances, %d needed to tell "
                 "whether the family converges elsewhere",
                 e_last, finest, n - 1, PL_FIT_MIN_POINTS);
    }
}

pl_status pl_family_assess(const pl_model *model, const pl_solver_type *solver, const pl_family_member *members,
                           size_t n, size_t nlimit_impacts, pl_family *f, pl_error *err)
{
    memset(f, 0, sizeof *f);
    f->solver = solver;
    f->n = n;
    f->nlimit_impacts = nlimit_impacts;
    f->refined = solver->refine ? solver->refine : "";
    size_t cap = n ? n : 1;
    f->order = malloc(cap * sizeof *f->order);
    f->x = malloc(cap * sizeof *f->x);
    f->param = malloc(cap * sizeof *f->param);
    f->successive = malloc(cap * sizeof *f->successive);
    f->impact_common = calloc(nlimit_impacts + 1, 1);
    double *values = malloc(2 * cap * sizeof *values), *errors = values ? values + cap : NULL;
    const pl_impact_match **matches = calloc(cap, sizeof *matches);
    if (!f->order || !f->x || !f->param || !f->successive || !f->impact_common || !values || !matches) {
        free(values);
        free(matches);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory assessing a family of %zu solutions", n);
    }
    for (size_t k = 0; k < n; k++) {
        f->order[k] = k;
        f->x[k] = refinement(members[k].sol->sol, &f->param[k]);
        matches[k] = members[k].match;
    }
    sort_members(f);
    /* One impact set for the whole family, so that the rates compare the same impacts. */
    f->impact_common_size = pl_impact_common_set(matches, n, nlimit_impacts, f->impact_common);
    for (size_t k = 0; k < n; k++)
        pl_limit_distance_impacts_over(&members[k].res->d, members[k].match, f->impact_common);
    free(matches);
    /* Noise floors: PL_NOISE_RTOLS (event times: PL_NOISE_RTOLS_TIME) rtol times the case's scales, as
     * the sweeps'. */
    const pl_solution *first = n ? members[0].sol->sol : NULL;
    int irtol = first ? pl_solver_option_index(first->solver, "rtol") : -1;
    double rtol = irtol >= 0 ? first->option[irtol] : 1e-13; /* a scheme's noise is round-off */
    double V = model->v_scale, A = model->a_scale, L = V * V / A, T = first ? first->t_end : L / V;
    const double scale[] = {[SCALE_LENGTH] = L, [SCALE_IMPULSE] = V * (isfinite(T) ? T : L / V),
                            [SCALE_TIME] = L / V, [SCALE_VELOCITY] = V};
    f->noise_floor_q = PL_NOISE_RTOLS * rtol * L;
    for (int d = 0; d < PL_FD_COUNT; d++) {
        for (size_t k = 0; k < n; k++)
            values[k] = pl_family_distance_value(members[f->order[k]].res, (pl_family_distance)d);
        double rtols = distances[d].event_time ? PL_NOISE_RTOLS_TIME : PL_NOISE_RTOLS;
        f->conv[d] = pl_convergence_of(f->x, values, n, 0.0, rtols * rtol * scale[distances[d].scale], NULL, errors);
        f->conv[d].reference = PL_REF_DISTANCE;
        if (f->conv[d].no_memory) {
            free(values);
            return pl_fail(err, PL_ERR_NOMEM, "out of memory fitting the rates of a family of %zu solutions", n);
        }
    }
    /* The distances between successive members, and the tail of their series. */
    pl_status s = PL_OK;
    for (size_t k = 0; k + 1 < n && s == PL_OK; k++) {
        double so, l1;
        s = pl_distance_in_t(members[f->order[k]].sol, members[f->order[k + 1]].sol, NAN, NAN, &f->successive[k], &so,
                             &l1, err);
    }
    if (s == PL_OK) { /* their errors against 0 go to the scratch of the distances' */
        f->successive_conv = pl_convergence_of(f->x, f->successive, n > 0 ? n - 1 : 0, 0.0, f->noise_floor_q, NULL,
                                               errors);
        if (f->successive_conv.no_memory)
            s = pl_fail(err, PL_ERR_NOMEM, "out of memory fitting the rates of a family of %zu solutions", n);
    }
    free(values);
    if (s != PL_OK)
        return s;
    f->own_limit_distance = NAN;
    if (n >= 2) {
        double d_last = f->successive[n - 2], p = f->successive_conv.rate, ratio = 1.0;
        if (isfinite(p) && p > 0.0) {
            double r = pow(f->x[n - 2] / f->x[n - 1], p);
            ratio = r / (1.0 - r);
        }
        f->own_limit_distance = d_last * ratio;
    }
    decide(f, members);
    return PL_OK;
}

void pl_family_free(pl_family *f)
{
    free(f->order);
    free(f->x);
    free(f->param);
    free(f->successive);
    free(f->impact_common);
    memset(f, 0, sizeof *f);
}
