/* The limit impact maps of src/laws/restitution.h against an independent numerical integration of
 * an isolated impact's fast system (GSL's rk8pd, relative 1e-13, the exit located by Brent's method
 * on re-integrations from the last step), in physical units (stiffness per unit mass k, impact
 * speed V): Kelvin-Voigt, clamped Kelvin-Voigt, Hunt-Crossley (for several n and k: its
 * independence of them), power laws (Hertz); the inverses; the Hunt-Crossley bouncing ball; the
 * literature's relations between e and c (src/laws/approximations.h) against their derivation. */
#include <float.h>
#include <gsl/gsl_odeiv2.h>
#include <math.h>
#include <string.h>

#include "check.h"
#include "core/rootfind.h"
#include "laws/approximations.h"
#include "laws/law.h"
#include "laws/restitution.h"
#include "model/contact_law.h"

enum { KELVIN_VOIGT, KELVIN_VOIGT_CLAMPED, HUNT_CROSSLEY };
/* What ends the integration: the penetration back to 0, the (clamped law's) force to 0, or the
 * penetration rate to 0 (the deepest point). */
enum { AT_EXIT, AT_ZERO_FORCE, AT_DEEPEST };

typedef struct {
    int law;
    double k, xi, n, c; /* stiffness per unit mass, damping ratio, exponent, Hunt-Crossley's c */
} contact;

/* The written force law (positive pushes out), for delta > 0: every clamp spelled out. */
static double force(const contact *ct, double delta, double ddot)
{
    if (delta <= 0.0)
        return 0.0;
    switch (ct->law) {
    case KELVIN_VOIGT:
        return ct->k * delta + 2.0 * ct->xi * sqrt(ct->k) * ddot;
    case KELVIN_VOIGT_CLAMPED:
        return fmax(0.0, ct->k * delta + 2.0 * ct->xi * sqrt(ct->k) * ddot);
    default:
        return fmax(0.0, ct->k * pow(delta, ct->n) * (1.0 + 1.5 * ct->c * ddot));
    }
}

static int rhs(double t, const double y[], double dy[], void *p)
{
    (void)t;
    dy[0] = y[1];
    dy[1] = -force(p, y[0], y[1]);
    return GSL_SUCCESS;
}

typedef struct {
    contact *ct;
    int event;
    double t0, y0[2], scale[2];
    double y[2]; /* the state at the last evaluation */
} locate;

static double event_value(const locate *L, const double y[2])
{
    switch (L->event) {
    case AT_EXIT:
        return y[0];
    case AT_DEEPEST:
        return y[1];
    default: /* the clamped law's unclamped expression, which vanishes where its force does */
        return L->ct->k * y[0] + 2.0 * L->ct->xi * sqrt(L->ct->k) * y[1];
    }
}

static gsl_odeiv2_evolve *new_evolve(locate *L, gsl_odeiv2_step **step, gsl_odeiv2_control **ctl)
{
    *step = gsl_odeiv2_step_alloc(gsl_odeiv2_step_rk8pd, 2);
    *ctl = gsl_odeiv2_control_scaled_new(1e-14, 1e-13, 1.0, 0.0, L->scale, 2);
    return gsl_odeiv2_evolve_alloc(2);
}

/* The event function at time t, integrating from (t0, y0). */
static double event_at(double t, void *p)
{
    locate *L = p;
    gsl_odeiv2_system sys = {rhs, NULL, 2, L->ct};
    gsl_odeiv2_step *step;
    gsl_odeiv2_control *ctl;
    gsl_odeiv2_evolve *ev = new_evolve(L, &step, &ctl);
    double s = L->t0, h = (t - L->t0) / 16.0;
    L->y[0] = L->y0[0];
    L->y[1] = L->y0[1];
    while (s < t && h > 0.0)
        if (gsl_odeiv2_evolve_apply(ev, ctl, step, &sys, &s, t, &h, L->y) != GSL_SUCCESS)
            break;
    gsl_odeiv2_evolve_free(ev);
    gsl_odeiv2_control_free(ctl);
    gsl_odeiv2_step_free(step);
    return event_value(L, L->y);
}

/* Integrate from delta = 0, deltadot = V until the event's function falls from positive to <= 0;
 * its time in *t_event and the state there in y.  Returns 0 if it failed. */
static int impact(contact *ct, double V, int event, double L_scale, double *t_event, double y[2])
{
    locate L = {.ct = ct, .event = event, .scale = {L_scale, V}};
    gsl_odeiv2_system sys = {rhs, NULL, 2, ct};
    gsl_odeiv2_step *step;
    gsl_odeiv2_control *ctl;
    gsl_odeiv2_evolve *ev = new_evolve(&L, &step, &ctl);
    double t = 0.0, h = 1e-6 * L_scale / V, yy[2] = {0.0, V};
    int ok = 0;
    for (int it = 0; it < 1000000; it++) {
        double tp = t, yp[2] = {yy[0], yy[1]};
        double gp = event_value(&L, yp);
        if (gsl_odeiv2_evolve_apply(ev, ctl, step, &sys, &t, 1e300, &h, yy) != GSL_SUCCESS)
            break;
        /* A fall from positive values: at t = 0 the exit's function (delta) is 0. */
        if (gp > 0.0 && event_value(&L, yy) <= 0.0) {
            L.t0 = tp;
            L.y0[0] = yp[0];
            L.y0[1] = yp[1];
            *t_event = pl_brent(event_at, &L, tp, t, 0);
            event_at(*t_event, &L);
            y[0] = L.y[0];
            y[1] = L.y[1];
            ok = isfinite(*t_event);
            break;
        }
    }
    gsl_odeiv2_evolve_free(ev);
    gsl_odeiv2_control_free(ctl);
    gsl_odeiv2_step_free(step);
    return ok;
}

/* The restitution of one impact by integration. */
static double integrated_restitution(contact *ct, double V)
{
    /* The penetration scale of the law (for the absolute tolerance). */
    double n = ct->law == HUNT_CROSSLEY ? ct->n : 1.0;
    double L_scale = pl_power_law_max_penetration(n, ct->k, V);
    double t, y[2];
    int event = ct->law == KELVIN_VOIGT_CLAMPED ? AT_ZERO_FORCE : AT_EXIT;
    if (!impact(ct, V, event, L_scale, &t, y))
        return NAN;
    return -y[1] / V;
}

static double rel(double a, double b)
{
    return fabs(a - b) / fabs(b);
}

static const double K_VALUES[] = {1.0, 3.7e4};
static const double V_VALUES[] = {0.3, 2.5};

static double worst_kv, worst_clamped, worst_hc, worst_pen, worst_dur;

static void kelvin_voigt(void)
{
    const double xis[] = {0.0, 0.05, 0.3, 0.7, 0.95};
    for (size_t i = 0; i < sizeof xis / sizeof *xis; i++)
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++) {
                contact ct = {KELVIN_VOIGT, K_VALUES[a], xis[i], 1.0, 0.0};
                double e = integrated_restitution(&ct, V_VALUES[b]);
                double r = rel(pl_restitution_kelvin_voigt(xis[i]), e);
                worst_kv = fmax(worst_kv, r);
                CHECK(r < 1e-10, "Kelvin-Voigt xi %g k %g V %g: map %.15g, integrated %.15g", xis[i], K_VALUES[a],
                      V_VALUES[b], pl_restitution_kelvin_voigt(xis[i]), e);
            }
    /* The same function as the model's e(xi), bit for bit, over [0, 2]. */
    for (double xi = 0.0; xi <= 2.0; xi += 1.0 / 64.0)
        CHECK(pl_restitution_kelvin_voigt(xi) == pl_restitution_from_xi(xi), "Kelvin-Voigt identical at xi %g", xi);
    CHECK(isnan(pl_restitution_kelvin_voigt(-0.1)), "Kelvin-Voigt refuses xi < 0");
}

static void kelvin_voigt_clamped(void)
{
    const double xis[] = {0.02, 0.1, 0.3, 0.7, 1.0, 1.5, 4.0, 20.0};
    for (size_t i = 0; i < sizeof xis / sizeof *xis; i++)
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++) {
                contact ct = {KELVIN_VOIGT_CLAMPED, K_VALUES[a], xis[i], 1.0, 0.0};
                double e = integrated_restitution(&ct, V_VALUES[b]);
                double r = rel(pl_restitution_kelvin_voigt_clamped(xis[i]), e);
                worst_clamped = fmax(worst_clamped, r);
                CHECK(r < 1e-10, "clamped xi %g k %g V %g: map %.15g, integrated %.15g", xis[i], K_VALUES[a],
                      V_VALUES[b], pl_restitution_kelvin_voigt_clamped(xis[i]), e);
            }
    NEAR(pl_restitution_kelvin_voigt_clamped(1.0), exp(-2.0), 1e-16, "clamped at xi = 1");
    /* Continuous through xi = 1 (the two closed forms meet), and ~ 1/(4 xi^2) for large xi. */
    NEAR(pl_restitution_kelvin_voigt_clamped(1.0 - 1e-9), exp(-2.0), 1e-8, "clamped below xi = 1");
    NEAR(pl_restitution_kelvin_voigt_clamped(1.0 + 1e-9), exp(-2.0), 1e-8, "clamped above xi = 1");
    NEAR(4.0 * 1e6 * 1e6 * pl_restitution_kelvin_voigt_clamped(1e6), 1.0, 1e-10, "clamped ~ 1/(4 xi^2)");
    /* Larger than the unclamped law's for every xi > 0 (it loses no energy to pulling), positive. */
    for (double xi = 0.01; xi < 3.0; xi += 0.01) {
        double ec = pl_restitution_kelvin_voigt_clamped(xi), eu = pl_restitution_kelvin_voigt(xi);
        CHECK(ec > eu && ec > 0.0, "clamped %g > unclamped %g at xi %g", ec, eu, xi);
    }
    /* The inverse over (0, 1]: round trip in e, and in xi where e is not flat. */
    const double es[] = {1e-300, 1e-30, 1e-3, 0.05, exp(-2.0), 0.2, 0.5, 0.9, 0.999, 1.0 - 1e-9};
    for (size_t i = 0; i < sizeof es / sizeof *es; i++) {
        double xi = pl_xi_kelvin_voigt_clamped(es[i]);
        CHECK(xi >= 0.0, "clamped inverse at e %g: %g", es[i], xi);
        NEAR(pl_restitution_kelvin_voigt_clamped(xi) / es[i], 1.0, 1e-13 * fmax(1.0, -log(es[i])),
             "clamped e(xi(e))/e at e %g", es[i]);
    }
    for (double xi = 0.01; xi < 100.0; xi *= 1.7)
        NEAR(pl_xi_kelvin_voigt_clamped(pl_restitution_kelvin_voigt_clamped(xi)) / xi, 1.0, 1e-12,
             "clamped xi(e(xi))/xi at xi %g", xi);
    CHECK(pl_xi_kelvin_voigt_clamped(1.0) == 0.0, "clamped inverse of 1");
    CHECK(isnan(pl_xi_kelvin_voigt_clamped(0.0)) && isnan(pl_xi_kelvin_voigt_clamped(1.5)) &&
              isnan(pl_xi_kelvin_voigt_clamped(NAN)) && isnan(pl_xi_kelvin_voigt_clamped(-0.2)),
          "clamped inverse refuses e outside (0, 1]");
}

static void hunt_crossley(void)
{
    const double cvs[] = {1e-6, 1e-4, 0.01, 0.3, 1.0, 5.0, 100.0};
    const double ns[] = {1.0, 1.5, 2.5};
    for (size_t i = 0; i < sizeof cvs / sizeof *cvs; i++) {
        double e_map = pl_restitution_hunt_crossley(cvs[i]), lo = INFINITY, hi = -INFINITY;
        for (size_t j = 0; j < sizeof ns / sizeof *ns; j++)
            for (int a = 0; a < 2; a++)
                for (int b = 0; b < 2; b++) {
                    double V = V_VALUES[b];
                    contact ct = {HUNT_CROSSLEY, K_VALUES[a], 0.0, ns[j], cvs[i] / V};
                    double e = integrated_restitution(&ct, V);
                    double r = rel(e_map, e);
                    worst_hc = fmax(worst_hc, r);
                    lo = fmin(lo, e);
                    hi = fmax(hi, e);
                    CHECK(r < 1e-10, "Hunt-Crossley cV %g n %g k %g V %g: map %.15g, integrated %.15g", cvs[i],
                          ns[j], K_VALUES[a], V, e_map, e);
                }
        /* The integrations themselves agree over n, k and V at fixed c V. */
        CHECK((hi - lo) / hi < 1e-10, "Hunt-Crossley at cV %g depends on n, k or V: %.15g .. %.15g", cvs[i], lo, hi);
    }
    /* Small c V: 1 - e ~ c V, and the series 1 - cV + cV^2 - (11/10) cV^3 to its next term. */
    for (double cv = 1e-12; cv < 1e-2; cv *= 3.1) {
        double e = pl_restitution_hunt_crossley(cv);
        NEAR((1.0 - e) / cv, 1.0, 2.0 * cv + 1e-3, "Hunt-Crossley (1 - e)/cV at cV %g", cv);
        NEAR(e, 1.0 - cv + cv * cv - 1.1 * cv * cv * cv, 2.0 * pow(cv, 4) + 2e-16, "Hunt-Crossley series at cV %g", cv);
    }
    /* Large c V: e ~ 2/(3 cV) (the exit speed tends to 1/a). */
    NEAR(pl_restitution_hunt_crossley(1e8) * 1.5e8, 1.0, 1e-6, "Hunt-Crossley e ~ 2/(3 cV)");
    CHECK(pl_restitution_hunt_crossley(0.0) == 1.0 && pl_restitution_hunt_crossley(INFINITY) == 0.0 &&
              isnan(pl_restitution_hunt_crossley(-1.0)) && isnan(pl_restitution_hunt_crossley(NAN)),
          "Hunt-Crossley at the ends of its range");
    /* Continuous where the evaluation changes method (x = 1.5 cV = 1e-3, D = 0.25). */
    for (double cv = 1e-4; cv < 10.0; cv *= 1.001) {
        double e0 = pl_restitution_hunt_crossley(cv), e1 = pl_restitution_hunt_crossley(cv * 1.001);
        CHECK(e1 < e0 && e0 - e1 < 2e-3 * cv, "Hunt-Crossley decreasing and smooth at cV %g", cv);
    }
    /* The inverse: e(cV(e)) = e; cV(e(cV)) = cV as far as e's conditioning allows (de/dcV ~ -1). */
    for (double e = 1e-4; e < 1.0; e += 0.01)
        NEAR(pl_restitution_hunt_crossley(pl_hunt_crossley_cv_from_restitution(e)), e, 4.0 * DBL_EPSILON,
             "Hunt-Crossley e(cV(e)) at e %g", e);
    for (double cv = 1e-9; cv < 1e6; cv *= 2.3) {
        double e = pl_restitution_hunt_crossley(cv);
        NEAR(pl_hunt_crossley_cv_from_restitution(e) / cv, 1.0, 1e-14 + 4.0 * DBL_EPSILON / (1.0 - e),
             "Hunt-Crossley cV(e(cV))/cV at cV %g", cv);
    }
    CHECK(pl_hunt_crossley_cv_from_restitution(1.0) == 0.0 && isnan(pl_hunt_crossley_cv_from_restitution(0.0)) &&
              isnan(pl_hunt_crossley_cv_from_restitution(1.01)),
          "Hunt-Crossley inverse range");
}

static void power_laws(void)
{
    const double ns[] = {1.0, 1.5, 2.5};
    for (size_t j = 0; j < sizeof ns / sizeof *ns; j++)
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++) {
                double k = K_VALUES[a], V = V_VALUES[b];
                contact ct = {HUNT_CROSSLEY, k, 0.0, ns[j], 0.0};
                double dmax = pl_power_law_max_penetration(ns[j], k, V), T = pl_power_law_contact_duration(ns[j], k, V);
                double t1, y1[2], t2, y2[2];
                int ok = impact(&ct, V, AT_DEEPEST, dmax, &t1, y1) && impact(&ct, V, AT_EXIT, dmax, &t2, y2);
                CHECK(ok, "power law n %g k %g V %g integrated", ns[j], k, V);
                worst_pen = fmax(worst_pen, rel(dmax, y1[0]));
                worst_dur = fmax(worst_dur, rel(T, t2));
                NEAR(y1[0] / dmax, 1.0, 1e-10, "power law n %g k %g V %g: largest penetration", ns[j], k, V);
                NEAR(t2 / T, 1.0, 1e-10, "power law n %g k %g V %g: duration", ns[j], k, V);
                NEAR(-y2[1] / V, 1.0, 1e-10, "power law n %g k %g V %g: elastic", ns[j], k, V);
            }
    /* Linear: half the period pi/sqrt(k); Hertz: the power law at 3/2, I = (2/5) B(2/5, 1/2)
     * = 1.47163759216235232869 (by quadrature at 30 digits). */
    NEAR(pl_power_law_contact_duration(1.0, 4.0, 0.7), M_PI / 2.0, 1e-15, "linear contact: half period");
    double k = 2.9e5, V = 1.3, dmax = pow(5.0 * V * V / (4.0 * k), 0.4);
    NEAR(pl_hertz_max_penetration(k, V) / dmax, 1.0, 1e-15, "Hertz largest penetration");
    NEAR(pl_hertz_contact_duration(k, V) * V / (2.0 * dmax), 1.47163759216235232869, 1e-14, "Hertz I");
    CHECK(isnan(pl_power_law_max_penetration(0.0, 1.0, 1.0)) && isnan(pl_power_law_contact_duration(1.5, -1.0, 1.0)) &&
              isnan(pl_hertz_max_penetration(1.0, 0.0)) && isnan(pl_hertz_contact_duration(NAN, 1.0)),
          "power laws refuse arguments out of range");
}

/* A ball under Hunt-Crossley bounces as v_(k+1) = e(c v_k) v_k.  With 1/e = 1 + cV + (cV)^3/10 + ...
 * (from the series of e), 1/v_(k+1) = 1/v_k + c + O(c^3 v_k^2): 1/v_k - c k converges, v_k ~ 1/(c k),
 * and the flight times 2 v_k/g sum like (2/(g c)) ln k, without bound: no accumulation point. */
static void bouncing_ball(void)
{
    const double c = 1.0, g = 9.81, v0 = 1.0;
    const long K = 1000000;
    double v = v0, T = 0.0, drift_half = NAN, T_half = NAN;
    for (long k = 1; k <= K; k++) {
        v *= pl_restitution_hunt_crossley(c * v);
        T += 2.0 * v / g;
        if (k == K / 2) {
            drift_half = 1.0 / v - c * k;
            T_half = T;
        }
    }
    double drift = 1.0 / v - c * K;
    /* 1/v_k - c k - 1/v_0 = c^3 sum v_j^2/10 + ... : bounded (< 1 here), and settled by k = K/2. */
    CHECK(drift - 1.0 / v0 > 0.0 && drift - 1.0 / v0 < 1.0, "Hunt-Crossley ball: 1/v_k - c k = %g", drift);
    NEAR(drift, drift_half, 1e-5, "Hunt-Crossley ball: 1/v_k - c k settled");
    NEAR(c * K * v, 1.0, 2.0 / K, "Hunt-Crossley ball: c k v_k -> 1");
    /* Doubling the impacts adds (2/(g c)) ln 2 to the time: a harmonic series, no Zeno point. */
    NEAR(T - T_half, 2.0 / (g * c) * log(2.0), 1e-5, "Hunt-Crossley ball: flight time grows like ln k");
    printf("Hunt-Crossley ball (c = %g s/m, v0 = %g m/s): after %ld impacts 1/v - c k = %.6f, t = %.6f s\n", c, v0,
           K, drift, T);
}

/* Each literature relation: c V(e) and e(c V) inverse to each other, cv_max at e = 0, and its order
 * of agreement with the exact map as c V -> 0, derived by hand from the published chi(e) and from
 * e = 1 - a + a^2 - (11/10) a^3 (a = c V): the slope -de/da at 0 is 1 for chi ~ (3/2)(1 - e), 3/4 for
 * Gonthier's chi ~ 2(1 - e), 15/16 for Flores's chi ~ (8/5)(1 - e); Hunt and Crossley's e = 1 - a is
 * off by a^2, Hu and Guo's 1/(1 + a) by a^3/10 (1/e = 1 + a + a^3/10 + ...). */
static void approximations(void)
{
    size_t count = pl_impact_approximation_count();
    CHECK(count >= 5 && pl_impact_approximation_at(count) == NULL, "approximations: %zu of them", count);
    for (size_t i = 0; i < count; i++) {
        const pl_impact_approximation *a = pl_impact_approximation_at(i);
        for (double e = 0.01; e <= 1.0; e += 0.01) {
            double cv = a->cv_from_restitution(e);
            NEAR(a->restitution(cv), e, 1e-13, "%s: e(cV(e)) at e %g", a->name, e);
        }
        CHECK(a->cv_from_restitution(0.0) == a->cv_max, "%s: cV of e = 0 is %g", a->name, a->cv_max);
        CHECK(a->restitution(0.0) == 1.0 && isnan(a->restitution(-0.1)) && isnan(a->cv_from_restitution(1.1)),
              "%s at the ends of its range", a->name);
        if (isfinite(a->cv_max))
            CHECK(isnan(a->restitution(a->cv_max * 1.001)), "%s undefined beyond cV %g", a->name, a->cv_max);
        double slope = (1.0 - a->restitution(1e-7)) / 1e-7, expected = 1.0;
        if (strcmp(a->name, "gonthier_2004") == 0)
            expected = 0.75;
        else if (strcmp(a->name, "flores_2011") == 0)
            expected = 15.0 / 16.0;
        NEAR(slope, expected, 1e-6, "%s: slope at cV = 0", a->name);
        double at, err = pl_impact_approximation_max_error(a, 0.01, 2.0, &at);
        printf("  %-26s max |e_approx - e| over cV in [0.01, 2]: %.4f at cV = %.4f\n", a->name, err, at);
    }
    const pl_impact_approximation *hc = pl_impact_approximation_at(0), *hg = NULL;
    for (size_t i = 0; i < count; i++)
        if (strcmp(pl_impact_approximation_at(i)->name, "hu_guo_2015") == 0)
            hg = pl_impact_approximation_at(i);
    CHECK(strcmp(hc->name, "hunt_crossley_1975") == 0 && hg, "the Hunt-Crossley and Hu-Guo relations are listed");
    for (double cv = 1e-4; cv < 2e-2 && hg; cv *= 2.0) {
        NEAR((pl_restitution_hunt_crossley(cv) - hc->restitution(cv)) / (cv * cv), 1.0, 2.0 * cv,
             "Hunt-Crossley 1975 off by (cV)^2 at cV %g", cv);
        NEAR((hg->restitution(cv) - pl_restitution_hunt_crossley(cv)) / (cv * cv * cv), 0.1, 3.0 * cv + 1e-6,
             "Hu-Guo off by (cV)^3/10 at cV %g", cv);
    }
}

/* The registry's laws (src/laws/law.h) give the same limit restitution as these maps: two
 * implementations of one formula, kept in agreement (to a few ulps). */
static void registry_agrees(void)
{
    const pl_law_type *hc = pl_law_type_find("hunt_crossley"), *cl = pl_law_type_find("kelvin_voigt_clamped");
    const pl_law_type *kv = pl_law_type_find("kelvin_voigt"), *hz = pl_law_type_find("hertz");
    CHECK(hc && cl && kv && hz, "the registry has the four laws");
    if (!(hc && cl && kv && hz))
        return;
    double p[PL_LAW_MAX_PARAMS];
    pl_error err;
    for (double cv = 1e-9; cv < 1e3; cv *= 1.37) {
        pl_setting set[] = {{"c", 0.37}, {"n", 2.5}};
        CHECK(pl_law_fill(hc, NULL, 0, set, 2, p, NULL, &err) == PL_OK, "hunt_crossley filled");
        double V = cv / 0.37, a = hc->restitution(p, V), b = pl_restitution_hunt_crossley(cv);
        CHECK(fabs(a - b) <= 1e-15 * b, "registry's Hunt-Crossley %.17g, map %.17g at cV %g", a, b, cv);
    }
    for (double xi = 0.001; xi < 1e3; xi *= 1.41) {
        pl_setting set[] = {{"xi", xi}};
        CHECK(pl_law_fill(cl, NULL, 0, set, 1, p, NULL, &err) == PL_OK, "kelvin_voigt_clamped filled at xi %g", xi);
        double a = cl->restitution(p, 1.0), b = pl_restitution_kelvin_voigt_clamped(xi);
        /* exp(-L) carries L's rounding: a few ulps times L */
        CHECK(fabs(a - b) <= 4.0 * DBL_EPSILON * (1.0 - log(b)) * b, "registry's clamped %.17g, map %.17g at xi %g", a,
              b, xi);
        if (xi < 0.999) {
            CHECK(pl_law_fill(kv, NULL, 0, set, 1, p, NULL, &err) == PL_OK, "kelvin_voigt filled at xi %g", xi);
            CHECK(kv->restitution(p, 1.0) == pl_restitution_kelvin_voigt(xi), "registry's Kelvin-Voigt at xi %g", xi);
        }
    }
    CHECK(pl_law_fill(hz, NULL, 0, NULL, 0, p, NULL, &err) == PL_OK && hz->restitution(p, 2.0) == 1.0,
          "registry's Hertz is elastic");
}

int main(void)
{
    check_init();
    kelvin_voigt();
    kelvin_voigt_clamped();
    hunt_crossley();
    power_laws();
    bouncing_ball();
    approximations();
    registry_agrees();
    printf("largest relative errors against the integration: Kelvin-Voigt %.2g, clamped %.2g, Hunt-Crossley %.2g, "
           "power-law penetration %.2g, duration %.2g\n",
           worst_kv, worst_clamped, worst_hc, worst_pen, worst_dur);
    return check_finish("test_impact_maps");
}
