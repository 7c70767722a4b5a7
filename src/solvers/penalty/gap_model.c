#include "solvers/penalty/gap_model.h"

#include <float.h>
#include <gsl/gsl_poly.h>
#include <math.h>

/* The model's flow over s: G(s) = rest + e (C x + S (a x + G')), G'(s) = e (C G' - S (w^2 x + a G'))
 * with x = G - rest, rest = D/w^2 the resting gap.  With a = xi w and b^2 = w^2 - a^2 the matrix
 * A = [[0, 1], [-w^2, -2a]] has (A + aI)^2 = -b^2 I, so exp(A s) = exp(-a s) (C I + S (A + aI)) with
 * C = cos(b s), S = sin(b s)/b (cosh and sinh overdamped, C = 1 and S = s critically damped). */
typedef struct {
    double s, w, a, e, C, S;
} flow;

static flow flow_over(double w, double xi, double s)
{
    flow f = {.s = s, .w = w, .a = xi * w, .e = 1.0, .C = 1.0, .S = s};
    if (w == 0.0 || s == 0.0)
        return f;
    double b2 = w * w - f.a * f.a;
    if (b2 > 0.0) {
        double b = sqrt(b2);
        f.C = cos(b * s), f.S = sin(b * s) / b;
    } else if (b2 < 0.0) {
        double b = sqrt(-b2);
        f.C = cosh(b * s), f.S = sinh(b * s) / b;
    }
    f.e = exp(-f.a * s);
    return f;
}

/* The solution after the flow's s from (g, gdot) under D. */
static void propagate(const flow *f, double D, double g, double gdot, double *gs, double *gds)
{
    if (f->w == 0.0) {
        *gs = g + f->s * (gdot + 0.5 * D * f->s);
        *gds = gdot + D * f->s;
        return;
    }
    double w2 = f->w * f->w, rest = D / w2, x = g - rest;
    *gs = rest + f->e * (f->C * x + f->S * (f->a * x + gdot));
    *gds = f->e * (f->C * gdot - f->S * (w2 * x + f->a * gdot));
}

int pl_gap_model_fit(pl_gap_model *model, double w, double xi, double t0, double g0, double gd0, double t1, double g1,
                     double gd1)
{
    double h = t1 - t0, g_free, gd_free, g_unit, gd_unit;
    if (!(h > 0.0))
        return 0;
    flow f = flow_over(w, xi, h);
    propagate(&f, 0.0, g0, gd0, &g_free, &gd_free);
    propagate(&f, 1.0, 0.0, 0.0, &g_unit, &gd_unit);
    if (!(g_unit > 0.0)) /* D does not show in G (an undamped contact after whole periods) */
        return 0;
    double D = (g1 - g_free) / g_unit, scale = fabs(gd1) + w * fabs(g1) + fabs(D) * h;
    *model = (pl_gap_model){.w = w, .xi = xi, .D = D, .t = t1, .g = g1, .gdot = gd1,
                            .error = fabs(gd_free + D * gd_unit - gd1) / scale};
    return isfinite(model->error);
}

void pl_gap_model_at(const pl_gap_model *model, double t, double *g, double *gdot)
{
    flow f = flow_over(model->w, model->xi, t - model->t);
    propagate(&f, model->D, model->g, model->gdot, g, gdot);
}

double pl_gap_model_root(const pl_gap_model *model, double a, double b, double target, double t_end, double g_end,
                         double gdot_end)
{
    double t = model->t, f0 = a * model->g + b * model->gdot - target, f1 = a * g_end + b * gdot_end - target;
    if (!(f0 * f1 <= 0.0) || f0 == 0.0)
        return NAN;
    double D = model->D, w2 = model->w * model->w, c = 2.0 * model->xi * model->w;
    if (model->w == 0.0) { /* a quadratic in s = t' - t: its first root in the step */
        double s[2];
        int n = gsl_poly_solve_quadratic(0.5 * a * D, a * model->gdot + b * D, f0, &s[0], &s[1]);
        for (int k = 0; k < n; k++)
            if (s[k] > 0.0 && t + s[k] <= t_end)
                return t + s[k];
    }
    /* Newton's method on the bracket [lo, hi] (f(lo) has f0's sign), bisecting where a step leaves
     * it; G'' = D - 2 xi w G' - w^2 G. */
    double lo = t, hi = t_end, x = t + (t_end - t) * f0 / (f0 - f1);
    for (int it = 0; it < 50; it++) {
        double g, gdot;
        pl_gap_model_at(model, x, &g, &gdot);
        double fx = a * g + b * gdot - target, dfx = a * gdot + b * (D - c * gdot - w2 * g);
        if (fx == 0.0)
            return x;
        if ((fx > 0.0) == (f0 > 0.0))
            lo = x;
        else
            hi = x;
        double dx = fx / dfx, next = x - dx;
        if (fabs(dx) <= 2.0 * DBL_EPSILON * fabs(x)) /* converged (the last step is below round-off) */
            return next;
        if (!(next > lo && next < hi))
            next = 0.5 * (lo + hi);
        if (hi - lo <= 2.0 * DBL_EPSILON * fabs(hi))
            return hi;
        x = next;
    }
    return hi;
}

int pl_gap_model_may_rise_to(const pl_gap_model *model, double level)
{
    double w = model->w, a = model->xi * w, b2 = w * w - a * a;
    if (w == 0.0 || !(b2 > 0.0))
        return 1;
    /* G - rest = A exp(-a s) cos(b s - phase), A = hypot(x, (G' + a x)/b): below rest + A */
    double rest = model->D / (w * w), x = model->g - rest, v = (model->gdot + a * x) / sqrt(b2);
    return rest + sqrt(x * x + v * v) >= level;
}
