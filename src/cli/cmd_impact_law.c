/* penlim impact-law: a contact law's limit restitution over impact speeds, against the literature's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "io/impact_law_report.h"
#include "laws/approximations.h"
#include "laws/law.h"

static const char impact_law_usage[] =
    "usage: penlim impact-law [--law NAME] [--set NAME=VALUE ...] [--v A:B:N | --v a,b,c] [--out DIR]\n"
    "                         [--no-plots] [--max-seconds S] [--force] [--quiet]\n"
    "The limit (infinite stiffness) impact map of a contact law for a single contact: the restitution\n"
    "e of an isolated impact against the impact speed V, and for hunt_crossley the closed-form\n"
    "relations the literature uses to choose c from e (Hunt-Crossley 1975, Lankarani-Nikravesh\n"
    "1990, Gonthier et al. 2004, Zhiying-Qishao 2006, Flores et al. 2011, Hu-Guo 2015) with their\n"
    "errors.  Writes DIR/impact_law.csv and the figure impact_law.png, .pdf (formats:\n"
    "docs/formats.md; the laws and relations: docs/laws.md).\n"
    "  --law NAME        the contact law: hunt_crossley (default), kelvin_voigt, kelvin_voigt_clamped, hertz\n"
    "  --set NAME=VALUE  a parameter of the law (hunt_crossley: c >= 0 in 1/velocity; its k and n\n"
    "                    do not change the limit restitution)\n"
    "  --v A:B:N         N impact speeds evenly spaced in log V from A to B (0 < A < B, 2 <= N <= 1e5)\n"
    "  --v a,b,c         the impact speeds listed (positive, increasing); default 0.01:10:61\n"
    "  --out DIR         output directory (default out/impact-law/LAW)\n"
    "  --no-plots        write the data and the plot configuration, but do not run gnuplot\n"
    "  --max-seconds S   bound gnuplot's time (the figure is skipped, with a warning, when it runs out)\n"
    "  --force           write into DIR even if it holds files penlim did not write\n"
    "  --quiet           print nothing on success\n";

/* The law named by the options, with its parameters filled and checked (pl_law_fill): -1 to go on, or
 * an exit status.  The command's default law is hunt_crossley, the one whose limit depends on the
 * speed (the registry's default, kelvin_voigt, has the same e at every V). */
typedef struct {
    const pl_law_type *type;
    double p[PL_LAW_MAX_PARAMS];
} impact_law_params;

static double registry_restitution_at(double V, const void *params)
{
    const impact_law_params *par = params;
    return par->type->restitution(par->p, V);
}

static int impact_law_resolve(const impact_law_options *io, pl_impact_law *law, impact_law_params *par,
                              char *settings, size_t len)
{
    pl_error err;
    const char *name = io->law ? io->law : "hunt_crossley";
    par->type = pl_law_type_find(name);
    if (!par->type) {
        char names[256] = "";
        for (size_t k = 0; k < pl_law_type_count(); k++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "",
                     pl_law_type_at(k)->name);
        char fmt[400];
        snprintf(fmt, sizeof fmt, "unknown law '%%s' (laws: %s)", names);
        return input_error("impact-law", fmt, name);
    }
    if (pl_law_fill(par->type, NULL, 0, io->settings, io->nsettings, par->p, NULL, &err) != PL_OK)
        return failure("impact-law", &err);
    if (!par->type->restitution || isnan(par->type->restitution(par->p, 1.0)))
        return input_error("impact-law", "the law %s has no closed-form limit restitution", par->type->name);
    size_t used = 0;
    settings[0] = '\0';
    for (size_t k = 0; k < par->type->nparams && used < len; k++) {
        char v[PL_NUMBER_LEN];
        used += (size_t)snprintf(settings + used, len - used, "%s%s=%s", k ? " " : "", par->type->params[k].name,
                                 num(par->p[k], v));
    }
    int c = strcmp(par->type->name, "hunt_crossley") == 0 ? pl_law_param_index(par->type, "c") : -1;
    *law = (pl_impact_law){par->type->name, settings, registry_restitution_at, par, c >= 0 ? par->p[c] : NAN};
    return -1;
}

static void print_impact_law(const pl_impact_law *law, const pl_table *t, const char *dir, const pl_strings *written)
{
    size_t na = (t->ncol - 2) / 2;
    printf("penlim impact-law %s (%s): limit restitution of an isolated impact at %zu speeds\n", law->law,
           law->settings, t->nrows);
    printf("%12s %12s", "v", "e");
    if (na)
        printf(" %12s", "c v");
    for (size_t j = 0; j < na; j++) {
        char head[16];
        snprintf(head, sizeof head, "%.12s", pl_impact_approximation_at(j)->name);
        printf(" %12s", head);
    }
    printf("\n");
    for (size_t r = 0; r < t->nrows; r++) {
        const double *row = pl_table_row(t, r);
        printf("%12.6g %12.8f", row[0], row[1]);
        if (na)
            printf(" %12.6g", law->c * row[0]);
        for (size_t j = 0; j < na; j++)
            if (isnan(row[2 + j]))
                printf(" %12s", "n/a");
            else
                printf(" %12.8f", row[2 + j]);
        printf("\n");
    }
    for (size_t j = 0; j < na; j++) {
        double worst = NAN, at = NAN;
        for (size_t r = 0; r < t->nrows; r++) {
            double e = fabs(pl_table_row(t, r)[2 + na + j]);
            if (!isnan(e) && (isnan(worst) || e > worst))
                worst = e, at = pl_table_row(t, r)[0];
        }
        const pl_impact_approximation *a = pl_impact_approximation_at(j);
        if (isnan(worst))
            printf("%-26s (chi = %s): undefined at every speed (c V > %.4g)\n", a->name, a->chi, a->cv_max);
        else
            printf("%-26s (chi = %s): max |e_approx - e| = %.2e at v = %.4g\n", a->name, a->chi, worst, at);
    }
    if (na)
        printf("(n/a: c V beyond the c V the relation gives to e = 0)\n");
    char esc[1024];
    pl_escape(dir, esc, sizeof esc);
    print_written(esc, written);
}

int cmd_impact_law(int argc, char **argv)
{
    impact_law_options io;
    pl_error err;
    if (cli_parse_impact_law(argc, argv, &io, &err) != PL_OK)
        return failure("impact-law", &err);
    if (io.help) {
        fputs(impact_law_usage, stdout);
        return 0;
    }
    pl_budget budget = {io.max_seconds, pl_now_seconds()};
    pl_impact_law law;
    impact_law_params par;
    char settings[256];
    int rc = impact_law_resolve(&io, &law, &par, settings, sizeof settings);
    if (rc >= 0)
        return rc;
    double *v = NULL;
    size_t nv = 0;
    if (pl_impact_law_parse_speeds(io.speeds ? io.speeds : "0.01:10:61", &v, &nv, &err) != PL_OK) {
        free(v);
        return failure("impact-law", &err);
    }
    pl_table t;
    pl_status s = pl_impact_law_table(&law, v, nv, &t, &err);
    if (s != PL_OK) {
        free(v);
        pl_table_free(&t);
        return failure("impact-law", &err);
    }
    char out_default[256];
    snprintf(out_default, sizeof out_default, "out/impact-law/%s", law.law);
    case_options o = {.cmd = "impact-law", .out = io.out ? io.out : out_default, .force = io.force};
    outdir_session d;
    if ((rc = outdir_start(&o, &d)) >= 0) {
        free(v);
        pl_table_free(&t);
        outdir_end(&d);
        return rc;
    }
    json_t *params = json_object();
    for (size_t k = 0; k < par.type->nparams; k++)
        PL_JSON_SET(params, par.type->params[k].name, pl_json_number(par.p[k]));
    d.manifest = json_object();
    PL_JSON_SET(d.manifest, "penlim_manifest", json_integer(1));
    PL_JSON_SET(d.manifest, "penlim_version", json_string(PENLIM_VERSION));
    PL_JSON_SET(d.manifest, "command", json_string("impact-law"));
    PL_JSON_SET(d.manifest, "law", json_string(law.law));
    PL_JSON_SET(d.manifest, "parameters", params);
    PL_JSON_SET(d.manifest, "speeds", pl_json_array(v, nv));
    PL_JSON_SET(d.manifest, "files", json_array());
    free(v);
    s = d.manifest ? pl_impact_law_files(&d.planned, &err) : pl_fail(&err, PL_ERR_NOMEM, "out of memory");
    json_t *journal = json_deep_copy(d.manifest);
    if (s == PL_OK)
        s = journal ? pl_outdir_begin(&d.out, &d.st, journal, &d.planned, &d.keep, &err)
                    : pl_fail(&err, PL_ERR_NOMEM, "out of memory");
    json_decref(journal);
    if (s == PL_OK)
        s = pl_impact_law_write(&d.out, &law, &t, &err);
    pl_error plot_err;
    pl_status plots = s == PL_OK && !io.no_plots ? pl_impact_law_render(&d.out, &budget, &plot_err) : PL_OK;
    if (s == PL_OK)
        s = pl_outdir_finish(&d.out, &d.st, &d.planned, d.manifest, &err);
    if (s != PL_OK) {
        fprintf(stderr, "penlim impact-law: %s\n", err.message);
        pl_table_free(&t);
        outdir_end(&d);
        return exit_code(s);
    }
    if (plots != PL_OK) {
        char dir[1024];
        pl_escape(o.out, dir, sizeof dir);
        fprintf(stderr, "penlim impact-law: warning: plots skipped: %s (the data and scripts are in %s)\n",
                plot_err.message, dir);
    }
    if (!io.quiet)
        print_impact_law(&law, &t, o.out, &d.out.written);
    pl_table_free(&t);
    outdir_end(&d);
    return 0;
}
