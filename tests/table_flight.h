/* The vibrating table's analytic flight after lift-off: the ball leaves the
 * table at t_off with the table's position and velocity and flies under gravity; it lands where
 * the flight meets A sin(w t) again.  Shared by the tests of the penalized runs and of the limit. */
#ifndef PL_TABLE_FLIGHT_H
#define PL_TABLE_FLIGHT_H

#include <gsl/gsl_roots.h>
#include <math.h>

typedef struct {
    double A, w, g, t_off;
} table_flight;

static inline double table_flight_q(const table_flight *f, double t)
{
    double s = t - f->t_off;
    return f->A * sin(f->w * f->t_off) + f->A * f->w * cos(f->w * f->t_off) * s - 0.5 * f->g * s * s;
}

static inline double table_flight_gap(double t, void *p)
{
    const table_flight *f = p;
    return table_flight_q(f, t) - f->A * sin(f->w * t);
}

/* The landing time in (t_off + 1e-3, t_off + span), by GSL's Brent solver. */
static inline double table_landing_time(const table_flight *f, double span)
{
    gsl_function F = {table_flight_gap, (void *)f};
    gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
    gsl_root_fsolver_set(s, &F, f->t_off + 1e-3, f->t_off + span);
    double x = NAN;
    for (int it = 0; it < 200; it++) {
        gsl_root_fsolver_iterate(s);
        x = gsl_root_fsolver_root(s);
        if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s), 1e-15, 0) == GSL_SUCCESS)
            break;
    }
    gsl_root_fsolver_free(s);
    return x;
}

#endif
