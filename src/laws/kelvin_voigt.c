/* Kelvin-Voigt, paper 004's form (4) with constant coefficients, per unit effective mass:
 *
 *   lambda = -m_eff k (mu G + 2 xi sqrt(mu/k) Gdot) = m_eff (mu k delta + 2 xi sqrt(mu k) deltadot)
 *
 * An oscillator of frequency omega = sqrt(k mu) and damping ratio xi: an isolated impact lasts
 * pi/(omega sqrt(1 - xi^2)) and has restitution exp(-pi xi/sqrt(1 - xi^2)) at every speed and mu.
 * It pulls near the contact's end (the force is negative where 2 xi deltadot < -omega delta). */
#include "laws/law.h"
#include "model/contact_law.h"

#include <math.h>

enum { E, XI, K, NPAR };

static const pl_param_spec params[NPAR] = {
    {"e", 0.9, 0.0, 1.0, 0, "limit restitution of an isolated impact (or set xi)"},
    {"xi", NAN, 0.0, INFINITY, PL_PARAM_DERIVED, "damping ratio of the contact law (or set e)"},
    {"k", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "stiffness scale of the contact law, per unit effective mass"},
};
/* k a pure multiplier of mu, which carries the stiffness per unit mass (1/T^2, plots/styles.gp) */
static const pl_dim dims[NPAR] = {{0, 0}, {0, 0}, {0, 0}};

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

double pl_impact_penetration_factor(double xi)
{
    /* G = -(V/omega_d) e^{-xi omega t} sin(omega_d t) is extreme where tan(omega_d t) = omega_d/(xi omega). */
    if (xi < 1.0)
        return exp(-xi * acos(xi) / sqrt(1.0 - xi * xi));
    if (xi == 1.0)
        return exp(-1.0);
    return exp(-xi * acosh(xi) / sqrt(xi * xi - 1.0));
}

/* e and xi describe the same damping: set one, derive the other. */
static pl_status resolve(double *p, const unsigned char *set, pl_error *err)
{
    if (set[E] && set[XI])
        return pl_fail(err, PL_ERR_INPUT, "set either e or xi, not both (they describe the same damping)");
    if (set[XI])
        p[E] = pl_restitution_from_xi(p[XI]);
    else
        p[XI] = pl_xi_from_restitution(p[E]);
    return PL_OK;
}

double pl_kelvin_voigt_prepare(const double *p, double mu)
{
    return 2.0 * p[XI] * sqrt(mu / p[K]);
}

static double force(const double *p, double mu, double d, double m_eff, double G, double Gdot, double *dG,
                    double *dGdot)
{
    if (dG)
        *dG = -m_eff * p[K] * mu;
    if (dGdot)
        *dGdot = -m_eff * p[K] * d;
    return -m_eff * p[K] * (mu * G + d * Gdot);
}

double pl_kelvin_voigt_frequency(const double *p, double mu, double m_eff, double V)
{
    (void)m_eff, (void)V; /* per unit mass; the linear law's oscillation does not depend on the speed */
    return sqrt(p[K] * mu);
}

/* For xi >= 1, where the gap returns to 0 only asymptotically, pi/omega: the scale of the penetration. */
static double contact_time(const double *p, double mu, double m_eff, double V)
{
    double omega = pl_kelvin_voigt_frequency(p, mu, m_eff, V), xi = p[XI];
    return xi < 1.0 ? M_PI / (omega * sqrt(1.0 - xi * xi)) : M_PI / omega;
}

double pl_kelvin_voigt_impact_penetration(const double *p, double mu, double m_eff, double V)
{
    return V / pl_kelvin_voigt_frequency(p, mu, m_eff, V) * pl_impact_penetration_factor(p[XI]);
}

double pl_kelvin_voigt_rest_penetration(const double *p, double mu, double m_eff, double A)
{
    (void)m_eff;
    return A / (p[K] * mu);
}

/* About the resting penetration the law is the same linear oscillator, of frequency sqrt(k mu) and
 * damping ratio xi, whatever the load. */
double pl_kelvin_voigt_settling_rate(const double *p, double mu, double m_eff, double A)
{
    (void)A;
    return pl_oscillator_decay_rate(pl_kelvin_voigt_frequency(p, mu, m_eff, 0.0), p[XI]);
}

static double restitution(const double *p, double V)
{
    (void)V;
    return pl_restitution_from_xi(p[XI]);
}

/* mu G - F^sm in a sustained contact is the damping 2 xi sqrt(mu k) deltadot, deltadot = O(1/mu) (the
 * clamped law's too: there its force pushes and the clamp is idle). */
double pl_kelvin_voigt_rate(const double *p, pl_rate_quantity what)
{
    (void)p;
    return what == PL_RATE_SLIDING_FORCE ? 0.5 : pl_law_homogeneous_rate(1.0, what);
}

/* A constant restitution below 1 for every xi > 0 (clamped or not): the flights shrink geometrically
 * (paper 004, section 7). */
int pl_kelvin_voigt_bounces_accumulate(const double *p)
{
    return p[XI] > 0.0;
}

double pl_kelvin_voigt_exponent(const double *p)
{
    (void)p;
    return 1.0;
}

const pl_law_type pl_law_kelvin_voigt = {
    .name = "kelvin_voigt",
    .summary = "linear spring and dashpot, paper 004's form (4)",
    .formula = "lambda = m_eff (mu k delta + 2 xi sqrt(mu k) deltadot)",
    .params = params,
    .nparams = NPAR,
    .dims = dims,
    .flags = PL_LAW_LINEAR | PL_LAW_PER_UNIT_MASS,
    .exponent = pl_kelvin_voigt_exponent,
    .resolve = resolve,
    .prepare = pl_kelvin_voigt_prepare,
    .force = force,
    .frequency = pl_kelvin_voigt_frequency,
    .contact_time = contact_time,
    .impact_penetration = pl_kelvin_voigt_impact_penetration,
    .rest_penetration = pl_kelvin_voigt_rest_penetration,
    .settling_rate = pl_kelvin_voigt_settling_rate,
    .restitution = restitution,
    .rate = pl_kelvin_voigt_rate,
    .bounces_accumulate = pl_kelvin_voigt_bounces_accumulate,
};
