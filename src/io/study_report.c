#include "io/study_report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/sweep_report.h"

static pl_status write_study_csv(pl_output *out, const pl_study *st, pl_error *err)
{
    pl_file f;
    pl_status s = pl_file_open(&f, out, NULL, "study.csv", err);
    if (s != PL_OK)
        return s;
    int fixed_step = pl_solver_can(st->solver, PL_SOLVER_FIXED_STEP);
    fputs("run,point,limit", f.fp);
    for (size_t a = 0; a < st->naxes; a++)
        fprintf(f.fp, ",%s", st->axes[a].name);
    fprintf(f.fp, "%s,status," PL_SWEEP_ROW_HEADER ",final_t", fixed_step ? ",h_used" : "");
    for (size_t j = 0; j < st->max_dof; j++)
        fprintf(f.fp, ",final_q%zu", j + 1);
    for (size_t j = 0; j < st->max_dof; j++)
        fprintf(f.fp, ",final_v%zu", j + 1);
    fputc('\n', f.fp);
    for (size_t r = 0; r < st->nruns; r++) {
        const pl_study_run_result *res = &st->run[r];
        fprintf(f.fp, "%zu,%zu,%zu", r, st->run_point[r], st->run_limit[r]);
        for (size_t a = 0; a < st->naxes; a++)
            pl_put_parameter(&f, ",", pl_study_value(st, a, r));
        if (fixed_step)
            pl_put_number(&f, ",", res->h_used);
        fprintf(f.fp, ",%s", res->status == PL_OK ? "ok" : "failed");
        pl_put_sweep_row(&f, res->row);
        pl_put_number(&f, ",", res->final_t);
        for (size_t half = 0; half < 2; half++)
            for (size_t j = 0; j < st->max_dof; j++)
                pl_put_number(&f, ",", j < res->n && res->final_qv ? res->final_qv[half * res->n + j] : NAN);
        fputc('\n', f.fp);
    }
    return pl_file_commit(&f, err);
}

pl_status pl_study_columns(const pl_study *st, pl_strings *cols, pl_error *err)
{
    char header[] = PL_SWEEP_ROW_HEADER ",final_t", name[32];
    pl_status s = PL_OK;
    for (char *save = NULL, *tok = strtok_r(header, ",", &save); s == PL_OK && tok; tok = strtok_r(NULL, ",", &save))
        s = pl_strings_add(cols, tok, err);
    for (size_t half = 0; half < 2; half++)
        for (size_t j = 0; s == PL_OK && j < st->max_dof; j++) {
            snprintf(name, sizeof name, "final_%c%zu", half ? 'v' : 'q', j + 1);
            s = pl_strings_add(cols, name, err);
        }
    return s;
}

static json_t *values_json(const pl_study *st, size_t r, int with_refined)
{
    json_t *o = json_object();
    for (size_t a = 0; a < st->naxes; a++)
        if (with_refined || (int)a != st->refined)
            PL_JSON_SET(o, st->axes[a].name, pl_json_number(pl_study_value(st, a, r)));
    return o;
}

static const char *const quantity_names[PL_SWEEP_NQ] = {
    "first_impact_time", "restitution_first", "scaled_penetration_first", "capture_time",
    "accumulation_estimate", "lift_off_first", "sliding_force_error", "successive_s_distance", "sup_q",
    "sup_q_outside_zeno", "l1_v", "s_distance_q", "impact_time_error", "impact_velocity_error"};

static json_t *study_json(const pl_study *st)
{
    json_t *root = json_object();
    PL_JSON_SET(root, "penlim_study", json_integer(1));
    PL_JSON_SET(root, "case", json_string(st->spec.c->name));
    PL_JSON_SET(root, "contact_law", json_string(st->spec.law->name));
    PL_JSON_SET(root, "solver", json_string(st->solver->name));
    PL_JSON_SET(root, "refined", st->refined >= 0 ? json_string(st->axes[st->refined].name) : json_null());
    PL_JSON_SET(root, "zip", json_boolean(st->spec.zip));
    json_t *axes = json_array();
    for (size_t a = 0; a < st->naxes; a++) {
        json_t *ax = json_object();
        PL_JSON_SET(ax, "name", json_string(st->axes[a].name));
        PL_JSON_SET(ax, "values", pl_json_array(st->axes[a].values, st->axes[a].n));
        PL_JSON_SET(ax, "refined", json_boolean((int)a == st->refined));
        PL_JSON_APPEND(axes, ax);
    }
    PL_JSON_SET(root, "axes", axes);
    json_t *points = json_array();
    for (size_t p = 0; p < st->npoints && points; p++) {
        size_t first = st->point_first[p], n = st->point_first[p + 1] - first;
        json_t *pt = json_object(), *runs = json_array(), *conv = json_object();
        PL_JSON_SET(pt, "point", json_integer((json_int_t)p));
        PL_JSON_SET(pt, "values", values_json(st, st->point_runs[first], 0));
        PL_JSON_SET(pt, "limit", json_integer((json_int_t)st->run_limit[st->point_runs[first]]));
        for (size_t k = 0; k < n; k++)
            PL_JSON_APPEND(runs, json_integer((json_int_t)st->point_runs[first + k]));
        PL_JSON_SET(pt, "runs", runs);
        for (int q = 0; q < PL_SWEEP_NQ; q++) {
            const pl_study_convergence *c = &st->conv[p * PL_SWEEP_NQ + (size_t)q];
            json_t *qj = json_object();
            PL_JSON_SET(qj, "rate", pl_json_number(c->rate));
            PL_JSON_SET(qj, "rate_se", pl_json_number(c->rate_se));
            PL_JSON_SET(qj, "limit", pl_json_number(c->limit));
            PL_JSON_SET(qj, "rate_note", c->note ? json_string(c->note) : json_null());
            PL_JSON_SET(conv, quantity_names[q], qj);
        }
        PL_JSON_SET(pt, "convergence", conv);
        PL_JSON_APPEND(points, pt);
    }
    PL_JSON_SET(root, "points", points);
    json_t *limits = json_array();
    for (size_t l = 0; l < st->nlimits; l++) {
        json_t *lj = json_object();
        char dir[32];
        snprintf(dir, sizeof dir, "limits/%03zu", l);
        PL_JSON_SET(lj, "limit", json_integer((json_int_t)l));
        json_t *v = json_object();
        for (size_t a = 0; a < st->naxes; a++)
            if (st->axes[a].kind == PL_AXIS_CASE || st->axes[a].kind == PL_AXIS_LAW || st->axes[a].kind == PL_AXIS_T_END)
                PL_JSON_SET(v, st->axes[a].name, pl_json_number(pl_study_value(st, a, st->limit_run[l])));
        PL_JSON_SET(lj, "values", v);
        PL_JSON_SET(lj, "status", json_string(st->limit_status[l] == PL_OK ? "ok" : "failed"));
        PL_JSON_SET(lj, "error", st->limit_error[l] ? json_string(st->limit_error[l]) : json_null());
        PL_JSON_SET(lj, "directory", json_string(dir));
        PL_JSON_APPEND(limits, lj);
    }
    PL_JSON_SET(root, "limits", limits);
    json_t *runs = json_array();
    size_t failed = 0;
    double wall = 0.0;
    for (size_t r = 0; r < st->nruns && runs; r++) {
        const pl_study_run_result *res = &st->run[r];
        json_t *rj = json_object();
        char dir[32];
        snprintf(dir, sizeof dir, "runs/%05zu", r);
        PL_JSON_SET(rj, "run", json_integer((json_int_t)r));
        PL_JSON_SET(rj, "point", json_integer((json_int_t)st->run_point[r]));
        PL_JSON_SET(rj, "status", json_string(res->status == PL_OK ? "ok" : "failed"));
        PL_JSON_SET(rj, "error", res->error ? json_string(res->error) : json_null());
        PL_JSON_SET(rj, "directory", json_string(dir));
        for (int c = 0; c < 2; c++) { /* counts: integers (null for a run that has none) */
            double x = res->row[PL_SWEEP_ROW - 3 + c];
            PL_JSON_SET(rj, c ? "rhs_evals" : "steps", isfinite(x) ? json_integer((json_int_t)x) : json_null());
        }
        PL_JSON_SET(rj, "wall_seconds", pl_json_number(res->row[PL_SWEEP_ROW - 1]));
        PL_JSON_APPEND(runs, rj);
        failed += res->status != PL_OK;
        wall += res->row[PL_SWEEP_ROW - 1];
    }
    PL_JSON_SET(root, "runs", runs);
    json_t *cost = json_object();
    PL_JSON_SET(cost, "runs", json_integer((json_int_t)st->nruns));
    PL_JSON_SET(cost, "failed", json_integer((json_int_t)failed));
    PL_JSON_SET(cost, "wall_seconds", pl_json_number(wall));
    PL_JSON_SET(root, "cost", cost);
    return root;
}

pl_status pl_write_study(pl_output *out, const pl_study *st, pl_error *err)
{
    if (!st->assembled)
        return pl_fail(err, PL_ERR_INPUT, "the study has not been assembled");
    pl_status s = write_study_csv(out, st, err);
    return s == PL_OK ? pl_write_json(out, NULL, "study.json", study_json(st), err) : s;
}
