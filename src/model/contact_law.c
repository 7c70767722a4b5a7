#include "model/contact_law.h"

#include <math.h>

double pl_restitution_from_xi(double xi)
{
    if (xi >= 1.0)
        return 0.0;
    return exp(-M_PI * xi / sqrt(1.0 - xi * xi));
}

double pl_xi_from_restitution(double e)
{
    if (e <= 0.0)
        return 1.0;
    if (e >= 1.0)
        return 0.0;
    double l = log(e);
    return -l / sqrt(M_PI * M_PI + l * l);
}

double pl_law_damping(const pl_law *law, double mu)
{
    return 2.0 * law->xi * sqrt(mu / law->k);
}

double pl_law_contact_time(const pl_law *law, double mu, double V)
{
    (void)V; /* the linear law's oscillation does not depend on the impact speed */
    double omega = sqrt(law->k * mu);
    return law->xi < 1.0 ? M_PI / (omega * sqrt(1.0 - law->xi * law->xi)) : M_PI / omega;
}

double pl_law_rest_penetration(const pl_law *law, double mu, double V, double A)
{
    return fmin(A / (law->k * mu), V / sqrt(law->k * mu));
}

double pl_law_force(const pl_law *law, double mu, double d, double m_eff, double G, double Gdot)
{
    return -m_eff * law->k * (mu * G + d * Gdot);
}

double pl_impact_penetration_factor(double xi)
{
    /* G = -(V/omega_d) e^{-xi omega t} sin(omega_d t) is extreme where tan(omega_d t) = omega_d/(xi omega). */
    if (xi < 1.0)
        return exp(-xi * acos(xi) / sqrt(1.0 - xi * xi));
    if (xi == 1.0)
        return exp(-1.0);
    return exp(-xi * acosh(xi) / sqrt(xi * xi - 1.0));
}
