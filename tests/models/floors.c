/* A ball (x, y) over N floors (floor i: y + i L + tilt x >= 0, one of them ever touched), loaded
 * with --model by test_resources: a model whose size is its number of constraints, for the time
 * budgets of the work that grows with it and check-model's cost.  With wrong = 1 every gap's
 * gradient leaves out its x entry (tilt): a mistake check-model must find. */
#include <math.h>

#include <penlim/model.h>

enum { G, H0, E, XI, K, N, L, TILT, WRONG, NPAR };

static const pl_param_spec params[NPAR] = {
    {"g", 9.81, 0.0, INFINITY, 0, "gravity"},
    {"h0", 1.0, 0.0, INFINITY, 0, "initial height"},
    {"e", 0.5, 0.0, 1.0, PL_PARAM_LAW, "restitution"},
    {"xi", NAN, 0.0, INFINITY, PL_PARAM_DERIVED | PL_PARAM_LAW, "damping ratio"},
    {"k", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN | PL_PARAM_LAW, "stiffness scale"},
    {"N", 10000.0, 1.0, 1e6, 0, "number of floors (a whole number)"},
    {"L", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN, "spacing of the floors"},
    {"tilt", 0.0, -1.0, 1.0, 0, "slope of every floor in x"},
    {"wrong", 0.0, 0.0, 1.0, 0, "1: the gradients leave out the slope"},
};

static void sizes(const double *p, size_t *ndof, size_t *ncon, void *user)
{
    (void)user;
    *ndof = 2;
    *ncon = (size_t)p[N];
}

static int check(const double *p, char *msg, size_t len, void *user)
{
    (void)msg, (void)len, (void)user;
    return p[N] == floor(p[N]) && (p[WRONG] == 0.0 || p[WRONG] == 1.0) ? 0 : -1;
}

static void initial_state(const double *p, double *q, double *v, void *user)
{
    (void)user;
    q[0] = 0.0;
    q[1] = p[H0];
    v[0] = v[1] = 0.0;
}

static void force(const double *p, double t, const double *q, const double *v, const double *u, double *f,
                  double *f_q, double *f_v, void *user)
{
    (void)t, (void)q, (void)v, (void)u, (void)user;
    f[0] = 0.0;
    f[1] = -p[G];
    for (int k = 0; k < 4; k++) {
        if (f_q)
            f_q[k] = 0.0;
        if (f_v)
            f_v[k] = 0.0;
    }
}

static void gap(const double *p, size_t i, double t, const double *q, pl_gap *out, void *user)
{
    (void)t, (void)user;
    out->g = q[1] + (double)i * p[L] + p[TILT] * q[0];
    out->grad[0] = p[WRONG] == 1.0 ? 0.0 : p[TILT];
    out->grad[1] = 1.0;
}

static void scales(const double *p, double *velocity, double *accel, void *user)
{
    (void)user;
    *velocity = sqrt(2.0 * p[G] * p[H0]);
    *accel = p[G];
}

static const pl_case floors = {
    .abi_version = PL_ABI_VERSION,
    .name = "floors",
    .summary = "a ball over N floors",
    .params = params,
    .nparams = NPAR,
    .t_end = 1.0,
    .sizes = sizes,
    .check = check,
    .initial_state = initial_state,
    .force = force,
    .gap = gap,
    .scales = scales,
};

PL_EXPORT_MODEL(floors)
