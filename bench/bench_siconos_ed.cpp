/* The limit solution against Siconos's event-driven integrator (EventDriven with LsodarOSI and LCPs at
 * the impact and acceleration levels: what a Siconos user picks for an exact rigid-contact solution),
 * at equal accuracy, on two one-dof problems with a closed form, both defined here through penlim's
 * public model API (the way a user's model is benchmarked):
 *
 *   ball:   q'' = -g, g = 9.81 (Siconos's bouncing ball example; flights are parabolas, which any
 *           Runge-Kutta or BDF method integrates exactly);
 *   spring: q'' = -w^2 (q + d), w = 2, d = 0.5 (a mass on a spring whose rest point lies below the
 *           floor: flights are arcs of cosines);
 *
 * G = q >= 0, h0 = 1, v0 = 0, e = 0.9.  Accuracy: over the first 10 impacts, the largest error of the
 * impact times and of the outgoing velocities (over the first impact's speed V) against the closed form:
 * an impact at speed u is followed by a flight of 2u/g (ball) or (2/w) atan(u w/(w^2 d)) (spring) and
 * returns at speed e u; the first comes at sqrt(2 h0/g) (ball) or acos(d/(h0 + d))/w with
 * V = w sqrt((h0 + d)^2 - d^2) (spring).  Each solver's tolerances are scanned (penlim: rtol; Siconos:
 * LSODAR's rtol = atol and the event tolerance TOL_ED); for each accuracy target the table gives the
 * cheapest setting of each that reaches it, and the wall time of a whole solve (set-up included, no
 * output) as the ratio Siconos / penlim, each the fastest of 7 runs interleaved.  Above 1: penlim is
 * faster.  Siconos reports failing settings on its standard output; they count as not reaching any
 * target.
 *
 * Built when Siconos's kernel is installed (Debian: libsiconos-kernel-dev); see bench/CMakeLists.txt. */
#include <SiconosKernel.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "penlim/penlim.h"

namespace {

constexpr double h0 = 1.0, e = 0.9;
constexpr int impacts = 10, repeats = 7;

/* q'' = -c - w2 q: the ball (c = g, w2 = 0) or the spring (c = w^2 d, w2 = w^2). */
struct problem {
    const char *name;
    double c, w2;
};

double now()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* penlim's model of a problem: parameters c, w2, h0 and the contact law's e (xi, k derived/default). */
enum { C, W2, H0, E, XI, K, NPAR };
const pl_param_spec params[NPAR] = {
    {"f0", 9.81, 0.0, INFINITY, 0, "constant part of the force toward the floor"},
    {"w2", 0.0, 0.0, INFINITY, 0, "spring constant (per unit mass)"},
    {"h0", 1.0, 0.0, INFINITY, 0, "initial height"},
    {"e", 0.9, 0.0, 1.0, PL_PARAM_LAW, "restitution"},
    {"xi", NAN, 0.0, INFINITY, PL_PARAM_DERIVED | PL_PARAM_LAW, "damping ratio"},
    {"k", 1.0, 0.0, INFINITY, PL_PARAM_MIN_OPEN | PL_PARAM_LAW, "stiffness scale"},
};

void initial_state(const double *p, double *q, double *v, void *)
{
    q[0] = p[H0];
    v[0] = 0.0;
}

void accel(const double *p, double, const double *q, const double *, const double *, double *a, double *a_q,
           double *a_v, void *)
{
    a[0] = -p[C] - p[W2] * q[0];
    if (a_q)
        a_q[0] = -p[W2];
    if (a_v)
        a_v[0] = 0.0;
}

void gap(const double *, size_t, double, const double *q, pl_gap *out, void *)
{
    out->g = q[0];
    out->grad[0] = 1.0;
}

void scales(const double *p, double *velocity, double *acceleration, void *)
{
    *acceleration = p[C] + p[W2] * p[H0];
    *velocity = std::sqrt(2.0 * *acceleration * p[H0]);
}

pl_case make_case()
{
    pl_case c{};
    c.abi_version = PL_ABI_VERSION;
    c.name = "bench_impacts";
    c.summary = "a mass above a floor, q'' = -c - w2 q";
    c.ndof = c.ncon = 1;
    c.params = params;
    c.nparams = NPAR;
    c.t_end = 10.0;
    c.initial_state = initial_state;
    c.accel = accel;
    c.gap = gap;
    c.scales = scales;
    return c;
}
const pl_case bench_case = make_case();

struct impact {
    double t, v_after;
};

/* The flight after an impact at outgoing speed u. */
double flight(const problem &pb, double u)
{
    if (pb.w2 == 0.0)
        return 2.0 * u / pb.c;
    double w = std::sqrt(pb.w2);
    return 2.0 / w * std::atan(u * w / pb.c);
}

double first_speed(const problem &pb)
{
    if (pb.w2 == 0.0)
        return std::sqrt(2.0 * pb.c * h0);
    double d = pb.c / pb.w2;
    return std::sqrt(pb.w2) * std::sqrt((h0 + d) * (h0 + d) - d * d);
}

std::vector<impact> exact(const problem &pb)
{
    std::vector<impact> x;
    double t = pb.w2 == 0.0 ? std::sqrt(2.0 * h0 / pb.c)
                            : std::acos(pb.c / pb.w2 / (h0 + pb.c / pb.w2)) / std::sqrt(pb.w2);
    double v = first_speed(pb);
    for (int k = 0; k < impacts; k++) {
        v *= e;
        x.push_back({t, v});
        t += flight(pb, v);
    }
    return x;
}

/* Largest error over the first `impacts` impacts; INFINITY if fewer were found. */
double error_of(const problem &pb, const std::vector<impact> &got)
{
    std::vector<impact> x = exact(pb);
    if (got.size() < x.size())
        return INFINITY;
    double V = first_speed(pb), err = 0.0;
    for (size_t k = 0; k < x.size(); k++)
        err = std::max({err, std::fabs(got[k].t - x[k].t), std::fabs(got[k].v_after - x[k].v_after) / V});
    return err;
}

/* Halfway through the flight after the last impact counted. */
double t_end(const problem &pb)
{
    std::vector<impact> x = exact(pb);
    return x.back().t + 0.5 * flight(pb, x.back().v_after);
}

struct run {
    double error, wall;
};

run penlim_limit(const problem &pb, double rtol)
{
    pl_setting set[] = {{"f0", pb.c}, {"w2", pb.w2}, {"h0", h0}, {"e", e}};
    pl_setting opt[] = {{"rtol", rtol}, {"t_end", t_end(pb)}, {"samples", 0.0}};
    pl_error err;
    double t0 = now();
    pl_model *model = pl_model_create(&bench_case, set, 4, &err);
    pl_solution *sol = nullptr;
    run r = {INFINITY, INFINITY};
    if (model && pl_solve_model(model, "limit", opt, 3, &sol, &err) == PL_OK) {
        std::vector<impact> got;
        for (size_t k = 0; k < pl_solution_events(sol); k++) {
            const char *kind;
            double t, v;
            size_t c;
            if (pl_solution_event(sol, k, &kind, &t, &c, nullptr, &v) == PL_OK && std::string(kind) == "impact")
                got.push_back({t, v});
        }
        r.wall = now() - t0;
        r.error = error_of(pb, got);
    } else {
        std::fprintf(stderr, "penlim limit at rtol %g: %s\n", rtol, err.message);
    }
    pl_solution_destroy(sol);
    pl_model_destroy(model);
    return r;
}

run siconos_event_driven(const problem &pb, double tol, double tol_ed)
{
    run r = {INFINITY, INFINITY};
    try {
        double t0 = now();
        auto q0 = std::make_shared<SiconosVector>(1), v0 = std::make_shared<SiconosVector>(1);
        (*q0)(0) = h0;
        (*v0)(0) = 0.0;
        auto M = std::make_shared<SimpleMatrix>(1, 1), K = std::make_shared<SimpleMatrix>(1, 1),
             D = std::make_shared<SimpleMatrix>(1, 1);
        (*M)(0, 0) = 1.0;
        (*K)(0, 0) = pb.w2;
        (*D)(0, 0) = 0.0;
        auto ball = pb.w2 == 0.0 ? std::make_shared<LagrangianLinearTIDS>(q0, v0, M)
                                 : std::make_shared<LagrangianLinearTIDS>(q0, v0, M, K, D);
        auto force = std::make_shared<SiconosVector>(1);
        (*force)(0) = -pb.c;
        ball->setFExtPtr(force);
        auto H = std::make_shared<SimpleMatrix>(1, 1);
        (*H)(0, 0) = 1.0;
        auto inter = std::make_shared<Interaction>(std::make_shared<NewtonImpactNSL>(e),
                                                   std::make_shared<LagrangianLinearTIR>(H));
        double T = t_end(pb);
        auto nsds = std::make_shared<NonSmoothDynamicalSystem>(0.0, T);
        nsds->insertDynamicalSystem(ball);
        nsds->link(inter, ball);
        auto osi = std::make_shared<LsodarOSI>();
        osi->setTol(1, tol, tol);
        /* the time discretisation's step only sets where output events fall: one step, to the end */
        auto s = std::make_shared<EventDriven>(nsds, std::make_shared<TimeDiscretisation>(0.0, T));
        s->associate(osi, ball);
        s->insertNonSmoothProblem(std::make_shared<LCP>(), SICONOS_OSNSP_ED_IMPACT);
        s->insertNonSmoothProblem(std::make_shared<LCP>(), SICONOS_OSNSP_ED_SMOOTH_ACC);
        s->setToleranceED(tol_ed);
        s->setPrintStat(false);
        auto events = s->eventsManager();
        std::vector<impact> got;
        auto v = ball->velocity();
        while (s->hasNextEvent()) {
            s->advanceToEvent();
            bool nonsmooth = events->nextEvent()->getType() == 2; /* NS_EVENT: an impact */
            s->processEvents();
            if (nonsmooth)
                got.push_back({s->startingTime(), (*v)(0)});
        }
        r.wall = now() - t0;
        r.error = error_of(pb, got);
    } catch (...) {
        std::fprintf(stderr, "siconos at tol %g, TOL_ED %g: exception\n", tol, tol_ed);
    }
    return r;
}

struct setting {
    double a, b; /* penlim: rtol; Siconos: LSODAR's tolerance, TOL_ED */
    double error;
};

void compare(const problem &pb)
{
    std::vector<setting> ours, theirs;
    for (double rtol : {1e-4, 1e-6, 1e-8, 1e-10, 1e-12, 1e-14})
        ours.push_back({rtol, 0.0, penlim_limit(pb, rtol).error});
    for (double tol : {1e-4, 1e-6, 1e-8, 1e-10, 1e-12, 1e-14})
        for (double tol_ed : {1e-6, 1e-9, 1e-12})
            theirs.push_back({tol, tol_ed, siconos_event_driven(pb, tol, tol_ed).error});
    std::printf("\n%s, h0 = 1, e = 0.9: first %d impacts against the closed form\npenlim limit (rtol: error):",
                pb.name, impacts);
    for (const setting &s : ours)
        std::printf("  %.0e: %.1e", s.a, s.error);
    std::printf("\nSiconos EventDriven (LSODAR tol, TOL_ED: error):");
    for (size_t k = 0; k < theirs.size(); k++)
        std::printf("%s%.0e %.0e: %.1e", k % 3 == 0 ? "\n  " : "   ", theirs[k].a, theirs[k].b, theirs[k].error);
    std::printf("\n%8s %22s %28s %12s %13s %20s\n", "target", "penlim (rtol, error)", "Siconos (tol, TOL_ED, error)",
                "penlim [ms]", "Siconos [ms]", "Siconos/penlim wall");
    for (double target : {1e-4, 1e-6, 1e-8, 1e-10, 1e-12}) {
        /* for each solver, the fastest run of any setting that reaches the target */
        const setting *p = nullptr, *q = nullptr;
        double wp = INFINITY, wq = INFINITY;
        for (int rep = 0; rep < repeats; rep++) {
            for (const setting &s : ours)
                if (s.error <= target) {
                    double w = penlim_limit(pb, s.a).wall;
                    if (w < wp)
                        wp = w, p = &s;
                }
            for (const setting &s : theirs)
                if (s.error <= target) {
                    double w = siconos_event_driven(pb, s.a, s.b).wall;
                    if (w < wq)
                        wq = w, q = &s;
                }
        }
        char a[64] = "not reached", b[64] = "not reached";
        if (p)
            std::snprintf(a, sizeof a, "%.0e, %.1e", p->a, p->error);
        if (q)
            std::snprintf(b, sizeof b, "%.0e, %.0e, %.1e", q->a, q->b, q->error);
        if (p && q)
            std::printf("%8.0e %22s %28s %12.3f %13.3f %20.2f\n", target, a, b, 1e3 * wp, 1e3 * wq, wq / wp);
        else
            std::printf("%8.0e %22s %28s %12s %13s %20s\n", target, a, b, "-", "-", "-");
    }
}

} // namespace

int main()
{
    const problem problems[] = {{"ball", 9.81, 0.0}, {"spring", 4.0 * 0.5, 4.0}};
    for (const problem &pb : problems)
        compare(pb);
    return 0;
}
