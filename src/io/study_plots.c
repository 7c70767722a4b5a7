#define _GNU_SOURCE /* getline */
#include "io/study_plots.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cases/cases.h"
#include "core/number.h"
#include "io/plot_config.h"
#include "io/plots.h"
#include "laws/law.h"
#include "model/model.h"
#include "solvers/solver.h"

#define NAME_LEN 64
#define MAX_AXES 32
#define MAX_JSON_BYTES ((size_t)1 << 30)
#define MAX_LINE_BYTES ((size_t)1 << 22)
#define NONE ((size_t)-1)

typedef struct {
    char name[NAME_LEN];   /* as study.json names it */
    char column[NAME_LEN]; /* its column in study.csv: its name, or t-end's t_end ('-' as '_') */
    double *sorted;        /* its values, ascending, each once */
    size_t n;
    int refined, log;
    size_t col;
    double slice; /* its value in the map when not one of the map's axes */
} axis;

typedef struct {
    char name[NAME_LEN];
    size_t col;
    int log; /* an error or a distance: |value| on a log scale */
} quantity;

typedef struct {
    double *key; /* the values that identify the line (see line_key) */
    char label[256];
} line;

typedef struct {
    char name[NAME_LEN + 8]; /* family_Q or map_Q */
    int map;
    size_t q; /* of the family quantities (a family) */
} figure;

struct pl_study_plots {
    char subject[160]; /* "CASE (SOLVER)" */
    char case_name[96], solver[48]; /* for the figures' titles and units (styles.gp's table) */
    int physical_k;                 /* the study's law has a physical k: mu is a pure multiplier */
    const pl_case *builtin;         /* the built-in case of that name (its parameters' dimensions), or NULL */
    const pl_law_type *law;         /* the study's law, Kelvin-Voigt where penlim lacks it */
    axis *axes;
    size_t naxes;
    int zip;
    size_t point_col; /* the point column of study.csv, where lines are the study's points */
    size_t line_axis; /* the families' x axis, or NONE: no family */
    int by_point;     /* lines are the points (the line axis is the refined one) */
    size_t total_lines;
    line lines[PL_STUDY_MAX_LINES];
    size_t nlines;
    quantity *fq; /* the families' quantities */
    size_t nfq;
    /* the runs of the first PL_STUDY_MAX_LINES lines: line, x, ok, nfq values each */
    size_t *row_line;
    double *row_x, *row_v;
    int *row_ok;
    size_t nrows, rows_cap;
    /* the map */
    size_t map_axes[2]; /* NONE, NONE: no map */
    quantity mq;
    double *map_a, *map_b, *map_v; /* its cells: the ok runs of its slice */
    size_t ncells, cells_cap;
    figure figures[PL_STUDY_MAX_FIGURES];
    size_t nfigures;
    void (*progress)(size_t done, size_t total, void *user);
    void *user;
};

/* ---- reading ------------------------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int has_value(const axis *a, double x)
{
    return bsearch(&x, a->sorted, a->n, sizeof x, cmp_double) != NULL;
}

static int log_axis(const axis *a)
{
    if (strcmp(a->name, "mu") != 0 && strcmp(a->name, "h") != 0 && strcmp(a->name, "rtol") != 0)
        return 0;
    return a->sorted[0] > 0;
}

static int log_quantity(const char *name)
{
    size_t len = strlen(name);
    /* the distances (docs/formats.md, "One vocabulary"; limit_* and s_distance their names up to 0.2) */
    return (len > 6 && strcmp(name + len - 6, "_error") == 0) || strncmp(name, "limit_", 6) == 0 ||
           strstr(name, "s_distance") || strncmp(name, "sup_q", 5) == 0 || strcmp(name, "l1_v") == 0;
}

static pl_status read_axes(const char *where, const json_t *j, pl_study_plots *p, pl_error *err)
{
    const json_t *axes = json_object_get(j, "axes");
    size_t n = json_array_size(axes);
    if (!json_is_array(axes) || n == 0 || n > MAX_AXES)
        return pl_fail(err, PL_ERR_INPUT, "%s: \"axes\" is not a list of 1 to %d axes", where, MAX_AXES);
    if (!(p->axes = calloc(n, sizeof *p->axes)))
        return pl_fail(err, PL_ERR_NOMEM, "out of memory reading %s", where);
    p->naxes = n;
    size_t refined = NONE;
    for (size_t k = 0; k < n; k++) {
        axis *a = &p->axes[k];
        const json_t *o = json_array_get(axes, k), *values = json_object_get(o, "values");
        const json_t *is_refined = json_object_get(o, "refined");
        const char *name = json_string_value(json_object_get(o, "name"));
        if (!name || !pl_case_name_valid(name))
            return pl_fail(err, PL_ERR_INPUT, "%s: axis %zu's name is not 1 to 63 letters, digits, _ and - ('%.60s')",
                           where, k + 1, name ? name : "");
        for (size_t i = 0; i < k; i++)
            if (strcmp(p->axes[i].name, name) == 0)
                return pl_fail(err, PL_ERR_INPUT, "%s: axis '%s' twice", where, name);
        snprintf(a->name, sizeof a->name, "%s", name);
        snprintf(a->column, sizeof a->column, "%s", name);
        for (char *c = a->column; *c; c++)
            *c = *c == '-' ? '_' : *c;
        if (is_refined && !json_is_boolean(is_refined))
            return pl_fail(err, PL_ERR_INPUT, "%s: axis '%s': \"refined\" is not true or false", where, name);
        a->refined = json_is_true(is_refined);
        if (a->refined && refined != NONE)
            return pl_fail(err, PL_ERR_INPUT, "%s: two refined axes ('%s', '%s')", where, p->axes[refined].name, name);
        if (a->refined && strcmp(name, "mu") != 0 && strcmp(name, "h") != 0)
            return pl_fail(err, PL_ERR_INPUT, "%s: axis '%s' is refined, which only mu and h can be", where, name);
        if (a->refined)
            refined = k;
        size_t nv = json_array_size(values);
        if (!json_is_array(values) || nv == 0 || nv > 1000000)
            return pl_fail(err, PL_ERR_INPUT, "%s: axis '%s': \"values\" is not a list of 1 to 1e6 numbers", where, name);
        if (!(a->sorted = malloc(nv * sizeof *a->sorted)))
            return pl_fail(err, PL_ERR_NOMEM, "out of memory reading %s", where);
        for (size_t i = 0; i < nv; i++) {
            const json_t *v = json_array_get(values, i);
            a->sorted[i] = json_number_value(v);
            if (!json_is_number(v) || !isfinite(a->sorted[i]))
                return pl_fail(err, PL_ERR_INPUT, "%s: axis '%s': value %zu is not a finite number", where, name, i + 1);
        }
        /* the map holds a refined axis at its finest value (largest mu, smallest h), any other at its first */
        a->slice = a->sorted[0];
        for (size_t i = 1; a->refined && i < nv; i++)
            if (strcmp(name, "h") == 0 ? a->sorted[i] < a->slice : a->sorted[i] > a->slice)
                a->slice = a->sorted[i];
        qsort(a->sorted, nv, sizeof *a->sorted, cmp_double);
        a->n = 0;
        for (size_t i = 0; i < nv; i++)
            if (a->n == 0 || a->sorted[i] != a->sorted[a->n - 1])
                a->sorted[a->n++] = a->sorted[i];
        a->log = log_axis(a);
    }
    const json_t *r = json_object_get(j, "refined");
    const char *rname = json_string_value(r);
    if ((r && !json_is_null(r) && !rname) || (rname ? refined == NONE || strcmp(rname, p->axes[refined].name) != 0
                                                    : refined != NONE))
        return pl_fail(err, PL_ERR_INPUT, "%s: \"refined\" is not the name of the axis marked refined", where);
    return PL_OK;
}

/* study.json: the axes and what the titles say (the case or model, the solver). */
static pl_status read_json(const pl_output *out, pl_study_plots *p, size_t *npoints, pl_error *err)
{
    char where[PATH_MAX + 16];
    snprintf(where, sizeof where, "%s/study.json", out->root);
    pl_error e;
    int fd = pl_output_open_file(out, "study.json", &e);
    if (fd < 0)
        return errno == ENOENT || errno == ELOOP || errno == ENOTDIR || errno == EINVAL
                   ? pl_fail(err, PL_ERR_INPUT, "%s lacks study.json, which its figures need (a regular file)",
                             out->root)
                   : pl_fail(err, errno == ENOMEM ? PL_ERR_NOMEM : PL_ERR_IO, "%s", e.message);
    char *text = NULL;
    size_t len = 0;
    pl_status s = pl_read_fd(fd, where, MAX_JSON_BYTES, 0, &text, &len, err);
    close(fd);
    if (s != PL_OK)
        return s;
    json_error_t je;
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    free(text);
    if (!j)
        return json_error_code(&je) == json_error_out_of_memory
                   ? pl_fail(err, PL_ERR_NOMEM, "out of memory reading %s", where)
                   : pl_fail(err, PL_ERR_INPUT, "%s: not JSON (line %d: %s)", where, je.line, je.text);
    const json_t *version = json_object_get(j, "penlim_study");
    const json_t *model = json_object_get(j, "model");
    const char *case_name = json_string_value(json_object_get(j, "case"));
    if (!case_name)
        case_name = json_is_object(model) ? json_string_value(json_object_get(model, "name")) : json_string_value(model);
    const char *solver = json_string_value(json_object_get(j, "solver"));
    /* the law's k physical (Hertz, Hunt-Crossley): mu a pure multiplier on the axes (styles.gp's
     * physical_k); a study without "contact_law" (or of a law penlim lacks) is drawn as Kelvin-Voigt's */
    const char *law = json_string_value(json_object_get(j, "contact_law"));
    const pl_law_type *law_type = law ? pl_law_type_find(law) : NULL;
    const json_t *zip = json_object_get(j, "zip"), *points = json_object_get(j, "points");
    if (!json_is_integer(version) || json_integer_value(version) != 1)
        s = pl_fail(err, PL_ERR_INPUT, "%s: \"penlim_study\" is not 1", where);
    else if (!case_name || !pl_case_name_valid(case_name))
        s = pl_fail(err, PL_ERR_INPUT, "%s: \"case\" (or \"model\") is not a case's or model's name ('%.60s')", where,
                    case_name ? case_name : "");
    else if (!solver || !pl_solver_find(solver))
        s = pl_fail(err, PL_ERR_INPUT, "%s: \"solver\" is not a solver penlim has ('%.60s')", where,
                    solver ? solver : "");
    else if (zip && !json_is_boolean(zip))
        s = pl_fail(err, PL_ERR_INPUT, "%s: \"zip\" is not true or false", where);
    else if (!json_is_array(points))
        s = pl_fail(err, PL_ERR_INPUT, "%s: \"points\" is not a list", where);
    else
        s = read_axes(where, j, p, err);
    if (s == PL_OK) {
        snprintf(p->subject, sizeof p->subject, "%s (%s)", case_name, solver);
        snprintf(p->case_name, sizeof p->case_name, "%s", case_name);
        snprintf(p->solver, sizeof p->solver, "%s", solver);
        p->physical_k = law_type && !(law_type->flags & PL_LAW_PER_UNIT_MASS);
        p->builtin = pl_case_find(case_name);
        p->law = law_type ? law_type : pl_law_type_default();
        p->zip = json_is_true(zip);
        *npoints = json_array_size(points);
    }
    json_decref(j);
    return s;
}

/* Split line (its newline removed) at commas into fields[0..n); the number of fields, or n + 1 if
 * there are more. */
static size_t split(char *line, char **fields, size_t n)
{
    size_t k = 0;
    for (char *c = line;; c++) {
        if (k < n)
            fields[k] = c;
        k++;
        c += strcspn(c, ",");
        if (*c == '\0')
            break;
        *c = '\0';
        if (k > n)
            break;
    }
    return k;
}

/* A cell of penlim's numbers: a number in the shortest form or "nan" (penlim writes no infinity). */
static int parse_cell(const char *text, double *x)
{
    if (strcmp(text, "nan") == 0) {
        *x = NAN;
        return 1;
    }
    char *end;
    errno = 0;
    *x = strtod(text, &end);
    return end != text && *end == '\0' && isfinite(*x) && strspn(text, "0123456789+-.e") == strlen(text);
}

static size_t column_of(const char *const *names, size_t n, const char *name)
{
    for (size_t k = 0; k < n; k++)
        if (strcmp(names[k], name) == 0)
            return k;
    return NONE;
}

/* The columns that end the sweep's quantities: the run's cost and final state. */
static int after_quantities(const char *name)
{
    return strcmp(name, "steps") == 0 || strcmp(name, "rhs_evals") == 0 || strcmp(name, "wall_seconds") == 0 ||
           strncmp(name, "final_", 6) == 0;
}

/* The families' quantities and the map's among cols, the n columns of study.csv after "status" (where
 * names the study in messages): those opts asks for, or every quantity the sweep measures (the
 * columns up to "steps", as many as there is room for) and restitution_first.  Their indices into
 * cols: fam[0..*nfam) (room for PL_STUDY_MAX_FIGURES - 1), *map. */
static pl_status pick_quantities(const pl_study_plot_opts *opts, const char *const *cols, size_t n, const char *where,
                                 size_t *fam, size_t *nfam, size_t *map, pl_error *err)
{
    *nfam = 0;
    int asked = opts && opts->quantities;
    size_t want = asked ? opts->nquantities : n;
    if (asked && want > PL_STUDY_MAX_FIGURES - 1)
        return pl_fail(err, PL_ERR_INPUT, "at most %d line families (%zu asked for)", PL_STUDY_MAX_FIGURES - 1, want);
    for (size_t k = 0; k < want && *nfam < PL_STUDY_MAX_FIGURES - 1; k++) {
        size_t col = k;
        if (asked && (col = column_of(cols, n, opts->quantities[k])) == NONE)
            return pl_fail(err, PL_ERR_INPUT, "%s has no quantity '%.60s' (a column after 'status')", where,
                           opts->quantities[k]);
        if (!asked && after_quantities(cols[col]))
            break;
        for (size_t i = 0; i < *nfam; i++)
            if (fam[i] == col)
                return pl_fail(err, PL_ERR_INPUT, "quantity '%s' asked for twice", cols[col]);
        fam[(*nfam)++] = col;
    }
    const char *name = opts && opts->map ? opts->map : PL_STUDY_DEFAULT_MAP;
    if ((*map = column_of(cols, n, name)) == NONE)
        return pl_fail(err, PL_ERR_INPUT, "%s has no quantity '%.60s' to map (a column after 'status')", where, name);
    return PL_OK;
}

/* The map's two axes among the axes (names as study.json gives them, nvalues distinct values
 * each): those opts asks for, else the first two with more than one value; NONE, NONE if there is
 * no map (fewer such axes, or zipped ones). */
static pl_status pick_map_axes(const pl_study_plot_opts *opts, const char *const *names, const size_t *nvalues,
                               size_t naxes, int zip, size_t m[2], pl_error *err)
{
    m[0] = m[1] = NONE;
    if (opts && (opts->map_axes[0] || opts->map_axes[1])) {
        for (int j = 0; j < 2; j++) {
            const char *name = opts->map_axes[j] ? opts->map_axes[j] : "";
            for (size_t k = 0; k < naxes; k++)
                if (strcmp(names[k], name) == 0)
                    m[j] = k;
            if (m[j] == NONE)
                return pl_fail(err, PL_ERR_INPUT, "the map's axis '%.60s' is not an axis of the study", name);
            if (nvalues[m[j]] < 2)
                return pl_fail(err, PL_ERR_INPUT, "the map's axis '%s' has one value", name);
        }
        if (m[0] == m[1])
            return pl_fail(err, PL_ERR_INPUT, "the map's two axes are one ('%s')", names[m[0]]);
        if (zip)
            return pl_fail(err, PL_ERR_INPUT, "a study of zipped axes has no map: its axes move together");
        return PL_OK;
    }
    for (size_t k = 0, j = 0; !zip && k < naxes && j < 2; k++)
        if (nvalues[k] > 1)
            m[j++] = k;
    if (m[1] == NONE)
        m[0] = NONE;
    return PL_OK;
}

/* The header of study.csv: every name one penlim could write, each once; the columns of the axes,
 * the point, the status and the quantities asked for. */
static pl_status read_header(const char *where, char *header, const pl_study_plot_opts *opts, pl_study_plots *p,
                             size_t *ncols, size_t *status_col, pl_error *err)
{
    size_t n = 1;
    for (const char *c = header; *c; c++)
        n += *c == ',';
    char **names = malloc(n * sizeof *names);
    if (!names)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory reading %s", where);
    split(header, names, n);
    pl_status s = PL_OK;
    for (size_t k = 0; s == PL_OK && k < n; k++) {
        if (!pl_case_name_valid(names[k]))
            s = pl_fail(err, PL_ERR_INPUT, "%s: column %zu's name is not 1 to 63 letters, digits, _ and - ('%.60s')",
                        where, k + 1, names[k]);
        for (size_t i = 0; s == PL_OK && i < k; i++)
            if (strcmp(names[i], names[k]) == 0)
                s = pl_fail(err, PL_ERR_INPUT, "%s: column '%s' twice", where, names[k]);
    }
    const char *const *cnames = (const char *const *)names;
    size_t status = s == PL_OK ? column_of(cnames, n, "status") : NONE;
    p->point_col = column_of(cnames, n, "point");
    if (s == PL_OK && (status == NONE || p->point_col == NONE))
        s = pl_fail(err, PL_ERR_INPUT, "%s: no column '%s'", where, status == NONE ? "status" : "point");
    for (size_t k = 0; s == PL_OK && k < p->naxes; k++) {
        axis *a = &p->axes[k];
        /* the axis's name, or t-end's column t_end */
        if ((a->col = column_of(cnames, n, a->name)) != NONE)
            snprintf(a->column, sizeof a->column, "%s", a->name);
        else
            a->col = column_of(cnames, n, a->column);
        if (a->col == NONE || a->col > status)
            s = pl_fail(err, PL_ERR_INPUT, "%s: no column '%s' before 'status' (axis '%s' of study.json)", where,
                        a->column, a->name);
    }
    size_t fam[PL_STUDY_MAX_FIGURES], map = NONE;
    if (s == PL_OK)
        s = pick_quantities(opts, cnames + status + 1, n - status - 1, where, fam, &p->nfq, &map,
                            err);
    if (s == PL_OK && !(p->fq = calloc(p->nfq ? p->nfq : 1, sizeof *p->fq)))
        s = pl_fail(err, PL_ERR_NOMEM, "out of memory reading %s", where);
    for (size_t k = 0; s == PL_OK && k <= p->nfq; k++) {
        quantity *q = k < p->nfq ? &p->fq[k] : &p->mq;
        q->col = status + 1 + (k < p->nfq ? fam[k] : map);
        snprintf(q->name, sizeof q->name, "%s", names[q->col]);
        q->log = log_quantity(q->name);
    }
    *ncols = n;
    *status_col = status;
    free(names);
    return s;
}

/* The line axis, how runs make lines, the map's axes. */
static pl_status plan_axes(const pl_study_plot_opts *opts, size_t npoints, pl_study_plots *p, pl_error *err)
{
    p->line_axis = NONE;
    for (size_t k = 0; k < p->naxes; k++)
        if (p->axes[k].refined && p->axes[k].n > 1)
            p->line_axis = k, p->by_point = 1;
    for (size_t k = 0; p->line_axis == NONE && k < p->naxes; k++)
        if (p->axes[k].n > 1)
            p->line_axis = k;
    if (p->by_point)
        p->total_lines = npoints;
    else if (p->zip)
        p->total_lines = 1; /* zipped axes move together: one line */
    else {
        p->total_lines = 1;
        for (size_t k = 0; k < p->naxes; k++)
            if (k != p->line_axis && p->total_lines < 1000000000)
                p->total_lines *= p->axes[k].n;
    }
    const char *names[MAX_AXES];
    size_t nvalues[MAX_AXES];
    for (size_t k = 0; k < p->naxes; k++)
        names[k] = p->axes[k].name, nvalues[k] = p->axes[k].n;
    return pick_map_axes(opts, names, nvalues, p->naxes, p->zip, p->map_axes, err);
}

/* What identifies a run's line: its point, or the values of the axes other than the line axis (none
 * when the axes are zipped). */
static size_t line_key(const pl_study_plots *p, const double *x, double point, double *key)
{
    if (p->by_point) {
        key[0] = point;
        return 1;
    }
    size_t n = 0;
    for (size_t k = 0; !p->zip && k < p->naxes; k++)
        if (k != p->line_axis)
            key[n++] = x[k];
    return n;
}

/* "e=0.5 N=3": the values of the axes with more than one value, but the line axis. */
static void line_label(const pl_study_plots *p, const double *x, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < p->naxes && used < len; k++) {
        if (k == p->line_axis || p->axes[k].n < 2)
            continue;
        char num[PL_NUMBER_LEN];
        used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", p->axes[k].column,
                                 pl_format_short(x[k], num, sizeof num));
    }
    if (!buf[0])
        snprintf(buf, len, "runs");
}

static int resize(void **a, size_t size, size_t n)
{
    void *q = realloc(*a, n * size);
    if (q)
        *a = q;
    return q != NULL;
}

/* Room for need rows of the lines (p->rows_cap), or 0. */
static int reserve_rows(pl_study_plots *p, size_t need)
{
    if (need <= p->rows_cap)
        return 1;
    size_t c = p->rows_cap ? 2 * p->rows_cap : 64;
    if (!resize((void **)&p->row_line, sizeof *p->row_line, c) || !resize((void **)&p->row_x, sizeof *p->row_x, c) ||
        !resize((void **)&p->row_ok, sizeof *p->row_ok, c) ||
        !resize((void **)&p->row_v, sizeof *p->row_v * (p->nfq ? p->nfq : 1), c))
        return 0;
    p->rows_cap = c;
    return 1;
}

static int reserve_cells(pl_study_plots *p, size_t need)
{
    if (need <= p->cells_cap)
        return 1;
    size_t c = p->cells_cap ? 2 * p->cells_cap : 64;
    if (!resize((void **)&p->map_a, sizeof *p->map_a, c) || !resize((void **)&p->map_b, sizeof *p->map_b, c) ||
        !resize((void **)&p->map_v, sizeof *p->map_v, c))
        return 0;
    p->cells_cap = c;
    return 1;
}

/* A row's axis values into x (each a value study.json lists) and its point. */
static pl_status row_coordinates(const char *where, size_t lineno, char **f, const pl_study_plots *p, double *x,
                                 double *point, pl_error *err)
{
    for (size_t k = 0; k < p->naxes; k++) {
        const axis *a = &p->axes[k];
        if (!parse_cell(f[a->col], &x[k]) || isnan(x[k]))
            return pl_fail(err, PL_ERR_INPUT, "%s line %zu: %s is not a finite number ('%.40s')", where, lineno,
                           a->column, f[a->col]);
        if (!has_value(a, x[k]))
            return pl_fail(err, PL_ERR_INPUT, "%s line %zu: %s = %.40s is not a value of axis %s in study.json", where,
                           lineno, a->column, f[a->col], a->name);
    }
    if (!parse_cell(f[p->point_col], point) || !(*point >= 0) || *point != floor(*point))
        return pl_fail(err, PL_ERR_INPUT, "%s line %zu: point is not a count ('%.40s')", where, lineno,
                       f[p->point_col]);
    return PL_OK;
}

static pl_status read_rows(const char *where, FILE *fp, size_t ncols, size_t status_col, pl_study_plots *p,
                           pl_error *err)
{
    char *buf = NULL;
    size_t cap = 0;
    char **f = malloc(ncols * sizeof *f);
    double *x = malloc(p->naxes * sizeof *x), *key = malloc((p->naxes + 1) * sizeof *key);
    double *v = malloc((p->nfq + 1) * sizeof *v);
    pl_status s = f && x && key && v ? PL_OK : pl_fail(err, PL_ERR_NOMEM, "out of memory reading %s", where);
    for (size_t lineno = 2; s == PL_OK; lineno++) {
        errno = 0;
        ssize_t got = getline(&buf, &cap, fp);
        if (got < 0) {
            if (ferror(fp))
                s = pl_fail(err, errno == ENOMEM ? PL_ERR_NOMEM : PL_ERR_IO, "cannot read %s: %s", where,
                            strerror(errno ? errno : EIO));
            break;
        }
        if ((size_t)got > MAX_LINE_BYTES) {
            s = pl_fail(err, PL_ERR_INPUT, "%s line %zu: more than %zu bytes", where, lineno, MAX_LINE_BYTES);
            break;
        }
        if (got > 0 && buf[got - 1] == '\n')
            buf[--got] = '\0';
        if (memchr(buf, '\0', (size_t)got)) {
            s = pl_fail(err, PL_ERR_INPUT, "%s line %zu: a NUL byte", where, lineno);
            break;
        }
        size_t n = split(buf, f, ncols);
        if (n != ncols) {
            s = pl_fail(err, PL_ERR_INPUT, "%s line %zu: %s%zu fields, not the header's %zu", where, lineno,
                        n > ncols ? "more than " : "", n > ncols ? ncols : n, ncols);
            break;
        }
        double point = 0;
        if ((s = row_coordinates(where, lineno, f, p, x, &point, err)) != PL_OK)
            break;
        int ok = strcmp(f[status_col], "ok") == 0;
        if (!ok && strcmp(f[status_col], "failed") != 0) {
            s = pl_fail(err, PL_ERR_INPUT, "%s line %zu: status is not ok or failed ('%.40s')", where, lineno,
                        f[status_col]);
            break;
        }
        /* its line: one of those seen, a new one while there is room, or none */
        size_t nk = line_key(p, x, point, key), l = NONE;
        for (size_t i = 0; p->line_axis != NONE && l == NONE && i < p->nlines; i++)
            if (memcmp(p->lines[i].key, key, nk * sizeof *key) == 0)
                l = i;
        if (p->line_axis != NONE && l == NONE && p->nlines < PL_STUDY_MAX_LINES) {
            line *L = &p->lines[p->nlines];
            if (!(L->key = malloc((nk ? nk : 1) * sizeof *key))) {
                s = pl_fail(err, PL_ERR_NOMEM, "out of memory reading %s", where);
                break;
            }
            memcpy(L->key, key, nk * sizeof *key);
            line_label(p, x, L->label, sizeof L->label);
            l = p->nlines++;
        }
        int in_map = p->map_axes[0] != NONE && ok;
        for (size_t k = 0; in_map && k < p->naxes; k++)
            in_map = k == p->map_axes[0] || k == p->map_axes[1] || x[k] == p->axes[k].slice;
        if (l == NONE && !in_map)
            continue;
        for (size_t q = 0; q < p->nfq + (in_map ? 1 : 0); q++) {
            const quantity *Q = q < p->nfq ? &p->fq[q] : &p->mq;
            if (!parse_cell(f[Q->col], &v[q])) {
                s = pl_fail(err, PL_ERR_INPUT, "%s line %zu: %s is not a number or nan ('%.40s')", where, lineno,
                            Q->name, f[Q->col]);
                break;
            }
        }
        if (s != PL_OK)
            break;
        if (l != NONE) {
            size_t r = p->nrows;
            if (!reserve_rows(p, r + 1)) {
                s = pl_fail(err, PL_ERR_NOMEM, "out of memory reading %s", where);
                break;
            }
            p->row_line[r] = l;
            p->row_x[r] = x[p->line_axis];
            p->row_ok[r] = ok;
            memcpy(&p->row_v[r * p->nfq], v, p->nfq * sizeof *v);
            p->nrows++;
        }
        if (in_map) {
            for (size_t c = 0; c < p->ncells; c++)
                if (p->map_a[c] == x[p->map_axes[0]] && p->map_b[c] == x[p->map_axes[1]]) {
                    s = pl_fail(err, PL_ERR_INPUT, "%s line %zu: a second run at %s = %s, %s = %s of the map", where,
                                lineno, p->axes[p->map_axes[0]].column, f[p->axes[p->map_axes[0]].col],
                                p->axes[p->map_axes[1]].column, f[p->axes[p->map_axes[1]].col]);
                    break;
                }
            size_t c = p->ncells;
            if (s == PL_OK && !reserve_cells(p, c + 1))
                s = pl_fail(err, PL_ERR_NOMEM, "out of memory reading %s", where);
            if (s != PL_OK)
                break;
            p->map_a[c] = x[p->map_axes[0]];
            p->map_b[c] = x[p->map_axes[1]];
            p->map_v[c] = v[p->nfq];
            p->ncells++;
        }
    }
    free(buf);
    free(f);
    free(x);
    free(key);
    free(v);
    return s;
}

static pl_status read_csv(const pl_output *out, const pl_study_plot_opts *opts, size_t npoints, pl_study_plots *p,
                          pl_error *err)
{
    char where[PATH_MAX + 16];
    snprintf(where, sizeof where, "%s/study.csv", out->root);
    pl_error e;
    int fd = pl_output_open_file(out, "study.csv", &e);
    if (fd < 0)
        return errno == ENOENT || errno == ELOOP || errno == ENOTDIR || errno == EINVAL
                   ? pl_fail(err, PL_ERR_INPUT, "%s lacks study.csv, which its figures need (a regular file)",
                             out->root)
                   : pl_fail(err, errno == ENOMEM ? PL_ERR_NOMEM : PL_ERR_IO, "%s", e.message);
    FILE *fp = fdopen(fd, "r");
    if (!fp) {
        int saved = errno;
        close(fd);
        return pl_fail(err, saved == ENOMEM ? PL_ERR_NOMEM : PL_ERR_IO, "cannot read %s: %s", where, strerror(saved));
    }
    char *header = NULL;
    size_t cap = 0, ncols = 0, status = NONE;
    errno = 0;
    ssize_t got = getline(&header, &cap, fp);
    pl_status s = PL_OK;
    if (got < 0 && ferror(fp))
        s = pl_fail(err, errno == ENOMEM ? PL_ERR_NOMEM : PL_ERR_IO, "cannot read %s: %s", where,
                    strerror(errno ? errno : EIO));
    else if (got <= 0)
        s = pl_fail(err, PL_ERR_INPUT, "%s is empty", where);
    else if ((size_t)got > MAX_LINE_BYTES || memchr(header, '\0', (size_t)got))
        s = pl_fail(err, PL_ERR_INPUT, "%s: its header is not a line of column names", where);
    if (s == PL_OK) {
        if (header[got - 1] == '\n')
            header[got - 1] = '\0';
        s = read_header(where, header, opts, p, &ncols, &status, err);
    }
    free(header);
    if (s == PL_OK)
        s = plan_axes(opts, npoints, p, err);
    if (s == PL_OK)
        s = read_rows(where, fp, ncols, status, p, err);
    fclose(fp);
    return s;
}

/* Whether line l has a value of family quantity q (an ok run with a finite one). */
static int has_data(const pl_study_plots *p, size_t q, size_t l)
{
    for (size_t r = 0; r < p->nrows; r++)
        if (p->row_ok[r] && (l == NONE || p->row_line[r] == l) && isfinite(p->row_v[r * p->nfq + q]))
            return 1;
    return 0;
}

static void plan_figures(pl_study_plots *p)
{
    for (size_t q = 0; p->line_axis != NONE && q < p->nfq; q++)
        if (has_data(p, q, NONE)) {
            figure *f = &p->figures[p->nfigures++];
            snprintf(f->name, sizeof f->name, "family_%s", p->fq[q].name);
            f->q = q;
        }
    int any = 0;
    for (size_t c = 0; c < p->ncells; c++)
        any |= isfinite(p->map_v[c]);
    if (p->map_axes[0] != NONE && any) {
        figure *f = &p->figures[p->nfigures++];
        snprintf(f->name, sizeof f->name, "map_%s", p->mq.name);
        f->map = 1;
    }
}

void pl_study_plots_free(pl_study_plots *p)
{
    if (!p)
        return;
    for (size_t k = 0; p->axes && k < p->naxes; k++)
        free(p->axes[k].sorted);
    free(p->axes);
    for (size_t l = 0; l < p->nlines; l++)
        free(p->lines[l].key);
    free(p->fq);
    free(p->row_line);
    free(p->row_x);
    free(p->row_v);
    free(p->row_ok);
    free(p->map_a);
    free(p->map_b);
    free(p->map_v);
    free(p);
}

pl_status pl_study_plots_read(const pl_output *out, const pl_study_plot_opts *opts, pl_study_plots **plots,
                              pl_error *err)
{
    *plots = NULL;
    pl_study_plots *p = calloc(1, sizeof *p);
    if (!p)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    size_t npoints = 0;
    pl_status s = read_json(out, p, &npoints, err);
    if (s == PL_OK)
        s = read_csv(out, opts, npoints, p, err);
    if (s != PL_OK) {
        pl_study_plots_free(p);
        return s;
    }
    plan_figures(p);
    if (opts)
        p->progress = opts->progress, p->user = opts->user;
    *plots = p;
    return PL_OK;
}

size_t pl_study_plots_count(const pl_study_plots *p)
{
    return p->nfigures;
}

const char *pl_study_plots_name(const pl_study_plots *p, size_t k)
{
    return k < p->nfigures ? p->figures[k].name : NULL;
}

pl_status pl_study_plot_check(const pl_study_plot_opts *opts, const char *const *axes, const size_t *nvalues,
                              size_t naxes, int zip, const char *const *columns, size_t ncolumns, pl_error *err)
{
    size_t fam[PL_STUDY_MAX_FIGURES], nfam, map, m[2];
    pl_status s = pick_quantities(opts, columns, ncolumns, "the study", fam, &nfam, &map, err);
    return s == PL_OK ? pick_map_axes(opts, axes, nvalues, naxes, zip, m, err) : s;
}

/* The files of figure name: NAME.gp, .png, .pdf, .csv. */
static pl_status figure_files(const char *name, pl_strings *files, pl_error *err)
{
    char dat[NAME_LEN + 16];
    snprintf(dat, sizeof dat, "%s.csv", name);
    pl_status s = pl_plot_files(name, files, err);
    return s == PL_OK && !pl_strings_has(files, dat) ? pl_strings_add(files, dat, err) : s;
}

static pl_status script_files(int family, int map, pl_strings *files, pl_error *err)
{
    pl_status s = PL_OK;
    if (family && !pl_strings_has(files, "study_family.gp"))
        s = pl_strings_add(files, "study_family.gp", err);
    if (s == PL_OK && map && !pl_strings_has(files, "study_map.gp"))
        s = pl_strings_add(files, "study_map.gp", err);
    if (s == PL_OK && (family || map))
        s = pl_plot_common_files(files, err);
    return s;
}

pl_status pl_study_plot_planned_files(const pl_study_plot_opts *opts, const char *const *columns, size_t ncolumns,
                                      pl_strings *files, pl_error *err)
{
    size_t fam[PL_STUDY_MAX_FIGURES], nfam, map;
    pl_status s = pick_quantities(opts, columns, ncolumns, "the study", fam, &nfam, &map, err);
    char name[NAME_LEN + 8];
    for (size_t k = 0; s == PL_OK && k <= nfam; k++) {
        snprintf(name, sizeof name, "%s_%s", k < nfam ? "family" : "map", columns[k < nfam ? fam[k] : map]);
        s = figure_files(name, files, err);
    }
    return s == PL_OK ? script_files(1, 1, files, err) : s;
}

/* ---- writing ------------------------------------------------------------------------------------ */

static int uses(const pl_study_plots *p, int map)
{
    for (size_t k = 0; k < p->nfigures; k++)
        if (p->figures[k].map == map)
            return 1;
    return 0;
}

pl_status pl_study_plots_files(const pl_study_plots *p, pl_strings *files, pl_error *err)
{
    pl_status s = PL_OK;
    for (size_t k = 0; s == PL_OK && k < p->nfigures; k++)
        s = figure_files(p->figures[k].name, files, err);
    return s == PL_OK ? script_files(uses(p, 0), uses(p, 1), files, err) : s;
}

static void put_number(FILE *fp, const char *sep, double x)
{
    char num[PL_NUMBER_LEN];
    fprintf(fp, "%s%s", sep, pl_format_double(x, num, sizeof num));
}

typedef struct {
    size_t line, row;
    double x;
} line_point;

static int cmp_line_point(const void *a, const void *b)
{
    const line_point *u = a, *v = b;
    if (u->line != v->line)
        return u->line < v->line ? -1 : 1;
    if (u->x != v->x)
        return u->x < v->x ? -1 : 1;
    return u->row < v->row ? -1 : u->row > v->row;
}

/* FIGURE.csv of a family (docs/formats.md, "Data files for figures"): the header label,AXIS,QUANTITY,
 * then one block per line with a value (two blank lines between blocks), its runs in order of the
 * axis, each row its line's label (the values of the other axes), the axis value and the quantity;
 * a blank line (a break in the line) where a run failed or has no value. */
static pl_status write_family_dat(pl_output *out, const pl_study_plots *p, const figure *fig, size_t *nlines,
                                  size_t *klen, pl_error *err)
{
    const quantity *q = &p->fq[fig->q];
    const axis *a = &p->axes[p->line_axis];
    line_point *order = malloc((p->nrows ? p->nrows : 1) * sizeof *order);
    if (!order)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    for (size_t r = 0; r < p->nrows; r++)
        order[r] = (line_point){p->row_line[r], r, p->row_x[r]};
    qsort(order, p->nrows, sizeof *order, cmp_line_point);
    char file[NAME_LEN + 16];
    snprintf(file, sizeof file, "%s.csv", fig->name);
    pl_file f;
    pl_status s = pl_file_open(&f, out, NULL, file, err);
    if (s != PL_OK) {
        free(order);
        return s;
    }
    fprintf(f.fp, "label,%s,%s\n", a->column, q->name);
    *nlines = *klen = 0;
    for (size_t i = 0; i < p->nrows;) {
        size_t l = order[i].line, end = i;
        while (end < p->nrows && order[end].line == l)
            end++;
        if (has_data(p, fig->q, l)) {
            fputs(*nlines ? "\n\n" : "", f.fp);
            size_t len = strlen(p->lines[l].label);
            *klen = len > *klen ? len : *klen;
            int gap = 0, drawn = 0;
            for (size_t j = i; j < end; j++) {
                size_t r = order[j].row;
                double v = p->row_v[r * p->nfq + fig->q];
                if (!p->row_ok[r] || !isfinite(v)) {
                    gap = drawn;
                    continue;
                }
                fputs(gap ? "\n" : "", f.fp);
                pl_put_text(f.fp, p->lines[l].label);
                put_number(f.fp, ",", p->row_x[r]);
                put_number(f.fp, ",", v);
                fputc('\n', f.fp);
                gap = 0;
                drawn = 1;
            }
            (*nlines)++;
        }
        i = end;
    }
    free(order);
    return pl_file_commit(&f, err);
}

/* The edges of the cells of an axis's values (its sorted values, n >= 2): halfway between
 * neighbours (in log for a log axis), the outer ones as far out as the inner, but not past 0 on a
 * linear axis whose values all lie on one side of it (k2 in {0.5, 2} is drawn from 0, not from -0.25:
 * a parameter's sign is part of what the axis says). */
static void cell_edges(const axis *a, double *edges)
{
    size_t n = a->n;
    double t[3];
    for (size_t i = 0; i <= n; i++) {
        size_t lo = i == 0 ? 0 : i == n ? n - 2 : i - 1, hi = lo + 1;
        for (int j = 0; j < 2; j++)
            t[j] = a->log ? log(a->sorted[j ? hi : lo]) : a->sorted[j ? hi : lo];
        t[2] = i == 0 ? t[0] - (t[1] - t[0]) / 2 : i == n ? t[1] + (t[1] - t[0]) / 2 : (t[0] + t[1]) / 2;
        edges[i] = a->log ? exp(t[2]) : t[2];
    }
    if (!a->log && a->sorted[0] >= 0.0 && edges[0] < 0.0)
        edges[0] = 0.0;
    if (!a->log && a->sorted[n - 1] <= 0.0 && edges[n] > 0.0)
        edges[n] = 0.0;
}

static size_t value_index(const axis *a, double x)
{
    const double *at = bsearch(&x, a->sorted, a->n, sizeof x, cmp_double);
    return (size_t)(at - a->sorted);
}

/* The key of the map: the quantity and the values the other axes are held at (those of one value
 * left out). */
static void map_key(const pl_study_plots *p, char *label, size_t len)
{
    size_t head = (size_t)snprintf(label, len, "%s", p->mq.name), used = head;
    for (size_t k = 0; k < p->naxes && used < len; k++)
        if (k != p->map_axes[0] && k != p->map_axes[1] && p->axes[k].n > 1) {
            char num[PL_NUMBER_LEN];
            used += (size_t)snprintf(label + used, len - used, "%s%s=%s", used == head ? " at " : " ",
                                     p->axes[k].column, pl_format_short(p->axes[k].slice, num, sizeof num));
        }
    if (used == head)
        snprintf(label + used, len - used, ", one cell per run");
}

/* FIGURE.csv of the map: the header X,Y,X_low,X_high,Y_low,Y_high,QUANTITY (X and Y the axes'
 * columns), then one row per cell with a value: the two axes' values, the cell's edges, the value. */
static pl_status write_map_dat(pl_output *out, const pl_study_plots *p, const figure *fig, pl_error *err)
{
    const axis *A = &p->axes[p->map_axes[0]], *B = &p->axes[p->map_axes[1]];
    double *ea = malloc((A->n + 1) * sizeof *ea), *eb = malloc((B->n + 1) * sizeof *eb);
    if (!ea || !eb) {
        free(ea);
        free(eb);
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    }
    cell_edges(A, ea);
    cell_edges(B, eb);
    char file[NAME_LEN + 16];
    snprintf(file, sizeof file, "%s.csv", fig->name);
    pl_file f;
    pl_status s = pl_file_open(&f, out, NULL, file, err);
    if (s == PL_OK) {
        fprintf(f.fp, "%s,%s,%s_low,%s_high,%s_low,%s_high,%s\n", A->column, B->column, A->column, A->column,
                B->column, B->column, p->mq.name);
        for (size_t c = 0; c < p->ncells; c++) {
            if (!isfinite(p->map_v[c]))
                continue;
            size_t i = value_index(A, p->map_a[c]), j = value_index(B, p->map_b[c]);
            const double row[] = {p->map_a[c], p->map_b[c], ea[i], ea[i + 1], eb[j], eb[j + 1], p->map_v[c]};
            for (size_t k = 0; k < 7; k++)
                put_number(f.fp, k ? "," : "", row[k]);
            fputc('\n', f.fp);
        }
        s = pl_file_commit(&f, err);
    }
    free(ea);
    free(eb);
    return s;
}

/* An axis's dimension: a parameter's of the built-in case (PL_DIM_UNKNOWN where the case declares no
 * units) or of the study's law, t-end a time; PL_DIM_UNKNOWN for any other (a model compiled apart, a
 * solver's option). */
static pl_dim axis_dim(const pl_study_plots *p, const axis *a)
{
    const pl_dim unknown = {PL_DIM_UNKNOWN, PL_DIM_UNKNOWN};
    if (strcmp(a->name, "t-end") == 0)
        return (pl_dim){0, 1};
    const pl_case *c = p->builtin;
    int k = c ? pl_param_find(c->params, c->nparams, a->name) : -1;
    if (k >= 0 && !(c->params[k].flags & PL_PARAM_LAW))
        return pl_case_dims(c) ? pl_case_dims(c)[k] : unknown;
    k = pl_law_param_index(p->law, a->name);
    return k >= 0 && p->law->dims ? p->law->dims[k] : unknown;
}

/* styles.gp's param_dims: "COLUMN:L:T" for each parameter axis of the figure (mu, h and rtol are in its
 * table of quantities), so that its label says its unit; written for every such axis, an unknown
 * dimension too, so that no name is read as a quantity's ("h0" as the step h). */
static void put_param_dims(FILE *fp, const pl_study_plots *p, const axis *const *axes, size_t n)
{
    char text[4 * (NAME_LEN + 32)];
    size_t used = 0;
    text[0] = '\0';
    for (size_t k = 0; k < n && used < sizeof text; k++) {
        if (axes[k]->refined || strcmp(axes[k]->name, "mu") == 0 || strcmp(axes[k]->name, "h") == 0 ||
            strcmp(axes[k]->name, "rtol") == 0)
            continue;
        pl_dim d = axis_dim(p, axes[k]);
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s:%d:%d", used ? " " : "", axes[k]->column,
                                 d.L, d.T);
    }
    pl_gp_put_string(fp, "param_dims", text);
}

/* FIGURE.gp: the figure's settings, then the scripts that draw it.  Names (checked when read) and
 * counts only: every value is in FIGURE.csv. */
static pl_status write_figure_script(pl_output *out, const pl_study_plots *p, const figure *fig, size_t nlines,
                                     size_t klen, pl_error *err)
{
    /* the title: the case, the solver, the quantity and the axes in words (study_family.gp and
     * study_map.gp compose it from styles.gp's table), then title_tail, written here */
    char file[NAME_LEN + 16], title[512], key[512];
    snprintf(file, sizeof file, "%s.gp", fig->name);
    pl_file f;
    pl_status s = pl_file_open(&f, out, NULL, file, err);
    if (s != PL_OK)
        return s;
    fprintf(f.fp, "# Written by penlim: a figure of a study, drawn from %s.csv (`gnuplot %s` draws %s.png and "
                  "%s.pdf again).\n",
            fig->name, file, fig->name, fig->name);
    pl_gp_put_string(f.fp, "figure", fig->name);
    if (fig->map) {
        const axis *A = &p->axes[p->map_axes[0]], *B = &p->axes[p->map_axes[1]];
        snprintf(title, sizeof title, " (white: no value)");
        pl_gp_put_string(f.fp, "quantity", p->mq.name);
        pl_gp_put_string(f.fp, "xname", A->column);
        pl_gp_put_string(f.fp, "yname", B->column);
        pl_gp_put_int(f.fp, "logx", A->log);
        pl_gp_put_int(f.fp, "logy", B->log);
        pl_gp_put_int(f.fp, "logcb", p->mq.log);
        map_key(p, key, sizeof key);
        pl_gp_put_string(f.fp, "key_text", key);
        put_param_dims(f.fp, p, (const axis *const[]){A, B}, 2);
    } else {
        const quantity *q = &p->fq[fig->q];
        const axis *a = &p->axes[p->line_axis];
        int n = snprintf(title, sizeof title, ", one line per %s",
                         p->by_point ? "point of the other axes" : "value of the other axes");
        if (p->total_lines > p->nlines && n > 0 && (size_t)n < sizeof title)
            snprintf(title + n, sizeof title - (size_t)n, " (the first %zu of %zu)", p->nlines, p->total_lines);
        pl_gp_put_string(f.fp, "quantity", q->name);
        pl_gp_put_string(f.fp, "xname", a->column);
        pl_gp_put_int(f.fp, "logx", a->log);
        pl_gp_put_int(f.fp, "logy", q->log);
        pl_gp_put_int(f.fp, "nlines", (long)nlines);
        pl_gp_put_int(f.fp, "klen", (long)klen);
        put_param_dims(f.fp, p, (const axis *const[]){a}, 1);
    }
    pl_gp_put_string(f.fp, "case_name", p->case_name);
    pl_gp_put_string(f.fp, "solver", p->solver);
    pl_gp_put_string(f.fp, "title_tail", title);
    pl_gp_put_int(f.fp, "physical_k", p->physical_k);
    fprintf(f.fp, "load 'styles.gp'\nload '%s'\n", fig->map ? "study_map.gp" : "study_family.gp");
    return pl_file_commit(&f, err);
}

pl_status pl_study_plots_write(pl_output *out, const pl_study_plots *p, pl_error *err)
{
    pl_status s = PL_OK;
    if (p->nfigures > 0)
        s = pl_plot_write_script(out, "styles", err);
    if (s == PL_OK && uses(p, 0))
        s = pl_plot_write_script(out, "study_family", err);
    if (s == PL_OK && uses(p, 1))
        s = pl_plot_write_script(out, "study_map", err);
    for (size_t k = 0; s == PL_OK && k < p->nfigures; k++) {
        const figure *fig = &p->figures[k];
        size_t nlines = 0, klen = 0;
        s = fig->map ? write_map_dat(out, p, fig, err) : write_family_dat(out, p, fig, &nlines, &klen, err);
        if (s == PL_OK)
            s = write_figure_script(out, p, fig, nlines, klen, err);
    }
    return s;
}

pl_status pl_study_plots_render(pl_output *out, const pl_study_plots *p, const pl_budget *budget, pl_error *err)
{
    if (p->nfigures == 0)
        return PL_OK;
    pl_status s = pl_plot_start_log(out, err);
    for (size_t k = 0; s == PL_OK && k < p->nfigures; k++)
        if ((s = pl_plot_render(out, p->figures[k].name, budget, err)) == PL_OK && p->progress)
            p->progress(k + 1, p->nfigures, p->user);
    return s;
}

pl_status pl_render_study_plots(pl_output *out, const pl_study_plot_opts *opts, const pl_budget *budget,
                                pl_error *err)
{
    pl_study_plots *p;
    pl_status s = pl_output_open(out, err);
    if (s == PL_OK)
        s = pl_study_plots_read(out, opts, &p, err);
    if (s != PL_OK)
        return s;
    if ((s = pl_study_plots_write(out, p, err)) == PL_OK)
        s = pl_study_plots_render(out, p, budget, err);
    pl_study_plots_free(p);
    return s;
}
