/* Paper 002 section 7: a unit point mass in the plane (q = (x, y), M = I, no force) between two walls
 * through the origin meeting at the interior angle `angle` (degrees).  With alpha = angle in radians,
 *
 *   G1 = -y >= 0                              (wall 1: the ray d1 = (-1, 0) from the origin)
 *   G2 = -sin(alpha) x + cos(alpha) y >= 0    (wall 2: the ray d2 = (-cos alpha, -sin alpha))
 *
 * Both gradients are unit normals pointing into the admissible sector: n1 = (0, -1) and
 * n2 = (-sin alpha, cos alpha), the inward normal of the ray d2 = (-cos alpha, -sin alpha), which is
 * the ray d1 = (-1, 0) of wall 1 rotated by alpha (clockwise, into y < 0); the sector between d1 and
 * d2 is the admissible set and n1 . n2 = -cos(alpha).  For alpha = 135 degrees:
 * G2 = -(x + y)/sqrt(2) (the paper's phi2 = x + y <= 0, normalised); for 90 degrees G2 = -x.
 *
 * The mass starts at (-1 + eps, -1) with velocity (1, 1): for eps = 0 it runs exactly into the corner
 * at t = 1.  Rigid elastic outcome for 135 degrees: eps < 0 hits wall 1 at t = 1 and leaves with
 * (1, -1), then moves parallel to wall 2 (x + y = eps) without touching it; eps > 0 hits wall 2 at
 * t = 1 - eps/2 and leaves with (-1, -1), moving away from wall 1: one impact each, and the outcome
 * jumps at eps = 0 (paper 002, section 7).  The penalized outcome depends on eps sqrt(k mu) and k2/k
 * only (self-similar), so mu -> infinity and eps -> 0 do not commute.  For 90 degrees the walls are
 * orthogonal, x and y decouple, and every outcome is (-1, -1).
 *
 * Contact law: e (or xi) shared by both walls, stiffness k on wall 1 and k2 on wall 2 (k2 defaults
 * to k). */
#include <stdio.h>

#include "cases/cases.h"

enum { ANGLE, EPS, E, XI, K, K2, NPAR };

static const pl_param_spec params[NPAR] = {
    {"angle", 135.0, 0.0, 180.0, PL_PARAM_MIN_OPEN | PL_PARAM_MAX_OPEN, "interior angle of the corner, degrees"},
    {"eps", 0.0, -1.0, 1.0, PL_PARAM_MIN_OPEN | PL_PARAM_MAX_OPEN,
     "start (-1 + eps, -1) with velocity (1, 1): eps = 0 runs into the corner"},
    PL_LAW_PARAMS(1.0),
    {"k2", NAN, 0.0, INFINITY, PL_PARAM_MIN_OPEN | PL_PARAM_DERIVED, "stiffness scale of wall 2 (default: k)"},
};

static double rad(const double *p)
{
    return p[ANGLE] * (M_PI / 180.0);
}

/* The unit normal of wall 2. */
static void normal2(const double *p, double *n)
{
    n[0] = -sin(rad(p));
    n[1] = cos(rad(p));
}

static void initial_state(const double *p, double *q, double *v, void *user)
{
    (void)user;
    q[0] = -1.0 + p[EPS];
    q[1] = -1.0;
    v[0] = 1.0;
    v[1] = 1.0;
}

static void accel(const double *p, double t, const double *q, const double *v, const double *u,
                  double *a, double *a_q, double *a_v, void *user)
{
    (void)p, (void)t, (void)q, (void)v, (void)u, (void)user;
    a[0] = a[1] = 0.0;
    for (int k = 0; k < 4; k++) {
        if (a_q)
            a_q[k] = 0.0;
        if (a_v)
            a_v[k] = 0.0;
    }
}

static void gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    (void)t, (void)user;
    double n[2] = {0.0, -1.0};
    if (i == 1)
        normal2(p, n);
    out->g = n[0] * q[0] + n[1] * q[1];
    out->grad[0] = n[0];
    out->grad[1] = n[1];
}

static void law(const double *p, size_t i, pl_law *out, void *user)
{
    (void)user;
    out->k = i == 1 && !isnan(p[K2]) ? p[K2] : p[K];
    out->xi = p[XI];
}

/* The start must lie strictly inside the sector: G2(q0) = sin(alpha)(1 - eps) - cos(alpha) > 0. */
static int check(const double *p, char *msg, size_t len, void *user)
{
    (void)user;
    double n[2];
    normal2(p, n);
    double g2 = n[0] * (-1.0 + p[EPS]) - n[1];
    if (!(g2 > 0.0)) {
        snprintf(msg, len, "the start (-1 + eps, -1) = (%g, -1) is not inside the corner of angle %g (G2 = %g)",
                 -1.0 + p[EPS], p[ANGLE], g2);
        return 1;
    }
    return 0;
}

static void scales(const double *p, double *velocity, double *acceleration, void *user)
{
    (void)p, (void)user;
    *velocity = sqrt(2.0);
    *acceleration = 0.0;
}

/* The first rigid impact: wall 1 at t1 = 1; wall 2 where G2(t) = G2(q0) + t n2 . (1, 1) = 0, i.e.
 * t2 = G2(q0)/(sin alpha - cos alpha) = 1 - eps sin(alpha)/(sin alpha - cos alpha) (1 - eps/2 for 135
 * degrees), if the mass moves toward wall 2 at all.  At eps = 0 both walls are hit at once: the first
 * impact is a corner impact and only its time is known here. */
static double limit_value(const double *p, pl_limit_quantity what, void *user)
{
    (void)user;
    double n[2];
    normal2(p, n);
    double rate2 = n[0] + n[1], g2 = n[0] * (-1.0 + p[EPS]) - n[1];
    double t2 = rate2 < 0.0 ? -g2 / rate2 : INFINITY;
    int wall2 = t2 < 1.0;
    double t1 = wall2 ? t2 : 1.0;
    double V = wall2 ? -rate2 : 1.0, k = wall2 && !isnan(p[K2]) ? p[K2] : p[K];
    if (what == PL_LIMIT_FIRST_IMPACT_TIME)
        return t1;
    if (t2 == 1.0 || p[EPS] == 0.0)
        return NAN; /* corner impact */
    switch (what) {
    case PL_LIMIT_RESTITUTION_FIRST: return p[E];
    case PL_LIMIT_SCALED_PENETRATION_FIRST: return V / sqrt(k) * pl_impact_penetration_factor(p[XI]);
    default: return NAN;
    }
}

const pl_case pl_case_corner = {
    .abi_version = PL_ABI_VERSION,
    .name = "corner",
    .summary = "point mass into a corner of two walls at an angle (paper 002, section 7): discontinuous rigid "
               "outcome at 135 degrees, continuous at 90",
    .ndof = 2,
    .ncon = 2,
    .params = params,
    .nparams = NPAR,
    .t_end = 2.0,
    .initial_state = initial_state,
    .accel = accel,
    .gap = gap,
    .scales = scales,
    .law = law,
    .check = check,
    .limit_value = limit_value,
};
