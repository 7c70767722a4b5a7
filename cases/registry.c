#include <string.h>

#include "cases/cases.h"

static const pl_case *const registry[] = {
    &pl_case_bouncing_ball,
    &pl_case_vibrating_table,
    &pl_case_wedge,
    &pl_case_corner,
    &pl_case_cup,
    &pl_case_disk,
    &pl_case_double_pendulum,
    &pl_case_schatzman,
    &pl_case_newtons_cradle,
    &pl_case_spheres,
};

/* The units of the cases whose parameters are in SI units (their g is 9.81): every position and gap a
 * length, t a time.  The other cases are dimensionless, and so is every model compiled apart (the
 * model ABI has no units: the figures say "dimensionless"). */
static const struct {
    const pl_case *c;
    const char *length, *time;
    const pl_dim *dims; /* its parameters', declared next to them */
} units[] = {
    {&pl_case_bouncing_ball, "m", "s", pl_case_bouncing_ball_dims},
    {&pl_case_vibrating_table, "m", "s", pl_case_vibrating_table_dims},
};

int pl_case_units(const pl_case *c, const char **length, const char **time)
{
    for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
        if (units[k].c == c) {
            *length = units[k].length;
            *time = units[k].time;
            return 1;
        }
    return 0;
}

const pl_dim *pl_case_dims(const pl_case *c)
{
    for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
        if (units[k].c == c)
            return units[k].dims;
    return NULL;
}

size_t pl_case_count(void)
{
    return sizeof registry / sizeof registry[0];
}

const pl_case *pl_case_at(size_t index)
{
    return index < pl_case_count() ? registry[index] : NULL;
}

const pl_case *pl_case_find(const char *name)
{
    for (size_t i = 0; i < pl_case_count(); i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}
