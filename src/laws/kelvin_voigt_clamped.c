/* Kelvin-Voigt that never pulls, per unit effective mass:
 *
 *   lambda = max(0, m_eff (mu k delta + 2 xi sqrt(mu k) deltadot))
 *
 * The force vanishes where omega delta + 2 xi deltadot = 0 (omega = sqrt(k mu)), before delta = 0;
 * the body then leaves freely.  With delta = (V/omega_d) e^(-xi omega t) sin(omega_d t) the force ends at
 * omega_d t = pi - 2 arcsin(xi) (tan(omega_d t) = -tan(2 arcsin xi)), where deltadot = -V e^(-xi omega t):
 * the limit restitution is
 *
 *   e = exp(-2 xi arccos(xi)/sqrt(1 - xi^2))   (arccosh(xi)/sqrt(xi^2 - 1) for xi > 1, exp(-2) at 1),
 *
 * the square of Kelvin-Voigt's penetration factor, larger than exp(-pi xi/sqrt(1 - xi^2)) and positive
 * for every finite xi (1/(4 xi^2) as xi grows): e = 0 has no xi under this law. */
#include "laws/law.h"
#include "laws/restitution.h"
#include "model/contact_law.h"

#include <math.h>

enum { E, XI, K, NPAR };

static const pl_param_spec params[NPAR] = {
    {"e", 0.9, 0.0, 1.0, PL_PARAM_MIN_OPEN,
     "limit restitution of an isolated impact (or set xi); > 0 for every finite xi under this law"},
    {"xi", NAN, 0.0, INFINITY, PL_PARAM_DERIVED, "damping ratio of the contact law (or set e)"},
    {"k", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "stiffness scale of the contact law, per unit effective mass"},
};
/* k a pure multiplier of mu, which carries the stiffness per unit mass (1/T^2, plots/styles.gp) */
static const pl_dim dims[NPAR] = {{0, 0}, {0, 0}, {0, 0}};

static pl_status resolve(double *p, const unsigned char *set, pl_error *err)
{
    if (set[E] && set[XI])
        return pl_fail(err, PL_ERR_INPUT, "set either e or xi, not both (they describe the same damping)");
    if (set[XI]) {
        p[E] = pl_restitution_kelvin_voigt_clamped(p[XI]);
        return PL_OK;
    }
    p[XI] = pl_xi_kelvin_voigt_clamped(p[E]);
    if (!isfinite(p[XI]))
        return pl_fail(err, PL_ERR_INPUT, "kelvin_voigt_clamped: e = %g has no damping ratio (the law's restitution "
                       "is > 0 for every finite xi): set e in (0, 1] or xi", p[E]);
    return PL_OK;
}

static double force(const double *p, double mu, double d, double m_eff, double G, double Gdot, double *dG,
                    double *dGdot)
{
    double lambda = -m_eff * p[K] * (mu * G + d * Gdot);
    int pushes = lambda > 0.0;
    if (dG)
        *dG = pushes ? -m_eff * p[K] * mu : 0.0;
    if (dGdot)
        *dGdot = pushes ? -m_eff * p[K] * d : 0.0;
    return pushes ? lambda : 0.0;
}

/* While the force acts: omega_d t = 2 arccos(xi), i.e. t = 2 arccos(xi)/(omega sqrt(1 - xi^2)) =
 * -2 ln(f)/(xi omega), f = xi's penetration factor exp(-xi arccos(xi)/sqrt(1 - xi^2)) (continued past 1). */
static double contact_time(const double *p, double mu, double m_eff, double V)
{
    double omega = pl_kelvin_voigt_frequency(p, mu, m_eff, V), xi = p[XI];
    return xi > 0.0 ? -2.0 * log(pl_impact_penetration_factor(xi)) / (xi * omega) : M_PI / omega;
}

static double restitution(const double *p, double V)
{
    (void)V;
    return pl_restitution_kelvin_voigt_clamped(p[XI]);
}

const pl_law_type pl_law_kelvin_voigt_clamped = {
    .name = "kelvin_voigt_clamped",
    .summary = "Kelvin-Voigt that never pulls: the contact ends where its force vanishes",
    .formula = "lambda = max(0, m_eff (mu k delta + 2 xi sqrt(mu k) deltadot))",
    .params = params,
    .nparams = NPAR,
    .dims = dims,
    .flags = PL_LAW_NEVER_PULLS | PL_LAW_PER_UNIT_MASS,
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
