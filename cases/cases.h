/* The built-in systems, one file each, registered in one table (registry.c). */
#ifndef PL_CASES_H
#define PL_CASES_H

#include <math.h>

#include "model/model.h"

/* The case's defaults for the contact law's parameters (PL_PARAM_LAW): Kelvin-Voigt's e or xi (one
 * determines the other) and k; under another law, k (in that law's units) where it has one. */
#define PL_LAW_PARAMS(e_default)                                                                   \
    {"e", (e_default), 0.0, 1.0, PL_PARAM_LAW, "limit restitution of an isolated impact (or set xi)"},           \
    {"xi", NAN, 0.0, INFINITY, PL_PARAM_DERIVED | PL_PARAM_LAW, "damping ratio of the contact law (or set e)"},  \
    {"k", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN | PL_PARAM_LAW, "stiffness scale of the contact law"}

/* The dimensions of PL_LAW_PARAMS in a case's table: none of the case's own (the law's apply). */
#define PL_LAW_DIMS {PL_DIM_UNKNOWN, PL_DIM_UNKNOWN}, {PL_DIM_UNKNOWN, PL_DIM_UNKNOWN}, {PL_DIM_UNKNOWN, PL_DIM_UNKNOWN}

extern const pl_case pl_case_bouncing_ball;
extern const pl_case pl_case_corner;
extern const pl_case pl_case_cup;
extern const pl_case pl_case_disk;
extern const pl_case pl_case_double_pendulum;
extern const pl_case pl_case_newtons_cradle;
extern const pl_case pl_case_schatzman;
extern const pl_case pl_case_spheres;
extern const pl_case pl_case_vibrating_table;
extern const pl_case pl_case_wedge;
extern const pl_dim pl_case_bouncing_ball_dims[], pl_case_vibrating_table_dims[];

size_t pl_case_count(void);
const pl_case *pl_case_at(size_t index);
const pl_case *pl_case_find(const char *name); /* NULL if unknown */
/* The units of length and time a built-in case declares (its figures' axes say them): 1 and both set,
 * or 0 for a dimensionless case. */
int pl_case_units(const pl_case *c, const char **length, const char **time);
/* The dimensions of the parameters of a case that declares units (parallel to c->params), or NULL. */
const pl_dim *pl_case_dims(const pl_case *c);

#endif
