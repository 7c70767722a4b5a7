/* Named numeric parameters (of a case, or a solver's options): defaults, descriptions and valid
 * ranges. */
#ifndef PL_PARAMS_H
#define PL_PARAMS_H

#include <stddef.h>

#include "core/status.h"
#include "penlim/model.h"

/* The flags PL_PARAM_*, pl_param_spec and pl_setting: include/penlim/model.h (public). */

/* A parameter's dimension as powers of length L and time T, as plots/styles.gp's table gives a
 * quantity's (masses count as pure numbers); PL_DIM_UNKNOWN in both where it has none in L and T alone
 * (Hertz's k, in force/length^1.5).  Declared next to a built-in case's or law's parameters, parallel to
 * them; not in the model ABI: a model compiled apart has none, and its parameters are named bare. */
#define PL_DIM_UNKNOWN (-99)
typedef struct {
    int L, T;
} pl_dim;

/* Index of name in specs, or -1. */
int pl_param_find(const pl_param_spec *specs, size_t count, const char *name);

/* Check value against the spec's range; on failure the message names the parameter and its range. */
pl_status pl_param_check(const pl_param_spec *spec, double value, pl_error *err);

/* Human-readable range such as "[0, 1]" or "(0, inf)". */
void pl_param_range_text(const pl_param_spec *spec, char *buf, size_t len);

/* Parse "NAME=VALUE" (value must be a finite number). */
pl_status pl_setting_parse(const char *text, pl_setting *out, pl_error *err);

#endif
