/* The table of solvers, one line each. */
#include "solvers/solver.h"

#include <string.h>

static const pl_solver_type *const registry[] = {
    &pl_solver_penalty,
    &pl_solver_limit,
    &pl_solver_moreau_jean,
    &pl_solver_paoli,
    &pl_solver_maury,
};

PL_API size_t pl_solver_count(void)
{
    return sizeof registry / sizeof registry[0];
}

const pl_solver_type *pl_solver_at(size_t index)
{
    return index < pl_solver_count() ? registry[index] : NULL;
}

const pl_solver_type *pl_solver_find(const char *name)
{
    for (size_t k = 0; k < pl_solver_count(); k++)
        if (strcmp(registry[k]->name, name) == 0)
            return registry[k];
    return NULL;
}
