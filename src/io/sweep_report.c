#include "io/sweep_report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/number.h"
#include "io/output.h"
#include "io/plot_config.h"
#include "io/plots.h"
#include "io/report.h"
#include "laws/law.h"
#include "solvers/solver.h"

void pl_sweep_run_dir_name(const char *param_name, size_t k, double value, char *buf, size_t len)
{
    /* The index keeps the names distinct (and sorted) whatever the values. */
    char num[PL_NUMBER_LEN];
    snprintf(buf, len, "runs/%03zu_%s_%s", k + 1, param_name, pl_format_short(value, num, sizeof num));
}

void pl_sweep_run_dir(const pl_sweep *sw, size_t k, char *buf, size_t len)
{
    pl_sweep_run_dir_name(sw->param_name, k, sw->param[k], buf, len);
}

const char *pl_reference_name(pl_reference r)
{
    switch (r) {
    case PL_REF_DISTANCE: return "a distance";
    case PL_REF_EXACT: return "closed form";
    case PL_REF_EXTRAPOLATED: return "extrapolated";
    case PL_REF_LIMIT: return "limit solution";
    default: return "none";
    }
}

void pl_sweep_row(const pl_sweep *sw, size_t k, double row[PL_SWEEP_ROW])
{
    const pl_solution *r = &sw->runs[k];
    const pl_analysis *a = &sw->analysis[k];
    size_t j = 0;
    row[j++] = (double)r->nepisodes;
    row[j++] = (double)a->impacts;
    row[j++] = (double)a->impacts_before_capture;
    const int ids[] = {PL_Q_FIRST_IMPACT_TIME, PL_Q_CAPTURE_TIME, PL_Q_ACCUMULATION_ESTIMATE};
    for (int i = 0; i < 3; i++)
        row[j++] = sw->q[ids[i]].values[k];
    row[j++] = r->status == PL_OK ? a->contraction_ratio : NAN;
    const int more[] = {PL_Q_RESTITUTION_FIRST, PL_Q_SCALED_PENETRATION_FIRST, PL_Q_LIFT_OFF_FIRST,
                        PL_Q_SLIDING_FORCE_ERROR, PL_Q_S_DISTANCE};
    for (int i = 0; i < 5; i++)
        row[j++] = sw->q[more[i]].values[k];
    row[j++] = sw->s_dist_v[k];
    for (int q = PL_Q_LIMIT_SUP_Q; q <= PL_Q_IMPACT_VELOCITY_ERROR; q++)
        row[j++] = sw->q[q].values[k];
    const pl_limit_distance *d = &sw->dist[k];
    int measured = sw->has_limit && r->status == PL_OK; /* counts, or nan */
    const size_t counts[] = {d->impacts_matched, d->impacts_missing, d->impacts_absorbed, d->impacts_excluded,
                             d->impacts_extra};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        row[j++] = measured ? (double)counts[i] : NAN;
    row[j++] = (double)r->stats.steps;
    row[j++] = (double)r->stats.rhs_evals;
    row[j++] = r->stats.wall_seconds;
}

int pl_sweep_row_column(const char *name)
{
    static const char header[] = PL_SWEEP_ROW_HEADER;
    size_t len = strlen(name);
    int col = 0;
    for (const char *p = header; p; col++) {
        if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\0'))
            return col;
        p = strchr(p, ',');
        p = p ? p + 1 : NULL;
    }
    return -1;
}

void pl_put_sweep_row(pl_file *f, const double row[PL_SWEEP_ROW])
{
    fprintf(f->fp, ",%.0f,%.0f,%.0f", row[0], row[1], row[2]);
    for (size_t j = 3; j < PL_SWEEP_ROW - 3; j++)
        pl_put_number(f, ",", row[j]);
    fprintf(f->fp, ",%.0f,%.0f,%.6g", row[PL_SWEEP_ROW - 3], row[PL_SWEEP_ROW - 2], row[PL_SWEEP_ROW - 1]);
}

static pl_status write_sweep_csv(pl_output *out, const pl_sweep *sw, pl_error *err)
{
    pl_file f;
    pl_status s = pl_file_open(&f, out, NULL, "sweep.csv", err);
    if (s != PL_OK)
        return s;
    fprintf(f.fp, "%s,status," PL_SWEEP_ROW_HEADER, sw->param_name);
    fprintf(f.fp, pl_solver_can(sw->solver, PL_SOLVER_FIXED_STEP) ? ",h_used\n" : "\n");
    for (size_t k = 0; k < sw->n; k++) {
        const pl_solution *r = &sw->runs[k];
        double row[PL_SWEEP_ROW];
        pl_sweep_row(sw, k, row);
        pl_put_parameter(&f, "", sw->param[k]);
        fprintf(f.fp, ",%s", r->status == PL_OK ? "ok" : "failed");
        pl_put_sweep_row(&f, row);
        if (pl_solver_can(sw->solver, PL_SOLVER_FIXED_STEP))
            pl_put_number(&f, ",", r->step_size);
        fputc('\n', f.fp);
    }
    return pl_file_commit(&f, err);
}

/* The velocity jumps: n columns velocity_jump1..n, or where the analysis records them over the
 * supports (pl_analysis_sparse_jumps) w = the longest support's pairs velocity_jump_dof1..w (1-based
 * dofs) and velocity_jump_at1..w (the jump at that dof), empty past the episode's support. */
static pl_status write_episodes_csv(pl_output *out, const pl_sweep *sw, const pl_model *model,
                                    const pl_budget *budget, pl_error *err)
{
    int sparse = pl_analysis_sparse_jumps(model);
    size_t n = sparse ? pl_model_gap_width(model) : model->n;
    pl_file f;
    pl_status s = pl_file_open(&f, out, NULL, "episodes.csv", err);
    if (s != PL_OK)
        return s;
    fprintf(f.fp, "%s,episode,constraint,kind,", sw->param_name);
    fprintf(f.fp, "t_in,t_out,duration,gdot_in,gdot_out,restitution,"
                  "velocity_jump_normal");
    for (size_t j = 0; sparse && j < n; j++)
        fprintf(f.fp, ",velocity_jump_dof%zu", j + 1);
    for (size_t j = 0; j < n; j++)
        fprintf(f.fp, sparse ? ",velocity_jump_at%zu" : ",velocity_jump%zu", j + 1);
    fprintf(f.fp, ",max_penetration,scaled_penetration,delta_gamma,impulse,sliding_force_error,"
                  "lift_off_predicted,t_in_resolution,t_out_resolution\n");
    for (size_t k = 0; k < sw->n; k++) {
        const pl_solution *r = &sw->runs[k];
        const pl_analysis *a = &sw->analysis[k];
        if (!a->info)
            continue;
        for (size_t e = 0; e < r->nepisodes; e++) {
            const pl_episode *ep = &r->episodes[e];
            const pl_episode_info *in = &a->info[e];
            pl_put_parameter(&f, "", sw->param[k]);
            fprintf(f.fp, ",%zu,%zu,%s", e + 1, ep->constraint + 1, pl_episode_kind_name(in->kind));
            const double head[] = {ep->t_in, ep->t_out, in->duration, ep->gdot_in, ep->gdot_out,
                                   in->restitution, in->dv_normal};
            for (size_t j = 0; j < sizeof head / sizeof *head; j++)
                pl_put_number(&f, ",", head[j]);
            for (size_t j = 0; sparse && j < n; j++)
                if (j < in->ndv)
                    fprintf(f.fp, ",%zu", in->dv_dofs[j] + 1);
                else
                    fputc(',', f.fp);
            for (size_t j = 0; j < n; j++)
                if (j < in->ndv)
                    pl_put_number(&f, ",", in->dv[j]);
                else
                    fputc(',', f.fp);
            const double tail[] = {ep->max_penetration, in->scaled_penetration, ep->gamma_out - ep->gamma_in,
                                   ep->impulse, in->force_error, in->lift_off_predicted, ep->t_in_resolution,
                                   ep->t_out_resolution};
            for (size_t j = 0; j < sizeof tail / sizeof *tail; j++)
                pl_put_number(&f, ",", tail[j]);
            fputc('\n', f.fp);
            if (e % 256 == 255 && pl_budget_spent(budget)) { /* a row of 20 numbers: a few microseconds */
                pl_file_abort(&f);
                return pl_fail(err, PL_ERR_SOLVER, PL_BUDGET_STOPPED " writing %s/episodes.csv: the file is not "
                               "written", budget->max_seconds, out->root);
            }
        }
    }
    return pl_file_commit(&f, err);
}

const char *pl_sweep_rate_note(const pl_sweep *sw, const pl_sweep_quantity *q, char *buf, size_t len)
{
    if (!sw->has_limit || (q != &sw->q[PL_Q_IMPACT_TIME_ERROR] && q != &sw->q[PL_Q_IMPACT_VELOCITY_ERROR]))
        return pl_convergence_note(&q->conv, buf, len);
    size_t pairing = 0;
    for (size_t k = 0; k < sw->n; k++)
        pairing += sw->runs[k].status == PL_OK && sw->dist[k].impacts_matched > 0;
    if (isnan(q->conv.rate) && pairing == 0)
        snprintf(buf, len, "no run pairs an impact of the limit solution within its window");
    else if (isnan(q->conv.rate) && sw->impact_common_size == 0)
        snprintf(buf, len, "no limit impact is paired in every run that pairs any (%zu runs)", pairing);
    else
        return pl_convergence_note(&q->conv, buf, len);
    return buf;
}

static json_t *convergence_json(const pl_sweep *sw, const pl_sweep_quantity *q)
{
    json_t *o = json_object();
    PL_JSON_SET(o, "meaning", json_string(q->meaning));
    PL_JSON_SET(o, "values", pl_json_array(q->values, sw->n));
    PL_JSON_SET(o, "errors", pl_json_array(q->errors, sw->n));
    PL_JSON_SET(o, "rate", pl_json_number(q->conv.rate));
    PL_JSON_SET(o, "rate_se", pl_json_number(q->conv.rate_se));
    PL_JSON_SET(o, "rate_upper_half", pl_json_number(q->conv.rate_upper));
    PL_JSON_SET(o, "rate_upper_half_se", pl_json_number(q->conv.rate_upper_se));
    char note[160];
    const char *why = pl_sweep_rate_note(sw, q, note, sizeof note);
    PL_JSON_SET(o, "rate_note", why ? json_string(why) : json_null());
    PL_JSON_SET(o, "points", json_integer((json_int_t)q->conv.points));
    PL_JSON_SET(o, "at_noise_floor", json_boolean(q->conv.at_floor));
    PL_JSON_SET(o, "noise_floor", pl_json_number(q->conv.floor));
    PL_JSON_SET(o, "resolution", pl_json_array(q->resolution, sw->n));
    PL_JSON_SET(o, "at_noise_floor_count", json_integer((json_int_t)q->conv.floored));
    char floors[192];
    const char *floor_note = pl_floor_note(&q->conv, floors, sizeof floors);
    PL_JSON_SET(o, "noise_floor_note", floor_note ? json_string(floor_note) : json_null());
    PL_JSON_SET(o, "converges", q->conv.converges < 0 ? json_null() : json_boolean(q->conv.converges));
    PL_JSON_SET(o, "limit", pl_json_number(q->conv.limit));
    PL_JSON_SET(o, "limit_error", pl_json_number(q->conv.limit_error));
    PL_JSON_SET(o, "reference", json_string(pl_reference_name(q->conv.reference)));
    PL_JSON_SET(o, "predicted_rate", isfinite(q->predicted_rate) ? pl_json_number(q->predicted_rate) : json_null());
    PL_JSON_SET(o, "predicted_exact", json_boolean(q->predicted_rate == PL_RATE_EXACT));
    PL_JSON_SET(o, "predicted_note", q->predicted_note ? json_string(q->predicted_note) : json_null());
    PL_JSON_SET(o, "no_limit", q->no_limit ? json_string(q->no_limit) : json_null());
    return o;
}

/* What a rate means, in the refined option p: error ~ p^-rate when refining makes p larger (mu),
 * p^rate when smaller (h). */
static const char *convergence_note(const pl_sweep *sw, char *buf, size_t len)
{
    const char *p = sw->param_name;
    int up = sw->solver->refine_sign > 0;
    snprintf(buf, len,
             "rate: %sthe least-squares slope of log|error| against log %s (error ~ %s^%srate), with its standard "
             "error, over all %s and over the %s half of the %s values; errors are taken against the closed form "
             "when the case knows it, else against the limit solution, else against the limit extrapolated from "
             "the sweep",
             up ? "minus " : "", p, p, up ? "-" : "", p, up ? "upper" : "smaller", p);
    return buf;
}

static json_t *sweep_json(const pl_model *model, const pl_sweep *sw)
{
    char note[512];
    json_t *o = json_object();
    PL_JSON_SET(o, "case", json_string(model->type->name));
    PL_JSON_SET(o, "parameters", pl_parameters_json(model));
    PL_JSON_SET(o, "contact_law", pl_contact_law_json(model));
    PL_JSON_SET(o, "solver", json_string(sw->solver->name));
    PL_JSON_SET(o, "family", json_string(pl_solver_family_name(sw->solver->family)));
    if (sw->n > 0) /* the options of the first run; the refined one varies */
        for (size_t k = 0; k < sw->solver->noptions; k++)
            if (strcmp(sw->solver->options[k].name, sw->param_name) != 0)
                PL_JSON_SET(o, sw->solver->options[k].name, pl_json_number(sw->runs[0].option[k]));
    PL_JSON_SET(o, "t_end", pl_json_number(sw->t_end));
    PL_JSON_SET(o, "refined", json_string(sw->param_name));
    PL_JSON_SET(o, sw->param_name, pl_json_array(sw->param, sw->n));
    if (pl_solver_can(sw->solver, PL_SOLVER_FIXED_STEP)) {
        json_t *used = json_array();
        for (size_t k = 0; k < sw->n; k++)
            PL_JSON_APPEND(used, pl_json_number(sw->runs[k].step_size));
        PL_JSON_SET(o, "h_used", used);
    }
    PL_JSON_SET(o, "failures", json_integer((json_int_t)sw->failures));
    json_t *runs = json_array();
    for (size_t k = 0; k < sw->n; k++) {
        const pl_solution *r = &sw->runs[k];
        char path[128];
        pl_sweep_run_dir(sw, k, path, sizeof path);
        json_t *run = json_pack("{s:o, s:s, s:s, s:I, s:I, s:I, s:I, s:o}", sw->param_name, pl_json_number(sw->param[k]),
                                "status", r->status == PL_OK ? "ok" : "failed", "directory", path,
                                "episodes", (json_int_t)r->nepisodes, "impacts", (json_int_t)sw->analysis[k].impacts,
                                "steps", (json_int_t)r->stats.steps, "rhs_evals", (json_int_t)r->stats.rhs_evals,
                                "wall_seconds", pl_json_number(r->stats.wall_seconds));
        if (r->status != PL_OK)
            PL_JSON_SET(run, "error", json_string(r->error.message));
        PL_JSON_SET(run, "impact_match",
                            sw->has_limit && r->status == PL_OK ? pl_impact_match_json(&sw->match[k], &sw->dist[k])
                                                                : json_null());
        PL_JSON_APPEND(runs, run);
    }
    PL_JSON_SET(o, "runs", runs);
    json_t *conv = json_object();
    for (int q = 0; q < PL_SWEEP_NQ; q++)
        PL_JSON_SET(conv, sw->q[q].name, convergence_json(sw, &sw->q[q]));
    PL_JSON_SET(o, "convergence", conv);
    PL_JSON_SET(o, "convergence_note", json_string(convergence_note(sw, note, sizeof note)));
    json_t *before = json_array();
    for (size_t k = 0; k < sw->n; k++)
        PL_JSON_APPEND(before, json_integer((json_int_t)sw->analysis[k].impacts_before_capture));
    PL_JSON_SET(o, "zeno", json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "impacts_before_capture", before,
                                             "impacts_per_decade", pl_json_number(sw->impacts_per_decade),
                                             "impacts_per_decade_se", pl_json_number(sw->impacts_per_decade_se),
                                             "impacts_per_decade_predicted",
                                             pl_json_number(sw->impacts_per_decade_predicted),
                                             "capture_per_decade", pl_json_number(sw->capture_per_decade),
                                             "capture_per_decade_se", pl_json_number(sw->capture_per_decade_se),
                                             "capture_per_decade_predicted",
                                             pl_json_number(sw->capture_per_decade_predicted)));
    json_t *lim = json_object();
    PL_JSON_SET(lim, "computed", json_boolean(sw->has_limit));
    if (sw->limit.status != PL_OK)
        PL_JSON_SET(lim, "error", json_string(sw->limit.error.message));
    if (sw->has_limit) {
        PL_JSON_SET(lim, "directory", json_string("limit"));
        PL_JSON_SET(lim, "zeno_t_accumulation", pl_json_number(sw->limit.zeno.t_accumulation));
        PL_JSON_SET(lim, "zeno_window", pl_json_array(sw->zeno_window, 2));
        PL_JSON_SET(lim, "impact_errors_file", json_string("impact_errors.csv"));
        json_t *common = json_array();
        for (size_t l = 0; sw->impact_common && l < sw->limit_analysis.impacts; l++)
            if (sw->impact_common[l])
                PL_JSON_APPEND(common, json_integer((json_int_t)(l + 1)));
        size_t pairing = 0;
        for (size_t k = 0; k < sw->n; k++)
            pairing += sw->runs[k].status == PL_OK && sw->dist[k].impacts_matched > 0;
        PL_JSON_SET(lim, "impacts", json_integer((json_int_t)sw->limit_analysis.impacts));
        PL_JSON_SET(lim, "impact_set",
                            json_pack("{s:o, s:I, s:I, s:s}", "common", common, "size",
                                      (json_int_t)sw->impact_common_size, "runs_pairing", (json_int_t)pairing, "meaning",
                                      "the limit impacts (1-based) paired in every run that pairs any: the "
                                      "impact_time_error and impact_velocity_error of every run are taken over them"));
    }
    PL_JSON_SET(o, "limit", lim);
    PL_JSON_SET(o, "successive_s_distance", json_pack("{s:o, s:o, s:s}", "q", pl_json_array(sw->s_dist_q, sw->n),
                                                   "v", pl_json_array(sw->s_dist_v, sw->n), "between",
                                                   "run k and run k+1, in the time s (null for the last run)"));
    return o;
}

/* ---- plot data ----------------------------------------------------------------------------- */

/* The figures' data: CSV with a header, a block of rows per series, blocks separated by two blank
 * lines for gnuplot's `index` (CSV readers skip them), a column naming the series (docs/formats.md,
 * "Data files for figures"). */

static pl_status write_convergence_csv(pl_output *out, const pl_sweep *sw, int *blocks, int *title_len, pl_error *err)
{
    pl_file f;
    pl_status s = pl_file_open(&f, out, NULL, "convergence.csv", err);
    if (s != PL_OK)
        return s;
    fprintf(f.fp, "quantity,%s,error,fit,rate,rate_se,predicted_rate,reference\n", sw->param_name);
    *blocks = 0;
    *title_len = 0;
    for (int q = 0; q < PL_SWEEP_NQ; q++) {
        const pl_sweep_quantity *Q = &sw->q[q];
        if (isnan(Q->conv.rate))
            continue;
        /* log|err| = c - rate log mu through the centroid of all finite errors */
        double sx = 0, sy = 0;
        size_t k = 0;
        for (size_t j = 0; j < sw->n; j++) /* the points of the fit */
            if (isfinite(Q->errors[j]) && pl_above_floor(Q->errors[j], Q->conv.floor, Q->resolution[j]))
                sx += log(sw->x[j]), sy += log(fabs(Q->errors[j])), k++;
        double c = sy / (double)k + Q->conv.rate * sx / (double)k;
        char title[256];
        int len = snprintf(title, sizeof title, "%s: rate %.3f +- %.3f (%s)", Q->name, Q->conv.rate, Q->conv.rate_se,
                           pl_reference_name(Q->conv.reference));
        if (len > *title_len)
            *title_len = len; /* the key's column width */
        if (*blocks)
            fputs("\n\n", f.fp);
        for (size_t j = 0; j < sw->n; j++)
            if (isfinite(Q->errors[j]) && Q->errors[j] != 0.0) {
                fputs(Q->name, f.fp);
                pl_put_parameter(&f, ",", sw->param[j]);
                pl_put_number(&f, ",", fabs(Q->errors[j]));
                pl_put_number(&f, ",", exp(c - Q->conv.rate * log(sw->x[j])));
                pl_put_number(&f, ",", Q->conv.rate);
                pl_put_number(&f, ",", Q->conv.rate_se);
                pl_put_number(&f, ",", isfinite(Q->predicted_rate) ? Q->predicted_rate : NAN);
                fprintf(f.fp, ",%s\n", pl_reference_name(Q->conv.reference));
            }
        (*blocks)++;
    }
    return pl_file_commit(&f, err);
}

/* sliding.csv: mu G and F^sm (paper 004, Theorem 6: mu G -> F^sm, negative while the contact pushes); where
 * the law's k is physical (Hertz, Hunt-Crossley) mu G has no limit and the analysis compares the contact
 * force lambda with its limit (model/sliding.h), written negated so that the columns keep one sign under
 * every law: negative pushes out. */
static pl_status write_sliding_csv(pl_output *out, const pl_model *model, const pl_sweep *sw, int *blocks,
                                   pl_error *err)
{
    pl_file f;
    pl_status s = pl_file_open(&f, out, NULL, "sliding.csv", err);
    if (s != PL_OK)
        return s;
    fprintf(f.fp, "%s,episode,constraint,t,mu_G,sliding_force\n", sw->param_name);
    *blocks = 0;
    for (size_t k = 0; k < sw->n; k++) {
        const pl_table *t = &sw->analysis[k].sliding;
        if (sw->runs[k].status != PL_OK || t->nrows == 0)
            continue;
        if (*blocks)
            fputs("\n\n", f.fp);
        for (size_t r = 0; r < t->nrows; r++) {
            const double *x = pl_table_row(t, r); /* t, constraint, mu G, F^sm, episode */
            if (r > 0 && x[4] != pl_table_row(t, r - 1)[4])
                fputc('\n', f.fp); /* a new episode: break the line in the plot */
            size_t i = (size_t)x[1] - 1;
            double sign = isfinite(model->law[i].k) ? 1.0 : -1.0; /* lambda of a physical k: -lambda */
            pl_put_parameter(&f, "", sw->param[k]);
            fprintf(f.fp, ",%.0f,%.0f", x[4], x[1]);
            pl_put_number(&f, ",", x[0]);
            pl_put_number(&f, ",", sign * x[2]);
            pl_put_number(&f, ",", sign * x[3]);
            fputc('\n', f.fp);
        }
        (*blocks)++;
    }
    return pl_file_commit(&f, err);
}

static pl_status write_zeno_csv(pl_output *out, const pl_sweep *sw, int *blocks, pl_error *err)
{
    pl_file f;
    pl_status s = pl_file_open(&f, out, NULL, "zeno.csv", err);
    if (s != PL_OK)
        return s;
    fprintf(f.fp, "%s,impact,t_in,abs_gdot_in,gdot_out\n", sw->param_name);
    *blocks = 0;
    for (size_t k = 0; k < sw->n; k++) {
        const pl_solution *r = &sw->runs[k];
        const pl_analysis *a = &sw->analysis[k];
        if (r->status != PL_OK || a->impacts == 0)
            continue;
        if (*blocks)
            fputs("\n\n", f.fp);
        for (size_t e = 0; e < a->impacts; e++) {
            const pl_event *ev = &a->impact[e].event;
            pl_put_parameter(&f, "", sw->param[k]);
            fprintf(f.fp, ",%zu", e + 1);
            pl_put_number(&f, ",", ev->t);
            pl_put_number(&f, ",", fabs(ev->gdot_before));
            pl_put_number(&f, ",", ev->gdot_after);
            fputc('\n', f.fp);
        }
        (*blocks)++;
    }
    s = pl_file_commit(&f, err);
    if (s != PL_OK)
        return s;
    if ((s = pl_file_open(&f, out, NULL, "capture.csv", err)) != PL_OK)
        return s;
    fprintf(f.fp, "%s,capture_time,accumulation_estimate,impacts_before_capture\n", sw->param_name);
    for (size_t k = 0; k < sw->n; k++) {
        pl_put_parameter(&f, "", sw->param[k]);
        pl_put_number(&f, ",", sw->q[PL_Q_CAPTURE_TIME].values[k]);
        pl_put_number(&f, ",", sw->q[PL_Q_ACCUMULATION_ESTIMATE].values[k]);
        fprintf(f.fp, ",%zu\n", sw->analysis[k].impacts_before_capture);
    }
    return pl_file_commit(&f, err);
}

/* impact_errors.csv: the table's rows, its first column the refined parameter. */
static pl_status write_impact_errors_csv(pl_output *out, const pl_sweep *sw, pl_error *err)
{
    pl_file f;
    pl_status s = pl_file_open(&f, out, NULL, "impact_errors.csv", err);
    if (s != PL_OK)
        return s;
    fprintf(f.fp, "%s,constraint,limit_impact,run_impact,t_limit,t_run,time_error,velocity_error,centre,window,common\n",
            sw->param_name);
    const pl_table *t = &sw->impact_errors;
    for (size_t r = 0; r < t->nrows; r++) {
        const double *row = pl_table_row(t, r);
        pl_put_parameter(&f, "", row[0]);
        for (size_t c = 1; c < t->ncol; c++)
            pl_put_number(&f, ",", row[c]);
        fputc('\n', f.fp);
    }
    return pl_file_commit(&f, err);
}

static pl_status write_plot_config(pl_output *out, const pl_model *model, const pl_sweep *sw, int nq, int conv_len,
                                   int nsliding, int nzeno, pl_error *err)
{
    pl_file f;
    pl_status s = pl_file_open(&f, out, NULL, "plots_config.gp", err);
    if (s != PL_OK)
        return s;
    fprintf(f.fp, "# Written by penlim sweep: what the plot scripts of this directory read.\n");
    pl_gp_put_string(f.fp, "case_name", model->type->name);
    /* a panel per constraint from the G columns, where every solution has them (dense contacts) */
    int dense = !sw->has_limit || sw->limit.contacts == PL_CONTACTS_DENSE;
    for (size_t k = 0; k < sw->n; k++)
        dense &= sw->runs[k].status != PL_OK || sw->runs[k].contacts == PL_CONTACTS_DENSE;
    pl_gp_put_int(f.fp, "ndof", (long)model->n);
    pl_gp_put_int(f.fp, "ncon", dense ? (long)model->m : 0);
    pl_gp_put_string(f.fp, "solution", sw->solver->name);
    pl_gp_put_string(f.fp, "param", sw->param_name);
    /* the law's k physical (Hertz, Hunt-Crossley): mu a pure multiplier, sliding.csv's columns -lambda */
    pl_gp_put_int(f.fp, "physical_k", !(model->law_type->flags & PL_LAW_PER_UNIT_MASS));
    int first = 1;
    pl_gp_begin_words(f.fp, "runs");
    for (size_t k = 0; k < sw->n; k++)
        if (sw->runs[k].status == PL_OK) {
            char path[128];
            pl_sweep_run_dir(sw, k, path, sizeof path);
            pl_gp_put_word(f.fp, path, &first);
        }
    pl_gp_end_words(f.fp);
    first = 1;
    pl_gp_begin_words(f.fp, "labels");
    for (size_t k = 0; k < sw->n; k++)
        if (sw->runs[k].status == PL_OK) {
            char label[64];
            pl_plot_label(sw->param_name, sw->param[k], label, sizeof label);
            pl_gp_put_word(f.fp, label, &first);
        }
    pl_gp_end_words(f.fp);
    int ncapture = 0;
    for (size_t k = 0; k < sw->n; k++)
        ncapture += isfinite(sw->q[PL_Q_CAPTURE_TIME].values[k]);
    /* the quantities measured (some error finite) that convergence.csv leaves out, and why (the
     * reasons of pl_convergence_note): the figure says so rather than drop them silently */
    first = 1;
    pl_gp_begin_words(f.fp, "conv_dropped");
    for (int q = 0; q < PL_SWEEP_NQ; q++) {
        const pl_convergence *cv = &sw->q[q].conv;
        if (isfinite(cv->rate) || (cv->points == 0 && cv->floored == 0 && !sw->q[q].no_limit))
            continue;
        const char *why = sw->q[q].no_limit                  ? "no-limit"
                          : cv->at_floor                     ? "at-floor"
                          : cv->points < PL_FIT_MIN_POINTS   ? "too-few"
                                                             : "uncertain";
        char word[96];
        snprintf(word, sizeof word, "%s:%s", sw->q[q].name, why);
        pl_gp_put_word(f.fp, word, &first);
    }
    pl_gp_end_words(f.fp);
    pl_gp_put_int(f.fp, "nq", nq);
    pl_gp_put_int(f.fp, "conv_len", conv_len);
    pl_gp_put_int(f.fp, "nsliding", nsliding);
    pl_gp_put_int(f.fp, "nzeno", nzeno);
    pl_gp_put_int(f.fp, "ncapture", ncapture);
    pl_gp_put_string(f.fp, "limit", sw->has_limit ? "limit" : "");
    pl_gp_put_number(f.fp, "accumulation", pl_model_limit_value(model, PL_LIMIT_CAPTURE_TIME));
    return pl_file_commit(&f, err);
}

pl_status pl_write_sweep_run(pl_output *out, const pl_model *model, const pl_sweep *sw, size_t k,
                             const pl_budget *budget, pl_error *err)
{
    char sub[128];
    pl_sweep_run_dir(sw, k, sub, sizeof sub);
    const pl_analysis *a = sw->analysis[k].info ? &sw->analysis[k] : NULL;
    pl_status s = pl_output_make_dir(out, sub, err);
    return s == PL_OK ? pl_write_solution(out, sub, model, &sw->runs[k], a, budget, err) : s;
}

pl_status pl_write_sweep(pl_output *out, const pl_model *model, const pl_sweep *sw, const pl_budget *budget,
                         pl_error *err)
{
    pl_status s;
    if (sw->has_limit) {
        /* a limit solution read back from an earlier sweep keeps its files, as a reused run */
        if ((!sw->limit_reused &&
             ((s = pl_output_make_dir(out, "limit", err)) != PL_OK ||
              (s = pl_write_solution(out, "limit", model, &sw->limit, &sw->limit_analysis, budget, err)) != PL_OK)) ||
            (s = write_impact_errors_csv(out, sw, err)) != PL_OK)
            return s;
    }
    int nq, conv_len, nsliding, nzeno;
    if ((s = write_sweep_csv(out, sw, err)) != PL_OK ||
        (s = write_episodes_csv(out, sw, model, budget, err)) != PL_OK ||
        (s = write_convergence_csv(out, sw, &nq, &conv_len, err)) != PL_OK ||
        (s = write_sliding_csv(out, model, sw, &nsliding, err)) != PL_OK ||
        (s = write_zeno_csv(out, sw, &nzeno, err)) != PL_OK ||
        (s = write_plot_config(out, model, sw, nq, conv_len, nsliding, nzeno, err)) != PL_OK)
        return s;
    return pl_write_json_within(out, NULL, "sweep.json", sweep_json(model, sw), budget, err);
}

static const char *const plot_names[] = {"trajectories", "trajectories_s", "convergence", "sliding", "zeno"};

pl_status pl_sweep_files(const char *param_name, const double *values, size_t n, int with_limit, int plots,
                         pl_strings *files, pl_error *err)
{
    static const char *const solution_files[] = {"trajectory.csv", "trajectory_s.csv", "summary.json",
                                                 "contacts.csv"};
    static const char *const data_files[] = {"sweep.csv", "episodes.csv", "convergence.csv", "sliding.csv",
                                             "zeno.csv", "capture.csv", "plots_config.gp", "sweep.json"};
    char path[PATH_MAX], sub[128];
    pl_status s = PL_OK;
    for (size_t k = 0; s == PL_OK && k < n; k++) {
        pl_sweep_run_dir_name(param_name, k, values[k], sub, sizeof sub);
        for (size_t j = 0; s == PL_OK && j < 4; j++) {
            snprintf(path, sizeof path, "%s/%s", sub, solution_files[j]);
            s = pl_strings_add(files, path, err);
        }
    }
    for (size_t j = 0; s == PL_OK && with_limit && j < 4; j++) {
        snprintf(path, sizeof path, "limit/%s", solution_files[j]);
        s = pl_strings_add(files, path, err);
    }
    if (s == PL_OK && with_limit)
        s = pl_strings_add(files, "impact_errors.csv", err);
    for (size_t j = 0; s == PL_OK && j < sizeof data_files / sizeof data_files[0]; j++)
        s = pl_strings_add(files, data_files[j], err);
    for (size_t j = 0; s == PL_OK && plots && j < sizeof plot_names / sizeof plot_names[0]; j++)
        s = pl_plot_files(plot_names[j], files, err);
    if (s == PL_OK && plots)
        s = pl_plot_common_files(files, err);
    return s;
}

pl_status pl_render_sweep_plots(pl_output *out, const pl_model *model, const pl_sweep *sw, const pl_budget *budget,
                                pl_error *err)
{
    (void)model;
    size_t ok_runs = sw->n - sw->failures;
    int any_sliding = 0, any_zeno = 0, any_conv = 0;
    for (size_t k = 0; k < sw->n; k++) {
        any_sliding |= sw->runs[k].status == PL_OK && sw->analysis[k].sliding.nrows > 0;
        any_zeno |= sw->runs[k].status == PL_OK && sw->analysis[k].impacts > 0;
    }
    for (int q = 0; q < PL_SWEEP_NQ; q++)
        any_conv |= !isnan(sw->q[q].conv.rate);
    const struct {
        const char *name;
        int wanted;
    } plots[] = {{plot_names[0], ok_runs > 0}, {plot_names[1], ok_runs > 0}, {plot_names[2], any_conv},
                 {plot_names[3], any_sliding}, {plot_names[4], any_zeno}};
    pl_status s = pl_plot_start_log(out, err);
    if (s != PL_OK)
        return s;
    if ((s = pl_plot_write_script(out, "styles", err)) != PL_OK)
        return s;
    for (size_t k = 0; k < sizeof plots / sizeof plots[0]; k++) {
        if (!plots[k].wanted)
            continue;
        s = pl_plot_write_script(out, plots[k].name, err);
        if (s == PL_OK)
            s = pl_plot_render(out, plots[k].name, budget, err);
        if (s != PL_OK)
            return s;
    }
    return PL_OK;
}
