#include "io/compare_report.h"
#include "io/compare_plots.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/number.h"
#include "io/output.h"
#include "io/plot_config.h"
#include "io/plots.h"
#include "io/report.h"
#include "solvers/solver.h"

/* One word of [A-Za-z0-9._+=-]: labels go into gnuplot's word lists. */
static void sanitize(char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || strchr("._+=-", *s)))
            *s = '_';
}

void pl_compare_entry_name(pl_compare_entry *e, size_t k)
{
    const char *name = e->sol->solver->name;
    if (e->sol->solver->family == PL_FAMILY_EXTERNAL) {
        const char *base = strrchr(e->file, '/');
        base = base && base[1] ? base + 1 : e->file;
        snprintf(e->dir, sizeof e->dir, "solutions/%02zu_external", k + 1);
        snprintf(e->label, sizeof e->label, "external:%.80s", base);
    } else {
        /* named as a run directory (SOLVER_PARAM_VALUE, the value as few digits as read back exactly) */
        char num[PL_NUMBER_LEN];
        snprintf(e->dir, sizeof e->dir, "solutions/%02zu_%s_%s_%s", k + 1, name, e->param_name,
                 pl_format_short(e->param, num, sizeof num));
        char value[64];
        pl_plot_label(e->param_name, e->param, value, sizeof value); /* mu and h read as in every figure */
        snprintf(e->label, sizeof e->label, "%s:%s", name, value);
    }
    sanitize(e->label);
    sanitize(e->dir + strlen("solutions/"));
}

static const char *const plot_names[] = {"compare_trajectories", "compare_trajectories_s", "compare_work"};
#define NPLOTS (sizeof plot_names / sizeof plot_names[0])

pl_status pl_compare_files(const pl_compare_entry *e, size_t n, int plots, pl_strings *files, pl_error *err)
{
    static const char *const run_files[] = {"trajectory.csv", "trajectory_s.csv", "summary.json", "contacts.csv"};
    static const char *const top[] = {"compare.csv", "compare.json", "compare_config.gp", "compare_work.csv",
                                      "compare_deviation.csv"};
    char path[PATH_MAX];
    pl_status s = PL_OK;
    for (size_t j = 0; s == PL_OK && j < 4; j++) {
        snprintf(path, sizeof path, "limit/%s", run_files[j]);
        s = pl_strings_add(files, path, err);
    }
    for (size_t k = 0; k < n; k++)
        for (size_t j = 0; s == PL_OK && j < 4; j++) {
            snprintf(path, sizeof path, "%s/%s", e[k].dir, run_files[j]);
            s = pl_strings_add(files, path, err);
        }
    for (size_t j = 0; s == PL_OK && j < sizeof top / sizeof top[0]; j++)
        s = pl_strings_add(files, top[j], err);
    for (size_t j = 0; s == PL_OK && plots && j < NPLOTS; j++)
        s = pl_plot_files(plot_names[j], files, err);
    if (s == PL_OK && plots)
        s = pl_plot_common_files(files, err);
    return s;
}

/* ---- compare.csv and compare.json --------------------------------------------------------------- */

typedef struct {
    const char *name;
    double value;
} field;

/* The numbers of a row, in the order of the CSV header after its text columns: the distances, the
 * impact counts, the cost. */
enum {
    F_SUP_Q,
    F_SUP_Q_OUTSIDE,
    F_L1_V,
    F_S_DISTANCE_Q,
    F_S_DISTANCE_V,
    F_MATCHED,
    F_MISSING,
    F_ABSORBED,
    F_EXCLUDED,
    F_EXTRA,
    F_COMPARED,
    F_IMPACT_TIME,
    F_IMPACT_VELOCITY,
    F_CAPTURE_TIME,
    F_CAPTURE_ERROR,
    F_LIFT_OFF,
    F_LIFT_OFF_ERROR,
    F_FINAL_Q,
    F_FINAL_V,
    F_STEPS, /* the cost from here on */
    F_RHS_EVALS,
    F_LCP_SOLVES,
    F_WALL_SECONDS,
    NFIELDS
};

static int is_count(size_t j)
{
    return j >= F_MATCHED && j <= F_COMPARED;
}

static void row_fields(const pl_compare_entry *e, field *f)
{
    const pl_compare_result *r = &e->res;
    const pl_stats *st = &e->sol->stats;
    int c = e->compared, ext = e->sol->solver->family == PL_FAMILY_EXTERNAL;
    int scheme = e->sol->solver->family == PL_FAMILY_SCHEME;
    const field all[NFIELDS] = {
        [F_SUP_Q] = {"sup_q", c ? r->d.sup_q : NAN},
        [F_SUP_Q_OUTSIDE] = {"sup_q_outside_zeno", c ? r->d.sup_q_outside : NAN},
        [F_L1_V] = {"l1_v", c ? r->d.l1_v : NAN},
        [F_S_DISTANCE_Q] = {"s_distance_q", c ? r->d.s_dist_q : NAN},
        [F_S_DISTANCE_V] = {"s_distance_v", c ? r->d.s_dist_v : NAN},
        [F_MATCHED] = {"impacts_matched", c ? (double)r->d.impacts_matched : NAN},
        [F_MISSING] = {"impacts_missing", c ? (double)r->d.impacts_missing : NAN},
        [F_ABSORBED] = {"impacts_absorbed", c ? (double)r->d.impacts_absorbed : NAN},
        [F_EXCLUDED] = {"impacts_excluded", c ? (double)r->d.impacts_excluded : NAN},
        [F_EXTRA] = {"impacts_extra", c ? (double)r->d.impacts_extra : NAN},
        [F_COMPARED] = {"impacts_compared", c ? (double)r->d.impacts_compared : NAN},
        [F_IMPACT_TIME] = {"impact_time_error", c ? r->d.impact_time_error : NAN},
        [F_IMPACT_VELOCITY] = {"impact_velocity_error", c ? r->d.impact_velocity_error : NAN},
        [F_CAPTURE_TIME] = {"capture_time", c ? r->capture_time : NAN},
        [F_CAPTURE_ERROR] = {"capture_error", c ? r->capture_error : NAN},
        [F_LIFT_OFF] = {"lift_off_first", c ? r->lift_off : NAN},
        [F_LIFT_OFF_ERROR] = {"lift_off_error", c ? r->lift_off_error : NAN},
        [F_FINAL_Q] = {"final_q_error", c ? r->final_q_error : NAN},
        [F_FINAL_V] = {"final_v_error", c ? r->final_v_error : NAN},
        [F_STEPS] = {"steps", ext ? NAN : (double)st->steps},
        [F_RHS_EVALS] = {"rhs_evals", ext ? NAN : (double)st->rhs_evals},
        [F_LCP_SOLVES] = {"lcp_solves", scheme ? (double)st->lcp_solves : NAN},
        [F_WALL_SECONDS] = {"wall_seconds", ext ? NAN : st->wall_seconds},
    };
    memcpy(f, all, sizeof all);
}

/* A solution failed: its solve, or the writing of its files.  Its status and reason. */
static int entry_failed(const pl_compare_entry *e)
{
    return e->sol->status != PL_OK || e->files.status != PL_OK;
}

static const char *entry_error(const pl_compare_entry *e)
{
    return e->sol->status != PL_OK ? e->sol->error.message : e->files.message;
}

static void csv_number(pl_file *f, double x)
{
    pl_put_number(f, ",", x); /* the shortest exact form, nan where undefined */
}

static pl_status write_csv(pl_output *out, const pl_solution *limit, const pl_analysis *la, const pl_error *limit_files,
                           const pl_compare_entry *e, size_t n, pl_error *err)
{
    pl_file f;
    pl_status s = pl_file_open(&f, out, NULL, "compare.csv", err);
    if (s != PL_OK)
        return s;
    field fl[NFIELDS];
    pl_compare_entry lim = {.sol = limit, .param_name = "rtol", .param = pl_solution_option(limit, "rtol"),
                            .files = *limit_files};
    snprintf(lim.dir, sizeof lim.dir, "limit");
    row_fields(&lim, fl);
    fputs("solution,family,parameter_name,parameter,status,directory", f.fp);
    for (size_t j = 0; j < NFIELDS; j++)
        fprintf(f.fp, ",%s", fl[j].name);
    fputc('\n', f.fp);
    for (size_t k = 0; k <= n; k++) {
        /* the limit solution first: the reference (distances 0) and its cost */
        const pl_compare_entry *r = k == 0 ? &lim : &e[k - 1];
        row_fields(r, fl);
        if (k == 0) { /* the reference: its own values, distances 0 */
            for (size_t j = 0; j < F_STEPS; j++)
                fl[j].value = is_count(j) ? NAN : 0.0;
            fl[F_CAPTURE_TIME].value = la ? la->capture_time : NAN;
            fl[F_LIFT_OFF].value = la ? la->lift_off_first : NAN;
            /* an error of the reference against itself is 0 where it has the quantity, else undefined */
            if (!la || la->impacts == 0)
                fl[F_IMPACT_TIME].value = fl[F_IMPACT_VELOCITY].value = NAN;
            if (isnan(fl[F_CAPTURE_TIME].value))
                fl[F_CAPTURE_ERROR].value = NAN;
            if (isnan(fl[F_LIFT_OFF].value))
                fl[F_LIFT_OFF_ERROR].value = NAN;
        }
        fprintf(f.fp, "%s,%s,%s,", r->sol->solver->name, pl_solver_family_name(r->sol->solver->family), r->param_name);
        if (r->file)
            pl_put_text(f.fp, r->file);
        else
            pl_put_parameter(&f, "", r->param);
        fprintf(f.fp, ",%s,%s", entry_failed(r) ? "failed" : "ok", r->dir);
        for (size_t j = 0; j < NFIELDS; j++)
            csv_number(&f, fl[j].value);
        fputc('\n', f.fp);
    }
    return pl_file_commit(&f, err);
}

static json_t *entry_json(const pl_compare_entry *e)
{
    json_t *o = json_object();
    PL_JSON_SET(o, "solution", json_string(e->sol->solver->name));
    PL_JSON_SET(o, "family", json_string(pl_solver_family_name(e->sol->solver->family)));
    PL_JSON_SET(o, "parameter_name", json_string(e->param_name));
    PL_JSON_SET(o, "parameter", e->file ? json_string(e->file) : pl_json_number(e->param));
    PL_JSON_SET(o, "label", json_string(e->label));
    PL_JSON_SET(o, "status", json_string(entry_failed(e) ? "failed" : "ok"));
    if (entry_failed(e))
        PL_JSON_SET(o, "error", json_string(entry_error(e)));
    PL_JSON_SET(o, "directory", json_string(e->dir));
    field fl[NFIELDS];
    row_fields(e, fl);
    json_t *d = json_object(), *c = json_object();
    for (size_t j = 0; j < NFIELDS; j++) /* the CSV's columns by name: the counts with the distances */
        if (j < F_STEPS)
            PL_JSON_SET(d, fl[j].name, pl_json_number(fl[j].value));
        else
            PL_JSON_SET(c, fl[j].name, pl_json_number(fl[j].value));
    PL_JSON_SET(o, "distances", d);
    PL_JSON_SET(o, "impact_match", e->compared && e->match ? pl_impact_match_json(e->match, &e->res.d) : json_null());
    PL_JSON_SET(o, "cost", c);
    return o;
}

static json_t *family_json(const pl_family *f)
{
    json_t *o = json_object();
    const char *verdict = pl_family_verdict_name(f->verdict);
    PL_JSON_SET(o, "solution", json_string(f->solver->name));
    PL_JSON_SET(o, "refined", json_string(f->refined));
    PL_JSON_SET(o, "members", json_integer((json_int_t)f->n));
    PL_JSON_SET(o, f->refined, pl_json_array(f->param, f->n));
    PL_JSON_SET(o, "verdict", verdict ? json_string(verdict) : json_null());
    PL_JSON_SET(o, "reason", json_string(f->reason));
    PL_JSON_SET(o, "successive_sup_q", pl_json_array(f->successive, f->n > 0 ? f->n - 1 : 0));
    PL_JSON_SET(o, "successive_rate", pl_json_number(f->successive_conv.rate));
    PL_JSON_SET(o, "successive_rate_se", pl_json_number(f->successive_conv.rate_se));
    PL_JSON_SET(o, "own_limit_distance", pl_json_number(f->own_limit_distance));
    json_t *rates = json_object();
    for (int d = 0; d < PL_FD_COUNT; d++) {
        const pl_convergence *cv = &f->conv[d];
        char note[160];
        const char *why = pl_convergence_note(cv, note, sizeof note);
        PL_JSON_SET(rates, pl_family_distance_name((pl_family_distance)d),
                            json_pack("{s:o, s:o, s:I, s:o, s:b, s:o, s:o}", "rate", pl_json_number(cv->rate), "rate_se",
                                      pl_json_number(cv->rate_se), "points", (json_int_t)cv->points, "converges",
                                      cv->converges < 0 ? json_null() : json_boolean(cv->converges), "at_noise_floor",
                                      cv->at_floor, "noise_floor", pl_json_number(cv->floor), "rate_note",
                                      why ? json_string(why) : json_null()));
    }
    PL_JSON_SET(o, "rates", rates);
    json_t *common = json_array();
    for (size_t l = 0; l < f->nlimit_impacts; l++)
        if (f->impact_common[l])
            PL_JSON_APPEND(common, json_integer((json_int_t)(l + 1)));
    PL_JSON_SET(o, "impact_set", json_pack("{s:o, s:I}", "common", common, "size", (json_int_t)f->impact_common_size));
    return o;
}

static pl_status write_json(pl_output *out, const pl_model *model, const pl_solution *limit, const pl_analysis *la,
                            const pl_error *limit_files, const pl_compare_entry *e, size_t n, const pl_family *fam,
                            size_t nfam, const pl_budget *budget, pl_error *err)
{
    const pl_compare_entry lim = {.sol = limit, .files = *limit_files};
    json_t *root = pl_summary_header_json(model, limit->status, limit->error.message);
    json_object_del(root, "status");
    json_object_del(root, "error");
    PL_JSON_SET(root, "t_end", pl_json_number(limit->t_end));
    json_t *l = json_object();
    PL_JSON_SET(l, "status", json_string(entry_failed(&lim) ? "failed" : "ok"));
    if (entry_failed(&lim))
        PL_JSON_SET(l, "error", json_string(entry_error(&lim)));
    PL_JSON_SET(l, "directory", json_string("limit"));
    PL_JSON_SET(l, "rtol", pl_json_number(pl_solution_option(limit, "rtol")));
    PL_JSON_SET(l, "capture_time", pl_json_number(la ? la->capture_time : NAN));
    PL_JSON_SET(l, "lift_off_first", pl_json_number(la ? la->lift_off_first : NAN));
    PL_JSON_SET(l, "zeno_t_accumulation", pl_json_number(limit->zeno.found ? limit->zeno.t_accumulation : NAN));
    PL_JSON_SET(l, "cost", json_pack("{s:I, s:I, s:o}", "steps", (json_int_t)limit->stats.steps, "rhs_evals",
                                             (json_int_t)limit->stats.rhs_evals, "wall_seconds",
                                             pl_json_number(limit->stats.wall_seconds)));
    PL_JSON_SET(root, "limit", l);
    json_t *a = json_array();
    for (size_t k = 0; k < n; k++)
        PL_JSON_APPEND(a, entry_json(&e[k]));
    PL_JSON_SET(root, "solutions", a);
    json_t *families = json_array();
    for (size_t k = 0; k < nfam; k++)
        PL_JSON_APPEND(families, family_json(&fam[k]));
    PL_JSON_SET(root, "families", families);
    return pl_write_json_within(out, NULL, "compare.json", root, budget, err);
}

/* ---- plots --------------------------------------------------------------------------------------- */

static int has_cost(const field *fl)
{
    return fl[F_WALL_SECONDS].value > 0 && fl[F_RHS_EVALS].value > 0 && isfinite(fl[F_WALL_SECONDS].value) &&
           isfinite(fl[F_RHS_EVALS].value);
}

/* The distances the work-precision plot shows: those above round-off (1e-12, the built-in cases
 * having unit scales) for at least one solution with a cost: a panel of round-off says nothing, and
 * gnuplot stops at a log-scale plot without a point. */
static void work_distances(const pl_compare_entry *e, size_t n, char *buf, size_t len)
{
    static const size_t shown[] = {F_SUP_Q,         F_L1_V,  F_IMPACT_TIME, F_IMPACT_VELOCITY,
                                   F_CAPTURE_ERROR, F_FINAL_Q, F_FINAL_V};
    buf[0] = '\0';
    for (size_t j = 0; j < sizeof shown / sizeof shown[0]; j++) {
        int any = 0;
        const char *name = NULL;
        for (size_t k = 0; k < n; k++) {
            field fl[NFIELDS];
            row_fields(&e[k], fl);
            name = fl[shown[j]].name;
            any |= fl[shown[j]].value > 1e-12 && isfinite(fl[shown[j]].value) && has_cost(fl);
        }
        if (any && name) {
            strncat(buf, buf[0] ? " " : "", len - strlen(buf) - 1);
            strncat(buf, name, len - strlen(buf) - 1);
        }
    }
}

/* The solver families of the work-precision plot, in its order: penalty, each scheme, external. */
static size_t work_families(const pl_compare_entry *e, size_t n, const char **fam, size_t max)
{
    static const char *const kinds[] = {"penalty", "moreau_jean", "paoli", "maury", "external"};
    size_t nf = 0;
    for (size_t j = 0; j < sizeof kinds / sizeof kinds[0] && nf < max; j++)
        for (size_t k = 0; k < n; k++)
            if (strcmp(e[k].sol->solver->name, kinds[j]) == 0) {
                fam[nf++] = kinds[j];
                break;
            }
    return nf;
}


/* compare_work.csv: one block per (distance, family), its rows (wall_seconds, rhs_evals, distance) in
 * order of refinement so that the line joining them reads as convergence; an external file (no
 * cost) is two rows at the extreme costs of the others, its distance as a horizontal line.  A block
 * without a point holds one row of nan, so the block indices stay those the script computes. */
static pl_status write_work_data(pl_output *out, const pl_compare_entry *e, size_t n, pl_error *err)
{
    char dist[256];
    work_distances(e, n, dist, sizeof dist);
    const char *fam[8];
    size_t nf = work_families(e, n, fam, 8);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory writing compare_work.csv");
    /* refinement order: mu increasing, h decreasing (insertion sort, a few dozen entries) */
    for (size_t k = 0; k < n; k++) {
        double key = strcmp(e[k].param_name, "h") == 0 ? -e[k].param : e[k].param;
        size_t j = k;
        for (; j > 0; j--) {
            const pl_compare_entry *p = &e[order[j - 1]];
            double pk = strcmp(p->param_name, "h") == 0 ? -p->param : p->param;
            if (!(pk > key))
                break;
            order[j] = order[j - 1];
        }
        order[j] = k;
    }
    double wmin = INFINITY, wmax = 0, rmin = INFINITY, rmax = 0;
    for (size_t k = 0; k < n; k++) {
        field fl[NFIELDS];
        row_fields(&e[k], fl);
        if (e[k].compared && has_cost(fl)) {
            wmin = fmin(wmin, fl[F_WALL_SECONDS].value), wmax = fmax(wmax, fl[F_WALL_SECONDS].value);
            rmin = fmin(rmin, fl[F_RHS_EVALS].value), rmax = fmax(rmax, fl[F_RHS_EVALS].value);
        }
    }
    pl_file f;
    pl_status s = pl_file_open(&f, out, NULL, "compare_work.csv", err);
    if (s != PL_OK) {
        free(order);
        return s;
    }
    fputs("distance,family,parameter_name,parameter,wall_seconds,rhs_evals,value\n", f.fp);
    int first = 1;
    char copy[256];
    snprintf(copy, sizeof copy, "%s", dist);
    for (char *save = NULL, *d = strtok_r(copy, " ", &save); d; d = strtok_r(NULL, " ", &save))
        for (size_t j = 0; j < nf; j++) {
            if (!first)
                fputs("\n\n", f.fp);
            first = 0;
            size_t rows = 0;
            for (size_t i = 0; i < n; i++) {
                const pl_compare_entry *r = &e[order[i]];
                if (!r->compared || strcmp(r->sol->solver->name, fam[j]) != 0)
                    continue;
                field fl[NFIELDS];
                row_fields(r, fl);
                size_t c = 0;
                while (c < NFIELDS && strcmp(fl[c].name, d) != 0)
                    c++;
                double v = c < NFIELDS ? fl[c].value : NAN;
                if (!(v > 0 && isfinite(v)))
                    continue; /* no point on a log scale */
                int external = r->sol->solver->family == PL_FAMILY_EXTERNAL;
                if (external ? !(wmax > 0) : !has_cost(fl))
                    continue;
                /* an external file (no cost): its distance at the smallest and largest costs of the others,
                 * a line of its own */
                double cost[2][2] = {{wmin, rmin}, {wmax, rmax}};
                if (!external)
                    cost[0][0] = fl[F_WALL_SECONDS].value, cost[0][1] = fl[F_RHS_EVALS].value;
                else if (rows)
                    fputc('\n', f.fp);
                for (int k = 0; k < (external ? 2 : 1); k++) {
                    fprintf(f.fp, "%s,%s,%s,", d, fam[j], r->param_name);
                    if (r->file)
                        pl_put_text(f.fp, r->file);
                    else
                        pl_put_parameter(&f, "", r->param);
                    pl_put_number(&f, ",", cost[k][0]);
                    pl_put_number(&f, ",", cost[k][1]);
                    pl_put_number(&f, ",", v);
                    fputc('\n', f.fp);
                    rows++;
                }
            }
            if (rows == 0)
                fprintf(f.fp, "%s,%s,,nan,nan,nan,nan\n", d, fam[j]);
        }
    free(order);
    return pl_file_commit(&f, err);
}

/* Whether DIR/trajectory.csv and DIR/trajectory_s.csv were written. */
static int trajectories_written(const pl_output *out, const char *dir)
{
    char a[PATH_MAX], b[PATH_MAX];
    snprintf(a, sizeof a, "%s/trajectory.csv", dir);
    snprintf(b, sizeof b, "%s/trajectory_s.csv", dir);
    return pl_strings_has(&out->written, a) && pl_strings_has(&out->written, b);
}

/* Whether a solution is drawn in the trajectory figures: it has rows, and its trajectory files and
 * the limit solution's (drawn in every panel) were written. */
static int plotted(const pl_output *out, const pl_compare_entry *e)
{
    return e->sol->traj.nrows > 0 && trajectories_written(out, e->dir) && trajectories_written(out, "limit");
}

static pl_status write_config(pl_output *out, const pl_model *model, const pl_compare_entry *e, size_t n,
                              pl_error *err)
{
    pl_file f;
    pl_status s = pl_file_open(&f, out, NULL, "compare_config.gp", err);
    if (s != PL_OK)
        return s;
    fprintf(f.fp, "# Written by penlim compare: what the plot scripts of this directory read.\n");
    pl_gp_put_string(f.fp, "case_name", model->type->name);
    /* a panel per constraint from the G columns, where every solution has them (dense contacts) */
    int dense = 1;
    for (size_t k = 0; k < n; k++)
        dense &= e[k].sol->contacts == PL_CONTACTS_DENSE;
    pl_gp_put_int(f.fp, "ndof", (long)model->n);
    pl_gp_put_int(f.fp, "ncon", dense ? (long)model->m : 0);
    int first = 1;
    pl_gp_begin_words(f.fp, "dirs");
    for (size_t k = 0; k < n; k++)
        if (plotted(out, &e[k]))
            pl_gp_put_word(f.fp, e[k].dir, &first);
    pl_gp_end_words(f.fp);
    first = 1;
    pl_gp_begin_words(f.fp, "labels");
    for (size_t k = 0; k < n; k++)
        if (plotted(out, &e[k]))
            pl_gp_put_word(f.fp, e[k].label, &first);
    pl_gp_end_words(f.fp);
    fputs("# the solver families of the work-precision plot, one style each, and the distances it shows\n", f.fp);
    const char *fam[8];
    size_t nf = work_families(e, n, fam, 8);
    first = 1;
    pl_gp_begin_words(f.fp, "families");
    for (size_t j = 0; j < nf; j++)
        pl_gp_put_word(f.fp, fam[j], &first);
    pl_gp_end_words(f.fp);
    char dist[256];
    work_distances(e, n, dist, sizeof dist);
    pl_gp_put_string(f.fp, "distances", dist);
    return pl_file_commit(&f, err);
}

/* A solution's files (SUB/trajectory.csv, trajectory_s.csv, summary.json) within a budget of their
 * own: stopped by it or out of memory, the solution fails (files says why) and PL_OK is returned so
 * that the others go on; a write error is returned. */
static pl_status write_solution_files(pl_output *out, const char *sub, const pl_model *model, const pl_solution *sol,
                                      const pl_analysis *a, double max_seconds, pl_error *files, pl_error *err)
{
    pl_error e;
    pl_budget budget = {max_seconds, pl_now_seconds()};
    pl_status s = pl_output_make_dir(out, sub, &e);
    if (s == PL_OK)
        s = pl_write_solution(out, sub, model, sol, a, &budget, &e);
    *files = (pl_error){PL_OK, ""};
    if (s == PL_ERR_SOLVER || s == PL_ERR_NOMEM) {
        pl_fail(files, s, "writing its files: %.400s", e.message);
        return PL_OK;
    }
    if (s != PL_OK && err)
        *err = e;
    return s;
}

pl_status pl_write_compare(pl_output *out, const pl_model *model, const pl_solution *limit,
                           const pl_analysis *limit_analysis, pl_error *limit_files, pl_compare_entry *e, size_t n,
                           const pl_family *families, size_t nfamilies, double max_seconds, pl_error *err)
{
    pl_status s = write_solution_files(out, "limit", model, limit, limit_analysis, max_seconds, limit_files, err);
    for (size_t k = 0; s == PL_OK && k < n; k++)
        s = write_solution_files(out, e[k].dir, model, e[k].sol, e[k].analysis, max_seconds, &e[k].files, err);
    if (s != PL_OK)
        return s;
    pl_budget tables = {max_seconds, pl_now_seconds()}; /* a row per solution */
    if ((s = write_csv(out, limit, limit_analysis, limit_files, e, n, err)) == PL_OK &&
        (s = write_json(out, model, limit, limit_analysis, limit_files, e, n, families, nfamilies, &tables, err)) ==
            PL_OK &&
        (s = write_config(out, model, e, n, err)) == PL_OK &&
        (s = write_work_data(out, e, n, err)) == PL_OK)
        s = pl_write_compare_deviation(out, model, limit, e, n, err);
    return s;
}

pl_status pl_render_compare_plots(pl_output *out, const pl_compare_entry *e, size_t n, const pl_budget *budget,
                                  pl_error *err)
{
    int any_rows = 0, any_cost = 0;
    char dist[256];
    work_distances(e, n, dist, sizeof dist);
    for (size_t k = 0; k < n; k++)
        any_rows |= plotted(out, &e[k]);
    any_cost = dist[0] != '\0';
    const int wanted[NPLOTS] = {any_rows, any_rows, any_cost};
    pl_status s = pl_plot_start_log(out, err);
    if (s != PL_OK)
        return s;
    if (any_rows || any_cost)
        s = pl_plot_write_script(out, "styles", err);
    for (size_t k = 0; s == PL_OK && k < NPLOTS; k++) {
        if (!wanted[k])
            continue;
        s = pl_plot_write_script(out, plot_names[k], err);
        if (s == PL_OK)
            s = pl_plot_render(out, plot_names[k], budget, err);
        if (s != PL_OK)
            return s;
    }
    return PL_OK;
}
