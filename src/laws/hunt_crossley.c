/* Hunt and Crossley's dissipative contact (Hunt and Crossley, "Coefficient of restitution interpreted as
 * damping in vibroimpact", 1975), in physical units, as Simbody's HuntCrossleyForce and Drake write it:
 *
 *   lambda = max(0, mu k delta^n (1 + (3/2) c deltadot))
 *
 * k in force/length^n, c >= 0 in 1/velocity (Drake's dissipation d = (3/2) c).  The force vanishes with
 * the penetration (no jump at first contact) and never pulls.  Its limit restitution depends on c V alone
 * and not on n (substitute u = delta^(n+1)/(n+1) in the energy balance). */
#include "laws/law.h"
#include "laws/restitution.h"

#include <math.h>

enum { K, N, C, NPAR };

static const pl_param_spec params[NPAR] = {
    {"k", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "stiffness scale (force/length^n): the force is mu k delta^n (...)"},
    {"n", 1.5, 1.0, 10.0, 0, "exponent of the penetration (3/2: Hertz's geometry)"},
    {"c", 0.1, 0.0, INFINITY, 0, "dissipation (1/velocity; Drake's d = 1.5 c)"},
};
/* k in force/length^n (n a parameter): no fixed dimension; c in 1/velocity */
static const pl_dim dims[NPAR] = {{PL_DIM_UNKNOWN, PL_DIM_UNKNOWN}, {0, 0}, {-1, 1}};

static double force(const double *p, double mu, double pre, double m_eff, double G, double Gdot, double *dG,
                    double *dGdot)
{
    (void)pre, (void)m_eff;
    double delta = fmax(-G, 0.0), damping = 1.0 - 1.5 * p[C] * Gdot, elastic = mu * p[K] * pow(delta, p[N]);
    int pushes = damping > 0.0 && delta > 0.0;
    if (dG) /* d(delta^n)/dG = -n delta^(n-1), finite at 0 for n >= 1 */
        *dG = pushes ? -p[N] * mu * p[K] * pow(delta, p[N] - 1.0) * damping : 0.0;
    if (dGdot)
        *dGdot = pushes ? -1.5 * p[C] * elastic : 0.0;
    return pushes ? elastic * damping : 0.0;
}

static double kappa(const double *p, double mu, double m_eff)
{
    return mu * p[K] / m_eff;
}

static double frequency(const double *p, double mu, double m_eff, double V)
{
    return pl_homogeneous_frequency(kappa(p, mu, m_eff), p[N], V);
}

/* The elastic part's duration: a scale (the damped impact's has no closed form). */
static double contact_time(const double *p, double mu, double m_eff, double V)
{
    return pl_homogeneous_contact_time(kappa(p, mu, m_eff), p[N], V);
}

/* v dv/du = -kappa (1 + a v) with u = delta^(n+1)/(n+1), a = 1.5 c: from V to v = 0, kappa u_max =
 * (x - ln(1 + x))/a^2, x = a V (V^2/2 as a -> 0, by its series where the difference loses digits). */
static double impact_penetration(const double *p, double mu, double m_eff, double V)
{
    double a = 1.5 * p[C], x = a * V;
    double work = x < 1e-3 ? V * V * (0.5 - x / 3.0 + x * x / 4.0 - x * x * x / 5.0) : (x - log1p(x)) / (a * a);
    return pow((p[N] + 1.0) * work / kappa(p, mu, m_eff), 1.0 / (p[N] + 1.0));
}

static double rest_penetration(const double *p, double mu, double m_eff, double A)
{
    return pl_homogeneous_rest_penetration(kappa(p, mu, m_eff), p[N], A);
}

/* Resting under the acceleration A, mu k delta0^n = m A.  With delta = delta0 + x, to first order in x,
 * m x'' = -n mu k delta0^(n-1) x - (3/2) c mu k delta0^n x': x'' + (3/2) c A x' + (n A/delta0) x = 0, an
 * oscillator of frequency sqrt(n A/delta0) ~ mu^(1/(2n)) whose damping (3/2) c A does not depend on mu:
 * it decays at (3/4) c A once underdamped (docs/laws.md, "Sustained contact").  No load: no rest. */
static double settling_rate(const double *p, double mu, double m_eff, double A)
{
    if (!(A > 0.0))
        return 0.0;
    double omega = sqrt(p[N] * A / rest_penetration(p, mu, m_eff, A)), damping = 1.5 * p[C] * A;
    return pl_oscillator_decay_rate(omega, 0.5 * damping / omega);
}

/* The restitution depends on c V alone: laws/restitution.c derives it (Lambert's W) and evaluates it
 * without cancellation for small c V. */
static double restitution(const double *p, double V)
{
    return pl_restitution_hunt_crossley(p[C] * V);
}

/* Impact quantities converge at 1/(n+1) (the contact time's rate), a lift-off at 1/(3n-1) (the damping
 * is of relative order c deltadot there, negligible); the capture time of a bouncing contact grows like
 * ln(mu)/(n A c) under a gap acceleration A (docs/laws.md): it does not converge.  In a sustained contact
 * under a varying load the contact force differs from the sliding force by m delta'', delta ~ (m A/(mu
 * k))^(1/n): 1/n, once the entry's oscillation has died, which it does only if c > 0 (at the rate
 * (3/4) c A). */
static double rate(const double *p, pl_rate_quantity what)
{
    if (what == PL_RATE_CAPTURE)
        return p[C] > 0.0 ? 0.0 : NAN;
    if (what == PL_RATE_SLIDING_FORCE)
        return p[C] > 0.0 ? 1.0 / p[N] : NAN;
    return pl_law_homogeneous_rate(p[N], what);
}

/* 1 - e ~ c V as V -> 0: v_k ~ 1/(c k), flights like 1/k, never accumulating; c = 0 is elastic. */
static int bounces_accumulate(const double *p)
{
    (void)p;
    return 0;
}

static double exponent(const double *p)
{
    return p[N];
}

const pl_law_type pl_law_hunt_crossley = {
    .name = "hunt_crossley",
    .summary = "Hunt and Crossley's dissipative Hertz-like contact, k in physical units (Drake, Simbody)",
    .formula = "lambda = max(0, mu k delta^n (1 + 1.5 c deltadot))",
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
