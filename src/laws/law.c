/* The table of contact laws, one line each, and what every law shares: filling its parameters. */
#include "laws/law.h"
#include "laws/restitution.h"

#include <math.h>
#include <string.h>

static const pl_law_type *const registry[] = {
    &pl_law_kelvin_voigt,
    &pl_law_kelvin_voigt_clamped,
    &pl_law_hunt_crossley,
    &pl_law_hertz,
};

size_t pl_law_type_count(void)
{
    return sizeof registry / sizeof registry[0];
}

const pl_law_type *pl_law_type_at(size_t index)
{
    return index < pl_law_type_count() ? registry[index] : NULL;
}

const pl_law_type *pl_law_type_find(const char *name)
{
    for (size_t k = 0; name && k < pl_law_type_count(); k++)
        if (strcmp(registry[k]->name, name) == 0)
            return registry[k];
    return NULL;
}

const pl_law_type *pl_law_type_owning(const char *name)
{
    for (size_t k = 0; k < pl_law_type_count(); k++)
        if (pl_law_param_index(registry[k], name) >= 0)
            return registry[k];
    return NULL;
}

const pl_law_type *pl_law_type_default(void)
{
    return &pl_law_kelvin_voigt;
}

int pl_law_param_index(const pl_law_type *t, const char *name)
{
    return pl_param_find(t->params, t->nparams, name);
}

pl_status pl_law_fill(const pl_law_type *t, const pl_setting *defaults, size_t ndefaults, const pl_setting *settings,
                      size_t nsettings, double *p, unsigned char *set, pl_error *err)
{
    unsigned char given[PL_LAW_MAX_PARAMS] = {0};
    for (size_t k = 0; k < t->nparams; k++)
        p[k] = t->params[k].value;
    for (size_t k = 0; k < ndefaults; k++) {
        int idx = pl_law_param_index(t, defaults[k].name);
        if (idx >= 0)
            p[idx] = defaults[k].value;
    }
    for (size_t k = 0; k < nsettings; k++) {
        int idx = pl_law_param_index(t, settings[k].name);
        const pl_law_type *owner = idx < 0 ? pl_law_type_owning(settings[k].name) : NULL;
        if (owner) /* the words of a case's command (model.c) */
            return pl_fail(err, PL_ERR_INPUT, "parameter %s belongs to the contact law %s, not to %s (its parameters: "
                           "penlim laws)", settings[k].name, owner->name, t->name);
        if (idx < 0)
            return pl_fail(err, PL_ERR_INPUT, "the contact law %s has no parameter '%s'", t->name, settings[k].name);
        if (given[idx])
            return pl_fail(err, PL_ERR_INPUT, "parameter %s is set twice", settings[k].name);
        p[idx] = settings[k].value;
        given[idx] = 1;
    }
    for (size_t k = 0; k < t->nparams; k++) {
        if ((t->params[k].flags & PL_PARAM_DERIVED) && !given[k] && isnan(p[k]))
            continue;
        pl_status s = pl_param_check(&t->params[k], p[k], err);
        if (s != PL_OK)
            return s;
    }
    if (set)
        memcpy(set, given, t->nparams);
    return t->resolve ? t->resolve(p, given, err) : PL_OK;
}

int pl_laws_bounces_accumulate(const pl_contact_law *laws, size_t m)
{
    for (size_t i = 0; i < m; i++)
        if (!laws[i].type->bounces_accumulate || laws[i].type->bounces_accumulate(laws[i].p))
            return 1;
    return 0;
}

double pl_law_homogeneous_rate(double n, pl_rate_quantity what)
{
    switch (what) {
    case PL_RATE_IMPACT_TIME:
    case PL_RATE_IMPACT_VELOCITY:
    case PL_RATE_RESTITUTION:
    case PL_RATE_PENETRATION:
        return 1.0 / (n + 1.0);
    case PL_RATE_LIFT_OFF:
        return 1.0 / (3.0 * n - 1.0);
    case PL_RATE_AFTER_LIFT_OFF:
        return 2.0 / (3.0 * n - 1.0);
    default:
        return NAN;
    }
}

double pl_homogeneous_frequency(double kappa, double n, double V)
{
    return pow(kappa, 1.0 / (n + 1.0)) * pow(V, (n - 1.0) / (n + 1.0));
}

double pl_homogeneous_penetration(double kappa, double n, double V)
{
    return V == 0.0 ? 0.0 : pl_power_law_max_penetration(n, kappa, V); /* no impact: no penetration */
}

double pl_homogeneous_contact_time(double kappa, double n, double V)
{
    return pl_power_law_contact_duration(n, kappa, V);
}

double pl_homogeneous_rest_penetration(double kappa, double n, double A)
{
    return pow(A / kappa, 1.0 / n);
}

double pl_law_frequency(const pl_contact_law *law, double mu, double V)
{
    return law->type->frequency(law->p, mu, law->m_ref, V);
}

double pl_law_contact_time(const pl_contact_law *law, double mu, double V)
{
    return law->type->contact_time(law->p, mu, law->m_ref, V);
}

double pl_law_rest_penetration(const pl_contact_law *law, double mu, double V, double A)
{
    return fmin(law->type->rest_penetration(law->p, mu, law->m_ref, A), V / pl_law_frequency(law, mu, V));
}

double pl_law_settling_rate(const pl_contact_law *law, double mu, double A)
{
    return law->type->settling_rate ? law->type->settling_rate(law->p, mu, law->m_ref, A) : 0.0;
}

double pl_oscillator_decay_rate(double omega, double xi)
{
    return xi < 1.0 ? xi * omega : omega * (xi - sqrt(xi * xi - 1.0));
}

double pl_law_prepare(const pl_contact_law *law, double mu)
{
    return law->type->prepare ? law->type->prepare(law->p, mu) : 0.0;
}
