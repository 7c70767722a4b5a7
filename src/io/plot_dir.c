#include "io/plot_dir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/impact_law_report.h"
#include "io/plot_config.h"
#include "io/plots.h"
#include "laws/law.h"
#include "model/model.h"
#include "solvers/solver.h"

static int lists(const json_t *manifest, const char *file)
{
    const json_t *files = json_object_get(manifest, "files");
    for (size_t k = 0; k < json_array_size(files); k++)
        if (strcmp(json_string_value(json_array_get(files, k)), file) == 0)
            return 1;
    return 0;
}

/* A file the figures need: a regular file of the directory, no link followed
 * (pl_output_open_file).  None there (absent, a link, a FIFO) is bad input; one that is there but
 * cannot be opened is an error with its reason.  The descriptor, or -1. */
static int open_in(const pl_output *out, const char *name, pl_error *err)
{
    pl_error e;
    int fd = pl_output_open_file(out, name, &e);
    if (fd < 0 && (errno == ENOENT || errno == ELOOP || errno == ENOTDIR || errno == EINVAL))
        pl_fail(err, PL_ERR_INPUT, "%s lacks %s, which its figures need (a regular file)", out->root, name);
    else if (fd < 0)
        pl_fail(err, errno == ENOMEM ? PL_ERR_NOMEM : PL_ERR_IO, "%s", e.message);
    return fd;
}

/* The text of such a file (first_line: its first line only), at most max bytes: a read that fails
 * is an error (exit 1), never the end of the file; out of memory is one too (exit 3). */
static pl_status read_in(const pl_output *out, const char *name, size_t max, int first_line, char **text,
                         size_t *len, pl_error *err)
{
    int fd = open_in(out, name, err);
    if (fd < 0)
        return err->status;
    char where[PATH_MAX + 64];
    snprintf(where, sizeof where, "%s/%s", out->root, name);
    pl_status s = pl_read_fd(fd, where, max, first_line, text, len, err);
    close(fd);
    return s;
}

/* ---- what a directory may name: checked before anything is drawn ------------------------------ */

/* A word of a list in a configuration: letters, digits and ._+=:- (and / in a directory), so that
 * gnuplot takes it as one word and as a plain file name (never "<command", which it would run). */
static int plain_word(const char *w, int directory)
{
    if (!*w)
        return 0;
    for (; *w; w++)
        if (!((*w >= 'a' && *w <= 'z') || (*w >= 'A' && *w <= 'Z') || (*w >= '0' && *w <= '9') ||
              strchr("._+=:-", *w) || (directory && *w == '/')))
            return 0;
    return 1;
}

/* The manifest's case, solver and (a sweep) refined option, each from a fixed vocabulary: a case
 * built in, or, with "model": {"file": ...} (or no "model" in a manifest of penlim 0.1, which
 * recorded none), or "caller_defined" (a model a library caller defined, one written in Python), a
 * model compiled apart, whose name is then valid per pl_case_name_valid (the only
 * names penlim loads a model with); a solver of the registry; one of its options. */
typedef struct {
    const char *case_name;
    const pl_solver_type *solver;
    const char *refined; /* NULL but for a sweep */
    const char *law;     /* impact-law's law, else NULL */
} identity;

/* Whether a manifest was written by a penlim older than 0.2, which recorded no "model": its
 * penlim_version is 0.0.x or 0.1.x. */
static int before_model_identity(const json_t *manifest)
{
    const char *v = json_string_value(json_object_get(manifest, "penlim_version"));
    unsigned major, minor;
    return v && sscanf(v, "%u.%u", &major, &minor) == 2 && major == 0 && minor < 2;
}

static pl_status check_manifest(const pl_output *out, const json_t *manifest, identity *id, pl_error *err)
{
    const char *command = json_string_value(json_object_get(manifest, "command"));
    const char *case_name = json_string_value(json_object_get(manifest, "case"));
    const char *solver = json_string_value(json_object_get(manifest, "solver"));
    const char *refined = json_string_value(json_object_get(manifest, "refined"));
    const json_t *model = json_object_get(manifest, "model");
    /* A model compiled apart by its manifest's identity; without one, a manifest of penlim 0.1 (which
     * wrote none) names a model by its name alone: a valid name, as penlim loads models with, is what
     * makes it safe in a figure, not the identity (a file anyone can edit). */
    int compiled_apart = json_is_string(json_object_get(model, "file")) ||
                         json_is_true(json_object_get(model, "caller_defined")) ||
                         (!model && before_model_identity(manifest));
    if (case_name && pl_case_name_valid(case_name) && !compiled_apart && !model && !pl_builtin_case_find(case_name)) {
        const char *v = json_string_value(json_object_get(manifest, "penlim_version"));
        return pl_fail(err, PL_ERR_INPUT, "%s/manifest.json: \"case\" is not a case penlim has ('%s') and there is no "
                       "\"model\" saying it was loaded from a file (penlim records one since 0.2; this manifest says "
                       "penlim_version '%.20s'): run the command again with --model FILE to draw its figures",
                       out->root, case_name, v ? v : "");
    }
    if (!case_name || !pl_case_name_valid(case_name) || (!compiled_apart && !pl_builtin_case_find(case_name)))
        return pl_fail(err, PL_ERR_INPUT, "%s/manifest.json: \"case\" is not %s ('%.60s')", out->root,
                       compiled_apart ? "a model's name" : "a case penlim has", case_name ? case_name : "");
    id->case_name = case_name;
    if (!solver || !(id->solver = pl_solver_find(solver)))
        return pl_fail(err, PL_ERR_INPUT, "%s/manifest.json: \"solver\" is not a solver penlim has ('%.60s')",
                       out->root, solver ? solver : "");
    id->refined = NULL;
    if (command && strcmp(command, "sweep") == 0) {
        if (!refined || pl_solver_option_index(id->solver, refined) < 0)
            return pl_fail(err, PL_ERR_INPUT, "%s/manifest.json: \"refined\" is not an option of %s ('%.60s')",
                           out->root, id->solver->name, refined ? refined : "");
        id->refined = refined;
    }
    return PL_OK;
}

/* What each setting of a configuration may hold. */
typedef enum {
    COUNT,         /* an integer in [0, 1e6] */
    NUMBER,        /* a number or NaN */
    CASE_NAME,     /* the manifest's case */
    SOLVER_NAME,   /* the manifest's solver */
    REFINED_NAME,  /* the manifest's refined option */
    RUN_DIRS,      /* run directories the manifest lists */
    SOLUTION_DIRS, /* directories whose trajectory.csv the manifest lists */
    WORDS,         /* plain words (labels, distances) */
    FAMILIES,      /* solver names, or "external" */
    LIMIT_DIR,     /* "" or "limit" */
    LAW_NAME,      /* the manifest's law */
    APPROXIMATIONS /* names of laws/approximations.h */
} setting_kind;

typedef struct {
    const char *name;
    setting_kind kind;
} setting;

static const setting sweep_settings[] = {
    {"case_name", CASE_NAME}, {"ndof", COUNT},     {"ncon", COUNT},      {"solution", SOLVER_NAME},
    {"param", REFINED_NAME},  {"runs", RUN_DIRS},  {"labels", WORDS},    {"nq", COUNT},
    {"conv_len", COUNT},      {"nsliding", COUNT}, {"nzeno", COUNT},     {"ncapture", COUNT},
    {"limit", LIMIT_DIR},     {"accumulation", NUMBER}, {"physical_k", COUNT}, {"conv_dropped", WORDS}, {NULL, COUNT}};

static const setting compare_settings[] = {
    {"case_name", CASE_NAME}, {"ndof", COUNT},        {"ncon", COUNT},      {"dirs", SOLUTION_DIRS},
    {"labels", WORDS},        {"families", FAMILIES}, {"distances", WORDS}, {"deviation", COUNT}, {NULL, COUNT}};

static const setting impact_law_settings[] = {
    {"law", LAW_NAME}, {"settings", WORDS}, {"approximations", APPROXIMATIONS}, {"nv", COUNT},
    {"c", NUMBER},     {NULL, COUNT}};

static int lists_run_dir(const json_t *manifest, const char *dir)
{
    const json_t *runs = json_object_get(manifest, "runs");
    for (size_t k = 0; k < json_array_size(runs); k++) {
        const char *d = json_string_value(json_object_get(json_array_get(runs, k), "directory"));
        if (d && strcmp(d, dir) == 0)
            return 1;
    }
    return 0;
}

/* Whether one word of a list may be what kind says. */
static int word_fits(setting_kind kind, const char *w, const json_t *manifest)
{
    char file[PATH_MAX];
    switch (kind) {
    case RUN_DIRS: return plain_word(w, 1) && lists_run_dir(manifest, w);
    case SOLUTION_DIRS:
        return plain_word(w, 1) && snprintf(file, sizeof file, "%s/trajectory.csv", w) < (int)sizeof file &&
               lists(manifest, file);
    case FAMILIES: return strcmp(w, "external") == 0 || pl_solver_find(w) != NULL;
    case APPROXIMATIONS: return pl_impact_law_approximation_known(w);
    default: return plain_word(w, 0);
    }
}

static const char *word_rule(setting_kind kind)
{
    switch (kind) {
    case RUN_DIRS: return "not a run directory the manifest lists";
    case SOLUTION_DIRS: return "not a solution directory the manifest lists";
    case FAMILIES: return "not a solver's name";
    case APPROXIMATIONS: return "not a relation penlim has";
    default: return "not a word of letters, digits and ._+=:-";
    }
}

static pl_status check_setting(const pl_gp_entry *e, setting_kind kind, const identity *id, const json_t *manifest,
                               const char *where, pl_error *err)
{
    int numeric = kind == COUNT || kind == NUMBER;
    if (numeric != (e->kind != PL_GP_STRING) || (kind == COUNT && e->kind != PL_GP_INT))
        return pl_fail(err, PL_ERR_INPUT, "%s: %s must be %s", where, e->name,
                       kind == COUNT ? "an integer" : numeric ? "a number" : "a quoted string");
    const char *want = NULL;
    switch (kind) {
    case COUNT:
        if (e->integer < 0 || e->integer > 1000000)
            return pl_fail(err, PL_ERR_INPUT, "%s: %s must be in [0, 1e6] (got %ld)", where, e->name, e->integer);
        return PL_OK;
    case NUMBER: return PL_OK;
    case CASE_NAME: want = id->case_name; break;
    case SOLVER_NAME: want = id->solver->name; break;
    case REFINED_NAME: want = id->refined ? id->refined : ""; break;
    case LAW_NAME: want = id->law ? id->law : ""; break;
    case LIMIT_DIR:
        if (e->text[0] && strcmp(e->text, "limit") != 0)
            return pl_fail(err, PL_ERR_INPUT, "%s: %s must be 'limit' or '' ('%.60s')", where, e->name, e->text);
        return PL_OK;
    default: break;
    }
    if (want) {
        if (strcmp(e->text, want) != 0)
            return pl_fail(err, PL_ERR_INPUT, "%s: %s is not the manifest's '%s' ('%.60s')", where, e->name, want,
                           e->text);
        return PL_OK;
    }
    char word[PATH_MAX];
    size_t k = 0;
    for (const char *w = e->text; *(w += strspn(w, " ")); w += strcspn(w, " "), k++) {
        if (!pl_gp_word(e->text, k, word, sizeof word))
            return pl_fail(err, PL_ERR_INPUT, "%s: %s holds a word too long", where, e->name);
        if (!word_fits(kind, word, manifest))
            return pl_fail(err, PL_ERR_INPUT, "%s: %s holds '%.60s', %s", where, e->name, word, word_rule(kind));
    }
    return PL_OK;
}

/* Read a sweep's or compare's configuration from the directory and check every setting it makes:
 * what `penlim plot` writes again for the scripts to load.  config is freeable whatever the status. */
static pl_status read_config(const pl_output *out, const json_t *manifest, const identity *id, const char *name,
                             const setting *settings, pl_gp_config *config, pl_error *err)
{
    memset(config, 0, sizeof *config);
    char where[PATH_MAX + 64], *text = NULL;
    size_t got;
    snprintf(where, sizeof where, "%s/%s", out->root, name);
    /* a sweep of thousands of runs writes 100 kB */
    pl_status s = read_in(out, name, (1 << 20) - 1, 0, &text, &got, err);
    if (s == PL_OK)
        s = pl_gp_config_parse(text, got, where, config, err);
    free(text);
    for (size_t k = 0; s == PL_OK && k < config->n; k++) {
        const setting *st = settings;
        while (st->name && strcmp(st->name, config->entries[k].name) != 0)
            st++;
        if (!st->name)
            s = pl_fail(err, PL_ERR_INPUT, "%s: no setting named %s", where, config->entries[k].name);
        else
            s = check_setting(&config->entries[k], st->kind, id, manifest, where, err);
    }
    return s;
}

/* A count the configuration sets; -1 if it sets none. */
static long config_count(const pl_gp_config *c, const char *name)
{
    const pl_gp_entry *e = pl_gp_config_get(c, name);
    return e && e->kind == PL_GP_INT ? e->integer : -1;
}

/* Whether a list of the configuration holds a word. */
static int config_words(const pl_gp_config *c, const char *name)
{
    const pl_gp_entry *e = pl_gp_config_get(c, name);
    return e && e->kind == PL_GP_STRING && e->text[strspn(e->text, " ")] != '\0';
}

/* A figure's data file, CSV since version 0.3 (docs/formats.md, "Data files for figures"): present,
 * or an error that says so when the directory holds the former NAME.dat and how to rewrite it. */
static pl_status need_data(const pl_output *out, const char *name, const char *rewrite, pl_error *err)
{
    int fd = open_in(out, name, err);
    if (fd >= 0) {
        close(fd);
        return PL_OK;
    }
    char dat[64];
    snprintf(dat, sizeof dat, "%.*s.dat", (int)(strlen(name) - 4), name);
    pl_error e;
    int old = pl_output_open_file(out, dat, &e);
    if (old < 0)
        return err->status;
    close(old);
    return pl_fail(err, PL_ERR_INPUT, "%s lacks %s: its figures' data are %s, as penlim 0.2 wrote them; %s writes "
                   "them as CSV", out->root, name, dat, rewrite);
}

static pl_status plan_sweep(const pl_output *out, pl_plot_plan *plan, pl_error *err)
{
    static const char rewrite[] = "penlim sweep --resume with the sweep's options";
    if (config_words(&plan->values, "runs")) {
        plan->figures[plan->n++] = "trajectories";
        plan->figures[plan->n++] = "trajectories_s";
    }
    pl_status s = PL_OK;
    if (config_count(&plan->values, "nq") > 0 && (s = need_data(out, "convergence.csv", rewrite, err)) == PL_OK)
        plan->figures[plan->n++] = "convergence";
    if (s == PL_OK && config_count(&plan->values, "nsliding") > 0 &&
        (s = need_data(out, "sliding.csv", rewrite, err)) == PL_OK)
        plan->figures[plan->n++] = "sliding";
    if (s == PL_OK && config_count(&plan->values, "nzeno") > 0 &&
        (s = need_data(out, "zeno.csv", rewrite, err)) == PL_OK && (s = need_data(out, "capture.csv", rewrite, err)) == PL_OK)
        plan->figures[plan->n++] = "zeno";
    return s;
}

/* A compare directory: its trajectories when some solution has rows, the work-precision plot when
 * some distance has a cost (compare_config.gp says both, as compare wrote it). */
static pl_status plan_compare(const pl_output *out, pl_plot_plan *plan, pl_error *err)
{
    if (config_words(&plan->values, "dirs")) {
        plan->figures[plan->n++] = "compare_trajectories";
        plan->figures[plan->n++] = "compare_trajectories_s";
    }
    if (config_words(&plan->values, "distances")) {
        pl_status s = need_data(out, "compare_work.csv", "penlim compare, run again,", err);
        if (s != PL_OK)
            return s;
        plan->figures[plan->n++] = "compare_work";
    }
    return PL_OK;
}

/* A run or limit directory: the columns of its trajectory.csv, from its header (read here, before
 * the directory is changed, so that a read error leaves it as it was). */
static pl_status plan_run(const pl_output *out, pl_plot_plan *plan, pl_error *err)
{
    char *header = NULL; /* the whole first line, however many columns */
    size_t len;
    pl_status s = read_in(out, "trajectory.csv", (size_t)-2, 1, &header, &len, err);
    if (s != PL_OK)
        return s;
    plan->impulses = strstr(header, ",impulse1") != NULL;
    for (char *c = strtok(header, ",\r\n"); c; c = strtok(NULL, ",\r\n"))
        plan->ndof += c[0] == 'q', plan->ncon += c[0] == 'G';
    free(header);
    if (plan->ndof == 0)
        return pl_fail(err, PL_ERR_INPUT, "%s/trajectory.csv has no column q1", out->root);
    return PL_OK;
}

/* Whether contacts.csv holds a contact, a line after its header (a run that never touched has none:
 * run.gp then draws its panels empty, gnuplot scaling no axis on no points). */
static pl_status plan_contacts(const pl_output *out, pl_plot_plan *plan, pl_error *err)
{
    int fd = open_in(out, "contacts.csv", err);
    if (fd < 0)
        return err->status;
    char where[PATH_MAX + 64], *header = NULL;
    snprintf(where, sizeof where, "%s/contacts.csv", out->root);
    struct stat st;
    size_t len = 0;
    pl_status s = fstat(fd, &st) == 0 ? pl_read_fd(fd, where, 4096, 1, &header, &len, err)
                                      : pl_fail(err, PL_ERR_IO, "cannot read %s: %s", where, strerror(errno));
    close(fd);
    free(header);
    plan->contact_points = s == PL_OK && st.st_size > (off_t)len;
    return s;
}

/* An impact-law directory: its law one penlim has, the data listed. */
static pl_status plan_impact_law(const pl_output *out, const json_t *manifest, pl_plot_plan *plan, pl_error *err)
{
    identity id = {0};
    id.law = json_string_value(json_object_get(manifest, "law"));
    if (!id.law || !pl_law_type_find(id.law))
        return pl_fail(err, PL_ERR_INPUT, "%s/manifest.json: \"law\" is not a law penlim has ('%.60s')", out->root,
                       id.law ? id.law : "");
    if (!lists(manifest, "impact_law.csv"))
        return pl_fail(err, PL_ERR_INPUT, "%s lacks impact_law.csv, which its figure needs", out->root);
    plan->config = "impact_law_config.gp";
    pl_status s = read_config(out, manifest, &id, plan->config, impact_law_settings, &plan->values, err);
    if (s == PL_OK)
        plan->figures[plan->n++] = "impact_law";
    return s;
}

/* A study directory: its figures from study.csv and study.json, with the choices its manifest's
 * "figures" records (the quantities of the line families, the map's quantity and axes), each
 * checked against the study's columns and axes as it is read. */
_Static_assert(PL_STUDY_MAX_FIGURES <= PL_PLOT_MAX_FIGURES, "a plan holds every figure of a study");

/* Whether a header (a line of comma-separated names) has the column name. */
static int has_column(const char *header, const char *name)
{
    size_t n = strlen(name);
    for (const char *c = header; c; c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL)
        if (strncmp(c, name, n) == 0 && (c[n] == ',' || c[n] == '\r' || c[n] == '\n' || c[n] == '\0'))
            return 1;
    return 0;
}

/* A study written in penlim 0.2's vocabulary (docs/formats.md, "One vocabulary") is refused: its
 * s_distance_q is the distance to the next run, which the figures would title a distance to the limit.
 * Its manifest's version cannot tell (0.2.0 wrote both), its study.csv's header does: limit_sup_q, or
 * s_distance_q without successive_s_distance_q, is the old one. */
static pl_status check_study_vocabulary(const pl_output *out, pl_error *err)
{
    char *header = NULL;
    size_t len;
    pl_status s = read_in(out, "study.csv", (size_t)-2, 1, &header, &len, err);
    if (s != PL_OK)
        return s;
    int old = has_column(header, "limit_sup_q") || has_column(header, "limit_s_distance") ||
              (has_column(header, "s_distance_q") && !has_column(header, "successive_s_distance_q"));
    free(header);
    if (old)
        return pl_fail(err, PL_ERR_INPUT, "%s/study.csv has penlim 0.2's column names (its s_distance_q is the "
                       "distance to the next run, not to the limit): `penlim study --resume` with the same options "
                       "rewrites it in the current names, then `penlim plot` draws it", out->root);
    return PL_OK;
}

static pl_status plan_study(const pl_output *out, const json_t *manifest, pl_plot_plan *plan, pl_error *err)
{
    const json_t *figures = json_object_get(manifest, "figures");
    const json_t *quantities = json_object_get(figures, "quantities"), *map = json_object_get(figures, "map");
    const json_t *axes = json_object_get(figures, "map_axes");
    const char *names[PL_STUDY_MAX_FIGURES];
    pl_study_plot_opts opts = {0};
    int ok = !figures || json_is_object(figures);
    if (ok && quantities && !json_is_null(quantities)) {
        ok = json_is_array(quantities) && json_array_size(quantities) < PL_STUDY_MAX_FIGURES;
        for (size_t k = 0; ok && k < json_array_size(quantities); k++)
            ok = (names[k] = json_string_value(json_array_get(quantities, k))) != NULL;
        opts.quantities = names;
        opts.nquantities = json_array_size(quantities);
    }
    if (ok && map && !json_is_null(map))
        ok = (opts.map = json_string_value(map)) != NULL;
    if (ok && axes && !json_is_null(axes)) {
        ok = json_is_array(axes) && json_array_size(axes) == 2;
        for (size_t k = 0; ok && k < 2; k++)
            ok = (opts.map_axes[k] = json_string_value(json_array_get(axes, k))) != NULL;
    }
    if (!ok)
        return pl_fail(err, PL_ERR_INPUT, "%s/manifest.json: \"figures\" is not {\"quantities\": [names], \"map\": "
                       "name, \"map_axes\": [name, name]}", out->root);
    pl_status s = check_study_vocabulary(out, err);
    if (s == PL_OK)
        s = pl_study_plots_read(out, &opts, &plan->study, err);
    for (size_t k = 0; s == PL_OK && k < pl_study_plots_count(plan->study); k++)
        plan->figures[plan->n++] = pl_study_plots_name(plan->study, k);
    return s;
}

pl_status pl_plot_dir_plan(const pl_output *out, const json_t *manifest, pl_plot_plan *plan, pl_error *err)
{
    memset(plan, 0, sizeof *plan);
    const char *command = json_string_value(json_object_get(manifest, "command"));
    if (command && strcmp(command, "study") == 0)
        return plan_study(out, manifest, plan, err);
    if (command && strcmp(command, "impact-law") == 0) {
        pl_status s = plan_impact_law(out, manifest, plan, err);
        if (s != PL_OK)
            pl_plot_dir_plan_free(plan);
        return s;
    }
    identity id = {0};
    pl_status s = check_manifest(out, manifest, &id, err);
    if (s != PL_OK)
        return s;
    if (command && strcmp(command, "sweep") == 0) {
        plan->config = "plots_config.gp";
        if ((s = read_config(out, manifest, &id, plan->config, sweep_settings, &plan->values, err)) == PL_OK)
            s = plan_sweep(out, plan, err);
    } else if (command && strcmp(command, "compare") == 0) {
        plan->config = "compare_config.gp";
        if ((s = read_config(out, manifest, &id, plan->config, compare_settings, &plan->values, err)) == PL_OK)
            s = plan_compare(out, plan, err);
    } else if (command && (strcmp(command, "run") == 0 || strcmp(command, "limit") == 0)) {
        if (!lists(manifest, "trajectory.csv"))
            return pl_fail(err, PL_ERR_INPUT, "%s lacks trajectory.csv, which its figures need", out->root);
        if ((s = plan_run(out, plan, err)) != PL_OK)
            return s;
        plan->contacts = lists(manifest, "contacts.csv");
        if (plan->contacts && (s = plan_contacts(out, plan, err)) != PL_OK)
            return s;
        plan->figures[plan->n++] = "run";
        plan->config = "plots_config.gp";
        plan->run_config = 1;
    }
    if (s != PL_OK)
        pl_plot_dir_plan_free(plan);
    return s;
}

void pl_plot_dir_plan_free(pl_plot_plan *plan)
{
    pl_gp_config_free(&plan->values);
    pl_study_plots_free(plan->study);
    plan->study = NULL;
}

pl_status pl_plot_dir_files(const pl_plot_plan *plan, pl_strings *files, pl_error *err)
{
    if (plan->study)
        return pl_study_plots_files(plan->study, files, err);
    pl_status s = PL_OK;
    for (size_t k = 0; s == PL_OK && k < plan->n; k++)
        s = pl_plot_files(plan->figures[k], files, err);
    if (s == PL_OK && plan->config && !pl_strings_has(files, plan->config))
        s = pl_strings_add(files, plan->config, err);
    if (s == PL_OK && plan->n > 0)
        s = pl_plot_common_files(files, err);
    return s;
}

/* plots_config.gp of one solution: its name and the columns of its trajectory.csv (the plan's). */
static pl_status write_run_config(pl_output *out, const json_t *manifest, const pl_plot_plan *plan, pl_error *err)
{
    pl_status s;
    /* checked by pl_plot_dir_plan: a case and a solver penlim has */
    const char *solver = json_string_value(json_object_get(manifest, "solver"));
    const char *case_name = json_string_value(json_object_get(manifest, "case"));
    const json_t *options = json_object_get(manifest, "options");
    int is_limit = strcmp(solver, "limit") == 0;
    char label[128] = "limit solution";
    if (!is_limit) {
        const char *param = json_object_get(options, "mu") ? "mu" : "h";
        const json_t *v = json_object_get(options, param);
        if (json_is_number(v))
            pl_plot_label(param, json_number_value(v), label, sizeof label);
        else
            snprintf(label, sizeof label, "%s", solver);
    }
    pl_file f;
    if ((s = pl_file_open(&f, out, NULL, "plots_config.gp", err)) != PL_OK)
        return s;
    fprintf(f.fp, "# Written by penlim plot: what run.gp reads.\n");
    pl_gp_put_string(f.fp, "case_name", case_name);
    pl_gp_put_string(f.fp, "solution", solver);
    pl_gp_put_string(f.fp, "label", label);
    pl_gp_put_int(f.fp, "ndof", plan->ndof);
    pl_gp_put_int(f.fp, "ncon", plan->ncon);
    pl_gp_put_int(f.fp, "impulses", plan->impulses);
    pl_gp_put_int(f.fp, "contacts", plan->contacts);
    pl_gp_put_int(f.fp, "contact_points", plan->contact_points);
    pl_gp_put_int(f.fp, "is_limit", is_limit);
    return pl_file_commit(&f, err);
}

/* A sweep's or compare's configuration as read and checked, written again: what gnuplot loads. */
static pl_status write_config(pl_output *out, const json_t *manifest, const pl_plot_plan *plan, pl_error *err)
{
    pl_file f;
    pl_status s = pl_file_open(&f, out, NULL, plan->config, err);
    if (s != PL_OK)
        return s;
    fprintf(f.fp, "# Written by penlim plot from the settings this file held: what the plot scripts of this "
                  "directory read.\n");
    pl_gp_config_write(f.fp, &plan->values);
    /* a comparison drawn before compare_deviation.csv was written has no deviation panels */
    if (strcmp(plan->config, "compare_config.gp") == 0 && !pl_gp_config_get(&plan->values, "deviation"))
        pl_gp_put_int(f.fp, "deviation", lists(manifest, "compare_deviation.csv"));
    return pl_file_commit(&f, err);
}

pl_status pl_plot_dir_write(pl_output *out, const json_t *manifest, const pl_plot_plan *plan, pl_error *err)
{
    if (plan->study)
        return pl_study_plots_write(out, plan->study, err);
    pl_status s = PL_OK;
    if (plan->run_config)
        s = write_run_config(out, manifest, plan, err);
    else if (plan->config)
        s = write_config(out, manifest, plan, err);
    if (s == PL_OK && plan->n > 0)
        s = pl_plot_write_script(out, "styles", err);
    for (size_t k = 0; s == PL_OK && k < plan->n; k++)
        s = pl_plot_write_script(out, plan->figures[k], err);
    return s;
}

pl_status pl_plot_dir_render(pl_output *out, const pl_plot_plan *plan, const pl_budget *budget,
                             pl_plot_progress progress, void *user, pl_error *err)
{
    size_t total = plan->study ? 1 : plan->n;
    if (progress)
        progress(0, total, user);
    pl_status s;
    if (plan->study) {
        s = pl_study_plots_render(out, plan->study, budget, err);
        if (s == PL_OK && progress)
            progress(1, 1, user);
        return s;
    }
    s = pl_plot_start_log(out, err);
    for (size_t k = 0; s == PL_OK && k < plan->n; k++)
        if ((s = pl_plot_render(out, plan->figures[k], budget, err)) == PL_OK && progress)
            progress(k + 1, total, user);
    return s;
}
