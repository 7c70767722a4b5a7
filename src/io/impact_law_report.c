#include "io/impact_law_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/plot_config.h"
#include "io/plots.h"
#include "laws/approximations.h"

#define MAX_SPEEDS 100000
#define CONFIG_NAME "impact_law_config.gp"
#define FIGURE_NAME "impact_law"

/* One number of --v, its text copied out of the list (at most 63 characters). */
static pl_status parse_one(const char *start, size_t len, double *x, pl_error *err)
{
    char buf[64];
    if (len >= sizeof buf)
        return pl_fail(err, PL_ERR_INPUT, "--v: '%.*s...' is not a number", 20, start);
    memcpy(buf, start, len);
    buf[len] = '\0';
    return pl_parse_double(buf, x, err, "--v");
}

pl_status pl_impact_law_parse_speeds(const char *text, double **v, size_t *nv, pl_error *err)
{
    *v = NULL;
    *nv = 0;
    if (!text || !*text)
        return pl_fail(err, PL_ERR_INPUT, "--v: empty, expected A:B:N or a,b,c");
    const char *c1 = strchr(text, ':');
    if (c1) {
        const char *c2 = strchr(c1 + 1, ':');
        double a, b;
        long n;
        if (!c2 || strchr(c2 + 1, ':'))
            return pl_fail(err, PL_ERR_INPUT, "--v: '%s' is not A:B:N", text);
        pl_status s = parse_one(text, (size_t)(c1 - text), &a, err);
        if (s == PL_OK)
            s = parse_one(c1 + 1, (size_t)(c2 - c1 - 1), &b, err);
        if (s == PL_OK)
            s = pl_parse_long(c2 + 1, &n, err, "--v (the number of speeds N)");
        if (s != PL_OK)
            return s;
        if (!(a > 0.0 && b > a))
            return pl_fail(err, PL_ERR_INPUT, "--v: '%s': the speeds A:B must satisfy 0 < A < B", text);
        if (n < 2 || n > MAX_SPEEDS)
            return pl_fail(err, PL_ERR_INPUT, "--v: '%s': N must be in [2, %d]", text, MAX_SPEEDS);
        if (!(*v = malloc((size_t)n * sizeof **v)))
            return pl_fail(err, PL_ERR_NOMEM, "out of memory");
        /* Evenly spaced in log V: the restitution of a nonlinear law changes over decades of speed. */
        for (long k = 0; k < n; k++)
            (*v)[k] = k == 0 ? a : k == n - 1 ? b : a * pow(b / a, (double)k / (double)(n - 1));
        *nv = (size_t)n;
        return PL_OK;
    }
    size_t count = 1;
    for (const char *p = text; *p; p++)
        count += *p == ',';
    if (count > MAX_SPEEDS)
        return pl_fail(err, PL_ERR_INPUT, "--v: more than %d speeds", MAX_SPEEDS);
    if (!(*v = malloc(count * sizeof **v)))
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    const char *p = text;
    for (size_t k = 0; k < count; k++) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        pl_status s = parse_one(p, len, &(*v)[k], err);
        if (s == PL_OK && !((*v)[k] > 0.0))
            s = pl_fail(err, PL_ERR_INPUT, "--v: speed %.*s is not positive", (int)(len < 40 ? len : 40), p);
        if (s == PL_OK && k > 0 && !((*v)[k] > (*v)[k - 1]))
            s = pl_fail(err, PL_ERR_INPUT, "--v: the speeds must increase (%.*s after a larger or equal one)",
                        (int)(len < 40 ? len : 40), p);
        if (s != PL_OK) {
            free(*v);
            *v = NULL;
            return s;
        }
        p = end ? end + 1 : p + len;
    }
    *nv = count;
    return PL_OK;
}

static size_t approximations_of(const pl_impact_law *law)
{
    return isnan(law->c) ? 0 : pl_impact_approximation_count();
}

pl_status pl_impact_law_table(const pl_impact_law *law, const double *v, size_t nv, pl_table *t, pl_error *err)
{
    size_t na = approximations_of(law);
    pl_table_init(t, 2 + 2 * na);
    double *row = malloc(t->ncol * sizeof *row);
    if (!row)
        return pl_fail(err, PL_ERR_NOMEM, "out of memory");
    pl_status s = PL_OK;
    for (size_t k = 0; s == PL_OK && k < nv; k++) {
        row[0] = v[k];
        row[1] = law->restitution(v[k], law->params);
        for (size_t j = 0; j < na; j++) {
            row[2 + j] = pl_impact_approximation_at(j)->restitution(law->c * v[k]);
            row[2 + na + j] = row[2 + j] - row[1];
        }
        s = pl_table_append(t, row, err);
    }
    free(row);
    return s;
}

void pl_impact_law_header(const pl_impact_law *law, char *buf, size_t len)
{
    size_t na = approximations_of(law), used = (size_t)snprintf(buf, len, "v,e");
    for (size_t pass = 0; pass < 2; pass++)
        for (size_t j = 0; j < na && used < len; j++)
            used += (size_t)snprintf(buf + used, len - used, ",%s%s", pass ? "err_" : "",
                                     pl_impact_approximation_at(j)->name);
}

pl_status pl_impact_law_files(pl_strings *files, pl_error *err)
{
    pl_status s = pl_strings_add(files, "impact_law.csv", err);
    if (s == PL_OK)
        s = pl_strings_add(files, CONFIG_NAME, err);
    if (s == PL_OK)
        s = pl_plot_files(FIGURE_NAME, files, err);
    if (s == PL_OK)
        s = pl_plot_common_files(files, err);
    return s;
}

pl_status pl_impact_law_render(pl_output *out, const pl_budget *budget, pl_error *err)
{
    pl_status s = pl_plot_start_log(out, err);
    return s == PL_OK ? pl_plot_render(out, FIGURE_NAME, budget, err) : s;
}

pl_status pl_impact_law_write(pl_output *out, const pl_impact_law *law, const pl_table *t, pl_error *err)
{
    char header[1024];
    pl_impact_law_header(law, header, sizeof header);
    pl_status s = pl_write_csv(out, NULL, "impact_law.csv", header, t, err);
    if (s != PL_OK)
        return s;
    pl_file f;
    if ((s = pl_file_open(&f, out, NULL, CONFIG_NAME, err)) != PL_OK)
        return s;
    fprintf(f.fp, "# Written by penlim impact-law: what impact_law.gp reads.\n");
    pl_gp_put_string(f.fp, "law", law->law);
    pl_gp_put_string(f.fp, "settings", law->settings);
    size_t na = approximations_of(law);
    int first = 1;
    pl_gp_begin_words(f.fp, "approximations");
    for (size_t j = 0; j < na; j++)
        pl_gp_put_word(f.fp, pl_impact_approximation_at(j)->name, &first);
    pl_gp_end_words(f.fp);
    pl_gp_put_int(f.fp, "nv", (long)t->nrows);
    pl_gp_put_number(f.fp, "c", law->c); /* NaN: a law whose e is not a function of c V */
    if ((s = pl_file_commit(&f, err)) != PL_OK)
        return s;
    if ((s = pl_plot_write_script(out, "styles", err)) != PL_OK)
        return s;
    return pl_plot_write_script(out, FIGURE_NAME, err);
}

int pl_impact_law_approximation_known(const char *word)
{
    for (size_t j = 0; j < pl_impact_approximation_count(); j++)
        if (strcmp(pl_impact_approximation_at(j)->name, word) == 0)
            return 1;
    return 0;
}
