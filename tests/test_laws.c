/* The contact laws against closed forms and an independent integration of an isolated impact:
 * delta'' = lambda(-delta, -deltadot)/m, from delta = 0 at speed V (GSL's rk8pd, tight tolerances). */
#include "cases/cases.h"
#include "check.h"
#include "laws/law.h"
#include "model/contact_law.h"
#include "solve.h"
#include "study/analysis.h"

#include <gsl/gsl_odeiv2.h>
#include <gsl/gsl_sf_gamma.h>
#include <string.h>

typedef struct {
    const pl_law_type *t;
    double p[PL_LAW_MAX_PARAMS];
    double mu, m, pre;
} impact;

static int rhs(double t, const double *y, double *dy, void *params)
{
    (void)t;
    const impact *im = params;
    dy[0] = y[1];
    dy[1] = -im->t->force(im->p, im->mu, im->pre, im->m, -y[0], -y[1], NULL, NULL) / im->m;
    return GSL_SUCCESS;
}

/* y (delta, deltadot) at t0 + s from y0 at t0. */
static void advance(impact *im, const double *y0, double s, double *y)
{
    memcpy(y, y0, 2 * sizeof *y);
    if (!(s > 0.0))
        return;
    gsl_odeiv2_system sys = {rhs, NULL, 2, im};
    gsl_odeiv2_driver *d = gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, s / 16.0, 1e-14, 1e-14);
    double t = 0.0;
    CHECK(d && gsl_odeiv2_driver_apply(d, &t, s, y) == GSL_SUCCESS, "the reference integration");
    gsl_odeiv2_driver_free(d);
}

/* The time where component c of y crosses 0 downwards, in (t0, t0 + h), by Newton from y0 at t0. */
static double crossing(impact *im, const double *y0, double h, int c, double *y_at)
{
    double s = 0.5 * h, y[2], dy[2];
    for (int it = 0; it < 40; it++) {
        advance(im, y0, s, y);
        rhs(0.0, y, dy, im);
        double ds = -y[c] / dy[c];
        s = fmin(fmax(s + ds, 0.0), h);
        if (fabs(ds) < 1e-15 * h)
            break;
    }
    advance(im, y0, s, y_at);
    return s;
}

/* Integrate the impact at speed V: exit speed, largest penetration, time to delta = 0. */
static void run_impact(impact *im, double V, double T, double *e, double *dmax, double *duration)
{
    double y[2] = {0.0, V}, next[2], at[2], t = 0.0, h = T / 400.0;
    im->pre = im->t->prepare ? im->t->prepare(im->p, im->mu) : 0.0;
    *dmax = NAN;
    for (int k = 0; k < 100000; k++) {
        advance(im, y, h, next);
        if (isnan(*dmax) && next[1] <= 0.0)
            crossing(im, y, h, 1, at), *dmax = at[0];
        if (next[0] <= 0.0) {
            *duration = t + crossing(im, y, h, 0, at);
            *e = -at[1] / V;
            return;
        }
        memcpy(y, next, sizeof y);
        t += h;
    }
    *e = *duration = NAN;
}

static void fill(const pl_law_type *t, const pl_setting *s, size_t ns, double *p)
{
    pl_error err = {0};
    CHECK(pl_law_fill(t, NULL, 0, s, ns, p, NULL, &err) == PL_OK, "%s: %s", t->name, err.message);
}

static void registry(void)
{
    CHECK(pl_law_type_count() == 4, "four laws");
    const char *names[] = {"kelvin_voigt", "kelvin_voigt_clamped", "hunt_crossley", "hertz"};
    for (size_t k = 0; k < 4; k++)
        CHECK(pl_law_type_find(names[k]) == pl_law_type_at(k) && pl_law_type_at(k)->nparams <= PL_LAW_MAX_PARAMS,
              "law %s registered", names[k]);
    CHECK(pl_law_type_find("kelvin") == NULL && pl_law_type_at(4) == NULL, "unknown law");
    CHECK(pl_law_type_default() == &pl_law_kelvin_voigt, "the default law");
}

static int fails(const pl_law_type *t, const pl_setting *defaults, size_t nd, const pl_setting *s, size_t ns,
                 const char *words)
{
    double p[PL_LAW_MAX_PARAMS];
    pl_error err = {0};
    int failed = pl_law_fill(t, defaults, nd, s, ns, p, NULL, &err) == PL_ERR_INPUT;
    CHECK(failed && strstr(err.message, words) && !strchr(err.message, '\n'), "%s: expected a one-line refusal with '%s', "
          "got '%s'", t->name, words, err.message);
    return failed;
}

static void parameters(void)
{
    double p[PL_LAW_MAX_PARAMS];
    unsigned char set[PL_LAW_MAX_PARAMS];
    pl_error err = {0};
    pl_setting case_e = {"e", 0.5}, k2 = {"k", 2.0}, xi = {"xi", 0.3};
    /* a case's default e, and a setting of k: xi follows from e */
    CHECK(pl_law_fill(&pl_law_kelvin_voigt, &case_e, 1, &k2, 1, p, set, &err) == PL_OK, "%s", err.message);
    CHECK(p[0] == 0.5 && p[1] == pl_xi_from_restitution(0.5) && p[2] == 2.0 && set[2] && !set[0],
          "kelvin_voigt: e from the case, xi derived, k set");
    CHECK(pl_law_fill(&pl_law_kelvin_voigt, &case_e, 1, &xi, 1, p, NULL, &err) == PL_OK &&
          p[0] == pl_restitution_from_xi(0.3), "kelvin_voigt: xi set, e derived");
    pl_setting both[] = {{"e", 0.5}, {"xi", 0.3}}, twice[] = {{"k", 1.0}, {"k", 2.0}};
    fails(&pl_law_kelvin_voigt, NULL, 0, both, 2, "either e or xi");
    fails(&pl_law_kelvin_voigt, NULL, 0, twice, 2, "set twice");
    pl_setting c = {"c", 0.25}, cneg = {"c", -0.1}, n05 = {"n", 0.5}, e0 = {"e", 0.0}, k0 = {"k", 0.0};
    fails(&pl_law_kelvin_voigt, NULL, 0, &c, 1, "parameter c belongs to the contact law hunt_crossley, not to kelvin_voigt");
    fails(&pl_law_hertz, NULL, 0, &xi, 1, "parameter xi belongs to the contact law kelvin_voigt, not to hertz");
    pl_setting zz = {"zz", 1.0};
    fails(&pl_law_hertz, NULL, 0, &zz, 1, "the contact law hertz has no parameter 'zz'");
    fails(&pl_law_hunt_crossley, NULL, 0, &cneg, 1, "out of range");
    fails(&pl_law_hunt_crossley, NULL, 0, &n05, 1, "out of range");
    fails(&pl_law_hertz, NULL, 0, &k0, 1, "out of range");
    /* e = 0 has no damping ratio under the clamped law, whether set or a case's default */
    fails(&pl_law_kelvin_voigt_clamped, NULL, 0, &e0, 1, "out of range");
    fails(&pl_law_kelvin_voigt_clamped, &e0, 1, NULL, 0, "out of range");
    /* a case's defaults for parameters the law does not have are ignored */
    CHECK(pl_law_fill(&pl_law_hunt_crossley, &case_e, 1, &c, 1, p, NULL, &err) == PL_OK && p[2] == 0.25 &&
          p[1] == 1.5 && p[0] == 1.0, "hunt_crossley: defaults k = 1, n = 1.5, c set");
}

/* Force partials against central differences, at a state that pushes. */
static void partials(const pl_law_type *t, const double *p, double mu, double m)
{
    double pre = t->prepare ? t->prepare(p, mu) : 0.0, G = -0.013, Gd = -0.41, dG, dGd;
    double l = t->force(p, mu, pre, m, G, Gd, &dG, &dGd), h = 1e-6;
    double nG = (t->force(p, mu, pre, m, G + h * fabs(G), Gd, NULL, NULL) -
                 t->force(p, mu, pre, m, G - h * fabs(G), Gd, NULL, NULL)) / (2.0 * h * fabs(G));
    double nGd = (t->force(p, mu, pre, m, G, Gd + h, NULL, NULL) - t->force(p, mu, pre, m, G, Gd - h, NULL, NULL)) /
                 (2.0 * h);
    CHECK(l > 0.0, "%s pushes at (G, Gdot) = (%g, %g)", t->name, G, Gd);
    NEAR(dG, nG, 1e-6 * fabs(nG), "%s: dlambda/dG", t->name);
    NEAR(dGd, nGd, 1e-6 * fabs(nGd) + 1e-12 * fabs(l), "%s: dlambda/dGdot", t->name);
}

/* An isolated impact of each law at two speeds and stiffnesses against the law's closed forms. */
static void impacts(void)
{
    double mus[] = {3.7e3, 2.2e6}, Vs[] = {0.37, 2.9};
    struct {
        const pl_law_type *t;
        pl_setting s[2];
        size_t ns;
        double m;
        int exact_time;
    } laws[] = {
        {&pl_law_kelvin_voigt, {{"e", 0.62}, {"k", 1.7}}, 2, 1.0, 1},
        {&pl_law_kelvin_voigt_clamped, {{"xi", 0.23}, {"k", 0.6}}, 2, 1.0, 0},
        {&pl_law_kelvin_voigt_clamped, {{"xi", 2.7}, {"k", 0.6}}, 2, 1.0, 0},
        {&pl_law_hertz, {{"k", 3.1}}, 1, 0.45, 1},
        {&pl_law_hunt_crossley, {{"c", 0.83}, {"n", 1.5}}, 2, 2.3, 0},
        {&pl_law_hunt_crossley, {{"c", 0.05}, {"n", 2.2}}, 2, 0.7, 0},
        {&pl_law_hunt_crossley, {{"c", 4.0}, {"n", 1.0}}, 2, 1.0, 0},
    };
    for (size_t l = 0; l < sizeof laws / sizeof laws[0]; l++) {
        impact im = {.t = laws[l].t, .m = laws[l].m};
        fill(im.t, laws[l].s, laws[l].ns, im.p);
        partials(im.t, im.p, mus[0], im.m);
        for (size_t a = 0; a < 2; a++)
            for (size_t b = 0; b < 2; b++) {
                im.mu = mus[a];
                double V = Vs[b], T = im.t->contact_time(im.p, im.mu, im.m, V), e, dmax, dur;
                run_impact(&im, V, T, &e, &dmax, &dur);
                const char *nm = im.t->name;
                NEAR(e, im.t->restitution(im.p, V), 1e-9, "%s (%s = %g) mu %g V %g: restitution", nm,
                     im.t->params[im.t->nparams - 1].name, im.p[im.t->nparams - 1], im.mu, V);
                NEAR(dmax, im.t->impact_penetration(im.p, im.mu, im.m, V),
                     1e-9 * im.t->impact_penetration(im.p, im.mu, im.m, V), "%s mu %g V %g: largest penetration", nm,
                     im.mu, V);
                if (laws[l].exact_time)
                    NEAR(dur, T, 1e-9 * T, "%s mu %g V %g: contact duration", nm, im.mu, V);
                /* the time scale: the contact lasts a few 1/frequency */
                double w = im.t->frequency(im.p, im.mu, im.m, V);
                CHECK(dur * w > 1.0 && dur * w < 10.0, "%s: duration %g against 1/frequency %g", nm, dur, 1.0 / w);
            }
    }
}

/* Closed forms written out independently of the law files. */
static void closed_forms(void)
{
    double I = 0.4 * gsl_sf_beta(0.4, 0.5), mu = 1e6, k = 2.5, m = 0.8, V = 1.3;
    NEAR(I, 1.4716, 1e-4, "Hertz's I = (2/5) B(2/5, 1/2)");
    double p[PL_LAW_MAX_PARAMS];
    pl_setting ks = {"k", k};
    fill(&pl_law_hertz, &ks, 1, p);
    double dmax = pow(5.0 * V * V * m / (4.0 * k * mu), 0.4);
    NEAR(pl_law_hertz.impact_penetration(p, mu, m, V), dmax, 1e-15 * dmax, "Hertz delta_max");
    NEAR(pl_law_hertz.contact_time(p, mu, m, V), 2.0 * I * dmax / V, 1e-14 * dmax / V, "Hertz duration");
    NEAR(pl_law_hertz.rest_penetration(p, mu, m, 9.81), pow(9.81 * m / (k * mu), 1.0 / 1.5), 1e-20,
         "Hertz resting penetration");
    /* Hunt-Crossley's e(cV): Hunt and Crossley's first order 1 - e ~ c V (here 1 - e ~ (3/2) c V... of the
     * form 1 + (3/2) c deltadot: y = x - (2/3) x^2 + ... gives 1 - e = (2/3) x = c V); continuity at the
     * switch between the series and Lambert's W */
    pl_setting cs = {"c", 1.0};
    fill(&pl_law_hunt_crossley, &cs, 1, p);
    for (double cV = 1e-9; cV < 1e-3; cV *= 10.0)
        NEAR((1.0 - pl_law_hunt_crossley.restitution(p, cV)) / cV, 1.0, 2.0 * cV + 4e-16 / cV, "hunt_crossley 1 - e ~ c V at %g", cV);
    double below = pl_law_hunt_crossley.restitution(p, 0.01 / 1.5 * (1.0 - 1e-12));
    double above = pl_law_hunt_crossley.restitution(p, 0.01 / 1.5 * (1.0 + 1e-12));
    /* e changes by 1.3e-14 between the two speeds */
    NEAR(below, above, 3e-14, "hunt_crossley e continuous at the series' end");
    /* the clamped law: e = exp(-2 xi arccos(xi)/sqrt(1 - xi^2)), xi(e(xi)) = xi */
    for (double xi = 0.05; xi < 20.0; xi *= 1.7) {
        pl_setting xs = {"xi", xi};
        fill(&pl_law_kelvin_voigt_clamped, &xs, 1, p);
        double e = xi < 1.0 ? exp(-2.0 * xi * acos(xi) / sqrt(1.0 - xi * xi))
                            : exp(-2.0 * xi * acosh(xi) / sqrt(xi * xi - 1.0));
        NEAR(p[0], e, 1e-14, "clamped e(xi = %g)", xi);
        CHECK(e > pl_restitution_from_xi(xi), "clamped e(%g) = %g above Kelvin-Voigt's", xi, e);
        pl_setting es = {"e", e};
        fill(&pl_law_kelvin_voigt_clamped, &es, 1, p);
        NEAR(p[1], xi, 1e-12 * xi, "clamped xi(e(%g))", xi);
    }
}

/* The one episode of constraint i of a penalized run of `c` under `law` with `settings` at mu; NULL with a
 * failed check if the run fails or has no closed episode. */
static int penalized_impact(const pl_case *c, const pl_law_type *law, const pl_setting *settings, size_t ns,
                            double mu, double t_end, size_t i, pl_episode *out)
{
    pl_model model;
    pl_error err = {0};
    pl_solution sol;
    if (pl_model_init_law(&model, c, law, settings, ns, &err) != PL_OK) {
        CHECK(0, "%s under %s: %s", c->name, law->name, err.message);
        return 0;
    }
    pl_status s = solve_penalty(&model, mu, 1e-10, t_end, 0, &sol, &err);
    int found = 0;
    CHECK(s == PL_OK, "%s under %s at mu %g: %s", c->name, law->name, mu, err.message);
    for (size_t k = 0; s == PL_OK && k < sol.nepisodes; k++)
        if (sol.episodes[k].constraint == i && !found) {
            *out = sol.episodes[k];
            found = !isnan(out->t_out);
        }
    CHECK(found, "%s under %s at mu %g: an impact of constraint %zu", c->name, law->name, mu, i + 1);
    pl_solution_free(&sol);
    pl_model_free(&model);
    return found;
}

/* Hertz, an isolated impact without gravity, at several mu: restitution 1, largest penetration
 * (5 V^2 m/(4 k mu))^(2/5), duration 2 I delta_max/V with I = (2/5) B(2/5, 1/2); on the ball (m = 1) and on
 * the wedge's first wall, whose effective mass is 1 - m^2 (k physical: the force mu k delta^1.5 does not
 * scale with it). */
static void hertz_penalized(void)
{
    double I = 0.4 * gsl_sf_beta(0.4, 0.5), V = 1.7, k = 2.3;
    for (double mu = 1e5; mu <= 1e11; mu *= 1e3) {
        pl_setting ball[] = {{"g", 0.0}, {"h0", 0.1}, {"v0", -V}, {"k", k}};
        pl_setting wedge[] = {{"m", 0.5}, {"q1", 0.1}, {"q2", 5.0}, {"v1", -V}, {"v2", 0.0}, {"k", k}};
        const pl_case *cases[] = {&pl_case_bouncing_ball, &pl_case_wedge};
        const pl_setting *set[] = {ball, wedge};
        size_t ns[] = {4, 6};
        double meff[] = {1.0, 0.75};
        for (int j = 0; j < 2; j++) {
            pl_episode ep = {0};
            if (!penalized_impact(cases[j], &pl_law_hertz, set[j], ns[j], mu, 0.5, 0, &ep))
                continue;
            double dmax = pow(5.0 * V * V * meff[j] / (4.0 * k * mu), 0.4), T = 2.0 * I * dmax / V;
            NEAR(-ep.gdot_out / ep.gdot_in, 1.0, 1e-8, "hertz %s mu %g: restitution", cases[j]->name, mu);
            NEAR(ep.gdot_in, -V, 1e-12, "hertz %s mu %g: impact speed", cases[j]->name, mu);
            NEAR(ep.max_penetration, dmax, 1e-7 * dmax, "hertz %s mu %g: largest penetration", cases[j]->name, mu);
            NEAR(ep.t_out - ep.t_in, T, 1e-7 * T, "hertz %s mu %g: contact duration", cases[j]->name, mu);
        }
    }
}

/* Hunt-Crossley without gravity: the penalized restitution is e(c V) at every mu (the scaled contact
 * problem is free of mu), for several c V and exponents. */
static void hunt_crossley_penalized(void)
{
    double V = 1.7, cs[] = {0.05, 0.4, 2.0}, ns[] = {1.5, 1.0, 2.5};
    for (int j = 0; j < 3; j++)
        for (double mu = 1e4; mu <= 1e10; mu *= 1e3) {
            pl_setting ball[] = {{"g", 0.0}, {"h0", 0.1}, {"v0", -V}, {"k", 0.7}, {"c", cs[j]}, {"n", ns[j]}};
            pl_episode ep = {0};
            if (!penalized_impact(&pl_case_bouncing_ball, &pl_law_hunt_crossley, ball, 6, mu, 1.0, 0, &ep))
                continue;
            double p[PL_LAW_MAX_PARAMS] = {0.7, ns[j], cs[j]};
            NEAR(-ep.gdot_out / ep.gdot_in, pl_law_hunt_crossley.restitution(p, V), 1e-8,
                 "hunt_crossley c V = %g, n = %g, mu %g: restitution", cs[j] * V, ns[j], mu);
            double dmax = pl_law_hunt_crossley.impact_penetration(p, mu, 1.0, V);
            NEAR(ep.max_penetration, dmax, 1e-7 * dmax, "hunt_crossley c V = %g, mu %g: largest penetration",
                 cs[j] * V, mu);
        }
}

/* Hunt-Crossley's ball under gravity: the first impact's restitution converges to e(c V) at the rate
 * 1/(n+1) of the law's contact time (gravity acts over a contact of duration ~mu^(-1/(n+1))): the rate
 * fitted between mu = 1e8 and 1e10 is 0.4 for n = 3/2 and 0.5 for n = 1. */
static void hunt_crossley_rate(void)
{
    double ns[] = {1.5, 1.0}, c = 0.3, g = 9.81, h0 = 0.8, V = sqrt(2.0 * g * h0);
    for (int j = 0; j < 2; j++) {
        double err[2], p[PL_LAW_MAX_PARAMS] = {1.0, ns[j], c}, e = pl_law_hunt_crossley.restitution(p, V);
        for (int a = 0; a < 2; a++) {
            pl_setting ball[] = {{"g", g}, {"h0", h0}, {"c", c}, {"n", ns[j]}};
            pl_episode ep = {0};
            err[a] = NAN;
            if (penalized_impact(&pl_case_bouncing_ball, &pl_law_hunt_crossley, ball, 4, a ? 1e10 : 1e8, 1.0, 0, &ep))
                err[a] = fabs(-ep.gdot_out / ep.gdot_in - e);
        }
        NEAR(log10(err[0] / err[1]) / 2.0, 1.0 / (ns[j] + 1.0), 0.02, "hunt_crossley n = %g: rate of the restitution",
             ns[j]);
        CHECK(pl_law_hunt_crossley.rate(p, PL_RATE_RESTITUTION) == 1.0 / (ns[j] + 1.0), "the predicted rate");
    }
}

/* A resting contact under Hunt-Crossley (the ball started on the floor, c large enough that its
 * oscillation dies out): its sliding force is the contact force itself, m g = 9.81 here, the penalized
 * force held to it (k is physical: mu G has no limit, the penetration scaling as mu^(-1/n)). */
static void hunt_crossley_sliding(void)
{
    pl_setting ball[] = {{"h0", 0.0}, {"c", 40.0}, {"k", 3.0}};
    pl_model model;
    pl_error err = {0};
    pl_solution sol;
    pl_analysis a;
    CHECK(pl_model_init_law(&model, &pl_case_bouncing_ball, &pl_law_hunt_crossley, ball, 3, &err) == PL_OK, "%s",
          err.message);
    CHECK(solve_penalty(&model, 1e6, 1e-10, 2.0, 0, &sol, &err) == PL_OK, "resting ball: %s", err.message);
    CHECK(pl_analyze(&model, &sol, &a, &err) == PL_OK, "its analysis: %s", err.message);
    NEAR(a.sliding_force_scale, 9.81, 1e-9, "hunt_crossley at rest: the limit's contact force m g");
    CHECK(a.sliding_force_error < 1e-3 * 9.81, "the penalized force held to it: %g", a.sliding_force_error);
    pl_analysis_free(&a);
    pl_solution_free(&sol);
    pl_model_free(&model);
}

/* The largest |lambda - lambda^sm| of the sliding table's rows of episode k in [t0, t1]. */
static double sliding_sup(const pl_analysis *a, size_t k, double t0, double t1)
{
    double sup = 0.0;
    for (size_t r = 0; r < a->sliding.nrows; r++) {
        const double *row = pl_table_row(&a->sliding, r);
        if (row[4] == (double)(k + 1) && row[0] >= t0 && row[0] <= t1)
            sup = fmax(sup, fabs(row[2] - row[3]));
    }
    return sup;
}

/* A resting contact's oscillation under Hunt-Crossley decays at (3/4) c A whatever mu: linearized about
 * the resting penetration delta0 = (m A/(mu k))^(1/n), x'' + (3/2) c A x' + (n A/delta0) x = 0.  The ball
 * started on the floor (A = g = 9.81, unit mass, n = 3/2, k = 1, c = 1 s/m, mu = 1e6: delta0 = 4.6e-4,
 * frequency 179 rad/s, underdamped) settles at 7.36/s, and its entry transient, of force up to omega V
 * against m A (omega = kappa^(2/5) V^(1/5) the impact frequency at the model's speed V), is below e^-20 A
 * after (20 + ln(omega V/A))/((3/4) c A) = 3.3 s: a third of the 10 s contact, where the 10% of the
 * contact would start the window at 1 s (as Kelvin-Voigt's xi omega, with the xi of Hunt-Crossley's
 * restitution at V, did: 0.2 s).  The decay is measured on the sliding table, independently of the
 * window: the sup of |lambda - m g| over [1, 1.5] against [2, 2.5] falls by exp(-(3/4) c A). */
static void hunt_crossley_settling(void)
{
    double c = 1.0, g = 9.81, n = 1.5, mu = 1e6, t_end = 10.0;
    pl_setting ball[] = {{"h0", 0.0}, {"c", c}};
    pl_model model;
    pl_error err = {0};
    pl_solution sol;
    pl_analysis a;
    CHECK(pl_model_init_law(&model, &pl_case_bouncing_ball, &pl_law_hunt_crossley, ball, 2, &err) == PL_OK, "%s",
          err.message);
    CHECK(solve_penalty(&model, mu, 1e-10, t_end, 0, &sol, &err) == PL_OK, "resting ball: %s", err.message);
    CHECK(pl_analyze(&model, &sol, &a, &err) == PL_OK, "its analysis: %s", err.message);
    CHECK(sol.nepisodes == 1 && a.info[0].kind == PL_SUSTAINED && isnan(sol.episodes[0].t_out),
          "one sustained contact to the end (%zu episodes)", sol.nepisodes);
    double V = model.v_scale, rate = 0.75 * c * g;
    double omega = pow(mu, 1.0 / (n + 1.0)) * pow(V, (n - 1.0) / (n + 1.0));
    double transient = (20.0 + log(omega * V / g)) / rate, t_in = sol.episodes[0].t_in;
    CHECK(transient > 0.1 * (t_end - t_in), "the transient (%g s) outlasts 10%% of the contact", transient);
    NEAR(a.info[0].window_start, t_in + transient, 1e-12, "the window starts after the transient");
    NEAR(a.info[0].window_end, t_end - 0.1 * (t_end - t_in), 1e-12, "and ends at 90%% of the contact");
    double early = sliding_sup(&a, 0, 1.0, 1.5), late = sliding_sup(&a, 0, 2.0, 2.5);
    /* to 10%: from about 0.5 s on the contact is settled and integrated by BDF at an order whose stability
     * holds its mode (bdf_max_order), where the oscillation's rate is not controlled (pen_error_weights)
     * and low orders damp it a little more (7.86/s) */
    NEAR(log(early / late), rate, 0.1 * rate, "the oscillation decays at (3/4) c A (%.4g, %.4g)", early, late);
    NEAR(a.sliding_force_scale, g, 1e-9, "the limit's contact force m g");
    CHECK(a.sliding_force_error < 1e-6 * g, "held to it after the transient: %g", a.sliding_force_error);
    CHECK(!a.sliding_load_varies && !a.info[0].load_varies, "under a constant load");
    pl_analysis_free(&a);
    pl_solution_free(&sol);
    pl_model_free(&model);
}

/* Hertz is elastic: a resting contact's oscillation never decays, so no window is compared and no sliding
 * force error reported (the ball started on the floor: its energy m g delta0-scale oscillation stays). */
static void hertz_resting(void)
{
    pl_setting ball[] = {{"h0", 0.0}};
    pl_model model;
    pl_error err = {0};
    pl_solution sol;
    pl_analysis a;
    CHECK(pl_model_init_law(&model, &pl_case_bouncing_ball, &pl_law_hertz, ball, 1, &err) == PL_OK, "%s",
          err.message);
    CHECK(pl_law_settling_rate(&model.law[0], 1e6, model.a_scale) == 0.0, "Hertz never settles");
    CHECK(solve_penalty(&model, 1e6, 1e-10, 2.0, 0, &sol, &err) == PL_OK, "resting ball: %s", err.message);
    CHECK(pl_analyze(&model, &sol, &a, &err) == PL_OK, "its analysis: %s", err.message);
    CHECK(sol.nepisodes >= 1 && a.info[sol.nepisodes - 1].kind == PL_SUSTAINED, "a sustained contact");
    CHECK(isnan(a.sliding_force_error) && isnan(a.info[sol.nepisodes - 1].force_error) &&
              isnan(a.info[sol.nepisodes - 1].window_start),
          "no window, no sliding force error (%g)", a.sliding_force_error);
    pl_analysis_free(&a);
    pl_solution_free(&sol);
    pl_model_free(&model);
}

/* The limit solution of Hunt-Crossley's ball: impact speeds v_(k+1) = e(c v_k) v_k with e from the
 * independent integration of an isolated impact (run_impact), and no accumulation point: 1 - e ~ c V as V ->
 * 0, the flights 2 v_k/g shrink like 1/k and their sum diverges.  Hertz's limit: every impact elastic. */
static void limits(void)
{
    double g = 9.81, c = 0.1;
    pl_setting set[] = {{"g", g}, {"c", c}};
    pl_model model;
    pl_error err = {0};
    pl_solution sol;
    CHECK(pl_model_init_law(&model, &pl_case_bouncing_ball, &pl_law_hunt_crossley, set, 2, &err) == PL_OK, "%s",
          err.message);
    CHECK(solve_limit(&model, 1e-10, 10.0, 0, &sol, &err) == PL_OK, "hunt_crossley's limit: %s", err.message);
    size_t impacts = 0;
    impact im = {.t = &pl_law_hunt_crossley, .m = 1.0, .mu = 1e6};
    memcpy(im.p, model.law[0].p, sizeof im.p);
    for (size_t k = 0; k < sol.nevents; k++) {
        const pl_event *ev = &sol.events[k];
        if (ev->kind != PL_EVENT_IMPACT)
            continue;
        if (impacts++ < 12) {
            double V = -ev->gdot_before, e, dmax, dur, T = im.t->contact_time(im.p, im.mu, 1.0, V);
            run_impact(&im, V, T, &e, &dmax, &dur);
            NEAR(ev->gdot_after, e * V, 1e-8 * V, "hunt_crossley's limit: impact %zu at speed %g", impacts, V);
        }
    }
    /* sum of flights to 10 s: about exp(g c t/2) impacts, 135 here */
    CHECK(impacts > 100 && impacts < 1000 && sol.nevents == impacts && !sol.zeno.found,
          "hunt_crossley's limit: %zu impacts and no accumulation point (zeno at %g)", impacts, sol.zeno.t_accumulation);
    pl_solution_free(&sol);
    pl_model_free(&model);

    CHECK(pl_model_init_law(&model, &pl_case_bouncing_ball, &pl_law_hertz, NULL, 0, &err) == PL_OK, "%s", err.message);
    CHECK(solve_limit(&model, 1e-10, 10.0, 0, &sol, &err) == PL_OK, "hertz's limit: %s", err.message);
    for (size_t k = 0; k < sol.nevents; k++)
        NEAR(sol.events[k].gdot_after, -sol.events[k].gdot_before, 1e-9, "hertz's limit: impact %zu elastic", k + 1);
    CHECK(sol.nevents == 11, "hertz's limit: 11 impacts in 10 s (flights of 2 sqrt(2 h0/g))");
    pl_solution_free(&sol);
    pl_model_free(&model);
}

/* A law that varies with the motion (law_at, paper 004's form (4) with coefficients of (x, t)): the ball's
 * floor stiffens to k = 4 and its damping to xi = 0.3 from t = 0.3 on; the impact at t = h0/V = 0.5 takes
 * them: penalized duration pi/(sqrt(4 mu) sqrt(1 - xi^2)) and restitution exp(-pi xi/sqrt(1 - xi^2)), the
 * limit's restitution the same (the law frozen at the impact). */
static void ball_law_at(const double *p, size_t i, double t, const double *q, pl_law *out, void *user)
{
    (void)p, (void)i, (void)q, (void)user;
    if (t >= 0.3) {
        pl_law_set(out, "k", 4.0);
        pl_law_set(out, "xi", 0.3);
    }
}

static void varying_law(void)
{
    pl_case c = pl_case_bouncing_ball;
    c.law_at = ball_law_at;
    double V = 0.2, xi = 0.3, e = exp(-M_PI * xi / sqrt(1.0 - xi * xi));
    pl_setting set[] = {{"g", 0.0}, {"h0", 0.1}, {"v0", -V}, {"e", 1.0}};
    for (double mu = 1e4; mu <= 1e8; mu *= 1e4) {
        pl_episode ep = {0};
        if (!penalized_impact(&c, &pl_law_kelvin_voigt, set, 4, mu, 1.0, 0, &ep))
            continue;
        double T = M_PI / (sqrt(4.0 * mu) * sqrt(1.0 - xi * xi));
        NEAR(ep.t_out - ep.t_in, T, 1e-7 * T, "law_at: contact duration at mu %g", mu);
        NEAR(-ep.gdot_out / ep.gdot_in, e, 1e-8, "law_at: penalized restitution at mu %g", mu);
    }
    pl_model model;
    pl_error err = {0};
    pl_solution sol;
    CHECK(pl_model_init(&model, &c, set, 4, &err) == PL_OK, "%s", err.message);
    CHECK(model.law[0].k == 1.0 && model.law[0].xi == 0.0, "law_at: the law at t = 0");
    CHECK(solve_limit(&model, 1e-10, 1.0, 0, &sol, &err) == PL_OK && sol.nevents == 1, "law_at: limit, %s",
          err.message);
    if (sol.nevents == 1)
        NEAR(sol.events[0].gdot_after, e * V, 1e-9, "law_at: the limit's restitution");
    pl_solution_free(&sol);
    pl_model_free(&model);
}

/* The clamped law without gravity: restitution exp(-2 xi arccos(xi)/sqrt(1 - xi^2)) (continued past 1). */
static void clamped_penalized(void)
{
    double V = 1.3, xis[] = {0.1, 0.7, 1.8};
    for (int j = 0; j < 3; j++) {
        double xi = xis[j], e = xi < 1.0 ? exp(-2.0 * xi * acos(xi) / sqrt(1.0 - xi * xi))
                                         : exp(-2.0 * xi * acosh(xi) / sqrt(xi * xi - 1.0));
        for (double mu = 1e4; mu <= 1e10; mu *= 1e6) {
            pl_setting ball[] = {{"g", 0.0}, {"h0", 0.1}, {"v0", -V}, {"xi", xi}};
            pl_episode ep = {0};
            if (penalized_impact(&pl_case_bouncing_ball, &pl_law_kelvin_voigt_clamped, ball, 4, mu, 1.0, 0, &ep))
                NEAR(-ep.gdot_out / ep.gdot_in, e, 1e-8, "clamped xi = %g mu %g: restitution", xi, mu);
        }
    }
}

int main(void)
{
    check_init();
    registry();
    parameters();
    impacts();
    closed_forms();
    hertz_penalized();
    hunt_crossley_penalized();
    clamped_penalized();
    hunt_crossley_rate();
    hunt_crossley_sliding();
    hunt_crossley_settling();
    hertz_resting();
    limits();
    varying_law();
    return check_finish("test_laws");
}
