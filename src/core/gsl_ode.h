/* GSL's ODE drivers and controls, allocated so that out of memory is a NULL return.
 * GSL 2.7's gsl_odeiv2_control_y_new and gsl_odeiv2_driver_alloc_y_new pass the control they failed
 * to allocate to gsl_odeiv2_control_init, which dereferences it.  These allocate the control's two
 * blocks first and release them just before calling GSL, as pl_lu_decomp does for LU's pivots: out
 * of memory is found here, and the allocator hands GSL the blocks this thread has just released. */
#ifndef PL_CORE_GSL_ODE_H
#define PL_CORE_GSL_ODE_H

#include <gsl/gsl_odeiv2.h>

gsl_odeiv2_control *pl_odeiv2_control_y_new(double eps_abs, double eps_rel);
gsl_odeiv2_driver *pl_odeiv2_driver_alloc_y_new(const gsl_odeiv2_system *sys, const gsl_odeiv2_step_type *type,
                                                double h_start, double eps_abs, double eps_rel);

#endif
