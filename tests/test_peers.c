/* The peers of bench/bench_peers (bench/peer_system.c, bench/peer_solvers.c): their right-hand
 * sides and their contact handling, which the benchmark's ratios rest on.
 *
 * 1. The hand-written systems against the model-API system of the same case at parameters no other
 *    test uses: the same vector field, gaps and gap rates (to round-off), and the hand-written
 *    Jacobian against the model-API form's forward differences.
 * 2. Every peer, in both forms, against a closed form: the ball without gravity (g = 0) falling at
 *    v0 = -5 from h0 = 0.6 hits at t = 0.12; in contact q'' = -k (mu q + 2 xi sqrt(mu/k) q') is a
 *    damped oscillator that returns to q = 0 after half a damped period pi/(w sqrt(1 - xi^2)),
 *    w = sqrt(k mu), at the speed 5 e, e = exp(-pi xi/sqrt(1 - xi^2)) (Kelvin-Voigt's restitution);
 *    it then flies at 5 e to t_end = 1. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "peer_solvers.h"
#include "peer_system.h"

static double rel(double a, double b)
{
    return fabs(a - b) / fmax(1.0, fmax(fabs(a), fabs(b)));
}

static void compare_forms(const char *name, const pl_setting *set, size_t nset, double mu)
{
    pl_error err;
    pl_model *model = pl_model_create(pl_builtin_case_find(name), set, nset, &err);
    CHECK(model != NULL, "%s: %s", name, model ? "" : err.message);
    if (!model)
        return;
    peer_system h, a;
    char why[256];
    int hs = peer_system_hand(&h, model, mu, why, sizeof why);
    int as = peer_system_model(&a, model, mu, why, sizeof why);
    CHECK(hs == 1 && as == 0, "%s: hand %d, model API %d: %s", name, hs, as, why);
    if (hs != 1 || as != 0) {
        pl_model_destroy(model);
        return;
    }
    size_t N = h.N, m = h.m;
    CHECK(N == a.N && m == a.m, "%s: sizes", name);
    for (size_t j = 0; j < N; j++)
        CHECK(h.y0[j] == a.y0[j] && h.scale[j] == a.scale[j], "%s: initial state or scale %zu", name, j);
    double *y = calloc(7 * N + N * N * 2 + 4 * m, sizeof *y);
    double *fh = y + N, *fa = fh + N, *Jh = fa + N, *Ja = Jh + N * N, *gh = Ja + N * N, *ga = gh + m,
           *dh = ga + m, *da = dh + m;
    srand(7);
    for (int trial = 0; trial < 20; trial++) {
        double t = 0.37 * trial;
        /* states near the constraints: positions within a few penetrations of the start's scale */
        for (size_t j = 0; j < N; j++)
            y[j] = h.y0[j] + (j < N / 2 ? 0.5 : 2.0) * ((double)rand() / RAND_MAX - 0.5);
        if (!strcmp(name, "cup")) {
            double r = 1.0 + 1e-3 * ((double)rand() / RAND_MAX - 0.5), th = 0.3 * trial;
            y[0] = r * cos(th), y[1] = r * sin(th);
        }
        for (size_t i = 0; i < m; i++)
            h.active[i] = a.active[i] = (trial + (int)i) % 3 != 0;
        CHECK(peer_system_rhs(&h, t, y, fh) == 0 && peer_system_rhs(&a, t, y, fa) == 0, "%s: rhs", name);
        for (size_t j = 0; j < N; j++)
            CHECK(rel(fh[j], fa[j]) <= 1e-12, "%s trial %d: f[%zu] hand %.17g, model API %.17g", name, trial, j,
                  fh[j], fa[j]);
        peer_system_gaps(&h, t, y, gh, dh);
        peer_system_gaps(&a, t, y, ga, da);
        for (size_t i = 0; i < m; i++)
            CHECK(rel(gh[i], ga[i]) <= 1e-14 && rel(dh[i], da[i]) <= 1e-14, "%s trial %d: gap %zu", name, trial, i);
        CHECK(peer_system_jac(&h, t, y, Jh) == 0 && peer_system_jac(&a, t, y, Ja) == 0, "%s: jac", name);
        double big = 0.0;
        for (size_t k = 0; k < N * N; k++)
            big = fmax(big, fabs(Jh[k]));
        for (size_t k = 0; k < N * N; k++)
            CHECK(fabs(Jh[k] - Ja[k]) <= 1e-6 * big, "%s trial %d: J[%zu][%zu] hand %.10g, differences %.10g", name,
                  trial, k / N, k % N, Jh[k], Ja[k]);
    }
    free(y);
    peer_system_free(&h);
    peer_system_free(&a);
    pl_model_destroy(model);
}

static void closed_form_ball(int api)
{
    const double k = 2.5, e = 0.45, mu = 3e5, V = 5.0, t_end = 1.0;
    pl_setting set[] = {{"g", 0.0}, {"h0", 0.6}, {"v0", -V}, {"e", e}, {"k", k}};
    pl_error err;
    pl_model *model = pl_model_create(pl_builtin_case_find("bouncing_ball"), set, 5, &err);
    CHECK(model != NULL, "ball: %s", model ? "" : err.message);
    if (!model)
        return;
    peer_system s;
    char why[256];
    int st = api ? peer_system_model(&s, model, mu, why, sizeof why) : peer_system_hand(&s, model, mu, why, sizeof why);
    CHECK(st == (api ? 0 : 1), "ball system: %s", why);
    double l = log(e), xi = -l / sqrt(M_PI * M_PI + l * l), w = sqrt(k * mu);
    double t_in = 0.6 / V, t_out = t_in + M_PI / (w * sqrt(1.0 - xi * xi)), v_out = V * e;
    for (int id = 0; id < PEER_COUNT; id++) {
        peer_run r;
        peer_solve((peer_id)id, &s, t_end, 1e-11, 1e-10, 0.0, &r);
        const char *p = peer_name((peer_id)id);
        CHECK(r.ok && r.nep == 1, "%s (%s): ok %d, %zu episodes: %s", p, s.form, r.ok, r.nep, r.why);
        if (r.ok && r.nep == 1) {
            NEAR(r.ep[0].t_in, t_in, 1e-12, "%s (%s) entry time", p, s.form);
            NEAR(r.ep[0].t_out, t_out, 1e-9, "%s (%s) exit time", p, s.form);
            NEAR(r.ep[0].gdot_out, v_out, 2e-7 * V, "%s (%s) exit rate", p, s.form);
            NEAR(r.y_final[0], v_out * (t_end - t_out), 2e-7, "%s (%s) final q", p, s.form);
            NEAR(r.y_final[1], v_out, 2e-7 * V, "%s (%s) final v", p, s.form);
        }
        CHECK(r.rhs > 0 && r.steps > 0, "%s: counts", p);
        peer_run_free(&r);
    }
    peer_system_free(&s);
    pl_model_destroy(model);
}

int main(void)
{
    pl_library_init();
    check_init();
    pl_setting ball[] = {{"g", 3.7}, {"h0", 0.8}, {"v0", 0.4}, {"e", 0.7}, {"k", 2.0}};
    pl_setting table[] = {{"g", 7.3}, {"A", 0.3}, {"omega", 5.0}, {"e", 0.6}, {"k", 0.8}};
    pl_setting wedge[] = {{"m", 0.3}, {"f1", 0.2}, {"f2", -0.4}, {"e", 0.3}, {"k", 1.5}, {"q2", 0.7}};
    pl_setting cup[] = {{"y0", 0.3}, {"v0", 1.7}, {"e", 0.4}, {"k", 3.0}};
    compare_forms("bouncing_ball", ball, 5, 1e5);
    compare_forms("vibrating_table", table, 5, 1e7);
    compare_forms("wedge", wedge, 6, 1e5);
    compare_forms("cup", cup, 4, 1e6);
    closed_form_ball(0);
    closed_form_ball(1);
    return check_finish("test_peers");
}
