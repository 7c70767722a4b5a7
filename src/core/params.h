/* Named numeric parameters (of a case, or a solver's options): defaults, descriptions and valid
 * ranges. */
#ifndef PL_PARAMS_H
#define PL_PARAMS_H

#include <stddef.h>

#include "core/status.h"

enum {
    PL_PARAM_MIN_OPEN = 1u,  /* value must be > min rather than >= min */
    PL_PARAM_MAX_OPEN = 2u,  /* value must be < max rather than <= max */
    PL_PARAM_DERIVED = 4u    /* default is NAN: computed from other parameters unless set */
};

typedef struct {
    const char *name;
    double value; /* default; NAN when PL_PARAM_DERIVED */
    double min, max;
    unsigned flags;
    const char *description;
} pl_param_spec;

/* One NAME=VALUE assignment from the command line or a caller. */
typedef struct {
    char name[64];
    double value;
} pl_setting;

/* Index of name in specs, or -1. */
int pl_param_find(const pl_param_spec *specs, size_t count, const char *name);

/* Check value against the spec's range; on failure the message names the parameter and its range. */
pl_status pl_param_check(const pl_param_spec *spec, double value, pl_error *err);

/* Human-readable range such as "[0, 1]" or "(0, inf)". */
void pl_param_range_text(const pl_param_spec *spec, char *buf, size_t len);

/* Parse "NAME=VALUE" (value must be a finite number). */
pl_status pl_setting_parse(const char *text, pl_setting *out, pl_error *err);

#endif
