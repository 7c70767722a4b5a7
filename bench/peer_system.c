/* The peers' penalized ODE: hand-written systems and the model-API system (peer_system.h). */
#define _POSIX_C_SOURCE 200809L
#include "peer_system.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double peer_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The case's parameter values in the order of its table (what its callbacks receive as p). */
static double *case_parameters(const pl_model *model)
{
    const pl_case *c = pl_model_case(model);
    double *p = calloc(c->nparams ? c->nparams : 1, sizeof *p);
    for (size_t j = 0; p && j < c->nparams; j++)
        p[j] = pl_model_parameter(model, c->params[j].name);
    return p;
}

/* What both forms share: sizes, scales, the initial state, the arrays. */
static int system_common(peer_system *s, const pl_model *model, double mu, const double *p, char *why, size_t len)
{
    const pl_case *c = pl_model_case(model);
    size_t n = pl_model_dof(model), m = pl_model_constraints(model), N = 2 * n;
    memset(s, 0, sizeof *s);
    if (strcmp(pl_model_law(model), "kelvin_voigt") != 0) {
        snprintf(why, len, "the peers implement Kelvin-Voigt only, not %s", pl_model_law(model));
        return -1;
    }
    if (c->law_at) {
        snprintf(why, len, "the peers do not implement a law that varies with the configuration (law_at)");
        return -1;
    }
    s->n = n, s->m = m, s->N = N, s->mu = mu;
    s->scale = calloc(N, sizeof *s->scale);
    s->y0 = calloc(N, sizeof *s->y0);
    s->active = calloc(m ? m : 1, sizeof *s->active);
    s->work = calloc(3 * N + 4 * m + 2, sizeof *s->work);
    if (!s->scale || !s->y0 || !s->active || !s->work) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    double V = 0.0, A = 0.0;
    c->scales(p, &V, &A, c->user);
    s->v_scale = V > 0.0 ? V : 1.0;
    /* a user who knows the shortest pulse of the forcing (flat between pulses, where an error
     * estimate sees nothing) steps no longer than it */
    double ft = c->forcing_time ? c->forcing_time(p, 0.0, c->user) : 0.0;
    s->hmax = ft > 0.0 ? ft : INFINITY;
    c->initial_state(p, s->y0, s->y0 + n, c->user);
    return 0;
}

static void system_scales(peer_system *s, double kmax)
{
    s->omega = sqrt(kmax * s->mu);
    for (size_t j = 0; j < s->n; j++) {
        s->scale[j] = s->v_scale / s->omega;
        s->scale[s->n + j] = s->v_scale;
    }
}

void peer_system_free(peer_system *s)
{
    if (s->release)
        s->release(s);
    free(s->scale);
    free(s->y0);
    free(s->active);
    free(s->work);
    memset(s, 0, sizeof *s);
}

int peer_system_rhs(peer_system *s, double t, const double *y, double *dy)
{
    /* the clock every 64 evaluations: a tuning run past its budget stops within microseconds */
    if (s->deadline > 0.0 && (s->rhs & 63) == 0 && peer_now() > s->deadline)
        s->expired = 1;
    if (s->expired)
        return -1;
    s->rhs++;
    s->f(s, t, y, dy);
    for (size_t j = 0; j < s->N; j++)
        if (!isfinite(dy[j]))
            return 1;
    return 0;
}

int peer_system_jac(peer_system *s, double t, const double *y, double *J)
{
    s->jac++;
    if (s->jf) {
        s->jf(s, t, y, J);
        return 0;
    }
    size_t N = s->N;
    double *f0 = s->work, *f1 = f0 + N, *yy = f1 + N;
    if (peer_system_rhs(s, t, y, f0))
        return -1;
    memcpy(yy, y, N * sizeof *yy);
    for (size_t j = 0; j < N; j++) {
        double h = 1.49e-8 * fmax(fabs(y[j]), s->scale[j]);
        yy[j] = y[j] + h;
        h = yy[j] - y[j];
        if (peer_system_rhs(s, t, yy, f1))
            return -1;
        for (size_t i = 0; i < N; i++)
            J[i * N + j] = (f1[i] - f0[i]) / h;
        yy[j] = y[j];
    }
    return 0;
}

void peer_system_gaps(peer_system *s, double t, const double *y, double *g, double *gdot)
{
    s->gaps(s, t, y, g, gdot);
}

void peer_system_reset(peer_system *s)
{
    s->rhs = s->jac = 0;
    s->expired = 0;
    size_t m = s->m, N = s->N;
    double *g = s->work, *gd = g + m, *dy = gd + m, *y1 = dy + N, *gd1 = y1 + N;
    for (size_t i = 0; i < m; i++)
        s->active[i] = 0;
    s->gaps(s, 0.0, s->y0, g, gd);
    /* the free gap acceleration by a difference quotient along the free flow (only read where the
     * state starts on a constraint at rest relative to it, as the vibrating table does) */
    const double h = 1e-7;
    s->f(s, 0.0, s->y0, dy);
    for (size_t j = 0; j < N; j++)
        y1[j] = s->y0[j] + h * dy[j];
    s->gaps(s, h, y1, gd1 + m, gd1);
    for (size_t i = 0; i < m; i++)
        s->active[i] = g[i] < 0.0 || (g[i] == 0.0 && (gd[i] < 0.0 || (gd[i] == 0.0 && gd1[i] <= 0.0)));
}

/* ---- hand-written systems ------------------------------------------------------------------------- */

typedef enum { HAND_BALL, HAND_TABLE, HAND_WEDGE, HAND_CUP } hand_kind;

typedef struct {
    hand_kind kind;
    double g, A, W;     /* ball, table */
    double m, a1, a2;   /* wedge: mass matrix [[1, m], [m, 1]], free acceleration M^-1 f */
    double kmu, kd;     /* k mu and k d, d = 2 xi sqrt(mu/k) */
} hand;

static void hand_f(peer_system *s, double t, const double *y, double *dy)
{
    const hand *h = s->data;
    switch (h->kind) {
    case HAND_BALL:
        dy[0] = y[1];
        dy[1] = -h->g - (s->active[0] ? h->kmu * y[0] + h->kd * y[1] : 0.0);
        break;
    case HAND_TABLE: {
        double a = -h->g;
        if (s->active[0]) {
            double G = y[0] - h->A * sin(h->W * t), Gd = y[1] - h->A * h->W * cos(h->W * t);
            a -= h->kmu * G + h->kd * Gd;
        }
        dy[0] = y[1];
        dy[1] = a;
        break;
    }
    case HAND_WEDGE: {
        /* w_i lambda_i with m_eff = 1 - m^2: q'' = M^-1 f - s1 (1, -m) - s2 (-m, 1) */
        double s1 = s->active[0] ? h->kmu * y[0] + h->kd * y[2] : 0.0;
        double s2 = s->active[1] ? h->kmu * y[1] + h->kd * y[3] : 0.0;
        dy[0] = y[2];
        dy[1] = y[3];
        dy[2] = h->a1 - s1 + h->m * s2;
        dy[3] = h->a2 + h->m * s1 - s2;
        break;
    }
    case HAND_CUP: {
        /* G = 1 - |x|^2, grad G = -2 x, m_eff = 1/(4 |x|^2): x'' = x k (mu G + d Gdot)/(2 |x|^2) */
        double c = 0.0;
        if (s->active[0]) {
            double r2 = y[0] * y[0] + y[1] * y[1], G = 1.0 - r2, Gd = -2.0 * (y[0] * y[2] + y[1] * y[3]);
            c = (h->kmu * G + h->kd * Gd) / (2.0 * r2);
        }
        dy[0] = y[2];
        dy[1] = y[3];
        dy[2] = c * y[0];
        dy[3] = c * y[1];
        break;
    }
    }
}

static void hand_jac(peer_system *s, double t, const double *y, double *J)
{
    (void)t;
    const hand *h = s->data;
    size_t N = s->N;
    memset(J, 0, N * N * sizeof *J);
    switch (h->kind) {
    case HAND_BALL:
    case HAND_TABLE:
        J[1] = 1.0;
        J[2] = s->active[0] ? -h->kmu : 0.0;
        J[3] = s->active[0] ? -h->kd : 0.0;
        break;
    case HAND_WEDGE: {
        J[0 * 4 + 2] = J[1 * 4 + 3] = 1.0;
        double a1 = s->active[0], a2 = s->active[1];
        /* row 2: -s1 + m s2; row 3: m s1 - s2 */
        J[2 * 4 + 0] = -a1 * h->kmu, J[2 * 4 + 2] = -a1 * h->kd;
        J[2 * 4 + 1] = h->m * a2 * h->kmu, J[2 * 4 + 3] = h->m * a2 * h->kd;
        J[3 * 4 + 0] = h->m * a1 * h->kmu, J[3 * 4 + 2] = h->m * a1 * h->kd;
        J[3 * 4 + 1] = -a2 * h->kmu, J[3 * 4 + 3] = -a2 * h->kd;
        break;
    }
    case HAND_CUP: {
        J[0 * 4 + 2] = J[1 * 4 + 3] = 1.0;
        if (!s->active[0])
            break;
        double x = y[0], yy = y[1], vx = y[2], vy = y[3];
        double r2 = x * x + yy * yy, G = 1.0 - r2, Gd = -2.0 * (x * vx + yy * vy);
        double S = h->kmu * G + h->kd * Gd, c = S / (2.0 * r2);
        /* dS/dy and dc/dy = dS/(2 r^2) - c d(r^2)/r^2 */
        double dS[4] = {-2.0 * (h->kmu * x + h->kd * vx), -2.0 * (h->kmu * yy + h->kd * vy), -2.0 * h->kd * x,
                        -2.0 * h->kd * yy};
        double dr2[4] = {2.0 * x, 2.0 * yy, 0.0, 0.0}, dc[4];
        for (int j = 0; j < 4; j++)
            dc[j] = dS[j] / (2.0 * r2) - c * dr2[j] / r2;
        for (int j = 0; j < 4; j++) {
            J[2 * 4 + j] = x * dc[j];
            J[3 * 4 + j] = yy * dc[j];
        }
        J[2 * 4 + 0] += c;
        J[3 * 4 + 1] += c;
        break;
    }
    }
}

static void hand_gaps(peer_system *s, double t, const double *y, double *g, double *gdot)
{
    const hand *h = s->data;
    switch (h->kind) {
    case HAND_BALL:
        g[0] = y[0], gdot[0] = y[1];
        break;
    case HAND_TABLE:
        g[0] = y[0] - h->A * sin(h->W * t);
        gdot[0] = y[1] - h->A * h->W * cos(h->W * t);
        break;
    case HAND_WEDGE:
        g[0] = y[0], g[1] = y[1], gdot[0] = y[2], gdot[1] = y[3];
        break;
    case HAND_CUP:
        g[0] = 1.0 - y[0] * y[0] - y[1] * y[1];
        gdot[0] = -2.0 * (y[0] * y[2] + y[1] * y[3]);
        break;
    }
}

static void hand_release(peer_system *s)
{
    free(s->data);
}

int peer_system_hand(peer_system *s, const pl_model *model, double mu, char *why, size_t len)
{
    const char *name = pl_model_case(model)->name;
    hand h;
    memset(&h, 0, sizeof h);
    if (!strcmp(name, "bouncing_ball"))
        h.kind = HAND_BALL;
    else if (!strcmp(name, "vibrating_table"))
        h.kind = HAND_TABLE;
    else if (!strcmp(name, "wedge"))
        h.kind = HAND_WEDGE;
    else if (!strcmp(name, "cup") && pl_model_parameter(model, "polar") == 0.0)
        h.kind = HAND_CUP;
    else
        return 0;
    double *p = case_parameters(model);
    int st = p ? system_common(s, model, mu, p, why, len) : -1;
    free(p);
    if (st) {
        peer_system_free(s);
        return -1;
    }
    double k = pl_model_law_parameter(model, "k"), xi = pl_model_law_parameter(model, "xi");
    h.kmu = k * mu;
    h.kd = k * 2.0 * xi * sqrt(mu / k);
    h.g = pl_model_parameter(model, "g");
    h.A = pl_model_parameter(model, "A");
    h.W = pl_model_parameter(model, "omega");
    if (h.kind == HAND_WEDGE) {
        double m = h.m = pl_model_parameter(model, "m"), f1 = pl_model_parameter(model, "f1"),
               f2 = pl_model_parameter(model, "f2");
        h.a1 = (f1 - m * f2) / (1.0 - m * m);
        h.a2 = (f2 - m * f1) / (1.0 - m * m);
    }
    if (!(s->data = malloc(sizeof h))) {
        peer_system_free(s);
        snprintf(why, len, "out of memory");
        return -1;
    }
    memcpy(s->data, &h, sizeof h);
    s->form = "hand-written";
    s->f = hand_f;
    s->jf = hand_jac;
    s->gaps = hand_gaps;
    s->release = hand_release;
    system_scales(s, k);
    return 1;
}

/* ---- the model-API system ------------------------------------------------------------------------- */

typedef struct {
    const pl_case *c;
    double *p;
    double *k, *d;        /* m: each constraint's k_i and damping coefficient 2 xi_i sqrt(mu/k_i) */
    double *M, *L;        /* n x n: M(q), its Cholesky factor */
    double *fv, *fp, *w, *u, *grad, *grad_t, *hess;
    pl_gap gap;
} api;

/* Cholesky factor of the symmetric positive definite M (lower, in L); -1 if not positive. */
static int cholesky(const double *M, double *L, size_t n)
{
    for (size_t j = 0; j < n; j++)
        for (size_t i = j; i < n; i++) {
            double sum = M[i * n + j];
            for (size_t k = 0; k < j; k++)
                sum -= L[i * n + k] * L[j * n + k];
            if (i == j) {
                if (!(sum > 0.0))
                    return -1;
                L[j * n + j] = sqrt(sum);
            } else
                L[i * n + j] = sum / L[j * n + j];
        }
    return 0;
}

static void cholesky_solve(const double *L, size_t n, const double *b, double *x)
{
    for (size_t i = 0; i < n; i++) {
        double sum = b[i];
        for (size_t k = 0; k < i; k++)
            sum -= L[i * n + k] * x[k];
        x[i] = sum / L[i * n + i];
    }
    for (size_t i = n; i-- > 0;) {
        double sum = x[i];
        for (size_t k = i + 1; k < n; k++)
            sum -= L[k * n + i] * x[k];
        x[i] = sum / L[i * n + i];
    }
}

/* G_i and Gdot_i = grad G . F_p + G_t at (t, q) with F_p = fp. */
static double api_gap(peer_system *s, api *a, size_t i, double t, const double *q, const double *fp, double *gdot)
{
    size_t n = s->n;
    memset(a->grad, 0, n * sizeof *a->grad);
    memset(a->grad_t, 0, n * sizeof *a->grad_t);
    size_t dofs[4 * PL_MAX_SUPPORT], count = n; /* a case's support compresses the arrays (ABI 4) */
    const size_t *support = NULL;
    if (a->c->support)
        count = a->c->support(a->p, i, dofs, a->c->user), support = dofs;
    a->gap = (pl_gap){0.0, 0.0, 0.0, a->grad, a->grad_t, a->hess, 0, support, count};
    a->c->gap(a->p, i, t, q, &a->gap, a->c->user);
    double r = a->gap.g_t;
    for (size_t e = 0; e < count; e++)
        r += a->grad[e] * fp[support ? support[e] : e];
    *gdot = r;
    return a->gap.g;
}

static void api_velocity(peer_system *s, api *a, double t, const double *y)
{
    if (a->c->velocity_map)
        a->c->velocity_map(a->p, t, y, y + s->n, a->fp, NULL, NULL, NULL, a->c->user);
    else
        memcpy(a->fp, y + s->n, s->n * sizeof *a->fp);
}

static void api_f(peer_system *s, double t, const double *y, double *dy)
{
    api *a = s->data;
    const pl_case *c = a->c;
    size_t n = s->n;
    const double *q = y, *v = y + n;
    double *acc = dy + n;
    if (c->input)
        c->input(a->p, t, a->u, c->user);
    api_velocity(s, a, t, y);
    memcpy(dy, a->fp, n * sizeof *dy);
    int have_mass = c->mass != NULL;
    if (have_mass) {
        memset(a->M, 0, n * n * sizeof *a->M);
        c->mass(a->p, q, a->M, c->user);
        if (cholesky(a->M, a->L, n)) {
            for (size_t j = 0; j < n; j++)
                acc[j] = NAN;
            return;
        }
    }
    if (c->accel)
        c->accel(a->p, t, q, v, a->u, acc, NULL, NULL, c->user);
    else {
        c->force(a->p, t, q, v, a->u, a->fv, NULL, NULL, c->user);
        if (have_mass)
            cholesky_solve(a->L, n, a->fv, acc);
        else
            memcpy(acc, a->fv, n * sizeof *acc);
    }
    for (size_t i = 0; i < s->m; i++) {
        if (!s->active[i])
            continue;
        double gd, G = api_gap(s, a, i, t, q, a->fp, &gd);
        if (have_mass)
            cholesky_solve(a->L, n, a->grad, a->w);
        else
            memcpy(a->w, a->grad, n * sizeof *a->w);
        double gw = 0.0;
        for (size_t j = 0; j < n; j++)
            gw += a->grad[j] * a->w[j];
        double lambda = -(a->k[i] / gw) * (s->mu * G + a->d[i] * gd);
        for (size_t j = 0; j < n; j++)
            acc[j] += a->w[j] * lambda;
    }
}

static void api_gaps(peer_system *s, double t, const double *y, double *g, double *gdot)
{
    api *a = s->data;
    api_velocity(s, a, t, y);
    for (size_t i = 0; i < s->m; i++)
        g[i] = api_gap(s, a, i, t, y, a->fp, &gdot[i]);
}

static void api_release(peer_system *s)
{
    api *a = s->data;
    if (!a)
        return;
    free(a->p);
    free(a->k);
    free(a->M);
    free(a);
}

int peer_system_model(peer_system *s, const pl_model *model, double mu, char *why, size_t len)
{
    const pl_case *c = pl_model_case(model);
    double *p = case_parameters(model);
    if (!p || system_common(s, model, mu, p, why, len)) {
        free(p);
        peer_system_free(s);
        return -1;
    }
    size_t n = s->n, m = s->m;
    api *a = calloc(1, sizeof *a);
    s->data = a;
    s->release = api_release;
    if (!a || !(a->k = calloc(2 * m + 1, sizeof *a->k)) || !(a->M = calloc(2 * n * n + n * n + 7 * n + 8, sizeof *a->M))) {
        free(p);
        peer_system_free(s);
        snprintf(why, len, "out of memory");
        return -1;
    }
    a->c = c, a->p = p;
    a->d = a->k + m;
    double *w = a->M + n * n;
    a->L = w, w += n * n;
    a->hess = w, w += n * n;
    a->fv = w, w += n;
    a->fp = w, w += n;
    a->w = w, w += n;
    a->grad = w, w += n;
    a->grad_t = w, w += n;
    a->u = w;
    /* each constraint's law: the model's, changed by the case's law callback */
    double kmax = 0.0;
    for (size_t i = 0; i < m; i++) {
        pl_law law = {pl_model_law_parameter(model, "k"), pl_model_law_parameter(model, "xi"), "kelvin_voigt", 2,
                      {"k", "xi"}, {0}};
        law.param[0] = law.k, law.param[1] = law.xi;
        if (c->law)
            c->law(p, i, &law, c->user);
        a->k[i] = law.k;
        a->d[i] = 2.0 * law.xi * sqrt(mu / law.k);
        kmax = fmax(kmax, law.k);
    }
    s->form = "model API";
    s->f = api_f;
    s->jf = NULL;
    s->gaps = api_gaps;
    system_scales(s, kmax);
    return 0;
}
