/* Each relation converted to c V = (2/3) chi(e) and inverted by hand (docs/laws.md shows the steps). */
#include "laws/approximations.h"

#include <math.h>

#include "core/rootfind.h"
#include "laws/restitution.h"

static int in_unit(double e)
{
    return e >= 0.0 && e <= 1.0;
}

/* Hunt and Crossley: chi = 3(1 - e)/2, c V = 1 - e. */
static double hc_cv(double e)
{
    return in_unit(e) ? 1.0 - e : NAN;
}
static double hc_e(double cv)
{
    return cv >= 0.0 && cv <= 1.0 ? 1.0 - cv : NAN;
}

/* Lankarani and Nikravesh: chi = 3(1 - e^2)/4, c V = (1 - e^2)/2, e = sqrt(1 - 2 c V). */
static double ln_cv(double e)
{
    return in_unit(e) ? 0.5 * (1.0 - e) * (1.0 + e) : NAN;
}
static double ln_e(double cv)
{
    return cv >= 0.0 && cv <= 0.5 ? sqrt(1.0 - 2.0 * cv) : NAN;
}

/* Gonthier, McPhee, Lange and Piedboeuf: chi = (1 - e^2)/e, c V = 2(1 - e^2)/(3e), the positive root of
 * 2e^2 + 3 c V e - 2 = 0: e = sqrt(1 + q^2) - q = 1/(sqrt(1 + q^2) + q), q = 3 c V/4. */
static double go_cv(double e)
{
    return in_unit(e) ? 2.0 * (1.0 - e) * (1.0 + e) / (3.0 * e) : NAN;
}
static double go_e(double cv)
{
    if (!(cv >= 0.0))
        return NAN;
    double q = 0.75 * cv;
    return 1.0 / (hypot(1.0, q) + q);
}

/* Zhiying and Qishao: chi = 3(1 - e^2) e^(2(1 - e))/4, c V = (1 - e^2) e^(2(1 - e))/2, decreasing in e
 * on [0, 1] (derivative -(1 + e - e^2) e^(2(1 - e)) < 0) from e^2/2 to 0; inverted by Brent. */
static double zq_cv(double e)
{
    return in_unit(e) ? 0.5 * (1.0 - e) * (1.0 + e) * exp(2.0 * (1.0 - e)) : NAN;
}
static double zq_residual(double e, void *p)
{
    return zq_cv(e) - *(const double *)p;
}
static double zq_e(double cv)
{
    if (!(cv >= 0.0 && cv <= 0.5 * exp(2.0)))
        return NAN;
    if (cv == 0.0)
        return 1.0;
    return pl_brent(zq_residual, &cv, 0.0, 1.0, 0);
}

/* Flores, Machado, Silva and Martins: chi = 8(1 - e)/(5e), c V = 16(1 - e)/(15 e), e = 16/(16 + 15 c V). */
static double fl_cv(double e)
{
    return in_unit(e) ? 16.0 * (1.0 - e) / (15.0 * e) : NAN;
}
static double fl_e(double cv)
{
    return cv >= 0.0 ? 16.0 / (16.0 + 15.0 * cv) : NAN;
}

/* Hu and Guo: chi = 3(1 - e)/(2e), c V = (1 - e)/e, e = 1/(1 + c V). */
static double hg_cv(double e)
{
    return in_unit(e) ? (1.0 - e) / e : NAN;
}
static double hg_e(double cv)
{
    return cv >= 0.0 ? 1.0 / (1.0 + cv) : NAN;
}

static const pl_impact_approximation table[] = {
    {"hunt_crossley_1975", "Hunt-Crossley 1975",
     "K. H. Hunt and F. R. E. Crossley, Coefficient of restitution interpreted as damping in vibroimpact, "
     "J. Appl. Mech. 42 (1975)",
     "3(1 - e)/2", hc_cv, hc_e, 1.0},
    {"lankarani_nikravesh_1990", "Lankarani-Nikravesh 1990",
     "H. M. Lankarani and P. E. Nikravesh, A contact force model with hysteresis damping for impact analysis of "
     "multibody systems, J. Mech. Des. 112 (1990)",
     "3(1 - e^2)/4", ln_cv, ln_e, 0.5},
    {"gonthier_2004", "Gonthier et al. 2004",
     "Y. Gonthier, J. McPhee, C. Lange and J.-C. Piedboeuf, A regularized contact model with asymmetric damping "
     "and dwell-time dependent friction, Multibody Syst. Dyn. 11 (2004)",
     "(1 - e^2)/e", go_cv, go_e, INFINITY},
    {"zhiying_qishao_2006", "Zhiying-Qishao 2006",
     "Q. Zhiying and L. Qishao, Analysis of impact process based on restitution coefficient, J. Dyn. Control 4 "
     "(2006)",
     "3(1 - e^2) exp(2(1 - e))/4", zq_cv, zq_e, 3.694528049465325},
    {"flores_2011", "Flores et al. 2011",
     "P. Flores, M. Machado, M. T. Silva and J. M. Martins, On the continuous contact force models for soft "
     "materials in multibody dynamics, Multibody Syst. Dyn. 25 (2011)",
     "8(1 - e)/(5e)", fl_cv, fl_e, INFINITY},
    {"hu_guo_2015", "Hu-Guo 2015",
     "S. Hu and X. Guo, A dissipative contact force model for impact analysis in multibody dynamics, Multibody "
     "Syst. Dyn. 35 (2015)",
     "3(1 - e)/(2e)", hg_cv, hg_e, INFINITY},
};

size_t pl_impact_approximation_count(void)
{
    return sizeof table / sizeof table[0];
}

const pl_impact_approximation *pl_impact_approximation_at(size_t index)
{
    return index < pl_impact_approximation_count() ? &table[index] : NULL;
}

double pl_impact_approximation_max_error(const pl_impact_approximation *a, double cv_lo, double cv_hi, double *at)
{
    enum { POINTS = 4001 };
    double worst = NAN, where = NAN;
    if (!(cv_lo > 0.0 && cv_hi >= cv_lo))
        return NAN;
    for (int i = 0; i <= POINTS; i++) {
        /* The grid, then cv_max where the relation ends inside the interval. */
        double cv = i < POINTS ? cv_lo * pow(cv_hi / cv_lo, (double)i / (POINTS - 1)) : a->cv_max;
        if (i == POINTS && !(cv >= cv_lo && cv <= cv_hi))
            break;
        double ea = a->restitution(cv);
        if (isnan(ea))
            continue;
        double err = fabs(ea - pl_restitution_hunt_crossley(cv));
        if (isnan(worst) || err > worst) {
            worst = err;
            where = cv;
        }
    }
    if (at)
        *at = where;
    return worst;
}
