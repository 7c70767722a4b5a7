#include "io/limit_report.h"

#include <math.h>
#include <stdio.h>

#include "io/output.h"
#include "io/report.h"

static json_t *event_json(const pl_limit_result *res, const pl_event *e)
{
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(pl_event_kind_name(e->kind)));
    json_object_set_new(o, "t", pl_json_number(e->t));
    json_object_set_new(o, "constraint", json_integer((json_int_t)e->constraint + 1));
    json_object_set_new(o, "q", pl_json_array(e->q, res->n));
    json_object_set_new(o, "v_before", pl_json_array(e->v_before, res->n));
    json_object_set_new(o, "v_after", pl_json_array(e->v_after, res->n));
    json_object_set_new(o, "gdot_before", pl_json_number(e->gdot_before));
    json_object_set_new(o, "gdot_after", pl_json_number(e->gdot_after));
    json_object_set_new(o, "gamma_before", pl_json_number(e->gamma_before));
    json_object_set_new(o, "gamma_after", pl_json_number(e->gamma_after));
    if (e->kind == PL_EVENT_IMPACT) {
        json_t *parts = json_array();
        for (size_t i = 0; i < res->m; i++)
            if (e->participants & (1u << i))
                json_array_append_new(parts, json_integer((json_int_t)i + 1));
        json_object_set_new(o, "constraints", parts);
        json_object_set_new(o, "restitution", pl_json_number(-e->gdot_after / e->gdot_before));
        json_object_set_new(o, "delta_gamma", pl_json_number(e->gamma_after - e->gamma_before));
        json_object_set_new(o, "impulse", pl_json_array(e->impulse, res->m));
        json_object_set_new(o, "fast_exit_time", pl_json_number(e->s_exit));
    }
    return o;
}

json_t *pl_limit_summary_json(const pl_model *model, const pl_limit_result *res)
{
    json_t *o = pl_summary_header_json(model, res->status, res->error.message);
    json_object_set_new(o, "solution", json_string("limit"));
    json_object_set_new(o, "t_end", pl_json_number(res->t_end));
    size_t counts[4] = {0};
    json_t *events = json_array();
    for (size_t k = 0; k < res->nevents; k++) {
        counts[res->events[k].kind]++;
        json_array_append_new(events, event_json(res, &res->events[k]));
    }
    json_object_set_new(o, "event_counts", json_pack("{s:I, s:I, s:I, s:I}", "impact", (json_int_t)counts[0],
                                                     "slide_start", (json_int_t)counts[1], "lift_off",
                                                     (json_int_t)counts[2], "zeno", (json_int_t)counts[3]));
    json_object_set_new(o, "events", events);
    if (res->zeno) {
        json_t *z = json_object();
        json_object_set_new(z, "t_accumulation", pl_json_number(res->t_accumulation));
        json_object_set_new(z, "constraint", json_integer((json_int_t)res->zeno_constraint + 1));
        json_object_set_new(z, "impacts_resolved", json_integer((json_int_t)res->impacts_resolved));
        json_object_set_new(z, "contraction_ratio", pl_json_number(res->zeno_ratio));
        json_object_set_new(z, "state", json_pack("{s:o, s:o}", "q", pl_json_array(res->zeno_q, res->n), "v",
                                                  pl_json_array(res->zeno_v, res->n)));
        json_object_set_new(o, "zeno", z);
    } else {
        json_object_set_new(o, "zeno", json_null());
    }
    json_object_set_new(o, "stats", json_pack("{s:I, s:I, s:I, s:I, s:o}", "steps", (json_int_t)res->stats.steps,
                                              "rhs_evals", (json_int_t)res->stats.rhs_evals, "restarts",
                                              (json_int_t)res->stats.restarts, "fast_steps",
                                              (json_int_t)res->fast_steps, "wall_seconds",
                                              pl_json_number(res->stats.wall_seconds)));
    json_object_set_new(o, "final", json_pack("{s:o, s:o, s:o, s:o}", "t", pl_json_number(res->t_final), "gamma",
                                              pl_json_number(res->gamma_final), "q",
                                              pl_json_array(res->q_final, res->n), "v",
                                              pl_json_array(res->v_final, res->n)));
    return o;
}

pl_status pl_write_limit(const char *dir, const pl_model *model, const pl_limit_result *res, pl_error *err)
{
    pl_status s = pl_write_trajectories(dir, model->n, model->m, &res->traj, err);
    if (s != PL_OK)
        return s;
    return pl_write_json(dir, "summary.json", pl_limit_summary_json(model, res), err);
}
