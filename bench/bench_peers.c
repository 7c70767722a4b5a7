/* Peer benchmark: penlim's penalized engine against what a competent user writes instead, at equal
 * accuracy, on every built-in case (or a user's model, --model FILE) and every mu.
 *
 * The peers (peer_solvers.h: GSL rk8pd, rk4imp, msbdf with a sign check and re-integration to the
 * switch; CVODE BDF and ARKODE ERKStep with rootfinding) integrate the same penalized ODE as penlim,
 * the Kelvin-Voigt force of paper 004's form (4) on while a contact is active, written without
 * penlim's engine (peer_system.h): by hand where a user would write it (bouncing_ball,
 * vibrating_table, wedge, cup in Cartesian coordinates), otherwise through the public callbacks of
 * the model (include/penlim/model.h), as a user benchmarking their own model would.
 *
 * Accuracy.  Against a reference, penlim at rtol 1e-12 (its distance to rtol 1e-11 is its
 * uncertainty): the contact episodes (those entered faster than 1e-6 V, or at t = 0) must be the
 * same, constraint by constraint, and four errors are measured: entry and exit times (exits that
 * leave faster than 1e-6 V: a slower exit's time is ill-conditioned), exit gap rates, final
 * positions, final velocities.  penlim at its default rtol 1e-8 sets the target: its four errors,
 * each floored at twice the reference's uncertainty and at 1e-12 of its scale (t_end; V; the
 * largest of |q| and the penetration V/omega; V): errors below the reference's own tolerance cannot
 * be measured against it.
 *
 * Tuning.  Each peer's two tolerances are scanned on a decade grid: rtol 1e-2 ... 1e-13, and the
 * absolute tolerance atol x scale per component (the penetration V/omega for positions, V for
 * velocities) with atol 1e2 ... 1e-15 (--quick: every other decade); for each rtol, atol from loose
 * to tight until a setting qualifies (every episode of the reference, the four errors at or below
 * the target); the scan of rtol ends two decades after the first that qualifies.  The cheapest
 * qualifying setting (the fastest of three runs) is kept.  A run costing more than 100 times penlim's
 * wall time (before any setting qualified) or twice the best so far is stopped; in the tables
 * "n.r." (not reached) gives the closest complete run's largest error over the target, and '*'
 * that some runs were stopped so.
 *
 * Timing.  penlim and the tuned peers then run in interleaved rounds (penlim, peer 1, ..., penlim,
 * ...); the ratio is the peer's fastest wall time over penlim's fastest (below 1: the peer is
 * faster); the medians' ratio is printed beside it.  Wall time around the whole solve, allocation
 * included, for every method (penlim through pl_solve_model with samples = 0).
 *
 * Usage: bench_peers [--quick] [--case NAME[:k=v,...]]... [--mu LIST] [--peers LIST] [--model FILE]
 *                    [--rounds N] [--api] [--verbose]
 * Without --case: every built-in case at its defaults and the wedge at m = -0.5, q2 = 1.01.  --mu:
 * a comma-separated list (default 1e4,1e6,1e8,1e10,1e12; --quick: 1e6,1e10); --peers: of rk8pd,
 * rk4imp, msbdf, cvode, arkode; --model FILE: a model compiled apart (PL_EXPORT_MODEL), through its
 * callbacks, with --case NAME:k=v,... for its settings; --api: the model-API right-hand side for
 * the hand-written cases too; --rounds: interleaved timing rounds (default 7); --verbose: every
 * tuning run on stderr.  Bad options: a message and exit status 2. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer_solvers.h"
#include "peer_system.h"
#include "penlim/penlim.h"
#include "solvers/solution.h" /* the episodes' gap rates, which the public API does not give */

#define MAX_CASES 32
#define MAX_MU 8
#define REF_RTOL 1e-12
#define PENLIM_RTOL 1e-8
#define BUDGET 100.0 /* a tuning run costing more than BUDGET x penlim's wall time is stopped */

/* ---- options -------------------------------------------------------------------------------------- */

typedef struct {
    char name[64];
    pl_setting set[16];
    size_t nset;
    char label[160];
} case_spec;

typedef struct {
    case_spec cases[MAX_CASES];
    size_t ncases;
    double mu[MAX_MU];
    size_t nmu;
    int use[PEER_COUNT];
    int quick, verbose, api, rounds;
    const char *model_file;
} options;

static void usage(void)
{
    fprintf(stderr, "usage: bench_peers [--quick] [--case NAME[:k=v,...]]... [--mu LIST] [--peers LIST] "
                    "[--model FILE] [--rounds N] [--api] [--verbose]\n");
}

/* NAME[:k=v,k=v]: 0, or -1 with a message. */
static int parse_case(const char *arg, case_spec *c)
{
    memset(c, 0, sizeof *c);
    const char *colon = strchr(arg, ':');
    size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
    if (len == 0 || len >= sizeof c->name) {
        fprintf(stderr, "bench_peers: bad case '%s'\n", arg);
        return -1;
    }
    memcpy(c->name, arg, len);
    snprintf(c->label, sizeof c->label, "%s", c->name);
    for (const char *p = colon; p && *p;) {
        p++;
        char key[64];
        double v;
        int used = 0;
        if (c->nset == 16 || sscanf(p, "%63[^=,]=%lf%n", key, &v, &used) != 2) {
            fprintf(stderr, "bench_peers: bad setting in '%s' (NAME:k=v,k=v)\n", arg);
            return -1;
        }
        snprintf(c->set[c->nset].name, sizeof c->set[c->nset].name, "%s", key);
        c->set[c->nset++].value = v;
        size_t l = strlen(c->label);
        snprintf(c->label + l, sizeof c->label - l, ", %s = %g", key, v);
        p = strchr(p, ',');
    }
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->rounds = 7;
    for (int k = 0; k < PEER_COUNT; k++)
        o->use[k] = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick"))
            o->quick = 1;
        else if (!strcmp(a, "--verbose"))
            o->verbose = 1;
        else if (!strcmp(a, "--api"))
            o->api = 1;
        else if (!strcmp(a, "--case") && v) {
            if (o->ncases == MAX_CASES || parse_case(v, &o->cases[o->ncases++]))
                return -1;
            i++;
        } else if (!strcmp(a, "--model") && v) {
            o->model_file = v;
            i++;
        } else if (!strcmp(a, "--rounds") && v) {
            char *end;
            long r = strtol(v, &end, 10);
            if (*end || r < 1 || r > 1000) {
                fprintf(stderr, "bench_peers: --rounds must be 1 ... 1000, not '%s'\n", v);
                return -1;
            }
            o->rounds = (int)r;
            i++;
        } else if (!strcmp(a, "--mu") && v) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", v);
            for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
                char *end;
                double mu = strtod(tok, &end);
                if (*end || !(mu > 0.0) || !isfinite(mu) || o->nmu == MAX_MU) {
                    fprintf(stderr, "bench_peers: bad mu '%s' (at most %d positive values)\n", tok, MAX_MU);
                    return -1;
                }
                o->mu[o->nmu++] = mu;
            }
            i++;
        } else if (!strcmp(a, "--peers") && v) {
            char buf[256];
            snprintf(buf, sizeof buf, "%s", v);
            for (int k = 0; k < PEER_COUNT; k++)
                o->use[k] = 0;
            for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
                int k = peer_find(tok);
                if (k < 0) {
                    fprintf(stderr, "bench_peers: unknown peer '%s' (rk8pd, rk4imp, msbdf, cvode, arkode)\n", tok);
                    return -1;
                }
                o->use[k] = 1;
            }
            i++;
        } else {
            usage();
            return -1;
        }
    }
    if (o->nmu == 0) {
        const double all[] = {1e4, 1e6, 1e8, 1e10, 1e12}, quick[] = {1e6, 1e10};
        const double *src = o->quick ? quick : all;
        o->nmu = o->quick ? 2 : 5;
        memcpy(o->mu, src, o->nmu * sizeof *src);
    }
    return 0;
}

/* ---- penlim's runs ---------------------------------------------------------------------------------- */

typedef enum { PENLIM_OK, PENLIM_REFUSED, PENLIM_FAILED } penlim_status;

static penlim_status penlim_solve(const pl_model *model, double mu, double rtol, double t_end, peer_run *r)
{
    size_t n = pl_model_dof(model);
    memset(r, 0, sizeof *r);
    r->y_final = calloc(2 * n + 1, sizeof *r->y_final);
    pl_setting o[] = {{"mu", mu}, {"rtol", rtol}, {"t_end", t_end}, {"samples", 0}};
    pl_solution *sol = NULL;
    pl_error err = {0};
    double t0 = peer_now();
    pl_status st = pl_solve_model(model, "penalty", o, 4, &sol, &err);
    r->wall = peer_now() - t0;
    if (st != PL_OK || !r->y_final) {
        snprintf(r->why, sizeof r->why, "%s", r->y_final ? err.message : "out of memory");
        pl_solution_destroy(sol);
        return st == PL_ERR_INPUT ? PENLIM_REFUSED : PENLIM_FAILED;
    }
    pl_solution_work(sol, &r->steps, &r->rhs, &(double){0});
    for (size_t k = 0; k < pl_solution_episodes(sol); k++) {
        const pl_episode *e = &sol->episodes[k];
        if (peer_run_open(r, e->constraint, e->t_in, e->gdot_in)) {
            snprintf(r->why, sizeof r->why, "out of memory");
            pl_solution_destroy(sol);
            return PENLIM_FAILED;
        }
        r->ep[r->nep - 1].t_out = e->t_out;
        r->ep[r->nep - 1].gdot_out = e->gdot_out;
    }
    double t = pl_solution_final(sol, r->y_final);
    pl_solution_destroy(sol);
    if (!(fabs(t - t_end) <= 1e-12 * t_end)) {
        snprintf(r->why, sizeof r->why, "ended at t = %.17g", t);
        return PENLIM_FAILED;
    }
    r->ok = 1;
    return PENLIM_OK;
}

/* ---- accuracy --------------------------------------------------------------------------------------- */

enum { E_T, E_V, E_Q, E_W, NERR }; /* entry/exit times, exit gap rates, final q, final v */
static const char *const err_names[NERR] = {"t", "gdot_out", "q_end", "v_end"};

typedef struct {
    int complete;       /* same episodes as the reference */
    size_t found, expected;
    double e[NERR];
} accuracy;

typedef struct {
    const pl_model *model;
    size_t n;
    double mu, t_end, vmin;
    peer_run ref;          /* penlim at REF_RTOL (or 10 REF_RTOL) */
    double unc[NERR];      /* its distance to ten times its rtol */
    double target[NERR];
    double scale[NERR];
} problem;

static int counted(const problem *pb, const peer_episode *e)
{
    return e->t_in == 0.0 || fabs(e->gdot_in) >= pb->vmin;
}

static int exit_significant(const problem *pb, const peer_episode *e)
{
    return !isnan(e->t_out) && fabs(e->gdot_out) >= pb->vmin;
}

static accuracy measure(const problem *pb, const peer_run *r)
{
    accuracy a = {1, 0, 0, {0}};
    const peer_run *ref = &pb->ref;
    size_t i = 0, j = 0;
    for (;;) {
        while (i < r->nep && !counted(pb, &r->ep[i]))
            i++;
        while (j < ref->nep && !counted(pb, &ref->ep[j]))
            j++;
        if (i == r->nep || j == ref->nep)
            break;
        const peer_episode *x = &r->ep[i++], *y = &ref->ep[j++];
        a.found++, a.expected++;
        if (x->con != y->con)
            a.complete = 0;
        a.e[E_T] = fmax(a.e[E_T], fabs(x->t_in - y->t_in));
        int sx = exit_significant(pb, x), sy = exit_significant(pb, y);
        if (sx != sy)
            a.complete = 0;
        else if (sx) {
            a.e[E_T] = fmax(a.e[E_T], fabs(x->t_out - y->t_out));
            a.e[E_V] = fmax(a.e[E_V], fabs(x->gdot_out - y->gdot_out));
        }
    }
    for (; i < r->nep; i++)
        if (counted(pb, &r->ep[i]))
            a.found++, a.complete = 0;
    for (; j < ref->nep; j++)
        if (counted(pb, &ref->ep[j]))
            a.expected++, a.complete = 0;
    for (size_t k = 0; k < pb->n; k++) {
        a.e[E_Q] = fmax(a.e[E_Q], fabs(r->y_final[k] - ref->y_final[k]));
        a.e[E_W] = fmax(a.e[E_W], fabs(r->y_final[pb->n + k] - ref->y_final[pb->n + k]));
    }
    if (!r->ok) {
        a.complete = 0;
        for (int k = 0; k < NERR; k++)
            a.e[k] = INFINITY;
    }
    return a;
}

static int reaches(const problem *pb, const accuracy *a)
{
    if (!a->complete)
        return 0;
    for (int k = 0; k < NERR; k++)
        if (!(a->e[k] <= pb->target[k]))
            return 0;
    return 1;
}

/* ---- tuning ------------------------------------------------------------------------------------------- */

typedef struct {
    int tuned;
    double rtol, atol;
    peer_run run; /* the chosen setting's tuning run */
    accuracy acc;
    double best;  /* fastest wall of the chosen setting */
    long runs;    /* settings tried */
    long over;    /* of them, stopped over budget */
    /* no qualifying setting: the closest complete run */
    int have_miss;
    double miss_rtol, miss_atol, miss_ratio;
    /* timing */
    double wall_min, wall_med;
} tuning;

static void tune(peer_id id, peer_system *s, const problem *pb, double penlim_wall, int quick, int verbose,
                 tuning *tu)
{
    memset(tu, 0, sizeof *tu);
    const int step = quick ? 2 : 1;
    int first_rtol = -1;
    for (int kr = 2; kr <= 13; kr += step) {
        if (first_rtol >= 0 && kr > first_rtol + 2)
            break;
        double rtol = pow(10.0, -kr);
        int seen_complete = 0;
        for (int ka = -2; ka <= 15; ka += step) {
            double atol = pow(10.0, -ka);
            double budget = tu->tuned ? 2.0 * tu->best : fmax(BUDGET * penlim_wall, 0.02);
            peer_run r;
            peer_solve(id, s, pb->t_end, rtol, atol, peer_now() + budget, &r);
            tu->runs++;
            accuracy a = measure(pb, &r);
            int ok = reaches(pb, &a), over = !r.ok && s->expired;
            tu->over += over;
            if (verbose)
                fprintf(stderr, "    %-7s rtol %.0e atol %.0e: %s %zu/%zu t %.2e v %.2e q %.2e w %.2e steps %ld rhs %ld %.4f s %s\n",
                        peer_name(id), rtol, atol, ok ? "ok" : "--", a.found, a.expected, a.e[E_T], a.e[E_V], a.e[E_Q],
                        a.e[E_W], r.steps, r.rhs, r.wall, r.ok ? "" : r.why);
            if (ok) {
                double w = r.wall;
                for (int rep = 0; rep < 2; rep++) {
                    peer_run again;
                    peer_solve(id, s, pb->t_end, rtol, atol, 0.0, &again);
                    w = fmin(w, again.wall);
                    peer_run_free(&again);
                }
                if (!tu->tuned || w < tu->best) {
                    if (tu->tuned)
                        peer_run_free(&tu->run);
                    tu->tuned = 1, tu->rtol = rtol, tu->atol = atol, tu->best = w, tu->run = r, tu->acc = a;
                } else
                    peer_run_free(&r);
                if (first_rtol < 0)
                    first_rtol = kr;
                break; /* tighter atol costs more */
            }
            if (a.complete) {
                seen_complete = 1;
                double worst = 0.0;
                for (int k = 0; k < NERR; k++)
                    worst = fmax(worst, a.e[k] / pb->target[k]);
                if (!tu->tuned && (!tu->have_miss || worst < tu->miss_ratio))
                    tu->have_miss = 1, tu->miss_rtol = rtol, tu->miss_atol = atol, tu->miss_ratio = worst;
            }
            peer_run_free(&r);
            /* Past the loose settings whose spurious contacts cost more than a good run, a tighter
             * atol only costs more: a run over budget there ends the row. */
            if (over && seen_complete)
                break;
        }
    }
}

/* ---- one case at one mu ------------------------------------------------------------------------------ */

typedef enum { CELL_EMPTY, CELL_REFUSED, CELL_FAILED, CELL_NO_REFERENCE, CELL_DONE } cell_kind;

typedef struct {
    cell_kind kind;
    char note[800];
    double pen_min, pen_med;
    long pen_steps, pen_rhs;
    accuracy pen_acc;
    double target[NERR];
    double ref_rtol; /* the reference's */
    tuning tu[PEER_COUNT];
} cell;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void bench_cell(const pl_model *model, double mu, const options *o, cell *c, const char **form)
{
    memset(c, 0, sizeof *c);
    problem pb;
    memset(&pb, 0, sizeof pb);
    pb.model = model;
    pb.n = pl_model_dof(model);
    pb.mu = mu;
    pb.t_end = pl_model_case(model)->t_end;
    peer_system s;
    char why[256] = "";
    int hand = o->api ? 0 : peer_system_hand(&s, model, mu, why, sizeof why);
    if (hand == 0 && peer_system_model(&s, model, mu, why, sizeof why) != 0)
        hand = -1;
    if (hand < 0) {
        c->kind = CELL_EMPTY;
        snprintf(c->note, sizeof c->note, "no peer system: %s", why);
        return;
    }
    *form = s.form;
    pb.vmin = 1e-6 * s.v_scale;
    /* penlim at its default tolerance: what the peers must match */
    peer_run pen;
    penlim_status st = penlim_solve(model, mu, PENLIM_RTOL, pb.t_end, &pen);
    if (st != PENLIM_OK) {
        c->kind = st == PENLIM_REFUSED ? CELL_REFUSED : CELL_FAILED;
        snprintf(c->note, sizeof c->note, "penlim at rtol 1e-8: %s", pen.why);
        peer_run_free(&pen);
        goto done;
    }
    /* the reference, penlim at rtol 1e-12 (1e-11 where 1e-12 fails), and its uncertainty, its
     * distance to ten times its rtol */
    peer_run ref2;
    accuracy u = {0, 0, 0, {0}};
    char ref_why[700] = "";
    for (double rtol = REF_RTOL; rtol <= 10.0 * REF_RTOL * 1.01 && !c->ref_rtol; rtol *= 10.0) {
        penlim_status s1 = penlim_solve(model, mu, rtol, pb.t_end, &pb.ref);
        penlim_status s2 = s1 == PENLIM_OK ? penlim_solve(model, mu, 10.0 * rtol, pb.t_end, &ref2) : PENLIM_FAILED;
        if (s1 == PENLIM_OK && s2 == PENLIM_OK) {
            u = measure(&pb, &ref2);
            c->ref_rtol = rtol;
        } else if (!ref_why[0])
            snprintf(ref_why, sizeof ref_why, "%s", s1 != PENLIM_OK ? pb.ref.why : ref2.why);
        if (s1 == PENLIM_OK)
            peer_run_free(&ref2);
        if (!c->ref_rtol)
            peer_run_free(&pb.ref);
    }
    if (!c->ref_rtol) {
        c->kind = CELL_NO_REFERENCE;
        snprintf(c->note, sizeof c->note, "no reference (penlim at rtol 1e-12 and 1e-11 fail): %s", ref_why);
        peer_run_free(&pen);
        goto done;
    }
    double q_scale = 0.0, w_scale = s.v_scale;
    for (size_t k = 0; k < pb.n; k++)
        q_scale = fmax(q_scale, fabs(pb.ref.y_final[k]));
    double scale[NERR] = {pb.t_end, s.v_scale, fmax(q_scale, s.v_scale / s.omega), w_scale};
    for (int k = 0; k < NERR; k++)
        pb.unc[k] = u.e[k];
    c->pen_acc = measure(&pb, &pen);
    c->pen_steps = pen.steps, c->pen_rhs = pen.rhs;
    if (!u.complete || !c->pen_acc.complete) {
        c->kind = CELL_EMPTY;
        snprintf(c->note, sizeof c->note, "episodes differ: rtol %.0e %zu, 1e-8 %zu, reference %zu", 10.0 * c->ref_rtol,
                 u.found, c->pen_acc.found, c->pen_acc.expected);
        peer_run_free(&pen);
        goto done;
    }
    for (int k = 0; k < NERR; k++)
        c->target[k] = pb.target[k] = fmax(c->pen_acc.e[k], fmax(2.0 * pb.unc[k], c->ref_rtol * scale[k]));
    double pen_wall = pen.wall;
    peer_run_free(&pen);
    for (int k = 0; k < 2; k++) { /* warm: the fastest of three for the budgets */
        penlim_solve(model, mu, PENLIM_RTOL, pb.t_end, &pen);
        pen_wall = fmin(pen_wall, pen.wall);
        peer_run_free(&pen);
    }
    if (o->verbose)
        fprintf(stderr, "  %s mu %.0e (%s): %zu episodes, target t %.2e v %.2e q %.2e w %.2e, penlim %.4f s\n",
                pl_model_case(model)->name, mu, s.form, u.expected, pb.target[E_T], pb.target[E_V], pb.target[E_Q],
                pb.target[E_W], pen_wall);
    for (int id = 0; id < PEER_COUNT; id++)
        if (o->use[id])
            tune((peer_id)id, &s, &pb, pen_wall, o->quick, o->verbose, &c->tu[id]);
    /* interleaved rounds */
    int R = o->rounds;
    double *w = calloc((size_t)R * (PEER_COUNT + 1), sizeof *w);
    if (!w) {
        c->kind = CELL_NO_REFERENCE;
        snprintf(c->note, sizeof c->note, "out of memory");
        goto done;
    }
    for (int r = 0; r < R; r++) {
        penlim_solve(model, mu, PENLIM_RTOL, pb.t_end, &pen);
        w[r] = pen.wall;
        peer_run_free(&pen);
        for (int id = 0; id < PEER_COUNT; id++) {
            if (!c->tu[id].tuned)
                continue;
            peer_run p;
            peer_solve((peer_id)id, &s, pb.t_end, c->tu[id].rtol, c->tu[id].atol, 0.0, &p);
            w[(size_t)(id + 1) * (size_t)R + (size_t)r] = p.wall;
            peer_run_free(&p);
        }
    }
    c->pen_min = INFINITY;
    for (int r = 0; r < R; r++)
        c->pen_min = fmin(c->pen_min, w[r]);
    c->pen_med = median(w, R);
    for (int id = 0; id < PEER_COUNT; id++) {
        tuning *t = &c->tu[id];
        if (!t->tuned)
            continue;
        double *v = w + (size_t)(id + 1) * (size_t)R;
        t->wall_min = INFINITY;
        for (int r = 0; r < R; r++)
            t->wall_min = fmin(t->wall_min, v[r]);
        t->wall_med = median(v, R);
    }
    free(w);
    c->kind = CELL_DONE;
done:
    peer_run_free(&pb.ref);
    peer_system_free(&s);
}

/* ---- the tables ----------------------------------------------------------------------------------------- */

/* A table's heading: its first column's title, then one column per mu. */
static void print_heading(const char *first, const options *o)
{
    printf("| %s |", first);
    for (size_t k = 0; k < o->nmu; k++)
        printf(" mu = %.0e |", o->mu[k]);
    printf("\n|---|");
    for (size_t k = 0; k < o->nmu; k++)
        printf("---|");
    printf("\n");
}

static void print_tables(const char *label, const char *form, const options *o, cell *cells)
{
    printf("\n### %s (peers' right-hand side: %s)\n\n", label, form ? form : "-");
    printf("Wall time peer / penlim (fastest of %d interleaved rounds; medians' ratio in parentheses):\n\n", o->rounds);
    print_heading("peer", o);
    for (int id = 0; id < PEER_COUNT; id++) {
        if (!o->use[id])
            continue;
        printf("| %s |", peer_name((peer_id)id));
        for (size_t k = 0; k < o->nmu; k++) {
            cell *c = &cells[k];
            const tuning *t = &c->tu[id];
            if (c->kind == CELL_REFUSED)
                printf(" penlim refuses |");
            else if (c->kind == CELL_FAILED)
                printf(" penlim fails |");
            else if (c->kind == CELL_NO_REFERENCE)
                printf(" no reference |");
            else if (c->kind != CELL_DONE)
                printf(" no target |");
            else if (t->tuned)
                printf(" %.2f (%.2f) |", t->wall_min / c->pen_min, t->wall_med / c->pen_med);
            else if (t->have_miss)
                printf(" n.r. (%.2g)%s |", t->miss_ratio, t->over ? " *" : "");
            else
                printf(" n.r.%s |", t->over ? " *" : "");
        }
        printf("\n");
    }
    printf("\nTuned tolerances (rtol / atol, atol in units of the penetration V/omega and of V):\n\n");
    print_heading("peer", o);
    for (int id = 0; id < PEER_COUNT; id++) {
        if (!o->use[id])
            continue;
        printf("| %s |", peer_name((peer_id)id));
        for (size_t k = 0; k < o->nmu; k++) {
            const tuning *t = &cells[k].tu[id];
            if (t->tuned)
                printf(" %.0e / %.0e |", t->rtol, t->atol);
            else if (t->have_miss)
                printf(" closest %.0e / %.0e |", t->miss_rtol, t->miss_atol);
            else
                printf(" - |");
        }
        printf("\n");
    }
    printf("\nSteps / right-hand-side evaluations (those of difference-quotient Jacobians included):\n\n");
    print_heading("method", o);
    printf("| penlim |");
    for (size_t k = 0; k < o->nmu; k++)
        if (cells[k].kind == CELL_DONE)
            printf(" %ld / %ld |", cells[k].pen_steps, cells[k].pen_rhs);
        else
            printf(" - |");
    printf("\n");
    for (int id = 0; id < PEER_COUNT; id++) {
        if (!o->use[id])
            continue;
        printf("| %s |", peer_name((peer_id)id));
        for (size_t k = 0; k < o->nmu; k++) {
            const tuning *t = &cells[k].tu[id];
            if (t->tuned)
                printf(" %ld / %ld |", t->run.steps, t->run.rhs);
            else
                printf(" - |");
        }
        printf("\n");
    }
    printf("\nTarget (penlim's errors at rtol 1e-8 against rtol 1e-12, floored at the reference's resolution), "
           "episodes, penlim's fastest wall:\n\n");
    for (size_t k = 0; k < o->nmu; k++) {
        cell *c = &cells[k];
        if (c->kind == CELL_DONE)
            printf("- mu = %.0e: %s %.1e, %s %.1e, %s %.1e, %s %.1e; %zu episodes; %.3g ms%s\n", o->mu[k],
                   err_names[0], c->target[0], err_names[1], c->target[1], err_names[2], c->target[2], err_names[3],
                   c->target[3], c->pen_acc.expected, 1e3 * c->pen_min,
                   c->ref_rtol > REF_RTOL ? " (reference at rtol 1e-11: 1e-12 fails)" : "");
        else
            printf("- mu = %.0e: %s\n", o->mu[k], c->note);
    }
    fflush(stdout);
}

/* ---- cases ---------------------------------------------------------------------------------------------- */

/* The case exported by a model file (PL_EXPORT_MODEL), or NULL with a message. */
static const pl_case *load_model(const char *path, void **handle)
{
    *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!*handle) {
        fprintf(stderr, "bench_peers: cannot load %s: %s\n", path, dlerror());
        return NULL;
    }
    const pl_case *(*entry)(void) = NULL;
    void *sym = dlsym(*handle, PL_MODEL_SYMBOL);
    memcpy(&entry, &sym, sizeof entry); /* POSIX: a data pointer from dlsym as a function pointer */
    const pl_case *c = entry ? entry() : NULL;
    if (!c || c->abi_version != PL_ABI_VERSION) {
        fprintf(stderr, "bench_peers: %s exports no model of ABI version %u (%s)\n", path, PL_ABI_VERSION,
                PL_MODEL_SYMBOL);
        return NULL;
    }
    return c;
}

static void bench_case(const pl_case *cs, const case_spec *spec, const options *o)
{
    pl_error err = {0};
    pl_model *model = pl_model_create(cs, spec->set, spec->nset, &err);
    if (!model) {
        printf("\n### %s\n\n%s: %s\n", spec->label, cs->name, err.message);
        return;
    }
    cell *cells = calloc(o->nmu, sizeof *cells);
    if (!cells) {
        pl_model_destroy(model);
        return;
    }
    const char *form = NULL;
    double t0 = peer_now();
    for (size_t k = 0; k < o->nmu; k++) {
        bench_cell(model, o->mu[k], o, &cells[k], &form);
        fprintf(stderr, "bench_peers: %s mu = %.0e done (%.0f s)\n", spec->label, o->mu[k], peer_now() - t0);
    }
    print_tables(spec->label, form, o, cells);
    for (size_t k = 0; k < o->nmu; k++)
        for (int id = 0; id < PEER_COUNT; id++)
            if (cells[k].tu[id].tuned)
                peer_run_free(&cells[k].tu[id].run);
    free(cells);
    pl_model_destroy(model);
}

int main(int argc, char **argv)
{
    pl_library_init();
    options *o = malloc(sizeof *o);
    if (!o || parse_options(argc, argv, o)) {
        free(o);
        return 2;
    }
    double t0 = peer_now();
    void *handle = NULL;
    const pl_case *loaded = NULL;
    if (o->model_file) {
        /* a user's model goes through its callbacks, whatever its name */
        o->api = 1;
        if (o->ncases > 1) {
            fprintf(stderr, "bench_peers: with --model, at most one --case (its settings)\n");
            free(o);
            return 2;
        }
        if (!(loaded = load_model(o->model_file, &handle))) {
            if (handle)
                dlclose(handle);
            free(o);
            return 2;
        }
    } else {
        if (o->ncases == 0) {
            for (size_t k = 0; k < pl_builtin_case_count() && o->ncases < MAX_CASES - 1; k++)
                parse_case(pl_builtin_case_at(k)->name, &o->cases[o->ncases++]);
            parse_case("wedge:m=-0.5,q2=1.01", &o->cases[o->ncases++]);
        }
        for (size_t k = 0; k < o->ncases; k++)
            if (!pl_builtin_case_find(o->cases[k].name)) {
                fprintf(stderr, "bench_peers: unknown case '%s' (penlim cases)\n", o->cases[k].name);
                free(o);
                return 2;
            }
    }
    printf("## bench_peers: penlim (penalty, rtol 1e-8) against tuned peers at equal accuracy\n");
    if (loaded) {
        case_spec spec;
        if (o->ncases == 1)
            spec = o->cases[0];
        else
            memset(&spec, 0, sizeof spec);
        snprintf(spec.label, sizeof spec.label, "%s (%s)", loaded->name, o->model_file);
        bench_case(loaded, &spec, o);
        dlclose(handle);
    } else
        for (size_t k = 0; k < o->ncases; k++)
            bench_case(pl_builtin_case_find(o->cases[k].name), &o->cases[k], o);
    printf("\ntotal run time %.0f s\n", peer_now() - t0);
    free(o);
    return 0;
}
