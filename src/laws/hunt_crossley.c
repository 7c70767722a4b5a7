/* Hunt and Crossley's dissipative contact (Hunt and Crossley, "Coefficient of restitution interpreted as
 * damping in vibroimpact", 1975), in physical units, as Simbody's HuntCrossleyForce and Drake write it:
 *
 *   lambda = max(0, mu k delta^n (1 + (3/2) c deltadot))
 *
 * k in force/length^n, c >= 0 in 1/velocity (Drake's dissipation d = (3/2) c).  The force vanishes with
 * the penetration (no jump at first contact) and never pulls.  Its limit restitution depends on c V alone
 * and not on n (substitute u = delta^(n+1)/(n+1) in the energy balance). */
#include "laws/law.h"

#include <gsl/gsl_sf_lambert.h>
#include <math.h>

enum { K, N, C, NPAR };

static const pl_param_spec params[NPAR] = {
    {"k", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "stiffness scale (force/length^n): the force is mu k delta^n (...)"},
    {"n", 1.5, 1.0, 10.0, 0, "exponent of the penetration (3/2: Hertz's geometry)"},
    {"c", 0.1, 0.0, INFINITY, 0, "dissipation (1/velocity; Drake's d = 1.5 c)"},
};

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

/* x - ln(1 + x), by its series sum_(k >= 2) (-x)^k/k where the difference loses digits. */
static double work_of(double x)
{
    if (fabs(x) >= 0.5)
        return x - log1p(x);
    double sum = 0.0, term = -x; /* (-x)^1 */
    for (int k = 2; k < 80; k++) {
        term *= -x;
        sum += term / k;
        if (fabs(term) < 1e-17 * fabs(sum))
            break;
    }
    return sum;
}

/* The same balance back from v = 0 to the exit speed v_out, y = a v_out: -y - ln(1 - y) = x - ln(1 + x),
 * so 1 - y = -W0(-(1 + x) e^(-(1 + x))) and e = y/x.  Near x = 0 the argument is near -1/e, W0's branch
 * point, where the rounding of the argument alone costs digits (1e-12 at x = 1e-2): two Newton steps
 * on the balance itself, f(y) = work_of(-y) - work_of(x), f'(y) = y/(1 - y), restore them from W0's value,
 * or, for x < 1e-2, from the series y = q - q^2/3 + 11 q^3/72 - 43 q^4/540 + 769 q^5/17280 in
 * q = sqrt(2 (1 - (1 + x) e^(-x))) (the series of W about -1/e). */
static double restitution(const double *p, double V)
{
    double x = 1.5 * p[C] * V, y;
    if (!(x > 0.0))
        return 1.0;
    if (x < 1e-2) {
        double tail = x * x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x / 120.0))); /* e^x - 1 - x */
        double q = sqrt(2.0 * exp(-x) * tail);
        y = q * (1.0 + q * (-1.0 / 3.0 + q * (11.0 / 72.0 + q * (-43.0 / 540.0 + q * 769.0 / 17280.0))));
    } else {
        y = 1.0 + gsl_sf_lambert_W0(-(1.0 + x) * exp(-(1.0 + x)));
    }
    double target = work_of(x);
    for (int it = 0; it < 2 && y > 0.0 && y < 1.0; it++)
        y -= (work_of(-y) - target) * (1.0 - y) / y;
    return y / x;
}

/* Impact quantities converge at 1/(n+1) (the contact time's rate); the capture time of a bouncing
 * contact grows like ln mu (1 - e ~ c V: the impacts never accumulate in the limit): it does not converge. */
static double rate(const double *p, pl_limit_quantity what)
{
    return what == PL_LIMIT_CAPTURE_TIME ? 0.0 : pl_law_homogeneous_rate(p[N], what);
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
    .flags = PL_LAW_NEVER_PULLS,
    .exponent = exponent,
    .force = force,
    .frequency = frequency,
    .contact_time = contact_time,
    .impact_penetration = impact_penetration,
    .rest_penetration = rest_penetration,
    .restitution = restitution,
    .rate = rate,
};
