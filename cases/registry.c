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
