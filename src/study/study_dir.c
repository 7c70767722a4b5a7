#include "study/study_dir.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "io/outdir.h"
#include "io/report.h"
#include "study/compare_run.h"

const char *const pl_study_task_files[PL_STUDY_TASK_FILES] = {"trajectory.csv", "trajectory_s.csv", "summary.json",
                                                              "contacts.csv"};

pl_status pl_study_plan_task_files(const pl_study *st, size_t task, pl_strings *planned, pl_error *err)
{
    char sub[64], rel[96];
    pl_study_task_dir(st, task, sub, sizeof sub);
    pl_status s = PL_OK;
    for (size_t j = 0; s == PL_OK && j < PL_STUDY_TASK_FILES; j++) {
        snprintf(rel, sizeof rel, "%s/%s", sub, pl_study_task_files[j]);
        s = pl_strings_add(planned, rel, err);
    }
    return s;
}

static json_t *settings_json(const pl_setting *s, size_t n)
{
    json_t *a = json_array();
    for (size_t k = 0; k < n; k++) {
        json_t *o = json_object();
        PL_JSON_SET(o, "name", json_string(s[k].name));
        PL_JSON_SET(o, "value", pl_json_number(s[k].value));
        PL_JSON_APPEND(a, o);
    }
    return a;
}

json_t *pl_study_identity(const pl_study_spec *sp)
{
    json_t *o = json_object(), *grids = json_array();
    for (size_t k = 0; k < sp->ngrids; k++)
        PL_JSON_APPEND(grids, json_string(sp->grids[k]));
    PL_JSON_SET(o, "grids", grids);
    PL_JSON_SET(o, "zip", json_boolean(sp->zip));
    PL_JSON_SET(o, "case", json_string(sp->c->name));
    PL_JSON_SET(o, "law", json_string(sp->law ? sp->law->name : pl_law_type_default()->name));
    PL_JSON_SET(o, "solver", json_string(sp->solver->name));
    PL_JSON_SET(o, "settings", settings_json(sp->settings, sp->nsettings));
    PL_JSON_SET(o, "options", settings_json(sp->options, sp->noptions));
    PL_JSON_SET(o, "t_end", pl_json_number(sp->t_end));
    PL_JSON_SET(o, "samples", sp->samples == SIZE_MAX ? json_null() : json_integer((json_int_t)sp->samples));
    PL_JSON_SET(o, "max_steps", json_integer(sp->max_steps));
    PL_JSON_SET(o, "max_output", pl_json_number(sp->max_output));
    PL_JSON_SET(o, "contacts", json_integer(sp->contacts));
    return o;
}

json_t *pl_study_figures_json(const pl_study_plot_opts *figures)
{
    const char *map = figures ? figures->map : NULL;
    int axes_given = figures && figures->map_axes[0] && figures->map_axes[1];
    json_t *f = json_object();
    PL_JSON_SET(f, "quantities", json_null());
    PL_JSON_SET(f, "map", map ? json_string(map) : json_null());
    json_t *axes = axes_given ? json_array() : json_null();
    for (int k = 0; axes_given && k < 2; k++)
        PL_JSON_APPEND(axes, json_string(figures->map_axes[k]));
    PL_JSON_SET(f, "map_axes", axes);
    return f;
}

json_t *pl_study_manifest(const pl_study *st, const pl_study_plot_opts *figures, const char *file, const char *hash,
                          pl_error *err)
{
    pl_model model;
    memset(&model, 0, sizeof model);
    pl_solve_opts base;
    json_t *m = NULL;
    if (pl_study_base(st, &model, &base, err) == PL_OK) {
        m = pl_manifest_new("study", &model, st->solver, &base, NULL);
        m = m ? pl_manifest_model_identity(m, &model, file, hash) : NULL;
        if (m) {
            PL_JSON_SET(m, "study", pl_study_identity(&st->spec));
            PL_JSON_SET(m, "figures", pl_study_figures_json(figures));
        }
        if (!m)
            pl_fail(err, PL_ERR_NOMEM, "out of memory");
    }
    pl_model_free(&model);
    return m;
}
