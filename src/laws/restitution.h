/* The limit (mu -> infinity) impact maps of an isolated impact: the restitution, largest penetration
 * and contact duration of a single contact hit at normal speed V, for the contact laws of
 * docs/laws.md (which derives each formula in full).  Pure functions of their arguments; NAN for an
 * argument outside its range.
 *
 * delta = -G >= 0 is the penetration, deltadot = -Gdot its rate; the fast system of an isolated
 * impact is deltadot' = -lambda(delta, deltadot) with lambda the law's force per unit effective
 * mass, from delta = 0, deltadot = V > 0, to the exit (the force vanishes for good), after which
 * the body flies freely; e is the outgoing normal speed over V.  In the limit the impact is
 * instantaneous, so gravity and the other regular forces do not enter (paper 004, Miller and
 * Bentsman, "Generalized solutions in systems with active unilateral constraints", Theorem 5). */
#ifndef PL_LAWS_RESTITUTION_H
#define PL_LAWS_RESTITUTION_H

/* Kelvin-Voigt, lambda = k delta + 2 xi sqrt(k) deltadot (it pulls near the exit): the damped
 * oscillator leaves delta = 0 after half a period, e = exp(-pi xi/sqrt(1 - xi^2)) for xi in [0, 1),
 * 0 for xi >= 1 (overdamped: the gap returns to 0 only asymptotically).  NAN for xi < 0. */
double pl_restitution_kelvin_voigt(double xi);

/* Clamped Kelvin-Voigt, lambda = max(0, k delta + 2 xi sqrt(k) deltadot): the contact ends where the
 * force vanishes (deltadot'' = 0), at delta > 0, and the body flies back to delta = 0 with the
 * velocity it had there.  e = exp(-2 xi arccos(xi)/sqrt(1 - xi^2)) for xi < 1, exp(-2) at xi = 1,
 * exp(-2 xi arccosh(xi)/sqrt(xi^2 - 1)) for xi > 1: positive for every finite xi, ~ 1/(4 xi^2) as
 * xi -> infinity.  NAN for xi < 0. */
double pl_restitution_kelvin_voigt_clamped(double xi);

/* Its inverse: the xi >= 0 whose clamped restitution is e, for e in (0, 1] (e = 1: xi = 0); NAN
 * outside (0, 1]: no finite damping gives e = 0 under the clamped law. */
double pl_xi_kelvin_voigt_clamped(double e);

/* Hunt-Crossley, lambda = k delta^n (1 + (3/2) c deltadot), never negative: e depends on c V alone,
 * not on n or k.  With x = (3/2) c V, e = (1 + W0(-(1 + x) exp(-(1 + x))))/x (W0 Lambert's
 * principal branch); e = 1 - cV + (cV)^2 - (11/10)(cV)^3 + ... for small cV, ~ 2/(3 cV) for large.
 * Relative error a few ulps for cV in [0, infinity].  NAN for cV < 0. */
double pl_restitution_hunt_crossley(double cV);

/* Its inverse: the c V >= 0 whose Hunt-Crossley restitution is e, for e in (0, 1]; NAN outside. */
double pl_hunt_crossley_cv_from_restitution(double e);

/* The bounces of a Hunt-Crossley contact that rebounds at speed u0 > 0 under a constant gap acceleration -A
 * (A > 0, the ball under gravity), in the limit: impact k + 1 follows a flight of 2 u_k/A and sends the body
 * back at u_(k+1) = e(c u_k) u_k.  With w = 1/u, 1/e = 1 + x + x^3/10 - x^4/10 + ... (x = c u) gives
 * w_(k+1) = w_k + c + c^3/(10 w_k^2) + O(c^4/w_k^3), summed in closed form with the polygamma functions
 * (docs/laws.md, "The tail of the bounces"):
 *   w_k = c (a + k) + (c/10) (psi1(a) - psi1(a + k)),  a = 1/x0, x0 = c u0,
 *   t_k = (2/(c A)) [psi(a + k) - psi(a) - (psi1(a) (psi1(a) - psi1(a + k)) - (psi2(a + k) - psi2(a))/2)/10].
 * For the span tmax from the rebound: the number of impacts in (0, tmax] (a whole number below 2^53, the
 * nearest double above), the time t_last of the last one (0 if none), the speed u_last after it (u0 if none),
 * the sum of the flights' speeds u_0 + ... + u_(K-1) (A t_last/2), and bounds on the errors of t_last and of
 * u_last/u: (2/(c A)) x0^3 and x0^3/10 (the terms left out; measured against iterating the map: at most
 * 0.05 of them).  Returns 0, or -1 for arguments out of range or x0 > 0.01 (where the expansion is not
 * accurate to the solution's tolerances). */
typedef struct {
    double impacts, t_last, u_last, speed_sum, time_error, speed_error;
} pl_bounces;
int pl_hunt_crossley_bounces(double c, double A, double u0, double tmax, pl_bounces *out);

/* Power law lambda = k_over_m delta^n (elastic; n > 0, k_over_m > 0 the stiffness per unit
 * effective mass, V > 0): e = 1, largest penetration ((n + 1) V^2/(2 k_over_m))^(1/(n+1)), contact
 * duration 2 I_n delta_max/V with I_n = integral_0^1 (1 - x^(n+1))^(-1/2) dx = B(1/(n+1), 1/2)/(n+1).
 * NAN for arguments out of range. */
double pl_power_law_max_penetration(double n, double k_over_m, double V);
double pl_power_law_contact_duration(double n, double k_over_m, double V);

/* Hertz, the power law with n = 3/2: delta_max = (5 V^2/(4 k_over_m))^(2/5), duration 2 I delta_max/V
 * with I = (2/5) B(2/5, 1/2) = 1.4716... */
double pl_hertz_max_penetration(double k_over_m, double V);
double pl_hertz_contact_duration(double k_over_m, double V);

#endif
