/* The gap model that aims the penalized engine's steps (src/solvers/penalty/gap_model.h), against
 * a direct numerical integration of G'' + 2 xi w G' + w^2 G = D (GSL's rk8pd driver, relative 1e-13):
 * in flight (w = 0), underdamped, critically damped and overdamped. */
#include <gsl/gsl_odeiv2.h>

#include "check.h"
#include "solvers/penalty/gap_model.h"

typedef struct {
    double w, xi, D;
} oscillator;

static int oscillator_rhs(double t, const double y[], double dy[], void *p)
{
    (void)t;
    const oscillator *o = p;
    dy[0] = y[1];
    dy[1] = o->D - 2.0 * o->xi * o->w * y[1] - o->w * o->w * y[0];
    return GSL_SUCCESS;
}

/* G and G' after s from (g, gdot). */
static void integrate(oscillator *o, double g, double gdot, double s, double *gs, double *gds)
{
    double y[2] = {g, gdot}, t = 0.0;
    if (s > 0.0) {
        gsl_odeiv2_system sys = {oscillator_rhs, NULL, 2, o};
        gsl_odeiv2_driver *d = gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, 1e-3 * s, 0.0, 1e-13);
        if (gsl_odeiv2_driver_apply(d, &t, s, y) != GSL_SUCCESS)
            CHECK(0, "reference integration over %g", s);
        gsl_odeiv2_driver_free(d);
    }
    *gs = y[0];
    *gds = y[1];
}

/* a G + b G' - target after s. */
static double combination(oscillator *o, double g, double gdot, double a, double b, double target, double s)
{
    double gs, gds;
    integrate(o, g, gdot, s, &gs, &gds);
    return a * gs + b * gds - target;
}

/* The first sign change of a G + b G' - target in (0, h], by a scan and bisection on the reference;
 * NAN if none. */
static double reference_root(oscillator *o, double g, double gdot, double a, double b, double target, double h)
{
    double f0 = combination(o, g, gdot, a, b, target, 0.0), lo = 0.0;
    const int n = 200;
    for (int k = 1; k <= n; k++) {
        double hi = h * k / n;
        if (combination(o, g, gdot, a, b, target, hi) * f0 > 0.0) {
            lo = hi;
            continue;
        }
        for (int it = 0; it < 60; it++) {
            double mid = 0.5 * (lo + hi);
            if (combination(o, g, gdot, a, b, target, mid) * f0 > 0.0)
                lo = mid;
            else
                hi = mid;
        }
        return hi;
    }
    return NAN;
}

int main(void)
{
    check_init();
    /* (w, xi): flight, undamped, lightly damped (e = 0.9), critically damped, overdamped */
    const double cases[][2] = {{0.0, 0.0}, {1.0, 0.0}, {1.0, 0.0335}, {1.0, 1.0}, {1.0, 2.5}, {1e4, 0.3}};
    /* The model's times are absolute: t0 + h loses eps t0 of h, which the fit over a short step
     * (D from the G's change D h^2/2) amplifies (t0 = 3, h = 0.05/w at w = 1e4: D to 2e-9).  The
     * fits start at 0, the roots at t0. */
    const double t0 = 3.0;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        double w = cases[c][0], xi = cases[c][1], T = w > 0.0 ? 1.0 / w : 1.0;
        oscillator o = {w, xi, w > 0.0 ? -9.81 + 0.3 * w * w * T : -9.81};
        /* a gap and rate of the contact's scale: G ~ T^2 D, G' ~ T D */
        double g0 = 0.2 * T * T * fabs(o.D), gd0 = -1.5 * T * fabs(o.D), scale = fabs(o.D) * T * T;
        for (double hf = 0.05; hf < 2.0; hf *= 3.0) {
            double h = hf * T, g1, gd1;
            integrate(&o, g0, gd0, h, &g1, &gd1);
            pl_gap_model m;
            CHECK(pl_gap_model_fit(&m, w, xi, 0.0, g0, gd0, h, g1, gd1), "fit w=%g xi=%g h=%g", w, xi, h);
            NEAR(m.D, o.D, 1e-9 * fabs(o.D), "fitted D, w=%g xi=%g h=%g", w, xi, h);
            CHECK(m.error < 1e-10, "the model holds on G' at the end (error %g), w=%g xi=%g h=%g", m.error, w, xi, h);
            /* propagated beyond the step */
            double s = 0.8 * T, gm, gdm, gr, gdr;
            pl_gap_model_at(&m, h + s, &gm, &gdm);
            integrate(&o, g1, gd1, s, &gr, &gdr);
            NEAR(gm, gr, 1e-10 * scale, "G after the step, w=%g xi=%g h=%g", w, xi, h);
            NEAR(gdm, gdr, 1e-10 * scale / T, "G' after the step, w=%g xi=%g h=%g", w, xi, h);
        }
        /* A model with its wrong D (off by 1e-3) is told by the rate at the end. */
        double h = 0.5 * T, g1, gd1;
        oscillator off = o;
        off.D = o.D * (1.0 + 1e-3);
        integrate(&off, g0, gd0, 0.5 * h, &g1, &gd1);
        integrate(&o, g1, gd1, 0.5 * h, &g1, &gd1);
        pl_gap_model m;
        CHECK(pl_gap_model_fit(&m, w, xi, 0.0, g0, gd0, h, g1, gd1) && m.error > 1e-6,
              "a changing D fails the model (error %g), w=%g xi=%g", m.error, w, xi);

        /* Roots of G - target (entry, exit) and of mu G + d G' (a force's sign change). */
        const double targets[][3] = {{1.0, 0.0, 0.0}, {1.0, 0.0, -0.1}, {1.0, 0.0, 0.05}, {1e4, 20.0, 0.0}};
        for (size_t k = 0; k < sizeof targets / sizeof *targets; k++)
            for (double gdf = -3.0; gdf <= 3.0; gdf += 1.5) {
                double a = targets[k][0], b = targets[k][1] * T, target = targets[k][2] * scale * a;
                pl_gap_model mk = {.w = w, .xi = xi, .D = o.D, .t = t0, .g = g0, .gdot = gdf * T * fabs(o.D)};
                double hr = 1.5 * T, ge, gde;
                pl_gap_model_at(&mk, t0 + hr, &ge, &gde);
                double r = pl_gap_model_root(&mk, a, b, target, t0 + hr, ge, gde);
                double ref = reference_root(&o, mk.g, mk.gdot, a, b, target, hr);
                double f0 = a * mk.g + b * mk.gdot - target, f1 = a * ge + b * gde - target;
                if (f0 * f1 > 0.0)
                    CHECK(isnan(r), "no sign change at the end: no root (w=%g xi=%g k=%zu)", w, xi, k);
                else
                    NEAR(r - t0, ref, 1e-9 * T, "root of %g G + %g G' - %g, w=%g xi=%g G'0=%g", a, b, target, w, xi,
                         mk.gdot);
            }

        /* An underdamped contact's envelope bounds G from above. */
        if (w > 0.0 && xi < 1.0) {
            pl_gap_model mk = {.w = w, .xi = xi, .D = o.D, .t = t0, .g = g0, .gdot = gd0};
            double top = -INFINITY, bottom = INFINITY;
            for (int k = 0; k <= 2000; k++) {
                double gk, gdk;
                pl_gap_model_at(&mk, t0 + 20.0 * T * k / 2000, &gk, &gdk);
                top = fmax(top, gk);
                bottom = fmin(bottom, gk);
            }
            CHECK(pl_gap_model_may_rise_to(&mk, top), "envelope: G may rise to its maximum %g (w=%g xi=%g)", top, w, xi);
            if (xi == 0.0) /* undamped, the envelope is the maximum */
                CHECK(!pl_gap_model_may_rise_to(&mk, top + 1e-3 * (top - bottom)),
                      "envelope: not above the maximum %g (w=%g; sampled to 1e-5 of the swing)", top, w);
        }
    }
    return check_finish("test_gap_model");
}
