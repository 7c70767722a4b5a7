#include "io/report.h"
#include "laws/law.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/number.h"
#include "io/output.h"
#include "solvers/solver.h"

/* Append ",NAME1,...,NAMEcount" to buf (used characters so far). */
static size_t append_columns(char *buf, size_t len, size_t used, const char *name, size_t count)
{
    for (size_t j = 0; j < count && used < len; j++)
        used += (size_t)snprintf(buf + used, len - used, ",%s%zu", name, j + 1);
    return used;
}

/* Room for "t,gamma" and count columns named like ",impulse18446744073709551615". */
static size_t header_length(size_t count)
{
    return 16 + count * 28;
}

char *pl_trajectory_header(size_t n, size_t m, int impulses)
{
    size_t len = header_length(2 * n + 2 * m);
    char *buf = malloc(len);
    if (!buf)
        return NULL;
    size_t used = (size_t)snprintf(buf, len, "t,gamma");
    used = append_columns(buf, len, used, "q", n);
    used = append_columns(buf, len, used, "v", n);
    used = append_columns(buf, len, used, "G", m);
    append_columns(buf, len, used, impulses ? "impulse" : "force", m);
    return buf;
}

int pl_header_matches(const char *line, const char *header)
{
    for (;;) {
        size_t a = strcspn(line, ","), b = strcspn(header, ",");
        int same = a == b && memcmp(line, header, a) == 0;
        if (!same && b >= 5 && strncmp(header, "force", 5) == 0 && a == b + 1 && strncmp(line, "lambda", 6) == 0)
            same = memcmp(line + 6, header + 5, b - 5) == 0;
        if (!same)
            return 0;
        line += a, header += b;
        if (!*line || !*header)
            return !*line && !*header;
        line++, header++;
    }
}

json_t *pl_parameters_json(const pl_model *model)
{
    json_t *o = json_object();
    for (size_t k = 0; k < model->type->nparams; k++)
        if (pl_model_parameter_applies(model, k))
            PL_JSON_SET(o, model->type->params[k].name, pl_json_number(model->par[k]));
    return o;
}

json_t *pl_summary_header_json(const pl_model *model, pl_status status, const char *error)
{
    json_t *o = json_object();
    PL_JSON_SET(o, "case", json_string(model->type->name));
    PL_JSON_SET(o, "status", json_string(status == PL_OK ? "ok" : "failed"));
    if (status != PL_OK)
        PL_JSON_SET(o, "error", json_string(error));
    PL_JSON_SET(o, "parameters", pl_parameters_json(model));
    PL_JSON_SET(o, "law", json_string(model->law_type->name));
    PL_JSON_SET(o, "law_parameters", pl_law_parameters_json(model));
    PL_JSON_SET(o, "contact_law", pl_contact_law_json(model));
    return o;
}

json_t *pl_law_parameters_json(const pl_model *model)
{
    json_t *o = json_object();
    for (size_t k = 0; k < model->law_type->nparams; k++)
        PL_JSON_SET(o, model->law_type->params[k].name, pl_json_number(model->law_par[k]));
    return o;
}

/* From this many constraints, consecutive constraints under the same law with the same parameters are
 * one object, `constraints`: [first, last]: one object per constraint made the summary quadratic in
 * the bodies (25 MB of the 39 MB of a box of 800 disks, 2 million objects at 2000).  Below it, one
 * object per constraint (`constraint`), as small models always wrote. */
#define CONTACT_LAW_RUNS_FROM 100

static int same_law(const pl_contact_law *a, const pl_contact_law *b)
{
    if (a->type != b->type)
        return 0;
    for (size_t k = 0; k < a->type->nparams; k++)
        if (memcmp(&a->p[k], &b->p[k], sizeof a->p[k]) != 0) /* the values written, to the bit */
            return 0;
    return 1;
}

json_t *pl_contact_law_json(const pl_model *model)
{
    json_t *a = json_array();
    int runs = model->m >= CONTACT_LAW_RUNS_FROM;
    for (size_t i = 0; i < model->m;) {
        const pl_contact_law *law = &model->law[i];
        size_t last = i;
        while (runs && last + 1 < model->m && same_law(law, &model->law[last + 1]))
            last++;
        json_t *o = runs ? json_pack("{s:[I, I], s:s}", "constraints", (json_int_t)(i + 1), (json_int_t)(last + 1),
                                     "law", law->type->name)
                         : json_pack("{s:I, s:s}", "constraint", (json_int_t)(i + 1), "law", law->type->name);
        for (size_t k = 0; o && k < law->type->nparams; k++)
            PL_JSON_SET(o, law->type->params[k].name, pl_json_number(law->p[k]));
        PL_JSON_APPEND(a, o);
        i = last + 1;
    }
    return a;
}

json_t *pl_episode_json(const pl_episode *ep, const pl_episode_info *info, size_t n)
{
    json_t *o = json_object();
    PL_JSON_SET(o, "constraint", json_integer((json_int_t)ep->constraint + 1));
    if (info)
        PL_JSON_SET(o, "kind", json_string(pl_episode_kind_name(info->kind)));
    PL_JSON_SET(o, "t_in", pl_json_number(ep->t_in));
    PL_JSON_SET(o, "t_out", pl_json_number(ep->t_out));
    PL_JSON_SET(o, "t_in_resolution", pl_json_number(ep->t_in_resolution));
    PL_JSON_SET(o, "t_out_resolution", pl_json_number(ep->t_out_resolution));
    PL_JSON_SET(o, "gdot_in", pl_json_number(ep->gdot_in));
    PL_JSON_SET(o, "gdot_out", pl_json_number(ep->gdot_out));
    PL_JSON_SET(o, "restitution", pl_json_number(info ? info->restitution : pl_episode_restitution(ep)));
    PL_JSON_SET(o, "max_penetration", pl_json_number(ep->max_penetration));
    PL_JSON_SET(o, "t_max_penetration", pl_json_number(ep->t_max_penetration));
    PL_JSON_SET(o, "delta_gamma", pl_json_number(ep->gamma_out - ep->gamma_in));
    PL_JSON_SET(o, "impulse", pl_json_number(ep->impulse));
    /* what reading the run back (a resumed sweep) needs to rebuild the episode exactly */
    PL_JSON_SET(o, "gamma_in", pl_json_number(ep->gamma_in));
    PL_JSON_SET(o, "gamma_out", pl_json_number(ep->gamma_out));
    PL_JSON_SET(o, "row_in", json_integer((json_int_t)ep->row_in));
    PL_JSON_SET(o, "row_out", json_integer((json_int_t)ep->row_out));
    PL_JSON_SET(o, "steps", json_integer((json_int_t)ep->steps));
    if (!info)
        return o;
    PL_JSON_SET(o, "duration", pl_json_number(info->duration));
    if (info->dv_dofs) { /* over its constraint's support (pl_analysis_sparse_jumps) */
        json_t *dofs = json_array();
        for (size_t e = 0; e < info->ndv; e++)
            PL_JSON_APPEND(dofs, json_integer((json_int_t)info->dv_dofs[e] + 1));
        PL_JSON_SET(o, "velocity_jump_dofs", dofs);
    }
    PL_JSON_SET(o, "velocity_jump", pl_json_array(info->dv, info->dv_dofs ? info->ndv : n));
    PL_JSON_SET(o, "velocity_jump_normal", pl_json_number(info->dv_normal));
    PL_JSON_SET(o, "scaled_penetration", pl_json_number(info->scaled_penetration));
    if (info->kind == PL_SUSTAINED) {
        PL_JSON_SET(o, "sliding_force_error", pl_json_number(info->force_error));
        PL_JSON_SET(o, "sliding_force_scale", pl_json_number(info->force_scale));
        double window[2] = {info->window_start, info->window_end};
        PL_JSON_SET(o, "sliding_window", isnan(window[0]) ? json_null() : pl_json_array(window, 2));
        PL_JSON_SET(o, "sliding_load_varies", isnan(info->window_start) ? json_null()
                                              : json_boolean(info->load_varies));
        PL_JSON_SET(o, "lift_off", pl_json_number(ep->t_out));
        PL_JSON_SET(o, "lift_off_predicted", pl_json_number(info->lift_off_predicted));
    }
    return o;
}

/* Run-level limit objects: first impact, sliding, Zeno sequence and capture. */
static json_t *analysis_json(const pl_analysis *a)
{
    json_t *impacts = json_array();
    for (size_t k = 0; k < a->impacts; k++) {
        const pl_event *e = &a->impact[k].event;
        PL_JSON_APPEND(impacts, json_pack("[o, o, o]", pl_json_number(e->t), pl_json_number(e->gdot_before),
                                                 pl_json_number(e->gdot_after)));
    }
    json_t *zeno = json_object();
    PL_JSON_SET(zeno, "impacts", impacts);
    PL_JSON_SET(zeno, "impacts_columns", json_pack("[s, s, s]", "t_in", "gdot_in", "gdot_out"));
    PL_JSON_SET(zeno, "capture_time", pl_json_number(a->capture_time));
    PL_JSON_SET(zeno, "capture_note", a->capture_note ? json_string(a->capture_note) : json_null());
    PL_JSON_SET(zeno, "capture_time_resolution", pl_json_number(a->capture_time_resolution));
    PL_JSON_SET(zeno, "impacts_before_capture", json_integer((json_int_t)a->impacts_before_capture));
    PL_JSON_SET(zeno, "contraction_ratio", pl_json_number(a->contraction_ratio));
    PL_JSON_SET(zeno, "contraction_ratio_se", pl_json_number(a->contraction_ratio_se));
    PL_JSON_SET(zeno, "accumulation_time", pl_json_number(a->accumulation_time));
    PL_JSON_SET(zeno, "flights_fitted", json_integer((json_int_t)a->fit_flights));
    json_t *o = json_object();
    PL_JSON_SET(o, "impacts", json_integer((json_int_t)a->impacts));
    PL_JSON_SET(o, "touches_unresolved", json_integer((json_int_t)a->touches_unresolved));
    PL_JSON_SET(o, "first_impact_time", pl_json_number(a->first_impact_time));
    PL_JSON_SET(o, "first_impact_time_resolution", pl_json_number(a->first_impact_time_resolution));
    PL_JSON_SET(o, "restitution_first", pl_json_number(a->restitution_first));
    PL_JSON_SET(o, "scaled_penetration_first", pl_json_number(a->scaled_penetration_first));
    PL_JSON_SET(o, "lift_off_first", pl_json_number(a->lift_off_first));
    PL_JSON_SET(o, "lift_off_first_resolution", pl_json_number(a->lift_off_first_resolution));
    PL_JSON_SET(o, "lift_off_predicted_first", pl_json_number(a->lift_off_predicted_first));
    PL_JSON_SET(o, "sliding_force_error", pl_json_number(a->sliding_force_error));
    PL_JSON_SET(o, "sliding_force_scale", pl_json_number(a->sliding_force_scale));
    PL_JSON_SET(o, "zeno", zeno);
    return o;
}

/* What the work per step is made of, for studies of the cost against the number of bodies: the gaps
 * evaluated, the neighbour list's rebuilds, the state's size (a penalized run's at its end, the
 * limit solution's largest fast system of an impact). */
static void set_scaling_counters(json_t *o, const pl_stats *s)
{
    PL_JSON_SET(o, "gap_evals", json_integer((json_int_t)s->gap_evals));
    PL_JSON_SET(o, "neighbour_rebuilds", json_integer((json_int_t)s->neighbour_rebuilds));
    PL_JSON_SET(o, "state_size", json_integer((json_int_t)s->state_size));
}

/* The counters that apply to the solver's family. */
static json_t *stats_json(const pl_solution *sol)
{
    const pl_stats *s = &sol->stats;
    json_t *o = json_object();
    PL_JSON_SET(o, "steps", json_integer((json_int_t)s->steps));
    PL_JSON_SET(o, "rhs_evals", json_integer((json_int_t)s->rhs_evals));
    switch (sol->solver->family) {
    case PL_FAMILY_PENALTY:
        PL_JSON_SET(o, "jac_evals", json_integer((json_int_t)s->jac_evals));
        PL_JSON_SET(o, "root_evals", json_integer((json_int_t)s->root_evals));
        PL_JSON_SET(o, "error_test_fails", json_integer((json_int_t)s->error_test_fails));
        PL_JSON_SET(o, "nonlin_conv_fails", json_integer((json_int_t)s->nonlin_conv_fails));
        PL_JSON_SET(o, "restarts", json_integer((json_int_t)s->restarts));
        PL_JSON_SET(o, "recovered_crossings", json_integer((json_int_t)s->recovered_crossings));
        set_scaling_counters(o, s);
        break;
    case PL_FAMILY_LIMIT:
        PL_JSON_SET(o, "restarts", json_integer((json_int_t)s->restarts));
        PL_JSON_SET(o, "fast_steps", json_integer((json_int_t)s->fast_steps));
        set_scaling_counters(o, s);
        break;
    case PL_FAMILY_SCHEME:
        PL_JSON_SET(o, "lcp_solves", json_integer((json_int_t)s->lcp_solves));
        PL_JSON_SET(o, "lcp_iterations", json_integer((json_int_t)s->lcp_iterations));
        break;
    case PL_FAMILY_EXTERNAL: break; /* read from a file: no counters */
    }
    PL_JSON_SET(o, "wall_seconds", pl_json_number(s->wall_seconds));
    return o;
}

static json_t *event_json(const pl_solution *res, const pl_event *e)
{
    json_t *o = json_object();
    PL_JSON_SET(o, "kind", json_string(pl_event_kind_name(e->kind)));
    PL_JSON_SET(o, "t", pl_json_number(e->t));
    PL_JSON_SET(o, "t_resolution", pl_json_number(e->t_resolution));
    PL_JSON_SET(o, "constraint", json_integer((json_int_t)e->constraint + 1));
    PL_JSON_SET(o, "q", pl_json_array(e->q, res->n));
    PL_JSON_SET(o, "v_before", pl_json_array(e->v_before, res->n));
    PL_JSON_SET(o, "v_after", pl_json_array(e->v_after, res->n));
    PL_JSON_SET(o, "gdot_before", pl_json_number(e->gdot_before));
    PL_JSON_SET(o, "gdot_after", pl_json_number(e->gdot_after));
    PL_JSON_SET(o, "gamma_before", pl_json_number(e->gamma_before));
    PL_JSON_SET(o, "gamma_after", pl_json_number(e->gamma_after));
    if (e->kind == PL_EVENT_IMPACT) {
        json_t *parts = json_array();
        for (size_t i = 0; i < res->m; i++)
            if (e->participants[i])
                PL_JSON_APPEND(parts, json_integer((json_int_t)i + 1));
        PL_JSON_SET(o, "constraints", parts);
        PL_JSON_SET(o, "restitution", pl_json_number(-e->gdot_after / e->gdot_before));
        PL_JSON_SET(o, "delta_gamma", pl_json_number(e->gamma_after - e->gamma_before));
        PL_JSON_SET(o, "impulse", pl_json_array(e->impulse, res->m));
        if (!isnan(e->s_exit))
            PL_JSON_SET(o, "fast_exit_time", pl_json_number(e->s_exit));
    }
    return o;
}

json_t *pl_solution_summary_json(const pl_model *model, const pl_solution *sol, const pl_analysis *analysis)
{
    if (analysis && !analysis->info) /* freed whole when it ran out of memory: there is none */
        analysis = NULL;
    json_t *o = pl_summary_header_json(model, sol->status, sol->error.message);
    const pl_solver_type *s = sol->solver;
    PL_JSON_SET(o, "solution", json_string(s->name));
    PL_JSON_SET(o, "family", json_string(pl_solver_family_name(s->family)));
    for (size_t k = 0; k < s->noptions; k++)
        PL_JSON_SET(o, s->options[k].name, pl_json_number(sol->option[k]));
    if (pl_solver_can(s, PL_SOLVER_FIXED_STEP)) /* h itself when it divides t_end */
        PL_JSON_SET(o, "h_used", pl_json_number(sol->step_size));
    PL_JSON_SET(o, "t_end", pl_json_number(sol->t_end));
    PL_JSON_SET(o, "samples", sol->samples == SIZE_MAX ? json_null() : json_integer((json_int_t)sol->samples));
    PL_JSON_SET(o, "contacts", json_string(pl_contacts_name(sol->contacts)));
    PL_JSON_SET(o, "stats", stats_json(sol));
    if (pl_solver_can(s, PL_SOLVER_EPISODES)) {
        json_t *eps = json_array();
        for (size_t k = 0; k < sol->nepisodes; k++)
            PL_JSON_APPEND(eps, pl_episode_json(&sol->episodes[k], analysis ? &analysis->info[k] : NULL, sol->n));
        PL_JSON_SET(o, "episodes", eps);
    }
    if (pl_solver_can(s, PL_SOLVER_EVENTS)) {
        size_t counts[PL_EVENT_KINDS] = {0};
        json_t *events = json_array();
        for (size_t k = 0; k < sol->nevents; k++) {
            counts[sol->events[k].kind]++;
            PL_JSON_APPEND(events, event_json(sol, &sol->events[k]));
        }
        json_t *c = json_object();
        for (int k = 0; k < PL_EVENT_KINDS; k++)
            PL_JSON_SET(c, pl_event_kind_name((pl_event_kind)k), json_integer((json_int_t)counts[k]));
        PL_JSON_SET(o, "event_counts", c);
        PL_JSON_SET(o, "events", events);
    }
    if (pl_solver_can(s, PL_SOLVER_ZENO)) {
        const pl_zeno_point *zp = &sol->zeno;
        json_t *z = json_null();
        if (zp->found) {
            z = json_object();
            PL_JSON_SET(z, "t_accumulation", pl_json_number(zp->t_accumulation));
            PL_JSON_SET(z, "constraint", json_integer((json_int_t)zp->constraint + 1));
            PL_JSON_SET(z, "impacts_resolved", json_integer((json_int_t)zp->impacts_resolved));
            PL_JSON_SET(z, "contraction_ratio", pl_json_number(zp->ratio));
            PL_JSON_SET(z, "state", json_pack("{s:o, s:o}", "q", pl_json_array(zp->q, sol->n), "v",
                                                      pl_json_array(zp->v, sol->n)));
        }
        PL_JSON_SET(o, "zeno", z);
        const pl_bounce_tail *bt = &sol->tail;
        json_t *tail = json_null();
        if (bt->found) {
            tail = json_object();
            PL_JSON_SET(tail, "constraint", json_integer((json_int_t)bt->constraint + 1));
            PL_JSON_SET(tail, "t_start", pl_json_number(bt->t_start));
            PL_JSON_SET(tail, "x_start", pl_json_number(bt->x_start));
            PL_JSON_SET(tail, "impacts", pl_json_number(bt->impacts));
            PL_JSON_SET(tail, "t_last", pl_json_number(bt->t_last));
            PL_JSON_SET(tail, "speed_last", pl_json_number(bt->speed_last));
            PL_JSON_SET(tail, "time_error", pl_json_number(bt->time_error));
            PL_JSON_SET(tail, "speed_error", pl_json_number(bt->speed_error));
        }
        PL_JSON_SET(o, "bounce_tail", tail);
        PL_JSON_SET(o, "zeno_note",
                    pl_laws_bounces_accumulate(model->law, model->m)
                        ? json_null()
                        : json_string("the law's impacts never accumulate (elastic, or 1 - e ~ c V: the flights sum "
                                      "like a harmonic series): no Zeno point exists, none is extrapolated"));
    }
    if (analysis)
        PL_JSON_SET(o, "analysis", analysis_json(analysis));
    PL_JSON_SET(o, "final", json_pack("{s:o, s:o, s:o, s:o}",
                                              "t", pl_json_number(sol->t_final),
                                              "gamma", pl_json_number(sol->gamma_final),
                                              "q", pl_json_array(sol->q_final, sol->n),
                                              "v", pl_json_array(sol->v_final, sol->n)));
    return o;
}

/* The budget is read every CONTACTS_CHECK_LINES lines of contacts.csv. */
#define CONTACTS_CHECK_LINES 1024

char *pl_contacts_header(int impulses)
{
    const char *header = impulses ? "row,t,constraint,G,impulse" : "row,t,constraint,G,force";
    char *copy = malloc(strlen(header) + 1);
    return copy ? strcpy(copy, header) : NULL;
}

/* The decimal digits of x ending just before end; returns where they start. */
static char *decimal_before(char *end, size_t x)
{
    do {
        *--end = (char)('0' + x % 10);
        x /= 10;
    } while (x > 0);
    return end;
}

/* contacts.csv of a solution with sparse contacts: one line per (row, constraint in contact); rows
 * counted from 0 as the episodes' row_in and row_out are.  A row's index and time are formatted once
 * for all its contacts, and the line is put whole (fprintf per index and pl_put_number per value were
 * most of writing the contacts of 1000 balls at rest): the characters of pl_put_number's. */
static pl_status write_contacts(pl_output *out, const char *sub, const pl_solution *sol, const pl_budget *budget,
                                pl_error *err)
{
    char *header = pl_contacts_header(pl_solver_can(sol->solver, PL_SOLVER_STEP_IMPULSES));
    if (!header)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory writing contacts");
    pl_file f;
    pl_status s = pl_file_open(&f, out, sub, "contacts.csv", err);
    if (s != PL_OK) {
        free(header);
        return s;
    }
    fprintf(f.fp, "%s\n", header);
    free(header);
    size_t lines = 0;
    /* a line: row, t, constraint (20 digits each at most), G, force, the commas and the newline */
    char prefix[2 * 24 + PL_NUMBER_LEN], line[sizeof prefix + 24 + 2 * PL_NUMBER_LEN + 4], digits[24];
    for (size_t r = 0; r < sol->traj.nrows; r++) {
        const pl_contact_entry *e;
        size_t count = pl_solution_row_contacts(sol, r, &e);
        if (count == 0)
            continue;
        double t = pl_table_row(&sol->traj, r)[0];
        f.infinite |= isinf(t);
        char *d = decimal_before(digits + sizeof digits, r);
        size_t plen = (size_t)(digits + sizeof digits - d);
        memcpy(prefix, d, plen);
        prefix[plen++] = ',';
        plen += pl_format_double_length(t, prefix + plen, sizeof prefix - plen);
        prefix[plen++] = ',';
        for (size_t k = 0; k < count; k++) {
            size_t used = plen;
            memcpy(line, prefix, plen);
            d = decimal_before(digits + sizeof digits, e[k].constraint + 1);
            memcpy(line + used, d, (size_t)(digits + sizeof digits - d));
            used += (size_t)(digits + sizeof digits - d);
            line[used++] = ',';
            f.infinite |= isinf(e[k].g) || isinf(e[k].force);
            used += pl_format_double_length(e[k].g, line + used, sizeof line - used);
            line[used++] = ',';
            used += pl_format_double_length(e[k].force, line + used, sizeof line - used);
            line[used++] = '\n';
            fwrite(line, 1, used, f.fp);
            if (++lines % CONTACTS_CHECK_LINES == 0 && pl_budget_spent(budget)) {
                pl_file_abort(&f);
                return pl_fail(err, PL_ERR_SOLVER, PL_BUDGET_STOPPED " writing %s (%zu of its %zu contacts written): "
                               "the file is not written", budget->max_seconds, f.path, lines, sol->nentries);
            }
        }
    }
    return pl_file_commit(&f, err);
}

/* The numbers x[0 .. count), each after a comma, into line; *infinite if one is.  Returns the length. */
static size_t format_numbers(const double *x, size_t count, char *line, int *infinite)
{
    size_t used = 0;
    for (size_t c = 0; c < count; c++) {
        line[used++] = ',';
        *infinite |= isinf(x[c]);
        used += pl_format_double_length(x[c], line + used, PL_NUMBER_LEN);
    }
    return used;
}

/* The budget is read every TRAJECTORY_CHECK_VALUES numbers (a row at least), as pl_write_csv_within
 * does. */
#define TRAJECTORY_CHECK_VALUES 4096

/* trajectory.csv (t, gamma, q, v and the rest of the table's columns) and trajectory_s.csv (s = gamma,
 * t, q, v) written together, row by row: q and v, most of both files, formatted once for the two.
 * The characters of pl_write_csv_within's. */
static pl_status write_trajectory_pair(pl_output *out, const char *sub, const char *header, const char *header_s,
                                       const pl_table *traj, size_t n, const pl_budget *budget, pl_error *err)
{
    pl_file f, fs;
    pl_status s = pl_file_open(&f, out, sub, "trajectory.csv", err);
    if (s != PL_OK)
        return s;
    s = pl_file_open(&fs, out, sub, "trajectory_s.csv", err);
    if (s != PL_OK) {
        pl_file_abort(&f);
        return s;
    }
    fprintf(f.fp, "%s\n", header);
    fprintf(fs.fp, "%s\n", header_s);
    size_t rest = traj->ncol - 2 - 2 * n; /* the columns after v (G and forces when dense, impulses) */
    char time[2][PL_NUMBER_LEN], *state = malloc((2 * n + rest + 1) * (PL_NUMBER_LEN + 1) + 1);
    if (!state) {
        pl_file_abort(&f);
        pl_file_abort(&fs);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory writing a trajectory");
    }
    size_t pending = 0;
    for (size_t r = 0; r < traj->nrows; r++) {
        const double *row = pl_table_row(traj, r);
        int infinite = 0;
        for (int k = 0; k < 2; k++) {
            infinite |= isinf(row[k]);
            pl_format_double(row[k], time[k], sizeof time[k]);
        }
        size_t qv = format_numbers(row + 2, 2 * n, state, &infinite);
        f.infinite |= infinite;
        fs.infinite |= infinite;
        size_t all = qv + format_numbers(row + 2 + 2 * n, rest, state + qv, &f.infinite);
        state[all] = '\n';
        fprintf(f.fp, "%s,%s", time[0], time[1]);
        fwrite(state, 1, all + 1, f.fp);
        fprintf(fs.fp, "%s,%s", time[1], time[0]);
        fwrite(state, 1, qv, fs.fp);
        fputc('\n', fs.fp);
        if ((pending += traj->ncol) >= TRAJECTORY_CHECK_VALUES) {
            pending = 0;
            if (pl_budget_spent(budget)) {
                free(state);
                pl_file_abort(&f);
                pl_file_abort(&fs);
                return pl_fail(err, PL_ERR_SOLVER, PL_BUDGET_STOPPED " writing %s (%zu of its %zu rows written): "
                               "the file is not written", budget->max_seconds, f.path, r + 1, traj->nrows);
            }
        }
    }
    free(state);
    s = pl_file_commit(&f, err);
    if (s == PL_OK)
        return pl_file_commit(&fs, err);
    pl_file_abort(&fs);
    return s;
}

pl_status pl_write_trajectories(pl_output *out, const char *sub, const pl_solution *sol, const pl_budget *budget,
                                pl_error *err)
{
    size_t n = sol->n, m = sol->m, m_cols = sol->contacts == PL_CONTACTS_DENSE ? m : 0;
    char *header = pl_trajectory_header(n, m_cols, pl_solver_can(sol->solver, PL_SOLVER_STEP_IMPULSES));
    size_t len = header_length(2 * n);
    char *header_s = malloc(len);
    if (!header || !header_s) {
        free(header);
        free(header_s);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory writing a trajectory");
    }
    /* the same rows in the time s: s, t, q, v */
    size_t used = (size_t)snprintf(header_s, len, "s,t");
    used = append_columns(header_s, len, used, "q", n);
    append_columns(header_s, len, used, "v", n);
    pl_status s = write_trajectory_pair(out, sub, header, header_s, &sol->traj, n, budget, err);
    free(header);
    free(header_s);
    if (s == PL_OK && sol->contacts == PL_CONTACTS_SPARSE)
        s = write_contacts(out, sub, sol, budget, err);
    return s;
}

pl_status pl_write_solution(pl_output *out, const char *sub, const pl_model *model, const pl_solution *sol,
                            const pl_analysis *analysis, const pl_budget *budget, pl_error *err)
{
    pl_status s = pl_write_trajectories(out, sub, sol, budget, err);
    if (s != PL_OK)
        return s;
    if (pl_budget_spent(budget)) { /* the summary's tree is built whole before a byte of it is written */
        char path[PATH_MAX];
        pl_error e;
        if (pl_output_path(out, sub, "summary.json", path, sizeof path, &e) != PL_OK)
            snprintf(path, sizeof path, "summary.json");
        return pl_fail(err, PL_ERR_SOLVER, PL_BUDGET_STOPPED " before writing %s: the file is not written",
                       budget->max_seconds, path);
    }
    return pl_write_json_within(out, sub, "summary.json", pl_solution_summary_json(model, sol, analysis), budget,
                                err);
}

json_t *pl_impact_match_json(const pl_impact_match *m, const pl_limit_distance *d)
{
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "limit_impacts",
                     (json_int_t)m->nlimit, "matched", (json_int_t)m->count[PL_MATCH_PAIRED], "missing",
                     (json_int_t)m->count[PL_MATCH_MISSING], "absorbed", (json_int_t)m->count[PL_MATCH_ABSORBED],
                     "excluded", (json_int_t)pl_impact_match_excluded(m), "ambiguous",
                     (json_int_t)m->count[PL_MATCH_AMBIGUOUS], "grazing", (json_int_t)m->count[PL_MATCH_GRAZING],
                     "beyond_end", (json_int_t)m->count[PL_MATCH_BEYOND], "run_impacts", (json_int_t)m->nrun, "extra",
                     (json_int_t)m->run_count[PL_RUN_EXTRA], "companions", (json_int_t)m->run_count[PL_RUN_COMPANION],
                     "run_excluded", (json_int_t)m->run_count[PL_RUN_EXCLUDED],
                     "compared", (json_int_t)d->impacts_compared);
}
