/* The Runge-Kutta stepper's roots (stepper.h) on a system it integrates exactly: x' = 1 from x = 0
 * (rk8pd is exact on polynomials, its error estimate 0, so a step spans whatever it is given), with
 * a precise root function x - c and an approximate one -(x - 1)(x - 3), which crosses 0 at t = 1 and
 * back at t = 3: a step over [0, 5] has it negative at both ends.  Its crossing at 1 comes before
 * an event at 2 (the precise root, or a crossing the solver found there and ends the step at with
 * cut), and must go to the solver's kink hook (a force's sign change before an impact's exit, the
 * force then swinging back past the exit in the same step: the penalized engine's Delta Gamma). */
#include <math.h>
#include <string.h>

#include "check.h"
#include "solvers/stepper.h"

typedef struct {
    double c;        /* the precise root */
    int decline;     /* the kink hook's answer */
    int kinks;       /* its calls, */
    double kink_t;   /* the last one's time, */
    int kink_k;      /* root function */
} toy;

static int rhs(double t, const double *y, double *yd, void *user)
{
    (void)t, (void)y, (void)user;
    yd[0] = 1.0;
    yd[1] = 1.0;
    return 0;
}

static int weights(double t, const double *y, double *w, void *user)
{
    (void)t, (void)y, (void)user;
    w[0] = w[1] = 1.0;
    return 0;
}

static int roots(double t, const double *y, double *g, void *user)
{
    (void)t;
    const toy *p = user;
    g[0] = y[0] - p->c;
    g[1] = -(y[0] - 1.0) * (y[0] - 3.0);
    return 0;
}

static int kink(double t, const double *y, int k, void *user)
{
    toy *p = user;
    (void)y;
    p->kinks++;
    p->kink_t = t;
    p->kink_k = k;
    return p->decline;
}

/* A stepper on the toy at t = 0 whose first step is [0, 5]. */
static pl_stepper *toy_stepper(toy *p)
{
    static const double y0[2] = {0.0, 0.0};
    pl_stepper_spec spec = {.size = 2, .y0 = y0, .t_end = 10.0, .rhs = rhs, .weights = weights, .roots = roots,
                            .nroots = 2, .napprox = 1, .kink = kink, .root_ulps = 4.0, .user = p,
                            .context = "test"};
    pl_stepper *s = NULL;
    pl_error err;
    if (pl_stepper_rk_new(&s, &spec, &err) != PL_OK || s->restart(s, 0.0, 5.0, &err) != PL_OK) {
        CHECK(0, "stepper: %s", err.message);
        pl_stepper_free(s);
        return NULL;
    }
    return s;
}

/* The step ends at the precise root 2; the approximate function's crossing at 1 goes to the hook. */
static void test_crossing_before_root(void)
{
    toy p = {.c = 2.0};
    pl_stepper *s = toy_stepper(&p);
    if (!s)
        return;
    pl_error err;
    int found[2] = {0, 0}, which[2], at_root = s->step(s, 10.0, &err);
    size_t count = s->root_info(s, found, which);
    CHECK(count == 1 && which[0] == 0, "one root found, function 0 (%zu)", count);
    CHECK(at_root == 1 && fabs(s->t - 2.0) < 1e-12 && found[0] == 1 && found[1] == 0,
          "the step ends at the precise root (%d, t = %.17g, found %d %d)", at_root, s->t, found[0], found[1]);
    CHECK(p.kinks == 1 && p.kink_k == 1 && fabs(p.kink_t - 1.0) <= 5e-6,
          "the approximate crossing at 1 goes to the kink hook (%d calls, last at %.17g)", p.kinks, p.kink_t);
    pl_stepper_free(s);
}

/* A step over [0, 5] with no precise root, ended at 2 by cut: the crossing at 1 goes to the hook, the
 * state and the dense output are those at 2 (a hop from the step's end started from the old end
 * before cut existed); declined, the step ends at the crossing instead, a root of the function. */
static void test_cut(void)
{
    for (int decline = 0; decline <= 1; decline++) {
        toy p = {.c = 7.0, .decline = decline};
        pl_stepper *s = toy_stepper(&p);
        if (!s)
            return;
        pl_error err;
        int found[2] = {0, 0}, which[2], at_root = s->step(s, 10.0, &err);
        CHECK(at_root == 0 && s->t == 5.0 && p.kinks == 0, "no root in [0, 5] (%d, t = %g, %d kinks)", at_root,
              s->t, p.kinks);
        int cut = s->cut(s, 2.0, &err);
        CHECK(p.kinks == 1 && p.kink_k == 1 && fabs(p.kink_t - 1.0) <= 5e-6,
              "decline %d: the crossing at 1 goes to the kink hook (%d calls, last at %.17g)", decline, p.kinks,
              p.kink_t);
        if (!decline) {
            CHECK(cut == 0 && s->t == 2.0 && fabs(s->y[0] - 2.0) < 1e-14,
                  "the step ends at 2 (%d, t = %.17g, x = %.17g)", cut, s->t, s->y[0]);
            const double *y = s->dense(s, 2.0 - 1e-5);
            CHECK(y && fabs(y[0] - (2.0 - 1e-5)) < 1e-14, "dense output next to the new end (x = %.17g)",
                  y ? y[0] : NAN);
        } else {
            size_t count = s->root_info(s, found, which);
            CHECK(count == 1 && which[0] == 1, "one root found, function 1 (%zu)", count);
            CHECK(cut == 1 && fabs(s->t - 1.0) <= 5e-6 && fabs(s->y[0] - s->t) < 1e-14 && found[0] == 0 &&
                  found[1] == 1, "declined: the step ends at the crossing (%d, t = %.17g, found %d %d)", cut, s->t,
                  found[0], found[1]);
        }
        pl_stepper_free(s);
    }
}

/* Live roots (stepper.h, live_roots): four root functions x - c_k crossing at t = c_k = 0.5, 1.5, 2.5,
 * 3.5, of which 2 and 3 alone are live.  Both steppers must pass over the dead ones (their crossings at
 * 0.5 and 1.5 are not roots) and report the live one by its own index: CVODE, given the live functions
 * alone, renumbered (its function 0 is function 2), must map back. */
typedef struct {
    int list[2];
    unsigned long version;
} live_toy;

static int live_roots_values(double t, const double *y, double *g, void *user)
{
    (void)t, (void)user;
    for (int k = 0; k < 4; k++)
        g[k] = y[0] - (0.5 + k);
    return 0;
}

static size_t live_list(void *user, const int **list, unsigned long *version)
{
    live_toy *p = user;
    *list = p->list;
    *version = p->version;
    return 2;
}

static int jacobian_zero(double t, const double *y, double *J, void *user)
{
    (void)t, (void)y, (void)user;
    memset(J, 0, 4 * sizeof *J);
    return 0;
}

static void test_live_roots(void)
{
    static const double y0[2] = {0.0, 0.0};
    for (int bdf = 0; bdf <= 1; bdf++) {
        live_toy p = {{2, 3}, 1};
        pl_stepper_spec spec = {.size = 2, .y0 = y0, .t_end = 10.0, .rhs = rhs, .weights = weights,
                                .jacobian = jacobian_zero, .roots = live_roots_values, .nroots = 4,
                                .live_roots = live_list, .root_ulps = 4.0, .user = &p, .context = "test"};
        pl_stepper *s = NULL;
        pl_error err;
        pl_status st = bdf ? pl_stepper_cvode_new(&s, &spec, &err) : pl_stepper_rk_new(&s, &spec, &err);
        if (st != PL_OK || s->restart(s, 0.0, bdf ? 0.0 : 5.0, &err) != PL_OK) {
            CHECK(0, "%s stepper: %s", bdf ? "CVODE" : "Runge-Kutta", err.message);
            pl_stepper_free(s);
            continue;
        }
        int found[4] = {0, 0, 0, 0}, which[4] = {-1, -1, -1, -1}, at_root = 0;
        for (int k = 0; k < 10000 && at_root == 0; k++)
            at_root = s->step(s, 10.0, &err);
        size_t count = at_root == 1 ? s->root_info(s, found, which) : 0;
        CHECK(at_root == 1 && count == 1 && which[0] == 2 && found[2] == 1 && found[0] == 0 && found[1] == 0 &&
                  fabs(s->t - 2.5) < 1e-8,
              "%s: the first root is live function 2 at t = 2.5, the dead ones passed over (%d, %zu found, "
              "function %d, t = %.17g)",
              bdf ? "CVODE" : "Runge-Kutta", at_root, count, which[0], s->t);
        pl_stepper_free(s);
    }
}

int main(void)
{
    check_init();
    test_crossing_before_root();
    test_cut();
    test_live_roots();
    return check_finish("test_stepper");
}
