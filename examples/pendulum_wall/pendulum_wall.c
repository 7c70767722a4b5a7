/* A spring pendulum hitting a wall: a model loaded by `penlim ... --model ./pendulum_wall.so`.
 *
 * A mass m on a radial spring (stiffness kr, rest length l) hangs from the origin under gravity g;
 * q = (r, theta), theta measured from the downward vertical, so the mass is at
 * (r sin theta, -r cos theta).  Kinetic energy m (r'^2 + r^2 theta'^2)/2 gives the mass matrix
 * M(q) = diag(m, m r^2), and the generalized force (Lagrange's equations, velocity terms included)
 *
 *   f_r     = m r theta'^2 + m g cos theta - kr (r - l)
 *   f_theta = -m g r sin theta - 2 m r r' theta'
 *
 * A wall at x = d stops the swing: G = d - r sin theta >= 0, nonlinear in q.  The contact law takes
 * the usual parameters e (or xi) and k; in the limit mu -> infinity each isolated impact reverses
 * the normal velocity Gdot with restitution e. */
#include <math.h>

#include <penlim/model.h>

enum { M, L, KR, G, D, THETA0, E, XI, K, NPAR };

static const pl_param_spec params[NPAR] = {
    {"m", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "mass"},
    {"l", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "rest length of the spring"},
    {"kr", 100.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "radial spring stiffness"},
    {"g", 9.81, 0.0, INFINITY, 0, "gravity"},
    {"d", 0.5, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "distance of the wall from the pivot"},
    {"theta0", -1.0, -3.0, 0.0, 0, "initial angle (rad; released at rest, stretched to equilibrium)"},
    {"e", 0.8, 0.0, 1.0, PL_PARAM_LAW, "restitution of an isolated impact (or set xi)"},
    {"xi", NAN, 0.0, INFINITY, PL_PARAM_DERIVED | PL_PARAM_LAW, "damping ratio of the contact law (or set e)"},
    {"k", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN | PL_PARAM_LAW, "contact stiffness scale"},
};

static void initial_state(const double *p, double *q, double *v, void *user)
{
    (void)user;
    q[0] = p[L] + p[M] * p[G] * cos(p[THETA0]) / p[KR]; /* radial equilibrium at rest */
    q[1] = p[THETA0];
    v[0] = v[1] = 0.0;
}

static void mass(const double *p, const double *q, double *Mq, void *user)
{
    (void)user;
    Mq[0] = p[M];
    Mq[3] = p[M] * q[0] * q[0];
}

static void mass_dq(const double *p, const double *q, size_t k, double *dM, void *user)
{
    (void)user;
    if (k == 0) /* d/dr */
        dM[3] = 2.0 * p[M] * q[0];
}

static void force(const double *p, double t, const double *q, const double *v, const double *u, double *f,
                  double *f_q, double *f_v, void *user)
{
    (void)t, (void)u, (void)user;
    double m = p[M], g = p[G], r = q[0], th = q[1], rd = v[0], thd = v[1];
    f[0] = m * r * thd * thd + m * g * cos(th) - p[KR] * (r - p[L]);
    f[1] = -m * g * r * sin(th) - 2.0 * m * r * rd * thd;
    if (f_q) { /* df_j/dq_k at [j * 2 + k] */
        f_q[0] = m * thd * thd - p[KR];
        f_q[1] = -m * g * sin(th);
        f_q[2] = -m * g * sin(th) - 2.0 * m * rd * thd;
        f_q[3] = -m * g * r * cos(th);
    }
    if (f_v) {
        f_v[0] = 0.0;
        f_v[1] = 2.0 * m * r * thd;
        f_v[2] = -2.0 * m * r * thd;
        f_v[3] = -2.0 * m * r * rd;
    }
}

static void gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    (void)i, (void)t, (void)user;
    double r = q[0], s = sin(q[1]), c = cos(q[1]);
    out->g = p[D] - r * s;
    out->grad[0] = -s;
    out->grad[1] = -r * c;
    out->hess[0] = 0.0;   /* d2G/dr2 */
    out->hess[1] = -c;    /* d2G/dr dtheta */
    out->hess[2] = -c;
    out->hess[3] = r * s; /* d2G/dtheta2 */
}

/* Contact speed: the swing's speed at the bottom, sqrt(2 g l (1 - cos theta0)); acceleration g. */
static void scales(const double *p, double *velocity, double *accel, void *user)
{
    (void)user;
    *velocity = sqrt(2.0 * p[G] * p[L] * (1.0 - cos(p[THETA0])));
    *accel = p[G];
}

static const pl_case pendulum_wall = {
    .abi_version = PL_ABI_VERSION,
    .name = "pendulum_wall",
    .summary = "spring pendulum (r, theta), M(q) = diag(m, m r^2), hitting the wall x = d",
    .ndof = 2,
    .ncon = 1,
    .params = params,
    .nparams = NPAR,
    .t_end = 3.0,
    .initial_state = initial_state,
    .force = force,
    .mass = mass,
    .mass_dq = mass_dq,
    .gap = gap,
    .scales = scales,
};

PL_EXPORT_MODEL(pendulum_wall)
