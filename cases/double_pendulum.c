/* Ballard, "The dynamics of discrete mechanical systems with perfect unilateral constraints" (ARMA 154,
 * 2000), sections 2.1 and 6.2: two homogeneous bars (masses m1, m2, lengths l1, l2) in a plane, bar 1
 * hinged to a fixed support, bar 2 to the free end of bar 1, spiral springs k1 (support) and k2 (joint),
 * a tip force of magnitude lambda along bar 2 (a follower load: non-conservative), and an obstacle on
 * the vertical axis through the support.
 *
 * q1, q2 are the absolute angles of the bars from the vertical axis (the paper's chart: cos(q1 - q2)
 * in the metric).  Kinetic metric (section 2.1):
 *   M11 = (m1/3 + m2) l1^2,  M12 = c cos(q1 - q2),  M22 = m2 l2^2/3,  c = m2 l1 l2/2.
 * Efforts (section 2.1): f1 = lambda l1 sin(q1 - q2) - (k1 + k2) q1 + k2 q2, f2 = k2 (q1 - q2): spring
 * k1 acts on q1 and spring k2 on the relative angle q2 - q1 (potential k1 q1^2/2 + k2 (q2 - q1)^2/2);
 * the load, parallel to bar 2, compresses it toward the joint and does no work on q2.  The
 * equations of motion (4) move the Coriolis/centrifugal terms of the metric into f:
 *   f1 -= c sin(q1 - q2) v2^2,  f2 += c sin(q1 - q2) v1^2.
 * Decision: an optional gravity g (default 0, absent from the paper) along the vertical axis, from the
 * tip toward the support at q = 0 (g > 0: the column stands on its support, an inverted double
 * pendulum; g < 0: it hangs): potential g ((m1/2 + m2) l1 cos q1 + m2 l2/2 cos q2), so
 *   f1 += g (m1/2 + m2) l1 sin q1,  f2 += g m2 l2/2 sin q2.
 * Obstacle (section 6.2): phi_1 = -l1 sin q1 <= 0 (the joint), phi_2 = -l1 sin q1 - l2 sin q2 <= 0 (the
 * tip); here G_i = -phi_i >= 0.  They are functionally independent unless l1 = l2 (then dG2 = 0 at the
 * folded state sin q1 = 1, sin q2 = -1): such parameters are accepted, the theory does not cover them.
 * At q = 0 both constraints are active and not orthogonal in the kinetic metric.
 *
 * The paper gives no numbers.  Defaults: m1 = m2 = l1 = 1, l2 = 0.8, k1 = k2 = 1, lambda = 0.5, start
 * (q1, q2) = (0.3, 0.5) with (v1, v2) = (-1, -1), both bars swinging toward the obstacle. */
#include "cases/cases.h"

enum { M1, M2, L1, L2, K1, K2, LAMBDA, GRAV, Q1, Q2, V1, V2, E, XI, K, NPAR };

static const pl_param_spec params[NPAR] = {
    {"m1", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "mass of bar 1 (support side)"},
    {"m2", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "mass of bar 2 (tip side)"},
    {"l1", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "length of bar 1"},
    {"l2", 0.8, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "length of bar 2"},
    {"k1", 1.0, 0.0, INFINITY, 0, "spiral spring at the support, on q1"},
    {"k2", 1.0, 0.0, INFINITY, 0, "spiral spring at the joint, on q2 - q1"},
    {"lambda", 0.5, -INFINITY, INFINITY, 0, "tip force along bar 2, toward the joint (follower load)"},
    {"g", 0.0, -INFINITY, INFINITY, 0, "gravity from the tip toward the support at q = 0 (> 0: standing, < 0: hanging)"},
    {"q1", 0.3, -INFINITY, INFINITY, 0, "initial angle of bar 1 from the vertical axis"},
    {"q2", 0.5, -INFINITY, INFINITY, 0, "initial angle of bar 2 from the vertical axis"},
    {"v1", -1.0, -INFINITY, INFINITY, 0, "initial angular velocity of bar 1"},
    {"v2", -1.0, -INFINITY, INFINITY, 0, "initial angular velocity of bar 2"},
    PL_LAW_PARAMS(0.5),
};

static void initial_state(const double *p, double *q, double *v, void *user)
{
    (void)user;
    q[0] = p[Q1];
    q[1] = p[Q2];
    v[0] = p[V1];
    v[1] = p[V2];
}

static void mass(const double *p, const double *q, double *M, void *user)
{
    (void)user;
    double c = 0.5 * p[M2] * p[L1] * p[L2];
    M[0] = (p[M1] / 3.0 + p[M2]) * p[L1] * p[L1];
    M[1] = M[2] = c * cos(q[0] - q[1]);
    M[3] = p[M2] * p[L2] * p[L2] / 3.0;
}

static void mass_dq(const double *p, const double *q, size_t k, double *dM, void *user)
{
    (void)user;
    double c = 0.5 * p[M2] * p[L1] * p[L2], s = sin(q[0] - q[1]);
    dM[0] = dM[3] = 0.0; /* every entry: the caller does not clear dM */
    dM[1] = dM[2] = k == 0 ? -c * s : c * s;
}

static void force(const double *p, double t, const double *q, const double *v, const double *u,
                  double *f, double *f_q, double *f_v, void *user)
{
    (void)t, (void)u, (void)user;
    double c = 0.5 * p[M2] * p[L1] * p[L2], s = sin(q[0] - q[1]), co = cos(q[0] - q[1]);
    double lam = p[LAMBDA] * p[L1], k1 = p[K1], k2 = p[K2];
    double g1 = p[GRAV] * (0.5 * p[M1] + p[M2]) * p[L1], g2 = p[GRAV] * 0.5 * p[M2] * p[L2];
    f[0] = lam * s - k1 * q[0] - k2 * (q[0] - q[1]) - c * s * v[1] * v[1] + g1 * sin(q[0]);
    f[1] = -k2 * (q[1] - q[0]) + c * s * v[0] * v[0] + g2 * sin(q[1]);
    if (f_q) {
        f_q[0] = lam * co - k1 - k2 - c * co * v[1] * v[1] + g1 * cos(q[0]);
        f_q[1] = -lam * co + k2 + c * co * v[1] * v[1];
        f_q[2] = k2 + c * co * v[0] * v[0];
        f_q[3] = -k2 - c * co * v[0] * v[0] + g2 * cos(q[1]);
    }
    if (f_v) {
        f_v[0] = 0.0;
        f_v[1] = -2.0 * c * s * v[1];
        f_v[2] = 2.0 * c * s * v[0];
        f_v[3] = 0.0;
    }
}

static void gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    (void)t, (void)user;
    out->g = p[L1] * sin(q[0]);
    out->grad[0] = p[L1] * cos(q[0]);
    out->hess[0] = -p[L1] * sin(q[0]);
    if (i == 1) {
        out->g += p[L2] * sin(q[1]);
        out->grad[1] = p[L2] * cos(q[1]);
        out->hess[3] = -p[L2] * sin(q[1]);
    }
}

/* The potential of the springs and gravity (the load has none). */
static double potential(const double *p, const double *q)
{
    double d = q[1] - q[0];
    return 0.5 * p[K1] * q[0] * q[0] + 0.5 * p[K2] * d * d +
           p[GRAV] * ((0.5 * p[M1] + p[M2]) * p[L1] * cos(q[0]) + 0.5 * p[M2] * p[L2] * cos(q[1]));
}

/* The largest |x| of x^T Q x over x^T M x = 1, Q diagonal and M symmetric positive definite: the
 * largest modulus of the roots of det(Q - x M) = 0. */
static double quadratic_bound(double Q11, double Q22, const double *M)
{
    double a = M[0] * M[3] - M[1] * M[2], b = -(Q11 * M[3] + Q22 * M[0]), c = Q11 * Q22;
    double disc = sqrt(fmax(b * b - 4.0 * a * c, 0.0));
    return fmax(fabs(-b + disc), fabs(-b - disc)) / (2.0 * a);
}

/* Scales from the reachable configurations.  The energy E = T + U at the start (springs and gravity)
 * plus the work the follower load does while bar 1 sweeps its half-plane once, |lambda| l1 pi
 * (Decision: the load is not conservative and can feed a flutter, so nothing bounds its work for
 * ever; one sweep is the margin taken), bounds the kinetic energy T = E - U(q) at every
 * configuration.  Over a grid of admissible configurations (G1, G2 >= 0; q1 within pi of its start,
 * the joint cannot cross the axis; the relative angle q2 - q1 in [-pi, pi], the winding whose spring
 * holds the least energy), with w_i = M^-1 grad G_i:
 *   V = max |Gdot_i| = sqrt(2 T grad G_i . w_i),
 *   A = max |D_i| <= |w_i . f(q, 0)| + 2 T max |v^T Q_i v|/(v^T M v),
 * where D_i = w_i . f(q, v) + v^T (d2 G_i) v (paper 004 (37)) and the velocity terms, the Coriolis
 * part of f and the Hessian of G_i, make the diagonal form Q_i.  The springs, gravity and the load are
 * all in f(q, 0).  (Before, A = Omega V from the springs alone: with g = 100 the free acceleration
 * reached 235 A and the penalty refused a physical impact as gaining energy.) */
static void scales(const double *p, double *velocity, double *acceleration, void *user)
{
    (void)user;
    enum { N1 = 64, N2 = 128 };
    double q0[2], v0[2], M[4] = {0};
    initial_state(p, q0, v0, user);
    mass(p, q0, M, user);
    double T0 = 0.5 * (M[0] * v0[0] * v0[0] + 2.0 * M[1] * v0[0] * v0[1] + M[3] * v0[1] * v0[1]);
    double E = T0 + potential(p, q0) + fabs(p[LAMBDA]) * p[L1] * M_PI;
    double c = 0.5 * p[M2] * p[L1] * p[L2], V = 0.0, A = 0.0;
    for (int a = 0; a <= N1 + 1; a++)
        for (int b = 0; b <= N2; b++) {
            double q[2];
            if (a == N1 + 1) { /* the start itself */
                if (b > 0)
                    break;
                q[0] = q0[0], q[1] = q0[1];
            } else {
                q[0] = q0[0] - M_PI + 2.0 * M_PI * a / N1;
                q[1] = q[0] - M_PI + 2.0 * M_PI * b / N2;
            }
            double G1 = p[L1] * sin(q[0]), G2 = G1 + p[L2] * sin(q[1]);
            double T = E - potential(p, q);
            if (a <= N1 && (G1 < 0.0 || G2 < 0.0 || T < 0.0))
                continue;
            T = fmax(T, 0.0);
            double f[2], zero[2] = {0.0, 0.0};
            force(p, 0.0, q, zero, NULL, f, NULL, NULL, user);
            mass(p, q, M, user);
            double det = M[0] * M[3] - M[1] * M[2], s = sin(q[0] - q[1]);
            for (int i = 0; i < 2; i++) {
                double grad[2] = {p[L1] * cos(q[0]), i ? p[L2] * cos(q[1]) : 0.0};
                double w[2] = {(M[3] * grad[0] - M[1] * grad[1]) / det, (M[0] * grad[1] - M[2] * grad[0]) / det};
                /* v^T Q v: w . (-c s v2^2, c s v1^2) - l1 sin q1 v1^2 - [i] l2 sin q2 v2^2 */
                double Q11 = c * s * w[1] - p[L1] * sin(q[0]), Q22 = -c * s * w[0] - (i ? p[L2] * sin(q[1]) : 0.0);
                V = fmax(V, sqrt(2.0 * T * (grad[0] * w[0] + grad[1] * w[1])));
                A = fmax(A, fabs(w[0] * f[0] + w[1] * f[1]) + 2.0 * T * quadratic_bound(Q11, Q22, M));
            }
        }
    *velocity = V;
    *acceleration = A;
}

const pl_case pl_case_double_pendulum = {
    .abi_version = PL_ABI_VERSION,
    .name = "double_pendulum",
    .summary = "two bars with spiral springs and a follower tip load against an obstacle on the vertical axis "
               "(Ballard, ARMA 2000, section 6.2): position-dependent mass matrix, joint and tip constraints",
    .ndof = 2,
    .ncon = 2,
    .params = params,
    .nparams = NPAR,
    .t_end = 5.0,
    .initial_state = initial_state,
    .force = force,
    .gap = gap,
    .scales = scales,
    .mass = mass,
    .mass_dq = mass_dq,
};
