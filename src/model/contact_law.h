/* The visco-elastic (Kelvin-Voigt) contact law, form (4) of paper 004 (Miller and Bentsman,
 * "Generalized solutions in systems with active unilateral constraints"):
 *
 *   mu*F^s_i = w_i * lambda_i,  lambda_i = -m_i k_i (mu G_i + 2 xi_i sqrt(mu/k_i) Gdot_i)
 *
 * with w_i = M^{-1} grad G_i and m_i = 1/(grad G_i . w_i).  lambda_i is the normal contact force
 * (positive when it pushes out of the obstacle).  An isolated impact in the limit mu -> infinity has
 * normal restitution e = exp(-pi xi / sqrt(1 - xi^2)) for xi < 1 and e = 0 for xi >= 1. */
#ifndef PL_CONTACT_LAW_H
#define PL_CONTACT_LAW_H

/* pl_law (k, xi): include/penlim/model.h (public). */
#include "penlim/model.h"

/* Limit restitution of an isolated impact for damping ratio xi. */
double pl_restitution_from_xi(double xi);
/* Damping ratio giving limit restitution e in [0, 1]; e = 0 maps to critical damping xi = 1. */
double pl_xi_from_restitution(double e);

/* Maximum penetration of an isolated impact at gap rate -V, in units of V/omega
 * (omega = sqrt(k mu)): exp(-xi arccos(xi)/sqrt(1 - xi^2)), continued to xi >= 1. */
double pl_impact_penetration_factor(double xi);

/* Duration of an isolated impact at normal speed V in the fast time of the law, in t: the half-period
 * pi/(omega sqrt(1 - xi^2)) of the contact oscillation for xi < 1 (omega = sqrt(k mu)); for xi >= 1,
 * where the gap returns to 0 only asymptotically, pi/omega, the scale of its penetration phase.  The
 * linear law's does not depend on V; a law whose contact time does (a homogeneous force mu k delta^n:
 * (mu k)^(-1/(n+1)) V^((1-n)/(n+1))) gives it at V. */
double pl_law_contact_time(const pl_law *law, double mu, double V);

/* The penetration scale of a contact at stiffness mu under the model's scales V (speed) and A
 * (acceleration): the resting penetration A/(k mu), or an impact's V/sqrt(k mu) if smaller.  A penalized
 * run holds G to rtol times it at best (its error weights), and a contact's oscillation is resolved
 * to rtol against it. */
double pl_law_rest_penetration(const pl_law *law, double mu, double V, double A);

/* Damping coefficient c = 2 xi sqrt(mu/k), so that lambda = -m k (mu G + c Gdot). */
double pl_law_damping(const pl_law *law, double mu);
/* The scalar force lambda for effective mass m_eff, gap G and gap rate Gdot, with the damping
 * d = pl_law_damping(law, mu) (computed once by the caller: this runs in every right-hand side). */
double pl_law_force(const pl_law *law, double mu, double d, double m_eff, double G, double Gdot);

#endif
