/* The limit impact map of a contact law for a single contact over impact speeds (`penlim
 * impact-law`): its restitution e(V) and, for Hunt-Crossley, the literature's closed-form relations
 * (laws/approximations.h) with their errors; the table, impact_law.csv and the figure's data.
 * Formats: docs/formats.md. */
#ifndef PL_IMPACT_LAW_REPORT_H
#define PL_IMPACT_LAW_REPORT_H

#include <stddef.h>

#include "core/clock.h"
#include "core/status.h"
#include "core/table.h"
#include "io/output.h"

typedef struct {
    const char *law;      /* its name: a plain word */
    const char *settings; /* its parameters as plain words "c=0.5 n=1.5", for titles */
    /* The law's limit restitution at impact speed V > 0. */
    double (*restitution)(double V, const void *params);
    const void *params;
    /* Hunt-Crossley's c: the approximations are evaluated at c V (NAN: the law has none). */
    double c;
} pl_impact_law;

/* The speeds of `--v A:B:N` (N >= 2 points evenly spaced in log V from A to B, 0 < A < B) or
 * `--v a,b,c` (each > 0, finite, strictly increasing), at most 100000.  *v is allocated (free it);
 * PL_ERR_INPUT with a one-line message naming the problem. */
pl_status pl_impact_law_parse_speeds(const char *text, double **v, size_t *nv, pl_error *err);

/* The table: one row per speed, columns v, e, then one per approximation (its e at c V, nan where it
 * assigns none), then their errors e_approx - e, in the order of laws/approximations.h; a law
 * without c: v and e alone.  t is initialised here. */
pl_status pl_impact_law_table(const pl_impact_law *law, const double *v, size_t nv, pl_table *t, pl_error *err);

/* The CSV header of that table (into buf). */
void pl_impact_law_header(const pl_impact_law *law, char *buf, size_t len);

/* Append every file the command may write: impact_law.csv, the figure's configuration, scripts,
 * images and log. */
pl_status pl_impact_law_files(pl_strings *files, pl_error *err);

/* Write impact_law.csv, impact_law_config.gp and the scripts (the figure's data and how to draw it). */
pl_status pl_impact_law_write(pl_output *out, const pl_impact_law *law, const pl_table *t, pl_error *err);

/* Draw the figure (impact_law.png, .pdf) with gnuplot within budget (NULL: none): PL_ERR_IO with a
 * one-line reason if gnuplot is missing, fails or is stopped. */
pl_status pl_impact_law_render(pl_output *out, const pl_budget *budget, pl_error *err);

/* The figure's configuration as `penlim plot` finds it: whether word is a name of
 * laws/approximations.h. */
int pl_impact_law_approximation_known(const char *word);

#endif
