#include "solvers/bdf_stability.h"

#include <complex.h>
#include <math.h>

#define SAMPLES 256 /* the radius to ~0.2%, against a margin of 20% where it is used */

static double complex boundary_locus(int k, double theta)
{
    double complex w = 1.0 - cexp(-I * theta), p = w, z = 0.0;
    for (int j = 1; j <= k; j++, p *= w)
        z += p / j;
    return z;
}

double pl_bdf_unstable_radius(int k, double xi)
{
    if (k <= 2 || xi >= 1.0)
        return 0.0;
    double ray = atan2(sqrt(1.0 - xi * xi), -xi); /* arg of h lambda, in (pi/2, pi] */
    double radius = 0.0, prev_d = NAN, prev_r = NAN;
    /* The upper half of the locus (theta in (0, pi)): the eigenvalue with positive imaginary part. */
    for (int s = 1; s < SAMPLES; s++) {
        double complex z = boundary_locus(k, M_PI * s / SAMPLES);
        double d = carg(z) - ray, r = cabs(z);
        if (s > 1 && (d == 0.0 || (d > 0.0) != (prev_d > 0.0)) && fabs(d - prev_d) < M_PI)
            radius = fmax(radius, prev_r + (r - prev_r) * prev_d / (prev_d - d));
        prev_d = d;
        prev_r = r;
    }
    return radius;
}
