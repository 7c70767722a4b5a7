/* Newton's cradle: N unit balls on a line, gaps G_j = q_{j+1} - q_j - 2r (j < N - 1), ball 0 at V into
 * the N - 1 others at rest and touching; it reaches them at t = 1.
 *
 * The penalty limit.  grad G_j = e_{j+1} - e_j, m_j = 1/2, so the force of contact j is
 * lambda_j = -(k/2)(mu G_j + 2 xi sqrt(mu/k) Gdot_j) while G_j < 0 (paper 004, form (4)), pushing ball
 * j + 1 forward and ball j back.  In X = omega q/V, S = omega (t - 1), omega = sqrt(k mu) (X_j measured
 * from ball j's position at t = 1, when ball 0 touches ball 1):
 *
 *   X_j'' = lambda_{j-1} - lambda_j,  lambda_j = -(g_j + 2 xi g_j')/2 while g_j = X_{j+1} - X_j < 0,
 *
 * from X = 0, X' = (1, 0, ..., 0): free of mu, k and V.  So the outgoing velocities are those of this
 * chain at every mu (N = 3, e = 1: (-0.1303, 0.1502, 0.9800)), each gap's exit comes at
 * t = 1 + S_j/omega, and q^mu - q^lim tends to (V/omega) d_j, d_j = lim (X_j(S) - v_j S).  chain()
 * integrates it by RK4 (step 1e-3) with every contact switch located by bisection, so that each
 * stretch is smooth and RK4 keeps its order.
 *
 * Moreau's law (the simultaneous Newton law, Moreau-Jean's impact law).  Before the impact
 * Gdot_0 = -V and Gdot_j = 0 (j >= 1); the impulses P >= 0 at every gap make Gdot_0+ >= e V and
 * Gdot_j+ >= 0, complementary.  With every P_j > 0: Gdot_j+ = 0 for j >= 1, so balls 1 .. N-1 leave
 * together at u, and v_0+ = u - e V; momentum gives (u - e V) + (N - 1) u = V:
 *
 *   u = (1 + e) V/N,   v_0+ = (1 + e - e N) V/N,
 *
 * and indeed P_j = (N - 1 - j) u > 0 (ball N-1 takes P_{N-2} = u, ball j takes P_{j-1} - P_j = u), so by
 * the uniqueness of the LCP's solution (H M^-1 H^T is positive definite) this is the outcome.  N = 3:
 * (-1/3, 2/3, 2/3) V at e = 1, (1/3, 1/3, 1/3) V at e = 0.  Kinetic energy at e = 1:
 * ((N - 2)^2 + 4 (N - 1))/N^2 = 1 times V^2/2, conserved as in the penalty limit: momentum and energy do
 * not fix the outcome of N >= 3 balls. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "cases/cases.h"
#include "io/report.h"
#include "laws/law.h"
#include "study/analysis.h"
#include "check.h"
#include "cli_util.h"
#include "solve.h"
#include "study/sweep.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>

enum { NMAX = 16 };

/* ---- the scaled chain ------------------------------------------------------------------------- */

typedef struct {
    double v[NMAX];      /* outgoing velocities, units of V */
    double d[NMAX];      /* X_j(S) - v_j S once every contact has ended */
    double sup;          /* sup over S >= 0 and j of |X_j(S) - v_j S| */
    double exit[NMAX];   /* S of the last exit of gap j */
    double rate0_first;  /* g_0' at gap 0's first exit: the restitution of the first impact */
    double pen0;         /* max of -g_0 over the steps: low by at most h^2 g_0''/8 ~ 1.3e-7 */
    double impulse[NMAX];/* integral of lambda_j dS, units of V */
} chain_ref;

static void chain_rhs(size_t n, double xi, const int *act, const double *y, double *dy)
{
    for (size_t j = 0; j < n; j++)
        dy[j] = y[n + j], dy[n + j] = 0.0, dy[2 * n + j] = 0.0;
    for (size_t j = 0; j + 1 < n; j++)
        if (act[j]) {
            double lam = -0.5 * ((y[j + 1] - y[j]) + 2.0 * xi * (y[n + j + 1] - y[n + j]));
            dy[n + j] -= lam;
            dy[n + j + 1] += lam;
            dy[2 * n + j] = lam; /* the impulse of gap j, a quadrature */
        }
}

static void rk4(size_t n, double xi, const int *act, const double *y, double h, double *out)
{
    size_t N = 3 * n;
    double k[4][3 * NMAX], yt[3 * NMAX];
    for (int st = 0; st < 4; st++) {
        double c = st == 0 ? 0.0 : st == 3 ? 1.0 : 0.5;
        for (size_t i = 0; i < N; i++)
            yt[i] = y[i] + (st ? c * h * k[st - 1][i] : 0.0);
        chain_rhs(n, xi, act, yt, k[st]);
    }
    for (size_t i = 0; i < N; i++)
        out[i] = y[i] + h / 6.0 * (k[0][i] + 2.0 * k[1][i] + 2.0 * k[2][i] + k[3][i]);
}

/* A gap whose sign disagrees with its contact flag: an entry (g < 0, free) or an exit (g > 0, in
 * contact).  A gap at exactly 0 agrees with either: the resting balls stay in contact. */
static int switches(size_t n, const int *act, const double *y, int *flip)
{
    int any = 0;
    for (size_t j = 0; j + 1 < n; j++) {
        double g = y[j + 1] - y[j];
        flip[j] = act[j] ? g > 0.0 : g < 0.0;
        any |= flip[j];
    }
    return any;
}

static void chain(size_t n, double xi, chain_ref *r)
{
    double y[3 * NMAX] = {0}, y1[3 * NMAX], S = 0.0, h = 1e-3;
    int act[NMAX], flip[NMAX], exits0 = 0;
    memset(r, 0, sizeof *r);
    y[n] = 1.0;
    for (size_t j = 0; j + 1 < n; j++)
        act[j] = 1; /* gap 0 closing at rate -1, the others at rest */
    for (long step = 0; step < 10000000; step++) {
        int any_act = 0, sorted = 1;
        for (size_t j = 0; j + 1 < n; j++)
            any_act |= act[j], sorted &= y[n + j] <= y[n + j + 1];
        if (!any_act && sorted)
            break; /* free and separating: no contact ever again */
        rk4(n, xi, act, y, h, y1);
        double dS = h;
        if (switches(n, act, y1, flip)) {
            /* the first switch: bisect the step, then step just past it */
            double lo = 0.0, hi = h;
            for (int it = 0; it < 80 && hi - lo > 1e-17; it++) {
                double mid = 0.5 * (lo + hi);
                rk4(n, xi, act, y, mid, y1);
                if (switches(n, act, y1, flip))
                    hi = mid;
                else
                    lo = mid;
            }
            rk4(n, xi, act, y, hi, y1);
            switches(n, act, y1, flip);
            dS = hi;
            for (size_t j = 0; j + 1 < n; j++)
                if (flip[j]) {
                    act[j] = !act[j];
                    if (!act[j]) {
                        r->exit[j] = S + dS;
                        if (j == 0 && exits0++ == 0)
                            r->rate0_first = y1[n + 1] - y1[n];
                    }
                }
        }
        memcpy(y, y1, sizeof y);
        S += dS;
        if (-(y[1] - y[0]) > r->pen0)
            r->pen0 = -(y[1] - y[0]);
    }
    for (size_t j = 0; j < n; j++)
        r->v[j] = y[n + j];
    for (size_t j = 0; j + 1 < n; j++)
        r->impulse[j] = y[2 * n + j];
    /* The offsets from the limit's motion v_j S, constant from here on; their sup over S by a second
     * pass on a uniform grid, now that the v_j are known (the offsets move only while a contact acts). */
    double z[3 * NMAX] = {0};
    int a2[NMAX];
    z[n] = 1.0;
    for (size_t j = 0; j + 1 < n; j++)
        a2[j] = 1;
    for (double s = 0.0; s < S + h; s += h) {
        for (size_t j = 0; j < n; j++)
            r->sup = fmax(r->sup, fabs(z[j] - r->v[j] * s));
        double z1[3 * NMAX];
        rk4(n, xi, a2, z, h, z1);
        if (switches(n, a2, z1, flip))
            for (size_t j = 0; j + 1 < n; j++)
                a2[j] ^= flip[j]; /* a switch placed at the step's end: good to O(h) for the sup */
        memcpy(z, z1, sizeof z);
    }
    for (size_t j = 0; j < n; j++) {
        r->d[j] = y[j] - r->v[j] * S;
        r->sup = fmax(r->sup, fabs(r->d[j]));
    }
}

/* The Euclidean projection of x (n values) onto the cone u_0 <= u_1 <= ... <= u_{n-1}: adjacent
 * blocks that violate the order are pooled into their mean (isotonic regression). */
static void isotonic(const double *x, size_t n, double *u)
{
    double mean[NMAX];
    size_t len[NMAX], blocks = 0;
    for (size_t j = 0; j < n; j++) {
        mean[blocks] = x[j], len[blocks++] = 1;
        while (blocks > 1 && mean[blocks - 2] > mean[blocks - 1]) {
            size_t a = blocks - 2, b = blocks - 1;
            mean[a] = (mean[a] * (double)len[a] + mean[b] * (double)len[b]) / (double)(len[a] + len[b]);
            len[a] += len[b];
            blocks--;
        }
    }
    for (size_t b = 0, j = 0; b < blocks; b++)
        for (size_t c = 0; c < len[b]; c++)
            u[j++] = mean[b];
}

/* Moreau's law (above), units of V. */
static double moreau(size_t N, double e, size_t j)
{
    return j == 0 ? (1.0 + e - e * (double)N) / (double)N : (1.0 + e) / (double)N;
}

/* ---- penlim ----------------------------------------------------------------------------------- */

static int init(pl_model *m, size_t N, double e, double k)
{
    pl_error err;
    pl_setting s[] = {{"N", (double)N}, {"e", e}, {"k", k}};
    int ok = pl_model_init(m, &pl_case_newtons_cradle, s, 3, &err) == PL_OK;
    CHECK(ok, "newtons_cradle N = %zu: %s", N, err.message);
    return ok;
}

static double row_sum(const pl_solution *r, size_t row, size_t col, size_t n)
{
    const double *x = pl_table_row(&r->traj, row);
    double s = 0.0;
    for (size_t j = 0; j < n; j++)
        s += x[col + j];
    return s;
}

/* Momentum: sum v = V on every row, and the centre of mass moving uniformly,
 * sum q(t) = sum q(0) + V t (q_0(0) = -V, q_j(0) = 2 r j). */
static void check_momentum(const pl_model *m, const pl_solution *r, double tol, const char *what)
{
    size_t n = m->n, cq = pl_col_q(n, m->m), cv = pl_col_v(n, m->m);
    double V = pl_model_param(m, "V"), rad = pl_model_param(m, "r"), worst_v = 0.0, worst_q = 0.0;
    double q0 = -V + rad * (double)(n * (n - 1));
    for (size_t i = 0; i < r->traj.nrows; i++) {
        double t = pl_table_row(&r->traj, i)[0];
        worst_v = fmax(worst_v, fabs(row_sum(r, i, cv, n) - V));
        worst_q = fmax(worst_q, fabs(row_sum(r, i, cq, n) - (q0 + V * t)));
    }
    CHECK(r->traj.nrows > 2 && worst_v <= tol * V, "%s: momentum sum v = V on every row (off by %.3g, tol %.3g)",
          what, worst_v, tol * V);
    CHECK(worst_q <= tol * fmax(V, 1.0) * 10.0, "%s: centre of mass uniform, sum q = sum q0 + V t (off by %.3g)",
          what, worst_q);
}

static void test_model(void)
{
    const size_t Ns[] = {2, 3, 7};
    for (int c = 0; c < 3; c++) {
        pl_model m;
        if (!init(&m, Ns[c], 1.0, 1.0))
            continue;
        CHECK(m.n == Ns[c] && m.m == Ns[c] - 1, "N = %zu: n = N, m = N - 1 (%zu, %zu)", Ns[c], m.n, m.m);
        double q[NMAX], v[NMAX];
        pl_model_initial_state(&m, q, v);
        pl_gap *g = pl_gap_new(1, m.n, 0);
        for (size_t j = 0; j < m.m; j++) {
            pl_model_gap(&m, j, 0.0, q, g);
            CHECK(g->g == (j == 0 ? 1.0 : 0.0), "N = %zu: G_%zu(0) = %s exactly (%g)", Ns[c], j, j ? "0" : "V", g->g);
            CHECK(g->grad[j] == -1.0 && g->grad[j + 1] == 1.0, "grad G_j = e_{j+1} - e_j");
        }
        free(g);
        CHECK(v[0] == 1.0 && v[m.n - 1] == 0.0, "ball 0 at V, the others at rest");
        pl_model_free(&m);
    }
    pl_model m;
    pl_error err;
    pl_setting half[] = {{"N", 2.5}}, one[] = {{"N", 1.0}};
    CHECK(pl_model_init(&m, &pl_case_newtons_cradle, half, 1, &err) == PL_ERR_INPUT && strstr(err.message, "whole"),
          "N = 2.5 refused: %s", err.message);
    pl_model_free(&m);
    CHECK(pl_model_init(&m, &pl_case_newtons_cradle, one, 1, &err) == PL_ERR_INPUT, "N = 1 refused: %s", err.message);
    pl_model_free(&m);
}

/* The reference itself: N = 3 gives the quoted (-0.1303, 0.1502, 0.9800); momentum 1 and energy 1/2 at
 * every N; outgoing velocities increasing along the chain (no later collision); N = 2 is the exchange
 * (0, 1) of two equal balls. */
static void test_reference(void)
{
    chain_ref r;
    chain(3, 0.0, &r);
    const double quoted[3] = {-0.1303, 0.1502, 0.9800};
    for (int j = 0; j < 3; j++)
        NEAR(r.v[j], quoted[j], 6e-5, "N = 3 scaled chain: v_%d", j);
    for (size_t N = 2; N <= 6; N++) {
        chain(N, 0.0, &r);
        double p = 0.0, E = 0.0;
        for (size_t j = 0; j < N; j++)
            p += r.v[j], E += 0.5 * r.v[j] * r.v[j];
        NEAR(p, 1.0, 1e-12, "N = %zu chain: momentum", N);
        NEAR(E, 0.5, 1e-10, "N = %zu chain: kinetic energy", N);
        for (size_t j = 0; j + 1 < N; j++)
            CHECK(r.v[j] < r.v[j + 1], "N = %zu chain: v_%zu < v_%zu (no later collision)", N, j, j + 1);
        /* N = 2: g'' = -g, so g = -sin S, X = S/2 -+ (sin S)/2 until S = pi: the exchange (0, 1), offsets
         * d = (pi/2, -pi/2), depth 1, gap 0 leaving at rate 1 */
        if (N == 2)
            CHECK(fabs(r.v[0]) < 1e-10 && fabs(r.v[1] - 1.0) < 1e-10 && fabs(r.exit[0] - M_PI) < 1e-10 &&
                      fabs(r.d[0] - M_PI / 2) < 1e-9 && fabs(r.d[1] + M_PI / 2) < 1e-9 && fabs(r.pen0 - 1.0) < 1e-7 &&
                      fabs(r.rate0_first - 1.0) < 1e-10,
                  "N = 2: exchange (0, 1) after pi/omega, offsets +-pi/2 (%g, %g, %g, %.3g, %.3g, %.3g)", r.v[0],
                  r.v[1],
                  r.exit[0], r.d[0] - M_PI / 2, r.d[1] + M_PI / 2, r.pen0 - 1.0);
    }
}

/* Penalty at two mu and two k (e = 1): outgoing velocities, gap exits at 1 + S_j/omega, each gap's
 * impulse, final positions offset by (V/omega) d_j; energy; momentum on every row. */
static void test_penalty(void)
{
    chain_ref ref;
    chain(3, 0.0, &ref);
    const double mus[] = {1e6, 1e9}, ks[] = {1.0, 4.0}; /* k mu = 4e10 is beyond double precision */
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            double mu = mus[a], k = ks[b], omega = sqrt(k * mu);
            pl_model m;
            pl_solution r;
            pl_error err;
            if (!init(&m, 3, 1.0, k))
                continue;
            if (solve_penalty(&m, mu, 1e-10, 0.0, 0, &r, &err) != PL_OK) {
                CHECK(0, "penalty mu = %g, k = %g: %s", mu, k, err.message);
            } else {
                for (int j = 0; j < 3; j++)
                    NEAR(r.v_final[j], ref.v[j], 1e-8, "penalty mu = %g, k = %g: v_%d against the chain", mu, k, j);
                double rad = pl_model_param(&m, "r"); /* at t = 3: ball j from 2 r j at t = 1 (ball 0 from 0) */
                double q_lim[3] = {2.0 * ref.v[0], 2.0 * rad + 2.0 * ref.v[1], 4.0 * rad + 2.0 * ref.v[2]};
                for (int j = 0; j < 3; j++)
                    NEAR(r.q_final[j] - q_lim[j], ref.d[j] / omega, 1e-6 / omega + 1e-10,
                         "penalty mu = %g, k = %g: q_%d - q_lim = d_%d/omega", mu, k, j, j);
                /* one episode per gap: gap 0 from t = 1, gap 1 from the start, exits at 1 + S_j/omega */
                CHECK(r.nepisodes == 2, "penalty mu = %g: one episode per gap (%zu)", mu, r.nepisodes);
                for (size_t e = 0; e < r.nepisodes && e < 2; e++) {
                    const pl_episode *ep = &r.episodes[e];
                    size_t j = ep->constraint;
                    NEAR(ep->t_in, j == 0 ? 1.0 : 0.0, 1e-12, "penalty mu = %g: gap %zu enters", mu, j);
                    NEAR(ep->t_out, 1.0 + ref.exit[j] / omega, 1e-7 / omega, "penalty mu = %g, k = %g: gap %zu exits",
                         mu, k, j);
                    NEAR(ep->impulse, ref.impulse[j], 1e-7, "penalty mu = %g, k = %g: impulse of gap %zu", mu, k, j);
                    if (j == 0)
                        NEAR(ep->max_penetration * omega, ref.pen0, 1e-6, "penalty mu = %g: omega max(-G_0)", mu);
                }
                /* energy: E = KE + sum_j (k mu/4) (G_j^-)^2 on every row; KE = 1/2 outside the contact */
                size_t cv = pl_col_v(3, 2), cg = pl_col_g(3, 2);
                double worst_E = 0.0, worst_out = 0.0, deficit_in = 0.0;
                for (size_t i = 0; i < r.traj.nrows; i++) {
                    const double *x = pl_table_row(&r.traj, i);
                    double ke = 0.0, spring = 0.0;
                    for (int j = 0; j < 3; j++)
                        ke += 0.5 * x[cv + j] * x[cv + j];
                    for (int j = 0; j < 2; j++)
                        spring += x[cg + j] < 0.0 ? 0.25 * k * mu * x[cg + j] * x[cg + j] : 0.0;
                    worst_E = fmax(worst_E, fabs(ke + spring - 0.5));
                    if (x[0] < 1.0 || x[0] > 1.0 + ref.exit[1] / omega * (1.0 + 1e-6))
                        worst_out = fmax(worst_out, fabs(ke - 0.5));
                    else
                        deficit_in = fmax(deficit_in, 0.5 - ke);
                }
                CHECK(worst_E < 1e-8, "penalty mu = %g, k = %g: KE + spring energy = 1/2 on every row (off by %.3g)",
                      mu, k, worst_E);
                CHECK(worst_out < 1e-8, "penalty mu = %g: KE = 1/2 outside [1, 1 + S_1/omega] (off by %.3g)", mu,
                      worst_out);
                CHECK(deficit_in > 0.1, "penalty mu = %g: the springs hold energy inside (%.3g)", mu, deficit_in);
                char what[64];
                snprintf(what, sizeof what, "penalty mu = %g, k = %g", mu, k);
                check_momentum(&m, &r, 1e-12, what);
            }
            pl_solution_free(&r);
            pl_model_free(&m);
        }
}

/* The limit solution: one impact at t = 1, every gap taking part (the fast system of the whole chain),
 * the outgoing velocities and impulses of the chain, the kinetic energy kept at e = 1. */
static void test_limit(void)
{
    for (size_t N = 2; N <= 6; N++) {
        chain_ref ref;
        chain(N, 0.0, &ref);
        pl_model m;
        pl_solution r;
        pl_error err;
        if (!init(&m, N, 1.0, 1.0))
            continue;
        if (solve_limit(&m, 1e-12, 0.0, 0, &r, &err) != PL_OK) {
            CHECK(0, "limit N = %zu: %s", N, err.message);
        } else {
            size_t impacts = 0;
            for (size_t e = 0; e < r.nevents; e++)
                if (r.events[e].kind == PL_EVENT_IMPACT) {
                    const pl_event *ev = &r.events[e];
                    impacts++;
                    NEAR(ev->t, 1.0, 1e-12, "limit N = %zu: impact time", N);
                    for (size_t j = 0; j + 1 < N; j++) {
                        CHECK(ev->participants[j], "limit N = %zu: gap %zu takes part", N, j);
                        NEAR(ev->impulse[j], ref.impulse[j], 1e-8, "limit N = %zu: impulse of gap %zu", N, j);
                    }
                }
            CHECK(impacts == 1, "limit N = %zu: one impact (%zu)", N, impacts);
            double ke = 0.0;
            for (size_t j = 0; j < N; j++) {
                NEAR(r.v_final[j], ref.v[j], 1e-9, "limit N = %zu: v_%zu against the chain", N, j);
                ke += 0.5 * r.v_final[j] * r.v_final[j];
            }
            NEAR(ke, 0.5, 1e-10, "limit N = %zu: kinetic energy kept", N);
            char what[64];
            snprintf(what, sizeof what, "limit N = %zu", N);
            check_momentum(&m, &r, 1e-12, what);
        }
        pl_solution_free(&r);
        pl_model_free(&m);
    }
}

/* Penalty (mu = 1e8) for N = 2 .. 7, for e = 0 (N = 3 .. 6) and e = 0.5 (N = 4) against the chain; the
 * limit solution too at e = 0 and 0.5; radius 0.1 (initial gaps of round-off size, not exactly 0) for N = 7. */
static void test_chain_outcomes(void)
{
    for (size_t N = 2; N <= 7; N++) {
        pl_model m;
        pl_solution r;
        pl_error err;
        chain_ref ref;
        chain(N, 0.0, &ref);
        if (!init(&m, N, 1.0, 1.0))
            continue;
        if (solve_penalty(&m, 1e8, 1e-10, 0.0, 0, &r, &err) != PL_OK)
            CHECK(0, "penalty N = %zu: %s", N, err.message);
        else
            for (size_t j = 0; j < N; j++)
                NEAR(r.v_final[j], ref.v[j], 1e-8, "penalty mu = 1e8, N = %zu: v_%zu against the chain", N, j);
        pl_solution_free(&r);
        pl_model_free(&m);
    }
    /* e = 0 (xi = 1): the balls still separate, unlike under Moreau's inelastic law (N = 2 excepted: its
     * critically damped gap closes only asymptotically, at the common velocity 1/2) */
    for (size_t N = 3; N <= 6; N++) {
        pl_model m;
        pl_solution r;
        pl_error err;
        chain_ref ref;
        chain(N, 1.0, &ref);
        for (size_t j = 0; j + 1 < N; j++)
            CHECK(ref.v[j] < ref.v[j + 1] - 1e-3, "N = %zu, e = 0 chain: v_%zu < v_%zu", N, j, j + 1);
        if (!init(&m, N, 0.0, 1.0))
            continue;
        if (solve_penalty(&m, 1e8, 1e-10, 0.0, 0, &r, &err) != PL_OK)
            CHECK(0, "penalty N = %zu, e = 0: %s", N, err.message);
        else
            for (size_t j = 0; j < N; j++)
                NEAR(r.v_final[j], ref.v[j], 5e-8, "penalty mu = 1e8, N = %zu, e = 0: v_%zu against the chain", N, j);
        pl_solution_free(&r);
        if (solve_limit(&m, 1e-12, 0.0, 0, &r, &err) != PL_OK)
            CHECK(0, "limit N = %zu, e = 0: %s", N, err.message);
        else
            for (size_t j = 0; j < N; j++)
                NEAR(r.v_final[j], ref.v[j], 1e-9, "limit N = %zu, e = 0: v_%zu against the chain", N, j);
        pl_solution_free(&r);
        pl_model_free(&m);
    }
    chain_ref ref;
    chain(4, pl_xi_from_restitution(0.5), &ref);
    pl_model m;
    if (init(&m, 4, 0.5, 2.0)) {
        pl_solution r;
        pl_error err;
        if (solve_penalty(&m, 1e8, 1e-10, 0.0, 0, &r, &err) != PL_OK)
            CHECK(0, "penalty e = 0.5: %s", err.message);
        else {
            for (size_t j = 0; j < 4; j++)
                /* 1.6e-8 at rtol 1e-10, 6e-10 at 1e-12: the damping force jumps at every entry */
                NEAR(r.v_final[j], ref.v[j], 5e-8, "penalty e = 0.5, N = 4: v_%zu against the damped chain", j);
            check_momentum(&m, &r, 1e-12, "penalty e = 0.5");
        }
        pl_solution_free(&r);
        if (solve_limit(&m, 1e-12, 0.0, 0, &r, &err) != PL_OK)
            CHECK(0, "limit e = 0.5: %s", err.message);
        else
            for (size_t j = 0; j < 4; j++)
                NEAR(r.v_final[j], ref.v[j], 1e-9, "limit e = 0.5, N = 4: v_%zu against the damped chain", j);
        pl_solution_free(&r);
        pl_model_free(&m);
    }
    chain(7, 0.0, &ref);
    pl_setting s[] = {{"N", 7.0}, {"r", 0.1}};
    pl_error err;
    if (pl_model_init(&m, &pl_case_newtons_cradle, s, 2, &err) == PL_OK) {
        pl_solution r;
        double q[NMAX], v[NMAX], worst = 0.0;
        pl_model_initial_state(&m, q, v);
        pl_gap *g = pl_gap_new(1, m.n, 0);
        for (size_t j = 1; j < m.m; j++) {
            pl_model_gap(&m, j, 0.0, q, g);
            worst = fmax(worst, fabs(g->g));
        }
        free(g);
        CHECK(worst > 0.0 && worst < 1e-15, "r = 0.1: resting gaps of round-off size (%g)", worst);
        if (solve_penalty(&m, 1e8, 1e-10, 0.0, 0, &r, &err) != PL_OK)
            CHECK(0, "penalty r = 0.1: %s", err.message);
        else
            for (size_t j = 0; j < 7; j++)
                NEAR(r.v_final[j], ref.v[j], 1e-6, "penalty r = 0.1, N = 7: v_%zu", j);
        pl_solution_free(&r);
        if (solve_limit(&m, 1e-12, 0.0, 0, &r, &err) != PL_OK)
            CHECK(0, "limit r = 0.1: %s", err.message);
        else
            for (size_t j = 0; j < 7; j++)
                NEAR(r.v_final[j], ref.v[j], 1e-9, "limit r = 0.1, N = 7: v_%zu", j);
        pl_solution_free(&r);
    } else
        CHECK(0, "r = 0.1: %s", err.message);
    pl_model_free(&m);
}

/* The limit solution of long damped chains (150 balls at e = 0.5; 150 and 300 at e = 0.9; 250 at e =
 * 0.45 to t = 50 and 400 at e = 0.5): the wave leaves contacts behind it at rest to round-off, which the
 * fast system switched on and off at one sigma until "the fast motion did not end by sigma = 10000.8"
 * (150 at e = 0.5) or "contact modes chatter" (400 at e = 0.5: rates of 1.5e-12, round-off that grows
 * with the chain); a free contact approaching at such a rate (-4e-12) held the exit until sigma_max
 * (250 at e = 0.45), and, let go, crossed G = 0 in the slow time ("constraint 157 violated" at t =
 * 33.7).  Each is one impact at t = 1 that keeps the momentum on every row and loses kinetic energy,
 * after which no two balls approach (v_j <= v_{j+1} to round-off): the fast motion ended, as (21)-(22)
 * of paper 004 ask. */
static void test_long_damped_chains(void)
{
    const struct {
        size_t N;
        double e, t_end; /* t_end 0: the case's */
    } chains[] = {{150, 0.5, 0.0}, {150, 0.9, 0.0}, {300, 0.9, 0.0}, {250, 0.45, 50.0}, {400, 0.5, 0.0}};
    for (size_t c = 0; c < sizeof chains / sizeof *chains; c++) {
        size_t N = chains[c].N;
        pl_model m;
        pl_solution r;
        pl_error err;
        if (!init(&m, N, chains[c].e, 1.0))
            continue;
        char what[64];
        snprintf(what, sizeof what, "limit N = %zu, e = %g", N, chains[c].e);
        if (solve_limit(&m, 1e-12, chains[c].t_end, 0, &r, &err) != PL_OK) {
            CHECK(0, "%s: %s", what, err.message);
        } else {
            size_t impacts = 0;
            for (size_t e = 0; e < r.nevents; e++)
                if (r.events[e].kind == PL_EVENT_IMPACT) {
                    impacts++;
                    NEAR(r.events[e].t, 1.0, 1e-12, "%s: impact time", what);
                }
            CHECK(impacts == 1, "%s: one impact (%zu)", what, impacts);
            double ke = 0.0, approach = 0.0;
            for (size_t j = 0; j < N; j++) {
                ke += 0.5 * r.v_final[j] * r.v_final[j];
                if (j + 1 < N)
                    approach = fmax(approach, r.v_final[j] - r.v_final[j + 1]);
            }
            CHECK(ke < 0.5 && ke > 0.0, "%s: kinetic energy lost (%.6g of 0.5)", what, ke);
            CHECK(approach <= 1e-12, "%s: no two balls approach after the impact (v_j - v_j+1 up to %.3g)", what,
                  approach);
            check_momentum(&m, &r, 1e-14 * (double)N, what); /* sums of N terms: round-off ~ N ulps */
            printf("%s: one impact, %ld fast steps, kinetic energy 0.5 -> %.6g\n", what, r.stats.fast_steps, ke);
        }
        pl_solution_free(&r);
        pl_model_free(&m);
    }
}

/* The chain's resting contacts touch at G_j = 0 exactly with no force.  A BDF step over the flight
 * before the impact must not take them for lift-offs (pen_lift_off_handover): handed to the
 * Runge-Kutta pair they lost their exit hysteresis, and once the impact's wave compressed them by
 * less than an ulp of q, G_j read 0 and a round-off departure of +2.2e-16 made every step a root of
 * G_j, ended ~2e-13 s on (N = 5, e = 0.4, mu = 1e6: 1.9 million steps, each restarted).  The cases
 * that stalled, at the default rtol, each against the damped chain (self-similar in mu) and within
 * a few times the steps of their neighbours (25 to 70).  Measured: 28 to 67 steps, v within 1.3e-8
 * of the chain (the damping force jumps at every entry, as in test_chain_outcomes). */
static void test_resting_contacts(void)
{
    const struct {
        size_t N;
        double e;
    } runs[] = {{5, 0.4}, {5, 0.5}, {9, 0.3}, {9, 0.4}, {9, 0.5}};
    for (size_t c = 0; c < sizeof runs / sizeof runs[0]; c++) {
        size_t N = runs[c].N;
        double e = runs[c].e;
        pl_model m;
        if (!init(&m, N, e, 1.0))
            continue;
        chain_ref ref;
        chain(N, pl_xi_from_restitution(e), &ref);
        pl_solve_opts o;
        pl_solution r;
        pl_error err;
        pl_solve_opts_init(&o, &pl_solver_penalty, &m, NAN);
        o.max_steps = 5000;
        pl_status st = pl_solve_opts_set(&o, &pl_solver_penalty, "mu", 1e6, &err);
        if (st == PL_OK)
            st = pl_solve(&pl_solver_penalty, &m, &o, &r, &err);
        else
            pl_solution_init(&r, &pl_solver_penalty, &m, o.t_end, NULL);
        CHECK(st == PL_OK && r.stats.steps <= 200 && r.stats.restarts <= 60,
              "N = %zu, e = %g, mu = 1e6: %ld steps, %ld restarts (%s)", N, e, r.stats.steps, r.stats.restarts,
              st == PL_OK ? "ok" : err.message);
        if (st == PL_OK)
            for (size_t j = 0; j < N; j++)
                NEAR(r.v_final[j], ref.v[j], 5e-8, "N = %zu, e = %g, mu = 1e6: v_%zu against the damped chain", N, e,
                     j);
        pl_solution_free(&r);
        pl_model_free(&m);
    }
}

/* The schemes give Moreau's law: Moreau-Jean at e = 1 and e = 0, Paoli and Maury (inelastic) at e = 0,
 * for N = 2 .. 6; momentum on every step; Moreau-Jean's e = 1 outcome keeps the kinetic energy. */
static void test_schemes(void)
{
    const pl_solver_type *schemes[] = {&pl_solver_moreau_jean, &pl_solver_paoli, &pl_solver_maury};
    const size_t Ns[] = {2, 3, 4, 5, 6};
    for (int c = 0; c < 5; c++)
        for (int s = 0; s < 3; s++)
            for (int el = 0; el < 2; el++) {
                double e = el ? 1.0 : 0.0;
                size_t N = Ns[c];
                if (e > 0.0 && s > 0)
                    continue; /* Paoli's and Maury's schemes are inelastic */
                pl_model m;
                pl_solution r;
                pl_error err;
                if (!init(&m, N, e, 1.0))
                    continue;
                if (solve_scheme(schemes[s], &m, 1e-3, 0.0, &r, &err) != PL_OK) {
                    CHECK(0, "%s N = %zu, e = %g: %s", schemes[s]->name, N, e, err.message);
                } else {
                    double ke = 0.0;
                    for (size_t j = 0; j < N; j++) {
                        NEAR(r.v_final[j], moreau(N, e, j), 1e-12, "%s N = %zu, e = %g: v_%zu, Moreau's law",
                             schemes[s]->name, N, e, j);
                        ke += 0.5 * r.v_final[j] * r.v_final[j];
                    }
                    if (e == 1.0)
                        NEAR(ke, 0.5, 1e-12, "%s N = %zu: Moreau's elastic law keeps the kinetic energy",
                             schemes[s]->name, N);
                    char what[64];
                    snprintf(what, sizeof what, "%s N = %zu, e = %g", schemes[s]->name, N, e);
                    check_momentum(&m, &r, 1e-11, what); /* Paoli's projections: 1.8e-12 */
                }
                pl_solution_free(&r);
                pl_model_free(&m);
            }
    /* moreau() itself, against the law computed another way: with every gap closed, the admissible
     * velocities are the cone T = {u_0 <= u_1 <= ... <= u_{N-1}}, and Moreau's law is
     * v+ = -e v- + (1 + e) proj_T(v-) (unit masses: the Euclidean projection, here by pooling adjacent
     * violators, no closed form), equivalent to the complementarity above: Gdot+ + e Gdot- =
     * (1 + e) Gdot(proj) >= 0, and the impulse (1 + e) (proj - v-) lies in the normal cone at proj. */
    for (size_t N = 2; N <= 6; N++)
        for (int k = 0; k < 3; k++) {
            double e = 0.5 * k, vm[NMAX] = {1.0}, proj[NMAX];
            isotonic(vm, N, proj);
            for (size_t j = 0; j < N; j++)
                NEAR(moreau(N, e, j), -e * vm[j] + (1.0 + e) * proj[j], 1e-15,
                     "Moreau's law, N = %zu, e = %g: v_%zu against the projection onto T", N, e, j);
        }
    /* The projection where it pools only some balls (above, the whole chain is one block), against
     * hand derivations: the cone's projection is the blocks' means where the blocks are ordered, and
     * then Moreau's law holds as complementarity at every contact j (between balls j and j + 1):
     * the impulse P_j = -(dv_0 + ... + dv_j) >= 0 (unit masses: dv = sum_j P_j (e_{j+1} - e_j)), the
     * gap rate U_j = Gdot_j+ + e Gdot_j- >= 0, and P_j U_j = 0.
     *   (1, 0, 2): balls 0, 1 pool to 1/2 and 2 stays: (1/2, 1/2, 2);
     *   (1, 0, 2, 1.5): (1/2, 1/2) and (7/4, 7/4);
     *   (3, 1, 2, 0, 5, 6): 3, 1 pool to 2, which with 2 stays 2 ((3 + 1 + 2)/3), with 0 drops to 3/2
     *     ((3 + 1 + 2 + 0)/4); 5 and 6 stay: (3/2, 3/2, 3/2, 3/2, 5, 6). */
    const struct {
        size_t n;
        double v[6], proj[6];
    } partial[] = {
        {3, {1.0, 0.0, 2.0}, {0.5, 0.5, 2.0}},
        {4, {1.0, 0.0, 2.0, 1.5}, {0.5, 0.5, 1.75, 1.75}},
        {6, {3.0, 1.0, 2.0, 0.0, 5.0, 6.0}, {1.5, 1.5, 1.5, 1.5, 5.0, 6.0}},
    };
    for (size_t c = 0; c < sizeof partial / sizeof partial[0]; c++) {
        size_t n = partial[c].n;
        double proj[NMAX];
        isotonic(partial[c].v, n, proj);
        for (size_t j = 0; j < n; j++)
            NEAR(proj[j], partial[c].proj[j], 1e-15, "partial pooling %zu: component %zu of the projection", c, j);
        for (int k = 0; k < 3; k++) {
            double e = 0.5 * k, vp[NMAX], P = 0.0;
            for (size_t j = 0; j < n; j++)
                vp[j] = -e * partial[c].v[j] + (1.0 + e) * proj[j];
            for (size_t j = 0; j + 1 < n; j++) {
                P -= vp[j] - partial[c].v[j];
                double U = (vp[j + 1] - vp[j]) + e * (partial[c].v[j + 1] - partial[c].v[j]);
                CHECK(P >= -1e-15 && U >= -1e-15 && fabs(P * U) <= 1e-15,
                      "partial pooling %zu, e = %g, contact %zu: P = %g >= 0, U = %g >= 0, P U = 0", c, e, j, P, U);
            }
            P -= vp[n - 1] - partial[c].v[n - 1];
            NEAR(P, 0.0, 1e-15, "partial pooling %zu, e = %g: momentum (no impulse on the last ball's far side)", c, e);
        }
    }
}

/* The default t-end 3: the last gap opens at 1 + S_last/sqrt(k mu), so at the default sweep's smallest
 * mu = 1e2 (k = 1) every ball has separated by t = 3 up to N = 12 (S_last < 20), not at N = 13. */
static void test_t_end(void)
{
    chain_ref ref;
    chain(12, 0.0, &ref);
    CHECK(ref.exit[10] < 20.0, "N = 12: last exit at S = %g < 20", ref.exit[10]);
    pl_model m;
    if (!init(&m, 12, 1.0, 1.0))
        return;
    CHECK(m.type->t_end == 3.0, "default t-end 3");
    pl_solution r;
    pl_error err;
    if (solve_penalty(&m, 1e2, 1e-10, 0.0, 0, &r, &err) != PL_OK)
        CHECK(0, "penalty N = 12, mu = 1e2: %s", err.message);
    else {
        CHECK(r.nepisodes == 11, "N = 12, mu = 1e2: one episode per gap (%zu)", r.nepisodes);
        for (size_t e = 0; e < r.nepisodes; e++) {
            size_t j = r.episodes[e].constraint;
            NEAR(r.episodes[e].t_out, 1.0 + ref.exit[j] / 10.0, 1e-7, "N = 12, mu = 1e2: gap %zu opens at 1 + S_j/10",
                 j);
        }
        for (size_t j = 0; j < 12; j++)
            NEAR(r.v_final[j], ref.v[j], 1e-7, "N = 12, mu = 1e2: v_%zu at t = 3 against the chain", j);
    }
    pl_solution_free(&r);
    pl_model_free(&m);
    chain(13, 0.0, &ref);
    CHECK(ref.exit[11] > 20.0, "N = 13: last exit at S = %g > 20", ref.exit[11]);
}

/* The default sweep (mu = 1e2 ... 1e10) through the library: no failure; the distance to the limit
 * solution is the chain's sup |X - v S| times V/omega (the penalty's lag, self-similar); the first
 * impact's scaled penetration is the chain's max(-g_0).  The first impact is the whole compression
 * wave (the contacts of balls 1 and 2, at rest since t = 0, end within it): its restitution is the
 * chain's final rate of gap 0, v_1 - v_0, as the limit's jump, not gap 0's rate at its own first
 * exit while the wave still runs (that compared two moments of the impact, 0.278 apart at every mu,
 * and was fitted as a rate 0.000 +- 0.000 that "converges"); its velocities after are the chain's,
 * the limit's, to the integration's accuracy at every mu. */
static void test_sweep(void)
{
    chain_ref ref;
    chain(3, 0.0, &ref);
    double mu[9];
    for (int k = 0; k < 9; k++)
        mu[k] = pow(10.0, 2 + k);
    pl_model m;
    if (!init(&m, 3, 1.0, 1.0))
        return;
    pl_sweep_opts o = {.solver = &pl_solver_penalty, .jobs = 2, .with_limit = 1};
    pl_solve_opts_init(&o.base, &pl_solver_penalty, &m, NAN);
    pl_sweep sw;
    pl_error err;
    if (pl_sweep_run(&m, mu, 9, &o, &sw, &err) != PL_OK) {
        CHECK(0, "default sweep: %s", err.message);
        pl_model_free(&m);
        return;
    }
    CHECK(sw.failures == 0, "default sweep: no failures (%zu)", sw.failures);
    for (int k = 0; k < 9; k++) {
        double omega = sqrt(mu[k]);
        NEAR(sw.q[PL_Q_LIMIT_SUP_Q].values[k] * omega, ref.sup, 2e-3 * ref.sup, "mu = %g: omega sup |q - q_lim|",
             mu[k]);
        NEAR(sw.q[PL_Q_SCALED_PENETRATION_FIRST].values[k], ref.pen0, 1e-6, "mu = %g: sqrt(mu) max(-G_0)", mu[k]);
        /* gap 0 leaves at the rate g_0' of its first exit, then slows while gap 1 still brakes ball 1:
         * the impact is over when the wave is */
        NEAR(sw.q[PL_Q_RESTITUTION_FIRST].values[k], ref.v[1] - ref.v[0], 1e-7,
             "mu = %g: restitution of the first impact, after the wave", mu[k]);
        CHECK(fabs(ref.rate0_first - (ref.v[1] - ref.v[0])) > 0.1, "gap 0's exit rate %g is not its final %g",
              ref.rate0_first, ref.v[1] - ref.v[0]);
        CHECK(sw.q[PL_Q_IMPACT_VELOCITY_ERROR].values[k] < 1e-6, "mu = %g: velocities after the first impact: %.3g",
              mu[k], sw.q[PL_Q_IMPACT_VELOCITY_ERROR].values[k]);
        NEAR(sw.q[PL_Q_LIFT_OFF_FIRST].values[k], 1.0 + ref.exit[1] / omega, 1e-7 / omega * 10.0,
             "mu = %g: gap 1's contact (from t = 0) ends at 1 + S_1/omega", mu[k]);
    }
    CHECK(fabs(sw.q[PL_Q_LIMIT_SUP_Q].conv.rate - 0.5) < 1e-3, "sup |q - q_lim| ~ mu^-1/2 (rate %.4f)",
          sw.q[PL_Q_LIMIT_SUP_Q].conv.rate);
    /* errors at the integration's accuracy: no rate, never "converges" */
    const pl_sweep_quantity *at_accuracy[] = {&sw.q[PL_Q_RESTITUTION_FIRST], &sw.q[PL_Q_IMPACT_VELOCITY_ERROR]};
    for (size_t q = 0; q < 2; q++)
        CHECK(isnan(at_accuracy[q]->conv.rate) && at_accuracy[q]->conv.converges != 1, "%s: no rate (%.3g), converges %d",
              at_accuracy[q]->name, at_accuracy[q]->conv.rate, at_accuracy[q]->conv.converges);
    pl_sweep_free(&sw);
    pl_model_free(&m);
}

/* The default sweep and compare through the program: exit 0, every solution ok (compare: the limit,
 * 3 penalized runs and 3 of Moreau-Jean at e = 1, Paoli's and Maury's being inelastic; 12 solutions
 * at e = 0). */
/* A sweep's episodes.csv above PL_JUMP_DENSE_MAX_DOFS (102 balls): velocity_jump_dof1..2 are the two
 * balls of the episode's contact c, c and c + 1 (1-based), and velocity_jump_at1 of contact 1 is ball 1's
 * jump, -P (it feels that contact alone; unit mass, P the episode's impulse). */
static void test_sweep_jumps(void)
{
    int rc = run("sweep newtons_cradle --set N=102 --mu 1e5,1e6 --t-end 1.2 --out jumps --no-plots --quiet");
    CHECK(rc == 0, "sweep of 102 balls exits 0 (got %d)", rc);
    char *csv = slurp("jumps/episodes.csv");
    char *line = csv ? strtok(csv, "\n") : NULL;
    int col_c = -1, col_d1 = -1, col_d2 = -1, col_at1 = -1, col_p = -1, ncol = 0;
    for (char *h = line; h && *h; ncol++) {
        size_t len = strcspn(h, ",");
        const char *names[] = {"constraint", "velocity_jump_dof1", "velocity_jump_dof2", "velocity_jump_at1", "impulse"};
        int *cols[] = {&col_c, &col_d1, &col_d2, &col_at1, &col_p};
        for (int k = 0; k < 5; k++)
            if (strlen(names[k]) == len && strncmp(h, names[k], len) == 0)
                *cols[k] = ncol;
        h += len + (h[len] == ',');
    }
    CHECK(col_c >= 0 && col_d1 >= 0 && col_d2 >= 0 && col_at1 >= 0 && col_p >= 0 && !strstr(csv ? csv : "", "velocity_jump102"),
          "episodes.csv of 102 balls: the support's columns, not 102 jump columns");
    int rows = 0, bad = 0, firsts = 0;
    for (line = csv ? strtok(NULL, "\n") : NULL; line && col_p >= 0; line = strtok(NULL, "\n")) {
        double v[512];
        int k = 0;
        for (char *f = line; k < 512 && f;) {
            v[k++] = *f == ',' || *f == '\0' ? NAN : strtod(f, NULL);
            f = strchr(f, ',');
            f = f ? f + 1 : NULL;
        }
        if (k <= col_p || k <= col_at1)
            continue;
        rows++;
        bad += v[col_d1] != v[col_c] || v[col_d2] != v[col_c] + 1.0;
        if (v[col_c] == 1.0) {
            firsts++;
            bad += fabs(v[col_at1] + v[col_p]) > 1e-12 * fabs(v[col_p]);
        }
    }
    CHECK(rows >= 100 && firsts == 2 && bad == 0,
          "episodes.csv: dofs c and c + 1 of contact c, contact 1's jump of ball 1 is -P (%d rows, %d of contact 1, %d "
          "wrong)", rows, firsts, bad);
    free(csv);
}

static void test_cli(void)
{
    if (!penlim)
        return;
    int rc = run("sweep newtons_cradle --out sweep --no-plots --quiet --jobs 2");
    CHECK(rc == 0, "default sweep exits 0 (got %d)", rc);
    char *json = slurp("sweep/sweep.json");
    CHECK(json && strstr(json, "\"failures\": 0"), "default sweep: no failures");
    free(json);
    const char *args[] = {"compare newtons_cradle --out cmp1 --no-plots --quiet",
                          "compare newtons_cradle --set e=0 --out cmp0 --no-plots --quiet"};
    const char *files[] = {"cmp1/compare.csv", "cmp0/compare.csv"};
    const int rows_expected[] = {7, 13};
    for (int c = 0; c < 2; c++) {
        rc = run(args[c]);
        CHECK(rc == 0, "%s exits 0 (got %d)", args[c], rc);
        char *csv = slurp(files[c]);
        int rows = 0, ok = 0;
        for (const char *p = csv; p && (p = strchr(p, '\n')) != NULL && p[1]; p++) {
            rows++;
            const char *okp = strstr(p, ",ok,"), *eol = strchr(p + 1, '\n');
            ok += okp && (!eol || okp < eol);
        }
        CHECK(rows == rows_expected[c] && ok == rows, "%s: %d solutions, all ok (%d rows, %d ok)", args[c],
              rows_expected[c], rows, ok);
        free(csv);
    }
    test_sweep_jumps();
    /* 120 balls' figures: a panel per coordinate made trajectories.png 50000 pixels tall, which Cairo
     * refuses; the figures draw the first coordinates and say so */
    rc = run("sweep newtons_cradle --set N=120 --mu 1e4,1e5 --t-end 0.3 --out figures120 --quiet");
    char *log = slurp("figures120/gnuplot.log");
    CHECK(rc == 0 && exists("figures120/trajectories.png") && exists("figures120/trajectories_s.png") && log &&
              !strstr(log, "Cairo"),
          "a sweep of 120 balls draws its trajectories (exit %d; gnuplot.log: %.200s)", rc, log ? log : "(none)");
    free(log);
    json = slurp("figures120/trajectories.gp");
    CHECK(json && strstr(json, "shown_note"), "the trajectories' title names the coordinates drawn");
    free(json);
}

/* ---- the Hertz chain ------------------------------------------------------------------------------ */

/* Under Hertz (physical units: the force mu k delta^(3/2) between neighbours, whatever their masses) the
 * unit balls obey x_j'' = F_(j-1) - F_j, F_j = mu k max(0, x_j - x_(j+1))^(3/2) (x_j from ball j's position
 * at t = 1), from x = 0, x' = (V, 0, ..., 0).  With x = L X, t - 1 = T S, L = V T, T = (mu k)^(-2/5)
 * V^(-1/5) it is X'' = -X^(3/2)-differences, free of mu, k and V: the outgoing velocities are the same at
 * every mu, and are the limit.  Integrated here with GSL's rk8pd (tolerances 1e-13) to S = 60, long after
 * the last contact (every gap open and opening by S = 12). */
static int hertz_chain_rhs(double t, const double *y, double *dy, void *params)
{
    (void)t;
    size_t n = *(const size_t *)params;
    for (size_t j = 0; j < n; j++)
        dy[j] = y[n + j], dy[n + j] = 0.0;
    for (size_t j = 0; j + 1 < n; j++) {
        double delta = fmax(0.0, y[j] - y[j + 1]), F = delta * sqrt(delta);
        dy[n + j] -= F;
        dy[n + j + 1] += F;
    }
    return GSL_SUCCESS;
}

static void hertz_chain(size_t n, double *v)
{
    double y[2 * NMAX] = {0}, S = 0.0;
    y[n] = 1.0;
    gsl_odeiv2_system sys = {hertz_chain_rhs, NULL, 2 * n, &n};
    gsl_odeiv2_driver *d = gsl_odeiv2_driver_alloc_y_new(&sys, gsl_odeiv2_step_rk8pd, 1e-3, 1e-13, 1e-13);
    CHECK(d && gsl_odeiv2_driver_apply(d, &S, 60.0, y) == GSL_SUCCESS, "the Hertz chain's integration");
    gsl_odeiv2_driver_free(d);
    for (size_t j = 0; j < n; j++)
        v[j] = y[n + j];
    for (size_t j = 0; j + 1 < n; j++)
        CHECK(y[j + 1] > y[j] && v[j + 1] >= v[j], "the Hertz chain has separated: gap %zu", j);
}

/* Newton's cradle (N = 3, e = 1) under Hertz: the penalty (mu = 1e6, 1e9; k = 1, 4) and the limit solution
 * give the Hertz chain's velocities, which differ from Kelvin-Voigt's chain (-0.1303, 0.1502, 0.9800) and
 * from Moreau's law (-1/3, 2/3, 2/3); momentum and energy are kept by all three. */
static void test_hertz(void)
{
    double ref[NMAX], kv_ref[3] = {-0.1303, 0.1502, 0.9800};
    hertz_chain(3, ref);
    double p = 0.0, ke = 0.0, diff_kv = 0.0, diff_moreau = 0.0;
    for (size_t j = 0; j < 3; j++) {
        p += ref[j];
        ke += 0.5 * ref[j] * ref[j];
        diff_kv = fmax(diff_kv, fabs(ref[j] - kv_ref[j]));
        diff_moreau = fmax(diff_moreau, fabs(ref[j] - moreau(3, 1.0, j)));
    }
    NEAR(p, 1.0, 1e-12, "the Hertz chain's momentum");
    NEAR(ke, 0.5, 1e-11, "the Hertz chain's kinetic energy");
    CHECK(diff_kv > 0.05 && diff_moreau > 0.3, "Hertz's outcome differs from Kelvin-Voigt's (%g) and Moreau's (%g)",
          diff_kv, diff_moreau);
    for (int run = 0; run < 5; run++) {
        double k = run < 4 && run % 2 ? 4.0 : 1.0, mu = run < 2 ? 1e6 : 1e9;
        pl_setting set[] = {{"N", 3.0}, {"k", k}};
        pl_model m;
        pl_solution r;
        pl_error err;
        CHECK(pl_model_init_law(&m, &pl_case_newtons_cradle, &pl_law_hertz, set, 2, &err) == PL_OK, "%s", err.message);
        pl_status st = run < 4 ? solve_penalty(&m, mu, 1e-10, 0.0, 0, &r, &err) : solve_limit(&m, 1e-12, 0.0, 0, &r, &err);
        CHECK(st == PL_OK, "hertz cradle %s: %s", run < 4 ? "penalty" : "limit", err.message);
        for (size_t j = 0; st == PL_OK && j < 3; j++)
            NEAR(r.v_final[j], ref[j], 1e-8, "hertz cradle %s mu = %g k = %g: v_%zu against the chain",
                 run < 4 ? "penalty" : "limit", run < 4 ? mu : INFINITY, k, j);
        pl_solution_free(&r);
        pl_model_free(&m);
    }
}

/* What a penalized run of N balls reports at its end (the many-balls test): status, steps, momentum
 * sum v, energy (kinetic and the springs' mu k G^2/4 of the contacts pressed: m_j = 1/2), and the
 * first FRONT balls' q and v. */
#define FRONT 24
typedef struct {
    int status;
    long steps;
    double momentum, energy, q[FRONT], v[FRONT];
} balls_end;

static balls_end run_balls(size_t N, double mu, double t_end)
{
    balls_end out = {.status = -1};
    pl_model m;
    pl_error err;
    pl_setting set[] = {{"N", (double)N}};
    if ((out.status = pl_model_init(&m, &pl_case_newtons_cradle, set, 1, &err)) != PL_OK) {
        pl_model_free(&m);
        return out;
    }
    pl_solution sol;
    out.status = solve_penalty(&m, mu, 1e-8, t_end, 0, &sol, &err);
    const double *qv = out.status == PL_OK && sol.traj.nrows ? pl_table_row(&sol.traj, sol.traj.nrows - 1) + pl_col_q(N, m.m)
                                                             : NULL;
    if (qv) {
        double rad = pl_model_param(&m, "r"), k = pl_model_param(&m, "k");
        out.steps = sol.stats.steps;
        out.momentum = out.energy = 0.0;
        for (size_t j = 0; j < N; j++) {
            double v = qv[N + j], g = j + 1 < N ? qv[j + 1] - qv[j] - 2.0 * rad : 0.0;
            out.momentum += v;
            out.energy += 0.5 * v * v + (g < 0.0 ? 0.25 * k * mu * g * g : 0.0);
            if (j < FRONT)
                out.q[j] = qv[j], out.v[j] = qv[N + j];
        }
    }
    pl_solution_free(&sol);
    pl_model_free(&m);
    return out;
}

/* Memory linear in the number of balls: 5000 balls (n = 5000, M = I, supports of 2) solved in a child
 * process under an address-space limit of 1 GB above what the test holds.  A dense run needs M^-1 and
 * some twenty-two n x n arrays, 188 n^2 = 4.7 GB: refused or out of memory; a sparse one one n x n array
 * (the check of the case's Jacobians at creation, 0.2 GB) and some kB a ball.  To t = 1.05, 0.05 after
 * ball 0 reaches the chain (S = omega 0.05 = 50 at mu = 1e6): the physics of the first balls is that of
 * a chain of 200 (the compression front travels at sqrt(1/2) balls per unit of S, about 35 balls by
 * then, and the chain's response decays faster than exponentially ahead of it, so neither the far end of
 * 200 nor that of 5000 is felt), momentum stays V = 1 (each contact pushes its two balls by opposite
 * forces, so sum v' = 0 up to round-off), and with e = 1 (xi = 0, the springs conservative) the energy
 * V^2/2 to the integration's error (rtol 1e-8 over about 100 steps: 1e-6 of it is generous; 1.1e-8 found,
 * and the first balls as in the chain of 200 to 4.5e-9 in v, 1.6e-10 in q). */
static void test_many_balls(void)
{
#if defined(__SANITIZE_ADDRESS__)
    printf("many balls under an address-space limit: skipped (AddressSanitizer reserves more)\n");
    return;
#endif
    const size_t N = 5000;
    const double mu = 1e6, t_end = 1.05;
    balls_end ref = run_balls(200, mu, t_end), big = {.status = -1};
    CHECK(ref.status == PL_OK, "200 balls solve (%d)", ref.status);
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    int have = f && fscanf(f, "%ld %ld", &pages, &resident) == 2;
    if (f)
        fclose(f);
    CHECK(have, "the test's address space read");
    int fd[2];
    if (!have || pipe(fd) != 0)
        return;
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        close(fd[0]);
        struct rlimit lim = {.rlim_cur = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (1ul << 30)};
        lim.rlim_max = lim.rlim_cur;
        balls_end r = {.status = 99};
        if (setrlimit(RLIMIT_AS, &lim) == 0)
            r = run_balls(N, mu, t_end);
        ssize_t w = write(fd[1], &r, sizeof r);
        _exit(w == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fd[1]);
    ssize_t got = child > 0 ? read(fd[0], &big, sizeof big) : -1;
    close(fd[0]);
    int wstatus = 0;
    if (child > 0)
        waitpid(child, &wstatus, 0);
    CHECK(got == (ssize_t)sizeof big && big.status == PL_OK,
          "%zu balls solve within 1 GB of address space (status %d: 4 out of memory, 2 refused)", N, big.status);
    if (big.status != PL_OK || ref.status != PL_OK)
        return;
    printf("%zu balls: %ld steps (200 balls: %ld), momentum - V %.3g, energy - V^2/2 %.3g\n", N, big.steps, ref.steps,
           big.momentum - 1.0, big.energy - 0.5);
    NEAR(big.momentum, 1.0, 1e-12, "%zu balls: momentum sum v = V", N);
    NEAR(big.energy, 0.5, 1e-6 * 0.5, "%zu balls: energy V^2/2 (kinetic and the springs')", N);
    double dq = 0.0, dv = 0.0, vmax = 0.0;
    for (int j = 0; j < FRONT; j++) {
        dq = fmax(dq, fabs(big.q[j] - ref.q[j]));
        dv = fmax(dv, fabs(big.v[j] - ref.v[j]));
        vmax = fmax(vmax, fabs(ref.v[j]));
    }
    printf("the first %d balls against 200: v to %.3g, q to %.3g\n", FRONT, dv, dq);
    CHECK(vmax > 0.1 && dv <= 1e-7 && dq <= 1e-9,
          "the first %d balls of %zu move as those of 200 (v to %.3g, q to %.3g; the front's speeds up to %.3g)", FRONT, N,
          dv, dq, vmax);
}

/* ---- the velocity jumps of many balls ------------------------------------------------------------- */

/* The summary of the cradle of N balls (mu = 1e6, its t-end, e = 1) as JSON text: its length, and its
 * episodes through check(). */
static size_t cradle_summary(size_t N, void (*check)(size_t N, json_t *episodes), size_t *episodes)
{
    pl_model m;
    pl_error err;
    pl_setting set[] = {{"N", (double)N}};
    size_t len = 0;
    *episodes = 0;
    if (pl_model_init(&m, &pl_case_newtons_cradle, set, 1, &err) != PL_OK) {
        CHECK(0, "cradle of %zu balls: %s", N, err.message);
        pl_model_free(&m);
        return 0;
    }
    pl_solution sol;
    pl_analysis a;
    pl_status s = solve_penalty(&m, 1e6, 1e-8, m.type->t_end, 0, &sol, &err);
    CHECK(s == PL_OK, "cradle of %zu balls solves (%s)", N, s == PL_OK ? "" : err.message);
    if (s == PL_OK && (s = pl_analyze(&m, &sol, &a, &err)) == PL_OK) {
        json_t *o = pl_solution_summary_json(&m, &sol, &a);
        char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
        len = text ? strlen(text) : 0;
        json_t *eps = o ? json_object_get(o, "episodes") : NULL;
        *episodes = json_array_size(eps);
        if (eps && check)
            check(N, eps);
        free(text);
        json_decref(o);
        pl_analysis_free(&a);
    }
    CHECK(s == PL_OK && len > 0, "cradle of %zu balls: analysed and summarised", N);
    pl_solution_free(&sol);
    pl_model_free(&m);
    return len;
}

/* Every episode's jump over its constraint's support: gap c (0-based) touches balls c and c + 1, so
 * velocity_jump_dofs = [c + 1, c + 2], and, exactly (G_c = q_(c+1) - q_c - 2r is linear), the jump of
 * the gap rate velocity_jump_normal = dv_(c+1) - dv_c.  Ball 0 feels contact 0 alone and ball N - 1
 * contact N - 2 alone, so over their episodes Newton's law integrates to m dv = -P and +P (m = 1, P the
 * episode's impulse, the integral of its force): the first impact's jump of ball 0 is -P_0, the last
 * contact's jump of ball N - 1 is +P_(N-2), whatever mu and the chain's wave. */
static void check_sparse_jumps(size_t N, json_t *episodes)
{
    size_t bad_dofs = 0, bad_normal = 0, ends = 0;
    size_t k;
    json_t *ep;
    json_array_foreach(episodes, k, ep) {
        size_t c = (size_t)json_integer_value(json_object_get(ep, "constraint")) - 1;
        json_t *dofs = json_object_get(ep, "velocity_jump_dofs"), *dv = json_object_get(ep, "velocity_jump");
        if (json_array_size(dofs) != 2 || json_array_size(dv) != 2 ||
            json_integer_value(json_array_get(dofs, 0)) != (json_int_t)c + 1 ||
            json_integer_value(json_array_get(dofs, 1)) != (json_int_t)c + 2) {
            bad_dofs++;
            continue;
        }
        double d0 = json_number_value(json_array_get(dv, 0)), d1 = json_number_value(json_array_get(dv, 1));
        double normal = json_number_value(json_object_get(ep, "velocity_jump_normal"));
        double P = json_number_value(json_object_get(ep, "impulse"));
        bad_normal += !(fabs((d1 - d0) - normal) <= 1e-12 * (fabs(d0) + fabs(d1)));
        if (c == 0) {
            NEAR(d0, -P, 1e-9 * fabs(P), "%zu balls: ball 1's jump over contact 1 is -P = %.17g", N, -P);
            CHECK(P > 0.5, "%zu balls: contact 1's impulse %.17g takes ball 1's V = 1 (more than half of it)", N, P);
            ends++;
        }
        if (c == N - 2) {
            NEAR(d1, P, 1e-9 * fabs(P), "%zu balls: ball %zu's jump over contact %zu is +P = %.17g", N, N, N - 1, P);
            ends++;
        }
    }
    CHECK(bad_dofs == 0, "%zu balls: every episode's jump is over its constraint's two balls (%zu are not)", N,
          bad_dofs);
    CHECK(bad_normal == 0, "%zu balls: velocity_jump_normal = dv_(c+1) - dv_c on every episode (%zu not)", N,
          bad_normal);
    CHECK(ends >= 2, "%zu balls: the episodes of both end contacts checked (%zu)", N, ends);
}

/* Up to PL_JUMP_DENSE_MAX_DOFS dofs the jump is the whole vector, as before supports existed. */
static void check_dense_jumps(size_t N, json_t *episodes)
{
    size_t bad = 0, k;
    json_t *ep;
    json_array_foreach(episodes, k, ep)
        bad += json_object_get(ep, "velocity_jump_dofs") != NULL ||
               json_array_size(json_object_get(ep, "velocity_jump")) != N;
    CHECK(bad == 0, "%zu balls: every velocity_jump has the %zu values of v (%zu episodes not)", N, N, bad);
}

/* The summary grows linearly with the balls: some N episodes (each contact of the chain is one) of a
 * size independent of N, where n values each made it quadratic (1.3 GB at N = 10000).  From 150 to 300
 * balls the bytes per episode stay within 10% (n values each would double them). */
static void test_jump_size(void)
{
    size_t e100, e150, e300;
    cradle_summary(PL_JUMP_DENSE_MAX_DOFS, check_dense_jumps, &e100);
    size_t s150 = cradle_summary(150, check_sparse_jumps, &e150), s300 = cradle_summary(300, check_sparse_jumps, &e300);
    if (!e150 || !e300)
        return;
    double b150 = (double)s150 / (double)e150, b300 = (double)s300 / (double)e300;
    printf("summary.json: %zu bytes for 150 balls (%zu episodes), %zu for 300 (%zu): %.0f and %.0f bytes an episode\n",
           s150, e150, s300, e300, b150, b300);
    CHECK(e300 >= 2 * e150 - 2 && b300 <= 1.1 * b150,
          "summary.json linear in the balls: %.0f bytes an episode at 300 balls against %.0f at 150", b300, b150);
}

/* A cradle of 120 balls at e = 0.5 (above PL_JUMP_DENSE_MAX_DOFS): most of its penalized impacts have
 * several participants; each impact's list must be strictly increasing (pl_event_participant and
 * pl_event_impulse search it by bisection) and every listed constraint found with its own impulse. */
static void test_impact_participants(void)
{
    pl_model m;
    pl_error err;
    pl_setting set[] = {{"N", 120.0}, {"e", 0.5}};
    if (pl_model_init(&m, &pl_case_newtons_cradle, set, 2, &err) != PL_OK) {
        CHECK(0, "cradle of 120 balls: %s", err.message);
        pl_model_free(&m);
        return;
    }
    pl_solution sol;
    pl_analysis a;
    if (solve_penalty(&m, 1e6, 1e-8, m.type->t_end, 0, &sol, &err) != PL_OK || pl_analyze(&m, &sol, &a, &err) != PL_OK) {
        CHECK(0, "cradle of 120 balls at e = 0.5: %s", err.message);
        pl_solution_free(&sol);
        pl_model_free(&m);
        return;
    }
    size_t several = 0, bad = 0;
    for (size_t k = 0; k < a.impacts; k++) {
        const pl_event *e = &a.impact[k].event;
        int ok = e->nparts >= 1 && pl_event_participant(e, e->constraint);
        for (size_t p = 0; ok && p < e->nparts; p++)
            ok = (p == 0 || e->part[p - 1] < e->part[p]) && pl_event_participant(e, e->part[p]) &&
                 pl_event_impulse(e, e->part[p]) == e->part_impulse[p];
        bad += !ok;
        several += e->nparts >= 2;
    }
    CHECK(several >= 10 && bad == 0,
          "cradle of 120 at e = 0.5: %zu of %zu impacts with several participants, each list increasing and every "
          "participant found with its impulse (%zu not)",
          several, a.impacts, bad);
    pl_analysis_free(&a);
    pl_solution_free(&sol);
    pl_model_free(&m);
}

/* summary.json's contact_law: from 100 constraints, one object per run of consecutive constraints under
 * one law with the same parameters (`constraints`: [first, last]); below, one per constraint. */
static void test_contact_law_runs(void)
{
    pl_model m;
    pl_error err;
    pl_setting many[] = {{"N", 130.0}}, few[] = {{"N", 99.0}};
    if (pl_model_init(&m, &pl_case_newtons_cradle, many, 1, &err) != PL_OK) {
        CHECK(0, "cradle of 130 balls: %s", err.message);
        pl_model_free(&m);
        return;
    }
    json_t *a = pl_contact_law_json(&m);
    json_t *runs = a ? json_array_get(a, 0) : NULL;
    CHECK(json_array_size(a) == 1 && json_integer_value(json_array_get(json_object_get(runs, "constraints"), 0)) == 1 &&
              json_integer_value(json_array_get(json_object_get(runs, "constraints"), 1)) == 129 &&
              json_real_value(json_object_get(runs, "e")) == 1.0 && !json_object_get(runs, "constraint"),
          "129 contacts under one law: one object, constraints [1, 129] (%zu objects)", json_array_size(a));
    json_decref(a);
    m.law[49].p[0] = m.law[50].p[0] = 0.5; /* constraints 50 and 51 (1-based) under another restitution */
    a = pl_contact_law_json(&m);
    const json_int_t expect[3][2] = {{1, 49}, {50, 51}, {52, 129}};
    int ok = json_array_size(a) == 3;
    for (size_t k = 0; ok && k < 3; k++) {
        json_t *c = json_object_get(json_array_get(a, k), "constraints");
        ok = json_integer_value(json_array_get(c, 0)) == expect[k][0] &&
             json_integer_value(json_array_get(c, 1)) == expect[k][1] &&
             json_real_value(json_object_get(json_array_get(a, k), "e")) == (k == 1 ? 0.5 : 1.0);
    }
    CHECK(ok, "a run broken where the parameters differ: [1, 49], [50, 51] at e = 0.5, [52, 129] (%zu objects)",
          json_array_size(a));
    json_decref(a);
    pl_model_free(&m);
    if (pl_model_init(&m, &pl_case_newtons_cradle, few, 1, &err) != PL_OK) {
        CHECK(0, "cradle of 99 balls: %s", err.message);
        pl_model_free(&m);
        return;
    }
    a = pl_contact_law_json(&m);
    CHECK(json_array_size(a) == 98 && json_integer_value(json_object_get(json_array_get(a, 97), "constraint")) == 98,
          "98 contacts: one object per constraint, as small models write (%zu)", json_array_size(a));
    json_decref(a);
    pl_model_free(&m);
}

int main(int argc, char **argv)
{
    check_init();
    test_model();
    test_reference();
    test_penalty();
    test_limit();
    test_chain_outcomes();
    test_resting_contacts();
    test_long_damped_chains();
    test_schemes();
    test_t_end();
    test_sweep();
    test_hertz();
    test_many_balls();
    test_jump_size();
    test_contact_law_runs();
    test_impact_participants();
    if (argc > 1) {
        penlim = argv[1];
        snprintf(dir, sizeof dir, "/tmp/penlim-cradle-XXXXXX");
        if (!mkdtemp(dir)) {
            CHECK(0, "scratch directory");
            penlim = NULL;
        }
        test_cli();
        if (penlim) {
            char cmd[512];
            snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
            CHECK(system(cmd) == 0, "remove %s", dir);
        }
    }
    return check_finish("test_newtons_cradle");
}
