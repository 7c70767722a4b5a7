/* Hertz's elastic contact, in physical units (the force does not scale with the effective mass):
 *
 *   lambda = mu k delta^(3/2)
 *
 * k in force/length^(3/2) (per unit effective mass: k/m_eff).  Not Lipschitz at delta = 0 (paper 004's
 * condition (3)); elastic: restitution 1 at every speed; an isolated impact at speed V reaches the
 * penetration (5 m_eff V^2/(4 mu k))^(2/5) and lasts 2 I delta_max/V, I = (2/5) B(2/5, 1/2). */
#include "laws/law.h"

#include <math.h>

enum { K, NPAR };
#define EXPONENT 1.5

static const pl_param_spec params[NPAR] = {
    {"k", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "stiffness scale (force/length^1.5): the force is mu k delta^1.5"},
};
/* k's dimension, force/length^1.5 per unit of mu, is not an integer power of L and T */
static const pl_dim dims[NPAR] = {{PL_DIM_UNKNOWN, PL_DIM_UNKNOWN}};

static double force(const double *p, double mu, double pre, double m_eff, double G, double Gdot, double *dG,
                    double *dGdot)
{
    (void)pre, (void)m_eff, (void)Gdot;
    double delta = fmax(-G, 0.0), root = sqrt(delta);
    if (dG)
        *dG = -EXPONENT * mu * p[K] * root;
    if (dGdot)
        *dGdot = 0.0;
    return mu * p[K] * delta * root;
}

static double frequency(const double *p, double mu, double m_eff, double V)
{
    return pl_homogeneous_frequency(mu * p[K] / m_eff, EXPONENT, V);
}

static double contact_time(const double *p, double mu, double m_eff, double V)
{
    return pl_homogeneous_contact_time(mu * p[K] / m_eff, EXPONENT, V);
}

static double impact_penetration(const double *p, double mu, double m_eff, double V)
{
    return pl_homogeneous_penetration(mu * p[K] / m_eff, EXPONENT, V);
}

static double rest_penetration(const double *p, double mu, double m_eff, double A)
{
    return pl_homogeneous_rest_penetration(mu * p[K] / m_eff, EXPONENT, A);
}

/* Elastic: a resting contact's oscillation keeps its energy and never decays. */
static double settling_rate(const double *p, double mu, double m_eff, double A)
{
    (void)p, (void)mu, (void)m_eff, (void)A;
    return 0.0;
}

static double restitution(const double *p, double V)
{
    (void)p, (void)V;
    return 1.0;
}

/* Elastic: during a contact under forces that conserve energy about a fixed obstacle (gravity on the
 * bouncing ball), the gap rate leaves as it came, so the restitution and the velocity after the impact
 * are exact at every mu; their times still lag by the contact time. */
static double rate(const double *p, pl_rate_quantity what)
{
    (void)p;
    if (what == PL_RATE_RESTITUTION || what == PL_RATE_IMPACT_VELOCITY)
        return PL_RATE_EXACT;
    return pl_law_homogeneous_rate(EXPONENT, what);
}

/* Elastic: no impact loses speed, nothing accumulates. */
static int bounces_accumulate(const double *p)
{
    (void)p;
    return 0;
}

static double exponent(const double *p)
{
    (void)p;
    return EXPONENT;
}

const pl_law_type pl_law_hertz = {
    .name = "hertz",
    .summary = "Hertz's elastic contact of curved bodies, k in physical units",
    .formula = "lambda = mu k delta^1.5",
    .params = params,
    .nparams = NPAR,
    .dims = dims,
    .flags = PL_LAW_NEVER_PULLS,
    .exponent = exponent,
    .force = force,
    .frequency = frequency,
    .contact_time = contact_time,
    .impact_penetration = impact_penetration,
    .rest_penetration = rest_penetration,
    .settling_rate = settling_rate,
    .restitution = restitution,
    .rate = rate,
    .bounces_accumulate = bounces_accumulate,
};
