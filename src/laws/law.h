/* Contact laws and their registry, in the style of the solver registry (solvers/solver.h): a law is a
 * const struct naming it, its parameters (defaults, ranges, meanings) and the functions of its scalar
 * normal force.  A new law is one source file defining a pl_law_type and one line in law.c.
 *
 * Every law is a scalar force lambda(G, Gdot) along the constraint's direction w = M^{-1} grad G,
 * positive when it pushes out of the obstacle, with delta = -G >= 0 the penetration and
 * deltadot = -Gdot its rate.  Paper 004 (Miller and Bentsman, "Generalized solutions in systems with
 * active unilateral constraints") admits forces mu F^s of its form (4), A(x,t) G + mu^(-1/2) B(x,t) Gdot:
 * Kelvin-Voigt is that form.  Hertz and Hunt-Crossley (mu k delta^n) are not Lipschitz at delta = 0
 * (its condition (3)) nor linear (its Assumption 4): their limits are the laws' own (docs/library.md).
 *
 * Units.  A law's parameters are either per unit effective mass (PL_LAW_PER_UNIT_MASS: the force is
 * m_eff times an acceleration; Kelvin-Voigt's k, as penlim always had it, so that its results do not
 * change), or physical (Hertz and Hunt-Crossley: the force is mu k delta^n, k in force/length^n, as
 * Drake and Simbody users enter it; the constraint's acceleration is lambda/m_eff).  A physical k
 * corresponds to a per-unit-mass k_per_mass = k/m_eff; Drake's Hunt-Crossley dissipation d (s/m) is
 * (3/2) c. */
#ifndef PL_LAW_H
#define PL_LAW_H

#include <stddef.h>

#include "core/params.h"
#include "core/status.h"
#include "penlim/model.h"

/* PL_LAW_MAX_PARAMS, the parameters of a law at most: include/penlim/model.h. */

/* What a law predicts a convergence rate for: the error mechanisms of a penalized run (docs/laws.md,
 * "Convergence rates", derives each). */
typedef enum {
    PL_RATE_IMPACT_TIME,     /* time of an impact that follows others: each earlier contact delays it */
    PL_RATE_IMPACT_VELOCITY, /* velocity after an impact, regular forces acting during the contact */
    PL_RATE_RESTITUTION,     /* restitution of an impact, regular forces acting during the contact */
    PL_RATE_PENETRATION,     /* mu^(1/(n+1)) times an impact's largest penetration */
    PL_RATE_LIFT_OFF,        /* time of a lift-off from a sustained contact */
    PL_RATE_AFTER_LIFT_OFF,  /* the state after a lift-off (the body leaves tangentially: a landing's time) */
    PL_RATE_SLIDING_FORCE,   /* contact force (mu G per unit mass) against F^sm in a sustained contact */
    PL_RATE_CAPTURE,         /* start of the final sustained contact of a bouncing contact */
    PL_RATE_NQ
} pl_rate_quantity;

/* pl_law_type.rate's answer for a quantity the law makes exact at every mu (Hertz's restitution where the
 * regular forces conserve energy during the contact). */
#define PL_RATE_EXACT INFINITY

/* Flags of a law. */
enum {
    PL_LAW_LINEAR = 1u,        /* lambda is linear in (G, Gdot) at fixed mu: step aiming at the roots of
                                  a linear oscillator and the linear gap model may be used */
    PL_LAW_NEVER_PULLS = 2u,   /* lambda >= 0 (clamped at 0 where the formula would pull) */
    PL_LAW_PER_UNIT_MASS = 4u  /* parameters per unit effective mass: lambda is m_eff times a function of
                                  (G, Gdot) (else physical: lambda does not depend on m_eff) */
};

typedef struct pl_law_type {
    const char *name;
    const char *summary;
    const char *formula; /* one line: "lambda = ..." */
    const pl_param_spec *params;
    size_t nparams; /* <= PL_LAW_MAX_PARAMS */
    const pl_dim *dims; /* the parameters' dimensions (nparams), which a study's axes say */
    unsigned flags;
    /* Homogeneity exponent n of the force in delta: the contact time scales as mu^(-1/(n+1)). */
    double (*exponent)(const double *p);
    /* Optional: the derived parameters from the set ones (Kelvin-Voigt's e <-> xi); set[k] is 1 for a
     * parameter given explicitly.  PL_ERR_INPUT with a one-line message when they contradict. */
    pl_status (*resolve)(double *p, const unsigned char *set, pl_error *err);
    /* A coefficient of the force at stiffness mu, computed once per run (Kelvin-Voigt's damping
     * 2 xi sqrt(mu/k)): passed back to force as `pre`.  Optional (pre is then 0). */
    double (*prepare)(const double *p, double mu);
    /* lambda(G, Gdot; mu, m_eff, p) and, where not NULL, its partial derivatives in G and Gdot. */
    double (*force)(const double *p, double mu, double pre, double m_eff, double G, double Gdot, double *dG,
                    double *dGdot);
    /* The contact's angular frequency at impact speed V: sqrt(k mu) for Kelvin-Voigt; 1/T for a
     * homogeneous law, T = (mu k/m_eff)^(-1/(n+1)) V^((1-n)/(n+1)) the time scale of its fast system.
     * V/frequency is the impact's penetration scale; the engine's step and tolerance scales use it. */
    double (*frequency)(const double *p, double mu, double m_eff, double V);
    /* Duration of an isolated impact at normal speed V (no other force): a linear law's does not depend
     * on V; a homogeneous one's scales as (mu k)^(-1/(n+1)) V^((1-n)/(n+1)). */
    double (*contact_time)(const double *p, double mu, double m_eff, double V);
    /* Largest penetration of that impact. */
    double (*impact_penetration)(const double *p, double mu, double m_eff, double V);
    /* Resting penetration under a constant acceleration A into the obstacle. */
    double (*rest_penetration)(const double *p, double mu, double m_eff, double A);
    /* The rate at which the oscillation of a contact resting under a constant acceleration A into the
     * obstacle decays, linearized about its resting penetration (docs/laws.md, "Sustained contact"): what
     * ends the entry transient of a sustained contact.  0 if it never decays (an elastic law). */
    double (*settling_rate)(const double *p, double mu, double m_eff, double A);
    /* Limit (mu -> infinity) restitution of an isolated impact at speed V, or NAN where no closed
     * form is known. */
    double (*restitution)(const double *p, double V);
    /* The rate r that the law predicts for a quantity's convergence, |error| ~ mu^(-r); PL_RATE_EXACT
     * when it is exact at every mu, 0 when it does not converge (it has no limit), NAN when not derived. */
    double (*rate)(const double *p, pl_rate_quantity what);
    /* 1 if the impacts of a contact pressed by a constant force accumulate at a finite time in the limit
     * (a Zeno point: a constant restitution below 1), 0 if they never do (elastic; Hunt-Crossley, whose
     * 1 - e ~ c V makes the flights sum like a harmonic series). */
    int (*bounces_accumulate)(const double *p);
} pl_law_type;

/* The law of one constraint: its type, its parameters, and the damping ratio xi of Kelvin-Voigt (for
 * another law, that of the linear law with its restitution at the model's speed V: what the engine's
 * settling and stability estimates read), and Kelvin-Voigt's k (NAN for another law). */
typedef struct {
    const pl_law_type *type;
    double p[PL_LAW_MAX_PARAMS];
    double k, xi;
    double m_ref; /* the effective mass at the initial configuration: a physical law's scales use it */
} pl_contact_law;

/* The law's scales for constraint `law` at stiffness mu and speed V (its m_ref for the effective mass):
 * its frequency, the duration of an isolated impact, and the penetration scale of a contact under the
 * model's scales V and A: the resting penetration, or an impact's V/frequency if smaller (a penalized
 * run holds G to rtol times it at best, and resolves a contact's oscillation to rtol against it). */
double pl_law_frequency(const pl_contact_law *law, double mu, double V);
double pl_law_contact_time(const pl_contact_law *law, double mu, double V);
double pl_law_rest_penetration(const pl_contact_law *law, double mu, double V, double A);
/* The decay rate of constraint `law`'s resting oscillation under the acceleration A (pl_law_type.settling_rate,
 * its m_ref for the effective mass); 0 for a law that does not give one. */
double pl_law_settling_rate(const pl_contact_law *law, double mu, double A);
/* The decay rate of a linear oscillator x'' + 2 xi omega x' + omega^2 x = 0: xi omega, or its slower mode
 * omega (xi - sqrt(xi^2 - 1)) overdamped. */
double pl_oscillator_decay_rate(double omega, double xi);
/* Kelvin-Voigt's damping 2 xi sqrt(mu/k), or the law's prepared coefficient (pl_law_type.prepare). */
double pl_law_prepare(const pl_contact_law *law, double mu);
/* lambda and its partials (may be NULL), pre = pl_law_prepare(law, mu). */
static inline double pl_law_force(const pl_contact_law *law, double mu, double pre, double m_eff, double G,
                                  double Gdot, double *dG, double *dGdot)
{
    return law->type->force(law->p, mu, pre, m_eff, G, Gdot, dG, dGdot);
}
static inline int pl_law_is_linear(const pl_contact_law *law)
{
    return (law->type->flags & PL_LAW_LINEAR) != 0;
}

/* Kelvin-Voigt's scales, which the clamped law shares (both with the parameters e, xi, k in that
 * order): the damping coefficient 2 xi sqrt(mu/k), sqrt(k mu), an impact's penetration, the resting one,
 * the decay rate of the resting oscillation (the clamp is idle while the contact pushes), the rates, the
 * accumulation of bounces and the exponent 1. */
double pl_kelvin_voigt_prepare(const double *p, double mu);
double pl_kelvin_voigt_frequency(const double *p, double mu, double m_eff, double V);
double pl_kelvin_voigt_impact_penetration(const double *p, double mu, double m_eff, double V);
double pl_kelvin_voigt_rest_penetration(const double *p, double mu, double m_eff, double A);
double pl_kelvin_voigt_settling_rate(const double *p, double mu, double m_eff, double A);
double pl_kelvin_voigt_rate(const double *p, pl_rate_quantity what);
int pl_kelvin_voigt_bounces_accumulate(const double *p);
double pl_kelvin_voigt_exponent(const double *p);

extern const pl_law_type pl_law_kelvin_voigt;
extern const pl_law_type pl_law_kelvin_voigt_clamped;
extern const pl_law_type pl_law_hunt_crossley;
extern const pl_law_type pl_law_hertz;

size_t pl_law_type_count(void);
const pl_law_type *pl_law_type_at(size_t index);
const pl_law_type *pl_law_type_find(const char *name); /* NULL if unknown */
/* The first law that has a parameter `name`, or NULL. */
const pl_law_type *pl_law_type_owning(const char *name);
/* The default law (kelvin_voigt). */
const pl_law_type *pl_law_type_default(void);

/* Index of parameter `name` of law t, or -1. */
int pl_law_param_index(const pl_law_type *t, const char *name);

/* Fill p (t->nparams values) from the defaults, then `defaults` (a case's defaults for some of the law's
 * parameters, which the law need not have: those it lacks are ignored), then `settings` (each must name
 * a parameter of the law), then the range checks and the law's resolve.  set (t->nparams, may be NULL)
 * receives which were given by `settings`.  PL_ERR_INPUT with a one-line message on an unknown name, a
 * name given twice, or a value out of range. */
pl_status pl_law_fill(const pl_law_type *t, const pl_setting *defaults, size_t ndefaults, const pl_setting *settings,
                      size_t nsettings, double *p, unsigned char *set, pl_error *err);

/* Whether the impacts of some constraint may accumulate (pl_law_type.bounces_accumulate) under the laws of
 * its m constraints: a law that does not say is taken to. */
int pl_laws_bounces_accumulate(const pl_contact_law *laws, size_t m);

/* The rates of a law homogeneous of degree n in delta (docs/laws.md derives them): 1/(n+1) for what an
 * impact's contact time sets (impact times and velocities, restitution, scaled penetration), 1/(3n-1)
 * for a lift-off's time, 2/(3n-1) for the state after it; NAN for the others (a law's own file answers those it derives). */
double pl_law_homogeneous_rate(double n, pl_rate_quantity what);

/* A homogeneous law's scales, kappa = mu k/m_eff the stiffness per unit mass of a force mu k delta^n:
 * the frequency 1/T of its fast system, T = kappa^(-1/(n+1)) V^((1-n)/(n+1)); an elastic impact's largest
 * penetration ((n+1) V^2/(2 kappa))^(1/(n+1)) and duration 2 (delta_max/V) B(1/(n+1), 1/2)/(n+1) (energy
 * V^2/2 = kappa delta^(n+1)/(n+1) and the time integral of 1/deltadot); the resting penetration
 * (A/kappa)^(1/n) under an acceleration A. */
double pl_homogeneous_frequency(double kappa, double n, double V);
double pl_homogeneous_penetration(double kappa, double n, double V);
double pl_homogeneous_contact_time(double kappa, double n, double V);
double pl_homogeneous_rest_penetration(double kappa, double n, double A);

#endif
