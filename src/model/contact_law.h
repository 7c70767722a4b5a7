/* Kelvin-Voigt's closed forms (implemented with its law, laws/kelvin_voigt.c).  The visco-elastic
 * (Kelvin-Voigt) contact law, form (4) of paper 004 (Miller and Bentsman,
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

#endif
