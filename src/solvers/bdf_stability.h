/* Where BDF is stable for a damped oscillation.  BDF of order k <= 2 is A-stable; of order k = 3, 4,
 * 5 it is only A(alpha)-stable (alpha = 86.0, 73.4, 51.8 degrees), and a lightly damped oscillation,
 * with eigenvalues omega (-xi +- i sqrt(1 - xi^2)) next to the imaginary axis, is unstable for a
 * range of h omega: inside the boundary locus z(theta) = sum_{j<=k} (1 - e^{-i theta})^j / j.  Past
 * the locus the left half plane is stable again. */
#ifndef PL_BDF_STABILITY_H
#define PL_BDF_STABILITY_H

/* The largest h omega at which BDF of order k (1 to 5) is unstable for the damping ratio xi: the
 * farthest crossing of the boundary locus with the ray of h lambda; 0 where the ray misses it (k <= 2,
 * xi >= 1, or xi beyond the method's A(alpha) angle). */
double pl_bdf_unstable_radius(int k, double xi);

#endif
