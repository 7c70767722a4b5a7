/* The penalized engine's state, shared by its files (internal to src/solvers/penalty/): the run's
 * context (run_ctx: what the vector field, the roots, the weights and the aiming need), the run
 * (run: the steppers, the event loop and the record), the layout of the state vector, and the
 * functions one file of the engine calls in another (prefixed pen_).  The driver is penalty.c.
 *
 * The files, each owning one concept (from the bottom up):
 *   field.c      the state's right-hand side and Jacobian, forces and gaps at a state
 *   gamma.c      Gamma^mu's quadrature (paper 004, eq. (5))
 *   roots.c      the root functions of the contact switches and their hysteresis
 *   neighbours.c the neighbour list: which constraints are evaluated, and its proof
 *   slots.c      the impulses' slots: which state components hold which active constraint's impulse
 *   weights.c    the error weights
 *   aim.c        step aiming on the gap models (gap_model.c)
 *   lift_off.c   lift-off from settled contact: handover to the Runge-Kutta pair, exit resolution
 *   episodes.c   the record: rows, contact episodes, entry and exit times
 *   switches.c   the event hook: which roots switch a contact mode
 *   crossings.c  crossings between step ends (the missed hook)
 *   penalty.c    the driver: allocation, scales, the stepper choice, the solver type */
#ifndef PL_PENALTY_ENGINE_H
#define PL_PENALTY_ENGINE_H

#include <math.h>

#include "solvers/event_loop.h"
#include "solvers/neighbours.h"
#include "solvers/penalty/gap_model.h"
#include "solvers/penalty/penalized.h"
#include "solvers/solver.h"

/* Gamma^mu from the integrated P on a piece of the run between kinks of |sum w_i lambda_i| (see
 * GAMMA): from t on, Gamma = gamma + (t' - t) + s (P' - p - (t' - t)). */
typedef struct {
    double t, p, gamma, s;
} gamma_piece;

/* Everything the vector field needs.  Arrays are sized m (per constraint) or n, allocated once per
 * run (alloc_ctx); the scratch of each function that evaluates forces or gaps is its own, as these
 * functions call one another (a dense output re-integrates through rhs, say). */
typedef struct {
    const pl_model *model;
    pl_penalized field; /* the vector field and the contact modes */
    double mu, rtol;
    size_t n, m, N; /* dofs, constraints, state size 2n + 1 + slots */
    /* The impulses' slots (slots.c): the state holds `slots` impulse components; slot_of[i] is
     * constraint i's (SIZE_MAX: none), free_slot[0..nfree) those unowned.  slot_of NULL: slot i is
     * constraint i's, slots = m (fewer than PEN_SLOTS_FROM constraints). */
    size_t slots, *slot_of, *free_slot, nfree;
    double *pen;                /* resting penetration scale min(A/(k mu), V/sqrt(k mu)) */
    double *omega;              /* contact frequency sqrt(k mu) */
    double *bdf_omega, *bdf_xi; /* the settled contact's mode (init_scales), for bdf_max_order */
    double floor_q, floor_v;    /* free-motion scales V^2/A and V */
    int settled_phase;          /* every active contact settled (error weights differ) */
    double (*bdf_radius)[6];    /* h omega below which BDF of order k is unstable for contact i
                                   (NAN until the first settled phase needs it) */
    double *force_side;         /* +1 or -1: the sign of lambda_i since its last root */
    double *rate_side;          /* force_side at the last restart: the sign in dP/dt (gamma_rate_sign) */
    gamma_piece piece, piece_before; /* Gamma from P since the last kink or restart, and before it */
    double *kink_t;             /* m: the last kink of each force (undone by an event before it) */
    double *force_noise;        /* the round-off of lambda_i in this contact */
    size_t single_active;       /* the one active constraint, or m if none or several (modes_changed) */
    unsigned modes;             /* counts the changes of the contact modes */
    double rhs_t;               /* the state of the last right-hand side, whose forces f_rhs holds: */
    unsigned rhs_modes;         /* with these modes, */
    double *rhs_y;              /* at this (q, v) (2n) */
    const pl_forces *held;      /* the last forces pen_forces_at evaluated (NULL: none; f_roots, f_state
                                   or f_accel, which only pen_forces_at writes), at */
    double held_t;              /* this time, */
    unsigned held_modes;        /* these modes, */
    double *held_y;             /* this (q, v) (2n) */
    int trial;                  /* > 0 while the modes are changed for a trial evaluation without
                                   counting as a change (pen_trial_begin): nothing held is used */
    long bdf_held;              /* consecutive BDF steps held at order 2 for stability */
    double *jac_block;          /* 2n x 2n: the (q, v) block of the Jacobian (pen_jacobian_csc) */
    double jac_t, *jac_q;       /* bdf_fresh_jacobian: where BDF's Jacobian was last asked afresh
                                   (n; jac_t NAN: never), */
    double step_t, *step_q;     /* and the last BDF step's start (n; step_t NAN: none) */
    int bdf_futile;             /* BDF given up for the present contact set (see choose, penalty.c) */
    /* scratch */
    pl_forces f_rhs, f_roots, f_state, f_start, f_accel;
    pl_gap *gap_roots, *gap_noise, *gap_accel, *gap_turn; /* compressed to a support (pl_gap_new_sparse) */
    pl_gap *gap_dense;                                    /* n wide: compressed or dense */
    double *tol, *fp_geometry, *fp_accel, *fp_v_accel, *fp_dense;
    /* The gaps at the state (geometry_t, geometry_y): G_i, grad G_i ... (geometry, m) and Gdot_i
     * (geometry_gdot, m).  A step's end is scanned, recorded, and starts the next step's error
     * weights: geometry_at evaluates them once for the three. */
    double geometry_t, *geometry_y, *geometry_gdot;
    pl_gap *geometry; /* compressed to the supports */
    /* Aiming (aim): the gaps and their rates at the last two step starts (t, modes), and each
     * constraint's model fitted between them (gap_model.h; fitted: 1 if so). */
    double aim_t[2], *aim_g[2], *aim_gdot[2];
    unsigned aim_modes[2];
    pl_gap_model *gap_model;
    int *fitted;
    /* pen_singular: the singular points of the one active contact under a law delta^n, n not an
       integer (its entry and predicted exit, pen_exit_bound), and the order n + 2 (NAN: none) */
    double singular_behind, singular_ahead, singular_order;
    int *lifting;               /* lift_off_handover: 1 while a lift-off of constraint i is the
                                   Runge-Kutta pair's, 2 once its window has passed, 0 otherwise */
    int *saved_active;          /* m: the constraints resolved_gap_accel turns off for a trial */
    /* Neighbour search (neighbours.c, solvers/neighbours.h): nl.near NULL: every constraint is
     * evaluated. */
    pl_near nl;
    /* The root functions that can change sign (pen_live_roots): the gaps of the constraints in the
     * list and the forces of the active ones, in increasing order; the version counts the updates. */
    int *live_roots;
    size_t nlive_roots;
    unsigned long live_version;
    long gap_evals, root_writes; /* pl_stats (the list's rebuilds and visits: nl) */
    double *block;              /* the arrays above, carved (alloc_ctx) */
    int *int_block;
} run_ctx;

/* The state is y = (q[n], v[n], P, I[slots]): the impulses I_i = integral of lambda_i (in constraint
 * i's slot while it is active: slots.c) and P, the
 * integral of 1 + |sum w_i lambda_i| but for its kinks, are integrated with the motion; Gamma^mu of
 * eq. (5) follows from P (gamma_at).  The force of a constraint changes sign late in each impact
 * (the unclamped law pulls), where, with one active constraint i, |w_i lambda_i| has a kink.  P
 * integrates the smooth 1 + rate_side_i |w_i| lambda_i instead (gamma_rate_sign), whose every step
 * is smooth, and Gamma is P reflected on the pieces where rate_side_i lambda_i < 0.  The sign changes
 * are roots of the force, at which a Runge-Kutta step is not cut (kink: one re-integration to the
 * interpolant's estimate of the root; misplacing it by d changes Gamma by |w lambda'| d^2, below
 * 1e-10 of an impact's Delta Gamma) and BDF restarts.  P is reset to Gamma at every event. */
#define Q(y) (y)
#define V(y, c) ((y) + (c)->n)
#define GAMMA(y, c) ((y)[2 * (c)->n])
#define IMPULSE(y, c) ((y) + 2 * (c)->n + 1)

/* From this many constraints the impulses have slots (slots.c), and the neighbour list is used
 * (neighbours.c); below, every constraint has its impulse component and is evaluated. */
#define PEN_SLOTS_FROM PL_NEAR_FROM

/* Points per step at which the gap rate of an inactive constraint is sampled for extrema. */
#define FLIGHT_SAMPLES 8

typedef struct {
    run_ctx ctx;
    pl_solution *sol;
    pl_event_loop loop;
    pl_stepper *rk, *bdf;       /* non-stiff and stiff phases (bdf: NULL until the first settled contact) */
    pl_stepper_spec spec;       /* what both steppers are made from (setup_steppers) */
    pl_error bdf_error;         /* BDF's creation failed (status not PL_OK): the next missed hook reports it */
    int *open;                  /* index of the open episode of constraint i, or -1 */
    int *shared;                /* another constraint was active during the open episode of i */
    double *settle;             /* time from which the contact of constraint i counts as settled */
    double *lift_end;           /* the end of the window of a lift-off on the pair (lift_off_handover) */
    double *press, *press_t;    /* pressing() at the last two step ends (2 m each, the later second) */
    size_t handover;            /* the constraint whose lift-off `missed` handed over (m: none) */
    double *prev_g, *prev_gdot; /* at the last recorded row */
    double *entry_step;         /* pen_exit_bound: the first step of the contact of constraint i, */
    double *entry_time;         /* the law's contact time at its entry speed, */
    int *entry_episode;         /* in this episode (-1: none yet) */
    size_t missed_constraint;   /* the constraint of the crossing `missed` reported */
    char context[64];           /* "mu = ..." for messages */
    /* scratch (m or N each, once per run) */
    double *row;                     /* a trajectory row */
    double *g_scan, *g_a, *gdot_a, *gdot_b; /* scan_missed_crossings */
    double *gdot_samples;             /* find_missed_crossing: m at j m for each interior sample j */
    double *g_switch, *gdot_switch;   /* switch_at */
    int *direction;                   /* switch_at */
    double *g_init, *gdot_init, *f0, *f1, *y1, *w; /* initial_step */
    double *y_scan;                  /* scan_missed_crossings: the state at a piece's end */
    double *y0;
    double *block;                   /* the arrays above, carved (alloc_run) but f0 ... y0 (N each),
                                        carved apart into state_block (pen_slots_resize) */
    double *state_block;
    int *int_block;
} run;

static inline int evaluate_forces(const run_ctx *c, double t, const double *q, const double *v, pl_forces *f)
{
    return pl_penalized_forces(&c->field, t, q, v, f);
}

/* Decay rate of the contact oscillation: xi omega, or omega (xi - sqrt(xi^2 - 1)) overdamped. */
static inline double decay_rate(double omega, double xi)
{
    return xi < 1.0 ? xi * omega : omega * (xi - sqrt(xi * xi - 1.0));
}

/* The constraints evaluated, in increasing order: the k-th of pen_near_count (the neighbour list's,
 * or every one without a list). */
static inline size_t pen_near_count(const run_ctx *c)
{
    return c->nl.near ? c->nl.nlist : c->m;
}

static inline size_t pen_near_at(const run_ctx *c, size_t k)
{
    return c->nl.near ? c->nl.list[k] : k;
}

/* Whether constraint i is evaluated (in the neighbour list, or no list). */
static inline int pen_is_near(const run_ctx *c, size_t i)
{
    return !c->nl.near || c->nl.near[i];
}

/* The impulse of constraint i in the state y (0 without a slot). */
static inline double pen_impulse(const run_ctx *c, const double *y, size_t i)
{
    size_t slot = c->slot_of ? c->slot_of[i] : i;
    return slot < c->slots ? IMPULSE(y, c)[slot] : 0.0;
}

/* slots.c */
pl_status pen_slots_init(run *r, pl_error *err);
void pen_slots_free(run_ctx *c);
pl_status pen_slots_resize(run *r, size_t slots, pl_error *err);
pl_status pen_slots_reserve(run *r, size_t more, double **y, pl_error *err);
void pen_slot_take(run_ctx *c, size_t i, double *y);
void pen_slot_release(run_ctx *c, size_t i);

/* neighbours.c */
pl_status pen_neighbours_init(run_ctx *c, pl_error *err);
void pen_neighbours_free(run_ctx *c);
double pen_neighbours_drift(const run_ctx *c, double t, const double *q);
void pen_neighbours_rebuild(run_ctx *c, double t, const double *q);
void pen_neighbours_refresh(run *r, double t, const double *y);
int pen_neighbours_due(const run_ctx *c, double t, const double *q);
double pen_neighbours_redo(run *r, double t, const double *y);
double pen_neighbours_max_step(const run_ctx *c, double t, const double *y);
void pen_live_roots_update(run_ctx *c);
size_t pen_live_roots(void *user, const int **list, unsigned long *version);

/* field.c */
void pen_trial_begin(run_ctx *c);
void pen_trial_end(run_ctx *c);
void pen_contact_state(run_ctx *c, double t, const double *y, double *g, double *gdot, double *lambda);
void pen_far_gaps(run_ctx *c, double t, const double *y, double *g, double *gdot);
const pl_forces *pen_forces_at(run_ctx *c, double t, const double *y, pl_forces *scratch);
double pen_gap_accel(run_ctx *c, size_t i, double t, const double *y);
double pen_gap_noise(const run_ctx *c, size_t i, double t, const double *q);
double pen_gap_resolution(const run_ctx *c, size_t i, double t, const double *q);
const pl_gap *pen_geometry_at(run_ctx *c, double t, const double *y);
int pen_jacobian(double t, const double *y, double *J, void *user);
int pen_jacobian_csc(double t, const double *y, pl_csc *J, void *user);
double pen_noise_of_gap(const run_ctx *c, const pl_gap *gap, const double *q);
int pen_rhs(double t, const double *y, double *yd, void *user);

/* gamma.c */
double pen_gamma_at(const run_ctx *c, double t, const double *y);
double pen_gamma_rate_sign(const run_ctx *c, const pl_forces *f);
int pen_kink(double t, const double *y, int k, void *user);
void pen_restart_gamma(run_ctx *c, double t, double *y);

/* roots.c */
double pen_exit_level(const run_ctx *c, size_t i, double noise);
int pen_root(double t, const double *y, int k, double *g, void *user);
int pen_roots(double t, const double *y, double *g, void *user);
void pen_start_force_root(run_ctx *c, size_t i, double t, const double *y);

/* weights.c */
int pen_error_weights(double t, const double *y, double *w, void *user);

/* aim.c */
double pen_aim(double t, const double *y, double h, int *k, double *uncertainty, void *user);
double pen_entry_step(run *r, double t);
double pen_exit_bound(run *r, double t);
double pen_singular(double t, double *behind, double *ahead, void *user);

/* lift_off.c */
double pen_lift_off_approach(run *r, double t);
int pen_lift_off_handover(run *r, double t, const double *y, int at_root, double *t_hand);
double pen_lift_off_renewal(run *r, size_t i, double t);
double pen_pressing(const run_ctx *c, size_t i, double g, double gdot);
double pen_slow_exit_resolution(run *r, size_t i, size_t first_row, size_t k, double terms, double t0, double gdot);
double pen_three_contacts(const run_ctx *c, size_t i);

/* episodes.c */
pl_status pen_check_energy(run *r, size_t i, const pl_episode *ep, pl_error *err);
void pen_close_episode(run *r, size_t i, double t, const double *y, int ended);
pl_status pen_open_episode(run *r, size_t i, double t, const double *y, pl_error *err);
pl_status pen_record_sample(void *user, double t, const double *y, pl_error *err);

/* switches.c */
void pen_modes_changed(run_ctx *c);
int pen_resolved_crossing(run_ctx *c, size_t i, double t, const double *y, double side);
pl_status pen_switch_at(void *user, double *t, double *y, const int *found, int *changed, pl_error *err);

/* crossings.c */
int pen_missed(void *user, double t, const double *y, int at_root, double *t_cross, pl_error *err);

#endif
