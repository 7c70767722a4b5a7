/* The contact laws against closed forms and an independent integration of an isolated impact:
 * delta'' = lambda(-delta, -deltadot)/m, from delta = 0 at speed V (GSL's rk8pd, tight tolerances). */
#include "check.h"
#include "laws/law.h"
#include "model/contact_law.h"

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
    fails(&pl_law_kelvin_voigt, NULL, 0, &c, 1, "has no parameter 'c'");
    fails(&pl_law_hertz, NULL, 0, &xi, 1, "has no parameter 'xi'");
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

int main(void)
{
    check_init();
    registry();
    parameters();
    impacts();
    closed_forms();
    return check_finish("test_laws");
}
