#include "core/gsl_ode.h"

#include <stdlib.h>

/* The control (its type and state pointers) and its state (the standard control's four doubles). */
static int control_memory_available(void)
{
    void *control = malloc(sizeof(gsl_odeiv2_control)), *state = malloc(4 * sizeof(double));
    int ok = control && state;
    free(state);
    free(control);
    return ok;
}

gsl_odeiv2_control *pl_odeiv2_control_y_new(double eps_abs, double eps_rel)
{
    return control_memory_available() ? gsl_odeiv2_control_y_new(eps_abs, eps_rel) : NULL;
}

gsl_odeiv2_driver *pl_odeiv2_driver_alloc_y_new(const gsl_odeiv2_system *sys, const gsl_odeiv2_step_type *type,
                                                double h_start, double eps_abs, double eps_rel)
{
    return control_memory_available() ? gsl_odeiv2_driver_alloc_y_new(sys, type, h_start, eps_abs, eps_rel) : NULL;
}
