/* A unit point mass sliding off the top of the disk |q| >= R under gravity g along -y (Paoli, ARMA
 * 2010), G = |q| - R, started at (0, R) with velocity (v0, 0).
 *
 * Closed forms, derived here.  At the angle phi from the top (x = R sin phi, y = R cos phi), energy
 * gives v^2 = v0^2 + 2 g R (1 - cos phi); the normal balance m v^2/R = m g cos phi - N gives the normal
 * force N = g cos phi - v^2/R = g (3 cos phi - 2) - v0^2/R (unit mass), which vanishes at
 * cos phi_off = (2 + v0^2/(g R))/3: the mass leaves the disk there, then flies on a parabola.  The
 * sliding-mode force is F^sm = -N/k (the limit of mu G for the unit normal, effective mass 1).  The time
 * of lift-off, integral of R dphi/v, is computed here by quadrature (GSL qags), independently of the
 * case's elliptic-integral closed form.
 *
 * The penalty (xi = 1 for e = 0, omega = sqrt(k mu)): the penetration p = -G obeys
 * p'' + 2 xi omega p' + omega^2 p = N(t) while in contact, whose slow solution is
 * p = N/omega^2 - 2 xi N'/omega^3 + (4 xi^2 - 1) N''/omega^4 + ..., so
 * mu G = -(N - 2 xi N'/omega + (4 xi^2 - 1) N''/omega^2 + ...)/k, and p reaches 0 (the contact ends)
 * 2 xi/omega + O(1/omega^2) after N does: the lift-off converges like mu^-1/2.  Along the slide
 * N' = -3 g v sin(phi)/R and N'' = -(3 g/R) (v^2 cos(phi)/R + g sin^2 phi). */
#include <float.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_odeiv2.h>
#include <string.h>

#include "cases/cases.h"
#include "check.h"
#include "model/sliding.h"
#include "solve.h"
#include "study/analysis.h"
#include "study/sweep.h"

typedef struct {
    double R, g, v0, k;
} params;

static const params DEFAULTS = {1.0, 9.81, 1.0, 1.0}, OTHER = {2.0, 1.0, -0.5, 3.0};

static int init(pl_model *m, const params *p)
{
    pl_model_free(m); /* the model this variable held before */
    pl_error err;
    pl_setting s[] = {{"R", p->R}, {"g", p->g}, {"v0", p->v0}, {"k", p->k}};
    int ok = pl_model_init(m, &pl_case_disk, s, 4, &err) == PL_OK;
    CHECK(ok, "disk model: %s", err.message);
    return ok;
}

static double cos_off(const params *p)
{
    return (2.0 + p->v0 * p->v0 / (p->g * p->R)) / 3.0;
}

/* v^2 = v0^2 + 2 g R (1 - cos phi), with 1 - cos phi = 2 sin^2(phi/2) (no cancellation near the top). */
static double speed2(const params *p, double phi)
{
    double h = sin(0.5 * phi);
    return p->v0 * p->v0 + 4.0 * p->g * p->R * h * h;
}

static double normal_force(const params *p, double phi)
{
    return p->g * cos(phi) - speed2(p, phi) / p->R;
}

static double dphi_dt_inverse(double phi, void *user)
{
    const params *p = user;
    return p->R / sqrt(speed2(p, phi));
}

/* t_off = integral over [0, phi_off] of R/v dphi, by adaptive Gauss-Kronrod, with break points where
 * the speed's start v ~ sqrt(v0^2 + g R phi^2) turns (phi ~ v0/sqrt(g R): a sharp peak for a small v0). */
static double t_off_quadrature(const params *p)
{
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(200);
    gsl_function f = {dphi_dt_inverse, (void *)p};
    double result = NAN, abserr, end = acos(cos_off(p)), turn = fabs(p->v0) / sqrt(p->g * p->R);
    double pts[5] = {0.0, fmin(turn, end / 4), fmin(10 * turn, end / 3), fmin(100 * turn, end / 2), end};
    int st = gsl_integration_qagp(&f, pts, 5, 0.0, 1e-13, 200, w, &result, &abserr);
    CHECK(st == GSL_SUCCESS, "quadrature (%d, error %g)", st, abserr);
    gsl_integration_workspace_free(w);
    return result;
}

/* The angle from the top of a position, signed like x. */
static double angle(const double *q)
{
    return atan2(q[0], q[1]);
}

static void test_geometry(void)
{
    pl_model m = {0};
    if (!init(&m, &OTHER))
        return;
    const double q[2] = {0.9, 1.7}, v[2] = {0.4, -1.3};
    double r = hypot(q[0], q[1]), n[2] = {q[0] / r, q[1] / r};
    pl_gap *gap = pl_gap_new(1, m.n, 1);
    pl_model_gap(&m, 0, 0.0, q, gap);
    CHECK_NEAR(gap->g, r - 2.0, 1e-15, "G = |q| - R");
    for (int a = 0; a < 2; a++) {
        NEAR(gap->grad[a], n[a], 1e-15, "grad G = q/|q|, [%d]", a);
        for (int b = 0; b < 2; b++)
            NEAR(gap->hess[a * 2 + b], ((a == b) - n[a] * n[b]) / r, 1e-15, "Hessian [%d][%d]", a, b);
    }
    free(gap);
    /* D = a.n + (|v|^2 - (v.n)^2)/|q|: gravity along the normal and the centripetal term */
    double vn = v[0] * n[0] + v[1] * n[1];
    CHECK_NEAR(free_gap_accel_once(&m, 0, 0.0, q, v), -1.0 * n[1] + (v[0] * v[0] + v[1] * v[1] - vn * vn) / r,
               1e-14, "D");
    /* On the circle, tangential speed u at the angle phi: F^sm = -(g cos phi - u^2/R)/k, or 0 once the
     * centripetal demand exceeds gravity's normal part. */
    const double phis[] = {0.3, -0.7}, us[] = {0.8, 1.3};
    for (int c = 0; c < 2; c++) {
        double phi = phis[c], u = us[c], qc[2] = {2.0 * sin(phi), 2.0 * cos(phi)};
        double vc[2] = {u * cos(phi), -u * sin(phi)}, lambda[1], fsm[1], N = cos(phi) - u * u / 2.0;
        int set[1] = {1};
        pl_error err;
        CHECK(sliding_force_once(&m, 0.0, qc, vc, set, lambda, fsm, &err) == PL_OK, "F^sm: %s", err.message);
        NEAR(lambda[0], fmax(N, 0.0), 1e-14, "phi = %g, u = %g: lambda = max(g cos phi - u^2/R, 0)", phi, u);
        NEAR(fsm[0], -fmax(N, 0.0) / 3.0, 1e-14, "phi = %g, u = %g: F^sm = -lambda/k", phi, u);
    }
    pl_model_free(&m);
}

/* The case's elliptic-integral closed form against the quadrature; NAN where there is no slide. */
static void test_lift_off_time(void)
{
    const params ps[] = {DEFAULTS, OTHER, {0.5, 2.0, 0.01, 1.0}, {3.0, 9.81, 5.0, 1.0}};
    for (size_t c = 0; c < sizeof ps / sizeof ps[0]; c++) {
        pl_model m = {0};
        if (!init(&m, &ps[c]))
            continue;
        double t = t_off_quadrature(&ps[c]);
        NEAR(pl_model_limit_value(&m, PL_LIMIT_LIFT_OFF_FIRST), t, 1e-13 * t, "t_off, R = %g, g = %g, v0 = %g", ps[c].R,
             ps[c].g, ps[c].v0);
        CHECK(isnan(pl_model_limit_value(&m, PL_LIMIT_FIRST_IMPACT_TIME)), "no impact");
        pl_model_free(&m);
    }
    /* From very near the top: the slide's start is logarithmic, v ~ sqrt(v0^2 + g R phi^2), so that
     * t_off = C - sqrt(R/g) ln(v0) + O(v0^2 ln v0).  The closed form was NAN for v0 <= 1e-154 (1/v0^2
     * overflowed); it holds down to v0 = 1e-300, across its switch to the logarithmic expansion. */
    const double tiny[] = {1e-6, 1e-100, 1e-170, 1e-300};
    double t_tiny[4];
    for (size_t c = 0; c < 4; c++) {
        params pt = {2.0, 1.5, tiny[c], 1.0};
        pl_model m = {0};
        t_tiny[c] = NAN;
        if (init(&m, &pt))
            t_tiny[c] = pl_model_limit_value(&m, PL_LIMIT_LIFT_OFF_FIRST);
        if (c == 0)
            NEAR(t_tiny[0], t_off_quadrature(&pt), 1e-12 * t_tiny[0], "t_off, v0 = 1e-6, against the quadrature");
        else
            NEAR(t_tiny[c] - t_tiny[1], sqrt(2.0 / 1.5) * log(tiny[1] / tiny[c]), 1e-12 * t_tiny[c],
                 "t_off(v0 = %g) - t_off(1e-100) = sqrt(R/g) ln(1e-100/v0)", tiny[c]);
        pl_model_free(&m);
    }
    const params none[] = {{1.0, 9.81, 0.0, 1.0}, {1.0, 1.0, 1.0, 1.0}, {1.0, 1.0, 1.5, 1.0}};
    for (size_t c = 0; c < 3; c++) {
        pl_model m = {0};
        if (init(&m, &none[c]))
            CHECK(isnan(pl_model_limit_value(&m, PL_LIMIT_LIFT_OFF_FIRST)), "v0 = %g, g R = %g: no lift-off time",
                  none[c].v0, none[c].g * none[c].R);
        pl_model_free(&m);
    }
}

/* A disk far below the scales (R = 1e-300, V = sqrt(v0^2 + g R) = 1 = v0): v0^2 > g R, so the mass flies off
 * the top at once, on the parabola (t, R - g t^2/2).  Its run once failed at t = 0, the first step's
 * estimate below the smallest step. */
static void test_tiny_disk(void)
{
    params p = {1e-300, 9.81, 1.0, 1.0};
    pl_model m = {0};
    pl_solution r;
    pl_error err;
    if (!init(&m, &p))
        return;
    pl_status st = solve_limit(&m, 1e-12, 1.0, 0, &r, &err);
    CHECK(st == PL_OK && r.nevents == 0, "R = 1e-300: no contact after the start (%s)", st == PL_OK ? "ok" : err.message);
    if (st == PL_OK) {
        NEAR(r.q_final[0], 1.0, 1e-12, "x = t");
        NEAR(r.q_final[1], -0.5 * 9.81, 1e-12, "y = R - g t^2/2");
    }
    pl_solution_free(&r);
    pl_model_free(&m);
}

/* The limit solution: sliding on the circle with the energy's speed and F^sm = -N/k, lift-off at
 * phi_off and t_off, then the parabola. */
static void test_limit(void)
{
    const params *ps[] = {&DEFAULTS, &OTHER};
    for (int c = 0; c < 2; c++) {
        const params *p = ps[c];
        pl_model m = {0};
        pl_solution r;
        pl_error err;
        if (!init(&m, p))
            continue;
        double t_end = 1.5 * t_off_quadrature(p), t_off = t_off_quadrature(p);
        CHECK(solve_limit(&m, 1e-12, t_end, 400, &r, &err) == PL_OK, "limit %d: %s", c, err.message);
        const pl_event *off = NULL;
        for (size_t k = 0; k < r.nevents; k++)
            if (r.events[k].kind == PL_EVENT_LIFT_OFF && !off)
                off = &r.events[k];
        CHECK(r.nevents == 2 && r.events[0].kind == PL_EVENT_SLIDE_START && r.events[0].t == 0.0 && off,
              "case %d: slides from t = 0, then one lift-off (%zu events)", c, r.nevents);
        if (!off) {
            pl_solution_free(&r);
            pl_model_free(&m);
            continue;
        }
        double phi_off = acos(cos_off(p)) * (p->v0 > 0 ? 1.0 : -1.0);
        NEAR(angle(off->q), phi_off, 1e-9, "case %d: lift-off angle, cos phi = (2 + v0^2/(g R))/3", c);
        NEAR(off->t, t_off, 1e-9 * t_off, "case %d: lift-off time", c);
        NEAR(off->v_after[0] * off->v_after[0] + off->v_after[1] * off->v_after[1], p->g * p->R * cos_off(p),
             1e-9 * p->g * p->R, "case %d: v^2 = g R cos phi at lift-off", c);
        double worst_r = 0.0, worst_v2 = 0.0, worst_f = 0.0, worst_lambda = 0.0, worst_fly = 0.0, gmin = INFINITY;
        for (size_t row = 0; row < r.traj.nrows; row++) {
            const double *y = pl_table_row(&r.traj, row), *q = y + 2, *v = y + 4;
            double t = y[0], phi = angle(q);
            if (t < off->t) {
                int set[1] = {1};
                double lambda[1], fsm[1];
                CHECK(sliding_force_once(&m, t, q, v, set, lambda, fsm, &err) == PL_OK, "F^sm: %s", err.message);
                worst_r = fmax(worst_r, fabs(hypot(q[0], q[1]) - p->R));
                worst_v2 = fmax(worst_v2, fabs(v[0] * v[0] + v[1] * v[1] - speed2(p, phi)));
                worst_f = fmax(worst_f, fabs(fsm[0] + normal_force(p, phi) / p->k));
                if (t > 0.0) /* the first row is the state before the slide starts */
                    worst_lambda = fmax(worst_lambda, fabs(y[7] - normal_force(p, phi)));
            } else if (t > off->t) {
                double s = t - off->t;
                for (int j = 0; j < 2; j++)
                    worst_fly = fmax(worst_fly, fabs(q[j] - (off->q[j] + off->v_after[j] * s - (j ? 0.5 * p->g * s * s : 0.0))));
                gmin = fmin(gmin, y[6]);
            }
        }
        CHECK(worst_r < 1e-9 * p->R, "case %d: on the circle while sliding (%.3g)", c, worst_r);
        CHECK(worst_v2 < 1e-9 * p->g * p->R, "case %d: v^2 = v0^2 + 2 g R (1 - cos phi) (%.3g)", c, worst_v2);
        CHECK(worst_f < 1e-9 * p->g / p->k, "case %d: F^sm = -(g cos phi - v^2/R)/k (%.3g)", c, worst_f);
        CHECK(worst_lambda < 1e-9 * p->g, "case %d: the limit's sliding force is N (%.3g)", c, worst_lambda);
        CHECK(worst_fly < 1e-9 * p->R, "case %d: the parabola after lift-off (%.3g)", c, worst_fly);
        CHECK(gmin > 0.0, "case %d: clear of the disk after lift-off (min G %g)", c, gmin);
        pl_solution_free(&r);
        pl_model_free(&m);
    }
}

/* Penalized runs: the lift-off 2 xi/omega late, mu G = -(N - 2 xi N'/omega + 3 N''/omega^2)/k along
 * the slide. */
static void test_penalty(void)
{
    const params *p = &DEFAULTS;
    const double mus[] = {1e6, 1e8};
    double t_off = t_off_quadrature(p), phi_off = acos(cos_off(p));
    for (int c = 0; c < 2; c++) {
        double mu = mus[c], omega = sqrt(mu);
        pl_model m = {0};
        pl_solution r;
        pl_error err;
        if (!init(&m, p))
            continue;
        CHECK(solve_penalty(&m, mu, 1e-10, 1.0, 0, &r, &err) == PL_OK, "penalty mu = %g: %s", mu, err.message);
        CHECK(r.nepisodes == 1 && !isnan(r.episodes[0].t_out), "mu = %g: one contact, which ends", mu);
        if (r.nepisodes >= 1) {
            /* the gap's resolution (1000 ulps of q) over its slope N'/omega^2 at lift-off */
            double n1 = 3.0 * p->g * sqrt(p->g * p->R * cos_off(p)) * sin(phi_off) / p->R;
            double floor_t = 2.0 * 1000.0 * DBL_EPSILON * p->R * omega * omega / n1;
            NEAR(r.episodes[0].t_out - t_off, 2.0 / omega, 20.0 / (omega * omega) + floor_t,
                 "mu = %g: the contact ends 2 xi/omega after t_off", mu);
        }
        double worst = 0.0, scale = 0.0;
        for (size_t row = 0; row < r.traj.nrows; row++) {
            const double *y = pl_table_row(&r.traj, row), *q = y + 2;
            double t = y[0], phi = angle(q);
            if (t < 40.0 / omega || t > t_off - 0.05) /* the entry transient (1 + omega t) exp(-omega t) */
                continue;
            double v2 = speed2(p, phi), s = sin(phi);
            double N = normal_force(p, phi), N1 = -3.0 * p->g * sqrt(v2) * s / p->R;
            double N2 = -3.0 * p->g / p->R * (v2 * cos(phi) / p->R + p->g * s * s);
            double predicted = -(N - 2.0 * N1 / omega + 3.0 * N2 / (omega * omega)) / p->k;
            worst = fmax(worst, fabs(mu * y[6] - predicted));
            scale = fmax(scale, 2.0 * fabs(N1) / omega);
        }
        double tol = 50.0 / (omega * omega) + 2.0 * 1000.0 * DBL_EPSILON * p->R * mu;
        CHECK(worst < tol && scale > 10.0 * tol,
              "mu = %g: mu G = -(N - 2 N'/omega + 3 N''/omega^2)/k to %.3g (tol %.3g; the lag term is %.3g)", mu,
              worst, tol, scale);
        pl_solution_free(&r);
        pl_model_free(&m);
    }
}

/* The penalized disk integrated independently of penlim, in polar coordinates (r, phi) with
 * P = k mu (r - R) as a state, so that G = r - R carries no cancellation (|q| - R loses all but a few
 * digits of a penetration of 1e-14 next to R = 1.6):
 *   r'' = r phi'^2 - g cos phi + F,  r phi'' + 2 r' phi' = g sin phi,
 *   F = -k mu (r - R) - 2 xi sqrt(k mu) r'  while r <= R (xi = 1),
 * by GSL's rk8pd at 1e-12 on (P, P', phi, phi'); the lift-off is where P rises through 0, by bisection
 * on single steps from the start of the step that crossed it. */
typedef struct {
    params p;
    double w2, w;
} polar_disk;

static int polar_rhs(double t, const double y[], double d[], void *user)
{
    (void)t;
    const polar_disk *pd = user;
    double r = pd->p.R + y[0] / pd->w2, phi = y[2], w = y[3];
    d[0] = y[1];
    d[1] = pd->w2 * (r * w * w - pd->p.g * cos(phi)) + (y[0] <= 0.0 ? -pd->w2 * y[0] - 2.0 * pd->w * y[1] : 0.0);
    d[2] = w;
    d[3] = (pd->p.g * sin(phi) - 2.0 * (y[1] / pd->w2) * w) / r;
    return GSL_SUCCESS;
}

static double polar_lift_off(const params *p, double mu)
{
    polar_disk pd = {*p, p->k * mu, sqrt(p->k * mu)};
    gsl_odeiv2_system sys = {polar_rhs, NULL, 4, &pd};
    gsl_odeiv2_step *step = gsl_odeiv2_step_alloc(gsl_odeiv2_step_rk8pd, 4);
    const double scale[4] = {1.0, pd.w, 1.0, 1.0};
    gsl_odeiv2_control *control = gsl_odeiv2_control_scaled_new(1e-12, 1e-12, 1.0, 0.0, scale, 4);
    gsl_odeiv2_evolve *evolve = gsl_odeiv2_evolve_alloc(4);
    double y[4] = {0.0, 0.0, 0.0, p->v0 / p->R}, t = 0.0, h = 1e-3 / pd.w, t_lift = NAN;
    int pressed = 0;
    while (t < 10.0 && isnan(t_lift)) {
        double t0 = t, y0[4] = {y[0], y[1], y[2], y[3]};
        if (gsl_odeiv2_evolve_apply(evolve, control, step, &sys, &t, 10.0, &h, y) != GSL_SUCCESS)
            break;
        pressed |= y[0] < 0.0;
        if (!pressed || y[0] <= 0.0)
            continue;
        double lo = t0, hi = t;
        for (int k = 0; k < 100 && hi - lo > 1e-15; k++) {
            double mid = 0.5 * (lo + hi), ym[4] = {y0[0], y0[1], y0[2], y0[3]}, e[4];
            gsl_odeiv2_step_reset(step);
            gsl_odeiv2_step_apply(step, t0, mid - t0, ym, e, NULL, NULL, &sys);
            *(ym[0] <= 0.0 ? &lo : &hi) = mid;
        }
        t_lift = hi;
    }
    gsl_odeiv2_evolve_free(evolve);
    gsl_odeiv2_control_free(control);
    gsl_odeiv2_step_free(step);
    return t_lift;
}

/* The penalty's lift-off at large mu, where it is timed by a penetration of a few ulps of R (4.5e-12
 * at 1e8, 5e-15 at 1e10 for these parameters): its delay behind t_off against the polar integration
 * (2 xi/omega up to 1.2e-3 of it), to 2e-3 of itself or within its resolution.  (BDF once timed it
 * 15% late at 1e8 and 264% at 1e10.)  The resolution is an ulp of the terms of G (R) over the slow
 * rate N'/omega^2 at which G leaves 0, plus the oscillation the integration left there over that rate
 * (src/solvers/penalty/lift_off.c, slow_exit_resolution): at least the first, at most twice it from 1e8 on, where the
 * oscillation has decayed, and below a fifth of the delay at every mu, which the run resolves (16
 * ulps over the rate at the crossing, as before, was 1.2 times the delay at 1e10, which the sweep
 * then left out as noise).  And it is what round-off does: perturbing R and v0 by up to 40 ulps
 * (which moves the exact lift-off by 1e-14 s) spreads the exit at 1e10 over 0.2 to 2 resolutions.
 * In the sweep every value is fitted, at the rate 1/2. */
static const params LARGE_MU = {1.6, 3.9, 1.15, 2.7};

static void test_lift_off_large_mu(void)
{
    const params *p = &LARGE_MU;
    pl_model m = {0};
    pl_error err;
    if (!init(&m, p))
        return;
    double t_off = t_off_quadrature(p), mu[5] = {1e6, 1e7, 1e8, 1e9, 1e10}, resolution[5], t_out[5];
    double n1 = 3.0 * p->g * sqrt(p->g * p->R * cos_off(p)) * sin(acos(cos_off(p))) / p->R;
    for (int k = 0; k < 5; k++) {
        double omega = sqrt(p->k * mu[k]), reference = polar_lift_off(p, mu[k]) - t_off;
        NEAR(reference, 2.0 / omega, 1.2e-3 * 2.0 / omega, "mu = %g: the polar integration's delay, 2 xi/omega", mu[k]);
        pl_solution r;
        resolution[k] = t_out[k] = NAN;
        CHECK(solve_penalty(&m, mu[k], 1e-8, 1.5, 0, &r, &err) == PL_OK, "mu = %g: %s", mu[k], err.message);
        if (r.nepisodes == 1 && !isnan(r.episodes[0].t_out)) {
            double delay = r.episodes[0].t_out - t_off, round_off = DBL_EPSILON * p->R * omega * omega / n1;
            t_out[k] = r.episodes[0].t_out;
            resolution[k] = r.episodes[0].t_out_resolution;
            NEAR(delay, reference, fmax(2e-3 * reference, resolution[k]),
                 "mu = %g: the delay (resolution %.3g)", mu[k], resolution[k]);
            CHECK(resolution[k] >= round_off && (mu[k] < 1e8 || resolution[k] <= 2.0 * round_off) &&
                      resolution[k] < 0.2 * reference,
                  "mu = %g: the resolution %.3g, an ulp of R over N'/omega^2 = %.3g and the oscillation left, below "
                  "a fifth of the delay %.3g",
                  mu[k], resolution[k], round_off, reference);
        } else {
            CHECK(0, "mu = %g: one contact, which ends", mu[k]);
        }
        pl_solution_free(&r);
    }
    /* the spread round-off makes at 1e10 */
    double lo = t_out[4], hi = t_out[4];
    const int ulps[] = {-40, -7, 11, 40};
    for (int which = 0; which < 2; which++)
        for (int u = 0; u < 4; u++) {
            params pp = *p;
            double *x = which == 0 ? &pp.R : &pp.v0;
            *x *= 1.0 + ulps[u] * DBL_EPSILON;
            pl_model mp = {0};
            pl_solution r;
            if (!init(&mp, &pp))
                continue;
            if (solve_penalty(&mp, mu[4], 1e-8, 1.5, 0, &r, &err) == PL_OK && r.nepisodes == 1) {
                lo = fmin(lo, r.episodes[0].t_out);
                hi = fmax(hi, r.episodes[0].t_out);
            } else {
                CHECK(0, "%s perturbed by %d ulps: one contact (%s)", which ? "v0" : "R", ulps[u], err.message);
            }
            pl_solution_free(&r);
            pl_model_free(&mp);
        }
    CHECK(hi - lo >= 0.2 * resolution[4] && hi - lo <= 2.0 * resolution[4],
          "mu = 1e10: the exit's spread under perturbations by ulps, %.3g, within 0.2 to 2 resolutions (%.3g)", hi - lo,
          resolution[4]);

    pl_sweep sw;
    pl_sweep_opts o = {.solver = &pl_solver_penalty, .jobs = 2, .with_limit = 0};
    pl_solve_opts_init(&o.base, &pl_solver_penalty, &m, 1.5);
    o.base.samples = 0;
    if (pl_sweep_run(&m, mu, 5, &o, &sw, &err) == PL_OK) {
        const pl_sweep_quantity *l = &sw.q[PL_Q_LIFT_OFF_FIRST];
        CHECK(sw.failures == 0, "sweep: no failures");
        CHECK(l->conv.floored == 0 && l->conv.points == 5, "every value fitted (%zu at the floor, %zu fitted)",
              l->conv.floored, l->conv.points);
        CHECK(fabs(l->conv.rate - 0.5) < 0.01, "the rate: 1/2 (%.4f)", l->conv.rate);
        pl_sweep_free(&sw);
    } else {
        CHECK(0, "sweep: %s", err.message);
    }
    pl_model_free(&m);
}

/* The sweep's lift-off converges to the closed form like mu^-1/2 (mu = 1e4 ... 1e8); the default sweep
 * (1e2 ... 1e10) completes. */
static void test_sweep(void)
{
    double mu[] = {1e4, 1e5, 1e6, 1e7, 1e8}, mu_default[9];
    for (int k = 0; k < 9; k++)
        mu_default[k] = pow(10.0, 2 + k);
    pl_model m = {0};
    pl_sweep sw;
    pl_error err;
    if (!init(&m, &DEFAULTS))
        return;
    pl_sweep_opts o = {.solver = &pl_solver_penalty, .jobs = 2, .with_limit = 1};
    pl_solve_opts_init(&o.base, &pl_solver_penalty, &m, 1.0);
    o.base.samples = 0;
    CHECK(pl_sweep_run(&m, mu, 5, &o, &sw, &err) == PL_OK, "sweep: %s", err.message);
    CHECK(sw.failures == 0, "no failures");
    const pl_sweep_quantity *l = &sw.q[PL_Q_LIFT_OFF_FIRST];
    CHECK(l->conv.reference == PL_REF_EXACT && fabs(l->conv.limit - t_off_quadrature(&DEFAULTS)) < 1e-13,
          "the lift-off's limit is the closed form (%.15g)", l->conv.limit);
    for (size_t k = 0; k < 5; k++)
        NEAR(l->errors[k], 2.0 / sqrt(mu[k]), 0.05 * 2.0 / sqrt(mu[k]), "mu = %g: lift-off error 2/omega", mu[k]);
    CHECK(fabs(l->conv.rate - 0.5) < 0.03, "lift-off error ~ mu^-1/2 (rate %.3f)", l->conv.rate);
    const pl_sweep_quantity *f = &sw.q[PL_Q_SLIDING_FORCE_ERROR];
    CHECK(f->conv.rate > 0.45 && f->conv.rate < 0.55, "sup |mu G - F^sm| ~ mu^-1/2, the damping's lag (%.3f)",
          f->conv.rate);
    pl_sweep_free(&sw);
    pl_solve_opts_init(&o.base, &pl_solver_penalty, &m, NAN);
    o.base.samples = 0;
    CHECK(pl_sweep_run(&m, mu_default, 9, &o, &sw, &err) == PL_OK, "default sweep: %s", err.message);
    CHECK(sw.failures == 0, "default sweep: no failures");
    pl_sweep_free(&sw);
    pl_model_free(&m);
}

/* The schemes against the limit solution: O(h) at t = 1 after lift-off; Paoli's and Maury's lift-off
 * within 2h of t_off.  (Moreau-Jean's velocity constraint Gdot >= 0 holds the mass on the tangent, which
 * leaves the convex disk by O(h^2) a step: it rebounds off the disk every few steps and its first
 * sustained contact ends after one step, so its lift-off says nothing; its trajectory converges.) */
static void test_schemes(void)
{
    const pl_solver_type *schemes[] = {&pl_solver_moreau_jean, &pl_solver_paoli, &pl_solver_maury};
    const double hs[] = {1e-3, 1e-4};
    pl_model m = {0};
    pl_solution lim;
    pl_error err;
    if (!init(&m, &DEFAULTS))
        return;
    CHECK(solve_limit(&m, 1e-12, 1.0, 0, &lim, &err) == PL_OK, "limit: %s", err.message);
    double t_off = t_off_quadrature(&DEFAULTS);
    for (int s = 0; s < 3; s++) {
        double e[2];
        for (int c = 0; c < 2; c++) {
            pl_solution r;
            pl_analysis a;
            e[c] = NAN;
            if (solve_scheme(schemes[s], &m, hs[c], 1.0, &r, &err) != PL_OK) {
                CHECK(0, "%s h = %g: %s", schemes[s]->name, hs[c], err.message);
                pl_solution_free(&r);
                continue;
            }
            e[c] = hypot(r.q_final[0] - lim.q_final[0], r.q_final[1] - lim.q_final[1]);
            CHECK(pl_analyze(&m, &r, &a, &err) == PL_OK, "analysis: %s", err.message);
            if (schemes[s] == &pl_solver_moreau_jean) {
                /* Its velocity-level constraint holds the mass on the tangent, which leaves the convex disk by
                 * O(h^2) a step, so it falls back in small rebounds and its lift-off says nothing; but until
                 * t_off it slides on the disk: G, the normal velocity and the energy's error all O(h). */
                double G_max = 0.0, vn_max = 0.0, dE_max = 0.0;
                for (size_t row = 0; row < r.traj.nrows; row++) {
                    const double *x = pl_table_row(&r.traj, row), *q = x + pl_col_q(2, 1), *v = x + pl_col_v(2, 1);
                    if (x[0] > t_off)
                        break;
                    double rr = hypot(q[0], q[1]), phi = atan2(q[0], q[1]);
                    G_max = fmax(G_max, fabs(rr - DEFAULTS.R));
                    vn_max = fmax(vn_max, fabs(v[0] * q[0] + v[1] * q[1]) / rr);
                    dE_max = fmax(dE_max, fabs(v[0] * v[0] + v[1] * v[1] - speed2(&DEFAULTS, phi)));
                }
                CHECK(G_max <= 0.1 * hs[c] && vn_max <= 20.0 * hs[c] && dE_max <= 20.0 * hs[c],
                      "moreau_jean h = %g: slides on the disk until t_off (|G| <= %.3g, |v.n| <= %.3g, "
                      "|v^2 - v_E^2| <= %.3g)", hs[c], G_max, vn_max, dE_max);
            } else {
                CHECK(fabs(a.lift_off_first - t_off) < 2.0 * hs[c], "%s h = %g: lift-off %.6f, t_off %.6f",
                      schemes[s]->name, hs[c], a.lift_off_first, t_off);
            }
            pl_analysis_free(&a);
            pl_solution_free(&r);
        }
        CHECK(e[0] < 10.0 * hs[0] && e[1] < 10.0 * hs[1] && e[1] < 0.2 * e[0],
              "%s: distance at t = 1, %.3g at h = 1e-3, %.3g at 1e-4 (O(h))", schemes[s]->name, e[0], e[1]);
    }
    pl_solution_free(&lim);
    pl_model_free(&m);
}

/* A disk so large that over t-end = 1 its top is flat: the mass slides on at (v0, 0), held against
 * gravity (its angle moves by 1e-20).  Its gap |q| - R is known to 1000 ulps of R, 2e4 at R = 1e20,
 * far beyond a step's drop g h^2: Moreau-Jean counts G within its round-off as contact (at h = 0.1 it
 * once let the mass fall, v = (1, -0.981)); Paoli and Maury project onto it. */
static void test_huge_disk(void)
{
    const pl_solver_type *schemes[] = {&pl_solver_moreau_jean, &pl_solver_paoli, &pl_solver_maury};
    const params huge = {1e20, 9.81, 1.0, 1.0};
    pl_model m = {0};
    if (!init(&m, &huge))
        return;
    for (int k = 0; k < 3; k++) {
        pl_solution sol;
        pl_error err;
        CHECK(solve_scheme(schemes[k], &m, 0.1, 1.0, &sol, &err) == PL_OK, "%s: %s", schemes[k]->name, err.message);
        NEAR(sol.v_final[0], 1.0, 1e-12, "%s on a disk of radius 1e20: v_x", schemes[k]->name);
        NEAR(sol.v_final[1], 0.0, 1e-12, "%s on a disk of radius 1e20: held, v_y", schemes[k]->name);
        pl_solution_free(&sol);
    }
    pl_model_free(&m);
}

int main(void)
{
    check_init();
    test_geometry();
    test_lift_off_time();
    test_limit();
    test_tiny_disk();
    test_penalty();
    test_lift_off_large_mu();
    test_sweep();
    test_schemes();
    test_huge_disk();
    return check_finish("test_disk");
}
